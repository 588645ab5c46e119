// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace dump: print a recording as text, one line per record in gseq
 * order.  The input is merged as "report" merges it (merge.c), so memory
 * does not grow with the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grtrace.h"
#include "lib/lib.h"
#include "lib/merge.h"
#include "lib/stream.h"
#include "util.h"

static const char dump_help[] =
	"Usage: grtrace dump [-i FILE] [--channel CPU] [--raw] [--header]\n"
	"\n"
	"Print the records of a file written by 'grtrace record' (or of a bare\n"
	"stream), one line per record ordered by gseq:\n"
	"  <ts_ns> <cpu> <gseq> <TYPE> key=value ...\n"
	"\n"
	"Options:\n"
	"  -i, --input FILE  the stream to read; '-' is standard input.  Default:\n"
	"                    standard input if it is a pipe or a file, else\n"
	"                    grtrace.dat\n"
	"      --raw         after each record's line, its bytes in hex, 16 a line\n"
	"                    with their offset in the record\n"
	"      --header      first, a line '# trace file: ...' with the fields of\n"
	"                    the file's header ('# bare stream' for a file of\n"
	"                    records only)\n"
	"      --channel CPU the input is what was read from events<CPU>: one\n"
	"                    CPU's records (format 2 records do not name it), in\n"
	"                    the format its STREAM_INFO says, else the loaded\n"
	"                    module's, else 2\n"
	"  -h, --help        show this help\n"
	"\n"
	"A truncated or corrupt stream prints the records before the bad one, then\n"
	"an error naming its byte offset, and exits with status 1.\n";

static const struct option dump_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "raw",   no_argument,       NULL, 'r' },
	{ "header", no_argument,      NULL, 'H' },
	{ "channel", required_argument, NULL, 'c' },
	{ "help",  no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void print_ring(const struct gr_ring *r)
{
	char e[16], drv[4 * sizeof(r->driver)], dev[4 * sizeof(r->device)];
	char name[4 * sizeof(r->name)];

	gr_escape(r->driver, drv, sizeof(drv));
	gr_escape(r->device, dev, sizeof(dev));
	gr_escape(r->name, name, sizeof(name));
	printf("id=%" PRIu32 " engine=%s", r->ring_id,
	       gr_engine_name(r->engine, e, sizeof(e)));
	printf(" instance=%u", (unsigned int)r->instance);
	printf(" driver=%s device=%s name=%s", drv, dev, name);
}

static void print_raw(const struct gr_rec *rec)
{
	unsigned int i;

	for (i = 0; i < rec->size; i++) {
		if (i % 16 == 0)
			printf("    %04x:", i);
		printf(" %02x", rec->data[i]);
		if (i % 16 == 15 || i + 1 == rec->size)
			putchar('\n');
	}
}

/* A job in one record: its key, then each stamp it has, by name. */
static void print_summary(const struct gr_rec *rec)
{
	struct gr_summary js;
	char ebuf[16], tbuf[16];
	uint16_t t;

	gr_decode_summary(rec, &js);
	printf(" ctx=%" PRIu64 " seqno=%" PRIu64 " ring=%" PRIu32
	       " engine=%s reason=%s", js.ctx, js.seqno, js.ring_id,
	       gr_engine_name(js.engine, ebuf, sizeof(ebuf)),
	       js.reason == GRTRACE_SUMMARY_SLOW ? "slow" :
	       js.reason == GRTRACE_SUMMARY_OPEN ? "open" : "other");
	for (t = GRTRACE_EV_SUBMIT; t <= GRTRACE_EV_COMPLETE; t++) {
		if (!(js.events & (1u << t)))
			continue;
		printf(" %s=%" PRIu64 "%s", gr_type_name(t, tbuf, sizeof(tbuf)),
		       js.ts[t - 1], js.derived & (1u << t) ? "(derived)" : "");
	}
	printf(" waits=%" PRIu32 " wait_ns=%" PRIu64 " threshold=%" PRIu64,
	       js.waits, js.wait_ns, js.threshold);
	if (js.pid)
		printf(" pid=%" PRIu32 " tid=%" PRIu32, js.pid, js.tid);
	putchar('\n');
}

/* What froze a flight recorder snapshot. */
static void print_trigger(const struct gr_rec *rec)
{
	struct gr_trigger tr;
	char cbuf[16];

	gr_decode_trigger(rec, &tr);
	printf(" cause=%s", gr_trigger_cause_name(tr.cause, cbuf, sizeof(cbuf)));
	if (tr.ring_id == GR_TRIGGER_NO_RING)
		printf(" ring=none");
	else
		printf(" ring=%" PRIu32, tr.ring_id);
	printf(" ctx=%" PRIu64 " seqno=%" PRIu64 " error=%" PRId64
	       " frozen_ts=%" PRIu64 " later_triggers=%" PRIu64
	       " trigger_cpu=%" PRIu32 "\n", tr.ctx, tr.seqno, tr.error,
	       tr.frozen_ts, tr.later_triggers, tr.cpu);
}

/* One CPU's accounting of a snapshot, and whether it adds up. */
static void print_recorder(const struct gr_rec *rec)
{
	struct gr_recorder rc;

	gr_decode_recorder(rec, &rc);
	printf(" of_cpu=%" PRIu32 " first_ts=%" PRIu64 " last_ts=%" PRIu64
	       " emitted=%" PRIu64 " kept=%" PRIu64 " overwritten=%" PRIu64
	       " dropped=%" PRIu64 " buffer_size=%" PRIu64 " balanced=%s\n",
	       rc.cpu, rc.first_ts, rc.last_ts, rc.emitted, rc.kept,
	       rc.overwritten, rc.dropped, rc.buffer_size,
	       gr_recorder_balanced(&rc) ? "yes" : "no");
}

/*
 * A job event's line, written by hand into one buffer: nearly every line
 * of a dump is one, and printf()'s parsing of its format was three
 * quarters of the time.  The same text as the printf() formats of the
 * other records would give.
 */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* @v in decimal at @p; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
	unsigned int n = 1;
	uint64_t t = v;
	char *e;

	while (t >= 10) {
		t /= 10;
		n++;
	}
	e = p + n;
	p = e;
	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, digit_pairs + 2 * r, 2);
	}
	if (v >= 10)
		memcpy(p - 2, digit_pairs + 2 * v, 2);
	else
		p[-1] = (char)('0' + v);
	return e;
}

