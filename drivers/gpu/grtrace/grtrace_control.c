// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: the debugfs control plane (control, config, stats, views and the
 * emit file) and the module's init and exit.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "grtrace_internal.h"

#define GRTRACE_VERSION		"0.2.0"

static unsigned long buffer_size = SZ_4M;

/* The same syntax and range as the buffer_size file: "16M" works too. */
static int buffer_size_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned long size;
	char *copy;
	int ret;

	copy = kstrdup(val, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	ret = grtrace_parse_buffer_size(strim(copy), &size);
	kfree(copy);
	if (ret) {
		pr_err("buffer_size=%s: must be a multiple of 32K in [64K, 256M], at most a quarter of the RAM for all CPUs\n",
		       val);
		return ret;
	}
	*(unsigned long *)kp->arg = size;
	return 0;
}

static const struct kernel_param_ops buffer_size_param_ops = {
	.set = buffer_size_param_set,
	.get = param_get_ulong,
};

module_param_cb(buffer_size, &buffer_size_param_ops, &buffer_size, 0444);
MODULE_PARM_DESC(buffer_size,
		 "Relay buffer bytes per CPU, K/M suffix allowed: a multiple of 32K in [64K, 256M] (default 4M)");

/* Injecting events is for tests: a production load never offers it. */
static bool emit_enable;
module_param(emit_enable, bool, 0444);
MODULE_PARM_DESC(emit_enable,
		 "Create the root-only 'emit' file for injecting test events (default 0)");

static struct dentry *grtrace_debugfs;

/* Longest write accepted by the settings files, and by emit. */
#define GRTRACE_MAX_WRITE	256
#define GRTRACE_MAX_EMIT	4096

static char *grtrace_copy_write(const char __user *ubuf, size_t count,
				size_t max)
{
	if (!count || count > max) {
		pr_debug("write of %zu bytes refused (1..%zu)\n", count, max);
		return ERR_PTR(-EINVAL);
	}
	return memdup_user_nul(ubuf, count);
}

static int control_show(struct seq_file *m, void *v)
{
	seq_puts(m, READ_ONCE(grtrace_enabled) ? "started\n" : "stopped\n");
	return 0;
}

/*
 * Start or stop tracing, for control (debugfs and sysfs) and enable alike:
 * not while the flight recorder is armed, whose session it is.
 */
static int grtrace_set_enabled(bool on)
{
	int ret = 0;

	mutex_lock(&grtrace_lock);
	if (grtrace_rec_on) {
		pr_debug("%s: the flight recorder is armed: disarm it first\n",
			 on ? "start" : "stop");
		ret = -EBUSY;
	} else if (on) {
		ret = grtrace_start_locked();
		/* Starting twice is not an error: the state is as asked. */
		if (ret == -EALREADY)
			ret = 0;
	} else {
		grtrace_stop_locked();
	}
	mutex_unlock(&grtrace_lock);
	return ret;
}

/* "start" or "stop", from the control file of debugfs or of sysfs. */
static int grtrace_control_cmd(char *buf)
{
	char *cmd = strim(buf);

	if (!strcmp(cmd, "start"))
		return grtrace_set_enabled(true);
	if (!strcmp(cmd, "stop"))
		return grtrace_set_enabled(false);
	pr_debug("control: unknown command '%s'\n", cmd);
	return -EINVAL;
}

/* A write to a settings file of debugfs, done by @cmd on its text. */
static ssize_t grtrace_write_cmd(const char __user *ubuf, size_t count,
				 int (*cmd)(char *))
{
	char *buf;
	int ret;

	buf = grtrace_copy_write(ubuf, count, GRTRACE_MAX_WRITE);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = cmd(buf);
	kfree(buf);
	return ret ?: count;
}

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	return grtrace_write_cmd(ubuf, count, grtrace_control_cmd);
}

static int config_show(struct seq_file *m, void *v)
{
	mutex_lock(&grtrace_lock);
	grtrace_config_show(m);
	mutex_unlock(&grtrace_lock);
	return 0;
}

static int grtrace_config_cmd(char *buf)
{
	int ret;

	mutex_lock(&grtrace_lock);
	ret = grtrace_config_set(buf);
	mutex_unlock(&grtrace_lock);
	return ret;
}

static ssize_t config_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	return grtrace_write_cmd(ubuf, count, grtrace_config_cmd);
}

