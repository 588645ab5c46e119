// SPDX-License-Identifier: GPL-2.0
/*
 * virtgpu_client - make a known amount of virtio-gpu traffic for
 * adapters_test.sh: FLIPS page flips on the first connected output (each
 * makes unfenced TRANSFER_TO_HOST_2D / SET_SCANOUT / RESOURCE_FLUSH
 * commands) and CREATES fenced resource creations through
 * DRM_IOCTL_VIRTGPU_RESOURCE_CREATE; then EXECS DRM_IOCTL_VIRTGPU_EXECBUFFER
 * calls, counted with how they returned, for the annotator's test (without
 * virgl, as under QEMU's virtio-gpu-pci, the driver answers -ENOSYS).
 *
 * Usage: virtgpu_client [-d /dev/dri/cardN] [-f FLIPS] [-c CREATES] [-e EXECS]
 *                       [-w MS]
 * (-f 0: no modesetting at all, so that several clients can run at once;
 * -w: stay MS milliseconds before exiting, as a GPU application outlives
 * its last submission, so that a recorder can still name it)
 * Exit status 0 on success, 1 on an error, 4 when the device has no
 * connected output or is not virtio-gpu (the test then skips).
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <xf86drm.h>
#include <xf86drmMode.h>
#include <virtgpu_drm.h>

#define EXIT_NODEV	4

struct output {
	uint32_t conn, crtc, fb[2], handle[2];
	drmModeModeInfo mode;
};

static int fail(const char *what)
{
	fprintf(stderr, "virtgpu_client: %s: %s\n", what, strerror(errno));
	return 1;
}

static int find_output(int fd, struct output *o)
{
	drmModeRes *res = drmModeGetResources(fd);
	drmModeConnector *c = NULL;
	int i, ret = EXIT_NODEV;

	if (!res)
		return EXIT_NODEV;
	for (i = 0; i < res->count_connectors && ret; i++) {
		c = drmModeGetConnector(fd, res->connectors[i]);
		if (c && c->connection == DRM_MODE_CONNECTED && c->count_modes &&
		    res->count_crtcs) {
			o->conn = c->connector_id;
			o->crtc = res->crtcs[0];
			o->mode = c->modes[0];
			ret = 0;
		}
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	return ret;
}

static int make_fbs(int fd, struct output *o)
{
	struct drm_mode_create_dumb cd = {
		.width = o->mode.hdisplay,
		.height = o->mode.vdisplay,
		.bpp = 32,
	};
	int i;

	for (i = 0; i < 2; i++) {
		if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &cd))
			return fail("CREATE_DUMB");
		o->handle[i] = cd.handle;
		if (drmModeAddFB(fd, cd.width, cd.height, 24, 32, cd.pitch,
				 cd.handle, &o->fb[i]))
			return fail("drmModeAddFB");
	}
	return 0;
}

static void flip_done(int fd, unsigned int seq, unsigned int sec,
		      unsigned int usec, void *data)
{
	*(int *)data = 0;
}

static int flip(int fd, struct output *o, int n)
{
	drmEventContext ev = {
		.version = 2,
		.page_flip_handler = flip_done,
	};
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int i, pending;

	if (drmModeSetCrtc(fd, o->crtc, o->fb[0], 0, 0, &o->conn, 1, &o->mode))
		return fail("drmModeSetCrtc");
	for (i = 1; i <= n; i++) {
		pending = 1;
		if (drmModePageFlip(fd, o->crtc, o->fb[i % 2],
				    DRM_MODE_PAGE_FLIP_EVENT, &pending))
			return fail("drmModePageFlip");
		while (pending) {
			if (poll(&pfd, 1, 5000) != 1)
				return fail("waiting for a flip");
			if (drmHandleEvent(fd, &ev))
				return fail("drmHandleEvent");
		}
	}
	return 0;
}

/* Fenced: the driver waits for the host's answer to each creation. */
static int create_resources(int fd, int n)
{
	struct drm_virtgpu_resource_create rc;
	struct drm_gem_close gc = { 0 };
	int i;

	for (i = 0; i < n; i++) {
		memset(&rc, 0, sizeof(rc));
		rc.target = 2;		/* PIPE_TEXTURE_2D */
		rc.format = 2;		/* VIRTIO_GPU_FORMAT_B8G8R8X8_UNORM */
		rc.width = 64;
		rc.height = 64;
		rc.depth = 1;
		rc.array_size = 1;
		rc.size = 64 * 64 * 4;
		rc.stride = 64 * 4;
		if (drmIoctl(fd, DRM_IOCTL_VIRTGPU_RESOURCE_CREATE, &rc))
			return fail("VIRTGPU_RESOURCE_CREATE");
		gc.handle = rc.bo_handle;
		if (drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &gc))
			return fail("GEM_CLOSE");
	}
	return 0;
}

/* "execbuffers=N ok=N enosys=N other=N": the client's own count. */
static int execbuffers(int fd, int n)
{
	uint32_t cmd[4] = { 0 };	/* never read without virgl */
	struct drm_virtgpu_execbuffer eb;
	int i, ok = 0, enosys = 0, other = 0;

	for (i = 0; i < n; i++) {
		memset(&eb, 0, sizeof(eb));
		eb.size = sizeof(cmd);
		eb.command = (uintptr_t)cmd;
		eb.fence_fd = -1;
		/* ioctl(2) itself: drmIoctl() would retry EINTR unseen. */
		if (!ioctl(fd, DRM_IOCTL_VIRTGPU_EXECBUFFER, &eb))
			ok++;
		else if (errno == ENOSYS)
			enosys++;
		else
			other++;
	}
	printf("execbuffers=%d ok=%d enosys=%d other=%d\n", n, ok, enosys, other);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/dri/card0";
	int flips = 30, creates = 20, execs = 0, linger = 0, fd, opt, ret;
	struct output o = { 0 };
	drmVersionPtr v;

	while ((opt = getopt(argc, argv, "d:f:c:e:w:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'f':
			flips = atoi(optarg);
			break;
		case 'c':
			creates = atoi(optarg);
			break;
		case 'e':
			execs = atoi(optarg);
			break;
		case 'w':
			linger = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-f FLIPS] [-c CREATES] [-e EXECS] [-w MS]\n",
				argv[0]);
			return 1;
		}
	}
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? EXIT_NODEV : fail(dev);
	v = drmGetVersion(fd);
	ret = v && !strcmp(v->name, "virtio_gpu") ? 0 : EXIT_NODEV;
	drmFreeVersion(v);
	/*
	 * Without flips no mode is set: clients running at once cannot all
	 * be the DRM master, and the other ioctls need none.
	 */
	if (!ret && flips)
		ret = find_output(fd, &o);
	if (!ret && flips)
		ret = make_fbs(fd, &o);
	if (!ret && flips)
		ret = flip(fd, &o, flips);
	if (!ret)
		ret = create_resources(fd, creates);
	if (!ret)
		printf("flips=%d creates=%d\n", flips, creates);
	if (!ret && execs)
		ret = execbuffers(fd, execs);
	if (linger > 0)
		usleep((useconds_t)linger * 1000);
	close(fd);	/* frees the framebuffers and dumb buffers */
	return ret;
}
