// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: attach adapters to tracepoints, by symbol or by name.
 */

/**
 * DOC: Attaching adapters
 *
 * An adapter hands grtrace a table of {tracepoint, probe}.  Where the
 * driver exports a tracepoint (EXPORT_TRACEPOINT_SYMBOL_GPL(), as the DRM
 * scheduler's stable events are in a tree with grtrace), the entry names
 * it by its symbol (&struct grtrace_tp.typed): the probe is attached at
 * registration, as register_trace_<name>() does, and the symbol keeps the
 * driver's module loaded while the adapter is.
 *
 * Out of tree, drivers do not export their tracepoints, so an adapter
 * cannot name them in C: grtrace finds them by name instead, the
 * built-in ones with
 * for_each_kernel_tracepoint(), the ones of modules through a tracepoint
 * module notifier, which replays the modules already loaded when it is
 * registered and then reports each module coming and going.  A probe is
 * attached when its tracepoint appears and detached when the module
 * defining it unloads, so adapters and drivers load and unload in any
 * order.
 *
 * Each entry of a table is attached at most once, to the first tracepoint
 * of its name, or of its alternative name where it has one (an event a
 * kernel may spell either way: the DRM scheduler's of 6.1 ... 6.16 and of
 * 6.17+, in a build without the scheduler's trace header).  The
 * ``adapters`` file names the tracepoint attached, and both names while
 * the entry waits.  grtrace_adapter_unregister() detaches in the reverse order
 * of the table and waits with tracepoint_synchronize_unregister() until no
 * probe runs any more, so the adapter may free its data and unload.
 *
 * The ``adapters`` file in debugfs lists every adapter, each tracepoint as
 * ``attached`` (with the module that defines it, or ``kernel``) or
 * ``waiting``, and the hits and misses its probe counted.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>

#include "grtrace_internal.h"

/* Protects the adapter list and the tp/mod fields of every table entry. */
static DEFINE_MUTEX(grtrace_attach_lock);
static LIST_HEAD(grtrace_adapters);

/*
 * The probe of @gtp for tracepoint @tp: @gtp->probe where @tp has the
 * entry's name, @gtp->alt_probe where it has its alternative name, else
 * NULL.
 */
static void *grtrace_tp_probe(const struct grtrace_tp *gtp,
			      const struct tracepoint *tp)
{
	if (!strcmp(tp->name, gtp->name))
		return gtp->probe;
	if (gtp->alt_name && !strcmp(tp->name, gtp->alt_name))
		return gtp->alt_probe;
	return NULL;
}

static void grtrace_tp_attach(struct grtrace_adapter *a, struct grtrace_tp *gtp,
			      struct tracepoint *tp, struct module *mod)
{
	void *probe = grtrace_tp_probe(gtp, tp);
	int ret;

	lockdep_assert_held(&grtrace_attach_lock);
	if (gtp->tp || !probe)
		return;
	ret = tracepoint_probe_register(tp, probe, gtp);
	if (ret) {
		pr_warn("%s: cannot attach to %s: %d\n", a->name, tp->name,
			ret);
		return;
	}
	gtp->tp = tp;
	gtp->mod = mod;
}

static void grtrace_tp_detach(struct grtrace_tp *gtp)
{
	lockdep_assert_held(&grtrace_attach_lock);
	if (!gtp->tp)
		return;
	WARN_ON_ONCE(tracepoint_probe_unregister(gtp->tp,
						 grtrace_tp_probe(gtp, gtp->tp),
						 gtp));
	gtp->tp = NULL;
	gtp->mod = NULL;
}

/* Detach, in reverse table order, what @mod defines (all when NULL). */
static void grtrace_adapter_detach(struct grtrace_adapter *a,
				   struct module *mod)
{
	unsigned int i;

	for (i = a->nr_tps; i-- > 0; )
		if (!mod || a->tps[i].mod == mod)
			grtrace_tp_detach(&a->tps[i]);
}

#ifdef GRTRACE_ATTACH_BY_NAME

/* Attach the entries of @a that wait for a tracepoint named like @tp. */
static void grtrace_adapter_match(struct grtrace_adapter *a,
				  struct tracepoint *tp, struct module *mod)
{
	unsigned int i;

