// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: object pools for probes.  A probe runs with preemption
 * disabled, and on PREEMPT_RT the slab allocator may sleep there; so what
 * a probe needs to keep (a ring map entry, a pending wait) comes from a
 * pool filled in process context.  Elsewhere an empty pool falls back to
 * GFP_ATOMIC; on PREEMPT_RT the caller gets nothing and counts a miss.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/grtrace.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

/**
 * grtrace_pool_init() - fill a pool
 * @pool: the pool, zeroed
 * @size: bytes per object
 * @nr: objects
 *
 * Context: process.
 * Return: 0 or -ENOMEM.
 */
int grtrace_pool_init(struct grtrace_pool *pool, size_t size, unsigned int nr)
{
	unsigned int i;

	raw_spin_lock_init(&pool->lock);
	pool->size = ALIGN(max(size, sizeof(void *)), sizeof(void *));
	pool->mem = kvcalloc(nr, pool->size, GFP_KERNEL);
	if (!pool->mem)
		return -ENOMEM;
	pool->nr = nr;
	/* Each free object holds the address of the next in its first word. */
	for (i = nr; i-- > 0;) {
		void **obj = pool->mem + i * pool->size;

		*obj = pool->free;
		pool->free = obj;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(grtrace_pool_init);

/**
 * grtrace_pool_get() - take a zeroed object
 * @pool: a pool set up by grtrace_pool_init()
 *
 * Context: any but NMI; never sleeps.
 * Return: the object, or NULL when the pool is empty and the kernel is
 * PREEMPT_RT or GFP_ATOMIC failed.
 */
void *grtrace_pool_get(struct grtrace_pool *pool)
{
	unsigned long flags;
	void **obj;

	raw_spin_lock_irqsave(&pool->lock, flags);
	obj = pool->free;
	if (obj) {
		pool->free = *obj;
		pool->used++;
	}
	raw_spin_unlock_irqrestore(&pool->lock, flags);
	if (obj) {
		memset(obj, 0, pool->size);
		return obj;
	}
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return NULL;
	obj = kzalloc(pool->size, GFP_ATOMIC | __GFP_NOWARN);
	if (obj) {
		raw_spin_lock_irqsave(&pool->lock, flags);
		pool->heap++;
		raw_spin_unlock_irqrestore(&pool->lock, flags);
	}
	return obj;
}
EXPORT_SYMBOL_GPL(grtrace_pool_get);

static bool grtrace_pool_owns(const struct grtrace_pool *pool, const void *obj)
{
	return obj >= pool->mem && obj < pool->mem + pool->nr * pool->size;
}

/**
 * grtrace_pool_put() - give back an object of grtrace_pool_get()
 * @pool: its pool
 * @obj: the object, or NULL
 *
 * Context: any but NMI; never sleeps.
 */
void grtrace_pool_put(struct grtrace_pool *pool, void *obj)
{
	unsigned long flags;

	if (!obj)
		return;
	if (!grtrace_pool_owns(pool, obj)) {
		kfree(obj);
		raw_spin_lock_irqsave(&pool->lock, flags);
		pool->heap--;
		raw_spin_unlock_irqrestore(&pool->lock, flags);
		return;
	}
	raw_spin_lock_irqsave(&pool->lock, flags);
	*(void **)obj = pool->free;
	pool->free = obj;
	pool->used--;
	raw_spin_unlock_irqrestore(&pool->lock, flags);
}
EXPORT_SYMBOL_GPL(grtrace_pool_put);

/**
 * grtrace_pool_destroy() - free a pool
 * @pool: a pool set up by grtrace_pool_init(), or zeroed
 *
 * Every object must have been given back; one that was not is reported
 * and its memory (if from the pool) freed with the pool.
 * Context: process.
 */
void grtrace_pool_destroy(struct grtrace_pool *pool)
{
	WARN_ONCE(pool->used || pool->heap,
		  "grtrace: a pool freed with %u objects taken\n",
		  pool->used + pool->heap);
	kvfree(pool->mem);
	pool->mem = NULL;
	pool->free = NULL;
}
EXPORT_SYMBOL_GPL(grtrace_pool_destroy);
