// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace recorder: the flight recorder's control words, its state, and
 * the snapshot written as a trace file.
 *
 * The module's files are in <debugfs>/recorder/: control (a word: arm,
 * disarm, trigger, release), info (key=value lines; poll(2) wakes at the
 * trigger) and one snapshot<cpu> per possible CPU once triggered.  Under
 * kernel lockdown debugfs refuses writable files: the control words then
 * go to sysfs's recorder file.  "wait" blocks in poll(2) on info until
 * the state is "triggered", then writes each CPU's snapshot stream as the
 * frames of one trace file (trace-file.h), as "record" writes its
 * recordings, so that report, export and dump read it unchanged.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/grtrace.h>

#include "grtrace.h"
#include "lib/include/grtrace/grtrace.h"
#include "recorder.h"
#include "util.h"

#define REC_CONTROL	"recorder/control"
#define REC_TWIN	"recorder"	/* sysfs's name of the control file */
#define REC_INFO	"recorder/info"
#define REC_DIR		"recorder"
#define INFO_MAX	65536		/* bytes of info read */
#define FRAME_MAX	(1u << 20)	/* records in one frame, at most */
#define ZSTD_LEVEL	3
/* A file whose poll(2) never blocks (not the module's): re-read this often. */
#define REPOLL_MS	100

volatile sig_atomic_t rec_stop;
int rec_stop_fd = -1;
int rec_quiet;

static const char recorder_help[] =
	"Usage: grtrace recorder arm [--size SIZE] [--format 1|2]\n"
	"       grtrace recorder trigger | release | disarm | status\n"
	"       grtrace recorder wait -o FILE [-t SECONDS] [--release]\n"
	"                             [--no-compress]\n"
	"       grtrace recorder service | list | show [ID] [--config FILE]\n"
	"                             [--dir DIR]  ('recorder service --help')\n"
	"\n"
	"The flight recorder keeps the last records of every CPU in buffers that\n"
	"overwrite their oldest records, with no reader running, until a trigger\n"
	"(the DRM scheduler's job timeout, a job's ERROR event, or 'trigger')\n"
	"freezes them into a snapshot.\n"
	"\n"
	"  arm       start recording into the overwriting buffers (a new session;\n"
	"            tracing must be stopped)\n"
	"            --size SIZE    per-CPU buffer first: bytes, or a number with K\n"
	"                           or M, a multiple of 32K in [64K, 256M]\n"
	"            --format 1|2   the stream format first (the config's format)\n"
	"            Both settings stay as set.\n"
	"  trigger   freeze the buffers now (cause 'manual')\n"
	"  release   discard the snapshot and arm again (a new session)\n"
	"  disarm    discard the snapshot, if any, and stop\n"
	"  status    the recorder's state, its trigger and each CPU's accounting\n"
	"  wait      block until a snapshot is kept, then write it to FILE as a\n"
	"            trace file that report, export and dump read\n"
	"            -o, --output FILE    the file ('-': standard output)\n"
	"            -t, --timeout TIME   give up after TIME: seconds, or a number\n"
	"                                 with ms, s or m; exit status 1\n"
	"                --release        release the snapshot once written\n"
	"                --no-compress    store the frames as they are (default:\n"
	"                                 zstd)\n"
	"\n"
	"Exit status: 0; 1 if the module refused or on a timeout; 2 on a usage\n"
	"error (nothing was changed).\n";

