// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace format 2 selftests: the default stream, read as the document
 * ("Format 2" in Documentation/gpu/grtrace.rst) describes it, never with
 * the tool's decoder: record sizes, the optional parts and their flags,
 * the submitting task, cseq gaps as loss, gseq as an opt-in, and the bytes
 * against the golden vector made from the document's tables.
 */
#define _GNU_SOURCE
#define GRTRACE_TEST_CONFIG	""	/* the module's defaults: format 2 */

#include <time.h>

#include "kselftest_harness.h"
#include "grtrace_selftest.h"

#define REC2_MAX	16384

struct rec2 {
	__u8 type;
	__u8 flags;
	__u16 size;
	__u32 cseq;
	__u64 ts;
	unsigned char *p;
};

static __u16 le16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static __u32 le32(const unsigned char *p)
{
	return le16(p) | (__u32)le16(p + 2) << 16;
}

static __u64 le64(const unsigned char *p)
{
	return le32(p) | (__u64)le32(p + 4) << 32;
}

/*
 * The records of channel @cpu into @r; their number, or -1 if one is not
 * well formed (size below 16, not a multiple of 4, or past the end).
 */
static long walk2(struct trace *t, int cpu, struct rec2 *r, long max)
{
	size_t off = 0;
	long n = 0;

	while (off < t->len[cpu]) {
		unsigned char *p = t->buf[cpu] + off;
		__u16 size;

		if (t->len[cpu] - off < 16)
			return -1;
		size = le16(p + 2);
		if (size < 16 || size % 4 || off + size > t->len[cpu])
			return -1;
		if (n < max) {
			r[n].type = p[0];
			r[n].flags = p[1];
			r[n].size = size;
			r[n].cseq = le32(p + 4);
			r[n].ts = le64(p + 8);
			r[n].p = p;
		}
		n++;
		off += size;
	}
	return n;
}

static long long config_value(const char *key)
{
	return value_of("config", key);
}

/* Format 2 without gseq is the default; both are fixed for a session. */
TEST_F(grtrace, v2_default_and_fixed_per_session)
{
	EXPECT_EQ(2, config_value("format"));
	EXPECT_EQ(0, config_value("gseq"));
	EXPECT_EQ(-EINVAL, put("config", "format=3"));
	EXPECT_EQ(-EINVAL, put("config", "format=0"));
	EXPECT_EQ(-EINVAL, put("config", "format=two"));
	EXPECT_EQ(2, config_value("format"));
	ASSERT_EQ(0, put("control", "start"));
	EXPECT_EQ(-EBUSY, put("config", "format=1"));
	EXPECT_EQ(-EBUSY, put("config", "gseq=1"));
	EXPECT_EQ(2, config_value("format"));
	ASSERT_EQ(0, put("control", "stop"));
	EXPECT_EQ(0, put("config", "format=1"));
	EXPECT_EQ(1, config_value("format"));
}

/*
 * The bytes equal golden/emit-basic-v2.bin (gen_golden.py, from the
 * document's tables) once ts, nr_cpus, the kernel release and the
 * SUBMIT's task are zeroed; the task is this one.
 */
