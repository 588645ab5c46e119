// SPDX-License-Identifier: GPL-2.0
/*
 * libgrtrace: the public interface (include/grtrace/grtrace.h) over the
 * merge (merge.c) and the report engine (report.c).
 *
 * Every entry point that allocates arms an out-of-memory guard (lib.h), so
 * that a failed allocation anywhere below comes back as GRTRACE_ERR_NOMEM;
 * the handle is then unusable but can be closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GRTRACE_BUILD
#include "include/grtrace/grtrace.h"
#include "diff.h"
#include "merge.h"
#include "report-int.h"
#include "rows.h"

#define JOBQ	64		/* jobs a record may close at once, queued */

struct grtrace_trace {
	int fd;			/* -1 for memory */
	const uint8_t *buf;
	size_t len;
	int merging;		/* @m is initialised */
	int fresh;		/* ... and nothing taken from it since */
	int spent;		/* ... read to its end by a report: start again */
	int broken;		/* out of memory inside: only close is left */
	struct merge m;
	unsigned int part;
	/* grtrace_next_job(): the analysis and the jobs it closed. */
	struct rp *rp;
	struct grtrace_job *q;
	size_t qhead, qlen, qcap;
	int input_done;		/* 1: read to its end; -1: @pending says why */
	struct grtrace_error pending;	/* told after the queued jobs */
	/* grtrace_open_mem_as(): what it was told of a bare stream. */
	unsigned int bare_format;
	uint16_t bare_cpu;
	/* grtrace_next_record()'s last record, for grtrace_info_*(). */
	struct gr_rec last;
	int have_last;
	/* grtrace_next_rows(): the rows handed out, where it is. */
	struct gr_rows rows;
	int rows_state;		/* ROWS_* */
	struct grtrace_error rows_err;	/* told after the rows before it */
	/* grtrace_open_channels(): live channels, read once. */
	unsigned int nchan;
	unsigned int chan_format;
	/* The report's merge thread while one runs (report_run()). */
	struct merge_pipe *pipe;
	int *chan_fds;
	char **chan_names;
	struct gr_stats stats;
	int have_stats;
	char none[96];		/* why the input names no DRM client */
};

/* The report's merge thread, if one runs: joined, its merge given back. */
static void stop_pipe(grtrace_trace *t)
{
	if (t->pipe) {
		merge_pipe_stop(t->pipe);
		t->pipe = NULL;
	}
}

_Static_assert(sizeof(struct grtrace_error) == GRTRACE_ERROR_SIZE_1,
	       "struct grtrace_error: GRTRACE_1 layout");
_Static_assert(sizeof(struct grtrace_record) == GRTRACE_RECORD_SIZE_1,
	       "struct grtrace_record: GRTRACE_1 layout");
_Static_assert(sizeof(struct grtrace_job) == GRTRACE_JOB_SIZE_1,
	       "struct grtrace_job: GRTRACE_1 layout");
_Static_assert(sizeof(struct grtrace_info_stream) == GRTRACE_INFO_STREAM_SIZE_1,
	       "struct grtrace_info_stream: GRTRACE_1 layout");
_Static_assert(sizeof(struct grtrace_info_ring) == GRTRACE_INFO_RING_SIZE_1,
	       "struct grtrace_info_ring: GRTRACE_1 layout");
_Static_assert(sizeof(struct grtrace_info_trigger) == GRTRACE_INFO_TRIGGER_SIZE_1,
	       "struct grtrace_info_trigger: GRTRACE_1 layout");
_Static_assert(sizeof(struct grtrace_info_loss) == GRTRACE_INFO_LOSS_SIZE_1,
	       "struct grtrace_info_loss: GRTRACE_1 layout");
_Static_assert(offsetof(struct grtrace_report_opts, ring) == GRTRACE_REPORT_OPTS_SIZE_1,
	       "struct grtrace_report_opts: GRTRACE_1 layout");
_Static_assert(sizeof(struct grtrace_report_opts) == GRTRACE_REPORT_OPTS_SIZE_1_4,
	       "struct grtrace_report_opts: 1.4 layout");
_Static_assert(sizeof(struct grtrace_channels) == GRTRACE_CHANNELS_SIZE_1_4,
	       "struct grtrace_channels: 1.4 layout");
_Static_assert(sizeof(struct grtrace_info_metadata) == GRTRACE_INFO_METADATA_SIZE_1_4,
	       "struct grtrace_info_metadata: 1.4 layout");
_Static_assert(sizeof(struct grtrace_info_summary) == GRTRACE_INFO_SUMMARY_SIZE_1_4,
	       "struct grtrace_info_summary: 1.4 layout");
_Static_assert(sizeof(struct grtrace_info_file) == GRTRACE_INFO_FILE_SIZE_1_4,
	       "struct grtrace_info_file: 1.4 layout");

/*
 * A caller's struct grtrace_error is written only if its @size holds at
 * least the GRTRACE_1 fields; of it, only the bytes both sides know.
 */
static int err_bad(const struct grtrace_error *err)
{
	return err && err->size < GRTRACE_ERROR_SIZE_1;
}

static void set_err(struct grtrace_error *err, int status, int sys,
		    uint64_t offset, const char *fmt, ...) GR_PRINTF(5, 6);

static void set_err(struct grtrace_error *err, int status, int sys,
		    uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!err || err_bad(err))
		return;
	err->status = status;
	err->sys = sys;
	err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* All but @size: no byte past the caller's struct or past ours. */
static void clear_err(struct grtrace_error *err)
{
	uint32_t n;

	if (!err || err_bad(err))
		return;
	n = err->size < sizeof(*err) ? err->size : sizeof(*err);
	memset((uint8_t *)err + sizeof(err->size), 0, n - sizeof(err->size));
}

/* *@dst = *@src, @dst's @size kept. */
static void copy_err(struct grtrace_error *dst, const struct grtrace_error *src)
{
	if (!dst || err_bad(dst))
		return;
	memcpy((uint8_t *)dst + sizeof(dst->size),
	       (const uint8_t *)src + sizeof(src->size),
	       sizeof(*src) - sizeof(src->size));
}

/* An error struct of the library's own, ready for set_err(). */
static void init_err(struct grtrace_error *err)
{
	memset(err, 0, sizeof(*err));
	err->size = sizeof(*err);
}

/*
 * The start of every call that takes a struct grtrace_error: one too
 * small to say so fails the call (errno EINVAL); else it is cleared.
 */
#define ENTER(err, fail)						\
	do {								\
		if (err_bad(err)) {					\
			errno = EINVAL;					\
			return fail;					\
		}							\
		clear_err(err);						\
	} while (0)

/*
 * A caller's sized struct @what (@size its first field) below its
 * GRTRACE_1 minimum @min: refused, with *@err.
 */
static int size_bad(uint32_t size, uint32_t min, const char *what,
		    struct grtrace_error *err)
{
	if (size >= min)
		return 0;
	set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
		"struct %s: size %u is below its GRTRACE_1 minimum %u (set .size = sizeof(struct %s))",
		what, size, min, what);
	return 1;
}

/* The same for a struct, or a use of one, that came in version @since. */
static int size_bad_since(uint32_t size, uint32_t min, const char *what,
			  const char *since, struct grtrace_error *err)
{
	if (size >= min)
		return 0;
	set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
		"struct %s: size %u is below its %s minimum %u (set .size = sizeof(struct %s))",
		what, size, since, min, what);
	return 1;
}

/*
 * Fill the caller's sized struct @dst from the library's @src (@len
 * bytes, @size first): what fits in both, then @size says how much.
 */
static void sized_copy(void *dst, const void *src, uint32_t len)
{
	uint32_t want = *(const uint32_t *)dst;
	uint32_t n = want < len ? want : len;

	memcpy((uint8_t *)dst + sizeof(uint32_t),
	       (const uint8_t *)src + sizeof(uint32_t), n - sizeof(uint32_t));
	*(uint32_t *)dst = n;
}

/*
 * A NULL handle (a failed open, or a binding's closed one) is refused,
 * never followed.
 */
static void no_handle(struct grtrace_error *err)
{
	set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0, "no trace handle (NULL)");
}

GRTRACE_API unsigned int grtrace_lib_version(void)
{
	return GRTRACE_LIB_VERSION;
}

