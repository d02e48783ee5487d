// SPDX-License-Identifier: GPL-2.0
/*
 * test_history.c - comparisons between runs: ids that cannot collide, the
 * drift estimate against hand-computed values, the widened interval, the
 * per-job choice of a reference (and what it refuses), the environment
 * difference as tokens.
 */
#define _GNU_SOURCE	/* mkdtemp */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/envdiff.h"
#include "report/model.h"
#include "report/report.h"
#include "store/history.h"
#include "expand/jobs.h"
#include "store/store.h"
#include "lib/diag.h"
#include "lib/util.h"
#include "tests.h"

static bool near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

void test_expand_ids_escape_separators(void **state)
{
	struct kscen_scenario *s = NULL;
	struct kscen_jobs jobs = { 0 };

	assert_true(kscen_scenario_load("tests/fixtures/good/id-escape.yaml", &s) == 0);
	if (!s)
		return;
	assert_true(kscen_expand(s, 1000, &jobs) == 0);
	assert_true(jobs.nr == 4);
	if (jobs.nr == 4) {
		/* Before escaping, jobs 0 and 3 printed the same id. */
		assert_true(!strcmp(jobs.job[0].id, "a/command=true%2Cmetric_name=x"));
		assert_true(!strcmp(jobs.job[1].id, "a/command=true"));
		assert_true(!strcmp(jobs.job[2].id, "a/command=100%25"));
		assert_true(!strcmp(jobs.job[3].id, "a/command=true,metric_name=x"));
	}
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/* Five samples whose log median is @l and MAD-based standard error @se. */
static void five(double *x, double l, double se)
{
	/* MAD = b: 1.2533 * 1.4826 * b / sqrt(5) = se */
	double b = se * sqrt(5) / (1.2533141373155 * 1.482602218505602);
	const double at[5] = { -0.2, -b, 0, b, 0.2 };

	for (unsigned i = 0; i < 5; i++)
		x[i] = exp(l + at[i]);
}

void test_history_drift_prediction_interval(void **state)
{
	/*
	 * By hand (python3, the t tail by Simpson's rule): five runs, log
	 * medians 0, .1, -.1, .05, -.05, in-run SE .02 each; s^2 = .025/4,
	 * t(4) = 2.7764451, spread = t sqrt(s^2 (1 + 1/5)) = 0.2404472.
	 */
	const double l[] = { 0, 0.1, -0.1, 0.05, -0.05 };
	struct kscen_series_pt pt[5];
	struct kscen_metric m = { .nr_samples = 5, .better = KSCEN_LOWER };
	struct kscen_change c;
	struct kscen_drift d;
	double x[5];

	for (unsigned i = 0; i < 5; i++)
		pt[i] = (struct kscen_series_pt){ .l = l[i], .se = 0.02, .n = 5 };
	kscen_drift_from(pt, 5, &d);
	assert_int_equal(d.src, KSCEN_DRIFT_OWN);
	assert_true(d.runs == 5 && d.changes == 0 && d.df == 4);
	assert_true(near(d.level, 0, 1e-15));
	assert_true(near(d.s, sqrt(0.025 / 4), 1e-12));
	assert_true(near(d.se2, 0.0004, 1e-12));
	assert_true(near(d.t, 2.7764451051978, 1e-9));
	assert_true(near(d.spread, 0.2404471993314, 1e-9));

	/*
	 * A new run at log median .3, its own SE .05 (over the history's
	 * .02): v = .00625 * 1.2 + (.0025 - .0004) = .0096, half-width
	 * t sqrt(v) = .2720350, p = 0.0375901.
	 */
	five(x, 0.3, 0.05);
	m.samples = x;
	memset(&c, 0, sizeof(c));
	kscen_change_between(&c, &m, &d, KSCEN_LOWER);
	assert_true(c.between && c.drift && c.ci_valid && c.src == KSCEN_DRIFT_OWN);
	assert_true(near(c.rel, expm1(0.3), 1e-12));
	assert_true(near(c.old, 1, 1e-12));
	assert_true(near(c.lo, expm1(0.3 - 0.2720349522633), 1e-9));
	assert_true(near(c.hi, expm1(0.3 + 0.2720349522633), 1e-9));
	assert_true(near(c.p, 0.0375901115111, 1e-7));
	assert_int_equal(c.verdict, KSCEN_WORSE);
	/* the estimate is inside its own interval, always */
	assert_true(c.lo < c.rel && c.rel < c.hi);
	/* higher is better: the same move is an improvement */
	kscen_change_between(&c, &m, &d, KSCEN_HIGHER);
	assert_int_equal(c.verdict, KSCEN_BETTER);

	/*
	 * Pooled (one run of its own, SE .02): v = .04^2 (1 + 1) + .05^2 +
	 * .02^2 / 1 = .0061 with 30 degrees of freedom: p = 0.00058979.
	 */
	pt[0].se = 0.02;
	kscen_drift_from(pt, 1, &d);
	assert_true(d.src == KSCEN_DRIFT_NONE && d.runs == 1 && near(d.level, 0, 0));
	kscen_change_between(&c, &m, &d, KSCEN_LOWER);
	assert_int_equal(c.verdict, KSCEN_CANNOT_TELL);
	assert_true(!c.ci_valid && near(c.rel, expm1(0.3), 1e-12));
	kscen_drift_pool(&d, 0.04, 30, "2 other jobs");
	kscen_change_between(&c, &m, &d, KSCEN_LOWER);
	assert_true(c.src == KSCEN_DRIFT_POOL && !strcmp(c.pool, "2 other jobs"));
	assert_true(near(c.lo, expm1(0.3 - 2.0422724563 * sqrt(0.0061)), 1e-8));
	assert_true(near(c.p, 0.00058979319, 1e-8));
	assert_int_equal(c.verdict, KSCEN_WORSE);

	/* No history at all: nothing to stand on. */
	kscen_drift_from(pt, 0, &d);
	kscen_change_between(&c, &m, &d, KSCEN_LOWER);
	assert_int_equal(c.verdict, KSCEN_CANNOT_TELL);
}

/*
 * A level shift in the history is a change, never drift: six runs at one
 * level, four at a level 50% higher, the reference the last of them. Its
 * segment is the four; the six before are not noise (taken together the
 * ten would allow for +-50% and see nothing).
 */
void test_history_level_shift_is_no_drift(void **state)
{
	const double jitter[] = { 0.004, -0.006, 0.002, 0.0, -0.003, 0.005 };
	struct kscen_series_pt pt[10];
	struct kscen_metric m = { .nr_samples = 5, .better = KSCEN_LOWER };
	struct kscen_change c;
	struct kscen_drift d;
	double x[5];

	for (unsigned i = 0; i < 10; i++)
		pt[i] = (struct kscen_series_pt){
			.l = (i >= 6 ? log(1.5) : 0) + jitter[i % 6], .se = 0.005, .n = 5 };
	kscen_drift_from(pt, 10, &d);
	assert_true(d.changes == 1 && d.history == 10 && d.runs == 4);
	assert_true(near(d.level, log(1.5) + (0.004 - 0.006 + 0.002 + 0) / 4, 1e-12));
	assert_true(d.spread < 0.05);
	/* 5% over the new level: found; at the new level: nothing */
	five(x, log(1.5 * 1.05), 0.005);
	m.samples = x;
	memset(&c, 0, sizeof(c));
	kscen_change_between(&c, &m, &d, KSCEN_LOWER);
	assert_int_equal(c.verdict, KSCEN_WORSE);
	five(x, log(1.5), 0.005);
	kscen_change_between(&c, &m, &d, KSCEN_LOWER);
	assert_int_equal(c.verdict, KSCEN_SAME);
}

/*
 * The old estimate subtracted the in-run noise from the medians' spread and
 * clamped it at zero, so a history whose runs were noisy inside printed
 * "run-to-run ±0.0%" and flagged A/A pairs; the medians cannot scatter
 * less than their own noise says, and the allowance never collapses.
 */
void test_history_drift_never_collapses(void **state)
{
	const double l[] = { 0.01, -0.01, 0.0, 0.005 };
	struct kscen_series_pt pt[4];
	struct kscen_drift d;

	for (unsigned i = 0; i < 4; i++)
		pt[i] = (struct kscen_series_pt){ .l = l[i], .se = 0.05, .n = 5 };
	kscen_drift_from(pt, 4, &d);
	assert_int_equal(d.src, KSCEN_DRIFT_OWN);
	/* per run: max(s^2, se^2) = .0025, not s^2 - se^2 < 0 */
	assert_true(near(d.spread, kscen_t975(3) * sqrt(0.0025 * 1.25), 1e-12));
	assert_true(d.spread > 0.1);
}

void test_history_change_widened_by_drift(void **state)
{
	struct kscen_drift d = { .src = KSCEN_DRIFT_OWN, .runs = 8, .df = 7,
				 .s = 0.05, .se2 = 0.0001 };
	struct kscen_change c = {
		.rel = 0.08, .lo = 0.03, .hi = 0.13, .ci_valid = true, .p = 0.01,
		.level = 96.8, .size = 0.032, .verdict = KSCEN_WORSE,
	};
	struct kscen_change few = c;
	double lc = log1p(0.08), sen, v, h;

	d.t = kscen_t975(7);
	kscen_change_widen(&c, &d, KSCEN_LOWER);
	sen = (log1p(0.13) - log1p(0.03)) / (2 * 1.959963984540054);
	v = 0.0025 + fmax(0, sen * sen - 0.0001);
	h = kscen_t975(7) * sqrt(v);
	assert_true(c.drift && c.hist_runs == 8 && c.src == KSCEN_DRIFT_OWN);
	assert_true(near(c.lo, expm1(lc - h), 1e-12) && near(c.hi, expm1(lc + h), 1e-12));
	/* the estimate stays, the interval is the union: wider on both sides */
	assert_true(near(c.rel, 0.08, 0) && c.lo < 0.03 && c.hi > 0.13);
	/* +8% within a pair that moves by +-15% from run to run: no verdict */
	assert_true(c.verdict == KSCEN_SAME && c.p > 0.05);
	assert_true(near(c.spread, expm1(h), 1e-12));
	assert_true(!kscen_change_beyond(&c, KSCEN_LOWER, 5));

	/* Too little history of the pair: the in-run interval stands. */
	d.src = KSCEN_DRIFT_NONE;
	d.runs = 2;
	kscen_change_widen(&few, &d, KSCEN_LOWER);
	assert_true(!few.drift && few.lo == 0.03 && few.verdict == KSCEN_WORSE);
}

/* ---- references from stored runs ---------------------------------------- */

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static struct kscen_run *mk_run(const char *started, const char *host,
				unsigned version, const char *loops)
{
	struct kscen_run *r = kscen_xcalloc(1, sizeof(*r));
	struct kscen_job_result *j;

	r->version = kscen_xstrdup("1");
	r->scenario = kscen_xstrdup("h");
	r->started = kscen_xstrdup(started);
	r->system.hostname = kscen_xstrdup(host);
	r->system.kernel = kscen_xstrdup("6.1");
	r->system.kernel_build = kscen_xstrdup("#1");
	r->nr_jobs = 1;
	r->jobs = j = kscen_xcalloc(1, sizeof(*j));
	j->id = kscen_xstrdup("t/loops=1");
	j->workload = kscen_xstrdup("syscall.basic");
	j->workload_version = version;
	j->nr_eff = 1;
	j->eff_keys = kscen_xcalloc(1, sizeof(char *));
	j->eff_values = kscen_xcalloc(1, sizeof(char *));
	j->eff_keys[0] = kscen_xstrdup("loops");
	j->eff_values[0] = kscen_xstrdup(loops);
	j->converged = -1;
	j->nr_metrics = 1;
	j->metrics = kscen_xcalloc(1, sizeof(*j->metrics));
	j->metrics[0].name = kscen_xstrdup("usecs/op");
	j->metrics[0].samples = kscen_xcalloc(3, sizeof(double));
	j->metrics[0].nr_samples = 3;
	for (unsigned i = 0; i < 3; i++)
		j->metrics[0].samples[i] = 10 + i;
	kscen_summarize(j->metrics[0].samples, 3, &j->metrics[0].sum);
	return r;
}

static void save(const char *dir, struct kscen_run *r)
{
	assert_true(kscen_result_save(r, dir) == 0);
	kscen_run_free(r);
}

/* xorshift64 and Box-Muller: a fixed seed, the same runs every time. */
static double gauss(unsigned long long *s)
{
	double u, v;

	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	u = ((*s >> 11) + 0.5) / 9007199254740992.0;
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	v = ((*s >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* @r's job with 5 samples around @v instead, 1% apart (log SD). */
static struct kscen_run *noisy(struct kscen_run *r, double v, unsigned long long *seed)
{
	struct kscen_metric *m = &r->jobs[0].metrics[0];

	m->samples = kscen_xrealloc(m->samples, 5 * sizeof(double));
	m->nr_samples = 5;
	for (unsigned i = 0; i < 5; i++)
		m->samples[i] = v * exp(0.01 * gauss(seed));
	kscen_summarize(m->samples, 5, &m->sum);
	return r;
}

/*
 * The gate of a CI that saves every run and compares with label:good: four
 * runs at 10 ms, the last one "good", then runs at 20 ms (and, apart, at
 * 11 ms), each saved. The regressed runs are after the reference, so they
 * never enter its history: each one is "worse", however many are saved.
 * (Before, from the second on they were the drift: +100% read as noise.)
 */
void test_history_gate_stays_awake(void **state)
{
	unsigned long long seed = 0x600dull;
	const double factor[] = { 2.0, 1.1 };

	(void)state;
	for (unsigned f = 0; f < 2; f++) {
		struct kscen_history h = { .run = kscen_xcalloc(20, sizeof(struct kscen_run *)) };
		unsigned worse = 0;

		/* newest first, as kscen_history_load() gives them */
		for (unsigned i = 0; i < 4; i++) {
			char when[32];

			snprintf(when, sizeof(when), "2026-01-01T00:00:%02uZ", i);
			memmove(h.run + 1, h.run, h.nr++ * sizeof(*h.run));
			h.run[0] = noisy(mk_run(when, "my", 3, "1"), 0.010, &seed);
			if (i == 3)
				h.run[0]->label = kscen_xstrdup("good");
		}
		for (unsigned i = 0; i < 10; i++) {
			const struct kscen_run *good = h.run[h.nr - 4];
			struct kscen_run *bad;
			struct kscen_drift d;
			struct kscen_change c;
			char when[32];

			snprintf(when, sizeof(when), "2026-01-01T00:01:%02uZ", i);
			bad = noisy(mk_run(when, "my", 3, "1"), 0.010 * factor[f], &seed);
			kscen_history_drift(&h, good, &good->jobs[0], "usecs/op", &d);
			assert_true(d.src == KSCEN_DRIFT_OWN && d.runs == 4 && d.history == 4);
			assert_true(kscen_change_compute(&good->jobs[0].metrics[0],
							 &bad->jobs[0].metrics[0], false, &c));
			kscen_change_between(&c, &bad->jobs[0].metrics[0], &d, KSCEN_LOWER);
			worse += c.verdict == KSCEN_WORSE;
			/* saved: the next one's history holds it, after good */
			memmove(h.run + 1, h.run, h.nr++ * sizeof(*h.run));
			h.run[0] = bad;
		}
		print_message("    %.1fx against label:good: worse in %u of 10 saved runs\n",
			      factor[f], worse);
		assert_true(f ? worse >= 8 : worse == 10);
		kscen_history_free(&h);
	}
}

void test_history_reference_per_job_never_silent(void **state)
{
	char tmpl[] = "/tmp/kscen-hist-XXXXXX", *dir = mkdtemp(tmpl), *sdir;
	struct kscen_run *cur, *r;
	struct kscen_refs refs;
	FILE *f;

	assert_true(dir);
	if (!dir)
		return;
	sdir = kscen_xasprintf("%s/h", dir);
	/* Oldest first; only the first is a valid reference for "my". */
	save(dir, mk_run("2026-01-01T00:00:01Z", "my", 3, "1"));
	save(dir, mk_run("2026-01-01T00:00:02Z", "my", 2, "1"));	/* version */
	save(dir, mk_run("2026-01-01T00:00:03Z", "my", 3, "2"));	/* params */
	r = mk_run("2026-01-01T00:00:04Z", "my", 3, "1");
	r->partial = true;
	save(dir, r);
	r = mk_run("2026-01-01T00:00:05Z", "my", 3, "1");
	r->filter = kscen_xstrdup("t/*");
	save(dir, r);
	save(dir, mk_run("2026-01-01T00:00:06Z", "other", 3, "1"));	/* host */
	r = mk_run("2026-01-01T00:00:07Z", "my", 3, "1");
	r->jobs[0].status = KSCEN_FAILED;
	save(dir, r);
	save(dir, mk_run("2999-01-01T00:00:00Z", "my", 3, "1"));	/* future */
	f = fopen("/tmp/kscen-hist-corrupt", "w");
	if (f) {
		char *p = kscen_xasprintf("%s/20260101T000008Z-my.yaml", sdir);

		fclose(f);
		f = fopen(p, "w");
		if (f) {
			fputs("scenario: h\njobs: [\n", f);
			fclose(f);
		}
		free(p);
		remove("/tmp/kscen-hist-corrupt");
	}

	cur = mk_run("2026-06-01T00:00:00Z", "my", 3, "1");
	kscen_refs_history(&refs, cur, sdir, "my", NULL);
	assert_true(refs.compared == 1 && refs.ref[0].run);
	if (refs.ref[0].run)
		assert_true(!strcmp(refs.ref[0].run->started, "2026-01-01T00:00:01Z"));
	assert_true(refs.main == refs.ref[0].run);
	kscen_refs_free(&refs);

	/* Any host: the other host's run is the newest that matches. */
	kscen_refs_history(&refs, cur, sdir, NULL, NULL);
	assert_true(refs.ref[0].run &&
		!strcmp(refs.ref[0].run->system.hostname, "other"));
	kscen_refs_free(&refs);

	/* A version nobody ran before: no reference, and why. */
	kscen_run_free(cur);
	cur = mk_run("2026-06-01T00:00:00Z", "my", 9, "1");
	kscen_refs_history(&refs, cur, sdir, "my", NULL);
	assert_true(refs.compared == 0 && !refs.ref[0].run && refs.ref[0].why &&
		strstr(refs.ref[0].why, "version"));
	kscen_refs_free(&refs);
	kscen_run_free(cur);

	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(sdir);
}

/*
 * A job new to a scenario has one run of its own; it allows for the drift
 * of the host's other jobs, pooled, and says so; without them it cannot
 * tell. Job "t/loops=1" has five runs, "u/loops=1" only the newest.
 */
void test_history_pool_over_other_jobs(void **state)
{
	char tmpl[] = "/tmp/kscen-pool-XXXXXX", *dir = mkdtemp(tmpl), *sdir;
	unsigned long long seed = 0x9001ull;
	struct kscen_run *cur, *r;
	struct kscen_change c;
	struct kscen_refs refs;

	(void)state;
	assert_non_null(dir);
	sdir = kscen_xasprintf("%s/h", dir);
	for (unsigned i = 0; i < 5; i++) {
		char when[32];

		snprintf(when, sizeof(when), "2026-01-01T00:00:%02uZ", i);
		r = noisy(mk_run(when, "my", 3, "1"), 10, &seed);
		if (i == 4) {
			/* the second job, a copy of the first under another id */
			struct kscen_run *u = noisy(mk_run(when, "my", 3, "1"), 20, &seed);

			r->jobs = kscen_xrealloc(r->jobs, 2 * sizeof(*r->jobs));
			r->jobs[1] = u->jobs[0];
			free(r->jobs[1].id);
			r->jobs[1].id = kscen_xstrdup("u/loops=1");
			r->nr_jobs = 2;
			u->nr_jobs = 0;
			kscen_run_free(u);
		}
		save(dir, r);
	}
	cur = noisy(mk_run("2026-06-01T00:00:00Z", "my", 3, "1"), 10, &seed);
	r = noisy(mk_run("2026-06-01T00:00:00Z", "my", 3, "1"), 20, &seed);
	cur->jobs = kscen_xrealloc(cur->jobs, 2 * sizeof(*cur->jobs));
	cur->jobs[1] = r->jobs[0];
	free(cur->jobs[1].id);
	cur->jobs[1].id = kscen_xstrdup("u/loops=1");
	cur->nr_jobs = 2;
	r->nr_jobs = 0;
	kscen_run_free(r);

	kscen_refs_history(&refs, cur, sdir, "my", NULL);
	assert_int_equal(refs.ref[0].drift.src, KSCEN_DRIFT_OWN);
	assert_int_equal(refs.ref[0].drift.runs, 5);
	assert_int_equal(refs.ref[1].drift.src, KSCEN_DRIFT_POOL);
	assert_int_equal(refs.ref[1].drift.runs, 1);
	assert_string_equal(refs.ref[1].drift.pool, "1 other job");
	/* the pool is the other job's own SD, with its degrees of freedom */
	assert_true(near(refs.ref[1].drift.s, refs.ref[0].drift.s, 0));
	assert_int_equal(refs.ref[1].drift.df, 4);
	assert_true(kscen_ref_change(&refs, cur, 1, &c));
	assert_true(c.src == KSCEN_DRIFT_POOL && c.ci_valid && c.verdict != KSCEN_CANNOT_TELL);
	kscen_refs_free(&refs);
	kscen_run_free(cur);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(sdir);
}

/* A run of "my" started at 2026-01-01T00:00:@sec. */
static struct kscen_run *mk_at(unsigned sec)
{
	char when[32];

	snprintf(when, sizeof(when), "2026-01-01T00:00:%02uZ", sec);
	return mk_run(when, "my", 3, "1");
}

/* Save a run of "my" started at 2026-01-01T00:00:@sec, labelled @label. */
static void save_at(const char *dir, unsigned sec, const char *label, bool partial)
{
	struct kscen_run *r = mk_at(sec);

	r->label = label ? kscen_xstrdup(label) : NULL;
	r->partial = partial;
	save(dir, r);
}

static bool up_to_5(const struct kscen_run *run)
{
	return strcmp(run->started, "2026-01-01T00:00:05Z") <= 0;
}

/*
 * The stored runs before a run, newest first: the first three that cannot
 * be used are named, the rest counted; one started at the same second is
 * in, one later is left out without a word. With a label, only the files
 * named ...+<label>.yaml are read, and of those only the runs that hold
 * the label (a file renamed by hand is not one).
 */
void test_history_load_names_three_skips_counts_the_rest(void **state)
{
	char tmpl[] = "/tmp/kscen-load-XXXXXX", *dir = mkdtemp(tmpl), *sdir, *from, *to;
	struct kscen_diag_log log = { 0 };
	struct kscen_history h;
	char want[1024];

	(void)state;
	assert_non_null(dir);
	sdir = kscen_xasprintf("%s/h", dir);
	save_at(dir, 1, "good", false);
	save_at(dir, 2, NULL, false);
	for (unsigned i = 3; i <= 7; i++)
		save_at(dir, i, NULL, i != 5);
	save_at(dir, 8, NULL, false);
	save_at(dir, 9, NULL, false);
	save_at(dir, 10, "bad", true);
	save_at(dir, 11, "other", false);
	from = kscen_xasprintf("%s/20260101T000011Z-my+other.yaml", sdir);
	to = kscen_xasprintf("%s/20260101T000011Z-my+good.yaml", sdir);
	assert_int_equal(rename(from, to), 0);

	kscen_diag_set_sink(kscen_diag_capture, &log);
	assert_int_equal(kscen_history_load(sdir, "h", "2026-01-01T00:00:08Z", NULL, &h), 0);
	kscen_diag_set_sink(NULL, NULL);
	assert_int_equal(h.nr, 4);
	if (h.nr == 4) {
		assert_string_equal(h.run[0]->started, "2026-01-01T00:00:08Z");
		assert_string_equal(h.run[1]->started, "2026-01-01T00:00:05Z");
		assert_string_equal(h.run[3]->started, "2026-01-01T00:00:01Z");
	}
	snprintf(want, sizeof(want),
		 "kscen: skipping stored run %s/20260101T000010Z-my+bad.yaml: partial: the run was cut short\n"
		 "kscen: skipping stored run %s/20260101T000007Z-my.yaml: partial: the run was cut short\n"
		 "kscen: skipping stored run %s/20260101T000006Z-my.yaml: partial: the run was cut short\n"
		 "kscen: skipping 2 more stored runs in %s\n", sdir, sdir, sdir, sdir);
	assert_string_equal(log.text, want);
	kscen_history_free(&h);

	/* the newest that fits, after exactly three skipped: no count */
	memset(&log, 0, sizeof(log));
	kscen_diag_set_sink(kscen_diag_capture, &log);
	assert_int_equal(kscen_history_newest(sdir, "h", NULL, up_to_5, &h), 0);
	kscen_diag_set_sink(NULL, NULL);
	assert_int_equal(h.nr, 1);
	if (h.nr == 1)
		assert_string_equal(h.run[0]->started, "2026-01-01T00:00:05Z");
	assert_int_equal(log.nr, 3);
	kscen_history_free(&h);

	memset(&log, 0, sizeof(log));
	kscen_diag_set_sink(kscen_diag_capture, &log);
	assert_int_equal(kscen_history_load_label(sdir, "h", "good", NULL, NULL, NULL, &h), 0);
	kscen_diag_set_sink(NULL, NULL);
	assert_string_equal(log.text, "");
	assert_int_equal(h.nr, 1);
	if (h.nr == 1)
		assert_string_equal(h.run[0]->started, "2026-01-01T00:00:01Z");
	kscen_history_free(&h);

	free(from);
	free(to);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(sdir);
}

/*
 * A run started in the second the history is read is not "in the future":
 * taken when the clock read the same second before the save and after the
 * load (tried again, in a directory of its own, when a second began
 * between them).
 */
void test_history_load_takes_a_run_of_this_second(void **state)
{
	bool same = false;

	(void)state;
	for (unsigned try = 0; try < 5 && !same; try++) {
		char tmpl[] = "/tmp/kscen-now-XXXXXX", *dir = mkdtemp(tmpl), *sdir;
		struct kscen_diag_log log = { 0 };
		char before[32], after[32];
		struct kscen_history h;

		assert_non_null(dir);
		sdir = kscen_xasprintf("%s/h", dir);
		kscen_utc_now_buf(before, sizeof(before));
		save(dir, mk_run(before, "my", 3, "1"));
		kscen_diag_set_sink(kscen_diag_capture, &log);
		assert_int_equal(kscen_history_load(sdir, "h", NULL, NULL, &h), 0);
		kscen_diag_set_sink(NULL, NULL);
		kscen_utc_now_buf(after, sizeof(after));
		same = !strcmp(before, after);
		if (same) {
			assert_string_equal(log.text, "");
			assert_int_equal(h.nr, 1);
		}
		kscen_history_free(&h);
		nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
		free(sdir);
	}
	assert_true(same);
}

/*
 * A directory of 101 runs: the newest 100 are read, the oldest not; but
 * the oldest is label:good, which --compare label:good finds however old.
 */
void test_history_load_reads_the_newest_100(void **state)
{
	char tmpl[] = "/tmp/kscen-load100-XXXXXX", *dir = mkdtemp(tmpl), *sdir;
	struct kscen_history h;
	struct kscen_refs refs;
	struct kscen_run *r;

	(void)state;
	assert_non_null(dir);
	sdir = kscen_xasprintf("%s/h", dir);
	for (unsigned i = 0; i < KSCEN_HISTORY_MAX_FILES + 1; i++) {
		char when[32];

		snprintf(when, sizeof(when), "2026-01-01T00:%02u:%02uZ", i / 60, i % 60);
		r = mk_run(when, "my", 3, "1");
		r->label = i ? NULL : kscen_xstrdup("good");
		save(dir, r);
	}
	assert_int_equal(kscen_history_load(sdir, "h", NULL, NULL, &h), 0);
	assert_int_equal(h.nr, 100);
	if (h.nr == 100)
		assert_string_equal(h.run[99]->started, "2026-01-01T00:00:01Z");
	kscen_history_free(&h);

	/* label:good is older than those 100: found by its file name */
	r = mk_run("2026-06-01T00:00:00Z", "my", 3, "1");
	kscen_refs_history(&refs, r, sdir, NULL, "good");
	assert_non_null(refs.ref[0].run);
	if (refs.ref[0].run)
		assert_string_equal(refs.ref[0].run->started, "2026-01-01T00:00:00Z");
	kscen_refs_free(&refs);
	kscen_run_free(r);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(sdir);
}

/* @r with one more job, @id, a copy of its first; @ok false: failed. */
static struct kscen_run *add_job(struct kscen_run *r, const char *id, bool ok)
{
	struct kscen_run *u = mk_run(r->started, "my", 3, "1");
	struct kscen_job_result *j;

	r->jobs = kscen_xrealloc(r->jobs, (r->nr_jobs + 1) * sizeof(*r->jobs));
	j = &r->jobs[r->nr_jobs++];
	*j = u->jobs[0];
	free(j->id);
	j->id = kscen_xstrdup(id);
	if (!ok)
		j->status = KSCEN_FAILED;
	u->nr_jobs = 0;
	kscen_run_free(u);
	return r;
}

/*
 * Each job's reference, or why it has none, by value; the run most jobs
 * use is the one named, the first job's on a tie. A (label:good) has t,
 * u and f; B, newer, u and f; f failed in both.
 */
void test_history_reference_why_each_job_has_none(void **state)
{
	char tmpl[] = "/tmp/kscen-why-XXXXXX", *dir = mkdtemp(tmpl), *sdir;
	struct kscen_run *a, *cur;
	struct kscen_refs refs;
	const char *started[5];

	(void)state;
	assert_non_null(dir);
	sdir = kscen_xasprintf("%s/h", dir);
	a = add_job(add_job(mk_run("2026-01-01T00:00:01Z", "my", 3, "1"), "u/loops=1", true),
		    "f/loops=1", false);
	a->label = kscen_xstrdup("good");
	save(dir, a);
	a = add_job(mk_run("2026-01-01T00:00:02Z", "my", 3, "1"), "f/loops=1", false);
	free(a->jobs[0].id);
	a->jobs[0].id = kscen_xstrdup("u/loops=1");
	save(dir, a);
	cur = mk_run("2026-06-01T00:00:00Z", "my", 3, "1");
	add_job(add_job(add_job(add_job(cur, "u/loops=1", true), "f/loops=1", true),
			"n/loops=1", true), "d/loops=1", false);

	kscen_refs_history(&refs, cur, sdir, "my", NULL);
	for (unsigned i = 0; i < 5; i++)
		started[i] = refs.ref[i].run ? refs.ref[i].run->started : "-";
	assert_string_equal(started[0], "2026-01-01T00:00:01Z");
	assert_string_equal(started[1], "2026-01-01T00:00:02Z");
	assert_string_equal(started[2], "-");
	assert_string_equal(refs.ref[2].why, "not ok in the earlier runs");
	assert_string_equal(started[3], "-");
	assert_string_equal(refs.ref[3].why, "no earlier run of this job");
	assert_string_equal(started[4], "-");
	assert_string_equal(refs.ref[4].why, "did not run");
	assert_int_equal(refs.compared, 2);
	assert_true(refs.main && refs.main == refs.ref[0].run);
	assert_string_equal(refs.results, dir);
	kscen_refs_free(&refs);

	/* label:good: A for both t and u */
	kscen_refs_history(&refs, cur, sdir, "my", "good");
	assert_true(refs.ref[0].run && refs.ref[0].run == refs.ref[1].run);
	assert_int_equal(refs.compared, 2);
	kscen_refs_free(&refs);

	/* u failed this time: no reference, though it ran well before */
	cur->jobs[1].status = KSCEN_FAILED;
	kscen_refs_history(&refs, cur, sdir, "my", NULL);
	assert_null(refs.ref[1].run);
	assert_string_equal(refs.ref[1].why, "did not run");
	assert_int_equal(refs.compared, 1);
	kscen_refs_free(&refs);
	kscen_run_free(cur);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(sdir);
}

/*
 * Two jobs with one earlier run each and no other job's drift to pool:
 * the pool kscen calibrate recorded for the host before the run, named by
 * its date, for both.
 */
void test_history_pool_from_calibration(void **state)
{
	char tmpl[] = "/tmp/kscen-cal-XXXXXX", *dir = mkdtemp(tmpl), *sdir;
	struct kscen_system sys = { .hostname = "my", .kernel = "6.1", .kernel_build = "#1" };
	struct kscen_calib cal = { .s = 0.03, .df = 20, .jobs = 2,
				   .when = "2026-02-01T12:00:00Z" };
	struct kscen_refs refs;
	struct kscen_run *cur, *ref = NULL;
	struct kscen_change c;
	char *path;

	(void)state;
	assert_non_null(dir);
	sdir = kscen_xasprintf("%s/h", dir);
	save(dir, add_job(mk_run("2026-01-01T00:00:01Z", "my", 3, "1"), "u/loops=1", true));
	assert_int_equal(kscen_calib_save(dir, &sys, "h", &cal), 0);
	cur = add_job(mk_run("2026-06-01T00:00:00Z", "my", 3, "1"), "u/loops=1", true);
	kscen_refs_history(&refs, cur, sdir, "my", NULL);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(refs.ref[i].drift.src, KSCEN_DRIFT_POOL);
		assert_string_equal(refs.ref[i].drift.pool, "calibrated 2026-02-01");
		assert_true(near(refs.ref[i].drift.s, 0.03, 1e-15));
		assert_int_equal(refs.ref[i].drift.df, 20);
	}
	kscen_refs_free(&refs);

	/* compare against that one run by name: the same pool */
	path = kscen_xasprintf("%s/20260101T000001Z-my.yaml", sdir);
	assert_int_equal(kscen_result_load_err(path, &ref, NULL, 0), 0);
	kscen_refs_single(&refs, cur, ref);	/* takes ref */
	assert_string_equal(refs.ref[1].drift.pool, "calibrated 2026-02-01");
	/* a primary metric the reference does not have: no change */
	free(cur->jobs[1].metrics[0].name);
	cur->jobs[1].metrics[0].name = kscen_xstrdup("ops/sec");
	assert_false(kscen_ref_change(&refs, cur, 1, &c));
	assert_true(kscen_ref_change(&refs, cur, 0, &c));
	kscen_refs_free(&refs);
	free(path);

	/* t with three more runs has a drift of its own: u takes t's, not the calibration */
	for (unsigned k = 2; k <= 4; k++) {
		char when[32];

		snprintf(when, sizeof(when), "2026-01-01T00:00:0%uZ", k);
		save(dir, mk_run(when, "my", 3, "1"));
	}
	kscen_run_free(cur);
	cur = add_job(mk_run("2026-06-01T00:00:00Z", "my", 3, "1"), "u/loops=1", true);
	kscen_refs_history(&refs, cur, sdir, "my", NULL);
	assert_int_equal(refs.ref[0].drift.src, KSCEN_DRIFT_OWN);
	assert_int_equal(refs.ref[1].drift.src, KSCEN_DRIFT_POOL);
	assert_string_equal(refs.ref[1].drift.pool, "1 other job");
	assert_true(near(refs.ref[1].drift.s, refs.ref[0].drift.s, 1e-12));
	kscen_refs_free(&refs);
	kscen_run_free(cur);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(sdir);
}

/*
 * A stored run's references, as it recorded them (kscen report): t named
 * the newest of five earlier runs, and takes its drift from the five; u
 * named none; x a file gone (in a directory of no runs, which job 0's
 * reference decides against); f a run in which f failed.
 */
void test_history_stored_references_by_value(void **state)
{
	char tmpl[] = "/tmp/kscen-stored-XXXXXX", *dir = mkdtemp(tmpl), *sdir;
	unsigned long long seed = 0x5eedull;
	struct kscen_diag_log log = { 0 };
	struct kscen_refs refs;
	struct kscen_run *cur;
	char want[512];

	(void)state;
	assert_non_null(dir);
	sdir = kscen_xasprintf("%s/h", dir);
	for (unsigned i = 0; i < 5; i++)
		save(dir, add_job(noisy(mk_at(i), 10, &seed), "f/loops=1", false));
	cur = mk_run("2026-06-01T00:00:00Z", "my", 3, "1");
	add_job(add_job(add_job(cur, "u/loops=1", true), "x/loops=1", true), "f/loops=1", true);
	cur->jobs[0].reference = kscen_xasprintf("%s/20260101T000004Z-my.yaml", sdir);
	cur->jobs[2].reference = kscen_xasprintf("%s/x.yaml", dir);	/* a directory */
	cur->jobs[3].reference = kscen_xstrdup(cur->jobs[0].reference);
	/* kept elsewhere: the references' directory is the history's */
	cur->path = kscen_xasprintf("%s/kept/20260601T000000Z-my.yaml", dir);

	kscen_diag_set_sink(kscen_diag_capture, &log);
	kscen_refs_stored(&refs, cur);
	kscen_diag_set_sink(NULL, NULL);
	assert_non_null(refs.ref[0].run);
	if (refs.ref[0].run)
		assert_string_equal(refs.ref[0].run->started, "2026-01-01T00:00:04Z");
	assert_int_equal(refs.ref[0].drift.src, KSCEN_DRIFT_OWN);
	assert_int_equal(refs.ref[0].drift.runs, 5);
	assert_string_equal(refs.results, dir);
	assert_true(!refs.ref[1].run && !refs.ref[2].run && !refs.ref[3].run);
	assert_string_equal(refs.ref[1].why, "no reference when it ran");
	assert_string_equal(refs.ref[2].why, "the stored reference no longer loads");
	assert_string_equal(refs.ref[3].why, "the stored reference no longer loads");
	assert_int_equal(refs.compared, 1);
	/* x was looked for as written, then beside the run */
	snprintf(want, sizeof(want),
		 "%s/x.yaml: No such file or directory\n"
		 "%s/kept/x.yaml: No such file or directory\n"
		 "kscen: x/loops=1: its reference %s/x.yaml no longer loads\n"
		 "kscen: f/loops=1: its reference %s no longer loads\n", dir, dir, dir,
		 cur->jobs[0].reference);
	assert_string_equal(log.text, want);
	kscen_refs_free(&refs);
	kscen_run_free(cur);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(sdir);
}

/*
 * References named from elsewhere (kscen report of a run whose references
 * were written from another directory): u names an existing file of
 * another directory with the basename of a run of the history, and gets
 * that file; w names a file there that does not load, and gets the run of
 * that name beside the run, read once (the one t has), as w named it.
 */
void test_history_stored_reference_beside_the_run(void **state)
{
	char tmpl[] = "/tmp/kscen-beside-XXXXXX", *dir = mkdtemp(tmpl), *sdir, *cdir, *from;
	struct kscen_diag_log log = { 0 };
	struct kscen_refs refs;
	struct kscen_run *cur, *r;
	FILE *f;

	(void)state;
	assert_non_null(dir);
	sdir = kscen_xasprintf("%s/h", dir);
	cdir = kscen_xasprintf("%s/copy", dir);
	for (unsigned i = 0; i < 5; i++)
		save(dir, add_job(add_job(mk_at(i), "u/loops=1", true), "w/loops=1", true));
	/* elsewhere: a run started at :09 under the name of the history's :03 */
	r = add_job(add_job(mk_at(9), "u/loops=1", true), "w/loops=1", true);
	assert_int_equal(kscen_result_save(r, cdir), 0);
	kscen_run_free(r);
	from = kscen_xasprintf("%s/h/20260101T000009Z-my.yaml", cdir);
	cur = mk_run("2026-06-01T00:00:00Z", "my", 3, "1");
	add_job(add_job(cur, "u/loops=1", true), "w/loops=1", true);
	cur->jobs[0].reference = kscen_xasprintf("%s/20260101T000004Z-my.yaml", sdir);
	cur->jobs[1].reference = kscen_xasprintf("%s/h/20260101T000003Z-my.yaml", cdir);
	cur->jobs[2].reference = kscen_xasprintf("%s/h/20260101T000004Z-my.yaml", cdir);
	cur->path = kscen_xasprintf("%s/20260601T000000Z-my.yaml", sdir);
	assert_int_equal(rename(from, cur->jobs[1].reference), 0);
	f = fopen(cur->jobs[2].reference, "w");
	assert_non_null(f);
	if (f) {
		fputs("scenario: h\njobs: [\n", f);
		fclose(f);
	}

	kscen_diag_set_sink(kscen_diag_capture, &log);
	kscen_refs_stored(&refs, cur);
	kscen_diag_set_sink(NULL, NULL);
	assert_int_equal(refs.compared, 3);
	assert_true(refs.ref[0].run && refs.ref[1].run && refs.ref[2].run);
	if (refs.ref[0].run && refs.ref[1].run && refs.ref[2].run) {
		assert_string_equal(refs.ref[0].run->started, "2026-01-01T00:00:04Z");
		assert_string_equal(refs.ref[1].run->started, "2026-01-01T00:00:09Z");
		assert_ptr_equal(refs.ref[2].run, refs.ref[0].run);
		assert_string_equal(refs.ref[2].run->path, cur->jobs[2].reference);
	}
	kscen_refs_free(&refs);
	kscen_run_free(cur);
	free(from);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(cdir);
	free(sdir);
}

/*
 * The first reference is what tells where the history is, unless its
 * directory is not one here (the run written from another working
 * directory): then the run's own is. Here its directory is a file: t
 * finds its reference beside the run, and its drift in the five runs of
 * the history there.
 */
void test_history_stored_reference_whose_directory_is_a_file(void **state)
{
	char tmpl[] = "/tmp/kscen-dirfile-XXXXXX", *dir = mkdtemp(tmpl), *sdir, *file;
	unsigned long long seed = 0x5eedull;
	struct kscen_refs refs;
	struct kscen_run *cur;
	FILE *f;

	(void)state;
	assert_non_null(dir);
	sdir = kscen_xasprintf("%s/h", dir);
	file = kscen_xasprintf("%s/file", dir);
	for (unsigned i = 0; i < 5; i++)
		save(dir, noisy(mk_at(i), 10, &seed));
	f = fopen(file, "w");
	assert_non_null(f);
	if (f)
		fclose(f);
	cur = mk_run("2026-06-01T00:00:00Z", "my", 3, "1");
	cur->jobs[0].reference = kscen_xasprintf("%s/20260101T000004Z-my.yaml", file);
	cur->path = kscen_xasprintf("%s/20260601T000000Z-my.yaml", sdir);

	kscen_refs_stored(&refs, cur);
	assert_non_null(refs.ref[0].run);
	if (refs.ref[0].run)
		assert_string_equal(refs.ref[0].run->started, "2026-01-01T00:00:04Z");
	assert_int_equal(refs.ref[0].drift.src, KSCEN_DRIFT_OWN);
	assert_int_equal(refs.ref[0].drift.runs, 5);
	assert_string_equal(refs.results, dir);
	kscen_refs_free(&refs);
	kscen_run_free(cur);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(file);
	free(sdir);
}

/*
 * A stored run none of whose jobs named a reference (saved with
 * --compare none): no history is looked for, and each job says why it
 * has no comparison.
 */
void test_history_stored_run_without_references(void **state)
{
	struct kscen_run *cur = mk_run("2026-06-01T00:00:00Z", "my", 3, "1");
	struct kscen_refs refs;

	(void)state;
	add_job(cur, "u/loops=1", true);
	cur->path = kscen_xstrdup("/nonexistent/kscen/20260601T000000Z-my.yaml");
	kscen_refs_stored(&refs, cur);
	assert_null(refs.results);
	assert_int_equal(refs.compared, 0);
	for (unsigned i = 0; i < 2; i++) {
		assert_null(refs.ref[i].run);
		assert_string_equal(refs.ref[i].why, "no reference when it ran");
	}
	kscen_refs_free(&refs);
	kscen_run_free(cur);
}

/* @r's job with the parameters @k0=@v0 and @k1=@v1. */
static struct kscen_run *two_params(struct kscen_run *r, const char *k0, const char *v0,
				    const char *k1, const char *v1)
{
	struct kscen_job_result *j = &r->jobs[0];

	for (unsigned i = 0; i < j->nr_eff; i++) {
		free(j->eff_keys[i]);
		free(j->eff_values[i]);
	}
	free(j->eff_keys);
	free(j->eff_values);
	j->nr_eff = 2;
	j->eff_keys = kscen_xcalloc(2, sizeof(char *));
	j->eff_values = kscen_xcalloc(2, sizeof(char *));
	j->eff_keys[0] = kscen_xstrdup(k0);
	j->eff_values[0] = kscen_xstrdup(v0);
	j->eff_keys[1] = kscen_xstrdup(k1);
	j->eff_values[1] = kscen_xstrdup(v1);
	return r;
}

/*
 * A stored job whose parameters name loops twice (a hand-edited file)
 * is not the job loops=1,size=2: each of the new job's parameters must be
 * in the earlier one, not only each of the earlier one's in the new.
 */
void test_history_reference_same_parameters_both_ways(void **state)
{
	char tmpl[] = "/tmp/kscen-same-XXXXXX", *dir = mkdtemp(tmpl), *sdir;
	struct kscen_run *cur;
	struct kscen_refs refs;

	(void)state;
	assert_non_null(dir);
	sdir = kscen_xasprintf("%s/h", dir);
	save(dir, two_params(mk_at(1), "loops", "1", "loops", "1"));
	cur = two_params(mk_run("2026-06-01T00:00:00Z", "my", 3, "1"), "loops", "1", "size", "2");
	kscen_refs_history(&refs, cur, sdir, "my", NULL);
	assert_null(refs.ref[0].run);
	assert_string_equal(refs.ref[0].why, "another workload version or parameters before");
	kscen_refs_free(&refs);
	kscen_refs_single(&refs, cur, two_params(mk_at(1), "loops", "1", "loops", "1"));
	assert_null(refs.ref[0].run);
	assert_string_equal(refs.ref[0].why, "another workload version or parameters");
	kscen_refs_free(&refs);
	kscen_run_free(cur);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(sdir);
}

/*
 * --gate-fdr Q trips on a q-value of at most Q: one exactly at the gate
 * trips, one just over it passes. Five runs of "t/loops=1" at 10 us/op
 * (fixed seed), then one at 10.4: worse, and the only comparison, so its
 * q-value is its p-value.
 */
void test_gate_q_exactly_at_the_gate_trips(void **state)
{
	char tmpl[] = "/tmp/kscen-gateq-XXXXXX", *dir = mkdtemp(tmpl), *sdir;
	unsigned long long seed = 0x6a7eull;
	struct kscen_report_model rm;
	struct kscen_run *cur;
	struct kscen_refs refs;
	char *buf = NULL, *want;
	size_t len = 0;
	double q;
	FILE *f;

	(void)state;
	assert_non_null(dir);
	sdir = kscen_xasprintf("%s/h", dir);
	for (unsigned i = 0; i < 5; i++)
		save(dir, noisy(mk_at(i), 10, &seed));
	cur = noisy(mk_run("2026-06-01T00:00:00Z", "my", 3, "1"), 10.4, &seed);
	kscen_refs_history(&refs, cur, sdir, "my", NULL);
	kscen_report_model_build(cur, &refs, &rm);
	q = rm.job[0].delta[KSCEN_DELTA_REF].q;
	assert_int_equal(rm.job[0].delta[KSCEN_DELTA_REF].c.verdict, KSCEN_WORSE);
	assert_true(near(q, 0.025726856390139892, 1e-12));
	/* a t-based p has no floor: no gate is out of reach (compare.c) */
	assert_true(rm.fam[KSCEN_FAM_BETWEEN].m == 1 &&
		    rm.fam[KSCEN_FAM_BETWEEN].p_min == 0);
	kscen_report_model_free(&rm);

	f = open_memstream(&buf, &len);
	assert_int_equal(kscen_gate(f, cur, &refs, 0, q), 1);
	fclose(f);
	assert_string_equal(buf,
		"# gate q<=0.0257269: FAILED: worse with a q-value of at most 0.0257269:\n"
		"#   t/loops=1: +3.2% [+0.6% .. +5.8%] worse (p=0.026 q=0.026; "
		"run-to-run ±2.5%, 5 runs)\n");
	free(buf);

	/* the next double under q: passed, against the newest earlier run */
	f = open_memstream(&buf, &len);
	assert_int_equal(kscen_gate(f, cur, &refs, 0, nextafter(q, 0)), 0);
	fclose(f);
	want = kscen_xasprintf("# gate q<=0.0257269: passed (1 job checked against "
			       "%s/20260101T000004Z-my.yaml)\n", sdir);
	assert_string_equal(buf, want);
	free(want);
	free(buf);
	kscen_refs_free(&refs);
	kscen_run_free(cur);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(sdir);
}

void test_env_diff_lists_tokens(void **state)
{
	struct kscen_run *a = mk_run("2026-01-01T00:00:01Z", "my", 3, "1");
	struct kscen_run *b = mk_run("2026-01-01T00:00:02Z", "my", 3, "1");
	struct kscen_envdiff *v;
	unsigned nr;

	a->system.cmdline = kscen_xstrdup("ro quiet mitigations=auto");
	b->system.cmdline = kscen_xstrdup("ro mitigations=auto nosmt");
	free(b->system.kernel);
	b->system.kernel = kscen_xstrdup("6.2");
	nr = kscen_env_diff(a, b, &v);
	assert_true(nr == 2);
	if (nr == 2) {
		assert_true(!strcmp(v[0].name, "kernel") && !strcmp(v[0].old, "6.1") &&
			!strcmp(v[0].new_, "6.2") && !v[0].tokens);
		assert_true(!strcmp(v[1].name, "cmdline") &&
			!strcmp(v[1].tokens, "-quiet +nosmt"));
	}
	kscen_env_diff_free(v, nr);
	kscen_run_free(a);
	kscen_run_free(b);
}
