/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: percentiles of a stream of values in bounded memory.
 *
 * The first PCTL_EXACT_MAX values are kept as they are, so small groups
 * get exact nearest-rank percentiles.  Beyond that they move into a
 * log-linear histogram with 64 sub-buckets per power of two: each
 * percentile is then the midpoint of its bucket, within 0.8% of the true
 * value, and the memory stays fixed however long the trace is.
 */
#ifndef GRTRACE_PCTL_H
#define GRTRACE_PCTL_H

#include <stdint.h>

#define PCTL_EXACT_MAX	1024

/*
 * Values below 2^(PCTL_SUB_BITS + 1) have a bucket each; above, every power
 * of two is split into 2^PCTL_SUB_BITS buckets.
 */
#define PCTL_SUB_BITS	6
#define PCTL_SUB_COUNT	(1u << PCTL_SUB_BITS)
#define PCTL_LINEAR	(2u * PCTL_SUB_COUNT)
#define PCTL_OCTAVES	(63u - PCTL_SUB_BITS)

/*
 * The sketch's buckets come in blocks, each allocated when a value first
 * falls in it: block 0 the PCTL_LINEAR buckets of small values, block
 * 1 + o the PCTL_SUB_COUNT of octave o.  A metric's values span a few
 * octaves: a few blocks, not the 30 KiB of every bucket (a report with
 * per-context summaries has hundreds of these).  The table of blocks
 * itself comes with the sketch: a pctl still exact is as small as it
 * was (a report may have a group per context, and many contexts).
 */
#define PCTL_BLOCKS	(1 + PCTL_OCTAVES)

struct pctl {
	uint64_t n;		/* values added */
	uint64_t max;
	uint64_t *vals;		/* exact mode: the values, @nvals of @cap */
	uint32_t nvals;
	uint32_t cap;
	int sorted;		/* @vals is sorted (cleared by pctl_add) */
	uint64_t **blk;		/* sketch mode once non-NULL: PCTL_BLOCKS */
};

void pctl_add_slow(struct pctl *p, uint64_t v);

/* The block of bucket @b, and its place in it. */
static inline unsigned int pctl_block_of(unsigned int b, unsigned int *at)
{
	if (b < PCTL_LINEAR) {
		*at = b;
		return 0;
	}
	*at = (b - PCTL_LINEAR) % PCTL_SUB_COUNT;
	return 1 + (b - PCTL_LINEAR) / PCTL_SUB_COUNT;
}

/*
 * The block of value @v, and its place in it (the bucket of @v, by
 * pctl_block_of(), in fewer steps).
 */
static inline unsigned int pctl_block_of_value(uint64_t v, unsigned int *at)
{
	unsigned int msb;

	if (v < PCTL_LINEAR) {
		*at = (unsigned int)v;
		return 0;
	}
	msb = 63u - (unsigned int)__builtin_clzll(v);
	*at = (unsigned int)(v >> (msb - PCTL_SUB_BITS)) - PCTL_SUB_COUNT;
	return msb - PCTL_SUB_BITS;
}

/*
 * Every finished job adds a dozen values, each to a few groups: a value
 * of block @k, at @at in it, is counted inline when the sketch has that
 * block.  (The values of one metric spread over a few octaves: most land
 * in a block counted in before, not always the one of the value before.)
 */
static inline void pctl_add_in(struct pctl *p, uint64_t v, unsigned int k,
			       unsigned int at)
{
	uint64_t *b;

	if (p->blk) {
		b = p->blk[k];
		if (b) {
			p->n++;
			if (v > p->max)
				p->max = v;
			b[at]++;
			return;
		}
	}
	pctl_add_slow(p, v);
}

/* The same, for a value whose block (@k, @at) is not known yet. */
static inline void pctl_add(struct pctl *p, uint64_t v)
{
	unsigned int at, k = pctl_block_of_value(v, &at);

	pctl_add_in(p, v, k, at);
}

/*
 * The nearest-rank @pct-th percentile (1..100): the smallest value with at
 * least @pct percent of the values at or below it.  @p must hold a value.
 */
uint64_t pctl_get(struct pctl *p, unsigned int pct);
/* True while every percentile is exact. */
int pctl_is_exact(const struct pctl *p);
void pctl_free(struct pctl *p);

#endif /* GRTRACE_PCTL_H */
