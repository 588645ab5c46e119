// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: the ring registry.  Adapters register the rings they see and get
 * a small id back; the id goes into every event, and the table goes into
 * METADATA at each start and into a RING record when a ring appears while
 * tracing, so a reader can always name the ring of an event.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include <linux/workqueue.h>

#include "grtrace_internal.h"

/*
 * The registry is changed from any context, hard interrupts included:
 * adapters register a ring the first time a probe sees it.  So it is
 * guarded by a raw spinlock (probes run with preemption disabled, also on
 * PREEMPT_RT, where a spinlock_t sleeps) taken with interrupts disabled,
 * and nothing is allocated under it; the same holds for the claims and
 * every ring map.
 *
 * The table has no fixed size.  Next to it waits a spare of twice its
 * size, allocated in process context by a worker.  A registration that
 * finds the table full copies it into the spare and goes on there; the
 * worker then frees the old table and allocates the next spare.  Only a
 * burst that fills the spare too before the worker runs fails, with
 * -ENOSPC, and its ring map retries a second later.  The event path reads
 * only the engine class of a ring, from an RCU-published array that is
 * replaced with the table.
 */
#define GRTRACE_RINGS_INITIAL	64

struct grtrace_ring_slot {
	struct grtrace_ring_desc desc;
	unsigned int refs;	/* registrations; 0 when the id is free */
};

/* A table: its slots, and the engine classes the event path reads. */
struct grtrace_ring_table {
	struct grtrace_ring_slot *slots;
	struct grtrace_ring_engines *eng;
};

static DEFINE_RAW_SPINLOCK(grtrace_rings_lock);
/* A METADATA was written this session: new rings get a RING record. */
static bool grtrace_rings_announce;
/* Under grtrace_rings_lock: grtrace_ring_cap slots, ids below _high used. */
static struct grtrace_ring_slot *grtrace_ring_slots;
static u32 grtrace_ring_cap, grtrace_ring_high;
struct grtrace_ring_engines __rcu *grtrace_ring_engines;
/* Under grtrace_rings_lock: the next table, and the one it replaced. */
static struct grtrace_ring_table grtrace_ring_spare, grtrace_ring_retired;
/* Held by the worker, and by those who size a copy of the table. */
static DEFINE_MUTEX(grtrace_rings_grow_lock);
static void grtrace_rings_grow(struct work_struct *work);
static DECLARE_WORK(grtrace_rings_grow_work, grtrace_rings_grow);

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

/* Set the engine class of @id in the published array; lock held. */
static void grtrace_ring_set_engine(u32 id, u16 engine)
{
	struct grtrace_ring_engines *t;

	t = rcu_dereference_protected(grtrace_ring_engines,
				      lockdep_is_held(&grtrace_rings_lock));
	WRITE_ONCE(t->engine[id], engine);
}

static void grtrace_ring_table_free(struct grtrace_ring_table *t)
{
	kvfree(t->slots);
	kvfree(t->eng);
	t->slots = NULL;
	t->eng = NULL;
}

static int grtrace_ring_table_alloc(struct grtrace_ring_table *t, u32 cap)
{
	t->slots = kvcalloc(cap, sizeof(*t->slots), GFP_KERNEL);
	t->eng = kvzalloc(struct_size(t->eng, engine, cap), GFP_KERNEL);
	if (!t->slots || !t->eng) {
		grtrace_ring_table_free(t);
		return -ENOMEM;
	}
	t->eng->nr = cap;
	return 0;
}

/*
 * The table is full: move it into the spare, if there is one.  Returns
 * whether it did; the worker then frees the old table.  Lock held.
 */
static bool grtrace_rings_switch(void)
{
	struct grtrace_ring_engines *eng;
	u32 i;

	lockdep_assert_held(&grtrace_rings_lock);
	if (!grtrace_ring_spare.slots)
		return false;
	eng = rcu_dereference_protected(grtrace_ring_engines,
					lockdep_is_held(&grtrace_rings_lock));
	memcpy(grtrace_ring_spare.slots, grtrace_ring_slots,
	       grtrace_ring_cap * sizeof(*grtrace_ring_slots));
	for (i = 0; i < grtrace_ring_cap; i++)
		grtrace_ring_spare.eng->engine[i] = eng->engine[i];
	grtrace_ring_retired.slots = grtrace_ring_slots;
	grtrace_ring_retired.eng = eng;
	grtrace_ring_slots = grtrace_ring_spare.slots;
	grtrace_ring_cap = grtrace_ring_spare.eng->nr;
	rcu_assign_pointer(grtrace_ring_engines, grtrace_ring_spare.eng);
	grtrace_ring_spare.slots = NULL;
	grtrace_ring_spare.eng = NULL;
	return true;
}

/*
 * Free the table a switch retired (once the event path is done with its
 * engine array) and allocate the next spare.  Context: process (worker).
 */
