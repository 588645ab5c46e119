// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: the records of several per-CPU streams, merged by gseq.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "merge.h"
#include "util.h"

#define NR_CPU_IDS	65536		/* the header's cpu is a u16 */
#define FD_READ_SIZE	(1u << 20)
#define DROP_EVERY	65536		/* records between two page drops */
#define DROP_MIN	(4u << 20)	/* bytes worth an madvise() */
/*
 * Prefetch distances: the scanner reads the file from memory for the first
 * time; the merge reads it again, MERGE_LOOKAHEAD later, out of cache.
 */
#define SCAN_PREFETCH	4096
#define MERGE_PREFETCH	512

struct chunk {
	size_t off;
	size_t end;
	uint64_t shift;		/* of its part */
	unsigned int part;
};

struct merge_cursor {
	const uint8_t *p;	/* next record: whole and validated */
	const uint8_t *end;	/* end of the validated records */
	uint64_t shift;		/* added to the gseqs of this chunk's part */
	unsigned int part;
	int in_heap;
	/* The scanner: this CPU's last gseq and cseq in part @scan_part - 1. */
	uint64_t scan_last;
	uint64_t scan_cseq;
	unsigned int scan_part;

	/* Buffer input: chunks found by the scanner, not yet started. */
	struct chunk *q;
	unsigned int qhead, qlen, qcap;

	/* Descriptor input. */
	int fd;
	const char *name;
	uint8_t *rbuf;
	size_t rlen;		/* bytes in @rbuf */
	uint64_t roff;		/* stream offset of rbuf[0] */
	int done;		/* end of file, or an error */
};

