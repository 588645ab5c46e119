/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgrtrace: read what "grtrace record" writes -- a trace file, or a bare
 * stream -- and analyse it as "grtrace report" does.
 *
 * The library is the one C reader of the grtrace stream and trace file
 * (Documentation/gpu/grtrace.rst, "Stream format" and "The trace file"):
 * the grtrace tool, its fuzz target, its tests and the Python binding
 * (grtrace.py) are its clients.  It never prints and never exits: every
 * failure comes back as a value, with a struct grtrace_error that says
 * where (a byte offset of the input) and what.
 *
 * Handles are opaque.  A handle is used by one thread at a time.  A NULL
 * handle is refused (GRTRACE_ERR_INVAL, "no trace handle"; 0 from the
 * calls that return a number), never followed; a closed one must not be
 * passed again (a binding sets its copy to NULL when it closes it).
 */
#ifndef GRTRACE_GRTRACE_H
#define GRTRACE_GRTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of this interface: major << 16 | minor.  The major is the
 * shared library's SONAME (libgrtrace.so.1); a minor adds, never changes.
 */
#define GRTRACE_LIB_VERSION_MAJOR	1
#define GRTRACE_LIB_VERSION_MINOR	4
#define GRTRACE_LIB_VERSION	\
	((GRTRACE_LIB_VERSION_MAJOR << 16) | GRTRACE_LIB_VERSION_MINOR)

#if defined(GRTRACE_BUILD) && defined(__GNUC__)
#define GRTRACE_API	__attribute__((visibility("default")))
#else
#define GRTRACE_API
#endif

/* GRTRACE_LIB_VERSION of the library loaded (may be newer than the header's). */
GRTRACE_API unsigned int grtrace_lib_version(void);

/* What went wrong. */
enum grtrace_status {
	GRTRACE_OK = 0,
	GRTRACE_ERR_IO,		/* the input could not be read (errno in @sys) */
	GRTRACE_ERR_NOMEM,	/* out of memory */
	GRTRACE_ERR_INPUT,	/* truncated or corrupt input at @offset */
	GRTRACE_ERR_INVAL,	/* a bad argument (an unknown format, ...) */
	GRTRACE_ERR_OUTPUT,	/* the output could not be written */
};

/*
 * Structs that grow: every struct a caller allocates and the library
 * fills or reads (grtrace_error, grtrace_record, grtrace_job, the
 * grtrace_info_* records, grtrace_report_opts, grtrace_channels) begins
 * with a @size: the caller sets it to sizeof() of its struct (zero the
 * rest, e.g. with the struct's GRTRACE_*_INIT initialiser).  A later version of this header
 * adds fields only at the end, so
 *
 *  - a caller built against an older header (a smaller @size) gets the
 *    fields that fit in its @size, and not one byte past it;
 *  - a caller built against a newer header (a bigger @size) gets the
 *    fields this library knows; the bytes after them are left as the
 *    caller set them, and the library says how far it filled in @size
 *    (all but struct grtrace_error, whose @size it never changes);
 *  - a @size below the struct's GRTRACE_1 minimum (GRTRACE_*_SIZE_1: the
 *    struct as this header first gave it @size; GRTRACE_*_SIZE_1_4 for a
 *    struct that came in 1.4, and for the fields of 1.4 that a call
 *    needs) is refused: the call fails with GRTRACE_ERR_INVAL in *@err,
 *    naming the struct and both sizes, and writes nothing into the
 *    struct.
 *
 * A struct grtrace_error with a @size below GRTRACE_ERROR_SIZE_1 cannot
 * carry that news: the call fails (NULL, or -1) without reading its input
 * or writing the struct, and sets errno to EINVAL.  A NULL @err is fine.
 * The same holds for the calls of grtrace/timeline.h.
 */

/**
 * struct grtrace_error - why a call failed
 * @size: sizeof(struct grtrace_error), set by the caller
 * @status: enum grtrace_status
 * @sys: the errno, for GRTRACE_ERR_IO and GRTRACE_ERR_OUTPUT, else 0
 * @offset: the byte of the input at fault (GRTRACE_ERR_INPUT), else 0
 * @msg: one line without a newline, naming the problem (and the byte)
 *
 * Every call of this header that takes one clears it (but @size) first.
 */
struct grtrace_error {
	uint32_t size;
	int32_t status;
	int32_t sys;
	uint32_t reserved;
	uint64_t offset;
	char msg[448];
};
#define GRTRACE_ERROR_SIZE_1	472u
#define GRTRACE_ERROR_INIT	{ .size = sizeof(struct grtrace_error) }

typedef struct grtrace_trace grtrace_trace;

/*
 * Open @path: a trace file of "grtrace record", several joined with cat,
 * or a bare stream.  NULL and *@err on failure (@err may be NULL).  A
 * regular file is read with pread(), in windows of 256 KiB (mapped and
 * read in place when GRTRACE_MMAP=1 is in the environment).
 * Another program that cuts the file while it is read ends its records
 * at the cut, with the error "cannot read byte N: the file shrank"
 * (mapped: SIGBUS); one that rewrites it in place, with an error at the
 * first record found bad, or not at all; appending to it is harmless.
 */
