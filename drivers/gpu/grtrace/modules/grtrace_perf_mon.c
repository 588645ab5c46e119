// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_perf_mon: /proc/grtrace_stats, a per-ring health line for
 * monitoring, and what grtrace itself costs.  The file exists while the
 * module is loaded.
 *
 * Per ring, over the last window (window_ms, 1000 by default) and since
 * the module loaded:
 *
 *   util%       busy share: a ring is busy while a job started and has
 *               not ended; on a ring that never had a START, while a job
 *               is committed and not ended (as the report derives it)
 *   drop%       of the ring's events that reached the hooks during a
 *               session, those not written (sampled out, rate limited,
 *               buffer full...; the core's filters act before the hooks)
 *   avg_lat_us  mean time from SUBMIT to COMPLETE, by Little's law: the
 *               time integral of the jobs submitted and not completed over
 *               the jobs completed.  Exact over a span that begins and
 *               ends with no job in flight; no job table needed.
 *   events/s
 *
 * and the event path's cost per event (p50, p99, as powers of two) while
 * the core's measure_latency setting is 1.  Counting is done with
 * counters only, no per-job state: a live hook, so with or without a
 * session.  Each ring has its own lock: CPUs that trace different rings
 * share nothing, and a reader or the window's close holds one ring's lock
 * at a time.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/grtrace.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#include "../grtrace_compat.h"

#define PM_RINGS	64

static unsigned int window_ms = 1000;
static int window_ms_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret || v < 100 || v > 60000) {
		pr_debug("window_ms: 100..60000\n");
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops window_ms_ops = {
	.set = window_ms_set,
	.get = param_get_uint,
};

module_param_cb(window_ms, &window_ms_ops, &window_ms, 0444);
MODULE_PARM_DESC(window_ms, "Window of the figures in ms, 100..60000 (default 1000)");

struct pm_span {
	u64 start;
	u64 end;
	u64 events;
	u64 in_session;		/* events seen during a session */
	u64 unwritten;		/* of those, not written */
	u64 busy_ns;
	u64 inflight_area;	/* jobs x ns, submitted and not completed */
	u64 completed;
};

enum { PM_CUR, PM_LAST, PM_TOTAL, PM_NR };

struct pm_ring {
	raw_spinlock_t lock;	/* guards the ring's counts and spans */
	bool seen;
	bool has_start;
	u32 started;		/* START - END, never below 0 */
	u32 committed;		/* COMMIT - END, never below 0 */
	u32 inflight;		/* SUBMIT - COMPLETE, never below 0 */
	u64 last_ts;
	struct pm_span s[PM_NR];
} ____cacheline_aligned_in_smp;

static struct pm_ring pm_rings[PM_RINGS];
static u64 pm_windows;			/* written by the timer alone */
static atomic64_t pm_untracked;

static struct timer_list pm_timer;
static struct proc_dir_entry *pm_proc;

static void pm_advance(struct pm_ring *r, u64 ts)
{
	bool busy = r->has_start ? r->started : r->committed;
	u64 dt;
	int i;

	if (ts <= r->last_ts)
		return;
	dt = ts - r->last_ts;
	r->last_ts = ts;
	for (i = 0; i < PM_NR; i++) {
		if (i == PM_LAST)
			continue;
		if (busy)
			r->s[i].busy_ns += dt;
		r->s[i].inflight_area += (u64)r->inflight * dt;
	}
}

static void pm_dec(u32 *v)
{
	if (*v)
		(*v)--;
}

static void pm_observe(const struct grtrace_hook_event *ev, bool written,
		       void *data)
{
	/* Out of a session nothing is written, and nothing lost. */
	bool session = !ev->live;
	struct pm_ring *r;
	int i;

	if (ev->ring_id >= PM_RINGS) {
		atomic64_inc(&pm_untracked);
		return;
	}
	r = &pm_rings[ev->ring_id];
	raw_spin_lock(&r->lock);
	if (!r->seen) {
		r->seen = true;
		r->last_ts = ev->ts;
	}
	pm_advance(r, ev->ts);
	for (i = 0; i < PM_NR; i++) {
		if (i == PM_LAST)
			continue;
		r->s[i].events++;
		if (session) {
			r->s[i].in_session++;
			if (!written)
				r->s[i].unwritten++;
		}
		if (ev->type == GRTRACE_EV_COMPLETE)
			r->s[i].completed++;
	}
	switch (ev->type) {
	case GRTRACE_EV_SUBMIT:
		r->inflight++;
		break;
	case GRTRACE_EV_COMMIT:
		r->committed++;
		break;
	case GRTRACE_EV_START:
		r->started++;
		r->has_start = true;
		break;
	case GRTRACE_EV_END:
		pm_dec(&r->started);
		pm_dec(&r->committed);
		break;
	case GRTRACE_EV_COMPLETE:
		pm_dec(&r->inflight);
		break;
	}
	raw_spin_unlock(&r->lock);
}

/*
 * Ring @ring_id's id was given back: the next ring with it is another,
 * which starts from zero (a job whose END or COMPLETE never came kept the
 * old one busy for good).  Interrupts are off.
 */
static void pm_ring_released(u32 ring_id, void *data)
{
	struct pm_ring *r;
	u64 now;
	int i;

	if (ring_id >= PM_RINGS)
		return;
	r = &pm_rings[ring_id];
	raw_spin_lock(&r->lock);
	now = grtrace_clock_now();
	r->seen = false;
	r->has_start = false;
	r->started = 0;
	r->committed = 0;
	r->inflight = 0;
	r->last_ts = now;
	for (i = 0; i < PM_NR; i++) {
		memset(&r->s[i], 0, sizeof(r->s[i]));
		r->s[i].start = now;
	}
	raw_spin_unlock(&r->lock);
}

static struct grtrace_hook pm_hook = {
	.name = "perf_mon",
	.prio = 200,
	.observe = pm_observe,
	.ring_released = pm_ring_released,
	.live = true,
};

static void pm_timer_fn(struct timer_list *t)
{
	u64 now = grtrace_clock_now();
	unsigned long flags;
	int i;

	for (i = 0; i < PM_RINGS; i++) {
		struct pm_ring *r = &pm_rings[i];

		raw_spin_lock_irqsave(&r->lock, flags);
		if (r->seen) {
			pm_advance(r, now);
			r->s[PM_CUR].end = now;
			r->s[PM_LAST] = r->s[PM_CUR];
		}
		memset(&r->s[PM_CUR], 0, sizeof(r->s[PM_CUR]));
		r->s[PM_CUR].start = now;
		raw_spin_unlock_irqrestore(&r->lock, flags);
	}
	WRITE_ONCE(pm_windows, pm_windows + 1);
	mod_timer(t, jiffies + msecs_to_jiffies(window_ms));
}

/*
 * @a * @b / @den in hundredths, for "12.34"; the product of @a and @b in
 * 128 bits (events * NSEC_PER_SEC passes 2^64 at 1.8e10 events, some
 * weeks of a busy ring's total), so @b * 100 must fit 64 bits.
 */
static u64 pm_hundredths(u64 a, u64 b, u64 den)
{
	return den ? mul_u64_u64_div_u64(a, b * 100, den) : 0;
}

static void pm_row(struct seq_file *m, const char *scope, int ring,
		   const struct pm_span *s)
{
	u64 len = s->end > s->start ? s->end - s->start : 0;
	u64 util = pm_hundredths(s->busy_ns, 100, len);
	u64 drop = pm_hundredths(s->unwritten, 100, s->in_session);
	u64 lat = s->completed ? div64_u64(s->inflight_area, s->completed) : 0;
	u64 eps = pm_hundredths(s->events, NSEC_PER_SEC, len);

	seq_printf(m, "%-6s %4d %4llu.%02llu %4llu.%02llu %12llu.%03llu %10llu.%02llu %10llu %10llu\n",
		   scope, ring, util / 100, util % 100, drop / 100, drop % 100,
		   lat / 1000, lat % 1000, eps / 100, eps % 100, s->completed,
		   s->events);
}

static int pm_show(struct seq_file *m, void *v)
{
	struct pm_span *last, *total;
	u64 now = grtrace_clock_now(), windows, untracked, n, p50, p99;
	unsigned long flags;
	int nr = 0, i, id[PM_RINGS];

	last = kmalloc_array(PM_RINGS, sizeof(*last), GFP_KERNEL);
	total = kmalloc_array(PM_RINGS, sizeof(*total), GFP_KERNEL);
	if (!last || !total) {
		kfree(last);
		kfree(total);
		return -ENOMEM;
	}
	windows = READ_ONCE(pm_windows);
	for (i = 0; i < PM_RINGS; i++) {
		struct pm_ring *r = &pm_rings[i];

		raw_spin_lock_irqsave(&r->lock, flags);
		if (r->seen) {
			pm_advance(r, now);
			id[nr] = i;
			last[nr] = r->s[PM_LAST];
			total[nr] = r->s[PM_TOTAL];
			total[nr].end = max(now, total[nr].start);
			nr++;
		}
		raw_spin_unlock_irqrestore(&r->lock, flags);
	}
	untracked = atomic64_read(&pm_untracked);

	p50 = grtrace_path_cost(50, &n);
	p99 = grtrace_path_cost(99, &n);
	seq_printf(m, "grtrace perf_mon 1: window %u ms, %llu closed; events on untracked rings (>= %d) %llu\n",
		   window_ms, windows, PM_RINGS, untracked);
	if (n)
		seq_printf(m, "event_path: %llu events measured, cost p50 <= %llu ns, p99 <= %llu ns\n",
			   n, p50, p99);
	else
		seq_puts(m, "event_path: not measured (set measure_latency=1 in grtrace's config)\n");
	seq_printf(m, "%-6s %4s %7s %7s %16s %13s %10s %10s\n", "scope", "ring",
		   "util%", "drop%", "avg_lat_us", "events/s", "jobs", "events");
	for (i = 0; i < nr; i++) {
		if (windows)
			pm_row(m, "last", id[i], &last[i]);
		pm_row(m, "total", id[i], &total[i]);
	}
	kfree(last);
	kfree(total);
	return 0;
}

static int __init pm_init(void)
{
	u64 now = grtrace_clock_now();
	int i, ret;

	for (i = 0; i < PM_RINGS; i++) {
		raw_spin_lock_init(&pm_rings[i].lock);
		pm_rings[i].s[PM_CUR].start = now;
		pm_rings[i].s[PM_TOTAL].start = now;
	}
	timer_setup(&pm_timer, pm_timer_fn, 0);
	pm_proc = proc_create_single("grtrace_stats", 0400, NULL, pm_show);
	if (!pm_proc)
		return -ENOMEM;
	ret = grtrace_hook_register(&pm_hook);
	if (ret) {
		proc_remove(pm_proc);
		return ret;
	}
	mod_timer(&pm_timer, jiffies + msecs_to_jiffies(window_ms));
	return 0;
}

static void __exit pm_exit(void)
{
	proc_remove(pm_proc);
	grtrace_hook_unregister(&pm_hook);
	timer_delete_sync(&pm_timer);
}

module_init(pm_init);
module_exit(pm_exit);
MODULE_DESCRIPTION("grtrace: /proc/grtrace_stats, per-ring health and grtrace's own cost");
MODULE_LICENSE("GPL");
