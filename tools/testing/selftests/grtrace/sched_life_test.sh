#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sched_life_test.sh - a scheduler that ends while its driver stays, and
# the next one at its address: what xe and panthor do with their scheduler
# per queue, where the new queue's scheduler often gets the freed memory
# and its name the same place.  The virtual GPU's "replace" file ends a
# ring's scheduler (drm_sched_fini()) and starts another in the same
# struct, under a new name from the same buffer.  The drm_sched bridge
# forgets the old one at drm_sched_fini() (a kprobe), so the new scheduler's
# jobs are on a ring of their own, named as it is named; before, they
# went on under the old ring's id and name.  The optional modules
# that keep figures per ring id (grtrace_aggregator, grtrace_perf_mon)
# are told when an id is given back: the next ring with it starts from
# zero, not from the old ring's figures (and jobs still open there), also
# when the bridge itself is unloaded while a job runs.
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
V=/sys/kernel/debug/grtrace_vgpu

# ring_id NAME: the id of the ring named NAME in grtrace's rings file.
ring_id() { awk -v n="$1" '$NF == n { print $1 }' "$D/rings"; }
# submits DUMP RING: the SUBMITs on ring id RING in a dump.
submits() { grep -c " SUBMIT .* ring=$2 " "$1"; }

echo "TAP version 13"
echo "1..9"
load_stack
insmod "$(ko grtrace_aggregator)" && echo 1 >"$D/aggregator_enable" &&
	insmod "$(ko grtrace_perf_mon)" ||
	{ echo "Bail out! cannot load grtrace_aggregator or grtrace_perf_mon"; exit 1; }
# agg_jobs RING, pm_jobs RING: the jobs completed on ring id RING since
# enabled, by the aggregator and by perf_mon; empty when it has no row.
agg_jobs() { sed -n "s/^scope=total ring=$1 .* jobs=\([0-9]*\) .*/\1/p" "$D/aggregator_stats_raw"; }
pm_jobs() { awk -v r="$1" '$1 == "total" && $2 == r { print $(NF - 1) }' /proc/grtrace_stats; }
# agg SCOPE RING KEY: a figure of the aggregator's row of ring id RING.
agg() {
	awk -v s="scope=$1" -v r="ring=$2" -v k="$3" '$1 == s && $2 == r {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' \
		"$D/aggregator_stats_raw"
}

# 1
grep -q 'drm_sched_fini' /sys/kernel/debug/kprobes/list
ok $? "drm_bridge: a kprobe on drm_sched_fini [attach-only]"

# 2: five jobs on the copy ring, its ring registered.
record_start "$TMP/r.dat" && vgpu_submit "copy 0 5 100\n" && vgpu_idle
rc=$?
old=$(ring_id vgpu0-copy)
echo "# vgpu0-copy is ring ${old:-none}"
[ $rc -eq 0 ] && [ -n "$old" ]
ok $? "5 jobs on vgpu0-copy recorded, its ring registered"

# 3: bad lines change nothing.
rc=0
for line in 'nosuch vgpu0-x' 'copy' 'copy a b' "copy $(printf 'x%.0s' $(seq 32))" ' '; do
	if echo "$line" > "$V/replace" 2>/dev/null; then
		echo "# replace accepted '$line'"
		rc=1
	fi
done
grep -q '^ring=vgpu0-copy ' "$V/stats" && [ "$(ring_id vgpu0-copy)" = "$old" ] || rc=1
ok $rc "replace: bad lines fail with EINVAL and change nothing"

# 4: replaced while 10 jobs of 20 ms are in flight: the write waits for
# them, then the new scheduler is there, in the same place.
vgpu_submit "copy 1 10 20000\n" &&
	echo 'copy vgpu0-copy2' > "$V/replace" &&
	grep -q '^ring=vgpu0-copy2 submitted=15 completed=15 ' "$V/stats"
ok $? "replace: waited for the 10 jobs in flight, then vgpu0-copy2 took the copy ring's place"

# 5: its jobs are on a ring described as it is; the old one is gone
# (ring ids are handed out lowest first: it may have the old one's id).
vgpu_submit "copy 0 5 100\n" && vgpu_idle
rc=$?
echo "# rings now:"
sed 's/^/#   /' "$D/rings"
new=$(ring_id vgpu0-copy2)
[ $rc -eq 0 ] && [ -n "$new" ] && [ -z "$(ring_id vgpu0-copy)" ]
ok $? "the new scheduler's jobs registered vgpu0-copy2 (ring ${new:-none}), vgpu0-copy is gone"

