// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: GPU ring trace, the event path and its relay channel.
 */

/**
 * DOC: Overview
 *
 * grtrace records the life of GPU jobs (submit, commit to a ring, start,
 * end, completion, dependency waits, errors) from the tracepoints drivers
 * already have, into one compact binary stream per CPU.
 *
 * The objects are few.  Adapters (one small module per driver) translate
 * tracepoint hits into calls of the exported grtrace_submit() ...
 * grtrace_error() functions, naming the job by its dma-fence
 * ``context:seqno`` and the ring by an id obtained from
 * grtrace_ring_register().  Each call enters the event path, which runs
 * with interrupts disabled on the calling CPU, never sleeps and takes no
 * lock: it checks the settings (enabled, level, filters), stamps the record
 * with a timestamp, a global sequence number ``gseq`` and a per-CPU
 * sequence number ``cseq``, and copies it into that CPU's relay buffer.
 * Userspace reads ``events<cpu>`` in debugfs.
 *
 * The one invariant: every call into the event path ends as exactly one of
 * "written" or a named drop reason, counted per CPU, so that
 * ``emitted == written + sum(dropped_*)`` holds exactly once the path is
 * quiet, and a reader can always tell whether its trace is complete.
 *
 * Every start of tracing writes a STREAM_INFO record and then a METADATA
 * record (the ring table) before any event of the session, so each session
 * in a stream describes itself.  The relay buffers run in no-overwrite mode:
 * when the reader falls behind, new events are dropped and counted as
 * ``buffer_full``, old ones are never overwritten.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/relay.h>
#include <linux/sched/clock.h>
#include <linux/security.h>
#include <linux/stringify.h>
#include <linux/timer.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "grtrace_compat.h"
#include "grtrace_internal.h"

struct grtrace_pcpu __percpu *grtrace_pcpu __read_mostly;
struct grtrace_pcpu_cold __percpu *grtrace_pcpu_cold;

/* The event path's section starts a page: see __grtrace_hot. */
asm(".pushsection .text.hot.grtrace_event, \"ax\"\n"
	"\t.p2align " __stringify(PAGE_SHIFT) "\n"
	".popsection");

/* Protects the settings, the channel and the start/stop state. */
DEFINE_MUTEX(grtrace_lock);
/*
 * Serialises readers of the events files against each other.  Never held
 * across the removal of an events file: that waits for those readers.
 */
static DEFINE_MUTEX(grtrace_read_lock);

bool grtrace_enabled;
/* Whether a session runs, for the adapters: see grtrace_tracing(). */
DEFINE_STATIC_KEY_FALSE(grtrace_tracing_key);
EXPORT_SYMBOL_GPL(grtrace_tracing_key);
u64 grtrace_session;
unsigned long grtrace_buffer_size;

static atomic64_t grtrace_gseq = ATOMIC64_INIT(0);
/*
 * The channel, as the event path sees it: NULL while stopped and while
 * the flight recorder holds a snapshot (grtrace_rec_freeze()).  The
 * channel itself is grtrace_relay, which the control plane owns.
 */
static struct rchan *grtrace_chan;
static struct rchan *grtrace_relay;
/*
 * The session is the flight recorder's (armed or triggered): its relay
 * buffers overwrite their oldest sub-buffer instead of refusing a full
 * one, and no reader or timer runs.  Set and cleared under grtrace_lock
 * while no session runs.
 */
bool grtrace_rec_on;
/*
 * The form of the records in the channel: the format and gseq setting of
 * its session, kept after it stops (the config may change then, for the
 * next one), so that a control record written into its tail (a job
 * summary) has the form of the records before it.  0: the channel holds
 * no session (not yet started, or new after a resize), and takes no
 * control record but a session's first.
 */
static u8 grtrace_chan_format;
static bool grtrace_chan_gseq;

/*
 * The stream format of the records in the channels (0: none), for readers
 * of the events files: the config's may have changed since they were
 * written.
 */
unsigned int grtrace_chan_stream_format(void)
{
	return READ_ONCE(grtrace_chan_format);
}

static struct dentry *grtrace_dir;

/* How often pollers are woken for records of unfinished sub-buffers. */
#define GRTRACE_WAKE_MS		100
static struct timer_list grtrace_wake_timer;
static const struct file_operations grtrace_events_fops;

/*
 * Rate limiter state, one atomic each so that the event path needs no lock:
 * the window limiter packs (second << 32 | events in it), the token bucket
 * keeps the theoretical arrival time of the next event in ns (GCRA).
 */
static atomic64_t grtrace_rl_window_state = ATOMIC64_INIT(0);
static atomic64_t grtrace_rl_tat = ATOMIC64_INIT(0);
/*
 * Generation of the limiter's settings and state.  A CPU's note that the
 * limit holds until some time (struct grtrace_pcpu.rl_until) is good only
 * in the generation it was taken in.  Starts at 1: a CPU's is 0.
 */
static unsigned long grtrace_rl_gen = 1;

u64 grtrace_now(void)
{
	if (READ_ONCE(grtrace_cfg.clock) == GRTRACE_CLK_BOOTTIME)
		return ktime_get_boottime_ns();
	return ktime_get_ns();
}

/**
 * grtrace_clock_now() - the time on the clock events are stamped with
 *
 * The clock is the ``clock`` setting's, which changes only while no
 * session runs.  For the optional modules, to close a window of their
 * own at the time the events' @ts would have.
 * Context: any but NMI.
 * Return: nanoseconds.
 */
u64 grtrace_clock_now(void)
{
	return grtrace_now();
}
EXPORT_SYMBOL_GPL(grtrace_clock_now);

/**
 * grtrace_session_id() - the number of the session running, or of the last
 *
 * Sessions are numbered from 1 as they start (``session`` in the stats
 * file).  For the optional modules, to tell what they keep of an earlier
 * session (a job whose COMPLETE never came: the session stopped first)
 * from the current session's.
 * Context: any.
 * Return: the number; 0 before the first session.
 */
u64 grtrace_session_id(void)
{
	return READ_ONCE(grtrace_session);
}
EXPORT_SYMBOL_GPL(grtrace_session_id);

/*
 * Forget the limiter's history; called when its settings change, after
 * they are published, with grtrace_lock held.
 */
void grtrace_rl_reset(void)
{
	lockdep_assert_held(&grtrace_lock);
	atomic64_set(&grtrace_rl_window_state, 0);
	atomic64_set(&grtrace_rl_tat, 0);
	/* Settings and state before the generation: grtrace_rate_limited(). */
	smp_wmb();
	WRITE_ONCE(grtrace_rl_gen, grtrace_rl_gen + 1);
}

/* The one cross-CPU atomic of the path; gseq=0 turns it off. */
static u64 grtrace_next_gseq(void)
{
	if (unlikely(READ_ONCE(grtrace_cfg.no_gseq)))
		return 0;
	return atomic64_inc_return(&grtrace_gseq) - 1;
}

/*
 * Events dropped in NMI on this CPU since its last record (they cannot
 * take a cseq there: the code they interrupted may be taking one): their
 * cseqs are taken now, by the next record, a gap where they were lost.
 * The caller holds this CPU's cseq (interrupts off, or the fast path's
 * busy bit); an NMI that comes meanwhile counts for the record after.
 */
static noinline void __cold grtrace_nmi_gap(struct grtrace_pcpu *pc)
{
	pc->cseq += this_cpu_xchg(grtrace_pcpu->nmi_lost, 0);
}

/*
 * Test only (the emit file's "lose N"): as if N events had been lost in
 * NMI on this CPU, so that its next record's cseq is N further on; the
 * cseq arithmetic of readers and the flight recorder far from 0 is then
 * tested in seconds, not days.  Counts no drop.
 */
void grtrace_emit_lose(u64 n)
{
	this_cpu_add(grtrace_pcpu->nmi_lost, n);
}

/* This CPU's next cseq, after those of the events lost in NMI. */
static __always_inline u64 grtrace_take_cseq(struct grtrace_pcpu *pc)
{
	if (unlikely(READ_ONCE(pc->nmi_lost)))
		grtrace_nmi_gap(pc);
	return pc->cseq++;
}

/*
 * A record lost to a full buffer takes its cseq too, in both formats
 * (GRTRACE_FEAT_CSEQ_LOSS): the reader sees the loss in place.
 */
static void grtrace_fill_hdr(struct grtrace_hdr *hdr, u16 type, u16 size,
			     u16 flags, struct grtrace_pcpu *pc, u64 ts,
			     u64 gseq)
{
	hdr->type = type;
	hdr->size = size;
	hdr->cpu = smp_processor_id();
	hdr->flags = flags;
	hdr->ts = ts;
	hdr->gseq = gseq;
	hdr->cseq = grtrace_take_cseq(pc);
}

/*
 * The record just filled is whole: publish it to readers, who may read up
 * to @committed even in the sub-buffer being written.
 */
static __always_inline void grtrace_committed(struct grtrace_pcpu *pc, u16 size)
{
	/* Pairs with the acquire in grtrace_events_read(). */
	smp_store_release(&pc->committed, pc->committed + size);
	pc->cnt.size_hist[grtrace_hist_bucket(size, GRTRACE_SIZE_HIST_LO)]++;
}

/*
 * Does the watchlist drop this event, with at least one of its lists set?
 * Out of line: the event path's section fits a page (see __grtrace_hot).
 */
static noinline bool grtrace_watch_match(const struct grtrace_watch_ctx *wc,
					 u64 rings, u64 ctx, u32 ring_id)
{
	int ctx_hit = -1, ring_hit = -1, match;
	u32 i;

	if (wc) {
		ctx_hit = 0;
		for (i = 0; i < wc->nr; i++)
			if (wc->ctx[i] == ctx) {
				ctx_hit = 1;
				break;
			}
	}
	if (rings)
		ring_hit = ring_id < GRTRACE_WATCH_RINGS &&
			   (rings & BIT_ULL(ring_id));
	/* A list that is empty takes no part in the match. */
	if (ctx_hit < 0)
		match = ring_hit;
	else if (ring_hit < 0)
		match = ctx_hit;
	else if (READ_ONCE(grtrace_cfg.watch_or))
		match = ctx_hit || ring_hit;
	else
		match = ctx_hit && ring_hit;
	return READ_ONCE(grtrace_cfg.watch_deny) ? match : !match;
}

/* Does the watchlist drop this event?  Interrupts are off: RCU-sched. */
static __always_inline bool grtrace_watch_drops(u64 ctx, u32 ring_id)
{
	const struct grtrace_watch_ctx *wc;
	u64 rings = READ_ONCE(grtrace_cfg.watch_rings);

	wc = rcu_dereference_sched(grtrace_cfg.watch_ctx);
	if (likely(!wc && !rings))
		return false;
	return grtrace_watch_match(wc, rings, ctx, ring_id);
}

/*
 * Settings that select events, cheapest first; -1 keeps the event.  @e is
 * the caller's engine class plus one, or 0 for its ring's, looked up only
 * for a filter by engine.  Preemption is off.
 */
