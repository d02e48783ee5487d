// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - what a run says to people and to scripts: the text report that
 * reads like perf bench (a block a job, "to baseline" and "to previous" deltas
 * as perf bench uprobe prints them, the change against the last run), a
 * markdown table for patch mails, JSON and CSV for scripts, and the delta
 * table of "kscen compare" is compare.c.
 *
 * Every delta goes through struct kscen_change (signif.c): relative change,
 * its 95% CI, p-value and verdict, "~" when not significant, like benchstat.
 * Deltas within a run may use the rounds as pairs; "vs last run" may not.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "envdiff.h"
#include "runmodel.h"
#include "history.h"
#include "util.h"
#include "report.h"
#include "profile_report.h"
#include "shard.h"

/* Stored runs may lack any optional field; print them as empty. */
static const char *str(const char *s)
{
	return s ? s : "";
}

static const char *status_name(enum kscen_status s)
{
	return s == KSCEN_OK ? "ok" : s == KSCEN_SKIPPED ? "skipped" : "failed";
}

const struct kscen_metric *kscen_primary(const struct kscen_job_result *j)
{
	if (!j || j->status != KSCEN_OK || !j->nr_metrics ||
	    !j->metrics[0].nr_samples)
		return NULL;
	return &j->metrics[0];
}

const struct kscen_metric *kscen_find_metric(const struct kscen_job_result *j,
					     const char *name)
{
	unsigned i;

	if (!j || j->status != KSCEN_OK || !name)
		return NULL;
	for (i = 0; i < j->nr_metrics; i++)
		if (j->metrics[i].name && !strcmp(j->metrics[i].name, name) &&
		    j->metrics[i].nr_samples)
			return &j->metrics[i];
	return NULL;
}

/* "usecs/op" says more than its unit "usecs"; otherwise show both. */
void kscen_metric_label(const struct kscen_metric *m, char *buf, size_t len)
{
	const char *name = str(m->name), *unit = str(m->unit);

	if (!*unit || !strncmp(name, unit, strlen(unit)))
		snprintf(buf, len, "%s", name);
	else if (!*name)
		snprintf(buf, len, "%s", unit);
	else
		snprintf(buf, len, "%s (%s)", unit, name);
}


/* "2026-12-01T10:02:33Z" -> "2026-12-01T10:02Z" */
static void short_time(const char *iso, char *buf, size_t len)
{
	if (iso && strlen(iso) >= 17 && iso[13] == ':' && iso[16] == ':')
		snprintf(buf, len, "%.16sZ", iso);
	else
		snprintf(buf, len, "%s", iso ? iso : "unknown time");
}

/* ---- Changes ------------------------------------------------------------ */

static void pct(char *buf, size_t len, double v)
{
	/* "+0.0%" for a tiny negative would read as a sign error. */
	snprintf(buf, len, "%+.1f%%", fabs(v) < 0.0005 ? 0.0 : 100 * v);
}

/* Between runs: what the interval allows for, or that it allows for nothing. */
static void between_note(const struct kscen_change *c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (c->between && c->hist_runs < KSCEN_DRIFT_MIN_RUNS)
		snprintf(buf, len, "; in-run noise only (%u earlier run%s)",
			 c->hist_runs, c->hist_runs == 1 ? "" : "s");
	else if (c->between && !c->drift)
		snprintf(buf, len, "; run-to-run ±%.1f%%, %u runs",
			 100 * c->spread, c->hist_runs);
}

void kscen_format_change(const struct kscen_change *c, char *buf, size_t len)
{
	char rel[32], lo[32], hi[32], n[32], note[64];

	if (!isfinite(c->rel)) {
		snprintf(buf, len, "n/a");
		return;
	}
	pct(rel, sizeof(rel), c->rel);
	if (c->paired)
		snprintf(n, sizeof(n), "n=%u pairs", c->n_new);
	else
		snprintf(n, sizeof(n), "n=%u+%u", c->n_old, c->n_new);
	between_note(c, note, sizeof(note));
	if (!c->ci_valid || !isfinite(c->lo)) {
		snprintf(buf, len, "%s ~ (too few samples for a 95%% CI, %s%s)",
			 rel, n, note);
		return;
	}
	pct(lo, sizeof(lo), c->lo);
	pct(hi, sizeof(hi), c->hi);
	if (c->drift) {
		/* The interval is the evidence; the in-run p would overclaim. */
		snprintf(buf, len, "%s [%s .. %s] %s (run-to-run ±%.1f%%, %u runs%s%s)",
			 rel, lo, hi, c->verdict == KSCEN_WORSE ? "worse" :
			 c->verdict == KSCEN_BETTER ? "better" : "~",
			 100 * c->spread, c->hist_runs, kscen_verbose ? "; " : "",
			 kscen_verbose ? n : "");
		return;
	}
	snprintf(buf, len, "%s [%s .. %s] %s (p%s%.3f %s%s%s%s)", rel, lo, hi,
		 c->verdict == KSCEN_WORSE ? "worse" :
		 c->verdict == KSCEN_BETTER ? "better" : "~",
		 c->p < 0.001 ? "<" : "=", c->p < 0.001 ? 0.001 : c->p, n,
		 kscen_verbose ? ", " : "", kscen_verbose ? kscen_change_test(c) : "",
		 note);
}

