# SPDX-License-Identifier: GPL-2.0
#
# tap_lib.sh - what the shell tests share (those of the test VM, and
# stable_tp_build.sh and new_adapter_build.sh on the host): where things
# are, a scratch directory, and TAP output.  Source it after setting HERE;
# a test may override KO, TOOL or D after sourcing.
# shellcheck shell=bash disable=SC2034

TOP=$(cd -- "$HERE/../../../.." && pwd)
KO=${GRTRACE_KO:-$TOP/drivers/gpu/grtrace/grtrace.ko}
KODIR=$(dirname -- "$KO")
# ko NAME: the .ko of module NAME: the core's directory holds grtrace.ko,
# its adapters/, modules/ and tests/ the others.
ko() {
	local d
	for d in "" adapters/ modules/ tests/; do
		[ -e "$KODIR/$d$1.ko" ] && { echo "$KODIR/$d$1.ko"; return 0; }
	done
	echo "$KODIR/$1.ko"
}
TOOL=${GRTRACE_TOOL:-$TOP/tools/grtrace/grtrace}
D=/sys/kernel/debug/grtrace
TMP=$(mktemp -d)
N=0 FAILED=0
# SLOW: how many times longer the tests' time windows are on this kernel.
# The debug kernel (KASAN, lockdep, kmemleak) runs this code several times
# slower under TCG: windows planned in seconds for the stock kernel would
# close before the work in them is done.  GRTRACE_SLOW overrides.
case $(uname -r) in
*debug*) SLOW=${GRTRACE_SLOW:-4} ;;
*) SLOW=${GRTRACE_SLOW:-1} ;;
esac

