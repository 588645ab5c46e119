// SPDX-License-Identifier: GPL-2.0
/*
 * libgrtrace: the table of the report's outputs (see sink.h).  The first
 * one is the default.
 */
#include <string.h>

#include "sink.h"

#define RP_SINK_LIST(X)	\
	X(text)		\
	X(csv)		\
	X(json)		\
	X(perfetto)

#define RP_SINK_DECLARE(n)	extern const struct rp_sink rp_sink_##n;
#define RP_SINK_ENTRY(n)	&rp_sink_##n,

RP_SINK_LIST(RP_SINK_DECLARE)

const struct rp_sink *const rp_sinks[] = {
	RP_SINK_LIST(RP_SINK_ENTRY)
	NULL
};

const struct rp_sink *rp_sink_find(const char *name)
{
	const struct rp_sink *const *s;

	for (s = rp_sinks; *s; s++)
		if (!strcmp((*s)->name, name))
			return *s;
	return NULL;
}
