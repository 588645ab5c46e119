# SPDX-License-Identifier: GPL-2.0
#
# Host tests of "grtrace recorder" and of a flight recorder snapshot read by
# dump, report and export.  Sourced by run-tests.sh (its ok, result, run,
# $GRTRACE, $TMP, $TESTS); the recorder's directory is faked under
# $GRTRACE_DEBUGFS by tests/recorder_snap.py, which encodes the snapshot
# streams from the uapi layout.  The kernel side (arming, overwriting,
# freezing, poll wake-ups) is tested in the VM by the selftests, not here:
# a regular file's poll(2) never blocks, so "wait" re-reads it.

RDBG=$TMP/recdbg
export GRTRACE_DEBUGFS="$RDBG"
SNAP=$TESTS/recorder_snap.py

# rec_snap FORMAT CAUSE [ARGS]: a fresh fake recorder directory.
rec_snap() {
	rm -rf "$RDBG"
	mkdir -p "$RDBG"
	printf 'stopped\n' > "$RDBG/control"
	printf '4194304\n' > "$RDBG/buffer_size"
	printf 'clock=monotonic\nformat=2\n' > "$RDBG/config"
	python3 "$SNAP" "$RDBG" "$@"
}

# want_lines LINE...: each a whole line of $TMP/out, else st=1 and the
# line noted in $RESULTS.diag.
want_lines() {
	for line in "$@"; do
		grep -qxF "$line" "$TMP/out" ||
			{ st=1; echo "# missing: $line" >> "$RESULTS.diag"; }
	done
}

# ---- wait: the snapshot as a trace file ------------------------------------------

