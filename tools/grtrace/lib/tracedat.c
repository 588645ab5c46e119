// SPDX-License-Identifier: GPL-2.0
/*
 * libgrtrace: the ioctls of a trace-cmd trace.dat, through libtracecmd
 * (include/grtrace/timeline.h).  Built only when libtracecmd is found.
 *
 * libtracecmd reads the file (version 6 or 7, its sections compressed or
 * not) and hands over every CPU's events in time order; here each
 * sys_enter_ioctl is kept open under its thread until that thread's
 * sys_exit_ioctl closes it, as merge_timeline.py pairs the text of
 * "trace-cmd report".  The result is columns, sorted by the enter.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd.h>

#define GRTRACE_BUILD
#include "include/grtrace/timeline.h"
#include "lib.h"
#include "tracedat.h"
#include "u64map.h"

struct pairing {
	struct tep_handle *tep;
	int enter_id, exit_id;
	/* sys_enter_ioctl's cmd field */
	int cmd_off, cmd_size;
	int64_t offset;
	struct grtrace_ioctls *io;
	size_t cap;
	/* Ioctls open, by thread: index + 1 into @io's columns (0: none). */
	struct u64map *open;
	/* Threads seen, by tid: index into @io->comm. */
	struct u64map *tasks;
	size_t tcap;
	/* (thread, command) pairs seen: index into @io->kind_*. */
	struct u64map *kinds;
	size_t kcap;
};

static void td_err(struct grtrace_error *err, int status, int sys,
		   const char *fmt, ...) GR_PRINTF(4, 5);

