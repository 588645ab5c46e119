// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace adapter for the DRM GPU scheduler (gpu-sched), whatever driver
 * uses it.
 *
 * 6.1 ... 6.16 tracepoints:          6.17+ (stable uAPI) tracepoints:
 *   drm_sched_job          SUBMIT      drm_sched_job_queue
 *   drm_run_job            COMMIT      drm_sched_job_run
 *   drm_sched_process_job  END, COMPLETE (ERROR)  drm_sched_job_done
 *   drm_sched_job_wait_dep SYNC_WAIT_ENTER, EXIT  drm_sched_job_add_dep
 *
 * Built against the scheduler's trace header (a source tree), the bridge
 * follows the set that header declares.  Built against a headers package
 * only (grtrace-dkms's usual case), where nothing tells the two sets
 * apart, each entry attaches to whichever of its two names the loaded
 * gpu-sched defines (GRTRACE_TP_ALT()), and the adapters file shows
 * which.
 *
 * The job is the scheduler fence's finished fence, context:seqno; the ring
 * is the scheduler, registered the first time a probe sees it.  SUBMIT and
 * COMMIT carry in aux0 the DRM client id of the job's owner where the
 * scheduler has it (the process's drm-client-id in fdinfo, whichever thread
 * pushed the job), else the scheduler's job id, the number ftrace prints;
 * see grtrace_sched_job_owner().  On the stable set, aux1 of SUBMIT is the
 * entity's queue length after the push (job_count), of COMMIT the credits
 * in flight on the ring (hw_job_count).
 *
 * A dependency: 6.1's drm_sched_job_wait_dep fires as the scheduler picks
 * the job, 6.17's drm_sched_job_add_dep at push time, once per dependency
 * either way, signalled or not; the wait is followed from there to the
 * fence's signal (at once if it had signalled).  drm_sched_job_unschedulable
 * (the scheduler found a dependency still unsignalled when it tried to run
 * the job) names a fence add_dep named already, so the bridge does not
 * attach to it.
 *
 * No version of the scheduler has a timeout tracepoint: the flight
 * recorder's timeout trigger is a kprobe on the entry of
 * drm_sched_job_timedout(), the work item that calls the driver's
 * timedout_job(), so it fires while the hung job is still open, before the
 * driver's reset.  A second kprobe, on drm_sched_fini(), forgets the
 * ring of a scheduler that ends while its driver stays loaded (xe and
 * panthor have one per queue): the next scheduler allocated at its
 * address, often with its name at the same place too, is a new ring.
 * Both are registered while gpu-sched is loaded (a module notifier
 * follows its load and unload); without CONFIG_KPROBES there is neither.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/grtrace.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <drm/gpu_scheduler.h>

#include "grtrace_sched.h"

/*
 * The scheduler's own header: declares check_trace_callback_type_*().  In
 * a tree whose scheduler exports its stable events, the header is in
 * include/trace/events, and the bridge attaches by symbol.  With no source
 * tree (a distribution's headers), grtrace's declarations of both sets of
 * tracepoint prototypes stand in for it.
 */
#if defined(GRTRACE_ADAPTER_TYPED)
#include <trace/events/gpu_scheduler.h>
#elif defined(GRTRACE_SCHED_OWN_PROTOS)
#include "grtrace_sched_tp.h"
#else
#include "gpu_scheduler_trace.h"
#endif

static struct grtrace_ring_map sched_rings = {
	.reclaim_idle = true,
};

/* A SYNC_WAIT_EXIT to emit when the fence a job waits on signals. */
struct sched_wait {
	struct dma_fence_cb cb;
	struct dma_fence *dep;
	struct list_head link;
	struct llist_node arm;
	u32 ring_id;
	u64 ctx, seqno;
};

/* Waits whose fence has not signalled: cancelled at unload. */
static DEFINE_RAW_SPINLOCK(sched_waits_lock);
static LIST_HEAD(sched_waits);
/*
 * Their records, taken in the probe: jobs waiting on a dependency at
 * once, beyond which a wait gets GFP_ATOMIC memory (nothing on
 * PREEMPT_RT: its SYNC_WAIT_EXIT is missed, and counted).
 */
#define SCHED_WAITS_POOL	1024
static struct grtrace_pool sched_waits_pool;

static void sched_waits_arm(struct irq_work *work);
/* Waits taken by the probes whose fence callback is not yet added. */
static LLIST_HEAD(sched_waits_new);
static DEFINE_IRQ_WORK(sched_waits_work, sched_waits_arm);

static int sched_ring_slow(struct drm_gpu_scheduler *sched)
{
	const char *driver = sched->dev ? dev_driver_string(sched->dev) : "";
	struct grtrace_ring_info info = {
		/* A device without a driver (a test GPU) has no name for it. */
		.driver = *driver ? driver : "drm_sched",
		.device = sched->dev ? dev_name(sched->dev) : "",
		.name = sched->name,
		.engine = grtrace_engine_from_name(sched->name),
	};

	return grtrace_sched_ring_register(&sched_rings, sched, &info);
}

/* The ring of @sched, or a negative errno (-EXDEV: claimed by a vendor). */
static int sched_ring(struct drm_gpu_scheduler *sched)
{
	int ring = grtrace_sched_ring_find(&sched_rings, sched);

	return likely(ring != -ENOENT) ? ring : sched_ring_slow(sched);
}

static void sched_job_event(struct grtrace_tp *gtp, u16 type,
			    struct drm_sched_job *job, u64 depth)
{
	struct dma_fence *f = &job->s_fence->finished;
	int ring = grtrace_probe_ring(gtp, sched_ring(job->sched));

	if (likely(ring >= 0))
		grtrace_job_event(type, ring, f->context, f->seqno,
				  grtrace_sched_job_owner(job), depth);
}

/*
 * SUBMIT and COMMIT.  aux1 holds the queue lengths the stable tracepoints
 * print (job_count, hw_job_count); 0 for the older ones, which print none.
 * Which probes a build uses: see the table at the end.
 */
static void __maybe_unused probe_queue(void *data, struct drm_sched_job *job,
				       struct drm_sched_entity *entity)
{
	sched_job_event(data, grtrace_sched_submit_type(job), job, 0);
}

static void __maybe_unused probe_run(void *data, struct drm_sched_job *job,
				     struct drm_sched_entity *entity)
{
	sched_job_event(data, GRTRACE_EV_COMMIT, job, 0);
}

static void __maybe_unused probe_queue_stable(void *data,
					      struct drm_sched_job *job,
					      struct drm_sched_entity *entity)
{
	sched_job_event(data, grtrace_sched_submit_type(job), job,
			spsc_queue_count(&entity->job_queue));
}

static void __maybe_unused probe_run_stable(void *data,
					    struct drm_sched_job *job,
					    struct drm_sched_entity *entity)
{
#ifdef GRTRACE_HAVE_SCHED_CREDITS
	u64 in_flight = atomic_read(&job->sched->credit_count);
#else
	u64 in_flight = 0;
#endif

	sched_job_event(data, GRTRACE_EV_COMMIT, job, in_flight);
}

/* In the hardware fence's signalling path: see grtrace_sched_job_done(). */
static void probe_done(void *data, struct drm_sched_fence *s_fence)
{
	int ring = grtrace_probe_ring(data, sched_ring(s_fence->sched));

	if (likely(ring >= 0))
		grtrace_sched_job_done(ring, s_fence);
}

static void sched_wait_exit(struct sched_wait *w)
{
	grtrace_sync_wait_exit(w->ring_id, w->ctx, w->seqno, w->dep->context,
			       w->dep->seqno);
	dma_fence_put(w->dep);
	grtrace_pool_put(&sched_waits_pool, w);
}

/*
 * The dependency signalled; called under its lock, any context.  The RCU
 * read section lets unload wait for a callback that took its wait off the
 * list and still runs (sched_waits_cancel() no longer sees that wait).
 */
static void sched_wait_cb(struct dma_fence *dep, struct dma_fence_cb *cb)
{
	struct sched_wait *w = container_of(cb, struct sched_wait, cb);
	unsigned long flags;
	bool mine;

	rcu_read_lock();
	/* Off the list means unload took it and frees it. */
	raw_spin_lock_irqsave(&sched_waits_lock, flags);
	mine = !list_empty(&w->link);
	list_del_init(&w->link);
	raw_spin_unlock_irqrestore(&sched_waits_lock, flags);
	if (mine)
		sched_wait_exit(w);
	rcu_read_unlock();
}

/* Follow @w from now to its fence's signal (at once if it has signalled). */
static void sched_wait_arm(struct sched_wait *w)
{
	if (dma_fence_add_callback(w->dep, &w->cb, sched_wait_cb))
		sched_wait_cb(w->dep, &w->cb);
}

/*
 * Where a wait's fence callback is added.  dma_fence_add_callback() takes
 * the fence's lock and may call the fence driver's enable_signaling, which
 * the dma-fence contract lets run in atomic context but not in interrupt
 * context (it may take a driver lock with a plain spin_lock()).  A probe
 * runs in the scheduler's thread or the submitting task, with preemption
 * disabled: where the fence lock spins, the probe adds the callback at
 * once.  On PREEMPT_RT the fence lock sleeps, and the callback is added
 * from an irq_work, which runs there in a per-CPU kernel thread.
 */
static void sched_waits_arm(struct irq_work *work)
{
	struct llist_node *list = llist_del_all(&sched_waits_new);
	struct sched_wait *w, *next;

	llist_for_each_entry_safe(w, next, llist_reverse_order(list), arm)
		sched_wait_arm(w);
}

static void probe_wait(void *data, struct drm_sched_job *job,
		       struct dma_fence *dep)
{
	struct dma_fence *f = &job->s_fence->finished;
	struct grtrace_tp *gtp = data;
	struct sched_wait *w;
	unsigned long flags;
	int ring;

	/* Stopped: no allocation and no fence callback either. */
	ring = grtrace_probe_ring(gtp, sched_ring(job->sched));
	if (unlikely(ring < 0))
		return;
	if (unlikely(!dep)) {
		grtrace_tp_miss(gtp);
		return;
	}
	grtrace_sync_wait_enter(ring, f->context, f->seqno, dep->context,
				dep->seqno);

	/*
	 * No memory, or (never in the scheduler as it is) an interrupt,
	 * where no callback may be added: the wait has no EXIT, and the
	 * miss says so.
	 */
	if (unlikely(!IS_ENABLED(CONFIG_PREEMPT_RT) && !in_task())) {
		grtrace_tp_miss(gtp);
		return;
	}
	w = grtrace_pool_get(&sched_waits_pool);
	if (unlikely(!w)) {
		grtrace_tp_miss(gtp);
		return;
	}
	w->dep = dma_fence_get(dep);
	w->ring_id = ring;
	w->ctx = f->context;
	w->seqno = f->seqno;
	raw_spin_lock_irqsave(&sched_waits_lock, flags);
	list_add_tail(&w->link, &sched_waits);
	raw_spin_unlock_irqrestore(&sched_waits_lock, flags);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		sched_wait_arm(w);
	else if (llist_add(&w->arm, &sched_waits_new))
		irq_work_queue(&sched_waits_work);
}

/*
 * After the probes are gone no wait is added; take every pending one off
 * its fence.  dma_fence_remove_callback() takes the fence lock, under
 * which callbacks run, so once it returns sched_wait_cb() is not running
 * on @w and never will.  A callback that took its wait off the list first
 * may still be running: the caller waits for it with synchronize_rcu().
 */
static void sched_waits_cancel(void)
{
	struct sched_wait *w;
	unsigned long flags;

	for (;;) {
		raw_spin_lock_irqsave(&sched_waits_lock, flags);
		w = list_first_entry_or_null(&sched_waits, struct sched_wait,
					     link);
		if (w)
			list_del_init(&w->link);
		raw_spin_unlock_irqrestore(&sched_waits_lock, flags);
		if (!w)
			break;
		dma_fence_remove_callback(w->dep, &w->cb);
		dma_fence_put(w->dep);
		grtrace_pool_put(&sched_waits_pool, w);
	}
}

#ifdef CONFIG_KPROBES
/*
 * The scheduler's job timeout, at the entry of drm_sched_job_timedout():
 * the flight recorder's timeout trigger, naming the scheduler's ring and,
 * where its list lock can be taken here, the job that timed out (the
 * oldest pending one, which the function is about to take).  A kprobe
 * handler runs with preemption off: on PREEMPT_RT the list lock sleeps,
 * so the job is not named there (readers take the oldest unfinished job
 * of the ring).  The lock is never taken from interrupts (the scheduler
 * takes it with spin_lock()), so a trylock here cannot deadlock.
 */
static void sched_timeout_job(struct drm_gpu_scheduler *sched, u64 *ctx,
			      u64 *seqno)
{
	struct drm_sched_job *job;

	if (IS_ENABLED(CONFIG_PREEMPT_RT) ||
	    !spin_trylock(&sched->job_list_lock))
		return;
	job = list_first_entry_or_null(&sched->pending_list,
				       struct drm_sched_job, list);
	if (job && job->s_fence) {
		*ctx = job->s_fence->finished.context;
		*seqno = job->s_fence->finished.seqno;
	}
	spin_unlock(&sched->job_list_lock);
}

static int sched_timeout_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct work_struct *work = (void *)regs_get_kernel_argument(regs, 0);
	struct drm_gpu_scheduler *sched;
	u64 ctx = 0, seqno = 0;
	int ring = -ENODATA;

	sched = container_of(work, struct drm_gpu_scheduler, work_tdr.work);
	if (grtrace_tracing())
		ring = sched_ring(sched);
	sched_timeout_job(sched, &ctx, &seqno);
	grtrace_recorder_trigger(GRTRACE_TRIGGER_TIMEOUT,
				 ring >= 0 ? ring : U32_MAX, ctx, seqno, 0);
	return 0;
}

