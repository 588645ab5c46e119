// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libgrtrace's insides: the stream decoder, the format 2
 * conversion and the trace file's tables.  Library code (lib/tests/): it
 * may use the private headers, which the tool may not.
 *
 * Usage: test-stream GOLDEN_DIR
 *
 * Prints one "ok NAME" or "not ok NAME" line per test, with "# ..."
 * diagnostics; tests/run-tests.sh numbers them into TAP.  Every buffer
 * handed to the decoder is malloc'd at its exact length so that the
 * sanitizers catch any read past its end.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../stream.h"
#include "../trace-file.h"
#include "../../tests/check.h"

static const char *golden_dir;

/* ---- helpers ---------------------------------------------------------- */

static uint8_t *dup_exact(const uint8_t *p, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);

	if (!q) {
		perror("malloc");
		exit(2);
	}
	if (len)
		memcpy(q, p, len);
	return q;
}

static uint8_t *load_golden(const char *name, size_t *lenp)
{
	char path[4096];
	uint8_t *buf = NULL;
	size_t len = 0;
	long size;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", golden_dir, name);
	f = fopen(path, "rb");
	if (!f) {
		printf("# cannot open %s: %s\n", path, strerror(errno));
		cur_failed = 1;
		*lenp = 0;
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0) {
		rewind(f);
		buf = malloc((size_t)size);
		if (buf)
			len = fread(buf, 1, (size_t)size, f);
	}
	fclose(f);
	if (!buf || len == 0) {
		printf("# cannot read %s\n", path);
		cur_failed = 1;
		free(buf);
		*lenp = 0;
		return NULL;
	}
	*lenp = len;
	return buf;
}


/* A builder for synthetic streams, independent of the decoder. */
struct sb {
	uint8_t buf[4096];
	size_t len;
};

/* Append a record of @size bytes (header filled, payload zero). */
static uint8_t *sb_rec(struct sb *b, uint16_t type, uint16_t size,
		       uint64_t gseq)
{
	uint8_t *p = b->buf + b->len;
	/* odd and huge sizes get just a header */
	size_t body = size < 32 || size > 1024 ? 32 : size;

	memset(p, 0, body);
	gr_put16(p, type);
	gr_put16(p + 2, size);
	gr_put16(p + 4, 3);		/* cpu */
	gr_put64(p + 8, 1000 + gseq);	/* ts */
	gr_put64(p + 16, gseq);
	gr_put64(p + 24, gseq);		/* cseq */
	b->len += body;
	return p;
}

static uint8_t *sb_job(struct sb *b, uint16_t type, uint16_t size,
		       uint64_t gseq)
{
	uint8_t *p = sb_rec(b, type, size, gseq);

	gr_put64(p + 32, 77);		/* ctx */
	gr_put64(p + 40, 5);		/* seqno */
	gr_put32(p + 48, 2);		/* ring_id */
	gr_put16(p + 52, 3);		/* engine: copy */
	gr_put64(p + 56, (uint64_t)-62);	/* aux0 */
	gr_put64(p + 64, 9);		/* aux1 */
	return p;
}

/* Iterate a copy of @len bytes of @p; returns records seen. */
static int walk(const uint8_t *p, size_t len, struct gr_iter *it,
		struct gr_rec *recs, int max, int *retp)
{
	uint8_t *copy = dup_exact(p, len);
	struct gr_rec rec;
	int n = 0, ret;

	gr_iter_init(it, copy, len);
	while ((ret = gr_iter_next(it, &rec)) > 0) {
		if (n < max) {
			recs[n] = rec;
			recs[n].data = NULL;	/* copy is freed below */
		}
		n++;
	}
	*retp = ret;
	/* A failed iterator stays failed. */
	if (ret < 0 && gr_iter_next(it, &rec) != -1)
		check_fail(__FILE__, __LINE__, "iterator did not stay failed");
	free(copy);
	return n;
}

/* ---- tests ------------------------------------------------------------- */

static void test_golden_emit_basic(void)
{
	static const uint16_t types[] = {
		0x100, 0x101, 1, 2, 3, 4, 5, 8, 9, 10,
	};
	struct gr_stream_info si;
	struct gr_metadata md;
	struct gr_job job;
	struct gr_iter it;
	struct gr_rec rec;
	uint8_t *buf;
	size_t len;
	int n = 0;

	buf = load_golden("emit-basic.bin", &len);
	if (!buf)
		return;
	CHECK_U64(len, 64 + 104 + 8 * 72);
	gr_iter_init(&it, buf, len);
	while (gr_iter_next(&it, &rec) > 0) {
		if (n >= 10) {
			n++;
			continue;
		}
		CHECK_U64(rec.type, types[n]);
		CHECK_U64(rec.gseq, (uint64_t)n);
		CHECK_U64(rec.cseq, (uint64_t)n);
		CHECK_U64(rec.ts, 0);
		CHECK_U64(rec.cpu, 0);
		CHECK_U64(rec.flags, 0);
		if (n == 0) {
			CHECK(gr_decode_stream_info(&rec, &si) == 0);
			CHECK_U64(si.magic, GRTRACE_MAGIC);
			CHECK_U64(si.version, 1);
			CHECK_U64(si.hdr_size, 32);
			CHECK_U64(si.clock_id, GRTRACE_CLOCK_MONOTONIC);
			CHECK_U64(si.nr_cpus, 0);
			CHECK_U64(si.features, GRTRACE_FEAT_GSEQ | GRTRACE_FEAT_CSEQ |
				  GRTRACE_FEAT_RING_REC | GRTRACE_FEAT_DERIVED |
				  GRTRACE_FEAT_CSEQ_LOSS | GRTRACE_FEAT_CLIENT);
			CHECK_U64(si.session_id, 1);
			CHECK(gr_decode_job(&rec, &job) == -1);
		} else if (n == 1) {
			CHECK(gr_decode_metadata(&rec, &md) == 0);
			CHECK_U64(md.nr_rings, 0);
			CHECK_U64(md.ring_size, 80);
			CHECK_STR(md.kernel, "");
		} else {
			CHECK(gr_decode_job(&rec, &job) == 0);
			CHECK_U64(job.ctx, n == 9 ? 101 : 100);
			CHECK_U64(job.engine, n == 9 ? 2 : 1);
			CHECK_U64(job.ring_id, n == 9 ? 1 : 0);
			CHECK_U64(job.seqno, n == 9 ? 5 : n >= 7 ? 2 : 1);
			CHECK_U64(job.aux0, n == 9 ? (uint64_t)-62 :
					    n >= 7 ? 200 : 0);
			CHECK_U64(job.aux1, n == 7 || n == 8 ? 7 : 0);
			CHECK_U64(job.reserved, 0);
		}
		n++;
	}
	CHECK_U64(n, 10);
	CHECK(it.status == GR_ERR_NONE);
	free(buf);
}

