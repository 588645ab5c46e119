// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace adapter for amdgpu: one ring per amdgpu ring.
 *
 *   amdgpu_cs_ioctl        SUBMIT                 aux0 = DRM client id (or
 *   amdgpu_sched_run_job   COMMIT                 the job id before 6.16),
 *                                                 aux1 = number of IBs
 *   drm_sched_process_job  END, [ERROR], COMPLETE (amdgpu's schedulers only;
 *                                                 6.17+: drm_sched_job_done)
 *   amdgpu_iv              IRQ                    on the IH ring: aux0 =
 *                                                 client id << 32 | source id,
 *                                                 aux1 = first source data word
 *
 * The job is the scheduler fence's finished fence, context:seqno, as for
 * the drm_sched bridge.  The ring is the amdgpu ring (its name and
 * funcs->type), keyed by its scheduler: a scheduler this adapter has seen
 * in amdgpu's own tracepoints is amdgpu's, which is how the gpu_scheduler
 * tracepoint it shares with every drm_sched driver is filtered.
 *
 * The adapter claims "amdgpu", so the drm_sched bridge stops emitting for
 * amdgpu's schedulers: each job is traced once, with amdgpu's ring names
 * and classes.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/grtrace.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <drm/gpu_scheduler.h>

#include "grtrace_sched.h"

/* amdgpu's private headers, pinned to this kernel's source. */
#include "amdgpu.h"
#include "amdgpu_trace.h"
/* Each header names its file for CREATE_TRACE_POINTS; they do not undef. */
#undef TRACE_INCLUDE_FILE
#include "gpu_scheduler_trace.h"

static struct grtrace_ring_map amd_rings = {
	.claimer = "amdgpu",
	.reclaim_idle = true,
};

static const char * const ih_names[] = { "ih", "ih1", "ih2", "ih_soft" };

static u16 ring_class(const struct amdgpu_ring *ring)
{
	switch (ring->funcs->type) {
	case AMDGPU_RING_TYPE_GFX:
		return GRTRACE_ENGINE_GFX;
	case AMDGPU_RING_TYPE_COMPUTE:
	case AMDGPU_RING_TYPE_KIQ:
		return GRTRACE_ENGINE_COMPUTE;
	case AMDGPU_RING_TYPE_SDMA:
		return GRTRACE_ENGINE_COPY;
	case AMDGPU_RING_TYPE_UVD:
	case AMDGPU_RING_TYPE_VCE:
	case AMDGPU_RING_TYPE_UVD_ENC:
	case AMDGPU_RING_TYPE_VCN_DEC:
	case AMDGPU_RING_TYPE_VCN_ENC:
	case AMDGPU_RING_TYPE_VCN_JPEG:
		return GRTRACE_ENGINE_VIDEO;
	default:
		return GRTRACE_ENGINE_UNKNOWN;
	}
}

/*
 * Keyed like the bridge keys schedulers, by what a drm_sched_fence names:
 * the scheduler and its name; owned by amdgpu through its scheduler ops.
 */
static int job_ring_slow(struct drm_gpu_scheduler *sched)
{
	struct amdgpu_ring *ring = to_amdgpu_ring(sched);
	struct grtrace_ring_info info = {
		.driver = "amdgpu",
		.device = sched->dev ? dev_name(sched->dev) : "",
		.name = ring->name,
		.engine = ring_class(ring),
		.instance = ring->idx,
	};

	return grtrace_sched_ring_register(&amd_rings, sched, &info);
}

/* The ring of @job, which comes from an amdgpu tracepoint. */
static int job_ring(struct amdgpu_job *job)
{
	int ring = grtrace_sched_ring_find(&amd_rings, job->base.sched);

	return likely(ring != -ENOENT) ? ring : job_ring_slow(job->base.sched);
}

static void job_event(struct grtrace_tp *gtp, u16 type, struct amdgpu_job *job)
{
	struct dma_fence *f = &job->base.s_fence->finished;
	int ring = grtrace_probe_ring(gtp, job_ring(job));

	if (likely(ring >= 0))
		grtrace_job_event(type, ring, f->context, f->seqno,
				  grtrace_sched_job_owner(&job->base),
				  job->num_ibs);
}

static void probe_cs_ioctl(void *data, struct amdgpu_job *job)
{
	job_event(data, grtrace_sched_submit_type(&job->base), job);
}

static void probe_run_job(void *data, struct amdgpu_job *job)
{
	job_event(data, GRTRACE_EV_COMMIT, job);
}

/* The IH ring @iv was read from: @ih is its index in adev->irq. */
static int ih_ring(unsigned int ih, struct amdgpu_iv_entry *iv)
{
	int ring = grtrace_ring_map_id(&amd_rings, (unsigned long)iv->ih, ih);
	struct amdgpu_device *adev;
	struct grtrace_ring_info info = {
		.driver = "amdgpu",
		.engine = GRTRACE_ENGINE_UNKNOWN,
		.instance = ih,
	};

	if (likely(ring != -ENOENT))
		return ring;
	if (ih >= ARRAY_SIZE(ih_names))
		return -EINVAL;
	/* amdgpu_irq_dispatch() passes ih - &adev->irq.ih. */
	adev = container_of(iv->ih - ih, struct amdgpu_device, irq.ih);
	info.device = adev->dev ? dev_name(adev->dev) : "";
	info.name = ih_names[ih];
	return grtrace_ring_map_register(&amd_rings, (unsigned long)iv->ih, ih,
					 (unsigned long)adev->ddev.driver,
					 &info);
}

static void probe_iv(void *data, unsigned int ih, struct amdgpu_iv_entry *iv)
{
	int ring = grtrace_probe_ring(data, ih_ring(ih, iv));

	if (likely(ring >= 0))
		grtrace_irq(ring, (u64)iv->client_id << 32 | iv->src_id,
			    iv->src_data[0]);
}

/* amdgpu's finished jobs: see grtrace_sched_probe_done(). */
static struct grtrace_tp amd_tps[] = {
	GRTRACE_TP(amdgpu_cs_ioctl, probe_cs_ioctl),
	GRTRACE_TP(amdgpu_sched_run_job, probe_run_job),
	GRTRACE_TP_DATA(GRTRACE_SCHED_TP_DONE, grtrace_sched_probe_done,
			&amd_rings),
	GRTRACE_TP(amdgpu_iv, probe_iv),
};

/* Claims amdgpu, the map's claimer, while loaded. */
static struct grtrace_adapter_module grtrace_amdgpu = {
	.adapter = GRTRACE_ADAPTER("amdgpu", amd_tps),
	.rings = &amd_rings,
};
module_grtrace_adapter(grtrace_amdgpu);

MODULE_DESCRIPTION("grtrace adapter for amdgpu");
MODULE_LICENSE("GPL");
