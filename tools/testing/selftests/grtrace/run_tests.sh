#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh - the whole grtrace test suite, from a fresh Debian 12 machine:
# static checks of the kernel code, the tools' host tests (plain and under
# ASan+UBSan), then the kselftests inside a QEMU guest running Debian's
# kernel.  Every check is one TAP line; the last line is "N passed, N failed".
#
# Usage: run_tests.sh [-o OUTDIR]

set -u -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../.." && pwd)
OUT=''

while getopts 'o:h' opt; do
	case $opt in
	o) OUT=$OPTARG ;;
	*) sed -n '3,9p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
OUT=${OUT:-$(mktemp -d /tmp/grtrace-tests.XXXXXX)}
mkdir -p "$OUT"

# shellcheck source=setup.sh
. "$HERE/setup.sh"
grtrace_setup || { echo "0 passed, 1 failed"; exit 1; }

PASS=0 FAIL=0 SKIP=0 N=0

say() { printf 'run_tests: %s\n' "$*" >&2; }

# result NAME STATUS [LOGFILE]: one TAP line; the log's tail on failure.
result() {
	N=$((N + 1))
	if [ "$2" -eq 0 ]; then
		PASS=$((PASS + 1))
		echo "ok $N - $1"
	else
		FAIL=$((FAIL + 1))
		echo "not ok $N - $1"
		[ -n "${3:-}" ] && [ -f "$3" ] && tail -n 25 "$3" | sed 's/^/#   /'
	fi
}

# tap LOGFILE PREFIX: re-number the TAP results of a sub-suite into ours.
tap() {
	local line name

	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*)
			N=$((N + 1)); SKIP=$((SKIP + 1))
			echo "ok $N - $2${line#ok [0-9]*[ -]}" ;;
		"ok "*)
			N=$((N + 1)); PASS=$((PASS + 1))
			name=${line#ok }; name=${name#* }; name=${name#- }
			echo "ok $N - $2$name" ;;
		"not ok "*)
			N=$((N + 1)); FAIL=$((FAIL + 1))
			name=${line#not ok }; name=${name#* }; name=${name#- }
			echo "not ok $N - $2$name" ;;
		esac
	done < "$1"
}

# expect_tap LOGFILE PREFIX MIN: a sub-suite that printed fewer than MIN
# results did not run (crash, build failure): that is a failure too.
expect_tap() {
	local got

	got=$(grep -cE '^(not )?ok ' "$1")
	tap "$1" "$2"
	[ "$got" -ge "$3" ] ||
		result "$2 ran $got of at least $3 tests" 1 "$1"
}

echo "TAP version 13"
cd "$TOP" || exit 1

say "building kernel modules against $KVER (W=1)"
make -C drivers/gpu/grtrace KDIR="$KDIR" clean >/dev/null 2>&1
make -C drivers/gpu/grtrace KDIR="$KDIR" W=1 C=2 >"$OUT/kbuild.log" 2>&1
rc=$?
result "kernel modules build" $rc "$OUT/kbuild.log"
grep -E 'warning:|error:' "$OUT/kbuild.log" | grep -v '^make' >"$OUT/kwarn.log"
result "kernel modules: no W=1 or sparse warnings" \
	"$([ -s "$OUT/kwarn.log" ] && echo 1 || echo 0)" "$OUT/kwarn.log"

say "checkpatch --strict"
: >"$OUT/checkpatch.log"
for f in drivers/gpu/grtrace/*.[ch] include/linux/grtrace.h \
	 include/uapi/linux/grtrace.h; do
	case $f in *.mod.c) continue ;; esac
	perl "$KSRC/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types -f "$f" >>"$OUT/checkpatch.log" 2>&1
done
grep -E 'ERROR|WARNING|CHECK' "$OUT/checkpatch.log" >"$OUT/checkpatch.bad"
result "checkpatch --strict clean" \
	"$([ -s "$OUT/checkpatch.bad" ] && echo 1 || echo 0)" "$OUT/checkpatch.bad"

say "in-tree build: Kconfig and Makefile hooks in Debian's kernel source"
"$HERE/intree_build.sh" "$KSRC" "$KVER" "$OUT" >"$OUT/intree.err" 2>&1
result "in-tree build (CONFIG_GRTRACE=m, M=drivers/gpu/grtrace, W=1)" $? \
	"$OUT/intree.err"
INTREE_KO=$(ls -d "$GRTRACE_CACHE/intree-$(basename "$KSRC")"-p*/drivers/gpu/grtrace/grtrace.ko 2>/dev/null | tail -n1)

say "drm_bridge: the 6.17+ tracepoint set, against a stand-in header"
"$HERE/stable_tp_build.sh" "$KDIR" >"$OUT/stable-tp.log" 2>&1
rc=$?
expect_tap "$OUT/stable-tp.log" "stable tracepoints: " 3
result "stable tracepoints: stable_tp_build.sh exit status" $rc "$OUT/stable-tp.log"

