/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace diff: the statistics of comparing two samples of latencies.
 *
 * The test is the two-sided Mann-Whitney U test (Wilcoxon rank-sum): it
 * makes no assumption on the shape of the distributions, which for job
 * latencies are skewed, multi-modal and heavy-tailed, and it is not
 * moved by a few outliers.  For N = n1 + n2 up to SD_EXACT_MAX the
 * p-value is exact: the permutation distribution of the rank sum, midranks
 * for ties, counted by dynamic programming.  Above it, the normal
 * approximation with the tie correction of the variance and a continuity
 * correction of 0.5.
 */
#ifndef GRTRACE_STATS_DIFF_H
#define GRTRACE_STATS_DIFF_H

#include <stddef.h>
#include <stdint.h>

#define SD_EXACT_MAX	60

struct sd_test {
	double p;		/* two-sided p-value; 1 when nothing to test */
	double u;		/* U of the second sample: pairs (a, b) with b > a, ties 1/2 */
	int dir;		/* +1: the second sample is larger, -1 smaller, 0 */
	int exact;		/* the p-value is the exact one */
};

/*
 * Test @a (@na values) against @b (@nb values); both are sorted in place.
 * 0, or -1 when either is empty (@t then says p 1, dir 0).
 */
int sd_mann_whitney(uint64_t *a, size_t na, uint64_t *b, size_t nb,
		    struct sd_test *t);

/* The nearest-rank @pct-th percentile of @n sorted values (n > 0). */
uint64_t sd_percentile(const uint64_t *v, size_t n, unsigned int pct);

/*
 * Holm's step-down adjustment of @n p-values into @adj: rejecting where
 * adj < alpha keeps the chance of any false rejection at most alpha.
 */
void sd_holm(const double *p, double *adj, size_t n);

#endif /* GRTRACE_STATS_DIFF_H */
