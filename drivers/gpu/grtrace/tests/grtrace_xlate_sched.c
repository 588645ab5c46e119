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

/* 6.17+ names them anew (the stable set), with the same prototypes. */
#ifdef GRTRACE_SCHED_TP_STABLE
#define xlate_trace_queue	trace_drm_sched_job_queue
#define xlate_trace_run		trace_drm_sched_job_run
#define xlate_trace_done	trace_drm_sched_job_done
#else
#define xlate_trace_queue	trace_drm_sched_job
#define xlate_trace_run		trace_drm_run_job
#define xlate_trace_done	trace_drm_sched_process_job
#endif

void xlate_sched_queue(struct drm_sched_job *job)
{
	xlate_trace_queue(job, &xlate_entity);
}

void xlate_sched_run(struct drm_sched_job *job)
{
	xlate_trace_run(job, &xlate_entity);
}

void xlate_sched_done(struct drm_sched_fence *s_fence)
{
	xlate_trace_done(s_fence);
}
