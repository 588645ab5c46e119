// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_sampling: write some jobs, whole, and count the others.
 *
 * Modes, in sampling_mode:
 *   off        the default: no hook, every event passes
 *   static     keep sampling_rate % of the jobs.  A job is kept or not by a
 *              hash of its ctx:seqno, so all its events share the verdict,
 *              on any CPU, with no state (the hash is in the documentation:
 *              a reader can tell which jobs a rate keeps).
 *   adaptive   the same hash, at a rate recomputed every 100 ms so that
 *              the events kept stay near sampling_budget per second, never
 *              above sampling_rate %.  A job keeps the rate of its first
 *              event (job table).
 *   threshold  only the jobs slower than sampling_threshold ns are written,
 *              each as one JOB_SUMMARY record at its COMPLETE, with the
 *              times of all its events; the others are counted.  Latency is
 *              report's t_total: the first of SUBMIT, COMMIT, START to the
 *              COMPLETE.
 * ERROR events are always written.  An event not written is dropped with
 * the core's reason "hook", so emitted = written + dropped still holds.
 *
 * debugfs, in grtrace's directory: sampling_mode, sampling_rate (1..100,
 * default 100), sampling_threshold (ns, 1..3600 s, default 1 ms),
 * sampling_budget (events/s, 1..100000000, default 100000) and
 * sampling_stats.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/grtrace.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#define SPL_ROWS	65		/* rings 0..63, then every other ring */
#define SPL_JOBS	4096
#define SPL_BUCKETS	1024
#define SPL_NIL		0xffff
#define SPL_STAMPS	GRTRACE_EV_COMPLETE	/* SUBMIT .. COMPLETE */
#define SPL_MAX_THRESHOLD	(3600ULL * NSEC_PER_SEC)
#define SPL_MAX_BUDGET	100000000U

enum spl_mode { SPL_OFF, SPL_STATIC, SPL_ADAPTIVE, SPL_THRESHOLD, SPL_NR_MODES };

static const char *const spl_mode_names[SPL_NR_MODES] = {
	"off", "static", "adaptive", "threshold",
};

/* A job the table follows: its verdict (adaptive) or its times (threshold). */
struct spl_job {
	u64 ctx;
	u64 seqno;
	u64 ts[SPL_STAMPS];
	u64 wait_since;
	u64 wait_ns;
	u32 ring;
	u32 pid;
	u32 tid;
	u32 waits;
	u16 next;		/* hash chain, or free list */
	u16 older;		/* age list: allocation order */
	u16 newer;
	u16 engine;
	u16 nopen;		/* waits open */
	u8 events;		/* bit (1 << type) of the stamps set */
	u8 derived;
	bool decided;		/* adaptive: @keep is set */
	bool keep;
	bool wait_bad;
};

struct spl_row {
	u64 events;
	u64 kept;
	u64 jobs;
	u64 jobs_kept;
	u64 slow;
	u64 fast;
};

enum spl_count {
	SPL_SUMMARIES, SPL_SUMMARIES_LOST, SPL_EVICTED, SPL_ERRORS,
	SPL_NR_COUNTS
};

static const char *const spl_count_names[SPL_NR_COUNTS] = {
	"summaries_written", "summaries_lost", "evicted", "errors_kept",
};

static DEFINE_MUTEX(spl_mutex);		/* the settings and the hook */
static enum spl_mode spl_mode;
static u32 spl_rate = 100;
static u64 spl_threshold = NSEC_PER_MSEC;
static u32 spl_budget = 100000;

static DEFINE_RAW_SPINLOCK(spl_lock);	/* the job table and the window */
static struct spl_job *spl_jobs;
static u16 spl_bucket[SPL_BUCKETS];
static u16 spl_free, spl_oldest, spl_newest;
static unsigned int spl_open;
static u32 spl_pct;			/* adaptive: the rate in force */
static unsigned long spl_win_start;
static u64 spl_win_seen;
static u64 spl_adjusts;

static DEFINE_PER_CPU(struct spl_row [SPL_ROWS], spl_rows);
static DEFINE_PER_CPU(u64 [SPL_NR_COUNTS], spl_counts);
static struct dentry *spl_files[5];

