// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace adapter for virtio-gpu: one ring per virtqueue.
 *
 *   virtio_gpu_cmd_queue     SUBMIT, COMMIT   aux0 = command type,
 *                                             aux1 = command number on the ring
 *   virtio_gpu_cmd_response  END, COMPLETE    aux0 = command type,
 *                                             aux1 = response type
 *                            ERROR            response type >= ERR_UNSPEC
 *
 * A fenced command is the job <device fence context>:<fence_id>, the
 * dma-fence the driver emitted for it.  An unfenced one (fence_id 0) is
 * <ring context>:<command number>, with a dma-fence context allocated for
 * the ring, so keys never collide with real fences.
 *
 * Where the tracepoints carry the driver's number of the command (its
 * seqno, from 6.12 on), command n is that number, and a response names
 * its command.  Before, a response names no command, but its buffer is
 * the one its command was queued with (the response buffer of the
 * driver's struct virtio_gpu_vbuffer, whose command header the queue
 * tracepoint is given): the queue probe keeps it in the command's slot,
 * and a response is paired with the command whose slot holds its buffer.
 * So responses to commands queued before the adapter attached, or
 * abandoned by an unbind, are told apart (counted as missed) instead of
 * shifting the pairing of every later one.  The command types of the
 * last VQ_SLOTS commands are kept for the response; a fenced response
 * must find its own fence_id there, else the pairing is broken and the
 * hit is counted as missed (its events are still written, by fence; an
 * unfenced one's are not).  6.1 has a response tracepoint for the control
 * queue only: there the cursor queue gets SUBMIT and COMMIT only.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-fence.h>
#include <linux/grtrace.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/virtio.h>

/* The driver's private headers, pinned to this kernel's source. */
#include "virtgpu_drv.h"
#include "virtgpu_trace.h"

#include "grtrace_adapter.h"

/* Commands in flight that pairing can follow: QEMU's queue has 256. */
#define VQ_SLOTS	256

/**
 * struct vq_ring - a virtqueue as a ring
 * @e: the ring map entry; first, so that the map frees the whole
 * @ctx: dma-fence context of the ring's unfenced commands
 * @queued: commands queued; updated under the driver's queue lock
 * @slot: low bits of n, command type, low fence_id bits and, before
 *	6.12, response buffer (NULL once answered) of command n, at
 *	n % VQ_SLOTS
 */
struct vq_ring {
	struct grtrace_ring_map_entry e;
	u64 ctx;
	u64 queued;
	struct {
		u32 n;
		u32 type;
		u32 fence;
#ifndef GRTRACE_VIRTIO_CMD_SEQNO
		const void *resp;
#endif
	} slot[VQ_SLOTS];
};

/* A device has two virtqueues; room for eight devices in advance. */
static struct grtrace_ring_map vq_rings = {
	.entry_size = sizeof(struct vq_ring),
	.pool_size = 16,
};

static struct vq_ring *vq_ring_slow(struct virtqueue *vq)
{
	struct grtrace_ring_map_entry *e;
	struct grtrace_ring_info info = {
		.driver = "virtio_gpu",
		.device = dev_name(&vq->vdev->dev),
		.name = vq->name,
		.engine = grtrace_engine_from_name(vq->name),
		.instance = vq->vdev->index,
	};
	struct vq_ring *r;

	e = grtrace_ring_map_entry_alloc(&vq_rings);
	if (!e)
		return NULL;
	r = container_of(e, struct vq_ring, e);
	r->ctx = dma_fence_context_alloc(1);
	r->e.key = (unsigned long)vq;
	r->e.tag = vq->vdev->index;
	r->e.owner = (unsigned long)vq->callback;
	e = grtrace_ring_map_add(&vq_rings, &r->e, &info);
	return IS_ERR(e) ? NULL : container_of(e, struct vq_ring, e);
}

static struct vq_ring *vq_ring(struct virtqueue *vq)
{
	struct grtrace_ring_map_entry *e;

	e = grtrace_ring_map_find(&vq_rings, (unsigned long)vq,
				  vq->vdev->index);
	if (likely(e))
		return container_of(e, struct vq_ring, e);
	return vq_ring_slow(vq);
}

/*
 * The job key of command @n of ring @r: its fence if @hdr is fenced,
 * else the ring's own context and @n.
 */
static void vq_job(struct vq_ring *r, struct virtqueue *vq,
		   const struct virtio_gpu_ctrl_hdr *hdr, u64 n, u64 *ctx,
		   u64 *seqno)
{
	struct drm_device *ddev = vq->vdev->priv;
	struct virtio_gpu_device *vgdev = ddev ? ddev->dev_private : NULL;

	if ((hdr->flags & cpu_to_le32(VIRTIO_GPU_FLAG_FENCE)) && vgdev) {
		*ctx = vgdev->fence_drv.context;
		*seqno = le64_to_cpu(hdr->fence_id);
	} else {
		*ctx = r->ctx;
		*seqno = n;
	}
}

#ifndef GRTRACE_VIRTIO_CMD_SEQNO
/*
 * The response buffer of the command whose header is @hdr: the header is
 * the vbuffer's inline command, right behind the vbuffer.  NULL if that
 * does not hold (a driver laid out otherwise): responses are then paired
 * with no command.
 */
static const void *vq_resp_buf(const struct virtio_gpu_ctrl_hdr *hdr)
{
	const struct virtio_gpu_vbuffer *vbuf = (const void *)hdr -
						sizeof(*vbuf);

	return vbuf->buf == (const char *)hdr ? vbuf->resp_buf : NULL;
}

/*
 * The command of @r that @resp answers: the newest whose slot holds
 * @resp (the driver reuses a buffer once its command was answered, or
 * abandoned by an unbind); 0 when none does.  The device answers in order
 * but for 3D fences, so the search usually ends after the commands still
 * in flight.
 */
static u64 vq_answered(struct vq_ring *r, const void *resp)
{
	u64 queued, m;

	/* Pairs with the release in vq_cmd_queue(): the slots are whole. */
	queued = smp_load_acquire(&r->queued);
	if (!resp)
		return 0;
	for (m = queued; m && m + VQ_SLOTS > queued; m--) {
		if (READ_ONCE(r->slot[m % VQ_SLOTS].resp) == resp) {
			WRITE_ONCE(r->slot[m % VQ_SLOTS].resp, NULL);
			return m;
		}
	}
	return 0;
}
#endif

/*
 * Called under the driver's lock of @vq: one caller per ring at a time.
 * Unlike other adapters' probes this one runs while tracing is stopped:
 * without the driver's numbers, the count of commands must stay in step
 * with the driver's responses.  @cmd is the driver's number of the
 * command, or 0 when the tracepoint does not give it.
 */
static void vq_cmd_queue(struct grtrace_tp *gtp, struct virtqueue *vq,
			 struct virtio_gpu_ctrl_hdr *hdr, u32 cmd)
{
	struct vq_ring *r = vq_ring(vq);
	u32 type = le32_to_cpu(hdr->type);
	u64 n, ctx, seqno;

	if (grtrace_probe_hit(gtp, r ? r->e.ring_id : -ENOMEM) < 0)
		return;
	n = r->queued + 1;
	if (cmd)
		n = cmd;
	vq_job(r, vq, hdr, n, &ctx, &seqno);
	r->slot[n % VQ_SLOTS].n = lower_32_bits(n);
	r->slot[n % VQ_SLOTS].type = type;
	r->slot[n % VQ_SLOTS].fence = ctx == r->ctx ? 0 : lower_32_bits(seqno);
#ifndef GRTRACE_VIRTIO_CMD_SEQNO
	WRITE_ONCE(r->slot[n % VQ_SLOTS].resp, vq_resp_buf(hdr));
#endif
	/* The slot is whole before the response probe can look at it. */
	smp_store_release(&r->queued, r->queued + 1);
	grtrace_job_event(GRTRACE_EV_SUBMIT, r->e.ring_id, ctx, seqno, type, n);
	grtrace_job_event(GRTRACE_EV_COMMIT | GRTRACE_JOB_DERIVED, r->e.ring_id,
			  ctx, seqno, type, n);
}

/* From the driver's dequeue worker of @vq, in completion order. */
static void vq_cmd_response(struct grtrace_tp *gtp, struct virtqueue *vq,
			    struct virtio_gpu_ctrl_hdr *resp, u32 cmd)
{
	struct vq_ring *r = vq_ring(vq);
	u32 rtype = le32_to_cpu(resp->type);
	u64 n, ctx, seqno;
	u32 type = 0;

	if (grtrace_probe_hit(gtp, r ? r->e.ring_id : -ENOMEM) < 0)
		return;
#ifdef GRTRACE_VIRTIO_CMD_SEQNO
	n = cmd;
#else
	n = vq_answered(r, resp);
#endif
	vq_job(r, vq, resp, n, &ctx, &seqno);
	/*
	 * No command of ours (queued before the adapter attached, or its
	 * slot reused), or command n is not this one (its fence differs).
	 * A fenced response still names its job by its fence; an unfenced
	 * one would be written under another command's key.
	 */
	if (unlikely(!n || r->slot[n % VQ_SLOTS].n != lower_32_bits(n) ||
		     r->slot[n % VQ_SLOTS].fence !=
		     (ctx == r->ctx ? 0 : lower_32_bits(seqno)))) {
		grtrace_tp_miss(gtp);
		if (ctx == r->ctx)
			return;
	} else {
		type = r->slot[n % VQ_SLOTS].type;
	}
	grtrace_job_event(GRTRACE_EV_END, r->e.ring_id, ctx, seqno, type, rtype);
	if (unlikely(rtype >= VIRTIO_GPU_RESP_ERR_UNSPEC))
		grtrace_error(r->e.ring_id, ctx, seqno, -EIO, rtype);
	grtrace_job_event(GRTRACE_EV_COMPLETE | GRTRACE_JOB_DERIVED,
			  r->e.ring_id, ctx, seqno, type, rtype);
}

#ifdef GRTRACE_VIRTIO_CMD_SEQNO
static void probe_cmd_queue(void *data, struct virtqueue *vq,
			    struct virtio_gpu_ctrl_hdr *hdr, u32 seqno)
{
	vq_cmd_queue(data, vq, hdr, seqno);
}

static void probe_cmd_response(void *data, struct virtqueue *vq,
			       struct virtio_gpu_ctrl_hdr *resp, u32 seqno)
{
	vq_cmd_response(data, vq, resp, seqno);
}
#else
static void probe_cmd_queue(void *data, struct virtqueue *vq,
			    struct virtio_gpu_ctrl_hdr *hdr)
{
	vq_cmd_queue(data, vq, hdr, 0);
}

static void probe_cmd_response(void *data, struct virtqueue *vq,
			       struct virtio_gpu_ctrl_hdr *resp)
{
	vq_cmd_response(data, vq, resp, 0);
}
#endif

static struct grtrace_tp vq_tps[] = {
	GRTRACE_TP(virtio_gpu_cmd_queue, probe_cmd_queue),
	GRTRACE_TP(virtio_gpu_cmd_response, probe_cmd_response),
};

static struct grtrace_adapter_module grtrace_virtio_gpu = {
	.adapter = GRTRACE_ADAPTER("virtio_gpu", vq_tps),
	.rings = &vq_rings,
};
module_grtrace_adapter(grtrace_virtio_gpu);

MODULE_DESCRIPTION("grtrace adapter for virtio-gpu");
MODULE_LICENSE("GPL");
