/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgrtrace: records as rows of text, CSV or JSON lines, the columns of
 * scripts/parse_events.py (grtrace_next_rows() of the public header).
 */
#ifndef GRTRACE_ROWS_H
#define GRTRACE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"
#include "trace-file.h"

/* Rows are appended to @buf (@len of @cap bytes, grown with xrealloc()). */
struct gr_rows {
	char *buf;
	size_t len;
	size_t cap;
	int json;		/* JSON lines, else CSV */
};

/* The CSV header line (nothing for JSON). */
void gr_rows_header(struct gr_rows *o);
/* One record of part @part. */
void gr_rows_record(struct gr_rows *o, const struct gr_rec *rec,
		    unsigned int part);
/* One entry of a trace file's task or client table, of part @part. */
void gr_rows_task(struct gr_rows *o, const struct grf_task *t,
		  unsigned int part);
void gr_rows_client(struct gr_rows *o, const struct grf_client *c,
		    unsigned int part);

#endif /* GRTRACE_ROWS_H */