/* Counters since the last reset_stats, of one CPU or (-1) of all. */
static struct grtrace_counters *grtrace_snapshot(int cpu)
{
	struct grtrace_counters *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	mutex_lock(&grtrace_lock);
	grtrace_stats_sum(s, cpu);
	mutex_unlock(&grtrace_lock);
	return s;
}

static u64 grtrace_dropped_total(const struct grtrace_counters *s)
{
	u64 total = 0;
	int i;

	for (i = 0; i < GRTRACE_NR_DROPS; i++)
		total += s->dropped[i];
	return total;
}

/* The keys shared by stats and pc_stats, separated by @sep. */
static void grtrace_print_counters(struct seq_file *m,
				   const struct grtrace_counters *s, char sep)
{
	int i;

	seq_printf(m, "emitted=%llu%c", s->emitted, sep);
	seq_printf(m, "written=%llu%c", s->written, sep);
	seq_printf(m, "bytes_written=%llu%c", s->bytes, sep);
	seq_printf(m, "dropped_total=%llu%c", grtrace_dropped_total(s), sep);
	for (i = 0; i < GRTRACE_NR_DROPS; i++)
		seq_printf(m, "dropped_%s=%llu%c", grtrace_drop_names[i],
			   s->dropped[i], sep);
	seq_printf(m, "control_written=%llu%c", s->ctl_written, sep);
	seq_printf(m, "control_dropped=%llu%c", s->ctl_dropped, sep);
	seq_printf(m, "deferred=%llu%c", s->deferred, sep);
	seq_printf(m, "discarded_bytes=%llu\n", s->discarded);
}

static u32 grtrace_adaptive_keep_1_in(void)
{
	u32 shift = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		shift = max(shift, READ_ONCE(per_cpu_ptr(grtrace_pcpu,
							 cpu)->bp_shift));
	return 1U << shift;
}

static int stats_show(struct seq_file *m, void *v)
{
	struct grtrace_counters *s = grtrace_snapshot(-1);
	u64 fast = 0, quick = 0;
	int q, t, z;

	if (!s)
		return -ENOMEM;
	for (t = 0; t < GRTRACE_QUICK_TYPES; t++)
		for (z = 0; z < GRTRACE_FAST_SIZES; z++)
			fast += s->fast[t][z];
	for (q = 0; q < GRTRACE_NR_QUICK; q++)
		for (t = 0; t < GRTRACE_QUICK_TYPES; t++)
			quick += s->quick[q][t];
	seq_printf(m, "enabled=%d\n", READ_ONCE(grtrace_enabled));
	seq_printf(m, "session=%llu\n", READ_ONCE(grtrace_session));
	/* Of the records in the channels, whatever the config says now. */
	seq_printf(m, "stream_format=%u\n", grtrace_chan_stream_format());
	grtrace_print_counters(m, s, '\n');
	/* Not in pc_stats: how, not what, is the same on every path. */
	seq_printf(m, "written_fast=%llu\n", fast);
	seq_printf(m, "quick_drops=%llu\n", quick);
	seq_printf(m, "adaptive_keep_1_in=%u\n", grtrace_adaptive_keep_1_in());
	/* CPU ids, not CPUs: events<cpu> is named by id, and ids may skip. */
	seq_printf(m, "nr_cpus=%u\n", nr_cpu_ids);
	seq_printf(m, "buffer_size=%lu\n", READ_ONCE(grtrace_buffer_size));
	seq_printf(m, "buffer_allocated=%lu\n", grtrace_buffers_allocated());
	kfree(s);
	return 0;
}

static int pc_stats_show(struct seq_file *m, void *v)
{
	struct grtrace_counters *s;
	int cpu;

	for_each_possible_cpu(cpu) {
		s = grtrace_snapshot(cpu);
		if (!s)
			return -ENOMEM;
		seq_printf(m, "cpu=%d ", cpu);
		grtrace_print_counters(m, s, ' ');
		kfree(s);
	}
	return 0;
}

/*
 * Each CPU's next cseq: with the session stopped, a reader that has read
 * a CPU's channel to its end knows from it how many records that CPU lost
 * after its last written one (each took its cseq, or will: those dropped
 * in NMI are counted in), which no later record shows as a gap; and its
 * cseq when the session started, which shows those lost before its first.
 * Under grtrace_lock, "enabled=0" shows only a finished stop: no event that
 * saw tracing on is still being written, so a reader that has seen it, and
 * then reads each channel to its end, has every record (a session's owner
 * may stop it while a recording that joined it runs).
 */