/*
 * A scheduler's end, at the entry of drm_sched_fini(): drivers with a
 * scheduler per queue (xe, panthor) free it with the queue, and the next
 * queue's may be allocated at the same address, its name at the same
 * place.  Its ring is forgotten, so that the next scheduler there is
 * registered as a ring of its own.
 */
static int sched_fini_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long sched = regs_get_kernel_argument(regs, 0);

	grtrace_ring_map_forget(&sched_rings, sched);
	return 0;
}

/* The kprobes on gpu-sched: its job timeout, its schedulers' end. */
static struct kprobe sched_kps[] = {
	{ .symbol_name = "drm_sched_job_timedout",
	  .pre_handler = sched_timeout_pre },
	{ .symbol_name = "drm_sched_fini", .pre_handler = sched_fini_pre },
};

/* Serialises the kprobes' registration: module load, unload, notifier. */
static DEFINE_MUTEX(sched_timeout_lock);
static bool sched_kp_on[ARRAY_SIZE(sched_kps)];

static void sched_timeout_attach(void)
{
	unsigned int i;
	int ret;

	mutex_lock(&sched_timeout_lock);
	for (i = 0; i < ARRAY_SIZE(sched_kps); i++) {
		if (sched_kp_on[i])
			continue;
		sched_kps[i] = (struct kprobe){
			.symbol_name = sched_kps[i].symbol_name,
			.pre_handler = sched_kps[i].pre_handler,
		};
		ret = register_kprobe(&sched_kps[i]);
		sched_kp_on[i] = !ret;
		/* -ENOENT: gpu-sched is not loaded; its load attaches. */
		if (ret && ret != -ENOENT)
			pr_warn("no kprobe on %s: %d\n",
				sched_kps[i].symbol_name, ret);
	}
	mutex_unlock(&sched_timeout_lock);
}

