#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# faults_test.sh - allocations that fail where grtrace allocates: loading
# the core, the first start (its relay buffers), a resize, an adapter's
# load and attach, arming the flight recorder, each optional module's
# load.  failslab and fail_page_alloc fail the allocations of the task
# doing the operation alone (task-filter, /proc/self/make-it-fail), with
# probability P, sleeping allocations included.  Each operation is tried
# ROUNDS times so: it either works or fails with ENOMEM, the error its
# caller sees (another errno, or a call fault_call could not make, is a
# wrong result, not an injected failure), and then leaves nothing behind
# (the module not loaded, tracing stopped, the recorder off, the old
# buffer size), and the same operation without injection works right
# after.  KASAN, lockdep and
# kmemleak (checkers_test.sh, after this suite) judge the kernel's side.
# Needs CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC with their debugfs
# knobs: the debug kernels have them (debug.config); Debian's kernels do
# not, and there every case is skipped, saying so.
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
FS=/sys/kernel/debug/failslab
FP=/sys/kernel/debug/fail_page_alloc
P=${GRTRACE_FAULT_P:-20}
ROUNDS=${GRTRACE_FAULT_ROUNDS:-12}
CASES=10

echo "TAP version 13"
echo "1..$CASES"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
if [ ! -d "$FS" ] || [ ! -d "$FP" ]; then
	for i in $(seq $CASES); do
		echo "ok $i - fault injection case $i # SKIP $(uname -r) has no failslab or fail_page_alloc (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS): the debug kernels run this suite"
	done
	rm -rf "$TMP"
	exit 0
fi

# The page allocator reports every failure it is made to return
# (warn_alloc(): a stack dump and the memory's state, at KERN_WARNING):
# kept off the serial console, which under TCG takes seconds for each,
# while KASAN's and lockdep's reports (KERN_ERR) still reach it.  The
# suite's end judges the kernel log itself.
PRINTK=$(cut -f1 /proc/sys/kernel/printk)
echo 4 >/proc/sys/kernel/printk

# Fail allocations of tasks that ask for it, sleeping ones too, quietly.
for d in $FS $FP; do
	echo "$P" >"$d/probability"
	echo 1 >"$d/interval"
	echo -1 >"$d/times"
	echo 0 >"$d/space"
	echo 0 >"$d/verbose"
	echo Y >"$d/task-filter"
	echo N >"$d/ignore-gfp-wait"
done
echo N >"$FP/ignore-gfp-highmem"
echo 0 >"$FP/min-order"

# faulty insmod KO [PARAMS] | faulty write FILE TEXT: that system call
# with its allocations failing at P %, and nothing else of the task's
# (fault_call.c: an allocation failed in the 9p root's transport, as an
# exec under make-it-fail does, breaks the root for every task after).
# Returns 0 if it worked, 1 if it failed with ENOMEM, the one error a
# failed allocation may give its caller, and 2 for anything else: another
# errno, or fault_call that could not make the call (its exit 2), which
# is no injected failure and must not count as one.
FAULT_CALL=$HERE/fault_call
[ -x "$FAULT_CALL" ] || { cc -O2 -static -o "$TMP/fault_call" "$HERE/fault_call.c" &&
	FAULT_CALL=$TMP/fault_call; }
faulty() {
	local out rc

	out=$("$FAULT_CALL" "$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" >>"$TMP/faulty.err"
	case $rc:$out in
	0:*) return 0 ;;
	"1:$1: Cannot allocate memory") return 1 ;;
	esac
	echo "# $1 ${2##*/}: not ENOMEM (exit $rc): $out"
	return 2
}
loaded() { grep -q "^$1 " /proc/modules; }

# load_case NAME KO [ARGS]: insmod KO with faults; loaded or cleanly
# absent; rmmod; without faults it loads.
load_case() {
	local name=$1 ko=$2 ok_n=0 fail_n=0 bad=0 r

	shift 2
	for r in $(seq $ROUNDS); do
		if faulty insmod "$ko" "$*"; then
			ok_n=$((ok_n + 1))
			loaded "$name" && rmmod "$name" || bad=$((bad + 1))
		elif [ $? = 1 ]; then
			fail_n=$((fail_n + 1))
			loaded "$name" && { bad=$((bad + 1)); rmmod "$name"; }
		else
			bad=$((bad + 1))
			loaded "$name" && rmmod "$name"
		fi
		insmod "$ko" "$@" && rmmod "$name" || bad=$((bad + 1))
	done
	echo "# $name: $ok_n loads, $fail_n failed with an error; $bad left something behind or did not load again"
	[ $bad -eq 0 ] && [ $fail_n -gt 0 ]
}

# 1: the core's load.
modprobe gpu-sched
unload_all
load_case grtrace "$KO"
ok $? "load of grtrace.ko: loaded or refused, nothing left; loads again right after"

insmod "$KO" emit_enable=1 || { echo "Bail out! insmod $KO"; exit 1; }

