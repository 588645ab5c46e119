// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_race_test: widens the windows of two races, for the selftests.
 *
 * 1. An adapter's unload against its fence callbacks.
 * The drm_sched bridge ends a dependency wait from the fence's callback:
 * the callback takes its wait off the bridge's list, then writes the
 * SYNC_WAIT_EXIT event and frees the wait.  Its unload detaches the probes
 * (grtrace_adapter_unregister(), which waits for a grace period), then
 * takes every wait still listed off its fence.  A callback that begins
 * between the two is not listed any more when the unload looks, and the
 * unload must still wait for it before it frees the bridge's memory and
 * text.  Both parts of that window last as long as asked here, through
 * kprobes:
 *
 *   gap_us    when grtrace_adapter_unregister() returns, spin until a
 *             callback begins or this long has passed, so that a callback
 *             begins between it and the bridge's cancel
 *   delay_us  spin this long in each grtrace_sync_wait_exit() called with
 *             interrupts off (from a fence callback, under its lock)
 *
 * debugfs grtrace_race_test/: gap_us and delay_us (rw), and stats (r):
 * "delayed=N in_gap=N going_during=N gaps=N missed=N": the calls delayed,
 * those of them that began within a gap, how many times the bridge's
 * module was going (its exit had returned) while a delayed call still ran
 * (a use after free in waiting, which a correct bridge never lets happen),
 * the unregisters seen, and the calls not seen because they came nested
 * in another probe's handler (a callback run from an interrupt on the CPU
 * a gap holds: kprobes do not nest).
 *
 * 2. A session stopped while an event of a preemptible caller is on its
 * way.  The event path decides an event's drops with preemption off, and
 * writes it with interrupts off; between the two, on a preemptible kernel,
 * the caller can be preempted.  With hold_ms (rw) set, the next such
 * caller (a user task, through grtrace_decide_state(), which runs while a rate
 * limit or sampling is set) is preempted right there: a real-time thread
 * of its CPU is woken and spins hold_ms, so that the caller resumes only
 * then.  hold_ms goes back to 0: one hold per write.  stats adds
 * "held=N holding=N escaped=N": the holds done, 1 while one spins, and
 * the holds the caller was not held through: it was switched in while
 * the holder spun.  A kernel's guard against real-time starvation does
 * that (the fair server since 6.12, or RT throttling, after about 950 ms
 * of every second); the selftest turns it off on the held CPU, and a
 * hold the caller escaped tests nothing.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/irqflags.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <uapi/linux/sched/types.h>

/* A CPU's next hold: how long, and the caller it holds (a reference). */
struct race_hold {
	u32 due_ms;
	struct task_struct *caller;
};

static u32 delay_us, gap_us, hold_ms;
static atomic_t in_window, in_gap, holding;
static atomic64_t delayed, began_in_gap, going_during, gaps, held, escaped;
static DEFINE_PER_CPU(struct task_struct *, holder);
static DEFINE_PER_CPU(struct race_hold, hold_due);
static struct dentry *race_dir;

/* By the clock: udelay() is calibrated too loosely under emulation. */
static void spin_us(u32 us)
{
	u64 end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

static int exit_pre(struct kprobe *p, struct pt_regs *regs)
{
	u32 us = READ_ONCE(delay_us);

	/*
	 * Only in a fence callback, which runs under the fence's lock with
	 * interrupts off: a wait ended at once in the bridge's probe is
	 * covered by the tracepoint's own synchronisation.  PREEMPT_RT runs
	 * fence callbacks with interrupts on (the fence lock sleeps): there
	 * every call is held.
	 */
	if (!us || (!IS_ENABLED(CONFIG_PREEMPT_RT) && !irqs_disabled()))
		return 0;
	atomic_inc(&in_window);
	atomic64_inc(&delayed);
	if (atomic_read(&in_gap))
		atomic64_inc(&began_in_gap);
	spin_us(us);
	atomic_dec(&in_window);
	return 0;
}

static int unregister_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	u32 us = READ_ONCE(gap_us);
	s64 before = atomic64_read(&began_in_gap);
	u64 end;

	atomic64_inc(&gaps);
	if (!us)
		return 0;
	atomic_inc(&in_gap);
	/* By the clock, as spin_us(), and over once a callback began. */
	end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;
	while (ktime_get_ns() < end && atomic64_read(&began_in_gap) == before)
		cpu_relax();
	atomic_dec(&in_gap);
	return 0;
}

/*
 * A CPU's holder: real-time, so that waking it preempts the task that
 * woke it as soon as that task enables preemption again.  Round-robin at
 * the lowest priority: PREEMPT_RT's RCU and timer threads run at that
 * priority too, and stop's grace period needs them; they run when its
 * time slice ends (sched_rr_timeslice_ms, which the selftest shortens).
 */