static void sched_timeout_detach(void)
{
	unsigned int i;

	mutex_lock(&sched_timeout_lock);
	for (i = 0; i < ARRAY_SIZE(sched_kps); i++) {
		if (sched_kp_on[i])
			unregister_kprobe(&sched_kps[i]);
		sched_kp_on[i] = false;
	}
	mutex_unlock(&sched_timeout_lock);
}

static int sched_timeout_module(struct notifier_block *nb, unsigned long state,
				void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, "gpu_sched"))
		return NOTIFY_DONE;
	if (state == MODULE_STATE_LIVE)
		sched_timeout_attach();
	else if (state == MODULE_STATE_GOING)
		sched_timeout_detach();
	return NOTIFY_DONE;
}

static struct notifier_block sched_timeout_nb = {
	.notifier_call = sched_timeout_module,
};

static int sched_timeout_setup(void)
{
	int ret = register_module_notifier(&sched_timeout_nb);

	if (!ret)
		sched_timeout_attach();
	return ret;
}

static void sched_timeout_teardown(void)
{
	unregister_module_notifier(&sched_timeout_nb);
	sched_timeout_detach();
}
#else
static int sched_timeout_setup(void)
{
	pr_info("no timeout trigger for the flight recorder, and a scheduler freed keeps its ring for the next one at its address: CONFIG_KPROBES is not set\n");
	return 0;
}

