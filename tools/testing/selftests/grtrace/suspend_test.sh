#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# suspend_test.sh - real suspend and resume while "grtrace recorder
# service" keeps the flight recorder armed, the virtual GPU on the real
# drm_sched (gpu-sched.ko) loaded:
#  - three times s2idle (mem_sleep=s2idle, "mem"): tasks frozen, every
#    device suspended, the CPUs idle in s2idle, woken by a key on the
#    keyboard (a wakeup source); then three times S3 (mem_sleep=deep):
#    devices suspended, CPU 1 taken offline, ACPI S3 (QEMU stops the
#    guest), woken by the host (QEMU's system_wakeup, a power button),
#    CPU 1 back;
#  - after each three: the service runs, the recorder is still armed in
#    the same session, the kernel counted three suspends and no failure,
#    each woken by what should wake it; a job that never signals is saved
#    as a snapshot whose line names it;
#  - a job that never signals submitted just before S3 (its timeout
#    before the freeze, during it or after resume): saved once resumed;
#  - no BUG, WARNING or Oops in the kernel log (and vmtest.sh's verdict).
#
# The guest of the other suites cannot do this: its root and output share
# are 9p over virtio, which has no freeze/restore (resume resets the
# device, its queues are never set up again, and the next 9p access hangs
# for good; pm_test=devices shows it).  So this test boots its own guest,
# a packed one (vmtest.sh -P, -M): no 9p and no virtio device, what the
# test needs copied into the initramfs, its TAP back over a serial port.
# vmtest.sh -K wakes the guest: from S3 with QEMU's system_wakeup once
# QEMU holds it there, from s2idle with a key, as a laptop's keyboard
# would (QEMU leaves s2idle to the guest's devices).  Not with the RTC
# alarm: it is set before the suspend's entry, and one that fires before
# QEMU has the guest in S3 wakes nothing.
#
# Usage: suspend_test.sh --vm KVER OUTDIR   on the host: that guest, with
#                                           this test in it (vmtest.sh's
#                                           exit status and verdict)
#        suspend_test.sh                    in the guest, as root
# TAP output.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"

if [ "${1:-}" = --vm ]; then
	kver=${2:?--vm takes a kernel version and an output directory}
	out=${3:?--vm takes a kernel version and an output directory}
	rm -rf "$TMP"
	p=()
	for f in "$HERE/tap_lib.sh" "$KO" "$(ko grtrace_drm_bridge)" \
		 "$(ko grtrace_vgpu)" "$TOOL" "$(command -v modprobe)" \
		 "$(command -v insmod)" "$(command -v rmmod)" \
		 "$(command -v mountpoint)"; do
		p+=(-P "$f")
	done
	exec "$HERE/vmtest.sh" -k "$kver" -o "$out" -t 600 -K "${p[@]}" \
		-M gpu-sched -- "$HERE/suspend_test.sh"
fi

SD=$TMP/snaps
LOG=$TMP/svc.log

armed() { [ "$(info state)" = armed ]; }
nsnaps() { find "$SD" -maxdepth 1 -name '*.grf' | wc -l; }
has_snaps() { [ "$(nsnaps)" -ge "$1" ]; }
# count PATTERN: lines of the kernel log matching PATTERN.
count() { dmesg | grep -c -- "$1"; }
stat_pm() { cat "/sys/power/suspend_stats/$1"; }

# suspend MODE: one suspend to MODE (s2idle or deep) and back.  S3 is
# woken by vmtest.sh, s2idle by the keys it presses while the last
# "# vmtest: keyboard" line says on.
suspend() {
	local rc t0 tries=0

	echo "$1" >/sys/power/mem_sleep || return 1
	[ "$1" = deep ] || echo "# vmtest: keyboard on"
	t0=$(date +%s)
	while :; do
		echo mem >/sys/power/state
		# shellcheck disable=SC2320 # the write's status: the suspend's
		rc=$?
		# A key can come between the keyboard's arming as a wakeup
		# source and the CPUs' idling: that aborts the suspend (EBUSY),
		# as on a laptop.  Counted, and suspended again.
		[ $rc != 0 ] && [ "$1" = s2idle ] && [ $tries -lt 2 ] &&
			[ "$(stat_pm last_failed_errno)" = -16 ] || break
		tries=$((tries + 1)) ABORTED=$((ABORTED + 1))
		echo "# s2idle: aborted by a wakeup while it was entered (EBUSY), again"
	done
	[ "$1" = deep ] || echo "# vmtest: keyboard off"
	WAKE=$(cat /sys/power/pm_wakeup_irq 2>/dev/null)
	echo "# $1: back after $(($(date +%s) - t0)) s (status $rc), wakeup IRQ ${WAKE:-none}, CPUs online $(cat /sys/devices/system/cpu/online)"
	[ $rc = 0 ] || return 1
	# What woke s2idle: the keyboard's IRQ 1.  S3 is left through the
	# firmware, no IRQ: three() counts its wakeups in the kernel log.
	[ "$1" = deep ] || [ "$WAKE" = 1 ]
}

