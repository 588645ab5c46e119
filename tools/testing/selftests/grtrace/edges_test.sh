#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# edges_test.sh - the paths users take off the happy path, against the real
# modules: a recording stopped while GPU jobs are still running or queued,
# the warnings of record's summary (tracing restarted under it, a session it
# joined), and the events files across a resize or an rmmod: a reader that
# opened before a resize, rmmod with a reader open, and readers looping on
# every events file while buffer_size and start/stop are written (a
# deadlock there fails the test by its deadline instead of hanging).
# A record joining a session someone else started, and stops, gets every
# event of it; one joining a session that goes on reads it live (its
# window whole, each event within 250 ms, poll(2) woken, a CPU with empty
# sessions behind it read once and in order).  A start while unread
# records of the last session fill the buffer is refused, and changes
# nothing.
# TAP output; runs as root inside the test VM.
#
# EDGES_STRESS_SECS (default 4) is how long the resize stress runs.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
VD=/sys/kernel/debug/grtrace_vgpu
STRESS_SECS=${EDGES_STRESS_SECS:-4}

# inflight STATS: from a copy of the vgpu's stats, the jobs submitted and
# not finished per ring: "gfx=N compute=N copy=N".
inflight() {
	awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	       printf "%s%s=%d", (NR > 1 ? " " : ""), substr($1, 12),
		      v["submitted"] - v["completed"] }' "$1"
}

# inflight_poll FILE: inflight's answer in INFLIGHT, without a fork: a
# debug kernel takes most of a second to start awk, and the poll below
# must see a state within a fraction of one.
inflight_poll() {
	local f kv s c
	INFLIGHT=
	while read -r -a f; do
		s=0 c=0
		for kv in "${f[@]:1}"; do
			case $kv in
			submitted=*) s=${kv#*=} ;;
			completed=*) c=${kv#*=} ;;
			esac
		done
		INFLIGHT+="${INFLIGHT:+ }${f[0]:11}=$((s - c))"
	done <"$1"
}

# vsubmit TEXT: one write(2) of TEXT (with \n escapes) to the submit file.
vsubmit() {
	printf '%b' "$1" >"$TMP/submit" &&
		dd if="$TMP/submit" of="$VD/submit" bs=64k status=none
}

# emit_on CPU TEXT: inject events (lines of the emit file) from one CPU.
emit_on() {
	printf '%b' "$2" >"$TMP/emit" &&
		taskset -c "$1" dd if="$TMP/emit" of="$D/emit" bs=64k status=none
}

# emit_jobs CTX N: N lines "submit CTX 3 1 SEQNO", one write, from CPU 0.
emit_jobs() {
	local s text=''

	for s in $(seq "$2"); do
		text+="submit $1 3 1 $s\n"
	done
	emit_on 0 "$text"
}

# has_line FILE TEXT: FILE has a line that is exactly TEXT.
has_line() {
	grep -qxF -- "$2" "$1" && return 0
	echo "# missing line: $2"
	return 1
}

echo "TAP version 13"
echo "1..23"
load_stack timeout_ms=30000

