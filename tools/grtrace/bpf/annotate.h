/* SPDX-License-Identifier: GPL-2.0 */
/*
 * annotate.h - what grtrace-bpf-annotate's BPF side hands to its user side:
 * one record per DRM ioctl, written when the ioctl returns.
 */
#ifndef GRTRACE_BPF_ANNOTATE_H
#define GRTRACE_BPF_ANNOTATE_H

#define GA_COMM_LEN	16
#define GA_DRIVER_LEN	16
#define GA_NAME_LEN	48

/* Indices of the counters array (per CPU, summed by the user side). */
enum ga_counter {
	GA_LOST_RINGBUF,	/* the ring buffer was full: record lost */
	GA_LOST_INFLIGHT,	/* the in-flight table was full: not timed */
	GA_NO_ENTRY,		/* returned, but began before we attached */
	GA_NR_COUNTERS,
};

struct ga_ioctl {
	__u64 ts;		/* entry, CLOCK_MONOTONIC ns (grtrace's clock) */
	__u64 dur;		/* entry to return, ns */
	__s64 ret;		/* drm_ioctl()'s return value */
	__u32 pid;		/* thread group */
	__u32 tid;
	__u32 cmd;
	__s32 minor;		/* the DRM minor's index, -1 if unknown */
	__s32 minor_type;	/* 0 primary (cardN), 2 render (renderDN) */
	char comm[GA_COMM_LEN];
	char driver[GA_DRIVER_LEN];
	/* A driver ioctl's name as the driver's table has it, else "". */
	char name[GA_NAME_LEN];
};

#endif
