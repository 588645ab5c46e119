// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace adapter for i915: one ring per engine.
 *
 *   i915_request_add         SUBMIT            aux0 = uabi class, aux1 = instance
 *   i915_request_in          START             (LOW_LEVEL_TRACEPOINTS only)
 *   i915_request_out         END               (LOW_LEVEL_TRACEPOINTS only)
 *   i915_request_retire      [ERROR], COMPLETE   aux0 = uabi class, aux1 = instance
 *                                               of the engine that ran it
 *   i915_request_wait_begin  SYNC_WAIT_ENTER   a CPU thread waits for the
 *   i915_request_wait_end    SYNC_WAIT_EXIT    request (i915_request_wait())
 *
 * The job is the request's fence, context:seqno.  The ring is the engine of
 * the request's context, named as i915 names it ("rcs0", "vcs1", "v2x2"
 * for a virtual engine over two), with the engine class of its uabi
 * class; it is registered the first time a probe sees the engine.  For a
 * virtual (load-balanced) context that is the virtual engine at every
 * event of the job, while rq->engine becomes the physical engine that
 * runs it: SUBMIT names the engine asked for, COMPLETE the one that ran.
 *
 * i915_request_in/out exist only with CONFIG_DRM_I915_LOW_LEVEL_TRACEPOINTS
 * (off in distribution kernels); without it the kernel's i915_trace.h makes
 * them empty inline functions, and this adapter has no START and END.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/grtrace.h>
#include <linux/module.h>
#include <linux/slab.h>

/* i915's private headers, pinned to this kernel's source. */
#include "i915_drv.h"
#include "i915_request.h"
#include "i915_trace.h"

#include "grtrace_adapter.h"

static struct grtrace_ring_map engine_rings = {
	.reclaim_idle = true,
};

static u16 engine_class(u16 uabi_class)
{
	switch (uabi_class) {
	case I915_ENGINE_CLASS_RENDER:
		return GRTRACE_ENGINE_GFX;
	case I915_ENGINE_CLASS_COPY:
		return GRTRACE_ENGINE_COPY;
	case I915_ENGINE_CLASS_VIDEO:
	case I915_ENGINE_CLASS_VIDEO_ENHANCE:
		return GRTRACE_ENGINE_VIDEO;
	case I915_ENGINE_CLASS_COMPUTE:
		return GRTRACE_ENGINE_COMPUTE;
	default:
		return GRTRACE_ENGINE_UNKNOWN;
	}
}

/*
 * The tag: class and instance, so that a new engine at a freed one's
 * address with another identity is not taken for it.
 */
static unsigned long engine_tag(const struct intel_engine_cs *engine)
{
	return (unsigned long)engine->uabi_class << 16 | engine->uabi_instance;
}

static int engine_ring_slow(struct intel_engine_cs *engine)
{
	struct drm_device *drm = &engine->i915->drm;
	struct grtrace_ring_info info = {
		.driver = "i915",
		.device = drm->dev ? dev_name(drm->dev) : "",
		.name = engine->name,
		.engine = engine_class(engine->uabi_class),
		.instance = engine->uabi_instance,
	};

	/* Owned by i915's struct drm_driver: goes when i915 unloads. */
	return grtrace_ring_map_register(&engine_rings, (unsigned long)engine,
					 engine_tag(engine),
					 (unsigned long)drm->driver, &info);
}

/*
 * The engine a request was queued to: its context's.  rq->engine is that
 * engine too until a virtual engine's request is put on a physical one.
 */
static struct intel_engine_cs *rq_queue_engine(struct i915_request *rq)
{
	struct intel_context *ce = READ_ONCE(rq->context);

	return ce && ce->engine ? ce->engine : READ_ONCE(rq->engine);
}

