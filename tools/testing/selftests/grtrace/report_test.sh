#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report_test.sh - "grtrace report", "config" and "record -b" against the
# real module: jobs emitted from two CPUs are recorded, and the report must
# count exactly the jobs emitted, per ring; with a tiny buffer, record must
# report the drops and the report the gseq gap they leave.  TAP output;
# runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"

# JSON field of a report, by a Python expression on "d".
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# emit_jobs CPU CTX JOBS: JOBS whole jobs on rings j % 3, from CPU, in
# batches that fit one write of the emit file.
emit_jobs() {
	taskset -c "$1" bash -c '
		batch=
		for j in $(seq 1 '"$3"'); do
			r=$((j % 3))
			for t in submit commit start end complete; do
				batch+="$t '"$2"' 1 $r $j"$'"'\n'"'
			done
			if [ $((j % 30)) -eq 0 ]; then
				printf "%s" "$batch" > '"$D"'/emit || exit 1
				batch=
			fi
		done
		[ -z "$batch" ] || printf "%s" "$batch" > '"$D"'/emit'
}

echo "TAP version 13"
echo "1..11"
rmmod grtrace 2>/dev/null
insmod "$KO" emit_enable=1 || { echo "Bail out! insmod $KO failed"; exit 1; }

# ---- jobs from two CPUs, counted per ring ---------------------------------

# No -d: the emitters take as long as the kernel makes them (minutes on a
# KASAN kernel under TCG); the recording ends when they are done.
record_start "$TMP/trace.dat" || { echo "Bail out! grtrace record did not start"; exit 1; }
emit_jobs 0 100 150 & p0=$!
emit_jobs 1 200 120 & p1=$!
wait $p0 && wait $p1
ok $? "two CPUs emitted 270 jobs"
kill -INT "$REC" && wait "$REC"
ok $? "record exits 0"

"$TOOL" report -i "$TMP/trace.dat" --format json --per-ring \
	>"$TMP/report.json" 2>"$TMP/report.err"
ok $? "report of the recording exits 0"

# Jobs j of each CPU go to ring j % 3: 150 -> 50 50 50, 120 -> 40 40 40.
got=$(jq_py "$TMP/report.json" '"%d %d %d %d %d" % (d["summary"]["jobs"], d["summary"]["jobs_incomplete"], d["summary"]["lost_records"], d["summary"]["seqno_wraps"], d["summary"]["out_of_order_records"])')
[ "$got" = "270 0 0 0 0" ]
ok $? "report: 270 whole jobs, none lost or out of order (jobs incomplete lost wraps order: $got)"

got=$(jq_py "$TMP/report.json" '" ".join("%d:%d" % (r["ring"], r["jobs"]) for r in sorted(d["rings"], key=lambda r: r["ring"]))')
[ "$got" = "0:90 1:90 2:90" ]
ok $? "report: jobs per ring equal the jobs emitted per ring ($got)"

# ---- config -------------------------------------------------------------------

"$TOOL" config level=verbose && [ "$("$TOOL" config level)" = level=verbose ] &&
	! "$TOOL" config level=normal bogus_key=1 2>"$TMP/config.err" &&
	[ "$(cat "$TMP/config.err")" = "grtrace: config: the module has no key 'bogus_key' (see 'grtrace config'); nothing was changed" ] &&
	! "$TOOL" config level=normal sample=101 2>"$TMP/config2.err" &&
	[ "$(cat "$TMP/config2.err")" = "grtrace: config: the module refused one of the settings 'level=normal sample=101' (a value the key does not take); nothing was changed" ] &&
	! "$TOOL" config level=loud 2>"$TMP/config3.err" &&
	[ "$(cat "$TMP/config3.err")" = "grtrace: config: the module refused the setting 'level=loud' (a value the key does not take); nothing was changed" ] &&
	[ "$("$TOOL" config level)" = level=verbose ] && "$TOOL" config level=normal