static const struct option arm_opts[] = {
	{ "size",   required_argument, NULL, 's' },
	{ "format", required_argument, NULL, 'f' },
	{ "help",   no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option wait_opts[] = {
	{ "output",      required_argument, NULL, 'o' },
	{ "timeout",     required_argument, NULL, 't' },
	{ "release",     no_argument,       NULL, 'r' },
	{ "no-compress", no_argument,       NULL, 'Z' },
	{ "help",        no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option help_only[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* ---- info ------------------------------------------------------------------ */

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

/* One key=value of a cpuN line into @c. */
static void cpu_key(struct info_cpu *c, const char *k, const char *v)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "first_ts", offsetof(struct grtrace_info_loss, first_ts) },
		{ "last_ts", offsetof(struct grtrace_info_loss, last_ts) },
		{ "emitted", offsetof(struct grtrace_info_loss, emitted) },
		{ "kept", offsetof(struct grtrace_info_loss, kept) },
		{ "overwritten", offsetof(struct grtrace_info_loss, overwritten) },
		{ "dropped", offsetof(struct grtrace_info_loss, dropped) },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(k, keys[i].key))
			parse_u64(v, (uint64_t *)((char *)&c->acc + keys[i].off));
}

/* One key=value of the recorder's own lines into @in. */
static void info_key(struct rec_info *in, const char *k, const char *v)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "session", offsetof(struct rec_info, session) },
		{ "format", offsetof(struct rec_info, format) },
		{ "buffer_size", offsetof(struct rec_info, buffer_size) },
		{ "cpu", offsetof(struct rec_info, cpu) },
		{ "ring", offsetof(struct rec_info, ring) },
		{ "ctx", offsetof(struct rec_info, ctx) },
		{ "seqno", offsetof(struct rec_info, seqno) },
		{ "trigger_ts", offsetof(struct rec_info, trigger_ts) },
		{ "frozen_ts", offsetof(struct rec_info, frozen_ts) },
		{ "freeze_ns", offsetof(struct rec_info, freeze_ns) },
		{ "later_triggers", offsetof(struct rec_info, later_triggers) },
		{ "released_session", offsetof(struct rec_info, released_session) },
		{ "released_later_triggers",
		  offsetof(struct rec_info, released_later_triggers) },
	};
	size_t i;
	char *end;

	if (!strcmp(k, "state")) {
		snprintf(in->state, sizeof(in->state), "%s", v);
		return;
	}
	if (!strcmp(k, "cause")) {
		snprintf(in->cause, sizeof(in->cause), "%s", v);
		in->have_trigger = 1;
		return;
	}
	if (!strcmp(k, "released_later_triggers"))
		in->have_released = 1;
	if (!strcmp(k, "error")) {
		in->error = strtoll(v, &end, 0);
		return;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(k, keys[i].key))
			parse_u64(v, (uint64_t *)((char *)in + keys[i].off));
}

/* Parse the text of info: "key=value" words; a line "cpuN ..." is a CPU's. */
static void parse_info(char *text, struct rec_info *in)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct info_cpu *c = NULL;
		char *w, *wsave = NULL;
		unsigned long n;
		char *end;

		if (!strncmp(line, "cpu", 3) && line[3] >= '0' && line[3] <= '9') {
			n = strtoul(line + 3, &end, 10);
			if ((*end != ' ' && *end != '\t') || in->ncpus == INFO_CPUS)
				continue;
			c = &in->cpus[in->ncpus++];
			memset(c, 0, sizeof(*c));
			c->cpu = (unsigned int)n;
			c->acc.size = sizeof(c->acc);
			c->acc.cpu = (uint32_t)n;
			line = end;
		}
		for (w = strtok_r(line, " \t", &wsave); w;
		     w = strtok_r(NULL, " \t", &wsave)) {
			char *eq = strchr(w, '=');

			if (!eq)
				continue;
			*eq = '\0';
			if (c)
				cpu_key(c, w, eq + 1);
			else
				info_key(in, w, eq + 1);
		}
	}
}

void info_init(struct rec_info *in)
{
	memset(in, 0, sizeof(*in));
	in->cpus = xmalloc(INFO_CPUS * sizeof(*in->cpus));
}

