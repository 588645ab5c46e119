/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace diff: two recordings compared (diff.c); the public entry point
 * is grtrace_diff() in api.c, which feeds each input to the engine with
 * the options and sink state these give.
 */
#ifndef GRTRACE_DIFF_H
#define GRTRACE_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"

enum { DIFF_TEXT, DIFF_JSON, DIFF_CSV };

struct diff_opts {
	double alpha;		/* flagged below this Holm-adjusted p-value */
	double min_change;	/* ... and a percentile moved this many % */
	int form;		/* DIFF_* */
	const char *name[2];	/* the inputs, as the output names them */
};

struct diff;

void diff_opts_init(struct diff_opts *o);
/* Set option @a ("--alpha=P", ...) of grtrace_diff(): 0, or -1. */
int diff_opt(struct diff_opts *o, const char *a);
struct diff *diff_new(const struct diff_opts *o);
/* The engine's options and sink state for side @side (0: A, 1: B). */
void diff_side_opts(struct diff *d, int side, struct rp_opts *o);
void *diff_side_state(struct diff *d, int side);
/* Match, test and write; 0, or -1 on an output error. */
int diff_finish(struct diff *d, FILE *out);
/* Changes flagged that are slower in B. */
uint64_t diff_regressions(const struct diff *d);
void diff_free(struct diff *d);

#endif /* GRTRACE_DIFF_H */
