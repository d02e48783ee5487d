/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - printing runs: one run (runner/report/: the report model,
 * model.c, computed once and printed by an emitter a format), two runs and
 * the gate (compare.c), and what they share (runner/report/format.c): how a
 * metric is picked, labelled, and how a change is written.
 */
#ifndef KSCEN_REPORT_H
#define KSCEN_REPORT_H

#include <stdio.h>

#include "store/run.h"

enum kscen_format {
	KSCEN_FMT_TEXT,
	KSCEN_FMT_MARKDOWN,
	KSCEN_FMT_JSON,
	KSCEN_FMT_CSV,
	KSCEN_FMT_MAIL,		/* a patch mail: at most 72 columns */
};
struct kscen_refs;
/*
 * Build the report model of @run (report/model.h) and print it in @fmt;
 * @refs may be NULL: no "vs" lines (history.h builds them).
 */
void kscen_report(FILE *out, const struct kscen_run *run,
		  const struct kscen_refs *refs, enum kscen_format fmt);
/* The delta table of @new_ against its references (compare.c). */
void kscen_compare_print(FILE *out, const struct kscen_run *new_,
			 const struct kscen_refs *refs);
/*
 * The regression gate: name the jobs of @new_ worse than their reference by
 * more than @pct percent with the whole 95% CI beyond it; return their
 * number, or -1 when no job could be compared (a gate that compared nothing
 * fails closed: exit 2).
 */
int kscen_gate(FILE *out, const struct kscen_run *new_,
	       const struct kscen_refs *refs, double pct);


/* "usecs/op", or "s (wall_time)" where name and unit differ. */
void kscen_metric_label(const struct kscen_metric *m, char *buf, size_t len);
/*
 * "+10.0% [+5.2% .. +14.1%] worse (p=0.008 n=5+5)", "~" for a change that is
 * not significant; with kscen_verbose the test is named too.
 */
void kscen_format_change(const struct kscen_change *c, char *buf, size_t len);
/* "±2.1%": the median's 95% CI half-width, or "(n=5)" with too few. */
void kscen_format_ci(const struct kscen_metric *m, char *buf, size_t len);
/*
 * How a metric's values read for people: seconds SI-scaled (s, ms, us, ns)
 * to a value of 1 or more, other units as they are; decimals down to the
 * digit where its 95% CI's half-width is (23.6 ms when the CI is ±0.5 ms),
 * 4 significant digits without a CI, at most 6.
 */
struct kscen_num {
	const char *unit;	/* the scaled unit */
	double scale;		/* value * scale is in unit */
	int decimals;
};
void kscen_num_style(const struct kscen_metric *m, struct kscen_num *st);
/*
 * A job entry of a run (report/model.c): the jobs expanded from one entry of
 * the scenario, next to each other and sharing its name. The last job of the entry that
 * starts at @first; whether parameter @k is the same in all its jobs.
 */
unsigned kscen_entry_last(const struct kscen_run *run, unsigned first);
bool kscen_entry_param_fixed(const struct kscen_run *run, unsigned first,
			     unsigned last, unsigned k);
/* Only the decimals, for @st's scale (a column shared by several jobs). */
void kscen_num_decimals(const struct kscen_metric *m, struct kscen_num *st);
/* @v (in the metric's own unit) as @st says, "+" with @sign, 12,345 commas. */
void kscen_format_num(const struct kscen_num *st, double v, bool sign,
		      char *buf, size_t len);
/*
 * A difference @d of two such values, signed, at @st's digits, or at the
 * first significant digit of @d where those would round it to 0: a change
 * is never printed "+0".
 */
void kscen_format_delta(const struct kscen_num *st, double d, char *buf, size_t len);

/*
 * fleet.c: each host's newest run in @old_arg against its newest in
 * @new_arg (files or directories of runs), the geometric mean across hosts
 * per job, and the hosts grouped by shared environment. 0 or -EINVAL.
 */
int kscen_fleet_compare(FILE *out, const char *old_arg, const char *new_arg);

#endif
