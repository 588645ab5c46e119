#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guards_test.sh - what grtrace refuses, reached the ways a user reaches
# it: with the flight recorder armed, the debugfs "enable" file and
# "buffer_size" (debugfs and sysfs) would stop its session or replace its
# buffers under it; both are refused (EBUSY), nothing changes, and the
# recorder still freezes a snapshot that reads back.  A buffer size whose
# count overflows when shifted by its K/M/G suffix is refused (EINVAL) in
# every file that takes one, not wrapped into range.
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
S=/sys/kernel/grtrace

echo "TAP version 13"
echo "1..10"
load_stack

# write_err FILE VALUE: write "VALUE\n" to FILE in one write(2); prints
# the errno's name if it is refused (EBUSY, EINVAL), nothing if taken.
write_err() {
	python3 -c '
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    os.write(fd, (sys.argv[2] + "\n").encode())
except OSError as e:
    print(errno.errorcode[e.errno])
' "$1" "$2"
}

echo 256K >"$D/buffer_size"
"$TOOL" recorder arm >/dev/null
ok $? "the recorder arms"
e=$(write_err "$D/enable" 0)
[ "$e" = EBUSY ] && [ "$(cat "$D/enable")" = 1 ] &&
	[ "$(cat "$D/recorder/control")" = armed ]
ok $? "armed: echo 0 > enable is refused ($e), the session and the recorder go on"
e=$(write_err "$D/buffer_size" 1M)
e2=$(write_err "$S/buffer_size" 1M)
[ "$e" = EBUSY ] && [ "$e2" = EBUSY ] &&
	[ "$(cat "$D/buffer_size")" = 262144 ]
ok $? "armed: buffer_size (debugfs: $e; sysfs: $e2) is refused, the size stays 256K"
e=$(write_err "$D/enable" 1)
[ "$e" = EBUSY ]
ok $? "armed: echo 1 > enable is refused too ($e)"
vgpu_submit "gfx 0 20 100\n" && vgpu_idle &&
	"$TOOL" recorder trigger >/dev/null &&
	"$TOOL" recorder wait -o "$TMP/snap.dat" -t 10 >/dev/null 2>"$TMP/snap.err" &&
	"$TOOL" report -i "$TMP/snap.dat" --format json --limit 0 >"$TMP/snap.json" 2>>"$TMP/snap.err"
rc=$?
sed 's/^/# /' "$TMP/snap.err" | head -n 3
jobs=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["jobs"])' "$TMP/snap.json" 2>/dev/null)
[ $rc -eq 0 ] && [ "${jobs:-0}" -ge 20 ]
ok $? "after the refusals a trigger freezes a snapshot that reads back with the 20 jobs ($jobs)"
e=$(write_err "$D/buffer_size" 1M)
[ "$e" = EBUSY ]
ok $? "triggered (a snapshot kept): buffer_size still refused ($e)"
"$TOOL" recorder disarm >/dev/null && echo 1M >"$D/buffer_size" &&
	[ "$(cat "$D/buffer_size")" = 1048576 ]
ok $? "disarmed: buffer_size takes 1M again"

# 17592186044544M = (2^44 + 128) M: shifted by 20 it wraps to 128M.
bad=0
for v in 17592186044544M 18014398509482112K 17179869184G 99999999999999999999 0x100000 1M1 '' 64k; do
	for f in "$D/buffer_size" "$S/buffer_size"; do
		e=$(write_err "$f" "$v")
		case $v in
		64k) [ -z "$e" ] && [ "$(cat "$f")" = 65536 ] || { bad=$((bad + 1)); echo "# $f '$v': $e"; }
			echo 1M >"$f" ;;
		*) [ "$e" = EINVAL ] && [ "$(cat "$f")" = 1048576 ] ||
			{ bad=$((bad + 1)); echo "# $f '$v': '$e', now $(cat "$f")"; } ;;
		esac
	done
done
[ $bad -eq 0 ]
ok $? "buffer sizes that overflow their suffix's shift, or are not decimal, are refused in debugfs and sysfs; 64k is taken ($bad wrong)"
insmod_err=0
unload_all
if insmod "$KO" buffer_size=17592186044544M 2>/dev/null; then
	insmod_err=1
	echo "# insmod took buffer_size=17592186044544M: $(cat "$D/buffer_size")"
	rmmod grtrace
fi
[ $insmod_err -eq 0 ]
ok $? "insmod grtrace buffer_size=17592186044544M is refused"

module_suite_end
