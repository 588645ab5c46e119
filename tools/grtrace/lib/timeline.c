// SPDX-License-Identifier: GPL-2.0
/*
 * libgrtrace: the GPU side of merge_timeline.py (include/grtrace/timeline.h)
 * -- the job events of a grtrace file as columns, read by the merge
 * (merge.c) as grtrace_next_record() reads them -- and the test that tells
 * a trace-cmd trace.dat by its first bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GRTRACE_BUILD
#include "include/grtrace/timeline.h"
#include "lib.h"
#include "merge.h"
#include "tracedat.h"

/* trace-cmd.dat(5): 0x17 0x08 0x44 "tracing" */
static const char tracedat_magic[10] = "\x17\x08\x44tracing";

static void tl_err(struct grtrace_error *err, int status, int sys,
		   uint64_t offset, const char *fmt, ...) GR_PRINTF(5, 6);

static void tl_err(struct grtrace_error *err, int status, int sys,
		   uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	/* Nothing into one too small, nothing past ours (grtrace.h). */
	if (!err || err->size < GRTRACE_ERROR_SIZE_1)
		return;
	memset((char *)err + sizeof(err->size), 0,
	       sizeof(*err) - sizeof(err->size));
	err->status = status;
	err->sys = sys;
	err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

GRTRACE_API int grtrace_is_tracedat(const char *path,
				    struct grtrace_error *err)
{
	char head[sizeof(tracedat_magic)];
	ssize_t n;
	int fd;

	if (err && err->size < GRTRACE_ERROR_SIZE_1) {
		errno = EINVAL;
		return -1;
	}

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tl_err(err, GRTRACE_ERR_IO, errno, 0, "%s", strerror(errno));
		return -1;
	}
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n < 0) {
		tl_err(err, GRTRACE_ERR_IO, errno, 0, "%s", strerror(errno));
		return -1;
	}
	return n == (ssize_t)sizeof(head) && !memcmp(head, tracedat_magic, n);
}

GRTRACE_API int grtrace_tracedat_check(const void *buf, size_t len,
				       struct grtrace_error *err)
{
	const char *why;

	if (err && err->size < GRTRACE_ERROR_SIZE_1) {
		errno = EINVAL;
		return -1;
	}
	tl_err(err, GRTRACE_OK, 0, 0, "%s", "");
	why = buf ? gr_tracedat_check(buf, len) : "no buffer (NULL)";
	if (!why)
		return 0;
	tl_err(err, buf ? GRTRACE_ERR_INPUT : GRTRACE_ERR_INVAL, 0, 0,
	       "not a trace.dat libtracecmd can read: %s", why);
	return -1;
}

struct gpu_cols {
	struct grtrace_gpu_events *ev;
	size_t cap, rcap;
};

static void gpu_grow(struct gpu_cols *c)
{
	struct grtrace_gpu_events *ev = c->ev;
	size_t cap = c->cap ? 2 * c->cap : 256;

	ev->ts = xrealloc(ev->ts, cap * sizeof(*ev->ts));
	ev->ctx = xrealloc(ev->ctx, cap * sizeof(*ev->ctx));
	ev->seqno = xrealloc(ev->seqno, cap * sizeof(*ev->seqno));
	ev->ring = xrealloc(ev->ring, cap * sizeof(*ev->ring));
	ev->pid = xrealloc(ev->pid, cap * sizeof(*ev->pid));
	ev->tid = xrealloc(ev->tid, cap * sizeof(*ev->tid));
	ev->type = xrealloc(ev->type, cap * sizeof(*ev->type));
	ev->summary = xrealloc(ev->summary, cap * sizeof(*ev->summary));
	ev->has_task = xrealloc(ev->has_task, cap * sizeof(*ev->has_task));
	c->cap = cap;
}

static void gpu_add(struct gpu_cols *c, uint16_t type, uint64_t ts,
		    uint64_t ctx, uint64_t seqno, uint32_t ring, int has_task,
		    uint32_t pid, uint32_t tid, uint16_t summary)
{
	struct grtrace_gpu_events *ev = c->ev;
	size_t i = ev->n;

	if (i == c->cap)
		gpu_grow(c);
	ev->type[i] = type;
	ev->ts[i] = ts;
	ev->ctx[i] = ctx;
	ev->seqno[i] = seqno;
	ev->ring[i] = ring;
	ev->has_task[i] = !!has_task;
	ev->pid[i] = has_task ? pid : 0;
	ev->tid[i] = has_task ? tid : 0;
	ev->summary[i] = summary;
	ev->n++;
}

