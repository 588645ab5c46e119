// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_filter: keep the jobs of some processes or of one user, and
 * some event types, dropping the rest in the event path (drop reason
 * "hook", so emitted = written + dropped still holds).
 *
 * A job's submitter is the task that ran its SUBMIT (the ioctl that queued
 * it: drm_sched's entity push, i915's request add, virtio-gpu's command
 * queueing), so pid and uid are decided at the SUBMIT and every later
 * event of the job follows that decision, whichever context it comes
 * from.  A job whose SUBMIT came before the filter was enabled, or found
 * the job table full, or came from an interrupt, has no decision: its
 * events pass, counted as "undecided".  A job whose COMPLETE never came
 * (the session stopped first, or a setting of the core dropped it) is
 * forgotten once another session runs: its slot is taken back, counted as
 * "stale", when the next session finds it or needs the room.
 *
 * debugfs, in grtrace's directory:
 *   filter_enabled  0 or 1 (default 0); enabling counts from zero
 *   filter_pid      up to 16 process ids (tgids), comma-separated: keep
 *                   only their jobs; "none" (the default) keeps any
 *   filter_uid      keep only the jobs of this user id; -1 (the default)
 *                   keeps any
 *   filter_events   mask of the event types to keep (default
 *                   0xffffffff), in the reference interface's numbering:
 *                   bit 0 SUBMIT, 1 COMPLETE, 2 CTX_SWITCH, then COMMIT,
 *                   START, END, IRQ, SYNC_WAIT_ENTER, SYNC_WAIT_EXIT,
 *                   ERROR; bit n >= 11 is type n (flt_event_bit)
 *   filter_latency  keep only the jobs whose t_total is above this many
 *                   us, each written whole as one JOB_SUMMARY at its
 *                   COMPLETE (the core's job summary table holds their
 *                   times back); 0 (the default) keeps any
 *   filter_stats    what it saw, kept and dropped by reason
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/grtrace.h>
#include <linux/hash.h>
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

#include "../grtrace_compat.h"

#define FLT_PIDS	16
#define FLT_JOBS	4096
#define FLT_BUCKETS	1024
#define FLT_NIL		0xffff
/*
 * The job table is split in shards by the job's hash, each with its own
 * lock, buckets and slots: CPUs that decide on different jobs do not
 * serialise on one lock per event.
 */
#define FLT_SHARDS	16
#define FLT_SHARD_JOBS	(FLT_JOBS / FLT_SHARDS)
#define FLT_SHARD_BKTS	(FLT_BUCKETS / FLT_SHARDS)

/* The settings, as one unit the event path reads under RCU. */
struct flt_cfg {
	unsigned int nr_pids;
	pid_t pids[FLT_PIDS];
	s64 uid;		/* -1: any */
	u32 events;		/* as filter_events shows it */
	u32 types;		/* the same, bit (1 << type) */
	u64 latency_ns;		/* 0: any */
	struct rcu_head rcu;
};

/*
 * filter_events' bit of each job type.  Users of the reference interface
 * write 0x3 for SUBMIT and COMPLETE, so its bits do not follow the types'
 * numbers; a type without an entry (from a newer core) is its own bit.
 */
static const u8 flt_event_bit[GRTRACE_EV_NR_JOB_TYPES] = {
	[GRTRACE_EV_SUBMIT]		= 0,
	[GRTRACE_EV_COMPLETE]		= 1,
	[GRTRACE_EV_CTX_SWITCH]		= 2,
	[GRTRACE_EV_COMMIT]		= 3,
	[GRTRACE_EV_START]		= 4,
	[GRTRACE_EV_END]		= 5,
	[GRTRACE_EV_IRQ]		= 6,
	[GRTRACE_EV_SYNC_WAIT_ENTER]	= 7,
	[GRTRACE_EV_SYNC_WAIT_EXIT]	= 8,
	[GRTRACE_EV_ERROR]		= 9,
};

/* A filter_events mask as bits (1 << type), which the event path tests. */
static u32 flt_types_of(u32 events)
{
	u32 types = 0;
	int t;

	for (t = 1; t < GRTRACE_EV_NR_JOB_TYPES; t++) {
		int bit = t > GRTRACE_EV_ERROR ? t : flt_event_bit[t];

		if (events & BIT(bit))
			types |= BIT(t);
	}
	return types;
}

struct flt_job {
	u64 ctx;
	u64 seqno;
	u32 ring;
	u32 session;		/* low bits of the session of its SUBMIT */
	u16 next;		/* in the shard's slots */
	bool keep;
};

