#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stress_test.sh - everything at once on 2 vCPUs, through the real modules.
# The virtual GPU runs jobs on its drm_sched rings from both CPUs (so the
# drm_sched bridge emits), and emit injects from both, while other
# processes start and stop tracing, write config, unload and reload the
# bridge, and unload and reload the virtual GPU's driver (its rings, and
# their ring ids, come and go each time).
#
# Phase 1 adds readers opening, reading and closing every events file,
# buffer_size rewrites and reset_stats.  Afterwards: emitted == written +
# dropped_total exactly, no deadlock (the VM's deadline), no WARN, BUG,
# lockdep report or hung task.
#
# Phase 2 keeps one reader, a grtrace record that started the session,
# on a 64 KiB buffer, and stops it for 1.5 s four times so that it falls
# behind.  The recording must hold every event the module wrote, and the
# records it misses, the gaps in each CPU's cseq (format 2, the default)
# as the report counts them, must be the counted losses, in total and on
# each CPU for every reason (buffer_full, control, nested, NMI):
# lost == dropped_buffer_full + control_dropped, exactly.
# TAP output; runs as root inside the test VM.
#
# STRESS_SECS (default 30) is how long each phase runs at least.  Longer,
# on demand (modules and tool built as run_tests.sh builds them):
#   tools/testing/selftests/grtrace/vmtest.sh -k 6.1.0-56-amd64 -t 3600 \
#	-- env STRESS_SECS=1200 tools/testing/selftests/grtrace/stress_test.sh

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
VD=/sys/kernel/debug/grtrace_vgpu
SECS=${STRESS_SECS:-30}
STOP=$TMP/stop
MIN_CYCLES=20	# "dozens": each registers up to 3 rings again

# The actors: each loops until $STOP exists, ignoring the errors that the
# others provoke (a file gone with its module, EBUSY, EAGAIN, EIO).
work() {	# CPU: vgpu jobs from CPU, and events emitted there as fast as it can
	local cpu=$1

	python3 -c '
import os, sys
cpu = int(sys.argv[3])
os.sched_setaffinity(0, {cpu})
text = "".join("submit %d 3 1 %d\n" % (100 + cpu, s) for s in range(1, 151))
while not os.path.exists(sys.argv[2]):
    try:
        with open(sys.argv[1], "w") as f:
            f.write(text)
    except OSError:
        pass
' "$D/emit" "$STOP" "$cpu" &
	while [ ! -e "$STOP" ]; do
		printf 'gfx %d 8 100\ncopy %d 4 50\ncompute %d 4 80 dep=gfx:%d\n' \
			"$cpu" "$cpu" "$cpu" "$cpu" >"$TMP/sub$cpu"
		taskset -c "$cpu" dd if="$TMP/sub$cpu" of="$VD/submit" bs=4k \
			status=none 2>/dev/null
	done
	wait
}

control() {	# PHASE: start/stop, config, and in phase 1 resizes, resets
	local i=0

	while [ ! -e "$STOP" ]; do
		i=$((i + 1))
		echo stop >"$D/control"
		if [ "$1" = 1 ]; then
			case $((i % 3)) in
			0) echo 65536 ;; 1) echo 131072 ;; 2) echo 1048576 ;;
			esac >"$D/buffer_size" 2>/dev/null
			echo reset_stats >"$D/config"
		fi
		echo start >"$D/control" 2>/dev/null
		echo "sample=$((50 + i % 51))" >"$D/config"
		echo "level=verbose" >"$D/config"
		sleep 0.2
		echo "sample=100" >"$D/config"
		echo "level=normal" >"$D/config"
		sleep 0.1
	done
	echo "$i" >"$TMP/control.n"
}

bridge() {	# unload and reload the drm_sched bridge
	local i=0

	while [ ! -e "$STOP" ]; do
		rmmod grtrace_drm_bridge 2>/dev/null &&
			insmod "$(ko grtrace_drm_bridge)" && i=$((i + 1))
		sleep 0.3
	done
	echo "$i" >"$TMP/bridge.n"
}

vgpu() {	# unload and reload the virtual GPU's driver
	local i=0

	while [ ! -e "$STOP" ]; do
		rmmod grtrace_vgpu 2>/dev/null &&
			insmod "$(ko grtrace_vgpu)" timeout_ms=2000 &&
			i=$((i + 1)) && echo "$i" >"$TMP/vgpu.live"
		sleep 0.1
	done
	echo "$i" >"$TMP/vgpu.n"
}