TEST_F(grtrace, v2_golden_bytes)
{
	static const char * const lines[] = {
		"submit 100 1 0 1", "commit 100 1 0 1", "start 100 1 0 1",
		"end 100 1 0 1", "complete 100 1 0 1",
		"sync_wait_enter 100 1 0 2 200 7",
		"sync_wait_exit 100 1 0 2 200 7", "error 101 2 1 5 -62 0",
	};
	struct rec2 r[16];
	struct trace t;
	long n, i, diff;

	ASSERT_EQ(0, put("control", "start"));
	for (i = 0; i < ARRAY_SIZE(lines); i++)
		ASSERT_EQ(0, put("emit", lines[i]));
	ASSERT_EQ(0, put("control", "stop"));
	ASSERT_LT(0, read_trace(&t));
	n = walk2(&t, 0, r, ARRAY_SIZE(r));
	ASSERT_EQ(10, n);
	for (i = 0; i < n; i++) {
		memset(r[i].p + 8, 0, 8);
		if (r[i].type == GRTRACE_REC2_STREAM_INFO)
			memset(r[i].p + 16 + 12, 0, 4);
		if (r[i].type == GRTRACE_REC2_METADATA)
			memset(r[i].p + 16 + 8, 0, 64);
		if (r[i].flags & GRTRACE_HDR2_TASK) {
			EXPECT_EQ(GRTRACE_EV_SUBMIT, r[i].type);
			EXPECT_EQ(36, r[i].size);
			EXPECT_EQ(getpid(), le32(r[i].p + 28));
			EXPECT_EQ(gettid(), le32(r[i].p + 32));
			memset(r[i].p + 28, 0, 8);
		}
	}
	diff = golden_diff("golden/emit-basic-v2.bin", t.buf[0], t.len[0]);
	EXPECT_EQ((long)t.len[0], diff)
		TH_LOG("-1: not golden/emit-basic-v2.bin's length; else the first difference");
	free_trace(&t);
}

/*
 * A job's five events average 29.6 bytes (a SUBMIT with its task 36, the
 * others 28), and bytes_written counts exactly what the channel holds.
 */
TEST_F(grtrace, v2_job_events_are_compact)
{
	static const char * const types[] = {
		"submit", "commit", "start", "end", "complete",
	};
	char batch[4096];
	struct rec2 *r = calloc(REC2_MAX, sizeof(*r));
	unsigned long long ev_bytes = 0, ctl_bytes = 0, jobs = 0;
	struct trace t;
	long n, i;
	int j, k;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, put("control", "start"));
	for (j = 0; j < 40; j++) {
		size_t used = 0;

		for (k = 0; k < 25; k++)
			for (i = 0; i < ARRAY_SIZE(types); i++)
				used += snprintf(batch + used, sizeof(batch) - used,
						 "%s 7 1 3 %d\n", types[i], j * 25 + k);
		ASSERT_EQ(0, put("emit", batch));
	}
	ASSERT_EQ(0, put("control", "stop"));
	ASSERT_LT(0, read_trace(&t));
	n = walk2(&t, 0, r, REC2_MAX);
	ASSERT_EQ(2 + 5000, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ((__u32)i, r[i].cseq);
		if (i)
			EXPECT_LE(r[i - 1].ts, r[i].ts);
		if (r[i].type >= 32) {
			ctl_bytes += r[i].size;
			continue;
		}
		ev_bytes += r[i].size;
		jobs += r[i].type == GRTRACE_EV_SUBMIT;
		EXPECT_EQ(r[i].type == GRTRACE_EV_SUBMIT ? 36 : 28, r[i].size);
		EXPECT_EQ(r[i].type == GRTRACE_EV_SUBMIT ? GRTRACE_HDR2_TASK : 0,
			  r[i].flags);
		EXPECT_EQ(7, le32(r[i].p + 16));	/* ctx */
		EXPECT_EQ(3, le16(r[i].p + 24));	/* ring_id */
		EXPECT_EQ(1, r[i].p[26]);		/* engine */
	}
	EXPECT_EQ(1000, jobs);
	EXPECT_EQ(1000 * (36 + 4 * 28), ev_bytes);
	EXPECT_LE(ev_bytes, 40 * 5000ULL);
	EXPECT_EQ(ev_bytes, stat_of("bytes_written"));
	EXPECT_EQ(ctl_bytes + ev_bytes, t.len[0]);
	free_trace(&t);
	free(r);
}

/*
 * With gseq=1 every record ends with it: global over both CPUs' channels,
 * 0.. without a hole, and STREAM_INFO says so.
 */
