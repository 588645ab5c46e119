// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: job summaries, for the optional modules that keep only the
 * slow jobs (grtrace_sampling's threshold mode, grtrace_filter's
 * filter_latency).  Whether a job is slow is known only at its COMPLETE,
 * so its events cannot be written as they come: a table of the jobs in
 * flight holds the times of their events back, and a job whose latency
 * crossed the threshold is written whole, as one JOB_SUMMARY record.
 *
 * A job belongs to the session of its first event.  One that a session
 * left open (it stopped before the job's COMPLETE, which the modules then
 * never see) is forgotten when a later session meets it, never written
 * into that session's stream as open.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/grtrace.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "grtrace_internal.h"

#define JS_NIL		0xffff
#define JS_BUCKETS	1024
#define JS_SHARDS	16	/* a power of 2, at most JS_BUCKETS */
#define JS_STAMPS	GRTRACE_EV_COMPLETE	/* SUBMIT .. COMPLETE */

struct js_job {
	u64 ctx;
	u64 seqno;
	u64 ts[JS_STAMPS];
	u64 wait_since;
	u64 wait_ns;
	u32 ring;
	u32 pid;
	u32 tid;
	u32 waits;
	u32 session;		/* low bits of the session of its first event */
	u16 next;		/* hash chain, or free list */
	u16 older;		/* age list: allocation order */
	u16 newer;
	u16 engine;
	u16 nopen;		/* waits open */
	u8 events;		/* bit (1 << type) of the stamps set */
	u8 derived;
	bool wait_bad;
};

struct js_counts {
	u64 written;
	u64 lost;
	u64 evicted;
};

/*
 * A job's events come from several CPUs (its SUBMIT from an ioctl, its END
 * from an interrupt), so the table cannot be per CPU.  It is cut into
 * shards by a hash of the job's key instead, each with its own lock, hash
 * buckets, slots, free list and age list: two CPUs meet on a lock only
 * when their jobs fall in one shard, and a lock is held for one lookup.
 * A full shard gives up its own oldest job.
 */
struct js_shard {
	raw_spinlock_t lock;	/* guards the shard */
	u16 nr;
	u16 free;
	u16 oldest;
	u16 newest;
	unsigned int open;
	struct js_job *jobs;	/* nr slots of the table's array */
	u16 bucket[JS_BUCKETS / JS_SHARDS];
} ____cacheline_aligned_in_smp;

struct grtrace_jobsum {
	unsigned int nr_shards;	/* a power of 2 */
	struct js_counts __percpu *counts;
	struct js_shard shard[JS_SHARDS];
	struct js_job jobs[];
};

/**
 * grtrace_jobsum_create() - a table for @nr jobs in flight
 * @nr: 1..65535
 *
 * The slots are shared out among up to 16 shards by a hash of the job's
 * key; a shard whose slots are all taken gives up its oldest job, so a
 * table may give up a job before all @nr slots are taken.
 * Context: process; sleeps.
 * Return: the table, empty, or an ERR_PTR (-EINVAL, -ENOMEM).
 */
struct grtrace_jobsum *grtrace_jobsum_create(unsigned int nr)
{
	struct grtrace_jobsum *t;
	unsigned int i, first = 0;

	if (!nr || nr >= JS_NIL)
		return ERR_PTR(-EINVAL);
	t = vzalloc(struct_size(t, jobs, nr));
	if (!t)
		return ERR_PTR(-ENOMEM);
	t->counts = alloc_percpu(struct js_counts);
	if (!t->counts) {
		vfree(t);
		return ERR_PTR(-ENOMEM);
	}
	/* Every shard has a slot at least. */
	t->nr_shards = min_t(unsigned int, JS_SHARDS,
			     rounddown_pow_of_two(nr));
	for (i = 0; i < t->nr_shards; i++) {
		struct js_shard *s = &t->shard[i];

		raw_spin_lock_init(&s->lock);
		s->nr = nr / t->nr_shards + (i < nr % t->nr_shards);
		s->jobs = &t->jobs[first];
		first += s->nr;
	}
	grtrace_jobsum_reset(t);
	return t;
}
EXPORT_SYMBOL_GPL(grtrace_jobsum_create);

/**
 * grtrace_jobsum_destroy() - free a table
 * @t: the table, or NULL; no event may be in grtrace_jobsum_event()
 */
