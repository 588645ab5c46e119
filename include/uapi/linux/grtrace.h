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
/*
 * The newest stream format.  A session writes one format, chosen by the
 * "format" key of the config file: 2 (compact records, the default) or 1.
 */
#define GRTRACE_FORMAT_V1	1
#define GRTRACE_FORMAT_V2	2
#define GRTRACE_FORMAT_VERSION	GRTRACE_FORMAT_V2

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
 * @GRTRACE_REC_JOB_SUMMARY: one whole job in one record, written instead
 *	of its events by an optional module (grtrace_sampling's threshold
 *	mode): struct grtrace_job_summary
 * @GRTRACE_REC_TRIGGER: what froze a flight recorder snapshot, written
 *	once, in the snapshot stream of the CPU that triggered:
 *	struct grtrace_trigger
 * @GRTRACE_REC_RECORDER: one CPU's accounting of a flight recorder
 *	snapshot, the last record but the TRIGGER of each snapshot stream:
 *	struct grtrace_recorder_cpu
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
	GRTRACE_REC_JOB_SUMMARY		= 0x103,
	GRTRACE_REC_TRIGGER		= 0x104,
	GRTRACE_REC_RECORDER		= 0x105,
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
#define GRTRACE_FEAT_CSEQ_LOSS	(1ULL << 4)	/* a lost record takes its cseq */
#define GRTRACE_FEAT_TASK	(1ULL << 5)	/* v2: SUBMIT may carry the submitting task */
#define GRTRACE_FEAT_CLIENT	(1ULL << 6)	/* SUBMIT may carry GRTRACE_HDR_CLIENT */

/*
 * Bits of grtrace_hdr.flags.  DERIVED: the job event was not observed on
 * its own but written with the one before it for the same job, from one
 * tracepoint hit (e.g. a COMMIT with its SUBMIT): its time is that hit's,
 * and the interval between the two says nothing.
 */
#define GRTRACE_HDR_DERIVED	0x0001
/*
 * TASK: a job event of 80 bytes or more whose bytes 72..79 are the
 * submitting task's pid (thread group id) and tid, u32 each.  Never
 * written by a v1 producer; a v2 reader that converts records to v1 sets
 * it (see struct grtrace_hdr2).
 */
#define GRTRACE_HDR_TASK	0x0002
/*
 * CLIENT: a SUBMIT whose aux0 is the DRM client id of the file the job was
 * submitted through: the ``drm-client-id`` in /proc/PID/fdinfo/FD of the
 * process that opened it, whichever thread pushed the job.
 */
#define GRTRACE_HDR_CLIENT	0x0004

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
 * @nr_cpus: CPU ids are below it; each possible CPU has a channel, named
 *	by its id (a sparse possible mask has fewer channels)
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

/* Why a job was summarised (grtrace_job_summary.reason). */
/*
 * SLOW: its latency crossed the threshold.  OPEN: it was open longer than
 * the threshold when the module gave it up (its table full, the mode
 * changed): its COMPLETE, and maybe more, is missing.
 */
#define GRTRACE_SUMMARY_SLOW	1
#define GRTRACE_SUMMARY_OPEN	2

/**
 * struct grtrace_job_summary - one job in one record (128 bytes)
 * @hdr: header; @hdr.ts is when the summary was written
 * @ctx: fence context of the job
 * @seqno: fence seqno of the job
 * @ring_id: id of the ring
 * @engine: enum grtrace_engine of the ring
 * @events: bit (1 << type) for each of SUBMIT ... COMPLETE that was seen;
 *	@ts of the others is 0
 * @derived: bit (1 << type) for each stamp that was derived (see
 *	%GRTRACE_HDR_DERIVED)
 * @reason: GRTRACE_SUMMARY_*
 * @pid: the submitting task's thread group id, 0 if unknown
 * @tid: the submitting task's id, 0 if unknown
 * @waits: the job's SYNC_WAIT_ENTERs (its waits on other fences)
 * @ts: the times of SUBMIT ... COMPLETE, @ts[type - 1]
 * @wait_ns: the time the job had a wait open (the union of its waits);
 *	meaningful only when every wait was closed
 * @threshold: the latency threshold in force, ns
 *
 * The summarised job's own events are not written (they are counted as
 * dropped, reason ``hook``); the job's ERROR events are.
 */
