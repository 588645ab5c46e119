// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace export: the report engine's jobs as a Perfetto trace
 * (ui.perfetto.dev, trace_processor): protobuf TracePackets of TrackEvents.
 *
 * Tracks.  Each ring is a track group named after it; its jobs go on lane
 * tracks under it ("jobs 0", "jobs 1", ...): a job takes the first lane
 * whose last job ended before it began, so jobs that overlap on a ring
 * (queued behind each other) sit on separate lanes and slices on one track
 * always nest.  A job is a slice "ctx:seqno" from its first event to its
 * last, with a child slice per phase between two of its events (submit:
 * SUBMIT..COMMIT, queue: COMMIT..START, exec: START..END, complete:
 * END..COMPLETE) and, inside the phase it fell in, a slice per dependency
 * wait.  Under the ring too: counters of its queue depth (jobs committed,
 * not ended) and of its busy % per --interval, and a marker track for a
 * hang.  Records lost are markers on a global track.
 *
 * Flows.  The submitting thread (the SUBMIT's pid and tid, format 2) gets
 * a track of its own with an instant at the SUBMIT, and a flow from it to
 * the job; a job whose DRM client the file's client table names has them
 * on a track of that client under the process holding it instead (its
 * SUBMIT's thread may be a kworker).  A dependency on a job already
 * written gets a flow from an instant at that job's END on its lane to an
 * instant on the waiting job's lane when the wait ended.  Flow ids are the
 * order of the flows.
 *
 * Timestamps are the records' own (the module's clock, CLOCK_MONOTONIC),
 * given to Perfetto as its default clock: only differences matter.
 *
 * The encoder writes each packet into one buffer, a nested message's
 * length as a 4-byte varint patched when it closes (protobuf accepts
 * varints with redundant continuation bytes).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "trace-file.h"
#include "u64map.h"

/* Field numbers, from Perfetto's protos/perfetto/trace/. */
enum {
	F_TRACE_PACKET = 1,
	F_PKT_TIMESTAMP = 8,
	F_PKT_SEQ_ID = 10,
	F_PKT_TRACK_EVENT = 11,
	F_PKT_SEQ_FLAGS = 13,
	F_PKT_TRACK_DESC = 60,
	F_TD_UUID = 1,
	F_TD_NAME = 2,
	F_TD_PROCESS = 3,
	F_TD_THREAD = 4,
	F_TD_PARENT = 5,
	F_TD_COUNTER = 8,
	F_TD_SIBLING_RANK = 12,
	F_PD_PID = 1,
	F_PD_NAME = 6,
	F_THD_PID = 1,
	F_THD_TID = 2,
	F_THD_NAME = 5,
	F_CD_UNIT = 3,
	F_CD_UNIT_NAME = 6,
	F_TE_ANNOTATION = 4,
	F_TE_TYPE = 9,
	F_TE_TRACK = 11,
	F_TE_NAME = 23,
	F_TE_COUNTER = 30,
	F_TE_DCOUNTER = 44,
	F_TE_FLOW = 47,
	F_TE_FLOW_END = 48,
	F_DA_UINT = 3,
	F_DA_INT = 4,
	F_DA_STRING = 6,
	F_DA_NAME = 10,
};

enum { TE_BEGIN = 1, TE_END = 2, TE_INSTANT = 3, TE_COUNTER = 4 };
enum { UNIT_COUNT = 2 };
enum { SEQ_CLEARED = 1 };
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

/* Track uuids: the lost-records track, per ring, per task, per client. */
#define UUID_LOST		1ULL
#define UUID_RING(r)		(((uint64_t)(r) + 1) << 24)
#define UUID_LANE(r, k)		(UUID_RING(r) + 16 + (k))
#define UUID_DEPTH(r)		(UUID_RING(r) + 1)
#define UUID_BUSY(r)		(UUID_RING(r) + 2)
#define UUID_HANG(r)		(UUID_RING(r) + 3)
#define UUID_PROCESS(pid)	((1ULL << 60) | (pid))
#define UUID_THREAD(tid)	((2ULL << 60) | (tid))
#define UUID_CLIENT(id)		((3ULL << 60) | ((id) & ((1ULL << 60) - 1)))
/* --critical-path: a group, and a track per hop of each path. */
#define UUID_CRIT		2ULL
#define UUID_HOP(p, k)		((4ULL << 60) | ((uint64_t)(p) << 20) | (k))
/* Lanes per ring: UUID_LANE() must stay below the next ring's. */
#define MAX_LANES		((1u << 24) - 16)

/* Jobs recently written, for the dependencies that name them. */
#define DONE_BITS		16

struct done {
	uint64_t ctx;
	uint64_t seqno;
	uint64_t end;
	uint64_t lane;		/* track uuid; 0: empty */
};

struct pf_ring {
	int described;
	uint64_t *lane_end;	/* per lane: the end of its last job */
	uint32_t nlanes;
	uint32_t lanes_cap;
};

struct pf {
	uint8_t *b;
	size_t n, cap;
	struct pf_ring *rings;
	uint32_t nrings;
	struct u64map *tasks;	/* UUID_PROCESS/_THREAD/_CLIENT described */
	struct done done[1u << DONE_BITS];
	uint64_t flows;
	uint64_t jobs, with_task, deps, deps_drawn, lost_marks;
	int lost_described;
	int finishing;		/* the input is read: jobs close, none ends */
	char failed[GR_ERRMSG_LEN];	/* why the file is not valid, or "" */
};

#define PF(rp)	((struct pf *)(rp)->sink_state)

/* ---- the encoder ------------------------------------------------------------- */

static void pb_room(struct pf *pf, size_t n)
{
	if (pf->n + n <= pf->cap)
		return;
	while (pf->n + n > pf->cap)
		pf->cap = pf->cap ? pf->cap * 2 : 4096;
	pf->b = xrealloc(pf->b, pf->cap);
}

static void pb_varint(struct pf *pf, uint64_t v)
{
	pb_room(pf, 10);
	while (v >= 0x80) {
		pf->b[pf->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	pf->b[pf->n++] = (uint8_t)v;
}

static void pb_tag(struct pf *pf, unsigned int field, unsigned int wt)
{
	pb_varint(pf, (uint64_t)field << 3 | wt);
}

static void pb_u64(struct pf *pf, unsigned int field, uint64_t v)
{
	pb_tag(pf, field, WT_VARINT);
	pb_varint(pf, v);
}

static void pb_fixed64(struct pf *pf, unsigned int field, uint64_t v)
{
	int i;

	pb_tag(pf, field, WT_I64);
	pb_room(pf, 8);
	for (i = 0; i < 8; i++)
		pf->b[pf->n++] = (uint8_t)(v >> (8 * i));
}

static void pb_double(struct pf *pf, unsigned int field, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	pb_fixed64(pf, field, v);
}

static void pb_str(struct pf *pf, unsigned int field, const char *s)
{
	size_t len = strlen(s);

	pb_tag(pf, field, WT_LEN);
	pb_varint(pf, len);
	pb_room(pf, len);
	memcpy(pf->b + pf->n, s, len);
	pf->n += len;
}

/* A nested message: its length is patched in by pb_close(). */
static size_t pb_open(struct pf *pf, unsigned int field)
{
	size_t at;

	pb_tag(pf, field, WT_LEN);
	pb_room(pf, 4);
	at = pf->n;
	pf->n += 4;
	return at;
}

static void pb_close(struct pf *pf, size_t at)
{
	size_t len = pf->n - at - 4;

	if (len >= 1u << 28 && !pf->failed[0])
		snprintf(pf->failed, sizeof(pf->failed),
			 "export: a packet of %zu bytes is too large", len);
	pf->b[at] = (uint8_t)(len | 0x80);
	pf->b[at + 1] = (uint8_t)(len >> 7 | 0x80);
	pf->b[at + 2] = (uint8_t)(len >> 14 | 0x80);
	pf->b[at + 3] = (uint8_t)(len >> 21);
}

/* ---- packets ----------------------------------------------------------------- */

/* A packet: the Trace's repeated field 1.  Returns where to close it. */
static size_t packet_open(struct pf *pf)
{
	size_t at = pb_open(pf, F_TRACE_PACKET);

	pb_u64(pf, F_PKT_SEQ_ID, 1);
	return at;
}

static void packet_close(struct rp *rp, size_t at)
{
	pb_close(PF(rp), at);
	fwrite(PF(rp)->b, 1, PF(rp)->n, rp->out);
	PF(rp)->n = 0;
}

static void track(struct rp *rp, uint64_t uuid, uint64_t parent,
		  const char *name, int rank)
{
	struct pf *pf = rp->sink_state;
	size_t p = packet_open(pf), t = pb_open(pf, F_PKT_TRACK_DESC);

	pb_u64(pf, F_TD_UUID, uuid);
	if (parent)
		pb_u64(pf, F_TD_PARENT, parent);
	pb_str(pf, F_TD_NAME, name);
	if (rank >= 0)
		pb_u64(pf, F_TD_SIBLING_RANK, (uint64_t)rank);
	pb_close(pf, t);
	packet_close(rp, p);
}

static void counter_track(struct rp *rp, uint64_t uuid, uint64_t parent,
			  const char *name, int count, const char *unit)
{
	struct pf *pf = rp->sink_state;
	size_t p = packet_open(pf), t = pb_open(pf, F_PKT_TRACK_DESC), c;

	pb_u64(pf, F_TD_UUID, uuid);
	pb_u64(pf, F_TD_PARENT, parent);
	pb_str(pf, F_TD_NAME, name);
	c = pb_open(pf, F_TD_COUNTER);
	if (count)
		pb_u64(pf, F_CD_UNIT, UNIT_COUNT);
	pb_str(pf, F_CD_UNIT_NAME, unit);
	pb_close(pf, c);
	pb_close(pf, t);
	packet_close(rp, p);
}

/* An event's packet, left open for its fields; close with event_close(). */
static size_t event_open(struct pf *pf, uint64_t ts, uint64_t uuid, int type,
			 size_t *te)
{
	size_t p = packet_open(pf);

	pb_u64(pf, F_PKT_TIMESTAMP, ts);
	*te = pb_open(pf, F_PKT_TRACK_EVENT);
	pb_u64(pf, F_TE_TYPE, (uint64_t)type);
	pb_u64(pf, F_TE_TRACK, uuid);
	return p;
}

static void event_close(struct rp *rp, size_t p, size_t te)
{
	pb_close(PF(rp), te);
	packet_close(rp, p);
}

static void note_u64(struct pf *pf, const char *name, uint64_t v)
{
	size_t a = pb_open(pf, F_TE_ANNOTATION);

	pb_str(pf, F_DA_NAME, name);
	pb_u64(pf, F_DA_UINT, v);
	pb_close(pf, a);
}

static void note_i64(struct pf *pf, const char *name, int64_t v)
{
	size_t a = pb_open(pf, F_TE_ANNOTATION);

	pb_str(pf, F_DA_NAME, name);
	pb_u64(pf, F_DA_INT, (uint64_t)v);
	pb_close(pf, a);
}

static void note_str(struct pf *pf, const char *name, const char *v)
{
	size_t a = pb_open(pf, F_TE_ANNOTATION);

	pb_str(pf, F_DA_NAME, name);
	pb_str(pf, F_DA_STRING, v);
	pb_close(pf, a);
}

/* A slice's end, or an instant with at most one flow id in or out. */
static void simple_event(struct rp *rp, uint64_t ts, uint64_t uuid, int type,
			 const char *name, uint64_t flow, uint64_t flow_end)
{
	size_t te, p = event_open(PF(rp), ts, uuid, type, &te);

	if (name)
		pb_str(PF(rp), F_TE_NAME, name);
	if (flow)
		pb_fixed64(PF(rp), F_TE_FLOW, flow);
	if (flow_end)
		pb_fixed64(PF(rp), F_TE_FLOW_END, flow_end);
	event_close(rp, p, te);
}

/* ---- rings and lanes ---------------------------------------------------------- */

static struct pf_ring *pf_ring(struct rp *rp, uint32_t ring)
{
	struct pf *pf = rp->sink_state;
	struct pf_ring *pr;
	const struct ring *r = &rp->rings[ring];
	char name[160];

	if (ring >= pf->nrings) {
		uint32_t n = rp->rings_cap > ring ? rp->rings_cap : ring + 1;

		pf->rings = xrealloc(pf->rings, n * sizeof(*pf->rings));
		memset(pf->rings + pf->nrings, 0,
		       (n - pf->nrings) * sizeof(*pf->rings));
		pf->nrings = n;
	}
	pr = &pf->rings[ring];
	if (pr->described)
		return pr;
	pr->described = 1;
	if (r->driver[0] || r->device[0])
		snprintf(name, sizeof(name), "ring %" PRIu32 " %s (%s%s%s)",
			 r->ring_id, r->name[0] ? r->name : "(unnamed)",
			 r->driver, r->driver[0] && r->device[0] ? " " : "",
			 r->device);
	else
		snprintf(name, sizeof(name), "ring %" PRIu32 " %s", r->ring_id,
			 r->name[0] ? r->name : "(unnamed)");
	track(rp, UUID_RING(ring), 0, name, (int)(ring & 0xffffff));
	counter_track(rp, UUID_DEPTH(ring), UUID_RING(ring), "queue depth", 1,
		      "jobs");
	return pr;
}

/* The lane for a job over [first, last] on @ring: its track uuid. */
static uint64_t lane_for(struct rp *rp, uint32_t ring, uint64_t first,
			 uint64_t last)
{
	struct pf_ring *pr = pf_ring(rp, ring);
	char name[32];
	uint32_t k;

	for (k = 0; k < pr->nlanes; k++)
		if (pr->lane_end[k] < first)
			break;
	if (k == pr->nlanes) {
		if (k == MAX_LANES) {
			if (!PF(rp)->failed[0])
				snprintf(PF(rp)->failed, sizeof(PF(rp)->failed),
					 "export: more than %u jobs at once on ring %" PRIu32,
					 MAX_LANES, rp->rings[ring].ring_id);
			k--;
			pr->lane_end[k] = last;
			return UUID_LANE(ring, k);
		}
		if (k == pr->lanes_cap) {
			pr->lanes_cap = pr->lanes_cap ? pr->lanes_cap * 2 : 8;
			pr->lane_end = xrealloc(pr->lane_end, pr->lanes_cap *
						sizeof(*pr->lane_end));
		}
		pr->nlanes++;
		snprintf(name, sizeof(name), "jobs %" PRIu32, k);
		track(rp, UUID_LANE(ring, k), UUID_RING(ring), name, (int)k);
	}
	/* Its last job ended before @first <= @last: this one ends later. */
	pr->lane_end[k] = last;
	return UUID_LANE(ring, k);
}

/* ---- tasks ------------------------------------------------------------------ */

/* Process @pid's track, described once, named @name (may be NULL). */
static void process_track(struct rp *rp, uint32_t pid, const char *name)
{
	struct pf *pf = rp->sink_state;
	size_t p, t, d;

	if (u64map_get(pf->tasks, UUID_PROCESS(pid)) >= 0)
		return;
	p = packet_open(pf);
	t = pb_open(pf, F_PKT_TRACK_DESC);
	pb_u64(pf, F_TD_UUID, UUID_PROCESS(pid));
	d = pb_open(pf, F_TD_PROCESS);
	pb_u64(pf, F_PD_PID, pid);
	if (name)
		pb_str(pf, F_PD_NAME, name);
	pb_close(pf, d);
	pb_close(pf, t);
	packet_close(rp, p);
	u64map_set(pf->tasks, UUID_PROCESS(pid), 1);
}

static uint64_t task_track(struct rp *rp, uint32_t pid, uint32_t tid)
{
	const struct grf_task *named = rp_task(rp, tid);
	struct pf *pf = rp->sink_state;
	size_t p, t, d;

	if (u64map_get(pf->tasks, UUID_THREAD(tid)) >= 0)
		return UUID_THREAD(tid);
	/* Named by the task table: the first of its threads named. */
	process_track(rp, pid, named ? named->process : NULL);
	p = packet_open(pf);
	t = pb_open(pf, F_PKT_TRACK_DESC);
	pb_u64(pf, F_TD_UUID, UUID_THREAD(tid));
	d = pb_open(pf, F_TD_THREAD);
	pb_u64(pf, F_THD_PID, pid);
	pb_u64(pf, F_THD_TID, tid);
	if (named)
		pb_str(pf, F_THD_NAME, named->comm);
	pb_close(pf, d);
	pb_close(pf, t);
	packet_close(rp, p);
	u64map_set(pf->tasks, UUID_THREAD(tid), 1);
	return UUID_THREAD(tid);
}

/*
 * DRM client @c's track, under the process holding it: where its jobs
 * were submitted, whichever thread ran the SUBMIT.
 */
static uint64_t client_track(struct rp *rp, const struct grf_client *c)
{
	struct pf *pf = rp->sink_state;
	char name[48];

	if (u64map_get(pf->tasks, UUID_CLIENT(c->id)) >= 0)
		return UUID_CLIENT(c->id);
	process_track(rp, c->pid, c->process);
	snprintf(name, sizeof(name), "DRM client %" PRIu64, c->id);
	track(rp, UUID_CLIENT(c->id), UUID_PROCESS(c->pid), name, -1);
	u64map_set(pf->tasks, UUID_CLIENT(c->id), 1);
	return UUID_CLIENT(c->id);
}

/* ---- jobs ------------------------------------------------------------------- */

static uint32_t done_slot(uint64_t ctx, uint64_t seqno)
{
	return (uint32_t)(mix64(ctx * 0x9e3779b97f4a7c15ULL ^ seqno) >>
			  (64 - DONE_BITS));
}

/* Phase k runs from stamp k to stamp k + 1. */
static const char *const phase_names[NR_STAMPS - 1] = {
	"submit", "queue", "exec", "complete",
};

/* The phases from stamp @a to stamp @b, "queue+exec" when one is missing. */
static void phase_name(char *buf, size_t len, int a, int b)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = a; k < b; k++)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      k > a ? "+" : "", phase_names[k]);
}

