/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile_take.h - a job's profile taken: one more sample, never recorded,
 * under kscen's own BPF profiler (profile.c) or perf record
 * (profile_perf.c), after the recorded ones (profile_run.c).
 */
#ifndef KSCEN_PROFILE_TAKE_H
#define KSCEN_PROFILE_TAKE_H

#include "expand/jobs.h"
#include "scenario/profile_spec.h"
#include "store/profile.h"

/*
 * Take one sample of @job under the profiler @spec asks for and return
 * its profile in *@out (always set; out->reason says why there is none).
 * Returns 0, or -errno when no sample could be started at all.
 */
int kscen_profile_job(const struct kscen_job *job, long long timeout_ns,
		      const struct kscen_profile_spec *spec,
		      struct kscen_profile **out);

/*
 * The same sample under perf record (profiler: perf),
 * filling @p like kscen_profile_job(); 0 or -EINTR.
 */
int kscen_profile_perf(const struct kscen_job *job, long long timeout_ns,
		       const struct kscen_profile_spec *spec,
		       struct kscen_profile *p);

#endif
