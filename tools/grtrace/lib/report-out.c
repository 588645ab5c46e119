// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report: what the writers of text, CSV and JSON share (fields,
 * tables, summaries).  The writers are report-text.c, report-json.c and
 * report-csv.c; output.c hands them the rows.
 *
 * Job rows are written as jobs finish.  JSON puts them first ("jobs"),
 * so the summaries, only known at the end, follow in the same object.
 * Text puts the summary first: its rows wait in a temporary file.  CSV
 * holds one table: the jobs, or the one summary asked for.
 */
#include "report-out.h"
#include "trace-file.h"

/* ---- job rows --------------------------------------------------------------------- */

static const char *const stamp_cols[NR_STAMPS] = {
	"submit_ts", "commit_ts", "start_ts", "end_ts", "complete_ts",
};

/* The stamps written with the one before them: "commit|complete". */
static void derived_str(const struct row *row, char *buf, size_t len)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < NR_STAMPS; k++) {
		if (!(row->derived & (1u << k)))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%.*s", n ? "|" : "",
				      (int)(strlen(stamp_cols[k]) - 3),
				      stamp_cols[k]);
		if (n >= len)
			break;
	}
}

void label_str(const struct row *row, char sep, char *buf, size_t len)
{
	size_t n = 0;
	int k;

	/* All the labels take 52 bytes: the callers' 128 never cut them. */
	buf[0] = '\0';
	for (k = 0; k < NR_LABELS && row->labels; k++) {
		size_t m;

		if (!(row->labels & (1u << k)))
			continue;
		m = strlen(rp_label_names[k]);
		if (n + 1 + m >= len)
			break;
		if (n)
			buf[n++] = sep;
		memcpy(buf + n, rp_label_names[k], m + 1);
		n += m;
	}
}

/* A job's fields; with @f->header, @row is NULL. */
void job_fields(const struct rp *rp, struct fields *f,
		const struct row *row)
{
	static const struct row none;
	const struct ring *r = row ? &rp->rings[row->ring] : NULL;
	char ebuf[16], lbuf[128], dbuf[64];
	const struct grf_task *t;
	struct submitter s;
	const char *comm;
	int k, by;

	if (!row)
		row = &none;
	f_u64(f, "ctx", row->ctx);
	f_u64(f, "seqno", row->seqno);
	f_u64(f, "ring", r ? r->ring_id : 0);
	f_str(f, "ring_name", r && r->described ? r->name : NULL);
	f_str(f, "engine", gr_engine_name(row->engine, ebuf, sizeof(ebuf)));
	for (k = 0; k < NR_STAMPS; k++)
		f_opt(f, stamp_cols[k], row->have & (1u << k), row->ts[k]);
	for (k = 0; k < NR_METRICS; k++)
		f_opt(f, rp_metric_names[k], row->mhave & (1u << k), row->m[k]);
	f_bool(f, "start_derived", row->start_derived);
	derived_str(row, dbuf, sizeof(dbuf));
	f_str(f, "derived", dbuf[0] ? dbuf : NULL);
	f_opt(f, "queue_depth", row->have & (1u << ST_COMMIT), row->qsize);
	f_u64(f, "preempts", row->preempts);
	if (row->errors) {
		if (f_key(f, "error"))
			l_i64(f->l, row->error);
	} else {
		f_na(f, "error");
	}
	label_str(row, '|', lbuf, sizeof(lbuf));
	f_str(f, "label", lbuf);
	/*
	 * Who submitted it: the process holding its DRM client when the
	 * client table names it, else its SUBMIT's task's (format 2), else
	 * NA; the thread is the one that ran the SUBMIT (a kworker, for a job
	 * pushed from one).  The names are from the file's tables.
	 */
	by = rp_submitter(rp, row, &s);
	comm = s.comm;
	if (s.client && row->has_task && (t = rp_task(rp, row->tid)))
		comm = t->comm;
	f_opt(f, "pid", by, s.pid);
	f_opt(f, "tid", row->has_task, row->tid);
	f_str(f, "comm", comm);
	f_str(f, "process", by ? s.process : NULL);
	/* The DRM client its SUBMIT came through (6.16 on). */
	f_opt(f, "client_id", row->has_client, row->client);
	if (rp->o.why)
		why_fields(rp, f, row);
}

