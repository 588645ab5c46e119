// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report: the text report: a header that says what the input held
 * and lost, the rules and their hits, per-ring and per-context blocks, then
 * the job rows spooled while they finished.
 */
#include <ctype.h>

#include <errno.h>

#include "report-out.h"

/* Text columns: where each one ends. */
enum {
	TC_KEY = 22, TC_RING = 28, TC_NAME = 42, TC_ENGINE = 50,
	TC_METRIC = 12, TC_SUBMITTER = 24,
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
	l_ch(&l, ' ');
	l_str(&l, "submitter");
	l_pad(&l, l.n + TC_SUBMITTER - 10);
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

/*
 * --why, after a job's row: "why: dep 1.000 (on 7:3 ring 1 gfx/12) sched
 * 0.010 ring 2.000 behind: flood/40 1.900, me/41 0.100" (us).
 */
static void text_why(const struct rp *rp, struct line *l, const struct why *w)
{
	char pb[96];
	uint32_t k;

	if (!w->have) {
		l_str(l, "  why: -");
		return;
	}
	l_str(l, "  why: dep ");
	l_us(l, w->dep_ns, 0);
	if (w->dep) {
		l_str(l, " (on ");
		l_u64(l, w->dep_ctx);
		l_ch(l, ':');
		l_u64(l, w->dep_seqno);
		if (w->dep_known) {
			l_str(l, " ring ");
			l_u64(l, rp->rings[w->dep_ring].ring_id);
			l_ch(l, ' ');
			why_wp_str(rp, w->dep_wp, pb, sizeof(pb));
			l_str(l, pb);
		} else {
			l_str(l, ", its job not in the trace");
		}
		l_ch(l, ')');
	}
	l_str(l, " sched ");
	l_us(l, w->sched_ns, 0);
	l_str(l, " ring ");
	l_us(l, w->ring_ns, 0);
	if (!w->nbehind && !w->behind_rest)
		return;
	l_str(l, " behind:");
	for (k = 0; k < w->nbehind; k++) {
		why_wp_str(rp, w->behind[k].wp, pb, sizeof(pb));
		l_str(l, k ? ", " : " ");
		l_str(l, pb);
		l_ch(l, ' ');
		l_us(l, w->behind[k].ns, 0);
	}
	if (w->behind_rest) {
		l_str(l, ", others ");
		l_us(l, w->behind_rest, 0);
	}
}

/* A job's text row into @l, without its newline. */
static void text_job_line(const struct rp *rp, struct line *l,
		   const struct row *row)
{
	const struct ring *r = &rp->rings[row->ring];
	char ebuf[16], lbuf[128], name[4 * sizeof(r->name)], sbuf[64];
	size_t at;
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
	/*
	 * Who submitted it: process/pid of its DRM client from the client
	 * table, else comm/tid from the task table, else pid/tid.
	 */
	submitter_str(rp, row, sbuf, sizeof(sbuf));
	for (k = 0; sbuf[k]; k++)
		if (isspace((unsigned char)sbuf[k]))
			sbuf[k] = '_';
	l_ch(l, ' ');
	at = l->n;
	l_str(l, sbuf);
	l_pad(l, at + TC_SUBMITTER - 1);
	label_str(row, ',', lbuf, sizeof(lbuf));
	l_ch(l, ' ');
	l_str(l, lbuf[0] ? lbuf : "-");
	if (rp->o.why)
		text_why(rp, l, &row->why);
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

static void text_result(struct rp *rp, const struct rp_input *in)
{
	uint64_t max = result_max(rp, in);

	fprintf(rp->out, "result of the events: written to the trace, lost in gseq gaps%s\n",
		in->stats ? ", dropped by reason (stats file: since the module was loaded or its counters reset)" : "");
	result_rows(rp, in, text_result_row, max);
	if (!in->stats)
		fprintf(rp->out, "  %s\n", result_note);
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
	fprintf(rp->out, " STREAM_INFO %" PRIu64 ", METADATA %" PRIu64 ", RING %" PRIu64,
		rp->stream_infos, rp->metadatas, rp->ring_recs);
	if (rp->summaries)
		fprintf(rp->out, ", JOB_SUMMARY %" PRIu64, rp->summaries);
	if (rp->fr.triggers || rp->fr.ncpus)
		fprintf(rp->out, ", TRIGGER %" PRIu64 ", RECORDER %" PRIu32,
			rp->fr.triggers, rp->fr.ncpus);
	fprintf(rp->out, "; unknown type %" PRIu64 " (skipped)\n", rp->unknown);
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
	if (rp->cseq_loss && rp->cseq_lost) {
		fprintf(o, "lost:     %" PRIu64 " records in %" PRIu64 " gaps of the CPUs' cseq\n",
			rp->cseq_lost, rp->cseq_gaps);
		if (rp->tail_lost)
			fprintf(o, "          (%" PRIu64 " of them after a CPU's last record: the file's CPU tails)\n",
				rp->tail_lost);
		if (rp->head_lost)
			fprintf(o, "          (%" PRIu64 " of them before a CPU's first record: the file's CPU heads)\n",
				rp->head_lost);
	} else if (rp->cseq_loss)
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
	if (rp->summaries)
		fprintf(o, "sampled:  %" PRIu64 " jobs from summaries (grtrace_sampling, threshold %" PRIu64 " ns; %" PRIu64 " given up open): the faster jobs were counted in the kernel, not written; queue depths cover the jobs written event by event\n",
			rp->summaries, rp->summary_threshold,
			rp->summaries_open);
	if (rp->late_exits)
		fprintf(o, "waits:    %" PRIu64 " SYNC_WAIT_EXITs came after their job was done (a fence that had signalled before the job's SUBMIT): dropped, no job of their own\n",
			rp->late_exits);
	if (rp->o.why) {
		fprintf(o, "why:      %" PRIu64 " jobs with SUBMIT and start: their wait split (dep, sched, ring) and attributed\n",
			rp->why_jobs);
		if (rp->why_dep_lost)
			fprintf(o, "why:      %" PRIu64 " jobs waited last on a fence whose job is not in the trace (lost, outside it, or no GPU job): timed by its SYNC_WAIT_EXIT, which on 6.1 may be late\n",
				rp->why_dep_lost);
		if (rp->why_unresolved)
			fprintf(o, "why:      %" PRIu64 " jobs had a dependency wait whose signal was never seen: their dep time may be short\n",
				rp->why_unresolved);
		if (rp->why_short)
			fprintf(o, "why:      %" PRIu64 " jobs waited behind more jobs than the ring's history keeps: part of their wait is not attributed\n",
				rp->why_short);
	}
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

/* "2 threads", "1 DRM client", "2 threads and 1 DRM client". */
static void text_proc_from(const struct proc *p, char *buf, size_t len)
{
	size_t n = 0;

	if (p->threads || !p->clients)
		n = (size_t)snprintf(buf, len, "%" PRIu32 " thread%s",
				     p->threads, p->threads == 1 ? "" : "s");
	if (p->clients && n < len)
		snprintf(buf + n, len - n, "%s%" PRIu32 " DRM client%s",
			 n ? " and " : "", p->clients,
			 p->clients == 1 ? "" : "s");
}

/*
 * --per-process --why: whose jobs this process's jobs waited behind, in
 * all and per ring.
 */
static void text_waited(struct rp *rp, const struct proc *p)
{
	struct why_wb *all, *per;
	uint32_t n, nr, k, i;
	char pb[96], tb[32];

	all = why_waited(rp, p->pid, &n, 0);
	per = why_waited(rp, p->pid, &nr, 1);
	if (!n) {
		fprintf(rp->out, "  waited behind: nobody (no job of it waited on a busy ring)\n");
	} else {
		fprintf(rp->out, "  waited behind (its jobs' waits on their rings, by whose job ran):\n");
	}
	for (k = 0; k < n; k++) {
		why_wp_str(rp, all[k].holder, pb, sizeof(pb));
		fmt_ns(tb, sizeof(tb), all[k].ns);
		fprintf(rp->out, "    %-28s %12s", pb, tb);
		for (i = 0; i < nr; i++) {
			if (per[i].holder != all[k].holder)
				continue;
			fmt_ns(tb, sizeof(tb), per[i].ns);
			fprintf(rp->out, "  ring %" PRIu32 ": %s",
				rp->rings[per[i].ring].ring_id, tb);
		}
		fputc('\n', rp->out);
	}
	free(all);
	free(per);
}

static void text_procs(struct rp *rp)
{
	char from[64];
	uint32_t i;

	fprintf(rp->out, "\nprocesses (the submitters of the jobs, from their SUBMITs):\n");
	if (rp->jobs_done && rp->jobs_no_task == rp->jobs_done) {
		fprintf(rp->out, "  no submitter data: no SUBMIT names its thread (format 1, or submitted from interrupt or kernel-thread context); %" PRIu64 " jobs not attributed\n",
			rp->jobs_no_task);
		return;
	}
	if (!rp->task_frames && rp->jobs_by_task)
		fprintf(rp->out, "  (no task table in the input: processes by pid only)\n");
	/* A job's DRM client names its process only where the file does. */
	if (rp->jobs_client && !rp->client_frames)
		fprintf(rp->out, "  (jobs carry DRM client ids but the input names none (%s): each goes to the process of the thread that ran its SUBMIT)\n",
			rp->clients_none ? rp->clients_none : "no client table");
	else if (rp->jobs_client_unnamed)
		fprintf(rp->out, "  (%" PRIu64 " jobs carry a DRM client id the client table does not name (closed before record saw it): each goes to the process of the thread that ran its SUBMIT)\n",
			rp->jobs_client_unnamed);
	for (i = 0; i < rp->nprocs; i++) {
		struct proc *p = &rp->procs[i];

		if (p->pid == PROC_NONE) {
			fprintf(rp->out, "\nno submitter data: %" PRIu64 " jobs\n",
				p->g.jobs);
		} else {
			text_proc_from(p, from, sizeof(from));
			fprintf(rp->out, "\nprocess %" PRIu32 " %s: %" PRIu64 " jobs from %s\n",
				p->pid, p->name ? p->name : "(not named)",
				p->g.jobs, from);
		}
		text_group(rp, &p->g);
		if (rp->o.why)
			text_waited(rp, p);
	}
}

static void text_engines(struct rp *rp)
{
	char name[16];
	uint32_t i;

	fprintf(rp->out, "\nengines (the jobs of each engine class, all its rings together):\n");
	for (i = 0; i < rp->nengs; i++) {
		struct eng *e = &rp->engs[i];

		fprintf(rp->out, "\nengine %s (class %u): %" PRIu64 " job%s on %" PRIu32 " ring%s\n",
			gr_engine_name(e->engine, name, sizeof(name)), e->engine,
			e->g.jobs, e->g.jobs == 1 ? "" : "s",
			e->rings, e->rings == 1 ? "" : "s");
		text_group(rp, &e->g);
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

/* ---- a flight recorder's snapshot ------------------------------------------------------ */

/* "10:2 (SUBMIT 1.2 ms, COMMIT ..., START ... before the trigger)" */
static void text_fr_job(struct rp *rp, const struct fr_job *j)
{
	static const char *const names[] = { "SUBMIT", "COMMIT", "START" };
	const char *sep = " (";
	char d[32];
	int k;

	fprintf(rp->out, "%" PRIu64 ":%" PRIu64, j->ctx, j->seqno);
	for (k = ST_SUBMIT; k <= ST_START; k++) {
		if (!(j->have & (1u << k)))
			continue;
		if (j->ts[k] <= rp->fr.trig.ts)
			fmt_ns(d, sizeof(d), rp->fr.trig.ts - j->ts[k]);
		else
			snprintf(d, sizeof(d), "after the trigger:");
		fprintf(rp->out, "%s%s %s", sep, names[k], d);
		sep = ", ";
	}
	fputs(*sep == ',' ? " before the trigger)" : " (no SUBMIT, COMMIT or START kept)",
	      rp->out);
}

static void text_fr_hung(struct rp *rp)
{
	const struct fr *fr = &rp->fr;
	const struct ring *r = fr->ring != NIL ? &rp->rings[fr->ring] : NULL;
	char ran[32];
	uint32_t i;

	if (fr->trig.ring_id == GR_TRIGGER_NO_RING) {
		fprintf(rp->out, "  ring:       none named (a %s trigger)\n",
			fr->trig.cause == GRTRACE_TRIGGER_MANUAL ? "manual" : "ringless");
		return;
	}
	fprintf(rp->out, "  ring:       %" PRIu32 " %s%s\n", fr->trig.ring_id,
		r && r->name[0] ? r->name : "(unnamed)",
		r ? "" : " (no record of it in the snapshot)");
	fprintf(rp->out, "  hung job:   ");
	if (fr->hung) {
		text_fr_job(rp, &fr->job);
		fprintf(rp->out, ", %s\n", fr->trig.ctx || fr->trig.seqno ?
			"named by the trigger" :
			"the oldest unfinished job of the ring (the trigger named none)");
	} else if (fr->trig.ctx || fr->trig.seqno) {
		fprintf(rp->out, "%" PRIu64 ":%" PRIu64 ", named by the trigger: not open in the snapshot (its events overwritten, or it ended)\n",
			fr->trig.ctx, fr->trig.seqno);
	} else {
		fprintf(rp->out, "none: no job of the ring committed or started and not ended\n");
	}
	if (fr->hung && fr->ran_from >= 0) {
		fmt_ns(ran, sizeof(ran), fr->ran_ns);
		fprintf(rp->out, "  ran:        %s from its %s to the trigger\n",
			ran, fr->ran_from == ST_START ? "START" : "COMMIT (no START kept)");
	}
	fprintf(rp->out, "  behind it:  %" PRIu32 " jobs committed on the ring, not ended%s\n",
		fr->nbehind, fr->nbehind ? ":" : "");
	for (i = 0; i < fr->nbehind && i < RP_FR_BEHIND; i++) {
		fputs("              ", rp->out);
		text_fr_job(rp, &fr->behind[i]);
		fputc('\n', rp->out);
	}
	if (fr->nbehind > RP_FR_BEHIND)
		fprintf(rp->out, "              (%" PRIu32 " more)\n",
			fr->nbehind - RP_FR_BEHIND);
}

static void text_recorder(struct rp *rp)
{
	const struct fr *fr = &rp->fr;
	const struct gr_trigger *t = &fr->trig;
	char cbuf[16], d[32];
	uint32_t i;

	if (!fr->triggers && !fr->ncpus)
		return;
	fprintf(rp->out, "\nFlight recorder snapshot:\n");
	if (fr->triggers) {
		fprintf(rp->out, "  cause:      %s", gr_trigger_cause_name(t->cause, cbuf, sizeof(cbuf)));
		if (t->error)
			fprintf(rp->out, " (error %" PRId64 ")", t->error);
		fprintf(rp->out, " on CPU %" PRIu32 "\n", t->cpu);
		fmt_ns(d, sizeof(d), t->frozen_ts > t->ts ? t->frozen_ts - t->ts : 0);
		fprintf(rp->out, "  trigger:    at %" PRIu64 " ns; buffers frozen %s later; %" PRIu64 " later triggers counted\n",
			t->ts, d, t->later_triggers);
		text_fr_hung(rp);
	} else {
		fprintf(rp->out, "  cause:      unknown: no TRIGGER record (the triggering CPU's stream is missing)\n");
	}
	fprintf(rp->out, "  cpu   first_ts .. last_ts (ns)            emitted       kept  overwritten    dropped  identity\n");
	for (i = 0; i < fr->ncpus; i++) {
		const struct fr_cpu *c = &fr->cpus[i];
		const struct gr_recorder *a = &c->acc;

		fprintf(rp->out, "  %-5" PRIu32 " %" PRIu64 " .. %" PRIu64 " %10" PRIu64 " %10" PRIu64 " %12" PRIu64 " %10" PRIu64 "  %s\n",
			a->cpu, a->first_ts, a->last_ts, a->emitted, a->kept,
			a->overwritten, a->dropped,
			gr_recorder_balanced(a) ? "holds" :
			"DOES NOT HOLD (emitted != kept + overwritten + dropped)");
	}
	if (fr->overwritten || fr->dropped)
		fprintf(rp->out, "  not lost:   %" PRIu64 " records overwritten before the CPUs' first kept ones, %" PRIu64 " dropped at the freeze (cseq gaps the RECORDER records account for)\n",
			fr->overwritten, fr->dropped);
	fprintf(rp->out, "  jobs:       %" PRIu64 " began before the window (their SUBMIT overwritten), %" PRIu64 " open at the freeze\n",
		rp->jobs_no_submit, fr->open_at_end);
	if (fr->unbalanced)
		fprintf(rp->out, "warning:  %" PRIu64 " CPUs' accounting does not hold (emitted != kept + overwritten + dropped)\n",
			fr->unbalanced);
	if (fr->triggers > 1)
		fprintf(rp->out, "warning:  %" PRIu64 " TRIGGER records (snapshots joined?): the first one is reported\n",
			fr->triggers);
}

static int text_report(struct rp *rp, const struct rp_input *in)
{
	unsigned int i;

	text_header(rp, in);
	text_recorder(rp);
	text_rules(rp);
	if (rp->o.per_ring)
		text_rings(rp);
	if (rp->o.per_ctx)
		text_ctxs(rp);
	if (rp->o.per_process)
		text_procs(rp);
	if (rp->o.per_engine)
		text_engines(rp);
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
	if (rp->o.critical)
		why_critical_text(rp);
	text_jobs(rp);
	return 0;
}

/* The job rows go to a spool and are printed after the summaries. */
static int text_begin(struct rp *rp)
{
	if (!rp->o.limit)
		return 0;
	rp->spool = tmpfile();
	if (!rp->spool) {
		snprintf(rp->errmsg, sizeof(rp->errmsg),
			 "cannot create a temporary file: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int text_line(struct rp *rp, struct line *l, const struct row *row)
{
	text_job_line(rp, l, row);
	l->b[l->n++] = '\n';
	return 1;
}

const struct rp_sink rp_sink_text = {
	.name = "text",
	.summary = "aligned columns for a terminal; the job rows after the summaries",
	.begin = text_begin,
	.line = text_line,
	.end = text_report,
};