struct grtrace_job_summary {
	struct grtrace_hdr hdr;
	__u64 ctx;
	__u64 seqno;
	__u32 ring_id;
	__u16 engine;
	__u16 events;
	__u16 derived;
	__u16 reason;
	__u32 pid;
	__u32 tid;
	__u32 waits;
	__u64 ts[5];
	__u64 wait_ns;
	__u64 threshold;
};

/* What froze a flight recorder snapshot (grtrace_trigger.cause). */
#define GRTRACE_TRIGGER_MANUAL	1	/* the "trigger" control word */
#define GRTRACE_TRIGGER_TIMEOUT	2	/* the DRM scheduler's job timeout */
#define GRTRACE_TRIGGER_ERROR	3	/* an ERROR job event */

/**
 * struct grtrace_trigger - what froze a flight recorder snapshot (88 bytes)
 * @hdr: header; @hdr.ts is when the trigger was called
 * @cause: GRTRACE_TRIGGER_*
 * @ring_id: the ring the trigger names, 0xffffffff for none (manual)
 * @ctx: fence context of the job the trigger names; 0 with @seqno 0 when
 *	it names none (readers then take the oldest unfinished job of @ring_id)
 * @seqno: fence seqno of the job the trigger names
 * @error: the negative errno of an ERROR trigger, else 0
 * @frozen_ts: when the buffers stopped taking records, same clock as @hdr.ts
 * @later_triggers: triggers counted while the snapshot was kept, at the
 *	time the snapshot was read
 * @cpu: CPU that triggered
 * @reserved: written as 0
 */
struct grtrace_trigger {
	struct grtrace_hdr hdr;
	__u32 cause;
	__u32 ring_id;
	__u64 ctx;
	__u64 seqno;
	__s64 error;
	__u64 frozen_ts;
	__u64 later_triggers;
	__u32 cpu;
	__u32 reserved;
};

/**
 * struct grtrace_recorder_cpu - one CPU's accounting in a flight recorder
 *	snapshot (96 bytes)
 * @hdr: header
 * @cpu: the CPU whose stream this is
 * @reserved: written as 0
 * @first_ts: timestamp of the first kept record, 0 if none
 * @last_ts: timestamp of the last kept record, 0 if none
 * @emitted: events that entered this CPU's event path since arm
 * @kept: of those, records kept in this snapshot
 * @overwritten: of those, records overwritten by newer ones before the freeze
 * @dropped: of those, events dropped with a named reason (frozen included)
 * @buffer_size: the buffer size in bytes of this CPU
 *
 * @emitted == @kept + @overwritten + @dropped holds exactly.
 */
struct grtrace_recorder_cpu {
	struct grtrace_hdr hdr;
	__u32 cpu;
	__u32 reserved;
	__u64 first_ts;
	__u64 last_ts;
	__u64 emitted;
	__u64 kept;
	__u64 overwritten;
	__u64 dropped;
	__u64 buffer_size;
};

/*
 * Format 2: compact records.  A v2 record starts with a 16-byte header and
 * its size is a multiple of %GRTRACE_ALIGN2; no field is aligned beyond 4
 * bytes.  Records do not name their CPU: the channel (events<cpu>, or a
 * trace file's frame) does.  The bodies of STREAM_INFO, METADATA, RING,
 * JOB_SUMMARY, TRIGGER and RECORDER are those of format 1, after the
 * shorter header.
 */
#define GRTRACE_ALIGN2		4

/* v2 record types: job events keep their numbers, control records move. */
#define GRTRACE_REC2_STREAM_INFO	0x80
#define GRTRACE_REC2_METADATA		0x81
#define GRTRACE_REC2_RING		0x82
#define GRTRACE_REC2_JOB_SUMMARY	0x83
#define GRTRACE_REC2_TRIGGER		0x84
#define GRTRACE_REC2_RECORDER		0x85