static __always_inline int grtrace_filter(u16 type, u32 ring_id, u16 e,
					  u64 ctx)
{
	u32 level = READ_ONCE(grtrace_cfg.level);
	s32 ring = READ_ONCE(grtrace_cfg.filter_ring_id);
	u32 emask = READ_ONCE(grtrace_cfg.filter_engine_mask);

	if (unlikely(!READ_ONCE(grtrace_enabled) || level == GRTRACE_LEVEL_OFF))
		return GRTRACE_DROP_DISABLED;
	if (level < GRTRACE_LEVEL_VERBOSE && (BIT(type) & GRTRACE_VERBOSE_TYPES))
		return GRTRACE_DROP_LEVEL;
	if (!(READ_ONCE(grtrace_cfg.filter_type_mask) & BIT(type)))
		return GRTRACE_DROP_FILTERED_TYPE;
	if (e > GRTRACE_ENGINE_NR ||
	    (~emask & GENMASK(GRTRACE_ENGINE_NR - 1, 0) &&
	     !(emask & BIT(e ? e - 1 : grtrace_ring_engine(ring_id)))))
		return GRTRACE_DROP_FILTERED_ENGINE;
	if (ring >= 0 && ring != ring_id)
		return GRTRACE_DROP_FILTERED_RING;
	if (grtrace_watch_drops(ctx, ring_id))
		return GRTRACE_DROP_FILTERED_WATCH;
	return -1;
}

/* Deterministic per-CPU sampling, so that results are exact and testable. */
static bool grtrace_sampled_out(struct grtrace_pcpu *pc)
{
	u32 pct = READ_ONCE(grtrace_cfg.sample);
	u32 every = READ_ONCE(grtrace_cfg.sample_every);

	if (pct < 100) {
		/* Keep an event each time the accumulator wraps past 100. */
		pc->sample_acc += pct;
		if (pc->sample_acc < 100)
			return true;
		pc->sample_acc -= 100;
	}
	if (every > 1) {
		if (++pc->sample_cnt < every)
			return true;
		pc->sample_cnt = 0;
	}
	return false;
}

/*
 * Is the event sampled out?  grtrace_sampled_out() before the full path
 * masks interrupts, when one of the two settings (@pct, @every) is set:
 * only a drop is decided here, in one this_cpu_cmpxchg() of the state,
 * which an event in an interrupt meanwhile makes it read again.  An event
 * it would keep is sampled with interrupts off, as if it had never been
 * looked at here.  Preemption is off.
 */
static __always_inline bool grtrace_sampled_quick(u32 pct, u32 every)
{
	u32 old, new;

	if (pct < 100 && every <= 1) {
		do {
			old = this_cpu_read(grtrace_pcpu->sample_acc);
			new = old + pct;
			if (new >= 100)
				return false;
		} while (this_cpu_cmpxchg(grtrace_pcpu->sample_acc, old, new) != old);
		return true;
	}
	if (every > 1 && pct >= 100) {
		do {
			old = this_cpu_read(grtrace_pcpu->sample_cnt);
			new = old + 1;
			if (new >= every)
				return false;
		} while (this_cpu_cmpxchg(grtrace_pcpu->sample_cnt, old, new) != old);
		return true;
	}
	return false;
}

/*
 * Both limiters return 0 when the event may go, else the time from which
 * one could: a limit that holds now holds until then whatever other CPUs
 * do, since they can only use up more of it.
 */
static u64 grtrace_rl_window(u64 now, u32 max)
{
	u64 sec = div_u64(now, NSEC_PER_SEC);
	s64 old = atomic64_read(&grtrace_rl_window_state), new;

	do {
		if ((u64)old >> 32 != (sec & U32_MAX)) {
			new = (s64)(sec << 32 | 1);
		} else {
			if ((u32)old >= max)
				return (sec + 1) * NSEC_PER_SEC;
			new = old + 1;
		}
	} while (!atomic64_try_cmpxchg(&grtrace_rl_window_state, &old, new));
	return 0;
}

/*
 * Token bucket as a generic cell rate algorithm: an event may arrive up to
 * burst - 1 emission intervals ahead of its theoretical arrival time.
 */
static u64 grtrace_rl_bucket(u64 now, u32 rate, u32 burst)
{
	u64 interval = div_u64(NSEC_PER_SEC, rate);
	u64 tau = interval * ((burst ?: rate) - 1);
	s64 old = atomic64_read(&grtrace_rl_tat), tat;

	do {
		tat = max_t(s64, old, now);
		if (tat - now > tau)
			return tat - tau;
	} while (!atomic64_try_cmpxchg(&grtrace_rl_tat, &old, tat + interval));
	return 0;
}

/*
 * Has jiffies reached @end?  time_after_eq() without the dummies of its
 * typecheck(), whose addresses it takes: with INIT_STACK_ALL_ZERO (as in
 * Debian's kernels) each costs a stack slot and a store of zero.
 */
static __always_inline bool grtrace_jiffies_reached(unsigned long end)
{
	return (long)(jiffies - end) >= 0;
}

/*
 * Does a limit this CPU saw hold still?  Jiffies stand in for the clock:
 * a window full until its second's end drops every later event without
 * the clock or the limiter's shared state, which were two thirds of a
 * rate-limited drop's cost under TCG (measured).
 */
static __always_inline bool grtrace_rl_held(struct grtrace_pcpu *pc)
{
	return pc->rl_gen == READ_ONCE(grtrace_rl_gen) &&
	       !grtrace_jiffies_reached(pc->rl_until);
}

/*
 * Note that the limit holds from @now until @until.  Jiffies follow the
 * monotonic clock a tick at a time, each tick at most a tick late while
 * interrupts are taken, so the note stops a tick early: it can drop an
 * event the limit would have let through only when this CPU's ticks run
 * more than a tick late (interrupts kept off that long).  The boot-time
 * clock runs on in suspend, jiffies do not: no note then.
 */
static void grtrace_rl_note(struct grtrace_pcpu *pc, unsigned long gen,
			    u64 now, u64 until)
{
	u64 left = until - now;

	if (READ_ONCE(grtrace_cfg.clock) != GRTRACE_CLK_MONOTONIC ||
	    left < 2 * TICK_NSEC)
		return;
	pc->rl_until = jiffies + (unsigned long)div_u64(left, TICK_NSEC) - 1;
	pc->rl_gen = gen;
}

/* Out of line: the event path pays only for a test without a limit. */
static noinline bool grtrace_rl_check(struct grtrace_pcpu *pc, u64 now)
{
	unsigned long gen = READ_ONCE(grtrace_rl_gen);
	u64 until;
	u32 max;

	/* The settings and state of @gen or a later one: grtrace_rl_reset(). */
	smp_rmb();
	max = READ_ONCE(grtrace_cfg.max_eps);
	if (!max)
		return false;
	if (READ_ONCE(grtrace_cfg.rl_mode) == GRTRACE_RL_TOKEN_BUCKET)
		until = grtrace_rl_bucket(now, max,
					  READ_ONCE(grtrace_cfg.rl_burst));
	else
		until = grtrace_rl_window(now, max);
	if (!until)
		return false;
	grtrace_rl_note(pc, gen, now, until);
	return true;
}

static __always_inline bool grtrace_rate_limited(struct grtrace_pcpu *pc,
						 u64 now)
{
	return unlikely(READ_ONCE(grtrace_cfg.max_eps)) &&
	       grtrace_rl_check(pc, now);
}

/* How full this CPU's buffer is, in percent of its size. */
static u32 grtrace_fill_pct(struct rchan *chan)
{
	struct rchan_buf *buf = *this_cpu_ptr(chan->buf);
	size_t ready = buf->subbufs_produced - READ_ONCE(buf->subbufs_consumed);
	size_t used = ready * chan->subbuf_size +
		      min(buf->offset, chan->subbuf_size);

	return min_t(size_t, used * 100 / chan->alloc_size, 100);
}

/*
 * Above the threshold either drop everything, or with adaptive sampling
 * keep 1 in 2^n events, n growing from 1 to 10 as the buffer fills; it
 * relaxes by itself as the reader catches up.
 */
static noinline bool grtrace_backpressure_on(struct grtrace_pcpu *pc,
					     struct rchan *chan, u32 thr)
{
	u32 fill = grtrace_fill_pct(chan);

	/* An overwriting buffer is always full: the reader is not behind. */
	if (fill < thr || READ_ONCE(grtrace_rec_on)) {
		pc->bp_shift = 0;
		return false;
	}
	if (!READ_ONCE(grtrace_cfg.adaptive))
		return true;
	pc->bp_shift = 1 + (fill - thr) * 9 / (101 - thr);
	if (++pc->bp_cnt < (1U << pc->bp_shift))
		return true;
	pc->bp_cnt = 0;
	return false;
}

/* Out of line but the test: see __grtrace_hot. */
static __always_inline bool grtrace_backpressure(struct grtrace_pcpu *pc,
						 struct rchan *chan)
{
	u32 thr = READ_ONCE(grtrace_cfg.bp_threshold);

	return unlikely(thr) && grtrace_backpressure_on(pc, chan, thr);
}

/*
 * This CPU's first event of a new second: note where its counters stand.
 * An event used to count itself into its second; that was a quarter of the
 * written path's cost under TCG (measured), this runs once a second.
 */
static noinline void __cold grtrace_new_sec(struct grtrace_pcpu *pc)
{
	struct grtrace_pcpu_cold *cold = this_cpu_ptr(grtrace_pcpu_cold);
	u64 sec = jiffies / HZ;
	struct grtrace_sec *s = &cold->secs[sec % GRTRACE_SECS];
	u64 emitted, written;

	/*
	 * Readers check @sec before and after the figures (sec_stats_show()):
	 * invalid first, the figures after it (wmb), valid after them.
	 */
	grtrace_counters_totals(&pc->cnt, &emitted, &written);
	WRITE_ONCE(s->sec, U64_MAX);
	smp_wmb(); /* the invalid @sec before the figures */
	WRITE_ONCE(s->emitted, emitted);
	WRITE_ONCE(s->written, written);
	smp_store_release(&s->sec, sec); /* the figures before the new @sec */
	pc->sec_end = (unsigned long)(sec + 1) * HZ;
}

/*
 * relay_reserve()'s sub-buffer switch, out of line: once a sub-buffer.
 * NULL when relay refuses the next one (a record larger than a
 * sub-buffer, or grtrace_subbuf_start()).
 */
static noinline void *grtrace_reserve_switch(struct rchan_buf *buf,
					     size_t size)
{
	void *p;

	if (!relay_switch_subbuf(buf, size))
		return NULL;
	p = buf->data + buf->offset;
	buf->offset += size;
	return p;
}

/*
 * relay_reserve(), but never into a full buffer.  When relay refuses a
 * sub-buffer (grtrace_subbuf_start()), it has already counted the refused
 * one as produced, and a reader that looks at that moment sees more
 * sub-buffers produced than the buffer has and skips the oldest unread
 * one (relay_file_read_avail()): records written and then lost unseen.
 * So refuse here, before relay would switch.  Interrupts are off, which
 * makes relay_reserve()'s preemption count redundant: its work is done in
 * place.
 */
static __always_inline void *grtrace_reserve(struct rchan *chan, size_t size)
{
	struct rchan_buf *buf = *this_cpu_ptr(chan->buf);
	void *p;

	if (unlikely(buf->offset + size > chan->subbuf_size)) {
		/* The flight recorder overwrites: grtrace_rec_subbuf_start(). */
		if (buf->subbufs_produced + 1 -
		    READ_ONCE(buf->subbufs_consumed) >= chan->n_subbufs &&
		    !READ_ONCE(grtrace_rec_on))
			return NULL;
		return grtrace_reserve_switch(buf, size);
	}
	p = buf->data + buf->offset;
	buf->offset += size;
	return p;
}

/*
 * Why an event finds no channel: stopped, or the flight recorder's
 * buffers are frozen.
 */
