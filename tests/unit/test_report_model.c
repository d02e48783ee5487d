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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assert_num.h"
#include "report/report.h"
#include "store/history.h"
#include "report/model.h"
#include "report/emit.h"
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
	assert_num_equal(j->delta[KSCEN_DELTA_BASELINE].c.rel, 0.10, 1e-9);
	assert_true(j->delta[KSCEN_DELTA_BASELINE].c.paired);
	assert_int_equal(j->delta[KSCEN_DELTA_BASELINE].c.verdict, KSCEN_WORSE);
	assert_true(j->delta[KSCEN_DELTA_PREVIOUS].present);
	assert_num_equal(j->delta[KSCEN_DELTA_PREVIOUS].c.rel, 0.10, 1e-9);
	assert_true(j->delta[KSCEN_DELTA_REF].present);
	assert_num_equal(j->delta[KSCEN_DELTA_REF].c.rel, 0.10, 1e-9);
	assert_true(j->delta[KSCEN_DELTA_REF].c.between);
	assert_false(j->delta[KSCEN_DELTA_REF].c.paired);
	/*
	 * One run of history and no other job with more: the reference
	 * comparison cannot be told, and is no member of the q family; the
	 * one job pair within the run is its family alone: q = p.
	 */
	assert_int_equal(j->delta[KSCEN_DELTA_REF].c.verdict, KSCEN_CANNOT_TELL);
	assert_true(isnan(j->delta[KSCEN_DELTA_REF].q));
	assert_num_equal(j->delta[KSCEN_DELTA_BASELINE].q,
			   j->delta[KSCEN_DELTA_BASELINE].c.p, 1e-15);
	assert_num_equal(j->delta[KSCEN_DELTA_PREVIOUS].q,
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
	assert_num_equal(j->delta[KSCEN_DELTA_REF].c.rel, 0, 1e-9);

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
	assert_num_equal(j->num[0].scale, 1e3, 0);

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

/* a/x=0, a/x=1 @f1 times slower, a/x=2 @f2 times: x=1's previous is x=0. */
static struct kscen_run *three_run(double f1, double f2)
{
	struct kscen_run *r = kscen_xcalloc(1, sizeof(*r));

	r->scenario = kscen_xstrdup("m");
	r->started = kscen_xstrdup("2026-12-03T08:00:00Z");
	job(r, "a/x=0", "0", KSCEN_OK, 1, "usecs", "a/x=0", NULL);
	job(r, "a/x=1", "1", KSCEN_OK, f1, "usecs", "a/x=0", "a/x=0");
	job(r, "a/x=2", "2", KSCEN_OK, f2, "usecs", "a/x=0", "a/x=1");
	return r;
}

/*
 * Each delta against its own job: x=2 is 30% over its baseline x=0 and
 * 1.3 / 1.1 - 1 = 18.2% over its previous job x=1.
 */
void test_report_model_baseline_and_previous_deltas_differ(void **state)
{
	struct kscen_run *r = three_run(1.1, 1.3);
	const struct kscen_report_delta *d;
	struct kscen_report_model m;

	(void)state;
	kscen_report_model_build(r, NULL, &m);
	d = m.job[2].delta;
	assert_true(d[KSCEN_DELTA_BASELINE].present && d[KSCEN_DELTA_PREVIOUS].present);
	assert_num_equal(d[KSCEN_DELTA_BASELINE].c.rel, 0.3, 1e-9);
	assert_num_equal(d[KSCEN_DELTA_BASELINE].c.old, 100, 1e-9);
	assert_num_equal(d[KSCEN_DELTA_PREVIOUS].c.rel, (1.3 / 1.1 - 1), 1e-9);
	assert_num_equal(d[KSCEN_DELTA_PREVIOUS].c.old, 110, 1e-9);
	assert_num_equal(d[KSCEN_DELTA_PREVIOUS].c.new_, 130, 1e-9);
	kscen_report_model_free(&m);
	kscen_run_free(r);
}

/*
 * The mail's delta columns carry the sign of the change: x=1 20% slower
 * than x=0 reads +20.0% to both; x=2 20% faster than x=0 reads -20.0% to
 * its baseline and -33.3% (0.8 / 1.2 - 1) to its previous job.
 */
void test_report_mail_delta_sign_follows_change(void **state)
{
	struct kscen_run *r = three_run(1.2, 0.8);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	kscen_report(f, r, NULL, KSCEN_FMT_MAIL);
	fclose(f);
	if (!strstr(buf, "   +20.0%   +20.0%\n") || !strstr(buf, "   -20.0%   -33.3%\n"))
		fprintf(stderr, "%s", buf);
	assert_non_null(strstr(buf, "   +20.0%   +20.0%\n"));
	assert_non_null(strstr(buf, "   -20.0%   -33.3%\n"));
	assert_null(strstr(buf, "+33.3%"));
	free(buf);
	kscen_run_free(r);
}

/* A baseline measured in another unit gives no delta, not +66300%. */
void test_report_model_no_delta_across_units(void **state)
{
	struct kscen_run *r = kscen_xcalloc(1, sizeof(*r));
	struct kscen_report_model m;

	(void)state;
	r->scenario = kscen_xstrdup("m");
	job(r, "a/x=0", "0", KSCEN_OK, 1.25, "ms", "a/x=0", NULL);
	job(r, "a/x=1", "1", KSCEN_OK, 833, "us", "a/x=0", "a/x=0");
	job(r, "a/x=2", "2", KSCEN_OK, 2.5, "ms", "a/x=0", "a/x=1");
	kscen_report_model_build(r, NULL, &m);
	assert_false(m.job[1].delta[KSCEN_DELTA_BASELINE].present);
	assert_false(m.job[1].delta[KSCEN_DELTA_PREVIOUS].present);
	/* x=2 is in ms as its baseline is, not as its previous job is */
	assert_true(m.job[2].delta[KSCEN_DELTA_BASELINE].present);
	assert_num_equal(m.job[2].delta[KSCEN_DELTA_BASELINE].c.rel, 1, 1e-9);
	assert_false(m.job[2].delta[KSCEN_DELTA_PREVIOUS].present);
	kscen_report_model_free(&m);
	kscen_run_free(r);
}

/*
 * The gate fails closed, and says why: nothing compared is -1 (exit 2),
 * never a pass; each job worse beyond the threshold is named.
 */
void test_gate_says_why_nothing_was_compared(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.3), *ref = kscen_test_sample_run(1), *other;
	struct kscen_refs refs;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&buf, &len);
	assert_int_equal(kscen_gate(f, r, NULL, 5, 0), -1);
	fclose(f);
	assert_string_equal(buf, "gate: nothing compared: no reference run (--compare none)\n");
	free(buf);

	memset(&refs, 0, sizeof(refs));
	refs.asked = true;	/* asked, but no earlier run holds the jobs */
	f = open_memstream(&buf, &len);
	assert_int_equal(kscen_gate(f, r, &refs, 5, 0), -1);
	fclose(f);
	assert_string_equal(buf, "gate: nothing compared: no earlier run holds these jobs\n");
	free(buf);

	other = kscen_test_sample_run(1);
	free(other->scenario);
	other->scenario = kscen_xstrdup("another");
	kscen_refs_single(&refs, r, other);	/* takes other */
	f = open_memstream(&buf, &len);
	assert_int_equal(kscen_gate(f, r, &refs, 5, 0), -1);
	fclose(f);
	assert_string_equal(buf, "gate: nothing compared: no job of this run matches one "
			    "of the reference\n");
	free(buf);
	kscen_refs_free(&refs);

	/*
	 * a/x=1 is 30% slower than in the reference, the others the same; but
	 * one earlier run says nothing of how runs drift: cannot tell, exit
	 * 125, never a pass (test_history.c's gate tests have the history).
	 */
	kscen_refs_single(&refs, r, ref);	/* takes ref */
	ref->path = kscen_xstrdup("ref.yaml");
	f = open_memstream(&buf, &len);
	assert_int_equal(kscen_gate(f, r, &refs, 5, 0), KSCEN_GATE_CANNOT_TELL);
	fclose(f);
	assert_string_equal(buf, "# gate 5%: cannot tell: 3 of 3 jobs have no run-to-run "
			    "estimate (kscen calibrate)\n");
	free(buf);
	kscen_refs_free(&refs);
	kscen_run_free(r);
}

