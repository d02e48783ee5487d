// SPDX-License-Identifier: GPL-2.0
/*
 * test_progress.c - the progress line's durations and its estimate, and
 * what it says to the diagnostics sink.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "lib/diag.h"
#include "sample/progress.h"

void test_progress_durations_and_estimate(void **state)
{
	struct kscen_progress p;
	struct kscen_diag_log log = { 0 };
	char b[32];

	kscen_progress_duration(0, b, sizeof(b));
	assert_true(!strcmp(b, "0:00"));
	kscen_progress_duration(65499999999LL, b, sizeof(b));
	assert_true(!strcmp(b, "1:05"));
	kscen_progress_duration(3723LL * 1000000000LL, b, sizeof(b));
	assert_true(!strcmp(b, "1:02:03"));
	kscen_progress_duration(-5, b, sizeof(b));
	assert_true(!strcmp(b, "0:00"));

	/* quiet: nothing drawn, but the count still goes on */
	kscen_progress_init(&p, true, 1, NULL);
	kscen_progress_round(&p, false, 1, 3, 4, 8);
	assert_true(p.left == 0);		/* quiet rounds plan nothing */
	kscen_progress_sample(&p);
	assert_true(p.done == 1 && !p.drawn);

	/* 4 jobs a round, 2 more rounds: 12 planned, one taken: 11 left */
	kscen_progress_init(&p, false, 0, NULL);
	kscen_diag_set_sink(kscen_diag_capture, &log);
	kscen_progress_round(&p, false, 1, 3, 4, 8);
	assert_true(p.left == 12);
	kscen_progress_sample(&p);
	assert_true(p.done == 1 && p.left == 11 && !p.drawn);
	assert_string_equal(log.text, "kscen: round 1/3\n");	/* not a tty */

	/* a terminal: one line redrawn, then cleared */
	memset(&log, 0, sizeof(log));
	kscen_progress_init(&p, false, 1, NULL);
	kscen_progress_round(&p, true, 1, 1, 2, 0);
	kscen_progress_clear(&p);
	kscen_diag_set_sink(NULL, NULL);
	assert_string_equal(log.text,
			    "\rkscen: warmup round 1/1, job 0/2, 0:00 elapsed\033[K\r\033[K");
	assert_int_equal(log.nr, 2);
}
