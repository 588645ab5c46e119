#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# agg_scaling.sh - how the aggregator's event path scales with the CPUs
# that emit, with and without a reader of aggregator_stats, in the QEMU
# guest of vmtest.sh.  A benchmark, not a test: it prints what it measures
# and fails only when it cannot measure.
#
# The guest has 3 vCPUs: CPUs 0 and 1 emit, CPU 2 runs the reader (a loop
# of cat aggregator_stats) when there is one.  The aggregator is enabled
# with aggregator_per_ctx=1 and its tables are filled first (64 rings, 256
# contexts: "spread"), so that a reader copies all of them, as on a busy
# machine.  Each CPU emits whole jobs on a ring and context of its own
# ("jobs": SUBMIT, COMMIT, START, END, COMPLETE), out of a session: the
# live path, where the aggregator is most of an event's cost.
#
# What one CPU does is compared with what each of two does at once.  Under
# TCG the vCPUs do not each get a host CPU of their own (thread=single
# runs one at a time; thread=multi shares the host's cores with whatever
# else runs there), so events per second of wall time say little.  Each
# CPU therefore alternates chunks of 1000 calls of the aggregator's path
# with chunks of the floor of grtrace_bench (an event that shares nothing
# between CPUs: interrupts masked, a clock read, a relay_reserve() on a
# channel per CPU), timing each chunk ("jobs_floor"): a time slice lost by
# the vCPU lands in either in proportion to its length, so the ratio of
# the two totals is that of their costs in the vCPU's own time, and a
# CPU's throughput is counted in floor events (agg/floor: its events per
# second over its floor events per second).  With nothing shared, 2 CPUs
# at once keep the agg/floor of 1 CPU alone (ratio 1.00); a lock that the
# other CPU (or the reader) holds, or whose cache line it has, lowers it.
#
# With -x the other modules that keep state per event are on the path too,
# in a session: perf_mon (per ring), the sampling in adaptive mode (its job
# table and window) with a budget that keeps every job, and the filter with
# filter_latency (the core's job summary table), which holds back every
# event of these instant jobs, so that nothing reaches the buffers, and
# filter_uid (the filter's own job table).

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../../.." && pwd)
GRTRACE_KO=$TOP/drivers/gpu/grtrace/grtrace.ko
AGG_KO=$TOP/drivers/gpu/grtrace/modules/grtrace_aggregator.ko
BENCH_KO=$HERE/grtrace_bench.ko

N=200000 RUNS=5 KVER='' TCG=single MULTI='' EXTRA=0

