#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# annotate_test.sh - grtrace-bpf-annotate (tools/grtrace/bpf) against the
# real virtio-gpu driver, the client's own count of its ioctls as the
# ground truth:
#  - bad arguments: one line, an exit status, no output file;
#  - every execbuffer and resource creation of virtgpu_client recorded,
#    named as the driver names them, with its device, thread, return value
#    (without virgl the driver answers execbuffer -ENOSYS) and duration;
#  - on grtrace's clock: merge_timeline.py links each resource creation to
#    the job it made in a grtrace recording of the same run;
#  - -p PID keeps one process's ioctls, with another client running;
#  - a reader stopped while 20000 ioctls come: what is not written is
#    counted (written + lost = the client's count), and the exit status says so;
#  - -d SECONDS ends the recording by itself;
#  - without -o it writes to standard output;
#  - grtrace record names the submitting threads in its task table:
#    "report --per-process" names the client and counts its jobs.
# TAP output; runs as root inside the test VM with -q "-device virtio-gpu-pci"
# on a kernel with BTF.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
ANNOTATE=${GRTRACE_ANNOTATE:-$TOP/tools/grtrace/bpf/grtrace-bpf-annotate}
CLIENT=$HERE/virtgpu_client
PLAN=11

skip_all() {
	local i

	for i in $(seq $PLAN); do echo "ok $i - annotator test $i # SKIP $1"; done
	exit 0
}

echo "TAP version 13"
echo "1..$PLAN"
[ -x "$ANNOTATE" ] || { echo "Bail out! no $ANNOTATE (make -C tools/grtrace)"; exit 1; }
# shellcheck disable=SC2046 # pkg-config prints several flags
[ -x "$CLIENT" ] || { cc -O2 -o "$TMP/virtgpu_client" "$HERE/virtgpu_client.c" \
	$(pkg-config --cflags --libs libdrm) && CLIENT=$TMP/virtgpu_client; }
grep -qs 0x1050 /sys/bus/pci/devices/*/device ||
	skip_all "no virtio-gpu device (vmtest.sh -q \"-device virtio-gpu-pci\")"
# CO-RE needs the kernel's own type information.
[ -e /sys/kernel/btf/vmlinux ] ||
	skip_all "this kernel has no BTF (CONFIG_DEBUG_INFO_BTF): the annotator cannot run on it"

# 1: bad arguments change nothing.
rc=0
for args in "-p abc" "-p 0" "-p 99999999" "-d 0" "-d 1x" "extra" "--pid=abc" "--duration 0"; do
	# shellcheck disable=SC2086
	"$ANNOTATE" $args -o "$TMP/bad.txt" 2>"$TMP/bad.err"
	st=$?
	if [ $st -eq 0 ] || [ "$(wc -l < "$TMP/bad.err")" -ne 1 ] ||
		! grep -q '^grtrace-bpf-annotate: ' "$TMP/bad.err" ||
		[ -e "$TMP/bad.txt" ]; then
		echo "# $args: exit $st: $(cat "$TMP/bad.err")"
		rc=1
	fi
done
ok $rc "bad arguments (-p abc, -p 0, a pid that does not exist, -d 0, -d 1x, a stray argument, --pid=abc, --duration 0): one line each, exit 1, no output file"

modprobe virtio_gpu && insmod "$KO" && insmod "$(ko grtrace_virtio_gpu)" &&
	for _ in $(seq 50); do [ -e /dev/dri/card0 ] && break; sleep 0.1; done
[ -e /dev/dri/card0 ] || { echo "Bail out! virtio_gpu, grtrace or its adapter did not load"; exit 1; }
for c in /sys/class/vtconsole/vtcon*/bind; do echo 0 > "$c"; done 2>/dev/null

# annotate_start FILE ARGS...: the annotator in the background (AN), once
# it is attached (its first line is written then).
annotate_start() {
	"$ANNOTATE" -o "$1" "${@:2}" 2>"$1.err" &
	AN=$!
	for _ in $(seq $((100 * SLOW))); do
		[ -s "$1" ] && return 0
		kill -0 "$AN" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/# /' "$1.err"
	return 1
}
annotate_stop() { kill -INT "$AN" && wait "$AN"; }

# count FILE PID NAME [RET]: the records of PID's NAME ioctls (returning RET).
count() {
	awk -v pid="$2" -v name="$3" -v ret="${4:-}" \
		'!/^#/ && $3 == pid && $8 == name && (ret == "" || $7 == ret)' "$1" | wc -l
}

