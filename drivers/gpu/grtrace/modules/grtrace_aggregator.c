// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_aggregator: per-ring figures over a time window, computed in the
 * kernel from the events as they happen, with or without a session: no
 * recording to read, nothing to post-process.
 *
 * Per ring, over each window and since enabled: events, jobs completed,
 * busy time, queue depth (time average and peak), and the jobs' latency
 * (min, average, max, p50 and p99 from a log-linear histogram).  The
 * definitions are those of "grtrace report --per-ring" (see
 * Documentation/gpu/grtrace.rst), so that the two agree on the same
 * events:
 *
 *   latency      t_total: from the job's SUBMIT (else COMMIT, else START)
 *                to its COMPLETE, counted when the COMPLETE comes
 *   queue depth  jobs committed and not ended
 *   busy         a job runs from its START to its END; on a ring that has
 *                never had a START the job at the head of the queue runs
 *                (the report's derived start), so the ring is busy while
 *                its queue is not empty
 *
 * The windows are the module's own, aggregator_window ms long from the
 * moment it is enabled; the figures of the last complete one are shown
 * next to the totals since enabled.
 *
 * With aggregator_per_ctx, the same figures per context (the first
 * AGG_CTXS contexts seen), as "grtrace report --per-ctx" defines them: a
 * context is busy while one of its jobs runs (from its START to its END;
 * on a ring without STARTs, while the job is at the head of the ring's
 * queue, which is the report's derived start), and its depth is its jobs
 * committed and not ended.
 *
 * debugfs, in grtrace's directory:
 *   aggregator_enable     0 or 1; writing 1 (again) starts from zero
 *   aggregator_window     window length in ms, 100..60000 (default 1000)
 *   aggregator_per_ctx    0 or 1: per context too; taken at the next
 *                         enable (writing it while enabled starts afresh)
 *   aggregator_stats      the tables
 *   aggregator_stats_raw  the same in key=value lines, for tools
 *
 * Locking.  The event path takes no lock shared by all rings: each ring
 * has its own raw spinlock, which guards the ring's figures, its hash
 * buckets, its queue and the jobs in them (every event of a job is on its
 * ring, whatever CPU emits it), and each context one, taken inside its
 * ring's for the context's figures alone.  A job's slot comes from a
 * bitmap with atomic bit operations; a context's slot is looked up
 * without a lock and taken under agg->ctx_lock, once per context.  The
 * window closes in a work item, and readers copy the figures, one ring
 * (or context) at a time under its lock: no lock is ever held for more
 * than one row.  agg_win_mutex orders the two, so that a reader sees
 * every ring at the same window.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/grtrace.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "../grtrace_compat.h"

/* Rings above this id are counted as untracked, not aggregated. */
#define AGG_RINGS	64
/* Jobs in flight at once; more are counted as untracked. */
#define AGG_JOBS	4096
/* Hash buckets per ring. */
#define AGG_BUCKETS	1024
#define AGG_NIL		0xffff
/* Contexts followed with aggregator_per_ctx; more are counted untracked. */
#define AGG_CTXS	256

#define AGG_WINDOW_MIN	100
#define AGG_WINDOW_MAX	60000

/*
 * Latency histogram: exact below 16 ns, then 8 buckets per power of two
 * (within 12.5 %), up to 2^40 ns (18 minutes); the last bucket takes the
 * rest.
 */
#define AGG_HIST_LIN	16
#define AGG_HIST_SUB	8
#define AGG_HIST_TOP	40
#define AGG_HIST_N	(AGG_HIST_LIN + (AGG_HIST_TOP - 4) * AGG_HIST_SUB)

/* One ring over one span of time. */
struct agg_stats {
	u64 start;
	u64 end;
	u64 events;
	u64 late;		/* stamped before one already accounted */
	u64 late_ns;		/* by how much, in all */
	u64 jobs;
	u64 busy_ns;
	u64 depth_area;		/* jobs x ns */
	u32 depth_peak;
	u64 lat_n;
	u64 lat_sum;
	u64 lat_min;
	u64 lat_max;
	/*
	 * As wide as @lat_n, which the percentiles rank against: the total
	 * span of a ring left armed for days passes 2^32 jobs of one bucket
	 * at 10000 a second in five days.
	 */
	u64 hist[AGG_HIST_N];
};

enum { AGG_CUR, AGG_LAST, AGG_TOTAL, AGG_NR_SPANS };

struct agg_ring {
	raw_spinlock_t lock;	/* guards the ring, its buckets and its jobs */
	bool seen;
	bool has_start;		/* ever had a START: busy means started */
	u32 nstarted;		/* started, not ended */
	u32 depth;		/* committed, not ended */
	u64 last_ts;		/* figures are accounted up to here */
	u16 qhead;		/* per context: jobs committed, not ended, */
	u16 qtail;		/* in the order of their COMMIT */
	u64 untracked_jobs;	/* jobs that found the job table full */
	u64 untracked_ctxs;	/* events of contexts past AGG_CTXS */
	u16 bucket[AGG_BUCKETS];
	struct agg_stats s[AGG_NR_SPANS];
} ____cacheline_aligned_in_smp;

/* A context: busy while @running of its jobs run. */
struct agg_ctx {
	raw_spinlock_t lock;	/* guards what follows @used */
	u64 ctx;
	bool used;		/* published with @ctx, then fixed */
	u16 ring;		/* of its latest job */
	u32 running;
	u32 depth;
	u64 last_ts;
	struct agg_stats s[AGG_NR_SPANS];
};

#define AGG_J_DEPTH	BIT(0)	/* counted in its ring's depth */
#define AGG_J_STARTED	BIT(1)	/* counted in nstarted */
#define AGG_J_ENDED	BIT(2)
#define AGG_J_QUEUED	BIT(3)	/* in its ring's queue (per context) */
#define AGG_J_RUNNING	BIT(4)	/* counted in its context's running */

struct agg_job {
	u64 ctx;
	u64 seqno;
	u64 first;		/* ts of the earliest stamp it has */
	u16 next;		/* in its ring's bucket */
	u16 qprev;		/* its ring's queue, per context */
	u16 qnext;
	u16 cslot;		/* its context, or AGG_NIL */
	u8 ring;
	u8 first_type;		/* type of @first: SUBMIT < COMMIT < START */
	u8 flags;
};

/*
 * Set while enabled: agg_mutex for enabled_at, disabled_at, per_ctx and
 * ctxs; agg_win_mutex for windows.
 */
struct agg {
	struct agg_ring rings[AGG_RINGS];
	struct agg_job jobs[AGG_JOBS];
	/* Jobs in use, a bit each, taken and given back atomically. */
	unsigned long jobs_used[BITS_TO_LONGS(AGG_JOBS)];
	u64 windows;		/* windows closed */
	u64 enabled_at;
	u64 disabled_at;	/* 0 while enabled */
	bool per_ctx;
	raw_spinlock_t ctx_lock;	/* taking a context slot; win_start */
	u32 nctxs;
	/* Where the spans of a context taken now begin. */
	u64 win_start[AGG_NR_SPANS];
	struct agg_ctx *ctxs;	/* AGG_CTXS, with per_ctx */
};

static struct agg *agg;
static DEFINE_MUTEX(agg_mutex);	/* the settings, the hook, the work */
static DEFINE_MUTEX(agg_win_mutex);	/* closing a window against readers */
static bool agg_enabled;
static bool agg_want_per_ctx;
static unsigned int agg_window_ms = 1000;
static struct delayed_work agg_work;
static struct dentry *agg_files[5];
/*
 * Per CPU, allocated at load, not static: the static per-CPU data of all
 * modules shares a small reserve.
 */
struct agg_pcpu {
	u64 untracked_rings;	/* events on rings of AGG_RINGS or more */
};

static struct agg_pcpu __percpu *agg_pcpu;

static unsigned int agg_bucket_of(u64 v)
{
	unsigned int msb;

	if (v < AGG_HIST_LIN)
		return v;
	msb = fls64(v) - 1;
	if (msb >= AGG_HIST_TOP)
		return AGG_HIST_N - 1;
	return AGG_HIST_LIN + (msb - 4) * AGG_HIST_SUB +
	       ((v >> (msb - 3)) & (AGG_HIST_SUB - 1));
}

/* The middle of bucket @b. */
static u64 agg_bucket_mid(unsigned int b)
{
	unsigned int msb;
	u64 lo;

	if (b < AGG_HIST_LIN)
		return b;
	msb = (b - AGG_HIST_LIN) / AGG_HIST_SUB + 4;
	lo = (u64)(AGG_HIST_SUB + (b - AGG_HIST_LIN) % AGG_HIST_SUB) << (msb - 3);
	return lo + (1ULL << (msb - 4));
}

/* The @pct-th percentile (nearest rank), within its bucket's width. */
static u64 agg_pct(const struct agg_stats *st, unsigned int pct)
{
	u64 rank = div_u64(st->lat_n * pct + 99, 100), seen = 0;
	unsigned int b;

	BUILD_BUG_ON(sizeof(st->hist[0]) < sizeof(st->lat_n));
	if (!st->lat_n)
		return 0;
	if (!rank)
		rank = 1;
	for (b = 0; b < AGG_HIST_N; b++) {
		seen += st->hist[b];
		if (seen >= rank)
			return clamp(agg_bucket_mid(b), st->lat_min, st->lat_max);
	}
	return st->lat_max;
}

static void agg_stats_reset(struct agg_stats *st, u64 start)
{
	memset(st, 0, sizeof(*st));
	st->start = start;
	st->end = start;
}

/* Account busy time and depth of @s, last accounted at *@last, up to @ts. */
static void agg_advance_spans(struct agg_stats *s, u64 *last, u64 ts,
			      bool busy, u32 depth)
{
	u64 dt;
	int i;

	if (ts <= *last)
		return;
	dt = ts - *last;
	*last = ts;
	for (i = 0; i < AGG_NR_SPANS; i++) {
		if (i == AGG_LAST)
			continue;
		if (busy)
			s[i].busy_ns += dt;
		s[i].depth_area += (u64)depth * dt;
	}
}

static void agg_advance(struct agg_ring *r, u64 ts)
{
	agg_advance_spans(r->s, &r->last_ts, ts,
			  r->has_start ? r->nstarted : r->depth, r->depth);
}

static void agg_ctx_advance(struct agg_ctx *c, u64 ts)
{
	agg_advance_spans(c->s, &c->last_ts, ts, c->running, c->depth);
}

/*
 * The slot of context @ctx from the hash slot @h on: its own, else the
 * first free one (*@found false), else AGG_NIL.  A slot once used keeps
 * its context until the next enable.
 */
static u16 agg_ctx_probe(u64 ctx, u32 h, bool *found)
{
	struct agg_ctx *c;
	u32 n;

	for (n = 0; n < AGG_CTXS; n++) {
		c = &agg->ctxs[(h + n) % AGG_CTXS];
		/* @ctx was set before @used was published. */
		if (!smp_load_acquire(&c->used)) {
			*found = false;
			return (h + n) % AGG_CTXS;
		}
		if (c->ctx == ctx) {
			*found = true;
			return (h + n) % AGG_CTXS;
		}
	}
	return AGG_NIL;
}

/*
 * The context @ctx's slot, taken at its first event, or AGG_NIL.  Under
 * the lock of ring @r, which counts the events of contexts past AGG_CTXS.
 */
static u16 agg_ctx_slot(struct agg_ring *r, u64 ctx, u32 ring, u64 ts)
{
	u32 h = hash_64(ctx, ilog2(AGG_CTXS));
	struct agg_ctx *c;
	bool found;
	u16 i;
	int k;

	i = agg_ctx_probe(ctx, h, &found);
	if (i == AGG_NIL || found)
		goto out;
	/* Taken once per context: look again under the lock. */
	raw_spin_lock(&agg->ctx_lock);
	i = agg_ctx_probe(ctx, h, &found);
	if (i == AGG_NIL) {
		raw_spin_unlock(&agg->ctx_lock);
		goto out;
	}
	if (!found) {
		c = &agg->ctxs[i];
		c->ctx = ctx;
		c->ring = ring;
		c->last_ts = ts;
		/* Its spans begin with those of the rings. */
		for (k = 0; k < AGG_NR_SPANS; k++)
			agg_stats_reset(&c->s[k], agg->win_start[k]);
		agg->nctxs++;
		/* Pairs with the acquire of lock-free lookups and readers. */
		smp_store_release(&c->used, true);
	}
	raw_spin_unlock(&agg->ctx_lock);
out:
	/* The table full: a slot is never given back while enabled. */
	if (i == AGG_NIL)
		r->untracked_ctxs++;
	return i;
}

static struct agg_ctx *agg_ctx_of(const struct agg_job *j)
{
	return j && j->cslot != AGG_NIL ? &agg->ctxs[j->cslot] : NULL;
}

/* Job @i's context runs one more (@d 1) or one fewer (-1) job at @ts. */
static void agg_ctx_running(u16 i, int d, u64 ts)
{
	struct agg_job *j = &agg->jobs[i];
	struct agg_ctx *c = agg_ctx_of(j);

	if (d > 0)
		j->flags |= AGG_J_RUNNING;
	else
		j->flags &= ~AGG_J_RUNNING;
	if (!c)
		return;
	raw_spin_lock(&c->lock);
	agg_ctx_advance(c, ts);
	c->running += d;
	raw_spin_unlock(&c->lock);
}

static u32 agg_hash(u32 ring, u64 ctx, u64 seqno)
{
	return hash_64(ctx ^ (seqno * 0x9e3779b97f4a7c15ULL) ^ ring,
		       ilog2(AGG_BUCKETS));
}

/*
 * The job, on ring @r (@ring), with the index of the link pointing at it
 * in *@linkp.
 */
static struct agg_job *agg_job_find(struct agg_ring *r, u32 ring, u64 ctx,
				    u64 seqno, u16 **linkp)
{
	u16 *link = &r->bucket[agg_hash(ring, ctx, seqno)];

	while (*link != AGG_NIL) {
		struct agg_job *j = &agg->jobs[*link];

		if (j->ctx == ctx && j->seqno == seqno && j->ring == ring) {
			*linkp = link;
			return j;
		}
		link = &j->next;
	}
	*linkp = link;
	return NULL;
}

/*
 * A free job slot, or AGG_NIL.  Each ring starts its search at a word of
 * its own, so that rings seldom race for one.
 */
static u16 agg_slot_take(u32 ring)
{
	unsigned int nw = BITS_TO_LONGS(AGG_JOBS), k, w, b;
	unsigned long v;

	for (k = 0; k < nw; k++) {
		w = (ring + k) % nw;
		while ((v = READ_ONCE(agg->jobs_used[w])) != ~0UL) {
			b = w * BITS_PER_LONG + ffz(v);
			if (b >= AGG_JOBS)
				break;
			/* Ordered after the last owner's clear_bit_unlock(). */
			if (!test_and_set_bit_lock(b, agg->jobs_used))
				return b;
		}
	}
	return AGG_NIL;
}

static struct agg_job *agg_job_get(struct agg_ring *r, u32 ring, u64 ctx,
				   u64 seqno, u16 cslot)
{
	struct agg_job *j;
	u16 *link, i;

	j = agg_job_find(r, ring, ctx, seqno, &link);
	if (j)
		return j;
	i = agg_slot_take(ring);
	if (i == AGG_NIL) {
		r->untracked_jobs++;
		return NULL;
	}
	j = &agg->jobs[i];
	*j = (struct agg_job){ .ctx = ctx, .seqno = seqno, .ring = ring,
			       .next = AGG_NIL, .qprev = AGG_NIL,
			       .qnext = AGG_NIL, .cslot = cslot,
			       .first_type = U8_MAX };
	*link = i;
	return j;
}

static void agg_job_put(struct agg_job *j, u16 *link)
{
	u16 i = *link;

	*link = j->next;
	/* Done with it: the next owner's writes come after ours. */
	clear_bit_unlock(i, agg->jobs_used);
}

/* Per context: job @i joins its ring's queue at its COMMIT. */
static void agg_queue_add(struct agg_ring *r, u16 i, u64 ts)
{
	struct agg_job *j = &agg->jobs[i];

	j->qprev = r->qtail;
	j->qnext = AGG_NIL;
	if (r->qtail != AGG_NIL)
		agg->jobs[r->qtail].qnext = i;
	else
		r->qhead = i;
	r->qtail = i;
	j->flags |= AGG_J_QUEUED;
	/* At the head of a ring without STARTs, a job runs. */
	if (r->qhead == i && !r->has_start && !(j->flags & AGG_J_RUNNING))
		agg_ctx_running(i, 1, ts);
}

static void agg_queue_del(struct agg_ring *r, u16 i, u64 ts)
{
	struct agg_job *j = &agg->jobs[i];

	if (j->qprev != AGG_NIL)
		agg->jobs[j->qprev].qnext = j->qnext;
	else
		r->qhead = j->qnext;
	if (j->qnext != AGG_NIL)
		agg->jobs[j->qnext].qprev = j->qprev;
	else
		r->qtail = j->qprev;
	j->flags &= ~AGG_J_QUEUED;
	if (r->qhead != AGG_NIL && !r->has_start &&
	    !(agg->jobs[r->qhead].flags & AGG_J_RUNNING))
		agg_ctx_running(r->qhead, 1, ts);
}

/* Job @i left the ring at @ts (its END, or its COMPLETE without one). */
static void agg_job_end(struct agg_ring *r, u16 i, u64 ts)
{
	struct agg_job *j = &agg->jobs[i];
	struct agg_ctx *c = agg_ctx_of(j);

	if (j->flags & AGG_J_RUNNING)
		agg_ctx_running(i, -1, ts);
	if (j->flags & AGG_J_QUEUED)
		agg_queue_del(r, i, ts);
	if (j->flags & AGG_J_DEPTH) {
		r->depth--;
		if (c) {
			raw_spin_lock(&c->lock);
			agg_ctx_advance(c, ts);
			c->depth--;
			raw_spin_unlock(&c->lock);
		}
	}
	if (j->flags & AGG_J_STARTED)
		r->nstarted--;
	j->flags = AGG_J_ENDED;
}

/* One more in the depth of @s (its spans), now @depth. */
static void agg_depth_peak(struct agg_stats *s, u32 depth)
{
	int i;

	for (i = 0; i < AGG_NR_SPANS; i++)
		s[i].depth_peak = max(s[i].depth_peak, depth);
}

/*
 * A COMPLETE, in the spans @s of its ring or context: @j is NULL for a
 * job that was in flight when enabled.
 */
static void agg_job_done(struct agg_stats *s, struct agg_job *j, u64 ts)
{
	int i;

	for (i = 0; i < AGG_NR_SPANS; i++) {
		struct agg_stats *st = &s[i];

		if (i == AGG_LAST)
			continue;
		st->jobs++;
		/* Stamps out of order: NA in the report, so not here either. */
		if (!j || j->first_type == U8_MAX || ts < j->first)
			continue;
		st->lat_n++;
		st->lat_sum += ts - j->first;
		if (st->lat_n == 1 || ts - j->first < st->lat_min)
			st->lat_min = ts - j->first;
		st->lat_max = max(st->lat_max, ts - j->first);
		st->hist[agg_bucket_of(ts - j->first)]++;
	}
}

/*
 * An event stamped @lag ns before the last one accounted in @s: it counts
 * from that last stamp, so busy time and the depth integral can each be
 * off by at most @lag against an account in stamp order.
 */
static void agg_late(struct agg_stats *s, u64 lag)
{
	s[AGG_CUR].late++;
	s[AGG_CUR].late_ns += lag;
	s[AGG_TOTAL].late++;
	s[AGG_TOTAL].late_ns += lag;
}

static void agg_observe(const struct grtrace_hook_event *ev, bool written,
			void *data)
{
	u16 *link, cslot = AGG_NIL;
	struct agg_ctx *c = NULL;
	struct agg_ring *r;
	struct agg_job *j;

	/* Called with interrupts off: plain locks. */
	if (ev->ring_id >= AGG_RINGS) {
		this_cpu_inc(agg_pcpu->untracked_rings);
		return;
	}
	r = &agg->rings[ev->ring_id];
	raw_spin_lock(&r->lock);
	if (!r->seen) {
		r->seen = true;
		r->last_ts = ev->ts;
	}
	/*
	 * Two CPUs' events reach the ring's lock in another order than their stamps
	 * now and then: one stamped before the ring's last is accounted at
	 * that last, and said (a report, which orders by stamp, may differ).
	 */
	if (ev->ts < r->last_ts)
		agg_late(r->s, r->last_ts - ev->ts);
	agg_advance(r, ev->ts);
	r->s[AGG_CUR].events++;
	r->s[AGG_TOTAL].events++;
	/* Per context: the events of jobs (not context switches, IRQs). */
	if (agg->per_ctx && ev->type != GRTRACE_EV_CTX_SWITCH &&
	    ev->type != GRTRACE_EV_IRQ) {
		cslot = agg_ctx_slot(r, ev->ctx, ev->ring_id, ev->ts);
		if (cslot != AGG_NIL) {
			c = &agg->ctxs[cslot];
			raw_spin_lock(&c->lock);
			c->ring = ev->ring_id;
			if (ev->ts < c->last_ts)
				agg_late(c->s, c->last_ts - ev->ts);
			agg_ctx_advance(c, ev->ts);
			c->s[AGG_CUR].events++;
			c->s[AGG_TOTAL].events++;
			raw_spin_unlock(&c->lock);
		}
	}

	switch (ev->type) {
	case GRTRACE_EV_SUBMIT:
	case GRTRACE_EV_COMMIT:
	case GRTRACE_EV_START:
		j = agg_job_get(r, ev->ring_id, ev->ctx, ev->seqno, cslot);
		if (!j || (j->flags & AGG_J_ENDED))
			break;
		if (ev->type < j->first_type) {
			j->first_type = ev->type;
			j->first = ev->ts;
		}
		if (ev->type == GRTRACE_EV_COMMIT && !(j->flags & AGG_J_DEPTH)) {
			j->flags |= AGG_J_DEPTH;
			r->depth++;
			agg_depth_peak(r->s, r->depth);
			if (c) {
				raw_spin_lock(&c->lock);
				c->depth++;
				agg_depth_peak(c->s, c->depth);
				raw_spin_unlock(&c->lock);
			}
			if (agg->per_ctx)
				agg_queue_add(r, j - agg->jobs, ev->ts);
		} else if (ev->type == GRTRACE_EV_START &&
			   !(j->flags & AGG_J_STARTED)) {
			j->flags |= AGG_J_STARTED;
			r->nstarted++;
			r->has_start = true;
			if (agg->per_ctx && !(j->flags & AGG_J_RUNNING))
				agg_ctx_running(j - agg->jobs, 1, ev->ts);
		}
		break;
	case GRTRACE_EV_END:
		j = agg_job_find(r, ev->ring_id, ev->ctx, ev->seqno, &link);
		if (j && !(j->flags & AGG_J_ENDED))
			agg_job_end(r, *link, ev->ts);
		break;
	case GRTRACE_EV_COMPLETE:
		j = agg_job_find(r, ev->ring_id, ev->ctx, ev->seqno, &link);
		if (c) {
			raw_spin_lock(&c->lock);
			agg_job_done(c->s, j, ev->ts);
			raw_spin_unlock(&c->lock);
		}
		if (!j) {
			agg_job_done(r->s, NULL, ev->ts);
			break;
		}
		if (!(j->flags & AGG_J_ENDED))
			agg_job_end(r, *link, ev->ts);
		agg_job_done(r->s, j, ev->ts);
		agg_job_put(j, link);
		break;
	}
	raw_spin_unlock(&r->lock);
}

/*
 * Ring @ring_id's id was given back (its scheduler ended): the next ring
 * with the id is another.  Its jobs still held are let go, as if they
 * ended now (a job whose END never came held the ring busy and deep for
 * good), and its figures go: the ring leaves the tables until its id is
 * seen again, and then starts from zero instead of adding to the old
 * ring's.  Interrupts are off.
 */
static void agg_ring_released(u32 ring_id, void *data)
{
	struct agg_ring *r;
	u64 now;
	int b, k;

	if (ring_id >= AGG_RINGS)
		return;
	r = &agg->rings[ring_id];
	raw_spin_lock(&r->lock);
	now = grtrace_clock_now();
	for (b = 0; b < AGG_BUCKETS; b++)
		while (r->bucket[b] != AGG_NIL) {
			u16 i = r->bucket[b];
			struct agg_job *j = &agg->jobs[i];

			if (!(j->flags & AGG_J_ENDED))
				agg_job_end(r, i, now);
			agg_job_put(j, &r->bucket[b]);
		}
	r->seen = false;
	r->has_start = false;
	r->nstarted = 0;
	r->depth = 0;
	r->qhead = AGG_NIL;
	r->qtail = AGG_NIL;
	r->last_ts = now;
	for (k = 0; k < AGG_NR_SPANS; k++)
		agg_stats_reset(&r->s[k], now);
	raw_spin_unlock(&r->lock);
}

static struct grtrace_hook agg_hook = {
	.name = "aggregator",
	.prio = 100,
	.observe = agg_observe,
	.ring_released = agg_ring_released,
	.live = true,
};

/*
 * Close the current window of every ring and context, one at a time under
 * its own lock, each at the clock read under that lock: an event already
 * accounted is never past its window's end.  Under agg_win_mutex.
 */
static void agg_close_window(void)
{
	unsigned long flags;
	u64 now;
	int i;

	lockdep_assert_held(&agg_win_mutex);
	/* Contexts taken from now on begin with the next window. */
	raw_spin_lock_irqsave(&agg->ctx_lock, flags);
	now = grtrace_clock_now();
	agg->win_start[AGG_LAST] = agg->win_start[AGG_CUR];
	agg->win_start[AGG_CUR] = now;
	raw_spin_unlock_irqrestore(&agg->ctx_lock, flags);
	for (i = 0; i < AGG_RINGS; i++) {
		struct agg_ring *r = &agg->rings[i];

		raw_spin_lock_irqsave(&r->lock, flags);
		now = grtrace_clock_now();
		if (r->seen) {
			agg_advance(r, now);
			r->s[AGG_CUR].end = now;
			r->s[AGG_LAST] = r->s[AGG_CUR];
		}
		/* A ring first seen later has its windows from here on. */
		agg_stats_reset(&r->s[AGG_CUR], now);
		r->s[AGG_CUR].depth_peak = r->depth;
		raw_spin_unlock_irqrestore(&r->lock, flags);
	}
	for (i = 0; agg->per_ctx && i < AGG_CTXS; i++) {
		struct agg_ctx *c = &agg->ctxs[i];

		/* Its slot published after it was set up. */
		if (!smp_load_acquire(&c->used))
			continue;
		raw_spin_lock_irqsave(&c->lock, flags);
		/* Not one taken since this window began. */
		if (c->s[AGG_CUR].start < agg->win_start[AGG_CUR]) {
			now = grtrace_clock_now();
			agg_ctx_advance(c, now);
			c->s[AGG_CUR].end = now;
			c->s[AGG_LAST] = c->s[AGG_CUR];
			agg_stats_reset(&c->s[AGG_CUR], now);
			c->s[AGG_CUR].depth_peak = c->depth;
		}
		raw_spin_unlock_irqrestore(&c->lock, flags);
	}
	agg->windows++;
}

static void agg_work_fn(struct work_struct *work)
{
	mutex_lock(&agg_win_mutex);
	agg_close_window();
	mutex_unlock(&agg_win_mutex);
	schedule_delayed_work(&agg_work,
			      msecs_to_jiffies(READ_ONCE(agg_window_ms)));
}

/*
 * Everything back to zero, from @now, per context with @ctxs (zeroed).
 * Out of the event path, with no reader and no window closing.
 */
static void agg_reset(u64 now, struct agg_ctx *ctxs)
{
	int i, k;

	vfree(agg->ctxs);
	memset(agg, 0, sizeof(*agg));
	agg->ctxs = ctxs;
	agg->per_ctx = ctxs;
	raw_spin_lock_init(&agg->ctx_lock);
	for (k = 0; k < AGG_NR_SPANS; k++)
		agg->win_start[k] = now;
	for (i = 0; ctxs && i < AGG_CTXS; i++)
		raw_spin_lock_init(&ctxs[i].lock);
	for_each_possible_cpu(i)
		per_cpu_ptr(agg_pcpu, i)->untracked_rings = 0;
	agg->enabled_at = now;
	for (i = 0; i < AGG_RINGS; i++) {
		struct agg_ring *r = &agg->rings[i];

		raw_spin_lock_init(&r->lock);
		r->qhead = AGG_NIL;
		r->qtail = AGG_NIL;
		for (k = 0; k < AGG_BUCKETS; k++)
			r->bucket[k] = AGG_NIL;
		for (k = 0; k < AGG_NR_SPANS; k++)
			agg_stats_reset(&r->s[k], now);
	}
}

static void agg_disable_locked(void)
{
	unsigned long flags;
	u64 now;
	int i;

	lockdep_assert_held(&agg_mutex);
	if (!agg_enabled)
		return;
	/* Returns once no event is in agg_observe(). */
	grtrace_hook_unregister(&agg_hook);
	cancel_delayed_work_sync(&agg_work);
	/* The figures stay, as of now. */
	now = grtrace_clock_now();
	for (i = 0; i < AGG_RINGS; i++) {
		struct agg_ring *r = &agg->rings[i];

		raw_spin_lock_irqsave(&r->lock, flags);
		if (r->seen)
			agg_advance(r, now);
		raw_spin_unlock_irqrestore(&r->lock, flags);
	}
	for (i = 0; agg->per_ctx && i < AGG_CTXS; i++) {
		struct agg_ctx *c = &agg->ctxs[i];

		raw_spin_lock_irqsave(&c->lock, flags);
		if (c->used)
			agg_ctx_advance(c, now);
		raw_spin_unlock_irqrestore(&c->lock, flags);
	}
	agg->disabled_at = max(now, agg->enabled_at);
	agg_enabled = false;
}

static int agg_enable_locked(void)
{
	struct agg_ctx *ctxs = NULL;
	int ret;

	lockdep_assert_held(&agg_mutex);
	agg_disable_locked();
	if (agg_want_per_ctx) {
		ctxs = vzalloc(array_size(AGG_CTXS, sizeof(*ctxs)));
		if (!ctxs)
			return -ENOMEM;
	}
	/* Readers hold agg_mutex, and the work is stopped. */
	agg_reset(grtrace_clock_now(), ctxs);
	ret = grtrace_hook_register(&agg_hook);
	if (ret)
		return ret;
	agg_enabled = true;
	schedule_delayed_work(&agg_work, msecs_to_jiffies(agg_window_ms));
	return 0;
}

/*
 * A decimal whole number from a debugfs write, within [@lo, @hi].  The
 * whole write is parsed: kstrtouint_from_user() would read its first 34
 * bytes only (34 zeros and a 1 read as 0), and in base 0 "01000" is 512.
 */
static int agg_parse(const char __user *ubuf, size_t count, unsigned int lo,
		     unsigned int hi, unsigned int *val)
{
	char buf[24];
	int ret;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	ret = kstrtouint(buf, 10, val);
	if (ret)
		return ret;
	if (*val < lo || *val > hi)
		return -EINVAL;
	return 0;
}

static ssize_t enable_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	unsigned int v;
	int ret = agg_parse(ubuf, count, 0, 1, &v);

	if (ret) {
		pr_debug("aggregator_enable: 0 or 1\n");
		return ret;
	}
	mutex_lock(&agg_mutex);
	if (v)
		ret = agg_enable_locked();
	else
		agg_disable_locked();
	mutex_unlock(&agg_mutex);
	return ret ? ret : count;
}

static int enable_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", READ_ONCE(agg_enabled));
	return 0;
}

