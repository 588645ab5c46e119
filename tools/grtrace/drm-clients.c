// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace record: the processes that hold DRM clients (see drm-clients.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drm-clients.h"
#include "util.h"

/*
 * Bytes of an fdinfo file looked at.  drm_show_fdinfo() prints the id
 * right after the generic lines (pos, flags, mnt_id, ino) and the driver's
 * name; the memory and engine statistics after it can be long.
 */
#define FDINFO_MAX	4096

static const char client_key[] = "drm-client-id:";

int drm_client_id(const char *buf, size_t len, uint64_t *id)
{
	const size_t klen = sizeof(client_key) - 1;
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *q = p;
		uint64_t v = 0;

		p = nl ? nl + 1 : end;
		if ((size_t)(le - q) < klen || memcmp(q, client_key, klen))
			continue;
		q += klen;
		/* "drm-client-id:\t7": a tab, as the kernel prints it, or spaces. */
		while (q < le && (*q == '\t' || *q == ' '))
			q++;
		if (q == le || *q < '0' || *q > '9')
			return -1;
		for (; q < le && *q >= '0' && *q <= '9'; q++) {
			unsigned int d = (unsigned int)(*q - '0');

			if (v > (UINT64_MAX - d) / 10)
				return -1;
			v = v * 10 + d;
		}
		*id = v;
		return 0;
	}
	return -1;
}

/*
 * Up to @len - 1 bytes of file @name under @dirfd into @buf, NUL-terminated:
 * how many, or -1 if it cannot be opened (gone, or not ours to read).
 */
static ssize_t read_small(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -1;
	/* A /proc file may come in more than one read. */
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

struct found {
	struct drm_client *c;
	size_t n, cap;
};

/* The clients of process @pid (directory @name under @procfd), to @f. */
static void scan_process(int procfd, const char *name, uint32_t pid,
			 struct found *f)
{
	char path[64], buf[FDINFO_MAX], comm[DRM_COMM_LEN + 2];
	size_t first = f->n, i;
	struct dirent *e;
	ssize_t n;
	DIR *d;
	int fd;

	snprintf(path, sizeof(path), "%s/fdinfo", name);
	fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		uint64_t id;

		if (e->d_name[0] == '.')
			continue;
		n = read_small(dirfd(d), e->d_name, buf, sizeof(buf));
		/* A full buffer may end inside a line: whole lines only. */
		if (n == (ssize_t)sizeof(buf) - 1) {
			char *nl = memrchr(buf, '\n', (size_t)n);

			n = nl ? nl - buf + 1 : 0;
		}
		if (n <= 0 || drm_client_id(buf, (size_t)n, &id) < 0)
			continue;
		if (f->n == f->cap) {
			f->cap = f->cap ? f->cap * 2 : 16;
			f->c = xrealloc(f->c, f->cap * sizeof(*f->c));
		}
		f->c[f->n].id = id;
		f->c[f->n].pid = pid;
		f->c[f->n++].process[0] = '\0';
	}
	closedir(d);
	if (f->n == first)
		return;
	/* One name for all its clients; gone since, they are dropped. */
	snprintf(path, sizeof(path), "%s/comm", name);
	n = read_small(procfd, path, comm, sizeof(comm));
	if (n > 0 && comm[n - 1] == '\n')
		comm[--n] = '\0';
	if (n <= 0) {
		f->n = first;
		return;
	}
	/* comm holds 15 bytes and a newline: at most DRM_COMM_LEN kept. */
	n = (ssize_t)strnlen(comm, DRM_COMM_LEN);
	for (i = first; i < f->n; i++) {
		memcpy(f->c[i].process, comm, (size_t)n);
		f->c[i].process[n] = '\0';
	}
}

/* By id, then pid: the first of each id is its lowest pid. */
static int by_id_pid(const void *a, const void *b)
{
	const struct drm_client *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

ssize_t drm_clients_scan(const char *proc, struct drm_client **out)
{
	struct found f = { .c = NULL };
	struct dirent *e;
	size_t i, k = 0;
	int procfd, err;
	DIR *d;

	*out = NULL;
	procfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return -1;
	d = fdopendir(procfd);
	if (!d) {
		err = errno;
		close(procfd);
		errno = err;
		return -1;
	}
	/* Processes only: /proc lists no thread but its group leader. */
	while ((e = readdir(d))) {
		unsigned long pid;
		char *end;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		errno = 0;
		pid = strtoul(e->d_name, &end, 10);
		if (*end || errno || pid > UINT32_MAX)
			continue;
		scan_process(dirfd(d), e->d_name, (uint32_t)pid, &f);
	}
	closedir(d);
	if (!f.n) {
		free(f.c);
		return 0;
	}
	qsort(f.c, f.n, sizeof(*f.c), by_id_pid);
	for (i = 0; i < f.n; i++)
		if (!k || f.c[k - 1].id != f.c[i].id)
			f.c[k++] = f.c[i];
	*out = f.c;
	return (ssize_t)k;
}