GRTRACE_API grtrace_trace *grtrace_open(const char *path,
					struct grtrace_error *err);
/* The same for @len bytes at @buf, which must outlive the handle. */
GRTRACE_API grtrace_trace *grtrace_open_mem(const void *buf, size_t len,
					    struct grtrace_error *err);
/*
 * Since 1.1: grtrace_open_mem() of a bare stream whose reader is told its
 * stream format (@format 1 or 2; 0: its first record says, a STREAM_INFO,
 * else a job event's size) and, in format 2, the CPU of its one channel
 * (@cpu: format 2 records do not say it).  A format 2 stream is read as
 * one frame at byte 0: its records' offset is 0, an error names the byte
 * of the stream.  A trace file says both itself: @format and @cpu are
 * then not used.
 */
GRTRACE_API grtrace_trace *grtrace_open_mem_as(const void *buf, size_t len,
					       unsigned int format,
					       unsigned int cpu,
					       struct grtrace_error *err);
/*
 * Since 1.2: grtrace_open_mem_as() for a file, read as grtrace_open()
 * reads it (in windows, never whole).
 */
GRTRACE_API grtrace_trace *grtrace_open_as(const char *path,
					   unsigned int format,
					   unsigned int cpu,
					   struct grtrace_error *err);
/*
 * Since 1.4: grtrace_open() of the regular file open for reading at @fd
 * (standard input copied to a temporary file, ...).  The handle reads a
 * duplicate of @fd, as grtrace_open() reads a file (a file cut while it
 * is read ends the records at the cut, as there): the caller keeps and
 * closes its own.
 */
GRTRACE_API grtrace_trace *grtrace_open_fd(int fd, struct grtrace_error *err);

/**
 * struct grtrace_channels - live per-CPU channels (the module's events<cpu>)
 * @size: sizeof(struct grtrace_channels), set by the caller
 * @n: the channels: entries of @fds and @names
 * @format: their stream format (1 or 2): the module's
 * @fds: each read to its end, once (not closed: the caller's)
 * @names: for messages; a channel's CPU is the number its name ends with
 *	("events3", "x.bin, channel 3"): format 2 records do not say it
 * @nstats, @stat_keys, @stat_vals: the module's stats file (key=value
 *	lines), whose drop counters a report prints beside its records;
 *	@nstats 0: none read
 */
struct grtrace_channels {
	uint32_t size;
	uint32_t n;
	uint32_t format;
	uint32_t nstats;
	const int *fds;
	const char *const *names;
	const char *const *stat_keys;
	const uint64_t *stat_vals;
};
#define GRTRACE_CHANNELS_SIZE_1_4	48u
#define GRTRACE_CHANNELS_INIT	{ .size = sizeof(struct grtrace_channels) }

/*
 * Since 1.4: the records of @c's channels, merged by gseq as a trace
 * file's CPUs are.  A pipe is read as it comes, so the handle is read
 * once: after its records (or a report of them) it is at its end, and
 * grtrace_rewind() gives an empty input.  @c is copied; the names are
 * kept.  NULL and *@err on failure.
 */
GRTRACE_API grtrace_trace *grtrace_open_channels(const struct grtrace_channels *c,
						 struct grtrace_error *err);
GRTRACE_API void grtrace_close(grtrace_trace *t);
/*
 * Since 1.2: a second handle on @t's input, at its start, with its own
 * place in the records, jobs and rows: two readers of one input need not
 * rewind each other.  The file is not opened again (a file removed since
 * grtrace_open() is still read); memory input must outlive both.  NULL
 * and *@err on failure.
 */
GRTRACE_API grtrace_trace *grtrace_dup(const grtrace_trace *t,
				       struct grtrace_error *err);

/* The input's stream format (1 or 2) and trace file version (0: a stream). */
GRTRACE_API unsigned int grtrace_stream_format(const grtrace_trace *t);
GRTRACE_API unsigned int grtrace_file_version(const grtrace_trace *t);

/**
 * struct grtrace_record - one record, the CPUs merged in gseq order
 * @size: sizeof(struct grtrace_record), set by the caller (the library
 *	sets it to the bytes it filled)
 * @offset: of the record in the input; of its frame in a trace file whose
 *	frames are compressed or in format 2
 * @part: which part of the input (recordings joined with cat), from 0
 * @type: GRTRACE_EV_* or a control type of include/uapi/linux/grtrace.h,
 *	in format 1 numbering; unknown types are kept
 * @rec_size: the record's size in the input
 * @cpu, @flags, @ts, @gseq, @cseq: its header, widened as the report does
 * @is_job: a job event: the fields below are set
 * @ctx, @seqno, @ring, @engine, @aux0, @aux1: the job event's
 * @has_task, @pid, @tid: its task (a SUBMIT that carries it)
 * @has_client, @client: its DRM client (a SUBMIT flagged CLIENT)
 */