	for (i = 0; i < a->nr_tps; i++)
		grtrace_tp_attach(a, &a->tps[i], tp, mod);
}

static void grtrace_attach_builtin(struct tracepoint *tp, void *priv)
{
	grtrace_adapter_match(priv, tp, NULL);
}

/*
 * Called with tracepoint_module_list_mutex held, for every module with
 * tracepoints: replayed for the loaded ones when the notifier is
 * registered (COMING) and unregistered (GOING).
 */
static int grtrace_attach_module(struct notifier_block *nb,
				 unsigned long state, void *data)
{
	struct grtrace_adapter *a = container_of(nb, struct grtrace_adapter,
						 nb);
	struct module *mod = ((struct tp_module *)data)->mod;
	struct tracepoint *tp;
	unsigned int i;

	mutex_lock(&grtrace_attach_lock);
	if (state == MODULE_STATE_COMING) {
		for (i = 0; i < mod->num_tracepoints; i++) {
			tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);
			grtrace_adapter_match(a, tp, mod);
		}
	} else if (state == MODULE_STATE_GOING) {
		grtrace_adapter_detach(a, mod);
	}
	mutex_unlock(&grtrace_attach_lock);
	return NOTIFY_OK;
}
#endif /* GRTRACE_ATTACH_BY_NAME */

/**
 * grtrace_adapter_register() - attach an adapter's probes
 * @a: the adapter, with @a->name, @a->tps and @a->nr_tps set; its other
 *	fields and the tp, mod and stats fields of its table are grtrace's
 *
 * Attaches each probe whose entry names its tracepoint by symbol (typed)
 * now.  Out of tree, attaches the others to the tracepoint of their name
 * now if it exists (built in or in a loaded module), otherwise as soon as
 * a module defining it loads.  A tracepoint that never appears is not an
 * error: the ``adapters`` file shows it as waiting, or as absent when
 * @a->absent says the kernel has no such driver (a test module may still
 * define it).
 * Context: process context; sleeps.
 * Return: 0, -EINVAL for an empty table (or, in a build that attaches by
 * symbol only, an entry with no symbol), -EBUSY if @a is registered,
 * -ENOMEM, or the error of register_tracepoint_module_notifier().
 */
int grtrace_adapter_register(struct grtrace_adapter *a)
{
	unsigned int i;
	int ret;

	if (!a->nr_tps)
		return -EINVAL;
	mutex_lock(&grtrace_attach_lock);
	/* A zeroed (never registered) or list_del_init()ed list: not registered. */
	ret = a->list.next && !list_empty(&a->list) ? -EBUSY : 0;
	mutex_unlock(&grtrace_attach_lock);
	if (ret)
		return ret;

#ifndef GRTRACE_ATTACH_BY_NAME
	for (i = 0; i < a->nr_tps; i++)
		if (!a->tps[i].typed)
			return -EINVAL;
#endif
	for (i = 0; i < a->nr_tps; i++) {
		a->tps[i].tp = NULL;
		a->tps[i].mod = NULL;
		a->tps[i].stats = alloc_percpu(struct grtrace_tp_stats);
		if (!a->tps[i].stats) {
			ret = -ENOMEM;
			goto err_free;
		}
	}

	mutex_lock(&grtrace_attach_lock);
	list_add_tail(&a->list, &grtrace_adapters);
	for (i = 0; i < a->nr_tps; i++)
		if (a->tps[i].typed)
			grtrace_tp_attach(a, &a->tps[i], a->tps[i].typed, NULL);
#ifdef GRTRACE_ATTACH_BY_NAME
	for_each_kernel_tracepoint(grtrace_attach_builtin, a);
#endif
	mutex_unlock(&grtrace_attach_lock);

#ifdef GRTRACE_ATTACH_BY_NAME
	/* Must not hold grtrace_attach_lock: the notifier takes it. */
	a->nb.notifier_call = grtrace_attach_module;
	ret = register_tracepoint_module_notifier(&a->nb);
	if (ret)
		goto err_detach;
#endif
	if (a->absent)
		pr_info("adapter %s: this kernel has no such driver (%s)\n",
			a->name, a->absent);
	return 0;

#ifdef GRTRACE_ATTACH_BY_NAME
err_detach:
	mutex_lock(&grtrace_attach_lock);
	grtrace_adapter_detach(a, NULL);
	list_del_init(&a->list);
	mutex_unlock(&grtrace_attach_lock);
	tracepoint_synchronize_unregister();
	i = a->nr_tps;
#endif
err_free:
	while (i-- > 0) {
		free_percpu(a->tps[i].stats);
		a->tps[i].stats = NULL;
	}
	return ret;
}
EXPORT_SYMBOL_GPL(grtrace_adapter_register);

