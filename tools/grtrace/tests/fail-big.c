// SPDX-License-Identifier: GPL-2.0
/*
 * fail-big.so - LD_PRELOAD'ed by run-tests.sh: an allocation of 8 MiB or
 * more fails (ENOMEM), as under a memory limit (ulimit -v, a cgroup's
 * memory.max), on whichever thread asks; smaller ones go to glibc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>

#define BIG	(8u << 20)

void *__libc_malloc(size_t n);
void *__libc_realloc(void *p, size_t n);
void *__libc_calloc(size_t n, size_t size);

void *malloc(size_t n)
{
	if (n >= BIG) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *realloc(void *p, size_t n)
{
	if (n >= BIG) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}

void *calloc(size_t n, size_t size)
{
	if (size && n >= BIG / size) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}
