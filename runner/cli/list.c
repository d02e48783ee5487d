// SPDX-License-Identifier: GPL-2.0
/*
 * list.c - `kscen list [WORKLOAD]`: the workloads, or one workload's
 * metrics and parameters (name, type, default, range, help), from its
 * parameter table.
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

/*
 * This command reads and prints; a module's code (its constructors, its
 * check() and job_metrics()) runs only in its child process, and one that
 * ends it (exit(0), a crash) is an error, never a silent success.
 */
int cmd_list(int argc, char **argv)
{
	return cmd_in_child("list", list_main, argc, argv);
}