TEST_F(grtrace, v2_gseq_is_opt_in)
{
	struct rec2 *r = calloc(REC2_MAX, sizeof(*r));
	unsigned char seen[512] = { 0 };
	__u64 total = 0, feat, g;
	struct trace t;
	int cpu, ncpu;
	long n, i;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, put("config", "gseq=1"));
	ASSERT_EQ(0, put("control", "start"));
	/* The first start creates the channels. */
	ncpu = nr_channels();
	ASSERT_LT(0, ncpu);
	for (cpu = 0; cpu < ncpu && cpu < 2; cpu++) {
		ASSERT_EQ(0, pin_cpu(cpu));
		ASSERT_EQ(0, emit_n("commit 5 1 0 9", 100));
	}
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, put("control", "stop"));
	ASSERT_LT(0, read_trace(&t));
	for (cpu = 0; cpu < t.nr; cpu++) {
		__u64 last = 0;

		n = walk2(&t, cpu, r, REC2_MAX);
		ASSERT_LE(0, n);
		for (i = 0; i < n; i++) {
			ASSERT_TRUE(r[i].flags & GRTRACE_HDR2_GSEQ);
			EXPECT_EQ(r[i].type < 32 ? 36 : r[i].size, r[i].size);
			g = le64(r[i].p + r[i].size - 8);
			if (i)
				EXPECT_LT(last, g);
			last = g;
			ASSERT_LT(g, sizeof(seen));
			EXPECT_EQ(0, seen[g]);
			seen[g] = 1;
			if (r[i].type == GRTRACE_REC2_STREAM_INFO) {
				feat = le64(r[i].p + 32);
				EXPECT_EQ(GRTRACE_FEAT_GSEQ, feat & GRTRACE_FEAT_GSEQ);
				EXPECT_EQ(GRTRACE_FEAT_CSEQ_LOSS,
					  feat & GRTRACE_FEAT_CSEQ_LOSS);
			}
		}
		total += n;
	}
	EXPECT_EQ(2 + 100 * (ncpu < 2 ? 1 : 2), total);
	for (g = 0; g < total; g++)
		EXPECT_EQ(1, seen[g]) TH_LOG("gseq %llu missing",
					     (unsigned long long)g);
	free_trace(&t);
	free(r);
}

/*
 * Records lost to a full buffer take their cseq: once the reader drained
 * and one more event is written, the gap in CPU 0's cseq is exactly the
 * dropped_buffer_full count.
 */
TEST_F(grtrace, v2_cseq_gap_is_the_loss)
{
	struct rec2 *r = calloc(REC2_MAX, sizeof(*r));
	long long full, written;
	__u64 gaps = 0;
	struct trace t, t2;
	long n, i;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, put("buffer_size", "64K"));
	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, emit_n("commit 1 1 0 1", 3000));	/* 3000 x 28 > 64K */
	full = stat_of("dropped_buffer_full");
	written = stat_of("written");
	EXPECT_LT(0, full);
	EXPECT_EQ(3000, written + full);
	ASSERT_LT(0, read_trace(&t));
	ASSERT_EQ(0, put("emit", "complete 1 1 0 1"));
	ASSERT_EQ(0, put("control", "stop"));
	ASSERT_LT(0, read_trace(&t2));
	ASSERT_EQ(2 + written, walk2(&t, 0, r, REC2_MAX));
	n = walk2(&t, 0, r, REC2_MAX);
	ASSERT_EQ(1, walk2(&t2, 0, r + n, REC2_MAX - n));
	n++;
	for (i = 1; i < n; i++) {
		ASSERT_LT(r[i - 1].cseq, r[i].cseq);
		gaps += r[i].cseq - r[i - 1].cseq - 1;
	}
	EXPECT_EQ(full, gaps);
	EXPECT_EQ(GRTRACE_EV_COMPLETE, r[n - 1].type);
	free_trace(&t);
	free_trace(&t2);
	free(r);
}

