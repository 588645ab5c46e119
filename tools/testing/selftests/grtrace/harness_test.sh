#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# harness_test.sh - the suite's own plumbing must not lose a verdict.  Each
# way a verdict can get lost is injected into a made-up sub-suite log or
# comparison, and tap_merge.py (what run_tests.sh judges every sub-suite
# with) or check (tap_lib.sh, what the shell tests run comparisons with)
# must turn it into a failure; a clean log must stay clean.  And the
# verdict vmtest.sh leaves on the guest, which run_tests.sh reads to tell
# a guest that ran clean: "vmtest.sh -V" on made-up output directories,
# and with "--vm KERNEL" (run_tests.sh gives it) on real runs of vmtest.sh
# on KERNEL: a command that fails, a kernel that prints a call trace, a
# guest that outlives its timeout; a command that fails and a call trace
# in a packed guest (no 9p).  TAP output; runs on the host.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
MERGE=$HERE/tap_merge.py
VMTEST=$HERE/vmtest.sh
VM_KVER=
if [ "${1:-}" = --vm ]; then
	VM_KVER=${2:?--vm takes a kernel version}
fi

# merged NAME STATUS WANT_FAILS: tap_merge.py on $TMP/log with STATUS must
# print exactly WANT_FAILS failures, and exit non-zero if there are any.
merged() {
	local out fails rc

	out=$(python3 "$MERGE" "$TMP/log" "p: " "$2")
	rc=$?
	fails=$(grep -c '^not ok - ' <<<"$out")
	if [ "$3" -eq 0 ]; then
		[ "$fails" -eq 0 ] && [ $rc -eq 0 ]
	else
		[ "$fails" -eq "$3" ] && [ $rc -eq 1 ]
	fi
	ok $? "$1 (failures $fails, want $3)"
	[ "$fails" -eq "$3" ] || sed 's/^/#   /' <<<"$out"
}

# checked NAME WANT_FAILS CMD...: check() on CMD must give WANT_FAILS
# failures among its results.
checked() {
	local name=$1 want=$2 out fails

	shift 2
	out=$(N=0 FAILED=0; check "inner" "$@")
	fails=$(grep -c '^not ok ' <<<"$out")
	[ "$fails" -eq "$want" ]
	ok $? "$name (failures $fails, want $want)"
	[ "$fails" -eq "$want" ] || sed 's/^/#   /' <<<"$out"
}

# verdict NAME OUTDIR WANT_RC WANT: vmtest.sh -V on OUTDIR must exit
# WANT_RC and print a line matching the pattern WANT.
verdict() {
	local out rc

	out=$("$VMTEST" -V "$2")
	rc=$?
	# shellcheck disable=SC2053 # WANT is a pattern
	[ $rc -eq "$3" ] && [[ $out == $4 ]]
	ok $? "$1 (exit $rc, '$out')"
}

# vm_run NAME WANT_RC WANT [VMTEST_ARGS...]: a real vmtest.sh run must exit
# WANT_RC and leave a verdict matching WANT, which -V must read back.
vm_run() {
	local name=$1 want_rc=$2 want=$3 d=$TMP/vm$N rc

	shift 3
	"$VMTEST" -k "$VM_KVER" -o "$d" "$@" >"$d.out" 2>"$d.err"
	rc=$?
	[ $rc -eq "$want_rc" ] || sed 's/^/#   /' "$d.err"
	ok $((rc != want_rc)) "vmtest: $name: exit $rc, want $want_rc"
	verdict "vmtest: $name: its verdict" "$d" \
		"$([[ $want == clean ]] && echo 0 || echo 1)" "$want"
}

echo "TAP version 13"
if [ -n "$VM_KVER" ]; then
	echo "1..34"
else
	echo "1..21"
	echo "# vmtest.sh's verdicts on real runs need --vm KERNEL (run_tests.sh gives it)"
fi

# 1-9: tap_merge.py on one sub-suite.
printf 'TAP version 13\n1..3\nok 1 - a\nok 2 - b # SKIP no device\nok 3 - c\n' >"$TMP/log"
merged "a clean sub-suite passes" 0 0
printf 'TAP version 13\n1..102\n' >"$TMP/log"
for i in $(seq 100); do echo "ok $i - t$i"; done >>"$TMP/log"
merged "100 results of a plan of 102 fail" 0 1
printf 'TAP version 13\nok 1 - a\n' >"$TMP/log"
merged "results without a plan fail" 0 1
printf 'TAP version 13\n1..2\nok 1 - a\nnot ok 2 - b\n' >"$TMP/log"
merged "a failing result fails, and explains exit 1" 1 1
printf 'TAP version 13\n1..1\nok 1 - a\n' >"$TMP/log"
merged "exit 1 with every result ok fails" 1 1
printf 'TAP version 13\n1..1\nok 1 - a\nTraceback (most recent call last):\n  File "x.py"\nKeyError: 1\n' >"$TMP/log"
merged "a traceback fails" 0 1
printf 'TAP version 13\n1..2\nok 1 - a\nBail out! no module\n' >"$TMP/log"
merged "a bail-out fails (and the result it cut short)" 1 2
printf 'make: Entering directory\nmake: *** [check] Error 2\n' >"$TMP/log"
merged "a log with no TAP at all fails" 2 1