/* Read and parse info from @fd (from its start); -1 on an error. */
static int read_info_fd(int fd, const char *path, struct rec_info *in)
{
	char *text = xmalloc(INFO_MAX);
	size_t off = 0;
	struct info_cpu *cpus = in->cpus;

	for (;;) {
		ssize_t n = pread(fd, text + off, INFO_MAX - 1 - off, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int errnum = errno;

			err_debugfs(path, "cannot read");
			free(text);
			errno = errnum;
			return -1;
		}
		if (n == 0 || off + (size_t)n >= INFO_MAX - 1) {
			off += (size_t)n;
			break;
		}
		off += (size_t)n;
	}
	text[off] = '\0';
	memset(in, 0, sizeof(*in));
	in->cpus = cpus;
	parse_info(text, in);
	free(text);
	if (!in->state[0]) {
		err_msg("%s: no state= line: not the flight recorder's info file",
			path);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Open info; -1 after a message. */
static int open_info(char *path)
{
	int fd;

	debugfs_path(path, 4096, REC_INFO);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		err_debugfs(path, "cannot open");
	return fd;
}

int read_info(struct rec_info *in)
{
	char path[4096];
	int fd = open_info(path), ret, errnum;

	if (fd < 0)
		return -1;
	ret = read_info_fd(fd, path, in);
	errnum = errno;
	close(fd);
	errno = errnum;
	return ret;
}

/* ---- the control words -------------------------------------------------------- */

/*
 * The state word of sysfs's recorder file (the twin of control, which
 * reads as the state, under lockdown too) into @buf: 0, or -1, quietly.
 */
static int read_twin_state(char *buf, size_t len)
{
	char path[4096], text[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", sysfs_dir(), REC_TWIN);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	if (strcmp(text, "off") && strcmp(text, "armed") &&
	    strcmp(text, "triggered"))
		return -1;
	snprintf(buf, len, "%s", text);
	return 0;
}

void recorder_state(char *buf, size_t len)
{
	char path[4096];
	struct rec_info in;
	int mute = err_mute, ret;

	buf[0] = '\0';
	debugfs_path(path, sizeof(path), REC_INFO);
	if (access(path, R_OK))
		return;
	info_init(&in);
	err_mute = 1;
	ret = read_info(&in);
	/* Refused under lockdown: sysfs's twin of control reads as the state. */
	if (!ret)
		snprintf(buf, len, "%s", in.state);
	else if (errno == EPERM)
		read_twin_state(buf, len);
	err_mute = mute;
	free(in.cpus);
}

/* Why the module may have refused @word, from the state it is in now. */
static void explain_refusal(const char *word, int err, const char *path)
{
	char state[16], ctl[4096];
	const char *why = NULL;

	if (err == -ENOENT || err == -EACCES || err == -EPERM) {
		err_debugfs(path, "cannot open");
		return;
	}
	recorder_state(state, sizeof(state));
	debugfs_path(ctl, sizeof(ctl), "control");
	if (!strcmp(word, "arm")) {
		if (!strcmp(state, "armed") || !strcmp(state, "triggered"))
			why = "the recorder is armed already ('grtrace recorder disarm' first)";
		else if (!access(ctl, R_OK) && control_state() == 1)
			why = "tracing is started: 'grtrace stop' first";
	} else if (!strcmp(word, "trigger") && !strcmp(state, "off")) {
		why = "the recorder is not armed";
	} else if (!strcmp(word, "release") && state[0] &&
		   strcmp(state, "triggered")) {
		why = "no snapshot is kept";
	}
	if (why)
		err_msg("recorder %s: refused (%s): %s; state=%s", word,
			strerror(-err), why, state[0] ? state : "unknown");
	else
		err_msg("recorder %s: refused by %s (%s); state=%s", word, path,
			strerror(-err), state[0] ? state : "unknown");
}

int rec_control(const char *word)
{
	char path[4096];
	int err = debugfs_write_twin(REC_CONTROL, REC_TWIN, word, path);

	if (!err)
		return 0;
	errno = -err;
	explain_refusal(word, err, path);
	errno = -err;
	return -1;
}

/* ---- arm -------------------------------------------------------------------------- */

/* "4M", "65536", "512K", as record -b and the module check them. */
static uint64_t parse_size(const char *s)
{
	uint64_t v;

	if (parse_buffer_size(s, &v) < 0)
		usage_error("recorder", "recorder arm: invalid size '%s': a multiple of 32K in [64K, 256M]",
			    s);
	return v;
}

/* The setting @key's value now, to put back if arming fails. */
static int save_setting(const char *file, const char *key, char *old,
			size_t len)
{
	char text[4096], *v;
	size_t klen = strlen(key);

	if (debugfs_read(file, text, sizeof(text)) < 0)
		return -1;
	if (!*key) {
		snprintf(old, len, "%.*s", (int)strcspn(text, "\n"), text);
		return 0;
	}
	for (v = text; v; v = strchr(v, '\n'), v = v ? v + 1 : NULL)
		if (!strncmp(v, key, klen) && v[klen] == '=') {
			snprintf(old, len, "%.*s", (int)strcspn(v, "\n"), v);
			return 0;
		}
	old[0] = '\0';
	return 0;
}

/*
 * Set the per-CPU buffer size and the stream format (0: as they are) and
 * arm; refused, the settings are put back.  -1 after a message.
 */
int rec_arm(uint64_t size, long format)
{
	char val[64], old_size[64] = "", old_format[64] = "";
	int ret;

	/* The settings first: a session takes them when it begins. */
	if (size) {
		if (save_setting("buffer_size", "", old_size, sizeof(old_size)) < 0)
			return -1;
		snprintf(val, sizeof(val), "%" PRIu64, size);
		if (debugfs_write("buffer_size", val) < 0)
			return -1;
	}
	if (format) {
		if (save_setting("config", "format", old_format,
				 sizeof(old_format)) < 0)
			goto restore;
		snprintf(val, sizeof(val), "format=%ld", format);
		if (debugfs_write("config", val) < 0)
			goto restore;
	}
	ret = rec_control("arm");
	if (!ret)
		return 0;
restore:
	/* Refused: leave the settings as they were. */
	if (old_format[0])
		debugfs_write_quiet("config", old_format);
	if (old_size[0])
		debugfs_write_quiet("buffer_size", old_size);
	return -1;
}

static int cmd_arm(int argc, char **argv)
{
	uint64_t size = 0;
	long format = 0;
	char *end;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", arm_opts, NULL)) != -1) {
		switch (c) {
		case 's':
			size = parse_size(optarg);
			break;
		case 'f':
			errno = 0;
			format = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end ||
			    format < GRTRACE_FORMAT_V1 ||
			    format > GRTRACE_FORMAT_VERSION)
				usage_error("recorder", "recorder arm: invalid format '%s': 1 or 2",
					    optarg);
			break;
		case 'h':
			fputs(recorder_help, stdout);
			return 0;
		case ':':
			usage_error("recorder", "recorder arm: option '%s' needs an argument",
				    argv[optind - 1]);
		default:
			usage_error("recorder", "recorder arm: unknown option '%s'",
				    argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("recorder", "recorder arm: unexpected argument '%s'",
			    argv[optind]);
	return rec_arm(size, format) < 0;
}

/* ---- status ------------------------------------------------------------------------- */

static void print_info(const struct rec_info *in)
{
	unsigned int i;

	printf("recorder: %s", in->state);
	if (strcmp(in->state, "off"))
		printf(" (session %" PRIu64 ", format %" PRIu64 ", %" PRIu64 " bytes per CPU)",
		       in->session, in->format, in->buffer_size);
	putchar('\n');
	if (in->have_trigger && strcmp(in->cause, "none")) {
		printf("trigger:  %s at %" PRIu64 " ns on CPU %" PRIu64,
		       in->cause, in->trigger_ts, in->cpu);
		if (in->ring != 0xffffffffu)
			printf(", ring %" PRIu64, in->ring);
		if (in->ctx || in->seqno)
			printf(", job %" PRIu64 ":%" PRIu64, in->ctx, in->seqno);
		if (in->error)
			printf(", error %" PRId64, in->error);
		putchar('\n');
		printf("frozen:   at %" PRIu64 " ns, %" PRIu64 " ns after the trigger; %" PRIu64 " later triggers counted\n",
		       in->frozen_ts, in->freeze_ns, in->later_triggers);
	}
	for (i = 0; i < in->ncpus; i++) {
		const struct grtrace_info_loss *a = &in->cpus[i].acc;

		printf("cpu%-4u   window %" PRIu64 " .. %" PRIu64 " ns; emitted %" PRIu64 " = kept %" PRIu64 " + overwritten %" PRIu64 " + dropped %" PRIu64 " (%s)\n",
		       in->cpus[i].cpu, a->first_ts, a->last_ts, a->emitted,
		       a->kept, a->overwritten, a->dropped,
		       grtrace_loss_balanced(a) ? "holds" : "DOES NOT HOLD");
	}
}

static int cmd_rec_status(void)
{
	struct rec_info in;
	int ret;

	info_init(&in);
	ret = read_info(&in);
	if (!ret)
		print_info(&in);
	free(in.cpus);
	return ret < 0;
}

/* ---- wait ---------------------------------------------------------------------------- */

struct snap {
	unsigned int cpu;
	uint8_t *buf;
	size_t len;		/* of the whole records */
	uint64_t records;
};

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Block until info says "triggered": 0, 1 on the timeout (@timeout_ns, 0:
 * none), -1 on an error.  The module's poll() wakes us at the trigger; a
 * file whose poll() never blocks is read again every REPOLL_MS.
 */
int wait_triggered(uint64_t timeout_ns, struct rec_info *in)
{
	double deadline = timeout_ns ? now_sec() + timeout_ns / 1e9 : 0;
	char path[4096];
	int fd = open_info(path), ret = -1, errnum;

	if (fd < 0)
		return -1;
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = fd, .events = POLLIN | POLLPRI },
			{ .fd = rec_stop_fd, .events = POLLIN },
		};
		int ms = -1, n;
		double t0;

		if (read_info_fd(fd, path, in) < 0)
			break;
		if (!strcmp(in->state, "triggered")) {
			ret = 0;
			break;
		}
		if (!strcmp(in->state, "off")) {
			err_msg("recorder wait: the recorder is not armed (state=off): 'grtrace recorder arm' first");
			errno = 0;
			break;
		}
		if (rec_stop) {
			ret = 2;
			break;
		}
		if (deadline) {
			double left = deadline - now_sec();

			if (left <= 0) {
				ret = 1;
				break;
			}
			ms = (int)(left * 1000) + 1;
		}
		t0 = now_sec();
		n = poll(p, 2, ms);
		if (n < 0 && errno != EINTR) {
			err_errno("cannot poll %s", path);
			break;
		}
		/*
		 * Ready at once but not triggered: no wake-up to wait for.
		 * Such a file (not the module's) may be replaced: open it
		 * again.
		 */
		if (n > 0 && !p[1].revents && now_sec() - t0 < REPOLL_MS / 1e3) {
			poll(NULL, 0, ms < 0 || ms > REPOLL_MS ? REPOLL_MS : ms);
			close(fd);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				err_debugfs(path, "cannot open");
				return -1;
			}
		}
	}
	errnum = errno;
	close(fd);
	errno = errnum;
	return ret;
}

