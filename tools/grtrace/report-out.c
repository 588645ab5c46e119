// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report: text, CSV and JSON output.
 *
 * Job rows are written as jobs finish.  JSON puts them first ("jobs"),
 * so the summaries, only known at the end, follow in the same object.
 * Text puts the summary first: its rows wait in a temporary file.  CSV
 * holds one table: the jobs, or the one summary asked for.
 *
 * Rows are formatted by hand into a line buffer: printf() per field would
 * cost more than all the analysis of a job.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"

#define HIST_BUCKETS	12
#define BAR_WIDTH	40
#define ROWBUF_SIZE	(64u << 10)	/* job rows gathered per write */

/* ---- a line of output ------------------------------------------------------ */

/*
 * Too long a line is cut, never overflowed.  Hot paths declare one without
 * an initializer and set @n: "= { 0 }" would clear all of @b per row.
 */
struct line {
	char b[4096];
	size_t n;
};

static inline void l_mem(struct line *l, const char *s, size_t n)
{
	if (n > sizeof(l->b) - 1 - l->n)
		n = sizeof(l->b) - 1 - l->n;
	memcpy(l->b + l->n, s, n);
	l->n += n;
}

static void l_str(struct line *l, const char *s)
{
	l_mem(l, s, strlen(s));
}

/* A byte at a time, as the escapes write: no call into memcpy() each. */
static inline void l_ch(struct line *l, char c)
{
	if (l->n < sizeof(l->b) - 1)
		l->b[l->n++] = c;
}

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The eight digits of @v < 10^8, leading zeros too, at @p. */
static inline void put_dec8(char *p, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	/* Four independent pairs: no chain of divides to wait on. */
	memcpy(p, &digit_pairs[2 * (hi / 100)], 2);
	memcpy(p + 2, &digit_pairs[2 * (hi % 100)], 2);
	memcpy(p + 4, &digit_pairs[2 * (lo / 100)], 2);
	memcpy(p + 6, &digit_pairs[2 * (lo % 100)], 2);
}

/*
 * The digits of @v, ending at @end; dec_len(@v) of them.  GCC would make
 * this a call, which costs about as much as the digits: force it inline.
 */
static inline __attribute__((always_inline))
void put_dec(char *end, uint64_t v)
{
	uint32_t w, lo;

	while (v >= 100000000) {
		uint64_t q = v / 100000000;

		end -= 8;
		put_dec8(end, (uint32_t)(v - q * 100000000));
		v = q;
	}
	/* Below 10^8: four digits at once, then a pair: no loop to predict. */
	w = (uint32_t)v;
	if (w >= 10000) {
		lo = w % 10000;
		w /= 10000;
		end -= 4;
		memcpy(end, &digit_pairs[2 * (lo / 100)], 2);
		memcpy(end + 2, &digit_pairs[2 * (lo % 100)], 2);
	}
	if (w >= 100) {
		end -= 2;
		memcpy(end, &digit_pairs[2 * (w % 100)], 2);
		w /= 100;
	}
	if (w >= 10)
		memcpy(end - 2, &digit_pairs[2 * w], 2);
	else
		end[-1] = (char)('0' + w);
}

static inline size_t dec_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
		100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull,
		10000000000000000000ull,
	};
	/*
	 * log10 from log2 (1233 / 4096 ~ log10(2)), then one compare; v | 1
	 * gives 0 its digit and moves no other value across a power of ten.
	 */
	unsigned int t = (64u - (unsigned int)__builtin_clzll(v | 1)) * 1233 >> 12;

	return t + 1 - ((v | 1) < pow10[t]);
}

/* The @n digits of @v where they do not fit: cut like any other text. */
static void l_u64_cut(struct line *l, uint64_t v, size_t n)
{
	char buf[24];

	put_dec(buf + n, v);
	l_mem(l, buf, n);
}

/*
 * Numbers are most of a row: written in place, not through a copy.  @sep,
 * if not 0, goes first: a CSV field in one update of @l->n, as each one
 * waits for the one before.
 */
static void l_sep_u64(struct line *l, char sep, uint64_t v)
{
	size_t n = dec_len(v), at = l->n;

	if (sep && at < sizeof(l->b) - 1)
		l->b[at++] = sep;
	if (n > sizeof(l->b) - 1 - at) {
		l->n = at;
		l_u64_cut(l, v, n);
		return;
	}
	put_dec(l->b + at + n, v);
	l->n = at + n;
}

static inline void l_u64(struct line *l, uint64_t v)
{
	l_sep_u64(l, 0, v);
}

static void l_i64(struct line *l, int64_t v)
{
	if (v < 0) {
		l_ch(l, '-');
		l_u64(l, -(uint64_t)v);
	} else {
		l_u64(l, (uint64_t)v);
	}
}

static void l_pad(struct line *l, size_t col)
{
	while (l->n < col && l->n < sizeof(l->b) - 1)
		l->b[l->n++] = ' ';
}

/* @ns as microseconds with three decimals, right-aligned to @width. */
static void l_us(struct line *l, uint64_t ns, size_t width)
{
	uint64_t frac = ns % 1000;
	size_t n = dec_len(ns / 1000) + 4;
	char buf[32];

	put_dec(buf + n - 4, ns / 1000);
	buf[n - 4] = '.';
	buf[n - 3] = (char)('0' + frac / 100);
	buf[n - 2] = (char)('0' + frac / 10 % 10);
	buf[n - 1] = (char)('0' + frac % 10);
	l_pad(l, l->n + (n < width ? width - n : 0));
	l_mem(l, buf, n);
}

static void l_right(struct line *l, const char *s, size_t width)
{
	size_t n = strlen(s);

	l_pad(l, l->n + (n < width ? width - n : 0));
	l_str(l, s);
}

static void l_right_u64(struct line *l, uint64_t v, size_t width)
{
	size_t n = dec_len(v);
	char buf[24];

	put_dec(buf + n, v);
	buf[n] = '\0';
	l_right(l, buf, width);
}

/* JSON string: bytes outside ASCII are taken as Latin-1, so always valid. */
static void l_json_str(struct line *l, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	l_ch(l, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			l_ch(l, '\\');
			l_ch(l, (char)c);
		} else if (c >= 0x20 && c < 0x7f) {
			l_ch(l, (char)c);
		} else {
			l_str(l, "\\u00");
			l_ch(l, hex[c >> 4]);
			l_ch(l, hex[c & 15]);
		}
	}
	l_ch(l, '"');
}