/* A process of the why tables as JSON members "pid" and "comm". */
static void why_proc_json(const struct rp *rp, struct line *l, uint32_t wp)
{
	const struct wproc *p = &rp->wps[wp];

	/* waited_behind's entry for the processes past a job's RP_BEHIND. */
	if (p->pid == PROC_OTHER) {
		l_str(l, "\"pid\":null,\"comm\":null,\"other\":true");
		return;
	}
	l_str(l, "\"pid\":");
	if (p->pid == PROC_NONE)
		l_str(l, "null");
	else
		l_u64(l, p->pid);
	l_str(l, ",\"comm\":");
	if (p->name)
		l_json_str(l, p->name);
	else
		l_str(l, "null");
}

/* "comm/pid:ns|...|other:ns" of a why's behind list: CSV, the export. */
void why_behind_str(const struct rp *rp, const struct why *w, char *buf,
		    size_t len)
{
	size_t n = 0;
	uint32_t k;
	char pb[96];

	buf[0] = '\0';
	for (k = 0; k < w->nbehind && n < len; k++) {
		why_wp_str(rp, w->behind[k].wp, pb, sizeof(pb));
		n += (size_t)snprintf(buf + n, len - n, "%s%s:%" PRIu64,
				      k ? "|" : "", pb, w->behind[k].ns);
	}
	if (w->behind_rest && n < len)
		snprintf(buf + n, len - n, "%sother:%" PRIu64, n ? "|" : "",
			 w->behind_rest);
}

/*
 * --why: JSON "why": {dep_ns, dep_on, sched_ns, ring_ns, behind}; CSV the
 * same as flat columns (dep_on as "ctx:seqno" with its job's ring and
 * "comm/pid" beside it, behind as "comm/pid:ns|...").
 */
void why_fields(const struct rp *rp, struct fields *f, const struct row *row)
{
	const struct why *w = row ? &row->why : NULL;
	struct line *l = f->l;
	char buf[1024];
	uint32_t k;

	if (!f->json) {
		int have = w && w->have;
		int known = have && w->dep && w->dep_known;

		f_opt(f, "why_dep_ns", have, have ? w->dep_ns : 0);
		if (have && w->dep)
			snprintf(buf, sizeof(buf), "%" PRIu64 ":%" PRIu64,
				 w->dep_ctx, w->dep_seqno);
		f_str(f, "why_dep_on", have && w->dep ? buf : NULL);
		/* Its job's ring and process, when that job is in the trace. */
		f_opt(f, "why_dep_ring", known,
		      known ? rp->rings[w->dep_ring].ring_id : 0);
		if (known)
			why_wp_str(rp, w->dep_wp, buf, sizeof(buf));
		f_str(f, "why_dep_process", known ? buf : NULL);
		f_opt(f, "why_sched_ns", have, have ? w->sched_ns : 0);
		f_opt(f, "why_ring_ns", have, have ? w->ring_ns : 0);
		if (have)
			why_behind_str(rp, w, buf, sizeof(buf));
		f_str(f, "why_behind", have ? buf : NULL);
		return;
	}
	if (!f_key(f, "why"))
		return;
	if (!w->have) {
		l_str(l, "null");
		return;
	}
	l_str(l, "{\"dep_ns\":");
	l_u64(l, w->dep_ns);
	l_str(l, ",\"dep_on\":");
	if (!w->dep) {
		l_str(l, "null");
	} else {
		l_str(l, "{\"ctx\":");
		l_u64(l, w->dep_ctx);
		l_str(l, ",\"seqno\":");
		l_u64(l, w->dep_seqno);
		/* Its job not in the trace: the fence alone is known. */
		l_str(l, ",\"in_trace\":");
		l_str(l, w->dep_known ? "true" : "false");
		if (w->dep_known) {
			l_str(l, ",\"ring\":");
			l_u64(l, rp->rings[w->dep_ring].ring_id);
			l_ch(l, ',');
			why_proc_json(rp, l, w->dep_wp);
		}
		l_ch(l, '}');
	}
	l_str(l, ",\"sched_ns\":");
	l_u64(l, w->sched_ns);
	l_str(l, ",\"ring_ns\":");
	l_u64(l, w->ring_ns);
	l_str(l, ",\"behind\":[");
	for (k = 0; k < w->nbehind; k++) {
		if (k)
			l_ch(l, ',');
		l_ch(l, '{');
		why_proc_json(rp, l, w->behind[k].wp);
		l_str(l, ",\"ns\":");
		l_u64(l, w->behind[k].ns);
		l_ch(l, '}');
	}
	l_str(l, "],\"behind_other_ns\":");
	l_u64(l, w->behind_rest);
	l_ch(l, '}');
}

