// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_vgpu: a virtual GPU whose rings are real DRM schedulers, for
 * testing and demonstrating grtrace without GPU hardware.
 */

/**
 * DOC: grtrace_vgpu
 *
 * grtrace_vgpu.ko is a tiny GPU "driver" without hardware.  Its three rings
 * are real &struct drm_gpu_scheduler instances of gpu-sched.ko, so every
 * job it runs fires the kernel's own gpu_scheduler tracepoints
 * (drm_sched_job, drm_run_job, drm_sched_process_job and
 * drm_sched_job_wait_dep).  It does not call grtrace and does not depend on
 * grtrace.ko: grtrace observes it through those tracepoints, like any other
 * drm_sched driver.
 *
 * Rings are named ``vgpu0-gfx``, ``vgpu0-compute`` and ``vgpu0-copy``
 * (the engine class is in the name).  A context is one
 * &struct drm_sched_entity on a ring, created the first time a workload
 * line names it; its fences therefore carry a real dma-fence context.
 *
 * The "hardware" behind each ring is one in-order engine.  run_job() puts
 * the job's hardware fence on the ring's queue; a job starts when the job
 * before it on the ring has finished (or at once if the engine is idle) and
 * an hrtimer signals its fence EXEC_US later, so jobs really queue on a busy
 * ring.  A ``hang`` job never finishes: after timeout_ms the scheduler calls
 * timedout_job(), which follows the usual recovery sequence -- stop the
 * scheduler, reset the engine (only the hung job is lost: its fences are
 * signalled with -ETIME, the jobs behind it keep their place), resubmit,
 * restart -- so later jobs still run.  The scheduler's timeout runs from
 * when the job before finished, so a job whose EXEC_US exceeds timeout_ms
 * is reset the same way.
 *
 * The interface is in debugfs, ``/sys/kernel/debug/grtrace_vgpu/``, root
 * only:
 *
 * ``submit`` (write)
 *   One workload line per line of text::
 *
 *     RING CTX COUNT EXEC_US [dep=RING:CTX] [hang]
 *
 *   queues COUNT jobs (1..100000) on RING (``gfx``, ``compute`` or
 *   ``copy``) from context CTX (0..max_contexts-1), each busy on the engine
 *   for EXEC_US microseconds (0..10000000).  ``dep=RING:CTX`` makes each
 *   job wait for the finished fence of the latest job submitted so far by
 *   that ring and context (no dependency while it has none); the scheduler
 *   then fires drm_sched_job_wait_dep once for the job, signalled or not.
 *   ``hang`` makes every job of the line hang.  Blank lines and lines
 *   starting with ``#`` are skipped; at most 64 lines and 4096 bytes.
 *
 *   Each write(2) is checked as a whole first: any bad line fails it with
 *   -EINVAL and nothing is submitted (pr_debug says why).  Note that
 *   bash's printf writes line by line.  Once submission has begun, -ENOMEM,
 *   a signal (-EINTR) or unloading (-ENODEV) ends the write early and
 *   leaves the jobs already queued.  The writer sleeps while max_inflight
 *   jobs are unfinished.
 * ``wait`` (read)
 *   Blocks until every submitted job has finished and been freed, then
 *   reads ``idle``.  Interruptible; fails with -ETIMEDOUT after 60 seconds.
 * ``stats`` (read)
 *   One line per ring: ``ring=NAME submitted=N completed=N timed_out=N
 *   contexts=N``.  ``completed`` counts every finished job, including
 *   timed-out ones; ``submitted == completed`` once idle.
 * ``replace`` (write)
 *   ``RING NAME``: once every job has finished, ends RING's scheduler
 *   (drm_sched_fini()) and starts another in its place, at the same
 *   address, named NAME (1..31 characters, no space) from the same
 *   buffer, with new contexts.  This is what a driver with a scheduler per
 *   queue (xe, panthor) does when one queue is destroyed and the next one
 *   gets its memory.  -EINVAL for a bad line, -ETIMEDOUT when jobs are
 *   still unfinished after 60 seconds: nothing changes then.  If the new
 *   scheduler cannot start, the ring is down: its stats line says
 *   ``down=1`` and submissions naming it fail with -ENODEV.
 * ``info`` (read)
 *   ``client_ids=1`` when the jobs submitted through the render node carry
 *   the DRM client id of their file to the scheduler (6.16+), else 0.
 *
 * With render_node=1 the device is also a DRM device,
 * /sys/devices/vgpu0/drm/renderD* (and a card minor, which other tests
 * expect to be a real GPU's: off by default), with one ioctl,
 * %DRM_IOCTL_VGPU_SUBMIT (grtrace_vgpu_uapi.h): the same workload lines,
 * submitted through a DRM file, as a real driver's submit ioctl would,
 * optionally pushed from a kernel worker.  Jobs of the debugfs file come
 * from no file (client id 0).
 *
 * Unloading the module with jobs in flight cancels them: the engines
 * signal every queued fence with -ECANCELED and run_job() refuses new work,
 * which unblocks the jobs waiting on dependencies, then the module waits
 * for every job to be freed before it tears down entities and schedulers.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/gpu_scheduler.h>

#include "../grtrace_compat.h"
#include "grtrace_vgpu_uapi.h"

/* The scheduler takes a DRM client id, and a DRM file has one (6.16). */
#if defined(GRTRACE_SCHED_FILE_CLIENT_ID) && \
	defined(GRTRACE_SCHED_JOB_INIT_CLIENT)
#define GRTRACE_VGPU_CLIENT_IDS	1
#endif

