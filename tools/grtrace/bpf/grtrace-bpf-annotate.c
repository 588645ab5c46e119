// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace-bpf-annotate - the CPU side of a GPU trace: every DRM ioctl's
 * entry and return, on grtrace's clock (CLOCK_MONOTONIC), for
 * merge_timeline.py to put beside a grtrace file.
 *
 * The output is text, one ioctl per line in the order they returned:
 *
 *   # grtrace-bpf-annotate 1 clock=monotonic pid=all|PID start=NS
 *   # ts_ns dur_ns pid tid device cmd ret name comm
 *   TS DUR PID TID DRIVER:cardN 0xCMD RET DRM_IOCTL_NAME COMM
 *   ...
 *   # end=NS ioctls=N lost=N untimed=N before_start=N
 *
 * The first line is written once the probes are attached: a caller may
 * start its workload when it appears.  "lost" counts records the ring
 * buffer had no room for, "untimed" ioctls whose entry the in-flight
 * table had no room for (both are errors: exit status 1), "before_start"
 * ioctls that began before the probes were attached (not recorded).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <drm.h>

#include "annotate.h"
#include "annotate.skel.h"

#define PROG "grtrace-bpf-annotate"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void usage(FILE *f, int status)
{
	fprintf(f,
		"usage: %s [-p PID] [-d SECONDS] [-o FILE]\n"
		"Record every DRM ioctl (name, device, pid/tid/comm, duration) on\n"
		"CLOCK_MONOTONIC, grtrace's clock, until SECONDS have passed or\n"
		"SIGINT/SIGTERM.\n"
		"  -p, --pid=PID          only the ioctls of process PID\n"
		"  -d, --duration=SECONDS stop after SECONDS (default: at a signal)\n"
		"  -o, --output=FILE      the output (default, or \"-\": standard output)\n"
		"  -h, --help             this help\n",
		PROG);
	exit(status);
}

/* Core DRM ioctls by number, from the installed uapi drm.h. */
static const struct core_ioctl {
	unsigned int nr;
	const char *name;
} core_ioctls[] = {
#define X(n) { _IOC_NR(n), #n },
#include "core-ioctls.h"
#undef X
};

static void ioctl_name(const struct ga_ioctl *r, char *buf, size_t len)
{
	unsigned int nr = _IOC_NR(r->cmd);
	size_t i;

	if (_IOC_TYPE(r->cmd) != DRM_IOCTL_BASE) {
		snprintf(buf, len, "0x%x", r->cmd);
		return;
	}
	if (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END) {
		if (r->name[0])
			snprintf(buf, len, "DRM_IOCTL_%.*s", GA_NAME_LEN, r->name);
		else
			snprintf(buf, len, "DRM_COMMAND_BASE+0x%02x",
				 nr - DRM_COMMAND_BASE);
		return;
	}
	for (i = 0; i < sizeof(core_ioctls) / sizeof(core_ioctls[0]); i++) {
		if (core_ioctls[i].nr == nr) {
			snprintf(buf, len, "%s", core_ioctls[i].name);
			return;
		}
	}
	snprintf(buf, len, "DRM_IOCTL_0x%02x", nr);
}

/* A comm as one field: blanks and controls become '_', empty is "-". */
static void field(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < len && src[i]; i++)
		dst[i] = (unsigned char)src[i] <= ' ' || src[i] == 0x7f ? '_' : src[i];
	if (!i)
		dst[i++] = '-';
	dst[i] = 0;
}

struct out {
	FILE *f;
	const char *path;
	unsigned long long n;
};

