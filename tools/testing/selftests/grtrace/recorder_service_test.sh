#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recorder_service_test.sh - "grtrace recorder service", the loop the
# grtrace-recorder systemd unit runs, against the module and the virtual
# GPU on the real drm_sched, its folder on a tmpfs (--dir):
#  - it arms the recorder with the config's buffer size; a job that never
#    signals, twice (two rings): each snapshot is saved the moment it is
#    frozen, with one line naming cause timeout, the ring and the hung
#    job the virtual GPU's log names, the recorder re-armed; "recorder
#    list" shows both, "recorder show" reports each one's hung job;
#  - two hangs in quick succession: both saved, or the second counted as
#    a later trigger (missed) in the first's file: saved + missed = 2;
#  - 80 manual triggers back to back while the service saves and
#    releases: each one saved or counted as missed in a saved file's line,
#    summary; three triggers while the service is stopped (SIGSTOP):
#    one snapshot whose line, summary and "recorder list" say 2 missed;
#    the module's count at release;
#  - suspend while armed, as far as this guest goes (three suspends to
#    their freezer, pm_test=freezer; three times the service frozen and
#    CPU 1 offline and back; real s2idle and S3 run in a guest of their
#    own, suspend_test.sh, see below): the service still armed, a hang
#    after it saved;
#  - the driver's modules (virtual GPU, gpu-sched) reloaded under it:
#    still armed, a hang saved;
#  - SIGTERM: disarmed, exit 0; started before grtrace is loaded (boot):
#    one line, armed once it is;
#  - a tracing session someone else started: one line for 12 s of
#    refused tries, armed once it stops;
#  - a full tmpfs: one line naming ENOSPC, no file left, re-armed.
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
R=$D/recorder
SD=$TMP/snaps
LOG=$TMP/svc.log
OUT=${GRTRACE_OUT:+$GRTRACE_OUT/recorder_service}

armed() { [ "$(info state)" = armed ]; }
nsnaps() { find "$1" -maxdepth 1 -name '*.grf' | wc -l; }
has_snaps() { [ "$(nsnaps "$1")" -ge "$2" ]; }
# lines PATTERN: lines of the service's log matching PATTERN.
lines() { grep -c -- "$1" "$LOG"; }
saved_more() { [ "$(lines ' saved: ')" -gt "$1" ]; }
# start_service DIR [CONF]: the loop in the background, its log in $LOG.
start_service() {
	"$TOOL" recorder service --config "$TMP/conf" --dir "$1" >>"$LOG" 2>&1 &
	SVC=$!
}
stop_service() {
	kill -TERM "$SVC" && wait "$SVC"
}
# hang RING CHANNEL: one job that never signals, waited for until saved.
hang() {
	local before

	before=$(nsnaps "$SD")
	vgpu_submit "$1 $2 5 100\n$1 $2 1 0 hang\n$1 $2 3 100\n" &&
		wait_for 30 has_snaps "$SD" $((before + 1)) && wait_for 10 armed && vgpu_idle
}
keep() { [ -z "$OUT" ] || { mkdir -p "$OUT" && cp -r "$SD" "$LOG" "$OUT/"; }; }

echo "TAP version 13"
echo "1..22"
load_stack timeout_ms=400
mkdir -p "$SD" && mount -t tmpfs -o size=16m tmpfs "$SD" || {
	echo "Bail out! cannot mount a tmpfs on $SD"
	exit 1
}
# keep: above the snapshots of the burst of triggers below.
printf 'buffer_size=128K\nkeep=500\n' >"$TMP/conf"
: >"$LOG"

start_service "$SD"
wait_for 10 armed && [ "$(info buffer_size)" = 131072 ] &&
	[ "$(lines "flight recorder armed (session [0-9]*, 131072 bytes per CPU); snapshots go to $SD")" = 1 ]
ok $? "service: the recorder armed with the config's buffer_size (128K), one line"

# Two jobs that never signal, on two rings.
hang gfx 0
ok $? "a job that never signals on gfx: a snapshot saved, the recorder armed again"
job=$(hung_of gfx)
echo "# vgpu's log: gfx job $job timed out"
grep -q "^grtrace: snapshot [0-9T]*Z-s[0-9]* saved: cause timeout, ring [0-9]* vgpu0-gfx, hung job $job; [0-9]* later triggers missed; $SD/.*\.grf ([0-9]* bytes)\$" "$LOG"
ok $? "its line names cause timeout, ring vgpu0-gfx and the hung job $job: $(grep ' saved: ' "$LOG" | tail -1)"
hang copy 2
ok $? "a job that never signals on copy: a second snapshot saved, armed again"
job2=$(hung_of copy)
echo "# vgpu's log: copy job $job2 timed out"
grep -q " saved: cause timeout, ring [0-9]* vgpu0-copy, hung job $job2; " "$LOG"
ok $? "its line names ring vgpu0-copy and the hung job $job2"

