// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace diff: did a change make the GPU slower, and where.  The work is
 * libgrtrace's grtrace_diff() (lib/diff.c); this is its command line.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grtrace.h"
#include "lib/include/grtrace/grtrace.h"
#include "util.h"

static const char diff_help[] =
	"Usage: grtrace diff [OPTIONS] A.dat B.dat\n"
	"\n"
	"Compare two recordings (say, one workload on two kernels): per ring,\n"
	"per engine class and per process, the jobs and their rate, p50/p90/p99\n"
	"of t_queue, t_exec, t_gpu_wait and t_total on each side with the change\n"
	"in percent, and each ring's busy share and verdict.  Rings are matched\n"
	"by name and engine class (their ids differ between boots), processes by\n"
	"name; what is on one side only is listed as such.\n"
	"\n"
	"Each metric's two samples are compared with the Mann-Whitney U test\n"
	"(exact for up to 60 jobs in all, else its normal approximation with the\n"
	"tie correction); the p-values of the whole diff are adjusted by Holm's\n"
	"method.  A change is flagged ('!') when its adjusted p-value is below\n"
	"--alpha and its p50, p90 or p99 moved by --min-change or more the way\n"
	"the test found.  Flagged lines come first.\n"
	"\n"
	"Options:\n"
	"  -f, --format FMT      text (default), json or csv\n"
	"      --alpha P         the significance level, 0 < P < 1 (default 0.01):\n"
	"                        the chance that two runs of one distribution flag\n"
	"                        anything is at most P\n"
	"      --min-change PCT  the least change flagged, in percent (default 5)\n"
	"      --fail-on regression\n"
	"                        exit with status 1 when a change flagged is slower\n"
	"                        in B (for CI)\n"
	"  -h, --help            show this help\n"
	"\n"
	"Records lost by either recording are shown beside the figures; a damaged\n"
	"input is named, and the diff is of its records before the damage.\n"
	"Exit status: 0; 1 on an error (an input unreadable or damaged) or, with\n"
	"--fail-on regression, a flagged slowdown; 2 on a usage error.\n";

static const struct option diff_opts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "alpha", required_argument, NULL, 'a' },
	{ "min-change", required_argument, NULL, 'm' },
	{ "fail-on", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A number in [lo, hi] (a trailing '%' with @pct); else a usage error. */
static void check_num(const char *opt, const char *s, double lo, double hi,
		      int lo_open, int pct)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (pct && *end == '%')
		end++;
	if (errno || end == s || *end || isnan(v) || v > hi ||
	    (lo_open ? v <= lo : v < lo))
		usage_error("diff", "diff: invalid value '%s' for %s", s, opt);
}

int cmd_diff(int argc, char **argv)
{
	const char *format = "text", *path[2];
	char alpha[64] = "", minc[64] = "", name[2][4096];
	const char *args[5];
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	grtrace_trace *t[2] = { NULL, NULL };
	int c, i, nargs = 0, fail_on = 0, ret;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:f:h", diff_opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json") &&
			    strcmp(optarg, "csv"))
				usage_error("diff", "diff: unknown format '%s' (text, json, csv)",
					    optarg);
			format = optarg;
			break;
		case 'a':
			check_num("--alpha", optarg, 0, 1, 1, 0);
			if (strtod(optarg, NULL) >= 1)
				usage_error("diff", "diff: invalid value '%s' for --alpha",
					    optarg);
			snprintf(alpha, sizeof(alpha), "--alpha=%s", optarg);
			break;
		case 'm':
			check_num("--min-change", optarg, 0, 1e6, 0, 1);
			/* Every digit given: %g kept six. */
			snprintf(minc, sizeof(minc), "--min-change=%.17g",
				 strtod(optarg, NULL));
			break;
		case 'F':
			if (strcmp(optarg, "regression"))
				usage_error("diff", "diff: unknown value '%s' for --fail-on (regression)",
					    optarg);
			fail_on = 1;
			break;
		case 'h':
			fputs(diff_help, stdout);
			return 0;
		case ':':
			usage_error("diff", "diff: option '%s' needs an argument",
				    argv[optind - 1]);
		default:
			/*
			 * A short one in a group (-xf) has not moved optind
			 * on: the word before is not it.
			 */
			if (optopt)
				usage_error("diff", "diff: unknown option '-%c'",
					    optopt);
			usage_error("diff", "diff: unknown option '%s'",
				    argv[optind - 1]);
		}
	}
	for (i = optind; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1])
			usage_error("diff", "diff: option '%s' after a recording (options come first)",
				    argv[i]);
	if (argc - optind < 2)
		usage_error("diff", "diff: two recordings are needed, A and B");
	if (argc - optind > 2)
		usage_error("diff", "diff: unexpected argument '%s'",
			    argv[optind + 2]);
	path[0] = argv[optind];
	path[1] = argv[optind + 1];
	for (i = 0; i < 2; i++) {
		t[i] = grtrace_open(path[i], &err);
		if (!t[i]) {
			err_msg("diff: %s", err.msg);
			grtrace_close(t[0]);
			return 1;
		}
		snprintf(name[i], sizeof(name[i]), "--name-%c=%s", 'a' + i,
			 path[i]);
		args[nargs++] = name[i];
	}
	if (*alpha)
		args[nargs++] = alpha;
	if (*minc)
		args[nargs++] = minc;
	args[nargs] = NULL;
	ret = grtrace_diff(t[0], t[1], format, args, stdout, &err);
	grtrace_close(t[0]);
	grtrace_close(t[1]);
	if (ret < 0) {
		fflush(stdout);
		err_msg("diff: %s", err.msg);
		return err.status == GRTRACE_ERR_INVAL ? 2 : 1;
	}
	return fail_on && ret > 0;
}