say "tools: build and host tests"
make -C tools/grtrace clean >/dev/null 2>&1
make -C tools/grtrace >"$OUT/tools-build.log" 2>&1
rc=$?
grep -q 'warning:' "$OUT/tools-build.log" && rc=1
result "tools build without warnings" $rc "$OUT/tools-build.log"
make -C tools/grtrace check >"$OUT/tools-check.log" 2>&1
rc=$?
expect_tap "$OUT/tools-check.log" "tools: " 1
result "tools: make check exit status" $rc "$OUT/tools-check.log"
make -C tools/grtrace clean >/dev/null 2>&1
make -C tools/grtrace SAN=1 check >"$OUT/tools-san.log" 2>&1
result "tools: host tests under ASan+UBSan" $? "$OUT/tools-san.log"
make -C tools/grtrace clean >/dev/null 2>&1
make -C tools/grtrace >/dev/null 2>&1

say "selftests: the drm_sched comparison's own checks"
python3 "$HERE/sched_compare.py" --self-test >"$OUT/sched-compare.log" 2>&1
rc=$?
expect_tap "$OUT/sched-compare.log" "" 6
result "sched_compare.py --self-test exit status" $rc "$OUT/sched-compare.log"

say "README: the build commands, on the host"
"$HERE/readme_test.sh" --host >"$OUT/readme-host.log" 2>&1
rc=$?
expect_tap "$OUT/readme-host.log" "" 1
result "README: host commands exit status" $rc "$OUT/readme-host.log"

say "selftests: build"
make -C "$HERE" KSFT_DIR="$KSRC/tools/testing/selftests" \
	>"$OUT/ksft-build.log" 2>&1
result "kselftests build" $? "$OUT/ksft-build.log"

say "selftests: running in a QEMU guest on $KVER"
"$HERE/vmtest.sh" -k "$KVER" -o "$OUT/vm" -t 1500 -q "-device virtio-gpu-pci" \
	-- "$HERE/guest_tests.sh" "$INTREE_KO" \
	>"$OUT/vm.log" 2>"$OUT/vm.err"
rc=$?
expect_tap "$OUT/vm.log" "vm: " 100
result "vm: guest ran clean (no panic, Oops, WARN, lockup or timeout)" $rc \
	"$OUT/vm.err"

say "selftests: timestamps against trace-cmd, 1 vCPU under icount"
# The guest's clock counts its instructions (1 ns each): what lies between
# grtrace's stamp and ftrace's is guest work, not the emulator's scheduling.
# RCU's callbacks run in threads, not between two probes (timestamps_test.sh).
"$HERE/vmtest.sh" -k "$KVER" -o "$OUT/vm-icount" -t 900 -c 1 \
	-a "rcutree.use_softirq=0" -q "-icount shift=0,sleep=off" \
	-- "$HERE/timestamps_test.sh" \
	>"$OUT/vm-icount.log" 2>"$OUT/vm-icount.err"
rc=$?
expect_tap "$OUT/vm-icount.log" "vm-icount: " 10
result "vm-icount: guest ran clean (no panic, Oops, WARN, lockup or timeout)" \
	$rc "$OUT/vm-icount.err"

say "main job: tools/grtrace/vm-demo.sh"
demo_ok() {
	local f

	for f in trace.dat report.txt summary.txt jobs.csv jobs.json record.txt; do
		[ -s "$OUT/demo/$f" ] || { echo "no $f"; return 1; }
	done
	grep -E '^  bottleneck: ring [0-9]+ vgpu0-copy is saturated' \
		"$OUT/demo/summary.txt" || { echo "copy not named"; return 1; }
	[ "$(grep -c '^  bottleneck:' "$OUT/demo/summary.txt")" = 1 ] ||
		{ echo "another ring named a bottleneck"; return 1; }
	# The copy ring runs 50 ms jobs: the report's t_exec must say so.
	python3 -c 'import json, statistics, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
ex = [j["t_exec"] for j in jobs if j["ring_name"] == "vgpu0-copy"]
med = statistics.median(ex) if ex else 0
print("copy jobs", len(ex), "median t_exec", med, "ns")
sys.exit(0 if len(ex) == 160 and 49e6 <= med <= 55e6 else 1)' "$OUT/demo/jobs.json"
}
"$TOP/tools/grtrace/vm-demo.sh" -o "$OUT/demo" >"$OUT/demo.log" 2>&1
result "main job: vm-demo.sh runs" $? "$OUT/demo.log"
demo_ok >>"$OUT/demo.log" 2>&1
result "main job: artefacts, the saturated copy ring named, its 50 ms t_exec" \
	$? "$OUT/demo.log"

say "logs in $OUT"
if [ "$SKIP" -gt 0 ]; then
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
else
	echo "$PASS passed, $FAIL failed"
fi
[ "$FAIL" -eq 0 ]
