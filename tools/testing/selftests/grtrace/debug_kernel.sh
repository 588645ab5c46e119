#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug_kernel.sh KSRC [-rt] - build the debug test kernel from the kernel
# source KSRC (Debian's linux-source-6.1): x86_64_defconfig plus
# debug.config (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, kmemleak, debug
# objects, DEBUG_LIST, UBSAN), install it as /boot/vmlinuz-KVER and
# /lib/modules/KVER so that vmtest.sh boots it like a packaged kernel, and
# print KVER.  With -rt (KSRC a source where PREEMPT_RT is mainline, 6.12
# on Debian 12) debug-rt.config is merged on top: PREEMPT_RT and the
# raw_spinlock/spinlock nesting checks.
#
# The build is cached under $GRTRACE_CACHE, keyed on the source, the
# fragment and this script; it takes about an hour on 2 cores (the time of
# the last build is kept in build-seconds in the build directory).

set -eu -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
CACHE=${GRTRACE_CACHE:-/var/cache/grtrace}
KSRC=${1:?usage: debug_kernel.sh KSRC [-rt]}
FLAVOUR=${2:-}
FRAGS=("$HERE/debug.config")
case $FLAVOUR in
'') ;;
-rt) FRAGS+=("$HERE/debug-rt.config") ;;
*) printf 'debug_kernel: unknown flavour %s (-rt or none)\n' "$FLAVOUR" >&2; exit 2 ;;
esac

log() { printf 'debug_kernel: %s\n' "$*" >&2; }

[ -e "$KSRC/Makefile" ] || { log "no kernel source in $KSRC"; exit 1; }
key=$(cat "${FRAGS[@]}" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-12)
O=$CACHE/debug$FLAVOUR-$(basename "$KSRC")-$key

build() {
	local want got start bad=0

	rm -rf "$O" && mkdir -p "$O"
	log "configuring in $O"
	make -s -C "$KSRC" O="$O" x86_64_defconfig
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" \
		"${FRAGS[@]}" >"$O/merge.log"
	make -s -C "$KSRC" O="$O" olddefconfig
	# A symbol the fragment asks for but Kconfig refused is a config bug:
	# say which, rather than boot a kernel without the checker.
	while IFS= read -r want; do
		case $want in
		CONFIG_*=n) got=$(grep "^${want%=n}=" "$O/.config" || true)
			    [ -z "$got" ] || { log "$want refused: $got"; bad=1; } ;;
		CONFIG_*) grep -qxF "$want" "$O/.config" ||
				{ log "$want refused by Kconfig"; bad=1; } ;;
		esac
	done < <(cat "${FRAGS[@]}" | grep '^CONFIG_' |
		 awk -F= '{ v[$1] = $0; if (!($1 in o)) o[$1] = n++ }
			  END { for (k in o) print o[k], v[k] }' | sort -n | cut -d' ' -f2-)
	[ "$bad" -eq 0 ] || exit 1
	log "building (about an hour on 2 cores; log in $O/build.log)"
	start=$(date +%s)
	make -C "$KSRC" O="$O" -j"$(nproc)" bzImage modules >"$O/build.log" 2>&1 ||
		{ tail -n 30 "$O/build.log" >&2; exit 1; }
	echo $(($(date +%s) - start)) >"$O/build-seconds"
	touch "$O/.grtrace-complete"
}

[ -e "$O/.grtrace-complete" ] || build
KVER=$(cat "$O/include/config/kernel.release")
if ! cmp -s "$O/arch/x86/boot/bzImage" "/boot/vmlinuz-$KVER" ||
   [ "$(readlink -f "/lib/modules/$KVER/build")" != "$(readlink -f "$O")" ]; then
	log "installing $KVER"
	rm -rf "/lib/modules/$KVER"
	make -s -C "$KSRC" O="$O" INSTALL_MOD_STRIP=1 modules_install
	ln -sfn "$O" "/lib/modules/$KVER/build"
	cp "$O/arch/x86/boot/bzImage" "/boot/vmlinuz-$KVER"
fi
log "$KVER built in $(cat "$O/build-seconds") s"
echo "$KVER"