/*
 * The verdict on a job at @pct %: a 64-bit mix of its key, whose high 32
 * bits scaled to 0..99 must fall below @pct.  Documented, so that a test
 * or a reader can say which jobs a rate keeps.
 */
static bool spl_hash_keep(u64 ctx, u64 seqno, u32 pct)
{
	u64 h = (ctx * 0x9e3779b97f4a7c15ULL + seqno) * 0xbf58476d1ce4e5b9ULL;

	return ((h >> 32) * 100) >> 32 < pct;
}

static unsigned int spl_row_of(u32 ring)
{
	return min_t(u32, ring, SPL_ROWS - 1);
}

/* ---- the job table ------------------------------------------------------- */

static void spl_table_reset(void)
{
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&spl_lock, flags);
	for (i = 0; i < SPL_BUCKETS; i++)
		spl_bucket[i] = SPL_NIL;
	for (i = 0; i < SPL_JOBS; i++)
		spl_jobs[i].next = i + 1 < SPL_JOBS ? i + 1 : SPL_NIL;
	spl_free = 0;
	spl_oldest = SPL_NIL;
	spl_newest = SPL_NIL;
	spl_open = 0;
	spl_pct = spl_rate;
	spl_win_start = jiffies;
	spl_win_seen = 0;
	spl_adjusts = 0;
	raw_spin_unlock_irqrestore(&spl_lock, flags);
}

static u16 *spl_find(u64 ctx, u64 seqno)
{
	u16 *link = &spl_bucket[hash_64(ctx ^ (seqno << 20) ^ seqno,
					ilog2(SPL_BUCKETS))];

	while (*link != SPL_NIL) {
		struct spl_job *j = &spl_jobs[*link];

		if (j->ctx == ctx && j->seqno == seqno)
			return link;
		link = &j->next;
	}
	return link;
}

/* Take job @i out of the table; @link is its hash link, or NULL. */
static void spl_remove(u16 i, u16 *link)
{
	struct spl_job *j = &spl_jobs[i];

	if (!link)
		link = spl_find(j->ctx, j->seqno);
	*link = j->next;
	if (j->older != SPL_NIL)
		spl_jobs[j->older].newer = j->newer;
	else
		spl_oldest = j->newer;
	if (j->newer != SPL_NIL)
		spl_jobs[j->newer].older = j->older;
	else
		spl_newest = j->older;
	j->next = spl_free;
	spl_free = i;
	spl_open--;
}

/* report's t_total of @j at @now: first of SUBMIT..START to the last stamp. */
static bool spl_latency(const struct spl_job *j, u64 *lat)
{
	unsigned int early = j->events & (BIT(GRTRACE_EV_SUBMIT) |
		BIT(GRTRACE_EV_COMMIT) | BIT(GRTRACE_EV_START));
	unsigned int late = j->events & (BIT(GRTRACE_EV_END) |
					 BIT(GRTRACE_EV_COMPLETE));
	u64 from, to;

	if (!early || !late)
		return false;
	from = j->ts[__ffs(early) - 1];
	to = j->ts[__fls(late) - 1];
	*lat = to > from ? to - from : 0;
	return true;
}

static void spl_summarise(const struct spl_job *j, u16 reason,
			  struct grtrace_job_summary *js)
{
	*js = (struct grtrace_job_summary){
		.ctx = j->ctx, .seqno = j->seqno, .ring_id = j->ring,
		.engine = j->engine, .events = j->events,
		.derived = j->derived, .reason = reason, .pid = j->pid,
		.tid = j->tid, .waits = j->waits,
		.wait_ns = j->nopen || j->wait_bad ? 0 : j->wait_ns,
		.threshold = READ_ONCE(spl_threshold),
	};
	memcpy(js->ts, j->ts, sizeof(js->ts));
}

static void spl_write(struct grtrace_job_summary *js)
{
	this_cpu_inc(spl_counts[grtrace_write_job_summary(js) ?
				SPL_SUMMARIES_LOST : SPL_SUMMARIES]);
}

/*
 * A slot for a new job.  With the table full the oldest job gives way; in
 * threshold mode one open longer than the threshold is summarised into
 * *@js (then true: write it once the lock is dropped).
 */
