/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgrtrace: the outputs of the report ("sinks"), each an ops table
 * registered by name in sinks.c.  The engine (report.c) and the shared
 * output code (report-out.c) call a sink only through its ops and never
 * name one; the --format help, the bash completion (grtrace
 * --list-formats) and the documentation's list come from the table.
 *
 * A new output format is one new file that defines
 * "const struct rp_sink rp_sink_<name>", one line in RP_SINK_LIST
 * (sinks.c) and its object in the Makefile's LIB_OBJS.
 */
#ifndef GRTRACE_SINK_H
#define GRTRACE_SINK_H

#include <stddef.h>
#include <stdint.h>

struct rp;
struct row;
struct line;
struct rp_input;

/* Written by "grtrace export", not offered by "grtrace report --format". */
#define RP_SINK_EXPORT		0x1
/* Binary: never to a terminal. */
#define RP_SINK_BINARY		0x2
/* Holds one table: at most one of the summaries may be asked for. */
#define RP_SINK_ONE_TABLE	0x4
/* Wants each job's first dependencies (struct job's dep[]): costs a copy. */
#define RP_SINK_DEPS		0x8

/**
 * struct rp_sink - an output of the report
 * @name: what --format takes; lowercase, no blanks
 * @summary: one line for the help and the documentation
 * @flags: RP_SINK_*
 * @begin: before the first record; may set rp->sink_state.  0, or -1 with
 *	rp->errmsg set (the report is not made).
 * @line: a finished job's row into @l, with its newline; 0 when this sink
 *	lists no job rows in this report.  The rows go through a buffer and
 *	--limit in report-out.c.  NULL when @row is given instead.
 * @row: a finished job, for a sink that writes every job itself (no
 *	--limit, no buffer).
 * @depth: ring @ring (an index of rp->rings) has @depth jobs committed
 *	and not ended from @ts on (per ring only); may be NULL.
 * @lost: @n records lost before @ts on @cpu (-1: a gap in gseq); may be
 *	NULL.
 * @finishing: the input is read; the jobs closed from now on never ended.
 * @end: everything after the rows: the summaries.  0, or -1 with
 *	rp->errmsg set (an output error is found by the caller with ferror()).
 * @free: frees rp->sink_state; may be NULL.
 */
struct rp_sink {
	const char *name;
	const char *summary;
	unsigned int flags;
	int (*begin)(struct rp *rp);
	int (*line)(struct rp *rp, struct line *l, const struct row *row);
	void (*row)(struct rp *rp, const struct row *row);
	void (*depth)(struct rp *rp, uint32_t ring, uint64_t ts,
		      uint64_t depth);
	void (*lost)(struct rp *rp, uint64_t ts, uint64_t n, int cpu);
	void (*finishing)(struct rp *rp);
	int (*end)(struct rp *rp, const struct rp_input *in);
	void (*free)(struct rp *rp);
};

/* The registered sinks, NULL-terminated, in the order the help lists them. */
extern const struct rp_sink *const rp_sinks[];

/* The sink called @name, or NULL. */
const struct rp_sink *rp_sink_find(const char *name);

#endif /* GRTRACE_SINK_H */
