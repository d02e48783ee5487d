// SPDX-License-Identifier: GPL-2.0
/*
 * test_report_layout.c - the tables people read, by value: units scaled
 * and spelled alike (report/units.c), aligned columns (report/table.c),
 * the mail of a run and of runs compared (report/mail.c,
 * report/compare_model.c), line for line on the fixture run of
 * test_report_model.c, whose jobs differ in every number shown.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/history.h"
#include "report/report.h"
#include "report/table.h"
#include "report/model.h"
#include "report/emit.h"
#include "lib/util.h"
#include "tests.h"

static char *compared(struct kscen_run **runs, unsigned nr, enum kscen_format fmt)
{
	struct kscen_refs *refs = kscen_xcalloc(nr, sizeof(*refs));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (unsigned k = 1; k < nr; k++)
		kscen_refs_single(&refs[k], runs[k], runs[0]);
	kscen_compare_print(f, (const struct kscen_run *const *)runs, refs, nr, fmt);
	fclose(f);
	for (unsigned k = 1; k < nr; k++) {
		refs[k].own = NULL;	/* the runs are the caller's */
		kscen_refs_free(&refs[k]);
	}
	free(refs);
	return buf;
}


/* @r reported in @fmt against @ref (NULL: none); the text, malloc'ed. */
static char *reported(struct kscen_run *r, struct kscen_run *ref, enum kscen_format fmt)
{
	struct kscen_refs refs;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (ref)
		kscen_refs_single(&refs, r, ref);
	kscen_report(f, r, ref ? &refs : NULL, fmt);
	fclose(f);
	if (ref) {
		refs.own = NULL;	/* the caller's */
		kscen_refs_free(&refs);
	}
	return buf;
}

/* No line of @t over 72 columns or ending in a blank. */
static void assert_mail_width(const char *t)
{
	for (const char *l = t; *l;) {
		size_t n = strcspn(l, "\n");
		char *line = kscen_xasprintf("%.*s", (int)n, l);

		if (kscen_text_cols(line) > 72 || (n && l[n - 1] == ' '))
			fail_msg("too wide or a trailing blank: '%s'", line);
		free(line);
		l += n + !!l[n];
	}
}

/* Each line of @want, in order, as whole lines of @t. */
static void assert_lines(const char *t, const char *want)
{
	char *w = kscen_xasprintf("\n%s", want), *at = strstr(t, w + 1) == t ?
		(char *)t : strstr(t, w);

	if (!at)
		fail_msg("expected\n%s\nin\n%s", want, t);
	free(w);
}

static void metric(struct kscen_metric *m, const char *name, const char *unit,
		   const double *x, unsigned n)
{
	m->name = kscen_xstrdup(name);
	m->unit = kscen_xstrdup(unit);
	m->samples = kscen_xmalloc(n * sizeof(double));
	memcpy(m->samples, x, n * sizeof(double));
	m->nr_samples = n;
	kscen_summarize(m->samples, n, &m->sum);
}

void test_units_scaled_and_spelled_alike(void **state)
{
	static const struct {
		const char *unit;
		double v;
		int style;
		const char *shown;
		double scale;
	} cases[] = {
		{ "s", 0.000943, -1, "us", 1e6 },	/* exec's user_time */
		{ "s", 0.0236, -1, "ms", 1e3 },
		{ "s", 90, -1, "s", 1 },
		{ "s", 0, -1, "s", 1 },			/* 0 stays put */
		{ "usecs", 253438, KSCEN_TIME_SI, "ms", 1e-3 },	/* cgroup_cpu in exec */
		{ "usecs", 1158, KSCEN_TIME_SI, "ms", 1e-3 },
		{ "usecs/op", 12967, -1, "msecs/op", 1e-3 },
		{ "usecs/op", 78.6, -1, "usecs/op", 1 },
		{ "nsecs/op", 0.5, -1, "nsecs/op", 1 },	/* nothing below ns */
		{ "ms total wait", 0.5, -1, "us total wait", 1e3 },
		{ "usec", 2500, KSCEN_TIME_SECS, "msecs", 1e-3 },
		{ "secs", 0.002, -1, "msecs", 1e3 },
		{ "seconds", 0.5, KSCEN_TIME_SEC, "msec", 1e3 },
		{ "ops/sec", 1e6, KSCEN_TIME_SI, "ops/sec", 1 },	/* not a time */
		{ "secsx", 0.5, -1, "secsx", 1 },
		{ "", 3, -1, "", 1 },
	};
	static const struct {
		const char *name, *unit, *shown, *label;
	} labels[] = {
		{ "usecs/op", "usecs/op", "msecs/op", "msecs/op" },
		{ "wall_time", "s", "ms", "ms (wall_time)" },
		{ "msecs per waker", "ms", "us", "us per waker" },
		{ "clat p50", "usec", "msec", "msec (clat p50)" },
		{ "for_each_set_bit usec", "usec", "usec", "usec (for_each_set_bit usec)" },
		{ "ops/sec", "ops/sec", "ops/sec", "ops/sec" },
		{ "x", "", "", "x" },
		{ "wait", "ms total wait", "us total wait", "us total wait (wait)" },
		{ "ops per thread", "ops", "ops", "ops per thread" },	/* named after its unit */
		{ "ops per thread", "ops", "kops", "kops (ops per thread)" },
	};
	const double wall[] = { 0.0236, 0.0230, 0.0241, 0.0238, 0.0233 };
	const double user[] = { 0.000943, 0.000950, 0.000941, 0.000939, 0.000948 };
	const double cg[] = { 1158, 1160, 1149, 1170, 1155 };
	struct kscen_run *r = kscen_xcalloc(1, sizeof(*r));
	struct kscen_job_result *j;
	struct kscen_num st;
	char buf[128], *t;

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		kscen_unit_scale(cases[i].unit, cases[i].v, cases[i].style, &st);
		if (strcmp(st.unit, cases[i].shown) || st.scale != cases[i].scale)
			fail_msg("%g %s: %s x %g, expected %s x %g", cases[i].v,
				 cases[i].unit, st.unit, st.scale, cases[i].shown,
				 cases[i].scale);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(labels); i++) {
		struct kscen_metric m = { .name = (char *)labels[i].name,
					  .unit = (char *)labels[i].unit };

		snprintf(st.unit, sizeof(st.unit), "%s", labels[i].shown);
		kscen_metric_label(&m, &st, buf, sizeof(buf));
		assert_string_equal(buf, labels[i].label);
	}
	assert_int_equal(kscen_unit_time_style("usecs/op"), KSCEN_TIME_SECS);
	assert_int_equal(kscen_unit_time_style("us"), KSCEN_TIME_SI);
	assert_int_equal(kscen_unit_time_style("usec"), KSCEN_TIME_SEC);
	assert_int_equal(kscen_unit_time_style("user"), -1);

	/* exec: its wall time's style for every time, each scaled alone */
	r->nr_jobs = 1;
	r->jobs = j = kscen_xcalloc(1, sizeof(*j));
	j->id = kscen_xstrdup("e/command=true");
	j->name = kscen_xstrdup("e");
	j->converged = -1;
	j->nr_metrics = 3;
	j->metrics = kscen_xcalloc(3, sizeof(*j->metrics));
	metric(&j->metrics[0], "wall_time", "s", wall, 5);
	metric(&j->metrics[1], "user_time", "s", user, 5);
	metric(&j->metrics[2], "cgroup_cpu", "usecs", cg, 5);
	assert_int_equal(kscen_job_time_style(j), KSCEN_TIME_SI);
	t = reported(r, NULL, KSCEN_FMT_TEXT);
	assert_lines(t, "               23.6 ms (wall_time)   (median of 5, 93.8% CI ±2.3%, CV 1.8%)\n"
		     "                943 us (user_time)\n"
		     "               1.16 ms (cgroup_cpu)\n");
	free(t);
	kscen_run_free(r);
}

