// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_xlate_test: fires the tracepoints the vendor adapters attach to
 * with constructed driver objects, so the adapters' real probes translate
 * them into grtrace events; tools/testing/selftests/grtrace/vendor_test.sh
 * records the stream and checks every event, key, ring and aux word.
 *
 * The i915, amdgpu and gpu_scheduler tracepoints are defined by this
 * module, from the drivers' own trace headers: load it only while i915,
 * amdgpu and gpu-sched are not loaded, or the adapters stay attached to
 * the drivers' tracepoints and see nothing of the test.  The dma_fence
 * tracepoints are the kernel's own.
 *
 * debugfs grtrace_xlate/: ``scenarios`` lists what this build can run;
 * writing one of them to ``run`` runs it.  ``i915_state``: the i915
 * tracepoints' keys, branches and probes, for diagnosis.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "grtrace_xlate.h"

#ifdef GRTRACE_XLATE_NOUVEAU
static DEFINE_SPINLOCK(xlate_fence_lock);

static const char *xlate_nouveau_name(struct dma_fence *f)
{
	return "nouveau";
}

static const char *xlate_other_name(struct dma_fence *f)
{
	return "xlate_other";
}

/* The timeline is the channel: fence context +7 is the copy channel. */
static const char *xlate_timeline(struct dma_fence *f)
{
	return f->context == XLATE_CTX + 7 ? "copy engine channel" : "xlate[42]";
}

static const struct dma_fence_ops xlate_nouveau_ops = {
	.get_driver_name = xlate_nouveau_name,
	.get_timeline_name = xlate_timeline,
};

static const struct dma_fence_ops xlate_other_ops = {
	.get_driver_name = xlate_other_name,
	.get_timeline_name = xlate_timeline,
};

static int xlate_fence(const struct dma_fence_ops *ops, u64 ctx, u64 seqno,
		       int error)
{
	struct dma_fence *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	/* Fires dma_fence_init, and dma_fence_signal dma_fence_signaled. */
	dma_fence_init(f, ops, &xlate_fence_lock, ctx, seqno);
	if (error)
		dma_fence_set_error(f, error);
	dma_fence_signal(f);
	dma_fence_put(f);
	return 0;
}

/*
 * nouveau: XLATE_CTX+6:3 on channel "xlate[42]", XLATE_CTX+7:4 on "copy
 * engine channel" signalled with -ENODEV; XLATE_CTX+8:5 is another
 * driver's fence.
 */
int xlate_nouveau(void)
{
	return xlate_fence(&xlate_nouveau_ops, XLATE_CTX + 6, 3, 0) ?:
	       xlate_fence(&xlate_nouveau_ops, XLATE_CTX + 7, 4, -ENODEV) ?:
	       xlate_fence(&xlate_other_ops, XLATE_CTX + 8, 5, 0);
}

/* Four channel names, as a desktop's few processes reopen channels. */
static const char *xlate_churn_timeline(struct dma_fence *f)
{
	static const char * const names[] = {
		"churn0", "churn1", "churn2", "churn3",
	};

	return names[f->context % ARRAY_SIZE(names)];
}

static const struct dma_fence_ops xlate_churn_ops = {
	.get_driver_name = xlate_nouveau_name,
	.get_timeline_name = xlate_churn_timeline,
};

/*
 * nouveau_churn: XLATE_CHURN channels come and go, each with its own fence
 * context XLATE_CTX + 0x1000 + n and one fence (seqno 1): more channels
 * than ring ids or ring map slots.
 */
int xlate_nouveau_churn(void)
{
	int i, ret = 0;

	/*
	 * A channel every few hundred microseconds, not three hundred in one
	 * go: each replaced map entry waits out an RCU grace period before
	 * its pool has it back, and on PREEMPT_RT an empty pool is a miss.
	 */
	for (i = 0; i < XLATE_CHURN && !ret; i++) {
		ret = xlate_fence(&xlate_churn_ops, XLATE_CTX + 0x1000 + i, 1,
				  0);
		usleep_range(200, 400);
	}
	return ret;
}

