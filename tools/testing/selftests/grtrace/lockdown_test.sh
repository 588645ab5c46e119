#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lockdown_test.sh - the user's workflow on a machine in kernel lockdown
# (integrity mode, as Debian sets it under Secure Boot): the modules are
# loaded first (lockdown then refuses unsigned ones), then lockdown is
# turned on, and:
#  - debugfs refuses grtrace's writable files, its read-only ones (stats,
#    rings, events*) stay readable, and /sys/kernel/grtrace has control,
#    config and buffer_size;
#  - status, config (show and change), start, a record of a session
#    someone else started, stop, a record of its own session (with -b),
#    and report work as without lockdown, on jobs submitted through the
#    virtual GPU's render node (its debugfs submit file is refused too);
#  - where no sysfs twin is found, the CLI says in one line that lockdown
#    refused it and what to do;
#  - the flight recorder: armed and triggered through its sysfs twin, its
#    info and snapshot<cpu> read from debugfs and checked, released and
#    disarmed (recorder_test.sh has the rest).
#  - raised to confidentiality with a session running and a snapshot
#    open: no events, snapshot or recorder info file can be read (nor
#    one opened before), record, recorder status, start and recorder arm
#    fail with one line naming lockdown, the recorder service says so
#    once and exits, stop works, nothing crashes.
# Lockdown cannot be turned off again: this is the guest's last suite.
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
L=/sys/kernel/security/lockdown
S=/sys/kernel/grtrace
CLIENT=$HERE/vgpu_client
[ -x "$CLIENT" ] || { cc -O2 -o "$TMP/vgpu_client" "$HERE/vgpu_client.c" &&
	CLIENT=$TMP/vgpu_client; }

# jobs FILE: the jobs of a report in JSON.
jobs() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["jobs"])' "$1"; }
# submit N: N jobs on gfx through the render node, from this process.
submit() { "$CLIENT" "$NODE" "gfx 0 $1 100"$'\n' >/dev/null; }

echo "TAP version 13"
echo "1..20"
mountpoint -q /sys/kernel/security || mount -t securityfs none /sys/kernel/security
# A kernel built without the lockdown LSM (the debug-rt kernel's config)
# cannot be locked down: every case skipped, saying so; the stock, 7.x and
# 7.x-rt kernels of the suite run them.
if [ ! -e "$L" ]; then
	for i in $(seq 20); do
		echo "ok $i - lockdown case $i # SKIP $(uname -r) has no lockdown LSM (CONFIG_SECURITY_LOCKDOWN_LSM is not set)"
	done
	rm -rf "$TMP"
	exit 0