static noinline int grtrace_no_chan_drop(void)
{
	return READ_ONCE(grtrace_rec_on) ? GRTRACE_DROP_FROZEN :
					   GRTRACE_DROP_DISABLED;
}

/*
 * Format 1: a 72-byte job event.  gseq is taken before the reservation: a
 * full buffer leaves a gap in gseq exactly where events were lost, which
 * the reader reports.  The record is filled in place; readers see it only
 * once grtrace_committed() has published it, never half-written.  Returns
 * the size written, 0 when the buffer is full.  Out of line, so that the
 * event path's section fits a page (see __grtrace_hot).
 */
static noinline u16 grtrace_put_job1(struct grtrace_pcpu *pc,
				     struct rchan *chan, u16 type, u16 hflags,
				     u32 ring_id, u16 engine, u64 ctx,
				     u64 seqno, u64 aux0, u64 aux1, u64 ts)
{
	struct grtrace_job_event *ev;
	u64 gseq = grtrace_next_gseq();

	ev = grtrace_reserve(chan, sizeof(*ev));
	if (unlikely(!ev)) {
		grtrace_take_cseq(pc);
		return 0;
	}
	grtrace_fill_hdr(&ev->hdr, type, sizeof(*ev), hflags, pc, ts, gseq);
	ev->ctx = ctx;
	ev->seqno = seqno;
	ev->ring_id = ring_id;
	ev->engine = engine;
	ev->reserved = 0;
	ev->aux0 = aux0;
	ev->aux1 = aux1;
	return sizeof(*ev);
}

/*
 * Format 2: the size of a job record and its flags but DERIVED.  The fixed
 * part has its four numbers in 32 bits unless one needs more (WIDE), then
 * comes only what this event has: its aux values if any is set, the
 * submitting task for a SUBMIT made in process context, gseq if the
 * session stamps it.
 */
static __always_inline u16 grtrace_size_job2(u16 type, bool wide, bool aux,
					     bool gseq, u8 *flags)
{
	bool task = type == GRTRACE_EV_SUBMIT && in_task();
	u16 size;

	*flags |= (wide ? GRTRACE_HDR2_WIDE : 0) |
		  (aux ? GRTRACE_HDR2_AUX : 0) |
		  (task ? GRTRACE_HDR2_TASK : 0) |
		  (gseq ? GRTRACE_HDR2_GSEQ : 0);
	size = wide ? sizeof(struct grtrace_job2_wide) :
		      sizeof(struct grtrace_job2);
	if (aux)
		size += wide ? sizeof(struct grtrace_aux2_wide) :
			       sizeof(struct grtrace_aux2);
	if (task)
		size += sizeof(struct grtrace_task2);
	if (gseq)
		size += sizeof(struct grtrace_gseq2);
	return size;
}

/*
 * Format 2: fill the job record of @size bytes and @flags at @h, gseq
 * (@flags has GSEQ) included, but its timestamp, which the caller stores.
 * @wide is GRTRACE_HDR2_WIDE in @flags, as a separate argument so that a
 * caller that knows it false has no branch.
 */
static __always_inline void grtrace_fill_job2(void *h, u16 type, u8 flags,
					      u16 size, u32 cseq,
					      u32 ring_id, u16 engine,
					      u64 ctx, u64 seqno, u64 aux0,
					      u64 aux1, bool wide, u64 gseq)
{
	struct grtrace_hdr2 *hdr = h;
	u8 *p;

	hdr->type = type;
	hdr->flags = flags;
	hdr->size = size;
	hdr->cseq = cseq;
	if (likely(!wide)) {
		struct grtrace_job2 *ev = h;

		ev->ctx = ctx;
		ev->seqno = seqno;
		ev->ring_id = ring_id;
		ev->engine = engine;
		ev->reserved = 0;
		p = (u8 *)(ev + 1);
		if (flags & GRTRACE_HDR2_AUX) {
			((struct grtrace_aux2 *)p)->aux0 = aux0;
			((struct grtrace_aux2 *)p)->aux1 = aux1;
			p += sizeof(struct grtrace_aux2);
		}
	} else {
		struct grtrace_job2_wide *ev = h;

		ev->ctx = ctx;
		ev->seqno = seqno;
		ev->ring_id = ring_id;
		ev->engine = engine;
		ev->reserved = 0;
		p = (u8 *)(ev + 1);
		if (flags & GRTRACE_HDR2_AUX) {
			((struct grtrace_aux2_wide *)p)->aux0 = aux0;
			((struct grtrace_aux2_wide *)p)->aux1 = aux1;
			p += sizeof(struct grtrace_aux2_wide);
		}
	}
	if (flags & GRTRACE_HDR2_TASK) {
		((struct grtrace_task2 *)p)->pid = task_tgid_nr(current);
		((struct grtrace_task2 *)p)->tid = task_pid_nr(current);
		p += sizeof(struct grtrace_task2);
	}
	if (flags & GRTRACE_HDR2_GSEQ)
		((struct grtrace_gseq2 *)p)->gseq = gseq;
}

/*
 * Format 2, the full path's way.  A record lost to a full buffer still
 * takes its cseq, so the reader sees the loss in place.
 */
static __always_inline u16 grtrace_put_job2(struct grtrace_pcpu *pc,
					    struct rchan *chan, u16 type,
					    u16 hflags, u32 ring_id,
					    u16 engine, u64 ctx, u64 seqno,
					    u64 aux0, u64 aux1, u64 ts)
{
	u8 flags = (hflags & GRTRACE_HDR_DERIVED ? GRTRACE_HDR2_DERIVED : 0) |
		   (hflags & GRTRACE_HDR_CLIENT ? GRTRACE_HDR2_CLIENT : 0);
	bool wide = (ctx | seqno | aux0 | aux1) >> 32;
	bool gseq_on = !READ_ONCE(grtrace_cfg.no_gseq);
	u64 gseq = gseq_on ? grtrace_next_gseq() : 0;
	u16 size;
	void *h;

	size = grtrace_size_job2(type, wide, aux0 | aux1, gseq_on, &flags);
	h = grtrace_reserve(chan, size);
	if (unlikely(!h)) {
		grtrace_take_cseq(pc);
		return 0;
	}
	grtrace_fill_job2(h, type, flags, size, grtrace_take_cseq(pc), ring_id,
			  engine, ctx, seqno, aux0, aux1, wide, gseq);
	((struct grtrace_hdr2 *)h)->ts = ts;
	return size;
}

/*
 * An event out of a session while a live hook is registered: it reaches
 * the live hooks' observe callbacks, with interrupts off as in a session,
 * and nothing else.
 */
static noinline void grtrace_event_live(u16 type, u32 ring_id, u16 engine,
					u64 ctx, u64 seqno, u64 aux0, u64 aux1)
{
	struct grtrace_hook_event hev = {
		.ctx = ctx, .seqno = seqno, .aux0 = aux0, .aux1 = aux1,
		.ring_id = ring_id, .type = type, .live = true,
	};
	unsigned long flags;

	if (WARN_ON_ONCE(type >= GRTRACE_EV_NR_JOB_TYPES))
		return;
	local_irq_save(flags);
	hev.engine = engine ? engine - 1 : grtrace_ring_engine(ring_id);
	hev.ts = grtrace_now();
	grtrace_hooks_observe_live(&hev);
	local_irq_restore(flags);
}

/*
 * The hooks' view of an event, built out of line: grtrace_event() keeps no
 * struct on its stack, which the kernel would zero at every call
 * (INIT_STACK_ALL_ZERO) and guard with a canary.
 */
static noinline bool grtrace_hook_drop(u16 type, u16 hflags, u32 ring_id,
				       u16 engine, u64 ctx, u64 seqno,
				       u64 aux0, u64 aux1)
{
	struct grtrace_hook_event hev = {
		.ctx = ctx, .seqno = seqno, .aux0 = aux0, .aux1 = aux1,
		.ring_id = ring_id, .type = type, .engine = engine,
		.derived = hflags & GRTRACE_HDR_DERIVED,
	};

	return grtrace_hooks_drop(&hev);
}

static noinline void grtrace_hook_observe(u16 type, u16 hflags, u32 ring_id,
					  u16 engine, u64 ctx, u64 seqno,
					  u64 aux0, u64 aux1, u64 ts,
					  bool written)
{
	struct grtrace_hook_event hev = {
		.ctx = ctx, .seqno = seqno, .aux0 = aux0, .aux1 = aux1,
		.ring_id = ring_id, .type = type, .engine = engine,
		.derived = hflags & GRTRACE_HDR_DERIVED,
		.ts = ts ?: grtrace_now(),
	};

	grtrace_hooks_observe(&hev, written);
}

/*
 * A job event that passed every check, as the full path writes it: its
 * drop reason, or -1 when written.  Interrupts are off.
 */
static __always_inline int grtrace_write_job(struct grtrace_pcpu *pc,
					     struct rchan *chan, u16 type,
					     u16 hflags, u32 ring_id,
					     u16 engine, u64 ctx, u64 seqno,
					     u64 aux0, u64 aux1, u64 ts)
{
	u16 size;

	/* The format cannot change while a channel exists. */
	if (likely(READ_ONCE(grtrace_cfg.format) != GRTRACE_FORMAT_V1))
		size = grtrace_put_job2(pc, chan, type, hflags, ring_id, engine,
					ctx, seqno, aux0, aux1, ts);
	else
		size = grtrace_put_job1(pc, chan, type, hflags, ring_id, engine,
					ctx, seqno, aux0, aux1, ts);
	if (unlikely(!size))
		return GRTRACE_DROP_BUFFER_FULL;
	grtrace_committed(pc, size);
	pc->cnt.written++;
	pc->cnt.type_written[type]++;
	pc->cnt.bytes += size;
	return -1;
}

/*
 * An event that passed every check came while an event of the fast path
 * was in flight on this CPU: hold back its write, to be done once that
 * one is done (grtrace_replay()).  Interrupts are off.
 */
static noinline void __cold grtrace_defer(struct grtrace_pcpu *pc, u16 type,
					  u16 hflags, u32 ring_id, u16 engine,
					  u64 ctx, u64 seqno, u64 aux0,
					  u64 aux1, u64 ts, bool hooked,
					  bool trig)
{
	struct grtrace_pcpu_cold *cold = this_cpu_ptr(grtrace_pcpu_cold);
	struct grtrace_deferred *d;

	if (unlikely(cold->nr_deferred >= GRTRACE_NR_DEFERRED)) {
		pc->cnt.dropped[GRTRACE_DROP_NESTED]++;
		/* Not cseq: the interrupted event is between read and write. */
		cold->nested_lost++;
		if (unlikely(hooked))
			grtrace_hook_observe(type, hflags, ring_id, engine, ctx,
					     seqno, aux0, aux1, ts, false);
		/* A hang is not missed: its TRIGGER record names the job. */
		if (unlikely(trig))
			grtrace_rec_error(ring_id, ctx, seqno, aux0);
		return;
	}
	d = &cold->deferred[cold->nr_deferred++];
	*d = (struct grtrace_deferred){
		.type = type, .hflags = hflags, .engine = engine,
		.hooked = hooked, .trig = trig, .ring_id = ring_id, .ctx = ctx,
		.seqno = seqno, .aux0 = aux0, .aux1 = aux1, .ts = ts,
	};
	pc->cnt.deferred++;
	pc->busy |= GRTRACE_BUSY_PENDING;
}

static int __grtrace_write_control(const void *rec, u16 size, u64 ts);

