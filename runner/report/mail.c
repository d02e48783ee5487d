// SPDX-License-Identifier: GPL-2.0
/*
 * mail.c - a run, or runs compared, as they go under the "---" of a patch
 * mail: no line over 72 columns, a header that says how to reproduce it
 * (kscen version and git describe, the scenario file and its sha256, the
 * command), the kernel and CPU, what differs from the reference's machine
 * as changed tokens, then a table a job entry: its header line names the
 * entry, which way is better, n and the true confidence of the CIs; the
 * parameters its jobs share go on the next line, those that vary become
 * columns. A run's table gives each job's median, its CI and its deltas;
 * a comparison's gives old | new | change, the kernel test robot's and
 * benchstat's layout, each median with its CI. "~" is a change that is not
 * significant, as in benchstat; when no change could be significant, one
 * line says why. The numbers are the report model's (model.c) and the
 * comparison's (compare.c).
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "emit.h"
#include "envdiff.h"
#include "table.h"
#include "lib/util.h"

#define WIDTH 72
#define INDENT "  "

/* @s as lines of at most WIDTH columns, broken at spaces, each after @lead. */
static void wrap(FILE *out, const char *lead, const char *cont, const char *s)
{
	size_t room = WIDTH - strlen(lead), col = 0;
	const char *p = s;

	if (!*s) {	/* nothing to say: no trailing blank */
		size_t n = strlen(lead);

		while (n && lead[n - 1] == ' ')
			n--;
		fprintf(out, "%.*s\n", (int)n, lead);
		return;
	}
	fputs(lead, out);
	while (*p) {
		size_t n = strcspn(p, " ");

		if (col && col + 1 + n > room) {
			fprintf(out, "\n%s", cont);
			room = WIDTH - strlen(cont);
			col = 0;
		} else if (col) {
			fputc(' ', out);
			col++;
		}
		/* a word longer than the line: cut it */
		while (n > room) {
			fprintf(out, "%.*s\n%s", (int)room, p, cont);
			p += room;
			n -= room;
			room = WIDTH - strlen(cont);
		}
		fprintf(out, "%.*s", (int)n, p);
		col += n;
		p += n;
		p += strspn(p, " ");
	}
	fputc('\n', out);
}

/* "  changed cmdline: -quiet +nosmt", a line a field that differs. */
static void env_changes(FILE *out, const struct kscen_run *old,
			const struct kscen_run *new_, const char *who)
{
	struct kscen_envdiff *d;
	unsigned nr = kscen_env_diff(old, new_, &d);

	for (unsigned i = 0; i < nr; i++) {
		char *s = d[i].tokens ?
			  kscen_xasprintf("%s%s: %s", who, d[i].name, d[i].tokens) :
			  kscen_xasprintf("%s%s: %s -> %s", who, d[i].name, d[i].old,
					  d[i].new_);

		wrap(out, "  changed ", "    ", s);
		free(s);
	}
	kscen_env_diff_free(d, nr);
}

/* How to reproduce it: version, scenario file, command, machine. */
static void header(FILE *out, const struct kscen_run *run, const char *what)
{
	char line[512];

	snprintf(line, sizeof(line), "kscen %s (%s)%s, scenario %s", str(run->version),
		 str(run->describe), what, str(run->scenario));
	wrap(out, "", INDENT, line);
	snprintf(line, sizeof(line), "%s sha256:%.16s", str(run->scenario_file),
		 str(run->scenario_sha256));
	wrap(out, "file: ", INDENT, line);
	wrap(out, "command: ", INDENT, str(run->command));
	snprintf(line, sizeof(line), "%s %s, %s, %ld CPUs", str(run->system.kernel),
		 str(run->system.arch), str(run->system.cpu_model), run->system.nr_cpus);
	wrap(out, "kernel: ", INDENT, line);
}

static void run_header(FILE *out, const struct kscen_run *run,
		       const struct kscen_refs *refs)
{
	const struct kscen_run *m = refs && refs->asked ? refs->main : NULL;
	char line[512], when[64];

	header(out, run, "");
	if (!m)
		return;
	report_short_time(m->started, when, sizeof(when));
	snprintf(line, sizeof(line), "%s%s%s, kernel %s", when,
		 m->label ? ", label " : "", m->label ? m->label : "",
		 str(m->system.kernel));
	wrap(out, "reference: ", INDENT, line);
	env_changes(out, m, run, "");
}

/*
 * "+5.5%", "~" when not significant, "?" when it cannot be told, "" when
 * there is nothing to say.
 */
