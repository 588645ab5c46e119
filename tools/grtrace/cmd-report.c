// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report: where did each GPU job spend its time, and which ring or
 * context is the bottleneck.  Reads a file written by "grtrace record", or
 * the module's buffers directly, through libgrtrace's public interface:
 * grtrace_report_with() merges the CPUs by gseq and runs the report.
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

#include <linux/grtrace.h>

#include "grtrace.h"
#include "lib/include/grtrace/grtrace.h"
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
	struct grtrace_report_opts o;
	const char *format;	/* NULL: text */
	const char *input;
	const char *output;	/* export */
	int live;
	const char *rules_file;
	const char *rule_val[NR_RULE_OPTS];	/* from the command line */
};

/*
 * A number as the report prints it: decimal, or hexadecimal after 0x (an
 * engine mask).  Not strtoull()'s base 0: a context typed as "010" is
 * context 10, not 8.
 */
static unsigned long long strtou64(const char *s, char **end)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return strtoull(s, end, 16);
	return strtoull(s, end, 10);
}

static uint64_t parse_count(const char *opt, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtou64(s, &end);
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
		if (!strcmp(s, grtrace_engine_name(e, buf, sizeof(buf))))
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

static uint32_t parse_hist(const char *s)
{
	if (!strcmp(s, "lat"))
		return GRTRACE_HIST_LAT;
	if (!strcmp(s, "size"))
		return GRTRACE_HIST_SIZE;
	if (!strcmp(s, "result"))
		return GRTRACE_HIST_RESULT;
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
	const char *name;
	unsigned int i;
	size_t n = 0;

	buf[0] = 0;
	for (i = 0; (name = grtrace_format_name(i)); i++)
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "", name);
	return buf;
}

static void formats_help(FILE *f)
{
	const char *name;
	unsigned int i;

	fputs("\nFormats (-f):\n", f);
	for (i = 0; (name = grtrace_format_name(i)); i++)
		fprintf(f, "  %-8s  %s\n", name, grtrace_format_summary(i));
}

static const char *parse_format(const char *s)
{
	const char *name;
	char names[128];
	unsigned int i;

	for (i = 0; (name = grtrace_format_name(i)); i++)
		if (!strcmp(s, name))
			return name;
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
static void read_rules(const char *path, struct grtrace_report_opts *o)
{
	struct grtrace_error err = GRTRACE_ERROR_INIT;
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
		if (grtrace_report_rule(o, trim(s), trim(eq + 1), &err) < 0)
			fatal("%s:%u: unknown rule or invalid value: '%s=%s'",
			      path, n, trim(s), trim(eq + 1));
	}
	if (ferror(f))
		fatal_errno("cannot read %s", path);
	fclose(f);
}

/* --critical-path: "slowest", or the job's CTX:SEQNO. */
static void parse_critical(struct grtrace_report_opts *o, const char *arg)
{
	char *end;

	o->flags &= ~(GRTRACE_REPORT_CRITICAL | GRTRACE_REPORT_CRITICAL_SLOWEST);
	if (!strcmp(arg, "slowest")) {
		o->flags |= GRTRACE_REPORT_CRITICAL_SLOWEST;
		return;
	}
	errno = 0;
	o->cp_ctx = strtou64(arg, &end);
	if (end == arg || *end != ':' || errno || *arg == '-')
		usage_error(cmd, "%s: --critical-path takes CTX:SEQNO or 'slowest', not '%s'", cmd, arg);
	arg = end + 1;
	o->cp_seqno = strtou64(arg, &end);
	if (end == arg || *end || errno || *arg == '-')
		usage_error(cmd, "%s: --critical-path takes CTX:SEQNO or 'slowest', not '%s'", cmd, end == arg ? arg : end);
	o->flags |= GRTRACE_REPORT_CRITICAL;
}

