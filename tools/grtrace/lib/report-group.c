// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report: the rules, and the summaries of a ring or a context
 * (percentiles, busy time, queue depth, label shares, bottleneck hint).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"

const char *const rp_metric_names[NR_METRICS] = {
	"t_submit_host", "t_queue", "t_exec", "t_gpu_wait", "t_complete",
	"t_total",
};

const char *const rp_label_names[NR_LABELS] = {
	"long_queue", "slow_exec", "dependency_wait", "preempted", "error",
};

/* ---- rules ---------------------------------------------------------------- */

void rp_default_rules(struct rp_rules *rules)
{
	rules->long_queue_us = 1000;
	rules->slow_exec_us = 5000;
	rules->dep_wait_us = 1000;
	rules->preempt_min = 1;
	rules->busy_pct = 90;
	rules->queue_ratio = 2;
	rules->hang_ms = 1000;
}

static int parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static int parse_double(const char *s, double lo, double hi, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(x) || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

int rp_set_rule(struct rp_rules *rules, const char *key, const char *val)
{
	/* Thresholds in us are multiplied by 1000: keep that from wrapping. */
	const uint64_t us_max = UINT64_MAX / 1000;

	if (!strcmp(key, "long_queue_us"))
		return parse_u64(val, &rules->long_queue_us) ||
		       rules->long_queue_us > us_max ? -1 : 0;
	if (!strcmp(key, "slow_exec_us"))
		return parse_u64(val, &rules->slow_exec_us) ||
		       rules->slow_exec_us > us_max ? -1 : 0;
	if (!strcmp(key, "dep_wait_us"))
		return parse_u64(val, &rules->dep_wait_us) ||
		       rules->dep_wait_us > us_max ? -1 : 0;
	if (!strcmp(key, "preempt_min"))
		return parse_u64(val, &rules->preempt_min);
	if (!strcmp(key, "busy_pct"))
		return parse_double(val, 0, 100, &rules->busy_pct);
	if (!strcmp(key, "queue_ratio"))
		return parse_double(val, 0, 1e9, &rules->queue_ratio);
	if (!strcmp(key, "hang_ms"))
		return parse_u64(val, &rules->hang_ms) ||
		       rules->hang_ms > UINT64_MAX / 1000000 ? -1 : 0;
	return -1;
}

/* ---- the window ------------------------------------------------------------- */

uint64_t rp_window_end(const struct rp *rp)
{
	return rp->ts_max < rp->win_until ? rp->ts_max : rp->win_until;
}

uint64_t rp_window(const struct rp *rp)
{
	uint64_t end = rp_window_end(rp);

	return rp->have_first && end > rp->win_start ? end - rp->win_start : 0;
}

/* ---- the input's gseq: per part, as rp_restart() split it ------------------------- */

uint64_t rp_records_lost(const struct rp *rp)
{
	uint64_t n = rp->records - rp->part_rec0;
	uint64_t span = rp->gseq_max - rp->gseq_min;

	if (rp->cseq_loss)
		return rp->cseq_lost;
	if (rp->gseq_off)
		return 0;
	if (!n)
		return rp->lost_before;
	return rp->lost_before + (span > n - 1 ? span - (n - 1) : 0);
}

uint64_t rp_gseq_first(const struct rp *rp)
{
	if (!rp->restarts)
		return rp->gseq_min;
	return rp->have_first && rp->gseq_min < rp->gseq_lo ? rp->gseq_min :
	       rp->gseq_lo;
}

uint64_t rp_gseq_last(const struct rp *rp)
{
	if (!rp->restarts)
		return rp->gseq_max;
	return rp->have_first && rp->gseq_max > rp->gseq_hi ? rp->gseq_max :
	       rp->gseq_hi;
}

/* ---- busy time: the union of [start, end] of the jobs ---------------------------- */

void group_pin(struct group *g, uint32_t job, uint64_t ts)
{
	uint32_t i;

	for (i = 0; i < g->npins; i++) {
		if (g->pins[i].job == job) {
			if (ts < g->pins[i].ts)
				g->pins[i].ts = ts;
			return;
		}
	}
	if (g->npins == g->pins_cap) {
		g->pins_cap = g->pins_cap ? g->pins_cap * 2 : 2;
		g->pins = xrealloc(g->pins, g->pins_cap * sizeof(*g->pins));
	}
	g->pins[g->npins++] = (struct pin){ job, ts };
}

void group_unpin(struct group *g, uint32_t job)
{
	uint32_t i;

	for (i = 0; i < g->npins; i++) {
		if (g->pins[i].job == job) {
			g->pins[i] = g->pins[--g->npins];
			return;
		}
	}
}


/* Busy [@s, @e) into the timeline's intervals. */
static void tl_add(struct rp *rp, struct group *g, uint64_t s, uint64_t e)
{
	uint64_t iv = rp->o.interval, k = (s - rp->win_start) / iv;

	for (; s < e; k++) {
		uint64_t b_end = rp->win_start + (k + 1) * iv;
		uint64_t x = e < b_end ? e : b_end;

		if (k >= GROUP_TL_MAX) {
			rp->tl_dropped += e - s;
			return;
		}
		if (k >= g->tl_cap) {
			uint32_t n = g->tl_cap ? g->tl_cap : 16;

			while (n <= k)
				n *= 2;
			g->tl = xrealloc(g->tl, n * sizeof(*g->tl));
			memset(g->tl + g->tl_cap, 0,
			       (n - g->tl_cap) * sizeof(*g->tl));
			g->tl_cap = n;
		}
		if (k >= g->ntl)
			g->ntl = (uint32_t)k + 1;
		g->tl[k] += x - s;
		s = x;
	}
}

/* Intervals @n onwards never change again: into the sum. */
static void fold(struct rp *rp, struct group *g, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		g->busy_folded += g->iv[i].end - g->iv[i].start;
		if (g->timeline)
			tl_add(rp, g, g->iv[i].start, g->iv[i].end);
	}
	g->frontier = g->iv[n - 1].end;
	g->niv -= n;
	memmove(&g->iv[0], &g->iv[n], g->niv * sizeof(g->iv[0]));
}

