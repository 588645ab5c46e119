// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace core selftests: load/unload, the stream's first records, gseq
 * order across CPUs, sessions, exact accounting, golden bytes and every
 * bad input of the control files.
 *
 * Each test loads a fresh grtrace.ko (path in $GRTRACE_KO) and unloads it,
 * so sequence numbers start from zero.  Must run as root, in a VM.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "grtrace_selftest.h"

TEST_F(grtrace, files_are_root_only)
{
	static const char * const files[] = {
		"control", "config", "stats", "events_by_type", "rings",
		"version", "buffer_size", "emit", "events0",
	};
	char buf[256];
	struct stat st;
	int i;

	/* The first start creates the events files; they stay after it. */
	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, put("control", "stop"));
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(buf, sizeof(buf), DIR "/%s", files[i]);
		ASSERT_EQ(0, stat(buf, &st)) TH_LOG("%s missing", files[i]);
		EXPECT_EQ(0, st.st_mode & 077) TH_LOG("%s mode %o", files[i],
						      st.st_mode & 0777);
	}
	ASSERT_EQ(0, get("version", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "format_version=2\nformats=1 2\n"));
	ASSERT_EQ(0, get("control", buf, sizeof(buf)));
	EXPECT_STREQ("stopped\n", buf);
	/* relay gives a buffer to the CPUs online, not to every possible. */
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN), nr_channels());
}

TEST_F(grtrace, buffers_allocated_at_first_start)
{
	/* The suite keeps every CPU online: one buffer each. */
	long nr = sysconf(_SC_NPROCESSORS_ONLN);
	char buf[64];

	/* Loaded and never started: no buffer, no events file. */
	EXPECT_EQ(0, stat_of("buffer_allocated"));
	EXPECT_EQ(0, nr_channels());
	/* A size set before the first start allocates nothing either. */
	ASSERT_EQ(0, put("buffer_size", "64K"));
	ASSERT_EQ(0, get("buffer_size", buf, sizeof(buf)));
	EXPECT_STREQ("65536\n", buf);
	EXPECT_EQ(0, stat_of("buffer_allocated"));
	EXPECT_EQ(-EINVAL, put("buffer_size", "100K"));
	EXPECT_EQ(0, nr_channels());
	/* Events before the first start are counted, not lost. */
	ASSERT_EQ(0, put("emit", "submit 100 0 1 1"));
	EXPECT_EQ(1, stat_of("dropped_disabled"));
	ASSERT_EQ(0, put("control", "start"));
	EXPECT_EQ(nr, nr_channels());
	EXPECT_EQ(nr * 65536, stat_of("buffer_allocated"));
	ASSERT_EQ(0, put("emit", "submit 100 0 1 2"));
	ASSERT_EQ(0, put("control", "stop"));
	/* Stopped, the buffers stay readable; a resize replaces them. */
	EXPECT_EQ(nr, nr_channels());
	ASSERT_EQ(0, put("buffer_size", "128K"));
	EXPECT_EQ(nr * 131072, stat_of("buffer_allocated"));
	EXPECT_EQ(1, stat_of("written"));
}

TEST_F(grtrace, buffer_size_module_parameter)
{
	char buf[64];

	ASSERT_EQ(0, unload_module());
	EXPECT_EQ(-EINVAL, load_module("buffer_size=100K"));
	EXPECT_EQ(-EINVAL, load_module("buffer_size=lots"));
	EXPECT_EQ(-EINVAL, load_module("buffer_size=512M"));
	ASSERT_EQ(0, load_module("buffer_size=8M"));
	ASSERT_EQ(0, get("buffer_size", buf, sizeof(buf)));
	EXPECT_STREQ("8388608\n", buf);
}

