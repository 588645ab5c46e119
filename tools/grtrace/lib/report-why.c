// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report --why: why each job waited between its SUBMIT and its
 * start, and whose work was in the way.
 *
 * The wait is cut in three, in this order of precedence:
 *
 *   dep_ns    SUBMIT .. the signal of the dependency that signalled last
 *   sched_ns  .. COMMIT (the scheduler had it, its dependencies done)
 *   ring_ns   .. the start (on the ring, behind the jobs before it)
 *
 * A dependency signals at its job's END when that job is in the trace (an
 * ended job is remembered by its key, WHY_DONE_BITS of them), else at the
 * SYNC_WAIT_EXIT: 6.1 reports a wait only when the scheduler picks the job
 * up, long after the fence signalled.  A dependency still unsignalled at
 * COMMIT (a fence the ring itself waits on) counts as dep_ns: each ns of
 * the wait goes to one part, so the three add up to start - SUBMIT.
 *
 * "behind": from the last signal to the start, the jobs the job's ring ran
 * (each ring keeps its last WHY_EXEC jobs); each ns is its process's.  A
 * ns the ring was idle is nobody's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report-out.h"
#include "u64map.h"

#define WHY_DONE_BITS	16
#define WHY_EXEC	4096u	/* a power of two */
/* Distinct processes a wait is split among before the rest is summed. */
#define WHY_SPLIT	64
/* Hops of a critical path at most: a longer one is cut, and says so. */
#define WHY_HOPS	256

void why_init(struct rp *rp)
{
	rp->o.why = 1;
	rp->wp_map = u64map_new();
	rp->wb_map = u64map_new();
	rp->wdone = xzalloc(sizeof(*rp->wdone) << WHY_DONE_BITS);
	if (rp->o.critical)
		rp->cp_map = u64map_new();
}

void why_free(struct rp *rp)
{
	uint32_t i;

	for (i = 0; i < rp->nrings; i++)
		free(rp->rings[i].wx);
	free(rp->wps);
	u64map_free(rp->wp_map);
	free(rp->wdone);
	free(rp->wbs);
	u64map_free(rp->wb_map);
	free(rp->cp);
	u64map_free(rp->cp_map);
	free(rp->slowest);
}

/*
 * Another module load or boot: its fence numbers name other jobs and its
 * clock may start below the old part's, so neither the ended jobs nor the
 * rings' history say anything about its waits.
 */
void why_restart(struct rp *rp)
{
	struct why_done *fresh = xzalloc(sizeof(*rp->wdone) << WHY_DONE_BITS);
	uint32_t i;

	free(rp->wdone);
	rp->wdone = fresh;
	for (i = 0; i < rp->nrings; i++)
		rp->rings[i].wx_head = rp->rings[i].wx_n = 0;
}

/* The why tables' index of process @pid, named @name when it is new. */
static uint32_t wp_of(struct rp *rp, uint32_t pid, const char *name)
{
	int64_t i = u64map_get(rp->wp_map, pid);

	if (i >= 0)
		return (uint32_t)i;
	if (rp->nwps == rp->wps_cap) {
		rp->wps_cap = rp->wps_cap ? 2 * rp->wps_cap : 16;
		rp->wps = xrealloc(rp->wps, rp->wps_cap * sizeof(*rp->wps));
	}
	rp->wps[rp->nwps] = (struct wproc){ .pid = pid, .name = name };
	u64map_set(rp->wp_map, pid, rp->nwps);
	return rp->nwps++;
}

uint32_t why_wp(struct rp *rp, int has_task, uint32_t pid, uint32_t tid,
		int has_client, uint64_t client)
{
	struct row row;
	struct submitter s;
	uint32_t key;

	row.has_task = (uint8_t)has_task;
	row.pid = pid;
	row.tid = tid;
	row.has_client = (uint8_t)has_client;
	row.client = client;
	key = rp_submitter(rp, &row, &s) ? s.pid : PROC_NONE;
	return wp_of(rp, key, key == PROC_NONE ? NULL :
		     s.process ? s.process : s.comm);
}

/* The why table's process that stands for the ones past RP_BEHIND. */
static uint32_t why_wp_other(struct rp *rp)
{
	return wp_of(rp, PROC_OTHER, NULL);
}

