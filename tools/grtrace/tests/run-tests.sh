#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the grtrace tool, run by "make check".  Prints TAP 13 and
# exits non-zero if any test fails.
#
# Environment: GRTRACE (the built tool), TEST_STREAM (the library's unit
# tests, lib/tests/test-stream), TEST_TOOL (the tool's, tests/test-drm-clients),
# GOLDEN (tools/testing/selftests/grtrace/golden), GEN_TRACE (the
# synthetic trace generator), FUZZ (the libFuzzer target, if clang built
# it), FUZZ_SEED and FUZZ_SEEDS (tests/mutate.py's seeds: FUZZ_SEEDS of
# them, 10, from FUZZ_SEED, 1; under SAN=1, 5 from 11).  No kernel module is involved:
# start/stop/status/config/record and live report run against a fake
# debugfs directory given by GRTRACE_DEBUGFS.

set -u

: "${GRTRACE:=./grtrace}"
: "${TEST_STREAM:=./lib/tests/test-stream}"
: "${TEST_TOOL:=./tests/test-drm-clients}"
: "${GOLDEN:=../testing/selftests/grtrace/golden}"
: "${GEN_TRACE:=./tests/gen-trace}"
: "${FUZZ:=./tests/fuzz-report}"
TESTS=$(dirname "$0")

