// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: settings and their key=value parser.  No I/O here: the debugfs
 * files in grtrace_control.c hand over a kernel copy of the user's text.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/cpu.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "grtrace_compat.h"
#include "grtrace_internal.h"

struct grtrace_config grtrace_cfg;

/*
 * Counters as they were at the last reset_stats; under grtrace_lock.
 * Allocated, not static: see struct grtrace_pcpu_cold.
 */
static struct grtrace_counters __percpu *grtrace_base;
static u64 grtrace_reset_at;	/* second of the last reset, for sec_stats */

const char * const grtrace_drop_names[GRTRACE_NR_DROPS] = {
	[GRTRACE_DROP_DISABLED]		= "disabled",
	[GRTRACE_DROP_LEVEL]		= "level",
	[GRTRACE_DROP_FILTERED_TYPE]	= "filtered_type",
	[GRTRACE_DROP_FILTERED_ENGINE]	= "filtered_engine",
	[GRTRACE_DROP_FILTERED_RING]	= "filtered_ring",
	[GRTRACE_DROP_FILTERED_WATCH]	= "filtered_watch",
	[GRTRACE_DROP_HOOK]		= "hook",
	[GRTRACE_DROP_SAMPLED]		= "sampled",
	[GRTRACE_DROP_RATE_LIMITED]	= "rate_limited",
	[GRTRACE_DROP_BACKPRESSURE]	= "backpressure",
	[GRTRACE_DROP_BUFFER_FULL]	= "buffer_full",
	[GRTRACE_DROP_OVERSIZE]		= "oversize",
	[GRTRACE_DROP_NMI]		= "nmi",
	[GRTRACE_DROP_NESTED]		= "nested",
	[GRTRACE_DROP_INVALID]		= "invalid",
	[GRTRACE_DROP_FROZEN]		= "frozen",
};

/* Value names, indexed by value, NULL-terminated. */
static const char * const level_names[] = { "off", "normal", "verbose", NULL };
static const char * const clock_names[] = { "monotonic", "boottime", NULL };
static const char * const rl_mode_names[] = { "window", "token_bucket", NULL };
static const char * const watch_mode_names[] = { "allow", "deny", NULL };
static const char * const watch_combine_names[] = { "and", "or", NULL };
static const char * const gseq_names[] = { "1", "0", NULL };

#define GRTRACE_ENGINE_MASK_ALL	(BIT(GRTRACE_ENGINE_NR) - 1)
#define GRTRACE_MAX_RATE	100000000

/**
 * grtrace_config_derive() - derive the event path's sets of types
 *
 * The event types no filter can drop, on any engine, ring or context
 * (none when a filter selects by anything but type and level); of those
 * the ones that are also in their sample and under their rate and stamped
 * with the monotonic clock: for those the event path looks at no setting
 * one by one; and of those, while a session runs in format 2 without gseq,
 * latency measurement or backpressure, the ones grtrace_event() writes on
 * its fast path.  And the types whose sampling or rate limit the full
 * path asks before it masks interrupts.
 *
 * Context: grtrace_lock held (or loading), after every change of a
 * setting or of grtrace_enabled.
 */
void grtrace_config_derive(void)
{
	const struct grtrace_config *c = &grtrace_cfg;
	u32 types = c->filter_type_mask;
	bool pct, every;

	if (c->level == GRTRACE_LEVEL_OFF ||
	    c->filter_engine_mask != GRTRACE_ENGINE_MASK_ALL ||
	    c->filter_ring_id >= 0 || c->watch_rings ||
	    rcu_access_pointer(c->watch_ctx))
		types = 0;
	else if (c->level < GRTRACE_LEVEL_VERBOSE)
		types &= ~GRTRACE_VERBOSE_TYPES;
	WRITE_ONCE(grtrace_cfg.unfiltered_types, types);
	if (c->sample < 100 || c->sample_every > 1 || c->max_eps ||
	    c->clock != GRTRACE_CLK_MONOTONIC)
		types = 0;
	/* The flight recorder's ERROR trigger is on the full path only. */
	if (grtrace_rec_on)
		types &= ~BIT(GRTRACE_EV_ERROR);
	WRITE_ONCE(grtrace_cfg.plain_types, types);
	if (!grtrace_enabled || c->format == GRTRACE_FORMAT_V1 ||
	    !c->no_gseq || c->measure_latency || c->bp_threshold)
		types = 0;
	/* Its drops count with the quick ones (grtrace_event_fast()). */
	types &= GENMASK(GRTRACE_QUICK_TYPES - 1, 0);
	WRITE_ONCE(grtrace_cfg.fast_types, types);
	/* One of the sampling settings, or a rate limit: grtrace_decide(). */
	pct = c->sample < 100;
	every = c->sample_every > 1;
	types = pct != every || c->max_eps ? c->filter_type_mask : 0;
	WRITE_ONCE(grtrace_cfg.state_types, types);
}

