// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: the flight recorder, its state, triggers, accounting and files.
 */

/**
 * DOC: Flight recorder
 *
 * Armed, grtrace runs an ordinary session (the same event path, the same
 * per-CPU relay buffers) whose buffers overwrite their oldest sub-buffer
 * instead of refusing a full one, with no reader and no timer.  The first
 * trigger freezes them: the event path's channel pointer is cleared, so
 * every later event is dropped with the reason ``frozen``, and the
 * records the buffers hold are the snapshot, kept until released.  Later
 * triggers are counted, up to the moment the release has armed the new
 * session, and the release keeps their final count
 * (``released_later_triggers``): a trigger while the snapshot is read,
 * saved or released is never lost unseen.  The state moves off -> armed
 * -> triggered -> (release: rearming) armed, or to off by disarm, only
 * under grtrace_lock, but for the trigger itself, which is one cmpxchg()
 * and may come from any context but NMI: a probe, a kprobe, a hard
 * interrupt.  It only sets state and queues an irq_work that wakes the
 * pollers of ``info``.
 *
 * Accounting, per CPU and exact: a sub-buffer notes at its start how many
 * records its CPU had written since arm (grtrace_rec_subbuf_start(), once
 * a sub-buffer, interrupts off), so that overwriting the oldest one counts
 * its records in one subtraction and the event path pays nothing.  The
 * records are the job events and the control records (RING, JOB_SUMMARY)
 * written after the session's own STREAM_INFO and METADATA; ``emitted``
 * counts the events that entered the event path since arm and the control
 * records written or counted as dropped; ``dropped`` every named drop
 * reason and the control records dropped.  emitted == kept + overwritten
 * + dropped.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/relay.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/wait.h>

#include "grtrace_compat.h"
#include "grtrace_internal.h"

enum grtrace_rec_state {
	GRTRACE_REC_OFF,
	GRTRACE_REC_REARMING,	/* a release: triggers counted, not frozen */
	GRTRACE_REC_ARMED,
	GRTRACE_REC_FREEZING,	/* a trigger is filling in what it froze */
	GRTRACE_REC_TRIGGERED,
};

/**
 * struct grtrace_rec_cpu - the flight recorder's view of one CPU
 * @start: records written since arm when each sub-buffer started, by
 *	sub-buffer index; written by the CPU, interrupts off
 * @overwritten: records in the sub-buffers overwritten since arm
 * @refused: a sub-buffer switch was refused after the freeze: the current
 *	sub-buffer is the one before the count of produced ones
 * @base_emitted: emitted (events and control records) when armed
 * @base_written: records written when armed
 * @base_dropped: drops when armed
 * @base_cseq: the CPU's cseq when armed: records before it are not
 *	the snapshot's (the session's own STREAM_INFO and METADATA)
 * @top_cseq: the CPU's cseq once the snapshot settled, past every record
 *	its buffer holds: format 2's records carry the low 32 bits of their
 *	cseq, which are made whole again from it
 * @kept: records kept, once the snapshot settled
 * @first_ts: first kept record's time, 0 if none
 * @last_ts: last kept record's time, 0 if none
 * @first_cseq: first kept record's cseq
 * @last_cseq: last kept record's cseq
 */
struct grtrace_rec_cpu {
	u64 start[GRTRACE_NR_SUBBUFS];
	u64 overwritten;
	bool refused;
	u64 base_emitted;
	u64 base_written;
	u64 base_dropped;
	u64 base_cseq;
	u64 top_cseq;
	u64 kept;
	u64 first_ts;
	u64 last_ts;
	u64 first_cseq;
	u64 last_cseq;
};

static struct grtrace_rec_cpu __percpu *grtrace_rec_cpu;

/**
 * struct grtrace_rec - the flight recorder
 * @state: enum grtrace_rec_state; cmpxchg() by triggers
 * @later: triggers while the snapshot is kept or being released
 * @released_later: @later of the snapshot last released, counted until
 *	its release armed the new session
 * @released_session: the session of the snapshot last released
 * @trig: what froze it, valid from state triggered on
 * @settled: the snapshot's records are counted (grtrace_rec_settle())
 * @format: the session's stream format
 * @buffer_size: its buffer size per CPU
 * @session: its session id
 */
struct grtrace_rec {
	int state;
	atomic64_t later;
	u64 released_later;
	u64 released_session;
	struct grtrace_trigger trig;
	bool settled;
	u8 format;
	unsigned long buffer_size;
	u64 session;
};

static struct grtrace_rec grtrace_rec;
static DECLARE_WAIT_QUEUE_HEAD(grtrace_rec_wait);

static void grtrace_rec_wake(struct irq_work *work)
{
	wake_up_interruptible_poll(&grtrace_rec_wait, EPOLLIN | EPOLLPRI);
}

static DEFINE_IRQ_WORK(grtrace_rec_wake_work, grtrace_rec_wake);