void why_wp_str(const struct rp *rp, uint32_t wp, char *buf, size_t len)
{
	const struct wproc *p = &rp->wps[wp];

	if (p->pid == PROC_NONE)
		snprintf(buf, len, "(no submitter data)");
	else if (p->pid == PROC_OTHER)
		snprintf(buf, len, "other");
	else
		snprintf(buf, len, "%s/%" PRIu32, p->name ? p->name : "?",
			 p->pid);
}

static inline uint32_t done_slot(uint64_t ctx, uint64_t seqno)
{
	return (uint32_t)(mix64(ctx * 0x9e3779b97f4a7c15ULL ^ seqno) >>
			  (64 - WHY_DONE_BITS));
}

const struct why_done *why_find(const struct rp *rp, uint64_t ctx,
				uint64_t seqno)
{
	const struct why_done *d = &rp->wdone[done_slot(ctx, seqno)];

	return d->end && d->ctx == ctx && d->seqno == seqno ? d : NULL;
}

void why_ended(struct rp *rp, uint64_t ctx, uint64_t seqno, uint32_t ring,
	       uint32_t wp, uint64_t start, int have_start, uint64_t end)
{
	struct ring *r = &rp->rings[ring];
	uint32_t i;

	rp->wdone[done_slot(ctx, seqno)] = (struct why_done){
		.ctx = ctx, .seqno = seqno, .end = end ? end : 1,
		.ring = ring, .wp = wp,
	};
	if (!have_start || start > end)
		return;
	if (!r->wx)
		r->wx = xmalloc(WHY_EXEC * sizeof(*r->wx));
	if (r->wx_n == WHY_EXEC) {
		/* Older than all it holds: the history has no room for it. */
		if (end < r->wx[r->wx_head].end)
			return;
		r->wx_head = (r->wx_head + 1) & (WHY_EXEC - 1);
		r->wx_n--;
	}
	/*
	 * In the order of the ENDs, which why_behind() walks newest first.
	 * A job that comes as a JOB_SUMMARY is told at its COMPLETE, after
	 * jobs that ended later: it goes in before them.
	 */
	for (i = r->wx_n; i && r->wx[(r->wx_head + i - 1) & (WHY_EXEC - 1)].end > end;
	     i--)
		r->wx[(r->wx_head + i) & (WHY_EXEC - 1)] =
			r->wx[(r->wx_head + i - 1) & (WHY_EXEC - 1)];
	r->wx[(r->wx_head + i) & (WHY_EXEC - 1)] =
		(struct why_exec){ .start = start, .end = end, .wp = wp };
	r->wx_n++;
}

static int share_cmp(const void *a, const void *b)
{
	const struct why_share *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->wp < y->wp ? -1 : x->wp > y->wp;
}

/* Who ran on ring @ring during [@from, @to): into @w->behind. */
static void why_behind(struct rp *rp, struct why *w, uint32_t ring,
		       uint64_t from, uint64_t to)
{
	const struct ring *r = &rp->rings[ring];
	struct why_share sh[WHY_SPLIT];
	uint32_t n = 0, k, i, m;
	uint64_t rest = 0, lim = to;
	int reached = 0;

	w->nbehind = 0;
	w->behind_rest = 0;
	if (to <= from)
		return;
	/*
	 * Newest first: the jobs before the start, back to @from.  A ring may
	 * run jobs at once (a START before the END of the job before): a ns
	 * goes to the job that ended last of those running then, so none is
	 * counted twice.  [lim, to) is the time handed out so far: an older
	 * job (an earlier END) gets only what lies below it.
	 */
	for (k = r->wx_n; k-- > 0;) {
		const struct why_exec *e = &r->wx[(r->wx_head + k) &
						  (WHY_EXEC - 1)];
		uint64_t a = e->start > from ? e->start : from;
		uint64_t b = e->end < lim ? e->end : lim;

		if (e->end <= from) {
			reached = 1;
			break;
		}
		if (a < lim)
			lim = a;
		if (b <= a)
			continue;
		for (i = 0; i < n && sh[i].wp != e->wp; i++)
			;
		if (i == n) {
			if (n == WHY_SPLIT) {
				rest += b - a;
				continue;
			}
			sh[n++] = (struct why_share){ .wp = e->wp, .ns = 0 };
		}
		sh[i].ns += b - a;
	}
	/* The history did not reach back to @from: some of it is unknown. */
	if (!reached && r->wx_n == WHY_EXEC)
		rp->why_short++;
	if (n > 1)
		qsort(sh, n, sizeof(sh[0]), share_cmp);
	m = n < RP_BEHIND ? n : RP_BEHIND;
	memcpy(w->behind, sh, m * sizeof(sh[0]));
	for (i = m; i < n; i++)
		rest += sh[i].ns;
	w->nbehind = m;
	w->behind_rest = rest;
}