void submitter_str(const struct rp *rp, const struct row *row, char *buf,
		   size_t len)
{
	struct submitter s;

	if (!rp_submitter(rp, row, &s))
		snprintf(buf, len, "-");
	else if (s.client)
		snprintf(buf, len, "%s/%" PRIu32, s.process, s.pid);
	else if (s.comm)
		snprintf(buf, len, "%s/%" PRIu32, s.comm, s.tid);
	else
		snprintf(buf, len, "%" PRIu32 "/%" PRIu32, s.pid, s.tid);
}

/* The CSV header of a table: its writer in header mode. */
void csv_header(struct rp *rp, FILE *out, table_fn *fn)
{
	struct line l = { .n = 0 };
	struct fields f = { .l = &l, .json = 0, .header = 1 };

	fn(rp, &f, NULL);
	l_flush(&l, out);
}

void job_table(struct rp *rp, struct fields *f, void *row)
{
	job_fields(rp, f, row);
}

/* ---- summaries of rings and contexts ------------------------------------------------ */

double pct_of(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

int group_exact(const struct group *g)
{
	int k;

	for (k = 0; k < NR_METRICS; k++)
		if (!pctl_is_exact(&g->metric[k]))
			return 0;
	return 1;
}

/* A group's latencies and labels: what a process's group has too. */
static void metric_fields(struct fields *f, struct group *g)
{
	static const unsigned int pcts[] = { 50, 90, 99 };
	char key[64];
	size_t i;
	int k;

	for (k = 0; k < NR_METRICS; k++) {
		struct pctl *p = g ? &g->metric[k] : NULL;

		snprintf(key, sizeof(key), "%s_count", rp_metric_names[k]);
		f_u64(f, key, p ? p->n : 0);
		for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
			snprintf(key, sizeof(key), "%s_p%u", rp_metric_names[k],
				 pcts[i]);
			f_opt(f, key, p && p->n, p && p->n ? pctl_get(p, pcts[i]) : 0);
		}
		snprintf(key, sizeof(key), "%s_max", rp_metric_names[k]);
		f_opt(f, key, p && p->n, p ? p->max : 0);
	}
	for (k = 0; k < NR_LABELS; k++) {
		snprintf(key, sizeof(key), "%s_pct", rp_label_names[k]);
		f_dbl(f, key, g ? pct_of(g->labels[k], g->jobs) : 0);
	}
	f_bool(f, "pct_exact", g ? group_exact(g) : 1);
}

static void group_fields(struct rp *rp, struct fields *f, struct group *g)
{
	uint64_t window = rp_window(rp);

	f_u64(f, "jobs", g ? g->jobs : 0);
	f_u64(f, "window_ns", window);
	f_u64(f, "busy_ns", g ? group_busy(g) : 0);
	f_dbl(f, "busy_pct", g ? pct_of(group_busy(g), window) : 0);
	f_u64(f, "active_ns", g ? group_active(g) : 0);
	f_dbl(f, "busy_active_pct", g ? pct_of(group_busy(g), group_active(g)) : 0);
	f_dbl(f, "depth_avg", g && window ? g->depth_area / (double)window : 0);
	f_u64(f, "depth_max", g ? g->depth_max : 0);
	metric_fields(f, g);
}

void ring_table(struct rp *rp, struct fields *f, void *item)
{
	struct ring *r = item;
	char ebuf[16], hint[512];
	int kind;

	f_u64(f, "ring", r ? r->ring_id : 0);
	f_str(f, "ring_name", r && r->described ? r->name : NULL);
	f_str(f, "engine", r ? gr_engine_name(r->engine, ebuf, sizeof(ebuf)) : "");
	f_str(f, "driver", r && r->described ? r->driver : NULL);
	f_str(f, "device", r && r->described ? r->device : NULL);
	group_fields(rp, f, r ? &r->g : NULL);
	f_u64(f, "saturated_ns", r ? ring_saturated(rp, r, hint, sizeof(hint)) : 0);
	/* The text's "bottleneck:" and "queueing:" lines, apart. */
	kind = r ? ring_hint(rp, r, hint, sizeof(hint)) : 0;
	f_str(f, "bottleneck", kind == 1 ? hint : NULL);
	f_str(f, "queueing", kind == 2 ? hint : NULL);
	f_str(f, "hung", r && ring_hung(rp, r, hint, sizeof(hint)) ?
	      hint : NULL);
}

