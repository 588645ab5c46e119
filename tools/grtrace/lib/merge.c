// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: the records of several per-CPU streams, merged by gseq.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "merge.h"
#include "trace-file.h"
#include "lib.h"

#define NR_CPU_IDS	65536		/* the header's cpu is a u16 */
#define FD_READ_SIZE	(1u << 20)
/*
 * A cursor's window on a bare stream in a file: small enough that the
 * windows of a few CPUs stay in the cache between pread() and the merge.
 */
#define FILE_WINDOW	(128u << 10)
/*
 * A file is read with pread() into windows of WIN_SIZE bytes (and a
 * record's more), which the scanner and the cursors share: read once,
 * each record then read where its window holds it.  The windows are
 * used again and again, so their pages and their TLB entries stay warm;
 * a file mapped instead costs a page walk for each 4 KB of it the first
 * time it is read (on the development machine, a guest with 4 KB host
 * pages, a walk of a mapped 256 MB file took four times a read() of it).
 * WIN_KEEP windows are kept for the cursors behind the scanner; more are
 * taken only while each is in use, up to WIN_MAX (then a cursor reads its
 * chunk into a buffer of its own).  Few: a page of memory costs a fault
 * the first time it is written (some 8 us on that machine), and a
 * cursor of a stream in time order is rarely a window behind.
 */
#define WIN_SIZE	(256u << 10)
#define WIN_KEEP	4u
#define WIN_MAX		64u
/*
 * GRTRACE_MMAP=1: the file is read where the kernel maps it, in place.
 * Its pages count in the reader's RSS while mapped, so past MAP_KEEP
 * bytes the reader lets go of each MAP_SLAB of the file it has left (see
 * map_enter()).  A buffer given to merge_init_buf() is read in place too,
 * stepping MAP_SLAB at a time.
 */
#define MAP_KEEP	(16u << 20)
#define MAP_SLAB	(4u << 20)
/*
 * Prefetch distances: the scanner reads the file from memory for the first
 * time; the merge reads it again later, out of cache.
 */
#define SCAN_PREFETCH	4096
#define MERGE_PREFETCH	512

/*
 * Records of one CPU at [@off, @end) of the file.  For a trace file's
 * frame, @frame is the frame header's offset + 1 (0 for a bare stream,
 * whose records the scanner validated already) and @raw the bytes of
 * records once decompressed (0: stored as they are).
 */
struct chunk {
	size_t off;
	size_t end;
	size_t frame;
	uint32_t raw;
	unsigned int part;
	unsigned int format;	/* stream format of a frame's records */
};

struct merge_cursor {
	const uint8_t *p;	/* next record: whole and validated */
	const uint8_t *end;	/* end of the validated records */
	unsigned int part;
	int in_heap;
	uint16_t cpu;
	int dead;		/* its CPU's data ended at an error */
	struct chunk chunk;	/* the chunk being read (file input) */
	/* The scanner: this CPU's last gseq and cseq in part @scan_part - 1. */
	uint64_t scan_last;
	uint64_t scan_cseq;
	unsigned int scan_part;

	/* Buffer input: chunks found by the scanner, not yet started. */
	struct chunk *q;
	unsigned int qhead, qlen, qcap;

	/* Descriptor input; also the decompressed frame of a trace file. */
	int fd;
	const char *name;
	/*
	 * File input: the bytes @p walks, @rbuf or the file's own where it
	 * is in memory (a bare chunk, a stored frame); the MAP_SLAB of the
	 * mapped file they are in, + 1 (0: none).
	 */
	const uint8_t *rbase;
	size_t slab;
	/* Lazy: the offset in the file of @rbase[0]; the window, + 1 (0: none). */
	size_t lbase;
	unsigned int win;
	/*
	 * A bare chunk in memory or in a window is read in place up to
	 * @lim (its end, or its window's last byte), each record checked as
	 * the merge comes to it (@lazy); @end is where the cursor looks
	 * again which slab or window it is in.
	 */
	const uint8_t *lim;
	int lazy;
	int own;		/* this chunk is read into @rbuf: no window free */
	uint8_t *rbuf;
	size_t rcap;		/* bytes @rbuf can hold (frames) */
	size_t rlen;		/* bytes in @rbuf */
	/*
	 * Descriptors: the stream offset of rbuf[0].  File input: the bytes
	 * of the chunk read so far.
	 */
	uint64_t roff;
	int done;		/* end of file, or an error */

	/* Format 2: records converted to format 1 as they are read. */
	struct gr_v2_cpu v2;
	uint8_t *zbuf;		/* frames: the v2 bytes; fds: unconverted ones */
	size_t zcap, zlen;
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
	if (x->part != y->part)
		return x->part < y->part;
	if (x->gseq != y->gseq)
		return x->gseq < y->gseq;
	if (x->ts != y->ts)
		return x->ts < y->ts;
	return x->cur < y->cur;
}

/*
 * The gseq a record without one sorts by: a flight recorder snapshot's
 * RECORDER and TRIGGER, written afresh after the CPU's kept records and
 * stamped no earlier than the last of them, go after every record with
 * a gseq (its fresh STREAM_INFO and METADATA, at 0, go first).
 */
static uint64_t key_gseq0(const uint8_t *p)
{
	uint16_t type = gr_le16(p + offsetof(struct grtrace_hdr, type));

	return type == GRTRACE_REC_RECORDER || type == GRTRACE_REC_TRIGGER ?
	       UINT64_MAX : 0;
}

/* The key of the record at @p, which cursor @c is at, in @part. */
static inline struct merge_key key_at(const uint8_t *p, unsigned int c,
				      unsigned int part)
{
	uint64_t gseq = gr_le64(p + offsetof(struct grtrace_hdr, gseq));

	if (__builtin_expect(!gseq, 0))
		gseq = key_gseq0(p);
	return (struct merge_key){
		gseq, gr_le64(p + offsetof(struct grtrace_hdr, ts)), c, part };
}

