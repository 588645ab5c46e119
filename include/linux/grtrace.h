/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: GPU ring trace, the in-kernel API used by adapters and by the
 * optional modules.  The record format lives in <uapi/linux/grtrace.h>.
 */
#ifndef _LINUX_GRTRACE_H
#define _LINUX_GRTRACE_H

#include <linux/types.h>
#include <uapi/linux/grtrace.h>

/* Ring ids are small integers: at most this many rings exist at once. */
#define GRTRACE_MAX_RINGS	64

/**
 * struct grtrace_ring_info - what an adapter tells the core about a ring
 * @driver: driver name, e.g. "amdgpu"; truncated to 15 characters
 * @device: device the ring belongs to, e.g. a PCI name; truncated to 31
 * @name: the driver's name for the ring, e.g. "gfx_0.0.0"; truncated to 23
 * @engine: enum grtrace_engine; grtrace_engine_from_name() can infer it
 * @instance: instance of the engine class on the device
 */
struct grtrace_ring_info {
	const char *driver;
	const char *device;
	const char *name;
	u16 engine;
	u16 instance;
};

int grtrace_ring_register(const struct grtrace_ring_info *info);
void grtrace_ring_unregister(int ring_id);
u16 grtrace_engine_from_name(const char *name);

void grtrace_submit(u32 ring_id, u64 ctx, u64 seqno);
void grtrace_commit(u32 ring_id, u64 ctx, u64 seqno);
void grtrace_start(u32 ring_id, u64 ctx, u64 seqno);
void grtrace_end(u32 ring_id, u64 ctx, u64 seqno);
void grtrace_complete(u32 ring_id, u64 ctx, u64 seqno);
void grtrace_ctx_switch(u32 ring_id, u64 from_ctx, u64 to_ctx);
void grtrace_irq(u32 ring_id, u64 src_id, u64 src_data);
void grtrace_sync_wait_enter(u32 ring_id, u64 ctx, u64 seqno,
			     u64 dep_ctx, u64 dep_seqno);
void grtrace_sync_wait_exit(u32 ring_id, u64 ctx, u64 seqno,
			    u64 dep_ctx, u64 dep_seqno);
void grtrace_error(u32 ring_id, u64 ctx, u64 seqno, int err, u64 reason);

#endif /* _LINUX_GRTRACE_H */
