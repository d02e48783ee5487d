// SPDX-License-Identifier: GPL-2.0
/*
 * signif.c - is a change real? Every delta kscen prints (to baseline, to
 * previous, vs last run, compare) starts from kscen_change_compute(); the
 * deltas between runs are then judged against the job's run-to-run drift
 * (drift.c).
 *
 * Two sample sets, no assumption about their shape:
 *  - Mann-Whitney U test, exact p-value (no ties, up to 50 samples in all)
 *    or the normal approximation with tie and continuity corrections; the
 *    change is the Hodges-Lehmann estimate, the median of the pairwise
 *    differences of logs (a shift model for ratios), and its interval the
 *    matching Moses interval of the same differences.
 *  - Jobs of one run share rounds: sample i of both came from round i, so
 *    only the rounds both took are compared, and the per-round log
 *    ratios form pairs; the Wilcoxon signed-rank test, the median of the
 *    Walsh averages and their interval use them when the two jobs' samples
 *    are correlated over the rounds (r > 0.5: the rounds' shared noise,
 *    which the ratios cancel, is what tightens the interval).
 * The estimate printed is always the one its interval is about, so it is
 * always inside it. Significant means p < 0.05 and an interval that
 * excludes no change; the interval's coverage is the exact one of its
 * order statistics (96.8% for 5 + 5), never less than 95%.
 * docs/statistics.md has the sources and the A/A and planted-slowdown runs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "lib/util.h"

#define ALPHA 0.05
#define EXACT_MAX 50		/* samples for the exact distributions */
#define MAX_SIDE 2000		/* samples per side for the pairwise CIs */
#define PAIR_RHO 0.5		/* rounds' shared noise that makes pairs win */

const char *const kscen_verdict_names[] = {
	[KSCEN_SAME] = "same", [KSCEN_BETTER] = "better",
	[KSCEN_WORSE] = "worse", [KSCEN_CANNOT_TELL] = "cannot tell",
};

/* What an interval's order statistics promise, beside the interval. */
struct ci_info {
	double est;		/* the Hodges-Lehmann estimate */
	double level;		/* coverage, percent */
	double p_min;		/* the smallest two-sided p of these counts */
};

/* A sample and the set it came from, for ranking both sets together. */
struct rv {
	double v;
	unsigned from;		/* 0: first sample, 1: second */
};

static int cmp_rv(const void *a, const void *b)
{
	double x = ((const struct rv *)a)->v, y = ((const struct rv *)b)->v;

	return (x > y) - (x < y);
}

/*
 * Sort @r and give its average ranks (1-based, ties averaged) in @ranks;
 * returns sum(t^3 - t) over tie groups, for the variance's tie correction.
 */
static double rank(struct rv *r, unsigned n, double *ranks)
{
	double ties = 0, t;
	unsigned i = 0, j, k;

	qsort(r, n, sizeof(*r), cmp_rv);
	while (i < n) {
		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		for (k = i; k < j; k++)
			ranks[k] = (i + 1 + j) / 2.0;
		t = j - i;
		ties += t * t * t - t;
		i = j;
	}
	return ties;
}

static double norm_sf2(double z)	/* two-sided tail of N(0, 1) */
{
	return erfc(fabs(z) / M_SQRT2);
}

/*
 * Counts of the U statistic of samples of @m and @n without ties:
 * cnt[u] = number of the C(m+n, m) orderings with U = u, u = 0..m*n.
 * Built by adding ranks one by one: ways[k][s] = choices of k of them for
 * the first sample with rank sum s.
 */
static double *u_counts(unsigned m, unsigned n)
{
	unsigned N = m + n, smax = N * (N + 1) / 2, r, k, s;
	double *ways = kscen_xcalloc((size_t)(m + 1) * (smax + 1), sizeof(double));
	double *cnt = kscen_xcalloc(m * n + 1, sizeof(double));
	unsigned base = m * (m + 1) / 2;

	ways[0] = 1;
	for (r = 1; r <= N; r++)
		for (k = r < m ? r : m; k >= 1; k--)
			for (s = smax; s >= r; s--)
				ways[k * (smax + 1) + s] +=
					ways[(k - 1) * (smax + 1) + s - r];
	for (s = base; s <= base + m * n; s++)
		cnt[s - base] = ways[m * (smax + 1) + s];
	free(ways);
	return cnt;
}

