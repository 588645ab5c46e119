#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-report.sh - throughput and memory of "grtrace report".
#
# Usage: bench-report.sh [-d DIR] [-c CPUS] [-r RINGS] [-k] [-b REV] [SIZE_MB...]
#        bench-report.sh -T SIZE_DIR
#
# Writes a synthetic trace of each size (default 1024 and 2048 MB) with
# tests/gen-trace into DIR (default /var/tmp), reports it once with every
# summary and no job rows (and once more with --why: its cost is the
# ratio of the two), once as CSV and once as JSON of every job to
# /dev/null, under /usr/bin/time -v; prints per run the records, events/s
# and MB/s (on the wall clock and on CPU time: other load on the machine
# slows the first only) and the peak RSS.  The same RSS at both sizes
# shows that memory does not grow with the trace.  -k keeps the traces.
# The trace is read once before timing, so it comes from the page cache.
# -b REV: before and after in one run: also builds the tool of git
# revision REV (tools/grtrace and include/uapi of it, in a temporary
# directory) and runs each report with it right before this tree's, on
# the same trace; its lines are marked "REV", this tree's "tree".
#
# Then the ratios, on CPU time (user + system, from wait4(): the other
# work on the machine does not count), each the least of 5 runs of each
# command (20 of cat), every run timed on its own:
#   report/cat = R    the summaries' rate over that of "cat FILE >
#                     /dev/null" of the same file (the page cache copied
#                     once: what reading it costs at all); and the same
#                     for "report --limit 0" (no summaries), and for both
#                     with the merge in a thread of its own
#                     (GRTRACE_THREADS=2; one thread is the default)
#   wall: report/cat  the same on the wall clock (the least of as many
#                     runs): what a user waits, the merge thread's
#                     work beside the analysis's counted once
#   dump tree/base = D  with -b: "grtrace dump" of this tree over REV's
#                     (both to /dev/null); and report/cat of REV
#
# -T: against trace-cmd.  SIZE_DIR is the output of
# tools/testing/selftests/grtrace/bench/file_size.sh, which recorded one
# real drm_sched workload with grtrace and trace-cmd at once
# (default.gdat, default.tdat): the CPU time of "grtrace report" (the
# summaries, and CSV of every job) and of "trace-cmd report" on the same
# jobs, in events per second, and their ratio.

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOOL=$HERE/grtrace
GEN=$HERE/tests/gen-trace
DIR=/var/tmp CPUS=4 RINGS=8 KEEP=0 VS= BASE=

while getopts 'd:c:r:kT:b:h' opt; do
	case $opt in
	d) DIR=$OPTARG ;;
	c) CPUS=$OPTARG ;;
	r) RINGS=$OPTARG ;;
	k) KEEP=1 ;;
	T) VS=$OPTARG ;;
	b) BASE=$OPTARG ;;
	*) sed -n '4,42p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 1024 2048
[ -x /usr/bin/time ] || { echo "bench-report: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
make -s -C "$HERE" grtrace tests/gen-trace || exit 1
TOOLS=("$TOOL") MARKS=("")
if [ -n "$BASE" ]; then
	BTREE=$(mktemp -d)
	trap 'rm -rf "$BTREE"' EXIT
	git -C "$HERE/../.." archive "$BASE" -- tools/grtrace include/uapi |
		tar -x -C "$BTREE" &&
	make -s -C "$BTREE/tools/grtrace" grtrace >/dev/null ||
		{ echo "bench-report: cannot build the tool of $BASE" >&2; exit 1; }
	TOOLS=("$BTREE/tools/grtrace/grtrace" "$TOOL")
	MARKS=("$(git -C "$HERE" rev-parse --short "$BASE")" "tree")
fi

# run NAME TRACE ARGS...: one timed report; prints its line of figures.
run() {
	local name=$1 trace=$2 log records wall user sys rss mb
	shift 2

	log=$(mktemp)
	/usr/bin/time -v "$RTOOL" report -i "$trace" "$@" 2>"$log" >/dev/null ||
		{ echo "bench-report: report failed:" >&2; cat "$log" >&2; exit 1; }
	records=$("$TOOL" report -i "$trace" --limit 0 | sed -n 's/^records:  \([0-9]*\):.*/\1/p')
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" |
	       awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
	user=$(sed -n 's/.*User time (seconds): //p' "$log")
	sys=$(sed -n 's/.*System time (seconds): //p' "$log")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
	mb=$(( $(stat -c %s "$trace") / 1000000 ))
	awk -v n="$name" -v mb="$mb" -v r="$records" -v w="$wall" -v u="$user" \
	    -v s="$sys" -v rss="$rss" 'BEGIN {
		c = u + s
		printf "%-26s %6d MB %10d records  wall %6.2f s: %5.1f M events/s %6.0f MB/s  cpu %6.2f s: %5.1f M events/s %6.0f MB/s  peak RSS %6.1f MB\n",
		       n, mb, r, w, r / w / 1e6, mb / w, c, r / c / 1e6, mb / c, rss / 1024
	}'
	rm -f "$log"
}

