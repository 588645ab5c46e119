#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-build.sh KERNELVER KERNEL_SOURCE_DIR - grtrace-dkms's build, run by
# DKMS (dkms.conf's MAKE) in its copy of the source.
#
# Takes the drivers' private headers where dkms.conf says they are (a
# source tree, or the members of the linux-source tarball the adapters
# read, extracted here and removed after the build: about 420 MB for a
# few seconds), builds the modules, and says in make.log which adapters
# are built against what and which are not built, and why.  Offline:
# nothing is fetched.

set -u -o pipefail
kernelver=$1
kernel_source_dir=$2
shift 2
cd -- "$(dirname -- "${BASH_SOURCE[0]}")" || exit 1
# shellcheck source=grtrace-dkms.dkms
. ./dkms.conf

say() { printf 'grtrace-dkms: %s\n' "$*"; }

src=$(grtrace_ksrc)
series=$(echo "$kernelver" | grep -o '^[0-9]*\.[0-9]*')
case $src in
dir:*)
	KSRC=${src#dir:}
	say "Linux $kernelver: the drivers' headers from GRTRACE_KSRC=$KSRC (/etc/default/grtrace-dkms)" ;;
tarball:*)
	KSRC=$PWD/ksrc
	say "Linux $kernelver: the drivers' headers from ${src#tarball:} (linux-source-$series, the version of this kernel's headers)"
	rm -rf ksrc && mkdir ksrc &&
		tar -xf "${src#tarball:}" -C ksrc --strip-components=1 \
			"linux-source-$series/drivers/gpu/drm/scheduler" \
			"linux-source-$series/drivers/gpu/drm/virtio" \
			"linux-source-$series/drivers/gpu/drm/i915" \
			"linux-source-$series/drivers/gpu/drm/amd" \
			"linux-source-$series/include/trace" ||
		{ say "cannot extract the drivers' headers from ${src#tarball:}"; exit 1; } ;;
*)
	KSRC=$(grtrace_headers_src)
	say "Linux $kernelver: no source tree of this kernel (install linux-source-$series at the version of linux-headers-$kernelver, or set GRTRACE_KSRC in /etc/default/grtrace-dkms)"
	say "not built: grtrace_virtio_gpu grtrace_i915 grtrace_amdgpu (their drivers' private headers are in the kernel's source only)"
	say "grtrace_drm_bridge: its probes checked against grtrace's declarations of the scheduler's tracepoints, both sets: it attaches to the set gpu-sched has when it loads" ;;
esac

make -C drivers/gpu/grtrace KDIR="$kernel_source_dir" KSRC="$KSRC" "$@"
rc=$?
rm -rf ksrc
exit $rc
