/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: the shape every adapter module shares, so that an adapter
 * file holds its tracepoint table and its translation, nothing else.
 */

/**
 * DOC: Writing an adapter
 *
 * An adapter is one file.  It includes its driver's trace header (without
 * ``CREATE_TRACE_POINTS``), writes one probe per tracepoint, and lists
 * them once::
 *
 *	static struct grtrace_tp foo_tps[] = {
 *		GRTRACE_TP(foo_job_queue, probe_queue),
 *		GRTRACE_TP(foo_job_done, probe_done),
 *	};
 *
 *	static struct grtrace_adapter_module grtrace_foo = {
 *		.adapter = GRTRACE_ADAPTER("foo", foo_tps),
 *		.rings = &foo_rings,
 *	};
 *	module_grtrace_adapter(grtrace_foo);
 *
 * GRTRACE_TP() names the tracepoint and fails to compile when the probe's
 * prototype is not the one the driver's header declares (through the
 * generated check_trace_callback_type_<tracepoint>()).
 * module_grtrace_adapter() writes the module's init and exit: the ring
 * map, the claim of the map's @claimer, the adapter's own @setup, then
 * the probes attached by name; undone in reverse on failure and at exit.
 *
 * A probe starts with grtrace_probe_ring() (nothing while tracing is
 * stopped; else the hit counted, the ring looked up, a miss counted when
 * there is none) and registers an object it has not seen with
 * grtrace_ring_map_register().
 */
#ifndef _GRTRACE_ADAPTER_H
#define _GRTRACE_ADAPTER_H

#include <linux/device/driver.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/grtrace.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/stringify.h>

/*
 * 0, as a constant expression, where a probe of function type @_fn has
 * the prototype of tracepoint @_tp; a compile error where it has not.
 * Only types are looked at: the check function that the trace header
 * declares is never called.
 */
#define GRTRACE_TP_CHECK(_tp, _fn)					\
	(0 * sizeof((__PASTE(check_trace_callback_type_, _tp)		\
		     ((typeof(_fn) *)NULL), 0)))

/**
 * GRTRACE_TP() - one entry of an adapter's table, type-checked
 * @_tp: the tracepoint, as a name (or a macro that expands to one)
 * @_probe: its probe, a function ``void probe(void *data, <TP_PROTO>)``
 */
#define GRTRACE_TP(_tp, _probe) \
	GRTRACE_TP_DATA(_tp, _probe, NULL)

/**
 * GRTRACE_TP_DATA() - GRTRACE_TP() with data for the probe
 * @_tp: the tracepoint, as a name (or a macro that expands to one)
 * @_probe: its probe, a function ``void probe(void *data, <TP_PROTO>)``
 * @_data: what the probe finds in the @data of its struct grtrace_tp
 */
#define GRTRACE_TP_DATA(_tp, _probe, _data)				\
	__GRTRACE_TP_DATA(_tp, _probe, _data)

/* @_tp expanded (GRTRACE_TP_DATA()'s argument), so that ## may paste it. */
#define __GRTRACE_TP_DATA(_tp, _probe, _data) {			\
	.name = #_tp + GRTRACE_TP_CHECK(_tp, typeof(_probe)),		\
	.probe = (_probe),						\
	.data = (_data),						\
	GRTRACE_TP_TYPED(__tracepoint_##_tp)				\
}

/**
 * GRTRACE_TP_ALT() - an entry that attaches to either of two tracepoints
 * @_tp: the tracepoint, as a name (or a macro that expands to one)
 * @_probe: its probe
 * @_alt: the tracepoint of the same event under another name, which a
 *	kernel has instead of @_tp
 * @_alt_probe: its probe
 *
 * For a build that cannot tell which of the two names the kernel gives
 * an event: the entry attaches to the first tracepoint of either name
 * (struct grtrace_tp, @alt_name).  Each probe is type-checked against its
 * tracepoint's declaration.  Not for an adapter built with
 * GRTRACE_ADAPTER_TYPED, whose entries attach by symbol.
 */
#define GRTRACE_TP_ALT(_tp, _probe, _alt, _alt_probe)			\
	__GRTRACE_TP_ALT(_tp, _probe, _alt, _alt_probe)

#define __GRTRACE_TP_ALT(_tp, _probe, _alt, _alt_probe) {		\
	.name = #_tp + GRTRACE_TP_CHECK(_tp, typeof(_probe)),		\
	.probe = (_probe),						\
	.alt_name = #_alt + GRTRACE_TP_CHECK(_alt, typeof(_alt_probe)), \
	.alt_probe = (_alt_probe),					\
}

/*
 * An adapter whose driver exports its tracepoints (in a kernel tree with
 * the exports, built in-tree) is built with GRTRACE_ADAPTER_TYPED: its
 * entries then name the tracepoint by its symbol, and grtrace attaches
 * to it as register_trace_<tracepoint>() does, with no lookup by name.
 */
#ifdef GRTRACE_ADAPTER_TYPED
#define GRTRACE_TP_TYPED(_sym)	.typed = &(_sym),
#else
#define GRTRACE_TP_TYPED(_sym)
#endif

/**
 * GRTRACE_ADAPTER() - a struct grtrace_adapter for a table of GRTRACE_TP()s
 * @_name: the adapter's name in the ``adapters`` file
 * @_tps: the table, an array
 */
#define GRTRACE_ADAPTER(_name, _tps) {					\
	.name = (_name),						\
	.tps = (_tps),							\
	/* ARRAY_SIZE(), spelt so that checkpatch sees one use of _tps */ \
	.nr_tps = sizeof(_tps) / sizeof((_tps)[0]) + __must_be_array(_tps), \
	.absent = GRTRACE_ADAPTER_ABSENT,				\
}