printf '%s\n' 'TAP version 13' '1..2' '# before a' 'not ok 1 - a' \
	'#   why a failed' 'ok 2 - b' '# not about a' >"$TMP/log"
out=$(python3 "$MERGE" "$TMP/log" "p: " 1)
want=$(printf '%s\n' 'not ok - p: a' '#   before a' '#   why a failed' 'ok - p: b')
ok "$([ "$out" = "$want" ]; echo $?)" \
	"a failure's diagnostics follow it, and no other comment does"
[ "$out" = "$want" ] || sed 's/^/#   /' <<<"$out"

# 10-12: the guest's log, sub-suites between markers.
printf '%s\n' '# suites: a b' '# suite a' 'TAP version 13' '1..1' 'ok 1 - x' \
	'# suite a exit 0' '# suite b' 'TAP version 13' '1..1' 'ok 1 - y' \
	'# suite b exit 0' >"$TMP/log"
merged "guest log: two clean sub-suites pass" 0 0
printf '%s\n' '# suites: a b' '# suite a' 'TAP version 13' '1..2' 'ok 1 - x' >"$TMP/log"
merged "guest log: a sub-suite cut short and one never started fail" 0 3
printf '%s\n' '# suites: a' '# suite a' 'TAP version 13' '1..1' 'ok 1 - x' \
	'# suite a exit 3' >"$TMP/log"
merged "guest log: a sub-suite's unexplained exit status fails" 0 1

# 13-17: check() around a comparison.
checked "check: PASS and FAIL lines are results" 1 \
	printf 'PASS one\nFAIL two\n# a comment\n'
checked "check: a traceback among PASS lines fails" 1 \
	python3 -c 'print("PASS one", flush=True); raise KeyError(1)'
checked "check: exit 2 without a FAIL fails" 1 \
	sh -c 'echo "PASS one"; exit 2'
checked "check: no verdict at all fails" 1 true
checked "check: a clean comparison passes" 0 \
	printf 'PASS one\nPASS two\n'

# 18-21: the verdict file, as run_tests.sh's guest_clean() reads it.
mkdir -p "$TMP/clean/.vmtest" "$TMP/warn/.vmtest" "$TMP/empty/.vmtest" "$TMP/none"
echo clean >"$TMP/clean/.vmtest/verdict"
echo "FAIL: kernel WARNING: WARNING: CPU: 0 PID: 1 at x.c:1" >"$TMP/warn/.vmtest/verdict"
: >"$TMP/empty/.vmtest/verdict"
verdict "vmtest -V: a clean verdict is clean" "$TMP/clean" 0 clean
verdict "vmtest -V: a FAIL verdict is not" "$TMP/warn" 1 "FAIL: kernel WARNING*"
verdict "vmtest -V: an empty verdict is not clean" "$TMP/empty" 1 "FAIL: no verdict*"
verdict "vmtest -V: no verdict at all is not clean" "$TMP/none" 1 "FAIL: no verdict*"

# 22-34: real runs.  A failing command is no problem of the guest's; a
# call trace (sysrq's backtrace of every CPU) and a timeout are.
if [ -n "$VM_KVER" ]; then
	vm_run "a command that succeeds" 0 clean -- true
	vm_run "a command that fails" 3 clean -- sh -c 'exit 3'
	vm_run "a call trace in the kernel log" 1 "FAIL: call trace*" \
		-- sh -c 'echo l >/proc/sysrq-trigger; sleep 1'
	vm_run "a guest past its timeout" 124 "FAIL: *timeout*" \
		-t 30 -- sleep 600
	# A packed guest (-P): its exit status comes on the console, its
	# stdout over a serial port, its dmesg over another.
	vm_run "a packed guest, a command that fails" 3 clean \
		-P "$HERE/tap_lib.sh" -- sh -c 'echo packed-out; exit 3'
	grep -qx packed-out "$TMP/vm$((N - 2)).out"
	ok $? "vmtest: a packed guest: the command's stdout comes back"
	vm_run "a packed guest, a call trace in the kernel log" 1 "FAIL: call trace*" \
		-P "$HERE/tap_lib.sh" -- sh -c 'echo l >/proc/sysrq-trigger; sleep 1'
fi

rm -rf "$TMP"
exit $FAILED