static int enable_open(struct inode *inode, struct file *file)
{
	return single_open(file, enable_show, NULL);
}

static const struct file_operations enable_fops = {
	.owner = THIS_MODULE,
	.open = enable_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = enable_write,
	.release = single_release,
};

static ssize_t window_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	unsigned int v;
	int ret = agg_parse(ubuf, count, AGG_WINDOW_MIN, AGG_WINDOW_MAX, &v);

	if (ret) {
		pr_debug("aggregator_window: %u..%u ms\n", AGG_WINDOW_MIN,
			 AGG_WINDOW_MAX);
		return ret;
	}
	mutex_lock(&agg_mutex);
	WRITE_ONCE(agg_window_ms, v);
	/* The current window ends at its new length. */
	if (agg_enabled)
		mod_delayed_work(system_wq, &agg_work, msecs_to_jiffies(v));
	mutex_unlock(&agg_mutex);
	return count;
}

static int window_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%u\n", READ_ONCE(agg_window_ms));
	return 0;
}

static int window_open(struct inode *inode, struct file *file)
{
	return single_open(file, window_show, NULL);
}

static const struct file_operations window_fops = {
	.owner = THIS_MODULE,
	.open = window_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = window_write,
	.release = single_release,
};

static ssize_t per_ctx_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	unsigned int v;
	int ret = agg_parse(ubuf, count, 0, 1, &v);

	if (ret) {
		pr_debug("aggregator_per_ctx: 0 or 1\n");
		return ret;
	}
	mutex_lock(&agg_mutex);
	agg_want_per_ctx = v;
	/* Enabled, it starts afresh with the new setting. */
	if (agg_enabled)
		ret = agg_enable_locked();
	mutex_unlock(&agg_mutex);
	return ret ? ret : count;
}

