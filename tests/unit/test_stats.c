// SPDX-License-Identifier: GPL-2.0
/*
 * test_stats.c - the statistics against values computed elsewhere:
 *  - R's own documentation examples of wilcox.test() (Hollander & Wolfe):
 *    unpaired W = 35, one-sided p = 0.1272; paired V = 40, one-sided
 *    p = 0.01953; kscen's p-values are two-sided, twice those.
 *  - everything else with python3's standard library only (no scipy here):
 *    exact p-values and Moses intervals by enumerating every ordering with
 *    itertools (not by kscen's recursion), quantiles with
 *    statistics.quantiles(method='inclusive'), standard deviations with
 *    statistics.stdev, binomial ranks with math.comb, the normal
 *    approximation with statistics.NormalDist. The script is in
 *    docs/statistics.md.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario.h"
#include "report/report.h"
#include "store/run.h"
#include "lib/util.h"
#include "tests.h"

static bool near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

static void metric(struct kscen_metric *m, const double *x, unsigned n,
		   enum kscen_better better)
{
	memset(m, 0, sizeof(*m));
	m->samples = kscen_xmalloc(n * sizeof(double));
	memcpy(m->samples, x, n * sizeof(double));
	m->nr_samples = n;
	m->better = better;
	kscen_summarize(x, n, &m->sum);
}

void test_stats_median_ci_outliers_bimodal(void **state)
{
	static const double v[] = { 15, 100, 10, 13, 11, 18, 12, 16, 14, 17 };
	static const double ten[] = { 7, 2, 9, 1, 10, 4, 3, 8, 6, 5 };
	static const double two[] = { 24, 300, 25, 310, 26, 317, 27, 305 };
	static const double skew[] = { 1, 1.1, 1.2, 1.3, 1.5, 2, 3, 5 };
	struct kscen_summary s;

	/* math.comb: the largest k with P(Bin(n, 1/2) <= k-1) <= 2.5%. */
	assert_true(kscen_median_ci_rank(5) == 0);
	assert_true(kscen_median_ci_rank(6) == 1);
	assert_true(kscen_median_ci_rank(10) == 2);
	assert_true(kscen_median_ci_rank(20) == 6);
	assert_true(kscen_median_ci_rank(30) == 10);
	assert_true(kscen_median_ci_rank(100) == 40);

	kscen_summarize(ten, 10, &s);
	assert_true(s.ci_lo == 2 && s.ci_hi == 9 && s.median == 5.5);
	assert_true(!s.outliers && !s.bimodal);

	/* statistics: quartiles 12.25, 16.75; stdev 27.317881811492388. */
	kscen_summarize(v, 10, &s);
	assert_true(s.outliers == 1);
	assert_true(near(s.stddev, 27.317881811492388, 1e-12));
	assert_true(near(s.cv, 27.317881811492388 / 22.6, 1e-12));
	assert_true(s.ci_lo == 11 && s.ci_hi == 18);
	assert_true(near(kscen_ci_halfwidth(&s), 100 * 7.0 / 2 / 14.5, 1e-12));

	kscen_summarize(two, 8, &s);
	assert_true(s.bimodal);
	/* A long right tail is one mode, not two. */
	kscen_summarize(skew, 8, &s);
	assert_true(!s.bimodal);
	kscen_summarize(skew, 3, &s);
	assert_true(!s.bimodal && !s.outliers);
}

void test_stats_p_values_match_references(void **state)
{
	static const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91,
				    1.64, 0.73, 1.46 };
	static const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	static const double px[] = { 1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55,
				     3.06, 1.30 };
	static const double py[] = { 0.878, 0.647, 0.598, 2.05, 1.06, 1.29,
				     1.06, 3.14, 1.29 };
	static const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
	static const double ta[] = { 1, 2, 2, 3, 4, 5 };
	static const double tb[] = { 3, 4, 4, 5, 6, 7, 7 };
	double d[9];
	unsigned i;

	/* R: wilcox.test(x, y, alternative = "g"): p = 0.1272. */
	assert_true(near(kscen_mann_whitney_p(x, 10, y, 5), 0.2544122544122544,
		     1e-12));
	/* Order does not matter for a two-sided test. */
	assert_true(near(kscen_mann_whitney_p(y, 5, x, 10), 0.2544122544122544,
		     1e-12));
	/* Complete separation of 5 and 5: 2 / C(10, 5). */
	assert_true(near(kscen_mann_whitney_p(a, 5, b, 5), 2.0 / 252, 1e-15));
	assert_true(near(kscen_mann_whitney_p(a, 5, a, 5), 1, 1e-15));
	/* Ties: normal approximation, tie and continuity corrected. */
	assert_true(near(kscen_mann_whitney_p(ta, 6, tb, 7), 0.03620890133985921,
		     1e-9));

	/* R: wilcox.test(x, y, paired = TRUE, alternative = "g"): 0.01953. */
	for (i = 0; i < 9; i++)
		d[i] = px[i] - py[i];
	assert_true(near(kscen_signed_rank_p(d, 9), 0.0390625, 1e-15));
	for (i = 0; i < 9; i++)
		d[i] = -d[i];
	assert_true(near(kscen_signed_rank_p(d, 9), 0.0390625, 1e-15));
}

