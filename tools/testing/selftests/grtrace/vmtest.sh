#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vmtest.sh - run one command inside a throw-away QEMU guest.
#
# The guest boots a Debian distribution kernel under TCG, with the host root
# filesystem shared read-only over 9p (no disk image to build) and OUTDIR
# shared read-write at the same absolute path.  The guest side lives in
# vm/init.sh; the initramfs built around it is cached.  See usage() below.
#
# A packed guest (-P, -M) has no 9p and no virtio device at all: what the
# command needs is copied into its initramfs, which stays its root, and
# its output comes back over serial ports.  9p over virtio has no
# freeze/restore: a guest on it cannot suspend its devices and live
# (suspend_test.sh needs this).

set -u -o pipefail

SELF_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
INIT_SCRIPT=$SELF_DIR/vm/init.sh
# Bump when the way the initramfs is assembled changes (part of the cache key).
BUILDER_VERSION=1
CACHE_DIR=${GRTRACE_CACHE:-/var/cache/grtrace}/vm
GUEST_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# Modules the initramfs needs to mount 9p over virtio-pci.
BOOT_MODULES=(virtio_pci 9pnet_virtio 9p)

# A packed guest's extra serial ports: ttyS1 the command's stdout, ttyS2
# its stderr, ttyS3 dmesg at the end.
PACK=() PACK_MODULES=() PACKED=0 CMD0='' KEYBOARD=0
KVER='' OUTDIR='' WORKDIR='' TIMEOUT=600 SILENCE=120 CPUS=2 MEM=1G APPEND='' QEMU_EXTRA='' TCG_THREAD=single
APT_UPDATED=0
QEMU_PID='' TAIL_PIDS=()

