#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-demo.sh - see grtrace find a GPU bottleneck on a machine without a GPU.
#
# Installs what it needs (Debian 12, as root), builds the grtrace modules
# and tool, and boots Debian's kernel in a QEMU guest with a virtio-gpu
# device.  There it loads grtrace, the DRM scheduler bridge, the virtio-gpu
# adapter and the virtual GPU, and records a mixed workload with
# "grtrace record": KMS page flips and fenced virtio-gpu commands, and jobs
# on the virtual GPU's three rings with cross-ring dependencies, one ring
# (copy) given far more work than it can do.  Back on the host it prints
# "grtrace report --per-ring --topn 5", whose per-ring section should name
# the copy ring as the bottleneck, and the interference table of
# "grtrace report --per-process --why": whose jobs each process waited
# behind.  Then it records the same workload a second time with every
# copy job 30 % longer (trace-slow.dat) and prints "grtrace diff
# trace.dat trace-slow.dat": the copy ring's t_exec flagged slower, and
# nothing on gfx or compute.
#
# Everything stays in OUTDIR: trace.dat, report.txt (with every job),
# summary.txt (what is printed), jobs.csv, jobs.json, interference.txt
# (report --per-process --why), trace-slow.dat and diff.txt / diff.json
# (the second run and the diff), trace.pftrace (the
# timeline for ui.perfetto.dev, "grtrace export"), timeline.png (the rings'
# Gantt chart, scripts/visualize_timeline.py), ioctls.txt (the DRM ioctls
# grtrace-bpf-annotate saw meanwhile), merged.txt (ioctls and jobs on one
# timeline, each job linked to the ioctl that submitted it,
# scripts/merge_timeline.py), record.txt (record's summary) and the VM's
# console.log.
#
# Usage: tools/grtrace/vm-demo.sh [-o OUTDIR] [--kernel KERNEL]
#
# KERNEL is one of run_tests.sh's: stock (Debian 12's 6.1, the default),
# rt, 6.12, 7 or 7-rt (the newest 7.x of trixie-backports).

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../.." && pwd)
KSFT=$TOP/tools/testing/selftests/grtrace
KODIR=$TOP/drivers/gpu/grtrace
TOOL=$HERE/grtrace
OUT=''

