// SPDX-License-Identifier: GPL-2.0
/*
 * compare_model.c - several stored runs side by side, computed once for
 * the emitters of a comparison (compare.c, mail.c, markdown.c): a cell a
 * job and run with its median, CI and change against the first run (the
 * later runs' report models, report/model.c), the columns' names, units,
 * geometric means, and what the footers say (the jobs not compared; when
 * no change can be significant, why).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "emit.h"
#include "store/history.h"
#include "lib/util.h"
#include "report.h"

/* Column names: old/new for two, else labels when short and distinct, else A, B, ... */
static void run_names(struct kscen_cmp *c)
{
	bool labels = c->nr > 2;

	for (unsigned k = 0; labels && k < c->nr; k++) {
		const char *l = c->run[k]->label;

		labels = l && *l && strlen(l) < sizeof(c->name[k]) &&
			 !strpbrk(l, " \t\r\n");
		for (unsigned q = 0; labels && q < k; q++)
			labels = strcmp(l, c->run[q]->label);
	}
	for (unsigned k = 0; k < c->nr; k++) {
		if (c->nr == 2)
			snprintf(c->name[k], sizeof(c->name[k]), "%s", k ? "new" : "old");
		else if (labels)
			snprintf(c->name[k], sizeof(c->name[k]), "%s", c->run[k]->label);
		else if (k < 26)
			snprintf(c->name[k], sizeof(c->name[k]), "%c", 'A' + k);
		else
			snprintf(c->name[k], sizeof(c->name[k]), "R%u", k + 1);
	}
}

void kscen_cmp_build(struct kscen_cmp *c, const struct kscen_run *const *runs,
		     const struct kscen_refs *refs, unsigned nr)
{
	const struct kscen_run *base = runs[0];

	memset(c, 0, sizeof(*c));
	c->nr = nr;
	c->run = runs;
	c->refs = refs;
	c->rm = kscen_xcalloc(nr, sizeof(*c->rm));
	c->name = kscen_xcalloc(nr, sizeof(*c->name));
	kscen_report_model_build(base, NULL, &c->rm[0]);
	for (unsigned k = 1; k < nr; k++)
		kscen_report_model_build(runs[k], &refs[k], &c->rm[k]);
	run_names(c);
	c->cell = kscen_xcalloc((size_t)base->nr_jobs * nr + 1, sizeof(*c->cell));
	for (unsigned i = 0; i < base->nr_jobs; i++)
		for (unsigned k = 0; k < nr; k++) {
			struct kscen_cmp_cell *x = &c->cell[(size_t)i * nr + k];
			const struct kscen_job_result *j = k ?
				kscen_run_find(runs[k], base->jobs[i].id) : &base->jobs[i];
			unsigned idx;

			if (!j)
				continue;
			idx = (unsigned)(j - runs[k]->jobs);
			x->job = j;
			x->m = c->rm[k].job[idx].primary;
			if (!k)
				continue;
			if (c->rm[k].job[idx].delta[KSCEN_DELTA_REF].present)
				x->d = &c->rm[k].job[idx].delta[KSCEN_DELTA_REF];
			else if (idx < refs[k].nr)
				x->why = refs[k].ref[idx].why;
		}
}

void kscen_cmp_free(struct kscen_cmp *c)
{
	for (unsigned k = 0; c->rm && k < c->nr; k++)
		kscen_report_model_free(&c->rm[k]);
	free(c->rm);
	free(c->name);
	free(c->cell);
	memset(c, 0, sizeof(*c));
}

/* ---- What every format of a comparison says the same way ---------------- */

/* The first measured cell of entry @e: the base's, else a later run's. */
static const struct kscen_cmp_cell *first_measured(const struct kscen_cmp *c,
						   const struct kscen_report_entry *e,
						   unsigned *ri, unsigned *rk)
{
	for (unsigned k = 0; k < c->nr; k++)
		for (unsigned i = e->first; i <= e->last; i++)
			if (kscen_cmp_cell(c, i, k)->m) {
				*ri = i;
				*rk = k;
				return kscen_cmp_cell(c, i, k);
			}
	return NULL;
}

const struct kscen_metric *kscen_cmp_entry_style(const struct kscen_cmp *c,
						const struct kscen_report_entry *e,
						struct kscen_num *st)
{
	unsigned i, k;
	const struct kscen_cmp_cell *x = first_measured(c, e, &i, &k);

	*st = (struct kscen_num){ .unit = "", .scale = 1 };
	if (!x)
		return NULL;
	kscen_num_style_in(x->m, kscen_job_time_style(x->job), st);
	return x->m;
}