static int per_ctx_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", READ_ONCE(agg_want_per_ctx));
	return 0;
}

static int per_ctx_open(struct inode *inode, struct file *file)
{
	return single_open(file, per_ctx_show, NULL);
}

static const struct file_operations per_ctx_fops = {
	.owner = THIS_MODULE,
	.open = per_ctx_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = per_ctx_write,
	.release = single_release,
};

/* A context's figures, as a reader shows them. */
struct agg_csnap {
	u64 ctx;
	u16 ring;
	u32 depth;
	struct agg_stats last;
	struct agg_stats total;
};

/* What a reader shows: the rings' figures, copied under the lock. */
struct agg_snap {
	u64 now;
	u64 windows;
	u64 enabled_at;
	u64 untracked_rings;
	u64 untracked_jobs;
	bool enabled;
	unsigned int nr;
	u16 ring[AGG_RINGS];
	u32 depth[AGG_RINGS];
	struct agg_stats last[AGG_RINGS];
	struct agg_stats total[AGG_RINGS];
	bool per_ctx;
	u64 untracked_ctxs;
	unsigned int nctxs;
	struct agg_csnap *ctxs;
};

static void agg_snap_free(struct agg_snap *sn)
{
	vfree(sn->ctxs);
	vfree(sn);
}

/*
 * The figures of ring @r up to its clock read under its lock (@now
 * disabled), as the next row of @sn: one ring at a time under its lock.
 */
