// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report: where did each GPU job spend its time, and which ring or
 * context is the bottleneck.  Reads a file written by "grtrace record", or
 * the module's buffers directly, merges the CPUs by gseq and hands every
 * record to the report engine (report.c).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grtrace.h"
#include "lib/merge.h"
#include "lib/report.h"
#include "util.h"

/* The command being run, for its messages: "report" or "export". */
static const char *cmd = "report";

static const char report_help[] =
	"Usage: grtrace report [-i FILE] [OPTIONS]\n"
	"\n"
	"Report where every GPU job spent its time, and which ring or context is\n"
	"the bottleneck.  Jobs are named ctx:seqno; per job:\n"
	"  t_submit_host = COMMIT - SUBMIT   t_queue    = START - COMMIT\n"
	"  t_exec        = END - START       t_gpu_wait = time with a wait open\n"
	"  t_complete    = COMPLETE - END    t_total    = first to last of them\n"
	"A metric whose events are missing is NA.  Without a START, an in-order\n"
	"ring's job starts at max(COMMIT, previous END on the ring): start_derived.\n"
	"The header gives the window, the records per type, the records lost\n"
	"(gseq gaps) and seqno wraps; the rules section counts the labelled jobs.\n"
	"\n"
	"Input:\n"
	"  -i, --input FILE      a file written by 'grtrace record' ('-': standard\n"
	"                        input).  Without -i: standard input if it is a pipe\n"
	"                        or a file, else grtrace.dat\n"
	"      --live            the module's buffers instead, read until empty (this\n"
	"                        consumes them; stop tracing first)\n"
	"\n"
	"Output:\n"
	"  -f, --format FMT      one of the formats below (default text); times are\n"
	"                        in ns except in text (us).  CSV holds one table:\n"
	"                        the jobs, or the one of --per-ring, --per-ctx,\n"
	"                        --per-process, --per-engine, --topn, --hist given\n"
	"      --per-ring        per ring: count, p50/p90/p99/max of each metric, busy %,\n"
	"                        queue depth avg/max, label shares, bottleneck hint\n"
	"      --per-ctx         the same per context\n"
	"      --per-process     count, p50/p90/p99/max of each metric, label shares\n"
	"                        per submitting process (the holder of its SUBMITs'\n"
	"                        DRM client, from the file's client table, else\n"
	"                        their pid; named from the file's tables)\n"
	"      --per-engine      the same per engine class, all its rings together\n"
	"      --why             each job's wait from SUBMIT to its start, split into\n"
	"                        dep (its dependencies, up to the last to signal, at\n"
	"                        its job's END), sched (not yet on the ring) and ring\n"
	"                        (behind the jobs on it), with the processes whose\n"
	"                        jobs held the ring; with --per-process, whose jobs\n"
	"                        each process waited behind (\"waited_behind\")\n"
	"      --critical-path CTX:SEQNO|slowest\n"
	"                        the chain of dependencies each job waited for last,\n"
	"                        from job CTX:SEQNO (or each process's slowest) back\n"
	"                        to a job that waited on nothing (text and JSON)\n"
	"      --interval TIME   with --per-ring: each ring's busy % per interval of\n"
	"                        TIME (a timeline; JSON \"timeline\"); the bottleneck\n"
	"                        hint names the saturated intervals (default 100ms)\n"
	"      --topn N          the N slowest jobs by t_total\n"
	"      --hist KIND       12 log2 buckets of lat (t_total) or size (queue depth\n"
	"                        at COMMIT); or result: events written, lost, dropped\n"
	"      --limit N         print at most N job rows (0: none); summaries still\n"
	"                        cover every job\n"
	"\n"
	"Selection (summaries and rows cover the selected jobs only):\n"
	"      --since TIME      jobs whose first event is TIME or more after the first\n"
	"                        record (TIME: ns, or a number with ns, us, ms, s or m)\n"
	"      --until TIME      ... and less than TIME after it\n"
	"      --ring ID         jobs of ring ID\n"
	"      --ctx CTX         jobs of context CTX\n"
	"      --engine LIST     jobs of these engine classes: names (gfx, compute, copy,\n"
	"                        video, display, control, unknown) or numbers, comma-\n"
	"                        separated, or a mask 0x... (bit n: class n)\n"
	"\n"
	"Labels and rules (also as key=value lines in a --rules FILE; options win):\n"
	"      --rules FILE\n"
	"      --long-queue-us N  long_queue: t_queue > N us (long_queue_us, 1000)\n"
	"      --slow-exec-us N   slow_exec: t_exec > N us (slow_exec_us, 5000)\n"
	"      --dep-wait-us N    dependency_wait: t_gpu_wait > N us (dep_wait_us, 1000)\n"
	"      --preempt-min N    preempted: N or more CTX_SWITCHes away from the job\n"
	"                         while it ran; 0: off (preempt_min, 1)\n"
	"      --busy-pct P       bottleneck: a ring busy P% or more (busy_pct, 90)\n"
	"      --queue-ratio R    bottleneck: p90 t_queue >= R x p90 t_exec (queue_ratio, 2)\n"
	"      --hang-ms N        hung ring: a job started N ms or more before the end\n"
	"                         and never ended (hang_ms, 1000); it is busy until the end\n"
	"  error: the job had an ERROR event (always on)\n"
	"\n"
	"Limits:\n"
	"      --max-open N      jobs waiting for their COMPLETE held at most\n"
	"                        (default 131072); beyond, the oldest is reported\n"
	"                        as it is and counted as closed early\n"
	"  -h, --help            show this help\n"
	"\n"
	"A truncated or corrupt input is reported with its byte offset after the\n"
	"report of the records before it, and the exit status is 1.\n";

