// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: libgrtrace through its public interface alone
 * (grtrace.h, timeline.h), as every client sees it -- the decoder of each
 * record type (a flight recorder's TRIGGER and RECORDER included: the
 * corpus has snapshots in both formats) behind grtrace_next_record() and
 * grtrace_info_*(), the whole report path from the per-CPU merge to every
 * output format with the report's options as a struct, the rows, the
 * jobs, and merge_timeline's sides -- on arbitrary bytes taken as a file
 * written by "grtrace record" or "grtrace recorder wait", or as a bare
 * stream of either format.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined by "make fuzz".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/include/grtrace/grtrace.h"
#include "../lib/include/grtrace/timeline.h"

static FILE *devnull;

/* Every record of @t, and what each control record says, typed. */
static void records(grtrace_trace *t)
{
	struct grtrace_info_stream si = GRTRACE_INFO_STREAM_INIT;
	struct grtrace_info_ring ri = GRTRACE_INFO_RING_INIT;
	struct grtrace_info_trigger ti = GRTRACE_INFO_TRIGGER_INIT;
	struct grtrace_info_loss li = GRTRACE_INFO_LOSS_INIT;
	struct grtrace_record r = GRTRACE_RECORD_INIT;
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	unsigned int i;

	while (grtrace_next_record(t, &r, &err) > 0) {
		grtrace_info_stream(t, &si, &err);
		grtrace_info_trigger(t, &ti, &err);
		if (grtrace_info_loss(t, &li, &err) > 0)
			grtrace_loss_balanced(&li);
		for (i = 0; grtrace_info_ring(t, i, &ri, &err) > 0; i++)
			;
	}
}

/* The input as it is, and as a bare stream of format 1 and of 2. */
static void decode_all(const uint8_t *data, size_t size)
{
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	struct grtrace_record r[8];
	unsigned int format;
	grtrace_trace *t;

	for (format = 0; format <= 2; format++) {
		t = grtrace_open_mem_as(data, size, format, 1, &err);
		if (!t)
			continue;
		records(t);
		/* The same in batches. */
		grtrace_rewind(t, &err);
		r[0].size = sizeof(r[0]);
		while (grtrace_next_records(t, r, 8, &err) > 0)
			;
		grtrace_close(t);
	}
}

/* The report's configurations, from the options struct. */
static void report_with(grtrace_trace *t, const char *format,
			const struct grtrace_report_opts *o)
{
	struct grtrace_error err = GRTRACE_ERROR_INIT;

	grtrace_report_with(t, format, o, devnull, &err);
}

static void reports(grtrace_trace *t)
{
	struct grtrace_report_opts o = GRTRACE_REPORT_OPTS_INIT;
	struct grtrace_error err = GRTRACE_ERROR_INIT;

	/* A small limit makes the eviction path run too. */
	o.flags = GRTRACE_REPORT_LIMIT | GRTRACE_REPORT_MAX_OPEN |
		  GRTRACE_REPORT_PER_RING | GRTRACE_REPORT_PER_CTX |
		  GRTRACE_REPORT_INTERVAL;
	o.limit = 4;
	o.max_open = 8;
	o.topn = 3;
	o.hist = GRTRACE_HIST_LAT;
	o.interval = 1000;
	grtrace_report_rule(&o, "long_queue_us", "0", &err);
	grtrace_report_rule(&o, "preempt_min", "0", &err);
	grtrace_report_rule(&o, "busy_pct", "0.5", &err);
	report_with(t, "text", &o);

	/* --why, its interference table and every process's critical path. */
	o.flags = GRTRACE_REPORT_LIMIT | GRTRACE_REPORT_PER_RING |
		  GRTRACE_REPORT_PER_CTX | GRTRACE_REPORT_PER_PROCESS |
		  GRTRACE_REPORT_SINCE | GRTRACE_REPORT_UNTIL |
		  GRTRACE_REPORT_CRITICAL_SLOWEST | GRTRACE_REPORT_THREAD;
	o.hist = GRTRACE_HIST_SIZE;
	o.since = 100;
	o.until = 1000000;
	o.rules_set = 0;
	report_with(t, "json", &o);

	/* One job's path, and a selection by ring, context and engine. */
	o.flags = GRTRACE_REPORT_CRITICAL | GRTRACE_REPORT_RING |
		  GRTRACE_REPORT_ENGINE | GRTRACE_REPORT_PER_ENGINE;
	o.hist = GRTRACE_HIST_NONE;
	o.topn = 0;
	o.cp_ctx = 1;
	o.cp_seqno = 1;
	o.ring = 0;
	o.engines = 0x3;
	report_with(t, "text", &o);

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	report_with(t, "csv", &o);
	o.hist = GRTRACE_HIST_RESULT;
	report_with(t, "csv", &o);

	/* grtrace export: what it writes is checked by export_check.py. */
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.flags = GRTRACE_REPORT_MAX_OPEN | GRTRACE_REPORT_CRITICAL_SLOWEST |
		  GRTRACE_REPORT_CTX;
	o.max_open = 64;
	o.ctx = 1;
	report_with(t, "perfetto", &o);
}

/* The public interface's other paths: jobs, a second handle, rows. */
static void api(const uint8_t *data, size_t size)
{
	static const char *const args[] = { "--per-ring", "--topn=2", NULL };
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	struct grtrace_job j = GRTRACE_JOB_INIT;
	unsigned int format;
	grtrace_trace *t, *d;
	size_t len;

	t = grtrace_open_mem(data, size, &err);
	if (!t)
		return;
	d = grtrace_dup(t, &err);
	if (d) {
		records(d);
		grtrace_close(d);
	}
	while (grtrace_next_job(t, &j, &err) > 0)
		;
	grtrace_report(t, "json", args, devnull, &err);
	reports(t);
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
 * merge_timeline's GPU side, and the size check of a trace-cmd trace.dat
 * (the corpus has two: tests/tracedat).
 */
static void timeline(const uint8_t *data, size_t size)
{
	struct grtrace_gpu_events *ev;
	struct grtrace_error err = GRTRACE_ERROR_INIT;

	if (!grtrace_gpu_events_mem(data, size, &ev, &err))
		grtrace_gpu_events_free(ev);
	grtrace_tracedat_check(data, size, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	decode_all(data, size);
	api(data, size);
	timeline(data, size);
	return 0;
}
