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

const char *report_finding(const struct kscen_change *c)
{
	if (c->verdict == KSCEN_WORSE)
		return "worse";
	if (c->verdict == KSCEN_BETTER)
		return "better";
	return c->ci_valid && isfinite(c->lo) ? "no_significant_change" :
	       "too_few_samples";
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

void kscen_report_n_note(unsigned lo, unsigned hi, char *buf, size_t len)
{
	double clo, chi;

	if (!hi || lo > hi) {
		snprintf(buf, len, "no samples");
		return;
	}
	clo = report_ci_level(lo);
	chi = report_ci_level(hi);
	if (!hi)
		snprintf(buf, len, "no samples");
	else if (hi < 2)
		snprintf(buf, len, "n=%u, no CI", hi);
	else if (lo < 2)
		snprintf(buf, len, "n=%u..%u, %.3g%% CI where n > 1", lo, hi, chi);
	else if (lo == hi)
		snprintf(buf, len, "n=%u, %.3g%% CI", lo, clo);
	else if (clo == chi)
		snprintf(buf, len, "n=%u..%u, %.3g%% CI", lo, hi, clo);
	else
		snprintf(buf, len, "n=%u..%u, %.3g..%.3g%% CI", lo, hi, clo, chi);
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