static const char * const grtrace_rec_state_names[] = {
	[GRTRACE_REC_OFF]	= "off",
	[GRTRACE_REC_REARMING]	= "triggered",
	[GRTRACE_REC_ARMED]	= "armed",
	[GRTRACE_REC_FREEZING]	= "armed",
	[GRTRACE_REC_TRIGGERED]	= "triggered",
};

static const char * const grtrace_rec_cause_names[] = {
	"none", "manual", "timeout", "error",
};

const char *grtrace_recorder_state(void)
{
	return grtrace_rec_state_names[READ_ONCE(grtrace_rec.state)];
}

/*
 * A CPU's totals as the recorder counts them: emitted events and control
 * records, records written, drops.  Exact on the CPU itself with
 * interrupts off, where no event is half counted.
 */
static void grtrace_rec_totals(int cpu, u64 *emitted, u64 *written,
			       u64 *dropped)
{
	const struct grtrace_counters *c = &per_cpu_ptr(grtrace_pcpu, cpu)->cnt;
	u64 ctl_w = READ_ONCE(c->ctl_written), ctl_d = READ_ONCE(c->ctl_dropped);
	u64 d = 0;
	int i, t;

	grtrace_counters_totals(c, emitted, written);
	for (i = 0; i < GRTRACE_NR_DROPS; i++)
		d += READ_ONCE(c->dropped[i]);
	for (i = 0; i < GRTRACE_NR_QUICK; i++)
		for (t = 0; t < GRTRACE_QUICK_TYPES; t++)
			d += READ_ONCE(c->quick[i][t]);
	*emitted += ctl_w + ctl_d;
	*written += ctl_w;
	*dropped = d + ctl_d;
}

/**
 * grtrace_rec_subbuf_start() - relay's subbuf_start while armed
 * @buf: the CPU's buffer, switching to sub-buffer number
 *	@buf->subbufs_produced
 * @fresh: the buffer is being made (relay's reset, no sub-buffer before)
 *
 * Notes the records written since arm as the new sub-buffer's start; when
 * it overwrites the oldest one, the records before the oldest that
 * remains are overwritten.  Refuses once frozen, so that an event that
 * read the channel before the freeze cannot overwrite the snapshot.
 * Context: the buffer's CPU, interrupts off (grtrace_reserve()); or, for
 * the first sub-buffer of a CPU that comes online for the first time
 * while armed, relay's CPU hotplug callback on another CPU, preemptible,
 * while the new CPU runs nothing: so the buffer's CPU, never this one.
 * A buffer made after the freeze (its CPU's first time online since arm)
 * holds nothing: it is not refused, and the snapshot reads it empty.
 * Return: 1 to let relay switch, 0 to refuse.
 */
int grtrace_rec_subbuf_start(struct rchan_buf *buf, bool fresh)
{
	struct grtrace_rec_cpu *rc = per_cpu_ptr(grtrace_rec_cpu, buf->cpu);
	size_t n = buf->chan->n_subbufs, seq = buf->subbufs_produced;
	u64 emitted, written, dropped;

	/*
	 * Not "!= ARMED": arm publishes the state after it enabled the
	 * session, and disarm clears it before it stops it; in between, the
	 * buffers overwrite as when armed.
	 */
	if (READ_ONCE(grtrace_rec.state) >= GRTRACE_REC_FREEZING) {
		/* relay ignores the answer for a fresh buffer: none to refuse. */
		if (fresh)
			return 1;
		rc->refused = true;
		return 0;
	}
	if (WARN_ON_ONCE(n > GRTRACE_NR_SUBBUFS))
		return 0;
	grtrace_rec_totals(buf->cpu, &emitted, &written, &dropped);
	rc->start[seq % n] = written - rc->base_written;
	if (seq >= n)
		rc->overwritten = rc->start[(seq + 1) % n];
	return 1;
}

/* Where @cpu's accounting starts: on the CPU, interrupts off. */
static void grtrace_rec_base_cpu(int cpu, void *unused)
{
	struct grtrace_rec_cpu *rc = per_cpu_ptr(grtrace_rec_cpu, cpu);
	struct grtrace_pcpu *pc = per_cpu_ptr(grtrace_pcpu, cpu);

	memset(rc, 0, sizeof(*rc));
	grtrace_rec_totals(cpu, &rc->base_emitted, &rc->base_written,
			   &rc->base_dropped);
	rc->base_cseq = pc->cseq + READ_ONCE(pc->nmi_lost);
}

struct grtrace_rec_call {
	void (*fn)(int cpu, void *arg);
	void *arg;
};

static void grtrace_rec_call_fn(void *p)
{
	struct grtrace_rec_call *c = p;

	c->fn(smp_processor_id(), c->arg);
}

/*
 * Run @fn for each possible CPU: on the CPU with interrupts off, where no
 * event is half counted, or here for an offline one, where none runs.
 */
