// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace: settings and their key=value parser.  No I/O here: the debugfs
 * files in grtrace_control.c hand over a kernel copy of the user's text.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "grtrace_internal.h"

struct grtrace_config grtrace_cfg;

/* Stats as they were at the last reset_stats; protected by grtrace_lock. */
static DEFINE_PER_CPU(struct grtrace_pcpu, grtrace_pcpu_base);

const char * const grtrace_drop_names[GRTRACE_NR_DROPS] = {
	[GRTRACE_DROP_DISABLED]		= "disabled",
	[GRTRACE_DROP_LEVEL]		= "level",
	[GRTRACE_DROP_FILTERED_TYPE]	= "filtered_type",
	[GRTRACE_DROP_FILTERED_ENGINE]	= "filtered_engine",
	[GRTRACE_DROP_FILTERED_RING]	= "filtered_ring",
	[GRTRACE_DROP_BUFFER_FULL]	= "buffer_full",
	[GRTRACE_DROP_OVERSIZE]		= "oversize",
};

static const char * const grtrace_level_names[] = {
	[GRTRACE_LEVEL_OFF]	= "off",
	[GRTRACE_LEVEL_NORMAL]	= "normal",
	[GRTRACE_LEVEL_VERBOSE]	= "verbose",
};

#define GRTRACE_ENGINE_MASK_ALL	(BIT(GRTRACE_ENGINE_NR) - 1)

void grtrace_config_defaults(void)
{
	grtrace_cfg.level = GRTRACE_LEVEL_NORMAL;
	grtrace_cfg.clock_id = GRTRACE_CLOCK_MONOTONIC;
	grtrace_cfg.filter_type_mask = U32_MAX;
	grtrace_cfg.filter_engine_mask = GRTRACE_ENGINE_MASK_ALL;
	grtrace_cfg.filter_ring_id = -1;
}

/*
 * A key parses its value into a u64 first and applies it only once every
 * line of the write has parsed, so a bad write changes nothing.
 */
struct grtrace_key {
	const char *name;
	int (*parse)(const char *val, u64 *out);
	void (*apply)(u64 val);
	void (*show)(struct seq_file *m, const char *name);
};

static int parse_level(const char *val, u64 *out)
{
	int i = match_string(grtrace_level_names,
			     ARRAY_SIZE(grtrace_level_names), val);

	if (i < 0)
		return -EINVAL;
	*out = i;
	return 0;
}

static void apply_level(u64 val)
{
	WRITE_ONCE(grtrace_cfg.level, val);
}

static void show_level(struct seq_file *m, const char *name)
{
	seq_printf(m, "%s=%s\n", name, grtrace_level_names[grtrace_cfg.level]);
}

static int parse_clock(const char *val, u64 *out)
{
	if (!strcmp(val, "monotonic") || !strcmp(val, "mono"))
		*out = GRTRACE_CLOCK_MONOTONIC;
	else if (!strcmp(val, "boottime") || !strcmp(val, "boot"))
		*out = GRTRACE_CLOCK_BOOTTIME;
	else
		return -EINVAL;
	return 0;
}

static void apply_clock(u64 val)
{
	WRITE_ONCE(grtrace_cfg.clock_id, val);
}

static void show_clock(struct seq_file *m, const char *name)
{
	seq_printf(m, "%s=%s\n", name,
		   grtrace_cfg.clock_id == GRTRACE_CLOCK_BOOTTIME ?
		   "boottime" : "monotonic");
}

