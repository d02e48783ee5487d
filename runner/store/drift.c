// SPDX-License-Identifier: GPL-2.0
/*
 * drift.c - how much a job moves from run to run when nothing changed, and
 * the verdicts between runs that allow for it.
 *
 * Two runs of the same job minutes apart differ by more than the spread
 * inside either run (the host's scheduling, frequency or cache regime
 * changes between them); a verdict between runs judged by in-run noise alone
 * calls A/A pairs significant far more often than 5 in 100. So a run is
 * compared with the history of its reference, not with the reference alone:
 *
 *  - The history: the runs up to the reference (it included) from its host,
 *    kernel release and build, holding the same job (workload version,
 *    effective parameters), each as its log median (a shift of logs is a
 *    ratio). Its change points (changepoint.c) cut it into segments; only
 *    the reference's own, the last, describes noise. A level shift is a
 *    change and never drift: runs saved after a regression are after the
 *    reference (label:good) or in a segment of their own.
 *  - The verdict: the new run's log median L against the segment's mean
 *    level, with a 95% prediction interval for one more run of the segment,
 *      L - mean  +-  t(k-1) sqrt(max(s^2, se^2) (1 + 1/k) + max(0, SE^2 - se^2))
 *    s the SD of the segment's k log medians, se^2 their mean in-run
 *    variance, SE^2 the new run's (a new run noisier than its history
 *    widens it). s already holds both the between-run and the in-run
 *    spread of a median, so nothing is subtracted and nothing can collapse
 *    to zero: the medians cannot scatter less than their own noise says.
 *  - Fewer than 3 runs in the segment: s pooled (relative) over the host's
 *    other jobs of the same kernel build, or the pool `kscen calibrate`
 *    recorded (calib.c), with both runs' in-run variance added since the
 *    pool knows nothing of this job's; with no pool, "cannot tell".
 *  - Deltas within a run ("to baseline", "to previous") whose job pair has
 *    a history of its own: the same, for the pair's log ratio; the
 *    interval becomes the union of the in-run one and t(k-1) s around the
 *    estimate, which covers the delta a rerun would give.
 * In-run standard errors come from the median absolute deviation, not the
 * standard deviation: one outlier sample must not make a run look noisy
 * (Rousseeuw & Croux 1993; 1.2533 is the median's efficiency under a
 * normal shape, 1.4826 the MAD's consistency constant).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "run.h"
#include "lib/util.h"

#define Z975 1.959963984540054
#define Z80 0.8416212335729143
#define ALPHA 0.05

/* Whether @a and @b measure the same thing (history.h). */
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

bool kscen_log_median(const struct kscen_metric *m, double *l, double *se)
{
	unsigned n = m ? m->nr_samples : 0;
	double med, *dev;
	bool logs = true;

	if (!n)
		return false;
	med = kscen_median(m->samples, n);
	if (!(med > 0) || !isfinite(med))
		return false;
	*l = log(med);
	*se = NAN;
	if (n < 2)
		return true;
	for (unsigned i = 0; i < n; i++)
		logs &= m->samples[i] > 0 && isfinite(m->samples[i]);
	dev = kscen_xmalloc(n * sizeof(*dev));
	for (unsigned i = 0; i < n; i++)
		dev[i] = logs ? fabs(log(m->samples[i]) - *l) :
			 fabs(m->samples[i] - med) / med;
	*se = 1.2533141373155 * 1.482602218505602 * kscen_median(dev, n) / sqrt(n);
	free(dev);
	if (!isfinite(*se))
		*se = NAN;
	return true;
}

/* What the allowance and the detectable changes are for @d's s and df. */
static void finish(struct kscen_drift *d)
{
	double per = d->src == KSCEN_DRIFT_OWN ? fmax(d->s * d->s, d->se2) : d->s * d->s;
	double k = d->runs ? d->runs : 1;

	d->t = kscen_t975(d->df);
	d->spread = d->t * sqrt(per * (1 + 1 / k));
	d->mde_between = (d->t + Z80) * sqrt(per * (1 + 1 / k));
	d->mde_within = (Z975 + Z80) * sqrt(2 * d->se2);
}

void kscen_drift_from(const struct kscen_series_pt *pt, unsigned n,
		      struct kscen_drift *d)
{
	struct kscen_cpoint cp[16];
	double *z, mean = 0, ss = 0, se2 = 0;
	unsigned start = 0, k, nse = 0, nc;

