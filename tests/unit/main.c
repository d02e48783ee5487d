// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - every unit test on cmocka: the table of tests.h as one group,
 * then the groups with fixtures of their own. A failed assertion ends its
 * test, fails only that test, and the next one runs. `unit-tests NAME` runs
 * the tests whose name matches the glob NAME (cmocka's test filter).
 *
 * The summary each group prints ("[  PASSED  ] N test(s).", "[  FAILED  ]
 * N test(s)", "[  SKIPPED ] N test(s)") is what tests/run-all.sh adds up.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "tests.h"

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
#define ENTRY(fn) cmocka_unit_test(fn),
		KSCEN_UNIT_TESTS(ENTRY)
#undef ENTRY
	};
	int failed = 0;

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	failed += cmocka_run_group_tests_name("unit", tests, NULL, NULL);
	failed += kscen_diag_tests();
	failed += kscen_run_tests();
	failed += kscen_spawn_tests();
	failed += kscen_runmodel_tests();
	failed += kscen_spawn_capture_tests();
	failed += kscen_noise_tests();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
