// SPDX-License-Identifier: GPL-2.0
/*
 * The sized structs of grtrace.h, seen from clients built against other
 * versions of the header: one whose structs are GRTRACE_1's size (an old
 * client), one whose structs are bigger (a newer header's: fields the
 * library does not know), one whose @size is below GRTRACE_1's minimum.
 * Every struct sits in a heap block of exactly the caller's size followed
 * by a canary block (AddressSanitizer, under SAN=1, catches a write past
 * the block; the canary catches it without), and the library must write
 * no byte past the caller's size, leave a bigger struct's unknown tail as
 * it was, and refuse a too small size with a message naming the struct.
 *
 *	abi-size TRACE	TRACE has jobs, a STREAM_INFO first
 *
 * Prints TAP lines; exits 1 if one fails.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grtrace/grtrace.h>

#define EXTRA	32u	/* a newer header's fields */
#define CANARY	0xa5

static int failed;

static void check(int cond, const char *name, const char *diag)
{
	printf("%s %s\n", cond ? "ok" : "not ok", name);
	if (!cond) {
		printf("# %s\n", diag);
		failed = 1;
	}
}

/* @size bytes for the caller's struct, its @size field set, the rest
 * zero up to @zero and CANARY after (a newer header's unknown fields). */
static void *sized(uint32_t size, uint32_t zero)
{
	uint8_t *p = malloc(size);

	if (!p)
		exit(2);
	memset(p, CANARY, size);
	memset(p, 0, zero < size ? zero : size);
	memcpy(p, &size, sizeof(size));
	return p;
}

/* All @n bytes at @p are CANARY. */
static int intact(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != CANARY)
			return 0;
	return 1;
}

static uint32_t size_of(const void *p)
{
	uint32_t s;

	memcpy(&s, p, sizeof(s));
	return s;
}

/* Every record and every job of @path through structs of @rsize and @jsize. */
static int walk(const char *path, uint32_t esize, uint32_t rsize,
		uint32_t jsize, int *recs, int *jobs, char *why, size_t whylen)
{
	struct grtrace_error *err = sized(esize, sizeof(*err));
	struct grtrace_record *r = sized(rsize, sizeof(*r));
	struct grtrace_job *j = sized(jsize, sizeof(*j));
	uint32_t rgot = 0, jgot = 0;
	grtrace_trace *t;
	int n, ok = 1;

	*recs = *jobs = 0;
	t = grtrace_open(path, err);
	if (!t) {
		snprintf(why, whylen, "open: %s", err->msg);
		return 0;
	}
	while ((n = grtrace_next_record(t, r, err)) > 0) {
		(*recs)++;
		rgot = size_of(r);
	}
	if (n < 0 || grtrace_rewind(t, err) < 0)
		ok = 0;
	while (ok && (n = grtrace_next_job(t, j, err)) > 0) {
		(*jobs)++;
		jgot = size_of(j);
	}
	if (n < 0)
		ok = 0;
	grtrace_close(t);
	snprintf(why, whylen, "records %d (size %u), jobs %d (size %u): %s",
		 *recs, rgot, *jobs, jgot, ok ? "" : err->msg);
	/* The library fills what it knows and says so in @size. */
	if (rgot != sizeof(*r) || jgot != sizeof(*j))
		ok = 0;
	if (rsize > sizeof(*r) && !intact((uint8_t *)r + sizeof(*r), rsize - sizeof(*r)))
		ok = 0;
	if (jsize > sizeof(*j) && !intact((uint8_t *)j + sizeof(*j), jsize - sizeof(*j)))
		ok = 0;
	if (esize > sizeof(*err) &&
	    !intact((uint8_t *)err + sizeof(*err), esize - sizeof(*err)))
		ok = 0;
	free(err);
	free(r);
	free(j);
	return ok;
}