struct grtrace_record {
	uint32_t size;
	uint32_t part;
	uint64_t offset;
	uint16_t type;
	uint16_t rec_size;
	uint16_t cpu;
	uint16_t flags;
	uint32_t is_job;
	uint64_t ts, gseq, cseq;
	uint64_t ctx, seqno;
	uint32_t ring;
	uint16_t engine;
	uint16_t has_task;
	uint64_t aux0, aux1;
	uint32_t pid, tid;
	uint32_t has_client;
	uint32_t reserved;
	uint64_t client;
};
#define GRTRACE_RECORD_SIZE_1	120u
#define GRTRACE_RECORD_INIT	{ .size = sizeof(struct grtrace_record) }

/*
 * The next record: 1, 0 at the end, or -1 with *@err (the records before
 * a truncated or corrupt one are delivered first).  Not with
 * grtrace_next_job() on the same handle.
 */
GRTRACE_API int grtrace_next_record(grtrace_trace *t,
				    struct grtrace_record *r,
				    struct grtrace_error *err);

/*
 * Since 1.3: up to @n of the next records into @r[0 .. @n - 1], as
 * grtrace_next_record() gives them one by one: how many (1 .. @n), 0 at
 * the end, or -1 with *@err (the records before a truncated or corrupt
 * one come first: the call after them fails).  A batch ends early after
 * a record that is not a job event, so grtrace_info_*() read that one (as
 * they read grtrace_next_record()'s last).  The records are @r[0].size
 * bytes apart, each filled as a struct of that size (at least
 * GRTRACE_RECORD_SIZE_1): set the first one's .size before every call.
 * Each record's .size is then what the library filled, as elsewhere: in a
 * struct bigger than this library's, less than the stride, which a .size
 * set once would make the next call's.  For bindings,
 * where a call per record costs more than reading it: one call for
 * thousands.
 */
GRTRACE_API int grtrace_next_records(grtrace_trace *t,
				     struct grtrace_record *r, unsigned int n,
				     struct grtrace_error *err);

/*
 * Since 1.2: what a control record says, typed.  Each call reads the
 * record grtrace_next_record() delivered last on @t (until the next call
 * on @t of anything but these).  Each struct begins with @size (see
 * "Structs that grow" above): set it to sizeof() of your struct; the
 * library fills as many bytes as it has and both know, and sets @size to
 * that.  1 when the record is of the type (and
 * @i names an entry), 0 when not (the struct is left as it was), -1 with
 * *@err (a bad argument; no record yet).
 */

/* STREAM_INFO: the session's parameters. */
struct grtrace_info_stream {
	uint32_t size;
	uint32_t magic;		/* 0x52545247, "GRTR" (else the input ended) */
	uint32_t version;	/* the stream format's version */
	uint32_t hdr_size;
	uint32_t clock_id;	/* the clock of ts: CLOCK_MONOTONIC, ... */
	uint32_t nr_cpus;
	uint64_t features;	/* GRTRACE_FEAT_* of the uapi header */
	uint64_t session_id;
};
#define GRTRACE_INFO_STREAM_SIZE_1	40u
#define GRTRACE_INFO_STREAM_INIT	{ .size = sizeof(struct grtrace_info_stream) }
GRTRACE_API int grtrace_info_stream(grtrace_trace *t,
				    struct grtrace_info_stream *si,
				    struct grtrace_error *err);

/*
 * A ring: entry @i of a METADATA's ring table (1 while @i < its number
 * of rings), or a RING record's one ring (@i 0).
 */
struct grtrace_info_ring {
	uint32_t size;
	uint32_t ring_id;
	uint16_t engine;	/* grtrace_engine_name() */
	uint16_t instance;
	uint32_t nr_rings;	/* in the record: METADATA's table, RING's 1 */
	char driver[17];	/* NUL-terminated */
	char device[33];
	char name[25];
	char reserved[5];
};
#define GRTRACE_INFO_RING_SIZE_1	96u
#define GRTRACE_INFO_RING_INIT	{ .size = sizeof(struct grtrace_info_ring) }
GRTRACE_API int grtrace_info_ring(grtrace_trace *t, unsigned int i,
				  struct grtrace_info_ring *ri,
				  struct grtrace_error *err);

/* TRIGGER: why the flight recorder froze, and when. */
#define GRTRACE_INFO_NO_RING	0xffffffffu
struct grtrace_info_trigger {
	uint32_t size;
	uint32_t cause;		/* 1 manual, 2 timeout, 3 error */
	uint32_t ring_id;	/* GRTRACE_INFO_NO_RING: none */
	uint32_t cpu;
	uint64_t ctx, seqno;	/* both 0: no job named */
	int64_t error;
	uint64_t frozen_ts;
	uint64_t later_triggers;
};
#define GRTRACE_INFO_TRIGGER_SIZE_1	56u
#define GRTRACE_INFO_TRIGGER_INIT	{ .size = sizeof(struct grtrace_info_trigger) }
GRTRACE_API int grtrace_info_trigger(grtrace_trace *t,
				     struct grtrace_info_trigger *ti,
				     struct grtrace_error *err);

