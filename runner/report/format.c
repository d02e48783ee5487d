// SPDX-License-Identifier: GPL-2.0
/*
 * format.c - what every emitter of a report (and compare.c) writes the same
 * way: numbers as people read them (the digits the CI allows, 12,345;
 * their units are units.c's), a change
 * as "+10.0% [+5.2% .. +14.1%] worse (p=0.008 n=5+5)" with "~" when not
 * significant, like benchstat, and a median's CI.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "report.h"
#include "lib/util.h"

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

void kscen_format_delta(const struct kscen_num *st, double d, char *buf, size_t len)
{
	struct kscen_num more = *st;
	double v = fabs(d * st->scale);

	/* A change that rounds to 0 at the value's digits gets the digits it needs. */
	if (v > 0 && isfinite(v) && v < 0.5 * pow(10, -st->decimals)) {
		int need = (int)ceil(-log10(v));

		more.decimals = need > 9 ? 9 : need;
	}
	kscen_format_num(&more, d, true, buf, len);
}

void report_partial_why(const struct kscen_run *run, char *buf, size_t len)
{
	const char *m = run->missing_shards;

	if (m && *m)
		snprintf(buf, len, "shard%s %s missing", strchr(m, ' ') ? "s" : "", m);
	else if (run->nr_shards)
		snprintf(buf, len, "a shard was cut short");
	else
		snprintf(buf, len, "the run was cut short");
}

/* "2026-12-01T10:02:33Z" -> "2026-12-01T10:02Z" */
void report_short_time(const char *iso, char *buf, size_t len)
{
	if (iso && strlen(iso) >= 17 && iso[13] == ':' && iso[16] == ':')
		snprintf(buf, len, "%.16sZ", iso);
	else
		snprintf(buf, len, "%s", iso ? iso : "unknown time");
}

void kscen_short_time(const char *iso, char *buf, size_t len)
{
	report_short_time(iso, buf, len);
}

/* ---- Changes ------------------------------------------------------------ */

static void pct(char *buf, size_t len, double v)
{
	/* "+0.0%" for a tiny negative would read as a sign error. */
	snprintf(buf, len, "%+.1f%%", fabs(v) < 0.0005 ? 0.0 : 100 * v);
}

void kscen_format_spread(double v, char *buf, size_t len)
{
	/*
	 * A small allowance keeps its digits: never a ±0.0% that is not 0.
	 * Exactly 0 is a metric whose samples never moved (a count, a value
	 * the workload prints): "±0".
	 */
	if (!isfinite(v))
		snprintf(buf, len, "±?");
	else if (v == 0)
		snprintf(buf, len, "±0");
	else if (v > 0 && v < 0.001)
		snprintf(buf, len, "±%.2g%%", 100 * v);
	else
		snprintf(buf, len, "±%.1f%%", 100 * v);
}

const char *report_finding(const struct kscen_change *c)
{
	if (c->verdict == KSCEN_WORSE)
		return "worse";
	if (c->verdict == KSCEN_BETTER)
		return "better";
	if (c->verdict == KSCEN_CANNOT_TELL)
		return "cannot_tell";
	return c->ci_valid && isfinite(c->lo) ? "no_significant_change" :
	       "too_few_samples";
}

/* "p=0.008" or "p<0.001", and " q=..." where it has one */
static void pq(char *buf, size_t len, double p, double q)
{
	int n = snprintf(buf, len, "p%s%.3f", p < 0.001 ? "<" : "=",
			 p < 0.001 ? 0.001 : p);

	if (isfinite(q) && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " q%s%.3f", q < 0.001 ? "<" : "=",
			 q < 0.001 ? 0.001 : q);
}

/* What the interval allows for: the run-to-run drift, and where it came from. */
static void allowance(const struct kscen_change *c, char *buf, size_t len)
{
	char sp[32];

	kscen_format_spread(c->spread, sp, sizeof(sp));
	if (c->src == KSCEN_DRIFT_POOL)
		snprintf(buf, len, "run-to-run %s pooled over %s; %u run%s", sp, c->pool,
			 c->hist_runs, c->hist_runs == 1 ? "" : "s");
	else
		snprintf(buf, len, "run-to-run %s, %u runs", sp, c->hist_runs);
}

