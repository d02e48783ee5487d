/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - the run model: what a run measured (struct kscen_run, its jobs,
 * their metrics and samples) and the machine it ran on (struct
 * kscen_system). run.c fills it, result.c stores it, report/ prints it.
 * A field added here needs one line in its table in runmodel.c, which
 * says how every writer, the reader, the diff and the free treat it.
 */
#ifndef KSCEN_RUN_H
#define KSCEN_RUN_H

#include <stdbool.h>
#include "stats/stats.h"

enum kscen_status {
	KSCEN_OK,
	KSCEN_SKIPPED,
	KSCEN_FAILED,
};

struct kscen_profile;

/*
 * One sample a job took after its warmup, as its sentinels saw it
 * (sample/noise.c): kept in the metrics' samples, or set aside by the
 * noise policy. Unknown numbers are NAN or -1.
 */
struct kscen_sample_rec {
	unsigned round;		/* 1-based, warmup rounds not counted */
	double value;		/* the primary metric's */
	bool dropped;		/* set aside: not in the metrics' samples */
	bool disturbed;
	char *cause;		/* "steal 12%, other load 0.9 CPU"; NULL: none */
	double seconds;		/* the timed region's wall time */
	double steal;		/* the machine's steal, % of its CPUs' time */
	double lost;		/* its time accounted to nothing, % too */
	double other;		/* CPUs other processes used */
	long vcsw, ivcsw;	/* the sample's context switches */
	long migrations;	/* its main thread's CPU migrations */
	long irq, softirq;	/* the machine's, during the region */
	double mhz;		/* its CPU's frequency at the end */
	long throttled;		/* its CPU's thermal throttle events */
	bool planted;		/* KSCEN_TEST_DISTURB disturbed it on purpose */
};

/* A job's samples as the sentinels judged them, and what its policy did. */
struct kscen_noise_rec {
	char *policy;		/* flag, retake or drop */
	unsigned disturbed;	/* samples called disturbed */
	unsigned dropped;	/* of them, set aside (retaken or dropped) */
	struct kscen_sample_rec *samples;
	unsigned nr_samples;
};

struct kscen_job_result {
	char *id, *name, *workload;
	char **keys, **values;	/* params */
	unsigned nr_kv;
	enum kscen_status status;
	char *reason;		/* NULL when ok */
	char *describe;		/* header line, may be NULL */
	struct kscen_metric *metrics;
	unsigned nr_metrics;
	char *baseline, *previous;	/* job ids or NULL */
	int converged;		/* repeat: auto: 1 yes, 0 no; -1 not asked */
	/*
	 * What the job measured, for matching it across runs: the workload's
	 * version (0: not recorded) and every parameter, defaults included,
	 * as kscen_value_text() gives them.
	 */
	unsigned workload_version;
	char *module, *module_sha256;	/* an out-of-tree workload's file, or NULL */
	char **eff_keys, **eff_values;
	unsigned nr_eff;
	char *reference;	/* the stored run it was compared with, or NULL */
	double seconds;		/* the runner's wall time on its samples, all told */
	unsigned plan_pos;	/* a shard run's job: its place in the whole plan */
	struct kscen_profile *profile;	/* profile.h; NULL: none asked */
	struct kscen_noise_rec *noise;	/* NULL: no sentinels were read */
};

struct kscen_system {
	char *hostname, *kernel, *kernel_build, *arch, *cpu_model, *cmdline;
	long nr_cpus;
	int perf_event_paranoid;
	/* The environment manifest; NULL where unknown. */
	char *governor, *smt, *mitigations, *thp, *config_sha256;
	char *isolcpus, *nohz_full, *loadavg;
	char *microcode, *scaling_driver, *boost;
};

/* One shard of a merged run (merge.c): where it came from. */
struct kscen_shard_rec {
	char *shard;		/* "K/N" */
	char *path, *hostname, *kernel, *started;
};

struct kscen_run {
	char *version, *scenario, *scenario_file, *scenario_sha256, *command;
	char *scenario_text;	/* the scenario as it ran (kscen rerun), or NULL */
	char *started, *finished;	/* UTC ISO 8601 */
	char *label;		/* run --label, or NULL */
	char *describe;		/* git describe of the kscen build */
	char *filter;		/* run --filter, or NULL: every job */
	char *compare;		/* run --compare, as given */
	bool partial;
	char *shard;		/* run --shard K/N: one slice of the jobs; or NULL */
	char *shard_balance;	/* the stored run whose job durations cut it */
	/* A merged run (kscen merge): its shards, and those it lacks ("2/4"). */
	struct kscen_shard_rec *shards;
	unsigned nr_shards;
	char *missing_shards;	/* "2/4 3/4", or NULL */
	unsigned repeat, warmup;
	unsigned max_repeat;	/* repeat: auto: the most samples a job takes */
	double until_ci;	/* repeat: auto: target CI half-width %; 0 off */
	struct kscen_system system;
	struct kscen_job_result *jobs;
	unsigned nr_jobs;
	char *path;		/* where it was loaded from or saved to */
	/*
	 * The KSCEN_* test hooks set in the runner's environment, which
	 * change what is measured ("KSCEN_BTF_PATH=/x ..."); NULL: none.
	 */
	char *test_hooks;
	/* What `kscen system check` found off before the run; NULL: nothing. */
	char *system_check;
};

/* Frees @run itself too; NULL is fine. */
void kscen_run_free(struct kscen_run *run);
/* "ok", "skipped", "failed" and "lower", "higher", as stored. */
extern const char *const kscen_status_names[];
extern const char *const kscen_better_names[];
const struct kscen_job_result *kscen_run_find(const struct kscen_run *run,
					       const char *id);

/* sysinfo.c: fill @sys for this machine. */
int kscen_system_read(struct kscen_system *sys);
/* runmodel.c */
void kscen_system_fini(struct kscen_system *sys);
/* A sample record with nothing known yet (NAN, -1, false). */
void kscen_sample_rec_init(struct kscen_sample_rec *s);
/*
 * Is sample i of @j's metrics still that of round i + 1? Not when its noise
 * policy dropped one: then the rounds cannot pair it with another job.
 */
bool kscen_rounds_whole(const struct kscen_job_result *j);
/* The primary metric of an ok job with samples, else NULL. */
const struct kscen_metric *kscen_primary(const struct kscen_job_result *j);
/* @j's metric called @name, if @j is ok and it has samples. */
const struct kscen_metric *kscen_find_metric(const struct kscen_job_result *j,
					     const char *name);

/* hooks.c: the KSCEN_* variables of the environment, or NULL (malloc'ed). */
char *kscen_test_hooks(void);

#endif
