/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - the stats/ folder: summaries of samples (stats.c) and how two
 * sets of samples of one metric differ (signif.c); no stage, no I/O.
 */
#ifndef KSCEN_STATS_H
#define KSCEN_STATS_H

#include <stdbool.h>
#include "workloads/workload.h"

struct kscen_summary {
	double median, mean, stddev, min, max;
	double cv;		/* stddev / |mean|; NaN when the mean is 0 */
	double ci_lo, ci_hi;	/* 95% CI of the median (order statistics) */
	unsigned outliers;	/* beyond Tukey's fences; never dropped */
	bool bimodal;		/* gap test: two clusters far apart */
};

/* One metric of a job: its samples, in the order taken, and their summary. */
struct kscen_metric {
	char *name, *unit;
	enum kscen_better better;
	double *samples;
	unsigned nr_samples;
	struct kscen_summary sum;
};

/* stats.c */
void kscen_summarize(const double *x, unsigned n, struct kscen_summary *out);
double kscen_median(const double *x, unsigned n);
void kscen_sort(double *x, unsigned n);
/* Lower rank of the 95% CI of a median of @n samples; 0 when n < 6. */
unsigned kscen_median_ci_rank(unsigned n);
/* The CI's half-width relative to the median, in percent. */
double kscen_ci_halfwidth(const struct kscen_summary *s);

/* signif.c: how two sets of samples of one metric differ. */
enum kscen_verdict {
	KSCEN_SAME,		/* not significant: printed "~" */
	KSCEN_BETTER,
	KSCEN_WORSE,
};

struct kscen_change {
	double old, new_;	/* medians */
	double rel;		/* new / old - 1; NaN when old is 0 */
	double lo, hi;		/* 95% CI of rel */
	double p;		/* two-sided p-value of the named test */
	unsigned n_old, n_new;	/* samples; pairs when paired */
	bool paired;		/* from the rounds' pairs (signed-rank) */
	bool ci_valid;		/* false: too few samples for a 95% CI */
	enum kscen_verdict verdict;
	/* Between runs (kscen_change_widen(), history.c): */
	bool between;		/* the samples come from two runs */
	unsigned hist_runs;	/* earlier runs the drift was estimated from */
	bool drift;		/* lo, hi include the run-to-run drift */
	double spread;		/* relative: two runs may differ by +-spread */
};

/*
 * Compare @new_ against @old. @paired_ok: sample i of both was taken in the
 * same round, so the pairs may be used where they give a narrower interval.
 * Returns false when either has no samples.
 */
bool kscen_change_compute(const struct kscen_metric *old,
			  const struct kscen_metric *new_, bool paired_ok,
			  struct kscen_change *c);
/* "Mann-Whitney U" or "Wilcoxon signed-rank", the test behind @c. */
const char *kscen_change_test(const struct kscen_change *c);
/* Worse by more than @pct percent, with the whole CI beyond @pct? */
bool kscen_change_beyond(const struct kscen_change *c, enum kscen_better b,
			 double pct);
/* Exact or normal-approximation p-values, exposed for the unit tests. */
double kscen_mann_whitney_p(const double *x, unsigned nx, const double *y,
			    unsigned ny);
double kscen_signed_rank_p(const double *d, unsigned n);

#endif