/* The merge's first error, as an error value: "... at byte N: ...". */
static void merge_err(const struct merge *m, struct grtrace_error *err)
{
	const char *at = strstr(m->errmsg, "byte ");
	uint64_t off = at ? strtoull(at + 5, NULL, 10) : 0;

	set_err(err, GRTRACE_ERR_INPUT, 0, off, "%s", m->errmsg);
}

static void start(grtrace_trace *t)
{
	if (t->nchan)
		merge_init_fds(&t->m, t->chan_fds, t->chan_names, t->nchan,
			       t->chan_format);
	else if (t->fd >= 0 && t->bare_format)
		merge_init_file_as(&t->m, t->fd, t->len, t->bare_format,
				   t->bare_cpu);
	else if (t->fd >= 0)
		merge_init_file(&t->m, t->fd, t->len);
	else if (t->bare_format)
		merge_init_buf_as(&t->m, t->buf, t->len, t->bare_format,
				  t->bare_cpu);
	else
		merge_init_buf(&t->m, t->buf, t->len);
	t->merging = 1;
	t->fresh = 1;
	t->spent = 0;
	t->part = 0;
	t->rows_state = 0;
	t->have_last = 0;
}

/* The report engine and what was read through it: gone. */
static void drop_engine(grtrace_trace *t)
{
	if (t->rp)
		rp_free(t->rp);
	t->rp = NULL;
	t->qhead = t->qlen = 0;
	t->input_done = 0;
	clear_err(&t->pending);
}

static void stop(grtrace_trace *t)
{
	drop_engine(t);
	if (t->merging)
		merge_free(&t->m);
	t->merging = 0;
}

/*
 * From the start again, unless nothing was read since it: a trace file's
 * frames are scanned and every CPU's first window read at each start.
 */
static void restart(grtrace_trace *t)
{
	if (t->merging && t->fresh && !t->rp)
		return;
	stop(t);
	start(t);
}

/*
 * After a whole report: its engine freed, the merge left as it ended (its
 * tables still answer the accessors); the next call that reads starts it
 * again (GUARD), and a report that ends the program pays for no restart.
 */
static void spend(grtrace_trace *t)
{
	drop_engine(t);
	t->have_last = 0;
	t->fresh = 0;
	t->spent = 1;
}

/* The next record of the merge; the handle is no longer at its start. */
static int take(grtrace_trace *t, struct gr_rec *rec)
{
	t->fresh = 0;
	return merge_next(&t->m, rec);
}

/* Arm the guard; on an allocation failure below, come back here as -1. */
#define GUARD(t, g, err, fail)						\
	do {								\
		if ((t)->broken) {					\
			set_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0,	\
				"out of memory earlier: close the handle"); \
			return fail;					\
		}							\
		if (setjmp((g).env)) {					\
			(t)->broken = 1;				\
			stop_pipe(t);					\
			set_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0,	\
				"out of memory");			\
			return fail;					\
		}							\
		gr_oom_push(&(g));					\
		if ((t)->spent) {					\
			stop(t);					\
			start(t);					\
		}							\
	} while (0)

static grtrace_trace *open_common(grtrace_trace *t, struct grtrace_error *err)
{
	struct gr_oom_guard g;

	init_err(&t->pending);
	init_err(&t->rows_err);
	GUARD(t, g, err, t);
	start(t);
	gr_oom_pop(&g);
	return t;
}

static grtrace_trace *open_fd_as(int fd, const char *path, unsigned int format,
				 unsigned int cpu, struct grtrace_error *err);

static grtrace_trace *open_path(const char *path, unsigned int format,
				unsigned int cpu, struct grtrace_error *err)
{
	int fd;

	ENTER(err, NULL);
	if (!path) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0, "no path (NULL)");
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return open_fd_as(fd, path, format, cpu, err);
}

/* The handle of @fd (ours now, closed on failure); @path for messages. */
static grtrace_trace *open_fd_as(int fd, const char *path, unsigned int format,
				 unsigned int cpu, struct grtrace_error *err)
{
	grtrace_trace *t;
	struct stat st;
	int e;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		e = fd < 0 || errno != 0 ? errno : EINVAL;
		if (fd >= 0 && !S_ISREG(st.st_mode))
			e = EINVAL;
		set_err(err, GRTRACE_ERR_IO, e, 0, "%s: %s", path,
			e == EINVAL ? "not a regular file" : strerror(e));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		close(fd);
		set_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0, "out of memory");
		return NULL;
	}
	t->fd = fd;
	t->len = (size_t)st.st_size;
	t->bare_format = format;
	t->bare_cpu = (uint16_t)cpu;
	if (!open_common(t, err)->broken)
		return t;
	grtrace_close(t);
	return NULL;
}

GRTRACE_API grtrace_trace *grtrace_open(const char *path,
					struct grtrace_error *err)
{
	return open_path(path, 0, 0, err);
}

GRTRACE_API grtrace_trace *grtrace_open_fd(int fd, struct grtrace_error *err)
{
	char name[32];

	ENTER(err, NULL);
	snprintf(name, sizeof(name), "fd %d", fd);
	if (fd < 0)
		errno = EBADF;
	else
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return open_fd_as(fd, name, 0, 0, err);
}

/* The channels' stats file, as the report takes it. */
static void chan_stats(grtrace_trace *t, const struct grtrace_channels *c)
{
	uint32_t i;

	for (i = 0; i < c->nstats && t->stats.n < GR_STATS_MAX; i++) {
		if (!c->stat_keys[i] ||
		    strlen(c->stat_keys[i]) >= sizeof(t->stats.ent[0].key))
			continue;
		strcpy(t->stats.ent[t->stats.n].key, c->stat_keys[i]);
		t->stats.ent[t->stats.n++].val = c->stat_vals[i];
	}
	t->have_stats = c->nstats > 0;
}

GRTRACE_API grtrace_trace *grtrace_open_channels(const struct grtrace_channels *c,
						 struct grtrace_error *err)
{
	grtrace_trace *t;
	uint32_t i;

	ENTER(err, NULL);
	if (!c) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0, "no channels (NULL)");
		return NULL;
	}
	if (size_bad_since(c->size, GRTRACE_CHANNELS_SIZE_1_4, "grtrace_channels",
			   "1.4", err))
		return NULL;
	if (!c->n || !c->fds || !c->names || c->format < 1 ||
	    c->format > GRTRACE_FORMAT_V2 ||
	    (c->nstats && (!c->stat_keys || !c->stat_vals))) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"bad channels (%u of them, format %u)", c->n, c->format);
		return NULL;
	}
	for (i = 0; i < c->n; i++) {
		if (c->fds[i] < 0 || !c->names[i]) {
			set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
				"channel %u: no descriptor or no name", i);
			return NULL;
		}
	}
	t = calloc(1, sizeof(*t));
	if (t) {
		t->chan_fds = calloc(c->n, sizeof(*t->chan_fds));
		t->chan_names = calloc(c->n, sizeof(*t->chan_names));
	}
	if (!t || !t->chan_fds || !t->chan_names) {
		if (t) {
			free(t->chan_fds);
			free(t->chan_names);
		}
		free(t);
		set_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0, "out of memory");
		return NULL;
	}
	t->fd = -1;
	t->nchan = c->n;
	t->chan_format = c->format;
	for (i = 0; i < c->n; i++) {
		t->chan_fds[i] = c->fds[i];
		/* merge.c names its cursors with these; never written. */
		t->chan_names[i] = (char *)c->names[i];
	}
	chan_stats(t, c);
	if (!open_common(t, err)->broken)
		return t;
	grtrace_close(t);
	return NULL;
}

GRTRACE_API grtrace_trace *grtrace_open_as(const char *path,
					   unsigned int format,
					   unsigned int cpu,
					   struct grtrace_error *err)
{
	ENTER(err, NULL);
	if (format > GRTRACE_FORMAT_V2 || cpu > UINT16_MAX) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"stream format %u or CPU %u out of range", format, cpu);
		return NULL;
	}
	return open_path(path, format ? format : MERGE_GUESS, cpu, err);
}

GRTRACE_API grtrace_trace *grtrace_open_mem(const void *buf, size_t len,
					    struct grtrace_error *err)
{
	grtrace_trace *t;

