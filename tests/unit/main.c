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
#include <glob.h>
#include <stdlib.h>

#include "tests.h"

void tests_each_scenario(void (*fn)(const char *path))
{
	const char *const dirs[] = { "tests/fixtures/good/*.yaml", "scenarios/*.yaml" };

	for (unsigned d = 0; d < 2; d++) {
		glob_t g;

		assert_int_equal(glob(dirs[d], 0, NULL, &g), 0);
		assert_true(g.gl_pathc >= 5);
		for (size_t i = 0; i < g.gl_pathc; i++)
			fn(g.gl_pathv[i]);
		globfree(&g);
	}
}

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
