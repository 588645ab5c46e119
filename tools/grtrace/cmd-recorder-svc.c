// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace recorder service, list and show: the flight recorder armed for
 * days, every snapshot saved to a folder the moment it is frozen, as
 * systemd-coredump saves core dumps; and the folder read back.
 *
 * The service arms the recorder with the settings of a config file
 * (key=value), waits in poll(2) on its info file, writes each snapshot
 * as a trace file into a temporary file of the folder, runs the report
 * on it for the cause, the ring and the hung job, writes those as a
 * small summary file and renames both into place (the .grf last: a name
 * ending in .grf is a whole snapshot), prunes the folder to the newest
 * "keep" within "max_size", releases the snapshot, which arms the
 * recorder again, and logs one line with the triggers the module counted
 * until that release (a second hang while the first was saved), which
 * the summary then holds too.  Its lines go to standard error: under
 * systemd (JOURNAL_STREAM set) each has the <N> priority prefix journald
 * reads.  The recorder gone (the module unloaded), it waits for it to
 * come back and arms it again; a snapshot it cannot save (the disk full)
 * leaves no file behind, one line says so, and the recorder is re-armed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grtrace.h"
#include "recorder.h"
#include "util.h"

#define SVC_CONFIG	"/etc/grtrace/recorder.conf"
#define SVC_DIR		"/var/lib/grtrace/snapshots"
#define SVC_KEEP	10
#define SVC_MAX_SIZE	(1024ull << 20)
#define TMP_PREFIX	".tmp-"
#define ID_LEN		64

enum { TRIG_TIMEOUT = 1, TRIG_ERROR = 2, TRIG_MANUAL = 4, TRIG_ALL = 7 };

struct svc_conf {
	char dir[PATH_MAX];
	uint64_t buffer_size;	/* 0: as it is */
	long format;		/* 0: as it is */
	char adapters[1024];	/* module names, space separated */
	unsigned int triggers;	/* TRIG_* saved */
	uint64_t keep;
	uint64_t max_size;
	int compress;
};

/* One saved snapshot: ID.grf and its summary ID.txt. */
struct entry {
	char id[ID_LEN];
	uint64_t size;
	/*
	 * The order of saving: 1 + the highest in the folder at the save (0:
	 * a summary without one, older than any with one).  Not the time:
	 * the wall clock may be hours off when a snapshot is saved.
	 */
	uint64_t seq;
	time_t saved;
	uint64_t session, later;
	char cause[32], ring[64], job[64];
	uint64_t records;
	int cpus;
};

static const char svc_help[] =
	"Usage: grtrace recorder service [--config FILE] [--dir DIR] [--count N]\n"
	"       grtrace recorder list [--config FILE] [--dir DIR]\n"
	"       grtrace recorder show [ID] [--config FILE] [--dir DIR]\n"
	"\n"
	"  service   arm the recorder with the config's settings and save every\n"
	"            snapshot to DIR the moment it is frozen, then arm again; one\n"
	"            line per snapshot on standard error (the journal under\n"
	"            systemd); runs until SIGTERM or SIGINT, then disarms\n"
	"            --config FILE  key=value settings (default " SVC_CONFIG "\n"
	"                           or $GRTRACE_RECORDER_CONF, its absence\n"
	"                           meaning the defaults)\n"
	"            --dir DIR      the folder (default: the config's dir=)\n"
	"            --count N      stop after N snapshots saved\n"
	"  list      the saved snapshots, oldest first: ID, time, cause, ring,\n"
	"            hung job, later triggers missed, size\n"
	"  show      the report of snapshot ID (an ID, or a prefix of one only;\n"
	"            default: the newest)\n"
	"\n"
	"Config keys: dir, buffer_size, format, adapters, triggers, keep,\n"
	"max_size, compress (see grtrace(1)).\n";

