// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of record's pass over /proc for DRM clients (drm-clients.c):
 * the tool's own code, beside the library's tests in lib/tests/.
 *
 * Usage: test-drm-clients
 *
 * Prints one "ok NAME" or "not ok NAME" line per test, with "# ..."
 * diagnostics; tests/run-tests.sh numbers them into TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../drm-clients.h"
#include "check.h"

/* The "drm-client-id:" line of an fdinfo text. */
static void test_drm_client_id(void)
{
	static const struct {
		const char *text;
		int ret;
		uint64_t id;
	} cases[] = {
		{ "pos:\t0\nflags:\t02100002\ndrm-driver:\tvirtio_gpu\ndrm-client-id:\t7\n", 0, 7 },
		{ "drm-client-id:   42", 0, 42 },
		{ "drm-client-id:\t18446744073709551615\n", 0, UINT64_MAX },
		{ "drm-client-id:\t18446744073709551616\n", -1, 0 },
		{ "pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t3\n", -1, 0 },
		{ "xdrm-client-id:\t5\n", -1, 0 },
		{ "drm-client-id:\n", -1, 0 },
		{ "drm-client-id", -1, 0 },
		{ "", -1, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t id = 0;
		int ret = drm_client_id(cases[i].text, strlen(cases[i].text), &id);

		if (ret != cases[i].ret || (!ret && id != cases[i].id)) {
			printf("# \"%s\": %d, id %" PRIu64 "\n", cases[i].text,
			       ret, id);
			cur_failed = 1;
		}
	}
}

/* Write @text to @dir/@name, directories on the way made. */
static void put_file(const char *dir, const char *name, const char *text)
{
	char path[4096], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		printf("# cannot write %s: %s\n", path, strerror(errno));
		cur_failed = 1;
	}
}

static int rm_entry(const char *path, const struct stat *sb, int type,
		    struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

/*
 * record's pass over /proc, on a directory laid out like it: every
 * process's fdinfo, a client once (the lowest pid of those holding it), a
 * process named by its comm, one gone before its name was read dropped.
 */
static void test_proc_scan(void)
{
	char root[] = "/tmp/grtrace-proc.XXXXXX", big[6000];
	struct drm_client *c;
	ssize_t n;
	size_t k;

	if (!mkdtemp(root)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		cur_failed = 1;
		return;
	}
	/* glxgears: client 7 on two fds, and 11; one fd not DRM's. */
	put_file(root, "4242/comm", "glxgears\n");
	put_file(root, "4242/fdinfo/0", "pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t3\n");
	put_file(root, "4242/fdinfo/5", "pos:\t0\ndrm-driver:\tvirtio_gpu\ndrm-client-id:\t7\n");
	put_file(root, "4242/fdinfo/6", "pos:\t0\ndrm-driver:\tvirtio_gpu\ndrm-client-id:\t7\n");
	put_file(root, "4242/fdinfo/9", "drm-client-id:\t11\ndrm-engine-gfx:\t123 ns\n");
	/* Client 8 inherited across fork: the lower pid keeps it. */
	put_file(root, "6000/comm", "child\n");
	put_file(root, "6000/fdinfo/4", "drm-client-id:\t8\n");
	put_file(root, "5000/comm", "Xorg\n");
	put_file(root, "5000/fdinfo/3", "drm-client-id:\t8\n");
	/* Exited before its name was read: dropped. */
	put_file(root, "7000/fdinfo/1", "drm-client-id:\t12\n");
	/* Not processes. */
	put_file(root, "self/comm", "grtrace\n");
	put_file(root, "self/fdinfo/1", "drm-client-id:\t99\n");
	put_file(root, "0123/comm", "zero\n");
	put_file(root, "0123/fdinfo/1", "drm-client-id:\t98\n");
	put_file(root, "2/comm", "kthreadd\n");
	/* A long fdinfo: the id comes first; one cut by the read is not read. */
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "drm-client-id:\t13\n", 18);
	put_file(root, "8000/comm", "a-comm-of-15-ch\n");
	put_file(root, "8000/fdinfo/1", big);
	memset(big, 'x', sizeof(big));
	big[4080] = '\n';
	memcpy(big + 4081, "drm-client-id:\t14\n", 18);
	big[4081 + 18] = '\0';
	put_file(root, "8000/fdinfo/2", big);

	n = drm_clients_scan(root, &c);
	CHECK_U64((uint64_t)n, 4);
	if (n == 4) {
		static const struct drm_client want[4] = {
			{ 7, 4242, "glxgears" }, { 8, 5000, "Xorg" },
			{ 11, 4242, "glxgears" }, { 13, 8000, "a-comm-of-15-ch" },
		};

		for (k = 0; k < 4; k++) {
			CHECK_U64(c[k].id, want[k].id);
			CHECK_U64(c[k].pid, want[k].pid);
			CHECK_STR(c[k].process, want[k].process);
		}
	}
	free(c);
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);

	/* An empty /proc has none; a missing one is an error. */
	memcpy(root + strlen(root) - 6, "XXXXXX", 6);
	if (!mkdtemp(root)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		cur_failed = 1;
		return;
	}
	CHECK_U64(drm_clients_scan(root, &c), 0);
	CHECK(c == NULL);
	rmdir(root);
	errno = 0;
	CHECK_U64(drm_clients_scan(root, &c), (uint64_t)-1);
	CHECK_U64(errno, ENOENT);
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: test-drm-clients\n");
		return 2;
	}
	run("record: the drm-client-id line of an fdinfo", test_drm_client_id);
	run("record: the pass over a /proc for DRM clients and their processes", test_proc_scan);
	return failures ? 1 : 0;
}