# 1-4. A recording stopped while jobs run.  Times from the submission, in
# seconds (contexts are created in this order, so their fence contexts
# increase in it):
#   copy 0: seqno 1 [0,3], 2 [3,6], 3 [6,9]   (3 s each, in order)
#   gfx 1:  seqno 1 [0,4]
#   copy 2: seqno 1 waits for gfx 1, is committed at 4, queued behind
#           copy 0:3, runs [9,10]
#   compute 3: seqno 1 waits for copy 0:3 (its latest job), runs [9,10]
# Stopped at 7.5: done copy 0:1, 0:2, gfx 1:1; running copy 0:3; queued
# copy 2:1; waiting compute 3:1.  Nothing changes from 6 to 9.  On a slow
# kernel every time is S = min(SLOW, 2) times longer (the virtual GPU
# takes jobs of 10 s at most).  The stop comes when that state is seen
# (polled), half a second into it, not after a fixed sleep: on a debug
# kernel the test's own commands take seconds, and on a loaded host a
# fixed 7.5 s once landed outside the state.
S=$((SLOW > 2 ? 2 : SLOW))
# mid_run: one such recording; its exit status in rc, the vgpu's jobs in
# flight at the stop and once record exited in at_stop and after.
mid_run() {
	local seen up t0 t1 t2

	record_start "$TMP/mid.dat" ||
		{ echo "Bail out! grtrace record did not start"; exit 1; }
	t0=$(cut -d' ' -f1 /proc/uptime)
	vsubmit "copy 0 3 $((3000000 * S))\ngfx 1 1 $((4000000 * S))\ncopy 2 1 $((1000000 * S)) dep=gfx:1\ncompute 3 1 $((1000000 * S)) dep=copy:0\n"
	# Each state seen, with the uptime it was first seen at, for the
	# log: on a slow kernel, when the stop lands is the question.
	seen=
	for _ in $(seq $((300 * S))); do
		inflight_poll "$VD/stats"
		if [ "$INFLIGHT" != "$seen" ]; then
			seen=$INFLIGHT
			read -r up _ </proc/uptime
			echo "# poll: uptime $up: $seen"
		fi
		[ "$INFLIGHT" = "gfx=0 compute=1 copy=2" ] && break
		sleep 0.1
	done
	sleep 0.5
	cat "$VD/stats" >"$TMP/vstats.stop"
	kill -INT "$REC"
	t1=$(cut -d' ' -f1 /proc/uptime)
	wait "$REC"
	rc=$?
	cat "$VD/stats" >"$TMP/vstats.after"
	t2=$(cut -d' ' -f1 /proc/uptime)
	at_stop=$(inflight "$TMP/vstats.stop")
	after=$(inflight "$TMP/vstats.after")
	echo "# uptime: submitted at $t0, stopped at $t1, record exited at $t2"
	echo "# in flight at the stop: $at_stop; once record exited: $after"
}
# A run whose state changed between the look and the stop (a debug guest
# starved by its host once took 5 s from one to the other, and the copy
# job ended meanwhile) cannot be judged: it is run again, twice at most,
# once the vgpu is idle.  What is judged is the last run.
for try in 1 2 3; do
	mid_run
	[ "$at_stop" = "gfx=0 compute=1 copy=2" ] && [ "$after" = "$at_stop" ] &&
		break
	[ "$try" = 3 ] && break
	echo "# run $try: the jobs in flight changed around the stop: run again"
	[ "$(cat "$VD/wait")" = idle ] || echo "# the vgpu did not get idle"
done
[ "$rc" = 0 ] && [ "$at_stop" = "gfx=0 compute=1 copy=2" ] &&
	[ "$after" = "$at_stop" ] && has_line "$TMP/mid.dat.err" "grtrace: dropped: 0"
ok $? "record stopped by SIGINT mid-workload exits 0, no drops; 3 jobs in flight at the stop (compute 1, copy 2)"
[ "$rc" = 0 ] || sed "s/^/# /" "$TMP/mid.dat.err"

"$TOOL" report -i "$TMP/mid.dat" --format json >"$TMP/mid.json" 2>"$TMP/mid.rep.err"
ok $? "report reads the recording stopped mid-workload"

