#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - what one event costs: grtrace against an ftrace event of the
# same payload, in the QEMU guest of vmtest.sh.  A benchmark, not a test:
# it reports what it measures and fails only when it cannot measure.
#
# On the host it builds grtrace.ko and grtrace_bench.ko, then boots one VM
# per kernel command line (by default two: the default clocksource, which
# is hpet under TCG, and tsc=reliable) and runs itself there with --guest.

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../../.." && pwd)
GRTRACE_KO=$TOP/drivers/gpu/grtrace/grtrace.ko
KODIR=$(dirname -- "$GRTRACE_KO")
BENCH_KO=$HERE/grtrace_bench.ko

N=200000 RUNS=5 PROFILE=0 BUILD=1 KVER='' APPENDS=() APPEND_SET=0 MTTCG=0 ONLY=''
# Variants that patch no code: the only ones run under multi-threaded TCG
# (-M), which hangs the guest when code is patched under load.
NOPATCH="gr_written gr_written_all gr_gseq gr_gseq_all gr_v1 gr_v1_all empty
	 p_floor p_floor_call p_floor_irqon p_floor_all p_atomic p_atomic_all"

usage() {
	cat <<EOF
usage: ${0##*/} [-n N] [-r RUNS] [-a APPEND]... [-k KVER] [-p] [-B] [-M] [-V VARIANTS]

Measure ns per event of grtrace_submit() (written, and dropped for each
cheap reason) and of an ftrace event with the same 40-byte payload, each
RUNS times N calls; print the medians and the ratios to ftrace and to the
floor of a relay-based event.  The "all CPUs" variants make N calls on
every CPU at once and give the mean ns per call of one CPU.

  -n N        calls per run (default $N)
  -r RUNS     runs per variant, the median is reported (default $RUNS)
  -a APPEND   kernel command line of one VM run; repeat for several; -a ''
              is the default command line (default: '' and 'tsc=reliable')
  -k KVER     guest kernel (default: vmtest.sh's choice)
  -p          also profile the written paths with perf in the guest
  -B          do not build the modules, use the ones there
  -M          one more VM run per command line under multi-threaded TCG,
              where the vCPUs really run at once, of the variants that
              patch no code
  -V LIST     only these variants (blank-separated ids, e.g.
              "empty gr_written gr_hook gr_agg gr_pm gr_flt gr_spl gr_splt")
EOF
}

note() { echo "bench: $*" >&2; }
die() { note "FAIL: $*"; exit 1; }

# ---------------------------------------------------------------- guest ---

G=/sys/kernel/debug/grtrace
RUN=/sys/kernel/debug/grtrace_bench/run
T=/sys/kernel/tracing
EV=$T/events/grtrace_bench/grtrace_bench_job

# The variants, in table order.  Each round runs every variant once, so
# that noise from the host (other guests on its cores stretch the guest's
# clock) spreads over all of them alike.
VARIANTS=(ft_mono ft_local ft_off gr_written gr_armed gr_hook gr_agg gr_pm gr_flt gr_spl gr_splt gr_gseq gr_v1 gr_type gr_sampled
	  gr_ring gr_rate gr_stopped gr_full empty p_floor p_floor_call p_floor_irqon
	  p_ktime p_ktime_fast p_ktime_irqoff p_irqsave p_atomic p_memcpy
	  ft_mono_all gr_written_all gr_gseq_all gr_v1_all p_floor_all
	  p_atomic_all)
declare -A VNAME=(
	[ft_mono]="ftrace, trace_clock mono"
	[ft_local]="ftrace, trace_clock local"
	[ft_off]="ftrace, event disabled"
	[gr_written]="grtrace written, defaults (v2)"
	[gr_armed]="flight recorder armed, 1M wrapping"
	[gr_hook]="  + grtrace_hook_test (2 hooks)"
	[gr_agg]="  + grtrace_aggregator enabled"
	[gr_pm]="  + grtrace_perf_mon"
	[gr_flt]="  + grtrace_filter enabled (keeps all)"
	[gr_spl]="  + grtrace_sampling static 100%"
	[gr_splt]="  + grtrace_sampling threshold (drops)"
	[gr_gseq]="grtrace written, v2 gseq=1"
	[gr_v1]="grtrace written, format=1 gseq=1"
	[p_floor]="floor: irqsave+ktime+relay_reserve"
	[p_floor_call]="floor behind a call"
	[p_ktime_irqoff]="part: ktime_get_ns(), irqs masked"
	[p_floor_irqon]="floor, interrupts on"
	[gr_type]="grtrace dropped: filtered_type"
	[gr_sampled]="grtrace dropped: sampled (sample=0)"
	[gr_ring]="grtrace dropped: filtered_ring"
	[gr_rate]="grtrace dropped: rate_limited (1/s)"
	[gr_stopped]="grtrace dropped: disabled (stopped)"
	[gr_full]="grtrace dropped: buffer_full (no reader)"
	[empty]="empty loop"
	[p_ktime]="part: ktime_get_ns()"
	[p_ktime_fast]="part: ktime_get_mono_fast_ns()"
	[p_irqsave]="part: local_irq_save+restore"
	[p_atomic]="part: atomic64_inc_return"
	[p_memcpy]="part: memcpy() of 72 bytes"
	[ft_mono_all]="ftrace mono, all CPUs at once"
	[gr_written_all]="grtrace v2, all CPUs at once"
	[gr_gseq_all]="grtrace v2 gseq=1, all CPUs at once"
	[gr_v1_all]="grtrace format=1 gseq=1, all CPUs"
	[p_floor_all]="floor, all CPUs at once"
	[p_atomic_all]="atomic64_inc_return, all CPUs"
)
NCPU=1
declare -A VALS=()

gstat() { awk -F= -v k="$1" '$1 == k { print $2 }' "$G/stats"; }
gcfg() { echo "$1" >"$G/config" || die "config $1 refused"; }
gctl() { echo "$1" >"$G/control" || die "control $1 refused"; }

# check_stat KEY MIN: warn when grtrace did not count what was meant.
check_stat() {
	local v
	v=$(gstat "$1")
	((v >= $2)) || note "WARNING: $1=$v, expected at least $2"
}

ft_check() {
	local entries overrun
	entries=$(awk '$1 == "entries:" { s += $2 } END { print s }' "$T"/per_cpu/cpu*/stats)
	overrun=$(awk '$1 == "overrun:" { s += $2 } END { print s }' "$T"/per_cpu/cpu*/stats)
	((entries >= N && overrun == 0)) ||
		note "WARNING: ftrace entries=$entries overrun=$overrun for N=$N"
}

ft_on() {
	echo "$1" >"$T/trace_clock"
	: >"$T/trace"
	echo 1 >"$EV/enable"
	echo 1 >"$T/tracing_on"
}

ft_off() {
	echo 0 >"$T/tracing_on"
	echo 0 >"$EV/enable"
	: >"$T/trace"
}

# Fresh buffers, so that written events never meet a full one.
gr_fresh() {
	echo 32M >"$G/buffer_size" || die "buffer_size refused"
	[[ -z ${1:-} ]] || gcfg "$1"
	gcfg reset_stats
	gctl start
}

gr_written_check() {
	gctl stop
	check_stat written "$((N * ${1:-1}))"
	(($(gstat dropped_total) == 0)) ||
		note "WARNING: dropped_total=$(gstat dropped_total) while writing"
}

# gr_drop KEY=VALUE: start with one knob set to drop everything.
gr_drop() { gcfg reset_stats; gcfg "$1"; gctl start; }

# vstep VARIANT before|after: set up for, and check after, one run.  An
# "_all" variant is set up as its one-CPU form, and writes NCPU times N.
vstep() {
	local m=1 v=$1
	if [[ $v == *_all ]]; then
		v=${v%_all}
		m=$NCPU
	fi
	case $v:$2 in
	ft_mono:before) ft_on mono ;;
	ft_local:before) ft_on local ;;
	ft_mono:after | ft_local:after) ft_check; ft_off ;;
	gr_written:before) gr_fresh ;;
	gr_gseq:before) gr_fresh gseq=1 ;;
	gr_v1:before) gcfg format=1; gr_fresh gseq=1 ;;
	gr_written:after) gr_written_check "$m" ;;
	# Armed: the buffers overwrite themselves (1M: every 1.5 s of calls).
	gr_armed:before)
		echo 1M >"$G/buffer_size" || die "buffer_size refused"
		gcfg reset_stats
		echo arm >"$G/recorder/control" || die "arm refused" ;;
	gr_armed:after)
		check_stat written "$((N * m))"
		echo disarm >"$G/recorder/control" || die "disarm refused" ;;
	# The optional modules, each alone, on the defaults' path.
	gr_hook:before) insmod "$KODIR/tests/grtrace_hook_test.ko" || die "insmod hook_test"; gr_fresh ;;
	gr_agg:before)
		insmod "$KODIR/modules/grtrace_aggregator.ko" || die "insmod aggregator"
		echo 1 >"$G/aggregator_enable" || die "aggregator_enable"
		gr_fresh ;;
	gr_pm:before) insmod "$KODIR/modules/grtrace_perf_mon.ko" || die "insmod perf_mon"; gr_fresh ;;
	gr_flt:before)
		insmod "$KODIR/modules/grtrace_filter.ko" || die "insmod filter"
		echo 1 >"$G/filter_enabled" || die "filter_enabled"
		gr_fresh ;;
	gr_spl:before | gr_splt:before)
		insmod "$KODIR/modules/grtrace_sampling.ko" || die "insmod sampling"
		# An hour: no job is old enough to be written when evicted.
		echo 3600000000000 >"$G/sampling_threshold" || die "sampling_threshold"
		if [[ $v == gr_spl ]]; then
			echo static >"$G/sampling_mode"
			gr_fresh
		else
			echo threshold >"$G/sampling_mode"
			gr_drop sample=100
		fi || die "sampling_mode" ;;
	gr_hook:after) gr_written_check "$m"; rmmod grtrace_hook_test ;;
	gr_agg:after) gr_written_check "$m"; rmmod grtrace_aggregator ;;
	gr_pm:after) gr_written_check "$m"; rmmod grtrace_perf_mon ;;
	gr_flt:after) gr_written_check "$m"; rmmod grtrace_filter ;;
	gr_spl:after) gr_written_check "$m"; rmmod grtrace_sampling ;;
	gr_splt:after) check_stat dropped_hook $((m * N)); gctl stop; rmmod grtrace_sampling ;;
	gr_gseq:after) gr_written_check "$m"; gcfg gseq=0 ;;
	gr_v1:after) gr_written_check "$m"; gcfg gseq=0; gcfg format=2 ;;
	gr_type:before) gr_drop filter_type_mask=0x0 ;;
	gr_type:after)
		check_stat dropped_filtered_type "$N"
		gctl stop; gcfg filter_type_mask=0xffffffff ;;
	gr_sampled:before) gr_drop sample=0 ;;
	gr_sampled:after) check_stat dropped_sampled "$N"; gctl stop; gcfg sample=100 ;;
	gr_ring:before) gr_drop filter_ring_id=5 ;;
	gr_ring:after)
		check_stat dropped_filtered_ring "$N"
		gctl stop; gcfg filter_ring_id=-1 ;;
	gr_rate:before) gr_drop max_events_per_sec=1 ;;
	gr_rate:after)
		# One event per started second gets through.
		check_stat dropped_rate_limited $((N - 5))
		gctl stop; gcfg max_events_per_sec=0 ;;
	gr_stopped:before) gcfg reset_stats ;;
	gr_stopped:after) check_stat dropped_disabled "$N" ;;
	gr_full:before)
		# The smallest buffers, filled on every CPU; nobody reads them.
		echo 64K >"$G/buffer_size" || die "buffer_size refused"
		gctl start
		for ((c = 0; c < NCPU; c++)); do
			taskset -c $c sh -c "echo 'grtrace 20000' >$RUN" || die "filling CPU $c"
		done
		gcfg reset_stats ;;
	gr_full:after) check_stat dropped_buffer_full "$N"; gctl stop ;;
	esac
}

