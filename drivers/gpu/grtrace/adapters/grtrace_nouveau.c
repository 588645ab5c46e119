// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace adapter for nouveau: one ring per channel, from dma-fence events.
 *
 *   dma_fence_init      SUBMIT, COMMIT         of fences whose driver name
 *   dma_fence_signaled  END, [ERROR], COMPLETE is "nouveau"
 *
 * nouveau of 6.1 has no tracepoints of its own, and does not call
 * trace_dma_fence_emit() either: nouveau_fence_emit() initialises the
 * fence right before it writes the fence to the channel, after the
 * commands of the job were pushed.  So SUBMIT and COMMIT are both that
 * instant, and END and COMPLETE the fence signalling.
 *
 * The job is the fence, context:seqno; the ring is its fence context (a
 * channel), named by its timeline name (the client that owns the channel,
 * e.g. "Xorg[1234]", or "copy engine channel").
 *
 * Both tracepoints are built into the kernel and fire for every fence of
 * every driver, so the adapter decides by the fence's ops table, which
 * nouveau shares between all of its fences: a small cache remembers which
 * ops tables are nouveau's and which are not, and only a table it has not
 * seen costs a call of get_driver_name().  The cache forgets everything
 * when any module unloads, as a new module's table may take an old one's
 * address.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-fence.h>
#include <linux/grtrace.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

/* The tracepoints' own header: declares check_trace_callback_type_*(). */
#include <trace/events/dma_fence.h>

#include "grtrace_adapter.h"

static struct grtrace_ring_map chan_rings = {
	.reclaim_idle = true,
};

/* Ops tables known, bit 0 set for nouveau's; 0 is an empty slot. */
#define OPS_SLOTS	8
#define OPS_NOUVEAU	1UL

static unsigned long ops_cache[OPS_SLOTS];
static unsigned int ops_next;	/* round-robin victim; under ops_lock */
static unsigned int ops_gen;	/* bumped when a module unloads */
static DEFINE_RAW_SPINLOCK(ops_lock);

static bool ops_classify(struct dma_fence *fence)
{
	unsigned long ops = (unsigned long)fence->ops;
	unsigned int gen = READ_ONCE(ops_gen);
	unsigned long flags;
	bool mine;

	/* As safe as ftrace's dma_fence events, which call it too. */
	mine = !strcmp(fence->ops->get_driver_name(fence), "nouveau");

	/* A module that unloaded since @gen was read may own @ops. */
	raw_spin_lock_irqsave(&ops_lock, flags);
	if (gen == ops_gen) {
		WRITE_ONCE(ops_cache[ops_next], ops | (mine ? OPS_NOUVEAU : 0));
		ops_next = (ops_next + 1) % OPS_SLOTS;
	}
	raw_spin_unlock_irqrestore(&ops_lock, flags);
	return mine;
}

/* Is @fence nouveau's?  Lock-free once its ops table is cached. */
static bool is_nouveau(struct dma_fence *fence)
{
	unsigned long ops = (unsigned long)fence->ops;
	unsigned long v;
	int i;

	for (i = 0; i < OPS_SLOTS; i++) {
		v = READ_ONCE(ops_cache[i]);
		if ((v & ~OPS_NOUVEAU) == ops)
			return v & OPS_NOUVEAU;
	}
	return ops_classify(fence);
}

static int ops_module_going(struct notifier_block *nb, unsigned long state,
			    void *data)
{
	unsigned long flags;
	int i;

	if (state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	raw_spin_lock_irqsave(&ops_lock, flags);
	for (i = 0; i < OPS_SLOTS; i++)
		WRITE_ONCE(ops_cache[i], 0);
	WRITE_ONCE(ops_gen, ops_gen + 1);
	raw_spin_unlock_irqrestore(&ops_lock, flags);
	return NOTIFY_DONE;
}

static struct notifier_block ops_nb = {
	.notifier_call = ops_module_going,
};

static int chan_ring_slow(struct dma_fence *fence)
{
	const char *name = fence->ops->get_timeline_name(fence);
	struct grtrace_ring_info info = {
		.driver = "nouveau",
		.device = "",
		.name = name,
		.engine = grtrace_engine_from_name(name),
	};

	return grtrace_ring_map_register(&chan_rings, fence->context,
					 (unsigned long)fence->ops,
					 (unsigned long)fence->ops, &info);
}

/* The ring of a nouveau fence's channel, or a negative errno. */
static int chan_ring(struct dma_fence *fence)
{
	int ring = grtrace_ring_map_id(&chan_rings, fence->context,
				       (unsigned long)fence->ops);

	return likely(ring != -ENOENT) ? ring : chan_ring_slow(fence);
}

/*
 * Other drivers' fences are neither hits nor misses; while tracing is
 * stopped no fence is even classified.
 */
static int fence_hit(struct grtrace_tp *gtp, struct dma_fence *fence)
{
	if (!grtrace_tracing() || likely(!is_nouveau(fence)))
		return -ENOENT;
	return grtrace_probe_hit(gtp, chan_ring(fence));
}

static void probe_init(void *data, struct dma_fence *fence)
{
	int ring = fence_hit(data, fence);

	if (ring < 0)
		return;
	/* One fence init: the COMMIT is the SUBMIT's moment, not its own. */
	grtrace_submit(ring, fence->context, fence->seqno);
	grtrace_job_event(GRTRACE_EV_COMMIT | GRTRACE_JOB_DERIVED, ring,
			  fence->context, fence->seqno, 0, 0);
}

/* Called under the fence's lock, often from nouveau's interrupt work. */
static void probe_signaled(void *data, struct dma_fence *fence)
{
	int ring = fence_hit(data, fence);

	if (ring < 0)
		return;
	grtrace_end(ring, fence->context, fence->seqno);
	/* -ENODEV, -EIO ...: the channel was killed before the fence ran. */
	if (unlikely(fence->error < 0))
		grtrace_error(ring, fence->context, fence->seqno, fence->error,
			      0);
	grtrace_job_event(GRTRACE_EV_COMPLETE | GRTRACE_JOB_DERIVED, ring,
			  fence->context, fence->seqno, 0, 0);
}

static int fence_setup(void)
{
	return register_module_notifier(&ops_nb);
}

static void fence_teardown(void)
{
	unregister_module_notifier(&ops_nb);
}

static struct grtrace_tp fence_tps[] = {
	GRTRACE_TP(dma_fence_init, probe_init),
	GRTRACE_TP(dma_fence_signaled, probe_signaled),
};

static struct grtrace_adapter_module grtrace_nouveau = {
	.adapter = GRTRACE_ADAPTER("nouveau", fence_tps),
	.rings = &chan_rings,
	.setup = fence_setup,
	.teardown = fence_teardown,
};
module_grtrace_adapter(grtrace_nouveau);

MODULE_DESCRIPTION("grtrace adapter for nouveau");
MODULE_LICENSE("GPL");
