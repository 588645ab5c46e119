# SPDX-License-Identifier: GPL-2.0
#
# Host tests of "grtrace recorder service", "list" and "show": the save
# loop, its config file, the folder's atomic files and pruning, read back.
# Sourced by run-tests.sh after recorder-tests.sh (its rec_snap makes the
# fake recorder directory under $RDBG); the kernel side, two real hangs,
# a module reload, suspend and a full tmpfs are tested in the VM by
# tools/testing/selftests/grtrace/recorder_service_test.sh.  The fake
# recorder's info stays "triggered" after the service writes "release",
# so each run here is bounded by --count or a SIGTERM.

export GRTRACE_DEBUGFS="$RDBG"
# Not this machine's /etc/grtrace/recorder.conf: the defaults.
export GRTRACE_RECORDER_CONF=$TMP/no-recorder.conf
SD=$TMP/snaps
CONF=$TMP/recorder.conf

# snap_session N TS: the fake snapshot as session N, triggered at TS.
snap_session() {
	sed -i -e "s/^session=.*/session=$1/" -e "s/^trigger_ts=.*/trigger_ts=$2/" \
		"$RDBG/recorder/info"
}

# save_each SESSION...: the fake snapshot as each session in turn (triggered
# at 10<SESSION>000000), saved by a service run of $CONF (--count 1).
save_each() {
	for s in "$@"; do
		snap_session "$s" "10${s}000000"
		run timeout 30 "$GRTRACE" recorder service --config "$CONF" --count 1
	done
}

# ---- one snapshot saved, listed, shown ------------------------------------------------