static int cseq_show(struct seq_file *m, void *v)
{
	int cpu;

	mutex_lock(&grtrace_lock);
	seq_printf(m, "session=%llu enabled=%d\n", grtrace_session,
		   grtrace_enabled);
	for_each_possible_cpu(cpu) {
		const struct grtrace_pcpu *pc = per_cpu_ptr(grtrace_pcpu, cpu);

		seq_printf(m, "cpu=%d next=%llu start=%llu\n", cpu,
			   READ_ONCE(pc->cseq) + READ_ONCE(pc->nmi_lost),
			   READ_ONCE(per_cpu_ptr(grtrace_pcpu_cold,
						 cpu)->cseq_start));
	}
	mutex_unlock(&grtrace_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cseq);

const char * const grtrace_type_names[GRTRACE_EV_NR_JOB_TYPES] = {
	[GRTRACE_EV_SUBMIT]		= "submit",
	[GRTRACE_EV_COMMIT]		= "commit",
	[GRTRACE_EV_START]		= "start",
	[GRTRACE_EV_END]		= "end",
	[GRTRACE_EV_COMPLETE]		= "complete",
	[GRTRACE_EV_CTX_SWITCH]		= "ctx_switch",
	[GRTRACE_EV_IRQ]		= "irq",
	[GRTRACE_EV_SYNC_WAIT_ENTER]	= "sync_wait_enter",
	[GRTRACE_EV_SYNC_WAIT_EXIT]	= "sync_wait_exit",
	[GRTRACE_EV_ERROR]		= "error",
};

static int events_by_type_show(struct seq_file *m, void *v)
{
	struct grtrace_counters *s = grtrace_snapshot(-1);
	int t;

	if (!s)
		return -ENOMEM;
	seq_printf(m, "%-16s %12s %12s\n", "type", "emitted", "written");
	for (t = 0; t < GRTRACE_EV_NR_JOB_TYPES; t++)
		if (grtrace_type_names[t])
			seq_printf(m, "%-16s %12llu %12llu\n",
				   grtrace_type_names[t], s->type_emitted[t],
				   s->type_written[t]);
	kfree(s);
	return 0;
}

/* First line: the upper bounds; then one "range count" line per bucket. */
static void grtrace_print_hist(struct seq_file *m, const char *unit,
			       const u64 *hist, unsigned int lo)
{
	int i;

	seq_printf(m, "bounds_%s=", unit);
	for (i = 0; i < GRTRACE_HIST_BUCKETS - 1; i++)
		seq_printf(m, "%s%llu", i ? "," : "", 1ULL << (lo + i));
	seq_putc(m, '\n');
	seq_printf(m, "<%llu %llu\n", 1ULL << lo, hist[0]);
	for (i = 1; i < GRTRACE_HIST_BUCKETS - 1; i++)
		seq_printf(m, "%llu-%llu %llu\n", 1ULL << (lo + i - 1),
			   1ULL << (lo + i), hist[i]);
	seq_printf(m, ">=%llu %llu\n", 1ULL << (lo + i - 1), hist[i]);
}

/**
 * grtrace_path_cost() - what the event path costs, per event
 * @pct: the percentile, 1..100
 * @samples: set to the number of events measured
 *
 * From the histogram the event path keeps while the ``measure_latency``
 * setting is 1 (``latency_hist``): powers of two from 64 ns.  For
 * perf_mon.  Context: process; sleeps.
 * Return: the upper bound in ns of the bucket holding the @pct-th
 * percentile (for the last bucket, its lower bound); 0 when nothing was
 * measured or memory is short.
 */
u64 grtrace_path_cost(unsigned int pct, u64 *samples)
{
	struct grtrace_counters *s = grtrace_snapshot(-1);
	u64 n = 0, rank, seen = 0, bound = 0;
	int i;

	*samples = 0;
	if (!s)
		return 0;
	for (i = 0; i < GRTRACE_HIST_BUCKETS; i++)
		n += s->lat_hist[i];
	rank = max_t(u64, div_u64(n * clamp(pct, 1U, 100U) + 99, 100), 1);
	for (i = 0; n && i < GRTRACE_HIST_BUCKETS; i++) {
		seen += s->lat_hist[i];
		if (seen >= rank) {
			bound = 1ULL << (GRTRACE_LAT_HIST_LO +
					 min(i, GRTRACE_HIST_BUCKETS - 2));
			break;
		}
	}
	kfree(s);
	*samples = n;
	return bound;
}
EXPORT_SYMBOL_GPL(grtrace_path_cost);

static int latency_hist_show(struct seq_file *m, void *v)
{
	struct grtrace_counters *s = grtrace_snapshot(-1);

	if (!s)
		return -ENOMEM;
	grtrace_print_hist(m, "ns", s->lat_hist, GRTRACE_LAT_HIST_LO);
	kfree(s);
	return 0;
}

static int size_hist_show(struct seq_file *m, void *v)
{
	struct grtrace_counters *s = grtrace_snapshot(-1);

	if (!s)
		return -ENOMEM;
	grtrace_print_hist(m, "bytes", s->size_hist, GRTRACE_SIZE_HIST_LO);
	kfree(s);
	return 0;
}

/* How each call into the event path ended, with its share in permille. */
static int result_hist_show(struct seq_file *m, void *v)
{
	struct grtrace_counters *s = grtrace_snapshot(-1);
	u64 all;
	int i;

	if (!s)
		return -ENOMEM;
	all = max_t(u64, s->emitted, 1);
	seq_printf(m, "%-16s %12llu %5llu\n", "written", s->written,
		   div64_u64(s->written * 1000, all));
	for (i = 0; i < GRTRACE_NR_DROPS; i++)
		seq_printf(m, "%-16s %12llu %5llu\n", grtrace_drop_names[i],
			   s->dropped[i], div64_u64(s->dropped[i] * 1000, all));
	kfree(s);
	return 0;
}

/*
 * The last GRTRACE_SECS seconds, oldest first, summed over CPUs.  A CPU's
 * second holds where its counters stood at its first event of it; its
 * events are the difference to its next second with events, or to its
 * counters now (struct grtrace_sec).
 */
static int sec_stats_show(struct seq_file *m, void *v)
{
	u64 now = jiffies / HZ, from, sec, max_rate = 0, (*n)[2];
	int cpu;

	mutex_lock(&grtrace_lock);
	from = max(now - (GRTRACE_SECS - 1), grtrace_reset_sec());
	mutex_unlock(&grtrace_lock);
	n = kcalloc(GRTRACE_SECS, sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		const struct grtrace_pcpu *pc = per_cpu_ptr(grtrace_pcpu, cpu);
		const struct grtrace_pcpu_cold *cold;
		u64 e, w;

		cold = per_cpu_ptr(grtrace_pcpu_cold, cpu);
		grtrace_counters_totals(&pc->cnt, &e, &w);
		for (sec = now + 1; sec-- > from;) {
			const struct grtrace_sec *s = &cold->secs[sec % GRTRACE_SECS];
			u64 se, sw;

			/* Written under us: as if it had no event then. */
			if (smp_load_acquire(&s->sec) != sec)
				continue;
			se = READ_ONCE(s->emitted);
			sw = READ_ONCE(s->written);
			smp_rmb(); /* the figures before @sec again: grtrace_new_sec() */
			if (READ_ONCE(s->sec) != sec || se > e || sw > w)
				continue;
			n[sec - from][0] += e - se;
			n[sec - from][1] += w - sw;
			e = se;
			w = sw;
		}
	}
	seq_printf(m, "%-8s %12s %12s %12s\n", "age_s", "events", "written",
		   "dropped");
	for (sec = from; sec <= now; sec++) {
		u64 emitted = n[sec - from][0], written = n[sec - from][1];

		max_rate = max(max_rate, emitted);
		seq_printf(m, "%-8llu %12llu %12llu %12llu\n", now - sec,
			   emitted, written, emitted - min(written, emitted));
	}
	seq_printf(m, "max_rate=%llu\n", max_rate);
	kfree(n);
	return 0;
}

static int rings_show(struct seq_file *m, void *v)
{
	return grtrace_rings_show(m);
}

static int version_show(struct seq_file *m, void *v)
{
	seq_puts(m, "version=" GRTRACE_VERSION "\n");
	seq_printf(m, "format_version=%d\nformats=%d %d\n",
		   GRTRACE_FORMAT_VERSION, GRTRACE_FORMAT_V1, GRTRACE_FORMAT_V2);
	return 0;
}

static int buffer_size_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%lu\n", READ_ONCE(grtrace_buffer_size));
	return 0;
}

