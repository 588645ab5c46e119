// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace diff: compare two recordings, per ring, per engine class and per
 * process, and say which changes are real (grtrace_diff()).
 *
 * Each input is read by the report's engine (report.c) with a sink of its
 * own: every finished job's t_queue, t_exec, t_gpu_wait and t_total go to
 * its ring's, its engine class's and its process's samples; at the end
 * the sink takes each ring's name, class, busy share and bottleneck
 * verdict, and the input's losses.  Then the groups of the two sides are
 * matched by name -- ring ids differ between boots, pids between runs --
 * and each metric's two samples are compared with the Mann-Whitney U test
 * (stats-diff.c).  The p-values of all comparisons of a diff are adjusted
 * by Holm's method, so --alpha bounds the chance that a diff of two runs
 * of one distribution flags anything at all.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "report-out.h"
#include "stats-diff.h"
#include "u64map.h"

/* Values kept per group and metric: beyond, a uniform sample of them. */
#define DIFF_CAP	(1u << 18)

enum { DG_RING, DG_ENGINE, DG_PROCESS, NR_DG };
static const char *const dg_names[NR_DG] = { "ring", "engine", "process" };

/* The metrics compared, in output order. */
#define DIFF_NM	4
static const unsigned int diff_metric[DIFF_NM] = {
	M_QUEUE, M_EXEC, M_GPU_WAIT, M_TOTAL,
};

/* The comparisons of a group: its jobs, the metrics, its busy share. */
enum { DC_JOBS, DC_METRIC, DC_BUSY = DC_METRIC + DIFF_NM, NR_DC };

static const unsigned int diff_pcts[3] = { 50, 90, 99 };

struct dvals {
	uint64_t *v;
	uint32_t n, cap;
	uint64_t seen;
};

struct dgroup {
	int kind;			/* DG_* */
	char name[96];
	char kind_name[16];		/* a ring's engine class */
	char device[40];		/* a ring's, to tell same names apart */
	uint64_t key;			/* ring index, class, or name hash */
	uint64_t jobs;
	struct dvals m[DIFF_NM];
	int is_ring_desc;		/* a ring seen by the engine */
	double busy_pct;
	const char *verdict;		/* "saturated", "queueing", "ok" */
	int matched;
};

struct dside {
	const char *label;		/* "A" or "B" */
	const char *name;		/* the input's name */
	struct dgroup *g;
	uint32_t ng, cap;
	struct u64map *map[NR_DG];	/* key -> index in @g */
	struct u64map *pid_map;		/* pid + 1 (0: none) -> process group */
	uint64_t jobs, lost, window, incomplete, evicted;
	char error[GR_ERRMSG_LEN];
	uint64_t rng;
};

struct dcmp {
	int kind;			/* DG_* */
	int what;			/* DC_* */
	const struct dgroup *ga, *gb;	/* NULL: on the other side only */
	uint64_t na, nb;
	uint64_t a[3], b[3];		/* p50, p90, p99 */
	double va, vb;			/* jobs: rate; busy: busy % */
	int none_a, none_b;		/* a metric: no sample on that side */
	int tested;
	struct sd_test t;
	double padj;
	int flagged;
};

struct diff {
	struct diff_opts o;
	struct dside s[2];
	struct dcmp *c;
	size_t nc, cap;
	uint64_t flagged, regressions;
};

/* ---- collecting a side ---------------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return mix64(h);
}

static uint64_t side_rnd(struct dside *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

static void dvals_add(struct dside *s, struct dvals *d, uint64_t v)
{
	uint64_t k;

	d->seen++;
	if (d->n < DIFF_CAP) {
		if (d->n == d->cap) {
			d->cap = d->cap ? d->cap * 2 : 64;
			d->v = xrealloc(d->v, d->cap * sizeof(*d->v));
		}
		d->v[d->n++] = v;
		return;
	}
	/* Reservoir sampling: every value kept with chance CAP / seen. */
	k = side_rnd(s) % d->seen;
	if (k < DIFF_CAP)
		d->v[k] = v;
}