for fmt in 1 2; do
	rec_snap $fmt timeout
	run "$GRTRACE" recorder wait -t 30 -o "$TMP/snap$fmt.dat"
	st=$rc
	[ "$(cat "$TMP/err")" = "grtrace: snapshot of session 7 (cause timeout): 28 records of 2 CPUs written to $TMP/snap$fmt.dat" ] || st=1
	[ "$(cat "$RDBG/recorder/control")" = triggered ] || st=1
	run "$GRTRACE" dump --header -i "$TMP/snap$fmt.dat"
	[ $rc -eq 0 ] || st=1
	grep -q "^# trace file: version=3 stream_format=$fmt cpus=2 compressed=zstd .* clock=monotonic session=7 " "$TMP/out" || st=1
	# The fresh records have no gseq: STREAM_INFO, METADATA first, then
	# the rest by gseq, RECORDER and TRIGGER last.
	[ "$(sed -n 1p "$TMP/out" | cut -d' ' -f1-5)" = "# trace file: version=3 stream_format=$fmt" ] || st=1
	[ "$(sed -n 2p "$TMP/out")" = "1002000000 0 0 STREAM_INFO magic=ok version=$fmt clock=monotonic cpus=2 session=7 features=0x1f" ] || st=1
	[ "$(tail -3 "$TMP/out")" = "1008000000 0 0 RECORDER of_cpu=0 first_ts=1002000000 last_ts=1003000000 emitted=53 kept=11 overwritten=38 dropped=4 buffer_size=65536 balanced=yes
1008000000 0 0 TRIGGER cause=timeout ring=1 ctx=0 seqno=0 error=0 frozen_ts=1008050000 later_triggers=3 trigger_cpu=0
1008000000 1 0 RECORDER of_cpu=1 first_ts=1002050000 last_ts=1003500000 emitted=20 kept=10 overwritten=8 dropped=2 buffer_size=65536 balanced=yes" ] || st=1
	[ "$(grep -c ' SUBMIT \| COMMIT \| START \| END \| COMPLETE ' "$TMP/out")" -eq 21 ] || st=1
	result "recorder wait (format $fmt): a trace file dump reads, TRIGGER and RECORDER decoded" $st \
		"exit $rc" "$(head -5 "$TMP/err")" "$(tail -4 "$TMP/out")"
done

# The report of the timeout snapshot: the hung job found as the oldest
# unfinished job of ring 1, what queued behind it, the accounting; the
# real gap of 2 on CPU 1 is a loss.  Stamped with "gaps", the head gaps
# (46 overwritten) and the 4 frozen drops are not losses either.
for v in "1" "2" "1 gaps" "2 gaps"; do
	set -- $v
	fmt=$1
	rec_snap $fmt timeout ${2:-}
	run "$GRTRACE" recorder wait -t 30 -o "$TMP/snap.dat"
	run "$GRTRACE" report -i "$TMP/snap.dat"
	st=$rc
	if [ -n "${2:-}" ]; then
		grep -qxF "  not lost:   46 records overwritten before the CPUs' first kept ones, 4 dropped at the freeze (cseq gaps the RECORDER records account for)" "$TMP/out" || st=1
	else
		grep -q "not lost:" "$TMP/out" && st=1
	fi
	grep -q "^order:" "$TMP/out" && st=1
	want_lines \
		"lost:     2 records in 1 gaps of the CPUs' cseq" \
		"Flight recorder snapshot:" \
		"  cause:      timeout on CPU 0" \
		"  trigger:    at 1008000000 ns; buffers frozen 50.0 us later; 3 later triggers counted" \
		"  ring:       1 gfx" \
		"  hung job:   10:2 (SUBMIT 5800.0 us, COMMIT 5700.0 us, START 5400.0 us before the trigger), the oldest unfinished job of the ring (the trigger named none)" \
		"  ran:        5400.0 us from its START to the trigger" \
		"  behind it:  2 jobs committed on the ring, not ended:" \
		"              10:3 (SUBMIT 5300.0 us, COMMIT 5200.0 us before the trigger)" \
		"              11:1 (SUBMIT 5100.0 us, COMMIT 5000.0 us before the trigger)" \
		"  0     1002000000 .. 1003000000         53         11           38          4  holds" \
		"  1     1002050000 .. 1003500000         20         10            8          2  holds" \
		"  jobs:       1 began before the window (their SUBMIT overwritten), 3 open at the freeze"
	grep -q "unknown type 0 (skipped)" "$TMP/out" || st=1
	grep -q "warning:" "$TMP/out" && st=1
	result "report of a snapshot (format $v): the flight recorder section, overwritten records not lost" $st \
		"exit $rc" "$(cat "$RESULTS.diag" 2>/dev/null)" "$(sed -n '1,30p' "$TMP/out")"
	rm -f "$RESULTS.diag"
done

# Jobs that finished with their END dropped (or overwritten on another
# CPU) look open: 10:0, older than the hung job, whose context's later
# job 10:1 ended (fences of a context signal in order), and 12:1, whose
# COMPLETE came.  Neither is the hung job, queued behind it, or open at
# the freeze.  (Seen on PREEMPT_RT, where the trigger names no job.)
for v in "1 stale" "2 stale gaps"; do
	set -- $v
	rec_snap $1 timeout $2 ${3:-}
	run "$GRTRACE" recorder wait -t 30 -o "$TMP/snap.dat"
	run "$GRTRACE" report -i "$TMP/snap.dat"
	st=$rc
	want_lines \
		"  hung job:   10:2 (SUBMIT 5800.0 us, COMMIT 5700.0 us, START 5400.0 us before the trigger), the oldest unfinished job of the ring (the trigger named none)" \
		"  behind it:  2 jobs committed on the ring, not ended:" \
		"              10:3 (SUBMIT 5300.0 us, COMMIT 5200.0 us before the trigger)" \
		"              11:1 (SUBMIT 5100.0 us, COMMIT 5000.0 us before the trigger)" \
		"  0     1001900000 .. 1003050000         53         16           33          4  holds" \
		"  jobs:       1 began before the window (their SUBMIT overwritten), 3 open at the freeze"
	grep -q "warning:" "$TMP/out" && st=1
	result "report of a snapshot (format $v): jobs whose END was dropped are neither the hung job nor behind it" $st \
		"exit $rc" "$(cat "$RESULTS.diag" 2>/dev/null)" "$(sed -n '1,40p' "$TMP/out")"
	rm -f "$RESULTS.diag"
done

# A context's finished seqnos count in their own part only: two snapshots
# joined with cat, the first with context 10's jobs 100 seqnos further on
# and ended; in the second 10:2 is still the hung job.
rec_snap 1 timeout base=100
run "$GRTRACE" recorder wait -t 30 -o "$TMP/snap-a.dat"
rec_snap 1 timeout stale
run "$GRTRACE" recorder wait -t 30 -o "$TMP/snap-b.dat"
cat "$TMP/snap-a.dat" "$TMP/snap-b.dat" > "$TMP/snap-ab.dat"
run "$GRTRACE" report -i "$TMP/snap-ab.dat"
st=$rc
grep -q "^  hung job:   10:2 (SUBMIT 5800.0 us, " "$TMP/out" || st=1
grep -qx "  behind it:  2 jobs committed on the ring, not ended:" "$TMP/out" || st=1
result "report of two snapshots joined: the seqnos ended in the first say nothing of the second's jobs" $st \
	"exit $rc" "$(sed -n '/Flight/,+12p' "$TMP/out")"

# An ERROR trigger names its job: JSON carries the section (stamped with
# "gaps", so that the gaps' fields have something to say).
rec_snap 2 error gaps
run "$GRTRACE" recorder wait -t 30 -o "$TMP/snape.dat" --no-compress
st=$rc
run "$GRTRACE" report --format json -i "$TMP/snape.dat"
[ $rc -eq 0 ] || st=1
python3 - "$TMP/out" > "$TMP/json.err" 2>&1 <<'EOF' || st=1
import json, sys
d = json.load(open(sys.argv[1]))
fr = d["flight_recorder"]
s = d["summary"]
want = {"triggers": 1, "cause": "error", "trigger_cpu": 0,
        "trigger_ts_ns": 1008000000, "frozen_ts_ns": 1008050000,
        "later_triggers": 3, "error": -62, "ring_id": 1, "ring_name": "gfx",
        "job_named": True, "ran_ns": 5400000, "ran_from": "START",
        "queued_behind": 2, "unbalanced_cpus": 0,
        "overwritten_not_lost": 46, "dropped_at_freeze": 4,
        "jobs_began_before_window": 1, "jobs_open_at_freeze": 3}
for k, v in want.items():
    assert fr[k] == v, (k, fr[k], v)
assert fr["hung_job"] == {"ctx": 10, "seqno": 2, "submit_ns": 1002200000,
                          "commit_ns": 1002300000, "start_ns": 1002600000}, fr["hung_job"]
assert [(b["ctx"], b["seqno"], b["start_ns"]) for b in fr["behind"]] == \
    [(10, 3, None), (11, 1, None)], fr["behind"]
c0, c1 = fr["cpus"]
assert (c0["cpu"], c0["emitted"], c0["kept"], c0["overwritten"], c0["dropped"],
        c0["identity_holds"], c0["head_gap"], c0["tail_gap"], c0["lost"]) == \
    (0, 53, 11, 38, 4, True, 38, 4, 0), c0
assert (c1["cpu"], c1["head_gap"], c1["tail_gap"], c1["lost"],
        c1["first_ts_ns"], c1["last_ts_ns"]) == \
    (1, 8, 0, 0, 1002050000, 1003500000), c1
assert s["lost_records"] == 2 and s["lost_records_by_cpu"] == [0, 2], s
assert s["events_by_type"]["TRIGGER"] == 1 and s["events_by_type"]["RECORDER"] == 2
assert s["unknown_records"] == 0
EOF
grep -q "  hung job:   10:2 (SUBMIT 5800.0 us, COMMIT 5700.0 us, START 5400.0 us before the trigger), named by the trigger" \
	<<-EOF || st=1
	$("$GRTRACE" report -i "$TMP/snape.dat" 2>&1)
	EOF
result "report of an ERROR snapshot: the named job, JSON's flight_recorder object" $st \
	"exit $rc" "$(cat "$TMP/json.err")"

# A manual trigger names no ring; export reads the snapshot as it is.
rec_snap 1 manual
run "$GRTRACE" recorder wait -o "$TMP/snapm.dat" -t 5
st=$rc
run "$GRTRACE" report -i "$TMP/snapm.dat"
[ $rc -eq 0 ] || st=1
grep -qxF "  ring:       none named (a manual trigger)" "$TMP/out" || st=1
grep -q "hung job" "$TMP/out" && st=1
run "$GRTRACE" export -i "$TMP/snapm.dat" -o "$TMP/snapm.pftrace"
[ $rc -eq 0 ] && [ -s "$TMP/snapm.pftrace" ] || st=1
result "a manual snapshot: no ring named; export reads it" $st "exit $rc" "$(cat "$TMP/err")"

# Accounting that does not add up is shown and warned about.
rec_snap 1 timeout unbalanced
run "$GRTRACE" recorder wait -t 30 -o "$TMP/snapu.dat"
st=$rc
run "$GRTRACE" report -i "$TMP/snapu.dat"
[ $rc -eq 0 ] || st=1
grep -qxF "  1     1002050000 .. 1003500000         20         10            8          3  DOES NOT HOLD (emitted != kept + overwritten + dropped)" "$TMP/out" || st=1
grep -qxF "warning:  1 CPUs' accounting does not hold (emitted != kept + overwritten + dropped)" "$TMP/out" || st=1
grep -qxF "  0     1002000000 .. 1003000000         53         11           38          4  holds" "$TMP/out" || st=1
run "$GRTRACE" dump -i "$TMP/snapu.dat"
grep -q " RECORDER of_cpu=1 .* dropped=3 buffer_size=65536 balanced=no\$" "$TMP/out" || st=1
result "a snapshot whose accounting does not hold: the CPU marked, one warning" $st \
	"$(grep -i -e hold -e warning "$TMP/out")"

# scripts/parse_events.py (written from the document) names and decodes
# the two records, in both formats.
for fmt in 1 2; do
	rec_snap $fmt error
	run "$GRTRACE" recorder wait -t 30 -o "$TMP/snapp.dat"
	env $PY_ENV python3 "$TESTS/../scripts/parse_events.py" --json "$TMP/snapp.dat" > "$TMP/pe.json" 2> "$TMP/err"
	st=$?
	python3 - "$TMP/pe.json" > "$TMP/pe.err" 2>&1 <<'EOF' || st=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
trg = [r for r in rows if r["type"] == "TRIGGER"]
rec = [r for r in rows if r["type"] == "RECORDER"]
assert len(trg) == 1 and len(rec) == 2, [r["type"] for r in rows]
assert trg[0]["fields"] == {"cause": "error", "ring": 1, "ctx": 10, "seqno": 2,
                            "error": -62, "frozen_ts": 1008050000,
                            "later_triggers": 3, "trigger_cpu": 0}, trg[0]
assert [(r["cpu"], r["fields"]["emitted"], r["fields"]["kept"],
         r["fields"]["overwritten"], r["fields"]["dropped"]) for r in rec] == \
    [(0, 53, 11, 38, 4), (1, 20, 10, 8, 2)], rec
assert rows[-1]["type"] == "RECORDER" and rows[-2]["type"] == "TRIGGER"
EOF
	result "parse_events.py decodes TRIGGER and RECORDER (format $fmt)" $st \
		"$(cat "$TMP/err" "$TMP/pe.err")"
done

# Snapshots the rec-kernel module wrote in the VM (recorder_cli_test.sh,
# kept in the fuzz corpus): 64 KB buffers wrapped, a manual trigger; an
# ERROR trigger in each format.
C=$TESTS/corpus
run "$GRTRACE" report -i "$C/recorder-vm-wrapped-v1.grf"
st=$rc
for line in "lost:     none (no CPU's cseq has a gap)" \
	"  cause:      manual on CPU 0" \
	"  0     96429342290 .. 98430221730       9207        847         8360          0  holds" \
	"  1     91056535150 .. 95935252760       5800        828         4972          0  holds" \
	"  jobs:       1 began before the window (their SUBMIT overwritten), 3 open at the freeze"; do
	grep -qxF "$line" "$TMP/out" || st=1
done
grep -q "^order:\|DOES NOT HOLD" "$TMP/out" && st=1
for f in 1 2; do
	run "$GRTRACE" report -i "$C/recorder-vm-error-v$f.grf"
	[ $rc -eq 0 ] || st=1
	grep -q "^  hung job:   400:5 (SUBMIT .*), named by the trigger\$" "$TMP/out" || st=1
	grep -qx "  cause:      error (error -62) on CPU [01]" "$TMP/out" || st=1
	grep -q "^lost:     none" "$TMP/out" || st=1
done
result "snapshots of the module (VM): wrapped, no loss, identities hold; ERROR names its job" $st \
	"$(sed -n 1,20p "$TMP/out")"

# A recording's report has no flight recorder section.
run "$GRTRACE" report -i "$GOLDEN/emit-basic.bin"
st=$rc
grep -q "Flight recorder" "$TMP/out" && st=1
run "$GRTRACE" report --format json -i "$GOLDEN/emit-basic.bin"
grep -q "flight_recorder" "$TMP/out" && st=1
result "report without a snapshot has no flight recorder section" $st

# ---- bad records ------------------------------------------------------------------------

# v1 CPU 0: 64 + 264 + 11 x 72 = 1120 bytes before its RECORDER, which is
# 96; v2 (job events with their gseq): 48 + 248 + 11 x 36 = 692 before
# its RECORDER, which is 80.
for c in "1 recorder 1120 RECORDER 88 96-byte struct" \
	 "1 trigger 1216 TRIGGER 80 88-byte struct" \
	 "2 recorder 692 RECORDER 72 80 bytes" \
	 "2 trigger 772 TRIGGER 64 72 bytes"; do
	set -- $c
	rec_snap $1 timeout bad=$2
	rm -f "$TMP/bad.dat"
	run "$GRTRACE" recorder wait -t 30 -o "$TMP/bad.dat"
	st=0
	[ $rc -eq 1 ] || st=1
	if [ $1 = 1 ]; then
		why="$4 record of size $5 is smaller than its $6 $7"
	else
		why="$4 record of size $5 with flags 0x0 is smaller than its $6 $7"
	fi
	[ "$(head -1 "$TMP/err")" = "grtrace: $RDBG/recorder/snapshot0: corrupt record at byte $3: $why; the records before it are written" ] || st=1
	[ "$(wc -l < "$TMP/err")" -eq 2 ] || st=1
	run "$GRTRACE" dump -i "$TMP/bad.dat"
	[ $rc -eq 0 ] || st=1
	if [ $1 = 1 ]; then
		run "$GRTRACE" dump -i "$RDBG/recorder/snapshot0"
	else
		run "$GRTRACE" dump --channel 0 -i "$RDBG/recorder/snapshot0"
	fi
	[ $rc -eq 1 ] || st=1
	[ "$(wc -l < "$TMP/err")" -eq 1 ] || st=1
	grep -q "corrupt record at byte $3: $why\$" "$TMP/err" || st=1
	result "a short $4 (format $1): one line naming its byte offset, from wait and dump" $st \
		"exit $rc" "$(cat "$TMP/err")"
done

# ---- wait's timeout, status, control words, bad arguments ------------------------------

rec_snap 1 timeout armed
t0=$(date +%s.%N)
run "$GRTRACE" recorder wait -o "$TMP/none.dat" -t 0.4
t1=$(date +%s.%N)
st=0
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: recorder wait: timed out after 0.400 s: no snapshot (state=armed)" ] || st=1
[ -e "$TMP/none.dat" ] && st=1
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 0.35 && b - a < 3) }' || st=1
result "recorder wait -t: exit 1 with one line after the timeout, no file" $st \
	"exit $rc" "$(cat "$TMP/err")"

