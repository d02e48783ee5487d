// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_scenario.c - libFuzzer target: any bytes as a scenario file, through
 * the loader's three passes and, when it loads, the matrix walked both
 * ways: the jobs kept whole (kscen_expand(), run) and one at a time
 * (`kscen validate`, `kscen plan`). The two must agree: the same ids in
 * the same order, or the same error message; a difference aborts. And the
 * loader reads it twice: with every list it can take from the prescan's
 * events taken so (a long axis, scenario_axis.c, here from one value) and
 * with none, and the two must say the same and give the same jobs.
 * Otherwise only a crash, a leak, a sanitizer report or a timeout is a
 * finding.
 */
#define _GNU_SOURCE	/* memfd_create, in fuzz_io.h */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "expand/jobs.h"
#include "scenario/scenario_load.h"
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

/* The same jobs, baselines and previous jobs, or the same error. */
static void same_expansion(const struct kscen_scenario *s, const struct kscen_scenario *t)
{
	struct kscen_diag_log a = { 0 }, b = { 0 };
	struct kscen_jobs js, jt;
	int rs, rt;

	kscen_diag_set_sink(kscen_diag_capture, &a);
	rs = kscen_expand(s, FUZZ_MAX_JOBS, &js);
	kscen_diag_set_sink(kscen_diag_capture, &b);
	rt = kscen_expand(t, FUZZ_MAX_JOBS, &jt);
	kscen_diag_set_sink(NULL, NULL);
	if (rs != rt || strcmp(a.text, b.text) || (!rs && js.nr != jt.nr))
		abort();
	for (unsigned i = 0; !rs && i < js.nr; i++)
		if (strcmp(js.job[i].id, jt.job[i].id) ||
		    js.job[i].baseline != jt.job[i].baseline ||
		    js.job[i].previous != jt.job[i].previous)
			abort();
	if (!rs) {
		kscen_jobs_free(&js);
		kscen_jobs_free(&jt);
	}
}

/*
 * Loaded with lists lexed before pass 1 or from its events, from those
 * events alone, and from the tree: the same.
 */
static int load_both_ways(const char *path, struct kscen_scenario **s)
{
	struct kscen_diag_log a = { 0 }, b = { 0 }, c = { 0 };
	struct kscen_scenario *t, *u;
	int rs, rt, ru;

	kscen_stream_axis_min = UINT_MAX;
	kscen_diag_set_sink(kscen_diag_capture, &b);
	rt = kscen_scenario_load(path, &t);
	kscen_stream_axis_min = 1;
	kscen_axis_prelex_on = false;
	kscen_diag_set_sink(kscen_diag_capture, &c);
	ru = kscen_scenario_load(path, &u);
	kscen_axis_prelex_on = true;
	kscen_diag_set_sink(kscen_diag_capture, &a);
	rs = kscen_scenario_load(path, s);
	kscen_diag_set_sink(NULL, NULL);
	kscen_stream_axis_min = KSCEN_STREAM_AXIS_MIN;
	if (rs != rt || ru != rt || strcmp(a.text, b.text) || strcmp(c.text, b.text))
		abort();
	if (!rs) {
		same_expansion(*s, t);
		same_expansion(u, t);
		if (!(*s)->description != !t->description ||
		    ((*s)->description && strcmp((*s)->description, t->description)))
			abort();
		kscen_scenario_free(t);
		kscen_scenario_free(u);
	}
	return rs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kscen_diag_log a = { 0 }, b = { 0 };
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	int ret;

	if (load_both_ways(fuzz_file(data, size), &s))
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