TMP=$(mktemp -d "${TMPDIR:-/tmp}/grtrace-test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
RESULTS=$TMP/results
: > "$RESULTS"

# ok NAME / not_ok NAME [DIAG...]: record a result.
ok() {
	echo "ok $1" >> "$RESULTS"
}

not_ok() {
	name=$1
	shift
	echo "not ok $name" >> "$RESULTS"
	for d in "$@"; do
		printf '%s\n' "$d" | sed 's/^/# /' >> "$RESULTS"
	done
}

# result NAME COND_STATUS [DIAG...]
result() {
	name=$1
	status=$2
	shift 2
	if [ "$status" -eq 0 ]; then ok "$name"; else not_ok "$name" "$@"; fi
}

# run CMD...: run with stdout/stderr to $TMP/out, $TMP/err; status in $rc.
run() {
	"$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
}

# ---- decoder unit tests ------------------------------------------------

"$TEST_STREAM" "$GOLDEN" > "$TMP/unit" 2>&1
unit_rc=$?
grep -E '^(ok |not ok |# )' "$TMP/unit" >> "$RESULTS"
if [ $unit_rc -eq 0 ]; then
	ok "decoder unit tests exited cleanly"
else
	not_ok "decoder unit tests exited cleanly" \
		"exit status $unit_rc" "$(grep -vE '^(ok |not ok |# )' "$TMP/unit" | head -20)"
fi
"$TEST_TOOL" > "$TMP/unit" 2>&1
unit_rc=$?
grep -E '^(ok |not ok |# )' "$TMP/unit" >> "$RESULTS"
result "the tool's unit tests exited cleanly" $unit_rc \
	"exit status $unit_rc" "$(grep -vE '^(ok |not ok |# )' "$TMP/unit" | head -20)"

# ---- golden vectors ------------------------------------------------------

if command -v python3 > /dev/null 2>&1; then
	run python3 "$GOLDEN/gen_golden.py" --check
	result "golden files match gen_golden.py" $rc "$(cat "$TMP/err")"
else
	ok "golden files match gen_golden.py # SKIP no python3"
fi

for v in emit-basic rings; do
	run "$GRTRACE" dump -i "$GOLDEN/$v.bin"
	st=$rc
	cmp -s "$TMP/out" "$GOLDEN/$v.dump" || st=1
	[ -s "$TMP/err" ] && st=1
	result "dump $v.bin matches $v.dump" $st \
		"exit $rc" "$(diff "$GOLDEN/$v.dump" "$TMP/out" | head -20)" \
		"$(cat "$TMP/err")"
done

# Format 2: the golden records of one CPU in a trace file, and bare.
run "$GRTRACE" dump -i "$GOLDEN/emit-basic-v2.grf"
st=$rc
cmp -s "$TMP/out" "$GOLDEN/emit-basic-v2.dump" || st=1
[ -s "$TMP/err" ] && st=1
result "dump emit-basic-v2.grf (format 2) matches emit-basic-v2.dump" $st \
	"exit $rc" "$(diff "$GOLDEN/emit-basic-v2.dump" "$TMP/out" | head -20)" \
	"$(cat "$TMP/err")"
run "$GRTRACE" dump -i "$GOLDEN/emit-basic-v2.bin"
st=0
[ $rc -eq 1 ] && [ ! -s "$TMP/out" ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: $GOLDEN/emit-basic-v2.bin: a format 2 stream outside a trace file does not say its CPU: name it with --channel CPU, or record with 'grtrace record'" ] || st=1
result "dump of a bare format 2 stream: one line saying why it cannot be read" $st \
	"exit $rc" "$(cat "$TMP/err")"
run "$GRTRACE" dump --channel 0 -i "$GOLDEN/emit-basic-v2.bin"
st=$rc
cmp -s "$TMP/out" "$GOLDEN/emit-basic-v2.dump" || st=1
[ -s "$TMP/err" ] && st=1
run "$GRTRACE" dump --channel 3 -i - < "$GOLDEN/emit-basic-v2.bin"
sed 's/^\([0-9]*\) 0 /\1 3 /' "$GOLDEN/emit-basic-v2.dump" | cmp -s - "$TMP/out" || st=1
result "dump --channel CPU reads one channel's format 2 records, as CPU's" $st \
	"exit $rc" "$(cat "$TMP/err")"
run "$GRTRACE" dump --channel x -i "$GOLDEN/emit-basic-v2.bin"
st=0
[ $rc -eq 2 ] && grep -q "invalid CPU 'x' for --channel" "$TMP/err" || st=1
result "dump --channel with a bad CPU: usage error naming it" $st "exit $rc" "$(cat "$TMP/err")"
# A format 1 channel: read as its STREAM_INFO says (24 bytes sniffed did
# not hold a format 1 one, and with no module it was read as format 2).
GRTRACE_DEBUGFS=$TMP/nowhere run "$GRTRACE" dump --channel 0 -i "$GOLDEN/emit-basic.bin"
st=$rc
cmp -s "$TMP/out" "$GOLDEN/emit-basic.dump" || st=1
[ -s "$TMP/err" ] && st=1
result "dump --channel of a format 1 stream with no module: read as format 1" $st \
	"exit $rc" "$(head -n 3 "$TMP/out")" "$(cat "$TMP/err")"
# The CPU is read back from the end of the channel's label: a long path
# cut it off, and the records were shown as CPU 0's.
long=$TMP/a-rather-long-directory-name-for-captures-2024-and-some-more-of-it
mkdir -p "$long"
cp "$GOLDEN/emit-basic-v2.bin" "$long/cpu3.bin"
run "$GRTRACE" dump --channel 3 -i "$long/cpu3.bin"
st=$rc
sed 's/^\([0-9]*\) 0 /\1 3 /' "$GOLDEN/emit-basic-v2.dump" | cmp -s - "$TMP/out" || st=1
result "dump --channel 3 of a file with a long path: its records are CPU 3's" $st \
	"exit $rc" "$(head -n 3 "$TMP/out")" "$(cat "$TMP/err")"
# export -o FILE: an existing FILE is kept when the input cannot be read
# (it was emptied first), and replaced by a good export.
echo precious > "$TMP/keep.pftrace"
run "$GRTRACE" export -i "$TMP/nonexistent" -o "$TMP/keep.pftrace"
st=0
[ $rc -eq 1 ] && [ "$(cat "$TMP/keep.pftrace")" = precious ] || st=1
run "$GRTRACE" export -i "$GOLDEN/emit-basic-v2.grf" -o "$TMP/keep.pftrace"
[ $rc -eq 0 ] && [ "$(cat "$TMP/keep.pftrace")" != precious ] &&
	[ -s "$TMP/keep.pftrace" ] || st=1
result "export -o FILE with no input keeps FILE; a good export replaces it" $st \
	"exit $rc" "$(cat "$TMP/err")"
# A directory as input: named as such, not as standard input.
run "$GRTRACE" dump -i "$TMP"
st=0
[ $rc -eq 1 ] && [ "$(cat "$TMP/err")" = "grtrace: cannot read $TMP: Is a directory" ] || st=1
result "dump -i DIR: the error names DIR, not <stdin>" $st "exit $rc" "$(cat "$TMP/err")"

"$GRTRACE" dump -i - < "$GOLDEN/emit-basic.bin" > "$TMP/out" 2>&1
st=$?
cmp -s "$TMP/out" "$GOLDEN/emit-basic.dump" || st=1
result "dump -i - reads standard input" $st

"$GRTRACE" dump < "$GOLDEN/rings.bin" > "$TMP/out" 2>&1
st=$?
cmp -s "$TMP/out" "$GOLDEN/rings.dump" || st=1
result "dump without -i reads a non-terminal standard input" $st

# Job lines at the edges of their fields (0, 9/10, 2^64 - 1, the most
# negative errno, every engine, each optional part): dump writes them by
# hand, not with printf(); the script builds each line from the format.
run python3 "$TESTS/dump_format_check.py" "$GRTRACE" "$TMP"
result "dump writes job lines at the edges of their fields as the format says" $rc \
	"$(head -20 "$TMP/out")" "$(head -5 "$TMP/err")"

# Every cut of emit-basic.bin: a clean prefix, or exactly one error line
# naming the start of the cut record, after the lines of the records before.
# The record boundaries are gen_golden.py's, not the decoder's.
bounds=$(cat "$GOLDEN/emit-basic.offsets")
last=$(echo "$bounds" | tail -n 1)
st=0
diag=
[ "$last" = "$(wc -c < "$GOLDEN/emit-basic.bin")" ] || { st=1; diag="emit-basic.offsets ends at $last"; }
len=0
while [ $st -eq 0 ] && [ $len -le "$last" ]; do
	head -c $len "$GOLDEN/emit-basic.bin" > "$TMP/cut.bin"
	"$GRTRACE" dump -i "$TMP/cut.bin" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	nrec=0
	start=0
	for b in $bounds; do
		[ "$b" -gt $len ] && break
		start=$b
		nrec=$((nrec + 1))
	done
	nrec=$((nrec - 1))	# records wholly inside the cut
	head -n $nrec "$GOLDEN/emit-basic.dump" > "$TMP/want"
	if [ $len -eq 0 ]; then
		# Nothing at all: refused as such (one verdict for bad input).
		[ $rc -eq 1 ] && [ "$(cat "$TMP/err")" = "grtrace: $TMP/cut.bin: empty input (0 bytes): not a grtrace trace file or stream" ] ||
			{ st=1; diag="cut 0: exit $rc, stderr: $(cat "$TMP/err")"; }
	elif [ $start -eq $len ]; then
		[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] || { st=1; diag="cut $len: exit $rc"; }
	elif [ $start -eq 0 ]; then
		# Not one whole record: no header, no record, named as such.
		want="grtrace: $TMP/cut.bin: not a grtrace trace file or stream: "
		if [ $rc -ne 1 ] || [ "$(wc -l < "$TMP/err")" -ne 1 ] ||
		   [ "$(head -c ${#want} "$TMP/err")" != "$want" ]; then
			st=1
			diag="cut $len: exit $rc, stderr: $(cat "$TMP/err")"
		fi
	else
		want="grtrace: $TMP/cut.bin: truncated record at byte $start: "
		if [ $rc -ne 1 ] || [ "$(wc -l < "$TMP/err")" -ne 1 ] ||
		   [ "$(head -c ${#want} "$TMP/err")" != "$want" ]; then
			st=1
			diag="cut $len: exit $rc, stderr: $(cat "$TMP/err")"
		fi
	fi
	cmp -s "$TMP/out" "$TMP/want" || { st=1; diag="cut $len: wrong stdout"; }
	[ $st -ne 0 ] && break
	len=$((len + 1))
done
result "dump of emit-basic.bin cut at every length" $st "$diag"

# A record with a bad size after the first one.
corrupt() {
	head -c 64 "$GOLDEN/emit-basic.bin" > "$TMP/bad.bin"
	# type SUBMIT, the given size (two octal bytes), then zeros
	printf "\\001\\000$1" >> "$TMP/bad.bin"
	head -c 300 /dev/zero >> "$TMP/bad.bin"
	run "$GRTRACE" dump -i "$TMP/bad.bin"
	st=0
	[ $rc -eq 1 ] || st=1
	[ "$(cat "$TMP/err")" = "grtrace: $TMP/bad.bin: $2" ] || st=1
	[ "$(cat "$TMP/out")" = "$(head -n 1 "$GOLDEN/emit-basic.dump")" ] || st=1
	result "dump reports $3" $st "exit $rc" "$(cat "$TMP/err")"
}
corrupt '\000\000' "corrupt record at byte 64: size 0 is smaller than the 32-byte header" "size 0"
corrupt '\007\000' "corrupt record at byte 64: size 7 is smaller than the 32-byte header" "size 7"
corrupt '\041\000' "corrupt record at byte 64: size 33 is not a multiple of 8" "size 33"
corrupt '\377\377' "corrupt record at byte 64: size 65535 is not a multiple of 8" "size 65535"
corrupt '\100\000' "corrupt record at byte 64: SUBMIT record of size 64 is smaller than its 72-byte struct" "a SUBMIT smaller than its struct"
corrupt '\000\004' "truncated record at byte 64: size 1024 but only 304 bytes left" "a size past the end"

run "$GRTRACE" dump -i "$TMP/does-not-exist"
st=0
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: cannot open $TMP/does-not-exist: No such file or directory\$" "$TMP/err" || st=1
result "dump of a missing file fails" $st "$(cat "$TMP/err")"

if [ -w /dev/full ]; then
	"$GRTRACE" dump -i "$GOLDEN/emit-basic.bin" > /dev/full 2> "$TMP/err"
	rc=$?
	st=0
	[ $rc -eq 1 ] || st=1
	grep -q "^grtrace: error writing to standard output" "$TMP/err" || st=1
	result "a write error on stdout is an error" $st "exit $rc" "$(cat "$TMP/err")"
fi

# ---- command line ----------------------------------------------------------

run "$GRTRACE" help
st=$rc
grep -q '^Usage: grtrace COMMAND' "$TMP/out" || st=1
for c in start stop status stats config record recorder report diff dump help; do
	grep -q "^  $c " "$TMP/out" || st=1
done
result "help lists the commands" $st

for c in start stop status stats config record report dump; do
	run "$GRTRACE" $c --help
	st=$rc
	cp "$TMP/out" "$TMP/help1"
	grep -q "^Usage: grtrace $c" "$TMP/out" || st=1
	run "$GRTRACE" help $c
	[ $rc -eq 0 ] || st=1
	cmp -s "$TMP/out" "$TMP/help1" || st=1
	result "'$c --help' and 'help $c' agree" $st
done

# The help texts are printed as they are, not as printf formats.
st=0
for c in start stop status stats config record report export dump top; do
	run "$GRTRACE" $c --help
	grep -n '%%' "$TMP/out" >/dev/null && { st=1; echo "# $c --help: %%"; }
done
result "no --help shows a doubled %" $st

run "$GRTRACE" frobnicate
st=0
[ $rc -eq 2 ] || st=1
grep -q "^grtrace: unknown command 'frobnicate'" "$TMP/err" || st=1
grep -q '^Usage: grtrace' "$TMP/err" || st=1
[ -s "$TMP/out" ] && st=1
result "an unknown command exits 2 with usage" $st "exit $rc"

run "$GRTRACE"
st=0
[ $rc -eq 2 ] || st=1
grep -q '^Usage: grtrace' "$TMP/err" || st=1
result "no command exits 2 with usage" $st

run "$GRTRACE" dump --bogus
st=0
[ $rc -eq 2 ] || st=1
[ "$(head -n 1 "$TMP/err")" = "grtrace: dump: unknown option '--bogus'" ] || st=1
result "an unknown option is a usage error: exit 2" $st "exit $rc" "$(cat "$TMP/err")"

for v in --version version; do
	run "$GRTRACE" $v
	st=$rc
	[ "$(cat "$TMP/out")" = "grtrace 0.2.0 (stream formats 1 to 2, trace file versions 1 to 3)" ] || st=1
	[ -s "$TMP/err" ] && st=1
	result "grtrace $v names the version and the formats it reads" $st "$(cat "$TMP/out" "$TMP/err")"
done

for d in 0 -1 abc 1x 5h; do
	run "$GRTRACE" record -o "$TMP/x" -d "$d"
	st=0
	[ $rc -eq 2 ] || st=1
	grep -q "^grtrace: record: invalid duration '$d' (seconds, or a number with ns, us, ms, s or m)" "$TMP/err" || st=1
	result "record rejects -d $d: usage error" $st "exit $rc" "$(cat "$TMP/err")"
done
run "$GRTRACE" report -i x --since 5q
st=0
[ $rc -eq 2 ] && grep -q "^grtrace: report: invalid time '5q' for --since (ns, or a number with ns, us, ms, s or m)" "$TMP/err" || st=1
result "report rejects --since 5q: usage error" $st "exit $rc" "$(cat "$TMP/err")"
run "$GRTRACE" report --live -i x
st=0
[ $rc -eq 2 ] && grep -q "^grtrace: report: --live and -i exclude each other" "$TMP/err" || st=1
result "report --live with -i: usage error" $st "exit $rc" "$(cat "$TMP/err")"
run "$GRTRACE" record extra
st=0
[ $rc -eq 2 ] && grep -q "^grtrace: record: unexpected argument 'extra' (a command goes after --)" "$TMP/err" || st=1
result "record with a stray argument: usage error pointing at --" $st "exit $rc" "$(cat "$TMP/err")"

# ---- report: golden traces -------------------------------------------------

RG=$TMP/report-golden
mkdir -p "$RG"
if command -v python3 > /dev/null 2>&1; then
	python3 "$TESTS/report_golden.py" gen "$RG" &&
		python3 "$TESTS/report_golden.py" check "$GRTRACE" "$RG" > "$TMP/rg" 2>&1
	rg_rc=$?
	grep -E '^(ok |not ok |# )' "$TMP/rg" >> "$RESULTS"
	result "report golden checks ran cleanly" $rg_rc "$(grep -vE '^(ok |not ok |# )' "$TMP/rg" | head -20)"
else
	ok "report golden checks # SKIP no python3"
fi

# ---- report --why: hand-worked traces -----------------------------------------

if command -v python3 > /dev/null 2>&1; then
	python3 "$TESTS/why_golden.py" "$GRTRACE" "$TMP/why-golden" > "$TMP/wg" 2>&1
	wg_rc=$?
	grep -E '^(ok |not ok |# )' "$TMP/wg" >> "$RESULTS"
	result "report --why golden checks ran cleanly" $wg_rc "$(grep -vE '^(ok |not ok |# )' "$TMP/wg" | head -20)"
else
	ok "report --why golden checks # SKIP no python3"
fi

# ---- libgrtrace's ABI: what it exports, and its objects' layering --------------

LIBDIR=$(dirname "$GRTRACE")/lib
st=0
: > "$TMP/abi"
nm -D --defined-only "$LIBDIR/libgrtrace.so.1" | awk 'NF == 3 && $2 ~ /^[TDBRVW]$/ { print $3 }' |
	sed 's/@.*//' | sort > "$TMP/abi.so"
nm -g --defined-only "$LIBDIR/libgrtrace.a" | awk 'NF == 3 && $2 ~ /^[TDBRVW]$/ { print $3 }' |
	sort > "$TMP/abi.a"
grep -v '^grtrace_' "$TMP/abi.so" > "$TMP/abi.bad" && { st=1; echo "the .so exports: $(head -5 "$TMP/abi.bad")" >> "$TMP/abi"; }
grep -v '^grtrace_' "$TMP/abi.a" > "$TMP/abi.bad" && { st=1; echo "the .a exports: $(head -5 "$TMP/abi.bad")" >> "$TMP/abi"; }
cmp -s "$TMP/abi.so" "$TMP/abi.a" || { st=1; echo "the .so and the .a export different symbols" >> "$TMP/abi"; }
grep -qx grtrace_open "$TMP/abi.so" && grep -qx grtrace_dup "$TMP/abi.a" || { st=1; echo "grtrace_open or grtrace_dup missing" >> "$TMP/abi"; }
# Every symbol of the .so carries the version GRTRACE_1.
objdump -T "$LIBDIR/libgrtrace.so.1" | awk '$2 == "g" && $4 != "*UND*" && $6 != "GRTRACE_1" { print $NF }' > "$TMP/abi.bad"
[ -s "$TMP/abi.bad" ] && { st=1; echo "without GRTRACE_1: $(head -5 "$TMP/abi.bad")" >> "$TMP/abi"; }
[ "$(objdump -T "$LIBDIR/libgrtrace.so.1" | grep -c ' GRTRACE_1 *grtrace_')" -eq "$(wc -l < "$TMP/abi.so")" ] ||
	{ st=1; echo "not every grtrace_* is GRTRACE_1" >> "$TMP/abi"; }
# A program linked with the installed-to-be .a alone runs (its objects
# built with the sanitizers under SAN=1).
ABI_SAN=
[ "${GRTRACE_SAN:-}" = 1 ] && ABI_SAN="-fsanitize=address,undefined"
cat > "$TMP/abi.c" <<'EOF_C'
#include <grtrace/grtrace.h>

int main(int argc, char **argv)
{
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	struct grtrace_job job = GRTRACE_JOB_INIT;
	grtrace_trace *t = argc > 1 ? grtrace_open(argv[1], &err) : NULL;
	int n = 0;

	if (!t)
		return 3;
	while (grtrace_next_job(t, &job, &err) > 0)
		n++;
	grtrace_close(t);
	printf("%d jobs\n", n);
	return 0;
}
EOF_C
# shellcheck disable=SC2046 # the flags are words
${CC:-cc} -I"$LIBDIR/include" -o "$TMP/abi-static" "$TMP/abi.c" "$LIBDIR/libgrtrace.a" \
	-lzstd -lm -lpthread $(pkg-config --libs libtracecmd 2>/dev/null) $ABI_SAN >> "$TMP/abi" 2>&1 || st=1
want=$("$GRTRACE" report -i "$TESTS/corpus/report-basic.bin" --format csv | tail -n +2 | wc -l)
[ "$("$TMP/abi-static" "$TESTS/corpus/report-basic.bin" 2>> "$TMP/abi")" = "$want jobs" ] ||
	{ st=1; echo "the static program does not count $want jobs" >> "$TMP/abi"; }
result "libgrtrace: the .so and the .a export only grtrace_* (the same set), every one versioned GRTRACE_1, and the .a links alone" $st "$(cat "$TMP/abi")"

# The sized structs (grtrace.h, "Structs that grow"): clients with
# GRTRACE_1-sized, bigger and too small structs, against the .a (its
# objects with the sanitizers under SAN=1) and against the .so.
st=0
: > "$TMP/abisz"
# shellcheck disable=SC2046 # the flags are words
${CC:-cc} -std=gnu11 -Wall -Werror -I"$LIBDIR/include" -o "$TMP/abi-size" "$TESTS/abi-size.c" \
	"$LIBDIR/libgrtrace.a" -lzstd -lm -lpthread $(pkg-config --libs libtracecmd 2>/dev/null) \
	$ABI_SAN >> "$TMP/abisz" 2>&1 || st=1
${CC:-cc} -std=gnu11 -Wall -Werror -I"$LIBDIR/include" -o "$TMP/abi-size-so" "$TESTS/abi-size.c" \
	-L"$LIBDIR" -lgrtrace -Wl,-rpath,"$(cd "$LIBDIR" && pwd)" $ABI_SAN >> "$TMP/abisz" 2>&1 || st=1
for b in abi-size abi-size-so; do
	[ -x "$TMP/$b" ] || continue
	"$TMP/$b" "$TESTS/corpus/report-basic.bin" > "$TMP/abisz.out" 2>&1 || st=1
	sed "s/^\(not \)*ok /&$b: /" "$TMP/abisz.out" | grep -E '^(ok |not ok |# )' >> "$RESULTS"
	grep -vE '^(ok |not ok |# )' "$TMP/abisz.out" >> "$TMP/abisz"
done
result "libgrtrace: the sized-struct clients (.a and .so) built and ran cleanly" $st "$(head -20 "$TMP/abisz")"

# The layering check: no object of the library or the tool references a
# symbol of an object that reaches it back.
if [ -n "${LAYER_OBJS:-}" ]; then
	# shellcheck disable=SC2086 # a list of objects
	python3 "$TESTS/layering.py" $LAYER_OBJS > "$TMP/layer" 2>&1
	result "layering: the objects of the library and the tool form no circle (nm)" $? "$(cat "$TMP/layer")"
fi

# ---- scripts/parse_events.py against the golden vectors -----------------------

# The scripts load libgrtrace.so.1 through python/grtrace.  Under SAN=1
# the library is built with the sanitizers: Python loads their runtimes
# first, and its own (normal) leaks are not the library's.
PY_ENV=
if [ "$GRTRACE_SAN" = 1 ]; then
	PY_ENV="LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
fi
PE=$TMP/parse-events
mkdir -p "$PE"
env $PY_ENV python3 "$TESTS/parse_events_check.py" "$GOLDEN" "$PE" > "$TMP/pe" 2>&1
pe_rc=$?
grep -E '^(ok |not ok |# )' "$TMP/pe" >> "$RESULTS"
result "parse_events checks ran cleanly" $pe_rc "$(grep -vE '^(ok |not ok |# )' "$TMP/pe" | head -20)"

# ---- the Python binding (python/grtrace over lib/libgrtrace.so.1) -----------
# Debian's python3, for which the module is packaged (with python3-numpy
# for jobs_array()), even where another python3 comes first on PATH.
SYS_PY=python3
[ -x /usr/bin/python3 ] && SYS_PY=/usr/bin/python3
PB=$TMP/python-binding
mkdir -p "$PB"
env $PY_ENV GRTRACE_LIB="$(dirname "$GRTRACE")/lib/libgrtrace.so.1" \
	$SYS_PY "$TESTS/python_check.py" "$GRTRACE" "$GOLDEN" "$TESTS/corpus" "$PB" > "$TMP/pb" 2>&1
pb_rc=$?
grep -E '^(ok |not ok |# )' "$TMP/pb" >> "$RESULTS"
result "python binding checks ran cleanly" $pb_rc "$(grep -vE '^(ok |not ok |# )' "$TMP/pb" | head -20)"

# ---- diff: synthetic pairs worked by hand, and false alarms over many seeds -----
DF=$TMP/diff
mkdir -p "$DF"
env $PY_ENV GRTRACE_LIB="$(dirname "$GRTRACE")/lib/libgrtrace.so.1" \
	python3 "$TESTS/diff_check.py" "$GRTRACE" "$DF" > "$TMP/df" 2>&1
df_rc=$?
grep -E '^(ok |not ok |# )' "$TMP/df" >> "$RESULTS"
result "diff checks ran cleanly" $df_rc "$(grep -vE '^(ok |not ok |# )' "$TMP/df" | head -20)"

# ---- scripts/merge_timeline.py on hand-built inputs ----------------------------

# The script reads both sides through libgrtrace (grtrace.timeline).
MT=$TMP/merge-timeline
mkdir -p "$MT"
env $PY_ENV python3 "$TESTS/merge_timeline_check.py" "$MT" > "$TMP/mt" 2>&1
mt_rc=$?
grep -E '^(ok |not ok |# )' "$TMP/mt" >> "$RESULTS"
result "merge_timeline checks ran cleanly" $mt_rc "$(grep -vE '^(ok |not ok |# )' "$TMP/mt" | head -20)"

# The scripts of the tree read through the tree's binding, also where an
# installed one (python3-grtrace, perhaps older) comes first on the path:
# a decoy package grtrace there that refuses to load.
DECOY=$TMP/decoy
mkdir -p "$DECOY/grtrace"
echo 'raise ImportError("the decoy: an installed grtrace, not the tree'"'"'s")' > "$DECOY/grtrace/__init__.py"
: > "$TMP/no-cpu.txt"
st=0
env $PY_ENV PYTHONPATH="$DECOY" GRTRACE_LIB="$(dirname "$GRTRACE")/lib/libgrtrace.so.1" \
	python3 "$TESTS/../scripts/merge_timeline.py" --cpu "$TMP/no-cpu.txt" --gpu "$GOLDEN/rings.bin" \
	> "$TMP/decoy.out" 2>&1 || st=1
grep -q '^jobs: ' "$TMP/decoy.out" || st=1
env $PY_ENV PYTHONPATH="$DECOY" GRTRACE_LIB="$(dirname "$GRTRACE")/lib/libgrtrace.so.1" \
	python3 "$TESTS/../scripts/parse_events.py" "$GOLDEN/rings.bin" >> "$TMP/decoy.out" 2>&1 || st=1
grep -q decoy "$TMP/decoy.out" && st=1
result "merge_timeline.py and parse_events.py of the tree use its binding, not an installed one first on the path" $st \
	"$(tail -5 "$TMP/decoy.out")"

# ... and on trace-cmd's trace.dat (libtracecmd), with the library built
# without it for the refusal.
MD=$TMP/merge-tracedat
mkdir -p "$MD"
env $PY_ENV GRTRACE_LIB="$(dirname "$GRTRACE")/lib/libgrtrace.so.1" \
	python3 "$TESTS/merge_tracedat_check.py" "$MD" \
	"$(cd "$(dirname "$GRTRACE")" && pwd)/lib/notracecmd/libgrtrace.so.1" > "$TMP/md" 2>&1
md_rc=$?
grep -E '^(ok |not ok |# )' "$TMP/md" >> "$RESULTS"
result "merge_tracedat checks ran cleanly" $md_rc "$(grep -vE '^(ok |not ok |# )' "$TMP/md" | head -20)"

# ---- scripts/visualize_timeline.py (matplotlib: Debian's python3 has it) -------

VI=$TMP/visualize
mkdir -p "$VI"
PYMPL=
for py in /usr/bin/python3 python3; do
	"$py" -c 'import matplotlib' > /dev/null 2>&1 && { PYMPL=$py; break; }
done
if [ -z "$PYMPL" ]; then
	not_ok "visualize checks" "no python3 with matplotlib: apt-get install python3-matplotlib (setup.sh does)"
else
	env $PY_ENV "$PYMPL" "$TESTS/visualize_check.py" "$GRTRACE" "$VI" > "$TMP/vi" 2>&1
	vi_rc=$?
	grep -E '^(ok |not ok |# )' "$TMP/vi" >> "$RESULTS"
	result "visualize checks ran cleanly" $vi_rc "$(grep -vE '^(ok |not ok |# )' "$TMP/vi" | head -20)"
fi

# ---- export: a Perfetto trace, decoded by protoc -------------------------------

EX=$TMP/export
mkdir -p "$EX"
if ! command -v protoc > /dev/null 2>&1; then
	not_ok "export checks" "protoc not found: apt-get install protobuf-compiler (setup.sh does)"
else
	python3 "$TESTS/export_check.py" "$GRTRACE" "$EX" > "$TMP/ex" 2>&1
	ex_rc=$?
	grep -E '^(ok |not ok |# )' "$TMP/ex" >> "$RESULTS"
	result "export checks ran cleanly" $ex_rc "$(grep -vE '^(ok |not ok |# )' "$TMP/ex" | head -20)"
fi

RULES="--long-queue-us 5 --slow-exec-us 9 --dep-wait-us 10"
run "$GRTRACE" report -i "$RG/basic.bin" $RULES --per-ring --topn 2 --hist lat
st=$rc
[ -s "$TMP/err" ] && st=1
grep -q '^window:   1000 \.\. 50000 ns (49000 ns)$' "$TMP/out" || st=1
grep -q '^lost:     none (gseq 0 \.\. 37 has no gap)$' "$TMP/out" || st=1
grep -q '^jobs:     7 (2 incomplete' "$TMP/out" || st=1
grep -q '^ring 0 gfx0 (gfx; testdrv 0000:00:02.0): 4 jobs, busy 65.31% (32000 ns; 68.09% of its active 47.0 us), queue depth avg 1.224 max 3$' "$TMP/out" || st=1
grep -Eq '^100:3 +0 +gfx0 +gfx +1\.000 +16\.000\* +10\.000\* +0\.000 +0\.500 +27\.500  -  +long_queue,slow_exec$' "$TMP/out" || st=1
grep -Eq '^300:7 +1 +sdma0 +copy +- +0\.100 ' "$TMP/out" || st=1
grep -q '^top 2 jobs by t_total' "$TMP/out" || st=1
result "report text: header, ring block, derived start marked, NA as -" $st "$(cat "$TMP/out" "$TMP/err" | head -40)"

# Every option in the option tables is in --help, the man page and the
# completion: report's, then export's.
st=0
missing=
for c in report export; do
	opts=$(sed -n "/^static const struct option ${c}_opts/,/^};/s/^	{ \"\([a-z-]*\)\", *\(required\|no\)_argument.*/\1/p" cmd-report.c)
	run "$GRTRACE" $c --help
	[ $rc -eq 0 ] || { st=1; missing="$missing $c --help exit $rc"; }
	for o in $opts; do
		grep -q -- "--$o" "$TMP/out" || { st=1; missing="$missing $c help:--$o"; }
		grep -q -- "--$o" Documentation/grtrace.rst || { st=1; missing="$missing man:--$o"; }
		sed -n "/^	$c)/,/;;/p" grtrace-completion.bash | grep -q -- "--$o" ||
			{ st=1; missing="$missing $c completion:--$o"; }
	done
	[ "$(echo "$opts" | wc -w)" -ge 10 ] || { st=1; missing="$missing ($c: found only: $opts)"; }
done
result "report and export --help, the man page and the completion name every option" $st "missing:$missing"

# ... and diff's.
st=0
missing=
opts=$(sed -n "/^static const struct option diff_opts/,/^};/s/^	{ \"\([a-z-]*\)\", *\(required\|no\)_argument.*/\1/p" cmd-diff.c)
run "$GRTRACE" diff --help
[ $rc -eq 0 ] || { st=1; missing="$missing diff --help exit $rc"; }
for o in $opts; do
	grep -q -- "--$o" "$TMP/out" || { st=1; missing="$missing diff help:--$o"; }
	grep -q -- "--$o" Documentation/grtrace.rst || { st=1; missing="$missing man:--$o"; }
	sed -n "/^	diff)/,/;;/p" grtrace-completion.bash | grep -q -- "--$o" ||
		{ st=1; missing="$missing diff completion:--$o"; }
done
[ "$(echo "$opts" | wc -w)" -eq 5 ] || { st=1; missing="$missing (diff: found only: $opts)"; }
run "$GRTRACE" --help
grep -q "^  diff  *compare two recordings" "$TMP/out" || { st=1; missing="$missing grtrace --help:diff"; }
result "diff --help, grtrace --help, the man page and the completion name diff and its every option" $st "missing:$missing"

st=0
missing=
for c in start stop status stats config record recorder report diff dump help; do
	grep -q "^$c\$" Documentation/grtrace.rst || { st=1; missing="$missing man:$c"; }
	grep -q "$c" grtrace-completion.bash || { st=1; missing="$missing completion:$c"; }
done
for col in ctx seqno ring ring_name engine t_submit_host t_queue t_exec \
	   t_gpu_wait t_complete t_total start_derived label busy_pct \
	   depth_avg pct_exact bottleneck; do
	grep -q "\`\`$col\`\`" Documentation/grtrace.rst || { st=1; missing="$missing column:$col"; }
done
result "the man page covers every subcommand and column" $st "missing:$missing"

# Every warning report prints is in the man page word for word, with a
# capital letter for each number, and the man page lists no other.
if command -v python3 > /dev/null 2>&1; then
	python3 - lib/report-text.c Documentation/grtrace.rst > "$TMP/out" 2>&1 <<'PY'
import re, sys
src = open(sys.argv[1]).read()
man = re.findall(r"^``(warning:  .*)``$", open(sys.argv[2]).read(), re.M)
fmts = [re.sub(r'%(" PRIu(64|32) "|u|s)', "%", f)
        for f in re.findall(r'"(warning:  .*)\\n",$', src, re.M)]
pats = [re.escape(f).replace("%", "[A-Z]") for f in fmts]
bad = ["not in the man page: " + f for f, p in zip(fmts, pats)
       if not any(re.fullmatch(p, m) for m in man)]
bad += ["not printed by report: " + m for m in man
        if not any(re.fullmatch(p, m) for p in pats)]
if len(fmts) < 8:
    bad.append("only %d warnings found in report-text.c" % len(fmts))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	result "the man page documents every warning of report" $? "$(cat "$TMP/out")"
else
	ok "the man page documents every warning of report # SKIP no python3"
fi

RST2MAN=$(command -v rst2man || command -v rst2man.py)
if [ -n "$RST2MAN" ]; then
	"$RST2MAN" --halt=warning Documentation/grtrace.rst > "$TMP/grtrace.1" 2> "$TMP/err"
	st=$?
	grep -q '^\.TH "\{0,1\}GRTRACE' "$TMP/grtrace.1" || st=1
	result "the man page builds with rst2man, no warning" $st "$(cat "$TMP/err")"
else
	ok "the man page builds with rst2man # SKIP rst2man not installed (python3-docutils)"
fi

# make install: into a staging tree, as a package build does.  The make
# that runs these tests passes its flags on (MAKEFLAGS), so the tool is
# not rebuilt: the installed one is the one tested here.
if [ -n "$RST2MAN" ]; then
	inst=$TMP/inst
	make -s install DESTDIR="$inst" prefix=/usr > "$TMP/out" 2>&1
	st=$?
	for f in bin/grtrace bin/grtrace-bpf-annotate share/man/man1/grtrace.1 \
		 share/grtrace/scripts/parse_events.py share/grtrace/grtrace.magic \
		 share/bash-completion/completions/grtrace; do
		[ -s "$inst/usr/$f" ] || { st=1; echo "missing: /usr/$f" >> "$TMP/out"; }
	done
	cmp -s "$GRTRACE" "$inst/usr/bin/grtrace" || { st=1; echo "bin/grtrace is not $GRTRACE" >> "$TMP/out"; }
	"$inst/usr/bin/grtrace" report -i "$TESTS/corpus/report-basic.bin" > "$TMP/inst.rep" 2>&1 || st=1
	"$GRTRACE" report -i "$TESTS/corpus/report-basic.bin" 2>&1 | cmp -s - "$TMP/inst.rep" || st=1
	"$inst/usr/bin/grtrace-bpf-annotate" --help > /dev/null 2>&1 || st=1
	python3 "$inst/usr/share/grtrace/scripts/merge_timeline.py" --help > /dev/null 2>&1 || st=1
	# The installed parse_events.py uses the installed module and library.
	env $PY_ENV GRTRACE_LIB="$inst/usr/lib/libgrtrace.so.1" \
		PYTHONPATH="$inst/usr/lib/python3/dist-packages" \
		python3 "$inst/usr/share/grtrace/scripts/parse_events.py" "$GOLDEN/rings.bin" \
		> "$TMP/inst.rows" 2>> "$TMP/out" || st=1
	env $PY_ENV python3 "$TESTS/../scripts/parse_events.py" "$GOLDEN/rings.bin" 2>&1 |
		cmp -s - "$TMP/inst.rows" || { st=1; echo "installed parse_events.py differs" >> "$TMP/out"; }
	grep -q '^\.TH "\{0,1\}GRTRACE' "$inst/usr/share/man/man1/grtrace.1" || st=1
	result "make install puts the tool, the annotator, the scripts, the man page and the completion in DESTDIR, and they run" $st "$(cat "$TMP/out")"

	# libgrtrace: a program built from the installed header and
	# grtrace.pc, run on the installed shared library; the installed
	# Python module finds it where make install put it.
	st=0
	: > "$TMP/out"
	for f in lib/libgrtrace.a lib/libgrtrace.so.1 lib/libgrtrace.so \
		 include/grtrace/grtrace.h lib/pkgconfig/grtrace.pc \
		 lib/python3/dist-packages/grtrace/__init__.py \
		 lib/python3/dist-packages/grtrace/timeline.py; do
		[ -e "$inst/usr/$f" ] || { st=1; echo "missing: /usr/$f" >> "$TMP/out"; }
	done
	readelf -d "$inst/usr/lib/libgrtrace.so.1" 2>/dev/null |
		grep -q 'SONAME.*\[libgrtrace\.so\.1\]' || { st=1; echo "no SONAME libgrtrace.so.1" >> "$TMP/out"; }
	# Only the public interface is exported.
	if nm -D --defined-only "$inst/usr/lib/libgrtrace.so.1" 2>/dev/null |
	   awk '$2 ~ /^[TDB]$/ { print $3 }' | grep -v '^grtrace_' | grep -q .; then
		st=1; echo "exports more than grtrace_*" >> "$TMP/out"
	fi
	cat > "$TMP/pc.c" <<'EOF_C'
#include <grtrace/grtrace.h>

int main(int argc, char **argv)
{
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	struct grtrace_job job = GRTRACE_JOB_INIT;
	grtrace_trace *t;
	int n = 0;

	if (argc < 2 || grtrace_lib_version() != GRTRACE_LIB_VERSION)
		return 2;
	t = grtrace_open(argv[1], &err);
	if (!t)
		return 3;
	while (grtrace_next_job(t, &job, &err) > 0)
		n++;
	grtrace_close(t);
	printf("%d jobs\n", n);
	return 0;
}
EOF_C
	pc="env PKG_CONFIG_SYSROOT_DIR=$inst PKG_CONFIG_PATH=$inst/usr/lib/pkgconfig pkg-config"
	if $pc --exists grtrace 2>> "$TMP/out"; then
		${CC:-cc} -o "$TMP/pc" "$TMP/pc.c" $($pc --cflags --libs grtrace) >> "$TMP/out" 2>&1 || st=1
		jobs=$(env LD_LIBRARY_PATH=$inst/usr/lib $PY_ENV "$TMP/pc" "$TESTS/corpus/report-basic.bin" 2>> "$TMP/out")
		want=$("$GRTRACE" report -i "$TESTS/corpus/report-basic.bin" --format csv | tail -n +2 | wc -l)
		[ "$jobs" = "$want jobs" ] || { st=1; echo "pkg-config program: '$jobs', want $want jobs" >> "$TMP/out"; }
	else
		st=1
	fi
	got=$(env $PY_ENV GRTRACE_LIB="$inst/usr/lib/libgrtrace.so.1" PYTHONPATH="$inst/usr/lib/python3/dist-packages" \
		python3 -c 'import grtrace, sys; t = grtrace.Trace(sys.argv[1]); print(len(list(t.jobs())), grtrace.__file__)' \
		"$TESTS/corpus/report-basic.bin" 2>> "$TMP/out")
	case $got in "$want $inst/usr/lib/python3/dist-packages/grtrace/__init__.py") ;; *) st=1; echo "python module: '$got'" >> "$TMP/out" ;; esac
	grep -q "^_LIBDIR = \"/usr/lib\"" "$inst/usr/lib/python3/dist-packages/grtrace/__init__.py" || { st=1; echo "python module does not name /usr/lib" >> "$TMP/out"; }
	result "make install puts libgrtrace (.a, .so.1 with its SONAME, header, grtrace.pc) and the Python module in DESTDIR, and a program built with pkg-config runs" $st "$(cat "$TMP/out")"
