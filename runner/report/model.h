/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - a run's report as numbers, computed once (model.c) before any
 * emitter prints it: per job its status, primary metric, how its values
 * read, its CI, and its three deltas (to the baseline and to the previous
 * job of the same run, against the reference run); per job entry which
 * parameters vary. The emitters (text.c, mail.c, markdown.c, json.c,
 * csv.c) and the comparison of two runs (compare.c) only read it.
 */
#ifndef KSCEN_REPORT_MODEL_H
#define KSCEN_REPORT_MODEL_H

#include <stdbool.h>

#include "store/history.h"
#include "report.h"
#include "store/run.h"
#include "stats/stats.h"

enum kscen_delta_kind {
	KSCEN_DELTA_BASELINE,	/* job->baseline, same run: rounds paired */
	KSCEN_DELTA_PREVIOUS,	/* job->previous, same run: rounds paired */
	KSCEN_DELTA_REF,	/* the job in its reference run: drift allowed for */
	KSCEN_NR_DELTAS,
};

struct kscen_report_delta {
	bool present;		/* false: no such job, or nothing to compare */
	struct kscen_change c;	/* of the primary metric; only when present */
};

struct kscen_report_job {
	const struct kscen_job_result *job;
	enum kscen_status status;	/* at most KSCEN_FAILED */
	const struct kscen_metric *primary;	/* kscen_primary(): NULL unless ok */
	/*
	 * How each metric's values read (kscen_num_style()), one per metric
	 * of an ok job, num[0] the primary's; unit "" and scale 1 for a
	 * metric without samples. NULL for a job that is not ok.
	 */
	struct kscen_num *num;
	char ci[48];		/* kscen_format_ci() of the primary, or "" */
	struct kscen_report_delta delta[KSCEN_NR_DELTAS];
	const struct kscen_run *ref;	/* the reference run, or NULL */
	const struct kscen_job_result *ref_job;	/* the job in it */
	unsigned entry;		/* its job entry, in model->entry[] */
	/*
	 * What the sentinels said of its samples and what its policy did:
	 * "2 of 30 samples disturbed (steal 12%, other load 0.9 CPU), kept
	 * (noise: flag)"; "" when none was disturbed or none judged.
	 */
	char noise[256];
};

/*
 * A job entry: the jobs first..last expanded from one entry of the
 * scenario (kscen_entry_last()); varies[k]: parameter k of the first job
 * takes more than one value in them.
 */
struct kscen_report_entry {
	unsigned first, last;
	unsigned nr_params;	/* the first job's */
	bool *varies;
};

struct kscen_report_model {
	const struct kscen_run *run;
	const struct kscen_refs *refs;	/* may be NULL: no references */
	struct kscen_report_job *job;	/* one per job of the run */
	struct kscen_report_entry *entry;
	unsigned nr_entries;
	unsigned nr_status[KSCEN_FAILED + 1];	/* jobs ok, skipped, failed */
	/*
	 * The widest change (relative) that run-to-run drift can hide among
	 * the jobs' references with enough history; 0 without any.
	 */
	double drift_hides;
	/*
	 * The run's samples as the sentinels judged them, one line: "3 of
	 * 120 samples disturbed (other load up to 1.4 CPU) in 2 of 4 jobs,
	 * retaken"; "" when no job's samples were judged.
	 */
	char noise[256];
};

/*
 * Compute everything the report of @run says; @refs may be NULL. Both
 * must outlive @m, which points into them. Allocation failures abort,
 * like everywhere (kscen_xcalloc()).
 */
void kscen_report_model_build(const struct kscen_run *run,
			      const struct kscen_refs *refs,
			      struct kscen_report_model *m);
void kscen_report_model_free(struct kscen_report_model *m);

#endif
