/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: the records of several per-CPU streams, merged by gseq.
 *
 * Two kinds of input:
 *
 * - A file written by "grtrace record" (mapped, or any buffer): a
 *   concatenation of chunks of whole records, each chunk from one CPU, so
 *   the order of one CPU's records in the file is their gseq order.  A
 *   scanner walks the file once, validating every record and cutting it
 *   into per-CPU chunks; one cursor per CPU consumes its chunks.  The
 *   scanner stays MERGE_LOOKAHEAD bytes ahead of the merge so that a CPU
 *   whose chunk was written late is still merged in order; a record found
 *   behind the merge anyway is delivered late (the caller sees its gseq go
 *   backwards).  Memory: a chunk list per CPU for the look-ahead window.
 *
 * - Per-CPU file descriptors (the debugfs events<cpu> files): each read to
 *   its end through a buffer of its own.
 *
 * A binary heap of cursors keyed by the gseq of their next record gives
 * the merged order.
 *
 * gseq grows for the lifetime of the module, so it restarts only when the
 * module was reloaded between two parts of a file (two recordings joined,
 * or one spanning a reload).  The scanner begins a new part where a CPU's
 * gseq falls below that CPU's record before it in the file and its cseq
 * falls by more than one (by one, the record is only out of place), or at a
 * STREAM_INFO whose session id and gseq are not above those of the
 * STREAM_INFO before it but whose timestamp is (within one module load all
 * three grow, whatever the order of the CPUs' chunks in the file; without
 * FEAT_GSEQ the session id alone tells).  Every record after that point in
 * the file is in the new part, whose gseqs are shifted above every one
 * scanned before: each part is merged on its own, after the part before.
 * Not told apart: a new part's first records from a CPU that had none in
 * the part before, when they come before any sign of the restart, and a
 * part whose clock starts below the one before (another boot) and has no
 * CPU in common with it.
 */
#ifndef GRTRACE_MERGE_H
#define GRTRACE_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

#define MERGE_LOOKAHEAD	(16u << 20)

struct merge_cursor;

struct merge_key {
	uint64_t gseq;		/* the record's, plus its part's shift */
	uint64_t ts;
	unsigned int cur;
};

struct merge {
	/* The file, for buffer input. */
	const uint8_t *buf;
	size_t len;
	size_t scan_pos;	/* the scanner's next record */
	int scan_done;
	int mapped;		/* @buf is our mmap: drop what was read */
	size_t dropped_to;	/* pages below this were given back */
	uint64_t since_drop;	/* records merged since the last drop */

	/* Parts of the file, as the scanner finds them (buffer input). */
	unsigned int part;	/* the part being scanned, from 0 */
	uint64_t shift;		/* added to its gseqs */
	uint64_t scan_max;	/* highest shifted gseq scanned */
	int have_si;		/* a STREAM_INFO was scanned; the last one's: */
	uint64_t si_session;
	uint64_t si_gseq;
	uint64_t si_ts;
	unsigned int part_out;	/* part of the records delivered */

	struct merge_cursor *cur;
	unsigned int ncur;
	uint32_t *cpu_slot;	/* cpu -> cursor index + 1 (buffer input) */
	struct merge_key *heap;	/* cursors by their next record, smallest first */
	unsigned int nheap;
	int delivered;		/* heap[0] handed out its record */

	/* The first error; records before it are still delivered. */
	int failed;
	unsigned int nerrors;
	char errmsg[GR_ERRMSG_LEN + 64];
};

/* Merge the file in @buf; with @mapped, @buf is an mmap of @len bytes. */
void merge_init_buf(struct merge *m, const void *buf, size_t len, int mapped);
/* Merge @n descriptors read to their ends; @names for messages. */
void merge_init_fds(struct merge *m, const int *fds, char *const *names,
		    unsigned int n);
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

#endif /* GRTRACE_MERGE_H */