vmode() {
	local all=
	[[ $1 == *_all ]] && all=_all
	case $1 in
	ft_*) echo ftrace$all ;;
	gr_*) echo grtrace$all ;;
	p_*) echo "${1#p_}" ;;
	*) echo empty ;;
	esac
}

# One run of a variant; appends its ns/event (two decimals) to VALS.
run_once() {
	local v
	vstep "$1" before
	echo "$(vmode "$1") $N" >"$RUN" || die "run $(vmode "$1") $N failed"
	v=$(awk '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] }
		printf "%.2f", r["total_ns"] / r["n"]
	}' "$RUN")
	vstep "$1" after
	VALS[$1]+="$v "
}

# stats "VALUE...": "median min" of the blank-separated values.
stats() {
	tr -s ' ' '\n' <<<"$1" | grep . | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1] }'
}

# round_ratios A B: quartiles of A over B round by round, both less the
# round's empty loop.
round_ratios() {
	local -a x y e
	local i
	read -r -a x <<<"${VALS[$1]}"
	read -r -a y <<<"${VALS[$2]}"
	read -r -a e <<<"${VALS[empty]:-}"
	for i in "${!x[@]}"; do
		echo "${x[i]} ${y[i]:-0} ${e[i]:-0}"
	done | awk '$2 - $3 > 0 { print ($1 - $3) / ($2 - $3) }' | sort -n |
		awk -v a="${VNAME[$1]}" -v b="${VNAME[$2]}" '
			{ v[NR] = $1 }
			function q(p) { return v[int(p * (NR - 1) + 1.5)] }
			END {
				if (NR == 0) exit
				printf "%s over %s, %d rounds: min %.2f, quartiles %.2f %.2f %.2f, max %.2f\n",
					a, b, NR, v[1], q(0.25), q(0.5), q(0.75), v[NR]
			}'
}

