/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jobs.h - a scenario's matrix expanded into jobs (expand.c): each job is
 * one combination of parameter values, with its baseline and "previous";
 * or the same jobs' ids one at a time (plan, validate).
 */
#ifndef KSCEN_JOBS_H
#define KSCEN_JOBS_H

#include "scenario/scenario.h"

/* ---- Jobs (expand.c) --------------------------------------------------- */

struct kscen_job {
	char *id;		/* "thread/breakpoints=4,parallelism=2" */
	const struct kscen_job_spec *spec;
	const struct kscen_workload *workload;
	void *params;		/* filled params struct */
	/*
	 * The declared params, in declaration order, as text: one array of
	 * 2 * nr_kv (values = keys + nr_kv) whose strings are the scenario's
	 * own (names, values, labels) or, for a value too long for an id,
	 * its short form in the jobs' strs.
	 */
	char **keys, **values;
	unsigned nr_kv;
	/* The workload's table, or own_metrics where the job has its own. */
	const struct kscen_metric_desc *metrics;
	unsigned nr_metrics;
	struct kscen_metric_desc *own_metrics;	/* KSCEN_MAX_METRICS, or NULL */
	int baseline;		/* index into jobs, -1: none */
	int previous;		/* index into jobs, -1: none */
	unsigned plan_pos;	/* a shard's job: its place in the whole plan, from 1 */
};

struct kscen_jobs {
	struct kscen_job *job;
	unsigned nr;
	char **strs;		/* what the jobs show of long values */
	unsigned nr_strs;
};

/*
 * Expand @s into jobs. A matrix of more than @max_jobs jobs is refused before
 * it is allocated. Errors are printed as for kscen_scenario_load().
 * The jobs point into @s: free them first with kscen_jobs_free().
 */
int kscen_expand(const struct kscen_scenario *s, unsigned long max_jobs,
		 struct kscen_jobs *out);
void kscen_jobs_free(struct kscen_jobs *jobs);

/*
 * The jobs of @s whose id matches the glob @filter (fnmatch()), in memory
 * that grows with those alone, for `run --filter`: the whole matrix is
 * checked as kscen_expand() checks it and counted into *@total, and the
 * jobs kept are kscen_expand()'s, in its order, with its baseline and
 * previous where those are kept too (-1 where not). None kept: 0 and none.
 */
int kscen_expand_some(const struct kscen_scenario *s, unsigned long max_jobs,
		      const char *filter, struct kscen_jobs *out,
		      unsigned long *total);

/* @job's timeout a sample (and a prepare:/cleanup: command): its own or @s's. */
static inline long long kscen_job_timeout(const struct kscen_scenario *s,
					  const struct kscen_job *job)
{
	return job->spec->timeout_ns ? job->spec->timeout_ns : s->timeout_ns;
}

/*
 * The same jobs one at a time, in the same order, with the same errors,
 * in memory that does not grow with the matrix (but for 16 bytes a job
 * where an axis shows two values alike): for plan and validate.
 * kscen_expand_begin() counts (@max_jobs) and finds what kscen_expand()
 * finds before it looks at single jobs: values that do not parse, an
 * exclude that removes every combination, an include the matrix has
 * already. kscen_expand_next() returns 1 and the next job; 0 after the
 * last one, once the ids are known to be unique; or a negative errno with
 * the error printed (then stop). The id is valid until the next call.
 */
struct kscen_expander;
struct kscen_job_ref {
	const char *id;
	const struct kscen_job_spec *spec;
};

int kscen_expand_begin(const struct kscen_scenario *s, unsigned long max_jobs,
		       struct kscen_expander **out);
int kscen_expand_next(struct kscen_expander *x, struct kscen_job_ref *job);
void kscen_expand_end(struct kscen_expander *x);

#endif
