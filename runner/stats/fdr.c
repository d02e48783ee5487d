// SPDX-License-Identifier: GPL-2.0
/*
 * fdr.c - the p-values of many comparisons read together, and Student's t
 * distribution that the comparisons between runs use.
 *
 * Benjamini & Hochberg, "Controlling the False Discovery Rate", JRSS B 57
 * (1995): with m p-values sorted, p(1) <= ... <= p(m), the q-value of p(i)
 * is min over j >= i of m p(j) / j, at most 1. Flagging the comparisons
 * with q <= Q keeps the expected share of false ones among those flagged at
 * or under Q; when nothing changed at all, the chance that any is flagged
 * is at most Q.
 *
 * Student's t: its two-sided tail is a regularized incomplete beta
 * function, P(|T| > t) = I_x(df/2, 1/2) with x = df / (df + t^2), computed
 * by the continued fraction of Abramowitz & Stegun 26.5.8 (Lentz's method);
 * the 97.5% quantile by bisection on it, so that an interval and its p-value
 * always agree.
 */
#include <math.h>
#include <stdlib.h>

#include "stats.h"
#include "lib/util.h"

/* The continued fraction of I_x(a, b), good for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 400; m++) {
		double num, del;

		/* even step */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		/* odd step */
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double ibeta(double a, double b, double x)
{
	double front;

	if (!(x > 0))
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double kscen_t_p2(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return 0;
	return ibeta(df / 2, 0.5, df / (df + t * t));
}

double kscen_t975(unsigned df)
{
	double lo = 0, hi = 1000;

	if (!df)
		return NAN;
	/* P(|T| > t) falls from 1 at 0: find where it is 5% */
	for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
		double mid = (lo + hi) / 2;

		if (kscen_t_p2(mid, df) > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

struct pi {
	double p;
	unsigned i;
};

static int cmp_pi(const void *a, const void *b)
{
	double x = ((const struct pi *)a)->p, y = ((const struct pi *)b)->p;

	return (x > y) - (x < y);
}

unsigned kscen_bh_qvalues(const double *p, unsigned n, double *q)
{
	struct pi *s = kscen_xmalloc((n + 1) * sizeof(*s));
	unsigned m = 0;
	double run = 1;

	for (unsigned i = 0; i < n; i++) {
		q[i] = NAN;
		if (isfinite(p[i]))
			s[m++] = (struct pi){ fmin(1, fmax(0, p[i])), i };
	}
	qsort(s, m, sizeof(*s), cmp_pi);
	for (unsigned k = m; k-- > 0;) {
		run = fmin(run, s[k].p * m / (k + 1));
		q[s[k].i] = run;
	}
	free(s);
	return m;
}
