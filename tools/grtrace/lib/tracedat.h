/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgrtrace: what lib/tracedat.c checks of a trace.dat before it lets
 * libtracecmd read it.
 */
#ifndef GRTRACE_TRACEDAT_H
#define GRTRACE_TRACEDAT_H

#include <stddef.h>

/*
 * libtracecmd 3.1 trusts the sizes a file states: a version 6 file cut in
 * its CPU data is mapped past its end and faults, a version 7 file cut in
 * its first header is freed twice.  So the sizes are checked first, from
 * trace-cmd.dat.v6(5) and .v7(5): the first header whole, and in version 6
 * each section's size, then every CPU's data, inside the @len bytes at
 * @buf (the whole file).  NULL, or what is wrong.
 */
const char *gr_tracedat_check(const void *buf, size_t len);

#endif /* GRTRACE_TRACEDAT_H */