static void test_golden_rings(void)
{
	struct gr_metadata md;
	struct gr_ring ring;
	struct gr_job job;
	struct gr_iter it;
	struct gr_rec recs[16];
	uint8_t *buf;
	size_t len;
	int n, ret;

	buf = load_golden("rings.bin", &len);
	if (!buf)
		return;
	n = walk(buf, len, &it, recs, 16, &ret);
	CHECK_U64(n, 7);
	CHECK(ret == 0);
	gr_iter_init(&it, buf, len);
	for (n = 0; n < 7 && gr_iter_next(&it, &recs[n]) > 0; n++)
		;
	CHECK_U64(n, 7);
	if (n != 7)
		goto out;

	CHECK_U64(recs[1].type, GRTRACE_REC_METADATA);
	CHECK(gr_decode_metadata(&recs[1], &md) == 0);
	CHECK_U64(md.nr_rings, 2);
	CHECK_U64(md.ring_size, 80);
	CHECK_STR(md.kernel, "6.1.0-grtrace-test");
	CHECK(gr_decode_metadata_ring(&recs[1], &md, 1, &ring) == 0);
	CHECK_U64(ring.ring_id, 1);
	CHECK_U64(ring.engine, GRTRACE_ENGINE_COPY);
	CHECK_STR(ring.driver, "amdgpu");
	CHECK_STR(ring.device, "0000:03:00.0");
	CHECK_STR(ring.name, "sdma0");
	CHECK(gr_decode_metadata_ring(&recs[1], &md, 2, &ring) == -1);

	/* SUBMIT of 80 bytes: trailing bytes ignored, next record after it */
	CHECK_U64(recs[2].type, GRTRACE_EV_SUBMIT);
	CHECK_U64(recs[2].size, 80);
	CHECK(gr_decode_job(&recs[2], &job) == 0);
	CHECK_U64(job.ctx, 42);
	CHECK_U64(job.seqno, 9);
	CHECK_U64(job.aux0, 0);
	CHECK_U64(job.aux1, 0);
	CHECK_U64(recs[3].offset, recs[2].offset + 80);

	CHECK_U64(recs[3].type, GRTRACE_REC_RING);
	CHECK(gr_decode_ring(&recs[3], &ring) == 0);
	CHECK_U64(ring.ring_id, 2);
	CHECK_U64(ring.instance, 1);
	CHECK_STR(ring.name, "vcn_dec_1");

	/* unknown type skipped by its size */
	CHECK_U64(recs[4].type, 0x7777);
	CHECK_U64(recs[4].size, 48);
	CHECK_U64(recs[5].offset, recs[4].offset + 48);
	CHECK_U64(recs[5].type, GRTRACE_EV_COMPLETE);
	/* Written with the END before it: flagged, the SUBMIT is not. */
	CHECK_U64(recs[5].flags, GRTRACE_HDR_DERIVED);
	CHECK_U64(recs[2].flags, 0);
out:
	free(buf);
}

/*
 * The record boundaries of golden NAME.bin from NAME.offsets, which
 * gen_golden.py wrote as it built the file: the start of every record, then
 * the file length, one decimal number a line.  Returns how many, or 0 (the
 * test failed) when the file is missing or does not describe a file of
 * @len bytes.
 */
static size_t load_offsets(const char *name, size_t len, size_t *bounds,
			   size_t max)
{
	char path[4096], line[64];
	size_t nb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%.*s.offsets", golden_dir,
		 (int)(strlen(name) - strlen(".bin")), name);
	f = fopen(path, "r");
	if (!f) {
		printf("# cannot open %s: %s\n", path, strerror(errno));
		cur_failed = 1;
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(line, &end, 10);
		if (errno || end == line || (*end != '\n' && *end) || nb == max ||
		    (nb && v <= bounds[nb - 1])) {
			printf("# %s: line %zu is not an offset above the one before\n",
			       path, nb + 1);
			nb = 0;
			break;
		}
		bounds[nb++] = (size_t)v;
	}
	fclose(f);
	if (nb < 2 || bounds[0] != 0 || bounds[nb - 1] != len) {
		printf("# %s does not describe the %zu bytes of %s\n", path, len,
		       name);
		cur_failed = 1;
		return 0;
	}
	return nb;
}

/*
 * Every prefix of a golden file either ends on a record boundary and
 * decodes cleanly, or fails as truncated at the start of the record the
 * cut falls in, after decoding exactly the records before it.  The
 * boundaries come from gen_golden.py, not from the decoder under test.
 */
static void truncate_every_length(const char *name)
{
	size_t len, bounds[64], nb, l;
	struct gr_iter it;
	struct gr_rec recs[1];
	uint8_t *buf;
	int bad = 0;

	buf = load_golden(name, &len);
	if (!buf)
		return;
	nb = load_offsets(name, len, bounds, 64);
	if (!nb) {
		free(buf);
		return;
	}

	for (l = 0; l <= len && bad < 5; l++) {
		size_t k = 0;
		int n, ret;

		while (k + 1 < nb && bounds[k + 1] <= l)
			k++;
		n = walk(buf, l, &it, recs, 0, &ret);
		if (bounds[k] == l) {
			if (ret != 0 || (size_t)n != k) {
				printf("# %s cut at %zu: ret %d, %d records, expected clean end after %zu\n",
				       name, l, ret, n, k);
				bad++;
			}
			continue;
		}
		if (ret != -1 || it.status != GR_ERR_TRUNCATED ||
		    it.err_offset != bounds[k] || (size_t)n != k ||
		    strncmp(it.errmsg, "truncated record at byte ", 25)) {
			printf("# %s cut at %zu: ret %d, %d records, status %d offset %" PRIu64 " msg '%s'; expected truncated at %zu after %zu\n",
			       name, l, ret, n, (int)it.status, it.err_offset,
			       it.errmsg, bounds[k], k);
			bad++;
		}
	}
	if (bad)
		cur_failed = 1;
	free(buf);
}

