// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace dump: print a recording as text, one line per record in gseq
 * order.  The input is read through libgrtrace's public interface, merged
 * as "report" merges it, so memory does not grow with the file; the text
 * is dump's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/grtrace.h>

#include "grtrace.h"
#include "lib/include/grtrace/grtrace.h"
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

/*
 * A string of the input as dump prints it: bytes outside '!'..'~', and
 * '\', as \xNN, so that a field never holds a space or a control byte.
 */
static void put_escaped(const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x21 && *p <= 0x7e && *p != '\\') {
			putchar(*p);
			continue;
		}
		putchar('\\');
		putchar('x');
		putchar(hex[*p >> 4]);
		putchar(hex[*p & 15]);
	}
}

static void print_ring(const struct grtrace_info_ring *r)
{
	char e[16];

	printf("id=%" PRIu32 " engine=%s", r->ring_id,
	       grtrace_engine_name(r->engine, e, sizeof(e)));
	printf(" instance=%u", (unsigned int)r->instance);
	fputs(" driver=", stdout);
	put_escaped(r->driver);
	fputs(" device=", stdout);
	put_escaped(r->device);
	fputs(" name=", stdout);
	put_escaped(r->name);
}

static void print_raw(grtrace_trace *t)
{
	const uint8_t *data;
	size_t i, n;

	data = grtrace_record_bytes(t, &n);
	for (i = 0; data && i < n; i++) {
		if (i % 16 == 0)
			printf("    %04zx:", i);
		printf(" %02x", data[i]);
		if (i % 16 == 15 || i + 1 == n)
			putchar('\n');
	}
}

/* A job in one record: its key, then each stamp it has, by name. */
static int print_summary(grtrace_trace *t)
{
	struct grtrace_info_summary js = GRTRACE_INFO_SUMMARY_INIT;
	char ebuf[16], tbuf[16];
	unsigned int ty;

	if (grtrace_info_summary(t, &js, NULL) != 1)
		return 0;
	printf(" ctx=%" PRIu64 " seqno=%" PRIu64 " ring=%" PRIu32
	       " engine=%s reason=%s", js.ctx, js.seqno, js.ring_id,
	       grtrace_engine_name(js.engine, ebuf, sizeof(ebuf)),
	       js.reason == GRTRACE_SUMMARY_SLOW ? "slow" :
	       js.reason == GRTRACE_SUMMARY_OPEN ? "open" : "other");
	for (ty = GRTRACE_EV_SUBMIT; ty <= GRTRACE_EV_COMPLETE; ty++) {
		if (!(js.events & (1u << ty)))
			continue;
		printf(" %s=%" PRIu64 "%s", grtrace_type_name(ty, tbuf, sizeof(tbuf)),
		       js.ts[ty - 1], js.derived & (1u << ty) ? "(derived)" : "");
	}
	printf(" waits=%" PRIu32 " wait_ns=%" PRIu64 " threshold=%" PRIu64,
	       js.waits, js.wait_ns, js.threshold);
	if (js.pid)
		printf(" pid=%" PRIu32 " tid=%" PRIu32, js.pid, js.tid);
	putchar('\n');
	return 1;
}

/* What froze a flight recorder snapshot. */
static int print_trigger(grtrace_trace *t)
{
	struct grtrace_info_trigger tr = GRTRACE_INFO_TRIGGER_INIT;
	char cbuf[16];

	if (grtrace_info_trigger(t, &tr, NULL) != 1)
		return 0;
	printf(" cause=%s", grtrace_trigger_cause_name(tr.cause, cbuf, sizeof(cbuf)));
	if (tr.ring_id == GRTRACE_INFO_NO_RING)
		printf(" ring=none");
	else
		printf(" ring=%" PRIu32, tr.ring_id);
	printf(" ctx=%" PRIu64 " seqno=%" PRIu64 " error=%" PRId64
	       " frozen_ts=%" PRIu64 " later_triggers=%" PRIu64
	       " trigger_cpu=%" PRIu32 "\n", tr.ctx, tr.seqno, tr.error,
	       tr.frozen_ts, tr.later_triggers, tr.cpu);
	return 1;
}

/* One CPU's accounting of a snapshot, and whether it adds up. */
static int print_recorder(grtrace_trace *t)
{
	struct grtrace_info_loss rc = GRTRACE_INFO_LOSS_INIT;

	if (grtrace_info_loss(t, &rc, NULL) != 1)
		return 0;
	printf(" of_cpu=%" PRIu32 " first_ts=%" PRIu64 " last_ts=%" PRIu64
	       " emitted=%" PRIu64 " kept=%" PRIu64 " overwritten=%" PRIu64
	       " dropped=%" PRIu64 " buffer_size=%" PRIu64 " balanced=%s\n",
	       rc.cpu, rc.first_ts, rc.last_ts, rc.emitted, rc.kept,
	       rc.overwritten, rc.dropped, rc.buffer_size,
	       grtrace_loss_balanced(&rc) ? "yes" : "no");
	return 1;
}

