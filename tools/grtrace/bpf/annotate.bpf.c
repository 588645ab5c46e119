// SPDX-License-Identifier: GPL-2.0
/*
 * annotate.bpf.c - the BPF side of grtrace-bpf-annotate: every DRM ioctl's
 * entry and return (fentry/fexit on drm_ioctl()), timed on CLOCK_MONOTONIC,
 * with the device, the driver and, for a driver's own ioctls, the name in
 * the driver's ioctl table.
 *
 * The kernel types are declared here with only the members read, and
 * relocated by libbpf (CO-RE) against the running kernel's BTF: drm's own
 * types live in the drm module's BTF, not in vmlinux.h.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "annotate.h"

#define PRESERVE __attribute__((preserve_access_index))

struct file {
	void *private_data;
} PRESERVE;

struct drm_ioctl_desc {
	const char *name;
} PRESERVE;

struct drm_driver {
	const char *name;
	const struct drm_ioctl_desc *ioctls;
	int num_ioctls;
} PRESERVE;

struct drm_device {
	const struct drm_driver *driver;
} PRESERVE;

struct drm_minor {
	int index;
	int type;
	struct drm_device *dev;
} PRESERVE;

struct drm_file {
	struct drm_minor *minor;
} PRESERVE;

#define DRM_IOCTL_BASE		'd'
#define DRM_COMMAND_BASE	0x40
#define DRM_COMMAND_END		0xa0

/* Set by the user side before the program loads; 0: every process. */
const volatile __u32 filter_pid;

struct entry {
	__u64 ts;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);		/* tid */
	__type(value, struct entry);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} records SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GA_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		(*c)++;
}

SEC("fentry/drm_ioctl")
int BPF_PROG(ioctl_enter, struct file *filp, unsigned int cmd,
	     unsigned long arg)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct entry e = { .ts = bpf_ktime_get_ns() };
	__u32 tid = (__u32)id;

	if (filter_pid && (id >> 32) != filter_pid)
		return 0;
	if (bpf_map_update_elem(&inflight, &tid, &e, BPF_ANY))
		count(GA_LOST_INFLIGHT);
	return 0;
}

/* The driver's name for its own ioctl @nr (0x40..0x9f). */
static void driver_ioctl_name(const struct drm_driver *drv, __u32 nr,
			      char *buf)
{
	const struct drm_ioctl_desc *table = BPF_CORE_READ(drv, ioctls);
	__u32 idx = nr - DRM_COMMAND_BASE;
	const char *name = NULL;
	const void *desc;

	if (!table || idx >= (__u32)BPF_CORE_READ(drv, num_ioctls))
		return;
	desc = (const void *)table + idx * bpf_core_type_size(struct drm_ioctl_desc);
	bpf_probe_read_kernel(&name, sizeof(name),
			      desc + bpf_core_field_offset(struct drm_ioctl_desc, name));
	if (name)
		bpf_probe_read_kernel_str(buf, GA_NAME_LEN, name);
}

SEC("fexit/drm_ioctl")
int BPF_PROG(ioctl_exit, struct file *filp, unsigned int cmd,
	     unsigned long arg, long ret)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	const struct drm_driver *drv = NULL;
	struct drm_minor *minor = NULL;
	struct drm_file *priv;
	__u32 tid = (__u32)id, nr;
	struct ga_ioctl *r;
	struct entry *e;

	if (filter_pid && (id >> 32) != filter_pid)
		return 0;
	e = bpf_map_lookup_elem(&inflight, &tid);
	if (!e) {
		count(GA_NO_ENTRY);
		return 0;
	}
	r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
	if (!r) {
		bpf_map_delete_elem(&inflight, &tid);
		count(GA_LOST_RINGBUF);
		return 0;
	}
	r->ts = e->ts;
	r->dur = now - e->ts;
	bpf_map_delete_elem(&inflight, &tid);
	r->ret = ret;
	r->pid = id >> 32;
	r->tid = tid;
	r->cmd = cmd;
	r->minor = -1;
	r->minor_type = -1;
	r->driver[0] = 0;
	r->name[0] = 0;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	priv = BPF_CORE_READ(filp, private_data);
	if (priv)
		minor = BPF_CORE_READ(priv, minor);
	if (minor) {
		r->minor = BPF_CORE_READ(minor, index);
		r->minor_type = BPF_CORE_READ(minor, type);
		drv = BPF_CORE_READ(minor, dev, driver);
	}
	if (drv) {
		bpf_probe_read_kernel_str(r->driver, sizeof(r->driver),
					  BPF_CORE_READ(drv, name));
		nr = cmd & 0xff;
		if (((cmd >> 8) & 0xff) == DRM_IOCTL_BASE &&
		    nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END)
			driver_ioctl_name(drv, nr, r->name);
	}
	bpf_ringbuf_submit(r, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
