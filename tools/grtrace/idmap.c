// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: the id map of idmap.h.
 */
#include <stdlib.h>

#include "idmap.h"
#include "util.h"

struct idmap_slot {
	uint64_t key;
	uint32_t val;
	uint32_t used;
};

struct idmap {
	struct idmap_slot *slot;
	size_t cap;		/* a power of two */
	size_t n;
};

/* Thread ids and client ids are dense: spread them over the slots. */
static size_t slot_of(const struct idmap *m, uint64_t key)
{
	key ^= key >> 31;
	key *= 0x9e3779b97f4a7c15ULL;
	key ^= key >> 29;
	return (size_t)key & (m->cap - 1);
}

struct idmap *idmap_new(void)
{
	struct idmap *m = xmalloc(sizeof(*m));

	m->cap = 64;
	m->n = 0;
	m->slot = calloc(m->cap, sizeof(*m->slot));
	if (!m->slot)
		oom_exit(m->cap * sizeof(*m->slot));
	return m;
}

static struct idmap_slot *find(const struct idmap *m, uint64_t key)
{
	size_t i = slot_of(m, key);

	while (m->slot[i].used && m->slot[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return &m->slot[i];
}

int64_t idmap_get(const struct idmap *m, uint64_t key)
{
	const struct idmap_slot *s = find(m, key);

	return s->used ? (int64_t)s->val : -1;
}

static void grow(struct idmap *m)
{
	struct idmap_slot *old = m->slot;
	size_t i, cap = m->cap;

	m->cap *= 2;
	m->slot = calloc(m->cap, sizeof(*m->slot));
	if (!m->slot)
		oom_exit(m->cap * sizeof(*m->slot));
	for (i = 0; i < cap; i++)
		if (old[i].used)
			*find(m, old[i].key) = old[i];
	free(old);
}

void idmap_set(struct idmap *m, uint64_t key, uint32_t val)
{
	struct idmap_slot *s;

	if (2 * (m->n + 1) > m->cap)
		grow(m);
	s = find(m, key);
	if (!s->used) {
		s->used = 1;
		s->key = key;
		m->n++;
	}
	s->val = val;
}

void idmap_free(struct idmap *m)
{
	if (!m)
		return;
	free(m->slot);
	free(m);
}