void test_stats_change_ci_verdict_and_gate(void **state)
{
	/* random.seed(1), uniform(9, 11) and uniform(10, 12), 3 decimals. */
	static const double a[] = { 9.269, 10.695, 10.528, 9.51, 9.991, 9.899,
				    10.303, 10.577 };
	static const double b[] = { 10.188, 10.057, 11.672, 10.866, 11.525,
				    10.004, 10.891, 11.443 };
	double ea[8], eb[8], base[8], slow[8];
	struct kscen_metric mo, mn, mb, ms;
	struct kscen_change c;
	unsigned i;

	/*
	 * On exp() of the samples the log scale gets a and b back: the Moses
	 * interval from enumeration is [d(14), d(51)] = [0.066, 1.452] of the
	 * 64 sorted differences b[j] - a[i]; p = 0.03791763791763792.
	 */
	for (i = 0; i < 8; i++) {
		ea[i] = exp(a[i]);
		eb[i] = exp(b[i]);
	}
	metric(&mo, ea, 8, KSCEN_LOWER);
	metric(&mn, eb, 8, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mo, &mn, false, &c));
	assert_true(!c.paired && c.ci_valid && c.n_old == 8 && c.n_new == 8);
	assert_true(near(c.p, 0.03791763791763792, 1e-12));
	assert_true(near(c.lo, expm1(0.066), 1e-9));
	assert_true(near(c.hi, expm1(1.452), 1e-9));
	/*
	 * The change printed is the one its interval is about: the median of
	 * the 64 differences, 0.809 (the ratio of medians would be another
	 * number); the exact interval [d(14), d(51)] covers 1 - 2 * 13/12870
	 * of the time... of the U distribution of 8 + 8: its level is above 95.
	 */
	assert_true(near(c.rel, expm1(0.809), 1e-9));
	assert_true(c.lo < c.rel && c.rel < c.hi);
	assert_true(c.level >= 95 && c.level < 100 && near(c.size, 1 - c.level / 100, 1e-12));
	assert_true(near(c.p_min, 2.0 / 12870, 1e-15));
	assert_true(c.verdict == KSCEN_WORSE);
	assert_true(!strcmp(kscen_change_test(&c), "Mann-Whitney U"));
	/* Higher is better: the same change is an improvement. */
	mn.better = KSCEN_HIGHER;
	assert_true(kscen_change_compute(&mo, &mn, false, &c));
	assert_true(c.verdict == KSCEN_BETTER);
	assert_true(!kscen_change_beyond(&c, KSCEN_HIGHER, 5));
	mn.better = KSCEN_LOWER;
	/* The gate: +6.8% is the CI's low end; 5% trips, 10% does not. */
	assert_true(kscen_change_compute(&mo, &mn, false, &c));
	assert_true(kscen_change_beyond(&c, KSCEN_LOWER, 5));
	assert_true(!kscen_change_beyond(&c, KSCEN_LOWER, 10));
	/* A/A: the same samples are "~" and never trip anything. */
	assert_true(kscen_change_compute(&mo, &mo, false, &c));
	assert_true(c.verdict == KSCEN_SAME && c.rel == 0 && c.p == 1);
	assert_true(c.lo < 0 && c.hi > 0 && !kscen_change_beyond(&c, KSCEN_LOWER, 1));

	/*
	 * Rounds: each round's noise moves both jobs by up to 50%; the new
	 * job is 5% slower in every round. Unpaired, that is invisible; the
	 * pairs find exactly +5% with p = 2 / 2^8.
	 */
	for (i = 0; i < 8; i++) {
		base[i] = 100 * (1 + 0.07 * i);
		slow[i] = base[i] * 1.05 * (1 + 1e-4 * i);
	}
	metric(&mb, base, 8, KSCEN_LOWER);
	metric(&ms, slow, 8, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mb, &ms, false, &c));
	assert_true(c.verdict == KSCEN_SAME && !c.paired);
	assert_true(kscen_change_compute(&mb, &ms, true, &c));
	assert_true(c.paired && c.verdict == KSCEN_WORSE && c.n_new == 8);
	assert_true(near(c.p, 2.0 / 256, 1e-12));
	assert_true(c.lo > 0.0499 && c.hi < 0.0509);
	assert_true(!strcmp(kscen_change_test(&c), "Wilcoxon signed-rank"));

	/*
	 * Within a run only the rounds both took count: samples 9..12 of a
	 * job that went on alone (repeat: auto) are not compared.
	 */
	{
		double more[12];

		memcpy(more, base, sizeof(base));
		for (i = 8; i < 12; i++)
			more[i] = 1000;
		free(ms.samples);
		metric(&ms, more, 12, KSCEN_LOWER);
		assert_true(kscen_change_compute(&mb, &ms, true, &c));
		assert_true(c.n_new == 8 && c.rel == 0 && c.verdict == KSCEN_SAME);
		assert_true(kscen_change_compute(&mb, &ms, false, &c));
		assert_true(c.n_new == 12 && c.rel > 0);
	}

	/* Too few samples: no 95% interval, so never significant. */
	assert_true(kscen_change_compute(&(struct kscen_metric){ .samples = ea,
		.nr_samples = 3 }, &(struct kscen_metric){ .samples = eb + 5,
		.nr_samples = 3 }, false, &c));
	assert_true(!c.ci_valid && c.verdict == KSCEN_SAME);
	assert_true(!kscen_change_compute(&mo, &(struct kscen_metric){ 0 }, false,
				      &c));

	free(mo.samples);
	free(mn.samples);
	free(mb.samples);
	free(ms.samples);
}

