/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: one spelling of the kernel API that changed between the kernels
 * grtrace builds on (6.1 to 7.x).  What a kernel has is found by compiling
 * grtrace_conftest.c against its headers (GRTRACE_HAVE_<NAME>, from the
 * Makefile), never from its version: distributions backport.
 */
#ifndef _GRTRACE_COMPAT_H
#define _GRTRACE_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/timer.h>

#ifndef kmalloc_obj
/* kmalloc_obj() (7.0): one object of the type of @v, GFP_KERNEL. */
#define kmalloc_obj(v)	kmalloc(sizeof(v), GFP_KERNEL)
#endif
#ifndef kzalloc_obj
/* kzalloc_obj() (7.0): the same, zeroed. */
#define kzalloc_obj(v)	kzalloc(sizeof(v), GFP_KERNEL)
#endif

#ifndef GRTRACE_HAVE_TIMER_DELETE_SYNC
#define timer_delete_sync(t)	del_timer_sync(t)
#endif

/**
 * grtrace_hrtimer_setup() - initialise an hrtimer and set its callback
 * @timer: the timer
 * @fn: its callback
 * @clock: the clock it runs on
 * @mode: its mode
 */
static inline void grtrace_hrtimer_setup(struct hrtimer *timer,
					 enum hrtimer_restart (*fn)(struct hrtimer *),
					 clockid_t clock, enum hrtimer_mode mode)
{
#ifdef GRTRACE_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

#endif /* _GRTRACE_COMPAT_H */
