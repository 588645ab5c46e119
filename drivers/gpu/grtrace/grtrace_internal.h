/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of grtrace.ko share with each other, and nothing more.
 */
#ifndef _GRTRACE_INTERNAL_H
#define _GRTRACE_INTERNAL_H

#include <linux/grtrace.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>

struct dentry;
struct seq_file;

/*
 * Why an event did not reach the stream.  Every call into the event path
 * ends as "written" or as exactly one of these, in this order of checks.
 */
enum grtrace_drop {
	GRTRACE_DROP_DISABLED,
	GRTRACE_DROP_LEVEL,
	GRTRACE_DROP_FILTERED_TYPE,
	GRTRACE_DROP_FILTERED_ENGINE,
	GRTRACE_DROP_FILTERED_RING,
	GRTRACE_DROP_FILTERED_WATCH,
	GRTRACE_DROP_HOOK,
	GRTRACE_DROP_SAMPLED,
	GRTRACE_DROP_RATE_LIMITED,
	GRTRACE_DROP_BACKPRESSURE,
	GRTRACE_DROP_BUFFER_FULL,
	GRTRACE_DROP_OVERSIZE,
	GRTRACE_DROP_NMI,
	GRTRACE_DROP_NESTED,
	GRTRACE_DROP_INVALID,
	GRTRACE_DROP_FROZEN,
	GRTRACE_NR_DROPS,
};

/*
 * The drops decided and counted without masking interrupts, "quick":
 * those of the filters (of the same value as their drop reasons), of the
 * sampling and of a rate limit this CPU noted holds, decided before the
 * full path masks interrupts (grtrace_decide()), and an event of the fast
 * path that finds its CPU's buffer full (grtrace_event_fast()).
 */
enum grtrace_quick {
	GRTRACE_QUICK_DISABLED		= GRTRACE_DROP_DISABLED,
	GRTRACE_QUICK_LEVEL		= GRTRACE_DROP_LEVEL,
	GRTRACE_QUICK_FILTERED_TYPE	= GRTRACE_DROP_FILTERED_TYPE,
	GRTRACE_QUICK_FILTERED_ENGINE	= GRTRACE_DROP_FILTERED_ENGINE,
	GRTRACE_QUICK_FILTERED_RING	= GRTRACE_DROP_FILTERED_RING,
	GRTRACE_QUICK_FILTERED_WATCH	= GRTRACE_DROP_FILTERED_WATCH,
	GRTRACE_QUICK_SAMPLED,
	GRTRACE_QUICK_RATE_LIMITED,
	GRTRACE_QUICK_BUFFER_FULL,
	GRTRACE_NR_QUICK,
};

static inline enum grtrace_drop grtrace_quick_drop(enum grtrace_quick q)
{
	switch (q) {
	case GRTRACE_QUICK_SAMPLED:
		return GRTRACE_DROP_SAMPLED;
	case GRTRACE_QUICK_RATE_LIMITED:
		return GRTRACE_DROP_RATE_LIMITED;
	case GRTRACE_QUICK_BUFFER_FULL:
		return GRTRACE_DROP_BUFFER_FULL;
	default:
		return (enum grtrace_drop)q;
	}
}

/*
 * Quick drops and the fast path's events are counted by type below this,
 * which holds every type the API has (grtrace_cfg.fast_types).
 */
#define GRTRACE_QUICK_TYPES	16

extern const char * const grtrace_drop_names[GRTRACE_NR_DROPS];
extern const char * const grtrace_type_names[GRTRACE_EV_NR_JOB_TYPES];

/* Histograms have 12 log2 buckets: [0, 2^lo), [2^lo, 2^(lo+1)), ... */
#define GRTRACE_HIST_BUCKETS	12
#define GRTRACE_LAT_HIST_LO	6	/* write path cost: 64 ns first bound */
#define GRTRACE_SIZE_HIST_LO	4	/* record size: 16 bytes first bound */

static inline unsigned int grtrace_hist_bucket(u64 v, unsigned int lo)
{
	unsigned int b;

	if (v < (1ULL << lo))
		return 0;
	b = ilog2(v) - lo + 1;
	return min_t(unsigned int, b, GRTRACE_HIST_BUCKETS - 1);
}

