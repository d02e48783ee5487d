// SPDX-License-Identifier: GPL-2.0
/*
 * report_md.c - a run as markdown tables, for patch mails and web pages:
 * one table a job entry, its deltas with "~" where not significant.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "envdiff.h"
#include "util.h"
#include "report.h"
#include "profile_report.h"
#include "report_emit.h"

/* ---- Markdown ---------------------------------------------------------- */

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

static void md_change(FILE *out, const struct kscen_change *c, bool have)
{
	char buf[192] = "";

	if (have)
		kscen_format_change(c, buf, sizeof(buf));
	md_cell(out, buf);
}

static void md_job(FILE *out, const struct kscen_run *run,
		   const struct kscen_refs *refs, unsigned ji)
{
	const struct kscen_job_result *j = &run->jobs[ji];
	char status[KSCEN_REASON_MAX + 16], ci[32];
	const struct kscen_metric *m;
	struct kscen_change c;
	unsigned i, rows;

	snprintf(status, sizeof(status), "%s%s%s", report_status_name(j->status),
		 j->reason ? ": " : "", str(j->reason));
	rows = j->status == KSCEN_OK && j->nr_metrics ? j->nr_metrics : 1;
	for (i = 0; i < rows; i++) {
		m = j->status == KSCEN_OK && j->nr_metrics ? &j->metrics[i] :
							     NULL;
		md_cell(out, j->id);
		md_cell(out, m ? m->name : NULL);
		md_num(out, "%.6g", m ? m->sum.median : 0, m && m->nr_samples);
		md_cell(out, m ? m->unit : NULL);
		ci[0] = '\0';
		if (m && m->nr_samples)
			kscen_format_ci(m, ci, sizeof(ci));
		md_cell(out, ci);
		md_num(out, "%.1f%%", m ? 100 * m->sum.cv : 0, m && m->nr_samples);
		/* Deltas are for the primary metric, as in the text report. */
		md_change(out, &c, !i && report_ref_change(run, j, j->baseline, &c));
		md_change(out, &c, !i && report_ref_change(run, j, j->previous, &c));
		md_change(out, &c, !i && report_last_change(refs, run, ji, &c));
		md_cell(out, status);
		fputs("|\n", out);
	}
}

void report_markdown(FILE *out, const struct kscen_run *run,
		     const struct kscen_refs *refs)
{
	const struct kscen_system *sys = &run->system;
	char when[64];
	unsigned i;

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
	fprintf(out, "\n\n| job | metric | median | unit | 95%% CI | CV "
		"| to baseline | to previous | vs ref | status |\n"
		"|---|---|---:|---|---:|---:|---:|---:|---:|---|\n");
	for (i = 0; i < run->nr_jobs; i++)
		md_job(out, run, refs, i);
	kscen_profile_markdown(out, run);	/* profile_report.h */
}
