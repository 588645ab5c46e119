// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: the hook chain, through which the optional modules see each
 * event before it is written (and may drop it) and after.
 *
 * The chain is a list ordered by priority, read under RCU from the event
 * path and changed under a mutex; a static key keeps the event path from
 * looking at it at all while no hook is registered.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/grtrace.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "grtrace_internal.h"

/* Per CPU and hook: what reached it, and what it dropped. */
struct grtrace_hook_counts {
	u64 seen;
	u64 dropped;
};

DEFINE_STATIC_KEY_FALSE(grtrace_hooks_on);
/* Live hooks are registered: see struct grtrace_hook. */
DEFINE_STATIC_KEY_FALSE(grtrace_hooks_live_on);
/* Hooks with a drop, with an observe callback: each walk only if needed. */
DEFINE_STATIC_KEY_FALSE(grtrace_hooks_drop_on);
DEFINE_STATIC_KEY_FALSE(grtrace_hooks_observe_on);
static LIST_HEAD(grtrace_hooks);
static DEFINE_MUTEX(grtrace_hooks_lock);

static bool grtrace_hook_listed(const struct grtrace_hook *hook)
{
	struct grtrace_hook *h;

	lockdep_assert_held(&grtrace_hooks_lock);
	list_for_each_entry(h, &grtrace_hooks, node)
		if (h == hook || !strcmp(h->name, hook->name))
			return true;
	return false;
}

/**
 * grtrace_hook_register() - plug a hook into the event path
 * @hook: the hook; its memory stays the caller's, and must live until
 *	grtrace_hook_unregister() returns
 *
 * From the next event on, @hook->drop and @hook->observe are called in
 * the order of @hook->prio.  Context: process; sleeps.
 * Return: 0; -EINVAL if @hook has no name or no callback, or is live
 * without @hook->observe; -EBUSY if it,
 * or a hook of the same name, is registered already; -ENOMEM.
 */