/*
 * The sizes of the fast path's records: struct grtrace_job2, and 8 bytes
 * more for each of its aux values and its task, if present.
 */
#define GRTRACE_FAST_SIZES	3
#define GRTRACE_FAST_SIZE(i)	(sizeof(struct grtrace_job2) + 8 * (i))

/* sec_stats keeps this many seconds. */
#define GRTRACE_SECS		60

/**
 * struct grtrace_counters - what a CPU counts; every member is a u64 counter
 * @fast: events written by the fast path, by type and size (the index
 *	of GRTRACE_FAST_SIZE()), counted there once: the views add them to
 *	@emitted, @written, @bytes, @size_hist and the per-type counts
 *	(grtrace_counters_totals(), grtrace_stats_sum())
 * @quick: events dropped without masking interrupts, by enum
 *	grtrace_quick and type, counted once (grtrace_quick_count()): the
 *	views add them to @emitted, @dropped and @type_emitted
 * @emitted: calls into the event path
 * @written: events written to the relay channel
 * @bytes: bytes of events written
 * @dropped: events dropped, by enum grtrace_drop
 * @ctl_written: control records (STREAM_INFO, METADATA, RING) written
 * @ctl_dropped: control records that did not fit in the buffer
 * @discarded: bytes of records written but never read, thrown away with
 *	their buffers by a resize or an unload (the flight recorder's are not
 *	counted: no reader consumes them)
 * @deferred: events that interrupted an event of the fast path on their
 *	CPU and whose write waited for it to finish
 * @type_emitted: @emitted by event type
 * @type_written: @written by event type
 * @lat_hist: cost of the write path in ns (when measure_latency=1)
 * @size_hist: sizes of the records written, control records included
 *
 * Only u64 members, so that views can add and subtract whole structures.
 * The fast path's and the quick drops' counters first: see struct
 * grtrace_pcpu.
 */
struct grtrace_counters {
	u64 fast[GRTRACE_QUICK_TYPES][GRTRACE_FAST_SIZES];
	u64 quick[GRTRACE_NR_QUICK][GRTRACE_QUICK_TYPES];
	u64 emitted;
	u64 written;
	u64 bytes;
	u64 dropped[GRTRACE_NR_DROPS];
	u64 ctl_written;
	u64 ctl_dropped;
	u64 discarded;
	u64 deferred;
	u64 type_emitted[GRTRACE_EV_NR_JOB_TYPES];
	u64 type_written[GRTRACE_EV_NR_JOB_TYPES];
	u64 lat_hist[GRTRACE_HIST_BUCKETS];
	u64 size_hist[GRTRACE_HIST_BUCKETS];
};

#define GRTRACE_NR_COUNTERS	(sizeof(struct grtrace_counters) / sizeof(u64))

/*
 * Calls into the event path and events written that @c holds, as the views
 * count them: with the fast path's events, the quick drops and the drops
 * in NMI, counted alone.  @c may be a CPU's live counters.
 */
static inline void grtrace_counters_totals(const struct grtrace_counters *c,
					   u64 *emitted, u64 *written)
{
	u64 fast = 0, quick = 0;
	int q, t, i;

	for (t = 0; t < GRTRACE_QUICK_TYPES; t++)
		for (i = 0; i < GRTRACE_FAST_SIZES; i++)
			fast += READ_ONCE(c->fast[t][i]);
	for (q = 0; q < GRTRACE_NR_QUICK; q++)
		for (t = 0; t < GRTRACE_QUICK_TYPES; t++)
			quick += READ_ONCE(c->quick[q][t]);
	*emitted = READ_ONCE(c->emitted) + fast + quick +
		   READ_ONCE(c->dropped[GRTRACE_DROP_NMI]);
	*written = READ_ONCE(c->written) + fast;
}

/**
 * struct grtrace_sec - one second of sec_stats on one CPU
 * @sec: the second (jiffies / HZ) this slot holds
 * @emitted: this CPU's count of calls into the event path when its first
 *	event of @sec came (before counting it)
 * @written: the same for events written
 *
 * The events of a second are the difference to the next second this CPU
 * had events in, or to its counters now: the event path only notices that
 * a second began, and counts nothing twice.
 */
struct grtrace_sec {
	u64 sec;
	u64 emitted;
	u64 written;
};

