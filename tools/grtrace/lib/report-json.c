// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report: the JSON report: one object, "jobs" first (written as
 * they finish), then the summary and the tables asked for.
 */
#include "report-out.h"

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
	if (rp->fr.triggers || rp->fr.ncpus) {
		l_str(&l, ",\"TRIGGER\":");
		l_u64(&l, rp->fr.triggers);
		l_str(&l, ",\"RECORDER\":");
		l_u64(&l, rp->fr.ncpus);
	}
	l_ch(&l, '}');
	f_u64(&f, "unknown_records", rp->unknown);
	f_opt(&f, "gseq_first", rp->records && !rp->gseq_off, rp_gseq_first(rp));
	f_opt(&f, "gseq_last", rp->records && !rp->gseq_off, rp_gseq_last(rp));
	f_u64(&f, "gseq_gaps", rp->gseq_gaps);
	f_u64(&f, "cseq_gaps", rp->cseq_gaps);
	f_opt(&f, "lost_records", !rp->gseq_off || rp->cseq_loss,
	      rp_records_lost(rp));
	if (rp->cseq_loss) {
		uint32_t c;

		/* Where the cseq gaps were: by CPU, from 0. */
		f_key(&f, "lost_records_by_cpu");
		l_ch(&l, '[');
		for (c = 0; c < rp->lost_ncpu; c++) {
			if (c)
				l_ch(&l, ',');
			l_u64(&l, rp->lost_cpu[c]);
		}
		l_ch(&l, ']');
	}
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
	f_u64(&f, "late_wait_exits", rp->late_exits);
	if (rp->o.why) {
		f_u64(&f, "why_jobs", rp->why_jobs);
		f_u64(&f, "why_dep_not_in_trace", rp->why_dep_lost);
		f_u64(&f, "why_waits_unresolved", rp->why_unresolved);
		f_u64(&f, "why_history_short", rp->why_short);
	}
	f_u64(&f, "jobs_from_summaries", rp->summaries);
	f_u64(&f, "summaries_open", rp->summaries_open);
	f_u64(&f, "gseq_restarts", rp->restarts);
	f_u64(&f, "jobs_closed_at_restart", rp->closed_at_restart);
	f_u64(&f, "ts_backwards", rp->ts_back);
	f_u64(&f, "ts_backwards_max_ns", rp->ts_back_max);
	f_str(&f, "error", in->error);
	l_ch(&l, '}');
	fwrite(l.b, 1, l.n, rp->out);
}

/* ---- a flight recorder's snapshot ----------------------------------------------------------- */

/* A job of the snapshot: its key and the stamps it has (null: none kept). */
static void json_fr_job(struct fields *f, const struct fr_job *j)
{
	static const char *const keys[] = {
		"submit_ns", "commit_ns", "start_ns",
	};
	struct fields o = { .l = f->l, .json = 1, .header = 0 };
	int k;

	l_ch(f->l, '{');
	f_u64(&o, "ctx", j->ctx);
	f_u64(&o, "seqno", j->seqno);
	for (k = ST_SUBMIT; k <= ST_START; k++)
		f_opt(&o, keys[k], j->have & (1u << k), j->ts[k]);
	l_ch(f->l, '}');
}

static void json_fr_cpus(struct rp *rp, struct fields *f)
{
	const struct fr *fr = &rp->fr;
	uint32_t i;

	f_key(f, "cpus");
	l_ch(f->l, '[');
	for (i = 0; i < fr->ncpus; i++) {
		const struct fr_cpu *c = &fr->cpus[i];
		struct fields o = { .l = f->l, .json = 1, .header = 0 };

		l_str(f->l, i ? ",\n {" : "\n {");
		f_u64(&o, "cpu", c->acc.cpu);
		f_u64(&o, "first_ts_ns", c->acc.first_ts);
		f_u64(&o, "last_ts_ns", c->acc.last_ts);
		f_u64(&o, "emitted", c->acc.emitted);
		f_u64(&o, "kept", c->acc.kept);
		f_u64(&o, "overwritten", c->acc.overwritten);
		f_u64(&o, "dropped", c->acc.dropped);
		f_u64(&o, "buffer_size", c->acc.buffer_size);
		f_bool(&o, "identity_holds", gr_recorder_balanced(&c->acc));
		f_u64(&o, "head_gap", c->head_gap);
		f_u64(&o, "tail_gap", c->tail_gap);
		f_u64(&o, "lost", c->lost);
		l_ch(f->l, '}');
		l_flush_raw(f->l, rp->out);
	}
	l_ch(f->l, ']');
}