static u16 spl_alloc(u64 now, struct grtrace_job_summary *js, bool *out)
{
	u16 i = spl_free;

	*out = false;
	if (i == SPL_NIL) {
		struct spl_job *old = &spl_jobs[spl_oldest];
		u64 lat;

		this_cpu_inc(spl_counts[SPL_EVICTED]);
		if (spl_mode == SPL_THRESHOLD && old->events) {
			unsigned int first = __ffs(old->events) - 1;

			lat = now - old->ts[first];
			if (now > old->ts[first] &&
			    lat > READ_ONCE(spl_threshold)) {
				spl_summarise(old, GRTRACE_SUMMARY_OPEN, js);
				*out = true;
			}
		}
		spl_remove(spl_oldest, NULL);
		i = spl_free;
	}
	spl_free = spl_jobs[i].next;
	spl_jobs[i].older = spl_newest;
	spl_jobs[i].newer = SPL_NIL;
	if (spl_newest != SPL_NIL)
		spl_jobs[spl_newest].newer = i;
	else
		spl_oldest = i;
	spl_newest = i;
	spl_open++;
	return i;
}

/* The job of @ev, found or added; *@linkp its hash link. */
static struct spl_job *spl_job_of(const struct grtrace_hook_event *ev,
				  u64 now, u16 **linkp,
				  struct grtrace_job_summary *js, bool *out)
{
	u16 *link = spl_find(ev->ctx, ev->seqno);
	struct spl_job *j;
	u16 i;

	*out = false;
	if (*link != SPL_NIL) {
		*linkp = link;
		return &spl_jobs[*link];
	}
	i = spl_alloc(now, js, out);
	/* The eviction may have changed the chain. */
	link = spl_find(ev->ctx, ev->seqno);
	j = &spl_jobs[i];
	*j = (struct spl_job){
		.ctx = ev->ctx, .seqno = ev->seqno, .ring = ev->ring_id,
		.engine = ev->engine, .next = SPL_NIL, .older = j->older,
		.newer = j->newer,
	};
	*link = i;
	*linkp = link;
	return j;
}

/* ---- the modes ----------------------------------------------------------- */

/* adaptive: every 100 ms, the rate that would have kept the budget. */
static void spl_window(void)
{
	unsigned long now = jiffies, elapsed = now - spl_win_start;
	u64 target;

	if (elapsed < HZ / 10)
		return;
	target = div_u64((u64)READ_ONCE(spl_budget) *
			 jiffies_to_msecs(elapsed), MSEC_PER_SEC);
	if (spl_win_seen)
		spl_pct = clamp_t(u64, div64_u64(target * 100, spl_win_seen),
				  1, READ_ONCE(spl_rate));
	else
		spl_pct = READ_ONCE(spl_rate);
	spl_win_start = now;
	spl_win_seen = 0;
	spl_adjusts++;
}

static bool spl_adaptive(const struct grtrace_hook_event *ev)
{
	struct grtrace_job_summary js;
	struct spl_job *j;
	bool keep, out;
	u16 *link;

	raw_spin_lock(&spl_lock);
	spl_window();
	spl_win_seen++;
	if (ev->type > GRTRACE_EV_COMPLETE &&
	    ev->type != GRTRACE_EV_SYNC_WAIT_ENTER &&
	    ev->type != GRTRACE_EV_SYNC_WAIT_EXIT) {
		/* Not a job's (a context switch, an interrupt). */
		keep = spl_hash_keep(ev->ctx, ev->seqno, spl_pct);
		goto unlock;
	}
	j = spl_job_of(ev, 0, &link, &js, &out);
	if (!j->decided) {
		j->keep = spl_hash_keep(ev->ctx, ev->seqno, spl_pct);
		j->decided = true;
	}
	keep = j->keep;
	/* The job's last event: its slot is free again. */
	if (ev->type == GRTRACE_EV_COMPLETE)
		spl_remove(*link, link);
unlock:
	raw_spin_unlock(&spl_lock);
	return keep;
}

