#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh - the whole grtrace test suite, from a fresh Debian 12 machine:
# static checks of the kernel code, the tools' host tests (plain and under
# ASan+UBSan), then the kselftests inside a QEMU guest running Debian's
# kernel.  Every check is one TAP line; the last line is "N passed, N failed".
#
# Usage: run_tests.sh [-o OUTDIR] [--kernel KERNEL | --also KERNEL... | --matrix]
#   (none)           the whole suite on Debian 12's stock 6.1 kernel, and
#                    the Debian packages (package_test.sh: on 6.1 and
#                    6.12, and on 7.x when --also 7 is given, after the
#                    other kernels)
#   --kernel KERNEL  the kernel tests only (modules built against KERNEL,
#                    the guest tests on it): stock, rt (6.1 PREEMPT_RT),
#                    6.12, 7 or 7-rt (the newest 7.x of Debian's
#                    trixie-backports, stock or PREEMPT_RT, built in a
#                    trixie root), or debug (stock's source with KASAN, lockdep,
#                    kmemleak and the other checkers: debug_kernel.sh
#                    builds it once, about an hour, then it is cached),
#                    or debug-rt (6.12's source as a PREEMPT_RT kernel
#                    with the same checkers and raw-lock nesting checks)
#   --also KERNEL    the whole suite, and the kernel tests on KERNEL too,
#                    beside it (each in a copy of the tree; the --also
#                    kernels one after the other)
#   --matrix         the whole suite, and the kernel tests on rt, 6.12,
#                    7, 7-rt, debug and debug-rt
#   --guest-only     with --kernel: the guest tests and the suspend
#                    guest (suspend_test.sh) alone, without the
#                    timestamps against trace-cmd and the demo (--also
#                    runs a PREEMPT_RT kernel so, for the CI's time)

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../.." && pwd)
OUT='' MODE=full KERNEL=stock ALSO=() GUEST_ONLY=0

usage() {
	sed -n '3,31p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
	--kernel) [ $# -ge 2 ] || usage; MODE=kernel KERNEL=$2; shift 2 ;;
	--also) [ $# -ge 2 ] || usage; ALSO+=("$2"); shift 2 ;;
	--guest-only) GUEST_ONLY=1; shift ;;
	--matrix) ALSO=(rt 6.12 7 7-rt debug debug-rt); shift ;;
	*) usage ;;
	esac
done
OUT=${OUT:-$(mktemp -d /tmp/grtrace-tests.XXXXXX)}
mkdir -p "$OUT"

# shellcheck source=setup.sh
. "$HERE/setup.sh"
for k in "$KERNEL" "${ALSO[@]}"; do
	grtrace_kernel_pkgs "$k" >/dev/null ||
		{ echo "run_tests: unknown kernel '$k' (stock, rt, 6.12, 7, 7-rt, debug or debug-rt)" >&2; exit 2; }
done
grtrace_setup || { echo "0 passed, 1 failed"; exit 1; }

PASS=0 FAIL=0 SKIP=0 N=0 ATTACH=0 COMPILE=0

say() { printf 'run_tests: %s\n' "$*" >&2; }

# passed NAME: count a pass, and apart those that see no event flow.
passed() {
	PASS=$((PASS + 1))
	case $1 in
	*"[attach-only]"*) ATTACH=$((ATTACH + 1)) ;;
	*"[compile-only]"*) COMPILE=$((COMPILE + 1)) ;;
	esac
}

# result NAME STATUS [LOGFILE]: one TAP line; the log's tail on failure.
result() {
	N=$((N + 1))
	if [ "$2" -eq 0 ]; then
		passed "$1"
		echo "ok $N - $1"
	else
		FAIL=$((FAIL + 1))
		echo "not ok $N - $1"
		[ -n "${3:-}" ] && [ -f "$3" ] && tail -n 25 "$3" | sed 's/^/#   /'
	fi
	[ "$2" -eq 0 ]
}

