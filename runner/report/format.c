// SPDX-License-Identifier: GPL-2.0
/*
 * format.c - what every emitter of a report (and compare.c) writes the same
 * way: which metric is a job's primary one, its label, numbers as people
 * read them (SI-scaled seconds, the digits the CI allows, 12,345), a change
 * as "+10.0% [+5.2% .. +14.1%] worse (p=0.008 n=5+5)" with "~" when not
 * significant, like benchstat, and a median's CI.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "report.h"
#include "util.h"

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
	if (half > 0 && isfinite(half))
		st->decimals = (int)ceil(-log10(half));
	else	/* no cast of an infinite logarithm to int: undefined */
		st->decimals = v > 0 && isfinite(v) ? 3 - (int)floor(log10(v)) : 0;
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
