// SPDX-License-Identifier: GPL-2.0
/*
 * text.c - a run's report for the terminal, the default: it reads like perf
 * bench, a block a job with its median in a unit people read, "to baseline"
 * and "to previous" deltas as perf bench uprobe prints them, then each
 * delta with its 95% CI, p-value and verdict, "~" when not significant,
 * like benchstat, and the change against the reference run. The numbers
 * are the report model's (model.c); this file only prints them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "envdiff.h"
#include "profile_report.h"
#include "store/store.h"
#include "lib/util.h"

/*
 * How a reference is named: by its label ("v6.8-rc1"), by its kernel when
 * that differs ("6.1.0-47-amd64"), else "last run"; @date adds when it ran
 * (for the jobs whose reference is not the one named at the top).
 */
static void ref_name(const struct kscen_run *run, const struct kscen_run *ref,
		     bool date, char *buf, size_t len)
{
	char when[40];

	report_short_time(ref->started, when, sizeof(when));
	if (ref->label)
		snprintf(buf, len, "%s", ref->label);
	else if (strcmp(str(ref->system.kernel), str(run->system.kernel)) ||
		 strcmp(str(ref->system.kernel_build), str(run->system.kernel_build)))
		snprintf(buf, len, "%s", str(ref->system.kernel));
	else
		snprintf(buf, len, "last run");
	if (date && strlen(buf) + strlen(when) + 4 <= len)
		sprintf(buf + strlen(buf), " (%s)", when);
}

/* The reference, once for the run: what it is, and how its machine differs. */
static void text_reference(FILE *out, const struct kscen_run *run,
			   const struct kscen_refs *refs)
{
	const struct kscen_run *m;
	char when[64];

	if (!refs || !refs->asked)
		return;
	m = refs->main;
	if (!m) {
		fprintf(out, "# reference: none: no earlier complete run holds these jobs\n");
		return;
	}
	report_short_time(m->started, when, sizeof(when));
	fprintf(out, "# reference: %s%s%s, kernel %s, %s\n", when,
		m->label ? ", label " : "", m->label ? m->label : "",
		str(m->system.kernel), str(m->path));
	if (refs->compared < run->nr_jobs)
		fprintf(out, "#   %u of %u jobs have a reference\n", refs->compared,
			run->nr_jobs);
	kscen_env_diff_print(out, m, run, "# ");
}

/*
 * The hint, once: where drift between runs hides changes over 5%, an
 * interleaved comparison inside one run sees them.
 */
static void text_hint(FILE *out, const struct kscen_report_model *rm)
{
	if (rm->drift_hides <= 0.05)
		return;
	fprintf(out, "\n# between runs, changes under %.0f%% cannot be told from "
		"run-to-run drift here\n# (kscen calibrate); for a sharper answer "
		"put both variants in one scenario,\n# as an axis with a "
		"baseline: their rounds are then interleaved\n", 100 * rm->drift_hides);
}

/* ", converged after 12" / ", did not converge: ±7.2% after max 30" */
static void convergence(const struct kscen_run *run,
			const struct kscen_job_result *j,
			const struct kscen_metric *m, char *buf, size_t len)
{
	buf[0] = '\0';
	if (j->converged < 0)
		return;
	if (j->converged)
		snprintf(buf, len, ", converged after %u", m->nr_samples);
	else if (isfinite(kscen_ci_halfwidth(&m->sum)) &&
		 kscen_median_ci_rank(m->nr_samples))
		snprintf(buf, len, ", did not converge: ±%.1f%% after max %u",
			 kscen_ci_halfwidth(&m->sum), m->nr_samples);
	else
		snprintf(buf, len, ", did not converge after max %u",
			 run->max_repeat ? run->max_repeat : m->nr_samples);
}

/* ---- Text -------------------------------------------------------------- */

static void text_summary(FILE *out, const struct kscen_run *run,
			 const struct kscen_job_result *j,
			 const struct kscen_metric *m)
{
	char conv[96];

	double hw = kscen_ci_halfwidth(&m->sum);

	fprintf(out, "   (median of %u", m->nr_samples);
	if (m->nr_samples >= 2 && isfinite(hw))
		fprintf(out, ", %.3g%% CI ±%.1f%%", report_ci_level(m->nr_samples), hw);
	if (isfinite(m->sum.cv))
		fprintf(out, ", CV %.1f%%", 100 * m->sum.cv);
	if (m->sum.outliers)
		fprintf(out, ", %u outlier%s", m->sum.outliers,
			m->sum.outliers > 1 ? "s" : "");
	convergence(run, j, m, conv, sizeof(conv));
	fprintf(out, "%s)\n", conv);
	if (m->sum.bimodal)
		fprintf(out, "     warning: bimodal samples (%g .. %g): the median "
			"hides two modes\n", m->sum.min, m->sum.max);
}

/* "     23.6 ms (wall_time)": scaled, digits from its CI, no newline. */
static void text_value(FILE *out, const struct kscen_metric *m,
		       const struct kscen_num *st)
{
	char num[64], lbl[128];

	kscen_format_num(st, m->sum.median, false, num, sizeof(num));
	kscen_metric_label(m, st, lbl, sizeof(lbl));
	fprintf(out, "     %14s %s", num, lbl);
}