static void grtrace_rings_grow(struct work_struct *work)
{
	struct grtrace_ring_table old, spare = {};
	unsigned long flags;
	u32 cap = 0;

	mutex_lock(&grtrace_rings_grow_lock);
	raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
	old = grtrace_ring_retired;
	grtrace_ring_retired.slots = NULL;
	grtrace_ring_retired.eng = NULL;
	if (!grtrace_ring_spare.slots && grtrace_ring_cap < GRTRACE_MAX_RINGS)
		cap = min_t(u32, 2 * grtrace_ring_cap, GRTRACE_MAX_RINGS);
	raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);

	if (old.slots) {
		synchronize_rcu();
		grtrace_ring_table_free(&old);
	}
	if (cap && grtrace_ring_table_alloc(&spare, cap))
		pr_warn_ratelimited("no memory for a ring table of %u rings\n",
				    cap);
	if (spare.slots) {
		/* The table does not change size without a spare. */
		raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
		grtrace_ring_spare = spare;
		raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
	}
	mutex_unlock(&grtrace_rings_grow_lock);
}

/**
 * grtrace_rings_init() - allocate the ring table and its spare
 *
 * Context: process, at module load.
 * Return: 0 or -ENOMEM.
 */
int grtrace_rings_init(void)
{
	struct grtrace_ring_table t;

	if (grtrace_ring_table_alloc(&t, GRTRACE_RINGS_INITIAL))
		return -ENOMEM;
	if (grtrace_ring_table_alloc(&grtrace_ring_spare,
				     2 * GRTRACE_RINGS_INITIAL)) {
		grtrace_ring_table_free(&t);
		return -ENOMEM;
	}
	grtrace_ring_slots = t.slots;
	grtrace_ring_cap = GRTRACE_RINGS_INITIAL;
	RCU_INIT_POINTER(grtrace_ring_engines, t.eng);
	return 0;
}

/**
 * grtrace_rings_exit() - free the ring tables
 *
 * Context: process, at module unload, after every adapter is gone.
 */
void grtrace_rings_exit(void)
{
	struct grtrace_ring_table t = {
		.slots = grtrace_ring_slots,
		.eng = rcu_dereference_protected(grtrace_ring_engines, true),
	};

	cancel_work_sync(&grtrace_rings_grow_work);
	synchronize_rcu();
	grtrace_ring_table_free(&t);
	grtrace_ring_table_free(&grtrace_ring_spare);
	grtrace_ring_table_free(&grtrace_ring_retired);
}

/**
 * grtrace_job_event() - a job event with adapter-defined detail
 * @type: %GRTRACE_EV_SUBMIT, %GRTRACE_EV_COMMIT, %GRTRACE_EV_START,
 *	%GRTRACE_EV_END or %GRTRACE_EV_COMPLETE; or'ed with
 *	%GRTRACE_JOB_DERIVED when the event is written with the one before it
 *	from the same tracepoint hit, not observed on its own; a SUBMIT
 *	or'ed with %GRTRACE_JOB_CLIENT when @aux0 is the DRM client id of
 *	the file the job was submitted through
 * @ring_id: ring of the job, from grtrace_ring_register()
 * @ctx: dma-fence context of the job
 * @seqno: dma-fence seqno of the job
 * @aux0: detail the adapter documents, e.g. a command type
 * @aux1: detail the adapter documents
 *
 * Like grtrace_submit() ... grtrace_complete(), for adapters that have
 * more to say about a job than its key; the types whose aux words the
 * stream format defines have their own functions.
 * Context: any, hard interrupts included; never sleeps.
 */
void grtrace_job_event(u16 type, u32 ring_id, u64 ctx, u64 seqno, u64 aux0,
		       u64 aux1)
{
	u16 t = type & ~GRTRACE_JOB_FLAGS;

	/* Not a type of this function: counted as invalid, not lost. */
	if (WARN_ON_ONCE(t < GRTRACE_EV_SUBMIT || t > GRTRACE_EV_COMPLETE))
		type = GRTRACE_EV_NR_JOB_TYPES;
	grtrace_event(type, ring_id, ctx, seqno, aux0, aux1);
}
EXPORT_SYMBOL_GPL(grtrace_job_event);

/* The id of a registered ring described as @d, or -ENOENT; lock held. */
static int grtrace_ring_lookup(const struct grtrace_ring_desc *d)
{
	const struct grtrace_ring_desc *r;
	u32 id;

	lockdep_assert_held(&grtrace_rings_lock);
	for (id = 0; id < grtrace_ring_high; id++) {
		if (!grtrace_ring_slots[id].refs)
			continue;
		r = &grtrace_ring_slots[id].desc;
		if (r->engine == d->engine && r->instance == d->instance &&
		    !strcmp(r->driver, d->driver) &&
		    !strcmp(r->device, d->device) && !strcmp(r->name, d->name))
			return id;
	}
	return -ENOENT;
}

/* The lowest free id, or -ENOSPC when the table is full; lock held. */
static int grtrace_ring_free_id(void)
{
	u32 id;

	lockdep_assert_held(&grtrace_rings_lock);
	for (id = 0; id < grtrace_ring_cap; id++)
		if (!grtrace_ring_slots[id].refs)
			return id;
	return -ENOSPC;
}

