#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# package_test.sh [-o OUTDIR] [KERNEL...] - the Debian packages, as a user
# gets them (debian/, Documentation/gpu/grtrace.rst "Packages"), on the
# host as root.  KERNEL is stock (Debian 12's 6.1), 6.12 (Debian 12's
# 6.12, headers only) or 7 (the newest 7.x in setup.sh's trixie root);
# all three by default.
#
#  - The README's commands ("On your own machine") build grtrace-dkms and
#    grtrace-tools with dpkg-buildpackage in a copy of the tree (the tree
#    stays clean) and install them with apt-get; lintian finds no error and
#    only the warnings the docs list.
#  - DKMS built and installed the modules for the host's 6.1 (its
#    linux-source is installed: every adapter) and, with the same .deb
#    installed in the trixie root by the root's own apt, for 7.x (its
#    source tarball is not there: the vendor adapters are named as not
#    built, in make.log); and for a kernel whose headers are installed
#    after the package (DKMS's header_postinst hook).  For 6.12 DKMS
#    builds again with linux-source-6.12's tarball out of its sight (a
#    private mount namespace), from the headers package alone: Debian's
#    6.12 has 6.16's scheduler API and 6.1's tracepoint names, which the
#    bridge must not guess from the API.
#  - In a VM on each kernel: modprobe loads the modules DKMS installed
#    (updates/dkms, depmod run by the package), the packaged modprobe.d
#    file once uncommented loads the bridge with gpu_sched, the adapters
#    file names what was not built, and the packaged CLI records the
#    virtual GPU's workload (its test module from the tree's build: it is
#    not packaged) through the bridge, attached to the four gpu_scheduler
#    events the kernel's tracefs lists, with the same per-ring job counts,
#    and nothing lost, as the tree's modules and CLI in the same boot.
#  - apt-get remove (on the host; purge in the root) leaves no grtrace
#    module or file.
# For 7.x the guest sees the host's /lib/modules/7.x, a copy of the root's
# (setup.sh): the DKMS-built modules and the root's depmod indexes are
# copied there for the VM and the copy's own indexes put back afterwards.
# TAP output.

set -u -o pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../.." && pwd)

# --- guest side ----------------------------------------------------------

# vgpu_jobs: the virtual GPU's workload, 10 rounds: 14 gfx, 10 compute
# (each after a gfx job) and 40 copy jobs.
vgpu_jobs() {
	local v=/sys/kernel/debug/grtrace_vgpu tick

	for tick in $(seq 10); do
		printf '%s\n' "gfx 0 1 500" "compute 1 1 300 dep=gfx:0" \
			"copy 2 4 2000" >"$v/submit" || return 1
		[ $((tick % 4)) -eq 0 ] && { echo "gfx 3 2 200" >"$v/submit" || return 1; }
		sleep 0.05
	done
	cat "$v/wait" >/dev/null
}

# record TOOL OUT: the workload recorded by TOOL, its report in OUT.txt.
record() {
	local rec

	"$1" record -o "$2.dat" 2>"$2.rec" &
	rec=$!
	for _ in $(seq 50); do
		grep -q started /sys/kernel/debug/grtrace/control && break
		sleep 0.1
	done
	vgpu_jobs || return 1
	kill -INT $rec
	wait $rec || return 1
	"$1" report -i "$2.dat" --per-ring --limit 0 >"$2.txt" 2>&1
}

# rings FILE: what must be the same: the jobs line and the per-ring counts.
rings() {
	sed -n -e 's/^\(jobs: *[0-9]*\) .*/\1/p' -e 's/^lost: .*/&/p' \
		-e 's/^\(ring [0-9]* vgpu0-[a-z]* ([^)]*)\): \([0-9]* jobs\),.*/\1: \2/p' "$1"
}

