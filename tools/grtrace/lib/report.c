// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report: the engine.  Follows every job from its first event to
 * its COMPLETE, then turns it into a row (report-out.c) and into the
 * summaries of its ring and context (report-group.c).
 *
 * A job is named by ctx:seqno.  It is finished by its COMPLETE, by an
 * event it already had (the key was reused: a new job starts), by the
 * --max-open limit (the oldest open job goes), or by the end of the input.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "trace-file.h"
#include "u64map.h"

/* A CTX_SWITCH looks this far into a ring's queue for the job it stops. */
#define PREEMPT_SCAN	64

/* job_new() sets every field, without a memset(): a new one goes there too. */
struct job {
	uint64_t ctx;
	uint64_t seqno;
	uint64_t ts[NR_STAMPS];
	uint64_t wait_union;	/* time with at least one wait open, closed */
	uint64_t wait_since;	/* when the open waits began */
	uint32_t nenter, nexit;
	uint8_t wait_bad;	/* an EXIT with no wait open, or before it */
	uint64_t first_gseq;
	uint32_t hash;		/* job_hash(): the table is never wider */
	uint32_t ring, ctxo;
	uint32_t lru_prev, lru_next;	/* open jobs, oldest first */
	uint32_t rq_prev, rq_next;	/* its ring's queue */
	uint32_t qsize;
	uint32_t preempts;
	uint32_t errors;
	int64_t error;
	uint16_t engine;
	uint8_t have;		/* bit per ST_* */
	uint8_t selected;	/* passes the filters: summarised and printed */
	uint8_t start_derived;
	uint8_t derived;	/* bit per ST_*: written with the event before */
	uint8_t in_rq;
	uint8_t in_depth;	/* counted in its groups' queue depth */
	uint32_t held;		/* its tag in rp->held, or 0 */
	uint8_t pinned;		/* PIN_*: in its groups' pins */
	uint8_t has_task;	/* pid and tid from its SUBMIT */
	uint8_t ndeps;
	uint8_t has_client;	/* @client from its SUBMIT */
	uint32_t pid, tid;
	uint32_t waits;
	uint64_t client;
	struct dep dep[RP_DEPS];	/* for a sink with RP_SINK_DEPS only */
	/* --why: the dependency that signalled last, and when. */
	uint64_t dsig;
	uint64_t dctx, dseq;
	uint32_t dring, dwp;
	uint32_t wp;		/* its process (rp->wps), from its END; NIL */
	uint16_t dres;		/* waits resolved at their ENTER */
	uint8_t dhave, dknown;
};

/* The groups a job is pinned in (group_pin()). */
enum { PIN_RING = 1, PIN_CTX = 2 };

/* The stamps are the first event types, in the same order. */
_Static_assert(ST_SUBMIT == 0 &&
	       GRTRACE_EV_COMMIT - GRTRACE_EV_SUBMIT == ST_COMMIT &&
	       GRTRACE_EV_START - GRTRACE_EV_SUBMIT == ST_START &&
	       GRTRACE_EV_END - GRTRACE_EV_SUBMIT == ST_END &&
	       GRTRACE_EV_COMPLETE - GRTRACE_EV_SUBMIT == ST_COMPLETE,
	       "stamps follow the event types");

/* The ST_* an event type stamps, or -1. */
static inline int stamp_of_type(uint16_t type)
{
	return type >= GRTRACE_EV_SUBMIT && type <= GRTRACE_EV_COMPLETE ?
	       type - GRTRACE_EV_SUBMIT : -1;
}

/* ---- rings and contexts ------------------------------------------------------- */

/* The entry of @key in a cache of map lookups: the top bits of a product. */
static inline struct map_cache *cache_of(struct map_cache *c, uint64_t key)
{
	return &c[(key * 0x9e3779b97f4a7c15ULL) >> (64 - MAP_CACHE_BITS)];
}

/* Ring id @ring_id is ring @i now: the map, and its cache. */
static void ring_map_set(struct rp *rp, uint32_t ring_id, uint32_t i)
{
	u64map_set(rp->ring_map, ring_id, i);
	*cache_of(rp->ring_cache, ring_id) = (struct map_cache){ ring_id, i };
}

static uint32_t new_ring(struct rp *rp, uint32_t ring_id, uint16_t engine)
{
	struct ring *r;

	if (rp->nrings == rp->rings_cap) {
		rp->rings_cap = rp->rings_cap ? rp->rings_cap * 2 : 16;
		rp->rings = xrealloc(rp->rings, rp->rings_cap * sizeof(*r));
	}
	r = &rp->rings[rp->nrings];
	memset(r, 0, sizeof(*r));
	r->ring_id = ring_id;
	r->engine = engine;
	r->rq_head = r->rq_tail = NIL;
	r->g.timeline = 1;
	ring_map_set(rp, ring_id, rp->nrings);
	return rp->nrings++;
}

/* The ring an event names: from the ring table, or a ring without a name. */
static uint32_t ring_for(struct rp *rp, uint32_t ring_id, uint16_t engine)
{
	struct map_cache *e = cache_of(rp->ring_cache, ring_id);
	int64_t i;

	if (e->idx != NIL && e->key == ring_id)
		return e->idx;
	i = u64map_get(rp->ring_map, ring_id);
	if (i < 0)
		return new_ring(rp, ring_id, engine);
	*e = (struct map_cache){ ring_id, (uint32_t)i };
	return (uint32_t)i;
}

static int same_desc(const struct ring *r, const struct gr_ring *d)
{
	return r->described && r->ring_id == d->ring_id &&
	       r->engine == d->engine && r->instance == d->instance &&
	       !strcmp(r->driver, d->driver) && !strcmp(r->device, d->device) &&
	       !strcmp(r->name, d->name);
}

/*
 * A ring described by METADATA or RING.  The same description again (the
 * next session) continues the same ring; a ring id reused for another ring
 * starts a new one.
 */
static void describe_ring(struct rp *rp, const struct gr_ring *d)
{
	struct ring *r;
	uint32_t i;

	for (i = 0; i < rp->nrings; i++) {
		if (same_desc(&rp->rings[i], d)) {
			ring_map_set(rp, d->ring_id, i);
			return;
		}
	}
	i = new_ring(rp, d->ring_id, d->engine);
	r = &rp->rings[i];
	r->described = 1;
	r->instance = d->instance;
	memcpy(r->driver, d->driver, sizeof(r->driver));
	memcpy(r->device, d->device, sizeof(r->device));
	memcpy(r->name, d->name, sizeof(r->name));
}

static void on_metadata(struct rp *rp, const struct gr_rec *rec)
{
	struct gr_metadata md;
	struct gr_ring d;
	uint32_t i;

	rp->metadatas++;
	if (gr_decode_metadata(rec, &md) < 0)
		return;
	/* A new session: rings not listed again were unregistered. */
	u64map_clear(rp->ring_map);
	memset(rp->ring_cache, 0xff, sizeof(rp->ring_cache));
	for (i = 0; i < md.nr_rings; i++)
		if (gr_decode_metadata_ring(rec, &md, i, &d) == 0)
			describe_ring(rp, &d);
}

/*
 * Without --per-ctx a context is only its seqno history (note_seqno()),
 * and the table is forgotten every CTX_FORGET contexts: memory stays
 * bounded however many contexts the trace has, at the cost of a seqno
 * reuse across the reset going unseen.
 */
#define CTX_FORGET	(1u << 18)

static void ctx_forget(struct rp *rp)
{
	rp->ctx_forgets++;
	rp->nctxs = 0;
	u64map_clear(rp->ctx_map);
	memset(rp->ctx_cache, 0xff, sizeof(rp->ctx_cache));
}

static uint32_t ctx_for(struct rp *rp, uint64_t ctx)
{
	struct map_cache *e = cache_of(rp->ctx_cache, ctx);
	struct ctx *c;
	int64_t i;

	if (e->idx != NIL && e->key == ctx)
		return e->idx;
	i = u64map_get(rp->ctx_map, ctx);
	if (i >= 0) {
		*e = (struct map_cache){ ctx, (uint32_t)i };
		return (uint32_t)i;
	}
	if (rp->nctxs == CTX_FORGET && !rp->o.per_ctx) {
		ctx_forget(rp);
		e = cache_of(rp->ctx_cache, ctx);
	}
	if (rp->nctxs == rp->ctxs_cap) {
		rp->ctxs_cap = rp->ctxs_cap ? rp->ctxs_cap * 2 : 16;
		rp->ctxs = xrealloc(rp->ctxs, rp->ctxs_cap * sizeof(*c));
	}
	c = &rp->ctxs[rp->nctxs];
	memset(c, 0, sizeof(*c));
	c->ctx = ctx;
	if (rp->o.per_ctx) {
		c->g = xmalloc(sizeof(*c->g));
		memset(c->g, 0, sizeof(*c->g));
	}
	u64map_set(rp->ctx_map, ctx, rp->nctxs);
	*e = (struct map_cache){ ctx, rp->nctxs };
	return rp->nctxs++;
}

/*
 * Fence seqnos of a context grow; one that falls back by more than half
 * of the u32 range (where most drivers keep them) wrapped around.  Returns
 * 1 when @seqno is not above the highest since the last wrap.
 */
static int note_seqno(struct rp *rp, struct ctx *c, uint64_t seqno)
{
	int old = c->have_seqno && seqno <= c->max_seqno;

	if (old && c->max_seqno - seqno > (1ull << 31)) {
		rp->seqno_wraps++;
		c->max_seqno = seqno;
		old = 0;
	} else if (!old) {
		c->max_seqno = seqno;
	}
	c->have_seqno = 1;
	return old;
}

/* @a comes after @b in a context's seqnos, which may wrap at 32 bits. */
static inline int seqno_after(uint64_t a, uint64_t b)
{
	return a > b ? a - b <= (1ull << 31) : b - a > (1ull << 31);
}

