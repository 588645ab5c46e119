// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace record: drain the per-CPU relay files into one trace file.
 *
 * The file (trace-file.h) is a header, then frames.  One thread per CPU
 * reads its events<cpu> file into a carry buffer and moves the whole
 * records in it to a staging buffer; a read may stop inside a record, and
 * the tail stays in the carry buffer until the rest arrives.  A full
 * staging buffer, or one older than FRAME_AGE_MS, becomes one frame:
 * compressed by the thread, then appended to the file under a lock.  The
 * readers (merge.c) put each CPU's frames back in order and merge the CPUs
 * by gseq, whatever order the frames landed in.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/grtrace.h>

#include "drm-clients.h"
#include "grtrace.h"
#include "idmap.h"
#include "lib/include/grtrace/grtrace.h"
#include "util.h"

#define READ_CHUNK	(1u << 20)	/* bytes asked of one read() */
#define POLL_MS		100		/* drain partial sub-buffers this often */
#define FRAME_MAX	(1u << 20)	/* records staged for one frame, at most */
#define FRAME_AGE_MS	100		/* a frame is written this soon at most */
#define ZSTD_LEVEL	3
/*
 * The final drain of a session that still runs (one record joined and
 * leaves): it cannot read to an end, and a producer faster than the file
 * would keep it reading; it stops after this long.
 */
#define FINAL_LIVE_S	1.0
/* A workload that outlives its SIGTERM this long is killed. */
#define TERM_WAIT_S	5.0

static const char record_help[] =
	"Usage: grtrace record [-o FILE] [-d TIME] [-b SIZE] [--no-compress]\n"
	"                      [-- COMMAND [ARGS...]]\n"
	"\n"
	"Record the event streams of all CPUs into FILE until Ctrl-C (SIGINT),\n"
	"SIGTERM, the duration given with -d, or the exit of COMMAND, which record\n"
	"runs once it is recording.  If tracing is stopped, record\n"
	"starts it and stops it again at the end; if it is already started, it\n"
	"is left running.  The counts of records written and of records the\n"
	"kernel dropped are printed at the end.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE       file to write (default grtrace.dat); '-' is\n"
	"                          standard output\n"
	"  -d, --duration TIME     stop after this long: seconds, or a number with\n"
	"                          ns, us, ms, s or m (fractions allowed)\n"
	"  -b, --buffer-size SIZE  per-CPU buffer for this recording: bytes, or a\n"
	"                          number with K or M; a multiple of 32K in\n"
	"                          [64K, 256M].  Needs tracing stopped; the old\n"
	"                          size is restored at the end\n"
	"      --no-compress       store the frames as they are (default: zstd)\n"
	"  -h, --help              show this help\n"
	"\n"
	"FILE is a trace file: a header (kernel, host, clock, session), then\n"
	"frames of each CPU's records, compressed with zstd; 'grtrace report'\n"
	"and 'grtrace dump' read it.\n"
	"\n"
	"When standard error is a terminal, a progress line shows events/s, MB\n"
	"written and events dropped so far.  With COMMAND, the exit status is\n"
	"record's own (0, or 1 on an error); COMMAND's is printed.\n";

