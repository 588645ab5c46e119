/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: a hash map from u64 keys to u32 values (open addressing).
 */
#ifndef GRTRACE_U64MAP_H
#define GRTRACE_U64MAP_H

#include <stdint.h>

struct u64map;

struct u64map *u64map_new(void);
/* The value of @key, or -1 if it has none. */
int64_t u64map_get(const struct u64map *m, uint64_t key);
void u64map_set(struct u64map *m, uint64_t key, uint32_t val);
void u64map_clear(struct u64map *m);
void u64map_free(struct u64map *m);

static inline uint64_t mix64(uint64_t x)
{
	/* The finaliser of MurmurHash3: every input bit moves every output bit. */
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif /* GRTRACE_U64MAP_H */
