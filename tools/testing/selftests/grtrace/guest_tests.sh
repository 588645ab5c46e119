#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest_tests.sh [--part K/N] [INTREE_KO] - the part of the suite that runs
# inside the test VM (as root, on the distribution kernel): the kselftests
# and the shell tests, in TAP.  The VM runner checks the kernel log for
# panics, Oopses and WARNs afterwards.  With --part K/N, only every Nth
# sub-suite from the Kth on (and the in-tree build with part 1), then
# the kernel checkers' verdict: N guests share the suite (a debug kernel
# under TCG is too slow for one).
#
# Each sub-suite runs between "# suite NAME" and "# suite NAME exit RC",
# after a first line "# suites: ..." naming them all, so that the host
# (tap_merge.py) can tell a sub-suite that printed fewer results than its
# plan, or never finished, from one that passed.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../.." && pwd)
export GRTRACE_KO=${GRTRACE_KO:-$TOP/drivers/gpu/grtrace/grtrace.ko}
SUITES="grtrace_test grtrace_knobs_test grtrace_v2_test record_test.sh report_test.sh
	vgpu_test.sh client_test.sh probe_context_test.sh sched_life_test.sh adapters_test.sh annotate_test.sh race_test.sh hooks_test.sh modprobe_test.sh irq_test.sh aggregator_test.sh perf_mon_test.sh filter_test.sh sampling_test.sh vendor_test.sh edges_test.sh
	stress_test.sh readme_test.sh recorder_test.sh recorder_cli_test.sh recorder_service_test.sh hotplug_test.sh guards_test.sh faults_test.sh checkers_test.sh lockdown_test.sh"
PART=1 PARTS=1
if [ "${1:-}" = --part ]; then
	case ${2:-} in
	[1-9]/[1-9]) PART=${2%/*} PARTS=${2#*/} ;;
	*) echo "Bail out! --part K/N, 1 <= K <= N <= 9, not '${2:-}'"; exit 1 ;;
	esac
	[ "$PART" -le "$PARTS" ] || { echo "Bail out! --part $2: K > N"; exit 1; }
	shift 2
fi
if [ "$PARTS" -gt 1 ]; then
	# Round robin, which spreads the long suites; the checkers' verdict
	# (kmemleak, lockdep) in every guest, and lockdown_test after it in
	# the last, as in the whole list (a locked-down kernel stays so).
	i=0 mine=
	for s in $SUITES; do
		case $s in checkers_test.sh|lockdown_test.sh) continue ;; esac
		[ $((i % PARTS + 1)) -eq "$PART" ] && mine+=" $s"
		i=$((i + 1))
	done
	SUITES="$mine checkers_test.sh"
	[ "$PART" -eq "$PARTS" ] && SUITES+=" lockdown_test.sh"
	[ "$PART" -eq 1 ] || set --
fi

# The in-tree build (run_tests.sh makes it) loads into the same kernel.
intree() {
	echo "TAP version 13"
	echo "1..1"
	insmod "$1" && grep -q format_version=2 /sys/kernel/debug/grtrace/version &&
		rmmod grtrace
	if [ $? -eq 0 ]; then
		echo "ok 1 - in-tree grtrace.ko loads and unloads"
	else
		echo "not ok 1 - in-tree grtrace.ko loads and unloads"
		return 1
	fi
}

# suite NAME CMD...: one sub-suite between its markers.
suite() {
	local name=$1 rc t0=$SECONDS

	shift
	echo "# suite $name"
	"$@"
	rc=$?
	echo "# suite $name exit $rc"
	# Where the guest's time goes (the CI's budget), for the log only.
	echo "# suite $name took $((SECONDS - t0)) s"
	return $rc
}

cd "$HERE" || exit 1
[ -e "$GRTRACE_KO" ] || { echo "Bail out! no $GRTRACE_KO"; exit 1; }
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# kmemleak's baseline (debug kernel): what leaked before is not ours.
./checkers_test.sh --baseline
echo "# suites:${1:+ intree}" $SUITES
rc=0
if [ -n "${1:-}" ]; then
	suite intree intree "$1" || rc=1
fi
for s in $SUITES; do
	suite "$s" "./$s" || rc=1
done
exit $rc