/* The job ended: fences of one context signal in seqno order. */
static inline void note_done(struct rp *rp, const struct job *j)
{
	struct ctx *c = &rp->ctxs[j->ctxo];

	if (c->ctx != j->ctx)
		return;		/* the table was forgotten since */
	if (!c->have_done || seqno_after(j->seqno, c->max_done))
		c->max_done = j->seqno;
	c->have_done = 1;
}

/* ---- the table of open jobs ----------------------------------------------------- */

/*
 * One multiply: seqnos of a context are consecutive, and the middle bits
 * of the product (the table index) spread them well enough.
 */
static inline uint32_t job_hash(uint64_t ctx, uint64_t seqno)
{
	return (uint32_t)(((ctx * 0x9e3779b97f4a7c15ULL) ^ seqno) *
			  0xff51afd7ed558ccdULL >> 32);
}

/*
 * The slot of ctx:seqno, whose job_hash() is @h: its job's, or a free one.
 * The slot holds the hash: a probe looks at a job only when that matches.
 */
static inline struct hslot *hash_slot(struct rp *rp, uint32_t h, uint64_t ctx,
				      uint64_t seqno)
{
	uint32_t i = h & rp->hash_mask;

	for (;; i = (i + 1) & rp->hash_mask) {
		struct hslot *s = &rp->hash[i];

		if (s->job == NIL ||
		    (s->hash == h && rp->jobs[s->job].ctx == ctx &&
		     rp->jobs[s->job].seqno == seqno))
			return s;
	}
}

static void hash_resize(struct rp *rp, uint64_t size)
{
	struct hslot *old = rp->hash;
	uint64_t i, old_size = old ? (uint64_t)rp->hash_mask + 1 : 0;

	rp->hash = xmalloc(size * sizeof(*rp->hash));
	memset(rp->hash, 0xff, size * sizeof(*rp->hash));
	rp->hash_mask = (uint32_t)(size - 1);
	for (i = 0; i < old_size; i++) {
		if (old[i].job != NIL) {
			uint32_t k = old[i].hash & rp->hash_mask;

			/* Keys are distinct: the first free slot is its own. */
			while (rp->hash[k].job != NIL)
				k = (k + 1) & rp->hash_mask;
			rp->hash[k] = old[i];
		}
	}
	free(old);
}

/* Linear probing without tombstones: pull the followers back. */
static void hash_remove(struct rp *rp, struct hslot *slot)
{
	uint32_t i = (uint32_t)(slot - rp->hash), j = i;

	rp->hash[i].job = NIL;
	for (;;) {
		uint32_t home;

		j = (j + 1) & rp->hash_mask;
		if (rp->hash[j].job == NIL)
			return;
		home = rp->hash[j].hash & rp->hash_mask;
		/* Leave it if its home lies cyclically in (i, j]. */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		rp->hash[i] = rp->hash[j];
		rp->hash[j].job = NIL;
		i = j;
	}
}

static uint32_t job_alloc(struct rp *rp)
{
	uint32_t i, n;

	if (rp->free_job == NIL) {
		n = rp->jobs_cap ? rp->jobs_cap * 2 : 64;
		rp->jobs = xrealloc(rp->jobs, n * sizeof(*rp->jobs));
		for (i = rp->jobs_cap; i < n; i++)
			rp->jobs[i].lru_next = i + 1 < n ? i + 1 : NIL;
		rp->free_job = rp->jobs_cap;
		rp->jobs_cap = n;
	}
	i = rp->free_job;
	rp->free_job = rp->jobs[i].lru_next;
	return i;
}

static int job_selected(const struct rp *rp, const struct gr_job *ev,
			uint64_t ts)
{
	const struct rp_opts *o = &rp->o;

	return (!o->has_ring || ev->ring_id == o->ring) &&
	       (!o->has_ctx || ev->ctx == o->ctx) &&
	       (!o->has_engine ||
		(ev->engine < 64 && (o->engines >> ev->engine & 1))) &&
	       (!o->has_since || ts >= rp->win_start) &&
	       (!o->has_until || ts < rp->win_until);
}

/*
 * A job for ctx:seqno; *@slotp is its free slot from the lookup, or NULL
 * when that moved since.  On return *@slotp is the job's slot.  @reopen:
 * the key's open job was closed just now (counted as key_reuse).
 */
static uint32_t job_new(struct rp *rp, const struct gr_job *ev,
			const struct gr_rec *rec, uint32_t h,
			struct hslot **slotp, int reopen)
{
	uint32_t i, ring, ctxo;
	struct job *j;

	if (2 * (rp->open + 1) > (uint64_t)rp->hash_mask + 1) {
		hash_resize(rp, 2 * ((uint64_t)rp->hash_mask + 1));
		*slotp = NULL;
	}
	i = job_alloc(rp);
	ring = ring_for(rp, ev->ring_id, ev->engine);
	ctxo = ctx_for(rp, ev->ctx);
	/*
	 * A job's first event in the trace is its SUBMIT, and its seqno is
	 * new: unless the key named a job before, which has finished.
	 */
	if (note_seqno(rp, &rp->ctxs[ctxo], ev->seqno) && !reopen &&
	    rec->type == GRTRACE_EV_SUBMIT)
		rp->key_reuse_done++;
	/*
	 * Every field, without a memset() first: GCC makes that "rep stos",
	 * slow to start on CPUs without fast short string stores.
	 */
	j = &rp->jobs[i];
	j->ctx = ev->ctx;
	j->seqno = ev->seqno;
	memset(j->ts, 0, sizeof(j->ts));
	j->wait_union = j->wait_since = 0;
	j->wait_bad = 0;
	j->nenter = j->nexit = 0;
	j->first_gseq = rec->gseq;
	j->hash = h;
	j->ring = ring;
	j->ctxo = ctxo;
	j->lru_prev = rp->lru_tail;
	j->lru_next = NIL;
	j->rq_prev = j->rq_next = NIL;
	j->qsize = j->preempts = j->errors = 0;
	j->error = 0;
	j->engine = ev->engine;
	j->have = 0;
	j->selected = job_selected(rp, ev, rec->ts);
	j->start_derived = j->derived = j->in_rq = j->in_depth = 0;
	j->held = 0;
	j->pinned = 0;
	j->has_task = j->ndeps = j->has_client = 0;
	j->pid = j->tid = j->waits = 0;
	j->client = 0;
	j->dsig = 0;
	j->dhave = j->dknown = 0;
	j->dres = 0;
	j->wp = NIL;

	if (rp->lru_tail != NIL)
		rp->jobs[rp->lru_tail].lru_next = i;
	else
		rp->lru_head = i;
	rp->lru_tail = i;

	if (!*slotp)
		*slotp = hash_slot(rp, h, ev->ctx, ev->seqno);
	**slotp = (struct hslot){ .job = i, .hash = h };
	rp->open++;
	return i;
}

/* ---- a ring's queue: committed, not yet ended ------------------------------------ */

static inline void depth_change(struct rp *rp, struct job *j, uint64_t ts,
				int delta)
{
	if (rp->o.per_ring) {
		group_depth(rp, &rp->rings[j->ring].g, ts, delta);
		if (rp->o.sink->depth)
			rp->o.sink->depth(rp, j->ring, ts,
					  rp->rings[j->ring].g.depth);
	}
	if (rp->o.per_ctx)
		group_depth(rp, rp->ctxs[j->ctxo].g, ts, delta);
}

/*
 * Job @i may add busy time from @ts: its ring from its START (a start
 * derived at END is never before the ring's last END, so never before its
 * intervals), its context from its COMMIT or START.
 */
static void pin(struct rp *rp, uint32_t i, int st, uint64_t ts)
{
	struct job *j = &rp->jobs[i];

	if (!j->selected || (st != ST_START && st != ST_COMMIT))
		return;
	if (rp->o.per_ring && st == ST_START) {
		group_pin(&rp->rings[j->ring].g, i, ts);
		j->pinned |= PIN_RING;
	}
	if (rp->o.per_ctx) {
		group_pin(rp->ctxs[j->ctxo].g, i, ts);
		j->pinned |= PIN_CTX;
	}
}

static void unpin(struct rp *rp, uint32_t i)
{
	struct job *j = &rp->jobs[i];

	if (j->pinned & PIN_RING)
		group_unpin(&rp->rings[j->ring].g, i);
	if (j->pinned & PIN_CTX)
		group_unpin(rp->ctxs[j->ctxo].g, i);
	j->pinned = 0;
}

static void rq_enter(struct rp *rp, uint32_t i, uint64_t ts)
{
	struct job *j = &rp->jobs[i];
	struct ring *r = &rp->rings[j->ring];

	j->rq_prev = r->rq_tail;
	j->rq_next = NIL;
	if (r->rq_tail != NIL)
		rp->jobs[r->rq_tail].rq_next = i;
	else
		r->rq_head = i;
	r->rq_tail = i;
	j->in_rq = 1;
	j->qsize = ++r->rq_len;
	if (j->selected) {
		j->in_depth = 1;
		depth_change(rp, j, ts, 1);
	}
}

static void rq_leave(struct rp *rp, uint32_t i, uint64_t ts)
{
	struct job *j = &rp->jobs[i];
	struct ring *r = &rp->rings[j->ring];

	if (j->in_rq) {
		if (j->rq_prev != NIL)
			rp->jobs[j->rq_prev].rq_next = j->rq_next;
		else
			r->rq_head = j->rq_next;
		if (j->rq_next != NIL)
			rp->jobs[j->rq_next].rq_prev = j->rq_prev;
		else
			r->rq_tail = j->rq_prev;
		r->rq_len--;
		j->in_rq = 0;
	}
	if (j->in_depth) {
		j->in_depth = 0;
		depth_change(rp, j, ts, -1);
	}
}

/*
 * The ring switched away from context @old: the job of @old it was running
 * was preempted.  That is the first of @old's queued jobs that has started,
 * or the head of the queue (in-order rings run their oldest job).
 */
