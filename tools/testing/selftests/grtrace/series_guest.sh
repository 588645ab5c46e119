#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series_guest.sh GIT VGPU_KO - the guest half of series_test.sh: the RFC
# series applied in the kernel tree GIT and built there, on the kernel it
# was built for.  The series' gpu-sched.ko is loaded in place of Debian's,
# then its grtrace.ko and grtrace_drm_bridge.ko; the virtual GPU (a test
# module out of the series, VGPU_KO) runs jobs on three rings with
# dependencies on it, and one job that hangs.  TAP output, five results:
#  1 the series' modules loaded in place of the distribution's, the
#    bridge on the exported events (typed: no lookup by name)
#  2 the series' kselftests (grtrace_test, grtrace_v2_test,
#    grtrace_knobs_test) pass on the series' grtrace.ko
#  3-5 the same drm_sched jobs and events in grtrace's stream as in
#    ftrace's (sched_compare.py: its verdicts, summed in three)
set -u
GIT=${1:?usage: series_guest.sh GIT VGPU_KO}
VGPU_KO=${2:?usage: series_guest.sh GIT VGPU_KO}
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
export GRTRACE_KO=$GIT/drivers/gpu/grtrace/grtrace.ko
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
SCHED_KO=$GIT/drivers/gpu/drm/scheduler/gpu-sched.ko
BRIDGE_KO=$GIT/drivers/gpu/grtrace/adapters/grtrace_drm_bridge.ko
V=/sys/kernel/debug/grtrace_vgpu
FT=/sys/kernel/tracing/instances/series

echo "TAP version 13"
echo "1..5"

# 1: the series' gpu-sched in place of Debian's (its dependencies from the
# distribution), then grtrace and the bridge.
rc=0
for m in $(modinfo -F depends "$SCHED_KO" | tr , ' '); do
	modprobe "$m" || rc=1
done
insmod "$SCHED_KO" || rc=1
[ "$(cat /sys/module/gpu_sched/srcversion 2>/dev/null)" = \
  "$(modinfo -F srcversion "$SCHED_KO")" ] || { echo "# gpu_sched is not the series'"; rc=1; }
grep -q ' __tracepoint_drm_sched_job_queue$' /proc/kallsyms ||
	grep -q '__tracepoint_drm_sched_job_queue' /proc/kallsyms || rc=1
insmod "$GRTRACE_KO" && insmod "$BRIDGE_KO" || rc=1
echo "# $(grep -c . "$D/adapters") lines in adapters:"
sed 's/^/#   /' "$D/adapters"
# The bridge's four events, each attached, named by symbol.
[ "$(grep -c '^drm_bridge .* attached ' "$D/adapters")" -eq 4 ] &&
	grep -q 'typed' "$D/adapters" || rc=1
ok $rc "the series' gpu-sched.ko, grtrace.ko and grtrace_drm_bridge.ko in place of Debian's; the bridge typed on the exported events"

# 2: the series' kselftests, on its grtrace.ko (each loads its own).
rmmod grtrace_drm_bridge grtrace 2>/dev/null
rc=0
cd "$GIT/tools/testing/selftests/grtrace" || rc=1
for t in grtrace_test grtrace_v2_test grtrace_knobs_test; do
	./"$t" >"$TMP/$t.log" 2>&1 || { rc=1; tail -n 15 "$TMP/$t.log" | sed 's/^/# /'; }
	grep -E '^# (PASSED|Totals)' "$TMP/$t.log" | sed "s/^# /# $t: /"
done
cd "$HERE" || rc=1
ok $rc "the series' kselftests pass on its grtrace.ko"

# 3-5: a workload with dependencies, grtrace against ftrace.
insmod "$GRTRACE_KO" && insmod "$BRIDGE_KO" && insmod "$VGPU_KO" ||
	{ echo "Bail out! cannot load grtrace, the bridge or the virtual GPU"; exit 1; }
mkdir -p "$FT" && echo 0 >"$FT/tracing_on" && echo mono >"$FT/trace_clock" &&
	echo 16384 >"$FT/buffer_size_kb" && : >"$FT/trace" &&
	echo 1 >"$FT/events/gpu_scheduler/enable" && echo 1 >"$FT/tracing_on" &&
	record_start "$TMP/s.dat"
rc=$?
# As adapters_test.sh: a job that hangs last, until the scheduler's
# timeout (its ERROR is one of sched_compare.py's checks).
printf '%s\n' 'gfx 0 200 20' 'compute 1 150 10 dep=gfx:0' \
	'copy 2 100 5 dep=compute:1' 'gfx 3 50 5 dep=copy:2' >"$V/submit" &&
	cat "$V/wait" >/dev/null &&
	echo 'gfx 4 1 10 hang' >"$V/submit" && cat "$V/wait" >/dev/null || rc=1
sleep 0.2
kill -INT "$REC" && wait "$REC" || rc=1
echo 0 >"$FT/tracing_on"
echo 0 >"$FT/events/enable"
cat "$FT/trace" >"$TMP/s.ftrace"
"$TOOL" dump -i "$TMP/s.dat" >"$TMP/s.dump" || rc=1
python3 "$HERE/sched_compare.py" "$TMP/s.ftrace" "$TMP/s.dump" >"$TMP/cmp.txt" 2>&1
crc=$?
sed 's/^/# /' "$TMP/cmp.txt"
[ $rc = 0 ] && grep -q 'dropped: 0' "$TMP/s.dat.err"
ok $? "501 jobs, one of them hung, recorded by grtrace and ftrace at once, nothing dropped"
pass=$(grep -c '^PASS ' "$TMP/cmp.txt") fail=$(grep -c '^FAIL ' "$TMP/cmp.txt")
[ "$pass" -ge 6 ] && [ "$fail" = 0 ] && [ $crc = 0 ]
ok $? "sched_compare.py: $pass checks pass, $fail fail (every job and event 1:1 by context:seqno, ftrace's clock)"
rmmod grtrace_vgpu grtrace_drm_bridge grtrace gpu_sched
ok $? "the virtual GPU, the bridge, grtrace and the series' gpu-sched unload"
exit $FAILED