/* repeat: auto and its knobs reach the scenario; a count turns it off. */
void test_stats_scenario_repeat_auto(void **state)
{
	struct kscen_scenario *s = NULL;

	assert_true(kscen_scenario_load("tests/fixtures/good/auto.yaml", &s) == 0);
	if (s) {
		assert_true(s->repeat == 6 && s->max_repeat == 12);
		assert_true(s->until_ci == 2.5);
		kscen_scenario_free(s);
	}
	s = NULL;
	assert_true(kscen_scenario_load("tests/fixtures/e2e/tiny.yaml", &s) == 0);
	if (s) {
		assert_true(s->repeat == 3 && s->until_ci == 0);
		kscen_scenario_free(s);
	}
}

/* xorshift64 and Box-Muller: a fixed seed, so the rates below are exact. */
static double gauss(unsigned long long *s)
{
	double u, v;

	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	u = ((*s >> 11) + 0.5) / 9007199254740992.0;
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	v = ((*s >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/*
 * The method on its own, away from any machine: 5 + 5 samples, log-normal
 * with a CV of 3%. A/A: at most 5% significant verdicts (the exact test
 * at 5 + 5 can only reach p = 0.032 below 0.05, so about 3.2%); a planted
 * +10%: at least 95% found "worse"; every estimate inside its interval.
 * docs/statistics.md has the numbers.
 */
void test_stats_simulated_false_positive_and_detection_rates(void **state)
{
	unsigned long long seed = 0x9e3779b97f4a7c15ull;
	double a[5], b[5], c5[5];
	unsigned t, i, fp = 0, det = 0, trials = 2000, inside = 0;
	struct kscen_metric ma = { .samples = a, .nr_samples = 5 };
	struct kscen_metric mb = { .samples = b, .nr_samples = 5 };
	struct kscen_metric mc = { .samples = c5, .nr_samples = 5 };
	struct kscen_change c;

	for (t = 0; t < trials; t++) {
		for (i = 0; i < 5; i++) {
			a[i] = 100 * exp(0.03 * gauss(&seed));
			b[i] = 100 * exp(0.03 * gauss(&seed));
			c5[i] = 110 * exp(0.03 * gauss(&seed));
		}
		kscen_change_compute(&ma, &mb, false, &c);
		fp += c.verdict != KSCEN_SAME;
		inside += c.lo <= c.rel && c.rel <= c.hi;
		kscen_change_compute(&ma, &mc, false, &c);
		det += c.verdict == KSCEN_WORSE;
		inside += c.lo <= c.rel && c.rel <= c.hi;
		/* paired: the Walsh averages' median, inside their interval */
		kscen_change_compute(&ma, &mc, true, &c);
		inside += c.lo <= c.rel && c.rel <= c.hi;
	}
	printf("    simulated A/A: %u/%u significant; +10%%: %u/%u found\n",
	       fp, trials, det, trials);
	assert_true(fp <= trials / 20 && fp >= trials / 100);
	assert_true(det >= trials * 95 / 100);
	/* the change printed is always inside its own interval */
	assert_int_equal(inside, 3 * trials);
}

/* People's numbers: seconds scaled, digits from the CI, commas, no 300 digits. */
void test_report_numbers_scaled_and_rounded(void **state)
{
	double samples[] = { 0.0236, 0.0230, 0.0241, 0.0238, 0.0233 };
	struct kscen_metric m = { .unit = "s", .samples = samples, .nr_samples = 5 };
	struct kscen_num st;
	char buf[64];

	kscen_summarize(samples, 5, &m.sum);
	kscen_num_style(&m, &st);
	assert_string_equal(st.unit, "ms");
	kscen_format_num(&st, m.sum.median, false, buf, sizeof(buf));
	assert_string_equal(buf, "23.6");
	kscen_format_num(&st, 0.0012, true, buf, sizeof(buf));
	assert_string_equal(buf, "+1.2");
	/* no CI: 4 significant digits; commas from 10,000 up */
	st = (struct kscen_num){ .unit = "usecs", .scale = 1, .decimals = 0 };
	kscen_format_num(&st, 1234567, false, buf, sizeof(buf));
	assert_string_equal(buf, "1,234,567");
	kscen_format_num(&st, -12345, true, buf, sizeof(buf));
	assert_string_equal(buf, "-12,345");
	kscen_format_num(&st, 9999, false, buf, sizeof(buf));
	assert_string_equal(buf, "9999");
	kscen_format_num(&st, 1e300, false, buf, sizeof(buf));
	assert_string_equal(buf, "1e+300");
	m = (struct kscen_metric){ .unit = "ops/sec", .sum = { .median = 12.5 } };
	m.sum.ci_lo = m.sum.ci_hi = NAN;
	kscen_num_style(&m, &st);
	assert_int_equal(st.decimals, 2);
	assert_string_equal(st.unit, "ops/sec");
}

/*
 * Beyond 50 samples the intervals' ranks and the p-values come from the
 * normal approximation, and beyond 2000 a side is thinned to 2000 evenly
 * spaced order statistics. The references: docs/testing.md's script, which
 * takes every pair (and Walsh average) by brute force, with
 * statistics.NormalDist.
 */
/*
 * @n rounds whose noise both jobs share: the new job is 0.2% slower, and
 * 1% of noise of its own, each round (docs/testing.md's script).
 */
static void rounds(double *base, double *new_, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		base[i] = 100 * (1 + 0.05 * sin(i));
		new_[i] = base[i] * (1.002 + 0.01 * cos(3 * i));
	}
}

void test_stats_large_samples_normal_approximation(void **state)
{
	static double x[2100], y[2100], base[60], new_[60];
	struct kscen_metric mx, my, mb, mn;
	struct kscen_change c;
	unsigned i;

	/* 40 + 40, unpaired: rank 596 of 1600 differences */
	for (i = 0; i < 40; i++) {
		x[i] = 100 * (1 + 0.002 * ((i * 37) % 41) - 0.04);
		y[i] = 101 * (1 + 0.002 * ((i * 23) % 43) - 0.042);
	}
	metric(&mx, x, 40, KSCEN_LOWER);
	metric(&my, y, 40, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mx, &my, false, &c));
	assert_true(!c.paired && c.ci_valid && c.verdict == KSCEN_SAME);
	assert_true(near(c.p, 0.14891229168372466, 1e-9));
	assert_true(near(c.lo, -0.003622350674372985, 1e-12));
	assert_true(near(c.hi, 0.02009999999999958, 1e-12));
	/* the Hodges-Lehmann estimate: expm1 of the median log difference */
	assert_true(near(c.rel, 0.008017662465860822, 1e-12));
	free(mx.samples);
	free(my.samples);

	/* 60 rounds, paired: Walsh averages' rank 649 of 1830 */
	rounds(base, new_, 60);
	metric(&mb, base, 60, KSCEN_LOWER);
	metric(&mn, new_, 60, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mb, &mn, true, &c));
	assert_true(c.paired && c.ci_valid && c.n_new == 60 && c.verdict == KSCEN_WORSE);
	assert_true(near(c.p, 0.025466857653172248, 1e-9));
	assert_true(near(c.lo, 0.00031758843979899464, 1e-12));
	assert_true(near(c.hi, 0.003958120721879384, 1e-12));
	free(mb.samples);
	free(mn.samples);

	/* 2100 + 2100: each side thinned to 2000; rank 1928423 of 4e6 */
	for (i = 0; i < 2100; i++) {
		x[i] = 50 * (1 + 0.0001 * ((i * 997) % 2111));
		y[i] = 51 * (1 + 0.0001 * ((i * 983) % 2113));
	}
	metric(&mx, x, 2100, KSCEN_LOWER);
	metric(&my, y, 2100, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mx, &my, false, &c));
	assert_true(c.ci_valid && c.verdict == KSCEN_WORSE && c.p < 1e-12);
	assert_true(near(c.lo, 0.016498855835240567, 1e-12));
	assert_true(near(c.hi, 0.02354074459776083, 1e-12));
	assert_true(near(c.rel, 0.020000000000000052, 1e-12));	/* Hodges-Lehmann, thinned */
	free(mx.samples);
	free(my.samples);
}

