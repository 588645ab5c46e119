#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vgpu_test.sh - grtrace_vgpu.ko, the virtual GPU on the real DRM scheduler:
# a workload on three rings with cross-ring dependencies must produce
# exactly the expected gpu_scheduler ftrace events in dependency order; a
# hung job times out and the ring goes on; bad input changes nothing; the
# module loads and unloads cleanly with traffic in flight.  Prints the
# jobs/s it sustains.  (Exec times are timestamps_test.sh's.)
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
KO=${GRTRACE_VGPU_KO:-$(ko grtrace_vgpu)}
CYCLES=${VGPU_CYCLES:-20}
D=/sys/kernel/debug/grtrace_vgpu
T=/sys/kernel/tracing

# stat_of RING KEY: a counter of one ring from the stats file.
stat_of() {
	sed -n "s/^ring=vgpu0-$1 .*\<$2=\([0-9]*\).*/\1/p" "$D/stats"
}

# All rings idle and every submitted job completed.
all_done() {
	awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	       if (v["submitted"] != v["completed"]) bad = 1 }
	     END { exit bad }' "$D/stats"
}

# submit TEXT: one write(2) of TEXT (with \n escapes) to the submit file;
# bash's printf would write line by line.
submit() {
	printf '%b' "$1" >"$TMP/submit" &&
		dd if="$TMP/submit" of="$D/submit" bs=64k status=none
}
wait_idle() { [ "$(cat "$D/wait")" = idle ]; }

# trace_on / trace_off: the four gpu_scheduler events, on a clean buffer.
trace_on() {
	local e

	echo 0 >"$T/tracing_on"
	echo >"$T/trace"
	for e in $EVENTS; do
		echo 1 >"$T/events/gpu_scheduler/$e/enable" || return 1
	done
	echo 1 >"$T/tracing_on"
}

trace_off() {
	local e

	echo 0 >"$T/tracing_on"
	for e in $EVENTS; do
		echo 0 >"$T/events/gpu_scheduler/$e/enable"
	done
	cat "$T/trace" >"$1"
}

# count FILE EVENT [RING]: events of a type (on a ring) in a saved trace.
# An event that does not print its ring (6.17's add_dep) is on the ring
# its job's fence context was queued on.
# FIELD: awk's field(name), the value of "name=" in an ftrace line.
FIELD='
	function field(name) {
		if (!match($0, name "=[^, ]*"))
			return ""
		return substr($0, RSTART + length(name) + 1,
			      RLENGTH - length(name) - 1)
	}'
count() {
	awk -v ev="$2:" -v ring="${3:+vgpu0-$3}" "$FIELD"'
	{
		for (i = 1; i <= NF && $i !~ /^drm_[a-z_]+:$/; i++)
			;
		if (i > NF)
			next
		split(field("fence"), f, ":")
		r = field("ring")
		if (r != "")
			ring_of[f[1]] = r
		else
			r = ring_of[f[1]]
		if ($i == ev && (ring == "" || r == ring))
			n++
	}
	END { print n + 0 }' "$1"
}

# Per entity, in order of first submission per ring (ENT gfx 1 = the
# entity of the first context submitted on gfx): time of its first run
# and of its last completion, in microseconds.  Fences are mapped to
# entities through the queue event; a fence address is only reused after
# its job completed, so the latest mapping is the right one.  6.17+ prints
# no entity: the fence context is the entity's own.
entity_times() {
	awk -v q="$SCHED_QUEUE:" -v r="$SCHED_RUN:" -v d="$SCHED_DONE:" "$FIELD"'
	{
		for (i = 1; i <= NF && $i !~ /^drm_[a-z_]+:$/; i++)
			;
		if (i > NF)
			next
		ev = $i; ts = $(i - 1); sub(/:$/, "", ts)
		us = ts * 1000000
		ent = field("entity"); fence = field("fence")
		if (ent == "") {
			split(fence, fc, ":")
			ent = fc[1]
		}
		if (ev == q) {
			ring = field("ring")
			if (!((ring, ent) in idx)) {
				idx[ring, ent] = ++nent[ring]
				name[ent] = ring " " nent[ring]
			}
			ent_of[fence] = ent
		} else if (ev == r) {
			if (!(ent in first_run))
				first_run[ent] = us
		} else if (ev == d) {
			last_done[ent_of[fence]] = us
		}
	}
	END {
		for (e in name)
			if (first_run[e] && last_done[e])
				printf "ENT %s %.0f %.0f\n", name[e],
				       first_run[e], last_done[e]
	}' "$1"
}

# ent_field TIMES RING K COL: column COL (4 = first run, 5 = last done).
ent_field() {
	awk -v r="vgpu0-$2" -v k="$3" -v c="$4" \
		'$2 == r && $3 == k { print $c }' "$1"
}