TEST_F(grtrace, emit_three_written_three)
{
	char buf[64];

	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, get("control", buf, sizeof(buf)));
	EXPECT_STREQ("started\n", buf);
	ASSERT_EQ(0, put("emit", "submit 100 0 1 1\n"));
	ASSERT_EQ(0, put("emit", "emit submit 100 0 2 1\n"));
	ASSERT_EQ(0, put("emit", "complete 100 0 1 1"));
	ASSERT_EQ(0, put("control", "stop"));
	EXPECT_EQ(3, stat_of("written"));
	EXPECT_EQ(3, stat_of("emitted"));
	EXPECT_EQ(0, stat_of("dropped_total"));
	EXPECT_EQ(3 * sizeof(struct grtrace_job_event), stat_of("bytes_written"));
	EXPECT_EQ(1, stat_of("session"));
	EXPECT_EQ(0, stat_of("enabled"));
	/* While stopped, events are counted as dropped, not lost. */
	ASSERT_EQ(0, put("emit", "submit 100 0 1 2"));
	EXPECT_EQ(4, stat_of("emitted"));
	EXPECT_EQ(1, stat_of("dropped_disabled"));
}

TEST_F(grtrace, stream_starts_with_info_and_metadata)
{
	struct collect *c = calloc(1, sizeof(*c));
	struct grtrace_stream_info *si;
	struct grtrace_metadata *md;
	struct grtrace_job_event *ev;
	struct trace t;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, put("emit", "commit 7 2 3 9 5 6"));
	ASSERT_EQ(0, put("control", "stop"));
	ASSERT_LT(0, read_trace(&t));
	ASSERT_EQ(3, merge(&t, collect_fn, c));

	si = (void *)c->rec[0];
	ASSERT_EQ(GRTRACE_REC_STREAM_INFO, si->hdr.type);
	EXPECT_EQ(GRTRACE_MAGIC, si->magic);
	EXPECT_EQ(GRTRACE_FORMAT_V1, si->version);
	EXPECT_EQ(sizeof(struct grtrace_hdr), si->hdr_size);
	EXPECT_EQ(GRTRACE_CLOCK_MONOTONIC, si->clock_id);
	EXPECT_EQ(1, si->session_id);
	/* CPU ids, as the stats file's nr_cpus: not every id has a buffer. */
	EXPECT_EQ(stat_of("nr_cpus"), si->nr_cpus);
	EXPECT_LE(t.nr, si->nr_cpus);

	md = (void *)c->rec[1];
	ASSERT_EQ(GRTRACE_REC_METADATA, md->hdr.type);
	EXPECT_EQ(sizeof(struct grtrace_ring_desc), md->ring_size);
	EXPECT_LE(si->hdr.ts, md->hdr.ts);

	ev = (void *)c->rec[2];
	ASSERT_EQ(GRTRACE_EV_COMMIT, ev->hdr.type);
	EXPECT_EQ(sizeof(*ev), ev->hdr.size);
	EXPECT_EQ(7, ev->ctx);
	EXPECT_EQ(2, ev->engine);
	EXPECT_EQ(3, ev->ring_id);
	EXPECT_EQ(9, ev->seqno);
	EXPECT_EQ(5, ev->aux0);
	EXPECT_EQ(6, ev->aux1);
	EXPECT_LE(md->hdr.ts, ev->hdr.ts);
	free_trace(&t);
	free(c);
}

TEST_F(grtrace, gseq_increases_across_cpus)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), i;
	__u64 seen[2] = { 0 };
	struct trace t;

	if (cpus < 2)
		SKIP(return, "needs two online CPUs");
	ASSERT_EQ(0, put("control", "start"));
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(0, pin_cpu(i % 2));
		ASSERT_EQ(0, put("emit", "submit 1 1 0 1\nend 1 1 0 1"));
	}
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, put("control", "stop"));
	EXPECT_EQ(400, stat_of("written"));
	ASSERT_LT(0, read_trace(&t));
	/* merge() fails on any gseq that does not strictly increase. */
	ASSERT_EQ(402, merge(&t, NULL, NULL));
	for (i = 0; i < 2; i++) {
		struct grtrace_hdr *h;
		size_t off = 0;
		__u64 cseq = 0;

		while ((h = rec_at(&t, i, off))) {
			if (seen[i]++)
				EXPECT_EQ(cseq + 1, h->cseq);
			cseq = h->cseq;
			off += h->size;
		}
	}
	/* Both CPUs wrote 200 events; CPU 0 also the two session records. */
	EXPECT_EQ(202, seen[0]);
	EXPECT_EQ(200, seen[1]);
	free_trace(&t);
}