/* Counts of the signed-rank statistic W+ of @n pairs without ties. */
static double *w_counts(unsigned n)
{
	unsigned smax = n * (n + 1) / 2, r, s;
	double *cnt = kscen_xcalloc(smax + 1, sizeof(double));

	cnt[0] = 1;
	for (r = 1; r <= n; r++)
		for (s = smax; s >= r; s--)
			cnt[s] += cnt[s - r];
	return cnt;
}

/* Two-sided exact p from counts over 0..max, statistic @u. */
static double exact_p(const double *cnt, unsigned max, double u)
{
	double lo = 0, hi = 0, tot = 0;
	unsigned i;

	for (i = 0; i <= max; i++) {
		tot += cnt[i];
		if (i <= u)
			lo += cnt[i];
		if (i >= u)
			hi += cnt[i];
	}
	return fmin(1, 2 * fmin(lo, hi) / tot);
}

/*
 * The 1-based rank k of a 95% interval from a statistic symmetric on
 * 0..max: the largest k with P(S <= k-1) <= 2.5%; 0 if none. The interval's
 * true coverage, 1 - 2 P(S <= k-1), and the smallest p go in @ci.
 */
static unsigned exact_rank(const double *cnt, unsigned max, struct ci_info *ci)
{
	double tot = 0, cdf = 0;
	unsigned k;

	for (k = 0; k <= max; k++)
		tot += cnt[k];
	for (k = 0; k <= max; k++) {
		if ((cdf + cnt[k]) / tot > ALPHA / 2)
			break;
		cdf += cnt[k];
	}
	ci->level = 100 * (1 - 2 * cdf / tot);
	/* one ordering of the tot has the whole sample on one side */
	ci->p_min = fmin(1, 2 / tot);
	return k;
}

/* The same from the normal approximation of mean @mu, sd @sd. */
static unsigned normal_rank(double mu, double sd, struct ci_info *ci)
{
	double k = floor(mu - 1.959963984540054 * sd + 0.5);

	ci->level = 95;
	ci->p_min = sd > 0 ? norm_sf2(fmax(0, mu - 0.5) / sd) : 1;
	return k < 1 ? 0 : (unsigned)k;
}

/* The median of sorted @s. */
static double mid(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : s[n / 2 - 1] / 2 + s[n / 2] / 2;
}

double kscen_mann_whitney_p(const double *x, unsigned nx, const double *y,
			    unsigned ny)
{
	struct rv *r = kscen_xmalloc((nx + ny) * sizeof(*r));
	double *ranks = kscen_xmalloc((nx + ny) * sizeof(double));
	double ties, r1 = 0, u, mu, var, N = nx + ny, p, *cnt;
	unsigned i;

	if (!nx || !ny) {
		free(r);
		free(ranks);
		return NAN;
	}
	for (i = 0; i < nx; i++)
		r[i] = (struct rv){ x[i], 0 };
	for (i = 0; i < ny; i++)
		r[nx + i] = (struct rv){ y[i], 1 };
	ties = rank(r, nx + ny, ranks);
	for (i = 0; i < nx + ny; i++)
		if (!r[i].from)
			r1 += ranks[i];
	u = r1 - nx * (nx + 1) / 2.0;
	if (!ties && nx + ny <= EXACT_MAX) {
		cnt = u_counts(nx, ny);
		p = exact_p(cnt, nx * ny, u);
		free(cnt);
	} else {
		mu = nx * (double)ny / 2;
		var = nx * (double)ny / 12 * ((N + 1) - ties / (N * (N - 1)));
		p = var > 0 ? norm_sf2(fmax(0, fabs(u - mu) - 0.5) / sqrt(var)) : 1;
	}
	free(r);
	free(ranks);
	return p;
}

double kscen_signed_rank_p(const double *d, unsigned n)
{
	struct rv *r = kscen_xmalloc(n * sizeof(*r));
	double *ranks = kscen_xmalloc(n * sizeof(double));
	double ties, w = 0, mu, var, p, *cnt;
	unsigned i, m = 0;

	/* Zero differences say nothing about the direction: dropped. */
	for (i = 0; i < n; i++)
		if (d[i] != 0 && !isnan(d[i]))
			r[m++] = (struct rv){ fabs(d[i]), d[i] > 0 };
	if (!m) {
		free(r);
		free(ranks);
		return 1;
	}
	ties = rank(r, m, ranks);
	for (i = 0; i < m; i++)
		if (r[i].from)
			w += ranks[i];
	if (!ties && m == n && n <= EXACT_MAX) {
		cnt = w_counts(n);
		p = exact_p(cnt, n * (n + 1) / 2, w);
		free(cnt);
	} else {
		mu = m * (m + 1) / 4.0;
		var = m * (m + 1) * (2.0 * m + 1) / 24 - ties / 48;
		p = var > 0 ? norm_sf2(fmax(0, fabs(w - mu) - 0.5) / sqrt(var)) : 1;
	}
	free(r);
	free(ranks);
	return p;
}

