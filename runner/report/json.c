// SPDX-License-Identifier: GPL-2.0
/*
 * report_json.c - a run for scripts: JSON (every field of the run model,
 * the samples, the deltas of each job) and CSV (one row a job and metric).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envdiff.h"
#include "runmodel.h"
#include "util.h"
#include "emit.h"

/* ---- JSON -------------------------------------------------------------- */

static void json_str(FILE *out, const char *s)
{
	unsigned n;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (; *s; s += n) {
		unsigned char c = *s;

		n = 1;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c == '\r')
			fputs("\\r", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, out);
		else if ((n = kscen_utf8_len(s)))
			fwrite(s, 1, n, out);
		else	/* not UTF-8: JSON must be */
			fputs("\\ufffd", out), n = 1;
	}
	fputc('"', out);
}

static void json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.17g", v);
	else
		fputs("null", out);
}

/* "key": at @depth, the value is the caller's. */
static void jkey(FILE *out, int depth, const char *key)
{
	fprintf(out, "%*s\"%s\": ", 2 * depth, "", key);
}

static void jstr(FILE *out, int depth, const char *key, const char *v,
		 bool more)
{
	jkey(out, depth, key);
	json_str(out, v);
	fputs(more ? ",\n" : "\n", out);
}

static void jlong(FILE *out, int depth, const char *key, long v, bool more)
{
	jkey(out, depth, key);
	fprintf(out, "%ld%s", v, more ? ",\n" : "\n");
}

static void json_metrics(FILE *out, const struct kscen_job_result *j);

/* A field's value as JSON: the model's types, and the report's hooks. */
static void json_value(FILE *out, const struct kscen_field *f, const void *base)
{
	const struct kscen_job_result *j = base;
	const struct kscen_metric *m = base;
	double d;
	char buf[32];
	unsigned i;

	switch (f->type) {
	case KF_STR:
	case KF_STATUS:
	case KF_BETTER:
		json_str(out, kscen_field_text(f, base, buf, sizeof(buf)));
		return;
	case KF_DOUBLE:
		d = *(const double *)kscen_field_cptr(f, base);
		json_num(out, (f->flags & KF_JSON_ZERO) && !(d > 0) ? NAN : d);
		return;
	case KF_PARANOID:
		if (*(const int *)kscen_field_cptr(f, base) == KSCEN_PARANOID_UNKNOWN) {
			fputs("null", out);
			return;
		}
		/* fall through */
	case KF_BOOL:
	case KF_TRI:
	case KF_UINT:
	case KF_LONG:
		fputs(kscen_field_text(f, base, buf, sizeof(buf)) ?: "null", out);
		return;
	case KF_HOOK:
		break;
	}
	if (f->hook == KH_METRICS) {
		json_metrics(out, j);
	} else if (f->hook == KH_SAMPLES) {
		fputc('[', out);
		for (i = 0; i < m->nr_samples; i++) {
			fputs(i ? ", " : "", out);
			json_num(out, m->samples[i]);
		}
		fputc(']', out);
	} else if (f->hook == KH_PARAMS) {
		fputc('{', out);
		for (i = 0; i < j->nr_kv; i++) {
			fputs(i ? ", " : "", out);
			json_str(out, j->keys[i]);
			fputs(": ", out);
			/* Numbers as numbers, like the result file's YAML. */
			if (j->values[i] && kscen_is_number(j->values[i]))
				fputs(j->values[i], out);
			else
				json_str(out, str(j->values[i]));
		}
		fputc('}', out);
	}
}

/*
 * The fields of @rec at JSON positions @from .. @to (runmodel.c), a line
 * each at @depth; @more: something follows the last.
 */
static void json_fields(FILE *out, int depth, enum kscen_rec rec,
			const void *base, unsigned from, unsigned to, bool more)
{
	const struct kscen_field *f;
	bool any = false;

	for (unsigned pos = from; pos <= to &&
	     (f = KSCEN_FIELD_AT(rec, json, pos)); pos++) {
		if ((f->flags & KF_JSON_OPT) &&
		    !*(char *const *)kscen_field_cptr(f, base))
			continue;
		if (any)
			fputs(",\n", out);
		jkey(out, depth, f->key);
		json_value(out, f, base);
		any = true;
	}
	if (any)
		fputs(more ? ",\n" : "\n", out);
}

/* Summaries five a line, after the name, unit, better and samples. */
static void json_metric(FILE *out, const struct kscen_metric *m, bool more)
{
	const struct kscen_field *f;
	unsigned pos;

	fprintf(out, "        {\n");
	json_fields(out, 5, KREC_METRIC, m, 1, 4, true);
	for (pos = 5; (f = KSCEN_FIELD_AT(KREC_METRIC, json, pos)); pos++) {
		if (pos > 5)
			fputs((pos - 5) % 5 ? ", " : ",\n", out);
		if ((pos - 5) % 5 == 0)
			fprintf(out, "%10s", "");
		fprintf(out, "\"%s\": ", f->key);
		json_value(out, f, m);
	}
	fprintf(out, "\n        }%s\n", more ? "," : "");
}