static void parse_option(struct report_args *a, int c, const char *arg,
			 const char *opt)
{
	struct grtrace_report_opts *o = &a->o;

	switch (c) {
	case 'i': a->input = arg; break;
	case 'o': a->output = arg; break;
	case OPT_LIVE: a->live = 1; break;
	case 'f': a->format = parse_format(arg); break;
	case OPT_PER_RING: o->flags |= GRTRACE_REPORT_PER_RING; break;
	case OPT_PER_CTX: o->flags |= GRTRACE_REPORT_PER_CTX; break;
	case OPT_PER_PROCESS: o->flags |= GRTRACE_REPORT_PER_PROCESS; break;
	case OPT_PER_ENGINE: o->flags |= GRTRACE_REPORT_PER_ENGINE; break;
	case OPT_WHY: o->flags |= GRTRACE_REPORT_WHY; break;
	case OPT_CRITICAL:
		parse_critical(o, arg);
		break;
	case OPT_TOPN:
		o->topn = (unsigned int)parse_count(opt, arg);
		if (o->topn != parse_count(opt, arg) || o->topn > 1000000)
			usage_error(cmd, "%s: --topn %s is too large", cmd, arg);
		break;
	case OPT_HIST: o->hist = parse_hist(arg); break;
	case OPT_LIMIT:
		o->flags |= GRTRACE_REPORT_LIMIT;
		o->limit = parse_count(opt, arg);
		break;
	case OPT_SINCE:
		o->flags |= GRTRACE_REPORT_SINCE;
		o->since = parse_time(opt, arg);
		break;
	case OPT_UNTIL:
		o->flags |= GRTRACE_REPORT_UNTIL;
		o->until = parse_time(opt, arg);
		break;
	case OPT_RING:
		if (parse_count(opt, arg) > UINT32_MAX)
			usage_error(cmd, "%s: invalid ring id '%s'", cmd, arg);
		o->flags |= GRTRACE_REPORT_RING;
		o->ring = (uint32_t)parse_count(opt, arg);
		break;
	case OPT_CTX:
		o->flags |= GRTRACE_REPORT_CTX;
		o->ctx = parse_count(opt, arg);
		break;
	case OPT_ENGINE:
		o->flags |= GRTRACE_REPORT_ENGINE;
		o->engines = parse_engine(arg);
		break;
	case OPT_RULES: a->rules_file = arg; break;
	case OPT_INTERVAL:
		o->interval = parse_time(opt, arg);
		if (o->interval < 1000)
			usage_error(cmd, "%s: --interval must be 1us or more, not '%s'", cmd,
				    arg);
		o->flags |= GRTRACE_REPORT_INTERVAL;
		break;
	case OPT_MAX_OPEN:
		o->max_open = parse_count(opt, arg);
		if (!o->max_open || o->max_open > UINT32_MAX / 2)
			usage_error(cmd, "%s: --max-open must be 1 .. %u", cmd,
				    UINT32_MAX / 2);
		o->flags |= GRTRACE_REPORT_MAX_OPEN;
		break;
	default:
		a->rule_val[c - OPT_LONG_QUEUE] = arg;
		break;
	}
}

/* The one table of a one-table format (CSV), or more than one asked. */
static int tables_asked(const struct grtrace_report_opts *o)
{
	return !!(o->flags & GRTRACE_REPORT_PER_RING) +
	       !!(o->flags & GRTRACE_REPORT_PER_CTX) +
	       !!(o->flags & GRTRACE_REPORT_PER_PROCESS) +
	       !!(o->flags & GRTRACE_REPORT_PER_ENGINE) + !!o->topn +
	       (o->hist != GRTRACE_HIST_NONE);
}

/* Returns 1 if --help was printed. */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	int exporting = !strcmp(cmd, "export");
	const struct option *opts = exporting ? export_opts : report_opts;
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	char uname[16];
	int c, li, one_table;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->o.size = sizeof(a->o);
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
	one_table = a->format && grtrace_format_one_table(a->format) == 1;
	if (one_table && tables_asked(&a->o) > 1)
		usage_error(cmd, "%s: %s holds one table: give one of --per-ring, --per-ctx, --per-process, --per-engine, --topn, --hist",
			    cmd, upper(a->format, uname, sizeof(uname)));
	if (exporting) {
		if (!a->output)
			usage_error(cmd, "export: give the file to write with -o (or -o - for standard output)");
		/* The lanes, counters and markers are per ring. */
		a->format = "perfetto";
		a->o.flags |= GRTRACE_REPORT_PER_RING;
		one_table = 0;
	}
	if (one_table && (a->o.flags & (GRTRACE_REPORT_CRITICAL |
					GRTRACE_REPORT_CRITICAL_SLOWEST)))
		usage_error(cmd, "%s: --critical-path is printed in text and JSON, not %s", cmd,
			    upper(a->format, uname, sizeof(uname)));
	if ((a->o.flags & GRTRACE_REPORT_INTERVAL) &&
	    !(a->o.flags & GRTRACE_REPORT_PER_RING))
		usage_error(cmd, "%s: --interval is per ring: it needs --per-ring", cmd);
	if ((a->o.flags & GRTRACE_REPORT_SINCE) &&
	    (a->o.flags & GRTRACE_REPORT_UNTIL) && a->o.until <= a->o.since)
		usage_error(cmd, "%s: --until must be after --since", cmd);
	if (a->live && a->input)
		usage_error(cmd, "%s: --live and -i exclude each other", cmd);
	if (!a->live)
		a->input = default_input(a->input);
	/* The file first, then the options, whatever their order. */
	if (a->rules_file)
		read_rules(a->rules_file, &a->o);
	for (i = 0; i < NR_RULE_OPTS; i++)
		if (a->rule_val[i] &&
		    grtrace_report_rule(&a->o, rule_of_opt[i].rule, a->rule_val[i],
					&err) < 0)
			usage_error(cmd, "%s: invalid value '%s' for --%s", cmd,
				    a->rule_val[i], rule_of_opt[i].opt);
	return 0;
}

/* ---- input ------------------------------------------------------------------ */

