/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace: GPU ring trace, the in-kernel API used by adapters and by the
 * optional modules.  The record format lives in <uapi/linux/grtrace.h>.
 */
#ifndef _LINUX_GRTRACE_H
#define _LINUX_GRTRACE_H

#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <uapi/linux/grtrace.h>

struct dentry;
struct module;
struct tracepoint;

/*
 * Ring ids are small integers, handed out lowest first; this bounds them
 * against a runaway driver, not against a busy machine.
 */
#define GRTRACE_MAX_RINGS	65536

/**
 * struct grtrace_ring_info - what an adapter tells the core about a ring
 * @driver: driver name, e.g. "amdgpu"; truncated to 15 characters
 * @device: device the ring belongs to, e.g. a PCI name; truncated to 31
 * @name: the driver's name for the ring, e.g. "gfx_0.0.0"; truncated to 23
 * @engine: enum grtrace_engine; grtrace_engine_from_name() can infer it
 * @instance: instance of the engine class on the device
 */
struct grtrace_ring_info {
	const char *driver;
	const char *device;
	const char *name;
	u16 engine;
	u16 instance;
};

int grtrace_ring_register(const struct grtrace_ring_info *info);
void grtrace_ring_unregister(int ring_id);
u16 grtrace_engine_from_name(const char *name);

void grtrace_submit(u32 ring_id, u64 ctx, u64 seqno);
void grtrace_commit(u32 ring_id, u64 ctx, u64 seqno);
void grtrace_start(u32 ring_id, u64 ctx, u64 seqno);
void grtrace_end(u32 ring_id, u64 ctx, u64 seqno);
void grtrace_complete(u32 ring_id, u64 ctx, u64 seqno);
void grtrace_ctx_switch(u32 ring_id, u64 from_ctx, u64 to_ctx);
void grtrace_irq(u32 ring_id, u64 src_id, u64 src_data);
void grtrace_sync_wait_enter(u32 ring_id, u64 ctx, u64 seqno,
			     u64 dep_ctx, u64 dep_seqno);
void grtrace_sync_wait_exit(u32 ring_id, u64 ctx, u64 seqno,
			    u64 dep_ctx, u64 dep_seqno);
void grtrace_error(u32 ring_id, u64 ctx, u64 seqno, int err, u64 reason);
void grtrace_recorder_trigger(u32 cause, u32 ring_id, u64 ctx, u64 seqno,
			      s64 error);
/* Or'ed into grtrace_job_event()'s type: see GRTRACE_HDR_DERIVED. */
#define GRTRACE_JOB_DERIVED	0x8000
/* Or'ed into a SUBMIT's type: its aux0 is a DRM client id (GRTRACE_HDR_CLIENT). */
#define GRTRACE_JOB_CLIENT	0x4000
#define GRTRACE_JOB_FLAGS	(GRTRACE_JOB_DERIVED | GRTRACE_JOB_CLIENT)
void grtrace_job_event(u16 type, u32 ring_id, u64 ctx, u64 seqno, u64 aux0,
		       u64 aux1);

/**
 * struct grtrace_tp_stats - per-CPU counters of one tracepoint of an adapter
 * @hits: times the probe ran
 * @missed: hits the adapter could not turn into events (no ring id, no
 *	memory, a claimed ring, a response that broke the pairing rule);
 *	events that were turned into calls of the event path are accounted
 *	there, not here
 */
struct grtrace_tp_stats {
	unsigned long hits;
	unsigned long missed;
};

/**
 * struct grtrace_tp - one {tracepoint, probe} pair of an adapter
 * @name: tracepoint name, e.g. "drm_run_job"
 * @probe: the probe; it must have the prototype the tracepoint expects
 *	(``void probe(void *data, <TP_PROTO>)``), which the adapter checks
 *	at compile time with check_trace_callback_type_<name>().  It is
 *	registered with this struct grtrace_tp as its @data argument, so it
 *	can count with grtrace_tp_hit() and grtrace_tp_miss() and reach
 *	@data.
 * @alt_name: NULL, or the name of another tracepoint the entry may attach
 *	to instead of @name, with @alt_probe: where a kernel may have either
 *	spelling of one event (gpu-sched renamed its tracepoints in 6.17)
 *	and the build cannot tell which, the first tracepoint of either
 *	name wins
 * @alt_probe: the probe for @alt_name, checked against it as @probe is
 *	against @name
 * @data: the adapter's own data for @probe (or @alt_probe), or NULL
 * @typed: NULL, or the tracepoint itself, where its owner exports it
 *	(EXPORT_TRACEPOINT_SYMBOL_GPL()): then @probe is attached to it at
 *	registration, as register_trace_<name>() would, with no lookup by
 *	name; the exported symbol keeps the owner loaded meanwhile
 * @tp: the tracepoint @probe (or @alt_probe: see grtrace_tp_probe())
 *	is attached to, NULL while waiting for the module that defines it;
 *	protected by the attach mutex
 * @mod: module defining @tp, NULL when built in; protected as @tp
 * @stats: per-CPU counters, allocated by grtrace_adapter_register()
 *
 * Probes run with preemption disabled, in any context the tracepoint's
 * caller is in, hard interrupts included: they must not sleep.
 */