void grtrace_jobsum_destroy(struct grtrace_jobsum *t)
{
	if (!t)
		return;
	free_percpu(t->counts);
	vfree(t);
}
EXPORT_SYMBOL_GPL(grtrace_jobsum_destroy);

/**
 * grtrace_jobsum_reset() - forget every job, and count from zero
 * @t: the table; no event may be in grtrace_jobsum_event()
 */
void grtrace_jobsum_reset(struct grtrace_jobsum *t)
{
	unsigned long flags;
	unsigned int n, i;
	int cpu;

	for (n = 0; n < t->nr_shards; n++) {
		struct js_shard *s = &t->shard[n];

		raw_spin_lock_irqsave(&s->lock, flags);
		for (i = 0; i < ARRAY_SIZE(s->bucket); i++)
			s->bucket[i] = JS_NIL;
		for (i = 0; i < s->nr; i++)
			s->jobs[i].next = i + 1 < s->nr ? i + 1 : JS_NIL;
		s->free = 0;
		s->oldest = JS_NIL;
		s->newest = JS_NIL;
		s->open = 0;
		raw_spin_unlock_irqrestore(&s->lock, flags);
	}
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(t->counts, cpu), 0, sizeof(struct js_counts));
}
EXPORT_SYMBOL_GPL(grtrace_jobsum_reset);

/* The shard of a job: the high bits of its key's hash (the low: bucket). */
static struct js_shard *js_shard_of(struct grtrace_jobsum *t, u64 ctx,
				    u64 seqno)
{
	u64 h = hash_64(ctx ^ (seqno << 20) ^ seqno, 32);

	return &t->shard[(h >> ilog2(JS_BUCKETS / JS_SHARDS)) &
			 (t->nr_shards - 1)];
}

static u16 *js_find(struct js_shard *t, u64 ctx, u64 seqno)
{
	u16 *link = &t->bucket[hash_64(ctx ^ (seqno << 20) ^ seqno, 32) &
			       (ARRAY_SIZE(t->bucket) - 1)];

	while (*link != JS_NIL) {
		struct js_job *j = &t->jobs[*link];

		if (j->ctx == ctx && j->seqno == seqno)
			return link;
		link = &j->next;
	}
	return link;
}

/* Take job @i out of the table; @link is its hash link, or NULL. */
static void js_remove(struct js_shard *t, u16 i, u16 *link)
{
	struct js_job *j = &t->jobs[i];

	if (!link)
		link = js_find(t, j->ctx, j->seqno);
	*link = j->next;
	if (j->older != JS_NIL)
		t->jobs[j->older].newer = j->newer;
	else
		t->oldest = j->newer;
	if (j->newer != JS_NIL)
		t->jobs[j->newer].older = j->older;
	else
		t->newest = j->older;
	j->next = t->free;
	t->free = i;
	t->open--;
}

/* report's t_total: first of SUBMIT..START to the last of END, COMPLETE. */
static bool js_latency(const struct js_job *j, u64 *lat)
{
	unsigned int early = j->events & (BIT(GRTRACE_EV_SUBMIT) |
		BIT(GRTRACE_EV_COMMIT) | BIT(GRTRACE_EV_START));
	unsigned int late = j->events & (BIT(GRTRACE_EV_END) |
					 BIT(GRTRACE_EV_COMPLETE));
	u64 from, to;

	if (!early || !late)
		return false;
	from = j->ts[__ffs(early) - 1];
	to = j->ts[__fls(late) - 1];
	*lat = to > from ? to - from : 0;
	return true;
}

/* The session a job of now belongs to. */
static u32 js_session(void)
{
	return (u32)READ_ONCE(grtrace_session);
}

/*
 * Open since its first stamp for longer than @threshold at @now, in this
 * session?  One of an earlier session is its stream's no longer.
 */
static bool js_open_too_long(const struct js_job *j, u64 now, u64 threshold)
{
	u64 first;

	if (!j->events || j->session != js_session())
		return false;
	first = j->ts[__ffs(j->events) - 1];
	return now > first && now - first > threshold;
}

static void js_summarise(const struct js_job *j, u16 reason, u64 threshold,
			 struct grtrace_job_summary *js)
{
	*js = (struct grtrace_job_summary){
		.ctx = j->ctx, .seqno = j->seqno, .ring_id = j->ring,
		.engine = j->engine, .events = j->events,
		.derived = j->derived, .reason = reason, .pid = j->pid,
		.tid = j->tid, .waits = j->waits,
		.wait_ns = j->nopen || j->wait_bad ? 0 : j->wait_ns,
		.threshold = threshold,
	};
	memcpy(js->ts, j->ts, sizeof(js->ts));
}

