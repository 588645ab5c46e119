// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_bench: what one event costs, grtrace against ftrace.
 *
 * Writing "MODE N" to /sys/kernel/debug/grtrace_bench/run makes N calls in
 * a tight loop and times the loop with ktime_get_ns().  MODE is "grtrace"
 * (grtrace_submit(), the whole event path), "ftrace" (the tracepoint
 * grtrace_bench_job, whose payload has the size of a grtrace job event's)
 * or "empty" (the loop alone).  To tell where the time of an event goes,
 * "ktime" calls ktime_get_ns(), "irqsave" pairs local_irq_save() with
 * local_irq_restore(), "atomic" does atomic64_inc_return() on one shared
 * counter and "memcpy" copies 72 bytes (a grtrace job event) through an
 * out-of-line memcpy(): the clock read, interrupt masking, global sequence
 * number and record copy of grtrace's event path.  "floor" is the least a
 * relay-based event can cost: interrupts masked, one clock read, one
 * relay_reserve() of a 36-byte record (a format 2 job event) on a channel
 * of its own, and the fill; "floor_call" the same behind a call, as an API
 * is reached; "floor_irqon" the floor with interrupts left on, as
 * grtrace's fast path leaves them, and "ktime_irqoff" the clock read with
 * interrupts masked around it: under TCG what masking costs depends on the
 * clocksource.  "ktime_fast" calls ktime_get_mono_fast_ns(), the clock of
 * ftrace's trace_clock "mono".  Preemption is disabled per chunk of calls,
 * so the loop stays on one CPU without stalling the machine.  A MODE ending
 * in "_all" runs N calls on every online CPU at once, one bound kthread
 * each, and gives the mean of their ns per call: compared with the same
 * MODE on one CPU it shows what the CPUs share; "MODE_all N CPULIST" runs
 * on the online CPUs of CPULIST only.  "jobs" emits whole jobs, SUBMIT,
 * COMMIT, START, END and COMPLETE in turn (a call each), on a ring and a
 * context of the CPU's own (ring 1 + CPU), as a driver with a ring per
 * CPU would; "spread" emits a SUBMIT and a COMPLETE per call, the call i
 * on ring i % 64 and context i % 254, so that N of 254 or more fills the
 * aggregator's tables (every ring and 254 contexts: room for two CPUs'
 * "jobs").  Reading the file gives the last result, with each CPU's ns of
 * an "_all" run (the first BENCH_SHOWN).  "jobs_floor" alternates a chunk
 * of "jobs" with one of "floor" and times each chunk, giving the time of
 * the jobs' calls, and of the floor's as floor_ns: however the CPU's time
 * is cut (a vCPU waiting for its time slice under TCG), both see the same
 * share of it, so their ratio is that of their costs on that CPU.  Whether
 * each call was written or dropped depends on how grtrace or ftrace is set
 * up, which is the caller's job (bench.sh, agg_scaling.sh).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/grtrace.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#define CREATE_TRACE_POINTS
#include "grtrace_bench_trace.h"

#define BENCH_CHUNK	1000		/* calls per preemption-off stretch */
#define BENCH_MAX_N	10000000
#define BENCH_CTX	0x6272ULL	/* fence context of the fake jobs */
#define BENCH_SPREAD_CTX 0x7370ULL	/* the first context of "spread" */
#define BENCH_SHOWN	8		/* CPUs whose ns are shown */

enum bench_mode {
	BENCH_EMPTY,
	BENCH_GRTRACE,
	BENCH_FTRACE,
	BENCH_KTIME,
	BENCH_IRQSAVE,
	BENCH_ATOMIC,
	BENCH_MEMCPY,
	BENCH_FLOOR,
	BENCH_FLOOR_CALL,
	BENCH_KTIME_IRQOFF,
	BENCH_FLOOR_IRQON,
	BENCH_KTIME_FAST,
	BENCH_JOBS,
	BENCH_SPREAD,
	BENCH_JOBS_FLOOR,
	BENCH_NR_MODES,
};