static void text_job(FILE *out, const struct kscen_report_model *rm, unsigned ji)
{
	const struct kscen_run *run = rm->run;
	const struct kscen_report_job *rj = &rm->job[ji];
	const struct kscen_job_result *j = rj->job;
	const struct kscen_metric *m = rj->primary;
	const struct kscen_report_delta *b = &rj->delta[KSCEN_DELTA_BASELINE];
	const struct kscen_report_delta *p = &rj->delta[KSCEN_DELTA_PREVIOUS];
	const struct kscen_report_delta *r = &rj->delta[KSCEN_DELTA_REF];
	char chg[192], when[64], num[64];
	const char *d0, *nl;
	unsigned i;

	fprintf(out, "# Running %s/%s\n", str(run->scenario), str(j->id));
	for (d0 = j->describe; d0; d0 = nl ? nl + 1 : NULL) {
		nl = strchr(d0, '\n');
		fprintf(out, "# %.*s\n", nl ? (int)(nl - d0) : (int)strlen(d0),
			d0);
	}
	if (j->status != KSCEN_OK) {
		fprintf(out, "     %s: %s\n",
			rj->status == KSCEN_SKIPPED ? "skipped" : "FAILED",
			j->reason ? j->reason : "no reason given");
		return;
	}
	if (!m) {
		fprintf(out, "     no samples\n");
		if (*rj->noise)
			fprintf(out, "     %s\n", rj->noise);
		return;
	}
	text_value(out, m, &rj->num[0]);
	/*
	 * perf bench uprobe's absolute deltas, in the unit and digits of the
	 * value, then the honest ones below.
	 */
	if (b->present) {
		kscen_format_delta(&rj->num[0], b->c.new_ - b->c.old, num, sizeof(num));
		fprintf(out, " %s to baseline", num);
	}
	if (p->present) {
		kscen_format_delta(&rj->num[0], p->c.new_ - p->c.old, num, sizeof(num));
		fprintf(out, " %s to previous", num);
	}
	text_summary(out, run, j, m);
	if (*rj->noise)
		fprintf(out, "     %s\n", rj->noise);

	for (i = 1; i < j->nr_metrics; i++) {
		if (!j->metrics[i].nr_samples)
			continue;
		text_value(out, &j->metrics[i], &rj->num[i]);
		fputc('\n', out);
	}
	if (b->present) {
		kscen_format_change(&b->c, chg, sizeof(chg));
		fprintf(out, "     to baseline: %s\n", chg);
	}
	/* The second of a two-value axis: one line says both. */
	if (p->present && !(b->present && !strcmp(j->baseline, j->previous))) {
		kscen_format_change(&p->c, chg, sizeof(chg));
		fprintf(out, "     to previous: %s\n", chg);
	}
	if (r->present) {
		kscen_format_change(&r->c, chg, sizeof(chg));
		ref_name(run, rj->ref, rj->ref != rm->refs->main, when, sizeof(when));
		fprintf(out, "     vs %s: %s\n", when, chg);
	}
	kscen_profile_job_report(out, run, j, false);	/* profile_report.h */
}

void report_text(FILE *out, const struct kscen_report_model *rm)
{
	const struct kscen_run *run = rm->run;
	const struct kscen_system *sys = &run->system;
	unsigned i;

	fprintf(out, "# kscen %s: scenario %s, %u job%s, repeat %u (warmup %u)",
		run->version ? run->version : KSCEN_VERSION, str(run->scenario),
		run->nr_jobs, run->nr_jobs == 1 ? "" : "s", run->repeat, run->warmup);
	if (run->until_ci > 0)
		fprintf(out, ", auto: until ±%g%% or %u", run->until_ci,
			run->max_repeat);
	fprintf(out, "\n# %s %s, %s, %ld CPUs\n", str(sys->kernel),
		str(sys->arch), sys->cpu_model ? sys->cpu_model : "unknown CPU",
		sys->nr_cpus);
	if (run->label)
		fprintf(out, "# label: %s\n", run->label);
	if (run->shard && run->shard_balance)
		fprintf(out, "# shard: %s (balanced by the job durations of %s)\n",
			run->shard, run->shard_balance);
	else if (run->shard)
		fprintf(out, "# shard: %s\n", run->shard);
	if (run->nr_shards)
		kscen_shards_print(out, run);
	if (run->partial) {
		char why[128];

		report_partial_why(run, why, sizeof(why));
		fprintf(out, "# partial: %s\n", why);
	}
	if (run->test_hooks)
		fprintf(out, "# test hooks set, changing what is measured: %s\n",
			run->test_hooks);
	if (run->system_check)
		fprintf(out, "# system check: %s\n", run->system_check);
	text_reference(out, run, rm->refs);
	for (i = 0; i < run->nr_jobs; i++) {
		fputc('\n', out);
		text_job(out, rm, i);
	}
	fprintf(out, "\n# %u ok, %u skipped, %u failed\n", rm->nr_status[KSCEN_OK],
		rm->nr_status[KSCEN_SKIPPED], rm->nr_status[KSCEN_FAILED]);
	if (*rm->noise)
		fprintf(out, "# noise: %s\n", rm->noise);
	text_hint(out, rm);
}