static void js_write(struct grtrace_jobsum *t, struct grtrace_job_summary *js)
{
	if (grtrace_write_job_summary(js))
		this_cpu_inc(t->counts->lost);
	else
		this_cpu_inc(t->counts->written);
}

/*
 * A slot for a new job.  With the shard full its oldest job gives way;
 * one open longer than @threshold is summarised into *@js (then true:
 * write it once the lock is dropped).
 */
static u16 js_alloc(struct grtrace_jobsum *table, struct js_shard *t, u64 now,
		    u64 threshold, struct grtrace_job_summary *js, bool *out)
{
	u16 i = t->free;

	*out = false;
	if (i == JS_NIL) {
		struct js_job *old = &t->jobs[t->oldest];

		this_cpu_inc(table->counts->evicted);
		if (js_open_too_long(old, now, threshold)) {
			js_summarise(old, GRTRACE_SUMMARY_OPEN, threshold, js);
			*out = true;
		}
		js_remove(t, t->oldest, NULL);
		i = t->free;
	}
	t->free = t->jobs[i].next;
	t->jobs[i] = (struct js_job){ .older = t->newest, .newer = JS_NIL };
	if (t->newest != JS_NIL)
		t->jobs[t->newest].newer = i;
	else
		t->oldest = i;
	t->newest = i;
	t->open++;
	return i;
}

/**
 * grtrace_jobsum_event() - hold one event's time; judge its job at COMPLETE
 * @table: the table
 * @ev: the event, from a hook's drop callback
 * @threshold: ns; a job whose t_total (report's: the first of its SUBMIT,
 *	COMMIT, START to its COMPLETE) is above it is slow
 *
 * A slow job is written as one JOB_SUMMARY (counted as written or lost);
 * with the job's shard of the table full, the shard's oldest job gives
 * way, written (as open) if it has been open longer than @threshold.  The
 * caller drops the event.
 * Context: a hook's callback (interrupts off, not NMI).
 * Return: %GRTRACE_JOBSUM_NONE for an event of no job (CTX_SWITCH, IRQ,
 * ERROR: the caller decides); %GRTRACE_JOBSUM_OPEN for an event held (its
 * job runs), or a wait that begins no job (the end of a wait whose job is
 * gone, a wait on the job's own fence): the caller drops it;
 * %GRTRACE_JOBSUM_FAST or %GRTRACE_JOBSUM_SLOW at the job's COMPLETE.
 */