static void sched_timeout_teardown(void)
{
}
#endif

static int sched_setup(void)
{
	int ret;

	ret = grtrace_pool_init(&sched_waits_pool, sizeof(struct sched_wait),
				SCHED_WAITS_POOL);
	if (ret)
		return ret;
	ret = sched_timeout_setup();
	if (ret)
		grtrace_pool_destroy(&sched_waits_pool);
	return ret;
}

/* The probes are gone: no wait is added any more. */
static void sched_teardown(void)
{
	sched_timeout_teardown();
	/* The waits the last probes took get their callbacks first. */
	irq_work_sync(&sched_waits_work);
	sched_waits_cancel();
	/* Callbacks that were already past the list: see sched_wait_cb(). */
	synchronize_rcu();
	grtrace_pool_destroy(&sched_waits_pool);
}

/*
 * With the scheduler's trace header, its set; without, either set, entry
 * by entry, whichever gpu-sched defines (the stable one named first).
 */
static struct grtrace_tp sched_tps[] = {
#if defined(GRTRACE_SCHED_OWN_PROTOS)
	GRTRACE_TP_ALT(drm_sched_job_queue, probe_queue_stable,
		       drm_sched_job, probe_queue),
	GRTRACE_TP_ALT(drm_sched_job_run, probe_run_stable,
		       drm_run_job, probe_run),
	GRTRACE_TP_ALT(drm_sched_job_done, probe_done,
		       drm_sched_process_job, probe_done),
	GRTRACE_TP_ALT(drm_sched_job_add_dep, probe_wait,
		       drm_sched_job_wait_dep, probe_wait),
#elif defined(GRTRACE_SCHED_TP_STABLE)
	GRTRACE_TP(drm_sched_job_queue, probe_queue_stable),
	GRTRACE_TP(drm_sched_job_run, probe_run_stable),
	GRTRACE_TP(drm_sched_job_done, probe_done),
	GRTRACE_TP(drm_sched_job_add_dep, probe_wait),
#else
	GRTRACE_TP(drm_sched_job, probe_queue),
	GRTRACE_TP(drm_run_job, probe_run),
	GRTRACE_TP(drm_sched_process_job, probe_done),
	GRTRACE_TP(drm_sched_job_wait_dep, probe_wait),
#endif
};

static struct grtrace_adapter_module grtrace_drm_bridge = {
	.adapter = GRTRACE_ADAPTER("drm_bridge", sched_tps),
	.rings = &sched_rings,
	.setup = sched_setup,
	.teardown = sched_teardown,
};
module_grtrace_adapter(grtrace_drm_bridge);

MODULE_DESCRIPTION("grtrace adapter for the DRM GPU scheduler");
MODULE_LICENSE("GPL");
