// SPDX-License-Identifier: GPL-2.0
/*
 * libgrtrace: records as rows of text (grtrace_next_rows()).
 *
 * One row per record: CSV with the columns of COLUMNS below, or one JSON
 * object per line whose keys follow the row's kind (a job event, a control
 * record, a task or a client table entry), "part" last.  The layout is
 * scripts/parse_events.py's, documented there; the Python script only
 * writes what this formats, because a row formatted in Python costs
 * several times what reading the record does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib.h"
#include "rows.h"

enum col {
	C_OFFSET, C_PART, C_CPU, C_TS, C_GSEQ, C_CSEQ, C_TYPE, C_DERIVED,
	C_CTX, C_SEQNO, C_RING, C_ENGINE, C_AUX0, C_AUX1, C_PID, C_TID,
	C_FIELDS, C_CLIENT, NR_COLS
};

static const char *const col_names[NR_COLS] = {
	"offset", "part", "cpu", "ts", "gseq", "cseq", "type", "derived",
	"ctx", "seqno", "ring", "engine", "aux0", "aux1", "pid", "tid",
	"fields", "client",
};

/* The JSON keys of each kind of row, in order (a job event's: job_row()). */
static const uint8_t keys_control[] = {
	C_OFFSET, C_CPU, C_TS, C_GSEQ, C_CSEQ, C_DERIVED, C_TYPE, C_FIELDS,
	C_PART, NR_COLS
};

static const uint8_t keys_task[] = {
	C_OFFSET, C_CPU, C_TS, C_GSEQ, C_CSEQ, C_TYPE, C_DERIVED, C_PID,
	C_TID, C_FIELDS, C_PART, NR_COLS
};

static const uint8_t keys_client[] = {
	C_OFFSET, C_CPU, C_TS, C_GSEQ, C_CSEQ, C_TYPE, C_DERIVED, C_PID,
	C_CLIENT, C_FIELDS, C_PART, NR_COLS
};

enum { V_NULL, V_U64, V_S64, V_STR };

struct cell {
	int kind;
	uint64_t u;
	const char *s;
};

/* A row being built; @fields is its fields column, already formatted. */
struct row {
	struct cell c[NR_COLS];
	const uint8_t *keys;
	struct gr_rows fields;
	int nfields;
};

static char *room(struct gr_rows *o, size_t n)
{
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2 + 4096;
		o->buf = xrealloc(o->buf, o->cap);
	}
	return o->buf + o->len;
}

static void put(struct gr_rows *o, const char *s, size_t n)
{
	memcpy(room(o, n), s, n);
	o->len += n;
}

static void puts_(struct gr_rows *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_u64(struct gr_rows *o, uint64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(o, p, (size_t)(tmp + sizeof(tmp) - p));
}

static void put_s64(struct gr_rows *o, uint64_t v)
{
	if ((int64_t)v < 0) {
		put(o, "-", 1);
		v = -v;
	}
	put_u64(o, v);
}

/*
 * A string as Python's json.dumps() writes one; a byte that is not ASCII
 * as the script's decoding left it ("\xNN", its backslash escaped).
 */
static void put_json_str(struct gr_rows *o, const char *s)
{
	char esc[8];

	put(o, "\"", 1);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\') {
			esc[0] = '\\';
			esc[1] = (char)ch;
			put(o, esc, 2);
		} else if (ch >= 0x80) {
			snprintf(esc, sizeof(esc), "\\\\x%02x", ch);
			puts_(o, esc);
		} else if (ch == '\n' || ch == '\r' || ch == '\t' ||
			   ch == '\b' || ch == '\f') {
			esc[0] = '\\';
			esc[1] = ch == '\n' ? 'n' : ch == '\r' ? 'r' :
				 ch == '\t' ? 't' : ch == '\b' ? 'b' : 'f';
			put(o, esc, 2);
		} else if (ch < 0x20 || ch == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", ch);
			puts_(o, esc);
		} else {
			put(o, (const char *)&ch, 1);
		}
	}
	put(o, "\"", 1);
}

