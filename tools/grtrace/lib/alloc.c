// SPDX-License-Identifier: GPL-2.0
/*
 * libgrtrace: allocation, and where a failed one goes (see lib.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib.h"

static void (*oom_handler)(size_t size);
static __thread struct gr_oom_guard *oom_top;

void gr_set_oom_handler(void (*fn)(size_t size))
{
	oom_handler = fn;
}

void gr_oom_push(struct gr_oom_guard *g)
{
	g->prev = oom_top;
	oom_top = g;
}

void gr_oom_pop(struct gr_oom_guard *g)
{
	oom_top = g->prev;
}

noreturn void gr_oom(size_t size)
{
	struct gr_oom_guard *g = oom_top;

	if (g) {
		oom_top = g->prev;
		longjmp(g->env, 1);
	}
	if (oom_handler)
		oom_handler(size);
	/*
	 * No call of the API to return an error from: the report's merge
	 * thread.  Say why before the process ends.
	 */
	fprintf(stderr, "libgrtrace: out of memory (%zu bytes) outside a call that can fail; aborting\n",
		size);
	abort();
}

void *gr_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		gr_oom(size);
	return p;
}

void *gr_xzalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		gr_oom(size);
	return p;
}

void *gr_xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		gr_oom(size);
	return p;
}