/*
 * The event of the fast path on this CPU is done, or gave up, and events
 * came meanwhile: write them now, in their order.  Preemption is off.
 */
static noinline void __cold grtrace_replay(struct grtrace_pcpu *pc)
{
	struct grtrace_pcpu_cold *cold = this_cpu_ptr(grtrace_pcpu_cold);
	unsigned long flags;
	struct rchan *chan;
	int reason;
	u32 i;

	local_irq_save(flags);
	pc->busy = 0;
	for (i = 0; i < cold->nr_deferred; i++) {
		const struct grtrace_deferred *d = &cold->deferred[i];

		/* Counted there, written or not; stamped when it came. */
		if (d->type == GRTRACE_DEFERRED_CTL) {
			__grtrace_write_control(cold->deferred_ctl[d->aux0],
						d->aux1, d->ts);
			continue;
		}
		/* NULL if a stop closes the channel now: as if stopped. */
		chan = READ_ONCE(grtrace_chan);
		reason = chan ? grtrace_write_job(pc, chan, d->type, d->hflags,
						  d->ring_id, d->engine,
						  d->ctx, d->seqno, d->aux0,
						  d->aux1, d->ts) :
				grtrace_no_chan_drop();
		if (reason >= 0)
			pc->cnt.dropped[reason]++;
		if (unlikely(d->hooked))
			grtrace_hook_observe(d->type, d->hflags, d->ring_id,
					     d->engine, d->ctx, d->seqno,
					     d->aux0, d->aux1, d->ts,
					     reason < 0);
		/*
		 * The flight recorder freezes after its trigger's record:
		 * the held-back writes after it are dropped as frozen.
		 */
		if (unlikely(d->trig) && reason < 0)
			grtrace_rec_error(d->ring_id, d->ctx, d->seqno,
					  d->aux0);
	}
	cold->nr_deferred = 0;
	cold->nr_deferred_ctl = 0;
	/* A lost record takes its cseq (GRTRACE_FEAT_CSEQ_LOSS). */
	pc->cseq += cold->nested_lost;
	cold->nested_lost = 0;
	local_irq_restore(flags);
}

/* measure_latency's clock reads, out of the event path's page. */
static noinline u64 grtrace_lat_start(void)
{
	return local_clock() ?: 1;
}

static noinline void grtrace_lat_end(struct grtrace_pcpu *pc, u64 t0)
{
	pc->cnt.lat_hist[grtrace_hist_bucket(local_clock() - t0,
					     GRTRACE_LAT_HIST_LO)]++;
}

/*
 * grtrace_decide()'s part for the sampling and the rate limit: out of the
 * event path's page, whose space their inline code would take (a call
 * per event while one of them is set).
 */
static noinline int grtrace_decide_state(void)
{
	u32 pct = READ_ONCE(grtrace_cfg.sample);
	u32 every = READ_ONCE(grtrace_cfg.sample_every);

	if (pct < 100 || every > 1)
		return grtrace_sampled_quick(pct, every) ?
		       GRTRACE_QUICK_SAMPLED : -1;
	if (READ_ONCE(grtrace_cfg.max_eps) &&
	    grtrace_rl_held(this_cpu_ptr(grtrace_pcpu)))
		return GRTRACE_QUICK_RATE_LIMITED;
	return -1;
}

/*
 * What the full path decides before it masks interrupts, for an event
 * that one setting or another may drop: the filters' drop, the
 * sampling's (GRTRACE_QUICK_SAMPLED) and a rate limit this CPU noted
 * holds (GRTRACE_QUICK_RATE_LIMITED), as enum grtrace_quick, or -1.  Not
 * the sampling and the limit with hooks: these come before them, and see
 * their drops.  Preemption is off.
 */
static __always_inline int grtrace_decide(u16 type, u32 ring_id, u16 e,
					  u64 ctx, bool usual)
{
	int q;

	if (type >= GRTRACE_EV_NR_JOB_TYPES)
		return -1;
	if (!usual || !(READ_ONCE(grtrace_cfg.unfiltered_types) & BIT(type))) {
		q = grtrace_filter(type, ring_id, e, ctx);
		if (q >= 0)
			return q;
	}
	if (static_branch_unlikely(&grtrace_hooks_on) ||
	    !(READ_ONCE(grtrace_cfg.state_types) & BIT(type)))
		return -1;
	return grtrace_decide_state();
}

/*
 * Count a drop without masking interrupts: one per-CPU increment, by
 * enum grtrace_quick and type, which the views fold into emitted,
 * events_by_type and the drop's count, so that neither an interrupt on
 * this CPU nor reset_stats' snapshot finds it half counted.  Not for the
 * first event of a second on this CPU (it notes the second), nor when
 * drops are timed (measure_latency): false then, and the full path counts
 * it.  Preemption is off.
 */
static __always_inline bool grtrace_quick_count(int q, u16 type)
{
	if (type >= GRTRACE_QUICK_TYPES ||
	    unlikely(READ_ONCE(grtrace_cfg.measure_latency)) ||
	    grtrace_jiffies_reached(__this_cpu_read(grtrace_pcpu->sec_end)))
		return false;
	this_cpu_inc(grtrace_pcpu->cnt.quick[q][type]);
	return true;
}

static void grtrace_event_full(u32 what, u32 ring_id, u64 ctx, u64 seqno,
			       u64 aux0, u64 aux1);

/*
 * The time of an event of the fast path that events came in the middle
 * of: the first held back's if earlier.  None may be held back (a
 * control record too large for a slot, refused), and then the slot is
 * an old one's.  Preemption is off.
 */
static noinline u64 __cold grtrace_deferred_ts(u64 ts)
{
	const struct grtrace_pcpu_cold *cold = this_cpu_ptr(grtrace_pcpu_cold);

	return cold->nr_deferred ? min(ts, cold->deferred[0].ts) : ts;
}

/*
 * The event of the fast path holds this CPU, but its sub-buffer is full
 * and the next one free: write what came meanwhile, let go, and take the
 * full path, which switches sub-buffers and reads the clock again.  (With
 * no sub-buffer free, the fast path drops the event itself.)  Preemption
 * is off.
 */
static noinline void __cold grtrace_fast_giveup(struct grtrace_pcpu *pc,
						u32 what, u32 ring_id, u64 ctx,
						u64 seqno, u64 aux0, u64 aux1)
{
	grtrace_replay(pc);
	grtrace_event_full(what, ring_id, ctx, seqno, aux0, aux1);
}

/*
 * The event path as it runs by default, for the types in
 * grtrace_cfg.fast_types: a session runs in format 2 without gseq, and no
 * setting can drop the event, stamp it with another clock than the
 * monotonic one, time its path or hold it back.  This takes such an event
 * on a known engine, whose numbers fit 32 bits, not the first of a second
 * on this CPU, when its sub-buffer has room for it: relay_reserve()'s work
 * done in place.  When no sub-buffer is free (the reader is behind), it
 * drops the event as the full path would, cseq taken, counted as a quick
 * drop.  Otherwise, before any side effect, it hands the event to the
 * full path.
 *
 * Interrupts stay on (under TCG, masking and unmasking them cost a sixth
 * of the event).  With preemption off, the event holds its CPU's buffer,
 * cseq and the counters of written records through GRTRACE_BUSY_FAST in
 * @busy: an event that interrupts it there takes the full path, which
 * checks and counts it as usual but defers its write (grtrace_defer())
 * until this one is done, so nothing this one writes has two writers.
 * The clock is read last, so that little lives across the call; if a
 * write was deferred meanwhile, its event's time (it may have come before
 * the clock was read) stands for this one's, so that this CPU's records
 * stay in the order of their timestamps.  The fast path counts its events
 * in one counter per type and size, which the views fold into the others.
 */
static noinline void __grtrace_hot grtrace_event_fast(u32 what, u32 ring_id,
						      u64 ctx, u64 seqno,
						      u64 aux0, u64 aux1)
{
	u16 type = what & 0xffff, engine = what >> 16;
	struct grtrace_pcpu *pc;
	struct grtrace_hdr2 *h;
	struct rchan_buf *buf;
	struct rchan *chan;
	u64 ts, committed, cseq;
	u8 flags = 0;
	u16 size;

	preempt_disable_notrace();
	/*
	 * This CPU's state through this_cpu ops, not a pointer: one register
	 * fewer, and nothing spilled to the stack (a twentieth of the event
	 * under TCG).
	 */
	engine = engine ? engine - 1 : grtrace_ring_engine(ring_id);
	if (unlikely(!(READ_ONCE(grtrace_cfg.fast_types) & BIT(type)) ||
		     engine >= GRTRACE_ENGINE_NR ||
		     ring_id >= GRTRACE_MAX_RINGS ||
		     (ctx | seqno | aux0 | aux1) >> 32 ||
		     grtrace_jiffies_reached(__this_cpu_read(grtrace_pcpu->sec_end))))
		goto out;
	size = grtrace_size_job2(type, false, aux0 | aux1, false, &flags);
	chan = READ_ONCE(grtrace_chan);
	if (unlikely(!chan))
		goto out;
	buf = *this_cpu_ptr(chan->buf);
	if (unlikely(this_cpu_cmpxchg(grtrace_pcpu->busy, 0, GRTRACE_BUSY_FAST)))
		goto out;
	barrier(); /* hold the CPU before looking at its buffer */
	if (unlikely(__this_cpu_read(grtrace_pcpu->nmi_lost)))
		grtrace_nmi_gap(this_cpu_ptr(grtrace_pcpu));
	if (unlikely(buf->offset + size > chan->subbuf_size)) {
		pc = this_cpu_ptr(grtrace_pcpu);
		if (buf->subbufs_produced + 1 -
		    READ_ONCE(buf->subbufs_consumed) < chan->n_subbufs ||
		    READ_ONCE(grtrace_rec_on)) {
			grtrace_fast_giveup(pc, what, ring_id, ctx, seqno,
					    aux0, aux1);
			goto done;
		}
		/* Full (the reader is behind): dropped, its cseq lost. */
		pc->cseq++;
		pc->cnt.quick[GRTRACE_QUICK_BUFFER_FULL][type]++;
		goto release;
	}
	BUILD_BUG_ON(sizeof(struct grtrace_aux2) != 8 ||
		     sizeof(struct grtrace_task2) != 8);
	__this_cpu_inc(grtrace_pcpu->cnt.fast[type]
				[(size - GRTRACE_FAST_SIZE(0)) / 8]);
	h = buf->data + buf->offset;
	buf->offset += size;
	cseq = __this_cpu_read(grtrace_pcpu->cseq);
	__this_cpu_write(grtrace_pcpu->cseq, cseq + 1);
	grtrace_fill_job2(h, type, flags, size, cseq, ring_id, engine, ctx,
			  seqno, aux0, aux1, false, 0);
	committed = __this_cpu_read(grtrace_pcpu->committed) + size;
	/* Only the record and its end live across the call. */
	ts = ktime_get_ns();
	barrier(); /* the clock read before looking for deferred events */
	pc = this_cpu_ptr(grtrace_pcpu);
	if (unlikely(READ_ONCE(pc->busy) != GRTRACE_BUSY_FAST))
		ts = grtrace_deferred_ts(ts);
	h->ts = ts;
	/* Pairs with the acquire in grtrace_events_read(). */
	smp_store_release(&pc->committed, committed);
	barrier(); /* the record and counters before the release */
release:
	if (unlikely(this_cpu_cmpxchg(grtrace_pcpu->busy, GRTRACE_BUSY_FAST, 0) !=
		     GRTRACE_BUSY_FAST))
		grtrace_replay(this_cpu_ptr(grtrace_pcpu));
done:
	preempt_enable_notrace();
	return;
out:
	preempt_enable_notrace();
	grtrace_event_full(what, ring_id, ctx, seqno, aux0, aux1);
}