#define VGPU_NUM_RINGS		3
#define VGPU_MAX_COUNT		100000
#define VGPU_MAX_EXEC_US	(10 * USEC_PER_SEC)
#define VGPU_MAX_WRITE		4096
#define VGPU_MAX_LINES		64
#define VGPU_WAIT_TIMEOUT	(60 * HZ)

static unsigned int timeout_ms = 500;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "Job timeout of every ring in ms, 1..60000 (default 500)");

static unsigned int hw_depth = 64;
module_param(hw_depth, uint, 0444);
MODULE_PARM_DESC(hw_depth, "Jobs a ring holds on its engine at once, 1..1024 (default 64)");

static unsigned int max_contexts = 16;
module_param(max_contexts, uint, 0444);
MODULE_PARM_DESC(max_contexts, "Contexts (entities) per ring, 1..1024 (default 16)");

static bool render_node;
module_param(render_node, bool, 0444);
MODULE_PARM_DESC(render_node, "Register a DRM device with a render node and a submit ioctl (default off: it would take a card minor)");

static unsigned int max_inflight = 65536;
module_param(max_inflight, uint, 0444);
MODULE_PARM_DESC(max_inflight, "Unfinished jobs before submit sleeps, >= 1 (default 65536)");

/**
 * struct vgpu_ctx - one context's entity on one ring
 * @entity: the scheduler entity; its fence contexts identify the context
 * @last: finished fence of the context's latest job, target of ``dep=``;
 *	protected by &vgpu_device.submit_lock
 */
struct vgpu_ctx {
	struct drm_sched_entity entity;
	struct dma_fence *last;
};

/**
 * struct vgpu_ring - a ring: a DRM scheduler in front of an in-order engine
 * @sched: the ring's scheduler
 * @sched_list: the scheduler list its entities are created with
 * @ctx: contexts by number, created on first use under
 *	&vgpu_device.submit_lock
 * @nr_ctx: contexts created, for stats
 * @lock: the engine lock, also the lock of the ring's hardware fences;
 *	protects @hw_queue, @last_end, @seqno and @dying
 * @hw_queue: hardware fences of jobs handed to the engine, in order
 * @timer: fires when the job at the head of @hw_queue is due
 * @last_end: when the engine finished its previous job
 * @fence_context: dma-fence context of the hardware fences
 * @seqno: last hardware fence seqno
 * @dying: the module is unloading: cancel, accept nothing
 * @down: a replacement's scheduler did not start: no scheduler, no job
 * @name: the scheduler's name, in place: a replacement reuses it
 * @submitted: jobs pushed to the ring's entities
 * @completed: jobs freed after their finished fence signalled
 * @timed_out: jobs the engine lost to a timeout reset
 */
struct vgpu_ring {
	struct drm_gpu_scheduler sched;
	struct drm_gpu_scheduler *sched_list[1];
	struct vgpu_ctx **ctx;
	unsigned int nr_ctx;
	spinlock_t lock;	/* the engine; see @lock above */
	struct list_head hw_queue;
	struct hrtimer timer;
	ktime_t last_end;
	u64 fence_context;
	u64 seqno;
	bool dying;
	bool down;
	char name[32];
	atomic64_t submitted;
	atomic64_t completed;
	atomic64_t timed_out;
};

/**
 * struct vgpu_hw_fence - the engine's view of a job
 * @base: the hardware fence run_job() returns
 * @ring: the ring whose engine runs it
 * @link: entry in &vgpu_ring.hw_queue while unsignalled
 * @queued: when run_job() handed it to the engine
 * @end: when the engine finishes it, set when it starts
 * @exec_us: engine time it needs
 * @hang: it never finishes by itself
 * @started: the engine has started it (@end is valid)
 */
struct vgpu_hw_fence {
	struct dma_fence base;
	struct vgpu_ring *ring;
	struct list_head link;
	ktime_t queued;
	ktime_t end;
	u32 exec_us;
	bool hang;
	bool started;
};

/**
 * struct vgpu_job - a job
 * @base: the scheduler job
 * @ring: its ring
 * @hw: its hardware fence, allocated at submit time so that run_job()
 *	never allocates
 * @hw_live: run_job() initialised @hw; the job then holds a reference to
 *	it instead of owning the memory
 */
struct vgpu_job {
	struct drm_sched_job base;
	struct vgpu_ring *ring;
	struct vgpu_hw_fence *hw;
	bool hw_live;
};

/**
 * struct vgpu_cmd - one parsed workload line
 * @ring: ring to submit to
 * @ctx: context number
 * @count: number of jobs
 * @exec_us: engine time of each job
 * @dep_ring: ring of the dependency, NULL for none
 * @dep_ctx: context of the dependency
 * @hang: the jobs hang
 * @client: DRM client id of the file it came through, 0 for none
 */
struct vgpu_cmd {
	struct vgpu_ring *ring;
	u32 ctx;
	u32 count;
	u32 exec_us;
	struct vgpu_ring *dep_ring;
	u32 dep_ctx;
	bool hang;
	u64 client;
};

/**
 * struct vgpu_device - the virtual GPU
 * @rings: gfx, compute, copy
 * @submit_lock: serialises submission (job arm and push of every entity)
 *	and context creation
 * @idle_wq: woken when no job is left, and when a throttled writer may go
 * @inflight: jobs submitted and not yet freed
 * @hw_fences: hardware fences not yet released, to catch leaks at unload
 * @dying: the module is unloading
 * @debugfs: our debugfs directory
 * @dev: the schedulers' device, /sys/devices/vgpu0, without a driver: the
 *	stable tracepoints of 6.17+ print its name
 * @drm: the DRM device on @dev, for the render node
 */
