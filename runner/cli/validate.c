// SPDX-License-Identifier: GPL-2.0
/*
 * validate.c - `kscen validate SCENARIO.yaml...`: load and expand each file
 * as run would, one job at a time (the matrix is never held), and say
 * which are valid.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expand/jobs.h"
#include "scenario/scenario_load.h"
#include "expand/shard.h"
#include "lib/util.h"
#include "cmd.h"
#include "options.h"

static int validate_main(int argc, char **argv)
{
	unsigned long max_jobs = DEFAULT_MAX_JOBS;
	const struct kscen_option opts[] = {
		OPT__MAX_JOBS(&max_jobs),
		OPT_END(),
	};
	int bad = 0;

	optind = kscen_parse_options("validate", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	if (optind == argc)
		return cmd_usage_error("validate", "needs at least one scenario file");
	for (int i = optind; i < argc; i++) {
		unsigned long nr;

		if (cmd_stream_jobs(argv[i], max_jobs, false, NULL, &nr)) {
			bad++;
			continue;
		}
		printf("%s: ok, %lu job%s\n", argv[i], nr, nr == 1 ? "" : "s");
	}
	return bad ? EXIT_USAGE : 0;
}

/*
 * This command reads and prints; a module's code (its constructors, its
 * check() and job_metrics()) runs only in its child process, and one that
 * ends it (exit(0), a crash) is an error, never a silent success.
 */
int cmd_validate(int argc, char **argv)
{
	return cmd_in_child("validate", validate_main, argc, argv);
}