/*
 * Thin sorted @s to at most MAX_SIDE evenly spaced order statistics, in
 * place (the i-th taken is at i or after it): the pairwise intervals are
 * quadratic, and -r 100000 must not take hours.
 */
static unsigned thin(double *s, unsigned n)
{
	unsigned i;

	if (n <= MAX_SIDE)
		return n;
	for (i = 0; i < MAX_SIDE; i++)
		s[i] = s[(size_t)i * (n - 1) / (MAX_SIDE - 1)];
	return MAX_SIDE;
}

/* The pairwise differences y_j - x_i of sorted, thinned @x and @y, sorted. */
static double *pairwise(const double *x, unsigned nx, const double *y,
			unsigned ny, unsigned *m, unsigned *n)
{
	double *a = kscen_xmalloc(nx * sizeof(double));
	double *b = kscen_xmalloc(ny * sizeof(double));
	double *d;

	memcpy(a, x, nx * sizeof(double));
	memcpy(b, y, ny * sizeof(double));
	kscen_sort(a, nx);
	kscen_sort(b, ny);
	*m = thin(a, nx);
	*n = thin(b, ny);
	d = kscen_xmalloc((size_t)*m * *n * sizeof(double));
	for (unsigned i = 0; i < *m; i++)
		for (unsigned j = 0; j < *n; j++)
			d[(size_t)i * *n + j] = b[j] - a[i];
	kscen_sort(d, (size_t)*m * *n);
	free(a);
	free(b);
	return d;
}

/*
 * 95% interval of the shift y - x (Moses) and its Hodges-Lehmann estimate;
 * false if n is too small for the interval.
 */
static bool moses_ci(const double *x, unsigned nx, const double *y,
		     unsigned ny, double *lo, double *hi, struct ci_info *ci)
{
	double *d, *cnt;
	unsigned m, n, k;
	size_t mn;

	d = pairwise(x, nx, y, ny, &m, &n);
	mn = (size_t)m * n;
	if (m + n <= EXACT_MAX) {
		cnt = u_counts(m, n);
		k = exact_rank(cnt, m * n, ci);
		free(cnt);
	} else {
		k = normal_rank(mn / 2.0, sqrt(mn * (m + n + 1.0) / 12), ci);
	}
	ci->est = mid(d, mn);
	*lo = d[k ? k - 1 : 0];
	*hi = d[k ? mn - k : mn - 1];
	free(d);
	return k > 0;
}

/*
 * 95% interval of the median difference from Walsh averages, and their
 * median, the one-sample Hodges-Lehmann estimate.
 */
static bool walsh_ci(const double *dd, unsigned n, double *lo, double *hi,
		     struct ci_info *ci)
{
	size_t M = (size_t)n * (n + 1) / 2, o = 0;
	double *w, *cnt;
	unsigned i, j, k;

	if (n > MAX_SIDE)
		return false;
	w = kscen_xmalloc(M * sizeof(double));
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			w[o++] = dd[i] / 2 + dd[j] / 2;
	kscen_sort(w, M);
	if (n <= EXACT_MAX) {
		cnt = w_counts(n);
		k = exact_rank(cnt, M, ci);
		free(cnt);
	} else {
		k = normal_rank(M / 2.0, sqrt(n * (n + 1) * (2.0 * n + 1) / 24), ci);
	}
	ci->est = mid(w, M);
	*lo = w[k ? k - 1 : 0];
	*hi = w[k ? M - k : M - 1];
	free(w);
	return k > 0;
}

/*
 * Pearson's correlation of the first @n of @x and @y: how much of their
 * noise the rounds share. Choosing between the two tests by which interval
 * is narrower would be choosing by the outcome (5.5% false positives where
 * 5% are promised, simulated); the correlation says whether pairing can
 * help without looking at the shift.
 */
