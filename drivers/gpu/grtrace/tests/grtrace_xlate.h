/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace_xlate_test: the scenarios its parts provide.  Every job key is a
 * fixed fence context (XLATE_CTX + n) so that the selftest can name it.
 */
#ifndef _GRTRACE_XLATE_H
#define _GRTRACE_XLATE_H

#include <linux/types.h>

/* Far above the contexts dma_fence_context_alloc() hands out. */
#define XLATE_CTX	0x7e5700000000ULL

struct seq_file;

int xlate_i915(void);
void xlate_i915_state(struct seq_file *m);
int xlate_amdgpu(void);
void xlate_amdgpu_exit(void);
int xlate_dedup(void);
int xlate_nouveau(void);
/* Channels of nouveau_churn: more than ring ids (64) and map slots (128). */
#define XLATE_CHURN	300
int xlate_nouveau_churn(void);
/* Channels of nouveau_wide, each its own ring: more than the first table. */
#define XLATE_WIDE	120
int xlate_nouveau_wide(void);

struct drm_sched_job;
struct drm_sched_fence;

/* grtrace_xlate_sched.c: the gpu_scheduler tracepoints, defined here. */
void xlate_sched_queue(struct drm_sched_job *job);
void xlate_sched_run(struct drm_sched_job *job);
void xlate_sched_done(struct drm_sched_fence *s_fence);

#endif /* _GRTRACE_XLATE_H */
