// SPDX-License-Identifier: GPL-2.0
/*
 * test_report_model.c - the report model (runner/report/model.c): each
 * job's deltas computed once from an in-memory run, what a job without a
 * baseline or a failed job has, the job entries and what varies in them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "store/history.h"
#include "report/model.h"
#include "lib/util.h"
#include "tests.h"

/* Samples around 100, the same shape at every scale. */
static const double around[6] = { 100, 101, 99, 100, 102, 98 };

/*
 * Job @id (entry: what precedes the '/') with the parameters "x=@x,y=1",
 * and one metric @unit whose samples are around[] times @f, or none.
 */
static void job(struct kscen_run *r, const char *id, const char *x,
		enum kscen_status st, double f, const char *unit,
		const char *baseline, const char *previous)
{
	struct kscen_job_result *j;
	struct kscen_metric *m;

	r->jobs = kscen_xrealloc(r->jobs, (r->nr_jobs + 1) * sizeof(*r->jobs));
	j = memset(&r->jobs[r->nr_jobs++], 0, sizeof(*j));
	j->id = kscen_xstrdup(id);
	j->name = kscen_xasprintf("%.*s", (int)strcspn(id, "/"), id);
	j->workload = kscen_xstrdup("exec");
	j->status = st;
	j->converged = -1;
	j->baseline = baseline ? kscen_xstrdup(baseline) : NULL;
	j->previous = previous ? kscen_xstrdup(previous) : NULL;
	j->nr_kv = 2;
	j->keys = kscen_xcalloc(2, sizeof(char *));
	j->values = kscen_xcalloc(2, sizeof(char *));
	j->keys[0] = kscen_xstrdup("x");
	j->values[0] = kscen_xstrdup(x);
	j->keys[1] = kscen_xstrdup("y");
	j->values[1] = kscen_xstrdup("1");
	if (st != KSCEN_OK)
		return;
	j->nr_metrics = 1;
	j->metrics = m = kscen_xcalloc(1, sizeof(*m));
	m->name = kscen_xstrdup("lat");
	m->unit = kscen_xstrdup(unit);
	m->nr_samples = ARRAY_SIZE(around);
	m->samples = kscen_xcalloc(m->nr_samples, sizeof(double));
	for (unsigned i = 0; i < m->nr_samples; i++)
		m->samples[i] = f * around[i];
	kscen_summarize(m->samples, m->nr_samples, &m->sum);
}

/*
 * Entry a: its baseline, a job 10% slower, a failed one; entry b: one job
 * in seconds, without baseline. @slow: the factor of a/x=1.
 */
struct kscen_run *kscen_test_sample_run(double slow)
{
	struct kscen_run *r = kscen_xcalloc(1, sizeof(*r));

	r->scenario = kscen_xstrdup("m");
	r->started = kscen_xstrdup("2026-12-03T08:00:00Z");
	job(r, "a/x=0", "0", KSCEN_OK, 1, "usecs", "a/x=0", NULL);
	job(r, "a/x=1", "1", KSCEN_OK, slow, "usecs", "a/x=0", "a/x=0");
	job(r, "a/x=2", "2", KSCEN_FAILED, 0, NULL, "a/x=0", "a/x=1");
	job(r, "b/x=0", "0", KSCEN_OK, 2e-5, "s", NULL, NULL);
	return r;
}