guest() {
	local out=$1 kver n=0 fail=0 m conf=$GRTRACE_OUT/modprobe.d
	local EXAMPLE=/usr/share/doc/grtrace-dkms/examples/grtrace-dkms.conf

	kver=$(uname -r)
	t() {
		n=$((n + 1))
		if [ "$1" -eq 0 ]; then echo "ok $n - $kver: $2"
		else echo "not ok $n - $kver: $2"; fail=1; fi
	}
	echo "TAP version 13"
	echo "1..7"
	modprobe virtio_gpu
	# 1: modprobe finds the DKMS-built modules.
	modprobe grtrace && modprobe grtrace_drm_bridge
	rc=$?
	for m in grtrace grtrace_drm_bridge grtrace_aggregator; do
		echo "# $m: $(modinfo -n "$m")"
		case $(modinfo -n "$m") in */updates/dkms/*) ;; *) rc=1 ;; esac
	done
	t $rc "modprobe grtrace grtrace_drm_bridge: the modules from /lib/modules/$kver/updates/dkms"
	# 2: the adapters file, of the packaged core.
	cat /sys/kernel/debug/grtrace/adapters >"$out-adapters.txt"
	sed 's/^/# /' "$out-adapters.txt"
	rc=0
	grep -q '^drm_bridge ' "$out-adapters.txt" || rc=1
	if [ -e "/lib/modules/$kver/updates/dkms/grtrace_i915.ko" ] ||
	   [ -e "/lib/modules/$kver/updates/dkms/grtrace_i915.ko.xz" ]; then
		grep -q '^not built' "$out-adapters.txt" && rc=1
	else
		grep -q '^not built: grtrace_virtio_gpu grtrace_i915 grtrace_amdgpu (no source tree' \
			"$out-adapters.txt" || rc=1
	fi
	t $rc "the adapters file lists the bridge, and names the adapters not built, if any"
	modprobe -r grtrace_aggregator grtrace_sampling grtrace_filter grtrace_drm_bridge grtrace
	# 3: the modprobe.d file, uncommented, loads the bridge with gpu_sched.
	mkdir -p "$conf"
	sed 's/^#softdep gpu_sched /softdep gpu_sched /' \
		"$EXAMPLE" >"$conf/grtrace.conf"
	rc=1
	grep -q '^softdep gpu_sched post: grtrace_drm_bridge' "$conf/grtrace.conf" &&
		! grep -q '^softdep' "$EXAMPLE" &&
		[ ! -e /etc/modprobe.d/grtrace-dkms.conf ] &&
		modprobe -C "$conf" gpu_sched &&
		grep -q '^grtrace_drm_bridge ' /proc/modules && rc=0
	t $rc "the modprobe.d example: nothing in /etc/modprobe.d as shipped; copied and uncommented, modprobe gpu_sched loads grtrace_drm_bridge"
	# 4: the packaged CLI records the virtual GPU (the tree's test module).
	insmod "$TOP/drivers/gpu/grtrace/tests/grtrace_vgpu.ko" &&
		record /usr/bin/grtrace "$out-pkg"
	rc=$?
	sed 's/^/# pkg: /' "$out-pkg.rec"
	rings "$out-pkg.txt" | sed 's/^/# pkg: /'
	[ "$(rings "$out-pkg.txt" | grep -c ' jobs$')" = 3 ] || rc=1
	t $rc "/usr/bin/grtrace records the vgpu's jobs on the DKMS-built modules"
	# 5: through the bridge's four probes, on the events this kernel has
	# (its tracefs, not the bridge, names them).
	cat /sys/kernel/debug/grtrace/adapters >"$out-adapters-rec.txt"
	sed -n 's/^drm_bridge /# after: &/p' "$out-adapters-rec.txt"
	rc=0
	[ "$(grep -c '^drm_bridge .* attached gpu_sched ' "$out-adapters-rec.txt")" = 4 ] || rc=1
	while read -r a m _; do
		[ "$a" = drm_bridge ] || continue
		[ -d "/sys/kernel/tracing/events/gpu_scheduler/$m" ] ||
			{ echo "# $m: no such event in this kernel"; rc=1; }
	done <"$out-adapters-rec.txt"
	awk '$1 == "drm_bridge" && $3 == "attached" && $5 > 0 { n++ } END { exit n != 4 }' \
		"$out-adapters-rec.txt" || rc=1
	t $rc "the bridge: 4 of 4 probes attached to this kernel's gpu_scheduler events, each hit"
	rmmod grtrace_vgpu
	modprobe -r grtrace_drm_bridge grtrace_aggregator grtrace_sampling grtrace_filter grtrace 2>/dev/null
	# 5: the tree's modules and CLI, the same workload.
	insmod "$TOP/drivers/gpu/grtrace/grtrace.ko" &&
		insmod "$TOP/drivers/gpu/grtrace/adapters/grtrace_drm_bridge.ko" &&
		insmod "$TOP/drivers/gpu/grtrace/tests/grtrace_vgpu.ko" &&
		record "$TOP/tools/grtrace/grtrace" "$out-tree"
	t $? "the tree's modules and CLI record the same workload"
	# 6: the same report.
	rings "$out-tree.txt" | sed 's/^/# tree: /'
	[ -n "$(rings "$out-pkg.txt")" ] &&
		[ "$(rings "$out-pkg.txt")" = "$(rings "$out-tree.txt")" ] &&
		grep -q '^lost: *none' "$out-pkg.txt"
	t $? "the packaged CLI and modules report what the tree's do (jobs per ring, nothing lost)"
	rmmod grtrace_vgpu grtrace_drm_bridge grtrace 2>/dev/null
	return $fail
}

if [ "${1:-}" = --guest ]; then
	[ "${GRTRACE_VM:-}" = 1 ] || { echo "--guest runs in the test VM only" >&2; exit 2; }
	guest "$2"
	exit
fi

# --- host side -----------------------------------------------------------

usage() { sed -n '3,37p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
OUT=''
KERNELS=()
while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
	stock|6.12|7) KERNELS+=("$1"); shift ;;
	*) usage ;;
	esac
done
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(stock 6.12 7)
OUT=${OUT:-$(mktemp -d /tmp/grtrace-pkg.XXXXXX)}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
[ "$(id -u)" = 0 ] || { echo "Bail out! run as root"; exit 1; }

N=0 FAILED=0
ok() {
	N=$((N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $N - $2"
	else
		echo "not ok $N - $2"
		FAILED=1
		[ -n "${3:-}" ] && [ -f "$3" ] && tail -n 20 "$3" | sed 's/^/#   /'
	fi
	return "$1"
}
say() { printf 'package_test: %s\n' "$*" >&2; }

# The warnings lintian may give: each is listed, with why, in
# Documentation/gpu/grtrace.rst ("Packages"); none today.
LINTIAN_OK=''
APT=(apt-get -y -qq -o DPkg::Lock::Timeout=900 --no-install-recommends)

# inroot ROOT CMD...: CMD in the build root ROOT with /proc and /dev.
# shellcheck disable=SC2016 # expanded by the inner bash
inroot() {
	unshare --mount --propagation private -- bash -c '
		root=$1; shift
		mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" ||
			exit 125
		exec chroot "$root" /usr/bin/env -i \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			DEBIAN_FRONTEND=noninteractive "$@"' inroot "$@"
}

# without_source SERIES CMD...: CMD with no linux-source-SERIES tarball in
# /usr/src, so that DKMS builds a kernel of that series from its headers
# alone.  A private mount namespace: a tmpfs on /usr/src holding every
# other entry of it, bound (or, for a link, copied) at its own path.
# shellcheck disable=SC2016 # expanded by the inner bash
without_source() {
	local hide=linux-source-$1.tar.xz

	shift
	mkdir -p "$OUT/usr-src" || return 125
	unshare --mount --propagation private -- bash -c '
		hide=$1 real=$2
		shift 2
		mount --bind /usr/src "$real" && mount -t tmpfs grtrace-src /usr/src ||
			exit 125
		for e in "$real"/*; do
			n=${e##*/}
			if [ "$n" = "$hide" ]; then
				continue
			elif [ -L "$e" ]; then
				cp -P "$e" /usr/src/ || exit 125
			elif [ -d "$e" ]; then
				mkdir "/usr/src/$n" && mount --bind "$e" "/usr/src/$n" || exit 125
			else
				: >"/usr/src/$n" && mount --bind "$e" "/usr/src/$n" || exit 125
			fi
		done
		[ ! -e "/usr/src/$hide" ] || exit 125
		exec "$@"' without_source "$hide" "$OUT/usr-src" "$@"
}