struct vgpu_device {
	struct vgpu_ring rings[VGPU_NUM_RINGS];
	struct mutex submit_lock;	/* submission; see @submit_lock above */
	wait_queue_head_t idle_wq;
	atomic_t inflight;
	atomic_t hw_fences;
	bool dying;
	struct dentry *debugfs;
	struct device *dev;
	struct drm_device *drm;
};

static struct vgpu_device vgpu;

static const char * const vgpu_ring_names[VGPU_NUM_RINGS] = {
	"gfx", "compute", "copy"
};

static const char * const vgpu_sched_names[VGPU_NUM_RINGS] = {
	"vgpu0-gfx", "vgpu0-compute", "vgpu0-copy"
};

static struct vgpu_job *to_vgpu_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct vgpu_job, base);
}

static struct vgpu_hw_fence *to_vgpu_hw_fence(struct dma_fence *f)
{
	return container_of(f, struct vgpu_hw_fence, base);
}

static const char *vgpu_fence_driver_name(struct dma_fence *f)
{
	return KBUILD_MODNAME;
}

static const char *vgpu_fence_timeline_name(struct dma_fence *f)
{
	return to_vgpu_hw_fence(f)->ring->sched.name;
}

static void vgpu_fence_release(struct dma_fence *f)
{
	atomic_dec(&vgpu.hw_fences);
	dma_fence_free(f);
}

static const struct dma_fence_ops vgpu_fence_ops = {
	.get_driver_name = vgpu_fence_driver_name,
	.get_timeline_name = vgpu_fence_timeline_name,
	.release = vgpu_fence_release,
};

/* The engine: an in-order queue of hardware fences and one timer. */

static struct vgpu_hw_fence *vgpu_engine_head(struct vgpu_ring *ring)
{
	lockdep_assert_held(&ring->lock);
	return list_first_entry_or_null(&ring->hw_queue, struct vgpu_hw_fence,
					link);
}

/* The head starts when it was queued or when its predecessor ended. */
static void vgpu_engine_begin(struct vgpu_ring *ring, struct vgpu_hw_fence *hw)
{
	lockdep_assert_held(&ring->lock);
	hw->started = true;
	hw->end = hw->hang ? KTIME_MAX :
		  ktime_add_us(max(hw->queued, ring->last_end), hw->exec_us);
}

static void vgpu_engine_arm(struct vgpu_ring *ring, struct vgpu_hw_fence *hw)
{
	lockdep_assert_held(&ring->lock);
	if (!hw->hang)
		hrtimer_start(&ring->timer, hw->end, HRTIMER_MODE_ABS);
}

static void vgpu_engine_retire(struct vgpu_ring *ring,
			       struct vgpu_hw_fence *hw, int error)
{
	lockdep_assert_held(&ring->lock);
	list_del(&hw->link);
	if (error)
		dma_fence_set_error(&hw->base, error);
	dma_fence_signal_locked(&hw->base);
	dma_fence_put(&hw->base);	/* the engine's reference */
}

/*
 * Retire every job due by @now, in order, and arm the timer for the next.
 * A timer that fires early or late only makes this run again or run late:
 * nothing depends on which timer expiry retires a job.
 */
static void vgpu_engine_advance(struct vgpu_ring *ring, ktime_t now)
{
	struct vgpu_hw_fence *hw;

	lockdep_assert_held(&ring->lock);
	while ((hw = vgpu_engine_head(ring))) {
		if (!hw->started)
			vgpu_engine_begin(ring, hw);
		if (hw->hang)
			return;	/* stuck until timedout_job() resets us */
		if (hw->end > now) {
			vgpu_engine_arm(ring, hw);
			return;
		}
		ring->last_end = hw->end;
		vgpu_engine_retire(ring, hw, 0);
	}
}

static enum hrtimer_restart vgpu_engine_irq(struct hrtimer *timer)
{
	struct vgpu_ring *ring = container_of(timer, struct vgpu_ring, timer);
	unsigned long flags;

	spin_lock_irqsave(&ring->lock, flags);
	vgpu_engine_advance(ring, ktime_get());
	spin_unlock_irqrestore(&ring->lock, flags);
	return HRTIMER_NORESTART;
}

/*
 * Engine reset after a timeout: the job loses its place with -ETIME (also
 * on its finished fence: 6.1 does not pass the hardware fence's error on),
 * the next job starts now.  A job that finished meanwhile is left alone.
 */
static void vgpu_engine_reset(struct vgpu_ring *ring, struct vgpu_job *job)
{
	struct vgpu_hw_fence *hw = job->hw;
	unsigned long flags;
	bool was_head;

	spin_lock_irqsave(&ring->lock, flags);
	if (job->hw_live &&
	    !test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &hw->base.flags)) {
		was_head = hw == vgpu_engine_head(ring);
		pr_info("%s: job %llu:%llu timed out, engine reset\n",
			ring->sched.name, job->base.s_fence->finished.context,
			job->base.s_fence->finished.seqno);
		/* Unsignalled: its callback is off, the thread is parked. */
		dma_fence_set_error(&job->base.s_fence->finished, -ETIME);
		vgpu_engine_retire(ring, hw, -ETIME);
		atomic64_inc(&ring->timed_out);
		if (was_head) {
			ring->last_end = ktime_get();
			vgpu_engine_advance(ring, ring->last_end);
		}
	}
	spin_unlock_irqrestore(&ring->lock, flags);
}