void test_report_model_computes_each_delta_once(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1), *ref = kscen_test_sample_run(1);
	const struct kscen_report_job *j;
	struct kscen_report_model m;
	struct kscen_refs refs;

	kscen_refs_single(&refs, r, ref);	/* takes ref */
	kscen_report_model_build(r, &refs, &m);

	/* 10% slower than its baseline, and than the reference run. */
	j = &m.job[1];
	assert_true(j->primary == &r->jobs[1].metrics[0]);
	assert_true(j->delta[KSCEN_DELTA_BASELINE].present);
	assert_float_equal(j->delta[KSCEN_DELTA_BASELINE].c.rel, 0.10, 1e-9);
	assert_true(j->delta[KSCEN_DELTA_BASELINE].c.paired);
	assert_int_equal(j->delta[KSCEN_DELTA_BASELINE].c.verdict, KSCEN_WORSE);
	assert_true(j->delta[KSCEN_DELTA_PREVIOUS].present);
	assert_float_equal(j->delta[KSCEN_DELTA_PREVIOUS].c.rel, 0.10, 1e-9);
	assert_true(j->delta[KSCEN_DELTA_REF].present);
	assert_float_equal(j->delta[KSCEN_DELTA_REF].c.rel, 0.10, 1e-9);
	assert_true(j->delta[KSCEN_DELTA_REF].c.between);
	assert_false(j->delta[KSCEN_DELTA_REF].c.paired);
	/*
	 * One run of history and no other job with more: the reference
	 * comparison cannot be told, and is no member of the q family; the
	 * one job pair within the run is its family alone: q = p.
	 */
	assert_int_equal(j->delta[KSCEN_DELTA_REF].c.verdict, KSCEN_CANNOT_TELL);
	assert_true(isnan(j->delta[KSCEN_DELTA_REF].q));
	assert_float_equal(j->delta[KSCEN_DELTA_BASELINE].q,
			   j->delta[KSCEN_DELTA_BASELINE].c.p, 1e-15);
	assert_float_equal(j->delta[KSCEN_DELTA_PREVIOUS].q,
			   j->delta[KSCEN_DELTA_BASELINE].q, 0);
	assert_int_equal(m.fam[KSCEN_FAM_WITHIN].m, 1);
	assert_int_equal(m.fam[KSCEN_FAM_WITHIN].changed, 1);
	assert_int_equal(m.fam[KSCEN_FAM_WITHIN].found, 1);
	assert_int_equal(m.fam[KSCEN_FAM_BETWEEN].m, 0);
	assert_int_equal(m.fam[KSCEN_FAM_BETWEEN].cannot_tell, 3);
	assert_true(j->ref == ref && j->ref_job == &ref->jobs[1]);
	/* 6 samples: the CI is [min, max], 110 ± 2.2, so ±2.0% */
	assert_string_equal(j->ci, "±2.0%");
	assert_string_equal(j->num[0].unit, "usecs");

	/* The baseline itself: none to itself, none to a previous job. */
	j = &m.job[0];
	assert_false(j->delta[KSCEN_DELTA_BASELINE].present);
	assert_false(j->delta[KSCEN_DELTA_PREVIOUS].present);
	assert_true(j->delta[KSCEN_DELTA_REF].present);
	assert_float_equal(j->delta[KSCEN_DELTA_REF].c.rel, 0, 1e-9);

	/* Failed: no primary metric, no style, no CI, no delta at all. */
	j = &m.job[2];
	assert_int_equal(j->status, KSCEN_FAILED);
	assert_null(j->primary);
	assert_null(j->num);
	assert_string_equal(j->ci, "");
	for (unsigned k = 0; k < KSCEN_NR_DELTAS; k++)
		assert_false(j->delta[k].present);
	assert_null(j->ref);

	/* No baseline, no previous: only the reference's delta; seconds in ms. */
	j = &m.job[3];
	assert_false(j->delta[KSCEN_DELTA_BASELINE].present);
	assert_false(j->delta[KSCEN_DELTA_PREVIOUS].present);
	assert_true(j->delta[KSCEN_DELTA_REF].present);
	assert_string_equal(j->num[0].unit, "ms");
	assert_float_equal(j->num[0].scale, 1e3, 0);

	/* Two entries: x varies in a's jobs, y does not; b's job is alone. */
	assert_int_equal(m.nr_entries, 2);
	assert_int_equal(m.entry[0].first, 0);
	assert_int_equal(m.entry[0].last, 2);
	assert_true(m.entry[0].varies[0]);
	assert_false(m.entry[0].varies[1]);
	assert_int_equal(m.entry[1].first, 3);
	assert_int_equal(m.entry[1].last, 3);
	assert_false(m.entry[1].varies[0]);
	assert_int_equal(m.job[2].entry, 0);
	assert_int_equal(m.job[3].entry, 1);
	assert_int_equal(m.nr_status[KSCEN_OK], 3);
	assert_int_equal(m.nr_status[KSCEN_FAILED], 1);
	kscen_report_model_free(&m);

	/* Without references: the deltas inside the run, none against one. */
	kscen_report_model_build(r, NULL, &m);
	assert_true(m.job[1].delta[KSCEN_DELTA_BASELINE].present);
	assert_false(m.job[1].delta[KSCEN_DELTA_REF].present);
	assert_null(m.job[1].ref);
	kscen_report_model_free(&m);

	kscen_refs_free(&refs);
	kscen_run_free(r);
}
