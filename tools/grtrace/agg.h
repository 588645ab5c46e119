/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: the aggregator module's figures (aggregator_stats_raw), for
 * "top" and "stats --prometheus".
 */
#ifndef GRTRACE_AGG_H
#define GRTRACE_AGG_H

#include <stdint.h>

#define AGG_MAX_RINGS	64

/* One ring over one span: the keys of a scope= line. */
struct agg_span {
	int have;
	uint64_t start_ns, len_ns, events, jobs, busy_ns, depth_area;
	uint64_t depth_peak, depth_now, lat_n, lat_sum_ns, lat_min_ns;
	uint64_t lat_max_ns, lat_p50_ns, lat_p99_ns;
};

struct agg_ring {
	uint32_t id;
	char name[32];		/* from the rings file; "" if not there */
	struct agg_span last;	/* the last complete window */
	struct agg_span total;	/* since enabled */
};

struct agg_file {
	int enabled;
	uint64_t window_ms, windows, now_ns, enabled_ns;
	uint64_t untracked_ring_events, untracked_jobs;
	int n;
	struct agg_ring ring[AGG_MAX_RINGS];
};

/*
 * Parse @text (aggregator_stats_raw) into @a.  Returns 0, or -1 when it is
 * not that file (its first line names the format).
 */
int agg_parse(const char *text, struct agg_file *a);

/*
 * Read the module's file, and name the rings from the rings file.  Returns
 * 0; -1 after a message naming the problem (the module is not loaded).
 */
int agg_read(struct agg_file *a);

#endif /* GRTRACE_AGG_H */