struct grtrace_tp {
	const char *name;
	void *probe;
	const char *alt_name;
	void *alt_probe;
	void *data;
	struct tracepoint *typed;
	struct tracepoint *tp;
	struct module *mod;
	struct grtrace_tp_stats __percpu *stats;
};

/**
 * struct grtrace_adapter - a driver adapter: tracepoints attached by name
 * @name: adapter name as shown in the ``adapters`` debugfs file
 * @tps: the {tracepoint, probe} table
 * @nr_tps: entries in @tps
 * @absent: NULL, or why the driver cannot be in the kernel built against
 *	(GRTRACE_ADAPTER_ABSENT): its tracepoints not attached then show as
 *	``absent``, not ``waiting``
 * @list: entry in the list of adapters; private to grtrace
 * @nb: tracepoint module notifier; private to grtrace
 *
 * The adapter owns the memory of @tps and of itself (usually static).
 * grtrace_adapter_register() attaches every tracepoint that exists now,
 * built in or in a loaded module, and every one whose module loads later;
 * a module that unloads first has its probes detached on the way out.
 */
struct grtrace_adapter {
	const char *name;
	struct grtrace_tp *tps;
	unsigned int nr_tps;
	const char *absent;
	struct list_head list;
	struct notifier_block nb;
};

/*
 * What an adapter puts in its @absent: the build defines
 * GRTRACE_DRIVER_ABSENT (the reason) when the kernel's configuration has
 * no such driver, so that the adapter still builds, says so and can be
 * tested against tracepoints a test module defines.
 */
#ifdef GRTRACE_DRIVER_ABSENT
#define GRTRACE_ADAPTER_ABSENT	GRTRACE_DRIVER_ABSENT
#else
#define GRTRACE_ADAPTER_ABSENT	NULL
#endif

int grtrace_adapter_register(struct grtrace_adapter *adapter);
void grtrace_adapter_unregister(struct grtrace_adapter *adapter);

/**
 * struct grtrace_hook_event - an event as the optional modules see it
 * @ctx: fence context of the job
 * @seqno: fence seqno of the job
 * @aux0: type-specific, see enum grtrace_type
 * @aux1: type-specific, see enum grtrace_type
 * @ts: its timestamp, on the session's clock (for @drop, 0: not read yet)
 * @ring_id: ring of the event
 * @type: enum grtrace_type, without %GRTRACE_JOB_DERIVED
 * @engine: enum grtrace_engine of the ring
 * @live: no session runs: the event reaches the live hooks only
 * @derived: written with %GRTRACE_HDR_DERIVED: its time is that of the
 *	job's event before it, not its own
 */
struct grtrace_hook_event {
	u64 ctx;
	u64 seqno;
	u64 aux0;
	u64 aux1;
	u64 ts;
	u32 ring_id;
	u16 type;
	u16 engine;
	bool live;
	bool derived;
};

struct grtrace_hook_counts;

/**
 * struct grtrace_hook - an optional module plugged into the event path
 * @name: unique; names the hook in the debugfs file ``hooks``
 * @prio: hooks run in increasing @prio (then in registration order)
 * @drop: called before the event is written, after the core's own
 *	filters: return true to drop it.  The drop is counted as the reason
 *	``hook`` and, in ``hooks``, against @name; later hooks' @drop does
 *	not see the event.  May be NULL.
 * @observe: called once the event is written or dropped (@written says
 *	which), for every event that reached the hooks.  May be NULL.
 * @ring_released: called when a ring's id is given back (its last
 *	registration undone, as when a driver's scheduler ends): the id
 *	may name another ring next, so forget what is held for it.  Runs
 *	with interrupts off and the rings' lock held: it must not sleep
 *	nor register or unregister a ring.  May be NULL.
 * @data: passed to @drop, @observe and @ring_released
 * @live: also see events while no session runs.  While a live hook is
 *	registered the adapters produce events whether or not a session
 *	runs (grtrace_tracing() is true); out of a session each event goes
 *	to the live hooks' @observe only, with @written false, and is
 *	counted nowhere: there is no session to lose it from.
 * @node: private to grtrace
 * @counts: private to grtrace
 *
 * Both callbacks run in the event path, for every event: in any context
 * but NMI, with interrupts off.  They must not sleep, nor take a lock
 * that can (raw spinlocks only, PREEMPT_RT included), and should cost
 * little.  Once grtrace_hook_unregister() returns, neither runs again.
 */
