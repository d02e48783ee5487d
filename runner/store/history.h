/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history.h - stored runs as evidence for comparisons between runs
 * (history.c): which earlier run each job is compared with, and how much
 * its median moves from run to run when nothing changed.
 */
#ifndef KSCEN_HISTORY_H
#define KSCEN_HISTORY_H

#include "run.h"

#define KSCEN_HISTORY_MAX_FILES 100	/* newest stored runs examined */
#define KSCEN_DRIFT_MAX_RUNS 20		/* newest runs of a segment in a drift */
#define KSCEN_DRIFT_MIN_RUNS 3		/* fewer: a pool, or cannot tell */
#define KSCEN_SERIES_MAX 50		/* newest runs searched for change points */

/* The usable stored runs of one directory, newest first. */
struct kscen_history {
	struct kscen_run **run;
	unsigned nr;
};

/*
 * Load the stored runs of @scenario in @dir: complete (not partial), not
 * filtered, of that scenario, readable, not dated in the future; the others
 * are skipped with one warning line each on stderr (a few, then a count).
 * Runs that started after @before (ISO 8601; NULL: none) and the file
 * @exclude are left out silently: they are not earlier runs.
 */
int kscen_history_load(const char *dir, const char *scenario,
		       const char *before, const char *exclude,
		       struct kscen_history *h);
/* The same with only the jobs in @want of each run (store.h). */
struct kscen_idset;
int kscen_history_load_some(const char *dir, const char *scenario,
			    const char *before, const char *exclude,
			    const struct kscen_idset *want, struct kscen_history *h);
/*
 * The same, of the runs labelled @label only: found by their file names,
 * so however many other runs are newer (the newest KSCEN_HISTORY_MAX_FILES
 * runs of the directory were all it looked at).
 */
int kscen_history_load_label(const char *dir, const char *scenario, const char *label,
			     const char *before, const char *exclude,
			     const struct kscen_idset *want, struct kscen_history *h);
/*
 * The newest usable run in @dir that @fits, alone in @h (none: h->nr 0),
 * with only the jobs in @want; the older runs are not read.
 */
int kscen_history_newest(const char *dir, const char *scenario,
			 const struct kscen_idset *want,
			 bool (*fits)(const struct kscen_run *run),
			 struct kscen_history *h);
void kscen_history_free(struct kscen_history *h);

/*
 * Did @a and @b measure the same thing? The same id and workload, and where
 * both record them, the same workload version and effective parameters.
 * @strict: both must record them (automatic reference selection).
 */
bool kscen_job_same(const struct kscen_job_result *a,
		    const struct kscen_job_result *b, bool strict);

/*
 * Run-to-run drift (drift.c): how far a run's log median (or a job pair's
 * log ratio within a run) moves from run to run when nothing changed, from
 * the stable segment of its history: the runs since its last change point
 * (changepoint.c), so that a level shift in the history is a change and
 * never drift. All on the log scale, where a shift is a ratio.
 */
struct kscen_drift {
	enum kscen_drift_src src;	/* stats.h: none, own, pool */
	unsigned runs;		/* k: runs in the stable segment */
	unsigned history;	/* runs in the series it was cut from */
	unsigned changes;	/* change points found in that series */
	double level;		/* mean log median of the segment; NaN: none */
	double se2;		/* mean in-run variance of a segment run's value */
	double s;		/* run-to-run SD: own (k - 1 df) or the pool's */
	unsigned df;
	double t;		/* Student's t, 97.5%, df */
	double spread;		/* t s sqrt(1 + 1/k): a new run's 95% allowance */
	double mde_between;	/* smallest change found 80% of the time, between runs */
	double mde_within;	/* the same within a run, interleaved */
	char pool[48];		/* KSCEN_DRIFT_POOL: which */
};

/*
 * A series point: one run's log median of a metric, the in-run standard
 * error of it (robust: from the median absolute deviation), its samples.
 */
struct kscen_series_pt {
	const struct kscen_run *run;
	double l, se;
	unsigned n;
};
/*
 * The log median and its in-run standard error of @m's samples: false when
 * the median is not positive (no ratio to speak of).
 */
bool kscen_log_median(const struct kscen_metric *m, double *l, double *se);
/*
 * The drift of the points @pt[0..@n) (oldest first): change points over
 * them, then the last segment's level and spread; own when it has at least
 * KSCEN_DRIFT_MIN_RUNS runs.
 */
void kscen_drift_from(const struct kscen_series_pt *pt, unsigned n,
		      struct kscen_drift *d);
/*
 * The drift for a comparison against run @ref's job @rj (metric @metric):
 * the runs of @h up to @ref (it included, last) from its host, kernel
 * release and build, holding the same job.
 */
void kscen_history_drift(const struct kscen_history *h, const struct kscen_run *ref,
			 const struct kscen_job_result *rj, const char *metric,
			 struct kscen_drift *d);
/*
 * The drift of the in-run delta of job @j against job @base of @run:
 * the same delta in the runs of @h before @run from its host, kernel
 * release and build.
 */
void kscen_pair_drift(const struct kscen_history *h, const struct kscen_run *run,
		      const struct kscen_job_result *j,
		      const struct kscen_job_result *base, struct kscen_drift *d);
/* @d from a pool: a run-to-run SD @s with @df degrees of freedom. */
void kscen_drift_pool(struct kscen_drift *d, double s, unsigned df,
		      const char *which);

