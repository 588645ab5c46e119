#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf_mon_test.sh - grtrace_perf_mon.ko and /proc/grtrace_stats, on the
# virtual GPU and the emit file:
#  - the file appears with the module, root-only, and goes with it; a bad
#    window_ms fails the load;
#  - a job running through the windows: its ring 100 % utilised;
#  - the mean latency (Little's law) against the aggregator's mean t_total
#    of the same jobs, with no session;
#  - drop%: keep 1 event in 4 (sample_every=4) in a session: 75.00 %;
#  - the event path's cost shown with measure_latency=1, said to be off
#    without;
#  - loaded and unloaded 10 times under traffic in a session: every event
#    written or counted dropped.
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
PKO=$(ko grtrace_perf_mon)
AKO=$(ko grtrace_aggregator)
P=/proc/grtrace_stats

ring_id() { awk -v n="vgpu0-$1" '$NF == n { print $1 }' "$D/rings"; }
# pm SCOPE RING COLUMN: a figure of /proc/grtrace_stats (3 util%, 4 drop%,
# 5 avg_lat_us, 6 events/s, 7 jobs, 8 events).
pm() { awk -v s="$1" -v r="$2" -v c="$3" '$1 == s && $2 == r { print $c }' "$P"; }

echo "TAP version 13"
echo "1..8"
load_stack timeout_ms=20000

# 1
[ ! -e "$P" ] && ! insmod "$PKO" window_ms=99 2>/dev/null && ! insmod "$PKO" window_ms=60001 2>/dev/null &&
	[ ! -e "$P" ] && insmod "$PKO" window_ms=200 && [ "$(stat -c %a "$P")" = 400 ] &&
	grep -q '^perf_mon ' "$D/hooks" && rmmod grtrace_perf_mon && [ ! -e "$P" ] &&
	! grep -q '^perf_mon ' "$D/hooks"
ok $? "/proc/grtrace_stats exists, root-only, only while the module is loaded; window_ms 99 and 60001 refuse the load"

# 2: one long job through 200 ms windows, still running when the file
# is read 1 s after the submission: 2 s, SLOW times longer on a debug
# kernel (there that second once ended 3.6 s after the submission).
job_s=$((2 * SLOW))
insmod "$PKO" window_ms=200 && vgpu_submit "gfx 0 1 $((job_s * 1000000))\n" &&
	sleep 1 && cp "$P" "$TMP/p1"
rc=$?
sed 's/^/# /' "$TMP/p1"
gfx=$(ring_id gfx)
P=$TMP/p1
[ $rc = 0 ] && [ -n "$gfx" ] && [ "$(pm last "$gfx" 3)" = 100.00 ] && [ "$(pm last "$gfx" 7)" = 0 ]
ok $? "a $job_s s job keeps its ring 100.00 % utilised through a 200 ms window, no job done yet"
P=/proc/grtrace_stats
vgpu_idle
rmmod grtrace_perf_mon

# 3: Little's law against the aggregator's t_total, no session.
insmod "$PKO" && insmod "$AKO" && echo 1 > "$D/aggregator_enable" &&
	vgpu_submit "copy 0 30 3000\ncompute 1 10 5000\n" && vgpu_idle && sleep 0.2
rc=$?
copy=$(ring_id copy)
sed 's/^/# /' "$P"
agg=$(awk -v r="ring=$copy" '$1 == "scope=total" && $2 == r {
	for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	printf "%.3f", v["lat_sum_ns"] / v["lat_n"] / 1000 }' "$D/aggregator_stats_raw")
got=$(pm total "$copy" 5)
echo "# copy: perf_mon avg_lat_us $got, aggregator mean t_total $agg us"
[ $rc = 0 ] && [ "$(pm total "$copy" 7)" = 30 ] &&
	awk -v a="$agg" -v g="$got" 'BEGIN { d = a - g; if (d < 0) d = -d; exit !(a > 0 && d <= a / 1000) }'
ok $? "no session: 30 copy jobs; mean latency by Little's law within 0.1 % of the aggregator's mean t_total"
rmmod grtrace_aggregator

# 4: drop% in a session, emitted from one CPU on ring 40.
echo "sample_every=4" > "$D/config" && echo start > "$D/control" &&
	taskset -c 0 bash -c "for j in \$(seq 25); do printf 'submit 9 1 40 %d\ncommit 9 1 40 %d\nend 9 1 40 %d\ncomplete 9 1 40 %d\n' \$j \$j \$j \$j > $D/emit || exit 1; done" &&
	echo stop > "$D/control" && echo "sample_every=0" > "$D/config"
rc=$?
echo "# ring 40: $(grep -E '^total +40 ' "$P")"
[ $rc = 0 ] && [ "$(pm total 40 4)" = 75.00 ] && [ "$(pm total 40 8)" = 100 ]
ok $? "a session keeping 1 event in 4: drop% 75.00 of ring 40's 100 events"

# 5-6: the event path's cost.
grep -q '^event_path: not measured (set measure_latency=1' "$P"
ok $? "measure_latency=0: the event path's cost is said to be not measured"
echo "measure_latency=1" > "$D/config" && echo start > "$D/control" &&
	vgpu_submit "gfx 0 50 100\n" && vgpu_idle && echo stop > "$D/control" &&
	echo "measure_latency=0" > "$D/config"
rc=$?
line=$(grep '^event_path:' "$P")
echo "# $line"
[ $rc = 0 ] && echo "$line" | grep -Eq '^event_path: [1-9][0-9]* events measured, cost p50 <= [0-9]+ ns, p99 <= [0-9]+ ns$'
ok $? "measure_latency=1: the event path's cost per event, p50 and p99"

# 7: load and unload under traffic in a session.
echo start > "$D/control"
traffic_start
rc=0
for _ in $(seq 10); do
	if ! grep -q '^grtrace_perf_mon ' /proc/modules; then insmod "$PKO" window_ms=100 || { rc=1; break; }; fi
	if ! { sleep 0.2 && cat "$P" > /dev/null && rmmod grtrace_perf_mon; }; then rc=1; break; fi
done
traffic_stop || rc=1
echo stop > "$D/control"
echo "# emitted $(stat_of emitted) written $(stat_of written) dropped_total $(stat_of dropped_total)"
[ $rc = 0 ] && exact && [ ! -e "$P" ]
ok $? "10 loads and unloads under traffic in a session: emitted = written + dropped; the file gone"

module_suite_end