med_of() { local m; read -r m _ <<<"$(stats "${VALS[$1]:-}")"; echo "${m:-0}"; }

print_table() {
	local id med min ft empty floor one fr
	ft=$(med_of ft_mono)
	empty=$(med_of empty)
	floor=$(med_of p_floor)
	printf '%-38s %8s %8s %8s %8s %8s\n' variant median min "-loop" "/ftrace" "/floor"
	for id in "${VARIANTS[@]}"; do
		[[ $id == *_all || -z ${VALS[$id]:-} ]] && continue
		read -r med min <<<"$(stats "${VALS[$id]}")"
		awk -v n="${VNAME[$id]}" -v m="$med" -v l="$min" -v f="$ft" -v e="$empty" -v fl="$floor" \
			'function r(a, b) { return b > 0 ? sprintf("%8.2f", a / b) : "       -" }
			 BEGIN { printf "%-38s %8.1f %8.1f %8.1f %s %s\n", n, m, l, m - e, r(m, f), r(m - e, fl - e) }'
	done
	echo "(ns per event; median and min of $RUNS runs of $N calls; -loop: median"
	echo " less the empty loop's; /ftrace: median over the mono ftrace median;"
	echo " /floor: -loop over the floor's -loop)"
	if [[ -n ${VALS[p_floor_call]:-} && -n ${VALS[gr_written]:-} ]]; then
		awk -v w="$(med_of gr_written)" -v c="$(med_of p_floor_call)" -v e="$empty" \
			'BEGIN { if (c - e > 0) printf "grtrace written over the floor behind a call (-loop): %.2f\n", (w - e) / (c - e) }'
	fi
	if [[ -n ${VALS[p_floor_irqon]:-} && -n ${VALS[gr_written]:-} ]]; then
		awk -v w="$(med_of gr_written)" -v c="$(med_of p_floor_irqon)" -v e="$empty" \
			'BEGIN { if (c - e > 0) printf "grtrace written over the floor with interrupts on (-loop): %.2f\n", (w - e) / (c - e) }'
	fi
	if [[ -n ${VALS[p_floor]:-} && -n ${VALS[gr_written]:-} ]]; then
		round_ratios gr_written p_floor
		echo "(grtrace written over the floor in each round, both less that"
		echo " round's empty loop)"
	fi
	if [[ -n ${VALS[gr_armed]:-} && -n ${VALS[gr_written]:-} ]]; then
		round_ratios gr_armed gr_written
		echo "(the flight recorder armed over grtrace written, each round; issue 43's"
		echo " target is at most 1.05)"
	fi
	if [[ -n ${VALS[ft_mono]:-} && -n ${VALS[gr_written]:-} ]]; then
		# Round by round, so that a round whose clock reads ran in a
		# slow mode of the emulator's hpet is one quartile's worth.
		round_ratios gr_written ft_mono
	fi
	if [[ -n ${VALS[gr_written]:-} ]]; then
		echo
		printf '%-38s %8s %8s\n' "optional modules loaded" "-loop" "ratio"
		for id in gr_written gr_hook gr_agg gr_pm gr_flt gr_spl gr_splt; do
			[[ -n ${VALS[$id]:-} ]] || continue
			awk -v n="${VNAME[$id]}" -v m="$(med_of "$id")" -v w="$(med_of gr_written)" -v e="$empty" \
				'BEGIN { printf "%-38s %8.1f %8.2f\n", n, m - e, (w - e > 0 ? (m - e) / (w - e) : 0) }'
		done
		echo "(ratio: -loop over grtrace written's -loop, same run.  The events are"
		echo " SUBMITs of distinct jobs: the aggregator's job table fills at 4096 and"
		echo " the rest count as untracked after a full lookup; threshold sampling's"
		echo " table fills too, and each new job then evicts the oldest.)"
	fi
	echo
	printf '%-38s %8s %8s %8s %8s\n' "all $NCPU CPUs at once" "one CPU" "each CPU" "ratio" "/floor"
	fr=$(awk -v o="$(med_of p_floor)" -v a="$(med_of p_floor_all)" \
		'BEGIN { print (o > 0 && a > 0 ? a / o : 0) }')
	for id in "${VARIANTS[@]}"; do
		[[ $id == *_all && -n ${VALS[$id]:-} ]] || continue
		one=$(med_of "${id%_all}")
		med=$(med_of "$id")
		awk -v n="${VNAME[$id]}" -v o="$one" -v a="$med" -v fr="$fr" \
			'function r(a, b) { return b > 0 ? sprintf("%8.2f", a / b) : "       -" }
			 BEGIN { printf "%-38s %8.1f %8.1f %s %s\n", n, o, a, r(a, o), r(o > 0 ? a / o : 0, fr) }'
	done
	echo "(ns per event of one CPU; ratio: each CPU's with all emitting over one"
	echo " CPU's alone, 1.00 when nothing is shared.  Under thread=single TCG one"
	echo " vCPU runs at a time, so the ratio is about the number of CPUs whatever"
	echo " the code; only a run under multi-threaded TCG (-M) shows sharing, and"
	echo " there the emulator slows even the floor, which shares nothing: /floor"
	echo " is the ratio over the floor's ratio, 1.00 when the variant shares no"
	echo " more than the floor does.)"
}