fi
load_stack render_node=1
NODE=
for n in /sys/devices/vgpu0/drm/renderD*; do NODE=/dev/dri/${n##*/}; done

# 1
echo "# lockdown before: $(cat "$L" 2>&1)"
echo integrity >"$L" && grep -q '\[integrity\]' "$L" &&
	! cat "$D/control" >/dev/null 2>&1 && ! echo stop 2>/dev/null >"$D/control" &&
	cat "$D/stats" "$D/rings" >/dev/null && [ "$(stat -c %a $S/control)" = 600 ] &&
	[ "$(cat $S/control)" = stopped ]
ok $? "lockdown integrity: debugfs refuses control, reads stats and rings; $S/control there, root-only"

# 2: status and config, through sysfs.
"$TOOL" status >"$TMP/status" 2>&1 && "$TOOL" config format=2 &&
	"$TOOL" config >"$TMP/config" && grep -qx 'format=2' "$TMP/config"
rc=$?
sed 's/^/# /' "$TMP/status" | head -5
ok $rc "grtrace status, config show and config change work"

# 3: a session someone else started, joined by record.
"$TOOL" start && record_join "$TMP/j.dat" && submit 5 && vgpu_idle &&
	kill -INT "$REC" && wait "$REC" && "$TOOL" stop &&
	"$TOOL" report -i "$TMP/j.dat" --format json >"$TMP/j.json"
rc=$?
sed 's/^/# /' "$TMP/j.dat.err"
[ $rc = 0 ] && [ "$(jobs "$TMP/j.json")" = 5 ] && [ "$(cat $S/control)" = stopped ]
ok $? "start, record joined, stop, report: the 5 jobs"

# 4: record's own session, with its own buffer size.
"$TOOL" record -o "$TMP/o.dat" -b 1M -- "$CLIENT" -w 300 "$NODE" "gfx 0 7 100"$'\n' \
	>/dev/null 2>"$TMP/o.err" && vgpu_idle &&
	"$TOOL" report -i "$TMP/o.dat" --format json >"$TMP/o.json" &&
	"$TOOL" report -i "$TMP/o.dat" >"$TMP/o.txt"
rc=$?
sed 's/^/# /' "$TMP/o.err"
[ $rc = 0 ] && [ "$(jobs "$TMP/o.json")" = 7 ] &&
	grep -q "buffer_size .* -> 1048576 bytes per CPU" "$TMP/o.err" &&
	[ "$(cat $S/buffer_size)" != 1048576 ] && grep -q '^lost: ' "$TMP/o.txt"
ok $? "record -b 1M -- COMMAND: its own session, the 7 jobs reported, the buffer size restored"

# 5: bad input through sysfs: refused, nothing changed.
! echo bogus=1 2>/dev/null >"$S/config" && ! echo restart 2>/dev/null >"$S/control" &&
	[ "$(cat $S/control)" = stopped ] && "$TOOL" config >"$TMP/config2" &&
	cmp -s "$TMP/config" "$TMP/config2"
ok $? "an unknown key and an unknown command are refused (EINVAL), nothing changed"

# 6: no sysfs twin to fall back on: one line naming lockdown.
GRTRACE_SYSFS=/nonexistent "$TOOL" start 2>"$TMP/e.err"
rc=$?
sed 's/^/# /' "$TMP/e.err"
[ $rc != 0 ] && [ "$(wc -l <"$TMP/e.err")" = 1 ] &&
	grep -q 'refused by kernel lockdown (integrity)' "$TMP/e.err"
ok $? "without the sysfs files, the CLI says in one line that lockdown refused it"

# 7-11: the flight recorder through /sys/kernel/grtrace/recorder.
R=$D/recorder
! cat "$R/control" >/dev/null 2>&1 && cat "$R/info" >/dev/null &&
	[ "$(stat -c %a $S/recorder)" = 600 ] && [ "$(cat $S/recorder)" = off ]
ok $? "recorder: debugfs refuses its control, reads info; $S/recorder there, root-only"
echo arm >$S/recorder && [ "$(cat $S/recorder)" = armed ] && submit 50 && vgpu_idle &&
	echo trigger >$S/recorder && [ "$(cat $S/recorder)" = triggered ]
ok $? "recorder: arm and trigger through $S/recorder"
# Held open past the raise to confidentiality below (14).
exec 9<"$R/snapshot0"
mkdir "$TMP/rec" && cat "$R/info" >"$TMP/rec/info"
rc=$?
for f in "$R"/snapshot*; do cat "$f" >"$TMP/rec/${f##*/}" || rc=1; done
[ $rc = 0 ] && python3 "$HERE/recorder_check.py" "$TMP/rec" --cause manual >"$TMP/rec.out"
rc=$?
sed -n 's/^FAIL/# FAIL/p' "$TMP/rec.out"
ok $rc "recorder: info and snapshot<cpu> read under lockdown, the snapshot checks hold"
echo release >$S/recorder && [ "$(cat $S/recorder)" = armed ] &&
	echo disarm >$S/recorder && [ "$(cat $S/recorder)" = off ]
ok $? "recorder: release and disarm through sysfs"
! echo bogus 2>/dev/null >$S/recorder && [ "$(cat $S/recorder)" = off ]
ok $? "recorder: an unknown word through sysfs is refused (EINVAL)"

# 12-20: lockdown raised to confidentiality at run time, with a session
# running: the kernel then refuses tracefs, perf and BPF reads of kernel
# data, and grtrace refuses its stream the same way.
# A reader that opened events0 before the raise (a record left running)
# is refused from then on too: the check is on every read, not the open.
# info is read in part first: the rest, left in the open file's buffer,
# used to come back after the raise.
"$TOOL" start && exec 8<"$D/events0" 7<"$R/info" &&
	[ "$(dd bs=16 count=1 status=none <&7 | wc -c)" = 16 ] &&
	echo confidentiality >"$L" && grep -q '\[confidentiality\]' "$L"
ok $? "a session runs, events0 open, 16 bytes of info read; lockdown raised to confidentiality"
rc=0
for f in "$D"/events[0-9]*; do
	e=$(cat "$f" 2>&1 >/dev/null) && rc=1
	case $e in *"Operation not permitted"*) ;; *) rc=1; echo "# $f: $e" ;; esac
