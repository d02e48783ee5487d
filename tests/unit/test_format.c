// SPDX-License-Identifier: GPL-2.0
/*
 * test_format.c - how every report writes a number, a change and a CI
 * (runner/report/format.c), at the edges where one form turns into the
 * next: exactly 1 s, 0 s, under 1 ns, 10^12, 4 and 5 digits with a sign,
 * p exactly 0.001, a change of exactly 0.05%, 2 and 3 runs of history.
 * Each row is the text a reader sees; the values are worked by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/emit.h"
#include "stats/stats.h"
#include "store/run.h"
#include "lib/util.h"
#include "tests.h"

/* A metric of @unit whose median is @med and CI [@lo, @hi], @n samples. */
static struct kscen_metric metric(const char *unit, double med, double lo, double hi,
				  unsigned n)
{
	struct kscen_metric m = { .unit = (char *)unit, .nr_samples = n };

	m.sum.median = med;
	m.sum.ci_lo = lo;
	m.sum.ci_hi = hi;
	return m;
}

void test_format_num_style_at_the_edges(void **state)
{
	static const struct {
		const char *unit;
		double med, lo, hi;
		const char *want_unit;
		double scale;
		int decimals;
	} t[] = {
		/* exactly 1 s is seconds, 4 significant digits without a CI */
		{ "s", 1, 1, 1, "s", 1, 3 },
		{ "s", 0.999, 0.999, 0.999, "ms", 1e3, 1 },
		{ "s", 2.5, 2.4, 2.6, "s", 1, 1 },	/* ±4%: 0.1 s, one decimal */
		/* 0 s stays seconds (no scale makes 0 reach 1) */
		{ "s", 0, 0, 0, "s", 1, 0 },
		/* under 1 ns: still ns, the smallest there is */
		{ "s", 5e-10, 5e-10, 5e-10, "ns", 1e9, 4 },
		{ "s", 2e-5, 1.5e-5, 2.5e-5, "us", 1e6, 0 },	/* ±25%: 5 us */
		/* usecs scaled as s is (units.c); 6 decimals at most, 0 at least */
		{ "usecs", 1e-7, 1e-7, 1e-7, "nsecs", 1000, 6 },
		{ "usecs", 123456789, 123456789, 123456789, "secs", 1e-6, 1 },
		{ "ops", -42.5, -42.5, -42.5, "ops", 1, 2 },
	};
	struct kscen_num st;

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(t); i++) {
		struct kscen_metric m = metric(t[i].unit, t[i].med, t[i].lo, t[i].hi, 8);

		memset(&st, 0, sizeof(st));
		kscen_num_style(&m, &st);
		if (strcmp(st.unit, t[i].want_unit) || st.scale != t[i].scale ||
		    st.decimals != t[i].decimals)
			print_message("row %u: %s %g %d\n", i, st.unit, st.scale, st.decimals);
		assert_string_equal(st.unit, t[i].want_unit);
		assert_true(st.scale == t[i].scale);
		assert_int_equal(st.decimals, t[i].decimals);
	}
}

void test_format_num_commas_signs_and_huge(void **state)
{
	static const struct {
		double v, scale;
		int decimals;
		bool sign;
		const char *want;
	} t[] = {
		{ 1234, 1, 0, true, "+1234" },		/* 4 digits: no comma */
		{ -1234, 1, 0, true, "-1234" },
		{ 12345, 1, 0, true, "+12,345" },
		{ -12345, 1, 0, false, "-12,345" },
		{ 12345.678, 1, 3, false, "12,345.678" },
		{ 1234567, 1, 0, false, "1,234,567" },
		{ 0.0123456, 1e3, 2, false, "12.35" },
		{ 999999999999.0, 1, 0, false, "999,999,999,999" },
		{ 1e12, 1, 0, false, "1e+12" },		/* from 10^12: %.4g */
		{ -2.5e12, 1, 0, true, "-2.5e+12" },
		{ 2e-3, 1e15, 0, false, "2e+12" },	/* scaled past 10^12 */
		{ NAN, 1, 0, false, "nan" },
		{ INFINITY, 1, 0, true, "inf" },
		{ -INFINITY, 1, 0, true, "-inf" },
	};
	char buf[64];

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(t); i++) {
		struct kscen_num st = { .unit = "", .scale = t[i].scale,
					.decimals = t[i].decimals };

		kscen_format_num(&st, t[i].v, t[i].sign, buf, sizeof(buf));
		assert_string_equal(buf, t[i].want);
	}
}

/* A short buffer: cut, terminated, and nothing written past its end. */
void test_format_num_short_buffer(void **state)
{
	struct kscen_num st = { .unit = "", .scale = 1, .decimals = 0 };
	char buf[16];

	(void)state;
	for (size_t len = 1; len <= 10; len++) {
		memset(buf, '#', sizeof(buf));
		kscen_format_num(&st, 1234567, false, buf, len);
		assert_true(strlen(buf) < len);
		for (size_t k = len; k < sizeof(buf); k++)
			assert_int_equal(buf[k], '#');
	}
	assert_string_equal(buf, "1,234,567");
}

