/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace record: the processes that hold DRM clients, from /proc.
 *
 * The kernel numbers every open DRM file (a DRM client) for the life of
 * the boot and shows the number as "drm-client-id:" in /proc/PID/fdinfo/FD
 * of each process holding the file.  From 6.16 a SUBMIT carries it
 * (GRTRACE_HDR_CLIENT): one pass over every process's fdinfo maps it to
 * the process, whichever thread (often a kworker) pushed the job.
 */
#ifndef GRTRACE_DRM_CLIENTS_H
#define GRTRACE_DRM_CLIENTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bytes of a process name kept (the kernel's comm, TASK_COMM_LEN - 1). */
#define DRM_COMM_LEN	16

/* A DRM client: its id, the process holding it, that process's name. */
struct drm_client {
	uint64_t id;
	uint32_t pid;
	char process[DRM_COMM_LEN + 1];	/* NUL-terminated */
};

/*
 * Every DRM client open in a process of @proc ("/proc", or a directory laid
 * out like it: PID/comm and PID/fdinfo/FD): its id, the pid and comm of
 * the process.  Sorted by id, one entry each: a client open in several
 * processes (its file inherited across fork, or passed over a socket) goes
 * to the lowest pid.  Processes that exit during the pass, and files it
 * may not read, are skipped.  Returns how many, the malloc'd entries in
 * *@out (NULL for none), or -1 with errno when @proc cannot be read.
 */
ssize_t drm_clients_scan(const char *proc, struct drm_client **out);

/*
 * The id of a "drm-client-id:" line in the fdinfo text @buf (@len bytes):
 * 0 and *@id, or -1 when it has none (not a DRM file).
 */
int drm_client_id(const char *buf, size_t len, uint64_t *id);

#endif /* GRTRACE_DRM_CLIENTS_H */