static const struct option record_opts[] = {
	{ "output",   required_argument, NULL, 'o' },
	{ "duration", required_argument, NULL, 'd' },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "no-compress", no_argument,      NULL, 'Z' },
	{ "help",     no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct cpu_reader {
	unsigned int cpu;
	int fd;
	char path[4096];
	pthread_t thread;
	uint8_t *carry;		/* READ_CHUNK + GRTRACE_MAX_RECORD bytes */
	size_t carry_len;
	uint64_t consumed;	/* stream offset of carry[0] */
	uint8_t *stage;		/* whole records for the next frame */
	size_t stage_len;
	double stage_since;	/* when its first record was staged */
	uint64_t stage_records;	/* and events: counted once written */
	uint64_t stage_events;
	uint64_t records;	/* written to the file */
	_Atomic uint64_t events;	/* read by the progress line */
	_Atomic uint64_t bytes;
	int failed;
	int write_failed;
	grtrace_checker *chk;	/* the records checked before they are written */
	struct idmap *seen;	/* tids of SUBMITs this reader has named */
	struct idmap *seen_clients;	/* and the DRM client ids they named */
};

/* A thread of the task table, named. */
struct rec_task {
	uint32_t pid;
	uint32_t tid;
	char comm[GRTRACE_TASK_COMM_LEN + 1];
	char process[GRTRACE_TASK_COMM_LEN + 1];
};

/*
 * The threads the SUBMITs name, named from /proc as soon as a reader sees
 * them (a thread that exits first stays unnamed, counted), and written as
 * the file's task table at the end.
 */
static struct {
	pthread_mutex_t lock;
	struct idmap *map;	/* tid -> 1: looked up */
	struct rec_task *t;
	size_t n, cap;
	uint64_t unnamed;
} tasks = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * The DRM clients the SUBMITs name (6.16 on), named from /proc/PID/fdinfo:
 * a client not known yet costs a pass over every process, which notes
 * every client open then, so the next new one is usually known already.
 * One closed before its pass stays unnamed (counted): client ids are not
 * reused, no later pass finds it.  The clients some SUBMIT named are
 * written as the file's client table at the end, after the task table.
 */
#define CLIENT_GONE	UINT32_MAX	/* looked for, not found */

struct rec_client {
	uint64_t id;
	uint32_t pid;
	char process[GRTRACE_TASK_COMM_LEN + 1];
	int named;		/* a SUBMIT named it: it goes in the file */
};

static struct {
	pthread_mutex_t lock;
	struct idmap *map;	/* id -> index in @t, or CLIENT_GONE */
	struct rec_client *t;
	size_t n, cap;
	size_t named;		/* entries of @t a SUBMIT named */
	uint64_t unnamed;
	int proc_failed;	/* /proc could not be read: said once */
} clients = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct {
	int out_fd;
	const char *out_name;
	pthread_mutex_t lock;
	int stop_pipe[2];
	atomic_int stopping;	/* set once tracing is stopped (or left on) */
	atomic_int final_until_empty;	/* final drain may read to EOF */
	atomic_int abort;	/* a fatal error in a reader */
	atomic_int read_failed;	/* a CPU could not be read on: stop */
	int write_broken;	/* a write failed: the file ends before it */
	int started_here;	/* we started tracing (and stop it) */
	int compress;
	unsigned int format;	/* the session's stream format */
	uint64_t session;	/* as the file's header says */
	uint64_t file_bytes;	/* written so far, header included */
} rec = {
	.out_fd = -1,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.stop_pipe = { -1, -1 },
};

static double now_sec(void);

/* The /proc of the names: $GRTRACE_PROC (for tests) or /proc. */
static const char *proc_dir(void)
{
	const char *p = getenv("GRTRACE_PROC");

	return p && *p ? p : "/proc";
}

/* /proc/<pid>[/task/<tid>]/comm into @buf; -1 if the thread is gone. */
static int read_comm(uint32_t pid, uint32_t tid, char *buf, size_t len)
{
	char path[4096];
	ssize_t n;
	int fd;

	if (tid)
		snprintf(path, sizeof(path), "%s/%u/task/%u/comm", proc_dir(),
			 pid, tid);
	else
		snprintf(path, sizeof(path), "%s/%u/comm", proc_dir(), pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	if (buf[n - 1] == '\n')
		n--;
	buf[n] = 0;
	return 0;
}

/* A SUBMIT named thread @tid of @pid: name it, once per recording. */
static void note_task(struct cpu_reader *r, uint32_t pid, uint32_t tid)
{
	struct rec_task t = { .pid = pid, .tid = tid };

	if (idmap_get(r->seen, tid) >= 0)
		return;
	idmap_set(r->seen, tid, 1);
	pthread_mutex_lock(&tasks.lock);
	if (idmap_get(tasks.map, tid) >= 0)
		goto out;
	idmap_set(tasks.map, tid, 1);
	if (read_comm(pid, tid, t.comm, sizeof(t.comm)) < 0 ||
	    read_comm(pid, 0, t.process, sizeof(t.process)) < 0) {
		tasks.unnamed++;
		goto out;
	}
	if (tasks.n == tasks.cap) {
		tasks.cap = tasks.cap ? tasks.cap * 2 : 64;
		tasks.t = xrealloc(tasks.t, tasks.cap * sizeof(*tasks.t));
	}
	tasks.t[tasks.n++] = t;
out:
	pthread_mutex_unlock(&tasks.lock);
}

/* The clients of a pass not known yet; under clients.lock. */
static void add_clients(const struct drm_client *c, size_t n)
{
	struct rec_client g;
	size_t i;

	_Static_assert(sizeof(g.process) == sizeof(c->process),
		       "a process name of the client table");

	for (i = 0; i < n; i++) {
		if (idmap_get(clients.map, c[i].id) >= 0)
			continue;
		if (clients.n == clients.cap) {
			clients.cap = clients.cap ? clients.cap * 2 : 64;
			clients.t = xrealloc(clients.t,
					     clients.cap * sizeof(*clients.t));
		}
		memset(&g, 0, sizeof(g));
		g.id = c[i].id;
		g.pid = c[i].pid;
		memcpy(g.process, c[i].process, sizeof(g.process));
		clients.t[clients.n] = g;
		idmap_set(clients.map, c[i].id, (uint32_t)clients.n++);
	}
}

/*
 * A SUBMIT named DRM client @id: name the process holding it, once per
 * recording.  The pass runs under the lock, in this reader's thread: the
 * other readers wait only when they meet a new client too.
 */
static void note_client(struct cpu_reader *r, uint64_t id)
{
	struct drm_client *found;
	ssize_t n;
	int64_t i;

	if (idmap_get(r->seen_clients, id) >= 0)
		return;
	idmap_set(r->seen_clients, id, 1);
	pthread_mutex_lock(&clients.lock);
	i = idmap_get(clients.map, id);
	if (i < 0) {
		n = drm_clients_scan(proc_dir(), &found);
		if (n < 0 && !clients.proc_failed) {
			err_errno("cannot read %s: the DRM clients of the jobs stay unnamed",
				  proc_dir());
			clients.proc_failed = 1;
		}
		if (n > 0)
			add_clients(found, (size_t)n);
		free(found);
		i = idmap_get(clients.map, id);
		if (i < 0) {
			idmap_set(clients.map, id, CLIENT_GONE);
			clients.unnamed++;
		}
	}
	if (i >= 0 && i != CLIENT_GONE && !clients.t[i].named) {
		clients.t[i].named = 1;
		clients.named++;
	}
	pthread_mutex_unlock(&clients.lock);
}

/* One table frame (never compressed) of @len bytes; -1 on an error. */
static int write_table(unsigned int flags, const uint8_t *buf, size_t len)
{
	uint8_t hdr[GRTRACE_FRAME_HDR_SIZE];
	int ret;

	grtrace_encode_frame(0, flags, (uint32_t)len, (uint32_t)len, hdr);
	ret = write_all(rec.out_fd, hdr, sizeof(hdr));
	if (!ret)
		ret = write_all(rec.out_fd, buf, len);
	if (ret < 0) {
		err_errno("cannot write %s", rec.out_name);
		return -1;
	}
	rec.file_bytes += sizeof(hdr) + len;
	return 0;
}

/* The task table frames, after the readers are done; -1 on an error. */
static int write_tasks(void)
{
	size_t per = GRTRACE_FRAME_MAX / GRTRACE_TASK_SIZE, i, k, n;
	const struct rec_task *t;
	uint8_t *buf;
	int ret = 0;

	for (i = 0; i < tasks.n && !ret; i += n) {
		n = tasks.n - i < per ? tasks.n - i : per;
		buf = xmalloc(n * GRTRACE_TASK_SIZE);
		for (k = 0; k < n; k++) {
			t = &tasks.t[i + k];
			grtrace_encode_task(t->pid, t->tid, t->comm, t->process,
					    buf + k * GRTRACE_TASK_SIZE);
		}
		ret = write_table(GRTRACE_FRAME_TASKS, buf, n * GRTRACE_TASK_SIZE);
		free(buf);
	}
	return ret;
}

static int client_cmp(const void *a, const void *b)
{
	const struct rec_client *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The client table frames, after the task table: the clients a SUBMIT
 * named, by id, not every client a pass found.  -1 on an error.
 */
static int write_clients(void)
{
	size_t per = GRTRACE_FRAME_MAX / GRTRACE_CLIENT_SIZE, i, k, m, n = 0;
	struct rec_client *c;
	uint8_t *buf;
	int ret = 0;

	if (!clients.named)
		return 0;
	c = xmalloc(clients.named * sizeof(*c));
	for (i = 0; i < clients.n; i++)
		if (clients.t[i].named)
			c[n++] = clients.t[i];
	/* A table's entries go by id. */
	qsort(c, n, sizeof(*c), client_cmp);
	for (i = 0; i < n && !ret; i += m) {
		m = n - i < per ? n - i : per;
		buf = xmalloc(m * GRTRACE_CLIENT_SIZE);
		for (k = 0; k < m; k++)
			grtrace_encode_client(c[i + k].id, c[i + k].pid,
					      c[i + k].process,
					      buf + k * GRTRACE_CLIENT_SIZE);
		ret = write_table(GRTRACE_FRAME_CLIENTS, buf, m * GRTRACE_CLIENT_SIZE);
		free(buf);
	}
	free(c);
	return ret;
}

/*
 * The CPU tail and head tables, for a record that read every channel to
 * its end after the session had stopped: each CPU's next cseq (the
 * module's "cseq" file), which shows the records a CPU lost after its
 * last written one, and, with @heads (a record that started the session
 * itself, so read it from its start), its cseq when the session started
 * ("start=", where the module has it), which shows those lost before its
 * first.  A record that joined a session may have missed its beginning to
 * an earlier reader: no heads there.  Nothing when the module has no such
 * file, or the session runs or is another one by now.  -1 on an error.
 */
static int write_tails(const struct cpu_reader *rd, int n, int heads)
{
	char path[4096], *text, *line, *save = NULL;
	unsigned long long session = 0, next, start;
	uint8_t *buf, *hbuf;
	int enabled = 1, cpu, i, k = 0, h = 0, f, ret = 0;

	debugfs_path(path, sizeof(path), "cseq");
	/* A line per possible CPU: 16 KiB held some 400 of them. */
	if (access(path, R_OK) || !(text = debugfs_read_text("cseq")))
		return 0;
	buf = xmalloc((size_t)n * GRTRACE_TAIL_SIZE);
	hbuf = xmalloc((size_t)n * GRTRACE_TAIL_SIZE);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "session=%llu enabled=%d", &session,
			   &enabled) == 2)
			continue;
		f = sscanf(line, "cpu=%d next=%llu start=%llu", &cpu, &next,
			   &start);
		if (f < 2)
			continue;
		for (i = 0; i < n; i++) {
			if (rd[i].cpu != (unsigned int)cpu || rd[i].failed)
				continue;
			grtrace_encode_tail((uint32_t)cpu, next,
					    buf + (size_t)k++ * GRTRACE_TAIL_SIZE);
			if (f < 3 || !heads)
				continue;
			grtrace_encode_tail((uint32_t)cpu, start,
					    hbuf + (size_t)h++ * GRTRACE_TAIL_SIZE);
		}
	}
	if (k && !enabled && session == rec.session)
		ret = write_table(GRTRACE_FRAME_TAIL, buf,
				  (size_t)k * GRTRACE_TAIL_SIZE);
	if (!ret && h && !enabled && session == rec.session)
		ret = write_table(GRTRACE_FRAME_HEAD, hbuf,
				  (size_t)h * GRTRACE_TAIL_SIZE);
	free(hbuf);
	free(buf);
	free(text);
	return ret;
}