/* A string in CSV as Python's csv module writes it (UTF-8 as "\xNN"). */
static void put_csv_raw(struct gr_rows *o, const char *s, size_t n)
{
	int quote = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
			quote = 1;
	if (quote)
		put(o, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		char esc[8];

		if (ch == '"') {
			put(o, "\"\"", 2);
		} else if (ch >= 0x80) {
			snprintf(esc, sizeof(esc), "\\x%02x", ch);
			puts_(o, esc);
		} else {
			put(o, (const char *)&ch, 1);
		}
	}
	if (quote)
		put(o, "\"", 1);
}

/* One key=value of the fields column: CSV's "k=v k=v", JSON's object. */
static void field_key(struct row *r, const char *key)
{
	struct gr_rows *f = &r->fields;

	if (r->nfields++)
		puts_(f, f->json ? ", " : " ");
	if (f->json) {
		put_json_str(f, key);
		put(f, ": ", 2);
	} else {
		puts_(f, key);
		put(f, "=", 1);
	}
}

static void field_u64(struct row *r, const char *key, uint64_t v)
{
	field_key(r, key);
	put_u64(&r->fields, v);
}

/* Strings go to the fields column raw in CSV: it is quoted as a whole. */
static void field_str(struct row *r, const char *key, const char *s)
{
	field_key(r, key);
	if (r->fields.json)
		put_json_str(&r->fields, s);
	else
		puts_(&r->fields, s);
}

static void cell_u64(struct row *r, enum col c, uint64_t v)
{
	r->c[c].kind = V_U64;
	r->c[c].u = v;
}

static void cell_str(struct row *r, enum col c, const char *s)
{
	r->c[c].kind = V_STR;
	r->c[c].s = s;
}

static void put_cell_json(struct gr_rows *o, const struct row *r, enum col c)
{
	const struct cell *v = &r->c[c];

	if (c == C_FIELDS) {
		put(o, "{", 1);
		put(o, r->fields.buf, r->fields.len);
		put(o, "}", 1);
		return;
	}
	switch (v->kind) {
	case V_U64:
		put_u64(o, v->u);
		break;
	case V_S64:
		put_s64(o, v->u);
		break;
	case V_STR:
		put_json_str(o, v->s);
		break;
	default:
		puts_(o, "null");
	}
}

static void put_cell_csv(struct gr_rows *o, const struct row *r, enum col c)
{
	const struct cell *v = &r->c[c];

	if (c == C_FIELDS) {
		/* Python's "if f": an empty dict is an empty cell too. */
		if (r->nfields)
			put_csv_raw(o, r->fields.buf, r->fields.len);
		return;
	}
	switch (v->kind) {
	case V_U64:
		put_u64(o, v->u);
		break;
	case V_S64:
		put_s64(o, v->u);
		break;
	case V_STR:
		put_csv_raw(o, v->s, strlen(v->s));
		break;
	}
}

static void emit(struct gr_rows *o, const struct row *r)
{
	const uint8_t *k;
	int c;

	if (o->json) {
		put(o, "{", 1);
		for (k = r->keys; *k != NR_COLS; k++) {
			if (k != r->keys)
				put(o, ", ", 2);
			put(o, "\"", 1);
			puts_(o, col_names[*k]);
			put(o, "\": ", 3);
			put_cell_json(o, r, *k);
		}
		put(o, "}\n", 2);
		return;
	}
	for (c = 0; c < NR_COLS; c++) {
		if (c)
			put(o, ",", 1);
		put_cell_csv(o, r, c);
	}
	put(o, "\n", 1);
}

static void row_init(struct row *r, const struct gr_rows *o,
		     const uint8_t *keys)
{
	memset(r, 0, sizeof(*r));
	r->keys = keys;
	r->fields.json = o->json;
}

