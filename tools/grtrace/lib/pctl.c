// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: percentiles of a stream of values in bounded memory.
 */
#include <stdlib.h>
#include <string.h>

#include "pctl.h"
#include "lib.h"

#define SUB_BITS	PCTL_SUB_BITS
#define SUB_COUNT	PCTL_SUB_COUNT
#define LINEAR		PCTL_LINEAR
#define NBUCKETS	(LINEAR + (63 - SUB_BITS) * SUB_COUNT)

/* The midpoint of bucket @b: what a percentile falling in it reports. */
static uint64_t bucket_mid(unsigned int b)
{
	unsigned int octave, shift;
	uint64_t lo;

	if (b < LINEAR)
		return b;
	octave = (b - LINEAR) / SUB_COUNT;
	shift = octave + 1;
	lo = (uint64_t)(SUB_COUNT + (b - LINEAR) % SUB_COUNT) << shift;
	return lo + ((1ull << shift) - 1) / 2;
}

/* Count @v in its bucket, allocating its block the first time. */
static void sketch_add(struct pctl *p, uint64_t v)
{
	unsigned int at, k = pctl_block_of_value(v, &at);

	if (!p->blk[k]) {
		p->blk[k] = calloc(k ? SUB_COUNT : LINEAR, sizeof(uint64_t));
		if (!p->blk[k])
			gr_oom(0);
	}
	p->blk[k][at]++;
}

static void to_sketch(struct pctl *p)
{
	uint32_t i;

	p->blk = calloc(PCTL_BLOCKS, sizeof(*p->blk));
	if (!p->blk)
		gr_oom(0);
	for (i = 0; i < p->nvals; i++)
		sketch_add(p, p->vals[i]);
	free(p->vals);
	p->vals = NULL;
	p->nvals = p->cap = 0;
}

/* pctl_add() of a value to a pctl still exact, or about to turn sketch. */
void pctl_add_slow(struct pctl *p, uint64_t v)
{
	p->n++;
	if (v > p->max)
		p->max = v;
	if (p->blk) {
		sketch_add(p, v);
		return;
	}
	if (p->nvals == p->cap) {
		if (p->cap == PCTL_EXACT_MAX) {
			to_sketch(p);
			sketch_add(p, v);
			return;
		}
		p->cap = p->cap ? p->cap * 2 : 2;
		p->vals = xrealloc(p->vals, p->cap * sizeof(*p->vals));
	}
	p->vals[p->nvals++] = v;
	p->sorted = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t pctl_get(struct pctl *p, unsigned int pct)
{
	uint64_t rank = (p->n * pct + 99) / 100, seen = 0;
	unsigned int b;

	if (!rank)
		rank = 1;
	if (!p->blk) {
		if (!p->sorted) {
			qsort(p->vals, p->nvals, sizeof(*p->vals), cmp_u64);
			p->sorted = 1;
		}
		return p->vals[rank - 1];
	}
	for (b = 0; b < NBUCKETS; b++) {
		unsigned int at, k = pctl_block_of(b, &at);

		if (!p->blk[k]) {
			/* A block never allocated holds nothing: skip it whole. */
			b += (k ? SUB_COUNT : LINEAR) - 1;
			continue;
		}
		seen += p->blk[k][at];
		if (seen >= rank)
			break;
	}
	/* The midpoint may overshoot the largest value actually seen. */
	return b < NBUCKETS && bucket_mid(b) < p->max ? bucket_mid(b) : p->max;
}

int pctl_is_exact(const struct pctl *p)
{
	return !p->blk;
}

void pctl_free(struct pctl *p)
{
	unsigned int k;

	free(p->vals);
	for (k = 0; p->blk && k < PCTL_BLOCKS; k++)
		free(p->blk[k]);
	free(p->blk);
	memset(p, 0, sizeof(*p));
}