	ENTER(err, NULL);
	t = calloc(1, sizeof(*t));
	if (!t) {
		set_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0, "out of memory");
		return NULL;
	}
	t->fd = -1;
	t->buf = buf;
	t->len = len;
	if (!open_common(t, err)->broken)
		return t;
	grtrace_close(t);
	return NULL;
}

GRTRACE_API grtrace_trace *grtrace_open_mem_as(const void *buf, size_t len,
					       unsigned int format,
					       unsigned int cpu,
					       struct grtrace_error *err)
{
	grtrace_trace *t;

	ENTER(err, NULL);
	if (format > GRTRACE_FORMAT_V2 || cpu > UINT16_MAX) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"stream format %u or CPU %u out of range", format, cpu);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		set_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0, "out of memory");
		return NULL;
	}
	t->fd = -1;
	t->buf = buf;
	t->len = len;
	t->bare_format = format ? format : MERGE_GUESS;
	t->bare_cpu = (uint16_t)cpu;
	if (!open_common(t, err)->broken)
		return t;
	grtrace_close(t);
	return NULL;
}

GRTRACE_API grtrace_trace *grtrace_dup(const grtrace_trace *t,
				      struct grtrace_error *err)
{
	grtrace_trace *d;

	ENTER(err, NULL);
	if (!t) {
		no_handle(err);
		return NULL;
	}
	if (t->nchan) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"live channels are read once: no second reader");
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		set_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0, "out of memory");
		return NULL;
	}
	d->fd = -1;
	if (t->fd >= 0) {
		/* The input is read with pread(): the copy shares no offset. */
		d->fd = fcntl(t->fd, F_DUPFD_CLOEXEC, 0);
		if (d->fd < 0) {
			set_err(err, GRTRACE_ERR_IO, errno, 0, "dup: %s",
				strerror(errno));
			free(d);
			return NULL;
		}
	}
	d->buf = t->buf;
	d->len = t->len;
	d->bare_format = t->bare_format;
	d->bare_cpu = t->bare_cpu;
	if (!open_common(d, err)->broken)
		return d;
	grtrace_close(d);
	return NULL;
}

GRTRACE_API void grtrace_close(grtrace_trace *t)
{
	if (!t)
		return;
	/* After an allocation failure the state is half built: leak it. */
	if (!t->broken)
		stop(t);
	free(t->q);
	free(t->rows.buf);
	free(t->chan_fds);
	free(t->chan_names);
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

GRTRACE_API int grtrace_rewind(grtrace_trace *t, struct grtrace_error *err)
{
	struct gr_oom_guard g;

	ENTER(err, -1);
	if (!t) {
		no_handle(err);
		return -1;
	}
	GUARD(t, g, err, -1);
	stop(t);
	start(t);
	gr_oom_pop(&g);
	return 0;
}

GRTRACE_API unsigned int grtrace_stream_format(const grtrace_trace *t)
{
	if (!t)
		return 0;
	if (t->nchan)
		return t->chan_format;
	if (t->m.nfiles)
		return t->m.file.stream_format;
	return t->m.bare_v2 ? GRTRACE_FORMAT_V2 : GRTRACE_FORMAT_V1;
}

GRTRACE_API unsigned int grtrace_file_version(const grtrace_trace *t)
{
	if (!t)
		return 0;
	return t->m.nfiles ? t->m.file.version : 0;
}

/* *@dst (sized by its caller) of @rec: the fields that fit. */
static void fill_record(struct grtrace_record *dst, const struct gr_rec *rec,
			unsigned int part)
{
	struct grtrace_record o, *r = &o;
	struct gr_job job;

	memset(r, 0, sizeof(*r));
	r->offset = rec->offset;
	r->part = part;
	r->type = rec->type;
	r->rec_size = rec->size;
	r->cpu = rec->cpu;
	r->flags = rec->flags;
	r->ts = rec->ts;
	r->gseq = rec->gseq;
	r->cseq = rec->cseq;
	if (gr_decode_job(rec, &job))
		goto out;
	r->is_job = 1;
	r->ctx = job.ctx;
	r->seqno = job.seqno;
	r->ring = job.ring_id;
	r->engine = job.engine;
	r->aux0 = job.aux0;
	r->aux1 = job.aux1;
	r->has_task = (uint16_t)job.has_task;
	r->pid = job.pid;
	r->tid = job.tid;
	r->has_client = (uint32_t)job.has_client;
	r->client = job.client;
out:
	r->size = sizeof(*r);
	sized_copy(dst, r, sizeof(*r));
}

GRTRACE_API int grtrace_next_record(grtrace_trace *t,
				    struct grtrace_record *r,
				    struct grtrace_error *err)
{
	struct gr_oom_guard g;
	struct gr_rec rec;
	int n;

	ENTER(err, -1);
	if (!t || !r) {
		no_handle(err);
		return -1;
	}
	if (size_bad(r->size, GRTRACE_RECORD_SIZE_1, "grtrace_record", err))
		return -1;
	if (t->rp) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"the handle is reading jobs: rewind it first");
		return -1;
	}
	GUARD(t, g, err, -1);
	n = take(t, &rec);
	gr_oom_pop(&g);
	if (n == MERGE_NEW_PART)
		t->part++;
	t->have_last = n > 0;
	if (n > 0) {
		t->last = rec;
		fill_record(r, &rec, t->part);
		return 1;
	}
	if (t->m.failed) {
		merge_err(&t->m, err);
		return -1;
	}
	return 0;
}

/*
 * Up to @n records into @r, ending after a control record; the last one
 * into t->last.  Its own frame: nothing of it lives across the guard's
 * setjmp().
 */
static unsigned int next_batch(grtrace_trace *t, struct grtrace_record *r,
			       unsigned int n)
{
	/* The caller's records are r[0].size apart, each sized so. */
	uint32_t stride = r->size;
	struct grtrace_record *dst;
	struct gr_rec rec;
	unsigned int k = 0;
	int got;

	while (k < n) {
		got = take(t, &rec);
		if (got <= 0)
			break;
		if (got == MERGE_NEW_PART)
			t->part++;
		dst = (struct grtrace_record *)((uint8_t *)r + (size_t)k++ * stride);
		dst->size = stride;
		fill_record(dst, &rec, t->part);
		t->last = rec;
		/* The batch ends at a control record: grtrace_info_*() read it. */
		if (!gr_type_is_job(rec.type))
			break;
	}
	t->have_last = k > 0;
	return k;
}

GRTRACE_API int grtrace_next_records(grtrace_trace *t,
				     struct grtrace_record *r, unsigned int n,
				     struct grtrace_error *err)
{
	struct gr_oom_guard g;
	unsigned int k;

	ENTER(err, -1);
	if (!t || !r) {
		no_handle(err);
		return -1;
	}
	if (size_bad(r->size, GRTRACE_RECORD_SIZE_1, "grtrace_record", err))
		return -1;
	if (!n || n > INT_MAX) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"room for %u records: give 1 to %d", n, INT_MAX);
		return -1;
	}
	if (t->rp) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"the handle is reading jobs: rewind it first");
		return -1;
	}
	GUARD(t, g, err, -1);
	k = next_batch(t, r, n);
	gr_oom_pop(&g);
	if (k)
		return (int)k;
	if (t->m.failed) {
		merge_err(&t->m, err);
		return -1;
	}
	return 0;
}

/* ---- a channel's records checked before they are written ---------------------- */

struct grtrace_checker {
	unsigned int format;
	struct gr_v2_cpu v2;
	uint8_t v1[GR_V1_MAX];	/* a format 2 record, converted */
};

GRTRACE_API grtrace_checker *grtrace_checker_new(unsigned int format,
						 unsigned int cpu,
						 struct grtrace_error *err)
{
	grtrace_checker *c;

	ENTER(err, NULL);
	if (format < 1 || format > GRTRACE_FORMAT_V2 || cpu > UINT16_MAX) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"stream format %u or CPU %u out of range", format, cpu);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		set_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0, "out of memory");
		return NULL;
	}
	c->format = format;
	c->v2.cpu = (uint16_t)cpu;
	return c;
}

GRTRACE_API long grtrace_check_record(grtrace_checker *c, const void *p,
				      size_t avail, struct grtrace_record *r,
				      struct grtrace_error *err)
{
	char why[GR_WHY_LEN];
	struct gr_rec rec;
	size_t olen;
	long sz;