/* A number past 32 bits makes the event WIDE: u64 ctx, seqno and aux. */
TEST_F(grtrace, v2_wide_numbers)
{
	struct rec2 r[8];
	struct trace t;

	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, put("emit", "commit 0x123456789 1 2 5"));
	ASSERT_EQ(0, put("emit", "sync_wait_enter 0 0 2 0 0x1ffffffff 3"));
	ASSERT_EQ(0, put("emit", "end 9 1 2 0xfffffffe"));
	ASSERT_EQ(0, put("control", "stop"));
	ASSERT_LT(0, read_trace(&t));
	ASSERT_EQ(5, walk2(&t, 0, r, ARRAY_SIZE(r)));
	EXPECT_EQ(GRTRACE_HDR2_WIDE, r[2].flags);
	EXPECT_EQ(36, r[2].size);
	EXPECT_EQ(0x123456789ULL, le64(r[2].p + 16));
	EXPECT_EQ(5, le64(r[2].p + 24));
	EXPECT_EQ(2, le16(r[2].p + 32));
	EXPECT_EQ(GRTRACE_HDR2_WIDE | GRTRACE_HDR2_AUX, r[3].flags);
	EXPECT_EQ(52, r[3].size);
	EXPECT_EQ(0x1ffffffffULL, le64(r[3].p + 36));
	EXPECT_EQ(3, le64(r[3].p + 44));
	EXPECT_EQ(0, r[4].flags);		/* 32 bits are enough */
	EXPECT_EQ(28, r[4].size);
	EXPECT_EQ(0xfffffffeU, le32(r[4].p + 20));
	free_trace(&t);
}

/* The events a histogram file counts, or -1. */
static long long hist_total(const char *file)
{
	char buf[1024], *line, *save = NULL;
	unsigned long long v, total = 0;

	if (get(file, buf, sizeof(buf)))
		return -1;
	/* The first line gives the bounds, each other one a bucket. */
	line = strtok_r(buf, "\n", &save);
	while ((line = strtok_r(NULL, "\n", &save)))
		if (sscanf(line, "%*s %llu", &v) == 1)
			total += v;
	return total;
}

struct fast_full {
	unsigned char rec[1024];	/* CPU 0's events, cseq and ts zeroed */
	size_t len;
	char pc_stats[4096];
	char by_type[2048];
	char size_hist[1024];
	long long lat_events;
	long long fast;
	long long emit_ns;	/* how long the batch's write took */
};

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One batch of events with @cfg: what was written and counted into @o. */
static int fast_full_run(const char *cfg, const char *batch,
			 struct fast_full *o)
{
	struct rec2 r[64];
	struct trace t;
	int ret = -1;
	long n, i;

	if (put("config", cfg) || put("config", "reset_stats") ||
	    put("control", "start"))
		return -1;
	o->emit_ns = mono_ns();
	if (put("emit", batch))
		return -1;
	o->emit_ns = mono_ns() - o->emit_ns;
	if (put("control", "stop") || read_trace(&t) <= 0)
		return -1;
	n = walk2(&t, 0, r, ARRAY_SIZE(r));
	/* After STREAM_INFO and METADATA. */
	if (n < 3 || n > (long)ARRAY_SIZE(r))
		goto out;
	o->len = t.buf[0] + t.len[0] - r[2].p;
	if (o->len > sizeof(o->rec))
		goto out;
	memcpy(o->rec, r[2].p, o->len);
	/* cseq goes on from the session before: one more per record. */
	for (i = 2; i < n; i++) {
		if (r[i].cseq != r[1].cseq + i - 1)
			goto out;
		memset(o->rec + (r[i].p - r[2].p) + 4, 0, 12);
	}
	o->fast = stat_of("written_fast");
	if (get("pc_stats", o->pc_stats, sizeof(o->pc_stats)) ||
	    get("events_by_type", o->by_type, sizeof(o->by_type)) ||
	    get("size_hist", o->size_hist, sizeof(o->size_hist)))
		goto out;
	o->lat_events = hist_total("latency_hist");
	ret = 0;
out:
	free_trace(&t);
	return ret;
}