# merge LOGFILE PREFIX STATUS: a sub-suite's results, re-numbered into
# ours, with a failure for each verdict it lost (tap_merge.py: a short
# run against its plan, a crash, an unexplained exit status), each failure
# followed by what it printed about itself.
merge() {
	local line name

	while IFS= read -r line; do
		# A failure's diagnostics (tap_merge.py), as they came.
		case $line in
		"#"*) echo "$line"; continue ;;
		esac
		N=$((N + 1))
		case $line in
		"ok - "*"# SKIP"*) SKIP=$((SKIP + 1)) ;;
		"ok - "*) passed "$line" ;;
		*) FAIL=$((FAIL + 1)) ;;
		esac
		name=${line#ok - }
		name=${name#not ok - }
		case $line in
		"ok - "*) echo "ok $N - $name" ;;
		*) echo "not ok $N - $name" ;;
		esac
	done < <(python3 "$HERE/tap_merge.py" "$1" "$2" "$3")
}

# guest_clean RC OUTDIR: 0 when vmtest.sh (exit RC, output in OUTDIR) saw
# no kernel problem, timeout or missing exit status: its verdict.  A
# failing test in the guest is not one: merge() has counted it already,
# suite by suite.  RC 124 or 125 is never clean, so that a verdict left
# by an earlier run into OUTDIR cannot stand for a run that did not boot.
guest_clean() {
	[ "$1" -ne 124 ] && [ "$1" -ne 125 ] && "$HERE/vmtest.sh" -V "$2" >/dev/null
}

# icount_tests OUTDIR PREFIX: grtrace's timestamps against trace-cmd's in a
# one-vCPU guest.  Its clock counts its instructions (1 ns each): what lies
# between grtrace's stamp and ftrace's is guest work, not the emulator's
# scheduling.  RCU's callbacks run in threads, not between two probes
# (timestamps_test.sh).
icount_tests() {
	local rc

	"$HERE/vmtest.sh" -k "$KVER" -o "$1" -t 900 -c 1 \
		-a "rcutree.use_softirq=0" -q "-icount shift=0,sleep=off" \
		-- "$HERE/timestamps_test.sh" >"$1.log" 2>"$1.err"
	rc=$?
	merge "$1.log" "$2" $rc
	guest_clean $rc "$1"
	result "$2guest ran clean (no panic, Oops, WARN, lockup or timeout)" \
		$? "$1.err"
}

# suspend_tests OUTDIR PREFIX: real s2idle and S3 while the recorder
# service is armed, in a guest of its own without 9p (suspend_test.sh),
# about 30 s.
suspend_tests() {
	local rc

	"$HERE/suspend_test.sh" --vm "$KVER" "$1" >"$1.log" 2>"$1.err"
	rc=$?
	merge "$1.log" "$2" $rc
	guest_clean $rc "$1"
	result "$2guest ran clean (no panic, Oops, WARN, lockup or timeout)" \
		$? "$1.err"
}

