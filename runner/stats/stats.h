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
	double ci_lo, ci_hi;	/* CI of the median (order statistics): at least
				   95% from 6 samples, kscen_median_ci_level() */
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
/* Its true coverage, percent: 96.9 for 6, 93.75 for 5 ([min, max]). */
double kscen_median_ci_level(unsigned n);
/* The CI's half-width relative to the median, in percent. */
double kscen_ci_halfwidth(const struct kscen_summary *s);

/* signif.c: how two sets of samples of one metric differ. */
enum kscen_verdict {
	KSCEN_SAME,		/* not significant: printed "~" */
	KSCEN_BETTER,
	KSCEN_WORSE,
	KSCEN_CANNOT_TELL,	/* between runs without a run-to-run estimate */
};
extern const char *const kscen_verdict_names[];	/* "same", ..., "cannot tell" */

/* Where the run-to-run allowance of a comparison comes from (drift.c). */
enum kscen_drift_src {
	KSCEN_DRIFT_NONE,	/* nowhere: in-run noise only, or cannot tell */
	KSCEN_DRIFT_OWN,	/* this job's (or job pair's) own history */
	KSCEN_DRIFT_POOL,	/* pooled over the host's other jobs */
};

struct kscen_change {
	/*
	 * Within a run: old, new_ the medians over the samples compared; rel
	 * the Hodges-Lehmann estimate of new / old - 1 (of the logs when every
	 * sample is positive), the estimate the interval is about. Between
	 * runs: old the level of the reference's stable segment, new_ the new
	 * median, rel new_ / old - 1 (drift.c).
	 */
	double old, new_;
	double rel;		/* NaN when old is 0 */
	double lo, hi;		/* the interval of rel, of coverage `level` */
	double p;		/* two-sided p-value of the named test */
	double level;		/* the interval's coverage, percent */
	double p_min;		/* the smallest p these sample counts can give */
	double size;		/* P(a verdict) when nothing changed */
	unsigned n_old, n_new;	/* samples; pairs when paired */
	bool paired;		/* from the rounds' pairs (signed-rank) */
	bool ci_valid;		/* false: too few samples for a 95% CI */
	enum kscen_verdict verdict;
	bool between;		/* the samples come from two runs */
	/* The run-to-run allowance (drift.c), between runs or in-run: */
	bool drift;		/* lo, hi allow for it */
	enum kscen_drift_src src;
	unsigned hist_runs;	/* runs of the stable segment it came from */
	unsigned df;		/* its degrees of freedom */
	double spread;		/* relative: the 95% allowance for run-to-run drift */
	char pool[48];		/* KSCEN_DRIFT_POOL: which ("3 other jobs") */
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

/* fdr.c: many comparisons, and Student's t. */
/*
 * Benjamini-Hochberg q-values of the finite ones of @p (others: NaN in
 * @q); returns how many were finite (the family's size).
 */
unsigned kscen_bh_qvalues(const double *p, unsigned n, double *q);
/* Two-sided tail P(|T| > |t|) of Student's t with @df degrees of freedom. */
double kscen_t_p2(double t, double df);
/* Its 97.5% quantile; NaN for 0 degrees of freedom. */
double kscen_t975(unsigned df);

/*
 * changepoint.c: where a series changed level (E-divisive with means and
 * a permutation test, Matteson & James 2014). A change point at @at: the
 * values from index @at on belong to a new segment.
 */
#define KSCEN_CP_MIN_SIZE 2	/* values on each side of a change, at least */
#define KSCEN_CP_ALPHA 0.05	/* the permutation test's level */
#define KSCEN_CP_PERMS 199	/* its shuffles */
struct kscen_cpoint {
	unsigned at;
	double p;		/* the permutation test's */
	double q;		/* the split's energy statistic */
};
struct kscen_cp_opts {
	unsigned min_size;
	double alpha;
	unsigned perms;
	unsigned long long seed;
};
/* The change points of @z[0..@n), in order, at most @max. */
unsigned kscen_changepoints(const double *z, unsigned n,
			    struct kscen_cpoint *cp, unsigned max);
unsigned kscen_changepoints_opts(const double *z, unsigned n,
				 const struct kscen_cp_opts *o,
				 struct kscen_cpoint *cp, unsigned max);

#endif
