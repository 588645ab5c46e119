/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * grtrace: GPU ring trace stream format.
 *
 * This is the byte stream read from /sys/kernel/debug/grtrace/events<cpu>
 * and stored by "grtrace record".  Documentation/gpu/grtrace.rst holds the
 * normative description; this header is its machine-readable form.
 *
 * All fields are little-endian: grtrace writes in the CPU's byte order and
 * builds on little-endian kernels only.  Every record starts with a
 * struct grtrace_hdr whose @size covers the whole record and is a
 * multiple of 8.
 */
#ifndef _UAPI_LINUX_GRTRACE_H
#define _UAPI_LINUX_GRTRACE_H

#include <linux/types.h>

#define GRTRACE_MAGIC		0x52545247	/* the bytes "GRTR" */
#define GRTRACE_FORMAT_VERSION	1

/* Record alignment and the largest record a producer may write. */
#define GRTRACE_ALIGN		8
#define GRTRACE_MAX_RECORD	8192

/**
 * enum grtrace_type - record types
 * @GRTRACE_EV_SUBMIT: job accepted from userspace (ioctl / entity push)
 * @GRTRACE_EV_COMMIT: job handed to the hardware ring (scheduler run_job)
 * @GRTRACE_EV_START: hardware began executing the job (where observable)
 * @GRTRACE_EV_END: hardware finished the job (hardware fence signalled)
 * @GRTRACE_EV_COMPLETE: completion delivered to, or retired for, userspace
 * @GRTRACE_EV_CTX_SWITCH: the ring switched context; @aux0 is the old ctx
 * @GRTRACE_EV_IRQ: a GPU interrupt; @aux0 is the source id, @aux1 src data
 * @GRTRACE_EV_SYNC_WAIT_ENTER: job starts waiting on fence @aux0:@aux1
 * @GRTRACE_EV_SYNC_WAIT_EXIT: the fence @aux0:@aux1 the job waited on signalled
 * @GRTRACE_EV_ERROR: timeout, reset or guilty job; @aux0 is a negative errno
 *	stored as two's complement, @aux1 a driver-specific reason
 * @GRTRACE_EV_NR_JOB_TYPES: number of job event type slots (type mask width)
 * @GRTRACE_REC_STREAM_INFO: start of a tracing session
 * @GRTRACE_REC_METADATA: session description and ring table
 * @GRTRACE_REC_RING: one ring registered while tracing
 *
 * Job event types are below %GRTRACE_EV_NR_JOB_TYPES so that bit (1 << type)
 * of a 32-bit mask selects them.  Control records start at 0x100 and are
 * never filtered, sampled or rate limited.
 */
enum grtrace_type {
	GRTRACE_EV_SUBMIT		= 1,
	GRTRACE_EV_COMMIT		= 2,
	GRTRACE_EV_START		= 3,
	GRTRACE_EV_END			= 4,
	GRTRACE_EV_COMPLETE		= 5,
	GRTRACE_EV_CTX_SWITCH		= 6,
	GRTRACE_EV_IRQ			= 7,
	GRTRACE_EV_SYNC_WAIT_ENTER	= 8,
	GRTRACE_EV_SYNC_WAIT_EXIT	= 9,
	GRTRACE_EV_ERROR		= 10,
	GRTRACE_EV_NR_JOB_TYPES		= 32,

	GRTRACE_REC_STREAM_INFO		= 0x100,
	GRTRACE_REC_METADATA		= 0x101,
	GRTRACE_REC_RING		= 0x102,
};

/**
 * enum grtrace_engine - engine class of a ring
 * @GRTRACE_ENGINE_UNKNOWN: the class could not be inferred
 * @GRTRACE_ENGINE_GFX: graphics / render
 * @GRTRACE_ENGINE_COMPUTE: compute
 * @GRTRACE_ENGINE_COPY: copy / DMA / SDMA / blitter
 * @GRTRACE_ENGINE_VIDEO: video decode / encode
 * @GRTRACE_ENGINE_DISPLAY: display / scanout / cursor
 * @GRTRACE_ENGINE_CONTROL: command / control queue of a paravirtual GPU
 * @GRTRACE_ENGINE_NR: number of classes (engine mask width)
 */
enum grtrace_engine {
	GRTRACE_ENGINE_UNKNOWN	= 0,
	GRTRACE_ENGINE_GFX	= 1,
	GRTRACE_ENGINE_COMPUTE	= 2,
	GRTRACE_ENGINE_COPY	= 3,
	GRTRACE_ENGINE_VIDEO	= 4,
	GRTRACE_ENGINE_DISPLAY	= 5,
	GRTRACE_ENGINE_CONTROL	= 6,
	GRTRACE_ENGINE_NR,
};

/* Clock ids named in STREAM_INFO, with the values of clock_gettime(2). */
#define GRTRACE_CLOCK_MONOTONIC	1
#define GRTRACE_CLOCK_BOOTTIME	7

