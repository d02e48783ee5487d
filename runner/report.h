/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - what report.c (one run) and compare.c (two runs, the gate)
 * share: how a metric is picked, labelled, and how a change is written.
 */
#ifndef KSCEN_REPORT_H
#define KSCEN_REPORT_H

#include "kscen.h"

/* The primary metric of an ok job with samples, else NULL. */
const struct kscen_metric *kscen_primary(const struct kscen_job_result *j);
/* @j's metric called @name, if @j is ok and it has samples. */
const struct kscen_metric *kscen_find_metric(const struct kscen_job_result *j,
					     const char *name);
/* "usecs/op", or "s (wall_time)" where name and unit differ. */
void kscen_metric_label(const struct kscen_metric *m, char *buf, size_t len);
/*
 * "+10.0% [+5.2% .. +14.1%] worse (p=0.008 n=5+5)", "~" for a change that is
 * not significant; with kscen_verbose the test is named too.
 */
void kscen_format_change(const struct kscen_change *c, char *buf, size_t len);
/* "±2.1%": the median's 95% CI half-width, or "(n=5)" with too few. */
void kscen_format_ci(const struct kscen_metric *m, char *buf, size_t len);

#endif
