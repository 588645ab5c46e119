// SPDX-License-Identifier: GPL-2.0
/*
 * Build-time probes for grtrace_vgpu, never linked into a module.  The
 * Makefile compiles this file once per CT_<NAME> against the target
 * kernel's headers and defines GRTRACE_SCHED_<NAME> for grtrace_vgpu.o when
 * it compiles.  Each probe asserts the exact type of one gpu-sched
 * function, because distribution kernels backport API changes: a kernel
 * version cannot tell which form its headers have.
 */

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/gpu_scheduler.h>

#define CT_TYPE(fn, type) static_assert(__same_type(&(fn), type), #fn)

#if defined(CT_INIT_ARGS)
/* drm_sched_init() takes a struct drm_sched_init_args (upstream 6.15). */
CT_TYPE(drm_sched_init, int (*)(struct drm_gpu_scheduler *,
				const struct drm_sched_init_args *));
#elif defined(CT_INIT_ARGS_RQS)
/* ... with run queues to ask for (not in Debian's 6.1 backport). */
static_assert(sizeof_field(struct drm_sched_init_args, num_rqs) == 4,
	      "num_rqs");
#elif defined(CT_INIT_WQ)
/* Eleven arguments: a submit workqueue, run queues and credits (6.8). */
CT_TYPE(drm_sched_init, int (*)(struct drm_gpu_scheduler *,
				const struct drm_sched_backend_ops *,
				struct workqueue_struct *, u32, u32,
				unsigned int, long, struct workqueue_struct *,
				atomic_t *, const char *, struct device *));
#elif defined(CT_JOB_INIT_CLIENT)
/* drm_sched_job_init() with credits and a DRM client id (6.16). */
CT_TYPE(drm_sched_job_init, int (*)(struct drm_sched_job *,
				    struct drm_sched_entity *, u32, void *,
				    u64));
#elif defined(CT_JOB_INIT_CREDITS)
/* drm_sched_job_init() with credits (6.7). */
CT_TYPE(drm_sched_job_init, int (*)(struct drm_sched_job *,
				    struct drm_sched_entity *, u32, void *));
#elif defined(CT_START_NOARG)
/* drm_sched_start() without full_recovery (6.12). */
CT_TYPE(drm_sched_start, void (*)(struct drm_gpu_scheduler *));
#elif defined(CT_START_ERRNO)
/* drm_sched_start() with the errno for the pending fences (6.13). */
CT_TYPE(drm_sched_start, void (*)(struct drm_gpu_scheduler *, int));
#elif defined(CT_FILE_CLIENT_ID)
/* A DRM file has the id fdinfo prints as drm-client-id (6.5). */
static_assert(sizeof_field(struct drm_file, client_id) == 8, "client_id");
#elif defined(CT_SHOW_FDINFO)
/* The DRM core's fdinfo helper (6.5). */
CT_TYPE(drm_show_fdinfo, void (*)(struct seq_file *, struct file *));
#elif defined(CT_DRIVER_DATE)
/* struct drm_driver still has a date (gone in 6.14). */
static_assert(sizeof_field(struct drm_driver, date) == sizeof(char *),
	      "date");
#else
#error "no CT_<NAME> given"
#endif
