/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: helpers shared by the subcommands.
 */
#ifndef GRTRACE_UTIL_H
#define GRTRACE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/types.h>

/*
 * The tool is a client of libgrtrace's public header alone
 * (lib/include/grtrace/): what the subcommands share that is not the
 * library's lives here.  The same definition as the library's own, so
 * that a file that still sees both compiles.
 */
#define GR_PRINTF(a, b)	__attribute__((format(printf, a, b)))

/* All diagnostics go to stderr as "grtrace: <message>\n". */
void err_msg(const char *fmt, ...) GR_PRINTF(1, 2);
/* Set: err_msg() and err_errno() print nothing (a caller that says why). */
extern int err_mute;
/* Same, with ": <strerror(errno)>" appended. */
void err_errno(const char *fmt, ...) GR_PRINTF(1, 2);
noreturn void fatal(const char *fmt, ...) GR_PRINTF(1, 2);
noreturn void fatal_errno(const char *fmt, ...) GR_PRINTF(1, 2);
/* A usage error of @cmd: the message, a hint to --help, exit 1. */
/* A usage error: the message, a hint, and exit status 2. */
noreturn void usage_error(const char *cmd, const char *fmt, ...) GR_PRINTF(2, 3);

/* What record writes and report and dump read when not told. */
#define GRTRACE_DEFAULT_FILE	"grtrace.dat"
extern const char gr_default_input[];

/*
 * A duration: a number with ns, us, ms, s or m, or a bare number of
 * @unit_ns each; 0 and *@ns, or -1 if @s is not one.
 */
int parse_duration(const char *s, double unit_ns, uint64_t *ns);

/*
 * The input of report and dump: @input if given, else standard input if
 * it is a pipe or a file ("-"), else GRTRACE_DEFAULT_FILE.
 */
const char *default_input(const char *input);

/*
 * malloc() and realloc() that never return NULL: out of memory ends the
 * tool ("out of memory (N bytes)", exit 1).  oom_exit() is that end, for
 * a library that takes a handler.
 */
void *xmalloc(size_t size);
void *xrealloc(void *ptr, size_t size);
noreturn void oom_exit(size_t size);

/* write(2) all of @buf, retrying on EINTR and short writes; -1 on error. */
int write_all(int fd, const void *buf, size_t len);
/* Read all of @fd into a malloc'd buffer; -1 on error (errno set). */
int read_all(int fd, uint8_t **bufp, size_t *lenp);
/*
 * Create @path for writing (0644), as open() with O_TRUNC would, but a
 * regular file already there is replaced, not cut: whoever reads it still
 * reads all of it (a reader that maps a file cut under it dies of SIGBUS).
 */
int create_output(const char *path);

/* The grtrace debugfs directory: $GRTRACE_DEBUGFS or the default. */
const char *debugfs_dir(void);
/*
 * 1 if @errnum is kernel lockdown's refusal at its confidentiality level,
 * which no grtrace read gets past until the next boot.
 */
int lockdown_confidential(int errnum);
/* grtrace's sysfs directory (GRTRACE_SYSFS, else /sys/kernel/grtrace). */
const char *sysfs_dir(void);
/* "<debugfs_dir>/<name>" into @buf. */
void debugfs_path(char *buf, size_t len, const char *name);
/* Describe why opening @path failed, with a hint; uses errno. */
void err_debugfs(const char *path, const char *what);

/* Read a small debugfs text file into @buf; -1 on error (reported). */
int debugfs_read(const char *name, char *buf, size_t len);
/*
 * A debugfs text file of any length (one line per CPU, say), NUL ended,
 * for free(); NULL on an error (reported).
 */
char *debugfs_read_text(const char *name);
/* Write @text to a debugfs file; -1 on error (reported). */
int debugfs_write(const char *name, const char *text);
/* The same, unreported: 0 or -errno. */
int debugfs_write_quiet(const char *name, const char *text);
/*
 * The same, with its sysfs twin named @twin (NULL: @name) for lockdown;
 * @path (4096 bytes) gets the file written, or tried.
 */
int debugfs_write_twin(const char *name, const char *twin, const char *text,
		       char *path);

/* 1 if tracing is started, 0 if stopped, -1 on error (reported). */
int control_state(void);
/*
 * The stream format the module writes (its config's "format" key), 1 for
 * a module without one.
 */
unsigned int kernel_stream_format(void);
int control_write(const char *cmd);

/* The CPU numbers of the events<cpu> files, sorted: count, or -1 (reported). */
#define MAX_EVENT_FILES	4096
int list_event_files(unsigned int *cpus, int max);

/* A parsed "stats" file of the module: key=value lines. */
#define MOD_STATS_MAX	64
struct mod_stats {
	int n;
	struct {
		char key[48];
		uint64_t val;
	} ent[MOD_STATS_MAX];
};

int stats_read(struct mod_stats *st);
/* Value of @key; *found (may be NULL) tells whether it was there. */
uint64_t stats_get(const struct mod_stats *st, const char *key, int *found);

/* Flush stdout and report a write error on it; returns 0 or 1. */
int finish_stdout(void);

/*
 * A buffer size per CPU as the module takes it ("4M", "65536", "512K": a
 * multiple of 32K in [64K, 256M]) in *@bytes; -1 if it is not one.
 */
int parse_buffer_size(const char *s, uint64_t *bytes);

#endif /* GRTRACE_UTIL_H */
