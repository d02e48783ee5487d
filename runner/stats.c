// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - summaries of a metric's samples: median, mean, sample standard
 * deviation, min and max. The median leads the reports because benchmark
 * samples on a shared machine have long right tails that drag the mean.
 * Significance tests (bootstrap CI, Mann-Whitney) will live here too.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kscen.h"

/* NaNs sort last, so a stray NaN cannot make qsort's order inconsistent. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, unsigned n)
{
	double *s = kscen_xmalloc(n * sizeof(*s));

	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

static double median_sorted(const double *s, unsigned n)
{
	if (n % 2)
		return s[n / 2];
	/* Halve first: s[a] + s[b] may overflow where their mean does not. */
	return s[n / 2 - 1] / 2 + s[n / 2] / 2;
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

void kscen_summarize(const double *x, unsigned n, struct kscen_summary *out)
{
	double *s, sum = 0, ss = 0, d;
	unsigned i;

	if (!n) {
		out->median = out->mean = out->stddev = NAN;
		out->min = out->max = NAN;
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
	for (i = 0; i < n; i++) {
		d = s[i] - out->mean;
		ss += d * d;
	}
	out->stddev = n < 2 ? 0 : sqrt(ss / (n - 1));
	free(s);
}