static const char export_help[] =
	"Usage: grtrace export [-i FILE] -o OUT [OPTIONS]\n"
	"\n"
	"Write the jobs of a trace as a Perfetto trace (protobuf), for\n"
	"ui.perfetto.dev or trace_processor.  Per ring a group of tracks: the jobs\n"
	"on lanes (jobs that overlap on a ring on separate lanes), each job a slice\n"
	"ctx:seqno with its phases as child slices (submit, queue, exec, complete)\n"
	"and its dependency waits inside them; counters of the queue depth and of\n"
	"the busy % per --interval; a marker where the ring hung.  The thread that\n"
	"submitted a job (format 2) has a track with a flow to the job; a job that\n"
	"waited on another has a flow from it.  Lost records are markers.\n"
	"\n"
	"  -i, --input FILE      a file written by 'grtrace record' ('-': standard\n"
	"                        input; default as for 'grtrace report')\n"
	"      --live            the module's buffers instead, read until empty\n"
	"  -o, --output OUT      the file to write ('-': standard output, not a\n"
	"                        terminal)\n"
	"      --interval TIME   the busy % counter's interval (default 100ms)\n"
	"      --since, --until, --ring, --ctx, --engine: as for 'grtrace report'\n"
	"      --hang-ms N       a job running N ms at the end hung its ring (1000)\n"
	"      --max-open N      jobs held open at most (default 131072)\n"
	"      --why             each job slice gets why_dep_ns, why_dep_on,\n"
	"                        why_sched_ns, why_ring_ns, why_behind (as for\n"
	"                        'grtrace report --why')\n"
	"      --critical-path CTX:SEQNO|slowest\n"
	"                        a \"critical path\" group: a track per hop, the\n"
	"                        hop's wait a slice on it\n"
	"  -h, --help            show this help\n";

enum {
	OPT_PER_RING = 256, OPT_PER_CTX, OPT_TOPN, OPT_HIST, OPT_LIMIT,
	OPT_SINCE, OPT_UNTIL, OPT_RING, OPT_CTX, OPT_ENGINE, OPT_RULES,
	OPT_LONG_QUEUE, OPT_SLOW_EXEC, OPT_DEP_WAIT, OPT_PREEMPT_MIN,
	OPT_BUSY_PCT, OPT_QUEUE_RATIO, OPT_HANG_MS, OPT_MAX_OPEN, OPT_LIVE,
	OPT_INTERVAL, OPT_PER_PROCESS, OPT_PER_ENGINE, OPT_WHY, OPT_CRITICAL,
};

