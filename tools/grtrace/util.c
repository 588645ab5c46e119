// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: error reporting, I/O and debugfs helpers.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/grtrace.h>

#include "util.h"

#define DEFAULT_DEBUGFS	"/sys/kernel/debug/grtrace"

static void vmsg(const char *fmt, va_list ap, int errnum)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (errnum)
		fprintf(stderr, "grtrace: %s: %s\n", buf, strerror(errnum));
	else
		fprintf(stderr, "grtrace: %s\n", buf);
}

int err_mute;

void err_msg(const char *fmt, ...)
{
	va_list ap;

	if (err_mute)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

void err_errno(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	if (err_mute)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap, errnum);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void fatal_errno(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, errnum);
	va_end(ap);
	exit(1);
}

void oom_exit(size_t size)
{
	fatal("out of memory (%zu bytes)", size);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom_exit(size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		oom_exit(size);
	return p;
}

void usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	fprintf(stderr, "Try 'grtrace %s --help'.\n", cmd);
	exit(2);
}

int parse_duration(const char *s, double unit_ns, uint64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 },
	};
	char *end;
	double v, f = 0;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (*s < '0' || *s > '9' || errno || end == s)
		return -1;
	if (!*end)
		f = unit_ns;
	for (i = 0; !f && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			f = units[i].ns;
	if (!f || v * f >= 1.8e19)
		return -1;
	*ns = (uint64_t)(v * f + 0.5);
	return 0;
}

/* default_input()'s answer when it falls back on the file: callers can tell. */
const char gr_default_input[] = GRTRACE_DEFAULT_FILE;

