/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gpu_scheduler tracepoints' prototypes, for a build without the
 * kernel's source tree (a distribution's headers package lacks
 * drivers/gpu/drm/scheduler/gpu_scheduler_trace.h; grtrace-dkms builds so
 * when no matching linux-source is installed).  The bridge attaches by
 * name, so these declare only the compile-time check of its probes, with
 * the same name as the one the scheduler's header generates.
 *
 * The prototypes have not changed within either set: 6.1 ... 6.16 and the
 * stable set of 6.17+.  Which set a kernel has, nothing in its headers
 * says: the scheduler's API is no guide (Debian's 6.12.117 has 6.16's
 * drm_client_id on the fence and 6.1's tracepoints), and gpu-sched
 * exports neither set.  So both are declared here, and the bridge's
 * entries attach to whichever name the loaded gpu-sched defines
 * (GRTRACE_TP_ALT()).
 */
#ifndef _GRTRACE_SCHED_TP_H
#define _GRTRACE_SCHED_TP_H

#include <drm/gpu_scheduler.h>

#define GRTRACE_SCHED_TP_CHECK(tp, ...)					\
	static inline void						\
	check_trace_callback_type_##tp(void (*cb)(void *__data, __VA_ARGS__)) \
	{								\
	}

/* 6.17+ */
GRTRACE_SCHED_TP_CHECK(drm_sched_job_queue, struct drm_sched_job *,
		       struct drm_sched_entity *)
GRTRACE_SCHED_TP_CHECK(drm_sched_job_run, struct drm_sched_job *,
		       struct drm_sched_entity *)
GRTRACE_SCHED_TP_CHECK(drm_sched_job_done, struct drm_sched_fence *)
GRTRACE_SCHED_TP_CHECK(drm_sched_job_add_dep, struct drm_sched_job *,
		       struct dma_fence *)
/* 6.1 ... 6.16 */
GRTRACE_SCHED_TP_CHECK(drm_sched_job, struct drm_sched_job *,
		       struct drm_sched_entity *)
GRTRACE_SCHED_TP_CHECK(drm_run_job, struct drm_sched_job *,
		       struct drm_sched_entity *)
GRTRACE_SCHED_TP_CHECK(drm_sched_process_job, struct drm_sched_fence *)
GRTRACE_SCHED_TP_CHECK(drm_sched_job_wait_dep, struct drm_sched_job *,
		       struct dma_fence *)

#endif /* _GRTRACE_SCHED_TP_H */