static int holder_fn(void *data)
{
	struct sched_attr rr = {
		.size = sizeof(rr),
		.sched_policy = SCHED_RR,
		.sched_priority = 1,
	};
	struct race_hold *due = data;

	sched_setattr_nocheck(current, &rr);
	for (;;) {
		struct task_struct *caller;
		unsigned long switches = 0;
		u32 ms;

		/* Before the test: kthread_stop()'s wake-up is not lost. */
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		ms = READ_ONCE(due->due_ms);
		if (!ms) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		WRITE_ONCE(due->due_ms, 0);
		caller = xchg(&due->caller, NULL);
		/*
		 * The caller was switched out for this thread: each time it
		 * runs again until the end, it is switched out again (or
		 * exits, which counts too).
		 */
		if (caller)
			switches = READ_ONCE(caller->nvcsw) +
				   READ_ONCE(caller->nivcsw);
		atomic_inc(&holding);
		spin_us(ms * USEC_PER_MSEC);
		if (caller) {
			if (READ_ONCE(caller->nvcsw) +
			    READ_ONCE(caller->nivcsw) != switches)
				atomic64_inc(&escaped);
			put_task_struct(caller);
		}
		atomic64_inc(&held);
		atomic_dec(&holding);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static int decide_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct task_struct *t;
	u32 ms;

	/*
	 * A user task's event only (emit): not an interrupt's, which cannot
	 * be preempted, nor a kernel thread's (a driver's, or on PREEMPT_RT
	 * a threaded interrupt's or timer's).
	 */
	if (in_interrupt() || (current->flags & PF_KTHREAD) ||
	    !READ_ONCE(hold_ms))
		return 0;
	t = __this_cpu_read(holder);
	ms = xchg(&hold_ms, 0);
	if (!t || !ms)
		return 0;
	/*
	 * The holder takes the reference.  None is left from an earlier
	 * hold: the holder runs before this CPU runs another task.
	 */
	if (!WARN_ON_ONCE(__this_cpu_read(hold_due.caller)))
		__this_cpu_write(hold_due.caller, get_task_struct(current));
	__this_cpu_write(hold_due.due_ms, ms);
	wake_up_process(t);
	return 0;
}

static struct kprobe decide_kp = {
	.symbol_name = "grtrace_decide_state",
	.pre_handler = decide_pre,
};

static struct kprobe exit_kp = {
	.symbol_name = "grtrace_sync_wait_exit",
	.pre_handler = exit_pre,
};

static struct kretprobe unregister_krp = {
	.kp.symbol_name = "grtrace_adapter_unregister",
	.handler = unregister_ret,
	.maxactive = 4,
};

/* After the bridge's exit returned: nothing of it may still run. */
static int race_module_notify(struct notifier_block *nb, unsigned long state,
			      void *data)
{
	struct module *mod = data;

	if (state == MODULE_STATE_GOING &&
	    !strcmp(mod->name, "grtrace_drm_bridge") &&
	    atomic_read(&in_window))
		atomic64_inc(&going_during);
	return NOTIFY_DONE;
}

static struct notifier_block race_module_nb = {
	.notifier_call = race_module_notify,
};

static int stats_show(struct seq_file *m, void *v)
{
	seq_printf(m,
		   "delayed=%lld in_gap=%lld going_during=%lld gaps=%lld missed=%lu held=%lld holding=%d escaped=%lld\n",
		   atomic64_read(&delayed), atomic64_read(&began_in_gap),
		   atomic64_read(&going_during), atomic64_read(&gaps),
		   exit_kp.nmissed, atomic64_read(&held),
		   atomic_read(&holding), atomic64_read(&escaped));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static void stop_holders(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct task_struct *t = per_cpu(holder, cpu);
		struct task_struct *caller;

		if (t)
			kthread_stop(t);
		per_cpu(holder, cpu) = NULL;
		/* A hold asked for that its holder did not begin. */
		caller = xchg(per_cpu_ptr(&hold_due.caller, cpu), NULL);
		if (caller)
			put_task_struct(caller);
	}
}

/* One holder per CPU online at load: the selftests keep them online. */
static int start_holders(void)
{
	int cpu;

	for_each_online_cpu(cpu) {
		struct task_struct *t;

		t = kthread_create_on_cpu(holder_fn, per_cpu_ptr(&hold_due, cpu),
					  cpu, "grtrace_hold/%u");
		if (IS_ERR(t)) {
			stop_holders();
			return PTR_ERR(t);
		}
		per_cpu(holder, cpu) = t;
		wake_up_process(t);
	}
	return 0;
}

static int __init race_test_init(void)
{
	int ret;

	ret = start_holders();
	if (ret)
		return ret;
	ret = register_kprobe(&exit_kp);
	if (ret) {
		pr_err("cannot probe %s: %d\n", exit_kp.symbol_name, ret);
		goto err_holders;
	}
	ret = register_kretprobe(&unregister_krp);
	if (ret) {
		pr_err("cannot probe %s: %d\n", unregister_krp.kp.symbol_name,
		       ret);
		goto err_exit_kp;
	}
	ret = register_kprobe(&decide_kp);
	if (ret) {
		pr_err("cannot probe %s: %d\n", decide_kp.symbol_name, ret);
		goto err_unregister_krp;
	}
	ret = register_module_notifier(&race_module_nb);
	if (ret)
		goto err_decide_kp;
	race_dir = debugfs_create_dir("grtrace_race_test", NULL);
	debugfs_create_u32("delay_us", 0600, race_dir, &delay_us);
	debugfs_create_u32("gap_us", 0600, race_dir, &gap_us);
	debugfs_create_u32("hold_ms", 0600, race_dir, &hold_ms);
	debugfs_create_file("stats", 0400, race_dir, NULL, &stats_fops);
	return 0;

err_decide_kp:
	unregister_kprobe(&decide_kp);
err_unregister_krp:
	unregister_kretprobe(&unregister_krp);
err_exit_kp:
	unregister_kprobe(&exit_kp);
err_holders:
	stop_holders();
	return ret;
}

static void __exit race_test_exit(void)
{
	debugfs_remove(race_dir);
	unregister_module_notifier(&race_module_nb);
	unregister_kprobe(&decide_kp);
	unregister_kretprobe(&unregister_krp);
	unregister_kprobe(&exit_kp);
	stop_holders();
}

module_init(race_test_init);
module_exit(race_test_exit);
MODULE_DESCRIPTION("grtrace selftest: widen the windows of two races");
MODULE_LICENSE("GPL");
