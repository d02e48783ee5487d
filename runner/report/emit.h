/* SPDX-License-Identifier: GPL-2.0 */
/*
 * emit.h - what the emitters of a run's report share (runner/report/):
 * the helpers of format.c, and the emitters themselves, each of which
 * prints the report model (model.h) in its format; private to them.
 */
#ifndef KSCEN_REPORT_EMIT_H
#define KSCEN_REPORT_EMIT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/util.h"
#include "model.h"
#include "store/run.h"

/* Stored runs may lack any optional field; the emitters print them as "". */
#define str kscen_str

static inline const char *report_status_name(enum kscen_status s)
{
	return kscen_status_names[s <= KSCEN_FAILED ? s : KSCEN_FAILED];
}

/* The true coverage of the median's interval from @n samples: 95, or less. */
double report_ci_level(unsigned n);
/*
 * The lines that sum a run's comparisons up (no newline, no prefix): per
 * family "N of M changed; about X expected by chance", a warning when none
 * could pass the correction and none did, and how to get a run-to-run
 * estimate where one was missing. Returns how many.
 */
#define REPORT_LINE 320
unsigned report_footer(const struct kscen_report_model *m, char (*line)[REPORT_LINE],
		       unsigned max);
/* "@name: N of M changed; about (or at most) X expected by chance[; F with q <= 0.05]" */
void report_family_line(const struct kscen_report_family *fam, const char *name,
			char *buf, size_t len);
/* "usecs/op, lower is better, n=5, 93.8% CI": a job entry table's first line. */
void report_entry_note(const struct kscen_report_model *rm,
		       const struct kscen_report_entry *e, char *buf, size_t len);
/*
 * What a change's test found, as JSON and CSV say it (format 2):
 * "worse", "better", "no_significant_change" (the 95% CI holds zero),
 * "too_few_samples" (no 95% CI of the change exists), or "cannot_tell"
 * (between runs, no run-to-run estimate).
 */
const char *report_finding(const struct kscen_change *c);
/*
 * Why a partial run is partial: "shards 2/4 3/4 missing" for a merge that
 * lacks some, "a shard was cut short", or "the run was cut short".
 */
void report_partial_why(const struct kscen_run *run, char *buf, size_t len);
/* The version of the JSON report's layout (docs/formats.md). */
#define KSCEN_JSON_FORMAT 2
/* "2026-12-01T10:02:33Z" -> "2026-12-01T10:02Z" */
void report_short_time(const char *iso, char *buf, size_t len);

/* One file each: text.c, markdown.c, json.c, csv.c, mail.c. */
void report_text(FILE *out, const struct kscen_report_model *m);
void report_markdown(FILE *out, const struct kscen_report_model *m);
void report_json(FILE *out, const struct kscen_report_model *m);
void report_csv(FILE *out, const struct kscen_report_model *m);
void report_mail(FILE *out, const struct kscen_report_model *m);
/* Several runs in one CSV table, a first column "run" their files. */
void report_csv_runs(FILE *out, const struct kscen_report_model *const *m,
		     unsigned nr);

#endif