/* threshold: note the event's time; at the COMPLETE, judge the job. */
static void spl_threshold_event(const struct grtrace_hook_event *ev,
				struct spl_row *row)
{
	struct grtrace_job_summary js, old;
	bool slow = false, evicted;
	struct spl_job *j;
	u64 now, lat;
	u16 *link;

	if (ev->type > GRTRACE_EV_COMPLETE &&
	    ev->type != GRTRACE_EV_SYNC_WAIT_ENTER &&
	    ev->type != GRTRACE_EV_SYNC_WAIT_EXIT)
		return;
	now = grtrace_clock_now();
	raw_spin_lock(&spl_lock);
	j = spl_job_of(ev, now, &link, &old, &evicted);
	switch (ev->type) {
	case GRTRACE_EV_SYNC_WAIT_ENTER:
		/* A wait on the job's own fence is no dependency of it. */
		if (ev->aux0 == j->ctx && ev->aux1 == j->seqno)
			break;
		j->waits++;
		if (!j->nopen++)
			j->wait_since = now;
		break;
	case GRTRACE_EV_SYNC_WAIT_EXIT:
		if (ev->aux0 == j->ctx && ev->aux1 == j->seqno)
			break;
		if (!j->nopen)
			j->wait_bad = true;
		else if (!--j->nopen)
			j->wait_ns += now - j->wait_since;
		break;
	default:
		j->ts[ev->type - 1] = now;
		j->events |= BIT(ev->type);
		if (ev->derived)
			j->derived |= BIT(ev->type);
		if (ev->type == GRTRACE_EV_SUBMIT && in_task()) {
			j->pid = task_tgid_nr(current);
			j->tid = task_pid_nr(current);
		}
	}
	if (ev->type == GRTRACE_EV_COMPLETE) {
		row->jobs++;
		if (spl_latency(j, &lat) && lat > READ_ONCE(spl_threshold)) {
			spl_summarise(j, GRTRACE_SUMMARY_SLOW, &js);
			slow = true;
			row->slow++;
			row->jobs_kept++;
		} else {
			row->fast++;
		}
		spl_remove(*link, link);
	}
	raw_spin_unlock(&spl_lock);
	if (evicted)
		spl_write(&old);
	if (slow)
		spl_write(&js);
}

static bool spl_drop(const struct grtrace_hook_event *ev, void *data)
{
	struct spl_row *row = &(*this_cpu_ptr(&spl_rows))[spl_row_of(ev->ring_id)];
	bool keep;

	row->events++;
	if (ev->type == GRTRACE_EV_ERROR) {
		this_cpu_inc(spl_counts[SPL_ERRORS]);
		row->kept++;
		return false;
	}
	switch (spl_mode) {
	case SPL_STATIC:
		keep = spl_hash_keep(ev->ctx, ev->seqno, READ_ONCE(spl_rate));
		break;
	case SPL_ADAPTIVE:
		keep = spl_adaptive(ev);
		break;
	case SPL_THRESHOLD:
		spl_threshold_event(ev, row);
		return true;
	default:
		keep = true;
	}
	if (ev->type == GRTRACE_EV_COMPLETE) {
		row->jobs++;
		row->jobs_kept += keep;
	}
	row->kept += keep;
	return !keep;
}

static struct grtrace_hook spl_hook = {
	.name = "sampling",
	.prio = 20,
	.drop = spl_drop,
};

/* ---- the settings -------------------------------------------------------- */

/*
 * Leaving threshold mode: the jobs still open that have run longer than
 * the threshold are written, as open; the others are forgotten.  The hook
 * is unregistered: nothing else touches the table.
 */
static void spl_flush(void)
{
	struct grtrace_job_summary js;
	u64 now = grtrace_clock_now();
	unsigned long flags;
	bool out;
	u16 i;

	lockdep_assert_held(&spl_mutex);
	for (i = spl_oldest; i != SPL_NIL; i = spl_jobs[i].newer) {
		const struct spl_job *j = &spl_jobs[i];
		unsigned int first;

		if (!j->events)
			continue;
		first = __ffs(j->events) - 1;
		raw_spin_lock_irqsave(&spl_lock, flags);
		out = now > j->ts[first] &&
		      now - j->ts[first] > READ_ONCE(spl_threshold);
		if (out)
			spl_summarise(j, GRTRACE_SUMMARY_OPEN, &js);
		raw_spin_unlock_irqrestore(&spl_lock, flags);
		if (out) {
			preempt_disable();
			spl_write(&js);
			preempt_enable();
		}
	}
}

