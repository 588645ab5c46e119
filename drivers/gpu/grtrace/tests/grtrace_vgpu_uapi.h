/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * grtrace_vgpu's one ioctl, on its render node, for the tests: the
 * workload lines of its debugfs ``submit`` file, submitted through a DRM
 * file so that the jobs carry that file's DRM client id.
 */
#ifndef GRTRACE_VGPU_UAPI_H
#define GRTRACE_VGPU_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Push the jobs from a kernel worker, not from the calling thread. */
#define DRM_VGPU_SUBMIT_WORKER	0x1

/**
 * struct drm_vgpu_submit - argument of %DRM_IOCTL_VGPU_SUBMIT
 * @text: user pointer to the workload lines (as the ``submit`` file takes)
 * @len: their length in bytes, 1..4096
 * @flags: DRM_VGPU_SUBMIT_* bits
 */
struct drm_vgpu_submit {
	__u64 text;
	__u32 len;
	__u32 flags;
};

/* DRM_IOW(DRM_COMMAND_BASE + 0, ...), without needing drm.h in userspace. */
#define DRM_VGPU_SUBMIT		0x00
#define DRM_IOCTL_VGPU_SUBMIT	_IOW('d', 0x40 + DRM_VGPU_SUBMIT, \
				     struct drm_vgpu_submit)

#endif /* GRTRACE_VGPU_UAPI_H */
