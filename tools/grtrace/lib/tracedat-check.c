// SPDX-License-Identifier: GPL-2.0
/*
 * libgrtrace: the sizes a trace-cmd trace.dat states, checked against the
 * file (tracedat.h).  No libtracecmd here: the fuzz target links it.
 */
#include <stdint.h>
#include <string.h>

#include "tracedat.h"

struct cur {
	const uint8_t *p;
	size_t len, at;
};

static int skip(struct cur *c, size_t n)
{
	if (n > c->len - c->at)
		return -1;
	c->at += n;
	return 0;
}

static int skip_str(struct cur *c)
{
	const uint8_t *z = memchr(c->p + c->at, 0, c->len - c->at);

	if (!z)
		return -1;
	c->at = (size_t)(z - c->p) + 1;
	return 0;
}

static int get(struct cur *c, unsigned int size, uint64_t *v)
{
	uint64_t x = 0;
	unsigned int i;

	if (size > c->len - c->at)
		return -1;
	for (i = 0; i < size; i++)
		x |= (uint64_t)c->p[c->at + i] << (8 * i);
	c->at += size;
	*v = x;
	return 0;
}

/* Skip a block of data whose size comes first, in @size bytes. */
static int skip_sized(struct cur *c, unsigned int size)
{
	uint64_t n;

	return get(c, size, &n) || skip(c, n);
}

static const char *check_v6(struct cur *c)
{
	uint64_t n, m, cpus, off, size, opt;

	/* version, endianness, long size, page size, header_page/event */
	if (skip_str(c) || skip(c, 6) || skip_str(c) || skip_sized(c, 8) ||
	    skip_str(c) || skip_sized(c, 8))
		return "its headers are cut short";
	if (get(c, 4, &n))
		return "its headers are cut short";
	while (n--)
		if (skip_sized(c, 8))
			return "its ftrace event formats are cut short";
	if (get(c, 4, &n))
		return "its event formats are cut short";
	while (n--) {
		if (skip_str(c) || get(c, 4, &m))
			return "its event formats are cut short";
		while (m--)
			if (skip_sized(c, 8))
				return "its event formats are cut short";
	}
	if (skip_sized(c, 4) || skip_sized(c, 4) || skip_sized(c, 8) ||
	    get(c, 4, &cpus) || c->len - c->at < 10)
		return "its headers are cut short";
	if (!memcmp(c->p + c->at, "options  ", 10)) {
		c->at += 10;
		do {
			if (get(c, 2, &opt) || (opt && skip_sized(c, 4)))
				return "its options are cut short";
		} while (opt);
	}
	if (c->len - c->at < 10)
		return "its headers are cut short";
	if (memcmp(c->p + c->at, "flyrecord", 10))
		return NULL;	/* latency: text, whatever its length */
	c->at += 10;
	while (cpus--) {
		if (get(c, 8, &off) || get(c, 8, &size))
			return "its CPU table is cut short";
		if (off > c->len || size > c->len - off)
			return "its CPU data is cut short (the file is truncated)";
	}
	return NULL;
}

const char *gr_tracedat_check(const void *buf, size_t len)
{
	struct cur c = { .p = buf, .len = len, .at = 10 };

	if (len < 12 || memcmp(buf, "\x17\x08\x44tracing", 10))
		return "its first header is cut short";
	if (!memcmp(c.p + 10, "6", 2))
		return check_v6(&c);
	/* 7: version, endianness, long size, page size, compression, offset */
	if (skip_str(&c) || skip(&c, 6) || skip_str(&c) || skip_str(&c) ||
	    skip(&c, 8))
		return "its first header is cut short";
	return NULL;
}