static void agg_snap_ring(struct agg_snap *sn, struct agg_ring *r, u16 ring,
			  bool enabled, u64 now)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	sn->untracked_jobs += r->untracked_jobs;
	sn->untracked_ctxs += r->untracked_ctxs;
	if (r->seen) {
		/* No event accounted is past the end of the row. */
		if (enabled) {
			now = grtrace_clock_now();
			agg_advance(r, now);
		}
		sn->ring[sn->nr] = ring;
		sn->depth[sn->nr] = r->depth;
		sn->last[sn->nr] = r->s[AGG_LAST];
		sn->total[sn->nr] = r->s[AGG_TOTAL];
		sn->total[sn->nr].end = max(now, sn->enabled_at);
		sn->nr++;
	}
	raw_spin_unlock_irqrestore(&r->lock, flags);
}

/* The same for context @c, once used. */
static void agg_snap_ctx(struct agg_snap *sn, struct agg_ctx *c, bool enabled,
			 u64 now)
{
	struct agg_csnap *cs = &sn->ctxs[sn->nctxs];
	unsigned long flags;

	/* Its slot published after it was set up. */
	if (!smp_load_acquire(&c->used))
		return;
	raw_spin_lock_irqsave(&c->lock, flags);
	if (enabled) {
		now = grtrace_clock_now();
		agg_ctx_advance(c, now);
	}
	cs->ctx = c->ctx;
	cs->ring = c->ring;
	cs->depth = c->depth;
	cs->last = c->s[AGG_LAST];
	cs->total = c->s[AGG_TOTAL];
	cs->total.end = max(now, sn->enabled_at);
	raw_spin_unlock_irqrestore(&c->lock, flags);
	sn->nctxs++;
}

