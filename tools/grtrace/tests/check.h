/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check.h - the unit tests' checks and TAP lines, shared by the
 * library's (lib/tests/test-stream.c) and the tool's
 * (tests/test-drm-clients.c): CHECK*() note a failure with its place,
 * run() prints one "ok"/"not ok" line per test function, and
 * "failures" counts the tests that failed.
 */
#ifndef GRTRACE_TESTS_CHECK_H
#define GRTRACE_TESTS_CHECK_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int failures;
static int cur_failed;

static void check_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	cur_failed = 1;
}

#define CHECK(cond) do {						\
	if (!(cond))							\
		check_fail(__FILE__, __LINE__, "check failed: %s", #cond); \
} while (0)

#define CHECK_U64(a, b) do {						\
	uint64_t a_ = (a), b_ = (b);					\
	if (a_ != b_)							\
		check_fail(__FILE__, __LINE__, "%s == %" PRIu64		\
			   ", expected %" PRIu64, #a, a_, b_);		\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *a_ = (a), *b_ = (b);				\
	if (strcmp(a_, b_))						\
		check_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", \
			   #a, a_, b_);					\
} while (0)

static void run(const char *name, void (*fn)(void))
{
	cur_failed = 0;
	fn();
	printf("%s %s\n", cur_failed ? "not ok" : "ok", name);
	fflush(stdout);
	if (cur_failed)
		failures++;
}

#endif