void gr_rows_header(struct gr_rows *o)
{
	int c;

	if (o->json)
		return;
	for (c = 0; c < NR_COLS; c++) {
		if (c)
			put(o, ",", 1);
		puts_(o, col_names[c]);
	}
	put(o, "\n", 1);
}

static void ring_fields(struct row *r, const char *prefix,
			const struct gr_ring *ring)
{
	static const char *const names[] = { "id", "engine", "instance",
					     "driver", "device", "name" };
	char key[6][40], eng[16];
	int i;

	for (i = 0; i < 6; i++)
		snprintf(key[i], sizeof(key[i]), "%s%s", prefix, names[i]);
	field_u64(r, key[0], ring->ring_id);
	field_str(r, key[1], gr_engine_name(ring->engine, eng, sizeof(eng)));
	field_u64(r, key[2], ring->instance);
	field_str(r, key[3], ring->driver);
	field_str(r, key[4], ring->device);
	field_str(r, key[5], ring->name);
}

static void summary_fields(struct row *r, const struct gr_summary *js)
{
	static const char *const stamps[] = { "submit", "commit", "start",
					      "end", "complete" };
	char eng[16], reason[16];
	int i;

	field_u64(r, "ctx", js->ctx);
	field_u64(r, "seqno", js->seqno);
	field_u64(r, "ring", js->ring_id);
	field_str(r, "engine", gr_engine_name(js->engine, eng, sizeof(eng)));
	snprintf(reason, sizeof(reason), "%u", (unsigned int)js->reason);
	field_str(r, "reason", js->reason == 1 ? "slow" :
			       js->reason == 2 ? "open" : reason);
	/* Bit (1 << type) of @events: SUBMIT is type 1. */
	for (i = 0; i < 5; i++)
		if (js->events & (2u << i))
			field_u64(r, stamps[i], js->ts[i]);
	field_u64(r, "pid", js->pid);
	field_u64(r, "tid", js->tid);
	field_u64(r, "waits", js->waits);
	field_u64(r, "wait_ns", js->wait_ns);
	field_u64(r, "threshold", js->threshold);
}

/* A flight recorder snapshot's TRIGGER and its CPUs' RECORDERs. */
static int recorder_fields(struct row *r, const struct gr_rec *rec)
{
	struct gr_recorder rc;
	struct gr_trigger tr;
	char buf[32];

	if (!gr_decode_trigger(rec, &tr)) {
		field_str(r, "cause", gr_trigger_cause_name(tr.cause, buf,
							   sizeof(buf)));
		if (tr.ring_id != GR_TRIGGER_NO_RING)
			field_u64(r, "ring", tr.ring_id);
		field_u64(r, "ctx", tr.ctx);
		field_u64(r, "seqno", tr.seqno);
		snprintf(buf, sizeof(buf), "%" PRId64, tr.error);
		field_key(r, "error");
		puts_(&r->fields, buf);
		field_u64(r, "frozen_ts", tr.frozen_ts);
		field_u64(r, "later_triggers", tr.later_triggers);
		field_u64(r, "trigger_cpu", tr.cpu);
		return 0;
	}
	if (!gr_decode_recorder(rec, &rc)) {
		field_u64(r, "cpu", rc.cpu);
		field_u64(r, "first_ts", rc.first_ts);
		field_u64(r, "last_ts", rc.last_ts);
		field_u64(r, "emitted", rc.emitted);
		field_u64(r, "kept", rc.kept);
		field_u64(r, "overwritten", rc.overwritten);
		field_u64(r, "dropped", rc.dropped);
		field_u64(r, "buffer_size", rc.buffer_size);
		return 0;
	}
	return -1;
}