TEST_F(grtrace, start_stop_start)
{
	struct collect *c = calloc(1, sizeof(*c));
	struct trace t;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, put("control", "start"));	/* idempotent */
	ASSERT_EQ(0, put("emit", "submit 1 1 0 1"));
	ASSERT_EQ(0, put("control", "stop"));
	ASSERT_EQ(0, put("control", "stop"));	/* idempotent */
	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, put("emit", "submit 1 1 0 2\nsubmit 1 1 0 3"));
	ASSERT_EQ(0, put("control", "stop"));
	EXPECT_EQ(2, stat_of("session"));
	EXPECT_EQ(3, stat_of("written"));
	ASSERT_LT(0, read_trace(&t));
	ASSERT_EQ(7, merge(&t, collect_fn, c));
	EXPECT_EQ(GRTRACE_REC_STREAM_INFO, c->rec[0]->type);
	EXPECT_EQ(GRTRACE_REC_METADATA, c->rec[1]->type);
	EXPECT_EQ(GRTRACE_EV_SUBMIT, c->rec[2]->type);
	ASSERT_EQ(GRTRACE_REC_STREAM_INFO, c->rec[3]->type);
	EXPECT_EQ(2, ((struct grtrace_stream_info *)c->rec[3])->session_id);
	EXPECT_EQ(GRTRACE_REC_METADATA, c->rec[4]->type);
	EXPECT_EQ(3, ((struct grtrace_job_event *)c->rec[6])->seqno);
	free_trace(&t);
	free(c);
}

/*
 * A resize throws away what nobody read, and says how much: a session read
 * whole gives its size, the same session left unread and resized away
 * must add exactly that to discarded_bytes; a read one adds nothing.
 */
TEST_F(grtrace, resize_counts_discarded_bytes)
{
	struct trace t;
	long total;

	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, emit_n("submit 1 1 0 1", 10));
	ASSERT_EQ(0, put("control", "stop"));
	total = read_trace(&t);
	free_trace(&t);
	ASSERT_LT(0, total);
	ASSERT_EQ(0, put("buffer_size", "64K"));
	EXPECT_EQ(0, stat_of("discarded_bytes"));

	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, emit_n("submit 1 1 0 1", 10));
	ASSERT_EQ(0, put("control", "stop"));
	ASSERT_EQ(0, put("buffer_size", "128K"));
	EXPECT_EQ(total, stat_of("discarded_bytes"));
	EXPECT_EQ(total, pc_stat_of(0, "discarded_bytes"));
}

/*
 * The bytes the module writes for a known sequence equal the golden vector
 * made from the documented format by golden/gen_golden.py, once ts, cpu,
 * nr_cpus and the kernel release are zeroed.
 */
TEST_F(grtrace, golden_bytes)
{
	static const char * const lines[] = {
		"submit 100 1 0 1", "commit 100 1 0 1", "start 100 1 0 1",
		"end 100 1 0 1", "complete 100 1 0 1",
		"sync_wait_enter 100 1 0 2 200 7",
		"sync_wait_exit 100 1 0 2 200 7", "error 101 2 1 5 -62 0",
	};
	struct trace t;
	size_t off = 0;
	long diff;
	int i;

	ASSERT_EQ(0, put("control", "start"));
	for (i = 0; i < ARRAY_SIZE(lines); i++)
		ASSERT_EQ(0, put("emit", lines[i]));
	ASSERT_EQ(0, put("control", "stop"));
	ASSERT_LT(0, read_trace(&t));
	for (i = 1; i < t.nr; i++)
		EXPECT_EQ(0, t.len[i]) TH_LOG("data on CPU %d", i);

	while (off < t.len[0]) {
		struct grtrace_hdr *h = rec_at(&t, 0, off);

		ASSERT_NE(NULL, h);
		h->ts = 0;
		h->cpu = 0;
		if (h->type == GRTRACE_REC_STREAM_INFO)
			((struct grtrace_stream_info *)h)->nr_cpus = 0;
		if (h->type == GRTRACE_REC_METADATA)
			memset(((struct grtrace_metadata *)h)->kernel, 0, 64);
		off += h->size;
	}
	diff = golden_diff("golden/emit-basic.bin", t.buf[0], t.len[0]);
	EXPECT_EQ((long)t.len[0], diff)
		TH_LOG("-1: not golden/emit-basic.bin's length; else the first difference");
	free_trace(&t);
}