"$TOOL" recorder list --dir "$SD" >"$TMP/list" 2>&1
sed 's/^/# /' "$TMP/list"
[ "$(wc -l <"$TMP/list")" = 3 ] &&
	sed -n 2p "$TMP/list" | grep -q " timeout  *[0-9]* vgpu0-gfx  *$job " &&
	sed -n 3p "$TMP/list" | grep -q " timeout  *[0-9]* vgpu0-copy  *$job2 "
ok $? "recorder list: the two snapshots, oldest first, with ring and hung job"
id1=$(sed -n '2s/ .*//p' "$TMP/list")
"$TOOL" recorder show "$id1" --dir "$SD" >"$TMP/show1" 2>&1 &&
	grep -q "^  hung job:   $job (" "$TMP/show1" &&
	"$TOOL" recorder show --dir "$SD" >"$TMP/show2" 2>&1 &&
	grep -q "^  hung job:   $job2 (" "$TMP/show2" && grep -q "^  ring:       [0-9]* vgpu0-copy" "$TMP/show2"
ok $? "recorder show ID: the report names $job; show (the newest) names $job2"

# Two hangs at once, on two rings: both saved, or the second missed and
# counted in the first's file.
n0=$(nsnaps "$SD") l0=$(lines ' saved: ')
# tally: snapshots saved since, and the later triggers their lines count.
tally() {
	new=$(($(nsnaps "$SD") - n0))
	missed=$(grep ' saved: ' "$LOG" | tail -n +$((l0 + 1)) |
		sed -n 's/.*; \([0-9]*\) later triggers missed;.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	[ $((new + missed)) -ge 2 ]
}
vgpu_submit "gfx 0 1 0 hang\ncompute 1 1 0 hang\n" && wait_for 30 has_snaps "$SD" $((n0 + 1)) &&
	vgpu_idle && wait_for 15 tally && wait_for 10 armed
rc=$?
tally
echo "# two hangs at once: $new saved, $missed counted as missed"
grep ' saved: ' "$LOG" | tail -n +$((l0 + 1)) | sed 's/^/# /'
[ $rc = 0 ] && [ $((new + missed)) = 2 ]
ok $? "two hangs in quick succession: saved + missed = 2 ($new saved, $missed missed)"

# Triggers back to back while the service saves and releases: a burst of
# manual ones, each one either frozen into a snapshot the service saves or
# counted as a later trigger, up to the release that re-arms: none lost.
n0=$(lines ' saved: ') fired=0
for _ in $(seq 80); do
	echo trigger >"$R/control" 2>/dev/null && fired=$((fired + 1))
	sleep 0.02
done
# accounted: snapshots saved since, plus the later triggers their lines count.
accounted() {
	grep ' saved: ' "$LOG" | tail -n +$((n0 + 1)) >"$TMP/burst"
	acc=$(($(wc -l <"$TMP/burst") + $(sed -n 's/.*; \([0-9]*\) later triggers missed;.*/\1/p' "$TMP/burst" |
		awk '{ s += $1 } END { print s + 0 }')))
	[ "$acc" -ge "$fired" ]
}
# Bounded by the clock, not by rounds: each round runs four programs.
end=$((SECONDS + 20 * SLOW))
until accounted || [ $SECONDS -ge $end ]; do sleep 0.5; done
accounted && wait_for 10 armed
rc=$?
sed 's/^/# /' "$TMP/burst"
[ $rc = 0 ] && [ "$fired" = 80 ] && [ "$acc" = "$fired" ]
ok $? "80 triggers back to back while saving: $acc of $fired saved or counted as missed, the recorder armed"
# The count a saved snapshot carries, made certain: the burst above may
# be saved one by one on a fast kernel, so it may count none.  The service
# stopped (SIGSTOP) while three triggers come: the first freezes a
# snapshot, the other two are later triggers; once it runs again, its
# line, its summary and "recorder list" all say 2.
n0=$(lines ' saved: ')
kill -STOP "$SVC" && for _ in 1 2 3; do echo trigger >"$R/control" || break; done
rc=$?
kill -CONT "$SVC"
wait_for 20 saved_more "$n0" && wait_for 10 armed
last=$(grep ' saved: ' "$LOG" | tail -n +$((n0 + 1)) | head -1)
id=${last#*snapshot } id=${id%% *} m=$(sed -n 's/.*; \([0-9]*\) later triggers missed;.*/\1/p' <<<"$last")
"$TOOL" recorder list --dir "$SD" >"$TMP/list" 2>&1
echo "# $last"
[ $rc = 0 ] && [ "$m" = 2 ] && grep -qx "later_triggers=2" "$SD/$id.txt" &&
	grep -q "^$id .* manual .* 2  *[0-9.]*[KMG]*\$" "$TMP/list"
ok $? "three triggers while the service is stopped: its line, summary and recorder list say 2 missed ($(grep "^$id " "$TMP/list"))"

# Suspend and resume while armed, as far as this guest goes.  Only the
# freezer part runs here: pm_test=freezer (every task, the service asleep
# in poll(2) included, frozen for pm_test_delay and thawed).  Every level
# from devices on (pm_test=devices, platform, processors, core, and a
# real s2idle or S3) suspends the virtio devices, and the 9p transport
# (this guest's root and output share) has no freeze/restore: resume
# resets the device, its queues are never set up again, and every 9p
# access hangs for good (pm_test=devices comes back in the kernel, and
# the next write to the output share never returns).  Real s2idle and S3
# while the service is armed run in suspend_test.sh, in a guest without
# 9p (run_tests.sh).  Here, what the processors level adds, the
# non-boot CPUs taken down and up with the tasks frozen, is also done by
# hand: the service frozen by the cgroup freezer, CPU 1 offline and back,
# thawed.  Three cycles of each.
echo "# /sys/power/state: $(cat /sys/power/state 2>&1); pm_test: $(cat /sys/power/pm_test 2>&1)"
echo "# not run in this guest: pm_test=devices and on; real s2idle and S3 run in suspend_test.sh's guest, without 9p"
n0=$(nsnaps "$SD")
if grep -qw mem /sys/power/state && [ -w /sys/power/pm_test ]; then
	rc=0 delay=/sys/module/suspend/parameters/pm_test_delay
	d0=$(cat $delay 2>/dev/null)
	[ -n "$d0" ] && echo 1 >$delay
	for st in mem freeze mem; do
		echo freezer >/sys/power/pm_test && echo $st >/sys/power/state && armed && kill -0 "$SVC" || rc=1
	done
	echo none >/sys/power/pm_test
	[ -n "$d0" ] && echo "$d0" >$delay
	dmesg | grep -E 'PM: suspend (entry|exit)|suspend debug|Freezing|Restarting tasks' | tail -3 | sed 's/^/# /'
	[ $rc = 0 ] && [ "$(dmesg | grep -c 'PM: suspend exit')" -ge 3 ]
	ok $? "three suspends to their freezer (pm_test=freezer: mem, freeze, mem) while armed: still armed, the service runs"
else
	ok 1 "suspend to its freezer while armed: no mem state or no pm_test in this kernel"
fi
CG=$TMP/cg
if [ -e /sys/devices/system/cpu/cpu1/online ] && mkdir -p "$CG" &&
	{ mountpoint -q "$CG" || mount -t cgroup2 none "$CG"; } && mkdir -p "$CG/svc" &&
	echo "$SVC" >"$CG/svc/cgroup.procs"; then
	rc=0
	frozen() { grep -qx "frozen $1" "$CG/svc/cgroup.events"; }
	for _ in 1 2 3; do
		echo 1 >"$CG/svc/cgroup.freeze" && wait_for 10 frozen 1 &&
			echo 0 >/sys/devices/system/cpu/cpu1/online && armed &&
			echo 1 >/sys/devices/system/cpu/cpu1/online &&
			echo 0 >"$CG/svc/cgroup.freeze" && wait_for 10 frozen 0 && armed || rc=1
	done
	[ $rc = 0 ] && kill -0 "$SVC" && [ "$(cat /sys/devices/system/cpu/online)" = 0-1 ]
	ok $? "three times: the service frozen, CPU 1 offline and back, thawed, while armed: still armed, the service runs"
else
	ok 1 "CPU 1 offline with the service frozen: no cpu1/online (one CPU?) or no cgroup2 freezer"
fi
hang gfx 0 && [ "$(nsnaps "$SD")" = $((n0 + 1)) ] && grep ' saved: ' "$LOG" | tail -1 | grep -q " hung job $(hung_of gfx); "
ok $? "after them a hang is saved, its job named, the recorder armed again"

# The driver's modules (the virtual GPU, gpu-sched) unloaded and loaded
# again under the service; grtrace itself stays: the service holds its
# info file open (rmmod refuses: in use).
n0=$(nsnaps "$SD")
! rmmod grtrace 2>/dev/null && rmmod grtrace_vgpu && rmmod gpu_sched && armed &&
	modprobe gpu-sched && insmod "$(ko grtrace_vgpu)" timeout_ms=400 && armed &&
	hang copy 2 && [ "$(nsnaps "$SD")" = $((n0 + 1)) ] &&
	grep ' saved: ' "$LOG" | tail -1 | grep -q "ring [0-9]* vgpu0-copy, hung job $(hung_of copy); "
ok $? "the driver's modules reloaded while armed (grtrace itself in use): still armed, a hang saved"

stop_service
rc=$?
[ $rc = 0 ] && [ "$(info state)" = off ] && grep -q "stopped: flight recorder disarmed" "$LOG"
ok $? "SIGTERM: the service exits 0, the recorder disarmed"

# The module's count at release: three triggers, the first freezes, the
# two later ones are counted, and release keeps their final count.
echo arm >"$R/control" && s0=$(info session) && for _ in 1 2 3; do echo trigger >"$R/control"; done &&
	[ "$(info later_triggers)" = 2 ] && echo release >"$R/control" && armed &&
	[ "$(info released_session)" = "$s0" ] && [ "$(info released_later_triggers)" = 2 ] &&
	[ "$(info later_triggers)" = 0 ] && [ "$(info session)" != "$s0" ] && echo disarm >"$R/control"
ok $? "release keeps the final count: released_session=$(info released_session) (was $s0), released_later_triggers=$(info released_later_triggers)"

# Started before grtrace is loaded (boot), then grtrace loaded: armed.
n0=$(nsnaps "$SD")
unload_all && start_service "$SD" && wait_for 10 grep -q "the flight recorder is not there" "$LOG" &&
	load_stack timeout_ms=400 && wait_for 10 armed &&
	grep -q "the flight recorder is back (state off)" "$LOG" &&
	[ "$(info buffer_size)" = 131072 ] && hang gfx 0 && [ "$(nsnaps "$SD")" = $((n0 + 1)) ] &&
	stop_service
ok $? "started before grtrace is loaded: one line, armed with the config once it is, a hang saved"
[ -z "$(find "$SD" -name '.tmp-*')" ] && [ "$(find "$SD" -name '*.txt' | wc -l)" = "$(nsnaps "$SD")" ]
ok $? "the folder: no temporary file, one summary per snapshot"
keep

# A session someone else started, left running for a while: the service
# cannot arm meanwhile and says so once, not every 5 s (days of a running
# "grtrace record" would fill the journal); armed once it stops.
l0=$(wc -l <"$LOG")
"$TOOL" start && start_service "$SD" && sleep 12 && [ "$(info state)" = off ]
rc=$?
"$TOOL" stop && wait_for 10 armed || rc=1
tail -n +$((l0 + 1)) "$LOG" | sed 's/^/# /'
[ $rc = 0 ] && [ "$(tail -n +$((l0 + 1)) "$LOG" | wc -l)" = 2 ] &&
	tail -n +$((l0 + 1)) "$LOG" | head -1 |
	grep -q "^grtrace: cannot arm the flight recorder: a tracing session is running ('grtrace stop' ends it); trying again every 5 s\$" &&
	tail -n +$((l0 + 2)) "$LOG" | grep -q "^grtrace: flight recorder armed "
ok $? "a tracing session running: one line in 12 s, not one per try; armed once it stops"
stop_service

# The disk full: a 4 KB tmpfs with its page taken.
FULL=$TMP/full
mkdir -p "$FULL" && mount -t tmpfs -o size=4k tmpfs "$FULL" && head -c 4096 /dev/zero >"$FULL/fill" 2>/dev/null
start_service "$FULL"
wait_for 10 armed && vgpu_submit "gfx 0 1 0 hang\n" &&
	wait_for 30 grep -q "NOT saved to $FULL: No space left on device; nothing of it is left there, the recorder is armed again" "$LOG" &&
	wait_for 10 armed && vgpu_idle
ok $? "the disk full: one line naming ENOSPC, the recorder armed again: $(grep 'NOT saved' "$LOG")"
[ "$(ls -A "$FULL")" = fill ]
ok $? "nothing half-written left in the full folder ($(ls -A "$FULL" | tr '\n' ' '))"
stop_service
keep
umount "$FULL" "$SD"
mountpoint -q "$CG" && umount "$CG"
sed 's/^/# log: /' "$LOG"

module_suite_end