static const struct option svc_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "dir",    required_argument, NULL, 'd' },
	{ "count",  required_argument, NULL, 'n' },
	{ "help",   no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* ---- the log ------------------------------------------------------------------ */

/* One line on stderr, with journald's <prio> prefix when it reads it. */
static void slog(int prio, const char *fmt, ...) GR_PRINTF(2, 3);
static void slog(int prio, const char *fmt, ...)
{
	static int journal = -1;
	va_list ap;

	if (journal < 0)
		journal = getenv("JOURNAL_STREAM") != NULL;
	if (journal)
		fprintf(stderr, "<%d>", prio);
	fputs("grtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

#define LOG_ERR		3
#define LOG_WARNING	4
#define LOG_NOTICE	5
#define LOG_INFO	6

/* ---- the config ----------------------------------------------------------------- */

static void conf_defaults(struct svc_conf *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "%s", SVC_DIR);
	c->triggers = TRIG_ALL;
	c->keep = SVC_KEEP;
	c->max_size = SVC_MAX_SIZE;
	c->compress = 1;
}

/* "512M", "2G", "100000": bytes, > 0; -1 if not. */
static int parse_bytes(const char *s, uint64_t *v)
{
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || !*v || *v > (UINT64_MAX >> shift))
		return -1;
	*v <<= shift;
	return 0;
}

static int parse_triggers(char *v, unsigned int *mask)
{
	char *w, *save = NULL;

	*mask = 0;
	for (w = strtok_r(v, ", \t", &save); w; w = strtok_r(NULL, ", \t", &save)) {
		if (!strcmp(w, "timeout"))
			*mask |= TRIG_TIMEOUT;
		else if (!strcmp(w, "error"))
			*mask |= TRIG_ERROR;
		else if (!strcmp(w, "manual"))
			*mask |= TRIG_MANUAL;
		else if (!strcmp(w, "all"))
			*mask |= TRIG_ALL;
		else
			return -1;
	}
	return *mask ? 0 : -1;
}

static int module_name_ok(const char *w)
{
	if (!*w || *w == '-')
		return 0;
	for (; *w; w++)
		if (!((*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z') ||
		      (*w >= '0' && *w <= '9') || *w == '_' || *w == '-'))
			return 0;
	return 1;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* A bad line of the config: a usage error naming it. */
static noreturn void conf_error(const char *cmd, const char *path,
				unsigned int line, const char *fmt, ...)
	GR_PRINTF(4, 5);
static noreturn void conf_error(const char *cmd, const char *path,
				unsigned int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	usage_error("recorder", "recorder %s: %s:%u: %s", cmd, path, line, msg);
}

/*
 * Read @path into @c (over the defaults); a missing file is the defaults
 * when @must is 0.  A bad line is a usage error naming it.
 */
static void read_conf(const char *cmd, const char *path, int must,
		      struct svc_conf *c)
{
	char buf[4096];
	unsigned int n = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		if (!must && errno == ENOENT)
			return;
		usage_error("recorder", "recorder %s: cannot read config %s: %s",
			    cmd, path, strerror(errno));
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *k = trim(buf), *v, *eq;

		n++;
		if (!*k || *k == '#')
			continue;
		eq = strchr(k, '=');
		if (!eq) {
			fclose(f);
			conf_error(cmd, path, n, "not key=value: '%s'", k);
		}
		*eq = '\0';
		k = trim(k);
		v = trim(eq + 1);
		if (!strcmp(k, "dir")) {
			if (*v != '/' || strlen(v) >= sizeof(c->dir) - 32) {
				fclose(f);
				conf_error(cmd, path, n, "dir: not an absolute path: '%s'", v);
			}
			snprintf(c->dir, sizeof(c->dir), "%s", v);
		} else if (!strcmp(k, "buffer_size")) {
			if (parse_buffer_size(v, &c->buffer_size) < 0) {
				fclose(f);
				conf_error(cmd, path, n, "buffer_size: invalid size '%s': a multiple of 32K in [64K, 256M]", v);
			}
		} else if (!strcmp(k, "format")) {
			if (strcmp(v, "1") && strcmp(v, "2")) {
				fclose(f);
				conf_error(cmd, path, n, "format: invalid format '%s': 1 or 2", v);
			}
			c->format = *v - '0';
		} else if (!strcmp(k, "adapters")) {
			char tmp[sizeof(c->adapters)], *w, *save = NULL;

			if (strlen(v) >= sizeof(tmp)) {
				fclose(f);
				conf_error(cmd, path, n, "adapters: too long");
			}
			snprintf(tmp, sizeof(tmp), "%s", v);
			c->adapters[0] = '\0';
			for (w = strtok_r(tmp, ", \t", &save); w;
			     w = strtok_r(NULL, ", \t", &save)) {
				if (!module_name_ok(w)) {
					fclose(f);
					conf_error(cmd, path, n, "adapters: invalid module name '%s'", w);
				}
				strcat(c->adapters, c->adapters[0] ? " " : "");
				strcat(c->adapters, w);
			}
		} else if (!strcmp(k, "triggers")) {
			char tmp[256];

			snprintf(tmp, sizeof(tmp), "%s", v);
			if (parse_triggers(tmp, &c->triggers) < 0) {
				fclose(f);
				conf_error(cmd, path, n, "triggers: invalid list '%s': timeout, error, manual or all", v);
			}
		} else if (!strcmp(k, "keep")) {
			char *end;

			errno = 0;
			c->keep = strtoull(v, &end, 10);
			if (errno || end == v || *end || !c->keep || *v == '-') {
				fclose(f);
				conf_error(cmd, path, n, "keep: invalid count '%s': a number above 0", v);
			}
		} else if (!strcmp(k, "max_size")) {
			if (parse_bytes(v, &c->max_size) < 0) {
				fclose(f);
				conf_error(cmd, path, n, "max_size: invalid size '%s': bytes, or a number with K, M or G, above 0", v);
			}
		} else if (!strcmp(k, "compress")) {
			if (!strcmp(v, "yes"))
				c->compress = 1;
			else if (!strcmp(v, "no"))
				c->compress = 0;
			else {
				fclose(f);
				conf_error(cmd, path, n, "compress: '%s': yes or no", v);
			}
		} else {
			fclose(f);
			conf_error(cmd, path, n, "unknown key '%s'", k);
		}
	}
	fclose(f);
}

/* The options every word takes; exits on a usage error. */
static void parse_opts(const char *cmd, int argc, char **argv,
		       struct svc_conf *c, uint64_t *count, const char **id)
{
	const char *config = NULL, *dir = NULL;
	char *end;
	int o;

	optind = 0;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":h", svc_opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			config = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'n':
			errno = 0;
			if (!count)
				usage_error("recorder", "recorder %s: unknown option '--count'", cmd);
			*count = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || !*count || *optarg == '-')
				usage_error("recorder", "recorder %s: invalid count '%s': a number above 0",
					    cmd, optarg);
			break;
		case 'h':
			fputs(svc_help, stdout);
			exit(0);
		case ':':
			usage_error("recorder", "recorder %s: option '%s' needs an argument",
				    cmd, argv[optind - 1]);
		default:
			usage_error("recorder", "recorder %s: unknown option '%s'",
				    cmd, argv[optind - 1]);
		}
	}
	if (optind < argc && id && !*id)
		*id = argv[optind++];
	if (optind < argc)
		usage_error("recorder", "recorder %s: unexpected argument '%s'",
			    cmd, argv[optind]);
	conf_defaults(c);
	if (!config) {
		const char *env = getenv("GRTRACE_RECORDER_CONF");

		read_conf(cmd, env && *env ? env : SVC_CONFIG, 0, c);
	} else {
		read_conf(cmd, config, 1, c);
	}
	if (dir) {
		if (!*dir || strlen(dir) >= sizeof(c->dir) - 32)
			usage_error("recorder", "recorder %s: invalid --dir '%s'", cmd, dir);
		snprintf(c->dir, sizeof(c->dir), "%s", dir);
	}
}