/*
 * Bits of grtrace_hdr2.flags.  A job event's fixed part is struct
 * grtrace_job2, or struct grtrace_job2_wide with WIDE (when its ctx,
 * seqno, aux0 or aux1 needs more than 32 bits).  Optional parts follow
 * the fixed part in this order: AUX, then TASK; GSEQ is always the last 8
 * bytes of the record, of any type.
 */
#define GRTRACE_HDR2_DERIVED	0x01	/* as GRTRACE_HDR_DERIVED */
#define GRTRACE_HDR2_AUX	0x02	/* aux0, aux1 follow (u32, u64 if WIDE) */
#define GRTRACE_HDR2_TASK	0x04	/* u32 pid, u32 tid follow */
#define GRTRACE_HDR2_GSEQ	0x08	/* the record ends with u64 gseq */
#define GRTRACE_HDR2_WIDE	0x10	/* ctx, seqno, aux0, aux1 are u64 */
#define GRTRACE_HDR2_CLIENT	0x20	/* as GRTRACE_HDR_CLIENT */

/**
 * struct grtrace_hdr2 - header of every v2 record (16 bytes, packed)
 * @type: job event types as enum grtrace_type, control records
 *	GRTRACE_REC2_*
 * @flags: GRTRACE_HDR2_* bits; other bits are reserved, written as 0
 * @size: size of the whole record in bytes, a multiple of %GRTRACE_ALIGN2
 * @cseq: the low 32 bits of the CPU's sequence number, which counts every
 *	record written to the channel and every one lost to a full buffer:
 *	a gap is a loss
 * @ts: timestamp in ns on the clock named by the session's STREAM_INFO
 */
struct grtrace_hdr2 {
	__u8 type;
	__u8 flags;
	__u16 size;
	__u32 cseq;
	__u64 ts;
} __attribute__((packed));

/**
 * struct grtrace_job2 - v2 SUBMIT ... ERROR, fixed part (28 bytes)
 * @hdr: header
 * @ctx: fence context of the job
 * @seqno: fence seqno of the job
 * @ring_id: id of the ring (below %GRTRACE_MAX_RINGS)
 * @engine: enum grtrace_engine of the ring
 * @reserved: written as 0
 *
 * Then, as @hdr.flags say: u32 aux0 and u32 aux1 (%GRTRACE_HDR2_AUX,
 * written when either is not 0; absent, both are 0), u32 pid and u32 tid
 * (%GRTRACE_HDR2_TASK: a SUBMIT made in process context), u64 gseq
 * (%GRTRACE_HDR2_GSEQ).
 */
struct grtrace_job2 {
	struct grtrace_hdr2 hdr;
	__u32 ctx;
	__u32 seqno;
	__u16 ring_id;
	__u8 engine;
	__u8 reserved;
} __attribute__((packed));

/**
 * struct grtrace_job2_wide - the fixed part with %GRTRACE_HDR2_WIDE
 *	(36 bytes, packed: records are only 4-byte aligned)
 * @hdr: header
 * @ctx: fence context of the job
 * @seqno: fence seqno of the job
 * @ring_id: as in struct grtrace_job2
 * @engine: as in struct grtrace_job2
 * @reserved: written as 0
 *
 * Its aux0 and aux1 are u64.
 */
struct grtrace_job2_wide {
	struct grtrace_hdr2 hdr;
	__u64 ctx;
	__u64 seqno;
	__u16 ring_id;
	__u8 engine;
	__u8 reserved;
} __attribute__((packed));

/* The optional parts of a v2 record, packed like it. */
struct grtrace_aux2 {
	__u32 aux0;
	__u32 aux1;
} __attribute__((packed));

struct grtrace_aux2_wide {
	__u64 aux0;
	__u64 aux1;
} __attribute__((packed));

struct grtrace_task2 {
	__u32 pid;
	__u32 tid;
} __attribute__((packed));

struct grtrace_gseq2 {
	__u64 gseq;
} __attribute__((packed));

#endif /* _UAPI_LINUX_GRTRACE_H */