# no_grtrace_left [ROOT]: no module, source or DKMS state of grtrace.
no_grtrace_left() {
	local r=${1:-} left

	left=$(ls -d "$r"/lib/modules/*/updates/dkms/grtrace* "$r"/usr/src/grtrace-* \
		"$r"/var/lib/dkms/grtrace "$r"/etc/modprobe.d/grtrace-dkms.conf \
		"$r"/usr/share/doc/grtrace-dkms \
		"$r"/usr/bin/grtrace "$r"/usr/share/grtrace "$r"/usr/lib/grtrace \
		"$r"/usr/lib/python3/dist-packages/grtrace "$r"/usr/include/grtrace \
		"$r"/usr/lib/*/libgrtrace* "$r"/usr/lib/*/pkgconfig/grtrace.pc 2>/dev/null)
	[ -z "$left" ] || { echo "left behind: $left"; return 1; }
	grep -ls grtrace "$r"/lib/modules/*/modules.dep && return 1
	return 0
}

echo "TAP version 13"
# shellcheck source=setup.sh
. "$HERE/setup.sh"
grtrace_setup stock >"$OUT/setup.log" 2>&1 &&
	grtrace_apt_install dkms dh-dkms debhelper lintian dpkg-dev fakeroot \
		>>"$OUT/setup.log" 2>&1
ok $? "setup: the kernel, dkms, debhelper and lintian installed" "$OUT/setup.log" ||
	{ echo "1..$N"; exit 1; }
KVER6=$KVER KDIR6=$KDIR KSRC6=$KSRC
# Debian 12's 6.12, its image and headers only, installed before the
# package so that its postinst builds for it too.
KVER612=''
if [[ " ${KERNELS[*]} " == *" 6.12 "* ]]; then
	# shellcheck disable=SC2046 # two package names
	grtrace_apt_install $(grtrace_kernel_pkgs 6.12) >"$OUT/setup612.log" 2>&1 &&
		KVER612=$(dpkg-query -W -f='${Depends}' linux-image-6.12-amd64 |
			  grep -o 'linux-image-[0-9][^ ,]*-amd64' | head -n1) &&
		KVER612=${KVER612#linux-image-} &&
		[ -e "/boot/vmlinuz-$KVER612" ] && [ -e "/lib/modules/$KVER612/build" ]
	ok $? "setup: Debian 12's 6.12 image and headers (${KVER612:-none})" "$OUT/setup612.log"
fi

# A copy of the tree, where the README's commands run: the tree itself
# must not change.
WORK=$OUT/work
rm -rf "$WORK" && mkdir -p "$WORK/grtrace"
tar -C "$TOP" --exclude=./.git -cf - . | tar -C "$WORK/grtrace" -xf - ||
	{ echo "Bail out! cannot copy the tree"; exit 1; }
# What a build in the tree would leave: debian/'s products, changed files.
tree_state() {
	git -C "$TOP" status --porcelain --untracked-files=all -- debian 2>/dev/null
	git -C "$TOP" diff --stat 2>/dev/null
}
BEFORE=$(tree_state)
make -C "$WORK/grtrace/tools/grtrace" clean >/dev/null 2>&1
find "$WORK/grtrace/drivers" \( -name '*.ko' -o -name '*.o' -o -name '*.mod.c' \) -delete

# The README's block (On your own machine), as root.
python3 - "$TOP/README.md" >"$OUT/readme-block.sh" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
sec = text.split("## On your own machine (Debian/Ubuntu)", 1)[1]
print(re.search(r'^```shell\n(.*?)^```', sec, re.M | re.S).group(1).replace("sudo ", ""))
EOF
ok $? "README: the packages' commands found" || { echo "1..$N"; exit 1; }
sed 's/^/# README: /' "$OUT/readme-block.sh"
say "building and installing the packages (the README's commands)"
# Yes to apt-get's questions, and wait for another apt's lock.
printf 'APT::Get::Assume-Yes "true";\nDPkg::Lock::Timeout "900";\n' >"$OUT/apt.conf"
(cd "$WORK/grtrace" && DEBIAN_FRONTEND=noninteractive \
	APT_CONFIG=$OUT/apt.conf bash -euo pipefail "$OUT/readme-block.sh") \
	</dev/null >"$OUT/readme-block.log" 2>&1
ok $? "README: build-dep, dpkg-buildpackage -b -us -uc, apt-get install of the packages" \
	"$OUT/readme-block.log"
DKMS_DEB=$(ls "$WORK"/grtrace-dkms_*_all.deb 2>/dev/null)
TOOLS_DEB=$(ls "$WORK"/grtrace-tools_*_amd64.deb 2>/dev/null)
VER=$(dpkg-deb -f "$DKMS_DEB" Version 2>/dev/null)
dpkg-deb -c "$DKMS_DEB" >"$OUT/dkms-contents.txt" 2>&1
! grep -q '/tests/\|\.ko$\|\.o$\|\.mod\.c$' "$OUT/dkms-contents.txt" &&
	grep -q "usr/src/grtrace-$VER/dkms.conf" "$OUT/dkms-contents.txt" &&
	[ "$(dpkg-deb -f "$DKMS_DEB" Architecture)" = all ]
ok $? "grtrace-dkms $VER: Architecture all, dkms.conf and sources, no test module, nothing built" \
	"$OUT/dkms-contents.txt"
dpkg-deb -c "$TOOLS_DEB" >"$OUT/tools-contents.txt" 2>&1
for f in usr/bin/grtrace usr/bin/grtrace-bpf-annotate usr/share/man/man1/grtrace.1.gz \
	 usr/share/bash-completion/completions/grtrace usr/share/grtrace/grtrace.magic \
	 usr/share/grtrace/scripts/merge_timeline.py usr/share/grtrace/scripts/parse_events.py \
	 usr/share/grtrace/scripts/visualize_timeline.py \
	 lib/systemd/system/grtrace-recorder.service etc/grtrace/recorder.conf; do
	grep -q " \./$f\$" "$OUT/tools-contents.txt" || echo "missing $f"
done >"$OUT/tools-missing.txt"
ok "$([ -s "$OUT/tools-missing.txt" ] && echo 1 || echo 0)" \
	"grtrace-tools: the CLI, the annotator, the scripts, the man page, the completion, the recorder's unit and config" \
	"$OUT/tools-missing.txt"
# The flight recorder's unit, installed by the package: disabled (offline
# systemctl reads the links), its maintainer scripts never start it, and
# systemd-analyze verify has nothing to say of it.
{ systemctl is-enabled grtrace-recorder.service
  grep -hs 'deb-systemd-invoke.*start' /var/lib/dpkg/info/grtrace-tools.postinst
  systemd-analyze verify --man=no /lib/systemd/system/grtrace-recorder.service; } >"$OUT/unit.txt" 2>&1
[ "$(cat "$OUT/unit.txt")" = disabled ]
ok $? "grtrace-tools installed: grtrace-recorder.service disabled, not started, systemd-analyze verify silent" \
	"$OUT/unit.txt"
[ "$(tree_state)" = "$BEFORE" ] && [ ! -e "$TOP/debian/files" ]
ok $? "the tree is as it was (the packages were built in a copy)"

LIB_DEB=$(ls "$WORK"/libgrtrace1_*_amd64.deb 2>/dev/null)
DEV_DEB=$(ls "$WORK"/libgrtrace-dev_*_amd64.deb 2>/dev/null)
PY_DEB=$(ls "$WORK"/python3-grtrace_*_all.deb 2>/dev/null)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# Each listing to a file first: "dpkg-deb -c | grep -q" under pipefail
# fails when grep, done at its first match, leaves tar a broken pipe.
for d in LIB DEV PY; do
	deb=${d}_DEB
	dpkg-deb -c "${!deb}" >"$OUT/${d,,}-contents.txt" 2>&1
done
{
	grep -q " \./usr/lib/$MA/libgrtrace\.so\.1\$" "$OUT/lib-contents.txt" ||
		echo "libgrtrace1: missing usr/lib/$MA/libgrtrace.so.1"
	for f in usr/include/grtrace/grtrace.h "usr/lib/$MA/libgrtrace.so" \
		 "usr/lib/$MA/libgrtrace.a" "usr/lib/$MA/pkgconfig/grtrace.pc"; do
		grep -q " \./$f" "$OUT/dev-contents.txt" || echo "libgrtrace-dev: missing $f"
	done
	for f in usr/lib/python3/dist-packages/grtrace/__init__.py \
		 usr/lib/python3/dist-packages/grtrace/timeline.py; do
		grep -q " \./$f\$" "$OUT/py-contents.txt" || echo "python3-grtrace: missing $f"
	done
	grep -E 'libgrtrace|dist-packages' "$OUT/tools-contents.txt" | sed 's/^/grtrace-tools has: /'
	[ "$(dpkg-deb -f "$PY_DEB" Architecture)" = all ] || echo "python3-grtrace is not Architecture all"
} >"$OUT/lib-missing.txt" 2>&1
ok "$([ -s "$OUT/lib-missing.txt" ] && echo 1 || echo 0)" \
	"libgrtrace1 (the .so.1), libgrtrace-dev (header, .so link, .a, grtrace.pc), python3-grtrace (the package grtrace, Architecture all); grtrace-tools holds none of them" \
	"$OUT/lib-missing.txt"

lintian "$DKMS_DEB" "$TOOLS_DEB" "$LIB_DEB" "$DEV_DEB" "$PY_DEB" >"$OUT/lintian.log" 2>&1
grep -E '^[EW]: ' "$OUT/lintian.log" | sed 's/^/# lintian: /'
! grep -q '^E: ' "$OUT/lintian.log" &&
	[ "$(grep '^W: ' "$OUT/lintian.log")" = "$LINTIAN_OK" ]
ok $? "lintian: no error and no warning" "$OUT/lintian.log"

# The -dev package as a developer uses it: a C program built with
# pkg-config against the installed header and library, run; the module
# imported by the system's python3 (not another python3 on PATH), and
# the scripts run by it.
"${APT[@]}" install "$DEV_DEB" >"$OUT/dev.log" 2>&1
cat >"$OUT/client.c" <<'EOF_C'
#include <grtrace/grtrace.h>

int main(int argc, char **argv)
{
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	struct grtrace_job job = GRTRACE_JOB_INIT;
	grtrace_trace *t;
	int n = 0;

	if (argc < 2 || grtrace_lib_version() >> 16 != GRTRACE_LIB_VERSION_MAJOR)
		return 2;
	t = grtrace_open(argv[1], &err);
	if (!t)
		return 3;
	while (grtrace_next_job(t, &job, &err) > 0)
		n++;
	grtrace_close(t);
	printf("%d jobs\n", n);
	return 0;
}
EOF_C
SAMPLE=$TOP/tools/grtrace/tests/corpus/report-basic.bin
# shellcheck disable=SC2046 # pkg-config's words
cc -o "$OUT/client" "$OUT/client.c" $(pkg-config --cflags --libs grtrace) >>"$OUT/dev.log" 2>&1 &&
	readelf -d "$OUT/client" | grep -q 'NEEDED.*libgrtrace\.so\.1' &&
	got=$("$OUT/client" "$SAMPLE" 2>>"$OUT/dev.log") &&
	want=$(/usr/bin/grtrace report -i "$SAMPLE" --format csv | tail -n +2 | wc -l) &&
	echo "client: $got, report: $want jobs" >>"$OUT/dev.log" &&
	[ "$got" = "$want jobs" ] && [ "$want" -gt 0 ]
ok $? "libgrtrace-dev: a program built with pkg-config grtrace runs on libgrtrace1 and counts report's jobs" "$OUT/dev.log"
pyout=$(cd / && env -i PATH=/usr/local/bin:/usr/bin:/bin /usr/bin/python3 -c '
import sys, grtrace, grtrace.timeline
with grtrace.Trace(sys.argv[1]) as t:
    print(len(list(t.jobs())), grtrace.__file__)' "$SAMPLE" 2>&1)
echo "$pyout" >"$OUT/py.log"
head -1 /usr/share/grtrace/scripts/parse_events.py >>"$OUT/py.log"
[ "$pyout" = "$want /usr/lib/python3/dist-packages/grtrace/__init__.py" ] &&
	head -1 /usr/share/grtrace/scripts/parse_events.py | grep -Eqx '#! ?/usr/bin/python3' &&
	/usr/share/grtrace/scripts/parse_events.py "$SAMPLE" >/dev/null 2>>"$OUT/py.log"
ok $? "python3-grtrace: the system python3 imports grtrace from dist-packages; the scripts run with #!/usr/bin/python3" "$OUT/py.log"

# DKMS on the host: the package's postinst built for each kernel.
dkms status >"$OUT/dkms-status.txt" 2>&1
sed 's/^/# dkms status: /' "$OUT/dkms-status.txt"
grep -q "^grtrace/$VER, $KVER6, x86_64: installed" "$OUT/dkms-status.txt"
ok $? "dkms status: grtrace $VER installed for $KVER6" "$OUT/dkms-status.txt"
MODS6="grtrace grtrace_aggregator grtrace_perf_mon grtrace_filter grtrace_sampling grtrace_drm_bridge grtrace_nouveau grtrace_virtio_gpu grtrace_i915 grtrace_amdgpu"
for m in $MODS6; do
	ls "/lib/modules/$KVER6/updates/dkms/$m.ko"* >/dev/null 2>&1 || echo "no $m"
	grep -q "^updates/dkms/$m.ko" "/lib/modules/$KVER6/modules.dep" || echo "$m not in modules.dep"
done >"$OUT/mods6.txt"
ok "$([ -s "$OUT/mods6.txt" ] && echo 1 || echo 0)" \
	"$KVER6 (its linux-source installed): all 10 modules in updates/dkms, in modules.dep" \
	"$OUT/mods6.txt"

# The tree's own build, for the comparison and the vgpu test module.
say "building the tree's modules and CLI for $KVER6"
# Each CPU: the builds below wait on nothing else of the suite.
make -j"$(nproc)" -C "$WORK/grtrace/drivers/gpu/grtrace" KDIR="$KDIR6" KSRC="$KSRC6" \
	>"$OUT/tree6.log" 2>&1 && make -j"$(nproc)" -C "$WORK/grtrace/tools/grtrace" grtrace \
	>>"$OUT/tree6.log" 2>&1
ok $? "the tree's modules and CLI build for $KVER6" "$OUT/tree6.log"

# The guest's lines are numbered by the host (7 per boot).
vm_tap() {
	local l c=0

	while IFS= read -r l; do
		case $l in
		"ok "*) N=$((N + 1)); c=$((c + 1)); echo "ok $N - vm: ${l#ok * - }" ;;
		"not ok "*) N=$((N + 1)); c=$((c + 1)); FAILED=1
			echo "not ok $N - vm: ${l#not ok * - }" ;;
		"#"*) echo "$l" ;;
		esac
	done <"$1"
	[ $c = 7 ] || { N=$((N + 1)); FAILED=1; echo "not ok $N - vm: $c of 7 results from the guest"; }
}
run_vm() {
	local rc

	say "VM on $1: the DKMS-built modules, the packaged CLI"
	# From the copy: vmtest.sh shares the working directory with the
	# guest, where /tmp is a tmpfs of its own.
	(cd "$WORK/grtrace" && nice -n 5 "$HERE/vmtest.sh" -k "$1" -o "$OUT/vm-$2" \
		-t 600 -q "-device virtio-gpu-pci" -- \
		tools/testing/selftests/grtrace/package_test.sh --guest "$OUT/vm-$2/r") \
		>"$OUT/vm-$2.log" 2>"$OUT/vm-$2.err"
	rc=$?
	vm_tap "$OUT/vm-$2.log"
	[ $rc -ne 124 ] && [ $rc -ne 125 ] && "$HERE/vmtest.sh" -V "$OUT/vm-$2" >/dev/null
	ok $? "vm: $1: the guest ran clean (no panic, Oops, WARN, lockup or timeout)" "$OUT/vm-$2.err"
}
run_vm "$KVER6" 6