	ENTER(err, -1);
	if (!c || !p || !r) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"no checker, record or buffer (NULL)");
		return -1;
	}
	if (size_bad(r->size, GRTRACE_RECORD_SIZE_1, "grtrace_record", err))
		return -1;
	/* Format 2 is checked by converting it. */
	if (c->format >= GRTRACE_FORMAT_V2)
		sz = gr_v2_convert(&c->v2, p, avail, c->v1, &olen, why,
				   sizeof(why));
	else
		sz = gr_check_record(p, avail, why, sizeof(why));
	if (sz < 0) {
		set_err(err, GRTRACE_ERR_INPUT, 0, 0, "%s", why);
		return -1;
	}
	if (!sz) {
		/* Not an error yet: what is missing, for a channel that ends. */
		set_err(err, GRTRACE_OK, 0, 0, "%s", why);
		return 0;
	}
	gr_parse_hdr(c->format >= GRTRACE_FORMAT_V2 ? c->v1 : p, &rec);
	/*
	 * What a reader refuses in the frame of this channel's CPU: a record
	 * of another CPU, a STREAM_INFO that is not grtrace's.
	 */
	if (rec.cpu != c->v2.cpu) {
		set_err(err, GRTRACE_ERR_INPUT, 0, 0,
			"a record of CPU %u in the channel of CPU %u", rec.cpu,
			c->v2.cpu);
		return -1;
	}
	if (rec.type == GRTRACE_REC_STREAM_INFO &&
	    gr_le32(rec.data + offsetof(struct grtrace_stream_info, magic)) !=
	    GRTRACE_MAGIC) {
		set_err(err, GRTRACE_ERR_INPUT, 0, 0,
			"not a grtrace stream: STREAM_INFO has magic 0x%08" PRIx32,
			gr_le32(rec.data + offsetof(struct grtrace_stream_info, magic)));
		return -1;
	}
	rec.offset = 0;
	fill_record(r, &rec, 0);
	return sz;
}

GRTRACE_API void grtrace_checker_free(grtrace_checker *c)
{
	free(c);
}

/* ---- what a control record says ------------------------------------------------ */

/* The last record, or -1 and *@err; @size checked. */
static const struct gr_rec *info_rec(grtrace_trace *t, const uint32_t *size,
				     uint32_t min, const char *what,
				     struct grtrace_error *err)
{
	ENTER(err, NULL);
	if (!t || !size) {
		no_handle(err);
		return NULL;
	}
	/* The structs of 1.4 have no GRTRACE_1 size: say which they have. */
	if (size_bad_since(*size, min, what,
			   min == GRTRACE_INFO_SUMMARY_SIZE_1_4 ||
			   min == GRTRACE_INFO_METADATA_SIZE_1_4 ? "1.4" : "GRTRACE_1",
			   err))
		return NULL;
	if (!t->have_last) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"no record: call grtrace_next_record() first");
		return NULL;
	}
	return &t->last;
}

GRTRACE_API int grtrace_info_stream(grtrace_trace *t,
				    struct grtrace_info_stream *si,
				    struct grtrace_error *err)
{
	const struct gr_rec *rec = info_rec(t, si ? &si->size : NULL,
						GRTRACE_INFO_STREAM_SIZE_1,
						"grtrace_info_stream", err);
	struct grtrace_info_stream o = { 0 };
	struct gr_stream_info d;

	if (!rec)
		return -1;
	if (gr_decode_stream_info(rec, &d) < 0)
		return 0;
	o.magic = d.magic;
	o.version = d.version;
	o.hdr_size = d.hdr_size;
	o.clock_id = d.clock_id;
	o.nr_cpus = d.nr_cpus;
	o.features = d.features;
	o.session_id = d.session_id;
	sized_copy(si, &o, sizeof(o));
	return 1;
}

GRTRACE_API int grtrace_info_ring(grtrace_trace *t, unsigned int i,
				  struct grtrace_info_ring *ri,
				  struct grtrace_error *err)
{
	const struct gr_rec *rec = info_rec(t, ri ? &ri->size : NULL,
						GRTRACE_INFO_RING_SIZE_1,
						"grtrace_info_ring", err);
	struct grtrace_info_ring o = { 0 };
	struct gr_metadata md;
	struct gr_ring d;

	if (!rec)
		return -1;
	if (gr_decode_metadata(rec, &md) == 0) {
		if (i >= md.nr_rings ||
		    gr_decode_metadata_ring(rec, &md, i, &d) < 0)
			return 0;
		o.nr_rings = md.nr_rings;
	} else if (gr_decode_ring(rec, &d) == 0 && i == 0) {
		o.nr_rings = 1;
	} else {
		return 0;
	}
	o.ring_id = d.ring_id;
	o.engine = d.engine;
	o.instance = d.instance;
	snprintf(o.driver, sizeof(o.driver), "%s", d.driver);
	snprintf(o.device, sizeof(o.device), "%s", d.device);
	snprintf(o.name, sizeof(o.name), "%s", d.name);
	sized_copy(ri, &o, sizeof(o));
	return 1;
}

GRTRACE_API int grtrace_info_trigger(grtrace_trace *t,
				     struct grtrace_info_trigger *ti,
				     struct grtrace_error *err)
{
	const struct gr_rec *rec = info_rec(t, ti ? &ti->size : NULL,
						GRTRACE_INFO_TRIGGER_SIZE_1,
						"grtrace_info_trigger", err);
	struct grtrace_info_trigger o = { 0 };
	struct gr_trigger d;

	if (!rec)
		return -1;
	if (gr_decode_trigger(rec, &d) < 0)
		return 0;
	o.cause = d.cause;
	o.ring_id = d.ring_id;
	o.cpu = d.cpu;
	o.ctx = d.ctx;
	o.seqno = d.seqno;
	o.error = d.error;
	o.frozen_ts = d.frozen_ts;
	o.later_triggers = d.later_triggers;
	sized_copy(ti, &o, sizeof(o));
	return 1;
}

GRTRACE_API int grtrace_info_loss(grtrace_trace *t,
				  struct grtrace_info_loss *li,
				  struct grtrace_error *err)
{
	const struct gr_rec *rec = info_rec(t, li ? &li->size : NULL,
						GRTRACE_INFO_LOSS_SIZE_1,
						"grtrace_info_loss", err);
	struct grtrace_info_loss o = { 0 };
	struct gr_recorder d;

	if (!rec)
		return -1;
	if (gr_decode_recorder(rec, &d) < 0)
		return 0;
	o.cpu = d.cpu;
	o.first_ts = d.first_ts;
	o.last_ts = d.last_ts;
	o.emitted = d.emitted;
	o.kept = d.kept;
	o.overwritten = d.overwritten;
	o.dropped = d.dropped;
	o.buffer_size = d.buffer_size;
	sized_copy(li, &o, sizeof(o));
	return 1;
}

GRTRACE_API int grtrace_info_metadata(grtrace_trace *t,
				      struct grtrace_info_metadata *mi,
				      struct grtrace_error *err)
{
	const struct gr_rec *rec = info_rec(t, mi ? &mi->size : NULL,
					    GRTRACE_INFO_METADATA_SIZE_1_4,
					    "grtrace_info_metadata", err);
	struct grtrace_info_metadata o = { 0 };
	struct gr_metadata d;

	if (!rec)
		return -1;
	if (gr_decode_metadata(rec, &d) < 0)
		return 0;
	o.nr_rings = d.nr_rings;
	o.ring_size = d.ring_size;
	snprintf(o.kernel, sizeof(o.kernel), "%s", d.kernel);
	sized_copy(mi, &o, sizeof(o));
	return 1;
}

GRTRACE_API int grtrace_info_summary(grtrace_trace *t,
				     struct grtrace_info_summary *si,
				     struct grtrace_error *err)
{
	const struct gr_rec *rec = info_rec(t, si ? &si->size : NULL,
					    GRTRACE_INFO_SUMMARY_SIZE_1_4,
					    "grtrace_info_summary", err);
	struct grtrace_info_summary o = { 0 };
	struct gr_summary d;

	if (!rec)
		return -1;
	if (gr_decode_summary(rec, &d) < 0)
		return 0;
	o.ring_id = d.ring_id;
	o.engine = d.engine;
	o.events = d.events;
	o.derived = d.derived;
	o.reason = d.reason;
	o.ctx = d.ctx;
	o.seqno = d.seqno;
	o.pid = d.pid;
	o.tid = d.tid;
	o.waits = d.waits;
	memcpy(o.ts, d.ts, sizeof(o.ts));
	o.wait_ns = d.wait_ns;
	o.threshold = d.threshold;
	sized_copy(si, &o, sizeof(o));
	return 1;
}

