// SPDX-License-Identifier: GPL-2.0
/*
 * markdown.c - a run, or runs compared, as markdown tables, for patch
 * mails and web pages: one table a job entry, its deltas with "~" where not
 * significant; a comparison has old | new | change, each median with its
 * CI. The numbers are the report model's (model.c) and the comparison's
 * (compare.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
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
		kscen_format_change(&d->c, d->q, buf, sizeof(buf));
	md_cell(out, buf);
}

/* The coverage of the within-run intervals shown: "96.8%", "95% to 98.4%". */
static void md_change_levels(const struct kscen_report_model *rm, char *buf,
			     size_t len)
{
	double lo = INFINITY, hi = -INFINITY;

	for (unsigned i = 0; i < rm->run->nr_jobs; i++)
		for (unsigned k = 0; k < KSCEN_DELTA_REF; k++) {
			const struct kscen_report_delta *d = &rm->job[i].delta[k];

			if (d->present && d->c.ci_valid && isfinite(d->c.level)) {
				lo = fmin(lo, d->c.level);
				hi = fmax(hi, d->c.level);
			}
		}
	if (!isfinite(lo))
		snprintf(buf, len, "at least 95%%");
	else if (lo == hi)
		snprintf(buf, len, "%.3g%%", lo);
	else
		snprintf(buf, len, "%.3g%% to %.3g%%", lo, hi);
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

/* "### thread (`breakpoint.thread`): lower is better, n=5, 93.8% CI" */
static void md_title(FILE *out, const struct kscen_report_model *rm,
		     const struct kscen_report_entry *e)
{
	const struct kscen_job_result *j0 = &rm->run->jobs[e->first];
	char n[128];

	report_entry_note(rm, e, n, sizeof(n));
	fprintf(out, "\n### %s (`%s`): %s\n\n", str(j0->name), str(j0->workload), n);
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
	unsigned nk = e->nr_params, fixed = 0;
	char lvl[32];

	md_title(out, rm, e);
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
	char when[64], line[8][REPORT_LINE], lvl[48], few[256], why[128];
	unsigned n;

	report_partial_why(run, why, sizeof(why));
	fprintf(out, "**kscen %s**: scenario `%s`, %u job%s, repeat %u (warmup %u)%s%s  \n",
		run->version ? run->version : KSCEN_VERSION, str(run->scenario),
		run->nr_jobs, run->nr_jobs == 1 ? "" : "s", run->repeat, run->warmup,
		run->partial ? ", partial: " : "", run->partial ? why : "");
	fprintf(out, "%s %s, %s, %ld CPUs", str(sys->kernel), str(sys->arch),
		str(sys->cpu_model), sys->nr_cpus);
	if (refs && refs->main) {
		report_short_time(refs->main->started, when, sizeof(when));
		fprintf(out, "; \"vs ref\" is against the run of %s%s%s (kernel %s)",
			when, refs->main->label ? ", label " : "",
			str(refs->main->label), str(refs->main->system.kernel));
	}
	md_change_levels(rm, lvl, sizeof(lvl));
	fprintf(out, "  \nChanges: within the run the Hodges-Lehmann estimate "
		"[its interval, %s] (Mann-Whitney U; Wilcoxon signed-rank on pairs "
		"of rounds); between runs the new median against the level of the "
		"reference's stable segment [95%% prediction interval]; ~ when not "
		"significant, q: Benjamini-Hochberg", lvl);
	/* What differs from the reference's machine comes before the jobs. */
	if (refs && refs->main) {
		fputs("\n\n", out);
		kscen_env_diff_print(out, refs->main, run, "    ");
		fputc('\n', out);
	}
	fputc('\n', out);
	for (unsigned e = 0; e < rm->nr_entries; e++)
		md_entry(out, rm, &rm->entry[e]);
	kscen_cmp_too_few(rm, 1, few, sizeof(few));
	if (*few)
		fprintf(out, "\n%s\n", few);
	n = report_footer(rm, line, 8);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%s%s%s", i ? "  \n" : "\n", line[i], i + 1 == n ? "\n" : "");
	if (*rm->noise)
		fprintf(out, "\nNoise: %s.\n", rm->noise);
	kscen_profile_markdown(out, run);	/* profile_report.h */
}

/* ---- Runs compared ------------------------------------------------------ */

static void md_line(void *out, const char *line, bool summary)
{
	fprintf(out, "%s%s  \n", summary ? "" : "- ", line);
}

/* Entry @e of a comparison: old | new | change, a column a run. */
static void md_cmp_entry(FILE *out, const struct kscen_cmp *c,
			 const struct kscen_report_entry *e)
{
	const struct kscen_run *base = c->run[0];
	const struct kscen_job_result *j0 = &base->jobs[e->first];
	const struct kscen_metric *m0;
	unsigned nk = e->nr_params, fixed = 0;
	struct kscen_num st;
	char note[256], val[64], ci[64], chg[256];
	double *g = kscen_cmp_geomean(c, e);

	m0 = kscen_cmp_entry_style(c, e, &st);
	kscen_cmp_entry_note(c, e, true, note, sizeof(note));
	fprintf(out, "\n### %s (`%s`): %s\n\n", str(j0->name), str(j0->workload), note);
	for (unsigned k = 0; k < nk; k++)
		if (!e->varies[k])
			fprintf(out, "%s`%s=%s`", fixed++ ? ", " : "In every job: ",
				str(j0->keys[k]), str(j0->values[k]));
	if (fixed)
		fputs("\n\n", out);
	for (unsigned k = 0; k < nk; k++)
		if (e->varies[k])
			md_cell(out, j0->keys[k]);
	if (!nk || !memchr(e->varies, true, nk))
		md_cell(out, "job");
	for (unsigned k = 0; k < c->nr; k++) {
		md_cell(out, c->name[k]);
		if (k)
			md_cell(out, "change");
	}
	fputs("|\n|", out);
	for (unsigned k = 0; k < nk; k++)
		if (e->varies[k])
			fputs("---|", out);
	if (!nk || !memchr(e->varies, true, nk))
		fputs("---|", out);
	for (unsigned k = 0; k < c->nr; k++)
		fputs(k ? "---:|---|" : "---:|", out);
	fputc('\n', out);
	for (unsigned i = e->first; i <= e->last + 1; i++) {
		bool geo = i > e->last;

		if (geo && !g)
			break;
		for (unsigned k = 0, first = 1; k < nk; k++)
			if (e->varies[k]) {
				md_cell(out, geo ? (first ? "geomean" : "") :
					k < base->jobs[i].nr_kv ? base->jobs[i].values[k] : NULL);
				first = 0;
			}
		if (!nk || !memchr(e->varies, true, nk))
			md_cell(out, geo ? "geomean" : base->jobs[i].id);
		for (unsigned k = 0; k < c->nr; k++) {
			if (geo) {
				kscen_format_num(&st, g[k], false, val, sizeof(val));
				md_cell(out, val);
				snprintf(chg, sizeof(chg), "%+.1f%%", 100 * (g[k] / g[0] - 1));
				if (k)
					md_cell(out, chg);
				continue;
			}
			kscen_cmp_value(c, i, k, m0, &st, val, ci, sizeof(val));
			snprintf(chg, sizeof(chg), "%s%s%s", val, *ci ? " " : "", ci);
			md_cell(out, chg);
			if (k) {
				const struct kscen_cmp_cell *x = kscen_cmp_cell(c, i, k);

				*chg = '\0';
				if (x->d)
					kscen_format_change(&x->d->c, x->d->q, chg, sizeof(chg));
				md_cell(out, chg);
			}
		}
		fputs("|\n", out);
	}
	free(g);
}

void compare_markdown(FILE *out, const struct kscen_cmp *c)
{
	const struct kscen_run *base = c->run[0];
	char line[512];

	fprintf(out, "**kscen %s**: compare, scenario `%s`  \n",
		base->version ? base->version : KSCEN_VERSION, str(base->scenario));
	for (unsigned k = 0; k < c->nr; k++) {
		kscen_cmp_run_line(c, k, line, sizeof(line));
		fprintf(out, "%s, `%s`  \n", line, str(c->run[k]->path));
	}
	fprintf(out, "Changes: the median against the level of %s's stable segment "
		"of history [95%% prediction interval], ~ when not significant, "
		"cannot tell without a run-to-run estimate\n", c->name[0]);
	for (unsigned k = 1; k < c->nr; k++) {
		fputc('\n', out);
		if (c->nr > 2)
			fprintf(out, "%s against %s:\n\n", c->name[k], c->name[0]);
		kscen_env_diff_print(out, base, c->run[k], "    ");
	}
	for (unsigned e = 0; e < c->rm[0].nr_entries; e++)
		md_cmp_entry(out, c, &c->rm[0].entry[e]);
	fputc('\n', out);
	kscen_cmp_too_few(c->rm + 1, c->nr - 1, line, sizeof(line));
	if (*line)
		fprintf(out, "%s  \n", line);
	kscen_cmp_counts(c, md_line, out);
}