static void on_ctx_switch(struct rp *rp, const struct gr_job *ev)
{
	/* ring_for() may grow rp->rings: index it only after the call. */
	uint32_t ri = ring_for(rp, ev->ring_id, ev->engine);
	struct ring *r = &rp->rings[ri];
	uint32_t k = r->rq_head, n;

	if (ev->aux0 == ev->ctx)
		return;
	for (n = 0; k != NIL && n < PREEMPT_SCAN; n++) {
		struct job *j = &rp->jobs[k];

		if (j->ctx == ev->aux0 &&
		    ((j->have & (1u << ST_START)) || k == r->rq_head)) {
			j->preempts++;
			return;
		}
		k = j->rq_next;
	}
}

/* ---- finishing a job ---------------------------------------------------------------- */

static void set_metric(struct rp *rp, struct row *row, int m, uint64_t from,
		       uint64_t to)
{
	if (to < from) {
		rp->inconsistent++;
		return;
	}
	row->m[m] = to - from;
	row->mhave |= 1u << m;
}

/*
 * Metric @m from stamp @a to stamp @b, when the job has both, and @b was
 * observed rather than written with @a (then the time between them is no
 * measurement: the metric is NA, and counted).
 */
static inline void stamp_metric(struct rp *rp, const struct job *j,
				struct row *row, int m, int a, int b)
{
	unsigned int need = 1u << a | 1u << b;

	if ((j->have & need) != need)
		return;
	if (j->derived & (1u << b))
		rp->derived_na[m]++;
	else
		set_metric(rp, row, m, j->ts[a], j->ts[b]);
}

/* Every finished job comes here: no loops over tables of stamps. */
static void row_metrics(struct rp *rp, const struct job *j, struct row *row)
{
	unsigned int early = j->have & (1u << ST_SUBMIT | 1u << ST_COMMIT |
					1u << ST_START);
	unsigned int late = j->have & (1u << ST_END | 1u << ST_COMPLETE);

	stamp_metric(rp, j, row, M_SUBMIT_HOST, ST_SUBMIT, ST_COMMIT);
	stamp_metric(rp, j, row, M_QUEUE, ST_COMMIT, ST_START);
	stamp_metric(rp, j, row, M_EXEC, ST_START, ST_END);
	stamp_metric(rp, j, row, M_COMPLETE, ST_END, ST_COMPLETE);
	/*
	 * The time the job had a wait open.  Unpaired waits leave it
	 * unknown; no waits at all is 0.
	 */
	if (j->nenter == j->nexit && !j->wait_bad)
		set_metric(rp, row, M_GPU_WAIT, 0, j->wait_union);
	/* From the first of SUBMIT .. START to the last of END, COMPLETE. */
	if (early && late)
		set_metric(rp, row, M_TOTAL, j->ts[__builtin_ctz(early)],
			   j->ts[31 - __builtin_clz(late)]);
}

static void row_labels(const struct rp *rp, struct row *row)
{
	const struct rp_rules *ru = &rp->o.rules;

	if ((row->mhave & (1u << M_QUEUE)) &&
	    row->m[M_QUEUE] > ru->long_queue_us * 1000)
		row->labels |= 1u << L_LONG_QUEUE;
	if ((row->mhave & (1u << M_EXEC)) &&
	    row->m[M_EXEC] > ru->slow_exec_us * 1000)
		row->labels |= 1u << L_SLOW_EXEC;
	if ((row->mhave & (1u << M_GPU_WAIT)) &&
	    row->m[M_GPU_WAIT] > ru->dep_wait_us * 1000)
		row->labels |= 1u << L_DEP_WAIT;
	if (ru->preempt_min && row->preempts >= ru->preempt_min)
		row->labels |= 1u << L_PREEMPTED;
	if (row->errors)
		row->labels |= 1u << L_ERROR;
}

/*
 * --per-engine: the group of engine class @engine, which ring @ring (an
 * index in rp->rings) is of.  Found through a map: a stream may name
 * every one of the 65536 classes.
 */
static struct eng *eng_of(struct rp *rp, uint16_t engine, uint32_t ring)
{
	int64_t i = u64map_get(rp->eng_map, engine);
	struct eng *e;

	if (i < 0) {
		if (rp->nengs == rp->engs_cap) {
			rp->engs_cap = rp->engs_cap ? 2 * rp->engs_cap : 8;
			rp->engs = xrealloc(rp->engs,
					    rp->engs_cap * sizeof(*rp->engs));
		}
		i = rp->nengs++;
		memset(&rp->engs[i], 0, sizeof(rp->engs[i]));
		rp->engs[i].engine = engine;
		u64map_set(rp->eng_map, engine, (uint32_t)i);
	}
	e = &rp->engs[i];
	if (u64map_get(rp->eng_rings, ring) < 0) {
		u64map_set(rp->eng_rings, ring, 1);
		e->rings++;
	}
	return e;
}

static int eng_cmp(const void *a, const void *b)
{
	const struct eng *x = a, *y = b;

	return (x->engine > y->engine) - (x->engine < y->engine);
}

/*
 * --per-process: the group of @row's submitter (@s), or of the jobs
 * without one (@s NULL).
 */
static struct proc *proc_of(struct rp *rp, const struct row *row,
			    const struct submitter *s)
{
	uint32_t pid = s ? s->pid : PROC_NONE;
	int64_t i = u64map_get(rp->proc_map, pid);
	struct proc *p;

	if (i < 0) {
		if (rp->nprocs == rp->procs_cap) {
			rp->procs_cap = rp->procs_cap ? rp->procs_cap * 2 : 16;
			rp->procs = xrealloc(rp->procs,
					     rp->procs_cap * sizeof(*rp->procs));
		}
		i = rp->nprocs++;
		p = &rp->procs[i];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		u64map_set(rp->proc_map, pid, (uint32_t)i);
	}
	p = &rp->procs[i];
	if (pid == PROC_NONE)
		return p;
	if (!p->name)
		p->name = s->process;
	/*
	 * Its threads are those that ran its SUBMITs; a job of one of its
	 * clients pushed by a kworker names no thread of it.
	 */
	if (row->has_task && row->pid == pid &&
	    u64map_get(rp->proc_tids, row->tid) < 0) {
		u64map_set(rp->proc_tids, row->tid, 1);
		p->threads++;
	}
	if (s->client && u64map_get(rp->proc_clients, s->client->id) < 0) {
		u64map_set(rp->proc_clients, s->client->id, 1);
		p->clients++;
	}
	return p;
}

static void make_row(struct rp *rp, const struct job *j, struct row *row)
{
	/* Every field, without a memset() first: see job_new(). */
	row->ctx = j->ctx;
	row->seqno = j->seqno;
	row->ring = j->ring;
	row->engine = j->engine;
	row->have = j->have;
	row->start_derived = j->start_derived;
	row->derived = j->derived;
	row->mhave = 0;
	row->labels = 0;
	memcpy(row->ts, j->ts, sizeof(row->ts));
	memset(row->m, 0, sizeof(row->m));
	row->preempts = j->preempts;
	row->errors = j->errors;
	row->error = j->error;
	row->qsize = j->qsize;
	row->first_gseq = j->first_gseq;
	row->has_task = j->has_task;
	row->pid = j->pid;
	row->tid = j->tid;
	row->has_client = j->has_client;
	row->client = j->client;
	row->waits = j->waits;
	row->ndeps = j->ndeps;
	memcpy(row->dep, j->dep, j->ndeps * sizeof(row->dep[0]));
	row_metrics(rp, j, row);
	row_labels(rp, row);
	row->why.have = 0;
	if (rp->o.why) {
		struct why *w = &row->why;

		w->dep = j->dhave;
		w->dep_known = j->dknown;
		w->dep_ctx = j->dctx;
		w->dep_seqno = j->dseq;
		w->dep_ring = j->dring;
		w->dep_wp = j->dwp;
		/* dep_ns for now: when the last dependency signalled. */
		w->dep_ns = j->dsig;
		w->unresolved = j->nenter > j->nexit + j->dres;
		why_row(rp, row, j->wp != NIL ? j->wp :
			why_wp(rp, j->has_task, j->pid, j->tid,
			       j->has_client, j->client));
	}
}

/* Is @a slower than @b?  Ties go to the job seen first. */
static int top_less(const struct row *a, const struct row *b)
{
	if (a->m[M_TOTAL] != b->m[M_TOTAL])
		return a->m[M_TOTAL] < b->m[M_TOTAL];
	return a->first_gseq > b->first_gseq;
}