/**
 * struct grtrace_adapter_module - an adapter module, for module_grtrace_adapter()
 * @adapter: the adapter, from GRTRACE_ADAPTER()
 * @rings: its ring map.  If the map has a @claimer, the module claims that
 *	driver (grtrace_claim_driver()) while it is loaded.
 * @setup: NULL, or what the probes need beyond the ring map; runs before
 *	they are attached.  Returns 0 or a negative errno.
 * @teardown: NULL, or the undoing of @setup; runs once no probe runs any
 *	more, before the claim is released and the map destroyed
 */
struct grtrace_adapter_module {
	struct grtrace_adapter adapter;
	struct grtrace_ring_map *rings;
	int (*setup)(void);
	void (*teardown)(void);
};

/**
 * grtrace_adapter_module_init() - bring an adapter module up
 * @m: the module's adapter
 *
 * Context: module init; sleeps.
 * Return: 0, or the first error, with everything before it undone.
 */
static inline int grtrace_adapter_module_init(struct grtrace_adapter_module *m)
{
	const char *claim = m->rings->claimer;
	int ret;

	ret = grtrace_ring_map_init(m->rings);
	if (ret)
		return ret;
	if (claim) {
		ret = grtrace_claim_driver(claim);
		if (ret)
			goto err_map;
	}
	if (m->setup) {
		ret = m->setup();
		if (ret)
			goto err_claim;
	}
	ret = grtrace_adapter_register(&m->adapter);
	if (ret)
		goto err_setup;
	return 0;

err_setup:
	if (m->teardown)
		m->teardown();
err_claim:
	if (claim)
		grtrace_release_driver(claim);
err_map:
	grtrace_ring_map_destroy(m->rings);
	return ret;
}

/**
 * grtrace_adapter_module_exit() - take an adapter module down
 * @m: the module's adapter, brought up by grtrace_adapter_module_init()
 *
 * Context: module exit; sleeps.
 */
static inline void grtrace_adapter_module_exit(struct grtrace_adapter_module *m)
{
	/* Returns once no probe runs: @teardown may free what they use. */
	grtrace_adapter_unregister(&m->adapter);
	if (m->teardown)
		m->teardown();
	if (m->rings->claimer)
		grtrace_release_driver(m->rings->claimer);
	grtrace_ring_map_destroy(m->rings);
}

/**
 * module_grtrace_adapter() - the module init and exit of an adapter
 * @__m: its struct grtrace_adapter_module, by name
 *
 * Replaces module_init() and module_exit(), as module_platform_driver()
 * does for a platform driver.
 */
#define module_grtrace_adapter(__m) \
	module_driver(__m, grtrace_adapter_module_init, \
		      grtrace_adapter_module_exit)

/**
 * grtrace_probe_hit() - count a probe's hit, and a miss when it has no ring
 * @gtp: the probe's data argument
 * @ring: the ring the probe found for its object, or a negative errno
 *
 * Context: any; per-CPU increments.
 * Return: @ring.
 */
static inline int grtrace_probe_hit(struct grtrace_tp *gtp, int ring)
{
	grtrace_tp_hit(gtp);
	if (unlikely(ring < 0))
		grtrace_tp_miss(gtp);
	return ring;
}

/*
 * grtrace_probe_ring(gtp, lookup): how a probe starts.  While tracing is
 * stopped, -ENODATA, with @lookup not evaluated and nothing counted (see
 * grtrace_tracing()); else grtrace_probe_hit() of @lookup, an expression
 * giving the ring id of the probe's object or a negative errno.  A macro
 * so that @lookup costs nothing while stopped.
 */
#define grtrace_probe_ring(gtp, lookup)					\
	(grtrace_tracing() ? grtrace_probe_hit((gtp), (lookup)) : -ENODATA)

/**
 * grtrace_ring_map_id() - the ring of an object in a ring map
 * @map: the adapter's map
 * @key: the object, as for grtrace_ring_map_find()
 * @tag: its tag, as for grtrace_ring_map_find()
 *
 * Context: as grtrace_ring_map_find().
 * Return: the entry's ring id (a negative errno where its registration
 * failed or its driver is claimed), or -ENOENT: register it.
 */
static inline int grtrace_ring_map_id(struct grtrace_ring_map *map,
				      unsigned long key, unsigned long tag)
{
	struct grtrace_ring_map_entry *e = grtrace_ring_map_find(map, key, tag);

	return likely(e) ? e->ring_id : -ENOENT;
}

/**
 * grtrace_ring_map_register() - map an object to its ring, registered now
 * @map: the adapter's map, of plain entries (no @entry_size)
 * @key: the object
 * @tag: its tag
 * @owner: an address in the module that owns the object
 * @info: the ring to register
 *
 * See grtrace_ring_map_add().
 * Context: any, hard interrupts included.
 * Return: the ring id, or a negative errno.
 */
static inline int grtrace_ring_map_register(struct grtrace_ring_map *map,
					    unsigned long key,
					    unsigned long tag,
					    unsigned long owner,
					    const struct grtrace_ring_info *info)
{
	struct grtrace_ring_map_entry *e = grtrace_ring_map_entry_alloc(map);

	if (!e)
		return -ENOMEM;
	e->key = key;
	e->tag = tag;
	e->owner = owner;
	e = grtrace_ring_map_add(map, e, info);
	return IS_ERR(e) ? PTR_ERR(e) : e->ring_id;
}

#endif /* _GRTRACE_ADAPTER_H */
