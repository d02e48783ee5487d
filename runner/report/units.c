// SPDX-License-Identifier: GPL-2.0
/*
 * units.c - units as people read them. The workloads spell time four
 * ways: SI (s, ms, us, ns: exec, hyperfine), perf bench's plurals (secs,
 * msecs, usecs, nsecs: "usecs/op"), fio's singulars (sec, msec, usec) and
 * whole words (seconds); any of them may be followed by what it is per
 * ("/op", "/op/cpu", " total wait"). A time value is scaled to the unit
 * where it reads 1 or more (0.000943 s is 943 us, 253,438 usecs is 253
 * msecs), and every time metric of a job is spelled in one style, its
 * primary metric's, so "1.19 ms (user_time)" never stands beside
 * "1158 usecs (cgroup_cpu)". Other units are left as they are. The
 * decimals are those the CI allows.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "report.h"
#include "lib/util.h"

enum { NR_MAG = 4 };

static const char *const words[KSCEN_NR_TIME_STYLES][NR_MAG] = {
	[KSCEN_TIME_SI] = { "s", "ms", "us", "ns" },
	[KSCEN_TIME_SECS] = { "secs", "msecs", "usecs", "nsecs" },
	[KSCEN_TIME_SEC] = { "sec", "msec", "usec", "nsec" },
	[KSCEN_TIME_WORDS] = { "seconds", "milliseconds", "microseconds", "nanoseconds" },
};
static const double per_sec[NR_MAG] = { 1, 1e3, 1e6, 1e9 };

/* A time word at the start of @s, ending there or at '/' or ' ': its length. */
static size_t time_word(const char *s, int *style, int *mag)
{
	for (int st = 0; st < KSCEN_NR_TIME_STYLES; st++)
		for (int g = 0; g < NR_MAG; g++) {
			size_t n = strlen(words[st][g]);

			if (!strncmp(s, words[st][g], n) &&
			    (!s[n] || s[n] == '/' || s[n] == ' ')) {
				*style = st;
				*mag = g;
				return n;
			}
		}
	return 0;
}

int kscen_unit_time_style(const char *unit)
{
	int style, mag;

	return unit && time_word(unit, &style, &mag) ? style : -1;
}

int kscen_job_time_style(const struct kscen_job_result *j)
{
	const struct kscen_metric *p = kscen_primary(j);
	int style = p ? kscen_unit_time_style(p->unit) : -1;

	for (unsigned k = 0; style < 0 && k < j->nr_metrics; k++)
		style = kscen_unit_time_style(j->metrics[k].unit);
	return style;
}

void kscen_unit_scale(const char *unit, double v, int style, struct kscen_num *st)
{
	int own, mag, to;
	size_t n = unit ? time_word(unit, &own, &mag) : 0;

	snprintf(st->unit, sizeof(st->unit), "%s", str(unit));
	st->scale = 1;
	if (!n)
		return;
	if (style < 0 || style >= KSCEN_NR_TIME_STYLES)
		style = own;
	to = mag;
	/* The largest unit in which the value is 1 or more; 0 stays put. */
	if (v != 0 && isfinite(v)) {
		double secs = fabs(v) / per_sec[mag];

		for (to = 0; to < NR_MAG - 1 && secs * per_sec[to] < 1; to++)
			;
	}
	st->scale = per_sec[to] / per_sec[mag];
	snprintf(st->unit, sizeof(st->unit), "%s%s", words[style][to], unit + n);
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

void kscen_num_style_in(const struct kscen_metric *m, int style,
			struct kscen_num *st)
{
	kscen_unit_scale(m->unit, m->sum.median, style, st);
	kscen_num_decimals(m, st);
}

void kscen_num_style(const struct kscen_metric *m, struct kscen_num *st)
{
	kscen_num_style_in(m, -1, st);
}

/*
 * "usecs/op" for a metric named after its unit, in the unit @st scales it
 * to ("msecs/op"); "msecs per waker" (unit ms) as "us per waker" once
 * scaled; "ms (wall_time)" where name and unit differ.
 */
void kscen_metric_label(const struct kscen_metric *m, const struct kscen_num *st,
			char *buf, size_t len)
{
	const char *name = str(m->name), *unit = str(m->unit);
	const char *shown = st ? st->unit : unit;
	int style, mag;
	size_t n;

	if (!*unit) {
		snprintf(buf, len, "%s", name);
	} else if (!*name || !strcmp(name, unit)) {
		snprintf(buf, len, "%s", shown);
	} else if (time_word(unit, &style, &mag) == strlen(unit) &&
		   (n = time_word(name, &style, &mag)) &&
		   kscen_unit_time_style(shown) >= 0) {
		/* the name starts with a time word: the shown unit's word */
		snprintf(buf, len, "%.*s%s", (int)time_word(shown, &style, &mag),
			 shown, name + n);
	} else if (!strncmp(name, unit, strlen(unit)) && !strcmp(shown, unit)) {
		snprintf(buf, len, "%s", name);
	} else {
		snprintf(buf, len, "%s (%s)", shown, name);
	}
}