/*
 * Below 6 samples the interval is [min, max], whose coverage is only
 * 1 - 2^(1-n): 93.8% for the default 5. Say so rather than call it 95%.
 */
static double ci_level(unsigned n)
{
	return kscen_median_ci_rank(n) ? 95 : 100 * (1 - ldexp(1, 1 - (int)n));
}

void kscen_format_ci(const struct kscen_metric *m, char *buf, size_t len)
{
	double hw = kscen_ci_halfwidth(&m->sum);

	if (m->nr_samples < 2 || !isfinite(hw))
		snprintf(buf, len, "(n=%u)", m->nr_samples);
	else if (!kscen_median_ci_rank(m->nr_samples))
		snprintf(buf, len, "±%.1f%% (%.1f%%)", hw, ci_level(m->nr_samples));
	else
		snprintf(buf, len, "±%.1f%%", hw);
}

/* @j's primary metric against job @ref of the same run: rounds pair them. */
static bool ref_change(const struct kscen_run *run,
		       const struct kscen_job_result *j, const char *ref,
		       struct kscen_change *c)
{
	const struct kscen_metric *m = kscen_primary(j);

	if (!m || !ref || !j->id || !strcmp(ref, j->id))
		return false;
	return kscen_change_compute(kscen_find_metric(kscen_run_find(run, ref),
						      m->name), m, true, c);
}

/* Job @i against its reference run: never paired, drift allowed for. */
static bool last_change(const struct kscen_refs *refs, const struct kscen_run *run,
			unsigned i, struct kscen_change *c)
{
	return kscen_ref_change(refs, run, i, c);
}

/*
 * How a reference is named: by its label ("v6.8-rc1"), by its kernel when
 * that differs ("6.1.0-47-amd64"), else "last run"; @date adds when it ran
 * (for the jobs whose reference is not the one named at the top).
 */
static void ref_name(const struct kscen_run *run, const struct kscen_run *ref,
		     bool date, char *buf, size_t len)
{
	char when[40];

	short_time(ref->started, when, sizeof(when));
	if (ref->label)
		snprintf(buf, len, "%s", ref->label);
	else if (strcmp(str(ref->system.kernel), str(run->system.kernel)) ||
		 strcmp(str(ref->system.kernel_build), str(run->system.kernel_build)))
		snprintf(buf, len, "%s", str(ref->system.kernel));
	else
		snprintf(buf, len, "last run");
	if (date && strlen(buf) + strlen(when) + 4 <= len)
		sprintf(buf + strlen(buf), " (%s)", when);
}

/* The reference, once for the run: what it is, and how its machine differs. */
static void text_reference(FILE *out, const struct kscen_run *run,
			   const struct kscen_refs *refs)
{
	const struct kscen_run *m;
	char when[64];

	if (!refs || !refs->asked)
		return;
	m = refs->main;
	if (!m) {
		fprintf(out, "# reference: none: no earlier complete run holds these jobs\n");
		return;
	}
	short_time(m->started, when, sizeof(when));
	fprintf(out, "# reference: %s%s%s, kernel %s, %s\n", when,
		m->label ? ", label " : "", m->label ? m->label : "",
		str(m->system.kernel), str(m->path));
	if (refs->compared < run->nr_jobs)
		fprintf(out, "#   %u of %u jobs have a reference\n", refs->compared,
			run->nr_jobs);
	kscen_env_diff_print(out, m, run, "# ");
}

/*
 * The hint, once: where drift between runs hides changes over 5%, an
 * interleaved comparison inside one run sees them.
 */
