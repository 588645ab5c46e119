/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgrtrace: what the library's own files share.  No file of the library
 * includes a header of the command line tool; the tool includes these.
 *
 * The library never prints and never exits.  An allocation that fails
 * goes to gr_oom(): inside a public entry point (api.c) that returns the
 * error to the caller; the tool installs a handler that ends it.
 */
#ifndef GRTRACE_LIB_H
#define GRTRACE_LIB_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#define GR_PRINTF(a, b)	__attribute__((format(printf, a, b)))

/*
 * malloc() and realloc() that never return NULL: they call gr_oom().  The
 * symbols are gr_xmalloc() and gr_xrealloc(), in the library's namespace,
 * so that a client (the tool) may have an xmalloc() of its own; the
 * library's files call them by the short names.
 */
void *gr_xmalloc(size_t size);
void *gr_xrealloc(void *ptr, size_t size);
/*
 * Zeroed memory: for the large tables (a report's ended jobs, a trace
 * export's), whose pages calloc() takes fresh from the kernel, already
 * zero, instead of writing every byte first.
 */
void *gr_xzalloc(size_t size);
#define xmalloc(size)		gr_xmalloc(size)
#define xrealloc(ptr, size)	gr_xrealloc(ptr, size)
#define xzalloc(size)		gr_xzalloc(size)

/*
 * Out of memory: jump to the innermost gr_oom_catch() of this thread,
 * else call the handler gr_set_oom_handler() set, else abort().
 */
noreturn void gr_oom(size_t size);
void gr_set_oom_handler(void (*fn)(size_t size));

/*
 * The public entry points arm a jump buffer around the work they do, so
 * that an allocation failure anywhere below comes back to them as an
 * error.  @prev keeps the outer one (entry points may nest).
 */
struct gr_oom_guard {
	jmp_buf env;
	struct gr_oom_guard *prev;
};

void gr_oom_push(struct gr_oom_guard *g);
void gr_oom_pop(struct gr_oom_guard *g);

/* A parsed "stats" file of the module: key=value lines. */
#define GR_STATS_MAX	64
struct gr_stats {
	int n;
	struct {
		char key[48];
		uint64_t val;
	} ent[GR_STATS_MAX];
};

#endif /* GRTRACE_LIB_H */
