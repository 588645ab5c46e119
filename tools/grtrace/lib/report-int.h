/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace report: what the engine (report.c), the summaries
 * (report-group.c) and the output (report-out.c and the writers) share.
 */
#ifndef GRTRACE_REPORT_INT_H
#define GRTRACE_REPORT_INT_H

#include "pctl.h"
#include "report.h"

#define NIL	UINT32_MAX

/* Points in a job's life, each from its event. */
enum { ST_SUBMIT, ST_COMMIT, ST_START, ST_END, ST_COMPLETE, NR_STAMPS };

/* The per-job metrics, in column order. */
enum {
	M_SUBMIT_HOST,		/* COMMIT - SUBMIT */
	M_QUEUE,		/* START - COMMIT */
	M_EXEC,			/* END - START */
	M_GPU_WAIT,		/* union of SYNC_WAIT_ENTER .. _EXIT */
	M_COMPLETE,		/* COMPLETE - END */
	M_TOTAL,		/* first to last of SUBMIT .. COMPLETE */
	NR_METRICS,
};

enum {
	L_LONG_QUEUE,
	L_SLOW_EXEC,
	L_DEP_WAIT,
	L_PREEMPTED,
	L_ERROR,
	NR_LABELS,
};

extern const char *const rp_metric_names[NR_METRICS];
extern const char *const rp_label_names[NR_LABELS];

/*
 * Busy intervals are kept apart until no job can reach back over them: the
 * array grows from GROUP_IVALS to GROUP_IVALS_MAX, and folds into a sum
 * what ends before every pinned start (group_pin()).
 */
#define GROUP_IVALS	4
#define GROUP_IVALS_MAX	65536
/* A timeline holds at most this many intervals (8 MB a ring). */
#define GROUP_TL_MAX	(1u << 20)

struct ival {
	uint64_t start;
	uint64_t end;
};

/* A job whose busy interval may still be added, from @ts at the earliest. */
struct pin {
	uint32_t job;
	uint64_t ts;
};

/* Summary of the selected jobs of one ring or one context. */
struct group {
	uint64_t jobs;
	struct pctl metric[NR_METRICS];
	uint64_t labels[NR_LABELS];
	/* Union of [start, end] of the jobs, within the window. */
	struct ival *iv;
	uint32_t niv, iv_cap;
	struct pin *pins;
	uint32_t npins, pins_cap;
	uint64_t busy_folded;
	uint64_t frontier;	/* nothing before this is added again */
	/* First start and last end of its busy time: its active window. */
	uint64_t span_start, span_end;
	/* Rings: busy ns per --interval, [k] from win_start + k x interval. */
	uint64_t *tl;
	uint32_t ntl, tl_cap;
	int timeline;
	/* Jobs committed but not ended, integrated over time. */
	uint64_t depth;
	uint64_t depth_max;
	uint64_t depth_last;	/* time of the last change */
	double depth_area;	/* depth x ns */
};

/* --why: a job a ring ran, [start, end], by process @wp. */
struct why_exec {
	uint64_t start;
	uint64_t end;
	uint32_t wp;
};

struct ring {
	uint32_t ring_id;
	uint16_t engine;
	uint16_t instance;
	int described;		/* by a METADATA or RING record */
	char driver[sizeof(((struct gr_ring *)0)->driver)];
	char device[sizeof(((struct gr_ring *)0)->device)];
	char name[sizeof(((struct gr_ring *)0)->name)];
	int have_last_end;
	uint64_t last_end;	/* latest END of any job on the ring */
	uint32_t rq_head;	/* jobs committed, not ended: oldest first */
	uint32_t rq_tail;
	uint32_t rq_len;
	/* A job started long before the end and never ended (rp_finish()). */
	int hung;
	uint64_t hung_ctx;
	uint64_t hung_seqno;
	uint64_t hung_since;
	uint32_t hung_behind;	/* jobs committed behind it, not ended */
	uint32_t running;	/* jobs started, not ended, at the end */
	int ended;		/* an END was read on it */
	uint64_t rq_closed;	/* closed early: too many committed, not ended */
	/* --why: the last jobs it ran, a circular buffer in END order. */
	struct why_exec *wx;
	uint32_t wx_head, wx_n;
	struct group g;
};

/*
 * --per-process: the jobs a process submitted (rp_submitter()); pid
 * PROC_NONE holds the jobs without submitter data.
 */