/*
 * The footer's lines from the families' counts: "N of M changed" with the
 * number expected by chance, the q count only when something changed, and
 * the warning that no comparison can pass the correction only when none
 * did (with p_min above q/m, ties can still pass together).
 */
void test_report_footer_counts_and_fdr_warning(void **state)
{
	struct kscen_report_model m;
	char line[4][REPORT_LINE];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.fam[KSCEN_FAM_WITHIN] = (struct kscen_report_family){
		.m = 14, .changed = 3, .found = 0, .expected = 0.7, .p_min = 0.0079 };
	m.fam[KSCEN_FAM_BETWEEN] = (struct kscen_report_family){
		.m = 6, .changed = 0, .expected = 0.3, .p_min = 0.001 };
	assert_int_equal(report_footer(&m, line, 4), 3);
	assert_string_equal(line[0], "within the run: 3 of 14 changed; about 0.7 "
			    "expected by chance; 0 with q <= 0.05");
	assert_string_equal(line[1], "against the reference: 0 of 6 changed; about 0.3 "
			    "expected by chance");
	assert_string_equal(line[2], "warning: within the run, no comparison alone can "
			    "pass the FDR correction at q 0.05 over 14 (the smallest p "
			    "these samples can give is 0.0079): take more samples (-r)");
	/* 14 tied at p_min 0.0079 <= 14 x 0.05 / 14: all pass together, no warning */
	m.fam[KSCEN_FAM_WITHIN].changed = m.fam[KSCEN_FAM_WITHIN].found = 14;
	assert_int_equal(report_footer(&m, line, 4), 2);
	assert_string_equal(line[0], "within the run: 14 of 14 changed; about 0.7 "
			    "expected by chance; 14 with q <= 0.05");
	/* two decimals below 0.095 expected */
	m.fam[KSCEN_FAM_BETWEEN].expected = 0.03;
	report_footer(&m, line, 4);
	assert_string_equal(line[1], "against the reference: 0 of 6 changed; about 0.03 "
			    "expected by chance");
	/* 0.095 itself has one decimal */
	m.fam[KSCEN_FAM_BETWEEN].expected = 0.095;
	report_footer(&m, line, 4);
	assert_string_equal(line[1], "against the reference: 0 of 6 changed; about 0.1 "
			    "expected by chance");
	m.fam[KSCEN_FAM_BETWEEN].expected = 0.03;
	/* no more lines than asked for */
	m.fam[KSCEN_FAM_BETWEEN].cannot_tell = 2;
	assert_int_equal(report_footer(&m, line, 1), 1);
	assert_int_equal(report_footer(&m, line, 2), 2);
	assert_int_equal(report_footer(&m, line, 4), 3);
	m.fam[KSCEN_FAM_WITHIN].found = 0;
	assert_int_equal(report_footer(&m, line, 2), 2);
	assert_int_equal(report_footer(&m, line, 3), 3);
	assert_string_equal(line[2], "warning: within the run, no comparison alone can "
			    "pass the FDR correction at q 0.05 over 14 (the smallest p "
			    "these samples can give is 0.0079): take more samples (-r)");
	m.fam[KSCEN_FAM_WITHIN].found = 14;
	m.fam[KSCEN_FAM_BETWEEN].cannot_tell = 0;
	/* the smallest p exactly at q / m can pass: no warning */
	assert_false(kscen_family_too_few(&(struct kscen_report_family){
		.m = 1, .p_min = 0.05 }, 0.05));
	assert_true(kscen_family_too_few(&(struct kscen_report_family){
		.m = 2, .p_min = 0.05 }, 0.05));
	assert_false(kscen_family_too_few(&(struct kscen_report_family){
		.m = 0, .p_min = 1 }, 0.05));
	/* deltas widened by their history pass two tests: the sum is a bound */
	m.fam[KSCEN_FAM_WITHIN].widened = 1;
	report_footer(&m, line, 4);
	assert_string_equal(line[0], "within the run: 14 of 14 changed; at most 0.7 "
			    "expected by chance; 14 with q <= 0.05");
	assert_string_equal(line[1], "against the reference: 0 of 6 changed; about 0.03 "
			    "expected by chance");
}