static const struct option report_opts[] = {
	{ "input",         required_argument, NULL, 'i' },
	{ "live",          no_argument,       NULL, OPT_LIVE },
	{ "format",        required_argument, NULL, 'f' },
	{ "per-ring",      no_argument,       NULL, OPT_PER_RING },
	{ "per-ctx",       no_argument,       NULL, OPT_PER_CTX },
	{ "per-process",   no_argument,       NULL, OPT_PER_PROCESS },
	{ "per-engine",    no_argument,       NULL, OPT_PER_ENGINE },
	{ "why",           no_argument,       NULL, OPT_WHY },
	{ "critical-path", required_argument, NULL, OPT_CRITICAL },
	{ "interval",      required_argument, NULL, OPT_INTERVAL },
	{ "topn",          required_argument, NULL, OPT_TOPN },
	{ "hist",          required_argument, NULL, OPT_HIST },
	{ "limit",         required_argument, NULL, OPT_LIMIT },
	{ "since",         required_argument, NULL, OPT_SINCE },
	{ "until",         required_argument, NULL, OPT_UNTIL },
	{ "ring",          required_argument, NULL, OPT_RING },
	{ "ctx",           required_argument, NULL, OPT_CTX },
	{ "engine",        required_argument, NULL, OPT_ENGINE },
	{ "rules",         required_argument, NULL, OPT_RULES },
	{ "long-queue-us", required_argument, NULL, OPT_LONG_QUEUE },
	{ "slow-exec-us",  required_argument, NULL, OPT_SLOW_EXEC },
	{ "dep-wait-us",   required_argument, NULL, OPT_DEP_WAIT },
	{ "preempt-min",   required_argument, NULL, OPT_PREEMPT_MIN },
	{ "busy-pct",      required_argument, NULL, OPT_BUSY_PCT },
	{ "queue-ratio",   required_argument, NULL, OPT_QUEUE_RATIO },
	{ "hang-ms",       required_argument, NULL, OPT_HANG_MS },
	{ "max-open",      required_argument, NULL, OPT_MAX_OPEN },
	{ "help",          no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option export_opts[] = {
	{ "input",         required_argument, NULL, 'i' },
	{ "output",        required_argument, NULL, 'o' },
	{ "why",           no_argument,       NULL, OPT_WHY },
	{ "critical-path", required_argument, NULL, OPT_CRITICAL },
	{ "live",          no_argument,       NULL, OPT_LIVE },
	{ "interval",      required_argument, NULL, OPT_INTERVAL },
	{ "since",         required_argument, NULL, OPT_SINCE },
	{ "until",         required_argument, NULL, OPT_UNTIL },
	{ "ring",          required_argument, NULL, OPT_RING },
	{ "ctx",           required_argument, NULL, OPT_CTX },
	{ "engine",        required_argument, NULL, OPT_ENGINE },
	{ "hang-ms",       required_argument, NULL, OPT_HANG_MS },
	{ "max-open",      required_argument, NULL, OPT_MAX_OPEN },
	{ "help",          no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The rule options, OPT_LONG_QUEUE on, and their names in a --rules file. */
static const struct {
	const char *opt;
	const char *rule;
} rule_of_opt[] = {
	{ "long-queue-us", "long_queue_us" },
	{ "slow-exec-us", "slow_exec_us" },
	{ "dep-wait-us", "dep_wait_us" },
	{ "preempt-min", "preempt_min" },
	{ "busy-pct", "busy_pct" },
	{ "queue-ratio", "queue_ratio" },
	{ "hang-ms", "hang_ms" },
};

#define NR_RULE_OPTS	(sizeof(rule_of_opt) / sizeof(rule_of_opt[0]))

struct report_args {
	struct rp_opts o;
	const char *input;
	const char *output;	/* export */
	int live;
	const char *rules_file;
	const char *rule_val[NR_RULE_OPTS];	/* from the command line */
};

static uint64_t parse_count(const char *opt, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s < '0' || *s > '9' || errno || *end)
		usage_error(cmd, "%s: invalid number '%s' for %s", cmd, s, opt);
	return v;
}

/* "1500", "1500ns", "1.5us", "2ms", "0.25s" -> ns */
static uint64_t parse_time(const char *opt, const char *s)
{
	uint64_t ns;

	if (parse_duration(s, 1, &ns) < 0)
		usage_error(cmd, "%s: invalid time '%s' for %s (ns, or a number with ns, us, ms, s or m)", cmd,
			    s, opt);
	return ns;
}

/* One engine class, by name or number, below 64: a bit of --engine's set. */
static unsigned int parse_engine1(const char *s)
{
	char buf[16];
	uint64_t v;
	uint16_t e;

	for (e = 0; e < GRTRACE_ENGINE_NR; e++)
		if (!strcmp(s, gr_engine_name(e, buf, sizeof(buf))))
			return e;
	if (*s < '0' || *s > '9')
		usage_error(cmd, "%s: unknown engine '%s'", cmd, s);
	v = parse_count("--engine", s);
	if (v >= 64)
		usage_error(cmd, "%s: engine %s: classes 0..63 can be selected", cmd, s);
	return (unsigned int)v;
}

/*
 * --engine: classes by name or number, comma-separated ("gfx,copy"), or a
 * mask of them ("0x6": bit n is class n).  Returns the mask.
 */
static uint64_t parse_engine(const char *arg)
{
	uint64_t mask = 0;
	const char *p;
	char tok[32];
	size_t n;

	if (!strncmp(arg, "0x", 2) || !strncmp(arg, "0X", 2)) {
		mask = parse_count("--engine", arg);
		if (!mask)
			usage_error(cmd, "%s: --engine %s selects no engine", cmd, arg);
		return mask;
	}
	for (p = arg;; p += n + 1) {
		n = strcspn(p, ",");
		if (!n)
			usage_error(cmd, "%s: --engine '%s': an empty entry", cmd, arg);
		if (n >= sizeof(tok))
			usage_error(cmd, "%s: unknown engine '%.*s'", cmd, (int)n, p);
		memcpy(tok, p, n);
		tok[n] = '\0';
		mask |= 1ULL << parse_engine1(tok);
		if (!p[n])
			return mask;
	}
}

static enum rp_hist parse_hist(const char *s)
{
	if (!strcmp(s, "lat"))
		return RP_HIST_LAT;
	if (!strcmp(s, "size"))
		return RP_HIST_SIZE;
	if (!strcmp(s, "result"))
		return RP_HIST_RESULT;
	usage_error(cmd, "%s: unknown histogram '%s' (lat, size or result)", cmd, s);
}

static const char *upper(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (char)toupper((unsigned char)s[i]);
	buf[i] = 0;
	return buf;
}

/* The formats report offers, from the library's table, into @buf. */
static const char *format_names(char *buf, size_t len)
{
	const struct rp_sink *const *s;
	size_t n = 0;

	buf[0] = 0;
	for (s = rp_sinks; *s; s++)
		if (!((*s)->flags & RP_SINK_EXPORT) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "", (*s)->name);
	return buf;
}

static void formats_help(FILE *f)
{
	const struct rp_sink *const *s;

	fputs("\nFormats (-f):\n", f);
	for (s = rp_sinks; *s; s++)
		if (!((*s)->flags & RP_SINK_EXPORT))
			fprintf(f, "  %-8s  %s\n", (*s)->name, (*s)->summary);
}

static const struct rp_sink *parse_format(const char *s)
{
	const struct rp_sink *sink = rp_sink_find(s);
	char names[128];

	if (sink && !(sink->flags & RP_SINK_EXPORT))
		return sink;
	usage_error(cmd, "%s: unknown format '%s' (%s)", cmd, s,
		    format_names(names, sizeof(names)));
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && strchr(" \t\r\n", e[-1]))
		*--e = '\0';
	return s;
}

/* A --rules file: key=value lines, blank lines and # comments. */
static void read_rules(const char *path, struct rp_rules *rules)
{
	char line[512];
	unsigned int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		fatal_errno("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *eq;

		n++;
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq)
			fatal("%s:%u: expected key=value, got '%s'", path, n, s);
		*eq = '\0';
		if (rp_set_rule(rules, trim(s), trim(eq + 1)) < 0)
			fatal("%s:%u: unknown rule or invalid value: '%s=%s'",
			      path, n, trim(s), trim(eq + 1));
	}
	if (ferror(f))
		fatal_errno("cannot read %s", path);
	fclose(f);
}

/* --critical-path: "slowest", or the job's CTX:SEQNO. */
static void parse_critical(struct rp_opts *o, const char *arg)
{
	char *end;

	o->why = 1;
	if (!strcmp(arg, "slowest")) {
		o->critical = 2;
		return;
	}
	errno = 0;
	o->cp_ctx = strtoull(arg, &end, 0);
	if (end == arg || *end != ':' || errno || *arg == '-')
		usage_error(cmd, "%s: --critical-path takes CTX:SEQNO or 'slowest', not '%s'", cmd, arg);
	arg = end + 1;
	o->cp_seqno = strtoull(arg, &end, 0);
	if (end == arg || *end || errno || *arg == '-')
		usage_error(cmd, "%s: --critical-path takes CTX:SEQNO or 'slowest', not '%s'", cmd, end == arg ? arg : end);
	o->critical = 1;
}

static void parse_option(struct report_args *a, int c, const char *arg,
			 const char *opt)
{
	struct rp_opts *o = &a->o;

	switch (c) {
	case 'i': a->input = arg; break;
	case 'o': a->output = arg; break;
	case OPT_LIVE: a->live = 1; break;
	case 'f': o->sink = parse_format(arg); break;
	case OPT_PER_RING: o->per_ring = 1; break;
	case OPT_PER_CTX: o->per_ctx = 1; break;
	case OPT_PER_PROCESS: o->per_process = 1; break;
	case OPT_PER_ENGINE: o->per_engine = 1; break;
	case OPT_WHY: o->why = 1; break;
	case OPT_CRITICAL:
		parse_critical(o, arg);
		break;
	case OPT_TOPN:
		o->topn = (unsigned int)parse_count(opt, arg);
		if (o->topn != parse_count(opt, arg) || o->topn > 1000000)
			usage_error(cmd, "%s: --topn %s is too large", cmd, arg);
		break;
	case OPT_HIST: o->hist = parse_hist(arg); break;
	case OPT_LIMIT: o->limit = parse_count(opt, arg); break;
	case OPT_SINCE: o->has_since = 1; o->since = parse_time(opt, arg); break;
	case OPT_UNTIL: o->has_until = 1; o->until = parse_time(opt, arg); break;
	case OPT_RING:
		if (parse_count(opt, arg) > UINT32_MAX)
			usage_error(cmd, "%s: invalid ring id '%s'", cmd, arg);
		o->has_ring = 1;
		o->ring = (uint32_t)parse_count(opt, arg);
		break;
	case OPT_CTX: o->has_ctx = 1; o->ctx = parse_count(opt, arg); break;
	case OPT_ENGINE: o->has_engine = 1; o->engines = parse_engine(arg); break;
	case OPT_RULES: a->rules_file = arg; break;
	case OPT_INTERVAL:
		o->interval = parse_time(opt, arg);
		if (o->interval < 1000)
			usage_error(cmd, "%s: --interval must be 1us or more, not '%s'", cmd,
				    arg);
		o->has_interval = 1;
		break;
	case OPT_MAX_OPEN:
		o->max_open = parse_count(opt, arg);
		if (!o->max_open || o->max_open > UINT32_MAX / 2)
			usage_error(cmd, "%s: --max-open must be 1 .. %u", cmd,
				    UINT32_MAX / 2);
		break;
	default:
		a->rule_val[c - OPT_LONG_QUEUE] = arg;
		break;
	}
}

/* Returns 1 if --help was printed. */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	int exporting = !strcmp(cmd, "export");
	const struct option *opts = exporting ? export_opts : report_opts;
	char uname[16];
	size_t i;
	int c, li;

	memset(a, 0, sizeof(*a));
	rp_default_rules(&a->o.rules);
	a->o.limit = UINT64_MAX;
	a->o.max_open = 1u << 17;
	a->o.interval = 100000000;
	optind = 0;
	opterr = 0;
	while ((li = -1, c = getopt_long(argc, argv, exporting ? "+:i:o:h" :
					 "+:i:f:h", opts, &li)) != -1) {
		char name[32];

		if (c == 'h') {
			fputs(exporting ? export_help : report_help, stdout);
			if (!exporting)
				formats_help(stdout);
			return 1;
		}
		if (c == ':')
			usage_error(cmd, "%s: option '%s' needs an argument", cmd,
				    argv[optind - 1]);
		if (c == '?')
			usage_error(cmd, "%s: unknown option '%s'", cmd,
				    argv[optind - 1]);
		snprintf(name, sizeof(name), "--%s",
			 li >= 0 ? opts[li].name : "?");
		parse_option(a, c, optarg, name);
	}
	if (optind < argc)
		usage_error(cmd, "%s: unexpected argument '%s'", cmd, argv[optind]);
	if (a->o.sink && (a->o.sink->flags & RP_SINK_ONE_TABLE) &&
	    a->o.per_ring + a->o.per_ctx + a->o.per_process + a->o.per_engine +
	    !!a->o.topn +
	    (a->o.hist != RP_HIST_NONE) > 1)
		usage_error(cmd, "%s: %s holds one table: give one of --per-ring, --per-ctx, --per-process, --per-engine, --topn, --hist",
			    cmd, upper(a->o.sink->name, uname, sizeof(uname)));
	if (exporting) {
		if (!a->output)
			usage_error(cmd, "export: give the file to write with -o (or -o - for standard output)");
		/* The lanes, counters and markers are per ring. */
		a->o.sink = rp_sink_find("perfetto");
		a->o.per_ring = 1;
	}
	if (a->o.critical && a->o.sink &&
	    (a->o.sink->flags & RP_SINK_ONE_TABLE))
		usage_error(cmd, "%s: --critical-path is printed in text and JSON, not %s", cmd,
			    upper(a->o.sink->name, uname, sizeof(uname)));
	if (a->o.has_interval && !a->o.per_ring)
		usage_error(cmd, "%s: --interval is per ring: it needs --per-ring", cmd);
	if (a->o.has_since && a->o.has_until && a->o.until <= a->o.since)
		usage_error(cmd, "%s: --until must be after --since", cmd);
	if (a->live && a->input)
		usage_error(cmd, "%s: --live and -i exclude each other", cmd);
	if (!a->live)
		a->input = default_input(a->input);
	/* The file first, then the options, whatever their order. */
	if (a->rules_file)
		read_rules(a->rules_file, &a->o.rules);
	for (i = 0; i < NR_RULE_OPTS; i++)
		if (a->rule_val[i] &&
		    rp_set_rule(&a->o.rules, rule_of_opt[i].rule, a->rule_val[i]) < 0)
			usage_error(cmd, "%s: invalid value '%s' for --%s", cmd,
				    a->rule_val[i], rule_of_opt[i].opt);
	return 0;
}

