/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace recorder: what "recorder service", "list" and "show"
 * (cmd-recorder-svc.c) use of the control words and snapshots
 * (cmd-recorder.c).
 */
#ifndef GRTRACE_RECORDER_H
#define GRTRACE_RECORDER_H

#include <signal.h>
#include <stdint.h>

#include "lib/include/grtrace/grtrace.h"

#define INFO_CPUS	4096

/* A cpuN line: its accounting (the fields of a snapshot's RECORDER). */
struct info_cpu {
	unsigned int cpu;
	struct grtrace_info_loss acc;
};

/* The info file, parsed: what it has, unknown keys ignored. */
struct rec_info {
	char state[16];		/* off, armed, triggered */
	char cause[16];
	uint64_t session, format, buffer_size;
	uint64_t cpu, ring, ctx, seqno;
	int64_t error;
	uint64_t trigger_ts, frozen_ts, freeze_ns, later_triggers;
	/* The snapshot last released: its session, its final later triggers. */
	uint64_t released_session, released_later_triggers;
	int have_trigger;	/* cause= was there */
	int have_released;	/* released_later_triggers= was there */
	unsigned int ncpus;
	struct info_cpu *cpus;	/* INFO_CPUS entries */
};

/* Set by a signal: wait_triggered() returns 2. */
extern volatile sig_atomic_t rec_stop;
/*
 * A pipe's read end that a signal setting rec_stop writes to, or -1:
 * wait_triggered() polls it beside the info file, so that a signal that
 * came just before its poll() is not slept through.
 */
extern int rec_stop_fd;
/* Write errors are left to the caller to report (errno kept). */
extern int rec_quiet;

void info_init(struct rec_info *in);
/* Both keep errno of a failure; err_mute silences their messages. */
int read_info(struct rec_info *in);
int wait_triggered(uint64_t timeout_ns, struct rec_info *in);
int rec_control(const char *word);
int rec_arm(uint64_t size, long format);
int snapshot_to_fd(int fd, const char *out, struct rec_info *in, int compress,
		   uint64_t *records, int *ncpus);
int cmd_recorder_service(int argc, char **argv);
int cmd_recorder_list(int argc, char **argv);
int cmd_recorder_show(int argc, char **argv);

#endif