/* The wait slices of @row within [from, to]: a phase's. */
static void waits_within(struct rp *rp, const struct row *row, uint64_t lane,
			 uint64_t from, uint64_t to)
{
	struct pf *pf = rp->sink_state;
	char name[64];
	unsigned int k;

	for (k = 0; k < row->ndeps; k++) {
		const struct dep *d = &row->dep[k];
		size_t te, p;

		if (!d->exit || d->enter < from || d->exit > to ||
		    d->exit <= d->enter)
			continue;
		snprintf(name, sizeof(name), "wait %" PRIu64 ":%" PRIu64,
			 d->ctx, d->seqno);
		p = event_open(pf, d->enter, lane, TE_BEGIN, &te);
		pb_str(pf, F_TE_NAME, name);
		note_u64(pf, "dep_ctx", d->ctx);
		note_u64(pf, "dep_seqno", d->seqno);
		event_close(rp, p, te);
		simple_event(rp, d->exit, lane, TE_END, NULL, 0, 0);
	}
}

/* Flows from the jobs @row waited on, where those were written before. */
static void dep_flows(struct rp *rp, const struct row *row, uint64_t lane,
		      uint64_t last)
{
	struct pf *pf = rp->sink_state;
	char name[64];
	unsigned int k;

	for (k = 0; k < row->ndeps; k++) {
		const struct dep *d = &row->dep[k];
		const struct done *dn = &pf->done[done_slot(d->ctx, d->seqno)];
		uint64_t at = d->exit ? d->exit : last, from;

		pf->deps++;
		if (!dn->lane || dn->ctx != d->ctx || dn->seqno != d->seqno)
			continue;
		from = dn->end < at ? dn->end : at;
		pf->flows++;
		pf->deps_drawn++;
		snprintf(name, sizeof(name), "signalled %" PRIu64 ":%" PRIu64,
			 d->ctx, d->seqno);
		simple_event(rp, from, dn->lane, TE_INSTANT, name, pf->flows, 0);
		snprintf(name, sizeof(name), "dependency %" PRIu64 ":%" PRIu64,
			 d->ctx, d->seqno);
		simple_event(rp, at, lane, TE_INSTANT, name, 0, pf->flows);
	}
}

