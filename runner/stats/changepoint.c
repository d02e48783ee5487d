// SPDX-License-Identifier: GPL-2.0
/*
 * changepoint.c - where a series (a job's run medians, oldest first) changed
 * level: E-divisive with means, Matteson & James, "A Nonparametric Approach
 * for Multiple Change Point Analysis of Multivariate Data", JASA 109 (2014),
 * the method MongoDB's signal-processing-algorithms and Apache Otava (once
 * Hunter) run on performance histories. One dimension, alpha = 1:
 *
 * for a segment z[a..b) split at t into X = z[a..t) (n values) and
 * Y = z[t..b) (m values),
 *   E(t) = 2/(nm) sum |x - y| - sum_{i<j} |x_i - x_j| / C(n,2)
 *                             - sum_{i<j} |y_i - y_j| / C(m,2)
 *   Q(t) = nm / (n + m) E(t)
 * (a within sum of one value is 0). The largest Q over every split of every
 * segment is the candidate; a permutation test decides whether it is a
 * change: the values of its segment shuffled R times, the largest Q over
 * the splits of each shuffle, p = (1 + #{Q_shuffled >= Q}) / (R + 1). A
 * change cuts its segment in two and the search goes on in all segments,
 * until a candidate is not significant.
 *
 * All splits of a segment cost O(len^2) together: moving the split one
 * value right moves that value from Y to X, which changes the three sums
 * by its distances to the values before and after it. The shuffles come
 * from a fixed seed, so a history always gives the same answer; a test
 * stops early once it cannot be significant any more.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "lib/util.h"

#define CP_MAX_LEN 4096	/* values looked at: the newest */

/* The largest Q over the splits of z[0..n) with @min values a side. */
static double best_split(const double *z, unsigned n, unsigned min,
			 double *rin, double *rout, unsigned *at)
{
	double wx = 0, wy = 0, s = 0, best = -INFINITY;
	unsigned t;

	*at = 0;
	if (n < 2 * min)
		return best;
	for (t = 0; t < n; t++)
		rin[t] = rout[t] = 0;
	for (t = 0; t < n; t++)
		for (unsigned j = t + 1; j < n; j++) {
			double d = fabs(z[t] - z[j]);

			rout[t] += d;
			rin[j] += d;
			wy += d;
		}
	/* X = z[0..t) */
	for (t = 0; t + min <= n; t++) {
		if (t >= min) {
			double nx = t, ny = n - t, e;

			e = 2 * s / (nx * ny);
			if (nx >= 2)
				e -= wx / (nx * (nx - 1) / 2);
			if (ny >= 2)
				e -= wy / (ny * (ny - 1) / 2);
			if (nx * ny / (nx + ny) * e > best) {
				best = nx * ny / (nx + ny) * e;
				*at = t;
			}
		}
		/* z[t] moves from Y to X */
		wx += rin[t];
		wy -= rout[t];
		s += rout[t] - rin[t];
	}
	return best;
}

/* xorshift64*: a fixed sequence, independent of the C library. */
static unsigned long long next(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* Fisher-Yates. */
static void shuffle(double *z, unsigned n, unsigned long long *seed)
{
	for (unsigned i = n; i > 1; i--) {
		unsigned j = next(seed) % i;
		double t = z[i - 1];

		z[i - 1] = z[j];
		z[j] = t;
	}
}

static int cmp_cp(const void *a, const void *b)
{
	unsigned x = ((const struct kscen_cpoint *)a)->at;
	unsigned y = ((const struct kscen_cpoint *)b)->at;

	return (x > y) - (x < y);
}

unsigned kscen_changepoints_opts(const double *z, unsigned n,
				 const struct kscen_cp_opts *o,
				 struct kscen_cpoint *cp, unsigned max)
{
	unsigned long long seed = o->seed ? o->seed : 1;
	unsigned nr = 0, min = o->min_size ? o->min_size : 1;
	double *rin, *rout, *perm;
	unsigned *cut;		/* segment starts, sorted, then n */

	if (n > CP_MAX_LEN) {
		z += n - CP_MAX_LEN;
		n = CP_MAX_LEN;
	}
	for (unsigned i = 0; i < n; i++)
		if (!isfinite(z[i]))
			return 0;
	rin = kscen_xmalloc((n + 1) * sizeof(*rin));
	rout = kscen_xmalloc((n + 1) * sizeof(*rout));
	perm = kscen_xmalloc((n + 1) * sizeof(*perm));
	cut = kscen_xmalloc((max + 2) * sizeof(*cut));
	cut[0] = 0;
	cut[1] = n;
	while (nr < max) {
		unsigned seg = 0, at = 0, a, len, hits = 0, r, need;
		double q = -INFINITY;

		for (unsigned s = 0; s <= nr; s++) {
			unsigned t;
			double qs = best_split(z + cut[s], cut[s + 1] - cut[s], min,
					       rin, rout, &t);

			if (qs > q) {
				q = qs;
				seg = s;
				at = cut[s] + t;
			}
		}
		if (!isfinite(q) || q <= 0)
			break;
		a = cut[seg];
		len = cut[seg + 1] - a;
		memcpy(perm, z + a, len * sizeof(*perm));
		/* p > alpha for sure once this many shuffles reach q */
		need = (unsigned)floor(o->alpha * (o->perms + 1));
		for (r = 0; r < o->perms && hits < need; r++) {
			unsigned t;

			shuffle(perm, len, &seed);
			/* 1e-12 relative: the same split of a tie is not bigger */
			if (best_split(perm, len, min, rin, rout, &t) >= q * (1 - 1e-12))
				hits++;
		}
		if (hits >= need)
			break;
		cp[nr].at = at;
		cp[nr].p = (1.0 + hits) / (o->perms + 1.0);
		cp[nr].q = q;
		nr++;
		/* the new cut, in order */
		memmove(cut + seg + 2, cut + seg + 1, (nr - seg) * sizeof(*cut));
		cut[seg + 1] = at;
	}
	qsort(cp, nr, sizeof(*cp), cmp_cp);
	free(rin);
	free(rout);
	free(perm);
	free(cut);
	return nr;
}

unsigned kscen_changepoints(const double *z, unsigned n,
			    struct kscen_cpoint *cp, unsigned max)
{
	const struct kscen_cp_opts o = {
		.min_size = KSCEN_CP_MIN_SIZE, .alpha = KSCEN_CP_ALPHA,
		.perms = KSCEN_CP_PERMS, .seed = 0x2b992ddfa23249d6ull,
	};

	return kscen_changepoints_opts(z, n, &o, cp, max);
}
