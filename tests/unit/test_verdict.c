// SPDX-License-Identifier: GPL-2.0
/*
 * test_verdict.c - the verdicts between runs on synthetic histories, all
 * from fixed seeds: Student's t and Benjamini-Hochberg against reference
 * values, change points where a level moved and none where it did not, the
 * A/A and detection
 * rates with 10% outlier samples, the false discovery rate of a 100-job
 * A/A run, and the calibration record read like any hostile file. (The
 * gate that stays awake is test_history.c's, beside its stored runs.)
 */
#define _GNU_SOURCE	/* mkdtemp */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/diag.h"
#include "store/history.h"
#include "lib/util.h"
#include "report/report.h"
#include "tests.h"

static bool near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

/* xorshift64 and Box-Muller, as in test_stats.c: the rates below are exact. */
static double unif(unsigned long long *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return ((*s >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(unsigned long long *s)
{
	double u = unif(s), v = unif(s);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

void test_verdict_t_distribution_and_bh(void **state)
{
	/* python3: the t density integrated by Simpson's rule, and bisection */
	const double p[] = { 0.01, 0.04, 0.03, 0.005, NAN };
	double q[5];

	(void)state;
	assert_true(near(kscen_t975(1), 12.706204736, 1e-8));
	assert_true(near(kscen_t975(4), 2.776445105198, 1e-9));
	assert_true(near(kscen_t975(30), 2.042272456301, 1e-9));
	assert_true(near(kscen_t975(1000000), 1.959966, 1e-5));
	assert_true(isnan(kscen_t975(0)));
	assert_true(near(kscen_t_p2(1, 1), 0.5, 1e-12));
	assert_true(near(kscen_t_p2(2.776, 4), 0.0500227783, 1e-9));
	assert_true(near(kscen_t_p2(-2.776, 4), 0.0500227783, 1e-9));
	assert_true(kscen_t_p2(0, 7) == 1 && kscen_t_p2(INFINITY, 3) == 0);
	/* R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = .02 .04 .04 .02 */
	assert_int_equal(kscen_bh_qvalues(p, 5, q), 4);
	assert_true(near(q[0], 0.02, 1e-15) && near(q[1], 0.04, 1e-15));
	assert_true(near(q[2], 0.04, 1e-15) && near(q[3], 0.02, 1e-15));
	assert_true(isnan(q[4]));
}

void test_verdict_changepoints_find_level_shifts(void **state)
{
	unsigned long long seed = 0x5eed5eedull;
	struct kscen_cpoint cp[8], cp2[8];
	double z[40];
	unsigned n, false_ones = 0;

	(void)state;
	/* A step of 5 noise SDs at 12 of 24: one change, there. */
	for (unsigned i = 0; i < 24; i++)
		z[i] = (i >= 12 ? 0.5 : 0) + 0.1 * gauss(&seed);
	n = kscen_changepoints(z, 24, cp, 8);
	assert_int_equal(n, 1);
	assert_int_equal(cp[0].at, 12);
	assert_true(cp[0].p <= KSCEN_CP_ALPHA);
	/* the same history, the same answer */
	assert_int_equal(kscen_changepoints(z, 24, cp2, 8), 1);
	assert_true(cp2[0].at == 12 && cp2[0].p == cp[0].p);

	/* Two steps, up then further up: both, in order. */
	for (unsigned i = 0; i < 30; i++)
		z[i] = (i >= 10) * 0.5 + (i >= 20) * 0.5 + 0.1 * gauss(&seed);
	n = kscen_changepoints(z, 30, cp, 8);
	assert_int_equal(n, 2);
	assert_true(cp[0].at == 10 && cp[1].at == 20);

	/* One outlier run is no change: a segment has at least two runs. */
	for (unsigned i = 0; i < 20; i++)
		z[i] = 0.1 * gauss(&seed) + (i == 9) * 2;
	assert_int_equal(kscen_changepoints(z, 20, cp, 8), 0);

	/* Two regressed runs after eight: found, the test can reach 2/45. */
	for (unsigned i = 0; i < 10; i++)
		z[i] = (i >= 8) + 0.05 * gauss(&seed);
	n = kscen_changepoints(z, 10, cp, 8);
	assert_true(n == 1 && cp[0].at == 8);

	/* Stationary: a false change in about 5 of 100 series, not more. */
	for (unsigned t = 0; t < 200; t++) {
		for (unsigned i = 0; i < 20; i++)
			z[i] = 0.1 * gauss(&seed);
		false_ones += kscen_changepoints(z, 20, cp, 8) > 0;
	}
	print_message("    stationary series with a change point: %u/200\n", false_ones);
	assert_true(false_ones <= 14);
	/* Too short, or not a number: nothing. */
	assert_int_equal(kscen_changepoints(z, 3, cp, 8), 0);
	z[2] = NAN;
	assert_int_equal(kscen_changepoints(z, 20, cp, 8), 0);
}

/*
 * One run of @n samples: log-normal with SD @sigma around the run's own
 * shift @b; a share @out of them slowed by 50 to 200% (outliers).
 */
static void sim_run(struct kscen_metric *m, unsigned n, double b, double sigma,
		    double out, unsigned long long *s)
{
	for (unsigned i = 0; i < n; i++) {
		double l = b + sigma * gauss(s);

		if (unif(s) < out)
			l += log(1.5 + 1.5 * unif(s));
		m->samples[i] = 100 * exp(l);
	}
	m->nr_samples = n;
}

/*
 * A history of 5 runs of 5 samples (between-run SD @tau, in-run @sigma,
 * outliers @out) and the verdict on one more run shifted by @shift.
 */
static void trial(unsigned long long *seed, double tau, double sigma, double out,
		  const double *shift, unsigned nshift, struct kscen_change *c,
		  struct kscen_drift *d)
{
	struct kscen_series_pt pt[5];
	double x[8];
	struct kscen_metric m = { .samples = x, .better = KSCEN_LOWER };

	for (unsigned i = 0; i < 5; i++) {
		sim_run(&m, 5, tau * gauss(seed), sigma, out, seed);
		kscen_log_median(&m, &pt[i].l, &pt[i].se);
	}
	kscen_drift_from(pt, 5, d);
	for (unsigned k = 0; k < nshift; k++) {
		sim_run(&m, 5, tau * gauss(seed) + shift[k], sigma, out, seed);
		memset(&c[k], 0, sizeof(c[k]));
		kscen_change_between(&c[k], &m, d, KSCEN_LOWER);
	}
}

/*
 * Histories of 5 runs of 5 samples, a between-run SD of 3% and in-run
 * noise of 2% with 10% outliers (the outliers that made the old estimate
 * collapse to 0 and flag 35-64% of A/A pairs): the next run, A/A, is
 * flagged at most 6 times in 100; one shifted by 3 times the measured SD
 * of the runs' medians is found at least 80 times in 100.
 * bench/simulate-history.sh prints the same for other mixes.
 */
void test_verdict_simulated_histories_with_outliers(void **state)
{
	unsigned long long seed = 0x9e3779b97f4a7c15ull, s2 = 12345;
	double x[8], sum = 0, ss = 0, sd;
	struct kscen_metric m = { .samples = x, .better = KSCEN_LOWER };
	unsigned T = 1000, aa = 0, found = 0, cannot = 0, zero = 0;

	(void)state;
	/* the SD of a run's log median, measured over many runs */
	for (unsigned i = 0; i < 20000; i++) {
		double l, se;

		sim_run(&m, 5, 0.03 * gauss(&s2), 0.02, 0.1, &s2);
		kscen_log_median(&m, &l, &se);
		sum += l;
		ss += l * l;
	}
	sd = sqrt(ss / 20000 - sum * sum / 20000 / 20000);
	for (unsigned t = 0; t < T; t++) {
		const double shift[2] = { 0, 3 * sd };
		struct kscen_change c[2];
		struct kscen_drift d;

		trial(&seed, 0.03, 0.02, 0.1, shift, 2, c, &d);
		zero += !(d.spread > 0.001);
		aa += c[0].verdict == KSCEN_WORSE || c[0].verdict == KSCEN_BETTER;
		cannot += c[0].verdict == KSCEN_CANNOT_TELL;
		found += c[1].verdict == KSCEN_WORSE;
	}
	print_message("    SD of a run's median %.4f; A/A %u/%u flagged, 3 SD found "
		      "%u/%u, cannot tell %u, allowance under 0.1%% %u\n", sd, aa, T,
		      found, T, cannot, zero);
	assert_true(aa <= T * 6 / 100);
	assert_true(found >= T * 80 / 100);
	assert_true(!zero);
}

/*
 * A 100-job A/A run, 400 times: each job a history of 5 runs and a new
 * one from the same distribution. The flagged count is within the spread
 * of what the footer says is expected by chance (5 of 100), and
 * Benjamini-Hochberg at 0.05 (--gate-fdr 0.05) flags any job in at most 5
 * runs in 100.
 */
void test_verdict_fdr_of_a_100_job_aa_run(void **state)
{
	unsigned long long seed = 0xfd7ull;
	unsigned R = 400, J = 100, tripped = 0, flagged = 0;
	double p[100], q[100], expected = 0;

	(void)state;
	for (unsigned r = 0; r < R; r++) {
		bool any = false;

		for (unsigned j = 0; j < J; j++) {
			const double none = 0;
			struct kscen_change c;
			struct kscen_drift d;

			trial(&seed, 0.03, 0.02, 0, &none, 1, &c, &d);
			p[j] = c.p;
			expected += c.size;
			flagged += c.verdict == KSCEN_WORSE || c.verdict == KSCEN_BETTER;
		}
		kscen_bh_qvalues(p, J, q);
		for (unsigned j = 0; j < J; j++)
			any |= q[j] <= 0.05;
		tripped += any;
	}
	print_message("    flagged %.2f a run, expected %.2f; q <= 0.05 in %u of %u runs\n",
		      (double)flagged / R, expected / R, tripped, R);
	/*
	 * The expected count is 5 a run; a run's flagged count spreads by
	 * sqrt(100 * .05 * .95) = 2.2 around it. The test between runs is a
	 * little conservative (the new run's own noise is added where it is
	 * over its history's, and the medians are never taken to scatter less
	 * than their in-run noise): about 4 a run, never more than 5.
	 */
	assert_true(near(expected / R, 5, 1e-9));
	assert_true((double)flagged / R <= expected / R + 0.25);
	assert_true((double)flagged / R >= expected / R - 2.2);
	assert_true(tripped <= R * 5 / 100);
}

static unsigned warnings;

static void count_warning(const struct kscen_diag *d, void *ctx)
{
	(void)ctx;
	warnings += d->severity == KSCEN_DIAG_WARNING;
}

/* What calibrate records, read back; a bad record is ignored, never trusted. */
void test_verdict_calibration_record(void **state)
{
	char tmpl[] = "/tmp/kscen-calib-XXXXXX", *dir = mkdtemp(tmpl), *path;
	struct kscen_system sys = { .hostname = "host/../x", .kernel = "6.1",
				    .kernel_build = "#1 SMP \"PREEMPT\"\n" };
	struct kscen_system other = sys;
	struct kscen_calib c = { .s = 0.04, .df = 12, .jobs = 4,
				 .when = "2026-12-01T00:00:00Z" }, r;
	FILE *f;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(kscen_calib_save(dir, &sys, "a", &c), 0);
	c.s = 0.02;
	c.df = 36;
	assert_int_equal(kscen_calib_save(dir, &sys, "b", &c), 0);
	/* pooled over both scenarios: sqrt((12 * .0016 + 36 * .0004) / 48) */
	assert_true(kscen_calib_load(dir, &sys, NULL, &r));
	assert_true(r.df == 48 && r.jobs == 8 && near(r.s, sqrt(0.0336 / 48), 1e-9));
	/* calibrated after the run: not used for it */
	assert_false(kscen_calib_load(dir, &sys, "2025-01-01T00:00:00Z", &r));
	/* another kernel build: another machine */
	other.kernel_build = "#2";
	assert_false(kscen_calib_load(dir, &other, NULL, &r));
	/* the host name cannot leave the directory */
	path = kscen_xasprintf("%s/.calibration/host____x.yaml", dir);
	assert_int_equal(access(path, R_OK), 0);

	/* hostile: wrong types, a negative SD, not YAML at all */
	kscen_diag_set_sink(count_warning, NULL);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("pools:\n  - {system: x, log_sd: -1, df: 1e300, jobs: [1]}\n"
	      "  - [a, b]\n", f);
	fclose(f);
	warnings = 0;
	assert_false(kscen_calib_load(dir, &sys, NULL, &r));
	assert_int_equal(warnings, 1);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("pools: [\n", f);
	fclose(f);
	assert_false(kscen_calib_load(dir, &sys, NULL, &r));
	assert_int_equal(warnings, 2);
	kscen_diag_set_sink(NULL, NULL);
	unlink(path);
	free(path);
	path = kscen_xasprintf("%s/.calibration", dir);
	rmdir(path);
	free(path);
	rmdir(dir);
}

/*
 * A run-to-run allowance keeps its digits: a small one is never printed
 * "±0.0%" (which reads as "no drift at all"); exactly 0, a metric whose
 * samples never moved, is "±0".
 */
void test_verdict_spread_never_prints_zero(void **state)
{
	char buf[32];

	(void)state;
	kscen_format_spread(0.041, buf, sizeof(buf));
	assert_string_equal(buf, "±4.1%");
	kscen_format_spread(0.00042, buf, sizeof(buf));
	assert_string_equal(buf, "±0.042%");
	kscen_format_spread(0.0004999, buf, sizeof(buf));
	assert_string_equal(buf, "±0.05%");
	kscen_format_spread(0, buf, sizeof(buf));
	assert_string_equal(buf, "±0");
	kscen_format_spread(NAN, buf, sizeof(buf));
	assert_string_equal(buf, "±?");
}
