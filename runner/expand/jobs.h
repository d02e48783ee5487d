/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jobs.h - the expand/ stage: a scenario's matrix into jobs, each one
 * combination of parameter values with a stable id, its baseline and its
 * "previous". One walk gives them one at a time (expand.c: plan,
 * validate), and keeps those a run runs whole (expand_jobs.c); a shard of
 * the plan is shard.h's.
 */
#ifndef KSCEN_JOBS_H
#define KSCEN_JOBS_H

#include "scenario/scenario.h"


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
 * The jobs of @s one at a time, in the order a run runs them, in memory
 * that does not grow with the matrix (but for 16 bytes a job where an axis
 * shows two values alike): for plan and validate, and under
 * kscen_expand_keep(). kscen_expand_begin() counts (@max_jobs) and finds
 * what is wrong before single jobs are looked at: values that do not
 * parse, an exclude that removes every combination, an include the matrix
 * has already. kscen_expand_next() returns 1 and the next job, checked by
 * its workload; 0 after the last one, once the ids are known to be
 * unique; or a negative errno with the error said (then stop). The id is
 * valid until the next call. Errors go to the diagnostics sink as
 * kscen_scenario_load()'s do.
 */
struct kscen_expander;
struct kscen_job_ref {
	const char *id;
	const struct kscen_job_spec *spec;
	unsigned long pos;	/* its place in the plan, from 0 */
};

int kscen_expand_begin(const struct kscen_scenario *s, unsigned long max_jobs,
		       struct kscen_expander **out);
int kscen_expand_next(struct kscen_expander *x, struct kscen_job_ref *job);
void kscen_expand_end(struct kscen_expander *x);

/*
 * The same walk, keeping the jobs @keep keeps (NULL: all) whole, in memory
 * that grows with those alone; the jobs are counted into *@total. Each
 * kept job has its baseline and previous job of the whole matrix where
 * those are kept too (-1 where not). None kept: 0 and none. The jobs point
 * into @s: free them first with kscen_jobs_free().
 */
int kscen_expand_keep(const struct kscen_scenario *s, unsigned long max_jobs,
		      bool (*keep)(const struct kscen_job_ref *job, void *arg),
		      void *arg, struct kscen_jobs *out, unsigned long *total);
/* All of them (a matrix of more than @max_jobs is refused before it is walked). */
int kscen_expand(const struct kscen_scenario *s, unsigned long max_jobs,
		 struct kscen_jobs *out);
/* Those whose id matches the glob @filter (fnmatch()), for `run --filter`. */
int kscen_expand_some(const struct kscen_scenario *s, unsigned long max_jobs,
		      const char *filter, struct kscen_jobs *out,
		      unsigned long *total);
/*
 * All of them with their ids, baselines and previous jobs alone (no
 * params, shown values or metrics): what a plan's shards are cut by.
 */
int kscen_expand_ids(const struct kscen_scenario *s, unsigned long max_jobs,
		     struct kscen_jobs *out);
void kscen_jobs_free(struct kscen_jobs *jobs);

/* @job's timeout a sample (and a prepare:/cleanup: command): its own or @s's. */
static inline long long kscen_job_timeout(const struct kscen_scenario *s,
					  const struct kscen_job *job)
{
	return job->spec->timeout_ns ? job->spec->timeout_ns : s->timeout_ns;
}

#endif
