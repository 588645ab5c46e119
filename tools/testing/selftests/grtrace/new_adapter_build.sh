#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# new_adapter_build.sh KDIR - a new adapter for a driver on the DRM
# scheduler is one file, its Kconfig entry and one Makefile line ("Adding
# an adapter" in Documentation/gpu/grtrace.rst), on any kernel's headers.
#
# KSRC is a stand-in source tree with a driver "foo" whose trace header
# declares foo_job_queue and foo_job_run (a struct drm_sched_job each),
# beside gpu-sched's 6.17+ tracepoints.  In a copy of drivers/gpu/grtrace
# the test adds adapters/grtrace_foo.c (SUBMIT, COMMIT, and the finished
# job through the shared grtrace_sched_probe_done(); it claims foo), a
# Kconfig entry and one grtrace_adapter line, and nothing else: the copy
# must differ from the tree in those three files only, the adapter must
# build (W=1, no warning) with its table naming its tracepoints, and say
# that this kernel has no foo; and a probe that does not match its
# tracepoint must fail to compile.  TAP output, on the host.

set -u
KDIR=${1:?usage: new_adapter_build.sh KDIR}
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd -- "$HERE/../../../../drivers/gpu/grtrace" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
trap 'rm -rf "$TMP"' EXIT
MOD=$TMP/drivers/gpu/grtrace
KSRC=$TMP/ksrc
mkdir -p "$TMP/include/uapi/linux" "$TMP/include/linux" "$MOD"
cp "$SRC/../../../include/linux/grtrace.h" "$TMP/include/linux/"
cp "$SRC/../../../include/uapi/linux/grtrace.h" "$TMP/include/uapi/linux/"
(cd "$SRC" && find . \( -name '*.[ch]' ! -name '*.mod.c' \) -o -name Makefile \
	-o -name Kconfig) | (cd "$SRC" && cpio -pdm --quiet "$MOD")

# standin RUN_ARG: the stand-in tree, foo_job_run taking RUN_ARG.
standin() {
	mkdir -p "$KSRC/drivers/gpu/drm/scheduler" "$KSRC/drivers/gpu/drm/foo"
	cat >"$KSRC/drivers/gpu/drm/scheduler/gpu_scheduler_trace.h" <<'EOF'
/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in: gpu-sched's tracepoints from 6.17 on, those foo uses. */
#ifndef GRTRACE_STANDIN_SCHED_TRACE_H
#define GRTRACE_STANDIN_SCHED_TRACE_H
#include <linux/tracepoint.h>

struct drm_sched_entity;
struct drm_sched_fence;
struct drm_sched_job;

DECLARE_TRACE(drm_sched_job_queue,
	TP_PROTO(struct drm_sched_job *job, struct drm_sched_entity *entity),
	TP_ARGS(job, entity));
DECLARE_TRACE(drm_sched_job_done,
	TP_PROTO(struct drm_sched_fence *fence),
	TP_ARGS(fence));
#endif
EOF
	cat >"$KSRC/drivers/gpu/drm/foo/foo_trace.h" <<EOF
/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in: the tracepoints of a driver on drm_sched. */
#ifndef GRTRACE_STANDIN_FOO_TRACE_H
#define GRTRACE_STANDIN_FOO_TRACE_H
#include <linux/tracepoint.h>

struct dma_fence;
struct drm_sched_job;

DECLARE_TRACE(foo_job_queue,
	TP_PROTO(struct drm_sched_job *job),
	TP_ARGS(job));
DECLARE_TRACE(foo_job_run,
	TP_PROTO($1),
	TP_ARGS(job));
#endif
EOF
}

# The three additions, as a contributor makes them.
cat >"$MOD/adapters/grtrace_foo.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace adapter for foo, a driver on drm_sched: one ring per scheduler.
 *
 *   foo_job_queue                  SUBMIT
 *   foo_job_run                    COMMIT
 *   gpu-sched's job done           END, [ERROR], COMPLETE (foo's only)
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "grtrace_sched.h"

#include "foo_trace.h"
#include "gpu_scheduler_trace.h"

static struct grtrace_ring_map foo_rings = {
	.claimer = "foo",
	.reclaim_idle = true,
};

static int foo_ring_slow(struct drm_gpu_scheduler *sched)
{
	struct grtrace_ring_info info = {
		.driver = "foo",
		.device = "",
		.name = sched->name,
		.engine = grtrace_engine_from_name(sched->name),
	};

	return grtrace_sched_ring_register(&foo_rings, sched, &info);
}

static int foo_ring(struct drm_gpu_scheduler *sched)
{
	int ring = grtrace_sched_ring_find(&foo_rings, sched);

	return likely(ring != -ENOENT) ? ring : foo_ring_slow(sched);
}

static void foo_event(void *data, u16 type, struct drm_sched_job *job)
{
	struct dma_fence *f = &job->s_fence->finished;
	int ring = grtrace_probe_ring(data, foo_ring(job->sched));

	if (likely(ring >= 0))
		grtrace_job_event(type, ring, f->context, f->seqno,
				  grtrace_sched_job_owner(job), 0);
}

