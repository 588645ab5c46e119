// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: libgrtrace's entry points -- the stream decoder (a
 * flight recorder's TRIGGER and RECORDER included: the corpus has
 * snapshots in both formats), the whole report path from the per-CPU
 * merge to every output format, and the public interface of grtrace.h --
 * on arbitrary bytes taken as a file written by "grtrace record" or
 * "grtrace recorder wait".
 *
 * Built with clang -fsanitize=fuzzer,address,undefined by "make fuzz".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/include/grtrace/grtrace.h"
#include "../lib/include/grtrace/timeline.h"
#include "../lib/merge.h"
#include "../lib/report.h"
#include "../lib/tracedat.h"

static FILE *devnull;

/* Every record through the iterator and the decoder of its type. */
static void decode_all(const uint8_t *data, size_t size)
{
	struct gr_stream_info si;
	struct gr_recorder rc;
	struct gr_trigger tr;
	struct gr_metadata md;
	struct gr_ring ring;
	struct gr_job job;
	struct gr_iter it;
	struct gr_rec rec;
	uint32_t i;

	gr_iter_init(&it, data, size);
	while (gr_iter_next(&it, &rec) > 0) {
		gr_decode_job(&rec, &job);
		gr_decode_stream_info(&rec, &si);
		gr_decode_ring(&rec, &ring);
		if (gr_decode_recorder(&rec, &rc) == 0)
			gr_recorder_balanced(&rc);
		gr_decode_trigger(&rec, &tr);
		if (gr_decode_metadata(&rec, &md) == 0)
			for (i = 0; i < md.nr_rings; i++)
				gr_decode_metadata_ring(&rec, &md, i, &ring);
	}
}

static void report(const uint8_t *data, size_t size, const struct rp_opts *o)
{
	struct rp_input in = { .name = "fuzz" };
	struct merge m;
	struct gr_rec rec;
	struct rp *rp;
	char why[GR_ERRMSG_LEN];
	int n;

	merge_init_buf(&m, data, size);
	rp = rp_new(o, devnull, why, sizeof(why));
	if (!rp) {
		merge_free(&m);
		return;
	}
	while ((n = merge_next(&m, &rec)) > 0) {
		if (n == MERGE_NEW_PART)
			rp_restart(rp);
		if (rp_record(rp, &rec) < 0)
			break;
	}
	in.error = m.failed ? m.errmsg : NULL;
	rp_finish(rp, &in);
	rp_free(rp);
	merge_free(&m);
}

/* The public interface: records, jobs, a report and rows through it. */
static void api(const uint8_t *data, size_t size)
{
	static const char *const args[] = { "--per-ring", "--topn=2", NULL };
	struct grtrace_report_opts ro = {
		.size = sizeof(ro), .flags = GRTRACE_REPORT_PER_CTX |
		GRTRACE_REPORT_LIMIT, .hist = GRTRACE_HIST_RESULT, .limit = 3,
	};
	struct grtrace_info_stream si = { .size = sizeof(si) };
	struct grtrace_info_ring ri = { .size = sizeof(ri) };
	struct grtrace_info_trigger ti = { .size = sizeof(ti) };
	struct grtrace_info_loss li = { .size = sizeof(li) };
	struct grtrace_record r = GRTRACE_RECORD_INIT;
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	struct grtrace_job j = GRTRACE_JOB_INIT;
	unsigned int format, i;
	grtrace_trace *t, *d;
	size_t len;

	t = grtrace_open_mem(data, size, &err);
	if (!t)
		return;
	/* Every record, and what a control record says, typed. */
	d = grtrace_dup(t, &err);
	while (d && grtrace_next_record(d, &r, &err) > 0) {
		grtrace_info_stream(d, &si, &err);
		grtrace_info_trigger(d, &ti, &err);
		grtrace_info_loss(d, &li, &err);
		for (i = 0; grtrace_info_ring(d, i, &ri, &err) > 0; i++)
			;
	}
	grtrace_close(d);
	while (grtrace_next_record(t, &r, &err) > 0)
		;
	grtrace_rewind(t, &err);
	while (grtrace_next_job(t, &j, &err) > 0)
		;
	grtrace_report(t, "json", args, devnull, &err);
	grtrace_report_with(t, "text", &ro, devnull, &err);
	grtrace_close(t);

	/* Rows, of the input as it is and as a bare stream of each format. */
	for (format = 0; format <= 2; format++) {
		t = grtrace_open_mem_as(data, size, format, 1, &err);
		if (!t)
			continue;
		while (grtrace_next_rows(t, format == 1 ? GRTRACE_ROWS_CSV :
					 GRTRACE_ROWS_JSON, &len, &err))
			;
		grtrace_close(t);
	}
}

/*
 * merge_timeline's GPU side (grtrace/timeline.h), and the size check of a
 * trace-cmd trace.dat (the corpus has two: tests/tracedat).
 */
static void timeline(const uint8_t *data, size_t size)
{
	struct grtrace_gpu_events *ev;
	struct grtrace_error err = GRTRACE_ERROR_INIT;

	if (!grtrace_gpu_events_mem(data, size, &ev, &err))
		grtrace_gpu_events_free(ev);
	gr_tracedat_check(data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_opts o;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	decode_all(data, size);
	api(data, size);
	timeline(data, size);

	memset(&o, 0, sizeof(o));
	rp_default_rules(&o.rules);
	o.limit = 4;
	/* A small limit makes the eviction path run too. */
	o.max_open = 8;
	o.per_ring = o.per_ctx = 1;
	o.topn = 3;
	o.hist = RP_HIST_LAT;
	report(data, size, &o);

	o.sink = rp_sink_find("json");
	o.hist = RP_HIST_SIZE;
	o.max_open = 1u << 20;
	o.has_since = o.has_until = 1;
	o.since = 100;
	o.until = 1000000;
	/* --why, its interference table and every process's critical path. */
	o.why = 1;
	o.per_process = 1;
	o.critical = 2;
	report(data, size, &o);

	memset(&o, 0, sizeof(o));
	rp_default_rules(&o.rules);
	o.sink = rp_sink_find("csv");
	o.limit = UINT64_MAX;
	o.max_open = 1u << 20;
	report(data, size, &o);
	o.hist = RP_HIST_RESULT;
	report(data, size, &o);

	/* grtrace export: what it writes is checked by export_check.py. */
	memset(&o, 0, sizeof(o));
	rp_default_rules(&o.rules);
	o.sink = rp_sink_find("perfetto");
	o.per_ring = 1;
	o.max_open = 64;
	o.why = 1;
	o.critical = 2;
	report(data, size, &o);
	return 0;
}