#define PROC_NONE	UINT32_MAX
struct proc {
	uint32_t pid;
	uint32_t threads;	/* its submitting threads seen */
	uint32_t clients;	/* its DRM clients seen */
	const char *name;	/* from the client or task table, or NULL */
	struct group g;		/* metrics and labels only */
};

/* --per-engine: the jobs of an engine class, all its rings together. */
struct eng {
	uint16_t engine;
	uint32_t rings;		/* rings that ran a selected job */
	struct group g;		/* metrics and labels only */
};

struct ctx {
	uint64_t ctx;
	int have_seqno;
	uint64_t max_seqno;	/* highest seqno since the last wrap */
	int have_done;
	uint64_t max_done;	/* latest seqno that ended (END or COMPLETE) */
	struct group *g;	/* with --per-ctx only */
};

/* Dependencies a job keeps: the first ones it waited on (a sink with RP_SINK_DEPS). */
#define RP_DEPS	2

/* A dependency wait of a job: the fence waited on, and when. */
struct dep {
	uint64_t ctx;
	uint64_t seqno;
	uint64_t enter;
	uint64_t exit;		/* 0: still open */
};

/*
 * --why (report-why.c): where a job's wait from SUBMIT to its start went.
 * A process of the why tables: its pid (PROC_NONE: no submitter data;
 * PROC_OTHER: in --per-process's waited_behind, the processes a job
 * waited behind past the RP_BEHIND it names, its behind_rest) and name.
 */
#define PROC_OTHER	(UINT32_MAX - 1)
struct wproc {
	uint32_t pid;
	const char *name;	/* the process's, else the thread's, or NULL */
};

/* The processes a job waited behind, most first; the rest summed. */
#define RP_BEHIND	8

struct why_share {
	uint32_t wp;		/* index in rp->wps */
	uint64_t ns;
};

struct why {
	uint8_t have;		/* SUBMIT and start known, in order */
	uint8_t dep;		/* @dep_* name the dependency waited for */
	uint8_t dep_known;	/* ... whose job is in the trace (@dep_ring, @dep_wp) */
	uint8_t unresolved;	/* waits whose signal was never seen */
	uint64_t dep_ns, sched_ns, ring_ns;
	uint64_t dep_ctx, dep_seqno;
	uint32_t dep_ring;	/* index in rp->rings */
	uint32_t dep_wp;
	uint32_t wp;		/* the job's own process */
	uint32_t nbehind;
	uint64_t behind_rest;	/* ns of the processes past RP_BEHIND */
	struct why_share behind[RP_BEHIND];
};

/*
 * A finished job: everything the output and the summaries need.  make_row()
 * sets every field, without a memset(): a new one goes there too.
 */
struct row {
	uint64_t ctx;
	uint64_t seqno;
	uint32_t ring;		/* index in rp->rings */
	uint16_t engine;
	uint8_t have;		/* bit per ST_* */
	uint8_t start_derived;
	uint8_t derived;	/* bit per ST_*: written with the stamp before */
	uint8_t mhave;		/* bit per M_* */
	uint8_t labels;		/* bit per L_* */
	uint64_t ts[NR_STAMPS];
	uint64_t m[NR_METRICS];
	uint32_t preempts;
	uint32_t errors;
	int64_t error;		/* aux0 of the last ERROR: a negative errno */
	uint32_t qsize;		/* ring queue depth at COMMIT, itself included */
	uint64_t first_gseq;
	uint8_t has_task;	/* its SUBMIT said who submitted it */
	uint8_t ndeps;		/* @dep used, at most RP_DEPS */
	uint8_t has_client;	/* its SUBMIT named its DRM client */
	uint32_t pid;
	uint32_t tid;
	uint32_t waits;		/* dependency waits, @dep's and any more */
	uint64_t client;	/* the DRM client id */
	struct dep dep[RP_DEPS];
	struct why why;		/* with --why only: else why.have is 0 */
};

/*
 * Who submitted a job (rp_submitter()): the process holding its DRM client
 * when the client table names it, else the task that ran its SUBMIT.
 */
struct submitter {
	const struct grf_client *client;	/* the client's entry, or NULL */
	uint32_t pid;		/* the process */
	uint32_t tid;		/* the SUBMIT's thread; 0 with @client */
	const char *process;	/* the process's name, or NULL */
	const char *comm;	/* the thread's name, or NULL; NULL with @client */
};

/* A slot of the open job table: the job, and its hash to probe by. */
struct hslot {
	uint32_t job;		/* index in rp->jobs, or NIL */
	uint32_t hash;
};