static void test_truncate_emit_basic(void)
{
	truncate_every_length("emit-basic.bin");
}

static void test_truncate_rings(void)
{
	truncate_every_length("rings.bin");
}

/* One valid SUBMIT, then a record whose size field is @size. */
static void expect_bad_size(uint16_t size, size_t avail_after,
			    enum gr_status status, const char *msg)
{
	struct sb b = { .len = 0 };
	struct gr_iter it;
	struct gr_rec recs[2];
	int n, ret;

	sb_job(&b, GRTRACE_EV_SUBMIT, 72, 1);
	sb_rec(&b, GRTRACE_EV_COMMIT, size, 2);
	b.len = 72 + avail_after;
	n = walk(b.buf, b.len, &it, recs, 2, &ret);
	CHECK_U64(n, 1);
	CHECK(ret == -1);
	CHECK_U64(it.status, status);
	CHECK_U64(it.err_offset, 72);
	CHECK_STR(it.errmsg, msg);
}

static void test_corrupt_sizes(void)
{
	expect_bad_size(0, 72, GR_ERR_CORRUPT,
			"corrupt record at byte 72: size 0 is smaller than the 32-byte header");
	expect_bad_size(7, 72, GR_ERR_CORRUPT,
			"corrupt record at byte 72: size 7 is smaller than the 32-byte header");
	expect_bad_size(33, 72, GR_ERR_CORRUPT,
			"corrupt record at byte 72: size 33 is not a multiple of 8");
	expect_bad_size(65535, 72, GR_ERR_CORRUPT,
			"corrupt record at byte 72: size 65535 is not a multiple of 8");
	expect_bad_size(65528, 72, GR_ERR_CORRUPT,
			"corrupt record at byte 72: size 65528 exceeds the maximum record size 8192");
	expect_bad_size(80, 72, GR_ERR_TRUNCATED,
			"truncated record at byte 72: size 80 but only 72 bytes left");
	expect_bad_size(72, 20, GR_ERR_TRUNCATED,
			"truncated record at byte 72: only 20 of the 32 header bytes present");
	/* corrupt is reported even when the record is also cut short */
	expect_bad_size(36, 40, GR_ERR_CORRUPT,
			"corrupt record at byte 72: size 36 is not a multiple of 8");
}

static void test_unknown_type_skipped(void)
{
	struct sb b = { .len = 0 };
	struct gr_iter it;
	struct gr_rec recs[4];
	char tbuf[16];
	int n, ret;

	sb_rec(&b, 0x7777, 48, 1);
	sb_rec(&b, 0, 32, 2);			/* type 0 is unknown too */
	sb_rec(&b, 11, 40, 3);			/* an unused job type slot */
	sb_job(&b, GRTRACE_EV_SUBMIT, 72, 4);
	n = walk(b.buf, b.len, &it, recs, 4, &ret);
	CHECK_U64(n, 4);
	CHECK(ret == 0);
	CHECK_U64(recs[0].type, 0x7777);
	CHECK_U64(recs[1].offset, 48);
	CHECK_U64(recs[2].offset, 80);
	CHECK_U64(recs[3].offset, 120);
	CHECK_U64(recs[3].gseq, 4);
	CHECK_U64(recs[3].cpu, 3);
	CHECK_U64(recs[3].ts, 1004);
	CHECK_STR(gr_type_name(0x7777, tbuf, sizeof(tbuf)), "TYPE_0x7777");
	CHECK_STR(gr_type_name(0, tbuf, sizeof(tbuf)), "TYPE_0x0");
	CHECK_STR(gr_type_name(11, tbuf, sizeof(tbuf)), "TYPE_0xb");
	CHECK_U64(gr_type_min_size(0x7777), 0);
	CHECK(!gr_type_is_job(11));
}

static void test_trailing_fields_ignored(void)
{
	struct sb b = { .len = 0 };
	struct gr_iter it;
	struct gr_rec rec;
	struct gr_job job;
	struct gr_ring ring;
	uint8_t *p;

	p = sb_job(&b, GRTRACE_EV_ERROR, 88, 1);
	memset(p + 72, 0xee, 16);
	p = sb_rec(&b, GRTRACE_REC_RING, 120, 2);
	gr_put32(p + 32, 4);
	gr_put16(p + 36, 5);
	memcpy(p + 40, "drv", 3);
	memset(p + 56, 'x', 32);	/* device without a NUL */
	memset(p + 112, 0xee, 8);
	gr_iter_init(&it, b.buf, b.len);
	CHECK(gr_iter_next(&it, &rec) == 1);
	CHECK_U64(rec.size, 88);
	CHECK(gr_decode_job(&rec, &job) == 0);
	CHECK_U64(job.ctx, 77);
	CHECK_U64(job.seqno, 5);
	CHECK_U64(job.ring_id, 2);
	CHECK_U64(job.engine, GRTRACE_ENGINE_COPY);
	CHECK_U64(job.aux0, (uint64_t)-62);
	CHECK_U64(job.aux1, 9);
	CHECK(gr_iter_next(&it, &rec) == 1);
	CHECK_U64(rec.offset, 88);
	CHECK(gr_decode_ring(&rec, &ring) == 0);
	CHECK_U64(ring.ring_id, 4);
	CHECK_U64(ring.engine, GRTRACE_ENGINE_DISPLAY);
	CHECK_STR(ring.driver, "drv");
	CHECK_U64(strlen(ring.device), 32);
	CHECK(gr_iter_next(&it, &rec) == 0);
}

