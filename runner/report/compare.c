// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - stored runs side by side ("kscen compare OLD NEW", and
 * "kscen compare A B C ..." each against the first, as mmtests'
 * compare-kernels) and the regression gate (--gate PCT on run and compare).
 *
 * The table is benchstat's: a table a job entry of the scenario, the
 * median of each run with its CI (the header says n and the CI's true
 * confidence), the change against the first run with its CI, "~" when it
 * is not significant, and a geometric-mean row; jobs in one run only are
 * listed as such. The environment difference comes first, because a
 * changed kernel command line or governor explains more regressions than
 * patches. Runs are different rounds, so nothing is paired here, and every
 * change allows for the jobs' run-to-run drift where the history has it
 * (history.c). The numbers are the comparison's (compare_model.c); this
 * file prints it as text and hands it to mail.c and markdown.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "emit.h"
#include "envdiff.h"
#include "store/history.h"
#include "lib/util.h"
#include "report.h"
#include "profile_report.h"

/* ---- Text ---------------------------------------------------------------- */

/* "-10.5% [-42.3% .. +25.8%] ~": a change without its parenthesis. */
static void short_change(const struct kscen_change *ch, double q, char *buf,
			 size_t len)
{
	char *paren;

	kscen_format_change(ch, q, buf, len);
	paren = strstr(buf, " (");
	if (paren && ch->ci_valid)
		*paren = '\0';
}

/* One job entry's table: a row a job, then the geomean row. */
static void text_entry(FILE *out, const struct kscen_cmp *c,
		       const struct kscen_report_entry *e, unsigned idw)
{
	const struct kscen_run *base = c->run[0];
	struct kscen_table t;
	struct kscen_num st;
	unsigned cols = 1 + 2 * c->nr + (c->nr - 1), r;
	char note[192], val[64], ci[64], chg[256];
	double *g;

	const struct kscen_metric *m0 = kscen_cmp_entry_style(c, e, &st);

	kscen_cmp_entry_note(c, e, true, note, sizeof(note));
	fprintf(out, "\n## %s: %s\n", kscen_str(base->jobs[e->first].name), note);
	kscen_table_init(&t, cols);
	/* job | value ci | value ci change | ... */
	for (unsigned k = 0, col = 1; k < c->nr; k++) {
		t.col[col].right = t.col[col + 1].right = true;
		t.col[col + 1].gap = 1;
		t.col[col + 1].joined = true;
		col += 2;
		if (k)
			t.col[col++].gap = 2;
	}
	r = kscen_table_row(&t);
	kscen_table_set(&t, r, 0, "%-*s", (int)idw, "job");
	for (unsigned k = 0, col = 1; k < c->nr; k++) {
		kscen_table_set(&t, r, col, "%s", c->name[k]);
		col += 2;
		if (k)
			kscen_table_set(&t, r, col++, "change");
	}
	for (unsigned i = e->first; i <= e->last; i++) {
		r = kscen_table_row(&t);
		kscen_table_set(&t, r, 0, "%s", kscen_str(base->jobs[i].id));
		for (unsigned k = 0, col = 1; k < c->nr; k++) {
			const struct kscen_cmp_cell *x = kscen_cmp_cell(c, i, k);

			kscen_cmp_value(c, i, k, m0, &st, val, ci, sizeof(val));
			kscen_table_set(&t, r, col, "%s", val);
			kscen_table_set(&t, r, col + 1, "%s", ci);
			col += 2;
			if (!k)
				continue;
			*chg = '\0';
			if (x->d && c->nr == 2)
				kscen_format_change(&x->d->c, x->d->q, chg, sizeof(chg));
			else if (x->d)
				short_change(&x->d->c, x->d->q, chg, sizeof(chg));
			kscen_table_set(&t, r, col++, "%s", chg);
		}
	}
	/* benchstat's summary row: the ratio of geometric means, no CI. */
	g = kscen_cmp_geomean(c, e);
	if (g) {
		r = kscen_table_row(&t);
		kscen_table_set(&t, r, 0, "geomean");
		for (unsigned k = 0, col = 1; k < c->nr; k++) {
			kscen_format_num(&st, g[k], false, val, sizeof(val));
			kscen_table_set(&t, r, col, "%s", val);
			col += 2;
			if (k)
				kscen_table_set(&t, r, col++, "%+.1f%%",
						100 * (g[k] / g[0] - 1));
		}
	}
	free(g);
	kscen_table_print(out, &t, NULL, "");
	kscen_table_free(&t);
}

static void text_line(void *out, const char *line, bool summary)
{
	fprintf(out, "%s%s\n", summary ? "# " : "", line);
}

