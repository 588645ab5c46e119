#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# setup.sh - install what building and testing grtrace needs on Debian 12,
# and extract the kernel source that matches the test kernel (cached).
#
# Sourced by run_tests.sh and demo.sh; run directly ("setup.sh [KERNEL]")
# it just prepares the machine.  Exports KVER (test kernel), KDIR (its
# build tree), KSRC (its source tree, for checkpatch, kselftest headers
# and drivers' private headers) and KMAKE (how to run make for its
# modules: "make", or kmake.sh in the Linux 7.x build root).
#
# Linux 7.x comes from Debian 13's trixie-backports, whose headers need
# trixie's compiler and libc: its modules build in a trixie root made with
# debootstrap ($GRTRACE_CACHE/trixie-root, cached), never in the host's
# apt sources.  The image and its modules are copied to the host's /boot
# and /lib/modules (hard links), where the test VM finds them; nothing is
# loaded into the host's kernel.

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
	# Another step of the suite may be installing packages beside this
	# one (package_test.sh): wait for its lock rather than fail.
	apt-get update -qq -o DPkg::Lock::Timeout=900 >/dev/null || return 1
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		-o DPkg::Lock::Timeout=900 --no-install-recommends "${missing[@]}" >/dev/null
}

# grtrace_kernel_pkgs KERNEL: the image and headers packages of a test
# kernel: "stock" (Debian 12's own 6.1), "rt" (its PREEMPT_RT flavour),
# "6.12" (the 6.12 that Debian 12 ships for newer hardware), "7" and
# "7-rt" (the newest 7.x of trixie-backports, stock and PREEMPT_RT, in the
# trixie root), "debug" (stock's source built with KASAN, lockdep and
# the other checkers by debug_kernel.sh: the packages are stock's, for its
# source) or "debug-rt" (6.12's source, where PREEMPT_RT is mainline, built
# the same way as a PREEMPT_RT kernel with the raw-lock nesting checks:
# the packages are 6.12's, for its source).
grtrace_kernel_pkgs() {
	case $1 in
	stock|debug) echo linux-image-amd64 linux-headers-amd64 ;;
	rt) echo linux-image-rt-amd64 linux-headers-rt-amd64 ;;
	6.12|debug-rt) echo linux-image-6.12-amd64 linux-headers-6.12-amd64 ;;
	7) echo linux-image-amd64 linux-headers-amd64 ;;
	7-rt) echo linux-image-rt-amd64 linux-headers-rt-amd64 ;;
	*) return 1 ;;
	esac
}