/*
 * The edges of units.c: a value of exactly 1 stays in its unit, a style
 * out of range is the unit's own, a failed job's time style comes from its
 * first metric still, and a CI that is not finite gives 4 significant
 * digits as no CI does.
 */
void test_units_edges(void **state)
{
	struct kscen_job_result j = { .status = KSCEN_FAILED, .nr_metrics = 2 };
	struct kscen_metric m[2] = {
		{ .unit = "usecs" }, { .unit = "s" },
	};
	struct kscen_metric v = { .unit = "s" };
	struct kscen_num st = { .scale = 1 };

	(void)state;
	kscen_unit_scale("s", 1, -1, &st);
	assert_string_equal(st.unit, "s");
	assert_true(st.scale == 1);
	kscen_unit_scale("ms", 1, -1, &st);
	assert_string_equal(st.unit, "ms");
	kscen_unit_scale("usecs", 2500, KSCEN_NR_TIME_STYLES, &st);
	assert_string_equal(st.unit, "msecs");
	assert_true(st.scale == 1e-3);

	j.metrics = m;
	assert_int_equal(kscen_job_time_style(&j), KSCEN_TIME_SECS);
	m[0].unit = "ops";
	assert_int_equal(kscen_job_time_style(&j), KSCEN_TIME_SI);

	v.sum.median = 123.456;
	v.sum.ci_lo = 120;
	v.sum.ci_hi = INFINITY;
	st.scale = 1;
	kscen_num_decimals(&v, &st);
	assert_int_equal(st.decimals, 1);	/* 123.5: 4 significant digits */
	v.sum.ci_hi = 124;			/* half 2: the units digit */
	kscen_num_decimals(&v, &st);
	assert_int_equal(st.decimals, 0);
	v.sum.ci_lo = v.sum.ci_hi = v.sum.median;	/* no width: 4 digits */
	kscen_num_decimals(&v, &st);
	assert_int_equal(st.decimals, 1);
}

void test_table_aligns_columns_and_headings(void **state)
{
	struct kscen_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	static const char *const rows[][4] = {
		{ "job", "old", "", "change" },
		{ "a", "100", "±2%", "~" },
		{ "bb", "FAILED", "", "" },
		{ "c", "12,345", "±10%", "+5.0%" },
		{ "d\x1b[2J", "-3.5", "", "-" },
	};

	(void)state;
	kscen_table_init(&t, 4);
	t.col[1].right = t.col[2].right = t.col[3].right = true;
	t.col[2].gap = 1;
	t.col[2].joined = true;
	for (unsigned r = 0; r < ARRAY_SIZE(rows); r++) {
		kscen_table_row(&t);
		for (unsigned c = 0; c < 4; c++)
			kscen_table_set(&t, r, c, "%s", rows[r][c]);
	}
	kscen_table_print(f, &t, NULL, "> ");
	/* without the CIs: "FAILED" has only its own column */
	kscen_table_print(f, &t, (bool[]){ true, true, false, true }, "> ");
	fclose(f);
	assert_string_equal(buf,
		"> job            old  change\n"
		"> a         100  ±2%       ~\n"
		"> bb          FAILED\n"
		"> c      12,345 ±10%   +5.0%\n"
		"> d?[2J    -3.5            -\n"
		"> job       old  change\n"
		"> a         100       ~\n"
		"> bb     FAILED\n"
		"> c      12,345   +5.0%\n"
		"> d?[2J    -3.5       -\n");
	free(buf);
	assert_int_equal(kscen_table_width(&t, NULL), 26);
	kscen_table_free(&t);
}

