// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace stream decoder.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stream.h"

#define FIELD_SIZE(type, member)	sizeof(((type *)0)->member)

_Static_assert(sizeof(struct grtrace_hdr) == GR_HDR_SIZE, "hdr size");
_Static_assert(sizeof(struct grtrace_job_event) == 72, "job event size");
_Static_assert(sizeof(struct grtrace_stream_info) == 64, "stream info size");
_Static_assert(sizeof(struct grtrace_metadata) == 104, "metadata size");
_Static_assert(sizeof(struct grtrace_ring_desc) == 80, "ring desc size");
_Static_assert(sizeof(struct grtrace_ring_record) == 112, "ring record size");
_Static_assert(sizeof(struct grtrace_job_summary) == 128, "summary size");
_Static_assert(sizeof(struct grtrace_trigger) == 88, "trigger size");
_Static_assert(sizeof(struct grtrace_recorder_cpu) == 96, "recorder size");
_Static_assert(GRTRACE_MAX_RECORD <= UINT16_MAX, "max record fits in size");

static const char *const type_names[] = {
	[GRTRACE_EV_SUBMIT]		= "SUBMIT",
	[GRTRACE_EV_COMMIT]		= "COMMIT",
	[GRTRACE_EV_START]		= "START",
	[GRTRACE_EV_END]		= "END",
	[GRTRACE_EV_COMPLETE]		= "COMPLETE",
	[GRTRACE_EV_CTX_SWITCH]		= "CTX_SWITCH",
	[GRTRACE_EV_IRQ]		= "IRQ",
	[GRTRACE_EV_SYNC_WAIT_ENTER]	= "SYNC_WAIT_ENTER",
	[GRTRACE_EV_SYNC_WAIT_EXIT]	= "SYNC_WAIT_EXIT",
	[GRTRACE_EV_ERROR]		= "ERROR",
};

static const char *const engine_names[GRTRACE_ENGINE_NR] = {
	[GRTRACE_ENGINE_UNKNOWN]	= "unknown",
	[GRTRACE_ENGINE_GFX]		= "gfx",
	[GRTRACE_ENGINE_COMPUTE]	= "compute",
	[GRTRACE_ENGINE_COPY]		= "copy",
	[GRTRACE_ENGINE_VIDEO]		= "video",
	[GRTRACE_ENGINE_DISPLAY]	= "display",
	[GRTRACE_ENGINE_CONTROL]	= "control",
};

const char *gr_type_name(uint16_t type, char *buf, size_t len)
{
	if (gr_type_is_job(type))
		return type_names[type];
	switch (type) {
	case GRTRACE_REC_STREAM_INFO:
		return "STREAM_INFO";
	case GRTRACE_REC_METADATA:
		return "METADATA";
	case GRTRACE_REC_RING:
		return "RING";
	case GRTRACE_REC_JOB_SUMMARY:
		return "JOB_SUMMARY";
	case GRTRACE_REC_TRIGGER:
		return "TRIGGER";
	case GRTRACE_REC_RECORDER:
		return "RECORDER";
	}
	snprintf(buf, len, "TYPE_0x%x", (unsigned int)type);
	return buf;
}

const char *gr_engine_name(uint16_t engine, char *buf, size_t len)
{
	if (engine < GRTRACE_ENGINE_NR)
		return engine_names[engine];
	snprintf(buf, len, "%u", (unsigned int)engine);
	return buf;
}

const char *gr_clock_name(uint32_t clock, char *buf, size_t len)
{
	switch (clock) {
	case GRTRACE_CLOCK_MONOTONIC:
		return "monotonic";
	case GRTRACE_CLOCK_BOOTTIME:
		return "boottime";
	}
	snprintf(buf, len, "%" PRIu32, clock);
	return buf;
}

size_t gr_type_min_size(uint16_t type)
{
	if (gr_type_is_job(type))
		return sizeof(struct grtrace_job_event);
	switch (type) {
	case GRTRACE_REC_STREAM_INFO:
		return sizeof(struct grtrace_stream_info);
	case GRTRACE_REC_METADATA:
		return sizeof(struct grtrace_metadata);
	case GRTRACE_REC_RING:
		return sizeof(struct grtrace_ring_record);
	case GRTRACE_REC_JOB_SUMMARY:
		return sizeof(struct grtrace_job_summary);
	case GRTRACE_REC_TRIGGER:
		return sizeof(struct grtrace_trigger);
	case GRTRACE_REC_RECORDER:
		return sizeof(struct grtrace_recorder_cpu);
	}
	return 0;
}

