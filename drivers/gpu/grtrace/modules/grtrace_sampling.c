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
 *              COMPLETE.  The core's job summary table does the work
 *              (grtrace_jobsum_event()).
 * ERROR events are always written; CTX_SWITCH and IRQ, of no job, are
 * kept by the hash in static and adaptive mode and dropped in threshold
 * mode.  An event not written is dropped with
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
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#define SPL_ROWS	65		/* rings 0..63, then every other ring */
#define SPL_JOBS	4096
#define SPL_BUCKETS	1024
#define SPL_SHARDS	16		/* divides SPL_JOBS and SPL_BUCKETS */
#define SPL_NIL		0xffff
#define SPL_MAX_THRESHOLD	(3600ULL * NSEC_PER_SEC)
#define SPL_MAX_BUDGET	100000000U

enum spl_mode { SPL_OFF, SPL_STATIC, SPL_ADAPTIVE, SPL_THRESHOLD, SPL_NR_MODES };

static const char *const spl_mode_names[SPL_NR_MODES] = {
	"off", "static", "adaptive", "threshold",
};

/* adaptive: a job in flight, and the verdict of its first event. */
struct spl_job {
	u64 ctx;
	u64 seqno;
	u16 next;		/* hash chain, or free list */
	u16 older;		/* age list: allocation order */
	u16 newer;
	bool keep;
};

struct spl_row {
	u64 events;
	u64 kept;
	u64 jobs;
	u64 jobs_kept;
	u64 slow;
	u64 fast;
};

enum spl_count { SPL_EVICTED, SPL_ERRORS, SPL_NR_COUNTS };

static DEFINE_MUTEX(spl_mutex);		/* the settings and the hook */
static enum spl_mode spl_mode;
static u32 spl_rate = 100;
static u64 spl_threshold = NSEC_PER_MSEC;
static u32 spl_budget = 100000;

/*
 * adaptive: the job table, cut into shards by a hash of the job's key,
 * each with its own lock, buckets, slots, free list and age list.  A job's
 * events come from several CPUs, so the table cannot be per CPU; with
 * shards two CPUs meet on a lock only when their jobs share one.  A full
 * shard gives up its own oldest job.
 */
struct spl_shard {
	raw_spinlock_t lock;
	u16 bucket[SPL_BUCKETS / SPL_SHARDS];
	u16 free, oldest, newest;
	unsigned int open;
	struct spl_job *jobs;		/* SPL_JOBS / SPL_SHARDS slots */
} ____cacheline_aligned_in_smp;

static struct spl_shard spl_shards[SPL_SHARDS];
static struct spl_job *spl_jobs;
static struct grtrace_jobsum *spl_js;	/* threshold: the jobs' times */

/*
 * adaptive: the window.  Each CPU counts the events it sees; the CPU that
 * finds the window 100 ms old and takes spl_win_lock (trylock: the others
 * go on) sums the counts since the last close and sets the rate.
 */
static DEFINE_RAW_SPINLOCK(spl_win_lock);
static u32 spl_pct;			/* the rate in force */
static unsigned long spl_win_start;
static u64 spl_win_base;		/* the CPUs' seen at the last close */

/*
 * Per CPU: the rows and the counts.  Allocated at load, not static: the
 * static per-CPU data of all modules shares a small reserve (8 KiB on
 * x86-64).
 */
struct spl_cpu {
	struct spl_row rows[SPL_ROWS];
	u64 counts[SPL_NR_COUNTS];
	u64 seen;			/* adaptive: events since the mode was set */
};

static struct spl_cpu __percpu *spl_cpu;
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

/* Called with the hook unregistered: no event is in the table. */
static void spl_table_reset(void)
{
	const unsigned int per = SPL_JOBS / SPL_SHARDS;
	unsigned long flags;
	unsigned int n, i;

	for (n = 0; n < SPL_SHARDS; n++) {
		struct spl_shard *sh = &spl_shards[n];

		raw_spin_lock_irqsave(&sh->lock, flags);
		sh->jobs = &spl_jobs[n * per];
		for (i = 0; i < ARRAY_SIZE(sh->bucket); i++)
			sh->bucket[i] = SPL_NIL;
		for (i = 0; i < per; i++)
			sh->jobs[i].next = i + 1 < per ? i + 1 : SPL_NIL;
		sh->free = 0;
		sh->oldest = SPL_NIL;
		sh->newest = SPL_NIL;
		sh->open = 0;
		raw_spin_unlock_irqrestore(&sh->lock, flags);
	}
	raw_spin_lock_irqsave(&spl_win_lock, flags);
	WRITE_ONCE(spl_pct, spl_rate);
	spl_win_start = jiffies;
	spl_win_base = 0;
	raw_spin_unlock_irqrestore(&spl_win_lock, flags);
}