say() { printf 'vm-demo: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# --- guest side: runs inside the VM as root -------------------------------

# The virtual GPU's workload, lines of RING CTX COUNT EXEC_US [dep=RING:CTX]
# 40 times, as fast as the guest's shell goes (about 0.1 s apiece under
# TCG): gfx and compute (which waits for gfx) use a few percent of their
# rings, while copy is given 200 ms of work each time, more than it can
# do: it saturates and its queue grows.  $1: the copy jobs' EXEC_US.
vgpu_workload() {
	local v=/sys/kernel/debug/grtrace_vgpu tick copy_us=${1:-50000}

	for tick in $(seq 40); do
		printf '%s\n' "gfx 0 1 500" "compute 1 1 300 dep=gfx:0" \
			"copy 2 4 $copy_us" >"$v/submit" || return 1
		[ $((tick % 4)) -eq 0 ] && { echo "gfx 3 2 200" >"$v/submit" || return 1; }
		sleep 0.05
	done
	cat "$v/wait" >/dev/null
}

guest() {
	local d=/sys/kernel/debug/grtrace rec m vw cl an

	say "guest: loading virtio_gpu, gpu-sched and grtrace (core, drm_bridge, virtio_gpu, vgpu)"
	modprobe virtio_gpu && modprobe gpu-sched || die "modprobe failed"
	for m in grtrace adapters/grtrace_drm_bridge adapters/grtrace_virtio_gpu \
		tests/grtrace_vgpu; do
		insmod "$KODIR/$m.ko" || die "insmod $m.ko failed"
	done
	cat "$d/adapters" >"$OUT/adapters.txt"

	say "guest: recording (grtrace record -o trace.dat, until the workload is done)"
	"$TOOL" record -o "$OUT/trace.dat" 2>"$OUT/record.txt" &
	rec=$!
	for _ in $(seq 50); do
		grep -q started "$d/control" && break
		sleep 0.1
	done
	grep -q started "$d/control" || die "tracing did not start"
	say "guest: grtrace-bpf-annotate -o ioctls.txt (the DRM ioctls, same clock)"
	"$HERE/bpf/grtrace-bpf-annotate" -o "$OUT/ioctls.txt" 2>"$OUT/annotate.txt" &
	an=$!
	for _ in $(seq 100); do
		[ -s "$OUT/ioctls.txt" ] && break
		sleep 0.1
	done
	[ -s "$OUT/ioctls.txt" ] || die "the annotator did not attach: $(cat "$OUT/annotate.txt")"

	say "guest: workload: page flips + fenced virtio-gpu commands, vgpu jobs on gfx/compute/copy"
	# The vgpu first: the copy ring is then busy from the start of the
	# recording to its end, whatever the client's start-up costs.
	vgpu_workload &
	vw=$!
	"$KSFT/virtgpu_client" -f 60 -c 30 >"$OUT/client.txt" 2>&1 &
	cl=$!
	wait $vw || die "vgpu workload failed"
	wait $cl || die "virtgpu_client failed: $(cat "$OUT/client.txt")"
	say "guest: workload done; stopping the annotator and grtrace record"
	kill -INT "$an"
	wait "$an" || die "grtrace-bpf-annotate failed: $(cat "$OUT/annotate.txt")"
	kill -INT "$rec"
	wait "$rec" || die "grtrace record failed: $(cat "$OUT/record.txt")"
	cat "$d/rings" >"$OUT/rings.txt"
	cat /sys/kernel/debug/grtrace_vgpu/stats >"$OUT/vgpu-stats.txt"

	# The same workload, as if a change had made the copy engine slower.
	say "guest: the second run, every copy job 30% longer (65 ms): trace-slow.dat"
	"$TOOL" record -o "$OUT/trace-slow.dat" 2>"$OUT/record-slow.txt" &
	rec=$!
	for _ in $(seq 50); do
		grep -q started "$d/control" && break
		sleep 0.1
	done
	grep -q started "$d/control" || die "tracing did not start again"
	# The annotator too: the two runs differ in the copy jobs alone.
	"$HERE/bpf/grtrace-bpf-annotate" -o "$OUT/ioctls-slow.txt" \
		2>"$OUT/annotate-slow.txt" &
	an=$!
	for _ in $(seq 100); do
		[ -s "$OUT/ioctls-slow.txt" ] && break
		sleep 0.1
	done
	[ -s "$OUT/ioctls-slow.txt" ] || die "the annotator did not attach again"
	vgpu_workload 65000 &
	vw=$!
	"$KSFT/virtgpu_client" -f 60 -c 30 >"$OUT/client-slow.txt" 2>&1 &
	cl=$!
	wait $vw || die "vgpu workload failed (second run)"
	wait $cl || die "virtgpu_client failed: $(cat "$OUT/client-slow.txt")"
	kill -INT "$an"
	wait "$an" || die "grtrace-bpf-annotate failed: $(cat "$OUT/annotate-slow.txt")"
	kill -INT "$rec"
	wait "$rec" || die "grtrace record failed: $(cat "$OUT/record-slow.txt")"
}

if [ "${1:-}" = "--guest" ]; then
	[ "${GRTRACE_VM:-}" = 1 ] || die "--guest runs inside the test VM only"
	OUT=$2
	guest
	exit 0
fi

# --- host side -------------------------------------------------------------
usage() { sed -n '3,32p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
KERNEL=stock
while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
	--kernel|-k) [ $# -ge 2 ] || usage; KERNEL=$2; shift 2 ;;
	*) usage ;;
	esac
done
OUT=${OUT:-$(mktemp -d /tmp/grtrace-demo.XXXXXX)}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
start=$SECONDS

# shellcheck source=../testing/selftests/grtrace/setup.sh
. "$KSFT/setup.sh"
say "preparing the machine (packages, kernel source; cached after the first run)"
grtrace_setup "$KERNEL" || die "setup failed"

say "building the modules for $KVER, the grtrace tool and the virtio-gpu client"
{
	# shellcheck disable=SC2086 # KMAKE: make, or kmake.sh and its root
	$KMAKE -C "$KODIR" KDIR="$KDIR" &&
	make -C "$HERE" &&
	make -C "$KSFT" KSFT_DIR="$KSRC/tools/testing/selftests" virtgpu_client
} >"$OUT/build.log" 2>&1 || die "build failed, see $OUT/build.log"

say "booting $KVER in QEMU (TCG, 2 vCPUs, virtio-gpu)"
"$KSFT/vmtest.sh" -k "$KVER" -o "$OUT" -q "-device virtio-gpu-pci" \
	-- "$HERE/vm-demo.sh" --guest "$OUT" ||
	die "the VM run failed, see $OUT/console.log"

say "record summary:"
sed 's/^/  /' "$OUT/record.txt" >&2
say "writing report.txt, jobs.csv and jobs.json"
"$TOOL" report -i "$OUT/trace.dat" --per-ring --topn 5 >"$OUT/report.txt" &&
	"$TOOL" report -i "$OUT/trace.dat" --per-ring --topn 5 --limit 0 \
		>"$OUT/summary.txt" &&
	"$TOOL" report -i "$OUT/trace.dat" --format csv >"$OUT/jobs.csv" &&
	"$TOOL" report -i "$OUT/trace.dat" --format json >"$OUT/jobs.json" &&
	"$TOOL" report -i "$OUT/trace.dat" --per-process --why --limit 0 \
		>"$OUT/interference.txt" ||
	die "grtrace report failed"
say "writing trace.pftrace (open it in ui.perfetto.dev) and timeline.png"
"$TOOL" export -i "$OUT/trace.dat" -o "$OUT/trace.pftrace" ||
	die "grtrace export failed"
# Debian's python3 (python3-matplotlib), whatever python3 comes first.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" "$HERE/scripts/visualize_timeline.py" --grtrace "$TOOL" \
	"$OUT/trace.dat" -o "$OUT/timeline.png" >"$OUT/timeline.txt" ||
	die "visualize_timeline.py failed"
say "writing merged.txt: each job beside the ioctl that submitted it"
python3 "$HERE/scripts/merge_timeline.py" --cpu "$OUT/ioctls.txt" \
	--gpu "$OUT/trace.dat" --output "$OUT/merged.txt" ||
	die "merge_timeline.py failed"
tail -n 2 "$OUT/merged.txt" | sed 's/^/  /' >&2
say "grtrace report --per-ring --topn 5 (job rows: see report.txt, jobs.csv):"
cat "$OUT/summary.txt"
say "who made whom wait (grtrace report --per-process --why; see interference.txt):"
# Each process, then whose jobs its jobs waited behind on their rings.
awk '/^process |^no submitter data/ { p = $0 }
     /^  waited behind/ { print p; print; show = 1; next }
     show && /^    / { print; next }
     { show = 0 }' "$OUT/interference.txt"
grep '^why:' "$OUT/interference.txt"
say "grtrace diff trace.dat trace-slow.dat (the copy jobs 30% longer; all: diff.txt, diff.json):"
"$TOOL" diff -f json "$OUT/trace.dat" "$OUT/trace-slow.dat" >"$OUT/diff.json" ||
	die "grtrace diff failed"
"$TOOL" diff --fail-on regression "$OUT/trace.dat" "$OUT/trace-slow.dat" \
	>"$OUT/diff.txt"
rc=$?
# The header, the flagged lines, and what the rings' busy shares did.
sed -n '1,/^$/p' "$OUT/diff.txt"
grep -e '^!' -e 'busy_pct' "$OUT/diff.txt"
[ $rc -eq 1 ] || die "grtrace diff --fail-on regression exited $rc, not 1: no slowdown flagged"
say "done in $((SECONDS - start)) s; output in $OUT:"
say "  trace.dat report.txt summary.txt jobs.csv jobs.json interference.txt"
say "  trace-slow.dat diff.txt diff.json trace.pftrace"
say "  timeline.png ioctls.txt merged.txt"
say "  record.txt console.log"