/* Unload: every queued job ends now with -ECANCELED, nothing new runs. */
static void vgpu_engine_cancel(struct vgpu_ring *ring)
{
	struct vgpu_hw_fence *hw;
	unsigned long flags;

	spin_lock_irqsave(&ring->lock, flags);
	ring->dying = true;
	while ((hw = vgpu_engine_head(ring)))
		vgpu_engine_retire(ring, hw, -ECANCELED);
	spin_unlock_irqrestore(&ring->lock, flags);
}

/* The scheduler backend. */

static struct dma_fence *vgpu_run_job(struct drm_sched_job *sched_job)
{
	struct vgpu_job *job = to_vgpu_job(sched_job);
	struct vgpu_hw_fence *hw = job->hw;
	struct vgpu_ring *ring = job->ring;
	unsigned long flags;

	/* Resubmitted after a reset: the engine kept the job in its queue. */
	if (job->hw_live)
		return dma_fence_get(&hw->base);

	spin_lock_irqsave(&ring->lock, flags);
	if (ring->dying) {
		spin_unlock_irqrestore(&ring->lock, flags);
		return ERR_PTR(-ECANCELED);
	}
	dma_fence_init(&hw->base, &vgpu_fence_ops, &ring->lock,
		       ring->fence_context, ++ring->seqno);
	atomic_inc(&vgpu.hw_fences);
	job->hw_live = true;
	hw->queued = ktime_get();
	list_add_tail(&hw->link, &ring->hw_queue);
	dma_fence_get(&hw->base);	/* the engine's reference */
	if (list_is_singular(&ring->hw_queue)) {
		vgpu_engine_begin(ring, hw);
		vgpu_engine_arm(ring, hw);
	}
	spin_unlock_irqrestore(&ring->lock, flags);

	return dma_fence_get(&hw->base);	/* the scheduler's reference */
}

/*
 * The recovery sequence of include/drm/gpu_scheduler.h: stop, reset,
 * resubmit, restart.  drm_sched_stop() puts the job back on the pending
 * list; resubmission hands the scheduler the same hardware fences again.
 */
static enum drm_gpu_sched_stat vgpu_timedout_job(struct drm_sched_job *sched_job)
{
	struct vgpu_job *job = to_vgpu_job(sched_job);
	struct drm_gpu_scheduler *sched = &job->ring->sched;

	drm_sched_stop(sched, sched_job);
	vgpu_engine_reset(job->ring, job);
	drm_sched_resubmit_jobs(sched);
#if defined(GRTRACE_SCHED_START_NOARG)
	drm_sched_start(sched);
#elif defined(GRTRACE_SCHED_START_ERRNO)
	drm_sched_start(sched, 0);
#else
	drm_sched_start(sched, true);
#endif
#ifdef GRTRACE_HAVE_SCHED_STAT_RESET
	return DRM_GPU_SCHED_STAT_RESET;
#else
	return DRM_GPU_SCHED_STAT_NOMINAL;
#endif
}

static void vgpu_free_job(struct drm_sched_job *sched_job)
{
	struct vgpu_job *job = to_vgpu_job(sched_job);
	unsigned int left;

	atomic64_inc(&job->ring->completed);
	drm_sched_job_cleanup(sched_job);
	if (job->hw_live)
		dma_fence_put(&job->hw->base);
	else
		kfree(job->hw);
	kfree(job);

	/* Wake wait readers at idle, a throttled writer once there is room. */
	left = atomic_dec_return(&vgpu.inflight);
	if (!left || left == max_inflight - 1)
		wake_up_all(&vgpu.idle_wq);
}

static const struct drm_sched_backend_ops vgpu_sched_ops = {
	.run_job = vgpu_run_job,
	.timedout_job = vgpu_timedout_job,
	.free_job = vgpu_free_job,
};

/* Submission. */

static struct vgpu_ctx *vgpu_get_ctx(struct vgpu_ring *ring, u32 id)
{
	struct vgpu_ctx *ctx = ring->ctx[id];
	int ret;

	lockdep_assert_held(&vgpu.submit_lock);
	if (ctx)
		return ctx;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	ret = drm_sched_entity_init(&ctx->entity, DRM_SCHED_PRIORITY_NORMAL,
				    ring->sched_list, 1, NULL);
	if (ret) {
		kfree(ctx);
		return ERR_PTR(ret);
	}
	ring->ctx[id] = ctx;
	WRITE_ONCE(ring->nr_ctx, ring->nr_ctx + 1);
	return ctx;
}

static unsigned int vgpu_inflight(void)
{
	return atomic_read(&vgpu.inflight);
}

/* Sleep while max_inflight jobs are unfinished. */
static int vgpu_throttle(void)
{
	int ret;

	ret = wait_event_interruptible(vgpu.idle_wq,
				       vgpu_inflight() < max_inflight ||
				       READ_ONCE(vgpu.dying));
	if (ret)
		return ret;
	return READ_ONCE(vgpu.dying) ? -ENODEV : 0;
}

static struct vgpu_job *vgpu_job_alloc(const struct vgpu_cmd *cmd)
{
	struct vgpu_job *job;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return NULL;
	job->hw = kzalloc(sizeof(*job->hw), GFP_KERNEL);
	if (!job->hw) {
		kfree(job);
		return NULL;
	}
	job->ring = cmd->ring;
	job->hw->ring = cmd->ring;
	job->hw->exec_us = cmd->exec_us;
	job->hw->hang = cmd->hang;
	return job;
}