# least MODE K CMD...: the least, over K runs of CMD (its output to
# /dev/null), of its CPU time (MODE cpu: user + system of that process
# and its children, from wait4(), in microseconds) or of its wall clock
# time (MODE wall), in s.  Each run is timed on its own, with no shell
# between: "cat" of a file in the page cache takes a few tens of ms,
# where /usr/bin/time's 10 ms steps and a shell's fork would weigh.
least() {
	local mode=$1 k=$2
	shift 2
	python3 - "$mode" "$k" "$@" <<'PY'
import os, sys, time
mode, k, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
null = os.open(os.devnull, os.O_WRONLY)
acts = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
best = None
for _ in range(k):
    t0 = time.monotonic()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=acts)
    _, status, ru = os.wait4(pid, 0)
    t = time.monotonic() - t0
    if status:
        sys.exit("bench-report: %s failed (status %d)" % (" ".join(cmd), status))
    v = ru.ru_utime + ru.ru_stime if mode == "cpu" else t
    best = v if best is None else min(best, v)
print("%.6f" % best)
PY
}

# cpu_best CMD...: the CPU time of one run of CMD, the least of 30 (a
# recording of the file size benchmark reads in tens of ms).
cpu_best() {
	least cpu 30 "$@"
}

# cpu_min N CMD...: the least CPU time of CMD over 5 N runs.
cpu_min() {
	local n=$1
	shift
	least cpu $((5 * n)) "$@"
}

# wall_min N CMD...: the least wall clock time of CMD over 5 N runs.
wall_min() {
	local n=$1
	shift
	least wall $((5 * n)) "$@"
}

# ratios TRACE: the ratio lines (see the top).
ratios() {
	local trace=$1 cat rep plain rep2 plain2 wcat wrep wplain wrep2 d0 d1
	local s="--per-ring --per-ctx --topn 10 --hist lat --limit 0"
	cat=$(cpu_min 4 cat "$trace")
	# shellcheck disable=SC2086 # $s is the summaries' options
	rep=$(cpu_min 1 "$TOOL" report -i "$trace" $s)
	plain=$(cpu_min 1 "$TOOL" report -i "$trace" --limit 0)
	# shellcheck disable=SC2086
	rep2=$(GRTRACE_THREADS=2 cpu_min 1 "$TOOL" report -i "$trace" $s)
	plain2=$(GRTRACE_THREADS=2 cpu_min 1 "$TOOL" report -i "$trace" --limit 0)
	wcat=$(wall_min 4 cat "$trace")
	# shellcheck disable=SC2086
	wrep=$(wall_min 1 "$TOOL" report -i "$trace" $s)
	wplain=$(wall_min 1 "$TOOL" report -i "$trace" --limit 0)
	# shellcheck disable=SC2086
	wrep2=$(GRTRACE_THREADS=2 wall_min 1 "$TOOL" report -i "$trace" $s)
	awk -v c="$cat" -v r="$rep" -v p="$plain" -v r2="$rep2" -v p2="$plain2" \
	    -v wc="$wcat" -v wr="$wrep" -v wp="$wplain" -v wr2="$wrep2" 'BEGIN {
		printf "cpu: cat %.3f s, report (summaries) %.3f s, report --limit 0 %.3f s; two threads %.3f s, %.3f s\n", c, r, p, r2, p2
		printf "report/cat = %.2f (summaries; target >= 0.20)\n", c / r
		printf "report --limit 0/cat = %.2f\n", c / p
		printf "two threads: report/cat = %.2f (summaries), report --limit 0/cat = %.2f\n", c / r2, c / p2
		printf "wall: cat %.3f s, report (summaries) %.3f s, report --limit 0 %.3f s; two threads (summaries) %.3f s\n", wc, wr, wp, wr2
		printf "wall: report/cat = %.2f (summaries), report --limit 0/cat = %.2f; two threads %.2f (summaries)\n", wc / wr, wc / wp, wc / wr2
	}'
	[ -n "$BASE" ] || return 0
	rep=$(cpu_min 1 "${TOOLS[0]}" report -i "$trace" --per-ring --per-ctx --topn 10 --hist lat --limit 0)
	plain=$(cpu_min 1 "${TOOLS[0]}" report -i "$trace" --limit 0)
	awk -v c="$cat" -v r="$rep" -v p="$plain" -v rev="${MARKS[0]}" 'BEGIN {
		printf "cpu %s: report (summaries) %.3f s, report --limit 0 %.3f s\n", rev, r, p
		printf "report/cat of %s = %.2f (summaries), %.2f (--limit 0)\n", rev, c / r, c / p
	}'
	d0=$(cpu_min 1 "${TOOLS[0]}" dump -i "$trace")
	d1=$(cpu_min 1 "$TOOL" dump -i "$trace")
	awk -v a="$d0" -v b="$d1" -v rev="${MARKS[0]}" 'BEGIN {
		printf "cpu: dump %s %.3f s, dump tree %.3f s\n", rev, a, b
		printf "dump tree/base = %.1f (base %s; target >= 2)\n", a / b, rev
	}'
}

