#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# client_test.sh - jobs named after the process that submitted them, by the
# DRM client id, as a user reaches it: vgpu_client opens the virtual GPU's
# render node and submits through its ioctl, from its own thread or pushed
# by a kernel worker (as drivers that defer their pushes do), while
# "grtrace record -- vgpu_client ..." records:
#  - two processes on one ring, one flooding it: report --why attributes
#    the other's wait to it, within 5 %;
#  - the render node exists; bad ioctl arguments fail with EINVAL and
#    submit nothing;
#  - where the scheduler carries the DRM client id (6.16+: the virtual
#    GPU's info file says client_ids=1), every SUBMIT of the client's jobs
#    has client=ID, the id of the file's fdinfo, and "report" names the
#    client's process even for the jobs a kworker pushed; where it does not
#    (6.1, 6.12), no SUBMIT carries one and the kworker's jobs are named
#    after the kworker: said in the output;
#  - jobs from the debugfs file come through no file: no client id.
# TAP output; runs as root inside the test VM.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
V=/sys/kernel/debug/grtrace_vgpu
CLIENT=$HERE/vgpu_client
[ -x "$CLIENT" ] || { cc -O2 -o "$TMP/vgpu_client" "$HERE/vgpu_client.c" &&
	CLIENT=$TMP/vgpu_client; }

# submitted RING: jobs the virtual GPU's RING took so far.
submitted() { sed -n "s/^ring=vgpu0-$1 submitted=\([0-9]*\) .*/\1/p" "$V/stats"; }
# completed RING: jobs RING finished so far.
completed() { sed -n "s/^ring=vgpu0-$1 .*completed=\([0-9]*\).*/\1/p" "$V/stats"; }
# csv_col FILE NAME: column NAME of a CSV file, one value per row.
csv_col() {
	awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
		c { print $c }' "$1"
}
# run NAME ARGS...: "grtrace record -o NAME.dat -- vgpu_client ARGS...";
# the client's output in NAME.out.  The client stays 1.5 s after its
# ioctl, as an application outlives its submission, then the jobs of ring
# gfx are waited for.
run() {
	local n=$1

	shift
	"$TOOL" record -o "$TMP/$n.dat" -- "$CLIENT" -w 1500 "$@" \
		>"$TMP/$n.out" 2>"$TMP/$n.err" && vgpu_idle &&
		"$TOOL" dump -i "$TMP/$n.dat" >"$TMP/$n.dump" &&
		"$TOOL" report -i "$TMP/$n.dat" -f csv >"$TMP/$n.csv" &&
		"$TOOL" report -i "$TMP/$n.dat" >"$TMP/$n.txt"
	local rc=$?
	[ $rc = 0 ] || sed 's/^/# /' "$TMP/$n.out" "$TMP/$n.err"
	return $rc
}
# submits NAME: the dump's SUBMIT lines of the gfx ring (registered by the
# bridge when it first saw the ring in a session).
submits() {
	local gfx

	gfx=$(awk '$NF == "vgpu0-gfx" { print $1 }' /sys/kernel/debug/grtrace/rings)
	awk -v r="ring=$gfx" '$4 == "SUBMIT" && $7 == r' "$TMP/$1.dump"
}

