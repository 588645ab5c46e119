#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series_test.sh [--no-vm] [--docs] - the RFC series for dri-devel, checked
# the way a maintainer would: tools/grtrace/series/grtrace-series.sh writes
# it against the newest Linux 7.x source of Debian's trixie-backports
# (setup.sh), then
#  - git am of the whole series onto a git tree of that unpacked source;
#  - one patch at a time, the directories it touches build with Debian's
#    configuration of that kernel (modules_prepare and M= builds, in the
#    trixie root), W=1, without a warning;
#  - the tree's own scripts/checkpatch.pl --strict on every patch: no
#    error, warning or check; scripts/kernel-doc -none -Wall on the new
#    and moved files;
#  - with --docs, make SPHINXDIRS=gpu htmldocs: no warning naming a file
#    of the series;
#  - in a QEMU guest on that kernel (unless --no-vm): the series'
#    gpu-sched.ko and grtrace modules load in place of Debian's, the
#    bridge registers typed probes on the exported events, the kselftests
#    of the series pass, and a virtual GPU workload gives the same
#    drm_sched jobs in grtrace's stream as in ftrace's (sched_compare.py).
# Nothing here needs the network once setup.sh has run.  TAP output.

set -u -o pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../.." && pwd)
VM=1 DOCS=0
for a in "$@"; do
	case $a in
	--no-vm) VM=0 ;;
	--docs) DOCS=1 ;;
	*) echo "usage: ${0##*/} [--no-vm] [--docs]" >&2; exit 2 ;;
	esac
done