static void json_metrics(FILE *out, const struct kscen_job_result *j)
{
	fputs(j->nr_metrics ? "[\n" : "[]", out);
	for (unsigned i = 0; i < j->nr_metrics; i++)
		json_metric(out, &j->metrics[i], i + 1 < j->nr_metrics);
	if (j->nr_metrics)
		fprintf(out, "      ]");
}

/* "baseline": {"against": id, "rel": ..., "p": ...} or null. */
static void json_change(FILE *out, const char *key, const char *against,
			const struct kscen_change *c, bool have)
{
	jkey(out, 4, key);
	if (!have) {
		fputs("null", out);
		return;
	}
	fputs("{\"against\": ", out);
	json_str(out, against);
	fputs(", \"old\": ", out);
	json_num(out, c->old);
	fputs(", \"new\": ", out);
	json_num(out, c->new_);
	fputs(", \"rel\": ", out);
	json_num(out, c->rel);
	fputs(", \"ci_low\": ", out);
	json_num(out, c->ci_valid ? c->lo : NAN);
	fputs(", \"ci_high\": ", out);
	json_num(out, c->ci_valid ? c->hi : NAN);
	fputs(", \"p\": ", out);
	json_num(out, c->p);
	fprintf(out, ", \"n_old\": %u, \"n_new\": %u, \"paired\": %s, "
		"\"test\": \"%s\", \"verdict\": \"%s\"", c->n_old, c->n_new,
		c->paired ? "true" : "false", kscen_change_test(c),
		c->verdict == KSCEN_WORSE ? "worse" :
		c->verdict == KSCEN_BETTER ? "better" : "same");
	if (c->between) {
		fprintf(out, ", \"history_runs\": %u, \"run_to_run\": ",
			c->hist_runs);
		json_num(out, c->hist_runs >= KSCEN_DRIFT_MIN_RUNS ? c->spread : NAN);
	}
	fputc('}', out);
}

static void json_deltas(FILE *out, const struct kscen_run *run,
			const struct kscen_refs *refs, unsigned ji)
{
	const struct kscen_job_result *j = &run->jobs[ji];
	const struct kscen_run *ref = refs && ji < refs->nr ? refs->ref[ji].run : NULL;
	struct kscen_change c;

	fputs("      \"deltas\": {\n", out);
	json_change(out, "baseline", j->baseline, &c,
		    report_ref_change(run, j, j->baseline, &c));
	fputs(",\n", out);
	json_change(out, "previous", j->previous, &c,
		    report_ref_change(run, j, j->previous, &c));
	fputs(",\n", out);
	json_change(out, "last", ref ? ref->path : NULL, &c,
		    report_last_change(refs, run, ji, &c));
	fputs("\n      },\n", out);
}

/* The job's fields, and its deltas at JSON position 9 (runmodel.c). */
static void json_job(FILE *out, const struct kscen_run *run,
		     const struct kscen_refs *refs, unsigned ji, bool more)
{
	const struct kscen_job_result *j = &run->jobs[ji];

	fprintf(out, "    {\n");
	json_fields(out, 3, KREC_JOB, j, 1, 8, true);
	json_deltas(out, run, refs, ji);
	json_fields(out, 3, KREC_JOB, j, 10, UINT8_MAX, false);
	fprintf(out, "    }%s\n", more ? "," : "");
}

/* "reference": the run named once, and how its machine differs. */
static void json_reference(FILE *out, const struct kscen_run *run,
			   const struct kscen_refs *refs)
{
	const struct kscen_run *m = refs ? refs->main : NULL;
	struct kscen_envdiff *v;
	unsigned nr;

	jkey(out, 1, "reference");
	if (!m) {
		fputs("null,\n", out);
		return;
	}
	fputs("{\n", out);
	jstr(out, 2, "path", m->path, true);
	jstr(out, 2, "started", m->started, true);
	jstr(out, 2, "label", m->label, true);
	jstr(out, 2, "kernel", m->system.kernel, true);
	jlong(out, 2, "jobs_compared", refs->compared, true);
	jkey(out, 2, "environment_diff");
	nr = kscen_env_diff(m, run, &v);
	fputs(nr ? "[\n" : "[]\n", out);
	for (unsigned i = 0; i < nr; i++) {
		fprintf(out, "      {\"field\": ");
		json_str(out, v[i].name);
		fputs(", \"old\": ", out);
		json_str(out, v[i].old);
		fputs(", \"new\": ", out);
		json_str(out, v[i].new_);
		fputs(", \"tokens\": ", out);
		json_str(out, v[i].tokens);
		fprintf(out, "}%s\n", i + 1 < nr ? "," : "");
	}
	if (nr)
		fputs("    ]\n", out);
	kscen_env_diff_free(v, nr);
	fputs("  },\n", out);
}

