// SPDX-License-Identifier: GPL-2.0
/*
 * history.c - comparisons between runs that can be trusted.
 *
 * Two runs of the same job minutes apart differ by more than the spread
 * inside either run (a host's scheduling, frequency or cache regime changes
 * between them), so a verdict between runs judged by in-run noise alone
 * calls A/A pairs significant far more often than 5 in 100
 * (docs/statistics.md). This file does two things about it:
 *  - picks, per job, the reference a change is measured against, never
 *    silently: the newest complete run that measured the same thing;
 *  - estimates each job's run-to-run drift from the earlier runs of the same
 *    host and kernel build, the between-run variance component of a one-way
 *    random-effects model of the log medians (Kalibera & Jones, ISMM 2013),
 *    which kscen_change_widen() adds to every between-run interval.
 */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "store.h"
#include "util.h"
#include "history.h"
#include "report.h"

#define WARN_LINES 3		/* skipped runs named; the rest are counted */
#define Z80 0.8416212335729143	/* 80% power */

static const char *str(const char *s)
{
	return s ? s : "";
}

static void now_iso(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

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
	now_iso(now, sizeof(now));
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

bool kscen_job_same(const struct kscen_job_result *a,
		    const struct kscen_job_result *b, bool strict)
{
	if (!a || !b || !kscen_same_str(a->id, b->id) ||
	    !kscen_same_str(a->workload, b->workload))
		return false;
	if (!a->workload_version || !b->workload_version ||
	    !a->nr_eff || !b->nr_eff)
		return !strict;
	if (a->workload_version != b->workload_version || a->nr_eff != b->nr_eff)
		return false;
	/* another build of an out-of-tree module measures something else */
	if (a->module_sha256 && b->module_sha256 &&
	    strcmp(a->module_sha256, b->module_sha256))
		return false;
	for (unsigned i = 0; i < a->nr_eff; i++) {
		unsigned k;

		for (k = 0; k < b->nr_eff; k++)
			if (kscen_same_str(a->eff_keys[i], b->eff_keys[k]))
				break;
		if (k == b->nr_eff || !kscen_same_str(a->eff_values[i], b->eff_values[k]))
			return false;
	}
	return true;
}

/* ---- Drift ----------------------------------------------------------- */

double kscen_t975(unsigned df)
{
	static const double t[] = {
		NAN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045, 2.042,
	};

	if (df < ARRAY_SIZE(t))
		return t[df];
	return df < 60 ? 2.021 : df < 120 ? 2.000 : 1.960;
}

/*
 * Method of moments: the variance of the log medians over runs is the
 * between-run variance plus the mean within-run variance of a median; what
 * the runs' own noise explains is taken off, never below zero.
 */
void kscen_drift_from(const double *lmed, const double *se, unsigned k,
		      struct kscen_drift *d)
{
	double mean = 0, s2 = 0, w2 = 0;

	memset(d, 0, sizeof(*d));
	d->runs = k;
	if (k < KSCEN_DRIFT_MIN_RUNS)
		return;
	for (unsigned i = 0; i < k; i++)
		mean += lmed[i] / k;
	for (unsigned i = 0; i < k; i++) {
		s2 += (lmed[i] - mean) * (lmed[i] - mean) / (k - 1);
		w2 += se[i] * se[i] / k;
	}
	d->tau = sqrt(fmax(0, s2 - w2));
	d->se = sqrt(w2);
	d->t = kscen_t975(k - 1);
	d->spread = d->t * M_SQRT2 * d->tau;
	d->mde_between = (d->t + Z80) * sqrt(2 * d->tau * d->tau + 2 * w2);
	d->mde_within = (1.959963984540054 + Z80) * sqrt(2 * w2);
}

/*
 * The standard error of the log median of @m's samples: 1.2533 sigma / sqrt(n)
 * (the median's efficiency under a normal shape). false when the samples
 * cannot give one: fewer than 2, or not all positive.
 */
static bool log_median_se(const struct kscen_metric *m, double *lmed, double *se)
{
	double mean = 0, ss = 0, *l;
	unsigned n = m->nr_samples;

	if (n < 2)
		return false;
	l = kscen_xmalloc(n * sizeof(*l));
	for (unsigned i = 0; i < n; i++) {
		if (!(m->samples[i] > 0) || !isfinite(m->samples[i])) {
			free(l);
			return false;
		}
		l[i] = log(m->samples[i]);
		mean += l[i] / n;
	}
	for (unsigned i = 0; i < n; i++)
		ss += (l[i] - mean) * (l[i] - mean);
	*se = 1.2533141373155 * sqrt(ss / (n - 1)) / sqrt(n);
	*lmed = log(kscen_median(m->samples, n));
	free(l);
	return true;
}

/*
 * The drift of @job's metric @name over the runs of @h made on the host and
 * kernel build of @ref, newest first, at most KSCEN_DRIFT_MAX_RUNS.
 */
static void drift_of(const struct kscen_history *h, const struct kscen_run *ref,
		     const struct kscen_job_result *job, const char *name,
		     struct kscen_drift *d)
{
	double lmed[KSCEN_DRIFT_MAX_RUNS], se[KSCEN_DRIFT_MAX_RUNS];
	unsigned k = 0;

	for (unsigned i = 0; i < h->nr && k < KSCEN_DRIFT_MAX_RUNS; i++) {
		const struct kscen_run *r = h->run[i];
		const struct kscen_system *a = &r->system, *b = &ref->system;
		const struct kscen_job_result *j = kscen_run_find(r, job->id);

		if (!kscen_same_str(a->hostname, b->hostname) ||
		    !kscen_same_str(a->kernel, b->kernel) ||
		    !kscen_same_str(a->kernel_build, b->kernel_build) ||
		    !kscen_job_same(j, job, false) ||
		    !kscen_find_metric(j, name) ||
		    !log_median_se(kscen_find_metric(j, name), &lmed[k], &se[k]))
			continue;
		k++;
	}
	kscen_drift_from(lmed, se, k, d);
}

void kscen_history_drift(const struct kscen_history *h, const struct kscen_run *ref,
			 const struct kscen_job_result *job, const char *metric,
			 struct kscen_drift *d)
{
	drift_of(h, ref, job, metric, d);
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
	r->ref = kscen_xcalloc(run->nr_jobs + 1, sizeof(*r->ref));
}

static void set_ref(struct kscen_refs *r, unsigned i, const struct kscen_run *ref,
		    const struct kscen_job_result *rj,
		    const struct kscen_job_result *j)
{
	r->ref[i].run = ref;
	r->ref[i].job = rj;
	r->compared++;
	drift_of(&r->hist, ref, j, kscen_primary(j)->name, &r->ref[i].drift);
}

static char *dir_of(const char *path)
{
	char *p = kscen_xstrdup(path), *d = kscen_xstrdup(dirname(p));

	free(p);
	return d;
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
	/* the drift from the newest runs; a label's runs, however old */
	history_for(dir, run->scenario, NULL, run, &r->hist);
	if (label) {
		history_for(dir, run->scenario, label, run, &r->labelled);
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
	pick_main(r);
}

/* A stored reference path, as written or beside the run that names it. */
static struct kscen_run *load_ref(struct kscen_history *h, const char *path,
				  const char *beside)
{
	struct kscen_run *run = NULL;
	char *alt;

	for (unsigned i = 0; i < h->nr; i++)
		if (!strcmp(str(h->run[i]->path), path))
			return h->run[i];
	if (kscen_result_load_err(path, &run, NULL, 0) && beside) {
		char *d = dir_of(beside), *p = kscen_xstrdup(path);

		alt = kscen_xasprintf("%s/%s", d, basename(p));
		if (kscen_result_load_err(alt, &run, NULL, 0))
			run = NULL;
		free(alt);
		free(d);
		free(p);
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
		dir = dir_of(first);
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
				   "%s: its reference %s no longer loads", str(j->id),
				   j->reference);
			r->ref[i].why = "the stored reference no longer loads";
			continue;
		}
		set_ref(r, i, ref, rj, j);
	}
	pick_main(r);
}

