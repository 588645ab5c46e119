// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_irq_test: events from hard interrupts that come in the middle of
 * other events on the same CPU, for the selftests.
 *
 * Writing "N PERIOD_US K [SPIN_US [RINGS [CHURN [ERROR_AT]]]]" to
 * /sys/kernel/debug/grtrace_irq_test/run makes N calls of
 * grtrace_submit(0, 1, i) (i = 1..N) on the writing CPU, with interrupts
 * on, while a hard-interrupt hrtimer pinned to that CPU fires every
 * PERIOD_US microseconds and calls grtrace_end(0, 2, j) K times per firing
 * (j counts on across firings from 1), then spins SPIN_US microseconds
 * (default 0).  Each of the first RINGS firings (default 0, at most 64)
 * also registers a new ring, "irqtest-F" (F = 1..RINGS, engine copy), as
 * adapters do from their interrupt-time probes, and calls
 * grtrace_end(ring, 3, F) on it; the rings are unregistered after the
 * run.  With CHURN 1 each firing registers a ring "irqtest-churn", calls
 * grtrace_end(ring, 5, F) on it and unregisters it (its RING record is
 * held back when the firing interrupts an event); with CHURN 2 each
 * firing writes a job summary (grtrace_write_job_summary(), ctx 6, seqno
 * F) instead, a record larger than a held-back control record's slot.
 * The event path spends most of such a loop
 * inside an event, so most firings interrupt one; an interrupt that comes
 * during the spin is taken right after the firing, inside that event too.
 * Reading the file gives "calls=N fires=F irq_events=M cpu=C" of the last
 * run; reading "progress" gives the calls of grtrace_submit() made so far
 * in the run going on (or the last one), without waiting for it.
 *
 * Writing CAUSE to "trigger" calls grtrace_recorder_trigger(CAUSE, 0, 0,
 * 0, 0) from the writing task, as a driver would, with any CAUSE.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/grtrace.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/uaccess.h>

#include "../grtrace_compat.h"

#define IRQ_TEST_MAX_N		10000000
#define IRQ_TEST_MAX_K		256
#define IRQ_TEST_MAX_SPIN_US	1000
#define IRQ_TEST_CHUNK		1000	/* calls per preemption-off stretch */
#define IRQ_TEST_MAX_RINGS	64

static DEFINE_MUTEX(irq_test_lock);
static struct hrtimer irq_test_timer;
static ktime_t irq_test_period;
static u32 irq_test_k, irq_test_spin_us;
static u64 irq_test_fires, irq_test_events, irq_test_calls;
static u32 irq_test_progress;
static int irq_test_cpu = -1;
static struct dentry *irq_test_dir;
static u32 irq_test_rings, irq_test_nr_rings;
static int irq_test_ring_ids[IRQ_TEST_MAX_RINGS];
static u32 irq_test_churn, irq_test_error_at;

/* A new ring, registered in hard interrupt context, and an event on it. */
static void irq_test_new_ring(void)
{
	struct grtrace_ring_info info = {
		.driver = "irq_test", .device = "irq_test",
		.engine = GRTRACE_ENGINE_COPY,
	};
	char name[24];
	u32 n = irq_test_nr_rings + 1;
	int id;

	snprintf(name, sizeof(name), "irqtest-%u", n);
	info.name = name;
	id = grtrace_ring_register(&info);
	irq_test_ring_ids[irq_test_nr_rings++] = id;
	if (id >= 0)
		grtrace_end(id, 3, n);
}

/* A job summary: refused, not held back, when it interrupts an event. */
static void irq_test_summary(void)
{
	struct grtrace_job_summary js = {
		.ctx = 6, .seqno = irq_test_fires, .engine = GRTRACE_ENGINE_COPY,
	};

	grtrace_write_job_summary(&js);
}

/* A ring that exists for one firing: its RING record is held back. */
static void irq_test_churn_ring(void)
{
	struct grtrace_ring_info info = {
		.driver = "irq_test", .device = "irq_test",
		.name = "irqtest-churn", .engine = GRTRACE_ENGINE_COPY,
	};
	int id = grtrace_ring_register(&info);

	if (id < 0)
		return;
	grtrace_end(id, 5, irq_test_fires);
	grtrace_ring_unregister(id);
}

static enum hrtimer_restart irq_test_fire(struct hrtimer *t)
{
	u64 end;
	u32 i;