static int cmp_snap(const void *a, const void *b)
{
	const struct snap *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* The snapshot<cpu> files, sorted by CPU: count, or -1 after a message. */
static int list_snapshots(struct snap **sp)
{
	char dir[4096];
	struct dirent *de;
	struct snap *s = NULL;
	int n = 0, cap = 0;
	DIR *d;

	debugfs_path(dir, sizeof(dir), REC_DIR);
	d = opendir(dir);
	if (!d) {
		err_debugfs(dir, "cannot open");
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		unsigned long v;
		char *end;

		if (strncmp(de->d_name, "snapshot", 8) ||
		    de->d_name[8] < '0' || de->d_name[8] > '9')
			continue;
		errno = 0;
		v = strtoul(de->d_name + 8, &end, 10);
		if (*end || errno || v > UINT16_MAX)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			s = xrealloc(s, (size_t)cap * sizeof(*s));
		}
		memset(&s[n], 0, sizeof(s[n]));
		s[n++].cpu = (unsigned int)v;
	}
	closedir(d);
	if (!n) {
		err_msg("no snapshot<cpu> files in %s", dir);
		free(s);
		return -1;
	}
	qsort(s, (size_t)n, sizeof(*s), cmp_snap);
	*sp = s;
	return n;
}

/*
 * Read snapshot<cpu> whole and check its records in @format; a bad record
 * ends it there (the records before it are kept).  -1 on an error.
 */
