// SPDX-License-Identifier: GPL-2.0
/*
 * history.c - comparisons between runs that can be trusted.
 *
 * Two runs of the same job minutes apart differ by more than the spread
 * inside either run (a host's scheduling, frequency or cache regime changes
 * between them), so a verdict between runs judged by in-run noise alone
 * calls A/A pairs significant far more often than 5 in 100
 * (docs/statistics.md). This file picks, per job, the reference a change
 * is measured against, never silently: the newest complete run that
 * measured the same thing; loads the history beside it, from which drift.c
 * takes each job's run-to-run drift (the reference's stable segment); and
 * pools the drift over the host's other jobs for the jobs whose own
 * history is too short.
 */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/diag.h"
#include "store.h"
#include "lib/util.h"
#include "history.h"


#define WARN_LINES 3		/* skipped runs named; the rest are counted */

/* Why a stored run cannot be a reference, or NULL. */
static const char *unusable(const struct kscen_run *run, const char *scenario,
			    const char *now)
{
	if (scenario && !kscen_same_str(run->scenario, scenario))
		return "another scenario";
	if (run->partial)
		return "partial: the run was cut short";
	if (run->filter)
		return "filtered: it ran only some jobs";
	if (run->shard)
		return "one shard: it ran only some jobs (kscen merge joins them)";
	if (!run->started)
		return "no start time";
	if (strcmp(run->started, now) > 0)
		return "dated in the future";
	return NULL;
}

int kscen_history_load(const char *dir, const char *scenario,
		       const char *before, const char *exclude,
		       struct kscen_history *h)
{
	return kscen_history_load_some(dir, scenario, before, exclude, NULL, h);
}

/* Is @path's file name that of a run labelled @label: ...+<label>.yaml? */
static bool labelled(const char *path, const char *label)
{
	size_t n = strlen(path), l = strlen(label);

	return n > l + 6 && path[n - l - 6] == '+' && !strncmp(path + n - l - 5, label, l) &&
	       !strcmp(path + n - 5, ".yaml");
}

/*
 * The runs of @dir, newest first; with @fits, only the first that fits;
 * with @label, only those labelled so (by their file names: the newest
 * KSCEN_HISTORY_MAX_FILES of them, however many runs are not).
 */
static int load(const char *dir, const char *scenario, const char *before,
		const char *exclude, const char *label, const struct kscen_idset *want,
		bool (*fits)(const struct kscen_run *run), struct kscen_history *h)
{
	unsigned nr, skipped = 0, seen = 0;
	char **paths, now[32];
	int ret;

	memset(h, 0, sizeof(*h));
	ret = kscen_result_list(dir, NULL, &paths, &nr);
	if (ret)
		return ret;
	kscen_utc_now_buf(now, sizeof(now));
	h->run = kscen_xcalloc(nr + 1, sizeof(*h->run));
	for (unsigned i = 0; i < nr; i++) {
		struct kscen_run *run = NULL;
		const char *why = NULL;
		char err[512] = "";

		if ((label && !labelled(paths[i], label)) ||
		    seen++ >= KSCEN_HISTORY_MAX_FILES || (fits && h->nr) ||
		    (exclude && !strcmp(paths[i], exclude)))
			goto next;
		if (kscen_result_load_some(paths[i], want, &run, err, sizeof(err)))
			why = err[0] ? err : "does not load";
		else if (!(why = unusable(run, scenario, now)) && before &&
			 strcmp(run->started, before) > 0)
			goto next;	/* later than the run at hand: silently */
		if (!why && fits && !fits(run))
			goto next;
		if (!why && label && !kscen_same_str(run->label, label))
			goto next;	/* a file renamed by hand */
		if (!why) {
			h->run[h->nr++] = run;
			run = NULL;
		} else if (skipped++ < WARN_LINES) {
			/* A parse error names the file itself. */
			if (strstr(why, paths[i]) == why)
				kscen_diag(KSCEN_DIAG_WARNING, NULL, NOWHERE,
					   "skipping stored run %s", why);
			else
				kscen_diag(KSCEN_DIAG_WARNING, NULL, NOWHERE,
					   "skipping stored run %s: %s", paths[i], why);
		}
next:
		kscen_run_free(run);
		free(paths[i]);
	}
	if (skipped > WARN_LINES)
		kscen_diag(KSCEN_DIAG_WARNING, NULL, NOWHERE,
			   "skipping %u more stored runs in %s", skipped - WARN_LINES, dir);
	free(paths);
	return 0;
}