/*
 * The edges of kscen_change_compute() and its tests, by value. References:
 * math.comb for complete separations; the U counts by the recurrence
 * f(u; m, n) = f(u - n; m - 1, n) + f(u; m, n - 1) and the W+ counts by
 * subset sums, in python3 (not kscen's table), for the levels; math.erfc
 * for the normal approximation's p_min.
 */
void test_stats_change_edges_by_value(void **state)
{
	static double a[60], b[60], one[1] = { 1 }, forty[39];
	static const double five[] = { 5, 5, 5 }, zeros[] = { 0, 0, 0, 0, 0 };
	static const double d7[] = { 0, 1, 2, 3, 4, 5, 6 };
	static const double d6[] = { 1, 1, 2, -3, 4, 5 };
	/* a zero makes them raw units (no log): the old median is 10.5 */
	static const double raw_old[] = { 0, 8, 9, 10, 11, 12, 13, 14 };
	static const double raw_new[] = { 11, 12, 13, 14, 15, 16, 17, 18 };
	/* the zero in the new job alone: raw units still, old median 11.5 */
	static const double raw_old2[] = { 8, 9, 10, 11, 12, 13, 14, 15 };
	static const double raw_new2[] = { 0, 12, 13, 14, 15, 16, 17, 18 };
	/* the 6 rounds' correlation of logs is 0.696, 0.334 without round 0 */
	static const double px[] = { 90, 100, 100, 103, 102, 105 };
	static const double py[] = { 92, 96, 110, 108, 105, 102 };
	/* raw units; 64 differences: 21 x 5, 35 x 10, then 105..110 */
	static const double g_old[] = { 0, 100, 100, 100, 100, 100, 100, 100 };
	static const double g_up[] = { 105, 105, 105, 110, 110, 110, 110, 110 };
	static const double g_down[] = { 90, 90, 90, 90, 90, 95, 95, 95 };
	struct kscen_metric mo, mn;
	struct kscen_change c;
	unsigned i;

	for (i = 0; i < 60; i++) {
		a[i] = 100 + i;
		b[i] = 1000 + i;
	}
	/* nothing to compare on one side: no p */
	assert_true(isnan(kscen_mann_whitney_p(a, 0, b, 3)));
	assert_true(isnan(kscen_mann_whitney_p(a, 3, b, 0)));
	/* the smallest exact ones, by enumerating the orderings: 1 + 1 has
	 * 2 (p 1), 2 + 1 and 1 + 2 have 3 (separated: p 2/3) */
	assert_true(kscen_mann_whitney_p(a, 1, b, 1) == 1);
	assert_true(near(kscen_mann_whitney_p(a, 2, b, 1), 2.0 / 3, 1e-15));
	assert_true(near(kscen_mann_whitney_p(a, 1, b, 2), 2.0 / 3, 1e-15));
	/* every sample tied: no variance, p 1 (not 0/0) */
	assert_true(kscen_mann_whitney_p(five, 3, five, 3) == 1);
	/* 25 + 25, exact (50 samples is the exact limit): 2 / C(50, 25) */
	assert_true(near(kscen_mann_whitney_p(a, 25, b, 25) * 1e14,
			 1.5821457204897235, 1e-12));
	/* 50 pairs all up, exact: 2 / 2^50; a zero difference is dropped and
	 * 6 of 7 go to the normal approximation: W+ 21, p 0.036031686218233716 */
	assert_true(kscen_signed_rank_p(b, 50) == 2 / pow(2, 50));
	assert_true(near(kscen_signed_rank_p(d7, 7), 0.036031686218233716, 1e-12));
	/* ties: W+ 17, variance 6 * 7 * 13 / 24 - (2^3 - 2) / 48 (R's) */
	assert_true(near(kscen_signed_rank_p(d6, 6), 0.20716044891146085, 1e-12));

	/* an old median of 0: no relative change, nothing else either */
	metric(&mo, zeros, 5, KSCEN_LOWER);
	metric(&mn, a, 5, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mo, &mn, false, &c));
	assert_true(c.old == 0 && c.new_ == 102 && c.verdict == KSCEN_SAME);
	assert_true(isnan(c.rel) && isnan(c.lo) && isnan(c.hi) && isnan(c.p));
	assert_true(isnan(c.level) && isnan(c.p_min) && isnan(c.size));
	free(mo.samples);
	free(mn.samples);

	/* 25 + 25: the exact interval, rank 212, covers 95.0575% */
	metric(&mo, a, 25, KSCEN_LOWER);
	metric(&mn, b, 25, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mo, &mn, false, &c));
	assert_true(near(c.level, 95.05749267748777, 1e-9));
	assert_true(near(c.p_min * 1e14, 1.5821457204897235, 1e-12));
	free(mn.samples);
	/* 25 + 26: the normal one says 95 and p_min erfc(324.5 / sd / sqrt 2) */
	metric(&mn, b, 26, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mo, &mn, false, &c));
	assert_true(c.level == 95);
	assert_true(near(c.p_min * 1e10, 9.697974076284181, 1e-6));
	free(mo.samples);
	free(mn.samples);
	/* 50 rounds paired, exact: Walsh rank 435, 95.0554% */
	for (i = 0; i < 50; i++)
		b[i] = a[i] * (1.1 + 0.001 * i);
	metric(&mo, a, 50, KSCEN_LOWER);
	metric(&mn, b, 50, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mo, &mn, true, &c));
	assert_true(c.paired && near(c.level, 95.05535931993983, 1e-9));
	free(mo.samples);
	free(mn.samples);

	/* raw units: the shift over |old median|, [1, 8] / 10.5, 4 / 10.5 */
	metric(&mo, raw_old, 8, KSCEN_LOWER);
	metric(&mn, raw_new, 8, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mo, &mn, false, &c));
	assert_true(near(c.rel, 4 / 10.5, 1e-15) && near(c.lo, 1 / 10.5, 1e-15) &&
		    near(c.hi, 8 / 10.5, 1e-15));
	free(mo.samples);
	free(mn.samples);
	metric(&mo, raw_old2, 8, KSCEN_LOWER);
	metric(&mn, raw_new2, 8, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mo, &mn, false, &c));
	assert_true(near(c.rel, 3 / 11.5, 1e-15) && near(c.lo, -1 / 11.5, 1e-15) &&
		    near(c.hi, 6 / 11.5, 1e-15));
	free(mo.samples);
	free(mn.samples);

	/*
	 * 1 + 39: p is exactly 0.05 (2 of the 40 orderings), which is not
	 * below it; the interval's rank 1 covers exactly 95% (P(U = 0) is
	 * 2.5%, not above 2.5%).
	 */
	for (i = 0; i < 39; i++)
		forty[i] = 2 + i;
	metric(&mo, one, 1, KSCEN_LOWER);
	metric(&mn, forty, 39, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mo, &mn, false, &c));
	assert_true(c.p == 0.05 && c.ci_valid && c.level == 95);
	assert_true(c.lo == 1 && c.verdict == KSCEN_SAME);
	free(mo.samples);
	free(mn.samples);

	/* round 0 is what correlates these rounds: they pair */
	metric(&mo, px, 6, KSCEN_LOWER);
	metric(&mn, py, 6, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mo, &mn, true, &c));
	assert_true(c.paired && !strcmp(kscen_change_test(&c), "Wilcoxon signed-rank"));
	free(mo.samples);
	free(mn.samples);

	/*
	 * The gate at exactly its edge: +10% with the interval's low end at
	 * exactly +5% (d(14) = 5, over 100) does not trip --gate 5; nor does
	 * -10% with its high end at exactly -5% when higher is better.
	 */
	metric(&mo, g_old, 8, KSCEN_LOWER);
	metric(&mn, g_up, 8, KSCEN_LOWER);
	assert_true(kscen_change_compute(&mo, &mn, false, &c));
	assert_true(c.verdict == KSCEN_WORSE && c.lo == 0.05 && c.rel == 0.1);
	assert_true(!kscen_change_beyond(&c, KSCEN_LOWER, 5));
	assert_true(kscen_change_beyond(&c, KSCEN_LOWER, 4.99));
	free(mn.samples);
	metric(&mn, g_down, 8, KSCEN_HIGHER);
	assert_true(kscen_change_compute(&mo, &mn, false, &c));
	assert_true(c.verdict == KSCEN_WORSE && c.hi == -0.05 && c.rel == -0.1);
	assert_true(!kscen_change_beyond(&c, KSCEN_HIGHER, 5));
	assert_true(kscen_change_beyond(&c, KSCEN_HIGHER, 4.99));
	free(mo.samples);
	free(mn.samples);
}

