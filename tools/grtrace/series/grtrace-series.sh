#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# grtrace-series.sh [-v N] KSRC OUTDIR - the RFC series for dri-devel.
#
# Turns this tree into a patch series against the kernel source KSRC (a
# git tree or an unpacked linux-source, 6.17 or later: the one with the
# scheduler's stable trace events) and writes it into OUTDIR as
# git format-patch --cover-letter names it: 0000-cover-letter.patch, then
# one numbered patch per logical change, each building on its own:
#
#   1 drm/sched: move the trace events to include/trace/events
#   2 drm/sched: export the stable trace events to modules
#   3 grtrace: the core (uapi and in-kernel headers, Kconfig and Makefile
#     hooks, MAINTAINERS)
#   4 grtrace: the DRM scheduler bridge, typed probes on the exports
#   5 Documentation/gpu: grtrace, in the gpu toctree
#   6 selftests/grtrace: the kselftests
#
# The sources are this tree's, as built out of tree, with what only an
# out-of-tree build needs resolved away (unifdef): the forms of the kernel
# API that 6.17+ has, and typed registration on the exported events instead
# of the lookup by name.  The vendor adapters, the optional modules, the
# test modules and the tool stay out of v1 (the cover letter says why).
#
# Every patch is signed off by the git identity of whoever runs this
# (git config user.name and user.email): never an invented name.  The
# cover letter's figures come from series/figures, each with its source.

set -eu -o pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd -- "$HERE/../../.." && pwd)
VERSION=1

die() { printf 'grtrace-series: %s\n' "$*" >&2; exit 2; }

usage() {
	sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

while getopts "v:h" opt; do
	case $opt in
	v) VERSION=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
KSRC=$(cd -- "$1" 2>/dev/null && pwd) || die "KSRC: no directory '$1'"
OUT=$2
[[ $VERSION =~ ^[1-9][0-9]?$ ]] || die "-v: a version number, 1..99"

TP=drivers/gpu/drm/scheduler/gpu_scheduler_trace.h
[ -f "$KSRC/$TP" ] || die "KSRC: no $TP (is '$KSRC' a kernel source tree?)"
grep -q 'drm_sched_job_queue' "$KSRC/$TP" ||
	die "KSRC: $TP has no stable events (drm_sched_job_queue): Linux 6.17 or later is needed"
command -v unifdef >/dev/null || die "unifdef is missing (apt-get install unifdef)"
NAME=$(git -C "$TOP" config user.name || true)
EMAIL=$(git -C "$TOP" config user.email || true)
[ -n "$NAME" ] && [ -n "$EMAIL" ] ||
	die "no git identity to sign the patches: set git config user.name and user.email"
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
	die "OUTDIR '$OUT' exists and is not empty"
fi
mkdir -p "$OUT"
OUT=$(cd -- "$OUT" && pwd)

W=$(mktemp -d /tmp/grtrace-series.XXXXXX)
trap 'rm -rf "$W"' EXIT
G=$W/k
export GIT_AUTHOR_NAME=$NAME GIT_AUTHOR_EMAIL=$EMAIL
export GIT_COMMITTER_NAME=$NAME GIT_COMMITTER_EMAIL=$EMAIL
git() { command git -C "$G" -c core.autocrlf=false -c commit.gpgsign=false "$@"; }

# The files of KSRC that the series changes: a base of those alone is
# enough for format-patch, and the patches apply to the whole tree.
BASE_FILES="$TP drivers/gpu/drm/scheduler/sched_main.c
	drivers/gpu/drm/scheduler/sched_entity.c Documentation/gpu/drm-uapi.rst
	MAINTAINERS drivers/gpu/Makefile drivers/video/Kconfig
	Documentation/gpu/index.rst tools/testing/selftests/Makefile"
mkdir -p "$G"
command git init -q "$G"
for f in $BASE_FILES; do
	[ -f "$KSRC/$f" ] || die "KSRC: no $f"
	mkdir -p "$G/$(dirname "$f")"
	cp "$KSRC/$f" "$G/$f"
done
git add -A
git commit -q -m base

# commit MSGFILE: one patch, signed off by the runner.
commit() {
	git add -A
	git commit -q -s -F "$HERE/$1"
}

