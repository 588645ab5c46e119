// SPDX-License-Identifier: GPL-2.0
/*
 * poll-shim.so - LD_PRELOAD'ed by recorder-service-tests.sh: the real
 * module's recorder info as the service waits on it while armed.  A poll()
 * with no timeout first sleeps a second (the moment between the service's
 * last look at its stop flag and its poll(), widened so that a signal lands
 * there; POLL_SHIM_MARK names a file made as it begins), then waits with each regular file's entry (the fake info, always
 * readable) replaced by a pipe that never becomes readable: it returns only
 * for the other descriptors, or a signal.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int poll(struct pollfd *fds, nfds_t n, int ms)
{
	static int (*real)(struct pollfd *, nfds_t, int);
	static int quiet[2] = { -1, -1 };
	struct timespec ts = { 1, 0 };
	struct pollfd q[8];
	nfds_t i;
	int ret;

	if (!real)
		real = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
	if (ms != -1 || n == 0 || n > 8)
		return real(fds, n, ms);
	if (quiet[0] < 0 && pipe(quiet) < 0)
		abort();
	/* POLL_SHIM_MARK: a file made on the way in, for the test to wait on. */
	if (getenv("POLL_SHIM_MARK"))
		close(open(getenv("POLL_SHIM_MARK"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	for (i = 0; i < n; i++) {
		struct stat st;

		q[i] = fds[i];
		if (!fstat(fds[i].fd, &st) && S_ISREG(st.st_mode))
			q[i].fd = quiet[0];
	}
	ret = real(q, n, -1);
	for (i = 0; i < n; i++)
		fds[i].revents = q[i].revents;
	return ret;
}