/**
 * grtrace_ring_register() - register a ring and get its id
 * @info: driver, device and ring names and the engine class
 *
 * A ring described exactly as one already registered (driver, device,
 * name, engine class and instance) is that ring: its id is returned, and
 * it stays registered until each registration is undone.  So objects a
 * driver creates and destroys all day under a few names (nouveau's
 * channels, i915's virtual engines) take a few ids, not one each.  Ids are
 * handed out lowest first, and the table grows in the background as rings
 * are added.  While tracing, a RING record describes a new ring in the
 * stream.
 * Context: any, hard interrupts included; does not sleep or allocate.
 * Return: the ring id (>= 0), -EINVAL for a bad engine class, or -ENOSPC
 * when the table is full: %GRTRACE_MAX_RINGS rings, or a burst of new
 * rings faster than the table grows (try again later).
 */
int grtrace_ring_register(const struct grtrace_ring_info *info)
{
	struct grtrace_ring_record rec = {
		.hdr.type = GRTRACE_REC_RING,
	};
	struct grtrace_ring_desc *d, want = {
		.engine = info->engine,
		.instance = info->instance,
	};
	unsigned long flags;
	bool grow = false;
	int id;

	if (info->engine >= GRTRACE_ENGINE_NR)
		return -EINVAL;
	/* Compare what would be stored: the truncated names. */
	strscpy(want.driver, info->driver ?: "", sizeof(want.driver));
	strscpy(want.device, info->device ?: "", sizeof(want.device));
	strscpy(want.name, info->name ?: "", sizeof(want.name));

	raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
	id = grtrace_ring_lookup(&want);
	if (id >= 0) {
		grtrace_ring_slots[id].refs++;
		raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
		return id;
	}
	id = grtrace_ring_free_id();
	if (id < 0) {
		/*
		 * Full: go on in the spare.  Either way the worker makes the
		 * next one (again, if it found no memory last time).
		 */
		grow = true;
		if (grtrace_rings_switch())
			id = grtrace_ring_free_id();
	}
	if (id >= 0) {
		d = &grtrace_ring_slots[id].desc;
		*d = want;
		d->ring_id = id;
		grtrace_ring_slots[id].refs = 1;
		grtrace_ring_high = max_t(u32, grtrace_ring_high, id + 1);
		grtrace_ring_set_engine(id, info->engine);

		/*
		 * Written under the lock, so a METADATA snapshot either holds
		 * the ring or precedes this record.  A full buffer is counted
		 * in ctl_dropped; the ring still exists.
		 */
		if (grtrace_rings_announce) {
			rec.ring = *d;
			grtrace_write_control(&rec, sizeof(rec));
		}
	}
	raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
	/* Not from NMI: the event path never registers rings. */
	if (grow)
		schedule_work(&grtrace_rings_grow_work);
	return id;
}
EXPORT_SYMBOL_GPL(grtrace_ring_register);

/**
 * grtrace_ring_unregister() - undo one grtrace_ring_register()
 * @ring_id: an id returned by grtrace_ring_register(); negative ids are
 *	ignored so that a failed registration needs no special case
 *
 * When the last registration of the ring is undone, its id may be handed
 * out again later; the new owner's RING record or the next METADATA tells
 * readers.
 * Context: any; does not sleep.
 */
void grtrace_ring_unregister(int ring_id)
{
	struct grtrace_ring_slot *slot;
	unsigned long flags;

	if (ring_id < 0)
		return;
	raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
	if (WARN_ON_ONCE(ring_id >= grtrace_ring_high))
		goto out;
	slot = &grtrace_ring_slots[ring_id];
	if (WARN_ON_ONCE(!slot->refs) || --slot->refs)
		goto out;
	grtrace_ring_set_engine(ring_id, GRTRACE_ENGINE_UNKNOWN);
	while (grtrace_ring_high && !grtrace_ring_slots[grtrace_ring_high - 1].refs)
		grtrace_ring_high--;
	/*
	 * Before another ring can have the id: under the lock, which its
	 * registration takes.
	 */
	grtrace_hooks_ring_released(ring_id);
out:
	raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
}
EXPORT_SYMBOL_GPL(grtrace_ring_unregister);

/*
 * Copy the registered rings into @out, room for the table's size;
 * returns how many.  Lock held.
 */
static u32 __grtrace_rings_snapshot(struct grtrace_ring_desc *out)
{
	u32 n = 0, id;

	lockdep_assert_held(&grtrace_rings_lock);
	for (id = 0; id < grtrace_ring_high; id++)
		if (grtrace_ring_slots[id].refs)
			out[n++] = grtrace_ring_slots[id].desc;
	return n;
}

/*
 * A buffer of @extra bytes plus a ring description per slot the table can
 * have until the worker runs: the spare's, if there is one.  The caller
 * holds grtrace_rings_grow_lock, so no new spare comes meanwhile.
 */