static struct dgroup *side_group(struct dside *s, int kind, uint64_t key,
				 const char *name)
{
	int64_t i = u64map_get(s->map[kind], key);
	struct dgroup *g;

	if (i >= 0)
		return &s->g[i];
	if (s->ng == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->g = xrealloc(s->g, s->cap * sizeof(*s->g));
	}
	g = &s->g[s->ng];
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->key = key;
	g->verdict = "ok";
	if (name)
		snprintf(g->name, sizeof(g->name), "%s", name);
	u64map_set(s->map[kind], key, s->ng++);
	return g;
}

/* The process group of @row: by the name of its process. */
static struct dgroup *proc_group(struct rp *rp, struct dside *s,
				 const struct row *row)
{
	struct submitter sub;
	char name[64];
	uint64_t pkey;
	int64_t i;

	if (!rp_submitter(rp, row, &sub)) {
		pkey = 0;
		snprintf(name, sizeof(name), "(no submitter data)");
	} else {
		pkey = (uint64_t)sub.pid + 1;
		if (sub.process && *sub.process)
			snprintf(name, sizeof(name), "%s", sub.process);
		else if (sub.comm && *sub.comm)
			snprintf(name, sizeof(name), "%s", sub.comm);
		else
			snprintf(name, sizeof(name), "pid %" PRIu32, sub.pid);
	}
	i = u64map_get(s->pid_map, pkey);
	if (i >= 0)
		return &s->g[i];
	/* A pid first seen: its name's group, new or not. */
	side_group(s, DG_PROCESS, hash_str(name), name);
	i = u64map_get(s->map[DG_PROCESS], hash_str(name));
	u64map_set(s->pid_map, pkey, (uint32_t)i);
	return &s->g[i];
}

static void diff_row(struct rp *rp, const struct row *row)
{
	struct dside *s = rp->sink_state;
	struct dgroup *g;
	size_t at[NR_DG];
	int k, m;

	s->jobs++;
	/*
	 * Indices, not pointers: a group made by a later lookup may move
	 * s->g (xrealloc()), and a pointer taken before would dangle.  Each
	 * index is taken after its call: in "call() - s->g" C may read s->g
	 * first.
	 */
	g = side_group(s, DG_RING, row->ring, NULL);
	at[DG_RING] = g - s->g;
	g = side_group(s, DG_ENGINE, row->engine, NULL);
	at[DG_ENGINE] = g - s->g;
	g = proc_group(rp, s, row);
	at[DG_PROCESS] = g - s->g;
	for (k = 0; k < NR_DG; k++) {
		g = &s->g[at[k]];
		g->jobs++;
		for (m = 0; m < DIFF_NM; m++)
			if (row->mhave & (1u << diff_metric[m]))
				dvals_add(s, &g->m[m], row->m[diff_metric[m]]);
	}
}

static int diff_end(struct rp *rp, const struct rp_input *in)
{
	struct dside *s = rp->sink_state;
	uint64_t window = rp_window(rp);
	char hint[512], ebuf[16];
	uint32_t i;

	s->window = window;
	s->lost = rp_records_lost(rp);
	s->incomplete = rp->jobs_incomplete;
	s->evicted = rp->jobs_evicted;
	if (in->error)
		snprintf(s->error, sizeof(s->error), "%s", in->error);
	for (i = 0; i < rp->nrings; i++) {
		struct ring *r = &rp->rings[i];
		struct dgroup *g;
		int h;

		if (!ring_listed(r) && u64map_get(s->map[DG_RING], i) < 0)
			continue;
		g = side_group(s, DG_RING, i, NULL);
		g->is_ring_desc = 1;
		if (r->described && r->name[0])
			snprintf(g->name, sizeof(g->name), "%s", r->name);
		else
			snprintf(g->name, sizeof(g->name), "ring %" PRIu32,
				 r->ring_id);
		snprintf(g->device, sizeof(g->device), "%s",
			 r->described ? r->device : "");
		snprintf(g->kind_name, sizeof(g->kind_name), "%s",
			 gr_engine_name(r->engine, ebuf, sizeof(ebuf)));
		g->busy_pct = window ? 100.0 * (double)group_busy(&r->g) /
				       (double)window : 0;
		h = ring_hint(rp, r, hint, sizeof(hint));
		g->verdict = h == 1 ? "saturated" : h == 2 ? "queueing" : "ok";
	}
	for (i = 0; i < s->ng; i++)
		if (s->g[i].kind == DG_ENGINE)
			snprintf(s->g[i].name, sizeof(s->g[i].name), "%s",
				 gr_engine_name((uint16_t)s->g[i].key, ebuf,
						sizeof(ebuf)));
	return 0;
}

