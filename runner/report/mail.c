// SPDX-License-Identifier: GPL-2.0
/*
 * mail.c - a run as it goes into a patch mail: no line over 72
 * columns, a header that says how to reproduce it (kscen version and git
 * describe, the scenario file and its sha256, the command), the kernel and
 * CPU, what differs from the reference's machine as changed tokens, then a
 * table a job entry with only the parameters that vary as columns, the
 * median of the primary metric with its 95% CI, and its deltas: "~" when
 * not significant, like benchstat. The numbers are the report model's
 * (model.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "envdiff.h"
#include "util.h"

#define WIDTH 72

/* @s as lines of at most WIDTH columns, broken at spaces, each after @lead. */
static void wrap(FILE *out, const char *lead, const char *cont, const char *s)
{
	size_t room = WIDTH - strlen(lead), col = 0;
	const char *p = s;

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

static void header(FILE *out, const struct kscen_run *run,
		   const struct kscen_refs *refs)
{
	char line[512], when[64];
	const struct kscen_run *m = refs && refs->asked ? refs->main : NULL;

	snprintf(line, sizeof(line), "kscen %s (%s), scenario %s", str(run->version),
		 str(run->describe), str(run->scenario));
	wrap(out, "", "  ", line);
	snprintf(line, sizeof(line), "%s sha256:%.16s", str(run->scenario_file),
		 str(run->scenario_sha256));
	wrap(out, "file: ", "  ", line);
	wrap(out, "command: ", "  ", str(run->command));
	snprintf(line, sizeof(line), "%s %s, %s, %ld CPUs", str(run->system.kernel),
		 str(run->system.arch), str(run->system.cpu_model), run->system.nr_cpus);
	wrap(out, "kernel: ", "  ", line);
	if (m) {
		struct kscen_envdiff *d;
		unsigned nr = kscen_env_diff(m, run, &d);

		report_short_time(m->started, when, sizeof(when));
		snprintf(line, sizeof(line), "%s%s%s, kernel %s", when,
			 m->label ? ", label " : "", m->label ? m->label : "",
			 str(m->system.kernel));
		wrap(out, "reference: ", "  ", line);
		for (unsigned i = 0; i < nr; i++) {
			char *s = kscen_xasprintf("%s: %s", d[i].name, d[i].tokens ? d[i].tokens :
						  "");

			if (!d[i].tokens) {
				free(s);
				s = kscen_xasprintf("%s: %s -> %s", d[i].name, d[i].old, d[i].new_);
			}
			wrap(out, "  changed ", "    ", s);
			free(s);
		}
		kscen_env_diff_free(d, nr);
	}
}

/* "+5.5%", "~" when not significant, "" when there is nothing to say. */
static void delta(char *buf, size_t len, const struct kscen_report_delta *d)
{
	const struct kscen_change *c = &d->c;

	if (!d->present || !isfinite(c->rel))
		*buf = '\0';
	else if (!c->ci_valid || c->verdict == KSCEN_SAME)
		snprintf(buf, len, "~");
	else
		snprintf(buf, len, fabs(c->rel) >= 1 ? "%+.0f%%" : "%+.1f%%", 100 * c->rel);
}

#define COLS 8

/* One table: the jobs @first..@last of one entry of the scenario. */
static void entry(FILE *out, const struct kscen_report_model *rm,
		  const struct kscen_report_entry *e)
{
	const struct kscen_run *run = rm->run;
	const struct kscen_refs *refs = rm->refs;
	unsigned first = e->first, last = e->last;
	const struct kscen_job_result *j0 = &run->jobs[first];
	const struct kscen_metric *m0 = rm->job[first].primary;
	unsigned col[COLS], nc = 0, w[COLS], width = 0;
	char fixed[512] = "", cell[64], base[24], prev[24], last_run[24];
	bool vary_table, have_base = false, have_prev = false;
	bool have_last = refs && refs->asked && refs->compared;
	struct kscen_num st0 = { .unit = "", .scale = 1 };
	FILE *line;
	char *buf;
	size_t len;

	for (unsigned k = 0; k < e->nr_params; k++) {
		if (!e->varies[k]) {
			size_t n = strlen(fixed);

			snprintf(fixed + n, sizeof(fixed) - n, "%s%s=%s", n ? " " : "",
				 str(j0->keys[k]), str(j0->values[k]));
		} else if (nc < COLS) {
			col[nc++] = k;
		}
	}
	fputc('\n', out);
	snprintf(cell, sizeof(cell), "%s (%s)", str(j0->name), str(j0->workload));
	wrap(out, "", "  ", cell);
	if (*fixed)
		wrap(out, "  ", "  ", fixed);
	for (unsigned c = 0; c < nc; c++) {
		w[c] = strlen(str(j0->keys[col[c]]));
		for (unsigned i = first; i <= last; i++)
			if (col[c] < run->jobs[i].nr_kv &&
			    strlen(str(run->jobs[i].values[col[c]])) > w[c])
				w[c] = strlen(str(run->jobs[i].values[col[c]]));
		width += w[c] + 2;
	}
	/* One unit and scale for the column: the first measured job's. */
	for (unsigned i = last + 1; i-- > first;)
		if (rm->job[i].primary)
			st0 = rm->job[i].num[0];
	for (unsigned i = first; i <= last; i++) {
		have_base |= run->jobs[i].baseline != NULL;
		have_prev |= run->jobs[i].previous && (!run->jobs[i].baseline ||
			     strcmp(run->jobs[i].previous, run->jobs[i].baseline));
	}
	/* Too wide for columns: the varying parameters on a line of their own. */
	vary_table = 2 + width + 12 + 8 + 8 * (have_base + have_prev + have_last) <= WIDTH;
	fputs("  ", out);
	for (unsigned c = 0; vary_table && c < nc; c++)
		fprintf(out, "%*s  ", (int)w[c], str(j0->keys[col[c]]));
	line = open_memstream(&buf, &len);
	fprintf(line, "%12s %7s", *st0.unit ? st0.unit : m0 ? str(m0->unit) : "median",
		"CI");
	if (have_base)
		fprintf(line, " %7s", "to base");
	if (have_prev)
		fprintf(line, " %7s", "to prev");
	if (have_last)
		fprintf(line, " %7s", "vs last");
	fclose(line);
	fprintf(out, "%s\n", buf);
	free(buf);
	for (unsigned i = first; i <= last; i++) {
		const struct kscen_report_job *rj = &rm->job[i];
		const struct kscen_job_result *j = rj->job;
		const struct kscen_metric *m = rj->primary;
		struct kscen_num st;
		char num[64], ci[16];
		double hw;

		if (vary_table) {
			fputs("  ", out);
			for (unsigned c = 0; c < nc; c++)
				fprintf(out, "%*s  ", (int)w[c],
					col[c] < j->nr_kv ? str(j->values[col[c]]) : "");
		} else {
			char vary[1024] = "";

			for (unsigned c = 0; c < nc && col[c] < j->nr_kv; c++) {
				size_t n = strlen(vary);

				snprintf(vary + n, sizeof(vary) - n, "%s%s=%s", n ? " " : "",
					 str(j->keys[col[c]]), str(j->values[col[c]]));
			}
			wrap(out, "  ", "    ", vary);
			fputs("  ", out);
		}
		if (j->status != KSCEN_OK || !m) {
			fprintf(out, "%12s\n", j->status == KSCEN_SKIPPED ? "skipped" :
				j->status == KSCEN_OK ? "no samples" : "FAILED");
			continue;
		}
		/* the column's unit and scale, this job's digits */
		st = rj->num[0];
		if (!strcmp(str(m->unit), str(m0 ? m0->unit : m->unit))) {
			st = st0;
			kscen_num_decimals(m, &st);
		}
		kscen_format_num(&st, m->sum.median, false, num, sizeof(num));
		if (strcmp(st.unit, st0.unit))
			snprintf(num + strlen(num), sizeof(num) - strlen(num), " %s", st.unit);
		hw = kscen_ci_halfwidth(&m->sum);
		if (m->nr_samples >= 2 && isfinite(hw))
			snprintf(ci, sizeof(ci), "±%.0f%%", hw < 1 ? ceil(hw) : hw);
		else
			*ci = '\0';
		delta(base, sizeof(base), &rj->delta[KSCEN_DELTA_BASELINE]);
		delta(prev, sizeof(prev), &rj->delta[KSCEN_DELTA_PREVIOUS]);
		delta(last_run, sizeof(last_run), &rj->delta[KSCEN_DELTA_REF]);
		/* "±" is two bytes and one column */
		line = open_memstream(&buf, &len);
		fprintf(line, "%12s %*s", num, *ci ? 8 : 7, ci);
		if (have_base)
			fprintf(line, " %7s", base);
		if (have_prev)
			fprintf(line, " %7s", prev);
		if (have_last)
			fprintf(line, " %7s", last_run);
		fclose(line);
		while (len && buf[len - 1] == ' ')
			buf[--len] = '\0';
		fprintf(out, "%s\n", buf);
		free(buf);
	}
}

void report_mail(FILE *out, const struct kscen_report_model *rm)
{
	const struct kscen_run *run = rm->run;
	const unsigned *n = rm->nr_status;

	header(out, run, rm->refs);
	for (unsigned e = 0; e < rm->nr_entries; e++)
		entry(out, rm, &rm->entry[e]);
	fputc('\n', out);
	for (unsigned i = 0; i < run->nr_jobs; i++)
		if (run->jobs[i].status != KSCEN_OK) {
			char *s = kscen_xasprintf("%s: %s", str(run->jobs[i].id),
						  str(run->jobs[i].reason));

			wrap(out, run->jobs[i].status == KSCEN_SKIPPED ? "skipped " :
			     "FAILED ", "  ", s);
			free(s);
		}
	wrap(out, "", "", "Medians of the samples, 95% CI of the median; deltas "
	     "are changes of the median, ~ where not significant (95%).");
	fprintf(out, "%u ok, %u skipped, %u failed\n", n[KSCEN_OK], n[KSCEN_SKIPPED],
		n[KSCEN_FAILED]);
}