static void l_csv_str(struct line *l, const char *s)
{
	const char *t;

	/* Names are short: a loop beats strpbrk() and strlen() both. */
	for (t = s; *t; t++)
		if (*t == ',' || *t == '"' || *t == '\r' || *t == '\n')
			break;
	if (!*t) {
		l_mem(l, s, (size_t)(t - s));
		return;
	}
	l_ch(l, '"');
	for (; *s; s++) {
		if (*s == '"')
			l_ch(l, '"');
		l_ch(l, *s);
	}
	l_ch(l, '"');
}

/* Write what @l holds, as it is. */
static void l_flush_raw(struct line *l, FILE *f)
{
	fwrite(l->b, 1, l->n, f);
	l->n = 0;
}

static void l_flush(struct line *l, FILE *f)
{
	l->b[l->n++] = '\n';
	fwrite(l->b, 1, l->n, f);
	l->n = 0;
}

/* ---- fields of a CSV line or a JSON object ------------------------------------- */

/*
 * One writer per table makes its CSV header (@header: keys only), its CSV
 * lines and its JSON objects, so the three never disagree.
 */
struct fields {
	struct line *l;
	int json;
	int header;
	int n;
};

/* Starts a field; returns 0 when only its name was wanted. */
static inline int f_key(struct fields *f, const char *key)
{
	if (f->n++)
		l_ch(f->l, ',');
	if (f->header) {
		l_str(f->l, key);
		return 0;
	}
	if (f->json) {
		l_json_str(f->l, key);
		l_ch(f->l, ':');
	}
	return 1;
}

static inline void f_u64(struct fields *f, const char *key, uint64_t v)
{
	/* A CSV line: the comma with the number. */
	if (!f->json && !f->header) {
		l_sep_u64(f->l, f->n++ ? ',' : 0, v);
		return;
	}
	if (f_key(f, key))
		l_u64(f->l, v);
}

static inline void f_na(struct fields *f, const char *key)
{
	if (f_key(f, key) && f->json)
		l_str(f->l, "null");
}

static inline void f_opt(struct fields *f, const char *key, int have, uint64_t v)
{
	if (have)
		f_u64(f, key, v);
	else
		f_na(f, key);
}

static void f_str(struct fields *f, const char *key, const char *s)
{
	if (!s) {
		f_na(f, key);
		return;
	}
	if (!f_key(f, key))
		return;
	if (f->json)
		l_json_str(f->l, s);
	else
		l_csv_str(f->l, s);
}

static void f_bool(struct fields *f, const char *key, int v)
{
	if (!f_key(f, key))
		return;
	if (f->json)
		l_str(f->l, v ? "true" : "false");
	else
		l_ch(f->l, v ? '1' : '0');
}

static void f_dbl(struct fields *f, const char *key, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.3f", v);
	if (f_key(f, key))
		l_str(f->l, buf);
}

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

static void label_str(const struct row *row, char sep, char *buf, size_t len)
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
static void job_fields(const struct rp *rp, struct fields *f,
		       const struct row *row)
{
	static const struct row none;
	const struct ring *r = row ? &rp->rings[row->ring] : NULL;
	char ebuf[16], lbuf[128], dbuf[64];
	int k;

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
}

typedef void table_fn(struct rp *rp, struct fields *f, void *item);

/* The CSV header of a table: its writer in header mode. */
static void csv_header(struct rp *rp, FILE *out, table_fn *fn)
{
	struct line l = { .n = 0 };
	struct fields f = { .l = &l, .json = 0, .header = 1 };

	fn(rp, &f, NULL);
	l_flush(&l, out);
}

static void job_table(struct rp *rp, struct fields *f, void *row)
{
	job_fields(rp, f, row);
}

/* Text columns: where each one ends. */
enum {
	TC_KEY = 22, TC_RING = 28, TC_NAME = 42, TC_ENGINE = 50,
	TC_METRIC = 12,
};

static void text_job_header(FILE *out)
{
	struct line l = { .n = 0 };
	int k;

	l_str(&l, "ctx:seqno");
	l_pad(&l, TC_KEY);
	l_str(&l, "ring");
	l_pad(&l, TC_RING);
	l_str(&l, "name");
	l_pad(&l, TC_NAME);
	l_str(&l, "engine");
	l_pad(&l, TC_ENGINE);
	for (k = 0; k < NR_METRICS; k++) {
		/* "t_submit_host" is too wide: the columns drop the "t_". */
		l_right(&l, rp_metric_names[k] + 2, TC_METRIC - 1);
		l_ch(&l, ' ');
	}
	l_str(&l, " label");
	l_flush(&l, out);
}

/* Is metric @k NA because its second stamp was written with the first? */
static int metric_derived(const struct row *row, int k)
{
	/* The second stamp of each metric between two; the first is before. */
	static const signed char second[NR_METRICS] = {
		[M_SUBMIT_HOST] = ST_COMMIT, [M_QUEUE] = ST_START,
		[M_EXEC] = ST_END, [M_GPU_WAIT] = -1,
		[M_COMPLETE] = ST_COMPLETE, [M_TOTAL] = -1,
	};
	int b = second[k];
	unsigned int both = b > 0 ? 3u << (b - 1) : 0;

	return b > 0 && (row->have & both) == both &&
	       (row->derived & (1u << b));
}

/* A job's text row into @l, without its newline. */
static void text_job_line(const struct rp *rp, struct line *l,
			  const struct row *row)
{
	const struct ring *r = &rp->rings[row->ring];
	char ebuf[16], lbuf[128], name[4 * sizeof(r->name)];
	int k;

	l->n = 0;
	l_u64(l, row->ctx);
	l_ch(l, ':');
	l_u64(l, row->seqno);
	l_pad(l, TC_KEY - 1);
	l_ch(l, ' ');
	l_u64(l, r->ring_id);
	l_pad(l, TC_RING - 1);
	l_ch(l, ' ');
	gr_escape(r->name, name, sizeof(name));
	l_str(l, name[0] ? name : "-");
	l_pad(l, TC_NAME - 1);
	l_ch(l, ' ');
	l_str(l, gr_engine_name(row->engine, ebuf, sizeof(ebuf)));
	l_pad(l, TC_ENGINE - 1);
	l_ch(l, ' ');
	for (k = 0; k < NR_METRICS; k++) {
		if (row->mhave & (1u << k))
			l_us(l, row->m[k], TC_METRIC - 1);
		else if (metric_derived(row, k))
			l_right(l, "derived", TC_METRIC - 1);
		else
			l_right(l, "-", TC_METRIC - 1);
		/* The start was derived: queue and exec lean on it. */
		l_ch(l, row->start_derived && (k == M_QUEUE || k == M_EXEC) ?
		     '*' : ' ');
	}
	label_str(row, ',', lbuf, sizeof(lbuf));
	l_ch(l, ' ');
	l_str(l, lbuf[0] ? lbuf : "-");
}