# demo_ok DIR: what vm-demo.sh left in DIR holds the verdicts of the demo.
demo_ok() {
	local f copy

	for f in trace.dat report.txt summary.txt jobs.csv jobs.json \
		 trace.pftrace timeline.png record.txt ioctls.txt merged.txt \
		 trace-slow.dat diff.txt diff.json interference.txt; do
		[ -s "$1/$f" ] || { echo "no $f"; return 1; }
	done
	# The annotator saw the client's 30 resource creations, each linked
	# to the job it made.
	[ "$(grep -c '^[0-9]* cpu ioctl virtgpu_client/[0-9]* DRM_IOCTL_VIRTGPU_RESOURCE_CREATE dur=[0-9]* jobs=' \
		"$1/merged.txt")" = 30 ] || { echo "merged.txt: 30 linked creations"; return 1; }
	# The picture: the copy ring's 160 jobs drawn, it alone saturated.
	grep -E '^ring [0-9]+ vgpu0-copy: 160 jobs, 160 executing bars, 0 never ended, busy [0-9.]+%, saturated yes$' \
		"$1/timeline.txt" || { echo "timeline.png: copy ring"; return 1; }
	[ "$(grep -c 'saturated yes$' "$1/timeline.txt")" = 1 ] ||
		{ echo "timeline.png: another ring saturated"; return 1; }
	grep -E '^  bottleneck: ring [0-9]+ vgpu0-copy is saturated' \
		"$1/summary.txt" || { echo "copy not named"; return 1; }
	[ "$(grep -c '^  bottleneck:' "$1/summary.txt")" = 1 ] ||
		{ echo "another ring named a bottleneck"; return 1; }
	# The interference table the demo printed (its log, DIR.log): the
	# copy ring's jobs queued seconds, and someone's jobs held it.
	copy=$(sed -n 's/^  bottleneck: ring \([0-9]*\) vgpu0-copy is saturated.*/\1/p' \
		"$1/summary.txt")
	sed -n '/^vm-demo: who made whom wait/,/^vm-demo: grtrace diff/p' "$1.log" |
		grep -E "^    .+/[0-9]+ +[0-9.]+ s  (.*  )?ring $copy: [0-9.]+ s( |\$)" ||
		{ echo "no interference table naming seconds on ring $copy in $1.log"; return 1; }
	# The copy ring runs 50 ms jobs: the report's t_exec must say so.
	python3 -c 'import json, statistics, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
ex = [j["t_exec"] for j in jobs if j["ring_name"] == "vgpu0-copy"]
med = statistics.median(ex) if ex else 0
print("copy jobs", len(ex), "median t_exec", med, "ns")
sys.exit(0 if len(ex) == 160 and 49e6 <= med <= 55e6 else 1)' "$1/jobs.json" ||
		return 1
	# The diff of the second run, whose copy jobs ran 65 ms, not 50: the
	# copy ring's t_exec flagged 20 % to 40 % slower, gfx and compute
	# flagged nowhere.
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
c = [x for x in d["comparisons"] if x["group"] == "ring" and
     x["ring"] == "vgpu0-copy" and x["metric"] == "t_exec"]
bad = [(x["ring"], x["metric"]) for x in d["comparisons"]
       if x["group"] == "ring" and x["flagged"] and
       x["ring"] in ("vgpu0-gfx", "vgpu0-compute")]
print("diff: copy t_exec", c and (c[0]["change_pct"], c[0]["flagged"]),
      "flagged on gfx/compute", bad)
sys.exit(0 if len(c) == 1 and c[0]["flagged"] and
         c[0]["direction"] == "slower" and 20 <= c[0]["change_pct"] <= 40
         and not bad else 1)' "$1/diff.json" || { echo "diff.json"; return 1; }
	# The timeline: decoded by protoc; every track's slices nest; the
	# copy ring's 160 jobs with 50 ms exec phases; each job with a
	# submitter has a flow from its thread, one end out, one in.
	protoc --decode=perfetto.protos.Trace -I "$TOP/tools/grtrace/tests" \
		"$TOP/tools/grtrace/tests/perfetto_subset.proto" \
		<"$1/trace.pftrace" >"$1/trace.pftrace.txt" ||
		{ echo "protoc cannot decode trace.pftrace"; return 1; }
	python3 -c 'import statistics, sys
sys.path.insert(0, sys.argv[1])
from export_check import Export, parse_text, one
x = Export(parse_text(open(sys.argv[2]).read()).get("packet", []))
copy = [u for u, t in x.tracks.items()
        if "vgpu0-copy" in one(t, "name", "") and not one(t, "parent_uuid")]
assert len(copy) == 1, "copy ring tracks: %d" % len(copy)
jobs, execs = 0, []
for u, t in x.tracks.items():
    s = x.slices(u)
    if one(t, "parent_uuid") == copy[0] and one(t, "name").startswith("jobs "):
        jobs += sum(1 for n, b, e, d in s if d == 0 and ":" in n)
        execs += [e - b for n, b, e, d in s if n == "exec"]
fl = x.flows().values()
bad = [f for f in fl if sorted(w for *_, w in f) != ["in", "out"]]
subs = sum(1 for f in fl if any(n.startswith("submit ") for _, _, n, _ in f))
med = statistics.median(execs) if execs else 0
print("timeline: copy jobs", jobs, "median exec", med, "ns; flows", len(fl),
      "from submitters", subs, "malformed", len(bad))
sys.exit(0 if jobs == 160 and 49e6 <= med <= 55e6 and subs >= 160 and
         not bad else 1)' "$TOP/tools/grtrace/tests" "$1/trace.pftrace.txt"
}

