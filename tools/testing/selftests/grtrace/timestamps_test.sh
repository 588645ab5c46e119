#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# timestamps_test.sh - every timestamp the drm_bridge writes against
# ftrace's of the same tracepoint hit, "trace-cmd record -C mono" recording
# the gpu_scheduler events beside "grtrace record": 500 jobs on the three
# rings of grtrace_vgpu with cross-ring dependencies, then a hanging job.
# Counts, jobs and events must match 1:1, every pair of timestamps within
# 20 us, and the hung job must have an ERROR.
#
# Run it in a guest whose clock is its own work: run_tests.sh boots one
# vCPU with "-icount shift=0,sleep=off" (1 ns per guest instruction).  Under
# plain TCG the guest's clock is the host's, and 2 to 10 % of the pairs came
# out late by up to 4 ms on 2 vCPUs: a timer interrupt or a switch to the
# other vCPU between the two probes, the emulator's time, not the kernel's.
# On one vCPU under icount an interrupt between them still happens and is
# counted; it costs what the guest executes, a few microseconds.
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
V=/sys/kernel/debug/grtrace_vgpu
TR=/sys/kernel/tracing
# The interrupts ftrace records too, to name what lands between two stamps.
IRQS="-e irq_vectors:local_timer_entry -e irq_vectors:reschedule_entry
	-e irq_vectors:call_function_single_entry -e irq:irq_handler_entry"

echo "TAP version 13"
echo "1..8"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mountpoint -q $TR || mount -t tracefs nodev $TR
if ! command -v trace-cmd >/dev/null; then
	echo "Bail out! no trace-cmd (setup.sh installs it)"
	exit 1
fi
if ! modprobe gpu-sched || ! insmod "$KO" ||
	! insmod "$KODIR/grtrace_drm_bridge.ko" ||
	! insmod "$KODIR/grtrace_vgpu.ko"; then
	echo "Bail out! cannot load gpu-sched, grtrace, grtrace_drm_bridge or grtrace_vgpu"
	exit 1
fi
echo "# $(nproc) CPU(s), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

# 1: both recorders running.  trace-cmd has enabled the events and tracing
# once the top instance says so; its buffer holds what comes before the
# reader threads start.
# shellcheck disable=SC2086
trace-cmd record -q -C mono -e gpu_scheduler $IRQS -o "$TMP/sched.tdat" \
	>"$TMP/trace-cmd.log" 2>&1 &
TC=$!
for _ in $(seq 100); do
	[ "$(cat $TR/events/gpu_scheduler/drm_run_job/enable)" = 1 ] &&
		[ "$(cat $TR/tracing_on)" = 1 ] &&
		grep -q '\[mono\]' $TR/trace_clock && break
	sleep 0.1
done
grep -q '\[mono\]' $TR/trace_clock && record_start "$TMP/sched.dat"
ok $? "trace-cmd record -C mono and grtrace record started"

printf '%s\n' 'gfx 0 200 20' 'compute 1 150 10 dep=gfx:0' \
	'copy 2 100 5 dep=compute:1' 'gfx 3 50 5 dep=copy:2' > "$V/submit" &&
	cat "$V/wait" >/dev/null &&
	echo 'gfx 4 1 10 hang' > "$V/submit" && cat "$V/wait" >/dev/null
rc=$?
sleep 0.2
kill -INT "$REC" && wait "$REC"
rc2=$?
kill -INT "$TC" && wait "$TC"
rc3=$?
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ]
ok $? "workload ran (501 jobs), both recorders stopped cleanly"

# 3: nothing lost on either side, so that 1:1 means something.
trace-cmd report -t -i "$TMP/sched.tdat" >"$TMP/sched.ftrace" 2>"$TMP/report.err"
rc=$?
[ $rc -eq 0 ] && ! grep -qi 'lost' "$TMP/sched.ftrace" &&
	grep -q 'dropped: 0' "$TMP/sched.dat.err" &&
	"$TOOL" dump -i "$TMP/sched.dat" >"$TMP/sched.dump"
ok $? "recorded without a loss: trace-cmd report, grtrace dropped: 0"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/report.err" "$TMP/trace-cmd.log"

# 4-8: the comparison.
python3 "$HERE/sched_compare.py" --every-pair "$TMP/sched.ftrace" \
	"$TMP/sched.dump" >"$TMP/sched.res" 2>&1
check "drm_bridge vs trace-cmd" <"$TMP/sched.res"
[ "$N" -eq 8 ] || { sed 's/^/# /' "$TMP/sched.res"; ok 1 "the comparison ran"; }

rmmod grtrace_vgpu grtrace_drm_bridge grtrace
[ $FAILED -eq 0 ] || cp "$TMP"/sched.* "${GRTRACE_OUT:-/tmp}/" 2>/dev/null
exit $FAILED