/* RECORDER: one CPU's accounting in a snapshot -- what it kept and lost. */
struct grtrace_info_loss {
	uint32_t size;
	uint32_t cpu;
	uint64_t first_ts, last_ts;
	uint64_t emitted;	/* records the CPU wrote */
	uint64_t kept;		/* in the snapshot */
	uint64_t overwritten;	/* lost to the ring's wrap */
	uint64_t dropped;	/* lost: no room */
	uint64_t buffer_size;
};
#define GRTRACE_INFO_LOSS_SIZE_1	64u
#define GRTRACE_INFO_LOSS_INIT	{ .size = sizeof(struct grtrace_info_loss) }
GRTRACE_API int grtrace_info_loss(grtrace_trace *t,
				  struct grtrace_info_loss *li,
				  struct grtrace_error *err);
/*
 * Since 1.3: 1 when @li's accounting holds -- every record the CPU
 * emitted was kept, overwritten or dropped, emitted = kept + overwritten
 * + dropped exactly (a sum that wraps does not) -- else 0 (and for NULL
 * or a @size below GRTRACE_INFO_LOSS_SIZE_1).
 */
GRTRACE_API int grtrace_loss_balanced(const struct grtrace_info_loss *li);

/*
 * Since 1.4: a METADATA's own fields (its rings: grtrace_info_ring()).
 */
struct grtrace_info_metadata {
	uint32_t size;
	uint32_t nr_rings;
	uint16_t ring_size;	/* bytes of a ring table entry */
	char kernel[65];	/* NUL-terminated: the kernel's release */
	char reserved[5];
};
#define GRTRACE_INFO_METADATA_SIZE_1_4	80u
#define GRTRACE_INFO_METADATA_INIT	{ .size = sizeof(struct grtrace_info_metadata) }
GRTRACE_API int grtrace_info_metadata(grtrace_trace *t,
				      struct grtrace_info_metadata *mi,
				      struct grtrace_error *err);

/*
 * Since 1.4: JOB_SUMMARY, a job in one record (the sampling module's):
 * @events and @derived bit n for event type n (SUBMIT .. COMPLETE),
 * whose time is @ts[n - 1]; @reason GRTRACE_SUMMARY_* of the uapi header.
 */
struct grtrace_info_summary {
	uint32_t size;
	uint32_t ring_id;
	uint16_t engine;
	uint16_t events;
	uint16_t derived;
	uint16_t reason;
	uint64_t ctx, seqno;
	uint32_t pid, tid;
	uint32_t waits;
	uint32_t reserved;
	uint64_t ts[5];
	uint64_t wait_ns;
	uint64_t threshold;
};
#define GRTRACE_INFO_SUMMARY_SIZE_1_4	104u
#define GRTRACE_INFO_SUMMARY_INIT	{ .size = sizeof(struct grtrace_info_summary) }
GRTRACE_API int grtrace_info_summary(grtrace_trace *t,
				     struct grtrace_info_summary *si,
				     struct grtrace_error *err);

/*
 * Since 1.4: the bytes of the record grtrace_next_record() delivered
 * last (of a batch, its last), *@len of them, in format 1 (a format 2
 * record as it was converted), valid until the next call on @t; NULL
 * and *@len 0 when there is none.
 */
GRTRACE_API const void *grtrace_record_bytes(grtrace_trace *t, size_t *len);

/* Since 1.4: a trace file's first header, decoded. */
#define GRTRACE_FILE_ZSTD	(1u << 0)	/* frames may be compressed */
struct grtrace_info_file {
	uint32_t size;
	uint32_t version;	/* of the trace file */
	uint32_t flags;		/* GRTRACE_FILE_* */
	uint32_t stream_format;
	uint32_t nr_cpus;
	char kernel[129];	/* NUL-terminated, as "record" wrote them */
	char host[129];
	char clock[33];
	char reserved[1];
	uint64_t session;
	uint64_t started;	/* wall clock, seconds since the epoch */
};
#define GRTRACE_INFO_FILE_SIZE_1_4	328u
#define GRTRACE_INFO_FILE_INIT	{ .size = sizeof(struct grtrace_info_file) }
/* 1 and *@fi for a trace file, 0 for a bare stream, -1 and *@err. */
GRTRACE_API int grtrace_info_file(const grtrace_trace *t,
				  struct grtrace_info_file *fi,
				  struct grtrace_error *err);

/*
 * Since 1.4: the stream format a channel's first bytes say (2 or 1: a
 * STREAM_INFO of that format), 0 when they do not begin with one.
 */
