#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest_tests.sh [INTREE_KO] - the part of the suite that runs inside the test VM (as
# root, on the distribution kernel): the kselftests and the record test, in
# TAP.  The VM runner checks the kernel log for panics, Oopses and WARNs
# afterwards.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../.." && pwd)
export GRTRACE_KO=${GRTRACE_KO:-$TOP/drivers/gpu/grtrace/grtrace.ko}

cd "$HERE" || exit 1
[ -e "$GRTRACE_KO" ] || { echo "Bail out! no $GRTRACE_KO"; exit 1; }
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

rc=0
# The in-tree build (run_tests.sh makes it) loads into the same kernel.
if [ -n "${1:-}" ]; then
	if insmod "$1" && grep -q format_version=1 /sys/kernel/debug/grtrace/version &&
		rmmod grtrace; then
		echo "ok - in-tree grtrace.ko loads and unloads"
	else
		echo "not ok - in-tree grtrace.ko loads and unloads"
		rc=1
	fi
fi
./grtrace_test || rc=1
./grtrace_knobs_test || rc=1
./record_test.sh || rc=1
./report_test.sh || rc=1
./vgpu_test.sh || rc=1
./adapters_test.sh || rc=1
./vendor_test.sh || rc=1
./readme_test.sh || rc=1
exit $rc
