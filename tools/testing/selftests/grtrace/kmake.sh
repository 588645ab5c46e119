#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmake.sh ROOT [MAKE ARGS...] - run make in the build root ROOT (the
# trixie root of setup.sh, for Linux 7.x), in the current directory.
#
# A private mount namespace gives the root /proc (objtool reads it), /dev,
# the current directory, this tree and /tmp at the paths they have on the
# host, so KDIR, KSRC, M= and output paths mean the same inside and out;
# the mounts end with the command.  The kernel source of a 7.x kernel lives
# inside ROOT at the path the host links to (setup.sh).

set -u
ROOT=${1:?usage: kmake.sh ROOT [MAKE ARGS...]}
shift
TOP=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../../../.." && pwd)

exec unshare --mount --propagation private -- bash -c '
	root=$1 top=$2 cwd=$3
	shift 3
	mount -t proc proc "$root/proc" || exit 125
	mount --rbind /dev "$root/dev" || exit 125
	for d in /tmp "$top" "$cwd"; do
		mkdir -p "$root$d" && mount --bind "$d" "$root$d" || exit 125
	done
	exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 bash -c "cd \"\$0\" && exec make \"\$@\"" "$cwd" "$@"
' kmake "$ROOT" "$TOP" "$PWD" "$@"
