// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace diff: the Mann-Whitney U test, percentiles and Holm's
 * adjustment (stats-diff.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib.h"
#include "stats-diff.h"

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

uint64_t sd_percentile(const uint64_t *v, size_t n, unsigned int pct)
{
	size_t rank = (n * pct + 99) / 100;

	return v[rank ? rank - 1 : 0];
}

/*
 * The exact two-sided p-value of the rank sum @w2 (doubled midranks) of
 * @na values among the @n doubled midranks @r2: the share of the
 * C(n, na) ways to pick na of them whose sum lies as far from its mean.
 */
static double exact_p(const uint32_t *r2, size_t n, size_t na, uint64_t w2)
{
	size_t smax = n * (n + 1), i, k, s;
	double *cnt = xmalloc((na + 1) * (smax + 1) * sizeof(*cnt));
	double mean2 = (double)na * (double)(n + 1), far, all = 0, hit = 0;

	memset(cnt, 0, (na + 1) * (smax + 1) * sizeof(*cnt));
	cnt[0] = 1;
	for (i = 0; i < n; i++)
		for (k = (i + 1 < na ? i + 1 : na); k >= 1; k--)
			for (s = smax; s >= r2[i]; s--)
				cnt[k * (smax + 1) + s] +=
					cnt[(k - 1) * (smax + 1) + s - r2[i]];
	far = fabs((double)w2 - mean2);
	for (s = 0; s <= smax; s++) {
		double c = cnt[na * (smax + 1) + s];

		all += c;
		/* Sums are integers: half a unit of slack for rounding. */
		if (fabs((double)s - mean2) >= far - 0.25)
			hit += c;
	}
	free(cnt);
	return all > 0 ? fmin(1.0, hit / all) : 1.0;
}

int sd_mann_whitney(uint64_t *a, size_t na, uint64_t *b, size_t nb,
		    struct sd_test *t)
{
	size_t n = na + nb, i = 0, j = 0, pos = 0;
	double rb = 0, ties = 0, mu, var, z;
	uint32_t *r2 = NULL;
	uint64_t w2 = 0;
	size_t nr = 0;

	memset(t, 0, sizeof(*t));
	t->p = 1;
	if (!na || !nb)
		return -1;
	qsort(a, na, sizeof(*a), cmp_u64);
	qsort(b, nb, sizeof(*b), cmp_u64);
	if (n <= SD_EXACT_MAX)
		r2 = xmalloc(n * sizeof(*r2));
	/* Walk the merged order a run of equal values at a time. */
	while (i < na || j < nb) {
		uint64_t v = i < na && (j >= nb || a[i] <= b[j]) ? a[i] : b[j];
		size_t ta = 0, tb = 0, k;
		uint32_t mid2;

		while (i < na && a[i] == v) {
			i++;
			ta++;
		}
		while (j < nb && b[j] == v) {
			j++;
			tb++;
		}
		/* Ranks pos + 1 .. pos + ta + tb, doubled: 2 pos + t + 1. */
		mid2 = (uint32_t)(2 * pos + ta + tb + 1);
		rb += (double)tb * mid2 / 2.0;
		ties += pow((double)(ta + tb), 3) - (double)(ta + tb);
		if (r2) {
			for (k = 0; k < ta + tb; k++)
				r2[nr++] = mid2;
			w2 += (uint64_t)ta * mid2;
		}
		pos += ta + tb;
	}
	t->u = rb - (double)nb * (double)(nb + 1) / 2.0;
	mu = (double)na * (double)nb / 2.0;
	t->dir = t->u > mu ? 1 : t->u < mu ? -1 : 0;
	if (r2) {
		t->p = exact_p(r2, n, na, w2);
		t->exact = 1;
		free(r2);
		return 0;
	}
	var = (double)na * (double)nb / 12.0 *
	      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (var <= 0)
		return 0;	/* every value equal: nothing differs */
	z = (fabs(t->u - mu) - 0.5) / sqrt(var);
	t->p = z > 0 ? erfc(z / M_SQRT2) : 1.0;
	return 0;
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *x, const void *y)
{
	const struct pidx *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

void sd_holm(const double *p, double *adj, size_t n)
{
	struct pidx *o;
	double run = 0;
	size_t k;

	if (!n)
		return;
	o = xmalloc(n * sizeof(*o));
	for (k = 0; k < n; k++) {
		o[k].p = p[k];
		o[k].i = k;
	}
	qsort(o, n, sizeof(*o), cmp_pidx);
	for (k = 0; k < n; k++) {
		double v = fmin(1.0, (double)(n - k) * o[k].p);

		run = fmax(run, v);
		adj[o[k].i] = run;
	}
	free(o);
}