/* A job's JSON object into @l, after the separator it needs. */
static void json_job_line(const struct rp *rp, struct line *l,
			  const struct row *row, int first)
{
	struct fields f = { .l = l, .json = 1, .header = 0 };

	l->n = 0;
	l_str(l, first ? "\n{" : ",\n{");
	job_fields(rp, &f, row);
	l_ch(l, '}');
}

static int csv_table_is_jobs(const struct rp *rp)
{
	const struct rp_opts *o = &rp->o;

	return !o->per_ring && !o->per_ctx && !o->topn && o->hist == RP_HIST_NONE;
}

void out_begin(struct rp *rp)
{
	switch (rp->o.format) {
	case RP_JSON:
		fputs("{\"jobs\": [", rp->out);
		break;
	case RP_CSV:
		if (csv_table_is_jobs(rp))
			csv_header(rp, rp->out, job_table);
		break;
	case RP_TEXT:
		if (!rp->o.limit)
			break;
		rp->spool = tmpfile();
		if (!rp->spool)
			fatal_errno("cannot create a temporary file");
		break;
	}
	if (rp->o.limit) {
		rp->rowbuf = xmalloc(ROWBUF_SIZE);
		rp->rowfile = rp->spool ? rp->spool : rp->out;
	}
}

/* Rows are a line each; one fwrite() per row would cost more than it. */
static void rows_flush(struct rp *rp)
{
	if (rp->rowlen)
		fwrite(rp->rowbuf, 1, rp->rowlen, rp->rowfile);
	rp->rowlen = 0;
}

void out_row(struct rp *rp, const struct row *row)
{
	struct fields f = { .l = NULL, .json = 0, .header = 0 };
	struct line l;

	if (rp->rows_out >= rp->o.limit)
		return;
	l.n = 0;
	f.l = &l;
	switch (rp->o.format) {
	case RP_JSON:
		json_job_line(rp, &l, row, !rp->rows_out);
		break;
	case RP_CSV:
		if (!csv_table_is_jobs(rp))
			return;
		job_fields(rp, &f, row);
		l.b[l.n++] = '\n';
		break;
	case RP_TEXT:
		text_job_line(rp, &l, row);
		l.b[l.n++] = '\n';
		break;
	}
	if (rp->rowlen + l.n > ROWBUF_SIZE)
		rows_flush(rp);
	memcpy(rp->rowbuf + rp->rowlen, l.b, l.n);
	rp->rowlen += l.n;
	rp->rows_out++;
}

/* ---- summaries of rings and contexts ------------------------------------------------ */