static void expect_too_small(uint16_t type, uint16_t size, const char *msg)
{
	struct sb b = { .len = 0 };
	struct gr_iter it;
	struct gr_rec recs[1];
	int n, ret;

	sb_rec(&b, type, size, 1);
	sb_job(&b, GRTRACE_EV_SUBMIT, 72, 2);
	n = walk(b.buf, b.len, &it, recs, 1, &ret);
	CHECK_U64(n, 0);
	CHECK_U64(it.status, GR_ERR_CORRUPT);
	CHECK_U64(it.err_offset, 0);
	CHECK_STR(it.errmsg, msg);
}

static void test_smaller_than_struct(void)
{
	expect_too_small(GRTRACE_EV_SUBMIT, 64,
			 "corrupt record at byte 0: SUBMIT record of size 64 is smaller than its 72-byte struct");
	expect_too_small(GRTRACE_EV_ERROR, 32,
			 "corrupt record at byte 0: ERROR record of size 32 is smaller than its 72-byte struct");
	expect_too_small(GRTRACE_REC_STREAM_INFO, 56,
			 "corrupt record at byte 0: STREAM_INFO record of size 56 is smaller than its 64-byte struct");
	expect_too_small(GRTRACE_REC_METADATA, 96,
			 "corrupt record at byte 0: METADATA record of size 96 is smaller than its 104-byte struct");
	expect_too_small(GRTRACE_REC_RING, 104,
			 "corrupt record at byte 0: RING record of size 104 is smaller than its 112-byte struct");
	expect_too_small(GRTRACE_REC_TRIGGER, 80,
			 "corrupt record at byte 0: TRIGGER record of size 80 is smaller than its 88-byte struct");
	expect_too_small(GRTRACE_REC_RECORDER, 88,
			 "corrupt record at byte 0: RECORDER record of size 88 is smaller than its 96-byte struct");
}

static void test_metadata_table(void)
{
	struct sb b = { .len = 0 };
	struct gr_metadata md;
	struct gr_ring ring;
	struct gr_iter it;
	struct gr_rec rec;
	uint8_t *p;
	int ret;

	/* entries of 88 bytes: readers step by ring_size */
	p = sb_rec(&b, GRTRACE_REC_METADATA, 104 + 2 * 88, 1);
	gr_put32(p + 32, 2);
	gr_put16(p + 36, 88);
	memcpy(p + 40, "6.1.0", 5);
	gr_put32(p + 104, 10);
	memcpy(p + 104 + 8, "first", 5);
	gr_put32(p + 104 + 88, 11);
	gr_put16(p + 104 + 88 + 4, 2);
	memcpy(p + 104 + 88 + 8, "second", 6);
	memcpy(p + 104 + 88 + 56, "sq w\\", 5);
	gr_iter_init(&it, b.buf, b.len);
	CHECK(gr_iter_next(&it, &rec) == 1);
	CHECK(gr_decode_metadata(&rec, &md) == 0);
	CHECK_STR(md.kernel, "6.1.0");
	CHECK(gr_decode_metadata_ring(&rec, &md, 0, &ring) == 0);
	CHECK_U64(ring.ring_id, 10);
	CHECK_STR(ring.driver, "first");
	CHECK(gr_decode_metadata_ring(&rec, &md, 1, &ring) == 0);
	CHECK_U64(ring.ring_id, 11);
	CHECK_U64(ring.engine, GRTRACE_ENGINE_COMPUTE);
	CHECK_STR(ring.driver, "second");
	{
		char esc[64];

		gr_escape(ring.name, esc, sizeof(esc));
		CHECK_STR(esc, "sq\\x20w\\x5c");
		gr_escape(ring.name, esc, 5);	/* no room for an escape */
		CHECK_STR(esc, "sq");
	}

	/* the table does not fit */
	gr_put16(p + 2, 104 + 88);
	b.len = 104 + 88;
	gr_iter_init(&it, b.buf, b.len);
	CHECK(gr_iter_next(&it, &rec) == -1);
	CHECK_STR(it.errmsg,
		  "corrupt record at byte 0: METADATA ring table (2 x 88 bytes) does not fit in the 192-byte record");

	/* entries smaller than struct grtrace_ring_desc */
	gr_put16(p + 36, 40);
	gr_iter_init(&it, b.buf, b.len);
	CHECK(gr_iter_next(&it, &rec) == -1);
	CHECK_STR(it.errmsg,
		  "corrupt record at byte 0: METADATA ring_size 40 is smaller than the 80-byte ring entry");

	/* a huge nr_rings must not overflow the size check */
	gr_put32(p + 32, 0xffffffff);
	gr_put16(p + 36, 0xffff);
	gr_iter_init(&it, b.buf, b.len);
	CHECK(gr_iter_next(&it, &rec) == -1);
	CHECK_U64(it.status, GR_ERR_CORRUPT);

	/* no rings: ring_size does not matter */
	gr_put32(p + 32, 0);
	gr_put16(p + 36, 0);
	walk(b.buf, b.len, &it, &rec, 0, &ret);
	CHECK(ret == 0);
}

static void test_check_record_incremental(void)
{
	struct sb b = { .len = 0 };
	char why[GR_WHY_LEN];
	size_t l;

	sb_job(&b, GRTRACE_EV_SUBMIT, 80, 1);
	for (l = 0; l < 80; l++) {
		uint8_t *copy = dup_exact(b.buf, l);

		if (gr_check_record(copy, l, why, sizeof(why)) != 0) {
			printf("# %zu bytes: not 'need more'\n", l);
			cur_failed = 1;
		}
		free(copy);
	}
	CHECK(gr_check_record(b.buf, 80, NULL, 0) == 80);
	CHECK(gr_check_record(b.buf, 200, why, sizeof(why)) == 80);
}

