/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile_report.h - profiles in the reports (profile_report.c). @md picks
 * markdown tables, else perf-like text; a mail emitter calls the text ones.
 */
#ifndef KSCEN_PROFILE_REPORT_H
#define KSCEN_PROFILE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "store/profile.h"

/* One line: source, event, frequency, scope, samples and losses. */
void kscen_profile_header(FILE *out, const struct kscen_profile *p, bool md);
/* The header and the top symbols, like perf report --no-children. */
void kscen_profile_top(FILE *out, const struct kscen_profile *p, bool md);

struct kscen_profile_diff {
	const char *name;
	bool kernel;
	double old, new_;		/* self %; NaN: not in that stored list */
	double old_below, new_below;	/* then: below this share */
};
/* The symbols either profile shows, largest |delta| first; returns how many. */
unsigned kscen_profile_diff_rows(const struct kscen_profile *old,
				 const struct kscen_profile *new_,
				 struct kscen_profile_diff *rows, unsigned max);
/* The differential table, like perf diff; @what: "baseline" or "old run". */
void kscen_profile_diff(FILE *out, const struct kscen_profile *old,
			const struct kscen_profile *new_, const char *what,
			const char *against, bool md);
/* A job's profile and its difference against the job's baseline in @run. */
void kscen_profile_job_report(FILE *out, const struct kscen_run *run,
			      const struct kscen_job_result *j, bool md);
/* The markdown report's "Profiles" section (nothing when none). */
void kscen_profile_markdown(FILE *out, const struct kscen_run *run);
/* compare: each job's profile against its own in @old. */
void kscen_profile_compare(FILE *out, const struct kscen_run *old,
			   const struct kscen_run *new_);

#endif