struct grtrace_hook {
	const char *name;
	int prio;
	bool (*drop)(const struct grtrace_hook_event *ev, void *data);
	void (*observe)(const struct grtrace_hook_event *ev, bool written,
			void *data);
	void (*ring_released)(u32 ring_id, void *data);
	void *data;
	bool live;
	struct list_head node;
	struct grtrace_hook_counts __percpu *counts;
};

int grtrace_hook_register(struct grtrace_hook *hook);
void grtrace_hook_unregister(struct grtrace_hook *hook);
u64 grtrace_clock_now(void);
u64 grtrace_session_id(void);
int grtrace_write_job_summary(struct grtrace_job_summary *js);

struct grtrace_jobsum;

/**
 * enum grtrace_jobsum_verdict - what grtrace_jobsum_event() made of an event
 * @GRTRACE_JOBSUM_NONE: not a job's event (CTX_SWITCH, IRQ, ERROR)
 * @GRTRACE_JOBSUM_OPEN: held; its job has not completed
 * @GRTRACE_JOBSUM_FAST: its job completed within the threshold
 * @GRTRACE_JOBSUM_SLOW: its job completed above the threshold and was
 *	written as one JOB_SUMMARY (or counted as lost)
 */
enum grtrace_jobsum_verdict {
	GRTRACE_JOBSUM_NONE,
	GRTRACE_JOBSUM_OPEN,
	GRTRACE_JOBSUM_FAST,
	GRTRACE_JOBSUM_SLOW,
};

/**
 * struct grtrace_jobsum_stats - what a job summary table did
 * @written: JOB_SUMMARY records written
 * @lost: summaries that found the buffer full, or no session
 * @evicted: jobs given up to make room in a full table
 * @open: jobs held now
 */
struct grtrace_jobsum_stats {
	u64 written;
	u64 lost;
	u64 evicted;
	unsigned int open;
};

struct grtrace_jobsum *grtrace_jobsum_create(unsigned int nr);
void grtrace_jobsum_destroy(struct grtrace_jobsum *t);
void grtrace_jobsum_reset(struct grtrace_jobsum *t);
enum grtrace_jobsum_verdict
grtrace_jobsum_event(struct grtrace_jobsum *t,
		     const struct grtrace_hook_event *ev, u64 threshold);
void grtrace_jobsum_flush(struct grtrace_jobsum *t, u64 threshold);
void grtrace_jobsum_read(struct grtrace_jobsum *t,
			 struct grtrace_jobsum_stats *st);
u64 grtrace_path_cost(unsigned int pct, u64 *samples);
struct dentry *grtrace_debugfs_dir(void);

DECLARE_STATIC_KEY_FALSE(grtrace_tracing_key);

/**
 * grtrace_tracing() - whether events are wanted: a tracing session is
 *	running, or a live hook (struct grtrace_hook) is registered
 *
 * A probe returns at once when this is false, before counting its hit, so
 * that loaded adapters cost no more than the call of their probes while
 * tracing is stopped: no ring lookup or registration, no allocation, no
 * fence callback.  Only bookkeeping that must stay in step with the
 * driver across a start (virtio-gpu's command/response pairing) goes on.
 * A static key: a plain jump when tracing, a no-op otherwise.
 *
 * Context: any.
 * Return: true while events are wanted.
 */
static inline bool grtrace_tracing(void)
{
	return static_branch_unlikely(&grtrace_tracing_key);
}

/**
 * grtrace_tp_hit() - count one run of a probe
 * @gtp: the probe's data argument
 *
 * Context: any; a per-CPU increment, safe against interrupts.
 */
static inline void grtrace_tp_hit(struct grtrace_tp *gtp)
{
	this_cpu_inc(gtp->stats->hits);
}

/**
 * grtrace_tp_miss() - count a hit that produced no event
 * @gtp: the probe's data argument
 *
 * Context: any; a per-CPU increment, safe against interrupts.
 */
static inline void grtrace_tp_miss(struct grtrace_tp *gtp)
{
	this_cpu_inc(gtp->stats->missed);
}

/**
 * struct grtrace_pool - objects allocated in advance, for probes
 * @lock: guards the rest
 * @free: the free objects, each holding the address of the next
 * @mem: the pool's @nr objects of @size bytes
 * @size: bytes per object
 * @nr: objects in @mem
 * @used: objects of @mem taken
 * @heap: objects taken from the heap (GFP_ATOMIC) while the pool was
 *	empty; never on PREEMPT_RT
 *
 * Probes run with preemption disabled, where PREEMPT_RT's allocator may
 * sleep: they take what they keep from a pool.
 */
struct grtrace_pool {
	raw_spinlock_t lock;	/* guards the rest */
	void *free;
	void *mem;
	size_t size;
	unsigned int nr;
	unsigned int used;
	unsigned int heap;
};