static const char * const bench_mode_names[BENCH_NR_MODES] = {
	[BENCH_EMPTY]	= "empty",
	[BENCH_GRTRACE]	= "grtrace",
	[BENCH_FTRACE]	= "ftrace",
	[BENCH_KTIME]	= "ktime",
	[BENCH_IRQSAVE]	= "irqsave",
	[BENCH_ATOMIC]	= "atomic",
	[BENCH_MEMCPY]	= "memcpy",
	[BENCH_FLOOR]	= "floor",
	[BENCH_FLOOR_CALL] = "floor_call",
	[BENCH_KTIME_IRQOFF] = "ktime_irqoff",
	[BENCH_FLOOR_IRQON] = "floor_irqon",
	[BENCH_KTIME_FAST] = "ktime_fast",
	[BENCH_JOBS]	= "jobs",
	[BENCH_SPREAD]	= "spread",
	[BENCH_JOBS_FLOOR] = "jobs_floor",
};

#define BENCH_FLOOR_SIZE	36	/* a format 2 job event */

/* The floor's own channel: overwriting, so a reservation never fails. */
static struct rchan *bench_chan;

static int bench_subbuf_start(struct rchan_buf *buf, void *subbuf,
			      void *prev_subbuf, size_t prev_padding)
{
	return 1;
}

static struct dentry *bench_create_buf_file(const char *filename,
					    struct dentry *parent, umode_t mode,
					    struct rchan_buf *buf,
					    int *is_global)
{
	return debugfs_create_file(filename, 0400, parent, buf,
				   &relay_file_operations);
}

static int bench_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks bench_relay_cb = {
	.subbuf_start		= bench_subbuf_start,
	.create_buf_file	= bench_create_buf_file,
	.remove_buf_file	= bench_remove_buf_file,
};

/*
 * One floor event: what no relay-based tracer can do without.  With
 * @masked false, interrupts stay on, as in grtrace's fast path: nothing
 * else writes this channel, and preemption is off.
 */
static __always_inline void bench_floor_one(u64 ctx, u64 seqno, bool masked)
{
	unsigned long flags = 0;
	u32 *p;

	if (masked)
		local_irq_save(flags);
	p = relay_reserve(bench_chan, BENCH_FLOOR_SIZE);
	if (p) {
		u64 ts = ktime_get_ns();

		p[0] = 1 | BENCH_FLOOR_SIZE << 16;
		p[1] = (u32)seqno;
		p[2] = (u32)ts;
		p[3] = ts >> 32;
		p[4] = (u32)ctx;
		p[5] = ctx >> 32;
		p[6] = (u32)seqno;
		p[7] = seqno >> 32;
		p[8] = 0;
	}
	if (masked)
		local_irq_restore(flags);
}

/*
 * The floor behind a call, as an exported function of another module is
 * reached: out of line, in a page of its own.  Under TCG a jump to
 * another guest page is looked up rather than chained, and so is every
 * return; this is what a tracer's API adds to the floor there.
 */
static noinline void __section(".text.bench_floor_call") __aligned(PAGE_SIZE)
bench_floor_call(u64 ctx, u64 seqno)
{
	bench_floor_one(ctx, seqno, true);
}

/* Serialises runs; protects the last result. */
static DEFINE_MUTEX(bench_lock);
static enum bench_mode bench_last_mode;
static u32 bench_last_n;
static u64 bench_last_ns;
static bool bench_last_all;
static unsigned int bench_last_ncpu;
static int bench_last_cpu[BENCH_SHOWN];
static u64 bench_last_cpu_ns[BENCH_SHOWN];
static u64 bench_last_floor_ns;	/* of "jobs_floor", one CPU or the mean */
static u64 bench_last_cpu_floor_ns[BENCH_SHOWN];
static struct dentry *bench_dir;
static atomic64_t bench_seq = ATOMIC64_INIT(0);
static u64 bench_sink;
static u64 bench_rec[2][9];	/* 72 bytes, as a job event */