/* --why: the wait's parts, what it waited for last, and whose jobs ran. */
static void why_notes(struct rp *rp, const struct why *w)
{
	struct pf *pf = rp->sink_state;
	char buf[512], pb[96];

	note_u64(pf, "why_dep_ns", w->dep_ns);
	note_u64(pf, "why_sched_ns", w->sched_ns);
	note_u64(pf, "why_ring_ns", w->ring_ns);
	if (w->dep) {
		snprintf(buf, sizeof(buf), "%" PRIu64 ":%" PRIu64, w->dep_ctx,
			 w->dep_seqno);
		note_str(pf, "why_dep_on", buf);
		if (w->dep_known) {
			note_u64(pf, "why_dep_ring",
				 rp->rings[w->dep_ring].ring_id);
			why_wp_str(rp, w->dep_wp, pb, sizeof(pb));
			note_str(pf, "why_dep_process", pb);
		}
	}
	/* As CSV's column: the processes past the first eight as other. */
	why_behind_str(rp, w, buf, sizeof(buf));
	if (buf[0])
		note_str(pf, "why_behind", buf);
}

/*
 * --critical-path: each hop a slice over its wait (SUBMIT to start) on a
 * track of its own under "critical path", named for the path and hop; a
 * hop not in the trace has no times, only its track, whose name says so.
 */