/* Not in the table of sinks.c: "grtrace diff" reads it. */
static const struct rp_sink diff_sink = {
	.name = "diff",
	.summary = "the jobs' samples, to grtrace diff",
	.row = diff_row,
	.end = diff_end,
};

/*
 * Two rings of one side with one name and class: the device tells them
 * apart.  Every ring that shares its name is found first, then renamed:
 * renamed as found, the first of two GPUs' "gfx0" was no longer the
 * second's name, and the second kept the bare name, which named one GPU
 * in one recording and the other in the next.
 */
static void ring_names(struct dside *s)
{
	unsigned char *dup;
	uint32_t i, j;

	if (!s->ng)
		return;
	dup = xmalloc(s->ng);
	memset(dup, 0, s->ng);
	for (i = 0; i < s->ng; i++) {
		if (s->g[i].kind != DG_RING)
			continue;
		for (j = i + 1; j < s->ng; j++)
			if (s->g[j].kind == DG_RING &&
			    !strcmp(s->g[j].name, s->g[i].name) &&
			    !strcmp(s->g[j].kind_name, s->g[i].kind_name))
				dup[i] = dup[j] = 1;
	}
	for (i = 0; i < s->ng; i++) {
		size_t n = strlen(s->g[i].name);

		if (dup[i] && s->g[i].device[0])
			snprintf(s->g[i].name + n, sizeof(s->g[i].name) - n,
				 "@%s", s->g[i].device);
	}
	free(dup);
}

void diff_opts_init(struct diff_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = 0.01;
	o->min_change = 5.0;
	o->form = DIFF_TEXT;
	o->name[0] = "A";
	o->name[1] = "B";
}

struct diff *diff_new(const struct diff_opts *o)
{
	struct diff *d = xmalloc(sizeof(*d));
	int i, k;

	memset(d, 0, sizeof(*d));
	d->o = *o;
	for (i = 0; i < 2; i++) {
		d->s[i].label = i ? "B" : "A";
		d->s[i].name = o->name[i];
		d->s[i].rng = 0x9e3779b97f4a7c15ULL + (uint64_t)i;
		for (k = 0; k < NR_DG; k++)
			d->s[i].map[k] = u64map_new();
		d->s[i].pid_map = u64map_new();
	}
	return d;
}

void diff_side_opts(struct diff *d, int side, struct rp_opts *o)
{
	memset(o, 0, sizeof(*o));
	rp_default_rules(&o->rules);
	o->sink = &diff_sink;
	o->per_ring = 1;
	o->limit = UINT64_MAX;
	o->max_open = 1u << 17;
	o->interval = 100000000;
	(void)d;
	(void)side;
}

void *diff_side_state(struct diff *d, int side)
{
	return &d->s[side];
}

/* ---- comparing ------------------------------------------------------------------- */