static int vgpu_submit_one(const struct vgpu_cmd *cmd, struct vgpu_ctx *ctx,
			   struct vgpu_ctx *dep)
{
	struct vgpu_job *job;
	int ret;

	lockdep_assert_held(&vgpu.submit_lock);
	ret = vgpu_throttle();
	if (ret)
		return ret;
	job = vgpu_job_alloc(cmd);
	if (!job)
		return -ENOMEM;
	/* Each job takes one credit: hw_depth jobs on the engine at once. */
#if defined(GRTRACE_SCHED_JOB_INIT_CLIENT)
	ret = drm_sched_job_init(&job->base, &ctx->entity, 1, ctx, cmd->client);
#elif defined(GRTRACE_SCHED_JOB_INIT_CREDITS)
	ret = drm_sched_job_init(&job->base, &ctx->entity, 1, ctx);
#else
	ret = drm_sched_job_init(&job->base, &ctx->entity, ctx);
#endif
	if (ret)
		goto err_free;
	if (dep && dep->last) {
		/* Consumes the reference, on failure too. */
		ret = drm_sched_job_add_dependency(&job->base,
						   dma_fence_get(dep->last));
		if (ret)
			goto err_cleanup;
	}

	drm_sched_job_arm(&job->base);
	dma_fence_put(ctx->last);
	ctx->last = dma_fence_get(&job->base.s_fence->finished);
	atomic_inc(&vgpu.inflight);
	atomic64_inc(&cmd->ring->submitted);
	drm_sched_entity_push_job(&job->base);
	return 0;

err_cleanup:
	drm_sched_job_cleanup(&job->base);
err_free:
	kfree(job->hw);
	kfree(job);
	return ret;
}

static int vgpu_submit_cmd(const struct vgpu_cmd *cmd)
{
	struct vgpu_ctx *ctx, *dep = NULL;
	u32 i;
	int ret;

	if (cmd->ring->down || (cmd->dep_ring && cmd->dep_ring->down))
		return -ENODEV;
	ctx = vgpu_get_ctx(cmd->ring, cmd->ctx);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	/* A context that never ran has no latest job to wait for. */
	if (cmd->dep_ring)
		dep = cmd->dep_ring->ctx[cmd->dep_ctx];
	for (i = 0; i < cmd->count; i++) {
		ret = vgpu_submit_one(cmd, ctx, dep);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

static int vgpu_submit(const struct vgpu_cmd *cmds, unsigned int n)
{
	unsigned int i;
	int ret = 0;

	if (mutex_lock_interruptible(&vgpu.submit_lock))
		return -EINTR;
	if (READ_ONCE(vgpu.dying))
		ret = -ENODEV;
	for (i = 0; i < n && !ret; i++)
		ret = vgpu_submit_cmd(&cmds[i]);
	mutex_unlock(&vgpu.submit_lock);
	return ret;
}

/* Parsing of workload lines: nothing here touches the device. */

static int vgpu_bad(unsigned int lineno, const char *what, const char *word)
{
	pr_debug("submit: line %u: %s '%s'\n", lineno, what, word);
	return -EINVAL;
}

static struct vgpu_ring *vgpu_ring_by_name(const char *name)
{
	int i = match_string(vgpu_ring_names, VGPU_NUM_RINGS, name);

	return i < 0 ? NULL : &vgpu.rings[i];
}

static int vgpu_parse_ctx(const char *word, u32 *ctx)
{
	if (kstrtou32(word, 10, ctx) || *ctx >= max_contexts)
		return -EINVAL;
	return 0;
}

static int vgpu_parse_dep(char *arg, struct vgpu_cmd *cmd, unsigned int lineno)
{
	char *ctx = strchr(arg, ':');

	if (cmd->dep_ring || !ctx)
		return vgpu_bad(lineno, "bad or repeated dep=", arg);
	*ctx++ = '\0';
	cmd->dep_ring = vgpu_ring_by_name(arg);
	if (!cmd->dep_ring)
		return vgpu_bad(lineno, "unknown dependency ring", arg);
	if (vgpu_parse_ctx(ctx, &cmd->dep_ctx))
		return vgpu_bad(lineno, "bad dependency context", ctx);
	return 0;
}

static int vgpu_parse_options(char **word, unsigned int n,
			      struct vgpu_cmd *cmd, unsigned int lineno)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		if (str_has_prefix(word[i], "dep=")) {
			ret = vgpu_parse_dep(word[i] + 4, cmd, lineno);
			if (ret)
				return ret;
		} else if (!strcmp(word[i], "hang") && !cmd->hang) {
			cmd->hang = true;
		} else {
			return vgpu_bad(lineno, "bad or repeated option",
					word[i]);
		}
	}
	return 0;
}

