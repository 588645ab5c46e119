/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: the trace file written by "grtrace record".
 *
 * A file header, then frames.  Each frame holds whole records of one CPU's
 * stream, in that stream's order, as the recorder drained them; frames of
 * different CPUs interleave in whatever order the CPUs were drained.  A
 * reader walks the frame headers once (they chain by their lengths) to
 * list every CPU's frames, and merges the CPUs exactly, wherever in the
 * file each CPU's data landed.  Another file header where a frame is
 * expected begins another recording (files joined with cat): it is merged
 * after the one before.  The layout is in Documentation/gpu/grtrace.rst,
 * "The trace file"; every integer is little-endian.
 *
 * Files written before the trace file existed are a bare stream (records
 * only, no header); readers still take them.
 */
#ifndef GRTRACE_TRACE_FILE_H
#define GRTRACE_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

#define GRF_MAGIC		"GRTRACE\0"
#define GRF_MAGIC_LEN		8
/*
 * Version 2 added the task table frame, version 3 the client table frame;
 * versions 1 and 2 are still read.
 */
#define GRF_VERSION		3
#define GRF_VERSION_MIN		1
#define GRF_FIXED_SIZE		24u	/* header before its key=value text */
#define GRF_HEADER_MAX		4096u
#define GRF_FLAG_ZSTD		0x1	/* frames may be zstd-compressed */

#define GRF_FRAME_MAGIC		"GRFR"
#define GRF_FRAME_SIZE		16u
#define GRF_FRAME_ZSTD		0x1
/*
 * A task table, not records (version 2): GRF_TASK_SIZE-byte entries, each
 * u32 pid, u32 tid, the thread's comm and its process's comm (16 bytes
 * each, NUL-padded), for the threads the SUBMITs name.  Never compressed;
 * its CPU field is 0.
 */
#define GRF_FRAME_TASKS		0x2
#define GRF_TASK_SIZE		40u
#define GRF_COMM_LEN		16
/*
 * A client table (version 3): GRF_CLIENT_SIZE-byte entries, each u64 DRM
 * client id, u32 pid (thread group id) of the process holding the client's
 * file, u32 reserved (0), that process's comm (16 bytes, NUL-padded), for
 * the clients the SUBMITs name.  Never compressed; its CPU field is 0.
 */
#define GRF_FRAME_CLIENTS	0x4
#define GRF_CLIENT_SIZE		32u
/* More than any frame "record" writes; a reader refuses bigger ones. */
#define GRF_FRAME_MAX		(16u << 20)

/* The header, decoded; the text fields are NUL-terminated. */
struct grf_header {
	uint32_t size;		/* of the header, text and padding included */
	uint16_t version;
	uint16_t flags;
	uint32_t stream_format;	/* the kernel's GRTRACE_FORMAT_VERSION */
	uint32_t nr_cpus;
	char kernel[128];
	char host[128];
	char clock[32];
	uint64_t session;
	uint64_t started;	/* wall clock, seconds since the epoch */
};

struct grf_frame {
	uint16_t cpu;
	uint16_t flags;
	uint32_t stored;	/* bytes after the frame header */
	uint32_t raw;		/* bytes of records once decompressed */
};

/* A task table entry, decoded; the names are NUL-terminated. */
struct grf_task {
	uint32_t pid;
	uint32_t tid;
	char comm[GRF_COMM_LEN + 1];	/* the thread's */
	char process[GRF_COMM_LEN + 1];	/* its process's (main thread's) */
};

/* A client table entry, decoded; the name is NUL-terminated. */
/*
 * A CPU tail table (version 3): GRF_TAIL_SIZE-byte entries, u32 CPU, u32
 * reserved (0), u64 that CPU's next cseq once the session had stopped
 * and its channel had been read to the end.  Records the CPU lost after
 * its last written one took their cseq (format 2) but no later record
 * shows the gap: the difference does.  Written by a record that stopped
 * the session it started.  Never compressed; its CPU field is 0.
 */
#define GRF_FRAME_TAIL		0x8
#define GRF_TAIL_SIZE		16u
/*
 * A CPU head table (version 3), entries as the tail table's with the u64
 * that CPU's cseq when the session started: records lost on the CPU
 * before its first written one (in NMI) are its first record's cseq
 * minus that.  Written with the tail table, on the same condition.
 */
#define GRF_FRAME_HEAD		0x10

struct grf_tail {
	uint32_t cpu;
	uint64_t next;
};

struct grf_client {
	uint64_t id;
	uint32_t pid;
	char process[GRF_COMM_LEN + 1];
};

/* Whether @buf (@len bytes) begins with a file header's magic. */
int grf_is_header(const uint8_t *buf, size_t len);

/*
 * Decode the header at @buf; 0, or -1 with the problem in @why (worded
 * after "header at byte N: ").
 */
int grf_parse_header(const uint8_t *buf, size_t len, struct grf_header *h,
		     char *why, size_t whylen);

/* Decode the frame header at @buf; 0, or -1 with the problem in @why. */
int grf_parse_frame(const uint8_t *buf, size_t len, struct grf_frame *f,
		    char *why, size_t whylen);

/*
 * Encode @h into @buf (GRF_HEADER_MAX bytes): returns its size, a multiple
 * of 8.  h->size is ignored.
 */
size_t grf_encode_header(const struct grf_header *h, uint8_t *buf);

/* The 16 bytes of a frame header. */
void grf_encode_frame(const struct grf_frame *f, uint8_t *buf);

/* The GRF_TASK_SIZE bytes of a task table entry, and back. */
void grf_encode_task(const struct grf_task *t, uint8_t *buf);
void grf_parse_task(const uint8_t *buf, struct grf_task *t);
/* Thread @tid's entry in @n entries sorted by tid, or NULL. */
const struct grf_task *grf_find_task(const struct grf_task *t, size_t n,
				     uint32_t tid);
/* qsort()'s order of grf_find_task(): by tid. */
int grf_task_cmp(const void *a, const void *b);

/* The GRF_CLIENT_SIZE bytes of a client table entry, and back. */
void grf_encode_client(const struct grf_client *c, uint8_t *buf);
void grf_parse_client(const uint8_t *buf, struct grf_client *c);
void grf_encode_tail(const struct grf_tail *t, uint8_t *buf);
void grf_parse_tail(const uint8_t *buf, struct grf_tail *t);
/* Client @id's entry in @n entries sorted by id, or NULL. */
const struct grf_client *grf_find_client(const struct grf_client *c,
					 size_t n, uint64_t id);
/* qsort()'s order of grf_find_client(): by id. */
int grf_client_cmp(const void *a, const void *b);

/*
 * Decompress a zstd frame's @stored bytes at @src into @dst, which must
 * hold exactly @raw bytes: 0, or -1 with the problem in @why.
 */
int grf_decompress(void *dst, size_t raw, const void *src, size_t stored,
		   char *why, size_t whylen);

/*
 * Compress @len bytes at @src for a frame with @level: the compressed size
 * in *@outp (a buffer of this thread's, valid until its next call), or -1
 * if compressing did not pay or failed (the frame is then stored raw).
 */
long grf_compress(const void *src, size_t len, int level, void **outp);
/* Free this thread's compression state. */
void grf_compress_done(void);

#endif /* GRTRACE_TRACE_FILE_H */