GRTRACE_API const void *grtrace_record_bytes(grtrace_trace *t, size_t *len)
{
	if (len)
		*len = 0;
	if (!t || !t->have_last)
		return NULL;
	if (len)
		*len = t->last.size;
	return t->last.data;
}

GRTRACE_API int grtrace_info_file(const grtrace_trace *t,
				  struct grtrace_info_file *fi,
				  struct grtrace_error *err)
{
	struct grtrace_info_file o = { 0 };
	const struct grf_header *h;

	ENTER(err, -1);
	if (!t || !fi) {
		no_handle(err);
		return -1;
	}
	if (size_bad_since(fi->size, GRTRACE_INFO_FILE_SIZE_1_4,
			   "grtrace_info_file", "1.4", err))
		return -1;
	if (!t->merging || !t->m.nfiles)
		return 0;
	h = &t->m.file;
	o.version = h->version;
	o.flags = h->flags & GRF_FLAG_ZSTD ? GRTRACE_FILE_ZSTD : 0;
	o.stream_format = h->stream_format;
	o.nr_cpus = h->nr_cpus;
	snprintf(o.kernel, sizeof(o.kernel), "%s", h->kernel);
	snprintf(o.host, sizeof(o.host), "%s", h->host);
	snprintf(o.clock, sizeof(o.clock), "%s", h->clock);
	o.session = h->session;
	o.started = h->started;
	sized_copy(fi, &o, sizeof(o));
	return 1;
}

GRTRACE_API unsigned int grtrace_stream_format_of(const void *buf, size_t len)
{
	return buf ? (unsigned int)gr_stream_info_format(buf, len) : 0;
}

GRTRACE_API const char *grtrace_clock_name(unsigned int clock, char *buf,
					   size_t len)
{
	return gr_clock_name(clock, buf, len);
}

GRTRACE_API const char *grtrace_trigger_cause_name(unsigned int cause,
						   char *buf, size_t len)
{
	return gr_trigger_cause_name(cause, buf, len);
}

GRTRACE_API int grtrace_loss_balanced(const struct grtrace_info_loss *li)
{
	struct gr_recorder rc;

	if (!li || li->size < GRTRACE_INFO_LOSS_SIZE_1)
		return 0;
	memset(&rc, 0, sizeof(rc));
	rc.emitted = li->emitted;
	rc.kept = li->kept;
	rc.overwritten = li->overwritten;
	rc.dropped = li->dropped;
	return gr_recorder_balanced(&rc);
}

GRTRACE_API const char *grtrace_type_name(unsigned int type, char *buf,
					  size_t len)
{
	return gr_type_name((uint16_t)type, buf, len);
}

GRTRACE_API const char *grtrace_engine_name(unsigned int engine, char *buf,
					    size_t len)
{
	return gr_engine_name((uint16_t)engine, buf, len);
}

GRTRACE_API const char *grtrace_metric_name(unsigned int m)
{
	return m < NR_METRICS ? rp_metric_names[m] : NULL;
}

GRTRACE_API const char *grtrace_label_name(unsigned int l)
{
	return l < NR_LABELS ? rp_label_names[l] : NULL;
}

/* ---- rows: the records as text ------------------------------------------------ */

#define ROWS_BATCH	(256u << 10)	/* bytes of rows handed out at once */

enum { ROWS_START, ROWS_RECORDS, ROWS_ERROR, ROWS_END };

/* The trace file's tables, after the records: the last part's rows. */
static void rows_tables(grtrace_trace *t)
{
	size_t i;

	for (i = 0; i < t->m.ntasks; i++)
		gr_rows_task(&t->rows, &t->m.tasks[i], t->part);
	for (i = 0; i < t->m.nclients; i++)
		gr_rows_client(&t->rows, &t->m.clients[i], t->part);
}

static void rows_fill(grtrace_trace *t)
{
	struct gr_rec rec;
	int n;

	if (t->rows_state == ROWS_START) {
		gr_rows_header(&t->rows);
		t->rows_state = ROWS_RECORDS;
	}
	while (t->rows_state == ROWS_RECORDS && t->rows.len < ROWS_BATCH) {
		n = take(t, &rec);
		if (n == MERGE_NEW_PART)
			t->part++;
		if (n > 0) {
			gr_rows_record(&t->rows, &rec, t->part);
		} else if (t->m.failed) {
			merge_err(&t->m, &t->rows_err);
			t->rows_state = ROWS_ERROR;
		} else {
			rows_tables(t);
			t->rows_state = ROWS_END;
		}
	}
}

GRTRACE_API const char *grtrace_next_rows(grtrace_trace *t, unsigned int form,
					  size_t *len,
					  struct grtrace_error *err)
{
	struct gr_oom_guard g;

	ENTER(err, NULL);
	if (len)
		*len = 0;
	if (!t || !len) {
		no_handle(err);
		return NULL;
	}
	if (t->rp || form > GRTRACE_ROWS_JSON) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0, t->rp ?
			"the handle is reading jobs: rewind it first" :
			"unknown form of rows %u", form);
		return NULL;
	}
	GUARD(t, g, err, NULL);
	t->have_last = 0;
	if (t->rows_state == ROWS_START)
		t->rows.json = form == GRTRACE_ROWS_JSON;
	t->rows.len = 0;
	rows_fill(t);
	gr_oom_pop(&g);
	if (t->rows.len) {
		*len = t->rows.len;
		return t->rows.buf;
	}
	if (t->rows_state == ROWS_ERROR) {
		if (err)
			copy_err(err, &t->rows_err);
		t->rows_state = ROWS_END;	/* said once */
	}
	return NULL;
}

/* ---- jobs: a sink of the engine that queues them ---------------------------- */

static void job_from_row(const struct rp *rp, struct grtrace_job *j,
			 const struct row *row)
{
	unsigned int i;

	memset(j, 0, sizeof(*j));
	j->ctx = row->ctx;
	j->seqno = row->seqno;
	j->ring_id = rp->rings[row->ring].ring_id;
	j->engine = row->engine;
	j->have_ts = row->have;
	j->start_derived = row->start_derived;
	for (i = 0; i < NR_STAMPS; i++)
		j->ts[i] = row->ts[i];
	j->have_metric = row->mhave;
	j->labels = row->labels;
	for (i = 0; i < NR_METRICS; i++)
		j->metric[i] = row->m[i];
	j->preempts = row->preempts;
	j->errors = row->errors;
	j->error = row->error;
	j->qsize = row->qsize;
	j->has_task = row->has_task;
	j->pid = row->pid;
	j->tid = row->tid;
	j->has_client = row->has_client;
	j->client = row->client;
}

static void jobs_row(struct rp *rp, const struct row *row)
{
	grtrace_trace *t = rp->sink_state;

	if (t->qhead + t->qlen == t->qcap) {
		if (t->qhead) {
			memmove(t->q, t->q + t->qhead, t->qlen * sizeof(*t->q));
			t->qhead = 0;
		} else {
			t->qcap = t->qcap ? t->qcap * 2 : JOBQ;
			t->q = xrealloc(t->q, t->qcap * sizeof(*t->q));
		}
	}
	job_from_row(rp, &t->q[t->qhead + t->qlen++], row);
}

static int jobs_end(struct rp *rp, const struct rp_input *in)
{
	(void)rp;
	(void)in;
	return 0;
}

/* Not in the table of sinks.c: no --format writes it, the API reads it. */
static const struct rp_sink jobs_sink = {
	.name = "jobs",
	.summary = "the jobs, to grtrace_next_job()",
	.row = jobs_row,
	.end = jobs_end,
};

