// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace top: a live per-ring view from the aggregator module, refreshed
 * every few seconds, on any terminal (ssh included) or as plain lines.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agg.h"
#include "grtrace.h"
#include "util.h"

static const char top_help[] =
	"Usage: grtrace top [-b] [-d SECONDS] [-n FRAMES] [-s KEY]\n"
	"\n"
	"Per ring, from the aggregator's last complete window (grtrace_aggregator.ko,\n"
	"enabled with: echo 1 > <debugfs>/grtrace/aggregator_enable): busy %, queue\n"
	"depth (average, peak), jobs/s, job latency p50 and p99 (t_total), events/s;\n"
	"and the events the core dropped per second.  Needs no recording.\n"
	"\n"
	"  -b, --batch           plain lines, one frame after another (for logs and\n"
	"                        pipes); the default when stdout is not a terminal\n"
	"  -d, --delay SECONDS   between frames (default 1; at least 0.1)\n"
	"  -n, --frames N        stop after N frames (default: until interrupted)\n"
	"  -s, --sort KEY        busy (default), jobs, p99, depth or ring\n"
	"  -h, --help            show this help\n";

static const struct option top_opts[] = {
	{ "batch",  no_argument,       NULL, 'b' },
	{ "delay",  required_argument, NULL, 'd' },
	{ "frames", required_argument, NULL, 'n' },
	{ "sort",   required_argument, NULL, 's' },
	{ "help",   no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

enum { SORT_BUSY, SORT_JOBS, SORT_P99, SORT_DEPTH, SORT_RING };
static const char *const sort_names[] = { "busy", "jobs", "p99", "depth", "ring" };

static int sort_key;

static double per_sec(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0;
}

static double busy_pct(const struct agg_span *s)
{
	return s->len_ns ? 100.0 * (double)s->busy_ns / (double)s->len_ns : 0;
}

static double sort_val(const struct agg_ring *r)
{
	const struct agg_span *s = &r->last;

	switch (sort_key) {
	case SORT_JOBS:
		return per_sec(s->jobs, s->len_ns);
	case SORT_P99:
		return s->lat_n ? (double)s->lat_p99_ns : -1;
	case SORT_DEPTH:
		return s->len_ns ? (double)s->depth_area / (double)s->len_ns : 0;
	case SORT_RING:
		return -(double)r->id;
	}
	return busy_pct(s);
}

static int cmp_ring(const void *a, const void *b)
{
	const struct agg_ring *x = a, *y = b;
	double vx = sort_val(x), vy = sort_val(y);

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void lat_col(char *buf, size_t len, const struct agg_span *s,
		    uint64_t ns)
{
	if (s->lat_n)
		snprintf(buf, len, "%.1f", (double)ns / 1e3);
	else
		snprintf(buf, len, "-");
}

static void frame(struct agg_file *a, const char *drops, int clear)
{
	char stamp[32], p50[32], p99[32];
	time_t now = time(NULL);
	int i;

	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
	if (clear)
		fputs("\033[H\033[2J", stdout);
	printf("grtrace top %s  window %" PRIu64 " ms (%" PRIu64 " closed)  rings %d  dropped/s %s  sort %s\n",
	       stamp, a->window_ms, a->windows, a->n, drops,
	       sort_names[sort_key]);
	if (a->untracked_ring_events || a->untracked_jobs)
		printf("untracked since enabled: %" PRIu64 " events on rings >= %d, %" PRIu64 " jobs\n",
		       a->untracked_ring_events, AGG_MAX_RINGS, a->untracked_jobs);
	qsort(a->ring, (size_t)a->n, sizeof(a->ring[0]), cmp_ring);
	printf("%-5s %-20s %6s %6s %5s %9s %10s %10s %10s\n", "RING", "NAME",
	       "BUSY%", "DEPTH", "PEAK", "JOBS/S", "P50_US", "P99_US",
	       "EVENTS/S");
	for (i = 0; i < a->n; i++) {
		const struct agg_ring *r = &a->ring[i];
		const struct agg_span *s = &r->last;

		if (!s->have) {
			printf("%-5u %-20s %6s\n", r->id,
			       r->name[0] ? r->name : "?", "-");
			continue;
		}
		lat_col(p50, sizeof(p50), s, s->lat_p50_ns);
		lat_col(p99, sizeof(p99), s, s->lat_p99_ns);
		printf("%-5u %-20s %6.1f %6.2f %5" PRIu64 " %9.1f %10s %10s %10.1f\n",
		       r->id, r->name[0] ? r->name : "?", busy_pct(s),
		       s->len_ns ? (double)s->depth_area / (double)s->len_ns : 0,
		       s->depth_peak, per_sec(s->jobs, s->len_ns), p50, p99,
		       per_sec(s->events, s->len_ns));
	}
}

/* The core's dropped_total now, and whether it could be read. */
static int dropped_now(uint64_t *v, struct timespec *t)
{
	struct mod_stats st;
	int found;

	clock_gettime(CLOCK_MONOTONIC, t);
	if (stats_read(&st) < 0)
		return 0;
	*v = stats_get(&st, "dropped_total", &found);
	return found;
}

int cmd_top(int argc, char **argv)
{
	uint64_t delay_ns = 1000000000, frames = 0, n, d0 = 0, d1;
	int batch = !isatty(STDOUT_FILENO), c, have0;
	struct timespec t0, t1;
	struct agg_file *a;
	char drops[32];
	size_t k;

	optind = 0;
	opterr = 0;
	sort_key = SORT_BUSY;
	while ((c = getopt_long(argc, argv, "+:bd:n:s:h", top_opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			batch = 1;
			break;
		case 'd':
			if (parse_duration(optarg, 1e9, &delay_ns) ||
			    delay_ns < 100000000)
				usage_error(argv[0], "%s: -d %s: a time of at least 0.1 s",
					    argv[0], optarg);
			break;
		case 'n': {
			char *end;

			errno = 0;
			frames = strtoull(optarg, &end, 10);
			/* Digits only: no sign, no space, nothing past 2^64. */
			if (!isdigit((unsigned char)optarg[0]) || *end ||
			    !frames || errno == ERANGE)
				usage_error(argv[0], "%s: -n %s: a number of frames, 1 or more",
					    argv[0], optarg);
			break;
		}
		case 's':
			for (k = 0; k < sizeof(sort_names) / sizeof(sort_names[0]); k++)
				if (!strcmp(optarg, sort_names[k]))
					break;
			if (k == sizeof(sort_names) / sizeof(sort_names[0]))
				usage_error(argv[0], "%s: -s %s: busy, jobs, p99, depth or ring",
					    argv[0], optarg);
			sort_key = (int)k;
			break;
		case 'h':
			fputs(top_help, stdout);
			return finish_stdout();
		case ':':
			usage_error(argv[0], "%s: option '%s' needs an argument",
				    argv[0], argv[optind - 1]);
		default:
			usage_error(argv[0], "%s: unknown option '%s'", argv[0],
				    argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error(argv[0], "%s: unexpected argument '%s'", argv[0],
			    argv[optind]);

	a = xmalloc(sizeof(*a));
	have0 = -1;
	for (n = 0; !frames || n < frames; n++) {
		if (n) {
			struct timespec ts = {
				.tv_sec = (time_t)(delay_ns / 1000000000),
				.tv_nsec = (long)(delay_ns % 1000000000),
			};

			nanosleep(&ts, NULL);
		}
		if (agg_read(a) < 0)
			goto fail;
		if (!a->enabled) {
			char path[4096];

			debugfs_path(path, sizeof(path), "aggregator_enable");
			err_msg("the aggregator is disabled: echo 1 > %s", path);
			goto fail;
		}
		/* Drops per second from the second frame on. */
		snprintf(drops, sizeof(drops), "-");
		if (have0 < 0) {
			have0 = dropped_now(&d0, &t0);
		} else if (have0 && dropped_now(&d1, &t1)) {
			uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 +
				      (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;

			snprintf(drops, sizeof(drops), "%.1f",
				 per_sec(d1 >= d0 ? d1 - d0 : 0, ns));
			d0 = d1;
			t0 = t1;
		}
		frame(a, drops, !batch);
		if (batch && (!frames || n + 1 < frames))
			putchar('\n');
		if (fflush(stdout))
			break;
	}
	free(a);
	return finish_stdout();
fail:
	free(a);
	return 1;
}
