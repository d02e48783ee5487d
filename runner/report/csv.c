// SPDX-License-Identifier: GPL-2.0
/*
 * csv.c - a run for scripts as CSV: a row a job and metric, the columns of
 * the run model (runmodel.c), every parameter, and the deltas of the
 * primary metric from the report model (model.c) as ratios. Samples are
 * counted, not listed, and so are those the sentinels called disturbed
 * (JSON has every sample and its sentinels).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "store/runmodel.h"
#include "lib/util.h"

/* RFC 4180: quote a field with a comma, quote or line break; double quotes. */
static void csv_field(FILE *out, const char *s, bool more)
{
	s = str(s);
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputc(more ? ',' : '\n', out);
}

/*
 * The columns are the fields with a csv position (runmodel.c) of the job,
 * its metric and its noise; a row a metric, or one with the metric's
 * columns empty.
 */
static const struct kscen_field *csv_col(unsigned col, enum kscen_rec *rec)
{
	static const enum kscen_rec recs[] = { KREC_JOB, KREC_METRIC, KREC_NOISE };
	const struct kscen_field *f = NULL;

	for (unsigned i = 0; i < ARRAY_SIZE(recs) && !f; i++)
		if ((f = KSCEN_FIELD_AT(recs[i], csv, col)))
			*rec = recs[i];
	return f;
}

static void csv_row(FILE *out, const struct kscen_job_result *j,
		    const struct kscen_metric *m)
{
	const struct kscen_field *f;
	const void *base;
	char buf[32];
	enum kscen_rec rec;

	for (unsigned col = 1; (f = csv_col(col, &rec)); col++) {
		const char *v = NULL;

		base = rec == KREC_METRIC ? (const void *)m :
		       rec == KREC_NOISE ? (const void *)j->noise : j;
		if (base && f->hook == KH_SAMPLES)
			snprintf(buf, sizeof(buf), "%u", m->nr_samples), v = buf;
		else if (base)
			v = kscen_field_text(f, base, buf, sizeof(buf));
		csv_field(out, v, true);
	}
}

/* Every parameter name of @runs, in the order they first appear. */
static unsigned csv_params(const struct kscen_run *const *runs, unsigned nr_runs,
			   const char ***out)
{
	const char **names = NULL;
	unsigned nr = 0;

	for (unsigned r = 0; r < nr_runs; r++) {
		const struct kscen_run *run = runs[r];

		for (unsigned i = 0; i < run->nr_jobs; i++)
			for (unsigned k = 0; k < run->jobs[i].nr_kv; k++) {
				const char *key = str(run->jobs[i].keys[k]);
				unsigned n = 0;

				while (n < nr && strcmp(names[n], key))
					n++;
				if (n < nr)
					continue;
				names = kscen_xrealloc(names, (nr + 1) * sizeof(*names));
				names[nr++] = key;
			}
	}
	*out = names;
	return nr;
}

static const char *const csv_deltas[] = { "to_baseline", "to_previous", "vs_ref" };

/*
 * A delta as ratio new/old, its 95% CI as ratios, p and the verdict; empty
 * cells without one (@d NULL: a row of a metric that is not the primary).
 */
static void csv_delta(FILE *out, const struct kscen_report_delta *d, bool more)
{
	bool have = d && d->present && isfinite(d->c.rel);
	const struct kscen_change *c = d ? &d->c : NULL;
	char v[4][32] = { "", "", "", "" };

	if (have) {
		snprintf(v[0], sizeof(v[0]), "%.6g", 1 + c->rel);
		if (c->ci_valid) {
			snprintf(v[1], sizeof(v[1]), "%.6g", 1 + c->lo);
			snprintf(v[2], sizeof(v[2]), "%.6g", 1 + c->hi);
		}
		if (isfinite(c->p))
			snprintf(v[3], sizeof(v[3]), "%.4g", c->p);
	}
	for (unsigned i = 0; i < 4; i++)
		csv_field(out, v[i], true);
	csv_field(out, have ? report_finding(c) : "", more);
}

/*
 * A row a job and metric: the run model's columns, then every parameter
 * of the run (empty where a job has not got it), then for the primary
 * metric the change to the baseline, the previous job and the reference;
 * with @lead, a first column "run", the file of the run.
 */
static void csv_header(FILE *out, bool lead, const char **params, unsigned np)
{
	const struct kscen_field *f;
	enum kscen_rec rec;
	unsigned k;

	if (lead)
		fputs("run,", out);
	/*
	 * Headings are the keys, but for the metric's name and its count,
	 * and the noise's, which say so.
	 */
	for (k = 1; (f = csv_col(k, &rec)); k++)
		fprintf(out, "%s%s,", rec == KREC_NOISE ? "noise_" : "",
			f->hook == KH_SAMPLES ? "n" :
			rec == KREC_METRIC && !strcmp(f->key, "name") ? "metric" : f->key);
	for (k = 0; k < np; k++)
		fprintf(out, "param.%s,", params[k]);
	for (k = 0; k < ARRAY_SIZE(csv_deltas); k++)
		fprintf(out, "%s_ratio,%s_ci_low,%s_ci_high,%s_p,%s_verdict%s",
			csv_deltas[k], csv_deltas[k], csv_deltas[k], csv_deltas[k],
			csv_deltas[k], k + 1 < ARRAY_SIZE(csv_deltas) ? "," : "\n");
}

static void csv_rows(FILE *out, const struct kscen_report_model *rm, bool lead,
		     const char **params, unsigned np)
{
	const struct kscen_run *run = rm->run;

	for (unsigned i = 0; i < run->nr_jobs; i++) {
		const struct kscen_report_job *rj = &rm->job[i];
		const struct kscen_job_result *j = rj->job;
		unsigned rows = rj->num ? j->nr_metrics : 1, k;

		for (unsigned r = 0; r < rows; r++) {
			if (lead)
				csv_field(out, run->path, true);
			csv_row(out, j, rj->num ? &j->metrics[r] : NULL);
			for (k = 0; k < np; k++) {
				const char *v = NULL;

				for (unsigned q = 0; q < j->nr_kv && !v; q++)
					if (!strcmp(str(j->keys[q]), params[k]))
						v = j->values[q];
				csv_field(out, v, true);
			}
			/* the deltas are the primary metric's */
			for (k = 0; k < KSCEN_NR_DELTAS; k++)
				csv_delta(out, r ? NULL : &rj->delta[k],
					  k + 1 < KSCEN_NR_DELTAS);
		}
	}
}

void report_csv(FILE *out, const struct kscen_report_model *rm)
{
	const char **params;
	unsigned np = csv_params(&rm->run, 1, &params);

	csv_header(out, false, params, np);
	csv_rows(out, rm, false, params, np);
	free(params);
}

void report_csv_runs(FILE *out, const struct kscen_report_model *const *m,
		     unsigned nr)
{
	const struct kscen_run **runs = kscen_xcalloc(nr + 1, sizeof(*runs));
	const char **params;
	unsigned np;

	for (unsigned k = 0; k < nr; k++)
		runs[k] = m[k]->run;
	np = csv_params(runs, nr, &params);
	csv_header(out, true, params, np);
	for (unsigned k = 0; k < nr; k++)
		csv_rows(out, m[k], true, params, np);
	free(params);
	free(runs);
}
