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
/*
 * The reports of @runs in @fmt, each against its @refs (NULL: none), one
 * document: JSON an array of the reports, CSV one table with a first
 * column "run" (the run's file). One run: kscen_report().
 */
void kscen_report_runs(FILE *out, const struct kscen_run *const *runs,
		       const struct kscen_refs *refs, unsigned nr,
		       enum kscen_format fmt);
/*
 * `kscen compare A B [C ...]` (compare.c): runs[1..nr-1] each against
 * runs[0], in @fmt; refs[k] is run k's (kscen_refs_single() against
 * runs[0]), refs[0] unused. Text, mail and markdown: a table a job entry
 * with a column a run; JSON and CSV: kscen_report_runs() of the later runs.
 */
void kscen_compare_print(FILE *out, const struct kscen_run *const *runs,
			 const struct kscen_refs *refs, unsigned nr,
			 enum kscen_format fmt);
/*
 * The regression gate: name the jobs of @new_ worse than their reference by
 * more than @pct percent with the whole 95% CI beyond it; return their
 * number, or -1 when no job could be compared (a gate that compared nothing
 * fails closed: exit 2).
 */
int kscen_gate(FILE *out, const struct kscen_run *new_,
	       const struct kscen_refs *refs, double pct);


/*
 * A metric's label in the unit @st scales it to (NULL: its own unit):
 * "usecs/op" for one named after its unit, "ms (wall_time)" where name
 * and unit differ (units.c).
 */
struct kscen_num;
void kscen_metric_label(const struct kscen_metric *m, const struct kscen_num *st,
			char *buf, size_t len);
/*
 * "+10.0% [+5.2% .. +14.1%] worse (p=0.008 n=5+5)", "~" for a change that is
 * not significant; with kscen_verbose the test is named too.
 */
void kscen_format_change(const struct kscen_change *c, char *buf, size_t len);
/* "n=5, 93.8% CI", "n=6..30, 95% CI": the samples from @lo to @hi. */
void kscen_report_n_note(unsigned lo, unsigned hi, char *buf, size_t len);
/* "±10%": @m's median's CI to the percent (under 1% rounded up), or "". */
void kscen_report_ci_pct(const struct kscen_metric *m, char *buf, size_t len);
/* "±2.1%": the median's 95% CI half-width, or "(n=5)" with too few. */
void kscen_format_ci(const struct kscen_metric *m, char *buf, size_t len);
/*
 * How a metric's values read for people (units.c): a time scaled to the
 * unit where it reads 1 or more (s, ms, us, ns, in the spelling of the
 * style asked for: SI, perf's "usecs", fio's "usec", words), other units as
 * they are; decimals down to the digit where its 95% CI's half-width is
 * (23.6 ms when the CI is ±0.5 ms), 4 significant digits without a CI,
 * at most 6.
 */
enum kscen_time_style {
	KSCEN_TIME_SI,		/* s ms us ns */
	KSCEN_TIME_SECS,	/* secs msecs usecs nsecs: perf bench */
	KSCEN_TIME_SEC,		/* sec msec usec nsec: fio */
	KSCEN_TIME_WORDS,	/* seconds ... nanoseconds */
	KSCEN_NR_TIME_STYLES,
};
struct kscen_num {
	char unit[48];		/* the scaled unit */
	double scale;		/* value * scale is in unit */
	int decimals;
};
/* The style of @unit if it is a time ("usecs/op": SECS), else -1. */
int kscen_unit_time_style(const char *unit);
/* The style a job's time metrics share: its primary's, or its first's; -1. */
int kscen_job_time_style(const struct kscen_job_result *j);
/* @st's unit and scale for value @v of @unit in @style (-1: its own). */
void kscen_unit_scale(const char *unit, double v, int style, struct kscen_num *st);
/* Unit, scale and decimals for @m's median; kscen_num_style_in(m, -1, st). */
void kscen_num_style_in(const struct kscen_metric *m, int style,
			struct kscen_num *st);
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