static int jobs_start(grtrace_trace *t, struct grtrace_error *err)
{
	struct rp_opts o;
	char why[GR_ERRMSG_LEN];
	memset(&o, 0, sizeof(o));
	rp_default_rules(&o.rules);
	o.sink = &jobs_sink;
	o.max_open = 1u << 17;
	o.interval = 100000000;
	t->rp = rp_new(&o, NULL, why, sizeof(why));
	if (!t->rp) {
		set_err(err, GRTRACE_ERR_INVAL, 0, 0, "%s", why);
		return -1;
	}
	t->rp->sink_state = t;
	rp_set_tasks(t->rp, t->m.tasks, t->m.ntasks, t->m.task_frames);
	rp_set_clients(t->rp, t->m.clients, t->m.nclients, t->m.client_frames,
		       t->m.nfiles ? "the trace file" : "a bare stream");
	rp_set_tails(t->rp, t->m.tails, t->m.ntails);
	rp_set_heads(t->rp, t->m.heads, t->m.nheads);
	rp_set_format(t->rp, grtrace_stream_format(t));
	return 0;
}

/* Feed records until a job is queued or the input ends. */
static void jobs_fill(grtrace_trace *t)
{
	struct grtrace_error *err = &t->pending;
	struct rp_input in = { .name = "input" };
	struct gr_rec rec;
	int n;

	while (!t->qlen && !t->input_done) {
		n = take(t, &rec);
		if (n == MERGE_NEW_PART)
			rp_restart(t->rp);
		if (n > 0 && rp_record(t->rp, &rec) == 0)
			continue;
		if (n > 0) {
			set_err(err, GRTRACE_ERR_INPUT, 0, rec.offset, "%s",
				rp_errmsg(t->rp));
			t->input_done = -1;
		} else {
			t->input_done = t->m.failed ? -1 : 1;
			if (t->m.failed)
				merge_err(&t->m, err);
		}
		/* No output: the rows of the jobs still open are queued. */
		rp_finish(t->rp, &in);
	}
}

GRTRACE_API int grtrace_next_job(grtrace_trace *t, struct grtrace_job *j,
				 struct grtrace_error *err)
{
	struct gr_oom_guard g;

	ENTER(err, -1);
	if (!t || !j) {
		no_handle(err);
		return -1;
	}
	if (size_bad(j->size, GRTRACE_JOB_SIZE_1, "grtrace_job", err))
		return -1;
	GUARD(t, g, err, -1);
	t->have_last = 0;
	if (!t->rp && jobs_start(t, err) < 0) {
		gr_oom_pop(&g);
		return -1;
	}
	jobs_fill(t);
	gr_oom_pop(&g);
	if (t->qlen) {
		t->q[t->qhead].size = sizeof(*j);
		sized_copy(j, &t->q[t->qhead++], sizeof(*j));
		if (!--t->qlen)
			t->qhead = 0;
		return 1;
	}
	if (t->input_done < 0) {
		if (err)
			copy_err(err, &t->pending);
		/* Said once: the next call says the end. */
		t->input_done = 1;
		return -1;
	}
	return 0;
}

/* ---- a report ----------------------------------------------------------------- */

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* The options of grtrace_report(): a subset of report's command line. */
static int report_opt(struct grtrace_report_opts *o, const char *a)
{
	const char *v = strchr(a, '=');
	size_t n = v ? (size_t)(v - a) : strlen(a);
	uint64_t u;

	if (v)
		v++;
	if (!v && n == 10 && !strncmp(a, "--per-ring", n))
		o->flags |= GRTRACE_REPORT_PER_RING;
	else if (!v && n == 9 && !strncmp(a, "--per-ctx", n))
		o->flags |= GRTRACE_REPORT_PER_CTX;
	else if (!v && n == 13 && !strncmp(a, "--per-process", n))
		o->flags |= GRTRACE_REPORT_PER_PROCESS;
	else if (!v && n == 12 && !strncmp(a, "--per-engine", n))
		o->flags |= GRTRACE_REPORT_PER_ENGINE;
	else if (n == 6 && !strncmp(a, "--topn", n) && !parse_u64(v, &u) &&
		 u <= 1000000)
		o->topn = (uint32_t)u;
	else if (n == 7 && !strncmp(a, "--limit", n) && !parse_u64(v, &u)) {
		o->limit = u;
		o->flags |= GRTRACE_REPORT_LIMIT;
	} else if (n == 6 && !strncmp(a, "--hist", n) && v && !strcmp(v, "lat"))
		o->hist = GRTRACE_HIST_LAT;
	else if (n == 6 && !strncmp(a, "--hist", n) && v && !strcmp(v, "size"))
		o->hist = GRTRACE_HIST_SIZE;
	else if (n == 6 && !strncmp(a, "--hist", n) && v && !strcmp(v, "result"))
		o->hist = GRTRACE_HIST_RESULT;
	else
		return -1;
	return 0;
}

/* The rules' keys, by GRTRACE_RULE_*: those of a --rules file. */
static const char *const rule_key[GRTRACE_NR_RULES] = {
	[GRTRACE_RULE_LONG_QUEUE_US] = "long_queue_us",
	[GRTRACE_RULE_SLOW_EXEC_US] = "slow_exec_us",
	[GRTRACE_RULE_DEP_WAIT_US] = "dep_wait_us",
	[GRTRACE_RULE_PREEMPT_MIN] = "preempt_min",
	[GRTRACE_RULE_BUSY_PCT] = "busy_pct",
	[GRTRACE_RULE_QUEUE_RATIO] = "queue_ratio",
	[GRTRACE_RULE_HANG_MS] = "hang_ms",
};

/* Rule @i of @o as the engine's text: one parser checks them all. */
static void rule_text(const struct grtrace_report_opts *o, unsigned int i,
		      char *buf, size_t len)
{
	switch (i) {
	case GRTRACE_RULE_LONG_QUEUE_US:
		snprintf(buf, len, "%" PRIu64, o->long_queue_us);
		break;
	case GRTRACE_RULE_SLOW_EXEC_US:
		snprintf(buf, len, "%" PRIu64, o->slow_exec_us);
		break;
	case GRTRACE_RULE_DEP_WAIT_US:
		snprintf(buf, len, "%" PRIu64, o->dep_wait_us);
		break;
	case GRTRACE_RULE_PREEMPT_MIN:
		snprintf(buf, len, "%" PRIu64, o->preempt_min);
		break;
	case GRTRACE_RULE_BUSY_PCT:
		snprintf(buf, len, "%.17g", o->busy_pct);
		break;
	case GRTRACE_RULE_QUEUE_RATIO:
		snprintf(buf, len, "%.17g", o->queue_ratio);
		break;
	default:
		snprintf(buf, len, "%" PRIu64, o->hang_ms);
		break;
	}
}

GRTRACE_API int grtrace_report_rule(struct grtrace_report_opts *o,
				    const char *key, const char *value,
				    struct grtrace_error *err)
{
	struct rp_rules rules;
	unsigned int i;

	ENTER(err, -1);
	if (!o) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0, "no options (NULL)");
		return -1;
	}
	if (size_bad_since(o->size, GRTRACE_REPORT_OPTS_SIZE_1_4,
			   "grtrace_report_opts", "1.4", err))
		return -1;
	for (i = 0; key && i < GRTRACE_NR_RULES; i++)
		if (!strcmp(key, rule_key[i]))
			break;
	rp_default_rules(&rules);
	if (!key || !value || i == GRTRACE_NR_RULES ||
	    rp_set_rule(&rules, key, value) < 0) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"unknown rule or invalid value: '%s=%s'",
			key ? key : "(null)", value ? value : "(null)");
		return -1;
	}
	switch (i) {
	case GRTRACE_RULE_LONG_QUEUE_US:
		o->long_queue_us = rules.long_queue_us;
		break;
	case GRTRACE_RULE_SLOW_EXEC_US:
		o->slow_exec_us = rules.slow_exec_us;
		break;
	case GRTRACE_RULE_DEP_WAIT_US:
		o->dep_wait_us = rules.dep_wait_us;
		break;
	case GRTRACE_RULE_PREEMPT_MIN:
		o->preempt_min = rules.preempt_min;
		break;
	case GRTRACE_RULE_BUSY_PCT:
		o->busy_pct = rules.busy_pct;
		break;
	case GRTRACE_RULE_QUEUE_RATIO:
		o->queue_ratio = rules.queue_ratio;
		break;
	default:
		o->hang_ms = rules.hang_ms;
		break;
	}
	o->rules_set |= 1u << i;
	return 0;
}

/* The caller's rules over the defaults, each checked as a rules file's. */
static int rules_in(struct rp_rules *rules, const struct grtrace_report_opts *r,
		    struct grtrace_error *err)
{
	char val[64];
	unsigned int i;

