#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# idle_cost.sh - what grtrace costs a GPU workload while tracing is
# stopped: the virtual GPU's jobs on the real DRM scheduler, with no
# grtrace module loaded, against the same jobs with grtrace and its
# drm_bridge adapter loaded and stopped.  A benchmark, not a test: it
# prints the medians and their ratio, and fails only when it cannot
# measure.
#
# On the host it builds the modules and boots one VM (vmtest.sh, 2 vCPUs
# under single-threaded TCG) that runs itself with --guest: ROUNDS rounds,
# each timing JOBS jobs of 0 us on the vgpu's three rings (with a
# dependency chain) once in each variant, alternating which comes first,
# so that host noise spreads over both alike.
#
# With -i the VM has one vCPU whose clock counts its instructions (QEMU's
# icount, 1 ns each, idle time skipped): each batch's time is then the
# work the guest did, free of the host's scheduling, and the ratio is the
# probes' own cost.
#
# Usage: idle_cost.sh [-r ROUNDS] [-j JOBS] [-k KVER] [-B] [-i]

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../../.." && pwd)
KODIR=$TOP/drivers/gpu/grtrace
ROUNDS=11 JOBS=30000 KVER='' BUILD=1 ICOUNT=0

note() { echo "idle_cost: $*" >&2; }
die() { note "FAIL: $*"; exit 1; }

# ---------------------------------------------------------------- guest ---

V=/sys/kernel/debug/grtrace_vgpu

# busy_ns: ns CPU 0 spent running tasks (schedstat), not idle.
busy_ns() { awk '$1 == "cpu0" { print $8 }' /proc/schedstat; }

# run_jobs: "WALL BUSY", ns for JOBS jobs split over the three rings, until
# idle, and of that the ns CPU 0 ran tasks.
run_jobs() {
	local n=$((JOBS / 3)) t0 t1 b0 b1

	b0=$(busy_ns)
	t0=$(date +%s%N)
	printf 'gfx 0 %d 0\ncompute 1 %d 0 dep=gfx:0\ncopy 2 %d 0\n' \
		"$n" "$n" "$n" >"$V/submit" || return 1
	[ "$(cat "$V/wait")" = idle ] || return 1
	t1=$(date +%s%N)
	b1=$(busy_ns)
	echo $((t1 - t0)) $((b1 - b0))
}

# variant none|stopped: time one batch in that state.
variant() {
	if [ "$1" = none ]; then
		rmmod grtrace_drm_bridge grtrace 2>/dev/null
	else
		grep -q '^grtrace ' /proc/modules || insmod "$KODIR/grtrace.ko" || return 1
		grep -q '^grtrace_drm_bridge ' /proc/modules ||
			insmod "$KODIR/adapters/grtrace_drm_bridge.ko" || return 1
		grep -q stopped /sys/kernel/debug/grtrace/control || return 1
	fi
	run_jobs
}

guest() {
	local r a b first second

	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	modprobe gpu-sched && insmod "$KODIR/tests/grtrace_vgpu.ko" ||
		die "cannot load gpu-sched or grtrace_vgpu"
	[ -n "$(busy_ns)" ] || die "no cpu0 line in /proc/schedstat (CONFIG_SCHEDSTATS)"
	variant none >/dev/null && variant stopped >/dev/null || die "warm-up failed"
	for r in $(seq "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then first=none second=stopped
		else first=stopped second=none
		fi
		a=$(variant $first) && b=$(variant $second) || die "round $r failed"
		echo "$first $a"
		echo "$second $b"
	done >"$GRTRACE_OUT/idle.txt"
	awk -v jobs="$JOBS" '
		{ t[$1, ++n[$1]] = $2; b[$1, n[$1]] = $3 }
		function median(arr, v, k,   i, j, x, a) {
			for (i = 1; i <= k; i++) a[i] = arr[v, i]
			for (i = 2; i <= k; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					x = a[j]; a[j] = a[j - 1]; a[j - 1] = x
				}
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		}
		END {
			k = n["none"]
			mn = median(t, "none", k); ms = median(t, "stopped", k)
			bn = median(b, "none", k); bs = median(b, "stopped", k)
			printf "jobs per batch: %d, rounds: %d\n", jobs, k
			printf "no grtrace module:             median %.1f ms (%.0f jobs/s), CPU 0 busy %.1f ms\n", mn / 1e6, jobs / mn * 1e9, bn / 1e6
			printf "grtrace + drm_bridge, stopped: median %.1f ms (%.0f jobs/s), CPU 0 busy %.1f ms\n", ms / 1e6, jobs / ms * 1e9, bs / 1e6
			printf "ratio stopped / none: %.3f elapsed, %.3f CPU 0 busy\n", ms / mn, bs / bn
		}' "$GRTRACE_OUT/idle.txt"
}

# ----------------------------------------------------------------- host ---

if [ "${1:-}" = --guest ]; then
	ROUNDS=$2 JOBS=$3
	guest
	exit
fi

while getopts 'r:j:k:Bih' opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	k) KVER=$OPTARG ;;
	B) BUILD=0 ;;
	i) ICOUNT=1 ;;
	*) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done

# shellcheck source=../setup.sh
. "$HERE/../setup.sh"
WANT_KVER=$KVER
grtrace_setup || die "setup failed"
KVER=${WANT_KVER:-$KVER}
if [ $BUILD = 1 ]; then
	make -C "$KODIR" KDIR="/lib/modules/$KVER/build" >/dev/null ||
		die "building the modules failed"
fi
OUT=$(mktemp -d /tmp/grtrace-idle.XXXXXX)
VMARGS=()
[ $ICOUNT = 1 ] && VMARGS=(-c 1 -q "-icount shift=0,sleep=off")
"$HERE/../vmtest.sh" -k "$KVER" -o "$OUT" -t 3600 "${VMARGS[@]}" -- \
	"$HERE/idle_cost.sh" --guest "$ROUNDS" "$JOBS" || die "the VM run failed (see $OUT)"
note "per batch in $OUT/idle.txt"
