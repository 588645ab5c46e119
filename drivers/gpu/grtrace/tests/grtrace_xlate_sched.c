// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_xlate_test: the gpu_scheduler tracepoints, defined in this test
 * module from the scheduler's own header, so the drm_sched bridge and the
 * amdgpu adapter attach to them by name while gpu-sched is not loaded.
 */

#include <drm/gpu_scheduler.h>

#define CREATE_TRACE_POINTS
#include "gpu_scheduler_trace.h"

#include "grtrace_xlate.h"

/* The probes of these tracepoints do not use the entity. */
static struct drm_sched_entity xlate_entity;

void xlate_sched_queue(struct drm_sched_job *job)
{
	trace_drm_sched_job(job, &xlate_entity);
}

void xlate_sched_run(struct drm_sched_job *job)
{
	trace_drm_run_job(job, &xlate_entity);
}

void xlate_sched_done(struct drm_sched_fence *s_fence)
{
	trace_drm_sched_process_job(s_fence);
}
