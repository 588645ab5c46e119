#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record_test.sh - "grtrace record" and "grtrace dump" against the real
# module: two CPUs emit at once while record drains every channel; the file
# must hold exactly the events the module says it wrote, in order.  Then
# the habits users bring from trace-cmd and perf: "record -- COMMAND"
# stops when the workload exits, "report --live" drains the buffers only
# when asked, and a report fed by a pipe reads the pipe.
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"

emit_jobs() {	# CPU JOBS: JOBS jobs of 5 events each, from CPU
	taskset -c "$1" bash -c '
		for j in $(seq 1 '"$2"'); do
			printf "submit 7 1 %d %d\ncommit 7 1 %d %d\nstart 7 1 %d %d\nend 7 1 %d %d\ncomplete 7 1 %d %d\n" \
				$((j % 3)) $j $((j % 3)) $j $((j % 3)) $j \
				$((j % 3)) $j $((j % 3)) $j > '"$D"'/emit || exit 1
		done'
}

echo "TAP version 13"
echo "1..13"
rmmod grtrace 2>/dev/null
insmod "$KO" emit_enable=1 || { echo "Bail out! insmod $KO failed"; exit 1; }

# No -d: the emitters take as long as the kernel makes them (minutes on a
# KASAN kernel under TCG); the recording ends when they are done.
record_start "$TMP/trace.dat" || { echo "Bail out! grtrace record did not start"; exit 1; }
emit_jobs 0 200 & p0=$!
emit_jobs 1 200 & p1=$!
wait $p0 && wait $p1
ok $? "two CPUs emitted 2000 events"
kill -INT "$REC" && wait "$REC"
ok $? "record exits 0"

written=$(stat_of written)
[ "$written" = 2000 ] && [ "$(stat_of dropped_total)" = 0 ]
ok $? "module wrote all 2000 events (written=$written)"

grep -q "(2000 events)" "$TMP/trace.dat.err" &&
	grep -q "dropped: 0" "$TMP/trace.dat.err"
ok $? "record's summary reports 2000 events and no drops"

"$TOOL" dump -i "$TMP/trace.dat" >"$TMP/dump.txt" 2>"$TMP/dump.err"
ok $? "dump decodes the recorded file"

# Format 2 without gseq (the default): merged by ts, 2002 records, both
# CPUs present, 400 of each type.
awk 'NR > 1 && $1 < prev { bad = 1 } { prev = $1; n++; cpu[$2]++; t[$4]++ }
     END { exit !(!bad && n == 2002 && cpu[0] > 0 && cpu[1] > 0 &&
                  t["SUBMIT"] == 400 && t["COMPLETE"] == 400 &&
                  t["STREAM_INFO"] == 1 && t["METADATA"] == 1) }' \
	"$TMP/dump.txt"
ok $? "recorded file: 2002 records in ts order from both CPUs"

# With gseq=1 (and format 1) the order is gseq's, strictly increasing.
echo stop >"$D/control"
"$TOOL" config format=1 gseq=1 >/dev/null &&
	record_start "$TMP/g.dat" &&
	for cpu in 0 1; do
		taskset -c $cpu sh -c "for i in 1 2 3 4 5; do echo \"commit 9 1 0 \$i\" >$D/emit; done"
	done &&
	kill -INT "$REC" && wait "$REC" &&
	"$TOOL" dump -i "$TMP/g.dat" >"$TMP/g.txt" &&
	awk 'NR > 1 && $3 <= prev { bad = 1 } { prev = $3; n++; cpu[$2]++ }
	     END { exit !(!bad && n == 12 && cpu[0] >= 5 && cpu[1] >= 5) }' "$TMP/g.txt" &&
	grep -q " STREAM_INFO .* version=1 " "$TMP/g.txt"
ok $? "format=1 gseq=1: the recording is format 1, in strictly increasing gseq"
"$TOOL" config format=2 gseq=0 >/dev/null

# jobs FILE: the job rows of a JSON report.
jobs() { python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["jobs"]))' "$1"; }
# emit3 N: N jobs of 5 events on ctx 3.
emitn() {
	local j

	for j in $(seq "$1"); do
		printf "submit 3 1 0 %d\ncommit 3 1 0 %d\nstart 3 1 0 %d\nend 3 1 0 %d\ncomplete 3 1 0 %d\n" \
			"$j" "$j" "$j" "$j" "$j" > "$D/emit" || return 1
	done
}
export -f emitn
export D

