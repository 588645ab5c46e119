/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: a map from 64-bit ids (thread ids, DRM client ids) to 32-bit
 * values, for record's readers: open addressing, linear probing, kept at
 * most half full.
 */
#ifndef GRTRACE_IDMAP_H
#define GRTRACE_IDMAP_H

#include <stdint.h>

struct idmap;

struct idmap *idmap_new(void);
/* The value of @key, or -1 if it has none. */
int64_t idmap_get(const struct idmap *m, uint64_t key);
void idmap_set(struct idmap *m, uint64_t key, uint32_t val);
void idmap_free(struct idmap *m);

#endif /* GRTRACE_IDMAP_H */
