/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace stream decoder: walks the records of a grtrace byte stream with
 * validation and decodes each known record type.
 *
 * Nothing here assumes the host is little-endian or that the buffer is
 * aligned: every field is loaded byte by byte at the offset the uapi
 * structs give it.
 */
#ifndef GRTRACE_STREAM_H
#define GRTRACE_STREAM_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/grtrace.h>

#define GR_HDR_SIZE		32u
#define GR_ERRMSG_LEN		256
#define GR_WHY_LEN		160	/* a reason, without the "at byte" prefix */

/* One record as found by the iterator; @data points into the buffer. */
struct gr_rec {
	const uint8_t *data;
	size_t offset;		/* byte offset of the record in the stream */
	uint16_t type;
	uint16_t size;
	uint16_t cpu;
	uint16_t flags;
	uint64_t ts;
	uint64_t gseq;
	uint64_t cseq;
};

enum gr_status {
	GR_ERR_NONE = 0,
	GR_ERR_TRUNCATED,	/* the data ends inside a record */
	GR_ERR_CORRUPT,		/* a record violates the format */
};

struct gr_iter {
	const uint8_t *buf;
	size_t len;
	size_t pos;		/* offset of the next record */
	uint64_t base;		/* stream offset of buf[0], for messages */
	enum gr_status status;
	uint64_t err_offset;	/* stream offset of the bad record */
	/* "corrupt record at byte 1234: size 12 is not a multiple of 8" */
	char errmsg[GR_ERRMSG_LEN];
};

void gr_iter_init(struct gr_iter *it, const void *buf, size_t len);

/*
 * Next record: returns 1 and fills @rec, 0 at a clean end of data, -1 on a
 * truncated or corrupt record (it->status, it->err_offset, it->errmsg).
 * After -1 every further call returns -1 again.  Records of unknown type
 * are returned too; callers skip what they do not know.
 */
int gr_iter_next(struct gr_iter *it, struct gr_rec *rec);

/*
 * Validate one record at @p with @avail bytes available.  Returns the
 * record size (> 0) if it is whole and valid, 0 if more bytes are needed
 * to tell (truncated), or -1 if it is corrupt; @errmsg (may be NULL) gets
 * the reason, worded after "... at byte N: ".
 */
long gr_check_record(const uint8_t *p, size_t avail, char *errmsg,
		     size_t errlen);

/*
 * Format 2.  Its records do not name their CPU, and carry the low 32 bits
 * of cseq: a reader converts each to the format 1 record it stands for
 * (the v1 form, with GRTRACE_HDR_TASK for a task and GRTRACE_HDR_CLIENT
 * for a client), so that everything after the conversion knows one
 * format.  One state per CPU channel.
 */
#define GR_HDR2_SIZE		16u
#define GR_V1_MAX		(GRTRACE_MAX_RECORD + 2 * GRTRACE_ALIGN)

struct gr_v2_cpu {
	uint16_t cpu;		/* the channel's CPU, stamped on each record */
	int seen;
	uint32_t last;		/* cseq of the last record */
	uint64_t hi;		/* the high bits cseq has wrapped into */
};

/*
 * Check the v2 record at @p with @avail bytes available and write it in
 * format 1 to @out (GR_V1_MAX bytes), its size to *@outlen.  Returns the
 * v2 record's size (> 0), 0 if more bytes are needed, -1 if it is corrupt
 * (@errmsg as for gr_check_record()).
 */
long gr_v2_convert(struct gr_v2_cpu *st, const uint8_t *p, size_t avail,
		   uint8_t *out, size_t *outlen, char *errmsg, size_t errlen);

/* 2 if @p starts with a v2 STREAM_INFO, 1 if a v1 one, else 0. */
int gr_stream_info_format(const uint8_t *p, size_t len);

