/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of grtrace.ko share with each other, and nothing more.
 */
#ifndef _GRTRACE_INTERNAL_H
#define _GRTRACE_INTERNAL_H

#include <linux/grtrace.h>
#include <linux/mutex.h>
#include <linux/percpu.h>

struct dentry;
struct seq_file;

/*
 * Why an event did not reach the stream.  Every call into the event path
 * ends as "written" or as exactly one of these.
 */
enum grtrace_drop {
	GRTRACE_DROP_DISABLED,
	GRTRACE_DROP_LEVEL,
	GRTRACE_DROP_FILTERED_TYPE,
	GRTRACE_DROP_FILTERED_ENGINE,
	GRTRACE_DROP_FILTERED_RING,
	GRTRACE_DROP_BUFFER_FULL,
	GRTRACE_DROP_OVERSIZE,
	GRTRACE_NR_DROPS,
};

extern const char * const grtrace_drop_names[GRTRACE_NR_DROPS];

/**
 * struct grtrace_pcpu - per-CPU state of the event path
 * @emitted: calls into the event path
 * @written: events written to the relay channel
 * @bytes: bytes of events written
 * @dropped: events dropped, by enum grtrace_drop
 * @ctl_written: control records (STREAM_INFO, METADATA, RING) written
 * @ctl_dropped: control records that did not fit in the buffer
 * @type_emitted: @emitted by event type
 * @type_written: @written by event type
 * @cseq: next per-CPU sequence number of this CPU's channel
 * @committed: bytes of complete records in this CPU's channel
 * @consumed: bytes handed to readers of this CPU's channel
 *
 * Everything but @consumed is written only by its own CPU with interrupts
 * disabled, so plain increments suffice; readers sum over CPUs and may see
 * a snapshot that is a few events old.  @consumed is protected by
 * grtrace_read_lock.
 */
struct grtrace_pcpu {
	u64 emitted;
	u64 written;
	u64 bytes;
	u64 dropped[GRTRACE_NR_DROPS];
	u64 ctl_written;
	u64 ctl_dropped;
	u64 type_emitted[GRTRACE_EV_NR_JOB_TYPES];
	u64 type_written[GRTRACE_EV_NR_JOB_TYPES];
	u64 cseq;
	u64 committed;
	u64 consumed;
};

DECLARE_PER_CPU(struct grtrace_pcpu, grtrace_pcpu);

enum grtrace_level {
	GRTRACE_LEVEL_OFF,
	GRTRACE_LEVEL_NORMAL,
	GRTRACE_LEVEL_VERBOSE,
};

/* Types dropped below level=verbose: high-rate, hardware-level events. */
#define GRTRACE_VERBOSE_TYPES	(BIT(GRTRACE_EV_CTX_SWITCH) | BIT(GRTRACE_EV_IRQ))

/**
 * struct grtrace_config - every setting of the event path
 * @level: enum grtrace_level
 * @clock_id: GRTRACE_CLOCK_*; changed only while stopped
 * @filter_type_mask: bit (1 << type) set keeps that job event type
 * @filter_engine_mask: bit (1 << engine) set keeps that engine class
 * @filter_ring_id: keep only this ring, or -1 for all
 *
 * Writers hold grtrace_lock and use WRITE_ONCE(); the event path reads each
 * field once with READ_ONCE(), so a change takes effect on the next event
 * without any lock on the event path.
 */
struct grtrace_config {
	u32 level;
	u32 clock_id;
	u32 filter_type_mask;
	u32 filter_engine_mask;
	s32 filter_ring_id;
};

extern struct grtrace_config grtrace_cfg;
extern struct mutex grtrace_lock;
extern bool grtrace_enabled;
extern u64 grtrace_session;
extern unsigned long grtrace_buffer_size;

/* grtrace_core.c */
void grtrace_event(u16 type, u32 ring_id, u16 engine, u64 ctx, u64 seqno,
		   u64 aux0, u64 aux1);
int grtrace_start_locked(void);
void grtrace_stop_locked(void);
int grtrace_resize_locked(unsigned long size);
int grtrace_write_control(const void *rec, u16 size);
u64 grtrace_now(void);
int grtrace_core_init(struct dentry *dir);
void grtrace_core_exit(void);

/* grtrace_config.c */
int grtrace_config_set(char *line);
void grtrace_config_show(struct seq_file *m);
void grtrace_config_defaults(void);
int grtrace_check_buffer_size(unsigned long long size);
int grtrace_parse_buffer_size(const char *s, unsigned long *size);
void grtrace_stats_reset(void);
void grtrace_stats_sum(struct grtrace_pcpu *sum);

/* grtrace_rings.c */
u16 grtrace_ring_engine(u32 ring_id);
int grtrace_rings_write_metadata(void);
void grtrace_rings_show(struct seq_file *m);

/* grtrace_control.c */
int grtrace_control_init(struct dentry *dir);

#endif /* _GRTRACE_INTERNAL_H */
