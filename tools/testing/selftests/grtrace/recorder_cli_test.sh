#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recorder_cli_test.sh - "grtrace recorder" and the snapshot's readers
# (report, dump, export) against the module's flight recorder, in both
# formats: arm --size --format, the refusals named in one line (arm
# twice, start and stop while armed, trigger while off), wait blocking in
# poll(2) until a manual trigger wakes it, 64 KB buffers wrapped by 1500 jobs written
# through the emit file with every CPU's identity holding and no loss
# reported, a later trigger counted, release, an ERROR event's trigger
# naming its job and the one queued behind it, disarm.  The raw files are
# recorder_test.sh's.  TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
OUT=${GRTRACE_OUT:+$GRTRACE_OUT/recorder_cli}
OUT=${OUT:-$TMP/out}
mkdir -p "$OUT"

echo "TAP version 13"
echo "1..48"
if ! insmod "$KO" emit_enable=1; then
	echo "Bail out! cannot load $KO"
	exit 1
fi

# jobs FROM TO RING: SUBMIT..COMPLETE of seqnos FROM..TO of ctx 200.
jobs() {
	local s
	for s in $(seq "$1" "$2"); do
		printf 'submit 200 1 %s %s\ncommit 200 1 %s %s\nstart 200 1 %s %s\nend 200 1 %s %s\ncomplete 200 1 %s %s\n' \
			"$3" "$s" "$3" "$s" "$3" "$s" "$3" "$s" "$3" "$s"
	done
}

"$TOOL" recorder status > "$OUT/st0.txt" 2>&1
grep -q "^recorder: off" "$OUT/st0.txt"; ok $? "status: off"
"$TOOL" recorder trigger > "$OUT/trig-off.txt" 2>&1
[ $? -eq 1 ] && grep -q "refused.*not armed; state=off" "$OUT/trig-off.txt"; ok $? "trigger while off: one line, exit 1: $(cat "$OUT/trig-off.txt")"