static int read_snapshot(struct snap *s, unsigned int *format)
{
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	struct grtrace_record r = GRTRACE_RECORD_INIT;
	grtrace_checker *chk;
	char name[64], path[4096];
	size_t off = 0;
	long sz = 0;
	int fd;

	snprintf(name, sizeof(name), REC_DIR "/snapshot%u", s->cpu);
	debugfs_path(path, sizeof(path), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err_debugfs(path, "cannot open");
		return -1;
	}
	if (read_all(fd, &s->buf, &s->len) < 0) {
		if (errno == ENODATA)
			err_msg("%s: no snapshot (ENODATA): released or disarmed meanwhile",
				path);
		else
			err_debugfs(path, "cannot read");
		close(fd);
		return -1;
	}
	close(fd);
	if (!*format)
		*format = grtrace_stream_format_of(s->buf, s->len);
	chk = grtrace_checker_new(*format >= GRTRACE_FORMAT_V2 ?
				  GRTRACE_FORMAT_V2 : 1, s->cpu, NULL);
	if (!chk)
		oom_exit(sizeof(*s));
	while (off < s->len) {
		sz = grtrace_check_record(chk, s->buf + off, s->len - off, &r,
					  &err);
		if (sz <= 0)
			break;
		off += (size_t)sz;
		s->records++;
	}
	grtrace_checker_free(chk);
	if (sz <= 0 && off < s->len) {
		err_msg("%s: %s record at byte %zu: %s; the records before it are written",
			path, sz == 0 ? "truncated" : "corrupt", off, err.msg);
		s->len = off;
		return 1;
	}
	return 0;
}