static int print_stream_info(grtrace_trace *t)
{
	struct grtrace_info_stream si = GRTRACE_INFO_STREAM_INIT;
	char cbuf[16];

	if (grtrace_info_stream(t, &si, NULL) != 1)
		return 0;
	if (si.magic == GRTRACE_MAGIC)
		printf(" magic=ok");
	else
		printf(" magic=0x%08" PRIx32, si.magic);
	printf(" version=%u clock=%s cpus=%" PRIu32 " session=%" PRIu64
	       " features=0x%" PRIx64 "\n", (unsigned int)si.version,
	       grtrace_clock_name(si.clock_id, cbuf, sizeof(cbuf)),
	       si.nr_cpus, si.session_id, si.features);
	return 1;
}

/* A METADATA: the kernel, then its ring table, a line a ring. */
static int print_metadata(grtrace_trace *t)
{
	struct grtrace_info_metadata md = GRTRACE_INFO_METADATA_INIT;
	struct grtrace_info_ring r = GRTRACE_INFO_RING_INIT;
	uint32_t i;

	if (grtrace_info_metadata(t, &md, NULL) != 1)
		return 0;
	fputs(" kernel=", stdout);
	put_escaped(md.kernel);
	printf(" rings=%" PRIu32 "\n", md.nr_rings);
	for (i = 0; i < md.nr_rings; i++) {
		if (grtrace_info_ring(t, i, &r, NULL) != 1)
			break;
		printf("    ring ");
		print_ring(&r);
		putchar('\n');
	}
	return 1;
}