# 6.12 from its headers alone.  The package's postinst built for it,
# from linux-source-6.12 where that is installed at its version (the
# suite's 6.12 tests install it): DKMS builds it again without it, and
# is asked about it without it (dkms.conf's list of modules follows
# what DKMS sees), until the build is removed again.
if [ -n "$KVER612" ]; then
	MAKELOG612=/var/lib/dkms/grtrace/$VER/$KVER612/x86_64/log/make.log
	{ if dkms status -k "$KVER612" | grep -q "^grtrace/$VER,"; then
		dkms remove "grtrace/$VER" -k "$KVER612"
	  fi &&
		without_source 6.12 dkms install "grtrace/$VER" -k "$KVER612" &&
		without_source 6.12 dkms status -k "$KVER612"; } >"$OUT/dkms612.log" 2>&1
	grep -q "^grtrace/$VER, $KVER612, x86_64: installed" "$OUT/dkms612.log" &&
		grep -q 'no source tree of this kernel' "$MAKELOG612" &&
		grep -q 'grtrace_drm_bridge: no .*gpu_scheduler_trace.h: .*at load time' \
			"$MAKELOG612" &&
		for m in grtrace grtrace_drm_bridge grtrace_nouveau grtrace_aggregator; do
			grep -q "^updates/dkms/$m.ko" "/lib/modules/$KVER612/modules.dep" ||
				{ echo "$m not in modules.dep" >>"$OUT/dkms612.log"; false; } || break
		done
	ok $? "$KVER612 from its headers alone: DKMS built and installed the core, the bridge, nouveau; make.log: no source tree, the bridge's tracepoint set chosen at load time" \
		"$OUT/dkms612.log"
	grep 'grtrace_drm_bridge' "$MAKELOG612" | sort -u | sed 's/^/# make.log: /'
	# From the headers too (KSRC: setup.sh exported 6.1's source).
	KSRC612=$(sed -n 's|^include \(.*\)/Makefile$|\1|p' "/lib/modules/$KVER612/build/Makefile")
	make -C "$WORK/grtrace/drivers/gpu/grtrace" clean >/dev/null 2>&1
	make -j"$(nproc)" -C "$WORK/grtrace/drivers/gpu/grtrace" KDIR="/lib/modules/$KVER612/build" \
		KSRC="${KSRC612:-/lib/modules/$KVER612/build}" >"$OUT/tree612.log" 2>&1
	ok $? "the tree's modules build for $KVER612" "$OUT/tree612.log"
	run_vm "$KVER612" 612
	without_source 6.12 dkms remove "grtrace/$VER" -k "$KVER612" \
		>"$OUT/dkms612-remove.log" 2>&1 &&
		! ls "/lib/modules/$KVER612/updates/dkms/grtrace"* >>"$OUT/dkms612-remove.log" 2>&1
	ok $? "dkms remove: the headers-only build for $KVER612 gone" "$OUT/dkms612-remove.log"