static void text_compare(FILE *out, const struct kscen_cmp *c)
{
	const struct kscen_run *base = c->run[0];
	const struct kscen_report_model *rm0 = &c->rm[0];
	unsigned idw = 3;
	char line[256];

	for (unsigned k = 0; k < c->nr; k++) {
		const struct kscen_run *r = c->run[k];

		fprintf(out, "# %s: %s (%s%s%s, load %s)\n", c->name[k], kscen_str(r->path),
			kscen_str(r->started), r->label ? ", label " : "", kscen_str(r->label),
			r->system.loadavg ? r->system.loadavg : "?");
	}
	for (unsigned k = 1; k < c->nr; k++) {
		if (strcmp(kscen_str(base->scenario), kscen_str(c->run[k]->scenario)))
			fprintf(out, "# different scenarios: %s and %s: no job compared\n",
				kscen_str(base->scenario), kscen_str(c->run[k]->scenario));
		if (c->nr > 2)
			fprintf(out, "# %s against %s:\n", c->name[k], c->name[0]);
		kscen_env_diff_print(out, base, c->run[k], "# ");
	}
	fprintf(out, "# change: the new median against the %s run's level (with "
		"the runs before it\n# since their last change point, in its "
		"directory), [95%% prediction interval]\n# allowing for their "
		"run-to-run drift; ~ when not significant, cannot tell\n# "
		"without a run-to-run estimate\n", c->nr == 2 ? "old" : "first");
	for (unsigned i = 0; i < base->nr_jobs; i++)
		if (kscen_text_cols(base->jobs[i].id) > idw)
			idw = kscen_text_cols(base->jobs[i].id);
	for (unsigned e = 0; e < rm0->nr_entries; e++)
		text_entry(out, c, &rm0->entry[e], idw);
	kscen_cmp_too_few(c->rm + 1, c->nr - 1, line, sizeof(line));
	fputc('\n', out);
	if (*line)
		fprintf(out, "%s\n", line);
	kscen_cmp_counts(c, text_line, out);
	for (unsigned k = 1; k < c->nr; k++)
		kscen_profile_compare(out, base, c->run[k]);	/* profile_report.h */
}

void kscen_compare_print(FILE *out, const struct kscen_run *const *runs,
			 const struct kscen_refs *refs, unsigned nr,
			 enum kscen_format fmt)
{
	struct kscen_cmp c;

	if (nr < 2)
		return;
	/* JSON and CSV: each later run's own report, against the first. */
	if (fmt == KSCEN_FMT_JSON || fmt == KSCEN_FMT_CSV) {
		kscen_report_runs(out, runs + 1, refs + 1, nr - 1, fmt);
		return;
	}
	kscen_cmp_build(&c, runs, refs, nr);
	if (fmt == KSCEN_FMT_MAIL)
		compare_mail(out, &c);
	else if (fmt == KSCEN_FMT_MARKDOWN)
		compare_markdown(out, &c);
	else
		text_compare(out, &c);
	kscen_cmp_free(&c);
}

/* ---- The gate ------------------------------------------------------------ */

/* "gate 5%", "gate q<=0.05", "gate 5%, q<=0.05" */
static void gate_name(char *buf, size_t len, double pct, double fdr)
{
	if (pct > 0 && fdr > 0)
		snprintf(buf, len, "gate %g%%, q<=%g", pct, fdr);
	else if (fdr > 0)
		snprintf(buf, len, "gate q<=%g", fdr);
	else
		snprintf(buf, len, "gate %g%%", pct);
}

int kscen_gate(FILE *out, const struct kscen_run *new_,
	       const struct kscen_refs *refs, double pct, double fdr)
{
	struct kscen_report_model rm;
	unsigned i, bad = 0, checked = 0, unknown = 0;
	char chg[192], name[64];

	gate_name(name, sizeof(name), pct, fdr);
	kscen_report_model_build(new_, refs, &rm);
	for (i = 0; refs && i < new_->nr_jobs; i++) {
		const struct kscen_report_delta *d = &rm.job[i].delta[KSCEN_DELTA_REF];
		const struct kscen_change *c = &d->c;

		if (!d->present)
			continue;
		checked++;
		if (c->verdict == KSCEN_CANNOT_TELL) {
			unknown++;
			continue;
		}
		if (c->verdict != KSCEN_WORSE ||
		    (pct > 0 && !kscen_change_beyond(c, rm.job[i].primary->better, pct)) ||
		    (fdr > 0 && !(d->q <= fdr)))
			continue;
		if (!bad++ && pct > 0)
			fprintf(out, "# %s: FAILED: worse by more than %g%% with the "
				"whole interval beyond it%s:\n", name, pct,
				fdr > 0 ? ", and q-value within the gate" : "");
		else if (bad == 1)
			fprintf(out, "# %s: FAILED: worse with a q-value of at most %g:\n",
				name, fdr);
		kscen_format_change(c, d->q, chg, sizeof(chg));
		fprintf(out, "#   %s: %s\n", kscen_str(new_->jobs[i].id), chg);
	}
	/*
	 * No "no job alone can pass q<=Q" warning, unlike the report's
	 * in-run families: a change between runs takes its p from Student's
	 * t against the drift (drift.c), which has no floor (p_min 0), so
	 * the correction never puts a gate out of reach.
	 */
	kscen_report_model_free(&rm);
	if (!checked) {
		fprintf(out, "gate: nothing compared: %s\n",
			!refs || !refs->asked ? "no reference run (--compare none)" :
			!refs->main && !refs->own ? "no earlier run holds these jobs" :
			"no job of this run matches one of the reference");
		return KSCEN_GATE_NOTHING;
	}
	if (bad)
		return bad;
	if (unknown) {
		fprintf(out, "# %s: cannot tell: %u of %u job%s no run-to-run "
			"estimate (kscen calibrate)\n", name, unknown, checked,
			unknown == 1 ? " has" : "s have");
		return KSCEN_GATE_CANNOT_TELL;
	}
	fprintf(out, "# %s: passed (%u job%s checked against %s)\n", name, checked,
		checked == 1 ? "" : "s",
		refs->main ? kscen_str(refs->main->path) :
		refs->own ? kscen_str(refs->own->path) : "?");
	return 0;
}