void kscen_refs_free(struct kscen_refs *r)
{
	kscen_history_free(&r->hist);
	kscen_history_free(&r->labelled);
	kscen_run_free(r->own);
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
	kscen_change_widen(c, &ref->drift, m->better);
	return true;
}

void kscen_change_widen(struct kscen_change *c, const struct kscen_drift *d,
			enum kscen_better better)
{
	double llo, lhi, lc, b;

	c->between = true;
	c->hist_runs = d->runs;
	if (d->runs >= KSCEN_DRIFT_MIN_RUNS)
		c->spread = expm1(d->spread);
	if (d->runs < KSCEN_DRIFT_MIN_RUNS || !c->ci_valid || !isfinite(c->lo) ||
	    !isfinite(c->hi) || c->lo <= -1 || c->rel <= -1)
		return;
	llo = log1p(c->lo);
	lhi = log1p(c->hi);
	lc = fmin(fmax(log1p(c->rel), llo), lhi);
	b = d->spread;
	c->lo = expm1(lc - sqrt((lc - llo) * (lc - llo) + b * b));
	c->hi = expm1(lc + sqrt((lhi - lc) * (lhi - lc) + b * b));
	c->drift = true;
	c->verdict = KSCEN_SAME;
	if (c->lo > 0 || c->hi < 0)
		c->verdict = (c->lo > 0) == (better == KSCEN_HIGHER) ?
			     KSCEN_BETTER : KSCEN_WORSE;
}
