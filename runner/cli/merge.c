// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - `kscen merge OUT SHARD-RUN...`: the shard runs of one plan
 * joined into one run file (store/merge.c).
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "store/history.h"
#include "store/store.h"
#include "report/report.h"
#include "store/profile.h"
#include "expand/shard.h"
#include "lib/util.h"
#include "cmd.h"
#include "report/plot.h"
#include "options.h"

int cmd_merge(int argc, char **argv)
{
	struct kscen_merge_opts mo = { 0 };
	enum kscen_format fmt = KSCEN_FMT_TEXT;
	struct kscen_run *run;
	int ret;
	const struct kscen_option opts[] = {
		OPT_BOOL('f', "force", &mo.force,
			 "merge shards of other scenario files, kscen or\n"
			 "workload versions (a job measured twice never), and\n"
			 "replace an existing OUT (never a device, a FIFO or\n"
			 "one of the runs merged)"),
		OPT_FORMAT(&fmt),
		OPT__QUIET(&mo.quiet, "no report, only the path"),
		OPT_END(),
	};

	optind = kscen_parse_options("merge", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	if (argc - optind < 2)
		return cmd_usage_error("merge", "needs OUT and at least one shard run "
				   "or directory of them");
	mo.replace = mo.force;
	/* ^C, SIGTERM, SIGHUP: OUT's temporary file removed, OUT not made */
	cmd_catch_signals(false);
	ret = kscen_merge(argv[optind], argv + optind + 1, argc - optind - 1, &mo, &run);
	if (ret)
		return ret == -EINTR ? cmd_signal_exit() : EXIT_USAGE;
	if (!mo.quiet)
		kscen_report(stdout, run, NULL, fmt);
	fflush(stdout);		/* never part of the report: run.c */
	fprintf(stderr, "%sresults: %s\n", mo.quiet ? "" : "\n", run->path);
	kscen_run_free(run);
	return 0;
}
