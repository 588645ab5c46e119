// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: the trace file written by "grtrace record" (see trace-file.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "stream.h"
#include "trace-file.h"

int grf_is_header(const uint8_t *buf, size_t len)
{
	return len >= GRF_MAGIC_LEN && !memcmp(buf, GRF_MAGIC, GRF_MAGIC_LEN);
}

/* Copy a value up to its newline into @dst (@len bytes), NUL-terminated. */
static void copy_value(char *dst, size_t len, const char *v, const char *end)
{
	size_t n = (size_t)(end - v);

	if (n >= len)
		n = len - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

int grf_parse_header(const uint8_t *buf, size_t len, struct grf_header *h,
		     char *why, size_t whylen)
{
	const char *line, *end;

	memset(h, 0, sizeof(*h));
	if (len < GRF_FIXED_SIZE) {
		snprintf(why, whylen, "the file ends inside the header (%zu of %u bytes)",
			 len, GRF_FIXED_SIZE);
		return -1;
	}
	if (!grf_is_header(buf, len)) {
		snprintf(why, whylen, "no GRTRACE magic");
		return -1;
	}
	h->size = gr_le32(buf + 8);
	h->version = gr_le16(buf + 12);
	h->flags = gr_le16(buf + 14);
	h->stream_format = gr_le32(buf + 16);
	h->nr_cpus = gr_le32(buf + 20);
	if (h->version < GRF_VERSION_MIN || h->version > GRF_VERSION) {
		snprintf(why, whylen, "file version %u, this grtrace reads versions %u to %u",
			 h->version, GRF_VERSION_MIN, GRF_VERSION);
		return -1;
	}
	if (h->size < GRF_FIXED_SIZE || h->size > GRF_HEADER_MAX || h->size % 8) {
		snprintf(why, whylen, "header size %" PRIu32 " is not a multiple of 8 in [%u, %u]",
			 h->size, GRF_FIXED_SIZE, GRF_HEADER_MAX);
		return -1;
	}
	if (h->size > len) {
		snprintf(why, whylen, "the file ends inside the header (%zu of %" PRIu32 " bytes)",
			 len, h->size);
		return -1;
	}
	if (h->stream_format < GRTRACE_FORMAT_V1 ||
	    h->stream_format > GRTRACE_FORMAT_VERSION) {
		snprintf(why, whylen, "stream format %" PRIu32 ", this grtrace reads formats %d to %d",
			 h->stream_format, GRTRACE_FORMAT_V1, GRTRACE_FORMAT_VERSION);
		return -1;
	}
	/* key=value lines up to the first NUL; keys not known are skipped. */
	line = (const char *)buf + GRF_FIXED_SIZE;
	end = memchr(line, '\0', h->size - GRF_FIXED_SIZE);
	if (!end) {
		snprintf(why, whylen, "header text is not NUL-terminated");
		return -1;
	}
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eq;

		if (!nl)
			nl = end;
		eq = memchr(line, '=', (size_t)(nl - line));
		if (eq) {
			size_t k = (size_t)(eq - line);

			if (k == 6 && !memcmp(line, "kernel", 6))
				copy_value(h->kernel, sizeof(h->kernel), eq + 1, nl);
			else if (k == 4 && !memcmp(line, "host", 4))
				copy_value(h->host, sizeof(h->host), eq + 1, nl);
			else if (k == 5 && !memcmp(line, "clock", 5))
				copy_value(h->clock, sizeof(h->clock), eq + 1, nl);
			else if (k == 7 && !memcmp(line, "session", 7))
				h->session = strtoull(eq + 1, NULL, 10);
			else if (k == 7 && !memcmp(line, "started", 7))
				h->started = strtoull(eq + 1, NULL, 10);
		}
		line = nl + 1;
	}
	return 0;
}