# perf profile of the CPU running 2 N calls of VARIANT.  cpu-clock samples
# cannot land where interrupts are off, so grtrace_event() shows as one
# lump after its local_irq_restore().
profile() {
	local data=/tmp/perf-$1.data
	command -v perf >/dev/null || { note "no perf: no profile"; return; }
	vstep "$1" before
	echo "--- profile: ${VNAME[$1]} ($((2 * N)) calls on CPU 1, perf record -C 1 -e cpu-clock)"
	if perf record -q -C 1 -e cpu-clock -o "$data" -- taskset -c 1 \
		sh -c "echo '$(vmode "$1") $((2 * N))' >$RUN" >/dev/null 2>&1; then
		perf report -i "$data" --stdio --sort sym 2>/dev/null |
			grep -v -e '^#' -e '^$' | head -n 12
	else
		note "perf record failed: no profile"
	fi
	vstep "$1" after
}

guest_main() {
	local r id
	# Nothing is ever loaded into the host's kernel.
	[[ ${GRTRACE_VM:-} == 1 ]] || die "--guest runs only in vmtest.sh's guest"
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	mountpoint -q "$T" || mount -t tracefs none "$T"
	insmod "$GRTRACE_KO" || die "insmod $GRTRACE_KO"
	insmod "$BENCH_KO" || die "insmod $BENCH_KO"
	[[ -w $RUN && -d $EV ]] || die "no $RUN or $EV"

	echo "kernel: $(uname -r)"
	echo "cmdline: $(cat /proc/cmdline)"
	echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	NCPU=$(nproc)
	echo "N=$N runs=$RUNS cpus=$NCPU tcg=$( ((MTTCG)) && echo multi || echo single)"
	echo 32768 >"$T/buffer_size_kb"
	if [[ -n $ONLY ]]; then
		# shellcheck disable=SC2206 # the list splits on blanks and newlines
		VARIANTS=($ONLY)
	fi

	for ((r = 1; r <= RUNS; r++)); do
		for id in "${VARIANTS[@]}"; do
			run_once "$id"
		done
		echo "round $r done" >&2
	done
	for id in "${VARIANTS[@]}"; do
		echo "  ${VNAME[$id]}: ${VALS[$id]}" >&2
	done
	echo
	print_table
	if ((PROFILE && !MTTCG)); then
		profile ft_mono
		profile gr_written
	fi
	rmmod grtrace_bench grtrace
}

