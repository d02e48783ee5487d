// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_scenario.c - libFuzzer target: any bytes as a scenario file, through
 * the loader's three passes and, when it loads, the matrix expansion, the
 * same path `kscen validate` and `kscen plan` take. Errors are printed
 * (run with -close_fd_mask=2 to keep them quiet); only a crash, a leak, a
 * sanitizer report or a timeout is a finding.
 */
#define _GNU_SOURCE	/* memfd_create, in fuzz_io.h */
#include <stddef.h>
#include <stdint.h>

#include "jobs.h"
#include "fuzz_io.h"

/* Small enough that one input cannot spend seconds expanding. */
#define FUZZ_MAX_JOBS 10000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kscen_scenario *s;
	struct kscen_jobs jobs;

	if (kscen_scenario_load(fuzz_file(data, size), &s))
		return 0;
	if (kscen_expand(s, FUZZ_MAX_JOBS, &jobs) == 0)
		kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
	return 0;
}
