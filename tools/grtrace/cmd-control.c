// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace start / stop / status.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "grtrace.h"
#include "util.h"

static const struct option help_only[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * Parse a command that takes no arguments.  Returns 1 if --help was given
 * (and printed), 0 otherwise; exits on a usage error.
 */
static int parse_noargs(int argc, char **argv, const char *help)
{
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", help_only, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(help, stdout);
			return 1;
		default:
			usage_error(argv[0], "%s: unknown option '%s'", argv[0],
				    argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error(argv[0], "%s: unexpected argument '%s'", argv[0],
			    argv[optind]);
	return 0;
}

/*
 * Write @cmd ("start" or "stop") to the control file.  The module refuses
 * both (EBUSY) while the flight recorder is armed or holds a snapshot,
 * whose session it is, and start (ENOSPC) when the buffer of the CPU the
 * write ran on is full of the last session's unread records, where the
 * new session's description does not fit: say which, rather than just
 * "busy" or "no space".
 */
static int control_cmd(const char *cmd)
{
	char state[16], path[4096];
	int err = debugfs_write_quiet("control", cmd);

	if (err == -EBUSY) {
		recorder_state(state, sizeof(state));
		if (!strcmp(state, "armed") || !strcmp(state, "triggered")) {
			err_msg("%s: refused (%s): the flight recorder is %s ('grtrace recorder disarm' first)",
				cmd, strerror(-err), state);
			return -1;
		}
	}
	if (err == -ENOSPC && !strcmp(cmd, "start")) {
		err_msg("start: refused (%s): a buffer is full of records nobody has read (read the events files, or discard them: 'grtrace record -b SIZE')",
			strerror(-err));
		return -1;
	}
	if (!err)
		return 0;
	errno = -err;
	debugfs_path(path, sizeof(path), "control");
	err_debugfs(path, err == -ENOENT || err == -EACCES || err == -EPERM ?
		    "cannot open" : "cannot write to");
	return -1;
}

int control_start(void)
{
	return control_cmd("start");
}

int cmd_start(int argc, char **argv)
{
	if (parse_noargs(argc, argv,
			 "Usage: grtrace start\n"
			 "\n"
			 "Start tracing: writes \"start\" to the control file.  Each start\n"
			 "begins a new session (STREAM_INFO and METADATA records).\n"))
		return 0;
	return control_start() < 0;
}

int cmd_stop(int argc, char **argv)
{
	if (parse_noargs(argc, argv,
			 "Usage: grtrace stop\n"
			 "\n"
			 "Stop tracing: writes \"stop\" to the control file.\n"))
		return 0;
	return control_cmd("stop") < 0;
}

int cmd_status(int argc, char **argv)
{
	char buf[8192];
	int state;

	if (parse_noargs(argc, argv,
			 "Usage: grtrace status\n"
			 "\n"
			 "Print whether tracing is started, then the module's counters\n"
			 "(the stats file, one key=value per line).\n"))
		return 0;
	state = control_state();
	if (state < 0)
		return 1;
	if (debugfs_read("stats", buf, sizeof(buf)) < 0)
		return 1;
	printf("tracing: %s\n", state ? "started" : "stopped");
	fputs(buf, stdout);
	if (buf[0] && buf[strlen(buf) - 1] != '\n')
		putchar('\n');
	return 0;
}
