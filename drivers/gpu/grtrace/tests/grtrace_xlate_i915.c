// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace_xlate_test: i915 requests on two fake engines, through the i915
 * tracepoints defined here from i915's own header.
 *
 *   rcs0 (render 0): XLATE_CTX+1:1   add, wait_begin, wait_end, retire
 *   vcs1 (video 1):  XLATE_CTX+2:7   add, retire with fence error -EIO
 *   v2x2 (a virtual video engine): XLATE_CTX+9:2   add, then put on vcs1
 *                    as i915 does when a sibling takes it, retire
 */

#include <linux/device.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "i915_drv.h"
#include "i915_request.h"

#define CREATE_TRACE_POINTS
#include "i915_trace.h"

#include "grtrace_xlate.h"

/* Owner of the fake engines' ring map entries: this module. */
static const struct drm_driver xlate_i915_driver = {
	.name = "i915",
};

struct xlate_i915 {
	struct device dev;
	struct drm_i915_private *i915;
	struct intel_engine_cs engine[3];
	struct intel_context ce[3];
	struct i915_request rq[3];
};

static void xlate_engine(struct xlate_i915 *x, int i, const char *name,
			 u16 class, u16 instance)
{
	x->engine[i].i915 = x->i915;
	strscpy(x->engine[i].name, name, sizeof(x->engine[i].name));
	x->engine[i].uabi_class = class;
	x->engine[i].uabi_instance = instance;
	x->ce[i].engine = &x->engine[i];
}

static void xlate_rq(struct xlate_i915 *x, int i, int engine, u64 ctx,
		     u64 seqno)
{
	x->rq[i].engine = &x->engine[engine];
	x->rq[i].context = &x->ce[engine];
	x->rq[i].fence.context = ctx;
	x->rq[i].fence.seqno = seqno;
}

int xlate_i915(void)
{
	struct xlate_i915 *x;

	x = kvzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	x->i915 = kvzalloc(sizeof(*x->i915), GFP_KERNEL);
	if (!x->i915) {
		kvfree(x);
		return -ENOMEM;
	}
	x->dev.init_name = "0000:00:02.0";
	x->i915->drm.dev = &x->dev;
	x->i915->drm.driver = &xlate_i915_driver;
	xlate_engine(x, 0, "rcs0", I915_ENGINE_CLASS_RENDER, 0);
	xlate_engine(x, 1, "vcs1", I915_ENGINE_CLASS_VIDEO, 1);
	xlate_rq(x, 0, 0, XLATE_CTX + 1, 1);
	xlate_engine(x, 2, "v2x2", I915_ENGINE_CLASS_VIDEO,
		     (u16)I915_ENGINE_CLASS_INVALID_VIRTUAL);
	xlate_rq(x, 1, 1, XLATE_CTX + 2, 7);
	x->rq[1].fence.error = -EIO;
	xlate_rq(x, 2, 2, XLATE_CTX + 9, 2);

	trace_i915_request_add(&x->rq[0]);
	trace_i915_request_wait_begin(&x->rq[0], 0);
	trace_i915_request_wait_end(&x->rq[0]);
	trace_i915_request_retire(&x->rq[0]);
	trace_i915_request_add(&x->rq[1]);
	trace_i915_request_retire(&x->rq[1]);
	trace_i915_request_add(&x->rq[2]);
	x->rq[2].engine = &x->engine[1];
	trace_i915_request_retire(&x->rq[2]);

	/*
	 * The adapter keeps the engines in its ring map until this module
	 * unloads, by address; no other test reuses these.
	 */
	kvfree(x->i915);
	kvfree(x);
	return 0;
}

static void xlate_tp_state(struct seq_file *m, struct tracepoint *tp,
			   bool branch)
{
	struct tracepoint_func *f;
	int n = 0;

	rcu_read_lock_sched();
	f = rcu_dereference_sched(tp->funcs);
	while (f && f->func) {
		n++;
		f++;
	}
	rcu_read_unlock_sched();
	seq_printf(m, "%s key=%d branch=%d probes=%d\n", tp->name,
		   static_key_enabled(&tp->key), branch, n);
}

/*
 * For the selftest's diagnosis when the adapter saw none of the events
 * above: each tracepoint's key as counted, as the patched branch in this
 * module's code reads it, and the probes attached.
 */
void xlate_i915_state(struct seq_file *m)
{
	xlate_tp_state(m, &__tracepoint_i915_request_add,
		       trace_i915_request_add_enabled());
	xlate_tp_state(m, &__tracepoint_i915_request_retire,
		       trace_i915_request_retire_enabled());
	xlate_tp_state(m, &__tracepoint_i915_request_wait_begin,
		       trace_i915_request_wait_begin_enabled());
	xlate_tp_state(m, &__tracepoint_i915_request_wait_end,
		       trace_i915_request_wait_end_enabled());
}