static void crit_hop(struct rp *rp, uint32_t path, uint32_t hop,
		     const struct why_node *nd, uint64_t ctx, uint64_t seqno,
		     const struct why_node *by)
{
	struct pf *pf = rp->sink_state;
	char name[160];
	size_t te, p;

	if (!path && !hop)
		track(rp, UUID_CRIT, 0, "critical path", -1);
	if (nd)
		snprintf(name, sizeof(name), "path %u hop %u", path + 1,
			 hop + 1);
	else
		snprintf(name, sizeof(name), "path %u hop %u: %" PRIu64 ":%" PRIu64 " not in the trace, the path stops",
			 path + 1, hop + 1, ctx, seqno);
	track(rp, UUID_HOP(path, hop), UUID_CRIT, name, (int)hop);
	if (!nd)
		return;
	snprintf(name, sizeof(name), "%" PRIu64 ":%" PRIu64 " waited", ctx,
		 seqno);
	p = event_open(pf, nd->submit, UUID_HOP(path, hop), TE_BEGIN, &te);
	pb_str(pf, F_TE_NAME, name);
	note_u64(pf, "ring", rp->rings[nd->ring].ring_id);
	if (rp->wps[nd->wp].pid != PROC_NONE)
		note_u64(pf, "pid", rp->wps[nd->wp].pid);
	note_u64(pf, "why_dep_ns", nd->dep_ns);
	note_u64(pf, "why_sched_ns", nd->sched_ns);
	note_u64(pf, "why_ring_ns", nd->ring_ns);
	if (nd->dep) {
		snprintf(name, sizeof(name), "%" PRIu64 ":%" PRIu64,
			 nd->dep_ctx, nd->dep_seqno);
		note_str(pf, "why_dep_on", name);
	}
	/* The wait it caused: the dep_ns of the job it held up. */
	if (by)
		note_u64(pf, "why_caused_ns", by->dep_ns);
	event_close(rp, p, te);
	simple_event(rp, nd->start, UUID_HOP(path, hop), TE_END, NULL, 0, 0);
}