static int grtrace_buffer_size_cmd(char *buf)
{
	unsigned long size;
	int ret;

	ret = grtrace_parse_buffer_size(strim(buf), &size);
	if (ret)
		return ret;
	mutex_lock(&grtrace_lock);
	ret = grtrace_resize_locked(size);
	mutex_unlock(&grtrace_lock);
	return ret;
}

static ssize_t buffer_size_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	return grtrace_write_cmd(ubuf, count, grtrace_buffer_size_cmd);
}

struct grtrace_emit {
	u16 type;
	u16 engine;
	u32 ring_id;
	u64 ctx;
	u64 seqno;
	u64 aux[2];
};

static int grtrace_parse_u64(const char *s, u64 *v)
{
	s64 neg;

	if (!kstrtou64(s, 0, v))
		return 0;
	/* aux values may be negative errnos: keep the two's complement. */
	if (*s == '-' && !kstrtos64(s, 0, &neg)) {
		*v = (u64)neg;
		return 0;
	}
	return -EINVAL;
}

/*
 * "[emit] TYPE CTX ENGINE RING SEQNO [AUX0 [AUX1]]", or "lose N": this
 * CPU's next record N cseqs on (grtrace_emit_lose(); type 0).
 */
static int grtrace_parse_emit(char *line, struct grtrace_emit *e)
{
	char *tok[9];
	int n = 0, i, t;
	u64 v[7] = {};

	while (n < ARRAY_SIZE(tok) && (tok[n] = strsep(&line, " \t")))
		if (*tok[n])
			n++;
	if (n == 2 && !line && !strcmp(tok[0], "lose")) {
		e->type = 0;
		return kstrtou64(tok[1], 0, &e->seqno) ? -EINVAL : 0;
	}
	i = (n && !strcmp(tok[0], "emit")) ? 1 : 0;
	if (line || n - i < 5 || n - i > 7)
		return -EINVAL;
	/* The name table has holes, so match_string() would stop early. */
	for (t = 0; t < ARRAY_SIZE(grtrace_type_names); t++)
		if (grtrace_type_names[t] && !strcmp(grtrace_type_names[t], tok[i]))
			break;
	if (t == ARRAY_SIZE(grtrace_type_names))
		return -EINVAL;
	for (n -= i + 1; n > 0; n--)
		if (grtrace_parse_u64(tok[i + n], &v[n]))
			return -EINVAL;
	if (v[2] >= GRTRACE_ENGINE_NR || v[3] >= GRTRACE_MAX_RINGS)
		return -EINVAL;
	e->type = t;
	e->ctx = v[1];
	e->engine = v[2];
	e->ring_id = v[3];
	e->seqno = v[4];
	e->aux[0] = v[5];
	e->aux[1] = v[6];
	return 0;
}