const char *default_input(const char *input)
{
	struct stat st;

	if (input)
		return input;
	/* A pipe or a redirected file is the input; a terminal is not. */
	if (!fstat(STDIN_FILENO, &st) &&
	    (S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode)))
		return "-";
	return gr_default_input;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			/* write(2) making no progress: treat as disk full. */
			errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int create_output(const char *path)
{
	struct stat st;

	/* Not a device, a FIFO or what a symbolic link names: those are cut. */
	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

int read_all(int fd, uint8_t **bufp, size_t *lenp)
{
	size_t cap = 65536, len = 0;
	uint8_t *buf = xmalloc(cap);

	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap > SIZE_MAX / 2) {
				free(buf);
				errno = EFBIG;
				return -1;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

const char *debugfs_dir(void)
{
	const char *d = getenv("GRTRACE_DEBUGFS");

	return d && *d ? d : DEFAULT_DEBUGFS;
}

void debugfs_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", debugfs_dir(), name);
}

/*
 * The kernel's lockdown mode ("integrity", "confidentiality") into @buf,
 * or "" when it is off or unknown.
 */
static void lockdown_mode(char *buf, size_t len)
{
	char text[128], *l, *r;
	ssize_t n;
	int fd;

	buf[0] = '\0';
	fd = open("/sys/kernel/security/lockdown", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return;
	text[n] = '\0';
	l = strchr(text, '[');
	r = l ? strchr(l, ']') : NULL;
	if (!l || !r || !strncmp(l + 1, "none", 4))
		return;
	snprintf(buf, len, "%.*s", (int)(r - l - 1), l + 1);
}

int lockdown_confidential(int errnum)
{
	char mode[32];

	if (errnum != EPERM)
		return 0;
	lockdown_mode(mode, sizeof(mode));
	return !strcmp(mode, "confidentiality");
}

const char *sysfs_dir(void)
{
	const char *d = getenv("GRTRACE_SYSFS");

	return d && *d ? d : "/sys/kernel/grtrace";
}

/*
 * Open debugfs file @name; refused by kernel lockdown (EPERM), its twin
 * in sysfs if it has one: @twin there, or @name when @twin is NULL
 * (control, config, buffer_size; recorder/control is sysfs's recorder).
 * @path (4096 bytes) gets the path opened, or tried.
 */
static int open_setting_twin(const char *name, const char *twin, int flags,
			     char *path)
{
	char alt[4096];
	int fd, errnum;

	debugfs_path(path, 4096, name);
	fd = open(path, flags | O_CLOEXEC);
	if (fd >= 0 || errno != EPERM)
		return fd;
	errnum = errno;
	snprintf(alt, sizeof(alt), "%s/%s", sysfs_dir(), twin ? twin : name);
	fd = open(alt, flags | O_CLOEXEC);
	if (fd >= 0) {
		snprintf(path, 4096, "%s", alt);
		return fd;
	}
	errno = errnum;
	return -1;
}

static int open_setting(const char *name, int flags, char *path)
{
	return open_setting_twin(name, NULL, flags, path);
}

void err_debugfs(const char *path, const char *what)
{
	int errnum = errno;
	char mode[32];

	if (errnum == EPERM)
		lockdown_mode(mode, sizeof(mode));
	if (errnum == EPERM && !strcmp(mode, "confidentiality"))
		err_msg("%s %s: refused by kernel lockdown (confidentiality): at that level the kernel lets no tracer read its data (tracefs, perf and BPF are refused too); grtrace works under lockdown=integrity",
			what, path);
	else if (errnum == EPERM && mode[0])
		err_msg("%s %s: refused by kernel lockdown (%s): debugfs opens only its read-only files; grtrace's control, config and buffer_size are in %s, the optional modules' settings only in debugfs (set them before lockdown)",
			what, path, mode, sysfs_dir());
	else if (errnum == ENOENT)
		err_msg("%s %s: %s (is grtrace.ko loaded and debugfs mounted?)",
			what, path, strerror(errnum));
	else if (errnum == EACCES || errnum == EPERM)
		err_msg("%s %s: %s (grtrace needs root)", what, path,
			strerror(errnum));
	else
		err_msg("%s %s: %s", what, path, strerror(errnum));
}

int debugfs_read(const char *name, char *buf, size_t len)
{
	char path[4096];
	size_t off = 0;
	int fd;

	fd = open_setting(name, O_RDONLY, path);
	if (fd < 0) {
		err_debugfs(path, "cannot open");
		return -1;
	}
	while (off + 1 < len) {
		ssize_t n = read(fd, buf + off, len - 1 - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_debugfs(path, "cannot read");
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	buf[off] = '\0';
	close(fd);
	return 0;
}

char *debugfs_read_text(const char *name)
{
	char path[4096];
	uint8_t *buf;
	size_t len;
	int fd;

	fd = open_setting(name, O_RDONLY, path);
	if (fd < 0) {
		err_debugfs(path, "cannot open");
		return NULL;
	}
	if (read_all(fd, &buf, &len) < 0) {
		err_debugfs(path, "cannot read");
		close(fd);
		return NULL;
	}
	close(fd);
	buf = xrealloc(buf, len + 1);
	buf[len] = '\0';
	return (char *)buf;
}

unsigned int kernel_stream_format(void)
{
	char config[4096], path[4096], *v;
	struct mod_stats st;
	int found = 0;
	uint64_t f;

	/*
	 * The format of the records in the channels, where the module says
	 * (stats' stream_format): the config's may have changed since the
	 * session that wrote them stopped, and a read consumes them.
	 */
	debugfs_path(path, sizeof(path), "stats");
	if (!access(path, R_OK) && !stats_read(&st)) {
		f = stats_get(&st, "stream_format", &found);
		if (found && (f == GRTRACE_FORMAT_V1 || f == GRTRACE_FORMAT_V2))
			return (unsigned int)f;
	}
	debugfs_path(path, sizeof(path), "config");
	if (access(path, R_OK) || debugfs_read("config", config, sizeof(config)))
		return GRTRACE_FORMAT_V1;
	if (!strncmp(config, "format=", 7))
		return (unsigned int)strtoul(config + 7, NULL, 10);
	v = strstr(config, "\nformat=");
	return v ? (unsigned int)strtoul(v + 8, NULL, 10) : GRTRACE_FORMAT_V1;
}

int debugfs_write_twin(const char *name, const char *twin, const char *text,
		       char *path)
{
	int fd, err = 0;

	fd = open_setting_twin(name, twin, O_WRONLY | O_TRUNC, path);
	if (fd < 0)
		return -errno;
	if (write_all(fd, text, strlen(text)) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

int debugfs_write_quiet(const char *name, const char *text)
{
	char path[4096];

	return debugfs_write_twin(name, NULL, text, path);
}

int debugfs_write(const char *name, const char *text)
{
	char path[4096];
	int err = debugfs_write_quiet(name, text);

	if (!err)
		return 0;
	debugfs_path(path, sizeof(path), name);
	errno = -err;
	err_debugfs(path, err == -ENOENT || err == -EACCES || err == -EPERM ?
		    "cannot open" : "cannot write to");
	return -1;
}

int control_state(void)
{
	char buf[64];
	size_t n;

	if (debugfs_read("control", buf, sizeof(buf)) < 0)
		return -1;
	n = strcspn(buf, "\r\n");
	buf[n] = '\0';
	if (!strcmp(buf, "started"))
		return 1;
	if (!strcmp(buf, "stopped"))
		return 0;
	err_msg("%s/control: unexpected state '%s'", debugfs_dir(), buf);
	return -1;
}

int control_write(const char *cmd)
{
	return debugfs_write("control", cmd);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int list_event_files(unsigned int *cpus, int max)
{
	static int said_too_high;
	const char *dir = debugfs_dir();
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		err_debugfs(dir, "cannot open");
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		const char *p = de->d_name;
		unsigned long v;
		char *end;

		if (strncmp(p, "events", 6) || p[6] < '0' || p[6] > '9')
			continue;
		errno = 0;
		v = strtoul(p + 6, &end, 10);
		if (*end || errno)
			continue;
		/*
		 * A record's header names its CPU in 16 bits.  Said once: record
		 * lists the files again for CPUs that come online.
		 */
		if (v > UINT16_MAX) {
			if (!said_too_high)
				err_msg("%s/%s: a CPU id above %u, which the stream cannot name: not read",
					dir, p, UINT16_MAX);
			said_too_high = 1;
			continue;
		}
		if (n == max) {
			err_msg("%s: more than %d events files", dir, max);
			closedir(d);
			return -1;
		}
		cpus[n++] = (unsigned int)v;
	}
	closedir(d);
	if (!n) {
		err_msg("no events<cpu> files in %s: tracing was never started since grtrace.ko was loaded (the first start allocates the buffers)",
			dir);
		return -1;
	}
	qsort(cpus, (size_t)n, sizeof(*cpus), cmp_uint);
	return n;
}

int stats_read(struct mod_stats *st)
{
	char buf[8192], *line, *save = NULL;

	st->n = 0;
	if (debugfs_read("stats", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '='), *end;
		unsigned long long v;

		if (!eq || eq == line || (size_t)(eq - line) >= sizeof(st->ent[0].key))
			continue;
		errno = 0;
		v = strtoull(eq + 1, &end, 0);
		if (errno || end == eq + 1)
			continue;
		if (st->n == MOD_STATS_MAX)
			break;
		memcpy(st->ent[st->n].key, line, (size_t)(eq - line));
		st->ent[st->n].key[eq - line] = '\0';
		st->ent[st->n].val = v;
		st->n++;
	}
	return 0;
}

uint64_t stats_get(const struct mod_stats *st, const char *key, int *found)
{
	int i;

	for (i = 0; i < st->n; i++) {
		if (!strcmp(st->ent[i].key, key)) {
			if (found)
				*found = 1;
			return st->ent[i].val;
		}
	}
	if (found)
		*found = 0;
	return 0;
}

int finish_stdout(void)
{
	if (fflush(stdout) != 0) {
		err_errno("error writing to standard output");
		return 1;
	}
	if (ferror(stdout)) {
		err_msg("error writing to standard output");
		return 1;
	}
	return 0;
}

int parse_buffer_size(const char *s, uint64_t *bytes)
{
	const unsigned long long min = 64ull << 10, max = 256ull << 20,
				 step = 32ull << 10;
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	end += !!shift;
	/* Checked before the shift, which would wrap a huge count round. */
	if (*s < '0' || *s > '9' || errno || *end || v > max >> shift)
		return -1;
	v <<= shift;
	if (v < min || v % step)
		return -1;
	*bytes = v;
	return 0;
}
