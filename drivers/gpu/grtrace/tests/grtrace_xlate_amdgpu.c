// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_xlate_test: amdgpu jobs on a fake compute ring, through the
 * amdgpu tracepoints defined here from amdgpu's own header and the
 * gpu_scheduler ones of grtrace_xlate_sched.c.
 *
 * amdgpu:  ring comp_1.0.1 (compute, index 5) of device 0000:03:00.0
 *   XLATE_CTX+3:11  cs_ioctl, sched_run_job, process_job
 *   XLATE_CTX+3:12  cs_ioctl, sched_run_job, process_job, hardware fence
 *                   error -ETIME
 *   an interrupt on IH ring 1: client 10, source 181, data 0xdead
 *   XLATE_CTX+5:1   process_job of a scheduler amdgpu's tracepoints never
 *                   named: not amdgpu's
 * dedup:   XLATE_CTX+4:21 on comp_1.0.1 through both the gpu_scheduler
 *          tracepoints (queue, run, done) and amdgpu's (cs_ioctl, run_job)
 */

#include <linux/device.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <drm/gpu_scheduler.h>

#include <drm/drm_drv.h>

#include "amdgpu.h"
#include "amdgpu_cs.h"

#define CREATE_TRACE_POINTS
#include "amdgpu_trace.h"

#include "grtrace_xlate.h"

/*
 * The ftrace events of amdgpu_cs and amdgpu_vm_update_ptes call these
 * amdgpu functions.  The test never enables those events and amdgpu is
 * not loaded with it; the stubs only let the module link.
 */
unsigned int amdgpu_fence_count_emitted(struct amdgpu_ring *ring)
{
	return 0;
}

uint64_t amdgpu_vm_map_gart(const dma_addr_t *pages_addr, uint64_t addr)
{
	return 0;
}

/* Owners of the fake rings' map entries: this module. */
static const struct drm_sched_backend_ops xlate_sched_ops;
static const struct drm_driver xlate_amdgpu_driver = {
	.name = "amdgpu",
};

static const struct amdgpu_ring_funcs xlate_compute_funcs = {
	.type = AMDGPU_RING_TYPE_COMPUTE,
};

/* dev_driver_string() of the fake device is "amdgpu", as the bridge sees. */
static struct device_driver xlate_amdgpu_drv = {
	.name = "amdgpu",
};

static struct device xlate_dev = {
	.init_name = "0000:03:00.0",
	.driver = &xlate_amdgpu_drv,
};

static struct device_driver xlate_other_drv = {
	.name = "xlate_other",
};

static struct device xlate_other_dev = {
	.init_name = "xlate_other.0",
	.driver = &xlate_other_drv,
};

struct xlate_job {
	struct amdgpu_job job;
	struct drm_sched_fence s_fence;
	struct dma_fence hw_fence;
};

/* Rings live as long as the module, as a device's rings do. */
static struct amdgpu_ring xlate_ring, xlate_other;

static struct amdgpu_ring *xlate_ring_init(struct amdgpu_ring *ring,
					   struct device *dev,
					   const char *name)
{
	ring->funcs = &xlate_compute_funcs;
	ring->idx = 5;
	strscpy(ring->name, name, sizeof(ring->name));
	ring->sched.name = ring->name;
	ring->sched.ops = &xlate_sched_ops;
	ring->sched.dev = dev;
	return ring;
}

static void xlate_job_init(struct xlate_job *x, struct amdgpu_ring *ring,
			   u64 ctx, u64 seqno)
{
	x->job.base.sched = &ring->sched;
	x->job.base.s_fence = &x->s_fence;
	/* What SUBMIT and COMMIT carry in aux0: grtrace_sched_job_owner(). */
#if defined(GRTRACE_HAVE_SCHED_CLIENT_ID)
	x->s_fence.drm_client_id = seqno + 1000;
#else
	x->job.base.id = seqno + 1000;
#endif
	x->job.num_ibs = 2;
	x->s_fence.sched = &ring->sched;
	x->s_fence.finished.context = ctx;
	x->s_fence.finished.seqno = seqno;
	x->s_fence.parent = &x->hw_fence;
}

/* A device for the interrupt: its IH rings are what amdgpu_iv names. */
static struct amdgpu_device *xlate_adev;

static void xlate_iv(void)
{
	struct amdgpu_iv_entry iv = {
		.client_id = 10,
		.src_id = 181,
		.src_data = { 0xdead },
	};

	if (!xlate_adev)
		xlate_adev = kvzalloc(sizeof(*xlate_adev), GFP_KERNEL);
	if (!xlate_adev)
		return;
	xlate_adev->dev = &xlate_dev;
	xlate_adev->ddev.driver = &xlate_amdgpu_driver;
	iv.ih = &xlate_adev->irq.ih1;
	trace_amdgpu_iv(1, &iv);
}

void xlate_amdgpu_exit(void)
{
	kvfree(xlate_adev);
}

int xlate_amdgpu(void)
{
	struct amdgpu_ring *ring, *other;
	struct xlate_job *x;
	int i;

	x = kcalloc(3, sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	ring = xlate_ring_init(&xlate_ring, &xlate_dev, "comp_1.0.1");
	other = xlate_ring_init(&xlate_other, &xlate_other_dev, "other");
	xlate_job_init(&x[0], ring, XLATE_CTX + 3, 11);
	xlate_job_init(&x[1], ring, XLATE_CTX + 3, 12);
	x[1].hw_fence.error = -ETIME;
	xlate_job_init(&x[2], other, XLATE_CTX + 5, 1);
	for (i = 0; i < 2; i++) {
		trace_amdgpu_cs_ioctl(&x[i].job);
		trace_amdgpu_sched_run_job(&x[i].job);
		xlate_sched_done(&x[i].s_fence);
	}
	xlate_sched_done(&x[2].s_fence);
	xlate_iv();
	kfree(x);
	return 0;
}

/* The bridge and the amdgpu adapter both see this job; the claim decides. */
int xlate_dedup(void)
{
	struct amdgpu_ring *ring;
	struct xlate_job *x;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	ring = xlate_ring_init(&xlate_ring, &xlate_dev, "comp_1.0.1");
	xlate_job_init(x, ring, XLATE_CTX + 4, 21);
	xlate_sched_queue(&x->job.base);
	trace_amdgpu_cs_ioctl(&x->job);
	xlate_sched_run(&x->job.base);
	trace_amdgpu_sched_run_job(&x->job);
	xlate_sched_done(&x->s_fence);
	kfree(x);
	return 0;
}