usage() {
	cat <<EOF
usage: ${0##*/} [-n N] [-r RUNS] [-k KVER] [-m AGGREGATOR_KO] [-M] [-x]

Boot a 3-vCPU guest and print, per configuration (1 CPU or 2 at once,
without or with a reader of aggregator_stats), each emitting CPU's events
per second of the aggregator's live path and of the floor, their ratio,
and 2 CPUs' over 1 CPU's; medians of RUNS rounds of N events per CPU.
The modules are used as built (build drivers/gpu/grtrace and this
directory for the guest's kernel first).

  -n N        events per CPU and run (default $N)
  -r RUNS     rounds (default $RUNS)
  -k KVER     guest kernel (default: vmtest.sh's choice)
  -m KO       the aggregator module to load (default: this tree's)
  -M          multi-threaded TCG, with tsc=reliable (an hpet read would
              take QEMU's global lock and serialise the vCPUs)
  -x          perf_mon, the sampling (adaptive) and the filter
              (filter_latency, filter_uid) on the path too, in a session (this tree's)
EOF
}

note() { echo "agg_scaling: $*" >&2; }
die() { note "FAIL: $*"; exit 1; }

# ---------------------------------------------------------------- guest ---

G=/sys/kernel/debug/grtrace
RUN=/sys/kernel/debug/grtrace_bench/run
READS=/tmp/agg_scaling.reads
declare -A RES=()

# kv LINE KEY: the value of KEY= in LINE.
kv() { tr ' ' '\n' <<<"$1" | awk -F= -v k="$2" '$1 == k { print $2 }'; }

# A reader on CPU 2: a byte in $READS per read of aggregator_stats.
reader_start() {
	: >"$READS"
	taskset -c 2 sh -c "while :; do cat $G/aggregator_stats >/dev/null; printf . >>$READS; done" &
	RPID=$!
	RT0=$(date +%s%N)
	sleep 0.5
}

# Stop it; print its reads per second.
reader_stop() {
	local n
	n=$(stat -c %s "$READS")
	kill -TERM "$RPID"
	wait "$RPID" 2>/dev/null
	awk -v n="$n" -v t="$(($(date +%s%N) - RT0))" 'BEGIN { printf "%.1f", n * 1e9 / t }'
}

# one CFG: jobs_floor on CPU 0 alone then CPU 1 alone (cfg *1), or on
# CPUs 0 and 1 at once (cfg *2); append each CPU's ns to
# RES[CFG.jobs.cpuN] and RES[CFG.floor.cpuN].  Each CPU is compared with
# itself: its ring's and context's slots differ, and so does a lookup.
one() {
	local cfg=$1 out c ns fns
	if [[ $cfg == *1 ]]; then
		for c in 0 1; do
			taskset -c $c sh -c "echo 'jobs_floor $N' >$RUN" ||
				die "jobs_floor $N"
			out=$(cat "$RUN")
			RES[$cfg.jobs.cpu$c]+="$(kv "$out" total_ns) "
			RES[$cfg.floor.cpu$c]+="$(kv "$out" floor_ns) "
		done
	else
		echo "jobs_floor_all $N 0-1" >"$RUN" || die "jobs_floor_all $N 0-1"
		out=$(cat "$RUN")
		for c in 0 1; do
			ns=$(kv "$out" "cpu${c}_ns")
			fns=$(kv "$out" "cpu${c}_floor_ns")
			[[ -n $ns && -n $fns ]] || die "no cpu${c}_ns in: $out"
			RES[$cfg.jobs.cpu$c]+="$ns "
			RES[$cfg.floor.cpu$c]+="$fns "
		done
	fi
}

med() { tr -s ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# ratios CFG CPU: per round, the CPU's jobs events/s over its floor's.
ratios() {
	local -a f j
	local i
	read -r -a f <<<"${RES[$1.floor.$2]}"
	read -r -a j <<<"${RES[$1.jobs.$2]}"
	for i in "${!f[@]}"; do
		awk -v f="${f[i]}" -v j="${j[i]}" 'BEGIN { printf "%.4f ", f / j }'
	done
}

guest_main() {
	local r cfg reads c
	[[ ${GRTRACE_VM:-} == 1 ]] || die "--guest runs only in vmtest.sh's guest"
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	(($(nproc) >= 3)) || die "3 CPUs needed, $(nproc) online"
	insmod "$GRTRACE_KO" || die "insmod $GRTRACE_KO"
	insmod "$BENCH_KO" || die "insmod $BENCH_KO"
	insmod "$AGG_KO" || die "insmod $AGG_KO"
	echo 1 >"$G/aggregator_per_ctx" || die "aggregator_per_ctx"
	echo 1 >"$G/aggregator_enable" || die "aggregator_enable"
	# Every ring and 254 contexts; the CPUs' two take the last slots.
	echo "spread 254" >"$RUN" || die "spread"
	if ((EXTRA)); then
		local m=$TOP/drivers/gpu/grtrace/modules
		insmod "$m/grtrace_perf_mon.ko" || die "insmod perf_mon"
		insmod "$m/grtrace_sampling.ko" || die "insmod sampling"
		echo 100000000 >"$G/sampling_budget" &&
			echo adaptive >"$G/sampling_mode" || die "sampling adaptive"
		insmod "$m/grtrace_filter.ko" || die "insmod filter"
		# filter_uid: every job's decision kept in the filter's
		# job table (the bench runs as root).
		echo 1000000 >"$G/filter_latency" && echo 0 >"$G/filter_uid" &&
			echo 1 >"$G/filter_enabled" || die "filter_latency"
		echo start >"$G/control" || die "start"
	fi
	one off1
	one off2
	RES=()
	echo "kernel: $(uname -r), aggregator: $AGG_KO ($(md5sum <"$AGG_KO" | cut -c1-12))"
	((EXTRA)) && echo "with perf_mon, sampling (adaptive), filter (filter_latency, filter_uid), core $(md5sum <"$GRTRACE_KO" | cut -c1-12), in a session"
	echo "N=$N rounds=$RUNS cpus=$(nproc)"
	head -n 1 "$G/aggregator_stats_raw"

	for ((r = 1; r <= RUNS; r++)); do
		for cfg in off1 off2 on1 on2; do
			[[ $cfg == on* ]] && reader_start
			one "$cfg"
			if [[ $cfg == on* ]]; then
				reads=$(reader_stop)
				RES[$cfg.reads]+="$reads "
			fi
		done
		echo "round $r done" >&2
	done
	grep -c '^scope=total ' "$G/aggregator_stats_raw" |
		sed 's/^/rows scope=total: /'
	head -n 1 "$G/aggregator_stats_raw"
	for cfg in off1 off2 on1 on2; do
		for c in 0 1; do
			[[ -n ${RES[$cfg.jobs.cpu$c]:-} ]] || continue
			echo "  $cfg cpu$c floor_ns: ${RES[$cfg.floor.cpu$c]}" >&2
			echo "  $cfg cpu$c jobs_ns: ${RES[$cfg.jobs.cpu$c]}" >&2
		done
	done

	echo
	printf '%-26s %12s %12s %10s %8s\n' "configuration, CPU" "agg ev/s" "floor ev/s" "agg/floor" "reads/s"
	for cfg in off1 off2 on1 on2; do
		for c in 0 1; do
			[[ -n ${RES[$cfg.jobs.cpu$c]:-} ]] || continue
			awk -v n="$N" -v j="$(med "${RES[$cfg.jobs.cpu$c]}")" \
				-v f="$(med "${RES[$cfg.floor.cpu$c]}")" \
				-v q="$(med "$(ratios "$cfg" "cpu$c")")" \
				-v rd="$(med "${RES[$cfg.reads]:-}")" \
				-v name="$( [[ $cfg == on* ]] && echo reader || echo "no reader"), $( [[ $cfg == *1 ]] && echo "alone" || echo "2 CPUs"), cpu$c" \
				'BEGIN { printf "%-26s %12.0f %12.0f %10.4f %8s\n", name, n * 1e9 / j, n * 1e9 / f, q, rd == "" ? "-" : rd }'
		done
	done
	echo "(medians of $RUNS rounds; agg/floor: per round, the CPU's events/s on"
	echo " the aggregator's live path over its floor events/s in the chunks in"
	echo " between: events per unit of the vCPU's own time)"
	echo
	for cfg in off on; do
		local a0 a1 b0 b1
		a0=$(med "$(ratios "${cfg}1" cpu0)")
		a1=$(med "$(ratios "${cfg}1" cpu1)")
		b0=$(med "$(ratios "${cfg}2" cpu0)")
		b1=$(med "$(ratios "${cfg}2" cpu1)")
		awk -v a0="$a0" -v a1="$a1" -v b0="$b0" -v b1="$b1" -v name="$( [[ $cfg == on ]] && echo "with a reader" || echo "no reader")" \
			'BEGIN { printf "%-14s 2 CPUs over the same CPU alone, agg/floor: cpu0 %.3f cpu1 %.3f mean %.3f\n",
				name, b0 / a0, b1 / a1, (b0 / a0 + b1 / a1) / 2 }'
	done
	if ((EXTRA)); then
		echo stop >"$G/control"
		grep -E '^(emitted|written|dropped_hook)=' "$G/stats"
		grep -E '^(evicted|open)=' "$G/sampling_stats"
		echo 0 >"$G/filter_enabled"
		rmmod grtrace_filter grtrace_sampling grtrace_perf_mon
	fi
	echo 0 >"$G/aggregator_enable"
	rmmod grtrace_aggregator grtrace_bench grtrace
}

# ----------------------------------------------------------------- host ---

host_main() {
	local out want=$KVER args=(--guest -n "$N" -r "$RUNS" -m "$AGG_KO")
	((EXTRA)) && args+=(-x)
	# shellcheck source=../setup.sh
	. "$HERE/../setup.sh"
	grtrace_setup >&2 || die "setup failed"
	KVER=${want:-$KVER}
	[[ -e $GRTRACE_KO && -e $BENCH_KO && -e $AGG_KO ]] ||
		die "no $GRTRACE_KO, $BENCH_KO or $AGG_KO: build them first"
	out=$(mktemp -d /tmp/grtrace-aggscale.XXXXXX)
	echo "host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), tcg thread=$TCG, output in $out"
	# Under multi-threaded TCG the vCPUs really run at once.
	(cd "$TOP" && "$HERE/../vmtest.sh" -k "$KVER" -o "$out" -t 1800 -c 3 \
		-T "$TCG" ${MULTI:+-a tsc=reliable} -- "$HERE/agg_scaling.sh" "${args[@]}")
}

main() {
	local guest=0 opt
	if [[ ${1:-} == --guest ]]; then
		guest=1
		shift
	fi
	while getopts "n:r:k:m:Mxh" opt; do
		case $opt in
		n) N=$OPTARG ;;
		r) RUNS=$OPTARG ;;
		k) KVER=$OPTARG ;;
		m) AGG_KO=$(realpath -- "$OPTARG") ;;
		M) TCG=multi MULTI=1 ;;
		x) EXTRA=1 ;;
		h) usage; exit 0 ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	[[ $N =~ ^[1-9][0-9]*$ && $RUNS =~ ^[1-9][0-9]*$ ]] ||
		die "-n and -r take positive integers"
	if ((guest)); then
		guest_main
	else
		host_main
	fi
}

main "$@"; exit