GRTRACE_API unsigned int grtrace_stream_format_of(const void *buf, size_t len);
/* Since 1.4: "monotonic", "boottime", ...; another clock as its number. */
GRTRACE_API const char *grtrace_clock_name(unsigned int clock, char *buf,
					   size_t len);
/* Since 1.4: "manual", "timeout", "error"; another as "cause_N". */
GRTRACE_API const char *grtrace_trigger_cause_name(unsigned int cause,
						   char *buf, size_t len);

/*
 * Since 1.4: writing what "grtrace record" and "grtrace recorder" write.
 * A trace file is a header, then frames, each a 16-byte frame header and
 * its body (Documentation/gpu/grtrace.rst, "The trace file"): these
 * calls encode each piece into the caller's buffer, and the caller
 * writes them in that order wherever it writes.  A frame of records
 * holds whole records of one CPU's channel, as grtrace_check_record()
 * cut them; a table frame holds whole entries.
 */
#define GRTRACE_FILE_HEADER_MAX	4096u	/* a header's bytes at most */
#define GRTRACE_FRAME_HDR_SIZE	16u
#define GRTRACE_FRAME_MAX	(16u << 20)	/* a frame's body at most */
/* A frame's kind and state (its header's flags). */
#define GRTRACE_FRAME_ZSTD	(1u << 0)	/* the body is compressed */
#define GRTRACE_FRAME_TASKS	(1u << 1)	/* a task table */
#define GRTRACE_FRAME_CLIENTS	(1u << 2)	/* a client table */
#define GRTRACE_FRAME_TAIL	(1u << 3)	/* each CPU's next cseq at the end */
#define GRTRACE_FRAME_HEAD	(1u << 4)	/* each CPU's cseq at the start */
/* The entries of the table frames, and a task table's names. */
#define GRTRACE_TASK_SIZE	40u
#define GRTRACE_CLIENT_SIZE	32u
#define GRTRACE_TAIL_SIZE	16u
#define GRTRACE_TASK_COMM_LEN	16

/*
 * A header of the newest version (grtrace_file_versions()) from @h
 * (its @version ignored; @flags GRTRACE_FILE_ZSTD when frames may be
 * compressed; the strings cut where they do not fit) into @buf, which
 * holds GRTRACE_FILE_HEADER_MAX bytes: its size, a multiple of 8, or -1
 * and *@err (@h's @size below GRTRACE_INFO_FILE_SIZE_1_4).
 */
GRTRACE_API long grtrace_encode_file_header(const struct grtrace_info_file *h,
					    void *buf,
					    struct grtrace_error *err);
/* A frame header: CPU @cpu's (0 for a table), GRTRACE_FRAME_* @flags. */
GRTRACE_API void grtrace_encode_frame(unsigned int cpu, unsigned int flags,
				      uint32_t stored, uint32_t raw, void *buf);
/* A task table entry (GRTRACE_TASK_SIZE bytes): thread @tid of @pid. */
GRTRACE_API void grtrace_encode_task(uint32_t pid, uint32_t tid,
				     const char *comm, const char *process,
				     void *buf);
/*
 * A client table entry (GRTRACE_CLIENT_SIZE bytes): DRM client @id, held
 * by process @pid named @process.  A table's entries go by @id, rising.
 */
GRTRACE_API void grtrace_encode_client(uint64_t id, uint32_t pid,
				       const char *process, void *buf);
/* A tail or head table entry (GRTRACE_TAIL_SIZE bytes). */
GRTRACE_API void grtrace_encode_tail(uint32_t cpu, uint64_t cseq, void *buf);
/*
 * @len bytes of records at @src compressed for a frame (zstd @level):
 * the size, the bytes at *@out (this thread's buffer, valid until its
 * next call), or -1 when it does not pay or fails (store it raw).
 * grtrace_compress_done() frees this thread's state.
 */
GRTRACE_API long grtrace_compress_frame(const void *src, size_t len,
					int level, void **out);
GRTRACE_API void grtrace_compress_done(void);

/*
 * Since 1.4: the records of one channel as they are read, checked one by
 * one before they are written: format @format (1 or 2), of CPU @cpu
 * (format 2 records do not say it).  NULL and *@err on failure.
 */
typedef struct grtrace_checker grtrace_checker;
GRTRACE_API grtrace_checker *grtrace_checker_new(unsigned int format,
						 unsigned int cpu,
						 struct grtrace_error *err);
/*
 * The record at @p, of which @avail bytes are there: its size in the
 * channel (> 0) and *@r (as grtrace_next_record() gives it: a format 2
 * record as the format 1 record it stands for, @offset 0), 0 when more
 * bytes are needed to tell (err->msg says what is missing, err->status
 * is GRTRACE_OK: a channel that ends there is truncated), or -1 and
 * *@err (GRTRACE_ERR_INPUT: the record is corrupt; err->msg says why,
 * without where: the caller knows).
 * The checker follows the channel: hand it every record once, in order.
 */
GRTRACE_API long grtrace_check_record(grtrace_checker *c, const void *p,
				      size_t avail, struct grtrace_record *r,
				      struct grtrace_error *err);