/* Cells outside the table are neither set nor read; none lands in another. */
void test_table_bounds_and_words(void **state)
{
	struct kscen_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	kscen_table_init(&t, 2);
	for (unsigned r = 0; r < 3; r++)
		kscen_table_row(&t);
	kscen_table_set(&t, 0, 2, "x");		/* column 2 would be cell (1, 0) */
	kscen_table_set(&t, 0, 3, "y");		/* column 3 would be cell (1, 1) */
	assert_string_equal(kscen_table_get(&t, 1, 0), "");
	assert_string_equal(kscen_table_get(&t, 1, 1), "");
	kscen_table_set(&t, 1, 0, "a");
	kscen_table_set(&t, 1, 1, "b");
	kscen_table_set(&t, 2, 0, "c");
	assert_string_equal(kscen_table_get(&t, 0, 2), "");	/* not (1, 0) */
	assert_string_equal(kscen_table_get(&t, 0, 3), "");	/* not (1, 1) */
	assert_string_equal(kscen_table_get(&t, 1, 2), "");	/* not (2, 0) */
	assert_string_equal(kscen_table_get(&t, 1, 1), "b");
	kscen_table_free(&t);

	/*
	 * A word where a number would be spans the joined column, right-
	 * aligned even over a left-aligned one; "-9" and "-0" are numbers,
	 * "-x" is a word. A hidden first column leaves no gap before the next.
	 */
	f = open_memstream(&buf, &len);
	kscen_table_init(&t, 3);
	t.col[2].joined = true;
	t.col[2].right = true;
	{
		static const char *const rows[][3] = {
			{ "n", "head", "" },
			{ "1", "-9", "" },
			{ "2", "-0", "" },
			{ "3", "-x", "" },
			{ "4", "12", "+1.0%" },
		};

		for (unsigned r = 0; r < ARRAY_SIZE(rows); r++) {
			kscen_table_row(&t);
			for (unsigned c = 0; c < 3; c++)
				kscen_table_set(&t, r, c, "%s", rows[r][c]);
		}
	}
	kscen_table_print(f, &t, NULL, "|");
	fclose(f);
	assert_string_equal(buf,
		"|n       head\n"
		"|1  -9\n"
		"|2  -0\n"
		"|3         -x\n"
		"|4  12  +1.0%\n");
	free(buf);
	assert_int_equal(kscen_table_width(&t, NULL), 12);
	assert_int_equal(kscen_table_width(&t, (bool[]){ false, true, true }), 9);
	kscen_table_free(&t);
}

void test_mail_run_table_says_n_and_confidence(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1), *ref = kscen_test_sample_run(1);
	char *t = reported(r, ref, KSCEN_FMT_MAIL);

	(void)state;
	assert_mail_width(t);
	/* n and the true confidence in the first line; to base, to prev, vs last */
	assert_lines(t, "a (exec): usecs (lat), lower is better, n=6, 96.9% CI\n"
		     "  y=1\n"
		     "  x  usecs  CI  to base  to prev  vs last\n"
		     "  0    100 ±2%                          ?\n"
		     "  1    110 ±2%   +10.0%   +10.0%        ?\n"
		     "  2     FAILED\n"
		     "\n"
		     "b (exec): ms (lat), lower is better, n=6, 96.9% CI\n"
		     "  x=0 y=1\n"
		     "    ms  CI  vs last\n"
		     "  2.00 ±2%        ?\n");
	assert_lines(t, "3 ok, 0 skipped, 1 failed\n");
	assert_null(strstr(t, "Every change is ~"));
	assert_null(strstr(t, "results:"));
	free(t);
	kscen_run_free(r);
	kscen_run_free(ref);
}

/* Three runs of the fixture: a/x=1 at 1, 1.1 and 0.5 times; named A, B, C. */
static void three_runs(struct kscen_run **runs)
{
	static const double slow[3] = { 1, 1.1, 0.5 };

	for (unsigned k = 0; k < 3; k++) {
		runs[k] = kscen_test_sample_run(slow[k]);
		runs[k]->path = kscen_xasprintf("%c.yaml", 'A' + k);
	}
}

void test_mail_compare_old_new_change(void **state)
{
	struct kscen_run *runs[3];
	char *t;

	(void)state;
	three_runs(runs);
	t = compared(runs, 2, KSCEN_FMT_MAIL);
	assert_mail_width(t);
	/* benchstat's layout: each median with its CI, the change, geomean */
	assert_lines(t, "old: 2026-12-03T08:00Z, kernel\n"
		     "new: 2026-12-03T08:00Z, kernel\n"
		     "\n"
		     "a (exec): usecs (lat), lower is better, n=6, 96.9% CI\n"
		     "  y=1\n"
		     "        x      old      new  change\n"
		     "        0  100 ±2%  100 ±2%       ?\n"
		     "        1  100 ±2%  110 ±2%       ?\n"
		     "        2   FAILED   FAILED\n"
		     "  geomean  100      105       +4.9%\n"
		     "\n"
		     "b (exec): ms (lat), lower is better, n=6, 96.9% CI\n"
		     "  x=0 y=1\n"
		     "       old       new  change\n"
		     "  2.00 ±2%  2.00 ±2%       ?\n");
	assert_lines(t, "not compared: a/x=2: did not run in both\n"
		     "3 jobs compared, 0 only in old, 1 not compared\n");
	free(t);

	t = compared(runs, 2, KSCEN_FMT_MARKDOWN);
	assert_lines(t, "### a (`exec`): usecs (lat), lower is better, n=6, 96.9% CI\n"
		     "\n"
		     "In every job: `y=1`\n"
		     "\n"
		     "| x | old | new | change |\n"
		     "|---|---:|---:|---|\n"
		     "| 0 | 100 ±2% | 100 ±2% | +0.0% cannot tell (no run-to-run estimate, "
		     "1 run) |\n"
		     "| 1 | 100 ±2% | 110 ±2% | +10.0% cannot tell (no run-to-run estimate, "
		     "1 run) |\n"
		     "| 2 | FAILED | FAILED |  |\n"
		     "| geomean | 100 | 105 | +4.9% |\n");
	assert_lines(t, "| job | old | new | change |\n"
		     "|---|---:|---:|---|\n"
		     "| b/x=0 | 2.00 ±2% | 2.00 ±2% | +0.0% cannot tell (no run-to-run "
		     "estimate, 1 run) |\n");
	free(t);

	t = compared(runs, 2, KSCEN_FMT_TEXT);
	assert_lines(t, "## a: usecs (lat), lower is better, n=6, 96.9% CI\n"
		     "job          old      new  change\n"
		     "a/x=0    100 ±2%  100 ±2%  +0.0% cannot tell (no run-to-run estimate, "
		     "1 run)\n"
		     "a/x=1    100 ±2%  110 ±2%  +10.0% cannot tell (no run-to-run estimate, "
		     "1 run)\n"
		     "a/x=2     FAILED   FAILED\n"
		     "geomean  100      105      +4.9%\n");
	free(t);
	for (int k = 0; k < 3; k++)
		kscen_run_free(runs[k]);
}