static void *grtrace_rings_room(size_t extra)
{
	unsigned long flags;
	u32 cap;

	lockdep_assert_held(&grtrace_rings_grow_lock);
	raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
	cap = grtrace_ring_spare.eng ? grtrace_ring_spare.eng->nr :
				       grtrace_ring_cap;
	raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
	return kvzalloc(extra + (size_t)cap * sizeof(struct grtrace_ring_desc),
			GFP_KERNEL);
}

/**
 * grtrace_rings_quiesce() - stop announcing new rings in the stream
 *
 * Called when tracing stops; the next METADATA lists every ring again.
 */
void grtrace_rings_quiesce(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
	grtrace_rings_announce = false;
	raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
}

/**
 * grtrace_rings_write_metadata() - begin a session: its STREAM_INFO and METADATA
 *
 * The ring table is taken and written under the registry lock, after the
 * session's STREAM_INFO (grtrace_begin_session(), which numbers the
 * session only when this CPU's buffer takes all of its records), and from
 * then on every ring registered gets its own RING record: no ring can fall
 * between the two, and no RING record can precede the METADATA that
 * would not list it.  METADATA holds as many rings as fit one record
 * (%GRTRACE_MAX_RECORD bytes, or a sub-buffer if smaller); a RING record
 * follows for each of the others.
 * Context: grtrace_lock held; process context.
 * Return: 0; -ENOSPC, -ENOMEM or -E2BIG with nothing written and the
 * session not begun.
 */
int grtrace_rings_write_metadata(void)
{
	struct grtrace_ring_record rec = {
		.hdr.type = GRTRACE_REC_RING,
	};
	struct grtrace_metadata *md;
	size_t room = min_t(size_t, grtrace_control_room(), GRTRACE_MAX_RECORD);
	unsigned long flags;
	u32 n, fit, i;
	int ret;

	lockdep_assert_held(&grtrace_lock);
	if (room < sizeof(*md))
		return -E2BIG;
	fit = (room - sizeof(*md)) / sizeof(struct grtrace_ring_desc);
	mutex_lock(&grtrace_rings_grow_lock);
	md = grtrace_rings_room(sizeof(*md));
	if (!md) {
		mutex_unlock(&grtrace_rings_grow_lock);
		return -ENOMEM;
	}
	md->hdr.type = GRTRACE_REC_METADATA;
	md->ring_size = sizeof(struct grtrace_ring_desc);
	strscpy(md->kernel, init_utsname()->release, sizeof(md->kernel));
	raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
	n = __grtrace_rings_snapshot(md->rings);
	md->nr_rings = min(n, fit);
	ret = grtrace_begin_session(struct_size(md, rings, md->nr_rings),
				    n - md->nr_rings);
	if (!ret)
		ret = grtrace_write_control(md, struct_size(md, rings,
							    md->nr_rings));
	for (i = md->nr_rings; i < n && !ret; i++) {
		rec.ring = md->rings[i];
		ret = grtrace_write_control(&rec, sizeof(rec));
	}
	grtrace_rings_announce = !ret;
	raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
	mutex_unlock(&grtrace_rings_grow_lock);
	kvfree(md);
	return ret;
}

/**
 * grtrace_rings_metadata() - a METADATA record of every ring registered now
 * @nr: set to the number of rings in it
 *
 * For the flight recorder's snapshot, written afresh: the record is built,
 * not written, its header zero but the type, @nr_rings the whole table
 * (which the caller splits into METADATA and RING records as
 * grtrace_rings_write_metadata() does).
 * Context: process context.
 * Return: the record, to be kvfree()d, or NULL without memory.
 */
struct grtrace_metadata *grtrace_rings_metadata(u32 *nr)
{
	struct grtrace_metadata *md;
	unsigned long flags;

	mutex_lock(&grtrace_rings_grow_lock);
	md = grtrace_rings_room(sizeof(*md));
	if (md) {
		md->hdr.type = GRTRACE_REC_METADATA;
		md->ring_size = sizeof(struct grtrace_ring_desc);
		strscpy(md->kernel, init_utsname()->release,
			sizeof(md->kernel));
		raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
		*nr = __grtrace_rings_snapshot(md->rings);
		raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
		md->nr_rings = *nr;
	}
	mutex_unlock(&grtrace_rings_grow_lock);
	return md;
}

int grtrace_rings_show(struct seq_file *m)
{
	struct grtrace_ring_desc *r;
	unsigned long flags;
	u32 i, n;

	mutex_lock(&grtrace_rings_grow_lock);
	r = grtrace_rings_room(0);
	if (r) {
		raw_spin_lock_irqsave(&grtrace_rings_lock, flags);
		n = __grtrace_rings_snapshot(r);
		raw_spin_unlock_irqrestore(&grtrace_rings_lock, flags);
	}
	mutex_unlock(&grtrace_rings_grow_lock);
	if (!r)
		return -ENOMEM;
	seq_puts(m, "id engine  instance driver          device                           name\n");
	for (i = 0; i < n; i++)
		seq_printf(m, "%-2u %-7s %-8u %-15s %-32s %s\n", r[i].ring_id,
			   grtrace_engine_names[r[i].engine], r[i].instance,
			   r[i].driver, r[i].device, r[i].name);
	kvfree(r);
	return 0;
}