/* Keep the --topn slowest in a min-heap: the root is the one to beat. */
static void top_add(struct rp *rp, const struct row *row)
{
	unsigned int i, n = rp->o.topn;

	if (!n || !(row->mhave & (1u << M_TOTAL)))
		return;
	if (rp->ntop < n) {
		i = rp->ntop++;
		while (i && top_less(row, &rp->top[(i - 1) / 2])) {
			rp->top[i] = rp->top[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		rp->top[i] = *row;
		return;
	}
	if (!top_less(&rp->top[0], row))
		return;
	/* Replace the root and sift the new row down. */
	for (i = 0;;) {
		unsigned int c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && top_less(&rp->top[c + 1], &rp->top[c]))
			c++;
		if (!top_less(&rp->top[c], row))
			break;
		rp->top[i] = rp->top[c];
		i = c;
	}
	rp->top[i] = *row;
}

static unsigned int bit_length(uint64_t v)
{
	return v ? 64u - (unsigned int)__builtin_clzll(v) : 0;
}

static void account(struct rp *rp, const struct job *j, const struct row *row)
{
	const struct grf_client *c;
	struct group *gs[2];
	struct submitter s;
	unsigned int n = 0;
	int k, by;

	rp->jobs_done++;
	if ((row->have & ((1u << NR_STAMPS) - 1)) != (1u << NR_STAMPS) - 1)
		rp->jobs_incomplete++;
	/* In a snapshot: a job that began before the window. */
	if (!(row->have & (1u << ST_SUBMIT)))
		rp->jobs_no_submit++;
	for (k = 0; k < NR_LABELS && row->labels; k++)
		if (row->labels & (1u << k))
			rp->label_hits[k]++;
	if (rp->o.per_ring)
		gs[n++] = &rp->rings[j->ring].g;
	if (rp->o.per_ctx)
		gs[n++] = rp->ctxs[j->ctxo].g;
	if (n)
		group_add_row(gs, n, row);
	/* The counts need no names: no task table lookup for every job. */
	c = row->has_client ? rp_client(rp, row->client) : NULL;
	if (!c && !row->has_task)
		rp->jobs_no_task++;
	else if (!c)
		rp->jobs_by_task++;
	if (row->has_client) {
		rp->jobs_client++;
		if (!c)
			rp->jobs_client_unnamed++;
	}
	if (rp->o.per_process) {
		by = rp_submitter(rp, row, &s);
		gs[0] = &proc_of(rp, row, by ? &s : NULL)->g;
		group_add_row(gs, 1, row);
	}
	if (rp->o.per_engine) {
		gs[0] = &eng_of(rp, row->engine, row->ring)->g;
		group_add_row(gs, 1, row);
	}
	if (rp->o.hist == RP_HIST_LAT && (row->mhave & (1u << M_TOTAL)))
		rp->hist[bit_length(row->m[M_TOTAL])]++;
	if (rp->o.hist == RP_HIST_SIZE && (row->have & (1u << ST_COMMIT)))
		rp->hist[bit_length(row->qsize)]++;
	if (row->why.have)
		why_account(rp, row);
	top_add(rp, row);
	out_row(rp, row);
}

/*
 * The job is done: report it and forget it.  @now closes its queue time;
 * @slot is its hash slot, or NULL to look it up.
 */
static void job_finish(struct rp *rp, uint32_t i, struct hslot *slot,
		       uint64_t now)
{
	struct job *j = &rp->jobs[i];
	struct row row;

	rq_leave(rp, i, now);
	if (j->pinned)
		unpin(rp, i);
	j->held = 0;
	if (j->selected) {
		make_row(rp, j, &row);
		account(rp, j, &row);
	} else if (rp->o.critical) {
		/* A selected job's path may lead through it. */
		make_row(rp, j, &row);
		if (row.why.have)
			why_node_only(rp, &row);
	}
	if (j->lru_prev != NIL)
		rp->jobs[j->lru_prev].lru_next = j->lru_next;
	else
		rp->lru_head = j->lru_next;
	if (j->lru_next != NIL)
		rp->jobs[j->lru_next].lru_prev = j->lru_prev;
	else
		rp->lru_tail = j->lru_prev;
	hash_remove(rp, slot ? slot : hash_slot(rp, j->hash, j->ctx, j->seqno));
	rp->open--;
	j->lru_next = rp->free_job;
	rp->free_job = i;
}

/* ---- events -------------------------------------------------------------------------- */

/*
 * The job ended at @ts: derive its start when START is missing, and note
 * the ring's last END.
 */
static void end_of(struct rp *rp, struct job *j, struct ring *r, uint64_t ts)
{
	if (!(j->have & (1u << ST_START)) && (j->have & (1u << ST_COMMIT))) {
		uint64_t start = j->ts[ST_COMMIT];

		/* An in-order ring starts a job when the one before ends. */
		if (r->have_last_end && r->last_end > start)
			start = r->last_end;
		/*
		 * Never after its own END: then the job ended before its
		 * COMMIT, or before another job of the ring that ended first
		 * (the CPUs' clocks disagree, or the ring is not in order),
		 * and its start is not known.
		 */
		if (start <= ts) {
			j->ts[ST_START] = start;
			j->have |= 1u << ST_START;
			j->start_derived = 1;
		} else {
			rp->no_start++;
		}
	}
	if (!r->have_last_end || ts > r->last_end)
		r->last_end = ts;
	r->have_last_end = 1;
	r->ended = 1;
}

/* END: fix the start the job ran from; derive it when START is missing. */
static void on_end(struct rp *rp, uint32_t i, uint64_t ts)
{
	struct job *j = &rp->jobs[i];
	struct ring *r = &rp->rings[j->ring];

	end_of(rp, j, r, ts);
	rq_leave(rp, i, ts);
	if (rp->o.why) {
		j->wp = why_wp(rp, j->has_task, j->pid, j->tid, j->has_client,
			       j->client);
		why_ended(rp, j->ctx, j->seqno, j->ring, j->wp,
			  j->ts[ST_START], !!(j->have & (1u << ST_START)), ts);
	}
	if (j->selected && (j->have & (1u << ST_START))) {
		if (rp->o.per_ring)
			group_add_busy(rp, &r->g, j->ts[ST_START], ts);
		if (rp->o.per_ctx)
			group_add_busy(rp, rp->ctxs[j->ctxo].g,
				       j->ts[ST_START], ts);
	}
	if (j->pinned)
		unpin(rp, i);
}

/* The exporter draws a job's first RP_DEPS dependencies; it counts all. */
static void dep_enter(struct job *j, const struct gr_job *ev, uint64_t ts)
{
	j->waits++;
	if (j->ndeps < RP_DEPS)
		j->dep[j->ndeps++] = (struct dep){ .ctx = ev->aux0,
						   .seqno = ev->aux1,
						   .enter = ts };
}

static void dep_exit(struct job *j, const struct gr_job *ev, uint64_t ts)
{
	unsigned int k;

	for (k = 0; k < j->ndeps; k++)
		if (j->dep[k].ctx == ev->aux0 && j->dep[k].seqno == ev->aux1 &&
		    !j->dep[k].exit && ts >= j->dep[k].enter) {
			j->dep[k].exit = ts;
			return;
		}
}

/*
 * --why: fence @ev->aux0:aux1 of job @j signalled at @sig (its job's END,
 * from @d, or the EXIT's time); keep the one that signalled last.
 */
static void why_signal(struct job *j, const struct gr_job *ev, uint64_t sig,
		       const struct why_done *d)
{
	if (j->dhave && sig <= j->dsig)
		return;
	j->dhave = 1;
	j->dsig = sig;
	j->dctx = ev->aux0;
	j->dseq = ev->aux1;
	j->dknown = !!d;
	j->dring = d ? d->ring : NIL;
	j->dwp = d ? d->wp : NIL;
}

/*
 * A dependency wait began.  Its fence's job that already ended (found by
 * its key) signalled at its END: on 6.1 the wait is reported only when
 * the scheduler picks the job up, long after that.
 */
static void why_enter(struct rp *rp, struct job *j, const struct gr_job *ev)
{
	const struct why_done *d = why_find(rp, ev->aux0, ev->aux1);

	if (d) {
		j->dres++;
		why_signal(j, ev, d->end, d);
	}
}

/* A dependency signalled: at its job's END when that is known, else now. */
static void why_exit(struct rp *rp, struct job *j, const struct gr_job *ev,
		     uint64_t ts)
{
	const struct why_done *d = why_find(rp, ev->aux0, ev->aux1);

	if (d && d->end <= ts) {
		why_signal(j, ev, d->end, d);
	} else {
		/* Not in the trace, or ended after (another clock): the EXIT. */
		why_signal(j, ev, ts, NULL);
	}
}

static void apply(struct rp *rp, uint32_t i, const struct gr_rec *rec,
		  const struct gr_job *ev)
{
	struct job *j = &rp->jobs[i];
	uint16_t type = rec->type;
	uint64_t ts = rec->ts;
	int st = stamp_of_type(type);

	if (st >= 0) {
		j->ts[st] = ts;
		j->have |= 1u << st;
		if (rec->flags & GRTRACE_HDR_DERIVED)
			j->derived |= 1u << st;
		if (!(j->have & (1u << ST_END)))
			pin(rp, i, st, ts);
	}
	switch (type) {
	case GRTRACE_EV_SUBMIT:
		if (ev->has_task) {
			j->has_task = 1;
			j->pid = ev->pid;
			j->tid = ev->tid;
		}
		if (ev->has_client) {
			j->has_client = 1;
			j->client = ev->client;
		}
		break;
	case GRTRACE_EV_COMMIT:
		if (!j->in_rq && !(j->have & (1u << ST_END)))
			rq_enter(rp, i, ts);
		break;
	case GRTRACE_EV_END:
		on_end(rp, i, ts);
		note_done(rp, j);
		break;
	case GRTRACE_EV_COMPLETE:
		note_done(rp, j);
		break;
	case GRTRACE_EV_SYNC_WAIT_ENTER:
		/*
		 * A wait on the job's own fence is a CPU thread waiting for
		 * the job (i915's request waits), no dependency of it.
		 */
		if (ev->aux0 == j->ctx && ev->aux1 == j->seqno) {
			rp->self_waits++;
			break;
		}
		if (rp->o.why)
			why_enter(rp, j, ev);
		/* Waits at once count once: the union, not the sum. */
		if (j->nenter == j->nexit)
			j->wait_since = ts;
		j->nenter++;
		if (rp->o.sink->flags & RP_SINK_DEPS)
			dep_enter(j, ev, ts);
		break;
	case GRTRACE_EV_SYNC_WAIT_EXIT:
		if (ev->aux0 == j->ctx && ev->aux1 == j->seqno)
			break;
		if (rp->o.why)
			why_exit(rp, j, ev, ts);
		if (j->nexit == j->nenter || ts < j->wait_since) {
			j->wait_bad = 1;
			break;
		}
		if (++j->nexit == j->nenter)
			j->wait_union += ts - j->wait_since;
		if (rp->o.sink->flags & RP_SINK_DEPS)
			dep_exit(j, ev, ts);
		break;
	case GRTRACE_EV_ERROR:
		j->errors++;
		j->error = (int64_t)ev->aux0;
		break;
	}
}

/*
 * A COMPLETE read before its job's END: the END, written on another CPU
 * or stamped a little earlier, may still come in the next records.  The
 * job is held (out of its ring's queue, not yet a row) until then, or
 * until the input is RP_TS_BACK_WARN_NS past the COMPLETE.
 */
static void hold(struct rp *rp, uint32_t i, uint64_t ts)
{
	struct held *h;

	if (rp->nheld == rp->held_cap) {
		uint32_t n = rp->held_cap ? rp->held_cap * 2 : 64, k;
		struct held *a = xmalloc(n * sizeof(*a));

		for (k = 0; k < rp->nheld; k++)
			a[k] = rp->held[(rp->held_head + k) % rp->held_cap];
		free(rp->held);
		rp->held = a;
		rp->held_cap = n;
		rp->held_head = 0;
	}
	if (!++rp->held_tag)
		rp->held_tag = 1;
	h = &rp->held[(rp->held_head + rp->nheld++) % rp->held_cap];
	*h = (struct held){ .job = i, .tag = rp->held_tag,
			    .due = ts + RP_TS_BACK_WARN_NS };
	rp->jobs[i].held = rp->held_tag;
	rq_leave(rp, i, ts);
}

/*
 * Finish the held jobs whose END did not come in time (all of them with
 * @all); entries of jobs finished otherwise since are skipped.
 */
static void release_held(struct rp *rp, int all)
{
	while (rp->nheld) {
		struct held *h = &rp->held[rp->held_head];
		struct job *j = &rp->jobs[h->job];

		if (!all && h->due > rp->ts_max)
			return;
		if (j->held == h->tag) {
			rp->complete_alone++;
			job_finish(rp, h->job, NULL, j->ts[ST_COMPLETE]);
		}
		rp->held_head = (rp->held_head + 1) % rp->held_cap;
		rp->nheld--;
	}
}

/*
 * A ring with RQ_MAX jobs committed and not ended, and one more coming,
 * has lost its ENDs, or never had any (virtio-gpu's cursor queue): close
 * its oldest job that has not started, so memory stays bounded by real
 * queues.
 */
#define RQ_MAX		(1u << 14)

static void rq_bound(struct rp *rp, uint32_t ring, uint64_t ts)
{
	struct ring *r = &rp->rings[ring];
	uint32_t i, n;

	while (r->rq_len >= RQ_MAX) {
		for (i = r->rq_head, n = 0; n < PREEMPT_SCAN && i != NIL &&
		     (rp->jobs[i].have & (1u << ST_START)); n++)
			i = rp->jobs[i].rq_next;
		if (i == NIL || n == PREEMPT_SCAN)
			i = r->rq_head;
		r->rq_closed++;
		rp->jobs_evicted++;
		job_finish(rp, i, NULL, ts);
	}
}

static void on_job_event(struct rp *rp, const struct gr_rec *rec)
{
	struct gr_job ev;
	struct hslot *slot;
	uint32_t i, h, ring;
	int st;

	if (gr_decode_job(rec, &ev) < 0)
		return;
	if (rec->type == GRTRACE_EV_CTX_SWITCH) {
		on_ctx_switch(rp, &ev);
		return;
	}
	if (rec->type == GRTRACE_EV_IRQ)
		return;
	st = stamp_of_type(rec->type);
	h = job_hash(ev.ctx, ev.seqno);
	slot = hash_slot(rp, h, ev.ctx, ev.seqno);
	i = slot->job;
	/*
	 * A wait on a job's own fence ends once the job is done, often after
	 * its COMPLETE: that END of a wait does not begin another job.
	 */
	if (i == NIL && rec->type == GRTRACE_EV_SYNC_WAIT_EXIT &&
	    ev.aux0 == ev.ctx && ev.aux1 == ev.seqno)
		return;
	/*
	 * Nor does the end of a dependency wait whose job is done: a fence
	 * that had signalled before the job's SUBMIT may report it after the
	 * job's COMPLETE.  It says nothing of a job still to come.
	 */
	if (i == NIL && rec->type == GRTRACE_EV_SYNC_WAIT_EXIT) {
		rp->late_exits++;
		return;
	}
	if (i != NIL && rec->type == GRTRACE_EV_START &&
	    (rp->jobs[i].have & (1u << ST_END))) {
		/* Its start was fixed at END: too late to change the row. */
		rp->late_start++;
		return;
	}
	if (i != NIL && st >= 0 && (rp->jobs[i].have & (1u << st))) {
		rp->key_reuse++;
		/* Removing it moves the slots behind it. */
		job_finish(rp, i, slot, rec->ts);
		slot = NULL;
		i = job_new(rp, &ev, rec, h, &slot, 1);
	} else if (i == NIL) {
		i = job_new(rp, &ev, rec, h, &slot, 0);
	}
	/* apply() leaves the table alone: @slot is still the job's. */
	ring = rp->jobs[i].ring;
	if (rec->type == GRTRACE_EV_COMMIT && !rp->jobs[i].in_rq &&
	    rp->rings[ring].rq_len >= RQ_MAX) {
		/* Closing jobs moves slots in the table. */
		rq_bound(rp, ring, rec->ts);
		slot = NULL;
	}
	apply(rp, i, rec, &ev);
	if (rec->type == GRTRACE_EV_COMPLETE) {
		if (rp->jobs[i].have & (1u << ST_END))
			job_finish(rp, i, slot, rec->ts);
		else
			hold(rp, i, rec->ts);
	} else if (rec->type == GRTRACE_EV_END && rp->jobs[i].held) {
		/* The END of a COMPLETE read before it: one job after all. */
		rp->complete_first++;
		job_finish(rp, i, slot, rp->jobs[i].ts[ST_COMPLETE]);
	}
	if (rp->nheld)
		release_held(rp, 0);
	while (rp->open > rp->o.max_open) {
		rp->jobs_evicted++;
		job_finish(rp, rp->lru_head, NULL, rec->ts);
	}
	if (rp->open > rp->open_max)
		rp->open_max = rp->open;
}

/*
 * A JOB_SUMMARY: a job whose events were not written, in one record
 * (grtrace_sampling's threshold mode).  Its stamps complete the job's
 * open row if it has one (its ERROR events are written), else make one.
 * A slow job is finished at once; one given up open stays open, for the
 * events that may still come (the module no longer holds them back).
 * Its times are in the past: it adds busy time, but never enters its
 * ring's queue depth.
 */
static void on_summary(struct rp *rp, const struct gr_rec *rec)
{
	struct gr_summary js;
	struct gr_rec first;
	struct gr_job ev;
	struct hslot *slot;
	struct job *j;
	uint32_t i, h;
	int t, st, had_end;

	if (gr_decode_summary(rec, &js) < 0)
		return;
	rp->summaries++;
	if (js.reason == GRTRACE_SUMMARY_OPEN)
		rp->summaries_open++;
	rp->summary_threshold = js.threshold;
	memset(&ev, 0, sizeof(ev));
	ev.ctx = js.ctx;
	ev.seqno = js.seqno;
	ev.ring_id = js.ring_id;
	ev.engine = js.engine;
	/*
	 * The job is selected by its first stamp.  Its SUBMIT was long before
	 * the summary, and other jobs of its context came in between: no
	 * seqno reuse to tell from it.
	 */
	first = *rec;
	for (t = GRTRACE_EV_SUBMIT; t <= GRTRACE_EV_COMPLETE; t++)
		if (js.events & (1u << t)) {
			first.ts = js.ts[t - 1];
			break;
		}
	h = job_hash(js.ctx, js.seqno);
	slot = hash_slot(rp, h, js.ctx, js.seqno);
	i = slot->job;
	if (i == NIL)
		i = job_new(rp, &ev, &first, h, &slot, 0);
	j = &rp->jobs[i];
	had_end = !!(j->have & (1u << ST_END));
	for (t = GRTRACE_EV_SUBMIT; t <= GRTRACE_EV_COMPLETE; t++) {
		st = stamp_of_type((uint16_t)t);
		if (!(js.events & (1u << t)) || (j->have & (1u << st)))
			continue;
		j->ts[st] = js.ts[t - 1];
		j->have |= 1u << st;
		if (js.derived & (1u << t))
			j->derived |= 1u << st;
	}
	if (js.pid && !j->has_task) {
		j->has_task = 1;
		j->pid = js.pid;
		j->tid = js.tid;
	}
	j->waits += js.waits;
	if (js.reason == GRTRACE_SUMMARY_SLOW)
		j->wait_union = js.wait_ns;
	else
		/* Given up open: its waits may not be over. */
		j->wait_bad = 1;
	if (j->have & (1u << ST_END)) {
		end_of(rp, j, &rp->rings[j->ring], j->ts[ST_END]);
		/*
		 * As on_end(): the threshold mode summarises the slow jobs,
		 * which are the ones others wait behind.  An END written
		 * as an event told it already.
		 */
		if (rp->o.why && !had_end) {
			j->wp = why_wp(rp, j->has_task, j->pid, j->tid,
				       j->has_client, j->client);
			why_ended(rp, j->ctx, j->seqno, j->ring, j->wp,
				  j->ts[ST_START],
				  !!(j->have & (1u << ST_START)),
				  j->ts[ST_END]);
		}
	}
	if (j->selected && (j->have & (1u << ST_START)) &&
	    (j->have & (1u << ST_END))) {
		if (rp->o.per_ring)
			group_add_busy(rp, &rp->rings[j->ring].g,
				       j->ts[ST_START], j->ts[ST_END]);
		if (rp->o.per_ctx)
			group_add_busy(rp, rp->ctxs[j->ctxo].g,
				       j->ts[ST_START], j->ts[ST_END]);
	}
	if (js.reason == GRTRACE_SUMMARY_SLOW)
		job_finish(rp, i, slot, rec->ts);
}

/* ---- the input as a whole ------------------------------------------------------------------ */

/* The first record of the input, or of a part after a gseq restart. */
static void note_first(struct rp *rp, uint64_t ts, uint64_t gseq)
{
	rp->have_first = 1;
	rp->gseq_min = rp->gseq_max = gseq;
	if (rp->restarts)
		return;
	rp->t0 = rp->ts_max = ts;
	rp->win_start = rp->o.has_since && ts + rp->o.since >= ts ?
			ts + rp->o.since : ts;
	if (rp->o.has_until)
		rp->win_until = ts + rp->o.until >= ts ?
				ts + rp->o.until : UINT64_MAX;
}

void rp_set_tasks(struct rp *rp, const struct grf_task *tasks, size_t n,
		  unsigned int frames)
{
	rp->tasks = tasks;
	rp->ntasks = n;
	rp->task_frames = frames;
}

void rp_set_clients(struct rp *rp, const struct grf_client *clients,
		    size_t n, unsigned int frames, const char *none)
{
	rp->clients = clients;
	rp->nclients = n;
	rp->client_frames = frames;
	rp->clients_none = none;
}

void rp_set_tails(struct rp *rp, const struct grf_tail *tails, size_t n)
{
	rp->tails = tails;
	rp->ntails = n;
}

void rp_set_heads(struct rp *rp, const struct grf_tail *heads, size_t n)
{
	rp->heads = heads;
	rp->nheads = n;
	free(rp->head_of);
	rp->head_of = NULL;
	rp->head_of_n = 0;
}

#define HEAD_TWICE UINT32_MAX

/*
 * The heads indexed by CPU, once: a CPU is looked up for each CPU's
 * first record and each tail, and a scan of every head each time is
 * quadratic in the CPUs (65536 heads and tails took 1.7 s).  The merge
 * has refused a head past CPU 65535.
 */
static void index_heads(struct rp *rp)
{
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < rp->nheads; i++)
		if (rp->heads[i].cpu >= n)
			n = rp->heads[i].cpu + 1;
	rp->head_of = xmalloc((n ? n : 1) * sizeof(*rp->head_of));
	memset(rp->head_of, 0, n * sizeof(*rp->head_of));
	rp->head_of_n = n;
	for (i = 0; i < rp->nheads; i++) {
		uint32_t *e = &rp->head_of[rp->heads[i].cpu];

		*e = *e || i >= HEAD_TWICE - 1 ? HEAD_TWICE : (uint32_t)i + 1;
	}
}