GRTRACE_API void grtrace_checker_free(grtrace_checker *c);

/* The forms of grtrace_next_rows(). */
enum { GRTRACE_ROWS_CSV, GRTRACE_ROWS_JSON };

/*
 * Since 1.1: the next records as rows of text, about 256 KiB of whole
 * lines at a time, in @form: GRTRACE_ROWS_CSV (a header line first) or
 * GRTRACE_ROWS_JSON (an object per line).  Returns the rows, *@len bytes
 * valid until the next call on @t; NULL and *@len 0 at the end, or with
 * *@err set (err->status) after the rows before a bad record.
 *
 * One row per record, the CPUs merged as grtrace_next_record() merges
 * them; after the records, a row per entry of a trace file's task table
 * (type TASK) and client table (type CLIENT), one per tid and per client
 * id, in the last part.  CSV columns: offset, part, cpu, ts, gseq, cseq,
 * type, derived (0 or 1), then for a job event ctx, seqno, ring, engine
 * (its name), aux0 (ERROR's signed), aux1, pid and tid (a SUBMIT that
 * carries its task); "fields": key=value pairs separated by spaces (a
 * control record's decoded body; an unknown type's size; a TASK's comm
 * and process, a CLIENT's process); last, client (a SUBMIT flagged
 * CLIENT; a CLIENT row's id).  JSON: the same values, null where CSV has
 * an empty cell, "fields" an object; the keys of a job event offset, cpu,
 * ts, gseq, cseq, derived, type, ctx, seqno, ring, engine, aux0, aux1,
 * pid, tid, client; of other records offset ... type, fields; of a TASK
 * or CLIENT offset (null), cpu, ts, gseq, cseq (null), type, derived
 * (null), pid, tid or client, fields; "part" last.  Bytes of strings
 * outside ASCII are written as "\xNN".  This is the output of
 * scripts/parse_events.py.  Not with grtrace_next_job() on the same
 * handle (grtrace_next_record() shares its place in the input).
 */
GRTRACE_API const char *grtrace_next_rows(grtrace_trace *t, unsigned int form,
					  size_t *len,
					  struct grtrace_error *err);

/* "SUBMIT", ..., "STREAM_INFO"; unknown types as "TYPE_0x..." in @buf. */
GRTRACE_API const char *grtrace_type_name(unsigned int type, char *buf,
					  size_t len);
/* "gfx", ...; an unknown class as its number in @buf. */
GRTRACE_API const char *grtrace_engine_name(unsigned int engine, char *buf,
					    size_t len);

/* The points of a job's life, and its metrics (as report's columns). */
enum { GRTRACE_TS_SUBMIT, GRTRACE_TS_COMMIT, GRTRACE_TS_START,
       GRTRACE_TS_END, GRTRACE_TS_COMPLETE, GRTRACE_NR_TS };
enum { GRTRACE_M_SUBMIT_HOST, GRTRACE_M_QUEUE, GRTRACE_M_EXEC,
       GRTRACE_M_GPU_WAIT, GRTRACE_M_COMPLETE, GRTRACE_M_TOTAL,
       GRTRACE_NR_METRICS };

/**
 * struct grtrace_job - a job as "grtrace report" closes it
 * @size: sizeof(struct grtrace_job), set by the caller (the library sets
 *	it to the bytes it filled)
 * @ctx, @seqno: its fence's context and seqno
 * @ring_id, @engine: its ring (the stream's ring id) and engine class
 * @have_ts: bit GRTRACE_TS_* set where @ts holds that point
 * @start_derived: the START is derived (max(COMMIT, previous END))
 * @have_metric: bit GRTRACE_M_* set where @metric holds a value (ns)
 * @labels: bit n: label n of grtrace_label_name()
 * @preempts, @errors, @error: CTX_SWITCHes away while it ran, ERROR events,
 *	the last one's aux0 (a negative errno)
 * @qsize: its ring's queue depth at its COMMIT, itself included
 * @has_task, @pid, @tid, @has_client, @client: who submitted it
 */
struct grtrace_job {
	uint32_t size;
	uint32_t reserved;
	uint64_t ctx, seqno;
	uint32_t ring_id;
	uint16_t engine;
	uint8_t have_ts;
	uint8_t start_derived;
	uint64_t ts[GRTRACE_NR_TS];
	uint32_t have_metric;
	uint32_t labels;
	uint64_t metric[GRTRACE_NR_METRICS];
	uint32_t preempts, errors;
	int64_t error;
	uint32_t qsize;
	uint32_t has_task, pid, tid, has_client;
	uint64_t client;
};
#define GRTRACE_JOB_SIZE_1	176u
#define GRTRACE_JOB_INIT	{ .size = sizeof(struct grtrace_job) }

/* "t_submit_host", ... of GRTRACE_M_*, and the labels ("long_queue", ...). */
GRTRACE_API const char *grtrace_metric_name(unsigned int m);
GRTRACE_API const char *grtrace_label_name(unsigned int l);