/*
 * Driver claims.  A vendor adapter that traces a driver's rings itself
 * claims the driver, and ring maps of other adapters (the drm_sched
 * bridge) then skip that driver's objects instead of registering a second
 * ring for the same hardware.  grtrace_claim_gen tells the maps when to
 * look again.
 */
#define GRTRACE_MAX_CLAIMS	8

static DEFINE_RAW_SPINLOCK(grtrace_claims_lock);
static char grtrace_claims[GRTRACE_MAX_CLAIMS][sizeof_field(struct grtrace_ring_desc, driver)];
static unsigned int grtrace_claim_gen;

/**
 * grtrace_claim_driver() - trace a driver's rings only through the caller
 * @driver: driver name as adapters pass it in &grtrace_ring_info.driver,
 *	e.g. "amdgpu"
 *
 * Generic adapters stop emitting events for objects of @driver from their
 * next event on; they decide per object the first time they see it after
 * the claim.  Claims do not nest: one adapter claims a driver.
 * Context: any.
 * Return: 0, -EBUSY if @driver is claimed already, -ENOSPC if
 * %GRTRACE_MAX_CLAIMS drivers are claimed, -EINVAL for an empty name.
 */
int grtrace_claim_driver(const char *driver)
{
	unsigned long flags;
	int i, free = -1, ret = 0;

	if (!driver || !*driver)
		return -EINVAL;
	raw_spin_lock_irqsave(&grtrace_claims_lock, flags);
	for (i = 0; i < GRTRACE_MAX_CLAIMS; i++) {
		if (!strcmp(grtrace_claims[i], driver)) {
			ret = -EBUSY;
			goto out;
		}
		if (free < 0 && !grtrace_claims[i][0])
			free = i;
	}
	if (free < 0) {
		ret = -ENOSPC;
		goto out;
	}
	strscpy(grtrace_claims[free], driver, sizeof(grtrace_claims[free]));
	WRITE_ONCE(grtrace_claim_gen, grtrace_claim_gen + 1);
out:
	raw_spin_unlock_irqrestore(&grtrace_claims_lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(grtrace_claim_driver);

/**
 * grtrace_release_driver() - undo grtrace_claim_driver()
 * @driver: the name given to grtrace_claim_driver()
 *
 * Context: any.
 */
void grtrace_release_driver(const char *driver)
{
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&grtrace_claims_lock, flags);
	for (i = 0; i < GRTRACE_MAX_CLAIMS; i++) {
		if (strcmp(grtrace_claims[i], driver))
			continue;
		grtrace_claims[i][0] = '\0';
		WRITE_ONCE(grtrace_claim_gen, grtrace_claim_gen + 1);
	}
	raw_spin_unlock_irqrestore(&grtrace_claims_lock, flags);
}
EXPORT_SYMBOL_GPL(grtrace_release_driver);

/* Is @driver claimed?  Stores the generation the answer belongs to. */
static bool grtrace_driver_claimed(const char *driver, unsigned int *gen)
{
	char name[sizeof_field(struct grtrace_ring_desc, driver)];
	unsigned long flags;
	bool claimed = false;
	int i;

	/* Compare what the registry would store: the truncated name. */
	strscpy(name, driver ?: "", sizeof(name));
	raw_spin_lock_irqsave(&grtrace_claims_lock, flags);
	*gen = grtrace_claim_gen;
	for (i = 0; i < GRTRACE_MAX_CLAIMS && !claimed; i++)
		claimed = name[0] && !strcmp(grtrace_claims[i], name);
	raw_spin_unlock_irqrestore(&grtrace_claims_lock, flags);
	return claimed;
}

/*
 * Ring maps.  Adapters see driver objects (schedulers, virtqueues) only
 * in their probes, so rings are registered the first time an object shows
 * up.  A map entry lives until its adapter goes or the module owning the
 * object unloads: after that module's exit nothing of it runs any more,
 * and a new object at the same address must not inherit the old ring.
 */

/* The registration of @e's ring failed (not: its driver is claimed). */
static bool grtrace_ring_map_failed(const struct grtrace_ring_map_entry *e)
{
	return e->ring_id < 0 && e->ring_id != -EXDEV;
}

/* Give @e back to its map's pool once no reader can see it. */
static void grtrace_ring_map_entry_free_rcu(struct rcu_head *head)
{
	struct grtrace_ring_map_entry *e =
		container_of(head, struct grtrace_ring_map_entry, rcu);

	grtrace_pool_put(&e->map->pool, e);
}

static void grtrace_ring_map_entry_free(struct grtrace_ring_map_entry *e)
{
	call_rcu(&e->rcu, grtrace_ring_map_entry_free_rcu);
}

/**
 * grtrace_ring_map_entry_alloc() - a zeroed entry for grtrace_ring_map_add()
 * @map: the adapter's map
 *
 * The entry is @map->entry_size bytes, from the map's pool.
 * Context: any but NMI; never sleeps.
 * Return: the entry, or NULL when the pool is empty (many objects replaced
 * within one RCU grace period) and, on PREEMPT_RT, nothing can be
 * allocated: count the event as missed.
 */
struct grtrace_ring_map_entry *
grtrace_ring_map_entry_alloc(struct grtrace_ring_map *map)
{
	struct grtrace_ring_map_entry *e = grtrace_pool_get(&map->pool);

	if (e)
		e->map = map;
	return e;
}
EXPORT_SYMBOL_GPL(grtrace_ring_map_entry_alloc);

/* A failed registration is retried a second later, not at every event. */
static bool grtrace_ring_map_retry(const struct grtrace_ring_map_entry *e)
{
	return time_after(jiffies, e->seen + HZ);
}

/**
 * grtrace_ring_map_find() - look an object up in a ring map
 * @map: the adapter's map
 * @key: the object, as given to grtrace_ring_map_add()
 * @tag: the object's tag, as given to grtrace_ring_map_add()
 *
 * Context: inside an RCU read-side critical section (a tracepoint probe
 * is one); lock-free.
 * Return: the entry, or NULL when the object is new, was replaced, the
 * claims changed since its ring was decided, or its registration failed
 * more than a second ago: call grtrace_ring_map_add().  A failed entry
 * (negative ring_id other than -EXDEV) is returned for a second.
 */
struct grtrace_ring_map_entry *
grtrace_ring_map_find(struct grtrace_ring_map *map, unsigned long key,
		      unsigned long tag)
{
	struct grtrace_ring_map_entry *e;
	unsigned long now;
	unsigned int i, nr;

	/* Pairs with the release in grtrace_ring_map_add(). */
	nr = smp_load_acquire(&map->nr);

	for (i = 0; i < nr; i++) {
		e = rcu_dereference_check(map->slot[i], rcu_read_lock_any_held());
		if (!e || e->key != key || e->tag != tag)
			continue;
		if (unlikely(grtrace_ring_map_failed(e)))
			return grtrace_ring_map_retry(e) ? NULL : e;
		/* A store only once per tick, not per event. */
		now = jiffies;
		if (READ_ONCE(e->seen) != now)
			WRITE_ONCE(e->seen, now);
		return likely(READ_ONCE(e->claim_gen) ==
			      READ_ONCE(grtrace_claim_gen) ||
			      map->claimer) ? e : NULL;
	}
	return NULL;
}
EXPORT_SYMBOL_GPL(grtrace_ring_map_find);

/*
 * Index of @key's slot, or of a free one, or else of the entry looked up
 * least recently, which is then dropped; map->lock held.
 */
static int grtrace_ring_map_slot(struct grtrace_ring_map *map,
				 unsigned long key)
{
	struct grtrace_ring_map_entry *e;
	int i, free = -1, lru = -1;
	unsigned long oldest = 0;

	lockdep_assert_held(&map->lock);
	for (i = 0; i < GRTRACE_RING_MAP_SLOTS; i++) {
		e = rcu_dereference_protected(map->slot[i],
					      lockdep_is_held(&map->lock));
		if (e && e->key == key)
			return i;
		if (!e && free < 0)
			free = i;
		if (e && (lru < 0 || time_before(READ_ONCE(e->seen), oldest))) {
			oldest = READ_ONCE(e->seen);
			lru = i;
		}
	}
	if (free >= 0)
		return free;
	e = rcu_dereference_protected(map->slot[lru],
				      lockdep_is_held(&map->lock));
	RCU_INIT_POINTER(map->slot[lru], NULL);
	grtrace_ring_unregister(e->ring_id);
	grtrace_ring_map_entry_free(e);
	return lru;
}

/*
 * Some driver's claim changed since @e's ring was decided.  If not that of
 * @e's driver, @e stays as it is, with whatever its adapter keeps in it
 * (virtio_gpu's commands in flight): stamp it with the new generation.
 * map->lock held.
 */
static bool grtrace_ring_map_still_right(struct grtrace_ring_map_entry *e,
					 const struct grtrace_ring_info *info)
{
	bool has_ring = e->ring_id >= 0;
	unsigned int gen;

	if (grtrace_driver_claimed(info->driver, &gen) == has_ring)
		return false;
	WRITE_ONCE(e->claim_gen, gen);
	return true;
}

/*
 * Decide @new's ring, in place of @old's; map->lock held.  A failed
 * registration is kept in @new too, so that it is not retried per event.
 */
static void grtrace_ring_map_decide(struct grtrace_ring_map *map,
				    struct grtrace_ring_map_entry *new,
				    struct grtrace_ring_map_entry *old,
				    const struct grtrace_ring_info *info)
{
	bool claimed = grtrace_driver_claimed(info->driver, &new->claim_gen);

	/* The claimer's own map traces the driver it claimed. */
	if (map->claimer)
		claimed = false;

	new->ring_id = claimed ? -EXDEV : grtrace_ring_register(info);
	new->seen = jiffies;
	if (old)
		grtrace_ring_unregister(old->ring_id);
}

/**
 * grtrace_ring_map_add() - map an object to a new ring
 * @map: the adapter's map
 * @entry: an entry of grtrace_ring_map_entry_alloc() with @key, @tag and
 *	@owner set; grtrace owns it from here on
 * @info: what to register for the object: the ring, and in @info->driver
 *	the driver name that claims are matched against
 *
 * Registers a ring for the object unless its driver is claimed (then the
 * entry's ring_id is -EXDEV), and publishes the entry.  If the map holds
 * an entry for the object that still stands (another CPU published it
 * first, or claims changed but not its driver's), that one is returned,
 * with what the adapter keeps in it, and @entry freed.
 * Context: any, hard interrupts included.
 * Return: the published entry, whose ring_id may be an error (e.g.
 * -ENOSPC: no ring id left), kept for a second; never an ERR_PTR today,
 * but callers check with IS_ERR().
 */
struct grtrace_ring_map_entry *
grtrace_ring_map_add(struct grtrace_ring_map *map,
		     struct grtrace_ring_map_entry *entry,
		     const struct grtrace_ring_info *info)
{
	struct grtrace_ring_map_entry *old;
	unsigned long flags;
	bool keep = false;
	int i;

	raw_spin_lock_irqsave(&map->lock, flags);
	i = grtrace_ring_map_slot(map, entry->key);
	old = rcu_dereference_protected(map->slot[i],
					lockdep_is_held(&map->lock));
	if (old && old->tag == entry->tag) {
		if (grtrace_ring_map_failed(old))
			keep = !grtrace_ring_map_retry(old);
		else
			keep = map->claimer ||
			       READ_ONCE(old->claim_gen) == READ_ONCE(grtrace_claim_gen) ||
			       grtrace_ring_map_still_right(old, info);
	}
	if (keep) {
		raw_spin_unlock_irqrestore(&map->lock, flags);
		/* Never published: no reader to wait for. */
		grtrace_pool_put(&map->pool, entry);
		return old;
	}
	grtrace_ring_map_decide(map, entry, old, info);
	rcu_assign_pointer(map->slot[i], entry);
	if (i >= map->nr) /* readers that see the new @nr see the slot */
		smp_store_release(&map->nr, i + 1);
	raw_spin_unlock_irqrestore(&map->lock, flags);
	if (old)
		grtrace_ring_map_entry_free(old);
	return entry;
}
EXPORT_SYMBOL_GPL(grtrace_ring_map_add);

/*
 * Drop the entries of objects owned by @mod, or all when @mod is NULL;
 * with @idle, only those not looked up since jiffies *@idle; with @key,
 * only that object's.
 */
static void grtrace_ring_map_drop(struct grtrace_ring_map *map,
				  struct module *mod,
				  const unsigned long *idle,
				  const unsigned long *key)
{
	struct grtrace_ring_map_entry *e;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&map->lock, flags);
	for (i = 0; i < map->nr; i++) {
		e = rcu_dereference_protected(map->slot[i],
					      lockdep_is_held(&map->lock));
		if (!e || (mod && !within_module(e->owner, mod)) ||
		    (idle && !time_before(READ_ONCE(e->seen), *idle)) ||
		    (key && e->key != *key))
			continue;
		RCU_INIT_POINTER(map->slot[i], NULL);
		grtrace_ring_unregister(e->ring_id);
		grtrace_ring_map_entry_free(e);
	}
	raw_spin_unlock_irqrestore(&map->lock, flags);
}