	if (r->rules_set & ~((1u << GRTRACE_NR_RULES) - 1)) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"bad report options (rules_set 0x%x)", r->rules_set);
		return -1;
	}
	for (i = 0; i < GRTRACE_NR_RULES; i++) {
		if (!(r->rules_set & (1u << i)))
			continue;
		rule_text(r, i, val, sizeof(val));
		if (rp_set_rule(rules, rule_key[i], val) < 0) {
			set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
				"bad report options (%s %s)", rule_key[i], val);
			return -1;
		}
	}
	return 0;
}

/* 1.4's selection and limits; 0, or -1 and *@err. */
static int report_opts_1_4(struct rp_opts *o, const struct grtrace_report_opts *r,
			   struct grtrace_error *err)
{
	const char *bad = NULL;

	if ((r->flags & GRTRACE_REPORT_INTERVAL) && r->interval < 1000)
		bad = "interval below 1 us";
	else if ((r->flags & GRTRACE_REPORT_MAX_OPEN) &&
		 (!r->max_open || r->max_open > UINT32_MAX / 2))
		bad = "max_open out of 1 .. 2^31 - 1";
	else if ((r->flags & GRTRACE_REPORT_SINCE) &&
		 (r->flags & GRTRACE_REPORT_UNTIL) && r->until <= r->since)
		bad = "until not after since";
	else if ((r->flags & GRTRACE_REPORT_CRITICAL) &&
		 (r->flags & GRTRACE_REPORT_CRITICAL_SLOWEST))
		bad = "two critical paths asked";
	if (bad) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"bad report options (%s)", bad);
		return -1;
	}
	if (rules_in(&o->rules, r, err) < 0)
		return -1;
	o->why = !!(r->flags & (GRTRACE_REPORT_WHY | GRTRACE_REPORT_CRITICAL |
				GRTRACE_REPORT_CRITICAL_SLOWEST));
	o->critical = r->flags & GRTRACE_REPORT_CRITICAL ? 1 :
		      r->flags & GRTRACE_REPORT_CRITICAL_SLOWEST ? 2 : 0;
	o->cp_ctx = r->cp_ctx;
	o->cp_seqno = r->cp_seqno;
	o->has_since = !!(r->flags & GRTRACE_REPORT_SINCE);
	o->since = r->since;
	o->has_until = !!(r->flags & GRTRACE_REPORT_UNTIL);
	o->until = r->until;
	o->has_ring = !!(r->flags & GRTRACE_REPORT_RING);
	o->ring = r->ring;
	o->has_ctx = !!(r->flags & GRTRACE_REPORT_CTX);
	o->ctx = r->ctx;
	o->has_engine = !!(r->flags & GRTRACE_REPORT_ENGINE);
	o->engines = r->engines;
	if (r->flags & GRTRACE_REPORT_INTERVAL) {
		o->has_interval = 1;
		o->interval = r->interval;
	}
	if (r->flags & GRTRACE_REPORT_MAX_OPEN)
		o->max_open = r->max_open;
	o->warn = r->warn;
	o->warn_arg = r->warn_arg;
	return 0;
}

/*
 * The caller's options (as many bytes as its @size says) over the
 * defaults, into @o and @r (a whole struct of this version).
 */
static int report_opts_in(struct rp_opts *o, struct grtrace_report_opts *r,
			  const struct grtrace_report_opts *in,
			  struct grtrace_error *err)
{
	memset(r, 0, sizeof(*r));
	if (in) {
		if (size_bad(in->size, GRTRACE_REPORT_OPTS_SIZE_1,
			     "grtrace_report_opts", err))
			return -1;
		memcpy(r, in, in->size < sizeof(*r) ? in->size : sizeof(*r));
	}
	if (r->flags & ~(GRTRACE_REPORT_THREAD * 2 - 1) ||
	    r->hist > GRTRACE_HIST_RESULT || r->topn > 1000000) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"bad report options (flags 0x%x, hist %u, topn %u)",
			r->flags, r->hist, r->topn);
		return -1;
	}
	o->per_ring |= !!(r->flags & GRTRACE_REPORT_PER_RING);
	o->per_ctx = !!(r->flags & GRTRACE_REPORT_PER_CTX);
	o->per_process = !!(r->flags & GRTRACE_REPORT_PER_PROCESS);
	o->per_engine = !!(r->flags & GRTRACE_REPORT_PER_ENGINE);
	o->topn = r->topn;
	if (r->flags & GRTRACE_REPORT_LIMIT)
		o->limit = r->limit;
	o->hist = r->hist == GRTRACE_HIST_LAT ? RP_HIST_LAT :
		  r->hist == GRTRACE_HIST_SIZE ? RP_HIST_SIZE :
		  r->hist == GRTRACE_HIST_RESULT ? RP_HIST_RESULT : RP_HIST_NONE;
	if (report_opts_1_4(o, r, err) < 0)
		return -1;
	if ((r->flags & GRTRACE_REPORT_INTERVAL) && !o->per_ring) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"bad report options (an interval is per ring: it needs GRTRACE_REPORT_PER_RING)");
		return -1;
	}
	return 0;
}

/* Why the input names no DRM client, when its jobs carry client ids. */
static const char *clients_none(grtrace_trace *t)
{
	if (t->nchan)
		return "the module's buffers";
	if (!t->m.nfiles)
		return "a bare stream";
	if (t->m.file.version < 3) {
		snprintf(t->none, sizeof(t->none),
			 "a trace file of version %u, from before the client table",
			 t->m.file.version);
		return t->none;
	}
	return "record found none of them open";
}

/* The next record, from the merge's thread (@p) or from the merge. */
static int report_next(grtrace_trace *t, struct merge_pipe *p,
		       struct gr_rec *rec)
{
	return p ? merge_pipe_next(p, rec) : take(t, rec);
}

static int report_run(grtrace_trace *t, const struct rp_opts *o,
		      const struct grtrace_report_opts *r, FILE *out,
		      struct grtrace_error *err)
{
	struct rp_input in = { .name = r->name ? r->name : "input" };
	char why[GR_ERRMSG_LEN];
	struct merge_pipe *pipe;
	struct gr_rec rec;
	struct rp *rp;
	int n, ret = 0;

	rp = rp_new(o, out, why, sizeof(why));
	if (!rp) {
		set_err(err, GRTRACE_ERR_IO, errno, 0, "%s", why);
		return -1;
	}
	if (t->rp)
		rp_free(t->rp);
	t->rp = rp;	/* freed by stop() if the guard fires */
	in.stats = t->have_stats ? &t->stats : NULL;
	rp_set_tasks(rp, t->m.tasks, t->m.ntasks, t->m.task_frames);
	rp_set_clients(rp, t->m.clients, t->m.nclients, t->m.client_frames,
		       clients_none(t));
	rp_set_tails(rp, t->m.tails, t->m.ntails);
	rp_set_heads(rp, t->m.heads, t->m.nheads);
	rp_set_format(rp, grtrace_stream_format(t));
	/* A file's merge may run beside the analysis. */
	t->fresh = 0;
	pipe = (r->flags & GRTRACE_REPORT_THREAD) && !t->nchan ?
	       merge_pipe_start(&t->m) : NULL;
	/* Stopped by the guard, if an allocation fails on this thread. */
	t->pipe = pipe;
	while ((n = report_next(t, pipe, &rec)) > 0) {
		if (n == MERGE_NEW_PART)
			rp_restart(rp);
		if (rp_record(rp, &rec) < 0) {
			in.error = rp_errmsg(rp);
			set_err(err, GRTRACE_ERR_INPUT, 0, rec.offset, "%s",
				in.error);
			ret = -1;
			break;
		}
	}
	if (pipe && merge_pipe_oom(pipe))
		gr_oom(0);	/* the guard stops the pipe */
	stop_pipe(t);
	if (!in.error && t->m.failed) {
		in.error = t->m.errmsg;
		merge_err(&t->m, err);
		ret = -1;
	}
	if (rp_finish(rp, &in) < 0 && !ret) {
		if (*rp_errmsg(rp))
			set_err(err, GRTRACE_ERR_OUTPUT, 0, 0, "%s",
				rp_errmsg(rp));
		else
			set_err(err, GRTRACE_ERR_OUTPUT, EIO, 0,
				"cannot write the report");
		ret = -1;
	}
	return ret;
}

