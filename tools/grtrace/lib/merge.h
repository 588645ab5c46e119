/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: the records of several per-CPU streams, merged by gseq.
 *
 * Two kinds of input:
 *
 * - A file (or any buffer): a trace file written by "grtrace record", or
 *   a bare stream (the records alone, as "record" wrote them before the
 *   trace file existed).  One pass lists every CPU's data in file order:
 *   a trace file's frame headers, or a bare stream's records, validated
 *   and cut into runs of one CPU.  Then one cursor per CPU reads its data
 *   through a window of its own, wherever in the file it lies: the merge
 *   is exact whatever order the CPUs were drained in, and memory does not
 *   grow with the file (a window per CPU, and the list).
 *
 * - Per-CPU file descriptors (the debugfs events<cpu> files): each read to
 *   its end through a buffer of its own.
 *
 * A binary heap of cursors keyed by (part, gseq, ts) of their next record
 * gives the merged order.  A mapped stream that begins its session takes
 * gseq after gseq straight from the cursor the scanner noted for it, while
 * each gseq comes once; then the heap (merge.c: direct_next()).
 *
 * A file may hold several parts, merged one after the other: in a trace
 * file each file header after the first begins one (recordings joined
 * with cat).  In a bare stream gseq grows for the lifetime of the module,
 * so it restarts only when the module was reloaded between two parts (two
 * recordings joined, or one spanning a reload): a new part begins where a
 * CPU's gseq falls below that CPU's record before it in the file and its
 * cseq falls by more than one (by one, the record is only out of place),
 * or at a STREAM_INFO whose session id and gseq are not above those of the
 * STREAM_INFO before it but whose timestamp is (within one module load all
 * three grow, whatever the order of the CPUs' chunks in the file; without
 * FEAT_GSEQ the session id alone tells).  Not told apart in a bare stream:
 * a new part's first records from a CPU that had none in the part before,
 * when they come before any sign of the restart, and a part whose clock
 * starts below the one before (another boot) and has no CPU in common
 * with it.
 */
#ifndef GRTRACE_MERGE_H
#define GRTRACE_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"
#include "trace-file.h"

struct merge_cursor;
struct merge_scan;
struct merge_win;

struct merge_key {
	uint64_t gseq;
	uint64_t ts;
	unsigned int cur;
	unsigned int part;
};

struct merge {
	/*
	 * The file: in memory (@buf), or read from @in_fd; @map when @buf is
	 * @in_fd mapped (@map_drop: large, let go of behind the readers).
	 */
	const uint8_t *buf;
	int in_fd;
	size_t len;
	void *map;
	int map_drop;
	/* Read with pread(): the windows the scanner and the cursors share. */
	struct merge_win *win;
	unsigned int nwin;
	unsigned int wincap;
	uint64_t win_clock;
	/* A trace file's first header, if it has one (@nfiles). */
	struct grf_header file;
	unsigned int nfiles;

	/*
	 * A bare stream's scanner, until it is done (@scan_done); @lazy:
	 * it scans as the merge needs it (see merge.c).
	 */
	struct merge_scan *scan;
	int scan_done;
	int lazy;

	/* Parts of the file, as the scanner finds them. */
	unsigned int part;	/* the part being scanned, from 0 */
	int have_si;		/* a STREAM_INFO was scanned; the last one's: */
	uint64_t si_session;
	uint64_t si_gseq;
	uint64_t si_ts;
	unsigned int part_out;	/* part of the records delivered */

	struct merge_cursor *cur;
	unsigned int ncur;
	unsigned int curcap;	/* entries allocated in @cur and @heap */
	uint32_t *cpu_slot;	/* cpu -> cursor index + 1 (buffer input) */
	struct merge_key *heap;	/* cursors by their next record, smallest first */
	unsigned int nheap;
	int delivered;		/* heap[0] (@direct: cursor @dcur) handed out its record */