# kernel_tests KERNEL: build the modules against KERNEL and run the guest
# tests on it, the timestamps against trace-cmd's, real suspend and resume
# in a guest of its own and the demo with its verdicts (the stock kernel's
# run is part of the whole suite).
# debug_guest K/N OUTDIR: part K of N of the guest suites on a debug
# kernel (KVER, vmopts), its exit status in OUTDIR.rc.
debug_guest() {
	"$HERE/vmtest.sh" -k "$KVER" -o "$2" "${vmopts[@]}" \
		-q "-device virtio-gpu-pci" -- "$HERE/guest_tests.sh" --part "$1" \
		>"$2.log" 2>"$2.err"
	echo $? >"$2.rc"
}

kernel_tests() {
	local k=$1 out=$OUT/kernel-$1 rc vmopts p d

	mkdir -p "$out"
	say "kernel $k: installing it and extracting its source"
	grtrace_setup "$k" >"$out/setup.log" 2>&1
	result "$k: kernel installed, its source extracted [compile-only]" $? \
		"$out/setup.log" || return 1
	say "kernel $k: building kernel modules against $KVER (W=1)"
	# shellcheck disable=SC2086 # KMAKE: make, or kmake.sh and its root
	$KMAKE -C drivers/gpu/grtrace KDIR="$KDIR" clean >/dev/null 2>&1
	# shellcheck disable=SC2086
	$KMAKE -C drivers/gpu/grtrace KDIR="$KDIR" W=1 >"$out/kbuild.log" 2>&1
	result "$k: kernel modules build against $KVER [compile-only]" $? \
		"$out/kbuild.log"
	grep -E 'warning:|error:|not built' "$out/kbuild.log" |
		grep -v '^make' >"$out/kwarn.log"
	result "$k: every module built, no W=1 warning [compile-only]" \
		"$([ -s "$out/kwarn.log" ] && echo 1 || echo 0)" "$out/kwarn.log"
	make -C tools/grtrace >"$out/tools-build.log" 2>&1 &&
		make -C "$HERE" KSFT_DIR="$KSRC/tools/testing/selftests" \
			>"$out/ksft-build.log" 2>&1
	result "$k: tools and kselftests build [compile-only]" $? \
		"$out/ksft-build.log"
	# Set up and built: the whole suite's package tests may go on
	# beside this kernel's guests (run_tests.sh --also, below).
	[ -n "${GRTRACE_LANE_MARK:-}" ] && touch "$GRTRACE_LANE_MARK"
	say "kernel $k: the guest tests in a QEMU guest on $KVER"
	# The debug kernel runs several times slower under TCG (KASAN,
	# lockdep, kmemleak): a test may print nothing for minutes.  KASAN's
	# shadow wants memory.  Beside the stock suite's VM and another
	# kernel's, three guests share the host's CPUs: a suite that takes
	# 23 minutes alone (6.1, 2026-11-27) took over 25 there.
	vmopts=(-t 2400 -m 1G)
	case $k in
	debug*)
		# Over two hours in one guest: two guests, half the
		# suites each (guest_tests.sh --part), side by side.
		vmopts=(-t 5400 -s 900 -m 2G)
		debug_guest 1/2 "$out/vm" &
		debug_guest 2/2 "$out/vm2"
		wait $!
		for p in 1 2; do
			d=$out/vm${p#1}
			merge "$d.log" "$k: " 0
			guest_clean "$(cat "$d.rc")" "$d"
			result "$k: guest $p of 2 ran clean (no panic, Oops, WARN, lockup, lockdep, KASAN or atomic-sleep report, or timeout)" \
				$? "$d.err"
		done
		# The debug kernel is too slow under TCG for the rest.
		return 0 ;;
	esac
	"$HERE/vmtest.sh" -k "$KVER" -o "$out/vm" "${vmopts[@]}" \
		-q "-device virtio-gpu-pci" -- "$HERE/guest_tests.sh" \
		>"$out/vm.log" 2>"$out/vm.err"
	rc=$?
	merge "$out/vm.log" "$k: " 0
	guest_clean $rc "$out/vm"
	result "$k: guest ran clean (no panic, Oops, WARN, lockup or timeout)" \
		$? "$out/vm.err"
	# Real suspend, 40 s, in the guest-only lane too: CPU hotplug and
	# the freezer differ most on PREEMPT_RT.
	say "kernel $k: real suspend and resume while armed, a guest without 9p"
	suspend_tests "$out/vm-suspend" "$k: vm-suspend: "
	[ $GUEST_ONLY = 1 ] && return 0
	say "kernel $k: timestamps against trace-cmd, 1 vCPU under icount"
	icount_tests "$out/vm-icount" "$k: vm-icount: "
	say "kernel $k: the main job, vm-demo.sh --kernel $k"
	"$TOP/tools/grtrace/vm-demo.sh" --kernel "$k" -o "$out/demo" \
		>"$out/demo.log" 2>&1
	result "$k: main job: vm-demo.sh --kernel $k runs" $? "$out/demo.log"
	demo_ok "$out/demo" >>"$out/demo.log" 2>&1
	result "$k: main job: the demo's verdicts, as on the stock kernel" $? \
		"$out/demo.log"
}