/**
 * grtrace_ring_map_forget() - drop the entry of an object that ends
 * @map: the adapter's map
 * @key: the object, as given to grtrace_ring_map_add()
 *
 * For adapters that see an object end while its module stays (a
 * scheduler of xe or panthor, one per queue, passes drm_sched_fini()):
 * a new object at its address, whose tag may well be the same (a name
 * in the same place), is then mapped afresh, to a ring of its own.  The
 * old ring is unregistered unless another object holds it.  Unknown
 * objects are ignored.
 * Context: any but NMI, hard interrupts included; never sleeps.
 */
void grtrace_ring_map_forget(struct grtrace_ring_map *map, unsigned long key)
{
	grtrace_ring_map_drop(map, NULL, NULL, &key);
}
EXPORT_SYMBOL_GPL(grtrace_ring_map_forget);

static int grtrace_ring_map_module(struct notifier_block *nb,
				   unsigned long state, void *data)
{
	struct grtrace_ring_map *map = container_of(nb, struct grtrace_ring_map,
						    nb);

	if (state == MODULE_STATE_GOING)
		grtrace_ring_map_drop(map, data, NULL, NULL);
	return NOTIFY_DONE;
}

/*
 * Idle reclaim.  A driver object that goes away without unloading its
 * module (a nouveau channel closed, a per-queue scheduler freed) leaves
 * its entry, and the registration of its ring, behind until the map
 * needs the room.  Maps that opt in drop, every half ring_idle_secs,
 * the entries not looked up for ring_idle_secs.  An object that was only
 * quiet gets a new entry when next seen, on the same ring if another
 * object holds it, else on a new one with its RING record.
 */
