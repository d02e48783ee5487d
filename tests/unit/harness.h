/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - the smallest test harness that is honest: T_CHECK records a
 * failure with file:line and the condition and goes on; every test function
 * is listed once in main.c's table, and the summary line counts tests.
 */
#ifndef KSCEN_HARNESS_H
#define KSCEN_HARNESS_H

#include <stdio.h>

extern unsigned t_failures;

#define T_CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			t_failures++;					\
			fprintf(stderr, "    %s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
		}							\
	} while (0)

#endif