void test_format_short_time(void **state)
{
	char buf[32];

	(void)state;
	report_short_time("2026-12-01T10:02:33Z", buf, sizeof(buf));
	assert_string_equal(buf, "2026-12-01T10:02Z");
	report_short_time("2026-12-01T10:02:", buf, sizeof(buf));	/* 17: enough */
	assert_string_equal(buf, "2026-12-01T10:02Z");
	report_short_time("2026-12-01T10:02", buf, sizeof(buf));
	assert_string_equal(buf, "2026-12-01T10:02");
	report_short_time("yesterday at noon", buf, sizeof(buf));
	assert_string_equal(buf, "yesterday at noon");
	report_short_time(NULL, buf, sizeof(buf));
	assert_string_equal(buf, "unknown time");
	kscen_short_time("2026-12-01T10:02:33Z", buf, sizeof(buf));	/* the exported one */
	assert_string_equal(buf, "2026-12-01T10:02Z");
}

void test_format_change_at_the_edges(void **state)
{
	static const struct {
		struct kscen_change c;
		int verbose;
		const char *want;
	} t[] = {
		{ { .rel = NAN }, 0, "n/a" },
		/* p exactly 0.001 is p=0.001; below it p<0.001 */
		{ { .rel = 0.1, .lo = 0.05, .hi = 0.15, .p = 0.001, .ci_valid = true,
		    .n_old = 8, .n_new = 7, .verdict = KSCEN_WORSE },
		  0, "+10.0% [+5.0% .. +15.0%] worse (p=0.001 n=8+7)" },
		{ { .rel = -0.1, .lo = -0.15, .hi = -0.05, .p = 0.0009, .ci_valid = true,
		    .paired = true, .n_old = 9, .n_new = 9, .verdict = KSCEN_BETTER },
		  1, "-10.0% [-15.0% .. -5.0%] better (p<0.001 n=9 pairs, Wilcoxon signed-rank)" },
		/* 0.05% shows as +0.1%; under it +0.0%, never -0.0% */
		{ { .rel = 0.0005, .lo = -0.0004999, .hi = 0.0015, .p = 0.5,
		    .ci_valid = true, .n_old = 5, .n_new = 5 },
		  0, "+0.1% [+0.0% .. +0.1%] ~ (p=0.500 n=5+5)" },
		/* between runs without a run-to-run estimate: cannot tell */
		{ { .rel = 0.02, .lo = 0.01, .hi = 0.03, .p = 0.01, .ci_valid = true,
		    .n_old = 6, .n_new = 6, .verdict = KSCEN_CANNOT_TELL, .between = true,
		    .hist_runs = 2 },
		  0, "+2.0% cannot tell (no run-to-run estimate, 2 runs)" },
		{ { .rel = -0.02, .verdict = KSCEN_CANNOT_TELL, .between = true,
		    .hist_runs = 1 },
		  0, "-2.0% cannot tell (no run-to-run estimate, 1 run)" },
		/* no interval: the sample counts say why */
		{ { .rel = 0.02, .ci_valid = false, .n_old = 3, .n_new = 3, .between = true,
		    .hist_runs = 3, .spread = 0.042 },
		  0, "+2.0% ~ (too few samples for a 95% CI, n=3+3)" },
		/* with the drift in the interval: p, then the allowance, its source */
		{ { .rel = 0.2, .lo = 0.1, .hi = 0.3, .p = 0.002, .ci_valid = true,
		    .n_old = 8, .n_new = 8, .verdict = KSCEN_WORSE, .between = true,
		    .hist_runs = 4, .drift = true, .spread = 0.025, .src = KSCEN_DRIFT_OWN },
		  0, "+20.0% [+10.0% .. +30.0%] worse (p=0.002; run-to-run ±2.5%, 4 runs)" },
		{ { .rel = 0.2, .lo = -0.1, .hi = 0.5, .p = 0.2, .ci_valid = true,
		    .n_old = 8, .n_new = 6, .between = true, .hist_runs = 4, .drift = true,
		    .spread = 0.3, .src = KSCEN_DRIFT_OWN },
		  1, "+20.0% [-10.0% .. +50.0%] ~ (p=0.200; run-to-run ±30.0%, 4 runs; n=8+6)" },
		{ { .rel = -0.2, .lo = -0.3, .hi = -0.1, .p = 0.0001, .ci_valid = true,
		    .n_old = 8, .n_new = 8, .verdict = KSCEN_BETTER, .between = true,
		    .hist_runs = 2, .drift = true, .spread = 0.01, .src = KSCEN_DRIFT_POOL,
		    .pool = "12 jobs" },
		  0, "-20.0% [-30.0% .. -10.0%] better (p<0.001; run-to-run ±1.0% pooled over 12 jobs; 2 runs)" },
		/* an allowance of exactly 0 is ±0, a tiny one keeps its digits */
		{ { .rel = 0.01, .lo = 0.005, .hi = 0.015, .p = 0.01, .ci_valid = true,
		    .n_old = 8, .n_new = 8, .verdict = KSCEN_WORSE, .between = true,
		    .hist_runs = 5, .drift = true, .spread = 0, .src = KSCEN_DRIFT_OWN },
		  0, "+1.0% [+0.5% .. +1.5%] worse (p=0.010; run-to-run ±0, 5 runs)" },
	};
	char buf[192];
	int verbose = kscen_verbose;

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(t); i++) {
		kscen_verbose = t[i].verbose;
		kscen_format_change(&t[i].c, NAN, buf, sizeof(buf));
		kscen_verbose = verbose;
		assert_string_equal(buf, t[i].want);
	}
	/* q as p: exactly 0.001 is q=0.001, below it q<0.001 */
	kscen_format_change(&t[1].c, 0.001, buf, sizeof(buf));
	assert_string_equal(buf, "+10.0% [+5.0% .. +15.0%] worse (p=0.001 q=0.001 n=8+7)");
	kscen_format_change(&t[1].c, 0.00099, buf, sizeof(buf));
	assert_string_equal(buf, "+10.0% [+5.0% .. +15.0%] worse (p=0.001 q<0.001 n=8+7)");
}

