// SPDX-License-Identifier: GPL-2.0
/*
 * profile_report.c - a job's profile in the reports: its top symbols like
 * `perf report --no-children` (self %, and children % where the stacks
 * allow), and against another profile of the same work (the job's
 * baseline, or the same job in an older run) a differential table like
 * `perf diff` and LKP's perf-profile lines: symbol, baseline %, job %,
 * delta, the largest moves first.
 *
 * Each renderer takes one job, so the text report, the markdown report and
 * a mail body can all call it; markdown gets tables, the rest plain text.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "store/profile.h"
#include "scenario/profile_spec.h"
#include "profile_report.h"

/* A code span in a table cell: only '|' and '`' need care. */
static void md_text(FILE *out, const char *s)
{
	fputc('`', out);
	for (; s && *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s == '\n' || *s == '`' ? '\'' : *s, out);
	}
	fputc('`', out);
}

/* How many symbols a report shows: the top ones with self time. */
static unsigned shown(const struct kscen_profile *p)
{
	unsigned top = p->top ? p->top : KSCEN_PROFILE_TOP, n = 0;

	while (n < p->nr_sym && n < top && p->sym[n].self > 0)
		n++;
	return n;
}

/* The smallest self share the stored list holds: below it, unknown. */
static double smallest(const struct kscen_profile *p)
{
	double m = NAN;

	for (unsigned i = 0; i < p->nr_sym; i++)
		if (p->sym[i].self > 0 && !(m <= p->sym[i].self))
			m = p->sym[i].self;
	return m;
}

void kscen_profile_header(FILE *out, const struct kscen_profile *p, bool md)
{
	const char *pre = md ? "" : "# ";

	if (p->reason) {
		fprintf(out, "%sProfile: none, %s\n", pre, p->reason);
		return;
	}
	fprintf(out, "%sProfile: %s, %s at %u Hz, scope %s, %s stacks, %ld samples; "
		"lost: %ld map full, %ld kernel and %ld user stacks\n", pre,
		p->source && !strcmp(p->source, "perf") ? "perf record" : "kscen bpf",
		p->event ? p->event : "?", p->frequency, p->scope ? p->scope : "?",
		p->stacks ? p->stacks : "?", p->samples, p->map_full, p->kstack_lost,
		p->ustack_lost);
	if (p->note)
		fprintf(out, "%s%s\n", pre, p->note);
}

static void sym_label(char *buf, size_t len, const struct kscen_profile_sym *s)
{
	snprintf(buf, len, "[%s] %s", s->kernel ? "k" : ".", s->name);
}

void kscen_profile_top(FILE *out, const struct kscen_profile *p, bool md)
{
	char lbl[600];

	kscen_profile_header(out, p, md);
	if (p->reason || !p->nr_sym)
		return;
	if (md) {
		fprintf(out, "\n| self | %ssymbol |\n|---:|%s---|\n",
			p->children ? "children | " : "", p->children ? "---:|" : "");
	} else {
		fprintf(out, "#     Self  %sSymbol\n", p->children ? "Children  " : "");
	}
	for (unsigned i = 0; i < shown(p); i++) {
		const struct kscen_profile_sym *s = &p->sym[i];

		sym_label(lbl, sizeof(lbl), s);
		if (md) {
			fprintf(out, "| %.2f%% | ", s->self);
			if (p->children)
				fprintf(out, "%.2f%% | ", s->children);
			md_text(out, lbl);
			fputs(" |\n", out);
		} else {
			fprintf(out, "   %6.2f%%  ", s->self);
			if (p->children)
				fprintf(out, " %6.2f%%  ", s->children);
			fprintf(out, "%s\n", lbl);
		}
	}
}

static const struct kscen_profile_sym *sym_find(const struct kscen_profile *p,
						const struct kscen_profile_sym *s)
{
	for (unsigned i = 0; i < p->nr_sym; i++)
		if (p->sym[i].kernel == s->kernel && !strcmp(p->sym[i].name, s->name))
			return &p->sym[i];
	return NULL;
}

struct drow {
	const struct kscen_profile_sym *s;
	double old, new_;	/* NaN: below what that profile stored */
};

static int drow_cmp(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	double dx = fabs((isnan(x->new_) ? 0 : x->new_) - (isnan(x->old) ? 0 : x->old));
	double dy = fabs((isnan(y->new_) ? 0 : y->new_) - (isnan(y->old) ? 0 : y->old));

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->s->name, y->s->name);
}

unsigned kscen_profile_diff_rows(const struct kscen_profile *old,
				 const struct kscen_profile *new_,
				 struct kscen_profile_diff *rows, unsigned max)
{
	unsigned nr = 0, n_old = shown(old), n_new = shown(new_), k;
	struct drow *d = kscen_xcalloc(n_old + n_new + 1, sizeof(*d));

