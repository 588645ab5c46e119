// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_nmi_test: calls grtrace from NMI, for the selftests.
 *
 * Writing N to /sys/kernel/debug/grtrace_nmi_test/fire sends N NMIs to the
 * writing CPU, one after the other, and the handler of each calls
 * grtrace_submit() once.  grtrace must write nothing for them and count
 * each as dropped with reason "nmi".  Reading the file gives how many
 * handler calls there were since the module loaded.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/grtrace.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <asm/apic.h>
#include <asm/nmi.h>

/* NMIs sent and not yet handled: the handler claims only those. */
static atomic_t nmi_pending;
static atomic64_t nmi_handled;
static struct dentry *nmi_dir;

static int nmi_test_handler(unsigned int type, struct pt_regs *regs)
{
	if (!atomic_add_unless(&nmi_pending, -1, 0))
		return NMI_DONE;
	grtrace_submit(0, 1, atomic64_inc_return(&nmi_handled));
	return NMI_HANDLED;
}

/* One NMI to this CPU, and wait (at most 100 ms) for its handler. */
static int nmi_test_fire_one(void)
{
	s64 before = atomic64_read(&nmi_handled);
	int us;

	atomic_inc(&nmi_pending);
	apic->send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
	for (us = 0; us < 100000; us++) {
		if (atomic64_read(&nmi_handled) != before)
			return 0;
		udelay(1);
	}
	atomic_set(&nmi_pending, 0);
	return -ETIMEDOUT;
}

static ssize_t fire_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	unsigned int n, i;
	int ret = 0;

	if (kstrtouint_from_user(ubuf, count, 0, &n) || !n || n > 100000)
		return -EINVAL;
	for (i = 0; i < n && !ret; i++) {
		preempt_disable();
		ret = nmi_test_fire_one();
		preempt_enable();
	}
	if (ret)
		pr_warn("NMI %u of %u was not handled\n", i, n);
	return ret ?: count;
}

static ssize_t fire_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	char buf[32];
	int len;

	len = scnprintf(buf, sizeof(buf), "%lld\n",
			(long long)atomic64_read(&nmi_handled));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations fire_fops = {
	.owner	= THIS_MODULE,
	.read	= fire_read,
	.write	= fire_write,
	.llseek	= default_llseek,
};

static int __init grtrace_nmi_test_init(void)
{
	int ret;

	ret = register_nmi_handler(NMI_LOCAL, nmi_test_handler, 0,
				   KBUILD_MODNAME);
	if (ret)
		return ret;
	nmi_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("fire", 0600, nmi_dir, NULL, &fire_fops);
	return 0;
}

static void __exit grtrace_nmi_test_exit(void)
{
	debugfs_remove(nmi_dir);
	unregister_nmi_handler(NMI_LOCAL, KBUILD_MODNAME);
}

module_init(grtrace_nmi_test_init);
module_exit(grtrace_nmi_test_exit);

MODULE_DESCRIPTION("grtrace selftest: events emitted from NMI");
MODULE_LICENSE("GPL");