/*
 * Inject events through the same event path as the adapters.  A write holds
 * one event per line; if any line is malformed nothing is emitted.
 */
static ssize_t emit_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	struct grtrace_emit *ev;
	char *buf, *p, *line;
	int i, n = 0, nr = 1, ret = 0;

	buf = grtrace_copy_write(ubuf, count, GRTRACE_MAX_EMIT);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	for (p = buf; *p; p++)
		nr += *p == '\n';
	ev = kcalloc(nr, sizeof(*ev), GFP_KERNEL);
	if (!ev) {
		kfree(buf);
		return -ENOMEM;
	}
	p = buf;
	while ((line = strsep(&p, "\n"))) {
		line = strim(line);
		if (!*line)
			continue;
		ret = grtrace_parse_emit(line, &ev[n]);
		if (ret) {
			pr_debug("emit: bad line '%s'\n", line);
			break;
		}
		n++;
	}
	if (!ret && !n)
		ret = -EINVAL;
	for (i = 0; !ret && i < n; i++) {
		if (!ev[i].type) {
			grtrace_emit_lose(ev[i].seqno);
			continue;
		}
		grtrace_event(ev[i].type | GRTRACE_EV_ENGINE(ev[i].engine),
			      ev[i].ring_id, ev[i].ctx, ev[i].seqno,
			      ev[i].aux[0], ev[i].aux[1]);
	}
	kfree(ev);
	kfree(buf);
	return ret ?: count;
}

