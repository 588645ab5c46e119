// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace dump: print a recorded stream as text, one line per record in
 * gseq order.
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
#include "stream.h"
#include "util.h"

static const char dump_help[] =
	"Usage: grtrace dump [-i FILE] [--raw]\n"
	"\n"
	"Print the records of a stream written by 'grtrace record', one line per\n"
	"record ordered by gseq:\n"
	"  <ts_ns> <cpu> <gseq> <TYPE> key=value ...\n"
	"\n"
	"Options:\n"
	"  -i, --input FILE  the stream to read; '-' is standard input, which is\n"
	"                    also the default when it is not a terminal\n"
	"      --raw         after each record's line, its bytes in hex, 16 a line\n"
	"                    with their offset in the record\n"
	"  -h, --help        show this help\n"
	"\n"
	"A truncated or corrupt stream prints the records before the bad one, then\n"
	"an error naming its byte offset, and exits with status 1.\n";

static const struct option dump_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "raw",   no_argument,       NULL, 'r' },
	{ "help",  no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct sort_ent {
	uint64_t gseq;
	size_t idx;		/* position in the file: keeps the sort stable */
	struct gr_rec rec;
};

static int cmp_ent(const void *a, const void *b)
{
	const struct sort_ent *x = a, *y = b;

	if (x->gseq != y->gseq)
		return x->gseq < y->gseq ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

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

static void print_record(const struct gr_rec *rec)
{
	char tbuf[16], ebuf[16];
	const char *tname = gr_type_name(rec->type, tbuf, sizeof(tbuf));

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
	}
	printf(" size=%u\n", (unsigned int)rec->size);
}

int cmd_dump(int argc, char **argv)
{
	const char *input = NULL, *name;
	struct sort_ent *ents = NULL;
	size_t nents = 0, cap = 0, len, i;
	struct gr_iter it;
	struct gr_rec rec;
	uint8_t *buf;
	int c, fd, ret, raw = 0;

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
	if (!input) {
		if (isatty(STDIN_FILENO))
			usage_error("dump", "dump: no input; use -i FILE, or -i - for standard input");
		input = "-";
	}

	if (!strcmp(input, "-")) {
		name = "<stdin>";
		fd = STDIN_FILENO;
	} else {
		name = input;
		fd = open(input, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fatal_errno("cannot open %s", input);
	}
	if (read_all(fd, &buf, &len) < 0)
		fatal_errno("cannot read %s", name);
	if (fd != STDIN_FILENO)
		close(fd);

	gr_iter_init(&it, buf, len);
	while ((ret = gr_iter_next(&it, &rec)) > 0) {
		if (nents == cap) {
			cap = cap ? cap * 2 : 1024;
			ents = xrealloc(ents, cap * sizeof(*ents));
		}
		ents[nents].gseq = rec.gseq;
		ents[nents].idx = nents;
		ents[nents].rec = rec;
		nents++;
	}
	if (nents)
		qsort(ents, nents, sizeof(*ents), cmp_ent);
	for (i = 0; i < nents; i++) {
		print_record(&ents[i].rec);
		if (raw)
			print_raw(&ents[i].rec);
	}

	free(ents);
	free(buf);
	if (ret < 0) {
		/* Records before the bad one go out first, the error last. */
		fflush(stdout);
		err_msg("%s: %s", name, it.errmsg);
		return 1;
	}
	return 0;
}