# wait_for SECONDS CMD...: until CMD succeeds, tried every 0.1 s for
# SECONDS (times SLOW); its status.
wait_for() {
	local n=$((10 * $1 * SLOW))

	shift
	for _ in $(seq "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# info KEY: the value of KEY in the flight recorder's info file.
info() { sed -n "s/^$1=//p" "$D/recorder/info" 2>/dev/null; }
# hung_of RING: the job the virtual GPU's log says last timed out on RING.
hung_of() { dmesg | sed -n "s/.*vgpu0-$1: job \([0-9]*:[0-9]*\) timed out.*/\1/p" | tail -1; }

# ok STATUS NAME: one TAP result; a non-zero STATUS fails the test.
ok() {
	N=$((N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $N - $2"
	else
		echo "not ok $N - $2"
		FAILED=1
	fi
}

# check NAME CMD [ARGS...]: run a comparison and turn its "PASS detail" and
# "FAIL detail" lines into results, its "# ..." lines into comments.  A
# comparison that prints anything else (a traceback), exits non-zero with
# no FAIL, or prints no verdict at all is a failure too: its verdicts
# would otherwise be lost.
check() {
	local name=$1 out rc verdict rest n=0 fails=0 odd=0

	shift
	out=$(mktemp)
	"$@" >"$out" 2>&1
	rc=$?
	while IFS= read -r verdict; do
		rest=${verdict#* }
		case $verdict in
		PASS\ *) ok 0 "$name: $rest"; n=$((n + 1)) ;;
		FAIL\ *) ok 1 "$name: $rest"; n=$((n + 1)); fails=$((fails + 1)) ;;
		\#*) echo "$verdict" ;;
		'') ;;
		*) echo "# $verdict"; odd=$((odd + 1)) ;;
		esac
	done <"$out"
	rm -f "$out"
	[ $odd -eq 0 ] || ok 1 "$name: the comparison printed $odd unexpected lines (above)"
	[ $n -gt 0 ] || ok 1 "$name: the comparison gave no verdict"
	[ $rc -eq 0 ] || [ $fails -gt 0 ] || [ $odd -gt 0 ] ||
		ok 1 "$name: the comparison exited $rc without a FAIL"
}

# stat_of KEY: a value of grtrace's stats file.
stat_of() { sed -n "s/^$1=//p" "$D/stats"; }

# record_start FILE [ARGS...]: "grtrace record -o FILE ARGS" in the
# background ($REC), once tracing has started; its stderr goes to FILE.err.
# record_join FILE [ARGS...]: a record of a session that may run already,
# in the background (its pid in REC); returns once its readers are open
# (it says "recording ..."), so that what comes next is in its window.
record_join() {
	"$TOOL" record -o "$1" "${@:2}" 2>"$1.err" &
	REC=$!
	for _ in $(seq $((100 * SLOW))); do
		grep -q "^grtrace: recording " "$1.err" && return 0
		kill -0 "$REC" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/# /' "$1.err"
	return 1
}

record_start() {
	"$TOOL" record -o "$1" "${@:2}" 2>"$1.err" &
	REC=$!
	for _ in $(seq 100); do
		grep -q started "$D/control" && return 0
		kill -0 "$REC" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/# /' "$1.err"
	return 1
}

# unload_all: remove the virtual GPU, the drm_sched bridge, the optional
# modules, any other grtrace module loaded, and grtrace.
unload_all() {
	local m

	for m in grtrace_sampling grtrace_filter grtrace_perf_mon grtrace_aggregator grtrace_vgpu grtrace_drm_bridge; do
		grep -q "^$m " /proc/modules && rmmod "$m"
	done
	# Whatever else of grtrace an earlier suite left behind (a vendor
	# adapter, a test module), so that it cannot fail this one's load.
	for m in $(awk '$1 ~ /^grtrace_/ { print $1 }' /proc/modules); do
		rmmod "$m"
	done
	grep -q "^grtrace " /proc/modules && rmmod grtrace
	return 0
}

# module_suite_end: the last result of a suite of the optional modules
# (no kernel report since it began), then everything unloaded, gpu-sched
# too (the next suites load it where they need it; vendor_test.sh wants
# it not loaded), and exit with the suite's status.
module_suite_end() {
	! new_dmesg | grep -E 'BUG|WARNING|Oops|RCU'
	ok $? "kernel log: no BUG, WARNING, Oops or RCU report"
	unload_all
	if grep -q "^gpu_sched " /proc/modules; then rmmod gpu_sched; fi
	rm -rf "$TMP"
	exit $FAILED
}

# exact: grtrace's counters account for every event: emitted = written +
# dropped.
exact() { [ "$(stat_of emitted)" = $(($(stat_of written) + $(stat_of dropped_total))) ]; }

# vgpu_submit TEXT: one write(2) of TEXT (with \n escapes) to the virtual
# GPU's submit file (bash's printf would write line by line); vgpu_idle:
# wait until every job it was given has finished.
vgpu_submit() {
	printf '%b' "$1" > "$TMP/vgpu_submit" &&
		dd if="$TMP/vgpu_submit" of=/sys/kernel/debug/grtrace_vgpu/submit bs=64k status=none
}
vgpu_idle() { [ "$(cat /sys/kernel/debug/grtrace_vgpu/wait)" = idle ]; }

# traffic_start: jobs on gfx and copy from a background loop, until
# traffic_stop, which returns the loop's status.
traffic_start() {
	touch "$TMP/traffic"
	(while [ -e "$TMP/traffic" ]; do
		vgpu_submit "gfx 0 20 50\ncopy 1 20 20\n" && vgpu_idle || exit 1
	done) &
	TRAFFIC=$!
}
traffic_stop() { rm -f "$TMP/traffic"; wait "$TRAFFIC"; }

# new_dmesg: the kernel log since the test sourced this file.
dmesg_mark=$(dmesg 2>/dev/null | wc -l)
new_dmesg() { dmesg | tail -n +"$((dmesg_mark + 1))"; }

# load_stack VGPU_ARGS...: from nothing, gpu-sched, grtrace (emit on), the
# drm_sched bridge and the virtual GPU; bails out if one does not load.
load_stack() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	unload_all
	if ! modprobe gpu-sched || ! insmod "$KO" emit_enable=1 ||
		! insmod "$(ko grtrace_drm_bridge)" ||
		! insmod "$(ko grtrace_vgpu)" "$@"; then
		echo "Bail out! cannot load gpu-sched, grtrace, grtrace_drm_bridge or grtrace_vgpu"
		exit 1
	fi
}

# sched_events: name the gpu_scheduler events of the running kernel in
# SCHED_QUEUE, SCHED_RUN, SCHED_DONE and SCHED_DEP (the dependency event):
# 6.1's drm_sched_job, drm_run_job, drm_sched_process_job and
# drm_sched_job_wait_dep, or the stable set of 6.17+ (drm_sched_job_queue,
# _run, _done, _add_dep).  Both fire once per dependency handed to the
# scheduler, signalled or not.  Needs gpu-sched loaded and tracefs mounted.
sched_events() {
	local t=/sys/kernel/tracing/events/gpu_scheduler

	if [ -d "$t/drm_sched_job_queue" ]; then
		SCHED_QUEUE=drm_sched_job_queue SCHED_RUN=drm_sched_job_run
		SCHED_DONE=drm_sched_job_done SCHED_DEP=drm_sched_job_add_dep
	else
		SCHED_QUEUE=drm_sched_job SCHED_RUN=drm_run_job
		SCHED_DONE=drm_sched_process_job SCHED_DEP=drm_sched_job_wait_dep
	fi
}
