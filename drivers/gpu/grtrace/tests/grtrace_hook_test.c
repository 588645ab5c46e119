// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_hook_test: two hooks in grtrace's hook chain, for the selftests.
 *
 *   hook_test_first   prio 10, registered second: marks each event it sees
 *   hook_test_second  prio 20: checks the mark (the order of the chain),
 *                     drops every drop_every-th event it sees on a CPU
 *                     (0: none), and observes every event
 *
 * At load it also checks that the chain refuses a hook without a name or
 * a callback (-EINVAL) and one registered twice or under a taken name
 * (-EBUSY); the load fails if it does not.
 *
 * debugfs grtrace_hook_test/stats: "first=N second=N dropped=N
 * written=N unwritten=N order_errors=N": events each hook's drop callback
 * saw, those the second dropped, those observed written and not written,
 * and events the second saw without the first's mark.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/grtrace.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>

static unsigned int drop_every;
module_param(drop_every, uint, 0444);
MODULE_PARM_DESC(drop_every, "the second hook drops every Nth event it sees on a CPU (0: none)");

struct hook_test_counts {
	u64 first;
	u64 second;
	u64 dropped;
	u64 written;
	u64 unwritten;
	u64 order_errors;
	bool marked;
};

static DEFINE_PER_CPU(struct hook_test_counts, hook_test_counts);
static struct dentry *hook_test_dir;

static bool first_drop(const struct grtrace_hook_event *ev, void *data)
{
	struct hook_test_counts *c = this_cpu_ptr(&hook_test_counts);

	c->first++;
	c->marked = true;
	return false;
}

static bool second_drop(const struct grtrace_hook_event *ev, void *data)
{
	struct hook_test_counts *c = this_cpu_ptr(&hook_test_counts);

	c->second++;
	if (!c->marked)
		c->order_errors++;
	c->marked = false;
	if (drop_every && !(c->second % drop_every)) {
		c->dropped++;
		return true;
	}
	return false;
}

static void second_observe(const struct grtrace_hook_event *ev, bool written,
			   void *data)
{
	struct hook_test_counts *c = this_cpu_ptr(&hook_test_counts);

	if (written)
		c->written++;
	else
		c->unwritten++;
}

static struct grtrace_hook first_hook = {
	.name = "hook_test_first",
	.prio = 10,
	.drop = first_drop,
};

static struct grtrace_hook second_hook = {
	.name = "hook_test_second",
	.prio = 20,
	.drop = second_drop,
	.observe = second_observe,
};

static int stats_show(struct seq_file *m, void *v)
{
	struct hook_test_counts sum = { 0 };
	int cpu;

	for_each_possible_cpu(cpu) {
		struct hook_test_counts *c = per_cpu_ptr(&hook_test_counts, cpu);

		sum.first += READ_ONCE(c->first);
		sum.second += READ_ONCE(c->second);
		sum.dropped += READ_ONCE(c->dropped);
		sum.written += READ_ONCE(c->written);
		sum.unwritten += READ_ONCE(c->unwritten);
		sum.order_errors += READ_ONCE(c->order_errors);
	}
	seq_printf(m, "first=%llu second=%llu dropped=%llu written=%llu unwritten=%llu order_errors=%llu\n",
		   sum.first, sum.second, sum.dropped, sum.written,
		   sum.unwritten, sum.order_errors);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/* What the chain must refuse; 0 if it does. */
static int check_refusals(void)
{
	static struct grtrace_hook nameless = { .drop = first_drop };
	static struct grtrace_hook no_callback = { .name = "hook_test_none" };
	static struct grtrace_hook same_name = {
		.name = "hook_test_second", .observe = second_observe,
	};
	int a, b, c, d;

	a = grtrace_hook_register(&nameless);
	b = grtrace_hook_register(&no_callback);
	c = grtrace_hook_register(&second_hook);
	d = grtrace_hook_register(&same_name);
	if (a == -EINVAL && b == -EINVAL && c == -EBUSY && d == -EBUSY)
		return 0;
	pr_err("refusals: nameless %d, no callback %d, twice %d, same name %d\n",
	       a, b, c, d);
	return -EINVAL;
}

static int __init hook_test_init(void)
{
	int ret;

	/* Registered in the reverse of their order in the chain. */
	ret = grtrace_hook_register(&second_hook);
	if (ret)
		return ret;
	ret = grtrace_hook_register(&first_hook);
	if (ret)
		goto err_second;
	ret = check_refusals();
	if (ret)
		goto err_first;
	hook_test_dir = debugfs_create_dir("grtrace_hook_test", NULL);
	debugfs_create_file("stats", 0400, hook_test_dir, NULL, &stats_fops);
	return 0;

err_first:
	grtrace_hook_unregister(&first_hook);
err_second:
	grtrace_hook_unregister(&second_hook);
	return ret;
}

static void __exit hook_test_exit(void)
{
	debugfs_remove_recursive(hook_test_dir);
	grtrace_hook_unregister(&first_hook);
	grtrace_hook_unregister(&second_hook);
}

module_init(hook_test_init);
module_exit(hook_test_exit);
MODULE_DESCRIPTION("grtrace selftest: hooks in the event path");
MODULE_LICENSE("GPL");
