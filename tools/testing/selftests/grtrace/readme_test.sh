#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# readme_test.sh [--host] - run README.md's commands, so that the README
# cannot rot.
#
# Every ```sh block of the README runs, in order, each under "set -euo
# pipefail": a failing command fails its block, in a pipe too.  With --host, the blocks that only build
# (every line a "make") run on the host, in the tree: under TCG a build
# takes minutes.  Without it, every other block runs as root inside the
# test VM, in a writable copy of the tree (the shared root is read-only);
# while the block that records runs, the virtual GPU is kept busy so that
# there is something to record, and the trace must then hold jobs; while
# the block that waits for the flight recorder runs, a job of the virtual
# GPU hangs, and its snapshot must then name a hung job.  The
# two set-up commands (vm-demo.sh and run_tests.sh) boot VMs of their own:
# run_tests.sh runs the first as its main-job step and is the second, so
# they are not run again here.  TAP output.

set -u
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
WORK=$TMP

# The vgpu keeps three rings busy until the file $WORK/stop appears.
vgpu_busy() {
	local v=/sys/kernel/debug/grtrace_vgpu

	while [ ! -e "$WORK/stop" ]; do
		printf '%s\n' "gfx 0 4 300" "copy 1 2 2000 dep=gfx:0" >"$v/submit"
		sleep 0.1
	done
}

HOST=0
[ "${1:-}" = --host ] && HOST=1

if [ $HOST = 1 ]; then
	ln -s "$TOP" "$WORK/repo"
	# The host runs some other kernel: "uname -r" answers the one the
	# suite builds for ($KVER, from setup.sh), as it would on a machine
	# running it.
	mkdir "$WORK/bin"
	printf '#!/bin/sh
[ "$1" = -r ] && echo "%s" && exit 0
exec /bin/uname "$@"
' \
		"${KVER:?run by run_tests.sh, which sets KVER}" >"$WORK/bin/uname"
	chmod +x "$WORK/bin/uname"
	export PATH=$WORK/bin:$PATH
else
	cp -a "$TOP" "$WORK/repo" || { echo "Bail out! cannot copy the tree"; exit 1; }
fi
python3 - "$TOP/README.md" "$WORK" <<'EOF' || { echo "Bail out! no blocks"; exit 1; }
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r'^```sh\n(.*?)^```', text, re.M | re.S)
for i, b in enumerate(blocks):
    open(f'{sys.argv[2]}/block{i:02d}.sh', 'w').write(b)
print(f'# {len(blocks)} sh blocks in README.md', file=sys.stderr)
EOF

# where BLOCK: "vm", "host" (build-only blocks: every line a make) or
# "none" (the set-up commands, which boot VMs of their own).
where() {
	if grep -qE 'vm-demo\.sh|run_tests\.sh' "$1"; then
		echo none
	elif ! grep -v '^\s*$' "$1" | grep -qv '^make '; then
		echo host
	else
		echo vm
	fi
}

# The plan: one result a block run here, one more for a block that records.
mine=$([ $HOST = 1 ] && echo host || echo vm)
plan=0
for f in "$WORK"/block*.sh; do
	[ "$(where "$f")" = "$mine" ] || continue
	plan=$((plan + 1))
	# one more result for a block that records or waits for a snapshot
	# (as in the loop below: "grtrace recorder" contains "grtrace record")
	grep -qE 'grtrace record( |$)|grtrace recorder wait' "$f" &&
		plan=$((plan + 1))
done
echo "TAP version 13"
echo "1..$plan"
# A README that lost its runnable blocks is a failure, not an empty pass.
[ $HOST = 1 ] && [ $plan -lt 1 ] && { echo "Bail out! README has no build block"; exit 1; }
[ $HOST = 0 ] && [ $plan -lt 4 ] &&
	{ echo "Bail out! README has $plan runnable results, expected at least 4"; exit 1; }

cd "$WORK/repo" || exit 1
busy=
for f in "$WORK"/block*.sh; do
	first=$(grep -m1 -v '^\s*$' "$f")
	case $(where "$f") in
	none) echo "# not run here (it boots its own VM; run_tests.sh covers it): $first"
	      continue ;;
	"$mine") ;;
	*) [ $HOST = 1 ] || echo "# run on the host: $first"
	   continue ;;
	esac
	hang=
	if grep -q 'grtrace recorder wait' "$f"; then
		# A job hangs a few seconds in: the scheduler's timeout
		# triggers the recorder the block armed and waits on.
		[ -d /sys/kernel/debug/grtrace_vgpu ] ||
			{ modprobe gpu-sched && insmod "$(ko grtrace_vgpu)"; } ||
			{ echo "Bail out! cannot load the virtual GPU"; exit 1; }
		(sleep 3; printf 'gfx 0 20 100\ngfx 0 1 0 hang\n' \
			>/sys/kernel/debug/grtrace_vgpu/submit) &
		hang=$!
	elif grep -qE 'grtrace record( |$)' "$f"; then
		modprobe gpu-sched && insmod "$(ko grtrace_vgpu)" ||
			{ echo "Bail out! cannot load the virtual GPU"; exit 1; }
		vgpu_busy &
		busy=$!
	fi
	bash -c 'set -euo pipefail; . "$1"' readme "$f" >"$f.log" 2>&1
	rc=$?
	ok $rc "README: $first"
	[ $rc -eq 0 ] || sed 's/^/#   /' "$f.log" | tail -n 15
	if [ -n "$hang" ]; then
		wait "$hang"
		tools/grtrace/grtrace report -i hang.dat --format json >"$WORK/h.json"
		python3 -c 'import json, sys
fr = json.load(open(sys.argv[1]))["flight_recorder"]
print("# flight recorder: cause %s, ring %s, hung job %s" % (fr["cause"], fr["ring_name"], fr["hung_job"]))
sys.exit(0 if fr["cause"] == "timeout" and fr["hung_job"] else 1)' "$WORK/h.json"
		ok $? "README: the snapshot names the virtual GPU's hung job"
	fi
	if [ -n "$busy" ]; then
		touch "$WORK/stop"
		wait "$busy"
		busy=
		tools/grtrace/grtrace report -i trace.dat --format json >"$WORK/r.json"
		python3 -c 'import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["jobs"] else 1)' "$WORK/r.json"
		ok $? "README: the recorded trace holds the virtual GPU's jobs"
	fi
done
if [ $HOST = 1 ]; then
	rm -rf "$WORK"
	exit $FAILED
fi

cat /sys/kernel/debug/grtrace_vgpu/wait >/dev/null 2>&1
for m in grtrace_vgpu grtrace_drm_bridge grtrace; do
	rmmod "$m" 2>/dev/null
done
rm -rf "$WORK"
exit $FAILED
