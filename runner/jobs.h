/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jobs.h - a scenario's matrix expanded into jobs (expand.c): each job is
 * one combination of parameter values, with its baseline and "previous".
 */
#ifndef KSCEN_JOBS_H
#define KSCEN_JOBS_H

#include "scenario.h"

/* ---- Jobs (expand.c) --------------------------------------------------- */

struct kscen_job {
	char *id;		/* "thread/breakpoints=4,parallelism=2" */
	const struct kscen_job_spec *spec;
	const struct kscen_workload *workload;
	void *params;		/* filled params struct */
	/* The declared params, in declaration order, as text. */
	char **keys, **values;
	unsigned nr_kv;
	struct kscen_metric_desc metrics[KSCEN_MAX_METRICS];
	unsigned nr_metrics;
	int baseline;		/* index into jobs, -1: none */
	int previous;		/* index into jobs, -1: none */
	unsigned plan_pos;	/* a shard's job: its place in the whole plan, from 1 */
};

struct kscen_jobs {
	struct kscen_job *job;
	unsigned nr;
};

/*
 * Expand @s into jobs. A matrix of more than @max_jobs jobs is refused before
 * it is allocated. Errors are printed as for kscen_scenario_load().
 * The jobs point into @s: free them first with kscen_jobs_free().
 */
int kscen_expand(const struct kscen_scenario *s, unsigned long max_jobs,
		 struct kscen_jobs *out);
void kscen_jobs_free(struct kscen_jobs *jobs);

#endif