static void text_hint(FILE *out, const struct kscen_run *run,
		      const struct kscen_refs *refs)
{
	double worst = 0;

	for (unsigned i = 0; refs && i < refs->nr && i < run->nr_jobs; i++)
		if (refs->ref[i].run && refs->ref[i].drift.runs >= KSCEN_DRIFT_MIN_RUNS)
			worst = fmax(worst, expm1(refs->ref[i].drift.mde_between));
	if (worst <= 0.05)
		return;
	fprintf(out, "\n# between runs, changes under %.0f%% cannot be told from "
		"run-to-run drift here\n# (kscen calibrate); for a sharper answer "
		"put both variants in one scenario,\n# as an axis with a "
		"baseline: their rounds are then interleaved\n", 100 * worst);
}

/* ", converged after 12" / ", did not converge: ±7.2% after max 30" */
static void convergence(const struct kscen_run *run,
			const struct kscen_job_result *j,
			const struct kscen_metric *m, char *buf, size_t len)
{
	buf[0] = '\0';
	if (j->converged < 0)
		return;
	if (j->converged)
		snprintf(buf, len, ", converged after %u", m->nr_samples);
	else if (isfinite(kscen_ci_halfwidth(&m->sum)) &&
		 kscen_median_ci_rank(m->nr_samples))
		snprintf(buf, len, ", did not converge: ±%.1f%% after max %u",
			 kscen_ci_halfwidth(&m->sum), m->nr_samples);
	else
		snprintf(buf, len, ", did not converge after max %u",
			 run->max_repeat ? run->max_repeat : m->nr_samples);
}

/* ---- Text -------------------------------------------------------------- */

static void text_summary(FILE *out, const struct kscen_run *run,
			 const struct kscen_job_result *j,
			 const struct kscen_metric *m)
{
	char conv[96];

	double hw = kscen_ci_halfwidth(&m->sum);

	fprintf(out, "   (median of %u", m->nr_samples);
	if (m->nr_samples >= 2 && isfinite(hw))
		fprintf(out, ", %.3g%% CI ±%.1f%%", ci_level(m->nr_samples), hw);
	if (isfinite(m->sum.cv))
		fprintf(out, ", CV %.1f%%", 100 * m->sum.cv);
	if (m->sum.outliers)
		fprintf(out, ", %u outlier%s", m->sum.outliers,
			m->sum.outliers > 1 ? "s" : "");
	convergence(run, j, m, conv, sizeof(conv));
	fprintf(out, "%s)\n", conv);
	if (m->sum.bimodal)
		fprintf(out, "     warning: bimodal samples (%g .. %g): the median "
			"hides two modes\n", m->sum.min, m->sum.max);
}

static void text_job(FILE *out, const struct kscen_run *run,
		     const struct kscen_refs *refs, unsigned ji)
{
	const struct kscen_job_result *j = &run->jobs[ji];
	const struct kscen_metric *m = kscen_primary(j);
	char lbl[128], chg[192], when[64];
	struct kscen_change cb, cp, cl;
	bool hb, hp;
	const char *d0, *nl;
	unsigned i;

	fprintf(out, "# Running %s/%s\n", str(run->scenario), str(j->id));
	for (d0 = j->describe; d0; d0 = nl ? nl + 1 : NULL) {
		nl = strchr(d0, '\n');
		fprintf(out, "# %.*s\n", nl ? (int)(nl - d0) : (int)strlen(d0),
			d0);
	}
	if (j->status != KSCEN_OK) {
		fprintf(out, "     %s: %s\n",
			j->status == KSCEN_SKIPPED ? "skipped" : "FAILED",
			j->reason ? j->reason : "no reason given");
		return;
	}
	if (!m) {
		fprintf(out, "     no samples\n");
		return;
	}
	kscen_metric_label(m, lbl, sizeof(lbl));
	fprintf(out, "     %14.6f %s", m->sum.median, lbl);
	hb = ref_change(run, j, j->baseline, &cb);
	hp = ref_change(run, j, j->previous, &cp);
	/* perf bench uprobe's absolute deltas, then the honest ones below. */
	if (hb)
		fprintf(out, " %+.3f to baseline", cb.new_ - cb.old);
	if (hp)
		fprintf(out, " %+.3f to previous", cp.new_ - cp.old);
	text_summary(out, run, j, m);

	for (i = 1; i < j->nr_metrics; i++) {
		if (!j->metrics[i].nr_samples)
			continue;
		kscen_metric_label(&j->metrics[i], lbl, sizeof(lbl));
		fprintf(out, "     %14.6f %s\n", j->metrics[i].sum.median, lbl);
	}
	if (hb) {
		kscen_format_change(&cb, chg, sizeof(chg));
		fprintf(out, "     to baseline: %s\n", chg);
	}
	/* The second of a two-value axis: one line says both. */
	if (hp && !(hb && !strcmp(j->baseline, j->previous))) {
		kscen_format_change(&cp, chg, sizeof(chg));
		fprintf(out, "     to previous: %s\n", chg);
	}
	if (last_change(refs, run, ji, &cl)) {
		const struct kscen_run *ref = refs->ref[ji].run;

		kscen_format_change(&cl, chg, sizeof(chg));
		ref_name(run, ref, ref != refs->main, when, sizeof(when));
		fprintf(out, "     vs %s: %s\n", when, chg);
	}
	kscen_profile_job_report(out, run, j, false);	/* profile_report.h */
}