DEFINE_SHOW_ATTRIBUTE(stats);
DEFINE_SHOW_ATTRIBUTE(pc_stats);
DEFINE_SHOW_ATTRIBUTE(events_by_type);
DEFINE_SHOW_ATTRIBUTE(latency_hist);
DEFINE_SHOW_ATTRIBUTE(size_hist);
DEFINE_SHOW_ATTRIBUTE(result_hist);
DEFINE_SHOW_ATTRIBUTE(sec_stats);
DEFINE_SHOW_ATTRIBUTE(rings);
DEFINE_SHOW_ATTRIBUTE(version);

#define GRTRACE_RW_ATTRIBUTE(__name)					\
static int __name ## _open(struct inode *inode, struct file *file)	\
{									\
	return single_open(file, __name ## _show, inode->i_private);	\
}									\
static const struct file_operations __name ## _fops = {		\
	.owner		= THIS_MODULE,					\
	.open		= __name ## _open,				\
	.read		= seq_read,					\
	.write		= __name ## _write,				\
	.llseek		= seq_lseek,					\
	.release	= single_release,				\
}

GRTRACE_RW_ATTRIBUTE(control);
GRTRACE_RW_ATTRIBUTE(config);
GRTRACE_RW_ATTRIBUTE(buffer_size);

/*
 * Per-knob files of the reference interface: thin views on config keys,
 * so each setting still has one source of truth.
 */
static const char * const grtrace_knobs[][2] = {
	{ "level", "level" },
	{ "sampling", "sample" },
	{ "rate_limit", "max_events_per_sec" },
	{ "rate_limit_mode", "rate_limiter_mode" },
	{ "rate_limit_burst", "rate_limit_burst" },
};

static int knob_show(struct seq_file *m, void *v)
{
	mutex_lock(&grtrace_lock);
	grtrace_config_show_key(m, m->private);
	mutex_unlock(&grtrace_lock);
	return 0;
}

static ssize_t knob_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	const char *key = ((struct seq_file *)file->private_data)->private;
	char *buf, *val, *line;
	int ret;

	buf = grtrace_copy_write(ubuf, count, GRTRACE_MAX_WRITE);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/* One value of this key: "1\nformat=1" would set another key too. */
	val = strim(buf);
	if (strpbrk(val, "\n=")) {
		pr_debug("%s: one value, not '%s'\n", key, val);
		kfree(buf);
		return -EINVAL;
	}
	line = kasprintf(GFP_KERNEL, "%s=%s", key, val);
	kfree(buf);
	if (!line)
		return -ENOMEM;
	mutex_lock(&grtrace_lock);
	ret = grtrace_config_set(line);
	mutex_unlock(&grtrace_lock);
	kfree(line);
	return ret ?: count;
}

static int enable_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", READ_ONCE(grtrace_enabled));
	return 0;
}

/*
 * "1" starts and "0" stops, like control.  The whole write is parsed:
 * kstrtouint_from_user() reads its first 34 bytes only, and took a longer
 * "000...01" for 0.
 */
static ssize_t enable_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	unsigned int on;
	char *buf;
	int ret;

	buf = grtrace_copy_write(ubuf, count, GRTRACE_MAX_WRITE);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = kstrtouint(strim(buf), 0, &on);
	kfree(buf);
	if (ret || on > 1) {
		pr_debug("enable: want 0 or 1\n");
		return -EINVAL;
	}
	ret = grtrace_set_enabled(on);
	return ret ?: count;
}

static int watchlist_show(struct seq_file *m, void *v)
{
	mutex_lock(&grtrace_lock);
	grtrace_watchlist_show(m);
	mutex_unlock(&grtrace_lock);
	return 0;
}

static ssize_t watchlist_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char *buf;
	int ret;

	/* An empty write clears the list. */
	buf = count ? grtrace_copy_write(ubuf, count, GRTRACE_MAX_WRITE) :
		      kstrdup("", GFP_KERNEL);
	if (IS_ERR_OR_NULL(buf))
		return buf ? PTR_ERR(buf) : -ENOMEM;
	mutex_lock(&grtrace_lock);
	ret = grtrace_watchlist_set(buf);
	mutex_unlock(&grtrace_lock);
	kfree(buf);
	return ret ?: count;
}

