// SPDX-License-Identifier: GPL-2.0
/*
 * gen-trace: write a large synthetic trace shaped like "grtrace record"
 * output, for benchmarks.
 *
 * Usage: gen-trace [-c CPUS] [-r RINGS] [-s SEED] SIZE_MB FILE
 *
 * Every ring runs jobs in order, five in flight: each round of 10 us, ring r
 * submits job n, commits n-1, starts n-2, ends n-3 and completes n-4, with
 * jitter.  Every fourth ring reports no START (its start is derived), one
 * job in 16 waits on a fence, one in 1000 fails.  Records are spread over
 * the CPUs and written as per-CPU chunks of 64 KiB, in time order, as the
 * record command writes them.  The stream is independent of the decoder:
 * the layouts come from the uapi header.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/grtrace.h>

#define CHUNK		(64u << 10)
#define MAX_CPUS	256
#define MAX_RINGS	64
#define ROUND_NS	10000
#define IN_FLIGHT	5

struct cpu_buf {
	uint8_t data[CHUNK];
	size_t len;
	uint64_t cseq;
};

static struct cpu_buf *cpus;
static unsigned int ncpus = 2, nrings = 4;
static uint64_t gseq, written, rng = 0x9e3779b97f4a7c15ULL;
static FILE *out;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void flush_cpu(struct cpu_buf *c)
{
	if (c->len && fwrite(c->data, 1, c->len, out) != c->len) {
		perror("gen-trace: write");
		exit(1);
	}
	written += c->len;
	c->len = 0;
}

/* A record of @size bytes on @cpu; returns its payload to fill in. */
static void *record(unsigned int cpu, uint16_t type, uint16_t size, uint64_t ts)
{
	struct cpu_buf *c = &cpus[cpu];
	struct grtrace_hdr h = {
		.type = type, .size = size, .cpu = (uint16_t)cpu, .ts = ts,
		.gseq = gseq++, .cseq = c->cseq++,
	};

	if (c->len + size > CHUNK)
		flush_cpu(c);
	memcpy(c->data + c->len, &h, sizeof(h));
	memset(c->data + c->len + sizeof(h), 0, size - sizeof(h));
	c->len += size;
	return c->data + c->len - size + sizeof(h);
}

static void session_start(void)
{
	struct grtrace_stream_info si = {
		.magic = GRTRACE_MAGIC, .version = GRTRACE_FORMAT_VERSION,
		.hdr_size = sizeof(struct grtrace_hdr), .clock_id = 1,
		.nr_cpus = ncpus, .features = 7, .session_id = 1,
	};
	uint16_t size = (uint16_t)(sizeof(struct grtrace_metadata) +
				   nrings * sizeof(struct grtrace_ring_desc));
	struct grtrace_metadata md = {
		.nr_rings = nrings, .ring_size = sizeof(struct grtrace_ring_desc),
	};
	uint8_t *p;
	unsigned int r;

	memcpy(record(0, GRTRACE_REC_STREAM_INFO, sizeof(si), 1000) , &si.magic,
	       sizeof(si) - sizeof(si.hdr));
	p = record(0, GRTRACE_REC_METADATA, size, 1000);
	strcpy(md.kernel, "gen-trace");
	memcpy(p, &md.nr_rings, sizeof(md) - sizeof(md.hdr));
	for (r = 0; r < nrings; r++) {
		struct grtrace_ring_desc d = {
			.ring_id = r, .engine = (uint16_t)(1 + r % 4),
		};

		strcpy(d.driver, "gen");
		strcpy(d.device, "0000:00:02.0");
		snprintf(d.name, sizeof(d.name), "ring%u", r);
		memcpy(p + sizeof(md) - sizeof(md.hdr) + r * sizeof(d), &d,
		       sizeof(d));
	}
}

static void job_event(unsigned int cpu, uint16_t type, uint64_t ts,
		      unsigned int ring, uint64_t job, uint64_t aux0)
{
	struct grtrace_job_event *e = (void *)((uint8_t *)record(cpu, type,
			sizeof(*e), ts) - sizeof(struct grtrace_hdr));

	e->ctx = 1000 + ring * 100 + job % 8;
	e->seqno = job;
	e->ring_id = ring;
	e->engine = (uint16_t)(1 + ring % 4);
	e->aux0 = aux0;
}

/* One round: the five phases of the jobs in flight on every ring. */
static void round_events(uint64_t n)
{
	static const uint16_t phase_type[IN_FLIGHT] = {
		GRTRACE_EV_SUBMIT, GRTRACE_EV_COMMIT, GRTRACE_EV_START,
		GRTRACE_EV_END, GRTRACE_EV_COMPLETE,
	};
	uint64_t base = 2000 + n * ROUND_NS;
	unsigned int ph, r;

	for (ph = 0; ph < IN_FLIGHT; ph++) {
		for (r = 0; r < nrings; r++) {
			uint64_t job = n - ph, ts = base + ph * 1800 + r * 20 +
						       rnd() % 16;
			unsigned int cpu = (r + ph) % ncpus;

			if (n < ph || (phase_type[ph] == GRTRACE_EV_START && r % 4 == 3))
				continue;
			if (phase_type[ph] == GRTRACE_EV_COMMIT && job % 16 == 0)
				job_event(cpu, GRTRACE_EV_SYNC_WAIT_EXIT, ts - 5, r,
					  job, 7);
			job_event(cpu, phase_type[ph], ts, r, job, 0);
			if (phase_type[ph] == GRTRACE_EV_SUBMIT && job % 16 == 0)
				job_event(cpu, GRTRACE_EV_SYNC_WAIT_ENTER, ts + 5,
					  r, job, 7);
			if (phase_type[ph] == GRTRACE_EV_END && job % 1000 == 999)
				job_event(cpu, GRTRACE_EV_ERROR, ts + 1, r, job,
					  (uint64_t)-62);
		}
	}
}

int main(int argc, char **argv)
{
	uint64_t target, n;
	unsigned int i;
	int c;

	while ((c = getopt(argc, argv, "c:r:s:")) != -1) {
		switch (c) {
		case 'c': ncpus = (unsigned int)atoi(optarg); break;
		case 'r': nrings = (unsigned int)atoi(optarg); break;
		case 's': rng = strtoull(optarg, NULL, 0) | 1; break;
		default: goto usage;
		}
	}
	if (argc - optind != 2 || !ncpus || ncpus > MAX_CPUS || !nrings ||
	    nrings > MAX_RINGS)
		goto usage;
	target = strtoull(argv[optind], NULL, 10) << 20;
	out = fopen(argv[optind + 1], "w");
	cpus = calloc(ncpus, sizeof(*cpus));
	if (!out || !cpus) {
		fprintf(stderr, "gen-trace: %s: %s\n", argv[optind + 1],
			strerror(errno));
		return 1;
	}
	session_start();
	for (n = 0; written < target; n++)
		round_events(n);
	for (i = 0; i < ncpus; i++)
		flush_cpu(&cpus[i]);
	if (fclose(out)) {
		perror("gen-trace: close");
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: gen-trace [-c CPUS] [-r RINGS] [-s SEED] SIZE_MB FILE\n");
	return 1;
}