/* RING CTX COUNT EXEC_US [dep=RING:CTX] [hang] */
static int vgpu_parse_line(char *line, struct vgpu_cmd *cmd,
			   unsigned int lineno)
{
	char *word[6], *w;
	unsigned int n = 0;

	while ((w = strsep(&line, " \t"))) {
		if (!*w)
			continue;
		if (n == ARRAY_SIZE(word))
			return vgpu_bad(lineno, "too many words at", w);
		word[n++] = w;
	}
	if (n < 4)
		return vgpu_bad(lineno, "want RING CTX COUNT EXEC_US, got",
				n ? word[0] : "");
	memset(cmd, 0, sizeof(*cmd));
	cmd->ring = vgpu_ring_by_name(word[0]);
	if (!cmd->ring)
		return vgpu_bad(lineno, "unknown ring", word[0]);
	if (vgpu_parse_ctx(word[1], &cmd->ctx))
		return vgpu_bad(lineno, "bad context", word[1]);
	if (kstrtou32(word[2], 10, &cmd->count) || !cmd->count ||
	    cmd->count > VGPU_MAX_COUNT)
		return vgpu_bad(lineno, "bad count", word[2]);
	if (kstrtou32(word[3], 10, &cmd->exec_us) ||
	    cmd->exec_us > VGPU_MAX_EXEC_US)
		return vgpu_bad(lineno, "bad exec time", word[3]);
	return vgpu_parse_options(word + 4, n - 4, cmd, lineno);
}

/* Parse every line of @buf into @cmds; returns how many, or -EINVAL. */
static int vgpu_parse(char *buf, struct vgpu_cmd *cmds)
{
	unsigned int n = 0, lineno = 0;
	char *line;
	int ret;

	while ((line = strsep(&buf, "\n"))) {
		lineno++;
		line = strim(line);
		if (!*line || *line == '#')
			continue;
		if (n == VGPU_MAX_LINES)
			return vgpu_bad(lineno, "too many lines at", line);
		ret = vgpu_parse_line(line, &cmds[n], lineno);
		if (ret)
			return ret;
		n++;
	}
	if (!n)
		return vgpu_bad(lineno, "no workload line", "");
	return n;
}

/**
 * struct vgpu_deferred - a submission pushed from a kernel worker
 * @work: runs it
 * @cmds: the parsed lines
 * @n: how many
 * @ret: vgpu_submit()'s result
 */
struct vgpu_deferred {
	struct work_struct work;
	struct vgpu_cmd *cmds;
	unsigned int n;
	int ret;
};

static void vgpu_deferred_fn(struct work_struct *work)
{
	struct vgpu_deferred *d = container_of(work, struct vgpu_deferred,
					       work);

	d->ret = vgpu_submit(d->cmds, d->n);
}

/*
 * Submit @len bytes of workload lines at @ubuf for DRM client @client (0:
 * none), from this thread or, @worker, from a kernel worker (as drivers
 * that defer their pushes do), waiting for it.
 */
static int vgpu_submit_text(const char __user *ubuf, size_t len, u64 client,
			    bool worker)
{
	struct vgpu_deferred d = { };
	char *buf;
	int ret, i;

	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	d.cmds = kcalloc(VGPU_MAX_LINES, sizeof(*d.cmds), GFP_KERNEL);
	if (!d.cmds) {
		ret = -ENOMEM;
		goto out;
	}
	ret = vgpu_parse(buf, d.cmds);
	if (ret <= 0)
		goto out_cmds;
	d.n = ret;
	for (i = 0; i < d.n; i++)
		d.cmds[i].client = client;
	if (worker) {
		INIT_WORK_ONSTACK(&d.work, vgpu_deferred_fn);
		queue_work(system_unbound_wq, &d.work);
		flush_work(&d.work);
		destroy_work_on_stack(&d.work);
		ret = d.ret;
	} else {
		ret = vgpu_submit(d.cmds, d.n);
	}
out_cmds:
	kfree(d.cmds);
out:
	kfree(buf);
	return ret;
}

/* The render node's ioctl. */

static u64 vgpu_file_client(struct drm_file *file)
{
#ifdef GRTRACE_VGPU_CLIENT_IDS
	return file->client_id;
#else
	return 0;
#endif
}

static int vgpu_ioctl_submit(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct drm_vgpu_submit *args = data;

	if (!args->len || args->len > VGPU_MAX_WRITE ||
	    args->flags & ~DRM_VGPU_SUBMIT_WORKER) {
		pr_debug("ioctl submit: %u bytes, flags %#x refused (1..%u, %#x)\n",
			 args->len, args->flags, VGPU_MAX_WRITE,
			 DRM_VGPU_SUBMIT_WORKER);
		return -EINVAL;
	}
	return vgpu_submit_text(u64_to_user_ptr(args->text), args->len,
				vgpu_file_client(file),
				args->flags & DRM_VGPU_SUBMIT_WORKER);
}

static const struct drm_ioctl_desc vgpu_ioctls[] = {
	DRM_IOCTL_DEF_DRV(VGPU_SUBMIT, vgpu_ioctl_submit, DRM_RENDER_ALLOW),
};

static const struct file_operations vgpu_drm_fops = {
	.owner = THIS_MODULE,
	.open = drm_open,
	.release = drm_release,
	.unlocked_ioctl = drm_ioctl,
	.compat_ioctl = drm_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
#ifdef FOP_UNSIGNED_OFFSET
	/* What DRM files are, and drm_open() checks (6.12). */
	.fop_flags = FOP_UNSIGNED_OFFSET,
#endif
#ifdef GRTRACE_SCHED_SHOW_FDINFO
	.show_fdinfo = drm_show_fdinfo,
#endif
};

static const struct drm_driver vgpu_drm_driver = {
	.driver_features = DRIVER_RENDER,
	.ioctls = vgpu_ioctls,
	.num_ioctls = ARRAY_SIZE(vgpu_ioctls),
	.fops = &vgpu_drm_fops,
	.name = KBUILD_MODNAME,
	.desc = "virtual GPU on the DRM scheduler",
#ifdef GRTRACE_SCHED_DRIVER_DATE
	.date = "20261127",
#endif
	.major = 1,
};