/* A direct-mapped cache of id -> index lookups. */
#define MAP_CACHE_BITS	8

struct map_cache {
	uint64_t key;
	uint32_t idx;		/* NIL: empty */
};

/* log2 buckets: [0] holds 0, [k] holds values of bit length k. */
#define LOG2_BUCKETS	65

/* A job whose COMPLETE came before its END, waiting for the END. */
struct held {
	uint32_t job;
	uint32_t tag;		/* the job's held tag when it was held */
	uint64_t due;		/* finished without END once the input is past */
};

/*
 * A flight recorder's snapshot: its TRIGGER, each CPU's RECORDER, and
 * what rp_finish() found of the hung job (report.c, fr_settle()).
 */
#define RP_FR_BEHIND	16	/* jobs queued behind the hung one, listed */

struct fr_cpu {
	struct gr_recorder acc;
	uint64_t head_gap;	/* cseq gap after its fresh STREAM_INFO, METADATA */
	uint64_t tail_gap;	/* cseq gap just before its RECORDER */
	uint64_t lost;		/* of the two, what the accounting does not cover */
};

/* A job of the snapshot as rp_finish() found it open. */
struct fr_job {
	uint64_t ctx;
	uint64_t seqno;
	uint8_t have;		/* bit per ST_* */
	uint64_t ts[NR_STAMPS];
};

struct fr {
	uint64_t triggers;	/* TRIGGER records read (one per snapshot) */
	struct gr_trigger trig;	/* the first */
	struct fr_cpu *cpus;	/* by RECORDER record read */
	uint32_t ncpus;
	uint64_t overwritten;	/* head gaps: overwritten, not lost */
	uint64_t dropped;	/* tail gaps: dropped at the freeze, not lost */
	uint64_t unbalanced;	/* CPUs whose accounting does not add up */
	/* rp_finish(): the trigger's ring, its hung job, what queued behind. */
	uint32_t ring;		/* index in rp->rings, or NIL */
	int hung;		/* the hung job was found open */
	struct fr_job job;	/* ... it, or the key the TRIGGER named */
	int ran_from;		/* ST_START or ST_COMMIT: its run began; -1 */
	uint64_t ran_ns;	/* from then to the trigger */
	uint32_t nbehind;	/* committed behind it and not ended */
	struct fr_job behind[RP_FR_BEHIND];	/* the first, by COMMIT */
	uint64_t open_at_end;	/* jobs open when the input ended, not done */
};

/* Timestamps out of gseq order by less than this are routine (report-out.c). */
#define RP_TS_BACK_WARN_NS	1000000ULL

struct rp {
	struct rp_opts o;
	FILE *out;
	char errmsg[GR_ERRMSG_LEN];