static struct dcmp *new_cmp(struct diff *d, int kind, int what,
			    const struct dgroup *ga, const struct dgroup *gb)
{
	struct dcmp *c;

	if (d->nc == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->c = xrealloc(d->c, d->cap * sizeof(*d->c));
	}
	c = &d->c[d->nc++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->what = what;
	c->ga = ga;
	c->gb = gb;
	c->padj = 1;
	c->t.p = 1;
	return c;
}

static double rate(const struct dgroup *g, const struct dside *s)
{
	return s->window ? (double)g->jobs * 1e9 / (double)s->window : 0;
}

static void compare_groups(struct diff *d, int kind, const struct dgroup *ga,
			   const struct dgroup *gb)
{
	struct dcmp *c;
	int m, k;

	c = new_cmp(d, kind, DC_JOBS, ga, gb);
	c->na = ga ? ga->jobs : 0;
	c->nb = gb ? gb->jobs : 0;
	c->va = ga ? rate(ga, &d->s[0]) : 0;
	c->vb = gb ? rate(gb, &d->s[1]) : 0;
	if (!ga || !gb)
		return;		/* one side only: its jobs are the line */
	for (m = 0; m < DIFF_NM; m++) {
		struct dvals *a = (struct dvals *)&ga->m[m];
		struct dvals *b = (struct dvals *)&gb->m[m];

		if (!a->n && !b->n)
			continue;
		c = new_cmp(d, kind, DC_METRIC + m, ga, gb);
		c->na = a->seen;
		c->nb = b->seen;
		/* Not measured on one side (a kernel without the event). */
		c->none_a = !a->n;
		c->none_b = !b->n;
		c->tested = sd_mann_whitney(a->v, a->n, b->v, b->n, &c->t) == 0;
		for (k = 0; k < 3; k++) {
			c->a[k] = a->n ? sd_percentile(a->v, a->n, diff_pcts[k]) : 0;
			c->b[k] = b->n ? sd_percentile(b->v, b->n, diff_pcts[k]) : 0;
		}
	}
	if (kind == DG_RING && ga->is_ring_desc && gb->is_ring_desc) {
		c = new_cmp(d, kind, DC_BUSY, ga, gb);
		c->va = ga->busy_pct;
		c->vb = gb->busy_pct;
	}
}

/* The change from @a to @b in percent; NAN when @a is 0 and @b is not. */
static double change_pct(double a, double b)
{
	if (a == b)
		return 0;
	if (a == 0)
		return b > a ? INFINITY : -INFINITY;
	return 100.0 * (b - a) / a;
}

/*
 * Flagged: the adjusted p-value is below alpha, and a percentile moved by
 * --min-change or more the way the test found (the largest such move).
 */
static int cmp_flag(const struct diff *d, const struct dcmp *c)
{
	int k;

	if (!c->tested || c->padj >= d->o.alpha || !c->t.dir)
		return 0;
	for (k = 0; k < 3; k++) {
		double ch = change_pct((double)c->a[k], (double)c->b[k]);

		if (ch * c->t.dir > 0 && fabs(ch) >= d->o.min_change)
			return 1;
	}
	return 0;
}

static void match(struct diff *d)
{
	struct dside *a = &d->s[0], *b = &d->s[1];
	double *p, *adj;
	size_t i, n = 0;
	uint32_t x, y;
	int kind;

	ring_names(a);
	ring_names(b);
	for (kind = 0; kind < NR_DG; kind++) {
		for (x = 0; x < a->ng; x++) {
			struct dgroup *ga = &a->g[x], *gb = NULL;

			if (ga->kind != kind)
				continue;
			for (y = 0; y < b->ng && !gb; y++)
				if (b->g[y].kind == kind && !b->g[y].matched &&
				    !strcmp(b->g[y].name, ga->name) &&
				    !strcmp(b->g[y].kind_name, ga->kind_name))
					gb = &b->g[y];
			if (gb)
				gb->matched = 1;
			ga->matched = 1;
			if (ga->jobs || (gb && gb->jobs))
				compare_groups(d, kind, ga, gb);
		}
		for (y = 0; y < b->ng; y++)
			if (b->g[y].kind == kind && !b->g[y].matched &&
			    b->g[y].jobs)
				compare_groups(d, kind, NULL, &b->g[y]);
	}
	/* Holm over every test of the diff. */
	p = xmalloc((d->nc + 1) * sizeof(*p));
	adj = xmalloc((d->nc + 1) * sizeof(*adj));
	for (i = 0; i < d->nc; i++)
		if (d->c[i].tested)
			p[n++] = d->c[i].t.p;
	sd_holm(p, adj, n);
	for (i = 0, n = 0; i < d->nc; i++) {
		struct dcmp *c = &d->c[i];

		if (!c->tested)
			continue;
		c->padj = adj[n++];
		c->flagged = cmp_flag(d, c);
		if (c->flagged) {
			d->flagged++;
			if (c->t.dir > 0)
				d->regressions++;
		}
	}
	free(p);
	free(adj);
}

/* ---- output ---------------------------------------------------------------------- */

static const char *cmp_metric(const struct dcmp *c)
{
	if (c->what == DC_JOBS)
		return "jobs";
	if (c->what == DC_BUSY)
		return "busy_pct";
	return rp_metric_names[diff_metric[c->what - DC_METRIC]];
}

static const struct dgroup *cmp_group(const struct dcmp *c)
{
	return c->ga ? c->ga : c->gb;
}

static const char *cmp_only(const struct dcmp *c)
{
	return !c->gb ? "A" : !c->ga ? "B" : NULL;
}

static const char *cmp_dir(const struct dcmp *c)
{
	if (!c->tested || !c->t.dir)
		return "same";
	return c->t.dir > 0 ? "slower" : "faster";
}

static void t_change(FILE *f, double ch)
{
	if (isinf(ch))
		fprintf(f, "%s", ch > 0 ? "+inf" : "-inf");
	else
		fprintf(f, "%+.1f%%", ch);
}

static void t_lost(const struct diff *d, FILE *f)
{
	if (d->s[0].lost || d->s[1].lost)
		fprintf(f, "  [lost records: A %" PRIu64 ", B %" PRIu64 "]",
			d->s[0].lost, d->s[1].lost);
}

static void t_group(FILE *f, const struct dcmp *c)
{
	const struct dgroup *g = cmp_group(c);
	char buf[160];

	if (c->kind == DG_RING)
		snprintf(buf, sizeof(buf), "ring %s [%s]", g->name, g->kind_name);
	else
		snprintf(buf, sizeof(buf), "%s %s", dg_names[c->kind], g->name);
	fprintf(f, "%-28s ", buf);
}

static void text_cmp(const struct diff *d, FILE *f, const struct dcmp *c)
{
	const char *only = cmp_only(c);
	char x[32], y[32];
	int k;

	fputs(c->flagged ? "! " : "  ", f);
	t_group(f, c);
	fprintf(f, "%-10s ", cmp_metric(c));
	if (only) {
		fprintf(f, "only in %s: %" PRIu64 " jobs, %.1f/s", only,
			c->ga ? c->na : c->nb, c->ga ? c->va : c->vb);
	} else if (c->what == DC_JOBS) {
		fprintf(f, "%" PRIu64 " -> %" PRIu64 " jobs, %.1f/s -> %.1f/s ",
			c->na, c->nb, c->va, c->vb);
		t_change(f, change_pct(c->va, c->vb));
	} else if (c->what == DC_BUSY) {
		fprintf(f, "%.2f%% -> %.2f%% (%+.2f points), %s -> %s",
			c->va, c->vb, c->vb - c->va, c->ga->verdict,
			c->gb->verdict);
	} else if (c->none_a || c->none_b) {
		/* Nothing to compare: what there is, and why no test. */
		for (k = 0; k < 3; k++) {
			fmt_ns(x, sizeof(x), c->none_a ? c->b[k] : c->a[k]);
			fprintf(f, "p%u %s  ", diff_pcts[k], x);
		}
		fprintf(f, "n %" PRIu64 "/%" PRIu64 "  not measured in %s: not tested",
			c->na, c->nb, c->none_a ? "A" : "B");
	} else {
		for (k = 0; k < 3; k++) {
			fmt_ns(x, sizeof(x), c->a[k]);
			fmt_ns(y, sizeof(y), c->b[k]);
			fprintf(f, "p%u %s -> %s ", diff_pcts[k], x, y);
			t_change(f, change_pct((double)c->a[k], (double)c->b[k]));
			fputs("  ", f);
		}
		fprintf(f, "n %" PRIu64 "/%" PRIu64 "  p=%.2g (adj %.2g) %s",
			c->na, c->nb, c->t.p, c->padj,
			c->padj < d->o.alpha ? cmp_dir(c) : "no significant change");
	}
	/* Every line: a lost record may take a job, or a group, away. */
	t_lost(d, f);
	fputc('\n', f);
}

static void text_side(const struct dside *s, FILE *f)
{
	char w[32];

	fmt_ns(w, sizeof(w), s->window);
	fprintf(f, "%s: %s: %" PRIu64 " jobs in %s, %" PRIu64 " records lost",
		s->label, s->name, s->jobs, w, s->lost);
	if (s->error[0])
		fprintf(f, "; DAMAGED: %s (the figures are of the records before it)",
			s->error);
	fputc('\n', f);
}

static void write_text(const struct diff *d, FILE *f)
{
	size_t i;
	int pass;

	fprintf(f, "grtrace diff\n");
	text_side(&d->s[0], f);
	text_side(&d->s[1], f);
	fprintf(f, "test: Mann-Whitney U, Holm-adjusted over %s comparisons; flagged (!): adjusted p < %g and a percentile moved %g%% or more\n",
		"all", d->o.alpha, d->o.min_change);
	fprintf(f, "flagged: %" PRIu64 " (%" PRIu64 " slower, %" PRIu64 " faster)\n\n",
		d->flagged, d->regressions, d->flagged - d->regressions);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < d->nc; i++)
			if (d->c[i].flagged == !pass)
				text_cmp(d, f, &d->c[i]);
}