void group_settle(struct rp *rp, struct group *g)
{
	if (g->niv)
		fold(rp, g, g->niv);
}

uint64_t group_active(const struct group *g)
{
	return g->span_end > g->span_start ? g->span_end - g->span_start : 0;
}

/*
 * The array is full: fold into the sum the intervals that end before any
 * job still pinned could start, and before the input's clock less the
 * routine reordering (an event not read yet); grow it when that is too
 * few.  At GROUP_IVALS_MAX the older half goes regardless, counted.
 */
static void make_room(struct rp *rp, struct group *g)
{
	uint64_t barrier = rp->ts_max > RP_TS_BACK_WARN_NS ?
			   rp->ts_max - RP_TS_BACK_WARN_NS : 0;
	uint32_t i, n;

	if (!g->iv_cap) {
		g->iv_cap = GROUP_IVALS;
		g->iv = xmalloc(g->iv_cap * sizeof(*g->iv));
		return;
	}
	for (i = 0; i < g->npins; i++)
		if (g->pins[i].ts < barrier)
			barrier = g->pins[i].ts;
	for (n = 0; n < g->niv && g->iv[n].end <= barrier; n++)
		;
	if (n < g->iv_cap / 4 && g->iv_cap < GROUP_IVALS_MAX) {
		g->iv_cap = g->iv_cap ? g->iv_cap * 2 : GROUP_IVALS;
		g->iv = xrealloc(g->iv, g->iv_cap * sizeof(*g->iv));
		if (!n)
			return;
	}
	if (!n) {
		n = g->niv / 2;
		rp->busy_forced += n;
	}
	fold(rp, g, n);
}

void group_add_busy(struct rp *rp, struct group *g, uint64_t start,
		    uint64_t end)
{
	uint32_t i, j;

	if (start < rp->win_start)
		start = rp->win_start;
	if (end > rp->win_until)
		end = rp->win_until;
	/* Time already folded is never counted twice. */
	if (start < g->frontier)
		start = g->frontier;
	if (end <= start)
		return;
	if (!g->span_end || start < g->span_start)
		g->span_start = start;
	if (end > g->span_end)
		g->span_end = end;
	if (g->niv == g->iv_cap)
		make_room(rp, g);
	/* Jobs end roughly in order: search from the newest interval. */
	for (i = g->niv; i > 0 && g->iv[i - 1].start > start; i--)
		;
	if (i > 0 && g->iv[i - 1].end >= start) {
		i--;
		if (end > g->iv[i].end)
			g->iv[i].end = end;
	} else {
		if (i < g->niv)
			memmove(&g->iv[i + 1], &g->iv[i],
				(g->niv - i) * sizeof(g->iv[0]));
		g->iv[i] = (struct ival){ start, end };
		g->niv++;
	}
	/* Swallow the followers it now reaches (usually none). */
	for (j = i + 1; j < g->niv && g->iv[j].start <= g->iv[i].end; j++)
		if (g->iv[j].end > g->iv[i].end)
			g->iv[i].end = g->iv[j].end;
	if (j == i + 1)
		return;
	memmove(&g->iv[i + 1], &g->iv[j], (g->niv - j) * sizeof(g->iv[0]));
	g->niv -= j - i - 1;
}