	/* The input, for the header. */
	uint64_t records;
	uint64_t by_type[GRTRACE_EV_NR_JOB_TYPES];
	uint64_t stream_infos, metadatas, ring_recs, unknown;
	int have_first;
	uint64_t t0;		/* ts of the first record */
	uint64_t ts_max;
	uint64_t gseq_min, gseq_max, gseq_prev;
	/*
	 * The gseq note_header() takes without a look at the rest: the one
	 * after @gseq_max, when that came last; 0 when the rest must be
	 * looked at (no record yet, gseq off).
	 */
	uint64_t gseq_fast;
	uint64_t gseq_gaps;	/* forward jumps in gseq */
	uint64_t gseq_late;	/* records at or below the gseq before */
	int gseq_off;		/* a session without FEAT_GSEQ: no loss count */
	/*
	 * Format 2 (or FEAT_CSEQ_LOSS): a record lost to a full buffer takes
	 * its CPU's cseq, so loss is the sum of the gaps in each CPU's cseq.
	 */
	int cseq_loss;
	uint64_t cseq_lost, cseq_gaps;
	uint64_t *lost_cpu;	/* by CPU: the records it lost */
	uint32_t lost_ncpu, lost_cap;	/* highest CPU + 1; entries allocated */
	uint64_t *cseq_next;	/* by CPU: the cseq expected next, + 1; 0 none */
	uint32_t cseq_ncpu, cseq_cap;	/* the same, of the four cseq arrays */
	/*
	 * By CPU: 1 while its records since its STREAM_INFO are a session's
	 * description only; the first cseq gap after it (a flight recorder's
	 * overwritten records, if a RECORDER comes) is held in @head_gap,
	 * counted lost only if no RECORDER accounts for it.
	 */
	uint8_t *cseq_head;
	uint64_t *head_gap;
	uint64_t *head_gap_ts;
	struct fr fr;
	uint64_t jobs_no_submit;	/* finished jobs without their SUBMIT */
	/* The file's CPU tails, and what they showed lost (in cseq_lost). */
	const struct grf_tail *tails;
	size_t ntails;
	/* Its CPU heads, and what they showed lost (in cseq_lost). */
	const struct grf_tail *heads;
	size_t nheads;
	/*
	 * @heads by CPU, built at first use: entry + 1 of the CPU's one
	 * head, 0 for none, HEAD_TWICE when it has more than one.
	 */
	uint32_t *head_of;
	uint32_t head_of_n;
	uint64_t head_lost;
	uint64_t tail_lost;
	/* Parts of the input with their own gseq (rp_restart()). */
	uint64_t restarts;
	uint64_t part_rec0;	/* @records before the current part */
	uint64_t lost_before;	/* records lost in the parts before */
	uint64_t gseq_lo, gseq_hi;	/* gseq range of the parts before */
	uint64_t closed_at_restart;	/* jobs still open at a restart */
	uint64_t ts_back;	/* records with a ts below the highest before */
	uint64_t ts_back_max;	/* ... by this much at most */
	uint16_t version_max;
	uint64_t seqno_wraps;
	uint64_t key_reuse;	/* an event a job already had: a new job */
	uint64_t key_reuse_done;	/* a SUBMIT of a seqno seen before */
	uint64_t self_waits;	/* SYNC_WAIT_ENTERs on the job's own key */
	uint64_t summaries;	/* jobs from JOB_SUMMARY records */
	uint64_t summaries_open;	/* ... that were given up open */
	uint64_t summary_threshold;	/* the last summary's threshold, ns */
	uint64_t inconsistent;	/* metrics left NA: events out of order */
	uint64_t late_start;	/* START after END: ignored */
	uint64_t no_start;	/* END too early to derive the start from */
	/* Metrics left NA: their second stamp was written with the first. */
	uint64_t derived_na[NR_METRICS];
	uint64_t rings_hung;	/* a job ran hang_ms and never ended */
	uint64_t busy_forced;	/* busy intervals folded past a pin */
	uint64_t ctx_forgets;	/* the context table reset (no --per-ctx) */
	uint64_t tl_dropped;	/* busy ns past the timeline's last interval */
	uint64_t complete_first;	/* COMPLETE read before its END */
	uint64_t complete_alone;	/* COMPLETE whose END never came */
	/* Jobs held by their COMPLETE for their END: a FIFO. */
	struct held *held;
	uint32_t held_head, nheld, held_cap, held_tag;

	/* The window: [t0 + since, t0 + until or the last ts]. */
	uint64_t win_start;
	uint64_t win_until;

	/* Rings: the current ring id -> ring table, and all rings seen. */
	struct ring *rings;
	uint32_t nrings, rings_cap;
	struct u64map *ring_map;
	struct ctx *ctxs;
	uint32_t nctxs, ctxs_cap;
	struct u64map *ctx_map;
	/* Recent lookups in the two maps: a job event needs both. */
	struct map_cache ring_cache[1u << MAP_CACHE_BITS];
	struct map_cache ctx_cache[1u << MAP_CACHE_BITS];

	/* Open jobs: a pool, a hash by ctx:seqno, and a list by age. */
	struct job *jobs;
	uint32_t jobs_cap;
	uint32_t free_job;
	struct hslot *hash;
	uint32_t hash_mask;
	uint64_t open;
	uint64_t open_max;
	uint32_t lru_head, lru_tail;

	/* Submitters: the task table, and --per-process's groups. */
	const struct grf_task *tasks;
	size_t ntasks;
	unsigned int task_frames;
	struct proc *procs;
	uint32_t nprocs, procs_cap;
	struct u64map *proc_map;	/* pid -> index in @procs */
	struct u64map *proc_tids;	/* tids counted in a proc's threads */
	uint64_t jobs_no_task;	/* finished jobs without submitter data */
	/* The client table, and the finished jobs that carry a client id. */
	const struct grf_client *clients;
	size_t nclients;
	unsigned int client_frames;
	const char *clients_none;	/* why the input names none */
	struct u64map *proc_clients;	/* ids counted in a proc's clients */
	uint64_t jobs_client;	/* ... a client id */
	uint64_t jobs_client_unnamed;	/* ... one the table does not name */
	uint64_t jobs_by_task;	/* ... attributed to their SUBMIT's task */