# maintainers_f PATTERN [ENTRY]: add "F: PATTERN" to the MAINTAINERS
# entry ENTRY (grtrace's by default), the F: lines kept in order.
maintainers_f() {
	python3 - "$G/MAINTAINERS" "$1" "${2:-GRTRACE (GPU RING TRACE)}" <<'EOF'
import sys
path, pat, entry = sys.argv[1:4]
lines = open(path).read().split("\n")
i = lines.index(entry)
j = i
while lines[j]:
    j += 1
fs = [l for l in lines[i:j] if l.startswith("F:\t")] + ["F:\t" + pat]
rest = [l for l in lines[i:j] if not l.startswith("F:\t")]
lines[i:j] = rest + sorted(fs)
open(path, "w").write("\n".join(lines))
EOF
}

# in_tree FILE...: the in-tree form of this tree's FILE (relative to TOP)
# into the series: the kernel API forms of 6.17+, typed registration.
in_tree() {
	local f rc

	for f in "$@"; do
		mkdir -p "$G/$(dirname "$f")"
		rc=0
		unifdef -x 2 -DGRTRACE_HAVE_RELAY_NO_PADDING \
			-DGRTRACE_HAVE_TIMER_DELETE_SYNC -DGRTRACE_HAVE_HRTIMER_SETUP \
			-DGRTRACE_HAVE_SCHED_CLIENT_ID -UGRTRACE_HAVE_SCHED_JOB_ID \
			-DGRTRACE_HAVE_SCHED_CREDITS -DGRTRACE_HAVE_SCHED_STAT_RESET \
			-DGRTRACE_SCHED_TP_STABLE -DGRTRACE_ADAPTER_TYPED \
			-UGRTRACE_ATTACH_BY_NAME -UGRTRACE_DRIVER_ABSENT \
			-UGRTRACE_SCHED_OWN_PROTOS -UGRTRACE_NOT_BUILT \
			-o "$G/$f" "$TOP/$f" || rc=$?
		[ $rc -le 1 ] || die "unifdef failed on $f"
		# Only the out-of-tree build needs the compat header.
		python3 - "$G/$f" <<'EOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r'#include "(\.\./)?grtrace_compat\.h"\n', "", s)
# What unifdef took out leaves blank lines: one at most, none after an
# opening brace or before a closing one.
s = re.sub(r"\n{3,}", "\n\n", s)
s = re.sub(r"\{\n\n", "{\n", s)
s = re.sub(r"\n\n(\t*\})", r"\n\1", s)
out, indent = [], False
for line in s.split("\n"):
    if "grtrace_hrtimer_setup(" in line:
        line = line.replace("grtrace_hrtimer_setup(", "hrtimer_setup(")
        indent = not line.rstrip().endswith(");")
    elif indent:
        # hrtimer_setup( is 8 columns shorter: one tab less.
        line = line[1:] if line.startswith("\t") else line
        indent = not line.rstrip().endswith(");")
    out.append(line)
open(p, "w").write("\n".join(out))
EOF
	done
}

# kconfig_entries NAME...: the Kconfig entries NAME of this tree.
kconfig_entries() {
	awk -v want=" $* " '
		/^config / { keep = index(want, " " $2 " ") > 0; if (keep && n++) print "" }
		/^$/ { next }
		keep { print }
	' "$TOP/drivers/gpu/grtrace/Kconfig"
}

# ---- 1: the scheduler's trace header, where trace headers live -----------
NEWTP=include/trace/events/gpu_scheduler.h
mkdir -p "$G/include/trace/events"
git mv "$TP" "$NEWTP"
python3 - "$G/$NEWTP" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("#define TRACE_INCLUDE_FILE gpu_scheduler_trace\n", "")
s = s.replace("#include <linux/tracepoint.h>\n",
              "#include <linux/tracepoint.h>\n#include <drm/gpu_scheduler.h>\n", 1)
tail = ("/* This part must be outside protection */\n#undef TRACE_INCLUDE_PATH\n"
        "#define TRACE_INCLUDE_PATH ../../drivers/gpu/drm/scheduler\n")