struct flt_shard {
	raw_spinlock_t lock;	/* guards the rest */
	u16 free;
	u16 bucket[FLT_SHARD_BKTS];
	struct flt_job jobs[FLT_SHARD_JOBS];
} ____cacheline_aligned_in_smp;

enum flt_count {
	FLT_SEEN, FLT_KEPT, FLT_DROP_PID, FLT_DROP_UID, FLT_DROP_EVENTS,
	FLT_DROP_JOB, FLT_DROP_LATENCY, FLT_UNDECIDED, FLT_TABLE_FULL,
	FLT_JOBS_FAST, FLT_JOBS_SLOW, FLT_STALE, FLT_NR_COUNTS
};

static const char *const flt_count_names[FLT_NR_COUNTS] = {
	"seen", "kept", "dropped_pid", "dropped_uid", "dropped_events",
	"dropped_job", "dropped_latency", "undecided", "table_full",
	"jobs_fast", "jobs_slow", "stale",
};

static struct flt_cfg __rcu *flt_cfg;
static DEFINE_MUTEX(flt_mutex);		/* the settings and the hook */
static bool flt_enabled;

static struct flt_shard *flt_shards;	/* FLT_SHARDS of them */
static struct grtrace_jobsum *flt_js;	/* filter_latency: the jobs' times */

/* Per CPU; allocated at load, not in the modules' static per-CPU reserve. */
struct flt_counts {
	u64 n[FLT_NR_COUNTS];
};

static struct flt_counts __percpu *flt_counts;
static struct dentry *flt_files[6];

static void flt_table_reset(void)
{
	unsigned long flags;
	int s, i;

	for (s = 0; s < FLT_SHARDS; s++) {
		struct flt_shard *sh = &flt_shards[s];

		raw_spin_lock_irqsave(&sh->lock, flags);
		for (i = 0; i < FLT_SHARD_BKTS; i++)
			sh->bucket[i] = FLT_NIL;
		for (i = 0; i < FLT_SHARD_JOBS; i++)
			sh->jobs[i].next = i + 1 < FLT_SHARD_JOBS ? i + 1 : FLT_NIL;
		sh->free = 0;
		raw_spin_unlock_irqrestore(&sh->lock, flags);
	}
}

/* The job's shard, and its bucket there in *@bkt. */
static struct flt_shard *flt_shard_of(const struct grtrace_hook_event *ev,
				      unsigned int *bkt)
{
	u32 h = hash_64(ev->ctx ^ (ev->seqno << 20) ^ ev->ring_id,
			ilog2(FLT_BUCKETS));

	*bkt = h % FLT_SHARD_BKTS;
	return &flt_shards[h / FLT_SHARD_BKTS];
}

static u16 *flt_find(struct flt_shard *sh, unsigned int bkt, u32 ring,
		     u64 ctx, u64 seqno)
{
	u16 *link = &sh->bucket[bkt];

	while (*link != FLT_NIL) {
		struct flt_job *j = &sh->jobs[*link];

		if (j->ctx == ctx && j->seqno == seqno && j->ring == ring)
			return link;
		link = &j->next;
	}
	return link;
}

/* The slot *@link names goes back to the shard's free list. */
static void flt_unlink(struct flt_shard *sh, u16 *link)
{
	u16 i = *link;

	*link = sh->jobs[i].next;
	sh->jobs[i].next = sh->free;
	sh->free = i;
}

/*
 * Take back the slots of jobs of sessions before @session (their COMPLETE
 * never came); true if a slot is free then.
 */
static bool flt_reclaim(struct flt_shard *sh, u32 session)
{
	unsigned int b;
	u16 *link;

	for (b = 0; b < FLT_SHARD_BKTS; b++) {
		link = &sh->bucket[b];
		while (*link != FLT_NIL) {
			if (sh->jobs[*link].session != session) {
				flt_unlink(sh, link);
				this_cpu_inc(flt_counts->n[FLT_STALE]);
			} else {
				link = &sh->jobs[*link].next;
			}
		}
	}
	return sh->free != FLT_NIL;
}

/* The submitter's verdict; the count of a drop, or FLT_KEPT. */
static enum flt_count flt_judge_submitter(const struct flt_cfg *c)
{
	unsigned int i;

	if (c->uid >= 0 &&
	    from_kuid(&init_user_ns, current_uid()) != (uid_t)c->uid)
		return FLT_DROP_UID;
	if (!c->nr_pids)
		return FLT_KEPT;
	for (i = 0; i < c->nr_pids; i++)
		if (task_tgid_nr(current) == c->pids[i])
			return FLT_KEPT;
	return FLT_DROP_PID;
}