/* The ring of the engine @rq was queued to, or a negative errno. */
static int rq_ring(struct i915_request *rq)
{
	struct intel_engine_cs *engine = rq_queue_engine(rq);
	int ring = grtrace_ring_map_id(&engine_rings, (unsigned long)engine,
				       engine_tag(engine));

	return likely(ring != -ENOENT) ? ring : engine_ring_slow(engine);
}

/* The ring of @rq for a probe: see grtrace_probe_ring(). */
static int rq_hit(struct grtrace_tp *gtp, struct i915_request *rq)
{
	return grtrace_probe_ring(gtp, rq_ring(rq));
}

static void probe_add(void *data, struct i915_request *rq)
{
	int ring = rq_hit(data, rq);

	if (likely(ring >= 0))
		grtrace_job_event(GRTRACE_EV_SUBMIT, ring, rq->fence.context,
				  rq->fence.seqno, rq->engine->uabi_class,
				  rq->engine->uabi_instance);
}

/*
 * Retired: completed, or cancelled with an error (reset, guilty, banned).
 * On the ring it was queued to; aux names the engine that ran it.
 */
static void probe_retire(void *data, struct i915_request *rq)
{
	struct intel_engine_cs *ran = READ_ONCE(rq->engine);
	int ring = rq_hit(data, rq);
	int err = READ_ONCE(rq->fence.error);

	if (unlikely(ring < 0))
		return;
	if (unlikely(err < 0))
		grtrace_error(ring, rq->fence.context, rq->fence.seqno, err, 0);
	grtrace_job_event(GRTRACE_EV_COMPLETE, ring, rq->fence.context,
			  rq->fence.seqno, ran->uabi_class, ran->uabi_instance);
}

/*
 * i915_request_wait() after its busy-wait: a CPU thread sleeps until the
 * request completes or the wait times out or is interrupted.  The waiter
 * is not a job; the fence waited on is the request's own.
 */
static void probe_wait_begin(void *data, struct i915_request *rq,
			     unsigned int flags)
{
	int ring = rq_hit(data, rq);

	if (likely(ring >= 0))
		grtrace_sync_wait_enter(ring, rq->fence.context,
					rq->fence.seqno, rq->fence.context,
					rq->fence.seqno);
}

static void probe_wait_end(void *data, struct i915_request *rq)
{
	int ring = rq_hit(data, rq);

	if (likely(ring >= 0))
		grtrace_sync_wait_exit(ring, rq->fence.context,
				       rq->fence.seqno, rq->fence.context,
				       rq->fence.seqno);
}

#ifdef CONFIG_DRM_I915_LOW_LEVEL_TRACEPOINTS
/* Execlists or GuC put the request on port @port of the hardware. */
static void probe_in(void *data, struct i915_request *rq, unsigned int port)
{
	int ring = rq_hit(data, rq);

	if (likely(ring >= 0))
		grtrace_start(ring, rq->fence.context, rq->fence.seqno);
}

static void probe_out(void *data, struct i915_request *rq)
{
	int ring = rq_hit(data, rq);

	if (likely(ring >= 0))
		grtrace_end(ring, rq->fence.context, rq->fence.seqno);
}
#endif

static struct grtrace_tp rq_tps[] = {
	GRTRACE_TP(i915_request_add, probe_add),
#ifdef CONFIG_DRM_I915_LOW_LEVEL_TRACEPOINTS
	GRTRACE_TP(i915_request_in, probe_in),
	GRTRACE_TP(i915_request_out, probe_out),
#endif
	GRTRACE_TP(i915_request_retire, probe_retire),
	GRTRACE_TP(i915_request_wait_begin, probe_wait_begin),
	GRTRACE_TP(i915_request_wait_end, probe_wait_end),
};

static struct grtrace_adapter_module grtrace_i915 = {
	.adapter = GRTRACE_ADAPTER("i915", rq_tps),
	.rings = &engine_rings,
};
module_grtrace_adapter(grtrace_i915);

MODULE_DESCRIPTION("grtrace adapter for i915");
MODULE_LICENSE("GPL");