/* ---- the folder ---------------------------------------------------------------------- */

static void summary_key(struct entry *e, const char *k, const char *v)
{
	if (!strcmp(k, "seq"))
		e->seq = strtoull(v, NULL, 10);
	else if (!strcmp(k, "saved"))
		e->saved = (time_t)strtoll(v, NULL, 10);
	else if (!strcmp(k, "session"))
		e->session = strtoull(v, NULL, 10);
	else if (!strcmp(k, "later_triggers"))
		e->later = strtoull(v, NULL, 10);
	else if (!strcmp(k, "cause"))
		snprintf(e->cause, sizeof(e->cause), "%s", v);
	else if (!strcmp(k, "ring"))
		snprintf(e->ring, sizeof(e->ring), "%s", v);
	else if (!strcmp(k, "job"))
		snprintf(e->job, sizeof(e->job), "%s", v);
}

/* ID.txt into @e; its fields stay "?" without it. */
static void read_summary(const char *dir, struct entry *e)
{
	char path[PATH_MAX + ID_LEN + 8], line[256];
	FILE *f;

	snprintf(e->cause, sizeof(e->cause), "?");
	snprintf(e->ring, sizeof(e->ring), "?");
	snprintf(e->job, sizeof(e->job), "?");
	snprintf(path, sizeof(path), "%s/%s.txt", dir, e->id);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		line[strcspn(line, "\n")] = '\0';
		eq[1 + strcspn(eq + 1, "\n")] = '\0';
		summary_key(e, line, eq + 1);
	}
	fclose(f);
}

/*
 * Oldest first: in the order of saving, then (summaries without it) by
 * the time saved, the session, the ID.
 */
static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->saved != y->saved)
		return x->saved < y->saved ? -1 : 1;
	if (x->session != y->session)
		return x->session < y->session ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The ID.grf files of @dir, oldest first: count, or -1 (errno set). */
static int read_dir(const char *dir, struct entry **ep)
{
	struct entry *e = NULL;
	struct dirent *de;
	int n = 0, cap = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		char path[PATH_MAX + ID_LEN + 8];
		struct stat st;

		if (de->d_name[0] == '.' || len < 5 || len - 4 >= ID_LEN ||
		    strcmp(de->d_name + len - 4, ".grf"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			e = xrealloc(e, (size_t)cap * sizeof(*e));
		}
		memset(&e[n], 0, sizeof(e[n]));
		snprintf(e[n].id, sizeof(e[n].id), "%.*s", (int)(len - 4), de->d_name);
		e[n].size = (uint64_t)st.st_size;
		e[n].saved = st.st_mtime;
		read_summary(dir, &e[n]);
		n++;
	}
	closedir(d);
	if (n)
		qsort(e, (size_t)n, sizeof(*e), cmp_entry);
	*ep = e;
	return n;
}

/* The order of saving of the next snapshot: 1 + the folder's highest. */
static uint64_t next_seq(const struct svc_conf *c)
{
	struct entry *e = NULL;
	uint64_t seq = 0;
	int n = read_dir(c->dir, &e), i;

	for (i = 0; i < n; i++)
		if (e[i].seq > seq)
			seq = e[i].seq;
	free(e);
	return seq + 1;
}