/* Append @len bytes of @r's whole records to the file as one frame. */
static int write_frame(struct cpu_reader *r, const uint8_t *buf, size_t len)
{
	uint8_t hdr[GRTRACE_FRAME_HDR_SIZE];
	uint32_t stored = (uint32_t)len;
	unsigned int flags = 0;
	const void *data = buf;
	void *z;
	long zlen = rec.compress ? grtrace_compress_frame(buf, len, ZSTD_LEVEL, &z) :
		    -1;
	int ret;

	if (zlen > 0) {
		flags = GRTRACE_FRAME_ZSTD;
		stored = (uint32_t)zlen;
		data = z;
	}
	grtrace_encode_frame(r->cpu, flags, stored, (uint32_t)len, hdr);
	pthread_mutex_lock(&rec.lock);
	ret = -1;
	if (!rec.write_broken) {
		ret = write_all(rec.out_fd, hdr, sizeof(hdr));
		if (!ret)
			ret = write_all(rec.out_fd, data, stored);
	}
	if (ret < 0 && !rec.write_broken) {
		err_errno("cannot write %s", rec.out_name);
		/*
		 * The file ends with its last whole frame: a frame cut short
		 * would make every reader stop there with an error.  (Not
		 * standard output, which may be a pipe or a file appended
		 * to.)  Nothing is written after.
		 */
		rec.write_broken = 1;
		if (rec.out_fd != STDOUT_FILENO &&
		    ftruncate(rec.out_fd, (off_t)rec.file_bytes) < 0)
			err_errno("cannot cut %s back to its last whole frame (%" PRIu64 " bytes)",
				  rec.out_name, rec.file_bytes);
	} else if (!ret) {
		rec.file_bytes += sizeof(hdr) + stored;
	}
	pthread_mutex_unlock(&rec.lock);
	if (ret < 0) {
		atomic_store(&rec.abort, 1);
		r->failed = 1;
		r->write_failed = 1;
		return -1;
	}
	atomic_fetch_add_explicit(&r->bytes, sizeof(hdr) + stored,
				  memory_order_relaxed);
	return 0;
}

/* @records records, @events of them job events, are in the file. */
static void count_written(struct cpu_reader *r, uint64_t records,
			  uint64_t events)
{
	r->records += records;
	atomic_fetch_add_explicit(&r->events, events, memory_order_relaxed);
}

/* Write out what @r has staged. */
static int flush_stage(struct cpu_reader *r)
{
	int ret = 0;

	/* After a bad record the ones before it are still written. */
	if (r->stage_len && !r->write_failed) {
		ret = write_frame(r, r->stage, r->stage_len);
		if (!ret)
			count_written(r, r->stage_records, r->stage_events);
	}
	r->stage_len = 0;
	r->stage_records = 0;
	r->stage_events = 0;
	return ret;
}

/*
 * Stage @len bytes of whole records (@records of them, @events job
 * events); a full stage becomes a frame.
 */
static int emit(struct cpu_reader *r, const uint8_t *buf, size_t len,
		uint64_t records, uint64_t events)
{
	if (r->stage_len + len > FRAME_MAX && flush_stage(r) < 0)
		return -1;
	if (len > FRAME_MAX) {
		if (write_frame(r, buf, len) < 0)
			return -1;
		count_written(r, records, events);
		return 0;
	}
	if (!r->stage_len)
		r->stage_since = now_sec();
	memcpy(r->stage + r->stage_len, buf, len);
	r->stage_len += len;
	r->stage_records += records;
	r->stage_events += events;
	return 0;
}

/*
 * Write out the whole records at the front of the carry buffer.  On a
 * corrupt record, the records before it are still written.
 */
static int flush_whole(struct cpu_reader *r)
{
	struct grtrace_error err = GRTRACE_ERROR_INIT;
	struct grtrace_record h = GRTRACE_RECORD_INIT;
	uint64_t records = 0, events = 0;
	size_t off = 0;
	long sz = 0;

	/* The session's format is known once it runs: from the first read. */
	if (!r->chk) {
		r->chk = grtrace_checker_new(rec.format >= GRTRACE_FORMAT_V2 ?
					     GRTRACE_FORMAT_V2 : GRTRACE_FORMAT_V1,
					     r->cpu, &err);
		if (!r->chk)
			fatal("%s: %s", r->path, err.msg);
	}
	while (off < r->carry_len) {
		/* Format 2 is checked by converting it, and stored as it is. */
		sz = grtrace_check_record(r->chk, r->carry + off,
					  r->carry_len - off, &h, &err);
		if (sz <= 0)
			break;
		if (h.type == GRTRACE_EV_SUBMIT) {
			if (h.has_task)
				note_task(r, h.pid, h.tid);
			if (h.has_client)
				note_client(r, h.client);
		}
		records++;
		if (h.is_job)
			events++;
		off += (size_t)sz;
	}
	if (off) {
		if (emit(r, r->carry, off, records, events) < 0)
			return -1;
		memmove(r->carry, r->carry + off, r->carry_len - off);
		r->carry_len -= off;
		r->consumed += off;
	}
	if (sz < 0) {
		err_msg("%s: corrupt record at byte %" PRIu64 ": %s; no longer reading this CPU",
			r->path, r->consumed, err.msg);
		r->failed = 1;
		atomic_store(&rec.read_failed, 1);
		return -1;
	}
	return 0;
}