assert tail in s, "the header's TRACE_INCLUDE_PATH block changed"
s = s.replace(tail, "/* This part must be outside protection */\n")
open(p, "w").write(s)
EOF
for f in sched_main.c sched_entity.c; do
	sed -i 's|^#include "gpu_scheduler_trace.h"$|#include <trace/events/gpu_scheduler.h>|' \
		"$G/drivers/gpu/drm/scheduler/$f"
done
sed -i "s|drivers/gpu/drm/scheduler/gpu_scheduler_trace.h|$NEWTP|g" \
	"$G/Documentation/gpu/drm-uapi.rst"
maintainers_f "$NEWTP" "DRM GPU SCHEDULER"
grep -q '<trace/events/gpu_scheduler.h>' "$G/drivers/gpu/drm/scheduler/sched_main.c" ||
	die "sched_main.c: no include of the trace header to move"
commit sched-header.msg

# ---- 2: the stable events exported ----------------------------------------
python3 - "$G/drivers/gpu/drm/scheduler/sched_main.c" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
inc = "#define CREATE_TRACE_POINTS\n#include <trace/events/gpu_scheduler.h>\n"
assert inc in s
ex = "".join("EXPORT_TRACEPOINT_SYMBOL_GPL(drm_sched_job_%s);\n" % e
             for e in ("queue", "run", "done", "add_dep", "unschedulable"))
s = s.replace(inc, inc + "\n/* The stable uAPI events, for in-kernel consumers too. */\n" + ex, 1)
open(p, "w").write(s)
EOF
commit sched-export.msg

# ---- 3: the core ------------------------------------------------------------
CORE="grtrace_core.c grtrace_control.c grtrace_config.c grtrace_attach.c
	grtrace_rings.c grtrace_pool.c grtrace_hooks.c grtrace_jobsum.c
	grtrace_recorder.c grtrace_internal.h"
for f in $CORE; do
	in_tree "drivers/gpu/grtrace/$f"
done
in_tree include/linux/grtrace.h include/uapi/linux/grtrace.h
# Text, not C: as it is (unifdef would read its apostrophes as quotes).
mkdir -p "$G/Documentation/ABI/testing"
cp "$TOP/Documentation/ABI/testing/sysfs-kernel-grtrace" "$G/Documentation/ABI/testing/"
kconfig_entries GRTRACE >"$G/drivers/gpu/grtrace/Kconfig.new"
{ echo "# SPDX-License-Identifier: GPL-2.0-only"; cat "$G/drivers/gpu/grtrace/Kconfig.new"; } \
	>"$G/drivers/gpu/grtrace/Kconfig"
rm "$G/drivers/gpu/grtrace/Kconfig.new"
cat >"$G/drivers/gpu/grtrace/Makefile" <<'EOF'
# SPDX-License-Identifier: GPL-2.0

obj-$(CONFIG_GRTRACE) += grtrace.o
grtrace-y := grtrace_core.o grtrace_config.o grtrace_rings.o grtrace_control.o
grtrace-y += grtrace_attach.o grtrace_pool.o grtrace_hooks.o grtrace_jobsum.o
grtrace-y += grtrace_recorder.o
EOF
printf 'obj-$(CONFIG_GRTRACE)\t\t+= grtrace/\n' >>"$G/drivers/gpu/Makefile"
python3 - "$G/drivers/video/Kconfig" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
a = 'source "drivers/gpu/trace/Kconfig"\n'
assert a in s, "drivers/video/Kconfig: no drivers/gpu/trace/Kconfig to follow"
s = s.replace(a, a + '\nsource "drivers/gpu/grtrace/Kconfig"\n', 1)
open(p, "w").write(s)
EOF
python3 - "$G/MAINTAINERS" "$NAME" "$EMAIL" <<'EOF'
import sys
path, name, email = sys.argv[1:4]
head = "GRTRACE (GPU RING TRACE)"
# Each later patch adds the F: lines of its files (checkpatch asks of a
# patch that adds files that it says who maintains them).
entry = [head, "M:\t%s <%s>" % (name, email),
         "L:\tdri-devel@lists.freedesktop.org", "S:\tMaintained",
         "F:\tDocumentation/ABI/testing/sysfs-kernel-grtrace",
         "F:\tdrivers/gpu/grtrace/Kconfig", "F:\tdrivers/gpu/grtrace/Makefile",
         "F:\tdrivers/gpu/grtrace/grtrace_*",
         "F:\tinclude/linux/grtrace.h", "F:\tinclude/uapi/linux/grtrace.h", ""]