/*
 * By default an event takes the event path's fast path, with
 * measure_latency=1 the full one.  Both write the same records, ts aside,
 * and count alike: every optional part, the events the fast path leaves
 * to the full one (WIDE) and one that a filter drops.  Only the latency
 * measurement and written_fast tell the runs apart: the 10 events the fast
 * path takes by default (not WIDE, not COMMIT, which is filtered), less
 * the first of each second on the CPU (that one takes the full path: the
 * batch's first, most likely, and one more for each second that ends
 * during it: on a debug kernel under TCG the batch can take seconds);
 * none with measure_latency=1.
 */
TEST_F(grtrace, v2_fast_and_full_path_agree)
{
	static const char batch[] =
		"submit 7 1 3 1\ncommit 7 1 3 1\nstart 7 2 3 1\n"
		"end 7 2 3 1\ncomplete 7 1 3 1\n"
		"sync_wait_enter 7 1 3 2 8 9\nsync_wait_exit 7 1 3 2 8 0\n"
		"ctx_switch 7 0 65535 0 6 0\nirq 0 4 0 0 0 1\n"
		"error 7 1 3 2 -62 0\nstart 0x100000000 1 3 4\n"
		"submit 7 5 3 0xffffffff\nend 0xffffffff 6 9 3 1 0x1ffffffff\n";
	/* Every type but COMMIT: CTX_SWITCH and IRQ need level=verbose. */
	static const char common[] =
		"level=verbose\nfilter_type_mask=0xfffffffb\nmeasure_latency=";
	static struct fast_full o[2];
	char cfg[128];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(cfg, sizeof(cfg), "%s%d", common, i);
		ASSERT_EQ(0, fast_full_run(cfg, batch, &o[i]));
	}
	EXPECT_EQ(0, o[0].lat_events);
	EXPECT_EQ(13, o[1].lat_events);
	EXPECT_LE(8 - o[0].emit_ns / 1000000000, o[0].fast)
		TH_LOG("the batch took %lld ns", o[0].emit_ns);
	EXPECT_GE(10, o[0].fast);
	EXPECT_EQ(0, o[1].fast);
	/* 12 written: 3 of 28 bytes, 7 of 36 (TASK, AUX or WIDE), 2 of 52. */
	EXPECT_EQ(3 * 28 + 7 * 36 + 2 * 52, o[0].len);
	ASSERT_EQ(o[0].len, o[1].len);
	EXPECT_EQ(0, memcmp(o[0].rec, o[1].rec, o[0].len));
	EXPECT_STREQ(o[0].pc_stats, o[1].pc_stats);
	EXPECT_STREQ(o[0].by_type, o[1].by_type);
	EXPECT_STREQ(o[0].size_hist, o[1].size_hist);
}

/* What one run of quick_drop_run() counted. */
struct quick_run {
	char pc_stats[4096];
	char by_type[2048];
	long long quick, lat_events;
};

/*
 * @n events of four types, after @cfg (with measure_latency=@ml), in a
 * session or (@session 0) while stopped, from CPU 0.
 */
static int quick_drop_run(const char *cfg, int ml, int session, int n,
			  struct quick_run *o)
{
	static const char * const lines[] = {
		"submit 1 1 0 1", "commit 1 1 0 1", "ctx_switch 1 1 0 0 1",
		"irq 0 1 0 0 5",
	};
	char buf[256], batch[2048];
	size_t len = 0;
	int i;

	snprintf(buf, sizeof(buf), "measure_latency=%d\n%s", ml, cfg);
	if (put("config", buf) || put("config", "reset_stats") ||
	    (session && put("control", "start")))
		return -1;
	/*
	 * One write: the events come within a few ms even on a debug kernel
	 * under TCG, where a write each once took past the end of a second
	 * (a rate limit's window, a second's first event on the full path).
	 */
	for (i = 0; i < n; i++) {
		len += snprintf(batch + len, sizeof(batch) - len, "%s\n",
				lines[i % ARRAY_SIZE(lines)]);
		if (len >= sizeof(batch))
			return -1;
	}
	if (put("emit", batch))
		return -1;
	if ((session && put("control", "stop")) ||
	    get("pc_stats", o->pc_stats, sizeof(o->pc_stats)) ||
	    get("events_by_type", o->by_type, sizeof(o->by_type)))
		return -1;
	o->quick = stat_of("quick_drops");
	o->lat_events = hist_total("latency_hist");
	return 0;
}