else
	ok "make install # SKIP rst2man not installed (python3-docutils)"
fi

if command -v bash > /dev/null 2>&1; then
	out=$(bash -c '. ./grtrace-completion.bash
		COMP_WORDS=(grtrace report --per); COMP_CWORD=2; _grtrace
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(grtrace re); COMP_CWORD=1; _grtrace
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(grtrace report --hist ""); COMP_CWORD=3; _grtrace
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(grtrace recorder ""); COMP_CWORD=2; _grtrace
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(grtrace recorder wait --r); COMP_CWORD=3; _grtrace
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(grtrace recorder arm --format ""); COMP_CWORD=4; _grtrace
		echo "${COMPREPLY[*]}"' 2>&1)
	st=0
	[ "$out" = "$(printf '%s\n' "--per-ring --per-ctx --per-process --per-engine" "record recorder report" "lat size result" "arm trigger release disarm status wait service list show -h --help" "--release" "1 2")" ] || st=1
	result "bash completion completes commands, options and values" $st "$out"

	out=$(bash -c '. ./grtrace-completion.bash
		COMP_WORDS=(grtrace diff --f); COMP_CWORD=2; _grtrace
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(grtrace diff --format ""); COMP_CWORD=3; _grtrace
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(grtrace diff --fail-on ""); COMP_CWORD=3; _grtrace
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(grtrace di); COMP_CWORD=1; _grtrace
		echo "${COMPREPLY[*]}"' 2>&1)
	st=0
	[ "$out" = "$(printf '%s\n' "--format --fail-on" "text json csv" "regression" "diff")" ] || st=1
	result "bash completion completes diff, its options and their values" $st "$out"

	# The formats come from the library's table: --list-formats gives
	# them to the completion, report --help and the man page.
	names=$("$GRTRACE" --list-formats | cut -f1 | tr '\n' ' ')
	out=$(PATH=$(dirname "$GRTRACE"):$PATH bash -c '. ./grtrace-completion.bash
		COMP_WORDS=(grtrace report --format ""); COMP_CWORD=3; _grtrace
		echo "${COMPREPLY[*]} "' 2>&1)
	st=0
	[ "$out" = "$names" ] || st=1
	for f in text csv json; do
		case " $names" in *" $f "*) ;; *) st=1; out="$out no:$f" ;; esac
	done
	case " $names" in *" perfetto "*) st=1 ;; esac
	"$GRTRACE" report --help > "$TMP/out"
	for f in $("$GRTRACE" --list-formats all | cut -f1); do
		grep -q "^ *\`\`$f\`\`\$" Documentation/grtrace.rst || { st=1; out="$out man:$f"; }
	done
	for f in $names; do
		grep -q "^  $f  " "$TMP/out" || { st=1; out="$out help:$f"; }
	done
	"$GRTRACE" report --format nosuch > /dev/null 2> "$TMP/err"
	[ $? -eq 2 ] && grep -q "unknown format 'nosuch' (text, csv, json)" "$TMP/err" || st=1
	result "the formats of --format help, completion and man page come from the sinks table" $st "$out $(cat "$TMP/err")"
fi

# ---- report: bad input, one line each, never a crash ----------------------

rep_bad() {	# NAME FILE EXPECTED-STDERR-LINE
	run "$GRTRACE" report -i "$2"
	st=0
	[ $rc -eq 1 ] || st=1
	[ "$(cat "$TMP/err")" = "grtrace: $2: $3" ] || st=1
	grep -q "^error:    $3: the report covers the records before it\$" "$TMP/out" || st=1
	result "report: $1" $st "exit $rc" "$(cat "$TMP/err")" "$(grep error: "$TMP/out")"
}
head -c 700 "$GOLDEN/emit-basic.bin" > "$TMP/cut.bin"
rep_bad "a truncated file" "$TMP/cut.bin" "truncated record at byte 672: only 28 of the 32 header bytes present"
head -c 64 "$GOLDEN/emit-basic.bin" > "$TMP/bad.bin"
printf '\001\000\041\000' >> "$TMP/bad.bin"
head -c 100 /dev/zero >> "$TMP/bad.bin"
rep_bad "a corrupt record size" "$TMP/bad.bin" "corrupt record at byte 64: size 33 is not a multiple of 8"
{ printf '\000\001\100\000'; head -c 28 /dev/zero; printf 'XXXX'; head -c 28 /dev/zero; } > "$TMP/magic.bin"
rep_bad "a wrong magic" "$TMP/magic.bin" "not a grtrace stream: STREAM_INFO at byte 0 has magic 0x58585858"

run "$GRTRACE" report -i "$TMP/cut.bin" --format json
st=0
[ $rc -eq 1 ] || st=1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["summary"]["error"].startswith("truncated record at byte 672"), d["summary"]' "$TMP/out" 2> "$TMP/perr" || st=1
result "report: JSON of a truncated file is valid and names the error" $st "$(cat "$TMP/perr" "$TMP/err")"

# One verdict for bad input: report, dump, export, parse_events.py and the
# Python binding (records() and jobs()) refuse each file with one reason.
# verdict NAME FILE REASON
verdict() {
	st=0
	: > "$TMP/vd"
	for cmd in report dump export; do
		if [ $cmd = export ]; then
			"$GRTRACE" export -i "$2" -o "$TMP/vd.out" > /dev/null 2> "$TMP/err"
		else
			"$GRTRACE" $cmd -i "$2" > /dev/null 2> "$TMP/err"
		fi
		rc=$?
		# (export may say first what the trace lacks for its tracks)
		[ $rc -eq 1 ] && [ "$(tail -n 1 "$TMP/err")" = "grtrace: $2: $3" ] ||
			{ st=1; echo "$cmd: exit $rc: $(cat "$TMP/err")" >> "$TMP/vd"; }
	done
	env $PY_ENV $SYS_PY "$TESTS/../scripts/parse_events.py" "$2" > /dev/null 2> "$TMP/err"
	rc=$?
	# parse_events.py puts "byte N: " before a reason that names a byte
	# (not before one that begins with it).
	case $3 in
	"byte "*) cp "$TMP/err" "$TMP/err2" ;;
	*) sed 's/^\(parse_events\.py: [^:]*: \)byte [0-9]*: /\1/' "$TMP/err" > "$TMP/err2" ;;
	esac
	[ $rc -eq 1 ] && [ "$(cat "$TMP/err2")" = "parse_events.py: $2: $3" ] ||
		{ st=1; echo "parse_events.py: exit $rc: $(cat "$TMP/err")" >> "$TMP/vd"; }
	for it in records jobs; do
		got=$(env $PY_ENV GRTRACE_LIB="$(dirname "$GRTRACE")/lib/libgrtrace.so.1" \
			PYTHONPATH="$TESTS/../python" $SYS_PY -c '
import sys, grtrace
try:
    with grtrace.Trace(sys.argv[1]) as t:
        for _ in getattr(t, sys.argv[2])():
            pass
    print("no error")
except grtrace.Error as e:
    print(e)' "$2" $it 2>&1)
		[ "$got" = "$3" ] || { st=1; echo "python $it(): $got" >> "$TMP/vd"; }
	done
	result "bad input: $1: report, dump, export, parse_events.py and Python refuse it with one reason" $st "$(cat "$TMP/vd")"
}
# The files of tests/bad-input.txt, as gen-verdicts.py makes them.
run python3 "$TESTS/gen-verdicts.py" --check
result "bad input: tests/corpus/verdict-* are what gen-verdicts.py makes" $rc "$(cat "$TMP/err")"
n=0
while IFS='	' read -r f why; do
	case $f in ''|'#'*) continue ;; esac
	[ -n "$why" ] || { not_ok "bad input: $f has a reason in bad-input.txt"; continue; }
	verdict "$f" "$TESTS/corpus/$f" "$why"
	n=$((n + 1))
done < "$TESTS/bad-input.txt"
[ $n -ge 13 ]
result "bad input: tests/bad-input.txt lists the malformed files ($n)" $? ""

# Memory running out on the report's merge thread (allocations of 8 MiB or
# more fail: fail-big.so): a 9 MiB frame read with pread() needs a buffer
# of its size there, where no call of the API can return an error.  It
# aborted the process ("outside a call that can fail"); now the report
# fails with one line, as it does on one thread.  ASan owns malloc: the
# plain run has this.
if [ -n "${GRTRACE_SAN:-}" ]; then
	ok "out of memory on the report's merge thread: one line, exit 1, no abort # SKIP under ASan, which owns malloc (the plain run has it)"
elif ${CC:-cc} -shared -fPIC -o "$TMP/fail-big.so" "$TESTS/fail-big.c" 2> "$TMP/cc.err"; then
	python3 - "$GOLDEN" "$TMP/big-frame.grf" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import gen_golden as g
sub = g.TYPE_BY_NAME["SUBMIT"]
si = g.rec1(g.TYPE_BY_NAME["STREAM_INFO"], 0, 0, 1000, 0, 0,
            g.stream_info_body(1, g.CLOCK_MONOTONIC, 1, g.FEATURES, 7))