dmesg_mark=$(dmesg | wc -l)
new_dmesg() { dmesg | tail -n +"$((dmesg_mark + 1))"; }

echo "TAP version 13"
echo "1..12"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mountpoint -q "$T" || mount -t tracefs none "$T"
rmmod grtrace_vgpu 2>/dev/null
modprobe gpu-sched || { echo "Bail out! modprobe gpu-sched failed"; exit 1; }
insmod "$KO" || { echo "Bail out! insmod $KO failed"; exit 1; }
[ -d "$T/events/gpu_scheduler" ] ||
	{ echo "Bail out! no gpu_scheduler events in $T"; exit 1; }
sched_events
EVENTS="$SCHED_QUEUE $SCHED_RUN $SCHED_DONE $SCHED_DEP"
echo "# gpu_scheduler events: $EVENTS"
old_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$T/trace_clock")
old_size=$(grep -o '[0-9]*' "$T/buffer_size_kb" | tail -n 1)
echo mono >"$T/trace_clock"
echo 8192 >"$T/buffer_size_kb"

# 1. Three rings and their files.
[ "$(grep -c '^ring=vgpu0-\(gfx\|compute\|copy\) submitted=0 completed=0 timed_out=0 contexts=0$' \
	"$D/stats")" = 3 ] && [ -w "$D/submit" ] && [ -r "$D/wait" ]
ok $? "three idle rings (gfx, compute, copy) and the submit/wait/stats files"

# 2. Bad input: every write fails with EINVAL and nothing is submitted.
bad=0
for line in "blit 0 1 0" "gfx 16 1 0" "gfx 0 0 0" "gfx 0 100001 0" \
	"gfx 0 1 10000001" "gfx 0 1" "gfx 0 1 0 dep=gfx" "gfx 0 1 0 dep=gfx:x" \
	"gfx 0 1 0 hang hang" "gfx 0 1 0 dep=gfx:1 dep=copy:1" "gfx 0 1 0 fast" \
	"gfx 0 1 -1" "" "gfx 0 1 0\ncopy 0 1 x" "# nothing"; do
	if submit "$line\n" 2>"$TMP/err" ||
		! grep -q "Invalid argument" "$TMP/err"; then
		sed "s/^/# /" "$TMP/err"
		echo "# accepted or wrong error: '$line'"
		bad=1
	fi
done
[ $bad = 0 ] && [ "$(stat_of gfx submitted)" = 0 ] &&
	[ "$(stat_of copy submitted)" = 0 ] && [ "$(stat_of copy contexts)" = 0 ]
ok $? "bad workload lines fail with EINVAL and submit nothing"

# 3-6. A traced workload: 600 jobs, chains gfx:0 -> compute:0 -> copy:0
# and gfx:1 -> copy:1.  Each dependent job waits once (wait_dep fires
# for every dependency handed to the scheduler, signalled or not).
trace_on || echo "# cannot enable the gpu_scheduler events"
submit "gfx 0 200 50\ngfx 1 100 20\ncompute 0 150 30 dep=gfx:0\ncopy 0 100 10 dep=compute:0\ncopy 1 50 0 dep=gfx:1\n"
wait_idle
rc=$?
trace_off "$TMP/trace1"
[ $rc = 0 ] && all_done && [ "$(stat_of gfx completed)" = 300 ] &&
	[ "$(stat_of compute completed)" = 150 ] &&
	[ "$(stat_of copy completed)" = 150 ] && [ "$(stat_of gfx contexts)" = 2 ]
ok $? "600 jobs on three rings complete (wait reads idle, stats agree)"

got="$(count "$TMP/trace1" $SCHED_QUEUE) $(count "$TMP/trace1" $SCHED_RUN)"
got+=" $(count "$TMP/trace1" $SCHED_DONE) $(count "$TMP/trace1" $SCHED_DEP)"
[ "$got" = "600 600 600 300" ]
ok $? "ftrace: 600 queued, 600 run, 600 done, 300 dependencies (got $got)"

got="$(count "$TMP/trace1" $SCHED_RUN gfx) $(count "$TMP/trace1" $SCHED_RUN compute)"
got+=" $(count "$TMP/trace1" $SCHED_RUN copy) $(count "$TMP/trace1" $SCHED_DEP compute)"
got+=" $(count "$TMP/trace1" $SCHED_DEP copy)"
[ "$got" = "300 150 150 150 150" ]
ok $? "ftrace per ring: run gfx 300 compute 150 copy 150, dependencies compute 150 copy 150 (got $got)"

