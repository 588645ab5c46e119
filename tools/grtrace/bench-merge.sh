#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-merge.sh - megabytes per second of CPU-side input that
# scripts/merge_timeline.py reads: trace-cmd's trace.dat (through
# libgrtrace and libtracecmd) and the text fallback, in one run.
#
# Usage: bench-merge.sh [-d DIR] [SIZE_MB]
#
# Writes into DIR (default /var/tmp) a synthetic trace.dat of SIZE_MB
# (default 64) with tests/gen-tracedat.py (ioctls of 8 threads on 2 CPUs,
# the headers of the guest recording tests/tracedat/ioctl-v6.dat), the
# "trace-cmd report" text of one of SIZE_MB/16 (the text path is slow: the
# rate is what counts), and a 1 MB grtrace file (tests/gen-trace) for the
# GPU side; reads them once into the page cache, then times on CPU (user
# + system, the best of 3) merge_timeline.py writing the whole timeline
# to /dev/null:
#   trace.dat               the library reads, pairs and prints the ioctls
#   trace.dat --stats-only  the same without the timeline
#   text                    trace-cmd report text, parsed in Python
# and prints each one's input size, CPU time and MB/s (1 MB = 10^6 bytes).

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
DIR=/var/tmp
while getopts 'd:h' opt; do
	case $opt in
	d) DIR=$OPTARG ;;
	*) sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
SIZE=${1:-64}
command -v trace-cmd > /dev/null ||
	{ echo "bench-merge.sh: trace-cmd is needed for the text (apt-get install trace-cmd)" >&2; exit 1; }
make -s -C "$HERE" libs tests/gen-trace || exit 1
dat=$DIR/grtrace-bench-merge-$SIZE.dat
small=$DIR/grtrace-bench-merge-small.dat
txt=$DIR/grtrace-bench-merge-small.txt
gpu=$DIR/grtrace-bench-merge-gpu.dat
trap 'rm -f "$dat" "$small" "$txt" "$gpu"' EXIT
python3 "$HERE/tests/gen-tracedat.py" "$SIZE" "$dat" || exit 1
python3 "$HERE/tests/gen-tracedat.py" "$(awk -v s="$SIZE" 'BEGIN { print s / 16 }')" "$small" || exit 1
trace-cmd report -i "$small" > "$txt" || exit 1
"$HERE/tests/gen-trace" -c 4 -r 8 1 "$gpu" > /dev/null || exit 1
cat "$dat" "$txt" "$gpu" > /dev/null
export GRTRACE_LIB=$HERE/lib/libgrtrace.so.1
MT=$HERE/scripts/merge_timeline.py

# cpu CMD...: the least CPU time (s) of 3 runs of CMD.
cpu() {
	local t best='' f
	f=$(mktemp)
	for _ in 1 2 3; do
		/usr/bin/time -f '%U %S' -o "$f" "$@" > /dev/null || { rm -f "$f"; return 1; }
		t=$(awk 'END { print $1 + $2 }' "$f")
		best=$(awk -v a="${best:-$t}" -v b="$t" 'BEGIN { print (b < a ? b : a) }')
	done
	rm -f "$f"
	echo "$best"
}

ioctls() {
	python3 "$MT" --cpu "$1" --gpu "$gpu" --stats-only | sed -n 's/^ioctls: \([0-9]*\) .*/\1/p'
}

full=$(cpu python3 "$MT" --cpu "$dat" --gpu "$gpu") || exit 1
stats=$(cpu python3 "$MT" --cpu "$dat" --gpu "$gpu" --stats-only) || exit 1
text=$(cpu python3 "$MT" --cpu "$txt" --gpu "$gpu") || exit 1
awk -v dsz="$(stat -c %s "$dat")" -v tsz="$(stat -c %s "$txt")" \
    -v dn="$(ioctls "$dat")" -v tn="$(ioctls "$txt")" \
    -v f="$full" -v s="$stats" -v t="$text" 'BEGIN {
	line("trace.dat", dsz, dn, f)
	line("trace.dat --stats-only", dsz, dn, s)
	line("text (trace-cmd report)", tsz, tn, t)
}
function line(name, size, n, t) {
	printf "%-24s %7.1f MB  %8d ioctls  cpu %6.2f s  %7.1f MB/s  %5.2f M ioctls/s\n",
	       name, size / 1e6, n, t, size / t / 1e6, n / t / 1e6
}'
