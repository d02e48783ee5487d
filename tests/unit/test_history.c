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
#include "store/history.h"
#include "expand/jobs.h"
#include "store/store.h"
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

void test_history_drift_random_effects(void **state)
{
	/*
	 * By hand: the log medians' variance is 0.025/4 = 0.00625, the mean
	 * within-run variance 0.02^2 = 0.0004, so tau = sqrt(0.00585) =
	 * 0.0764853; t(4) = 2.776; spread = 2.776 * sqrt(2) * tau = 0.300266.
	 */
	const double lmed[] = { 0, 0.1, -0.1, 0.05, -0.05 };
	const double se[] = { 0.02, 0.02, 0.02, 0.02, 0.02 };
	const double big[] = { 0.5, 0.5, 0.5 };
	struct kscen_drift d;

	kscen_drift_from(lmed, se, 5, &d);
	assert_true(d.runs == 5);
	assert_true(near(d.tau, 0.0764853, 1e-6));
	assert_true(near(d.t, 2.776, 1e-9));
	assert_true(near(d.spread, 2.776 * M_SQRT2 * 0.0764853, 1e-5));
	/* (2.776 + 0.8416) * sqrt(2 * 0.00585 + 2 * 0.0004) */
	assert_true(near(d.mde_between, 3.6176212 * sqrt(0.0125), 1e-5));
	assert_true(near(d.mde_within, (1.959964 + 0.841621) * sqrt(0.0008), 1e-5));

	/* What the runs' own noise explains is no drift: never below zero. */
	kscen_drift_from(lmed, big, 3, &d);
	assert_true(d.runs == 3 && d.tau == 0 && d.spread == 0);
	/* Two runs cannot estimate a spread. */
	kscen_drift_from(lmed, se, 2, &d);
	assert_true(d.runs == 2 && d.spread == 0 && d.t == 0);
	assert_true(near(kscen_t975(1), 12.706, 1e-9) && kscen_t975(500) == 1.96);
}

void test_history_change_widened_by_drift(void **state)
{
	struct kscen_drift d = { .runs = 8, .spread = 0.2 };
	struct kscen_change c = {
		.rel = 0.08, .lo = 0.03, .hi = 0.13, .ci_valid = true,
		.verdict = KSCEN_WORSE,
	};
	struct kscen_change few = c;
	double llo, lhi, lc = log1p(0.08);

	kscen_change_widen(&c, &d, KSCEN_LOWER);
	llo = lc - sqrt(pow(lc - log1p(0.03), 2) + 0.04);
	lhi = lc + sqrt(pow(log1p(0.13) - lc, 2) + 0.04);
	assert_true(c.between && c.drift && c.hist_runs == 8);
	assert_true(near(c.lo, expm1(llo), 1e-12) && near(c.hi, expm1(lhi), 1e-12));
	/* +8% within drift of +-22%: no longer a verdict. */
	assert_true(c.verdict == KSCEN_SAME);
	assert_true(near(c.spread, expm1(0.2), 1e-12));
	assert_true(!kscen_change_beyond(&c, KSCEN_LOWER, 5));

	/* Too little history: the in-run interval stands, and says so. */
	d.runs = 2;
	kscen_change_widen(&few, &d, KSCEN_LOWER);
	assert_true(few.between && !few.drift && few.hist_runs == 2);
	assert_true(few.lo == 0.03 && few.verdict == KSCEN_WORSE);
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
