#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rt_latency.sh - what grtrace's optional modules cost a PREEMPT_RT
# kernel's scheduling latency: cyclictest (rt-tests) on every CPU of the
# guest while the virtual GPU runs jobs on the real DRM scheduler, once
# with no grtrace module loaded and once with grtrace, its drm_sched
# bridge, the aggregator (per ring and per context), perf_mon and the
# sampling (adaptive) loaded and enabled, a session running, and their
# statistics files read in a loop.  A benchmark, not a test: it prints
# each round's worst latency of both variants and the ratio of the
# medians, and fails only when it cannot measure.
#
# On the host it builds the modules for the kernel (default: the newest
# 7.x PREEMPT_RT of trixie-backports, setup.sh's "7-rt"; -K KERNEL names
# another of setup.sh's) and boots one VM (vmtest.sh, 2 vCPUs under
# single-threaded TCG) that runs itself with --guest: ROUNDS rounds, each
# variant once per round, alternating which comes first.  Under TCG one
# host thread runs both vCPUs, so the latencies are the emulator's too
# (milliseconds): only the ratio of the two variants of one run means
# anything, and only differences well above the rounds' spread.
#
# Usage: rt_latency.sh [-K KERNEL] [-r ROUNDS] [-l LOOPS] [-B]

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../../.." && pwd)
KODIR=$TOP/drivers/gpu/grtrace
KERNEL=7-rt ROUNDS=5 LOOPS=5000 BUILD=1

note() { echo "rt_latency: $*" >&2; }
die() { note "FAIL: $*"; exit 1; }

# ---------------------------------------------------------------- guest ---

G=/sys/kernel/debug/grtrace
V=/sys/kernel/debug/grtrace_vgpu

# traffic: jobs on the vgpu's rings until $STOP goes.
traffic() {
	while [ -e "$STOP" ]; do
		printf 'gfx 0 200 100\ncompute 1 200 50 dep=gfx:0\ncopy 2 200 20\n' \
			>"$V/submit" || return 1
		[ "$(cat "$V/wait")" = idle ] || return 1
	done
}

# readers: the optional modules' statistics, read in a loop until $STOP
# goes (the aggregator's copy is the long one).
readers() {
	while [ -e "$STOP" ]; do
		cat "$G/aggregator_stats" "$G/aggregator_stats_raw" \
		    /proc/grtrace_stats "$G/sampling_stats" "$G/stats" \
		    >/dev/null 2>&1
	done
}

load() {
	insmod "$KODIR/grtrace.ko" &&
		insmod "$KODIR/adapters/grtrace_drm_bridge.ko" &&
		insmod "$KODIR/modules/grtrace_aggregator.ko" &&
		insmod "$KODIR/modules/grtrace_perf_mon.ko" &&
		insmod "$KODIR/modules/grtrace_sampling.ko" &&
		echo 1 >"$G/aggregator_per_ctx" && echo 1 >"$G/aggregator_enable" &&
		echo adaptive >"$G/sampling_mode" && echo start >"$G/control"
}

unload() {
	local m

	[ -e "$G/control" ] && echo stop >"$G/control"
	for m in grtrace_sampling grtrace_perf_mon grtrace_aggregator \
		 grtrace_drm_bridge grtrace; do
		grep -q "^$m " /proc/modules && rmmod "$m"
	done
	return 0
}

# variant none|loaded: the worst latency (us) cyclictest saw on any CPU.
variant() {
	local pids=() max

	unload
	if [ "$1" = loaded ]; then
		load || return 1
	fi
	touch "$STOP"
	traffic & pids+=($!)
	[ "$1" = loaded ] && { readers & pids+=($!); }
	max=$(cyclictest -m -q -p 90 -t -a -i 1000 -l "$LOOPS" 2>/dev/null |
	      sed -n 's/.*Max: *\([0-9]*\).*/\1/p' | sort -n | tail -n 1)
	rm -f "$STOP"
	wait "${pids[@]}"
	unload
	[ -n "$max" ] && echo "$max"
}

# of VARIANT FILE: that variant's latencies, one a line.
of() { awk -v v="$1" '$1 == v { print $2 }' "$2"; }

# median: of the numbers on standard input.
median() {
	sort -n | awk '{ x[NR] = $1 }
		END { print NR % 2 ? x[(NR + 1) / 2] : int((x[NR / 2] + x[NR / 2 + 1]) / 2) }'
}

# summary FILE: each variant's latencies, their medians and the ratio.
summary() {
	local mn ml

	mn=$(of none "$1" | median)
	ml=$(of loaded "$1" | median)
	echo "cyclictest max latency (us) per round, $LOOPS loops of 1 ms on each CPU"
	echo "no grtrace module:        $(of none "$1" | tr '\n' ' ') median $mn"
	echo "modules loaded and read:  $(of loaded "$1" | tr '\n' ' ') median $ml"
	awk -v a="$ml" -v b="$mn" 'BEGIN { printf "ratio loaded / none: %.2f\n", a / (b ? b : 1) }'
}

guest() {
	local r a b first second

	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	command -v cyclictest >/dev/null || die "no cyclictest (rt-tests) in the guest"
	modprobe gpu-sched && insmod "$KODIR/tests/grtrace_vgpu.ko" ||
		die "cannot load gpu-sched or grtrace_vgpu"
	STOP=$(mktemp -u /tmp/rt_latency.XXXXXX)
	echo "kernel: $(uname -r) ($(uname -v | grep -o 'PREEMPT[_A-Z]*' | head -n 1))"
	for r in $(seq "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then first=none second=loaded
		else first=loaded second=none
		fi
		a=$(variant $first) && b=$(variant $second) || die "round $r failed"
		echo "$first $a"
		echo "$second $b"
		echo "round $r: $first $a, $second $b" >&2
	done >"$GRTRACE_OUT/latency.txt"
	summary "$GRTRACE_OUT/latency.txt"
}

# ----------------------------------------------------------------- host ---

if [ "${1:-}" = --guest ]; then
	ROUNDS=$2 LOOPS=$3
	guest
	exit
fi

while getopts 'K:r:l:Bh' opt; do
	case $opt in
	K) KERNEL=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	l) LOOPS=$OPTARG ;;
	B) BUILD=0 ;;
	*) sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done

# shellcheck source=../setup.sh
. "$HERE/../setup.sh"
grtrace_setup "$KERNEL" || die "setup failed"
grtrace_apt_install rt-tests || die "cannot install rt-tests"
if [ $BUILD = 1 ]; then
	# shellcheck disable=SC2086 # KMAKE: make, or kmake.sh and its root
	$KMAKE -C "$KODIR" KDIR="$KDIR" KSRC="$KSRC" >/dev/null ||
		die "building the modules failed"
fi
note "kernel $KVER, commit $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null)"
OUT=$(mktemp -d /tmp/grtrace-rtlat.XXXXXX)
"$HERE/../vmtest.sh" -k "$KVER" -o "$OUT" -t 3600 -s 900 -- \
	"$HERE/rt_latency.sh" --guest "$ROUNDS" "$LOOPS" || die "the VM run failed (see $OUT)"
note "per round in $OUT/latency.txt"