GRTRACE_API int grtrace_report(grtrace_trace *t, const char *format,
			       const char *const *args, FILE *out,
			       struct grtrace_error *err)
{
	struct grtrace_report_opts ro = { .size = sizeof(ro) };

	ENTER(err, -1);
	for (; args && *args; args++) {
		if (report_opt(&ro, *args) < 0) {
			set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
				"unknown or bad option '%s' (--per-ring, --per-ctx, --per-process, --per-engine, --topn=N, --hist=lat|size|result, --limit=N)",
				*args);
			return -1;
		}
	}
	return grtrace_report_with(t, format, &ro, out, err);
}

GRTRACE_API int grtrace_report_with(grtrace_trace *t, const char *format,
				    const struct grtrace_report_opts *ro,
				    FILE *out, struct grtrace_error *err)
{
	struct grtrace_report_opts r;
	struct gr_oom_guard g;
	struct rp_opts o;
	int ret;

	ENTER(err, -1);
	if (!t || !out) {
		no_handle(err);
		return -1;
	}
	memset(&o, 0, sizeof(o));
	rp_default_rules(&o.rules);
	o.sink = rp_sink_find(format ? format : "text");
	o.limit = UINT64_MAX;
	o.max_open = 1u << 17;
	o.interval = 100000000;
	if (!o.sink) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"unknown format '%s'", format);
		return -1;
	}
	if (o.sink->flags & RP_SINK_EXPORT)
		o.per_ring = 1;
	if (report_opts_in(&o, &r, ro, err) < 0)
		return -1;
	if ((o.sink->flags & RP_SINK_ONE_TABLE) &&
	    (o.per_ring + o.per_ctx + o.per_process + o.per_engine + !!o.topn +
	     (o.hist != RP_HIST_NONE) > 1 || o.critical)) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"%s holds one table: give one summary, and no critical path",
			o.sink->name);
		return -1;
	}
	GUARD(t, g, err, -1);
	/* Live channels are read once: from where they are. */
	if (!t->nchan)
		restart(t);
	ret = report_run(t, &o, &r, out, err);
	spend(t);
	gr_oom_pop(&g);
	return ret;
}

GRTRACE_API int grtrace_format_one_table(const char *name)
{
	const struct rp_sink *s = name ? rp_sink_find(name) : NULL;

	if (!s)
		return -1;
	return !!(s->flags & RP_SINK_ONE_TABLE);
}

/* Only the formats report offers: the table's, less export's. */
static const struct rp_sink *report_format(unsigned int i)
{
	const struct rp_sink *const *s;

	for (s = rp_sinks; *s; s++)
		if (!((*s)->flags & RP_SINK_EXPORT) && !i--)
			return *s;
	return NULL;
}

GRTRACE_API const char *grtrace_format_name(unsigned int i)
{
	const struct rp_sink *s = report_format(i);

	return s ? s->name : NULL;
}

GRTRACE_API const char *grtrace_format_summary(unsigned int i)
{
	const struct rp_sink *s = report_format(i);

	return s ? s->summary : NULL;
}

GRTRACE_API const char *grtrace_output_format(unsigned int i,
					      const char **summary,
					      int *export_only)
{
	const struct rp_sink *const *s;

	for (s = rp_sinks; *s && i; s++, i--)
		;
	if (summary)
		*summary = *s ? (*s)->summary : NULL;
	if (export_only)
		*export_only = *s && ((*s)->flags & RP_SINK_EXPORT);
	return *s ? (*s)->name : NULL;
}

GRTRACE_API void grtrace_file_versions(unsigned int *oldest,
				       unsigned int *newest)
{
	if (oldest)
		*oldest = GRF_VERSION_MIN;
	if (newest)
		*newest = GRF_VERSION;
}

/* ---- a diff of two inputs --------------------------------------------------------- */

/* Feed all of @t to a new engine with @o whose sink state is @state. */
static int diff_side(grtrace_trace *t, const struct rp_opts *o, void *state,
		     const char *name, struct grtrace_error *err)
{
	struct rp_input in = { .name = name };
	char why[GR_ERRMSG_LEN];
	struct gr_rec rec;
	int n, ret = 0;

	restart(t);
	t->rp = rp_new(o, NULL, why, sizeof(why));
	if (!t->rp) {
		set_err(err, GRTRACE_ERR_INVAL, 0, 0, "%s", why);
		return -1;
	}
	t->rp->sink_state = state;
	rp_set_tasks(t->rp, t->m.tasks, t->m.ntasks, t->m.task_frames);
	rp_set_clients(t->rp, t->m.clients, t->m.nclients, t->m.client_frames,
		       t->m.nfiles ? "the trace file" : "a bare stream");
	rp_set_tails(t->rp, t->m.tails, t->m.ntails);
	rp_set_heads(t->rp, t->m.heads, t->m.nheads);
	rp_set_format(t->rp, grtrace_stream_format(t));
	while ((n = take(t, &rec)) > 0) {
		if (n == MERGE_NEW_PART)
			rp_restart(t->rp);
		if (rp_record(t->rp, &rec) < 0) {
			in.error = rp_errmsg(t->rp);
			set_err(err, GRTRACE_ERR_INPUT, 0, rec.offset, "%s: %s",
				name, in.error);
			ret = -1;
			break;
		}
	}
	if (!in.error && t->m.failed) {
		in.error = t->m.errmsg;
		merge_err(&t->m, err);
		snprintf(err->msg, sizeof(err->msg), "%s: %s", name,
			 t->m.errmsg);
		ret = -1;
	}
	rp_finish(t->rp, &in);
	spend(t);
	return ret;
}

GRTRACE_API int grtrace_diff(grtrace_trace *a, grtrace_trace *b,
			     const char *format, const char *const *args,
			     FILE *out, struct grtrace_error *err)
{
	struct grtrace_error side_err[2];
	struct gr_oom_guard g;
	struct diff_opts o;
	struct diff *d = NULL;
	struct rp_opts ro;
	int i, ret = 0;

	ENTER(err, -1);
	if (!a || !b) {
		no_handle(err);
		return -1;
	}
	if (!out) {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0, "no output stream");
		return -1;
	}
	diff_opts_init(&o);
	if (!format || !strcmp(format, "text"))
		o.form = DIFF_TEXT;
	else if (!strcmp(format, "json"))
		o.form = DIFF_JSON;
	else if (!strcmp(format, "csv"))
		o.form = DIFF_CSV;
	else {
		set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
			"unknown format '%s' (text, json, csv)", format);
		return -1;
	}
	for (; args && *args; args++) {
		if (diff_opt(&o, *args) < 0) {
			set_err(err, GRTRACE_ERR_INVAL, EINVAL, 0,
				"unknown or bad option '%s' (--alpha=P with 0 < P < 1, --min-change=PCT, --name-a=NAME, --name-b=NAME)",
				*args);
			return -1;
		}
	}
	if (a->broken || b->broken) {
		set_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0,
			"out of memory earlier: close the handle");
		return -1;
	}
	if (setjmp(g.env)) {
		a->broken = b->broken = 1;
		set_err(err, GRTRACE_ERR_NOMEM, ENOMEM, 0, "out of memory");
		return -1;
	}
	gr_oom_push(&g);
	d = diff_new(&o);
	for (i = 0; i < 2; i++) {
		init_err(&side_err[i]);
		diff_side_opts(d, i, &ro);
		if (diff_side(i ? b : a, &ro, diff_side_state(d, i), o.name[i],
			      &side_err[i]) < 0 &&
		    side_err[i].status != GRTRACE_ERR_INPUT) {
			if (err)
				copy_err(err, &side_err[i]);
			diff_free(d);
			gr_oom_pop(&g);
			return -1;
		}
	}
	if (diff_finish(d, out) < 0) {
		set_err(err, GRTRACE_ERR_OUTPUT, errno, 0,
			"cannot write the diff");
		ret = -1;
	} else if (side_err[0].status || side_err[1].status) {
		/* Written, with the damage named: the first is the error. */
		if (err)
			copy_err(err, &side_err[side_err[0].status ? 0 : 1]);
		ret = -1;
	} else {
		ret = diff_regressions(d) > INT32_MAX ? INT32_MAX :
		      (int)diff_regressions(d);
	}
	diff_free(d);
	gr_oom_pop(&g);
	return ret;
}
