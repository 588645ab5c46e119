/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: subcommands.
 */
#ifndef GRTRACE_H
#define GRTRACE_H

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
int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_config(int argc, char **argv);

#endif /* GRTRACE_H */