static void grtrace_config_defaults(void)
{
	grtrace_cfg.level = GRTRACE_LEVEL_NORMAL;
	grtrace_cfg.clock = GRTRACE_CLK_MONOTONIC;
	grtrace_cfg.filter_type_mask = U32_MAX;
	grtrace_cfg.filter_engine_mask = GRTRACE_ENGINE_MASK_ALL;
	grtrace_cfg.filter_ring_id = -1;
	grtrace_cfg.sample = 100;
	grtrace_cfg.format = GRTRACE_FORMAT_VERSION;
	/* gseq is a cache line every CPU writes per event: opt-in. */
	grtrace_cfg.no_gseq = 1;
	grtrace_config_derive();
}

/*
 * A write is parsed into a staged copy of the settings and published only
 * when every line of it parsed, so a bad write changes nothing.
 */
struct grtrace_stage {
	struct grtrace_config cfg;
	u64 ctx[GRTRACE_WATCH_MAX];
	u32 nr_ctx;
	bool ctx_dirty;
	bool reset_stats;
};

enum grtrace_key_kind { KEY_UINT, KEY_MASK, KEY_SINT, KEY_ENUM, KEY_FN };

/**
 * struct grtrace_key - one config key
 * @name: the key
 * @kind: how the value is parsed and shown
 * @off: offset of the u32/s32 field in struct grtrace_config
 * @min: smallest value accepted
 * @max: largest value accepted (for KEY_MASK: every bit allowed; for a
 *	KEY_ENUM, the largest number taken for a name, 0 for names only)
 * @names: value names of a KEY_ENUM, indexed by value, NULL-terminated
 * @set: for KEY_FN, applies @val to the stage or returns -EINVAL
 * @show: for KEY_FN, prints "key=value" lines, or NULL for actions
 */
struct grtrace_key {
	const char *name;
	enum grtrace_key_kind kind;
	size_t off;
	s64 min, max;
	const char * const *names;
	int (*set)(struct grtrace_stage *st, const char *val);
	void (*show)(struct seq_file *m);
};

static u32 *stage_field(struct grtrace_stage *st, const struct grtrace_key *k)
{
	return (u32 *)((char *)&st->cfg + k->off);
}

static int set_reset_stats(struct grtrace_stage *st, const char *val)
{
	if (*val && strcmp(val, "1"))
		return -EINVAL;
	st->reset_stats = true;
	return 0;
}

static int parse_ctx(const char *val, u64 *ctx)
{
	return kstrtou64(val, 0, ctx) ? -EINVAL : 0;
}

static int stage_ctx_find(struct grtrace_stage *st, u64 ctx)
{
	u32 i;

	for (i = 0; i < st->nr_ctx; i++)
		if (st->ctx[i] == ctx)
			return i;
	return -1;
}

static int set_watch_ctx_add(struct grtrace_stage *st, const char *val)
{
	u64 ctx;

	if (parse_ctx(val, &ctx))
		return -EINVAL;
	if (stage_ctx_find(st, ctx) >= 0)
		return 0;
	if (st->nr_ctx == GRTRACE_WATCH_MAX)
		return -EINVAL;
	st->ctx[st->nr_ctx++] = ctx;
	st->ctx_dirty = true;
	return 0;
}

static int set_watch_ctx_del(struct grtrace_stage *st, const char *val)
{
	u64 ctx;
	int i;

	if (parse_ctx(val, &ctx))
		return -EINVAL;
	i = stage_ctx_find(st, ctx);
	if (i < 0)
		return -EINVAL;
	st->ctx[i] = st->ctx[--st->nr_ctx];
	st->ctx_dirty = true;
	return 0;
}

static int set_watch_ctx_clear(struct grtrace_stage *st, const char *val)
{
	if (*val)
		return -EINVAL;
	st->nr_ctx = 0;
	st->ctx_dirty = true;
	return 0;
}