# Name jobs RING:VGPU_CTX:SEQNO, VGPU_CTX from the order of the fence
# contexts on each ring.
n_stop=$(echo "$at_stop" | awk -F '[ =]' '{ print $2 + $4 + $6 }')
mid_check() {
	python3 - "$1" "$2" "$S" <<'EOF'
import json, sys

rep = json.load(open(sys.argv[1]))
inflight = int(sys.argv[2])
S = int(sys.argv[3])
vctx = {"copy": [0, 2], "gfx": [1], "compute": [3]}
ctxs = {}
for j in rep["jobs"]:
    ctxs.setdefault(j["ring_name"], set()).add(j["ctx"])
jobs = {}
for j in rep["jobs"]:
    ring = (j["ring_name"] or "?").split("-")[-1]
    order = sorted(ctxs[j["ring_name"]])
    vc = vctx.get(ring, [])
    k = order.index(j["ctx"])
    name = "%s:%s:%d" % (ring, vc[k] if k < len(vc) else "?", j["seqno"])
    jobs[name] = j
stamps = ("submit_ts", "commit_ts", "start_ts", "end_ts", "complete_ts")
incomplete = sorted(n for n, j in jobs.items()
                    if any(j[s] is None for s in stamps))
complete = sorted(n for n in jobs if n not in incomplete)
print("# jobs: %s" % " ".join(sorted(jobs)))
for n in sorted(jobs):
    print("# %s: %s" % (n, " ".join("%s=%.3f" % (s[:-3], jobs[n][s] / 1e9)
                                   for s in stamps if jobs[n][s] is not None)))
print("# incomplete: %s; summary.jobs_incomplete=%d" %
      (" ".join(incomplete), rep["summary"]["jobs_incomplete"]))
want = ["compute:3:1", "copy:0:3", "copy:2:1"]
ok = (incomplete == want and len(incomplete) == inflight and
      rep["summary"]["jobs_incomplete"] == inflight)
print("%s incomplete: exactly the %d jobs in flight at the stop (%s)" %
      ("PASS" if ok else "FAIL", inflight, " ".join(want)))

# Completed: every stamp, and t_exec bounded below exactly by the
# configured time.  A job that started on an idle engine has its start at
# COMMIT (the engine starts it right after run_job), so its own t_exec is
# exact; a queued one has its start derived from the END of the job
# before it, stamped with that job's timer latency, so the exact bound is
# the one of the whole run: last END - first START >= sum of exec times.
ok = complete == ["copy:0:1", "copy:0:2", "gfx:1:1"]
msg = []
def j(n):
    return jobs.get(n) or {s: None for s in stamps + ("t_exec", "start_derived")}
for n, exec_ns in (("copy:0:1", 3000000000 * S), ("gfx:1:1", 4000000000 * S)):
    x = j(n)
    msg.append("%s t_exec=%s" % (n, x["t_exec"]))
    ok = ok and x["start_ts"] == x["commit_ts"] and x["t_exec"] is not None \
        and exec_ns <= x["t_exec"] < exec_ns + 1000000000 * S
a, b = j("copy:0:1"), j("copy:0:2")
run = None
if b["end_ts"] is not None and a["start_ts"] is not None:
    run = b["end_ts"] - a["start_ts"]
msg.append("copy:0:2 t_exec=%s, copy 0 run=%s" % (b["t_exec"], run))
ok = ok and b["start_derived"] is True and b["start_ts"] == a["end_ts"] \
    and run is not None and 6000000000 * S <= run < 7000000000 * S \
    and b["t_exec"] is not None and 2000000000 * S < b["t_exec"] < 4000000000 * S
print("%s completed: copy:0:1 copy:0:2 gfx:1:1 with exec time >= configured (%s)" %
      ("PASS" if ok else "FAIL", "; ".join(msg)))
EOF
}
check "stopped mid-workload" mid_check "$TMP/mid.json" "$n_stop"
[ "$(cat "$VD/wait")" = idle ] || echo "# the vgpu did not get idle"

# 5. A session started by someone else, and stopped by them while the
# record runs: the record gets every event of the session.
w0=$(stat_of written)
echo start >"$D/control"
record_join "$TMP/joined.dat" -d $((4 * SLOW))
vsubmit "copy 0 2 500000\ngfx 1 1 300000\n"
[ "$(cat "$VD/wait")" = idle ] || echo "# the vgpu did not get idle"
echo stop >"$D/control"
wait "$REC"
rc=$?
state=$(cat "$D/control")
w1=$(stat_of written)
sed 's/^/# joined: /' "$TMP/joined.dat.err"
got=$(sed -n 's/^grtrace: recorded .* records (\([0-9]*\) events).*/\1/p' "$TMP/joined.dat.err")
jobs=$("$TOOL" report -i "$TMP/joined.dat" --format json 2>/dev/null |
	python3 -c 'import json, sys; s = json.load(sys.stdin)["summary"]; print(s["jobs"], s["jobs_incomplete"])')
