/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace report: what the text, CSV and JSON writers share: a line buffer
 * formatted by hand (printf() per field would cost more than all the
 * analysis of a job), the fields of a CSV line or JSON object, and the
 * tables and summaries report-out.c builds for them.
 */
#ifndef GRTRACE_REPORT_OUT_H
#define GRTRACE_REPORT_OUT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"

#define HIST_BUCKETS	12
#define BAR_WIDTH	40

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

static inline void l_str(struct line *l, const char *s)
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
static inline void l_u64_cut(struct line *l, uint64_t v, size_t n)
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
static inline void l_sep_u64(struct line *l, char sep, uint64_t v)
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

static inline void l_i64(struct line *l, int64_t v)
{
	if (v < 0) {
		l_ch(l, '-');
		l_u64(l, -(uint64_t)v);
	} else {
		l_u64(l, (uint64_t)v);
	}
}

static inline void l_pad(struct line *l, size_t col)
{
	while (l->n < col && l->n < sizeof(l->b) - 1)
		l->b[l->n++] = ' ';
}

/* @ns as microseconds with three decimals, right-aligned to @width. */
static inline void l_us(struct line *l, uint64_t ns, size_t width)
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

static inline void l_right(struct line *l, const char *s, size_t width)
{
	size_t n = strlen(s);

	l_pad(l, l->n + (n < width ? width - n : 0));
	l_str(l, s);
}

static inline void l_right_u64(struct line *l, uint64_t v, size_t width)
{
	size_t n = dec_len(v);
	char buf[24];

	put_dec(buf + n, v);
	buf[n] = '\0';
	l_right(l, buf, width);
}

/* JSON string: bytes outside ASCII are taken as Latin-1, so always valid. */
static inline void l_json_str(struct line *l, const char *s)
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

static inline void l_csv_str(struct line *l, const char *s)
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
static inline void l_flush_raw(struct line *l, FILE *f)
{
	fwrite(l->b, 1, l->n, f);
	l->n = 0;
}

static inline void l_flush(struct line *l, FILE *f)
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

static inline void f_str(struct fields *f, const char *key, const char *s)
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

static inline void f_bool(struct fields *f, const char *key, int v)
{
	if (!f_key(f, key))
		return;
	if (f->json)
		l_str(f->l, v ? "true" : "false");
	else
		l_ch(f->l, v ? '1' : '0');
}

static inline void f_dbl(struct fields *f, const char *key, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.3f", v);
	if (f_key(f, key))
		l_str(f->l, buf);
}

typedef void table_fn(struct rp *rp, struct fields *f, void *item);

/* ---- histograms ------------------------------------------------------------------------- */

struct hist {
	unsigned int t;		/* values are below 2^t */
	uint64_t count[HIST_BUCKETS];
};

/* report-out.c */
void label_str(const struct row *row, char sep, char *buf, size_t len);
void job_fields(const struct rp *rp, struct fields *f,
		const struct row *row);
void csv_header(struct rp *rp, FILE *out, table_fn *fn);
void why_fields(const struct rp *rp, struct fields *f, const struct row *row);
void waited_fields(struct rp *rp, struct fields *f, const struct proc *p);
void job_table(struct rp *rp, struct fields *f, void *row);
double pct_of(uint64_t part, uint64_t whole);
int group_exact(const struct group *g);
void ring_table(struct rp *rp, struct fields *f, void *item);
void ctx_table(struct rp *rp, struct fields *f, void *item);
void proc_table(struct rp *rp, struct fields *f, void *item);
void eng_table(struct rp *rp, struct fields *f, void *item);
int ring_listed(const struct ring *r);
int ctx_listed(const struct ctx *c);
/* What table_rows() lists. */
enum { TB_CTXS, TB_RINGS, TB_PROCS, TB_ENGS };
void table_rows(struct rp *rp, table_fn *fn, int json, int kind);
/* "comm/tid", "pid/tid" (not named) or "-" (no submitter data). */
void submitter_str(const struct rp *rp, const struct row *row, char *buf,
		   size_t len);
void sort_top(struct rp *rp);
void hist_fold(const struct rp *rp, struct hist *h);
void hist_bound(const struct hist *h, unsigned int i, struct line *l);
const char *hist_metric(const struct rp *rp);
extern const char result_note[];
uint64_t events_written(const struct rp *rp);
int is_drop_key(const char *key);
void result_rows(struct rp *rp, const struct rp_input *in,
		 void (*row)(struct rp *, const char *, uint64_t, uint64_t),
		 uint64_t max);
uint64_t result_max(const struct rp *rp, const struct rp_input *in);


#endif /* GRTRACE_REPORT_OUT_H */
