// SPDX-License-Identifier: GPL-2.0
/*
 * shard.c - one deterministic slice of a plan, for job arrays.
 *
 * Slurm job arrays and Kubernetes Indexed Jobs hand each task an index and
 * a count; `kscen run --shard K/N` turns them into a slice of the expanded
 * jobs that every task computes alike from the same scenario, with no
 * coordination. A job, its baseline and its "previous" are compared sample
 * by sample, round by round, so they must run on the same machine in the
 * same rounds: the unit of sharding is a connected component of the
 * baseline/previous graph, never a job.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "shard.h"
static int parse_uint(const char *s, const char **end, unsigned long max,
		      unsigned long *out)
{
	char *e;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, &e, 10);
	if (errno || *out > max)
		return -EINVAL;
	if (end)
		*end = e;
	else if (*e)
		return -EINVAL;
	return 0;
}

int kscen_shard_parse(const char *s, unsigned *k, unsigned *n)
{
	unsigned long a, b;
	const char *e;

	if (!s || parse_uint(s, &e, KSCEN_MAX_SHARDS, &a) || *e != '/' ||
	    parse_uint(e + 1, NULL, KSCEN_MAX_SHARDS, &b) || !a || a > b)
		return -EINVAL;
	*k = a;
	*n = b;
	return 0;
}

static int env_uint(const char *name, unsigned long *out, char *err,
		    size_t errlen)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return 0;
	if (parse_uint(v, NULL, 10 * (unsigned long)KSCEN_MAX_SHARDS, out)) {
		snprintf(err, errlen, "%s='%s' is not a whole number", name, v);
		return -EINVAL;
	}
	return 1;
}

int kscen_shard_env(unsigned shards, unsigned *k, unsigned *n, char *err,
		    size_t errlen)
{
	unsigned long id, min = 0, step = 1, count = 0;
	int r;

	r = env_uint("SLURM_ARRAY_TASK_ID", &id, err, errlen);
	if (r > 0) {
		if (env_uint("SLURM_ARRAY_TASK_MIN", &min, err, errlen) < 0 ||
		    env_uint("SLURM_ARRAY_TASK_STEP", &step, err, errlen) < 0 ||
		    env_uint("SLURM_ARRAY_TASK_COUNT", &count, err, errlen) < 0)
			return -EINVAL;
		if (shards)
			count = shards;
		if (!step || id < min || (id - min) % step) {
			snprintf(err, errlen, "SLURM_ARRAY_TASK_ID=%lu is not "
				 "SLURM_ARRAY_TASK_MIN=%lu plus a multiple of "
				 "SLURM_ARRAY_TASK_STEP=%lu", id, min, step);
			return -EINVAL;
		}
		id = (id - min) / step;
	} else if (r == 0 &&
		   (r = env_uint("JOB_COMPLETION_INDEX", &id, err, errlen)) > 0) {
		count = shards;
		if (!count) {
			snprintf(err, errlen, "JOB_COMPLETION_INDEX is set: "
				 "--shards N must say how many there are "
				 "(the Job's completions)");
			return -EINVAL;
		}
	}
	if (r <= 0)
		return r;
	if (!count || count > KSCEN_MAX_SHARDS || id >= count) {
		snprintf(err, errlen, "task index %lu does not fit %lu shards",
			 id, count);
		return -EINVAL;
	}
	*k = id + 1;
	*n = count;
	return 1;
}

static unsigned root(unsigned *parent, unsigned i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];	/* path halving */
		i = parent[i];
	}
	return i;
}

/* Union by the lower index: a component's root is its first job. */
static void join(unsigned *parent, unsigned a, unsigned b)
{
	a = root(parent, a);
	b = root(parent, b);
	if (a < b)
		parent[b] = a;
	else
		parent[a] = b;
}

struct comp {
	unsigned first, shard;
	double size;		/* its jobs, or their weights */
};

static int by_size(const void *a, const void *b)
{
	const struct comp *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->first < y->first ? -1 : x->first > y->first;
}

void kscen_shard_select(const struct kscen_jobs *jobs, unsigned k, unsigned n,
			const double *weight, bool *sel)
{
	unsigned nr = jobs->nr, nc = 0, i, c, s;
	unsigned *parent = kscen_xcalloc(nr + 1, sizeof(*parent));
	unsigned *comp_of = kscen_xcalloc(nr + 1, sizeof(*comp_of));
	double *load = kscen_xcalloc(n + 1, sizeof(*load));
	struct comp *comps = kscen_xcalloc(nr + 1, sizeof(*comps));

	for (i = 0; i < nr; i++)
		parent[i] = i;
	for (i = 0; i < nr; i++) {
		const struct kscen_job *j = &jobs->job[i];

		if (j->baseline >= 0 && (unsigned)j->baseline < nr)
			join(parent, i, j->baseline);
		if (j->previous >= 0 && (unsigned)j->previous < nr)
			join(parent, i, j->previous);
	}
	/* Roots are first jobs, so components come out in plan order. */
	for (i = 0; i < nr; i++) {
		unsigned r = root(parent, i);

		if (r == i) {
			comps[nc].first = i;
			comp_of[i] = nc++;
		}
		comps[comp_of[r]].size += weight ? weight[i] : 1;
	}
	qsort(comps, nc, sizeof(*comps), by_size);
	for (c = 0; c < nc; c++) {
		unsigned best = 0;

		for (s = 1; s < n; s++)
			if (load[s] < load[best])
				best = s;
		comps[c].shard = best;
		load[best] += comps[c].size;
	}
	/* comp_of[] indexed the unsorted order: map roots to shards again. */
	for (c = 0; c < nc; c++)
		comp_of[comps[c].first] = comps[c].shard;
	for (i = 0; i < nr; i++)
		sel[i] = comp_of[root(parent, i)] == k - 1;
	free(parent);
	free(comp_of);
	free(load);
	free(comps);
}

void kscen_jobs_subset(const struct kscen_jobs *in, const bool *sel,
		       struct kscen_jobs *out)
{
	int *map = kscen_xcalloc(in->nr + 1, sizeof(*map));
	unsigned i, nr = 0;

	for (i = 0; i < in->nr; i++)
		map[i] = sel[i] ? (int)nr++ : -1;
	out->job = kscen_xcalloc(nr + 1, sizeof(*out->job));
	out->nr = nr;
	for (i = 0; i < in->nr; i++) {
		struct kscen_job *j;

		if (!sel[i])
			continue;
		j = &out->job[map[i]];
		*j = in->job[i];
		j->plan_pos = i + 1;
		j->baseline = j->baseline >= 0 ? map[j->baseline] : -1;
		j->previous = j->previous >= 0 ? map[j->previous] : -1;
	}
	free(map);
}

/* ---- Weights from a stored run ---- */