static void probe_queue(void *data, struct drm_sched_job *job)
{
	foo_event(data, grtrace_sched_submit_type(job), job);
}

static void probe_run(void *data, struct drm_sched_job *job)
{
	foo_event(data, GRTRACE_EV_COMMIT, job);
}

static struct grtrace_tp foo_tps[] = {
	GRTRACE_TP(foo_job_queue, probe_queue),
	GRTRACE_TP(foo_job_run, probe_run),
	GRTRACE_TP_DATA(GRTRACE_SCHED_TP_DONE, grtrace_sched_probe_done,
			&foo_rings),
};

static struct grtrace_adapter_module grtrace_foo = {
	.adapter = GRTRACE_ADAPTER("foo", foo_tps),
	.rings = &foo_rings,
};
module_grtrace_adapter(grtrace_foo);

MODULE_DESCRIPTION("grtrace adapter for foo");
MODULE_LICENSE("GPL");
EOF
cat >>"$MOD/Kconfig" <<'EOF'

config GRTRACE_FOO
	tristate "grtrace adapter for foo"
	depends on GRTRACE && DRM_FOO
	default GRTRACE
	help
	  Feed grtrace from foo's job tracepoints.  Module grtrace_foo.
EOF
sed -i '/^\$(eval \$(call grtrace_adapter,nouveau,/a $(eval $(call grtrace_adapter,foo,CONFIG_DRM_FOO,drivers/gpu/drm/foo/foo_trace.h,FOO))' \
	"$MOD/Makefile"

echo "TAP version 13"
echo "1..4"
# sources DIR: the source files of a drivers/gpu/grtrace, sorted.
sources() {
	(cd "$1" && find . \( -name '*.[ch]' ! -name '*.mod.c' \) \
		-o -name Makefile -o -name Kconfig | sort)
}
sources "$SRC" >"$TMP/tree.files"
sources "$MOD" >"$TMP/copy.files"
{
	comm -13 "$TMP/tree.files" "$TMP/copy.files" | sed 's/^/new /'
	comm -23 "$TMP/tree.files" "$TMP/copy.files" | sed 's/^/gone /'
	comm -12 "$TMP/tree.files" "$TMP/copy.files" | while read -r f; do
		cmp -s "$SRC/$f" "$MOD/$f" || echo "changed $f"
	done
} >"$TMP/touched"
sed 's/^/# /' "$TMP/touched"
added=$(diff "$SRC/Makefile" "$MOD/Makefile" | grep -c '^>')
removed=$(diff "$SRC/Makefile" "$MOD/Makefile" | grep -c '^<')
echo "# Makefile: $added line(s) added, $removed removed"
[ "$(sort "$TMP/touched" | tr '\n' ' ')" = \
  "changed ./Kconfig changed ./Makefile new ./adapters/grtrace_foo.c " ] &&
	[ "$added" = 1 ] && [ "$removed" = 0 ]
ok $? "the new adapter is one file, a Kconfig entry and one Makefile line [compile-only]"

# build: the core and foo's adapter only.
build() {
	make -C "$KDIR" M="$MOD" KSRC="$KSRC" W=1 CONFIG_GRTRACE_DRM_BRIDGE= \
		CONFIG_GRTRACE_VIRTIO_GPU= CONFIG_GRTRACE_I915= \
		CONFIG_GRTRACE_AMDGPU= CONFIG_GRTRACE_NOUVEAU= \
		CONFIG_GRTRACE_XLATE_TEST= CONFIG_GRTRACE_VGPU= "$@"
}

standin "struct drm_sched_job *job"
build modules >"$TMP/good.log" 2>&1
rc=$?
KO=$MOD/adapters/grtrace_foo.ko
grep -E 'warning:|error:' "$TMP/good.log" | grep -v -e '^make' \
	-e 'not built: no' >"$TMP/warn"
[ $rc -eq 0 ] && [ -s "$KO" ] && [ ! -s "$TMP/warn" ] &&
	grep -q 'grtrace_foo: this kernel has no such driver (CONFIG_DRM_FOO is not set)' \
		"$TMP/good.log"
ok $? "it builds (W=1, no warning) and says this kernel has no foo [compile-only]"
[ $rc -eq 0 ] || tail -n 20 "$TMP/good.log" | sed 's/^/# /'
sed 's/^/# /' "$TMP/warn"

# The names the probe table holds: the module's string constants.
readelf -p .rodata.str1.1 "$KO" 2>/dev/null | sed -n 's/^ *\[ *[0-9a-f]*\] *//p' \
	>"$TMP/names"
rc=0
for s in foo_job_queue foo_job_run drm_sched_job_done foo; do
	grep -qx "$s" "$TMP/names" || { echo "# no $s"; rc=1; }
done
ok $rc "its table names foo_job_queue, foo_job_run and drm_sched_job_done [compile-only]"

standin "struct dma_fence *job"
build adapters/grtrace_foo.o >"$TMP/bad.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'check_trace_callback_type_foo_job_run' "$TMP/bad.log"
ok $? "a probe that does not match its tracepoint does not compile [compile-only]"
exit $FAILED
