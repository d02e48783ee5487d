// SPDX-License-Identifier: GPL-2.0
/*
 * test_run.c - what `kscen run` decides around its samples (run.c): the
 * samples per job from the command line over the scenario, and the exit
 * code from the jobs, the gate, the save and signals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>

#include "store/history.h"
#include "sample/runner.h"
#include "lib/util.h"
#include "scenario/scenario_load.h"

static void test_opts_from_scenario(void **state)
{
	struct kscen_scenario s = { .repeat = 7, .warmup = 2 };
	struct kscen_run_opts o = { 0 };

	(void)state;
	kscen_run_opts_resolve(&o, &s, 0, ULONG_MAX, 0, 0);
	assert_int_equal(o.repeat, 7);
	assert_int_equal(o.warmup, 2);
	assert_true(o.until_ci == 0);
	/* the command line wins; -w 0 is a value, not "not given" */
	kscen_run_opts_resolve(&o, &s, 3, 0, 0, 0);
	assert_int_equal(o.repeat, 3);
	assert_int_equal(o.warmup, 0);
}

static void test_opts_auto(void **state)
{
	struct kscen_scenario s = { .repeat = KSCEN_AUTO_MIN_REPEAT, .max_repeat = 20,
				    .until_ci = 5, .warmup = 1 };
	struct kscen_scenario fixed = { .repeat = 5, .warmup = 1 };
	struct kscen_run_opts o = { 0 };

	(void)state;
	kscen_run_opts_resolve(&o, &s, 0, ULONG_MAX, 0, 0);
	assert_true(o.until_ci == 5);
	assert_int_equal(o.max_repeat, 20);
	/* -r N asks for exactly N: repeat: auto off */
	kscen_run_opts_resolve(&o, &s, 9, ULONG_MAX, 0, 0);
	assert_true(o.until_ci == 0);
	assert_int_equal(o.repeat, 9);
	/* --until-ci on a fixed scenario: auto from the least samples */
	kscen_run_opts_resolve(&o, &fixed, 0, ULONG_MAX, 2.5, 0);
	assert_true(o.until_ci == 2.5);
	assert_int_equal(o.repeat, KSCEN_AUTO_MIN_REPEAT);
	assert_int_equal(o.max_repeat, KSCEN_AUTO_MAX_REPEAT);
	/* at most never below at least */
	kscen_run_opts_resolve(&o, &fixed, 40, ULONG_MAX, 2.5, 10);
	assert_int_equal(o.max_repeat, 40);
}

static void test_exit_code(void **state)
{
	struct kscen_job_result jobs[2] = { { .status = KSCEN_OK }, { .status = KSCEN_SKIPPED } };
	struct kscen_run run = { .jobs = jobs, .nr_jobs = 2 };

	(void)state;
	assert_int_equal(kscen_run_exit_code(&run, 0, 0, true), KSCEN_EXIT_OK);
	assert_int_equal(kscen_run_exit_code(&run, 0, 1, true), KSCEN_EXIT_GATE);
	assert_int_equal(kscen_run_exit_code(&run, 0, -1, true), KSCEN_EXIT_USAGE);
	assert_int_equal(kscen_run_exit_code(&run, -EIO, 0, true), KSCEN_EXIT_FAILED_JOBS);
	jobs[1].status = KSCEN_FAILED;
	/* failed jobs win over the gate, a failed save over both */
	assert_int_equal(kscen_run_exit_code(&run, 0, 1, true), KSCEN_EXIT_FAILED_JOBS);
	assert_int_equal(kscen_run_exit_code(&run, 0, 1, false), KSCEN_EXIT_NOT_SAVED);
	kscen_interrupted = SIGTERM;
	assert_int_equal(kscen_run_exit_code(&run, -EINTR, 0, true), 128 + SIGTERM);
	kscen_interrupted = 0;
	assert_int_equal(kscen_run_exit_code(&run, -EINTR, 0, true), 128 + SIGINT);
}

static void test_bisect_code(void **state)
{
	struct kscen_job_result jobs[1] = { { .status = KSCEN_OK } };
	struct kscen_run run = { .jobs = jobs, .nr_jobs = 1 };
	struct kscen_refs refs;

	(void)state;
	memset(&refs, 0, sizeof(refs));
	/* signals pass through; anything but good or bad cannot tell */
	assert_int_equal(kscen_run_bisect_code(130, &run, &refs, 0), 130);
	assert_int_equal(kscen_run_bisect_code(KSCEN_EXIT_FAILED_JOBS, &run, &refs, 0),
			 KSCEN_EXIT_BISECT_SKIP);
	/* a job without a reference cannot be judged */
	assert_int_equal(kscen_run_bisect_code(0, &run, &refs, 0), KSCEN_EXIT_BISECT_SKIP);
	jobs[0].status = KSCEN_SKIPPED;
	assert_int_equal(kscen_run_bisect_code(KSCEN_EXIT_GATE, &run, &refs, 1),
			 KSCEN_EXIT_BISECT_SKIP);
}

int kscen_run_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts_from_scenario),
		cmocka_unit_test(test_opts_auto),
		cmocka_unit_test(test_exit_code),
		cmocka_unit_test(test_bisect_code),
	};

	return cmocka_run_group_tests_name("run", tests, NULL, NULL);
}