readers() {	# open, read and close every events file
	python3 - "$D" "$STOP" <<'EOF'
import errno, glob, os, sys
n = 0
while not os.path.exists(sys.argv[2]):
    for path in glob.glob(sys.argv[1] + "/events*"):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            for _ in range(4):
                if not os.read(fd, 1 << 16):
                    break
            n += 1
        except OSError as e:
            if e.errno not in (errno.EIO, errno.EAGAIN):
                raise
        finally:
            os.close(fd)
print("# readers: %d opens" % n)
EOF
}

# run_phase PHASE: the actors for $SECS, and on a slow kernel (KASAN
# under TCG) on until the vgpu went and came back half of MIN_CYCLES
# times, at most 10 x SLOW x $SECS; then quiet.
run_phase() {
	local pids=() p end n

	rm -f "$STOP"
	echo 0 >"$TMP/vgpu.live"
	work 0 & pids+=($!)
	work 1 & pids+=($!)
	control "$1" & pids+=($!)
	bridge & pids+=($!)
	vgpu & pids+=($!)
	[ "$1" = 1 ] && { readers & pids+=($!); }
	sleep "$SECS"
	end=$((SECONDS + (10 * SLOW - 1) * SECS))
	while [ "$SECONDS" -lt "$end" ]; do
		n=$(cat "$TMP/vgpu.live")	# empty while being rewritten
		[ "${n:-0}" -ge $((MIN_CYCLES / 2)) ] && break
		sleep 1
	done
	touch "$STOP"
	for p in "${pids[@]}"; do
		wait "$p"
	done
	grep -q "^grtrace_vgpu " /proc/modules ||
		insmod "$(ko grtrace_vgpu)" timeout_ms=2000
	grep -q "^grtrace_drm_bridge " /proc/modules ||
		insmod "$(ko grtrace_drm_bridge)"
	cat "$VD/wait" >/dev/null
	echo "# phase $1: $(cat "$TMP/control.n") start/stop rounds, $(cat "$TMP/bridge.n") bridge and $(cat "$TMP/vgpu.n") vgpu reloads"
}

echo "TAP version 13"
echo "1..9"
load_stack timeout_ms=2000

# Phase 1: everything, readers, resizes and resets included.
run_phase 1
echo stop >"$D/control"
echo "# stats: $(grep -E '^(emitted|written|dropped_total|discarded_bytes)=' "$D/stats" | tr '\n' ' ')"
awk -F= '{ v[$1] = $2 } END { exit !(v["emitted"] == v["written"] + v["dropped_total"]) }' "$D/stats"
ok $? "phase 1: emitted == written + dropped_total after $SECS s of everything at once"

# Phase 2: one record that falls behind, everything else as before.
vgpu_n1=$(cat "$TMP/vgpu.n")
echo 65536 >"$D/buffer_size"
echo reset_stats >"$D/config"
record_start "$TMP/rec.dat" || { echo "Bail out! record did not start"; exit 1; }
# A reader that stalls now and then: it must lose, and count.  Each time
# it reads on, the writers are refusing records into its full buffer.
( for _ in 1 2 3 4; do
	sleep "$((SECS / 5))"; kill -STOP "$REC"; sleep 1.5; kill -CONT "$REC"
  done ) &
STALL=$!
run_phase 2
wait "$STALL"
# A last event on each CPU, written, with nothing behind it: a loss shows
# as a gap in a CPU's cseq before its next record, and one after the last
# would show as none.  An event refused by a buffer the reader has not
# drained yet is counted lost and emitted again.  The start is refused
# (ENOSPC) while a full buffer does not take its description, and tried
# again; a refused start writes nothing and takes no number.
for try in $(seq 20); do
	echo start >"$D/control" 2>/dev/null
	grep -q started "$D/control" && break
	echo "# start refused (try $try): the reader has not made room yet"
	sleep 0.5
done
sleep 1
for cpu in 0 1; do
	for try in 1 2 3 4 5 6 7 8 9 10; do
		w=$(stat_of written)
		taskset -c $cpu sh -c "echo 'submit 199 3 1 $((cpu + 1))' >$D/emit"
		[ "$(stat_of written)" -gt "$w" ] && break
		echo "# the closing event on CPU $cpu was refused (try $try)"
		sleep 1
	done
done
sleep 1
kill -INT "$REC"
wait "$REC"
rc=$?
sed 's/^/# record: /' "$TMP/rec.dat.err"
ok $rc "phase 2: the record exits 0"
echo "# stats: $(grep -E '^(emitted|written|dropped_total|dropped_buffer_full|control_dropped)=' "$D/stats" | tr '\n' ' ')"
awk -F= '{ v[$1] = $2 } END { exit !(v["emitted"] == v["written"] + v["dropped_total"]) }' "$D/stats"
ok $? "phase 2: emitted == written + dropped_total"