entity_times "$TMP/trace1" >"$TMP/ent1"
g0=$(ent_field "$TMP/ent1" gfx 1 5) g1=$(ent_field "$TMP/ent1" gfx 2 5)
c0r=$(ent_field "$TMP/ent1" compute 1 4) c0d=$(ent_field "$TMP/ent1" compute 1 5)
p0r=$(ent_field "$TMP/ent1" copy 1 4) p1r=$(ent_field "$TMP/ent1" copy 2 4)
[ "${g0:-0}" -gt 0 ] && [ "${g1:-0}" -gt 0 ] && [ "${c0r:-0}" -gt 0 ] &&
	[ "${p0r:-0}" -gt 0 ] && [ "${p1r:-0}" -gt 0 ] && [ "$c0r" -ge "$g0" ] && [ "$p0r" -ge "$c0d" ] && [ "$p1r" -ge "$g1" ]
ok $? "dependencies hold: compute:0 runs after gfx:0 is done, copy:0 after compute:0, copy:1 after gfx:1"

# Exec times and in-order queueing are checked to 20 us in the icount
# guest (timestamps_test.sh): on 2 vCPUs under TCG the guest's clock is
# the host's, and the emulator's scheduling lands in any interval.

# 7-8. A hang: the job times out (timeout_ms=500) and the jobs behind it,
# on its ring and on a ring depending on it, still run.
trace_on
start=$(date +%s%N)
submit "gfx 5 1 0 hang\ngfx 5 3 100\ncompute 5 2 100 dep=gfx:5\n" && wait_idle
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
trace_off "$TMP/trace4"
echo "# hang: idle after $ms ms"
[ $rc = 0 ] && all_done && [ "$(stat_of gfx timed_out)" = 1 ] &&
	[ "$(stat_of compute timed_out)" = 0 ] && [ "$ms" -ge 450 ] &&
	new_dmesg | grep -q "vgpu0-gfx: job .* timed out, engine reset"
ok $? "a hung job times out once (timed_out=1 after ${ms} ms) and the ring recovers"

got="$(count "$TMP/trace4" $SCHED_QUEUE) $(count "$TMP/trace4" $SCHED_RUN)"
got+=" $(count "$TMP/trace4" $SCHED_DONE) $(count "$TMP/trace4" $SCHED_DEP)"
[ "$got" = "6 6 6 2" ]
ok $? "ftrace across the reset: 6 queued, 6 run, 6 done, 2 waits (got $got)"

# 9. Throughput, tracing off: 30000 jobs of 0 us on three rings.
start=$(date +%s%N)
submit "gfx 0 10000 0\ncompute 1 10000 0\ncopy 2 10000 0\n" && wait_idle
rc=$?
ns=$(($(date +%s%N) - start))
echo "# throughput: 30000 jobs in $((ns / 1000000)) ms = $((30000 * 1000000000 / ns)) jobs/s"
[ $rc = 0 ] && all_done
ok $? "30000 jobs complete"

echo "$old_clock" >"$T/trace_clock"
echo "$old_size" >"$T/buffer_size_kb"
rmmod grtrace_vgpu
ok $? "rmmod when idle"

# 11-12. Load and unload with traffic in flight: dependencies, hangs
# (timeout_ms=100) and a writer killed mid-write; events on.
traffic() {
	while printf 'gfx 0 20 500\ncompute 1 20 300 dep=gfx:0\ncopy 2 20 100 dep=compute:1\ngfx 3 1 0 hang\ncopy 4 5 0 dep=gfx:3\n' \
		>"$D/submit" 2>/dev/null; do
		:
	done
}

mem_before=$(awk '/^MemAvailable/ { print $2 }' /proc/meminfo)
trace_on
bad=0
for i in $(seq "$CYCLES"); do
	insmod "$KO" timeout_ms=100 || { bad=1; break; }
	traffic &
	writer=$!
	sleep "0.$((RANDOM % 3 + 1))"
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
	inflight=$(awk '{ split($2, s, "="); split($3, c, "="); n += s[2] - c[2] }
			END { print n }' "$D/stats")
	[ "$i" -le 3 ] && echo "# cycle $i: rmmod with $inflight jobs in flight"
	rmmod grtrace_vgpu || { bad=1; break; }
done
trace_off "$TMP/trace5"
ok $bad "$CYCLES insmod/rmmod cycles with traffic in flight"

sync; echo 3 >/proc/sys/vm/drop_caches
mem_after=$(awk '/^MemAvailable/ { print $2 }' /proc/meminfo)
echo "# MemAvailable: $mem_before kB before the cycles, $mem_after kB after;" \
	"$(count "$TMP/trace5" $SCHED_DONE) jobs done"
! new_dmesg | grep -E "WARNING|BUG|Oops|leaked|Call Trace"
ok $? "kernel log: no WARN, BUG, Oops or leak"

[ $FAILED -eq 0 ] || { new_dmesg | tail -n 20 | sed 's/^/# /'; }
rm -rf "$TMP"
exit $FAILED