/*
 * The CPU's cseq when the session started, from the file's heads; none
 * when a CPU has more than one, or files were joined (a CPU's head per
 * file: which session's first record a later part's is, the heads do
 * not say).
 */
static const struct grf_tail *cpu_head(struct rp *rp, uint32_t cpu)
{
	uint32_t e;

	if (rp->restarts || !rp->nheads)
		return NULL;
	if (!rp->head_of)
		index_heads(rp);
	e = cpu < rp->head_of_n ? rp->head_of[cpu] : 0;
	return e && e != HEAD_TWICE ? &rp->heads[e - 1] : NULL;
}

/*
 * Records a CPU lost before its first one in the input (in NMI): that
 * record's cseq past the CPU's head, in the low 32 bits as the tails; a
 * head ahead of the records (a later part of joined files) says nothing.
 */
static uint64_t head_lost(struct rp *rp, uint32_t cpu, uint64_t cseq)
{
	const struct grf_tail *h = cpu_head(rp, cpu);
	uint32_t lost = h ? (uint32_t)(cseq - h->next) : 0;

	if (!lost || lost >= UINT32_C(1) << 31)
		return 0;
	rp->head_lost += lost;
	return lost;
}

/*
 * The entries of a by-CPU array of @cap grown to hold @cpu: doubling (a
 * stream may name its CPUs one by one up to 65536), and no further than
 * the 16-bit CPU field needs unless @cpu is past it.
 */