/*
 * The next job the analysis closes, with the default rules: 1, 0 at the
 * end, -1 with *@err (the jobs of the records before a bad one first).
 */
GRTRACE_API int grtrace_next_job(grtrace_trace *t, struct grtrace_job *j,
				 struct grtrace_error *err);

/*
 * "grtrace report" of the whole input into @out: @format is a name of
 * grtrace_format_name() ("csv" gives rows), @args the report's options as
 * on its command line (NULL-terminated; NULL for none), e.g. {"--per-ring",
 * NULL}.  0, or -1 with *@err; the report is written in both cases (an
 * input error is in its summary).  Resets the handle to its start.
 */
GRTRACE_API int grtrace_report(grtrace_trace *t, const char *format,
			       const char *const *args, FILE *out,
			       struct grtrace_error *err);

/*
 * Since 1.2: the report's options as a struct.  Set @size to
 * sizeof(struct grtrace_report_opts) and zero what you do not set
 * (GRTRACE_REPORT_OPTS_INIT): the library reads no byte past @size, a
 * field a later version adds keeps its default for a smaller struct, and
 * a @size below GRTRACE_REPORT_OPTS_SIZE_1 is refused.
 */
#define GRTRACE_REPORT_PER_RING		(1u << 0)
#define GRTRACE_REPORT_PER_CTX		(1u << 1)
#define GRTRACE_REPORT_PER_PROCESS	(1u << 2)
#define GRTRACE_REPORT_PER_ENGINE	(1u << 3)
#define GRTRACE_REPORT_LIMIT		(1u << 4)	/* @limit is set */
/*
 * Since 1.4: the rest of "grtrace report"'s options (its --why, --since,
 * ...), each flag saying that its field is set (a library before 1.4
 * refuses the flags it does not know: GRTRACE_ERR_INVAL).
 */
#define GRTRACE_REPORT_WHY		(1u << 5)	/* each job's wait, attributed */
#define GRTRACE_REPORT_SINCE		(1u << 6)	/* @since is set */
#define GRTRACE_REPORT_UNTIL		(1u << 7)	/* @until is set */
#define GRTRACE_REPORT_RING		(1u << 8)	/* @ring's jobs only */
#define GRTRACE_REPORT_CTX		(1u << 9)	/* @ctx's jobs only */
#define GRTRACE_REPORT_ENGINE		(1u << 10)	/* @engines' jobs only */
#define GRTRACE_REPORT_INTERVAL		(1u << 11)	/* @interval: a timeline */
#define GRTRACE_REPORT_MAX_OPEN		(1u << 12)	/* @max_open is set */
#define GRTRACE_REPORT_CRITICAL		(1u << 13)	/* @cp_ctx:@cp_seqno's path */
#define GRTRACE_REPORT_CRITICAL_SLOWEST	(1u << 14)	/* each process's slowest's */
#define GRTRACE_REPORT_THREAD		(1u << 15)	/* merge in a thread apart */
enum { GRTRACE_HIST_NONE, GRTRACE_HIST_LAT, GRTRACE_HIST_SIZE,
       GRTRACE_HIST_RESULT };
/* Since 1.4: the rules of the labels, bits of @rules_set. */
enum { GRTRACE_RULE_LONG_QUEUE_US, GRTRACE_RULE_SLOW_EXEC_US,
       GRTRACE_RULE_DEP_WAIT_US, GRTRACE_RULE_PREEMPT_MIN,
       GRTRACE_RULE_BUSY_PCT, GRTRACE_RULE_QUEUE_RATIO,
       GRTRACE_RULE_HANG_MS, GRTRACE_NR_RULES };

/**
 * struct grtrace_report_opts - a report's options ("grtrace report"'s)
 * @size: sizeof(struct grtrace_report_opts), set by the caller
 * @flags: GRTRACE_REPORT_*: the summaries, and which fields below are set
 * @topn: the N slowest jobs (0: none; at most 1000000, 100000 before 1.4)
 * @hist: GRTRACE_HIST_*
 * @limit: with GRTRACE_REPORT_LIMIT: job rows printed at most
 *
 * Since 1.4 (a smaller @size leaves them at their defaults):
 * @ring, @ctx, @engines: the jobs selected (@engines: bit n, class n)
 * @since, @until: ns after the first record: the jobs whose first event
 *	is in [@since, @until)
 * @interval: ns (1000 at least), with GRTRACE_REPORT_PER_RING: each
 *	ring's busy share per interval (default 100 ms for the hint)
 * @max_open: jobs held open at most, 1 .. 2^31 - 1 (default 131072)
 * @cp_ctx, @cp_seqno: with GRTRACE_REPORT_CRITICAL: the job whose
 *	critical path is printed (text and JSON; implies GRTRACE_REPORT_WHY)
 * @rules_set: bit GRTRACE_RULE_* where the rule's field is set, else the
 *	default (grtrace_report_rule() sets a rule from its text and checks
 *	it; a value set here is checked by the report the same way)
 * @long_queue_us, @slow_exec_us, @dep_wait_us, @preempt_min, @hang_ms,
 * @busy_pct, @queue_ratio: the rules, as the report's --rules keys
 * @name: the input's name in the report (NULL: "input")
 * @warn: said once each, a line without a newline, while the report runs
 *	(NULL: not said); @warn_arg is passed to it
 */