int main(int argc, char **argv)
{
	struct grtrace_error *err, *big;
	struct grtrace_record *r;
	struct grtrace_info_stream *si;
	struct grtrace_report_opts *o;
	int recs[2], jobs[2], ok;
	char why[2][600], diag[1400];
	grtrace_trace *t;
	FILE *null;

	if (argc != 2) {
		fprintf(stderr, "usage: abi-size TRACE\n");
		return 2;
	}
	null = fopen("/dev/null", "w");
	if (!null)
		return 2;

	/* An old client (GRTRACE_1's sizes) and a newer one read the same. */
	ok = walk(argv[1], GRTRACE_ERROR_SIZE_1, GRTRACE_RECORD_SIZE_1,
		  GRTRACE_JOB_SIZE_1, &recs[0], &jobs[0], why[0], sizeof(why[0]));
	ok &= walk(argv[1], GRTRACE_ERROR_SIZE_1 + EXTRA,
		   GRTRACE_RECORD_SIZE_1 + EXTRA, GRTRACE_JOB_SIZE_1 + EXTRA,
		   &recs[1], &jobs[1], why[1], sizeof(why[1]));
	snprintf(diag, sizeof(diag), "GRTRACE_1: %s; bigger: %s", why[0], why[1]);
	check(ok && recs[0] > 0 && jobs[0] > 0 && recs[0] == recs[1] &&
	      jobs[0] == jobs[1],
	      "sized structs: GRTRACE_1-sized and bigger records, jobs and errors read the same, nothing written past the caller's size",
	      diag);

	/* A record below GRTRACE_1's size: refused, untouched. */
	err = sized(GRTRACE_ERROR_SIZE_1, GRTRACE_ERROR_SIZE_1);
	r = sized(GRTRACE_RECORD_SIZE_1 - 8, 4);
	t = grtrace_open(argv[1], err);
	ok = t && grtrace_next_record(t, r, err) == -1 &&
	     err->status == GRTRACE_ERR_INVAL &&
	     !strcmp(err->msg, "struct grtrace_record: size 112 is below its GRTRACE_1 minimum 120 (set .size = sizeof(struct grtrace_record))") &&
	     size_of(r) == GRTRACE_RECORD_SIZE_1 - 8 &&
	     intact((uint8_t *)r + 4, GRTRACE_RECORD_SIZE_1 - 12);
	check(ok, "sized structs: a record below GRTRACE_1's size is refused with GRTRACE_ERR_INVAL naming it, untouched",
	      err->msg);
	free(r);

	/* The same for a job, an info record and the report's options. */
	if (t) {
		struct grtrace_job *j = sized(GRTRACE_JOB_SIZE_1 - 1, 4);

		ok = grtrace_next_job(t, j, err) == -1 &&
		     err->status == GRTRACE_ERR_INVAL &&
		     strstr(err->msg, "struct grtrace_job: size 175 is below") &&
		     intact((uint8_t *)j + 4, GRTRACE_JOB_SIZE_1 - 5);
		check(ok, "sized structs: a job below GRTRACE_1's size is refused",
		      err->msg);
		free(j);
		grtrace_rewind(t, err);
		r = sized(GRTRACE_RECORD_SIZE_1, GRTRACE_RECORD_SIZE_1);
		si = sized(GRTRACE_INFO_STREAM_SIZE_1 - 8, 4);
		ok = grtrace_next_record(t, r, err) == 1 &&
		     grtrace_info_stream(t, si, err) == -1 &&
		     strstr(err->msg, "struct grtrace_info_stream: size 32 is below") &&
		     intact((uint8_t *)si + 4, GRTRACE_INFO_STREAM_SIZE_1 - 12);
		check(ok, "sized structs: an info record below GRTRACE_1's size is refused",
		      err->msg);
		free(si);
		si = sized(GRTRACE_INFO_STREAM_SIZE_1 + EXTRA,
			   GRTRACE_INFO_STREAM_SIZE_1);
		ok = grtrace_info_stream(t, si, err) == 1 &&
		     si->size == GRTRACE_INFO_STREAM_SIZE_1 && si->magic == 0x52545247 &&
		     intact((uint8_t *)si + GRTRACE_INFO_STREAM_SIZE_1, EXTRA);
		check(ok, "sized structs: a bigger info record gets the library's fields, its tail untouched",
		      err->msg);
		free(si);
		free(r);
		o = sized(GRTRACE_REPORT_OPTS_SIZE_1 - 8, GRTRACE_REPORT_OPTS_SIZE_1);
		ok = grtrace_report_with(t, "text", o, null, err) == -1 &&
		     strstr(err->msg, "struct grtrace_report_opts: size 16 is below");
		free(o);
		/* A GRTRACE_1 caller's options: 1.4's fields keep their defaults. */
		o = sized(GRTRACE_REPORT_OPTS_SIZE_1, GRTRACE_REPORT_OPTS_SIZE_1);
		o->flags = GRTRACE_REPORT_PER_RING;
		ok &= grtrace_report_with(t, "text", o, null, err) == 0;
		free(o);
		/* A newer caller's options: its unknown tail is not read as options. */
		o = sized(GRTRACE_REPORT_OPTS_SIZE_1_4 + EXTRA, GRTRACE_REPORT_OPTS_SIZE_1_4);
		o->flags = GRTRACE_REPORT_PER_RING | GRTRACE_REPORT_INTERVAL;
		o->interval = 1000000;
		ok &= grtrace_report_with(t, "text", o, null, err) == 0;
		check(ok, "sized structs: report options below GRTRACE_1's size are refused, GRTRACE_1's and bigger ones read",
		      err->msg);
		/* A rule needs 1.4's size; one out of its range is refused. */
		o->size = GRTRACE_REPORT_OPTS_SIZE_1;
		ok = grtrace_report_rule(o, "hang_ms", "5", err) == -1 &&
		     strstr(err->msg, "struct grtrace_report_opts: size 24 is below its 1.4 minimum 176");
		o->size = GRTRACE_REPORT_OPTS_SIZE_1_4;
		ok &= grtrace_report_rule(o, "busy_pct", "101", err) == -1 &&
		      err->status == GRTRACE_ERR_INVAL &&
		      !strcmp(err->msg, "unknown rule or invalid value: 'busy_pct=101'") &&
		      o->rules_set == 0;
		ok &= grtrace_report_rule(o, "busy_pct", "50", err) == 0 &&
		      o->busy_pct == 50 &&
		      o->rules_set == 1u << GRTRACE_RULE_BUSY_PCT &&
		      intact((uint8_t *)o + GRTRACE_REPORT_OPTS_SIZE_1_4, EXTRA);
		/* Set in the struct, out of range: refused by the report. */
		o->busy_pct = 200;
		ok &= grtrace_report_with(t, "text", o, null, err) == -1 &&
		      err->status == GRTRACE_ERR_INVAL;
		check(ok, "sized structs: report rules need 1.4's size, are checked when set and when read, nothing written past the struct",
		      err->msg);
		free(o);
		grtrace_close(t);
	}
	free(err);

	/* Live channels (1.4): below their size refused, untouched. */
	{
		struct grtrace_channels *c = sized(GRTRACE_CHANNELS_SIZE_1_4 - 8, 4);

		err = sized(GRTRACE_ERROR_SIZE_1, GRTRACE_ERROR_SIZE_1);
		ok = !grtrace_open_channels(c, err) &&
		     err->status == GRTRACE_ERR_INVAL &&
		     strstr(err->msg, "struct grtrace_channels: size 40 is below") &&
		     intact((uint8_t *)c + 4, GRTRACE_CHANNELS_SIZE_1_4 - 12);
		check(ok, "sized structs: channels below their size are refused with GRTRACE_ERR_INVAL naming them, untouched",
		      err->msg);
		free(c);
		free(err);
	}

	/*
	 * dump's structs (1.4): a trace file's header, bigger than the
	 * library's read with its tail untouched, a smaller one refused;
	 * the info records of METADATA and JOB_SUMMARY refused below size.
	 */
	{
		struct grtrace_info_file *fi;
		struct grtrace_info_summary *js;
		struct grtrace_info_metadata *md;
		struct grtrace_record rec = GRTRACE_RECORD_INIT;
		int got;

		err = sized(GRTRACE_ERROR_SIZE_1, GRTRACE_ERROR_SIZE_1);
		t = grtrace_open(argv[1], err);
		fi = sized(GRTRACE_INFO_FILE_SIZE_1_4 + EXTRA, GRTRACE_INFO_FILE_SIZE_1_4);
		got = t ? grtrace_info_file(t, fi, err) : -1;
		ok = got >= 0 && (got == 0 || fi->size == GRTRACE_INFO_FILE_SIZE_1_4) &&
		     intact((uint8_t *)fi + GRTRACE_INFO_FILE_SIZE_1_4, EXTRA);
		free(fi);
		fi = sized(GRTRACE_INFO_FILE_SIZE_1_4 - 8, 4);
		ok &= t && grtrace_info_file(t, fi, err) == -1 &&
		      strstr(err->msg, "struct grtrace_info_file: size 320 is below its 1.4 minimum 328") &&
		      intact((uint8_t *)fi + 4, GRTRACE_INFO_FILE_SIZE_1_4 - 12);
		free(fi);
		js = sized(GRTRACE_INFO_SUMMARY_SIZE_1_4 - 8, 4);
		md = sized(GRTRACE_INFO_METADATA_SIZE_1_4 - 8, 4);
		ok &= t && grtrace_next_record(t, &rec, err) == 1 &&
		      grtrace_info_summary(t, js, err) == -1 &&
		      strstr(err->msg, "struct grtrace_info_summary: size 96 is below") &&
		      intact((uint8_t *)js + 4, GRTRACE_INFO_SUMMARY_SIZE_1_4 - 12) &&
		      grtrace_info_metadata(t, md, err) == -1 &&
		      strstr(err->msg, "struct grtrace_info_metadata: size 72 is below") &&
		      intact((uint8_t *)md + 4, GRTRACE_INFO_METADATA_SIZE_1_4 - 12);
		check(ok, "sized structs: a trace file's header, METADATA and JOB_SUMMARY (1.4) read within their size, refused below it",
		      err->msg);
		free(js);
		free(md);
		grtrace_close(t);
		free(err);
	}

	/*
	 * The writer (1.4): a header from a struct below its size refused,
	 * one written and read back; a checker's record below GRTRACE_1's
	 * size refused untouched.
	 */
	{
		struct grtrace_info_file *fi = sized(GRTRACE_INFO_FILE_SIZE_1_4 - 8, 4);
		struct grtrace_info_file back = GRTRACE_INFO_FILE_INIT;
		uint8_t buf[GRTRACE_FILE_HEADER_MAX + GRTRACE_FRAME_HDR_SIZE];
		grtrace_checker *chk;
		long len;

		err = sized(GRTRACE_ERROR_SIZE_1, GRTRACE_ERROR_SIZE_1);
		ok = grtrace_encode_file_header(fi, buf, err) == -1 &&
		     strstr(err->msg, "struct grtrace_info_file: size 320 is below its 1.4 minimum 328");
		free(fi);
		fi = sized(GRTRACE_INFO_FILE_SIZE_1_4 + EXTRA, GRTRACE_INFO_FILE_SIZE_1_4);
		fi->stream_format = 2;
		fi->nr_cpus = 3;
		strcpy(fi->kernel, "6.1.0-abi");
		strcpy(fi->clock, "monotonic");
		fi->session = 42;
		len = grtrace_encode_file_header(fi, buf, err);
		free(fi);
		t = NULL;
		if (len > 0) {
			/* An empty frame of CPU 0 after it: a whole file. */
			grtrace_encode_frame(0, 0, 0, 0, buf + len);
			t = grtrace_open_mem(buf, (size_t)len + GRTRACE_FRAME_HDR_SIZE, err);
		}
		ok &= t && grtrace_info_file(t, &back, err) == 1 &&
		      back.stream_format == 2 && back.nr_cpus == 3 &&
		      back.session == 42 && !strcmp(back.kernel, "6.1.0-abi") &&
		      !strcmp(back.clock, "monotonic");
		grtrace_close(t);
		chk = grtrace_checker_new(2, 0, err);
		r = sized(GRTRACE_RECORD_SIZE_1 - 8, 4);
		ok &= chk && grtrace_check_record(chk, buf, 64, r, err) == -1 &&
		      strstr(err->msg, "struct grtrace_record: size 112 is below") &&
		      intact((uint8_t *)r + 4, GRTRACE_RECORD_SIZE_1 - 12);
		check(ok, "writer: a file header from a struct below 1.4's size is refused, a bigger one written reads back; a checker's short record is refused",
		      err->msg);
		grtrace_checker_free(chk);
		free(r);
		free(err);
	}

	/* An error struct too small to carry the news: the call fails. */
	err = sized(GRTRACE_ERROR_SIZE_1 - 8, 4);
	errno = 0;
	t = grtrace_open(argv[1], err);
	ok = !t && errno == EINVAL && size_of(err) == GRTRACE_ERROR_SIZE_1 - 8 &&
	     intact((uint8_t *)err + 4, GRTRACE_ERROR_SIZE_1 - 12);
	check(ok, "sized structs: an error struct below GRTRACE_1's size fails the call (errno EINVAL), untouched",
	      "opened, or wrote into it");
	grtrace_close(t);
	free(err);

	/* A bigger error struct on a failure: its tail stays. */
	big = sized(GRTRACE_ERROR_SIZE_1 + EXTRA, GRTRACE_ERROR_SIZE_1);
	t = grtrace_open("/nonexistent/grtrace-abi-size", big);
	ok = !t && big->status == GRTRACE_ERR_IO && big->sys == ENOENT &&
	     big->size == GRTRACE_ERROR_SIZE_1 + EXTRA &&
	     intact((uint8_t *)big + GRTRACE_ERROR_SIZE_1, EXTRA);
	check(ok, "sized structs: a bigger error struct gets the error, its tail untouched, its size kept",
	      big->msg);
	free(big);

	/*
	 * Batches (1.3): the records r[0].size apart, each filled to that
	 * size and no further; below GRTRACE_1's size, refused untouched.
	 */
	{
		const uint32_t stride = GRTRACE_RECORD_SIZE_1 + EXTRA, nb = 16;
		uint8_t *b = sized(stride * nb, stride * nb), *e;
		int got = 0, n, tails = 1;
		uint32_t i;

		err = sized(GRTRACE_ERROR_SIZE_1, GRTRACE_ERROR_SIZE_1);
		memset(b, CANARY, stride * nb);
		memcpy(b, &stride, sizeof(stride));
		t = grtrace_open(argv[1], err);
		while (t && (n = grtrace_next_records(t, (struct grtrace_record *)b,
						      nb, err)) > 0) {
			got += n;
			for (i = 0; i < (uint32_t)n; i++) {
				e = b + i * stride;
				tails &= size_of(e) == GRTRACE_RECORD_SIZE_1 &&
					 intact(e + GRTRACE_RECORD_SIZE_1, EXTRA);
			}
			memset(b, CANARY, stride * nb);
			memcpy(b, &stride, sizeof(stride));
		}
		snprintf(diag, sizeof(diag), "%d of %d records, tails %s: %s",
			 got, recs[0], tails ? "intact" : "written", err->msg);
		check(t && n == 0 && got == recs[0] && tails,
		      "sized structs: batches of bigger records, r[0].size apart: every record, each tail untouched",
		      diag);
		grtrace_close(t);
		t = grtrace_open(argv[1], err);
		memset(b, CANARY, stride * nb);
		i = GRTRACE_RECORD_SIZE_1 - 8;
		memcpy(b, &i, sizeof(i));
		ok = t && grtrace_next_records(t, (struct grtrace_record *)b, nb, err) == -1 &&
		     strstr(err->msg, "struct grtrace_record: size 112 is below") &&
		     intact(b + 4, stride * nb - 4);
		check(ok, "sized structs: a batch whose first record is below GRTRACE_1's size is refused, untouched",
		      err->msg);
		grtrace_close(t);
		free(b);
		free(err);
	}

	/* The accounting rule of a RECORDER (1.3), sized as the rest. */
	{
		struct grtrace_info_loss li = GRTRACE_INFO_LOSS_INIT;
		int held, broke, wrapped, small;

		li.emitted = 10;
		li.kept = 5;
		li.overwritten = 3;
		li.dropped = 2;
		held = grtrace_loss_balanced(&li);
		li.dropped = 1;
		broke = grtrace_loss_balanced(&li);
		li.kept = UINT64_MAX;
		li.overwritten = 10;
		li.dropped = 1;		/* wraps to 10 */
		wrapped = grtrace_loss_balanced(&li);
		li.kept = 5;
		li.overwritten = 3;
		li.dropped = 2;
		li.size = GRTRACE_INFO_LOSS_SIZE_1 - 8;
		small = grtrace_loss_balanced(&li);
		snprintf(diag, sizeof(diag), "held %d broke %d wrapped %d small %d",
			 held, broke, wrapped, small);
		check(held == 1 && !broke && !wrapped && !small && !grtrace_loss_balanced(NULL),
		      "grtrace_loss_balanced(): emitted = kept + overwritten + dropped exactly, no wrap, no short struct",
		      diag);
	}
	/*
	 * A report reads the whole input; a record asked for after it is the
	 * first again, a second report the same as the first, a job after
	 * two reports the first job.
	 */
	{
		struct grtrace_error *e = sized(sizeof(*e), sizeof(*e));
		struct grtrace_record *rec = sized(sizeof(*rec), sizeof(*rec));
		struct grtrace_job *j = sized(sizeof(*j), sizeof(*j));
		uint64_t first = 0;
		int before = 0, after = 0, rep, n;

		t = grtrace_open(argv[1], e);
		ok = t && grtrace_next_record(t, rec, e) > 0;
		if (ok) {
			first = rec->gseq;
			before = 1;
			while (grtrace_next_record(t, rec, e) > 0)
				before++;
		}
		rep = ok ? grtrace_report_with(t, "text", NULL, null, e) : -1;
		ok = ok && rep == 0 && grtrace_next_record(t, rec, e) > 0 &&
		     rec->gseq == first;
		for (after = ok; ok && (n = grtrace_next_record(t, rec, e)) > 0;)
			after++;
		ok = ok && after == before &&
		     grtrace_report_with(t, "text", NULL, null, e) == 0 &&
		     grtrace_report_with(t, "text", NULL, null, e) == 0 &&
		     grtrace_next_job(t, j, e) > 0;
		snprintf(diag, sizeof(diag), "records %d then %d, first gseq %llu: %s",
			 before, after, (unsigned long long)first,
			 ok ? "" : e->msg);
		check(ok, "a report, then records: from the first again; reports repeat; a job after them",
		      diag);
		grtrace_close(t);
		free(e);
		free(rec);
		free(j);
	}
	fclose(null);
	return failed;
}