static void grtrace_rec_each_cpu(void (*fn)(int cpu, void *arg), void *arg)
{
	struct grtrace_rec_call c = { .fn = fn, .arg = arg };
	int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			smp_call_function_single(cpu, grtrace_rec_call_fn, &c,
						 1);
		else
			fn(cpu, arg);
	}
	cpus_read_unlock();
}

/**
 * grtrace_rec_base() - the armed session's accounting starts now
 *
 * Called by grtrace_start_locked() after its STREAM_INFO and METADATA,
 * before it enables the event path.
 * Context: grtrace_lock held; sleeps.
 */
void grtrace_rec_base(void)
{
	lockdep_assert_held(&grtrace_lock);
	grtrace_rec_each_cpu(grtrace_rec_base_cpu, NULL);
}

/*
 * Freeze the buffers for the first trigger, count a later one.  Any
 * context but NMI; never sleeps, takes no lock.  Return: 0, 1 when it was
 * a later trigger, -EINVAL when not armed.
 */
static int grtrace_rec_trigger(u32 cause, u32 ring_id, u64 ctx, u64 seqno,
			       s64 error)
{
	struct grtrace_trigger *t = &grtrace_rec.trig;
	unsigned long flags;
	u64 t0, t1;
	int old, ret = 0;

	if (in_nmi())
		return -EINVAL;
	/* A caller's bug: the snapshot's TRIGGER and info name the cause. */
	if (!cause || cause >= ARRAY_SIZE(grtrace_rec_cause_names)) {
		pr_debug("trigger: no such cause %u: ignored\n", cause);
		return -EINVAL;
	}
	/*
	 * Interrupts off for the few hundred ns of the freeze: one taken
	 * between the two clock reads would be counted in freeze_ns (seen at
	 * 190 us under TCG).  No lock, nothing that sleeps: fine on RT.
	 */
	local_irq_save(flags);
	t0 = grtrace_now();
	old = cmpxchg(&grtrace_rec.state, GRTRACE_REC_ARMED,
		      GRTRACE_REC_FREEZING);
	if (old != GRTRACE_REC_ARMED) {
		if (old == GRTRACE_REC_OFF) {
			ret = -EINVAL;
		} else {
			atomic64_inc(&grtrace_rec.later);
			ret = 1;
		}
		goto out;
	}
	grtrace_rec_freeze();
	t1 = grtrace_now();
	t->hdr = (struct grtrace_hdr){ .type = GRTRACE_REC_TRIGGER, .ts = t0 };
	t->cause = cause;
	t->ring_id = ring_id;
	t->ctx = ctx;
	t->seqno = seqno;
	t->error = error;
	t->frozen_ts = t1;
	t->cpu = smp_processor_id();
	t->reserved = 0;
	/* What it froze before the state that says so: grtrace_rec_info(). */
	cmpxchg_release(&grtrace_rec.state, GRTRACE_REC_FREEZING,
			GRTRACE_REC_TRIGGERED);
	/* The pollers are woken where waking is allowed. */
	irq_work_queue(&grtrace_rec_wake_work);
out:
	local_irq_restore(flags);
	return ret;
}

/**
 * grtrace_recorder_trigger() - freeze the flight recorder's buffers
 * @cause: GRTRACE_TRIGGER_*
 * @ring_id: the ring it names, or U32_MAX for none
 * @ctx: fence context of the job it names, 0 with @seqno 0 for none
 * @seqno: fence seqno of the job it names
 * @error: a negative errno, or 0
 *
 * The first trigger while armed freezes the buffers within a few hundred
 * ns (the snapshot's ``freeze_ns``); one while a snapshot is kept or
 * being released is counted (``later_triggers``, and at the release
 * ``released_later_triggers``); one while not armed does nothing, and
 * so does one with a @cause that is none of GRTRACE_TRIGGER_*.
 * Context: any but NMI, hard interrupts, probes and kprobes included;
 * never sleeps, takes no lock.
 */
void grtrace_recorder_trigger(u32 cause, u32 ring_id, u64 ctx, u64 seqno,
			      s64 error)
{
	grtrace_rec_trigger(cause, ring_id, ctx, seqno, error);
}
EXPORT_SYMBOL_GPL(grtrace_recorder_trigger);

/* An ERROR event passed the event path while armed: interrupts are off. */
void grtrace_rec_error(u32 ring_id, u64 ctx, u64 seqno, u64 err)
{
	grtrace_rec_trigger(GRTRACE_TRIGGER_ERROR, ring_id, ctx, seqno,
			    (s64)err);
}

/* Where the records of sub-buffer @s of @buf end. */
static size_t grtrace_rec_subbuf_len(struct rchan_buf *buf, size_t s,
				     size_t cur, bool refused)
{
	size_t size = buf->chan->subbuf_size;

	if (s == cur && !refused)
		return min_t(size_t, buf->offset, size);
	return size - buf->padding[s % buf->chan->n_subbufs];
}

