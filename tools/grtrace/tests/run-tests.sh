#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the grtrace tool, run by "make check".  Prints TAP 13 and
# exits non-zero if any test fails.
#
# Environment: GRTRACE (the built tool), TEST_STREAM (the decoder unit test
# binary), GOLDEN (tools/testing/selftests/grtrace/golden).  No kernel module
# is involved: start/stop/status/record run against a fake debugfs
# directory given by GRTRACE_DEBUGFS.

set -u

: "${GRTRACE:=./grtrace}"
: "${TEST_STREAM:=./tests/test-stream}"
: "${GOLDEN:=../testing/selftests/grtrace/golden}"

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

"$GRTRACE" dump -i - < "$GOLDEN/emit-basic.bin" > "$TMP/out" 2>&1
st=$?
cmp -s "$TMP/out" "$GOLDEN/emit-basic.dump" || st=1
result "dump -i - reads standard input" $st

"$GRTRACE" dump < "$GOLDEN/rings.bin" > "$TMP/out" 2>&1
st=$?
cmp -s "$TMP/out" "$GOLDEN/rings.dump" || st=1
result "dump without -i reads a non-terminal standard input" $st

# Every cut of emit-basic.bin: a clean prefix, or exactly one error line
# naming the start of the cut record, after the lines of the records before.
bounds="0 64 168 240 312 384 456 528 600 672 744"
st=0
diag=
len=0
while [ $len -le 744 ]; do
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
	if [ $start -eq $len ]; then
		[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] || { st=1; diag="cut $len: exit $rc"; }
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
for c in start stop status record dump help; do
	grep -q "^  $c " "$TMP/out" || st=1
done
result "help lists the commands" $st

for c in start stop status record dump; do
	run "$GRTRACE" $c --help
	st=$rc
	cp "$TMP/out" "$TMP/help1"
	grep -q "^Usage: grtrace $c" "$TMP/out" || st=1
	run "$GRTRACE" help $c
	[ $rc -eq 0 ] || st=1
	cmp -s "$TMP/out" "$TMP/help1" || st=1
	result "'$c --help' and 'help $c' agree" $st
done

run "$GRTRACE" frobnicate
st=0
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: unknown command 'frobnicate'" "$TMP/err" || st=1
grep -q '^Usage: grtrace' "$TMP/err" || st=1
[ -s "$TMP/out" ] && st=1
result "an unknown command exits 1 with usage" $st "exit $rc"

run "$GRTRACE"
st=0
[ $rc -eq 1 ] || st=1
grep -q '^Usage: grtrace' "$TMP/err" || st=1
result "no command exits 1 with usage" $st

run "$GRTRACE" dump --bogus
st=0
[ $rc -eq 1 ] || st=1
[ "$(head -n 1 "$TMP/err")" = "grtrace: dump: unknown option '--bogus'" ] || st=1
result "an unknown option is a usage error" $st "$(cat "$TMP/err")"

run "$GRTRACE" record -d 1
st=0
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: record: an output file is required" "$TMP/err" || st=1
result "record requires -o" $st "$(cat "$TMP/err")"

for d in 0 -1 abc 1x; do
	run "$GRTRACE" record -o "$TMP/x" -d "$d"
	st=0
	[ $rc -eq 1 ] || st=1
	grep -q "^grtrace: record: invalid duration '$d'" "$TMP/err" || st=1
	result "record rejects -d $d" $st "$(cat "$TMP/err")"
done

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
	dropped_buffer_full=0
	dropped_oversize=0
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

GRTRACE_DEBUGFS=$TMP/nowhere run "$GRTRACE" status
st=0
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: cannot open $TMP/nowhere/control: No such file or directory (is grtrace.ko loaded and debugfs mounted?)" "$TMP/err" || st=1
result "status without the module explains why" $st "$(cat "$TMP/err")"