fi

# Linux 7.x: the same .deb in the trixie root, by its own apt and dpkg.
ROOT=$GRTRACE_CACHE/trixie-root
HOST7=''
if [[ " ${KERNELS[*]} " == *" 7 "* ]]; then
	grtrace_setup 7 >"$OUT/setup7.log" 2>&1
	ok $? "setup: Linux 7.x in the trixie root ($KVER)" "$OUT/setup7.log"
	KVER7=$KVER KSRC7=$KSRC KMAKE7=$KMAKE
	mkdir -p "$ROOT/root/grtrace-pkg" && cp "$DKMS_DEB" "$ROOT/root/grtrace-pkg/" &&
		inroot "$ROOT" sh -c "apt-get update -qq && ${APT[*]} install /root/grtrace-pkg/${DKMS_DEB##*/}" \
		>"$OUT/root-install.log" 2>&1
	ok $? "trixie root: apt-get install ./grtrace-dkms (its own apt and dpkg, /proc mounted)" \
		"$OUT/root-install.log"
	inroot "$ROOT" dkms status >"$OUT/dkms-status7.txt" 2>&1
	sed 's/^/# dkms status (root): /' "$OUT/dkms-status7.txt"
	for d in "$ROOT"/lib/modules/*/build; do
		k=${d#"$ROOT"/lib/modules/}
		k=${k%/build}
		grep -q "^grtrace/$VER, $k, x86_64: installed" "$OUT/dkms-status7.txt" ||
			echo "not installed for $k"
	done >"$OUT/dkms-missing7.txt"
	grep -q "^grtrace/$VER, $KVER7, x86_64: installed" "$OUT/dkms-status7.txt" &&
		[ ! -s "$OUT/dkms-missing7.txt" ]
	ok $? "dkms status in the root: grtrace $VER installed for $KVER7 and every other kernel with headers there" \
		"$OUT/dkms-missing7.txt"
	# A kernel's headers installed after the package: DKMS's hook
	# (/etc/kernel/header_postinst.d/dkms) builds grtrace for it.  The
	# root's 7.x PREEMPT_RT kernel (--also 7-rt installs it; setup.sh
	# does here when it is missing) loses its build, then its headers
	# package is installed again, whose postinst runs the hook as a new
	# kernel's does.
	OTHER=$(cat "$ROOT/.grtrace-kver-7-rt" 2>/dev/null)
	if [ -z "$OTHER" ] || [ ! -e "$ROOT/lib/modules/$OTHER/build" ]; then
		(grtrace_setup 7-rt) >"$OUT/setup7rt.log" 2>&1
		OTHER=$(cat "$ROOT/.grtrace-kver-7-rt" 2>/dev/null)
	fi
	inroot "$ROOT" sh -c "dkms remove grtrace/$VER -k $OTHER &&
		${APT[*]} install --reinstall linux-headers-$OTHER" >"$OUT/later.log" 2>&1 &&
		inroot "$ROOT" dkms status -k "$OTHER" >>"$OUT/later.log" 2>&1 &&
		grep -q "^grtrace/$VER, $OTHER, x86_64: installed" "$OUT/later.log" &&
		ls "$ROOT/lib/modules/$OTHER/updates/dkms/grtrace.ko"* >>"$OUT/later.log"
	ok $? "trixie root: ${OTHER:-the RT kernel}'s headers installed after the package: DKMS builds and installs grtrace for it" \
		"$OUT/later.log"
	for m in grtrace grtrace_aggregator grtrace_perf_mon grtrace_filter grtrace_sampling \
		 grtrace_drm_bridge grtrace_nouveau; do
		ls "$ROOT/lib/modules/$KVER7/updates/dkms/$m.ko"* >/dev/null 2>&1 || echo "no $m"
	done >"$OUT/mods7.txt"
	ls "$ROOT/var/lib/dkms/grtrace/$VER/$KVER7/x86_64/log/make.log" >/dev/null 2>&1 &&
		grep -q 'not built: grtrace_virtio_gpu grtrace_i915 grtrace_amdgpu' \
			"$ROOT/var/lib/dkms/grtrace/$VER/$KVER7/x86_64/log/make.log" ||
		echo "make.log does not name the adapters not built"
	ok "$([ -s "$OUT/mods7.txt" ] && echo 1 || echo 0)" \
		"$KVER7 (no source tarball): the core, the bridge, nouveau and the optional modules; make.log names the 3 not built" \
		"$OUT/mods7.txt"
	# The guest sees the host's copy of the root's modules: give it the
	# DKMS-built ones and the root's indexes, and keep its own to restore.
	HOST7=/lib/modules/$KVER7
	mkdir -p "$OUT/host7-idx" && cp -p "$HOST7"/modules.* "$OUT/host7-idx/" &&
		mkdir -p "$HOST7/updates" && rm -rf "$HOST7/updates/dkms" &&
		cp -a "$ROOT/lib/modules/$KVER7/updates/dkms" "$HOST7/updates/dkms" &&
		for f in "$ROOT/lib/modules/$KVER7"/modules.*; do
			rm -f "$HOST7/${f##*/}" && cp -p "$f" "$HOST7/"
		done
	ok $? "the root's DKMS modules and indexes given to the host's copy of $KVER7 for the VM"
	# shellcheck disable=SC2086 # KMAKE: kmake.sh and its root
	$KMAKE7 -C "$WORK/grtrace/drivers/gpu/grtrace" clean >/dev/null 2>&1
	# shellcheck disable=SC2086
	{ $KMAKE7 -j"$(nproc)" -C "$WORK/grtrace/drivers/gpu/grtrace" KDIR="/lib/modules/$KVER7/build" \
		KSRC="$KSRC7"; } >"$OUT/tree7.log" 2>&1
	ok $? "the tree's modules build for $KVER7" "$OUT/tree7.log"
	run_vm "$KVER7" 7