/*
 * Visit the records of @cpu's buffer that the snapshot keeps, oldest
 * first: those written since arm, in the sub-buffers not overwritten.
 * @fn is called with each record, its size and its whole cseq.
 *
 * A format 2 record has the low 32 bits of its cseq.  A buffer holds far
 * fewer than 2^32 records, each below @top_cseq, so the whole cseq is
 * the one below @top_cseq with those bits.  (Compared in 32 bits with
 * the cseq of the arm, every record of a CPU that had written 2^31 or
 * more since then was taken for one from before: a recorder armed for a
 * day or two kept nothing of that CPU.)
 */
static void grtrace_rec_walk(struct rchan *chan, int cpu,
			     void (*fn)(void *arg, const void *rec, u16 size,
					u64 cseq),
			     void *arg)
{
	struct rchan_buf *buf = *per_cpu_ptr(chan->buf, cpu);
	struct grtrace_rec_cpu *rc = per_cpu_ptr(grtrace_rec_cpu, cpu);
	bool v2 = grtrace_rec.format != GRTRACE_FORMAT_V1;
	size_t n = chan->n_subbufs, cur, s, first, hsize;

	if (!buf)
		return;
	hsize = v2 ? sizeof(struct grtrace_hdr2) : sizeof(struct grtrace_hdr);
	cur = buf->subbufs_produced;
	if (rc->refused && cur)
		cur--;
	first = cur >= n ? cur - n + 1 : 0;
	for (s = first; s <= cur; s++) {
		const u8 *p = buf->start + (s % n) * chan->subbuf_size;
		size_t len = grtrace_rec_subbuf_len(buf, s, cur, rc->refused);
		size_t off = 0;

		while (off + hsize <= len) {
			const u8 *r = p + off;
			u16 size = *(const u16 *)(r + 2);
			u64 cseq;

			if (WARN_ON_ONCE(size < hsize || off + size > len))
				break;
			cseq = v2 ? rc->top_cseq -
				    (u32)((u32)rc->top_cseq - *(const u32 *)(r + 4)) :
				    *(const u64 *)(r + 24);
			if (cseq >= rc->base_cseq)
				fn(arg, r, size, cseq);
			off += size;
		}
	}
}

static void grtrace_rec_count_one(void *arg, const void *rec, u16 size,
				  u64 cseq)
{
	struct grtrace_rec_cpu *rc = arg;
	u64 ts = *(const u64 *)(rec + 8);

	if (!rc->kept++) {
		rc->first_ts = ts;
		rc->first_cseq = cseq;
	}
	rc->last_ts = ts;
	rc->last_cseq = cseq;
}

/*
 * Once per snapshot, before it is read: wait for the events that read the
 * channel before the freeze, then count what each CPU keeps.
 */
static void grtrace_rec_settle(void)
{
	struct rchan *chan = grtrace_rec_channel();
	int cpu;

	lockdep_assert_held(&grtrace_lock);
	if (grtrace_rec.settled || !chan)
		return;
	/* Event paths run with interrupts or preemption off. */
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		struct grtrace_rec_cpu *rc = per_cpu_ptr(grtrace_rec_cpu, cpu);
		const struct grtrace_pcpu *pc = per_cpu_ptr(grtrace_pcpu, cpu);

		/* No record is written any more: none is at or past it. */
		rc->top_cseq = READ_ONCE(pc->cseq) + READ_ONCE(pc->nmi_lost);
		rc->kept = 0;
		rc->first_ts = 0;
		rc->last_ts = 0;
		grtrace_rec_walk(chan, cpu, grtrace_rec_count_one, rc);
	}
	grtrace_rec.settled = true;
}

/**
 * struct grtrace_rec_acct - one CPU's accounting since arm
 * @emitted: events and control records
 * @written: records written
 * @dropped: drops
 * @overwritten: records overwritten, taken with @written: never more
 */
struct grtrace_rec_acct {
	u64 emitted;
	u64 written;
	u64 dropped;
	u64 overwritten;
};

static void grtrace_rec_acct_cpu(int cpu, void *arg)
{
	struct grtrace_rec_acct *a = (struct grtrace_rec_acct *)arg + cpu;
	const struct grtrace_rec_cpu *rc = per_cpu_ptr(grtrace_rec_cpu, cpu);

	grtrace_rec_totals(cpu, &a->emitted, &a->written, &a->dropped);
	a->emitted -= rc->base_emitted;
	a->written -= rc->base_written;
	a->dropped -= rc->base_dropped;
	a->overwritten = rc->overwritten;
}

/* Every CPU's accounting now, or NULL without memory.  kfree() it. */
static struct grtrace_rec_acct *grtrace_rec_acct(void)
{
	struct grtrace_rec_acct *a;

	a = kcalloc(nr_cpu_ids, sizeof(*a), GFP_KERNEL);
	if (a)
		grtrace_rec_each_cpu(grtrace_rec_acct_cpu, a);
	return a;
}

