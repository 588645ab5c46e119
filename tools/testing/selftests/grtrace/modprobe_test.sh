#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modprobe_test.sh - grtrace installed as modules and loaded the way a
# user does, with modprobe, from a module tree of its own (modprobe -d)
# that holds the core and the four optional modules:
#  - "modprobe grtrace" loads the core and, through its soft dependency,
#    the aggregator, the sampling and the filter, not perf_mon;
#  - those three are inert until enabled: their files are there, no hook
#    is registered, and every event of a session is written;
#  - the reference quick start's next step, enabling the aggregator, works
#    right after the modprobe;
#  - "modprobe -r" of the three removes them and the core, cleanly;
#  - "modprobe -r grtrace", a session running, removes all of them;
#  - with only the core installed, "modprobe grtrace" loads it alone;
#  - after a module that takes 5 KiB of the 8 KiB static per-CPU reserve
#    all modules share (grtrace_percpu_test.ko), "modprobe grtrace" still
#    loads the core and its three optional modules (they allocate their
#    per-CPU data; with 5.7 KiB of it static they failed with ENOMEM).
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
KVER=$(uname -r)
OPT="grtrace_aggregator grtrace_sampling grtrace_filter grtrace_perf_mon"

# tree DIR MODULE...: a module tree at DIR for this kernel holding the
# modules named, with its depmod indexes.
tree() {
	local dir=$1 m

	shift
	mkdir -p "$dir/lib/modules/$KVER/extra" || return 1
	for m in "$@"; do
		cp "$(ko "$m")" "$dir/lib/modules/$KVER/extra/" || return 1
	done
	depmod -b "$dir" "$KVER" 2>/dev/null
}

# loaded: the grtrace modules loaded, sorted, on one line.
loaded() { awk '$1 ~ /^grtrace/ { print $1 }' /proc/modules | sort | tr '\n' ' '; }

echo "TAP version 13"
echo "1..8"
unload_all
if ! command -v modprobe >/dev/null || ! command -v depmod >/dev/null; then
	echo "Bail out! no modprobe or depmod (kmod)"
	exit 1
fi
# shellcheck disable=SC2086 # OPT splits into module names
tree "$TMP/all" grtrace $OPT || { echo "Bail out! cannot build a module tree"; exit 1; }
tree "$TMP/core" grtrace || { echo "Bail out! cannot build a module tree"; exit 1; }

# 1
modprobe -d "$TMP/all" grtrace emit_enable=1
rc=$?
echo "# loaded: $(loaded)"
[ $rc = 0 ] && [ "$(loaded)" = "grtrace grtrace_aggregator grtrace_filter grtrace_sampling " ]
ok $? "modprobe grtrace: the core, the aggregator, the sampling and the filter loaded; perf_mon not"

# 2
[ -e "$D/aggregator_enable" ] && [ -e "$D/sampling_mode" ] && [ -e "$D/filter_enabled" ] &&
	[ "$(wc -l <"$D/hooks")" = 1 ] && [ "$(cat "$D/aggregator_enable")" = 0 ] &&
	[ "$(cat "$D/filter_enabled")" = 0 ]
ok $? "their files are there, all disabled, and no hook is registered"

# 3
echo reset_stats >"$D/config" && echo start >"$D/control" &&
	for s in $(seq 20); do echo "submit 3 1 0 $s"; done >"$D/emit" &&
	echo stop >"$D/control"
rc=$?
echo "# emitted $(stat_of emitted) written $(stat_of written) dropped_total $(stat_of dropped_total)"
[ $rc = 0 ] && [ "$(stat_of written)" = 20 ] && [ "$(stat_of dropped_total)" = 0 ]
ok $? "a session: all 20 events written, none dropped"

# 4
echo 1 >"$D/aggregator_enable" && grep -qx 1 "$D/aggregator_enable" &&
	awk 'NR > 1 { print $1 }' "$D/hooks" | grep -qx aggregator &&
	echo 0 >"$D/aggregator_enable"
ok $? "the aggregator enables right after the modprobe (its hook registered), and disables"

# 5
modprobe -r -d "$TMP/all" grtrace_aggregator grtrace_sampling grtrace_filter 2>"$TMP/r.err"
rc=$?
sed 's/^/# /' "$TMP/r.err"
echo "# modprobe -r: $rc; loaded: $(loaded)"
[ $rc = 0 ] && [ ! -s "$TMP/r.err" ] && [ -z "$(loaded)" ] && [ ! -e "$D" ]
ok $? "modprobe -r of the three: they are removed, and the core with the last, cleanly"

# 6.  kmod 30 (Debian 12) removes the soft dependencies first, each with
# the modules it depends on, so the core goes with the last of them; it
# then tries the core again and says it could not remove it.  What is
# loaded afterwards is the test; the message is kmod's, shown here.
modprobe -d "$TMP/all" grtrace && [ "$(loaded)" = "grtrace grtrace_aggregator grtrace_filter grtrace_sampling " ] &&
	echo start >"$D/control"
rc=$?
modprobe -r -d "$TMP/all" grtrace 2>"$TMP/r.err"
echo "# modprobe -r grtrace: exit $?, kmod says: $(tr '\n' ' ' <"$TMP/r.err")"
echo "# loaded: $(loaded)"
[ $rc = 0 ] && [ -z "$(loaded)" ] && [ ! -e "$D" ]
ok $? "modprobe -r grtrace with a session running: the core and all it brought are removed"

# 7
modprobe -d "$TMP/core" grtrace
rc=$?
echo "# loaded: $(loaded)"
[ $rc = 0 ] && [ "$(loaded)" = "grtrace " ] && modprobe -r -d "$TMP/core" grtrace &&
	[ -z "$(loaded)" ]
ok $? "only the core installed (the optional modules not built): modprobe grtrace loads it alone"

# 8
insmod "$(ko grtrace_percpu_test)" && modprobe -d "$TMP/all" grtrace 2>"$TMP/p.err"
rc=$?
sed 's/^/# /' "$TMP/p.err"
echo "# loaded: $(loaded)"
[ $rc = 0 ] &&
	[ "$(loaded)" = "grtrace grtrace_aggregator grtrace_filter grtrace_percpu_test grtrace_sampling " ]
ok $? "5 KiB of the static per-CPU reserve taken by another module: modprobe grtrace loads the core and the three"
modprobe -r -d "$TMP/all" grtrace_aggregator grtrace_sampling grtrace_filter 2>/dev/null
rmmod grtrace_percpu_test 2>/dev/null

unload_all
rm -rf "$TMP"
exit $FAILED
