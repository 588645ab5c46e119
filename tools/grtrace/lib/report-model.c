// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace report: the queries of the engine's model that the outputs ask
 * too -- a task by its tid, a DRM client by its id, who submitted a job.
 *
 * They are apart from the engine (report.c) so that the objects form no
 * circle: report.o reaches the outputs through sinks.o, and the outputs
 * (report-out.o, report-perfetto.o) reach these, not report.o
 * (tests/layering.py checks it).
 */
#include <string.h>

#include "report-int.h"
#include "trace-file.h"

const struct grf_task *rp_task(const struct rp *rp, uint32_t tid)
{
	return grf_find_task(rp->tasks, rp->ntasks, tid);
}

const struct grf_client *rp_client(const struct rp *rp, uint64_t id)
{
	return grf_find_client(rp->clients, rp->nclients, id);
}

/*
 * The SUBMIT's task of a job pushed to the scheduler from a kworker is
 * the kworker: the process that holds the job's DRM client, when the
 * client table names it, is who submitted the job.
 */
int rp_submitter(const struct rp *rp, const struct row *row,
		 struct submitter *s)
{
	const struct grf_client *c = row->has_client ?
				     rp_client(rp, row->client) : NULL;
	const struct grf_task *t;

	memset(s, 0, sizeof(*s));
	if (c) {
		s->client = c;
		s->pid = c->pid;
		s->process = c->process;
		return 1;
	}
	if (!row->has_task)
		return 0;
	t = rp_task(rp, row->tid);
	s->pid = row->pid;
	s->tid = row->tid;
	s->process = t ? t->process : NULL;
	s->comm = t ? t->comm : NULL;
	return 1;
}