/* The next record's size at @off of @s (checked by read_snapshot()). */
static size_t record_size(grtrace_checker *chk, const struct snap *s,
			  size_t off)
{
	struct grtrace_record r = GRTRACE_RECORD_INIT;
	long sz = grtrace_check_record(chk, s->buf + off, s->len - off, &r,
				       NULL);

	return sz > 0 ? (size_t)sz : s->len - off;
}

static int write_frames(int fd, const char *out, const struct snap *s,
			int compress, unsigned int format)
{
	size_t start = 0, off = 0, sz = 0;
	grtrace_checker *chk;
	int ret = 0;

	chk = grtrace_checker_new(format >= GRTRACE_FORMAT_V2 ?
				  GRTRACE_FORMAT_V2 : 1, s->cpu, NULL);
	if (!chk)
		oom_exit(sizeof(*s));
	while (start < s->len && !ret) {
		uint8_t hdr[GRTRACE_FRAME_HDR_SIZE];
		unsigned int flags = 0;
		uint32_t raw, stored;
		const void *data;
		void *z;
		long zlen;

		/* Whole records, at most FRAME_MAX bytes (one bigger alone). */
		while (off < s->len) {
			if (!sz)
				sz = record_size(chk, s, off);
			if (off + sz - start > FRAME_MAX && off > start)
				break;
			off += sz;
			sz = 0;
		}
		raw = stored = (uint32_t)(off - start);
		data = s->buf + start;
		zlen = compress ? grtrace_compress_frame(data, raw, ZSTD_LEVEL, &z) :
		       -1;
		if (zlen > 0) {
			flags = GRTRACE_FRAME_ZSTD;
			stored = (uint32_t)zlen;
			data = z;
		}
		grtrace_encode_frame(s->cpu, flags, stored, raw, hdr);
		if (write_all(fd, hdr, sizeof(hdr)) < 0 ||
		    write_all(fd, data, stored) < 0) {
			if (!rec_quiet)
				err_errno("cannot write %s", out);
			ret = -1;
		}
		start = off;
	}
	grtrace_checker_free(chk);
	return ret;
}

