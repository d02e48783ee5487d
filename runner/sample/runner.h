/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runner.h - the sample/ stage: a run's jobs sampled in interleaved rounds
 * (run.c), each sample in a process of its own (isolate.c) and cgroup
 * (contain.c), a job's prepare: and cleanup: commands (jobcmd.c), and how
 * a run ends (its exit code). The fork server is sampler.h's, the journal
 * journal.h's, progress progress.h's, profiles profile_take.h's.
 */
#ifndef KSCEN_RUNNER_H
#define KSCEN_RUNNER_H

#include <signal.h>

#include "expand/jobs.h"
#include "store/run.h"
#include "noise.h"

/* One sample's outcome, as the isolated child reports it. */
struct kscen_sample_out {
	int ret;		/* 0, KSCEN_SKIP or -errno */
	unsigned nr;		/* values filled */
	double v[KSCEN_MAX_METRICS];
	char reason[KSCEN_REASON_MAX];
	struct kscen_noise_raw noise;	/* what the sentinels saw (noise.h) */
};

/*
 * contain.c: the runner as a child subreaper, and a cgroup v2 per sample
 * where there is one. kscen_contain_init() once per run (@cgroups: try
 * cgroup v2). sample_begin() before a sample's fork returns the fd the child
 * passes to enter() (or -1: no cgroup), and sample_dir() then the cgroup's
 * directory, for a fork born in it (sampler.c); sample_end() after it kills its
 * cgroup and every orphan, and reads cpu.stat usage and memory.peak (-1
 * where unknown). kscen_contain_extra(): the extra metrics, 0, 1 or 2 (0:
 * no cgroup, kscen_contain_reason() says why).
 */
void kscen_contain_init(bool cgroups);
const char *kscen_contain_reason(void);
int kscen_contain_sample_begin(void);
int kscen_contain_sample_dir(void);
void kscen_contain_enter(int procs_fd);
void kscen_contain_sample_end(int procs_fd, double *cpu_usec, double *mem_peak);
unsigned kscen_contain_extra(const struct kscen_metric_desc **descs);
void kscen_contain_fini(void);
/* @pid, a child the runner started itself, is (not) to be reaped as an orphan. */
void kscen_contain_keep(pid_t pid, bool keep);


/*
 * Run setup/sample/teardown of @job in a child process (for exec, whose
 * sample is one program: the program is that process, sampler.h); kill it
 * after @timeout_ns. Returns 0 with @out filled (out->ret says how the sample
 * went), or -errno when no child could be started.
 */
int kscen_sample_isolated(const struct kscen_job *job, long long timeout_ns,
			  struct kscen_sample_out *out);
/*
 * run.c: does @job's workload run here? Its supported() (0: yes), asked
 * before a job's first sample, here or in kscen ab's guest; @reason says
 * why not ("" when the workload does not).
 */
int kscen_job_supported(const struct kscen_job *job, char *reason, size_t len);
/*
 * jobcmd.c: run a job's prepare: or cleanup: @command (@what) under
 * /bin/sh -c, output discarded, within @timeout_ns. 0, or -errno with
 * @reason ("prepare: command exited with status 1: <its last stderr line>").
 */
int kscen_job_command(const char *what, const char *command, long long timeout_ns,
		      char *reason, size_t len);