/* The RECORDER record of @cpu (format 1), from its accounting @a. */
static void grtrace_rec_cpu_record(struct grtrace_recorder_cpu *r, int cpu,
				   const struct grtrace_rec_acct *a)
{
	const struct grtrace_rec_cpu *rc = per_cpu_ptr(grtrace_rec_cpu, cpu);

	*r = (struct grtrace_recorder_cpu){
		.hdr.type = GRTRACE_REC_RECORDER,
		.cpu = cpu,
		.first_ts = rc->first_ts,
		.last_ts = rc->last_ts,
		.emitted = a->emitted,
		.kept = rc->kept,
		.overwritten = rc->overwritten,
		.dropped = a->dropped,
		.buffer_size = grtrace_rec.buffer_size,
	};
	/* Written, so kept or overwritten: anything else is our bug. */
	WARN_ONCE(a->written != rc->kept + rc->overwritten,
		  "cpu%d: written %llu != kept %llu + overwritten %llu\n", cpu,
		  a->written, rc->kept, rc->overwritten);
}

static int grtrace_rec_info_show(struct seq_file *m, void *v)
{
	const struct grtrace_trigger *t = &grtrace_rec.trig;
	struct grtrace_rec_acct *a = NULL;
	int state, cpu, ret;
	bool trig;

	/*
	 * The trigger's job, ring and times are those of the snapshot's
	 * TRIGGER record: refused with it, on every read (pollers keep info
	 * open across a raise of the lockdown level).
	 */
	ret = grtrace_lockdown();
	if (ret)
		return ret;
	mutex_lock(&grtrace_lock);
	/* Pairs with the release of the trigger. */
	state = smp_load_acquire(&grtrace_rec.state);
	trig = state == GRTRACE_REC_TRIGGERED;
	if (trig)
		grtrace_rec_settle();
	if (state != GRTRACE_REC_OFF) {
		a = grtrace_rec_acct();
		if (!a) {
			mutex_unlock(&grtrace_lock);
			return -ENOMEM;
		}
	}
	seq_printf(m, "state=%s\n", grtrace_rec_state_names[state]);
	seq_printf(m, "session=%llu\nformat=%u\nbuffer_size=%lu\n",
		   state ? grtrace_rec.session : 0, state ? grtrace_rec.format : 0,
		   state ? grtrace_rec.buffer_size : 0);
	seq_printf(m, "cause=%s\ncpu=%u\nring=%u\nctx=%llu\nseqno=%llu\nerror=%lld\n",
		   grtrace_rec_cause_names[trig ? t->cause : 0],
		   trig ? t->cpu : 0, trig ? t->ring_id : U32_MAX,
		   trig ? t->ctx : 0, trig ? t->seqno : 0, trig ? t->error : 0);
	seq_printf(m, "trigger_ts=%llu\nfrozen_ts=%llu\nfreeze_ns=%llu\nlater_triggers=%lld\n",
		   trig ? t->hdr.ts : 0, trig ? t->frozen_ts : 0,
		   trig ? t->frozen_ts - t->hdr.ts : 0,
		   atomic64_read(&grtrace_rec.later));
	seq_printf(m, "released_session=%llu\nreleased_later_triggers=%llu\n",
		   grtrace_rec.released_session, grtrace_rec.released_later);
	for_each_possible_cpu(cpu) {
		const struct grtrace_rec_cpu *rc = per_cpu_ptr(grtrace_rec_cpu, cpu);
		u64 kept = 0, over = 0, emitted = 0, dropped = 0;

		if (a) {
			emitted = a[cpu].emitted;
			dropped = a[cpu].dropped;
			/*
			 * Taken on the CPU with its written count: read
			 * here, a sub-buffer overwritten since would make
			 * it more than written (kept near 2^64).
			 */
			over = a[cpu].overwritten;
			/* Armed: the records in the buffer now. */
			kept = trig ? rc->kept : a[cpu].written - over;
		}
		seq_printf(m, "cpu%d first_ts=%llu last_ts=%llu emitted=%llu kept=%llu overwritten=%llu dropped=%llu\n",
			   cpu, trig ? rc->first_ts : 0, trig ? rc->last_ts : 0,
			   emitted, kept, over, dropped);
	}
	mutex_unlock(&grtrace_lock);
	kfree(a);
	return 0;
}

static int grtrace_rec_info_open(struct inode *inode, struct file *file)
{
	int ret = grtrace_lockdown();

	if (ret)
		return ret;
	return single_open(file, grtrace_rec_info_show, NULL);
}

/*
 * Checked on every read, not only in show(): seq_read() hands out the
 * rest of a text already shown without showing it again, so a reader
 * that read part of it before lockdown was raised got the rest after.
 */
static ssize_t grtrace_rec_info_read(struct file *file, char __user *buf,
				     size_t len, loff_t *ppos)
{
	int ret = grtrace_lockdown();

	return ret ? ret : seq_read(file, buf, len, ppos);
}

/* Readable, and a priority event, once a snapshot is kept. */
static __poll_t grtrace_rec_info_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &grtrace_rec_wait, wait);
	/* Pairs with the release of the trigger: its record is filled. */
	if (smp_load_acquire(&grtrace_rec.state) == GRTRACE_REC_TRIGGERED)
		return EPOLLIN | EPOLLRDNORM | EPOLLPRI;
	return 0;
}

