// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace stats: the module's counters, as they are or in the Prometheus
 * text exposition format (for node_exporter's textfile collector).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg.h"
#include "grtrace.h"
#include "util.h"

static const char stats_help[] =
	"Usage: grtrace stats [--prometheus] [-o FILE]\n"
	"\n"
	"Print the module's counters (the stats file).  With --prometheus, in\n"
	"the Prometheus text exposition format: events emitted, written and\n"
	"dropped by reason, bytes written, events by type, tracing state and\n"
	"buffer size, and with grtrace_aggregator or grtrace_perf_mon loaded\n"
	"their per-ring figures;\n"
	"grtrace_up is 0, and the exit status 1, when the module cannot be read.\n"
	"\n"
	"  -p, --prometheus      the Prometheus text format\n"
	"  -o, --output FILE     write FILE whole or not at all (a temporary file\n"
	"                        renamed over it), as node_exporter's textfile\n"
	"                        collector wants\n"
	"  -h, --help            show this help\n";

static const struct option stats_opts[] = {
	{ "prometheus", no_argument,       NULL, 'p' },
	{ "output",     required_argument, NULL, 'o' },
	{ "help",       no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A stats key with a metric of its own; the rest go to grtrace_stat. */
static const struct metric {
	const char *key;
	const char *name;
	const char *type;
	const char *help;
} metrics[] = {
	{ "enabled", "grtrace_tracing_enabled", "gauge",
	  "1 while tracing is started." },
	{ "session", "grtrace_session", "gauge",
	  "The current tracing session; each start begins a new one." },
	{ "emitted", "grtrace_events_emitted_total", "counter",
	  "Events the drivers emitted since the module loaded." },
	{ "written", "grtrace_events_written_total", "counter",
	  "Events written to the buffers." },
	{ "bytes_written", "grtrace_bytes_written_total", "counter",
	  "Bytes of events written to the buffers." },
	{ "control_written", "grtrace_control_records_written_total", "counter",
	  "Control records (session info, metadata) written." },
	{ "control_dropped", "grtrace_control_records_dropped_total", "counter",
	  "Control records that did not fit in the buffers." },
	{ "discarded_bytes", "grtrace_discarded_bytes_total", "counter",
	  "Bytes the buffers left unused at the ends of their sub-buffers." },
	{ "nr_cpus", "grtrace_cpus", "gauge", "CPUs with a buffer." },
	{ "buffer_size", "grtrace_buffer_size_bytes", "gauge",
	  "Buffer size per CPU." },
	{ "buffer_allocated", "grtrace_buffer_allocated_bytes", "gauge",
	  "Buffer memory allocated now, all CPUs." },
	{ "adaptive_keep_1_in", "grtrace_adaptive_keep_1_in", "gauge",
	  "Adaptive sampling: one event in this many is kept." },
};

#define NR_METRICS	(sizeof(metrics) / sizeof(metrics[0]))

static void header(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* "type emitted written" rows of events_by_type. */
static int by_type(FILE *f)
{
	char buf[4096], *line, *save = NULL, type[32];
	unsigned long long em, wr;
	int first = 1;

	if (debugfs_read("events_by_type", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%31s %llu %llu", type, &em, &wr) != 3)
			continue;	/* the header */
		if (first) {
			header(f, "grtrace_events_by_type_total", "counter",
			       "Events emitted and written, by event type.");
			first = 0;
		}
		fprintf(f, "grtrace_events_by_type_total{type=\"%s\",result=\"emitted\"} %llu\n"
			"grtrace_events_by_type_total{type=\"%s\",result=\"written\"} %llu\n",
			type, em, type, wr);
	}
	return 0;
}

/*
 * A ring's labels.  Its name is the driver's: a quote, a backslash or a
 * newline in it is escaped, as the exposition format wants, or the whole
 * scrape would fail to parse.
 */
static void ring_labels(char *buf, size_t len, const struct agg_ring *r)
{
	char name[2 * sizeof(r->name) + 1], *o = name;
	const char *p;

	for (p = r->name; *p && (size_t)(p - r->name) < sizeof(r->name); p++) {
		if (*p == '"' || *p == '\\' || *p == '\n')
			*o++ = '\\';
		*o++ = *p == '\n' ? 'n' : *p;
	}
	*o = '\0';
	snprintf(buf, len, "ring=\"%u\",name=\"%s\"", r->id, name);
}

/*
 * The aggregator's figures, when grtrace_aggregator is loaded: counters
 * since it was enabled (they restart from 0 when it is enabled again,
 * which Prometheus takes as a counter reset) and gauges of its last
 * complete window.
 */
static int aggregator(FILE *f)
{
	static const struct {
		const char *name, *type, *help;
	} m[] = {
		{ "grtrace_ring_events_total", "counter",
		  "Events of the ring since the aggregator was enabled." },
		{ "grtrace_ring_jobs_total", "counter",
		  "Jobs of the ring completed since the aggregator was enabled." },
		{ "grtrace_ring_busy_seconds_total", "counter",
		  "Time the ring was busy since the aggregator was enabled." },
		{ "grtrace_ring_queue_depth", "gauge",
		  "Jobs committed to the ring and not ended, now." },
		{ "grtrace_ring_busy_ratio", "gauge",
		  "Busy share of the aggregator's last complete window." },
		{ "grtrace_ring_job_latency_seconds", "gauge",
		  "Job latency (t_total) quantiles over the last complete window." },
	};
	char path[4096], lab[128];
	struct agg_file *a;
	size_t k;
	int i;

	debugfs_path(path, sizeof(path), "aggregator_stats_raw");
	if (access(path, F_OK))
		return 0;	/* not loaded: nothing to say */
	a = xmalloc(sizeof(*a));
	if (agg_read(a) < 0) {
		free(a);
		return -1;
	}
	header(f, "grtrace_aggregator_enabled", "gauge",
	       "1 while the aggregator module aggregates.");
	fprintf(f, "grtrace_aggregator_enabled %d\n", a->enabled);
	for (k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		header(f, m[k].name, m[k].type, m[k].help);
		for (i = 0; i < a->n; i++) {
			const struct agg_ring *r = &a->ring[i];
			const struct agg_span *t = &r->total, *l = &r->last;

			ring_labels(lab, sizeof(lab), r);
			switch (k) {
			case 0:
				fprintf(f, "%s{%s} %" PRIu64 "\n", m[k].name, lab, t->events);
				break;
			case 1:
				fprintf(f, "%s{%s} %" PRIu64 "\n", m[k].name, lab, t->jobs);
				break;
			case 2:
				fprintf(f, "%s{%s} %.9f\n", m[k].name, lab, t->busy_ns / 1e9);
				break;
			case 3:
				fprintf(f, "%s{%s} %" PRIu64 "\n", m[k].name, lab, t->depth_now);
				break;
			case 4:
				if (l->have && l->len_ns)
					fprintf(f, "%s{%s} %.6f\n", m[k].name, lab,
						(double)l->busy_ns / (double)l->len_ns);
				break;
			case 5:
				if (l->have && l->lat_n)
					fprintf(f, "%s{%s,quantile=\"0.5\"} %.9f\n%s{%s,quantile=\"0.99\"} %.9f\n",
						m[k].name, lab, l->lat_p50_ns / 1e9,
						m[k].name, lab, l->lat_p99_ns / 1e9);
				break;
			}
		}
	}
	free(a);
	return 0;
}

/* perf_mon's file; GRTRACE_PROC_STATS names another, for tests. */
static const char *perf_mon_path(void)
{
	const char *p = getenv("GRTRACE_PROC_STATS");

	return p && *p ? p : "/proc/grtrace_stats";
}

/*
 * perf_mon's figures of its last window (/proc/grtrace_stats), when the
 * module is loaded: per ring, utilisation, the share of events not
 * written and the mean job latency; the event path's cost.
 */
static int perf_mon(FILE *f)
{
	static const char *const names[] = {
		"grtrace_ring_utilisation_ratio",
		"grtrace_ring_unwritten_ratio",
		"grtrace_ring_mean_job_latency_seconds",
	};
	static const char *const helps[] = {
		"perf_mon: busy share of the ring in its last window.",
		"perf_mon: events of the ring not written in a session, in its last window.",
		"perf_mon: mean SUBMIT to COMPLETE time (Little's law), last window.",
	};
	unsigned long long n, p50, p99;
	char line[512], scope[16];
	unsigned int ring[64];
	double v[64][3];
	int nr = 0, k, i;
	FILE *in = fopen(perf_mon_path(), "r");

	if (!in)
		return 0;	/* not loaded: nothing to say */
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "event_path: %llu events measured, cost p50 <= %llu ns, p99 <= %llu ns",
			   &n, &p50, &p99) == 3) {
			header(f, "grtrace_event_path_cost_seconds", "gauge",
			       "perf_mon: the event path's cost per event (bucket upper bound), measure_latency=1.");
			fprintf(f, "grtrace_event_path_cost_seconds{quantile=\"0.5\"} %.9f\n"
				"grtrace_event_path_cost_seconds{quantile=\"0.99\"} %.9f\n",
				p50 / 1e9, p99 / 1e9);
			continue;
		}
		if (nr == 64 ||
		    sscanf(line, "%15s %u %lf %lf %lf", scope, &ring[nr],
			   &v[nr][0], &v[nr][1], &v[nr][2]) != 5 ||
		    strcmp(scope, "last"))
			continue;
		v[nr][0] /= 100;
		v[nr][1] /= 100;
		v[nr][2] /= 1e6;
		nr++;
	}
	/* A metric's samples together, after its header. */
	for (k = 0; k < 3 && nr; k++) {
		header(f, names[k], "gauge", helps[k]);
		for (i = 0; i < nr; i++)
			fprintf(f, "%s{ring=\"%u\"} %.9f\n", names[k], ring[i],
				v[i][k]);
	}
	fclose(in);
	return 0;
}

/*
 * The scrape: 0; -1 with a whole one that says grtrace_up 0 (the
 * module's counters cannot be read: worth writing, an alert fires on it);
 * -2 when a later part could not be read, and what was written is not
 * whole.
 */
static int prometheus(FILE *f)
{
	struct mod_stats st;
	int i, first = 1;
	size_t m;

	if (stats_read(&st) < 0) {
		header(f, "grtrace_up", "gauge",
		       "1 if the grtrace module's counters could be read.");
		fprintf(f, "grtrace_up 0\n");
		return -1;
	}
	header(f, "grtrace_up", "gauge",
	       "1 if the grtrace module's counters could be read.");
	fprintf(f, "grtrace_up 1\n");
	for (m = 0; m < NR_METRICS; m++) {
		int found;
		uint64_t v = stats_get(&st, metrics[m].key, &found);

		if (!found)
			continue;
		header(f, metrics[m].name, metrics[m].type, metrics[m].help);
		fprintf(f, "%s %" PRIu64 "\n", metrics[m].name, v);
	}
	/* Every drop reason the module names, the ones added later too. */
	for (i = 0; i < st.n; i++) {
		const char *k = st.ent[i].key;

		if (strncmp(k, "dropped_", 8) || !strcmp(k, "dropped_total"))
			continue;
		if (first) {
			header(f, "grtrace_events_dropped_total", "counter",
			       "Events not written, by reason (see the stats file).");
			first = 0;
		}
		fprintf(f, "grtrace_events_dropped_total{reason=\"%s\"} %" PRIu64 "\n",
			k + 8, st.ent[i].val);
	}
	/* Keys this tool has no name for are not lost: grtrace_stat. */
	first = 1;
	for (i = 0; i < st.n; i++) {
		const char *k = st.ent[i].key;

		for (m = 0; m < NR_METRICS; m++)
			if (!strcmp(k, metrics[m].key))
				break;
		if (m < NR_METRICS || !strncmp(k, "dropped_", 8))
			continue;
		if (first) {
			header(f, "grtrace_stat", "untyped",
			       "Other keys of the stats file, by key.");
			first = 0;
		}
		fprintf(f, "grtrace_stat{key=\"%s\"} %" PRIu64 "\n", k,
			st.ent[i].val);
	}
	if (by_type(f) < 0 || perf_mon(f) < 0 || aggregator(f) < 0)
		return -2;
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	const char *output = NULL;
	char tmp[4096], buf[8192];
	int prom = 0, c, ret;
	FILE *f = stdout;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:po:h", stats_opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			prom = 1;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(stats_help, stdout);
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
	if (output) {
		if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", output,
				     (long)getpid()) >= sizeof(tmp))
			usage_error(argv[0], "%s: -o %s: name too long", argv[0],
				    output);
		f = fopen(tmp, "w");
		if (!f) {
			err_errno("cannot create %s", tmp);
			return 1;
		}
	}
	if (prom) {
		ret = prometheus(f);
	} else {
		ret = debugfs_read("stats", buf, sizeof(buf));
		if (!ret)
			fputs(buf, f);
	}
	if (!output)
		return finish_stdout() || ret < 0;
	if (fclose(f)) {
		err_errno("cannot write %s", tmp);
		unlink(tmp);
		return 1;
	}
	/*
	 * Nothing worth writing, but grtrace_up 0 is: an alert fires on it.
	 * A scrape cut short is not: FILE keeps the last whole one.
	 */
	if ((ret < 0 && !prom) || ret == -2) {
		if (ret == -2)
			err_msg("stats: %s left as it was: the scrape is not whole",
				output);
		unlink(tmp);
		return 1;
	}
	if (rename(tmp, output) < 0) {
		err_errno("cannot rename %s to %s", tmp, output);
		unlink(tmp);
		return 1;
	}
	return ret < 0;
}