static void test_names(void)
{
	static const char *const types[] = {
		NULL, "SUBMIT", "COMMIT", "START", "END", "COMPLETE",
		"CTX_SWITCH", "IRQ", "SYNC_WAIT_ENTER", "SYNC_WAIT_EXIT",
		"ERROR",
	};
	static const char *const engines[] = {
		"unknown", "gfx", "compute", "copy", "video", "display",
		"control",
	};
	char buf[16];
	unsigned int i;

	for (i = 1; i <= 10; i++) {
		CHECK_STR(gr_type_name((uint16_t)i, buf, sizeof(buf)), types[i]);
		CHECK(gr_type_is_job((uint16_t)i));
		CHECK_U64(gr_type_min_size((uint16_t)i), 72);
	}
	CHECK_STR(gr_type_name(0x100, buf, sizeof(buf)), "STREAM_INFO");
	CHECK_STR(gr_type_name(0x101, buf, sizeof(buf)), "METADATA");
	CHECK_STR(gr_type_name(0x102, buf, sizeof(buf)), "RING");
	CHECK_STR(gr_type_name(0x103, buf, sizeof(buf)), "JOB_SUMMARY");
	CHECK_STR(gr_type_name(0x104, buf, sizeof(buf)), "TRIGGER");
	CHECK_STR(gr_type_name(0x105, buf, sizeof(buf)), "RECORDER");
	CHECK_STR(gr_type_name(0x106, buf, sizeof(buf)), "TYPE_0x106");
	CHECK(!gr_type_is_job(0x100));
	for (i = 0; i < 7; i++)
		CHECK_STR(gr_engine_name((uint16_t)i, buf, sizeof(buf)), engines[i]);
	CHECK_STR(gr_engine_name(7, buf, sizeof(buf)), "7");
	CHECK_STR(gr_engine_name(65535, buf, sizeof(buf)), "65535");
	CHECK_STR(gr_clock_name(1, buf, sizeof(buf)), "monotonic");
	CHECK_STR(gr_clock_name(7, buf, sizeof(buf)), "boottime");
	CHECK_STR(gr_clock_name(4, buf, sizeof(buf)), "4");
}

/*
 * Format 2: the golden records convert at gen_golden.py's boundaries into
 * the format 1 records they stand for; every cut of the stream is
 * "truncated" at the cut record.
 */
static void test_v2_golden(void)
{
	static const uint16_t types[] = {
		0x100, 0x101, 1, 2, 3, 4, 5, 8, 9, 10,
	};
	size_t bounds[64], len, nb, olen, i, cut;
	struct gr_v2_cpu st = { .cpu = 3 };
	uint8_t out[GR_V1_MAX];
	char why[GR_WHY_LEN];
	struct gr_job job;
	struct gr_rec rec;
	uint8_t *buf;
	long sz;

	buf = load_golden("emit-basic-v2.bin", &len);
	if (!buf)
		return;
	nb = load_offsets("emit-basic-v2.bin", len, bounds, 64);
	CHECK_U64(nb, 11);
	for (i = 0; i + 1 < nb && i < 10; i++) {
		sz = gr_v2_convert(&st, buf + bounds[i], len - bounds[i], out,
				   &olen, why, sizeof(why));
		CHECK_U64((uint64_t)sz, bounds[i + 1] - bounds[i]);
		if (sz <= 0)
			break;
		gr_parse_hdr(out, &rec);
		CHECK_U64(rec.type, types[i]);
		CHECK_U64(rec.size, olen);
		CHECK_U64(rec.cpu, 3);
		CHECK_U64(rec.cseq, i);
		CHECK_U64(rec.gseq, 0);
		CHECK_U64(gr_check_record(out, olen, NULL, 0), olen);
		if (!gr_type_is_job(rec.type))
			continue;
		CHECK_U64(gr_decode_job(&rec, &job), 0);
		CHECK_U64(job.has_task, i == 2);
		CHECK_U64(rec.size, i == 2 ? 80 : 72);
		CHECK_U64(job.ctx, i == 9 ? 101 : 100);
		CHECK_U64(job.aux0, i == 9 ? (uint64_t)-62 : i == 7 || i == 8 ? 200 : 0);
		CHECK_U64(job.aux1, i == 7 || i == 8 ? 7 : 0);
	}
	/* Every cut inside a record: more bytes are needed, never corrupt. */
	for (i = 0; i + 1 < nb; i++)
		for (cut = bounds[i] + 1; cut < bounds[i + 1]; cut++)
			CHECK_U64(gr_v2_convert(&st, buf + bounds[i],
						cut - bounds[i], out, &olen,
						why, sizeof(why)), 0);
	free(buf);
}

/* Bad sizes and flags name the problem; cseq is extended past 2^32. */
static void test_v2_rules(void)
{
	struct gr_v2_cpu st = { 0 };
	uint8_t r[64] = { 0 }, out[GR_V1_MAX];
	char why[GR_WHY_LEN];
	struct gr_rec rec;
	size_t olen;

	r[0] = GRTRACE_EV_COMMIT;
	gr_put16(r + 2, 38);
	CHECK_U64(gr_v2_convert(&st, r, 64, out, &olen, why, sizeof(why)),
		  (uint64_t)-1);
	CHECK_STR(why, "size 38 is not a multiple of 4");
	gr_put16(r + 2, 32);
	r[1] = GRTRACE_HDR2_AUX;
	CHECK_U64(gr_v2_convert(&st, r, 64, out, &olen, why, sizeof(why)),
		  (uint64_t)-1);
	CHECK_STR(why, "COMMIT record of size 32 with flags 0x2 is smaller than its 36 bytes");
	gr_put16(r + 2, 48);
	r[1] = GRTRACE_HDR2_AUX | GRTRACE_HDR2_WIDE;
	CHECK_U64(gr_v2_convert(&st, r, 64, out, &olen, why, sizeof(why)),
		  (uint64_t)-1);
	CHECK_STR(why, "COMMIT record of size 48 with flags 0x12 is smaller than its 52 bytes");
	/* WIDE: u64 numbers; without it, u32 ones. */
	r[1] = GRTRACE_HDR2_WIDE;
	gr_put16(r + 2, 36);
	gr_put64(r + 16, 0x123456789ull);
	gr_put64(r + 24, 7);
	CHECK_U64(gr_v2_convert(&st, r, 64, out, &olen, why, sizeof(why)), 36);
	gr_parse_hdr(out, &rec);
	{
		struct gr_job j;

		CHECK_U64(gr_decode_job(&rec, &j), 0);
		CHECK_U64(j.ctx, 0x123456789ull);
		CHECK_U64(j.seqno, 7);
		r[1] = 0;
		gr_put16(r + 2, 28);
		CHECK_U64(gr_v2_convert(&st, r, 64, out, &olen, why, sizeof(why)), 28);
		gr_parse_hdr(out, &rec);
		CHECK_U64(gr_decode_job(&rec, &j), 0);
		CHECK_U64(j.ctx, 0x23456789u);
		CHECK_U64(j.seqno, 1);
	}
	memset(r + 16, 0, 32);
	/* Unknown flag bits are ignored; trailing bytes before gseq too. */
	r[1] = 0x80 | GRTRACE_HDR2_GSEQ;
	gr_put16(r + 2, 48);
	gr_put64(r + 40, 77);
	CHECK_U64(gr_v2_convert(&st, r, 64, out, &olen, why, sizeof(why)), 48);
	gr_parse_hdr(out, &rec);
	CHECK_U64(rec.gseq, 77);
	CHECK_U64(rec.size, 72);
	/* cseq: 0xfffffffe, 0xffffffff, then 0 and 5 are past 2^32. */
	r[1] = 0;
	gr_put16(r + 2, 36);
	gr_put32(r + 4, 0xfffffffeu);
	gr_v2_convert(&st, r, 64, out, &olen, why, sizeof(why));
	gr_put32(r + 4, 0xffffffffu);
	gr_v2_convert(&st, r, 64, out, &olen, why, sizeof(why));
	gr_put32(r + 4, 0);
	gr_v2_convert(&st, r, 64, out, &olen, why, sizeof(why));
	gr_parse_hdr(out, &rec);
	CHECK_U64(rec.cseq, 1ull << 32);
	gr_put32(r + 4, 5);
	gr_v2_convert(&st, r, 64, out, &olen, why, sizeof(why));
	gr_parse_hdr(out, &rec);
	CHECK_U64(rec.cseq, (1ull << 32) + 5);
	/* A small fall is a new module load: no wrap. */
	gr_put32(r + 4, 1);
	gr_v2_convert(&st, r, 64, out, &olen, why, sizeof(why));
	gr_parse_hdr(out, &rec);
	CHECK_U64(rec.cseq, (1ull << 32) + 1);
}

