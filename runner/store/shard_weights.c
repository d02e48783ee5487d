// SPDX-License-Identifier: GPL-2.0
/*
 * shard_weights.c - what each job of a plan weighs when shards are
 * balanced (`run --shard K/N`, expand/shard.c): its seconds in the newest
 * stored run that timed its jobs.
 */
#include <stdlib.h>
#include <string.h>

#include "expand/shard.h"
#include "history.h"
#include "stats/stats.h"
#include "store.h"
#include "lib/util.h"

struct dur {
	const char *id;
	double seconds;
};

static int dur_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dur *)a)->id, ((const struct dur *)b)->id);
}

/* A run that timed its jobs (kscen before 2026-12-03 did not). */
static bool timed(const struct kscen_run *run)
{
	for (unsigned i = 0; i < run->nr_jobs; i++)
		if (run->jobs[i].seconds > 0)
			return true;
	return false;
}

double *kscen_shard_weights(const struct kscen_jobs *jobs, const char *dir,
			    const char *scenario, char **from)
{
	struct kscen_history h;
	const struct kscen_run *run = NULL;
	struct kscen_idset want = { 0 };
	double *w = NULL, *secs, median;
	struct dur *d;
	unsigned nd = 0;
	char *sdir;

	*from = NULL;
	for (unsigned i = 0; i < jobs->nr; i++)
		kscen_idset_add(&want, jobs->job[i].id);
	kscen_idset_sort(&want);
	sdir = kscen_xasprintf("%s/%s", dir, scenario);
	kscen_history_newest(sdir, scenario, &want, timed, &h);
	free(sdir);
	kscen_idset_free(&want);
	run = h.nr ? h.run[0] : NULL;
	if (!run) {
		kscen_history_free(&h);
		return NULL;
	}
	d = kscen_xcalloc(run->nr_jobs + 1, sizeof(*d));
	for (unsigned i = 0; i < run->nr_jobs; i++)
		if (run->jobs[i].id && run->jobs[i].seconds > 0)
			d[nd++] = (struct dur){ run->jobs[i].id, run->jobs[i].seconds };
	qsort(d, nd, sizeof(*d), dur_cmp);
	secs = kscen_xcalloc(nd + 1, sizeof(*secs));
	for (unsigned i = 0; i < nd; i++)
		secs[i] = d[i].seconds;
	median = kscen_median(secs, nd);
	free(secs);
	w = kscen_xcalloc(jobs->nr + 1, sizeof(*w));
	for (unsigned i = 0; i < jobs->nr; i++) {
		struct dur key = { jobs->job[i].id, 0 };
		struct dur *hit = bsearch(&key, d, nd, sizeof(*d), dur_cmp);

		w[i] = hit ? hit->seconds : median;
	}
	*from = kscen_xstrdup(run->path);
	free(d);
	kscen_history_free(&h);
	return w;
}