GRTRACE_RW_ATTRIBUTE(knob);
GRTRACE_RW_ATTRIBUTE(enable);
GRTRACE_RW_ATTRIBUTE(watchlist);

static const struct file_operations emit_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= emit_write,
	.llseek	= noop_llseek,
};

static void grtrace_create_files(struct dentry *dir)
{
	int i;

	debugfs_create_file("control", 0600, dir, NULL, &control_fops);
	debugfs_create_file("config", 0600, dir, NULL, &config_fops);
	debugfs_create_file("buffer_size", 0600, dir, NULL, &buffer_size_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	debugfs_create_file("events_by_type", 0400, dir, NULL,
			    &events_by_type_fops);
	debugfs_create_file("pc_stats", 0400, dir, NULL, &pc_stats_fops);
	debugfs_create_file("cseq", 0400, dir, NULL, &cseq_fops);
	debugfs_create_file("latency_hist", 0400, dir, NULL,
			    &latency_hist_fops);
	debugfs_create_file("size_hist", 0400, dir, NULL, &size_hist_fops);
	debugfs_create_file("result_hist", 0400, dir, NULL, &result_hist_fops);
	debugfs_create_file("sec_stats", 0400, dir, NULL, &sec_stats_fops);
	debugfs_create_file("enable", 0600, dir, NULL, &enable_fops);
	debugfs_create_file("watchlist", 0600, dir, NULL, &watchlist_fops);
	for (i = 0; i < ARRAY_SIZE(grtrace_knobs); i++)
		debugfs_create_file(grtrace_knobs[i][0], 0600, dir,
				    (void *)grtrace_knobs[i][1], &knob_fops);
	debugfs_create_file("rings", 0400, dir, NULL, &rings_fops);
	grtrace_hooks_debugfs(dir);
	debugfs_create_file("adapters", 0400, dir, NULL, &grtrace_adapters_fops);
	debugfs_create_file("version", 0400, dir, NULL, &version_fops);
	if (emit_enable)
		debugfs_create_file("emit", 0200, dir, NULL, &emit_fops);
}

/*
 * The settings files again in sysfs, /sys/kernel/grtrace/, root only:
 * under kernel lockdown (integrity, as Debian sets it on Secure Boot
 * machines) debugfs refuses every file that can be written, while its
 * read-only files (stats, rings, events*, ...) stay readable.  These take
 * and show the same text as their debugfs twins.
 */
static struct kobject *grtrace_kobj;

static ssize_t grtrace_sysfs_cmd(const char *buf, size_t count,
				 int (*cmd)(char *))
{
	char *b;
	int ret;

	if (!count || count > GRTRACE_MAX_WRITE) {
		pr_debug("write of %zu bytes refused (1..%d)\n", count,
			 GRTRACE_MAX_WRITE);
		return -EINVAL;
	}
	b = kstrndup(buf, count, GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = cmd(b);
	kfree(b);
	return ret ?: count;
}

static ssize_t control_sysfs_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(grtrace_enabled) ? "started" : "stopped");
}

static ssize_t control_sysfs_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	return grtrace_sysfs_cmd(buf, count, grtrace_control_cmd);
}

/* The config's text through its seq_file printer, into the page. */
static ssize_t config_sysfs_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct seq_file m = { .buf = buf, .size = PAGE_SIZE };

	mutex_lock(&grtrace_lock);
	grtrace_config_show(&m);
	mutex_unlock(&grtrace_lock);
	return seq_has_overflowed(&m) ? -EFBIG : m.count;
}

static ssize_t config_sysfs_store(struct kobject *kobj,
				  struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	return grtrace_sysfs_cmd(buf, count, grtrace_config_cmd);
}

static ssize_t buffer_size_sysfs_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n", READ_ONCE(grtrace_buffer_size));
}

static ssize_t buffer_size_sysfs_store(struct kobject *kobj,
				       struct kobj_attribute *attr,
				       const char *buf, size_t count)
{
	return grtrace_sysfs_cmd(buf, count, grtrace_buffer_size_cmd);
}

static ssize_t recorder_sysfs_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", grtrace_recorder_state());
}

