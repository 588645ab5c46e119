// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: the ring registry.  Adapters register the rings they see and get
 * a small id back; the id goes into every event, and the table goes into
 * METADATA at each start and into a RING record when a ring appears while
 * tracing, so a reader can always name the ring of an event.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/utsname.h>

#include "grtrace_internal.h"

/*
 * Slots are written under grtrace_lock.  The event path only reads
 * grtrace_ring_engines[], one u16 per ring, with READ_ONCE().
 */
static struct grtrace_ring_desc grtrace_rings[GRTRACE_MAX_RINGS];
static DECLARE_BITMAP(grtrace_ring_used, GRTRACE_MAX_RINGS);
static u16 grtrace_ring_engines[GRTRACE_MAX_RINGS];

static const char * const grtrace_engine_names[GRTRACE_ENGINE_NR] = {
	[GRTRACE_ENGINE_UNKNOWN]	= "unknown",
	[GRTRACE_ENGINE_GFX]		= "gfx",
	[GRTRACE_ENGINE_COMPUTE]	= "compute",
	[GRTRACE_ENGINE_COPY]		= "copy",
	[GRTRACE_ENGINE_VIDEO]		= "video",
	[GRTRACE_ENGINE_DISPLAY]	= "display",
	[GRTRACE_ENGINE_CONTROL]	= "control",
};

/* Name fragments drivers use for their rings, most specific first. */
static const struct {
	const char *part;
	u16 engine;
} grtrace_engine_hints[] = {
	{ "sdma", GRTRACE_ENGINE_COPY },
	{ "copy", GRTRACE_ENGINE_COPY },
	{ "blit", GRTRACE_ENGINE_COPY },
	{ "bcs", GRTRACE_ENGINE_COPY },
	{ "dma", GRTRACE_ENGINE_COPY },
	{ "comp", GRTRACE_ENGINE_COMPUTE },
	{ "ccs", GRTRACE_ENGINE_COMPUTE },
	{ "kiq", GRTRACE_ENGINE_COMPUTE },
	{ "vcn", GRTRACE_ENGINE_VIDEO },
	{ "uvd", GRTRACE_ENGINE_VIDEO },
	{ "vce", GRTRACE_ENGINE_VIDEO },
	{ "jpeg", GRTRACE_ENGINE_VIDEO },
	{ "vcs", GRTRACE_ENGINE_VIDEO },
	{ "vecs", GRTRACE_ENGINE_VIDEO },
	{ "video", GRTRACE_ENGINE_VIDEO },
	{ "cursor", GRTRACE_ENGINE_DISPLAY },
	{ "display", GRTRACE_ENGINE_DISPLAY },
	{ "control", GRTRACE_ENGINE_CONTROL },
	{ "gfx", GRTRACE_ENGINE_GFX },
	{ "rcs", GRTRACE_ENGINE_GFX },
	{ "render", GRTRACE_ENGINE_GFX },
	{ "3d", GRTRACE_ENGINE_GFX },
};

/**
 * grtrace_engine_from_name() - infer the engine class from a ring name
 * @name: the driver's name for the ring, e.g. "comp_1.0.1" or "vcs0"
 *
 * Return: an enum grtrace_engine; %GRTRACE_ENGINE_UNKNOWN when the name
 * gives no hint, which is an honest answer rather than a guess.
 */
u16 grtrace_engine_from_name(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(grtrace_engine_hints); i++)
		if (strstr(name, grtrace_engine_hints[i].part))
			return grtrace_engine_hints[i].engine;
	return GRTRACE_ENGINE_UNKNOWN;
}
EXPORT_SYMBOL_GPL(grtrace_engine_from_name);

u16 grtrace_ring_engine(u32 ring_id)
{
	if (ring_id >= GRTRACE_MAX_RINGS)
		return GRTRACE_ENGINE_UNKNOWN;
	return READ_ONCE(grtrace_ring_engines[ring_id]);
}

/**
 * grtrace_ring_register() - register a ring and get its id
 * @info: driver, device and ring names and the engine class
 *
 * While tracing, a RING record describes the new ring in the stream.
 * Context: process context; takes grtrace_lock.
 * Return: the ring id (>= 0), -EINVAL for a bad engine class, or -ENOSPC
 * when %GRTRACE_MAX_RINGS rings are registered.
 */
