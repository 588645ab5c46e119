#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the vmtest.sh guest (runs from the initramfs, busybox only).
#
# Loads the virtio/9p modules shipped in the initramfs, mounts the host root
# filesystem (9p tag "hostroot", read-only) on /newroot with writable tmpfs
# where programs expect to write, mounts the host output directory (9p tag
# "vmout", read-write) at the same absolute path, then runs the command script
# the host wrote to OUTDIR/.vmtest/cmd inside a chroot.  We stay PID 1 in the
# initramfs (chroot rather than switch_root) so busybox is still at hand to
# save dmesg, report the exit status and power off after the command.
#
# A packed guest (vmtest.sh -P or -M) has no 9p: its initramfs holds what
# the command needs and stays the root; the command's stdout and stderr go
# to ttyS1 and ttyS2, dmesg at the end to ttyS3, its exit status to the
# console (files on the host).  Its devices may be suspended and resumed.
#
# The output directory comes from the kernel command line: vmtest.out=PATH.
# Keep messages free of "BUG:"/"WARNING:"/... : the host greps the console.

/bin/busybox --install -s /bin
export PATH=/bin

mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys

log() { echo "vmtest-init: $*"; }

# No status file is written on this path: the host reports the missing exit
# code and quotes this line from the console.
fatal() {
	log "FATAL: $*"
	sync
	poweroff -f
	sleep 60
}

# packed: the command run from the initramfs root, its output on serial
# ports.  stty: raw (no CR added), and it returns once all that was
# written has gone out (tcsetattr TCSADRAIN), before the power goes off.
if [ -f /vmtest/cmd ]; then
	mount -t debugfs debugfs /sys/kernel/debug
	mount -t tracefs tracefs /sys/kernel/tracing
	mkdir -p /dev/pts /dev/shm
	mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm
	for t in 1 2 3; do
		stty -F /dev/ttyS$t raw -echo || fatal "no serial port ttyS$t"
	done
	log "running command (packed guest, no 9p)"
	/bin/bash /vmtest/cmd </dev/null >/dev/ttyS1 2>/dev/ttyS2
	rc=$?
	dmesg >/dev/ttyS3
	stty -F /dev/ttyS3 raw -echo
	log "command exited with status $rc"
	stty -F /dev/console -echo
	# A reset, not poweroff: the guest may run without ACPI (acpi=off),
	# and QEMU runs with -no-reboot.
	reboot -f
	sleep 60
fi

while read -r m; do
	insmod "/modules/$m" || fatal "insmod $m failed"
done </modules/order

out='' work=''
read -r cmdline </proc/cmdline
for w in $cmdline; do
	case "$w" in
	vmtest.out=*) out=${w#vmtest.out=} ;;
	vmtest.work=*) work=${w#vmtest.work=} ;;
	esac
done
[ -n "$out" ] || fatal "no vmtest.out= on the kernel command line"

R=/newroot
mount -t 9p -o ro,trans=virtio,version=9p2000.L,cache=loose,msize=512000 \
	hostroot "$R" || fatal "cannot mount the host root over 9p"

# Kernel filesystems, with tracing/debugfs where the tools look for them.
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount -t devtmpfs devtmpfs "$R/dev"
mkdir -p "$R/dev/pts" "$R/dev/shm"
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts "$R/dev/pts"
mount -t tmpfs -o mode=1777 tmpfs "$R/dev/shm"
mount -t debugfs debugfs "$R/sys/kernel/debug"
mount -t tracefs tracefs "$R/sys/kernel/tracing"

# The shared root is read-only: give scratch space where programs write.
# /var/lib stays the host's (read-only) so dpkg/ucf data etc. stay readable.
for d in /tmp /var/tmp /run /root /var/log; do
	mount -t tmpfs -o mode=0755 tmpfs "$R$d" || fatal "tmpfs on $d failed"
done
chmod 1777 "$R/tmp" "$R/var/tmp"
mkdir -p "$R/run/lock" "$R/run/user"

# The runner's working tree, when it lives under one of the tmpfs above.
if [ -n "$work" ]; then
	mkdir -p "$R$work"
	mount -t 9p -o ro,trans=virtio,version=9p2000.L,cache=loose,msize=512000 \
		work "$R$work" || fatal "cannot mount the working tree $work over 9p"
fi

# The output share goes last: it may live under one of the tmpfs above.
# cache=none (the default) so the host sees every write at once.
mkdir -p "$R$out"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 vmout "$R$out" ||
	fatal "cannot mount the output directory $out over 9p"

vm="$R$out/.vmtest"
[ -f "$vm/cmd" ] || fatal "command script $out/.vmtest/cmd is missing"

log "running command"
chroot "$R" /bin/bash "$out/.vmtest/cmd" </dev/null \
	>>"$vm/stdout" 2>>"$vm/stderr"
rc=$?
log "command exited with status $rc"

dmesg >"$R$out/dmesg.txt"
# The status file is written last: its presence means "the guest finished".
echo "$rc" >"$vm/status.tmp" && mv "$vm/status.tmp" "$vm/status"
sync
poweroff -f
sleep 60
