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
#define KSCEN_DRIFT_MAX_RUNS 20		/* newest matching runs in a drift */
#define KSCEN_DRIFT_MIN_RUNS 3		/* fewer: in-run noise only */

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
 * Run-to-run drift of one job's median, from k earlier runs (a one-way
 * random-effects model on the log medians, as in Kalibera & Jones,
 * "Rigorous Benchmarking in Reasonable Time", ISMM 2013): all on the log
 * scale, where a shift is a ratio.
 */
struct kscen_drift {
	unsigned runs;		/* k; below KSCEN_DRIFT_MIN_RUNS nothing else is set */
	double tau;		/* between-run SD of the log median */
	double se;		/* within-run SE of a log median (RMS over runs) */
	double t;		/* Student's t, 97.5%, k - 1 df */
	double spread;		/* t * sqrt(2) * tau: what two runs may differ by */
	double mde_between;	/* smallest change a between-run comparison finds */
	double mde_within;	/* the same for an interleaved one, within a run */
};

/*
 * The drift of @k runs' log medians @lmed with their within-run standard
 * errors @se (exposed for the unit tests).
 */
void kscen_drift_from(const double *lmed, const double *se, unsigned k,
		      struct kscen_drift *d);
/*
 * The drift of @job's metric @metric over the runs of @h from the host and
 * kernel build of @ref, newest first, at most KSCEN_DRIFT_MAX_RUNS.
 */
void kscen_history_drift(const struct kscen_history *h, const struct kscen_run *ref,
			 const struct kscen_job_result *job, const char *metric,
			 struct kscen_drift *d);
/* 97.5% quantile of Student's t with @df degrees of freedom. */
double kscen_t975(unsigned df);

/*
 * Make @c, a change between two runs, allow for drift @d: with enough
 * history each side of its interval is widened to the root of the sum of
 * squares of the in-run half and the drift's (on the log scale), and the
 * verdict is read off the wider interval; with too little, @c stays as it
 * is and says so.
 */
void kscen_change_widen(struct kscen_change *c, const struct kscen_drift *d,
			enum kscen_better better);

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
 * Job @i of @run against its reference: Mann-Whitney with the interval
 * widened by the job's drift when there is enough history (signif.c).
 */
bool kscen_ref_change(const struct kscen_refs *r, const struct kscen_run *run,
		      unsigned i, struct kscen_change *c);

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

#endif