static const struct file_operations grtrace_rec_info_fops = {
	.owner		= THIS_MODULE,
	.open		= grtrace_rec_info_open,
	.read		= grtrace_rec_info_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.poll		= grtrace_rec_info_poll,
};

/* A snapshot stream being built: its bytes and their count. */
struct grtrace_rec_out {
	u8 *p;
	size_t len;
	size_t cap;
};

/*
 * Append control record @rec (format 1, @size bytes) in the session's
 * format, stamped @ts and @cseq, without gseq (0 in format 1): written
 * afresh, it was never in a buffer.
 */
static void grtrace_rec_put(struct grtrace_rec_out *o, const void *rec,
			    u16 size, u64 ts, u64 cseq, int cpu)
{
	const struct grtrace_hdr *hdr = rec;
	u16 body = size - sizeof(*hdr);

	if (grtrace_rec.format != GRTRACE_FORMAT_V1) {
		struct grtrace_hdr2 *h2 = (void *)(o->p + o->len);

		if (WARN_ON_ONCE(o->len + sizeof(*h2) + body > o->cap))
			return;
		h2->type = hdr->type - GRTRACE_REC_STREAM_INFO +
			   GRTRACE_REC2_STREAM_INFO;
		h2->flags = 0;
		h2->size = sizeof(*h2) + body;
		h2->cseq = (u32)cseq;
		h2->ts = ts;
		memcpy(h2 + 1, hdr + 1, body);
		o->len += sizeof(*h2) + body;
	} else {
		struct grtrace_hdr *h = (void *)(o->p + o->len);

		if (WARN_ON_ONCE(o->len + size > o->cap))
			return;
		memcpy(h, rec, size);
		h->size = size;
		h->cpu = cpu;
		h->flags = 0;
		h->ts = ts;
		h->gseq = 0;
		h->cseq = cseq;
		o->len += size;
	}
}

static void grtrace_rec_copy_one(void *arg, const void *rec, u16 size,
				 u64 cseq)
{
	struct grtrace_rec_out *o = arg;

	if (WARN_ON_ONCE(o->len + size > o->cap))
		return;
	memcpy(o->p + o->len, rec, size);
	o->len += size;
}

/*
 * The snapshot stream of @cpu: STREAM_INFO and METADATA written afresh
 * (RING records for rings beyond one record), stamped with the first kept
 * record's time and the two cseqs right before its (the records
 * overwritten are counted in RECORDER, not left as a gap), the kept
 * records, RECORDER stamped with the last kept record's time and the next
 * cseq and, on the CPU that triggered, TRIGGER with the cseq after and
 * the time the trigger was called, as its uapi says.
 */
static int grtrace_rec_build(struct grtrace_rec_out *o, int cpu)
{
	struct rchan *chan = grtrace_rec_channel();
	const struct grtrace_rec_cpu *rc = per_cpu_ptr(grtrace_rec_cpu, cpu);
	struct grtrace_trigger trig = grtrace_rec.trig;
	struct grtrace_ring_record rr = { .hdr.type = GRTRACE_REC_RING };
	struct grtrace_recorder_cpu rcpu;
	struct grtrace_stream_info si;
	struct grtrace_metadata *md;
	struct grtrace_rec_acct *a;
	u32 nr, fit, i;
	u64 ts, cseq;
	int ret = -ENOMEM;

	md = grtrace_rings_metadata(&nr);
	a = grtrace_rec_acct();
	if (!md || !a)
		goto out;
	fit = (min_t(size_t, chan->subbuf_size, GRTRACE_MAX_RECORD) -
	       sizeof(*md)) / sizeof(struct grtrace_ring_desc);
	md->nr_rings = min(nr, fit);
	o->cap = sizeof(si) + struct_size(md, rings, nr) + nr * sizeof(rr) +
		 sizeof(rcpu) + sizeof(trig) +
		 (rc->kept ? chan->alloc_size : 0);
	o->p = kvmalloc(o->cap, GFP_KERNEL);
	if (!o->p)
		goto out;
	ts = rc->kept ? rc->first_ts : trig.hdr.ts;
	cseq = rc->kept ? rc->first_cseq : rc->base_cseq;
	grtrace_stream_info_fill(&si);
	si.session_id = grtrace_rec.session;
	grtrace_rec_put(o, &si, sizeof(si), ts, cseq - 2, cpu);
	grtrace_rec_put(o, md, struct_size(md, rings, md->nr_rings), ts,
			cseq - 1, cpu);
	for (i = md->nr_rings; i < nr; i++) {
		rr.ring = md->rings[i];
		grtrace_rec_put(o, &rr, sizeof(rr), ts, cseq - 1, cpu);
	}
	grtrace_rec_walk(chan, cpu, grtrace_rec_copy_one, o);
	ts = rc->kept ? rc->last_ts : trig.hdr.ts;
	cseq = rc->kept ? rc->last_cseq + 1 : rc->base_cseq;
	grtrace_rec_cpu_record(&rcpu, cpu, &a[cpu]);
	grtrace_rec_put(o, &rcpu, sizeof(rcpu), ts, cseq, cpu);
	if (cpu == trig.cpu) {
		trig.later_triggers = atomic64_read(&grtrace_rec.later);
		grtrace_rec_put(o, &trig, sizeof(trig), trig.hdr.ts, cseq + 1,
				cpu);
	}
	ret = 0;
out:
	kfree(a);
	kvfree(md);
	return ret;
}