/* The parts of grtrace's event path, n times each; returns a sum to keep. */
static u64 bench_parts(enum bench_mode mode, u32 n)
{
	size_t size = sizeof(bench_rec[0]);
	unsigned long flags;
	u64 sum = 0;
	u32 i;

	switch (mode) {
	case BENCH_KTIME:
		for (i = 0; i < n; i++)
			sum += ktime_get_ns();
		break;
	case BENCH_KTIME_FAST:
		for (i = 0; i < n; i++)
			sum += ktime_get_mono_fast_ns();
		break;
	case BENCH_KTIME_IRQOFF:
		for (i = 0; i < n; i++) {
			local_irq_save(flags);
			sum += ktime_get_ns();
			local_irq_restore(flags);
		}
		break;
	case BENCH_IRQSAVE:
		for (i = 0; i < n; i++) {
			local_irq_save(flags);
			barrier();
			local_irq_restore(flags);
		}
		break;
	case BENCH_ATOMIC:
		for (i = 0; i < n; i++)
			sum += atomic64_inc_return(&bench_seq);
		break;
	default:
		/* A size unknown at compile time, as in grtrace_copy(). */
		OPTIMIZER_HIDE_VAR(size);
		for (i = 0; i < n; i++)
			memcpy(bench_rec[i & 1], bench_rec[!(i & 1)], size);
		break;
	}
	return sum;
}

/* Call @i of a "jobs" run: one event of job i / 5 on @ring. */
static void bench_job_event(u32 ring, u64 ctx, u32 i)
{
	switch (i % 5) {
	case 0:
		grtrace_submit(ring, ctx, i / 5);
		break;
	case 1:
		grtrace_commit(ring, ctx, i / 5);
		break;
	case 2:
		grtrace_start(ring, ctx, i / 5);
		break;
	case 3:
		grtrace_end(ring, ctx, i / 5);
		break;
	default:
		grtrace_complete(ring, ctx, i / 5);
		break;
	}
}

/* Make calls for seqnos [first, first + n) on this CPU. */
static void bench_chunk(enum bench_mode mode, u32 first, u32 n)
{
	u32 i, cpu;

	preempt_disable();
	switch (mode) {
	case BENCH_JOBS:
		cpu = smp_processor_id();
		for (i = first; i < first + n; i++)
			bench_job_event(1 + cpu % 63, BENCH_CTX + cpu, i);
		break;
	case BENCH_SPREAD:
		for (i = first; i < first + n; i++) {
			grtrace_submit(i % 64, BENCH_SPREAD_CTX + i % 254, i);
			grtrace_complete(i % 64, BENCH_SPREAD_CTX + i % 254, i);
		}
		break;
	case BENCH_GRTRACE:
		for (i = first; i < first + n; i++)
			grtrace_submit(0, BENCH_CTX, i);
		break;
	case BENCH_FTRACE:
		for (i = first; i < first + n; i++)
			trace_grtrace_bench_job(BENCH_CTX, i, 0, 0, 0, 0);
		break;
	case BENCH_FLOOR:
		for (i = first; i < first + n; i++)
			bench_floor_one(BENCH_CTX, i, true);
		break;
	case BENCH_FLOOR_CALL:
		for (i = first; i < first + n; i++)
			bench_floor_call(BENCH_CTX, i);
		break;
	case BENCH_FLOOR_IRQON:
		for (i = first; i < first + n; i++)
			bench_floor_one(BENCH_CTX, i, false);
		break;
	case BENCH_EMPTY:
		/* The compiler may not drop the loop across a barrier. */
		for (i = first; i < first + n; i++)
			barrier();
		break;
	default:
		WRITE_ONCE(bench_sink, bench_parts(mode, n));
		break;
	}
	preempt_enable();
}