/* Ring @r, replacing an earlier entry of its id. */
static void gpu_ring(struct gpu_cols *c, const struct gr_ring *r)
{
	struct grtrace_gpu_events *ev = c->ev;
	size_t i;

	for (i = 0; i < ev->nring && ev->ring_id[i] != r->ring_id; i++)
		;
	if (i == ev->nring) {
		if (i == c->rcap) {
			c->rcap = c->rcap ? 2 * c->rcap : 16;
			ev->ring_id = xrealloc(ev->ring_id,
					       c->rcap * sizeof(*ev->ring_id));
			ev->ring_name = xrealloc(ev->ring_name,
						 c->rcap * GRTRACE_RING_STR);
			ev->ring_driver = xrealloc(ev->ring_driver,
						   c->rcap * GRTRACE_RING_STR);
		}
		ev->nring++;
	}
	ev->ring_id[i] = r->ring_id;
	snprintf(ev->ring_name + i * GRTRACE_RING_STR, GRTRACE_RING_STR, "%s",
		 r->name);
	snprintf(ev->ring_driver + i * GRTRACE_RING_STR, GRTRACE_RING_STR, "%s",
		 r->driver);
}

/* A JOB_SUMMARY: an event per stamp; only its SUBMIT names the task. */
static void gpu_summary(struct gpu_cols *c, const struct gr_summary *js)
{
	unsigned int k;

	for (k = 0; k < 5; k++) {
		if (!(js->events & (2u << k)))
			continue;
		gpu_add(c, (uint16_t)(GRTRACE_EV_SUBMIT + k), js->ts[k],
			js->ctx, js->seqno, js->ring_id, k == 0 && js->tid,
			js->pid, js->tid, js->reason);
	}
}

static void gpu_record(struct gpu_cols *c, const struct gr_rec *rec)
{
	struct gr_metadata md;
	struct gr_summary js;
	struct gr_ring ring;
	struct gr_job job;
	uint32_t i;

	if (!gr_decode_job(rec, &job)) {
		gpu_add(c, rec->type, rec->ts, job.ctx, job.seqno, job.ring_id,
			job.has_task, job.pid, job.tid, GRTRACE_SUMMARY_NONE);
	} else if (!gr_decode_summary(rec, &js)) {
		gpu_summary(c, &js);
	} else if (!gr_decode_ring(rec, &ring)) {
		gpu_ring(c, &ring);
	} else if (!gr_decode_metadata(rec, &md)) {
		for (i = 0; i < md.nr_rings; i++)
			if (!gr_decode_metadata_ring(rec, &md, i, &ring))
				gpu_ring(c, &ring);
	}
}

GRTRACE_API void grtrace_gpu_events_free(struct grtrace_gpu_events *ev)
{
	if (!ev)
		return;
	free(ev->ts);
	free(ev->ctx);
	free(ev->seqno);
	free(ev->ring);
	free(ev->pid);
	free(ev->tid);
	free(ev->type);
	free(ev->summary);
	free(ev->has_task);
	free(ev->ring_id);
	free(ev->ring_name);
	free(ev->ring_driver);
	free(ev);
}

/* The columns of the merge @m, set up by the caller and freed here. */
static int gpu_walk(struct merge *m, struct grtrace_gpu_events **out,
		    struct grtrace_error *err)
{
	struct gpu_cols c = { 0 };
	struct gr_oom_guard g;
	struct gr_rec rec;

	c.ev = calloc(1, sizeof(*c.ev));
	if (!c.ev) {
		merge_free(m);
		tl_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0, "out of memory");
		return -1;
	}
	/* An allocation failure below: the half-built columns leak. */
	if (setjmp(g.env)) {
		tl_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0, "out of memory");
		return -1;
	}
	gr_oom_push(&g);
	while (merge_next(m, &rec) > 0)
		gpu_record(&c, &rec);
	gr_oom_pop(&g);
	if (m->failed) {
		const char *at = strstr(m->errmsg, "byte ");

		tl_err(err, GRTRACE_ERR_INPUT, 0,
		       at ? strtoull(at + 5, NULL, 10) : 0, "%s", m->errmsg);
		merge_free(m);
		grtrace_gpu_events_free(c.ev);
		return -1;
	}
	merge_free(m);
	*out = c.ev;
	return 0;
}

/*
 * merge_init_file() (@buf NULL) or merge_init_buf() under a guard: 0, or
 * -1 with *@err when memory ran out (the half-built merge leaks).
 */
static int init_guarded(struct merge *m, int fd, const void *buf, size_t len,
			struct grtrace_error *err)
{
	struct gr_oom_guard g;

	if (setjmp(g.env)) {
		tl_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0, "out of memory");
		return -1;
	}
	gr_oom_push(&g);
	if (buf)
		merge_init_buf(m, buf, len);
	else
		merge_init_file(m, fd, len);
	gr_oom_pop(&g);
	return 0;
}

GRTRACE_API int grtrace_gpu_events(const char *path,
				   struct grtrace_gpu_events **out,
				   struct grtrace_error *err)
{
	struct merge m;
	struct stat st;
	int fd, ret;