N=0 FAILED=0
ok() {
	N=$((N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $N - $2"
	else
		echo "not ok $N - $2"
		FAILED=$((FAILED + 1))
		[ -n "${3:-}" ] && [ -s "$3" ] && tail -n 20 "$3" | sed 's/^/# /'
	fi
}
note() { echo "# $*"; }

PLAN=$((19 + DOCS + VM * 6))
echo "TAP version 13"
echo "1..$PLAN"

# shellcheck source=setup.sh
. "$HERE/setup.sh"
grtrace_setup 7 >/tmp/series-setup.$$.log 2>&1 ||
	{ echo "Bail out! setup of the Linux 7.x kernel failed"; cat /tmp/series-setup.$$.log >&2; exit 1; }
rm -f /tmp/series-setup.$$.log
# checkpatch runs scripts/spdxcheck.py, which wants ply and GitPython:
# Debian's python3 has them, wherever another python3 comes first in PATH.
grtrace_apt_install unifdef git python3-ply python3-git >/dev/null 2>&1 ||
	{ echo "Bail out! cannot install unifdef, python3-ply, python3-git"; exit 1; }
ROOT=$(grtrace_trixie_root)
# A whole source tree's modules_prepare runs python3 scripts, which the
# headers' build does not, and
# headers_install rsync.
[ -x "$ROOT/usr/bin/python3" ] && [ -x "$ROOT/usr/bin/rsync" ] ||
	chroot "$ROOT" sh -c "DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
		--no-install-recommends python3-minimal rsync" >/dev/null 2>&1 ||
	{ echo "Bail out! cannot install python3 and rsync in $ROOT"; exit 1; }
note "kernel $KVER, source $KSRC"

OUT=${GRTRACE_OUT:-$(mktemp -d /tmp/grtrace-series.XXXXXX)}
S=$OUT/series
W=$OUT/work
rm -rf "$S" "$W"
mkdir -p "$W"

# ---- the series -------------------------------------------------------------
"$TOP/tools/grtrace/series/grtrace-series.sh" "$KSRC" "$S" >"$W/gen.log" 2>&1
ok $? "grtrace-series.sh writes the series against $(basename "$KSRC")" "$W/gen.log"
PATCHES=$(ls "$S"/0*.patch 2>/dev/null | grep -v 0000-cover-letter)
[ "$(echo "$PATCHES" | grep -c .)" = 6 ] && [ -s "$S/0000-cover-letter.patch" ]
ok $? "a cover letter and 6 patches, named as git format-patch --cover-letter names them"
who="$(git -C "$TOP" config user.name) <$(git -C "$TOP" config user.email)>"
bad=0
for p in $PATCHES; do
	grep -qxF "Signed-off-by: $who" "$p" || { note "no sign-off of $who: $p"; bad=1; }
done
ok $bad "every patch signed off by the git identity of whoever runs it ($who)"
! grep -l 'SUBJECT HERE\|BLURB HERE\|{[a-z_]*}' "$S/0000-cover-letter.patch" &&
	grep -q 'ns where an' "$S/0000-cover-letter.patch" &&
	grep -q 'Why not trace events, BPF and Perfetto' "$S/0000-cover-letter.patch" &&
	grep -q 'Why debugfs, and a uapi header' "$S/0000-cover-letter.patch"
ok $? "the cover letter: its figures filled in, and the reviewers' first two questions answered"
# Code, not comments: the kernel API forms of older kernels, the lookup of
# tracepoints by name.
awk '/^diff --git / { code = $NF ~ /(\.[ch]|Makefile|Kconfig)$/ } code' $PATCHES |
	grep -E '^\+.*(GRTRACE_HAVE_|grtrace_compat|GRTRACE_DRIVER_ABSENT|GRTRACE_ATTACH_BY_NAME|for_each_kernel_tracepoint|tracepoint_module_notifier)' |
	grep -vE '^\+[[:space:]]*(/\*|\*)' >"$W/oot.log"
[ ! -s "$W/oot.log" ]
ok $? "no out-of-tree compatibility code in the series (by-name attach, older kernels' API)" "$W/oot.log"
awk 'length > 75 && !/^(diff|index|---|\+\+\+|[-+ @]|Signed-off-by|From:|Subject:)/' \
	$PATCHES >"$W/long.log"
[ ! -s "$W/long.log" ]
ok $? "commit messages wrapped at 75 columns" "$W/long.log"
"$TOP/tools/grtrace/series/grtrace-series.sh" "$KSRC" "$S" >"$W/again.log" 2>&1
[ $? = 2 ] && grep -q 'not empty' "$W/again.log"
ok $? "an OUTDIR that is not empty is refused, exit 2" "$W/again.log"

# ---- a git tree of the unpacked source (cached) ---------------------------
GIT=$GRTRACE_CACHE/series-git-$(basename "$KSRC")
if [ ! -e "$GIT/.grtrace-complete" ]; then
	note "making the git tree $GIT (once)"
	rm -rf "$GIT"
	cp -al "$(readlink -f "$KSRC")" "$GIT" && rm -f "$GIT/.grtrace-complete" &&
		git -C "$GIT" init -q && git -C "$GIT" -c core.compression=1 add -A -f &&
		git -C "$GIT" -c user.name=grtrace -c user.email=grtrace@localhost \
			commit -q -m "linux-source $(basename "$KSRC")" &&
		git -C "$GIT" tag base && touch "$GIT/.grtrace-complete" ||
		{ echo "Bail out! cannot make the git tree $GIT"; exit 1; }
fi
gitk() { git -C "$GIT" -c user.name=grtrace -c user.email=grtrace@localhost "$@"; }
gitk am --abort >/dev/null 2>&1
gitk checkout -q -f base && gitk clean -q -fdx -e .grtrace-complete
gitk am -q $PATCHES >"$W/am.log" 2>&1
ok $? "git am of the whole series onto the git tree of $(basename "$KSRC")" "$W/am.log"

# ---- one patch at a time: build what it touches ---------------------------
# Debian's configuration of that kernel, as intree_build.sh prepares it.
gitk checkout -q -f base && gitk clean -q -fdx -e .grtrace-complete
cp "/boot/config-$KVER" "$GIT/.config"
"$GIT/scripts/config" --file "$GIT/.config" --set-str SYSTEM_TRUSTED_KEYS "" \
	--set-str SYSTEM_REVOCATION_KEYS "" --set-str BUILD_SALT "" \
	--disable MODULE_SIG_ALL
cp "/lib/modules/$KVER/build/Module.symvers" "$GIT/Module.symvers"
# kmake: make in the trixie root, in the git tree, with the compiler that
# built the kernel (Debian's CONFIG_CC_VERSION_TEXT: "gcc-14 (Debian ...").
KCC=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "/boot/config-$KVER")
kmake() { (cd "$GIT" && $KMAKE KERNELRELEASE="$KVER" CC="$KCC" HOSTCC="$KCC" "$@"); }
kmake -s olddefconfig >"$W/prep.log" 2>&1 &&
	kmake -s -j"$(nproc)" modules_prepare >>"$W/prep.log" 2>&1
ok $? "Debian's configuration of $KVER: olddefconfig and modules_prepare" "$W/prep.log"
i=0
for p in $PATCHES; do
	i=$((i + 1))
	log=$W/build-$i.log
	: >"$log"
	gitk am -q "$p" >>"$log" 2>&1 || { ok 1 "patch $i applies" "$log"; continue; }
	rc=0
	if [ -e "$GIT/drivers/gpu/grtrace/Kconfig" ] &&
	   ! grep -q '^CONFIG_GRTRACE=m' "$GIT/.config"; then
		"$GIT/scripts/config" --file "$GIT/.config" --module GRTRACE
	fi
	if grep -q '^config GRTRACE_DRM_BRIDGE' "$GIT/drivers/gpu/grtrace/Kconfig" 2>/dev/null &&
	   ! grep -q '^CONFIG_GRTRACE_DRM_BRIDGE=m' "$GIT/.config"; then
		"$GIT/scripts/config" --file "$GIT/.config" --module GRTRACE_DRM_BRIDGE
	fi
	# What the patch touches, and what includes it, is built.
	files=$(gitk show --name-only --format= HEAD)
	dirs=
	if grep -q '^drivers/gpu/grtrace/Kconfig$' <<<"$files"; then
		kmake -s olddefconfig >>"$log" 2>&1 &&
			kmake -s -j"$(nproc)" modules_prepare >>"$log" 2>&1 || rc=1
	fi
	grep -qE '^(drivers/gpu/drm/scheduler/|include/trace/events/gpu_scheduler.h)' <<<"$files" &&
		dirs="$dirs drivers/gpu/drm/scheduler"
	[ -e "$GIT/drivers/gpu/grtrace/Makefile" ] &&
		grep -qE '^(drivers/gpu/grtrace/|include/(uapi/)?linux/grtrace.h|include/trace/events/gpu_scheduler.h)' <<<"$files" &&
		dirs="$dirs drivers/gpu/grtrace"
	# The scheduler's exports, once built, for grtrace's modpost.
	extra=$GIT/drivers/gpu/drm/scheduler/Module.symvers
	for d in $dirs; do
		kmake -j"$(nproc)" W=1 M="$d" \
			${extra:+KBUILD_EXTRA_SYMBOLS="$(ls "$extra" 2>/dev/null)"} \
			modules >>"$log" 2>&1 || rc=1
	done
	if grep -q '^tools/testing/selftests/grtrace/' <<<"$files"; then
		dirs="$dirs tools/testing/selftests/grtrace"
		# Built as the guest runs them: the host's compiler and C
		# library, the tree's uapi headers.
		kmake -s headers_install >>"$log" 2>&1 &&
			make -C "$GIT/tools/testing/selftests/grtrace" >>"$log" 2>&1 || rc=1
		# The vectors are the document's, as generated here.
		dirs="$dirs, golden/gen_golden.py --check"
		python3 "$GIT/tools/testing/selftests/grtrace/golden/gen_golden.py" \
			--check >>"$log" 2>&1 || rc=1
	fi
	if grep -q '^Documentation/' <<<"$files"; then
		dirs="$dirs Documentation (kernel-doc directives)"
		for rst in $(grep '^Documentation/.*\.rst$' <<<"$files"); do
			grep -o 'kernel-doc:: *[^ ]*' "$GIT/$rst" |
				awk '{ print $2 }' | sort -u | while read -r f; do
					[ -e "$GIT/$f" ] ||
						echo "error: $f, named in $rst, is not in the tree"
				done
		done >>"$log"
	fi
	dirs=${dirs# }
	[ -n "$dirs" ] || { dirs=nothing; rc=1; }
	grep -E 'warning:|error:' "$log" | grep -v '^make' >"$log.bad" && rc=1
	ok $rc "patch $i: $(sed -n 's/^Subject: \[[^]]*\] //p' "$p" | head -c 60): builds ($dirs), W=1, no warning" "$log"
done
gitk diff --quiet HEAD && [ -z "$(gitk status --porcelain --untracked-files=no)" ]
ok $? "the tree after the series is the commits' and nothing else"
rc=0
for ko in drivers/gpu/drm/scheduler/gpu-sched.ko drivers/gpu/grtrace/grtrace.ko \
	  drivers/gpu/grtrace/adapters/grtrace_drm_bridge.ko; do
	modinfo -F vermagic "$GIT/$ko" 2>/dev/null | grep -q "^$KVER " ||
		{ note "no $ko for $KVER"; rc=1; }
done
ok $rc "gpu-sched.ko, grtrace.ko and grtrace_drm_bridge.ko built in the tree for $KVER"

# ---- checkpatch and kernel-doc ----------------------------------------------
: >"$W/checkpatch.log"
for p in $PATCHES; do
	PATH=/usr/bin:$PATH perl "$GIT/scripts/checkpatch.pl" --strict --terse \
		--show-types --root="$GIT" "$p" >>"$W/checkpatch.log" 2>&1
done
grep -E 'ERROR|WARNING|CHECK' "$W/checkpatch.log" >"$W/checkpatch.bad"
[ ! -s "$W/checkpatch.bad" ]
ok $? "checkpatch.pl --strict of $(basename "$KSRC") on every patch: no error, warning or check" "$W/checkpatch.bad"
(cd "$GIT" && scripts/kernel-doc -none -Wall drivers/gpu/grtrace/*.[ch] \
	drivers/gpu/grtrace/adapters/*.[ch] include/linux/grtrace.h \
	include/uapi/linux/grtrace.h include/trace/events/gpu_scheduler.h) >"$W/kdoc.log" 2>&1
[ $? = 0 ] && [ ! -s "$W/kdoc.log" ]
ok $? "scripts/kernel-doc -none -Wall: the new and moved files clean" "$W/kdoc.log"

if [ $DOCS = 1 ]; then
	grtrace_apt_install python3-sphinx python3-yaml >/dev/null 2>&1
	(cd "$GIT" && make SPHINXDIRS=gpu htmldocs) >"$W/htmldocs.log" 2>&1
	rc=$?
	# Paths relative to the tree: the tree's own path may say grtrace.
	sed "s|$GIT/||g" "$W/htmldocs.log" | grep -iE 'warning|error' |
		grep -E '(Documentation/gpu/|^)grtrace[:.]|drivers/gpu/grtrace/|linux/grtrace\.h|gpu_scheduler\.h' \
		>"$W/htmldocs.bad"
	[ $rc = 0 ] && [ ! -s "$W/htmldocs.bad" ]
	ok $? "make SPHINXDIRS=gpu htmldocs: no warning naming a file of the series" "$W/htmldocs.log"
fi

# ---- in the guest -------------------------------------------------------------
if [ $VM = 1 ]; then
	# The virtual GPU (a test module, not in the series) built out of
	# tree in a copy, where the guest sees it.
	# Built in a copy under $W (the build root sees /tmp), then put
	# where the guest sees it.
	OOT=$GRTRACE_CACHE/series-oot
	rm -rf "$OOT" "$W/oot" && mkdir -p "$OOT" "$W/oot" &&
		cp -r "$TOP/drivers" "$TOP/include" "$W/oot/" &&
		find "$W/oot" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \) -delete &&
		(cd "$W/oot/drivers/gpu/grtrace" && $KMAKE KDIR="$KDIR" >"$W/oot.log" 2>&1) &&
		cp "$W/oot/drivers/gpu/grtrace/tests/grtrace_vgpu.ko" "$OOT/" &&
		make -C "$TOP/tools/grtrace" >"$W/tools.log" 2>&1 ||
		note "the virtual GPU or the tools did not build"
	"$HERE/vmtest.sh" -k "$KVER" -o "$W/vm" -t 1200 -- \
		"$HERE/series_guest.sh" "$GIT" "$OOT/grtrace_vgpu.ko" \
		>"$W/vm.log" 2>"$W/vm.err"
	rc=$?
	sed -n 's/^\(not \)\{0,1\}ok [0-9]* - /&/p' "$W/vm.log" >"$W/vm.tap"
	while IFS= read -r line; do
		case $line in
		"ok "*) ok 0 "guest: ${line#ok * - }" ;;
		"not ok "*) ok 1 "guest: ${line#not ok * - }" "$W/vm.log" ;;
		esac
	done <"$W/vm.tap"
	have=$(grep -c . "$W/vm.tap")
	while [ "$have" -lt 5 ]; do
		ok 1 "guest: a result missing (guest exit $rc)" "$W/vm.err"
		have=$((have + 1))
	done
	"$HERE/vmtest.sh" -V "$W/vm" >/dev/null
	ok $? "guest ran clean (no panic, Oops, WARN, lockup or timeout)" "$W/vm.err"
fi
note "output in $OUT"
echo "# $((N - FAILED)) passed, $FAILED failed"
[ $FAILED = 0 ] && [ $N = $PLAN ]