static void job_notes(struct rp *rp, const struct row *row)
{
	struct pf *pf = rp->sink_state;
	const struct ring *r = &rp->rings[row->ring];
	struct submitter s;
	char labels[128];
	size_t n = 0;
	int k;

	note_u64(pf, "ctx", row->ctx);
	note_u64(pf, "seqno", row->seqno);
	note_u64(pf, "ring", r->ring_id);
	/* As report's columns: the submitting process, the SUBMIT's thread. */
	if (rp_submitter(rp, row, &s))
		note_u64(pf, "pid", s.pid);
	if (row->has_task)
		note_u64(pf, "tid", row->tid);
	if (row->has_client)
		note_u64(pf, "client_id", row->client);
	if (row->errors)
		note_i64(pf, "error", row->error);
	if (row->waits)
		note_u64(pf, "waits", row->waits);
	for (k = 0; k < NR_METRICS; k++)
		if (row->mhave & (1u << k))
			note_u64(pf, rp_metric_names[k], row->m[k]);
	labels[0] = '\0';
	for (k = 0; k < NR_LABELS; k++)
		if (row->labels & (1u << k))
			n += (size_t)snprintf(labels + n, n < sizeof(labels) ?
					      sizeof(labels) - n : 0, "%s%s",
					      n ? "," : "", rp_label_names[k]);
	if (labels[0])
		note_str(pf, "labels", labels);
	if (row->start_derived)
		note_str(pf, "start", "derived");
	if (row->why.have)
		why_notes(rp, &row->why);
}