# record while the recorder holds the buffers: one line naming it, no file.
for state in armed triggered; do
	rec_snap 1 timeout $state
	printf 'started\n' > "$RDBG/control"
	run "$GRTRACE" record -o "$TMP/none.dat" -d 1
	st=0
	[ $rc -eq 1 ] || st=1
	[ "$(cat "$TMP/err")" = "grtrace: record: the flight recorder is $state: its buffers are read only as a snapshot ('grtrace recorder wait -o FILE'), or 'grtrace recorder disarm' first" ] || st=1
	[ -e "$TMP/none.dat" ] && st=1
	result "record while the flight recorder is $state: exit 1, one line naming it, no file" $st \
		"exit $rc" "$(cat "$TMP/err")"
done

rec_snap 1 timeout off
run "$GRTRACE" recorder wait -o "$TMP/none.dat" -t 5
st=0
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: recorder wait: the recorder is not armed (state=off): 'grtrace recorder arm' first" ] || st=1
result "recorder wait with the recorder off: one line, exit 1" $st "$(cat "$TMP/err")"

rec_snap 2 error
run "$GRTRACE" recorder status
st=$rc
for line in \
	"recorder: triggered (session 7, format 2, 65536 bytes per CPU)" \
	"trigger:  error at 1008000000 ns on CPU 0, ring 1, job 10:2, error -62" \
	"frozen:   at 1008050000 ns, 50000 ns after the trigger; 3 later triggers counted" \
	"cpu0      window 1002000000 .. 1003000000 ns; emitted 53 = kept 11 + overwritten 38 + dropped 4 (holds)" \
	"cpu1      window 1002050000 .. 1003500000 ns; emitted 20 = kept 10 + overwritten 8 + dropped 2 (holds)"; do
	grep -qxF "$line" "$TMP/out" || st=1