static char *put_i64(char *p, int64_t v)
{
	if (v >= 0)
		return put_u64(p, (uint64_t)v);
	*p++ = '-';
	return put_u64(p, 0 - (uint64_t)v);
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* A string literal, its length known when compiled. */
#define PUT_LIT(p, s)	(memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/*
 * The job lines, gathered here and handed to stdout a block at a time
 * (one copy fewer than a fwrite() per line); out_flush() before anything
 * else is printed keeps the order.
 */
#define OUT_SIZE	(64u << 10)
#define LINE_MAX_LEN	512u
static char out_buf[OUT_SIZE];
static size_t out_len;

static void out_flush(void)
{
	if (out_len)
		fwrite_unlocked(out_buf, 1, out_len, stdout);
	out_len = 0;
}

/* The line of a job event; 0 if @rec does not decode as one. */
static int print_job(const struct gr_rec *rec)
{
	char tbuf[16], ebuf[16], *line, *p;
	struct gr_job j;

	if (gr_decode_job(rec, &j) < 0)
		return 0;
	if (out_len + LINE_MAX_LEN > OUT_SIZE)
		out_flush();
	line = p = out_buf + out_len;
	p = put_u64(p, rec->ts);
	*p++ = ' ';
	p = put_u64(p, rec->cpu);
	*p++ = ' ';
	p = put_u64(p, rec->gseq);
	*p++ = ' ';
	p = put_str(p, gr_type_name(rec->type, tbuf, sizeof(tbuf)));
	p = PUT_LIT(p, " ctx=");
	p = put_u64(p, j.ctx);
	p = PUT_LIT(p, " seqno=");
	p = put_u64(p, j.seqno);
	p = PUT_LIT(p, " ring=");
	p = put_u64(p, j.ring_id);
	p = PUT_LIT(p, " engine=");
	p = put_str(p, gr_engine_name(j.engine, ebuf, sizeof(ebuf)));
	/* ERROR carries a negative errno in aux0. */
	p = PUT_LIT(p, " aux0=");
	if (rec->type == GRTRACE_EV_ERROR)
		p = put_i64(p, (int64_t)j.aux0);
	else
		p = put_u64(p, j.aux0);
	p = PUT_LIT(p, " aux1=");
	p = put_u64(p, j.aux1);
	/* Written with the event before it: no time of its own. */
	if (rec->flags & GRTRACE_HDR_DERIVED)
		p = PUT_LIT(p, " derived=1");
	/* The task that submitted (format 2). */
	if (j.has_task) {
		p = PUT_LIT(p, " pid=");
		p = put_u64(p, j.pid);
		p = PUT_LIT(p, " tid=");
		p = put_u64(p, j.tid);
	}
	/* The DRM client it was submitted through (aux0 again). */
	if (j.has_client) {
		p = PUT_LIT(p, " client=");
		p = put_u64(p, j.client);
	}
	*p++ = '\n';
	out_len += (size_t)(p - line);
	return 1;
}

static void print_record(const struct gr_rec *rec)
{
	char tbuf[16], ebuf[16];
	const char *tname;

	if (gr_type_is_job(rec->type) && print_job(rec))
		return;
	out_flush();
	tname = gr_type_name(rec->type, tbuf, sizeof(tbuf));

	printf("%" PRIu64 " %u %" PRIu64 " %s", rec->ts, (unsigned int)rec->cpu,
	       rec->gseq, tname);

	if (gr_type_is_job(rec->type)) {
		struct gr_job j;

		if (gr_decode_job(rec, &j) < 0)
			return;
		printf(" ctx=%" PRIu64 " seqno=%" PRIu64 " ring=%" PRIu32
		       " engine=%s", j.ctx, j.seqno, j.ring_id,
		       gr_engine_name(j.engine, ebuf, sizeof(ebuf)));
		/* ERROR carries a negative errno in aux0. */
		if (rec->type == GRTRACE_EV_ERROR)
			printf(" aux0=%" PRId64, (int64_t)j.aux0);
		else
			printf(" aux0=%" PRIu64, j.aux0);
		printf(" aux1=%" PRIu64, j.aux1);
		/* Written with the event before it: no time of its own. */
		if (rec->flags & GRTRACE_HDR_DERIVED)
			printf(" derived=1");
		/* The task that submitted (format 2). */
		if (j.has_task)
			printf(" pid=%" PRIu32 " tid=%" PRIu32, j.pid, j.tid);
		/* The DRM client it was submitted through (aux0 again). */
		if (j.has_client)
			printf(" client=%" PRIu64, j.client);
		putchar('\n');
		return;
	}

	switch (rec->type) {
	case GRTRACE_REC_STREAM_INFO: {
		struct gr_stream_info si;
		char cbuf[16];

		gr_decode_stream_info(rec, &si);
		if (si.magic == GRTRACE_MAGIC)
			printf(" magic=ok");
		else
			printf(" magic=0x%08" PRIx32, si.magic);
		printf(" version=%u clock=%s cpus=%" PRIu32 " session=%" PRIu64
		       " features=0x%" PRIx64 "\n",
		       (unsigned int)si.version,
		       gr_clock_name(si.clock_id, cbuf, sizeof(cbuf)),
		       si.nr_cpus, si.session_id, si.features);
		return;
	}
	case GRTRACE_REC_METADATA: {
		struct gr_metadata md;
		char kernel[4 * sizeof(md.kernel)];
		uint32_t i;

		/* gr_iter_next() validated the ring table. */
		gr_decode_metadata(rec, &md);
		gr_escape(md.kernel, kernel, sizeof(kernel));
		printf(" kernel=%s rings=%" PRIu32 "\n", kernel, md.nr_rings);
		for (i = 0; i < md.nr_rings; i++) {
			struct gr_ring r;

			if (gr_decode_metadata_ring(rec, &md, i, &r) < 0)
				break;
			printf("    ring ");
			print_ring(&r);
			putchar('\n');
		}
		return;
	}
	case GRTRACE_REC_RING: {
		struct gr_ring r;

		gr_decode_ring(rec, &r);
		putchar(' ');
		print_ring(&r);
		putchar('\n');
		return;
	}
	case GRTRACE_REC_JOB_SUMMARY:
		print_summary(rec);
		return;
	case GRTRACE_REC_TRIGGER:
		print_trigger(rec);
		return;
	case GRTRACE_REC_RECORDER:
		print_recorder(rec);
		return;
	}
	printf(" size=%u\n", (unsigned int)rec->size);
}

static void print_file_header(const struct grf_header *h)
{
	char kernel[4 * sizeof(h->kernel)], host[4 * sizeof(h->host)];
	char clock[4 * sizeof(h->clock)];

	gr_escape(h->kernel, kernel, sizeof(kernel));
	gr_escape(h->host, host, sizeof(host));
	gr_escape(h->clock, clock, sizeof(clock));
	printf("# trace file: version=%u stream_format=%" PRIu32 " cpus=%" PRIu32 " compressed=%s kernel=%s host=%s clock=%s session=%" PRIu64 " started=%" PRIu64 "\n",
	       h->version, h->stream_format, h->nr_cpus,
	       h->flags & GRF_FLAG_ZSTD ? "zstd" : "no", kernel, host, clock,
	       h->session, h->started);
}

/*
 * One channel's bytes as read from events<@cpu>: read in order, converted
 * from format 2 if they are in it.
 */
static void init_channel(struct merge *m, int fd, const char *name,
			 unsigned int cpu, size_t len)
{
	uint8_t first[GR_HDR2_SIZE + 8];
	unsigned int format = 0;
	static char label[64];
	char *names[1] = { label };

	if (len >= sizeof(first) && pread(fd, first, sizeof(first), 0) ==
	    (ssize_t)sizeof(first))
		format = (unsigned int)gr_stream_info_format(first, sizeof(first));
	if (!format)
		format = access(debugfs_dir(), F_OK) ? GRTRACE_FORMAT_VERSION :
			 kernel_stream_format();
	/* The CPU is the number the name ends with: see merge_init_fds(). */
	snprintf(label, sizeof(label), "%s, channel %u", name, cpu);
	merge_init_fds(m, &fd, names, 1, format);
}

int cmd_dump(int argc, char **argv)
{
	const char *input = NULL, *name;
	struct merge m;
	struct gr_rec rec;
	size_t len;
	int c, fd, ret, raw = 0, header = 0;
	long channel = -1;
	char *end;

	/* The library's insides, called here directly, end the tool on OOM. */
	gr_set_oom_handler(oom_exit);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:h", dump_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'r':
			raw = 1;
			break;
		case 'H':
			header = 1;
			break;
		case 'c':
			errno = 0;
			channel = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || channel < 0 ||
			    channel > UINT16_MAX)
				usage_error("dump", "dump: invalid CPU '%s' for --channel",
					    optarg);
			break;
		case 'h':
			fputs(dump_help, stdout);
			return 0;
		case ':':
			usage_error("dump", "dump: option '%s' needs an argument",
				    argv[optind - 1]);
		default:
			usage_error("dump", "dump: unknown option '%s'",
				    argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("dump", "dump: unexpected argument '%s'", argv[optind]);
	input = default_input(input);

	name = strcmp(input, "-") ? input : "<stdin>";
	fd = open_input(input, &len, 0);
	if (channel >= 0)
		init_channel(&m, fd, name, (unsigned int)channel, len);
	else
		merge_init_file(&m, fd, len);
	if (header && m.nfiles)
		print_file_header(&m.file);
	else if (header)
		puts("# bare stream");
	while (merge_next(&m, &rec) > 0) {
		print_record(&rec);
		if (raw) {
			out_flush();
			print_raw(&rec);
		}
	}
	out_flush();
	close(fd);
	ret = m.failed;
	if (ret) {
		/* Records before the bad one go out first, the error last. */
		fflush(stdout);
		err_msg("%s: %s", name, m.errmsg);
	}
	merge_free(&m);
	return ret;
}