uint64_t group_busy(const struct group *g)
{
	uint64_t busy = g->busy_folded;
	unsigned int i;

	for (i = 0; i < g->niv; i++)
		busy += g->iv[i].end - g->iv[i].start;
	return busy;
}

/* ---- jobs ------------------------------------------------------------------------ */

void group_add_row(struct group *const *gs, unsigned int n,
		   const struct row *row)
{
	unsigned int have = row->mhave, i, at, b;
	uint64_t v;
	int k;

	for (i = 0; i < n; i++)
		gs[i]->jobs++;
	/*
	 * Only the metrics the job has: one step per set bit, each value's
	 * bucket found once for all the groups.
	 */
	for (; have; have &= have - 1) {
		k = __builtin_ctz(have);
		v = row->m[k];
		b = pctl_block_of_value(v, &at);
		for (i = 0; i < n; i++)
			pctl_add_in(&gs[i]->metric[k], v, b, at);
	}
	/* Most jobs have no label. */
	for (i = 0; i < n && row->labels; i++)
		for (k = 0; k < NR_LABELS; k++)
			if (row->labels & (1u << k))
				gs[i]->labels[k]++;
}

void group_free(struct group *g)
{
	int k;

	for (k = 0; k < NR_METRICS; k++)
		pctl_free(&g->metric[k]);
	free(g->iv);
	free(g->pins);
	free(g->tl);
}

/* ---- the bottleneck hint ----------------------------------------------------------- */

void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 10000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 10000000000ull)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
}

int ring_hung(struct rp *rp, struct ring *r, char *buf, size_t len)
{
	char since[32];

	if (!r->hung)
		return 0;
	fmt_ns(since, sizeof(since), r->hung_since - rp->t0);
	snprintf(buf, len, "ring %" PRIu32 " %s hung: %" PRIu64 ":%" PRIu64 " running since %s into the trace and never ended, %" PRIu32 " jobs queued behind it",
		 r->ring_id, r->name[0] ? r->name : "(unnamed)", r->hung_ctx,
		 r->hung_seqno, since, r->hung_behind);
	return 1;
}

/*
 * The ring's saturated intervals: busy --busy-pct or more of each.  A last
 * interval cut short by the end of the window counts only when it is the
 * only one.  Returns their total length, and lists them in @buf as
 * ranges from the start of the trace ("0 ns .. 5.000 s", at most three
 * and a count of the rest).
 */
uint64_t ring_saturated(struct rp *rp, const struct ring *r, char *buf,
			size_t len)
{
	const struct group *g = &r->g;
	uint64_t iv = rp->o.interval, window = rp_window(rp), total = 0;
	uint64_t nb = window ? (window + iv - 1) / iv : 0, k, run = 0;
	unsigned int ranges = 0, more = 0;
	size_t n = 0;

	buf[0] = '\0';
	/* Past the timeline's last interval the ring was idle. */
	if (nb > (uint64_t)g->ntl + 1)
		nb = nb == 1 ? 1 : (uint64_t)g->ntl + 1;
	for (k = 0; k <= nb; k++) {
		uint64_t from = k * iv, cut = window - (k < nb ? from : 0);
		uint64_t blen = k < nb ? (cut < iv ? cut : iv) : 0;
		int sat = k < nb && (blen == iv || nb == 1) &&
			  (double)(k < g->ntl ? g->tl[k] : 0) * 100.0 >=
			  rp->o.rules.busy_pct * (double)blen;
		char a[32], b[32];

		if (sat) {
			if (!run)
				run = from + 1;
			total += blen;
			continue;
		}
		if (!run)
			continue;
		if (ranges++ < 3) {
			fmt_ns(a, sizeof(a), rp->win_start - rp->t0 + run - 1);
			fmt_ns(b, sizeof(b), rp->win_start - rp->t0 +
			       (from < window ? from : window));
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0,
					      "%s%s .. %s", n ? ", " : "", a, b);
		} else {
			more++;
		}
		run = 0;
	}
	if (more && n < len)
		snprintf(buf + n, len - n, " and %u more", more);
	return total;
}