void kscen_format_change(const struct kscen_change *c, double q, char *buf,
			 size_t len)
{
	char rel[32], lo[32], hi[32], n[48], p[48], note[128];
	const char *v = c->verdict == KSCEN_WORSE ? "worse" :
			c->verdict == KSCEN_BETTER ? "better" : "~";

	if (!isfinite(c->rel)) {
		snprintf(buf, len, "n/a");
		return;
	}
	pct(rel, sizeof(rel), c->rel);
	if (c->paired)
		snprintf(n, sizeof(n), "n=%u pairs", c->n_new);
	else
		snprintf(n, sizeof(n), "n=%u+%u", c->n_old, c->n_new);
	if (c->verdict == KSCEN_CANNOT_TELL) {
		snprintf(buf, len, "%s cannot tell (no run-to-run estimate, %u run%s)",
			 rel, c->hist_runs, c->hist_runs == 1 ? "" : "s");
		return;
	}
	if (!c->ci_valid || !isfinite(c->lo)) {
		snprintf(buf, len, "%s ~ (too few samples for a 95%% CI, %s)", rel, n);
		return;
	}
	pct(lo, sizeof(lo), c->lo);
	pct(hi, sizeof(hi), c->hi);
	pq(p, sizeof(p), c->p, q);
	if (c->drift) {
		allowance(c, note, sizeof(note));
		snprintf(buf, len, "%s [%s .. %s] %s (%s; %s%s%s)", rel, lo, hi, v, p,
			 note, kscen_verbose ? "; " : "", kscen_verbose ? n : "");
		return;
	}
	snprintf(buf, len, "%s [%s .. %s] %s (%s %s%s%s)", rel, lo, hi, v, p, n,
		 kscen_verbose ? ", " : "", kscen_verbose ? kscen_change_test(c) : "");
}

/*
 * The interval's true coverage: below 6 samples it is [min, max], only
 * 1 - 2^(1-n), 93.8% for the default 5; from 6 on a little over 95%.
 */
double report_ci_level(unsigned n)
{
	return kscen_median_ci_level(n);
}

void kscen_format_ci(const struct kscen_metric *m, char *buf, size_t len)
{
	double hw = kscen_ci_halfwidth(&m->sum);

	if (m->nr_samples < 2 || !isfinite(hw))
		snprintf(buf, len, "(n=%u)", m->nr_samples);
	else if (!kscen_median_ci_rank(m->nr_samples))
		snprintf(buf, len, "±%.1f%% (%.1f%%)", hw, report_ci_level(m->nr_samples));
	else
		snprintf(buf, len, "±%.1f%%", hw);	/* 95% or a little more */
}

/* ---- What a run's comparisons add up to ---------------------------------- */

bool kscen_family_too_few(const struct kscen_report_family *f, double q)
{
	return f->m && f->p_min > q / f->m;
}

static const char *const fam_names[] = {
	[KSCEN_FAM_WITHIN] = "within the run",
	[KSCEN_FAM_BETWEEN] = "against the reference",
};

void report_family_line(const struct kscen_report_family *fam, const char *name,
			char *buf, size_t len)
{
	int o = snprintf(buf, len, "%s: %u of %u changed; %s %.*f expected by "
			 "chance", name, fam->changed, fam->m,
			 fam->widened ? "at most" : "about",
			 fam->expected < 0.095 ? 2 : 1, fam->expected);

	if (fam->changed && o > 0 && (size_t)o < len)
		snprintf(buf + o, len - o, "; %u with q <= %.2g", fam->found, KSCEN_FDR);
}

