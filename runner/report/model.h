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
	double q;		/* Benjamini-Hochberg q-value in its family, or NaN */
};

/*
 * The comparisons of a run read together, as two families: those within
 * the run (to baseline, to previous; a job pair once) and those against
 * the reference runs. Their q-values are each family's.
 */
enum kscen_family {
	KSCEN_FAM_WITHIN,
	KSCEN_FAM_BETWEEN,
	KSCEN_NR_FAMS,
};
#define KSCEN_FDR 0.05		/* the q-value the report counts as found */

struct kscen_report_family {
	unsigned m;		/* comparisons with a p-value */
	unsigned changed;	/* with a verdict (worse or better) */
	unsigned found;		/* of those, q <= KSCEN_FDR */
	unsigned cannot_tell;	/* between runs: no run-to-run estimate */
	/*
	 * Verdicts expected by chance if nothing changed: the sum of each
	 * comparison's size. A delta within a run that its pair's history
	 * widened (drift.c) must pass both its own test and the history's,
	 * so its size is at most its own: with @widened > 0 the sum is an
	 * upper bound ("at most"), otherwise an estimate ("about").
	 */
	double expected;
	unsigned widened;
	double p_min;		/* the smallest p any of them could give */
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
	struct kscen_report_family fam[KSCEN_NR_FAMS];
	/*
	 * The run's samples as the sentinels judged them, one line: "3 of
	 * 120 samples disturbed (other load up to 1.4 CPU) in 2 of 4 jobs,
	 * retaken"; "" when no job's samples were judged.
	 */
	char noise[256];
};

/*
 * A family's warning when no comparison alone can pass the correction at
 * @q: its smallest possible p is over q / m. NULL when one can.
 */
bool kscen_family_too_few(const struct kscen_report_family *f, double q);

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