/* The folder, flock()ed while this service saves to it. */
static int lock_fd = -1;

/*
 * The pid holding an flock() on the file @st names, from /proc/locks
 * ("1: FLOCK  ADVISORY  WRITE 1234 00:2a:5678 0 EOF"), or 0.
 */
static long lock_holder(const struct stat *st)
{
	char line[256], want[64];
	long pid = 0, p;
	FILE *f = fopen("/proc/locks", "re");

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "%02x:%02x:%llu", major(st->st_dev),
		 minor(st->st_dev), (unsigned long long)st->st_ino);
	while (!pid && fgets(line, sizeof(line), f)) {
		char kind[16], dev[64];

		if (sscanf(line, "%*[^:]: %15s %*s %*s %ld %63s", kind, &p, dev) == 3 &&
		    !strcmp(kind, "FLOCK") && !strcmp(dev, want))
			pid = p;
	}
	fclose(f);
	return pid;
}

/*
 * One service per folder: another one would remove this one's file in
 * progress (clean_dir()) and release snapshots this one has not saved.
 * The folder itself is flock()ed, which goes with the process however it
 * ends, and needs no file in it.  0, or -1 with errno (EWOULDBLOCK:
 * another service holds it, its pid in *@other, 0 if unknown).
 */
static int lock_dir(const struct svc_conf *c, long *other)
{
	struct stat st;
	int fd, err;

	fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		err = errno;
		if (other)
			*other = err == EWOULDBLOCK && !fstat(fd, &st) ? lock_holder(&st) : 0;
		close(fd);
		errno = err;
		return -1;
	}
	if (lock_fd >= 0)
		close(lock_fd);
	lock_fd = fd;
	return 0;
}

static void remove_entry(const char *dir, const char *id)
{
	char path[PATH_MAX + ID_LEN + 8];

	snprintf(path, sizeof(path), "%s/%s.grf", dir, id);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s.txt", dir, id);
	unlink(path);
}

/*
 * Keep the newest c->keep snapshots within c->max_size bytes (the newest
 * one is kept even alone above it); remove the others, oldest first.
 * @keep_id, the one just saved, if any, is never removed.
 */
static void prune(const struct svc_conf *c, const char *keep_id)
{
	struct entry *e = NULL;
	uint64_t total = 0, left;
	int n = read_dir(c->dir, &e), i;

	if (n < 0) {
		slog(LOG_WARNING, "cannot prune %s: %s", c->dir, strerror(errno));
		return;
	}
	for (i = 0; i < n; i++)
		total += e[i].size;
	left = (uint64_t)n;
	for (i = 0; i < n - 1 && (left > c->keep || total > c->max_size); i++) {
		if (keep_id && !strcmp(e[i].id, keep_id))
			continue;
		remove_entry(c->dir, e[i].id);
		total -= e[i].size;
		left--;
		slog(LOG_INFO, "snapshot %s removed (keep=%" PRIu64 ", max_size=%" PRIu64 ")",
		     e[i].id, c->keep, c->max_size);
	}
	free(e);
}

/* What a crash left: temporary files, summaries without their snapshot. */
static void clean_dir(const struct svc_conf *c)
{
	struct dirent *de;
	DIR *d = opendir(c->dir);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char path[PATH_MAX + 300], grf[PATH_MAX + 310];
		size_t len = strlen(de->d_name);

		snprintf(path, sizeof(path), "%s/%s", c->dir, de->d_name);
		if (!strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX))) {
			unlink(path);
			continue;
		}
		if (len > 4 && !strcmp(de->d_name + len - 4, ".txt")) {
			snprintf(grf, sizeof(grf), "%.*s.grf", (int)(strlen(path) - 4), path);
			if (access(grf, F_OK) && errno == ENOENT)
				unlink(path);
		}
	}
	closedir(d);
}

/* ---- list, show -------------------------------------------------------------------------- */

static void fmt_size(char *buf, size_t len, uint64_t v)
{
	if (v < 10240)
		snprintf(buf, len, "%" PRIu64, v);
	else if (v < (10ull << 20))
		snprintf(buf, len, "%.1fK", v / 1024.0);
	else if (v < (10ull << 30))
		snprintf(buf, len, "%.1fM", v / 1048576.0);
	else
		snprintf(buf, len, "%.1fG", v / 1073741824.0);
}

static void fmt_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S %Z", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

int cmd_recorder_list(int argc, char **argv)
{
	struct svc_conf c;
	struct entry *e = NULL;
	int n, i;

	parse_opts("list", argc, argv, &c, NULL, NULL);
	n = read_dir(c.dir, &e);
	if (n < 0) {
		err_errno("recorder list: cannot read %s", c.dir);
		return 1;
	}
	if (!n) {
		printf("no snapshots in %s\n", c.dir);
		return 0;
	}
	printf("%-28s %-23s %-8s %-12s %-14s %-6s %s\n", "ID", "TIME", "CAUSE",
	       "RING", "HUNG JOB", "MISSED", "SIZE");
	for (i = 0; i < n; i++) {
		char t[64], sz[32];

		fmt_time(t, sizeof(t), e[i].saved);
		fmt_size(sz, sizeof(sz), e[i].size);
		printf("%-28s %-23s %-8s %-12s %-14s %-6" PRIu64 " %s\n", e[i].id, t,
		       e[i].cause, e[i].ring, e[i].job, e[i].later, sz);
	}
	free(e);
	return finish_stdout();
}