# 2-5: one client under the annotator and a grtrace recording.
rc=0
record_start "$TMP/rec.dat" && annotate_start "$TMP/a.txt" || rc=1
# It stays 500 ms after its last ioctl: record reads the buffers every
# 100 ms, and names a thread only while it lives (a process that exits
# sooner keeps pid and tid only; record's summary counts them).
"$CLIENT" -f 4 -c 10 -e 25 -w 500 > "$TMP/client.out" &
cpid=$!
wait $cpid || rc=1
sleep 0.2
annotate_stop || rc=1
kill -INT "$REC" && wait "$REC" || rc=1
sed 's/^/# client: /' "$TMP/client.out"
tail -n 1 "$TMP/a.txt" | sed 's/^/# /'
grep -q '^# end=[0-9]* ioctls=[1-9][0-9]* lost=0 untimed=0 ' "$TMP/a.txt" || rc=1
ok $rc "the annotator attached, recorded and ended cleanly (nothing lost, nothing untimed)"

enosys=$(sed -n 's/^execbuffers=25 ok=0 enosys=\([0-9]*\) other=0$/\1/p' "$TMP/client.out")
got=$(count "$TMP/a.txt" $cpid DRM_IOCTL_VIRTGPU_EXECBUFFER -38)
echo "# execbuffer: client made 25 (-ENOSYS: ${enosys:-?}), annotator recorded $got returning -38"
[ "${enosys:-x}" = 25 ] && [ "$got" -eq 25 ] &&
	[ "$(count "$TMP/a.txt" $cpid DRM_IOCTL_VIRTGPU_EXECBUFFER)" -eq 25 ]
ok $? "each of the client's 25 DRM_IOCTL_VIRTGPU_EXECBUFFER calls recorded, with the driver's -ENOSYS"

got=$(count "$TMP/a.txt" $cpid DRM_IOCTL_VIRTGPU_RESOURCE_CREATE 0)
bad=$(awk -v pid=$cpid '!/^#/ && $3 == pid && ($4 != pid || $5 != "virtio_gpu:card0" ||
	$9 != "virtgpu_client" || $2 <= 0)' "$TMP/a.txt" | wc -l)
start=$(sed -n '1s/.* start=\([0-9]*\)$/\1/p' "$TMP/a.txt")
end=$(sed -n 's/^# end=\([0-9]*\) .*/\1/p' "$TMP/a.txt")
out=$(awk -v s="$start" -v e="$end" '!/^#/ && ($1 < s || $1 + $2 > e)' "$TMP/a.txt" | wc -l)
echo "# resource creations recorded: $got; records with a wrong device, thread, comm or duration: $bad; outside the window: $out"
[ "$got" -eq 10 ] && [ "$bad" -eq 0 ] && [ "$out" -eq 0 ]
ok $? "the client's 10 resource creations recorded; every record names virtio_gpu:card0, the client's thread and comm, a duration, inside the window"

python3 "$TOP/tools/grtrace/scripts/merge_timeline.py" --cpu "$TMP/a.txt" \
	--gpu "$TMP/rec.dat" > "$TMP/merged"
rc=$?
linked=$(grep -c "^[0-9]* cpu ioctl virtgpu_client/$cpid DRM_IOCTL_VIRTGPU_RESOURCE_CREATE dur=[0-9]* jobs=" "$TMP/merged")
grep -E '^(ioctls|jobs):' "$TMP/merged" | sed 's/^/# /'
[ $rc -eq 0 ] && [ "$linked" -eq 10 ]
ok $? "on grtrace's clock: merge_timeline.py links each of the 10 resource creations to its job ($linked)"

# 10: the same recording's task table names the client.
grep 'submitting threads\|exited before' "$TMP/rec.dat.err" | sed 's/^/# record: /'
"$TOOL" report -i "$TMP/rec.dat" --per-process --format json --limit 0 > "$TMP/pp.json" &&
	python3 - "$TMP/pp.json" "$cpid" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
pid = int(sys.argv[2])
mine = [p for p in j["processes"] if p["pid"] == pid]
print("# processes: " + ", ".join("%s %s %d jobs" % (p["pid"], p["process"], p["jobs"])
                                   for p in j["processes"]))
sys.exit(0 if len(mine) == 1 and mine[0]["process"] == "virtgpu_client" and
         mine[0]["threads"] == 1 and mine[0]["jobs"] >= 10 else 1)
EOF
ok $? "grtrace record's task table: report --per-process names the client (virtgpu_client, pid $cpid) and its 10 or more jobs"

# 6: -p PID, with another client running at the same time.
rm -f "$TMP/go"
sh -c "while [ ! -e $TMP/go ]; do sleep 0.05; done; exec $CLIENT -f 0 -c 3 -e 5" \
	> "$TMP/a-client.out" &