/* ---- input ------------------------------------------------------------------ */

/* A pipe cannot be mapped: copy it to an unlinked temporary file. */
static int spool_pipe(int fd)
{
	FILE *t = tmpfile();
	char buf[65536];
	ssize_t n;

	if (!t)
		fatal_errno("cannot create a temporary file");
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fatal_errno("cannot read <stdin>");
		if (write_all(fileno(t), buf, (size_t)n) < 0)
			fatal_errno("cannot write a temporary file");
	}
	return dup(fileno(t));
}

/* Open @path ('-': stdin, spooled to a temporary file); its size in *@lenp. */
int open_input(const char *path, size_t *lenp, int live_too)
{
	int fd = STDIN_FILENO;
	struct stat st;

	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		/* No input named, and none here: say where one comes from. */
		if (fd < 0 && errno == ENOENT && path == gr_default_input)
			fatal("cannot open %s: %s (no input given: 'grtrace record' writes one here, or give -i FILE%s)",
			      path, strerror(errno),
			      live_too ? ", or --live to read the module's buffers" : "");
		if (fd < 0)
			fatal_errno("cannot open %s", path);
	}
	if (fstat(fd, &st) < 0)
		fatal_errno("cannot stat %s", path);
	if (!S_ISREG(st.st_mode)) {
		fd = spool_pipe(fd);
		if (fd < 0 || fstat(fd, &st) < 0)
			fatal_errno("cannot read %s", path);
	}
	*lenp = (size_t)st.st_size;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return fd;
}