static int vgpu_drm_init(void)
{
	int ret;

	if (!render_node)
		return 0;
	vgpu.drm = drm_dev_alloc(&vgpu_drm_driver, vgpu.dev);
	if (IS_ERR(vgpu.drm))
		return PTR_ERR(vgpu.drm);
	ret = drm_dev_register(vgpu.drm, 0);
	if (ret)
		drm_dev_put(vgpu.drm);
	return ret;
}

/* debugfs */

static ssize_t submit_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	int ret;

	if (!count || count > VGPU_MAX_WRITE) {
		pr_debug("submit: write of %zu bytes refused (1..%u)\n",
			 count, VGPU_MAX_WRITE);
		return -EINVAL;
	}
	ret = vgpu_submit_text(ubuf, count, 0, false);
	return ret ?: count;
}

static const struct file_operations submit_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = submit_write,
};

static bool vgpu_idle_or_dying(void)
{
	return !atomic_read(&vgpu.inflight) || READ_ONCE(vgpu.dying);
}

static ssize_t wait_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	static const char idle[] = "idle\n";
	long ret;

	if (!*ppos) {
		ret = wait_event_interruptible_timeout(vgpu.idle_wq,
						       vgpu_idle_or_dying(),
						       VGPU_WAIT_TIMEOUT);
		if (ret < 0)
			return ret;
		if (!ret) {
			pr_debug("wait: %d jobs still unfinished\n",
				 atomic_read(&vgpu.inflight));
			return -ETIMEDOUT;
		}
		if (READ_ONCE(vgpu.dying))
			return -ENODEV;
	}
	return simple_read_from_buffer(ubuf, count, ppos, idle,
				       sizeof(idle) - 1);
}

static const struct file_operations wait_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = wait_read,
};