	/*
	 * --per-engine's groups, in the order met (by class once
	 * rp_finish() sorts them); rings counted once each.
	 */
	struct eng *engs;
	uint32_t nengs, engs_cap;
	struct u64map *eng_map;		/* class -> index in @engs */
	struct u64map *eng_rings;	/* ring id -> 1 once counted */

	/* The selected, finished jobs. */
	uint64_t jobs_done;
	uint64_t jobs_incomplete;
	uint64_t jobs_evicted;
	uint64_t label_hits[NR_LABELS];
	uint64_t hist[LOG2_BUCKETS];
	struct row *top;	/* a min-heap of the --topn slowest */
	unsigned int ntop;

	/* Output state. */
	uint64_t rows_out;
	FILE *spool;		/* text: job rows, printed after the summary */
	char *rowbuf;		/* job rows not yet written to @rowfile */
	size_t rowlen;
	FILE *rowfile;		/* @spool, or @out */
	void *sink_state;	/* the sink's own (sink.h) */

	/* --why (report-why.c). */
	struct wproc *wps;
	uint32_t nwps, wps_cap;
	struct u64map *wp_map;		/* pid -> index in @wps */
	struct why_done *wdone;		/* jobs ended lately, by key hash */
	uint64_t why_jobs;		/* rows with a why */
	uint64_t why_dep_lost;		/* ... whose dependency's job is not in the trace */
	uint64_t why_unresolved;	/* ... with a wait whose signal was never seen */
	uint64_t why_short;		/* ... whose ring history did not reach back */
	uint64_t late_exits;		/* SYNC_WAIT_EXITs of no open job: dropped */
	/* --per-process --why: ns waited, by (waiter, holder, ring). */
	struct why_wb *wbs;
	uint32_t nwbs, wbs_cap;
	struct u64map *wb_map;
	/* --critical-path: every finished job's why, by key. */
	struct why_node *cp;
	uint32_t ncp, cp_cap;
	struct u64map *cp_map;
	uint32_t *slowest;		/* by wp: index in @cp of its slowest job */
	uint32_t nslowest;
};

/* A job that ended, for the jobs that depend on it. */
struct why_done {
	uint64_t ctx, seqno;
	uint64_t end;			/* 0: empty */
	uint32_t ring, wp;
};

struct why_wb {
	uint32_t waiter, holder, ring;
	uint64_t ns;
};

/* A finished job in the critical path's table: 104 bytes, the why in brief. */
struct why_node {
	uint64_t ctx, seqno;
	uint64_t total;			/* t_total, for "slowest" */
	uint64_t submit, start;
	uint64_t dep_ctx, dep_seqno;	/* with @dep */
	uint64_t dep_ns, sched_ns, ring_ns;
	int64_t prev;			/* the last before it with its key, or -1 */
	uint32_t ring, wp;
	uint32_t part;			/* rp->restarts when it finished */
	uint8_t dep;
};

/* report-why.c */
void why_init(struct rp *rp);
void why_free(struct rp *rp);
/* A new part of the input: its keys and clock are not the old part's. */
void why_restart(struct rp *rp);
/* The process of a job with this submitter data: an index in rp->wps. */
uint32_t why_wp(struct rp *rp, int has_task, uint32_t pid, uint32_t tid,
		int has_client, uint64_t client);
/* A job ended on ring @ring: remember it for its dependents and the ring. */
void why_ended(struct rp *rp, uint64_t ctx, uint64_t seqno, uint32_t ring,
	       uint32_t wp, uint64_t start, int have_start, uint64_t end);
/* The job that signalled fence @ctx:@seqno: its entry, or NULL. */
const struct why_done *why_find(const struct rp *rp, uint64_t ctx,
				uint64_t seqno);
/*
 * A finished job the filters (--ring, --since, ...) left out: a node of
 * the critical paths all the same, which a selected job may wait on.
 */
void why_node_only(struct rp *rp, const struct row *row);
/* Fill @row->why from its stamps, @dep_sig and the ring's history. */
void why_row(struct rp *rp, struct row *row, uint32_t wp);
/* A finished row with a why: the per-process and critical-path tables. */
void why_account(struct rp *rp, const struct row *row);
/* "comm/pid" of process @wp into @buf. */
void why_wp_str(const struct rp *rp, uint32_t wp, char *buf, size_t len);
/* report-out.c: "comm/pid:ns|...|other:ns", whose jobs a wait was behind. */
void why_behind_str(const struct rp *rp, const struct why *w, char *buf,
		    size_t len);