int grtrace_pool_init(struct grtrace_pool *pool, size_t size, unsigned int nr);
void *grtrace_pool_get(struct grtrace_pool *pool);
void grtrace_pool_put(struct grtrace_pool *pool, void *obj);
void grtrace_pool_destroy(struct grtrace_pool *pool);

/*
 * Slots of a ring map: objects an adapter keeps at once; the one looked up
 * least recently makes room for a new one.
 */
#define GRTRACE_RING_MAP_SLOTS	128

/**
 * struct grtrace_ring_map_entry - one driver object mapped to a ring
 * @key: the object, e.g. a scheduler or a virtqueue, as an opaque number;
 *	never printed nor written to the stream
 * @tag: a second word that must match too, so that a new object at the
 *	address of a freed one is not taken for it (e.g. its name pointer)
 * @owner: an address inside the module that owns the object, e.g. its ops
 *	table; the entry goes away when that module unloads
 * @ring_id: the ring, or -EXDEV when a vendor adapter claimed the driver,
 *	or the error of a failed registration (retried a second later)
 * @claim_gen: value of the claim generation when @ring_id was decided
 * @seen: jiffies of the last lookup; of the failure, for a failed one
 * @map: the map whose pool the entry came from
 * @rcu: gives the entry back to the pool after readers are done
 *
 * Adapters that keep per-ring state embed this as the first member of
 * their own struct, whose size they set in the map's @entry_size; entries
 * come from grtrace_ring_map_entry_alloc() and go back to the map's pool.
 * Published entries are replaced, never changed but for @seen and
 * @claim_gen.  When a map is full, the entry looked up least recently
 * makes room: the object it stood for, if still alive, gets a new entry
 * (and, its ring being described the same, the same ring) when next seen.
 */
struct grtrace_ring_map_entry {
	unsigned long key;
	unsigned long tag;
	unsigned long owner;
	int ring_id;
	unsigned int claim_gen;
	unsigned long seen;
	struct grtrace_ring_map *map;
	struct rcu_head rcu;
};

/**
 * struct grtrace_ring_map - lazily registered rings of one adapter
 * @lock: serialises changes of @slot; readers use RCU
 * @claimer: driver that this map's adapter claims with
 *	grtrace_claim_driver(), or NULL.  A claimer's map holds objects of
 *	that driver only and ignores claims: its entries are decided once.
 *	Set before grtrace_ring_map_init().
 * @entry_size: size of the adapter's entries, of which a struct
 *	grtrace_ring_map_entry is the first member; 0 for a plain one.  Set
 *	before grtrace_ring_map_init().
 * @pool_size: entries to allocate in advance; 0 for twice the slots
 *	(the slots', and as many again for those waiting for readers to
 *	finish).  Set before grtrace_ring_map_init().
 * @pool: the entries, allocated by grtrace_ring_map_init()
 * @reclaim_idle: drop entries not looked up for ``ring_idle_secs`` (a
 *	module parameter of grtrace), so that the rings of objects gone
 *	without a word are unregistered.  For maps whose entries hold no
 *	state that a new entry would lose.  Set before grtrace_ring_map_init().
 * @link: in the list of maps that reclaim idle entries
 * @nr: slots in use at most; only grows
 * @nb: module notifier that drops the entries of an unloading module
 * @slot: the entries
 *
 * Lookups are lock-free, so probes in hard-interrupt context can map an
 * object to its ring without taking a lock on the hot path.
 */
struct grtrace_ring_map {
	raw_spinlock_t lock;	/* serialises changes of @slot */
	const char *claimer;
	size_t entry_size;
	unsigned int pool_size;
	struct grtrace_pool pool;
	bool reclaim_idle;
	struct list_head link;
	unsigned int nr;
	struct notifier_block nb;
	struct grtrace_ring_map_entry __rcu *slot[GRTRACE_RING_MAP_SLOTS];
};

int grtrace_ring_map_init(struct grtrace_ring_map *map);
void grtrace_ring_map_destroy(struct grtrace_ring_map *map);
struct grtrace_ring_map_entry *
grtrace_ring_map_entry_alloc(struct grtrace_ring_map *map);
struct grtrace_ring_map_entry *
grtrace_ring_map_find(struct grtrace_ring_map *map, unsigned long key,
		      unsigned long tag);
struct grtrace_ring_map_entry *
grtrace_ring_map_add(struct grtrace_ring_map *map,
		     struct grtrace_ring_map_entry *entry,
		     const struct grtrace_ring_info *info);
void grtrace_ring_map_forget(struct grtrace_ring_map *map, unsigned long key);

int grtrace_claim_driver(const char *driver);
void grtrace_release_driver(const char *driver);

#endif /* _LINUX_GRTRACE_H */
