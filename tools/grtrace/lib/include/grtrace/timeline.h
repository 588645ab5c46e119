/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgrtrace: the two sides of merge_timeline.py, as columns.
 *
 * The CPU side: the ioctls of a trace-cmd trace.dat (syscalls:
 * sys_enter_ioctl and sys_exit_ioctl), read through libtracecmd and paired
 * per thread.  Built only when libtracecmd was found at build time
 * (pkg-config libtracecmd): grtrace_tracedat_ioctls() is then exported;
 * a client tells by looking the symbol up (the Python binding does).
 * grtrace_is_tracedat() is always there.
 *
 * The GPU side: the job events of a grtrace file, a sampler's JOB_SUMMARY
 * records spread back into the events their stamps stand for, and the
 * ring table.
 *
 * Both hand back arrays (one per field, "columns") that the caller frees
 * with the matching _free(): a Python client turns them into lists in a
 * few calls, where a call per event would cost more than the reading.
 */
#ifndef GRTRACE_TIMELINE_H
#define GRTRACE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "grtrace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if @path begins as a trace-cmd trace.dat, 0 if not, -1 and *@err. */
GRTRACE_API int grtrace_is_tracedat(const char *path,
				    struct grtrace_error *err);

/*
 * Since 1.4: 0 if the @len bytes at @buf, a whole trace-cmd trace.dat,
 * pass the checks of the sizes it states that grtrace_tracedat_ioctls()
 * makes before libtracecmd reads it (libtracecmd trusts them), else -1
 * and *@err (GRTRACE_ERR_INPUT) saying which does not hold.  No
 * libtracecmd is needed.
 */
GRTRACE_API int grtrace_tracedat_check(const void *buf, size_t len,
				       struct grtrace_error *err);

/**
 * struct grtrace_ioctls - the ioctls of a CPU-side trace
 * @n: ioctls paired (an enter and the next exit of its thread)
 * @enter, @exit: their times (ns, the trace's clock, plus the offset asked)
 * @tid, @cmd: the thread and the ioctl's command
 * @task: index into @comm of the thread's name
 * @stray: enters or exits without their pair: an enter followed by another
 *	of its thread, an exit without an enter, an enter still open at
 *	the end
 * @events: the sys_enter_ioctl and sys_exit_ioctl events read
 * @ntask, @comm: thread names as trace-cmd report prints them ("<...>"
 *	where the file's saved cmdlines do not know the thread),
 *	NUL-terminated, GRTRACE_COMM_LEN bytes each
 * @ties: some ioctls begin at the same time as the one before them
 * @kind: index of the ioctl's (thread, command) pair, into @kind_tid,
 *	@kind_cmd and @kind_task, which have @nkind entries: the ioctls of
 *	one pair print alike but for their times (grtrace_ioctls_format())
 * @by_tid: built by grtrace_ioctls_find(), not to be touched
 *
 * Sorted by @enter, then by @tid.
 */
#define GRTRACE_COMM_LEN	32
struct grtrace_ioctls {
	size_t n;
	uint64_t *enter, *exit;
	uint32_t *tid, *cmd, *task;
	uint64_t stray, events;
	size_t ntask;
	char *comm;
	int ties;
	uint32_t *kind;
	size_t nkind;
	uint32_t *kind_tid, *kind_cmd, *kind_task;
	uint32_t *by_tid;
};

/*
 * The ioctls of the trace.dat @path (version 6 or 7, compressed or not),
 * @offset_ns added to their times: 0 and *@out (free with
 * grtrace_ioctls_free()), or -1 and *@err.  A file without the ioctl
 * events has none.  libtracecmd's own messages are silenced.
 */
GRTRACE_API int grtrace_tracedat_ioctls(const char *path, int64_t offset_ns,
					struct grtrace_ioctls **out,
					struct grtrace_error *err);
GRTRACE_API void grtrace_ioctls_free(struct grtrace_ioctls *io);

/*
 * The ioctl of thread @tid whose interval [enter, exit] holds @ts: its
 * index, or -1.  The first call indexes the ioctls by thread (0 and
 * *@err if it cannot).
 */
GRTRACE_API long grtrace_ioctls_find(struct grtrace_ioctls *io, uint32_t tid,
				     uint64_t ts, struct grtrace_error *err);

/*
 * One line per ioctl @first .. @first + @count - 1 of @io, as
 * merge_timeline.py prints them: "ENTER cpu ioctl TEXT dur=NS\n", TEXT
 * being @text[kind] (the caller names the pairs of @io->kind), and with
 * @verbose " cmd=0x%x exit=NS" before the newline.  0, *@buf (malloc()ed,
 * @len bytes) and *@off (@count + 1 entries: where each line begins in
 * @buf, and its end); or -1 and *@err.  A caller writes a long trace a
 * slice at a time.
 */
GRTRACE_API int grtrace_ioctls_format(const struct grtrace_ioctls *io,
				      size_t first, size_t count,
				      const char *const *text, int verbose,
				      char **buf, size_t *len, uint64_t **off,
				      struct grtrace_error *err);

/* Why a JOB_SUMMARY was written: grtrace_gpu_events.summary. */
enum { GRTRACE_SUMMARY_NONE, GRTRACE_SUMMARY_SLOW, GRTRACE_SUMMARY_OPEN };

/**
 * struct grtrace_gpu_events - the job events of a grtrace file
 * @n: events, in the merge's order (grtrace_next_record()); a JOB_SUMMARY
 *	gives one per stamp it holds, in the order submit .. complete
 * @ts, @ctx, @seqno, @ring, @type: each event's (@type a GRTRACE_EV_*)
 * @has_task, @pid, @tid: its submitter where the event names it
 * @summary: GRTRACE_SUMMARY_* (other values: a reason this library does
 *	not know)
 * @nring, @ring_id, @ring_name, @ring_driver: the rings the file names
 *	(METADATA and RING records; a later record of an id wins),
 *	NUL-terminated strings of GRTRACE_RING_STR bytes
 */
#define GRTRACE_RING_STR	64
struct grtrace_gpu_events {
	size_t n;
	uint64_t *ts, *ctx, *seqno;
	uint32_t *ring, *pid, *tid;
	uint16_t *type, *summary;
	uint8_t *has_task;
	size_t nring;
	uint32_t *ring_id;
	char *ring_name, *ring_driver;
};

/*
 * The job events of the grtrace file (or bare stream) @path: 0 and *@out
 * (free with grtrace_gpu_events_free()), or -1 and *@err (an input error
 * names its byte).
 */
GRTRACE_API int grtrace_gpu_events(const char *path,
				   struct grtrace_gpu_events **out,
				   struct grtrace_error *err);
/* The same for the @len bytes at @buf. */
GRTRACE_API int grtrace_gpu_events_mem(const void *buf, size_t len,
				       struct grtrace_gpu_events **out,
				       struct grtrace_error *err);
GRTRACE_API void grtrace_gpu_events_free(struct grtrace_gpu_events *ev);

#ifdef __cplusplus
}
#endif

#endif /* GRTRACE_TIMELINE_H */