static void delta(char *buf, size_t len, const struct kscen_report_delta *d)
{
	const struct kscen_change *c = d ? &d->c : NULL;

	if (!d || !d->present || !isfinite(c->rel))
		*buf = '\0';
	else if (c->verdict == KSCEN_CANNOT_TELL)
		snprintf(buf, len, "?");
	else if (!c->ci_valid || c->verdict == KSCEN_SAME)
		snprintf(buf, len, "~");
	else
		snprintf(buf, len, fabs(c->rel) >= 1 ? "%+.0f%%" : "%+.1f%%", 100 * c->rel);
}

/*
 * The parameters an entry's jobs share, "loops=56 threads=20", or NULL
 * when they share none; malloc'ed: a stored result's values have no bound.
 */
static char *fixed_params(const struct kscen_job_result *j0,
			  const struct kscen_report_entry *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = kscen_xmemstream(&buf, &len);

	for (unsigned k = 0; k < e->nr_params && k < j0->nr_kv; k++)
		if (!e->varies[k])
			fprintf(f, "%s%s=%s", ftell(f) ? " " : "",
				str(j0->keys[k]), str(j0->values[k]));
	fclose(f);
	if (!*buf) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The parameters of entry @e that vary, a column each: @key, malloc'ed. */
static unsigned param_cols(const struct kscen_report_entry *e, unsigned **key)
{
	unsigned nc = 0;

	*key = kscen_xcalloc(e->nr_params, sizeof(**key));
	for (unsigned k = 0; k < e->nr_params; k++)
		if (e->varies[k])
			(*key)[nc++] = k;
	return nc;
}

/* Row 0: their names; row 1 + (i - e->first): job i's values. */
static void set_params(struct kscen_table *t, const struct kscen_run *run,
		       const struct kscen_report_entry *e, const unsigned *key,
		       unsigned nc)
{
	for (unsigned c = 0; c < nc; c++) {
		t->col[c].right = true;
		kscen_table_set(t, 0, c, "%s", str(run->jobs[e->first].keys[key[c]]));
		for (unsigned i = e->first; i <= e->last; i++) {
			const struct kscen_job_result *j = &run->jobs[i];

			kscen_table_set(t, 1 + i - e->first, c, "%s",
					key[c] < j->nr_kv ? str(j->values[key[c]]) : "");
		}
	}
}

/*
 * Print table @t (row 0 its header) whose first @nc columns are parameters,
 * in WIDTH columns: as it is when it fits, else each row's parameters on a
 * line of their own above its numbers. @shown: the columns to print
 * (NULL: all).
 */
static void print_fitted(FILE *out, const struct kscen_table *t, unsigned nc,
			 const bool *shown)
{
	bool *mask = kscen_xcalloc(t->cols + 1, sizeof(bool));

	for (unsigned c = 0; c < t->cols; c++)
		mask[c] = !shown || shown[c];
	if (strlen(INDENT) + kscen_table_width(t, mask) <= WIDTH) {
		kscen_table_print(out, t, mask, INDENT);
		free(mask);
		return;
	}
	for (unsigned c = 0; c < nc; c++)
		mask[c] = false;
	kscen_table_print_row(out, t, 0, mask, INDENT);
	for (unsigned r = 1; r < t->rows; r++) {
		char *vary = kscen_xstrdup(""), *v;

		for (unsigned c = 0; c < nc; c++) {
			const char *val = kscen_table_get(t, r, c);

			if (!*val)
				continue;
			/* "geomean" stands alone, a value is name=value */
			v = r + 1 == t->rows && !strcmp(val, "geomean") && !c ?
			    kscen_xasprintf("%s", val) :
			    kscen_xasprintf("%s%s%s=%s", vary, *vary ? " " : "",
					    kscen_table_get(t, 0, c), val);
			free(vary);
			vary = v;
		}
		if (*vary)
			wrap(out, INDENT, INDENT "  ", vary);
		free(vary);
		kscen_table_print_row(out, t, r, mask, INDENT);
	}
	free(mask);
}

/* The header line of a run's table: "thread (breakpoint.thread): ..." */
static void entry_title(FILE *out, const struct kscen_report_model *rm,
			const struct kscen_report_entry *e)
{
	const struct kscen_job_result *j0 = &rm->run->jobs[e->first];
	char n[128], *s;

	report_entry_note(rm, e, n, sizeof(n));
	s = kscen_xasprintf("%s (%s): %s", str(j0->name), str(j0->workload), n);
	fputc('\n', out);
	wrap(out, "", INDENT, s);
	free(s);
}

/* One run's table of entry @e: value, CI and its deltas a job. */
static void entry(FILE *out, const struct kscen_report_model *rm,
		  const struct kscen_report_entry *e)
{
	const struct kscen_run *run = rm->run;
	const struct kscen_refs *refs = rm->refs;
	const struct kscen_job_result *j0 = &run->jobs[e->first];
	unsigned *key, nc, v, ndelta = 0, dcol[KSCEN_NR_DELTAS];
	static const char *const heads[KSCEN_NR_DELTAS] = {
		[KSCEN_DELTA_BASELINE] = "to base",
		[KSCEN_DELTA_PREVIOUS] = "to prev",
		[KSCEN_DELTA_REF] = "vs last",
	};
	bool have[KSCEN_NR_DELTAS] = { false };
	const struct kscen_metric *m0 = NULL;
	struct kscen_num st0 = { .unit = "", .scale = 1 };
	struct kscen_table t;
	char *fixed;

	entry_title(out, rm, e);
	fixed = fixed_params(j0, e);
	if (fixed)
		wrap(out, INDENT, INDENT, fixed);
	free(fixed);
	for (unsigned i = e->first; i <= e->last; i++) {
		const struct kscen_job_result *j = &run->jobs[i];

		have[KSCEN_DELTA_BASELINE] |= j->baseline != NULL;
		have[KSCEN_DELTA_PREVIOUS] |= j->previous && (!j->baseline ||
					      strcmp(j->previous, j->baseline));
	}
	have[KSCEN_DELTA_REF] = refs && refs->asked && refs->compared;
	/* One unit and scale for the column: the first measured job's. */
	for (unsigned i = e->last + 1; i-- > e->first;)
		if (rm->job[i].primary) {
			m0 = rm->job[i].primary;
			st0 = rm->job[i].num[0];
		}
	nc = param_cols(e, &key);
	v = nc;
	for (unsigned k = 0; k < KSCEN_NR_DELTAS; k++)
		if (have[k])
			dcol[k] = v + 2 + ndelta++;
	kscen_table_init(&t, v + 2 + ndelta);
	for (unsigned c = v; c < t.cols; c++)
		t.col[c].right = true;
	t.col[v + 1].gap = 1;
	t.col[v + 1].joined = true;
	for (unsigned i = e->first; i <= e->last + 1; i++)
		kscen_table_row(&t);
	set_params(&t, run, e, key, nc);
	kscen_table_set(&t, 0, v, "%s", *st0.unit ? st0.unit : m0 ? "" : "median");
	kscen_table_set(&t, 0, v + 1, "CI");
	for (unsigned k = 0; k < KSCEN_NR_DELTAS; k++)
		if (have[k])
			kscen_table_set(&t, 0, dcol[k], "%s", heads[k]);
	for (unsigned i = e->first; i <= e->last; i++) {
		const struct kscen_report_job *rj = &rm->job[i];
		const struct kscen_metric *m = rj->primary;
		unsigned r = 1 + i - e->first;
		struct kscen_num st;
		char num[64], ci[16], d[24];

		if (rj->status != KSCEN_OK || !m) {
			/* ok without samples: noise: drop set every one aside */
			kscen_table_set(&t, r, v, "%s", rj->status == KSCEN_SKIPPED ?
					"skipped" : rj->status == KSCEN_OK ? "no samples" : "FAILED");
			continue;
		}
		/* the column's unit and scale, this job's digits */
		st = rj->num[0];
		if (m0 && !strcmp(str(m->unit), str(m0->unit))) {
			st = st0;
			kscen_num_decimals(m, &st);
		}
		kscen_format_num(&st, m->sum.median, false, num, sizeof(num));
		kscen_report_ci_pct(m, ci, sizeof(ci));
		/* a unit other than the column's follows the number */
		if (strcmp(st.unit, st0.unit))
			kscen_table_set(&t, r, v, "%s %s", num, st.unit);
		else
			kscen_table_set(&t, r, v, "%s", num);
		kscen_table_set(&t, r, v + 1, "%s", ci);
		for (unsigned k = 0; k < KSCEN_NR_DELTAS; k++) {
			if (!have[k])
				continue;
			delta(d, sizeof(d), &rj->delta[k]);
			kscen_table_set(&t, r, dcol[k], "%s", d);
		}
	}
	print_fitted(out, &t, nc, NULL);
	kscen_table_free(&t);
	free(key);
}

/* Why jobs did not run, one line each. */
static void not_ok(FILE *out, const struct kscen_run *run)
{
	for (unsigned i = 0; i < run->nr_jobs; i++)
		if (run->jobs[i].status != KSCEN_OK) {
			char *s = kscen_xasprintf("%s: %s", str(run->jobs[i].id),
						  str(run->jobs[i].reason));

			wrap(out, run->jobs[i].status == KSCEN_SKIPPED ? "skipped " :
			     "FAILED ", INDENT, s);
			free(s);
		}
}

void report_mail(FILE *out, const struct kscen_report_model *rm)
{
	const struct kscen_run *run = rm->run;
	const unsigned *n = rm->nr_status;
	char line[8][REPORT_LINE], few[256];
	unsigned nl;

	run_header(out, run, rm->refs);
	for (unsigned e = 0; e < rm->nr_entries; e++)
		entry(out, rm, &rm->entry[e]);
	fputc('\n', out);
	not_ok(out, run);
	if (*rm->noise)
		wrap(out, "noise: ", INDENT, rm->noise);
	wrap(out, "", "", "Medians of the samples with the CI of the median (n "
	     "and its confidence in each table's first line); deltas: "
	     "Hodges-Lehmann estimates within the run, the median against the "
	     "reference's level between runs, ~ where not significant at the 5% "
	     "level, ? where there is no run-to-run estimate.");
	kscen_cmp_too_few(rm, 1, few, sizeof(few));
	if (*few)
		wrap(out, "", "", few);
	nl = report_footer(rm, line, 8);
	for (unsigned i = 0; i < nl; i++) {
		line[i][0] = toupper((unsigned char)line[i][0]);	/* a sentence */
		wrap(out, "", INDENT, line[i]);
	}
	fprintf(out, "%u ok, %u skipped, %u failed\n", n[KSCEN_OK], n[KSCEN_SKIPPED],
		n[KSCEN_FAILED]);
	/*
	 * The one command that runs this again, from the text the run kept;
	 * on a line of its own, never cut, to be pasted whole.
	 */
	if (run->path && run->scenario_text)
		fprintf(out, "reproduce:\n  kscen rerun %s\n", run->path);
}

/* ---- Runs compared ------------------------------------------------------- */

static void mail_line(void *out, const char *line, bool summary)
{
	wrap(out, "", summary ? "" : INDENT, line);
}

/*
 * Show in @shown the parameters, the first run and runs @from .. @to - 1
 * of a comparison's table (@nc parameter columns, @nr runs: value, CI and,
 * but for the first, change), the CIs if @with_ci. Do their numbers fit in
 * WIDTH (the parameters may go on lines of their own)?
 */
static bool numbers_fit(const struct kscen_table *t, unsigned nc, unsigned nr,
			unsigned from, unsigned to, bool with_ci, bool *shown)
{
	bool fits;

	for (unsigned q = 0; q < t->cols; q++)
		shown[q] = false;
	for (unsigned k = 0; k < nr; k++) {
		unsigned col = nc + (k ? 3 * k - 1 : 0);

		if (k && (k < from || k >= to))
			continue;
		shown[col] = true;
		shown[col + 1] = with_ci;
		if (k)
			shown[col + 2] = true;
	}
	fits = strlen(INDENT) + kscen_table_width(t, shown) <= WIDTH;
	for (unsigned q = 0; q < nc; q++)
		shown[q] = true;
	return fits;
}

/*
 * Entry @e of a comparison: the parameters that vary, then for each run
 * its median and CI, and for each later run its change; runs that do not
 * fit beside each other in WIDTH go to a table of their own (always with
 * the first run), CIs left out first.
 */
static void cmp_entry(FILE *out, const struct kscen_cmp *c,
		      const struct kscen_report_entry *e)
{
	const struct kscen_run *base = c->run[0];
	unsigned *key, nc, cols, r, from;
	const struct kscen_metric *m0;
	struct kscen_table t;
	struct kscen_num st;
	char note[256], *s, val[64], ci[64], d[24];
	bool *shown, with_ci = true;
	double *g;

	m0 = kscen_cmp_entry_style(c, e, &st);
	kscen_cmp_entry_note(c, e, true, note, sizeof(note));
	s = kscen_xasprintf("%s (%s): %s", str(base->jobs[e->first].name),
			    str(base->jobs[e->first].workload), note);
	fputc('\n', out);
	wrap(out, "", INDENT, s);
	free(s);
	s = fixed_params(&base->jobs[e->first], e);
	if (s)
		wrap(out, INDENT, INDENT, s);
	free(s);

	nc = param_cols(e, &key);
	/* per run: value, CI; and after the first, the change */
	cols = nc + 3 * c->nr - 1;
	kscen_table_init(&t, cols);
	for (unsigned i = e->first; i <= e->last + 1; i++)
		kscen_table_row(&t);
	set_params(&t, base, e, key, nc);
	g = kscen_cmp_geomean(c, e);
	/* right-aligned: column 0 is, by set_params() or by the loop below */
	if (g) {
		r = kscen_table_row(&t);
		kscen_table_set(&t, r, 0, "geomean");
	}
	for (unsigned k = 0, col = nc; k < c->nr; k++) {
		t.col[col].right = t.col[col + 1].right = true;
		t.col[col + 1].gap = 1;
		t.col[col + 1].joined = true;
		kscen_table_set(&t, 0, col, "%s", c->name[k]);
		for (unsigned i = e->first; i <= e->last; i++) {
			kscen_cmp_value(c, i, k, m0, &st, val, ci, sizeof(val));
			kscen_table_set(&t, 1 + i - e->first, col, "%s", val);
			kscen_table_set(&t, 1 + i - e->first, col + 1, "%s", ci);
		}
		if (g) {
			kscen_format_num(&st, g[k], false, val, sizeof(val));
			kscen_table_set(&t, t.rows - 1, col, "%s", val);
		}
		col += 2;
		if (!k)
			continue;
		t.col[col].right = true;
		kscen_table_set(&t, 0, col, "change");
		for (unsigned i = e->first; i <= e->last; i++) {
			delta(d, sizeof(d), kscen_cmp_cell(c, i, k)->d);
			kscen_table_set(&t, 1 + i - e->first, col, "%s", d);
		}
		if (g)
			kscen_table_set(&t, t.rows - 1, col, "%+.1f%%",
					100 * (g[k] / g[0] - 1));
		col++;
	}
	/* The runs after the first, as many a table as fit, CIs first to go. */
	shown = kscen_xcalloc(cols + 1, sizeof(bool));
	with_ci = numbers_fit(&t, nc, c->nr, 1, c->nr, true, shown);
	for (from = 1; from < c->nr;) {
		unsigned to = c->nr;

		while (to > from + 1 && !numbers_fit(&t, nc, c->nr, from, to, with_ci, shown))
			to--;
		numbers_fit(&t, nc, c->nr, from, to, with_ci, shown);
		if (from > 1)
			fputc('\n', out);
		print_fitted(out, &t, nc, shown);
		from = to;
	}
	if (!with_ci)
		wrap(out, INDENT, INDENT, "(the CIs of the medians left out: too "
		     "wide for 72 columns; kscen compare --format text has them)");
	free(shown);
	free(g);
	free(key);
	kscen_table_free(&t);
}

void compare_mail(FILE *out, const struct kscen_cmp *c)
{
	const struct kscen_run *base = c->run[0], *last = c->run[c->nr - 1];
	char line[512];

	header(out, last, ": compare");
	for (unsigned k = 0; k < c->nr; k++) {
		kscen_cmp_run_line(c, k, line, sizeof(line));
		wrap(out, "", INDENT, line);
		if (strcmp(str(c->run[k]->scenario_sha256), str(last->scenario_sha256)))
			wrap(out, INDENT "scenario file sha256:", INDENT,
			     str(c->run[k]->scenario_sha256));
	}
	for (unsigned k = 1; k < c->nr; k++) {
		char who[32];

		snprintf(who, sizeof(who), "%s%s", c->nr > 2 ? c->name[k] : "",
			 c->nr > 2 ? " " : "");
		if (strcmp(str(base->scenario), str(c->run[k]->scenario))) {
			snprintf(line, sizeof(line), "%s is of scenario %s, %s of %s: no "
				 "job compared", c->name[k], str(c->run[k]->scenario),
				 c->name[0], str(base->scenario));
			wrap(out, "", INDENT, line);
		}
		env_changes(out, base, c->run[k], who);
	}
	for (unsigned e = 0; e < c->rm[0].nr_entries; e++)
		cmp_entry(out, c, &c->rm[0].entry[e]);
	fputc('\n', out);
	snprintf(line, sizeof(line), "Medians of the samples with the CI of the "
		 "median (n and its confidence in each table's first line); change: "
		 "of the median against %s's level, ~ where not significant at the "
		 "5%% level, ? where there is no run-to-run estimate.", c->name[0]);
	wrap(out, "", "", line);
	kscen_cmp_too_few(c->rm + 1, c->nr - 1, line, sizeof(line));
	if (*line)
		wrap(out, "", "", line);
	kscen_cmp_counts(c, mail_line, out);
}