	/* The symbols either profile shows, each once. */
	for (unsigned i = 0; i < n_new; i++) {
		const struct kscen_profile_sym *o = sym_find(old, &new_->sym[i]);

		d[nr++] = (struct drow){ &new_->sym[i], o ? o->self : NAN,
					 new_->sym[i].self };
	}
	for (unsigned i = 0; i < n_old; i++) {
		const struct kscen_profile_sym *n = sym_find(new_, &old->sym[i]);

		if (n && n - new_->sym < n_new)
			continue;
		d[nr++] = (struct drow){ &old->sym[i], old->sym[i].self,
					 n ? n->self : NAN };
	}
	qsort(d, nr, sizeof(*d), drow_cmp);
	for (k = 0; k < nr && k < max; k++) {
		rows[k].name = d[k].s->name;
		rows[k].kernel = d[k].s->kernel;
		rows[k].old = d[k].old;
		rows[k].new_ = d[k].new_;
		/* Below a profile's stored list: under its smallest share. */
		rows[k].old_below = isnan(d[k].old) ? smallest(old) : NAN;
		rows[k].new_below = isnan(d[k].new_) ? smallest(new_) : NAN;
	}
	free(d);
	return k;
}

static void pct_cell(char *buf, size_t len, double v, double below)
{
	if (!isnan(v))
		snprintf(buf, len, "%.2f%%", v);
	else if (!isnan(below))
		snprintf(buf, len, "<%.2f%%", below);
	else
		snprintf(buf, len, "-");
}

void kscen_profile_diff(FILE *out, const struct kscen_profile *old,
			const struct kscen_profile *new_, const char *what,
			const char *against, bool md)
{
	struct kscen_profile_diff rows[2 * KSCEN_PROFILE_KEEP];
	unsigned top = new_->top ? new_->top : KSCEN_PROFILE_TOP, nr;
	char a[32], b[32], lbl[600];

	if (old->reason || new_->reason || !old->nr_sym || !new_->nr_sym)
		return;
	nr = kscen_profile_diff_rows(old, new_, rows, top);
	if (md) {
		fprintf(out, "\nProfile against %s (", what);
		md_text(out, against);
		fprintf(out, "), self %%, largest moves first:\n\n"
			"| %s | job | delta | symbol |\n|---:|---:|---:|---|\n", what);
	} else {
		fprintf(out, "# Profile against %s (%s), self %%, largest moves first:\n"
			"#  %9s        Job      Delta  Symbol\n", what, against,
			!strcmp(what, "baseline") ? "Baseline" : "Old");
	}
	for (unsigned i = 0; i < nr; i++) {
		double o = isnan(rows[i].old) ? 0 : rows[i].old;
		double n = isnan(rows[i].new_) ? 0 : rows[i].new_;

		pct_cell(a, sizeof(a), rows[i].old, rows[i].old_below);
		pct_cell(b, sizeof(b), rows[i].new_, rows[i].new_below);
		snprintf(lbl, sizeof(lbl), "[%s] %s", rows[i].kernel ? "k" : ".",
			 rows[i].name);
		if (md) {
			fprintf(out, "| %s | %s | %+.2f%% | ", a, b, n - o);
			md_text(out, lbl);
			fputs(" |\n", out);
		} else {
			fprintf(out, "   %9s  %9s  %+8.2f%%  %s\n", a, b, n - o, lbl);
		}
	}
}

void kscen_profile_job_report(FILE *out, const struct kscen_run *run,
			      const struct kscen_job_result *j, bool md)
{
	const struct kscen_job_result *base;

	if (!j->profile)
		return;
	if (md)
	{
		fputs("\n#### ", out);
		md_text(out, j->id);
		fputs("\n\n", out);
	}
	kscen_profile_top(out, j->profile, md);
	base = j->baseline && strcmp(j->baseline, j->id) ?
	       kscen_run_find(run, j->baseline) : NULL;
	if (base && base->profile)
		kscen_profile_diff(out, base->profile, j->profile, "baseline",
				   base->id, md);
}

void kscen_profile_markdown(FILE *out, const struct kscen_run *run)
{
	bool any = false;

	for (unsigned i = 0; i < run->nr_jobs; i++)
		any |= run->jobs[i].profile != NULL;
	if (!any)
		return;
	fprintf(out, "\n### Profiles\n");
	for (unsigned i = 0; i < run->nr_jobs; i++)
		kscen_profile_job_report(out, run, &run->jobs[i], true);
}

void kscen_profile_compare(FILE *out, const struct kscen_run *old,
			   const struct kscen_run *new_)
{
	for (unsigned i = 0; i < new_->nr_jobs; i++) {
		const struct kscen_job_result *n = &new_->jobs[i];
		const struct kscen_job_result *o = kscen_run_find(old, n->id);

		if (!n->profile || !o || !o->profile || n->profile->reason ||
		    o->profile->reason)
			continue;
		fprintf(out, "\n# %s\n", n->id);
		kscen_profile_diff(out, o->profile, n->profile, "old run",
				   old->started ? old->started : "?", false);
	}
}