# 2: the first start allocates the buffers: a fresh module each round.
bad=0 fails=0
for r in $(seq $ROUNDS); do
	if faulty write "$D/control" start; then
		[ "$(cat "$D/control")" = started ] || bad=$((bad + 1))
	elif [ $? = 1 ]; then
		fails=$((fails + 1))
		[ "$(cat "$D/control")" = stopped ] || bad=$((bad + 1))
	else
		bad=$((bad + 1))
	fi
	echo stop >"$D/control"
	echo start >"$D/control" && echo "submit 1 0 0 $r" >"$D/emit" &&
		echo stop >"$D/control" && exact || bad=$((bad + 1))
	rmmod grtrace && insmod "$KO" emit_enable=1 || bad=$((bad + 1))
done
echo "# start: $fails of $ROUNDS failed with an error, $bad wrong"
[ $bad -eq 0 ] && [ $fails -gt 0 ]
ok $? "first start: started, or refused and stopped; starts and counts exactly right after"

# 3: a resize replaces the buffers.
echo start >"$D/control" && echo stop >"$D/control"
bad=0 fails=0
for r in $(seq $ROUNDS); do
	size=$(( (r % 2) ? 1048576 : 524288 ))
	before=$(cat "$D/buffer_size")
	if faulty write "$D/buffer_size" "$size"; then
		[ "$(cat "$D/buffer_size")" = $size ] || bad=$((bad + 1))
	elif [ $? = 1 ]; then
		fails=$((fails + 1))
		[ "$(cat "$D/buffer_size")" = "$before" ] || bad=$((bad + 1))
	else
		bad=$((bad + 1))
	fi
	echo $size >"$D/buffer_size" && echo start >"$D/control" &&
		echo "submit 2 0 0 $r" >"$D/emit" && echo stop >"$D/control" && exact ||
		bad=$((bad + 1))
done
echo "# resize: $fails of $ROUNDS failed with an error, $bad wrong"
[ $bad -eq 0 ] && [ $fails -gt 0 ]
ok $? "resize: new size, or refused with the old one; resizes and traces right after"

# 4: an adapter's load attaches its probes (the driver loaded first).
load_case grtrace_drm_bridge "$(ko grtrace_drm_bridge)"
ok $? "load of the drm_sched bridge (attach): loaded or refused, nothing left; loads again"

# 5: arming the flight recorder.
bad=0 fails=0
for r in $(seq $ROUNDS); do
	if faulty write "$D/recorder/control" arm; then
		[ "$(cat "$D/recorder/control")" = armed ] || bad=$((bad + 1))
	elif [ $? = 1 ]; then
		fails=$((fails + 1))
		[ "$(cat "$D/recorder/control")" = off ] &&
			[ "$(cat "$D/control")" = stopped ] || bad=$((bad + 1))
	else
		bad=$((bad + 1))
	fi
	echo disarm >"$D/recorder/control"
	echo arm >"$D/recorder/control" && echo "submit 3 0 0 $r" >"$D/emit" &&
		echo trigger >"$D/recorder/control" &&
		[ "$(cat "$D/recorder/control")" = triggered ] && cat "$D"/recorder/snapshot* >/dev/null ||
		bad=$((bad + 1))
	echo disarm >"$D/recorder/control"
done
echo "# recorder arm: $fails of $ROUNDS failed with an error, $bad wrong"
[ $bad -eq 0 ] && [ $fails -gt 0 ]
ok $? "recorder arm: armed, or refused and off; arms, triggers and reads right after"

# 6-9: the optional modules.
for m in grtrace_aggregator grtrace_sampling grtrace_filter grtrace_perf_mon; do
	load_case "$m" "$(ko "$m")"
	ok $? "load of $m: loaded or refused, nothing left; loads again"
done

for d in $FS $FP; do echo 0 >"$d/probability"; done
echo "$PRINTK" >/proc/sys/kernel/printk
sed 's/^/# failed: /' "$TMP/faulty.err" | sort | uniq -c | sort -rn | head -n 8
# 10: the kernel's verdict.  The injected page allocation failures'
# reports are expected, and nothing else: KASAN, lockdep, UBSAN, debug
# objects and list debugging all say BUG, WARNING or their own name.
# kmemleak's own bookkeeping fails too, in the task that allocates: when
# a scan area cannot be had, it says so and scans the whole object, which
# is no report.  Then the log is cleared, as those reports' stack dumps
# would read as a problem to vmtest.sh's scan of it.
new_dmesg | grep -v 'kmemleak: Cannot allocate a scan area, scanning the full object' >"$TMP/klog"
echo "# kernel log: $(grep -cE 'page allocation failure|vmalloc error' "$TMP/klog") injected allocation failures reported"
! grep -E 'BUG|WARNING|Oops|RCU|KASAN|UBSAN|ODEBUG|corruption|circular locking|lock state|kmemleak' "$TMP/klog"
ok $? "kernel log: no BUG, WARNING, Oops, RCU, KASAN, UBSAN, debug objects or lockdep report, only the injected failures'"
dmesg -C
unload_all
if grep -q "^gpu_sched " /proc/modules; then rmmod gpu_sched; fi
rm -rf "$TMP"
exit $FAILED
