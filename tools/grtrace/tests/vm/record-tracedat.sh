#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record-tracedat.sh - (guest) record a small trace.dat of ioctls with
# trace-cmd, for merge_timeline.py's trace.dat test vector.  Run through
# tools/testing/selftests/grtrace/vmtest.sh; writes into $GRTRACE_OUT.
set -eu
out=${GRTRACE_OUT:?run me through vmtest.sh}
ev=(-e syscalls:sys_enter_ioctl -e syscalls:sys_exit_ioctl)
t=/sys/kernel/tracing
mountpoint -q $t || mount -t tracefs nodev $t
cat $t/events/header_page > "$out/header_page"
cat $t/events/header_event > "$out/header_event"
cat $t/events/syscalls/sys_enter_ioctl/format > "$out/sys_enter_ioctl.format"
cat $t/events/syscalls/sys_exit_ioctl/format > "$out/sys_exit_ioctl.format"
# 40 ioctls of one thread: TCGETS on a pipe (ENOTTY) and FIONREAD.
load='import fcntl, os, struct, termios
r, w = os.pipe()
for i in range(20):
    try:
        fcntl.ioctl(r, termios.TCGETS, bytes(64))
    except OSError:
        pass
    fcntl.ioctl(r, termios.FIONREAD, struct.pack("i", 0))'
for v in 6 7; do
	extra=()
	[ $v = 7 ] && extra=(--compression zstd)
	trace-cmd record -q -C mono --file-version $v "${extra[@]}" "${ev[@]}" \
		-o "$out/ioctl-v$v.dat" python3 -c "$load" > "$out/record-v$v.log" 2>&1
	trace-cmd report -i "$out/ioctl-v$v.dat" > "$out/ioctl-v$v.txt" 2>&1
done
ls -l "$out"