/* "flight_recorder": present only for an input with a snapshot in it. */
static void json_recorder(struct rp *rp)
{
	const struct fr *fr = &rp->fr;
	const struct gr_trigger *t = &fr->trig;
	const struct ring *r = fr->ring != NIL ? &rp->rings[fr->ring] : NULL;
	struct line l = { .n = 0 };
	struct fields f = { .l = &l, .json = 1, .header = 0 };
	char cbuf[16];
	uint32_t i;

	if (!fr->triggers && !fr->ncpus)
		return;
	l_str(&l, ",\n\"flight_recorder\": {");
	f_u64(&f, "triggers", fr->triggers);
	if (fr->triggers) {
		f_str(&f, "cause", gr_trigger_cause_name(t->cause, cbuf, sizeof(cbuf)));
		f_u64(&f, "trigger_cpu", t->cpu);
		f_u64(&f, "trigger_ts_ns", t->ts);
		f_u64(&f, "frozen_ts_ns", t->frozen_ts);
		f_u64(&f, "later_triggers", t->later_triggers);
		f_key(&f, "error");
		l_i64(&l, t->error);
		f_opt(&f, "ring_id", t->ring_id != GR_TRIGGER_NO_RING, t->ring_id);
		f_str(&f, "ring_name", r && r->name[0] ? r->name : NULL);
		f_bool(&f, "job_named", t->ctx || t->seqno);
		f_key(&f, "hung_job");
		if (fr->hung)
			json_fr_job(&f, &fr->job);
		else
			l_str(&l, "null");
		f_opt(&f, "ran_ns", fr->hung && fr->ran_from >= 0, fr->ran_ns);
		f_str(&f, "ran_from", fr->ran_from == ST_START ? "START" :
		      fr->ran_from == ST_COMMIT ? "COMMIT" : NULL);
		f_u64(&f, "queued_behind", fr->nbehind);
		f_key(&f, "behind");
		l_ch(&l, '[');
		for (i = 0; i < fr->nbehind && i < RP_FR_BEHIND; i++) {
			if (i)
				l_ch(&l, ',');
			json_fr_job(&f, &fr->behind[i]);
			l_flush_raw(&l, rp->out);
		}
		l_ch(&l, ']');
	}
	json_fr_cpus(rp, &f);
	f_u64(&f, "unbalanced_cpus", fr->unbalanced);
	f_u64(&f, "overwritten_not_lost", fr->overwritten);
	f_u64(&f, "dropped_at_freeze", fr->dropped);
	f_u64(&f, "jobs_began_before_window", rp->jobs_no_submit);
	f_u64(&f, "jobs_open_at_freeze", fr->open_at_end);
	l_ch(&l, '}');
	l_flush_raw(&l, rp->out);
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

static int json_report(struct rp *rp, const struct rp_input *in)
{
	unsigned int i;

	json_summary(rp, in);
	json_recorder(rp);
	json_rules(rp);
	if (rp->o.per_ring) {
		fputs(",\n\"rings\": [", rp->out);
		table_rows(rp, ring_table, 1, TB_RINGS);
		fputs("\n]", rp->out);
	}
	if (rp->o.per_ctx) {
		fputs(",\n\"ctxs\": [", rp->out);
		table_rows(rp, ctx_table, 1, TB_CTXS);
		fputs("\n]", rp->out);
	}
	if (rp->o.per_process) {
		fputs(",\n\"processes\": [", rp->out);
		table_rows(rp, proc_table, 1, TB_PROCS);
		fprintf(rp->out, "\n],\n\"jobs_without_submitter\": %" PRIu64, rp->jobs_no_task);
		/* Their DRM client not in the client table: by their task. */
		fprintf(rp->out, ",\n\"jobs_client_not_named\": %" PRIu64,
			rp->jobs_client_unnamed);
	}
	if (rp->o.per_engine) {
		fputs(",\n\"engines\": [", rp->out);
		table_rows(rp, eng_table, 1, TB_ENGS);
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
	if (rp->o.critical)
		why_critical_json(rp);
	if (rp->o.hist == RP_HIST_LAT || rp->o.hist == RP_HIST_SIZE)
		json_hist(rp);
	else if (rp->o.hist == RP_HIST_RESULT)
		json_result(rp, in);
	fputs("\n}\n", rp->out);
	return 0;
}

static int json_begin(struct rp *rp)
{
	fputs("{\"jobs\": [", rp->out);
	return 0;
}

static int json_line(struct rp *rp, struct line *l, const struct row *row)
{
	json_job_line(rp, l, row, !rp->rows_out);
	return 1;
}

const struct rp_sink rp_sink_json = {
	.name = "json",
	.summary = "one object: the jobs, the summary and the tables asked for",
	.begin = json_begin,
	.line = json_line,
	.end = json_report,
};