/* The CI as the text and markdown reports print it, and its coverage. */
void test_format_ci_and_its_coverage(void **state)
{
	static const struct {
		double med, lo, hi;
		unsigned n;
		const char *want;
	} t[] = {
		{ 10, 10, 10, 1, "(n=1)" },
		{ 10, 9, 11, 2, "±10.0% (50.0%)" },	/* [min, max] of 2 covers 50% */
		{ 10, 9.5, 10.5, 5, "±5.0% (93.8%)" },
		{ 0, -1, 1, 5, "(n=5)" },		/* no relative width at 0 */
		{ 10, 9.8, 10.4, 6, "±3.0%" },
	};
	char buf[48];

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(t); i++) {
		struct kscen_metric m = metric("", t[i].med, t[i].lo, t[i].hi, t[i].n);

		kscen_format_ci(&m, buf, sizeof(buf));
		assert_string_equal(buf, t[i].want);
	}
	/* from 6 on the order statistics' interval covers a little over 95% */
	assert_true(report_ci_level(5) == 93.75 && fabs(report_ci_level(6) - 96.875) < 1e-9);
	assert_true(report_ci_level(1) == 0 && report_ci_level(2) == 50);
}

/* The note a table's first line carries: how many samples, what coverage. */
void test_format_n_note_spread_finding_and_partial(void **state)
{
	struct kscen_run run = { .nr_shards = 0 };
	struct kscen_change c = { .ci_valid = false, .lo = -0.1 };
	char buf[64];

	(void)state;
	kscen_report_n_note(0, 0, buf, sizeof(buf));
	assert_string_equal(buf, "no samples");
	kscen_report_n_note(3, 2, buf, sizeof(buf));
	assert_string_equal(buf, "no samples");
	kscen_report_n_note(1, 1, buf, sizeof(buf));
	assert_string_equal(buf, "n=1, no CI");
	kscen_report_n_note(1, 8, buf, sizeof(buf));
	assert_string_equal(buf, "n=1..8, 99.2% CI where n > 1");
	kscen_report_n_note(6, 6, buf, sizeof(buf));
	assert_string_equal(buf, "n=6, 96.9% CI");
	kscen_report_n_note(6, 8, buf, sizeof(buf));
	assert_string_equal(buf, "n=6..8, 96.9..99.2% CI");
	/* two counts whose coverages print alike: one figure, not 96.9..96.9 */
	kscen_report_n_note(6, 18, buf, sizeof(buf));
	assert_string_equal(buf, "n=6..18, 96.9% CI");

	/* a spread: unknown, none, tiny (two digits), and as usual */
	kscen_format_spread(NAN, buf, sizeof(buf));
	assert_string_equal(buf, "±?");
	kscen_format_spread(0, buf, sizeof(buf));
	assert_string_equal(buf, "±0");
	kscen_format_spread(0.00047, buf, sizeof(buf));
	assert_string_equal(buf, "±0.047%");
	kscen_format_spread(0.0123, buf, sizeof(buf));
	assert_string_equal(buf, "±1.2%");

	/* no interval: too few samples, whatever its bounds say */
	assert_string_equal(report_finding(&c), "too_few_samples");
	c.ci_valid = true;
	c.lo = NAN;
	assert_string_equal(report_finding(&c), "too_few_samples");
	c.lo = -0.1;
	assert_string_equal(report_finding(&c), "no_significant_change");

	/* why a run is partial: its shards, one or several, or it stopped */
	report_partial_why(&run, buf, sizeof(buf));
	assert_string_equal(buf, "the run was cut short");
	run.nr_shards = 2;
	report_partial_why(&run, buf, sizeof(buf));
	assert_string_equal(buf, "a shard was cut short");
	run.missing_shards = "2/3";
	report_partial_why(&run, buf, sizeof(buf));
	assert_string_equal(buf, "shard 2/3 missing");
	run.missing_shards = "2/4 3/4";
	report_partial_why(&run, buf, sizeof(buf));
	assert_string_equal(buf, "shards 2/4 3/4 missing");
}
