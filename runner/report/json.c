// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - a run for scripts as JSON: every field of the run model
 * (runmodel.c), the samples, and the deltas of each job from the report
 * model (model.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "envdiff.h"
#include "store/runmodel.h"
#include "lib/util.h"

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
static void json_noise(FILE *out, const struct kscen_noise_rec *n);

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
	} else if (f->hook == KH_NOISE) {
		json_noise(out, j->noise);
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

/*
 * A job's noise: its policy and counts, and a sample a line with every
 * field of the record, null where unknown.
 */
static void json_noise(FILE *out, const struct kscen_noise_rec *n)
{
	const struct kscen_field *f;

	if (!n) {
		fputs("null", out);
		return;
	}
	fputs("{\n", out);
	json_fields(out, 4, KREC_NOISE, n, 1, 3, true);
	jkey(out, 4, "samples");
	fputs(n->nr_samples ? "[\n" : "[]", out);
	for (unsigned i = 0; i < n->nr_samples; i++) {
		const struct kscen_sample_rec *s = &n->samples[i];

		fprintf(out, "%10s{", "");
		for (unsigned pos = 1; (f = KSCEN_FIELD_AT(KREC_SAMPLE, json, pos)); pos++) {
			fprintf(out, "%s\"%s\": ", pos > 1 ? ", " : "", f->key);
			if ((f->flags & KF_OPTIONAL) && f->type != KF_BOOL &&
			    !kscen_field_is_set(f, s))
				fputs("null", out);
			else
				json_value(out, f, s);
		}
		fprintf(out, "}%s\n", i + 1 < n->nr_samples ? "," : "");
	}
	if (n->nr_samples)
		fprintf(out, "%8s]", "");
	fprintf(out, "\n%6s}", "");
}

/* "baseline": {"against": id, "rel": ..., "p": ...} or null. */
static void json_change(FILE *out, const char *key, const char *against,
			const struct kscen_report_delta *d)
{
	const struct kscen_change *c = &d->c;

	jkey(out, 4, key);
	if (!d->present) {
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
		report_finding(c));
	if (c->between) {
		fprintf(out, ", \"history_runs\": %u, \"run_to_run\": ",
			c->hist_runs);
		json_num(out, c->hist_runs >= KSCEN_DRIFT_MIN_RUNS ? c->spread : NAN);
	}
	fputc('}', out);
}

static void json_deltas(FILE *out, const struct kscen_report_job *rj)
{
	const struct kscen_job_result *j = rj->job;

	fputs("      \"deltas\": {\n", out);
	json_change(out, "baseline", j->baseline, &rj->delta[KSCEN_DELTA_BASELINE]);
	fputs(",\n", out);
	json_change(out, "previous", j->previous, &rj->delta[KSCEN_DELTA_PREVIOUS]);
	fputs(",\n", out);
	json_change(out, "last", rj->ref ? rj->ref->path : NULL,
		    &rj->delta[KSCEN_DELTA_REF]);
	fputs("\n      },\n", out);
}

/* The job's fields, and its deltas at JSON position 9 (runmodel.c). */
static void json_job(FILE *out, const struct kscen_report_job *rj, bool more)
{
	const struct kscen_job_result *j = rj->job;

	fprintf(out, "    {\n");
	json_fields(out, 3, KREC_JOB, j, 1, 8, true);
	json_deltas(out, rj);
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

void report_json(FILE *out, const struct kscen_report_model *rm)
{
	const struct kscen_run *run = rm->run;
	unsigned i;

	fprintf(out, "{\n  \"format\": %d,\n", KSCEN_JSON_FORMAT);
	json_fields(out, 1, KREC_RUN, run, 1, UINT8_MAX, true);
	json_reference(out, run, rm->refs);
	fputs("  \"system\": {\n", out);
	json_fields(out, 2, KREC_SYSTEM, &run->system, 1, UINT8_MAX, false);
	fputs("  },\n", out);
	fputs(run->nr_jobs ? "  \"jobs\": [\n" : "  \"jobs\": []\n", out);
	for (i = 0; i < run->nr_jobs; i++)
		json_job(out, &rm->job[i], i + 1 < run->nr_jobs);
	if (run->nr_jobs)
		fputs("  ]\n", out);
	fputs("}\n", out);
}
