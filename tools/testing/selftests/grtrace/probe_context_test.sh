#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# probe_context_test.sh - the drm_sched bridge does no work that may sleep
# where it may not: a tracepoint probe runs with preemption disabled (on
# 6.1's PREEMPT_RT kernel too; 7.3's calls its probes preemptible), and on
# PREEMPT_RT a fence's lock is a sleeping lock, so there the bridge adds
# its fence callbacks for the jobs' dependencies from an irq_work (a
# thread), not from its probe; and a fence's enable_signaling, which
# adding a callback may call, must not run in interrupt context
# (dma-fence.h), so elsewhere the probe adds them itself.  The function
# tracer, on a workload with dependencies, shows every call of
# dma_fence_add_callback(), its caller and its context:
#  - the bridge followed every dependency, and each one's SYNC_WAIT_EXIT
#    was written;
#  - none of its calls ran in interrupt context;
#  - on PREEMPT_RT, none ran from a probe or with preemption disabled
#    (where a contended fence lock would sleep: "scheduling while atomic").
# Debian's PREEMPT_RT kernels have no DEBUG_ATOMIC_SLEEP, which would say
# it at the first call: this test asks the function tracer instead; on a
# kernel without the function tracer (the debug kernels) it runs the same
# workload and asks DEBUG_ATOMIC_SLEEP.
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
T=/sys/kernel/tracing

echo "TAP version 13"
echo "1..4"
load_stack
mountpoint -q "$T" || mount -t tracefs none "$T"
RT=0
grep -q PREEMPT_RT /proc/version && RT=1
echo "# kernel $(uname -r), PREEMPT_RT: $RT"

# Without the function tracer (the debug kernels are built without it),
# a kernel with DEBUG_ATOMIC_SLEEP checks each sleeping lock's caller
# itself: the same workload, and its report, or none, in the kernel log.
if ! grep -qw function "$T/available_tracers" 2>/dev/null; then
	if ! zcat /proc/config.gz 2>/dev/null | grep -qx CONFIG_DEBUG_ATOMIC_SLEEP=y; then
		echo "Bail out! neither the function tracer nor DEBUG_ATOMIC_SLEEP on this kernel"
		exit 1
	fi
	echo "# no function tracer here: DEBUG_ATOMIC_SLEEP checks the callers"
	record_start "$TMP/r.dat" &&
		vgpu_submit "gfx 0 20 0\ncompute 1 20 0 dep=gfx:0\ncopy 2 20 0 dep=compute:1\n" &&
		vgpu_idle && kill -INT "$REC" && wait "$REC" &&
		"$TOOL" dump -i "$TMP/r.dat" >"$TMP/r.dump"
	ok $? "60 jobs with 40 dependencies recorded"
	enter=$(grep -c ' SYNC_WAIT_ENTER ' "$TMP/r.dump")
	exits=$(grep -c ' SYNC_WAIT_EXIT ' "$TMP/r.dump")
	echo "# SYNC_WAIT_ENTER $enter, SYNC_WAIT_EXIT $exits"
	[ "$enter" = 40 ] && [ "$exits" = 40 ]
	ok $? "40 waits entered and exited"
	bad=$(new_dmesg | grep -c 'BUG: sleeping function called from invalid context')
	[ "$bad" = 0 ]
	ok $? "DEBUG_ATOMIC_SLEEP (PREEMPT_RT: $RT): no sleeping function called from an invalid context ($bad reports)"
	module_suite_end
fi

# 1: 60 jobs, 40 of them waiting on a job of another ring.  Tracing may
# have been left off by a suite before.
echo 1 > "$T/tracing_on"
echo > "$T/trace"
echo dma_fence_add_callback > "$T/set_ftrace_filter" &&
	echo function > "$T/current_tracer" && record_start "$TMP/r.dat" &&
	vgpu_submit "gfx 0 20 0\ncompute 1 20 0 dep=gfx:0\ncopy 2 20 0 dep=compute:1\n" &&
	vgpu_idle && sleep 0.2 && echo 0 > "$T/tracing_on" &&
	kill -INT "$REC" && wait "$REC" && "$TOOL" dump -i "$TMP/r.dat" >"$TMP/r.dump"
rc=$?
grep -v '^#' "$T/trace" >"$TMP/calls"
echo nop > "$T/current_tracer"
echo > "$T/set_ftrace_filter"
echo 1 > "$T/tracing_on"
awk '{ print $NF }' "$TMP/calls" | sort | uniq -c | sed 's/^/# callers: /'
ok $rc "60 jobs with 40 dependencies recorded under the function tracer"

# 2: the bridge's calls: from its probe or its irq_work (sched_wait_arm()
# may be inlined into either).
bridge='<-(probe_wait|sched_wait_arm|sched_waits_arm)$'
armed=$(grep -Ec "$bridge" "$TMP/calls")
enter=$(grep -c ' SYNC_WAIT_ENTER ' "$TMP/r.dump")
exits=$(grep -c ' SYNC_WAIT_EXIT ' "$TMP/r.dump")
echo "# fence callbacks the bridge added: $armed, SYNC_WAIT_ENTER $enter, SYNC_WAIT_EXIT $exits"
[ "$armed" = 40 ] && [ "$enter" = 40 ] && [ "$exits" = 40 ]
ok $? "40 fence callbacks added by the bridge, 40 waits entered and exited"

# 3: the flags column: irqs-off, need-resched, hardirq/softirq/NMI,
# preempt depth, ...  enable_signaling, which dma_fence_add_callback() may
# call, must not run in interrupt context (dma-fence.h); on PREEMPT_RT the
# fence lock sleeps, so not with preemption disabled either.
irq=$(awk -v re="$bridge" '$NF ~ re && substr($3, 3, 1) != "."' "$TMP/calls" | wc -l)
deep=$(awk -v re="$bridge" '$NF ~ re && substr($3, 4, 1) != "." && substr($3, 4, 1) != "0"' "$TMP/calls" | wc -l)
echo "# of the bridge's $armed calls: $irq in interrupt context, $deep with preemption disabled"
if [ $RT = 1 ]; then
	[ "$irq" = 0 ] && [ "$deep" = 0 ] && [ "$armed" -gt 0 ] &&
		! grep -q '<-probe_wait$' "$TMP/calls"
	ok $? "PREEMPT_RT: none of the $armed calls in interrupt context or with preemption disabled, none from a probe"
else
	[ "$irq" = 0 ] && [ "$armed" -gt 0 ]
	ok $? "not PREEMPT_RT: none of the $armed calls in interrupt context, where enable_signaling may not run"
fi

module_suite_end