void ctx_table(struct rp *rp, struct fields *f, void *item)
{
	struct ctx *c = item;

	f_u64(f, "ctx", c ? c->ctx : 0);
	group_fields(rp, f, c ? c->g : NULL);
}

void proc_table(struct rp *rp, struct fields *f, void *item)
{
	struct proc *p = item;

	(void)rp;
	f_opt(f, "pid", p && p->pid != PROC_NONE, p ? p->pid : 0);
	f_str(f, "process", p && p->pid == PROC_NONE ? "(no submitter data)" :
	      p ? p->name : NULL);
	f_u64(f, "threads", p ? p->threads : 0);
	f_u64(f, "jobs", p ? p->g.jobs : 0);
	metric_fields(f, p ? &p->g : NULL);
	f_u64(f, "clients", p ? p->clients : 0);
	if (rp->o.why)
		waited_fields(rp, f, p);
}

/*
 * --per-process --why: the ns the process's jobs waited behind each
 * process, most first, in all and per ring.  JSON "waited_behind": [{pid,
 * comm, ns, "rings": [{ring, ns}]}]; CSV "comm/pid:ns|..." and, per ring,
 * "waited_behind_rings" "comm/pid@RING:ns|...".
 */
void waited_fields(struct rp *rp, struct fields *f, const struct proc *p)
{
	struct why_wb *wb = NULL, *per = NULL;
	char buf[2048], pb[96];
	uint32_t n = 0, nr = 0, k, i;
	size_t m = 0;
	int first;

	if (p) {
		wb = why_waited(rp, p->pid, &n, 0);
		per = why_waited(rp, p->pid, &nr, 1);
	}
	if (!f->json) {
		buf[0] = '\0';
		for (k = 0; k < n && m < sizeof(buf); k++) {
			why_wp_str(rp, wb[k].holder, pb, sizeof(pb));
			m += (size_t)snprintf(buf + m, sizeof(buf) - m,
					      "%s%s:%" PRIu64, k ? "|" : "",
					      pb, wb[k].ns);
		}
		f_str(f, "waited_behind", buf);
		buf[0] = '\0';
		for (i = 0, m = 0; i < nr && m < sizeof(buf); i++) {
			why_wp_str(rp, per[i].holder, pb, sizeof(pb));
			m += (size_t)snprintf(buf + m, sizeof(buf) - m,
					      "%s%s@%" PRIu32 ":%" PRIu64,
					      i ? "|" : "", pb,
					      rp->rings[per[i].ring].ring_id,
					      per[i].ns);
		}
		f_str(f, "waited_behind_rings", buf);
		free(wb);
		free(per);
		return;
	}
	if (f_key(f, "waited_behind")) {
		l_ch(f->l, '[');
		for (k = 0; k < n; k++) {
			if (k)
				l_ch(f->l, ',');
			l_ch(f->l, '{');
			why_proc_json(rp, f->l, wb[k].holder);
			l_str(f->l, ",\"ns\":");
			l_u64(f->l, wb[k].ns);
			l_str(f->l, ",\"rings\":[");
			for (i = 0, first = 1; i < nr; i++) {
				if (per[i].holder != wb[k].holder)
					continue;
				l_str(f->l, first ? "{\"ring\":" : ",{\"ring\":");
				l_u64(f->l, rp->rings[per[i].ring].ring_id);
				l_str(f->l, ",\"ns\":");
				l_u64(f->l, per[i].ns);
				l_ch(f->l, '}');
				first = 0;
			}
			l_str(f->l, "]}");
		}
		l_ch(f->l, ']');
	}
	free(wb);
	free(per);
}

void eng_table(struct rp *rp, struct fields *f, void *item)
{
	struct eng *e = item;
	char name[16];

	(void)rp;
	f_u64(f, "engine_class", e ? e->engine : 0);
	f_str(f, "engine", e ? gr_engine_name(e->engine, name, sizeof(name)) : NULL);
	f_u64(f, "rings", e ? e->rings : 0);
	f_u64(f, "jobs", e ? e->g.jobs : 0);
	metric_fields(f, e ? &e->g : NULL);
}

/* Rings and contexts are listed when some selected job ran on them. */
int ring_listed(const struct ring *r)
{
	return r->g.jobs || r->g.depth_max;
}

int ctx_listed(const struct ctx *c)
{
	return c->g->jobs || c->g->depth_max;
}