/* A run of scenario m and no job yet. */
static struct kscen_run *bare_run(void)
{
	struct kscen_run *r = kscen_xcalloc(1, sizeof(*r));

	r->scenario = kscen_xstrdup("m");
	return r;
}

/*
 * Job @j's noise record under @policy, one sample a cause: @cause[i] NULL
 * is a quiet sample, "" one disturbed by nothing named. The samples of
 * @drop are set aside; @lost: each took its round with it (drop), else
 * the next sample took that round again (retake).
 */
static void noise(struct kscen_job_result *j, const char *policy, unsigned nr,
		  const char *const *cause, const bool *drop, bool lost)
{
	struct kscen_noise_rec *n = kscen_xcalloc(1, sizeof(*n));
	unsigned kept = 0;

	j->noise = n;
	n->policy = kscen_xstrdup(policy);
	n->nr_samples = nr;
	n->samples = kscen_xcalloc(nr, sizeof(*n->samples));
	for (unsigned i = 0; i < nr; i++) {
		struct kscen_sample_rec *s = &n->samples[i];

		s->round = lost ? i + 1 : kept + 1;
		s->disturbed = cause[i] != NULL;
		s->cause = cause[i] && *cause[i] ? kscen_xstrdup(cause[i]) : NULL;
		s->dropped = drop && drop[i];
		kept += !s->dropped;
		n->disturbed += s->disturbed;
		n->dropped += s->dropped;
	}
}