usage() {
	cat <<EOF
usage: ${0##*/} [options] -- CMD [ARGS...]
       ${0##*/} -V OUTDIR

Boot the Debian kernel under QEMU/TCG on the host root filesystem (read-only)
and run CMD as root in the guest, in the current directory, with GRTRACE_VM=1
and GRTRACE_OUT=OUTDIR (shared read-write at the same path).

  -k KVER     kernel version (default: newest /lib/modules/*-amd64 with a
              matching /boot/vmlinuz)
  -o OUTDIR   output directory (default: a new directory under /tmp)
  -t SECONDS  overall timeout (default $TIMEOUT)
  -s SECONDS  fail if console and command output stay silent this long
              (default $SILENCE; early boot alone is silent ~10 s under TCG)
  -c N        number of vCPUs (default $CPUS)
  -m MEM      guest memory (default $MEM)
  -a APPEND   extra kernel command line
  -q ARGS     extra qemu arguments, split on blanks (e.g. "-device virtio-gpu-pci")
  -T single|multi
              TCG threading (default single: multi hangs the guest when code
              is patched under load; only for benchmarks that patch none)
  -P PATH     a packed guest: no 9p share and no virtio device; PATH (a
              file, or the files under a directory) is copied into its
              initramfs at the same path, and for a program the shared
              libraries it loads; bash and CMD (when it is a file) are
              always packed, busybox provides the rest; repeatable
  -M MODULE   a packed guest, with kernel module MODULE of KVER and the
              modules it depends on, for modprobe (-P its modprobe too);
              repeatable
  -K          a packed guest's wakeups, through QEMU's monitor: while
              the last line of CMD's stdout that starts with
              "# vmtest: keyboard " ends in "on", a key is pressed on
              the guest's PS/2 keyboard every 2 s (s2idle: a keyboard
              that is a wakeup source wakes it); a guest QEMU has held
              in S3 for a second is woken (system_wakeup)
  -V OUTDIR   print the verdict on the guest of the run that wrote OUTDIR;
              exit 0 when it is "clean", 1 when not or when there is none
  -h          this help

Exit status: that of CMD; 1 if CMD succeeded but the kernel log shows a
panic/Oops/BUG/WARNING/UBSAN/ODEBUG/lockup/hung task/call trace; 124 on
timeout or console silence; 125 if the VM could not run or reported no exit status.
OUTDIR keeps console.log (serial console), dmesg.txt (guest dmesg at the end)
and .vmtest/ (command script, stdout, stderr, status, qemu.log, verdict).
.vmtest/verdict is one line, written once the VM has stopped: "clean" when
the guest reported CMD's exit status (whatever it was) and its kernel log
shows none of the above, else "FAIL: " and why.  A run that could not boot
the VM leaves none.

A packed guest runs CMD from its initramfs root (in the current directory,
made there if packed files do not), without GRTRACE_OUT: nothing it
writes comes back but its stdout and stderr (serial ports, relayed as
usual), its exit status (on the console) and dmesg.txt.
EOF
}

note() { echo "vmtest: $*" >&2; }
die() { note "FAIL: $*"; exit 125; }

apt_install() {
	note "installing $* ..."
	if ((!APT_UPDATED)); then
		apt-get update -qq >&2 || die "apt-get update failed"
		APT_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "$@" >&2 || die "apt-get install $* failed"
}

# CI starts from a bare Debian: install whatever the runner needs.
ensure_tools() {
	local pkgs=() pair
	for pair in qemu-system-x86_64:qemu-system-x86 modprobe:kmod cpio:cpio \
		xz:xz-utils gzip:gzip sha256sum:coreutils; do
		command -v "${pair%%:*}" >/dev/null || pkgs+=("${pair#*:}")
	done
	# The initramfs has no libc: the busybox must be the static build.
	dpkg -s busybox-static >/dev/null 2>&1 || pkgs+=(busybox-static)
	((${#pkgs[@]} == 0)) || apt_install "${pkgs[@]}"
}

newest_kver() {
	local d v
	for d in /lib/modules/*-amd64; do
		v=${d##*/}
		[[ -e /boot/vmlinuz-$v ]] && echo "$v"
	done | sort -V | tail -n 1
}

resolve_kernel() {
	if [[ -z $KVER ]]; then
		KVER=$(newest_kver)
		[[ -n $KVER ]] || { apt_install linux-image-amd64; KVER=$(newest_kver); }
		[[ -n $KVER ]] || die "no /lib/modules/*-amd64 with a /boot/vmlinuz"
	elif [[ ! -e /boot/vmlinuz-$KVER || ! -d /lib/modules/$KVER ]]; then
		apt_install "linux-image-$KVER"
	fi
	[[ -r /boot/vmlinuz-$KVER ]] || die "cannot read /boot/vmlinuz-$KVER"
}

# Print the .ko files needed for BOOT_MODULES, dependencies first, once each.
boot_module_files() {
	local m
	for m in "${BOOT_MODULES[@]}"; do
		modprobe -S "$KVER" --show-depends "$m" ||
			die "modprobe cannot resolve $m for $KVER"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}

# Set INITRD to a cached initramfs keyed on what it is built from: KVER,
# the init script and this script (which assembles it), building it if
# needed.  Built in a temporary file and renamed so parallel runs are safe.
prepare_initramfs() {
	local key stage f name
	key=$(
		{ echo "$KVER $BUILDER_VERSION"; cat "$INIT_SCRIPT" "${BASH_SOURCE[0]}"; } |
			sha256sum | cut -c1-16
	) || die "cannot read $INIT_SCRIPT"
	INITRD=$CACHE_DIR/initramfs-$KVER-$key.cpio.gz
	if [[ -s $INITRD ]]; then
		note "using cached initramfs $INITRD"
		return
	fi
	note "building initramfs $INITRD ..."
	mkdir -p "$CACHE_DIR" || die "cannot create $CACHE_DIR"
	stage=$(mktemp -d) || die "mktemp failed"
	mkdir -p "$stage"/{bin,dev,proc,sys,newroot,modules}
	cp /bin/busybox "$stage/bin/busybox" || die "no /bin/busybox"
	install -m 0755 "$INIT_SCRIPT" "$stage/init"
	# Lets the kernel give PID 1 a console before devtmpfs is up.
	# Without it (not root) the guest still boots: init mounts devtmpfs.
	mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null ||
		note "no /dev/console in the initramfs (not root?): early init output is lost"
	# busybox insmod cannot read compressed modules: unpack them here.
	while read -r f; do
		name=${f##*/}
		name=${name%.xz} name=${name%.zst} name=${name%.gz}
		case $f in
		*.xz) xz -dc "$f" ;;
		*.zst) zstd -dcq "$f" ;;
		*.gz) gzip -dc "$f" ;;
		*) cat "$f" ;;
		esac >"$stage/modules/$name" || die "cannot unpack $f"
		echo "$name" >>"$stage/modules/order"
	done < <(boot_module_files)
	[[ -s $stage/modules/order ]] || die "no boot modules found for $KVER"
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) \
		>"$INITRD.$$" || die "cpio failed"
	mv -f "$INITRD.$$" "$INITRD"
	rm -rf "$stage"
}