static int parse_u32(const char *val, u64 *out)
{
	u32 v;

	if (kstrtou32(val, 0, &v))
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_engine_mask(const char *val, u64 *out)
{
	if (parse_u32(val, out) || (*out & ~(u64)GRTRACE_ENGINE_MASK_ALL))
		return -EINVAL;
	return 0;
}

static void apply_type_mask(u64 val)
{
	WRITE_ONCE(grtrace_cfg.filter_type_mask, val);
}

static void show_type_mask(struct seq_file *m, const char *name)
{
	seq_printf(m, "%s=0x%x\n", name, grtrace_cfg.filter_type_mask);
}

static void apply_engine_mask(u64 val)
{
	WRITE_ONCE(grtrace_cfg.filter_engine_mask, val);
}

static void show_engine_mask(struct seq_file *m, const char *name)
{
	seq_printf(m, "%s=0x%x\n", name, grtrace_cfg.filter_engine_mask);
}

static int parse_ring_id(const char *val, u64 *out)
{
	s32 v;

	if (kstrtos32(val, 0, &v) || v < -1 || v >= GRTRACE_MAX_RINGS)
		return -EINVAL;
	*out = (u64)(s64)v;
	return 0;
}

static void apply_ring_id(u64 val)
{
	WRITE_ONCE(grtrace_cfg.filter_ring_id, (s32)val);
}

static void show_ring_id(struct seq_file *m, const char *name)
{
	seq_printf(m, "%s=%d\n", name, grtrace_cfg.filter_ring_id);
}

static int parse_action(const char *val, u64 *out)
{
	/* "reset_stats" and "reset_stats=1" both mean "do it". */
	if (*val && strcmp(val, "1"))
		return -EINVAL;
	*out = 1;
	return 0;
}

static void apply_reset_stats(u64 val)
{
	grtrace_stats_reset();
}

static const struct grtrace_key grtrace_keys[] = {
	{ "level", parse_level, apply_level, show_level },
	{ "clock", parse_clock, apply_clock, show_clock },
	{ "filter_type_mask", parse_u32, apply_type_mask, show_type_mask },
	{ "filter_engine_mask", parse_engine_mask, apply_engine_mask,
	  show_engine_mask },
	{ "filter_ring_id", parse_ring_id, apply_ring_id, show_ring_id },
	{ "reset_stats", parse_action, apply_reset_stats, NULL },
};

#define GRTRACE_MAX_SETTINGS	16

struct grtrace_setting {
	const struct grtrace_key *key;
	u64 val;
};

static int grtrace_parse_line(char *line, struct grtrace_setting *set)
{
	char *val = strchr(line, '=');
	int i;

	if (val)
		*val++ = '\0';
	else
		val = "";
	line = strim(line);
	val = strim(val);
	for (i = 0; i < ARRAY_SIZE(grtrace_keys); i++) {
		if (strcmp(line, grtrace_keys[i].name))
			continue;
		set->key = &grtrace_keys[i];
		if (set->key->parse(val, &set->val)) {
			pr_debug("config: bad value '%s' for %s\n", val, line);
			return -EINVAL;
		}
		return 0;
	}
	pr_debug("config: unknown key '%s'\n", line);
	return -EINVAL;
}

/**
 * grtrace_config_set() - apply "key=value" lines, all or nothing
 * @text: NUL-terminated text, one setting per line; modified in place
 *
 * Context: grtrace_lock held.
 * Return: 0 when every line applied; -EINVAL when any line is malformed,
 * names an unknown key or carries an out-of-range value, and then nothing
 * changed; -EBUSY for a setting that cannot change while tracing.
 */
int grtrace_config_set(char *text)
{
	struct grtrace_setting set[GRTRACE_MAX_SETTINGS];
	int i, n = 0, ret;
	char *line;

	lockdep_assert_held(&grtrace_lock);
	while ((line = strsep(&text, "\n")) != NULL) {
		if (!*strim(line))
			continue;
		if (n == GRTRACE_MAX_SETTINGS)
			return -EINVAL;
		ret = grtrace_parse_line(line, &set[n++]);
		if (ret)
			return ret;
	}
	if (!n)
		return -EINVAL;
	/*
	 * STREAM_INFO names one clock for the whole session: refuse a clock
	 * change while tracing, before anything else changes.
	 */
	for (i = 0; i < n; i++)
		if (set[i].key->apply == apply_clock && grtrace_enabled &&
		    set[i].val != grtrace_cfg.clock_id)
			return -EBUSY;
	for (i = 0; i < n; i++)
		set[i].key->apply(set[i].val);
	return 0;
}

void grtrace_config_show(struct seq_file *m)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(grtrace_keys); i++)
		if (grtrace_keys[i].show)
			grtrace_keys[i].show(m, grtrace_keys[i].name);
}

int grtrace_check_buffer_size(unsigned long long size)
{
	if (size < SZ_64K || size > SZ_256M || size % SZ_32K)
		return -EINVAL;
	return 0;
}

/**
 * grtrace_parse_buffer_size() - parse a per-CPU buffer size
 * @s: decimal bytes with an optional K, M or G suffix
 * @size: the result
 *
 * Return: 0, or -EINVAL unless the size lies in [64K, 256M] and is a
 * multiple of 32K (eight sub-buffers of whole pages).
 */
int grtrace_parse_buffer_size(const char *s, unsigned long *size)
{
	unsigned long long v;
	char *end;

	v = memparse(s, &end);
	if (end == s || *end || grtrace_check_buffer_size(v)) {
		pr_debug("buffer_size: '%s' is not a multiple of 32K in [64K, 256M]\n",
			 s);
		return -EINVAL;
	}
	*size = v;
	return 0;
}

/* Snapshot the counters; views report the difference. */
void grtrace_stats_reset(void)
{
	int cpu;

	lockdep_assert_held(&grtrace_lock);
	for_each_possible_cpu(cpu) {
		struct grtrace_pcpu *base = per_cpu_ptr(&grtrace_pcpu_base, cpu);

		memcpy(base, per_cpu_ptr(&grtrace_pcpu, cpu), sizeof(*base));
	}
}

static void grtrace_add(u64 *sum, const u64 *cur, const u64 *base, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sum[i] += READ_ONCE(cur[i]) - base[i];
}

/**
 * grtrace_stats_sum() - counters of every CPU since the last reset
 * @sum: zeroed by the caller; receives the sums
 *
 * Context: grtrace_lock held.
 */
void grtrace_stats_sum(struct grtrace_pcpu *sum)
{
	int cpu;

	lockdep_assert_held(&grtrace_lock);
	for_each_possible_cpu(cpu) {
		const struct grtrace_pcpu *c = per_cpu_ptr(&grtrace_pcpu, cpu);
		const struct grtrace_pcpu *b = per_cpu_ptr(&grtrace_pcpu_base,
							   cpu);

		/* The counters are consecutive u64 up to @cseq. */
		grtrace_add(&sum->emitted, &c->emitted, &b->emitted,
			    offsetof(struct grtrace_pcpu, cseq) / sizeof(u64));
	}
}
