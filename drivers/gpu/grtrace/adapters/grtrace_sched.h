/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: what the adapters that follow drm_sched jobs share.
 */
#ifndef _GRTRACE_SCHED_H
#define _GRTRACE_SCHED_H

#include <linux/dma-fence.h>
#include <linux/grtrace.h>
#include <drm/gpu_scheduler.h>

/**
 * grtrace_sched_job_done() - END, ERROR if it failed, and COMPLETE of a job
 * @ring: the job's ring id
 * @s_fence: the job's scheduler fence, as drm_sched_process_job gives it
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

#endif /* _GRTRACE_SCHED_H */