/* The fewest and most samples, and the CI's confidence, of entry @e's cells. */
static void entry_n(const struct kscen_cmp *c, const struct kscen_report_entry *e,
		    unsigned *lo, unsigned *hi)
{
	*lo = ~0u;
	*hi = 0;
	for (unsigned i = e->first; i <= e->last; i++)
		for (unsigned k = 0; k < c->nr; k++) {
			const struct kscen_metric *m = kscen_cmp_cell(c, i, k)->m;

			if (!m)
				continue;
			*lo = m->nr_samples < *lo ? m->nr_samples : *lo;
			*hi = m->nr_samples > *hi ? m->nr_samples : *hi;
		}
}

void kscen_cmp_entry_note(const struct kscen_cmp *c,
			  const struct kscen_report_entry *e, bool with_unit,
			  char *buf, size_t len)
{
	unsigned i, k, lo, hi;
	const struct kscen_cmp_cell *x = first_measured(c, e, &i, &k);
	struct kscen_num st;
	char n[64], lbl[128] = "";

	entry_n(c, e, &lo, &hi);
	kscen_report_n_note(lo, hi, n, sizeof(n));
	if (x) {
		kscen_cmp_entry_style(c, e, &st);
		kscen_metric_label(x->m, &st, lbl, sizeof(lbl));
	}
	snprintf(buf, len, "%s%s%s%s%s", with_unit ? lbl : "",
		 with_unit && *lbl ? ", " : "",
		 x ? (x->m->better == KSCEN_HIGHER ? "higher is better, " :
		      "lower is better, ") : "", n, "");
}

void kscen_cmp_value(const struct kscen_cmp *c, unsigned i, unsigned k,
		     const struct kscen_metric *m0, const struct kscen_num *st,
		     char *val, char *ci, size_t len)
{
	const struct kscen_cmp_cell *x = kscen_cmp_cell(c, i, k);
	struct kscen_num own;

	*ci = '\0';
	if (!x->job) {
		snprintf(val, len, "-");
		return;
	}
	if (!x->m) {
		snprintf(val, len, "%s", x->job->status == KSCEN_SKIPPED ? "skipped" :
			 x->job->status == KSCEN_OK ? "-" : "FAILED");
		return;
	}
	kscen_report_ci_pct(x->m, ci, len);
	/*
	 * The base's value is what the changes are against: where that is the
	 * level of several runs (the stable segment of its history), the level,
	 * so that a change always reads as new / old - 1 of the printed numbers.
	 */
	if (!k && c->nr > 1 && m0 && !strcmp(str(x->m->unit), str(m0->unit)) &&
	    kscen_cmp_cell(c, i, 1)->d &&
	    kscen_cmp_cell(c, i, 1)->d->c.between &&
	    kscen_cmp_cell(c, i, 1)->d->c.hist_runs > 1 &&
	    isfinite(kscen_cmp_cell(c, i, 1)->d->c.old)) {
		const struct kscen_change *ch = &kscen_cmp_cell(c, i, 1)->d->c;

		own = *st;
		kscen_num_decimals(x->m, &own);
		kscen_format_num(&own, ch->old, false, val, len);
		snprintf(ci, len, "(%u runs)", ch->hist_runs);
		return;
	}
	/* the column's unit and scale, this cell's digits */
	if (m0 && !strcmp(str(x->m->unit), str(m0->unit))) {
		own = *st;
		kscen_num_decimals(x->m, &own);
		kscen_format_num(&own, x->m->sum.median, false, val, len);
		return;
	}
	/* another metric than the column's: its own unit, said */
	kscen_num_style_in(x->m, kscen_job_time_style(x->job), &own);
	kscen_format_num(&own, x->m->sum.median, false, val, len);
	if (*own.unit)
		snprintf(val + strlen(val), len - strlen(val), " %s", own.unit);
}

double *kscen_cmp_geomean(const struct kscen_cmp *c,
			  const struct kscen_report_entry *e)
{
	double *g = kscen_xcalloc(c->nr, sizeof(*g));
	unsigned rows = 0;

	for (unsigned i = e->first; i <= e->last; i++) {
		bool all = true;

		for (unsigned k = 1; k < c->nr && all; k++) {
			const struct kscen_report_delta *d = kscen_cmp_cell(c, i, k)->d;

			all = d && d->c.old > 0 && d->c.new_ > 0;
		}
		if (!all)
			continue;
		for (unsigned k = 0; k < c->nr; k++) {
			const struct kscen_report_delta *d =
				kscen_cmp_cell(c, i, k ? k : 1)->d;

			g[k] += log(k ? d->c.new_ : d->c.old);
		}
		rows++;
	}
	if (rows < 2) {
		free(g);
		return NULL;
	}
	for (unsigned k = 0; k < c->nr; k++)
		g[k] = exp(g[k] / rows);
	return g;
}