/*
 * Each job's noise line and the run's, by value: the causes by kind in
 * the order first seen, each kind's largest value as it was spelled ("up
 * to" when said more than once), what each policy kept; a baseline that
 * lost a round to drop pairs with no job.
 */
void test_report_model_noise_lines_and_pairing(void **state)
{
	static const char *const c0[] = {
		NULL, NULL, "steal 7%", NULL, NULL, "", NULL,
	};
	static const bool d0[7] = { false, false, true };
	static const char *const c1[] = {
		"steal 5%", NULL, "steal 5.0%, other load 0.9 CPU", NULL, NULL, NULL,
	};
	static const char *const c2[] = {
		NULL, "interrupts 5200/s", NULL, NULL, "interrupts 900/s", NULL, NULL,
	};
	static const bool d2[7] = { false, true };
	static const char *const c3[6];
	struct kscen_run *r = bare_run();
	struct kscen_report_model m;

	(void)state;
	job(r, "a/x=0", "0", KSCEN_OK, 1, "usecs", "a/x=0", NULL);
	job(r, "a/x=1", "1", KSCEN_OK, 1.1, "usecs", "a/x=0", "a/x=0");
	job(r, "a/x=2", "2", KSCEN_OK, 1.2, "usecs", "a/x=0", "a/x=1");
	job(r, "b/x=0", "0", KSCEN_OK, 1, "usecs", NULL, NULL);
	noise(&r->jobs[0], "drop", 7, c0, d0, true);
	noise(&r->jobs[1], "flag", 6, c1, NULL, false);
	noise(&r->jobs[2], "retake", 7, c2, d2, false);
	noise(&r->jobs[3], "flag", 6, c3, NULL, false);
	kscen_report_model_build(r, NULL, &m);

	assert_string_equal(m.job[0].noise, "2 of 7 samples disturbed (steal 7%), "
			    "1 set aside: 6 kept (noise: drop)");
	assert_string_equal(m.job[1].noise, "2 of 6 samples disturbed (steal up to 5%, "
			    "other load 0.9 CPU), kept (noise: flag)");
	assert_string_equal(m.job[2].noise, "2 of 7 samples disturbed (interrupts up "
			    "to 5200/s), 1 retaken: 6 kept, 1 of them disturbed "
			    "(noise: retake)");
	assert_string_equal(m.job[3].noise, "");
	assert_string_equal(m.noise, "6 of 26 samples disturbed (steal up to 7%, other "
			    "load 0.9 CPU, interrupts up to 5200/s) in 3 of 4 jobs, 2 set "
			    "aside (noise: per job)");

	/* the baseline's rounds are not whole: no job pairs with it */
	assert_true(m.job[1].delta[KSCEN_DELTA_BASELINE].present);
	assert_false(m.job[1].delta[KSCEN_DELTA_BASELINE].c.paired);
	assert_true(m.job[2].delta[KSCEN_DELTA_BASELINE].present);
	assert_false(m.job[2].delta[KSCEN_DELTA_BASELINE].c.paired);
	/* x=2's previous job x=1 is whole, and so is x=2 (its round retaken) */
	assert_true(m.job[2].delta[KSCEN_DELTA_PREVIOUS].c.paired);
	kscen_report_model_free(&m);
	kscen_run_free(r);
}

/*
 * A cause's kind is its words before the first digit of its own part, its
 * number every digit from there (9 and 0 too, and a value of 0 is said);
 * a part with no number is none, and never borrows the next part's.
 */