struct grtrace_report_opts {
	uint32_t size;
	uint32_t flags;
	uint32_t topn;
	uint32_t hist;
	uint64_t limit;
	/* 1.4 */
	uint32_t ring;
	uint32_t rules_set;
	uint64_t ctx;
	uint64_t engines;
	uint64_t since, until;
	uint64_t interval;
	uint64_t max_open;
	uint64_t cp_ctx, cp_seqno;
	uint64_t long_queue_us, slow_exec_us, dep_wait_us, preempt_min;
	uint64_t hang_ms;
	double busy_pct, queue_ratio;
	const char *name;
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};
#define GRTRACE_REPORT_OPTS_SIZE_1	24u
#define GRTRACE_REPORT_OPTS_SIZE_1_4	176u
#define GRTRACE_REPORT_OPTS_INIT	{ .size = sizeof(struct grtrace_report_opts) }

/*
 * Since 1.4: set rule @key (a --rules key: "long_queue_us", ...,
 * "hang_ms") of @o to @value, as the report reads it from a rules file:
 * 0, or -1 and *@err (GRTRACE_ERR_INVAL: an unknown key, or a value out
 * of the rule's range).  @o's @size must hold the rules.
 */
GRTRACE_API int grtrace_report_rule(struct grtrace_report_opts *o,
				    const char *key, const char *value,
				    struct grtrace_error *err);

/*
 * Since 1.4: 1 if output format @name writes one table (CSV: the jobs,
 * or the one summary asked for), 0 if it writes several, -1 if it is no
 * format of grtrace_output_format().
 */
GRTRACE_API int grtrace_format_one_table(const char *name);

/*
 * Since 1.2: grtrace_report() with its options as a struct (@o NULL:
 * the defaults).  grtrace_report()'s strings are parsed into one.  A
 * format of export (grtrace_output_format()), "perfetto", is written per
 * ring.  An input error (GRTRACE_ERR_INPUT: err->msg says it, without the
 * input's name) is also in the report's summary; GRTRACE_ERR_OUTPUT with
 * @sys 0 means the output format could not write what it was given (the
 * message says why), with @sys set that @out could not be written.
 * Starts at the handle's first record (but a grtrace_open_channels()
 * handle's, which is read once) and resets the handle after.
 */
GRTRACE_API int grtrace_report_with(grtrace_trace *t, const char *format,
				    const struct grtrace_report_opts *o,
				    FILE *out, struct grtrace_error *err);

/* The report's output formats: the @i-th name (or NULL past the last). */
GRTRACE_API const char *grtrace_format_name(unsigned int i);
GRTRACE_API const char *grtrace_format_summary(unsigned int i);

/*
 * Since 1.3: every output format, those only "grtrace export" writes
 * included: the @i-th name (or NULL past the last), its one-line summary
 * in *@summary and 1 in *@export_only for a format of export alone, else
 * 0 (either pointer may be NULL).
 */
GRTRACE_API const char *grtrace_output_format(unsigned int i,
					      const char **summary,
					      int *export_only);

/*
 * Since 1.3: the versions of the trace file this library reads, the
 * oldest and the newest (the one "grtrace record" writes).
 */
GRTRACE_API void grtrace_file_versions(unsigned int *oldest,
				       unsigned int *newest);

/* Start @t's records and jobs over from the beginning of its input. */
GRTRACE_API int grtrace_rewind(grtrace_trace *t, struct grtrace_error *err);

/*
 * Since 1.2: "grtrace diff" of @a against @b into @out: per ring (matched
 * by name and engine class), per engine class and per process (by name),
 * the jobs and their rate, p50/p90/p99 of t_queue, t_exec, t_gpu_wait and
 * t_total with the change in percent and the Mann-Whitney U test's
 * p-value, and a ring's busy share and verdict.  @format "text", "json"
 * or "csv"; @args (NULL-terminated, or NULL): "--alpha=P" (0.01),
 * "--min-change=PCT" (5), "--name-a=NAME", "--name-b=NAME" (the inputs'
 * names in the output; "A", "B").  Returns the changes flagged that are
 * slower in @b (0 or more), or -1 with *@err; a damaged input (err->status
 * GRTRACE_ERR_INPUT, its name in err->msg) still gives the diff of the
 * records before the damage, which names it.  Resets both handles.
 */
GRTRACE_API int grtrace_diff(grtrace_trace *a, grtrace_trace *b,
			     const char *format, const char *const *args,
			     FILE *out, struct grtrace_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GRTRACE_GRTRACE_H */
