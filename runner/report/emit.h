/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_emit.h - what the emitters of a run's report share (report.c,
 * report_md.c, report_json.c); private to them.
 */
#ifndef KSCEN_REPORT_EMIT_H
#define KSCEN_REPORT_EMIT_H

#include <stdbool.h>
#include <stdio.h>

#include "history.h"
#include "run.h"
#include "stats.h"

/* Stored runs may lack any optional field; print them as empty. */
static inline const char *str(const char *s)
{
	return s ? s : "";
}

static inline const char *report_status_name(enum kscen_status s)
{
	return kscen_status_names[s <= KSCEN_FAILED ? s : KSCEN_FAILED];
}

/* The true coverage of the median's interval from @n samples: 95, or less. */
double report_ci_level(unsigned n);
/* "2026-12-01T10:02:33Z" -> "2026-12-01T10:02Z" */
void report_short_time(const char *iso, char *buf, size_t len);
/* @j's primary metric against job @ref of the same run: rounds pair them. */
bool report_ref_change(const struct kscen_run *run, const struct kscen_job_result *j,
		       const char *ref, struct kscen_change *c);
/* Job @i against its reference run: never paired, drift allowed for. */
bool report_last_change(const struct kscen_refs *refs, const struct kscen_run *run,
			unsigned i, struct kscen_change *c);

void report_markdown(FILE *out, const struct kscen_run *run,
		     const struct kscen_refs *refs);
void report_json(FILE *out, const struct kscen_run *run,
		 const struct kscen_refs *refs);
void report_csv(FILE *out, const struct kscen_run *run,
		const struct kscen_refs *refs);
void report_mail(FILE *out, const struct kscen_run *run,
		 const struct kscen_refs *refs);

#endif