/*
 * Read what is available now.  Returns the number of bytes read, or -1 on
 * an error (reported).  Not @final, it returns as soon as the recording
 * stops.  With @final and tracing still on elsewhere, it stops at the
 * first short read, or after FINAL_LIVE_S, so that a producer faster than
 * the file cannot keep us here.
 */
static ssize_t drain(struct cpu_reader *r, int final)
{
	double until = final ? now_sec() + FINAL_LIVE_S : 0;
	ssize_t total = 0;

	for (;;) {
		size_t room = READ_CHUNK + GRTRACE_MAX_RECORD - r->carry_len;
		ssize_t n;

		if (room > READ_CHUNK)
			room = READ_CHUNK;
		n = read(r->fd, r->carry + r->carry_len, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return total;
			err_errno("cannot read %s", r->path);
			r->failed = 1;
			atomic_store(&rec.read_failed, 1);
			return -1;
		}
		if (n == 0)
			return total;
		r->carry_len += (size_t)n;
		total += n;
		if (flush_whole(r) < 0)
			return -1;
		if (final && !atomic_load(&rec.final_until_empty) &&
		    ((size_t)n < room || now_sec() >= until))
			return total;
		if (!final && atomic_load(&rec.stopping))
			return total;
		if (atomic_load(&rec.abort))
			return -1;
	}
}

/* Until the next drain: sooner if what is staged is due in the file. */
static int poll_ms(const struct cpu_reader *r)
{
	double due;

	if (!r->stage_len)
		return POLL_MS;
	due = r->stage_since + FRAME_AGE_MS / 1000.0 - now_sec();
	if (due <= 0)
		return 0;
	return due * 1000 < POLL_MS ? (int)(due * 1000) + 1 : POLL_MS;
}

static void reader_loop(struct cpu_reader *r)
{
	int fd_useless = 0;	/* poll says readable but read gives nothing */

	for (;;) {
		struct pollfd pfd[2];
		ssize_t got;
		int nfds = 0;

		got = drain(r, 0);
		if (got < 0)
			return;
		if (got > 0)
			fd_useless = 0;
		if (atomic_load(&rec.stopping)) {
			drain(r, 1);
			return;
		}
		if (atomic_load(&rec.abort))
			return;
		if (r->stage_len &&
		    now_sec() - r->stage_since >= FRAME_AGE_MS / 1000.0 &&
		    flush_stage(r) < 0)
			return;

		pfd[nfds].fd = rec.stop_pipe[0];
		pfd[nfds++].events = POLLIN;
		if (!fd_useless) {
			pfd[nfds].fd = r->fd;
			pfd[nfds++].events = POLLIN;
		}
		if (poll(pfd, (nfds_t)nfds, poll_ms(r)) < 0 && errno != EINTR) {
			err_errno("cannot poll %s", r->path);
			r->failed = 1;
			return;
		}
		/*
		 * A readable fd right after a read returned nothing (as for a
		 * regular file at EOF) would make this loop spin: wait on the
		 * stop pipe and the timeout alone until data shows up again.
		 */
		if (nfds == 2 && pfd[1].revents && got == 0)
			fd_useless = 1;
	}
}