lines = open(path).read().split("\n")
# Entries are in alphabetical order after the preamble, give or take a
# few: go after the last entry of the same initial that sorts before ours.
start = next(i for i, l in enumerate(lines) if l == "3C59X NETWORK DRIVER")
heads = [i for i in range(start, len(lines))
         if lines[i] and not lines[i - 1] and lines[i][1:2] != ":"]
before = [i for i in heads if lines[i][0] == head[0] and lines[i] < head]
i = max(before) if before else start
while lines[i]:
    i += 1
lines[i + 1:i + 1] = entry
open(path, "w").write("\n".join(lines))
EOF
commit core.msg

# ---- 4: the DRM scheduler bridge ------------------------------------------
in_tree drivers/gpu/grtrace/adapters/grtrace_drm_bridge.c \
	drivers/gpu/grtrace/adapters/grtrace_sched.h
for f in "$TOP"/drivers/gpu/grtrace/adapters/grtrace_adapter.h; do
	[ -e "$f" ] && in_tree "${f#"$TOP"/}"
done
{ echo; kconfig_entries GRTRACE_DRM_BRIDGE; } >>"$G/drivers/gpu/grtrace/Kconfig"
cat >>"$G/drivers/gpu/grtrace/Makefile" <<'EOF'

obj-$(CONFIG_GRTRACE_DRM_BRIDGE) += adapters/grtrace_drm_bridge.o
EOF
maintainers_f drivers/gpu/grtrace/adapters/
commit bridge.msg

# ---- 5: the documentation -------------------------------------------------
mkdir -p "$G/Documentation/gpu"
cp "$TOP/Documentation/gpu/grtrace.rst" "$G/Documentation/gpu/grtrace.rst"
python3 - "$G/Documentation/gpu/index.rst" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
a = "   drm-usage-stats\n"
assert a in s, "Documentation/gpu/index.rst: no drm-usage-stats to follow"
s = s.replace(a, a + "   grtrace\n", 1)
open(p, "w").write(s)
EOF
maintainers_f Documentation/gpu/grtrace.rst
commit docs.msg

# ---- 6: the kselftests ------------------------------------------------------
ST=tools/testing/selftests/grtrace
mkdir -p "$G/$ST/golden"
# Every vector gen_golden.py writes, not only the streams the C tests
# read: its --check then holds in the series' tree as in this one.
(cd "$TOP/$ST" &&
	cp --parents grtrace_test.c grtrace_v2_test.c grtrace_knobs_test.c \
		grtrace_selftest.h settings golden/README golden/gen_golden.py \
		golden/*.bin golden/*.dump golden/*.offsets golden/*.grf "$G/$ST/")
cat >"$G/$ST/config" <<'EOF'
CONFIG_DEBUG_FS=y
CONFIG_RELAY=y
CONFIG_GRTRACE=m
EOF
cat >"$G/$ST/Makefile" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
CFLAGS += -Wall -O2 -g $(KHDR_INCLUDES)
LDLIBS += -lpthread

TEST_GEN_PROGS := grtrace_test grtrace_knobs_test grtrace_v2_test
TEST_FILES := golden
LOCAL_HDRS += grtrace_selftest.h

include ../lib.mk
EOF
python3 - "$G/tools/testing/selftests/Makefile" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
a = "TARGETS += gpio\n"
assert a in s
s = s.replace(a, a + "TARGETS += grtrace\n", 1)
open(p, "w").write(s)
EOF
maintainers_f "$ST/"
commit selftests.msg

# ---- the patches and the cover letter -------------------------------------
PREFIX="RFC PATCH"
[ "$VERSION" -gt 1 ] && PREFIX="RFC PATCH v$VERSION"
git format-patch -q -M --binary --cover-letter --subject-prefix="$PREFIX" \
	-o "$OUT" HEAD~6..HEAD
"$HERE/cover-letter.py" "$HERE" "$OUT/0000-cover-letter.patch" "$KSRC"
ls "$OUT"