int cmd_recorder_show(int argc, char **argv)
{
	const char *id = NULL;
	struct svc_conf c;
	struct entry *e = NULL, *pick = NULL;
	char path[PATH_MAX + ID_LEN + 8], t[64];
	int n, i, matches = 0;

	parse_opts("show", argc, argv, &c, NULL, &id);
	n = read_dir(c.dir, &e);
	if (n < 0) {
		err_errno("recorder show: cannot read %s", c.dir);
		return 1;
	}
	if (!n) {
		err_msg("recorder show: no snapshots in %s", c.dir);
		free(e);
		return 1;
	}
	if (!id) {
		pick = &e[n - 1];
	} else {
		size_t len = strlen(id);

		if (len > 4 && !strcmp(id + len - 4, ".grf"))
			len -= 4;
		for (i = 0; i < n; i++) {
			if (strlen(e[i].id) == len && !strncmp(e[i].id, id, len)) {
				pick = &e[i];
				matches = 1;
				break;
			}
			if (!strncmp(e[i].id, id, len)) {
				pick = &e[i];
				matches++;
			}
		}
		if (!matches || matches > 1) {
			err_msg("recorder show: %s snapshot '%s' in %s ('grtrace recorder list --dir %s')",
				matches ? "more than one" : "no", id, c.dir, c.dir);
			free(e);
			return 1;
		}
	}
	snprintf(path, sizeof(path), "%s/%s.grf", c.dir, pick->id);
	fmt_time(t, sizeof(t), pick->saved);
	printf("snapshot: %s\nfile:     %s (%" PRIu64 " bytes)\nsaved:    %s\n",
	       pick->id, path, pick->size, t);
	printf("summary:  cause %s, ring %s, hung job %s, %" PRIu64 " later triggers missed\n",
	       pick->cause, pick->ring, pick->job, pick->later);
	free(e);
	fflush(stdout);
	{
		char *args[] = { "report", "-i", path, NULL };

		return cmd_report(3, args);
	}
}

/* ---- the service ------------------------------------------------------------------------ */

/*
 * The recorder's info now, or its wait, with their errors left to the
 * service's log (said once there, from errno): the service retries them
 * every second, for days maybe.
 */
static int info_now(struct rec_info *in)
{
	int ret;

	err_mute = 1;
	ret = read_info(in);
	err_mute = 0;
	return ret;
}

static int wait_quietly(struct rec_info *in)
{
	int ret;

	err_mute = 1;
	ret = wait_triggered(0, in);
	err_mute = 0;
	return ret;
}

/*
 * After the release of @session's snapshot: the later triggers the
 * module counted until the release armed the recorder again, if its info
 * says (released_later_triggers of that session); else @seen.
 */
static uint64_t released(uint64_t session, uint64_t seen)
{
	struct rec_info now;

	info_init(&now);
	if (!info_now(&now) && now.have_released &&
	    now.released_session == session &&
	    now.released_later_triggers > seen)
		seen = now.released_later_triggers;
	free(now.cpus);
	return seen;
}

/* Written by a signal: wakes a wait_triggered() about to block. */
static int stop_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int err = errno;

	(void)sig;
	rec_stop = 1;
	if (stop_pipe[1] >= 0 && write(stop_pipe[1], "", 1) < 0) {
		/* Full (EAGAIN): a byte is there already, poll() wakes. */
	}
	errno = err;
}

/* Sleep @ms, cut short by a signal. */
static void nap(int ms)
{
	while (ms > 0 && !rec_stop) {
		poll(NULL, 0, ms > 100 ? 100 : ms);
		ms -= 100;
	}
}