static int stats_show(struct seq_file *m, void *v)
{
	struct vgpu_ring *ring;
	int i;

	/* A replacement rewrites a name and the down flags. */
	if (mutex_lock_interruptible(&vgpu.submit_lock))
		return -EINTR;
	for (i = 0; i < VGPU_NUM_RINGS; i++) {
		ring = &vgpu.rings[i];
		seq_printf(m, "ring=%s submitted=%lld completed=%lld timed_out=%lld contexts=%u%s\n",
			   ring->name, atomic64_read(&ring->submitted),
			   atomic64_read(&ring->completed),
			   atomic64_read(&ring->timed_out),
			   READ_ONCE(ring->nr_ctx),
			   ring->down ? " down=1" : "");
	}
	mutex_unlock(&vgpu.submit_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int info_show(struct seq_file *m, void *v)
{
#ifdef GRTRACE_VGPU_CLIENT_IDS
	seq_puts(m, "client_ids=1\n");
#else
	seq_puts(m, "client_ids=0\n");
#endif
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(info);

/* Setup and teardown. */

static int vgpu_sched_init(struct vgpu_ring *ring, const char *name)
{
#ifdef GRTRACE_SCHED_INIT_ARGS
	const struct drm_sched_init_args args = {
		.ops = &vgpu_sched_ops,
#ifdef GRTRACE_SCHED_INIT_ARGS_RQS
		/* One run queue per priority; none would be no queue at all. */
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
#endif
		.credit_limit = hw_depth,
		.timeout = msecs_to_jiffies(timeout_ms),
		.name = name,
		.dev = vgpu.dev,
	};

	return drm_sched_init(&ring->sched, &args);
#elif defined(GRTRACE_SCHED_INIT_WQ)
	/* No submit workqueue: the scheduler makes its own. */
	return drm_sched_init(&ring->sched, &vgpu_sched_ops, NULL,
			      DRM_SCHED_PRIORITY_COUNT, hw_depth, 0,
			      msecs_to_jiffies(timeout_ms), NULL, NULL, name,
			      vgpu.dev);
#else
	return drm_sched_init(&ring->sched, &vgpu_sched_ops, hw_depth, 0,
			      msecs_to_jiffies(timeout_ms), NULL, NULL, name,
			      vgpu.dev);
#endif
}

static int vgpu_ring_init(struct vgpu_ring *ring, const char *name)
{
	int ret;

	strscpy(ring->name, name, sizeof(ring->name));
	ring->nr_ctx = 0;
	ring->dying = false;
	spin_lock_init(&ring->lock);
	INIT_LIST_HEAD(&ring->hw_queue);
	grtrace_hrtimer_setup(&ring->timer, vgpu_engine_irq, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS);
	ring->fence_context = dma_fence_context_alloc(1);
	ring->sched_list[0] = &ring->sched;
	ring->ctx = kcalloc(max_contexts, sizeof(*ring->ctx), GFP_KERNEL);
	if (!ring->ctx)
		return -ENOMEM;
	ret = vgpu_sched_init(ring, ring->name);
	if (ret) {
		pr_err("%s: drm_sched_init failed: %d\n", ring->name, ret);
		kfree(ring->ctx);
	}
	return ret;
}

/* Only once no job is left: entities first, then their scheduler. */
static void vgpu_ring_fini(struct vgpu_ring *ring)
{
	struct vgpu_ctx *ctx;
	unsigned int i;

	for (i = 0; i < max_contexts; i++) {
		ctx = ring->ctx[i];
		if (!ctx)
			continue;
		drm_sched_entity_destroy(&ctx->entity);
		dma_fence_put(ctx->last);
		kfree(ctx);
	}
	drm_sched_fini(&ring->sched);
	hrtimer_cancel(&ring->timer);
	kfree(ring->ctx);
}

/*
 * End @ring's scheduler once no job is left and start another in its
 * place, named @name; submission stays locked out meanwhile.
 */
static int vgpu_replace(struct vgpu_ring *ring, const char *name)
{
	long left;
	int ret;

	if (mutex_lock_interruptible(&vgpu.submit_lock))
		return -EINTR;
	left = wait_event_interruptible_timeout(vgpu.idle_wq,
						vgpu_idle_or_dying(),
						VGPU_WAIT_TIMEOUT);
	if (left <= 0 || READ_ONCE(vgpu.dying) || ring->down) {
		ret = left < 0 ? (int)left : !left ? -ETIMEDOUT : -ENODEV;
		goto out;
	}
	vgpu_ring_fini(ring);
	ret = vgpu_ring_init(ring, name);
	ring->down = ret != 0;
out:
	mutex_unlock(&vgpu.submit_lock);
	return ret;
}

static ssize_t replace_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[64], *line, *word[3];
	struct vgpu_ring *ring;
	unsigned int n = 0;
	int ret;

	if (!count || count >= sizeof(buf)) {
		pr_debug("replace: write of %zu bytes refused (1..%zu)\n",
			 count, sizeof(buf) - 1);
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	line = strim(buf);
	while (n < ARRAY_SIZE(word) && (word[n] = strsep(&line, " \t"))) {
		if (*word[n])
			n++;
	}
	if (n != 2) {
		pr_debug("replace: want RING NAME\n");
		return -EINVAL;
	}
	ring = vgpu_ring_by_name(word[0]);
	if (!ring || !*word[1] || strlen(word[1]) >= sizeof(ring->name)) {
		pr_debug("replace: unknown ring '%s' or bad name '%s'\n",
			 word[0], word[1]);
		return -EINVAL;
	}
	ret = vgpu_replace(ring, word[1]);
	return ret ?: count;
}

static const struct file_operations replace_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = replace_write,
};

static void vgpu_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir(KBUILD_MODNAME, NULL);

	debugfs_create_file("submit", 0200, dir, NULL, &submit_fops);
	debugfs_create_file("wait", 0400, dir, NULL, &wait_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	debugfs_create_file("info", 0400, dir, NULL, &info_fops);
	debugfs_create_file("replace", 0200, dir, NULL, &replace_fops);
	vgpu.debugfs = dir;
}

static bool vgpu_params_valid(void)
{
	if (timeout_ms && timeout_ms <= 60000 && hw_depth &&
	    hw_depth <= 1024 && max_contexts && max_contexts <= 1024 &&
	    max_inflight)
		return true;
	pr_err("bad parameters: timeout_ms=%u hw_depth=%u max_contexts=%u max_inflight=%u\n",
	       timeout_ms, hw_depth, max_contexts, max_inflight);
	return false;
}

static int __init vgpu_init(void)
{
	int i, ret;

	if (!vgpu_params_valid())
		return -EINVAL;
	/* A device, as every GPU has: /sys/devices/vgpu0, no driver. */
	vgpu.dev = root_device_register("vgpu0");
	if (IS_ERR(vgpu.dev))
		return PTR_ERR(vgpu.dev);
	mutex_init(&vgpu.submit_lock);
	init_waitqueue_head(&vgpu.idle_wq);
	for (i = 0; i < VGPU_NUM_RINGS; i++) {
		ret = vgpu_ring_init(&vgpu.rings[i], vgpu_sched_names[i]);
		if (ret)
			goto err_rings;
	}
	ret = vgpu_drm_init();
	if (ret)
		goto err_rings;
	vgpu_debugfs_init();
	pr_info("3 rings, timeout %u ms, %u jobs deep, %u contexts per ring\n",
		timeout_ms, hw_depth, max_contexts);
	return 0;

err_rings:
	while (i--)
		vgpu_ring_fini(&vgpu.rings[i]);
	mutex_destroy(&vgpu.submit_lock);
	root_device_unregister(vgpu.dev);
	return ret;
}

static void __exit vgpu_exit(void)
{
	int i;

	/* No new job: wake a throttled writer, let a running one finish. */
	WRITE_ONCE(vgpu.dying, true);
	wake_up_all(&vgpu.idle_wq);
	mutex_lock(&vgpu.submit_lock);
	mutex_unlock(&vgpu.submit_lock);

	/* Cancelled jobs unblock their dependents, which then get cancelled. */
	for (i = 0; i < VGPU_NUM_RINGS; i++)
		vgpu_engine_cancel(&vgpu.rings[i]);
	debugfs_remove_recursive(vgpu.debugfs);
	/* No file is open: each holds the module. */
	if (vgpu.drm) {
		drm_dev_unregister(vgpu.drm);
		drm_dev_put(vgpu.drm);
	}
	wait_event(vgpu.idle_wq, !atomic_read(&vgpu.inflight));

	for (i = 0; i < VGPU_NUM_RINGS; i++)
		if (!vgpu.rings[i].down)
			vgpu_ring_fini(&vgpu.rings[i]);
	mutex_destroy(&vgpu.submit_lock);
	root_device_unregister(vgpu.dev);
	/* Every fence is released by now: none may outlive our fence ops. */
	WARN(atomic_read(&vgpu.hw_fences), "%d hardware fences leaked\n",
	     atomic_read(&vgpu.hw_fences));
}

module_init(vgpu_init);
module_exit(vgpu_exit);

MODULE_DESCRIPTION("Virtual GPU on the DRM scheduler, a grtrace test workload");
MODULE_LICENSE("GPL");