# finish: the totals, and the suite's exit status.
finish() {
	say "logs in $OUT"
	# Passes that see no event flow, counted apart (their names say which).
	echo "# of the $PASS passes, $ATTACH are attach-only and $COMPILE compile-only" \
		"(builds and static checks); $SKIP tests skipped"
	echo "1..$N"
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
	exit
}

echo "TAP version 13"
cd "$TOP" || exit 1

if [ "$MODE" = kernel ]; then
	kernel_tests "$KERNEL"
	finish
fi

# The other kernels' tests (--also) run beside the stock kernel's, one
# after the other, each in its own copy of the tree, made now before
# anything is built in it: their module builds would collide.  Their
# results are merged at the end, by run_tests.sh --kernel's plan.  For the
# CI's time a PREEMPT_RT kernel runs its guest tests and real suspend
# alone there (--guest-only); run_tests.sh --kernel 7-rt runs the rest too.
# Each kernel leaves kernel-K.built once it is set up and built, and
# kernel-K.rc when it is done (see packages_wait).
#
# The RFC series (series_test.sh, against the 7.x source) runs in this
# lane, right after kernel 7, when --also names 7: it builds in the
# trixie root that kernel 7 sets up, and its guest boots 7.x on the
# host's copy of 7.x's modules, which the packages change (so they wait
# for it).  The stock lane had it last, where it made the suite's
# longest lane longer still (2026-12-06: 63 minutes against 44).
SERIES_IN_LANE=0
case " ${ALSO[*]} " in *" 7 "*) SERIES_IN_LANE=1 ;; esac
also_lane() {
	local k extra

	for k in "${ALSO[@]}"; do
		case $k in *rt) extra=--guest-only ;; *) extra= ;; esac
		# shellcheck disable=SC2086 # none or one option
		GRTRACE_LANE_MARK=$OUT/kernel-$k.built \
			"$OUT/tree-$k/tools/testing/selftests/grtrace/run_tests.sh" \
			--kernel "$k" $extra -o "$OUT/kernel-$k" \
			>"$OUT/kernel-$k.log" 2>"$OUT/kernel-$k.err"
		echo $? >"$OUT/kernel-$k.rc"
		if [ "$k" = 7 ] && [ $SERIES_IN_LANE = 1 ]; then
			run_series
			echo $? >"$OUT/series.rc"
		fi
	done
	# The suite's own plumbing needs nothing built: it ends this lane,
	# the shorter, rather than starting the stock one.
	run_harness
}

