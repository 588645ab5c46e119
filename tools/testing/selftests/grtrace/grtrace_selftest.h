/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the grtrace selftests: loading the module, reading and
 * writing its debugfs files, and reading and merging its per-CPU streams.
 * Include after kselftest_harness.h.
 */
#ifndef GRTRACE_SELFTEST_H
#define GRTRACE_SELFTEST_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/grtrace.h>

#define DIR		"/sys/kernel/debug/grtrace"
#define MAX_TRACE	(8 << 20)

/* Load grtrace.ko with exactly @params; 0 or -errno. */
static inline int load_module_raw(const char *params)
{
	const char *ko = getenv("GRTRACE_KO");
	int fd, ret;

	if (!ko)
		ko = "../../../../drivers/gpu/grtrace/grtrace.ko";
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, params, 0);
	close(fd);
	return ret ? -errno : 0;
}

static inline int unload_module(void)
{
	return syscall(__NR_delete_module, "grtrace", O_NONBLOCK) ? -errno : 0;
}

static inline int put(const char *file, const char *text);

/*
 * The config a test file's modules start with.  These helpers read format
 * 1 with gseq (merge() below); grtrace_v2_test.c sets its own.
 */
#ifndef GRTRACE_TEST_CONFIG
#define GRTRACE_TEST_CONFIG	"format=1\ngseq=1"
#endif

/*
 * Load grtrace.ko with @params and the emit file the tests need, and
 * apply GRTRACE_TEST_CONFIG; 0 or -errno.
 */
static inline int load_module(const char *params)
{
	char p[256];
	int ret;

	snprintf(p, sizeof(p), "emit_enable=1 %s", params);
	ret = load_module_raw(p);
	if (ret || !*GRTRACE_TEST_CONFIG)
		return ret;
	ret = put("config", GRTRACE_TEST_CONFIG);
	if (ret)
		unload_module();
	return ret;
}

/* Returns 0, -errno of the write, or -EPROTO if it took less than all. */
static inline int put(const char *file, const char *text)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), DIR "/%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		n = -errno;
	/* A control file takes all of a write or fails it: anything else is a bug. */
	else if ((size_t)n != strlen(text))
		n = -EPROTO;
	close(fd);
	return n < 0 ? n : 0;
}