int grf_parse_frame(const uint8_t *buf, size_t len, struct grf_frame *f,
		    char *why, size_t whylen)
{
	if (len < GRF_FRAME_SIZE) {
		snprintf(why, whylen, "the file ends inside a frame header (%zu of %u bytes)",
			 len, GRF_FRAME_SIZE);
		return -1;
	}
	if (memcmp(buf, GRF_FRAME_MAGIC, 4)) {
		snprintf(why, whylen, "no frame here (bytes %02x %02x %02x %02x, not \"GRFR\")",
			 buf[0], buf[1], buf[2], buf[3]);
		return -1;
	}
	f->cpu = gr_le16(buf + 4);
	f->flags = gr_le16(buf + 6);
	f->stored = gr_le32(buf + 8);
	f->raw = gr_le32(buf + 12);
	/* Records, maybe compressed, or one kind of table, never compressed. */
	switch (f->flags) {
	case 0:
	case GRF_FRAME_ZSTD:
	case GRF_FRAME_TASKS:
	case GRF_FRAME_CLIENTS:
	case GRF_FRAME_TAIL:
	case GRF_FRAME_HEAD:
		break;
	default:
		snprintf(why, whylen, "frame of CPU %u has unknown flags 0x%x",
			 f->cpu, f->flags);
		return -1;
	}
	if (f->raw > GRF_FRAME_MAX || f->stored > GRF_FRAME_MAX) {
		snprintf(why, whylen, "frame of CPU %u holds %" PRIu32 " bytes, more than the %u a frame may",
			 f->cpu, f->raw > f->stored ? f->raw : f->stored,
			 GRF_FRAME_MAX);
		return -1;
	}
	if (!(f->flags & GRF_FRAME_ZSTD) && f->stored != f->raw) {
		snprintf(why, whylen, "uncompressed frame of CPU %u stores %" PRIu32 " bytes but says %" PRIu32,
			 f->cpu, f->stored, f->raw);
		return -1;
	}
	if (!f->raw) {
		snprintf(why, whylen, "empty frame of CPU %u", f->cpu);
		return -1;
	}
	if ((f->flags & GRF_FRAME_TASKS) && f->raw % GRF_TASK_SIZE) {
		snprintf(why, whylen, "task table of %" PRIu32 " bytes, not whole %u-byte entries",
			 f->raw, GRF_TASK_SIZE);
		return -1;
	}
	if ((f->flags & GRF_FRAME_CLIENTS) && f->raw % GRF_CLIENT_SIZE) {
		snprintf(why, whylen, "client table of %" PRIu32 " bytes, not whole %u-byte entries",
			 f->raw, GRF_CLIENT_SIZE);
		return -1;
	}
	if ((f->flags & (GRF_FRAME_TAIL | GRF_FRAME_HEAD)) &&
	    f->raw % GRF_TAIL_SIZE) {
		snprintf(why, whylen, "CPU %s table of %" PRIu32 " bytes, not whole %u-byte entries",
			 f->flags & GRF_FRAME_TAIL ? "tail" : "head", f->raw,
			 GRF_TAIL_SIZE);
		return -1;
	}
	if (f->stored > len - GRF_FRAME_SIZE) {
		snprintf(why, whylen, "the file ends inside a frame of CPU %u (%zu of %" PRIu32 " bytes)",
			 f->cpu, len - GRF_FRAME_SIZE, f->stored);
		return -1;
	}
	return 0;
}

/* "key=value\n" with the value's control bytes made '?'. */
static size_t put_kv(char *dst, size_t room, const char *key, const char *val)
{
	size_t n = 0, k = strlen(key), i;

	if (k + 2 + strlen(val) >= room)
		return 0;
	memcpy(dst, key, k);
	n = k;
	dst[n++] = '=';
	for (i = 0; val[i]; i++)
		dst[n++] = (unsigned char)val[i] < ' ' || val[i] == 0x7f ? '?' : val[i];
	dst[n++] = '\n';
	return n;
}

size_t grf_encode_header(const struct grf_header *h, uint8_t *buf)
{
	char *text = (char *)buf + GRF_FIXED_SIZE, num[32];
	size_t room = GRF_HEADER_MAX - GRF_FIXED_SIZE - 1, n = 0, size;

	memset(buf, 0, GRF_HEADER_MAX);
	memcpy(buf, GRF_MAGIC, GRF_MAGIC_LEN);
	n += put_kv(text + n, room - n, "kernel", h->kernel);
	n += put_kv(text + n, room - n, "host", h->host);
	n += put_kv(text + n, room - n, "clock", h->clock);
	snprintf(num, sizeof(num), "%" PRIu64, h->session);
	n += put_kv(text + n, room - n, "session", num);
	snprintf(num, sizeof(num), "%" PRIu64, h->started);
	n += put_kv(text + n, room - n, "started", num);
	/* The text's NUL, then padding to 8. */
	size = (GRF_FIXED_SIZE + n + 1 + 7) & ~(size_t)7;
	gr_put32(buf + 8, (uint32_t)size);
	gr_put16(buf + 12, GRF_VERSION);
	gr_put16(buf + 14, h->flags);
	gr_put32(buf + 16, h->stream_format);
	gr_put32(buf + 20, h->nr_cpus);
	return size;
}