static int parse_ring(const char *val, u32 *ring)
{
	if (kstrtou32(val, 0, ring))
		return -EINVAL;
	if (*ring >= GRTRACE_WATCH_RINGS) {
		pr_debug("watch_ring: ring %u: only rings 0..%d can be watched\n",
			 *ring, GRTRACE_WATCH_RINGS - 1);
		return -EINVAL;
	}
	return 0;
}

static int set_watch_ring_add(struct grtrace_stage *st, const char *val)
{
	u32 ring;

	if (parse_ring(val, &ring))
		return -EINVAL;
	st->cfg.watch_rings |= BIT_ULL(ring);
	return 0;
}

static int set_watch_ring_del(struct grtrace_stage *st, const char *val)
{
	u32 ring;

	if (parse_ring(val, &ring) || !(st->cfg.watch_rings & BIT_ULL(ring)))
		return -EINVAL;
	st->cfg.watch_rings &= ~BIT_ULL(ring);
	return 0;
}

static int set_watch_ring_clear(struct grtrace_stage *st, const char *val)
{
	if (*val)
		return -EINVAL;
	st->cfg.watch_rings = 0;
	return 0;
}

static const struct grtrace_watch_ctx *grtrace_watch_ctx_locked(void)
{
	return rcu_dereference_protected(grtrace_cfg.watch_ctx,
					 lockdep_is_held(&grtrace_lock));
}

static void show_watch_ctx(struct seq_file *m)
{
	const struct grtrace_watch_ctx *wc = grtrace_watch_ctx_locked();
	u32 i;

	seq_printf(m, "watch_count=%u\nwatch_ctx=", wc ? wc->nr : 0);
	for (i = 0; wc && i < wc->nr; i++)
		seq_printf(m, "%s%llu", i ? "," : "", wc->ctx[i]);
	seq_putc(m, '\n');
}

static void show_watch_rings(struct seq_file *m)
{
	u64 rings = grtrace_cfg.watch_rings;
	bool first = true;
	int r;

	seq_printf(m, "watch_ring_count=%u\nwatch_ring=",
		   (unsigned int)hweight64(rings));
	for (r = 0; r < GRTRACE_WATCH_RINGS; r++)
		if (rings & BIT_ULL(r)) {
			seq_printf(m, "%s%d", first ? "" : ",", r);
			first = false;
		}
	seq_putc(m, '\n');
}

#define U32_KEY(_name, _field, _min, _max) \
	{ .name = _name, .kind = KEY_UINT, \
	  .off = offsetof(struct grtrace_config, _field), \
	  .min = _min, .max = _max }
#define MASK_KEY(_name, _field, _mask) \
	{ .name = _name, .kind = KEY_MASK, \
	  .off = offsetof(struct grtrace_config, _field), .max = _mask }
#define ENUM_KEY(_name, _field, _names) \
	{ .name = _name, .kind = KEY_ENUM, \
	  .off = offsetof(struct grtrace_config, _field), \
	  .names = _names }
/*
 * An enum the reference interface also sets by number: 0 is the first name,
 * and so on; numbers past the last name, up to @_max, mean the last one.
 */
#define NUM_ENUM_KEY(_name, _field, _names, _max) \
	{ .name = _name, .kind = KEY_ENUM, \
	  .off = offsetof(struct grtrace_config, _field), \
	  .names = _names, .max = _max }
#define FN_KEY(_name, _set, _show) \
	{ .name = _name, .kind = KEY_FN, .set = _set, .show = _show }