for fmt in 2 1; do
	"$TOOL" recorder arm --size 64K --format $fmt > "$OUT/arm$fmt.txt" 2>&1; ok $? "arm --size 64K --format $fmt"
	"$TOOL" recorder arm > "$OUT/arm-again.txt" 2>&1
	[ $? -eq 1 ] && grep -q "armed already" "$OUT/arm-again.txt"; ok $? "arm twice: $(cat "$OUT/arm-again.txt")"
	"$TOOL" start > "$OUT/start.txt" 2>&1
	[ $? -eq 1 ] && grep -q "flight recorder is armed" "$OUT/start.txt"; ok $? "start while armed refused: $(cat "$OUT/start.txt")"
	"$TOOL" stop > "$OUT/stop.txt" 2>&1
	[ $? -eq 1 ] && [ "$(wc -l < "$OUT/stop.txt")" -eq 1 ] &&
		grep -q "^grtrace: stop: refused (Device or resource busy): the flight recorder is armed ('grtrace recorder disarm' first)$" "$OUT/stop.txt" &&
		"$TOOL" recorder status 2>&1 | grep -q "^recorder: armed"
	ok $? "stop while armed refused with one line naming the recorder, which stays armed: $(cat "$OUT/stop.txt")"
	"$TOOL" record -o "$OUT/rec-armed.dat" -d 1 > "$OUT/rec-armed.txt" 2>&1
	[ $? -eq 1 ] && [ ! -e "$OUT/rec-armed.dat" ] &&
		grep -q "record: the flight recorder is armed" "$OUT/rec-armed.txt"; ok $? "record while armed refused, no file: $(cat "$OUT/rec-armed.txt")"
	# Wrap the 64K buffers (7500 events of about 30 bytes, more than
	# twice 64K on one CPU): 1500 jobs on ring 1, then a hang on ring 2.
	# A line every 50 writes: under a loaded emulator the writes take
	# minutes, and the VM runner kills a guest silent for 2.
	jobs 1 1500 1 > "$OUT/jobs.txt"
	split -l 40 "$OUT/jobs.txt" "$OUT/chunk."
	n=0
	for c in "$OUT"/chunk.*; do
		cat "$c" > "$D/emit"
		n=$((n + 1))
		[ $((n % 50)) -ne 0 ] || echo "# emit: $n writes of 40 lines"
	done
	rm -f "$OUT"/chunk.*
	printf 'submit 300 1 2 7\ncommit 300 1 2 7\nstart 300 1 2 7\nsubmit 300 1 2 8\ncommit 300 1 2 8\nsubmit 301 1 2 1\ncommit 301 1 2 1\n' > "$D/emit"
	"$TOOL" recorder wait -o "$OUT/snap$fmt.dat" -t 60 > "$OUT/wait$fmt.txt" 2>&1 &
	wp=$!
	sleep 3
	kill -0 $wp 2>/dev/null; ok $? "wait blocks while armed (poll)"
	tt=$(date +%s.%N)
	"$TOOL" recorder trigger; ok $? "trigger"
	wait $wp; rc=$?
	t1=$(date +%s.%N)
	ok $rc "wait returns 0 after the trigger: $(cat "$OUT/wait$fmt.txt")"
	# From the trigger command to the snapshot written: seconds, SLOW
	# times more on a debug kernel (each command starts slowly there).
	awk -v a="$tt" -v b="$t1" -v s="$SLOW" 'BEGIN { printf "# %.2f s\n", b - a; exit !(b - a < 5 * s) }'
	ok $? "wait woke within seconds of the trigger"
	"$TOOL" recorder trigger; "$TOOL" recorder status > "$OUT/st$fmt.txt" 2>&1
	grep -q "^recorder: triggered (session [0-9]*, format $fmt, 65536 bytes per CPU)" "$OUT/st$fmt.txt" &&
		grep -q "^trigger:  manual at " "$OUT/st$fmt.txt" && grep -q "; 1 later triggers counted" "$OUT/st$fmt.txt" &&
		! grep -q "DOES NOT HOLD" "$OUT/st$fmt.txt"; ok $? "status: triggered, later trigger counted, identities hold"
	"$TOOL" report -i "$OUT/snap$fmt.dat" > "$OUT/report$fmt.txt" 2>&1; ok $? "report reads the snapshot"
	grep -q "^Flight recorder snapshot:" "$OUT/report$fmt.txt" && grep -q "cause:      manual" "$OUT/report$fmt.txt" &&
		! grep -q "DOES NOT HOLD" "$OUT/report$fmt.txt" && grep -q "^lost:     none" "$OUT/report$fmt.txt" &&
		grep -q "^  0 .* holds" "$OUT/report$fmt.txt" && grep -q "overwritten" "$OUT/report$fmt.txt"
	ok $? "report: section, no loss, identities hold"
	# The buffers wrapped: CPU rows with overwritten > 0 somewhere.
	awk '/^  [0-9]+ +[0-9]+ \.\. [0-9]+/ { if ($7 > 0) w = 1 } END { exit !w }' "$OUT/report$fmt.txt"; ok $? "some CPU overwrote records (buffers wrapped)"
	"$TOOL" report -i "$OUT/snap$fmt.dat" --format json > "$OUT/report$fmt.json" 2>&1; ok $? "report json"
	"$TOOL" dump -i "$OUT/snap$fmt.dat" > "$OUT/dump$fmt.txt" 2>&1; ok $? "dump"
	"$TOOL" export -i "$OUT/snap$fmt.dat" -o "$OUT/snap$fmt.pftrace" 2>"$OUT/export$fmt.err"; ok $? "export"
	"$TOOL" recorder release; ok $? "release"
	"$TOOL" recorder status | grep -q "^recorder: armed"; ok $? "armed again"
	# An ERROR event triggers and names its job.
	printf 'submit 400 1 3 5\ncommit 400 1 3 5\nstart 400 1 3 5\nsubmit 400 1 3 6\ncommit 400 1 3 6\nerror 400 1 3 5 -62\n' > "$D/emit"
	"$TOOL" recorder wait -o "$OUT/snape$fmt.dat" -t 30 > "$OUT/waite$fmt.txt" 2>&1; ok $? "wait for the ERROR trigger: $(cat "$OUT/waite$fmt.txt")"
	"$TOOL" report -i "$OUT/snape$fmt.dat" > "$OUT/reporte$fmt.txt" 2>&1; ok $? "report of the error snapshot"
	grep -q "cause:      error (error -62)" "$OUT/reporte$fmt.txt" && grep -q "ring:       3" "$OUT/reporte$fmt.txt" &&
		grep -q "hung job:   400:5 .*named by the trigger" "$OUT/reporte$fmt.txt" &&
		grep -q "behind it:  1 jobs" "$OUT/reporte$fmt.txt"
	ok $? "error snapshot: job 400:5 named, 400:6 behind it"
	"$TOOL" recorder disarm; ok $? "disarm"
	"$TOOL" recorder status | grep -q "^recorder: off"; ok $? "off"
done
rmmod grtrace
rm -rf "$TMP"
exit "$FAILED"