/*
 * The whole event path, for the events grtrace_event_fast() does not take,
 * in grtrace_event()'s page (see __grtrace_hot).
 */
static noinline void __grtrace_hot
grtrace_event_full(u32 what, u32 ring_id, u64 ctx, u64 seqno, u64 aux0,
		   u64 aux1)
{
	u16 type = what & 0xffff, engine = what >> 16;
	struct grtrace_pcpu *pc;
	struct rchan *chan;
	unsigned long flags;
	bool hooked = false, usual, plain, quick, trig = false;
	u64 t0 = 0, ts = 0;
	u16 hflags = 0;
	int reason;

	/*
	 * An NMI can land anywhere in the path below, whose counters and
	 * relay_reserve() are not reentrant, and reading the clock in NMI can
	 * livelock.  Count the event in the one counter that nothing else on
	 * this CPU writes (a single per-CPU increment); the views add it to
	 * emitted.
	 */
	if (unlikely(in_nmi())) {
		this_cpu_inc(grtrace_pcpu->cnt.dropped[GRTRACE_DROP_NMI]);
		/* Lost in a session: the CPU's next record numbers it. */
		if (READ_ONCE(grtrace_enabled))
			this_cpu_inc(grtrace_pcpu->nmi_lost);
		return;
	}
	/* Out of a session, for the live hooks only: see struct grtrace_hook. */
	if (static_branch_unlikely(&grtrace_hooks_live_on) &&
	    unlikely(!READ_ONCE(grtrace_enabled))) {
		grtrace_event_live(type & ~GRTRACE_JOB_FLAGS, ring_id, engine,
				   ctx, seqno, aux0, aux1);
		return;
	}

	if (type & GRTRACE_JOB_FLAGS) {
		hflags = (type & GRTRACE_JOB_DERIVED ? GRTRACE_HDR_DERIVED : 0) |
			 (type == (GRTRACE_EV_SUBMIT | GRTRACE_JOB_CLIENT) ?
			  GRTRACE_HDR_CLIENT : 0);
		type &= ~GRTRACE_JOB_FLAGS;
	}
	/*
	 * The filters, the sampling's drops and a rate limit that holds are
	 * decided first, with interrupts on: their drops are quick
	 * (grtrace_quick_count()).  With the settings that select by type and
	 * level only, as by default, one test stands for grtrace_filter(),
	 * the sampling and the rate limit, and the clock is the monotonic
	 * one: a sixth of a written event's cost under TCG (measured).  With
	 * the filters so only, one test stands for grtrace_filter().
	 */
	preempt_disable_notrace();
	/* A ring has a known engine (grtrace_ring_register()). */
	usual = engine <= GRTRACE_ENGINE_NR && READ_ONCE(grtrace_enabled);
	plain = usual && type < GRTRACE_EV_NR_JOB_TYPES &&
		(READ_ONCE(grtrace_cfg.plain_types) & BIT(type));
	reason = plain ? -1 : grtrace_decide(type, ring_id, engine, ctx, usual);
	quick = reason >= 0 && grtrace_quick_count(reason, type);
	preempt_enable_notrace();
	if (quick)
		return;
	if (reason >= 0)
		reason = grtrace_quick_drop(reason);

	local_irq_save(flags);
	/*
	 * Preemption was on since the decision: a task preempted there may
	 * resume after stop's grace period has ended, which waits for
	 * sections with preemption or interrupts off only.  Looked at again
	 * here, "enabled" is one that stop waits for.
	 */
	if (unlikely(!READ_ONCE(grtrace_enabled)) && reason < 0)
		reason = GRTRACE_DROP_DISABLED;
	engine = engine ? engine - 1 : grtrace_ring_engine(ring_id);
	pc = this_cpu_ptr(grtrace_pcpu);
	if (unlikely(READ_ONCE(grtrace_cfg.measure_latency)))
		t0 = grtrace_lat_start();
	if (unlikely(grtrace_jiffies_reached(pc->sec_end)))
		grtrace_new_sec(pc);
	pc->cnt.emitted++;
	/* A caller's bug, counted rather than lost. */
	if (WARN_ON_ONCE(type >= GRTRACE_EV_NR_JOB_TYPES)) {
		reason = GRTRACE_DROP_INVALID;
		goto drop;
	}
	pc->cnt.type_emitted[type]++;
	if (unlikely(reason >= 0))
		goto drop;
	if (static_branch_unlikely(&grtrace_hooks_on)) {
		hooked = static_branch_unlikely(&grtrace_hooks_observe_on);
		if (static_branch_unlikely(&grtrace_hooks_drop_on) &&
		    grtrace_hook_drop(type, hflags, ring_id, engine, ctx, seqno,
				      aux0, aux1)) {
			reason = GRTRACE_DROP_HOOK;
			goto drop;
		}
	}
	if (likely(plain)) {
		ts = ktime_get_ns();
	} else {
		/* Not plain while armed: grtrace_config_derive(). */
		trig = type == GRTRACE_EV_ERROR && READ_ONCE(grtrace_rec_on);
		if (grtrace_sampled_out(pc)) {
			reason = GRTRACE_DROP_SAMPLED;
			goto drop;
		}
		if (grtrace_rl_held(pc)) {
			reason = GRTRACE_DROP_RATE_LIMITED;
			goto drop;
		}
		ts = grtrace_now();
		if (grtrace_rate_limited(pc, ts)) {
			reason = GRTRACE_DROP_RATE_LIMITED;
			goto drop;
		}
	}
	/*
	 * Enabled, so a channel exists, but NULL once the flight recorder
	 * froze it (grtrace_rec_freeze()).
	 */
	chan = READ_ONCE(grtrace_chan);
	if (unlikely(!chan)) {
		reason = grtrace_no_chan_drop();
		goto drop;
	}
	if (grtrace_backpressure(pc, chan)) {
		reason = GRTRACE_DROP_BACKPRESSURE;
		goto drop;
	}

	/* v2 has 16 bits for it: a caller's bug, as above. */
	if (WARN_ON_ONCE(ring_id >= GRTRACE_MAX_RINGS &&
			 READ_ONCE(grtrace_cfg.format) != GRTRACE_FORMAT_V1)) {
		reason = GRTRACE_DROP_INVALID;
		goto drop;
	}
	/* Below us, an event of the fast path holds this CPU's buffer. */
	if (unlikely(pc->busy)) {
		/* Its trigger, if any, goes with it: grtrace_replay(). */
		grtrace_defer(pc, type, hflags, ring_id, engine, ctx, seqno,
			      aux0, aux1, ts, hooked, trig);
		trig = false;
		goto out;
	}
	reason = grtrace_write_job(pc, chan, type, hflags, ring_id, engine,
				   ctx, seqno, aux0, aux1, ts);
	if (unlikely(reason >= 0))
		goto drop;
	goto observe;

drop:
	pc->cnt.dropped[reason]++;
observe:
	if (unlikely(hooked))
		grtrace_hook_observe(type, hflags, ring_id, engine, ctx, seqno,
				     aux0, aux1, ts, reason < 0);
out:
	if (unlikely(t0))
		grtrace_lat_end(pc, t0);
	/*
	 * After its record, which the snapshot keeps; one not written (the
	 * buffers frozen already) is no trigger, but a drop by its reason.
	 */
	if (unlikely(trig) && reason < 0)
		grtrace_rec_error(ring_id, ctx, seqno, aux0);
	local_irq_restore(flags);
}

/* Quick drops are counted by type: every type of the API. */
static_assert(GRTRACE_EV_ERROR < GRTRACE_QUICK_TYPES);

/**
 * grtrace_event() - the event path: account, filter and write one event
 * @what: enum grtrace_type, a job event type below %GRTRACE_EV_NR_JOB_TYPES,
 *	possibly with %GRTRACE_JOB_DERIVED (a SUBMIT with %GRTRACE_JOB_CLIENT);
 *	with GRTRACE_EV_ENGINE(engine)
 *	for an engine class other than @ring_id's
 * @ring_id: ring of the job
 * @ctx: fence context of the job
 * @seqno: fence seqno of the job
 * @aux0: type-specific, see enum grtrace_type
 * @aux1: type-specific, see enum grtrace_type
 *
 * Safe from any context, hard interrupts included; never sleeps and takes
 * no lock.  Ends as exactly one of written or one drop reason in this CPU's
 * counters.  In NMI nothing is written: the event is counted as dropped,
 * reason ``nmi``.  One that interrupts an event on its CPU is written
 * after it, or, past %GRTRACE_NR_DEFERRED such, dropped (``nested``).  A
 * @type out of range, or in a format 2 session a
 * @ring_id of %GRTRACE_MAX_RINGS or more, warns once and counts
 * ``invalid``.
 *
 * Six arguments, all in registers: the API's wrappers end in a jump here,
 * and this in a jump to the full path, not calls (under TCG a return costs
 * as much as a dozen counters).  The events that no setting can drop or
 * change in a format 2 session without gseq, as by default, take a fast
 * path (grtrace_event_fast()) that writes the same record and counts the
 * same as the full path, grtrace_event_full(), would.
 */
noinline void grtrace_event(u32 what, u32 ring_id, u64 ctx, u64 seqno,
			    u64 aux0, u64 aux1)
{
	u16 type = what & 0xffff;

	/* A hint: the fast path tests the set again with preemption off. */
	if (likely(type < GRTRACE_EV_NR_JOB_TYPES &&
		   READ_ONCE(grtrace_cfg.fast_types) & BIT(type)) &&
	    !static_branch_unlikely(&grtrace_hooks_on) && likely(!in_nmi()))
		grtrace_event_fast(what, ring_id, ctx, seqno, aux0, aux1);
	else
		grtrace_event_full(what, ring_id, ctx, seqno, aux0, aux1);
}

/**
 * grtrace_control_room() - the largest record the buffers take
 *
 * Context: grtrace_lock held, so the channel stays.
 * Return: a sub-buffer's size, or 0 when there is no channel.
 */
size_t grtrace_control_room(void)
{
	lockdep_assert_held(&grtrace_lock);
	return grtrace_chan ? grtrace_chan->subbuf_size : 0;
}

/*
 * A control record that came while an event of the fast path was in
 * flight on this CPU: held back with the events (grtrace_replay()), in
 * their order, so that a ring registered from an interrupt is described
 * before its first event.  Interrupts are off.  Return: 0, or -EBUSY
 * (counted) when there is no room for it.
 */
static noinline int __cold grtrace_defer_control(struct grtrace_pcpu *pc,
						 const void *rec, u16 size)
{
	struct grtrace_pcpu_cold *cold = this_cpu_ptr(grtrace_pcpu_cold);
	u32 slot = cold->nr_deferred_ctl;

	if (size > sizeof(cold->deferred_ctl[0]) ||
	    slot >= GRTRACE_NR_DEFERRED_CTL ||
	    cold->nr_deferred >= GRTRACE_NR_DEFERRED) {
		pc->cnt.ctl_dropped++;
		/* Its cseq is taken after the held-back records, as nested. */
		cold->nested_lost++;
		pc->busy |= GRTRACE_BUSY_PENDING;
		return -EBUSY;
	}
	memcpy(cold->deferred_ctl[slot], rec, size);
	cold->nr_deferred_ctl++;
	/* Its time stands for the interrupted event's if earlier. */
	cold->deferred[cold->nr_deferred++] = (struct grtrace_deferred){
		.type = GRTRACE_DEFERRED_CTL, .aux0 = slot, .aux1 = size,
		.ts = grtrace_now(),
	};
	pc->busy |= GRTRACE_BUSY_PENDING;
	return 0;
}