apid=$!
rc=0
annotate_start "$TMP/p.txt" -p $apid || rc=1
"$CLIENT" -f 0 -c 4 -e 7 > "$TMP/b-client.out" &
bpid=$!
touch "$TMP/go"
wait $apid || rc=1
wait $bpid || rc=1
sleep 0.2
annotate_stop || rc=1
others=$(awk -v pid=$apid '!/^#/ && $3 != pid' "$TMP/p.txt" | wc -l)
echo "# -p $apid: execbuffers $(count "$TMP/p.txt" $apid DRM_IOCTL_VIRTGPU_EXECBUFFER), creations $(count "$TMP/p.txt" $apid DRM_IOCTL_VIRTGPU_RESOURCE_CREATE), other processes' records $others"
grep -q "^# grtrace-bpf-annotate 1 clock=monotonic pid=$apid " "$TMP/p.txt" &&
	[ "$others" -eq 0 ] &&
	[ "$(count "$TMP/p.txt" $apid DRM_IOCTL_VIRTGPU_EXECBUFFER)" -eq 5 ] &&
	[ "$(count "$TMP/p.txt" $apid DRM_IOCTL_VIRTGPU_RESOURCE_CREATE)" -eq 3 ] &&
	[ $rc -eq 0 ]
ok $? "-p PID: that process's 5 execbuffers and 3 creations, none of the other client's"

# 7-8: a reader that does not read: the ring buffer fills, the rest is counted.
rc=0
annotate_start "$TMP/slow.txt" || rc=1
kill -STOP "$AN"
"$CLIENT" -f 0 -c 0 -e 20000 > "$TMP/s-client.out" &
spid=$!
wait $spid || rc=1
kill -CONT "$AN"
sleep 0.5
annotate_stop
st=$?
written=$(count "$TMP/slow.txt" $spid DRM_IOCTL_VIRTGPU_EXECBUFFER)
lost=$(sed -n 's/^# end=.* lost=\([0-9]*\) untimed=0 .*/\1/p' "$TMP/slow.txt")
echo "# 20000 execbuffers: $written written, ${lost:-?} lost; exit $st; $(cat "$TMP/slow.txt.err")"
[ $rc -eq 0 ] && [ -n "$lost" ] && [ "$lost" -gt 0 ] &&
	[ $((written + lost)) -eq 20000 ]
ok $? "a stopped reader: every one of 20000 ioctls either written or counted lost"
[ $st -eq 1 ] && grep -q "ioctls, $lost lost, 0 untimed$" "$TMP/slow.txt.err"
ok $? "a recording with losses exits 1 and says how many"

# 9: --duration (-d) ends it by itself; the long options as getopt_long's.
SECONDS=0
"$ANNOTATE" --duration=2 --output "$TMP/d.txt" 2>"$TMP/d.err"
st=$? took=$SECONDS
echo "# --duration=2: exit $st after ${took} s"
[ $st -eq 0 ] && [ "$took" -ge 2 ] && [ "$took" -le $((5 * SLOW)) ] &&
	grep -q '^# end=[0-9]* ioctls=[0-9]* lost=0 ' "$TMP/d.txt"
ok $? "--duration=2 --output FILE: ends by itself after 2 s, with its end line"

# 10: without -o, as the reference interface runs it: standard output,
# with the ioctls of a client that ran meanwhile.
"$ANNOTATE" -d 3 >"$TMP/stdout.txt" 2>"$TMP/stdout.err" &
AN=$!
for _ in $(seq $((50 * SLOW))); do
	grep -q '^# grtrace-bpf-annotate ' "$TMP/stdout.txt" && break
	sleep 0.1
done
"$CLIENT" -f 0 -c 2 -e 3 >/dev/null 2>&1
wait "$AN"
st=$?
echo "# no -o: exit $st; $(head -n 1 "$TMP/stdout.txt"); $(grep -vc '^#' "$TMP/stdout.txt") ioctl lines"
[ $st -eq 0 ] && head -n 1 "$TMP/stdout.txt" | grep -q '^# grtrace-bpf-annotate 1 ' &&
	grep -q '^# end=[0-9]* ioctls=[1-9][0-9]* lost=0 ' "$TMP/stdout.txt" &&
	awk '!/^#/ && $9 == "virtgpu_client"' "$TMP/stdout.txt" | grep -q .
ok $? "no -o: the recording goes to standard output, the client's ioctls in it"

rmmod virtio_gpu && rmmod grtrace_virtio_gpu && rmmod grtrace ||
	echo "# could not unload virtio_gpu, grtrace_virtio_gpu or grtrace"
rm -rf "$TMP"
exit "$FAILED"