/* The clock the module stamps with, as record names it in its header. */
static void module_clock(char *buf, size_t len)
{
	char config[4096], path[4096], *v;

	buf[0] = '\0';
	debugfs_path(path, sizeof(path), "config");
	if (!access(path, R_OK) &&
	    debugfs_read("config", config, sizeof(config)) == 0 &&
	    (v = strstr(config, "clock=")) && (v == config || v[-1] == '\n'))
		snprintf(buf, len, "%.*s", (int)strcspn(v + 6, "\n"), v + 6);
}

/* The trace file of @n CPUs' snapshots to @fd, named @out in messages. */
static int write_snapshot(int fd, const char *out, const struct snap *s,
			  int n, unsigned int format, const struct rec_info *in,
			  int compress)
{
	struct grtrace_info_file h = {
		.size = sizeof(h),
		.flags = compress ? GRTRACE_FILE_ZSTD : 0,
		.stream_format = format,
		.nr_cpus = (uint32_t)n,
		.session = in->session,
		.started = (uint64_t)time(NULL),
	};
	uint8_t buf[GRTRACE_FILE_HEADER_MAX];
	struct utsname u;
	int i, ret = 0;
	size_t len;

	if (!uname(&u)) {
		snprintf(h.kernel, sizeof(h.kernel), "%s", u.release);
		snprintf(h.host, sizeof(h.host), "%s", u.nodename);
	}
	module_clock(h.clock, sizeof(h.clock));
	len = (size_t)grtrace_encode_file_header(&h, buf, NULL);
	if (write_all(fd, buf, len) < 0) {
		if (!rec_quiet)
			err_errno("cannot write %s", out);
		ret = -1;
	}
	for (i = 0; i < n && !ret; i++)
		ret = write_frames(fd, out, &s[i], compress, format);
	grtrace_compress_done();
	return ret;
}

/* The output's directory must take a file: checked before waiting. */
static void check_output(const char *out)
{
	char dir[4096], *slash;

	if (!strcmp(out, "-"))
		return;
	snprintf(dir, sizeof(dir), "%s", out);
	slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if (access(dir, W_OK | X_OK)) {
		err_errno("recorder wait: cannot create %s in %s", out, dir);
		exit(2);
	}
}

/*
 * The snapshot as a trace file to @fd, named @out in messages; its
 * records counted in *@records, its CPUs in *@ncpus.  0, 1 if a CPU's stream ended in a bad
 * record (the records before it written), -1 on an error (reported but
 * a write error under rec_quiet, errno kept).
 */
int snapshot_to_fd(int fd, const char *out, struct rec_info *in, int compress,
		   uint64_t *records, int *ncpus)
{
	unsigned int format = 0;
	struct snap *s = NULL;
	int n, i, bad = 0, ret, err = 0;

	*records = 0;
	n = list_snapshots(&s);
	if (n < 0)
		return -1;
	*ncpus = n;
	for (i = 0; i < n; i++) {
		ret = read_snapshot(&s[i], &format);
		if (ret < 0)
			goto out;
		bad |= ret;
		*records += s[i].records;
	}
	if (!format)
		format = in->format ? (unsigned int)in->format :
			 GRTRACE_FORMAT_VERSION;
	ret = write_snapshot(fd, out, s, n, format, in, compress);
	err = errno;
out:
	for (i = 0; i < n; i++)
		free(s[i].buf);
	free(s);
	errno = err;
	return ret < 0 ? -1 : bad;
}