/* A pipe cannot be mapped: copy it to an unlinked temporary file. */
static int spool_pipe(int fd, const char *name)
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
			fatal_errno("cannot read %s", name);
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
		fd = spool_pipe(fd, strcmp(path, "-") ? path : "<stdin>");
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
	int have_stats;
	/* The stats file as the library takes it. */
	const char *stat_keys[MOD_STATS_MAX];
	uint64_t stat_vals[MOD_STATS_MAX];
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

/* The module's channels, and its stats file, as the library takes them. */
static void live_channels(struct live *lv, struct grtrace_channels *ch)
{
	int i;

	for (i = 0; lv->have_stats && i < lv->stats.n; i++) {
		lv->stat_keys[i] = lv->stats.ent[i].key;
		lv->stat_vals[i] = lv->stats.ent[i].val;
	}
	ch->n = lv->n;
	ch->format = kernel_stream_format();
	ch->fds = lv->fds;
	ch->names = (const char *const *)lv->names;
	ch->nstats = (uint32_t)i;
	ch->stat_keys = lv->stat_keys;
	ch->stat_vals = lv->stat_vals;
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
 * Threads for a report of a file: 1, or GRTRACE_THREADS (1 or 2: the
 * merge in a thread of its own).  One is the default: with the
 * file read through shared windows the merge is a fifth of the work, and
 * handing its records to another CPU's cache cost more than that (on the
 * development machine two threads took longer on the wall clock than one,
 * and twice its CPU time).
 */
static int threads(void)
{
	const char *v = getenv("GRTRACE_THREADS");

	if (!v)
		return 1;
	if (strcmp(v, "1") && strcmp(v, "2"))
		usage_error(cmd, "%s: GRTRACE_THREADS must be 1 or 2, not '%s'",
			    cmd, v);
	return *v - '0';
}

/* The library's warnings, in the tool's voice. */
static void warn(void *arg, const char *msg)
{
	(void)arg;
	err_msg("%s", msg);
}

/* The handle of the input: the file of -i, or the module's channels. */
static grtrace_trace *open_report_input(const struct report_args *a,
					struct live *lv,
					struct grtrace_error *err)
{
	struct grtrace_channels ch = GRTRACE_CHANNELS_INIT;
	grtrace_trace *t;
	size_t len;
	int fd;

	if (a->input) {
		fd = open_input(a->input, &len, 1);
		t = grtrace_open_fd(fd, err);
		close(fd);
		return t;
	}
	if (open_live(lv) < 0)
		return NULL;
	live_channels(lv, &ch);
	return grtrace_open_channels(&ch, err);
}

/*
 * What went wrong in the report, said once, after the report (the
 * records before an input error are reported first).
 */
static void report_error(const struct report_args *a,
			 const struct grtrace_error *err)
{
	switch (err->status) {
	case GRTRACE_ERR_INPUT:
		fflush(stdout);
		if (a->input)
			err_msg("%s: %s", a->o.name, err->msg);
		else
			err_msg("%s", err->msg);
		break;
	case GRTRACE_ERR_OUTPUT:
		/* With an errno it is the output's: said where it is closed. */
		if (!err->sys)
			err_msg("%s", err->msg);
		break;
	default:
		err_msg("%s: %s", cmd, err->msg);
		break;
	}
}

static int run_report(int argc, char **argv)
{
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	struct live lv = { .n = 0 };
	struct report_args a;
	FILE *out = stdout;
	grtrace_trace *t;
	int ret = 0;

	if (parse_args(argc, argv, &a))
		return 0;
	/* A file's merge runs beside the analysis when asked to. */
	if (threads() > 1)
		a.o.flags |= GRTRACE_REPORT_THREAD;
	if (a.output && !strcmp(a.output, "-") && isatty(STDOUT_FILENO)) {
		err_msg("export: standard output is a terminal: give a file with -o");
		return 1;
	}
	t = open_report_input(&a, &lv, &err);
	if (!t) {
		if (err.status)
			err_msg("%s: %s", cmd, err.msg);
		close_live(&lv);
		return 1;
	}
	/*
	 * Only once there is an input: a file of that name is kept when
	 * there is none, and replaced, not cut, when there is (a reader
	 * that has it mapped keeps the old one whole).
	 */
	if (a.output && strcmp(a.output, "-")) {
		int fd = create_output(a.output);

		out = fd < 0 ? NULL : fdopen(fd, "wb");
		if (!out) {
			err_errno("cannot create %s", a.output);
			if (fd >= 0)
				close(fd);
			grtrace_close(t);
			close_live(&lv);
			return 1;
		}
	}
	a.o.name = a.input ? (strcmp(a.input, "-") ? a.input : "<stdin>") :
		   debugfs_dir();
	a.o.warn = warn;
	if (grtrace_report_with(t, a.format, &a.o, out, &err) < 0)
		ret = 1;
	if (out != stdout && fclose(out)) {
		err_errno("cannot write %s", a.output);
		ret = 1;
	}
	if (ret)
		report_error(&a, &err);
	grtrace_close(t);
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