void test_compare_three_runs_side_by_side(void **state)
{
	struct kscen_run *runs[3];
	char *t;

	(void)state;
	three_runs(runs);
	t = compared(runs, 3, KSCEN_FMT_MAIL);
	assert_mail_width(t);
	assert_lines(t, "A: 2026-12-03T08:00Z, kernel\n"
		     "B: 2026-12-03T08:00Z, kernel\n"
		     "C: 2026-12-03T08:00Z, kernel\n"
		     "\n"
		     "a (exec): usecs (lat), lower is better, n=6, 96.9% CI\n"
		     "  y=1\n"
		     "        x        A        B  change        C  change\n"
		     "        0  100 ±2%  100 ±2%       ?  100 ±2%       ?\n"
		     "        1  100 ±2%  110 ±2%       ?   50 ±2%       ?\n"
		     "        2   FAILED   FAILED           FAILED\n"
		     "  geomean  100      105       +4.9%   71      -29.3%\n");
	assert_lines(t, "not compared in B: a/x=2: did not run in both\n"
		     "not compared in C: a/x=2: did not run in both\n"
		     "6 changes against A, 0 jobs missing, 2 not compared\n");
	free(t);

	t = compared(runs, 3, KSCEN_FMT_TEXT);
	assert_lines(t, "# A: A.yaml (2026-12-03T08:00:00Z, load ?)\n"
		     "# B: B.yaml (2026-12-03T08:00:00Z, load ?)\n"
		     "# C: C.yaml (2026-12-03T08:00:00Z, load ?)\n");
	assert_lines(t, "a/x=0    100 ±2%  100 ±2%  +0.0% cannot tell (no run-to-run estimate, "
		     "1 run)   100 ±2%  +0.0% cannot tell (no run-to-run estimate, 1 run)\n"
		     "a/x=1    100 ±2%  110 ±2%  +10.0% cannot tell (no run-to-run estimate, "
		     "1 run)   50 ±2%  -50.0% cannot tell (no run-to-run estimate, 1 run)\n");
	free(t);

	/* CSV: one table, the run each row is of first; JSON: an array */
	t = compared(runs, 3, KSCEN_FMT_CSV);
	assert_true(!strncmp(t, "run,id,name,", 12));
	assert_lines(t, "B.yaml,a/x=1,a,exec,ok,lat,usecs,lower,6,110.00000000000001,");
	/* against the first run without history: the ratio, cannot tell */
	assert_non_null(strstr(t, ",1.1,,,,,cannot_tell\n"));
	assert_lines(t, "C.yaml,a/x=1,a,exec,ok,lat,usecs,lower,6,50,");
	assert_non_null(strstr(t, ",0.5,,,,,cannot_tell\n"));
	assert_null(strstr(t, "\nA.yaml,"));
	free(t);
	t = compared(runs, 3, KSCEN_FMT_JSON);
	assert_true(!strncmp(t, "[\n{\n", 4));
	assert_non_null(strstr(t, "\n}\n,\n{\n  \"format\": 2,\n  \"kscen\": null,\n  \"scenario\": \"m\","));
	assert_non_null(strstr(t, "\"path\": \"B.yaml\""));
	assert_non_null(strstr(t, "\"path\": \"C.yaml\""));
	assert_true(!strcmp(t + strlen(t) - 4, "}\n]\n"));
	free(t);
	for (int k = 0; k < 3; k++)
		kscen_run_free(runs[k]);
}

/* Keep the first @n samples of every metric of @r. */
static void keep_samples(struct kscen_run *r, unsigned n)
{
	for (unsigned i = 0; i < r->nr_jobs; i++)
		for (unsigned k = 0; k < r->jobs[i].nr_metrics; k++) {
			struct kscen_metric *m = &r->jobs[i].metrics[k];

			m->nr_samples = n < m->nr_samples ? n : m->nr_samples;
			kscen_summarize(m->samples, m->nr_samples, &m->sum);
		}
}