/* A job's hash: its bucket in the low bits, its shard above them. */
static u32 spl_hash(u64 ctx, u64 seqno)
{
	return hash_64(ctx ^ (seqno << 20) ^ seqno, 32);
}

static struct spl_shard *spl_shard_of(u64 ctx, u64 seqno)
{
	return &spl_shards[(spl_hash(ctx, seqno) /
			    (SPL_BUCKETS / SPL_SHARDS)) % SPL_SHARDS];
}

static u16 *spl_find(struct spl_shard *sh, u64 ctx, u64 seqno)
{
	u16 *link = &sh->bucket[spl_hash(ctx, seqno) %
				(SPL_BUCKETS / SPL_SHARDS)];

	while (*link != SPL_NIL) {
		struct spl_job *j = &sh->jobs[*link];

		if (j->ctx == ctx && j->seqno == seqno)
			return link;
		link = &j->next;
	}
	return link;
}

/* Take job @i out of its shard; @link is its hash link, or NULL. */
static void spl_remove(struct spl_shard *sh, u16 i, u16 *link)
{
	struct spl_job *j = &sh->jobs[i];

	if (!link)
		link = spl_find(sh, j->ctx, j->seqno);
	*link = j->next;
	if (j->older != SPL_NIL)
		sh->jobs[j->older].newer = j->newer;
	else
		sh->oldest = j->newer;
	if (j->newer != SPL_NIL)
		sh->jobs[j->newer].older = j->older;
	else
		sh->newest = j->older;
	j->next = sh->free;
	sh->free = i;
	sh->open--;
}

/* A slot for a new job; with the shard full, its oldest job gives way. */
static u16 spl_alloc(struct spl_shard *sh)
{
	u16 i = sh->free;

	if (i == SPL_NIL) {
		this_cpu_inc(spl_cpu->counts[SPL_EVICTED]);
		spl_remove(sh, sh->oldest, NULL);
		i = sh->free;
	}
	sh->free = sh->jobs[i].next;
	sh->jobs[i].older = sh->newest;
	sh->jobs[i].newer = SPL_NIL;
	if (sh->newest != SPL_NIL)
		sh->jobs[sh->newest].newer = i;
	else
		sh->oldest = i;
	sh->newest = i;
	sh->open++;
	return i;
}

/* ---- the modes ----------------------------------------------------------- */

/* adaptive: every 100 ms, the rate that would have kept the budget. */
static void spl_window(void)
{
	unsigned long now = jiffies, elapsed = now - spl_win_start;
	u64 target, seen = 0;
	int cpu;

	if (elapsed < HZ / 10)
		return;
	for_each_possible_cpu(cpu)
		seen += READ_ONCE(per_cpu_ptr(spl_cpu, cpu)->seen);
	/*
	 * A window closes at its first event past 100 ms: after a gap in
	 * the traffic it spans the gap, and its events are the few before
	 * it.  A gap banks no budget for the burst that may follow: a
	 * window counts two windows' time at most.
	 */
	target = div_u64((u64)READ_ONCE(spl_budget) *
			 jiffies_to_msecs(min_t(unsigned long, elapsed, HZ / 5)),
			 MSEC_PER_SEC);
	if (seen > spl_win_base)
		WRITE_ONCE(spl_pct,
			   clamp_t(u64, div64_u64(target * 100,
						  seen - spl_win_base),
				   1, READ_ONCE(spl_rate)));
	else
		WRITE_ONCE(spl_pct, READ_ONCE(spl_rate));
	spl_win_base = seen;
	WRITE_ONCE(spl_win_start, now);
}

static bool spl_adaptive(const struct grtrace_hook_event *ev)
{
	struct spl_shard *sh;
	struct spl_job *j;
	u16 *link, i;
	bool keep;

	this_cpu_inc(spl_cpu->seen);
	/* One CPU closes the window; the others keep the rate in force. */
	if (time_after_eq(jiffies, READ_ONCE(spl_win_start) + HZ / 10) &&
	    raw_spin_trylock(&spl_win_lock)) {
		spl_window();
		raw_spin_unlock(&spl_win_lock);
	}
	if (ev->type > GRTRACE_EV_COMPLETE &&
	    ev->type != GRTRACE_EV_SYNC_WAIT_ENTER &&
	    ev->type != GRTRACE_EV_SYNC_WAIT_EXIT) {
		/* Not a job's (a context switch, an interrupt). */
		return spl_hash_keep(ev->ctx, ev->seqno, READ_ONCE(spl_pct));
	}
	sh = spl_shard_of(ev->ctx, ev->seqno);
	raw_spin_lock(&sh->lock);
	link = spl_find(sh, ev->ctx, ev->seqno);
	if (*link == SPL_NIL) {
		/* Its first event: the verdict of the rate in force. */
		i = spl_alloc(sh);
		/* The eviction may have changed the chain. */
		link = spl_find(sh, ev->ctx, ev->seqno);
		*link = i;
		j = &sh->jobs[i];
		j->ctx = ev->ctx;
		j->seqno = ev->seqno;
		j->next = SPL_NIL;
		j->keep = spl_hash_keep(ev->ctx, ev->seqno,
					READ_ONCE(spl_pct));
	}
	keep = sh->jobs[*link].keep;
	/* The job's last event: its slot is free again. */
	if (ev->type == GRTRACE_EV_COMPLETE)
		spl_remove(sh, *link, link);
	raw_spin_unlock(&sh->lock);
	return keep;
}

