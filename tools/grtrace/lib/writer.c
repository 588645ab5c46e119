// SPDX-License-Identifier: GPL-2.0
/*
 * libgrtrace: the pieces of a trace file, encoded for a writer
 * (include/grtrace/grtrace.h, "writing what grtrace record ... write"),
 * over trace-file.c's encoders.  The writer is the caller: it decides
 * where the bytes go and in which order the CPUs' frames land.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define GRTRACE_BUILD
#include "include/grtrace/grtrace.h"
#include "trace-file.h"

_Static_assert(GRTRACE_FILE_HEADER_MAX == GRF_HEADER_MAX &&
	       GRTRACE_FRAME_HDR_SIZE == GRF_FRAME_SIZE &&
	       GRTRACE_FRAME_MAX == GRF_FRAME_MAX,
	       "the public sizes of the trace file are trace-file.h's");
_Static_assert(GRTRACE_FRAME_ZSTD == GRF_FRAME_ZSTD &&
	       GRTRACE_FRAME_TASKS == GRF_FRAME_TASKS &&
	       GRTRACE_FRAME_CLIENTS == GRF_FRAME_CLIENTS &&
	       GRTRACE_FRAME_TAIL == GRF_FRAME_TAIL &&
	       GRTRACE_FRAME_HEAD == GRF_FRAME_HEAD &&
	       GRTRACE_FILE_ZSTD == GRF_FLAG_ZSTD,
	       "the public flags are the file's");
_Static_assert(GRTRACE_TASK_SIZE == GRF_TASK_SIZE &&
	       GRTRACE_CLIENT_SIZE == GRF_CLIENT_SIZE &&
	       GRTRACE_TAIL_SIZE == GRF_TAIL_SIZE &&
	       GRTRACE_TASK_COMM_LEN == GRF_COMM_LEN,
	       "the public table entries are the file's");

/* @src into @dst (@len bytes), cut to fit, NUL-terminated. */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

GRTRACE_API long grtrace_encode_file_header(const struct grtrace_info_file *h,
					    void *buf,
					    struct grtrace_error *err)
{
	struct grf_header g;

	if (err && err->size < GRTRACE_ERROR_SIZE_1) {
		errno = EINVAL;
		return -1;
	}
	if (err) {
		memset((char *)err + sizeof(err->size), 0,
		       sizeof(*err) - sizeof(err->size));
	}
	if (!h || !buf) {
		if (err) {
			err->status = GRTRACE_ERR_INVAL;
			err->sys = EINVAL;
			snprintf(err->msg, sizeof(err->msg),
				 "no header or no buffer (NULL)");
		}
		return -1;
	}
	if (h->size < GRTRACE_INFO_FILE_SIZE_1_4) {
		if (err) {
			err->status = GRTRACE_ERR_INVAL;
			err->sys = EINVAL;
			snprintf(err->msg, sizeof(err->msg),
				 "struct grtrace_info_file: size %u is below its 1.4 minimum %u (set .size = sizeof(struct grtrace_info_file))",
				 h->size, GRTRACE_INFO_FILE_SIZE_1_4);
		}
		return -1;
	}
	memset(&g, 0, sizeof(g));
	g.flags = (uint16_t)(h->flags & GRTRACE_FILE_ZSTD);
	g.stream_format = h->stream_format;
	g.nr_cpus = h->nr_cpus;
	copy_str(g.kernel, sizeof(g.kernel), h->kernel);
	copy_str(g.host, sizeof(g.host), h->host);
	copy_str(g.clock, sizeof(g.clock), h->clock);
	g.session = h->session;
	g.started = h->started;
	return (long)grf_encode_header(&g, buf);
}

GRTRACE_API void grtrace_encode_frame(unsigned int cpu, unsigned int flags,
				      uint32_t stored, uint32_t raw, void *buf)
{
	struct grf_frame f = {
		.cpu = (uint16_t)cpu, .flags = (uint16_t)flags,
		.stored = stored, .raw = raw,
	};

	grf_encode_frame(&f, buf);
}

GRTRACE_API void grtrace_encode_task(uint32_t pid, uint32_t tid,
				     const char *comm, const char *process,
				     void *buf)
{
	struct grf_task t = { .pid = pid, .tid = tid };

	copy_str(t.comm, sizeof(t.comm), comm);
	copy_str(t.process, sizeof(t.process), process);
	grf_encode_task(&t, buf);
}

GRTRACE_API void grtrace_encode_client(uint64_t id, uint32_t pid,
				       const char *process, void *buf)
{
	struct grf_client c = { .id = id, .pid = pid };

	copy_str(c.process, sizeof(c.process), process);
	grf_encode_client(&c, buf);
}

GRTRACE_API void grtrace_encode_tail(uint32_t cpu, uint64_t cseq, void *buf)
{
	struct grf_tail t = { .cpu = cpu, .next = cseq };

	grf_encode_tail(&t, buf);
}

GRTRACE_API long grtrace_compress_frame(const void *src, size_t len,
					int level, void **out)
{
	return grf_compress(src, len, level, out);
}

GRTRACE_API void grtrace_compress_done(void)
{
	grf_compress_done();
}
