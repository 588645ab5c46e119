/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: subcommands.
 */
#ifndef GRTRACE_H
#define GRTRACE_H

#include <stddef.h>

/* The tool's version; the module's is in its version file. */
#define GRTRACE_TOOL_VERSION	"0.2.0"

/*
 * A subcommand gets argv[0] == its name.  It returns the exit status; its
 * --help prints to stdout and returns 0.  Output to stdout is flushed and
 * checked by main().
 */
struct gr_cmd {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);
};

int cmd_start(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_recorder(int argc, char **argv);
int cmd_recorder_main(int argc, char **argv);
/* The flight recorder's state ("off", ...), quietly; "" when unknown. */
void recorder_state(char *buf, size_t len);
/* Start tracing; -1 with a line saying why not (cmd-control.c). */
int control_start(void);

/*
 * Open the input file @path ('-': standard input, spooled to a temporary
 * file if it is not a regular file); its size in *@lenp.  Exits on error;
 * when no input was named and there is no grtrace.dat, the message says
 * where one comes from, and with @live_too that --live reads the buffers.
 */
int open_input(const char *path, size_t *lenp, int live_too);

#endif /* GRTRACE_H */