struct kscen_run_opts {
	unsigned repeat, warmup;	/* from the scenario or the command line */
	/*
	 * until_ci > 0 (repeat: auto): after @repeat samples, jobs whose
	 * median's 95% CI is wider than +-until_ci % take one more sample a
	 * round, up to @max_repeat.
	 */
	unsigned max_repeat;
	double until_ci;
	const char *filter;		/* glob on job ids, NULL: all */
	bool quiet;
	bool profile;			/* run --profile: profile every job */
	/* run --noise: every job's policy; UNSET: the job's (noise.h) */
	enum kscen_noise_policy noise;
	/*
	 * Optional: take the sample of jobs->job[@index] elsewhere (kscen ab:
	 * in a guest) instead of kscen_sample_isolated(), with its contract;
	 * the job's supported() is then that place's business, not checked
	 * here.
	 */
	int (*sample)(void *arg, unsigned index, const struct kscen_job *job,
		      long long timeout_ns, struct kscen_sample_out *out);
	void *sample_arg;
	/* Where each sample is recorded, or replayed from (journal.c); or NULL. */
	struct kscen_journal *journal;
	/*
	 * Tests only: the progress line drawn as on a terminal, whatever
	 * stderr is, with the time read from this clock (ns); NULL: isatty(2)
	 * decides, and the clock is kscen_now_ns().
	 */
	long long (*progress_clock)(void);
};

/*
 * Run the jobs in interleaved rounds (round r takes sample r of every job)
 * and fill @run's jobs. @run's metadata is the caller's. Returns 0, or
 * -errno when the runner itself could not go on (results so far are kept
 * and run->partial is set).
 */
int kscen_run_jobs(const struct kscen_scenario *s, const struct kscen_jobs *jobs,
		   const struct kscen_run_opts *o, struct kscen_run *run);

/*
 * profile_run.c: after the recorded samples, one more sample of @job under
 * the profiler, when it asks for one; fills r->profile. 0, or -EINTR.
 */
int kscen_profile_run(const struct kscen_scenario *s, const struct kscen_job *job,
		      struct kscen_job_result *r, const struct kscen_run_opts *o);

/* ---- a whole run (run.c), under `kscen run` ---------------------------- */

/* What kscen run exits with; README.md lists them for users. */
enum kscen_exit {
	KSCEN_EXIT_OK = 0,		/* skipped jobs included */
	KSCEN_EXIT_GATE = 1,		/* a regression gate tripped */
	KSCEN_EXIT_USAGE = 2,		/* invalid usage or input: nothing ran */
	KSCEN_EXIT_FAILED_JOBS = 3,	/* some job failed, or the run was cut short */
	KSCEN_EXIT_NOT_SAVED = 4,	/* results not saved (the journal keeps them) */
	KSCEN_EXIT_BISECT_SKIP = 125,	/* git bisect run: cannot tell */
};

/*
 * @o's samples per job from the command line's values over the scenario's:
 * @repeat 0, @warmup ULONG_MAX, @until_ci 0, @max_repeat 0 mean not given.
 * -r N asks for exactly N samples; --until-ci turns repeat: auto on.
 */
void kscen_run_opts_resolve(struct kscen_run_opts *o, const struct kscen_scenario *s,
			    unsigned long repeat, unsigned long warmup,
			    double until_ci, unsigned long max_repeat);
/*
 * A new run of @s with @o, before its jobs: version, scenario, options,
 * this system. @shard is "K/N" or NULL; @command the command line, taken,
 * and so is @s's text (a copy would be one more of up to 1 MiB).
 */
struct kscen_run *kscen_run_new(struct kscen_scenario *s,
				const struct kscen_run_opts *o, const char *label,
				const char *shard, char *command);
/*
 * The exit code of a finished run: @ret from kscen_run_jobs(), @tripped from
 * kscen_gate() (0 when there was no gate), @saved false when storing the run
 * failed. Failed jobs win over the gate, a failed save over everything but
 * a signal's 128 + N.
 */
int kscen_run_exit_code(const struct kscen_run *run, int ret, int tripped, bool saved);
/*
 * --bisect: what `git bisect run` reads: 0 good, 1 bad (the gate tripped),
 * 125 cannot tell (failed or skipped jobs, no reference, too few samples,
 * invalid input); 128 and above only for a signal, which aborts a bisect.
 */
struct kscen_refs;
int kscen_run_bisect_code(int code, const struct kscen_run *run,
			  const struct kscen_refs *refs, int tripped);

#endif