/**
 * grtrace_write_control() - write a control record on this CPU
 * @rec: the record in format 1; only the type of its header is used
 * @size: size of @rec in bytes, a multiple of %GRTRACE_ALIGN
 *
 * Stamps the header like an event's and copies the record, bypassing every
 * filter, in the form of the channel's session (format 2: the body after
 * a v2 header), also once it stopped.  Context: any, hard interrupts
 * included.
 * From an interrupt that came in the middle of an event of this CPU, the
 * record (a RING record at most) is written right after that event.
 * Return: 0 (written or held back), -ENODEV when no channel exists or it
 * holds no session yet, -E2BIG when the record cannot fit a sub-buffer,
 * -ENOSPC when the buffer is full (counted), -EBUSY (counted) when it
 * cannot be held back (%GRTRACE_NR_DEFERRED_CTL are already).
 */
int grtrace_write_control(const void *rec, u16 size)
{
	return __grtrace_write_control(rec, size, 0);
}

/* A control record of @size bytes (format 1's), as written. */
static u16 grtrace_control_wsize(u16 size, bool v2, bool gseq_on)
{
	if (!v2)
		return size;
	return sizeof(struct grtrace_hdr2) + size - sizeof(struct grtrace_hdr) +
	       (gseq_on ? sizeof(struct grtrace_gseq2) : 0);
}

/*
 * grtrace_write_control() stamped @ts, or now if 0: a held-back record
 * keeps the time it came (grtrace_replay()), so that its CPU's records
 * stay in the order of their timestamps.
 */
static int __grtrace_write_control(const void *rec, u16 size, u64 ts)
{
	const struct grtrace_hdr *hdr = rec;
	u16 body = size - sizeof(*hdr), wsize;
	struct grtrace_pcpu *pc;
	struct rchan *chan;
	unsigned long flags;
	bool v2, gseq_on;
	u64 gseq;
	int ret = 0;
	void *slot;

	/* Interrupts off before reading the channel: see close_channel. */
	local_irq_save(flags);
	chan = READ_ONCE(grtrace_chan);
	if (!chan || !READ_ONCE(grtrace_chan_format)) {
		ret = -ENODEV;
		goto out;
	}
	v2 = READ_ONCE(grtrace_chan_format) != GRTRACE_FORMAT_V1;
	gseq_on = READ_ONCE(grtrace_chan_gseq);
	wsize = grtrace_control_wsize(size, v2, gseq_on);
	/* Readers refuse records over GRTRACE_MAX_RECORD: never write one. */
	if (WARN_ON_ONCE(wsize > GRTRACE_MAX_RECORD) ||
	    wsize > chan->subbuf_size) {
		ret = -E2BIG;
		goto out;
	}
	pc = this_cpu_ptr(grtrace_pcpu);
	/* Interrupting an event of the fast path: see grtrace_event_fast(). */
	if (unlikely(pc->busy & GRTRACE_BUSY_FAST)) {
		ret = grtrace_defer_control(pc, rec, size);
		goto out;
	}
	if (!ts)
		ts = grtrace_now();
	/* The session's setting, not the config's: see grtrace_chan_format. */
	gseq = gseq_on ? atomic64_inc_return(&grtrace_gseq) - 1 : 0;
	slot = grtrace_reserve(chan, wsize);
	if (!slot) {
		grtrace_take_cseq(pc);
		pc->cnt.ctl_dropped++;
		ret = -ENOSPC;
		goto out;
	}
	if (v2) {
		struct grtrace_hdr2 *h2 = slot;

		h2->type = hdr->type - GRTRACE_REC_STREAM_INFO +
			   GRTRACE_REC2_STREAM_INFO;
		h2->flags = gseq_on ? GRTRACE_HDR2_GSEQ : 0;
		h2->size = wsize;
		h2->cseq = (u32)grtrace_take_cseq(pc);
		h2->ts = ts;
		memcpy(h2 + 1, hdr + 1, body);
		if (gseq_on)
			((struct grtrace_gseq2 *)(slot + wsize -
				sizeof(struct grtrace_gseq2)))->gseq = gseq;
	} else {
		grtrace_fill_hdr(slot, hdr->type, size, 0, pc, ts, gseq);
		memcpy(slot + sizeof(*hdr), rec + sizeof(*hdr), body);
	}
	grtrace_committed(pc, wsize);
	pc->cnt.ctl_written++;
out:
	local_irq_restore(flags);
	return ret;
}

/**
 * grtrace_write_job_summary() - write one job as one record
 * @js: the summary; its header is filled here
 *
 * For the optional modules that write a job's summary instead of its
 * events (struct grtrace_job_summary).  Written like a control record:
 * past every filter, counted in ``control_written`` or ``control_dropped``.
 * Context: any but NMI, hard interrupts and the hooks' callbacks included.
 * Return: 0; -ENODEV when no session's buffers exist; -ENOSPC when the
 * buffer is full (counted); -EBUSY (counted) from an interrupt that came
 * in the middle of an event of this CPU (see grtrace_write_control()).
 */
int grtrace_write_job_summary(struct grtrace_job_summary *js)
{
	js->hdr = (struct grtrace_hdr){ .type = GRTRACE_REC_JOB_SUMMARY };
	return grtrace_write_control(js, sizeof(*js));
}
EXPORT_SYMBOL_GPL(grtrace_write_job_summary);

/**
 * grtrace_stream_info_fill() - the STREAM_INFO record of the session
 * @si: filled in format 1, its header but the type zero
 *
 * Context: grtrace_lock held; the settings it reads do not change while a
 * session runs.
 */
void grtrace_stream_info_fill(struct grtrace_stream_info *si)
{
	*si = (struct grtrace_stream_info){
		.hdr.type = GRTRACE_REC_STREAM_INFO,
		.magic = GRTRACE_MAGIC,
		.version = grtrace_cfg.format,
		.hdr_size = grtrace_cfg.format == GRTRACE_FORMAT_V1 ?
			    sizeof(struct grtrace_hdr) :
			    sizeof(struct grtrace_hdr2),
		.clock_id = grtrace_cfg.clock == GRTRACE_CLK_BOOTTIME ?
			    GRTRACE_CLOCK_BOOTTIME : GRTRACE_CLOCK_MONOTONIC,
		.nr_cpus = nr_cpu_ids,
		.features = (grtrace_cfg.no_gseq ? 0 : GRTRACE_FEAT_GSEQ) |
			    GRTRACE_FEAT_CSEQ | GRTRACE_FEAT_RING_REC |
			    GRTRACE_FEAT_DERIVED | GRTRACE_FEAT_CLIENT |
			    GRTRACE_FEAT_CSEQ_LOSS |
			    (grtrace_cfg.format == GRTRACE_FORMAT_V1 ? 0 :
			     GRTRACE_FEAT_TASK),
		.session_id = grtrace_session,
	};
}

static int grtrace_write_stream_info(void)
{
	struct grtrace_stream_info si;

	grtrace_stream_info_fill(&si);
	return grtrace_write_control(&si, sizeof(si));
}

/*
 * Whether this CPU's buffer takes a start's records one after the other:
 * STREAM_INFO, a METADATA of @md_size bytes and @nr_ring RING records, in
 * format 2 if @v2, with gseq if @gseq_on.  Counts the sub-buffers relay
 * may still switch to as grtrace_reserve() does; the flight recorder
 * overwrites, and takes them all.  Interrupts are off.
 */
static bool grtrace_start_fits(bool v2, bool gseq_on, u16 md_size,
			       u32 nr_ring)
{
	u16 si = grtrace_control_wsize(sizeof(struct grtrace_stream_info),
				       v2, gseq_on);
	u16 md = grtrace_control_wsize(md_size, v2, gseq_on);
	u16 ring = grtrace_control_wsize(sizeof(struct grtrace_ring_record),
					 v2, gseq_on);
	struct rchan *chan = grtrace_chan;
	struct rchan_buf *buf;
	size_t off;
	s64 spare;
	u64 i;

	if (READ_ONCE(grtrace_rec_on))
		return true;
	buf = *this_cpu_ptr(chan->buf);
	off = buf->offset;
	spare = (s64)chan->n_subbufs - 1 -
		(s64)(buf->subbufs_produced - READ_ONCE(buf->subbufs_consumed));
	for (i = 0; i < (u64)nr_ring + 2; i++) {
		u16 w = i == 0 ? si : i == 1 ? md : ring;

		if (off + w > chan->subbuf_size) {
			if (spare-- <= 0)
				return false;
			off = 0;
		}
		off += w;
	}
	return true;
}

/**
 * grtrace_begin_session() - number a new session and write its STREAM_INFO
 * @md_size: the size of the METADATA record that follows it
 * @nr_ring: how many RING records follow that
 *
 * Only when this CPU's buffer takes all of them, so that a start writes
 * its whole description or changes nothing: the session number, the
 * CPUs' cseq at its start and the records' form stay as they were.
 * Context: grtrace_lock held; interrupts off (the caller's), so that the
 * records that follow go to the same CPU's buffer, and nothing comes
 * between them there.
 * Return: 0, or -ENOSPC when they do not fit.
 */
int grtrace_begin_session(u16 md_size, u32 nr_ring)
{
	bool v2 = grtrace_cfg.format != GRTRACE_FORMAT_V1;
	bool gseq_on = !grtrace_cfg.no_gseq;
	int cpu;

	lockdep_assert_held(&grtrace_lock);
	lockdep_assert_irqs_disabled();
	if (!grtrace_start_fits(v2, gseq_on, md_size, nr_ring))
		return -ENOSPC;
	WRITE_ONCE(grtrace_session, grtrace_session + 1);
	/*
	 * Each CPU's cseq as the session starts (the cseq file): no event is
	 * written while stopped, so its losses on a CPU before the CPU's
	 * first record are that record's cseq minus this.
	 */
	for_each_possible_cpu(cpu) {
		const struct grtrace_pcpu *pc = per_cpu_ptr(grtrace_pcpu, cpu);

		per_cpu_ptr(grtrace_pcpu_cold, cpu)->cseq_start =
			READ_ONCE(pc->cseq) + READ_ONCE(pc->nmi_lost);
	}
	/* Its records' form, which the config cannot change until it stops. */
	WRITE_ONCE(grtrace_chan_gseq, gseq_on);
	WRITE_ONCE(grtrace_chan_format, grtrace_cfg.format);
	return grtrace_write_stream_info();
}

/*
 * Relay callbacks.  No-overwrite mode: refuse to switch to a sub-buffer the
 * reader has not consumed yet, so relay_reserve() fails and the event is
 * counted as buffer_full instead of destroying older data.  A safety net:
 * grtrace_reserve() refuses first.
 */
#ifdef GRTRACE_HAVE_RELAY_NO_PADDING
static int grtrace_subbuf_start(struct rchan_buf *buf, void *subbuf,
				void *prev_subbuf)
#else
static int grtrace_subbuf_start(struct rchan_buf *buf, void *subbuf,
				void *prev_subbuf, size_t prev_padding)