# vs_tracecmd DIR: grtrace report and trace-cmd report on the same jobs.
vs_tracecmd() {
	local g=$1/default.gdat t=$1/default.tdat gev tev gs gc ts
	[ -s "$g" ] && [ -s "$t" ] ||
		{ echo "bench-report: no $g or $t (run file_size.sh first)" >&2; exit 1; }
	command -v trace-cmd >/dev/null ||
		{ echo "bench-report: needs trace-cmd (apt-get install trace-cmd)" >&2; exit 1; }
	gev=$("$TOOL" report -i "$g" --limit 0 | sed -n 's/^records:  \([0-9]*\):.*/\1/p')
	tev=$(trace-cmd report -i "$t" 2>/dev/null | grep -c ' drm_')
	gs=$(cpu_best "$TOOL" report -i "$g" --per-ring --per-ctx --topn 10 --hist lat --limit 0)
	gc=$(cpu_best "$TOOL" report -i "$g" --format csv)
	ts=$(cpu_best trace-cmd report -i "$t")
	awk -v ge="$gev" -v te="$tev" -v gs="$gs" -v gc="$gc" -v ts="$ts" 'BEGIN {
		printf "%-34s %9d events  cpu %7.3f s  %6.2f M events/s\n", "grtrace report (summaries)", ge, gs, ge / gs / 1e6
		printf "%-34s %9d events  cpu %7.3f s  %6.2f M events/s\n", "grtrace report --format csv", ge, gc, ge / gc / 1e6
		printf "%-34s %9d events  cpu %7.3f s  %6.2f M events/s\n", "trace-cmd report", te, ts, te / ts / 1e6
		printf "ratio of events/s to trace-cmd report: summaries %.1f, csv %.1f\n", (ge / gs) / (te / ts), (ge / gc) / (te / ts)
	}'
}

if [ -n "$VS" ]; then
	vs_tracecmd "$VS"
	exit
fi

for size in "$@"; do
	trace=$DIR/grtrace-bench-$size.dat
	[ -s "$trace" ] || "$GEN" -c "$CPUS" -r "$RINGS" "$size" "$trace" || exit 1
	cat "$trace" > /dev/null
	for i in "${!TOOLS[@]}"; do
		RTOOL=${TOOLS[$i]} M=${MARKS[$i]:+ ${MARKS[$i]}}
		run "summaries$M" "$trace" --per-ring --per-ctx --topn 10 --hist lat --limit 0
	done
	# --why beside the same summaries without it: their ratio is its cost.
	for i in "${!TOOLS[@]}"; do
		RTOOL=${TOOLS[$i]} M=${MARKS[$i]:+ ${MARKS[$i]}}
		run "summaries --why$M" "$trace" --per-ring --per-ctx --topn 10 --hist lat --limit 0 --why
	done
	for i in "${!TOOLS[@]}"; do
		RTOOL=${TOOLS[$i]} M=${MARKS[$i]:+ ${MARKS[$i]}}
		run "csv of every job$M" "$trace" --format csv
	done
	for i in "${!TOOLS[@]}"; do
		RTOOL=${TOOLS[$i]} M=${MARKS[$i]:+ ${MARKS[$i]}}
		run "json of every job$M" "$trace" --format json
	done
	ratios "$trace"
	[ "$KEEP" = 1 ] || rm -f "$trace"
done