static double pct_of(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static int group_exact(const struct group *g)
{
	int k;

	for (k = 0; k < NR_METRICS; k++)
		if (!pctl_is_exact(&g->metric[k]))
			return 0;
	return 1;
}

static void group_fields(struct rp *rp, struct fields *f, struct group *g)
{
	static const unsigned int pcts[] = { 50, 90, 99 };
	uint64_t window = rp_window(rp);
	char key[64];
	size_t i;
	int k;

	f_u64(f, "jobs", g ? g->jobs : 0);
	f_u64(f, "window_ns", window);
	f_u64(f, "busy_ns", g ? group_busy(g) : 0);
	f_dbl(f, "busy_pct", g ? pct_of(group_busy(g), window) : 0);
	f_u64(f, "active_ns", g ? group_active(g) : 0);
	f_dbl(f, "busy_active_pct", g ? pct_of(group_busy(g), group_active(g)) : 0);
	f_dbl(f, "depth_avg", g && window ? g->depth_area / (double)window : 0);
	f_u64(f, "depth_max", g ? g->depth_max : 0);
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

static void ring_table(struct rp *rp, struct fields *f, void *item)
{
	struct ring *r = item;
	char ebuf[16], hint[512];

	f_u64(f, "ring", r ? r->ring_id : 0);
	f_str(f, "ring_name", r && r->described ? r->name : NULL);
	f_str(f, "engine", r ? gr_engine_name(r->engine, ebuf, sizeof(ebuf)) : "");
	f_str(f, "driver", r && r->described ? r->driver : NULL);
	f_str(f, "device", r && r->described ? r->device : NULL);
	group_fields(rp, f, r ? &r->g : NULL);
	f_u64(f, "saturated_ns", r ? ring_saturated(rp, r, hint, sizeof(hint)) : 0);
	f_str(f, "bottleneck", r && ring_hint(rp, r, hint, sizeof(hint)) ?
	      hint : NULL);
	f_str(f, "hung", r && ring_hung(rp, r, hint, sizeof(hint)) ?
	      hint : NULL);
}

static void ctx_table(struct rp *rp, struct fields *f, void *item)
{
	struct ctx *c = item;

	f_u64(f, "ctx", c ? c->ctx : 0);
	group_fields(rp, f, c ? c->g : NULL);
}

/* Rings and contexts are listed when some selected job ran on them. */
static int ring_listed(const struct ring *r)
{
	return r->g.jobs || r->g.depth_max;
}

static int ctx_listed(const struct ctx *c)
{
	return c->g->jobs || c->g->depth_max;
}

/* Every listed item of a table, as CSV lines or a JSON array's objects. */
static void table_rows(struct rp *rp, table_fn *fn, int json, int rings)
{
	uint32_t i, n = rings ? rp->nrings : rp->nctxs, out = 0;

	for (i = 0; i < n; i++) {
		struct line l = { .n = 0 };
		struct fields f = { .l = &l, .json = json, .header = 0 };
		void *item = rings ? (void *)&rp->rings[i] : (void *)&rp->ctxs[i];

		if (rings ? !ring_listed(&rp->rings[i]) : !ctx_listed(&rp->ctxs[i]))
			continue;
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

static void sort_top(struct rp *rp)
{
	qsort(rp->top, rp->ntop, sizeof(*rp->top), cmp_slowest);
}

/* ---- histograms ------------------------------------------------------------------------- */

struct hist {
	unsigned int t;		/* values are below 2^t */
	uint64_t count[HIST_BUCKETS];
};

/*
 * Fold the per-bit-length counts into 12 buckets ending at the largest
 * value: bucket 0 is [0, 2^(t-11)), bucket i is [2^(t-12+i), 2^(t-11+i)).
 */
static void hist_fold(const struct rp *rp, struct hist *h)
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
static void hist_bound(const struct hist *h, unsigned int i, struct line *l)
{
	unsigned int e = h->t + i - HIST_BUCKETS;

	if (!i)
		l_ch(l, '0');
	else if (e == 64)
		l_str(l, "18446744073709551616");
	else
		l_u64(l, 1ull << e);
}

static const char *hist_metric(const struct rp *rp)
{
	return rp->o.hist == RP_HIST_LAT ? "t_total" : "queue_depth";
}

static void text_hist(struct rp *rp)
{
	struct line l = { .n = 0 };
	uint64_t max = 0;
	struct hist h;
	unsigned int i;

	hist_fold(rp, &h);
	for (i = 0; i < HIST_BUCKETS; i++)
		if (h.count[i] > max)
			max = h.count[i];
	l_str(&l, rp->o.hist == RP_HIST_LAT ?
	      "histogram of t_total (ns), 12 log2 buckets, bounds:" :
	      "histogram of queue_depth at COMMIT (jobs), 12 log2 buckets, bounds:");
	for (i = 0; i <= HIST_BUCKETS; i++) {
		l_ch(&l, ' ');
		hist_bound(&h, i, &l);
	}
	l_flush(&l, rp->out);
	for (i = 0; i < HIST_BUCKETS; i++) {
		uint64_t bar = max ? (h.count[i] * BAR_WIDTH + max - 1) / max : 0;

		l_str(&l, "  [");
		hist_bound(&h, i, &l);
		l_str(&l, ", ");
		hist_bound(&h, i + 1, &l);
		l_ch(&l, ')');
		l_pad(&l, 26);
		l_right_u64(&l, h.count[i], 10);
		l_str(&l, " |");
		while (bar--)
			l_ch(&l, '#');
		l_flush(&l, rp->out);
	}
}

static void json_hist(struct rp *rp)
{
	struct line l = { .n = 0 };
	struct hist h;
	unsigned int i;

	hist_fold(rp, &h);
	l_str(&l, ",\n\"hist\": {\"kind\":");
	l_json_str(&l, rp->o.hist == RP_HIST_LAT ? "lat" : "size");
	l_str(&l, ",\"metric\":");
	l_json_str(&l, hist_metric(rp));
	l_str(&l, rp->o.hist == RP_HIST_LAT ? ",\"unit\":\"ns\"" : ",\"unit\":\"jobs\"");
	l_str(&l, ",\"bounds\":[");
	for (i = 0; i <= HIST_BUCKETS; i++) {
		if (i)
			l_ch(&l, ',');
		hist_bound(&h, i, &l);
	}
	l_str(&l, "],\"counts\":[");
	for (i = 0; i < HIST_BUCKETS; i++) {
		if (i)
			l_ch(&l, ',');
		l_u64(&l, h.count[i]);
	}
	l_str(&l, "]}");
	fwrite(l.b, 1, l.n, rp->out);
}

static void csv_hist(struct rp *rp)
{
	struct line l = { .n = 0 };
	struct hist h;
	unsigned int i;

	hist_fold(rp, &h);
	l_str(&l, "lo,hi,count");
	l_flush(&l, rp->out);
	for (i = 0; i < HIST_BUCKETS; i++) {
		hist_bound(&h, i, &l);
		l_ch(&l, ',');
		hist_bound(&h, i + 1, &l);
		l_ch(&l, ',');
		l_u64(&l, h.count[i]);
		l_flush(&l, rp->out);
	}
}

/* ---- the result of the events: written, lost, dropped ------------------------------------- */

static const char result_note[] =
	"drops by reason are not in a trace file: the module counts them in its stats file; run 'grtrace report' without -i, or see the summary of 'grtrace record'";

static uint64_t events_written(const struct rp *rp)
{
	uint64_t n = 0;
	int t;

	for (t = 0; t < GRTRACE_EV_NR_JOB_TYPES; t++)
		n += rp->by_type[t];
	return n;
}

static int is_drop_key(const char *key)
{
	return !strncmp(key, "dropped_", 8) && strcmp(key, "dropped_total");
}

/* The result table: name, count; the stats file's drops when live. */
static void result_rows(struct rp *rp, const struct rp_input *in,
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

static uint64_t result_max(const struct rp *rp, const struct rp_input *in)
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

static void text_result_row(struct rp *rp, const char *name, uint64_t v,
			    uint64_t max)
{
	struct line l = { .n = 0 };
	uint64_t bar = max ? (v * BAR_WIDTH + max - 1) / max : 0;

	l_str(&l, "  ");
	l_str(&l, name);
	l_pad(&l, 26);
	l_right_u64(&l, v, 10);
	l_str(&l, " |");
	while (bar--)
		l_ch(&l, '#');
	l_flush(&l, rp->out);
}

static void csv_result_row(struct rp *rp, const char *name, uint64_t v,
			   uint64_t max)
{
	(void)max;
	fprintf(rp->out, "%s,%" PRIu64 "\n", name, v);
}

static void text_result(struct rp *rp, const struct rp_input *in)
{
	uint64_t max = result_max(rp, in);

	fprintf(rp->out, "result of the events: written to the trace, lost in gseq gaps%s\n",
		in->stats ? ", dropped by reason (stats file: since the module was loaded or its counters reset)" : "");
	result_rows(rp, in, text_result_row, max);
	if (!in->stats)
		fprintf(rp->out, "  %s\n", result_note);
}

static void json_result(struct rp *rp, const struct rp_input *in)
{
	struct line l = { .n = 0 };
	int i, n = 0;

	l_str(&l, ",\n\"hist\": {\"kind\":\"result\",\"written\":");
	l_u64(&l, events_written(rp));
	l_str(&l, ",\"lost\":");
	l_u64(&l, rp_records_lost(rp));
	l_str(&l, ",\"dropped\":");
	if (!in->stats) {
		l_str(&l, "null,\"note\":");
		l_json_str(&l, result_note);
	} else {
		l_ch(&l, '{');
		for (i = 0; i < in->stats->n; i++) {
			if (!is_drop_key(in->stats->ent[i].key))
				continue;
			if (n++)
				l_ch(&l, ',');
			l_json_str(&l, in->stats->ent[i].key + 8);
			l_ch(&l, ':');
			l_u64(&l, in->stats->ent[i].val);
		}
		l_ch(&l, '}');
	}
	l_ch(&l, '}');
	fwrite(l.b, 1, l.n, rp->out);
}

/* ---- the text report ---------------------------------------------------------------------- */

static void text_types(struct rp *rp)
{
	char tbuf[16];
	int t;

	fprintf(rp->out, "records:  %" PRIu64 ":", rp->records);
	for (t = GRTRACE_EV_SUBMIT; t <= GRTRACE_EV_ERROR; t++)
		fprintf(rp->out, " %s %" PRIu64 ",",
			gr_type_name((uint16_t)t, tbuf, sizeof(tbuf)),
			rp->by_type[t]);
	fprintf(rp->out, " STREAM_INFO %" PRIu64 ", METADATA %" PRIu64 ", RING %" PRIu64 "; unknown type %" PRIu64 " (skipped)\n",
		rp->stream_infos, rp->metadatas, rp->ring_recs, rp->unknown);
}

/*
 * Metrics between two events an adapter wrote from one tracepoint hit
 * (flagged DERIVED): NA, as the time between them was never measured.
 */
static void text_derived(struct rp *rp)
{
	const char *sep = "";
	int k;

	for (k = 0; k < NR_METRICS; k++) {
		if (!rp->derived_na[k])
			continue;
		fprintf(rp->out, "%s%" PRIu64 " %s", *sep ? sep : "derived:  ",
			rp->derived_na[k], rp_metric_names[k]);
		sep = ", ";
	}
	if (*sep)
		fprintf(rp->out, " NA: both events written from one tracepoint hit (flagged DERIVED), the time between them not measured\n");
}

static void text_warnings(struct rp *rp, const struct rp_input *in)
{
	FILE *o = rp->out;
	char since[32];
	uint32_t i;

	if (rp->version_max > GRTRACE_FORMAT_VERSION)
		fprintf(o, "warning:  stream format version %u is newer than this tool's (%u): fields it does not know were ignored\n",
			(unsigned int)rp->version_max, GRTRACE_FORMAT_VERSION);
	/* One line each, worded as in the man page (REPORT, Warnings). */
	if (rp->restarts)
		fprintf(o, "warning:  gseq restarted %" PRIu64 " times (files of two module loads joined, or a reload): each part merged and its losses counted on its own; %" PRIu64 " jobs open at a restart were closed there\n",
			rp->restarts, rp->closed_at_restart);
	/*
	 * A record is stamped before it takes its gseq, so an interrupt
	 * between the two puts records of two CPUs out of order by up to its
	 * length: routine, and no warning below a millisecond.
	 */
	if (rp->ts_back_max >= RP_TS_BACK_WARN_NS)
		fprintf(o, "warning:  %" PRIu64 " records have a timestamp below one before them in gseq order, by up to %" PRIu64 " ns: CPU clocks apart, or stamped just before another CPU's record\n",
			rp->ts_back, rp->ts_back_max);
	if (rp->inconsistent)
		fprintf(o, "warning:  %" PRIu64 " metrics left NA: an event came before the one it follows\n",
			rp->inconsistent);
	if (rp->no_start)
		fprintf(o, "warning:  %" PRIu64 " jobs ended before their COMMIT or before an earlier END on their ring: no start derived, t_queue and t_exec NA\n",
			rp->no_start);
	for (i = 0; i < rp->nrings; i++) {
		struct ring *r = &rp->rings[i];

		if (!r->rq_closed)
			continue;
		if (r->ended)
			fprintf(o, "warning:  ring %" PRIu32 " %s: %" PRIu64 " jobs closed early: more than 16384 committed and not ended\n",
				r->ring_id, r->name[0] ? r->name : "(unnamed)",
				r->rq_closed);
		else
			fprintf(o, "warning:  ring %" PRIu32 " %s: %" PRIu64 " jobs closed early: more than 16384 committed and none ever ended (its adapter writes no END?)\n",
				r->ring_id, r->name[0] ? r->name : "(unnamed)",
				r->rq_closed);
	}
	if (rp->complete_first)
		fprintf(o, "warning:  %" PRIu64 " COMPLETE events were read before their job's END: each END joined its job (one row)\n",
			rp->complete_first);
	if (rp->late_start)
		fprintf(o, "warning:  %" PRIu64 " START events after their job's END were ignored: the job keeps the start derived at END, or none\n",
			rp->late_start);
	if (rp->key_reuse)
		fprintf(o, "warning:  %" PRIu64 " events repeated one their open job already had: each closed that job and began a new one with its ctx:seqno\n",
			rp->key_reuse);
	if (rp->key_reuse_done)
		fprintf(o, "warning:  %" PRIu64 " jobs were submitted with a seqno not above their context's highest: a ctx:seqno reused after its job, each job its own row\n",
			rp->key_reuse_done);
	for (i = 0; rp->rings_hung && i < rp->nrings; i++) {
		struct ring *r = &rp->rings[i];

		if (!r->hung)
			continue;
		fmt_ns(since, sizeof(since), r->hung_since - rp->t0);
		fprintf(o, "warning:  ring %" PRIu32 " %s hung: %" PRIu64 ":%" PRIu64 " running since %s into the trace and never ended, %" PRIu32 " jobs queued behind it\n",
			r->ring_id, r->name[0] ? r->name : "(unnamed)",
			r->hung_ctx, r->hung_seqno, since, r->hung_behind);
	}
	if (in->error)
		fprintf(o, "error:    %s: the report covers the records before it\n",
			in->error);
}

static void text_header(struct rp *rp, const struct rp_input *in)
{
	FILE *o = rp->out;

	fprintf(o, "grtrace report of %s\n", in->name);
	if (!rp->records) {
		fprintf(o, "records:  0\n");
		text_warnings(rp, in);
		return;
	}
	fprintf(o, "window:   %" PRIu64 " .. %" PRIu64 " ns (%" PRIu64 " ns)\n",
		rp->win_start, rp_window_end(rp), rp_window(rp));
	text_types(rp);
	if (rp->cseq_loss && rp->cseq_lost)
		fprintf(o, "lost:     %" PRIu64 " records in %" PRIu64 " gaps of the CPUs' cseq\n",
			rp->cseq_lost, rp->cseq_gaps);
	else if (rp->cseq_loss)
		fprintf(o, "lost:     none (no CPU's cseq has a gap)\n");
	else if (rp->gseq_off)
		fprintf(o, "lost:     unknown: recorded with gseq=0 (no global sequence), merged by ts\n");
	else if (rp_records_lost(rp))
		fprintf(o, "lost:     %" PRIu64 " records in %" PRIu64 " gseq gaps (gseq %" PRIu64 " .. %" PRIu64 ")\n",
			rp_records_lost(rp), rp->gseq_gaps, rp_gseq_first(rp),
			rp_gseq_last(rp));
	else
		fprintf(o, "lost:     none (gseq %" PRIu64 " .. %" PRIu64 " has no gap)\n",
			rp_gseq_first(rp), rp_gseq_last(rp));
	if (rp->gseq_late)
		fprintf(o, "order:    %" PRIu64 " records arrived after a higher gseq\n",
			rp->gseq_late);
	if (rp->seqno_wraps)
		fprintf(o, "seqno:    %" PRIu64 " wraps detected\n", rp->seqno_wraps);
	else
		fprintf(o, "seqno:    no wrap detected\n");
	fprintf(o, "jobs:     %" PRIu64 " (%" PRIu64 " incomplete, %" PRIu64 " closed early by --max-open or a ring's queue limit; at most %" PRIu64 " open at once)\n",
		rp->jobs_done, rp->jobs_incomplete, rp->jobs_evicted,
		rp->open_max);
	text_derived(rp);
	if (rp->self_waits)
		fprintf(o, "waits:    %" PRIu64 " waits on a job's own fence (a CPU thread waiting for it, as i915 reports them): not dependency waits, not in t_gpu_wait\n",
			rp->self_waits);
	text_warnings(rp, in);
}

static void text_rules(struct rp *rp)
{
	const struct rp_rules *ru = &rp->o.rules;
	char cond[NR_LABELS][64];
	int k;

	snprintf(cond[L_LONG_QUEUE], sizeof(cond[0]), "t_queue > %" PRIu64 " us",
		 ru->long_queue_us);
	snprintf(cond[L_SLOW_EXEC], sizeof(cond[0]), "t_exec > %" PRIu64 " us",
		 ru->slow_exec_us);
	snprintf(cond[L_DEP_WAIT], sizeof(cond[0]), "t_gpu_wait > %" PRIu64 " us",
		 ru->dep_wait_us);
	if (ru->preempt_min)
		snprintf(cond[L_PREEMPTED], sizeof(cond[0]),
			 "preempted >= %" PRIu64 " times", ru->preempt_min);
	else
		snprintf(cond[L_PREEMPTED], sizeof(cond[0]), "(off)");
	snprintf(cond[L_ERROR], sizeof(cond[0]), "an ERROR event");
	fprintf(rp->out, "\nrules:\n");
	for (k = 0; k < NR_LABELS; k++)
		fprintf(rp->out, "  %-16s %-28s %10" PRIu64 " jobs (%.2f%%)\n",
			rp_label_names[k], cond[k], rp->label_hits[k],
			pct_of(rp->label_hits[k], rp->jobs_done));
}

static void text_group(struct rp *rp, struct group *g)
{
	static const unsigned int pcts[] = { 50, 90, 99 };
	struct line l = { .n = 0 };
	size_t i;
	int k;

	fprintf(rp->out, "  %-16s %10s %12s %12s %12s %12s\n", "metric (us)",
		"count", "p50", "p90", "p99", "max");
	for (k = 0; k < NR_METRICS; k++) {
		struct pctl *p = &g->metric[k];

		l_str(&l, "  ");
		l_str(&l, rp_metric_names[k]);
		l_pad(&l, 19);
		l_right_u64(&l, p->n, 10);
		for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
			l_ch(&l, ' ');
			if (p->n)
				l_us(&l, pctl_get(p, pcts[i]), 12);
			else
				l_right(&l, "-", 12);
		}
		l_ch(&l, ' ');
		if (p->n)
			l_us(&l, p->max, 12);
		else
			l_right(&l, "-", 12);
		l_flush(&l, rp->out);
	}
	if (!group_exact(g))
		fprintf(rp->out, "  (over %u values: percentiles within 0.8%%)\n",
			PCTL_EXACT_MAX);
	fprintf(rp->out, "  labels:");
	for (k = 0; k < NR_LABELS; k++)
		fprintf(rp->out, "%s %s %.1f%%", k ? "," : "", rp_label_names[k],
			pct_of(g->labels[k], g->jobs));
	fputc('\n', rp->out);
}

static void text_group_line(struct rp *rp, struct group *g)
{
	uint64_t window = rp_window(rp);
	char act[32];

	fmt_ns(act, sizeof(act), group_active(g));
	fprintf(rp->out, ": %" PRIu64 " jobs, busy %.2f%% (%" PRIu64 " ns; %.2f%% of its active %s), queue depth avg %.3f max %" PRIu64 "\n",
		g->jobs, pct_of(group_busy(g), window), group_busy(g),
		pct_of(group_busy(g), group_active(g)), act,
		window ? g->depth_area / (double)window : 0, g->depth_max);
}

/* Intervals a text timeline line holds. */
#define TL_LINE	50

/*
 * --interval: the ring's busy % per interval, one character each: a digit
 * for tens of percent, '#' for 100 %.
 */
static void text_timeline(struct rp *rp, const struct ring *r)
{
	uint64_t iv = rp->o.interval, window = rp_window(rp);
	uint64_t nb = window ? (window + iv - 1) / iv : 0, k;
	char ivs[32], at[32];

	fmt_ns(ivs, sizeof(ivs), iv);
	fprintf(rp->out, "  busy per %s interval (0-9: tens of %%, #: 100%%):", ivs);
	if (nb > 4000) {
		fprintf(rp->out, " %" PRIu64 " intervals, too many for text: see JSON \"timeline\"\n",
			nb);
		return;
	}
	for (k = 0; k < nb; k++) {
		uint64_t from = k * iv, len = window - from < iv ? window - from : iv;
		uint64_t busy = k < r->g.ntl ? r->g.tl[k] : 0;
		unsigned int tens = len ? (unsigned int)(busy * 10 / len) : 0;

		if (k % TL_LINE == 0) {
			fmt_ns(at, sizeof(at), rp->win_start - rp->t0 + from);
			fprintf(rp->out, "\n  %12s  ", at);
		}
		fputc(busy >= len ? '#' : '0' + (tens > 9 ? 9 : tens), rp->out);
	}
	fputc('\n', rp->out);
}

static void text_rings(struct rp *rp)
{
	char name[4 * sizeof(rp->rings[0].name)], drv[128], dev[160], ebuf[16];
	char hint[512];
	uint32_t i;

	for (i = 0; i < rp->nrings; i++) {
		struct ring *r = &rp->rings[i];

		if (!ring_listed(r))
			continue;
		gr_escape(r->name, name, sizeof(name));
		gr_escape(r->driver, drv, sizeof(drv));
		gr_escape(r->device, dev, sizeof(dev));
		fprintf(rp->out, "\nring %" PRIu32 " %s (%s", r->ring_id,
			name[0] ? name : "-",
			gr_engine_name(r->engine, ebuf, sizeof(ebuf)));
		if (r->described)
			fprintf(rp->out, "; %s %s", drv, dev);
		fputc(')', rp->out);
		text_group_line(rp, &r->g);
		text_group(rp, &r->g);
		if (rp->o.has_interval)
			text_timeline(rp, r);
		switch (ring_hint(rp, r, hint, sizeof(hint))) {
		case 1:
			fprintf(rp->out, "  bottleneck: %s\n", hint);
			break;
		case 2:
			fprintf(rp->out, "  queueing: %s\n", hint);
			break;
		}
	}
}

static void text_ctxs(struct rp *rp)
{
	uint32_t i;

	for (i = 0; i < rp->nctxs; i++) {
		struct ctx *c = &rp->ctxs[i];

		if (!ctx_listed(c))
			continue;
		fprintf(rp->out, "\nctx %" PRIu64, c->ctx);
		text_group_line(rp, c->g);
		text_group(rp, c->g);
	}
}

static void text_jobs(struct rp *rp)
{
	char buf[65536];
	size_t n;

	if (!rp->spool)
		return;
	fprintf(rp->out, "\njobs (times in us; * = start derived as max(COMMIT, previous END on the ring)):\n");
	text_job_header(rp->out);
	rewind(rp->spool);
	while ((n = fread(buf, 1, sizeof(buf), rp->spool)) > 0)
		fwrite(buf, 1, n, rp->out);
	if (rp->rows_out < rp->jobs_done)
		fprintf(rp->out, "(%" PRIu64 " of %" PRIu64 " jobs shown: --limit)\n",
			rp->rows_out, rp->jobs_done);
}

static void text_report(struct rp *rp, const struct rp_input *in)
{
	unsigned int i;

	text_header(rp, in);
	text_rules(rp);
	if (rp->o.per_ring)
		text_rings(rp);
	if (rp->o.per_ctx)
		text_ctxs(rp);
	if (rp->o.topn) {
		sort_top(rp);
		fprintf(rp->out, "\ntop %u jobs by t_total (times in us):\n",
			rp->o.topn);
		text_job_header(rp->out);
		for (i = 0; i < rp->ntop; i++) {
			struct line l;

			text_job_line(rp, &l, &rp->top[i]);
			l_flush(&l, rp->out);
		}
	}
	if (rp->o.hist == RP_HIST_LAT || rp->o.hist == RP_HIST_SIZE) {
		fputc('\n', rp->out);
		text_hist(rp);
	} else if (rp->o.hist == RP_HIST_RESULT) {
		fputc('\n', rp->out);
		text_result(rp, in);
	}
	text_jobs(rp);
}

/* ---- the JSON report ----------------------------------------------------------------------- */

static void json_summary(struct rp *rp, const struct rp_input *in)
{
	struct line l = { .n = 0 };
	struct fields f = { .l = &l, .json = 1, .header = 0 };
	char tbuf[16];
	int t, k;

	l_str(&l, "\n],\n\"summary\": {");
	f_str(&f, "input", in->name);
	f_u64(&f, "records", rp->records);
	f_opt(&f, "window_start_ns", rp->records, rp->win_start);
	f_opt(&f, "window_end_ns", rp->records, rp_window_end(rp));
	f_u64(&f, "window_ns", rp_window(rp));
	f_key(&f, "events_by_type");
	l_ch(&l, '{');
	for (t = GRTRACE_EV_SUBMIT; t <= GRTRACE_EV_ERROR; t++) {
		l_json_str(&l, gr_type_name((uint16_t)t, tbuf, sizeof(tbuf)));
		l_ch(&l, ':');
		l_u64(&l, rp->by_type[t]);
		l_ch(&l, ',');
	}
	l_str(&l, "\"STREAM_INFO\":");
	l_u64(&l, rp->stream_infos);
	l_str(&l, ",\"METADATA\":");
	l_u64(&l, rp->metadatas);
	l_str(&l, ",\"RING\":");
	l_u64(&l, rp->ring_recs);
	l_ch(&l, '}');
	f_u64(&f, "unknown_records", rp->unknown);
	f_opt(&f, "gseq_first", rp->records && !rp->gseq_off, rp_gseq_first(rp));
	f_opt(&f, "gseq_last", rp->records && !rp->gseq_off, rp_gseq_last(rp));
	f_u64(&f, "gseq_gaps", rp->gseq_gaps);
	f_u64(&f, "cseq_gaps", rp->cseq_gaps);
	f_opt(&f, "lost_records", !rp->gseq_off || rp->cseq_loss,
	      rp_records_lost(rp));
	f_u64(&f, "out_of_order_records", rp->gseq_late);
	f_u64(&f, "seqno_wraps", rp->seqno_wraps);
	f_u64(&f, "format_version", rp->version_max);
	f_u64(&f, "jobs", rp->jobs_done);
	f_u64(&f, "jobs_incomplete", rp->jobs_incomplete);
	f_u64(&f, "jobs_closed_early", rp->jobs_evicted);
	f_u64(&f, "open_max", rp->open_max);
	f_u64(&f, "inconsistent_metrics", rp->inconsistent);
	f_u64(&f, "late_start", rp->late_start);
	f_u64(&f, "key_reuse", rp->key_reuse);
	f_u64(&f, "start_not_derived", rp->no_start);
	for (k = 0; k < NR_METRICS; k++) {
		char key[40];

		if (k == M_GPU_WAIT || k == M_TOTAL)
			continue;
		snprintf(key, sizeof(key), "derived_%s", rp_metric_names[k]);
		f_u64(&f, key, rp->derived_na[k]);
	}
	f_u64(&f, "rings_hung", rp->rings_hung);
	f_u64(&f, "complete_before_end", rp->complete_first);
	f_u64(&f, "busy_folded_early", rp->busy_forced);
	f_u64(&f, "ctx_table_resets", rp->ctx_forgets);
	f_u64(&f, "complete_without_end", rp->complete_alone);
	f_u64(&f, "key_reuse_finished", rp->key_reuse_done);
	f_u64(&f, "self_waits", rp->self_waits);
	f_u64(&f, "gseq_restarts", rp->restarts);
	f_u64(&f, "jobs_closed_at_restart", rp->closed_at_restart);
	f_u64(&f, "ts_backwards", rp->ts_back);
	f_u64(&f, "ts_backwards_max_ns", rp->ts_back_max);
	f_str(&f, "error", in->error);
	l_ch(&l, '}');
	fwrite(l.b, 1, l.n, rp->out);
}

static void json_rules(struct rp *rp)
{
	const struct rp_rules *ru = &rp->o.rules;
	struct line l = { .n = 0 };
	struct fields f = { .l = &l, .json = 1, .header = 0 };
	int k;

	l_str(&l, ",\n\"rules\": {");
	f_u64(&f, "long_queue_us", ru->long_queue_us);
	f_u64(&f, "slow_exec_us", ru->slow_exec_us);
	f_u64(&f, "dep_wait_us", ru->dep_wait_us);
	f_u64(&f, "preempt_min", ru->preempt_min);
	f_dbl(&f, "busy_pct", ru->busy_pct);
	f_dbl(&f, "queue_ratio", ru->queue_ratio);
	f_u64(&f, "hang_ms", ru->hang_ms);
	f_key(&f, "hits");
	l_ch(&l, '{');
	for (k = 0; k < NR_LABELS; k++) {
		if (k)
			l_ch(&l, ',');
		l_json_str(&l, rp_label_names[k]);
		l_ch(&l, ':');
		l_u64(&l, rp->label_hits[k]);
	}
	l_str(&l, "}}");
	fwrite(l.b, 1, l.n, rp->out);
}

/*
 * --interval: "timeline": {"interval_ns": I, "rings": [{"ring": N,
 * "ring_name": S, "busy_ns": [...]}]}, busy_ns[k] from the window's start
 * plus k intervals; the last interval may be cut short by its end.
 */
static void json_timeline(struct rp *rp)
{
	uint64_t iv = rp->o.interval, window = rp_window(rp);
	uint64_t nb = window ? (window + iv - 1) / iv : 0, k;
	struct line l = { .n = 0 };
	uint32_t i, out = 0;

	l_str(&l, ",\n\"timeline\": {\"interval_ns\": ");
	l_u64(&l, iv);
	l_str(&l, ", \"rings\": [");
	for (i = 0; i < rp->nrings; i++) {
		struct ring *r = &rp->rings[i];

		if (!ring_listed(r))
			continue;
		l_str(&l, out++ ? ",\n{\"ring\": " : "\n{\"ring\": ");
		l_u64(&l, r->ring_id);
		l_str(&l, ", \"ring_name\": ");
		if (r->described)
			l_json_str(&l, r->name);
		else
			l_str(&l, "null");
		l_str(&l, ", \"busy_ns\": [");
		for (k = 0; k < nb; k++) {
			if (k)
				l_ch(&l, ',');
			l_u64(&l, k < r->g.ntl ? r->g.tl[k] : 0);
			if (l.n > sizeof(l.b) / 2)
				l_flush_raw(&l, rp->out);
		}
		l_str(&l, "]}");
	}
	l_str(&l, "\n]}");
	l_flush_raw(&l, rp->out);
}

static void json_report(struct rp *rp, const struct rp_input *in)
{
	unsigned int i;

	json_summary(rp, in);
	json_rules(rp);
	if (rp->o.per_ring) {
		fputs(",\n\"rings\": [", rp->out);
		table_rows(rp, ring_table, 1, 1);
		fputs("\n]", rp->out);
	}
	if (rp->o.per_ctx) {
		fputs(",\n\"ctxs\": [", rp->out);
		table_rows(rp, ctx_table, 1, 0);
		fputs("\n]", rp->out);
	}
	if (rp->o.per_ring && rp->o.has_interval)
		json_timeline(rp);
	if (rp->o.topn) {
		sort_top(rp);
		fputs(",\n\"topn\": [", rp->out);
		for (i = 0; i < rp->ntop; i++) {
			struct line l;

			json_job_line(rp, &l, &rp->top[i], !i);
			fwrite(l.b, 1, l.n, rp->out);
		}
		fputs("\n]", rp->out);
	}
	if (rp->o.hist == RP_HIST_LAT || rp->o.hist == RP_HIST_SIZE)
		json_hist(rp);
	else if (rp->o.hist == RP_HIST_RESULT)
		json_result(rp, in);
	fputs("\n}\n", rp->out);
}

/* ---- CSV: the one table asked for ------------------------------------------------------------ */

static void csv_report(struct rp *rp, const struct rp_input *in)
{
	unsigned int i;

	if (rp->o.per_ring) {
		csv_header(rp, rp->out, ring_table);
		table_rows(rp, ring_table, 0, 1);
	} else if (rp->o.per_ctx) {
		csv_header(rp, rp->out, ctx_table);
		table_rows(rp, ctx_table, 0, 0);
	} else if (rp->o.topn) {
		sort_top(rp);
		csv_header(rp, rp->out, job_table);
		for (i = 0; i < rp->ntop; i++) {
			struct line l = { .n = 0 };
			struct fields f = { .l = &l, .json = 0, .header = 0 };

			job_fields(rp, &f, &rp->top[i]);
			l_flush(&l, rp->out);
		}
	} else if (rp->o.hist == RP_HIST_RESULT) {
		fprintf(rp->out, "result,count\n");
		result_rows(rp, in, csv_result_row, 0);
	} else if (rp->o.hist != RP_HIST_NONE) {
		csv_hist(rp);
	}
}

/* A window that begins after the last record selects nothing: say so. */
static void window_check(struct rp *rp)
{
	char since[32], len[32];

	if (!rp->o.has_since || !rp->have_first || rp->win_start <= rp->ts_max)
		return;
	fmt_ns(since, sizeof(since), rp->o.since);
	fmt_ns(len, sizeof(len), rp->ts_max - rp->t0);
	fprintf(stderr, "grtrace: report: --since %s is past the end of the trace (its last record is %s after its first): no job selected\n",
		since, len);
}

int out_end(struct rp *rp, const struct rp_input *in)
{
	window_check(rp);
	rows_flush(rp);
	switch (rp->o.format) {
	case RP_TEXT:
		text_report(rp, in);
		break;
	case RP_JSON:
		json_report(rp, in);
		break;
	case RP_CSV:
		csv_report(rp, in);
		break;
	}
	return ferror(rp->out) ? -1 : 0;
}
