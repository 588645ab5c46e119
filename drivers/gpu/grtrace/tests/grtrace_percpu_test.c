// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_percpu_test: takes 5 KiB of the static per-CPU reserve that all
 * modules share (8 KiB on x86-64), as other subsystems' modules do on a
 * busy machine, so that the selftests can check that grtrace and its
 * optional modules still load: they allocate their per-CPU data instead.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/percpu.h>

#define PERCPU_TEST_BYTES	(5 * 1024)

static DEFINE_PER_CPU(u8 [PERCPU_TEST_BYTES], percpu_test_area);

static int __init percpu_test_init(void)
{
	/* Written once, so that the area is used. */
	this_cpu_write(percpu_test_area[0], 1);
	pr_debug("%d bytes of static per-CPU data\n", PERCPU_TEST_BYTES);
	return 0;
}

static void __exit percpu_test_exit(void)
{
}

module_init(percpu_test_init);
module_exit(percpu_test_exit);
MODULE_DESCRIPTION("grtrace selftest: 5 KiB of the modules' static per-CPU reserve");
MODULE_LICENSE("GPL");