/* The time of @n calls; of "jobs_floor", the jobs', the floor's in *@floor. */
static u64 bench_run(enum bench_mode mode, u32 n, u64 *floor)
{
	u64 t0, t1, t2, jobs = 0;
	u32 done, chunk;

	*floor = 0;
	t0 = ktime_get_ns();
	for (done = 0; done < n; done += chunk) {
		chunk = min_t(u32, n - done, BENCH_CHUNK);
		if (mode == BENCH_JOBS_FLOOR) {
			t1 = ktime_get_ns();
			bench_chunk(BENCH_JOBS, done, chunk);
			t2 = ktime_get_ns();
			bench_chunk(BENCH_FLOOR, done, chunk);
			jobs += t2 - t1;
			*floor += ktime_get_ns() - t2;
		} else {
			bench_chunk(mode, done, chunk);
		}
		cond_resched();
	}
	return mode == BENCH_JOBS_FLOOR ? jobs : ktime_get_ns() - t0;
}

/* One CPU's part of an "_all" run. */
struct bench_cpu {
	enum bench_mode mode;
	u32 n;
	atomic_t *ready;
	struct completion *go;
	u64 ns;
	int cpu;
	u64 floor_ns;
};

static int bench_cpu_fn(void *arg)
{
	struct bench_cpu *bc = arg;

	/* Every thread waits for the last one, so that all run at once. */
	atomic_dec(bc->ready);
	wait_for_completion(bc->go);
	bc->ns = bench_run(bc->mode, bc->n, &bc->floor_ns);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * @n calls on every online CPU of @mask at once; the mean of their ns per
 * call.
 */
static int bench_run_all(enum bench_mode mode, u32 n,
			 const struct cpumask *mask, u64 *ns)
{
	DECLARE_COMPLETION_ONSTACK(go);
	struct task_struct **t;
	struct bench_cpu *bc;
	atomic_t ready;
	int cpu, nr = 0, i, ret = 0;
	u64 sum = 0, fsum = 0;

	cpus_read_lock();
	bc = kcalloc(nr_cpu_ids, sizeof(*bc), GFP_KERNEL);
	t = kcalloc(nr_cpu_ids, sizeof(*t), GFP_KERNEL);
	if (!bc || !t) {
		ret = -ENOMEM;
		goto out;
	}
	atomic_set(&ready, cpumask_weight_and(mask, cpu_online_mask));
	for_each_cpu_and(cpu, mask, cpu_online_mask) {
		bc[nr] = (struct bench_cpu){ mode, n, &ready, &go, 0, cpu, 0 };
		t[nr] = kthread_create_on_cpu(bench_cpu_fn, &bc[nr], cpu,
					      "grtrace_bench/%u");
		if (IS_ERR(t[nr])) {
			ret = PTR_ERR(t[nr]);
			break;
		}
		wake_up_process(t[nr]);
		nr++;
	}
	/* On an error, the threads started still wait for @go: release them. */
	while (!ret && atomic_read(&ready))
		schedule_timeout_uninterruptible(1);
	complete_all(&go);
	bench_last_ncpu = 0;
	for (i = 0; i < nr; i++) {
		kthread_stop(t[i]);
		sum += bc[i].ns;
		fsum += bc[i].floor_ns;
		if (i < BENCH_SHOWN) {
			bench_last_cpu[i] = bc[i].cpu;
			bench_last_cpu_ns[i] = bc[i].ns;
			bench_last_cpu_floor_ns[i] = bc[i].floor_ns;
			bench_last_ncpu++;
		}
	}
	if (!ret && !nr)
		ret = -EINVAL;
	if (!ret) {
		*ns = div_u64(sum, nr);
		bench_last_floor_ns = div_u64(fsum, nr);
	}
out:
	kfree(t);
	kfree(bc);
	cpus_read_unlock();
	return ret;
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	char buf[32], *arg, *name, *all, *list;
	cpumask_var_t mask;
	int mode, ret = 0;
	u32 n;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	arg = strim(buf);
	name = strsep(&arg, " ");
	all = strstr(name, "_all");
	if (all && !all[4])
		*all = '\0';
	else
		all = NULL;
	mode = match_string(bench_mode_names, BENCH_NR_MODES, name);
	if (mode < 0 || !arg)
		return -EINVAL;
	arg = skip_spaces(arg);
	list = strsep(&arg, " ");
	if (kstrtou32(list, 0, &n) || !n || n > BENCH_MAX_N)
		return -EINVAL;
	/* The CPUs of an "_all" run: all, or those listed. */
	list = arg ? skip_spaces(arg) : NULL;
	if (list && *list && !all)
		return -EINVAL;
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	if (list && *list)
		ret = cpulist_parse(list, mask);
	else
		cpumask_setall(mask);
	if (ret) {
		free_cpumask_var(mask);
		return ret;
	}

	mutex_lock(&bench_lock);
	if (all) {
		ret = bench_run_all(mode, n, mask, &bench_last_ns);
	} else {
		bench_last_ns = bench_run(mode, n, &bench_last_floor_ns);
		bench_last_ncpu = 0;
	}
	free_cpumask_var(mask);
	if (!ret) {
		bench_last_mode = mode;
		bench_last_n = n;
		bench_last_all = !!all;
	}
	mutex_unlock(&bench_lock);
	return ret ?: count;
}

static ssize_t bench_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	char buf[128 + BENCH_SHOWN * 64];
	unsigned int i;
	u64 centi;
	int len;

	mutex_lock(&bench_lock);
	if (!bench_last_n) {
		len = scnprintf(buf, sizeof(buf), "none\n");
	} else {
		centi = div_u64(bench_last_ns * 100, bench_last_n);
		len = scnprintf(buf, sizeof(buf),
				"mode=%s%s n=%u total_ns=%llu ns_per_event=%llu.%02llu",
				bench_mode_names[bench_last_mode],
				bench_last_all ? "_all" : "", bench_last_n,
				bench_last_ns, div_u64(centi, 100), centi % 100);
		if (bench_last_mode == BENCH_JOBS_FLOOR)
			len += scnprintf(buf + len, sizeof(buf) - len,
					 " floor_ns=%llu", bench_last_floor_ns);
		/* Each CPU's time of an "_all" run. */
		for (i = 0; bench_last_all && i < bench_last_ncpu; i++) {
			len += scnprintf(buf + len, sizeof(buf) - len,
					 " cpu%d_ns=%llu", bench_last_cpu[i],
					 bench_last_cpu_ns[i]);
			if (bench_last_mode == BENCH_JOBS_FLOOR)
				len += scnprintf(buf + len, sizeof(buf) - len,
						 " cpu%d_floor_ns=%llu",
						 bench_last_cpu[i],
						 bench_last_cpu_floor_ns[i]);
		}
		len += scnprintf(buf + len, sizeof(buf) - len, "\n");
	}
	mutex_unlock(&bench_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations bench_fops = {
	.owner	= THIS_MODULE,
	.read	= bench_read,
	.write	= bench_write,
	.llseek	= default_llseek,
};

static int __init bench_init(void)
{
	bench_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(bench_dir))
		return PTR_ERR(bench_dir);
	bench_chan = relay_open("floor", bench_dir, 1 << 20, 4, &bench_relay_cb,
				NULL);
	if (!bench_chan) {
		debugfs_remove_recursive(bench_dir);
		return -ENOMEM;
	}
	debugfs_create_file("run", 0600, bench_dir, NULL, &bench_fops);
	return 0;
}

static void __exit bench_exit(void)
{
	relay_close(bench_chan);
	debugfs_remove_recursive(bench_dir);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_DESCRIPTION("grtrace: cost of an event against an ftrace event");
MODULE_LICENSE("GPL");
