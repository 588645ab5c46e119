// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: reading the aggregator module's figures.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg.h"
#include "util.h"

#define AGG_RAW_MAX	(256 * 1024)

/* Keys of a span line, and where each goes. */
static const struct {
	const char *key;
	size_t off;
} span_keys[] = {
#define K(f) { #f, offsetof(struct agg_span, f) }
	K(start_ns), K(len_ns), K(events), K(jobs), K(busy_ns), K(depth_area),
	K(depth_peak), K(depth_now), K(lat_n), K(lat_sum_ns), K(lat_min_ns),
	K(lat_max_ns), K(lat_p50_ns), K(lat_p99_ns),
#undef K
};

/* The value of "key=" in the space-separated @line, or 0. */
static uint64_t field(const char *line, const char *key, int *found)
{
	size_t kl = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			if (found)
				*found = 1;
			return strtoull(p + kl + 1, NULL, 10);
		}
		p += kl;
	}
	if (found)
		*found = 0;
	return 0;
}

static struct agg_ring *ring_of(struct agg_file *a, uint32_t id)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (a->ring[i].id == id)
			return &a->ring[i];
	if (a->n == AGG_MAX_RINGS)
		return NULL;
	memset(&a->ring[a->n], 0, sizeof(a->ring[a->n]));
	a->ring[a->n].id = id;
	return &a->ring[a->n++];
}

int agg_parse(const char *text, struct agg_file *a)
{
	const char *line = text;

	memset(a, 0, sizeof(*a));
	if (strncmp(text, "# grtrace aggregator 1 ", 23))
		return -1;
	a->enabled = (int)field(text, "enabled", NULL);
	a->window_ms = field(text, "window_ms", NULL);
	a->windows = field(text, "windows", NULL);
	a->now_ns = field(text, "now_ns", NULL);
	a->enabled_ns = field(text, "enabled_ns", NULL);
	a->untracked_ring_events = field(text, "untracked_ring_events", NULL);
	a->untracked_jobs = field(text, "untracked_jobs", NULL);
	while ((line = strchr(line, '\n')) && *++line) {
		char buf[1024];
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		struct agg_span *s;
		struct agg_ring *r;
		int found;
		size_t k;

		if (len >= sizeof(buf))
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		r = ring_of(a, (uint32_t)field(buf, "ring", &found));
		if (!found || !r)
			continue;
		if (!strncmp(buf, "scope=last ", 11))
			s = &r->last;
		else if (!strncmp(buf, "scope=total ", 12))
			s = &r->total;
		else
			continue;
		s->have = 1;
		for (k = 0; k < sizeof(span_keys) / sizeof(span_keys[0]); k++)
			*(uint64_t *)((char *)s + span_keys[k].off) =
				field(buf, span_keys[k].key, NULL);
	}
	return 0;
}

/* Ring names: "id engine instance driver device name" rows. */
static void name_rings(struct agg_file *a)
{
	char *buf = xmalloc(AGG_RAW_MAX), *line, *save = NULL;

	if (debugfs_read("rings", buf, AGG_RAW_MAX) < 0) {
		free(buf);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *name = strrchr(line, ' ');
		unsigned int id;
		int i;

		if (!name || sscanf(line, "%u", &id) != 1)
			continue;
		for (i = 0; i < a->n; i++)
			if (a->ring[i].id == id)
				snprintf(a->ring[i].name, sizeof(a->ring[i].name),
					 "%s", name + 1);
	}
	free(buf);
}

int agg_read(struct agg_file *a)
{
	char *buf = xmalloc(AGG_RAW_MAX), path[4096];
	int ret = -1;

	debugfs_path(path, sizeof(path), "aggregator_stats_raw");
	if (access(path, F_OK) && errno == ENOENT &&
	    !access(debugfs_dir(), F_OK)) {
		err_msg("no %s: load grtrace_aggregator (modprobe grtrace_aggregator)",
			path);
	} else if (debugfs_read("aggregator_stats_raw", buf, AGG_RAW_MAX) == 0) {
		ret = agg_parse(buf, a);
		if (ret)
			err_msg("%s: not the format this grtrace reads (a newer module?)",
				path);
	}
	free(buf);
	if (!ret)
		name_rings(a);
	return ret;
}