static const struct grtrace_key grtrace_keys[] = {
	/* Its quick settings write "3" for the most detail. */
	NUM_ENUM_KEY("level", level, level_names, 3),
	ENUM_KEY("clock", clock, clock_names),
	MASK_KEY("filter_type_mask", filter_type_mask, U32_MAX),
	MASK_KEY("filter_engine_mask", filter_engine_mask,
		 GRTRACE_ENGINE_MASK_ALL),
	{ .name = "filter_ring_id", .kind = KEY_SINT,
	  .off = offsetof(struct grtrace_config, filter_ring_id),
	  .min = -1, .max = GRTRACE_MAX_RINGS - 1 },
	ENUM_KEY("watch_allow_mode", watch_deny, watch_mode_names),
	ENUM_KEY("watch_combine", watch_or, watch_combine_names),
	FN_KEY("watch_ctx_add", set_watch_ctx_add, show_watch_ctx),
	FN_KEY("watch_ctx_del", set_watch_ctx_del, NULL),
	FN_KEY("watch_ctx_clear", set_watch_ctx_clear, NULL),
	FN_KEY("watch_ring_add", set_watch_ring_add, show_watch_rings),
	FN_KEY("watch_ring_del", set_watch_ring_del, NULL),
	FN_KEY("watch_ring_clear", set_watch_ring_clear, NULL),
	U32_KEY("sample", sample, 0, 100),
	U32_KEY("sample_every", sample_every, 0, 1000000),
	U32_KEY("max_events_per_sec", max_eps, 0, GRTRACE_MAX_RATE),
	NUM_ENUM_KEY("rate_limiter_mode", rl_mode, rl_mode_names, 1),
	U32_KEY("rate_limit_burst", rl_burst, 0, GRTRACE_MAX_RATE),
	U32_KEY("backpressure_threshold", bp_threshold, 0, 100),
	U32_KEY("adaptive_sampling", adaptive, 0, 1),
	U32_KEY("measure_latency", measure_latency, 0, 1),
	ENUM_KEY("gseq", no_gseq, gseq_names),
	U32_KEY("format", format, GRTRACE_FORMAT_V1, GRTRACE_FORMAT_V2),
	FN_KEY("reset_stats", set_reset_stats, NULL),
};

static const struct grtrace_key *grtrace_key_find(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(grtrace_keys); i++)
		if (!strcmp(grtrace_keys[i].name, name))
			return &grtrace_keys[i];
	return NULL;
}

static int grtrace_key_set(const struct grtrace_key *k, struct grtrace_stage *st,
			   const char *val)
{
	unsigned int i;
	s32 sv;
	u32 v;

	switch (k->kind) {
	case KEY_FN:
		return k->set(st, val);
	case KEY_ENUM:
		for (i = 0; k->names[i]; i++)
			if (!strcmp(k->names[i], val)) {
				*stage_field(st, k) = i;
				return 0;
			}
		if (!k->max || kstrtou32(val, 10, &v) || v > k->max)
			return -EINVAL;
		*stage_field(st, k) = min_t(u32, v, i - 1);
		return 0;
	case KEY_SINT:
		if (kstrtos32(val, 0, &sv) || sv < k->min || sv > k->max)
			return -EINVAL;
		*stage_field(st, k) = sv;
		return 0;
	case KEY_MASK:
		if (kstrtou32(val, 0, &v) || (v & ~(u32)k->max))
			return -EINVAL;
		*stage_field(st, k) = v;
		return 0;
	default:
		if (kstrtou32(val, 0, &v) || v < k->min || v > k->max)
			return -EINVAL;
		*stage_field(st, k) = v;
		return 0;
	}
}

static void grtrace_key_show(struct seq_file *m, const struct grtrace_key *k,
			     bool bare)
{
	u32 v = *(u32 *)((char *)&grtrace_cfg + k->off);

	if (k->kind == KEY_FN) {
		if (k->show)
			k->show(m);
		return;
	}
	if (!bare)
		seq_printf(m, "%s=", k->name);
	if (k->kind == KEY_ENUM)
		seq_printf(m, "%s\n", k->names[v]);
	else if (k->kind == KEY_MASK)
		seq_printf(m, "0x%x\n", v);
	else if (k->kind == KEY_SINT)
		seq_printf(m, "%d\n", (s32)v);
	else
		seq_printf(m, "%u\n", v);
}

static void grtrace_stage_load(struct grtrace_stage *st)
{
	const struct grtrace_watch_ctx *wc = grtrace_watch_ctx_locked();

	memset(st, 0, sizeof(*st));
	st->cfg = grtrace_cfg;
	if (wc) {
		st->nr_ctx = wc->nr;
		memcpy(st->ctx, wc->ctx, wc->nr * sizeof(u64));
	}
}

/* Publish a staged configuration field by field; the event path sees each
 * field change atomically, and no lock.
 */