void test_mail_says_why_every_change_is_tilde(void **state)
{
	struct kscen_run *runs[3];
	char *t;

	(void)state;
	three_runs(runs);
	for (unsigned k = 0; k < 3; k++)
		keep_samples(runs[k], 3);
	t = reported(runs[1], runs[0], KSCEN_FMT_MAIL);
	assert_mail_width(t);
	assert_lines(t, "a (exec): usecs (lat), lower is better, n=3, 75% CI\n");
	/* within the run too few samples; between runs no run-to-run estimate */
	assert_lines(t, "  1    110 ±1%        ~        ~        ?\n");
	assert_lines(t, "Every change is ~: 3 samples a side are too few for a 95% CI of a change\n"
		     "(it takes 4: -r 4 or more).\n");
	free(t);
	t = compared(runs, 2, KSCEN_FMT_MAIL);
	assert_lines(t, "Every change is ~: 3 samples a side are too few for a 95% CI of a change\n");
	free(t);
	t = compared(runs, 3, KSCEN_FMT_TEXT);
	assert_lines(t, "Every change is ~: 3 samples a side are too few for a 95% CI of a change "
		     "(it takes 4: -r 4 or more).\n");
	free(t);
	t = reported(runs[1], runs[0], KSCEN_FMT_MARKDOWN);
	assert_lines(t, "Every change is ~: 3 samples a side are too few for a 95% CI of a change "
		     "(it takes 4: -r 4 or more).\n");
	free(t);
	/* one more sample, and a change can be told: no such line */
	for (unsigned k = 0; k < 3; k++) {
		kscen_run_free(runs[k]);
		runs[k] = NULL;
	}
	three_runs(runs);
	for (unsigned k = 0; k < 3; k++)
		keep_samples(runs[k], 4);
	t = reported(runs[1], runs[0], KSCEN_FMT_MAIL);
	assert_lines(t, "  1    110 ±1%   +10.0%   +10.0%        ?\n");
	assert_null(strstr(t, "Every change is ~"));
	free(t);
	/* the last run compared alone has 4: its changes can be told, A's cannot */
	for (unsigned k = 0; k < 2; k++)
		keep_samples(runs[k], 3);
	for (unsigned f = 0; f < 3; f++) {
		t = compared(runs, 3, (enum kscen_format[]){
			KSCEN_FMT_TEXT, KSCEN_FMT_MAIL, KSCEN_FMT_MARKDOWN }[f]);
		assert_null(strstr(t, "Every change is ~"));
		free(t);
	}
	for (int k = 0; k < 3; k++)
		kscen_run_free(runs[k]);
}

/*
 * What @emit (report_text, report_markdown) prints of a model as built,
 * then changed by the caller; malloc'ed.
 */
static char *emitted(void (*emit)(FILE *, const struct kscen_report_model *),
		     const struct kscen_report_model *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	emit(f, m);
	fclose(f);
	return buf;
}

/*
 * The hint that drift hides changes shows above 5%, not at 5%; a footer
 * line of 76 columns (78 with its "# ") is printed whole, one of 77 is
 * broken at its last blank.
 */
void test_report_text_hint_and_footer_at_their_edges(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1);
	struct kscen_report_model m;
	char *t;

	(void)state;
	kscen_report_model_build(r, NULL, &m);
	memset(m.fam, 0, sizeof(m.fam));
	m.fam[KSCEN_FAM_BETWEEN] = (struct kscen_report_family){
		.m = 100000, .expected = 50000 };
	m.drift_hides = 0.05;
	t = emitted(report_text, &m);
	assert_null(strstr(t, "between runs, changes under"));
	assert_non_null(strstr(t, "\n# against the reference: 0 of 100000 changed; about "
			       "50000.0 expected by chance\n"));
	free(t);

	m.fam[KSCEN_FAM_BETWEEN].m = 1000000;
	m.drift_hides = 0.0501;
	t = emitted(report_text, &m);
	assert_non_null(strstr(t, "\n# between runs, changes under 5% cannot be told "
			       "from run-to-run drift here\n"));
	assert_non_null(strstr(t, "\n# against the reference: 0 of 1000000 changed; about "
			       "50000.0 expected by\n#   chance\n"));
	free(t);
	kscen_report_model_free(&m);
	kscen_run_free(r);
}

/* A label of @n letters. */
static char *label_of(unsigned n)
{
	char *l = kscen_xcalloc(n + 1, 1);

	memset(l, 'l', n);
	return l;
}

/*
 * A job whose reference is not the run's main one names it with its date
 * when both fit in 64 bytes: a label of 43 letters and " (2026-11-05T09:00Z)"
 * fill them exactly; one of 44 is named alone.
 */
void test_report_text_other_reference_named_with_its_date(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1), *ref = kscen_test_sample_run(1);
	struct kscen_run *l43 = kscen_test_sample_run(1), *l44 = kscen_test_sample_run(1);
	struct kscen_refs refs;
	char *buf = NULL, want[128];
	size_t len = 0;
	FILE *f;

	(void)state;
	l43->label = label_of(43);
	l44->label = label_of(44);
	free(l43->started);
	l43->started = kscen_xstrdup("2026-11-05T09:00:00Z");
	kscen_refs_single(&refs, r, ref);	/* takes ref */
	refs.ref[1].run = l43;
	refs.ref[1].job = &l43->jobs[1];
	refs.ref[3].run = l44;
	refs.ref[3].job = &l44->jobs[3];
	f = open_memstream(&buf, &len);
	kscen_report(f, r, &refs, KSCEN_FMT_TEXT);
	fclose(f);
	snprintf(want, sizeof(want), "\n     vs %s (2026-11-05T09:00Z): +", l43->label);
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), "\n     vs %s: ", l44->label);
	assert_non_null(strstr(buf, want));
	free(buf);
	kscen_refs_free(&refs);
	kscen_run_free(l43);
	kscen_run_free(l44);
	kscen_run_free(r);
}

/* Move @r's last job out (to be freed with its own run). */
static void drop_last_job(struct kscen_run *r)
{
	struct kscen_run *gone = kscen_xcalloc(1, sizeof(*gone));

	gone->jobs = kscen_xcalloc(1, sizeof(*gone->jobs));
	gone->jobs[0] = r->jobs[--r->nr_jobs];
	gone->nr_jobs = 1;
	kscen_run_free(gone);
}