GRTRACE_MIRROR=${GRTRACE_MIRROR:-http://deb.debian.org/debian}

# grtrace_trixie_root: the Debian 13 build root for Linux 7.x, made once
# (about 2 minutes) and cached; echoes its path.
grtrace_trixie_root() {
	local root=$GRTRACE_CACHE/trixie-root

	if [ ! -e "$root/.grtrace-complete" ]; then
		grtrace_apt_install debootstrap || return 1
		grtrace_log "making the trixie build root $root (once)"
		rm -rf "$root" "$root.tmp"
		debootstrap --variant=minbase \
			--include=gcc-14,make,libelf-dev,libssl-dev,bc,flex,bison,kmod,cpio,xz-utils,zstd,ca-certificates \
			trixie "$root.tmp" "$GRTRACE_MIRROR" >&2 || return 1
		echo "deb $GRTRACE_MIRROR trixie-backports main" \
			>"$root.tmp/etc/apt/sources.list.d/backports.list"
		# Kernel packages need no initramfs here: the VM boots its own.
		mkdir -p "$root.tmp/etc/initramfs-tools"
		echo update_initramfs=no \
			>"$root.tmp/etc/initramfs-tools/update-initramfs.conf"
		mv "$root.tmp" "$root" && touch "$root/.grtrace-complete" || return 1
	fi
	echo "$root"
}

# grtrace_setup_7 KERNEL: the newest 7.x of trixie-backports (its stock or
# -rt flavour) in the trixie root, resolved the first time and cached;
# sets KVER, KDIR, KSRC, KMAKE.
grtrace_setup_7() {
	local kernel=$1 root pkgs img ver series flag tarball src k

	root=$(grtrace_trixie_root) || return 1
	pkgs=$(grtrace_kernel_pkgs "$kernel")
	flag=$root/.grtrace-kver-$kernel
	if [ ! -s "$flag" ]; then
		grtrace_log "installing the newest 7.x ($pkgs) from trixie-backports"
		# shellcheck disable=SC2086 # two package names
		# INITRD=No: no initramfs (dracut) for a kernel the VM boots
		# with its own.
		chroot "$root" env INITRD=No sh -c "apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends -t trixie-backports $pkgs" >&2 ||
			return 1
		img=$(chroot "$root" dpkg-query -W -f='${Depends}' "${pkgs%% *}" |
		      grep -o 'linux-image-[0-9][^ ,]*-amd64' | head -n1)
		k=${img#linux-image-}
		case $k in
		7.*) ;;
		*) grtrace_log "trixie-backports has no 7.x kernel ($img)"; return 1 ;;
		esac
		echo "$k" >"$flag"
	fi
	KVER=$(cat "$flag")
	KDIR=/lib/modules/$KVER/build
	# The guest boots the image from the host's /boot and mounts the host
	# root: give the host the image and the modules, and the headers at
	# the path the modules' build link names (for tools that look).
	if [ ! -e "/lib/modules/$KVER/.grtrace-from-trixie" ]; then
		rm -rf "/lib/modules/$KVER"
		cp -al "$root/lib/modules/$KVER" "/lib/modules/$KVER" &&
			cp "$root/boot/vmlinuz-$KVER" "$root/boot/config-$KVER" /boot/ &&
			touch "/lib/modules/$KVER/.grtrace-from-trixie" || return 1
	fi
	for src in "$root"/usr/src/linux-headers-"${KVER%%-*}"*; do
		[ -e "$src" ] && [ ! -e "/usr/src/${src##*/}" ] &&
			ln -s "$src" "/usr/src/${src##*/}"
	done
	# Source of exactly that kernel, extracted inside the root; the host
	# reaches it through a link at the same path.
	ver=$(chroot "$root" dpkg-query -W -f='${Version}' "linux-headers-$KVER")
	series=$(echo "$KVER" | grep -o '^[0-9]*\.[0-9]*')
	src=/var/cache/grtrace/linux-source-$ver
	if [ ! -e "$root$src/.grtrace-complete" ]; then
		grtrace_log "installing linux-source-$series=$ver in the trixie root"
		chroot "$root" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install \
			-y -qq --no-install-recommends linux-source-$series=$ver" >&2 ||
			{ grtrace_log "cannot install linux-source-$series=$ver"; return 1; }
		tarball=$root/usr/src/linux-source-$series.tar.xz
		grtrace_log "extracting $tarball"
		rm -rf "$root$src" "$root$src.tmp" && mkdir -p "$root$src.tmp" &&
			tar -xf "$tarball" -C "$root$src.tmp" --strip-components=1 &&
			mv "$root$src.tmp" "$root$src" && touch "$root$src/.grtrace-complete" &&
			rm -f "$tarball" ||
			{ grtrace_log "extracting the kernel source failed"; return 1; }
	fi
	KSRC=$GRTRACE_CACHE/linux-source-$ver
	[ -e "$KSRC" ] || ln -s "$root$src" "$KSRC" || return 1
	KMAKE="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)/kmake.sh $root"
	grtrace_log "Linux $KVER (Debian $ver, trixie-backports)"
}

# grtrace_setup [KERNEL]: install the tools and the test kernel KERNEL
# (default stock), extract its source, export KVER KDIR KSRC.
grtrace_setup() {
	local kernel=${1:-stock} pkgs ver series tarball

	pkgs=$(grtrace_kernel_pkgs "$kernel") ||
		{ grtrace_log "unknown kernel '$kernel' (stock, rt, 6.12, 7, 7-rt, debug or debug-rt)"; return 1; }
	case $kernel in 7*) pkgs= ;; esac
	# shellcheck disable=SC2086 # two package names
	grtrace_apt_install build-essential make gcc bc flex bison libelf-dev libssl-dev \
		kmod cpio xz-utils busybox-static qemu-system-x86 sparse \
		trace-cmd python3 libdrm-dev pkg-config clang libclang-rt-14-dev \
		python3-docutils time shellcheck libzstd-dev zstd file \
		protobuf-compiler python3-matplotlib python3-numpy libbpf-dev bpftool zlib1g-dev \
		libtracecmd-dev libtracefs-dev libtraceevent-dev systemd $pkgs ||
		{ grtrace_log "apt-get install failed"; return 1; }
	KMAKE="make"
	case $kernel in
	7*)
		grtrace_setup_7 "$kernel" || return 1
		export KVER KDIR KSRC KMAKE GRTRACE_CACHE
		return 0 ;;
	esac

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
	if [ "$kernel" = debug ] || [ "$kernel" = debug-rt ]; then
		KVER=$(GRTRACE_CACHE=$GRTRACE_CACHE \
		       "$(dirname -- "${BASH_SOURCE[0]}")/debug_kernel.sh" "$KSRC" \
		       "${kernel#debug}") ||
			{ grtrace_log "building the debug kernel failed"; return 1; }
		KDIR=/lib/modules/$KVER/build
	fi
	export KVER KDIR KSRC KMAKE GRTRACE_CACHE
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -eu
	grtrace_setup "$@"
	printf 'KVER=%s\nKDIR=%s\nKSRC=%s\nKMAKE=%s\n' "$KVER" "$KDIR" "$KSRC" "$KMAKE"
fi