void grf_encode_frame(const struct grf_frame *f, uint8_t *buf)
{
	memcpy(buf, GRF_FRAME_MAGIC, 4);
	gr_put16(buf + 4, f->cpu);
	gr_put16(buf + 6, f->flags);
	gr_put32(buf + 8, f->stored);
	gr_put32(buf + 12, f->raw);
}

void grf_encode_task(const struct grf_task *t, uint8_t *buf)
{
	memset(buf, 0, GRF_TASK_SIZE);
	gr_put32(buf, t->pid);
	gr_put32(buf + 4, t->tid);
	memcpy(buf + 8, t->comm, strnlen(t->comm, GRF_COMM_LEN));
	memcpy(buf + 8 + GRF_COMM_LEN, t->process,
	       strnlen(t->process, GRF_COMM_LEN));
}

void grf_parse_task(const uint8_t *buf, struct grf_task *t)
{
	t->pid = gr_le32(buf);
	t->tid = gr_le32(buf + 4);
	memcpy(t->comm, buf + 8, GRF_COMM_LEN);
	t->comm[GRF_COMM_LEN] = 0;
	memcpy(t->process, buf + 8 + GRF_COMM_LEN, GRF_COMM_LEN);
	t->process[GRF_COMM_LEN] = 0;
}

int grf_task_cmp(const void *a, const void *b)
{
	const struct grf_task *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

const struct grf_task *grf_find_task(const struct grf_task *t, size_t n,
				     uint32_t tid)
{
	struct grf_task key = { .tid = tid };

	return n ? bsearch(&key, t, n, sizeof(key), grf_task_cmp) : NULL;
}

void grf_encode_tail(const struct grf_tail *t, uint8_t *buf)
{
	memset(buf, 0, GRF_TAIL_SIZE);
	gr_put32(buf, t->cpu);
	gr_put64(buf + 8, t->next);
}

void grf_parse_tail(const uint8_t *buf, struct grf_tail *t)
{
	t->cpu = gr_le32(buf);
	t->next = gr_le64(buf + 8);
}

void grf_encode_client(const struct grf_client *c, uint8_t *buf)
{
	memset(buf, 0, GRF_CLIENT_SIZE);
	gr_put64(buf, c->id);
	gr_put32(buf + 8, c->pid);
	memcpy(buf + 16, c->process, strnlen(c->process, GRF_COMM_LEN));
}

void grf_parse_client(const uint8_t *buf, struct grf_client *c)
{
	c->id = gr_le64(buf);
	c->pid = gr_le32(buf + 8);
	/* Bytes 12..15 are reserved: a later version may use them. */
	memcpy(c->process, buf + 16, GRF_COMM_LEN);
	c->process[GRF_COMM_LEN] = 0;
}

int grf_client_cmp(const void *a, const void *b)
{
	const struct grf_client *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

const struct grf_client *grf_find_client(const struct grf_client *c,
					 size_t n, uint64_t id)
{
	struct grf_client key = { .id = id };

	return n ? bsearch(&key, c, n, sizeof(key), grf_client_cmp) : NULL;
}

int grf_decompress(void *dst, size_t raw, const void *src, size_t stored,
		   char *why, size_t whylen)
{
	size_t n = ZSTD_decompress(dst, raw, src, stored);

	if (ZSTD_isError(n)) {
		snprintf(why, whylen, "zstd: %s", ZSTD_getErrorName(n));
		return -1;
	}
	if (n != raw) {
		snprintf(why, whylen, "decompressed to %zu bytes, the frame says %zu",
			 n, raw);
		return -1;
	}
	return 0;
}

static __thread ZSTD_CCtx *grf_cctx;
static __thread void *grf_zbuf;
static __thread size_t grf_zcap;

long grf_compress(const void *src, size_t len, int level, void **outp)
{
	size_t bound = ZSTD_compressBound(len), n;

	if (!grf_cctx) {
		grf_cctx = ZSTD_createCCtx();
		if (!grf_cctx)
			return -1;
	}
	if (bound > grf_zcap) {
		void *nb = realloc(grf_zbuf, bound);

		if (!nb)
			return -1;
		grf_zbuf = nb;
		grf_zcap = bound;
	}
	n = ZSTD_compressCCtx(grf_cctx, grf_zbuf, grf_zcap, src, len, level);
	if (ZSTD_isError(n) || n >= len)
		return -1;
	*outp = grf_zbuf;
	return (long)n;
}

void grf_compress_done(void)
{
	ZSTD_freeCCtx(grf_cctx);
	free(grf_zbuf);
	grf_cctx = NULL;
	grf_zbuf = NULL;
	grf_zcap = 0;
}