/*
 * A compare whose runs differ: the new one lacks a job (its table still
 * shows the old run's), its kernel command line changed (said without a
 * run's name between two runs); of three runs with too few samples, the
 * markdown says why every change is ~, as the mail does.
 */
void test_mail_compare_runs_that_differ(void **state)
{
	struct kscen_run *runs[3];
	char *t;

	(void)state;
	three_runs(runs);
	drop_last_job(runs[1]);
	runs[0]->system.cmdline = kscen_xstrdup("quiet");
	runs[1]->system.cmdline = kscen_xstrdup("quiet nosmt");
	t = compared(runs, 2, KSCEN_FMT_MAIL);
	assert_mail_width(t);
	assert_lines(t, "new: 2026-12-03T08:00Z, kernel\n"
		     "  changed cmdline: +nosmt\n"
		     "\n"
		     "a (exec): usecs (lat), lower is better, n=6, 96.9% CI\n");
	assert_lines(t, "  geomean  100      105       +4.9%\n"
		     "\n"
		     "b (exec): ms (lat), lower is better, n=6, 96.9% CI\n"
		     "  x=0 y=1\n"
		     "       old  new  change\n"
		     "  2.00 ±2%    -\n");
	assert_lines(t, "only in old: b/x=0\n"
		     "not compared: a/x=2: did not run in both\n"
		     "2 jobs compared, 1 only in old, 1 not compared\n");
	free(t);
	t = compared(runs, 2, KSCEN_FMT_MARKDOWN);
	assert_lines(t, "    environment differs from the reference's:\n"
		     "      cmdline: +nosmt\n");
	assert_lines(t, "### b (`exec`): ms (lat), lower is better, n=6, 96.9% CI\n"
		     "\n"
		     "In every job: `x=0`, `y=1`\n"
		     "\n"
		     "| job | old | new | change |\n"
		     "|---|---:|---:|---|\n"
		     "| b/x=0 | 2.00 ±2% | - |  |\n");
	free(t);
	for (int k = 0; k < 3; k++)
		kscen_run_free(runs[k]);

	/*
	 * x values, words, wider than "geomean": the label is still right-
	 * aligned; a name of exactly 72 columns is a line of its own.
	 */
	three_runs(runs);
	for (unsigned k = 0; k < 2; k++)
		for (unsigned i = 0; i < 3; i++) {
			free(runs[k]->jobs[i].values[0]);
			runs[k]->jobs[i].values[0] = kscen_xasprintf("loopback-%u", i);
		}
	free(runs[0]->jobs[3].name);
	runs[0]->jobs[3].name = kscen_xasprintf("%072u", 7);
	t = compared(runs, 2, KSCEN_FMT_MAIL);
	assert_mail_width(t);
	assert_lines(t, "           x      old      new  change\n"
		     "  loopback-0  100 ±2%  100 ±2%       ?\n");
	assert_lines(t, "     geomean  100      105       +4.9%\n");
	assert_lines(t, "\n000000000000000000000000000000000000000000000000000000000000000000000007\n"
		     "  (exec): ms (lat), lower is better, n=6, 96.9% CI\n");
	free(t);
	for (int k = 0; k < 3; k++)
		kscen_run_free(runs[k]);

	three_runs(runs);
	for (unsigned k = 0; k < 3; k++)
		keep_samples(runs[k], 3);
	t = compared(runs, 3, KSCEN_FMT_MARKDOWN);
	assert_lines(t, "| 1 | 100 ±1% | 110 ±1% | +10.0% cannot tell (no run-to-run "
		     "estimate, 1 run) | 50.0 ±1% | -50.0% cannot tell (no run-to-run "
		     "estimate, 1 run) |\n");
	assert_lines(t, "Every change is ~: 3 samples a side are too few for a 95% CI "
		     "of a change (it takes 4: -r 4 or more).  \n"
		     "- not compared in B: a/x=2: did not run in both  \n");
	free(t);
	for (int k = 0; k < 3; k++)
		kscen_run_free(runs[k]);
}

/* A failure's reason as long as a workload may give (255 bytes): whole. */
void test_report_markdown_long_reason_whole(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1);
	char reason[KSCEN_REASON_MAX], *t, *want;

	(void)state;
	memset(reason, 'r', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	free(r->jobs[2].reason);
	r->jobs[2].reason = kscen_xstrdup(reason);
	t = reported(r, NULL, KSCEN_FMT_MARKDOWN);
	want = kscen_xasprintf("| failed: %s |\n", reason);
	assert_non_null(strstr(t, want));
	free(want);
	free(t);
	kscen_run_free(r);
}

/*
 * 66 runs, more than any fixed array would hold: each format has the
 * geomean row, its last run's ratio included (sqrt(1.65) of the first:
 * job x=0 the same, x=1 1.65 times slower).
 */
void test_compare_66_runs_geomean(void **state)
{
	static const enum kscen_format fmt[] = {
		KSCEN_FMT_TEXT, KSCEN_FMT_MAIL, KSCEN_FMT_MARKDOWN,
	};
	/* the last run's geomean and its change end the row */
	static const char *const last[] = {
		"  128      +28.5%\n", "  128  +28.5%\n", " | 128 | +28.5% |\n",
	};
	struct kscen_run *runs[66];
	char *t;

	(void)state;
	for (unsigned k = 0; k < 66; k++) {
		runs[k] = kscen_test_sample_run(1 + k / 100.0);
		runs[k]->path = kscen_xasprintf("r%u.yaml", k);
	}
	for (unsigned f = 0; f < ARRAY_SIZE(fmt); f++) {
		t = compared(runs, 66, fmt[f]);
		assert_non_null(strstr(t, "geomean"));
		assert_non_null(strstr(t, last[f]));
		free(t);
	}
	for (unsigned k = 0; k < 66; k++)
		kscen_run_free(runs[k]);
}