static uint32_t grow_cap(uint32_t cap, uint32_t cpu)
{
	uint32_t n = cap ? 2 * cap : 16;

	if (n > 65536)
		n = 65536;
	return n > cpu ? n : cpu + 1;
}

static void *grow_zero(void *p, uint32_t from, uint32_t to, size_t size)
{
	p = xrealloc(p, to * size);
	memset((char *)p + from * size, 0, (to - from) * size);
	return p;
}

/* @n records lost on @cpu: the totals and the CPU's own count. */
static void cpu_lost(struct rp *rp, uint32_t cpu, uint64_t n)
{
	if (cpu >= rp->lost_cap) {
		uint32_t k = grow_cap(rp->lost_cap, cpu);

		rp->lost_cpu = grow_zero(rp->lost_cpu, rp->lost_cap, k,
					 sizeof(uint64_t));
		rp->lost_cap = k;
	}
	if (cpu >= rp->lost_ncpu)
		rp->lost_ncpu = cpu + 1;
	rp->lost_cpu[cpu] += n;
	rp->cseq_lost += n;
	rp->cseq_gaps++;
}

/*
 * Records a CPU lost after its last one in the input: its tail's next
 * cseq past the one its last record leads to expect.  Format 2 carries
 * the low 32 bits of cseq, so the difference is taken in them; a tail
 * behind the records (an earlier part of joined files) says nothing.
 */
static void note_tails(struct rp *rp)
{
	uint32_t lost;
	size_t i;

	if (!rp->cseq_loss)
		return;
	for (i = 0; i < rp->ntails; i++) {
		const struct grf_tail *t = &rp->tails[i];

		if (t->cpu >= rp->cseq_ncpu || !rp->cseq_next[t->cpu]) {
			/* No record on that CPU: all it lost is head to tail. */
			const struct grf_tail *h = cpu_head(rp, t->cpu);

			lost = h ? (uint32_t)(t->next - h->next) : 0;
			if (!lost || lost >= UINT32_C(1) << 31)
				continue;
			cpu_lost(rp, t->cpu, lost);
			rp->head_lost += lost;
			continue;
		}
		lost = (uint32_t)(t->next - (rp->cseq_next[t->cpu] - 1));
		if (!lost || lost >= UINT32_C(1) << 31)
			continue;
		cpu_lost(rp, t->cpu, lost);
		rp->tail_lost += lost;
		rp->cseq_next[t->cpu] += lost;
	}
}

void rp_set_format(struct rp *rp, unsigned int format)
{
	/* gseq is opt-in there: off until a STREAM_INFO says it is on. */
	if (format >= GRTRACE_FORMAT_V2) {
		rp->cseq_loss = 1;
		rp->gseq_off = 1;
		rp->gseq_fast = 0;
	}
}

/* @n records lost before @ts on @cpu: counted, and told to the sink. */
static void count_lost(struct rp *rp, uint32_t cpu, uint64_t n, uint64_t ts)
{
	cpu_lost(rp, cpu, n);
	if (rp->o.sink->lost)
		rp->o.sink->lost(rp, ts, n, (int)cpu);
}

/* A CPU's head gap held back, with no RECORDER to account for it: lost. */
static void flush_head_gap(struct rp *rp, uint32_t cpu)
{
	uint64_t n = rp->head_gap[cpu];

	if (!n)
		return;
	rp->head_gap[cpu] = 0;
	count_lost(rp, cpu, n, rp->head_gap_ts[cpu]);
}

static void flush_head_gaps(struct rp *rp)
{
	uint32_t c;

	for (c = 0; c < rp->cseq_ncpu; c++) {
		flush_head_gap(rp, c);
		rp->cseq_head[c] = 0;
	}
}

/*
 * A gap of @n in @cpu's cseq before a record of @type.  Right after the
 * CPU's STREAM_INFO and METADATA (and RING records) it may be a flight recorder snapshot's
 * overwritten records: held until the CPU's RECORDER says (on_recorder()),
 * which also decides on the gap just before itself (returned).  Any other
 * gap is records lost.
 */
static uint64_t cseq_gap(struct rp *rp, uint16_t cpu, uint64_t n, uint64_t ts,
			 uint16_t type)
{
	if (type == GRTRACE_REC_RECORDER)
		return n;
	if (rp->cseq_head[cpu] && type != GRTRACE_REC_STREAM_INFO &&
	    type != GRTRACE_REC_METADATA && type != GRTRACE_REC_RING) {
		rp->cseq_head[cpu] = 0;
		rp->head_gap[cpu] = n;
		rp->head_gap_ts[cpu] = ts;
		return 0;
	}
	count_lost(rp, cpu, n, ts);
	return 0;
}

/*
 * A gap in a CPU's cseq is records lost; a fall is a module reload.
 * Returns the gap before a RECORDER, for on_recorder(); else 0.
 */
static uint64_t note_cseq_slow(struct rp *rp, uint16_t cpu, uint64_t cseq,
			       uint64_t ts, uint16_t type)
{
	uint64_t next;

	if (cpu >= rp->cseq_cap) {
		uint32_t n = grow_cap(rp->cseq_cap, cpu), o = rp->cseq_cap;

		rp->cseq_next = grow_zero(rp->cseq_next, o, n, sizeof(uint64_t));
		rp->cseq_head = grow_zero(rp->cseq_head, o, n, sizeof(uint8_t));
		rp->head_gap = grow_zero(rp->head_gap, o, n, sizeof(uint64_t));
		rp->head_gap_ts = grow_zero(rp->head_gap_ts, o, n,
					    sizeof(uint64_t));
		rp->cseq_cap = n;
	}
	if (cpu >= rp->cseq_ncpu)
		rp->cseq_ncpu = (uint32_t)cpu + 1;
	next = rp->cseq_next[cpu];
	if (!next && rp->nheads) {
		uint64_t lost = head_lost(rp, cpu, cseq);

		if (lost)
			count_lost(rp, cpu, lost, ts);
	}
	rp->cseq_next[cpu] = cseq + 2;
	if (next && cseq + 1 > next)
		return cseq_gap(rp, cpu, cseq + 1 - next, ts, type);
	if (rp->cseq_head[cpu] && type != GRTRACE_REC_STREAM_INFO &&
	    type != GRTRACE_REC_METADATA && type != GRTRACE_REC_RING &&
	    type != GRTRACE_REC_RECORDER)
		rp->cseq_head[cpu] = 0;
	return 0;
}