/* The body of a TRIGGER (56 bytes) and of a RECORDER (64), as in uapi. */
static void put_trigger_body(uint8_t *p)
{
	gr_put32(p, GRTRACE_TRIGGER_TIMEOUT);
	gr_put32(p + 4, 7);			/* ring */
	gr_put64(p + 8, 0x1234567890ull);	/* ctx */
	gr_put64(p + 16, 42);			/* seqno */
	gr_put64(p + 24, (uint64_t)-62);	/* error */
	gr_put64(p + 32, 5000);			/* frozen_ts */
	gr_put64(p + 40, 9);			/* later_triggers */
	gr_put32(p + 48, 1);			/* cpu */
}

static void put_recorder_body(uint8_t *p)
{
	gr_put32(p, 1);
	gr_put64(p + 8, 100);		/* first_ts */
	gr_put64(p + 16, 4900);		/* last_ts */
	gr_put64(p + 24, 1000);		/* emitted */
	gr_put64(p + 32, 300);		/* kept */
	gr_put64(p + 40, 650);		/* overwritten */
	gr_put64(p + 48, 50);		/* dropped */
	gr_put64(p + 56, 65536);	/* buffer_size */
}

static void check_trigger(const struct gr_rec *rec)
{
	struct gr_trigger tr;
	char buf[16];

	CHECK_U64(gr_decode_trigger(rec, &tr), 0);
	CHECK_U64(tr.cause, GRTRACE_TRIGGER_TIMEOUT);
	CHECK_STR(gr_trigger_cause_name(tr.cause, buf, sizeof(buf)), "timeout");
	CHECK_U64(tr.ring_id, 7);
	CHECK_U64(tr.ctx, 0x1234567890ull);
	CHECK_U64(tr.seqno, 42);
	CHECK_U64((uint64_t)tr.error, (uint64_t)-62);
	CHECK_U64(tr.frozen_ts, 5000);
	CHECK_U64(tr.later_triggers, 9);
	CHECK_U64(tr.cpu, 1);
}

static void check_recorder(const struct gr_rec *rec)
{
	struct gr_recorder rc;

	CHECK_U64(gr_decode_recorder(rec, &rc), 0);
	CHECK_U64(rc.cpu, 1);
	CHECK_U64(rc.first_ts, 100);
	CHECK_U64(rc.last_ts, 4900);
	CHECK_U64(rc.emitted, 1000);
	CHECK_U64(rc.kept, 300);
	CHECK_U64(rc.overwritten, 650);
	CHECK_U64(rc.dropped, 50);
	CHECK_U64(rc.buffer_size, 65536);
	CHECK(gr_recorder_balanced(&rc));
	rc.dropped++;
	CHECK(!gr_recorder_balanced(&rc));
	/* A sum that wraps to emitted is no balance. */
	rc.kept = UINT64_MAX;
	rc.overwritten = 1001;
	rc.dropped = 0;
	CHECK(!gr_recorder_balanced(&rc));
}

/*
 * Flight recorder records: TRIGGER and RECORDER decode in format 1 and,
 * converted, in format 2 (the v1 body after the 16-byte header); other
 * types are refused by their decoders; short ones name their size.
 */
