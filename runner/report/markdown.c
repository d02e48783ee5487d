// SPDX-License-Identifier: GPL-2.0
/*
 * markdown.c - a run as markdown tables, for patch mails and web pages:
 * one table a job entry, its deltas with "~" where not significant; the
 * numbers are the report model's (model.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "envdiff.h"
#include "profile_report.h"
#include "lib/util.h"

/* A table cell: a '|' would end it early, a newline the whole table. */
static void md_cell(FILE *out, const char *s)
{
	fputs("| ", out);
	for (s = str(s); *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else
			fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
	fputc(' ', out);
}

static void md_num(FILE *out, const char *fmt, double v, bool have)
{
	char buf[64] = "";

	if (have && isfinite(v))
		snprintf(buf, sizeof(buf), fmt, v);
	md_cell(out, buf);
}

/* A delta's cell; @d NULL: a row without deltas. */
static void md_change(FILE *out, const struct kscen_report_delta *d)
{
	char buf[192] = "";

	if (d && d->present)
		kscen_format_change(&d->c, buf, sizeof(buf));
	md_cell(out, buf);
}

/* The CI's coverage when every cell of the table has the same one, else 0. */
static double md_level(const struct kscen_run *run, unsigned first, unsigned last)
{
	double level = -1;

	for (unsigned i = first; i <= last; i++)
		for (unsigned k = 0; k < run->jobs[i].nr_metrics; k++) {
			const struct kscen_metric *m = &run->jobs[i].metrics[k];
			double l = report_ci_level(m->nr_samples);

			if (!m->nr_samples)
				continue;
			if (level >= 0 && l != level)
				return 0;
			level = l;
		}
	return level > 0 ? level : 0;
}

/*
 * One table a job entry: the parameters its jobs share above it, those
 * that vary as columns; a row a job and metric, the median in a unit people
 * read, the interval as [lo, hi] (the median's is not symmetric), the
 * header's CI label true for every cell.
 */
static void md_entry(FILE *out, const struct kscen_report_model *rm,
		     const struct kscen_report_entry *e)
{
	const struct kscen_run *run = rm->run;
	unsigned first = e->first, last = e->last;
	const struct kscen_job_result *j0 = &run->jobs[first];
	double level = md_level(run, first, last);
	const bool *varies = e->varies;
	unsigned nk = e->nr_params < 64 ? e->nr_params : 64, fixed = 0;
	char lvl[32];

	fprintf(out, "\n### %s (`%s`)\n\n", str(j0->name), str(j0->workload));
	for (unsigned k = 0; k < nk; k++) {
		if (!varies[k])
			fprintf(out, "%s`%s=%s`", fixed++ ? ", " : "In every job: ",
				str(j0->keys[k]), str(j0->values[k]));
	}
	if (fixed)
		fputs("\n\n", out);
	for (unsigned k = 0; k < nk; k++)
		if (varies[k])
			md_cell(out, j0->keys[k]);
	if (level)
		snprintf(lvl, sizeof(lvl), "%.3g%% CI", level);
	else
		snprintf(lvl, sizeof(lvl), "CI (coverage)");
	fprintf(out, "| metric | median | unit | %s | CV | to baseline | to previous "
		"| vs ref | status |\n|", lvl);
	for (unsigned k = 0; k < nk; k++)
		if (varies[k])
			fputs("---|", out);
	fputs("---|---:|---|---:|---:|---:|---:|---:|---|\n", out);

	for (unsigned ji = first; ji <= last; ji++) {
		const struct kscen_report_job *rj = &rm->job[ji];
		const struct kscen_job_result *j = rj->job;
		char status[KSCEN_REASON_MAX + 16], num[64], lo[64], hi[64], ci[160];
		unsigned rows = rj->num ? j->nr_metrics : 1;

		snprintf(status, sizeof(status), "%s%s%s", report_status_name(rj->status),
			 j->reason ? ": " : "", str(j->reason));
		for (unsigned i = 0; i < rows; i++) {
			const struct kscen_metric *m = rj->num ? &j->metrics[i] : NULL;
			struct kscen_num st = { .unit = "", .scale = 1 };

			for (unsigned k = 0; k < nk; k++)
				if (varies[k])
					md_cell(out, k < j->nr_kv ? j->values[k] : NULL);
			md_cell(out, m ? m->name : NULL);
			*num = *ci = '\0';
			if (m && m->nr_samples) {
				st = rj->num[i];
				kscen_format_num(&st, m->sum.median, false, num, sizeof(num));
				if (isfinite(m->sum.ci_lo) && isfinite(m->sum.ci_hi)) {
					kscen_format_num(&st, m->sum.ci_lo, false, lo, sizeof(lo));
					kscen_format_num(&st, m->sum.ci_hi, false, hi, sizeof(hi));
					snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
					if (!level)
						snprintf(ci + strlen(ci), sizeof(ci) - strlen(ci),
							 " (%.3g%%)", report_ci_level(m->nr_samples));
				}
			}
			md_cell(out, num);
			md_cell(out, m ? st.unit : NULL);
			md_cell(out, ci);
			md_num(out, "%.1f%%", m ? 100 * m->sum.cv : 0, m && m->nr_samples);
			/* Deltas are for the primary metric, as in the text report. */
			for (unsigned k = 0; k < KSCEN_NR_DELTAS; k++)
				md_change(out, i ? NULL : &rj->delta[k]);
			md_cell(out, status);
			fputs("|\n", out);
		}
	}
}

void report_markdown(FILE *out, const struct kscen_report_model *rm)
{
	const struct kscen_run *run = rm->run;
	const struct kscen_refs *refs = rm->refs;
	const struct kscen_system *sys = &run->system;
	char when[64];

	fprintf(out, "**kscen %s**: scenario `%s`, %u jobs, repeat %u (warmup %u)%s  \n",
		run->version ? run->version : KSCEN_VERSION,
		str(run->scenario), run->nr_jobs, run->repeat, run->warmup,
		run->partial ? ", cut short" : "");
	fprintf(out, "%s %s, %s, %ld CPUs", str(sys->kernel), str(sys->arch),
		str(sys->cpu_model), sys->nr_cpus);
	if (refs && refs->main) {
		report_short_time(refs->main->started, when, sizeof(when));
		fprintf(out, "; \"vs ref\" is against the run of %s%s%s (kernel %s)",
			when, refs->main->label ? ", label " : "",
			str(refs->main->label), str(refs->main->system.kernel));
	}
	fprintf(out, "  \nChanges: median ratio, [95%% CI], ~ when not significant "
		"(Mann-Whitney U; Wilcoxon signed-rank on pairs of rounds)");
	/* What differs from the reference's machine comes before the jobs. */
	if (refs && refs->main) {
		fputs("\n\n", out);
		kscen_env_diff_print(out, refs->main, run, "    ");
		fputc('\n', out);
	}
	fputc('\n', out);
	for (unsigned e = 0; e < rm->nr_entries; e++)
		md_entry(out, rm, &rm->entry[e]);
	if (*rm->noise)
		fprintf(out, "\nNoise: %s.\n", rm->noise);
	kscen_profile_markdown(out, run);	/* profile_report.h */
}