static struct agg_snap *agg_snapshot(void)
{
	struct agg_snap *sn = vzalloc(sizeof(*sn));
	int i;

	if (!sn)
		return NULL;
	mutex_lock(&agg_mutex);
	/* agg->ctxs changes only under agg_mutex. */
	if (agg->per_ctx) {
		sn->ctxs = vzalloc(array_size(AGG_CTXS, sizeof(*sn->ctxs)));
		if (!sn->ctxs) {
			mutex_unlock(&agg_mutex);
			vfree(sn);
			return NULL;
		}
	}
	/* Every ring at the same window. */
	mutex_lock(&agg_win_mutex);
	sn->enabled = agg_enabled;
	/* Disabled, the figures stay as they were when it stopped. */
	sn->now = agg_enabled ? grtrace_clock_now() : agg->disabled_at;
	sn->windows = agg->windows;
	sn->enabled_at = agg->enabled_at;
	for_each_possible_cpu(i)
		sn->untracked_rings += READ_ONCE(per_cpu_ptr(agg_pcpu, i)->untracked_rings);
	for (i = 0; i < AGG_RINGS; i++)
		agg_snap_ring(sn, &agg->rings[i], i, agg_enabled, sn->now);
	sn->per_ctx = agg->per_ctx;
	for (i = 0; agg->per_ctx && i < AGG_CTXS; i++)
		agg_snap_ctx(sn, &agg->ctxs[i], agg_enabled, sn->now);
	mutex_unlock(&agg_win_mutex);
	mutex_unlock(&agg_mutex);
	return sn;
}