/*
 * A run's table exactly 72 columns wide is printed as it is; one column
 * wider, each row's parameters go on a line of their own. The x values
 * grow until job 1's row is 72 columns: its value and numbers on one line.
 */
void test_mail_table_of_exactly_72_columns(void **state)
{
	bool at72 = false;

	(void)state;
	for (unsigned len = 1; len < 72 && !at72; len++) {
		struct kscen_run *r = kscen_test_sample_run(1.1);
		char *t;

		for (unsigned i = 0; i < 3; i++) {
			free(r->jobs[i].values[0]);
			r->jobs[i].values[0] = kscen_xasprintf("%0*u", (int)len, i);
		}
		t = reported(r, NULL, KSCEN_FMT_MAIL);
		assert_mail_width(t);
		for (const char *l = t; *l;) {
			size_t n = strcspn(l, "\n");
			char *line = kscen_xasprintf("%.*s", (int)n, l);

			/* job 1's row: its x value, then its median */
			if (strstr(line, "110 ±2%") && kscen_text_cols(line) == 72)
				at72 = strstr(line, r->jobs[1].values[0]) != NULL;
			free(line);
			l += n + !!l[n];
		}
		free(t);
		kscen_run_free(r);
	}
	assert_true(at72);
}

/*
 * The header's coverage of the in-run intervals spans every job's
 * baseline and previous deltas, the first job's too, and no reference
 * delta; with none at all it says "at least 95%". A table whose first
 * job has one sample (coverage 0) and the next six has no one level.
 */
void test_report_markdown_levels_of_every_job_and_delta(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1);
	struct kscen_report_delta *d0, *d1;
	struct kscen_report_model m;
	char *t;

	(void)state;
	kscen_report_model_build(r, NULL, &m);
	d0 = m.job[0].delta;
	d1 = m.job[1].delta;
	assert_true(d1[KSCEN_DELTA_BASELINE].present && d1[KSCEN_DELTA_BASELINE].c.ci_valid);
	d0[KSCEN_DELTA_BASELINE] = d1[KSCEN_DELTA_BASELINE];
	d0[KSCEN_DELTA_BASELINE].c.level = 99.2;	/* the highest: job 0's */
	d1[KSCEN_DELTA_BASELINE].c.level = 96.1;	/* the lowest: a baseline's */
	d1[KSCEN_DELTA_PREVIOUS] = d1[KSCEN_DELTA_BASELINE];
	d1[KSCEN_DELTA_PREVIOUS].c.level = 97;
	d1[KSCEN_DELTA_REF] = d1[KSCEN_DELTA_BASELINE];
	d1[KSCEN_DELTA_REF].c.level = 50;		/* between runs: not counted */
	t = emitted(report_markdown, &m);
	assert_non_null(strstr(t, "[its interval, 96.1% to 99.2%]"));
	free(t);
	for (unsigned i = 0; i < r->nr_jobs; i++)
		for (unsigned k = 0; k < KSCEN_NR_DELTAS; k++)
			m.job[i].delta[k].c.ci_valid = false;
	t = emitted(report_markdown, &m);
	assert_non_null(strstr(t, "[its interval, at least 95%]"));
	free(t);
	kscen_report_model_free(&m);

	/* job a/x=0 with 1 sample, a/x=1 with 6: no coverage common to the table */
	r->jobs[0].metrics[0].nr_samples = 1;
	kscen_summarize(r->jobs[0].metrics[0].samples, 1, &r->jobs[0].metrics[0].sum);
	t = reported(r, NULL, KSCEN_FMT_MARKDOWN);
	assert_non_null(strstr(t, "| metric | median | unit | CI (coverage) | CV |"));
	assert_non_null(strstr(t, "| [108, 112] (96.9%) |"));
	free(t);
	kscen_run_free(r);
}

/*
 * Runs whose numbers do not fit 72 columns even one later run at a time
 * (a job in another unit than its table's, the unit 40 letters long): each
 * later run still gets its table, once, too wide as it is.
 */
void test_mail_compare_wider_than_72_columns(void **state)
{
	struct kscen_run *runs[3];
	char *t, *at, *row;

	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		struct kscen_metric *m;

		runs[k] = kscen_test_sample_run(1.1 + k / 10.0);
		runs[k]->path = kscen_xasprintf("r%u.yaml", k);
		m = &runs[k]->jobs[1].metrics[0];
		free(m->unit);
		m->unit = label_of(40);
	}
	t = compared(runs, 3, KSCEN_FMT_MAIL);
	row = kscen_xasprintf("  110 %s  %%u %s       ?\n", runs[0]->jobs[1].metrics[0].unit,
			      runs[0]->jobs[1].metrics[0].unit);
	for (unsigned k = 1; k < 3; k++) {
		char *want = kscen_xasprintf("%*s%*s  change\n", 46, "A", 46, k == 1 ? "B" : "C");

		at = strstr(t, want);
		assert_non_null(at);
		assert_null(strstr(at + 1, want));	/* once */
		free(want);
		want = kscen_xasprintf(row, 110 + 10 * k);
		assert_non_null(strstr(at, want));
		free(want);
	}
	assert_lines(t, "  geomean\n"
		     "                                           105                                           110   +4.4%\n");
	assert_lines(t, "  geomean\n"
		     "                                           105                                           114   +8.7%\n");
	free(row);
	free(t);
	for (unsigned k = 0; k < 3; k++)
		kscen_run_free(runs[k]);
}

/*
 * Three samples a side: no comparison within the run can pass the FDR
 * correction (the smallest two-sided p of 3 against 3 is 2/20), and the
 * footer says so, with that p; with six a side one can.
 */