unsigned report_footer(const struct kscen_report_model *m, char (*line)[REPORT_LINE],
		       unsigned max)
{
	unsigned n = 0;

	for (unsigned f = 0; f < KSCEN_NR_FAMS && n < max; f++) {
		const struct kscen_report_family *fam = &m->fam[f];

		if (!fam->m)
			continue;
		report_family_line(fam, fam_names[f], line[n++], REPORT_LINE);
	}
	for (unsigned f = 0; f < KSCEN_NR_FAMS && n < max; f++)
		if (kscen_family_too_few(&m->fam[f], KSCEN_FDR) && !m->fam[f].found)
			snprintf(line[n++], REPORT_LINE, "warning: %s, no comparison "
				 "alone can pass the FDR correction at q %.2g over %u "
				 "(the smallest p these samples can give is %.2g): take "
				 "more samples (-r)", fam_names[f], KSCEN_FDR, m->fam[f].m,
				 m->fam[f].p_min);
	if (m->fam[KSCEN_FAM_BETWEEN].cannot_tell && n < max) {
		unsigned k = m->fam[KSCEN_FAM_BETWEEN].cannot_tell;

		snprintf(line[n++], REPORT_LINE, "against the reference: cannot tell "
			 "for %u job%s, no run-to-run estimate; to get one, run `kscen "
			 "calibrate` on the scenario (or 3 runs of it), or put both "
			 "sides in one run (kscen ab, or an axis with a baseline)", k,
			 k == 1 ? "" : "s");
	}
	return n;
}

/* Whether @a and @b print the same with "%.3g". */
static bool same_3g(double a, double b)
{
	char x[32], y[32];

	snprintf(x, sizeof(x), "%.3g", a);
	snprintf(y, sizeof(y), "%.3g", b);
	return !strcmp(x, y);
}

void kscen_report_n_note(unsigned lo, unsigned hi, char *buf, size_t len)
{
	double clo, chi;

	if (!hi || lo > hi) {
		snprintf(buf, len, "no samples");
		return;
	}
	clo = report_ci_level(lo);
	chi = report_ci_level(hi);
	if (hi < 2)
		snprintf(buf, len, "n=%u, no CI", hi);
	else if (lo < 2)
		snprintf(buf, len, "n=%u..%u, %.3g%% CI where n > 1", lo, hi, chi);
	else if (lo == hi)
		snprintf(buf, len, "n=%u, %.3g%% CI", lo, clo);
	else if (same_3g(clo, chi))	/* 6 and 18 samples: both 96.9% */
		snprintf(buf, len, "n=%u..%u, %.3g%% CI", lo, hi, clo);
	else
		snprintf(buf, len, "n=%u..%u, %.3g..%.3g%% CI", lo, hi, fmin(clo, chi),
			 fmax(clo, chi));
}

void report_entry_note(const struct kscen_report_model *rm,
		       const struct kscen_report_entry *e, char *buf, size_t len)
{
	const struct kscen_metric *p = NULL;
	unsigned lo = ~0u, hi = 0;
	char n[64], lbl[128] = "";

	for (unsigned i = e->first; i <= e->last; i++) {
		const struct kscen_metric *m = rm->job[i].primary;

		if (!m)
			continue;
		if (!p)
			kscen_metric_label(m, &rm->job[i].num[0], lbl, sizeof(lbl));
		p = p ? p : m;
		lo = m->nr_samples < lo ? m->nr_samples : lo;
		hi = m->nr_samples > hi ? m->nr_samples : hi;
	}
	kscen_report_n_note(lo, hi, n, sizeof(n));
	snprintf(buf, len, "%s%s%s%s", lbl, *lbl ? ", " : "", !p ? "" :
		 p->better == KSCEN_HIGHER ? "higher is better, " : "lower is better, ", n);
}

/* "±10%" of @m's median, "" without one; under 1% rounded up. */
void kscen_report_ci_pct(const struct kscen_metric *m, char *buf, size_t len)
{
	double hw = kscen_ci_halfwidth(&m->sum);

	if (m->nr_samples >= 2 && isfinite(hw))
		snprintf(buf, len, "±%.0f%%", hw < 1 ? ceil(hw) : hw);
	else
		*buf = '\0';
}