static void load_adapters(const struct svc_conf *c)
{
	char tmp[sizeof(c->adapters)], *w, *save = NULL;

	snprintf(tmp, sizeof(tmp), "%s", c->adapters);
	for (w = strtok_r(tmp, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		pid_t pid = fork();
		int st;

		if (pid < 0) {
			slog(LOG_WARNING, "cannot run modprobe %s: %s", w, strerror(errno));
			continue;
		}
		if (!pid) {
			execlp("modprobe", "modprobe", w, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			slog(LOG_WARNING, "modprobe %s failed (exit %d): its driver's jobs are not traced",
			     w, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
}

static unsigned int cause_bit(const char *cause)
{
	if (!strcmp(cause, "timeout"))
		return TRIG_TIMEOUT;
	if (!strcmp(cause, "error"))
		return TRIG_ERROR;
	if (!strcmp(cause, "manual"))
		return TRIG_MANUAL;
	return TRIG_ALL;	/* a cause this tool does not know: saved */
}

/*
 * The report of @path (this program's own report, run in a child): its
 * flight recorder lines for the ring and the hung job.
 */
static void summarize(const char *path, struct entry *e)
{
	char line[1024];
	int fds[2];
	pid_t pid;
	FILE *f;

	snprintf(e->ring, sizeof(e->ring), "?");
	snprintf(e->job, sizeof(e->job), "?");
	if (pipe(fds) < 0)
		return;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (!pid) {
		char *args[] = { "report", "-i", (char *)path, NULL };
		int devnull = open("/dev/null", O_WRONLY);

		close(fds[0]);
		dup2(fds[1], STDOUT_FILENO);
		if (devnull >= 0)
			dup2(devnull, STDERR_FILENO);
		_exit(cmd_report(3, args) ? 1 : (finish_stdout() ? 1 : 0));
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "  ring:       ", 14)) {
			const char *v = line + 14;

			if (!strncmp(v, "none", 4))
				snprintf(e->ring, sizeof(e->ring), "none");
			else
				snprintf(e->ring, sizeof(e->ring), "%.*s",
					 (int)strcspn(v, "("), v);
			trim(e->ring);
		} else if (!strncmp(line, "  hung job:   ", 14)) {
			const char *v = line + 14;

			size_t n = strcspn(v, " ,(");

			if (n && v[n - 1] == ':')
				n--;
			snprintf(e->job, sizeof(e->job), "%.*s", (int)n, v);
		}
	}
	if (f)
		fclose(f);
	else
		close(fds[0]);
	waitpid(pid, NULL, 0);
}

/* Write @len bytes of @text to a new temporary file of @dir; its fd or -1. */
static int tmp_file(const char *dir, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/" TMP_PREFIX "XXXXXX", dir);
	fd = mkstemp(path);
	if (fd >= 0)
		fchmod(fd, 0640);
	return fd;
}

/*
 * Write @e's summary to c->dir as ID.txt, through a temporary file
 * renamed into place.  0, or -1 with errno set and no temporary file
 * left.
 */
static int write_summary(const struct svc_conf *c, const struct entry *e)
{
	char tmp[PATH_MAX + 32], dst[PATH_MAX + ID_LEN + 8], text[512];
	int fd, err;

	fd = tmp_file(c->dir, tmp, sizeof(tmp));
	if (fd < 0)
		return -1;
	snprintf(text, sizeof(text),
		 "seq=%" PRIu64 "\nsaved=%lld\nsession=%" PRIu64 "\ncause=%s\nring=%s\njob=%s\nlater_triggers=%" PRIu64 "\nrecords=%" PRIu64 "\ncpus=%d\n",
		 e->seq, (long long)e->saved, e->session, e->cause, e->ring, e->job,
		 e->later, e->records, e->cpus);
	if (write_all(fd, text, strlen(text)) < 0 || fsync(fd) < 0) {
		err = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) < 0) {
		err = errno;
		goto fail;
	}
	snprintf(dst, sizeof(dst), "%s/%s.txt", c->dir, e->id);
	if (rename(tmp, dst) < 0) {
		err = errno;
		goto fail;
	}
	return 0;
fail:
	unlink(tmp);
	errno = err;
	return -1;
}

/*
 * Save the snapshot the recorder holds to c->dir: ID.txt, then ID.grf by
 * rename, each written to a temporary file first.  0, or -1 with nothing
 * left in the folder (logged).
 */
static int save(const struct svc_conf *c, struct rec_info *in, struct entry *e)
{
	char tmp[PATH_MAX + 32] = "";
	char dst[PATH_MAX + ID_LEN + 8];
	char why[PATH_MAX + 300] = "";
	struct stat st;
	struct tm tm;
	int fd, ret, i, dfd;
	time_t now = time(NULL);

	memset(e, 0, sizeof(*e));
	e->seq = next_seq(c);
	e->saved = now;
	e->session = in->session;
	e->later = in->later_triggers;
	snprintf(e->cause, sizeof(e->cause), "%s", in->cause[0] ? in->cause : "unknown");
	gmtime_r(&now, &tm);
	strftime(e->id, sizeof(e->id), "%Y%m%dT%H%M%SZ", &tm);
	i = (int)strlen(e->id);
	snprintf(e->id + i, sizeof(e->id) - (size_t)i, "-s%" PRIu64, in->session);
	/* Two in one second of one session number (the module reloaded). */
	for (i = 2; ; i++) {
		snprintf(dst, sizeof(dst), "%s/%s.grf", c->dir, e->id);
		if (access(dst, F_OK))
			break;
		snprintf(e->id + strcspn(e->id, "."),
			 sizeof(e->id) - strcspn(e->id, "."), ".%d", i);
	}

	fd = tmp_file(c->dir, tmp, sizeof(tmp));
	/* Removed under the service (old snapshots cleared): made again. */
	if (fd < 0 && errno == ENOENT && !mkdir(c->dir, 0750)) {
		slog(LOG_WARNING, "the folder %s was gone: created again", c->dir);
		lock_dir(c, NULL);
		fd = tmp_file(c->dir, tmp, sizeof(tmp));
	}
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot create a file in %s: %s", c->dir, strerror(errno));
		goto fail;
	}
	rec_quiet = 1;
	ret = snapshot_to_fd(fd, tmp, in, c->compress, &e->records, &e->cpus);
	rec_quiet = 0;
	if (ret < 0 && errno) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		goto fail;
	}
	if (ret < 0) {
		snprintf(why, sizeof(why), "the snapshot could not be read");
		goto fail;
	}
	if (fsync(fd) < 0 || fstat(fd, &st) < 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		goto fail;
	}
	e->size = (uint64_t)st.st_size;
	close(fd);
	fd = -1;
	summarize(tmp, e);

	/*
	 * The triggers the module counted while the snapshot was written
	 * (a second hang) are missed: counted up to now, for the summary
	 * (the file's TRIGGER has those until it was read); the count at
	 * the release, when it is more, replaces it (released()).
	 */
	{
		struct rec_info now_in;

		info_init(&now_in);
		if (!info_now(&now_in) && now_in.session == in->session &&
		    now_in.later_triggers > e->later)
			e->later = now_in.later_triggers;
		free(now_in.cpus);
	}
	if (write_summary(c, e) < 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		goto fail;
	}
	snprintf(dst, sizeof(dst), "%s/%s.grf", c->dir, e->id);
	if (rename(tmp, dst) < 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		snprintf(dst, sizeof(dst), "%s/%s.txt", c->dir, e->id);
		unlink(dst);
		goto fail;
	}
	dfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
fail:
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	} else if (tmp[0]) {
		unlink(tmp);
	}
	slog(LOG_ERR, "snapshot of session %" PRIu64 " (cause %s) NOT saved to %s: %s; nothing of it is left there, the recorder is armed again",
	     in->session, e->cause, c->dir, why);
	return -1;
}