static void td_err(struct grtrace_error *err, int status, int sys,
		   const char *fmt, ...)
{
	va_list ap;

	/* Nothing into one too small, nothing past ours (grtrace.h). */
	if (!err || err->size < GRTRACE_ERROR_SIZE_1)
		return;
	memset((char *)err + sizeof(err->size), 0,
	       sizeof(*err) - sizeof(err->size));
	err->status = status;
	err->sys = sys;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

static void grow(struct pairing *p)
{
	struct grtrace_ioctls *io = p->io;
	size_t cap = p->cap ? 2 * p->cap : 65536;

	io->enter = xrealloc(io->enter, cap * sizeof(*io->enter));
	io->exit = xrealloc(io->exit, cap * sizeof(*io->exit));
	io->tid = xrealloc(io->tid, cap * sizeof(*io->tid));
	io->cmd = xrealloc(io->cmd, cap * sizeof(*io->cmd));
	io->task = xrealloc(io->task, cap * sizeof(*io->task));
	io->kind = xrealloc(io->kind, cap * sizeof(*io->kind));
	p->cap = cap;
}

/* The index of the pair (@tid, @cmd), added on its first ioctl. */
static uint32_t kind_of(struct pairing *p, uint32_t tid, uint32_t cmd,
			uint32_t task)
{
	struct grtrace_ioctls *io = p->io;
	uint64_t key = (uint64_t)tid << 32 | cmd;
	int64_t k = u64map_get(p->kinds, key);

	if (k >= 0)
		return (uint32_t)k;
	if (io->nkind == p->kcap) {
		p->kcap = p->kcap ? 2 * p->kcap : 64;
		io->kind_tid = xrealloc(io->kind_tid,
					p->kcap * sizeof(*io->kind_tid));
		io->kind_cmd = xrealloc(io->kind_cmd,
					p->kcap * sizeof(*io->kind_cmd));
		io->kind_task = xrealloc(io->kind_task,
					 p->kcap * sizeof(*io->kind_task));
	}
	io->kind_tid[io->nkind] = tid;
	io->kind_cmd[io->nkind] = cmd;
	io->kind_task[io->nkind] = task;
	u64map_set(p->kinds, key, (uint32_t)io->nkind);
	return (uint32_t)io->nkind++;
}

/* The index of @tid's name in io->comm, added on its first ioctl. */
static uint32_t task_of(struct pairing *p, uint32_t tid)
{
	struct grtrace_ioctls *io = p->io;
	int64_t k = u64map_get(p->tasks, tid);
	const char *comm;

	if (k >= 0)
		return (uint32_t)k;
	if (io->ntask == p->tcap) {
		p->tcap = p->tcap ? 2 * p->tcap : 64;
		io->comm = xrealloc(io->comm, p->tcap * GRTRACE_COMM_LEN);
	}
	comm = tep_data_comm_from_pid(p->tep, (int)tid);
	snprintf(io->comm + io->ntask * GRTRACE_COMM_LEN, GRTRACE_COMM_LEN,
		 "%s", comm ? comm : "<...>");
	u64map_set(p->tasks, tid, (uint32_t)io->ntask);
	return (uint32_t)io->ntask++;
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec,
		     int cpu, void *data)
{
	struct pairing *p = data;
	struct grtrace_ioctls *io = p->io;
	int type = tep_data_type(p->tep, rec);
	uint64_t ts = rec->ts + (uint64_t)p->offset;
	int64_t open;
	uint32_t tid;
	size_t i;

	(void)h;
	(void)cpu;
	if (type != p->enter_id && type != p->exit_id)
		return 0;
	io->events++;
	tid = (uint32_t)tep_data_pid(p->tep, rec);
	open = u64map_get(p->open, tid);
	if (type == p->exit_id) {
		if (open <= 0) {
			io->stray++;
			return 0;
		}
		io->exit[open - 1] = ts;
		u64map_set(p->open, tid, 0);
		return 0;
	}
	/* An enter before the exit of the one open leaves it open: stray. */
	if (rec->size < 0 ||
	    (size_t)rec->size < (size_t)p->cmd_off + (size_t)p->cmd_size)
		return 0;
	if (io->n == p->cap)
		grow(p);
	i = io->n++;
	io->enter[i] = ts;
	io->exit[i] = UINT64_MAX;
	io->tid[i] = tid;
	io->cmd[i] = (uint32_t)tep_read_number(p->tep,
					       (char *)rec->data + p->cmd_off,
					       p->cmd_size);
	io->task[i] = task_of(p, tid);
	io->kind[i] = kind_of(p, tid, io->cmd[i], io->task[i]);
	u64map_set(p->open, tid, (uint32_t)(i + 1));
	return 0;
}

/*
 * Drop the ioctls never closed -- an enter followed by another of its
 * thread, or still open at the end -- and count them as stray.
 */
static void drop_open(struct pairing *p)
{
	struct grtrace_ioctls *io = p->io;
	size_t i, o = 0;

	for (i = 0; i < io->n; i++) {
		if (io->exit[i] == UINT64_MAX) {
			io->stray++;
			continue;
		}
		io->enter[o] = io->enter[i];
		io->exit[o] = io->exit[i];
		io->tid[o] = io->tid[i];
		io->cmd[o] = io->cmd[i];
		io->task[o] = io->task[i];
		io->kind[o] = io->kind[i];
		o++;
	}
	io->n = o;
}

static int by_enter(const void *a, const void *b, void *arg)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct grtrace_ioctls *io = arg;

	if (io->enter[x] != io->enter[y])
		return io->enter[x] < io->enter[y] ? -1 : 1;
	if (io->tid[x] != io->tid[y])
		return io->tid[x] < io->tid[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Enters come in time order, so the columns are sorted already but where
 * two share a time; only then is a permutation applied.
 */
static void sort_enter(struct pairing *p)
{
	struct grtrace_ioctls *io = p->io;
	uint32_t *perm;
	size_t i;
	int sorted = 1;

	for (i = 1; i < io->n; i++) {
		if (io->enter[i] < io->enter[i - 1] ||
		    (io->enter[i] == io->enter[i - 1] &&
		     io->tid[i] < io->tid[i - 1]))
			sorted = 0;
		if (io->enter[i] == io->enter[i - 1])
			io->ties = 1;
	}
	if (sorted)
		return;
	perm = xmalloc(io->n * sizeof(*perm));
	for (i = 0; i < io->n; i++)
		perm[i] = (uint32_t)i;
	qsort_r(perm, io->n, sizeof(*perm), by_enter, io);
	{
		uint64_t *e = xmalloc(io->n * sizeof(*e));
		uint64_t *x = xmalloc(io->n * sizeof(*x));
		uint32_t *t = xmalloc(io->n * sizeof(*t));
		uint32_t *c = xmalloc(io->n * sizeof(*c));
		uint32_t *k = xmalloc(io->n * sizeof(*k));
		uint32_t *d = xmalloc(io->n * sizeof(*d));

		for (i = 0; i < io->n; i++) {
			e[i] = io->enter[perm[i]];
			x[i] = io->exit[perm[i]];
			t[i] = io->tid[perm[i]];
			c[i] = io->cmd[perm[i]];
			k[i] = io->task[perm[i]];
			d[i] = io->kind[perm[i]];
		}
		free(io->enter);
		free(io->exit);
		free(io->tid);
		free(io->cmd);
		free(io->task);
		free(io->kind);
		io->enter = e;
		io->exit = x;
		io->tid = t;
		io->cmd = c;
		io->task = k;
		io->kind = d;
	}
	free(perm);
}

GRTRACE_API void grtrace_ioctls_free(struct grtrace_ioctls *io)
{
	if (!io)
		return;
	free(io->enter);
	free(io->exit);
	free(io->tid);
	free(io->cmd);
	free(io->task);
	free(io->comm);
	free(io->kind);
	free(io->kind_tid);
	free(io->kind_cmd);
	free(io->kind_task);
	free(io->by_tid);
	free(io);
}

/*
 * The ioctl events of @h; 0, -1 if it has none (no ioctls then), or -2 if
 * the file places their cmd field where no number can be (the offset and
 * size are the file's text, read by libtraceevent into ints).
 */
static int find_events(struct pairing *p, struct tracecmd_input *h)
{
	struct tep_event *enter, *exit_ev;
	struct tep_format_field *cmd;

	p->tep = tracecmd_get_tep(h);
	enter = tep_find_event_by_name(p->tep, "syscalls", "sys_enter_ioctl");
	exit_ev = tep_find_event_by_name(p->tep, "syscalls", "sys_exit_ioctl");
	cmd = enter ? tep_find_field(enter, "cmd") : NULL;
	if (!enter || !exit_ev || !cmd)
		return -1;
	p->enter_id = enter->id;
	p->exit_id = exit_ev->id;
	p->cmd_off = cmd->offset;
	p->cmd_size = cmd->size;
	if (cmd->offset < 0 || (cmd->size != 1 && cmd->size != 2 &&
				cmd->size != 4 && cmd->size != 8))
		return -2;
	return 0;
}

/* The file's sizes checked (tracedat-check.c) before libtracecmd reads it. */
static const char *check_sizes(int fd)
{
	struct stat st;
	const char *why;
	void *map;

	if (fstat(fd, &st) || st.st_size < 12)
		return "its first header is cut short";
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return "it cannot be mapped";
	why = gr_tracedat_check(map, (size_t)st.st_size);
	munmap(map, (size_t)st.st_size);
	return why;
}

GRTRACE_API int grtrace_tracedat_ioctls(const char *path, int64_t offset_ns,
					struct grtrace_ioctls **out,
					struct grtrace_error *err)
{
	struct pairing p = { .offset = offset_ns };
	struct tracecmd_input *h = NULL;
	struct gr_oom_guard g;
	const char *why;
	int fd, ret;

	if (err && err->size < GRTRACE_ERROR_SIZE_1) {
		errno = EINVAL;
		return -1;
	}

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		td_err(err, GRTRACE_ERR_IO, errno, "%s", strerror(errno));
		return -1;
	}
	why = check_sizes(fd);
	close(fd);
	if (why) {
		td_err(err, GRTRACE_ERR_INPUT, 0, "a trace.dat, but %s", why);
		return -1;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	errno = 0;
	h = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS |
			       TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (h && tracecmd_init_data(h) < 0) {
		tracecmd_close(h);
		td_err(err, GRTRACE_ERR_INPUT, 0,
		       "its CPU data cannot be read (truncated?)");
		return -1;
	}
	if (!h) {
		td_err(err, GRTRACE_ERR_INPUT, errno,
		       "not a trace.dat libtracecmd can read (truncated or corrupt headers%s%s)",
		       errno ? ": " : "", errno ? strerror(errno) : "");
		return -1;
	}
	p.io = calloc(1, sizeof(*p.io));
	if (!p.io) {
		tracecmd_close(h);
		td_err(err, GRTRACE_ERR_NOMEM, ENOMEM, "out of memory");
		return -1;
	}
	if (setjmp(g.env)) {
		/* Half built: leak it rather than free what is unknown. */
		td_err(err, GRTRACE_ERR_NOMEM, ENOMEM, "out of memory");
		return -1;
	}
	gr_oom_push(&g);
	ret = find_events(&p, h);
	if (ret == -2) {
		gr_oom_pop(&g);
		tracecmd_close(h);
		free(p.io);
		td_err(err, GRTRACE_ERR_INPUT, 0,
		       "a trace.dat, but its sys_enter_ioctl format puts cmd at offset %d, size %d: no number of a record",
		       p.cmd_off, p.cmd_size);
		return -1;
	}
	if (!ret) {
		p.open = u64map_new();
		p.tasks = u64map_new();
		p.kinds = u64map_new();
		tracecmd_iterate_events(h, NULL, 0, on_record, &p);
		drop_open(&p);
		sort_enter(&p);
		u64map_free(p.open);
		u64map_free(p.tasks);
		u64map_free(p.kinds);
	}
	gr_oom_pop(&g);
	tracecmd_close(h);
	*out = p.io;
	return 0;
}