/* A full buffer drops new events and counts every one of them. */
TEST_F(grtrace, buffer_full_is_counted)
{
	char batch[4096] = "";
	long long written, full;
	struct trace t;
	int i;

	ASSERT_EQ(0, put("buffer_size", "64K"));
	ASSERT_EQ(0, put("control", "start"));
	for (i = 0; i < 50; i++)
		strcat(batch, "submit 1 1 0 1\n");
	for (i = 0; i < 40; i++)	/* 2000 x 72 bytes > 64K */
		ASSERT_EQ(0, put("emit", batch));
	ASSERT_EQ(0, put("control", "stop"));
	written = stat_of("written");
	full = stat_of("dropped_buffer_full");
	EXPECT_LT(0, full);
	EXPECT_EQ(2000, written + full);
	EXPECT_EQ(2000, stat_of("emitted"));
	ASSERT_LT(0, read_trace(&t));
	EXPECT_EQ(written + 2, merge(&t, NULL, NULL));
	free_trace(&t);
}

TEST_F(grtrace, unload_while_started)
{
	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, put("emit", "submit 1 1 0 1"));
	ASSERT_EQ(0, unload_module());
	self->loaded = 0;
	EXPECT_NE(0, access(DIR, F_OK));
}

/* The test-only emit file exists only when asked for. */
TEST_F(grtrace, emit_is_opt_in)
{
	ASSERT_EQ(0, unload_module());
	ASSERT_EQ(0, load_module_raw(""));
	EXPECT_EQ(-1, access(DIR "/emit", F_OK));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, access(DIR "/control", F_OK));
	ASSERT_EQ(0, unload_module());
	ASSERT_EQ(0, load_module(""));
	EXPECT_EQ(0, access(DIR "/emit", F_OK));
}