static unsigned int ring_idle_secs = 600;
static LIST_HEAD(grtrace_idle_maps);
static DEFINE_MUTEX(grtrace_idle_maps_lock);
static void grtrace_ring_map_reclaim(struct work_struct *work);
static DECLARE_DELAYED_WORK(grtrace_reclaim_work, grtrace_ring_map_reclaim);

/* The next reclaim pass, in half the idle time; none when 0. */
static void grtrace_ring_map_reclaim_arm(void)
{
	unsigned int secs = READ_ONCE(ring_idle_secs);

	lockdep_assert_held(&grtrace_idle_maps_lock);
	if (secs && !list_empty(&grtrace_idle_maps))
		mod_delayed_work(system_unbound_wq, &grtrace_reclaim_work,
				 max_t(unsigned long, HZ, secs * (HZ / 2)));
}

/* A new value takes effect at once: the next pass is rescheduled. */
static int ring_idle_secs_set(const char *val, const struct kernel_param *kp)
{
	unsigned int secs;
	int ret;

	ret = kstrtouint(val, 0, &secs);
	if (ret || secs > 7 * 24 * 3600) {
		pr_debug("ring_idle_secs=%s: want seconds, 0..604800\n", val);
		return -EINVAL;
	}
	mutex_lock(&grtrace_idle_maps_lock);
	WRITE_ONCE(ring_idle_secs, secs);
	grtrace_ring_map_reclaim_arm();
	mutex_unlock(&grtrace_idle_maps_lock);
	return 0;
}