struct live {
	int fds[MAX_EVENT_FILES];
	char *names[MAX_EVENT_FILES];
	unsigned int n;
	struct mod_stats stats;
	struct gr_stats lib_stats;
	int have_stats;
};

/* The module's buffers: every events<cpu> file, read until empty. */
static int open_live(struct live *lv)
{
	unsigned int cpus[MAX_EVENT_FILES];
	int n, i, state;

	state = control_state();
	if (state < 0)
		return -1;
	if (state)
		err_msg("warning: tracing is still started: the report covers what the buffers hold now ('grtrace stop' first for a complete one)");
	n = list_event_files(cpus, MAX_EVENT_FILES);
	if (n < 0)
		return -1;
	lv->have_stats = stats_read(&lv->stats) == 0;
	for (i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "events%u", cpus[i]);
		lv->names[i] = xmalloc(4096);
		debugfs_path(lv->names[i], 4096, name);
		lv->fds[i] = open(lv->names[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (lv->fds[i] < 0) {
			err_debugfs(lv->names[i], "cannot open");
			free(lv->names[i]);
			while (i-- > 0) {
				close(lv->fds[i]);
				free(lv->names[i]);
			}
			return -1;
		}
	}
	lv->n = (unsigned int)n;
	return 0;
}

/* The stats file as the engine takes it (the same key=value pairs). */
static const struct gr_stats *lib_stats(struct live *lv)
{
	int i;

	for (i = 0; i < lv->stats.n && i < GR_STATS_MAX; i++) {
		memcpy(lv->lib_stats.ent[i].key, lv->stats.ent[i].key,
		       sizeof(lv->lib_stats.ent[i].key));
		lv->lib_stats.ent[i].val = lv->stats.ent[i].val;
	}
	lv->lib_stats.n = i;
	return &lv->lib_stats;
}

static void close_live(struct live *lv)
{
	unsigned int i;

	for (i = 0; i < lv->n; i++) {
		close(lv->fds[i]);
		free(lv->names[i]);
	}
}

/*
 * Threads for a report of a file: 2 (the merge apart) when a second CPU is
 * online, or GRTRACE_THREADS (1 or 2).
 */
static int threads(void)
{
	const char *v = getenv("GRTRACE_THREADS");

	if (!v)
		return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
	if (strcmp(v, "1") && strcmp(v, "2"))
		usage_error(cmd, "%s: GRTRACE_THREADS must be 1 or 2, not '%s'",
			    cmd, v);
	return *v - '0';
}

/* Why the input names no DRM client, when its jobs carry client ids. */
static const char *clients_none(const struct merge *m, int live, char *buf,
				size_t len)
{
	if (live)
		return "the module's buffers";
	if (!m->nfiles)
		return "a bare stream";
	if (m->file.version < 3) {
		snprintf(buf, len, "a trace file of version %u, from before the client table",
			 m->file.version);
		return buf;
	}
	return "record found none of them open";
}

/* The library's warnings, in the tool's voice. */
static void warn(void *arg, const char *msg)
{
	(void)arg;
	err_msg("%s", msg);
}

static int run_report(int argc, char **argv)
{
	struct report_args a;
	struct rp_input in = { 0 };
	struct live lv = { .n = 0 };
	int in_fd = -1;
	char errbuf[GR_ERRMSG_LEN + 128], none[80];
	struct merge_pipe *pipe;
	int nthreads;
	struct merge m;
	struct gr_rec rec;
	size_t len = 0;
	FILE *out = stdout;
	struct rp *rp;
	int ret = 0, n;

	/* The library's insides, called here directly, end the tool on OOM. */
	gr_set_oom_handler(oom_exit);
	if (parse_args(argc, argv, &a))
		return 0;
	nthreads = threads();
	if (a.output && strcmp(a.output, "-")) {
		out = fopen(a.output, "wb");
		if (!out) {
			err_errno("cannot create %s", a.output);
			return 1;
		}
	} else if (a.output && isatty(STDOUT_FILENO)) {
		err_msg("export: standard output is a terminal: give a file with -o");
		return 1;
	}
	if (a.input) {
		in_fd = open_input(a.input, &len, 1);
		merge_init_file(&m, in_fd, len);
		in.name = strcmp(a.input, "-") ? a.input : "<stdin>";
	} else {
		if (open_live(&lv) < 0) {
			if (out != stdout)
				fclose(out);
			return 1;
		}
		merge_init_fds(&m, lv.fds, lv.names, lv.n,
			       kernel_stream_format());
		in.name = debugfs_dir();
		in.stats = lv.have_stats ? lib_stats(&lv) : NULL;
	}

	a.o.warn = warn;
	rp = rp_new(&a.o, out, errbuf, sizeof(errbuf));
	if (!rp) {
		err_msg("%s: %s", cmd, errbuf);
		merge_free(&m);
		if (out != stdout)
			fclose(out);
		if (in_fd >= 0)
			close(in_fd);
		close_live(&lv);
		return 1;
	}
	rp_set_tasks(rp, m.tasks, m.ntasks, m.task_frames);
	rp_set_clients(rp, m.clients, m.nclients, m.client_frames,
		       clients_none(&m, !a.input, none, sizeof(none)));
	rp_set_tails(rp, m.tails, m.ntails);
	rp_set_heads(rp, m.heads, m.nheads);
	rp_set_format(rp, a.input ? m.file.stream_format :
		      kernel_stream_format());
	/* A file's merge runs beside the analysis when there is a CPU for it. */
	pipe = a.input && nthreads > 1 ? merge_pipe_start(&m) : NULL;
	while ((n = pipe ? merge_pipe_next(pipe, &rec) :
		    merge_next(&m, &rec)) > 0) {
		if (n == MERGE_NEW_PART)
			rp_restart(rp);
		if (rp_record(rp, &rec) < 0) {
			in.error = rp_errmsg(rp);
			break;
		}
	}
	if (pipe)
		merge_pipe_stop(pipe);
	if (!in.error && m.failed) {
		snprintf(errbuf, sizeof(errbuf), "%s", m.errmsg);
		in.error = errbuf;
	}
	if (rp_finish(rp, &in) < 0) {
		if (*rp_errmsg(rp) && !in.error)
			err_msg("%s", rp_errmsg(rp));
		ret = 1;
	}
	if (out != stdout && fclose(out)) {
		err_errno("cannot write %s", a.output);
		ret = 1;
	}
	if (in.error) {
		fflush(stdout);
		if (a.input)
			err_msg("%s: %s", in.name, in.error);
		else
			err_msg("%s", in.error);
		ret = 1;
	}
	rp_free(rp);
	merge_free(&m);
	if (in_fd >= 0)
		close(in_fd);
	close_live(&lv);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	cmd = "report";
	return run_report(argc, argv);
}

int cmd_export(int argc, char **argv)
{
	cmd = "export";
	return run_report(argc, argv);
}