void test_report_model_noise_causes_parsed_by_part(void **state)
{
	static const char *const c0[] = {
		"steal 9%", "hot cpu, 12 extra", "other load 0.5 CPU", "thermal throttling 0",
		NULL, NULL,
	};
	struct kscen_run *r = bare_run();
	struct kscen_report_model m;

	(void)state;
	job(r, "a/x=0", "0", KSCEN_OK, 1, "usecs", NULL, NULL);
	noise(&r->jobs[0], "flag", 6, c0, NULL, false);
	kscen_report_model_build(r, NULL, &m);
	assert_string_equal(m.job[0].noise, "4 of 6 samples disturbed (steal 9%, other "
			    "load 0.5 CPU, thermal throttling 0), kept (noise: flag)");
	kscen_report_model_free(&m);
	kscen_run_free(r);
}

/*
 * A delta needs a baseline with a number: none to a failed job; one to a
 * baseline whose median is 0 (no ratio, no p) is shown but in no family.
 * The first job's "to previous" that is its "to baseline" shares its q
 * as any job's does.
 */
void test_report_model_delta_needs_a_baseline_number(void **state)
{
	struct kscen_run *r = bare_run();
	struct kscen_report_model m;
	const struct kscen_report_delta *d;

	(void)state;
	job(r, "a/x=1", "1", KSCEN_OK, 1.2, "usecs", "a/x=0", "a/x=0");
	job(r, "a/x=0", "0", KSCEN_OK, 1, "usecs", "a/x=0", NULL);
	job(r, "b/x=0", "0", KSCEN_FAILED, 0, NULL, "b/x=0", NULL);
	job(r, "b/x=1", "1", KSCEN_OK, 1, "usecs", "b/x=0", "b/x=0");
	job(r, "c/x=0", "0", KSCEN_OK, 0, "usecs", "c/x=0", NULL);
	job(r, "c/x=1", "1", KSCEN_OK, 1, "usecs", "c/x=0", "c/x=0");
	kscen_report_model_build(r, NULL, &m);

	d = m.job[0].delta;
	assert_true(d[KSCEN_DELTA_BASELINE].present);
	assert_num_equal(d[KSCEN_DELTA_BASELINE].c.rel, 0.2, 1e-9);
	assert_true(d[KSCEN_DELTA_BASELINE].q > 0 && d[KSCEN_DELTA_BASELINE].q < 0.05);
	assert_true(d[KSCEN_DELTA_PREVIOUS].present);
	assert_false(isnan(d[KSCEN_DELTA_PREVIOUS].q));	/* NaN == anything to cmocka */
	assert_num_equal(d[KSCEN_DELTA_PREVIOUS].q, d[KSCEN_DELTA_BASELINE].q, 0);

	d = m.job[3].delta;
	assert_false(d[KSCEN_DELTA_BASELINE].present);
	assert_false(d[KSCEN_DELTA_PREVIOUS].present);

	d = m.job[5].delta;
	assert_true(d[KSCEN_DELTA_BASELINE].present);
	assert_num_equal(d[KSCEN_DELTA_BASELINE].c.old, 0, 0);
	assert_true(isnan(d[KSCEN_DELTA_BASELINE].c.rel));
	assert_true(isnan(d[KSCEN_DELTA_BASELINE].q));
	assert_int_equal(d[KSCEN_DELTA_BASELINE].c.verdict, KSCEN_SAME);
	/* the one family member: a/x=1 to a/x=0 */
	assert_int_equal(m.fam[KSCEN_FAM_WITHIN].m, 1);
	assert_int_equal(m.fam[KSCEN_FAM_WITHIN].found, 1);
	assert_int_equal(m.nr_status[KSCEN_FAILED], 1);
	kscen_report_model_free(&m);
	kscen_run_free(r);
}

/*
 * A q-value exactly at KSCEN_FDR is found: five jobs each 10% slower in
 * all 6 rounds (signed-rank p = 2/64) and three like their baseline make
 * a family of 8, where BH gives the five q = 2/64 x 8 / 5 = 0.05.
 */