static int print_ring_record(grtrace_trace *t)
{
	struct grtrace_info_ring r = GRTRACE_INFO_RING_INIT;

	if (grtrace_info_ring(t, 0, &r, NULL) != 1)
		return 0;
	putchar(' ');
	print_ring(&r);
	putchar('\n');
	return 1;
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

/* The line of a job event. */
static void print_job(const struct grtrace_record *j)
{
	char tbuf[16], ebuf[16], *line, *p;

	if (out_len + LINE_MAX_LEN > OUT_SIZE)
		out_flush();
	line = p = out_buf + out_len;
	p = put_u64(p, j->ts);
	*p++ = ' ';
	p = put_u64(p, j->cpu);
	*p++ = ' ';
	p = put_u64(p, j->gseq);
	*p++ = ' ';
	p = put_str(p, grtrace_type_name(j->type, tbuf, sizeof(tbuf)));
	p = PUT_LIT(p, " ctx=");
	p = put_u64(p, j->ctx);
	p = PUT_LIT(p, " seqno=");
	p = put_u64(p, j->seqno);
	p = PUT_LIT(p, " ring=");
	p = put_u64(p, j->ring);
	p = PUT_LIT(p, " engine=");
	p = put_str(p, grtrace_engine_name(j->engine, ebuf, sizeof(ebuf)));
	/* ERROR carries a negative errno in aux0. */
	p = PUT_LIT(p, " aux0=");
	if (j->type == GRTRACE_EV_ERROR)
		p = put_i64(p, (int64_t)j->aux0);
	else
		p = put_u64(p, j->aux0);
	p = PUT_LIT(p, " aux1=");
	p = put_u64(p, j->aux1);
	/* Written with the event before it: no time of its own. */
	if (j->flags & GRTRACE_HDR_DERIVED)
		p = PUT_LIT(p, " derived=1");
	/* The task that submitted (format 2). */
	if (j->has_task) {
		p = PUT_LIT(p, " pid=");
		p = put_u64(p, j->pid);
		p = PUT_LIT(p, " tid=");
		p = put_u64(p, j->tid);
	}
	/* The DRM client it was submitted through (aux0 again). */
	if (j->has_client) {
		p = PUT_LIT(p, " client=");
		p = put_u64(p, j->client);
	}
	*p++ = '\n';
	out_len += (size_t)(p - line);
}

/*
 * Record @r, the last @t delivered: a job event's line, or a control
 * record's, what it says read through grtrace_info_*().
 */
static void print_record(grtrace_trace *t, const struct grtrace_record *r)
{
	char tbuf[16];
	int done = 0;

	if (r->is_job) {
		print_job(r);
		return;
	}
	out_flush();
	printf("%" PRIu64 " %u %" PRIu64 " %s", r->ts, (unsigned int)r->cpu,
	       r->gseq, grtrace_type_name(r->type, tbuf, sizeof(tbuf)));
	switch (r->type) {
	case GRTRACE_REC_STREAM_INFO:
		done = print_stream_info(t);
		break;
	case GRTRACE_REC_METADATA:
		done = print_metadata(t);
		break;
	case GRTRACE_REC_RING:
		done = print_ring_record(t);
		break;
	case GRTRACE_REC_JOB_SUMMARY:
		done = print_summary(t);
		break;
	case GRTRACE_REC_TRIGGER:
		done = print_trigger(t);
		break;
	case GRTRACE_REC_RECORDER:
		done = print_recorder(t);
		break;
	}
	if (!done)
		printf(" size=%u\n", (unsigned int)r->rec_size);
}

static void print_file_header(const grtrace_trace *t)
{
	struct grtrace_info_file h = GRTRACE_INFO_FILE_INIT;

	if (grtrace_info_file(t, &h, NULL) != 1) {
		puts("# bare stream");
		return;
	}
	printf("# trace file: version=%u stream_format=%" PRIu32 " cpus=%" PRIu32 " compressed=%s kernel=",
	       h.version, h.stream_format, h.nr_cpus,
	       h.flags & GRTRACE_FILE_ZSTD ? "zstd" : "no");
	put_escaped(h.kernel);
	fputs(" host=", stdout);
	put_escaped(h.host);
	fputs(" clock=", stdout);
	put_escaped(h.clock);
	printf(" session=%" PRIu64 " started=%" PRIu64 "\n", h.session,
	       h.started);
}

/*
 * One channel's bytes as read from events<@cpu>: read in order, converted
 * from format 2 if they are in it (a format 2 STREAM_INFO first says so).
 */
static grtrace_trace *open_channel(int fd, const char *name, unsigned int cpu,
				   size_t len, struct grtrace_error *err)
{
	struct grtrace_channels ch = GRTRACE_CHANNELS_INIT;
	/*
	 * A whole STREAM_INFO of format 1 (64 bytes), which also holds a
	 * format 2 one's header and magic: with fewer bytes a format 1
	 * stream said no format, and was read as the module's (format 2).
	 */
	uint8_t first[sizeof(struct grtrace_stream_info)];
	/* The path whole: the CPU is read back from the label's end. */
	static char label[PATH_MAX + 32];
	const char *names[1] = { label };
	unsigned int format = 0;
	ssize_t got;

	got = pread(fd, first, len < sizeof(first) ? len : sizeof(first), 0);
	if (got > 0)
		format = grtrace_stream_format_of(first, (size_t)got);
	if (!format)
		format = access(debugfs_dir(), F_OK) ? GRTRACE_FORMAT_VERSION :
			 kernel_stream_format();
	/* The CPU is the number the name ends with (grtrace_channels). */
	snprintf(label, sizeof(label), "%s, channel %u", name, cpu);
	ch.n = 1;
	ch.format = format;
	ch.fds = &fd;
	ch.names = names;
	return grtrace_open_channels(&ch, err);
}

/* Every record: job events a batch at a time, each other alone. */
static int dump_records(grtrace_trace *t, int raw, struct grtrace_error *err)
{
	static struct grtrace_record r[256];
	unsigned int want = raw ? 1 : sizeof(r) / sizeof(r[0]);
	int i, n;

	r[0].size = sizeof(r[0]);
	while ((n = grtrace_next_records(t, r, want, err)) > 0) {
		for (i = 0; i < n; i++) {
			print_record(t, &r[i]);
			if (raw) {
				out_flush();
				print_raw(t);
			}
		}
		r[0].size = sizeof(r[0]);
	}
	return n;
}

int cmd_dump(int argc, char **argv)
{
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	const char *input = NULL, *name;
	int c, fd, ret, raw = 0, header = 0;
	long channel = -1;
	grtrace_trace *t;
	size_t len;
	char *end;

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
		t = open_channel(fd, name, (unsigned int)channel, len, &err);
	else
		t = grtrace_open_fd(fd, &err);
	if (!t) {
		err_msg("%s: %s", name, err.msg);
		close(fd);
		return 1;
	}
	if (header)
		print_file_header(t);
	ret = dump_records(t, raw, &err) < 0;
	out_flush();
	if (ret) {
		/* Records before the bad one go out first, the error last. */
		fflush(stdout);
		err_msg("%s: %s", name, err.msg);
	}
	grtrace_close(t);
	close(fd);
	return ret;
}
