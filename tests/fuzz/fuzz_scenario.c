// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_scenario.c - libFuzzer target: any bytes as a scenario file, through
 * the loader's three passes and, when it loads, the matrix walked both
 * ways: the jobs kept whole (kscen_expand(), run) and one at a time
 * (`kscen validate`, `kscen plan`). The two must agree: the same ids in
 * the same order, or the same error message; a difference aborts.
 * Otherwise only a crash, a leak, a sanitizer report or a timeout is a
 * finding.
 */
#define _GNU_SOURCE	/* memfd_create, in fuzz_io.h */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "expand/jobs.h"
#include "fuzz_io.h"

/* Small enough that one input cannot spend seconds expanding. */
#define FUZZ_MAX_JOBS 10000

/* The walk against kscen_expand()'s @jobs (@ret its return code). */
static void same_jobs(const struct kscen_scenario *s, int ret,
		      const struct kscen_jobs *jobs)
{
	struct kscen_expander *x;
	struct kscen_job_ref job;
	unsigned n = 0;
	int r = kscen_expand_begin(s, FUZZ_MAX_JOBS, &x);

	while (!r && (r = kscen_expand_next(x, &job)) > 0) {
		/* On an error the ids before it are kscen_expand()'s first. */
		if (!ret && (n >= jobs->nr || strcmp(job.id, jobs->job[n].id)))
			abort();
		n++;
		r = 0;
	}
	kscen_expand_end(x);
	if (!r != !ret || (!ret && n != jobs->nr))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kscen_diag_log a = { 0 }, b = { 0 };
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	int ret;

	if (kscen_scenario_load(fuzz_file(data, size), &s))
		return 0;
	kscen_diag_set_sink(kscen_diag_capture, &a);
	ret = kscen_expand(s, FUZZ_MAX_JOBS, &jobs);
	kscen_diag_set_sink(kscen_diag_capture, &b);
	same_jobs(s, ret, &jobs);
	kscen_diag_set_sink(NULL, NULL);
	if (strcmp(a.text, b.text))
		abort();
	if (!ret)
		kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
	return 0;
}