void test_report_warns_when_no_comparison_can_pass_fdr(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1);
	char *t;

	(void)state;
	t = reported(r, NULL, KSCEN_FMT_TEXT);
	assert_null(strstr(t, "no comparison alone can pass"));
	free(t);
	keep_samples(r, 3);
	t = reported(r, NULL, KSCEN_FMT_TEXT);
	assert_non_null(strstr(t, "\n# warning: within the run, no comparison alone can pass "
			       "the FDR correction at\n#   q 0.05 over 1 (the smallest p these "
			       "samples can give is 0.1): take more\n#   samples (-r)\n"));
	free(t);
	kscen_run_free(r);
}

/*
 * JSON is UTF-8: a byte that starts no UTF-8 character (0x80, a lone
 * continuation; 0xff) in a failure's reason is written as U+FFFD, a whole
 * character (é) as it is.
 */
void test_report_json_replaces_what_is_not_utf8(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1);
	char *t;

	(void)state;
	free(r->jobs[2].reason);
	r->jobs[2].reason = kscen_xstrdup("a\x80" "b\xff" "c\xc3\xa9");
	t = reported(r, NULL, KSCEN_FMT_JSON);
	assert_non_null(strstr(t, "\"a\\ufffdb\\ufffdc\xc3\xa9\""));
	free(t);
	kscen_run_free(r);
}

/* CSV: a parameter only the first job has is a column too. */
void test_report_csv_columns_of_every_job(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1);
	char *t;

	(void)state;
	free(r->jobs[0].keys[1]);
	r->jobs[0].keys[1] = kscen_xstrdup("z");
	t = reported(r, NULL, KSCEN_FMT_CSV);
	assert_non_null(strstr(t, ",noise_dropped,param.x,param.z,param.y,to_baseline_ratio,"));
	assert_non_null(strstr(t, "\na/x=0,a,exec,ok,"));
	assert_non_null(strstr(t, ",0,false,,,,0,1,,,,"));	/* x=0, z=1, no y */
	free(t);
	kscen_run_free(r);
}

/*
 * A word longer than two lines is cut at the line's end: the first line
 * after its lead ("command: ", 63 columns left), each later one after the
 * indent (70).
 */
void test_mail_cuts_a_word_longer_than_two_lines(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1);
	char *t, *want, *c = label_of(200);

	(void)state;
	free(r->command);
	r->command = c;
	t = reported(r, NULL, KSCEN_FMT_MAIL);
	assert_mail_width(t);
	want = kscen_xasprintf("command: %.63s\n  %.70s\n  %.67s\n", c, c, c);
	assert_lines(t, want);
	free(want);
	free(t);
	kscen_run_free(r);
}

/* Job @i of entry a in @r: 70 parameters more, p2=2i to p71=71i. */
static void seventy_params(struct kscen_run *r)
{
	for (unsigned i = 0; i < 3; i++) {
		struct kscen_job_result *j = &r->jobs[i];

		j->keys = kscen_xrealloc(j->keys, 72 * sizeof(char *));
		j->values = kscen_xrealloc(j->values, 72 * sizeof(char *));
		for (unsigned k = 2; k < 72; k++) {
			j->keys[k] = kscen_xasprintf("p%u", k);
			j->values[k] = kscen_xasprintf("%u", k * 10 + i);
		}
		j->nr_kv = 72;
	}
}

/*
 * A stored result's parameters have no bound: the one an entry's jobs
 * share is printed whole however long (600 letters: wrapped, in the mail
 * of a run and of runs compared), and so is each of 70 that vary, in the
 * mail and in markdown (before 2026-12-05 the mail cut a value past 512
 * bytes, and both left out parameters past the 64th).
 */
void test_mail_parameters_of_any_length_and_number(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1), *runs[2];
	char *t, *c = label_of(600), *want, *want2, *row = kscen_xstrdup("| 1");

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		free(r->jobs[i].values[1]);
		r->jobs[i].values[1] = kscen_xstrdup(c);
	}
	want = kscen_xasprintf("a (exec): usecs (lat), lower is better, n=6, 96.9%% CI\n"
			       "  y=%.68s\n  %.70s\n  %.70s\n  %.70s\n  %.70s\n"
			       "  %.70s\n  %.70s\n  %.70s\n  %.42s\n", c, c, c, c, c,
			       c, c, c, c);
	seventy_params(r);
	t = reported(r, NULL, KSCEN_FMT_MAIL);
	assert_mail_width(t);
	assert_lines(t, want);
	assert_lines(t, "    p68=681 p69=691 p70=701 p71=711\n"
		     "    110 ±2%   +10.0%   +10.0%\n");
	free(t);
	runs[0] = r;
	runs[1] = kscen_test_sample_run(1.2);
	seventy_params(runs[1]);
	t = compared(runs, 2, KSCEN_FMT_MAIL);
	assert_mail_width(t);
	assert_lines(t, want);
	assert_lines(t, "    p68=681 p69=691 p70=701 p71=711\n"
		     "  110 ±2%  120 ±2%       ?\n");
	free(t);
	/* markdown: a column each, job x=1's row to its last value */
	for (unsigned k = 2; k < 72; k++) {
		char *w = kscen_xasprintf("%s | %u", row, k * 10 + 1);

		free(row);
		row = w;
	}
	t = reported(r, NULL, KSCEN_FMT_MARKDOWN);
	want2 = kscen_xasprintf("\n%s | lat | 110 | usecs | [108, 112] | 1.4%% |", row);
	assert_non_null(strstr(t, want2));
	free(want2);
	free(t);
	t = compared(runs, 2, KSCEN_FMT_MARKDOWN);
	want2 = kscen_xasprintf("\n%s | 110 ±2%% | 120 ±2%% | +9.1%% cannot tell", row);
	assert_non_null(strstr(t, want2));
	free(want2);
	free(t);
	free(row);
	free(want);
	free(c);
	kscen_run_free(runs[1]);
	kscen_run_free(r);
}