/* Minimal size of a record of @type, or 0 for an unknown type. */
size_t gr_type_min_size(uint16_t type);
/* "SUBMIT", ..., "RING"; unknown types get "TYPE_0x7777" in @buf. */
const char *gr_type_name(uint16_t type, char *buf, size_t len);
/* "gfx", ...; out of range values get their number in @buf. */
const char *gr_engine_name(uint16_t engine, char *buf, size_t len);
/* "monotonic", "boottime", else the number in @buf. */
const char *gr_clock_name(uint32_t clock, char *buf, size_t len);

struct gr_job {
	uint64_t ctx;
	uint64_t seqno;
	uint32_t ring_id;
	uint16_t engine;
	uint16_t reserved;
	uint64_t aux0;
	uint64_t aux1;
	int has_task;		/* GRTRACE_HDR_TASK: @pid and @tid are set */
	uint32_t pid;
	uint32_t tid;
	int has_client;		/* a SUBMIT with GRTRACE_HDR_CLIENT */
	uint64_t client;	/* then its aux0: the DRM client id */
};

/* A JOB_SUMMARY (struct grtrace_job_summary), decoded. */
struct gr_summary {
	uint64_t ctx;
	uint64_t seqno;
	uint32_t ring_id;
	uint16_t engine;
	uint16_t events;
	uint16_t derived;
	uint16_t reason;
	uint32_t pid;
	uint32_t tid;
	uint32_t waits;
	uint64_t ts[5];
	uint64_t wait_ns;
	uint64_t threshold;
};

struct gr_stream_info {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_size;
	uint32_t clock_id;
	uint32_t nr_cpus;
	uint64_t features;
	uint64_t session_id;
};

/* String fields are copied NUL-terminated even if the stream's are not. */
struct gr_ring {
	uint32_t ring_id;
	uint16_t engine;
	uint16_t instance;
	char driver[sizeof(((struct grtrace_ring_desc *)0)->driver) + 1];
	char device[sizeof(((struct grtrace_ring_desc *)0)->device) + 1];
	char name[sizeof(((struct grtrace_ring_desc *)0)->name) + 1];
};

struct gr_metadata {
	uint32_t nr_rings;
	uint16_t ring_size;
	uint16_t reserved;
	char kernel[sizeof(((struct grtrace_metadata *)0)->kernel) + 1];
};

/*
 * Decoders for records returned by gr_iter_next() (or accepted by
 * gr_check_record()).  Each returns 0, or -1 if @rec is not of its type.
 */
int gr_decode_stream_info(const struct gr_rec *rec, struct gr_stream_info *si);
int gr_decode_metadata(const struct gr_rec *rec, struct gr_metadata *md);
/* Entry @i (< md->nr_rings) of the METADATA ring table. */
int gr_decode_metadata_ring(const struct gr_rec *rec,
			    const struct gr_metadata *md, uint32_t i,
			    struct gr_ring *ring);
int gr_decode_ring(const struct gr_rec *rec, struct gr_ring *ring);
int gr_decode_summary(const struct gr_rec *rec, struct gr_summary *js);

/* A flight recorder's TRIGGER (struct grtrace_trigger), decoded. */
#define GR_TRIGGER_NO_RING	0xffffffffu
struct gr_trigger {
	uint64_t ts;		/* the record's: when the trigger was called */
	uint32_t cause;		/* GRTRACE_TRIGGER_* */
	uint32_t ring_id;	/* GR_TRIGGER_NO_RING: none */
	uint64_t ctx;		/* with @seqno both 0: no job named */
	uint64_t seqno;
	int64_t error;
	uint64_t frozen_ts;
	uint64_t later_triggers;
	uint32_t cpu;
};

/* One CPU's accounting in a snapshot (struct grtrace_recorder_cpu). */
struct gr_recorder {
	uint32_t cpu;
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t emitted;
	uint64_t kept;
	uint64_t overwritten;
	uint64_t dropped;
	uint64_t buffer_size;
};