static void set_msg(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

long gr_check_record(const uint8_t *p, size_t avail, char *errmsg,
		     size_t errlen)
{
	struct gr_rec rec;
	char tbuf[16];
	size_t min;

	if (avail < GR_HDR_SIZE) {
		set_msg(errmsg, errlen,
			"only %zu of the %u header bytes present",
			avail, GR_HDR_SIZE);
		return 0;
	}
	gr_parse_hdr(p, &rec);
	if (rec.size < GR_HDR_SIZE) {
		set_msg(errmsg, errlen,
			"size %u is smaller than the %u-byte header",
			(unsigned int)rec.size, GR_HDR_SIZE);
		return -1;
	}
	if (rec.size % GRTRACE_ALIGN) {
		set_msg(errmsg, errlen, "size %u is not a multiple of %u",
			(unsigned int)rec.size, GRTRACE_ALIGN);
		return -1;
	}
	if (rec.size > GRTRACE_MAX_RECORD) {
		set_msg(errmsg, errlen,
			"size %u exceeds the maximum record size %u",
			(unsigned int)rec.size, GRTRACE_MAX_RECORD);
		return -1;
	}
	min = gr_type_min_size(rec.type);
	if (rec.size < min) {
		set_msg(errmsg, errlen,
			"%s record of size %u is smaller than its %zu-byte struct",
			gr_type_name(rec.type, tbuf, sizeof(tbuf)),
			(unsigned int)rec.size, min);
		return -1;
	}
	/* Corrupt beats truncated: all checks above need only the header. */
	if (rec.type == GRTRACE_REC_METADATA) {
		uint64_t nr, rsz, table;

		/* The fixed part fits (min above) once the record is whole. */
		if (avail < min)
			goto check_avail;
		nr = gr_le32(p + offsetof(struct grtrace_metadata, nr_rings));
		rsz = gr_le16(p + offsetof(struct grtrace_metadata, ring_size));
		if (nr && rsz < sizeof(struct grtrace_ring_desc)) {
			set_msg(errmsg, errlen,
				"METADATA ring_size %" PRIu64 " is smaller than the %zu-byte ring entry",
				rsz, sizeof(struct grtrace_ring_desc));
			return -1;
		}
		table = nr * rsz;
		if (table > rec.size - min) {
			set_msg(errmsg, errlen,
				"METADATA ring table (%" PRIu64 " x %" PRIu64 " bytes) does not fit in the %u-byte record",
				nr, rsz, (unsigned int)rec.size);
			return -1;
		}
	}
check_avail:
	if (rec.size > avail) {
		set_msg(errmsg, errlen, "size %u but only %zu bytes left",
			(unsigned int)rec.size, avail);
		return 0;
	}
	return rec.size;
}

/* ---- format 2 -------------------------------------------------------------- */

_Static_assert(sizeof(struct grtrace_hdr2) == GR_HDR2_SIZE, "hdr2 size");
_Static_assert(sizeof(struct grtrace_job2) == 28, "job2 size");
_Static_assert(sizeof(struct grtrace_job2_wide) == 36, "job2 wide size");

static uint64_t gr_le32_64(const uint8_t *p)
{
	return gr_le32(p);
}

/* The v1 type a v2 type stands for. */
static uint16_t v2_type(uint8_t t)
{
	if (t >= GRTRACE_REC2_STREAM_INFO)
		return (uint16_t)(GRTRACE_REC_STREAM_INFO + t -
				  GRTRACE_REC2_STREAM_INFO);
	return t;
}

static uint64_t v2_cseq(struct gr_v2_cpu *st, uint32_t c)
{
	/* Forward by more than half the range: it wrapped; else a restart. */
	if (st->seen && c < st->last && st->last - c > 0x80000000u)
		st->hi += 1ull << 32;
	st->seen = 1;
	st->last = c;
	return st->hi | c;
}

long gr_v2_convert(struct gr_v2_cpu *st, const uint8_t *p, size_t avail,
		   uint8_t *out, size_t *outlen, char *errmsg, size_t errlen)
{
	size_t min, body, len, tail, opt = 0;
	uint8_t t, fl, wide;
	uint16_t size, type, flags1 = 0;
	char tbuf[16];
	uint64_t gseq = 0;

	if (avail < GR_HDR2_SIZE) {
		set_msg(errmsg, errlen,
			"only %zu of the %u header bytes present",
			avail, GR_HDR2_SIZE);
		return 0;
	}
	t = p[offsetof(struct grtrace_hdr2, type)];
	fl = p[offsetof(struct grtrace_hdr2, flags)];
	size = gr_le16(p + offsetof(struct grtrace_hdr2, size));
	type = v2_type(t);
	if (size < GR_HDR2_SIZE) {
		set_msg(errmsg, errlen,
			"size %u is smaller than the %u-byte header",
			(unsigned int)size, GR_HDR2_SIZE);
		return -1;
	}
	if (size % GRTRACE_ALIGN2) {
		set_msg(errmsg, errlen, "size %u is not a multiple of %u",
			(unsigned int)size, GRTRACE_ALIGN2);
		return -1;
	}
	if (size > GRTRACE_MAX_RECORD) {
		set_msg(errmsg, errlen,
			"size %u exceeds the maximum record size %u",
			(unsigned int)size, GRTRACE_MAX_RECORD);
		return -1;
	}
	tail = fl & GRTRACE_HDR2_GSEQ ? sizeof(struct grtrace_gseq2) : 0;
	wide = fl & GRTRACE_HDR2_WIDE;
	if (gr_type_is_job(type)) {
		if (fl & GRTRACE_HDR2_AUX)
			opt += wide ? sizeof(struct grtrace_aux2_wide) :
				      sizeof(struct grtrace_aux2);
		if (fl & GRTRACE_HDR2_TASK)
			opt += sizeof(struct grtrace_task2);
		min = (wide ? sizeof(struct grtrace_job2_wide) :
			      sizeof(struct grtrace_job2)) + opt + tail;
	} else {
		min = gr_type_min_size(type);
		min = (min ? min - GR_HDR_SIZE : 0) + GR_HDR2_SIZE + tail;
	}
	if (size < min) {
		set_msg(errmsg, errlen,
			"%s record of size %u with flags 0x%x is smaller than its %zu bytes",
			gr_type_name(type, tbuf, sizeof(tbuf)),
			(unsigned int)size, (unsigned int)fl, min);
		return -1;
	}
	if (size > avail) {
		set_msg(errmsg, errlen, "size %u but only %zu bytes left",
			(unsigned int)size, avail);
		return 0;
	}
	if (tail)
		gseq = gr_le64(p + size - tail);
	if (gr_type_is_job(type)) {
		/* The narrow and the wide fixed part, and their aux values. */
		const uint8_t *o = p + (wide ? sizeof(struct grtrace_job2_wide) :
					       sizeof(struct grtrace_job2));
		size_t w = wide ? 8 : 4;
		uint64_t (*get)(const uint8_t *) = wide ? gr_le64 : gr_le32_64;

		len = sizeof(struct grtrace_job_event);
		memset(out, 0, GR_V1_MAX < len + 8 ? GR_V1_MAX : len + 8);
		gr_put64(out + offsetof(struct grtrace_job_event, ctx),
			 get(p + GR_HDR2_SIZE));
		gr_put64(out + offsetof(struct grtrace_job_event, seqno),
			 get(p + GR_HDR2_SIZE + w));
		gr_put32(out + offsetof(struct grtrace_job_event, ring_id),
			 gr_le16(p + GR_HDR2_SIZE + 2 * w));
		gr_put16(out + offsetof(struct grtrace_job_event, engine),
			 p[GR_HDR2_SIZE + 2 * w + 2]);
		if (fl & GRTRACE_HDR2_AUX) {
			gr_put64(out + offsetof(struct grtrace_job_event, aux0),
				 get(o));
			gr_put64(out + offsetof(struct grtrace_job_event, aux1),
				 get(o + w));
			o += 2 * w;
		}
		if (fl & GRTRACE_HDR2_TASK) {
			gr_put32(out + len, gr_le32(o));
			gr_put32(out + len + 4, gr_le32(o + 4));
			len += 8;
			flags1 |= GRTRACE_HDR_TASK;
		}
		if (fl & GRTRACE_HDR2_DERIVED)
			flags1 |= GRTRACE_HDR_DERIVED;
		/* aux0 is the client id: it came with AUX, or is 0. */
		if (fl & GRTRACE_HDR2_CLIENT)
			flags1 |= GRTRACE_HDR_CLIENT;
	} else {
		/* Control and unknown records: the same body, 8-aligned. */
		body = size - GR_HDR2_SIZE - tail;
		len = GR_HDR_SIZE + ((body + GRTRACE_ALIGN - 1) & ~(size_t)(GRTRACE_ALIGN - 1));
		if (len > GRTRACE_MAX_RECORD) {
			/* Only an unknown type can be this long: cut its body. */
			len = GRTRACE_MAX_RECORD;
			body = len - GR_HDR_SIZE;
		}
		memset(out + GR_HDR_SIZE, 0, len - GR_HDR_SIZE);
		memcpy(out + GR_HDR_SIZE, p + GR_HDR2_SIZE, body);
	}
	gr_put16(out + offsetof(struct grtrace_hdr, type), type);
	gr_put16(out + offsetof(struct grtrace_hdr, size), (uint16_t)len);
	gr_put16(out + offsetof(struct grtrace_hdr, cpu), st->cpu);
	gr_put16(out + offsetof(struct grtrace_hdr, flags), flags1);
	gr_put64(out + offsetof(struct grtrace_hdr, ts),
		 gr_le64(p + offsetof(struct grtrace_hdr2, ts)));
	gr_put64(out + offsetof(struct grtrace_hdr, gseq), gseq);
	gr_put64(out + offsetof(struct grtrace_hdr, cseq),
		 v2_cseq(st, gr_le32(p + offsetof(struct grtrace_hdr2, cseq))));
	/* The body's own rules (METADATA's table) are format 1's. */
	if (gr_check_record(out, len, errmsg, errlen) <= 0)
		return -1;
	*outlen = len;
	return size;
}

int gr_stream_info_format(const uint8_t *p, size_t len)
{
	if (len >= sizeof(struct grtrace_stream_info) &&
	    gr_le16(p) == GRTRACE_REC_STREAM_INFO &&
	    gr_le32(p + offsetof(struct grtrace_stream_info, magic)) == GRTRACE_MAGIC)
		return 1;
	if (len >= GR_HDR2_SIZE + 8 && p[0] == GRTRACE_REC2_STREAM_INFO &&
	    gr_le32(p + GR_HDR2_SIZE) == GRTRACE_MAGIC)
		return 2;
	return 0;
}

void gr_iter_init(struct gr_iter *it, const void *buf, size_t len)
{
	memset(it, 0, sizeof(*it));
	it->buf = buf;
	it->len = len;
}

int gr_iter_next(struct gr_iter *it, struct gr_rec *rec)
{
	char why[GR_WHY_LEN];
	size_t avail;
	long ret;

	if (it->status != GR_ERR_NONE)
		return -1;
	if (it->pos >= it->len)
		return 0;
	avail = it->len - it->pos;
	ret = gr_check_record(it->buf + it->pos, avail, why, sizeof(why));
	if (ret <= 0) {
		it->status = ret == 0 ? GR_ERR_TRUNCATED : GR_ERR_CORRUPT;
		it->err_offset = it->base + it->pos;
		snprintf(it->errmsg, sizeof(it->errmsg),
			 "%s record at byte %" PRIu64 ": %s",
			 ret == 0 ? "truncated" : "corrupt", it->err_offset, why);
		return -1;
	}
	gr_parse_hdr(it->buf + it->pos, rec);
	rec->offset = it->base + it->pos;
	it->pos += (size_t)ret;
	return 1;
}

static void copy_str(char *dst, size_t dstlen, const uint8_t *src,
		     size_t srclen)
{
	size_t n = 0;

	while (n < srclen && n + 1 < dstlen && src[n])
		n++;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int gr_decode_stream_info(const struct gr_rec *rec, struct gr_stream_info *si)
{
	const uint8_t *p = rec->data;

	if (rec->type != GRTRACE_REC_STREAM_INFO ||
	    rec->size < sizeof(struct grtrace_stream_info))
		return -1;
	si->magic = gr_le32(p + offsetof(struct grtrace_stream_info, magic));
	si->version = gr_le16(p + offsetof(struct grtrace_stream_info, version));
	si->hdr_size = gr_le16(p + offsetof(struct grtrace_stream_info, hdr_size));
	si->clock_id = gr_le32(p + offsetof(struct grtrace_stream_info, clock_id));
	si->nr_cpus = gr_le32(p + offsetof(struct grtrace_stream_info, nr_cpus));
	si->features = gr_le64(p + offsetof(struct grtrace_stream_info, features));
	si->session_id = gr_le64(p + offsetof(struct grtrace_stream_info, session_id));
	return 0;
}

int gr_decode_metadata(const struct gr_rec *rec, struct gr_metadata *md)
{
	const uint8_t *p = rec->data;

	if (rec->type != GRTRACE_REC_METADATA ||
	    rec->size < sizeof(struct grtrace_metadata))
		return -1;
	md->nr_rings = gr_le32(p + offsetof(struct grtrace_metadata, nr_rings));
	md->ring_size = gr_le16(p + offsetof(struct grtrace_metadata, ring_size));
	md->reserved = gr_le16(p + offsetof(struct grtrace_metadata, reserved));
	copy_str(md->kernel, sizeof(md->kernel),
		 p + offsetof(struct grtrace_metadata, kernel),
		 FIELD_SIZE(struct grtrace_metadata, kernel));
	/* Same rule as gr_check_record(), for records that skipped it. */
	if (md->nr_rings &&
	    (md->ring_size < sizeof(struct grtrace_ring_desc) ||
	     (uint64_t)md->nr_rings * md->ring_size >
	     rec->size - sizeof(struct grtrace_metadata)))
		return -1;
	return 0;
}

static void decode_ring_desc(const uint8_t *p, struct gr_ring *ring)
{
	ring->ring_id = gr_le32(p + offsetof(struct grtrace_ring_desc, ring_id));
	ring->engine = gr_le16(p + offsetof(struct grtrace_ring_desc, engine));
	ring->instance = gr_le16(p + offsetof(struct grtrace_ring_desc, instance));
	copy_str(ring->driver, sizeof(ring->driver),
		 p + offsetof(struct grtrace_ring_desc, driver),
		 FIELD_SIZE(struct grtrace_ring_desc, driver));
	copy_str(ring->device, sizeof(ring->device),
		 p + offsetof(struct grtrace_ring_desc, device),
		 FIELD_SIZE(struct grtrace_ring_desc, device));
	copy_str(ring->name, sizeof(ring->name),
		 p + offsetof(struct grtrace_ring_desc, name),
		 FIELD_SIZE(struct grtrace_ring_desc, name));
}

int gr_decode_metadata_ring(const struct gr_rec *rec,
			    const struct gr_metadata *md, uint32_t i,
			    struct gr_ring *ring)
{
	size_t off;

	if (rec->type != GRTRACE_REC_METADATA || i >= md->nr_rings ||
	    md->ring_size < sizeof(struct grtrace_ring_desc))
		return -1;
	off = sizeof(struct grtrace_metadata) + (size_t)i * md->ring_size;
	if (off + sizeof(struct grtrace_ring_desc) > rec->size)
		return -1;
	decode_ring_desc(rec->data + off, ring);
	return 0;
}

int gr_decode_ring(const struct gr_rec *rec, struct gr_ring *ring)
{
	if (rec->type != GRTRACE_REC_RING ||
	    rec->size < sizeof(struct grtrace_ring_record))
		return -1;
	decode_ring_desc(rec->data + offsetof(struct grtrace_ring_record, ring),
			 ring);
	return 0;
}

int gr_decode_summary(const struct gr_rec *rec, struct gr_summary *js)
{
	const uint8_t *p = rec->data;
	unsigned int k;

#define SUM_OFF(f)	offsetof(struct grtrace_job_summary, f)
	if (rec->type != GRTRACE_REC_JOB_SUMMARY ||
	    rec->size < sizeof(struct grtrace_job_summary))
		return -1;
	js->ctx = gr_le64(p + SUM_OFF(ctx));
	js->seqno = gr_le64(p + SUM_OFF(seqno));
	js->ring_id = gr_le32(p + SUM_OFF(ring_id));
	js->engine = gr_le16(p + SUM_OFF(engine));
	js->events = gr_le16(p + SUM_OFF(events));
	js->derived = gr_le16(p + SUM_OFF(derived));
	js->reason = gr_le16(p + SUM_OFF(reason));
	js->pid = gr_le32(p + SUM_OFF(pid));
	js->tid = gr_le32(p + SUM_OFF(tid));
	js->waits = gr_le32(p + SUM_OFF(waits));
	for (k = 0; k < 5; k++)
		js->ts[k] = gr_le64(p + SUM_OFF(ts) + 8 * k);
	js->wait_ns = gr_le64(p + SUM_OFF(wait_ns));
	js->threshold = gr_le64(p + SUM_OFF(threshold));
#undef SUM_OFF
	return 0;
}

int gr_decode_trigger(const struct gr_rec *rec, struct gr_trigger *tr)
{
	const uint8_t *p = rec->data;

#define TRG_OFF(f)	offsetof(struct grtrace_trigger, f)
	if (rec->type != GRTRACE_REC_TRIGGER ||
	    rec->size < sizeof(struct grtrace_trigger))
		return -1;
	tr->ts = rec->ts;
	tr->cause = gr_le32(p + TRG_OFF(cause));
	tr->ring_id = gr_le32(p + TRG_OFF(ring_id));
	tr->ctx = gr_le64(p + TRG_OFF(ctx));
	tr->seqno = gr_le64(p + TRG_OFF(seqno));
	tr->error = (int64_t)gr_le64(p + TRG_OFF(error));
	tr->frozen_ts = gr_le64(p + TRG_OFF(frozen_ts));
	tr->later_triggers = gr_le64(p + TRG_OFF(later_triggers));
	tr->cpu = gr_le32(p + TRG_OFF(cpu));
#undef TRG_OFF
	return 0;
}

int gr_decode_recorder(const struct gr_rec *rec, struct gr_recorder *rc)
{
	const uint8_t *p = rec->data;

#define REC_OFF(f)	offsetof(struct grtrace_recorder_cpu, f)
	if (rec->type != GRTRACE_REC_RECORDER ||
	    rec->size < sizeof(struct grtrace_recorder_cpu))
		return -1;
	rc->cpu = gr_le32(p + REC_OFF(cpu));
	rc->first_ts = gr_le64(p + REC_OFF(first_ts));
	rc->last_ts = gr_le64(p + REC_OFF(last_ts));
	rc->emitted = gr_le64(p + REC_OFF(emitted));
	rc->kept = gr_le64(p + REC_OFF(kept));
	rc->overwritten = gr_le64(p + REC_OFF(overwritten));
	rc->dropped = gr_le64(p + REC_OFF(dropped));
	rc->buffer_size = gr_le64(p + REC_OFF(buffer_size));
#undef REC_OFF
	return 0;
}

const char *gr_trigger_cause_name(uint32_t cause, char *buf, size_t len)
{
	switch (cause) {
	case GRTRACE_TRIGGER_MANUAL:
		return "manual";
	case GRTRACE_TRIGGER_TIMEOUT:
		return "timeout";
	case GRTRACE_TRIGGER_ERROR:
		return "error";
	}
	snprintf(buf, len, "cause_%" PRIu32, cause);
	return buf;
}

int gr_recorder_balanced(const struct gr_recorder *rc)
{
	uint64_t sum;

	/* A sum that wraps must not match by accident. */
	if (__builtin_add_overflow(rc->kept, rc->overwritten, &sum) ||
	    __builtin_add_overflow(sum, rc->dropped, &sum))
		return 0;
	return sum == rc->emitted;
}

void gr_escape(const char *s, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!len)
		return;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x21 && c <= 0x7e && c != '\\') {
			if (o + 1 >= len)
				break;
			buf[o++] = (char)c;
		} else {
			if (o + 4 >= len)
				break;
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[c >> 4];
			buf[o++] = hex[c & 15];
		}
	}
	buf[o] = '\0';
}