"$TOOL" dump -i "$TMP/rec.dat" >"$TMP/rec.dump" 2>"$TMP/rec.dump.err"
rc=$?
sed 's/^/# dump: /' "$TMP/rec.dump.err" | head -n 5
[ $rc = 0 ] && ! [ -s "$TMP/rec.dump.err" ]
ok $? "phase 2: the recording reads back without a complaint"

"$TOOL" report -i "$TMP/rec.dat" --format json --limit 0 >"$TMP/rec.json" 2>"$TMP/rec.json.err"
cp "$D/pc_stats" "$TMP/pc_stats"
check "phase 2" python3 - "$TMP/rec.dump" "$(stat_of dropped_buffer_full)" \
	"$(stat_of control_dropped)" "$(stat_of written)" "$TMP/rec.json" \
	"$TMP/pc_stats" <<'EOF'
import json
import sys
events = 0
lines = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 4 or not f[0].isdigit():
        continue
    events += len(f) > 4 and f[4].startswith("ctx=")
    lines.append(line)
written = int(sys.argv[4])
print("%s the recording holds every event the module wrote (%d of %d)"
      % ("PASS" if events == written else "FAIL", events, written))
lost = int(sys.argv[2]) + int(sys.argv[3])
summ = json.load(open(sys.argv[5]))["summary"]
got = summ["lost_records"]
# Each CPU's last record is its closing event (format: ts cpu gseq TYPE ...).
final = {}
for l in lines:
    final[l.split()[1]] = l
last = len(final) == 2 and all("ctx=199" in l for l in final.values())
print("# %d records; cseq gaps %d holding %s lost; counted lost: %d (buffer_full %s, control %s)"
      % (len(lines), summ["cseq_gaps"], got, lost, sys.argv[2], sys.argv[3]))
ok = got == lost and last and lost > 0
print("%s cseq gaps == counted losses (%s == %d), the last events last, the record fell behind"
      % ("PASS" if ok else "FAIL", got, lost))
# Per CPU, for every reason a record is lost (and takes its cseq): the
# CPU's gaps in the report against that CPU's counters.
reasons = ("dropped_buffer_full", "control_dropped", "dropped_nested",
           "dropped_nmi")
counted = []
for line in open(sys.argv[6]):
    kv = dict(x.split("=", 1) for x in line.split() if "=" in x)
    if "cpu" in kv:
        cpu = int(kv["cpu"])
        counted += [0] * (cpu + 1 - len(counted))
        counted[cpu] = sum(int(kv.get(r, 0)) for r in reasons)
by_cpu = summ.get("lost_records_by_cpu", [])
by_cpu = by_cpu + [0] * (len(counted) - len(by_cpu))
print("# by CPU: cseq gaps hold %s; counted lost (%s) %s"
      % (by_cpu, " + ".join(reasons), counted))
print("%s on each CPU the cseq gaps hold exactly the records it counted lost"
      % ("PASS" if by_cpu == counted and len(counted) >= 2 else "FAIL"))
EOF
# Ring ids come back when the vgpu goes: after dozens of reloads, three
# rings each, the ids in the recording are still the lowest few.
reloads=$((vgpu_n1 + $(cat "$TMP/vgpu.n")))
maxring=$(awk '/ring=/ { for (i = 1; i <= NF; i++) if ($i ~ /^ring=/) {
		r = substr($i, 6) + 0; if (r > m) m = r } } END { print m + 0 }' "$TMP/rec.dump")
rings=$(grep -c 'RING.*vgpu0' "$TMP/rec.dump")
echo "# $reloads vgpu reloads; $rings RING records of its rings in phase 2; highest ring id used: $maxring"
# Phase 2 fills the buffers, so most RING records of its reloads may be
# lost (control_dropped, counted): one reload's three are enough to show
# the recording spans reloads; the ids of every job event say the rest.
[ "$reloads" -ge "$MIN_CYCLES" ] && [ "$maxring" -lt 8 ] && [ "$rings" -ge 3 ]
ok $? "$reloads vgpu reloads (at least $MIN_CYCLES): ring ids reclaimed, the highest used $maxring"
sed 's/^/# rings: /' "$D/rings"

unload_all
! new_dmesg | grep -E "WARNING|BUG|Oops|leaked|Call Trace|hung_task|blocked for more|lockdep|possible circular"
ok $? "kernel log: no WARN, BUG, Oops, lockdep report or hung task"
[ $FAILED -eq 0 ] || { new_dmesg | tail -n 30 | sed 's/^/# /'; }
rm -rf "$TMP"
exit $FAILED