static int grtrace_stage_publish(struct grtrace_stage *st)
{
	struct grtrace_watch_ctx *wc = NULL, *old;
	const struct grtrace_config *c = &st->cfg;
	bool rl_changed;
	int i;

	/*
	 * STREAM_INFO names the clock, the format and gseq's validity for
	 * the session.
	 */
	if (grtrace_enabled && (c->clock != grtrace_cfg.clock ||
				c->no_gseq != grtrace_cfg.no_gseq ||
				c->format != grtrace_cfg.format))
		return -EBUSY;
	if (st->ctx_dirty && st->nr_ctx) {
		wc = kmalloc(struct_size(wc, ctx, st->nr_ctx), GFP_KERNEL);
		if (!wc)
			return -ENOMEM;
		wc->nr = st->nr_ctx;
		memcpy(wc->ctx, st->ctx, st->nr_ctx * sizeof(u64));
	}

	rl_changed = c->max_eps != grtrace_cfg.max_eps ||
		     c->rl_mode != grtrace_cfg.rl_mode ||
		     c->rl_burst != grtrace_cfg.rl_burst;
	for (i = 0; i < ARRAY_SIZE(grtrace_keys); i++) {
		const struct grtrace_key *k = &grtrace_keys[i];

		if (k->kind != KEY_FN)
			WRITE_ONCE(*(u32 *)((char *)&grtrace_cfg + k->off),
				   *stage_field(st, k));
	}
	WRITE_ONCE(grtrace_cfg.watch_rings, c->watch_rings);
	if (rl_changed)
		grtrace_rl_reset();
	if (st->ctx_dirty) {
		old = rcu_replace_pointer(grtrace_cfg.watch_ctx, wc,
					  lockdep_is_held(&grtrace_lock));
		if (old)
			kfree_rcu(old, rcu);
	}
	grtrace_config_derive();
	if (st->reset_stats)
		grtrace_stats_reset();
	return 0;
}

static int grtrace_stage_line(struct grtrace_stage *st, char *line)
{
	const struct grtrace_key *k;
	char *val = strchr(line, '=');

	if (val)
		*val++ = '\0';
	else
		val = "";
	line = strim(line);
	val = strim(val);
	k = grtrace_key_find(line);
	if (!k) {
		pr_debug("config: unknown key '%s'\n", line);
		return -EINVAL;
	}
	if (grtrace_key_set(k, st, val)) {
		pr_debug("config: bad value '%s' for %s\n", val, line);
		return -EINVAL;
	}
	return 0;
}

/**
 * grtrace_config_set() - apply "key=value" lines, all or nothing
 * @text: NUL-terminated text, one setting per line; modified in place
 *
 * Context: grtrace_lock held.
 * Return: 0 when every line applied; -EINVAL when any line is malformed,
 * names an unknown key or carries an out-of-range value, and then nothing
 * changed; -EBUSY for a clock change while tracing; -ENOMEM.
 */
int grtrace_config_set(char *text)
{
	struct grtrace_stage *st;
	int n = 0, ret = 0;
	char *line;

	lockdep_assert_held(&grtrace_lock);
	st = kmalloc_obj(*st);
	if (!st)
		return -ENOMEM;
	grtrace_stage_load(st);
	while (!ret && (line = strsep(&text, "\n")) != NULL) {
		if (!*strim(line))
			continue;
		ret = grtrace_stage_line(st, line);
		n++;
	}
	if (!ret && !n)
		ret = -EINVAL;
	if (!ret)
		ret = grtrace_stage_publish(st);
	kfree(st);
	return ret;
}

/* One entry of the "watchlist" file: a ring id, or "ctx:" and a context. */
static int watchlist_add(struct grtrace_stage *st, const char *item)
{
	if (!strncmp(item, "ctx:", 4))
		return set_watch_ctx_add(st, item + 4);
	return set_watch_ring_add(st, item);
}

/**
 * grtrace_watchlist_set() - the "watchlist" file's syntax
 * @list: "0,1" allows those rings, "!2" denies ring 2; an entry
 *	"ctx:N" names fence context N instead of a ring; "" clears
 *
 * The list replaces both watchlists, rings and contexts, and sets
 * watch_allow_mode.  Every entry must parse, or nothing changes.
 *
 * Context: grtrace_lock held.
 * Return: 0, or -EINVAL (nothing changed) / -ENOMEM.
 */
