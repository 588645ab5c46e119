// SPDX-License-Identifier: GPL-2.0
/*
 * Build-time probes of the kernel API grtrace builds against, never linked
 * into a module.  The Makefile compiles this file once per CT_<NAME>
 * against the target kernel's headers and defines GRTRACE_HAVE_<NAME> for
 * every object when it compiles; grtrace_compat.h turns the answers into
 * one spelling.  Each probe asserts one exact type or member, because
 * distribution kernels backport API changes: a kernel version cannot tell
 * which form its headers have.
 */

#include <linux/build_bug.h>
#include <linux/hrtimer.h>
#include <linux/relay.h>
#include <linux/stddef.h>
#include <linux/timer.h>
#include <drm/gpu_scheduler.h>

#define CT_TYPE(fn, type) static_assert(__same_type(&(fn), type), #fn)

#if defined(CT_RELAY_NO_PADDING)
/* relay's subbuf_start() without the previous sub-buffer's padding (7.0). */
static_assert(__same_type(((struct rchan_callbacks *)NULL)->subbuf_start,
			  int (*)(struct rchan_buf *, void *, void *)),
	      "subbuf_start");
#elif defined(CT_HRTIMER_SETUP)
/* hrtimer_setup() sets the callback with the clock and mode (6.13). */
CT_TYPE(hrtimer_setup, void (*)(struct hrtimer *,
				enum hrtimer_restart (*)(struct hrtimer *),
				clockid_t, enum hrtimer_mode));
#elif defined(CT_TIMER_DELETE_SYNC)
/* timer_delete_sync(), which replaced del_timer_sync() (6.2, in 6.1.y). */
CT_TYPE(timer_delete_sync, int (*)(struct timer_list *));
#elif defined(CT_SCHED_JOB_ID)
/* drm_sched_job.id, the number the 6.1 tracepoints print (to 6.16). */
static_assert(sizeof_field(struct drm_sched_job, id) == 8, "id");
#elif defined(CT_SCHED_CLIENT_ID)
/* The DRM client id of the job's owner, on its scheduler fence (6.17). */
static_assert(sizeof_field(struct drm_sched_fence, drm_client_id) == 8,
	      "drm_client_id");
#elif defined(CT_SCHED_CREDITS)
/* The credits of the jobs a scheduler has in flight (6.8). */
static_assert(__same_type(((struct drm_gpu_scheduler *)NULL)->credit_count,
			  atomic_t), "credit_count");
#elif defined(CT_SCHED_STAT_RESET)
/* timedout_job() answers DRM_GPU_SCHED_STAT_RESET, not _NOMINAL (6.17). */
static_assert(DRM_GPU_SCHED_STAT_RESET != DRM_GPU_SCHED_STAT_NONE, "reset");
#else
#error "no CT_<NAME> given"
#endif