# 8-9: record -- COMMAND: starts tracing, runs it, stops when it exits.
echo stop > "$D/control"
"$TOOL" record -o "$TMP/cmd.dat" -- bash -c 'emitn 10' 2>"$TMP/cmd.err"
st=$?
sed 's/^/# /' "$TMP/cmd.err"
"$TOOL" report -i "$TMP/cmd.dat" --format json >"$TMP/cmd.json" &&
	[ $st -eq 0 ] && [ "$(jobs "$TMP/cmd.json")" = 10 ] &&
	grep -q '^grtrace: bash exited with status 0$' "$TMP/cmd.err" &&
	grep -q stopped "$D/control" &&
	grep -q '^grtrace: submitting threads: 1 named' "$TMP/cmd.err" &&
	! grep -q 'exited before they could be named' "$TMP/cmd.err" &&
	"$TOOL" report -i "$TMP/cmd.dat" --per-process --limit 0 |
	grep -q '^process [0-9]* bash: 10 jobs from 1 thread$'
ok $? "record -- COMMAND: the command's 10 jobs recorded and named after it, though it exited first; record stops with it and stops tracing"
"$TOOL" record -o "$TMP/fail.dat" -- bash -c 'emitn 2; exit 3' 2>"$TMP/fail.err"
"$TOOL" report -i "$TMP/fail.dat" --format json >"$TMP/fail.json" &&
	[ "$(jobs "$TMP/fail.json")" = 2 ] &&
	grep -q '^grtrace: bash exited with status 3$' "$TMP/fail.err"
ok $? "record -- COMMAND that fails: its jobs kept, its exit status named"

# 10-11: report reads the live buffers only with --live, and a pipe first.
echo start > "$D/control" && emitn 4 && echo stop > "$D/control" &&
	cat "$TMP/cmd.dat" | "$TOOL" report --format json >"$TMP/pipe.json" &&
	[ "$(jobs "$TMP/pipe.json")" = 10 ]
ok $? "report without -i, fed by a pipe, reads the pipe (the recording's 10 jobs)"
"$TOOL" report --live --format json >"$TMP/live1.json" &&
	"$TOOL" report --live --format json >"$TMP/live2.json" &&
	[ "$(jobs "$TMP/live1.json")" = 4 ] && [ "$(jobs "$TMP/live2.json")" = 0 ]
ok $? "report --live: the 4 jobs left in the buffers (untouched by the piped report), then none"
# The session's format, not the config's: format 1 chosen after a format
# 2 session stopped (allowed while stopped), its records then read.
echo start > "$D/control" && emitn 4 && echo stop > "$D/control" &&
	echo format=1 > "$D/config" && [ "$(stat_of stream_format)" = 2 ] &&
	"$TOOL" report --live --format json >"$TMP/live3.json" &&
	[ "$(jobs "$TMP/live3.json")" = 4 ]
ok $? "report --live after the config went to format 1: the session's 4 format 2 jobs read (stats: stream_format=2)"
echo format=2 > "$D/config"

# 12: the same counters for Prometheus, from the real module.
"$TOOL" stats --prometheus -o "$TMP/grtrace.prom" &&
	grep -qx "grtrace_events_written_total $(stat_of written)" "$TMP/grtrace.prom" &&
	grep -qx "grtrace_events_emitted_total $(stat_of emitted)" "$TMP/grtrace.prom" &&
	grep -qx 'grtrace_events_dropped_total{reason="buffer_full"} [0-9]*' "$TMP/grtrace.prom" &&
	[ "$(grep -c '^grtrace_events_dropped_total{' "$TMP/grtrace.prom")" = \
	  "$(grep -c '^dropped_' "$D/stats" | awk '{ print $1 - 1 }')" ] &&
	grep -qx 'grtrace_events_by_type_total{type="submit",result="written"} [1-9][0-9]*' "$TMP/grtrace.prom"
ok $? "stats --prometheus: the module's counters, each drop reason, events by type"

rmmod grtrace
[ $FAILED -eq 0 ] || { tail -n 5 "$TMP/trace.dat.err" "$TMP/dump.err" | sed 's/^/# /'; }
rm -rf "$TMP"
exit $FAILED