static inline int get(const char *file, char *buf, size_t size)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), DIR "/%s", file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Value of the line "key=..." of a key=value @file, or -1. */
static inline long long value_of(const char *file, const char *key)
{
	char buf[8192], pat[64], *p;

	if (get(file, buf + 1, sizeof(buf) - 1))
		return -1;
	buf[0] = '\n';
	snprintf(pat, sizeof(pat), "\n%s=", key);
	p = strstr(buf, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* Value of "key=" in stats, or -1. */
static inline long long stat_of(const char *key)
{
	return value_of("stats", key);
}

/*
 * Compare @len bytes at @buf with the golden vector @name; the offset of
 * the first difference, or @len when they are equal; -1 if the vector
 * cannot be read or has another length.
 */
static inline long golden_diff(const char *name, const unsigned char *buf,
			       size_t len)
{
	unsigned char *gold = malloc(65536);
	ssize_t glen = -1;
	size_t off = 0;
	int fd;

	fd = gold ? open(name, O_RDONLY) : -1;
	if (fd >= 0) {
		glen = read(fd, gold, 65536);
		close(fd);
	}
	if (glen < 0 || (size_t)glen != len) {
		free(gold);
		return -1;
	}
	while (off < len && gold[off] == buf[off])
		off++;
	free(gold);
	return off;
}

static inline int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static inline int nr_channels(void)
{
	char path[256];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), DIR "/events%d", n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

struct trace {
	unsigned char *buf[64];
	size_t len[64];
	int nr;
};

/* Drain every channel; returns total bytes or -errno. */
static inline long read_trace(struct trace *t)
{
	long total = 0;
	int cpu;

	t->nr = nr_channels();
	for (cpu = 0; cpu < t->nr && cpu < 64; cpu++) {
		char path[256];
		ssize_t n;
		int fd;

		t->buf[cpu] = malloc(MAX_TRACE);
		t->len[cpu] = 0;
		snprintf(path, sizeof(path), DIR "/events%d", cpu);
		fd = open(path, O_RDONLY);
		if (fd < 0 || !t->buf[cpu])
			return -ENOENT;
		/* Odd-sized reads exercise records split across reads. */
		while ((n = read(fd, t->buf[cpu] + t->len[cpu], 1000)) > 0)
			t->len[cpu] += n;
		close(fd);
		if (n < 0)
			return -errno;
		total += t->len[cpu];
	}
	return total;
}

static inline void free_trace(struct trace *t)
{
	int cpu;

	for (cpu = 0; cpu < t->nr && cpu < 64; cpu++)
		free(t->buf[cpu]);
}

/* Record at @off of channel @cpu, or NULL past the end. */
static inline struct grtrace_hdr *rec_at(struct trace *t, int cpu, size_t off)
{
	if (off + sizeof(struct grtrace_hdr) > t->len[cpu])
		return NULL;
	return (struct grtrace_hdr *)(t->buf[cpu] + off);
}

/*
 * Merge the channels by gseq.  Calls @fn on each record in order; checks
 * that every record is well formed and that gseq strictly increases.
 * Returns the number of records, or -1 on a malformed stream.
 */
static inline long merge(struct trace *t,
			 void (*fn)(struct grtrace_hdr *h, void *arg), void *arg)
{
	size_t pos[64] = { 0 };
	long n = 0;
	__u64 last = 0;

	for (;;) {
		struct grtrace_hdr *best = NULL, *h;
		int cpu, best_cpu = -1;

		for (cpu = 0; cpu < t->nr; cpu++) {
			h = rec_at(t, cpu, pos[cpu]);
			if (!h)
				continue;
			if (h->size < sizeof(*h) || h->size % 8 ||
			    pos[cpu] + h->size > t->len[cpu] || h->cpu != cpu)
				return -1;
			if (!best || h->gseq < best->gseq) {
				best = h;
				best_cpu = cpu;
			}
		}
		if (!best)
			return n;
		if (n && best->gseq <= last)
			return -1;
		last = best->gseq;
		pos[best_cpu] += best->size;
		if (fn)
			fn(best, arg);
		n++;
	}
}

struct collect {
	struct grtrace_hdr *rec[4096];
	long n;
};

static inline void collect_fn(struct grtrace_hdr *h, void *arg)
{
	struct collect *c = arg;

	if (c->n < 4096)
		c->rec[c->n] = h;
	c->n++;
}

/* Emit @n copies of @line (no newline) in batches; 0 or -errno. */
static inline int emit_n(const char *line, int n)
{
	char buf[4096];
	size_t len = strlen(line) + 1, used;
	int ret;

	while (n > 0) {
		for (used = 0; n > 0 && used + len < sizeof(buf); n--) {
			memcpy(buf + used, line, len - 1);
			buf[used + len - 1] = '\n';
			used += len;
		}
		buf[used] = '\0';
		ret = put("emit", buf);
		if (ret)
			return ret;
	}
	return 0;
}

/* Value of "key=" on the pc_stats line of @cpu, or -1. */
static inline long long pc_stat_of(int cpu, const char *key)
{
	static char buf[65536];
	char pat[80], *line, *p;

	if (get("pc_stats", buf, sizeof(buf)))
		return -1;
	snprintf(pat, sizeof(pat), "cpu=%d ", cpu);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, pat, strlen(pat)))
			continue;
		snprintf(pat, sizeof(pat), " %s=", key);
		p = strstr(line, pat);
		return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
	}
	return -1;
}

/* Every test starts from a freshly loaded module pinned to CPU 0. */
FIXTURE(grtrace) {
	int loaded;
};

FIXTURE_SETUP(grtrace)
{
	int ret;

	ASSERT_EQ(0, pin_cpu(0));
	unload_module();
	ret = load_module("");
	ASSERT_EQ(0, ret) TH_LOG("insmod grtrace.ko: %s", strerror(-ret));
	self->loaded = 1;
}

FIXTURE_TEARDOWN(grtrace)
{
	if (self->loaded)
		EXPECT_EQ(0, unload_module());
}

/* The environment, not grtrace, decides these two skips. */
static inline int grtrace_selftest_main(int argc, char **argv)
{
	if (geteuid())
		ksft_exit_skip("grtrace selftests must run as root\n");
	if (access("/sys/kernel/debug/", F_OK))
		ksft_exit_skip("debugfs is not mounted\n");
	return test_harness_run(argc, argv);
}

#endif /* GRTRACE_SELFTEST_H */
