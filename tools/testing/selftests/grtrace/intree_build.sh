#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# intree_build.sh KSRC KVER OUT - build grtrace as part of a kernel tree.
#
# Lays this overlay into a copy of the distribution kernel's source (hard
# links, so the copy is cheap; files we change are replaced, never edited
# through a link), hooks drivers/gpu/grtrace into drivers/gpu/Makefile and
# drivers/video/Kconfig the way the patch series does, enables
# CONFIG_GRTRACE=m in Debian's config and builds it with M=.  The copied
# tree is cached per kernel source, kernel version and PREP; the
# configuration (olddefconfig, modules_prepare) is redone whenever its key
# changes: grtrace's Kconfig and Makefile, this script, the kernel version.  A
# broken Kconfig therefore fails the next run, not only the first.

set -eu -o pipefail
KSRC=$1 KVER=$2 OUT=$3
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../../.." && pwd)
# Bump when the way the tree is prepared changes: it is part of the key.
PREP=4
TREE=${GRTRACE_CACHE:-/var/cache/grtrace}/intree-$(basename "$KSRC")-$KVER-p$PREP
KEY=$(cat "$TOP/drivers/gpu/grtrace/Kconfig" "$TOP/drivers/gpu/grtrace/Makefile" \
	"${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)-$KVER-p$PREP

log() { printf 'intree: %s\n' "$*" >&2; }

if [ ! -e "$TREE/.grtrace-prepared" ]; then
	log "preparing $TREE (once)"
	rm -rf "$TREE"
	cp -al "$KSRC" "$TREE"
	cp "/boot/config-$KVER" "$TREE/.config.debian"
	cp "/lib/modules/$KVER/build/Module.symvers" "$TREE/Module.symvers.new"
	mv "$TREE/Module.symvers.new" "$TREE/Module.symvers"
	# The hooks the series adds; sed -i writes new files, breaking links.
	sed -i '$a obj-$(CONFIG_GRTRACE)\t\t+= grtrace/' "$TREE/drivers/gpu/Makefile"
	sed -i '/^source "drivers\/gpu\/drm\/Kconfig"/a source "drivers/gpu/grtrace/Kconfig"' \
		"$TREE/drivers/video/Kconfig"
	touch "$TREE/.grtrace-prepared"
fi

# Refresh the overlay: fresh copies, never through a hard link.
rm -rf "$TREE/drivers/gpu/grtrace"
cp -r "$TOP/drivers/gpu/grtrace" "$TREE/drivers/gpu/grtrace"
find "$TREE/drivers/gpu/grtrace" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \) \
	-exec rm -f {} +
rm -f "$TREE/include/linux/grtrace.h" "$TREE/include/uapi/linux/grtrace.h"
cp "$TOP/include/linux/grtrace.h" "$TREE/include/linux/grtrace.h"
cp "$TOP/include/uapi/linux/grtrace.h" "$TREE/include/uapi/linux/grtrace.h"

if [ "$(cat "$TREE/.grtrace-config-key" 2>/dev/null)" != "$KEY" ]; then
	log "configuring for key $KEY"
	rm -f "$TREE/.grtrace-config-key"
	cp "$TREE/.config.debian" "$TREE/.config.new"
	mv "$TREE/.config.new" "$TREE/.config"
	# Debian's signing keys are not part of the source package.
	"$TREE/scripts/config" --file "$TREE/.config" \
		--set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str BUILD_SALT "" --disable MODULE_SIG_ALL
	"$TREE/scripts/config" --file "$TREE/.config" --module GRTRACE \
		--module GRTRACE_DRM_BRIDGE --module GRTRACE_VIRTIO_GPU \
		--module GRTRACE_VGPU --module GRTRACE_I915 \
		--module GRTRACE_AMDGPU --module GRTRACE_NOUVEAU \
		--module GRTRACE_XLATE_TEST --module GRTRACE_NMI_TEST \
		--module GRTRACE_RACE_TEST --module GRTRACE_HOOK_TEST \
		--module GRTRACE_IRQ_TEST --module GRTRACE_PERCPU_TEST \
		--module GRTRACE_AGGREGATOR --module GRTRACE_PERF_MON --module GRTRACE_FILTER \
		--module GRTRACE_SAMPLING
	make -s -C "$TREE" olddefconfig
	log "make modules_prepare"
	make -s -C "$TREE" -j"$(nproc)" KERNELRELEASE="$KVER" modules_prepare
	echo "$KEY" >"$TREE/.grtrace-config-key"
fi
for opt in GRTRACE GRTRACE_DRM_BRIDGE GRTRACE_VIRTIO_GPU GRTRACE_VGPU \
	   GRTRACE_I915 GRTRACE_AMDGPU GRTRACE_NOUVEAU GRTRACE_AGGREGATOR GRTRACE_PERF_MON \
	   GRTRACE_FILTER GRTRACE_SAMPLING; do
	grep -qx "CONFIG_$opt=m" "$TREE/.config" ||
		{ log "Kconfig did not offer CONFIG_$opt"; exit 1; }
done

log "make M=drivers/gpu/grtrace"
make -C "$TREE" KERNELRELEASE="$KVER" M=drivers/gpu/grtrace W=1 modules >"$OUT/intree.log" 2>&1
! grep -E 'warning:|error:' "$OUT/intree.log"
for ko in grtrace grtrace_drm_bridge grtrace_virtio_gpu grtrace_vgpu \
	  grtrace_i915 grtrace_amdgpu grtrace_nouveau grtrace_aggregator grtrace_perf_mon \
	  grtrace_filter grtrace_sampling; do
	f=$(find "$TREE/drivers/gpu/grtrace" -name "$ko.ko" | head -n 1)
	[ -n "$f" ] && modinfo -F vermagic "$f" | grep -q "^$KVER " ||
		{ log "$ko.ko missing or vermagic is not $KVER"; exit 1; }
done
log "ok: $TREE/drivers/gpu/grtrace/grtrace.ko"
