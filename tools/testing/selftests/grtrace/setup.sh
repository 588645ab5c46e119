#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# setup.sh - install what building and testing grtrace needs on Debian 12,
# and extract the kernel source that matches the test kernel (cached).
#
# Sourced by run_tests.sh and demo.sh; run directly ("setup.sh [KERNEL]")
# it just prepares the machine.  Exports KVER (test kernel), KDIR (its
# build tree) and KSRC (its source tree, for checkpatch, kselftest headers
# and drivers' private headers).

GRTRACE_CACHE=${GRTRACE_CACHE:-/var/cache/grtrace}

grtrace_log() { printf 'grtrace-setup: %s\n' "$*" >&2; }

grtrace_apt_install() {
	local missing=() p

	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	grtrace_log "installing ${missing[*]}"
	apt-get update -qq >/dev/null || return 1
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}

# grtrace_kernel_pkgs KERNEL: the image and headers packages of a test
# kernel: "stock" (Debian 12's own 6.1), "rt" (its PREEMPT_RT flavour),
# "6.12" (the 6.12 that Debian 12 ships for newer hardware) or "debug"
# (stock's source built with KASAN, lockdep and the other checkers by
# debug_kernel.sh: the packages are stock's, for its source).
grtrace_kernel_pkgs() {
	case $1 in
	stock|debug) echo linux-image-amd64 linux-headers-amd64 ;;
	rt) echo linux-image-rt-amd64 linux-headers-rt-amd64 ;;
	6.12) echo linux-image-6.12-amd64 linux-headers-6.12-amd64 ;;
	*) return 1 ;;
	esac
}

# grtrace_setup [KERNEL]: install the tools and the test kernel KERNEL
# (default stock), extract its source, export KVER KDIR KSRC.
grtrace_setup() {
	local kernel=${1:-stock} pkgs ver series tarball

	pkgs=$(grtrace_kernel_pkgs "$kernel") ||
		{ grtrace_log "unknown kernel '$kernel' (stock, rt, 6.12 or debug)"; return 1; }
	# shellcheck disable=SC2086 # two package names
	grtrace_apt_install build-essential make gcc bc flex bison libelf-dev libssl-dev \
		kmod cpio xz-utils busybox-static qemu-system-x86 sparse \
		trace-cmd python3 libdrm-dev pkg-config clang libclang-rt-14-dev \
		python3-docutils time shellcheck libzstd-dev zstd file \
		protobuf-compiler python3-matplotlib libbpf-dev bpftool zlib1g-dev $pkgs ||
		{ grtrace_log "apt-get install failed"; return 1; }

	# The test kernel is the one the image metapackage depends on.
	KVER=$(dpkg-query -W -f='${Depends}' "${pkgs%% *}" |
	       grep -o 'linux-image-[0-9][^ ,]*-amd64' | head -n1)
	KVER=${KVER#linux-image-}
	[ -e "/boot/vmlinuz-$KVER" ] ||
		{ grtrace_log "no /boot/vmlinuz-$KVER"; return 1; }
	grtrace_apt_install "linux-headers-$KVER" || return 1
	KDIR=/lib/modules/$KVER/build

	# Source of exactly the test kernel's version, for private headers.
	ver=$(dpkg-query -W -f='${Version}' "linux-headers-$KVER")
	series=$(echo "$KVER" | grep -o '^[0-9]*\.[0-9]*')
	KSRC=$GRTRACE_CACHE/linux-source-$ver
	if [ ! -e "$KSRC/.grtrace-complete" ]; then
		if [ "$(dpkg-query -W -f='${Version}' "linux-source-$series" \
			2>/dev/null)" != "$ver" ]; then
			grtrace_log "installing linux-source-$series=$ver"
			apt-get update -qq >/dev/null
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends "linux-source-$series=$ver" \
				>/dev/null ||
				{ grtrace_log "cannot install linux-source-$series=$ver"
				  return 1; }
		fi
		tarball=/usr/src/linux-source-$series.tar.xz
		grtrace_log "extracting $tarball to $KSRC"
		rm -rf "$KSRC" "$KSRC.tmp" && mkdir -p "$KSRC.tmp" &&
			tar -xf "$tarball" -C "$KSRC.tmp" --strip-components=1 &&
			mv "$KSRC.tmp" "$KSRC" && touch "$KSRC/.grtrace-complete" ||
			{ grtrace_log "extracting the kernel source failed"; return 1; }
	fi
	if [ "$kernel" = debug ]; then
		KVER=$(GRTRACE_CACHE=$GRTRACE_CACHE \
		       "$(dirname -- "${BASH_SOURCE[0]}")/debug_kernel.sh" "$KSRC") ||
			{ grtrace_log "building the debug kernel failed"; return 1; }
		KDIR=/lib/modules/$KVER/build
	fi
	export KVER KDIR KSRC GRTRACE_CACHE
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -eu
	grtrace_setup "$@"
	printf 'KVER=%s\nKDIR=%s\nKSRC=%s\n' "$KVER" "$KDIR" "$KSRC"
fi