static void j_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.10g", v);
}

/*
 * Escaped as the report's JSON escapes (bytes outside ASCII as Latin-1),
 * but straight to @f: a path is as long as it is, and the report's line
 * of 4096 bytes cut one of 700 escaped bytes, closing quote and all.
 */
static void j_str(FILE *f, const char *s)
{
	struct line l;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		char c[2] = { *s, '\0' };

		l.n = 0;
		l_json_str(&l, c);
		/* Without the quotes around the one byte. */
		fwrite(l.b + 1, 1, l.n - 2, f);
	}
	fputc('"', f);
}

static void j_fig(FILE *f, const struct dcmp *c, int side)
{
	const struct dgroup *g = side ? c->gb : c->ga;
	const uint64_t *v = side ? c->b : c->a;
	int k;

	if (!g) {
		fputs("null", f);
		return;
	}
	if (c->what == DC_JOBS) {
		fprintf(f, "{\"jobs\":%" PRIu64 ",\"rate_per_s\":",
			side ? c->nb : c->na);
		j_num(f, side ? c->vb : c->va);
		fputc('}', f);
	} else if (c->what == DC_BUSY) {
		fputs("{\"busy_pct\":", f);
		j_num(f, side ? c->vb : c->va);
		fputs(",\"verdict\":", f);
		j_str(f, g->verdict);
		fputc('}', f);
	} else {
		fprintf(f, "{\"jobs\":%" PRIu64, side ? c->nb : c->na);
		for (k = 0; k < 3; k++)
			if (side ? c->none_b : c->none_a)
				fprintf(f, ",\"p%u\":null", diff_pcts[k]);
			else
				fprintf(f, ",\"p%u\":%" PRIu64, diff_pcts[k],
					v[k]);
		fputc('}', f);
	}
}

