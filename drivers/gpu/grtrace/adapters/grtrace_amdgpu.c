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

static int amd_ring_add(unsigned long key, unsigned long tag,
			unsigned long owner,
			const struct grtrace_ring_info *info)
{
	struct grtrace_ring_map_entry *e;

	e = grtrace_ring_map_entry_alloc(&amd_rings);
	if (!e)
		return -ENOMEM;
	e->key = key;
	e->tag = tag;
	e->owner = owner;
	e = grtrace_ring_map_add(&amd_rings, e, info);
	return IS_ERR(e) ? PTR_ERR(e) : e->ring_id;
}

/*
 * Keyed like the bridge keys schedulers, by what a drm_sched_fence names:
 * the scheduler and its name; owned by amdgpu through its scheduler ops.
 */
static int sched_ring_find(struct drm_gpu_scheduler *sched)
{
	struct grtrace_ring_map_entry *e;

	e = grtrace_ring_map_find(&amd_rings, (unsigned long)sched,
				  (unsigned long)sched->name);
	return e ? e->ring_id : -ENOENT;
}

/* The ring of @job, which comes from an amdgpu tracepoint. */
static int job_ring(struct amdgpu_job *job)
{
	struct drm_gpu_scheduler *sched = job->base.sched;
	struct amdgpu_ring *ring = to_amdgpu_ring(sched);
	int id = sched_ring_find(sched);
	struct grtrace_ring_info info = {
		.driver = "amdgpu",
		.name = ring->name,
		.instance = ring->idx,
	};

	if (likely(id != -ENOENT))
		return id;
	info.device = sched->dev ? dev_name(sched->dev) : "";
	info.engine = ring_class(ring);
	return amd_ring_add((unsigned long)sched, (unsigned long)sched->name,
			    (unsigned long)sched->ops, &info);
}

static void job_event(struct grtrace_tp *gtp, u16 type, struct amdgpu_job *job)
{
	struct dma_fence *f = &job->base.s_fence->finished;
	int ring;

	if (!grtrace_tracing())
		return;
	ring = job_ring(job);
	grtrace_tp_hit(gtp);
	if (unlikely(ring < 0)) {
		grtrace_tp_miss(gtp);
		return;
	}
	grtrace_job_event(type, ring, f->context, f->seqno,
			  grtrace_sched_job_owner(&job->base), job->num_ibs);
}

static void probe_cs_ioctl(void *data, struct amdgpu_job *job)
{
	job_event(data, grtrace_sched_submit_type(&job->base), job);
}

static void probe_run_job(void *data, struct amdgpu_job *job)
{
	job_event(data, GRTRACE_EV_COMMIT, job);
}

/*
 * gpu-sched's, for every driver's jobs: only schedulers that amdgpu's
 * tracepoints introduced are amdgpu's; other drivers' jobs are neither
 * hits nor misses.  A job that completes before any job of its ring ran
 * while the adapter was loaded is not seen.  Errors as in the bridge.
 */
static void probe_process_job(void *data, struct drm_sched_fence *s_fence)
{
	struct grtrace_tp *gtp = data;
	int ring;

	if (!grtrace_tracing())
		return;
	ring = sched_ring_find(s_fence->sched);
	if (ring == -ENOENT)
		return;
	grtrace_tp_hit(gtp);
	if (unlikely(ring < 0)) {
		grtrace_tp_miss(gtp);
		return;
	}
	grtrace_sched_job_done(ring, s_fence);
}

/* The IH ring @iv was read from: @ih is its index in adev->irq. */
static int ih_ring(unsigned int ih, struct amdgpu_iv_entry *iv)
{
	struct amdgpu_device *adev;
	struct grtrace_ring_map_entry *e;
	struct grtrace_ring_info info = {
		.driver = "amdgpu",
		.engine = GRTRACE_ENGINE_UNKNOWN,
		.instance = ih,
	};

	e = grtrace_ring_map_find(&amd_rings, (unsigned long)iv->ih, ih);
	if (likely(e))
		return e->ring_id;
	if (ih >= ARRAY_SIZE(ih_names))
		return -EINVAL;
	/* amdgpu_irq_dispatch() passes ih - &adev->irq.ih. */
	adev = container_of(iv->ih - ih, struct amdgpu_device, irq.ih);
	info.device = adev->dev ? dev_name(adev->dev) : "";
	info.name = ih_names[ih];
	return amd_ring_add((unsigned long)iv->ih, ih,
			    (unsigned long)adev->ddev.driver, &info);
}

static void probe_iv(void *data, unsigned int ih, struct amdgpu_iv_entry *iv)
{
	struct grtrace_tp *gtp = data;
	int ring;

	if (!grtrace_tracing())
		return;
	ring = ih_ring(ih, iv);
	grtrace_tp_hit(gtp);
	if (unlikely(ring < 0)) {
		grtrace_tp_miss(gtp);
		return;
	}
	grtrace_irq(ring, (u64)iv->client_id << 32 | iv->src_id,
		    iv->src_data[0]);
}

static struct grtrace_tp amd_tps[] = {
	{ .name = "amdgpu_cs_ioctl", .probe = probe_cs_ioctl },
	{ .name = "amdgpu_sched_run_job", .probe = probe_run_job },
	{ .name = __stringify(GRTRACE_SCHED_TP_DONE), .probe = probe_process_job },
	{ .name = "amdgpu_iv", .probe = probe_iv },
};

static struct grtrace_adapter amd_adapter = {
	.name = "amdgpu",
	.tps = amd_tps,
	.nr_tps = ARRAY_SIZE(amd_tps),
	.absent = GRTRACE_ADAPTER_ABSENT,
};

/* Fails to compile if a probe does not match its tracepoint. */
static void __init amd_check_probe_types(void)
{
	check_trace_callback_type_amdgpu_cs_ioctl(probe_cs_ioctl);
	check_trace_callback_type_amdgpu_sched_run_job(probe_run_job);
	__PASTE(check_trace_callback_type_, GRTRACE_SCHED_TP_DONE)(probe_process_job);
	check_trace_callback_type_amdgpu_iv(probe_iv);
}

static int __init grtrace_amdgpu_init(void)
{
	int ret;

	amd_check_probe_types();
	ret = grtrace_ring_map_init(&amd_rings);
	if (ret)
		return ret;
	ret = grtrace_claim_driver("amdgpu");
	if (ret)
		goto err_map;
	ret = grtrace_adapter_register(&amd_adapter);
	if (ret)
		goto err_claim;
	return 0;

err_claim:
	grtrace_release_driver("amdgpu");
err_map:
	grtrace_ring_map_destroy(&amd_rings);
	return ret;
}

static void __exit grtrace_amdgpu_exit(void)
{
	grtrace_adapter_unregister(&amd_adapter);
	grtrace_release_driver("amdgpu");
	grtrace_ring_map_destroy(&amd_rings);
}

module_init(grtrace_amdgpu_init);
module_exit(grtrace_amdgpu_exit);

MODULE_DESCRIPTION("grtrace adapter for amdgpu");
MODULE_LICENSE("GPL");