void why_row(struct rp *rp, struct row *row, uint32_t wp)
{
	unsigned int need = 1u << ST_SUBMIT | 1u << ST_START;
	struct why *w = &row->why;
	uint64_t sub = row->ts[ST_SUBMIT], start = row->ts[ST_START];
	uint64_t sig = w->dep_ns, dep_end, commit;

	w->wp = wp;
	w->have = 0;
	if ((row->have & need) != need || start < sub)
		return;
	w->have = 1;
	/* A dependency that signalled before the SUBMIT held nothing up. */
	if (!w->dep || sig <= sub) {
		w->dep = 0;
		dep_end = sub;
	} else {
		dep_end = sig < start ? sig : start;
	}
	commit = row->have & (1u << ST_COMMIT) ? row->ts[ST_COMMIT] : dep_end;
	if (commit < dep_end)
		commit = dep_end;
	if (commit > start)
		commit = start;
	w->dep_ns = dep_end - sub;
	w->sched_ns = commit - dep_end;
	w->ring_ns = start - commit;
	why_behind(rp, w, row->ring, dep_end, start);
}

/* --per-process: @ns of @waiter's wait went to @holder on @ring. */
static void wb_add(struct rp *rp, uint32_t waiter, uint32_t holder,
		   uint32_t ring, uint64_t ns)
{
	uint64_t key = (uint64_t)waiter << 42 | (uint64_t)holder << 21 | ring;
	int64_t i = u64map_get(rp->wb_map, key);

	if (i < 0) {
		if (rp->nwbs == rp->wbs_cap) {
			rp->wbs_cap = rp->wbs_cap ? 2 * rp->wbs_cap : 64;
			rp->wbs = xrealloc(rp->wbs,
					   rp->wbs_cap * sizeof(*rp->wbs));
		}
		i = rp->nwbs++;
		rp->wbs[i] = (struct why_wb){ .waiter = waiter,
					      .holder = holder, .ring = ring };
		u64map_set(rp->wb_map, key, (uint32_t)i);
	}
	rp->wbs[i].ns += ns;
}

static uint64_t cp_key(uint64_t ctx, uint64_t seqno)
{
	return mix64(ctx * 0x9e3779b97f4a7c15ULL ^ mix64(seqno));
}

static int64_t cp_find(const struct rp *rp, uint64_t ctx, uint64_t seqno)
{
	int64_t i = u64map_get(rp->cp_map, cp_key(ctx, seqno));

	if (i < 0 || rp->cp[i].ctx != ctx || rp->cp[i].seqno != seqno)
		return -1;
	return i;
}

/* @row as a node of the critical paths: its index. */
static uint32_t cp_add(struct rp *rp, const struct row *row)
{
	const struct why *w = &row->why;
	struct why_node *nd;

	if (rp->ncp == rp->cp_cap) {
		rp->cp_cap = rp->cp_cap ? 2 * rp->cp_cap : 1024;
		rp->cp = xrealloc(rp->cp, rp->cp_cap * sizeof(*rp->cp));
	}
	nd = &rp->cp[rp->ncp];
	nd->ctx = row->ctx;
	nd->seqno = row->seqno;
	nd->total = row->mhave & (1u << M_TOTAL) ? row->m[M_TOTAL] : 0;
	nd->dep = w->dep;
	nd->dep_ctx = w->dep_ctx;
	nd->dep_seqno = w->dep_seqno;
	nd->dep_ns = w->dep_ns;
	nd->sched_ns = w->sched_ns;
	nd->ring_ns = w->ring_ns;
	nd->wp = w->wp;
	nd->ring = row->ring;
	nd->part = (uint32_t)rp->restarts;
	nd->submit = row->ts[ST_SUBMIT];
	nd->start = row->ts[ST_START];
	/* Keys are reused: the jobs of one key are a list, newest first. */
	nd->prev = cp_find(rp, row->ctx, row->seqno);
	u64map_set(rp->cp_map, cp_key(row->ctx, row->seqno), rp->ncp);
	return rp->ncp++;
}