/* Feature bits in STREAM_INFO. */
#define GRTRACE_FEAT_GSEQ	(1ULL << 0)	/* gseq is global and strictly increasing */
#define GRTRACE_FEAT_CSEQ	(1ULL << 1)	/* cseq counts every record of a CPU */
#define GRTRACE_FEAT_RING_REC	(1ULL << 2)	/* rings added mid-stream get a RING record */
#define GRTRACE_FEAT_DERIVED	(1ULL << 3)	/* job events may carry GRTRACE_HDR_DERIVED */

/*
 * Bits of grtrace_hdr.flags.  DERIVED: the job event was not observed on
 * its own but written with the one before it for the same job, from one
 * tracepoint hit (e.g. a COMMIT with its SUBMIT): its time is that hit's,
 * and the interval between the two says nothing.
 */
#define GRTRACE_HDR_DERIVED	0x0001

/**
 * struct grtrace_hdr - header of every record (32 bytes)
 * @type: enum grtrace_type
 * @size: size of the whole record in bytes, header included; a multiple of
 *	%GRTRACE_ALIGN.  Readers skip records and trailing fields by it.
 * @cpu: CPU whose channel holds the record
 * @flags: GRTRACE_HDR_* bits (only with %GRTRACE_FEAT_DERIVED); other bits
 *	are reserved, written as 0
 * @ts: timestamp in ns on the clock named by the session's STREAM_INFO
 * @gseq: global sequence number, strictly increasing over all CPUs for the
 *	lifetime of the module; a gap means records were lost (counted in stats)
 * @cseq: per-CPU sequence number of the records in this CPU's channel
 */
struct grtrace_hdr {
	__u16 type;
	__u16 size;
	__u16 cpu;
	__u16 flags;
	__u64 ts;
	__u64 gseq;
	__u64 cseq;
};

/**
 * struct grtrace_job_event - SUBMIT ... ERROR (72 bytes)
 * @hdr: header
 * @ctx: fence context of the job
 * @seqno: fence seqno of the job; (@ctx, @seqno) identifies the job
 * @ring_id: id of the ring, as listed in METADATA or a RING record
 * @engine: enum grtrace_engine of the ring
 * @reserved: written as 0
 * @aux0: type-specific, see enum grtrace_type
 * @aux1: type-specific, see enum grtrace_type
 */
struct grtrace_job_event {
	struct grtrace_hdr hdr;
	__u64 ctx;
	__u64 seqno;
	__u32 ring_id;
	__u16 engine;
	__u16 reserved;
	__u64 aux0;
	__u64 aux1;
};

/**
 * struct grtrace_stream_info - first record of every session (64 bytes)
 * @hdr: header
 * @magic: %GRTRACE_MAGIC
 * @version: %GRTRACE_FORMAT_VERSION
 * @hdr_size: sizeof(struct grtrace_hdr) of the producer
 * @clock_id: GRTRACE_CLOCK_* of every @hdr.ts in the session
 * @nr_cpus: number of per-CPU channels (possible CPUs)
 * @features: GRTRACE_FEAT_* bits
 * @session_id: increments at every start, from 1
 */
struct grtrace_stream_info {
	struct grtrace_hdr hdr;
	__u32 magic;
	__u16 version;
	__u16 hdr_size;
	__u32 clock_id;
	__u32 nr_cpus;
	__u64 features;
	__u64 session_id;
};

#define GRTRACE_NAME_LEN	32

/**
 * struct grtrace_ring_desc - one ring (80 bytes)
 * @ring_id: id used by job events
 * @engine: enum grtrace_engine
 * @instance: instance of the engine class on its device, or 0
 * @driver: driver name, NUL-terminated
 * @device: device name (e.g. "0000:00:02.0" or "vgpu0"), NUL-terminated
 * @name: ring name as the driver calls it, NUL-terminated
 */
struct grtrace_ring_desc {
	__u32 ring_id;
	__u16 engine;
	__u16 instance;
	char driver[16];
	char device[GRTRACE_NAME_LEN];
	char name[24];
};

/**
 * struct grtrace_metadata - second record of every session
 * @hdr: header
 * @nr_rings: number of entries in @rings
 * @ring_size: size in bytes of each entry; readers step by it
 * @reserved: written as 0
 * @kernel: UTS release of the producing kernel, NUL-terminated
 * @rings: the ring table, @nr_rings entries of @ring_size bytes
 */
struct grtrace_metadata {
	struct grtrace_hdr hdr;
	__u32 nr_rings;
	__u16 ring_size;
	__u16 reserved;
	char kernel[64];
	struct grtrace_ring_desc rings[];
};

/**
 * struct grtrace_ring_record - a ring registered while tracing
 * @hdr: header
 * @ring: the ring
 */
struct grtrace_ring_record {
	struct grtrace_hdr hdr;
	struct grtrace_ring_desc ring;
};

#endif /* _UAPI_LINUX_GRTRACE_H */