/*
 * The interval's and the gate's boundaries, by value. References in
 * python3's standard library: the Moses rank k = 6 of 6 + 6 (95.887%) by
 * enumerating all 924 orderings with itertools.combinations; p by the
 * tie-corrected normal approximation (u = 33 or 3, 7 tied at 10:
 * 0.009621719585759081); the 2000 and 2001 rounds with the brute-force
 * script of docs/testing.md ("Where the large-sample references come
 * from"), walsh() on the first 2000 log ratios, mw() and moses() on all.
 */
/* kscen_change_compute() of @x and @y, lower better, its metrics freed */
static bool change(const double *x, unsigned nx, const double *y, unsigned ny,
		   bool paired_ok, struct kscen_change *c)
{
	struct kscen_metric mo, mn;
	bool ok;

	metric(&mo, x, nx, KSCEN_LOWER);
	metric(&mn, y, ny, KSCEN_LOWER);
	ok = kscen_change_compute(&mo, &mn, paired_ok, c);
	free(mo.samples);
	free(mn.samples);
	return ok;
}

void test_stats_change_bounds_by_value(void **state)
{
	static const double ten[] = { 10, 10, 10, 10, 10, 10 };
	static const double down[] = { 5, 6, 7, 8, 9, 10 };
	static const double up[] = { 10, 11, 12, 13, 14, 15 };
	/* raw units (a 0 in the new job); deviations (1, -1, 0...) and
	 * (1, 0, -1, 0...), means exact in eighths: r = 1 / sqrt(2 * 2) */
	static const double rx[] = { 11, 9, 10, 10, 10, 10, 10, 10 };
	static const double ry[] = { 1, 0, -1, 0, 0, 0, 0, 0 };
	static double base[2001], new_[2001];
	struct kscen_change c;

	/*
	 * p 0.0096, but the interval's high end is exactly 0 (the six
	 * differences 10 - 10 are the six largest): it holds "no change",
	 * so nothing is significant.
	 */
	assert_true(change(ten, 6, down, 6, false, &c));
	assert_true(near(c.p, 0.009621719585759081, 1e-12));
	assert_true(c.ci_valid && near(c.level, 95.88744588744589, 1e-9));
	assert_true(c.hi == 0 && near(c.lo, -0.5, 1e-15));
	assert_true(near(c.rel, -0.251668522645212, 1e-12));
	assert_true(c.verdict == KSCEN_SAME);
	/* the same with its low end exactly at 0 */
	assert_true(change(ten, 6, up, 6, false, &c));
	assert_true(near(c.p, 0.009621719585759081, 1e-12));
	assert_true(c.lo == 0 && near(c.hi, 0.5, 1e-15));
	assert_true(c.verdict == KSCEN_SAME);

	/* a correlation of exactly 0.5 is not over 0.5: the rounds do not pair */
	assert_true(change(rx, 8, ry, 8, true, &c));
	assert_true(!c.paired && !strcmp(kscen_change_test(&c), "Mann-Whitney U"));

	/*
	 * 2000 rounds (r 0.98) pair: Walsh rank 949875 of 2001000; 2001 are
	 * past the Walsh averages' limit, so the unpaired test (each side
	 * thinned to 2000, rank 1928423) says it, p 0.0757: not significant.
	 */
	rounds(base, new_, 2001);
	assert_true(change(base, 2000, new_, 2000, true, &c));
	assert_true(c.paired && c.n_new == 2000 && c.verdict == KSCEN_WORSE);
	assert_true(c.p < 1e-12);
	assert_true(near(c.lo, 0.001773400312341291, 1e-12));
	assert_true(near(c.hi, 0.0021670347914122716, 1e-12));
	assert_true(near(c.rel, 0.0019591201259210205, 1e-12));
	assert_true(change(base, 2001, new_, 2001, true, &c));
	assert_true(!c.paired && c.n_new == 2001 && c.verdict == KSCEN_SAME);
	assert_true(near(c.p, 0.07568378299261647, 1e-9));
	assert_true(near(c.lo, -0.00020286635699096184, 1e-12));
	assert_true(near(c.hi, 0.004123144825757215, 1e-12));
	assert_true(near(c.rel, 0.0019495011094819148, 1e-12));

	/* only a worse verdict trips the gate, whatever the interval says */
	c = (struct kscen_change){ .verdict = KSCEN_SAME, .ci_valid = true,
				   .rel = -0.2, .lo = -0.3, .hi = -0.1 };
	assert_true(!kscen_change_beyond(&c, KSCEN_HIGHER, 5));
	c.verdict = KSCEN_WORSE;
	assert_true(kscen_change_beyond(&c, KSCEN_HIGHER, 5));
}