/*
 * The drops that grtrace_event() decides without masking interrupts
 * (quick_drops: a session stopped or off, each filter, the sampling)
 * count as the full path counts them: with measure_latency=1,
 * which times every drop on the full path, the same counts by reason, by
 * type and by CPU.  By default every drop is quick but the first event of
 * a second on the CPU (at most two here).
 */
TEST_F(grtrace, v2_quick_and_full_drops_agree)
{
	static const struct {
		const char *cfg, *key;
		int session;
		long long count, quick;	/* of @key; drops that may be quick */
	} cases[] = {
		{ "level=verbose\nfilter_type_mask=0xfffffff9",
		  "dropped_filtered_type", 1, 20, 20 },
		{ "level=normal\nfilter_type_mask=0xffffffff",
		  "dropped_level", 1, 20, 20 },
		{ "level=off", "dropped_disabled", 1, 40, 40 },
		{ "level=normal", "dropped_disabled", 0, 40, 40 },
		/* Engine 1, ring 0, context 1 (IRQs: 0). */
		{ "level=verbose\nfilter_engine_mask=0x1",
		  "dropped_filtered_engine", 1, 40, 40 },
		{ "filter_engine_mask=0x7f\nfilter_ring_id=3",
		  "dropped_filtered_ring", 1, 40, 40 },
		{ "filter_ring_id=-1\nwatch_ring_add=3",
		  "dropped_filtered_watch", 1, 40, 40 },
		{ "watch_ring_clear\nwatch_ctx_add=1",
		  "dropped_filtered_watch", 1, 10, 10 },
		/* Kept by a filter, then sampled out. */
		{ "watch_ctx_clear\nfilter_ring_id=0\nsample=50",
		  "dropped_sampled", 1, 20, 20 },
		{ "filter_ring_id=-1\nsample=25", "dropped_sampled", 1, 30, 30 },
		{ "sample=100\nsample_every=4", "dropped_sampled", 1, 30, 30 },
		/* Both sampling settings: the full path's. */
		{ "sample=50\nsample_every=2", "dropped_sampled", 1, 30, 0 },
		{ "sample=100\nsample_every=0", "written", 1, 40, 0 },
	};
	struct quick_run o[2];
	long long d[2];
	int c, ml;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		for (ml = 0; ml < 2; ml++) {
			ASSERT_EQ(0, quick_drop_run(cases[c].cfg, ml,
						    cases[c].session, 40,
						    &o[ml]));
			d[ml] = stat_of(cases[c].key);
			EXPECT_EQ(40, stat_of("emitted"));
			EXPECT_EQ(40, stat_of("written") +
				      stat_of("dropped_total"));
			EXPECT_EQ(ml ? 40 : 0, o[ml].lat_events);
		}
		ksft_print_msg("%s: %s=%lld, quick %lld and %lld\n",
			       cases[c].cfg, cases[c].key, d[0], o[0].quick,
			       o[1].quick);
		EXPECT_EQ(cases[c].count, d[0]);
		EXPECT_EQ(d[0], d[1]);
		/* The first event of a second on a CPU: the full path's. */
		EXPECT_LE(cases[c].quick - 2, o[0].quick);
		EXPECT_GE(cases[c].quick, o[0].quick);
		EXPECT_EQ(0, o[1].quick);
		EXPECT_STREQ(o[0].pc_stats, o[1].pc_stats);
		EXPECT_STREQ(o[0].by_type, o[1].by_type);
	}
}

/*
 * A rate limit that a CPU saw reached drops the next events quick, on its
 * note, until the second is over; the accounting stays exact, and with
 * measure_latency=1 none is quick.  The burst starts 100 ms into a second
 * of the clock (CLOCK_MONOTONIC, as the window's), so that it ends in it.
 */