/*
 * An event of the fast path (grtrace_event_fast()) runs with interrupts
 * on.  While it is in flight on a CPU, @busy has GRTRACE_BUSY_FAST, and an
 * event that interrupts it there is checked and counted as usual, but its
 * write is deferred (PENDING) until that one is done: so this CPU's
 * records stay in the order of their timestamps and cseq.
 */
#define GRTRACE_BUSY_FAST	BIT(0)
#define GRTRACE_BUSY_PENDING	BIT(1)

/* Writes one fast-path event can hold back; more are dropped ("nested"). */
#define GRTRACE_NR_DEFERRED	128

/**
 * struct grtrace_deferred - the write of an event, held back
 * @type: job event type
 * @hflags: GRTRACE_HDR_* flags of its record
 * @engine: engine class
 * @hooked: the hooks observe it
 * @trig: an ERROR that triggers the flight recorder once it is written
 * @ring_id: ring
 * @ctx: first number
 * @seqno: second number
 * @aux0: first auxiliary value
 * @aux1: second auxiliary value
 * @ts: its timestamp, taken when it came
 */
struct grtrace_deferred {
	u16 type;
	u16 hflags;
	u16 engine;
	bool hooked;
	bool trig;
	u32 ring_id;
	u64 ctx;
	u64 seqno;
	u64 aux0;
	u64 aux1;
	u64 ts;
};

/**
 * struct grtrace_pcpu - per-CPU state of the event path
 * @cseq: next per-CPU sequence number of this CPU's channel
 * @committed: bytes of the whole records written to this CPU's channel:
 *	what readers may read
 * @sec_end: jiffies at which the second of this CPU's last event ends
 * @busy: GRTRACE_BUSY_* bits, see grtrace_event_fast()
 * @sample_acc: percent accumulator of sample=
 * @sample_cnt: position in the 1-in-N cycle of sample_every=
 * @bp_cnt: position in the 1-in-N cycle of adaptive sampling
 * @bp_shift: adaptive sampling keeps 1 in 2^@bp_shift events; 0 = all
 * @rl_until: jiffies until which the rate limit holds, as this CPU last
 *	saw it
 * @rl_gen: generation of the limiter's settings @rl_until is good for
 * @nmi_lost: events dropped in NMI since this CPU's last record: the next
 *	record takes their cseqs first (grtrace_nmi_gap())
 * @cnt: counters, see struct grtrace_counters
 * @consumed: bytes handed to readers of this CPU's channel
 *
 * Allocated at load, cache-line aligned (grtrace_core_init()), never
 * static: the static per-CPU data of all modules shares a small reserve
 * (8 KiB on x86-64), and a module that takes much of it can make another
 * one's load fail with -ENOMEM.  In the order the fast path uses it: its
 * scalars in the first line, its counters (@cnt starts with them) right
 * after, so that an event writes two lines within the first 448 bytes.
 * @consumed, which the readers write, comes last.
 *
 * Everything but @consumed and @nmi_lost is written only by its own CPU,
 * with interrupts disabled, or on the fast path with preemption disabled
 * (@nmi_lost: by this CPU's NMIs, and emptied with this_cpu_xchg()); what
 * the fast
 * path writes (the buffer, @cseq, @committed, the counters of written
 * records), an interrupt that comes meanwhile leaves alone: it defers its
 * write.  So plain increments suffice; readers sum over CPUs and may see
 * a snapshot that is a few events old.  @consumed is protected by
 * grtrace_read_lock.  What the event path uses seldom is in struct
 * grtrace_pcpu_cold.
 */
struct grtrace_pcpu {
	u64 cseq;
	u64 committed;
	unsigned long sec_end;
	u32 busy;
	u32 sample_acc;
	u32 sample_cnt;
	u32 bp_cnt;
	u32 bp_shift;
	u32 nmi_lost;
	unsigned long rl_until;
	unsigned long rl_gen;
	struct grtrace_counters cnt;
	u64 consumed;
};

extern struct grtrace_pcpu __percpu *grtrace_pcpu;

/*
 * Control records held back like events (grtrace_write_control()): a RING
 * record of a ring registered from an interrupt, at most.  In the deferred
 * list, one has the type GRTRACE_DEFERRED_CTL, its slot in aux0, its size
 * in aux1.
 */
