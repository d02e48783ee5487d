// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - runs every unit test in the table; a test passes when it records
 * no failed check. Ends with "N passed, N failed" like every kscen suite.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "tests.h"

unsigned t_failures;

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
#define ENTRY(fn) { #fn, fn },
	KSCEN_UNIT_TESTS(ENTRY)
#undef ENTRY
};

int main(int argc, char **argv)
{
	unsigned passed = 0, failed = 0;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		unsigned before = t_failures;

		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		tests[i].fn();
		if (t_failures == before) {
			passed++;
			printf("PASS %s\n", tests[i].name);
		} else {
			failed++;
			printf("FAIL %s\n", tests[i].name);
		}
	}
	printf("unit: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