TEST_F(grtrace, v2_rate_limit_drops_quick)
{
	struct timespec next;
	struct quick_run o;
	int ml;

	for (ml = 0; ml < 2; ml++) {
		ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &next));
		next.tv_sec++;
		next.tv_nsec = 100000000;
		ASSERT_EQ(0, clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					     &next, NULL));
		ASSERT_EQ(0, quick_drop_run("level=verbose\nmax_events_per_sec=1",
					    ml, 1, 40, &o));
		ksft_print_msg("measure_latency=%d: written %lld, rate_limited %lld, quick %lld\n",
			       ml, stat_of("written"),
			       stat_of("dropped_rate_limited"), o.quick);
		EXPECT_EQ(1, stat_of("written"));
		EXPECT_EQ(39, stat_of("dropped_rate_limited"));
		EXPECT_EQ(40, stat_of("emitted"));
		/* The first drop notes the limit: at most 2 more seconds. */
		EXPECT_LE(ml ? 0 : 36, o.quick);
		EXPECT_GE(ml ? 0 : 38, o.quick);
	}
}

/*
 * With its CPU's buffer full and no reader, an event of the fast path is
 * dropped there, interrupts on (quick_drops), as the full path drops it
 * with measure_latency=1: the same events written, the same number
 * dropped as buffer_full.  (v2_cseq_gap_is_the_loss checks the gap they
 * leave in cseq.)
 */
TEST_F(grtrace, v2_full_buffer_drops_quick)
{
	long long w[2], d[2], q[2];
	char cfg[32];
	int ml;

	for (ml = 0; ml < 2; ml++) {
		snprintf(cfg, sizeof(cfg), "measure_latency=%d", ml);
		ASSERT_EQ(0, put("config", cfg));
		/* New, empty buffers. */
		ASSERT_EQ(0, put("buffer_size", "128K"));
		ASSERT_EQ(0, put("buffer_size", "64K"));
		ASSERT_EQ(0, put("config", "reset_stats"));
		ASSERT_EQ(0, put("control", "start"));
		ASSERT_EQ(0, emit_n("submit 1 1 0 1", 5000));
		ASSERT_EQ(0, put("control", "stop"));
		w[ml] = stat_of("written");
		d[ml] = stat_of("dropped_buffer_full");
		q[ml] = stat_of("quick_drops");
		ksft_print_msg("measure_latency=%d: written %lld, buffer_full %lld, quick %lld\n",
			       ml, w[ml], d[ml], q[ml]);
		EXPECT_EQ(5000, w[ml] + d[ml]);
		EXPECT_EQ(d[ml], stat_of("dropped_total"));
		/* 64K holds less than 2000 SUBMITs of 36 bytes. */
		EXPECT_LT(3000, d[ml]);
	}
	EXPECT_EQ(w[0], w[1]);
	/* The first event of a second on a CPU: the full path's. */
	EXPECT_LE(d[0] - 2, q[0]);
	EXPECT_GE(d[0], q[0]);
	EXPECT_EQ(0, q[1]);
}

/* Format 1 stays available, as it was: 72-byte events with cpu and gseq. */
TEST_F(grtrace, v1_on_request)
{
	struct trace t;
	struct grtrace_hdr *h;

	ASSERT_EQ(0, put("config", "format=1\ngseq=1"));
	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, put("emit", "submit 1 1 0 1"));
	ASSERT_EQ(0, put("control", "stop"));
	ASSERT_LT(0, read_trace(&t));
	ASSERT_EQ(64 + 104 + 72, t.len[0]);
	h = rec_at(&t, 0, 0);
	EXPECT_EQ(GRTRACE_REC_STREAM_INFO, h->type);
	EXPECT_EQ(1, ((struct grtrace_stream_info *)h)->version);
	h = rec_at(&t, 0, 64 + 104);
	EXPECT_EQ(GRTRACE_EV_SUBMIT, h->type);
	EXPECT_EQ(72, h->size);
	EXPECT_EQ(2, h->gseq);
	free_trace(&t);
}

int main(int argc, char **argv)
{
	return grtrace_selftest_main(argc, argv);
}