# three MODE: three suspends to MODE while armed.  Sets WHAT to what
# was seen.
three() {
	local rc=0 s0 ok0 fail0 e0 off0 up0 s3_0

	ABORTED=0
	s0=$(info session) ok0=$(stat_pm success) fail0=$(stat_pm fail)
	e0=$(count "PM: suspend entry ($1)") off0=$(count 'CPU 1 is now offline')
	up0=$(count 'CPU1 is up') s3_0=$(count 'Waking up from system sleep state S3')
	for _ in 1 2 3; do
		suspend "$1" && armed && kill -0 "$SVC" || rc=1
	done
	ok=$(($(stat_pm success) - ok0)) fail=$(($(stat_pm fail) - fail0))
	entries=$(($(count "PM: suspend entry ($1)") - e0))
	offline=$(($(count 'CPU 1 is now offline') - off0))
	up=$(($(count 'CPU1 is up') - up0))
	s3=$(($(count 'Waking up from system sleep state S3') - s3_0))
	WHAT="$ok suspended and resumed, $fail failed ($ABORTED aborted by a key), $entries entries ($1), CPU 1 offline $offline and up $up times, $s3 S3 wakeups; session $(info session) (was $s0)"
	echo "# $WHAT"
	[ $rc = 0 ] && [ "$ok" = 3 ] && [ "$fail" = "$ABORTED" ] &&
		[ "$entries" = $((3 + ABORTED)) ] &&
		[ "$(info session)" = "$s0" ] && kill -0 "$SVC" &&
		[ "$(cat /sys/devices/system/cpu/online)" = 0-1 ]
}

# hang RING CHANNEL [MODE]: one job that never signals (just before a
# suspend to MODE, if given): saved, its line naming the job the virtual
# GPU's log says timed out, the recorder armed again.
hang() {
	local before job

	before=$(nsnaps)
	vgpu_submit "$1 $2 3 50\n$1 $2 1 0 hang\n$1 $2 2 50\n" || return 1
	if [ -n "${3:-}" ]; then
		suspend "$3" || return 1
	fi
	wait_for 30 has_snaps $((before + 1)) && wait_for 10 armed &&
		vgpu_idle || return 1
	job=$(hung_of "$1")
	LINE=$(grep ' saved: ' "$LOG" | tail -1)
	echo "# vgpu's log: $1 job $job timed out; $LINE"
	[ -n "$job" ] && [ "$(nsnaps)" = $((before + 1)) ] &&
		grep -q " saved: cause timeout, ring [0-9]* vgpu0-$1, hung job $job; " <<<"$LINE"
}

echo "TAP version 13"
echo "1..9"
load_stack timeout_ms=400
mkdir -p "$SD" && mount -t tmpfs -o size=16m tmpfs "$SD" || {
	echo "Bail out! cannot mount a tmpfs on $SD"
	exit 1
}
printf 'buffer_size=128K\n' >"$TMP/conf"
"$TOOL" recorder service --config "$TMP/conf" --dir "$SD" >"$LOG" 2>&1 &
SVC=$!
wait_for 10 armed
ok $? "service: the recorder armed (session $(info session))"

echo "# /sys/power/state: $(cat /sys/power/state); mem_sleep: $(cat /sys/power/mem_sleep)"
# The keyboard wakes s2idle (i8042 arms its interrupt for it).
kbd=/sys/bus/serio/devices/serio0/power/wakeup
if grep -qw s2idle /sys/power/mem_sleep && [ -w $kbd ] && echo enabled >$kbd; then
	three s2idle
	ok $? "three s2idle suspends while armed: still armed, same session, the service runs: $WHAT"
else
	ok 1 "s2idle: not offered ($(cat /sys/power/mem_sleep)), or no keyboard to wake it ($kbd)"
fi
hang gfx 0
ok $? "after s2idle a job that never signals on gfx: saved, its line names the hung job"

if grep -qw deep /sys/power/mem_sleep; then
	three deep && [ "$offline" = 3 ] && [ "$up" = 3 ] && [ "$s3" = 3 ]
	ok $? "three S3 suspends (CPU 1 offline and back) while armed: still armed, same session, the service runs: $WHAT"
else
	ok 1 "S3: not offered ($(cat /sys/power/mem_sleep))"
fi
hang copy 2
ok $? "after S3 a job that never signals on copy: saved, its line names the hung job"
# The lid closed on a hung GPU: the timeout may fire while the service is
# frozen, or after resume; either way it is saved once resumed.
hang gfx 0 deep
ok $? "a job that never signals, submitted just before S3: saved once resumed, its line names it"

"$TOOL" recorder list --dir "$SD" >"$TMP/list" 2>&1
sed 's/^/# /' "$TMP/list"
[ "$(wc -l <"$TMP/list")" = 4 ] && sed -n 2p "$TMP/list" | grep -q " timeout  *[0-9]* vgpu0-gfx " &&
	sed -n 3p "$TMP/list" | grep -q " timeout  *[0-9]* vgpu0-copy " &&
	sed -n 4p "$TMP/list" | grep -q " timeout  *[0-9]* vgpu0-gfx "
ok $? "recorder list: the three snapshots, gfx's, copy's, gfx's"

kill -TERM "$SVC" && wait "$SVC" && [ "$(info state)" = off ] &&
	grep -q "stopped: flight recorder disarmed" "$LOG"
ok $? "SIGTERM: the service exits 0, the recorder disarmed"
umount "$SD"
sed 's/^/# log: /' "$LOG"

module_suite_end