echo "TAP version 13"
echo "1..8"
load_stack render_node=1
NODE=
for n in /sys/devices/vgpu0/drm/renderD*; do NODE=/dev/dri/${n##*/}; done
IDS=$(sed -n 's/^client_ids=//p' "$V/info")
echo "# kernel $(uname -r): render node $NODE, scheduler carries client ids: $IDS"

# 1
[ -c "$NODE" ] && [ -n "$IDS" ]
ok $? "the virtual GPU has a render node and says whether jobs carry client ids"

# 2: refusals change nothing.
before=$(submitted gfx)
out1=$("$CLIENT" -F 2 "$NODE" $'gfx 0 1 10\n')
rc1=$?
out2=$("$CLIENT" "$NODE" $'gfx 0 1 10 bogus\n')
rc2=$?
vgpu_idle
[ $rc1 = 1 ] && [ $rc2 = 1 ] && echo "$out1" | grep -q '^errno=EINVAL$' &&
	echo "$out2" | grep -q '^errno=EINVAL$' && [ "$(submitted gfx)" = "$before" ]
ok $? "unknown ioctl flags and a bad line fail with EINVAL, nothing submitted"

# 3-4: pushed from a kernel worker.
run k -k "$NODE" $'gfx 0 5 100\n'
rc=$?
read -r pid id <<<"$(sed -n 's/^pid=\([0-9]*\) client_id=\(.*\)/\1 \2/p' "$TMP/k.out")"
echo "# client pid $pid, drm-client-id $id"
submits k | sed 's/^/# /'
n=$(submits k | wc -l)
own=$(submits k | grep -c " tid=$pid\( \|\$\)")
if [ "$IDS" = 1 ]; then
	with=$(submits k | grep -c " client=$id\( \|\$\)")
	[ $rc = 0 ] && [ "$n" = 5 ] && [ "$own" = 0 ] && [ "$with" = 5 ]
	ok $? "pushed by a kworker: 5 SUBMITs, none from the client's thread, each with client=$id (its fdinfo's)"
else
	[ $rc = 0 ] && [ "$n" = 5 ] && [ "$own" = 0 ] && ! submits k | grep -q ' client='
	ok $? "pushed by a kworker: 5 SUBMITs, none from the client's thread, none with a client id (this scheduler keeps none)"
fi
sed 's/^/# /' "$TMP/k.csv" | head -8
names=$(csv_col "$TMP/k.csv" process | sort | uniq -c | sed 's/^ *//')
pids=$(csv_col "$TMP/k.csv" pid | sort -u)
echo "# submitters: $names (pids $pids)"
if [ "$IDS" = 1 ]; then
	[ "$names" = "5 vgpu_client" ] && [ "$pids" = "$pid" ]
	ok $? "report names the 5 kworker-pushed jobs after vgpu_client[$pid], by its client id"
else
	[ "$(csv_col "$TMP/k.csv" comm | grep -c '^kworker/')" = 5 ]
	ok $? "report names the 5 kworker-pushed jobs after the kworker (no client id on this kernel)"
fi

# 5: from the client's own thread: named after it either way.
run t "$NODE" $'gfx 0 5 100\n'
rc=$?
read -r pid id <<<"$(sed -n 's/^pid=\([0-9]*\) client_id=\(.*\)/\1 \2/p' "$TMP/t.out")"
[ $rc = 0 ] && [ "$(submits t | grep -c " tid=$pid\( \|\$\)")" = 5 ] &&
	[ "$(csv_col "$TMP/t.csv" process | grep -c '^vgpu_client$')" = 5 ]
ok $? "pushed from the ioctl: 5 SUBMITs from the client's thread, named vgpu_client"

# 6: the debugfs file has no DRM file behind it.
record_start "$TMP/d.dat" && vgpu_submit "gfx 0 3 100\n" && vgpu_idle &&
	kill -INT "$REC" && wait "$REC" &&
	"$TOOL" dump -i "$TMP/d.dat" >"$TMP/d.dump"
rc=$?
[ $rc = 0 ] && [ "$(submits d | wc -l)" = 3 ] && ! submits d | grep -q ' client='
ok $? "jobs of the debugfs submit file carry no client id"

# Two processes on one ring: "flood" queues 30 jobs of 50 ms on copy (200
# ms on a debug kernel: there the shell took over a second to start the
# victim once flood had submitted, and 20 ms jobs had all run by then),
# then "victim" 3 jobs of 50 us behind them.  report --why must put the
# victim's wait after its SUBMITs (sched_ns + ring_ns: no dependencies)
# on flood: flood's ns in the victim's waited_behind within 5 % of it, and
# the wait itself longer than a flood job (it did queue behind flood).
# until_line WORD FILE: wait (10 s at most) for vgpu_client's line
# beginning with WORD: "pid=" once it has the node open, "submitted" once
# its ioctl has queued the jobs.  A fixed sleep was once shorter than the
# client's start under TCG, and the victim went first.
until_line() {
	for _ in $(seq 100); do
		grep -q "^$1" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# no \"$1\" from vgpu_client in 10 s: $(cat "$2")"
	return 1
}
# until_copy_done N: wait (10 s at most) until the copy ring has finished
# more than N jobs.
until_copy_done() {
	for _ in $(seq 100); do
		[ "$(completed copy)" -gt "$1" ] && return 0
		sleep 0.1
	done
	echo "# the copy ring finished no job in 10 s: $(cat "$V/stats")"
	return 1
}
# The victim starts first, so that its start-up is not in the way, and
# submits on a line to its standard input (-g), written once flood's
# first job has run: flood holds the ring then, whatever the scheduler's
# order of the two contexts.
mkfifo "$TMP/go"
copy0=$(completed copy)
record_start "$TMP/w.dat" &&
	{ "$CLIENT" -g -w 500 "$NODE" $'copy 5 3 50\n' <"$TMP/go" >"$TMP/victim.out" 2>&1 & } &&
	vc=$! && exec 7>"$TMP/go" && until_line pid= "$TMP/victim.out" &&
	{ "$CLIENT" -w 1500 "$NODE" "copy 4 30 $((50000 * SLOW))"$'\n' >"$TMP/flood.out" 2>&1 & } &&
	fl=$! && until_line submitted "$TMP/flood.out" &&
	until_copy_done "$copy0" && echo go >&7 && exec 7>&- && wait "$vc" &&
	wait "$fl" && vgpu_idle && kill -INT "$REC" && wait "$REC" &&
	"$TOOL" report -i "$TMP/w.dat" --why -f csv >"$TMP/w.csv" &&
	"$TOOL" report -i "$TMP/w.dat" --why --per-process -f csv >"$TMP/wp.csv" &&
	"$TOOL" report -i "$TMP/w.dat" --why --per-process --limit 0 >"$TMP/wp.txt"
rc=$?
# After a failed step the victim may still wait for its line: end of file.
exec 7>&-
fpid=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$TMP/flood.out")
vpid=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$TMP/victim.out")
# The victim's wait after its dependencies, summed over its jobs.
wait_ns=$(awk -F, -v p="$vpid" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["pid"] == p && $c["why_sched_ns"] != "" {
		s += $c["why_sched_ns"] + $c["why_ring_ns"]; n++ }
	END { printf "%.0f %d", s, n }' "$TMP/w.csv")
read -r wait_ns vjobs <<<"$wait_ns"
# flood's ns in the victim's waited_behind ("comm/pid:ns|...").
flood_ns=$(awk -F, -v p="$vpid" -v f="$fpid" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["pid"] == p { n = split($c["waited_behind"], e, "|")
		for (i = 1; i <= n; i++) { k = split(e[i], kv, ":")
			if (kv[1] ~ "/" f "$") print kv[2] } }' "$TMP/wp.csv")
echo "# flood pid $fpid, victim pid $vpid: victim's $vjobs jobs waited ${wait_ns:-?} ns after their dependencies, ${flood_ns:-?} ns of it behind flood"
sed -n "/^process $vpid /,/^process /p" "$TMP/wp.txt" | grep -A3 'waited behind' | sed 's/^/# /'
[ $rc = 0 ] && [ "$vjobs" = 3 ] && [ -n "$flood_ns" ] && [ "$wait_ns" -gt 2000000 ] &&
	[ $((flood_ns * 100)) -ge $((wait_ns * 95)) ] && [ "$flood_ns" -le "$wait_ns" ]
rc=$?
if [ $rc != 0 ]; then
	# What the two clients said, and each job's times, ring and why.
	sed 's/^/# flood: /' "$TMP/flood.out"
	sed 's/^/# victim: /' "$TMP/victim.out"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		{ print "# " $c["ctx"] ":" $c["seqno"], $c["ring"], $c["pid"],
		  $c["submit_ts"], $c["commit_ts"], $c["start_ts"],
		  $c["end_ts"], $c["why_sched_ns"], $c["why_ring_ns"],
		  $c["why_behind"] }' "$TMP/w.csv"
fi
ok $rc "report --why: a process flooding a ring is named for 95 % or more of the other's wait on it"

module_suite_end
