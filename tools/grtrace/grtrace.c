// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: GPU scheduling tracer front end.
 */
#include <stdio.h>
#include <string.h>

#include <linux/grtrace.h>

#include "grtrace.h"
#include "lib/include/grtrace/grtrace.h"
#include "util.h"

static int cmd_help(int argc, char **argv);

static const struct gr_cmd commands[] = {
	{ "start",  "start tracing",					cmd_start },
	{ "stop",   "stop tracing",					cmd_stop },
	{ "status", "show whether tracing is on, and the counters",	cmd_status },
	{ "stats",  "the counters, also for Prometheus",		cmd_stats },
	{ "top",    "live per-ring view from the aggregator module",	cmd_top },
	{ "config", "show or change the module's settings",		cmd_config },
	{ "record", "record the per-CPU event streams to a file",	cmd_record },
	{ "recorder", "flight recorder: arm, trigger, wait for a snapshot", cmd_recorder_main },
	{ "report", "per-job latencies, per-ring bottlenecks",		cmd_report },
	{ "export", "write the jobs as a Perfetto trace",		cmd_export },
	{ "diff",   "compare two recordings: what got slower, and where", cmd_diff },
	{ "dump",   "print a recorded stream as text",			cmd_dump },
	{ "help",   "show help for grtrace or one command",		cmd_help },
};

#define NR_COMMANDS	(sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: grtrace COMMAND [OPTIONS]\n"
		"\n"
		"Trace GPU job scheduling with the grtrace kernel module.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"'grtrace help COMMAND' or 'grtrace COMMAND --help' describes a command;\n"
		"'grtrace --version' gives the version, 'grtrace --list-formats' the\n"
		"output formats of report.  Exit status: 0, 1 on an error,\n"
		"2 on a usage error.\n"
		"The module's files are in %s (set GRTRACE_DEBUGFS to override).\n",
		debugfs_dir());
}

static const struct gr_cmd *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int cmd_help(int argc, char **argv)
{
	const struct gr_cmd *cmd;
	char help_opt[] = "--help";
	char *args[3];

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (argc > 2)
		usage_error("help", "help: too many arguments");
	cmd = find_command(argv[1]);
	if (!cmd || cmd->fn == cmd_help) {
		if (!cmd)
			err_msg("unknown command '%s'", argv[1]);
		usage(cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	args[0] = argv[1];
	args[1] = help_opt;
	args[2] = NULL;
	return cmd->fn(2, args);
}

/*
 * --list-formats: the report's formats from the library's table, a name
 * and a summary a line (the bash completion takes the names); "all" adds
 * the one grtrace export writes.
 */
static int list_formats(int all)
{
	const char *name, *summary;
	unsigned int i;
	int export_only;

	for (i = 0; (name = grtrace_output_format(i, &summary, &export_only)); i++)
		if (all || !export_only)
			printf("%s\t%s\n", name, summary);
	return finish_stdout();
}

int main(int argc, char **argv)
{
	const struct gr_cmd *cmd;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--list-formats"))
		return list_formats(argc > 2 && !strcmp(argv[2], "all"));
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return finish_stdout();
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		unsigned int oldest, newest;

		grtrace_file_versions(&oldest, &newest);
		printf("grtrace %s (stream formats %d to %d, trace file versions %u to %u)\n",
		       GRTRACE_TOOL_VERSION, GRTRACE_FORMAT_V1,
		       GRTRACE_FORMAT_VERSION, oldest, newest);
		return finish_stdout();
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		err_msg("unknown command '%s'", argv[1]);
		usage(stderr);
		return 2;
	}
	ret = cmd->fn(argc - 1, argv + 1);
	if (finish_stdout())
		ret = 1;
	return ret;
}
