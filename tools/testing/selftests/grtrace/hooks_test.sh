#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hooks_test.sh - the hook chain of the optional modules, driven by
# grtrace_hook_test.ko (two hooks; the second drops every Nth event):
#  - no hook: the hooks file lists none;
#  - the module's own checks of what the chain refuses pass (it loads);
#  - the hooks run in priority order, not registration order;
#  - every event either written or dropped as "hook", counted against the
#    hook that dropped it; the recording holds exactly the others;
#  - unloaded, nothing is dropped any more;
#  - loaded and unloaded 20 times under traffic from both CPUs: the
#    accounting stays exact and the kernel log clean;
#  - with a hook, the events the sampling drops reach it, as the ones it
#    keeps: no drop is decided before the hooks (quick_drops stays 0).
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
HT=$(ko grtrace_hook_test)
HS=/sys/kernel/debug/grtrace_hook_test/stats

# emitn CTX N: N jobs of 5 events on ctx CTX, from this CPU.
emitn() {
	local j

	for j in $(seq "$2"); do
		printf "submit %d 1 0 %d\ncommit %d 1 0 %d\nstart %d 1 0 %d\nend %d 1 0 %d\ncomplete %d 1 0 %d\n" \
			"$1" "$j" "$1" "$j" "$1" "$j" "$1" "$j" "$1" "$j" > "$D/emit" || return 1
	done
}

# hook_line NAME: "prio seen dropped" of a hook in the hooks file.
hook_line() { awk -v n="$1" '$1 == n { print $2, $3, $4 }' "$D/hooks"; }


echo "TAP version 13"
echo "1..8"
rmmod grtrace 2>/dev/null
insmod "$KO" emit_enable=1 || { echo "Bail out! insmod $KO failed"; exit 1; }
[ -e "$HT" ] || { echo "Bail out! no $HT"; exit 1; }

# 1
[ "$(wc -l < "$D/hooks")" = 1 ] && head -n 1 "$D/hooks" | grep -q '^name .* prio .* seen .* dropped$'
ok $? "no hook loaded: the hooks file lists none"

# 2-3
insmod "$HT" drop_every=4
ok $? "grtrace_hook_test loads: the chain refused a hook without a name or a callback (-EINVAL), one registered twice and a taken name (-EBUSY)"
sed 's/^/# /' "$D/hooks"
[ "$(awk 'NR > 1 { print $1 }' "$D/hooks" | tr '\n' ' ')" = "hook_test_first hook_test_second " ]
ok $? "the hooks run in priority order (10, 20), not in their registration order"

# 4: 40 events from one CPU: the second hook drops the 4th, 8th, ... 40th.
record_start "$TMP/h.dat" && taskset -c 0 bash -c "$(declare -f emitn); D=$D; emitn 5 8" &&
	kill -INT "$REC" && wait "$REC"
rc=$?
"$TOOL" dump -i "$TMP/h.dat" > "$TMP/h.txt" || rc=1
events=$(awk '$4 ~ /^(SUBMIT|COMMIT|START|END|COMPLETE)$/' "$TMP/h.txt" | wc -l)
echo "# written $(stat_of written), dropped_hook $(stat_of dropped_hook), recorded $events; $(cat "$HS")"
echo "# first: $(hook_line hook_test_first); second: $(hook_line hook_test_second)"
[ $rc -eq 0 ] && [ "$(stat_of written)" = 30 ] && [ "$(stat_of dropped_hook)" = 10 ] &&
	[ "$events" = 30 ] && exact &&
	grep -qx 'first=40 second=40 dropped=10 written=30 unwritten=10 order_errors=0' "$HS" &&
	[ "$(hook_line hook_test_first)" = "10 40 0" ] &&
	[ "$(hook_line hook_test_second)" = "20 40 10" ]
ok $? "40 events: 30 written and recorded, 10 dropped as \"hook\" and counted against hook_test_second; each observed once; emitted = written + dropped"

# 5
rmmod grtrace_hook_test && [ "$(wc -l < "$D/hooks")" = 1 ] &&
	echo start > "$D/control" && emitn 6 4 && echo stop > "$D/control" &&
	[ "$(stat_of written)" = 50 ] && [ "$(stat_of dropped_hook)" = 10 ] && exact
ok $? "unloaded: out of the hooks file, and the next 20 events all written"

# 6-7: load and unload under traffic from both CPUs.
echo start > "$D/control"
touch "$TMP/run"
for cpu in 0 1; do
	taskset -c $cpu bash -c "$(declare -f emitn); D=$D
		while [ -e $TMP/run ]; do emitn $((7 + cpu)) 5 || exit 1; done" &
done
rc=0
for i in $(seq 20); do
	insmod "$HT" drop_every=$((i % 5 + 2)) && rmmod grtrace_hook_test || { rc=1; break; }
done
rm -f "$TMP/run"
wait
echo stop > "$D/control"
echo "# emitted $(stat_of emitted) written $(stat_of written) dropped_hook $(stat_of dropped_hook) dropped_total $(stat_of dropped_total)"
[ $rc -eq 0 ] && [ "$(stat_of dropped_hook)" -gt 10 ] && exact
ok $? "20 loads and unloads under traffic from both CPUs: every event written or dropped, as emitted = written + dropped"
# 8: 10 events from CPU 0 with sample=50: the second hook drops the 4th
# and the 8th, the sampling every other one of the 8 others.
insmod "$HT" drop_every=4 && printf 'reset_stats\nsample=50\n' >"$D/config" &&
	echo start >"$D/control" &&
	taskset -c 0 bash -c "$(declare -f emitn); D=$D; emitn 9 2" &&
	echo stop >"$D/control"
rc=$?
echo "# $(cat "$HS"); dropped_sampled $(stat_of dropped_sampled), quick_drops $(stat_of quick_drops)"
[ $rc -eq 0 ] && grep -qx 'first=10 second=10 dropped=2 written=4 unwritten=6 order_errors=0' "$HS" &&
	[ "$(stat_of dropped_sampled)" = 4 ] && [ "$(stat_of quick_drops)" = 0 ] && exact
ok $? "with a hook and sample=50: 10 events all seen by both hooks, 2 dropped by the hook, 4 sampled out and observed, none dropped quick"
echo sample=100 >"$D/config"
rmmod grtrace_hook_test

! new_dmesg | grep -E 'BUG|WARNING|Oops|RCU|grtrace_hook_test: refusals'
ok $? "kernel log: no BUG, WARNING, Oops or RCU report"

rmmod grtrace
rm -rf "$TMP"
exit $FAILED