# ----------------------------------------------------------------- host ---

# Build output less the note that BTF needs a vmlinux, to stderr (grep -v
# fails when it passes no line on: that is no error here).
quiet() { grep -v 'Skipping BTF' >&2 || true; }

host_main() {
	local kdir a rc=0 out host_cpu gargs=(--guest -n "$N" -r "$RUNS") want=$KVER
	# The stock kernel unless told: setup.sh names it (and installs it).
	# shellcheck source=../setup.sh
	. "$HERE/../setup.sh"
	grtrace_setup >&2 || die "setup failed"
	KVER=${want:-$KVER}
	kdir=/lib/modules/$KVER/build
	if ((BUILD)); then
		make -s -C "$TOP/drivers/gpu/grtrace" KDIR="$kdir" 2>&1 | quiet ||
			die "grtrace.ko does not build"
		make -s -C "$HERE" KDIR="$kdir" 2>&1 | quiet ||
			die "grtrace_bench.ko does not build"
	fi
	[[ -e $GRTRACE_KO && -e $BENCH_KO ]] || die "no $GRTRACE_KO or $BENCH_KO"
	((APPEND_SET)) || APPENDS=('' 'tsc=reliable')
	((PROFILE)) && gargs+=(-p)
	[[ -z $ONLY ]] || gargs+=(-V "$ONLY")
	host_cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	echo "host: $host_cpu, $(nproc) CPUs, $(qemu-system-x86_64 --version | head -n 1)"
	for a in "${APPENDS[@]}"; do
		out=$(mktemp -d /tmp/grtrace-bench.XXXXXX)
		echo
		echo "=== VM run, extra kernel args: '${a}' (output in $out)"
		echo "host load before: $(cut -d' ' -f1-3 /proc/loadavg)"
		# Only the guest's own output is the result; vmtest's notes go to stderr.
		(cd "$TOP" && "$HERE/../vmtest.sh" -k "$KVER" -o "$out" -t 1800 \
			${a:+-a "$a"} -- "$HERE/bench.sh" "${gargs[@]}") || rc=1
		echo "host load after: $(cut -d' ' -f1-3 /proc/loadavg)"
	done
	# Under multi-threaded TCG an emulated device access such as an hpet
	# read takes QEMU's global lock, which serialises the vCPUs: only a
	# clocksource read without it (tsc=reliable) shows the guest's own
	# sharing.  One run per command line, as above.
	((MTTCG)) || return $rc
	for a in "${APPENDS[@]}"; do
		out=$(mktemp -d /tmp/grtrace-bench.XXXXXX)
		echo
		echo "=== VM run under multi-threaded TCG, extra kernel args: '${a}'," \
			"the variants that patch no code (output in $out)"
		(cd "$TOP" && "$HERE/../vmtest.sh" -k "$KVER" -o "$out" -t 1800 -T multi \
			${a:+-a "$a"} -- "$HERE/bench.sh" "${gargs[@]}" -M) || rc=1
	done
	return $rc
}

main() {
	local guest=0 opt
	if [[ ${1:-} == --guest ]]; then
		guest=1
		shift
	fi
	while getopts "n:r:a:k:pBMV:h" opt; do
		case $opt in
		n) N=$OPTARG ;;
		r) RUNS=$OPTARG ;;
		a) APPENDS+=("$OPTARG") APPEND_SET=1 ;;
		k) KVER=$OPTARG ;;
		p) PROFILE=1 ;;
		B) BUILD=0 ;;
		M) MTTCG=1 ;;
		V) ONLY=$OPTARG ;;
		h) usage; exit 0 ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	[[ $N =~ ^[1-9][0-9]*$ && $RUNS =~ ^[1-9][0-9]*$ ]] ||
		die "-n and -r take positive integers"
	for opt in $ONLY; do
		[[ -n ${VNAME[$opt]:-} ]] ||
			die "-V: no variant '$opt' (one of: ${VARIANTS[*]})"
	done
	if ((guest)); then
		((MTTCG)) && [[ -z $ONLY ]] && ONLY=$NOPATCH
		guest_main
	else
		host_main
	fi
}

# One line: bash has read all of it before the script could change.
main "$@"; exit