#endif
{
	if (READ_ONCE(grtrace_rec_on))
		return grtrace_rec_subbuf_start(buf, !prev_subbuf);
	return !relay_buf_full(buf);
}

/*
 * Bytes of the buffers relay made, from their creation to their channel's
 * close: one per CPU that was online at relay_open() or came online
 * since, not one per possible CPU.
 */
static atomic_long_t grtrace_buf_bytes = ATOMIC_LONG_INIT(0);

static struct dentry *grtrace_create_buf_file(const char *filename,
					      struct dentry *parent,
					      umode_t mode,
					      struct rchan_buf *buf,
					      int *is_global)
{
	struct dentry *d = debugfs_create_file(filename, 0400, parent, buf,
					       &grtrace_events_fops);

	/* relay frees the buffer at once when it has no file. */
	if (!IS_ERR_OR_NULL(d))
		atomic_long_add(buf->chan->alloc_size, &grtrace_buf_bytes);
	return d;
}

static int grtrace_remove_buf_file(struct dentry *dentry)
{
	const struct rchan_buf *buf = d_inode(dentry)->i_private;

	atomic_long_sub(buf->chan->alloc_size, &grtrace_buf_bytes);
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks grtrace_relay_cb = {
	.subbuf_start		= grtrace_subbuf_start,
	.create_buf_file	= grtrace_create_buf_file,
	.remove_buf_file	= grtrace_remove_buf_file,
};

/*
 * read(2) of an events<cpu> file, live: whole records as soon as they are
 * written, the sub-buffer being filled included.  relay's read side runs
 * without locks against the writer, and there it would also hand out a
 * slot reserved but not yet filled; so a read stops at the bytes the
 * writer has published (@committed), always a record boundary.  relay
 * skips the padding of finished sub-buffers by itself, and the padding of
 * the sub-buffer being written is zero until it is finished.  Returns 0
 * when nothing is available now.
 */
static ssize_t grtrace_events_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = file->private_data;
	struct grtrace_pcpu *pc = per_cpu_ptr(grtrace_pcpu, buf->cpu);
	ssize_t ret;
	u64 avail;

	/* The flight recorder's buffers are read as snapshots only. */
	if (READ_ONCE(grtrace_rec_on))
		return -EBUSY;
	/* Raised while the file was open. */
	ret = grtrace_lockdown();
	if (ret)
		return ret;
	mutex_lock(&grtrace_read_lock);
	/* Pairs with the release in grtrace_committed(). */
	avail = smp_load_acquire(&pc->committed) - pc->consumed;
	count = min_t(u64, count, avail);
	ret = 0;
	if (count)
		ret = relay_file_operations.read(file, ubuf, count, ppos);
	if (ret > 0)
		pc->consumed += ret;
	mutex_unlock(&grtrace_read_lock);
	return ret;
}

/**
 * grtrace_lockdown() - may kernel data be read out of grtrace now?
 *
 * Under kernel lockdown's confidentiality level the kernel refuses
 * tracefs, perf and BPF reads of kernel data: grtrace's stream of
 * scheduling events and their times is such data, refused the same way
 * (as tracefs: %LOCKDOWN_TRACEFS).  The integrity level allows it.
 * Context: process context.
 * Return: 0, or -EPERM under lockdown (the LSM logs it).
 */
int grtrace_lockdown(void)
{
	return security_locked_down(LOCKDOWN_TRACEFS);
}

static int grtrace_events_open(struct inode *inode, struct file *file)
{
	struct rchan_buf *buf = inode->i_private;
	int ret;

	ret = grtrace_lockdown();
	if (ret)
		return ret;

	/*
	 * relay_open() creates a buffer's file before it initialises the
	 * buffer's refcount: an open in between takes a reference that relay
	 * then resets, and its close frees the buffer under the channel (seen
	 * with readers opening while buffer_size is written).  A buffer is
	 * ready once its channel is published, and stays alive while it is
	 * being closed: the removal of the file waits for this open.
	 */
	if (buf->chan != smp_load_acquire(&grtrace_relay))
		return -EAGAIN;
	return relay_file_operations.open(inode, file);
}

/*
 * Readable exactly when read() would return data: relay's own poll says so
 * only for finished sub-buffers, and says it for one that held nothing new.
 */
static __poll_t grtrace_events_poll(struct file *file, poll_table *wait)
{
	struct rchan_buf *buf = file->private_data;
	struct grtrace_pcpu *pc = per_cpu_ptr(grtrace_pcpu, buf->cpu);
	__poll_t mask = relay_file_operations.poll(file, wait);

	mask &= ~(EPOLLIN | EPOLLRDNORM);
	/* A hint: read() orders itself against the writer. */
	if (!(mask & EPOLLERR) &&
	    READ_ONCE(pc->committed) != READ_ONCE(pc->consumed))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

static int grtrace_events_release(struct inode *inode, struct file *file)
{
	return relay_file_operations.release(inode, file);
}

/*
 * relay's own file operations, less mmap and splice, which would bypass
 * the clamp of grtrace_events_read().
 */
static const struct file_operations grtrace_events_fops = {
	.owner		= THIS_MODULE,
	.open		= grtrace_events_open,
	.poll		= grtrace_events_poll,
	.read		= grtrace_events_read,
	.release	= grtrace_events_release,
};

/*
 * relay wakes pollers when a sub-buffer is finished, and a slow producer
 * may take hours to finish one.  While tracing, a timer wakes the pollers
 * of every CPU with records they have not read.  Context: softirq, or
 * process with grtrace_lock held and the timer stopped.
 */
static void grtrace_wake_readers(struct rchan *chan)
{
	int cpu;

	if (!chan)
		return;
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(chan->buf, cpu);
		struct grtrace_pcpu *pc = per_cpu_ptr(grtrace_pcpu, cpu);

		if (buf && READ_ONCE(pc->committed) != READ_ONCE(pc->consumed))
			wake_up_interruptible(&buf->read_wait);
	}
}

static void grtrace_wake_timer_fn(struct timer_list *t)
{
	/* The channel is replaced only while stopped, after this timer. */
	grtrace_wake_readers(READ_ONCE(grtrace_chan));
	if (READ_ONCE(grtrace_enabled))
		mod_timer(t, jiffies + msecs_to_jiffies(GRTRACE_WAKE_MS));
}

static int grtrace_open_channel(unsigned long size)
{
	struct rchan *chan;
	int cpu;

	/*
	 * Fresh buffers: reset the per-CPU read bookkeeping with them.  No
	 * reader runs: the old events files are gone, the new ones are not
	 * there yet.
	 */
	for_each_possible_cpu(cpu) {
		struct grtrace_pcpu *pc = per_cpu_ptr(grtrace_pcpu, cpu);

		pc->committed = 0;
		pc->consumed = 0;
	}
	/*
	 * relay gives a CPU its buffer in relay_open(), if online, or in its
	 * bring-up, if the channel is listed by then: a CPU whose bring-up
	 * passed relay's step before the channel was listed, and which came
	 * online after relay_open() looked, would have none, and its events
	 * a NULL buffer.  No CPU comes or goes meanwhile.
	 */
	cpus_read_lock();
	chan = relay_open("events", grtrace_dir, size / GRTRACE_NR_SUBBUFS,
			  GRTRACE_NR_SUBBUFS, &grtrace_relay_cb, NULL);
	cpus_read_unlock();
	if (!chan)
		return -ENOMEM;
	WRITE_ONCE(grtrace_chan_format, 0);
	/* Pairs with the acquire in grtrace_events_open(). */
	smp_store_release(&grtrace_relay, chan);
	WRITE_ONCE(grtrace_chan, chan);
	return 0;
}

static void grtrace_close_channel(void)
{
	struct rchan *chan = grtrace_relay;
	int cpu;

	if (!chan)
		return;
	WRITE_ONCE(grtrace_chan, NULL);
	WRITE_ONCE(grtrace_relay, NULL);
	/*
	 * Event paths run with interrupts or preemption off: wait for those
	 * in flight.
	 */
	synchronize_rcu();
	/*
	 * Not under grtrace_read_lock: removing an events file waits for the
	 * reads in flight on it, and those take that lock.  Once this
	 * returns, no read of the old channel runs or can start (debugfs
	 * fails it with -EIO), so the read bookkeeping of every CPU is free
	 * to be reset for the next channel.  Open files keep the buffers.
	 */
	relay_close(chan);
	/*
	 * The flight recorder's buffers are no reader's stream: what it wrote
	 * over is its info's "overwritten", what it kept its snapshot's, and
	 * neither is lost when it disarms.
	 */
	if (grtrace_rec_on)
		return;
	/* Nothing writes or reads now: count what no reader ever got. */
	for_each_possible_cpu(cpu) {
		struct grtrace_pcpu *pc = per_cpu_ptr(grtrace_pcpu, cpu);

		pc->cnt.discarded += pc->committed - pc->consumed;
	}
}

/**
 * grtrace_start_locked() - start a tracing session
 *
 * Writes STREAM_INFO and METADATA, then enables the event path, so both
 * records carry the lowest gseq of the session.
 * Context: grtrace_lock held.
 * Return: 0, -EALREADY if started, or the error of the first record.
 */
int grtrace_start_locked(void)
{
	int ret;

	lockdep_assert_held(&grtrace_lock);
	if (grtrace_enabled)
		return -EALREADY;
	ret = grtrace_lockdown();
	if (ret) {
		pr_debug("start: refused under kernel lockdown (confidentiality)\n");
		return ret;
	}
	/* The buffers exist from the first start on, not from load. */
	if (!grtrace_relay) {
		ret = grtrace_open_channel(grtrace_buffer_size);
		if (ret) {
			pr_debug("start failed: no memory for %u buffers of %lu bytes\n",
				 num_possible_cpus(), grtrace_buffer_size);
			return ret;
		}
	}

	/* Its description, whole or nothing: grtrace_begin_session(). */
	ret = grtrace_rings_write_metadata();
	if (ret) {
		if (ret == -ENOSPC)
			pr_debug("start refused: this CPU's buffer is full of unread records (read events* or rewrite buffer_size)\n");
		else
			pr_debug("start failed: %d\n", ret);
		return ret;
	}
	/* Its accounting starts after its description, before its events. */
	if (grtrace_rec_on)
		grtrace_rec_base();
	WRITE_ONCE(grtrace_enabled, true);
	grtrace_config_derive();
	/* Counted: live hooks keep it on too. */
	static_branch_inc(&grtrace_tracing_key);
	/* The flight recorder has no reader to wake, and costs no timer. */
	if (!grtrace_rec_on)
		mod_timer(&grtrace_wake_timer,
			  jiffies + msecs_to_jiffies(GRTRACE_WAKE_MS));
	return 0;
}

/**
 * grtrace_arm_locked() - start a flight recorder session
 *
 * Fresh buffers of the current size (the old ones' unread records are
 * discarded and counted), in overwrite mode, then a session as
 * grtrace_start_locked() starts one, without the readers' wake timer.
 * Context: grtrace_lock held, no session running; sleeps.
 * Return: 0, -EBUSY while tracing, -ENOMEM, or the start's error.
 */