# The suite's own plumbing: a lost verdict must fail (and vmtest.sh's on
# the guest).
run_harness() {
	"$HERE/harness_test.sh" --vm "$KVER" >"$OUT/harness.log" 2>&1
	echo $? >"$OUT/harness.rc"
}

# The RFC series for dri-devel against the newest 7.x source: it applies,
# builds at every patch, passes checkpatch and kernel-doc, and its modules
# work in place of Debian's (series_test.sh).  It writes the patches from
# this tree (its git identity signs them), so it runs from here, not from
# a lane's copy.
run_series() {
	"$HERE/series_test.sh" >"$OUT/series.log" 2>"$OUT/series.err"
}

# packages_wait: the package tests share the trixie root (its apt, where
# each 7.x kernel of --also is set up) and the host's copy of 7.x's
# modules (which the 7 kernel's guests and the series' guest load) with
# the --also lane: they start once every 7.x kernel is set up and built,
# and the 7 kernel and the series done; the PREEMPT_RT kernel's guests
# run beside them.
packages_wait() {
	local k

	for k in "${ALSO[@]}"; do
		case $k in 7*) ;; *) continue ;; esac
		while { [ ! -e "$OUT/kernel-$k.rc" ] &&
			{ [ "$k" = 7 ] || [ ! -e "$OUT/kernel-$k.built" ]; } ||
			{ [ "$k" = 7 ] && [ $SERIES_IN_LANE = 1 ] &&
			  [ ! -e "$OUT/series.rc" ]; }; } &&
			kill -0 "$LANE" 2>/dev/null; do
			sleep 5
		done
	done
}

# package_tests: the Debian packages (package_test.sh), on 6.1, on 6.12
# (from its headers alone) and, when the suite runs it, on 7.x.
package_tests() {
	local k="stock 6.12"

	case " ${ALSO[*]} " in *" 7 "*) k="stock 6.12 7" ;; esac
	# shellcheck disable=SC2086 # two or three kernels
	"$HERE/package_test.sh" -o "$OUT/package" $k \
		>"$OUT/package.log" 2>"$OUT/package.err"
	echo $? >"$OUT/package.rc"
}
for k in "${ALSO[@]}"; do
	rm -rf "$OUT/tree-$k" "$OUT/kernel-$k.rc"
	mkdir -p "$OUT/tree-$k" &&
		tar -C "$TOP" --exclude=./.git -cf - . | tar -C "$OUT/tree-$k" -xf - ||
		{ echo "Bail out! cannot copy the tree for kernel $k"; exit 1; }