static void merge_error(struct merge *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void merge_error(struct merge *m, const char *fmt, ...)
{
	va_list ap;

	m->nerrors++;
	if (m->failed)
		return;
	m->failed = 1;
	va_start(ap, fmt);
	vsnprintf(m->errmsg, sizeof(m->errmsg), fmt, ap);
	va_end(ap);
}

/* ---- heap of cursors by the gseq of their next record ------------------- */

/*
 * By gseq; by ts where gseq ties (a session recorded with gseq=0).  The
 * heap holds the keys next to the cursor index: comparing touches nothing
 * else.
 */
static inline int key_less(const struct merge_key *x,
			    const struct merge_key *y)
{
	if (x->gseq != y->gseq)
		return x->gseq < y->gseq;
	if (x->ts != y->ts)
		return x->ts < y->ts;
	return x->cur < y->cur;
}

/* The key of the record at @p, which cursor @c is at; @shift: its part's. */
static inline struct merge_key key_at(const uint8_t *p, unsigned int c,
				      uint64_t shift)
{
	return (struct merge_key){
		gr_le64(p + offsetof(struct grtrace_hdr, gseq)) + shift,
		gr_le64(p + offsetof(struct grtrace_hdr, ts)), c };
}

static struct merge_key key_of(const struct merge *m, unsigned int c)
{
	return key_at(m->cur[c].p, c, m->cur[c].shift);
}

static inline void heap_down(struct merge *m, unsigned int i)
{
	struct merge_key k = m->heap[i];

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= m->nheap)
			break;
		if (c + 1 < m->nheap && key_less(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!key_less(&m->heap[c], &k))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = k;
}

static void heap_push(struct merge *m, unsigned int c)
{
	struct merge_key k = key_of(m, c);
	unsigned int i = m->nheap++;

	while (i && key_less(&k, &m->heap[(i - 1) / 2])) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = k;
	m->cur[c].in_heap = 1;
}

static void heap_pop(struct merge *m)
{
	m->cur[m->heap[0].cur].in_heap = 0;
	m->heap[0] = m->heap[--m->nheap];
	heap_down(m, 0);
}

/* ---- buffer input: the scanner ------------------------------------------- */

static unsigned int cursor_of_cpu(struct merge *m, uint16_t cpu)
{
	unsigned int c;

	if (m->cpu_slot[cpu])
		return m->cpu_slot[cpu] - 1;
	c = m->ncur++;
	m->cur = xrealloc(m->cur, m->ncur * sizeof(*m->cur));
	m->heap = xrealloc(m->heap, m->ncur * sizeof(*m->heap));
	memset(&m->cur[c], 0, sizeof(m->cur[c]));
	m->cur[c].fd = -1;
	m->cpu_slot[cpu] = c + 1;
	return c;
}

static void start_chunk(struct merge *m, struct merge_cursor *c,
			struct chunk ch)
{
	c->p = m->buf + ch.off;
	c->end = m->buf + ch.end;
	c->shift = ch.shift;
	c->part = ch.part;
}

#define HDR_GSEQ(p)	gr_le64((p) + offsetof(struct grtrace_hdr, gseq))
#define HDR_CSEQ(p)	gr_le64((p) + offsetof(struct grtrace_hdr, cseq))

/*
 * Records [@off, @end) of one CPU, of the part being scanned; the last one
 * is at @last, with the highest gseq: a CPU's records come in gseq order.
 */
static void push_chunk(struct merge *m, uint16_t cpu, size_t off, size_t end,
		       size_t last)
{
	unsigned int ci = cursor_of_cpu(m, cpu);
	struct merge_cursor *c = &m->cur[ci];
	uint64_t top = HDR_GSEQ(m->buf + last);
	struct chunk *tail;

	c->scan_last = top;
	c->scan_cseq = HDR_CSEQ(m->buf + last);
	c->scan_part = m->part + 1;
	if (top + m->shift > m->scan_max)
		m->scan_max = top + m->shift;
	if (!c->in_heap) {
		start_chunk(m, c, (struct chunk){ off, end, m->shift, m->part });
		heap_push(m, ci);
		return;
	}
	/* @qcap is a power of two: the ring wraps with a mask. */
	tail = c->qlen ? &c->q[(c->qhead + c->qlen - 1) & (c->qcap - 1)] : NULL;
	if (tail && tail->end == off && tail->part == m->part) {
		tail->end = end;
		return;
	}
	if (!tail && c->end == m->buf + off && c->part == m->part) {
		c->end = m->buf + end;
		return;
	}
	if (c->qlen == c->qcap) {
		unsigned int ncap = c->qcap ? c->qcap * 2 : 16, i;
		struct chunk *nq = xmalloc(ncap * sizeof(*nq));

		for (i = 0; i < c->qlen; i++)
			nq[i] = c->q[(c->qhead + i) & (c->qcap - 1)];
		free(c->q);
		c->q = nq;
		c->qcap = ncap;
		c->qhead = 0;
	}
	c->q[(c->qhead + c->qlen++) & (c->qcap - 1)] =
		(struct chunk){ off, end, m->shift, m->part };
}

/*
 * The gseq of @cpu's last record in the part being scanned, or 0; its cseq
 * into *@cseq.
 */
static uint64_t scan_last(struct merge *m, uint16_t cpu, uint64_t *cseq)
{
	/* cursor_of_cpu() may move m->cur: index it only after the call. */
	unsigned int ci = cursor_of_cpu(m, cpu);
	struct merge_cursor *c = &m->cur[ci];

	if (c->scan_part != m->part + 1)
		return 0;
	*cseq = c->scan_cseq;
	return c->scan_last;
}

/* What follows is another module load's: above every gseq scanned. */
static void new_part(struct merge *m)
{
	m->part++;
	m->shift = m->scan_max + 1;
	m->have_si = 0;
}

/* A STREAM_INFO at @p, about to be scanned: does it begin a new part? */
static void scan_stream_info(struct merge *m, const uint8_t *p)
{
	uint64_t ts = gr_le64(p + offsetof(struct grtrace_hdr, ts));
	uint64_t gseq = gr_le64(p + offsetof(struct grtrace_hdr, gseq));
	uint64_t sid = gr_le64(p + offsetof(struct grtrace_stream_info,
					    session_id));
	uint64_t feat = gr_le64(p + offsetof(struct grtrace_stream_info,
					     features));

	/* Without FEAT_GSEQ every gseq is 0 and ts order is the merge's. */
	if (m->have_si && sid <= m->si_session &&
	    (!(feat & GRTRACE_FEAT_GSEQ) ||
	     (gseq <= m->si_gseq && ts > m->si_ts)))
		new_part(m);
	m->have_si = 1;
	m->si_session = sid;
	m->si_gseq = gseq;
	m->si_ts = ts;
}

/*
 * Scan records up to byte @until, handing runs of one CPU to its cursor.
 * A CPU's gseq and cseq only grow within a module load: both falling back
 * (cseq by more than one record, which would be a record merely out of
 * place) begin a new part.
 */
static void scan(struct merge *m, size_t until)
{
	size_t run_start = m->scan_pos, pos = m->scan_pos, last = pos;
	uint16_t run_cpu = 0;
	uint64_t prev = 0;	/* gseq of the CPU's record before */
	uint64_t run_cseq = 0;	/* cseq of its record before the run */
	char why[GR_WHY_LEN];

	while (pos < m->len && pos < until) {
		const uint8_t *p = m->buf + pos;
		uint64_t gseq;
		uint16_t cpu;
		long sz;

		__builtin_prefetch(p + SCAN_PREFETCH);

		/* Almost every record is a job event: check those inline. */
		if (m->len - pos >= sizeof(struct grtrace_job_event) &&
		    gr_le16(p + offsetof(struct grtrace_hdr, size)) ==
		    sizeof(struct grtrace_job_event) &&
		    gr_type_is_job(gr_le16(p + offsetof(struct grtrace_hdr, type))))
			sz = sizeof(struct grtrace_job_event);
		else if ((sz = gr_check_record(p, m->len - pos, why,
					       sizeof(why))) > 0 &&
			 gr_le16(p + offsetof(struct grtrace_hdr, type)) ==
			 GRTRACE_REC_STREAM_INFO) {
			/* It may begin a new part: the run before is not in it. */
			if (pos != run_start)
				push_chunk(m, run_cpu, run_start, pos, last);
			run_start = pos;
			scan_stream_info(m, p);
		}

		if (sz <= 0) {
			merge_error(m, "%s record at byte %zu: %s",
				    sz == 0 ? "truncated" : "corrupt", pos, why);
			m->scan_done = 1;
			break;
		}
		cpu = gr_le16(p + offsetof(struct grtrace_hdr, cpu));
		gseq = HDR_GSEQ(p);
		if (pos == run_start || cpu != run_cpu) {
			if (pos != run_start)
				push_chunk(m, run_cpu, run_start, pos, last);
			run_start = pos;
			run_cpu = cpu;
			prev = scan_last(m, cpu, &run_cseq);
		}
		if (gseq < prev &&
		    HDR_CSEQ(p) + 1 < (pos != run_start ? HDR_CSEQ(m->buf + last) :
				       run_cseq)) {
			if (pos != run_start)
				push_chunk(m, run_cpu, run_start, pos, last);
			run_start = pos;
			new_part(m);
		}
		prev = gseq;
		last = pos;
		pos += (size_t)sz;
	}
	if (pos != run_start)
		push_chunk(m, run_cpu, run_start, pos, last);
	m->scan_pos = pos;
	if (pos >= m->len)
		m->scan_done = 1;
}

/* Give back the mapped pages every cursor has passed. */
static void drop_read_pages(struct merge *m)
{
	size_t low = m->scan_pos, page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned int i;

	for (i = 0; i < m->nheap; i++) {
		size_t off = (size_t)(m->cur[m->heap[i].cur].p - m->buf);

		if (off < low)
			low = off;
	}
	low &= ~(page - 1);
	if (low < m->dropped_to + DROP_MIN)
		return;
	madvise((void *)(m->buf + m->dropped_to), low - m->dropped_to,
		MADV_DONTNEED);
	m->dropped_to = low;
}

void merge_init_buf(struct merge *m, const void *buf, size_t len, int mapped)
{
	memset(m, 0, sizeof(*m));
	m->buf = buf;
	m->len = len;
	m->mapped = mapped;
	m->cpu_slot = calloc(NR_CPU_IDS, sizeof(*m->cpu_slot));
	if (!m->cpu_slot)
		fatal("out of memory");
	if (!len)
		m->scan_done = 1;
}

/* ---- descriptor input ------------------------------------------------------ */

/* Validate what @c holds; returns 0 on a corrupt record (reported). */
static int fd_validate(struct merge *m, struct merge_cursor *c)
{
	size_t off = 0;
	char why[GR_WHY_LEN];
	long sz;

	while ((sz = gr_check_record(c->rbuf + off, c->rlen - off, why,
				     sizeof(why))) > 0)
		off += (size_t)sz;
	c->p = c->rbuf;
	c->end = c->rbuf + off;
	if (sz < 0) {
		merge_error(m, "%s: corrupt record at byte %" PRIu64 ": %s",
			    c->name, c->roff + off, why);
		c->done = 1;
		return 0;
	}
	return 1;
}

/* Read until @c holds a whole record or its file ends. */
static void fd_fill(struct merge *m, struct merge_cursor *c)
{
	while (!c->done && c->p == c->end) {
		size_t used = (size_t)(c->end - c->rbuf);
		ssize_t n;

		memmove(c->rbuf, c->rbuf + used, c->rlen - used);
		c->rlen -= used;
		c->roff += used;
		c->p = c->end = c->rbuf;
		n = read(c->fd, c->rbuf + c->rlen,
			 FD_READ_SIZE + GRTRACE_MAX_RECORD - c->rlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			merge_error(m, "cannot read %s: %s", c->name,
				    strerror(errno));
			c->done = 1;
		} else if (n == 0) {
			if (c->rlen)
				merge_error(m, "%s: the stream ends inside a record at byte %" PRIu64,
					    c->name, c->roff);
			c->done = 1;
		} else {
			c->rlen += (size_t)n;
			fd_validate(m, c);
		}
	}
}

void merge_init_fds(struct merge *m, const int *fds, char *const *names,
		    unsigned int n)
{
	unsigned int i;

	memset(m, 0, sizeof(*m));
	m->scan_done = 1;
	m->cur = calloc(n ? n : 1, sizeof(*m->cur));
	m->heap = calloc(n ? n : 1, sizeof(*m->heap));
	if (!m->cur || !m->heap)
		fatal("out of memory");
	m->ncur = n;
	for (i = 0; i < n; i++) {
		struct merge_cursor *c = &m->cur[i];

		c->fd = fds[i];
		c->name = names[i];
		c->rbuf = xmalloc(FD_READ_SIZE + GRTRACE_MAX_RECORD);
		c->p = c->end = c->rbuf;
		fd_fill(m, c);
		if (c->p != c->end)
			heap_push(m, i);
	}
}

/* ---- the merge ---------------------------------------------------------------- */

/* @c used up what it held: 1 when it found more (its next chunk, or read). */
static int refill(struct merge *m, struct merge_cursor *c)
{
	if (c->fd >= 0) {
		fd_fill(m, c);
		return c->p != c->end;
	}
	if (!c->qlen)
		return 0;
	start_chunk(m, c, c->q[c->qhead]);
	c->qhead = (c->qhead + 1) & (c->qcap - 1);
	c->qlen--;
	return 1;
}

int merge_next(struct merge *m, struct gr_rec *rec)
{
	struct merge_cursor *c;

	/*
	 * The record delivered last lives in its cursor's buffer until now:
	 * only step past it when the caller asks for the next one.
	 */
	if (m->delivered) {
		unsigned int ci = m->heap[0].cur;

		c = &m->cur[ci];
		m->delivered = 0;
		c->p += gr_le16(c->p + offsetof(struct grtrace_hdr, size));
		__builtin_prefetch(c->p + MERGE_PREFETCH);
		if (c->p != c->end || refill(m, c)) {
			/* The key goes straight into the heap: no copy to reload. */
			m->heap[0] = key_at(c->p, ci, c->shift);
			heap_down(m, 0);
		} else {
			heap_pop(m);
		}
		if (m->mapped && ++m->since_drop == DROP_EVERY) {
			m->since_drop = 0;
			drop_read_pages(m);
		}
	}
	/* Keep the scanner ahead of the record about to be delivered. */
	while (!m->scan_done) {
		size_t at = m->nheap ?
			(size_t)(m->cur[m->heap[0].cur].p - m->buf) : m->scan_pos;

		if (m->scan_pos >= at + MERGE_LOOKAHEAD)
			break;
		scan(m, at + 2 * (size_t)MERGE_LOOKAHEAD);
	}
	if (!m->nheap)
		return 0;
	c = &m->cur[m->heap[0].cur];
	gr_parse_hdr(c->p, rec);
	rec->offset = c->fd >= 0 ? c->roff + (uint64_t)(c->p - c->rbuf) :
		      (uint64_t)(c->p - m->buf);
	m->delivered = 1;
	if (c->part > m->part_out) {
		m->part_out = c->part;
		return MERGE_NEW_PART;
	}
	return 1;
}

void merge_free(struct merge *m)
{
	unsigned int i;

	for (i = 0; i < m->ncur; i++) {
		free(m->cur[i].q);
		free(m->cur[i].rbuf);
	}
	free(m->cur);
	free(m->heap);
	free(m->cpu_slot);
	memset(m, 0, sizeof(*m));
}
