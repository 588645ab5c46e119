// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: a hash map from u64 keys to u32 values (open addressing).
 */
#include <stdlib.h>
#include <string.h>

#include "u64map.h"
#include "lib.h"

struct slot {
	uint64_t key;
	uint32_t val;
	uint32_t used;
};

struct u64map {
	struct slot *slots;
	uint64_t mask;
	uint64_t n;
};

static struct slot *find(const struct u64map *m, uint64_t key)
{
	uint64_t i = mix64(key) & m->mask;

	while (m->slots[i].used && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	return &m->slots[i];
}

struct u64map *u64map_new(void)
{
	struct u64map *m = xmalloc(sizeof(*m));

	m->mask = 15;
	m->n = 0;
	m->slots = calloc(m->mask + 1, sizeof(*m->slots));
	if (!m->slots)
		gr_oom(0);
	return m;
}

int64_t u64map_get(const struct u64map *m, uint64_t key)
{
	const struct slot *s = find(m, key);

	return s->used ? (int64_t)s->val : -1;
}

static void grow(struct u64map *m)
{
	struct slot *old = m->slots;
	uint64_t i, size = m->mask + 1;

	m->mask = size * 2 - 1;
	m->slots = calloc(size * 2, sizeof(*m->slots));
	if (!m->slots)
		gr_oom(0);
	for (i = 0; i < size; i++)
		if (old[i].used)
			*find(m, old[i].key) = old[i];
	free(old);
}

void u64map_set(struct u64map *m, uint64_t key, uint32_t val)
{
	struct slot *s;

	/* At most half full keeps the probe sequences short. */
	if (2 * (m->n + 1) > m->mask + 1)
		grow(m);
	s = find(m, key);
	if (!s->used) {
		s->used = 1;
		s->key = key;
		m->n++;
	}
	s->val = val;
}

void u64map_clear(struct u64map *m)
{
	memset(m->slots, 0, (m->mask + 1) * sizeof(*m->slots));
	m->n = 0;
}

void u64map_free(struct u64map *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}