/*
 * Kernel lockdown raised to confidentiality refuses the recorder's info
 * and snapshots until the next boot: one line, the recorder disarmed (its
 * snapshots could not be read), and SVC_EXIT_LOCKDOWN, which the unit does
 * not restart on (RestartPreventExitStatus).
 */
#define SVC_EXIT_LOCKDOWN	3

static int refused_for_good(const char *info)
{
	char state[16];
	int disarmed = 0;

	recorder_state(state, sizeof(state));
	if (!strcmp(state, "armed") || !strcmp(state, "triggered"))
		disarmed = !rec_control("disarm");
	slog(LOG_ERR, "%s: refused by kernel lockdown (confidentiality): no snapshot can be read at that level until the next boot; the service stops%s",
	     info, disarmed ? ", the recorder disarmed" : "");
	return SVC_EXIT_LOCKDOWN;
}

/*
 * Arm the recorder with the config's settings: 0, or -1 and why into
 * @why.  Quiet: refused, it is tried again every few seconds, for as long
 * as a tracing session someone started runs (days, maybe), and said once.
 */
static int arm(const struct svc_conf *c, char *why, size_t len)
{
	int ret, errnum, tracing;

	err_mute = 1;
	ret = rec_arm(c->buffer_size, c->format);
	errnum = errno;
	tracing = ret < 0 && control_state() == 1;
	err_mute = 0;
	if (tracing)
		snprintf(why, len, "a tracing session is running ('grtrace stop' ends it)");
	else if (ret < 0)
		snprintf(why, len, "%s",
			 errnum ? strerror(errnum) : "refused by the module");
	return ret;
}