rm -rf "$SD"
rec_snap 2 timeout
run timeout 30 "$GRTRACE" recorder service --dir "$SD" --count 1
st=$rc
n=$(ls "$SD" | wc -l)
[ "$n" -eq 2 ] || st=1
grf=$(ls "$SD"/*.grf)
id=$(basename "$grf" .grf)
printf '%s\n' "$id" | grep -qx '[0-9]\{8\}T[0-9]\{6\}Z-s7' || st=1
size=$(stat -c %s "$grf")
[ "$(cat "$TMP/err")" = "grtrace: snapshot $id saved: cause timeout, ring 1 gfx, hung job 10:2; 3 later triggers missed; $SD/$id.grf ($size bytes)" ] || st=1
[ "$(cat "$RDBG/recorder/control")" = release ] || st=1
# The file is the snapshot wait writes: report finds the same hung job.
run "$GRTRACE" report -i "$grf"
grep -q "^  hung job:   10:2 (SUBMIT 5800.0 us" "$TMP/out" || st=1
grep -qx "records=28" "$SD/$id.txt" || st=1
result "recorder service --count 1: the snapshot saved as ID.grf + ID.txt, one line naming cause, ring and hung job, released" $st \
	"exit $rc" "$(cat "$TMP/err")" "$(ls -la "$SD")"

# Under systemd (JOURNAL_STREAM set) the line has journald's priority.
rec_snap 1 error
snap_session 8 1009000000
JOURNAL_STREAM=8:1 run timeout 30 "$GRTRACE" recorder service --dir "$SD" --count 1
st=$rc
grep -qx "<4>grtrace: snapshot [0-9T]*Z-s8 saved: cause error, ring 1 gfx, hung job 10:2; 3 later triggers missed; $SD/[0-9T]*Z-s8.grf ([0-9]* bytes)" "$TMP/err" || st=1
[ "$(wc -l < "$TMP/err")" -eq 1 ] || st=1
result "recorder service under the journal: the <4> priority prefix journald reads" $st \
	"exit $rc" "$(cat "$TMP/err")"

run "$GRTRACE" recorder list --dir "$SD"
st=$rc
[ "$(wc -l < "$TMP/out")" -eq 3 ] || st=1
[ "$(sed -n 1p "$TMP/out" | tr -s ' ')" = "ID TIME CAUSE RING HUNG JOB MISSED SIZE" ] || st=1
sed -n 2p "$TMP/out" | grep -q "^$id  *[0-9-]* [0-9:]* [A-Z]* *timeout  *1 gfx  *10:2  *3  *$size\$" || st=1
sed -n 3p "$TMP/out" | grep -q "^[0-9T]*Z-s8  *.* error  *1 gfx  *10:2  *3  *[0-9]*\$" || st=1
[ -s "$TMP/err" ] && st=1
result "recorder list: ID, time, cause, ring, hung job, missed, size, oldest first" $st \
	"exit $rc" "$(cat "$TMP/out" "$TMP/err")"

run "$GRTRACE" recorder show --dir "$SD"
st=$rc
grep -q "^snapshot: [0-9T]*Z-s8\$" "$TMP/out" || st=1
grep -qx "  cause:      error (error -62) on CPU 0" "$TMP/out" || st=1
grep -q "^  hung job:   10:2 (.*), named by the trigger\$" "$TMP/out" || st=1
run "$GRTRACE" recorder show "$id" --dir "$SD"
[ $rc -eq 0 ] || st=1
grep -qx "snapshot: $id" "$TMP/out" || st=1
grep -qx "  cause:      timeout on CPU 0" "$TMP/out" || st=1
grep -q "^  hung job:   10:2 (.*), the oldest unfinished job of the ring" "$TMP/out" || st=1
run "$GRTRACE" recorder show "${id%%T*}" --dir "$SD"
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: recorder show: more than one snapshot '${id%%T*}' in $SD ('grtrace recorder list --dir $SD')" ] || st=1
run "$GRTRACE" recorder show nosuch --dir "$SD"
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: recorder show: no snapshot 'nosuch' in $SD ('grtrace recorder list --dir $SD')" ] || st=1
result "recorder show [ID]: the newest by default, an ID, the report with the hung job; an ambiguous or unknown ID: one line, exit 1" $st \
	"exit $rc" "$(head -5 "$TMP/out")" "$(cat "$TMP/err")"

# ---- a trigger between the read and the release ---------------------------------------

# The module counts a trigger that comes after the service read the
# snapshot, until its release armed the recorder again, and keeps that
# count in info (released_session, released_later_triggers): the line,
# the summary and list have it.  The fake's info has it from the start;
# the service reads it only after its release.
rm -rf "$SD"
rec_snap 2 timeout
printf 'released_session=7\nreleased_later_triggers=5\n' >> "$RDBG/recorder/info"
run timeout 30 "$GRTRACE" recorder service --dir "$SD" --count 1
st=$rc
grep -qx "grtrace: snapshot [0-9T]*Z-s7 saved: cause timeout, ring 1 gfx, hung job 10:2; 5 later triggers missed; $SD/.*\.grf ([0-9]* bytes)" "$TMP/err" || st=1
[ "$(wc -l < "$TMP/err")" -eq 1 ] || st=1
grep -qx "later_triggers=5" "$SD"/*-s7.txt || st=1
err1=$(cat "$TMP/err")
run "$GRTRACE" recorder list --dir "$SD"
sed -n 2p "$TMP/out" | grep -q " 10:2  *5  *[0-9]*\$" || st=1
# Another session's count is not this one's: 3, as read.
sed -i 's/^released_session=7$/released_session=6/' "$RDBG/recorder/info"
snap_session 9 1009000000
run timeout 30 "$GRTRACE" recorder service --dir "$SD" --count 1
grep -q " hung job 10:2; 3 later triggers missed; " "$TMP/err" || st=1
grep -qx "later_triggers=3" "$SD"/*-s9.txt || st=1
result "recorder service: the triggers the module counted until the release are the line's, the summary's and list's" $st \
	"exit $rc" "$err1" "$(cat "$TMP/err" "$TMP/out")"

# ---- the config: keep and max_size prune, triggers, adapters ---------------------------

rm -rf "$SD"
printf '# a comment\n\nkeep = 2\ndir=%s\n' "$SD" > "$CONF"
rec_snap 2 timeout
save_each 11 12 13
st=$rc
[ "$(ls "$SD" | sed 's/.*-//' | tr '\n' ' ')" = "s12.grf s12.txt s13.grf s13.txt " ] || st=1
grep -q "^grtrace: snapshot [0-9T]*Z-s11 removed (keep=2, max_size=1073741824)\$" "$TMP/err" || st=1
result "config keep=2: the newest two kept, the oldest removed with one line" $st \
	"$(ls "$SD")" "$(cat "$TMP/err")"

one=$(stat -c %s "$SD"/*-s13.grf)
printf 'dir=%s\nmax_size=%s\n' "$SD" $((one + one / 2)) > "$CONF"
snap_session 14 1014000000
run timeout 30 "$GRTRACE" recorder service --config "$CONF" --count 1
st=$rc
[ "$(ls "$SD" | sed 's/.*-//' | tr '\n' ' ')" = "s14.grf s14.txt " ] || st=1
[ "$(grep -c " removed (keep=10, max_size=$((one + one / 2)))\$" "$TMP/err")" -eq 2 ] || st=1
result "config max_size: the newest snapshots within the size cap kept" $st \
	"$(ls -la "$SD")" "$(cat "$TMP/err")"

# ---- the order of saving, whatever the wall clock said ---------------------------------

# A machine's clock can be hours ahead when snapshots are saved (an RTC kept
# in local time, no NTP yet) and right later.  keep, list and show go by
# the order the service saved them in: the snapshot it just saved is the
# newest, never the one removed.  Three saved with the clock 2 hours ahead
# (their IDs and summaries as it would have named them), then one now.
rm -rf "$SD"
printf 'dir=%s\nkeep=3\n' "$SD" > "$CONF"
rec_snap 2 timeout
save_each 21 22 23
ahead=$(($(date +%s) + 7200))
fid=$(date -u -d "@$ahead" +%Y%m%dT%H%M%SZ)
for f in "$SD"/*; do
	b=$(basename "$f")
	sed -i "s/^saved=.*/saved=$ahead/" "$f" 2> /dev/null
	mv "$f" "$SD/$fid-${b#*-}"
done
touch -d "@$ahead" "$SD"/*
snap_session 24 1024000000
run timeout 30 "$GRTRACE" recorder service --config "$CONF" --count 1
st=$rc
cp "$TMP/err" "$TMP/svc.err"
[ "$(ls "$SD" | sed 's/.*-//' | sort | tr '\n' ' ')" = "s22.grf s22.txt s23.grf s23.txt s24.grf s24.txt " ] || st=1
grep -qx "grtrace: snapshot $fid-s21 removed (keep=3, max_size=1073741824)" "$TMP/err" || st=1
run "$GRTRACE" recorder list --dir "$SD"
[ "$(sed -n '2,$p' "$TMP/out" | awk '{ sub(/.*-/, "", $1); print $1 }' | tr '\n' ' ')" = "s22 s23 s24 " ] || st=1
run "$GRTRACE" recorder show --dir "$SD"
grep -q "^snapshot: [0-9T]*Z-s24\$" "$TMP/out" || st=1
result "keep, list and show go by the order of saving: with the older snapshots dated 2 h ahead, the one just saved is kept and shown, the first saved removed" $st \
	"$(cat "$TMP/svc.err")" "$(ls -l --time-style=+%s "$SD")"

# The folder removed while the service runs (someone clearing old
# snapshots): the next snapshot creates it again and is saved there.
rm -rf "$SD"
rec_snap 2 timeout
snap_session 31 1031000000
timeout 60 "$GRTRACE" recorder service --dir "$SD" --count 2 > "$TMP/out" 2> "$TMP/err" &
pid=$!
for i in $(seq 300); do
	ls "$SD"/*-s31.grf > /dev/null 2>&1 && break
	sleep 0.1
done
rm -rf "$SD"
snap_session 32 1032000000
wait $pid
st=$?
ls "$SD"/*-s32.grf > /dev/null 2>&1 || st=1
[ "$(stat -c %a "$SD" 2> /dev/null)" = 750 ] || st=1
grep -qx "grtrace: the folder $SD was gone: created again" "$TMP/err" || st=1
grep -q "NOT saved" "$TMP/err" && st=1
result "the snapshot folder removed under the service: created again (0750) by the next snapshot, which is saved" $st \
	"exit $st" "$(cat "$TMP/err")" "$(ls -la "$SD" 2>&1)"

# One service per folder: a second one (started by hand beside the unit's)
# refuses with one line and touches nothing, not the first one's file in
# progress, nor the recorder.
rm -rf "$SD"
rec_snap 2 timeout armed
"$GRTRACE" recorder service --dir "$SD" > "$TMP/out1" 2> "$TMP/err1" &
pid=$!
# Its lock in /proc/locks (taking it to look, flock -n, could make the
# service find it taken).
for i in $(seq 300); do
	awk -v p=$pid '$2 == "FLOCK" && $5 == p { f = 1 } END { exit !f }' /proc/locks && break
	sleep 0.1
done
printf 'half' > "$SD/.tmp-inprogress"
run timeout 10 "$GRTRACE" recorder service --dir "$SD" --count 1
st=0
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: recorder service: another service (pid $pid) saves snapshots to $SD" ] || st=1
[ -e "$SD/.tmp-inprogress" ] || st=1
[ "$(cat "$RDBG/recorder/control")" = armed ] || st=1
kill -TERM $pid
wait $pid || st=1
result "a second service on the same folder: exit 1, one line naming the first one's pid; the first one's file in progress and the recorder untouched" $st \
	"exit $rc" "$(cat "$TMP/err" "$TMP/err1")" "$(ls -A "$SD")"

# SIGTERM in the moment between the service's last look at its stop flag
# and its wait on the armed recorder's info (poll-shim.so widens that
# moment to a second and blocks as the module does): it still stops, and
# disarms, at once.
st=0
if ${CC:-cc} -shared -fPIC -o "$TMP/poll-shim.so" "$TESTS/poll-shim.c" -ldl 2> "$TMP/cc.err"; then
	rm -rf "$SD" "$TMP/in-poll"
	rec_snap 2 timeout armed
	LD_PRELOAD=$TMP/poll-shim.so ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
		POLL_SHIM_MARK=$TMP/in-poll "$GRTRACE" recorder service --dir "$SD" > "$TMP/out" 2> "$TMP/err" &
	pid=$!
	for i in $(seq 400); do
		[ -e "$TMP/in-poll" ] && break
		sleep 0.05
	done
	[ -e "$TMP/in-poll" ] || st=1
	kill -TERM $pid
	for i in $(seq 150); do
		kill -0 $pid 2> /dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2> /dev/null; then
		st=1
		kill -KILL $pid
	fi
	wait $pid || st=1
	[ "$(cat "$TMP/err")" = "grtrace: stopped: flight recorder disarmed" ] || st=1
	[ "$(cat "$RDBG/recorder/control")" = disarm ] || st=1
else
	st=1
fi
result "SIGTERM just before the service blocks on the armed recorder: stopped (within 15 s; the widened moment is 1 s), the recorder disarmed" $st \
	"$(cat "$TMP/cc.err" "$TMP/err" 2> /dev/null)"

# triggers=error: a timeout snapshot is released, not saved; SIGTERM stops
# the service, which disarms the recorder.
rm -rf "$SD"
printf 'dir=%s\ntriggers=error\n' "$SD" > "$CONF"
rec_snap 2 timeout
"$GRTRACE" recorder service --config "$CONF" > "$TMP/out" 2> "$TMP/err" &
pid=$!
for i in $(seq 50); do
	grep -qx release "$RDBG/recorder/control" && break
	sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
st=$rc
# The fake's 3 later triggers: missed with it, said.
[ "$(cat "$TMP/err")" = "grtrace: snapshot of session 7 (cause timeout) not saved: not one of the config's triggers
grtrace: snapshot of session 7 (not saved): 3 later triggers missed with it
grtrace: stopped: flight recorder disarmed" ] || st=1
[ "$(cat "$RDBG/recorder/control")" = disarm ] || st=1
[ -z "$(ls "$SD")" ] || st=1
result "config triggers=error: a timeout released unsaved; SIGTERM disarms and exits 0" $st \
	"exit $rc" "$(cat "$TMP/err")"

# adapters: modprobe'd (a fake modprobe on PATH logs its arguments); a
# failure is one line, the service goes on.  buffer_size and format are
# set when it arms the recorder.
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "$@" >> %s/modprobe.log\n[ "$1" != bogus ]\n' "$TMP" > "$TMP/bin/modprobe"
chmod +x "$TMP/bin/modprobe"
rm -f "$TMP/modprobe.log"
printf 'adapters = grtrace_drm_bridge, bogus\nbuffer_size=1M\nformat=1\ncompress=no\n' > "$CONF"
rec_snap 2 timeout off
# The fake freezes once the service has armed it.
(
	for i in $(seq 250); do
		grep -qx arm "$RDBG/recorder/control" && break
		sleep 0.02
	done
	sed -i 's/^state=off$/state=armed/' "$RDBG/recorder/info"
	python3 "$SNAP" "$RDBG" 1 manual
) &
spid=$!
PATH=$TMP/bin:$PATH run timeout 30 "$GRTRACE" recorder service --config "$CONF" --dir "$SD" --count 1
st=$rc
wait $spid
[ "$(cat "$TMP/modprobe.log")" = "grtrace_drm_bridge
bogus" ] || st=1
[ "$(sed -n 1p "$TMP/err")" = "grtrace: modprobe bogus failed (exit 1): its driver's jobs are not traced" ] || st=1
[ "$(sed -n 2p "$TMP/err")" = "grtrace: flight recorder armed (session 7, 65536 bytes per CPU); snapshots go to $SD" ] || st=1
[ "$(wc -l < "$TMP/err")" -eq 3 ] || st=1
sed -n 3p "$TMP/err" | grep -q "^grtrace: snapshot [0-9T]*Z-s7 saved: cause manual, ring none, hung job ?; " || st=1
[ "$(cat "$RDBG/buffer_size")" = 1048576 ] || st=1
[ "$(cat "$RDBG/config")" = format=1 ] || st=1
cp "$TMP/err" "$TMP/svc.err"
run "$GRTRACE" dump --header -i "$(ls "$SD"/*-s7.grf)"
grep -q "compressed=no" "$TMP/out" || st=1
result "config adapters, buffer_size, format, compress: modprobe'd, set at arm; a failed modprobe is one line" $st \
	"$(cat "$TMP/svc.err")" "$(cat "$TMP/modprobe.log")"

# ---- the recorder gone and back; leftovers of a crash --------------------------------

rm -rf "$SD" "$RDBG"
mkdir -p "$SD" "$RDBG"
printf 'half' > "$SD/.tmp-abc123"
printf 'cause=x\n' > "$SD/20260101T000000Z-s1.txt"
( sleep 1.2; rec_snap 2 timeout ) &
spid=$!
run timeout 30 "$GRTRACE" recorder service --dir "$SD" --count 1
st=$rc
wait $spid
[ "$(sed -n 1p "$TMP/err")" = "grtrace: the flight recorder is not there ($RDBG/recorder/info: No such file or directory; grtrace.ko not loaded?): waiting for it" ] || st=1
[ "$(sed -n 2p "$TMP/err")" = "grtrace: the flight recorder is back (state triggered)" ] || st=1
sed -n 3p "$TMP/err" | grep -q "^grtrace: snapshot [0-9T]*Z-s7 saved: cause timeout" || st=1
[ "$(wc -l < "$TMP/err")" -eq 3 ] || st=1
[ "$(ls -A "$SD" | sed 's/.*-//' | tr '\n' ' ')" = "s7.grf s7.txt " ] || st=1
result "recorder service: waits for the recorder to come back; a crash's temporary file and orphan summary removed" $st \
	"exit $rc" "$(cat "$TMP/err")" "$(ls -A "$SD")"

# ---- the disk full ----------------------------------------------------------------------

FULL=$TMP/full
mkdir -p "$FULL"
if mount -t tmpfs -o size=4k tmpfs "$FULL" 2> /dev/null; then
	# Full: a file takes its one page.
	head -c 4096 /dev/zero > "$FULL/fill" 2> /dev/null
	rec_snap 2 timeout
	"$GRTRACE" recorder service --dir "$FULL" --count 1 > "$TMP/out" 2> "$TMP/err" &
	spid=$!
	for i in $(seq 50); do
		grep -qx release "$RDBG/recorder/control" && break
		sleep 0.1
	done
	kill -TERM $spid
	wait $spid
	st=$?
	[ "$(sed -n 2p "$TMP/err")" = "grtrace: snapshot of session 7 (not saved): 3 later triggers missed with it" ] || st=1
	[ "$(sed -n 3p "$TMP/err")" = "grtrace: stopped: flight recorder disarmed" ] || st=1
	[ "$(sed -n 1p "$TMP/err")" = "grtrace: snapshot of session 7 (cause timeout) NOT saved to $FULL: No space left on device; nothing of it is left there, the recorder is armed again" ] || st=1
	[ "$(ls -A "$FULL")" = fill ] || st=1
	umount "$FULL"
	result "recorder service on a full disk: one line (and one for the triggers it missed), no file left behind, released (re-armed)" $st \
		"$(cat "$TMP/err")"
else
	ok "recorder service on a full disk # SKIP cannot mount a tmpfs here (not root?): tested in the VM by recorder_service_test.sh"
fi

# ---- bad arguments and config lines: exit 2, one line, nothing done ----------------------

rm -rf "$SD"
rec_snap 2 timeout armed
for c in "recorder service --count 0|invalid count '0'" \
	 "recorder service --count x|invalid count 'x'" \
	 "recorder service --config $TMP/nosuch.conf|cannot read config $TMP/nosuch.conf: No such file or directory" \
	 "recorder list --count 1|unknown option '--count'" \
	 "recorder list extra|unexpected argument 'extra'" \
	 "recorder show a b|unexpected argument 'b'" \
	 "recorder service --bogus|unknown option '--bogus'" \
	 "recorder service --dir|option '--dir' needs an argument" \
	 "conf:keep=0|$CONF:1: keep: invalid count '0'" \
	 "conf:keep=-1|$CONF:1: keep: invalid count '-1'" \
	 "conf:max_size=1T|$CONF:1: max_size: invalid size '1T'" \
	 "conf:buffer_size=1000|$CONF:1: buffer_size: invalid size '1000'" \
	 "conf:format=3|$CONF:1: format: invalid format '3'" \
	 "conf:triggers=timeout,hang|$CONF:1: triggers: invalid list 'timeout,hang'" \
	 "conf:adapters=ok,../evil|$CONF:1: adapters: invalid module name '../evil'" \
	 "conf:compress=maybe|$CONF:1: compress: 'maybe': yes or no" \
	 "conf:dir=relative/x|$CONF:1: dir: not an absolute path: 'relative/x'" \
	 "conf:bufer_size=1M|$CONF:1: unknown key 'bufer_size'" \
	 "conf:just words|$CONF:1: not key=value: 'just words'"; do
	args=${c%%|*}
	want=${c#*|}
	case $args in
	conf:*)
		printf '%s\n' "${args#conf:}" > "$CONF"
		args="recorder service --config $CONF --dir $SD"
		;;
	esac
	# shellcheck disable=SC2086 # the words of the command
	run timeout 10 "$GRTRACE" $args
	st=0
	[ $rc -eq 2 ] || st=1
	grep -qF -e "$want" "$TMP/err" || st=1
	[ "$(grep -c '^grtrace: ' "$TMP/err")" -eq 1 ] || st=1
	[ "$(cat "$RDBG/recorder/control")" = armed ] || st=1
	[ -e "$SD" ] && st=1
	result "grtrace $(printf '%s' "$args" | sed "s|$TMP|TMP|g") ($(printf '%s' "$want" | sed "s|$TMP|TMP|g" | cut -c1-40)): usage error, nothing done" $st \
		"exit $rc" "$(cat "$TMP/err")"
done

run "$GRTRACE" recorder list --dir "$TMP/nosuch"
st=0
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: recorder list: cannot read $TMP/nosuch: No such file or directory" ] || st=1
mkdir -p "$TMP/empty"
run "$GRTRACE" recorder list --dir "$TMP/empty"
[ $rc -eq 0 ] || st=1
[ "$(cat "$TMP/out")" = "no snapshots in $TMP/empty" ] || st=1
run "$GRTRACE" recorder show --dir "$TMP/empty"
[ $rc -eq 1 ] || st=1
[ "$(cat "$TMP/err")" = "grtrace: recorder show: no snapshots in $TMP/empty" ] || st=1
result "recorder list/show of a missing or empty folder: one line" $st \
	"$(cat "$TMP/out" "$TMP/err")"

# ---- the systemd unit, as make install installs it -----------------------------------

# Installed under a prefix of its own (the unit names the binary it
# installed): the unit and the config, nothing enabling it; the unit has
# nothing systemd-analyze verify complains of; the shipped config (all
# defaults) is read by the service.
INST=$TMP/inst
rm -rf "$INST"
make -s -C "$TESTS/.." install DESTDIR= prefix="$INST/usr" sysconfdir="$INST/etc" \
	systemdunitdir="$INST/lib/systemd/system" > "$TMP/inst.log" 2>&1
st=$?
UNIT=$INST/lib/systemd/system/grtrace-recorder.service
grep -qx "ExecStart=$INST/usr/bin/grtrace recorder service --config $INST/etc/grtrace/recorder.conf" "$UNIT" || st=1
[ -e "$INST/etc/systemd" ] && st=1
[ "$(stat -c %a "$UNIT")" = 644 ] || st=1
result "make install: grtrace-recorder.service (naming the installed grtrace and config) and recorder.conf, nothing enabled" $st \
	"$(tail -5 "$TMP/inst.log")" "$(find "$INST" -path '*systemd*' -o -name recorder.conf)"
if command -v systemd-analyze > /dev/null 2>&1; then
	systemd-analyze verify --man=no "$UNIT" > "$TMP/verify" 2>&1
	st=$?
	[ -s "$TMP/verify" ] && st=1
	# The check can fail: a unit with a bad line is reported.
	sed 's/^Type=simple/Type=bogus/' "$UNIT" > "$TMP/grtrace-recorder.service"
	systemd-analyze verify --man=no "$TMP/grtrace-recorder.service" > "$TMP/verify.bad" 2>&1
	grep -q "Failed to parse service type" "$TMP/verify.bad" || st=1
	result "systemd-analyze verify: nothing to say of grtrace-recorder.service (and a bad line is caught)" $st \
		"$(cat "$TMP/verify" "$TMP/verify.bad")"
else
	not_ok "systemd-analyze verify of grtrace-recorder.service" "no systemd-analyze: apt-get install systemd (setup.sh installs it)"
fi
# A config the service refuses (exit 2) and kernel lockdown (exit 3) stay
# so until someone acts: the unit does not restart on either (it would
# every 5 s, for ever, a journal line each time).
printf 'keep=0\n' > "$CONF"
run timeout 10 "$GRTRACE" recorder service --config "$CONF" --dir "$SD"
prevent=" $(sed -n 's/^RestartPreventExitStatus=//p' "$UNIT") "
st=0
[ $rc -eq 2 ] || st=1
case $prevent in *" $rc "*) ;; *) st=1 ;; esac
case $prevent in *" 3 "*) ;; *) st=1 ;; esac
result "grtrace-recorder.service: no restart after a refused config (exit $rc) or lockdown (exit 3)" $st \
	"RestartPreventExitStatus:$prevent"
rm -rf "$SD"
rec_snap 2 timeout
run timeout 30 "$GRTRACE" recorder service --config "$INST/etc/grtrace/recorder.conf" --dir "$SD" --count 1
st=$rc
[ "$(ls "$SD" | grep -c '\.grf$')" -eq 1 ] || st=1
result "the shipped recorder.conf is read (its defaults): a snapshot saved" $st \
	"exit $rc" "$(cat "$TMP/err")"
rm -rf "$INST"

export GRTRACE_DEBUGFS="$FAKE"
unset GRTRACE_RECORDER_CONF
