#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-demo.sh - see grtrace work on a machine without a GPU.
#
# Installs what it needs (Debian 12, as root), builds grtrace.ko and the
# grtrace tool, boots Debian's kernel in a QEMU guest, loads grtrace, runs a
# short workload emitted from two CPUs, records it with "grtrace record" and
# decodes it with "grtrace dump".  Leaves everything in OUTDIR.
#
# Usage: tools/grtrace/vm-demo.sh [-o OUTDIR]

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../.." && pwd)
KSFT=$TOP/tools/testing/selftests/grtrace
OUT=''

say() { printf 'vm-demo: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# --- guest side: runs inside the VM as root -------------------------------
guest() {
	local ko=$TOP/drivers/gpu/grtrace/grtrace.ko tool=$HERE/grtrace
	local d=/sys/kernel/debug/grtrace cpu rec pids=()

	insmod "$ko" || die "insmod grtrace.ko failed"
	say "guest: grtrace loaded; recording for 4 s"
	"$tool" record -o "$OUT/trace.dat" -d 4 2>"$OUT/record.txt" &
	rec=$!
	for _ in $(seq 50); do
		grep -q started "$d/control" && break
		sleep 0.1
	done
	grep -q started "$d/control" || die "tracing did not start"

	# Two CPUs at once each push 100 jobs through three rings, 5 events
	# per job.
	for cpu in 0 1; do
		taskset -c "$cpu" bash -c '
			for j in $(seq 1 100); do
				ring=$(( j % 3 )); ctx=$(( 1000 + '"$cpu"' ))
				printf "submit %d 1 %d %d\ncommit %d 1 %d %d\nstart %d 1 %d %d\nend %d 1 %d %d\ncomplete %d 1 %d %d\n" \
					$ctx $ring $j $ctx $ring $j $ctx $ring $j \
					$ctx $ring $j $ctx $ring $j >'"$d"'/emit || exit 1
			done' &
		pids+=($!)
	done
	wait "${pids[0]}" && wait "${pids[1]}" || die "emitting failed"
	say "guest: workload done (1000 events); waiting for record"
	wait "$rec" || die "grtrace record failed: $(cat "$OUT/record.txt")"
	"$tool" status >"$OUT/status.txt" 2>&1
	"$tool" dump -i "$OUT/trace.dat" >"$OUT/dump.txt" ||
		die "grtrace dump failed"
	rmmod grtrace || die "rmmod grtrace failed"
}

if [ "${1:-}" = "--guest" ]; then
	OUT=$2
	guest
	exit 0
fi

# --- host side -------------------------------------------------------------
while getopts 'o:h' opt; do
	case $opt in
	o) OUT=$OPTARG ;;
	*) sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
OUT=${OUT:-$(mktemp -d /tmp/grtrace-demo.XXXXXX)}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)

# shellcheck source=../testing/selftests/grtrace/setup.sh
. "$KSFT/setup.sh"
say "preparing the machine (packages, kernel source)"
grtrace_setup || die "setup failed"

say "building grtrace.ko for $KVER and the grtrace tool"
make -C "$TOP/drivers/gpu/grtrace" KDIR="$KDIR" >"$OUT/build.log" 2>&1 ||
	die "module build failed, see $OUT/build.log"
make -C "$HERE" >>"$OUT/build.log" 2>&1 ||
	die "tool build failed, see $OUT/build.log"

say "booting $KVER in QEMU (TCG, 2 vCPUs)"
"$KSFT/vmtest.sh" -k "$KVER" -o "$OUT" -- "$HERE/vm-demo.sh" --guest "$OUT" ||
	die "the VM run failed, see $OUT/console.log"

say "record summary:"
cat "$OUT/record.txt"
say "first records of the trace (grtrace dump):"
head -n 14 "$OUT/dump.txt"
say "$(wc -l <"$OUT/dump.txt") records; per type:"
awk '{ n[$4]++ } END { for (t in n) printf "  %-16s %d\n", t, n[t] }' \
	"$OUT/dump.txt" | sort
say "output in $OUT: trace.dat, dump.txt, record.txt, status.txt, console.log"
