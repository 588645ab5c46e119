#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recorder_jobs.sh - what the flight recorder, armed for days, costs a
# drm_sched workload end to end: jobs per second of the virtual GPU
# (grtrace_vgpu on the real gpu-sched) with no grtrace module loaded,
# against the same with grtrace and its drm_sched bridge loaded and the
# recorder armed (nobody reading, as grtrace-recorder.service leaves it),
# in alternating rounds of one guest.  A benchmark, not a test: it prints
# what it measures and fails only when it cannot measure.
#
# On the host it boots the VM of vmtest.sh and runs itself there with
# --guest; build the modules and the tool first (drivers/gpu/grtrace,
# tools/grtrace).

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../../.." && pwd)
JOBS=2000 ROUNDS=5 KVER=''

usage() {
	cat <<EOF
usage: ${0##*/} [-j JOBS] [-r ROUNDS] [-k KVER]

Jobs per second of the virtual GPU (JOBS zero-length jobs on each of its
three rings, from one write) with no grtrace loaded and with the flight
recorder armed, ROUNDS rounds of each, alternating; the medians and their
ratio, and those of the best rounds (the least disturbed by the host).

  -j JOBS     jobs per ring per round (default $JOBS)
  -r ROUNDS   rounds of each (default $ROUNDS)
  -k KVER     guest kernel (default: vmtest.sh's choice)
EOF
}

note() { echo "recorder_jobs: $*" >&2; }
die() { note "FAIL: $*"; exit 1; }

# ---------------------------------------------------------------- guest ---

guest() {
	# tap_lib.sh finds the tree from the directory of the selftests.
	HERE=$(cd -- "$HERE/.." && pwd)
	# shellcheck source=../tap_lib.sh
	. "$HERE/tap_lib.sh"
	local r v t0 t1 rate emitted none=() armed=()

	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	printf 'gfx 0 %s 0\ncompute 1 %s 0\ncopy 2 %s 0\n' "$JOBS" "$JOBS" "$JOBS" >"$TMP/w"
	for r in $(seq "$ROUNDS"); do
		for v in none armed; do
			unload_all
			grep -q "^gpu_sched " /proc/modules || modprobe gpu-sched || die "modprobe gpu-sched"
			if [ $v = armed ]; then
				insmod "$KO" && insmod "$(ko grtrace_drm_bridge)" ||
					die "cannot load grtrace and its bridge"
			fi
			insmod "$(ko grtrace_vgpu)" || die "cannot load grtrace_vgpu"
			if [ $v = armed ]; then
				"$TOOL" recorder arm --size 1M || die "cannot arm"
			fi
			# A warm-up round of the same work first.
			dd if="$TMP/w" of=/sys/kernel/debug/grtrace_vgpu/submit bs=64k status=none &&
				vgpu_idle || die "warm-up"
			t0=$(date +%s%N)
			dd if="$TMP/w" of=/sys/kernel/debug/grtrace_vgpu/submit bs=64k status=none &&
				vgpu_idle || die "round $r $v"
			t1=$(date +%s%N)
			rate=$(awk -v n=$((3 * JOBS)) -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", n * 1e9 / ns }')
			if [ $v = armed ]; then
				[ "$(sed -n 's/^state=//p' /sys/kernel/debug/grtrace/recorder/info)" = armed ] ||
					die "the recorder is not armed after round $r"
				emitted=$(awk '/^cpu/ { for (i = 2; i <= NF; i++) if ($i ~ /^emitted=/) { split($i, a, "="); s += a[2] } } END { print s + 0 }' \
					/sys/kernel/debug/grtrace/recorder/info)
				[ "$emitted" -gt 0 ] || die "armed, no event emitted: the bridge sees no job"
				armed+=("$rate")
				"$TOOL" recorder disarm
			else
				none+=("$rate")
			fi
			echo "round $r $v: $rate jobs/s"
		done
	done
	unload_all
	rmmod gpu_sched 2>/dev/null
	med() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
	best() { printf '%s\n' "$@" | sort -n | tail -1; }
	local mn ma bn ba
	mn=$(med "${none[@]}") ma=$(med "${armed[@]}")
	bn=$(best "${none[@]}") ba=$(best "${armed[@]}")
	echo "jobs/s, $ROUNDS rounds of $((3 * JOBS)) jobs: no grtrace median $mn best $bn; recorder armed median $ma best $ba"
	# The best round of each is the least disturbed by the host's load.
	awk -v a="$ma" -v n="$mn" -v ba="$ba" -v bn="$bn" 'BEGIN {
		printf "armed / no grtrace: best %.3f (slowdown %.1f%%), median %.3f\n", ba / bn, (1 - ba / bn) * 100, a / n }'
}

# ----------------------------------------------------------------- host ---

while [ $# -gt 0 ]; do
	case $1 in
	--guest) shift; GUEST=1; continue ;;
	-j) JOBS=$2; shift 2 ;;
	-r) ROUNDS=$2; shift 2 ;;
	-k) KVER=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
if [ "${GUEST:-0}" = 1 ]; then
	[ "${GRTRACE_VM:-}" = 1 ] || die "--guest runs only in vmtest.sh's guest"
	guest
	exit
fi
[ -e "$TOP/drivers/gpu/grtrace/tests/grtrace_vgpu.ko" ] || die "build drivers/gpu/grtrace first"
[ -x "$TOP/tools/grtrace/grtrace" ] || die "build tools/grtrace first"
out=$(mktemp -d)
(cd "$TOP" && "$HERE/../vmtest.sh" ${KVER:+-k "$KVER"} -o "$out" -t 1800 -- \
	"$HERE/recorder_jobs.sh" --guest -j "$JOBS" -r "$ROUNDS")