/* The critical paths asked for, as text or JSON, to rp->out. */
void why_critical_text(struct rp *rp);
void why_critical_json(struct rp *rp);
/*
 * Each hop of each critical path asked for: @nd NULL for a job not in the
 * trace (the last hop of its path), named by @ctx:@seqno; @by the hop
 * before, the job it held up (its dep_ns the wait this hop caused), NULL
 * for the first.
 */
typedef void why_hop_fn(struct rp *rp, uint32_t path, uint32_t hop,
			const struct why_node *nd, uint64_t ctx,
			uint64_t seqno, const struct why_node *by);
void why_critical_each(struct rp *rp, why_hop_fn *fn);
/*
 * Process @pid's waited_behind list, most first but the PROC_OTHER entry,
 * if any, last: count into *@n (malloc'd).
 */
struct why_wb *why_waited(const struct rp *rp, uint32_t pid, uint32_t *n,
			  int by_ring);

/* report.c: the task table's entry for thread @tid, or NULL. */
const struct grf_task *rp_task(const struct rp *rp, uint32_t tid);
/* The client table's entry for DRM client @id, or NULL. */
const struct grf_client *rp_client(const struct rp *rp, uint64_t id);
/* Who submitted @row, into @s: 1, or 0 when nothing says. */
int rp_submitter(const struct rp *rp, const struct row *row,
		 struct submitter *s);

/* report-group.c */
void group_add_busy(struct rp *rp, struct group *g, uint64_t start,
		    uint64_t end);
/* Job @job may add a busy interval from @ts on: keep it apart till then. */
void group_pin(struct group *g, uint32_t job, uint64_t ts);
void group_unpin(struct group *g, uint32_t job);
/* The input is read: put the intervals still apart into the timeline. */
void group_settle(struct rp *rp, struct group *g);
/* Active window, and saturated intervals: see report-group.c. */
uint64_t group_active(const struct group *g);
uint64_t ring_saturated(struct rp *rp, const struct ring *r, char *buf,
			size_t len);
uint64_t group_busy(const struct group *g);
/* @ns as "123 ns", "12.3 us", "1.23 ms" or "1.234 s". */
void fmt_ns(char *buf, size_t len, uint64_t ns);
/* "ring N NAME hung: ..." into @buf if the ring hung: 1, else 0. */
int ring_hung(struct rp *rp, struct ring *r, char *buf, size_t len);
/* A finished job's row counts in each of the @n groups @gs. */
void group_add_row(struct group *const *gs, unsigned int n,
		   const struct row *row);

/* Queue depth: every COMMIT and END of a job calls this, so it is inline. */
static inline void group_depth(struct rp *rp, struct group *g, uint64_t ts,
			       int delta)
{
	uint64_t from = g->depth_last > rp->win_start ? g->depth_last :
			rp->win_start;
	uint64_t to = ts < rp->win_until ? ts : rp->win_until;

	if (to > from)
		g->depth_area += (double)g->depth * (double)(to - from);
	if (ts > g->depth_last)
		g->depth_last = ts;
	if (delta > 0)
		g->depth++;
	else if (delta < 0 && g->depth)
		g->depth--;
	if (g->depth > g->depth_max)
		g->depth_max = g->depth;
}

void group_free(struct group *g);
uint64_t rp_records_lost(const struct rp *rp);
uint64_t rp_gseq_first(const struct rp *rp);
uint64_t rp_gseq_last(const struct rp *rp);
uint64_t rp_window_end(const struct rp *rp);
uint64_t rp_window(const struct rp *rp);
/*
 * A hint for @r into @buf: 1 when the ring is saturated (a bottleneck),
 * 2 when its jobs queue longer than they run though it is not (bursts),
 * 0 when it looks fine.
 */
int ring_hint(struct rp *rp, struct ring *r, char *buf, size_t len);

/* output.c */
/* A warning to the caller's opts.warn, if any: the library prints nothing. */
void rp_warn(struct rp *rp, const char *fmt, ...) GR_PRINTF(2, 3);
/* 0, or -1 with rp->errmsg set. */
int out_begin(struct rp *rp);
void out_row(struct rp *rp, const struct row *row);
int out_end(struct rp *rp, const struct rp_input *in);

#endif /* GRTRACE_REPORT_INT_H */