static struct merge_key key_of(const struct merge *m, unsigned int c)
{
	return key_at(m->cur[c].p, c, m->cur[c].part);
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

/* ---- file input: the index --------------------------------------------------- */

/*
 * Up to @len bytes of the file at byte @off: the bytes read, fewer where
 * the file now ends (it shrank: reported), or -1 on an error (reported).
 */
static ssize_t read_upto(struct merge *m, uint8_t *dst, size_t off,
			 size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(m->in_fd, dst + got, len - got,
				  (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			merge_error(m, "cannot read byte %zu: %s", off + got,
				    strerror(errno));
			return -1;
		}
		if (!n) {
			merge_error(m, "cannot read byte %zu: the file shrank",
				    off + got);
			break;
		}
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/*
 * All @len bytes at byte @off, from the file through pread() or from the
 * buffer in memory; -1 when they cannot be read (reported).
 */
static int read_at(struct merge *m, uint8_t *dst, size_t off, size_t len)
{
	if (m->buf) {
		memcpy(dst, m->buf + off, len);
		return 0;
	}
	return read_upto(m, dst, off, len) == (ssize_t)len ? 0 : -1;
}

/* The bytes a window at byte @off reads: WIN_SIZE and a record, or the rest. */
static size_t win_want(const struct merge *m, size_t off)
{
	size_t rest = m->len - off;

	return rest < WIN_SIZE + GRTRACE_MAX_RECORD ? rest :
	       WIN_SIZE + GRTRACE_MAX_RECORD;
}

/* ---- file input: the windows ------------------------------------------------ */

struct merge_win {
	uint8_t *b;		/* WIN_SIZE + GRTRACE_MAX_RECORD bytes */
	size_t base;		/* the offset in the file of b[0] */
	size_t len;		/* the bytes read into it */
	size_t whole;		/* a record starting before it is whole in @b */
	unsigned int users;	/* the scanner, cursors */
	uint64_t stamp;		/* when it was read: the oldest goes first */
};

/* A window holding the record at @off whole, or NULL. */
static struct merge_win *win_find(struct merge *m, size_t off)
{
	unsigned int i;

	for (i = 0; i < m->nwin; i++) {
		struct merge_win *w = &m->win[i];

		if (w->len && w->base <= off && off < w->whole)
			return w;
	}
	return NULL;
}

/*
 * Read the window that begins at byte @off into a buffer no one uses (the
 * one read longest ago), or a new one while fewer than WIN_KEEP, or
 * WIN_MAX, are taken.  Returns it with one user, or NULL when every buffer
 * is in use or the read failed (reported, *@failed set).
 */
static struct merge_win *win_read(struct merge *m, size_t off, int *failed)
{
	struct merge_win *w = NULL;
	size_t want;
	unsigned int i;
	ssize_t got;

	for (i = 0; m->nwin >= WIN_KEEP && i < m->nwin; i++)
		if (!m->win[i].users && (!w || m->win[i].stamp < w->stamp))
			w = &m->win[i];
	if (!w) {
		if (m->nwin >= WIN_MAX)
			return NULL;
		if (m->nwin == m->wincap) {
			m->wincap = m->wincap ? 2 * m->wincap : WIN_KEEP;
			m->win = xrealloc(m->win, m->wincap * sizeof(*m->win));
		}
		w = &m->win[m->nwin++];
		memset(w, 0, sizeof(*w));
		w->b = xmalloc(WIN_SIZE + GRTRACE_MAX_RECORD);
	}
	want = win_want(m, off);
	w->base = off;
	got = read_upto(m, w->b, off, want);
	w->len = got > 0 ? (size_t)got : 0;
	if (!w->len) {
		*failed = 1;
		return NULL;
	}
	/*
	 * Its last record may be cut, but for the file's own last one.  In
	 * a file cut while it is read, the records before the cut are read
	 * (one cut by it is found bad where it is checked).
	 */
	w->whole = off + w->len == m->len || got < (ssize_t)want ?
		   off + w->len : off + w->len - GRTRACE_MAX_RECORD + 1;
	w->stamp = ++m->win_clock;
	w->users = 1;
	return w;
}

/* A lazy cursor leaves its window. */
static void win_leave(struct merge *m, struct merge_cursor *c)
{
	if (c->win)
		m->win[c->win - 1].users--;
	c->win = 0;
}

/*
 * A lazy cursor reads on at byte @at of its chunk, from a window that
 * holds it (read when none does).  0 when every window is in use (the
 * cursor reads the rest of its chunk into its own buffer), or after a
 * read error (reported; the cursor is dead).
 */
static int win_enter(struct merge *m, struct merge_cursor *c, size_t at)
{
	struct merge_win *w = win_find(m, at);
	int failed = 0;
	size_t lim, end;

	win_leave(m, c);
	if (w)
		w->users++;
	else
		w = win_read(m, at, &failed);
	if (failed) {
		c->dead = 1;
		c->end = c->p;
	}
	if (!w)
		return 0;
	c->win = (unsigned int)(w - m->win) + 1;
	lim = w->base + w->len < c->chunk.end ? w->base + w->len : c->chunk.end;
	end = w->whole < c->chunk.end ? w->whole : c->chunk.end;
	c->rbase = w->b;
	c->lbase = w->base;
	c->p = w->b + (at - w->base);
	c->lim = w->b + (lim - w->base);
	c->end = w->b + (end - w->base);
	return 1;
}

static unsigned int cursor_of_cpu(struct merge *m, uint16_t cpu)
{
	unsigned int c;

	if (m->cpu_slot[cpu])
		return m->cpu_slot[cpu] - 1;
	c = m->ncur++;
	/*
	 * Doubling, not one more each: a stream may name every one of its
	 * 65536 CPUs, and a realloc() that copies (a sanitizer's always
	 * does) would make that quadratic.
	 */
	if (m->ncur > m->curcap) {
		m->curcap = m->curcap ? 2 * m->curcap : 16;
		m->cur = xrealloc(m->cur, m->curcap * sizeof(*m->cur));
		m->heap = xrealloc(m->heap, m->curcap * sizeof(*m->heap));
	}
	memset(&m->cur[c], 0, sizeof(m->cur[c]));
	m->cur[c].fd = -1;
	m->cur[c].cpu = cpu;
	m->cpu_slot[cpu] = c + 1;
	return c;
}

/*
 * @c->rbuf holds at least @len bytes.  It grows by doubling up to a
 * whole window, so that a CPU with a few records takes a few bytes (a
 * stream may name 65536 CPUs), and one with many is not copied often.
 */
static void rbuf_reserve(struct merge_cursor *c, size_t len)
{
	size_t cap = 2 * c->rcap;

	if (c->rcap >= len)
		return;
	if (cap > FILE_WINDOW + GRTRACE_MAX_RECORD)
		cap = FILE_WINDOW + GRTRACE_MAX_RECORD;
	if (cap < len)
		cap = len;
	c->rbuf = xrealloc(c->rbuf, cap);
	c->rcap = cap;
}

/* Let go of the pages of the mapped file in [@from, @to): read, they return. */
static void map_drop(struct merge *m, size_t from, size_t to)
{
	if (to > m->len)
		to = m->len;
	if (from < to)
		madvise((uint8_t *)m->map + from, to - from, MADV_DONTNEED);
}

/*
 * @c reads on at byte @off of the file in memory.  When the file is
 * mapped and large, the MAP_SLAB @c leaves goes, unless another cursor is
 * in it: the CPUs' data lie side by side in a recording, so the cursors
 * move through the file together, each slab mapped once.
 */
static void map_enter(struct merge *m, struct merge_cursor *c, size_t off)
{
	size_t slab = off / MAP_SLAB + 1, old = c->slab;
	unsigned int i;

	if (!m->map_drop || slab == old)
		return;
	c->slab = slab;
	if (!old)
		return;
	for (i = 0; i < m->ncur; i++)
		if (m->cur[i].slab == old)
			return;
	map_drop(m, (old - 1) * MAP_SLAB, old * MAP_SLAB);
}

/* What cursor_validate() is given (see there). */
enum {
	V_FRAME,	/* a frame's records: whole, of its CPU only */
	V_WINDOW,	/* a window on a bare chunk: the last record may be cut */
};

/*
 * Make the @c->rlen bytes of @c->rbase available from @c->p on, up to the
 * last whole record.  In a window (V_WINDOW) a record cut by its end stays
 * for the next; frames must hold whole records of their CPU only.  Returns
 * 0 after reporting a bad record (the CPU's data ends there).
 */
static int cursor_validate(struct merge *m, struct merge_cursor *c, int mode)
{
	size_t avail = c->rlen;
	size_t off = (size_t)(c->p - c->rbase);
	char why[GR_WHY_LEN];
	long sz = 0;

	while (off < avail) {
		const uint8_t *p = c->rbase + off;
		uint16_t cpu;

		/* Almost every record is a job event: check those inline. */
		if (avail - off >= sizeof(struct grtrace_job_event) &&
		    gr_le16(p + offsetof(struct grtrace_hdr, size)) ==
		    sizeof(struct grtrace_job_event) &&
		    gr_type_is_job(gr_le16(p + offsetof(struct grtrace_hdr, type))))
			sz = sizeof(struct grtrace_job_event);
		else
			sz = gr_check_record(p, avail - off, why, sizeof(why));
		if (sz <= 0)
			break;
		cpu = gr_le16(p + offsetof(struct grtrace_hdr, cpu));
		if (mode == V_FRAME && cpu != c->cpu) {
			snprintf(why, sizeof(why), "a record of CPU %u", cpu);
			sz = -1;
			break;
		}
		off += (size_t)sz;
	}
	c->end = c->rbase + off;
	if (off == avail || (sz == 0 && mode == V_WINDOW))
		return 1;
	if (c->chunk.frame)
		merge_error(m, "frame of CPU %u at byte %zu: %s record at byte %zu of its data: %s",
			    c->cpu, c->chunk.frame - 1,
			    sz ? "corrupt" : "truncated", off, why);
	else
		merge_error(m, "corrupt record at byte %zu: %s",
			    c->chunk.off + c->roff - c->rlen + off, why);
	c->dead = 1;
	return 0;
}

/*
 * Convert @c's frame of v2 records (@c->rlen bytes at @c->rbuf) to format
 * 1 in place of it.  Returns 0 after reporting a bad record; the records
 * before it are still delivered.
 */
static int convert_frame(struct merge *m, struct merge_cursor *c)
{
	size_t in = 0, out = 0, cap = 3 * c->rlen + GR_V1_MAX, olen;
	char why[GR_WHY_LEN];
	uint8_t *t;
	long sz = 1;

	/* A v1 record is less than three times its v2 form (72 for 28). */
	if (c->zcap < cap) {
		c->zbuf = xrealloc(c->zbuf, cap);
		c->zcap = cap;
	}
	c->v2.cpu = c->cpu;
	while (in < c->rlen) {
		sz = gr_v2_convert(&c->v2, c->rbase + in, c->rlen - in,
				   c->zbuf + out, &olen, why, sizeof(why));
		if (sz <= 0)
			break;
		in += (size_t)sz;
		out += olen;
	}
	/* The v1 records become the frame; the v2 bytes the spare buffer. */
	t = c->rbuf;
	c->rbuf = c->zbuf;
	c->zbuf = t;
	cap = c->rcap;
	c->rcap = c->zcap;
	c->zcap = cap;
	c->rlen = out;
	c->p = c->end = c->rbase = c->rbuf;
	if (sz > 0)
		return 1;
	cursor_validate(m, c, V_FRAME);
	merge_error(m, "frame of CPU %u at byte %zu: %s record at byte %zu of its data: %s",
		    c->cpu, c->chunk.frame - 1, sz ? "corrupt" : "truncated",
		    in, why);
	c->dead = 1;
	return 0;
}

/*
 * Begin @c's chunk @ch: a frame is read (and decompressed) whole, or
 * taken where it is when the file is in memory.
 */
static void start_chunk(struct merge *m, struct merge_cursor *c,
			struct chunk ch)
{
	size_t stored = ch.end - ch.off;
	char why[GR_WHY_LEN];

	c->chunk = ch;
	c->part = ch.part;
	c->own = 0;
	c->roff = 0;
	c->rlen = 0;
	c->p = c->end = c->rbase = c->rbuf;
	if (!ch.frame)
		return;		/* read window by window: cursor_fill() */
	if (m->buf)
		map_enter(m, c, ch.off);
	if (!ch.raw && m->buf) {
		c->p = c->end = c->rbase = m->buf + ch.off;
		c->rlen = stored;
	} else if (!ch.raw) {
		rbuf_reserve(c, stored);
		c->p = c->end = c->rbase = c->rbuf;
		if (read_at(m, c->rbuf, ch.off, stored) < 0) {
			c->dead = 1;
			return;
		}
		c->rlen = stored;
	} else {
		uint8_t *z = m->buf ? NULL : xmalloc(stored);

		rbuf_reserve(c, ch.raw);
		c->p = c->end = c->rbase = c->rbuf;
		if (z && read_at(m, z, ch.off, stored) < 0) {
			c->dead = 1;
		} else if (grf_decompress(c->rbuf, ch.raw, z ? z : m->buf + ch.off,
					  stored, why, sizeof(why)) < 0) {
			merge_error(m, "frame of CPU %u at byte %zu: %s",
				    c->cpu, ch.frame - 1, why);
			c->dead = 1;
		} else {
			c->rlen = ch.raw;
		}
		free(z);
		if (c->dead)
			return;
	}
	c->roff = stored;	/* all of it is in */
	if (ch.format >= GRTRACE_FORMAT_V2 && !convert_frame(m, c))
		return;
	cursor_validate(m, c, V_FRAME);
}

/* lazy_check() of a record that is no job event, or is bad. */
static __attribute__((noinline)) int lazy_slow(struct merge *m,
					       struct merge_cursor *c)
{
	char why[GR_WHY_LEN];

	if (gr_check_record(c->p, (size_t)(c->lim - c->p), why, sizeof(why)) > 0)
		return 1;
	/* The scanner passed it: the file changed under the reader. */
	merge_error(m, "corrupt record at byte %zu: %s",
		    (size_t)(c->p - c->rbase) + c->lbase, why);
	c->dead = 1;
	c->end = c->p;
	return 0;
}

/*
 * The record at @c->p of a lazy cursor, before the merge reads it: whole
 * within its chunk, and sound.  0 after reporting a bad one: the CPU's
 * data ends there.
 */
static inline int lazy_check(struct merge *m, struct merge_cursor *c)
{
	const uint8_t *p = c->p;

	if (__builtin_expect((size_t)(c->lim - p) >= sizeof(struct grtrace_job_event) &&
			     gr_le16(p + offsetof(struct grtrace_hdr, size)) ==
			     sizeof(struct grtrace_job_event) &&
			     gr_type_is_job(gr_le16(p + offsetof(struct grtrace_hdr, type))), 1))
		return 1;
	return lazy_slow(m, c);
}

/* A lazy cursor reads on to the next MAP_SLAB boundary, or its chunk's end. */
static void lazy_window(struct merge *m, struct merge_cursor *c)
{
	size_t at = (size_t)(c->p - m->buf), stop = (at / MAP_SLAB + 1) * MAP_SLAB;

	map_enter(m, c, at);
	c->end = stop < c->chunk.end ? m->buf + stop : c->lim;
}

/*
 * @c used up what it held: read on in its chunk, or begin its next one.
 * Returns 1 with a record at @c->p, 0 when its CPU has no more.
 */
static int cursor_fill(struct merge *m, struct merge_cursor *c)
{
	for (;;) {
		size_t left = c->chunk.end - c->chunk.off - c->roff, keep, n;

		/* The records before a bad one are still delivered. */
		if (c->p < c->end)
			return 1;
		if (c->dead)
			break;
		if (c->lazy) {
			size_t at = c->rbase ? (size_t)(c->p - c->rbase) + c->lbase :
				    c->lbase;
			int in = 0;

			if (at < c->chunk.end && m->buf) {
				lazy_window(m, c);
				in = 1;
			} else if (at < c->chunk.end) {
				in = win_enter(m, c, at);
			}
			if (in) {
				if (c->p < c->end)
					lazy_check(m, c);
				continue;
			}
			if (c->dead)
				break;
			/*
			 * Its chunk is read; or every window is in use: the
			 * rest of it into its own buffer.
			 */
			win_leave(m, c);
			c->lazy = 0;
			c->own = 1;
			c->roff = at - c->chunk.off;
			c->rlen = 0;
			c->p = c->end = c->rbase = c->rbuf;
			continue;
		}
		if (!c->chunk.frame && left && !c->own) {
			/*
			 * In memory, or in a window: the chunk's records where
			 * they are.
			 */
			c->lazy = 1;
			c->rbase = m->buf;
			c->lbase = m->buf ? 0 : c->chunk.off;
			c->p = c->end = m->buf ? m->buf + c->chunk.off : NULL;
			c->lim = m->buf ? m->buf + c->chunk.end : NULL;
			continue;
		}
		if (!c->chunk.frame && left) {
			/* A bare stream's chunk: its next window, read. */
			keep = c->rlen - (size_t)(c->p - c->rbase);
			if (keep)
				memmove(c->rbuf, c->p, keep);
			n = left < FILE_WINDOW ? left : FILE_WINDOW;
			rbuf_reserve(c, keep + n);
			if (read_at(m, c->rbuf + keep,
				    c->chunk.off + c->roff, n) < 0) {
				c->dead = 1;
				break;
			}
			c->roff += n;
			c->rlen = keep + n;
			c->p = c->rbase = c->rbuf;
			cursor_validate(m, c, V_WINDOW);
			continue;
		}
		if (!c->chunk.frame && c->rlen != (size_t)(c->p - c->rbase)) {
			/* The scanner validated it: cannot happen. */
			merge_error(m, "corrupt record at byte %zu: cut by the end of its chunk",
				    c->chunk.end - (c->rlen - (size_t)(c->p - c->rbase)));
			c->dead = 1;
			break;
		}
		if (!c->qlen)
			break;
		start_chunk(m, c, c->q[c->qhead]);
		c->qhead = (c->qhead + 1) & (c->qcap - 1);
		c->qlen--;
	}
	return 0;
}

/*
 * Records [@off, @end) of @cpu, in file order after every chunk of that
 * CPU queued before; its cursor enters the heap at its first record.
 */
static void push_chunk(struct merge *m, uint16_t cpu, struct chunk ch)
{
	unsigned int ci = cursor_of_cpu(m, cpu);
	struct merge_cursor *c = &m->cur[ci];
	struct chunk *tail;

	if (c->dead)
		return;
	/* @qcap is a power of two: the ring wraps with a mask. */
	tail = c->qlen ? &c->q[(c->qhead + c->qlen - 1) & (c->qcap - 1)] : NULL;
	if (tail && !ch.frame && !tail->frame && tail->end == ch.off &&
	    tail->part == ch.part) {
		tail->end = ch.end;
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
	c->q[(c->qhead + c->qlen++) & (c->qcap - 1)] = ch;
}

/* ---- a bare stream: the scanner ------------------------------------------- */

#define HDR_GSEQ(p)	gr_le64((p) + offsetof(struct grtrace_hdr, gseq))
#define HDR_CSEQ(p)	gr_le64((p) + offsetof(struct grtrace_hdr, cseq))

struct scan_run {
	size_t start;		/* the run of one CPU being scanned */
	uint16_t cpu;
	uint64_t last_gseq;	/* of its last record */
	uint64_t last_cseq;
};

/* The run [@r->start, @end) of one CPU goes to its cursor's queue. */
static void end_run(struct merge *m, struct scan_run *r, size_t end)
{
	struct merge_cursor *c;
	unsigned int ci;

	if (end == r->start)
		return;
	/* The call may move m->cur: index it after. */
	ci = cursor_of_cpu(m, r->cpu);
	c = &m->cur[ci];
	c->scan_last = r->last_gseq;
	c->scan_cseq = r->last_cseq;
	c->scan_part = m->part + 1;
	push_chunk(m, r->cpu, (struct chunk){ r->start, end, 0, 0, m->part, 0 });
	r->start = end;
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

/* A STREAM_INFO at @p, about to be scanned: does it begin a new part? */
static int scan_stream_info(struct merge *m, const uint8_t *p)
{
	uint64_t ts = gr_le64(p + offsetof(struct grtrace_hdr, ts));
	uint64_t gseq = gr_le64(p + offsetof(struct grtrace_hdr, gseq));
	uint64_t sid = gr_le64(p + offsetof(struct grtrace_stream_info,
					    session_id));
	uint64_t feat = gr_le64(p + offsetof(struct grtrace_stream_info,
					     features));
	int restart;

	/* Without FEAT_GSEQ every gseq is 0 and ts order is the merge's. */
	restart = m->have_si && sid <= m->si_session &&
		  (!(feat & GRTRACE_FEAT_GSEQ) ||
		   (gseq <= m->si_gseq && ts > m->si_ts));
	m->have_si = 1;
	m->si_session = sid;
	m->si_gseq = gseq;
	m->si_ts = ts;
	return restart;
}

/*
 * The scanner of a bare stream, between its steps: where it is, the run of
 * one CPU it is in, and (lazy) the gseqs it found.
 */
#define SEEN_BITS	(1u << 20)
/*
 * The direct merge's ring of cursors by gseq, for the gseqs from the
 * merge's next one on: the scanner is a step and a few CPUs' chunks ahead
 * of the merge.  One further ahead ends the direct merge (see
 * direct_next()).
 */
#define DIRECT_SLOTS	(1u << 18)
#define SCAN_STEP	(256u << 10)
/* Lazy: the scanner keeps this much of the mapped file behind it. */
#define SCAN_BEHIND	(8u << 20)

struct merge_scan {
	unsigned int win;	/* pread() input: its window, + 1; or */
	uint8_t *w;		/* its own, when every window is in use */
	size_t wbase, wlen;
	size_t pos;
	size_t kept;		/* mapped: the bytes before it were let go of */
	struct scan_run run;
	unsigned int run_ci;	/* its cursor */
	/*
	 * Lazy: every gseq of part 0 below @ld was scanned; @seen marks those
	 * above it scanned already, a ring of SEEN_BITS.
	 */
	uint64_t ld;
	uint64_t *seen;
};

/* Lazy: key gseq @g of part 0 was scanned. */
static inline void seen_add(struct merge_scan *s, uint64_t g)
{
	if (g == s->ld) {
		s->ld++;
		while (s->seen[(s->ld % SEEN_BITS) / 64] &
		       (1ull << (s->ld % 64))) {
			s->seen[(s->ld % SEEN_BITS) / 64] &= ~(1ull << (s->ld % 64));
			s->ld++;
		}
	} else if (g > s->ld && g - s->ld < SEEN_BITS) {
		s->seen[(g % SEEN_BITS) / 64] |= 1ull << (g % 64);
	}
}

/*
 * The direct merge ends: the gseqs the scanner noted in the slots become
 * the seen ring's (@ld the first one not found; the ring is empty, never
 * used before), for the heap's lazy_ready() from now on.
 */
static void slots_to_seen(struct merge *m, struct merge_scan *s)
{
	uint64_t g, end = m->next_g + DIRECT_SLOTS;

	m->slots = 0;
	s->ld = m->next_g;
	while (s->ld < end && m->slot[s->ld % DIRECT_SLOTS])
		s->ld++;
	for (g = s->ld + 1; g < end; g++)
		if (m->slot[g % DIRECT_SLOTS])
			s->seen[(g % SEEN_BITS) / 64] |= 1ull << (g % 64);
}

/*
 * Lazy, direct merge: gseq @g of part 0 is in cursor @ci.  Every slot
 * holds a gseq from the merge's next one on, found once: a gseq below
 * that, or one found again, or too far ahead for the ring, ends the
 * direct merge (the seen ring takes over, and the merge sees @slots 0).
 */
static inline void slot_add(struct merge *m, struct merge_scan *s, uint64_t g,
			    unsigned int ci)
{
	uint16_t *sl = &m->slot[g % DIRECT_SLOTS];

	if (__builtin_expect(g - m->next_g < DIRECT_SLOTS && !*sl, 1)) {
		*sl = (uint16_t)(ci + 1);
		return;
	}
	slots_to_seen(m, s);
	seen_add(s, g);
}

static void scan_free(struct merge *m, struct merge_scan *s)
{
	if (!s)
		return;
	if (s->win)
		m->win[s->win - 1].users--;
	free(s->w);
	free(s->seen);
	free(s);
}

static void scan_end(struct merge *m)
{
	struct merge_scan *s = m->scan;

	end_run(m, &s->run, s->pos);
	if (m->map_drop && !m->lazy)
		map_drop(m, s->kept, m->len);
	scan_free(m, s);
	m->scan = NULL;
	m->scan_done = 1;
}

/*
 * Walk a bare stream, window by window, validating every record and
 * handing runs of one CPU to its cursor: @budget bytes more (whole
 * records), then the run being scanned goes as far as it came.  A CPU's
 * gseq and cseq only grow within a module load: both falling back (cseq
 * by more than one record, which would be a record merely out of place)
 * begin a new part, and so does a STREAM_INFO of an older session (see
 * merge.h).
 */
static void scan_step(struct merge *m, size_t budget)
{
	struct merge_scan *s = m->scan;
	size_t pos = s->pos, stop = pos + budget < pos ? SIZE_MAX : pos + budget;
	size_t behind = m->lazy ? SCAN_BEHIND : 0;
	size_t lim = stop < m->len ? stop : m->len;
	/* Mapped and large: where the next slab behind is let go of. */
	size_t drop_at = m->buf && m->map_drop ? s->kept + behind + MAP_SLAB :
			 SIZE_MAX;
	/* The window's bytes: the record at @pos is at base + pos. */
	const uint8_t *base = m->buf ? m->buf :
			      s->win ? m->win[s->win - 1].b - s->wbase :
			      s->w ? s->w - s->wbase : NULL;
	size_t wend = s->wbase + s->wlen;
	int track = m->lazy && !m->part;
	char why[GR_WHY_LEN];
	int done = 0;

	while (pos < lim) {
		const uint8_t *p;
		uint64_t gseq, cseq;
		uint16_t cpu, type;
		long sz;

		if (pos >= drop_at) {
			/* In memory: read in place, letting go of what is behind. */
			size_t to = (pos - behind) / MAP_SLAB * MAP_SLAB;

			map_drop(m, s->kept, to);
			s->kept = to;
			drop_at = to + behind + MAP_SLAB;
		} else if (!m->buf && pos + GRTRACE_MAX_RECORD > wend &&
			   wend < m->len) {
			/*
			 * The window the cursors read these records from; or,
			 * every one in use, its own (they read them again).
			 */
			struct merge_win *w;
			int failed = 0;
			ssize_t got;

			if (s->win)
				m->win[s->win - 1].users--;
			w = win_read(m, pos, &failed);
			s->win = w ? (unsigned int)(w - m->win) + 1 : 0;
			if (w) {
				got = (ssize_t)w->len;
			} else if (!failed) {
				if (!s->w)
					s->w = xmalloc(WIN_SIZE + GRTRACE_MAX_RECORD);
				got = read_upto(m, s->w, pos, win_want(m, pos));
			} else {
				got = 0;
			}
			if (got <= 0) {
				done = 1;
				break;
			}
			s->wbase = pos;
			s->wlen = (size_t)got;
			base = (w ? w->b : s->w) - s->wbase;
			wend = s->wbase + s->wlen;
		}
		p = base + pos;
		__builtin_prefetch(p + SCAN_PREFETCH);

		/* Almost every record is a job event: check those inline. */
		type = wend - pos >= GR_HDR_SIZE ?
		       gr_le16(p + offsetof(struct grtrace_hdr, type)) : 0;
		if (wend - pos >= sizeof(struct grtrace_job_event) &&
		    gr_le16(p + offsetof(struct grtrace_hdr, size)) ==
		    sizeof(struct grtrace_job_event) && gr_type_is_job(type))
			sz = sizeof(struct grtrace_job_event);
		else
			sz = gr_check_record(p, wend - pos, why, sizeof(why));
		if (sz <= 0 && pos == 0) {
			/* Neither a trace file's header nor a record first. */
			merge_error(m, "not a grtrace trace file or stream: no trace file header, and byte 0 is no record (%s)",
				    why);
			done = 1;
			break;
		}
		if (sz <= 0) {
			merge_error(m, "%s record at byte %zu: %s",
				    sz == 0 ? "truncated" : "corrupt", pos, why);
			done = 1;
			break;
		}
		cpu = gr_le16(p + offsetof(struct grtrace_hdr, cpu));
		gseq = HDR_GSEQ(p);
		cseq = HDR_CSEQ(p);
		/*
		 * Not grtrace's magic: the verdict the merge would give at its
		 * delivery, given here, so that it is the same whether the scan
		 * runs ahead of the merge (mapped) or through the whole file
		 * first (pread()), where a later fault would be named instead.
		 */
		if (__builtin_expect(type == GRTRACE_REC_STREAM_INFO, 0) &&
		    gr_le32(p + offsetof(struct grtrace_stream_info, magic)) !=
		    GRTRACE_MAGIC) {
			merge_error(m, "not a grtrace stream: STREAM_INFO at byte %zu has magic 0x%08" PRIx32,
				    pos, gr_le32(p + offsetof(struct grtrace_stream_info, magic)));
			done = 1;
			break;
		}
		if (__builtin_expect(type == GRTRACE_REC_STREAM_INFO, 0) &&
		    scan_stream_info(m, p)) {
			end_run(m, &s->run, pos);
			m->part++;
			m->have_si = 1;
			track = 0;
		}
		/* A run's first record: @last_* are its CPU's before it. */
		if (pos == s->run.start || cpu != s->run.cpu) {
			end_run(m, &s->run, pos);
			s->run.cpu = cpu;
			s->run.last_gseq = scan_last(m, cpu, &s->run.last_cseq);
			s->run_ci = m->cpu_slot[cpu] - 1;
			/* A slot holds a cursor's index + 1 in 16 bits. */
			if (s->run_ci >= UINT16_MAX && m->slots)
				slots_to_seen(m, s);
		}
		if (gseq < s->run.last_gseq && cseq + 1 < s->run.last_cseq) {
			end_run(m, &s->run, pos);
			m->part++;
			m->have_si = 0;
			track = 0;
		}
		if (track && m->slots)
			slot_add(m, s, gseq ? gseq : key_gseq0(p), s->run_ci);
		else if (track)
			seen_add(s, gseq ? gseq : key_gseq0(p));
		s->run.last_gseq = gseq;
		s->run.last_cseq = cseq;
		pos += (size_t)sz;
	}
	s->pos = pos;
	if (done || pos >= m->len)
		scan_end(m);
	else
		end_run(m, &s->run, pos);
}

/*
 * A bare stream that begins a module load's session (a STREAM_INFO with
 * gseq 0 at byte 0, whose gseqs are the session's) is scanned lazily, as
 * the merge needs it: the scanner runs a little ahead of the cursors,
 * which read what it just read, still in the cache (in its windows, for
 * a file read with pread()).  The
 * merge hands out a record only when the scanner has found every gseq of
 * the part below its own (or has passed the part): nothing not yet
 * scanned can then come before it, so the order is the one a scan of the
 * whole file first gives.  A gseq that never comes (a record lost, a
 * record of gseq 0 but that first one, a second part) lets the scanner run
 * to the end first, as it does for any other stream.
 */
static int lazy_stream(struct merge *m)
{
	uint8_t first[sizeof(struct grtrace_stream_info)];
	const uint8_t *p = m->buf ? m->buf : first;

	if (m->len < sizeof(first) ||
	    (!m->buf && read_at(m, first, 0, sizeof(first)) < 0))
		return 0;
	return gr_le16(p + offsetof(struct grtrace_hdr, type)) == GRTRACE_REC_STREAM_INFO &&
	       gr_le16(p + offsetof(struct grtrace_hdr, size)) >= sizeof(struct grtrace_stream_info) &&
	       !HDR_GSEQ(p) &&
	       (gr_le64(p + offsetof(struct grtrace_stream_info, features)) &
		GRTRACE_FEAT_GSEQ);
}

static void scan_bare(struct merge *m)
{
	struct merge_scan *s = calloc(1, sizeof(*s));

	if (!s)
		gr_oom(0);
	m->scan = s;
	if (m->buf)
		s->wlen = m->len;	/* one window: all of it, in place */
	m->lazy = lazy_stream(m);
	if (m->lazy) {
		s->seen = calloc(SEEN_BITS / 64, sizeof(*s->seen));
		m->slot = calloc(DIRECT_SLOTS, sizeof(*m->slot));
		if (!s->seen || !m->slot)
			gr_oom(0);
		m->direct = 1;
		m->slots = 1;
		return;		/* merge_next() scans */
	}
	scan_step(m, SIZE_MAX);
}

/*
 * Lazy: the record the heap holds first can go out: the scanner found
 * every gseq of its part below it, or passed its part.
 */
static inline int lazy_ready(const struct merge *m)
{
	const struct merge_key *k;

	if (!m->nheap)
		return 0;
	k = &m->heap[0];
	return k->part < m->part || (!k->part && k->gseq < m->scan->ld);
}

/* Lazy: scan a step further; cursors with new data (re)enter the heap. */
static void lazy_more(struct merge *m)
{
	unsigned int i;

	scan_step(m, SCAN_STEP);
	if (m->direct)
		return;		/* cursors are filled as the merge comes to them */
	for (i = 0; i < m->ncur; i++) {
		struct merge_cursor *c = &m->cur[i];

		if (!c->in_heap && !c->dead && c->qlen && cursor_fill(m, c))
			heap_push(m, i);
	}
}

/* ---- a trace file: the frame index ----------------------------------------- */

/* A task table frame's entries, read now: they are few. */
static void scan_tasks(struct merge *m, size_t pos, const struct grf_frame *f)
{
	uint8_t *buf = xmalloc(f->stored);
	size_t i, n = f->stored / GRF_TASK_SIZE;

	if (read_at(m, buf, pos + GRF_FRAME_SIZE, f->stored) < 0) {
		free(buf);
		return;
	}
	if (m->ntasks + n > m->tasks_cap) {
		m->tasks_cap = m->ntasks + n + 16;
		m->tasks = xrealloc(m->tasks, m->tasks_cap * sizeof(*m->tasks));
	}
	for (i = 0; i < n; i++)
		grf_parse_task(buf + i * GRF_TASK_SIZE, &m->tasks[m->ntasks++]);
	m->task_frames++;
	free(buf);
}

/* A client table frame's entries, read now as the task tables are. */
static void scan_clients(struct merge *m, size_t pos,
			 const struct grf_frame *f)
{
	uint8_t *buf = xmalloc(f->stored);
	size_t i, n = f->stored / GRF_CLIENT_SIZE;

	if (read_at(m, buf, pos + GRF_FRAME_SIZE, f->stored) < 0) {
		free(buf);
		return;
	}
	if (m->nclients + n > m->clients_cap) {
		m->clients_cap = m->nclients + n + 16;
		m->clients = xrealloc(m->clients,
				      m->clients_cap * sizeof(*m->clients));
	}
	for (i = 0; i < n; i++)
		grf_parse_client(buf + i * GRF_CLIENT_SIZE,
				 &m->clients[m->nclients++]);
	m->client_frames++;
	free(buf);
}

/*
 * A CPU tail or head table, appended to @tab.  An entry naming a CPU no
 * record can name (its field is 16 bits) makes the file corrupt: -1.
 */
static int scan_tails(struct merge *m, size_t pos, const struct grf_frame *f,
		      struct grf_tail **tab, size_t *ntab)
{
	uint8_t *buf = xmalloc(f->stored);
	size_t i, n = f->stored / GRF_TAIL_SIZE;

	if (read_at(m, buf, pos + GRF_FRAME_SIZE, f->stored) < 0) {
		free(buf);
		return 0;
	}
	*tab = xrealloc(*tab, (*ntab + n) * sizeof(**tab));
	for (i = 0; i < n; i++) {
		struct grf_tail *t = &(*tab)[*ntab];

		grf_parse_tail(buf + i * GRF_TAIL_SIZE, t);
		if (t->cpu > UINT16_MAX) {
			merge_error(m, "byte %zu: %s table entry %zu names CPU %" PRIu32 ", past the 65535 a record may name",
				    pos, f->flags & GRF_FRAME_TAIL ? "tail" : "head",
				    i, t->cpu);
			free(buf);
			return -1;
		}
		(*ntab)++;
	}
	free(buf);
	return 0;
}


/*
 * Walk the headers of a trace file (records are read later, by the
 * cursors): every frame goes to its CPU's queue, every file header after
 * the first begins the next part.
 */
static void scan_frames(struct merge *m)
{
	uint8_t hdr[GRF_HEADER_MAX];
	char why[GR_WHY_LEN];
	unsigned int format = 0;
	size_t pos = 0;

	while (pos < m->len) {
		size_t n = m->len - pos < sizeof(hdr) ? m->len - pos : sizeof(hdr);
		struct grf_header h;
		struct grf_frame f;

		if (read_at(m, hdr, pos, n < GRF_HEADER_MAX ? n : GRF_HEADER_MAX) < 0)
			return;
		if (grf_is_header(hdr, n)) {
			if (grf_parse_header(hdr, n, &h, why, sizeof(why)) < 0) {
				merge_error(m, "header at byte %zu: %s", pos, why);
				return;
			}
			if (m->nfiles++)
				m->part++;
			else
				m->file = h;
			format = h.stream_format;
			pos += h.size;
			continue;
		}
		if (grf_parse_frame(hdr, m->len - pos, &f, why, sizeof(why)) < 0) {
			merge_error(m, "byte %zu: %s", pos, why);
			return;
		}
		if (f.flags & GRF_FRAME_TASKS) {
			scan_tasks(m, pos, &f);
			pos += GRF_FRAME_SIZE + f.stored;
			continue;
		}
		if (f.flags & GRF_FRAME_CLIENTS) {
			scan_clients(m, pos, &f);
			pos += GRF_FRAME_SIZE + f.stored;
			continue;
		}
		if (f.flags & (GRF_FRAME_TAIL | GRF_FRAME_HEAD)) {
			int bad = f.flags & GRF_FRAME_TAIL ?
				  scan_tails(m, pos, &f, &m->tails, &m->ntails) :
				  scan_tails(m, pos, &f, &m->heads, &m->nheads);

			if (bad < 0)
				return;
			pos += GRF_FRAME_SIZE + f.stored;
			continue;
		}
		push_chunk(m, f.cpu, (struct chunk){
			pos + GRF_FRAME_SIZE, pos + GRF_FRAME_SIZE + f.stored,
			pos + 1, f.flags & GRF_FRAME_ZSTD ? f.raw : 0, m->part,
			format });
		pos += GRF_FRAME_SIZE + f.stored;
	}
}

/*
 * Sorted by tid, one entry each: recordings joined with cat may name a tid
 * twice (reused), and either entry is kept.
 */
static void sort_tasks(struct merge *m)
{
	size_t i, n = 0;

	if (!m->ntasks)
		return;
	qsort(m->tasks, m->ntasks, sizeof(*m->tasks), grf_task_cmp);
	for (i = 0; i < m->ntasks; i++) {
		if (n && m->tasks[n - 1].tid == m->tasks[i].tid)
			n--;
		m->tasks[n++] = m->tasks[i];
	}
	m->ntasks = n;
}

/* Sorted by id, one entry each: ids are not reused within a boot. */
static void sort_clients(struct merge *m)
{
	size_t i, n = 0;

	if (!m->nclients)
		return;
	qsort(m->clients, m->nclients, sizeof(*m->clients), grf_client_cmp);
	for (i = 0; i < m->nclients; i++) {
		if (n && m->clients[n - 1].id == m->clients[i].id)
			n--;
		m->clients[n++] = m->clients[i];
	}
	m->nclients = n;
}

/*
 * The format of a bare stream merge_init_buf_as() was told of, or
 * guessed from its first record: a STREAM_INFO says; a job event of
 * format 1 is at least a struct grtrace_job_event, of format 2 shorter.
 */
static unsigned int bare_format(struct merge *m)
{
	uint8_t p[GR_HDR2_SIZE + 8];
	unsigned int size;
	int f;

	if (m->bare_format != MERGE_GUESS)
		return m->bare_format;
	if (m->len < 4 || read_at(m, p, 0, m->len < sizeof(p) ? m->len : sizeof(p)))
		return GRTRACE_FORMAT_V1;
	f = m->len >= sizeof(p) ? gr_stream_info_format(p, sizeof(p)) : 0;
	if (f)
		return (unsigned int)f;
	size = gr_le16(p + 2);
	if (!gr_type_is_job(gr_le16(p)) && gr_type_is_job(p[0]) &&
	    size >= GR_HDR2_SIZE && size < sizeof(struct grtrace_job_event))
		return GRTRACE_FORMAT_V2;
	return GRTRACE_FORMAT_V1;
}

static void init_input(struct merge *m)
{
	uint8_t magic[GRF_MAGIC_LEN], first[GR_HDR2_SIZE + 8];
	unsigned int i;

	m->cpu_slot = calloc(NR_CPU_IDS, sizeof(*m->cpu_slot));
	if (!m->cpu_slot)
		gr_oom(0);
	if (m->len >= GRF_MAGIC_LEN &&
	    read_at(m, magic, 0, GRF_MAGIC_LEN) == 0 &&
	    grf_is_header(magic, GRF_MAGIC_LEN)) {
		scan_frames(m);
		sort_tasks(m);
		sort_clients(m);
	} else if (m->len && bare_format(m) == GRTRACE_FORMAT_V2) {
		/* One channel: its records are converted as a frame's. */
		m->bare_v2 = 1;
		push_chunk(m, m->bare_cpu,
			   (struct chunk){ 0, m->len, 1, 0, 0, GRTRACE_FORMAT_V2 });
	} else if (!m->bare_format && m->len >= sizeof(first) &&
		   read_at(m, first, 0, sizeof(first)) == 0 &&
		   gr_stream_info_format(first, sizeof(first)) == GRTRACE_FORMAT_V2) {
		/* Its records do not say which CPU wrote them. */
		merge_error(m, "a format 2 stream outside a trace file does not say its CPU: name it with --channel CPU, or record with 'grtrace record'");
	} else if (m->len) {
		scan_bare(m);
		if (m->lazy)
			return;		/* cursors enter the heap as it scans */
	} else {
		merge_error(m, "empty input (0 bytes): not a grtrace trace file or stream");
	}
	for (i = 0; i < m->ncur; i++) {
		struct merge_cursor *c = &m->cur[i];

		c->p = c->end = c->rbase = c->rbuf;
		if (cursor_fill(m, c))
			heap_push(m, i);
	}
}

void merge_init_buf(struct merge *m, const void *buf, size_t len)
{
	memset(m, 0, sizeof(*m));
	m->buf = buf;
	m->len = len;
	m->in_fd = -1;
	init_input(m);
}

void merge_init_buf_as(struct merge *m, const void *buf, size_t len,
		       unsigned int format, uint16_t cpu)
{
	memset(m, 0, sizeof(*m));
	m->buf = buf;
	m->len = len;
	m->in_fd = -1;
	m->bare_format = format;
	m->bare_cpu = cpu;
	init_input(m);
}

/*
 * A regular file is read through pread() into windows; with GRTRACE_MMAP=1
 * in the environment where the kernel maps it, when it can be (the tests
 * read every file both ways; GRTRACE_NO_MMAP=1 still says not to).
 */
static void map_file(struct merge *m)
{
	const char *map = getenv("GRTRACE_MMAP");
	const char *no = getenv("GRTRACE_NO_MMAP");
	void *p;

	if (!m->len || !map || !*map || !strcmp(map, "0") ||
	    (no && *no && strcmp(no, "0")))
		return;
	p = mmap(NULL, m->len, PROT_READ, MAP_SHARED, m->in_fd, 0);
	if (p == MAP_FAILED)
		return;
	m->map = p;
	m->buf = p;
	m->map_drop = m->len > MAP_KEEP;
}

void merge_init_file(struct merge *m, int fd, size_t len)
{
	memset(m, 0, sizeof(*m));
	m->in_fd = fd;
	m->len = len;
	map_file(m);
	init_input(m);
}

void merge_init_file_as(struct merge *m, int fd, size_t len,
			unsigned int format, uint16_t cpu)
{
	memset(m, 0, sizeof(*m));
	m->in_fd = fd;
	m->len = len;
	m->bare_format = format;
	m->bare_cpu = cpu;
	map_file(m);
	init_input(m);
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

/*
 * Format 2: convert the whole records @c->zbuf holds into @c->rbuf, which
 * is used up.  Returns 0 on a corrupt record (reported).
 */
static int fd_convert(struct merge *m, struct merge_cursor *c)
{
	size_t in = 0, olen;
	char why[GR_WHY_LEN];
	long sz = 0;

	c->rlen = 0;
	while (in < c->zlen && c->rlen + GR_V1_MAX <= c->rcap) {
		sz = gr_v2_convert(&c->v2, c->zbuf + in, c->zlen - in,
				   c->rbuf + c->rlen, &olen, why, sizeof(why));
		if (sz <= 0)
			break;
		in += (size_t)sz;
		c->rlen += olen;
	}
	memmove(c->zbuf, c->zbuf + in, c->zlen - in);
	c->zlen -= in;
	c->roff += in;		/* the v2 stream's offset of zbuf[0] */
	c->p = c->rbuf;
	c->end = c->rbuf + c->rlen;
	if (sz < 0) {
		merge_error(m, "%s: corrupt record at byte %" PRIu64 ": %s",
			    c->name, c->roff, why);
		c->done = 1;
		return 0;
	}
	return 1;
}

/*
 * Read @c's descriptor into @buf (@room bytes), holding @held unused bytes
 * already: > 0 bytes read, 0 at its end or on an error (reported, @c done),
 * -1 to try again.
 */
static ssize_t fd_read(struct merge *m, struct merge_cursor *c, uint8_t *buf,
		       size_t room, size_t held)
{
	ssize_t n = read(c->fd, buf, room);

	if (n < 0 && errno == EINTR)
		return -1;
	if (n < 0) {
		merge_error(m, "cannot read %s: %s", c->name, strerror(errno));
		c->done = 1;
		return 0;
	}
	if (n == 0) {
		if (held)
			merge_error(m, "%s: the stream ends inside a record at byte %" PRIu64,
				    c->name, c->roff);
		c->done = 1;
	}
	return n;
}

/* fd_fill() of a format 2 channel; offsets are of its v2 bytes. */
static void fd_fill2(struct merge *m, struct merge_cursor *c)
{
	while (!c->done && c->p == c->end) {
		ssize_t n;

		if (c->zlen && fd_convert(m, c) && c->p != c->end)
			return;
		if (c->done)
			return;
		n = fd_read(m, c, c->zbuf + c->zlen, c->zcap - c->zlen, c->zlen);
		if (n > 0)
			c->zlen += (size_t)n;
	}
}

/* The CPU of a channel file: the number its name ends with. */
static uint16_t cpu_of_name(const char *name)
{
	size_t n = strlen(name);

	while (n && name[n - 1] >= '0' && name[n - 1] <= '9')
		n--;
	return (uint16_t)strtoul(name + n, NULL, 10);
}

/* Read until @c holds a whole record or its file ends. */
static void fd_fill(struct merge *m, struct merge_cursor *c)
{
	if (c->zbuf) {
		fd_fill2(m, c);
		return;
	}
	while (!c->done && c->p == c->end) {
		size_t used = (size_t)(c->end - c->rbuf);
		ssize_t n;

		memmove(c->rbuf, c->rbuf + used, c->rlen - used);
		c->rlen -= used;
		c->roff += used;
		c->p = c->end = c->rbuf;
		n = fd_read(m, c, c->rbuf + c->rlen,
			    FD_READ_SIZE + GRTRACE_MAX_RECORD - c->rlen, c->rlen);
		if (n > 0) {
			c->rlen += (size_t)n;
			fd_validate(m, c);
		}
	}
}

void merge_init_fds(struct merge *m, const int *fds, char *const *names,
		    unsigned int n, unsigned int format)
{
	unsigned int i;

	memset(m, 0, sizeof(*m));
	m->in_fd = -1;
	m->cur = calloc(n ? n : 1, sizeof(*m->cur));
	m->heap = calloc(n ? n : 1, sizeof(*m->heap));
	if (!m->cur || !m->heap)
		gr_oom(0);
	m->ncur = n;
	m->curcap = n ? n : 1;
	for (i = 0; i < n; i++) {
		struct merge_cursor *c = &m->cur[i];

		c->fd = fds[i];
		c->name = names[i];
		c->rbuf = xmalloc(FD_READ_SIZE + GRTRACE_MAX_RECORD);
		c->rcap = FD_READ_SIZE + GRTRACE_MAX_RECORD;
		c->p = c->end = c->rbuf;
		if (format >= GRTRACE_FORMAT_V2) {
			/* Half a window of v2 records fills a window of v1. */
			c->zcap = FD_READ_SIZE / 2;
			c->zbuf = xmalloc(c->zcap);
			c->v2.cpu = cpu_of_name(names[i]);
		}
		fd_fill(m, c);
		if (c->p < c->end)
			heap_push(m, i);
	}
}

/* ---- the merge ---------------------------------------------------------------- */

/* @c used up what it held: 1 when it found more (its next chunk, or read). */
static __attribute__((noinline)) int refill(struct merge *m,
					    struct merge_cursor *c)
{
	if (c->fd >= 0) {
		fd_fill(m, c);
		return c->p < c->end;
	}
	return cursor_fill(m, c);
}

/* Where the record at @c->p is: in the file, or in its stream (fds). */
static uint64_t cursor_offset(const struct merge_cursor *c)
{
	size_t in;

	if (c->fd >= 0)
		return c->roff + (size_t)(c->p - c->rbuf);
	if (c->lazy)
		return (uint64_t)(c->p - c->rbase) + c->lbase;
	in = (size_t)(c->p - c->rbase);
	/*
	 * A compressed frame's records are found by the frame's offset, and
	 * so are a format 2 frame's, converted to records of another size.
	 */
	if (c->chunk.raw || c->chunk.format >= GRTRACE_FORMAT_V2)
		return c->chunk.frame - 1;
	return c->chunk.off + c->roff - c->rlen + in;
}

/*
 * Every reader's verdict on a STREAM_INFO: one whose magic is not
 * GRTRACE_MAGIC ends the input there (the records before it are read).
 */
static int bad_stream_info(struct merge *m, const struct gr_rec *rec)
{
	struct gr_stream_info si;

	/* A STREAM_INFO too short to decode is the record check's to refuse. */
	if (gr_decode_stream_info(rec, &si) < 0 || si.magic == GRTRACE_MAGIC)
		return 0;
	merge_error(m, "not a grtrace stream: STREAM_INFO at byte %" PRIu64 " has magic 0x%08" PRIx32,
		    rec->offset, si.magic);
	m->nheap = 0;
	m->direct = 0;
	if (m->scan)
		scan_end(m);
	return 1;
}

/* Hand out the record at @c->p, cursor @ci's. */
static int deliver(struct merge *m, unsigned int ci, struct gr_rec *rec)
{
	struct merge_cursor *c = &m->cur[ci];

	gr_parse_hdr(c->p, rec);
	rec->offset = cursor_offset(c);
	if (__builtin_expect(rec->type == GRTRACE_REC_STREAM_INFO, 0) &&
	    bad_stream_info(m, rec))
		return 0;
	m->delivered = 1;
	if (c->part > m->part_out) {
		m->part_out = c->part;
		return MERGE_NEW_PART;
	}
	return 1;
}

/*
 * The direct merge.  While every gseq of the first part the scanner found
 * was new, and the records delivered are gseq 0 to @next_g - 1, no other
 * record has a gseq below @next_g: the one of gseq @next_g, first in its
 * cursor, is the one the heap would take.  Its cursor is the one the
 * scanner noted in that gseq's slot.  Anything else (a gseq found twice
 * or too far ahead, a record out of place in its CPU's data, a gseq not
 * found in the first part or the whole stream) hands the merge to the
 * heap, of every cursor as it stands: the order goes on as the heap's all
 * along.  Returns -1 then.
 */
static __attribute__((noinline)) int direct_next(struct merge *m,
						       struct gr_rec *rec)
{
	struct merge_cursor *c;
	unsigned int i;
	uint64_t e;

	e = m->next_g;
	while (m->slots && !m->slot[e % DIRECT_SLOTS] && !m->scan_done &&
	       !m->part)
		lazy_more(m);
	i = m->slots ? m->slot[e % DIRECT_SLOTS] : 0;
	c = i ? &m->cur[i - 1] : NULL;
	if (c && (c->p < c->end || cursor_fill(m, c)) && !c->part &&
	    HDR_GSEQ(c->p) == e) {
		m->slot[e % DIRECT_SLOTS] = 0;
		m->next_g = e + 1;
		m->dcur = i - 1;
		return deliver(m, i - 1, rec);
	}
	if (m->slots && !m->scan_done)
		slots_to_seen(m, m->scan);
	m->slots = 0;
	m->direct = 0;
	m->nheap = 0;
	for (i = 0; i < m->ncur; i++) {
		c = &m->cur[i];
		if (c->p < c->end || cursor_fill(m, c))
			heap_push(m, i);
	}
	return -1;
}

/* The direct merge steps past the record it handed out last. */
static inline void direct_past(struct merge *m)
{
	struct merge_cursor *c = &m->cur[m->dcur];

	m->delivered = 0;
	c->p += gr_le16(c->p + offsetof(struct grtrace_hdr, size));
	__builtin_prefetch(c->p + MERGE_PREFETCH);
	if (c->lazy && c->p < c->end)
		lazy_check(m, c);
	if (c->p >= c->end)
		refill(m, c);
}

static int heap_next(struct merge *m, struct gr_rec *rec);

int merge_next(struct merge *m, struct gr_rec *rec)
{
	struct merge_cursor *c;
	unsigned int i;
	int ret;

	if (m->direct) {
		if (m->delivered)
			direct_past(m);
		/*
		 * Most records: the next gseq's cursor holds it first, in
		 * place, and it is no STREAM_INFO (which deliver() checks).
		 */
		i = m->slot[m->next_g % DIRECT_SLOTS];
		c = i && m->slots ? &m->cur[i - 1] : NULL;
		if (c && c->lazy && c->p < c->end && !c->part &&
		    HDR_GSEQ(c->p) == m->next_g &&
		    gr_le16(c->p + offsetof(struct grtrace_hdr, type)) !=
		    GRTRACE_REC_STREAM_INFO) {
			m->slot[m->next_g++ % DIRECT_SLOTS] = 0;
			m->dcur = i - 1;
			m->delivered = 1;
			gr_parse_hdr(c->p, rec);
			rec->offset = (uint64_t)(c->p - c->rbase) + c->lbase;
			return 1;
		}
		ret = direct_next(m, rec);
		if (ret >= 0)
			return ret;
	}
	return heap_next(m, rec);
}

/* merge_next() by the heap: out of line, so the direct path stays short. */
static __attribute__((noinline)) int heap_next(struct merge *m,
					       struct gr_rec *rec)
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
		if (c->lazy && c->p < c->end)
			lazy_check(m, c);
		if (c->p < c->end || refill(m, c)) {
			/* The key goes straight into the heap: no copy to reload. */
			m->heap[0] = key_at(c->p, ci, c->part);
			heap_down(m, 0);
		} else {
			heap_pop(m);
		}
	}
	while (m->lazy && !m->scan_done && !lazy_ready(m))
		lazy_more(m);
	if (!m->nheap)
		return 0;
	return deliver(m, m->heap[0].cur, rec);
}

void merge_free(struct merge *m)
{
	unsigned int i;

	for (i = 0; i < m->ncur; i++) {
		free(m->cur[i].q);
		free(m->cur[i].rbuf);
		free(m->cur[i].zbuf);
	}
	free(m->cur);
	free(m->heap);
	free(m->slot);
	free(m->cpu_slot);
	free(m->tasks);
	free(m->clients);
	free(m->tails);
	free(m->heads);
	scan_free(m, m->scan);
	for (i = 0; i < m->nwin; i++)
		free(m->win[i].b);
	free(m->win);
	if (m->map)
		munmap(m->map, m->len);
	memset(m, 0, sizeof(*m));
}

/* ---- the merge in a thread of its own ----------------------------------- */

/*
 * Reading, scanning and merging the input costs about 40 % of a report,
 * the analysis the rest: with a second CPU the merge runs in a thread of
 * its own and hands its records over in batches: where the file is
 * mapped, as pointers into it; else copied (a record delivered by
 * merge_next() lives only until the next call).  The batches are small
 * enough to stay in the cache between the two threads.
 */
#define PIPE_BATCHES	4
#define PIPE_BYTES	(128u << 10)
#define PIPE_RECS	(PIPE_BYTES / GR_HDR_SIZE)
/*
 * The records a batch points to were last read on the merge's CPU: the
 * consumer asks for them this many records ahead, or may wait for each
 * (on a 2-vCPU EPYC guest, in one of the placements its host gave it,
 * that wait was 40 % of the report's wall clock time, and made two
 * threads slower than one; in another it cost nothing).
 */
#define PIPE_PREFETCH	16

struct pipe_batch {
	/*
	 * Each record: where the input holds it, when that is the file in
	 * memory (it stays there); else copied into @bytes.
	 */
	const uint8_t **rec;
	uint8_t *bytes;		/* the records copied, one after the other */
	uint64_t *off;		/* the offset of each */
	uint8_t *ret;		/* merge_next()'s return for each */
	unsigned int n;
};

struct merge_pipe {
	struct merge *m;	/* the caller's, given back at the end */
	/*
	 * The merge's own copy, away from the caller's stack: a struct merge
	 * next to the caller's gr_rec shares a cache line that both threads
	 * write for every record.
	 */
	struct merge mm __attribute__((aligned(64)));
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct pipe_batch b[PIPE_BATCHES];
	unsigned int head;	/* the consumer's batch */
	unsigned int full;	/* batches handed over, from @head on */
	int eof;		/* the merge is done: no batch after these */
	int oom;		/* ... because memory ran out in this thread */
	int stop;		/* the consumer wants no more */
	int running;		/* the thread was started */
	/*
	 * The consumer's, on a cache line of their own (written for every
	 * record): where it is in batch @head, which it holds (@taken).
	 */
	struct {
		const uint8_t **rec;
		const uint64_t *off;
		const uint8_t *ret;
		unsigned int idx;
		unsigned int n;
		int taken;
	} c __attribute__((aligned(64)));
};

/*
 * merge_next() under a guard of this thread: a failed allocation here
 * would find none (the caller's is on the other thread) and abort.
 * PIPE_OOM then; the merge's state is half built, and not used again.
 */
#define PIPE_OOM	(-2)

static int pipe_merge_next(struct merge_pipe *p, struct gr_rec *rec)
{
	struct gr_oom_guard g;
	int n;

	if (setjmp(g.env))
		return PIPE_OOM;
	gr_oom_push(&g);
	n = merge_next(&p->mm, rec);
	gr_oom_pop(&g);
	return n;
}

static void *pipe_run(void *arg)
{
	struct merge_pipe *p = arg;
	unsigned int tail = 0;
	struct gr_rec rec;
	int n = 1, held = 0, oom = 0;

	while (n > 0) {
		struct pipe_batch *b = &p->b[tail];
		unsigned int nrec = 0;
		size_t used = 0;

		pthread_mutex_lock(&p->lock);
		while (p->full == PIPE_BATCHES && !p->stop)
			pthread_cond_wait(&p->cond, &p->lock);
		n = !p->stop;
		pthread_mutex_unlock(&p->lock);
		if (!n)
			break;
		for (;;) {
			if (!held) {
				n = pipe_merge_next(p, &rec);
				if (n == PIPE_OOM)
					oom = 1;
				if (n <= 0)
					break;
				held = n;
			}
			if (p->mm.buf && rec.data >= p->mm.buf &&
			    rec.data < p->mm.buf + p->mm.len) {
				if (nrec == PIPE_RECS)
					break;
				b->rec[nrec] = rec.data;
			} else {
				if (used + rec.size > PIPE_BYTES || nrec == PIPE_RECS)
					break;
				memcpy(b->bytes + used, rec.data, rec.size);
				b->rec[nrec] = b->bytes + used;
				used += rec.size;
			}
			b->off[nrec] = rec.offset;
			b->ret[nrec++] = (uint8_t)held;
			held = 0;
		}
		pthread_mutex_lock(&p->lock);
		b->n = nrec;
		p->full++;
		p->eof = n <= 0;
		p->oom = oom;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		tail = (tail + 1) % PIPE_BATCHES;
	}
	return NULL;
}

struct merge_pipe *merge_pipe_start(struct merge *m)
{
	struct merge_pipe *p;
	unsigned int i;

	/* Aligned, so that the cache lines apart are apart. */
	if (posix_memalign((void **)&p, 64, sizeof(*p)))
		gr_oom(0);
	memset(p, 0, sizeof(*p));
	p->m = m;
	p->mm = *m;
	for (i = 0; i < PIPE_BATCHES; i++) {
		p->b[i].bytes = xmalloc(PIPE_BYTES);
		p->b[i].rec = xmalloc(PIPE_RECS * sizeof(*p->b[i].rec));
		p->b[i].off = xmalloc(PIPE_RECS * sizeof(*p->b[i].off));
		p->b[i].ret = xmalloc(PIPE_RECS);
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if (pthread_create(&p->thread, NULL, pipe_run, p)) {
		merge_pipe_stop(p);
		return NULL;
	}
	p->running = 1;
	return p;
}

int merge_pipe_next(struct merge_pipe *p, struct gr_rec *rec)
{
	while (p->c.idx == p->c.n) {
		pthread_mutex_lock(&p->lock);
		if (p->c.taken) {
			/* Batch @head is used up: back to the merge. */
			p->full--;
			p->head = (p->head + 1) % PIPE_BATCHES;
			pthread_cond_broadcast(&p->cond);
		}
		while (!p->full && !p->eof)
			pthread_cond_wait(&p->cond, &p->lock);
		p->c.taken = p->full != 0;
		p->c.rec = p->b[p->head].rec;
		p->c.off = p->b[p->head].off;
		p->c.ret = p->b[p->head].ret;
		p->c.n = p->c.taken ? p->b[p->head].n : 0;
		p->c.idx = 0;
		pthread_mutex_unlock(&p->lock);
		if (!p->c.taken)
			return 0;
	}
	if (p->c.idx + PIPE_PREFETCH < p->c.n) {
		const uint8_t *ahead = p->c.rec[p->c.idx + PIPE_PREFETCH];

		__builtin_prefetch(ahead);
		__builtin_prefetch(ahead + 63);
	}
	gr_parse_hdr(p->c.rec[p->c.idx], rec);
	rec->offset = p->c.off[p->c.idx];
	return p->c.ret[p->c.idx++];
}

int merge_pipe_oom(struct merge_pipe *p)
{
	int oom;

	pthread_mutex_lock(&p->lock);
	oom = p->oom;
	pthread_mutex_unlock(&p->lock);
	return oom;
}

void merge_pipe_stop(struct merge_pipe *p)
{
	unsigned int i;

	if (p->running) {
		pthread_mutex_lock(&p->lock);
		p->stop = 1;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
	}
	*p->m = p->mm;
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	for (i = 0; i < PIPE_BATCHES; i++) {
		free(p->b[i].bytes);
		free(p->b[i].rec);
		free(p->b[i].off);
		free(p->b[i].ret);
	}
	free(p);
}
