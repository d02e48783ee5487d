// SPDX-License-Identifier: GPL-2.0
/*
 * plan.c - `kscen plan SCENARIO.yaml`: the job ids run would run, one a
 * line, and their count; a shard's, from the whole plan.
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

static int plan_main(int argc, char **argv)
{
	unsigned long max_jobs = DEFAULT_MAX_JOBS, shards = 0;
	const char *filter = NULL, *shard = NULL, *results = "results";
	char *balance = NULL;
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	struct cmd_shard sh;
	unsigned shown = 0, sk = 0, sn = 0;
	unsigned long nr;
	int sharded;
	const struct kscen_option opts[] = {
		OPT__FILTER(&filter, "only the jobs whose id matches GLOB"),
		OPT_STRING(0, "shard", &shard, "K/N", "only the jobs of shard K of N (as run --shard)"),
		OPT__RESULTS(&results, "stored runs whose job durations balance the shards\n"
			     "(default results/, as run -o)"),
		OPT__SHARDS(&shards, "the shard count beside JOB_COMPLETION_INDEX"),
		OPT__MAX_JOBS(&max_jobs),
		OPT_END(),
	};

	optind = kscen_parse_options("plan", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	if (argc - optind != 1)
		return cmd_usage_error("plan", "needs one scenario file");
	if ((sharded = cmd_shard_opts("plan", shard, shards, &sk, &sn)) < 0)
		return EXIT_USAGE;
	if (!sharded) {
		if (cmd_stream_jobs(argv[optind], max_jobs, true, filter, &nr))
			return EXIT_USAGE;
		if (!nr && filter)
			return cmd_no_match("plan", "--filter", filter, argv[optind]);
		printf("%lu job%s\n", nr, nr == 1 ? "" : "s");
		return 0;
	}
	/* A shard is cut from the whole plan: its jobs go with their baselines. */
	sh = (struct cmd_shard){ .k = sk, .n = sn, .max_jobs = max_jobs, .results = results };
	if (cmd_load_shard(argv[optind], &sh, &s, &jobs, &nr, &balance))
		return EXIT_USAGE;
	for (unsigned i = 0; filter && i < jobs.nr && !shown; i++)
		shown = !fnmatch(filter, jobs.job[i].id, 0);
	if (filter && !shown) {
		kscen_jobs_free(&jobs);
		kscen_scenario_free(s);
		free(balance);
		return cmd_no_match("plan", "--filter", filter, argv[optind]);
	}
	cmd_print_jobs(&jobs, filter, sk, sn, nr, balance);
	free(balance);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
	return 0;
}

/*
 * This command reads and prints; a module's code (its constructors, its
 * check() and job_metrics()) runs only in its child process, and one that
 * ends it (exit(0), a crash) is an error, never a silent success.
 */
int cmd_plan(int argc, char **argv)
{
	return cmd_in_child("plan", plan_main, argc, argv);
}