echo "# written while recording: $((w1 - w0)); recorded events: ${got:-?}; jobs, incomplete: ${jobs:-?}"
[ $rc = 0 ] && [ "$state" = stopped ] && [ "$((w1 - w0))" -gt 0 ] &&
	[ "${got:-x}" = "$((w1 - w0))" ] && [ "$jobs" = "3 0" ]
ok $? "record -d joining a session its owner stops gets every event of it (3 jobs, complete) and does not restart it"

# 5b. A session that goes on: a record joining it reads live.  Its window
# holds every event emitted in it, though no sub-buffer fills and nobody
# stops the session; a second record then gets only what came after.
echo start >"$D/control"
live_rec() {	# FILE EVENTS_FROM: record -d 3 while 3 jobs are emitted
	record_join "$1" -d $((3 * SLOW)) || return 1
	emit_jobs "$2" 3
	wait "$REC"
}
live_rec "$TMP/live1.dat" 21
rc1=$?
live_rec "$TMP/live2.dat" 22
rc2=$?
state=$(cat "$D/control")
sed 's/^/# live: /' "$TMP/live1.dat.err" "$TMP/live2.dat.err"
live_ctxs() {
	"$TOOL" dump -i "$1" 2>/dev/null | awk '/SUBMIT/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^ctx=/) printf "%s ", $i }'
}
l1=$(live_ctxs "$TMP/live1.dat")
l2=$(live_ctxs "$TMP/live2.dat")
echo "# live1 submits: $l1; live2 submits: $l2"
[ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$state" = started ] &&
	grep -q "^grtrace: recorded .* (3 events)" "$TMP/live1.dat.err" &&
	grep -q "^grtrace: recorded .* (3 events)" "$TMP/live2.dat.err" &&
	[ "$l1" = "ctx=21 ctx=21 ctx=21 " ] && [ "$l2" = "ctx=22 ctx=22 ctx=22 " ]
ok $? "record -d 3 on a session that goes on gets the 3 events of its window, live, twice in a row"

# 5c. A reader of a CPU that had nothing in two sessions in a row: two
# sessions started and stopped from CPU 0 leave CPU 1's buffer without a
# record, then a record reads CPU 1 live, in several reads.  It must get
# each event once, in order.
for _ in 1 2; do
	taskset -c 0 sh -c "echo start >$D/control; echo stop >$D/control"
done
record_join "$TMP/empty.dat" -d $((3 * SLOW))
for s in 1 2 3; do
	emit_on 1 "submit 24 3 1 $s\n"
	sleep 0.5
done
wait "$REC"
rc=$?
sed 's/^/# empty: /' "$TMP/empty.dat.err"
seqs=$("$TOOL" dump -i "$TMP/empty.dat" 2>&1 | awk '/SUBMIT.*ctx=24/ { printf "%s ", $6 } /corrupt|warning/')
echo "# CPU 1's submits: $seqs"
[ $rc = 0 ] && [ "$seqs" = "seqno=1 seqno=2 seqno=3 " ]
ok $? "a CPU whose buffer had two empty sessions is read live: each of its 3 events once, in order"

# 5d. How soon: one event at a time, the time from the write to the emit
# file until the running record has it in its output file.  The record
# polls every 100 ms; the bound is 250 ms (SLOW times that on a slow
# kernel).
echo start >"$D/control"
# poll(2) without a timeout, on a CPU's file read empty: an event written
# 0.3 s later on that CPU wakes it, though no sub-buffer is finished.
pw=$(python3 - "$D" <<'PY'
import os, select, sys, time
fd = os.open(sys.argv[1] + "/events0", os.O_RDONLY)
while os.read(fd, 65536):
    pass
if os.fork() == 0:
    os.sched_setaffinity(0, {0})
    time.sleep(0.3)
    with open(sys.argv[1] + "/emit", "w") as f:
        f.write("submit 25 3 1 1\n")
    os._exit(0)
p = select.poll()
p.register(fd, select.POLLIN)
t0 = time.monotonic()
ev = p.poll(5000)
ms = int((time.monotonic() - t0) * 1000)
n = len(os.read(fd, 65536)) if ev else 0
os.wait()
print(ms, n)
PY
)
echo "# poll woke after ${pw% *} ms with ${pw#* } bytes to read"
[ "${pw#* }" -gt 0 ] 2>/dev/null && [ "${pw% *}" -lt 800 ]
ok $? "poll(2) on an events file wakes for a record in an unfinished sub-buffer (${pw% *} ms, event at 300 ms)"
# Live latency: the module wakes readers every 100 ms, and record writes
# a frame once it is 100 ms old, so an event is in the file within about
# 200 ms; 300 leaves the guest's scheduling under TCG a period of slack
# (the first event of a run is usually the slowest: 272 ms once on the RT
# kernel with 250 allowed; the rest of six runs 104 to 199).
record_join "$TMP/lat.dat"
lat=$(python3 - "$D/emit" "$TMP/lat.dat" <<'PY'
import os, sys, time
worst, lats = 0, []
for i in range(1, 11):
    size = os.stat(sys.argv[2]).st_size
    t0 = time.monotonic()
    with open(sys.argv[1], "w") as f:
        f.write("submit 23 3 1 %d\n" % i)
    while os.stat(sys.argv[2]).st_size == size and time.monotonic() - t0 < 3:
        time.sleep(0.002)
    lats.append(int((time.monotonic() - t0) * 1000))
    time.sleep(0.1)
print(max(lats), " ".join(map(str, lats)))
PY
)
kill -INT "$REC"
wait "$REC"
rc=$?
echo stop >"$D/control"
worst=${lat%% *}
echo "# ms from emit to the record's file: ${lat#* } (worst ${worst:-?})"
[ $rc = 0 ] && [ "${worst:-99999}" -lt $((300 * SLOW)) ] &&
	[ "$("$TOOL" dump -i "$TMP/lat.dat" 2>/dev/null | grep -c 'SUBMIT.*ctx=23')" = 10 ]
ok $? "a running record has each of 10 single events in its file within $((300 * SLOW)) ms (worst ${worst:-?} ms)"
unload_all

# 6-7. The summary's warnings.  Restart under a running record: the
# records of both sessions are in the file and the drops of the stopped
# time are counted.
insmod "$KO" emit_enable=1 || { echo "Bail out! insmod $KO failed"; exit 1; }
record_start "$TMP/restart.dat"
s0=$(stat_of session)
emit_jobs 5 10
echo stop >"$D/control"
emit_jobs 5 3
echo start >"$D/control"
emit_jobs 5 10
sleep 0.3
kill -INT "$REC"
wait "$REC"
rc=$?
sed 's/^/# restart: /' "$TMP/restart.dat.err"
# The recording stopped mid-workload had no restart: no warning there.
[ $rc = 0 ] && has_line "$TMP/restart.dat.err" \
	"grtrace: warning: tracing was restarted during the recording (session $s0 -> $((s0 + 1)))" &&
	! grep -q "restarted" "$TMP/mid.dat.err"
ok $? "record warns that tracing was restarted (session $s0 -> $((s0 + 1))), and only then"
has_line "$TMP/restart.dat.err" "grtrace: recorded 24 records (20 events) to $TMP/restart.dat, $(stat -c %s "$TMP/restart.dat") bytes" &&
	has_line "$TMP/restart.dat.err" "grtrace: dropped: 3 (disabled 3)" &&
	[ "$("$TOOL" dump -i "$TMP/restart.dat" | grep -c STREAM_INFO)" = 2 ]
ok $? "restart: the summary counts 24 records (2 sessions' STREAM_INFO and METADATA, 20 events) and 3 drops (disabled)"

# 8. Joining a started session with drops: they are counted since the last
# reset_stats, before the record came too.  10 of 20 events before the
# record and 10 of 20 during it are dropped by the context watchlist.  The
# restart's record above had drops too, but had started tracing itself:
# it must not say so.
echo "reset_stats" >"$D/config"
echo "watch_ctx_add=5" >"$D/config"
echo start >"$D/control"
emit_jobs 5 10
emit_jobs 6 10
record_join "$TMP/join.dat" -d $((3 * SLOW))
emit_jobs 5 10
emit_jobs 6 10
# Its owner stops it: the flush hands the record the rest.
echo stop >"$D/control"
wait "$REC"
rc=$?
sed 's/^/# joined with drops: /' "$TMP/join.dat.err"
[ $rc = 0 ] &&
	has_line "$TMP/join.dat.err" "grtrace: (tracing was already started: drops are counted since the module's counters were last reset)" &&
	has_line "$TMP/join.dat.err" "grtrace: dropped: 20 (filtered_watch 20)" &&
	has_line "$TMP/join.dat.err" "grtrace: recorded 22 records (20 events) to $TMP/join.dat, $(stat -c %s "$TMP/join.dat") bytes" &&
	! grep -qF "(tracing was already started" "$TMP/restart.dat.err"
ok $? "joined session: the summary says drops count from the reset, 20 (filtered_watch), and 22 records (20 events); not said when record started tracing"
echo "watch_ctx_clear" >"$D/config"

# 9-12. An events file opened before a resize fails to read with EIO
# afterwards; a new open works; rmmod with an events file open fails.
exec 3<"$D/events0"
# py_read3: "read N" or the errno name of a read(2) of descriptor 3, and
# whether poll(2) reports a hang-up on it.
py_read3() {
	python3 -c 'import os, errno, select
p = select.poll()
p.register(3, select.POLLIN)
hup = any(ev & select.POLLHUP for fd, ev in p.poll(0))
try:
    print("read", len(os.read(3, 65536)), "hup" if hup else "")
except OSError as e:
    print(errno.errorcode[e.errno], "hup" if hup else "")'
}
before=$(py_read3)
r=0
echo 128K >"$D/buffer_size" || r=1
after=$(py_read3)
echo "# events0 opened before the resize: read before: $before; after: $after"
[ $r = 0 ] && [[ $before == "read "* && $before != *hup ]] && [ "$after" = "EIO hup" ]
ok $? "an events0 descriptor opened before a resize reads EIO afterwards, poll gives POLLHUP"
echo start >"$D/control" && emit_jobs 5 4 && echo stop >"$D/control"
: >"$TMP/new.txt"
for f in "$D"/events[0-9]*; do
	cat "$f" >"$TMP/new.dat"
	if ! "$TOOL" dump --channel "${f##*events}" -i "$TMP/new.dat" >>"$TMP/new.txt" 2>"$TMP/new.err"; then
		echo "# ${f##*/}: $(stat -c %s "$TMP/new.dat") bytes: $(cat "$TMP/new.err")"
	fi
done
[ "$(grep -c SUBMIT "$TMP/new.txt")" = 4 ] && [ "$(grep -c STREAM_INFO "$TMP/new.txt")" = 1 ]
ok $? "events files opened after the resize read the new session (STREAM_INFO and 4 events)"
out=$(rmmod grtrace 2>&1)
r=$?
echo "# rmmod with events0 open: $out (module refcount $(awk '$1 == "grtrace" { print $3 }' /proc/modules))"
[ $r != 0 ] && grep -q '^grtrace ' /proc/modules && [[ $out == *"in use"* ]]
ok $? "rmmod grtrace with an events file open fails: in use"
exec 3<&-
rmmod grtrace && ! grep -q '^grtrace ' /proc/modules
ok $? "rmmod grtrace succeeds once the events file is closed"

# 13-17. Resize and start/stop while readers loop on every events file.
insmod "$KO" emit_enable=1 || { echo "Bail out! insmod $KO failed"; exit 1; }
# The first start creates the events files.
echo start >"$D/control" && echo stop >"$D/control"
cat >"$TMP/reader.py" <<'EOF'
import os, signal, sys
path, out = sys.argv[1], sys.argv[2]
reads = reopens = 0
def bye(*args):
    open(out, "w").write("%d reads %d reopens\n" % (reads, reopens))
    os._exit(0)
signal.signal(signal.SIGTERM, bye)
open(out, "w").write("ready\n")
while True:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        continue        # between the close and the open of a resize
    try:
        while True:
            os.read(fd, 65536)
            reads += 1
    except OSError:
        reopens += 1    # EIO: the file was replaced
    os.close(fd)
EOF
readers=()
for f in "$D"/events[0-9]* "$D"/events[0-9]*; do
	python3 "$TMP/reader.py" "$f" "$TMP/reads.${#readers[@]}" &
	readers+=($!)
done
for _ in $(seq 300); do
	[ "$(cat "$TMP"/reads.* 2>/dev/null | grep -c ready)" = ${#readers[@]} ] && break
	sleep 0.1
done
# The writer stops by itself after STRESS_SECS; only a hang outlives it.
(
	i=0 end=$((SECONDS + STRESS_SECS))
	while [ $SECONDS -lt "$end" ]; do
		echo "$((64 + i % 4 * 32))K" >"$D/buffer_size" &&
			echo start >"$D/control" && echo stop >"$D/control" || exit 1
		i=$((i + 1))
		echo "$i" >"$TMP/iters"
	done
) &
writer=$!
deadline=$((SECONDS + STRESS_SECS + 30))
while kill -0 "$writer" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
	sleep 0.5
done
if kill -0 "$writer" 2>/dev/null; then
	echo "# HANG after $(cat "$TMP/iters" 2>/dev/null || echo 0) iterations; stuck tasks:"
	for p in $writer $(pgrep -P "$writer") "${readers[@]}"; do
		echo "# pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" \
			"state $(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)"
		sed 's/^/#   /' "/proc/$p/stack" 2>/dev/null
	done
	ok 1 "resize and start/stop with readers in read(): no deadlock"
	echo "Bail out! a task is stuck in the kernel"
	exit 1
fi
wait "$writer"
rc=$?
kill "${readers[@]}" 2>/dev/null
wait "${readers[@]}" 2>/dev/null
sleep 0.2
iters=$(cat "$TMP/iters" 2>/dev/null || echo 0)
echo "# $iters resize+start+stop iterations in $STRESS_SECS s;" \
	"readers: $(cat "$TMP"/reads.* 2>/dev/null | tr '\n' ',')"
[ $rc = 0 ] && [ "$iters" -gt 0 ]
ok $? "resize and start/stop with readers in read(): no deadlock ($iters iterations)"

# After the stress the module works: a record gets what was emitted.
echo 4M >"$D/buffer_size"
record_start "$TMP/after.dat" && emit_jobs 5 10 && kill -INT "$REC" &&
	wait "$REC" &&
	has_line "$TMP/after.dat.err" "grtrace: recorded 12 records (10 events) to $TMP/after.dat, $(stat -c %s "$TMP/after.dat") bytes"
ok $? "after the stress a record gets its 10 events"
stat_ok=$(awk -F= '{ v[$1] = $2 } END { print (v["emitted"] == v["written"] + v["dropped_total"]) }' "$D/stats")
[ "$stat_ok" = 1 ]
ok $? "stats: emitted == written + dropped_total"

# Events from NMI: nothing written, each counted as dropped (nmi), the
# invariant kept, while a record runs on the same CPU, and each shown
# where it was lost: the CPU's next record takes their cseqs, a gap
# after the record before; before the CPU's first record of the session
# the file's CPU head shows them, after its last its CPU tail.  The
# record runs on CPU 1 (its session's first records are there), the NMIs
# and the events on CPU 0: 200 NMIs, 1 event, 200 NMIs, 15 events, 100
# NMIs.
NMIKO=$(ko grtrace_nmi_test)
NF=/sys/kernel/debug/grtrace_nmi_test/fire
echo reset_stats >"$D/config"
w0=$(stat_of written)
taskset -p -c 1 $$ >/dev/null
record_start "$TMP/nmi.dat" && insmod "$NMIKO" &&
	taskset -c 0 sh -c "echo 200 >$NF" && emit_on 0 "submit 0 3 1 100\n" &&
	taskset -c 0 sh -c "echo 200 >$NF" && emit_jobs 0 15 &&
	taskset -c 0 sh -c "echo 100 >$NF" &&
	kill -INT "$REC" && wait "$REC" &&
	[ "$(cat "$NF")" = 500 ] && [ "$(stat_of dropped_nmi)" = 500 ] &&
	[ "$(stat_of written)" = $((w0 + 16)) ] &&
	[ "$(stat_of emitted)" = $(($(stat_of written) + $(stat_of dropped_total))) ] &&
	has_line "$TMP/nmi.dat.err" "grtrace: recorded 18 records (16 events) to $TMP/nmi.dat, $(stat -c %s "$TMP/nmi.dat") bytes" &&
	"$TOOL" report -i "$TMP/nmi.dat" --format json >"$TMP/nmi.json" &&
	"$TOOL" report -i "$TMP/nmi.dat" >"$TMP/nmi.txt"
rc=$?
taskset -p -c 0-1 $$ >/dev/null
grep -A2 '^lost: ' "$TMP/nmi.txt" | sed 's/^/# /'
nmilost=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["summary"]; print(s.get("lost_records"), s.get("cseq_gaps"))' "$TMP/nmi.json" 2>/dev/null)
echo "# report of the NMI recording: lost records, cseq gaps: $nmilost"
[ $rc = 0 ] && [ "$nmilost" = "500 3" ] &&
	grep -q "(100 of them after a CPU's last record" "$TMP/nmi.txt" &&
	grep -q "(200 of them before a CPU's first record" "$TMP/nmi.txt"
ok $? "500 events from NMI: none written, dropped_nmi=500, emitted == written + dropped, the record around them complete, all 500 lost in CPU 0's cseq: 200 before its first record, 200 between, 100 after its last"
echo "# nmi: $(grep -E '^(emitted|written|dropped_nmi|dropped_total)=' "$D/stats" | tr '\n' ' ')"
rmmod grtrace_nmi_test

# A start while the last session's records, which nobody read, fill the
# buffer of the CPU it runs on: refused, with a line that says so and
# what to do, and nothing changes (the session number, each CPU's cseq);
# once the records are read, the next start is the next session.
echo 64K >"$D/buffer_size"
for _ in $(seq 256); do echo 'submit 1 0 0 10'; done >"$TMP/l"
for _ in $(seq 64); do cat "$TMP/l"; done >"$TMP/fill"
full0=$(stat_of dropped_buffer_full)
taskset -c 0 sh -c "echo start >$D/control && dd if=$TMP/fill of=$D/emit bs=4096 2>/dev/null && echo stop >$D/control"
rc=$?
s0=$(sed -n 's/^session=\([0-9]*\).*/\1/p' "$D/cseq")
cat "$D/cseq" >"$TMP/cseq.before"
taskset -c 0 "$TOOL" start 2>"$TMP/start.err"
src=$?
cat "$D/cseq" >"$TMP/cseq.after"
sed 's/^/# start: /' "$TMP/start.err"
cat "$D"/events[0-9]* >/dev/null
taskset -c 0 "$TOOL" start && "$TOOL" stop
rc2=$?
s1=$(sed -n 's/^session=\([0-9]*\).*/\1/p' "$D/cseq")
echo "# session $s0, then $s1; buffer_full $full0 -> $(stat_of dropped_buffer_full)"
[ $rc = 0 ] && [ "$(stat_of dropped_buffer_full)" -gt "$full0" ] && [ $src != 0 ] &&
	[ "$(wc -l <"$TMP/start.err")" = 1 ] && grep -q "full of records nobody has read" "$TMP/start.err" &&
	cmp -s "$TMP/cseq.before" "$TMP/cseq.after" && [ $rc2 = 0 ] && [ "$s1" = $((s0 + 1)) ]
ok $? "a start into a buffer full of unread records: refused with one line, nothing changed; after a read the next start is session $((s0 + 1))"
diff "$TMP/cseq.before" "$TMP/cseq.after" | sed 's/^/# /'
echo 4M >"$D/buffer_size"
rmmod grtrace
ok $? "rmmod after the stress and the NMIs"

! new_dmesg | grep -E "WARNING|BUG|Oops|leaked|Call Trace|hung_task|blocked for more"
ok $? "kernel log: no WARN, BUG, Oops, leak or hung task"

[ $FAILED -eq 0 ] || { new_dmesg | tail -n 20 | sed 's/^/# /'; }
rm -rf "$TMP"
exit $FAILED