int grtrace_watchlist_set(const char *list)
{
	struct grtrace_stage *st;
	char *copy, *p, *tok;
	int ret = 0;

	lockdep_assert_held(&grtrace_lock);
	st = kmalloc_obj(*st);
	copy = kstrdup(list, GFP_KERNEL);
	if (!st || !copy) {
		ret = -ENOMEM;
		goto out;
	}
	grtrace_stage_load(st);
	p = strim(copy);
	st->cfg.watch_deny = *p == '!';
	if (*p == '!')
		p++;
	st->cfg.watch_rings = 0;
	st->nr_ctx = 0;
	st->ctx_dirty = true;
	/* An empty list clears; otherwise every entry must be one. */
	while (!ret && *p && (tok = strsep(&p, ",")) != NULL) {
		tok = strim(tok);
		ret = watchlist_add(st, tok);
		if (ret)
			pr_debug("watchlist: bad entry '%s': a ring id 0..%d, or ctx:N (at most %d)\n",
				 tok, GRTRACE_WATCH_RINGS - 1, GRTRACE_WATCH_MAX);
		if (!p)
			break;
	}
	if (!ret)
		ret = grtrace_stage_publish(st);
out:
	kfree(copy);
	kfree(st);
	return ret;
}

void grtrace_watchlist_show(struct seq_file *m)
{
	const struct grtrace_watch_ctx *wc = grtrace_watch_ctx_locked();
	u64 rings = grtrace_cfg.watch_rings;
	const char *sep = "";
	u32 i;

	seq_puts(m, grtrace_cfg.watch_deny ? "!" : "");
	for (i = 0; i < GRTRACE_WATCH_RINGS; i++)
		if (rings & BIT_ULL(i)) {
			seq_printf(m, "%s%u", sep, i);
			sep = ",";
		}
	for (i = 0; wc && i < wc->nr; i++) {
		seq_printf(m, "%sctx:%llu", sep, wc->ctx[i]);
		sep = ",";
	}
	seq_putc(m, '\n');
}

void grtrace_config_show(struct seq_file *m)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(grtrace_keys); i++)
		grtrace_key_show(m, &grtrace_keys[i], false);
}

/* The value of one key, bare, for the per-knob files. */
void grtrace_config_show_key(struct seq_file *m, const char *name)
{
	const struct grtrace_key *k = grtrace_key_find(name);

	if (k)
		grtrace_key_show(m, k, true);
}

/**
 * grtrace_config_init() - the settings' defaults and the counters' base
 *
 * Return: 0 or -ENOMEM.
 */
int grtrace_config_init(void)
{
	grtrace_base = alloc_percpu(struct grtrace_counters);
	if (!grtrace_base)
		return -ENOMEM;
	grtrace_config_defaults();
	return 0;
}

void grtrace_config_free(void)
{
	struct grtrace_watch_ctx *wc;

	wc = rcu_replace_pointer(grtrace_cfg.watch_ctx, NULL, true);
	synchronize_rcu();
	kfree(wc);
	free_percpu(grtrace_base);
}

/*
 * Every possible CPU gets a buffer of @size, allocated when it is set: all
 * of them together may take at most a quarter of the RAM.
 */
static bool grtrace_buffers_fit_ram(unsigned long long size)
{
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	return size * num_possible_cpus() <= ram / 4;
}

static int grtrace_check_buffer_size(unsigned long long size)
{
	if (size < SZ_64K || size > SZ_256M || size % SZ_32K)
		return -EINVAL;
	if (!grtrace_buffers_fit_ram(size)) {
		pr_debug("buffer_size: %llu bytes on each of %u CPUs is more than a quarter of the RAM\n",
			 size, num_possible_cpus());
		return -EINVAL;
	}
	return 0;
}

/**
 * grtrace_parse_buffer_size() - parse a per-CPU buffer size
 * @s: decimal bytes with an optional K, M or G suffix
 * @size: the result
 *
 * Return: 0, or -EINVAL unless the size lies in [64K, 256M], is a
 * multiple of 32K (eight sub-buffers of whole pages), and the buffers of
 * all possible CPUs take at most a quarter of the RAM.
 */
