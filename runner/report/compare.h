/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - several stored runs side by side, each against the first
 * (`kscen compare A B [C ...]`, mmtests' compare-kernels): computed once
 * (compare_model.c), printed by the emitter of a format (compare.c for text,
 * mail.c, markdown.c; JSON and CSV are each run's own report). Private to
 * runner/report/.
 */
#ifndef KSCEN_REPORT_COMPARE_H
#define KSCEN_REPORT_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"
#include "table.h"

/* One job in one run: its median and CI, and its change against the base. */
struct kscen_cmp_cell {
	const struct kscen_job_result *job;	/* NULL: not in that run */
	const struct kscen_metric *m;		/* its primary; NULL: none */
	const struct kscen_report_delta *d;	/* run k >= 1: against the base */
	const char *why;			/* no change: why not (or NULL) */
};

struct kscen_cmp {
	unsigned nr;				/* runs; [0] is the base */
	const struct kscen_run *const *run;
	const struct kscen_refs *refs;		/* refs[k]: run k's, against the base */
	struct kscen_report_model *rm;		/* rm[0]: the base alone */
	char (*name)[16];			/* "old", "new"; labels; "A", "B" */
	struct kscen_cmp_cell *cell;		/* base job i, run k: [i * nr + k] */
};

void kscen_cmp_build(struct kscen_cmp *c, const struct kscen_run *const *runs,
		     const struct kscen_refs *refs, unsigned nr);
void kscen_cmp_free(struct kscen_cmp *c);

static inline const struct kscen_cmp_cell *
kscen_cmp_cell(const struct kscen_cmp *c, unsigned i, unsigned k)
{
	return &c->cell[(size_t)i * c->nr + k];
}

/*
 * How the values of job entry @e read: the unit and scale of its first
 * measured job in the base (or a later run), whose metric it returns (NULL:
 * none measured); the header line's "usecs/op, lower is better, n=5,
 * 93.8% CI" (@with_unit: the unit in front).
 */
const struct kscen_metric *kscen_cmp_entry_style(const struct kscen_cmp *c,
						const struct kscen_report_entry *e,
						struct kscen_num *st);
void kscen_cmp_entry_note(const struct kscen_cmp *c,
			  const struct kscen_report_entry *e, bool with_unit,
			  char *buf, size_t len);
/*
 * Cell (i, k) as text in @st's unit (that of metric @m0): the median into
 * @val ("230", with its own unit where its metric has another), the CI
 * into @ci ("±10%"), or why there is none ("FAILED", "skipped", "-").
 */
void kscen_cmp_value(const struct kscen_cmp *c, unsigned i, unsigned k,
		     const struct kscen_metric *m0, const struct kscen_num *st,
		     char *val, char *ci, size_t len);
/*
 * The geometric means, one a run, of entry @e's rows that every run
 * measured, malloc'ed; NULL when fewer than 2 rows are.
 */
double *kscen_cmp_geomean(const struct kscen_cmp *c,
			  const struct kscen_report_entry *e);
/* "A: 2026-12-04T14:45Z, label v1, kernel 6.18.0" for run @k. */
void kscen_cmp_run_line(const struct kscen_cmp *c, unsigned k, char *buf,
			size_t len);
/*
 * When no change in the @nr models at @rm can have an interval (too few
 * samples a side), the one line that says so, else "".
 */
void kscen_cmp_too_few(const struct kscen_report_model *rm, unsigned nr,
		       char *buf, size_t len);
/*
 * The jobs not compared, a line each, then the count ("9 jobs compared, 0
 * only in old, 0 not compared", @summary true), each through @say.
 */
void kscen_cmp_counts(const struct kscen_cmp *c,
		      void (*say)(void *arg, const char *line, bool summary),
		      void *arg);

/* The emitters of a comparison: mail.c and markdown.c. */
void compare_mail(FILE *out, const struct kscen_cmp *c);
void compare_markdown(FILE *out, const struct kscen_cmp *c);

#endif