void report_json(FILE *out, const struct kscen_run *run,
		 const struct kscen_refs *refs)
{
	unsigned i;

	fputs("{\n", out);
	json_fields(out, 1, KREC_RUN, run, 1, UINT8_MAX, true);
	json_reference(out, run, refs);
	fputs("  \"system\": {\n", out);
	json_fields(out, 2, KREC_SYSTEM, &run->system, 1, UINT8_MAX, false);
	fputs("  },\n", out);
	fputs(run->nr_jobs ? "  \"jobs\": [\n" : "  \"jobs\": []\n", out);
	for (i = 0; i < run->nr_jobs; i++)
		json_job(out, run, refs, i, i + 1 < run->nr_jobs);
	if (run->nr_jobs)
		fputs("  ]\n", out);
	fputs("}\n", out);
}

/* ---- CSV --------------------------------------------------------------- */

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
 * The columns are the job's and its metric's fields with a csv position
 * (runmodel.c); a row a metric, or one with the metric's columns empty.
 */
static const struct kscen_field *csv_col(unsigned col, bool *metric)
{
	const struct kscen_field *f = KSCEN_FIELD_AT(KREC_JOB, csv, col);

	if (metric)
		*metric = !f;
	return f ? f : KSCEN_FIELD_AT(KREC_METRIC, csv, col);
}

static void csv_row(FILE *out, const struct kscen_job_result *j,
		    const struct kscen_metric *m)
{
	const struct kscen_field *f;
	const void *base;
	char buf[32];
	bool in_m;

	for (unsigned col = 1; (f = csv_col(col, &in_m)); col++) {
		const char *v = NULL;

		base = in_m ? (const void *)m : j;
		if (base && f->hook == KH_SAMPLES)
			snprintf(buf, sizeof(buf), "%u", m->nr_samples), v = buf;
		else if (base)
			v = kscen_field_text(f, base, buf, sizeof(buf));
		csv_field(out, v, true);
	}
}

/* Every parameter name of the run, in the order they first appear. */
static unsigned csv_params(const struct kscen_run *run, const char ***out)
{
	const char **names = NULL;
	unsigned nr = 0;

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
	*out = names;
	return nr;
}

static const char *const csv_deltas[] = { "to_baseline", "to_previous", "vs_ref" };

/* A delta as ratio new/old, its 95% CI as ratios, p and the verdict. */
static void csv_delta(FILE *out, bool have, const struct kscen_change *c, bool more)
{
	static const char *const verdicts[] = { "same", "better", "worse" };
	char v[4][32] = { "", "", "", "" };

	if (have && isfinite(c->rel)) {
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
	csv_field(out, have && isfinite(c->rel) ? verdicts[c->verdict] : "", more);
}

/*
 * A row a job and metric: the run model's columns, then every parameter
 * of the run (empty where a job has not got it), then for the primary
 * metric the change to the baseline, the previous job and the reference.
 */
void report_csv(FILE *out, const struct kscen_run *run,
		const struct kscen_refs *refs)
{
	const struct kscen_field *f;
	const char **params;
	unsigned i, k, np = csv_params(run, &params);
	bool in_m;

	/* Headings are the keys, but for the metric's name and its count. */
	for (k = 1; (f = csv_col(k, &in_m)); k++)
		fprintf(out, "%s,", f->hook == KH_SAMPLES ? "n" :
			in_m && !strcmp(f->key, "name") ? "metric" : f->key);
	for (k = 0; k < np; k++)
		fprintf(out, "param.%s,", params[k]);
	for (k = 0; k < ARRAY_SIZE(csv_deltas); k++)
		fprintf(out, "%s_ratio,%s_ci_low,%s_ci_high,%s_p,%s_verdict%s",
			csv_deltas[k], csv_deltas[k], csv_deltas[k], csv_deltas[k],
			csv_deltas[k], k + 1 < ARRAY_SIZE(csv_deltas) ? "," : "\n");
	for (i = 0; i < run->nr_jobs; i++) {
		const struct kscen_job_result *j = &run->jobs[i];
		unsigned rows = j->status == KSCEN_OK && j->nr_metrics ? j->nr_metrics : 1;

		for (unsigned r = 0; r < rows; r++) {
			struct kscen_change c;

			csv_row(out, j, j->status == KSCEN_OK && j->nr_metrics ?
				&j->metrics[r] : NULL);
			for (k = 0; k < np; k++) {
				const char *v = NULL;

				for (unsigned q = 0; q < j->nr_kv && !v; q++)
					if (!strcmp(str(j->keys[q]), params[k]))
						v = j->values[q];
				csv_field(out, v, true);
			}
			csv_delta(out, !r && report_ref_change(run, j, j->baseline, &c), &c, true);
			csv_delta(out, !r && report_ref_change(run, j, j->previous, &c), &c, true);
			csv_delta(out, !r && refs && report_last_change(refs, run, i, &c), &c,
				  false);
		}
	}
	free(params);
}
