/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shard.h - beyond one machine: a deterministic slice of a plan (shard.c),
 * shard runs joined back into one (merge.c), and comparisons over runs from
 * several hosts (fleet.c).
 */
#ifndef KSCEN_SHARD_H
#define KSCEN_SHARD_H

#include <stdbool.h>
#include <stdio.h>

#include "jobs.h"
#include "run.h"

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
 * The weights of @jobs from the newest complete stored run of @scenario
 * in @dir that recorded its jobs' durations (seconds): a job it lacks
 * weighs the median of those it has. NULL when there is no such run;
 * *@from gets its path (malloc'ed).
 */
double *kscen_shard_weights(const struct kscen_jobs *jobs, const char *dir,
			    const char *scenario, char **from);

/*
 * @out: the jobs of @in with sel[i], in order, baseline and previous
 * renumbered (-1 where the linked job is not selected). The jobs are
 * shallow copies: free only out->job, never with kscen_jobs_free().
 */
void kscen_jobs_subset(const struct kscen_jobs *in, const bool *sel,
		       struct kscen_jobs *out);

/* merge.c */
struct kscen_merge_opts {
	bool force;		/* join mixed versions and scenario hashes */
	bool replace;		/* replace an existing regular file @out_path */
	bool quiet;
};
/*
 * Join the shard runs in @paths (files, or directories of runs) into one
 * run, saved at @out_path. Returns 0, or -EINVAL with the reason on stderr:
 * not shard runs, mixed scenarios, hashes or versions (without @force), a
 * job or a shard present twice; @out_path existing (without @replace), not
 * a regular file, or one of the runs to merge. -EINTR: a signal came
 * (kscen_interrupted), nothing written. Missing shards make the run partial.
 */
int kscen_merge(const char *out_path, char **paths, unsigned nr,
		const struct kscen_merge_opts *o, struct kscen_run **out);
/* "# shards: ..." lines of a merged run's report header. */
void kscen_shards_print(FILE *out, const struct kscen_run *run);

/*
 * fleet.c: each host's newest run in @old_arg against its newest in
 * @new_arg (files or directories of runs), the geometric mean across hosts
 * per job, and the hosts grouped by shared environment. 0 or -EINVAL.
 */
int kscen_fleet_compare(FILE *out, const char *old_arg, const char *new_arg);

#endif