int kscen_history_load_some(const char *dir, const char *scenario,
			    const char *before, const char *exclude,
			    const struct kscen_idset *want, struct kscen_history *h)
{
	return load(dir, scenario, before, exclude, NULL, want, NULL, h);
}

int kscen_history_load_label(const char *dir, const char *scenario, const char *label,
			     const char *before, const char *exclude,
			     const struct kscen_idset *want, struct kscen_history *h)
{
	return load(dir, scenario, before, exclude, label, want, NULL, h);
}

int kscen_history_newest(const char *dir, const char *scenario,
			 const struct kscen_idset *want,
			 bool (*fits)(const struct kscen_run *run),
			 struct kscen_history *h)
{
	return load(dir, scenario, NULL, NULL, NULL, want, fits, h);
}

void kscen_history_free(struct kscen_history *h)
{
	for (unsigned i = 0; i < h->nr; i++)
		kscen_run_free(h->run[i]);
	free(h->run);
	memset(h, 0, sizeof(*h));
}

/* ---- References ------------------------------------------------------- */

/* The reference most jobs use is named once; the others where they differ. */
static void pick_main(struct kscen_refs *r)
{
	unsigned best = 0;

	for (unsigned i = 0; i < r->nr; i++) {
		unsigned n = 0;

		if (!r->ref[i].run)
			continue;
		for (unsigned k = 0; k < r->nr; k++)
			n += r->ref[k].run == r->ref[i].run;
		if (n > best) {
			best = n;
			r->main = r->ref[i].run;
		}
	}
}

static void refs_init(struct kscen_refs *r, const struct kscen_run *run)
{
	memset(r, 0, sizeof(*r));
	r->asked = true;
	r->nr = run->nr_jobs;
	r->ref = kscen_xcalloc(run->nr_jobs, sizeof(*r->ref));
}

static void set_ref(struct kscen_refs *r, unsigned i, const struct kscen_run *ref,
		    const struct kscen_job_result *rj,
		    const struct kscen_job_result *j)
{
	r->ref[i].run = ref;
	r->ref[i].job = rj;
	r->compared++;
	kscen_history_drift(&r->hist, ref, rj, kscen_primary(j)->name,
			    &r->ref[i].drift);
}

/*
 * The jobs whose own history is too short: the drift pooled (relative)
 * over the other jobs whose reference ran on the same host and kernel
 * build, else the pool `kscen calibrate` recorded for it before @run.
 */
static void pool_drifts(struct kscen_refs *r, const struct kscen_run *run)
{
	const struct kscen_system *cached = NULL;
	struct kscen_calib cal = { 0 };
	bool have_cal = false;

	for (unsigned i = 0; i < r->nr; i++) {
		struct kscen_drift *d = &r->ref[i].drift;
		const struct kscen_system *sys;
		double v = 0;
		unsigned df = 0, jobs = 0;
		char which[48];

		if (!r->ref[i].run || d->src != KSCEN_DRIFT_NONE || !isfinite(d->level))
			continue;
		sys = &r->ref[i].run->system;
		for (unsigned k = 0; k < r->nr; k++) {
			const struct kscen_drift *o = &r->ref[k].drift;

			if (k == i || !r->ref[k].run || o->src != KSCEN_DRIFT_OWN ||
			    !kscen_same_str(r->ref[k].run->system.hostname, sys->hostname) ||
			    !kscen_same_str(r->ref[k].run->system.kernel, sys->kernel) ||
			    !kscen_same_str(r->ref[k].run->system.kernel_build,
					    sys->kernel_build))
				continue;
			v += o->df * o->s * o->s;
			df += o->df;
			jobs++;
		}
		if (df) {
			snprintf(which, sizeof(which), "%u other job%s", jobs,
				 jobs == 1 ? "" : "s");
			kscen_drift_pool(d, sqrt(v / df), df, which);
			continue;
		}
		if (sys != cached) {
			cached = sys;
			have_cal = kscen_calib_load(r->results, sys, run->started, &cal);
		}
		if (have_cal) {
			snprintf(which, sizeof(which), "calibrated %.10s", cal.when);
			kscen_drift_pool(d, cal.s, cal.df, which);
		}
	}
}