static inline uint64_t note_cseq(struct rp *rp, uint16_t cpu, uint64_t cseq,
				 uint64_t ts, uint16_t type)
{
	/* Most records: the CPU's next cseq, past its session's head. */
	if (__builtin_expect(cpu < rp->cseq_ncpu && cseq + 1 &&
			     rp->cseq_next[cpu] == cseq + 1 &&
			     !rp->cseq_head[cpu], 1)) {
		rp->cseq_next[cpu] = cseq + 2;
		return 0;
	}
	return note_cseq_slow(rp, cpu, cseq, ts, type);
}

/*
 * A control record with gseq 0 after the first record has none: a flight
 * recorder's snapshot writes its STREAM_INFO, METADATA, RECORDER and
 * TRIGGER afresh, without gseq.  (gseq 0 is otherwise the first record
 * of a module load, which comes first.)
 */
static void note_header_slow(struct rp *rp, uint64_t ts, uint64_t gseq,
			     int job)
{
	int has_gseq = gseq || job || !rp->have_first;

	rp->records++;
	if (!rp->have_first) {
		note_first(rp, ts, gseq);
	} else if (!rp->gseq_off && has_gseq) {
		/* In serial number arithmetic: a gseq may wrap past 2^64. */
		int64_t d = (int64_t)(gseq - rp->gseq_prev);

		if (d > 1) {
			rp->gseq_gaps++;
			if (rp->o.sink->lost && !rp->cseq_loss)
				rp->o.sink->lost(rp, ts, (uint64_t)d - 1, -1);
		}
		if (d <= 0)
			rp->gseq_late++;
		if ((int64_t)(gseq - rp->gseq_min) < 0)
			rp->gseq_min = gseq;
		if ((int64_t)(gseq - rp->gseq_max) > 0)
			rp->gseq_max = gseq;
	}
	/* Clocks of CPUs that disagree, or records out of order. */
	if (ts < rp->ts_max) {
		rp->ts_back++;
		if (rp->ts_max - ts > rp->ts_back_max)
			rp->ts_back_max = rp->ts_max - ts;
	} else {
		rp->ts_max = ts;
	}
	if (has_gseq)
		rp->gseq_prev = gseq;
	rp->gseq_fast = rp->have_first && !rp->gseq_off &&
			rp->gseq_prev == rp->gseq_max ? rp->gseq_max + 1 : 0;
}

static inline void note_header(struct rp *rp, uint64_t ts, uint64_t gseq,
			       int job)
{
	/*
	 * Most records: the gseq after the highest so far, which came last
	 * (@gseq_fast; 0 while the whole test must run, and gseq 0 never
	 * passes), and a timestamp no earlier than any before.
	 */
	if (__builtin_expect(gseq == rp->gseq_fast && gseq &&
			     ts >= rp->ts_max, 1)) {
		rp->records++;
		rp->gseq_prev = gseq;
		rp->gseq_max = gseq;
		rp->gseq_fast = gseq + 1;
		rp->ts_max = ts;
		return;
	}
	note_header_slow(rp, ts, gseq, job);
}

void rp_restart(struct rp *rp)
{
	uint64_t end = rp_window_end(rp);
	uint32_t i;

	if (!rp->have_first)
		return;
	flush_head_gaps(rp);
	release_held(rp, 1);
	/* The jobs of the part before never end in this one. */
	while (rp->lru_head != NIL) {
		rp->closed_at_restart++;
		job_finish(rp, rp->lru_head, NULL, end);
	}
	for (i = 0; i < rp->nrings; i++)
		rp->rings[i].have_last_end = 0;
	/* Nor do its seqnos say which of this part's jobs are done. */
	for (i = 0; i < rp->nctxs; i++)
		rp->ctxs[i].have_seqno = rp->ctxs[i].have_done = 0;
	if (rp->o.why)
		why_restart(rp);
	/* Lost records of a part are the gaps in its own gseq range. */
	rp->lost_before = rp_records_lost(rp);
	rp->gseq_lo = rp_gseq_first(rp);
	rp->gseq_hi = rp_gseq_last(rp);
	rp->part_rec0 = rp->records;
	rp->restarts++;
	rp->have_first = 0;
	rp->gseq_fast = 0;
}

static int on_stream_info(struct rp *rp, const struct gr_rec *rec)
{
	struct gr_stream_info si;

	rp->stream_infos++;
	gr_decode_stream_info(rec, &si);
	if (si.magic != GRTRACE_MAGIC) {
		snprintf(rp->errmsg, sizeof(rp->errmsg),
			 "not a grtrace stream: STREAM_INFO at byte %" PRIu64 " has magic 0x%08" PRIx32,
			 rec->offset, si.magic);
		return -1;
	}
	if (si.version > rp->version_max)
		rp->version_max = si.version;
	/* Without a global gseq, order is by ts; loss is seen by cseq only. */
	if (!(si.features & GRTRACE_FEAT_GSEQ))
		rp->gseq_off = 1;
	if (si.features & GRTRACE_FEAT_CSEQ_LOSS) {
		rp->cseq_loss = 1;
		rp->gseq_off = !(si.features & GRTRACE_FEAT_GSEQ);
	}
	rp->gseq_fast = 0;	/* note_header() looks again */
	return 0;
}

/* ---- the flight recorder's snapshot ---------------------------------------------------------- */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * A CPU's RECORDER, the end of its snapshot stream: its head gap (the
 * first after its fresh STREAM_INFO and METADATA) is records overwritten
 * up to its count of them, the gap just before the RECORDER @gap records
 * dropped at the freeze up to that count; the rest is lost.  With nothing
 * kept the two are one gap.
 */
static void on_recorder(struct rp *rp, const struct gr_rec *rec, uint64_t gap)
{
	struct fr *fr = &rp->fr;
	uint64_t head = 0, over, drop;
	uint32_t cpu = rec->cpu;
	struct fr_cpu *c;
	int one = 0;

	if (!(fr->ncpus & (fr->ncpus + 1)))
		fr->cpus = xrealloc(fr->cpus, (2 * fr->ncpus + 1) * sizeof(*c));
	c = &fr->cpus[fr->ncpus];
	memset(c, 0, sizeof(*c));
	if (gr_decode_recorder(rec, &c->acc) < 0)
		return;
	fr->ncpus++;
	if (!gr_recorder_balanced(&c->acc))
		fr->unbalanced++;
	if (cpu < rp->cseq_ncpu) {
		head = rp->head_gap[cpu];
		rp->head_gap[cpu] = 0;
		if (rp->cseq_head[cpu]) {
			head = gap;
			gap = 0;
			one = 1;
			rp->cseq_head[cpu] = 0;
		}
	}
	over = min_u64(head, c->acc.overwritten);
	drop = one ? min_u64(head - over, c->acc.dropped) :
	       min_u64(gap, c->acc.dropped);
	c->head_gap = head;
	c->tail_gap = gap;
	c->lost = head + gap - over - drop;
	fr->overwritten += over;
	fr->dropped += drop;
	if (c->lost)
		count_lost(rp, cpu, c->lost, rec->ts);
}

static void on_trigger(struct rp *rp, const struct gr_rec *rec)
{
	struct gr_trigger tr;

	if (gr_decode_trigger(rec, &tr) < 0)
		return;
	if (!rp->fr.triggers++)
		rp->fr.trig = tr;
}

static void fr_copy(struct fr_job *f, const struct job *j)
{
	f->ctx = j->ctx;
	f->seqno = j->seqno;
	f->have = j->have;
	memcpy(f->ts, j->ts, sizeof(f->ts));
}

/* When a job began to hold its ring: its COMMIT, else its START. */
static uint64_t ring_since(const struct job *j)
{
	return j->ts[j->have & (1u << ST_COMMIT) ? ST_COMMIT : ST_START];
}

/*
 * An open job of a snapshot that has finished all the same: its END or
 * COMPLETE was read, or a later job of its context ended (fences of one
 * context signal in order), so its own END was overwritten on another
 * CPU, or dropped.
 */
static int fr_done(const struct rp *rp, const struct job *j)
{
	const struct ctx *c = &rp->ctxs[j->ctxo];

	if (j->have & (1u << ST_END | 1u << ST_COMPLETE))
		return 1;
	return c->ctx == j->ctx && c->have_done &&
	       seqno_after(c->max_done, j->seqno);
}

/* The open job the TRIGGER names, else the oldest unfinished on @ring. */
static uint32_t fr_hung(struct rp *rp, uint32_t ring)
{
	const struct gr_trigger *t = &rp->fr.trig;
	uint32_t i, best = NIL;

	if (t->ctx || t->seqno) {
		i = hash_slot(rp, job_hash(t->ctx, t->seqno), t->ctx,
			      t->seqno)->job;
		return i != NIL && !(rp->jobs[i].have & (1u << ST_END)) ? i : NIL;
	}
	for (i = rp->lru_head; i != NIL; i = rp->jobs[i].lru_next) {
		const struct job *j = &rp->jobs[i];

		if (j->ring != ring || fr_done(rp, j) ||
		    !(j->have & (1u << ST_COMMIT | 1u << ST_START)))
			continue;
		if (best == NIL || ring_since(j) < ring_since(&rp->jobs[best]))
			best = i;
	}
	return best;
}

static int cmp_commit(const void *a, const void *b)
{
	const struct fr_job *x = a, *y = b;

	return x->ts[ST_COMMIT] < y->ts[ST_COMMIT] ? -1 :
	       x->ts[ST_COMMIT] > y->ts[ST_COMMIT];
}