done
result "recorder status prints the info file readably" $st "$(cat "$TMP/out" "$TMP/err")"

rec_snap 2 error
run "$GRTRACE" recorder wait -t 30 -o "$TMP/snapr.dat" --release
st=$rc
[ "$(cat "$RDBG/recorder/control")" = release ] || st=1
[ -s "$TMP/snapr.dat" ] || st=1
for w in trigger release disarm; do
	printf 'armed\n' > "$RDBG/recorder/control"
	run "$GRTRACE" recorder $w
	[ $rc -eq 0 ] || st=1
	[ "$(cat "$RDBG/recorder/control")" = $w ] || st=1
done
printf 'off\n' > "$RDBG/recorder/control"
run "$GRTRACE" recorder arm --size 1M --format 1
[ $rc -eq 0 ] || st=1
[ "$(cat "$RDBG/recorder/control")" = arm ] || st=1
[ "$(cat "$RDBG/buffer_size")" = 1048576 ] || st=1
[ "$(cat "$RDBG/config")" = format=1 ] || st=1
result "recorder arm/trigger/release/disarm write their word; wait --release; arm --size --format" $st \
	"exit $rc" "$(cat "$TMP/err")"

# The module refuses (here: the write fails): one line, exit 1, and arm's
# settings put back as they were.
rec_snap 1 timeout off
ln -sf /dev/full "$RDBG/recorder/control"
run "$GRTRACE" recorder arm --size 1M --format 1
st=0
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: recorder arm: refused by $RDBG/recorder/control (No space left on device); state=off" ] || st=1
[ "$(cat "$RDBG/buffer_size")" = 4194304 ] || st=1
[ "$(cat "$RDBG/config")" = format=2 ] || st=1
run "$GRTRACE" recorder trigger
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: recorder trigger: refused (No space left on device): the recorder is not armed; state=off" ] || st=1
rm -f "$RDBG/recorder/control"
run "$GRTRACE" recorder disarm
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: cannot open $RDBG/recorder/control: No such file or directory (is grtrace.ko loaded and debugfs mounted?)" ] || st=1
result "a refused control word: one line naming the state, arm's settings put back; no recorder: one line" $st \
	"exit $rc" "$(cat "$TMP/err")"