done
e=$(cat <&8 2>&1 >/dev/null) && rc=1
case $e in *"Operation not permitted"*) ;; *) rc=1; echo "# events0 opened before: $e" ;; esac
exec 8<&-
ok $rc "no events file can be read (EPERM), nor events0 opened before the raise"
# 14: the recorder's snapshots alike: snapshot0, opened while triggered
# (its copy taken then) and held past the release, is refused on read;
# no snapshot file opens, EPERM before the ENODATA of no snapshot.
rc=0
e=$(cat <&9 2>&1 >/dev/null) && rc=1
case $e in *"Operation not permitted"*) ;; *) rc=1; echo "# snapshot0 opened before: $e" ;; esac
exec 9<&-
for f in "$R"/snapshot*; do
	e=$(cat "$f" 2>&1 >/dev/null) && rc=1
	case $e in *"Operation not permitted"*) ;; *) rc=1; echo "# $f: $e" ;; esac
done
ok $rc "no snapshot can be read (EPERM), nor snapshot0 opened before the raise"
# 15: the recorder's info alike: it names the trigger's job, ring and
# times (the TRIGGER record of the snapshot refused above); info opened
# and read in part before the raise is refused on read.  The state word
# stays in sysfs.
rc=0
e=$(cat <&7 2>&1 >/dev/null) && rc=1
case $e in *"Operation not permitted"*) ;; *) rc=1; echo "# info opened before: $e" ;; esac
exec 7<&-
e=$(cat "$R/info" 2>&1 >/dev/null) && rc=1
case $e in *"Operation not permitted"*) ;; *) rc=1; echo "# info: $e" ;; esac
[ $rc = 0 ] && [ "$(cat $S/recorder)" = off ]
ok $? "the recorder's info cannot be read (EPERM), nor info opened before the raise; $S/recorder still says off"
# 16: the CLI says so in one line.
"$TOOL" recorder status >/dev/null 2>"$TMP/rs.err"
rc=$?
sed 's/^/# recorder status: /' "$TMP/rs.err"
[ $rc != 0 ] && [ "$(wc -l <"$TMP/rs.err")" = 1 ] &&
	grep -q 'refused by kernel lockdown (confidentiality)' "$TMP/rs.err"
ok $? "grtrace recorder status fails with one line that names lockdown"
# 17: the service, left running for days, meets a raise it cannot undo
# before the next boot: one line saying so, then it exits with status 3
# (its unit's RestartPreventExitStatus: not restarted every 5 s), no
# snapshot file, nothing armed.
printf 'buffer_size=128K\n' >"$TMP/svc.conf"
timeout 20 "$TOOL" recorder service --config "$TMP/svc.conf" --dir "$TMP/svc" \
	2>"$TMP/svc.log"
rc=$?
sed 's/^/# service: /' "$TMP/svc.log"
[ $rc = 3 ] && [ "$(wc -l <"$TMP/svc.log")" = 1 ] &&
	grep -q 'lockdown (confidentiality)' "$TMP/svc.log" &&
	[ -z "$(ls -A "$TMP/svc")" ] && [ "$(cat $S/recorder)" = off ]
ok $? "recorder service: one line naming lockdown, exit 3, no file, nothing armed (status $rc)"
"$TOOL" record -o "$TMP/c.dat" -d 1 2>"$TMP/c.err"
rc=$?
sed 's/^/# record: /' "$TMP/c.err"
[ $rc != 0 ] && [ "$(wc -l <"$TMP/c.err")" = 1 ] &&
	grep -q 'refused by kernel lockdown (confidentiality)' "$TMP/c.err"
ok $? "grtrace record fails with one line that names lockdown"
"$TOOL" stop && "$TOOL" start 2>"$TMP/s.err"
rc=$?
"$TOOL" recorder arm 2>"$TMP/a.err"
rc2=$?
sed 's/^/# /' "$TMP/s.err" "$TMP/a.err"
[ $rc != 0 ] && [ $rc2 != 0 ] && [ "$(cat $S/control)" = stopped ] &&
	[ "$(cat $S/recorder)" = off ] &&
	[ "$(wc -l <"$TMP/s.err")" = 1 ] && grep -q 'lockdown (confidentiality)' "$TMP/s.err" &&
	grep -q 'lockdown (confidentiality)' "$TMP/a.err"
ok $? "stop works; start and recorder arm fail with a line naming lockdown, nothing started"

module_suite_end