/**
 * grtrace_adapter_unregister() - detach an adapter's probes
 * @a: an adapter registered with grtrace_adapter_register()
 *
 * Returns once no probe of @a runs on any CPU, so the caller may free what
 * its probes use and unload.
 * Context: process context; sleeps.
 */
void grtrace_adapter_unregister(struct grtrace_adapter *a)
{
	unsigned int i;

#ifdef GRTRACE_ATTACH_BY_NAME
	/* Replays GOING for every loaded module: detaches their probes. */
	unregister_tracepoint_module_notifier(&a->nb);
#endif

	mutex_lock(&grtrace_attach_lock);
	grtrace_adapter_detach(a, NULL);
	list_del_init(&a->list);
	mutex_unlock(&grtrace_attach_lock);

	tracepoint_synchronize_unregister();
	for (i = 0; i < a->nr_tps; i++) {
		free_percpu(a->tps[i].stats);
		a->tps[i].stats = NULL;
	}
}
EXPORT_SYMBOL_GPL(grtrace_adapter_unregister);

static void grtrace_tp_stats_sum(const struct grtrace_tp *gtp,
				 struct grtrace_tp_stats *sum)
{
	int cpu;

	sum->hits = 0;
	sum->missed = 0;
	for_each_possible_cpu(cpu) {
		const struct grtrace_tp_stats *s = per_cpu_ptr(gtp->stats, cpu);

		sum->hits += READ_ONCE(s->hits);
		sum->missed += READ_ONCE(s->missed);
	}
}

static int grtrace_adapters_show(struct seq_file *m, void *v)
{
	struct grtrace_tp_stats sum;
	struct grtrace_adapter *a;
	char names[64];
	unsigned int i;

	seq_printf(m, "%-15s %-31s %-8s %-15s %12s %12s\n", "adapter",
		   "tracepoint", "state", "module", "hits", "missed");
	mutex_lock(&grtrace_attach_lock);
	list_for_each_entry(a, &grtrace_adapters, list) {
		for (i = 0; i < a->nr_tps; i++) {
			const struct grtrace_tp *gtp = &a->tps[i];

			grtrace_tp_stats_sum(gtp, &sum);
			/* The one attached to, or every name it waits for. */
			if (gtp->tp)
				strscpy(names, gtp->tp->name, sizeof(names));
			else if (gtp->alt_name)
				snprintf(names, sizeof(names), "%s|%s",
					 gtp->name, gtp->alt_name);
			else
				strscpy(names, gtp->name, sizeof(names));
			seq_printf(m, "%-15s %-31s %-8s %-15s %12lu %12lu\n",
				   a->name, names,
				   gtp->tp ? "attached" :
				   a->absent ? "absent" : "waiting",
				   !gtp->tp ? "-" :
				   gtp->typed ? "typed" :
				   gtp->mod ? module_name(gtp->mod) : "kernel",
				   sum.hits, sum.missed);
		}
	}
	mutex_unlock(&grtrace_attach_lock);
#ifdef GRTRACE_NOT_BUILT
	/* A packaged build without the kernel's source says what it left out. */
	seq_puts(m, "not built: " GRTRACE_NOT_BUILT
		 " (no source tree of this kernel at build time)\n");
#endif
	return 0;
}

static int grtrace_adapters_open(struct inode *inode, struct file *file)
{
	return single_open(file, grtrace_adapters_show, inode->i_private);
}

const struct file_operations grtrace_adapters_fops = {
	.owner		= THIS_MODULE,
	.open		= grtrace_adapters_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};
