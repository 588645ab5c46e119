// SPDX-License-Identifier: GPL-2.0
/*
 * fault_call - one kernel operation with this task's allocations failing
 * (failslab and fail_page_alloc with task-filter), and nothing else.
 *
 *	fault_call insmod MODULE.ko [PARAMS]	init_module() of the file
 *	fault_call write FILE TEXT		write(2) of TEXT to FILE
 *
 * Everything that may touch a filesystem happens before the task asks to
 * fail (/proc/self/make-it-fail): the module is read into memory, the file
 * opened, every page of this (static) program locked in.  The test VM's
 * root is 9p, and an allocation failed inside 9p's transport breaks it for
 * every task after (seen on 6.1: EINVAL from every later exec), which is
 * 9p's business, not the operation's.  Only the system call itself runs
 * with failing allocations; then the task stops failing.
 *
 * Exit status: 0 the operation worked, 1 it failed (errno printed), 2 a
 * usage or set-up error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fail_fd = -1;

static int set_fail(const char *v)
{
	return pwrite(fail_fd, v, 1, 0) == 1 ? 0 : -1;
}

static void *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "fault_call: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf)
		exit(2);
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, st.st_size - got);
		if (n <= 0) {
			fprintf(stderr, "fault_call: %s: short read\n", path);
			exit(2);
		}
		got += n;
	}
	close(fd);
	*len = got;
	return buf;
}

int main(int argc, char **argv)
{
	const char *params = "";
	size_t len = 0;
	void *image = NULL;
	int fd = -1, err = 0;
	long ret;

	if (argc < 3 || (strcmp(argv[1], "insmod") && strcmp(argv[1], "write")) ||
	    (!strcmp(argv[1], "write") && argc != 4) ||
	    (!strcmp(argv[1], "insmod") && argc > 4)) {
		fprintf(stderr, "usage: fault_call insmod KO [PARAMS] | write FILE TEXT\n");
		return 2;
	}
	if (!strcmp(argv[1], "insmod")) {
		image = slurp(argv[2], &len);
		if (argc == 4)
			params = argv[3];
	} else {
		fd = open(argv[2], O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "fault_call: %s: %s\n", argv[2], strerror(errno));
			return 2;
		}
	}
	fail_fd = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (fail_fd < 0 || mlockall(MCL_CURRENT | MCL_FUTURE) < 0) {
		fprintf(stderr, "fault_call: make-it-fail or mlockall: %s\n",
			strerror(errno));
		return 2;
	}
	if (set_fail("1") < 0) {
		fprintf(stderr, "fault_call: make-it-fail: %s\n", strerror(errno));
		return 2;
	}
	if (image)
		ret = syscall(SYS_init_module, image, len, params);
	else
		ret = write(fd, argv[3], strlen(argv[3]));
	if (ret < 0)
		err = errno;
	/* The task's own flag: a plain store in the kernel, no allocation. */
	if (set_fail("0") < 0)
		return 2;
	if (err) {
		printf("%s: %s\n", argv[1], strerror(err));
		return 1;
	}
	return 0;
}