void kscen_cmp_run_line(const struct kscen_cmp *c, unsigned k, char *buf,
			size_t len)
{
	const struct kscen_run *r = c->run[k];
	char when[64];

	report_short_time(r->started, when, sizeof(when));
	snprintf(buf, len, "%s: %s%s%s, kernel %s", c->name[k], when,
		 r->label ? ", label " : "", str(r->label), str(r->system.kernel));
}

/* The fewest samples a side for which a change has a 95% interval. */
static unsigned fewest_for_interval(void)
{
	static unsigned fewest;
	double a[32], b[32];

	for (unsigned n = 2; !fewest && n < ARRAY_SIZE(a); n++) {
		struct kscen_metric ma = { .samples = a, .nr_samples = n };
		struct kscen_metric mb = { .samples = b, .nr_samples = n };
		struct kscen_change ch;

		for (unsigned i = 0; i < n; i++) {
			a[i] = 100 + i;
			b[i] = 200 + i;
		}
		if (kscen_change_compute(&ma, &mb, false, &ch) && ch.ci_valid)
			fewest = n;
	}
	return fewest;
}

void kscen_cmp_too_few(const struct kscen_report_model *rm, unsigned nr,
		       char *buf, size_t len)
{
	unsigned seen = 0, most = 0, fewest;

	*buf = '\0';
	for (unsigned r = 0; r < nr; r++)
		for (unsigned i = 0; i < rm[r].run->nr_jobs; i++)
			for (unsigned k = 0; k < KSCEN_NR_DELTAS; k++) {
				const struct kscen_report_delta *d = &rm[r].job[i].delta[k];

				if (!d->present || !isfinite(d->c.rel) ||
				    d->c.verdict == KSCEN_CANNOT_TELL)
					continue;
				if (d->c.ci_valid)
					return;
				seen++;
				most = d->c.n_old > most ? d->c.n_old : most;
				most = d->c.n_new > most ? d->c.n_new : most;
			}
	fewest = fewest_for_interval();
	if (seen && fewest > most)
		snprintf(buf, len, "Every change is ~: %u sample%s a side %s too few "
			 "for a 95%% CI of a change (it takes %u: -r %u or more).",
			 most, most == 1 ? "" : "s", most == 1 ? "is" : "are",
			 fewest, fewest);
}

void kscen_cmp_counts(const struct kscen_cmp *c,
		      void (*say)(void *arg, const char *line, bool summary),
		      void *arg)
{
	unsigned compared = 0, only = 0, not = 0;
	char *line;

	for (unsigned k = 1; k < c->nr; k++) {
		for (unsigned i = 0; i < c->run[0]->nr_jobs; i++) {
			if (kscen_cmp_cell(c, i, k)->job)
				continue;
			line = kscen_xasprintf("only in %s%s%s: %s", c->name[0],
					       c->nr > 2 ? ", not in " : "",
					       c->nr > 2 ? c->name[k] : "",
					       str(c->run[0]->jobs[i].id));
			say(arg, line, false);
			free(line);
			only++;
		}
		for (unsigned i = 0; i < c->run[k]->nr_jobs; i++) {
			const struct kscen_report_job *rj = &c->rm[k].job[i];

			if (rj->delta[KSCEN_DELTA_REF].present) {
				compared++;
				continue;
			}
			line = kscen_xasprintf("not compared%s%s: %s: %s",
					       c->nr > 2 ? " in " : "",
					       c->nr > 2 ? c->name[k] : "", str(rj->job->id),
					       i < c->refs[k].nr && c->refs[k].ref[i].why ?
					       c->refs[k].ref[i].why : "no reference");
			say(arg, line, false);
			free(line);
			not++;
		}
	}
	if (c->nr == 2)
		line = kscen_xasprintf("%u job%s compared, %u only in old, %u not "
				       "compared", compared, compared == 1 ? "" : "s",
				       only, not);
	else
		line = kscen_xasprintf("%u changes against %s, %u jobs missing, %u "
				       "not compared", compared, c->name[0], only, not);
	say(arg, line, true);
	free(line);
	for (unsigned k = 1; k < c->nr; k++) {
		const struct kscen_report_family *fam = &c->rm[k].fam[KSCEN_FAM_BETWEEN];
		char name[48], buf[REPORT_LINE];

		if (!fam->m)
			continue;
		snprintf(name, sizeof(name), "%s against %s", c->name[k], c->name[0]);
		report_family_line(fam, name, buf, sizeof(buf));
		say(arg, buf, true);
	}
}