static void json_cmp(const struct diff *d, FILE *f, const struct dcmp *c)
{
	const struct dgroup *g = cmp_group(c);
	const char *only = cmp_only(c);
	int k;

	fprintf(f, "{\"group\":\"%s\",\"%s\":", dg_names[c->kind],
		dg_names[c->kind]);
	j_str(f, g->name);
	if (c->kind == DG_RING) {
		fputs(",\"kind\":", f);
		j_str(f, g->kind_name);
	}
	fprintf(f, ",\"metric\":\"%s\",\"only\":", cmp_metric(c));
	j_str(f, only);
	fputs(",\"a\":", f);
	j_fig(f, c, 0);
	fputs(",\"b\":", f);
	j_fig(f, c, 1);
	fputs(",\"change_pct\":", f);
	if (only || c->none_a || c->none_b)
		fputs("null", f);
	else if (c->what == DC_JOBS || c->what == DC_BUSY)
		j_num(f, change_pct(c->va, c->vb));
	else
		j_num(f, change_pct((double)c->a[0], (double)c->b[0]));
	if (c->what >= DC_METRIC && c->what < DC_BUSY) {
		for (k = 1; k < 3; k++) {
			fprintf(f, ",\"change_p%u_pct\":", diff_pcts[k]);
			j_num(f, c->none_a || c->none_b ? NAN :
			      change_pct((double)c->a[k], (double)c->b[k]));
		}
	}
	if (c->what == DC_BUSY) {
		fputs(",\"change_points\":", f);
		j_num(f, c->vb - c->va);
		fprintf(f, ",\"verdict_changed\":%s",
			strcmp(c->ga->verdict, c->gb->verdict) ? "true" : "false");
	}
	fputs(",\"p_value\":", f);
	if (c->tested)
		j_num(f, c->t.p);
	else
		fputs("null", f);
	fputs(",\"p_adjusted\":", f);
	if (c->tested)
		j_num(f, c->padj);
	else
		fputs("null", f);
	fprintf(f, ",\"test\":%s", !c->tested ? "null" : c->t.exact ?
		"\"mann-whitney-u exact\"" : "\"mann-whitney-u normal\"");
	fprintf(f, ",\"direction\":%s", c->tested ? "\"" : "null");
	if (c->tested)
		fprintf(f, "%s\"", cmp_dir(c));
	fprintf(f, ",\"lost_a\":%" PRIu64 ",\"lost_b\":%" PRIu64
		",\"flagged\":%s}", d->s[0].lost, d->s[1].lost,
		c->flagged ? "true" : "false");
}

