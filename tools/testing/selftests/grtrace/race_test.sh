#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# race_test.sh [CYCLES] - two races held open.  First the drm_sched bridge
# unloaded while its fence callbacks run.  The bridge ends a dependency wait from the dependency's
# fence callback, which takes the wait off the bridge's list before it
# writes the event and frees the wait; its unload detaches the probes, then
# cancels the waits still listed.  A callback that begins between the two
# is not listed, and the unload must still wait for it.
#
# grtrace_race_test.ko (kprobes) holds the unload in that gap until a
# callback begins, and holds each callback DELAY_US, while the virtual GPU
# runs a job that another waits on; the bridge is unloaded and loaded again
# CYCLES times (default 12; GRTRACE_RACE_CYCLES too).  Held so, every cycle
# meets the race: a bridge that does not wait returns from its exit while
# the callback still runs, in every cycle (the bridge before commit
# e5ac282: 20 of 20), and the race module counts it (going_during).  The
# test fails unless going_during is 0 and a callback began in the gap in
# at least half the cycles: otherwise it tested nothing.
#
# Then a session stopped while a task's event is on its way (STOPS times,
# default 3): the event path decides an event's drops with preemption off
# and writes it with interrupts off; on a preemptible kernel its caller
# can be preempted between the two, and stop's grace period does not wait
# for a preempted task.  The race module preempts the next caller there
# (hold_ms), the session is stopped from the other CPU while it is held,
# and the caller goes on after stop has returned.  Nothing may be written
# after stop returns: the event counts as dropped (disabled), and the
# emitted events still balance.  The kernel is switched to full preemption
# for it where it is voluntary (PREEMPT_DYNAMIC; the RT kernel is always
# preemptible).  The event path before it looked at "enabled" again with
# interrupts off wrote the held event after stop in every cycle (3 of 3).
# A hold counts only if the caller stayed held until stop returned and
# the race module saw it not run meanwhile (a hold it escaped, or one
# that ended first, is tried again, up to 3 * STOPS holds in all).

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/tap_lib.sh"

CYCLES=${1:-${GRTRACE_RACE_CYCLES:-12}}
# A gfx job of EXEC_US and a compute job waiting for it: the bridge adds a
# fence callback when the compute job is looked at, at once, and the unload
# begins 100 to 500 ms later while it is pending.  Detaching the probes
# waits for grace periods (up to 700 ms on the stock kernel): the job is
# long for the callback to be still pending after that, and the virtual
# GPU's job timeout longer.  The gap ends when the callback begins.
EXEC_US=$((1500000 * SLOW))
GAP_US=$((2000000 * SLOW))
DELAY_US=200000
R=/sys/kernel/debug/grtrace_race_test
V=/sys/kernel/debug/grtrace_vgpu

echo "TAP version 13"
echo "1..6"
if [ ! -e "$(ko grtrace_race_test)" ]; then
	echo "Bail out! no grtrace_race_test.ko (it needs CONFIG_KPROBES)"
	exit 1
fi
load_stack timeout_ms=$((10000 * SLOW))
insmod "$(ko grtrace_race_test)" && echo start >"$D/control" &&
	echo $DELAY_US >"$R/delay_us" && echo $GAP_US >"$R/gap_us"
ok $? "stack loaded, tracing; unload held up to $GAP_US us for a callback, callbacks held $DELAY_US us"

# The callback runs from the gfx ring's timer, armed on the CPU that ran
# the job: keep the scheduler on CPU 0 and unload from CPU 1.  A timer due
# on the unloading CPU fires inside the gap, nested in the kretprobe that
# holds it, where the callback's kprobe is missed (kprobes do not nest):
# the callback neither is held nor ends the gap, and the cycle tests
# nothing.  The scheduler is a thread of its own on 6.1 (pinned here) and
# work on an unbound workqueue of its own since 6.8 (kept on CPU 0 by the
# unbound workqueues' mask, restored at the end; on 6.12 without it 2 to
# 8 cycles of 12 met the race).
for p in /proc/[0-9]*; do
	case $(cat "$p/comm" 2>/dev/null) in
	*-gfx) taskset -p -c 0 "${p#/proc/}" >/dev/null &&
		echo "# pinned to CPU 0: $(cat "$p/comm")" ;;
	esac
done
WQMASK=/sys/devices/virtual/workqueue/cpumask
wqmask=$(cat $WQMASK 2>/dev/null)
if [ -n "$wqmask" ] && echo 1 >$WQMASK; then
	echo "# unbound workqueues on CPU 0 (mask was $wqmask)"
fi
rc=0
for i in $(seq "$CYCLES"); do
	printf 'gfx 0 1 %d\ncompute 1 1 0 dep=gfx:0\n' $EXEC_US >"$V/submit" &
	sub=$!
	sleep "0.$((RANDOM % 5 + 1))"
	if ! taskset -c 1 rmmod grtrace_drm_bridge; then
		echo "# cycle $i: rmmod grtrace_drm_bridge failed"
		rc=1
	fi
	if ! insmod "$(ko grtrace_drm_bridge)"; then
		echo "# cycle $i: insmod grtrace_drm_bridge.ko failed"
		rc=1
		break
	fi
	wait $sub
	cat "$V/wait" >/dev/null || rc=1
done
ok $rc "$CYCLES unloads and loads of the bridge, each while a dependency callback is pending"

stats=$(cat "$R/stats")
echo "# $stats"
going=$(echo "$stats" | sed -n 's/.*going_during=\([0-9]*\).*/\1/p')
gap=$(echo "$stats" | sed -n 's/.*in_gap=\([0-9]*\).*/\1/p')
[ "${going:-1}" -eq 0 ] && [ "$((${gap:-0} * 2))" -ge "$CYCLES" ]
ok $? "unload waited for every callback (began in the gap: ${gap:-?} of $CYCLES cycles; still running after the exit: ${going:-?})"