/* threshold: the job's times are held; at its COMPLETE, it is judged. */
static void spl_threshold_event(const struct grtrace_hook_event *ev,
				struct spl_row *row)
{
	switch (grtrace_jobsum_event(spl_js, ev, READ_ONCE(spl_threshold))) {
	case GRTRACE_JOBSUM_FAST:
		row->jobs++;
		row->fast++;
		break;
	case GRTRACE_JOBSUM_SLOW:
		row->jobs++;
		row->slow++;
		row->jobs_kept++;
		break;
	default:
		break;
	}
}

static bool spl_drop(const struct grtrace_hook_event *ev, void *data)
{
	struct spl_row *row = &this_cpu_ptr(spl_cpu)->rows[spl_row_of(ev->ring_id)];
	bool keep;

	row->events++;
	if (ev->type == GRTRACE_EV_ERROR) {
		this_cpu_inc(spl_cpu->counts[SPL_ERRORS]);
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

static int spl_set_mode(enum spl_mode mode)
{
	int cpu, ret = 0;

	lockdep_assert_held(&spl_mutex);
	if (mode == spl_mode)
		return 0;
	if (spl_mode != SPL_OFF) {
		grtrace_hook_unregister(&spl_hook);
		/* The jobs in flight that are slow already are written. */
		if (spl_mode == SPL_THRESHOLD)
			grtrace_jobsum_flush(spl_js, spl_threshold);
	}
	/* Counted from zero, by no one while unhooked. */
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(spl_cpu, cpu), 0, sizeof(struct spl_cpu));
	spl_mode = SPL_OFF;
	spl_table_reset();
	grtrace_jobsum_reset(spl_js);
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
	struct grtrace_jobsum_stats js;
	unsigned int open = 0;
	char name[8];
	int cpu, i;
	u32 pct;

	mutex_lock(&spl_mutex);
	for (i = 0; i < SPL_SHARDS; i++)
		open += READ_ONCE(spl_shards[i].open);
	pct = READ_ONCE(spl_pct);
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
			spl_row_add(&row, &per_cpu_ptr(spl_cpu, cpu)->rows[i]);
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
			cnt[i] += READ_ONCE(per_cpu_ptr(spl_cpu, cpu)->counts[i]);
	grtrace_jobsum_read(spl_js, &js);
	seq_printf(m, "summaries_written=%llu\nsummaries_lost=%llu\n",
		   js.written, js.lost);
	seq_printf(m, "evicted=%llu\nerrors_kept=%llu\nopen=%u\n",
		   cnt[SPL_EVICTED] + js.evicted, cnt[SPL_ERRORS],
		   open + js.open);
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

	int ret = -ENOMEM;

	spl_cpu = alloc_percpu(struct spl_cpu);
	if (!spl_cpu)
		return -ENOMEM;
	spl_jobs = vmalloc(array_size(SPL_JOBS, sizeof(*spl_jobs)));
	if (!spl_jobs)
		goto err_cpu;
	spl_js = grtrace_jobsum_create(SPL_JOBS);
	if (IS_ERR(spl_js)) {
		ret = PTR_ERR(spl_js);
		goto err_jobs;
	}
	for (i = 0; i < SPL_SHARDS; i++)
		raw_spin_lock_init(&spl_shards[i].lock);
	spl_table_reset();
	for (i = 0; i < ARRAY_SIZE(names); i++)
		spl_files[i] = debugfs_create_file(names[i], 0600, dir,
						   (void *)i, &spl_fops);
	spl_files[i] = debugfs_create_file("sampling_stats", 0400, dir, NULL,
					   &stats_fops);
	return 0;
err_jobs:
	vfree(spl_jobs);
err_cpu:
	free_percpu(spl_cpu);
	return ret;
}

static void __exit spl_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(spl_files); i++)
		debugfs_remove(spl_files[i]);
	mutex_lock(&spl_mutex);
	spl_set_mode(SPL_OFF);
	mutex_unlock(&spl_mutex);
	grtrace_jobsum_destroy(spl_js);
	vfree(spl_jobs);
	free_percpu(spl_cpu);
}

module_init(spl_init);
module_exit(spl_exit);
MODULE_DESCRIPTION("grtrace: write some jobs whole, or only the slow ones, and count the rest");
MODULE_LICENSE("GPL");