int grtrace_ring_register(const struct grtrace_ring_info *info)
{
	struct grtrace_ring_record rec = {
		.hdr.type = GRTRACE_REC_RING,
	};
	struct grtrace_ring_desc *d;
	int id;

	if (info->engine >= GRTRACE_ENGINE_NR)
		return -EINVAL;

	mutex_lock(&grtrace_lock);
	id = find_first_zero_bit(grtrace_ring_used, GRTRACE_MAX_RINGS);
	if (id == GRTRACE_MAX_RINGS) {
		mutex_unlock(&grtrace_lock);
		return -ENOSPC;
	}
	d = &grtrace_rings[id];
	memset(d, 0, sizeof(*d));
	d->ring_id = id;
	d->engine = info->engine;
	d->instance = info->instance;
	strscpy(d->driver, info->driver ?: "", sizeof(d->driver));
	strscpy(d->device, info->device ?: "", sizeof(d->device));
	strscpy(d->name, info->name ?: "", sizeof(d->name));
	set_bit(id, grtrace_ring_used);
	WRITE_ONCE(grtrace_ring_engines[id], info->engine);

	/* A full buffer is counted in ctl_dropped; the ring still exists. */
	if (grtrace_enabled) {
		rec.ring = *d;
		grtrace_write_control(&rec, sizeof(rec));
	}
	mutex_unlock(&grtrace_lock);
	return id;
}
EXPORT_SYMBOL_GPL(grtrace_ring_register);

/**
 * grtrace_ring_unregister() - give a ring id back
 * @ring_id: an id returned by grtrace_ring_register(); negative ids are
 *	ignored so that a failed registration needs no special case
 *
 * The id may be handed out again later; the new owner's RING record or the
 * next METADATA tells readers.
 * Context: process context; takes grtrace_lock.
 */
void grtrace_ring_unregister(int ring_id)
{
	if (ring_id < 0 || ring_id >= GRTRACE_MAX_RINGS)
		return;
	mutex_lock(&grtrace_lock);
	WRITE_ONCE(grtrace_ring_engines[ring_id], GRTRACE_ENGINE_UNKNOWN);
	clear_bit(ring_id, grtrace_ring_used);
	mutex_unlock(&grtrace_lock);
}
EXPORT_SYMBOL_GPL(grtrace_ring_unregister);

/**
 * grtrace_rings_write_metadata() - write the METADATA record
 *
 * Context: grtrace_lock held; process context.
 * Return: 0 or the error of grtrace_write_control().
 */
int grtrace_rings_write_metadata(void)
{
	struct grtrace_metadata *md;
	unsigned int n = 0;
	size_t size;
	int id, ret;

	lockdep_assert_held(&grtrace_lock);
	size = struct_size(md, rings, GRTRACE_MAX_RINGS);
	md = kzalloc(size, GFP_KERNEL);
	if (!md)
		return -ENOMEM;
	for_each_set_bit(id, grtrace_ring_used, GRTRACE_MAX_RINGS)
		md->rings[n++] = grtrace_rings[id];
	md->hdr.type = GRTRACE_REC_METADATA;
	md->nr_rings = n;
	md->ring_size = sizeof(struct grtrace_ring_desc);
	strscpy(md->kernel, init_utsname()->release, sizeof(md->kernel));
	ret = grtrace_write_control(md, struct_size(md, rings, n));
	kfree(md);
	return ret;
}

void grtrace_rings_show(struct seq_file *m)
{
	int id;

	mutex_lock(&grtrace_lock);
	seq_puts(m, "id engine  instance driver          device                           name\n");
	for_each_set_bit(id, grtrace_ring_used, GRTRACE_MAX_RINGS) {
		const struct grtrace_ring_desc *d = &grtrace_rings[id];

		seq_printf(m, "%-2u %-7s %-8u %-15s %-32s %s\n", d->ring_id,
			   grtrace_engine_names[d->engine], d->instance,
			   d->driver, d->device, d->name);
	}
	mutex_unlock(&grtrace_lock);
}