static int spl_set_mode(enum spl_mode mode)
{
	int cpu, ret = 0;

	lockdep_assert_held(&spl_mutex);
	if (mode == spl_mode)
		return 0;
	if (spl_mode != SPL_OFF) {
		grtrace_hook_unregister(&spl_hook);
		if (spl_mode == SPL_THRESHOLD)
			spl_flush();
	}
	/* Counted from zero, by no one while unhooked. */
	for_each_possible_cpu(cpu) {
		memset(per_cpu(spl_rows, cpu), 0, sizeof(spl_rows));
		memset(per_cpu(spl_counts, cpu), 0, sizeof(spl_counts));
	}
	spl_mode = SPL_OFF;
	spl_table_reset();
	if (mode != SPL_OFF) {
		/* The callbacks read spl_mode: set before they can run. */
		spl_mode = mode;
		ret = grtrace_hook_register(&spl_hook);
		if (ret)
			spl_mode = SPL_OFF;
	}
	return ret;
}

enum spl_file { SPL_F_MODE, SPL_F_RATE, SPL_F_THRESHOLD, SPL_F_BUDGET };

static ssize_t spl_file_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	enum spl_file which = (uintptr_t)file_inode(file)->i_private;
	char *s, *buf;
	int ret = 0, mode;
	u64 v;

	if (!count || count > 64)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	s = strim(buf);
	mutex_lock(&spl_mutex);
	switch (which) {
	case SPL_F_MODE:
		mode = sysfs_match_string(spl_mode_names, s);
		ret = mode < 0 ? -EINVAL : spl_set_mode(mode);
		break;
	case SPL_F_RATE:
		if (kstrtou64(s, 0, &v) || !v || v > 100)
			ret = -EINVAL;
		else
			WRITE_ONCE(spl_rate, v);
		break;
	case SPL_F_THRESHOLD:
		if (kstrtou64(s, 0, &v) || !v || v > SPL_MAX_THRESHOLD)
			ret = -EINVAL;
		else
			WRITE_ONCE(spl_threshold, v);
		break;
	case SPL_F_BUDGET:
		if (kstrtou64(s, 0, &v) || !v || v > SPL_MAX_BUDGET)
			ret = -EINVAL;
		else
			WRITE_ONCE(spl_budget, v);
		break;
	}
	mutex_unlock(&spl_mutex);
	if (ret == -EINVAL)
		pr_debug("%pD: bad value '%s'\n", file, s);
	kfree(buf);
	return ret ? ret : count;
}

static int spl_file_show(struct seq_file *m, void *v)
{
	enum spl_file which = (uintptr_t)m->private;
	int i;

	mutex_lock(&spl_mutex);
	switch (which) {
	case SPL_F_MODE:
		/* All the modes, the one in force in brackets. */
		for (i = 0; i < SPL_NR_MODES; i++)
			seq_printf(m, i == spl_mode ? "%s[%s]" : "%s%s",
				   i ? " " : "", spl_mode_names[i]);
		seq_putc(m, '\n');
		break;
	case SPL_F_RATE:
		seq_printf(m, "%u\n", spl_rate);
		break;
	case SPL_F_THRESHOLD:
		seq_printf(m, "%llu\n", spl_threshold);
		break;
	case SPL_F_BUDGET:
		seq_printf(m, "%u\n", spl_budget);
		break;
	}
	mutex_unlock(&spl_mutex);
	return 0;
}

static int spl_file_open(struct inode *inode, struct file *file)
{
	return single_open(file, spl_file_show, inode->i_private);
}

static const struct file_operations spl_fops = {
	.owner = THIS_MODULE,
	.open = spl_file_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = spl_file_write,
	.release = single_release,
};

static void spl_row_add(struct spl_row *sum, const struct spl_row *r)
{
	sum->events += READ_ONCE(r->events);
	sum->kept += READ_ONCE(r->kept);
	sum->jobs += READ_ONCE(r->jobs);
	sum->jobs_kept += READ_ONCE(r->jobs_kept);
	sum->slow += READ_ONCE(r->slow);
	sum->fast += READ_ONCE(r->fast);
}

