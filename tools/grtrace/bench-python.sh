#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-python.sh - records per second of the Python side against
# "grtrace dump", all on one synthetic trace, in one run.
#
# Usage: bench-python.sh [-d DIR] [SIZE_MB]
#
# Writes a trace of SIZE_MB (default 64) with tests/gen-trace into DIR
# (default /var/tmp), reads it once into the page cache, then times on CPU
# (user + system, the best of 3 timings of 5 runs):
#   grtrace dump            the C decoder, every record as a text line
#   grtrace raw_records  the binding's reused ctypes record, every record
#   grtrace records      a Record object per record
#   grtrace jobs         every job with its metrics (the report engine)
#   parse_events.py --json  the script: the library formats its rows
#                           (grtrace_next_rows()), Python writes them
#   parse_events.py         the same in CSV
# and prints each one's records/s and its ratio to dump's; then the
# ratio lines:
#   python/dump = R                 raw_records()'s rate over dump's
#   parse_events.py peak RSS = N MB the larger of its two runs'
# Python is Debian's /usr/bin/python3 where there is one (the one the
# module is packaged for; a pyenv shim first on PATH adds half a second
# of start-up to every run), else python3; $PYTHON overrides.

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
DIR=/var/tmp
while getopts 'd:h' opt; do
	case $opt in
	d) DIR=$OPTARG ;;
	*) sed -n '4,26p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
SIZE=${1:-64}
make -s -C "$HERE" grtrace libs tests/gen-trace || exit 1
trace=$DIR/grtrace-bench-py-$SIZE.dat
trap 'rm -f "$trace"' EXIT
"$HERE/tests/gen-trace" -c 4 -r 8 "$SIZE" "$trace" || exit 1
cat "$trace" > /dev/null
export GRTRACE_LIB=$HERE/lib/libgrtrace.so.1 PYTHONPATH=$HERE/python
PY=${PYTHON:-python3}
[ -z "${PYTHON:-}" ] && [ -x /usr/bin/python3 ] && PY=/usr/bin/python3

records() {
	"$HERE/grtrace" report -i "$1" --limit 0 | sed -n 's/^records:  \([0-9]*\):.*/\1/p'
}

# cpu CMD...: the CPU time (s) of one run of CMD, the least of 3 timings
# of 5 runs each (/usr/bin/time counts in 10 ms: a run of 60 ms alone
# would be read 17 % off).
cpu() {
	local i t best= f
	f=$(mktemp)
	for i in 1 2 3; do
		/usr/bin/time -f '%U %S' -o "$f" bash -c \
			'for _ in 1 2 3 4 5; do "$@" > /dev/null || exit 1; done' _ "$@" ||
			{ rm -f "$f"; return 1; }
		t=$(awk 'END { print ($1 + $2) / 5 }' "$f")
		best=$(awk -v a="${best:-$t}" -v b="$t" 'BEGIN { print (b < a ? b : a) }')
	done
	rm -f "$f"
	echo "$best"
}

# rss CMD...: peak RSS (kB) of one run of CMD.
rss() {
	local f k
	f=$(mktemp)
	/usr/bin/time -f '%M' -o "$f" "$@" > /dev/null || { rm -f "$f"; return 1; }
	k=$(tail -n 1 "$f")
	rm -f "$f"
	echo "$k"
}

n=$(records "$trace")
dump=$(cpu "$HERE/grtrace" dump -i "$trace")
raw=$(cpu "$PY" -c 'import grtrace, sys
n = 0
for r in grtrace.Trace(sys.argv[1]).raw_records():
    n += 1' "$trace")
obj=$(cpu "$PY" -c 'import grtrace, sys
n = 0
for r in grtrace.Trace(sys.argv[1]).records():
    n += 1' "$trace")
jobs=$(cpu "$PY" -c 'import grtrace, sys
n = 0
for j in grtrace.Trace(sys.argv[1]).jobs():
    n += 1' "$trace")
pe=$(cpu "$PY" "$HERE/scripts/parse_events.py" --json "$trace")
pc=$(cpu "$PY" "$HERE/scripts/parse_events.py" "$trace")
rss_csv=$(rss "$PY" "$HERE/scripts/parse_events.py" "$trace")
rss_json=$(rss "$PY" "$HERE/scripts/parse_events.py" --json "$trace")
awk -v n="$n" -v d="$dump" -v c="$pc" -v r="$raw" -v o="$obj" -v j="$jobs" -v p="$pe" \
    -v rc="$rss_csv" -v rj="$rss_json" -v mb=$(( $(stat -c %s "$trace") / 1000000 )) 'BEGIN {
	line("grtrace dump", n, d)
	line("grtrace raw_records", n, r)
	line("grtrace records", n, o)
	line("grtrace jobs", n, j)
	line("parse_events.py --json", n, p)
	line("parse_events.py (CSV)", n, c)
	printf "python/dump = %.2f (raw_records(); records() %.2f; target >= 0.5)\n", d / r, d / o
	printf "parse_events.py peak RSS = %.0f MB (CSV %.1f, --json %.1f; %d MB trace; target <= 64)\n",
	       (rc > rj ? rc : rj) / 1024, rc / 1024, rj / 1024, mb
}
function line(name, recs, t) {
	printf "%-26s %9d records  cpu %7.2f s  %6.2f M records/s  %5.1f %% of dump\n",
	       name, recs, t, recs / t / 1e6, 100 * (recs / t) / (n / d)
}'
