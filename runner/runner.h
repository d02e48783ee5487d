/* SPDX-License-Identifier: GPL-2.0 */
/* runner.h - taking samples: isolate.c (one sample) and run.c (rounds). */
#ifndef KSCEN_RUNNER_H
#define KSCEN_RUNNER_H

#include <signal.h>

#include "kscen.h"

/* One sample's outcome, as the isolated child reports it. */
struct kscen_sample_out {
	int ret;		/* 0, KSCEN_SKIP or -errno */
	unsigned nr;		/* values filled */
	double v[KSCEN_MAX_METRICS];
	char reason[KSCEN_REASON_MAX];
};

/* Set by SIGINT/SIGTERM: stop after the current sample, keep what ran. */
extern volatile sig_atomic_t kscen_interrupted;

/*
 * Run setup/sample/teardown of @job in a child process; kill it after
 * @timeout_ns. Returns 0 with @out filled (out->ret says how the sample
 * went), or -errno when no child could be started.
 */
int kscen_sample_isolated(const struct kscen_job *job, long long timeout_ns,
			  struct kscen_sample_out *out);

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
	/*
	 * Optional: take the sample of jobs->job[@index] elsewhere (kscen ab:
	 * in a guest) instead of kscen_sample_isolated(), with its contract;
	 * the job's supported() is then that place's business, not checked
	 * here.
	 */
	int (*sample)(void *arg, unsigned index, const struct kscen_job *job,
		      long long timeout_ns, struct kscen_sample_out *out);
	void *sample_arg;
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

#endif