int grtrace_parse_buffer_size(const char *s, unsigned long *size)
{
	static const char suffixes[] = "KMG";
	unsigned long long v = 0;
	unsigned int shift = 0;
	size_t len = strlen(s);
	const char *sfx;
	char num[24];

	/* Not memparse(): its shift wraps a huge count into range. */
	sfx = len ? strchr(suffixes, toupper(s[len - 1])) : NULL;
	if (sfx && *sfx) {
		shift = 10 * (sfx - suffixes + 1);
		len--;
	}
	if (len && len < sizeof(num)) {
		memcpy(num, s, len);
		num[len] = '\0';
	}
	if (!len || len >= sizeof(num) || kstrtoull(num, 10, &v) ||
	    v > (ULLONG_MAX >> shift) ||
	    grtrace_check_buffer_size(v << shift)) {
		pr_debug("buffer_size: '%s' is not a multiple of 32K in [64K, 256M]\n",
			 s);
		return -EINVAL;
	}
	*size = v << shift;
	return 0;
}

static void grtrace_stats_snap(int cpu)
{
	const struct grtrace_pcpu_cold *cold = per_cpu_ptr(grtrace_pcpu_cold,
							   cpu);
	struct grtrace_counters *base = per_cpu_ptr(grtrace_base, cpu);
	u32 i;

	memcpy(base, &per_cpu_ptr(grtrace_pcpu, cpu)->cnt, sizeof(*base));
	/*
	 * An event whose write the interrupted event of the fast path holds
	 * back is counted as emitted, not yet as written or dropped: it
	 * belongs to the counts after the reset.
	 */
	for (i = 0; i < cold->nr_deferred; i++) {
		u16 type = cold->deferred[i].type;

		/* A held-back control record was never counted as emitted. */
		if (type == GRTRACE_DEFERRED_CTL)
			continue;
		base->emitted--;
		base->type_emitted[type]--;
	}
}

static void grtrace_stats_snap_local(void *unused)
{
	grtrace_stats_snap(smp_processor_id());
}

/*
 * Snapshot the counters; views report the difference.  Each CPU takes its
 * own snapshot in an IPI: its full path runs with interrupts off, and its
 * fast path counts an event once, so the snapshot never holds an event
 * counted as emitted but not yet as written or dropped, which would leave
 * emitted != written + dropped until the next reset, but for the writes
 * that an interrupted event of the fast path holds back, which it leaves
 * out.  An offline CPU emits nothing and is copied from here.
 */
void grtrace_stats_reset(void)
{
	int cpu;

	lockdep_assert_held(&grtrace_lock);
	cpus_read_lock();
	on_each_cpu(grtrace_stats_snap_local, NULL, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			grtrace_stats_snap(cpu);
	cpus_read_unlock();
	grtrace_reset_at = jiffies / HZ;
}

u64 grtrace_reset_sec(void)
{
	return grtrace_reset_at;
}

/**
 * grtrace_stats_sum() - counters since the last reset
 * @sum: zeroed by the caller; receives the sums
 * @cpu: the CPU to sum, or -1 for all CPUs
 *
 * Context: grtrace_lock held.
 */
void grtrace_stats_sum(struct grtrace_counters *sum, int cpu)
{
	u64 *acc = (u64 *)sum;
	int c, i, q, z;

	lockdep_assert_held(&grtrace_lock);
	for_each_possible_cpu(c) {
		const u64 *cur = (u64 *)&per_cpu_ptr(grtrace_pcpu, c)->cnt;
		const u64 *base = (u64 *)per_cpu_ptr(grtrace_base, c);

		if (cpu >= 0 && c != cpu)
			continue;
		for (i = 0; i < GRTRACE_NR_COUNTERS; i++)
			acc[i] += READ_ONCE(cur[i]) - base[i];
	}
	/*
	 * The fast path counts its events once, by type, and so do the quick
	 * drops, by type and reason; events in NMI count only their drop.
	 */
	grtrace_counters_totals(sum, &sum->emitted, &sum->written);
	for (i = 0; i < GRTRACE_QUICK_TYPES; i++)
		for (z = 0; z < GRTRACE_FAST_SIZES; z++) {
			u64 n = sum->fast[i][z];

			sum->type_emitted[i] += n;
			sum->type_written[i] += n;
			sum->bytes += n * GRTRACE_FAST_SIZE(z);
			sum->size_hist[grtrace_hist_bucket(GRTRACE_FAST_SIZE(z),
							   GRTRACE_SIZE_HIST_LO)] += n;
		}
	for (q = 0; q < GRTRACE_NR_QUICK; q++)
		for (i = 0; i < GRTRACE_QUICK_TYPES; i++) {
			sum->type_emitted[i] += sum->quick[q][i];
			sum->dropped[grtrace_quick_drop(q)] += sum->quick[q][i];
		}
}