static double correlation(const double *x, const double *y, unsigned n)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		mx += x[i] / n;
		my += y[i] / n;
	}
	for (i = 0; i < n; i++) {
		double dx = x[i] - mx, dy = y[i] - my;

		sxy += dx * dy;
		sxx += dx * dx;
		syy += dy * dy;
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

/* Log scale when every sample is positive (a ratio), raw units otherwise. */
static bool all_positive(const struct kscen_metric *m)
{
	unsigned i;

	for (i = 0; i < m->nr_samples; i++)
		if (!(m->samples[i] > 0) || !isfinite(m->samples[i]))
			return false;
	return true;
}

static double *transform(const struct kscen_metric *m, bool logs)
{
	double *t = kscen_xmalloc(m->nr_samples * sizeof(double));
	unsigned i;

	for (i = 0; i < m->nr_samples; i++)
		t[i] = logs ? log(m->samples[i]) : m->samples[i];
	return t;
}

/* A shift on the transformed scale back to a relative change. */
static double to_rel(double shift, bool logs, double old)
{
	return logs ? expm1(shift) : shift / fabs(old);
}

bool kscen_change_compute(const struct kscen_metric *old,
			  const struct kscen_metric *new_, bool paired_ok,
			  struct kscen_change *c)
{
	double *x, *y, *d, lo, hi, plo, phi, p;
	struct ci_info ci = { 0 }, pci = { 0 };
	unsigned i, np;
	bool logs, ok, pok;

	memset(c, 0, sizeof(*c));
	if (!old || !new_ || !old->nr_samples || !new_->nr_samples)
		return false;
	c->n_old = old->nr_samples;
	c->n_new = new_->nr_samples;
	/*
	 * Jobs of one run are compared over the rounds both took: with
	 * repeat: auto the one still sampling goes on alone, later, and a
	 * drift of the machine in between would pass for a difference
	 * (9% A/A false positives, measured, before this).
	 */
	np = c->n_old < c->n_new ? c->n_old : c->n_new;
	if (paired_ok)
		c->n_old = c->n_new = np;
	c->old = kscen_median(old->samples, c->n_old);
	c->new_ = kscen_median(new_->samples, c->n_new);
	/* no relative change from a zero or infinite old median */
	c->rel = c->lo = c->hi = c->p = c->level = NAN;
	c->p_min = c->size = NAN;
	if (c->old == 0 || !isfinite(c->old))
		return true;

	logs = all_positive(old) && all_positive(new_);
	x = transform(old, logs);
	y = transform(new_, logs);
	c->p = kscen_mann_whitney_p(x, c->n_old, y, c->n_new);
	ok = moses_ci(x, c->n_old, y, c->n_new, &lo, &hi, &ci);

	/*
	 * Rounds pair the first min(n) samples; they need 6 for a 95% CI,
	 * and pay off only when the rounds' noise is shared.
	 */
	if (paired_ok && np >= 6 && correlation(x, y, np) > PAIR_RHO) {
		d = kscen_xmalloc(np * sizeof(double));
		for (i = 0; i < np; i++)
			d[i] = y[i] - x[i];
		pok = walsh_ci(d, np, &plo, &phi, &pci);
		if (pok) {
			p = kscen_signed_rank_p(d, np);
			c->paired = true;	/* n_old, n_new: np already */
			c->p = p;
			lo = plo;
			hi = phi;
			ci = pci;
			ok = true;
		}
		free(d);
	}
	c->ci_valid = ok;
	c->rel = to_rel(ci.est, logs, c->old);
	c->lo = to_rel(lo, logs, c->old);
	c->hi = to_rel(hi, logs, c->old);
	c->p_min = ci.p_min;
	/* an exact interval's miss rate is its test's size; 5% otherwise */
	c->level = ok ? ci.level : NAN;
	c->size = ok ? fmin(ALPHA, 1 - ci.level / 100) : 0;
	if (ok && c->p < ALPHA && (c->lo > 0 || c->hi < 0)) {
		bool up = c->lo > 0;

		c->verdict = up == (new_->better == KSCEN_HIGHER) ?
			     KSCEN_BETTER : KSCEN_WORSE;
	}
	free(x);
	free(y);
	return true;
}

const char *kscen_change_test(const struct kscen_change *c)
{
	return c->paired ? "Wilcoxon signed-rank" : "Mann-Whitney U";
}

bool kscen_change_beyond(const struct kscen_change *c, enum kscen_better b,
			 double pct)
{
	double t = pct / 100;

	if (c->verdict != KSCEN_WORSE || !c->ci_valid)
		return false;
	if (b == KSCEN_HIGHER)
		return c->rel < -t && c->hi < -t;
	return c->rel > t && c->lo > t;
}
