#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stable_tp_build.sh KDIR - build the drm_bridge for the DRM scheduler's
# 6.17+ tracepoints (drm_sched_job_queue, _run, _done, _add_dep,
# _unschedulable) against the headers of a kernel without them.
#
# KSRC is a stand-in tree whose gpu_scheduler_trace.h declares those five
# tracepoints with the prototypes gpu-sched gives them from 6.17 on, and
# nothing else.  The bridge must then select the stable set, type-check
# its probes against it and name queue, run, done and add_dep in its
# table, none of the older ones; a stand-in with one prototype changed
# must fail to compile.  This checks the selection on any kernel's
# headers; the events themselves run in the guest tests on Linux 7.x
# (run_tests.sh --kernel 7).  TAP output, on the host.

set -u
KDIR=${1:?usage: stable_tp_build.sh KDIR}
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd -- "$HERE/../../../../drivers/gpu/grtrace" && pwd)
# shellcheck source=tap_lib.sh
. "$HERE/tap_lib.sh"
trap 'rm -rf "$TMP"' EXIT
# The overlay's headers are found from the module's directory, ../../../include.
MOD=$TMP/drivers/gpu/grtrace
mkdir -p "$TMP/include/uapi/linux" "$TMP/include/linux"
cp "$SRC/../../../include/linux/grtrace.h" "$TMP/include/linux/"
cp "$SRC/../../../include/uapi/linux/grtrace.h" "$TMP/include/uapi/linux/"

# standin DIR DONE_ARG: the stand-in source tree, drm_sched_job_done taking
# DONE_ARG.
standin() {
	mkdir -p "$1/drivers/gpu/drm/scheduler"
	cat >"$1/drivers/gpu/drm/scheduler/gpu_scheduler_trace.h" <<EOF
/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in: the prototypes of gpu-sched's tracepoints from 6.17 on. */
#ifndef GRTRACE_STANDIN_SCHED_TRACE_H
#define GRTRACE_STANDIN_SCHED_TRACE_H
#include <linux/tracepoint.h>

struct dma_fence;
struct drm_sched_entity;
struct drm_sched_fence;
struct drm_sched_job;

DECLARE_TRACE(drm_sched_job_queue,
	TP_PROTO(struct drm_sched_job *job, struct drm_sched_entity *entity),
	TP_ARGS(job, entity));
DECLARE_TRACE(drm_sched_job_run,
	TP_PROTO(struct drm_sched_job *job, struct drm_sched_entity *entity),
	TP_ARGS(job, entity));
DECLARE_TRACE(drm_sched_job_done,
	TP_PROTO($2),
	TP_ARGS(fence));
DECLARE_TRACE(drm_sched_job_add_dep,
	TP_PROTO(struct drm_sched_job *job, struct dma_fence *fence),
	TP_ARGS(job, fence));
DECLARE_TRACE(drm_sched_job_unschedulable,
	TP_PROTO(struct drm_sched_job *job, struct dma_fence *fence),
	TP_ARGS(job, fence));
#endif
EOF
}

# build KSRC: the core and the drm_bridge only, in a copy of the sources.
build() {
	rm -rf "$MOD"
	mkdir -p "$MOD"
	mkdir -p "$MOD/adapters" "$MOD/modules" "$MOD/tests"
	cp "$SRC"/*.[ch] "$SRC/Makefile" "$SRC/Kconfig" "$MOD/"
	for d in adapters modules tests; do cp "$SRC/$d"/*.[ch] "$MOD/$d/"; done
	make -C "$KDIR" M="$MOD" KSRC="$1" CONFIG_GRTRACE_VIRTIO_GPU= \
		CONFIG_GRTRACE_I915= CONFIG_GRTRACE_AMDGPU= \
		CONFIG_GRTRACE_NOUVEAU= CONFIG_GRTRACE_XLATE_TEST= \
		CONFIG_GRTRACE_VGPU= modules
}

echo "TAP version 13"
echo "1..3"
standin "$TMP/good" "struct drm_sched_fence *fence"
build "$TMP/good" >"$TMP/good.log" 2>&1
rc=$?
KO=$MOD/adapters/grtrace_drm_bridge.ko
[ $rc -eq 0 ] && [ -s "$KO" ] && grep -q GRTRACE_SCHED_TP_STABLE \
	"$MOD/adapters/.grtrace_drm_bridge.o.cmd"
ok $? "drm_bridge builds for the 6.17+ tracepoints, GRTRACE_SCHED_TP_STABLE set [compile-only]"
[ $rc -eq 0 ] || tail -n 20 "$TMP/good.log" | sed 's/^/# /'

# The names the probe table holds: the module's string constants.
readelf -p .rodata.str1.1 "$KO" 2>/dev/null | sed -n 's/^ *\[ *[0-9a-f]*\] *//p' \
	>"$TMP/names"
rc=0
for tp in drm_sched_job_queue drm_sched_job_run drm_sched_job_done \
	drm_sched_job_add_dep; do
	grep -qx "$tp" "$TMP/names" || { echo "# no $tp"; rc=1; }
done
for tp in drm_sched_job drm_run_job drm_sched_process_job \
	drm_sched_job_wait_dep drm_sched_job_unschedulable; do
	grep -qx "$tp" "$TMP/names" && { echo "# has $tp"; rc=1; }
done
ok $rc "its table names queue, run, done and add_dep, none of 6.1's [compile-only]"

standin "$TMP/bad" "struct dma_fence *fence"
build "$TMP/bad" >"$TMP/bad.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'check_trace_callback_type_drm_sched_job_done' \
	"$TMP/bad.log"
ok $? "a probe that does not match its tracepoint does not compile [compile-only]"
exit $FAILED
