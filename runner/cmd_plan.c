// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_plan.c - the commands that run nothing: `kscen validate`, `kscen plan`
 * and `kscen list`. validate and plan (but for a shard, which needs the
 * whole plan) walk the jobs one at a time and never hold the matrix.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "scenario_load.h"
#include "shard.h"
#include "util.h"
#include "cmd.h"
#include "options.h"

/*
 * Walk the jobs of @path one at a time, printing the ids that match @filter
 * if @print: the matrix is never held whole. *@shown: the jobs printed
 * (all of them without @print). On an error the ids before it were printed.
 */
static int stream_jobs(const char *path, unsigned long max_jobs, bool print,
		       const char *filter, unsigned long *shown)
{
	struct kscen_scenario *s;
	struct kscen_expander *x;
	struct kscen_job_ref job;
	int ret;

	*shown = 0;
	if (kscen_scenario_load(path, &s))
		return -EINVAL;
	ret = kscen_expand_begin(s, max_jobs, &x);
	while (!ret && (ret = kscen_expand_next(x, &job)) > 0) {
		ret = 0;
		if (filter && fnmatch(filter, job.id, 0))
			continue;
		if (print)
			puts(job.id);
		++*shown;
	}
	kscen_expand_end(x);
	kscen_scenario_free(s);
	return ret;
}

static int validate_main(int argc, char **argv)
{
	unsigned long max_jobs = DEFAULT_MAX_JOBS;
	const struct kscen_option opts[] = {
		OPT_UINT(0, "max-jobs", &max_jobs, "N", 0, ULONG_MAX / 2,
			 "refuse a larger matrix (default 100000)"),
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

		if (stream_jobs(argv[i], max_jobs, false, NULL, &nr)) {
			bad++;
			continue;
		}
		printf("%s: ok, %lu jobs\n", argv[i], nr);
	}
	return bad ? EXIT_USAGE : 0;
}

static int plan_main(int argc, char **argv)
{
	unsigned long max_jobs = DEFAULT_MAX_JOBS, shards = 0;
	const char *filter = NULL, *shard = NULL, *results = "results";
	char *balance = NULL;
	struct kscen_scenario *s;
	struct kscen_jobs jobs, all = { 0 };
	unsigned shown = 0, sk = 0, sn = 0;
	unsigned long nr;
	int sharded;
	const struct kscen_option opts[] = {
		OPT_STRING(0, "filter", &filter, "GLOB", "only the jobs whose id matches GLOB"),
		OPT_STRING(0, "shard", &shard, "K/N", "only the jobs of shard K of N (as run --shard)"),
		OPT_STRING('o', "results", &results, "DIR",
			   "stored runs whose job durations balance the shards\n"
			   "(default results/, as run -o)"),
		OPT_UINT(0, "shards", &shards, "N", 1, KSCEN_MAX_SHARDS,
			 "the shard count beside JOB_COMPLETION_INDEX"),
		OPT_UINT(0, "max-jobs", &max_jobs, "N", 0, ULONG_MAX / 2,
			 "refuse a larger matrix (default 100000)"),
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
		if (stream_jobs(argv[optind], max_jobs, true, filter, &nr))
			return EXIT_USAGE;
		printf("%lu jobs\n", nr);
		return 0;
	}
	/* A shard needs the whole plan: its jobs go with their baselines. */
	if (cmd_load_and_expand(argv[optind], max_jobs, &s, &jobs))
		return EXIT_USAGE;
	cmd_shard_jobs(&jobs, &all, sk, sn, results, s->name, &balance);
	for (unsigned i = 0; i < jobs.nr; i++) {
		if (filter && fnmatch(filter, jobs.job[i].id, 0))
			continue;
		printf("%s\n", jobs.job[i].id);
		shown++;
	}
	if (balance)
		printf("%u jobs (shard %u/%u of %u jobs, balanced by the job durations "
		       "of %s)\n", shown, sk, sn, all.nr, balance);
	else
		printf("%u jobs (shard %u/%u of %u jobs)\n", shown, sk, sn, all.nr);
	free(balance);
	cmd_jobs_release(&jobs, &all);
	kscen_scenario_free(s);
	return 0;
}