[ -n "$wqmask" ] && echo "$wqmask" >$WQMASK
echo 0 >"$R/delay_us"
echo 0 >"$R/gap_us"

# 3, 4: stop against a preempted event.
STOPS=${GRTRACE_RACE_STOPS:-3}
HOLD_MS=$((1000 * SLOW))
PRE=/sys/kernel/debug/sched/preempt
pre_was=
if [ -w $PRE ]; then
	pre_was=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' $PRE)
	echo full >$PRE
fi
if grep -q '(full)' $PRE 2>/dev/null || uname -v | grep -q PREEMPT_RT; then
	preemptible=0
	echo "# preemption: $(cat $PRE 2>/dev/null || echo PREEMPT_RT)"
else
	preemptible=1
	echo "# cannot make this kernel fully preemptible ($PRE: $(cat $PRE 2>/dev/null || echo absent))"
fi
# holding: the race module's count of holds spinning; held: it is 1;
# escaped: the holds whose caller ran before the hold ended.
holding() { sed -n 's/.*holding=\([0-9]*\).*/\1/p' "$R/stats"; }
held() { [ "$(holding)" = 1 ]; }
escaped() { sed -n 's/.*escaped=\([0-9]*\).*/\1/p' "$R/stats"; }
# The kernel's guard against real-time starvation runs the held caller
# before the hold ends, if the hold lasts long enough (about 950 ms of
# each second): the fair server since 6.12, RT throttling before.  Off
# on CPU 1 for the holds, restored after; a hold escaped all the same is
# counted and tried again.
FAIR=/sys/kernel/debug/sched/fair_server/cpu1/runtime
RTRT=/proc/sys/kernel/sched_rt_runtime_us
fair_was= rtrt_was=
if [ -w $FAIR ]; then
	fair_was=$(cat $FAIR)
	echo 0 >$FAIR || fair_was=
fi
if [ -w $RTRT ]; then
	rtrt_was=$(cat $RTRT)
	echo -1 >$RTRT || rtrt_was=
fi
echo "# starvation guard off on CPU 1:${fair_was:+ fair server (runtime was $fair_was ns)}${rtrt_was:+ RT throttling (was $rtrt_was us)}"
# The script on CPU 0, the held caller on CPU 1, whose holder spins, at
# the real-time priority of PREEMPT_RT's RCU threads: these run on CPU 1
# when its 10 ms time slices end.
taskset -p -c 0 $$ >/dev/null
RR=/proc/sys/kernel/sched_rr_timeslice_ms
rr_was=$(cat $RR) && echo 10 >$RR
printf 'reset_stats\nmax_events_per_sec=100000000\n' >"$D/config"
met=0 late=0 counted=0 escapes=0 i=0
while [ "$met" -lt "$STOPS" ] && [ "$i" -lt $((STOPS * 3)) ]; do
	i=$((i + 1))
	echo start >"$D/control" || { echo "# stop $i: start failed"; break; }
	e=$(escaped)
	# Nothing else writes: these stand for the counts when stop returns
	# but for the held event.
	w=$(stat_of written) d=$(stat_of dropped_disabled)
	echo $HOLD_MS >"$R/hold_ms"
	taskset -c 1 sh -c "echo 'submit 91 0 0 $i' >$D/emit" &
	em=$!
	wait_for 5 held || { echo "# stop $i: the caller was not held"; wait $em; continue; }
	echo stop >"$D/control"
	h=$(holding)
	wait $em
	w2=$(stat_of written) d2=$(stat_of dropped_disabled)
	echo "# stop $i: held after stop: $h; written $w -> $w2, dropped_disabled $d -> $d2"
	if [ "$(escaped)" != "$e" ]; then
		echo "# stop $i: the caller ran before its hold ended: not a test, again"
		escapes=$((escapes + 1))
		continue
	fi
	# Held until stop returned, or else the event may have been
	# written before.
	[ "$h" = 1 ] || { echo "# stop $i: the hold ended before stop returned: again"; continue; }
	met=$((met + 1))
	[ "$w2" != "$w" ] && late=$((late + 1))
	[ "$d2" = $((d + 1)) ] && counted=$((counted + 1))
done
echo 0 >"$R/hold_ms"
printf 'max_events_per_sec=0\n' >"$D/config"
[ -n "$pre_was" ] && echo "$pre_was" >$PRE
[ -n "$rr_was" ] && echo "$rr_was" >$RR
[ -n "$fair_was" ] && echo "$fair_was" >$FAIR
[ -n "$rtrt_was" ] && echo "$rtrt_was" >$RTRT
[ "$preemptible" -eq 0 ] && [ "$met" -eq "$STOPS" ]
ok $? "stop returned while a task's event was held between its decision and its write ($met of $STOPS; $escapes holds escaped)"
[ "$met" -eq "$STOPS" ] && [ "$late" -eq 0 ] && [ "$counted" -eq "$STOPS" ] && exact
ok $? "nothing written after stop returned ($late late), the held event dropped as disabled ($counted of $STOPS), emitted == written + dropped"
rmmod grtrace_race_test
unload_all
# load_stack loaded gpu-sched: the suites after this one start without it.
if grep -q '^gpu_sched ' /proc/modules; then rmmod gpu_sched; fi
new_dmesg | grep -E 'BUG|Oops|WARNING|KASAN|general protection' >"$TMP/bad"
[ ! -s "$TMP/bad" ]
ok $? "kernel log: no BUG, Oops, WARN or KASAN report"
sed 's/^/# /' "$TMP/bad" | head -20
rm -rf "$TMP"
[ "$FAILED" -eq 0 ]