static void *reader_main(void *arg)
{
	struct cpu_reader *r = arg;

	reader_loop(r);
	/* Whatever ended the loop, what was read is written. */
	flush_stage(r);
	grtrace_compress_done();
	return NULL;
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The live progress line: only for a terminal, refreshed every second. */
struct progress {
	int on;
	double last;
	uint64_t last_events;
	uint64_t drops0;	/* dropped_total when recording began */
};

static uint64_t sum_events(const struct cpu_reader *rd, int n, uint64_t *bytes)
{
	uint64_t events = 0;
	int i;

	*bytes = 0;
	for (i = 0; i < n; i++) {
		events += atomic_load_explicit(&rd[i].events, memory_order_relaxed);
		*bytes += atomic_load_explicit(&rd[i].bytes, memory_order_relaxed);
	}
	return events;
}

static void progress_tick(struct progress *p, const struct cpu_reader *rd,
			  int n)
{
	uint64_t events, bytes, drops = 0;
	struct mod_stats st;
	double now = now_sec();
	int found = 0;

	if (!p->on || now - p->last < 1.0)
		return;
	events = sum_events(rd, n, &bytes);
	if (stats_read(&st) == 0)
		drops = stats_get(&st, "dropped_total", &found);
	fprintf(stderr, "\rgrtrace: %.0f events/s, %.1f MB written, ",
		(double)(events - p->last_events) / (now - p->last), bytes / 1e6);
	if (found)
		fprintf(stderr, "%" PRIu64 " dropped\033[K",
			drops >= p->drops0 ? drops - p->drops0 : drops);
	else
		fprintf(stderr, "dropped unknown\033[K");
	p->last = now;
	p->last_events = events;
}

static void progress_end(const struct progress *p)
{
	if (p->on)
		fputs("\r\033[K", stderr);
}

static void *reader_main(void *arg);
static int open_reader(struct cpu_reader *r, unsigned int cpu);
static void close_reader(struct cpu_reader *r);

/*
 * A CPU that came online for the first time since the session began got
 * its buffer and events file then: read it too, from its first record.
 * Looked for when the set of online CPUs changed.
 */
static void add_readers(struct cpu_reader *rd, int *n, int cap)
{
	static char last[256];
	unsigned int cpus[MAX_EVENT_FILES];
	char online[256] = "";
	int i, j, m;
	FILE *f;

	f = fopen("/sys/devices/system/cpu/online", "re");
	if (f) {
		if (!fgets(online, sizeof(online), f))
			online[0] = '\0';
		fclose(f);
	}
	if (!strcmp(online, last))
		return;
	snprintf(last, sizeof(last), "%s", online);
	m = list_event_files(cpus, MAX_EVENT_FILES);
	for (i = 0; i < m && *n < cap; i++) {
		for (j = 0; j < *n && rd[j].cpu != cpus[i]; j++)
			;
		if (j < *n || open_reader(&rd[*n], cpus[i]) < 0)
			continue;
		if (pthread_create(&rd[*n].thread, NULL, reader_main, &rd[*n])) {
			err_msg("cannot create a thread for %s", rd[*n].path);
			close_reader(&rd[*n]);
			memset(&rd[*n], 0, sizeof(rd[*n]));
			continue;
		}
		err_msg("CPU %u came online: recording it too", cpus[i]);
		(*n)++;
	}
}

/* Wait for SIGINT/SIGTERM (blocked), the deadline, or a reader's abort. */
/* The workload of "record -- COMMAND", while recording. */
#define CHILD_RUNNING	(-1)
#define CHILD_EXITED	(-2)	/* a zombie until end_command() */

/*
 * Until a signal of @sigs, the duration, or the exit of the workload
 * @child (if > 0; *@status then becomes CHILD_EXITED, and the workload is
 * left unreaped for end_command()).
 */
static void wait_for_stop(const sigset_t *sigs, double duration,
			  struct progress *prog, struct cpu_reader *rd,
			  int *n, int cap, pid_t child, int *status)
{
	double deadline = duration > 0 ? now_sec() + duration : 0;

	for (;;) {
		struct timespec ts = { 0, POLL_MS * 1000000L };
		int sig;

		if (duration > 0) {
			double left = deadline - now_sec();

			if (left <= 0)
				break;
			if (left < POLL_MS / 1000.0) {
				ts.tv_sec = 0;
				ts.tv_nsec = (long)(left * 1e9);
			}
		}
		sig = sigtimedwait(sigs, NULL, &ts);
		if (sig == SIGCHLD) {
			siginfo_t si = { .si_pid = 0 };

			/*
			 * Not reaped yet: its threads' names stay readable in
			 * /proc until the last drain has named them.
			 */
			if (waitid(P_PID, child, &si,
				   WEXITED | WNOHANG | WNOWAIT) < 0 ||
			    si.si_pid != child)
				continue;
			*status = CHILD_EXITED;
		}
		if (sig > 0 || atomic_load(&rec.abort) ||
		    atomic_load(&rec.read_failed))
			break;
		add_readers(rd, n, cap);
		progress_tick(prog, rd, *n);
	}
	progress_end(prog);
}

/*
 * Before anything changes: an output that cannot be a file fails now, so
 * that no session is started for it.  -1 (reported) if so.
 */
static int check_output(const char *output)
{
	struct stat st;

	if (strcmp(output, "-") && !stat(output, &st) && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		err_errno("cannot create %s", output);
		return -1;
	}
	return 0;
}

/*
 * Once the session is there: an existing file of that name is replaced
 * only by a recording that could start.  -1 (reported) on an error.
 */
static int open_output(const char *output)
{
	if (!strcmp(output, "-")) {
		rec.out_fd = STDOUT_FILENO;
		rec.out_name = "<stdout>";
		return 0;
	}
	rec.out_fd = create_output(output);
	rec.out_name = output;
	if (rec.out_fd < 0) {
		err_errno("cannot create %s", output);
		return -1;
	}
	return 0;
}

/* The file header: what the recording is of. */
static int write_header(int nr_cpus, const struct mod_stats *st)
{
	struct grtrace_info_file h = {
		.size = sizeof(h),
		.flags = rec.compress ? GRTRACE_FILE_ZSTD : 0,
		.stream_format = rec.format,
		.nr_cpus = (uint32_t)nr_cpus,
		.started = (uint64_t)time(NULL),
	};
	uint8_t buf[GRTRACE_FILE_HEADER_MAX];
	char config[4096], path[4096], *v;
	struct utsname u;
	size_t len;

	if (!uname(&u)) {
		snprintf(h.kernel, sizeof(h.kernel), "%s", u.release);
		snprintf(h.host, sizeof(h.host), "%s", u.nodename);
	}
	/* The clock, if the module says (older ones have no config file). */
	debugfs_path(path, sizeof(path), "config");
	if (!access(path, R_OK) &&
	    debugfs_read("config", config, sizeof(config)) == 0 &&
	    (v = strstr(config, "clock=")) && (v == config || v[-1] == '\n'))
		snprintf(h.clock, sizeof(h.clock), "%.*s",
			 (int)strcspn(v + 6, "\n"), v + 6);
	if (st)
		h.session = stats_get(st, "session", NULL);
	rec.session = h.session;
	len = (size_t)grtrace_encode_file_header(&h, buf, NULL);
	if (write_all(rec.out_fd, buf, len) < 0) {
		err_errno("cannot write %s", rec.out_name);
		return -1;
	}
	rec.file_bytes = len;
	return 0;
}

/* ---- -b: the buffer size for this recording ------------------------------------ */

/* "4M", "65536", "512K": bytes, checked as the module checks them. */
static uint64_t record_buffer_size(const char *s)
{
	uint64_t v;

	if (parse_buffer_size(s, &v) < 0)
		usage_error("record", "record: invalid buffer size '%s': a multiple of 32K in [64K, 256M]",
			    s);
	return v;
}

/*
 * Set buffer_size for the recording; @old gets the value to restore.  The
 * module only resizes a stopped buffer, and a resize discards its data.
 */
static int set_buffer_size(uint64_t size, int started, char *old, size_t len)
{
	char val[32];

	if (started) {
		err_msg("record: -b needs tracing stopped: a started buffer cannot be resized ('grtrace stop' first)");
		return -1;
	}
	if (debugfs_read("buffer_size", old, len) < 0)
		return -1;
	old[strcspn(old, "\n")] = '\0';
	snprintf(val, sizeof(val), "%" PRIu64, size);
	if (debugfs_write("buffer_size", val) < 0)
		return -1;
	err_msg("buffer_size %s -> %s bytes per CPU for this recording", old, val);
	return 0;
}

static int restore_buffer_size(const char *old)
{
	if (debugfs_write("buffer_size", old) < 0) {
		err_msg("WARNING: buffer_size could not be restored to %s", old);
		return -1;
	}
	return 0;
}

/* Open the events file of @cpu into @r; -1 after an error message. */
static int open_reader(struct cpu_reader *r, unsigned int cpu)
{
	char name[32];

	snprintf(name, sizeof(name), "events%u", cpu);
	r->cpu = cpu;
	debugfs_path(r->path, sizeof(r->path), name);
	r->fd = open(r->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0) {
		err_debugfs(r->path, "cannot open");
		return -1;
	}
	r->carry = xmalloc(READ_CHUNK + GRTRACE_MAX_RECORD);
	r->seen = idmap_new();
	r->seen_clients = idmap_new();
	r->stage = xmalloc(FRAME_MAX);
	return 0;
}

static void close_reader(struct cpu_reader *r)
{
	close(r->fd);
	free(r->carry);
	free(r->stage);
	idmap_free(r->seen);
	idmap_free(r->seen_clients);
	grtrace_checker_free(r->chk);
}

/*
 * Readers for this many CPUs at most: every possible CPU, so that one
 * that comes online for the first time during the recording (its events
 * file appears then) is read too.
 */
static int reader_capacity(int n)
{
	char buf[256], *p;
	long last = -1;
	FILE *f;

	f = fopen("/sys/devices/system/cpu/possible", "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			/* "0-3" or "0,2-5": the last number is the highest. */
			for (p = buf; *p; p++)
				if ((*p >= '0' && *p <= '9') &&
				    (p == buf || p[-1] < '0' || p[-1] > '9'))
					last = strtol(p, NULL, 10);
		}
		fclose(f);
	}
	return last + 1 > n ? (int)last + 1 : n;
}