static int grtrace_rec_snapshot_open(struct inode *inode, struct file *file)
{
	int cpu = (long)inode->i_private;
	struct grtrace_rec_out *o;
	int ret;

	ret = grtrace_lockdown();
	if (ret)
		return ret;
	o = kzalloc_obj(*o);
	if (!o)
		return -ENOMEM;
	mutex_lock(&grtrace_lock);
	/* Pairs with the release of the trigger: its record is filled. */
	if (smp_load_acquire(&grtrace_rec.state) != GRTRACE_REC_TRIGGERED ||
	    !grtrace_rec_channel()) {
		ret = -ENODATA;
	} else {
		grtrace_rec_settle();
		ret = grtrace_rec_build(o, cpu);
	}
	mutex_unlock(&grtrace_lock);
	if (ret) {
		kvfree(o->p);
		kfree(o);
		return ret;
	}
	file->private_data = o;
	return 0;
}

static ssize_t grtrace_rec_snapshot_read(struct file *file, char __user *ubuf,
					 size_t count, loff_t *ppos)
{
	struct grtrace_rec_out *o = file->private_data;
	int ret;

	/*
	 * Raised while the file was open: its copy, taken at open, is the
	 * same kernel data as the events files, refused on every read.
	 */
	ret = grtrace_lockdown();
	if (ret)
		return ret;
	return simple_read_from_buffer(ubuf, count, ppos, o->p, o->len);
}

static int grtrace_rec_snapshot_release(struct inode *inode, struct file *file)
{
	struct grtrace_rec_out *o = file->private_data;

	kvfree(o->p);
	kfree(o);
	return 0;
}

static const struct file_operations grtrace_rec_snapshot_fops = {
	.owner		= THIS_MODULE,
	.open		= grtrace_rec_snapshot_open,
	.read		= grtrace_rec_snapshot_read,
	.llseek		= default_llseek,
	.release	= grtrace_rec_snapshot_release,
};

/* A new session in overwrite mode, armed last. */
static int grtrace_rec_start_locked(void)
{
	int ret;

	ret = grtrace_arm_locked();
	if (ret) {
		pr_debug("recorder: arm failed: %d%s\n", ret,
			 ret == -EBUSY ? " (a tracing session runs: stop it first)" : "");
		return ret;
	}
	grtrace_rec.session = grtrace_session;
	grtrace_rec.format = grtrace_cfg.format;
	grtrace_rec.buffer_size = grtrace_buffer_size;
	grtrace_rec.settled = false;
	/* Its buffers are ready before a trigger may freeze them. */
	smp_store_release(&grtrace_rec.state, GRTRACE_REC_ARMED);
	return 0;
}

/* Arm, from off. */
static int grtrace_rec_arm_locked(void)
{
	/* Off: no trigger counts. */
	atomic64_set(&grtrace_rec.later, 0);
	return grtrace_rec_start_locked();
}

/*
 * Release: discard the snapshot and arm a new session.  The state is
 * neither off nor armed until the new session is armed, so that a
 * trigger meanwhile is counted with the snapshot's later triggers, whose
 * final count info keeps.  A trigger between the new session's arm and
 * that count freezes the new session, and one more in that instant is
 * counted with the released snapshot: none is lost.
 */
static int grtrace_rec_release_locked(void)
{
	int ret;

	/* Only the lock's holders leave triggered. */
	WRITE_ONCE(grtrace_rec.state, GRTRACE_REC_REARMING);
	/* Triggers run with interrupts off: the stop's RCU waits for them. */
	grtrace_disarm_locked();
	irq_work_sync(&grtrace_rec_wake_work);
	grtrace_rec.released_session = grtrace_rec.session;
	ret = grtrace_rec_start_locked();
	if (ret) {
		WRITE_ONCE(grtrace_rec.state, GRTRACE_REC_OFF);
		wake_up_interruptible_poll(&grtrace_rec_wait,
					   EPOLLIN | EPOLLPRI);
	}
	grtrace_rec.released_later = atomic64_xchg(&grtrace_rec.later, 0);
	return ret;
}