	memset(d, 0, sizeof(*d));
	d->level = d->s = NAN;
	d->history = n;
	if (!n)
		return;
	z = kscen_xmalloc(n * sizeof(*z));
	for (unsigned i = 0; i < n; i++)
		z[i] = pt[i].l;
	nc = kscen_changepoints(z, n, cp, ARRAY_SIZE(cp));
	free(z);
	d->changes = nc;
	if (nc)
		start = cp[nc - 1].at;
	if (n - start > KSCEN_DRIFT_MAX_RUNS)
		start = n - KSCEN_DRIFT_MAX_RUNS;
	k = n - start;
	for (unsigned i = start; i < n; i++) {
		mean += pt[i].l / k;
		if (isfinite(pt[i].se)) {
			se2 += pt[i].se * pt[i].se;
			nse++;
		}
	}
	for (unsigned i = start; i < n; i++)
		ss += (pt[i].l - mean) * (pt[i].l - mean);
	d->runs = k;
	d->level = mean;
	d->se2 = nse ? se2 / nse : 0;
	if (k >= 2)
		d->s = sqrt(ss / (k - 1));
	if (k < KSCEN_DRIFT_MIN_RUNS)
		return;
	d->src = KSCEN_DRIFT_OWN;
	d->df = k - 1;
	finish(d);
}

void kscen_drift_pool(struct kscen_drift *d, double s, unsigned df,
		      const char *which)
{
	d->src = KSCEN_DRIFT_POOL;
	d->s = s;
	d->df = df;
	snprintf(d->pool, sizeof(d->pool), "%s", which);
	finish(d);
}

static bool same_system(const struct kscen_system *a, const struct kscen_system *b)
{
	return kscen_same_str(a->hostname, b->hostname) &&
	       kscen_same_str(a->kernel, b->kernel) &&
	       kscen_same_str(a->kernel_build, b->kernel_build);
}

/* Reverse @pt[0..n): newest first in, oldest first out. */
static void oldest_first(struct kscen_series_pt *pt, unsigned n)
{
	for (unsigned i = 0; i < n / 2; i++) {
		struct kscen_series_pt t = pt[i];

		pt[i] = pt[n - 1 - i];
		pt[n - 1 - i] = t;
	}
}

void kscen_history_drift(const struct kscen_history *h, const struct kscen_run *ref,
			 const struct kscen_job_result *rj, const char *metric,
			 struct kscen_drift *d)
{
	struct kscen_series_pt pt[KSCEN_SERIES_MAX];
	unsigned n = 0;

	/* The reference itself comes last: the newest point of its history. */
	if (!kscen_log_median(kscen_find_metric(rj, metric), &pt[0].l, &pt[0].se)) {
		kscen_drift_from(pt, 0, d);
		return;
	}
	pt[0].run = ref;
	pt[0].n = kscen_find_metric(rj, metric)->nr_samples;
	n = 1;
	for (unsigned i = 0; h && i < h->nr && n < KSCEN_SERIES_MAX; i++) {
		const struct kscen_run *r = h->run[i];
		const struct kscen_job_result *j;
		const struct kscen_metric *m;

		if (r == ref || (r->path && ref->path && !strcmp(r->path, ref->path)) ||
		    !r->started || !ref->started || strcmp(r->started, ref->started) > 0 ||
		    !same_system(&r->system, &ref->system))
			continue;
		j = kscen_run_find(r, rj->id);
		if (!kscen_job_same(j, rj, false) || !(m = kscen_find_metric(j, metric)) ||
		    !kscen_log_median(m, &pt[n].l, &pt[n].se))
			continue;
		pt[n].run = r;
		pt[n++].n = m->nr_samples;
	}
	oldest_first(pt, n);
	kscen_drift_from(pt, n, d);
}

/* The log ratio of @j to @base within run @r and its in-run SE; false: none. */
static bool pair_point(const struct kscen_job_result *base,
		       const struct kscen_job_result *j, const char *metric,
		       struct kscen_series_pt *pt)
{
	struct kscen_change c;

	if (!kscen_change_compute(kscen_find_metric(base, metric),
				  kscen_find_metric(j, metric), true, &c) ||
	    !c.ci_valid || !(c.rel > -1) || !(c.lo > -1) || !isfinite(c.hi))
		return false;
	pt->l = log1p(c.rel);
	pt->se = (log1p(c.hi) - log1p(c.lo)) / (2 * Z975);
	pt->n = c.n_new;
	return true;
}

