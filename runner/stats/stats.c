// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - summaries of a metric's samples: median, mean, sample standard
 * deviation, min, max, coefficient of variation, a 95% confidence interval
 * of the median, Tukey outliers and a bimodality warning. The median leads
 * the reports because benchmark samples on a shared machine have long right
 * tails that drag the mean. Comparisons of two sample sets (tests, CIs of a
 * change) are signif.c; docs/statistics.md says why each method was chosen.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "lib/util.h"

/* NaNs sort last, so a stray NaN cannot make qsort's order inconsistent. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

void kscen_sort(double *x, unsigned n)
{
	qsort(x, n, sizeof(*x), cmp_double);
}

static double *sorted_copy(const double *x, unsigned n)
{
	double *s = kscen_xmalloc(n * sizeof(*s));

	memcpy(s, x, n * sizeof(*s));
	kscen_sort(s, n);
	return s;
}

static double median_sorted(const double *s, unsigned n)
{
	if (n % 2)
		return s[n / 2];
	/* Halve first: s[a] + s[b] may overflow where their mean does not. */
	return s[n / 2 - 1] / 2 + s[n / 2] / 2;
}

/* R's and numpy's default quantile (type 7: linear between order stats). */
static double quantile_sorted(const double *s, unsigned n, double q)
{
	double h = (n - 1) * q;
	unsigned lo = (unsigned)floor(h);

	if (lo + 1 >= n)
		return s[n - 1];
	return s[lo] + (h - lo) * (s[lo + 1] - s[lo]);
}

double kscen_median(const double *x, unsigned n)
{
	double *s, m;

	if (!n)
		return NAN;
	s = sorted_copy(x, n);
	m = median_sorted(s, n);
	free(s);
	return m;
}

/*
 * The 1-based rank k of the distribution-free 95% CI of the median,
 * [x(k), x(n+1-k)]: the largest k with P(B <= k-1) <= 2.5%, B ~ Bin(n, 1/2)
 * (the number of samples below the true median). 0 when no such k exists
 * (n < 6): then not even [min, max] covers the median 95% of the time.
 */
unsigned kscen_median_ci_rank(unsigned n)
{
	double lpmf, cdf = 0;
	unsigned k;

	if (n < 6)
		return 0;
	for (k = 0; k < n; k++) {
		lpmf = lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) -
		       n * M_LN2;
		cdf += exp(lpmf);
		if (cdf > 0.025)
			break;
	}
	/* P(B <= k-1) <= 2.5% < P(B <= k): rank k is the bound. */
	return k;
}

/*
 * The true coverage of the interval kscen_summarize() gives, in percent:
 * [x(k), x(n+1-k)] holds the median with probability 1 - 2 P(B <= k-1),
 * k the rank above, or 1 ([min, max]) below 6 samples: 93.8% for 5, 75%
 * for 3, 96.9% for 6, 95.7% for 30.
 */
double kscen_median_ci_level(unsigned n)
{
	unsigned k = kscen_median_ci_rank(n);
	double cdf = 0;

	if (n < 2)
		return 0;
	for (unsigned i = 0; i < (k ? k : 1); i++)
		cdf += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) -
			   n * M_LN2);
	return 100 * (1 - 2 * cdf);
}

/*
 * Bimodality, by a gap test: split the sorted samples at their widest gap,
 * with at least a quarter of them (and two) on each side. Two modes are
 * claimed when that gap is over three times the spread of either side and
 * over 10% of the median: two tight clusters far apart, which is what the
 * breakpoint.enable runs with passive threads show (24 vs 317 usecs/op).
 * Sarle's bimodality coefficient was rejected: a right-skewed unimodal tail,
 * the normal shape of latency samples, reaches its 5/9 threshold.
 */
static bool gap_bimodal(const double *s, unsigned n, double median)
{
	unsigned i, at = 0, side = n / 4 > 2 ? n / 4 : 2;
	double gap = -1, spread;

	if (n < 4 || !isfinite(s[0]) || !isfinite(s[n - 1]))
		return false;
	for (i = side; i + side <= n; i++)
		if (s[i] - s[i - 1] > gap) {
			gap = s[i] - s[i - 1];
			at = i;
		}
	if (gap <= 0)
		return false;
	spread = fmax(s[at - 1] - s[0], s[n - 1] - s[at]);
	return gap > 3 * spread && gap > 0.1 * fabs(median);
}

void kscen_summarize(const double *x, unsigned n, struct kscen_summary *out)
{
	double *s, sum = 0, ss = 0, d, q1, q3, iqr;
	unsigned i, k;

	memset(out, 0, sizeof(*out));
	if (!n) {
		out->median = out->mean = out->stddev = NAN;
		out->min = out->max = out->cv = NAN;
		out->ci_lo = out->ci_hi = NAN;
		return;
	}
	s = sorted_copy(x, n);
	out->median = median_sorted(s, n);
	out->min = s[0];
	out->max = s[n - 1];

	/* Two passes: the one-pass formula cancels badly on tight samples. */
	for (i = 0; i < n; i++)
		sum += s[i];
	out->mean = sum / n;
	if (!isfinite(out->mean)) {	/* near DBL_MAX: the sum overflowed */
		for (i = 0, sum = 0; i < n; i++)
			sum += s[i] / n;
		out->mean = sum;
	}
	for (i = 0; i < n; i++) {
		d = s[i] - out->mean;
		ss += d * d;
	}
	out->stddev = n < 2 ? 0 : sqrt(ss / (n - 1));
	if (!isfinite(out->stddev) && isfinite(out->mean)) {
		/* the squares overflowed: scaled by the largest magnitude */
		double scale = fmax(fabs(s[0]), fabs(s[n - 1]));

		for (i = 0, ss = 0; i < n; i++) {
			d = s[i] / scale - out->mean / scale;
			ss += d * d;
		}
		out->stddev = scale * sqrt(ss / (n - 1));
	}
	out->cv = out->mean != 0 ? out->stddev / fabs(out->mean) : NAN;

	k = kscen_median_ci_rank(n);
	out->ci_lo = k ? s[k - 1] : s[0];
	out->ci_hi = k ? s[n - k] : s[n - 1];

	/* Tukey's fences: counted and shown, never dropped. */
	q1 = quantile_sorted(s, n, 0.25);
	q3 = quantile_sorted(s, n, 0.75);
	iqr = q3 - q1;
	for (i = 0; n >= 4 && i < n; i++)
		if (s[i] < q1 - 1.5 * iqr || s[i] > q3 + 1.5 * iqr)
			out->outliers++;
	out->bimodal = gap_bimodal(s, n, out->median);
	free(s);
}

/* Half the width of the median's CI relative to the median, in percent. */
double kscen_ci_halfwidth(const struct kscen_summary *s)
{
	if (s->median == 0 || !isfinite(s->median))
		return NAN;
	return 100 * (s->ci_hi - s->ci_lo) / 2 / fabs(s->median);
}