/* The jobs committed on @ring, not ended, after the hung one @h (or NIL). */
static void fr_behind(struct rp *rp, uint32_t ring, uint32_t h)
{
	struct fr *fr = &rp->fr;
	struct fr_job *all = NULL;
	uint32_t i, cap = 0;

	for (i = rp->lru_head; i != NIL; i = rp->jobs[i].lru_next) {
		const struct job *j = &rp->jobs[i];

		if (i == h || j->ring != ring || fr_done(rp, j) ||
		    !(j->have & (1u << ST_COMMIT)) ||
		    (h != NIL && ring_since(j) < ring_since(&rp->jobs[h])))
			continue;
		if (fr->nbehind == cap) {
			cap = cap ? 2 * cap : 64;
			all = xrealloc(all, cap * sizeof(*all));
		}
		fr_copy(&all[fr->nbehind++], j);
	}
	if (!all)
		return;
	qsort(all, fr->nbehind, sizeof(*all), cmp_commit);
	memcpy(fr->behind, all, (fr->nbehind < RP_FR_BEHIND ? fr->nbehind :
				 RP_FR_BEHIND) * sizeof(*all));
	free(all);
}

/*
 * The input is read, its jobs still open: the TRIGGER's ring, the job
 * that hung it and the ones queued behind, before they are closed.
 */
static void fr_settle(struct rp *rp)
{
	struct fr *fr = &rp->fr;
	const struct gr_trigger *t = &fr->trig;
	uint32_t i, h;

	fr->ring = NIL;
	fr->ran_from = -1;
	if (!fr->triggers && !fr->ncpus)
		return;
	fr->open_at_end = 0;
	for (i = rp->lru_head; i != NIL; i = rp->jobs[i].lru_next)
		fr->open_at_end += !fr_done(rp, &rp->jobs[i]);
	if (!fr->triggers || t->ring_id == GR_TRIGGER_NO_RING)
		return;
	for (i = 0; i < rp->nrings; i++)
		if (rp->rings[i].ring_id == t->ring_id)
			fr->ring = i;
	fr->job.ctx = t->ctx;
	fr->job.seqno = t->seqno;
	if (fr->ring == NIL)
		return;
	h = fr_hung(rp, fr->ring);
	if (h != NIL) {
		const struct job *j = &rp->jobs[h];

		fr->hung = 1;
		fr_copy(&fr->job, j);
		fr->ran_from = j->have & (1u << ST_START) ? ST_START :
			       j->have & (1u << ST_COMMIT) ? ST_COMMIT : -1;
		if (fr->ran_from >= 0 && t->ts > j->ts[fr->ran_from])
			fr->ran_ns = t->ts - j->ts[fr->ran_from];
	}
	fr_behind(rp, fr->ring, h);
}

int rp_record(struct rp *rp, const struct gr_rec *rec)
{
	struct gr_ring d;

	/*
	 * ts and gseq from the record itself: @rec was filled just now, and
	 * one load of both fields would wait for their two stores to land.
	 */
	uint64_t ts = gr_le64(rec->data + offsetof(struct grtrace_hdr, ts));

	uint64_t gap = 0;

	note_header(rp, ts, gr_le64(rec->data + offsetof(struct grtrace_hdr, gseq)),
		    gr_type_is_job(rec->type));
	if (rp->cseq_loss)
		gap = note_cseq(rp, rec->cpu, rec->cseq, ts, rec->type);
	if (gr_type_is_job(rec->type)) {
		rp->by_type[rec->type]++;
		on_job_event(rp, rec);
		return 0;
	}
	switch (rec->type) {
	case GRTRACE_REC_STREAM_INFO: {
		int had = rp->cseq_loss, ret = on_stream_info(rp, rec);

		/* Format 1: its own cseq counts once it says cseq counts loss. */
		if (!had && rp->cseq_loss)
			note_cseq(rp, rec->cpu, rec->cseq, ts, rec->type);
		/* A session's description begins: a snapshot's head may follow. */
		if (rp->cseq_loss && rec->cpu < rp->cseq_ncpu) {
			flush_head_gap(rp, rec->cpu);
			rp->cseq_head[rec->cpu] = 1;
		}
		return ret;
	}
	case GRTRACE_REC_METADATA:
		on_metadata(rp, rec);
		return 0;
	case GRTRACE_REC_RING:
		rp->ring_recs++;
		if (gr_decode_ring(rec, &d) == 0)
			describe_ring(rp, &d);
		return 0;
	case GRTRACE_REC_JOB_SUMMARY:
		on_summary(rp, rec);
		return 0;
	case GRTRACE_REC_RECORDER:
		on_recorder(rp, rec, gap);
		return 0;
	case GRTRACE_REC_TRIGGER:
		on_trigger(rp, rec);
		return 0;
	}
	rp->unknown++;
	return 0;
}

const char *rp_errmsg(const struct rp *rp)
{
	return rp->errmsg;
}

struct rp *rp_new(const struct rp_opts *opts, FILE *out, char *err,
		  size_t errlen)
{
	struct rp *rp = xzalloc(sizeof(*rp));

	rp->o = *opts;
	if (!rp->o.sink)
		rp->o.sink = rp_sinks[0];
	if (!rp->o.max_open)
		rp->o.max_open = 1;
	if (!rp->o.interval)
		rp->o.interval = 100000000;
	rp->out = out;
	rp->ring_map = u64map_new();
	rp->ctx_map = u64map_new();
	rp->proc_map = u64map_new();
	rp->proc_tids = u64map_new();
	rp->proc_clients = u64map_new();
	rp->eng_rings = u64map_new();
	rp->eng_map = u64map_new();
	if (rp->o.why || rp->o.critical)
		why_init(rp);
	rp->free_job = NIL;
	rp->lru_head = rp->lru_tail = NIL;
	rp->win_until = UINT64_MAX;
	memset(rp->ring_cache, 0xff, sizeof(rp->ring_cache));
	memset(rp->ctx_cache, 0xff, sizeof(rp->ctx_cache));
	hash_resize(rp, 1024);
	if (rp->o.topn)
		rp->top = xmalloc(rp->o.topn * sizeof(*rp->top));
	if (out_begin(rp) < 0) {
		snprintf(err, errlen, "%s", rp->errmsg);
		rp_free(rp);
		return NULL;
	}
	return rp;
}

/*
 * A job that started and never ended keeps its ring busy until the end of
 * the trace; one that ran hang_ms or more by then hung its ring, and the
 * jobs committed behind it never ran.
 */
static void note_running(struct rp *rp, uint64_t end)
{
	uint64_t hang = rp->o.rules.hang_ms * 1000000;
	uint32_t i;

	for (i = rp->lru_head; i != NIL; i = rp->jobs[i].lru_next) {
		struct job *j = &rp->jobs[i];
		struct ring *r = &rp->rings[j->ring];
		uint64_t start = j->ts[ST_START];

		if (!(j->have & (1u << ST_START)) || (j->have & (1u << ST_END)) ||
		    start >= end)
			continue;
		r->running++;
		if (j->selected) {
			if (rp->o.per_ring)
				group_add_busy(rp, &r->g, start, end);
			if (rp->o.per_ctx)
				group_add_busy(rp, rp->ctxs[j->ctxo].g, start, end);
		}
		if (end - start >= hang && (!r->hung || start < r->hung_since)) {
			r->hung = 1;
			r->hung_ctx = j->ctx;
			r->hung_seqno = j->seqno;
			r->hung_since = start;
		}
	}
	for (i = 0; i < rp->nrings; i++) {
		struct ring *r = &rp->rings[i];

		r->hung_behind = r->rq_len > r->running ? r->rq_len - r->running : 0;
		if (r->hung)
			rp->rings_hung++;
	}
}

int rp_finish(struct rp *rp, const struct rp_input *in)
{
	uint64_t end = rp_window_end(rp);
	uint32_t i;

	/* Head gaps no RECORDER accounted for are records lost. */
	flush_head_gaps(rp);
	note_tails(rp);
	/* A job held for its END is done: it is not running. */
	release_held(rp, 1);
	fr_settle(rp);
	note_running(rp, end);
	for (i = 0; i < rp->nrings && rp->o.per_ring; i++)
		group_settle(rp, &rp->rings[i].g);
	/* What is still open ends with the trace. */
	if (rp->o.sink->finishing)
		rp->o.sink->finishing(rp);
	while (rp->lru_head != NIL)
		job_finish(rp, rp->lru_head, NULL, end);
	for (i = 0; i < rp->nrings; i++)
		group_depth(rp, &rp->rings[i].g, end, 0);
	for (i = 0; i < rp->nctxs && rp->o.per_ctx; i++)
		group_depth(rp, rp->ctxs[i].g, end, 0);
	/* The engines' table is in class order; eng_of()'s map is done. */
	if (rp->nengs)
		qsort(rp->engs, rp->nengs, sizeof(*rp->engs), eng_cmp);
	return out_end(rp, in);
}

void rp_free(struct rp *rp)
{
	uint32_t i;

	if (!rp)
		return;
	if (rp->o.sink->free)
		rp->o.sink->free(rp);
	for (i = 0; i < rp->nrings; i++)
		group_free(&rp->rings[i].g);
	for (i = 0; i < rp->nctxs && rp->o.per_ctx; i++) {
		group_free(rp->ctxs[i].g);
		free(rp->ctxs[i].g);
	}
	for (i = 0; i < rp->nprocs; i++)
		group_free(&rp->procs[i].g);
	free(rp->procs);
	u64map_free(rp->proc_map);
	u64map_free(rp->proc_tids);
	u64map_free(rp->proc_clients);
	for (i = 0; i < rp->nengs; i++)
		group_free(&rp->engs[i].g);
	free(rp->engs);
	u64map_free(rp->eng_rings);
	u64map_free(rp->eng_map);
	why_free(rp);
	free(rp->rings);
	free(rp->ctxs);
	free(rp->cseq_next);
	free(rp->cseq_head);
	free(rp->head_gap);
	free(rp->head_of);
	free(rp->head_gap_ts);
	free(rp->fr.cpus);
	free(rp->lost_cpu);
	free(rp->held);
	u64map_free(rp->ring_map);
	u64map_free(rp->ctx_map);
	free(rp->jobs);
	free(rp->hash);
	free(rp->top);
	free(rp->rowbuf);
	if (rp->spool)
		fclose(rp->spool);
	free(rp);
}