static void pf_row(struct rp *rp, const struct row *row)
{
	struct pf *pf = rp->sink_state;
	uint64_t first = UINT64_MAX, last = 0, lane, submit_flow = 0;
	uint64_t stamp[NR_STAMPS];
	int have[NR_STAMPS], k, prev = -1, unended;
	struct submitter s;
	char name[64];
	size_t te, p;

	for (k = 0; k < NR_STAMPS; k++) {
		have[k] = !!(row->have & (1u << k));
		stamp[k] = row->ts[k];
		if (!have[k])
			continue;
		if (stamp[k] < first)
			first = stamp[k];
		if (stamp[k] > last)
			last = stamp[k];
	}
	if (!row->have)
		return;
	/* Started and never ended: it ran until the end of the trace. */
	unended = have[ST_START] && !have[ST_END] && !have[ST_COMPLETE];
	if (unended && rp_window_end(rp) > last)
		last = rp_window_end(rp);
	pf->jobs++;
	lane = lane_for(rp, row->ring, first, last);

	if (have[ST_SUBMIT] && rp_submitter(rp, row, &s)) {
		uint64_t thread = s.client ? client_track(rp, s.client) :
				  task_track(rp, row->pid, row->tid);

		pf->with_task++;
		submit_flow = ++pf->flows;
		snprintf(name, sizeof(name), "submit %" PRIu64 ":%" PRIu64,
			 row->ctx, row->seqno);
		simple_event(rp, stamp[ST_SUBMIT], thread, TE_INSTANT, name,
			     submit_flow, 0);
	}

	snprintf(name, sizeof(name), "%" PRIu64 ":%" PRIu64, row->ctx,
		 row->seqno);
	p = event_open(pf, first, lane, TE_BEGIN, &te);
	pb_str(pf, F_TE_NAME, name);
	if (submit_flow)
		pb_fixed64(pf, F_TE_FLOW_END, submit_flow);
	job_notes(rp, row);
	event_close(rp, p, te);
	/* Before the phases: at the END, inside exec, not after it. */
	if (row->errors) {
		snprintf(name, sizeof(name), "error %" PRId64, row->error);
		simple_event(rp, have[ST_END] ? stamp[ST_END] : last, lane,
			     TE_INSTANT, name, 0, 0);
	}

	/* The phases: between consecutive events the job has, in order. */
	for (k = 0; k < NR_STAMPS; k++) {
		if (!have[k] || (prev >= 0 && stamp[k] < stamp[prev]))
			continue;	/* out of order: no phase ends there */
		if (prev >= 0 && stamp[k] > stamp[prev]) {
			phase_name(name, sizeof(name), prev, k);
			p = event_open(pf, stamp[prev], lane, TE_BEGIN, &te);
			pb_str(pf, F_TE_NAME, name);
			if (row->derived & (1u << k))
				note_str(pf, "end", "derived");
			if (k == ST_END && row->start_derived)
				note_str(pf, "start", "derived");
			event_close(rp, p, te);
			waits_within(rp, row, lane, stamp[prev], stamp[k]);
			simple_event(rp, stamp[k], lane, TE_END, NULL, 0, 0);
		}
		prev = k;
	}
	if (unended && last > stamp[ST_START]) {
		simple_event(rp, stamp[ST_START], lane, TE_BEGIN,
			     "exec (never ended)", 0, 0);
		simple_event(rp, last, lane, TE_END, NULL, 0, 0);
	}
	dep_flows(rp, row, lane, last);
	simple_event(rp, last, lane, TE_END, NULL, 0, 0);

	if (have[ST_END]) {
		struct done *dn = &pf->done[done_slot(row->ctx, row->seqno)];

		*dn = (struct done){ .ctx = row->ctx, .seqno = row->seqno,
				     .end = stamp[ST_END], .lane = lane };
	}
}