static u64 agg_span(const struct agg_stats *st)
{
	return st->end > st->start ? st->end - st->start : 0;
}

/* @num / @den in hundredths of a percent, for "12.34". */
static u64 agg_ratio100(u64 num, u64 den)
{
	return den ? mul_u64_u64_div_u64(num, 100 * 100, den) : 0;
}

static void agg_row(struct seq_file *m, u16 ring, const struct agg_stats *st)
{
	u64 len = agg_span(st);
	u64 busy = agg_ratio100(st->busy_ns, len);
	u64 depth = len ? mul_u64_u64_div_u64(st->depth_area, 100, len) : 0;
	u64 avg = st->lat_n ? div64_u64(st->lat_sum, st->lat_n) : 0;

	seq_printf(m, "%4u %10llu %8llu %3llu.%02llu %6llu.%02llu %9u %10llu %10llu %10llu %10llu %10llu\n",
		   ring, st->events, st->jobs, busy / 100, busy % 100,
		   depth / 100, depth % 100, st->depth_peak, avg / 1000,
		   st->lat_min / 1000, st->lat_max / 1000,
		   agg_pct(st, 50) / 1000, agg_pct(st, 99) / 1000);
}

static void agg_table(struct seq_file *m, const struct agg_snap *sn,
		      const struct agg_stats *sts)
{
	unsigned int i;

	seq_puts(m, "Ring     Events     Jobs  Busy%  AvgDepth PeakDepth  AvgLat_us  MinLat_us  MaxLat_us  p50Lat_us  p99Lat_us\n");
	for (i = 0; i < sn->nr; i++)
		agg_row(m, sn->ring[i], &sts[i]);
}