static void param_range(const struct kscen_param *p, char *buf, size_t len)
{
	switch (p->type) {
	case KSCEN_P_INT:
	case KSCEN_P_SIZE:
	case KSCEN_P_TIME:
		snprintf(buf, len, "%lld..%lld%s", p->min, p->max,
			 p->type == KSCEN_P_SIZE ? " B" :
			 p->type == KSCEN_P_TIME ? " ns" : "");
		break;
	case KSCEN_P_ENUM:
		snprintf(buf, len, "%s", p->choices);
		break;
	case KSCEN_P_BOOL:
		snprintf(buf, len, "true|false");
		break;
	default:
		snprintf(buf, len, "-");
	}
}

static void list_one(const struct kscen_workload *w)
{
	const char *origin = kscen_workload_origin(w);

	printf("%s (version %u): %s\n\norigin: %s\n\nmetrics:\n", w->name, w->version,
	       w->summary, origin ? origin : "built-in");
	for (unsigned i = 0; i < w->nr_metrics; i++)
		printf("  %-16s %-14s %s is better%s\n", w->metrics[i].name,
		       w->metrics[i].unit,
		       w->metrics[i].better == KSCEN_LOWER ? "lower" : "higher",
		       i == 0 ? " (primary)" : "");
	printf("\nparameters:\n  %-14s %-7s %-10s %-22s %s\n",
	       "name", "type", "default", "range", "help");
	for (unsigned i = 0; i < w->nr_params; i++) {
		const struct kscen_param *p = &w->params[i];
		char range[96];

		param_range(p, range, sizeof(range));
		printf("  %-14s %-7s %-10s %-22s %s\n", p->name,
		       kscen_ptype_name(p->type), p->def ? (*p->def ? p->def : "\"\"")
							 : "(required)",
		       range, p->help);
	}
}

static int list_main(int argc, char **argv)
{
	const struct kscen_option opts[] = { OPT_END() };

	optind = kscen_parse_options("list", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	if (argc - optind > 1)
		return cmd_usage_error("list", "takes at most one workload name");
	if (kscen_module_env_load())
		return EXIT_USAGE;
	if (argc - optind == 1) {
		const struct kscen_workload *w = kscen_workload_find(argv[optind]);

		if (!w) {
			const char *hint = kscen_workload_closest(argv[optind]);
			char hb[160];

			fprintf(stderr, "kscen list: unknown workload '%s'%s\n", argv[optind],
				kscen_did_you_mean(hb, sizeof(hb), hint, ""));
			return EXIT_USAGE;
		}
		list_one(w);
		return 0;
	}
	/* The built-in workloads, then each module's, with where it is. */
	for (unsigned i = 0; i < kscen_nr_workloads; i++)
		printf("%-20s %s\n", kscen_workloads[i]->name, kscen_workloads[i]->summary);
	for (unsigned i = 0; i < kscen_module_nr_workloads(); i++) {
		const char *path;
		const struct kscen_workload *w = kscen_module_workload(i, &path);

		printf("%-20s %s (module %s)\n", w->name, w->summary, path);
	}
	return 0;
}

/* A result file, or the newest run in a directory of them. */

/*
 * These commands read and print; a module's code (its constructors, its
 * check() and job_metrics()) runs only in their child process, and one
 * that ends it (exit(0), a crash) is an error, never a silent success.
 */
int cmd_validate(int argc, char **argv)
{
	return cmd_in_child("validate", validate_main, argc, argv);
}

int cmd_plan(int argc, char **argv)
{
	return cmd_in_child("plan", plan_main, argc, argv);
}

int cmd_list(int argc, char **argv)
{
	return cmd_in_child("list", list_main, argc, argv);
}