done
LANE=
if [ ${#ALSO[@]} -gt 0 ]; then
	say "kernels ${ALSO[*]}: their tests start beside these (logs in $OUT/kernel-*.log)"
	also_lane &
	LANE=$!
fi

if [ -z "$LANE" ]; then
	say "the suite's own plumbing: a lost verdict must fail (and vmtest.sh's on the guest)"
	run_harness
fi

say "building kernel modules against $KVER (W=1)"
# The benchmark's module too: bench.sh is not run here, but its module
# is kernel code of this tree like the rest.
BENCH=tools/testing/selftests/grtrace/bench
make -C drivers/gpu/grtrace KDIR="$KDIR" clean >/dev/null 2>&1
make -C "$BENCH" KDIR="$KDIR" clean >/dev/null 2>&1
{ make -C drivers/gpu/grtrace KDIR="$KDIR" W=1 C=2 &&
	make -C "$BENCH" KDIR="$KDIR" W=1 C=2; } >"$OUT/kbuild.log" 2>&1
rc=$?
result "kernel modules build [compile-only]" $rc "$OUT/kbuild.log"
grep -E 'warning:|error:' "$OUT/kbuild.log" | grep -v '^make' >"$OUT/kwarn.log"
result "kernel modules: no W=1 or sparse warnings [compile-only]" \
	"$([ -s "$OUT/kwarn.log" ] && echo 1 || echo 0)" "$OUT/kwarn.log"
# The static per-CPU data of all modules shares a reserve of 8 KiB on
# x86-64: a module that takes much of it makes others fail to load
# (modprobe_test.sh shows it).  The modules a user installs allocate
# theirs; the test modules may not.
find drivers/gpu/grtrace -name '*.ko' ! -path '*/tests/*' | sort |
	while read -r ko; do
		readelf -SW "$ko" | grep -qF '.data..percpu' && echo "$ko"
	done >"$OUT/percpu.log"
result "kernel modules: no static per-CPU data but in the test modules [compile-only]" \
	"$([ -s "$OUT/percpu.log" ] && echo 1 || echo 0)" "$OUT/percpu.log"

say "checkpatch --strict"
: >"$OUT/checkpatch.log"
for f in drivers/gpu/grtrace/*.[ch] drivers/gpu/grtrace/*/*.[ch] include/linux/grtrace.h \
	 include/uapi/linux/grtrace.h "$BENCH"/*.[ch]; do
	case $f in *.mod.c) continue ;; esac
	perl "$KSRC/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types -f "$f" >>"$OUT/checkpatch.log" 2>&1
done
grep -E 'ERROR|WARNING|CHECK' "$OUT/checkpatch.log" >"$OUT/checkpatch.bad"
result "checkpatch --strict clean [compile-only]" \
	"$([ -s "$OUT/checkpatch.bad" ] && echo 1 || echo 0)" "$OUT/checkpatch.bad"

say "in-tree build: Kconfig and Makefile hooks in Debian's kernel source"
"$HERE/intree_build.sh" "$KSRC" "$KVER" "$OUT" >"$OUT/intree.err" 2>&1
result "in-tree build (CONFIG_GRTRACE=m, M=drivers/gpu/grtrace, W=1) [compile-only]" $? \
	"$OUT/intree.err"
INTREE_KO=$(ls -d "$GRTRACE_CACHE/intree-$(basename "$KSRC")-$KVER"-p*/drivers/gpu/grtrace/grtrace.ko 2>/dev/null | tail -n1)

say "drm_bridge: the 6.17+ tracepoint set, against a stand-in header"
"$HERE/stable_tp_build.sh" "$KDIR" >"$OUT/stable-tp.log" 2>&1
rc=$?
merge "$OUT/stable-tp.log" "stable tracepoints: " $rc

say "a new adapter: one file, its Kconfig entry and one Makefile line"
"$HERE/new_adapter_build.sh" "$KDIR" >"$OUT/new-adapter.log" 2>&1
rc=$?
merge "$OUT/new-adapter.log" "new adapter: " $rc

say "tools: build and host tests"
make -C tools/grtrace clean >/dev/null 2>&1
make -C tools/grtrace >"$OUT/tools-build.log" 2>&1
rc=$?
grep -q 'warning:' "$OUT/tools-build.log" && rc=1
result "tools build without warnings [compile-only]" $rc "$OUT/tools-build.log"
make -C tools/grtrace check >"$OUT/tools-check.log" 2>&1
rc=$?
merge "$OUT/tools-check.log" "tools: " $rc
make -C tools/grtrace clean >/dev/null 2>&1
# The fuzz smoke's target is the same in both: run once, above.
GRTRACE_FUZZ_DONE=1 make -C tools/grtrace SAN=1 check >"$OUT/tools-san.log" 2>&1
python3 "$HERE/tap_merge.py" "$OUT/tools-san.log" "" $? >"$OUT/tools-san.tap"
result "tools: host tests under ASan+UBSan, all of them" $? "$OUT/tools-san.tap"
make -C tools/grtrace clean >/dev/null 2>&1
make -C tools/grtrace >/dev/null 2>&1

say "selftests: the drm_sched and flight recorder comparisons' own checks"
python3 "$HERE/sched_compare.py" --self-test >"$OUT/sched-compare.log" 2>&1
rc=$?
merge "$OUT/sched-compare.log" "" $rc
python3 "$HERE/recorder_compare.py" --self-test >"$OUT/recorder-compare.log" 2>&1
rc=$?
merge "$OUT/recorder-compare.log" "" $rc

say "README: the build commands, on the host"
"$HERE/readme_test.sh" --host >"$OUT/readme-host.log" 2>&1
rc=$?
merge "$OUT/readme-host.log" "" $rc

say "selftests: build"
make -C "$HERE" KSFT_DIR="$KSRC/tools/testing/selftests" \
	>"$OUT/ksft-build.log" 2>&1
result "kselftests build [compile-only]" $? "$OUT/ksft-build.log"

# With more possible CPUs than online ones, as most machines' firmware
# reports (hotpluggable sockets, SMT turned off): CPU ids 2 and 3 have
# no buffer and no events file.  The other kernels' guests have as many
# possible CPUs as online ones.
say "selftests: running in a QEMU guest on $KVER (2 CPUs online of 4 possible)"
"$HERE/vmtest.sh" -k "$KVER" -o "$OUT/vm" -t 2400 -a possible_cpus=4 \
	-q "-device virtio-gpu-pci" -- "$HERE/guest_tests.sh" "$INTREE_KO" \
	>"$OUT/vm.log" 2>"$OUT/vm.err"
rc=$?
# The sub-suites' exit statuses are in the log (guest_tests.sh).
merge "$OUT/vm.log" "vm: " 0
guest_clean $rc "$OUT/vm"
result "vm: guest ran clean (no panic, Oops, WARN, lockup or timeout)" $? \
	"$OUT/vm.err"

say "selftests: timestamps against trace-cmd, 1 vCPU under icount"
icount_tests "$OUT/vm-icount" "vm-icount: "

say "selftests: real suspend and resume (s2idle, S3) while armed, a guest without 9p"
suspend_tests "$OUT/vm-suspend" "vm-suspend: "

say "main job: tools/grtrace/vm-demo.sh"
"$TOP/tools/grtrace/vm-demo.sh" -o "$OUT/demo" >"$OUT/demo.log" 2>&1
result "main job: vm-demo.sh runs" $? "$OUT/demo.log"
demo_ok "$OUT/demo" >>"$OUT/demo.log" 2>&1
result "main job: artefacts, the saturated copy ring named, its 50 ms t_exec, its timeline, its interference table" \
	$? "$OUT/demo.log"

# The series, when the --also lane does not run it (see also_lane): after
# the guests above, as it builds in the trixie root.
if [ $SERIES_IN_LANE = 0 ]; then
	say "the RFC series against Linux 7.x (series_test.sh)"
	run_series
	echo $? >"$OUT/series.rc"
fi

if [ -n "$LANE" ]; then
	say "packages: waiting for kernels ${ALSO[*]} to be set up and built (and 7 and the series done)"
	packages_wait
fi
say "packages: grtrace-dkms and grtrace-tools (package_test.sh)"
package_tests
if [ -n "$LANE" ]; then
	say "waiting for the tests of kernels ${ALSO[*]}"
	wait "$LANE"
fi
for k in "${ALSO[@]}"; do
	merge "$OUT/kernel-$k.log" "" "$(cat "$OUT/kernel-$k.rc" 2>/dev/null || echo 125)"
done
merge "$OUT/series.log" "series: " "$(cat "$OUT/series.rc" 2>/dev/null || echo 125)"
merge "$OUT/harness.log" "harness: " "$(cat "$OUT/harness.rc" 2>/dev/null || echo 125)"
merge "$OUT/package.log" "packages: " "$(cat "$OUT/package.rc" 2>/dev/null || echo 125)"
finish