/*
 * Open every events<cpu> file.  They exist from the module's first start
 * on, so a record that starts the session opens them afterwards.
 * Return: the number of readers in *@rdp, room for *@cap, or -1 after an
 * error message.
 */
static int open_readers(struct cpu_reader **rdp, int *cap)
{
	unsigned int cpus[MAX_EVENT_FILES];
	struct cpu_reader *rd;
	int n, i;

	n = list_event_files(cpus, MAX_EVENT_FILES);
	if (n < 0)
		return -1;
	*cap = reader_capacity(n);
	rd = calloc((size_t)*cap, sizeof(*rd));
	if (!rd)
		fatal("out of memory");
	for (i = 0; i < n; i++) {
		if (open_reader(&rd[i], cpus[i]) < 0) {
			while (i-- > 0)
				close_reader(&rd[i]);
			free(rd);
			return -1;
		}
	}
	*rdp = rd;
	return n;
}

static int stats_is_dropped(const char *key)
{
	return !strncmp(key, "dropped_", 8) && strcmp(key, "dropped_total");
}

static uint64_t delta(uint64_t before, uint64_t after)
{
	/* A counter that went down was reset: all of it is new. */
	return after >= before ? after - before : after;
}

/* What a drop reason tells the user to do. */
enum drop_class {
	DROP_STOPPED,	/* tracing was stopped: not a loss */
	DROP_CONFIG,	/* asked for: level, filters, sampling, rate limit */
	DROP_BEHIND,	/* the reader fell behind: a bigger buffer helps */
	DROP_LOST,	/* cannot be recorded, or a reason unknown here */
	DROP_NR_CLASSES
};

static enum drop_class drop_class(const char *reason)
{
	static const char *const config[] = {
		"level", "filtered_type", "filtered_engine", "filtered_ring",
		"filtered_watch", "hook", "sampled", "rate_limited",
	};
	size_t i;

	if (!strcmp(reason, "disabled"))
		return DROP_STOPPED;
	if (!strcmp(reason, "buffer_full") || !strcmp(reason, "backpressure"))
		return DROP_BEHIND;
	for (i = 0; i < sizeof(config) / sizeof(config[0]); i++)
		if (!strcmp(reason, config[i]))
			return DROP_CONFIG;
	return DROP_LOST;
}

static void forget_drops(struct mod_stats *st)
{
	int i;

	for (i = 0; i < st->n; i++)
		if (!strncmp(st->ent[i].key, "dropped_", 8))
			st->ent[i].val = 0;
}

static void print_summary(const struct cpu_reader *rd, int n,
			  const struct mod_stats *before,
			  const struct mod_stats *after, int have_stats)
{
	uint64_t records = 0, events = 0, bytes = 0, dropped = 0, total, bufsize;
	uint64_t cls[DROP_NR_CLASSES] = { 0 }, lost;
	char reasons[1024] = "";
	size_t rl = 0;
	int i, found;

	for (i = 0; i < n; i++)
		records += rd[i].records;
	events = sum_events(rd, n, &bytes);
	err_msg("recorded %" PRIu64 " records (%" PRIu64 " events) to %s, %" PRIu64 " bytes",
		records, events, rec.out_name, rec.file_bytes);
	(void)bytes;
	if (!have_stats) {
		err_msg("dropped: unknown (the stats file could not be read)");
		return;
	}
	if (stats_get(before, "session", &found) !=
	    stats_get(after, "session", NULL) && found)
		err_msg("warning: tracing was restarted during the recording (session %" PRIu64 " -> %" PRIu64 ")",
			stats_get(before, "session", NULL),
			stats_get(after, "session", NULL));
	for (i = 0; i < after->n; i++) {
		const char *key = after->ent[i].key;
		uint64_t d;

		if (!stats_is_dropped(key))
			continue;
		d = delta(stats_get(before, key, NULL), after->ent[i].val);
		dropped += d;
		cls[drop_class(key + 8)] += d;
		if (d && rl < sizeof(reasons))
			rl += (size_t)snprintf(reasons + rl, sizeof(reasons) - rl,
					       "%s%s %" PRIu64, rl ? ", " : "",
					       key + 8, d);
	}
	total = delta(stats_get(before, "dropped_total", NULL),
		      stats_get(after, "dropped_total", &found));
	if (found && total > dropped) {
		/* A reason this tool does not know: a loss until it does. */
		cls[DROP_LOST] += total - dropped;
		dropped = total;
	}
	if (!dropped) {
		err_msg("dropped: 0");
		return;
	}
	if (!rec.started_here)
		err_msg("(tracing was already started: drops are counted since the module's counters were last reset)");
	err_msg("dropped: %" PRIu64 " (%s)", dropped,
		reasons[0] ? reasons : "reason not reported");
	if (cls[DROP_STOPPED])
		err_msg("note: %" PRIu64 " came while tracing was stopped (dropped_disabled): outside any session, not a loss",
			cls[DROP_STOPPED]);
	if (cls[DROP_CONFIG])
		err_msg("note: %" PRIu64 " were left out as configured (level, filters, sampling or rate limit: see 'grtrace config')",
			cls[DROP_CONFIG]);
	lost = cls[DROP_BEHIND] + cls[DROP_LOST];
	if (!lost)
		return;
	err_msg("WARNING: %" PRIu64 " records were DROPPED by the kernel; this recording is INCOMPLETE.",
		lost);
	if (cls[DROP_BEHIND]) {
		bufsize = stats_get(after, "buffer_size", &found);
		if (found)
			err_msg("WARNING: %" PRIu64 " because the reader fell behind (buffer_full, backpressure): record with a bigger buffer_size (now %" PRIu64 " bytes per CPU; e.g. grtrace record -b 64M),",
				cls[DROP_BEHIND], bufsize);
		else
			err_msg("WARNING: %" PRIu64 " because the reader fell behind (buffer_full, backpressure): record with a bigger buffer_size (e.g. grtrace record -b 64M),",
				cls[DROP_BEHIND]);
		err_msg("WARNING: record to a faster disk (e.g. tmpfs), or trace fewer events (sampling or filters).");
	}
	if (cls[DROP_LOST])
		err_msg("WARNING: %" PRIu64 " not recordable (nmi: called in NMI; nested: too many interrupted one event on its CPU; oversize, invalid: a caller's bug, see the kernel log; or a reason unknown to this tool)",
			cls[DROP_LOST]);
}