/* kscen_summarize() and kscen_sort() at their edges, by value. */
void test_stats_summary_edges_by_value(void **state)
{
	static const double fences[] = { 1, 2, 3, 100 };
	static const double two4[] = { 10, 10.1, 50, 50.1 };
	static const double high[] = { 100, 100.1, 100.2, 100.3, 200, 200.1,
				       200.2, 200.3 };
	static const double wide_low[] = { -5, 10, 10.1, 10.2, 50, 50.1, 50.2,
					   50.3 };
	static const double gap3[] = { 0, 1, 4, 5 };
	static const double gap10[] = { 9.5, 9.5, 10.5, 10.5 };
	static const double zero_mid[] = { -1, 0, 1 };
	static const double huge_low[] = { 1, -DBL_MAX };
	double nan4[] = { NAN, 1, NAN, 0 };
	struct kscen_summary s;

	/* NaNs sort last, whatever their place */
	kscen_sort(nan4, 4);
	assert_true(nan4[0] == 0 && nan4[1] == 1 && isnan(nan4[2]) && isnan(nan4[3]));

	/* no samples: every number NaN, the interval too */
	kscen_summarize(NULL, 0, &s);
	assert_true(isnan(s.median) && isnan(s.ci_lo) && isnan(s.ci_hi));

	/*
	 * 4 samples: q1 = 1.75 and q3 = 27.25 (type 7), the upper fence
	 * 65.5: 100 is the one outlier
	 */
	kscen_summarize(fences, 4, &s);
	assert_int_equal(s.outliers, 1);
	assert_true(!s.bimodal);
	/* the gap test from 4 samples: 39.9 apart, each side 0.1 wide */
	kscen_summarize(two4, 4, &s);
	assert_true(s.bimodal);
	/* two tight clusters: gap 99.7, spread 0.3 */
	kscen_summarize(high, 8, &s);
	assert_true(s.bimodal);
	/* the low side is 15.2 wide (from -5): 39.8 is not three times that */
	kscen_summarize(wide_low, 8, &s);
	assert_true(!s.bimodal);
	/* a gap of exactly 3 spreads, and one of exactly 10% of the median */
	kscen_summarize(gap3, 4, &s);
	assert_true(!s.bimodal);
	kscen_summarize(gap10, 4, &s);
	assert_true(!s.bimodal);

	/*
	 * The squares overflow and are scaled by the largest magnitude, here
	 * the low one: mean -DBL_MAX / 2, deviations -0.5 and 0.5 of DBL_MAX,
	 * sd DBL_MAX * sqrt(0.5) (python3: 1.2711610061536462e+308), cv sqrt 2.
	 */
	kscen_summarize(huge_low, 2, &s);
	assert_true(s.mean == -DBL_MAX / 2);
	assert_true(s.stddev == 1.2711610061536462e+308);
	assert_true(s.cv == 1.4142135623730951);

	/* a median of 0 has no relative half-width, even with an interval */
	kscen_summarize(zero_mid, 3, &s);
	assert_true(s.ci_lo == -1 && s.ci_hi == 1);
	assert_true(isnan(kscen_ci_halfwidth(&s)));
}