/* Every listed item of a table, as CSV lines or a JSON array's objects. */
void table_rows(struct rp *rp, table_fn *fn, int json, int kind)
{
	uint32_t i, n, out = 0;

	n = kind == TB_RINGS ? rp->nrings : kind == TB_CTXS ? rp->nctxs :
	    kind == TB_ENGS ? rp->nengs : rp->nprocs;
	for (i = 0; i < n; i++) {
		struct line l = { .n = 0 };
		struct fields f = { .l = &l, .json = json, .header = 0 };
		void *item;

		if (kind == TB_RINGS) {
			if (!ring_listed(&rp->rings[i]))
				continue;
			item = &rp->rings[i];
		} else if (kind == TB_CTXS) {
			if (!ctx_listed(&rp->ctxs[i]))
				continue;
			item = &rp->ctxs[i];
		} else if (kind == TB_ENGS) {
			item = &rp->engs[i];
		} else {
			item = &rp->procs[i];
		}
		if (json)
			l_str(&l, out ? ",\n{" : "\n{");
		fn(rp, &f, item);
		if (json) {
			l_ch(&l, '}');
			fwrite(l.b, 1, l.n, rp->out);
		} else {
			l_flush(&l, rp->out);
		}
		out++;
	}
}

/* ---- top-N ---------------------------------------------------------------------------- */

static int cmp_slowest(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->m[M_TOTAL] != y->m[M_TOTAL])
		return x->m[M_TOTAL] > y->m[M_TOTAL] ? -1 : 1;
	return x->first_gseq < y->first_gseq ? -1 : x->first_gseq > y->first_gseq;
}

void sort_top(struct rp *rp)
{
	qsort(rp->top, rp->ntop, sizeof(*rp->top), cmp_slowest);
}

/*
 * Fold the per-bit-length counts into 12 buckets ending at the largest
 * value: bucket 0 is [0, 2^(t-11)), bucket i is [2^(t-12+i), 2^(t-11+i)).
 */
void hist_fold(const struct rp *rp, struct hist *h)
{
	unsigned int len, top = 0;

	memset(h, 0, sizeof(*h));
	for (len = 0; len < LOG2_BUCKETS; len++)
		if (rp->hist[len])
			top = len;
	h->t = top > HIST_BUCKETS - 1 ? top : HIST_BUCKETS - 1;
	for (len = 0; len <= top; len++) {
		unsigned int b = len + HIST_BUCKETS - 1 > h->t ?
				 len + HIST_BUCKETS - 1 - h->t : 0;

		h->count[b] += rp->hist[len];
	}
}

/* Bound @i (0..12) of @h: 0, then powers of two up to 2^t. */
void hist_bound(const struct hist *h, unsigned int i, struct line *l)
{
	unsigned int e = h->t + i - HIST_BUCKETS;

	if (!i)
		l_ch(l, '0');
	else if (e == 64)
		l_str(l, "18446744073709551616");
	else
		l_u64(l, 1ull << e);
}

const char *hist_metric(const struct rp *rp)
{
	return rp->o.hist == RP_HIST_LAT ? "t_total" : "queue_depth";
}

/* ---- the result of the events: written, lost, dropped ------------------------------------- */

const char result_note[] =
	"drops by reason are not in a trace file: the module counts them in its stats file; 'grtrace report --live' adds them, or see the summary of 'grtrace record'";

uint64_t events_written(const struct rp *rp)
{
	uint64_t n = 0;
	int t;

	for (t = 0; t < GRTRACE_EV_NR_JOB_TYPES; t++)
		n += rp->by_type[t];
	return n;
}

int is_drop_key(const char *key)
{
	return !strncmp(key, "dropped_", 8) && strcmp(key, "dropped_total");
}

/* The result table: name, count; the stats file's drops when live. */
void result_rows(struct rp *rp, const struct rp_input *in,
		 void (*row)(struct rp *, const char *, uint64_t, uint64_t),
		 uint64_t max)
{
	int i;

	row(rp, "written", events_written(rp), max);
	row(rp, "lost", rp_records_lost(rp), max);
	for (i = 0; in->stats && i < in->stats->n; i++)
		if (is_drop_key(in->stats->ent[i].key))
			row(rp, in->stats->ent[i].key, in->stats->ent[i].val, max);
}

uint64_t result_max(const struct rp *rp, const struct rp_input *in)
{
	uint64_t max = events_written(rp);
	int i;

	if (rp_records_lost(rp) > max)
		max = rp_records_lost(rp);
	for (i = 0; in->stats && i < in->stats->n; i++)
		if (is_drop_key(in->stats->ent[i].key) &&
		    in->stats->ent[i].val > max)
			max = in->stats->ent[i].val;
	return max;
}