static ssize_t recorder_sysfs_store(struct kobject *kobj,
				    struct kobj_attribute *attr,
				    const char *buf, size_t count)
{
	return grtrace_sysfs_cmd(buf, count, grtrace_recorder_cmd);
}

static struct kobj_attribute grtrace_sysfs_attrs[] = {
	__ATTR(control, 0600, control_sysfs_show, control_sysfs_store),
	__ATTR(config, 0600, config_sysfs_show, config_sysfs_store),
	__ATTR(buffer_size, 0600, buffer_size_sysfs_show,
	       buffer_size_sysfs_store),
	__ATTR(recorder, 0600, recorder_sysfs_show, recorder_sysfs_store),
};

static struct attribute *grtrace_sysfs_list[] = {
	&grtrace_sysfs_attrs[0].attr,
	&grtrace_sysfs_attrs[1].attr,
	&grtrace_sysfs_attrs[2].attr,
	&grtrace_sysfs_attrs[3].attr,
	NULL,
};

static const struct attribute_group grtrace_sysfs_group = {
	.attrs = grtrace_sysfs_list,
};

static int grtrace_sysfs_init(void)
{
	int ret;

	grtrace_kobj = kobject_create_and_add("grtrace", kernel_kobj);
	if (!grtrace_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(grtrace_kobj, &grtrace_sysfs_group);
	if (ret) {
		kobject_put(grtrace_kobj);
		grtrace_kobj = NULL;
	}
	return ret;
}

/* Waits for the stores in flight: none runs once this returns. */
static void grtrace_sysfs_exit(void)
{
	kobject_del(grtrace_kobj);
	kobject_put(grtrace_kobj);
}

/**
 * grtrace_debugfs_dir() - grtrace's debugfs directory
 *
 * For the optional modules' files, which they remove before unloading.
 * Return: the directory; it exists as long as grtrace is loaded.
 */
struct dentry *grtrace_debugfs_dir(void)
{
	return grtrace_debugfs;
}
EXPORT_SYMBOL_GPL(grtrace_debugfs_dir);

static int __init grtrace_init(void)
{
	struct dentry *dir;
	int ret;

	grtrace_buffer_size = buffer_size;
	ret = grtrace_config_init();
	if (ret)
		return ret;
	ret = grtrace_rings_init();
	if (ret)
		goto err_config;
	dir = debugfs_create_dir("grtrace", NULL);
	if (IS_ERR(dir)) {
		ret = PTR_ERR(dir);
		goto err_rings;
	}
	ret = grtrace_core_init(dir);
	if (ret)
		goto err_dir;
	ret = grtrace_recorder_init();
	if (ret)
		goto err_core;
	ret = grtrace_sysfs_init();
	if (ret)
		goto err_recorder;
	/*
	 * The debugfs files last, when nothing can fail any more: a module
	 * whose init fails is freed whatever its open files hold.
	 */
	grtrace_create_files(dir);
	grtrace_recorder_create_files(dir);
	grtrace_debugfs = dir;
	return 0;
err_recorder:
	grtrace_recorder_exit();
err_core:
	grtrace_core_exit();
	debugfs_remove(dir);
	grtrace_core_free();
	goto err_rings;
err_dir:
	debugfs_remove(dir);
err_rings:
	grtrace_rings_exit();
err_config:
	grtrace_config_free();
	return ret;
}

static void __exit grtrace_exit(void)
{
	/*
	 * No file is open here (each holds a module reference), so nothing
	 * can start tracing again.  The relay files go with the channel.
	 */
	grtrace_sysfs_exit();
	grtrace_recorder_exit();
	grtrace_core_exit();
	debugfs_remove(grtrace_debugfs);
	grtrace_core_free();
	grtrace_config_free();
	grtrace_rings_exit();
}

module_init(grtrace_init);
module_exit(grtrace_exit);

/*
 * "modprobe grtrace" brings the optional modules that cost nothing until
 * they are enabled (their files appear, no hook is registered); modprobe
 * skips those not built.  Not grtrace_perf_mon: it hooks every event from
 * the moment it loads, which no one should pay for unasked.
 */
MODULE_SOFTDEP("post: grtrace_aggregator grtrace_sampling grtrace_filter");
MODULE_DESCRIPTION("GPU ring trace: per-job GPU scheduling events over relay");
MODULE_LICENSE("GPL");