static int snapshot_to_file(const char *out, struct rec_info *in,
			    int compress)
{
	uint64_t records;
	int fd, ret, n = 0;

	if (!strcmp(out, "-")) {
		fd = STDOUT_FILENO;
		out = "<stdout>";
	} else {
		fd = create_output(out);
		if (fd < 0) {
			err_errno("cannot create %s", out);
			return -1;
		}
	}
	ret = snapshot_to_fd(fd, out, in, compress, &records, &n);
	if (fd != STDOUT_FILENO && close(fd) < 0 && ret >= 0) {
		err_errno("cannot write %s", out);
		ret = -1;
	}
	/* Nothing half-written is left behind. */
	if (ret < 0 && fd != STDOUT_FILENO)
		unlink(out);
	if (ret >= 0)
		err_msg("snapshot of session %" PRIu64 " (cause %s): %" PRIu64 " records of %d CPUs written to %s",
			in->session, in->cause[0] ? in->cause : "unknown",
			records, n, out);
	return ret;
}

static int cmd_wait(int argc, char **argv)
{
	const char *out = NULL;
	uint64_t timeout = 0;
	int c, release = 0, compress = 1, ret;
	struct rec_info in;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:t:h", wait_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 't':
			if (parse_duration(optarg, 1e9, &timeout) < 0 || !timeout)
				usage_error("recorder", "recorder wait: invalid timeout '%s': seconds, or a number with ms, s or m, above 0",
					    optarg);
			break;
		case 'r':
			release = 1;
			break;
		case 'Z':
			compress = 0;
			break;
		case 'h':
			fputs(recorder_help, stdout);
			return 0;
		case ':':
			usage_error("recorder", "recorder wait: option '%s' needs an argument",
				    argv[optind - 1]);
		default:
			usage_error("recorder", "recorder wait: unknown option '%s'",
				    argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("recorder", "recorder wait: unexpected argument '%s'",
			    argv[optind]);
	if (!out)
		usage_error("recorder", "recorder wait: -o FILE is required");
	check_output(out);
	info_init(&in);
	ret = wait_triggered(timeout, &in);
	if (ret == 1) {
		err_msg("recorder wait: timed out after %.3f s: no snapshot (state=%s)",
			timeout / 1e9, in.state);
	} else if (!ret) {
		ret = snapshot_to_file(out, &in, compress) ? 1 : 0;
		if (!ret && release && rec_control("release") < 0)
			ret = 1;
	} else {
		ret = 1;
	}
	free(in.cpus);
	return ret;
}

/* ---- the command ------------------------------------------------------------------ */

/* A word that takes no option but --help; exits on a usage error. */
static int noargs(int argc, char **argv)
{
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", help_only, NULL)) != -1) {
		if (c == 'h') {
			fputs(recorder_help, stdout);
			return 1;
		}
		usage_error("recorder", "recorder %s: unknown option '%s'",
			    argv[0], argv[optind - 1]);
	}
	if (optind < argc)
		usage_error("recorder", "recorder %s: unexpected argument '%s'",
			    argv[0], argv[optind]);
	return 0;
}

int cmd_recorder(int argc, char **argv)
{
	static const char *const words[] = { "trigger", "release", "disarm" };
	const char *w;
	size_t i;

	if (argc < 2)
		usage_error("recorder", "recorder: a subcommand is needed: arm, trigger, release, disarm, status, wait, service, list or show");
	w = argv[1];
	if (!strcmp(w, "--help") || !strcmp(w, "-h") || !strcmp(w, "help")) {
		fputs(recorder_help, stdout);
		return 0;
	}
	if (!strcmp(w, "arm"))
		return cmd_arm(argc - 1, argv + 1);
	if (!strcmp(w, "wait"))
		return cmd_wait(argc - 1, argv + 1);
	/* service, list and show: cmd_recorder_main() took them. */
	if (!strcmp(w, "status"))
		return noargs(argc - 1, argv + 1) ? 0 : cmd_rec_status();
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcmp(w, words[i]))
			continue;
		if (noargs(argc - 1, argv + 1))
			return 0;
		return rec_control(w) < 0;
	}
	usage_error("recorder", "recorder: unknown subcommand '%s': arm, trigger, release, disarm, status, wait, service, list or show",
		    w);
}