void why_node_only(struct rp *rp, const struct row *row)
{
	if (rp->o.critical)
		cp_add(rp, row);
}

void why_account(struct rp *rp, const struct row *row)
{
	const struct why *w = &row->why;
	uint32_t k, i;

	rp->why_jobs++;
	if (w->dep && !w->dep_known)
		rp->why_dep_lost++;
	if (w->unresolved)
		rp->why_unresolved++;
	if (rp->o.per_process) {
		for (k = 0; k < w->nbehind; k++)
			wb_add(rp, w->wp, w->behind[k].wp, row->ring,
			       w->behind[k].ns);
		/* The processes the job's row does not name count too. */
		if (w->behind_rest)
			wb_add(rp, w->wp, why_wp_other(rp), row->ring,
			       w->behind_rest);
	}
	if (!rp->o.critical)
		return;
	i = cp_add(rp, row);
	if (w->wp >= rp->nslowest) {
		uint32_t n = rp->nwps > w->wp ? rp->nwps : w->wp + 1;

		rp->slowest = xrealloc(rp->slowest, n * sizeof(*rp->slowest));
		for (k = rp->nslowest; k < n; k++)
			rp->slowest[k] = NIL;
		rp->nslowest = n;
	}
	if (rp->slowest[w->wp] == NIL ||
	    rp->cp[rp->slowest[w->wp]].total < rp->cp[i].total)
		rp->slowest[w->wp] = i;
}

static int wb_cmp(const void *a, const void *b)
{
	const struct why_wb *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->holder != y->holder)
		return x->holder < y->holder ? -1 : 1;
	return x->ring < y->ring ? -1 : x->ring > y->ring;
}

struct why_wb *why_waited(const struct rp *rp, uint32_t pid, uint32_t *n,
			  int by_ring)
{
	int64_t me = u64map_get(rp->wp_map, pid);
	struct why_wb *out = NULL;
	uint32_t i, k, m = 0;

	*n = 0;
	if (me < 0)
		return NULL;
	for (i = 0; i < rp->nwbs; i++) {
		const struct why_wb *b = &rp->wbs[i];

		if (b->waiter != (uint32_t)me)
			continue;
		for (k = 0; !by_ring && k < m && out[k].holder != b->holder; k++)
			;
		if (by_ring || k == m) {
			out = xrealloc(out, (m + 1) * sizeof(*out));
			out[m] = *b;
			if (!by_ring)
				out[m].ring = NIL;
			m++;
		} else {
			out[k].ns += b->ns;
		}
	}
	if (m)
		qsort(out, m, sizeof(*out), wb_cmp);
	/* "other" last, as in a job's behind list: it names nobody. */
	if (m) {
		struct why_wb *tmp = xmalloc(m * sizeof(*tmp));
		uint32_t j = 0;

		for (i = 0, k = 0; i < m; i++) {
			if (rp->wps[out[i].holder].pid == PROC_OTHER)
				tmp[j++] = out[i];
			else
				out[k++] = out[i];
		}
		memcpy(out + k, tmp, j * sizeof(*tmp));
		free(tmp);
	}
	*n = m;
	return out;
}

/* ---- critical paths -------------------------------------------------------------- */

struct hop {
	int64_t node;		/* index in rp->cp, or -1: not in the trace */
	uint64_t ctx, seqno;
};

/*
 * The job @w waited for: of the jobs with its dependency's key, the
 * newest in @w's part of the input that was submitted by the time @w
 * started (the same key in another part, or submitted later, is another
 * job); -1 if none is in the trace.
 */
static int64_t cp_dep(const struct rp *rp, const struct why_node *w)
{
	int64_t i;

	for (i = cp_find(rp, w->dep_ctx, w->dep_seqno); i >= 0;
	     i = rp->cp[i].prev)
		if (rp->cp[i].part == w->part && rp->cp[i].submit <= w->start)
			return i;
	return -1;
}

