/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: what the adapters that follow drm_sched jobs share.
 */
#ifndef _GRTRACE_SCHED_H
#define _GRTRACE_SCHED_H

#include <linux/dma-fence.h>
#include <linux/grtrace.h>
#include <drm/gpu_scheduler.h>

#include "grtrace_adapter.h"

/*
 * gpu-sched's tracepoint for a finished job: drm_sched_process_job until
 * 6.16, drm_sched_job_done in the stable set of 6.17+ (which the Makefile
 * finds in the scheduler's trace header; without it, GRTRACE_SCHED_TP_STABLE
 * is never set, and the bridge attaches to either: see grtrace_sched_tp.h).
 * Same prototype.
 */
#ifdef GRTRACE_SCHED_TP_STABLE
#define GRTRACE_SCHED_TP_DONE	drm_sched_job_done
#else
#define GRTRACE_SCHED_TP_DONE	drm_sched_process_job
#endif

/**
 * grtrace_sched_ring_find() - the ring of a scheduler in a ring map
 * @map: the adapter's map
 * @sched: the scheduler
 *
 * Context: as grtrace_ring_map_find().
 * Return: as grtrace_ring_map_id(): -ENOENT for a scheduler not seen yet.
 */
static inline int grtrace_sched_ring_find(struct grtrace_ring_map *map,
					  struct drm_gpu_scheduler *sched)
{
	return grtrace_ring_map_id(map, (unsigned long)sched,
				   (unsigned long)sched->name);
}

/**
 * grtrace_sched_ring_register() - register the ring of a scheduler
 * @map: the adapter's map
 * @sched: the scheduler, keyed with its name, owned by the module of its
 *	ops
 * @info: its ring
 *
 * Context: any, hard interrupts included.
 * Return: the ring id, or a negative errno.
 */
static inline int
grtrace_sched_ring_register(struct grtrace_ring_map *map,
			    struct drm_gpu_scheduler *sched,
			    const struct grtrace_ring_info *info)
{
	return grtrace_ring_map_register(map, (unsigned long)sched,
					 (unsigned long)sched->name,
					 (unsigned long)sched->ops, info);
}

/**
 * grtrace_sched_job_owner() - what SUBMIT and COMMIT carry in aux0
 * @job: an armed scheduler job
 *
 * The DRM client id of the job's owner where the scheduler keeps one for
 * it (6.16+, and stable kernels it was backported to, such as Debian's
 * 6.12.117: the ``drm-client-id`` of the submitting file in
 * /proc/PID/fdinfo, and the ``client_id`` of the stable tracepoints).
 * Otherwise, a kernel-internal job (client id 0) or an older scheduler,
 * the scheduler's job id, the number the older tracepoints print: a kernel
 * with the client id but the older tracepoints still gets its internal
 * jobs matched to ftrace's.  grtrace_sched_submit_type() flags which of
 * the two a job's SUBMIT carries.  From 6.17 the job has no id (0).
 *
 * Return: that number.
 */
static inline u64 grtrace_sched_job_owner(struct drm_sched_job *job)
{
#if defined(GRTRACE_HAVE_SCHED_CLIENT_ID)
	if (job->s_fence->drm_client_id)
		return job->s_fence->drm_client_id;
#endif
#if defined(GRTRACE_HAVE_SCHED_JOB_ID)
	return job->id;
#else
	return 0;
#endif
}

/**
 * grtrace_sched_submit_type() - the type of a job's SUBMIT
 * @job: an armed scheduler job
 *
 * Return: %GRTRACE_EV_SUBMIT, with %GRTRACE_JOB_CLIENT when its aux0
 * (grtrace_sched_job_owner()) is a DRM client id: the scheduler keeps one
 * and the job came through a file (kernel-internal jobs have none, 0).
 */
static inline u16 grtrace_sched_submit_type(struct drm_sched_job *job)
{
#if defined(GRTRACE_HAVE_SCHED_CLIENT_ID)
	if (job->s_fence->drm_client_id)
		return GRTRACE_EV_SUBMIT | GRTRACE_JOB_CLIENT;
#endif
	return GRTRACE_EV_SUBMIT;
}

/**
 * grtrace_sched_job_done() - END, ERROR if it failed, and COMPLETE of a job
 * @ring: the job's ring id
 * @s_fence: the job's scheduler fence, as drm_sched_process_job (6.17+:
 *	drm_sched_job_done) gives it
 *
 * Runs in the hardware fence's signalling path, often a hard interrupt.
 * The finished fence has no error yet; the hardware fence carries the
 * driver's verdict (e.g. -ETIME after a timeout, -ECANCELED after a reset),
 * and the finished fence one set by the scheduler (guilty entity, killed).
 */
static inline void grtrace_sched_job_done(int ring,
					  struct drm_sched_fence *s_fence)
{
	struct dma_fence *parent = READ_ONCE(s_fence->parent);
	struct dma_fence *f = &s_fence->finished;
	int err;

	grtrace_end(ring, f->context, f->seqno);
	err = parent ? READ_ONCE(parent->error) : 0;
	if (!err)
		err = READ_ONCE(f->error);
	if (unlikely(err < 0))
		grtrace_error(ring, f->context, f->seqno, err, 0);
	/* One signal: the COMPLETE is the END's moment, not its own. */
	grtrace_job_event(GRTRACE_EV_COMPLETE | GRTRACE_JOB_DERIVED, ring,
			  f->context, f->seqno, 0, 0);
}

/**
 * grtrace_sched_probe_done() - the finished-job probe of a vendor adapter
 * @data: its struct grtrace_tp, whose @data is the adapter's ring map
 *	(GRTRACE_TP_DATA(GRTRACE_SCHED_TP_DONE, grtrace_sched_probe_done,
 *	&map))
 * @s_fence: the job's scheduler fence
 *
 * gpu-sched's tracepoint fires for every driver's jobs: only the
 * schedulers the map holds, which the vendor's own tracepoints
 * introduced, are the adapter's; other drivers' jobs are neither hits nor
 * misses.  A job that completes before any job of its ring was seen
 * while the adapter was loaded is not seen either.
 */
static inline void grtrace_sched_probe_done(void *data,
					    struct drm_sched_fence *s_fence)
{
	struct grtrace_tp *gtp = data;
	int ring;

	if (!grtrace_tracing())
		return;
	ring = grtrace_sched_ring_find(gtp->data, s_fence->sched);
	if (ring == -ENOENT)
		return;
	if (likely(grtrace_probe_hit(gtp, ring) >= 0))
		grtrace_sched_job_done(ring, s_fence);
}

#endif /* _GRTRACE_SCHED_H */