recs = [g.rec1(sub, 0, 0, 2000 + k, 1 + k, 1 + k, g.job_body(1, 1 + k, 0, 1))
        for k in range(9 * 2**20 // 72)]
text = b"kernel=6.1.0\nhost=oom\nclock=monotonic\nsession=7\nstarted=0\n\0"
open(sys.argv[2], "wb").write(g.grf_header(text, 3, 1, 1) + g.grf_frame(0, 0, si + recs[0])
                              + g.grf_frame(0, 0, b"".join(recs[1:])))
# The big frame first: its buffer is taken as the merge starts.
open(sys.argv[2] + "-first", "wb").write(g.grf_header(text, 3, 1, 1) +
                                         g.grf_frame(0, 0, si + b"".join(recs)))
PYEOF
	st=0
	for threads in 2 1; do
		GRTRACE_THREADS=$threads GRTRACE_NO_MMAP=1 LD_PRELOAD=$TMP/fail-big.so \
			"$GRTRACE" report -i "$TMP/big-frame.grf" > "$TMP/out" 2> "$TMP/err"
		rc=$?
		[ $rc -eq 1 ] || st=1
		[ "$(cat "$TMP/err")" = "grtrace: report: out of memory" ] || st=1
		echo "# $threads threads: exit $rc: $(cat "$TMP/err")" >> "$TMP/oom.log"
	done
	# grtrace.timeline.gpu_events() started its merge outside its guard.
	GRTRACE_NO_MMAP=1 LD_PRELOAD=$TMP/fail-big.so \
		GRTRACE_LIB="$(dirname "$GRTRACE")/lib/libgrtrace.so.1" PYTHONPATH="$TESTS/../python" \
		$SYS_PY -c '
import sys, grtrace.timeline as tl
try:
    tl.gpu_events(sys.argv[1])
    print("no error")
except OSError as e:
    print(e.errno, e)' "$TMP/big-frame.grf-first" > "$TMP/py" 2>&1
	[ "$(cat "$TMP/py")" = "12 out of memory" ] || st=1
	echo "# gpu_events: $(cat "$TMP/py")" >> "$TMP/oom.log"
	# Without the limit it reads.
	GRTRACE_NO_MMAP=1 "$GRTRACE" report -i "$TMP/big-frame.grf" --limit 0 > "$TMP/out" 2>&1 || st=1
	grep -q "^jobs:     131072 " "$TMP/out" || st=1
	result "out of memory on the report's merge thread (a 9 MiB frame, allocations of 8 MiB fail): one line, exit 1, no abort, as on one thread; in Python's gpu_events() an OSError (ENOMEM)" $st \
		"$(cat "$TMP/oom.log")" "$(head -5 "$TMP/out")"
	rm -f "$TMP/big-frame.grf" "$TMP/big-frame.grf-first"
else
	not_ok "out of memory on the report's merge thread" "cannot build fail-big.so: $(cat "$TMP/cc.err")"
fi

# A gseq that wraps past 2^64 (2^64-5 .. 4, the 7th record dropped): the
# one record lost is counted, no record is out of order, and the records
# come in the stream's order.
run "$GRTRACE" report -i "$TESTS/corpus/verdict-gseq-wrap.bin"
st=$rc
grep -q '^lost:     1 records in 1 gseq gaps (gseq 18446744073709551611 \.\. 4)$' "$TMP/out" || st=1
grep -q '^order:' "$TMP/out" && st=1
"$GRTRACE" dump -i "$TESTS/corpus/verdict-gseq-wrap.bin" 2>&1 | awk '{ print $3 }' > "$TMP/wrap.gseq"
wrap="18446744073709551611 18446744073709551612 18446744073709551613 18446744073709551614 18446744073709551615 0 2 3 4 "
[ "$(tr '\n' ' ' < "$TMP/wrap.gseq")" = "$wrap" ] || st=1
# The Python reader merges it the same.
env $PY_ENV GRTRACE_LIB="$(dirname "$GRTRACE")/lib/libgrtrace.so.1" PYTHONPATH="$TESTS/../python" \
	$SYS_PY -c '
import sys, grtrace
with grtrace.Trace(sys.argv[1]) as t:
    print(" ".join(str(r.gseq) for r in t.records()) + " ")' \
	"$TESTS/corpus/verdict-gseq-wrap.bin" > "$TMP/wrap.py" 2>&1
[ "$(cat "$TMP/wrap.py")" = "$wrap" ] || st=1
result "bad input: a gseq that wraps past 2^64 is counted and merged in serial order (report, dump, Python)" $st "$(cat "$TMP/out" "$TMP/wrap.gseq" "$TMP/wrap.py")"

run "$GRTRACE" report -i "$TMP/does-not-exist"
st=0
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: cannot open $TMP/does-not-exist: No such file or directory" ] || st=1
result "report: a missing file" $st "$(cat "$TMP/err")"

# Every 7th cut of a golden trace: no crash, at most one error line.
st=0
diag=
len=$(wc -c < "$RG/basic.bin")
n=1
while [ $n -lt "$len" ]; do
	head -c $n "$RG/basic.bin" > "$TMP/cut.bin"
	"$GRTRACE" report -i "$TMP/cut.bin" --format json --per-ring --hist size > /dev/null 2> "$TMP/err"
	rc=$?
	{ [ $rc -le 1 ] && [ "$(wc -l < "$TMP/err")" -le 1 ]; } || { st=1; diag="cut $n: exit $rc $(cat "$TMP/err")"; }
	n=$((n + 7))
done
result "report: cut traces end in one line or none" $st "$diag"

# Seeded mutants of every valid trace the tests have, through report and
# dump (tests/mutate.py; FUZZ_SEED and FUZZ_SEEDS choose the seeds).  Each
# failure names its seed and source and the command that replays it.
# Under the sanitizers a mutant costs six times what it costs plain, and
# the plain run (run_tests.sh runs it first, on the same tree) has tried
# seeds 1..10: five others, 11..15, not the same ten again.
MUT_ENV=
if [ -n "${GRTRACE_SAN:-}" ] && [ -z "${FUZZ_SEED:-}" ]; then
	MUT_ENV="FUZZ_SEED=11 FUZZ_SEEDS=${FUZZ_SEEDS:-5}"
fi
if command -v python3 > /dev/null 2>&1; then
	# shellcheck disable=SC2086 # none or two assignments
	env $MUT_ENV python3 "$TESTS/mutate.py" --grtrace "$GRTRACE" --golden "$GOLDEN" \
		--gen-trace "$GEN_TRACE" --corpus "$TESTS/corpus" run > "$TMP/mut" 2>&1
	mut_rc=$?
	grep -E '^(ok |not ok |# )' "$TMP/mut" >> "$RESULTS"
	result "mutate.py ran cleanly" $mut_rc "$(grep -vE '^(ok |not ok |# )' "$TMP/mut" | head -20)"
else
	ok "mutate.py # SKIP no python3"
fi

# Records of one CPU swapped: reported as out of order, still merged.
python3 - "$RG/basic.bin" "$TMP/swap.bin" "$GOLDEN" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[3])
from gen_golden import records1
cpu, recs = zip(*records1(open(sys.argv[1], "rb").read()))
recs = list(recs)
i = next(k for k in range(1, len(recs)) if cpu[k] == cpu[k - 1] and len(recs[k]) == 72)
recs[i - 1], recs[i] = recs[i], recs[i - 1]
open(sys.argv[2], "wb").write(b"".join(recs))
PY
run "$GRTRACE" report -i "$TMP/swap.bin" --format json
st=$rc
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; assert s["out_of_order_records"] >= 1 and s["jobs"] >= 7, s' "$TMP/out" 2> "$TMP/perr" || st=1
result "report: records out of gseq order are counted" $st "$(cat "$TMP/perr" "$TMP/err")"

cat "$RG/basic.bin" | "$GRTRACE" report -i - --format json $RULES > "$TMP/pipe.json" 2> "$TMP/err"
st=$?
"$GRTRACE" report -i "$RG/basic.bin" --format json $RULES > "$TMP/file.json"
sed 's/"input":"[^"]*"//' "$TMP/pipe.json" > "$TMP/a"
sed 's/"input":"[^"]*"//' "$TMP/file.json" > "$TMP/b"
cmp -s "$TMP/a" "$TMP/b" || st=1
result "report -i - reads a pipe like the file" $st "$(cat "$TMP/err")"

run "$GRTRACE" report -i "$RG/basic.bin" --format json --max-open 2
st=$rc
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; assert s["jobs_closed_early"] > 0 and s["open_max"] == 2, s' "$TMP/out" 2> "$TMP/perr" || st=1
result "report: --max-open closes the oldest jobs early and says so" $st "$(cat "$TMP/perr" "$TMP/err")"

# --engine: the basic trace has 4 jobs on gfx (class 1) and 3 on copy
# (class 3).  Each selection, by name, number, list or mask, must give
# exactly the jobs of its classes (the CSV's engine column).
for sel in "gfx:gfx gfx gfx gfx" "copy:copy copy copy" "1,3:copy copy copy gfx gfx gfx gfx" \
	   "gfx,copy:copy copy copy gfx gfx gfx gfx" "0x8:copy copy copy" "0xa:copy copy copy gfx gfx gfx gfx" \
	   "compute:" "0:"; do
	args=${sel%%:*}
	want=${sel#*:}
	run "$GRTRACE" report -i "$RG/basic.bin" --format csv --engine "$args"
	got=$(awk -F, 'NR > 1 { print $5 }' "$TMP/out" | sort | tr '\n' ' ' | sed 's/ $//')
	st=0
	[ $rc -eq 0 ] && [ "$got" = "$want" ] || st=1
	result "report --engine $args: the jobs of those classes only" $st "exit $rc, engines: '$got', want '$want'" "$(cat "$TMP/err")"
done

# --per-engine: each class's group against the job rows of the same
# report (count, and each metric's count and max per class) and against
# --per-ring (rings of the class); basic has one ring per class, newring
# sixteen gfx rings and a copy ring, and engines a generated stream whose
# jobs name up to 5000 rings, each of a class of its own, met out of
# class order.
"$GEN_TRACE" -c 2 -r 8 1 "$TMP/pe-gen.dat" > /dev/null
python3 - "$TMP/pe-gen.dat" "$TMP/engines.bin" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
pos = 0
while pos < len(d):
    t, size = struct.unpack_from("<HH", d, pos)
    if 1 <= t <= 10 and size >= 56:
        ctx, seq = struct.unpack_from("<QQ", d, pos + 32)
        r = (ctx * 7919 + seq * 104729) % 5000
        # Rings 0-7 are described by the METADATA: past them.
        struct.pack_into("<IH", d, pos + 48, 8 + r, 4999 - r)
    pos += size
open(sys.argv[2], "wb").write(d)
PY
for t in "$RG/basic.bin" "$RG/newring.bin" "$TMP/engines.bin"; do
	st=0
	"$GRTRACE" report -i "$t" --format csv > "$TMP/pe-jobs.csv" 2> "$TMP/err" || st=1
	"$GRTRACE" report -i "$t" --format json --per-engine --per-ring > "$TMP/pe.json" 2>> "$TMP/err" || st=1
	python3 - "$TMP/pe-jobs.csv" "$TMP/pe.json" > "$TMP/perr" 2>&1 <<'PY' || st=1
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
engs = {e["engine"]: e for e in d["engines"]}
want = sorted({r["engine"] for r in rows})
assert sorted(engs) == want, (sorted(engs), want)
assert [e["engine_class"] for e in d["engines"]] == sorted(e["engine_class"] for e in d["engines"])
for name, e in engs.items():
    mine = [r for r in rows if r["engine"] == name]
    assert e["jobs"] == len(mine), (name, e["jobs"], len(mine))
    rings = {r["ring"] for r in d["rings"] if r["engine"] == name}
    assert e["rings"] == len(rings), (name, e["rings"], rings)
    for m in ("t_submit_host", "t_queue", "t_exec", "t_gpu_wait", "t_complete", "t_total"):
        vals = [int(r[m]) for r in mine if r[m] not in ("", "NA")]
        assert e[m + "_count"] == len(vals), (name, m, e[m + "_count"], len(vals))
        if vals:
            assert e[m + "_max"] == max(vals), (name, m, e[m + "_max"], max(vals))
PY
	result "report --per-engine ($(basename "$t")): each class's jobs, rings and metrics as its job rows give them" $st "$(cat "$TMP/perr" "$TMP/err")"
done
run "$GRTRACE" report -i "$RG/basic.bin" --per-engine --engine copy
st=$rc
grep -qx "engine copy (class 3): 3 jobs on 1 ring" "$TMP/out" || st=1
! grep -q "^engine gfx" "$TMP/out" || st=1
result "report --per-engine --engine copy: the copy class alone, in text" $st "$(cat "$TMP/err")"
run "$GRTRACE" report -i "$RG/basic.bin" --per-engine --format csv
st=$rc
[ "$(head -n 1 "$TMP/out" | cut -d, -f1-4)" = "engine_class,engine,rings,jobs" ] || st=1
[ "$(cut -d, -f1-4 "$TMP/out" | tail -n +2 | tr '\n' ' ')" = "1,gfx,1,4 3,copy,1,3 " ] || st=1
result "report --per-engine --format csv: one row per class" $st "$(cat "$TMP/out" "$TMP/err")"

for bad in "--format xml:unknown format 'xml'" "--hist foo:unknown histogram 'foo'" \
	   "--topn x:invalid number 'x' for --topn" "--engine gpu:unknown engine 'gpu'" \
	   "--engine gfx,gpu:unknown engine 'gpu'" "--engine gfx,,copy:--engine 'gfx,,copy': an empty entry" \
	   "--engine 64:engine 64: classes 0..63 can be selected" "--engine 0x0:--engine 0x0 selects no engine" \
	   "--since 1x:invalid time '1x' for --since" \
	   "--long-queue-us -3:invalid value '-3' for --long-queue-us" \
	   "--format csv --per-ring --topn 3:CSV holds one table" \
	   "--format csv --per-engine --per-process:CSV holds one table"; do
	args=${bad%%:*}
	msg=${bad#*:}
	run "$GRTRACE" report -i "$RG/basic.bin" $args
	st=0
	[ $rc -eq 2 ] || st=1
	grep -q "^grtrace: report: $msg" "$TMP/err" || st=1
	result "report rejects $args" $st "exit $rc" "$(cat "$TMP/err")"
done

# ---- report: large synthetic traces --------------------------------------

"$GEN_TRACE" -c 4 -r 6 8 "$TMP/gen.dat"
run "$GRTRACE" report -i "$TMP/gen.dat" --format json --limit 0 --per-ring
st=$rc
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["lost_records"] == 0 and s["out_of_order_records"] == 0, s
assert s["jobs"] > 20000 and s["jobs_incomplete"] <= 6 * 4, s
assert len(d["rings"]) == 6, d["rings"]
' "$TMP/out" 2> "$TMP/perr" || st=1
result "report: a 4-CPU synthetic trace merges in order, nothing lost" $st "$(cat "$TMP/perr" "$TMP/err")"

# ---- the trace file, and merging whatever order the CPUs were drained in ----

# A bare stream (as "record" wrote before the trace file) whose CPU 1 was
# drained first: 100 MB, so that CPU 0's data begins ~50 MB in, past any
# look-ahead.  The merge must be exact, as for the stream in time order.
"$GEN_TRACE" -c 2 -r 2 100 "$TMP/big.dat" > /dev/null
python3 "$GOLDEN/gen_golden.py" bare "$TMP/big.dat" "$TMP/late.dat" reverse
summary() {
	"$GRTRACE" report -i "$1" --format json --limit 0 | python3 -c '
import json, sys
s = json.load(sys.stdin)["summary"]
print(s["records"], s["jobs"], s["jobs_incomplete"], s["open_max"],
      s["out_of_order_records"], s["lost_records"], s["gseq_restarts"])'
}
want=$(summary "$TMP/big.dat")
got=$(summary "$TMP/late.dat")
st=0
[ -n "$want" ] && [ "$want" = "$got" ] || st=1
# 2 rings, 5 jobs in flight each: never more than 10 open.
set -- $got
[ "${4:-99}" -le 10 ] && [ "${5:-1}" -eq 0 ] || st=1
result "report: a bare recording whose CPU 1 was drained first (100 MB) merges exactly" $st \
	"in time order: records jobs incomplete open_max out_of_order lost restarts = $want" \
	"CPU 1 first:   $got"

# The file is read with pread() into windows, or where it is mapped
# (GRTRACE_MMAP=1 says so): the same records either way.
st=0
got=$(GRTRACE_MMAP=1 summary "$TMP/late.dat")
[ -n "$want" ] && [ "$want" = "$got" ] || st=1
result "report: the same 100 MB recording read mapped instead of with pread() merges the same" $st \
	"pread:  $want" "mapped: $got"

# A file cut by another program while it is read (a recorder's rotation,
# a full disk's cleanup): the reader gives every record before the cut,
# as it does for a file that was cut before, then says where the file
# ended, exit 1.  Read mapped (GRTRACE_MMAP=1), it ended with SIGBUS.  The
# reader is held by its full output pipe, a few hundred KB in, while the
# 64 MB file is cut to 2,000,000 bytes.
"$GEN_TRACE" -c 2 -r 2 64 "$TMP/shrink.dat" > /dev/null
head -c 2000000 "$TMP/shrink.dat" > "$TMP/precut.dat"
for how in "dump 1" "report 1" "report 2"; do
	set -- $how
	csv=
	[ "$1" = report ] && csv=csv
	cp "$TMP/shrink.dat" "$TMP/cut.dat"
	GRTRACE_THREADS=$2 "$GRTRACE" "$1" ${csv:+--format} $csv -i "$TMP/precut.dat" > "$TMP/want" 2> /dev/null
	( GRTRACE_THREADS=$2 "$GRTRACE" "$1" ${csv:+--format} $csv -i "$TMP/cut.dat" 2> "$TMP/err"
	  echo "exit $?" > "$TMP/rc" ) |
		{ IFS= read -r first && truncate -s 2000000 "$TMP/cut.dat"
		  printf '%s\n' "$first"; cat; } > "$TMP/got"
	st=0
	[ "$(cat "$TMP/rc")" = "exit 1" ] || st=1
	grep -qx "grtrace: \(report: \)\{0,1\}$TMP/cut.dat: cannot read byte 2000000: the file shrank" "$TMP/err" || st=1
	[ "$(wc -l < "$TMP/got")" -gt 1000 ] && cmp -s "$TMP/want" "$TMP/got" || st=1
	result "$1 ${csv:+--format csv }($2 thread(s)) of a 64 MB file cut to 2 MB while it is read: the records before the cut, as of the file cut before; the cut named, exit 1" $st \
		"$(cat "$TMP/rc" "$TMP/err")" "lines $(wc -l < "$TMP/got") against $(wc -l < "$TMP/want")"
done
rm -f "$TMP/shrink.dat" "$TMP/precut.dat" "$TMP/cut.dat" "$TMP/want" "$TMP/got"

# dump streams: its memory does not grow with the file.  Mapped, the
# reader lets go of the pages it has left, whether the CPUs' data lie side
# by side or 50 MB apart.
if [ -z "${GRTRACE_SAN:-}" ] && [ -x /usr/bin/time ]; then
	"$GRTRACE" dump -i "$TMP/big.dat" > "$TMP/want.dump"
	for how in mapped pread; do
		for f in big late; do
			mapped=$([ $how = mapped ] && echo 1 || echo 0)
			GRTRACE_MMAP=$mapped /usr/bin/time -f %M -o "$TMP/rss" \
				"$GRTRACE" dump -i "$TMP/$f.dat" | cmp -s - "$TMP/want.dump"
			st=$?
			kb=$(tail -n 1 "$TMP/rss")
			[ "$kb" -le 65536 ] || st=1
			result "dump of a 100 MB recording ($f: $([ $f = big ] && echo CPUs side by side || echo CPU 1 drained first), $how): same lines, $kb KB RSS (at most 64 MB)" $st
		done
	done
else
	ok "dump of a 100 MB recording in 64 MB RSS # SKIP under ASan, whose shadow and quarantine are not the tool's"
fi
rm -f "$TMP/big.dat" "$TMP/late.dat" "$TMP/want.dump"

# A stream that begins its session (a STREAM_INFO of gseq 0 first) is
# scanned as the merge needs it, the cursors reading its records in place
# (mapped, GRTRACE_MMAP=1) or in the windows the scanner read them into
# (pread()).  The records come in the same order either way, and the reports
# are the same: for the corpus, and for a synthetic stream with a record
# out of place on its CPU, one lost, one gseq twice (each way round), a
# job event of gseq 0, and a second session joined to it.  (The merge
# takes the next gseq straight from the cursor the scanner noted for it
# until one of these turns up, then goes on with its heap.)
"$GEN_TRACE" -c 4 -r 6 8 "$TMP/gen.dat" > /dev/null
python3 - "$TMP/gen.dat" "$TMP/lazy" <<'PYEOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
recs, pos = [], 0
while pos < len(data):
    size = struct.unpack_from("<H", data, pos + 2)[0]
    recs.append(bytearray(data[pos:pos + size]))
    pos += size
def gseq(r): return struct.unpack_from("<Q", r, 16)[0]
def cpu(r): return struct.unpack_from("<H", r, 4)[0]
def put_gseq(r, g): struct.pack_into("<Q", r, 16, g)
def write(name, rs):
    open(sys.argv[2] + "-" + name + ".dat", "wb").write(b"".join(rs))
mid = len(recs) // 2
# Two records of one CPU, one after the other in the file, gseqs swapped.
v = [bytearray(r) for r in recs]
i = next(k for k in range(mid, len(v) - 1) if cpu(v[k]) == cpu(v[k + 1]) == 1)
a, b = gseq(v[i]), gseq(v[i + 1])
put_gseq(v[i], b); put_gseq(v[i + 1], a)
write("outofplace", v)
# One record lost.
write("lost", recs[:mid] + recs[mid + 1:])
# A gseq twice: a record of CPU 2 takes the gseq of one of CPU 3 far on.
v = [bytearray(r) for r in recs]
i = next(k for k in range(mid, len(v)) if cpu(v[k]) == 2)
j = next(k for k in range(i + 5000, len(v)) if cpu(v[k]) == 3)
put_gseq(v[i], gseq(v[j]))
write("dup", v)
# A gseq twice the other way: a record of CPU 3 takes the gseq of one of
# CPU 2 far before it, merged already when the scanner finds the second.
v = [bytearray(r) for r in recs]
i = next(k for k in range(mid, len(v)) if cpu(v[k]) == 2)
j = next(k for k in range(i + 5000, len(v)) if cpu(v[k]) == 3)
put_gseq(v[j], gseq(v[i]))
write("dupback", v)
# A job event of gseq 0 amid the records (only the first record has it).
v = [bytearray(r) for r in recs]
put_gseq(v[mid], 0)
write("zero", v)
# Records on 65536 CPUs: one each for CPUs 2 to 65535, then a record of
# CPU 1 that takes the gseq of one 30 places on, a nanosecond before it
# (the merge's slots hold a cursor's index + 1 in 16 bits, which CPU 1's,
# the 65536th, does not fit: that gseq twice must still be seen).
v = [bytearray(r) for r in recs[:65600]]
for k in range(2, len(v)):
    struct.pack_into("<H", v[k], 4, k % 65536 if k % 65536 != 1 else 0)
a = bytearray(v[65590])
struct.pack_into("<H", a, 4, 1)
struct.pack_into("<Q", a, 8, struct.unpack_from("<Q", a, 8)[0] - 1)
v.insert(65560, a)
write("wide", v)
# The same session twice, joined.
write("joined", recs + recs)
# A STREAM_INFO whose magic is not grtrace's first, and a record whose size
# is odd 1 MB on (past the scanner's first step): both name the
# STREAM_INFO (a scan of the whole file first named the other).
v = [bytearray(r) for r in recs]
struct.pack_into("<I", v[0], 32, 0x52545258)
at, k = 0, 0
while at < 1 << 20:
    at += len(v[k])
    k += 1
struct.pack_into("<H", v[k], 2, len(v[k]) + 4)
write("badmagic", v)
PYEOF
# 68 CPUs, each one's 640 KB of records side by side (a stream drained a
# CPU at a time): each cursor reads where no other does, more windows than
# the reader keeps at once (64), so some cursors read their records into
# a buffer of their own, and the scanner into its own.  The same records
# as the stream in time order, and the same read mapped (below).
"$GEN_TRACE" -c 100 -r 64 40 "$TMP/lazy-wide-time.dat" > /dev/null
python3 "$GOLDEN/gen_golden.py" bare "$TMP/lazy-wide-time.dat" "$TMP/lazy-bycpu.dat" cpu
st=0
"$GRTRACE" dump -i "$TMP/lazy-wide-time.dat" > "$TMP/dump-time" 2>&1 || st=1
"$GRTRACE" dump -i "$TMP/lazy-bycpu.dat" > "$TMP/dump-bycpu" 2>&1 || st=1
[ "$(grep -c " SUBMIT " "$TMP/dump-time")" -gt 100000 ] && cmp -s "$TMP/dump-time" "$TMP/dump-bycpu" || st=1
result "a 42 MB stream of 68 CPUs, each CPU's records side by side: read with pread(), the records of the stream in time order" $st \
	"$(cmp "$TMP/dump-time" "$TMP/dump-bycpu" 2>&1)"
rm -f "$TMP/lazy-wide-time.dat" "$TMP/dump-time" "$TMP/dump-bycpu"
for f in "$TESTS"/corpus/* "$TMP"/lazy-*.dat "$TMP/gen.dat"; do
	st=0
	for how in 0 1; do
		GRTRACE_MMAP=$how "$GRTRACE" dump -i "$f" > "$TMP/dump$how" 2>&1
		echo "exit $?" >> "$TMP/dump$how"
		GRTRACE_MMAP=$how "$GRTRACE" report -i "$f" --format json \
			--limit 0 --per-ring --per-ctx > "$TMP/rep$how" 2>&1
		echo "exit $?" >> "$TMP/rep$how"
	done
	cmp -s "$TMP/dump0" "$TMP/dump1" || st=1
	cmp -s "$TMP/rep0" "$TMP/rep1" || st=1
	result "$(basename "$f"): the same records in the same order, and the same report, mapped as read with pread()" $st \
		"$(diff "$TMP/dump0" "$TMP/dump1" | head -5)" "$(diff "$TMP/rep0" "$TMP/rep1" | head -5)"
done

st=0
for how in 0 1; do
	GRTRACE_MMAP=$how "$GRTRACE" dump -i "$TMP/lazy-badmagic.dat" > /dev/null 2> "$TMP/err$how"
	[ "$(cat "$TMP/err$how")" = "grtrace: $TMP/lazy-badmagic.dat: not a grtrace stream: STREAM_INFO at byte 0 has magic 0x52545258" ] || st=1
done
result "a stream whose first STREAM_INFO has another magic, a record corrupt 1 MB on: the STREAM_INFO named, mapped or read with pread()" $st \
	"$(cat "$TMP/err0" "$TMP/err1")"

# The 65536 CPUs' stream read with pread(): each CPU's read buffer holds
# what its CPU has (one record here), not a whole window.  It took 330 MB
# with a window each (2 GB and minutes under ASan); 67 MB now (115 MB
# under ASan), as it takes mapped.
kb=$(python3 -c '
import os, resource, subprocess, sys
env = dict(os.environ, GRTRACE_NO_MMAP="1")
subprocess.run([sys.argv[1], "dump", "-i", sys.argv[2]], env=env,
               stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \
	"$GRTRACE" "$TMP/lazy-wide.dat") || kb=
st=0
[ -n "$kb" ] && [ "$kb" -lt 196608 ] || st=1
result "lazy-wide.dat (65536 CPUs) read with pread(): peak RSS under 192 MB, not a read window per CPU" $st \
	"peak RSS ${kb:-unknown} KB"

# A trace file whose head table names each of 65536 CPUs twice and whose
# tail tables name each 16 times, around one CPU's two records.  A CPU's
# head was found by a scan of the heads, once per tail: 37 s of CPU
# before the heads were indexed by CPU, past the 20 s allowed; 0.1 s
# since.  Two heads for a CPU say nothing, so only CPU 0's tail counts:
# its records' cseqs are 1 and 2, its tail's next 7, so 3 to 6 are lost.
python3 - "$GOLDEN" "$TMP/heads-tails.grf" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import gen_golden as g
si = g.rec1(g.TYPE_BY_NAME["STREAM_INFO"], 0, 0, 1000, 1, 1,
            g.stream_info_body(1, g.CLOCK_MONOTONIC, 1, g.FEATURES, 7))
job = g.rec1(g.TYPE_BY_NAME["SUBMIT"], 0, 0, 2000, 2, 2, g.job_body(1, 1, 0, 1))
def table(cpus, nxt):
    return b"".join(c.to_bytes(4, "little") + bytes(4) +
                    nxt.to_bytes(8, "little") for c in cpus)
text = b"kernel=6.1.0\nhost=t\nclock=monotonic\nsession=7\nstarted=0\n\0"
out = [g.grf_header(text, 3, 1, 1),
       g.grf_frame(0, 0x10, table(list(range(65536)) * 2, 1)),
       g.grf_frame(0, 0, si + job)]
for _ in range(2):
    out.append(g.grf_frame(0, 0x8, table(list(range(65536)) * 8, 7)))
open(sys.argv[2], "wb").write(b"".join(out))
PY
run timeout 20 "$GRTRACE" report -i "$TMP/heads-tails.grf" --format json --limit 0
st=$rc
[ $st -eq 0 ] && python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(s["lost_records"], s["lost_records_by_cpu"])
assert s["lost_records"] == 4 and s["lost_records_by_cpu"] == [4], s' \
	"$TMP/out" >"$TMP/perr" 2>&1 || st=1
result "report: 65536 CPUs' heads twice and tails 16 times, at once (exit $rc): only CPU 0's tail counts its 4 lost" $st \
	"$(cat "$TMP/perr" "$TMP/err")"

# Trace files of one recording (written from the document by golden/gen_golden.py), in
# every frame order, stored and compressed: the report and the dump are
# the bare stream's.
"$GEN_TRACE" -c 4 -r 6 8 "$TMP/gen.dat" > /dev/null
"$GRTRACE" report -i "$TMP/gen.dat" --format json --limit 0 --per-ring |
	sed 's/"input":"[^"]*"//' > "$TMP/want.json"
"$GRTRACE" dump -i "$TMP/gen.dat" > "$TMP/want.dump"
for how in time cpu reverse; do
	for z in raw zstd; do
		python3 "$GOLDEN/gen_golden.py" pack "$TMP/gen.dat" "$TMP/p.grf" $how 65536 $z
		st=0
		"$GRTRACE" report -i "$TMP/p.grf" --format json --limit 0 --per-ring |
			sed 's/"input":"[^"]*"//' | cmp -s - "$TMP/want.json" || st=1
		"$GRTRACE" dump --header -i "$TMP/p.grf" > "$TMP/p.dump" || st=1
		head -n 1 "$TMP/p.dump" | grep -q "^# trace file: version=1 stream_format=1 cpus=4 compressed=$([ $z = zstd ] && echo zstd || echo no) kernel=packed host=grf.py clock=monotonic session=1 started=0\$" || st=1
		tail -n +2 "$TMP/p.dump" | cmp -s - "$TMP/want.dump" || st=1
		result "trace file, frames in $how order, $z: report and dump are the stream's" $st
	done
done

# Format 2 trace files of the same recording (converted by golden/gen_golden.py from the
# document): the report is format 1's in every frame order, with gseq or
# without (merged by ts then), but the losses by CPU that format 2's cseq
# gives (this format 1 stream's features do not say its cseq counts
# losses); the dump too, with gseq, but STREAM_INFO.
sed 's/"gseq_\(first\|last\)":[0-9]*//g' "$TMP/want.json" > "$TMP/want2.json"
grep -v " STREAM_INFO " "$TMP/want.dump" > "$TMP/want2.dump"
for how in cpu reverse; do
	for z in raw zstd; do
		for g in nogseq gseq; do
			python3 "$GOLDEN/gen_golden.py" pack2 "$TMP/gen.dat" "$TMP/p2.grf" $how 65536 $z $g
			st=0
			"$GRTRACE" report -i "$TMP/p2.grf" --format json --limit 0 --per-ring |
				sed 's/"input":"[^"]*"//; s/"gseq_\(first\|last\)":[0-9a-z]*//g
				     s/,"lost_records_by_cpu":\[[0-9,]*\]//' |
				cmp -s - "$TMP/want2.json" || st=1
			if [ $g = gseq ]; then
				"$GRTRACE" dump -i "$TMP/p2.grf" | grep -v " STREAM_INFO " |
					cmp -s - "$TMP/want2.dump" || st=1
			fi
			result "format 2 trace file, frames in $how order, $z, $g: the report is format 1's" $st
		done
	done
done

# A record lost to a full buffer leaves a gap in its CPU's cseq: counted.
python3 "$GOLDEN/gen_golden.py" pack2 "$TMP/gen.dat" "$TMP/p2.grf" reverse 65536 zstd lose=7
run "$GRTRACE" report -i "$TMP/p2.grf" --format json --limit 0
st=$rc
python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; sys.exit(not (s["lost_records"] == 1 and s["cseq_gaps"] == 1 and s["gseq_gaps"] == 0))' < "$TMP/out" || st=1
run "$GRTRACE" report -i "$TMP/p2.grf"
grep -q "^lost:     1 records in 1 gaps of the CPUs' cseq$" "$TMP/out" || st=1
python3 "$GOLDEN/gen_golden.py" pack2 "$TMP/gen.dat" "$TMP/p2.grf" reverse 65536 zstd
run "$GRTRACE" report -i "$TMP/p2.grf"
grep -q "^lost:     none (no CPU's cseq has a gap)$" "$TMP/out" || st=1
result "format 2: a record lost on CPU 1 is one cseq gap, reported as 1 lost; none without" $st

# A bad format 2 record: one line naming the frame and the record's byte.
python3 "$GOLDEN/gen_golden.py" pack2 "$TMP/gen.dat" "$TMP/p2.grf" cpu 65536 raw
hsize=$(python3 "$GOLDEN/gen_golden.py" info "$TMP/p2.grf" | sed -n '1s/.* size=\([0-9]*\) .*/\1/p')
printf '\022' | dd of="$TMP/p2.grf" bs=1 seek=$((hsize + 16 + 2)) conv=notrunc 2>/dev/null
run "$GRTRACE" dump -i "$TMP/p2.grf"
st=0
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: $TMP/p2.grf: frame of CPU 0 at byte $hsize: corrupt record at byte 0 of its data: size 18 is not a multiple of 4" ] || st=1
result "format 2: a corrupt record in a frame is one line naming frame and byte" $st \
	"exit $rc" "$(cat "$TMP/err")"

# Two recordings joined with cat: two parts, merged one after the other.
python3 "$GOLDEN/gen_golden.py" pack "$TMP/gen.dat" "$TMP/p.grf" reverse 65536 zstd
cat "$TMP/p.grf" "$TMP/p.grf" > "$TMP/pp.grf"
"$GRTRACE" report -i "$TMP/p.grf" --format json --limit 0 > "$TMP/one.json"
run "$GRTRACE" report -i "$TMP/pp.grf" --format json --limit 0
python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["summary"]
b = json.load(open(sys.argv[2]))["summary"]
assert b["records"] == 2 * a["records"] and b["jobs"] == 2 * a["jobs"], (a, b)
assert b["gseq_restarts"] == 1 and b["out_of_order_records"] == 0, b
' "$TMP/one.json" "$TMP/out" 2> "$TMP/perr"
result "trace files joined with cat: two parts, each merged exactly" $? "$(cat "$TMP/perr" "$TMP/err")"

# A report of a file merges in a second thread (2 CPUs here): it must be the
# report of one thread, errors and exit status included, for bare streams,
# trace files of either format, parts joined with cat and bad input; and a
# report that stops at a bad record while the merge thread waits on full
# batches (the bad STREAM_INFO first, 8 MB after it) must end.
cat "$TMP/magic.bin" "$TMP/gen.dat" > "$TMP/magic-first.bin"
st=0 diag=
for f in gen.dat p.grf pp.grf p2.grf cut.bin bad.bin magic.bin magic-first.bin; do
	for t in 1 2; do
		GRTRACE_THREADS=$t timeout 60 "$GRTRACE" report -i "$TMP/$f" --per-ring \
			--per-ctx --topn 3 --hist lat --format json --limit 0 \
			> "$TMP/t$t.out" 2> "$TMP/t$t.err"
		echo "exit $?" >> "$TMP/t$t.err"
	done
	cmp -s "$TMP/t1.out" "$TMP/t2.out" && cmp -s "$TMP/t1.err" "$TMP/t2.err" ||
		{ st=1; diag="$diag $f"; }
done
grep -q "^exit 1$" "$TMP/t2.err" || { st=1; diag="$diag (magic-first: $(cat "$TMP/t2.err"))"; }
GRTRACE_THREADS=3 "$GRTRACE" report -i "$TMP/gen.dat" > "$TMP/out" 2> "$TMP/err"
[ $? -eq 2 ] && grep -q "GRTRACE_THREADS must be 1 or 2, not '3'" "$TMP/err" || st=1
result "report: the merge in its own thread gives one thread's report, errors and exit status" $st \
	"differ:$diag" "$(cat "$TMP/err")"

# file(1) learns the magic from the magic file shipped with the tool.
if command -v file > /dev/null 2>&1; then
	file -m "$TESTS/../grtrace.magic" "$TMP/p.grf" |
		grep -q ': grtrace trace file, version 1, stream format 1, 4 CPUs, zstd-compressed$'
	result "file(1) with grtrace.magic names a trace file" $? "$(file -m "$TESTS/../grtrace.magic" "$TMP/p.grf")"
fi

# A bad trace file: one line naming the byte and the problem; the records
# before it are still read.  grf_bad OFFSET HEX NAME MESSAGE: patch bytes.
python3 "$GOLDEN/gen_golden.py" pack "$TMP/gen.dat" "$TMP/p.grf" time 65536 zstd
grf_bad() {
	cp "$TMP/p.grf" "$TMP/bad.grf"
	printf "$2" | dd of="$TMP/bad.grf" bs=1 seek="$1" conv=notrunc 2>/dev/null
	run "$GRTRACE" dump -i "$TMP/bad.grf"
	st=0
	[ $rc -eq 1 ] || st=1
	[ "$(wc -l < "$TMP/err")" -eq 1 ] || st=1
	grep -q "^grtrace: $TMP/bad.grf: $4" "$TMP/err" || st=1
	result "dump of a trace file with $3: one line naming the byte and the problem" $st \
		"exit $rc" "want: $4" "$(cat "$TMP/err")"
}
hsize=$(python3 "$GOLDEN/gen_golden.py" info "$TMP/p.grf" | sed -n '1s/.* size=\([0-9]*\) .*/\1/p')
grf_bad 12 '\004' "a newer file version" "header at byte 0: file version 4, this grtrace reads versions 1 to 3"
grf_bad 16 '\003' "a newer stream format" "header at byte 0: stream format 3, this grtrace reads formats 1 to 2"
grf_bad "$hsize" 'XXXX' "a broken frame header" "byte $hsize: no frame here"
grf_bad $((hsize + 8)) '\377\377\377\177' "a frame longer than the file" "byte $hsize: frame of CPU [0-9]* holds"
grf_bad $((hsize + 16)) '\000\000\000\000' "a corrupt zstd frame" "frame of CPU [0-9]* at byte $hsize: zstd: "
# A corrupt record inside a frame: the records before it still come out.
python3 "$GOLDEN/gen_golden.py" pack "$GOLDEN/emit-basic.bin" "$TMP/r.grf" time 100000 raw
rh=$(python3 "$GOLDEN/gen_golden.py" info "$TMP/r.grf" | sed -n '1s/.* size=\([0-9]*\) .*/\1/p')
printf '\041' | dd of="$TMP/r.grf" bs=1 seek=$((rh + 16 + 240 + 2)) conv=notrunc 2>/dev/null
run "$GRTRACE" dump -i "$TMP/r.grf"
st=0
[ $rc -eq 1 ] || st=1
"$GRTRACE" dump -i "$GOLDEN/emit-basic.bin" | head -n 3 | cmp -s - "$TMP/out" || st=1
grep -qx "grtrace: $TMP/r.grf: frame of CPU 0 at byte $rh: corrupt record at byte 240 of its data: size 33 is not a multiple of 8" "$TMP/err" || st=1
result "dump of a frame with a corrupt 4th record: the 3 before it, then the error" $st \
	"exit $rc" "$(cat "$TMP/out" "$TMP/err")"

head -c $((hsize + 20)) "$TMP/p.grf" > "$TMP/cut.grf"
run "$GRTRACE" report -i "$TMP/cut.grf"
st=0
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: $TMP/cut.grf: byte $hsize: the file ends inside a frame of CPU" "$TMP/err" || st=1
result "report of a cut trace file names where it ends" $st "$(cat "$TMP/err")"


# ---- fake debugfs ------------------------------------------------------------

FAKE=$TMP/debugfs
export GRTRACE_DEBUGFS="$FAKE"

# fake_setup STATE: a fresh fake directory with control=STATE.
fake_setup() {
	rm -rf "$FAKE"
	mkdir -p "$FAKE"
	printf '%s\n' "$1" > "$FAKE/control"
	cat > "$FAKE/stats" <<-EOF
	enabled=0
	session=1
	emitted=10
	written=10
	bytes_written=744
	dropped_disabled=0
	dropped_filtered_watch=0
	dropped_backpressure=0
	dropped_buffer_full=0
	dropped_oversize=0
	dropped_nmi=0
	dropped_total=0
	nr_cpus=1
	EOF
}

fake_setup stopped
run "$GRTRACE" start
st=$rc
[ "$(cat "$FAKE/control")" = start ] || st=1
run "$GRTRACE" stop
[ $rc -eq 0 ] || st=1
[ "$(cat "$FAKE/control")" = stop ] || st=1
result "start and stop write the control file" $st

fake_setup started
run "$GRTRACE" status
st=$rc
{ echo "tracing: started"; cat "$FAKE/stats"; } | cmp -s - "$TMP/out" || st=1
result "status prints the state and the stats" $st "$(cat "$TMP/out" "$TMP/err")"

printf '%-16s %12s %12s\n%-16s %12s %12s\n%-16s %12s %12s\n' type emitted written \
	submit 6 5 end 4 4 > "$FAKE/events_by_type"
printf 'dropped_future_reason=3\nfuture_key=9\n' >> "$FAKE/stats"
run "$GRTRACE" stats --prometheus
st=$rc
python3 - "$TMP/out" > "$TMP/prom.err" 2>&1 <<'EOF' || st=1
import re, sys
# The text exposition format: "# HELP/TYPE name ...", then samples
# "name{label="v",...} value" of a TYPEd name.
typed, samples = {}, {}
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    m = re.fullmatch(r"# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)", line)
    if m:
        if m.group(1) == "TYPE":
            assert m.group(2) not in typed, "TYPE twice: " + line
            assert m.group(3) in ("counter", "gauge", "untyped"), line
            typed[m.group(2)] = m.group(3)
        continue
    m = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-z_]+="[^"\\]*",?)+\})? (\d+)', line)
    assert m, "not a sample: " + line
    assert m.group(1) in typed, "sample before its TYPE: " + line
    samples[m.group(1) + (m.group(2) or "")] = int(m.group(3))
want = {"grtrace_up": 1, "grtrace_tracing_enabled": 0, "grtrace_session": 1,
        "grtrace_events_emitted_total": 10, "grtrace_events_written_total": 10,
        "grtrace_bytes_written_total": 744, "grtrace_cpus": 1,
        'grtrace_events_dropped_total{reason="buffer_full"}': 0,
        'grtrace_events_dropped_total{reason="future_reason"}': 3,
        'grtrace_stat{key="future_key"}': 9,
        'grtrace_events_by_type_total{type="submit",result="emitted"}': 6,
        'grtrace_events_by_type_total{type="end",result="written"}': 4}
for k, v in want.items():
    assert samples.get(k) == v, "%s: %r, want %d" % (k, samples.get(k), v)
assert 'grtrace_events_dropped_total{reason="total"}' not in samples
assert len([k for k in samples if k.startswith("grtrace_events_dropped_total")]) == 7
EOF
result "stats --prometheus: the text exposition format, every counter and drop reason, unknown keys kept" $st \
	"$(cat "$TMP/prom.err" "$TMP/err")"

run "$GRTRACE" stats -p -o "$TMP/grtrace.prom"
st=$rc
[ -s "$TMP/out" ] && st=1
grep -q '^grtrace_up 1$' "$TMP/grtrace.prom" || st=1
GRTRACE_DEBUGFS=$TMP/nowhere run "$GRTRACE" stats -p -o "$TMP/grtrace.prom"
[ $rc -eq 1 ] || st=1
grep -q '^grtrace_up 0$' "$TMP/grtrace.prom" || st=1
[ "$(grep -c '^grtrace_' "$TMP/grtrace.prom")" = 1 ] || st=1
ls "$TMP" | grep -q 'grtrace.prom.tmp' && st=1
run "$GRTRACE" stats -p -o "$TMP/nodir/x.prom"
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: cannot create $TMP/nodir/x.prom.tmp" "$TMP/err" || st=1
run "$GRTRACE" stats
cmp -s "$FAKE/stats" "$TMP/out" || st=1
run "$GRTRACE" stats --bogus
[ $rc -eq 2 ] || st=1
result "stats -o: the whole file by rename; grtrace_up 0 and exit 1 without the module; plain stats is the stats file; a bad option exits 2" $st \
	"$(cat "$TMP/out" "$TMP/err")"

# The aggregator module's files: two rings, one window closed.
cat > "$FAKE/aggregator_stats_raw" <<'EOF'
# grtrace aggregator 1 enabled=1 window_ms=1000 windows=1 now_ns=3000000000 enabled_ns=1000000000 untracked_ring_events=0 untracked_jobs=0
scope=last ring=0 start_ns=2000000000 len_ns=1000000000 events=400 jobs=100 busy_ns=250000000 depth_area=500000000 depth_peak=3 depth_now=1 lat_n=100 lat_sum_ns=150000000 lat_min_ns=1000000 lat_max_ns=4000000 lat_p50_ns=1500000 lat_p99_ns=3900000
scope=total ring=0 start_ns=1000000000 len_ns=2000000000 events=800 jobs=200 busy_ns=500000000 depth_area=900000000 depth_peak=3 depth_now=1 lat_n=200 lat_sum_ns=300000000 lat_min_ns=1000000 lat_max_ns=4000000 lat_p50_ns=1500000 lat_p99_ns=3900000
scope=last ring=2 start_ns=2000000000 len_ns=1000000000 events=40 jobs=10 busy_ns=900000000 depth_area=2000000000 depth_peak=5 depth_now=0 lat_n=10 lat_sum_ns=50000000 lat_min_ns=2000000 lat_max_ns=9000000 lat_p50_ns=4000000 lat_p99_ns=9000000
scope=total ring=2 start_ns=1000000000 len_ns=2000000000 events=40 jobs=10 busy_ns=900000000 depth_area=2000000000 depth_peak=5 depth_now=0 lat_n=10 lat_sum_ns=50000000 lat_min_ns=2000000 lat_max_ns=9000000 lat_p50_ns=4000000 lat_p99_ns=9000000
EOF
printf '%s\n' 'id engine  instance driver          device                           name' \
	'0  render  0        vgpu            vgpu0                            vgpu0-gfx' \
	'2  copy    0        vgpu            vgpu0                            vgpu0-copy' > "$FAKE/rings"
run "$GRTRACE" top -b -n 1
st=$rc
awk 'NR == 1 { ok = $1 == "grtrace" && $2 == "top" } /^RING/ { h = NR }
     h && NR == h + 1 { a = $1 " " $2 " " $3 " " $4 " " $5 " " $6 " " $7 " " $8 " " $9 }
     h && NR == h + 2 { b = $1 " " $2 " " $3 }
     END { exit !(ok && a == "2 vgpu0-copy 90.0 2.00 5 10.0 4000.0 9000.0 40.0" && b == "0 vgpu0-gfx 25.0") }' "$TMP/out" || st=1
run "$GRTRACE" top -b -n 1 -s jobs
awk '/^RING/ { getline; exit $2 != "vgpu0-gfx" }' "$TMP/out" || st=1
for bad in "-s size" "-n 0" "-n x" "-n 99999999999999999999999" "-n +2" "-d 0.01" "extra"; do
	# shellcheck disable=SC2086
	run "$GRTRACE" top $bad
	[ $rc -eq 2 ] || { echo "# top $bad: $rc"; st=1; }
done
sed -i 's/ enabled=1 / enabled=0 /' "$FAKE/aggregator_stats_raw"
run "$GRTRACE" top -b -n 1
[ $rc -eq 1 ] && grep -q "^grtrace: the aggregator is disabled: echo 1 > $FAKE/aggregator_enable" "$TMP/err" || st=1
sed -i 's/ enabled=0 / enabled=1 /' "$FAKE/aggregator_stats_raw"
result "top -b: rings named from the rings file, by busy (or -s jobs); busy %, depth, jobs/s, p50/p99 us of the last window; bad options exit 2; disabled says how to enable" $st \
	"$(cat "$TMP/out" "$TMP/err")"

run "$GRTRACE" stats --prometheus
st=$rc
for want in 'grtrace_aggregator_enabled 1' 'grtrace_ring_jobs_total{ring="0",name="vgpu0-gfx"} 200' \
	'grtrace_ring_busy_seconds_total{ring="2",name="vgpu0-copy"} 0.900000000' \
	'grtrace_ring_queue_depth{ring="0",name="vgpu0-gfx"} 1' \
	'grtrace_ring_busy_ratio{ring="0",name="vgpu0-gfx"} 0.250000' \
	'grtrace_ring_job_latency_seconds{ring="2",name="vgpu0-copy",quantile="0.99"} 0.009000000' \
	'# TYPE grtrace_ring_events_total counter'; do
	grep -qxF "$want" "$TMP/out" || { echo "# missing: $want"; st=1; }
done
# A driver's ring name with a quote and a backslash: escaped in the label.
sed -i 's/vgpu0-gfx$/gfx"x\\y/' "$FAKE/rings"
run "$GRTRACE" stats --prometheus
grep -qxF 'grtrace_ring_jobs_total{ring="0",name="gfx\"x\\y"} 200' "$TMP/out" ||
	{ echo "# not escaped: $(grep 'grtrace_ring_jobs_total{ring="0"' "$TMP/out")"; st=1; }
mv "$FAKE/aggregator_stats_raw" "$TMP/agg.good"
run "$GRTRACE" stats --prometheus
[ $rc -eq 0 ] && ! grep -q aggregator "$TMP/out" || st=1
result "stats --prometheus: the aggregator's per-ring counters and last-window gauges when it is loaded, nothing of it otherwise" $st \
	"$(cat "$TMP/err")"

# A part of the scrape that cannot be read (here the aggregator's file in
# a format this tool does not know): -o keeps the last whole file, which
# has the aggregator's metrics.
mv "$TMP/agg.good" "$FAKE/aggregator_stats_raw"
run "$GRTRACE" stats -p -o "$TMP/grtrace.prom"
st=$rc
grep -q '^grtrace_aggregator_enabled 1$' "$TMP/grtrace.prom" || st=1
cp "$TMP/grtrace.prom" "$TMP/prom.before"
echo '# grtrace aggregator 99 enabled=1' > "$FAKE/aggregator_stats_raw"
run "$GRTRACE" stats -p -o "$TMP/grtrace.prom"
[ $rc -eq 1 ] || st=1
cmp -s "$TMP/grtrace.prom" "$TMP/prom.before" || st=1
ls "$TMP" | grep -q 'grtrace.prom.tmp' && st=1
[ "$(cat "$TMP/err")" = "grtrace: $FAKE/aggregator_stats_raw: not the format this grtrace reads (a newer module?)
grtrace: stats: $TMP/grtrace.prom left as it was: the scrape is not whole" ] || st=1
rm "$FAKE/aggregator_stats_raw"
result "stats -p -o: a scrape cut short (a part unreadable) leaves FILE as it was, exit 1, two lines naming why" $st \
	"exit $rc" "$(cat "$TMP/err")"

cat > "$TMP/grtrace_stats" <<'EOF'
grtrace perf_mon 1: window 200 ms, 5 closed; events on untracked rings (>= 64) 0
event_path: 200 events measured, cost p50 <= 2048 ns, p99 <= 16384 ns
scope  ring   util%   drop%       avg_lat_us      events/s       jobs     events
last      0  100.00    0.00            0.000          0.00          0          0
total     0   95.74    0.00            0.000          1.71          0          2
last     40    0.01   75.00           54.492         85.15         25        100
total    40    0.01   75.00           54.492         85.15         25        100
EOF
GRTRACE_PROC_STATS=$TMP/grtrace_stats run "$GRTRACE" stats --prometheus
st=$rc
for want in 'grtrace_event_path_cost_seconds{quantile="0.99"} 0.000016384' \
	'grtrace_ring_utilisation_ratio{ring="0"} 1.000000000' \
	'grtrace_ring_unwritten_ratio{ring="40"} 0.750000000' \
	'grtrace_ring_mean_job_latency_seconds{ring="40"} 0.000054492'; do
	grep -qxF "$want" "$TMP/out" || { echo "# missing: $want"; st=1; }
done
# A metric's samples follow its own TYPE line, none of another's between.
awk '/^# TYPE/ { cur = $3; if (seen[cur]++) bad = 1; next } /^#/ { next }
     { split($1, n, "{"); if (n[1] != cur) bad = 1 } END { exit bad }' "$TMP/out" || st=1
result "stats --prometheus: perf_mon's last-window figures per ring and the event path's cost, each metric's samples together" $st \
	"$(cat "$TMP/out" "$TMP/err")"

GRTRACE_DEBUGFS=$TMP/nowhere run "$GRTRACE" status
st=0
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: cannot open $TMP/nowhere/control: No such file or directory (is grtrace.ko loaded and debugfs mounted?)" "$TMP/err" || st=1
result "status without the module explains why" $st "$(cat "$TMP/err")"

# The basic golden trace, one file per CPU, as the module's buffers.
fake_split() {
	python3 - "$RG/basic.bin" "$FAKE" "$GOLDEN" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[3])
from gen_golden import records1
out = {}
for cpu, rec in records1(open(sys.argv[1], "rb").read()):
    out.setdefault(cpu, []).append(rec)
for cpu, recs in out.items():
    open("%s/events%d" % (sys.argv[2], cpu), "wb").write(b"".join(recs))
PY
}

# cpu_stream FILE CPU: CPU's records in a trace file, read by the
# document's description of the file (golden/gen_golden.py), not by grtrace.
cpu_stream() {
	python3 "$GOLDEN/gen_golden.py" stream "$1" "$2"
}

# Tracing stopped: record starts it, stops it, and copies the stream.
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
run "$GRTRACE" record -o "$TMP/rec.dat" -d 0.3
st=$rc
cpu_stream "$TMP/rec.dat" 0 | cmp -s - "$GOLDEN/emit-basic.bin" || st=1
[ "$(cat "$FAKE/control")" = stop ] || st=1
grep -q "^grtrace: recorded 10 records (8 events) to $TMP/rec.dat, $(stat -c %s "$TMP/rec.dat") bytes\$" "$TMP/err" || st=1
grep -q "^grtrace: dropped: 0\$" "$TMP/err" || st=1
grep -q "WARNING" "$TMP/err" && st=1
result "record copies one CPU's stream, starts and stops tracing" $st \
	"exit $rc" "control: $(cat "$FAKE/control")" "$(cat "$TMP/err")"

# A reader of a recording reads it whole while record writes a new one of
# the same name: record replaces the file, never cuts it under the reader
# (the library maps it: a file cut would end the reader with SIGBUS).
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
run "$GRTRACE" record --no-compress -o "$TMP/rec.dat" -d 0.3
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
got=$(env $PY_ENV GRTRACE_LIB="$(dirname "$GRTRACE")/lib/libgrtrace.so.1" \
	PYTHONPATH="$TESTS/../python" $SYS_PY -c '
import subprocess, sys, grtrace
t = grtrace.Trace(sys.argv[1])
it = t.records()
n = sum(1 for _ in zip(range(2), it))
r = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
n += sum(1 for _ in it)
print("record exit", r.returncode, "records", n)' "$TMP/rec.dat" "$GRTRACE" record -o "$TMP/rec.dat" -d 0.3 2>&1)
st=0
[ "$got" = "record exit 0 records 10" ] || st=1
"$GRTRACE" dump -i "$TMP/rec.dat" | cmp -s - "$GOLDEN/emit-basic.dump" || st=1
result "a recording read while record writes another of its name: the reader gets all 10 of its records (not 2), the new file is whole" $st "$got"

# Defaults: record writes grtrace.dat; report and dump read it when their
# standard input is not a pipe or a file; report never drains the buffers
# unless --live.
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
mkdir -p "$TMP/cwd"
GR_ABS=$(cd "$(dirname "$GRTRACE")" && pwd)/$(basename "$GRTRACE")
(cd "$TMP/cwd" && GRTRACE=$GR_ABS && run "$GRTRACE" record -d 300ms < /dev/null && echo "$rc" > rc1 &&
	"$GRTRACE" dump < /dev/null > dump.txt 2> dump.err && echo $? > rc2 &&
	"$GRTRACE" report --format json < /dev/null > rep.json 2> rep.err && echo $? > rc3 &&
	"$GRTRACE" report --format json < grtrace.dat > rep2.json 2>> rep.err)
st=0
[ "$(cat "$TMP/cwd/rc1" "$TMP/cwd/rc2" "$TMP/cwd/rc3" 2>/dev/null | tr -d '\n')" = 000 ] || st=1
cmp -s "$TMP/cwd/dump.txt" "$GOLDEN/emit-basic.dump" || st=1
[ -s "$TMP/cwd/rep.err" ] && st=1
sed 's/"input":"grtrace.dat"//' "$TMP/cwd/rep.json" > "$TMP/cwd/a.json"
sed 's/"input":"<stdin>"//' "$TMP/cwd/rep2.json" > "$TMP/cwd/b.json"
cmp -s "$TMP/cwd/a.json" "$TMP/cwd/b.json" || st=1
grep -q '"input":"grtrace.dat"' "$TMP/cwd/rep.json" || st=1
[ "$(wc -c < "$FAKE/events0")" = "$(wc -c < "$GOLDEN/emit-basic.bin")" ] || st=1
result "record -d 300ms writes grtrace.dat; dump and report read it by default, or a pipe; the buffers stay" $st \
	"$(cat "$TMP/cwd/dump.err" "$TMP/cwd/rep.err" 2>/dev/null)"
(cd "$TMP/cwd" && GRTRACE=$GR_ABS && rm -f grtrace.dat && run "$GRTRACE" report < /dev/null &&
	cp "$TMP/err" err.txt && echo $rc > rc4)
st=0
[ "$(cat "$TMP/cwd/rc4")" = 1 ] || st=1
grep -qxF "grtrace: cannot open grtrace.dat: No such file or directory (no input given: 'grtrace record' writes one here, or give -i FILE, or --live to read the module's buffers)" "$TMP/cwd/err.txt" || st=1
(cd "$TMP/cwd" && run "$GR_ABS" dump < /dev/null; cp "$TMP/err" dumperr.txt; echo $rc > rc5)
[ "$(cat "$TMP/cwd/rc5")" = 1 ] || st=1
grep -qxF "grtrace: cannot open grtrace.dat: No such file or directory (no input given: 'grtrace record' writes one here, or give -i FILE)" "$TMP/cwd/dumperr.txt" || st=1
result "report and dump with no input and no grtrace.dat: one line saying where one comes from (report: or --live), exit 1" $st "$(cat "$TMP/cwd/err.txt" "$TMP/cwd/dumperr.txt")"

# record -- COMMAND: recording until the command exits, its status said.
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
t0=$(date +%s%N)
run "$GRTRACE" record -o "$TMP/cmd.dat" -- sh -c 'sleep 0.5; exit 3'
t1=$(date +%s%N)
st=$rc
grep -q "^grtrace: sh exited with status 3\$" "$TMP/err" || st=1
cpu_stream "$TMP/cmd.dat" 0 | cmp -s - "$GOLDEN/emit-basic.bin" || st=1
[ "$(cat "$FAKE/control")" = stop ] || st=1
[ $(( (t1 - t0) / 1000000 )) -lt 5000 ] || st=1
result "record -- COMMAND records until it exits and says its status" $st "exit $rc" "$(cat "$TMP/err")"
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
run "$GRTRACE" record -o "$TMP/cmd.dat" -d 0.3 -- sleep 30
st=$rc
grep -q "^grtrace: sleep was killed by signal 15\$" "$TMP/err" || st=1
result "record -d with a COMMAND still running: it gets SIGTERM" $st "exit $rc" "$(cat "$TMP/err")"
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
run "$GRTRACE" record -o "$TMP/cmd.dat" -- /nonexistent/cmd
st=0
grep -q "^grtrace: cannot run /nonexistent/cmd: No such file or directory" "$TMP/err" || st=1
grep -q "^grtrace: /nonexistent/cmd exited with status 127\$" "$TMP/err" || st=1
result "record -- a command that cannot run: says so" $st "exit $rc" "$(cat "$TMP/err")"

# The paths of a real machine and user through record.  -o - with a
# COMMAND: the command's output must not land in the trace on stdout.
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
run "$GRTRACE" record -o - -- sh -c 'sleep 0.3; echo build output'
st=$rc
cpu_stream "$TMP/out" 0 | cmp -s - "$GOLDEN/emit-basic.bin" || st=1
"$GRTRACE" dump -i "$TMP/out" > /dev/null 2>&1 || st=1
grep -qx "build output" "$TMP/err" || st=1
result "record -o - -- COMMAND: the command's output goes to stderr, the trace on stdout is whole" $st \
	"exit $rc" "$(cat "$TMP/err")"

# Joining a session whose producer outruns a slow output: Ctrl-C ends the
# recording within seconds (the drains stop; the last one after a second;
# each 1 MiB frame takes 1.6 s to go out); it used to read for ever.
fake_setup started
rm -f "$FAKE/events0"
mkfifo "$FAKE/events0"
python3 - "$FAKE/events0" "$GOLDEN/emit-basic.bin" <<'PY' &
import fcntl, sys
b = open(sys.argv[2], "rb").read() * 512
try:
    with open(sys.argv[1], "wb") as f:
        # A FIFO as deep as a read: every read of record comes back full.
        fcntl.fcntl(f.fileno(), 1031, 1 << 20)  # F_SETPIPE_SZ
        while True:
            f.write(b)
except (BrokenPipeError, OSError):
    pass
PY
feeder=$!
"$GRTRACE" record --no-compress -o - 2> "$TMP/slow.err" |
	python3 -c 'import sys, time
f = sys.stdin.buffer
while f.read(65536):
    time.sleep(0.1)' &
sleep 1
recpid=$(pgrep -f "^$GRTRACE record --no-compress -o -" | head -n 1)
t0=$(date +%s%N)
[ -n "$recpid" ] && kill -INT "$recpid"
for _ in $(seq 250); do
	[ -n "$recpid" ] && kill -0 "$recpid" 2>/dev/null || break
	sleep 0.1
done
t1=$(date +%s%N)
st=0
[ -n "$recpid" ] || st=1
kill -0 "$recpid" 2>/dev/null && { st=1; kill -KILL "$recpid"; }
kill "$feeder" 2>/dev/null
wait
[ $(( (t1 - t0) / 1000000 )) -lt 15000 ] || st=1
grep -q "^grtrace: recorded [0-9]* records" "$TMP/slow.err" || st=1
result "record of a live session faster than its output: Ctrl-C ends it within 15 s, with its summary" $st \
	"$(( (t1 - t0) / 1000000 )) ms" "$(cat "$TMP/slow.err")"

# A workload that ignores SIGTERM is killed 5 s after it; told to stop
# again, record kills it at once.  Either way the summary is printed and
# the buffer size put back.
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
echo 1048576 > "$FAKE/buffer_size"
t0=$(date +%s%N)
run "$GRTRACE" record -o "$TMP/term.dat" -b 2M -d 0.3 -- sh -c 'trap "" TERM; sleep 9'
t1=$(date +%s%N)
st=$rc
ms=$(( (t1 - t0) / 1000000 ))
[ "$ms" -ge 4500 ] && [ "$ms" -lt 8000 ] || st=1
grep -qx "grtrace: sh is still running 5 s after SIGTERM: sending SIGKILL" "$TMP/err" || st=1
grep -qx "grtrace: sh was killed by signal 9" "$TMP/err" || st=1
grep -q "^grtrace: recorded 10 records" "$TMP/err" || st=1
[ "$(cat "$FAKE/buffer_size")" = 1048576 ] || st=1
result "record -- COMMAND that ignores SIGTERM: killed 5 s later, summary said, buffer size put back" $st \
	"exit $rc after $ms ms" "$(cat "$TMP/err")"
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
echo 1048576 > "$FAKE/buffer_size"
"$GRTRACE" record -o "$TMP/term.dat" -b 2M -- sh -c 'trap "" TERM INT; sleep 9' \
	> /dev/null 2> "$TMP/err" &
recpid=$!
sleep 0.5
kill -INT $recpid
sleep 0.3
kill -INT $recpid
t0=$(date +%s%N)
wait $recpid
rc=$?
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
st=$rc
[ "$ms" -lt 3000 ] || st=1
grep -qx "grtrace: sh is still running and record was told to stop again: sending SIGKILL" "$TMP/err" || st=1
grep -q "^grtrace: recorded 10 records" "$TMP/err" || st=1
[ "$(cat "$FAKE/buffer_size")" = 1048576 ] || st=1
[ "$(cat "$FAKE/control")" = stop ] || st=1
result "record -- COMMAND that ignores SIGINT and SIGTERM, Ctrl-C twice: killed at once, exit 0, summary said, settings put back" $st \
	"exit $rc, $ms ms after the second" "$(cat "$TMP/err")"

# A closed terminal (SIGHUP) stops a recording as Ctrl-C does.
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
"$GRTRACE" record -o "$TMP/hup.dat" > /dev/null 2> "$TMP/err" &
recpid=$!
sleep 0.5
kill -HUP $recpid
wait $recpid
rc=$?
st=$rc
[ "$(cat "$FAKE/control")" = stop ] || st=1
grep -q "^grtrace: recorded 10 records" "$TMP/err" || st=1
cpu_stream "$TMP/hup.dat" 0 | cmp -s - "$GOLDEN/emit-basic.bin" || st=1
result "record stopped by SIGHUP: tracing stopped, the file whole, exit 0" $st "exit $rc" "$(cat "$TMP/err")"

# A recording that cannot start leaves an existing file of its name as
# it was.
fake_setup started
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
echo 1048576 > "$FAKE/buffer_size"
printf 'an older recording\n' > "$TMP/old.dat"
run "$GRTRACE" record -o "$TMP/old.dat" -b 64M -d 0.3
st=0
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/old.dat")" = "an older recording" ] || st=1
run "$GRTRACE" record -o "$TMP" -d 0.3
[ $rc -eq 1 ] || st=1
grep -qx "grtrace: cannot create $TMP: Is a directory" "$TMP/err" || st=1
[ "$(cat "$FAKE/control")" = started ] || st=1
result "record that cannot start (-b while tracing, a directory as output): the old file untouched, nothing changed" $st \
	"exit $rc" "$(cat "$TMP/err")"

# A CPU that cannot be read on stops the recording, and says so.
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
mkdir "$FAKE/events1"
sed -i 's/^nr_cpus=1$/nr_cpus=2/' "$FAKE/stats"
t0=$(date +%s%N)
run "$GRTRACE" record -o "$TMP/cpu.dat" -d 5
t1=$(date +%s%N)
st=0
ms=$(( (t1 - t0) / 1000000 ))
[ $rc -eq 1 ] && [ "$ms" -lt 3000 ] || st=1
grep -q "^grtrace: cannot read $FAKE/events1: Is a directory" "$TMP/err" || st=1
grep -qx "grtrace: recording FAILED: a CPU could not be read on (above), so it stopped there; $TMP/cpu.dat holds what was read until then" "$TMP/err" || st=1
[ "$(cat "$FAKE/control")" = stop ] || st=1
result "record: a CPU whose events cannot be read stops the recording at once, FAILED said, tracing stopped" $st \
	"exit $rc after $ms ms" "$(cat "$TMP/err")"

# The disk full (here a file size limit of 1.5 MiB, past one frame of 1
# MiB): the file ends with its last whole frame, every reader reads it,
# and the count is of what it holds.
fake_setup stopped
python3 -c 'import sys; open(sys.argv[2], "wb").write(open(sys.argv[1], "rb").read() * 4000)' \
	"$GOLDEN/emit-basic.bin" "$FAKE/events0"
python3 -c 'import os, resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (3 << 19, 3 << 19))
os.execvp(sys.argv[1], sys.argv[1:])' "$GRTRACE" record --no-compress -o "$TMP/full.dat" -d 0.3 \
	> /dev/null 2> "$TMP/err"
rc=$?
st=0
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: cannot write $TMP/full.dat: File too large" "$TMP/err" || st=1
"$GRTRACE" dump -i "$TMP/full.dat" > "$TMP/full.dump" 2> "$TMP/full.derr" || st=1
n=$(grep -c . "$TMP/full.dump")
grep -q "^grtrace: recorded $n records" "$TMP/err" || st=1
[ "$n" -gt 0 ] && [ "$n" -lt 40000 ] || st=1
result "record to a full disk: the file cut back to its last whole frame, dump reads all $n records, the summary counts $n" $st \
	"exit $rc" "$(cat "$TMP/err" "$TMP/full.derr")"

# A module with hundreds of CPUs: the cseq file is read whole (it was cut
# at 16 KiB, and CPU 0's tail, last here, lost or cut).
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
{
	echo "session=1 enabled=0"
	for c in $(seq 1 499); do
		echo "cpu=$c next=1234567890123 start=1234567890123"
	done
	echo "cpu=0 next=12 start=0"
} > "$FAKE/cseq"
run "$GRTRACE" record -o "$TMP/cseq.dat" -d 0.3
st=$rc
"$GRTRACE" report -i "$TMP/cseq.dat" > "$TMP/cseq.txt" 2>&1 || st=1
grep -E '^lost: ' "$TMP/cseq.txt" | grep -q '\<2\>' || st=1
result "record with a cseq file of 500 CPUs (22 KB): CPU 0's tail, on its last line, read: its 2 records lost after the last are counted" $st \
	"exit $rc" "$(grep -E '^(lost|records):' "$TMP/cseq.txt")" "$(cat "$TMP/err")"

# Format 2: the module says so in its config; the file says it too.
fake_setup stopped
printf 'level=normal\nformat=2\n' > "$FAKE/config"
cp "$GOLDEN/emit-basic-v2.bin" "$FAKE/events0"
run "$GRTRACE" record -o "$TMP/v2.dat" -d 0.3
st=$rc
cpu_stream "$TMP/v2.dat" 0 | cmp -s - "$GOLDEN/emit-basic-v2.bin" || st=1
"$GRTRACE" dump --header -i "$TMP/v2.dat" > "$TMP/v2.dump" || st=1
head -n 1 "$TMP/v2.dump" | grep -q "stream_format=2 " || st=1
tail -n +2 "$TMP/v2.dump" | cmp -s - "$GOLDEN/emit-basic-v2.dump" || st=1
grep -q "^grtrace: recorded 10 records (8 events)" "$TMP/err" || st=1
result "record of a format 2 module: the trace file says format 2, dump reads it" $st "exit $rc" "$(cat "$TMP/err")"
fake_setup stopped
printf 'level=normal\nformat=2\n' > "$FAKE/config"
cp "$GOLDEN/emit-basic-v2.bin" "$FAKE/events0"
run "$GRTRACE" report --live --format json
st=$rc
grep -q '"jobs":3' "$TMP/out" || st=1
result "live report of a format 2 module converts it" $st "exit $rc" "$(cat "$TMP/err")"
# CPU ids past 4095 (MAXSMP kernels have 8192): read like any other;
# past 65535, which a record's header cannot name, said and left.
# cpu5000 FILE: emit-basic.bin as CPU 5000's channel holds it (each
# record's header names its CPU: struct grtrace_hdr, cpu at byte 4).
cpu5000() {
	python3 -c 'import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
o = 0
while o < len(b):
    struct.pack_into("<H", b, o + 4, 5000)
    o += struct.unpack_from("<H", b, o + 2)[0]
sys.stdout.buffer.write(b)' "$GOLDEN/emit-basic.bin" > "$1"
}
fake_setup stopped
cpu5000 "$FAKE/events5000"
run "$GRTRACE" report --live --format json
st=$rc
grep -q '"jobs":3' "$TMP/out" || st=1
fake_setup stopped
cpu5000 "$FAKE/events5000"
cp "$FAKE/events5000" "$TMP/c5000.bin"
: > "$FAKE/events70000"
run "$GRTRACE" record -o "$TMP/c5000.dat" -d 0.3
[ $rc -eq 0 ] || st=1
cpu_stream "$TMP/c5000.dat" 5000 | cmp -s - "$TMP/c5000.bin" || st=1
grep -qxF "grtrace: $FAKE/events70000: a CPU id above 65535, which the stream cannot name: not read" "$TMP/err" || st=1
result "CPU 5000's channel: report --live and record read it; CPU 70000's is named as not read" $st \
	"exit $rc" "$(cat "$TMP/err")"
# The config changed to format 1 after a format 2 session stopped: the
# records in the channels are read as the module says they are (stats'
# stream_format), not as the config now says; a read consumes them.
fake_setup stopped
printf 'level=normal\nformat=1\n' > "$FAKE/config"
echo stream_format=2 >> "$FAKE/stats"
cp "$GOLDEN/emit-basic-v2.bin" "$FAKE/events0"
run "$GRTRACE" report --live --format json
st=$rc
grep -q '"jobs":3' "$TMP/out" || st=1
result "live report after the config went to format 1: the format 2 records read as the stats file's stream_format says" $st \
	"exit $rc" "$(cat "$TMP/err")"

# DRM clients: SUBMITs pushed by kworker 77 name the client of the file
# they came through (tests/export_check.py's kworker_scenario(): clients
# 7, 9, 7).  record names the process holding each from /proc's fdinfo,
# here a fake one (GRTRACE_PROC): 7 is glxgears' (4242); 8, Xorg's, is
# found by the same pass but no SUBMIT names it; 9 was closed before.
fake_setup stopped
FP=$TMP/proc
rm -rf "$FP"
mkdir -p "$FP/4242/fdinfo" "$FP/4242/task/4243" "$FP/77/fdinfo" \
	"$FP/77/task/77" "$FP/5000/fdinfo" "$FP/self"
echo glxgears > "$FP/4242/comm"
echo glxgears:cs0 > "$FP/4242/task/4243/comm"
echo kworker/u8:2 > "$FP/77/comm"
echo kworker/u8:2 > "$FP/77/task/77/comm"
echo Xorg > "$FP/5000/comm"
printf 'pos:\t0\nflags:\t02100002\nmnt_id:\t25\nino:\t7\n' > "$FP/4242/fdinfo/0"
printf 'pos:\t0\nflags:\t02100002\nmnt_id:\t25\nino:\t9\ndrm-driver:\tvirtio_gpu\ndrm-client-id:\t7\ndrm-engine-gfx:\t0 ns\n' > "$FP/4242/fdinfo/5"
printf 'pos:\t0\ndrm-driver:\tvirtio_gpu\ndrm-client-id:\t8\n' > "$FP/5000/fdinfo/12"
python3 - "$TESTS" "$FAKE/events0" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from export_check import kworker_scenario
open(sys.argv[2], "wb").write(kworker_scenario().chunks())
PY
GRTRACE_PROC=$FP run "$GRTRACE" record -o "$TMP/clients.dat" -d 0.3
st=$rc
grep -qxF "grtrace: submitting threads: 2 named in the file's task table" "$TMP/err" || st=1
grep -qxF "grtrace: DRM clients: 1 named in the file's client table" "$TMP/err" || st=1
grep -qxF "grtrace:   1 not found (closed before record saw them): their jobs go to the submitting thread" "$TMP/err" || st=1
"$GRTRACE" dump --header -i "$TMP/clients.dat" | head -n 1 | grep -q "^# trace file: version=3 " || st=1
env $PY_ENV python3 "$TESTS/../scripts/parse_events.py" --json "$TMP/clients.dat" |
	grep '"type": "CLIENT"' > "$TMP/clients.rows" || st=1
python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
got = [(r["client"], r["pid"], r["fields"]["process"]) for r in rows]
sys.exit(got != [(7, 4242, "glxgears")])' "$TMP/clients.rows" || st=1
"$GRTRACE" report -i "$TMP/clients.dat" > "$TMP/clients.txt" || st=1
for want in "100:1 glxgears/4242" "100:2 kworker/u8:2/77" "100:3 glxgears/4242"; do
	awk '/^[0-9]+:[0-9]+ / { print $1, $(NF - 1) }' "$TMP/clients.txt" |
		grep -qxF "$want" || { st=1; echo "# missing: $want" >> "$TMP/err"; }
done
result "record names the process of each DRM client the SUBMITs name from /proc's fdinfo, report names it as the submitter" $st \
	"exit $rc" "$(cat "$TMP/err")" "$(cat "$TMP/clients.rows" 2>/dev/null)"

# Tracing started: left alone.  Two CPUs; dump orders them by gseq again.
fake_setup started
fake_split
run "$GRTRACE" record -o "$TMP/rec.dat" -d 0.3
st=$rc
[ "$(cat "$FAKE/control")" = started ] || st=1
cpu_stream "$TMP/rec.dat" 1 | cmp -s - "$FAKE/events1" || st=1
cpu_stream "$TMP/rec.dat" 0 | cmp -s - "$FAKE/events0" || st=1
grep -q "^grtrace: recording 2 CPUs" "$TMP/err" || st=1
"$GRTRACE" dump -i "$RG/basic.bin" > "$TMP/want.dump"
"$GRTRACE" dump -i "$TMP/rec.dat" | cmp -s - "$TMP/want.dump" || st=1
result "record of two CPUs dumps in gseq order, tracing left on" $st \
	"exit $rc" "control: $(cat "$FAKE/control")" "$(cat "$TMP/err")"

# Records cut by the reads: the file is read in pieces by a FIFO writer.
fake_setup started
rm -f "$FAKE/events0"
mkfifo "$FAKE/events0"
( exec 3> "$FAKE/events0"
  head -c 10 "$GOLDEN/emit-basic.bin" >&3; sleep 0.2
  tail -c +11 "$GOLDEN/emit-basic.bin" | head -c 290 >&3; sleep 0.2
  tail -c +301 "$GOLDEN/emit-basic.bin" >&3
  exec 3>&- ) &
writer=$!
run "$GRTRACE" record -o "$TMP/rec.dat" -d 1
# A writer still blocked opening the FIFO had no reader: do not hang on it.
kill $writer 2>/dev/null
wait $writer
st=$rc
cpu_stream "$TMP/rec.dat" 0 | cmp -s - "$GOLDEN/emit-basic.bin" || st=1
result "record reassembles records split across reads" $st "exit $rc" "$(cat "$TMP/err")"

# SIGINT ends the recording; the final drain still gets everything.
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
"$GRTRACE" record -o "$TMP/rec.dat" > "$TMP/out" 2> "$TMP/err" &
pid=$!
sleep 0.3
kill -INT $pid
wait $pid
rc=$?
st=$rc
cpu_stream "$TMP/rec.dat" 0 | cmp -s - "$GOLDEN/emit-basic.bin" || st=1
[ "$(cat "$FAKE/control")" = stop ] || st=1
result "record stops cleanly on SIGINT" $st "exit $rc" "$(cat "$TMP/err")"

# record_with_drops KEY=N...: a 2 s record on a fake session whose stats
# gain those drop counters (and dropped_total their sum) once it has read
# them first: its "recording" line comes after.  (A fixed 0.4 s, on a
# loaded machine, once came before record's first read.)
record_with_drops() {
	script='' sum=0

	for kv in "$@"; do
		script="${script}s/^${kv%%=*}=0\$/$kv/;"
		sum=$((sum + ${kv#*=}))
	done
	script="${script}s/^dropped_total=0\$/dropped_total=$sum/"
	fake_setup stopped
	cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
	rm -f "$TMP/err"
	( for _ in $(seq 200); do
		grep -q "^grtrace: recording" "$TMP/err" 2>/dev/null && break
		sleep 0.05
	  done
	  sed "$script" "$FAKE/stats" > "$FAKE/stats.new"
	  mv "$FAKE/stats.new" "$FAKE/stats" ) &
	bg=$!
	run "$GRTRACE" record -o "$TMP/rec.dat" -d 2
	wait $bg
}

# Drops counted during the recording are reported, by reason, loudly.
record_with_drops dropped_buffer_full=5 dropped_oversize=2
st=$rc
grep -q "^grtrace: dropped: 7 (buffer_full 5, oversize 2)\$" "$TMP/err" || st=1
grep -q "^grtrace: WARNING: 7 records were DROPPED" "$TMP/err" || st=1
grep -q "buffer_size" "$TMP/err" || st=1
result "record reports drops by reason with a warning" $st "exit $rc" "$(cat "$TMP/err")"

# The advice names the reason: drops while stopped and drops asked for are
# noted, not blamed on the buffer; the buffer is blamed only for its own.
record_with_drops dropped_disabled=3 dropped_filtered_watch=4
st=$rc
grep -qx "grtrace: dropped: 7 (disabled 3, filtered_watch 4)" "$TMP/err" || st=1
grep -q "^grtrace: note: 3 came while tracing was stopped" "$TMP/err" || st=1
grep -q "^grtrace: note: 4 were left out as configured" "$TMP/err" || st=1
grep -q "WARNING\|buffer_size" "$TMP/err" && st=1
result "record's advice: drops while stopped or asked for are notes, no buffer advice" $st \
	"exit $rc" "$(cat "$TMP/err")"

record_with_drops dropped_disabled=1 dropped_backpressure=2 dropped_nmi=5
st=$rc
grep -qx "grtrace: WARNING: 7 records were DROPPED by the kernel; this recording is INCOMPLETE." "$TMP/err" || st=1
grep -q "^grtrace: WARNING: 2 because the reader fell behind" "$TMP/err" || st=1
grep -q "^grtrace: WARNING: 5 not recordable (nmi" "$TMP/err" || st=1
grep -q "^grtrace: note: 1 came while tracing was stopped" "$TMP/err" || st=1
result "record's advice: buffer advice for 2 backpressure drops, NMI named, stopped noted" $st \
	"exit $rc" "$(cat "$TMP/err")"

# A write error on the output file is fatal, and tracing is still stopped.
if [ -w /dev/full ]; then
	fake_setup stopped
	cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
	run "$GRTRACE" record -o /dev/full -d 0.3
	st=0
	[ $rc -eq 1 ] || st=1
	grep -q "^grtrace: cannot write /dev/full: No space left on device" "$TMP/err" || st=1
	grep -q "recording FAILED" "$TMP/err" || st=1
	[ "$(cat "$FAKE/control")" = stop ] || st=1
	result "record fails on a write error and still stops tracing" $st \
		"exit $rc" "$(cat "$TMP/err")"
fi

# A stream ending inside a record is reported, not silently cut.
fake_setup started
head -c 700 "$GOLDEN/emit-basic.bin" > "$FAKE/events0"
run "$GRTRACE" record -o "$TMP/rec.dat" -d 0.3
st=0
[ $rc -eq 1 ] || st=1
[ "$(cpu_stream "$TMP/rec.dat" 0 | wc -c)" -eq 672 ] || st=1
grep -q "^grtrace: $FAKE/events0: the stream ends inside a record: 28 bytes at byte 672 were not written" "$TMP/err" || st=1
result "record reports a partial record at the end" $st "exit $rc" "$(cat "$TMP/err")"

# A corrupt stream from the kernel is reported with its offset.
fake_setup started
head -c 64 "$GOLDEN/emit-basic.bin" > "$FAKE/events0"
printf '\001\000\041\000' >> "$FAKE/events0"
head -c 100 /dev/zero >> "$FAKE/events0"
run "$GRTRACE" record -o "$TMP/rec.dat" -d 0.3
st=0
[ $rc -eq 1 ] || st=1
[ "$(cpu_stream "$TMP/rec.dat" 0 | wc -c)" -eq 64 ] || st=1
grep -q "^grtrace: $FAKE/events0: corrupt record at byte 64: size 33 is not a multiple of 8" "$TMP/err" || st=1
result "record reports a corrupt kernel stream" $st "exit $rc" "$(cat "$TMP/err")"

fake_setup stopped
rm -f "$FAKE/events0"
run "$GRTRACE" record -o "$TMP/rec.dat" -d 0.3
st=0
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: no events<cpu> files in $FAKE: tracing was never started" "$TMP/err" || st=1
# It started tracing (which creates the files), so it stops it again.
[ "$(cat "$FAKE/control")" = stop ] || st=1
result "record with no events files after its start fails and stops tracing again" $st "$(cat "$TMP/err")"

# ---- live report, config, record -b, progress (fake debugfs) ---------------


fake_setup stopped
fake_split
run "$GRTRACE" report --live --format json $RULES
st=$rc
sed 's/"input":"[^"]*"//' "$TMP/out" > "$TMP/a"
cmp -s "$TMP/a" "$TMP/b" || st=1
[ -s "$TMP/err" ] && st=1
result "live report reads every events file: same as the file" $st "$(cat "$TMP/err")" "$(diff "$TMP/a" "$TMP/b" | head -5)"

fake_setup started
fake_split
run "$GRTRACE" report --live --hist result
st=$rc
grep -q "^grtrace: warning: tracing is still started" "$TMP/err" || st=1
grep -Eq '^  written +36 \|#+$' "$TMP/out" || st=1
grep -Eq '^  dropped_buffer_full +0 \|$' "$TMP/out" || st=1
result "live report: warns while started, --hist result uses the stats file" $st "$(cat "$TMP/out" "$TMP/err" | tail -8)"

run "$GRTRACE" report -i "$RG/basic.bin" --hist result
st=$rc
grep -q "drops by reason are not in a trace file" "$TMP/out" || st=1
result "report --hist result of a file says the drops are not in it" $st

fake_setup stopped
printf 'level=normal\nclock=monotonic\nfilter_ring_id=-1\n' > "$FAKE/config"
run "$GRTRACE" config
st=$rc
cmp -s "$TMP/out" "$FAKE/config" || st=1
run "$GRTRACE" config clock level
[ $rc -eq 0 ] || st=1
[ "$(cat "$TMP/out")" = "$(printf 'clock=monotonic\nlevel=normal')" ] || st=1
result "config prints the file, or the keys asked for" $st "$(cat "$TMP/out" "$TMP/err")"

run "$GRTRACE" config level=verbose filter_ring_id=3
st=$rc
[ "$(cat "$FAKE/config")" = "$(printf 'level=verbose\nfilter_ring_id=3')" ] || st=1
[ -s "$TMP/out" ] && st=1
result "config KEY=VALUE... writes the settings in one write" $st "$(cat "$FAKE/config" "$TMP/err")"

printf 'level=normal\n' > "$FAKE/config"
run "$GRTRACE" config bogus
st=0
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: config: no key 'bogus'" "$TMP/err" || st=1
result "config of an unknown key fails" $st "$(cat "$TMP/err")"

# A setting beside a bad query, an option after a setting, an empty
# argument: refused before anything is written (the setting was applied
# first, then the command failed).
st=0
for args in "level=verbose bogus" "level=verbose --help" "level=verbose ''"; do
	printf 'level=normal\n' > "$FAKE/config"
	eval "run \"\$GRTRACE\" config $args"
	case $args in *bogus) want=1 ;; *) want=2 ;; esac
	[ $rc -eq $want ] || { st=1; echo "config $args: exit $rc" >> "$TMP/cfgerr"; }
	[ "$(cat "$FAKE/config")" = level=normal ] ||
		{ st=1; echo "config $args: the config changed" >> "$TMP/cfgerr"; }
	cat "$TMP/err" >> "$TMP/cfgerr"
done
result "config with a bad query, an option after a setting or an empty argument: refused, nothing written" $st \
	"$(cat "$TMP/cfgerr")"

# record -b: set for the recording, restored after; refused while started.
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
echo 4194304 > "$FAKE/buffer_size"
run "$GRTRACE" record -o "$TMP/rec.dat" -d 0.3 -b 64K
st=$rc
grep -q "^grtrace: buffer_size 4194304 -> 65536 bytes per CPU for this recording\$" "$TMP/err" || st=1
[ "$(cat "$FAKE/buffer_size")" = 4194304 ] || st=1
cpu_stream "$TMP/rec.dat" 0 | cmp -s - "$GOLDEN/emit-basic.bin" || st=1
result "record -b sets buffer_size and restores it" $st "exit $rc" "$(cat "$TMP/err")"

fake_setup started
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
echo 4194304 > "$FAKE/buffer_size"
run "$GRTRACE" record -o "$TMP/rec.dat" -d 0.3 -b 1M
st=0
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: record: -b needs tracing stopped" "$TMP/err" || st=1
[ "$(cat "$FAKE/buffer_size")" = 4194304 ] || st=1
[ "$(cat "$FAKE/control")" = started ] || st=1
result "record -b is refused while tracing is started" $st "$(cat "$TMP/err")"

# 17592186044544M wraps round to 128M if shifted before the check.
for b in 1000 100K 512M 4G x 17592186044544M; do
	run "$GRTRACE" record -o "$TMP/rec.dat" -b $b
	st=0
	[ $rc -eq 2 ] || st=1
	grep -q "^grtrace: record: invalid buffer size '$b'" "$TMP/err" || st=1
	result "record rejects -b $b" $st "$(cat "$TMP/err")"
done

if command -v script > /dev/null 2>&1; then
	fake_setup stopped
	cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
	script -qec "'$GRTRACE' record -o '$TMP/rec.dat' -d 1.6" /dev/null > "$TMP/out" 2>&1
	st=$?
	grep -q 'events/s, [0-9.]* MB written, 0 dropped' "$TMP/out" || st=1
	fake_setup stopped
	cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
	run "$GRTRACE" record -o "$TMP/rec.dat" -d 1.6
	grep -q 'events/s' "$TMP/err" && st=1
	result "record shows progress on a terminal only" $st "$(tr '\r' '\n' < "$TMP/out" | head -5)"
fi

run "$GRTRACE" dump -i "$GOLDEN/emit-basic.bin" --raw
st=$rc
[ "$(sed -n 2p "$TMP/out")" = "    0000: 00 01 40 00 00 00 00 00 00 00 00 00 00 00 00 00" ] || st=1
# 64 + 104 + 8 x 72 bytes: 4 + 7 + 8 x 5 lines
[ "$(grep -c '^    00[0-9a-f]0:' "$TMP/out")" -eq 51 ] || st=1
grep -v '^    ' "$TMP/out" | cmp -s - "$GOLDEN/emit-basic.dump" || st=1
result "dump --raw adds each record's bytes in hex" $st "$(head -5 "$TMP/out")"

# ---- the flight recorder --------------------------------------------------------

. "$TESTS/recorder-tests.sh"
. "$TESTS/recorder-service-tests.sh"

# ---- the tool's layout ---------------------------------------------------------

# The tool, the fuzz target and the test programs include no private
# header of lib/ (the library's own tests live in lib/tests/).
if command -v python3 > /dev/null 2>&1; then
	python3 "$TESTS/public-only.py" . > "$TMP/out" 2>&1
	result "the tool's sources include only the public header of libgrtrace" $? "$(cat "$TMP/out")"
	echo "# $(tail -n 1 "$TMP/out")" >> "$RESULTS"
else
	ok "the tool's sources include only the public header of libgrtrace # SKIP no python3"
fi

# The tool links the public libgrtrace.a: what its objects take from the
# library's objects is grtrace_* alone (anything else would not link).
if [ -n "${TOOL_OBJS:-}" ] && [ -n "${LIB_OBJS:-}" ]; then
	nm --defined-only -g $LIB_OBJS 2>/dev/null | awk 'NF == 3 { print $3 }' |
		sort -u > "$TMP/libdefs"
	nm -u $TOOL_OBJS 2>/dev/null | awk 'NF == 2 { print $2 }' | sort -u |
		comm -12 - "$TMP/libdefs" > "$TMP/uses"
	grep -v '^grtrace_' "$TMP/uses" > "$TMP/out"
	st=0
	[ -s "$TMP/uses" ] && [ ! -s "$TMP/out" ] || st=1
	result "the tool uses only libgrtrace's grtrace_* symbols ($(wc -l < "$TMP/uses") of them)" $st \
		"not public: $(tr '\n' ' ' < "$TMP/out")"
fi

# No include circle among the tool's C files: each #include "..." resolved
# as the compiler does (beside the including file), a cycle printed.
if command -v python3 > /dev/null 2>&1; then
	python3 - . > "$TMP/out" 2>&1 <<'PY'
import os, re, sys
top, edges = sys.argv[1], {}
for d, dirs, files in os.walk(top):
    for f in files:
        if f.endswith((".c", ".h")):
            p = os.path.normpath(os.path.join(d, f))
            src = open(p, errors="replace").read()
            edges[p] = [os.path.normpath(os.path.join(d, i)) for i in
                        re.findall(r'^\s*#\s*include\s+"([^"]+)"', src, re.M)]
state, path = {}, []
def walk(p):
    state[p] = 1
    path.append(p)
    for q in edges.get(p, ()):
        if state.get(q) == 1:
            sys.exit("include circle: " + " -> ".join(path[path.index(q):] + [q]))
        if q in edges and not state.get(q):
            walk(q)
    path.pop()
    state[p] = 2
for p in sorted(edges):
    if not state.get(p):
        walk(p)
n = sum(len(v) for v in edges.values())
print("%d files, %d includes" % (len(edges), n))
sys.exit(0 if n > 20 else "only %d includes found" % n)
PY
	result "no include circle among the tool's C files" $? "$(cat "$TMP/out")"
else
	ok "no include circle among the tool's C files # SKIP no python3"
fi

# ---- fuzz smoke ----------------------------------------------------------------

# The target is built with ASan+UBSan whatever SAN says: a run that
# follows a plain one of the same tree (run_tests.sh: make check, then make
# SAN=1 check, GRTRACE_FUZZ_DONE=1) would repeat it exactly, a minute and more.
if [ -n "${GRTRACE_FUZZ_DONE:-}" ]; then
	echo "# fuzz smoke: not repeated here; the plain check before this run ran it on the same target (GRTRACE_FUZZ_DONE)" >> "$RESULTS"
elif [ -x "$FUZZ" ]; then
	mkdir -p "$TMP/fuzz"
	echo "# fuzz smoke: libFuzzer -seed=1 -runs=3000 on $TESTS/corpus and $TESTS/tracedat" >> "$RESULTS"
	"$FUZZ" -runs=3000 -max_len=16384 -seed=1 -artifact_prefix="$TMP/fuzz/" \
		"$TMP/fuzz" "$TESTS/corpus" "$TESTS/tracedat" > "$TMP/fuzz.log" 2>&1
	result "fuzz smoke: the corpus and 3000 mutations (seed 1)" $? \
		"$(tail -20 "$TMP/fuzz.log")" \
		"replay (in $PWD): mkdir -p fuzz-new && $FUZZ -runs=3000 -max_len=16384 -seed=1 -artifact_prefix=./fuzz- fuzz-new $TESTS/corpus $TESTS/tracedat"
else
	ok "fuzz smoke # SKIP the fuzz target needs clang (apt-get install clang)"
fi

# ---- summary -------------------------------------------------------------

total=$(grep -cE '^(ok|not ok) ' "$RESULTS")
echo "TAP version 13"
echo "1..$total"
awk '/^(ok|not ok) / { n++; sub(/^ok /, "ok " n " - "); sub(/^not ok /, "not ok " n " - "); }
     { print }' "$RESULTS"
failed=$(grep -c '^not ok ' "$RESULTS")
if [ "$failed" -ne 0 ]; then
	echo "# $failed of $total tests failed"
	exit 1
fi
echo "# all $total tests passed"
exit 0