/* The decision on a job: at its SUBMIT, made and kept; later, looked up. */
static enum flt_count flt_job_verdict(const struct grtrace_hook_event *ev,
				      const struct flt_cfg *c)
{
	u32 session = (u32)grtrace_session_id();
	enum flt_count v = FLT_UNDECIDED;
	struct flt_shard *sh;
	struct flt_job *j;
	unsigned int bkt;
	u16 *link, i;

	sh = flt_shard_of(ev, &bkt);
	raw_spin_lock(&sh->lock);
	link = flt_find(sh, bkt, ev->ring_id, ev->ctx, ev->seqno);
	/* Its decision was of an earlier session: not this job's. */
	if (*link != FLT_NIL && sh->jobs[*link].session != session) {
		flt_unlink(sh, link);
		this_cpu_inc(flt_counts->n[FLT_STALE]);
		link = flt_find(sh, bkt, ev->ring_id, ev->ctx, ev->seqno);
	}
	if (ev->type == GRTRACE_EV_SUBMIT) {
		/* Out of a task (an interrupt), current is nobody's. */
		v = in_task() ? flt_judge_submitter(c) : FLT_UNDECIDED;
		if (v == FLT_UNDECIDED) {
			/* Nothing to follow: its events pass. */
		} else if (*link != FLT_NIL) {
			sh->jobs[*link].keep = v == FLT_KEPT;
		} else if (sh->free != FLT_NIL || flt_reclaim(sh, session)) {
			/* The chain may have changed: its end again. */
			link = flt_find(sh, bkt, ev->ring_id, ev->ctx,
					ev->seqno);
			i = sh->free;
			j = &sh->jobs[i];
			sh->free = j->next;
			*j = (struct flt_job){ .ctx = ev->ctx, .seqno = ev->seqno,
					       .ring = ev->ring_id,
					       .session = session,
					       .next = FLT_NIL,
					       .keep = v == FLT_KEPT };
			*link = i;
		} else {
			/* Its later events will pass as undecided. */
			this_cpu_inc(flt_counts->n[FLT_TABLE_FULL]);
		}
	} else if (*link != FLT_NIL) {
		j = &sh->jobs[*link];
		v = j->keep ? FLT_KEPT : FLT_DROP_JOB;
		/* The job's last event: its slot is free again. */
		if (ev->type == GRTRACE_EV_COMPLETE) {
			i = *link;
			*link = j->next;
			j->next = sh->free;
			sh->free = i;
		}
	}
	raw_spin_unlock(&sh->lock);
	return v;
}

/*
 * filter_latency: a kept job event is held back with its job's times;
 * the job is written whole, as one JOB_SUMMARY, if it turns out slow.
 */
static enum flt_count flt_latency(const struct grtrace_hook_event *ev,
				  u64 latency_ns)
{
	switch (grtrace_jobsum_event(flt_js, ev, latency_ns)) {
	case GRTRACE_JOBSUM_NONE:
		/* No job's (CTX_SWITCH, IRQ, ERROR): as it is. */
		return FLT_KEPT;
	case GRTRACE_JOBSUM_FAST:
		this_cpu_inc(flt_counts->n[FLT_JOBS_FAST]);
		break;
	case GRTRACE_JOBSUM_SLOW:
		this_cpu_inc(flt_counts->n[FLT_JOBS_SLOW]);
		break;
	case GRTRACE_JOBSUM_OPEN:
		break;
	}
	return FLT_DROP_LATENCY;
}

static bool flt_drop(const struct grtrace_hook_event *ev, void *data)
{
	const struct flt_cfg *c;
	enum flt_count v;

	this_cpu_inc(flt_counts->n[FLT_SEEN]);
	/* Interrupts are off: a read-side section synchronize_rcu() knows. */
	c = rcu_dereference_sched(flt_cfg);
	if (!(c->types & BIT(ev->type))) {
		v = FLT_DROP_EVENTS;
		/* Still decide on the job, so its other events follow. */
		if ((c->nr_pids || c->uid >= 0) &&
		    (ev->type == GRTRACE_EV_SUBMIT ||
		     ev->type == GRTRACE_EV_COMPLETE))
			flt_job_verdict(ev, c);
	} else if (c->nr_pids || c->uid >= 0) {
		v = flt_job_verdict(ev, c);
	} else {
		v = FLT_KEPT;
	}
	if (v == FLT_UNDECIDED) {
		this_cpu_inc(flt_counts->n[FLT_UNDECIDED]);
		v = FLT_KEPT;
	}
	if (v == FLT_KEPT && c->latency_ns)
		v = flt_latency(ev, c->latency_ns);
	this_cpu_inc(flt_counts->n[v]);
	return v != FLT_KEPT;
}