static void text(FILE *out, const struct kscen_run *run,
		 const struct kscen_refs *refs)
{
	const struct kscen_system *sys = &run->system;
	unsigned i, n[3] = { 0 };

	fprintf(out, "# kscen %s: scenario %s, %u jobs, repeat %u (warmup %u)",
		run->version ? run->version : KSCEN_VERSION,
		str(run->scenario), run->nr_jobs, run->repeat, run->warmup);
	if (run->until_ci > 0)
		fprintf(out, ", auto: until ±%g%% or %u", run->until_ci,
			run->max_repeat);
	fprintf(out, "\n# %s %s, %s, %ld CPUs\n", str(sys->kernel),
		str(sys->arch), sys->cpu_model ? sys->cpu_model : "unknown CPU",
		sys->nr_cpus);
	if (run->label)
		fprintf(out, "# label: %s\n", run->label);
	if (run->shard)
		fprintf(out, "# shard: %s\n", run->shard);
	if (run->nr_shards)
		kscen_shards_print(out, run);
	if (run->partial)
		fprintf(out, "# partial: the run was cut short\n");
	if (run->test_hooks)
		fprintf(out, "# test hooks set, changing what is measured: %s\n",
			run->test_hooks);
	text_reference(out, run, refs);
	for (i = 0; i < run->nr_jobs; i++) {
		fputc('\n', out);
		text_job(out, run, refs, i);
		n[run->jobs[i].status <= KSCEN_FAILED ? run->jobs[i].status :
						       KSCEN_FAILED]++;
	}
	fprintf(out, "\n# %u ok, %u skipped, %u failed\n", n[KSCEN_OK],
		n[KSCEN_SKIPPED], n[KSCEN_FAILED]);
	text_hint(out, run, refs);
}

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

	snprintf(status, sizeof(status), "%s%s%s", status_name(j->status),
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
		md_change(out, &c, !i && ref_change(run, j, j->baseline, &c));
		md_change(out, &c, !i && ref_change(run, j, j->previous, &c));
		md_change(out, &c, !i && last_change(refs, run, ji, &c));
		md_cell(out, status);
		fputs("|\n", out);
	}
}

static void markdown(FILE *out, const struct kscen_run *run,
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
		short_time(refs->main->started, when, sizeof(when));
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
		    ref_change(run, j, j->baseline, &c));
	fputs(",\n", out);
	json_change(out, "previous", j->previous, &c,
		    ref_change(run, j, j->previous, &c));
	fputs(",\n", out);
	json_change(out, "last", ref ? ref->path : NULL, &c,
		    last_change(refs, run, ji, &c));
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

static void json(FILE *out, const struct kscen_run *run,
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
		csv_field(out, v, csv_col(col + 1, NULL));
	}
}

static void csv(FILE *out, const struct kscen_run *run)
{
	const struct kscen_job_result *j;
	const struct kscen_field *f;
	unsigned i, k;
	bool in_m;

	/* Headings are the keys, but for the metric's name and its count. */
	for (k = 1; (f = csv_col(k, &in_m)); k++) {
		fputs(f->hook == KH_SAMPLES ? "n" : in_m && !strcmp(f->key, "name") ?
		      "metric" : f->key, out);
		fputc(csv_col(k + 1, NULL) ? ',' : '\n', out);
	}
	for (i = 0; i < run->nr_jobs; i++) {
		j = &run->jobs[i];
		if (j->status != KSCEN_OK || !j->nr_metrics)
			csv_row(out, j, NULL);
		else
			for (k = 0; k < j->nr_metrics; k++)
				csv_row(out, j, &j->metrics[k]);
	}
}

void kscen_report(FILE *out, const struct kscen_run *run,
		  const struct kscen_refs *refs, enum kscen_format fmt)
{
	switch (fmt) {
	case KSCEN_FMT_MARKDOWN:
		markdown(out, run, refs);
		break;
	case KSCEN_FMT_JSON:
		json(out, run, refs);
		break;
	case KSCEN_FMT_CSV:
		csv(out, run);
		break;
	case KSCEN_FMT_TEXT:
	default:
		text(out, run, refs);
		break;
	}
}