/* A change never reads "+0": a delta that rounds to 0 gets the digits it needs. */
void test_report_delta_never_rounds_to_zero(void **state)
{
	struct kscen_num st = { .unit = "usecs", .scale = 1, .decimals = 0 };
	struct kscen_num ms = { .unit = "ms", .scale = 1e3, .decimals = 1 };
	char buf[64];

	kscen_format_delta(&st, 0.4, buf, sizeof(buf));
	assert_string_equal(buf, "+0.4");
	kscen_format_delta(&st, -0.04, buf, sizeof(buf));
	assert_string_equal(buf, "-0.04");
	kscen_format_delta(&st, 0.096, buf, sizeof(buf));
	assert_string_equal(buf, "+0.10");
	kscen_format_delta(&st, 5.6, buf, sizeof(buf));	/* the value's digits */
	assert_string_equal(buf, "+6");
	kscen_format_delta(&st, 0.5, buf, sizeof(buf));	/* rounds to 1, not 0 */
	assert_string_equal(buf, "+0");
	kscen_format_delta(&st, 0, buf, sizeof(buf));
	assert_string_equal(buf, "+0");
	kscen_format_delta(&ms, 0.00003, buf, sizeof(buf));	/* 0.03 ms */
	assert_string_equal(buf, "+0.03");
	kscen_format_delta(&ms, 0.0012, buf, sizeof(buf));
	assert_string_equal(buf, "+1.2");
}