/*
 * A change between runs: @c (kscen_change_compute() of the reference's
 * samples against @m's) becomes the new median against the level of the
 * reference's stable segment, with a 95% prediction interval from @d and
 * both sides' in-run noise; without a drift (own or pooled), "cannot tell".
 */
void kscen_change_between(struct kscen_change *c, const struct kscen_metric *m,
			  const struct kscen_drift *d, enum kscen_better better);
/*
 * An in-run delta @c widened by its own run-to-run drift @d where the
 * history has one: the union of its interval and t s around its estimate.
 */
void kscen_change_widen(struct kscen_change *c, const struct kscen_drift *d,
			enum kscen_better better);

/*
 * calib.c: the pooled run-to-run drift `kscen calibrate` records for a
 * host, per kernel release and build, in DIR/.calibration/HOST.yaml (DIR:
 * where runs are stored).
 */
struct kscen_calib {
	double s;		/* pooled run-to-run SD of a log median */
	unsigned df, jobs;
	char when[32];		/* when it was calibrated */
};
int kscen_calib_save(const char *results, const struct kscen_system *sys,
		     const char *scenario, const struct kscen_calib *c);
/* The pool for @sys calibrated before @before (NULL: any); false: none. */
bool kscen_calib_load(const char *results, const struct kscen_system *sys,
		      const char *before, struct kscen_calib *c);

/* One job's reference: the run and job it is compared with. */
struct kscen_ref {
	const struct kscen_run *run;	/* NULL: none */
	const struct kscen_job_result *job;
	struct kscen_drift drift;
	const char *why;		/* no reference: why not (static) */
};

/* The references of every job of one run, for its report and its gate. */
struct kscen_refs {
	struct kscen_ref *ref;		/* one per job of the run */
	unsigned nr, compared;		/* jobs with a reference */
	const struct kscen_run *main;	/* the one most jobs use, named once */
	struct kscen_history hist;
	struct kscen_history labelled;	/* --compare label:NAME: the runs so named */
	struct kscen_run *own;		/* an explicit reference run */
	bool asked;			/* a reference was asked for */
	char *results;			/* where the reference's runs are stored */
};

/*
 * --compare last (and label:NAME): for each job of @run, the newest run in
 * @dir from @host (NULL: any) with @label (NULL: any) that holds the job,
 * ok, with the same workload version and effective parameters.
 */
void kscen_refs_history(struct kscen_refs *r, const struct kscen_run *run,
			const char *dir, const char *host, const char *label);
/*
 * One explicit reference run for every job (--compare FILE, compare OLD
 * NEW); takes @ref. The drift comes from the runs beside it that started
 * before @run.
 */
void kscen_refs_single(struct kscen_refs *r, const struct kscen_run *run,
		       struct kscen_run *ref);
/*
 * The references a stored run was reported against (each job's
 * `reference`), for `kscen report`: what run printed, printed again.
 */
void kscen_refs_stored(struct kscen_refs *r, const struct kscen_run *run);
void kscen_refs_free(struct kscen_refs *r);

/*
 * Job @i of @run against its reference: the new median against the level
 * of the reference's stable segment, allowing for the job's drift, pooled
 * where its own history is short; "cannot tell" without either.
 */
bool kscen_ref_change(const struct kscen_refs *r, const struct kscen_run *run,
		      unsigned i, struct kscen_change *c);

/* What kscen_gate() (report/) returns besides a count of regressions. */
#define KSCEN_GATE_NOTHING (-1)		/* no job compared: exit 2 */
#define KSCEN_GATE_CANNOT_TELL (-2)	/* none tripped, some not judged: 125 */

/*
 * --compare REF (refspec.c): "last" (default: per job, the newest complete
 * run from this host that measured the same thing), "none", "label:NAME"
 * (the same among the runs labelled NAME, from any host), a directory of
 * runs (the same, from any host) or a result file. Checked before anything
 * runs: a reference that cannot be had is an error (said on stderr as
 * "kscen CMD: ..."), never a run compared with nothing.
 */
struct kscen_ref_spec {
	enum { KSCEN_REF_LAST, KSCEN_REF_NONE, KSCEN_REF_LABEL, KSCEN_REF_DIR,
	       KSCEN_REF_FILE } kind;
	const char *arg;	/* the label, directory or file */
	struct kscen_run *file;	/* KSCEN_REF_FILE, loaded */
};
struct kscen_scenario;
/* A reference file is read with only the jobs in @want (NULL: all). */
int kscen_ref_spec_check(const char *cmd, const char *ref, const char *results,
			 const struct kscen_scenario *s, const struct kscen_idset *want,
			 struct kscen_ref_spec *rs);
/* After the run: each job's reference and drift; takes rs->file. */
void kscen_ref_spec_resolve(struct kscen_ref_spec *rs, const char *results,
			    const struct kscen_run *run, struct kscen_refs *refs);

/* shard_weights.c */
struct kscen_jobs;
/*
 * The weights of @jobs from the newest complete stored run of @scenario
 * in @dir that recorded its jobs' durations (seconds): a job it lacks
 * weighs the median of those it has. NULL when there is no such run;
 * *@from gets its path (malloc'ed).
 */
double *kscen_shard_weights(const struct kscen_jobs *jobs, const char *dir,
			    const char *scenario, char **from);

#endif