# pack_copy PATH: PATH (symlinks followed) into the stage at the same path.
pack_copy() {
	local dst=$STAGE$1

	[[ -e $dst ]] && return
	mkdir -p -- "${dst%/*}" && cp -L --preserve=mode -- "$1" "$dst" ||
		die "cannot pack $1"
}

# pack_path PATH: a file, and for a program the libraries ldd names; or
# every file under a directory.
pack_path() {
	local f

	[[ $1 == /* ]] || die "-P $1: give an absolute path"
	if [[ -d $1 ]]; then
		while IFS= read -r -d '' f; do
			pack_path "$f"
		done < <(find "$1" -type f -print0)
		return
	fi
	[[ -f $1 ]] || die "-P $1: no such file"
	pack_copy "$1"
	[[ -x $1 && $(head -c 4 "$1" | tr -d '\0') == $'\x7fELF' ]] || return 0
	while read -r f; do
		pack_copy "$f"
	done < <(ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
}

# Set INITRD to the packed guest's initramfs, built for this run: busybox,
# the init script, the command script (/vmtest/cmd), what -P and -M name,
# the command's file and bash.
prepare_packed_initramfs() {
	local p m f

	STAGE=$VM/root
	INITRD=$VM/initramfs.cpio.gz
	rm -rf -- "$STAGE"
	mkdir -p "$STAGE"/{bin,dev,proc,sys,tmp,vmtest} "$STAGE$PWD" ||
		die "cannot make $STAGE"
	chmod 1777 "$STAGE/tmp"
	cp /bin/busybox "$STAGE/bin/busybox" || die "no /bin/busybox"
	install -m 0755 "$INIT_SCRIPT" "$STAGE/init"
	mknod -m 600 "$STAGE/dev/console" c 5 1 2>/dev/null ||
		note "no /dev/console in the initramfs (not root?): early init output is lost"
	cp "$VM/cmd" "$STAGE/vmtest/cmd" || die "cannot pack the command script"
	pack_path /bin/bash
	[[ $CMD0 == /* && -f $CMD0 ]] && pack_path "$CMD0"
	for p in "${PACK[@]}"; do
		pack_path "$p"
	done
	if ((${#PACK_MODULES[@]})); then
		: >"$VM/modules"
		for m in "${PACK_MODULES[@]}"; do
			modprobe -S "$KVER" --show-depends "$m" >>"$VM/modules" 2>/dev/null ||
				die "-M $m: modprobe cannot resolve it for $KVER"
		done
		for f in $(awk '$1 == "insmod" { print $2 }' "$VM/modules" | sort -u) /lib/modules/"$KVER"/modules.{dep,dep.bin,alias.bin,symbols.bin,softdep,builtin,builtin.bin,builtin.modinfo,order}; do
			[[ -e $f ]] && pack_copy "$f"
		done
	fi
	(cd "$STAGE" && find . | cpio -o -H newc --quiet | gzip -1) \
		>"$INITRD" || die "cpio failed"
	note "packed guest: $(du -sh "$STAGE" | cut -f1) in its initramfs"
	rm -rf -- "$STAGE"
}

# The command travels as a bash script in OUTDIR: no quoting limits on the
# kernel command line.  cwd may be hidden in the guest (e.g. under /tmp).
write_cmd_script() {
	{
		echo "# generated by vmtest.sh"
		printf 'cd -- %q || { echo "vmtest: cwd not visible in the guest" >&2; exit 125; }\n' "$PWD"
		if ((PACKED)); then
			printf 'export PATH=%q HOME=/tmp TERM=linux GRTRACE_VM=1\n' "$GUEST_PATH"
		else
			printf 'export PATH=%q HOME=/root TERM=linux GRTRACE_VM=1 GRTRACE_OUT=%q\n' \
				"$GUEST_PATH" "$OUTDIR"
		fi
		printf 'exec'
		printf ' %q' "$@"
		echo
	} >"$VM/cmd"
}

start_qemu() {
	local extra=() append
	read -r -a extra <<<"$QEMU_EXTRA"
	# no_timer_check: the kernel's boot-time check that the IO-APIC
	# timer ticks runs against the emulator's clock, and on a busy host
	# the guest can miss the ticks it counts ("IO-APIC + timer doesn't
	# work!", a panic at 0.06 s, seen with three guests on two cores).
	append="console=ttyS0 panic=-1 oops=panic loglevel=5 no_timer_check vmtest.out=$OUTDIR $APPEND"
	if [[ -n $WORKDIR ]]; then
		append+=" vmtest.work=$WORKDIR"
		# shellcheck disable=SC2054 # commas separate qemu suboptions
		extra+=(-fsdev "local,id=work,path=$WORKDIR,security_model=none,readonly=on,multidevs=remap"
			-device virtio-9p-pci,fsdev=work,mount_tag=work)
	fi
	if ((KEYBOARD)); then
		extra+=(-monitor "unix:$VM/monitor,server=on,wait=off")
	fi
	if ((PACKED)); then
		extra=(-serial "file:$VM/stdout" -serial "file:$VM/stderr"
			-serial "file:$OUTDIR/dmesg.txt" "${extra[@]}")
	else
		# shellcheck disable=SC2054 # commas separate qemu suboptions
		extra=(-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
			-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
			-fsdev "local,id=vmout,path=$OUTDIR,security_model=none,multidevs=remap"
			-device virtio-9p-pci,fsdev=vmout,mount_tag=vmout "${extra[@]}")
	fi
	# thread=single must be the first -accel: MTTCG hangs the guest when
	# tracepoint probes are patched in.
	qemu-system-x86_64 -accel "tcg,thread=$TCG_THREAD" -cpu max -smp "$CPUS" -m "$MEM" \
		-nodefaults -display none -no-reboot \
		-kernel "/boot/vmlinuz-$KVER" -initrd "$INITRD" -append "$append" \
		-serial "file:$OUTDIR/console.log" \
		"${extra[@]}" </dev/null >"$VM/qemu.log" 2>&1 &
	QEMU_PID=$!
	# Relay the command's output live; tail exits once qemu is gone.
	tail -n +1 -s 0.2 -f --pid="$QEMU_PID" "$VM/stdout" &
	TAIL_PIDS+=($!)
	tail -n +1 -s 0.2 -f --pid="$QEMU_PID" "$VM/stderr" >&2 &
	TAIL_PIDS+=($!)
	if ((KEYBOARD)); then
		wake_guest &
		TAIL_PIDS+=($!)
	fi
}

# wake_guest: -K, until qemu is gone: the guest's wakeup sources, through
# QEMU's monitor (HMP).  A key on its PS/2 keyboard every 2 s while the
# last "# vmtest: keyboard" line of CMD's stdout says on: s2idle, where
# QEMU leaves waking to the guest's devices.  And once QEMU has held the
# guest in S3 for a second ("info status": suspended), system_wakeup, as
# a power button would: an S3 wake that no guest timer can miss.
wake_guest() {
	python3 - "$VM/monitor" "$VM/stdout" "$QEMU_PID" <<'PY'
import os, socket, sys, time

mon, out, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])


def alive():
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def reply(s):
    buf = b""
    while not buf.endswith(b"(qemu) "):
        data = s.recv(65536)
        if not data:
            sys.exit(0)
        buf += data
    return buf


def keyboard_on():
    with open(out, "rb") as f:
        state = b""
        for line in f.read().replace(b"\r", b"").split(b"\n"):
            if line.startswith(b"# vmtest: keyboard "):
                state = line
    return state.endswith(b"on")


def main():
    s = socket.socket(socket.AF_UNIX)
    while True:
        try:
            s.connect(mon)
            break
        except OSError:
            if not alive():
                sys.exit(0)
            time.sleep(0.2)
    reply(s)
    key = since = 0
    while alive():
        time.sleep(0.5)
        now = time.monotonic()
        s.sendall(b"info status\n")
        if b"(suspended)" not in reply(s):
            since = 0
        elif not since:
            since = now
        elif now - since >= 1:
            s.sendall(b"system_wakeup\n")
            reply(s)
            print("vmtest: QEMU held the guest in S3 for 1 s: system_wakeup",
                  file=sys.stderr)
            since = 0
        if now - key >= 2:
            key = now
            if keyboard_on():
                s.sendall(b"sendkey shift\n")
                reply(s)


try:
    main()
except OSError:
    pass        # qemu went away
PY
}

kill_qemu() {
	[[ -n $QEMU_PID ]] && kill -0 "$QEMU_PID" 2>/dev/null || return 0
	kill "$QEMU_PID" 2>/dev/null
	sleep 1
	kill -KILL "$QEMU_PID" 2>/dev/null
	wait "$QEMU_PID" 2>/dev/null
}

cleanup() {
	local p
	kill_qemu
	for p in "${TAIL_PIDS[@]}"; do kill "$p" 2>/dev/null; done
}

# Sizes of everything the guest writes: any growth counts as "alive".
activity() {
	cat "$OUTDIR/console.log" "$VM/stdout" "$VM/stderr" 2>/dev/null | wc -c
}

# Wait for qemu to exit; kill it on timeout or silence.  Sets WATCHDOG to
# the reason if we killed it.
watch_qemu() {
	local start=$SECONDS last_t=$SECONDS last_n=-1 n
	WATCHDOG=
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		n=$(activity)
		if ((n != last_n)); then
			last_n=$n last_t=$SECONDS
		elif ((SECONDS - last_t >= SILENCE)); then
			WATCHDOG="console silent for $SILENCE s"
		fi
		((SECONDS - start >= TIMEOUT)) && WATCHDOG="overall timeout of $TIMEOUT s hit"
		[[ -n $WATCHDOG ]] && { kill_qemu; return; }
		sleep 0.5
	done
	wait "$QEMU_PID"
	QEMU_RC=$?
}

# Print "reason: first matching line" for the first kernel problem found in
# the console log or the final dmesg; print nothing if the log is clean.
#
# What the kernel logs after the command exited comes from the poweroff.
# Debian's 6.1 breaks and resets virtio devices at shutdown (a stable
# backport), and virtio-gpu's fbdev damage work, which fbcon's cursor keeps
# queueing, then WARNs in virtio_gpu_queue_fenced_ctrl_buffer() on a
# broken queue (seen once, 2026-11-24).  So after the command a WARNING or
# a call trace counts only if grtrace's code is in it; the rest still
# counts wherever it is.
kernel_problem() {
	local -a checks=(
		"kernel panic|Kernel panic"
		"soft lockup|soft lockup"
		"hard lockup|hard LOCKUP"
		"hung task|hung_task|blocked for more than"
		"RCU stall|rcu.*detected stall"
		"kernel Oops|Oops"
		"kernel BUG|BUG:"
		"kernel WARNING|WARNING:"
		"UBSAN report|UBSAN:"
		"debug objects report|ODEBUG:"
		"list corruption|list_(add|del) corruption"
		"call trace|Call Trace"
	)
	local c line log console during after
	# dmesg.txt is missing when the guest died: read what exists.
	console=$(cat "$OUTDIR/console.log" 2>/dev/null | tr -d '\r')
	during=$(sed '/vmtest-init: command exited/q' <<<"$console")
	after=$(sed '1,/vmtest-init: command exited/d' <<<"$console")
	log=$(printf '%s\n' "$during"; cat "$OUTDIR/dmesg.txt" 2>/dev/null)
	for c in "${checks[@]}"; do
		line=$(grep -m 1 -E -- "${c#*|}" <<<"$log") ||
			line=$(grep -m 1 -E -- "${c#*|}" <<<"$after") || continue
		case $c in
		"kernel WARNING"*|"call trace"*)
			if ! grep -qE -- "${c#*|}" <<<"$log" &&
			   ! grep -q '\[grtrace' <<<"$after"; then
				note "after the command, at poweroff, not in grtrace's code: $line"
				continue
			fi ;;
		esac
		echo "${c%%|*}: ${line}"
		return
	done
}

# verdict_of OUTDIR: -V.
verdict_of() {
	local v

	if ! v=$(head -n 1 -- "$1/.vmtest/verdict" 2>/dev/null) || [[ -z $v ]]; then
		echo "FAIL: no verdict in $1 (the VM did not run to its end)"
		return 1
	fi
	echo "$v"
	[[ $v == clean ]]
}

main() {
	local opt rc problem fatal verdict
	while getopts "k:o:t:s:c:m:a:q:T:P:M:KV:h" opt; do
		case $opt in
		k) KVER=$OPTARG ;;
		o) OUTDIR=$OPTARG ;;
		t) TIMEOUT=$OPTARG ;;
		s) SILENCE=$OPTARG ;;
		c) CPUS=$OPTARG ;;
		m) MEM=$OPTARG ;;
		a) APPEND=$OPTARG ;;
		q) QEMU_EXTRA=$OPTARG ;;
		T) [[ $OPTARG == single || $OPTARG == multi ]] ||
			die "-T takes single or multi, not '$OPTARG'"
			TCG_THREAD=$OPTARG ;;
		P) PACK+=("$OPTARG") PACKED=1 ;;
		M) PACK_MODULES+=("$OPTARG") PACKED=1 ;;
		K) KEYBOARD=1 ;;
		V) verdict_of "$OPTARG"; exit ;;
		h) usage; exit 0 ;;
		*) usage >&2; exit 125 ;;
		esac
	done
	shift $((OPTIND - 1))
	(($# > 0)) || { usage >&2; exit 125; }
	CMD0=$1
	((!KEYBOARD || PACKED)) || die "-K is for a packed guest (-P or -M)"
	[[ $TIMEOUT =~ ^[0-9]+$ && $SILENCE =~ ^[0-9]+$ && $CPUS =~ ^[1-9][0-9]*$ ]] ||
		die "-t, -s and -c take positive integers"

	ensure_tools
	resolve_kernel
	[[ -n $OUTDIR ]] || OUTDIR=$(mktemp -d /tmp/grtrace-vmtest.XXXXXX)
	mkdir -p -- "$OUTDIR" || die "cannot create $OUTDIR"
	OUTDIR=$(realpath -- "$OUTDIR")
	# The path goes on the kernel command line and into qemu option lists.
	[[ $OUTDIR =~ ^[A-Za-z0-9_./+-]+$ ]] ||
		die "OUTDIR '$OUTDIR' must not contain blanks, commas or quotes"
	# vm/init.sh mounts tmpfs over these, hiding the host's content: share
	# the top directory holding cwd under them again, read-only (a clone
	# under /tmp, as CI may make, then still works).
	if ((!PACKED)) && [[ $PWD/ =~ ^(/tmp|/var/tmp|/run|/root|/var/log)/([^/]+)/ &&
	      $PWD/ != "$OUTDIR"/* ]]; then
		WORKDIR=${BASH_REMATCH[1]}/${BASH_REMATCH[2]}
		[[ $WORKDIR =~ ^[A-Za-z0-9_./+-]+$ ]] ||
			die "cwd $PWD: '$WORKDIR' must not contain blanks, commas or quotes"
	fi
	VM=$OUTDIR/.vmtest
	rm -rf -- "$VM" "$OUTDIR/console.log" "$OUTDIR/dmesg.txt"
	if ! mkdir -p "$VM" || ! : >"$VM/stdout" || ! : >"$VM/stderr"; then
		die "cannot write $VM"
	fi
	write_cmd_script "$@"
	if ((PACKED)); then
		prepare_packed_initramfs
	else
		prepare_initramfs
	fi

	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	note "booting $KVER ($CPUS vCPU, $MEM, TCG), output in $OUTDIR ..."
	QEMU_RC=
	start_qemu
	watch_qemu
	wait "${TAIL_PIDS[@]}" 2>/dev/null

	# A packed guest reports CMD's exit status on the console alone.
	if ((PACKED)); then
		rc=$(tr -d '\r' <"$OUTDIR/console.log" 2>/dev/null |
			sed -n 's/^vmtest-init: command exited with status \([0-9]*\)$/\1/p' | tail -n 1)
		[[ -n $rc ]] && echo "$rc" >"$VM/status"
	fi
	rc=125
	[[ -s $VM/status ]] && rc=$(<"$VM/status")
	problem=$(kernel_problem)
	verdict=clean
	if [[ -n $WATCHDOG ]]; then
		verdict="FAIL: $WATCHDOG, killed qemu${problem:+ ($problem)}"
		rc=124
	elif [[ -n $problem ]]; then
		verdict="FAIL: $problem"
		((rc == 0)) && rc=1
	elif [[ ! -s $VM/status ]]; then
		fatal=$(tr -d '\r' <"$OUTDIR/console.log" 2>/dev/null | grep -m 1 'vmtest-init: FATAL')
		verdict="FAIL: guest did not report an exit code (qemu status $QEMU_RC)${fatal:+: $fatal}"
		rc=125
	fi
	# The verdict on the guest, for callers to read (see usage).
	echo "$verdict" >"$VM/verdict"
	if [[ $verdict != clean ]]; then
		note "$verdict"
		[[ -s $VM/status ]] || tail -n 5 "$VM/qemu.log" >&2
		# What the guest said last: a caller keeps only our stderr.
		if [[ -n $WATCHDOG ]]; then
			note "the console's last lines:"
			tr -d '\r' <"$OUTDIR/console.log" 2>/dev/null | tail -n 15 >&2
		fi
	fi
	note "exit $rc in $SECONDS s"
	return "$rc"
}

main "$@"