# Lockdown: debugfs refuses to open the control file for writing (EPERM,
# made here with an immutable file); the words go to sysfs's recorder.
rec_snap 1 timeout armed
mkdir -p "$TMP/sysfs"
printf 'armed\n' > "$TMP/sysfs/recorder"
if command -v chattr > /dev/null 2>&1 && chattr +i "$RDBG/recorder/control" 2> /dev/null; then
	GRTRACE_SYSFS=$TMP/sysfs run "$GRTRACE" recorder trigger
	st=$rc
	[ "$(cat "$TMP/sysfs/recorder")" = trigger ] || st=1
	[ "$(cat "$RDBG/recorder/control")" = armed ] || st=1
	[ -s "$TMP/err" ] && st=1
	chattr -i "$RDBG/recorder/control"
	result "under lockdown (EPERM from debugfs) the control word goes to sysfs's recorder" $st \
		"exit $rc" "$(cat "$TMP/err")"
else
	ok "under lockdown the control word goes to sysfs's recorder # SKIP chattr +i not supported on $TMP's file system: EPERM cannot be made here"
fi

# Bad arguments: exit 2, one line and the hint, nothing written.
rec_snap 1 timeout armed
for c in "recorder|a subcommand is needed" \
	 "recorder bogus|unknown subcommand 'bogus'" \
	 "recorder arm --size 1000|invalid size '1000'" \
	 "recorder arm --size 512M|invalid size '512M'" \
	 "recorder arm --size 17592186044544M|invalid size '17592186044544M'" \
	 "recorder arm --format 3|invalid format '3'" \
	 "recorder arm --format|option '--format' needs an argument" \
	 "recorder arm now|unexpected argument 'now'" \
	 "recorder trigger now|unexpected argument 'now'" \
	 "recorder status -x|unknown option '-x'" \
	 "recorder wait|-o FILE is required" \
	 "recorder wait -o $TMP/x.dat -t x|invalid timeout 'x'" \
	 "recorder wait -o $TMP/x.dat -t 0|invalid timeout '0'" \
	 "recorder wait -o $TMP/nodir/x.dat|cannot create $TMP/nodir/x.dat in $TMP/nodir"; do
	args=${c%%|*}
	want=${c#*|}
	# shellcheck disable=SC2086
	run "$GRTRACE" $args
	st=0
	[ $rc -eq 2 ] || st=1
	grep -qF -e "$want" "$TMP/err" || st=1
	[ "$(grep -c '^grtrace: ' "$TMP/err")" -eq 1 ] || st=1
	[ "$(cat "$RDBG/recorder/control")" = armed ] || st=1
	[ "$(cat "$RDBG/buffer_size")" = 4194304 ] || st=1
	[ -e "$TMP/x.dat" ] && st=1
	result "grtrace $(printf '%s' "$args" | sed "s|$TMP|TMP|g"): usage error naming the problem, nothing changed" $st \
		"exit $rc" "$(cat "$TMP/err")"
done

export GRTRACE_DEBUGFS="$FAKE"