# 6: the optional modules' figures of the id: the new ring's 5 jobs, not
# the old ring's 15 and its 5 (the modules before this kept adding).
a=$(agg_jobs "$new") p=$(pm_jobs "$new")
ao= po=
if [ "$new" != "$old" ]; then
	ao=$(agg_jobs "$old") po=$(pm_jobs "$old")
fi
echo "# ring $new: aggregator ${a:-no row}, perf_mon ${p:-no row} jobs; old ring $old: ${ao:-no row}, ${po:-no row}"
[ "$a" = 5 ] && [ "$p" = 5 ] && [ -z "$ao" ] && [ -z "$po" ]
ok $? "aggregator and perf_mon: ring ${new:-none} has the new scheduler's 5 jobs since its id was given back (aggregator ${a:-none}, perf_mon ${p:-none})"

# 7: the recording says so too: a RING record names vgpu0-copy2 after
# the first 15 jobs and before the last 5, which are on its id; the
# report gives each scheduler its own jobs.
kill -INT "$REC" && wait "$REC" && "$TOOL" dump -i "$TMP/r.dat" >"$TMP/r.dump" &&
	"$TOOL" report -i "$TMP/r.dat" --limit 0 --per-ring >"$TMP/r.report"
rc=$?
awk -v old="$old" -v new="$new" '
	/ RING id=.* name=vgpu0-copy2$/ { seen = 1; next }
	/ SUBMIT / {
		if (!seen && $0 ~ " ring=" old " ") a++
		if (seen && $0 ~ " ring=" new " ") b++
		if (seen && $0 !~ " ring=" new " ") c++
	}
	END { printf "%d %d %d %d\n", seen, a, b, c }' "$TMP/r.dump" >"$TMP/counts"
read -r seen a b c <"$TMP/counts"
echo "# RING record of vgpu0-copy2: $seen; SUBMITs before it on ring $old: $a, after it on ring ${new:-none}: $b, elsewhere: $c"
grep -E '^ring [0-9]+ vgpu0-copy2? ' "$TMP/r.report" | sed 's/^/# /'
[ $rc -eq 0 ] && [ "$seen" = 1 ] && [ "$a" = 15 ] && [ "$b" = 5 ] && [ "$c" = 0 ] &&
	grep -Eq '^ring [0-9]+ vgpu0-copy \(copy; drm_sched [^)]*\): 15 jobs' "$TMP/r.report" &&
	grep -Eq '^ring [0-9]+ vgpu0-copy2 \(copy; drm_sched [^)]*\): 5 jobs' "$TMP/r.report"
ok $? "recorded: 15 jobs on vgpu0-copy, then vgpu0-copy2 described and its 5 jobs on it; the report splits them so"

# 8: the bridge unloaded while a 3 s job runs: its rings are given back
# with the job open in the optional modules; the job ends unseen.  Loaded
# again, the bridge registers the gfx ring anew: its id has the 3 jobs
# since, nothing holds it deep, and the old id, if another, has no row
# (before, the job stayed open there for good).
record_start "$TMP/r2.dat" && vgpu_submit "gfx 2 1 3000000\n"
rc=$?
g= depth=
for _ in $(seq 40); do
	g=$(ring_id vgpu0-gfx)
	[ -n "$g" ] && depth=$(agg total "$g" depth_now) && [ "$depth" = 1 ] && break
	sleep 0.1
done
echo "# vgpu0-gfx is ring ${g:-none}, the 3 s job open there: depth ${depth:-none}"
[ $rc -eq 0 ] && [ "$depth" = 1 ] && rmmod grtrace_drm_bridge &&
	[ -z "$(ring_id vgpu0-gfx)" ] && vgpu_idle &&
	insmod "$(ko grtrace_drm_bridge)" && vgpu_submit "gfx 2 3 100\n" && vgpu_idle
rc=$?
n=$(ring_id vgpu0-gfx)
a=$(agg total "$n" jobs) depth=$(agg total "$n" depth_now) p=$(pm_jobs "$n")
og=
[ "$g" != "$n" ] && og=$(agg total "$g" depth_now)
echo "# vgpu0-gfx is now ring ${n:-none}: aggregator ${a:-no row} jobs, depth ${depth:-none}; perf_mon ${p:-no row} jobs; the old id ${g:-none}: ${og:-no row}"
kill -INT "$REC" && wait "$REC" || rc=1
[ $rc -eq 0 ] && [ "$a" = 3 ] && [ "$depth" = 0 ] && [ "$p" = 3 ] && [ -z "$og" ]
ok $? "drm_bridge unloaded with a job running: the ring given back; loaded again, its id has the 3 jobs since, none open (aggregator ${a:-none}, depth ${depth:-none}, perf_mon ${p:-none})"

module_suite_end
