/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace report: per-job latencies, per-ring and per-context summaries,
 * labels and histograms from records fed in gseq order.
 *
 * The engine holds only what is still open: jobs not yet completed, the
 * rings and contexts seen, and fixed-size summaries (see pctl.h), so its
 * memory follows the number of jobs in flight, not the trace length.
 */
#ifndef GRTRACE_REPORT_H
#define GRTRACE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "stream.h"
#include "lib.h"
#include "sink.h"

enum rp_hist { RP_HIST_NONE, RP_HIST_LAT, RP_HIST_SIZE, RP_HIST_RESULT };

/* Thresholds of the labels and of the bottleneck hint. */
struct rp_rules {
	uint64_t long_queue_us;		/* t_queue above: long_queue */
	uint64_t slow_exec_us;		/* t_exec above: slow_exec */
	uint64_t dep_wait_us;		/* t_gpu_wait above: dependency_wait */
	uint64_t preempt_min;		/* preemptions at least: preempted */
	double busy_pct;		/* a ring this busy is saturated */
	double queue_ratio;		/* p90 t_queue >= this x p90 t_exec */
	uint64_t hang_ms;		/* running this long at the end: hung */
};

struct rp_sink;

struct rp_opts {
	struct rp_rules rules;
	const struct rp_sink *sink;	/* the output (sink.h); NULL: text */
	/* Said once each, as a line without "grtrace: " (may be NULL). */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	int per_ring;
	int per_ctx;
	int per_process;
	int per_engine;
	unsigned int topn;
	enum rp_hist hist;
	uint64_t limit;			/* job rows printed at most */
	uint64_t max_open;		/* jobs held open at most */
	uint64_t interval;		/* ns: a ring's busy time per interval */
	int has_interval;		/* --interval: print the timeline */
	int has_since, has_until;
	uint64_t since, until;		/* ns after the first record */
	int has_ring, has_ctx, has_engine;
	uint32_t ring;
	uint64_t ctx;
	uint64_t engines;		/* --engine: bit n selects class n */
	int why;			/* --why: each job's wait, attributed */
	/* --critical-path: 1 a job (@cp_ctx:@cp_seqno), 2 "slowest". */
	int critical;
	uint64_t cp_ctx, cp_seqno;
};

/* What the report says about its input. */
struct rp_input {
	const char *name;		/* file name, or the debugfs directory */
	const struct gr_stats *stats;	/* live: the stats file, else NULL */
	const char *error;		/* why the input stopped early, or NULL */
};

struct rp;

void rp_default_rules(struct rp_rules *rules);
/* Set rule @key (as in a --rules file) to @val; -1 if either is invalid. */
int rp_set_rule(struct rp_rules *rules, const char *key, const char *val);

/*
 * A report of records to come, written to @out by @opts->sink; NULL with
 * the reason in @err when the sink cannot start (no temporary file, ...).
 */
struct rp *rp_new(const struct rp_opts *opts, FILE *out, char *err,
		  size_t errlen);
/*
 * Feed the next record in gseq order.  Returns 0, or -1 when the record
 * makes the rest of the input untrustworthy (a STREAM_INFO with a wrong
 * magic); rp_errmsg() says why.
 */
int rp_record(struct rp *rp, const struct gr_rec *rec);
struct grf_task;
/*
 * The input's task table (a trace file's, sorted by tid; kept, not
 * copied), which names the threads and processes of the SUBMITs; @frames:
 * how many task tables the file had (0: it names none).
 */
void rp_set_tasks(struct rp *rp, const struct grf_task *tasks, size_t n,
		  unsigned int frames);
struct grf_client;
struct grf_tail;
/*
 * The input's client table (a trace file's, sorted by id; kept, not
 * copied), which names the processes holding the DRM clients the SUBMITs
 * carry; @frames: how many client tables the file had.  @none: why the
 * input names no client when it has none ("a bare stream", ...), said when
 * jobs carry client ids.
 */
void rp_set_clients(struct rp *rp, const struct grf_client *clients,
		    size_t n, unsigned int frames, const char *none);
/*
 * The input's CPU tails (a trace file's, in file order; kept, not
 * copied): each CPU's next cseq after the session, which shows the
 * records it lost after its last written one.
 */
void rp_set_tails(struct rp *rp, const struct grf_tail *tails, size_t n);
/* The same of its CPU heads: each CPU's cseq when the session started. */
void rp_set_heads(struct rp *rp, const struct grf_tail *heads, size_t n);
/*
 * The input is in stream format @format (a trace file's header says, or
 * the module): from 2 on, loss is counted from each CPU's cseq.
 */
void rp_set_format(struct rp *rp, unsigned int format);
/*
 * The gseq restarts with the next record (merge_next() said MERGE_NEW_PART):
 * a part of the input from another module load begins.  The jobs still
 * open are closed, as they never end in this part, and the gseq gaps are
 * counted per part.
 */
void rp_restart(struct rp *rp);
const char *rp_errmsg(const struct rp *rp);
/*
 * Close the open jobs and print everything; 0, or -1 on an output error
 * (ferror(@out)) or when the sink could not write what it was given
 * (rp_errmsg() says why; it is "" for an output error).
 */
int rp_finish(struct rp *rp, const struct rp_input *in);
void rp_free(struct rp *rp);

#endif /* GRTRACE_REPORT_H */