static void pf_finishing(struct rp *rp)
{
	PF(rp)->finishing = 1;
}

static void pf_depth(struct rp *rp, uint32_t ring, uint64_t ts, uint64_t depth)
{
	size_t te, p;

	/* Jobs still queued at the end stay in the depth: they never left. */
	if (PF(rp)->finishing)
		return;

	pf_ring(rp, ring);
	p = event_open(PF(rp), ts, UUID_DEPTH(ring), TE_COUNTER, &te);
	pb_u64(PF(rp), F_TE_COUNTER, depth);
	event_close(rp, p, te);
}

static void pf_lost(struct rp *rp, uint64_t ts, uint64_t n, int cpu)
{
	struct pf *pf = rp->sink_state;
	char name[96];

	if (!pf->lost_described) {
		track(rp, UUID_LOST, 0, "grtrace: records lost", -1);
		pf->lost_described = 1;
	}
	if (cpu >= 0)
		snprintf(name, sizeof(name), "lost %" PRIu64 " records (CPU %d)",
			 n, cpu);
	else
		snprintf(name, sizeof(name), "lost %" PRIu64 " records", n);
	simple_event(rp, ts, UUID_LOST, TE_INSTANT, name, 0, 0);
	pf->lost_marks++;
}

static int pf_new(struct rp *rp)
{
	struct pf *pf = xzalloc(sizeof(*pf));
	size_t p;

	pf->tasks = u64map_new();
	rp->sink_state = pf;
	/* The sequence starts clean: nothing before it to depend on. */
	p = packet_open(pf);
	pb_u64(pf, F_PKT_SEQ_FLAGS, SEQ_CLEARED);
	packet_close(rp, p);
	return 0;
}