/*
 * The workload of "record -- COMMAND": run once recording, with the signal
 * mask record had.  Returns its pid, or -1 (reported).
 */
static pid_t run_command(char **argv, const sigset_t *mask)
{
	pid_t pid = fork();

	if (pid < 0) {
		err_errno("cannot run %s", argv[0]);
		return -1;
	}
	if (!pid) {
		signal(SIGPIPE, SIG_DFL);
		pthread_sigmask(SIG_SETMASK, mask, NULL);
		/* With -o -, standard output is the trace: the workload's goes to stderr. */
		if (rec.out_fd == STDOUT_FILENO &&
		    dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		err_errno("cannot run %s", argv[0]);
		_exit(127);
	}
	return pid;
}

/*
 * After the recording: a workload still running (Ctrl-C, -d) is sent
 * SIGTERM (before the last drain) and, if it is still there TERM_WAIT_S
 * later or record is told to stop again (@sigs), SIGKILL; one that exited
 * is reaped (after the last drain); how it ended is said.
 */
static void end_command(const char *name, pid_t pid, int status,
			const sigset_t *sigs)
{
	double until = now_sec() + TERM_WAIT_S;

	if (status == CHILD_RUNNING) {
		kill(pid, SIGTERM);
		for (;;) {
			struct timespec ts = { 0, 50 * 1000000L };
			pid_t w = waitpid(pid, &status, WNOHANG);
			int sig;

			if (w == pid)
				goto said;
			if (w < 0 && errno != EINTR)
				return;
			sig = sigtimedwait(sigs, NULL, &ts);
			if ((sig > 0 && sig != SIGCHLD) || now_sec() >= until) {
				err_msg("%s is still running %s: sending SIGKILL",
					name, sig > 0 && sig != SIGCHLD ?
					"and record was told to stop again" :
					"5 s after SIGTERM");
				kill(pid, SIGKILL);
				break;
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
said:
	if (WIFEXITED(status))
		err_msg("%s exited with status %d", name, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		err_msg("%s was killed by signal %d", name, WTERMSIG(status));
}

struct record_args {
	const char *output;
	char **command;		/* after "--", or NULL */
	double duration;	/* s; 0: until stopped */
	uint64_t bufsize;	/* -b, or 0 */
};

/* Returns 1 when --help was printed; exits on a usage error. */
static int parse_record_args(int argc, char **argv, struct record_args *a)
{
	int c;

	memset(a, 0, sizeof(*a));
	optind = 0;
	opterr = 0;
	rec.compress = 1;
	while ((c = getopt_long(argc, argv, "+:o:d:b:h", record_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->output = optarg;
			break;
		case 'd': {
			uint64_t ns;

			if (parse_duration(optarg, 1e9, &ns) < 0 || !ns ||
			    ns > 1000000000ull * 1000000000ull)
				usage_error("record", "record: invalid duration '%s' (seconds, or a number with ns, us, ms, s or m)",
					    optarg);
			a->duration = ns / 1e9;
			break;
		}
		case 'b':
			a->bufsize = record_buffer_size(optarg);
			break;
		case 'Z':
			rec.compress = 0;
			break;
		case 'h':
			fputs(record_help, stdout);
			return 1;
		case ':':
			usage_error("record", "record: option '%s' needs an argument",
				    argv[optind - 1]);
		default:
			usage_error("record", "record: unknown option '%s'",
				    argv[optind - 1]);
		}
	}
	/* getopt stops at "--": what follows is the workload. */
	if (optind < argc && strcmp(argv[optind - 1], "--"))
		usage_error("record", "record: unexpected argument '%s' (a command goes after --)",
			    argv[optind]);
	if (optind < argc)
		a->command = argv + optind;
	if (!a->output)
		a->output = GRTRACE_DEFAULT_FILE;
	return 0;
}

/* A thread per reader, until one fails; returns how many run. */
static int start_readers(struct cpu_reader *rd, int n)
{
	int i;

	for (i = 0; i < n && !atomic_load(&rec.abort); i++) {
		int err = pthread_create(&rd[i].thread, NULL, reader_main, &rd[i]);

		if (err) {
			errno = err;
			err_errno("cannot create a thread for %s", rd[i].path);
			atomic_store(&rec.abort, 1);
			break;
		}
	}
	return i;
}

/*
 * Stop the session if we started it (the readers then read until the
 * buffers are empty), wake the readers and wait for them.
 */
/*
 * 1, said in one line, when the flight recorder holds the buffers (armed,
 * or frozen with a snapshot): their records are read only as its snapshot,
 * and the module refuses the events files (EBUSY) until it is disarmed.
 */
static int recorder_busy(void)
{
	char state[16];

	recorder_state(state, sizeof(state));
	if (strcmp(state, "armed") && strcmp(state, "triggered"))
		return 0;
	err_msg("record: the flight recorder is %s: its buffers are read only as a snapshot ('grtrace recorder wait -o FILE'), or 'grtrace recorder disarm' first",
		state);
	return 1;
}

/*
 * 1 if the session this record joined has been stopped by now (by its
 * owner): the module shows "enabled=0" only once the stop has finished,
 * so every record of the session is in the channels, and a final drain to
 * their end has them all.
 */
static int joined_session_ended(void)
{
	unsigned long long session;
	char text[256], path[4096];
	int enabled;

	/* An older module has no such file: nothing to say about it. */
	debugfs_path(path, sizeof(path), "cseq");
	if (access(path, R_OK) || debugfs_read("cseq", text, sizeof(text)) < 0 ||
	    sscanf(text, "session=%llu enabled=%d", &session, &enabled) != 2)
		return 0;
	return !enabled && session == rec.session;
}

/*
 * Stop the session if this record started it, wake the readers for their
 * final drain and wait for them.  That drain reads each channel to its
 * end once the session has stopped (ours, or one we joined whose owner
 * stopped it); while a joined session runs, it stops at the first short
 * read, as it would never end.  *@ended: the session had stopped.
 */
static int stop_readers(struct cpu_reader *rd, int nthreads, int started,
			int *ended)
{
	int i, ret = 0;

	*ended = 0;
	if (started) {
		if (control_write("stop") < 0)
			ret = 1;
		else
			*ended = 1;
	} else {
		*ended = joined_session_ended();
	}
	if (*ended)
		atomic_store(&rec.final_until_empty, 1);
	atomic_store(&rec.stopping, 1);
	if (write(rec.stop_pipe[1], "x", 1) < 0)
		err_errno("cannot wake the readers");
	for (i = 0; i < nthreads; i++)
		pthread_join(rd[i].thread, NULL);
	return ret;
}

/* What the readers left: 1 if one failed or cut a record short. */
static int check_readers(const struct cpu_reader *rd, int n)
{
	int i, ret = 0;

	for (i = 0; i < n; i++) {
		if (rd[i].failed)
			ret = 1;
		if (rd[i].carry_len && !rd[i].failed) {
			err_msg("%s: the stream ends inside a record: %zu bytes at byte %" PRIu64 " were not written",
				rd[i].path, rd[i].carry_len, rd[i].consumed);
			ret = 1;
		}
	}
	return ret;
}

static void free_readers(struct cpu_reader *rd, int n)
{
	int i;

	for (i = 0; i < n; i++)
		close_reader(&rd[i]);
	free(rd);
	idmap_free(tasks.map);
	free(tasks.t);
	idmap_free(clients.map);
	free(clients.t);
	close(rec.stop_pipe[0]);
	close(rec.stop_pipe[1]);
}

/* The signals the main thread takes; the readers inherit the mask. */
static void block_signals(int command, sigset_t *sigs, sigset_t *oldsigs)
{
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	/* A closed terminal or a quit key: stop as cleanly as for Ctrl-C. */
	sigaddset(sigs, SIGHUP);
	sigaddset(sigs, SIGQUIT);
	if (command)
		sigaddset(sigs, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, sigs, oldsigs);
}

/*
 * Start the session unless one runs (@state), open the readers of its
 * events files; undone on failure.  Returns how many, or -1.
 */
static int begin_session(int state, int *started, const char *old_bufsize,
			 struct cpu_reader **rdp, int *cap)
{
	int n;

	*started = 0;
	if (!state) {
		if (control_start() < 0)
			goto err;
		*started = 1;
	}
	n = open_readers(rdp, cap);
	if (n < 0) {
		if (*started)
			control_write("stop");
		goto err;
	}
	rec.started_here = *started;
	/* The session runs: its format is fixed until it stops. */
	rec.format = kernel_stream_format();
	return n;

err:
	if (old_bufsize[0])
		restore_buffer_size(old_bufsize);
	return -1;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a;
	struct cpu_reader *rd;
	struct mod_stats before, after;
	pid_t child = 0;
	int cstatus = CHILD_RUNNING;
	char old_bufsize[64] = "";
	struct progress prog = { .on = isatty(STDERR_FILENO) };
	int have_stats = 1, started = 0, ended = 0, state, n, cap, ret = 0;
	int nthreads, opened;
	sigset_t sigs, oldsigs;

	if (parse_record_args(argc, argv, &a))
		return 0;
	state = control_state();
	if (state < 0 || recorder_busy() || check_output(a.output) < 0)
		return 1;
	/* Before opening the events files: a resize replaces them. */
	if (a.bufsize && set_buffer_size(a.bufsize, state, old_bufsize,
					 sizeof(old_bufsize)) < 0)
		return 1;
	/* Not the workload's: it must not hold the readers' wake-up. */
	if (pipe2(rec.stop_pipe, O_CLOEXEC) < 0)
		fatal_errno("pipe");
	tasks.map = idmap_new();
	clients.map = idmap_new();
	block_signals(!!a.command, &sigs, &oldsigs);

	n = begin_session(state, &started, old_bufsize, &rd, &cap);
	if (n < 0)
		return 1;
	if (open_output(a.output) < 0) {
		if (started)
			control_write("stop");
		if (old_bufsize[0])
			restore_buffer_size(old_bufsize);
		free_readers(rd, n);
		return 1;
	}
	if (stats_read(&before) < 0)
		have_stats = 0;
	prog.last = now_sec();
	prog.drops0 = stats_get(&before, "dropped_total", NULL);
	/*
	 * Joining a started session, the file gets what the buffers held
	 * before we came: count its drops from the counters' reset, not now.
	 */
	if (!started)
		forget_drops(&before);
	/* A header that cannot be written: the readers never start. */
	if (write_header(n, have_stats ? &before : NULL) < 0)
		atomic_store(&rec.abort, 1);
	nthreads = start_readers(rd, n);
	if (a.duration > 0)
		err_msg("recording %d CPU%s to %s for %g s (Ctrl-C to stop early)",
			n, n == 1 ? "" : "s", rec.out_name, a.duration);
	else
		err_msg("recording %d CPU%s to %s (Ctrl-C to stop)",
			n, n == 1 ? "" : "s", rec.out_name);

	if (a.command && !atomic_load(&rec.abort))
		child = run_command(a.command, &oldsigs);
	opened = n;
	if (!atomic_load(&rec.abort) && child >= 0)
		wait_for_stop(&sigs, a.duration, &prog, rd, &n, cap, child,
			      &cstatus);
	/* The readers added meanwhile run too. */
	nthreads += n - opened;
	if (child > 0 && cstatus == CHILD_RUNNING)
		end_command(a.command[0], child, cstatus, &sigs);

	if (have_stats && stats_read(&after) < 0)
		have_stats = 0;
	ret |= stop_readers(rd, nthreads, started, &ended);
	if (child > 0 && cstatus == CHILD_EXITED)
		end_command(a.command[0], child, cstatus, &sigs);
	ret |= check_readers(rd, n);
	if (old_bufsize[0] && restore_buffer_size(old_bufsize) < 0)
		ret = 1;
	if (!atomic_load(&rec.abort) && (write_tasks() < 0 ||
					 write_clients() < 0 ||
					 (ended && write_tails(rd, n, started) < 0)))
		ret = 1;
	if (rec.out_fd != STDOUT_FILENO && close(rec.out_fd) < 0) {
		err_errno("cannot write %s", rec.out_name);
		ret = 1;
	}
	print_summary(rd, n, &before, &after, have_stats);
	if (tasks.n || tasks.unnamed)
		err_msg("submitting threads: %zu named in the file's task table",
			tasks.n);
	if (tasks.unnamed)
		err_msg("  %" PRIu64 " exited before they could be named: their jobs show pid and tid only",
			tasks.unnamed);
	if (clients.named || clients.unnamed)
		err_msg("DRM clients: %zu named in the file's client table",
			clients.named);
	if (clients.unnamed)
		err_msg("  %" PRIu64 " not found (closed before record saw them): their jobs go to the submitting thread",
			clients.unnamed);
	if (atomic_load(&rec.abort)) {
		err_msg("recording FAILED: %s is incomplete", rec.out_name);
		ret = 1;
	} else if (atomic_load(&rec.read_failed)) {
		err_msg("recording FAILED: a CPU could not be read on (above), so it stopped there; %s holds what was read until then",
			rec.out_name);
		ret = 1;
	}
	free_readers(rd, n);
	/*
	 * A stop asked for again while finishing (a second Ctrl-C) changes
	 * nothing now: it must not kill us on the way out either.
	 */
	while (sigtimedwait(&sigs, NULL, &(struct timespec){ 0, 0 }) > 0)
		;
	pthread_sigmask(SIG_SETMASK, &oldsigs, NULL);
	return ret;
}
