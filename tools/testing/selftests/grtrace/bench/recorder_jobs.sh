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
# By default the guest has one vCPU and QEMU's -icount (shift=0,
# sleep=off: its clock counts the instructions it runs, 1 ns each, and
# skips idle time to the next timer), so that a round's time is the
# guest's own work, not the host's load, which made the wall-clock rounds
# of a shared host range over a factor of four; -W measures wall-clock
# time with two vCPUs instead.  Each round of one is next to a round of
# the other: the ratio of each pair, and their median and spread.
#
# On the host it boots the VM of vmtest.sh and runs itself there with
# --guest; build the modules and the tool first (drivers/gpu/grtrace,
# tools/grtrace).

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../../.." && pwd)
JOBS=2000 ROUNDS=5 KVER='' WALL=0

usage() {
	cat <<EOF
usage: ${0##*/} [-j JOBS] [-r ROUNDS] [-k KVER] [-W]

Jobs per second of the virtual GPU (JOBS zero-length jobs on each of its
three rings, from one write) with no grtrace loaded and with the flight
recorder armed, ROUNDS rounds of each, alternating; the ratio armed / none
of each pair of rounds, its median and spread, and the medians and best
rounds of each.  Guest time counts instructions (-icount) unless -W.

  -j JOBS     jobs per ring per round (default $JOBS)
  -r ROUNDS   rounds of each (default $ROUNDS)
  -k KVER     guest kernel (default: vmtest.sh's choice)
  -W          wall-clock time, two vCPUs, no -icount (the host's load shows)
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
	local r v t0 t1 rate emitted none=() armed=() ratios=() pair w st

	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	printf -v w 'gfx 0 %s 0\ncompute 1 %s 0\ncopy 2 %s 0\n' "$JOBS" "$JOBS" "$JOBS"
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
			# A warm-up round of the same work first.  The round
			# runs no program: the shell's builtins write the three
			# lines (one write), wait for idle and read the clock.
			# A program's exec would wait on the 9p root, and under
			# -icount an idle wait jumps the guest's clock to its
			# next timer, as long as that is.
			printf '%s' "$w" >/sys/kernel/debug/grtrace_vgpu/submit &&
				read -r st </sys/kernel/debug/grtrace_vgpu/wait && [ "$st" = idle ] ||
				die "warm-up"
			t0=$EPOCHREALTIME
			printf '%s' "$w" >/sys/kernel/debug/grtrace_vgpu/submit &&
				read -r st </sys/kernel/debug/grtrace_vgpu/wait
			t1=$EPOCHREALTIME
			[ "$st" = idle ] || die "round $r $v"
			# EPOCHREALTIME: seconds.microseconds.
			rate=$(awk -v n=$((3 * JOBS)) -v us=$((${t1/./} - ${t0/./})) 'BEGIN { printf "%.0f", n * 1e6 / us }')
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
		pair=$(awk -v a="${armed[-1]}" -v n="${none[-1]}" 'BEGIN { printf "%.4f", a / n }')
		ratios+=("$pair")
		echo "round $r: armed / no grtrace $pair"
	done
	unload_all
	rmmod gpu_sched 2>/dev/null
	med() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
	best() { printf '%s\n' "$@" | sort -n | tail -1; }
	local mn ma bn ba
	mn=$(med "${none[@]}") ma=$(med "${armed[@]}")
	bn=$(best "${none[@]}") ba=$(best "${armed[@]}")
	echo "jobs/s, $ROUNDS rounds of $((3 * JOBS)) jobs ($CLOCK): no grtrace median $mn best $bn; recorder armed median $ma best $ba"
	awk -v a="$ma" -v n="$mn" -v ba="$ba" -v bn="$bn" 'BEGIN {
		printf "armed / no grtrace: medians %.3f, best rounds %.3f\n", a / n, ba / bn }'
	# The pairs: each armed round against the round without grtrace next
	# to it; the quartiles by linear interpolation.
	printf '%s\n' "${ratios[@]}" | sort -n | awk -v clock="$CLOCK" '
		{ x[NR] = $1 }
		function q(p,  h, l) { h = (NR - 1) * p + 1; l = int(h); return l >= NR ? x[NR] : x[l] + (h - l) * (x[l + 1] - x[l]) }
		END { printf "armed / no grtrace, %d pairs (%s): median %.3f (slowdown %.1f%%), quartiles %.3f %.3f, min %.3f, max %.3f\n",
			NR, clock, q(0.5), (1 - q(0.5)) * 100, q(0.25), q(0.75), x[1], x[NR] }'
}

# ----------------------------------------------------------------- host ---

while [ $# -gt 0 ]; do
	case $1 in
	--guest) shift; GUEST=1; continue ;;
	-j) JOBS=$2; shift 2 ;;
	-r) ROUNDS=$2; shift 2 ;;
	-k) KVER=$2; shift 2 ;;
	-W) WALL=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
if [ "${GUEST:-0}" = 1 ]; then
	[ "${GRTRACE_VM:-}" = 1 ] || die "--guest runs only in vmtest.sh's guest"
	if [ "$WALL" = 1 ]; then
		CLOCK="wall clock, $(nproc) vCPUs"
	else
		CLOCK="-icount guest time, $(nproc) vCPU"
	fi
	guest
	exit
fi
[ -e "$TOP/drivers/gpu/grtrace/tests/grtrace_vgpu.ko" ] || die "build drivers/gpu/grtrace first"
[ -x "$TOP/tools/grtrace/grtrace" ] || die "build tools/grtrace first"
out=$(mktemp -d)
args=(--guest -j "$JOBS" -r "$ROUNDS")
if [ "$WALL" = 1 ]; then
	vm=(-t 1800)
	args+=(-W)
else
	# One vCPU: -icount runs one; its clock the instructions it ran.
	vm=(-t 3600 -c 1 -q "-icount shift=0,sleep=off")
fi
(cd "$TOP" && "$HERE/../vmtest.sh" ${KVER:+-k "$KVER"} -o "$out" "${vm[@]}" -- \
	"$HERE/recorder_jobs.sh" "${args[@]}")