int grtrace_hook_register(struct grtrace_hook *hook)
{
	struct grtrace_hook *h;
	int ret = 0;

	if (!hook || !hook->name || !hook->name[0] ||
	    (!hook->drop && !hook->observe) || (hook->live && !hook->observe)) {
		pr_debug("hook without a name or a callback refused\n");
		return -EINVAL;
	}
	mutex_lock(&grtrace_hooks_lock);
	if (grtrace_hook_listed(hook)) {
		pr_debug("hook %s: registered already\n", hook->name);
		ret = -EBUSY;
		goto unlock;
	}
	hook->counts = alloc_percpu(struct grtrace_hook_counts);
	if (!hook->counts) {
		ret = -ENOMEM;
		goto unlock;
	}
	/* Before the first hook of a higher priority. */
	list_for_each_entry(h, &grtrace_hooks, node)
		if (h->prio > hook->prio)
			break;
	list_add_tail_rcu(&hook->node, &h->node);
	if (hook->drop)
		static_branch_inc(&grtrace_hooks_drop_on);
	if (hook->observe)
		static_branch_inc(&grtrace_hooks_observe_on);
	static_branch_inc(&grtrace_hooks_on);
	if (hook->live) {
		static_branch_inc(&grtrace_hooks_live_on);
		/* The adapters produce events from now on. */
		static_branch_inc(&grtrace_tracing_key);
	}
unlock:
	mutex_unlock(&grtrace_hooks_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(grtrace_hook_register);

/**
 * grtrace_hook_unregister() - take a hook out of the event path
 * @hook: a hook grtrace_hook_register() took
 *
 * Waits until no call of @hook's callbacks runs any more: once this
 * returns, the caller may free @hook and what @hook->data points to.
 * Context: process; sleeps.
 */
void grtrace_hook_unregister(struct grtrace_hook *hook)
{
	mutex_lock(&grtrace_hooks_lock);
	if (WARN_ON_ONCE(!hook->counts || !grtrace_hook_listed(hook))) {
		mutex_unlock(&grtrace_hooks_lock);
		return;
	}
	list_del_rcu(&hook->node);
	if (hook->live) {
		static_branch_dec(&grtrace_tracing_key);
		static_branch_dec(&grtrace_hooks_live_on);
	}
	static_branch_dec(&grtrace_hooks_on);
	if (hook->observe)
		static_branch_dec(&grtrace_hooks_observe_on);
	if (hook->drop)
		static_branch_dec(&grtrace_hooks_drop_on);
	mutex_unlock(&grtrace_hooks_lock);
	/* The event path reads the list with interrupts off, under RCU. */
	synchronize_rcu();
	free_percpu(hook->counts);
	hook->counts = NULL;
}
EXPORT_SYMBOL_GPL(grtrace_hook_unregister);

/*
 * The walks below run with interrupts off, which is an RCU read-side
 * critical section that synchronize_rcu() waits for: no rcu_read_lock(),
 * a pair of out-of-line calls on a PREEMPT_RCU kernel such as Debian's.
 */

/*
 * The event path, interrupts off: whether a hook drops @ev.  Every hook up
 * to the one that drops it counts it as seen (hooks without a drop
 * callback count in the observe walk).
 */
bool grtrace_hooks_drop(const struct grtrace_hook_event *ev)
{
	struct grtrace_hook *h;
	bool drop = false;

	lockdep_assert_irqs_disabled();
	list_for_each_entry_rcu(h, &grtrace_hooks, node) {
		struct grtrace_hook_counts *c;

		if (!h->drop)
			continue;
		c = this_cpu_ptr(h->counts);
		c->seen++;
		if (h->drop(ev, h->data)) {
			c->dropped++;
			drop = true;
			break;
		}
	}
	return drop;
}

/* The event path, interrupts off: @ev was written, or dropped. */
void grtrace_hooks_observe(const struct grtrace_hook_event *ev, bool written)
{
	struct grtrace_hook *h;

	lockdep_assert_irqs_disabled();
	list_for_each_entry_rcu(h, &grtrace_hooks, node) {
		if (!h->observe)
			continue;
		if (!h->drop)
			this_cpu_ptr(h->counts)->seen++;
		h->observe(ev, written, h->data);
	}
}

/* Interrupts off: ring @ring_id's id was given back (see struct grtrace_hook). */
void grtrace_hooks_ring_released(u32 ring_id)
{
	struct grtrace_hook *h;

	lockdep_assert_irqs_disabled();
	list_for_each_entry_rcu(h, &grtrace_hooks, node)
		if (h->ring_released)
			h->ring_released(ring_id, h->data);
}

/* Out of a session, interrupts off: @ev for the live hooks. */
void grtrace_hooks_observe_live(const struct grtrace_hook_event *ev)
{
	struct grtrace_hook *h;

	lockdep_assert_irqs_disabled();
	list_for_each_entry_rcu(h, &grtrace_hooks, node)
		if (h->live && h->observe)
			h->observe(ev, false, h->data);
}

static int hooks_show(struct seq_file *m, void *v)
{
	struct grtrace_hook *h;
	int cpu;

	seq_printf(m, "%-24s %6s %14s %14s\n", "name", "prio", "seen", "dropped");
	mutex_lock(&grtrace_hooks_lock);
	list_for_each_entry(h, &grtrace_hooks, node) {
		u64 seen = 0, dropped = 0;

		for_each_possible_cpu(cpu) {
			struct grtrace_hook_counts *c = per_cpu_ptr(h->counts, cpu);

			seen += READ_ONCE(c->seen);
			dropped += READ_ONCE(c->dropped);
		}
		seq_printf(m, "%-24s %6d %14llu %14llu\n", h->name, h->prio,
			   seen, dropped);
	}
	mutex_unlock(&grtrace_hooks_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hooks);

void grtrace_hooks_debugfs(struct dentry *dir)
{
	debugfs_create_file("hooks", 0400, dir, NULL, &hooks_fops);
}
