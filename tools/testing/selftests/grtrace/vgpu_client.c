// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu_client - submit a workload to grtrace_vgpu through its render node,
 * as a GPU application does, for client_test.sh: the jobs carry the DRM
 * client id of the file it opened (6.16+).
 *
 * Usage: vgpu_client [-k] [-g] [-F FLAGS] [-w MS] NODE LINES
 * NODE is the render node (/dev/dri/renderDN), LINES the workload lines of
 * grtrace_vgpu's submit file ("gfx 0 5 100", "\n" between lines).  -k has
 * a kernel worker push the jobs (as drivers that defer their pushes do);
 * -g waits for a line on standard input before it submits (a test starts
 * it ahead, so that its start-up, slow on a debug kernel under TCG, does
 * not come between another client's jobs and its own);
 * -F passes raw ioctl flags (to test refusals); -w stays MS milliseconds
 * after the ioctl with the file open, as an application outlives its
 * submissions.  Prints "pid=P client_id=N" (the drm-client-id of the
 * file's fdinfo, or "none") before it submits.  Exit 0 on success, 1 on an
 * error (the ioctl's errno is printed as "errno=NAME").
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "../../../../drivers/gpu/grtrace/tests/grtrace_vgpu_uapi.h"

/* drm-client-id of our file @fd, from /proc/self/fdinfo; -1 if none. */
static long long client_id(int fd)
{
	char path[64], line[256];
	long long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "drm-client-id: %lld", &id) == 1)
			break;
	fclose(f);
	return id;
}

static void usage(void)
{
	fprintf(stderr, "usage: vgpu_client [-k] [-g] [-F FLAGS] [-w MS] NODE LINES\n");
	exit(1);
}

int main(int argc, char **argv)
{
	struct drm_vgpu_submit sub = { 0 };
	struct timespec ts;
	long long id;
	long wait_ms = 0;
	int opt, fd, go = 0;
	char line[16];

	while ((opt = getopt(argc, argv, "kgF:w:")) != -1) {
		switch (opt) {
		case 'k':
			sub.flags |= DRM_VGPU_SUBMIT_WORKER;
			break;
		case 'g':
			go = 1;
			break;
		case 'F':
			sub.flags = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'w':
			wait_ms = strtol(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2)
		usage();
	fd = open(argv[optind], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "vgpu_client: %s: %s\n", argv[optind],
			strerror(errno));
		return 1;
	}
	id = client_id(fd);
	if (id < 0)
		printf("pid=%d client_id=none\n", getpid());
	else
		printf("pid=%d client_id=%lld\n", getpid(), id);
	fflush(stdout);
	if (go && !fgets(line, sizeof(line), stdin)) {
		fprintf(stderr, "vgpu_client: no line on standard input to go\n");
		return 1;
	}
	sub.text = (uintptr_t)argv[optind + 1];
	sub.len = (unsigned int)strlen(argv[optind + 1]);
	if (ioctl(fd, DRM_IOCTL_VGPU_SUBMIT, &sub) < 0) {
		printf("errno=%s\n", errno == EINVAL ? "EINVAL" : strerror(errno));
		return 1;
	}
	/* Queued: a test may now start what has to queue behind these. */
	printf("submitted\n");
	fflush(stdout);
	ts.tv_sec = wait_ms / 1000;
	ts.tv_nsec = (wait_ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	close(fd);
	return 0;
}