/* Disarm: no trigger runs once this returns; the buffers are gone. */
static void grtrace_rec_disarm_locked(void)
{
	int old;

	/* A trigger between its two steps finishes them first. */
	do {
		old = READ_ONCE(grtrace_rec.state);
		if (old == GRTRACE_REC_FREEZING)
			cpu_relax();
	} while (old == GRTRACE_REC_FREEZING ||
		 cmpxchg(&grtrace_rec.state, old, GRTRACE_REC_OFF) != old);
	/* Triggers run with interrupts off: the stop's RCU waits for them. */
	grtrace_disarm_locked();
	irq_work_sync(&grtrace_rec_wake_work);
	wake_up_interruptible_poll(&grtrace_rec_wait, EPOLLIN | EPOLLPRI);
}

/**
 * grtrace_recorder_cmd() - a word written to a recorder control file
 * @buf: "arm", "disarm", "trigger" or "release", maybe with white space
 *
 * Context: process context; takes grtrace_lock.
 * Return: 0, -EINVAL (an unknown word; trigger or release with nothing to
 * act on), -EBUSY (arm while tracing or armed), or arm's error.
 */
int grtrace_recorder_cmd(char *buf)
{
	char *cmd = strim(buf);
	int state, ret = 0;

	mutex_lock(&grtrace_lock);
	state = READ_ONCE(grtrace_rec.state);
	if (!strcmp(cmd, "arm")) {
		if (state != GRTRACE_REC_OFF) {
			pr_debug("recorder: arm: already %s\n",
				 grtrace_rec_state_names[state]);
			ret = -EBUSY;
		} else {
			ret = grtrace_rec_arm_locked();
		}
	} else if (!strcmp(cmd, "disarm")) {
		if (state != GRTRACE_REC_OFF)
			grtrace_rec_disarm_locked();
	} else if (!strcmp(cmd, "trigger")) {
		ret = grtrace_rec_trigger(GRTRACE_TRIGGER_MANUAL, U32_MAX, 0, 0,
					  0);
		if (ret < 0)
			pr_debug("recorder: trigger: not armed\n");
		ret = min(ret, 0);
	} else if (!strcmp(cmd, "release")) {
		if (state != GRTRACE_REC_TRIGGERED) {
			pr_debug("recorder: release: no snapshot (%s)\n",
				 grtrace_rec_state_names[state]);
			ret = -EINVAL;
		} else {
			ret = grtrace_rec_release_locked();
		}
	} else {
		pr_debug("recorder: unknown command '%s' (arm, disarm, trigger, release)\n",
			 cmd);
		ret = -EINVAL;
	}
	mutex_unlock(&grtrace_lock);
	return ret;
}

static int grtrace_rec_control_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", grtrace_recorder_state());
	return 0;
}

static int grtrace_rec_control_open(struct inode *inode, struct file *file)
{
	return single_open(file, grtrace_rec_control_show, NULL);
}

static ssize_t grtrace_rec_control_write(struct file *file,
					 const char __user *ubuf, size_t count,
					 loff_t *ppos)
{
	char *buf;
	int ret;

	if (!count || count > 64) {
		pr_debug("recorder: write of %zu bytes refused (1..64)\n", count);
		return -EINVAL;
	}
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = grtrace_recorder_cmd(buf);
	kfree(buf);
	return ret ?: count;
}

static const struct file_operations grtrace_rec_control_fops = {
	.owner		= THIS_MODULE,
	.open		= grtrace_rec_control_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= grtrace_rec_control_write,
};

/**
 * grtrace_recorder_init() - the recorder's state
 *
 * Context: module load, before grtrace's files exist.
 * Return: 0 or -ENOMEM.
 */
int grtrace_recorder_init(void)
{
	grtrace_rec_cpu = alloc_percpu(struct grtrace_rec_cpu);
	return grtrace_rec_cpu ? 0 : -ENOMEM;
}

/**
 * grtrace_recorder_create_files() - the recorder's debugfs files
 * @dir: grtrace's debugfs directory
 *
 * Context: module load, once nothing of it can fail.
 */
void grtrace_recorder_create_files(struct dentry *dir)
{
	struct dentry *rdir;
	char name[32];
	int cpu;

	rdir = debugfs_create_dir("recorder", dir);
	debugfs_create_file("control", 0600, rdir, NULL,
			    &grtrace_rec_control_fops);
	debugfs_create_file("info", 0400, rdir, NULL, &grtrace_rec_info_fops);
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "snapshot%d", cpu);
		debugfs_create_file(name, 0400, rdir, (void *)(long)cpu,
				    &grtrace_rec_snapshot_fops);
	}
}

/**
 * grtrace_recorder_exit() - disarm, for the module's unload
 *
 * Context: module unload, no file open (each holds a module reference).
 */
void grtrace_recorder_exit(void)
{
	mutex_lock(&grtrace_lock);
	if (READ_ONCE(grtrace_rec.state) != GRTRACE_REC_OFF)
		grtrace_rec_disarm_locked();
	mutex_unlock(&grtrace_lock);
	irq_work_sync(&grtrace_rec_wake_work);
	free_percpu(grtrace_rec_cpu);
}