#define GRTRACE_NR_DEFERRED_CTL	16
#define GRTRACE_DEFERRED_CTL	0xffff

/**
 * struct grtrace_pcpu_cold - per-CPU state the event path uses seldom
 * @secs: the last %GRTRACE_SECS seconds, indexed by second modulo
 * @nr_deferred: writes in @deferred
 * @deferred: writes of events that came while an event of the fast path
 *	was in flight on this CPU, in their order, to be done after it
 * @nr_deferred_ctl: control records in @deferred_ctl
 * @nested_lost: events dropped as nested meanwhile: grtrace_replay() makes
 *	them a gap in the CPU's cseq after the held-back records, where they
 *	were lost
 * @cseq_start: the CPU's cseq when the session started (the cseq file
 *	shows it): losses before the CPU's first record of the session are
 *	its first cseq minus that
 * @deferred_ctl: the control records held back, %GRTRACE_NR_DEFERRED_CTL
 *	at most
 *
 * Allocated at load, like struct grtrace_pcpu, and written as it is.
 */
struct grtrace_pcpu_cold {
	struct grtrace_sec secs[GRTRACE_SECS];
	u32 nr_deferred;
	struct grtrace_deferred deferred[GRTRACE_NR_DEFERRED];
	u32 nr_deferred_ctl;
	u32 nested_lost;
	u64 cseq_start;
	u8 deferred_ctl[GRTRACE_NR_DEFERRED_CTL]
		       [sizeof(struct grtrace_ring_record)] __aligned(8);
};

extern struct grtrace_pcpu_cold __percpu *grtrace_pcpu_cold;

enum grtrace_level {
	GRTRACE_LEVEL_OFF,
	GRTRACE_LEVEL_NORMAL,
	GRTRACE_LEVEL_VERBOSE,
};

/* Types dropped below level=verbose: high-rate, hardware-level events. */
#define GRTRACE_VERBOSE_TYPES	(BIT(GRTRACE_EV_CTX_SWITCH) | BIT(GRTRACE_EV_IRQ))

enum grtrace_clock_sel {
	GRTRACE_CLK_MONOTONIC,
	GRTRACE_CLK_BOOTTIME,
};

enum grtrace_rl_mode {
	GRTRACE_RL_WINDOW,
	GRTRACE_RL_TOKEN_BUCKET,
};

#define GRTRACE_WATCH_MAX	64
/* watch_ring is a bit mask: rings 0..63 can be watched. */
#define GRTRACE_WATCH_RINGS	64

/**
 * struct grtrace_watch_ctx - the context watchlist, replaced as a whole
 * @rcu: frees the old list after readers are done
 * @nr: number of entries
 * @ctx: fence contexts, unsorted
 */
struct grtrace_watch_ctx {
	struct rcu_head rcu;
	u32 nr;
	u64 ctx[];
};

/**
 * struct grtrace_config - every setting of the event path
 * @level: enum grtrace_level
 * @clock: enum grtrace_clock_sel; changed only while stopped
 * @filter_type_mask: bit (1 << type) set keeps that job event type
 * @filter_engine_mask: bit (1 << engine) set keeps that engine class
 * @filter_ring_id: keep only this ring, or -1 for all
 * @watch_deny: the watchlists name what to drop instead of what to keep
 * @watch_or: an event matches when its ctx OR its ring is listed (else AND)
 * @watch_rings: ring watchlist, bit (1 << ring id)
 * @watch_ctx: context watchlist, RCU-protected; NULL when empty
 * @sample: percent of events kept, 0..100
 * @sample_every: keep 1 in N events; 0 and 1 keep all
 * @max_eps: events per second the rate limiter lets through; 0 = no limit
 * @rl_mode: enum grtrace_rl_mode
 * @rl_burst: token bucket depth in events; 0 = one second's worth
 * @bp_threshold: relay fill in percent at which backpressure acts; 0 = off
 * @adaptive: above the threshold, sample progressively instead of dropping
 * @measure_latency: time the write path into latency_hist
 * @no_gseq: do not stamp gseq (0 in every record); changed only while
 *	stopped, since STREAM_INFO says whether gseq is valid
 * @format: GRTRACE_FORMAT_V1 or _V2, the stream format of the next
 *	session; changed only while stopped
 * @unfiltered_types: not a setting: bit (1 << type) set when no filter
 *	(level, type, engine, ring, watchlists) can drop an event of that
 *	type on a known engine; derived from the settings whenever they
 *	change (grtrace_config_derive())
 * @plain_types: not a setting: the same when no setting at all can drop
 *	it, nor stamp it with any clock but the monotonic one
 * @fast_types: not a setting: the same while a session runs in format 2
 *	without gseq, latency measurement or backpressure: the event path's
 *	fast path (grtrace_event_fast())
 * @state_types: not a setting: the types the sampling (one of its
 *	settings) or the rate limit may drop before the full path masks
 *	interrupts (grtrace_decide())
 *
 * Writers hold grtrace_lock and use WRITE_ONCE() or rcu_assign_pointer();
 * the event path reads each field once, so a change takes effect on the
 * next event without any lock on the event path.
 */