void kscen_pair_drift(const struct kscen_history *h, const struct kscen_run *run,
		      const struct kscen_job_result *j,
		      const struct kscen_job_result *base, struct kscen_drift *d)
{
	struct kscen_series_pt pt[KSCEN_SERIES_MAX];
	const struct kscen_metric *m = kscen_primary(j);
	unsigned n = 0;

	for (unsigned i = 0; m && h && i < h->nr && n < KSCEN_SERIES_MAX; i++) {
		const struct kscen_run *r = h->run[i];
		const struct kscen_job_result *hj, *hb;

		if (r == run || !same_system(&r->system, &run->system))
			continue;
		hj = kscen_run_find(r, j->id);
		hb = kscen_run_find(r, base->id);
		if (!kscen_job_same(hj, j, false) || !kscen_job_same(hb, base, false) ||
		    !pair_point(hb, hj, m->name, &pt[n]))
			continue;
		pt[n++].run = r;
	}
	oldest_first(pt, n);
	kscen_drift_from(pt, n, d);
}

/* worse or better by the metric's direction, from an interval beside 0 */
static enum kscen_verdict side(const struct kscen_change *c, enum kscen_better better)
{
	if (!(c->lo > 0) && !(c->hi < 0))
		return KSCEN_SAME;
	return (c->lo > 0) == (better == KSCEN_HIGHER) ? KSCEN_BETTER : KSCEN_WORSE;
}

static void note_drift(struct kscen_change *c, const struct kscen_drift *d)
{
	c->src = d->src;
	c->hist_runs = d->runs;
	c->df = d->df;
	snprintf(c->pool, sizeof(c->pool), "%s", d->pool);
}

void kscen_change_between(struct kscen_change *c, const struct kscen_metric *m,
			  const struct kscen_drift *d, enum kscen_better better)
{
	double l, se, v, dl, h, se2n, k = d->runs ? d->runs : 1;

	c->between = true;
	c->paired = false;
	c->drift = false;
	note_drift(c, d);
	c->lo = c->hi = c->p = c->level = c->spread = c->p_min = NAN;
	c->size = 0;
	c->ci_valid = false;
	c->verdict = KSCEN_CANNOT_TELL;
	if (!isfinite(d->level) || !kscen_log_median(m, &l, &se)) {
		/* no level or no ratio: the medians' ratio, and no verdict */
		c->rel = c->old != 0 ? c->new_ / c->old - 1 : NAN;
		return;
	}
	dl = l - d->level;
	c->old = exp(d->level);
	c->new_ = exp(l);
	c->rel = expm1(dl);
	if (d->src == KSCEN_DRIFT_NONE)
		return;
	se2n = isfinite(se) ? se * se : 0;
	if (d->src == KSCEN_DRIFT_OWN)
		v = fmax(d->s * d->s, d->se2) * (1 + 1 / k) + fmax(0, se2n - d->se2);
	else
		v = d->s * d->s * (1 + 1 / k) + se2n + d->se2 / k;
	h = d->t * sqrt(v);
	c->lo = expm1(dl - h);
	c->hi = expm1(dl + h);
	c->p = v > 0 ? kscen_t_p2(dl / sqrt(v), d->df) : dl == 0 ? 1 : 0;
	c->ci_valid = true;
	c->drift = true;
	c->level = 95;
	c->size = ALPHA;
	c->p_min = 0;
	c->spread = expm1(h);
	c->verdict = side(c, better);
}

void kscen_change_widen(struct kscen_change *c, const struct kscen_drift *d,
			enum kscen_better better)
{
	double est, llo, lhi, sen, v, h, p;

	if (d->src != KSCEN_DRIFT_OWN || !c->ci_valid || !(c->lo > -1) ||
	    !(c->rel > -1) || !isfinite(c->hi))
		return;
	est = log1p(c->rel);
	llo = log1p(c->lo);
	lhi = log1p(c->hi);
	sen = (lhi - llo) / (2 * Z975);
	v = fmax(d->s * d->s, d->se2) + fmax(0, sen * sen - d->se2);
	h = d->t * sqrt(v);
	p = v > 0 ? kscen_t_p2(est / sqrt(v), d->df) : est == 0 ? 1 : 0;
	c->lo = expm1(fmin(llo, est - h));
	c->hi = expm1(fmax(lhi, est + h));
	c->p = fmax(c->p, p);
	c->size = fmin(c->size, ALPHA);
	c->level = fmax(c->level, 95);
	c->drift = true;
	note_drift(c, d);
	c->spread = expm1(h);
	c->verdict = c->p < ALPHA ? side(c, better) : KSCEN_SAME;
}