static void spl_row_show(struct seq_file *m, const char *name,
			 const struct spl_row *r)
{
	u64 pm = r->events ? div64_u64(r->kept * 1000, r->events) : 0;

	seq_printf(m, "%-6s %12llu %12llu %5llu.%llu %10llu %10llu %10llu %10llu\n",
		   name, r->events, r->kept, pm / 10, pm % 10, r->jobs,
		   r->jobs_kept, r->slow, r->fast);
}

static int stats_show(struct seq_file *m, void *v)
{
	struct spl_row total = { 0 }, row;
	u64 cnt[SPL_NR_COUNTS] = { 0 };
	unsigned long flags;
	unsigned int open;
	char name[8];
	int cpu, i;
	u32 pct;

	mutex_lock(&spl_mutex);
	raw_spin_lock_irqsave(&spl_lock, flags);
	open = spl_open;
	pct = spl_pct;
	raw_spin_unlock_irqrestore(&spl_lock, flags);
	seq_printf(m, "mode: %s", spl_mode_names[spl_mode]);
	if (spl_mode == SPL_STATIC)
		seq_printf(m, " (rate=%u%%)", spl_rate);
	else if (spl_mode == SPL_ADAPTIVE)
		seq_printf(m, " (rate=%u%%, budget=%u events/s, now=%u%%)",
			   spl_rate, spl_budget, pct);
	else if (spl_mode == SPL_THRESHOLD)
		seq_printf(m, " (threshold=%llu ns)", spl_threshold);
	seq_putc(m, '\n');
	seq_printf(m, "%-6s %12s %12s %7s %10s %10s %10s %10s\n", "ring",
		   "events", "written", "rate%", "jobs", "jobs_kept", "slow",
		   "fast");
	for (i = 0; i < SPL_ROWS; i++) {
		memset(&row, 0, sizeof(row));
		for_each_possible_cpu(cpu)
			spl_row_add(&row, &per_cpu(spl_rows, cpu)[i]);
		if (!row.events)
			continue;
		spl_row_add(&total, &row);
		if (i == SPL_ROWS - 1)
			strscpy(name, ">63", sizeof(name));
		else
			snprintf(name, sizeof(name), "%d", i);
		spl_row_show(m, name, &row);
	}
	spl_row_show(m, "total", &total);
	for_each_possible_cpu(cpu)
		for (i = 0; i < SPL_NR_COUNTS; i++)
			cnt[i] += READ_ONCE(per_cpu(spl_counts, cpu)[i]);
	for (i = 0; i < SPL_NR_COUNTS; i++)
		seq_printf(m, "%s=%llu\n", spl_count_names[i], cnt[i]);
	seq_printf(m, "open=%u\n", open);
	mutex_unlock(&spl_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init spl_init(void)
{
	static const char *const names[] = {
		"sampling_mode", "sampling_rate", "sampling_threshold",
		"sampling_budget",
	};
	struct dentry *dir = grtrace_debugfs_dir();
	uintptr_t i;

	spl_jobs = vmalloc(array_size(SPL_JOBS, sizeof(*spl_jobs)));
	if (!spl_jobs)
		return -ENOMEM;
	spl_table_reset();
	for (i = 0; i < ARRAY_SIZE(names); i++)
		spl_files[i] = debugfs_create_file(names[i], 0600, dir,
						   (void *)i, &spl_fops);
	spl_files[i] = debugfs_create_file("sampling_stats", 0400, dir, NULL,
					   &stats_fops);
	return 0;
}

static void __exit spl_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(spl_files); i++)
		debugfs_remove(spl_files[i]);
	mutex_lock(&spl_mutex);
	spl_set_mode(SPL_OFF);
	mutex_unlock(&spl_mutex);
	vfree(spl_jobs);
}

module_init(spl_init);
module_exit(spl_exit);
MODULE_DESCRIPTION("grtrace: write some jobs whole, or only the slow ones, and count the rest");
MODULE_LICENSE("GPL");