static void json_side(FILE *f, const struct dside *s)
{
	fputs("{\"input\":", f);
	j_str(f, s->name);
	fprintf(f, ",\"jobs\":%" PRIu64 ",\"window_ns\":%" PRIu64
		",\"lost_records\":%" PRIu64 ",\"jobs_incomplete\":%" PRIu64
		",\"error\":", s->jobs, s->window, s->lost, s->incomplete);
	j_str(f, s->error[0] ? s->error : NULL);
	fputc('}', f);
}

static void write_json(const struct diff *d, FILE *f)
{
	size_t i;

	fputs("{\"a\":", f);
	json_side(f, &d->s[0]);
	fputs(",\n\"b\":", f);
	json_side(f, &d->s[1]);
	fprintf(f, ",\n\"test\":\"mann-whitney-u\",\"correction\":\"holm\",\"alpha\":%.10g,\"min_change_pct\":%.10g,\"flagged\":%" PRIu64 ",\"regressions\":%" PRIu64 ",\n\"comparisons\":[",
		d->o.alpha, d->o.min_change, d->flagged, d->regressions);
	for (i = 0; i < d->nc; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_cmp(d, f, &d->c[i]);
	}
	fputs("\n]}\n", f);
}

static void c_str(FILE *f, const char *s)
{
	struct line l = { .n = 0 };

	if (s)
		l_csv_str(&l, s);
	fwrite(l.b, 1, l.n, f);
}

static void c_num(FILE *f, double v)
{
	if (!isnan(v) && !isinf(v))
		fprintf(f, "%.10g", v);
}

