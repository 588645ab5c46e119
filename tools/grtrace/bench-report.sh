#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-report.sh - throughput and memory of "grtrace report".
#
# Usage: bench-report.sh [-d DIR] [-c CPUS] [-r RINGS] [-k] [SIZE_MB...]
#
# Writes a synthetic trace of each size (default 1024 and 2048 MB) with
# tests/gen-trace into DIR (default /var/tmp), reports it once with every
# summary and no job rows, and once as CSV of every job to /dev/null, under
# /usr/bin/time -v; prints per run the records, events/s and MB/s (on the
# wall clock and on CPU time: other load on the machine slows the first
# only) and the peak RSS.  The same RSS at both sizes shows that memory
# does not grow with the trace.  -k keeps the traces.  The trace is read
# once before timing, so it comes from the page cache.

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOOL=$HERE/grtrace
GEN=$HERE/tests/gen-trace
DIR=/var/tmp CPUS=4 RINGS=8 KEEP=0

while getopts 'd:c:r:kh' opt; do
	case $opt in
	d) DIR=$OPTARG ;;
	c) CPUS=$OPTARG ;;
	r) RINGS=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 1024 2048
[ -x /usr/bin/time ] || { echo "bench-report: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
make -s -C "$HERE" grtrace tests/gen-trace || exit 1

# run NAME TRACE ARGS...: one timed report; prints its line of figures.
run() {
	local name=$1 trace=$2 log records wall user sys rss mb
	shift 2

	log=$(mktemp)
	/usr/bin/time -v "$TOOL" report -i "$trace" "$@" 2>"$log" >"$log.out" ||
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
		printf "%-22s %6d MB %10d records  wall %6.2f s: %5.1f M events/s %6.0f MB/s  cpu %6.2f s: %5.1f M events/s %6.0f MB/s  peak RSS %6.1f MB\n",
		       n, mb, r, w, r / w / 1e6, mb / w, c, r / c / 1e6, mb / c, rss / 1024
	}'
	rm -f "$log" "$log.out"
}

for size in "$@"; do
	trace=$DIR/grtrace-bench-$size.dat
	[ -s "$trace" ] || "$GEN" -c "$CPUS" -r "$RINGS" "$size" "$trace" || exit 1
	cat "$trace" > /dev/null
	run "summaries" "$trace" --per-ring --per-ctx --topn 10 --hist lat --limit 0
	run "csv of every job" "$trace" --format csv
	[ "$KEEP" = 1 ] || rm -f "$trace"
done
