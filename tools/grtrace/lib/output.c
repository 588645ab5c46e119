// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report: where the engine meets its output.  The engine (report.c)
 * calls out_begin(), out_row() per finished job and out_end(); they call
 * the sink's ops (sink.h) and keep what every sink of rows shares: the row
 * buffer and --limit.  Nothing here knows a format, and the writers never
 * call back into the engine through this file.
 */
#include <stdarg.h>

#include "report-out.h"

#define ROWBUF_SIZE	(64u << 10)	/* job rows gathered per write */

void rp_warn(struct rp *rp, const char *fmt, ...)
{
	char msg[GR_ERRMSG_LEN + 128];
	va_list ap;

	if (!rp->o.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rp->o.warn(rp->o.warn_arg, msg);
}

/* The rows go through a buffer: one fwrite() per row would cost more. */
int out_begin(struct rp *rp)
{
	if (rp->o.sink->begin && rp->o.sink->begin(rp) < 0)
		return -1;
	if (rp->o.limit && rp->o.sink->line) {
		rp->rowbuf = xmalloc(ROWBUF_SIZE);
		rp->rowfile = rp->spool ? rp->spool : rp->out;
	}
	return 0;
}

static void rows_flush(struct rp *rp)
{
	if (rp->rowlen)
		fwrite(rp->rowbuf, 1, rp->rowlen, rp->rowfile);
	rp->rowlen = 0;
}

void out_row(struct rp *rp, const struct row *row)
{
	struct line l;

	if (rp->o.sink->row) {
		rp->o.sink->row(rp, row);
		return;
	}
	if (rp->rows_out >= rp->o.limit)
		return;
	l.n = 0;
	if (!rp->o.sink->line(rp, &l, row))
		return;
	if (rp->rowlen + l.n > ROWBUF_SIZE)
		rows_flush(rp);
	memcpy(rp->rowbuf + rp->rowlen, l.b, l.n);
	rp->rowlen += l.n;
	rp->rows_out++;
}

/* A window that begins after the last record selects nothing: say so. */
static void window_check(struct rp *rp)
{
	char since[32], len[32];

	if (!rp->o.has_since || !rp->have_first || rp->win_start <= rp->ts_max)
		return;
	fmt_ns(since, sizeof(since), rp->o.since);
	fmt_ns(len, sizeof(len), rp->ts_max - rp->t0);
	rp_warn(rp, "report: --since %s is past the end of the trace (its last record is %s after its first): no job selected",
		since, len);
}

int out_end(struct rp *rp, const struct rp_input *in)
{
	int ret;

	window_check(rp);
	rows_flush(rp);
	ret = rp->o.sink->end(rp, in);
	return rp->out && ferror(rp->out) ? -1 : ret;
}