static void test_recorder_records(void)
{
	uint8_t r[96] = { 0 }, out[GR_V1_MAX];
	struct gr_v2_cpu st = { .cpu = 1 };
	struct sb b = { .len = 0 };
	struct gr_trigger tr;
	struct gr_recorder rc;
	char why[GR_WHY_LEN], buf[16];
	struct gr_rec rec;
	struct gr_iter it;
	size_t olen;

	put_trigger_body(sb_rec(&b, GRTRACE_REC_TRIGGER, 88, 1) + 32);
	put_recorder_body(sb_rec(&b, GRTRACE_REC_RECORDER, 96, 2) + 32);
	gr_iter_init(&it, b.buf, b.len);
	CHECK(gr_iter_next(&it, &rec) == 1);
	check_trigger(&rec);
	CHECK_U64(gr_decode_recorder(&rec, &rc), (uint64_t)-1);
	CHECK(gr_iter_next(&it, &rec) == 1);
	check_recorder(&rec);
	CHECK_U64(gr_decode_trigger(&rec, &tr), (uint64_t)-1);
	CHECK(gr_iter_next(&it, &rec) == 0);

	r[0] = GRTRACE_REC2_TRIGGER;
	gr_put16(r + 2, 72);
	gr_put64(r + 8, 4000);
	put_trigger_body(r + 16);
	CHECK_U64(gr_v2_convert(&st, r, 72, out, &olen, why, sizeof(why)), 72);
	CHECK_U64(olen, 88);
	gr_parse_hdr(out, &rec);
	CHECK_U64(rec.type, GRTRACE_REC_TRIGGER);
	CHECK_U64(rec.cpu, 1);
	check_trigger(&rec);
	CHECK_U64(gr_decode_trigger(&rec, &tr), 0);
	CHECK_U64(tr.ts, 4000);
	memset(r, 0, sizeof(r));
	r[0] = GRTRACE_REC2_RECORDER;
	r[1] = GRTRACE_HDR2_GSEQ;
	gr_put16(r + 2, 88);
	put_recorder_body(r + 16);
	gr_put64(r + 80, 99);
	CHECK_U64(gr_v2_convert(&st, r, 88, out, &olen, why, sizeof(why)), 88);
	CHECK_U64(olen, 96);
	gr_parse_hdr(out, &rec);
	CHECK_U64(rec.gseq, 99);
	check_recorder(&rec);
	/* Short: a v2 RECORDER of 76 bytes lacks the last field. */
	gr_put16(r + 2, 76);
	r[1] = 0;
	CHECK_U64(gr_v2_convert(&st, r, 96, out, &olen, why, sizeof(why)),
		  (uint64_t)-1);
	CHECK_STR(why, "RECORDER record of size 76 with flags 0x0 is smaller than its 80 bytes");
	r[0] = GRTRACE_REC2_TRIGGER;
	gr_put16(r + 2, 68);
	CHECK_U64(gr_v2_convert(&st, r, 96, out, &olen, why, sizeof(why)),
		  (uint64_t)-1);
	CHECK_STR(why, "TRIGGER record of size 68 with flags 0x0 is smaller than its 72 bytes");
	CHECK_STR(gr_trigger_cause_name(GRTRACE_TRIGGER_MANUAL, buf, sizeof(buf)), "manual");
	CHECK_STR(gr_trigger_cause_name(GRTRACE_TRIGGER_ERROR, buf, sizeof(buf)), "error");
	CHECK_STR(gr_trigger_cause_name(9, buf, sizeof(buf)), "cause_9");
}

/*
 * DRM clients: a SUBMIT flagged CLIENT (v1) or HDR2_CLIENT (v2, converted)
 * decodes with its aux0 as the client id; other job events do not name one.
 */
static void test_client_flag(void)
{
	uint8_t r[64] = { 0 }, out[GR_V1_MAX];
	struct gr_v2_cpu st = { .cpu = 1 };
	struct sb b = { .len = 0 };
	char why[GR_WHY_LEN];
	struct gr_job j;
	struct gr_rec rec;
	uint8_t *p;
	size_t olen;

	/* Format 1. */
	p = sb_job(&b, GRTRACE_EV_SUBMIT, 72, 1);
	gr_put16(p + 6, GRTRACE_HDR_CLIENT);
	gr_put64(p + 56, 7);
	gr_parse_hdr(p, &rec);
	CHECK_U64(gr_decode_job(&rec, &j), 0);
	CHECK_U64(j.has_client, 1);
	CHECK_U64(j.client, 7);
	CHECK_U64(j.has_task, 0);
	gr_put16(p + 6, 0);
	gr_parse_hdr(p, &rec);
	gr_decode_job(&rec, &j);
	CHECK_U64(j.has_client, 0);
	CHECK_U64(j.client, 0);
	/* Only SUBMIT names a client: the flag elsewhere means nothing. */
	p = sb_job(&b, GRTRACE_EV_COMMIT, 72, 2);
	gr_put16(p + 6, GRTRACE_HDR_CLIENT);
	gr_parse_hdr(p, &rec);
	gr_decode_job(&rec, &j);
	CHECK_U64(j.has_client, 0);

	/* Format 2: a narrow SUBMIT with AUX, TASK and CLIENT. */
	r[0] = GRTRACE_EV_SUBMIT;
	r[1] = GRTRACE_HDR2_AUX | GRTRACE_HDR2_TASK | GRTRACE_HDR2_CLIENT;
	gr_put16(r + 2, 44);
	gr_put64(r + 8, 5000);		/* ts */
	gr_put32(r + 16, 100);		/* ctx */
	gr_put32(r + 20, 1);		/* seqno */
	gr_put32(r + 28, 7);		/* aux0: the client */
	gr_put32(r + 36, 77);		/* pid */
	gr_put32(r + 40, 77);		/* tid */
	CHECK_U64(gr_v2_convert(&st, r, 44, out, &olen, why, sizeof(why)), 44);
	gr_parse_hdr(out, &rec);
	CHECK_U64(rec.flags, GRTRACE_HDR_TASK | GRTRACE_HDR_CLIENT);
	CHECK_U64(gr_decode_job(&rec, &j), 0);
	CHECK_U64(j.has_client, 1);
	CHECK_U64(j.client, 7);
	CHECK_U64(j.has_task, 1);
	CHECK_U64(j.tid, 77);
	/* Wide: a client id past 32 bits. */
	memset(r, 0, sizeof(r));
	r[0] = GRTRACE_EV_SUBMIT;
	r[1] = GRTRACE_HDR2_AUX | GRTRACE_HDR2_WIDE | GRTRACE_HDR2_CLIENT;
	gr_put16(r + 2, 52);
	gr_put64(r + 16, 100);
	gr_put64(r + 24, 2);
	gr_put64(r + 36, 0x100000007ull);
	CHECK_U64(gr_v2_convert(&st, r, 52, out, &olen, why, sizeof(why)), 52);
	gr_parse_hdr(out, &rec);
	CHECK_U64(rec.flags, GRTRACE_HDR_CLIENT);
	gr_decode_job(&rec, &j);
	CHECK_U64(j.has_client, 1);
	CHECK_U64(j.client, 0x100000007ull);
	/* Without AUX its aux0, the client, is 0. */
	memset(r, 0, sizeof(r));
	r[0] = GRTRACE_EV_SUBMIT;
	r[1] = GRTRACE_HDR2_CLIENT;
	gr_put16(r + 2, 28);
	CHECK_U64(gr_v2_convert(&st, r, 28, out, &olen, why, sizeof(why)), 28);
	gr_parse_hdr(out, &rec);
	gr_decode_job(&rec, &j);
	CHECK_U64(j.has_client, 1);
	CHECK_U64(j.client, 0);
	/* Another job event keeps the flag, and names no client. */
	r[0] = GRTRACE_EV_COMMIT;
	CHECK_U64(gr_v2_convert(&st, r, 28, out, &olen, why, sizeof(why)), 28);
	gr_parse_hdr(out, &rec);
	CHECK_U64(rec.flags, GRTRACE_HDR_CLIENT);
	gr_decode_job(&rec, &j);
	CHECK_U64(j.has_client, 0);
}

