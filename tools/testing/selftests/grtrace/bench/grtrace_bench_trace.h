/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ftrace event grtrace_bench compares grtrace with: its payload has the
 * fields and the size (40 bytes) of a grtrace job event's payload.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM grtrace_bench

#if !defined(_GRTRACE_BENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _GRTRACE_BENCH_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(grtrace_bench_job,
	    TP_PROTO(u64 ctx, u64 seqno, u32 ring, u16 engine, u64 aux0,
		     u64 aux1),
	    TP_ARGS(ctx, seqno, ring, engine, aux0, aux1),
	    TP_STRUCT__entry(__field(u64, ctx)
			     __field(u64, seqno)
			     __field(u32, ring)
			     __field(u16, engine)
			     __field(u16, pad)
			     __field(u64, aux0)
			     __field(u64, aux1)),
	    TP_fast_assign(__entry->ctx = ctx;
			   __entry->seqno = seqno;
			   __entry->ring = ring;
			   __entry->engine = engine;
			   __entry->pad = 0;
			   __entry->aux0 = aux0;
			   __entry->aux1 = aux1;),
	    TP_printk("ctx=%llu seqno=%llu ring=%u engine=%u aux0=%llu aux1=%llu",
		      __entry->ctx, __entry->seqno, __entry->ring,
		      __entry->engine, __entry->aux0, __entry->aux1)
);
#endif /* _GRTRACE_BENCH_TRACE_H */

/* The module's own directory is on the include path (see Makefile). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE grtrace_bench_trace
#include <trace/define_trace.h>