	irq_test_fires++;
	if (irq_test_nr_rings < irq_test_rings)
		irq_test_new_ring();
	if (irq_test_churn == 1)
		irq_test_churn_ring();
	else if (irq_test_churn == 2)
		irq_test_summary();
	for (i = 0; i < irq_test_k; i++)
		grtrace_end(0, 2, ++irq_test_events);
	if (irq_test_fires == irq_test_error_at)
		grtrace_error(0, 4, irq_test_fires, -ETIMEDOUT, 0);
	/* By the clock: udelay() is calibrated too loosely under emulation. */
	end = ktime_get_ns() + (u64)irq_test_spin_us * NSEC_PER_USEC;
	while (ktime_get_ns() < end)
		cpu_relax();
	hrtimer_forward_now(t, irq_test_period);
	return HRTIMER_RESTART;
}

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	u32 n, period_us, k, spin_us = 0, rings = 0, churn = 0, error_at = 0, i;
	char buf[80];
	int cpu, got;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	got = sscanf(buf, "%u %u %u %u %u %u %u", &n, &period_us, &k, &spin_us,
		     &rings, &churn, &error_at);
	if (got < 3 || !n || n > IRQ_TEST_MAX_N || !period_us ||
	    k > IRQ_TEST_MAX_K || spin_us >= period_us ||
	    spin_us > IRQ_TEST_MAX_SPIN_US || rings > IRQ_TEST_MAX_RINGS ||
	    churn > 2) {
		pr_debug("run: want \"N PERIOD_US K [SPIN_US [RINGS [CHURN [ERROR_AT]]]]\", N 1..%u, K 0..%u, SPIN_US below PERIOD_US and %u, RINGS 0..%u, CHURN 0 to 2\n",
			 IRQ_TEST_MAX_N, IRQ_TEST_MAX_K, IRQ_TEST_MAX_SPIN_US,
			 IRQ_TEST_MAX_RINGS);
		return -EINVAL;
	}
	mutex_lock(&irq_test_lock);
	irq_test_fires = 0;
	irq_test_events = 0;
	irq_test_calls = 0;
	irq_test_k = k;
	irq_test_spin_us = spin_us;
	irq_test_rings = rings;
	irq_test_nr_rings = 0;
	irq_test_churn = churn;
	irq_test_error_at = error_at;
	WRITE_ONCE(irq_test_progress, 0);
	irq_test_period = ns_to_ktime((u64)period_us * NSEC_PER_USEC);
	/* The timer fires on this CPU: stay on it until it is cancelled. */
	preempt_disable();
	cpu = smp_processor_id();
	hrtimer_start(&irq_test_timer, irq_test_period,
		      HRTIMER_MODE_REL_PINNED_HARD);
	for (i = 1; i <= n; i++) {
		grtrace_submit(0, 1, i);
		if (!(i % IRQ_TEST_CHUNK)) {
			WRITE_ONCE(irq_test_progress, i);
			preempt_enable();
			cond_resched();
			preempt_disable();
			/* Moved: the timer stays where it was. */
			if (smp_processor_id() != cpu)
				break;
		}
	}
	irq_test_calls = min(i, n);
	WRITE_ONCE(irq_test_progress, irq_test_calls);
	preempt_enable();
	hrtimer_cancel(&irq_test_timer);
	for (i = 0; i < irq_test_nr_rings; i++)
		if (irq_test_ring_ids[i] >= 0)
			grtrace_ring_unregister(irq_test_ring_ids[i]);
	irq_test_cpu = cpu;
	mutex_unlock(&irq_test_lock);
	return count;
}

static ssize_t run_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	char buf[160];
	int len;

	mutex_lock(&irq_test_lock);
	len = scnprintf(buf, sizeof(buf),
			"calls=%llu fires=%llu irq_events=%llu cpu=%d rings=%u\n",
			irq_test_calls, irq_test_fires, irq_test_events,
			irq_test_cpu, irq_test_nr_rings);
	mutex_unlock(&irq_test_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t progress_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[16];
	int len;

	/*
	 * The first read holds all of it: a second, at *ppos, would take the
	 * tail of a newer count ("0\n", then "000\n" of "1000\n").
	 */
	if (*ppos)
		return 0;
	len = scnprintf(buf, sizeof(buf), "%u\n", READ_ONCE(irq_test_progress));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations progress_fops = {
	.owner	= THIS_MODULE,
	.read	= progress_read,
	.llseek	= default_llseek,
};

static ssize_t trigger_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	u32 cause;
	int ret;

	ret = kstrtou32_from_user(ubuf, count, 0, &cause);
	if (ret)
		return ret;
	grtrace_recorder_trigger(cause, 0, 0, 0, 0);
	return count;
}

static const struct file_operations trigger_fops = {
	.owner	= THIS_MODULE,
	.write	= trigger_write,
	.llseek	= default_llseek,
};

static const struct file_operations run_fops = {
	.owner	= THIS_MODULE,
	.read	= run_read,
	.write	= run_write,
	.llseek	= default_llseek,
};

static int __init grtrace_irq_test_init(void)
{
	grtrace_hrtimer_setup(&irq_test_timer, irq_test_fire, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
	irq_test_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0600, irq_test_dir, NULL, &run_fops);
	debugfs_create_file("progress", 0400, irq_test_dir, NULL,
			    &progress_fops);
	debugfs_create_file("trigger", 0200, irq_test_dir, NULL,
			    &trigger_fops);
	return 0;
}

static void __exit grtrace_irq_test_exit(void)
{
	debugfs_remove(irq_test_dir);
	hrtimer_cancel(&irq_test_timer);
}

module_init(grtrace_irq_test_init);
module_exit(grtrace_irq_test_exit);

MODULE_DESCRIPTION("grtrace selftest: events from interrupts within events");
MODULE_LICENSE("GPL");