/* The chain of blocking dependencies from job @start: hops into @h. */
static uint32_t chain(const struct rp *rp, int64_t start, struct hop *h,
		      int *cut)
{
	uint32_t n = 0, k;

	*cut = 0;
	h[n++] = (struct hop){ .node = start, .ctx = rp->cp[start].ctx,
			       .seqno = rp->cp[start].seqno };
	while (h[n - 1].node >= 0) {
		const struct why_node *w = &rp->cp[h[n - 1].node];
		int64_t next;

		if (!w->dep)
			break;
		if (n == WHY_HOPS) {
			*cut = 1;
			break;
		}
		next = cp_dep(rp, w);
		for (k = 0; next >= 0 && k < n; k++)
			if (h[k].node == next)
				next = -2;
		if (next == -2) {
			/* A cycle: keys reused; stop rather than loop. */
			*cut = 1;
			break;
		}
		h[n++] = (struct hop){ .node = next, .ctx = w->dep_ctx,
				       .seqno = w->dep_seqno };
	}
	return n;
}

/* The starts asked for: one job, or each process's slowest. */
static uint32_t cp_starts(const struct rp *rp, int64_t *s, uint32_t max)
{
	uint32_t n = 0, k;

	if (rp->o.critical == 1) {
		int64_t i = rp->cp_map ? cp_find(rp, rp->o.cp_ctx,
						 rp->o.cp_seqno) : -1;

		if (i >= 0)
			s[n++] = i;
		return n;
	}
	for (k = 0; k < rp->nslowest && n < max; k++)
		if (rp->slowest[k] != NIL)
			s[n++] = rp->slowest[k];
	return n;
}

static void ring_str(const struct rp *rp, uint32_t ring, char *buf,
		     size_t len)
{
	const struct ring *r = &rp->rings[ring];

	if (r->described && r->name[0])
		snprintf(buf, len, "ring %" PRIu32 " %s", r->ring_id, r->name);
	else
		snprintf(buf, len, "ring %" PRIu32, r->ring_id);
}

/*
 * The wait hop @k of @h caused, "held CTX:SEQNO up T us; ": the dep_ns of
 * the hop before, which waited for it last ("" for the first hop).
 */
static void caused_str(const struct rp *rp, const struct hop *h, uint32_t k,
		       char *buf, size_t len)
{
	const struct why_node *by;

	if (!k) {
		buf[0] = '\0';
		return;
	}
	by = &rp->cp[h[k - 1].node];
	snprintf(buf, len, "held %" PRIu64 ":%" PRIu64 " up %.3f us; ",
		 by->ctx, by->seqno, (double)by->dep_ns / 1000.0);
}

void why_critical_text(struct rp *rp)
{
	int64_t *starts = xmalloc((rp->nwps + 1) * sizeof(*starts));
	struct hop *h = xmalloc(WHY_HOPS * sizeof(*h));
	char rb[96], pb[96], cb[96];
	uint32_t ns, s, n, k;
	int cut;

	ns = cp_starts(rp, starts, rp->nwps + 1);
	fprintf(rp->out, "\ncritical path (each job, and the dependency it waited for last, back to a job that waited on nothing):\n");
	if (!ns && rp->o.critical == 1)
		fprintf(rp->out, "  job %" PRIu64 ":%" PRIu64 " not found among the jobs reported (with a SUBMIT and a start)\n",
			rp->o.cp_ctx, rp->o.cp_seqno);
	for (s = 0; s < ns; s++) {
		n = chain(rp, starts[s], h, &cut);
		if (rp->o.critical == 2) {
			why_wp_str(rp, rp->cp[starts[s]].wp, pb, sizeof(pb));
			fprintf(rp->out, "\nslowest job of %s:\n", pb);
		}
		for (k = 0; k < n; k++) {
			const struct why_node *nd;

			caused_str(rp, h, k, cb, sizeof(cb));
			if (h[k].node < 0) {
				fprintf(rp->out, "  %" PRIu64 ":%" PRIu64 "  not in the trace (lost, or outside the window): %sthe path stops here\n",
					h[k].ctx, h[k].seqno, cb);
				break;
			}
			nd = &rp->cp[h[k].node];
			ring_str(rp, nd->ring, rb, sizeof(rb));
			why_wp_str(rp, nd->wp, pb, sizeof(pb));
			fprintf(rp->out, "  %" PRIu64 ":%" PRIu64 "  %s  %s  %swaited %.3f us (dep %.3f, sched %.3f, ring %.3f)%s\n",
				nd->ctx, nd->seqno, rb, pb, cb,
				(double)(nd->dep_ns + nd->sched_ns +
					 nd->ring_ns) / 1000.0,
				(double)nd->dep_ns / 1000.0,
				(double)nd->sched_ns / 1000.0,
				(double)nd->ring_ns / 1000.0,
				nd->dep ? ", last for:" : ", on no dependency");
		}
		if (cut)
			fprintf(rp->out, "  (path cut: %u hops, or a key seen twice)\n",
				WHY_HOPS);
	}
	free(h);
	free(starts);
}

