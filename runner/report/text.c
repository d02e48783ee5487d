// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - what a run says to people and to scripts: the text report that
 * reads like perf bench (a block a job, "to baseline" and "to previous" deltas
 * as perf bench uprobe prints them, the change against the last run), a
 * markdown table for patch mails (report_md.c), JSON and CSV for scripts
 * (report_json.c); the delta table of "kscen compare" is compare.c.
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
#include "util.h"
#include "report.h"
#include "profile_report.h"
#include "shard.h"
#include "emit.h"


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

void kscen_num_style(const struct kscen_metric *m, struct kscen_num *st)
{
	static const struct { const char *unit; double scale; } secs[] = {
		{ "s", 1 }, { "ms", 1e3 }, { "us", 1e6 }, { "ns", 1e9 },
	};
	double v = fabs(m->sum.median);

	st->unit = str(m->unit);
	st->scale = 1;
	if (!strcmp(st->unit, "s") && v > 0) {
		for (unsigned i = 0; i < ARRAY_SIZE(secs); i++) {
			st->unit = secs[i].unit;
			st->scale = secs[i].scale;
			if (v * st->scale >= 1)
				break;
		}
	}
	kscen_num_decimals(m, st);
}

void kscen_num_decimals(const struct kscen_metric *m, struct kscen_num *st)
{
	double v = fabs(m->sum.median) * st->scale, hw = kscen_ci_halfwidth(&m->sum);
	double half = isfinite(hw) && hw > 0 ? v * hw / 100 : 0;

	/* The last digit where the CI is; 4 significant ones without one. */
	if (half > 0)
		st->decimals = (int)ceil(-log10(half));
	else
		st->decimals = v > 0 ? 3 - (int)floor(log10(v)) : 0;
	st->decimals = st->decimals < 0 ? 0 : st->decimals > 6 ? 6 : st->decimals;
}

void kscen_format_num(const struct kscen_num *st, double v, bool sign,
		      char *buf, size_t len)
{
	char digits[64], *dot;
	size_t n, lead, o = 0;

	if (!isfinite(v)) {
		snprintf(buf, len, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
		return;
	}
	/* No 300-digit numbers: past 10^12 the significant digits only. */
	if (fabs(v * st->scale) >= 1e12) {
		snprintf(buf, len, sign ? "%+.4g" : "%.4g", v * st->scale);
		return;
	}
	snprintf(digits, sizeof(digits), sign ? "%+.*f" : "%.*f", st->decimals,
		 v * st->scale);
	/* perf bench's thousands separators, from 10,000 up */
	dot = strchr(digits, '.');
	n = dot ? (size_t)(dot - digits) : strlen(digits);
	lead = digits[0] == '+' || digits[0] == '-';
	if (n - lead < 5) {
		snprintf(buf, len, "%s", digits);
		return;
	}
	for (size_t i = 0; digits[i] && o + 1 < len; i++) {
		if (i > lead && i < n && (n - i) % 3 == 0 && o + 2 < len)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

unsigned kscen_entry_last(const struct kscen_run *run, unsigned first)
{
	unsigned last = first;

	while (last + 1 < run->nr_jobs &&
	       !strcmp(str(run->jobs[last + 1].name), str(run->jobs[first].name)))
		last++;
	return last;
}

bool kscen_entry_param_fixed(const struct kscen_run *run, unsigned first,
			     unsigned last, unsigned k)
{
	const struct kscen_job_result *a = &run->jobs[first];

	for (unsigned i = first + 1; i <= last; i++)
		if (run->jobs[i].nr_kv != a->nr_kv ||
		    strcmp(str(run->jobs[i].keys[k]), str(a->keys[k])) ||
		    strcmp(str(run->jobs[i].values[k]), str(a->values[k])))
			return false;
	return true;
}

/* "2026-12-01T10:02:33Z" -> "2026-12-01T10:02Z" */
void report_short_time(const char *iso, char *buf, size_t len)
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
double report_ci_level(unsigned n)
{
	return kscen_median_ci_rank(n) ? 95 : 100 * (1 - ldexp(1, 1 - (int)n));
}

void kscen_format_ci(const struct kscen_metric *m, char *buf, size_t len)
{
	double hw = kscen_ci_halfwidth(&m->sum);

	if (m->nr_samples < 2 || !isfinite(hw))
		snprintf(buf, len, "(n=%u)", m->nr_samples);
	else if (!kscen_median_ci_rank(m->nr_samples))
		snprintf(buf, len, "±%.1f%% (%.1f%%)", hw, report_ci_level(m->nr_samples));
	else
		snprintf(buf, len, "±%.1f%%", hw);
}

/* @j's primary metric against job @ref of the same run: rounds pair them. */
bool report_ref_change(const struct kscen_run *run,
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
bool report_last_change(const struct kscen_refs *refs, const struct kscen_run *run,
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

	report_short_time(ref->started, when, sizeof(when));
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
	report_short_time(m->started, when, sizeof(when));
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
		fprintf(out, ", %.3g%% CI ±%.1f%%", report_ci_level(m->nr_samples), hw);
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

/* "     23.6 ms (wall_time)": scaled, digits from its CI, no newline. */
static void text_value(FILE *out, const struct kscen_metric *m)
{
	struct kscen_metric scaled = *m;
	struct kscen_num st;
	char num[64], lbl[128];

	kscen_num_style(m, &st);
	kscen_format_num(&st, m->sum.median, false, num, sizeof(num));
	scaled.unit = (char *)st.unit;
	kscen_metric_label(&scaled, lbl, sizeof(lbl));
	fprintf(out, "     %14s %s", num, lbl);
}

static void text_job(FILE *out, const struct kscen_run *run,
		     const struct kscen_refs *refs, unsigned ji)
{
	const struct kscen_job_result *j = &run->jobs[ji];
	const struct kscen_metric *m = kscen_primary(j);
	char chg[192], when[64], num[64];
	struct kscen_change cb, cp, cl;
	struct kscen_num st;
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
	text_value(out, m);
	hb = report_ref_change(run, j, j->baseline, &cb);
	hp = report_ref_change(run, j, j->previous, &cp);
	/*
	 * perf bench uprobe's absolute deltas, in the unit and digits of the
	 * value, then the honest ones below.
	 */
	kscen_num_style(m, &st);
	if (hb) {
		kscen_format_num(&st, cb.new_ - cb.old, true, num, sizeof(num));
		fprintf(out, " %s to baseline", num);
	}
	if (hp) {
		kscen_format_num(&st, cp.new_ - cp.old, true, num, sizeof(num));
		fprintf(out, " %s to previous", num);
	}
	text_summary(out, run, j, m);

	for (i = 1; i < j->nr_metrics; i++) {
		if (!j->metrics[i].nr_samples)
			continue;
		text_value(out, &j->metrics[i]);
		fputc('\n', out);
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
	if (report_last_change(refs, run, ji, &cl)) {
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

void kscen_report(FILE *out, const struct kscen_run *run,
		  const struct kscen_refs *refs, enum kscen_format fmt)
{
	switch (fmt) {
	case KSCEN_FMT_MARKDOWN:
		report_markdown(out, run, refs);
		break;
	case KSCEN_FMT_JSON:
		report_json(out, run, refs);
		break;
	case KSCEN_FMT_CSV:
		report_csv(out, run, refs);
		break;
	case KSCEN_FMT_MAIL:
		report_mail(out, run, refs);
		break;
	case KSCEN_FMT_TEXT:
	default:
		text(out, run, refs);
		break;
	}
}