static int on_record(void *ctx, void *data, size_t size)
{
	char name[GA_NAME_LEN + 32], comm[GA_COMM_LEN + 1],
	     drv[GA_DRIVER_LEN + 1], dev[GA_DRIVER_LEN + 32];
	const struct ga_ioctl *r = data;
	struct out *o = ctx;

	if (size < sizeof(*r))
		return 0;
	ioctl_name(r, name, sizeof(name));
	field(comm, r->comm, GA_COMM_LEN);
	field(drv, r->driver, GA_DRIVER_LEN);
	if (r->minor < 0)
		snprintf(dev, sizeof(dev), "%s:?", drv);
	else if (r->minor_type == 2)	/* DRM_MINOR_RENDER */
		snprintf(dev, sizeof(dev), "%s:renderD%d", drv, r->minor);
	else
		snprintf(dev, sizeof(dev), "%s:card%d", drv, r->minor);
	fprintf(o->f, "%llu %llu %u %u %s 0x%x %lld %s %s\n",
		(unsigned long long)r->ts, (unsigned long long)r->dur,
		r->pid, r->tid, dev, r->cmd, (long long)r->ret, name, comm);
	o->n++;
	return 0;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_WARN && getenv("GRTRACE_BPF_VERBOSE"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static unsigned long long counter(struct annotate_bpf *skel, __u32 which)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	unsigned long long sum = 0;
	__u64 *v;

	if (ncpu <= 0)
		return 0;
	v = calloc(ncpu, sizeof(*v));
	if (v && !bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters),
				      &which, v))
		for (i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* Why the probes could not be loaded or attached, as one line. */
static void explain(const char *what, int err)
{
	struct stat st;

	if (stat("/sys/kernel/btf/vmlinux", &st))
		die("%s: this kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)",
		    what);
	if (stat("/sys/module/drm", &st))
		die("%s: drm_ioctl() not found: the drm module is not loaded", what);
	die("%s: %s%s", what, strerror(-err),
	    err == -EPERM ? " (run as root)" : "");
}

int main(int argc, char **argv)
{
	unsigned long long start, lost, untimed, early;
	struct out o = { .f = NULL, .path = NULL };
	struct ring_buffer *rb = NULL;
	struct annotate_bpf *skel;
	long pid = 0, secs = -1;
	char *end;
	int opt, err;

	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};

	while ((opt = getopt_long(argc, argv, "p:d:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || pid <= 0 || pid > INT_MAX)
				die("-p %s: not a process id", optarg);
			break;
		case 'd':
			errno = 0;
			secs = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || secs <= 0 ||
			    secs > 86400 * 365)
				die("-d %s: not a number of seconds (1 or more)", optarg);
			break;
		case 'o':
			o.path = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (optind < argc)
		die("%s: unexpected argument (see -h)", argv[optind]);
	if (!o.path)
		o.path = "-";
	if (pid && kill(pid, 0) && errno == ESRCH)
		die("-p %ld: no such process", pid);

	libbpf_set_print(quiet_libbpf);
	skel = annotate_bpf__open();
	if (!skel)
		die("cannot open the BPF object: %s", strerror(errno));
	skel->rodata->filter_pid = pid;
	err = annotate_bpf__load(skel);
	if (err)
		explain("cannot load the BPF programs", err);
	err = annotate_bpf__attach(skel);
	if (err)
		explain("cannot attach to drm_ioctl()", err);
	/* Only now: a bad path must not leave an empty file behind. */
	o.f = strcmp(o.path, "-") ? fopen(o.path, "w") : stdout;
	if (!o.f)
		die("%s: %s", o.path, strerror(errno));
	rb = ring_buffer__new(bpf_map__fd(skel->maps.records), on_record, &o, NULL);
	if (!rb)
		die("cannot read the ring buffer: %s", strerror(errno));

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	start = now_ns();
	fprintf(o.f, "# grtrace-bpf-annotate 1 clock=monotonic pid=");
	if (pid)
		fprintf(o.f, "%ld", pid);
	else
		fprintf(o.f, "all");
	fprintf(o.f, " start=%llu\n# ts_ns dur_ns pid tid device cmd ret name comm\n",
		start);
	fflush(o.f);

	while (!stop) {
		if (secs > 0 && now_ns() - start >= secs * 1000000000ULL)
			break;
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR)
			die("reading the ring buffer: %s", strerror(-err));
		fflush(o.f);
	}
	/* Detach first: what is in the ring buffer then is all there is. */
	annotate_bpf__detach(skel);
	ring_buffer__consume(rb);
	lost = counter(skel, GA_LOST_RINGBUF);
	untimed = counter(skel, GA_LOST_INFLIGHT);
	/* An untimed ioctl returns without an entry too. */
	early = counter(skel, GA_NO_ENTRY);
	early = early > untimed ? early - untimed : 0;
	fprintf(o.f, "# end=%llu ioctls=%llu lost=%llu untimed=%llu before_start=%llu\n",
		now_ns(), o.n, lost, untimed, early);
	ring_buffer__free(rb);
	annotate_bpf__destroy(skel);
	if ((o.f != stdout && fclose(o.f)) || (o.f == stdout && fflush(o.f)))
		die("%s: %s", o.path, strerror(errno));
	fprintf(stderr, "%s: %llu ioctls", PROG, o.n);
	if (lost || untimed)
		fprintf(stderr, ", %llu lost, %llu untimed", lost, untimed);
	fputc('\n', stderr);
	return lost || untimed ? 1 : 0;
}
