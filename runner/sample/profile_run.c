// SPDX-License-Identifier: GPL-2.0
/*
 * profile_run.c - where profiling meets the rounds: after the recorded
 * samples, each job that ran ok and asked for a profile (its own
 * `profile:`, the scenario's, or `run --profile`) takes one more sample
 * under the profiler. That sample is never recorded: the profiler's ticks
 * would perturb the numbers the statistics are about. Its value is kept
 * with the profile, which is how docs/profiles.md measures the overhead.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/diag.h"
#include "profile_take.h"
#include "runner.h"

/* The spec @job runs under, or NULL for none. */
static const struct kscen_profile_spec *job_spec(const struct kscen_scenario *s,
						 const struct kscen_job *job,
						 bool force,
						 struct kscen_profile_spec *tmp)
{
	const struct kscen_profile_spec *sp = job->spec->profile ? job->spec->profile :
					      s->profile;

	if (sp && sp->on)
		return sp;
	if (!force)
		return NULL;
	if (sp)
		*tmp = *sp;
	else
		kscen_profile_spec_default(tmp);
	tmp->on = true;
	return tmp;
}

int kscen_profile_run(const struct kscen_scenario *s, const struct kscen_job *job,
		      struct kscen_job_result *r, const struct kscen_run_opts *o)
{
	struct kscen_profile_spec tmp;
	const struct kscen_profile_spec *sp = job_spec(s, job, o->profile, &tmp);
	long long timeout = kscen_job_timeout(s, job);
	int ret;

	if (!sp || r->status != KSCEN_OK)
		return 0;
	if (!o->quiet)
		kscen_diag_info("kscen: profiling %s (%s, %u Hz)\n", job->id,
				sp->perf ? "perf record" : "bpf", sp->frequency);
	kscen_profile_free(r->profile);
	ret = kscen_profile_job(job, timeout, sp, &r->profile);
	if (r->profile->reason && !o->quiet)
		kscen_note(NULL, "%s: %s", job->id, r->profile->reason);
	return ret;
}