/* Busy % per interval, and the hangs, once the input is read. */
static int pf_end(struct rp *rp, const struct rp_input *in)
{
	struct pf *pf = rp->sink_state;
	uint64_t iv = rp->o.interval, window = rp_window(rp);
	uint32_t i, k;
	char name[256];

	(void)in;
	for (i = 0; i < rp->nrings; i++) {
		struct ring *r = &rp->rings[i];
		const struct group *g = &r->g;
		uint64_t nb = window ? (window + iv - 1) / iv : 0;
		size_t te, p;

		if (!g->jobs && !r->hung)
			continue;
		pf_ring(rp, i);
		counter_track(rp, UUID_BUSY(i), UUID_RING(i), "busy %", 0, "%");
		/* Past its timeline's last interval the ring was idle: a 0. */
		for (k = 0; k < nb && k <= g->ntl; k++) {
			uint64_t from = (uint64_t)k * iv;
			uint64_t len = window - from < iv ? window - from : iv;
			uint64_t busy = k < g->ntl ? g->tl[k] : 0;

			p = event_open(pf, rp->win_start + from, UUID_BUSY(i),
				       TE_COUNTER, &te);
			pb_double(pf, F_TE_DCOUNTER, len ? 100.0 * (double)busy /
				  (double)len : 0.0);
			event_close(rp, p, te);
		}
		if (ring_hung(rp, r, name, sizeof(name))) {
			track(rp, UUID_HANG(i), UUID_RING(i), "hang", -1);
			simple_event(rp, r->hung_since, UUID_HANG(i), TE_INSTANT,
				     name, 0, 0);
		}
	}
	if (rp->o.critical)
		why_critical_each(rp, crit_hop);
	if (rp->tl_dropped)
		rp_warn(rp, "export: the busy %% counters stop after %u intervals of %" PRIu64 " ns: give a longer --interval",
			GROUP_TL_MAX, iv);
	if (pf->jobs && !pf->with_task)
		rp_warn(rp, "export: no submitter data (no SUBMIT carries a pid and tid): the trace has no submitter tracks or flows");
	if (pf->deps > pf->deps_drawn)
		rp_warn(rp, "export: %" PRIu64 " of %" PRIu64 " dependency waits have no flow: the job waited on is not in the trace, or ended after the waiting job",
			pf->deps - pf->deps_drawn, pf->deps);
	if (!pf->failed[0])
		return 0;
	snprintf(rp->errmsg, sizeof(rp->errmsg), "%s", pf->failed);
	return -1;
}

static void pf_free(struct rp *rp)
{
	struct pf *pf = rp->sink_state;
	uint32_t i;

	if (!pf)
		return;
	for (i = 0; i < pf->nrings; i++)
		free(pf->rings[i].lane_end);
	free(pf->rings);
	u64map_free(pf->tasks);
	free(pf->b);
	free(pf);
}

/* The lanes, counters and markers are per ring: export sets --per-ring. */
const struct rp_sink rp_sink_perfetto = {
	.name = "perfetto",
	.summary = "a Perfetto trace (protobuf) for ui.perfetto.dev: grtrace export",
	.flags = RP_SINK_EXPORT | RP_SINK_BINARY | RP_SINK_DEPS,
	.begin = pf_new,
	.row = pf_row,
	.depth = pf_depth,
	.lost = pf_lost,
	.finishing = pf_finishing,
	.end = pf_end,
	.free = pf_free,
};