static char *dir_of(const char *path)
{
	char *p = kscen_xstrdup(path), *d = kscen_xstrdup(dirname(p));

	free(p);
	return d;
}

/* Where runs are stored: the parent of a scenario's directory of runs. */
static char *parent_of(const char *dir)
{
	return dir_of(dir);
}

/*
 * The runs of @scenario in @dir before @run (labelled @label, or any), with
 * only @run's jobs read.
 */
static void history_for(const char *dir, const char *scenario, const char *label,
			const struct kscen_run *run, struct kscen_history *h)
{
	struct kscen_idset want;

	kscen_idset_from_run(&want, run);
	load(dir, scenario, run->started, run->path, label, &want, NULL, h);
	kscen_idset_free(&want);
}

void kscen_refs_history(struct kscen_refs *r, const struct kscen_run *run,
			const char *dir, const char *host, const char *label)
{
	const struct kscen_history *pool = &r->hist;

	refs_init(r, run);
	r->results = parent_of(dir);
	/* the drift from the newest runs; a label's runs, however old */
	history_for(dir, run->scenario, NULL, run, &r->hist);
	if (label) {
		history_for(dir, run->scenario, label, run, &r->labelled);
		/* none named so: the newest runs, by the label they hold */
		if (r->labelled.nr)
			pool = &r->labelled;
	}
	for (unsigned i = 0; i < run->nr_jobs; i++) {
		const struct kscen_job_result *j = &run->jobs[i];

		r->ref[i].why = "no earlier run of this job";
		if (!kscen_primary(j)) {
			r->ref[i].why = "did not run";
			continue;
		}
		for (unsigned k = 0; k < pool->nr; k++) {
			const struct kscen_run *h = pool->run[k];
			const struct kscen_job_result *hj = kscen_run_find(h, j->id);

			if ((host && !kscen_same_str(h->system.hostname, host)) ||
			    (label && !kscen_same_str(h->label, label)) || !hj)
				continue;
			if (!kscen_primary(hj)) {
				r->ref[i].why = "not ok in the earlier runs";
				continue;
			}
			if (!kscen_job_same(j, hj, true)) {
				r->ref[i].why = "another workload version or parameters before";
				continue;
			}
			set_ref(r, i, h, hj, j);
			break;
		}
	}
	pool_drifts(r, run);
	pick_main(r);
}

void kscen_refs_single(struct kscen_refs *r, const struct kscen_run *run,
		       struct kscen_run *ref)
{
	char *dir;

	refs_init(r, run);
	r->own = ref;
	if (ref->path) {
		dir = dir_of(ref->path);
		r->results = parent_of(dir);
		history_for(dir, ref->scenario, NULL, run, &r->hist);
		free(dir);
	}
	for (unsigned i = 0; i < run->nr_jobs; i++) {
		const struct kscen_job_result *j = &run->jobs[i];
		const struct kscen_job_result *rj = kscen_run_find(ref, j->id);

		if (!kscen_same_str(run->scenario, ref->scenario))
			r->ref[i].why = "the reference is another scenario";
		else if (!rj)
			r->ref[i].why = "not in the reference";
		else if (!kscen_primary(j) || !kscen_primary(rj))
			r->ref[i].why = "did not run in both";
		else if (!kscen_job_same(j, rj, false))
			r->ref[i].why = "another workload version or parameters";
		else
			set_ref(r, i, ref, rj, j);
	}
	pool_drifts(r, run);
	pick_main(r);
}

/*
 * The run of @h stored at @path, which the run reported names @name: read
 * once, it is one run of the drift however its references name it.
 */
static struct kscen_run *in_history(struct kscen_history *h, const char *path,
				    const char *name)
{
	for (unsigned i = 0; i < h->nr; i++) {
		if (strcmp(kscen_str(h->run[i]->path), path))
			continue;
		if (strcmp(path, name)) {
			free(h->run[i]->path);
			h->run[i]->path = kscen_xstrdup(name);	/* as the run named it */
		}
		return h->run[i];
	}
	return NULL;
}