# Tracing stopped: record starts it, stops it, and copies the stream.
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
run "$GRTRACE" record -o "$TMP/rec.dat" -d 0.3
st=$rc
cmp -s "$TMP/rec.dat" "$GOLDEN/emit-basic.bin" || st=1
[ "$(cat "$FAKE/control")" = stop ] || st=1
grep -q "^grtrace: recorded 10 records (8 events) to $TMP/rec.dat, 744 bytes\$" "$TMP/err" || st=1
grep -q "^grtrace: dropped: 0\$" "$TMP/err" || st=1
grep -q "WARNING" "$TMP/err" && st=1
result "record copies one CPU's stream, starts and stops tracing" $st \
	"exit $rc" "control: $(cat "$FAKE/control")" "$(cat "$TMP/err")"

# Tracing started: left alone.  Two CPUs; dump orders them by gseq again.
fake_setup started
head -c 240 "$GOLDEN/emit-basic.bin" > "$FAKE/events1"
tail -c +241 "$GOLDEN/emit-basic.bin" > "$FAKE/events0"
run "$GRTRACE" record -o "$TMP/rec.dat" -d 0.3
st=$rc
[ "$(cat "$FAKE/control")" = started ] || st=1
[ "$(wc -c < "$TMP/rec.dat")" -eq 744 ] || st=1
grep -q "^grtrace: recording 2 CPUs" "$TMP/err" || st=1
"$GRTRACE" dump -i "$TMP/rec.dat" | cmp -s - "$GOLDEN/emit-basic.dump" || st=1
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
wait $writer
st=$rc
cmp -s "$TMP/rec.dat" "$GOLDEN/emit-basic.bin" || st=1
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
cmp -s "$TMP/rec.dat" "$GOLDEN/emit-basic.bin" || st=1
[ "$(cat "$FAKE/control")" = stop ] || st=1
result "record stops cleanly on SIGINT" $st "exit $rc" "$(cat "$TMP/err")"

# Drops counted during the recording are reported, by reason, loudly.
fake_setup stopped
cp "$GOLDEN/emit-basic.bin" "$FAKE/events0"
( sleep 0.4
  sed -e 's/^dropped_buffer_full=0/dropped_buffer_full=5/' \
      -e 's/^dropped_oversize=0/dropped_oversize=2/' \
      -e 's/^dropped_total=0/dropped_total=7/' "$FAKE/stats" > "$FAKE/stats.new"
  mv "$FAKE/stats.new" "$FAKE/stats" ) &
bg=$!
run "$GRTRACE" record -o "$TMP/rec.dat" -d 1
wait $bg
st=$rc
grep -q "^grtrace: dropped: 7 (buffer_full 5, oversize 2)\$" "$TMP/err" || st=1
grep -q "^grtrace: WARNING: 7 records were DROPPED" "$TMP/err" || st=1
grep -q "buffer_size" "$TMP/err" || st=1
result "record reports drops by reason with a warning" $st "exit $rc" "$(cat "$TMP/err")"

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
[ "$(wc -c < "$TMP/rec.dat")" -eq 672 ] || st=1
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
[ "$(wc -c < "$TMP/rec.dat")" -eq 64 ] || st=1
grep -q "^grtrace: $FAKE/events0: corrupt record at byte 64: size 33 is not a multiple of 8" "$TMP/err" || st=1
result "record reports a corrupt kernel stream" $st "exit $rc" "$(cat "$TMP/err")"

fake_setup stopped
rm -f "$FAKE/events0"
run "$GRTRACE" record -o "$TMP/rec.dat" -d 0.3
st=0
[ $rc -eq 1 ] || st=1
grep -q "^grtrace: no events<cpu> files in $FAKE" "$TMP/err" || st=1
[ "$(cat "$FAKE/control")" = stopped ] || st=1
result "record without events files fails before starting" $st "$(cat "$TMP/err")"

# ---- report ---------------------------------------------------------------

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