int ring_hint(struct rp *rp, struct ring *r, char *buf, size_t len)
{
	const struct rp_rules *ru = &rp->o.rules;
	struct pctl *q = &r->g.metric[M_QUEUE], *e = &r->g.metric[M_EXEC];
	uint64_t window = rp_window(rp), active = group_active(&r->g);
	uint64_t p90q = 0, p90e = 0, sat;
	double busy = window ? 100.0 * (double)group_busy(&r->g) / (double)window : 0;
	double busy_act = active ? 100.0 * (double)group_busy(&r->g) / (double)active : 0;
	int queued = 0, act_sat, brief;
	char sq[32], se[32], ranges[256], iv[32], why[384];

	sat = ring_saturated(rp, r, ranges, sizeof(ranges));
	/* Busy through an active window of an interval or more: saturated. */
	act_sat = active >= rp->o.interval && busy_act >= ru->busy_pct;
	if (q->n && e->n) {
		p90q = pctl_get(q, 90);
		p90e = pctl_get(e, 90);
		queued = p90q > 0 && (double)p90q >= ru->queue_ratio * (double)p90e;
	}
	if (!sat && !act_sat && !queued)
		return 0;
	fmt_ns(sq, sizeof(sq), p90q);
	fmt_ns(se, sizeof(se), p90e);
	fmt_ns(iv, sizeof(iv), rp->o.interval);
	if (window <= rp->o.interval) {
		/* A window within one interval: the window is the interval. */
		snprintf(why, sizeof(why), ": busy %.2f%% of the window", busy);
	} else if (act_sat) {
		char a[32], from[32], to[32];

		fmt_ns(a, sizeof(a), active);
		fmt_ns(from, sizeof(from), r->g.span_start - rp->t0);
		fmt_ns(to, sizeof(to), r->g.span_end - rp->t0);
		snprintf(why, sizeof(why), " over its active %s (%s .. %s): busy %.2f%% of it, %.2f%% of the window",
			 a, from, to, busy_act, busy);
	} else {
		snprintf(why, sizeof(why), " in %s: busy %g%% or more of each %s interval there, %.2f%% of the window",
			 ranges, ru->busy_pct, iv, busy);
	}
	/*
	 * A bottleneck is saturated for a tenth of the window or more; a
	 * shorter saturation is a burst, worth a note.
	 */
	brief = (act_sat ? active : sat) * 10 < window;
	sat = sat || act_sat;
	if (sat && brief) {
		char qs[128] = "";

		if (queued)
			snprintf(qs, sizeof(qs), ", and jobs queued for it (p90 t_queue %s vs p90 t_exec %s)",
				 sq, se);
		snprintf(buf, len, "ring %" PRIu32 " %s was saturated only briefly%s%s: a burst",
			 r->ring_id, r->name[0] ? r->name : "(unnamed)", why, qs);
	}
	else if (sat && queued)
		snprintf(buf, len, "ring %" PRIu32 " %s is saturated%s, and jobs queue for it (p90 t_queue %s vs p90 t_exec %s)",
			 r->ring_id, r->name[0] ? r->name : "(unnamed)", why,
			 sq, se);
	else if (sat)
		snprintf(buf, len, "ring %" PRIu32 " %s is saturated%s",
			 r->ring_id, r->name[0] ? r->name : "(unnamed)", why);
	else
		snprintf(buf, len, "ring %" PRIu32 " %s: jobs wait longer than they run (p90 t_queue %s vs p90 t_exec %s) though it is saturated in no %s interval (busy %.2f%% of the window): work arrives in bursts",
			 r->ring_id, r->name[0] ? r->name : "(unnamed)", sq, se,
			 iv, busy);
	/* Only a saturated ring is a bottleneck; bursts are worth a note. */
	return sat && !brief ? 1 : 2;
}