	if (err && err->size < GRTRACE_ERROR_SIZE_1) {
		errno = EINVAL;
		return -1;
	}

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		tl_err(err, GRTRACE_ERR_IO, errno, 0, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		tl_err(err, GRTRACE_ERR_IO, EINVAL, 0, "not a regular file");
		close(fd);
		return -1;
	}
	ret = init_guarded(&m, fd, NULL, (size_t)st.st_size, err);
	if (!ret)
		ret = gpu_walk(&m, out, err);
	close(fd);
	return ret;
}

GRTRACE_API int grtrace_gpu_events_mem(const void *buf, size_t len,
				       struct grtrace_gpu_events **out,
				       struct grtrace_error *err)
{
	struct merge m;

	if (err && err->size < GRTRACE_ERROR_SIZE_1) {
		errno = EINVAL;
		return -1;
	}

	*out = NULL;
	if (init_guarded(&m, -1, buf ? buf : "", len, err))
		return -1;
	return gpu_walk(&m, out, err);
}

static int by_tid_enter(const void *a, const void *b, void *arg)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct grtrace_ioctls *io = arg;

	if (io->tid[x] != io->tid[y])
		return io->tid[x] < io->tid[y] ? -1 : 1;
	return x < y ? -1 : x > y;	/* @io is sorted by enter */
}

GRTRACE_API long grtrace_ioctls_find(struct grtrace_ioctls *io, uint32_t tid,
				     uint64_t ts, struct grtrace_error *err)
{
	size_t lo = 0, hi, i;
	uint32_t *ix;

	if (err && err->size < GRTRACE_ERROR_SIZE_1) {
		errno = EINVAL;
		return -1;
	}

	if (!io->by_tid && io->n) {
		ix = malloc(io->n * sizeof(*ix));
		if (!ix) {
			tl_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0,
			       "out of memory");
			return -1;
		}
		for (i = 0; i < io->n; i++)
			ix[i] = (uint32_t)i;
		qsort_r(ix, io->n, sizeof(*ix), by_tid_enter, io);
		io->by_tid = ix;
	}
	ix = io->by_tid;
	/* The last ioctl of @tid that began at or before @ts. */
	hi = io->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t t = io->tid[ix[mid]];

		if (t < tid || (t == tid && io->enter[ix[mid]] <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || io->tid[ix[lo - 1]] != tid)
		return -1;
	i = ix[lo - 1];
	return ts <= io->exit[i] ? (long)i : -1;
}

/* @v in decimal at @p; the end. */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_hex(char *p, uint32_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[8];
	int n = 0;

	do {
		tmp[n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

GRTRACE_API int grtrace_ioctls_format(const struct grtrace_ioctls *io,
				      size_t first, size_t count,
				      const char *const *text, int verbose,
				      char **buf, size_t *len, uint64_t **off,
				      struct grtrace_error *err)
{
	static const char mid[] = " cpu ioctl ", dur[] = " dur=";
	size_t *tlen, i, cap = 0;
	char *b, *p;
	uint64_t *o;

	if (err && err->size < GRTRACE_ERROR_SIZE_1) {
		errno = EINVAL;
		return -1;
	}

	*buf = NULL;
	*off = NULL;
	if (first > io->n || count > io->n - first) {
		tl_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
		       "ioctls %zu to %zu of %zu", first, first + count, io->n);
		return -1;
	}
	tlen = malloc((io->nkind + 1) * sizeof(*tlen));
	o = malloc((count + 1) * sizeof(*o));
	for (i = 0; tlen && i < io->nkind; i++) {
		tlen[i] = strlen(text[i]);
		if (cap < tlen[i])
			cap = tlen[i];
	}
	/* The longest line: 2 times of 20 digits, the text, the words. */
	cap = count * (cap + 2 * 20 + sizeof(mid) + sizeof(dur) +
		       (verbose ? 16 + 20 + 8 : 0)) + 1;
	b = tlen && o ? malloc(cap) : NULL;
	if (!b) {
		free(tlen);
		free(o);
		tl_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0, "out of memory");
		return -1;
	}
	p = b;
	for (i = first; i < first + count; i++) {
		uint32_t k = io->kind[i];

		o[i - first] = (uint64_t)(p - b);
		p = put_u64(p, io->enter[i]);
		memcpy(p, mid, sizeof(mid) - 1);
		p += sizeof(mid) - 1;
		memcpy(p, text[k], tlen[k]);
		p += tlen[k];
		memcpy(p, dur, sizeof(dur) - 1);
		p = put_u64(p + sizeof(dur) - 1, io->exit[i] - io->enter[i]);
		if (verbose) {
			memcpy(p, " cmd=0x", 7);
			p = put_hex(p + 7, io->cmd[i]);
			memcpy(p, " exit=", 6);
			p = put_u64(p + 6, io->exit[i]);
		}
		*p++ = '\n';
	}
	o[count] = (uint64_t)(p - b);
	free(tlen);
	*buf = b;
	*len = (size_t)(p - b);
	*off = o;
	return 0;
}