static void write_csv(const struct diff *d, FILE *f)
{
	size_t i;
	int k;

	fputs("group,name,kind,metric,only,a_jobs,b_jobs,a_value,b_value,a_p50,b_p50,change_pct,a_p90,b_p90,change_p90_pct,a_p99,b_p99,change_p99_pct,p_value,p_adjusted,direction,lost_a,lost_b,flagged\n",
	      f);
	for (i = 0; i < d->nc; i++) {
		const struct dcmp *c = &d->c[i];
		const struct dgroup *g = cmp_group(c);
		const char *only = cmp_only(c);
		int lat = c->what >= DC_METRIC && c->what < DC_BUSY;

		fprintf(f, "%s,", dg_names[c->kind]);
		c_str(f, g->name);
		fputc(',', f);
		c_str(f, c->kind == DG_RING ? g->kind_name : NULL);
		fprintf(f, ",%s,%s,", cmp_metric(c), only ? only : "");
		if (c->ga)
			fprintf(f, "%" PRIu64, c->na);
		fputc(',', f);
		if (c->gb)
			fprintf(f, "%" PRIu64, c->nb);
		fputc(',', f);
		if (!lat && c->ga)
			c_num(f, c->va);
		fputc(',', f);
		if (!lat && c->gb)
			c_num(f, c->vb);
		for (k = 0; k < 3; k++) {
			fputc(',', f);
			/* A side not measured: its fields empty, as no figure. */
			if (lat && !c->none_a)
				fprintf(f, "%" PRIu64, c->a[k]);
			if (lat)
				fputc(',', f);
			if (lat && !c->none_b)
				fprintf(f, "%" PRIu64, c->b[k]);
			if (lat)
				fputc(',', f);
			else
				fputs(",,", f);
			if (lat && !c->none_a && !c->none_b)
				c_num(f, change_pct((double)c->a[k],
						    (double)c->b[k]));
			else if (!lat && !k && !only)
				c_num(f, change_pct(c->va, c->vb));
		}
		fputc(',', f);
		if (c->tested)
			fprintf(f, "%.10g,%.10g,%s", c->t.p, c->padj, cmp_dir(c));
		else
			fputs(",,", f);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%d\n", d->s[0].lost,
			d->s[1].lost, c->flagged);
	}
}

int diff_finish(struct diff *d, FILE *out)
{
	match(d);
	if (d->o.form == DIFF_JSON)
		write_json(d, out);
	else if (d->o.form == DIFF_CSV)
		write_csv(d, out);
	else
		write_text(d, out);
	return fflush(out) || ferror(out) ? -1 : 0;
}

uint64_t diff_regressions(const struct diff *d)
{
	return d->regressions;
}

void diff_free(struct diff *d)
{
	uint32_t i;
	int k, m;

	if (!d)
		return;
	for (k = 0; k < 2; k++) {
		struct dside *s = &d->s[k];

		for (i = 0; i < s->ng; i++)
			for (m = 0; m < DIFF_NM; m++)
				free(s->g[i].m[m].v);
		free(s->g);
		for (m = 0; m < NR_DG; m++)
			u64map_free(s->map[m]);
		u64map_free(s->pid_map);
	}
	free(d->c);
	free(d);
}

int diff_opt(struct diff_opts *o, const char *a)
{
	const char *v = strchr(a, '=');
	char *end;
	double x;

	if (!v)
		return -1;
	v++;
	if (!strncmp(a, "--name-a=", 9)) {
		o->name[0] = v;
		return 0;
	}
	if (!strncmp(a, "--name-b=", 9)) {
		o->name[1] = v;
		return 0;
	}
	x = strtod(v, &end);
	if (!*v || *end || isnan(x))
		return -1;
	if (!strncmp(a, "--alpha=", 8) && x > 0 && x < 1)
		o->alpha = x;
	else if (!strncmp(a, "--min-change=", 13) && x >= 0 && x <= 1e6)
		o->min_change = x;
	else
		return -1;
	return 0;
}