/* MemTotal of /proc/meminfo in bytes, or 0. */
static unsigned long long mem_total(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

/*
 * The buffers of all CPUs may take at most a quarter of the RAM: the
 * smallest size over that is refused, at load and on a resize, and
 * nothing changes.
 */
TEST_F(grtrace, buffer_size_is_capped_by_ram)
{
	unsigned long long ram = mem_total(), over;
	int cpus = stat_of("nr_cpus");
	char arg[64], buf[64];

	ASSERT_LT(0, ram);
	ASSERT_LT(0, cpus);
	over = (ram / 4 / cpus / 32768 + 1) * 32768;
	if (over > 256ULL << 20)
		SKIP(return, "RAM too large for the cap to bite below 256M");
	TH_LOG("%d CPUs, MemTotal %llu: %llu bytes per CPU is over the cap",
	       cpus, ram, over);
	snprintf(arg, sizeof(arg), "%llu", over);
	EXPECT_EQ(-EINVAL, put("buffer_size", arg));
	ASSERT_EQ(0, get("buffer_size", buf, sizeof(buf)));
	EXPECT_STREQ("4194304\n", buf);
	unload_module();
	snprintf(arg, sizeof(arg), "buffer_size=%llu", over);
	EXPECT_EQ(-EINVAL, load_module(arg));
	ASSERT_EQ(0, load_module(""));
}

/* Every bad write fails with EINVAL and changes nothing. */
TEST_F(grtrace, bad_input_changes_nothing)
{
	static const struct { const char *file, *text; } bad[] = {
		{ "control", "frobnicate" }, { "control", "" },
		{ "control", "start stop" },
		{ "config", "no_such_key=1" }, { "config", "level=loud" },
		{ "config", "filter_type_mask=zz" },
		{ "config", "filter_type_mask=0x1ffffffff" },
		{ "config", "filter_engine_mask=0x80" },
		{ "config", "filter_ring_id=65536" },
		{ "config", "filter_ring_id=-2" },
		{ "config", "level=verbose\nfilter_ring_id=70000" },
		{ "config", "clock=tai" }, { "config", "reset_stats=2" },
		{ "config", "=" }, { "config", "\n\n" },
		{ "buffer_size", "abc" }, { "buffer_size", "1000" },
		{ "buffer_size", "32K" }, { "buffer_size", "512M" },
		{ "buffer_size", "100K" }, { "buffer_size", "64Kx" },
		{ "emit", "submit 1 2 3" }, { "emit", "submit" },
		{ "emit", "emit" }, { "emit", "submit 1 1 0 1 2 3 4" },
		{ "emit", "launch 1 1 0 1" }, { "emit", "submit x 1 0 1" },
		{ "emit", "submit 1 7 0 1" }, { "emit", "submit 1 1 65536 1" },
		{ "emit", "submit 1 1 0 1\nsubmit 1 1 0" },
		{ "emit", "submit 1 1 0 99999999999999999999" },
		/* A knob file sets its key alone. */
		{ "level", "verbose\nsample_every=5" },
		{ "sampling", "5=1" },
		/* enable parses all of it, not its first 34 bytes. */
		{ "enable", "0000000000000000000000000000000000000002" },
		{ "enable", "2" }, { "enable", "1 1" },
	};
	char before[1024], after[1024], sbefore[2048], safter[2048];
	char *huge = malloc(8192);
	int i;

	ASSERT_NE(NULL, huge);
	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, get("config", before, sizeof(before)));
	ASSERT_EQ(0, get("buffer_size", sbefore, sizeof(sbefore)));
	EXPECT_STREQ("4194304\n", sbefore);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret = put(bad[i].file, bad[i].text);

		if (ret != -EINVAL)
			ksft_print_msg("%s <- '%s' gave %d\n", bad[i].file,
				       bad[i].text, ret);
		EXPECT_EQ(-EINVAL, ret);
	}
	memset(huge, 'a', 8191);
	huge[8191] = '\0';
	memcpy(huge, "level=", 6);
	EXPECT_EQ(-EINVAL, put("config", huge));
	EXPECT_EQ(-EINVAL, put("control", huge));
	EXPECT_EQ(-EINVAL, put("emit", huge));
	EXPECT_EQ(-EINVAL, put("buffer_size", huge));
	/* Settings that exist but cannot change while tracing. */
	EXPECT_EQ(-EBUSY, put("buffer_size", "64K"));
	EXPECT_EQ(-EBUSY, put("config", "clock=boottime"));

	ASSERT_EQ(0, get("config", after, sizeof(after)));
	EXPECT_STREQ(before, after);
	ASSERT_EQ(0, get("buffer_size", safter, sizeof(safter)));
	EXPECT_STREQ(sbefore, safter);
	EXPECT_EQ(0, stat_of("emitted"));
	ASSERT_EQ(0, get("control", after, sizeof(after)));
	EXPECT_STREQ("started\n", after);
	free(huge);
}

TEST_F(grtrace, config_lists_and_applies)
{
	char buf[1024];

	ASSERT_EQ(0, get("config", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "level=normal\n"));
	EXPECT_NE(NULL, strstr(buf, "clock=monotonic\n"));
	EXPECT_NE(NULL, strstr(buf, "filter_ring_id=-1\n"));
	ASSERT_EQ(0, put("config", "level=verbose\nfilter_ring_id=3\n"));
	ASSERT_EQ(0, get("config", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "level=verbose\n"));
	EXPECT_NE(NULL, strstr(buf, "filter_ring_id=3\n"));

	ASSERT_EQ(0, put("control", "start"));
	ASSERT_EQ(0, put("emit", "submit 1 1 3 1\nsubmit 1 1 4 1\nirq 0 1 3 0"));
	EXPECT_EQ(2, stat_of("written"));
	EXPECT_EQ(1, stat_of("dropped_filtered_ring"));
	ASSERT_EQ(0, put("config", "level=normal\nfilter_ring_id=-1"));
	ASSERT_EQ(0, put("emit", "irq 0 1 3 0"));
	EXPECT_EQ(1, stat_of("dropped_level"));
	ASSERT_EQ(0, put("config", "reset_stats"));
	EXPECT_EQ(0, stat_of("emitted"));
	EXPECT_EQ(0, stat_of("written"));
	EXPECT_EQ(0, stat_of("dropped_total"));
}

int main(int argc, char **argv)
{
	return grtrace_selftest_main(argc, argv);
}