static const struct kernel_param_ops ring_idle_secs_ops = {
	.set = ring_idle_secs_set,
	.get = param_get_uint,
};

module_param_cb(ring_idle_secs, &ring_idle_secs_ops, &ring_idle_secs, 0600);
MODULE_PARM_DESC(ring_idle_secs,
		 "Drop an object's ring mapping after this many seconds without an event (0: never; default 600)");

static void grtrace_ring_map_reclaim(struct work_struct *work)
{
	unsigned int secs = READ_ONCE(ring_idle_secs);
	unsigned long before = jiffies - secs * HZ;
	struct grtrace_ring_map *map;

	mutex_lock(&grtrace_idle_maps_lock);
	if (secs)
		list_for_each_entry(map, &grtrace_idle_maps, link)
			grtrace_ring_map_drop(map, NULL, &before, NULL);
	grtrace_ring_map_reclaim_arm();
	mutex_unlock(&grtrace_idle_maps_lock);
}

static void grtrace_ring_map_idle_add(struct grtrace_ring_map *map)
{
	mutex_lock(&grtrace_idle_maps_lock);
	list_add(&map->link, &grtrace_idle_maps);
	if (list_is_singular(&grtrace_idle_maps))
		grtrace_ring_map_reclaim_arm();
	mutex_unlock(&grtrace_idle_maps_lock);
}

static void grtrace_ring_map_idle_del(struct grtrace_ring_map *map)
{
	bool last;

	mutex_lock(&grtrace_idle_maps_lock);
	list_del(&map->link);
	last = list_empty(&grtrace_idle_maps);
	mutex_unlock(&grtrace_idle_maps_lock);
	/* The pass re-arms only while a map is listed. */
	if (last)
		cancel_delayed_work_sync(&grtrace_reclaim_work);
}

/**
 * grtrace_ring_map_init() - set up an empty ring map
 * @map: the map, zeroed (e.g. static)
 *
 * Context: process context.
 * Return: 0, -ENOMEM, or the error of register_module_notifier().
 */
int grtrace_ring_map_init(struct grtrace_ring_map *map)
{
	size_t size = max(map->entry_size,
			  sizeof(struct grtrace_ring_map_entry));
	int ret;

	raw_spin_lock_init(&map->lock);
	ret = grtrace_pool_init(&map->pool, size,
				map->pool_size ?: 2 * GRTRACE_RING_MAP_SLOTS);
	if (ret)
		return ret;
	map->nb.notifier_call = grtrace_ring_map_module;
	ret = register_module_notifier(&map->nb);
	if (ret) {
		grtrace_pool_destroy(&map->pool);
		return ret;
	}
	if (map->reclaim_idle)
		grtrace_ring_map_idle_add(map);
	return 0;
}
EXPORT_SYMBOL_GPL(grtrace_ring_map_init);

/**
 * grtrace_ring_map_destroy() - unregister every ring of a map, free it all
 * @map: a map set up by grtrace_ring_map_init()
 *
 * Context: process context, after the adapter's probes are detached and
 * tracepoint_synchronize_unregister() returned, so no reader is left.
 */
void grtrace_ring_map_destroy(struct grtrace_ring_map *map)
{
	if (map->reclaim_idle)
		grtrace_ring_map_idle_del(map);
	unregister_module_notifier(&map->nb);
	grtrace_ring_map_drop(map, NULL, NULL, NULL);
	/* The entries dropped go back to the pool after a grace period. */
	rcu_barrier();
	grtrace_pool_destroy(&map->pool);
}
EXPORT_SYMBOL_GPL(grtrace_ring_map_destroy);