int gr_decode_trigger(const struct gr_rec *rec, struct gr_trigger *tr);
int gr_decode_recorder(const struct gr_rec *rec, struct gr_recorder *rc);
/* "manual", "timeout", "error"; others get "cause_N" in @buf. */
const char *gr_trigger_cause_name(uint32_t cause, char *buf, size_t len);
/* 1 if emitted == kept + overwritten + dropped, exactly. */
int gr_recorder_balanced(const struct gr_recorder *rc);


/*
 * Write @s to @buf (capacity @len) as dump prints strings: bytes outside
 * '!'..'~', and '\', become \xNN.  Truncates safely.
 */
void gr_escape(const char *s, char *buf, size_t len);

/*
 * Little-endian fields at any alignment: one load each where the host is
 * little-endian (the compiler does not always merge a field's bytes into
 * one, and every record is read field by field).
 */
static inline uint16_t gr_le16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline uint32_t gr_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t gr_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline void gr_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void gr_put32(uint8_t *p, uint32_t v)
{
	gr_put16(p, (uint16_t)v);
	gr_put16(p + 2, (uint16_t)(v >> 16));
}

static inline void gr_put64(uint8_t *p, uint64_t v)
{
	gr_put32(p, (uint32_t)v);
	gr_put32(p + 4, (uint32_t)(v >> 32));
}

/* True for SUBMIT .. ERROR.  Inline: the report asks it of every record. */
static inline int gr_type_is_job(uint16_t type)
{
	return type >= GRTRACE_EV_SUBMIT && type <= GRTRACE_EV_ERROR;
}

/* Decode a job event; 0, or -1 if @rec is not one.  Inline as above. */
static inline int gr_decode_job(const struct gr_rec *rec, struct gr_job *job)
{
	const uint8_t *p = rec->data;

	if (!gr_type_is_job(rec->type) ||
	    rec->size < sizeof(struct grtrace_job_event))
		return -1;
	job->ctx = gr_le64(p + offsetof(struct grtrace_job_event, ctx));
	job->seqno = gr_le64(p + offsetof(struct grtrace_job_event, seqno));
	job->ring_id = gr_le32(p + offsetof(struct grtrace_job_event, ring_id));
	job->engine = gr_le16(p + offsetof(struct grtrace_job_event, engine));
	job->reserved = gr_le16(p + offsetof(struct grtrace_job_event, reserved));
	job->aux0 = gr_le64(p + offsetof(struct grtrace_job_event, aux0));
	job->aux1 = gr_le64(p + offsetof(struct grtrace_job_event, aux1));
	job->has_task = (rec->flags & GRTRACE_HDR_TASK) &&
			rec->size >= sizeof(struct grtrace_job_event) + 8;
	job->pid = job->has_task ? gr_le32(p + sizeof(struct grtrace_job_event)) : 0;
	job->tid = job->has_task ? gr_le32(p + sizeof(struct grtrace_job_event) + 4) : 0;
	/* Only a SUBMIT names the file it came through. */
	job->has_client = rec->type == GRTRACE_EV_SUBMIT &&
			  (rec->flags & GRTRACE_HDR_CLIENT);
	job->client = job->has_client ? job->aux0 : 0;
	return 0;
}

/* Header fields of the record at @p (at least GR_HDR_SIZE bytes). */
static inline void gr_parse_hdr(const uint8_t *p, struct gr_rec *rec)
{
	rec->data = p;
	rec->type = gr_le16(p + offsetof(struct grtrace_hdr, type));
	rec->size = gr_le16(p + offsetof(struct grtrace_hdr, size));
	rec->cpu = gr_le16(p + offsetof(struct grtrace_hdr, cpu));
	rec->flags = gr_le16(p + offsetof(struct grtrace_hdr, flags));
	rec->ts = gr_le64(p + offsetof(struct grtrace_hdr, ts));
	rec->gseq = gr_le64(p + offsetof(struct grtrace_hdr, gseq));
	rec->cseq = gr_le64(p + offsetof(struct grtrace_hdr, cseq));
}

#endif /* GRTRACE_STREAM_H */