fi

say "removing the packages"
# The root's first: the host's copy of 7.x gets its own state back before
# the host's purge is judged.
if [ -n "$HOST7" ]; then
	inroot "$ROOT" sh -c "${APT[*]} purge grtrace-dkms" >"$OUT/root-purge.log" 2>&1 &&
		rm -rf "$ROOT/root/grtrace-pkg" && no_grtrace_left "$ROOT" >>"$OUT/root-purge.log" 2>&1
	ok $? "trixie root: apt-get purge leaves no grtrace module or file" "$OUT/root-purge.log"
	rm -rf "$HOST7/updates/dkms" && rmdir --ignore-fail-on-non-empty "$HOST7/updates" &&
		for f in "$OUT"/host7-idx/modules.*; do
			rm -f "$HOST7/${f##*/}" && cp -p "$f" "$HOST7/"
		done && [ ! -e "$HOST7/updates/dkms" ] && ! grep -q grtrace "$HOST7/modules.dep"
	ok $? "the host's copy of $KVER7 has its own modules and indexes again"
fi
# remove, not purge: the package has no configuration file to keep.
"${APT[@]}" remove grtrace-dkms grtrace-tools python3-grtrace libgrtrace-dev libgrtrace1 \
	>"$OUT/purge.log" 2>&1 &&
	no_grtrace_left >>"$OUT/purge.log" 2>&1
ok $? "host: apt-get remove leaves no grtrace module or file (updates/dkms, /usr/src, /var/lib/dkms, /etc, /usr/share)" \
	"$OUT/purge.log"
"${APT[@]}" purge grtrace-dkms grtrace-tools python3-grtrace libgrtrace-dev libgrtrace1 \
	>>"$OUT/purge.log" 2>&1
echo "1..$N"
exit $FAILED