ok $? "config sets and shows a key; an unknown key and a bad value are refused, each named in one line, nothing changed: $(cat "$TMP"/config*.err | tr "\n" " ")"

# ---- record -b: set for the recording, restored -------------------------------

before=$(cat "$D/buffer_size")
"$TOOL" record -o "$TMP/b.dat" -d 1 -b 128K 2>"$TMP/b.err" &&
	grep -q "buffer_size $before -> 131072 bytes per CPU" "$TMP/b.err" &&
	[ "$(cat "$D/buffer_size")" = "$before" ]
ok $? "record -b 128K resizes for the recording and restores $before"

# ---- drops: a 64K buffer filled before record runs --------------------------

echo 64K >"$D/buffer_size" && echo start >"$D/control" && emit_jobs 0 300 600
ok $? "64K buffer, started, 3000 events emitted on CPU 0"

# Joined once it says it is recording, then given a second (SLOW times
# more on a debug kernel) to drain the full buffer.  One more event on
# CPU 0 then: once the buffer was drained, the gap before its cseq (format
# 2, the default) shows the loss; had it not been drained yet, that event
# is lost too and the loss comes after CPU 0's last record.  Either way
# the session's owner (this script) stops it, and the record, ended after
# that, reads every channel to its end and keeps each CPU's next cseq:
# the loss is one gap of exactly the records dropped, whatever the timing.
record_join "$TMP/drop.dat" || echo "# grtrace record did not start"
rec=$REC
sleep "$SLOW"
taskset -c 0 sh -c "echo 'submit 301 1 0 1' >$D/emit"
echo stop >"$D/control"
kill -INT "$rec" && wait "$rec"
rc=$?
full=$(stat_of dropped_buffer_full)
[ $rc -eq 0 ] && [ "${full:-0}" -gt 0 ] &&
	grep -q "buffer_full $full" "$TMP/drop.dat.err" &&
	grep -q "WARNING" "$TMP/drop.dat.err"
ok $? "record reports dropped_buffer_full=$full with a warning"

"$TOOL" report -i "$TMP/drop.dat" --format json >"$TMP/drop.json" 2>"$TMP/drop-report.err"
got=$(jq_py "$TMP/drop.json" '"%d %d" % (d["summary"]["lost_records"], d["summary"]["cseq_gaps"])')
[ "$got" = "$full 1" ]
ok $? "report: CPU 0's cseq gap holds exactly the $full dropped events (lost gaps: $got)"

# A session someone else started and stopped: every loss comes after CPU
# 0's last record, so no record of the recording shows it; the file's CPU
# tail table does, because the owner's stop came before the record ended.
echo start >"$D/control" && emit_jobs 0 300 600 &&
	record_join "$TMP/tail.dat" || echo "# grtrace record did not start"
rec=$REC
echo stop >"$D/control"
kill -INT "$rec" && wait "$rec"
rc=$?
lost=$(( $(stat_of dropped_buffer_full) - full ))
"$TOOL" report -i "$TMP/tail.dat" >"$TMP/tail.txt" 2>&1 &&
	"$TOOL" report -i "$TMP/tail.dat" --format json >"$TMP/tail.json"
got=$(jq_py "$TMP/tail.json" '"%d %d" % (d["summary"]["lost_records"], d["summary"]["cseq_gaps"])')
[ $rc -eq 0 ] && [ "$lost" -gt 0 ] && [ "$got" = "$lost 1" ] &&
	grep -q "($lost of them after a CPU's last record" "$TMP/tail.txt"
ok $? "joined record of a session its owner stopped: the $lost losses after CPU 0's last record are in the file's tail (lost gaps: $got)"

rmmod grtrace
[ $FAILED -eq 0 ] || { tail -n 5 "$TMP"/*.err | sed 's/^/# /'; }
rm -rf "$TMP"
exit $FAILED