/* The client table's entries, its frame's rules, and version 3. */
static void test_client_table(void)
{
	struct grf_client c = { .id = 0x123456789abcdef0ull, .pid = 4242 };
	struct grf_client t[3] = {
		{ .id = 3, .pid = 30 }, { .id = 7, .pid = 4242 },
		{ .id = 1ull << 40, .pid = 5 },
	};
	uint8_t buf[GRF_CLIENT_SIZE], fr[GRF_FRAME_SIZE + 64];
	uint8_t hdr[GRF_HEADER_MAX];
	struct grf_header h = { .stream_format = 2, .nr_cpus = 1 };
	struct grf_frame f = { .flags = GRF_FRAME_CLIENTS };
	char why[GR_WHY_LEN];
	struct grf_client d;
	size_t hlen, i;

	/* u64 id, u32 pid, u32 reserved, comm[16] NUL-padded. */
	snprintf(c.process, sizeof(c.process), "glxgears");
	memset(buf, 0xa5, sizeof(buf));
	grf_encode_client(&c, buf);
	CHECK_U64(gr_le64(buf), c.id);
	CHECK_U64(gr_le32(buf + 8), 4242);
	CHECK_U64(gr_le32(buf + 12), 0);
	CHECK(!memcmp(buf + 16, "glxgears\0\0\0\0\0\0\0\0", 16));
	grf_parse_client(buf, &d);
	CHECK_U64(d.id, c.id);
	CHECK_U64(d.pid, 4242);
	CHECK_STR(d.process, "glxgears");
	/* A full 16-byte name has no NUL in the file; it gets one here. */
	memcpy(buf + 16, "0123456789abcdef", 16);
	grf_parse_client(buf, &d);
	CHECK_STR(d.process, "0123456789abcdef");
	CHECK(grf_find_client(t, 3, 7) == &t[1]);
	CHECK(grf_find_client(t, 3, 1ull << 40) == &t[2]);
	CHECK(grf_find_client(t, 3, 4) == NULL);
	CHECK(grf_find_client(NULL, 0, 7) == NULL);
	CHECK(grf_client_cmp(&t[2], &t[0]) > 0);

	/* Whole 32-byte entries, never compressed, never a task table too. */
	memset(fr, 0, sizeof(fr));
	for (i = 32; i <= 33; i++) {
		f.stored = f.raw = (uint32_t)i;
		grf_encode_frame(&f, fr);
		CHECK_U64(grf_parse_frame(fr, GRF_FRAME_SIZE + i, &f, why,
					  sizeof(why)), i == 32 ? 0 : (uint64_t)-1);
	}
	CHECK_STR(why, "client table of 33 bytes, not whole 32-byte entries");
	f.stored = f.raw = 32;
	for (i = 0; i < 2; i++) {
		f.flags = i ? GRF_FRAME_CLIENTS | GRF_FRAME_TASKS :
			  GRF_FRAME_CLIENTS | GRF_FRAME_ZSTD;
		grf_encode_frame(&f, fr);
		CHECK_U64(grf_parse_frame(fr, sizeof(fr), &f, why, sizeof(why)),
			  (uint64_t)-1);
		CHECK_STR(why, i ? "frame of CPU 0 has unknown flags 0x6" :
			  "frame of CPU 0 has unknown flags 0x5");
	}

	/* The file is version 3; 1 and 2 are still read, 4 is not. */
	hlen = grf_encode_header(&h, hdr);
	CHECK_U64(gr_le16(hdr + 12), 3);
	for (i = 1; i <= 4; i++) {
		gr_put16(hdr + 12, (uint16_t)i);
		CHECK_U64(grf_parse_header(hdr, hlen, &h, why, sizeof(why)),
			  i <= 3 ? 0 : (uint64_t)-1);
	}
	CHECK_STR(why, "file version 4, this grtrace reads versions 1 to 3");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-stream GOLDEN_DIR\n");
		return 2;
	}
	golden_dir = argv[1];
	run("decode golden emit-basic.bin", test_golden_emit_basic);
	run("decode golden rings.bin", test_golden_rings);
	run("emit-basic.bin cut at every length", test_truncate_emit_basic);
	run("rings.bin cut at every length", test_truncate_rings);
	run("corrupt and truncated sizes", test_corrupt_sizes);
	run("unknown types skipped by size", test_unknown_type_skipped);
	run("trailing fields of known types ignored", test_trailing_fields_ignored);
	run("records smaller than their struct rejected", test_smaller_than_struct);
	run("METADATA ring table checks", test_metadata_table);
	run("gr_check_record needs the whole record", test_check_record_incremental);
	run("type, engine and clock names", test_names);
	run("format 2: golden records convert at their boundaries", test_v2_golden);
	run("format 2: sizes, flags, gseq and cseq past 2^32", test_v2_rules);
	run("flight recorder: TRIGGER and RECORDER decode in formats 1 and 2, short ones refused", test_recorder_records);
	run("DRM client: a SUBMIT flagged CLIENT (v1, v2 narrow and wide) has its aux0 as client id", test_client_flag);
	run("trace file: client table entries, whole 32-byte entries only, version 3", test_client_table);
	return failures ? 1 : 0;
}