struct grtrace_config {
	u32 level;
	u32 clock;
	u32 filter_type_mask;
	u32 filter_engine_mask;
	s32 filter_ring_id;
	u32 watch_deny;
	u32 watch_or;
	u64 watch_rings;
	struct grtrace_watch_ctx __rcu *watch_ctx;
	u32 sample;
	u32 sample_every;
	u32 max_eps;
	u32 rl_mode;
	u32 rl_burst;
	u32 bp_threshold;
	u32 adaptive;
	u32 measure_latency;
	u32 no_gseq;
	u32 format;
	u32 unfiltered_types;
	u32 plain_types;
	u32 fast_types;
	u32 state_types;
};

/* Sub-buffers of each CPU's relay buffer. */
#define GRTRACE_NR_SUBBUFS	8

extern struct grtrace_config grtrace_cfg;
void grtrace_config_derive(void);
extern struct mutex grtrace_lock;
extern bool grtrace_enabled;
extern u64 grtrace_session;
unsigned int grtrace_chan_stream_format(void);
void grtrace_emit_lose(u64 n);
extern unsigned long grtrace_buffer_size;

/*
 * grtrace_core.c.  The event path has a page to itself: under TCG a jump
 * to another guest page is looked up, not chained, and where a page
 * boundary fell in it moved its cost by a tenth from one unrelated change
 * to the next (measured).  On hardware: one iTLB entry.  A .text.hot.*
 * section, which vmlinux's linker script places (built in, no orphan),
 * aligned to a page as a whole (grtrace_core.c), so that its functions
 * follow one another from a page's start in whichever order the compiler
 * puts them: grtrace_event(), its full path and the API's wrappers, which
 * jump to it.
 */
#define __grtrace_hot	__section(".text.hot.grtrace_event")
void grtrace_event(u32 what, u32 ring_id, u64 ctx, u64 seqno, u64 aux0,
		   u64 aux1) __grtrace_hot;
/* The API's wrappers, in the same section (declared in linux/grtrace.h). */
void grtrace_submit(u32 ring_id, u64 ctx, u64 seqno) __grtrace_hot;
void grtrace_commit(u32 ring_id, u64 ctx, u64 seqno) __grtrace_hot;
void grtrace_start(u32 ring_id, u64 ctx, u64 seqno) __grtrace_hot;
void grtrace_end(u32 ring_id, u64 ctx, u64 seqno) __grtrace_hot;
void grtrace_complete(u32 ring_id, u64 ctx, u64 seqno) __grtrace_hot;
void grtrace_ctx_switch(u32 ring_id, u64 from_ctx, u64 to_ctx) __grtrace_hot;
void grtrace_irq(u32 ring_id, u64 src_id, u64 src_data) __grtrace_hot;
void grtrace_sync_wait_enter(u32 ring_id, u64 ctx, u64 seqno, u64 dep_ctx,
			     u64 dep_seqno) __grtrace_hot;
void grtrace_sync_wait_exit(u32 ring_id, u64 ctx, u64 seqno, u64 dep_ctx,
			    u64 dep_seqno) __grtrace_hot;
void grtrace_error(u32 ring_id, u64 ctx, u64 seqno, int err,
		   u64 reason) __grtrace_hot;
/*
 * grtrace_event()'s @what: an engine class given by the caller; without it
 * the event has its ring's (looked up inside, with interrupts off).
 */