/* The fields of a control record, or its size if it is of no known type. */
static void control_fields(struct row *r, const struct gr_rec *rec)
{
	struct gr_stream_info si;
	struct gr_metadata md;
	struct gr_summary js;
	struct gr_ring ring;
	char buf[32], prefix[24];
	uint32_t i;

	if (!gr_decode_stream_info(rec, &si)) {
		field_u64(r, "version", si.version);
		field_u64(r, "hdr_size", si.hdr_size);
		field_str(r, "clock", gr_clock_name(si.clock_id, buf, sizeof(buf)));
		field_u64(r, "cpus", si.nr_cpus);
		snprintf(buf, sizeof(buf), "0x%" PRIx64, si.features);
		field_str(r, "features", buf);
		field_u64(r, "session", si.session_id);
	} else if (!gr_decode_metadata(rec, &md)) {
		field_str(r, "kernel", md.kernel);
		field_u64(r, "rings", md.nr_rings);
		for (i = 0; i < md.nr_rings; i++) {
			if (gr_decode_metadata_ring(rec, &md, i, &ring))
				break;
			snprintf(prefix, sizeof(prefix), "ring%" PRIu32 ".", i);
			ring_fields(r, prefix, &ring);
		}
	} else if (!gr_decode_ring(rec, &ring)) {
		ring_fields(r, "", &ring);
	} else if (!gr_decode_summary(rec, &js)) {
		summary_fields(r, &js);
	} else if (!recorder_fields(r, rec)) {
		/* Its fields are in. */
	} else {
		field_u64(r, "size", rec->size);
	}
}

/* Bytes a job event's row takes at most: 11 numbers, 2 short names. */
#define JOB_ROW_MAX	768