/* A stored reference path, as written or beside the run that names it. */
static struct kscen_run *load_ref(struct kscen_history *h, const char *path,
				  const char *beside)
{
	struct kscen_run *run = NULL, *have;
	char *alt;

	for (unsigned i = 0; i < h->nr; i++)
		if (!strcmp(kscen_str(h->run[i]->path), path))
			return h->run[i];
	/* named from another working directory: the same file beside the run */
	if (access(path, F_OK) && beside) {
		char *p = kscen_xstrdup(path), *b = basename(p);

		for (unsigned i = 0; i < h->nr; i++) {
			char *q = kscen_xstrdup(kscen_str(h->run[i]->path));
			bool same = !strcmp(basename(q), b);

			free(q);
			if (same) {
				free(h->run[i]->path);
				h->run[i]->path = kscen_xstrdup(path);	/* as the run named it */
				free(p);
				return h->run[i];
			}
		}
		free(p);
	}
	if (kscen_result_load_err(path, &run, NULL, 0) && beside) {
		char *d = dir_of(beside), *p = kscen_xstrdup(path);

		alt = kscen_xasprintf("%s/%s", d, basename(p));
		free(d);
		free(p);
		have = in_history(h, alt, path);
		if (have || kscen_result_load_err(alt, &run, NULL, 0))
			run = NULL;
		free(alt);
		if (have)
			return have;
	}
	if (!run)
		return NULL;
	h->run = kscen_xrealloc(h->run, (h->nr + 1) * sizeof(*h->run));
	free(run->path);
	run->path = kscen_xstrdup(path);	/* as the run named it */
	h->run[h->nr++] = run;
	return run;
}

void kscen_refs_stored(struct kscen_refs *r, const struct kscen_run *run)
{
	const char *first = NULL;
	char *dir;

	refs_init(r, run);
	r->asked = run->compare && strcmp(run->compare, "none");
	for (unsigned i = 0; i < run->nr_jobs && !first; i++)
		first = run->jobs[i].reference;
	if (first) {
		struct stat st;

		dir = dir_of(first);
		/* named from another working directory: the run's own */
		if ((stat(dir, &st) || !S_ISDIR(st.st_mode)) && run->path) {
			free(dir);
			dir = dir_of(run->path);
		}
		r->results = parent_of(dir);
		history_for(dir, run->scenario, NULL, run, &r->hist);
		free(dir);
	}
	for (unsigned i = 0; i < run->nr_jobs; i++) {
		const struct kscen_job_result *j = &run->jobs[i], *rj;
		const struct kscen_run *ref;

		r->ref[i].why = "no reference when it ran";
		if (!j->reference || !kscen_primary(j))
			continue;
		ref = load_ref(&r->hist, j->reference, run->path);
		rj = ref ? kscen_run_find(ref, j->id) : NULL;
		if (!rj || !kscen_primary(rj)) {
			kscen_diag(KSCEN_DIAG_WARNING, NULL, NOWHERE,
				   "%s: its reference %s no longer loads", kscen_str(j->id),
				   j->reference);
			r->ref[i].why = "the stored reference no longer loads";
			continue;
		}
		set_ref(r, i, ref, rj, j);
	}
	pool_drifts(r, run);
	pick_main(r);
}

void kscen_refs_free(struct kscen_refs *r)
{
	kscen_history_free(&r->hist);
	kscen_history_free(&r->labelled);
	kscen_run_free(r->own);
	free(r->results);
	free(r->ref);
	memset(r, 0, sizeof(*r));
}

bool kscen_ref_change(const struct kscen_refs *r, const struct kscen_run *run,
		      unsigned i, struct kscen_change *c)
{
	const struct kscen_ref *ref;
	const struct kscen_metric *m;

	if (!r || i >= r->nr || !r->ref[i].run)
		return false;
	ref = &r->ref[i];
	m = kscen_primary(&run->jobs[i]);
	if (!m || !kscen_change_compute(kscen_find_metric(ref->job, m->name), m,
					false, c))
		return false;
	kscen_change_between(c, m, &ref->drift, m->better);
	return true;
}
