/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shard.h - beyond one machine: a deterministic slice of a plan (shard.c).
 * Shard runs are joined back by store/merge.c, weighed by
 * store/shard_weights.c, compared across hosts by report/fleet.c.
 */
#ifndef KSCEN_SHARD_H
#define KSCEN_SHARD_H

#include <stdbool.h>
#include <stdio.h>

#include "jobs.h"

#define KSCEN_MAX_SHARDS 100000U

/* "K/N", 1 <= K <= N <= KSCEN_MAX_SHARDS. 0 or -EINVAL. */
int kscen_shard_parse(const char *s, unsigned *k, unsigned *n);

/*
 * The shard this process is, from the job-array engine's environment:
 * SLURM_ARRAY_TASK_ID (less SLURM_ARRAY_TASK_MIN, over SLURM_ARRAY_TASK_STEP)
 * of SLURM_ARRAY_TASK_COUNT, or Kubernetes' JOB_COMPLETION_INDEX of
 * @shards (--shards N; 0: not given, overrides the Slurm count when set).
 * Returns 1 with *k, *n set (K is 1-based), 0 when the environment names no
 * shard, -EINVAL with @err filled when it names one badly.
 */
int kscen_shard_env(unsigned shards, unsigned *k, unsigned *n, char *err,
		    size_t errlen);

/*
 * sel[i] = is job i in shard @k of @n. Jobs linked by baseline or previous
 * (one connected component) always share a shard; components go, heaviest
 * first (then in plan order), to the lightest shard so far (then the
 * lowest K). A job weighs @weight[i] (its seconds in a stored run), or 1
 * each when @weight is NULL. The same plan and weights always give the
 * same slices.
 */
void kscen_shard_select(const struct kscen_jobs *jobs, unsigned k, unsigned n,
			const double *weight, bool *sel);
/*
 * @out: the jobs of @in with sel[i], in order, baseline and previous
 * renumbered (-1 where the linked job is not selected). The jobs are
 * shallow copies: free only out->job, never with kscen_jobs_free().
 */
void kscen_jobs_subset(const struct kscen_jobs *in, const bool *sel,
		       struct kscen_jobs *out);

#endif