int grtrace_arm_locked(void)
{
	int ret;

	lockdep_assert_held(&grtrace_lock);
	if (grtrace_enabled)
		return -EBUSY;
	/* Before the old buffers go: their unread records stay. */
	ret = grtrace_lockdown();
	if (ret) {
		pr_debug("arm: refused under kernel lockdown (confidentiality)\n");
		return ret;
	}
	grtrace_close_channel();
	ret = grtrace_open_channel(grtrace_buffer_size);
	if (ret)
		return ret;
	WRITE_ONCE(grtrace_rec_on, true);
	ret = grtrace_start_locked();
	if (ret) {
		grtrace_close_channel();
		WRITE_ONCE(grtrace_rec_on, false);
	}
	return ret;
}

/**
 * grtrace_disarm_locked() - end the flight recorder's session
 *
 * Stops it and frees its buffers, the snapshot with them.  The next start
 * of tracing gets fresh buffers.
 * Context: grtrace_lock held; sleeps.
 */
void grtrace_disarm_locked(void)
{
	lockdep_assert_held(&grtrace_lock);
	grtrace_stop_locked();
	grtrace_close_channel();
	WRITE_ONCE(grtrace_rec_on, false);
	grtrace_config_derive();
}

/**
 * grtrace_rec_freeze() - stop the event path's writes, at once
 *
 * From then on every event finds no channel and is dropped, reason
 * ``frozen``; an event that read the channel before may still finish its
 * record (the snapshot's reader waits for those: synchronize_rcu()).
 * Context: any; the flight recorder's trigger.
 */
void grtrace_rec_freeze(void)
{
	WRITE_ONCE(grtrace_chan, NULL);
	/* The store before the caller's clock read: freeze_ns. */
	smp_mb();
}

/**
 * grtrace_rec_channel() - the flight recorder's relay channel
 *
 * Context: grtrace_lock held, so the channel stays.
 * Return: the channel or NULL.
 */
struct rchan *grtrace_rec_channel(void)
{
	lockdep_assert_held(&grtrace_lock);
	return grtrace_relay;
}

/**
 * grtrace_stop_locked() - stop the session
 *
 * Its tail is readable as it is: no sub-buffer is switched.  Pollers are
 * woken for what they have not read yet.
 * Context: grtrace_lock held; sleeps.
 */
void grtrace_stop_locked(void)
{
	lockdep_assert_held(&grtrace_lock);
	if (!grtrace_enabled)
		return;
	static_branch_dec(&grtrace_tracing_key);
	WRITE_ONCE(grtrace_enabled, false);
	grtrace_config_derive();
	/* It sees "stopped" and does not re-arm. */
	timer_delete_sync(&grtrace_wake_timer);
	grtrace_rings_quiesce();
	/* Let events that saw "enabled" finish before waking behind them. */
	synchronize_rcu();
	grtrace_wake_readers(grtrace_chan);
}

/**
 * grtrace_resize_locked() - replace the buffers with ones of a new size
 * @size: bytes per CPU, already validated
 *
 * Before the first start there are no buffers: only the size is kept.
 * Afterwards unread data in the old buffers is discarded (and counted);
 * open events files of the old channel return errors from then on.
 * Context: grtrace_lock held, tracing stopped.
 * Return: 0, -EBUSY while tracing, -ENOMEM.
 */
int grtrace_resize_locked(unsigned long size)
{
	unsigned long old = grtrace_buffer_size;
	int ret;

	lockdep_assert_held(&grtrace_lock);
	if (grtrace_enabled)
		return -EBUSY;
	/* Its buffers hold the flight recorder's snapshot, or will. */
	if (grtrace_rec_on) {
		pr_debug("buffer_size: the flight recorder is armed: disarm it first\n");
		return -EBUSY;
	}
	if (!grtrace_relay) {
		grtrace_buffer_size = size;
		return 0;
	}
	grtrace_close_channel();
	ret = grtrace_open_channel(size);
	if (ret) {
		/* Keep a working channel of the old size if we can. */
		if (!grtrace_open_channel(old))
			return ret;
		pr_warn("no relay channel: %d\n", ret);
		return ret;
	}
	grtrace_buffer_size = size;
	return 0;
}

int grtrace_core_init(struct dentry *dir)
{
	/* Aligned as the fast path counts on: see struct grtrace_pcpu. */
	grtrace_pcpu = (struct grtrace_pcpu __percpu *)
		__alloc_percpu(sizeof(struct grtrace_pcpu), SMP_CACHE_BYTES);
	if (!grtrace_pcpu)
		return -ENOMEM;
	grtrace_pcpu_cold = alloc_percpu(struct grtrace_pcpu_cold);
	if (!grtrace_pcpu_cold) {
		free_percpu(grtrace_pcpu);
		return -ENOMEM;
	}
	grtrace_dir = dir;
	timer_setup(&grtrace_wake_timer, grtrace_wake_timer_fn, 0);
	return 0;
}

/**
 * grtrace_buffers_allocated() - bytes of relay buffer held now
 *
 * Context: any; a snapshot.
 * Return: zero until the first start, then the channel's size times the
 * CPUs that have a buffer: those online at its open or online since.
 */
unsigned long grtrace_buffers_allocated(void)
{
	return atomic_long_read(&grtrace_buf_bytes);
}

void grtrace_core_exit(void)
{
	mutex_lock(&grtrace_lock);
	grtrace_stop_locked();
	grtrace_close_channel();
	WRITE_ONCE(grtrace_rec_on, false);
	mutex_unlock(&grtrace_lock);
}

/* Once no event can come and no file be read any more. */
void grtrace_core_free(void)
{
	free_percpu(grtrace_pcpu_cold);
	free_percpu(grtrace_pcpu);
}

/*
 * The exported API.  Each function is one event; the ring's engine class
 * comes from the ring registry.  All are safe from any context, hard
 * interrupts included, never sleep and cost a few hundred ns when written
 * (less when dropped).  Called in NMI, they write nothing and count the
 * event as dropped, reason ``nmi``.
 */

/**
 * grtrace_submit() - a job was accepted from userspace
 * @ring_id: ring the job is queued for, from grtrace_ring_register()
 * @ctx: dma-fence context of the job's finished fence
 * @seqno: dma-fence seqno of the job's finished fence
 */
void grtrace_submit(u32 ring_id, u64 ctx, u64 seqno)
{
	grtrace_event(GRTRACE_EV_SUBMIT, ring_id, ctx, seqno, 0, 0);
}
EXPORT_SYMBOL_GPL(grtrace_submit);

/**
 * grtrace_commit() - a job was handed to the hardware ring
 * @ring_id: ring the job runs on
 * @ctx: dma-fence context of the job
 * @seqno: dma-fence seqno of the job
 */
void grtrace_commit(u32 ring_id, u64 ctx, u64 seqno)
{
	grtrace_event(GRTRACE_EV_COMMIT, ring_id, ctx, seqno, 0, 0);
}
EXPORT_SYMBOL_GPL(grtrace_commit);

/**
 * grtrace_start() - the hardware began executing a job
 * @ring_id: ring the job runs on
 * @ctx: dma-fence context of the job
 * @seqno: dma-fence seqno of the job
 *
 * Only for drivers that can observe it; readers derive an effective start
 * for in-order rings otherwise.
 */
void grtrace_start(u32 ring_id, u64 ctx, u64 seqno)
{
	grtrace_event(GRTRACE_EV_START, ring_id, ctx, seqno, 0, 0);
}
EXPORT_SYMBOL_GPL(grtrace_start);

/**
 * grtrace_end() - the hardware finished a job (its hardware fence signalled)
 * @ring_id: ring the job ran on
 * @ctx: dma-fence context of the job
 * @seqno: dma-fence seqno of the job
 */
void grtrace_end(u32 ring_id, u64 ctx, u64 seqno)
{
	grtrace_event(GRTRACE_EV_END, ring_id, ctx, seqno, 0, 0);
}
EXPORT_SYMBOL_GPL(grtrace_end);

/**
 * grtrace_complete() - a job's completion was delivered or retired
 * @ring_id: ring the job ran on
 * @ctx: dma-fence context of the job
 * @seqno: dma-fence seqno of the job
 */
void grtrace_complete(u32 ring_id, u64 ctx, u64 seqno)
{
	grtrace_event(GRTRACE_EV_COMPLETE, ring_id, ctx, seqno, 0, 0);
}
EXPORT_SYMBOL_GPL(grtrace_complete);

/**
 * grtrace_ctx_switch() - a ring switched from one context to another
 * @ring_id: the ring
 * @from_ctx: context that ran before, recorded in aux0
 * @to_ctx: context that runs now, recorded as the event's ctx
 *
 * Verbose-only: dropped as "level" unless level=verbose.
 */
void grtrace_ctx_switch(u32 ring_id, u64 from_ctx, u64 to_ctx)
{
	grtrace_event(GRTRACE_EV_CTX_SWITCH, ring_id, to_ctx, 0, from_ctx, 0);
}
EXPORT_SYMBOL_GPL(grtrace_ctx_switch);

/**
 * grtrace_irq() - a GPU interrupt was handled
 * @ring_id: ring the interrupt belongs to, if known
 * @src_id: driver's interrupt source id, recorded in aux0
 * @src_data: driver's interrupt data, recorded in aux1
 *
 * Verbose-only: dropped as "level" unless level=verbose.
 */
void grtrace_irq(u32 ring_id, u64 src_id, u64 src_data)
{
	grtrace_event(GRTRACE_EV_IRQ, ring_id, 0, 0, src_id, src_data);
}
EXPORT_SYMBOL_GPL(grtrace_irq);

/**
 * grtrace_sync_wait_enter() - a job started waiting on another fence
 * @ring_id: ring of the waiting job
 * @ctx: dma-fence context of the waiting job
 * @seqno: dma-fence seqno of the waiting job
 * @dep_ctx: context of the fence waited on, recorded in aux0
 * @dep_seqno: seqno of the fence waited on, recorded in aux1
 */
void grtrace_sync_wait_enter(u32 ring_id, u64 ctx, u64 seqno, u64 dep_ctx,
			     u64 dep_seqno)
{
	grtrace_event(GRTRACE_EV_SYNC_WAIT_ENTER, ring_id, ctx, seqno, dep_ctx,
		      dep_seqno);
}
EXPORT_SYMBOL_GPL(grtrace_sync_wait_enter);

/**
 * grtrace_sync_wait_exit() - the fence a job waited on signalled
 * @ring_id: ring of the waiting job
 * @ctx: dma-fence context of the waiting job
 * @seqno: dma-fence seqno of the waiting job
 * @dep_ctx: context of the fence waited on, recorded in aux0
 * @dep_seqno: seqno of the fence waited on, recorded in aux1
 */
void grtrace_sync_wait_exit(u32 ring_id, u64 ctx, u64 seqno, u64 dep_ctx,
			    u64 dep_seqno)
{
	grtrace_event(GRTRACE_EV_SYNC_WAIT_EXIT, ring_id, ctx, seqno, dep_ctx,
		      dep_seqno);
}
EXPORT_SYMBOL_GPL(grtrace_sync_wait_exit);

/**
 * grtrace_error() - a job timed out, caused a reset or was found guilty
 * @ring_id: ring of the job
 * @ctx: dma-fence context of the job
 * @seqno: dma-fence seqno of the job
 * @err: negative errno, e.g. -ETIME; recorded in aux0 as two's complement
 * @reason: driver-specific detail, recorded in aux1
 */
void grtrace_error(u32 ring_id, u64 ctx, u64 seqno, int err, u64 reason)
{
	grtrace_event(GRTRACE_EV_ERROR, ring_id, ctx, seqno, (u64)(s64)err,
		      reason);
}
EXPORT_SYMBOL_GPL(grtrace_error);
