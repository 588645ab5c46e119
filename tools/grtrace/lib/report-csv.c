// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report: CSV output, one table: the jobs (written as they finish),
 * or the one summary asked for.
 */
#include "report-out.h"

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

static void csv_result_row(struct rp *rp, const char *name, uint64_t v,
			   uint64_t max)
{
	(void)max;
	fprintf(rp->out, "%s,%" PRIu64 "\n", name, v);
}

/* ---- CSV: the one table asked for ------------------------------------------------------------ */

static int csv_report(struct rp *rp, const struct rp_input *in)
{
	unsigned int i;

	if (rp->o.per_ring) {
		csv_header(rp, rp->out, ring_table);
		table_rows(rp, ring_table, 0, TB_RINGS);
	} else if (rp->o.per_ctx) {
		csv_header(rp, rp->out, ctx_table);
		table_rows(rp, ctx_table, 0, TB_CTXS);
	} else if (rp->o.per_process) {
		csv_header(rp, rp->out, proc_table);
		table_rows(rp, proc_table, 0, TB_PROCS);
	} else if (rp->o.per_engine) {
		csv_header(rp, rp->out, eng_table);
		table_rows(rp, eng_table, 0, TB_ENGS);
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
	return 0;
}

/* Without a summary asked for, the table is the jobs'. */
static int csv_table_is_jobs(const struct rp *rp)
{
	const struct rp_opts *o = &rp->o;

	return !o->per_ring && !o->per_ctx && !o->per_process &&
	       !o->per_engine && !o->topn &&
	       o->hist == RP_HIST_NONE;
}

static int csv_begin(struct rp *rp)
{
	if (csv_table_is_jobs(rp))
		csv_header(rp, rp->out, job_table);
	return 0;
}

static int csv_line(struct rp *rp, struct line *l, const struct row *row)
{
	struct fields f = { .l = l, .json = 0, .header = 0 };

	if (!csv_table_is_jobs(rp))
		return 0;
	job_fields(rp, &f, row);
	l->b[l->n++] = '\n';
	return 1;
}

const struct rp_sink rp_sink_csv = {
	.name = "csv",
	.summary = "one table with a header line: the jobs, or the one summary asked for",
	.flags = RP_SINK_ONE_TABLE,
	.begin = csv_begin,
	.line = csv_line,
	.end = csv_report,
};