void why_critical_json(struct rp *rp)
{
	int64_t *starts = xmalloc((rp->nwps + 1) * sizeof(*starts));
	struct hop *h = xmalloc(WHY_HOPS * sizeof(*h));
	struct line l = { .n = 0 };
	uint32_t ns, s, n, k;
	int cut;

	ns = cp_starts(rp, starts, rp->nwps + 1);
	l_str(&l, ",\n\"critical_paths\": [");
	for (s = 0; s < ns; s++) {
		n = chain(rp, starts[s], h, &cut);
		l_str(&l, s ? ",\n{\"hops\": [" : "\n{\"hops\": [");
		for (k = 0; k < n; k++) {
			const struct why_node *nd;
			const struct wproc *p;

			if (k)
				l_ch(&l, ',');
			l_str(&l, "{\"ctx\":");
			l_u64(&l, h[k].ctx);
			l_str(&l, ",\"seqno\":");
			l_u64(&l, h[k].seqno);
			/* The wait it caused: the job before's dep_ns. */
			l_str(&l, ",\"caused_ns\":");
			if (k)
				l_u64(&l, rp->cp[h[k - 1].node].dep_ns);
			else
				l_str(&l, "null");
			if (h[k].node < 0) {
				l_str(&l, ",\"in_trace\":false}");
				break;
			}
			nd = &rp->cp[h[k].node];
			p = &rp->wps[nd->wp];
			l_str(&l, ",\"in_trace\":true,\"ring\":");
			l_u64(&l, rp->rings[nd->ring].ring_id);
			l_str(&l, ",\"pid\":");
			if (p->pid == PROC_NONE)
				l_str(&l, "null");
			else
				l_u64(&l, p->pid);
			l_str(&l, ",\"comm\":");
			if (p->name)
				l_json_str(&l, p->name);
			else
				l_str(&l, "null");
			l_str(&l, ",\"dep_ns\":");
			l_u64(&l, nd->dep_ns);
			l_str(&l, ",\"sched_ns\":");
			l_u64(&l, nd->sched_ns);
			l_str(&l, ",\"ring_ns\":");
			l_u64(&l, nd->ring_ns);
			l_ch(&l, '}');
			l_flush_raw(&l, rp->out);
		}
		l_str(&l, "], \"cut\":");
		l_str(&l, cut ? "true}" : "false}");
		l_flush_raw(&l, rp->out);
	}
	l_str(&l, "\n]");
	l_flush_raw(&l, rp->out);
	if (!ns && rp->o.critical == 1)
		rp_warn(rp, "critical path: job %" PRIu64 ":%" PRIu64 " not found among the jobs reported (with a SUBMIT and a start)",
			rp->o.cp_ctx, rp->o.cp_seqno);
	free(h);
	free(starts);
}

void why_critical_each(struct rp *rp, why_hop_fn *fn)
{
	int64_t *starts = xmalloc((rp->nwps + 1) * sizeof(*starts));
	struct hop *h = xmalloc(WHY_HOPS * sizeof(*h));
	uint32_t ns, s, n, k;
	int cut;

	ns = cp_starts(rp, starts, rp->nwps + 1);
	for (s = 0; s < ns; s++) {
		n = chain(rp, starts[s], h, &cut);
		for (k = 0; k < n; k++)
			fn(rp, s, k, h[k].node >= 0 ? &rp->cp[h[k].node] : NULL,
			   h[k].ctx, h[k].seqno,
			   k ? &rp->cp[h[k - 1].node] : NULL);
	}
	free(h);
	free(starts);
}
