#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkers_test.sh [--baseline] - run last in the guest: with every module
# the suite loaded unloaded again, what the debug kernel's own checkers
# say.  kmemleak is scanned for objects leaked since guest_tests.sh took
# its baseline (checkers_test.sh --baseline, before the first suite), and
# lockdep must still be on: it switches itself off after its first report
# or when it runs out of room, and would then have checked nothing since.
#
# KASAN, sleeping-in-atomic, UBSAN and debug-objects reports reach the
# kernel log, which vmtest.sh judges after the guest exits.  On a kernel
# without kmemleak or lockdep (Debian's own) those two results say so and
# are skipped: run_tests.sh --kernel debug runs them for real.

LEAKS=/sys/kernel/debug/kmemleak
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# kmemleak only reports objects older than 5 s and unreferenced on two
# scans in a row.
scan() {
	echo scan >"$LEAKS" && sleep 6 && echo scan >"$LEAKS"
}

if [ "${1:-}" = --baseline ]; then
	[ -e "$LEAKS" ] || exit 0
	# What the kernel leaked before the suite is not the suite's.
	scan && echo clear >"$LEAKS"
	exit
fi

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/tap_lib.sh"

# skip NAME WHY: a result this kernel cannot give.
skip() {
	N=$((N + 1))
	echo "ok $N - $1 # SKIP $2"
}

echo "TAP version 13"
echo "1..3"

left=$(awk '$1 ~ /^grtrace/ { print $1 }' /proc/modules)
for m in $left; do
	rmmod "$m" 2>/dev/null
done
for m in i915 amdgpu nouveau virtio_gpu gpu_sched; do
	grep -q "^$m " /proc/modules && rmmod "$m" 2>/dev/null
done
left=$(awk '$1 ~ /^grtrace/ { print $1 }' /proc/modules | tr '\n' ' ')
[ -z "$left" ]
ok $? "every grtrace module unloads at the end${left:+ (left: $left)}"

if [ ! -e "$LEAKS" ]; then
	skip "kmemleak: nothing leaked" "$(uname -r) has no CONFIG_DEBUG_KMEMLEAK"
else
	scan
	n=$(grep -c '^unreferenced object' "$LEAKS")
	if [ "$n" -ne 0 ]; then
		echo "# kmemleak: $n objects leaked since the suite began:"
		head -n 200 "$LEAKS" | sed 's/^/#   /'
	fi
	[ "$n" -eq 0 ]
	ok $? "kmemleak: nothing leaked since the suite began, all modules unloaded"
fi

if [ ! -e /proc/lockdep_stats ]; then
	skip "lockdep still on at the end" "$(uname -r) has no CONFIG_PROVE_LOCKING"
else
	grep -E 'debug_locks:|lock-classes:|direct dependencies:' /proc/lockdep_stats |
		sed 's/^ */# /'
	grep -qE 'debug_locks: +1$' /proc/lockdep_stats
	ok $? "lockdep still on at the end: it checked every lock the suite took"
fi
rm -rf "$TMP"
[ "$FAILED" -eq 0 ]