static struct grtrace_hook flt_hook = {
	.name = "filter",
	.prio = 10,
	.drop = flt_drop,
};

/* Unhooked: the jobs held that are slow already are written, as open. */
static void flt_latency_flush(void)
{
	u64 ns = rcu_dereference_protected(flt_cfg, 1)->latency_ns;

	if (ns)
		grtrace_jobsum_flush(flt_js, ns);
}

/* Replace the settings with @c, which they take. */
static void flt_cfg_swap(struct flt_cfg *c)
{
	struct flt_cfg *old;

	lockdep_assert_held(&flt_mutex);
	old = rcu_replace_pointer(flt_cfg, c, lockdep_is_held(&flt_mutex));
	kfree_rcu(old, rcu);
}

/* A copy of the settings to change, under flt_mutex. */
static struct flt_cfg *flt_cfg_copy(void)
{
	struct flt_cfg *c = kmalloc(sizeof(*c), GFP_KERNEL);

	lockdep_assert_held(&flt_mutex);
	if (c)
		*c = *rcu_dereference_protected(flt_cfg,
						lockdep_is_held(&flt_mutex));
	return c;
}

/* "none", or up to FLT_PIDS positive pids, comma-separated. */
static int flt_parse_pids(char *s, struct flt_cfg *c)
{
	char *tok;
	int pid;

	c->nr_pids = 0;
	if (!strcmp(s, "none"))
		return 0;
	while ((tok = strsep(&s, ","))) {
		if (c->nr_pids == FLT_PIDS || kstrtoint(strim(tok), 10, &pid) ||
		    pid <= 0)
			return -EINVAL;
		c->pids[c->nr_pids++] = pid;
	}
	return 0;
}

/* filter_latency, in us: 0 (any), or up to an hour. */
#define FLT_MAX_LATENCY_US	(3600ULL * USEC_PER_SEC)

static int flt_parse_latency(char *s, struct flt_cfg *c)
{
	u64 us;

	if (kstrtou64(s, 0, &us) || us > FLT_MAX_LATENCY_US)
		return -EINVAL;
	if (flt_enabled && !us && c->latency_ns) {
		/*
		 * The later events of the jobs held would be written without
		 * their earlier ones: disable first.
		 */
		pr_debug("filter_latency: disable the filter to turn it off\n");
		return -EBUSY;
	}
	c->latency_ns = us * NSEC_PER_USEC;
	return 0;
}

enum flt_file {
	FLT_F_ENABLED, FLT_F_PID, FLT_F_UID, FLT_F_EVENTS, FLT_F_LATENCY
};

static ssize_t flt_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	enum flt_file which = (uintptr_t)file_inode(file)->i_private;
	char *s, *buf = memdup_user_nul(ubuf, min_t(size_t, count, 257));
	struct flt_cfg *c = NULL;
	unsigned int v;
	long long uid = -1;
	int ret = 0;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (!count || count > 256) {
		ret = -EINVAL;
		goto out;
	}
	s = strim(buf);
	mutex_lock(&flt_mutex);
	if (which == FLT_F_ENABLED) {
		if (kstrtouint(s, 0, &v) || v > 1) {
			ret = -EINVAL;
		} else if (v && !flt_enabled) {
			int cpu;

			/* Counted from zero, by no one while unhooked. */
			for_each_possible_cpu(cpu)
				memset(per_cpu_ptr(flt_counts, cpu), 0,
				       sizeof(struct flt_counts));
			flt_table_reset();
			grtrace_jobsum_reset(flt_js);
			ret = grtrace_hook_register(&flt_hook);
			flt_enabled = !ret;
		} else if (!v && flt_enabled) {
			grtrace_hook_unregister(&flt_hook);
			flt_enabled = false;
			flt_latency_flush();
		}
		goto unlock;
	}
	c = flt_cfg_copy();
	if (!c) {
		ret = -ENOMEM;
		goto unlock;
	}
	if (which == FLT_F_PID) {
		ret = flt_parse_pids(s, c);
	} else if (which == FLT_F_LATENCY) {
		ret = flt_parse_latency(s, c);
	} else if (which == FLT_F_UID) {
		ret = kstrtoll(s, 0, &uid) || uid < -1 || uid > U32_MAX - 1 ?
		      -EINVAL : 0;
	} else {
		ret = kstrtou32(s, 0, &c->events) ? -EINVAL : 0;
		c->types = flt_types_of(c->events);
	}
	if (which == FLT_F_UID && !ret)
		c->uid = uid;
	if (ret) {
		kfree(c);
		goto unlock;
	}
	flt_cfg_swap(c);