/* One name per channel: XLATE_WIDE different rings at once. */
static char xlate_wide_names[XLATE_WIDE][8];

static const char *xlate_wide_timeline(struct dma_fence *f)
{
	return xlate_wide_names[(f->context - XLATE_CTX - 0x2000) % XLATE_WIDE];
}

static const struct dma_fence_ops xlate_wide_ops = {
	.get_driver_name = xlate_nouveau_name,
	.get_timeline_name = xlate_wide_timeline,
};

/*
 * nouveau_wide: XLATE_WIDE channels named wide000, wide001, ..., each with
 * fence context XLATE_CTX + 0x2000 + n and one fence (seqno 1): more rings
 * than the registry's first table holds, all alive at once.
 */
int xlate_nouveau_wide(void)
{
	int i, ret = 0;

	for (i = 0; i < XLATE_WIDE; i++)
		snprintf(xlate_wide_names[i], sizeof(xlate_wide_names[i]),
			 "wide%03d", i);
	/*
	 * Processes open channels one after another, not a hundred within
	 * one tick: give the registry's worker a chance to run.
	 */
	for (i = 0; i < XLATE_WIDE && !ret; i++) {
		ret = xlate_fence(&xlate_wide_ops, XLATE_CTX + 0x2000 + i, 1, 0);
		usleep_range(200, 400);
	}
	return ret;
}
#endif

static const struct {
	const char *name;
	int (*run)(void);
} xlate_scenarios[] = {
#ifdef GRTRACE_XLATE_I915
	{ "i915", xlate_i915 },
#endif
#ifdef GRTRACE_XLATE_AMDGPU
	{ "amdgpu", xlate_amdgpu },
	{ "dedup", xlate_dedup },
#endif
#ifdef GRTRACE_XLATE_NOUVEAU
	{ "nouveau", xlate_nouveau },
	{ "nouveau_churn", xlate_nouveau_churn },
	{ "nouveau_wide", xlate_nouveau_wide },
#endif
};

static struct dentry *xlate_dir;

static ssize_t xlate_run_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char buf[16];
	int i;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	strim(buf);
	for (i = 0; i < ARRAY_SIZE(xlate_scenarios); i++) {
		if (strcmp(buf, xlate_scenarios[i].name))
			continue;
		return xlate_scenarios[i].run() ?: len;
	}
	return -EINVAL;
}

static const struct file_operations xlate_run_fops = {
	.owner = THIS_MODULE,
	.write = xlate_run_write,
};

static int xlate_scenarios_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(xlate_scenarios); i++)
		seq_printf(m, "%s\n", xlate_scenarios[i].name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xlate_scenarios);

#ifdef GRTRACE_XLATE_I915
static int xlate_i915_state_show(struct seq_file *m, void *v)
{
	xlate_i915_state(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xlate_i915_state);
#endif

static int __init grtrace_xlate_init(void)
{
	xlate_dir = debugfs_create_dir("grtrace_xlate", NULL);
#ifdef GRTRACE_XLATE_I915
	debugfs_create_file("i915_state", 0400, xlate_dir, NULL,
			    &xlate_i915_state_fops);
#endif
	debugfs_create_file("run", 0200, xlate_dir, NULL, &xlate_run_fops);
	debugfs_create_file("scenarios", 0400, xlate_dir, NULL,
			    &xlate_scenarios_fops);
	return 0;
}

static void __exit grtrace_xlate_exit(void)
{
	debugfs_remove_recursive(xlate_dir);
#ifdef GRTRACE_XLATE_AMDGPU
	xlate_amdgpu_exit();
#endif
}

module_init(grtrace_xlate_init);
module_exit(grtrace_xlate_exit);

MODULE_DESCRIPTION("grtrace vendor adapter translation test (fake driver objects)");
MODULE_LICENSE("GPL");