static char *p_u64(char *p, uint64_t v)
{
	char tmp[24], *t = tmp + sizeof(tmp);
	size_t n;

	do {
		*--t = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	n = (size_t)(tmp + sizeof(tmp) - t);
	memcpy(p, t, n);
	return p + n;
}

static char *p_s64(char *p, uint64_t v)
{
	if ((int64_t)v < 0) {
		*p++ = '-';
		v = -v;
	}
	return p_u64(p, v);
}

static char *p_mem(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* A constant string: its length is known at compile time. */
#define P_LIT(p, s)	p_mem(p, s, sizeof(s) - 1)

static char *p_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/*
 * A job event's row, written straight: almost every record is one.  Its
 * names (type, engine) are plain ASCII words of the library's tables.
 */
static void job_row(struct gr_rows *o, const struct gr_rec *rec,
		    const struct gr_job *job, unsigned int part)
{
	char tbuf[24], ebuf[16], *p = room(o, JOB_ROW_MAX);
	const char *type = gr_type_name(rec->type, tbuf, sizeof(tbuf));
	const char *eng = gr_engine_name(job->engine, ebuf, sizeof(ebuf));
	int err = rec->type == GRTRACE_EV_ERROR;
	int derived = !!(rec->flags & GRTRACE_HDR_DERIVED);

	if (!o->json) {
		p = p_u64(p, rec->offset);
		*p++ = ',';
		p = p_u64(p, part);
		*p++ = ',';
		p = p_u64(p, rec->cpu);
		*p++ = ',';
		p = p_u64(p, rec->ts);
		*p++ = ',';
		p = p_u64(p, rec->gseq);
		*p++ = ',';
		p = p_u64(p, rec->cseq);
		*p++ = ',';
		p = p_str(p, type);
		*p++ = ',';
		*p++ = (char)('0' + derived);
		*p++ = ',';
		p = p_u64(p, job->ctx);
		*p++ = ',';
		p = p_u64(p, job->seqno);
		*p++ = ',';
		p = p_u64(p, job->ring_id);
		*p++ = ',';
		p = p_str(p, eng);
		*p++ = ',';
		p = err ? p_s64(p, job->aux0) : p_u64(p, job->aux0);
		*p++ = ',';
		p = p_u64(p, job->aux1);
		*p++ = ',';
		if (job->has_task) {
			p = p_u64(p, job->pid);
			*p++ = ',';
			p = p_u64(p, job->tid);
		} else {
			*p++ = ',';
		}
		p = P_LIT(p, ",,");
		if (job->has_client)
			p = p_u64(p, job->client);
		*p++ = '\n';
		o->len = (size_t)(p - o->buf);
		return;
	}
	p = P_LIT(p, "{\"offset\": ");
	p = p_u64(p, rec->offset);
	p = P_LIT(p, ", \"cpu\": ");
	p = p_u64(p, rec->cpu);
	p = P_LIT(p, ", \"ts\": ");
	p = p_u64(p, rec->ts);
	p = P_LIT(p, ", \"gseq\": ");
	p = p_u64(p, rec->gseq);
	p = P_LIT(p, ", \"cseq\": ");
	p = p_u64(p, rec->cseq);
	p = P_LIT(p, ", \"derived\": ");
	*p++ = (char)('0' + derived);
	p = P_LIT(p, ", \"type\": \"");
	p = p_str(p, type);
	p = P_LIT(p, "\", \"ctx\": ");
	p = p_u64(p, job->ctx);
	p = P_LIT(p, ", \"seqno\": ");
	p = p_u64(p, job->seqno);
	p = P_LIT(p, ", \"ring\": ");
	p = p_u64(p, job->ring_id);
	p = P_LIT(p, ", \"engine\": \"");
	p = p_str(p, eng);
	p = P_LIT(p, "\", \"aux0\": ");
	p = err ? p_s64(p, job->aux0) : p_u64(p, job->aux0);
	p = P_LIT(p, ", \"aux1\": ");
	p = p_u64(p, job->aux1);
	if (job->has_task) {
		p = P_LIT(p, ", \"pid\": ");
		p = p_u64(p, job->pid);
		p = P_LIT(p, ", \"tid\": ");
		p = p_u64(p, job->tid);
	} else {
		p = P_LIT(p, ", \"pid\": null, \"tid\": null");
	}
	p = P_LIT(p, ", \"client\": ");
	if (job->has_client)
		p = p_u64(p, job->client);
	else
		p = P_LIT(p, "null");
	p = P_LIT(p, ", \"part\": ");
	p = p_u64(p, part);
	p = P_LIT(p, "}\n");
	o->len = (size_t)(p - o->buf);
}

void gr_rows_record(struct gr_rows *o, const struct gr_rec *rec,
		    unsigned int part)
{
	char tbuf[24];
	struct gr_job job;
	struct row r;

	if (!gr_decode_job(rec, &job)) {
		job_row(o, rec, &job, part);
		return;
	}
	row_init(&r, o, keys_control);
	cell_u64(&r, C_OFFSET, rec->offset);
	cell_u64(&r, C_PART, part);
	cell_u64(&r, C_CPU, rec->cpu);
	cell_u64(&r, C_TS, rec->ts);
	cell_u64(&r, C_GSEQ, rec->gseq);
	cell_u64(&r, C_CSEQ, rec->cseq);
	cell_str(&r, C_TYPE, gr_type_name(rec->type, tbuf, sizeof(tbuf)));
	cell_u64(&r, C_DERIVED, !!(rec->flags & GRTRACE_HDR_DERIVED));
	control_fields(&r, rec);
	emit(o, &r);
	free(r.fields.buf);
}

void gr_rows_task(struct gr_rows *o, const struct grf_task *t,
		  unsigned int part)
{
	struct row r;

	row_init(&r, o, keys_task);
	cell_u64(&r, C_PART, part);
	cell_str(&r, C_TYPE, "TASK");
	cell_u64(&r, C_PID, t->pid);
	cell_u64(&r, C_TID, t->tid);
	field_str(&r, "comm", t->comm);
	field_str(&r, "process", t->process);
	emit(o, &r);
	free(r.fields.buf);
}

void gr_rows_client(struct gr_rows *o, const struct grf_client *c,
		    unsigned int part)
{
	struct row r;

	row_init(&r, o, keys_client);
	cell_u64(&r, C_PART, part);
	cell_str(&r, C_TYPE, "CLIENT");
	cell_u64(&r, C_PID, c->pid);
	cell_u64(&r, C_CLIENT, c->id);
	field_str(&r, "process", c->process);
	emit(o, &r);
	free(r.fields.buf);
}