void test_report_model_q_at_the_fdr_is_found(void **state)
{
	static const double mixed[6] = { 100, 99, 101, 100, 98, 102 };
	struct kscen_run *r = bare_run();
	struct kscen_report_model m;
	char id[16];

	(void)state;
	job(r, "a/x=0", "0", KSCEN_OK, 1, "usecs", "a/x=0", NULL);
	for (unsigned k = 1; k <= 8; k++) {
		struct kscen_metric *mt;

		snprintf(id, sizeof(id), "a/x=%u", k);
		job(r, id, id + 4, KSCEN_OK, 1, "usecs", "a/x=0", NULL);
		mt = &r->jobs[k].metrics[0];
		for (unsigned i = 0; i < 6; i++)	/* differences all > 0, no tie */
			mt->samples[i] = k <= 5 ? around[i] * (1.1 + 0.001 * i) : mixed[i];
		kscen_summarize(mt->samples, mt->nr_samples, &mt->sum);
	}
	kscen_report_model_build(r, NULL, &m);
	for (unsigned k = 1; k <= 5; k++) {
		const struct kscen_report_delta *d = &m.job[k].delta[KSCEN_DELTA_BASELINE];

		assert_true(d->c.paired);
		assert_true(d->c.p == 2.0 / 64);
		assert_int_equal(d->c.verdict, KSCEN_WORSE);
		assert_true(d->q == KSCEN_FDR);
	}
	assert_int_equal(m.fam[KSCEN_FAM_WITHIN].m, 8);
	assert_int_equal(m.fam[KSCEN_FAM_WITHIN].changed, 5);
	assert_int_equal(m.fam[KSCEN_FAM_WITHIN].found, 5);
	kscen_report_model_free(&m);
	kscen_run_free(r);
}

/* Cause kinds of 21 to 23 letters: six make a causes text of 159 or 160 bytes. */
#define A21 "aaaaaaaaaaaaaaaaaaaaa"
#define B21 "bbbbbbbbbbbbbbbbbbbbb"
#define C21 "ccccccccccccccccccccc"
#define D21 "ddddddddddddddddddddd"
#define E22 "eeeeeeeeeeeeeeeeeeeeee"
#define F22 "ffffffffffffffffffffff"
#define F23 "fffffffffffffffffffffff"

/*
 * The causes text holds 159 bytes and a NUL: six causes of exactly that
 * length are all said; one letter more and the last is left out whole,
 * the parenthesis closed, never a cause cut short. The longest cause is
 * said whole.
 */
void test_report_model_noise_causes_fit_whole(void **state)
{
	static const char *const fits[] = {
		A21 " 1%", B21 " 1%", C21 " 1%", D21 " 1%", E22 " 1%", F22 " 1%",
	};
	static const char *const over[] = {
		A21 " 1%", B21 " 1%", C21 " 1%", D21 " 1%", E22 " 1%", F23 " 1%",
	};
	/* the longest a cause can be: 23 letters, up to, 15 digits, 11 of unit */
	static const char *const longest[] = {
		F23 " 1 abcdefghij", F23 " 123456789012345 abcdefghij", NULL, NULL, NULL, NULL,
	};
	struct kscen_run *r = bare_run();
	struct kscen_report_model m;

	(void)state;
	job(r, "a/x=0", "0", KSCEN_OK, 1, "usecs", NULL, NULL);
	job(r, "b/x=0", "0", KSCEN_OK, 1, "usecs", NULL, NULL);
	job(r, "c/x=0", "0", KSCEN_OK, 1, "usecs", NULL, NULL);
	noise(&r->jobs[0], "flag", 6, fits, NULL, false);
	noise(&r->jobs[1], "flag", 6, over, NULL, false);
	noise(&r->jobs[2], "flag", 6, longest, NULL, false);
	kscen_report_model_build(r, NULL, &m);
	assert_string_equal(m.job[0].noise, "6 of 6 samples disturbed (" A21 " 1%, "
			    B21 " 1%, " C21 " 1%, " D21 " 1%, " E22 " 1%, " F22 " 1%), "
			    "kept (noise: flag)");
	assert_string_equal(m.job[1].noise, "6 of 6 samples disturbed (" A21 " 1%, "
			    B21 " 1%, " C21 " 1%, " D21 " 1%, " E22 " 1%), kept (noise: flag)");
	assert_string_equal(m.job[2].noise, "2 of 6 samples disturbed (" F23 " up to "
			    "123456789012345 abcdefghij), kept (noise: flag)");
	kscen_report_model_free(&m);
	kscen_run_free(r);
}