/* The contexts' figures: their last window (@last), or since enabled. */
static void agg_ctx_table(struct seq_file *m, const struct agg_snap *sn,
			  bool last)
{
	unsigned int i;

	seq_puts(m, "Context              Ring     Events     Jobs  Busy%  AvgDepth PeakDepth  AvgLat_us  MinLat_us  MaxLat_us  p50Lat_us  p99Lat_us\n");
	for (i = 0; i < sn->nctxs; i++) {
		seq_printf(m, "%-20llu ", sn->ctxs[i].ctx);
		agg_row(m, sn->ctxs[i].ring,
			last ? &sn->ctxs[i].last : &sn->ctxs[i].total);
	}
}

static int stats_show(struct seq_file *m, void *v)
{
	struct agg_snap *sn = agg_snapshot();
	unsigned int i;
	u64 late, late_ns;

	if (!sn)
		return -ENOMEM;
	seq_printf(m, "Aggregation Window: %u ms\n", READ_ONCE(agg_window_ms));
	seq_printf(m, "Status: %s\n", sn->enabled ? "enabled" : "disabled");
	seq_printf(m, "Windows closed: %llu\n", sn->windows);
	seq_printf(m, "Untracked: %llu events on rings >= %u, %llu jobs (job table full)\n",
		   sn->untracked_rings, AGG_RINGS, sn->untracked_jobs);
	for (i = 0, late = 0, late_ns = 0; i < sn->nr; i++) {
		late += sn->total[i].late;
		late_ns += sn->total[i].late_ns;
	}
	seq_printf(m, "Late: %llu events stamped before their ring's last, by %llu ns in all (busy and depth accounted from there)\n",
		   late, late_ns);
	seq_puts(m, "\nLast window:\n");
	if (sn->windows)
		agg_table(m, sn, sn->last);
	else
		seq_puts(m, "(none closed yet)\n");
	seq_printf(m, "\nSince enabled (%llu ms):\n",
		   div_u64(sn->now - sn->enabled_at, NSEC_PER_MSEC));
	agg_table(m, sn, sn->total);
	if (sn->per_ctx) {
		seq_printf(m, "\nContexts (untracked: %llu events past %u contexts), last window:\n",
			   sn->untracked_ctxs, AGG_CTXS);
		if (sn->windows)
			agg_ctx_table(m, sn, true);
		else
			seq_puts(m, "(none closed yet)\n");
		seq_puts(m, "\nContexts, since enabled:\n");
		agg_ctx_table(m, sn, false);
	}
	agg_snap_free(sn);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/* One line of aggregator_stats_raw; a context's (@cs) names it too. */
static void agg_raw(struct seq_file *m, const char *scope,
		    const struct agg_csnap *cs, u16 ring, u32 depth,
		    const struct agg_stats *st)
{
	seq_printf(m, "scope=%s ", scope);
	if (cs)
		seq_printf(m, "ctx=%llu ", cs->ctx);
	seq_printf(m, "ring=%u ", ring);
	seq_printf(m, "start_ns=%llu len_ns=%llu events=%llu jobs=%llu busy_ns=%llu depth_area=%llu depth_peak=%u depth_now=%u lat_n=%llu lat_sum_ns=%llu lat_min_ns=%llu lat_max_ns=%llu lat_p50_ns=%llu lat_p99_ns=%llu late=%llu late_ns=%llu\n",
		   st->start, agg_span(st), st->events, st->jobs,
		   st->busy_ns, st->depth_area, st->depth_peak, depth,
		   st->lat_n, st->lat_sum, st->lat_min, st->lat_max,
		   agg_pct(st, 50), agg_pct(st, 99), st->late, st->late_ns);
}

static int stats_raw_show(struct seq_file *m, void *v)
{
	struct agg_snap *sn = agg_snapshot();
	unsigned int i;

	if (!sn)
		return -ENOMEM;
	seq_printf(m, "# grtrace aggregator 1 enabled=%d window_ms=%u windows=%llu now_ns=%llu enabled_ns=%llu untracked_ring_events=%llu untracked_jobs=%llu per_ctx=%d untracked_ctx_events=%llu\n",
		   sn->enabled, READ_ONCE(agg_window_ms), sn->windows, sn->now,
		   sn->enabled_at, sn->untracked_rings, sn->untracked_jobs,
		   sn->per_ctx, sn->untracked_ctxs);
	for (i = 0; i < sn->nr; i++) {
		if (sn->windows)
			agg_raw(m, "last", NULL, sn->ring[i], sn->depth[i],
				&sn->last[i]);
		agg_raw(m, "total", NULL, sn->ring[i], sn->depth[i],
			&sn->total[i]);
	}
	for (i = 0; i < sn->nctxs; i++) {
		const struct agg_csnap *cs = &sn->ctxs[i];

		if (sn->windows)
			agg_raw(m, "ctx_last", cs, cs->ring, cs->depth,
				&cs->last);
		agg_raw(m, "ctx_total", cs, cs->ring, cs->depth, &cs->total);
	}
	agg_snap_free(sn);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats_raw);

static int __init agg_init(void)
{
	struct dentry *dir = grtrace_debugfs_dir();

	agg_pcpu = alloc_percpu(struct agg_pcpu);
	if (!agg_pcpu)
		return -ENOMEM;
	agg = vzalloc(sizeof(*agg));
	if (!agg) {
		free_percpu(agg_pcpu);
		return -ENOMEM;
	}
	agg_reset(0, NULL);
	INIT_DELAYED_WORK(&agg_work, agg_work_fn);
	agg_files[0] = debugfs_create_file("aggregator_enable", 0600, dir, NULL,
					   &enable_fops);
	agg_files[1] = debugfs_create_file("aggregator_window", 0600, dir, NULL,
					   &window_fops);
	agg_files[2] = debugfs_create_file("aggregator_stats", 0400, dir, NULL,
					   &stats_fops);
	agg_files[3] = debugfs_create_file("aggregator_stats_raw", 0400, dir,
					   NULL, &stats_raw_fops);
	agg_files[4] = debugfs_create_file("aggregator_per_ctx", 0600, dir,
					   NULL, &per_ctx_fops);
	return 0;
}

static void __exit agg_exit(void)
{
	int i;

	/* No file is open (each holds a module reference). */
	for (i = 0; i < ARRAY_SIZE(agg_files); i++)
		debugfs_remove(agg_files[i]);
	mutex_lock(&agg_mutex);
	agg_disable_locked();
	mutex_unlock(&agg_mutex);
	vfree(agg->ctxs);
	vfree(agg);
	free_percpu(agg_pcpu);
}

module_init(agg_init);
module_exit(agg_exit);
MODULE_DESCRIPTION("grtrace: per-ring figures over time windows, in the kernel");
MODULE_LICENSE("GPL");