	/*
	 * A lazy scan's first part, while its gseqs are each found once:
	 * the next record is gseq @next_g, in the cursor the scanner noted
	 * in @slot (see direct_next()); no heap.
	 */
	int direct;
	int slots;		/* the scanner notes gseqs in @slot, not its ring */
	unsigned int dcur;
	uint64_t next_g;
	uint16_t *slot;		/* cursor index + 1, or 0 */

	/* The trace file's task tables (version 2), sorted by tid. */
	struct grf_task *tasks;
	size_t ntasks;
	size_t tasks_cap;
	unsigned int task_frames;
	/* Its client tables (version 3), sorted by DRM client id. */
	struct grf_client *clients;
	size_t nclients;
	size_t clients_cap;
	unsigned int client_frames;
	/* The CPU tail tables (version 3), in file order. */
	struct grf_tail *tails;
	size_t ntails;
	struct grf_tail *heads;	/* the CPU head tables: cseq at the start */
	size_t nheads;

	/* merge_init_buf_as(): what the reader was told of a bare stream. */
	unsigned int bare_format;	/* 0: as merge_init_buf() */
	uint16_t bare_cpu;
	/* A bare stream read as one format 2 channel (else format 1). */
	int bare_v2;

	/* The first error; records before it are still delivered. */
	int failed;
	unsigned int nerrors;
	char errmsg[GR_ERRMSG_LEN + 64];
};

/* Merge the @len bytes of a file in @buf. */
void merge_init_buf(struct merge *m, const void *buf, size_t len);
/*
 * merge_init_buf() for a bare stream whose reader is told its format
 * (@format 1 or 2, or MERGE_GUESS: its first record says, a STREAM_INFO or
 * a job event's size) and, in format 2, the CPU of its one channel
 * (@cpu).  A format 2 stream is read whole, as one frame at byte 0: its
 * records' offsets are 0, its errors name the byte of its data.  A trace
 * file is read as merge_init_buf() reads it.
 */
#define MERGE_GUESS	3
void merge_init_buf_as(struct merge *m, const void *buf, size_t len,
		       unsigned int format, uint16_t cpu);
/*
 * Merge the @len bytes of the regular file @fd, mapped (read with pread()
 * where it cannot be).  A file mapped and truncated while it is read
 * ends the process with SIGBUS, as it does any reader that maps a file.
 */
void merge_init_file(struct merge *m, int fd, size_t len);
/* merge_init_buf_as() for a file read with pread(). */
void merge_init_file_as(struct merge *m, int fd, size_t len,
			unsigned int format, uint16_t cpu);
/* Merge @n descriptors read to their ends; @names for messages. */
void merge_init_fds(struct merge *m, const int *fds, char *const *names,
		    unsigned int n, unsigned int format);
/* merge_next() delivered the first record of a new part of the file. */
#define MERGE_NEW_PART	2

/*
 * Next record in gseq order: 1 and @rec, MERGE_NEW_PART and @rec when the
 * gseq restarted before it, or 0 at the end.  Errors do not stop the
 * merge: they set m->failed and m->errmsg, and the records before them are
 * delivered.
 */
int merge_next(struct merge *m, struct gr_rec *rec);
void merge_free(struct merge *m);

/*
 * The merge of @m in a thread of its own (NULL if none can be started):
 * merge_pipe_next() is merge_next() for the caller.  Nothing else may use
 * @m until merge_pipe_stop(), which ends the thread (early, when the
 * caller wants no more records) and leaves @m's errors for the caller.
 */
struct merge_pipe;
struct merge_pipe *merge_pipe_start(struct merge *m);
int merge_pipe_next(struct merge_pipe *p, struct gr_rec *rec);
void merge_pipe_stop(struct merge_pipe *p);
/*
 * The merge's thread ran out of memory: its records ended early (at 0
 * from merge_pipe_next()).  The merge is then half built: stop the pipe,
 * and treat it as the caller's own failed allocation.
 */
int merge_pipe_oom(struct merge_pipe *p);

#endif /* GRTRACE_MERGE_H */