static int service(const struct svc_conf *c, uint64_t count)
{
	uint64_t saved = 0, last_session = 0, last_ts = 0;
	int gone = 0, refused = 0, have_last = 0, unreadable = 0;
	struct rec_info in;
	char info[PATH_MAX];

	info_init(&in);
	debugfs_path(info, sizeof(info), "recorder/info");
	load_adapters(c);
	while (!rec_stop) {
		struct entry e;
		int ret, ok = 0;
		uint64_t later;

		if (access(info, R_OK)) {
			if (!gone)
				slog(LOG_WARNING, "the flight recorder is not there (%s: %s; grtrace.ko not loaded?): waiting for it",
				     info, strerror(errno));
			gone = 1;
			nap(1000);
			continue;
		}
		if (info_now(&in) < 0) {
			if (lockdown_confidential(errno))
				return refused_for_good(info);
			if (!unreadable)
				slog(LOG_WARNING, "cannot read %s: %s; trying again every second",
				     info, errno ? strerror(errno) : "not the flight recorder's info");
			unreadable = 1;
			nap(1000);
			continue;
		}
		unreadable = 0;
		if (gone) {
			slog(LOG_NOTICE, "the flight recorder is back (state %s)", in.state);
			gone = 0;
			load_adapters(c);
		}
		if (!strcmp(in.state, "off")) {
			char why[256];

			if (arm(c, why, sizeof(why)) < 0) {
				if (!refused)
					slog(LOG_WARNING, "cannot arm the flight recorder: %s; trying again every 5 s",
					     why);
				refused = 1;
				nap(5000);
				continue;
			}
			refused = 0;
			/* The module's info says armed at once; a fake's may lag. */
			for (ret = 0; ret < 200 && !rec_stop; ret++) {
				if (info_now(&in) < 0 || strcmp(in.state, "off"))
					break;
				nap(50);
			}
			slog(LOG_INFO, "flight recorder armed (session %" PRIu64 ", %" PRIu64 " bytes per CPU); snapshots go to %s",
			     in.session, in.buffer_size, c->dir);
			continue;
		}
		if (strcmp(in.state, "triggered")) {
			ret = wait_quietly(&in);
			if (ret == 2)
				break;
			if (ret < 0 && lockdown_confidential(errno))
				return refused_for_good(info);
			if (ret < 0) {
				nap(1000);
				continue;
			}
		}
		if (have_last && in.session == last_session &&
		    in.trigger_ts == last_ts) {
			/* Saved already; the release not seen yet. */
			nap(100);
			continue;
		}
		have_last = 1;
		last_session = in.session;
		last_ts = in.trigger_ts;
		later = in.later_triggers;
		if (!(cause_bit(in.cause) & c->triggers)) {
			slog(LOG_INFO, "snapshot of session %" PRIu64 " (cause %s) not saved: not one of the config's triggers",
			     in.session, in.cause);
		} else if (!save(c, &in, &e)) {
			saved++;
			ok = 1;
			later = e.later;
			prune(c, e.id);
		}
		if (rec_control("release") < 0) {
			slog(LOG_WARNING, "cannot release the snapshot: the recorder is not re-armed yet");
		} else {
			/* A second hang while this one was saved: counted. */
			later = released(in.session, later);
		}
		if (ok && later > e.later) {
			e.later = later;
			if (write_summary(c, &e) < 0)
				slog(LOG_WARNING, "snapshot %s: cannot update its summary (%" PRIu64 " later triggers missed): %s",
				     e.id, later, strerror(errno));
		}
		if (ok)
			slog(LOG_WARNING, "snapshot %s saved: cause %s, ring %s, hung job %s; %" PRIu64 " later triggers missed; %s/%s.grf (%" PRIu64 " bytes)",
			     e.id, e.cause, e.ring, e.job, e.later, c->dir, e.id, e.size);
		else if (later)
			slog(LOG_WARNING, "snapshot of session %" PRIu64 " (not saved): %" PRIu64 " later triggers missed with it",
			     in.session, later);
		if (count && saved >= count)
			break;
	}
	if (rec_stop) {
		char state[16];

		recorder_state(state, sizeof(state));
		if (!strcmp(state, "armed") || !strcmp(state, "triggered")) {
			if (!rec_control("disarm"))
				slog(LOG_INFO, "stopped: flight recorder disarmed");
		} else {
			slog(LOG_INFO, "stopped");
		}
	}
	free(in.cpus);
	return 0;
}

int cmd_recorder_service(int argc, char **argv)
{
	struct sigaction sa;
	struct svc_conf c;
	uint64_t count = 0;
	long other = 0;

	parse_opts("service", argc, argv, &c, &count, NULL);
	if (mkdir(c.dir, 0750) < 0 && errno != EEXIST) {
		err_errno("recorder service: cannot create %s", c.dir);
		return 1;
	}
	if (access(c.dir, W_OK | X_OK)) {
		err_errno("recorder service: cannot write to %s", c.dir);
		return 1;
	}
	if (lock_dir(&c, &other) < 0) {
		if (errno != EWOULDBLOCK)
			err_errno("recorder service: cannot lock %s", c.dir);
		else if (other > 0)
			err_msg("recorder service: another service (pid %ld) saves snapshots to %s",
				other, c.dir);
		else
			err_msg("recorder service: another service saves snapshots to %s", c.dir);
		return 1;
	}
	/*
	 * A signal between the last look at rec_stop and poll() would be
	 * slept through: it writes to a pipe wait_triggered() polls too.
	 * SA_RESTART: a read or waitpid() it interrupts goes on.  SIGHUP (a
	 * terminal closed) stops it as SIGTERM does; a closed pipe on
	 * standard error does not kill it.
	 */
	if (!pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK))
		rec_stop_fd = stop_pipe[0];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	clean_dir(&c);
	prune(&c, NULL);
	return service(&c, count);
}

/*
 * "grtrace recorder": the service's words here, the others in
 * cmd-recorder.c, whose helpers this file uses (so that file names
 * nothing of this one: no circle between the two objects).
 */
int cmd_recorder_main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "service"))
		return cmd_recorder_service(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "list"))
		return cmd_recorder_list(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "show"))
		return cmd_recorder_show(argc - 1, argv + 1);
	return cmd_recorder(argc, argv);
}