#define GRTRACE_EV_ENGINE(engine)	(((u32)(engine) + 1) << 16)
int grtrace_start_locked(void);
void grtrace_stop_locked(void);
void grtrace_stream_info_fill(struct grtrace_stream_info *si);

/*
 * The flight recorder.  grtrace_core.c: the overwrite mode of the relay
 * channel, its session and its freeze; grtrace_recorder.c: its state, its
 * triggers, its accounting and its files.
 */
struct rchan;
struct rchan_buf;
extern bool grtrace_rec_on;
int grtrace_arm_locked(void);
void grtrace_disarm_locked(void);
void grtrace_rec_freeze(void);
struct rchan *grtrace_rec_channel(void);
int grtrace_rec_subbuf_start(struct rchan_buf *buf, bool fresh);
void grtrace_rec_base(void);
void grtrace_rec_error(u32 ring_id, u64 ctx, u64 seqno, u64 err);
int grtrace_recorder_init(void);
void grtrace_recorder_create_files(struct dentry *dir);
void grtrace_recorder_exit(void);
int grtrace_recorder_cmd(char *buf);
const char *grtrace_recorder_state(void);
int grtrace_resize_locked(unsigned long size);
unsigned long grtrace_buffers_allocated(void);
int grtrace_write_control(const void *rec, u16 size);
int grtrace_lockdown(void);
size_t grtrace_control_room(void);
u64 grtrace_now(void);

/* grtrace_hooks.c: the optional modules' hook chain. */
DECLARE_STATIC_KEY_FALSE(grtrace_hooks_on);
DECLARE_STATIC_KEY_FALSE(grtrace_hooks_live_on);
DECLARE_STATIC_KEY_FALSE(grtrace_hooks_drop_on);
DECLARE_STATIC_KEY_FALSE(grtrace_hooks_observe_on);
bool grtrace_hooks_drop(const struct grtrace_hook_event *ev);
void grtrace_hooks_observe(const struct grtrace_hook_event *ev, bool written);
void grtrace_hooks_observe_live(const struct grtrace_hook_event *ev);
void grtrace_hooks_ring_released(u32 ring_id);
void grtrace_hooks_debugfs(struct dentry *dir);
int grtrace_core_init(struct dentry *dir);
void grtrace_core_exit(void);
void grtrace_core_free(void);

/* grtrace_config.c */
int grtrace_config_set(char *line);
void grtrace_config_show(struct seq_file *m);
int grtrace_config_init(void);
int grtrace_parse_buffer_size(const char *s, unsigned long *size);
void grtrace_config_free(void);
void grtrace_config_show_key(struct seq_file *m, const char *key);
int grtrace_watchlist_set(const char *list);
void grtrace_watchlist_show(struct seq_file *m);
void grtrace_stats_reset(void);
void grtrace_stats_sum(struct grtrace_counters *sum, int cpu);
u64 grtrace_reset_sec(void);
void grtrace_rl_reset(void);

/* grtrace_rings.c */

/* The engine class of each ring id, read by the event path. */
struct grtrace_ring_engines {
	u32 nr;
	u16 engine[];
};

extern struct grtrace_ring_engines __rcu *grtrace_ring_engines;

/* The engine class of @ring_id.  Context: interrupts or preemption off. */
static inline u16 grtrace_ring_engine(u32 ring_id)
{
	const struct grtrace_ring_engines *t;

	t = rcu_dereference_sched(grtrace_ring_engines);
	return t && ring_id < t->nr ? READ_ONCE(t->engine[ring_id]) :
				      GRTRACE_ENGINE_UNKNOWN;
}

int grtrace_rings_init(void);
void grtrace_rings_exit(void);
int grtrace_rings_write_metadata(void);
int grtrace_begin_session(u16 md_size, u32 nr_ring);
struct grtrace_metadata *grtrace_rings_metadata(u32 *nr);
void grtrace_rings_quiesce(void);
int grtrace_rings_show(struct seq_file *m);

/* grtrace_control.c */
int grtrace_control_init(struct dentry *dir);

/* grtrace_attach.c */
extern const struct file_operations grtrace_adapters_fops;

#endif /* _GRTRACE_INTERNAL_H */
