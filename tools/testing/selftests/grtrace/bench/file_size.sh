#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# file_size.sh - bytes per event of a recording: "grtrace record" against
# "trace-cmd record -e gpu_scheduler" of the same real drm_sched workload
# (the virtual GPU's jobs on gpu-sched), both recording at once, in one
# QEMU guest of vmtest.sh.  Two rounds: grtrace's default (zstd) with
# trace-cmd's default file, then grtrace --no-compress with trace-cmd
# --compression any.  A benchmark, not a test: it prints what it measures
# and fails only when it cannot measure.
#
# Usage: file_size.sh [-j JOBS] [-k KVER] [-B]

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../../.." && pwd)
KODIR=$TOP/drivers/gpu/grtrace
TOOL=$TOP/tools/grtrace/grtrace
JOBS=15000 KVER='' BUILD=1

note() { echo "file_size: $*" >&2; }
die() { note "FAIL: $*"; exit 1; }

# ---------------------------------------------------------------- guest ---

V=/sys/kernel/debug/grtrace_vgpu
TR=/sys/kernel/tracing

# round NAME GRTRACE_ARGS TRACE_CMD_ARGS: both recorders over one workload;
# prints "NAME grtrace BYTES EVENTS" and "NAME trace-cmd BYTES EVENTS".
round() {
	local name=$1 gargs=$2 targs=$3 n=$((JOBS / 3)) tc rec ev tev

	# shellcheck disable=SC2086
	trace-cmd record -q $targs -e gpu_scheduler -o "$OUT/$name.tdat" \
		>"$OUT/$name.tlog" 2>&1 &
	tc=$!
	for _ in $(seq 100); do
		[ "$(cat $TR/events/gpu_scheduler/drm_run_job/enable)" = 1 ] &&
			[ "$(cat $TR/tracing_on)" = 1 ] && break
		sleep 0.1
	done
	# shellcheck disable=SC2086
	"$TOOL" record $gargs -o "$OUT/$name.gdat" 2>"$OUT/$name.glog" &
	rec=$!
	for _ in $(seq 100); do
		grep -q started /sys/kernel/debug/grtrace/control && break
		sleep 0.1
	done
	printf 'gfx 0 %d 0\ncompute 1 %d 0 dep=gfx:0\ncopy 2 %d 0\n' \
		"$n" "$n" "$n" >"$V/submit" && cat "$V/wait" >/dev/null ||
		die "the workload failed"
	sleep 0.5
	kill -INT "$rec" && wait "$rec" || die "grtrace record failed: $(cat "$OUT/$name.glog")"
	kill -INT "$tc" && wait "$tc" || die "trace-cmd record failed: $(cat "$OUT/$name.tlog")"
	ev=$(sed -n 's/.*records (\([0-9]*\) events).*/\1/p' "$OUT/$name.glog")
	tev=$(trace-cmd report -i "$OUT/$name.tdat" 2>/dev/null | grep -c ' drm_')
	grep -q 'dropped: 0$' "$OUT/$name.glog" || note "$name: grtrace dropped events"
	echo "$name grtrace $(stat -c %s "$OUT/$name.gdat") $ev"
	echo "$name trace-cmd $(stat -c %s "$OUT/$name.tdat") $tev"
}

guest() {
	OUT=$GRTRACE_OUT
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	mountpoint -q $TR || mount -t tracefs none $TR
	modprobe gpu-sched && insmod "$KODIR/grtrace.ko" &&
		insmod "$KODIR/adapters/grtrace_drm_bridge.ko" &&
		insmod "$KODIR/tests/grtrace_vgpu.ko" || die "cannot load the modules"
	{
		round default "" ""
		round other "--no-compress" "--compression any"
	} >"$OUT/sizes.txt"
	awk -v jobs="$JOBS" '
		{ b[$1, $2] = $3; e[$1, $2] = $4 }
		function row(r, who, label,   per) {
			per = b[r, who] / e[r, who]
			printf "%-34s %10d bytes %7d events %6.1f bytes/event", label, b[r, who], e[r, who], per
			if (who == "grtrace")
				printf "   %.2f x trace-cmd", per / (b[r, "trace-cmd"] / e[r, "trace-cmd"])
			printf "\n"
		}
		END {
			printf "workload: %d jobs of the virtual GPU on drm_sched, both recorders at once\n", jobs
			row("default", "trace-cmd", "trace-cmd record (default file)")
			row("default", "grtrace", "grtrace record (zstd, default)")
			row("other", "trace-cmd", "trace-cmd record --compression any")
			row("other", "grtrace", "grtrace record --no-compress")
		}' "$OUT/sizes.txt"
}

# ----------------------------------------------------------------- host ---

if [ "${1:-}" = --guest ]; then
	JOBS=$2
	guest
	exit
fi

while getopts 'j:k:Bh' opt; do
	case $opt in
	j) JOBS=$OPTARG ;;
	k) KVER=$OPTARG ;;
	B) BUILD=0 ;;
	*) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done

# shellcheck source=../setup.sh
. "$HERE/../setup.sh"
WANT_KVER=$KVER
grtrace_setup || die "setup failed"
KVER=${WANT_KVER:-$KVER}
if [ $BUILD = 1 ]; then
	make -C "$KODIR" KDIR="/lib/modules/$KVER/build" >/dev/null &&
		make -C "$TOP/tools/grtrace" >/dev/null ||
		die "building failed"
fi
OUT=$(mktemp -d /tmp/grtrace-size.XXXXXX)
"$HERE/../vmtest.sh" -k "$KVER" -o "$OUT" -t 3600 -- \
	"$HERE/file_size.sh" --guest "$JOBS" || die "the VM run failed (see $OUT)"
note "files and logs in $OUT"