enum grtrace_jobsum_verdict
grtrace_jobsum_event(struct grtrace_jobsum *table,
		     const struct grtrace_hook_event *ev, u64 threshold)
{
	enum grtrace_jobsum_verdict v = GRTRACE_JOBSUM_OPEN;
	struct grtrace_job_summary js, old;
	bool evicted = false;
	struct js_shard *t;
	struct js_job *j;
	u16 *link, i;
	u64 now, lat;

	if (ev->type > GRTRACE_EV_COMPLETE &&
	    ev->type != GRTRACE_EV_SYNC_WAIT_ENTER &&
	    ev->type != GRTRACE_EV_SYNC_WAIT_EXIT)
		return GRTRACE_JOBSUM_NONE;
	now = grtrace_now();
	t = js_shard_of(table, ev->ctx, ev->seqno);
	raw_spin_lock(&t->lock);
	link = js_find(t, ev->ctx, ev->seqno);
	/* Left open by an earlier session: forgotten, this is a new one. */
	if (*link != JS_NIL && t->jobs[*link].session != js_session()) {
		js_remove(t, *link, link);
		link = js_find(t, ev->ctx, ev->seqno);
	}
	/*
	 * The end of a wait whose job is gone, or a wait on the job's own
	 * fence (i915's request waits, which end after the job): no job
	 * to begin for it.
	 */
	if (*link == JS_NIL &&
	    (ev->type == GRTRACE_EV_SYNC_WAIT_EXIT ||
	     (ev->type == GRTRACE_EV_SYNC_WAIT_ENTER &&
	      ev->aux0 == ev->ctx && ev->aux1 == ev->seqno))) {
		raw_spin_unlock(&t->lock);
		return GRTRACE_JOBSUM_OPEN;
	}
	if (*link == JS_NIL) {
		i = js_alloc(table, t, now, threshold, &old, &evicted);
		/* The eviction may have changed the chain. */
		link = js_find(t, ev->ctx, ev->seqno);
		*link = i;
		j = &t->jobs[i];
		j->ctx = ev->ctx;
		j->seqno = ev->seqno;
		j->ring = ev->ring_id;
		j->engine = ev->engine;
		j->session = js_session();
		j->next = JS_NIL;
	}
	j = &t->jobs[*link];
	switch (ev->type) {
	case GRTRACE_EV_SYNC_WAIT_ENTER:
		/* A wait on the job's own fence is no dependency of it. */
		if (ev->aux0 == j->ctx && ev->aux1 == j->seqno)
			break;
		j->waits++;
		if (!j->nopen++)
			j->wait_since = now;
		break;
	case GRTRACE_EV_SYNC_WAIT_EXIT:
		if (ev->aux0 == j->ctx && ev->aux1 == j->seqno)
			break;
		if (!j->nopen)
			j->wait_bad = true;
		else if (!--j->nopen)
			j->wait_ns += now - j->wait_since;
		break;
	default:
		j->ts[ev->type - 1] = now;
		j->events |= BIT(ev->type);
		if (ev->derived)
			j->derived |= BIT(ev->type);
		if (ev->type == GRTRACE_EV_SUBMIT && in_task()) {
			j->pid = task_tgid_nr(current);
			j->tid = task_pid_nr(current);
		}
	}
	if (ev->type == GRTRACE_EV_COMPLETE) {
		v = GRTRACE_JOBSUM_FAST;
		if (js_latency(j, &lat) && lat > threshold) {
			js_summarise(j, GRTRACE_SUMMARY_SLOW, threshold, &js);
			v = GRTRACE_JOBSUM_SLOW;
		}
		js_remove(t, *link, link);
	}
	raw_spin_unlock(&t->lock);
	if (evicted)
		js_write(table, &old);
	if (v == GRTRACE_JOBSUM_SLOW)
		js_write(table, &js);
	return v;
}
EXPORT_SYMBOL_GPL(grtrace_jobsum_event);

/**
 * grtrace_jobsum_flush() - write the jobs open longer than @threshold
 * @t: the table; no event may be in grtrace_jobsum_event() (the hook is
 *	unregistered)
 * @threshold: ns
 *
 * For a module that stops: its jobs in flight are given up, and those
 * already slow are written, as open.  Context: process.
 */
void grtrace_jobsum_flush(struct grtrace_jobsum *t, u64 threshold)
{
	struct grtrace_job_summary js;
	u64 now = grtrace_now();
	unsigned long flags;
	unsigned int n;
	bool out;
	u16 i;

	for (n = 0; n < t->nr_shards; n++) {
		struct js_shard *s = &t->shard[n];

		for (i = s->oldest; i != JS_NIL; i = s->jobs[i].newer) {
			raw_spin_lock_irqsave(&s->lock, flags);
			out = js_open_too_long(&s->jobs[i], now, threshold);
			if (out)
				js_summarise(&s->jobs[i], GRTRACE_SUMMARY_OPEN,
					     threshold, &js);
			raw_spin_unlock_irqrestore(&s->lock, flags);
			if (out) {
				preempt_disable();
				js_write(t, &js);
				preempt_enable();
			}
		}
	}
}
EXPORT_SYMBOL_GPL(grtrace_jobsum_flush);

/**
 * grtrace_jobsum_read() - what a table did since its last reset
 * @t: the table
 * @st: filled: summaries written and lost (buffer full, or no session),
 *	jobs evicted from a full table, jobs open now
 */
void grtrace_jobsum_read(struct grtrace_jobsum *t,
			 struct grtrace_jobsum_stats *st)
{
	unsigned int n;
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		const struct js_counts *c = per_cpu_ptr(t->counts, cpu);

		st->written += READ_ONCE(c->written);
		st->lost += READ_ONCE(c->lost);
		st->evicted += READ_ONCE(c->evicted);
	}
	for (n = 0; n < t->nr_shards; n++)
		st->open += READ_ONCE(t->shard[n].open);
}
EXPORT_SYMBOL_GPL(grtrace_jobsum_read);