unlock:
	mutex_unlock(&flt_mutex);
out:
	if (ret == -EINVAL)
		pr_debug("%pD: bad value\n", file);
	kfree(buf);
	return ret ? ret : count;
}

static int flt_show(struct seq_file *m, void *v)
{
	enum flt_file which = (uintptr_t)m->private;
	const struct flt_cfg *c;
	unsigned int i;

	mutex_lock(&flt_mutex);
	c = rcu_dereference_protected(flt_cfg, lockdep_is_held(&flt_mutex));
	switch (which) {
	case FLT_F_ENABLED:
		seq_printf(m, "%d\n", flt_enabled);
		break;
	case FLT_F_PID:
		if (!c->nr_pids)
			seq_puts(m, "none");
		for (i = 0; i < c->nr_pids; i++)
			seq_printf(m, "%s%d", i ? "," : "", c->pids[i]);
		seq_putc(m, '\n');
		break;
	case FLT_F_UID:
		seq_printf(m, "%lld\n", c->uid);
		break;
	case FLT_F_EVENTS:
		seq_printf(m, "0x%08x\n", c->events);
		break;
	case FLT_F_LATENCY:
		seq_printf(m, "%llu\n", div_u64(c->latency_ns, NSEC_PER_USEC));
		break;
	}
	mutex_unlock(&flt_mutex);
	return 0;
}

static int flt_open(struct inode *inode, struct file *file)
{
	return single_open(file, flt_show, inode->i_private);
}

static const struct file_operations flt_fops = {
	.owner = THIS_MODULE,
	.open = flt_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = flt_write,
	.release = single_release,
};

static int stats_show(struct seq_file *m, void *v)
{
	u64 sum[FLT_NR_COUNTS] = { 0 };
	struct grtrace_jobsum_stats js;
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < FLT_NR_COUNTS; i++)
			sum[i] += READ_ONCE(per_cpu_ptr(flt_counts, cpu)->n[i]);
	seq_printf(m, "enabled=%d\n", READ_ONCE(flt_enabled));
	for (i = 0; i < FLT_NR_COUNTS; i++)
		seq_printf(m, "%s=%llu\n", flt_count_names[i], sum[i]);
	grtrace_jobsum_read(flt_js, &js);
	seq_printf(m, "summaries_written=%llu\nsummaries_lost=%llu\njobs_evicted=%llu\njobs_held=%u\n",
		   js.written, js.lost, js.evicted, js.open);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init flt_init(void)
{
	static const char *const names[] = {
		"filter_enabled", "filter_pid", "filter_uid", "filter_events",
		"filter_latency",
	};
	struct dentry *dir = grtrace_debugfs_dir();
	struct flt_cfg *c;
	uintptr_t i;

	flt_js = grtrace_jobsum_create(FLT_JOBS);
	if (IS_ERR(flt_js))
		return PTR_ERR(flt_js);
	flt_counts = alloc_percpu(struct flt_counts);
	flt_shards = vmalloc(array_size(FLT_SHARDS, sizeof(*flt_shards)));
	c = kzalloc_obj(*c);
	if (!flt_counts || !flt_shards || !c) {
		kfree(c);
		vfree(flt_shards);
		free_percpu(flt_counts);
		grtrace_jobsum_destroy(flt_js);
		return -ENOMEM;
	}
	for (i = 0; i < FLT_SHARDS; i++)
		raw_spin_lock_init(&flt_shards[i].lock);
	flt_table_reset();
	c->uid = -1;
	c->events = U32_MAX;
	c->types = U32_MAX;
	RCU_INIT_POINTER(flt_cfg, c);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		flt_files[i] = debugfs_create_file(names[i], 0600, dir,
						   (void *)i, &flt_fops);
	flt_files[i] = debugfs_create_file("filter_stats", 0400, dir, NULL,
					   &stats_fops);
	return 0;
}

static void __exit flt_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(flt_files); i++)
		debugfs_remove(flt_files[i]);
	if (flt_enabled) {
		grtrace_hook_unregister(&flt_hook);
		flt_latency_flush();
	}
	/* No reader of the settings is left after the unregister. */
	kfree(rcu_dereference_protected(flt_cfg, 1));
	grtrace_jobsum_destroy(flt_js);
	vfree(flt_shards);
	free_percpu(flt_counts);
}

module_init(flt_init);
module_exit(flt_exit);
MODULE_DESCRIPTION("grtrace: keep the jobs of some processes, a user, some event types");
MODULE_LICENSE("GPL");
