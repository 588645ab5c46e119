// SPDX-License-Identifier: GPL-2.0
/*
 * Build-time probe for grtrace_vgpu, never linked into a module: the
 * Makefile compiles it against the target kernel's headers and defines
 * GRTRACE_SCHED_INIT_ARGS when it compiles.  It does when drm_sched_init()
 * takes a struct drm_sched_init_args (upstream 6.15, and distribution
 * kernels that backported it); with the nine-argument form of 6.1 the
 * struct is unknown and the call has too few arguments.  The kernel
 * version cannot tell the two apart.
 */

#include <drm/gpu_scheduler.h>

int grtrace_vgpu_conftest(struct drm_gpu_scheduler *sched);

int grtrace_vgpu_conftest(struct drm_gpu_scheduler *sched)
{
	const struct drm_sched_init_args args = { .name = "conftest" };

	return drm_sched_init(sched, &args);
}
