// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - `kscen report RESULT [--format F]`: a stored run printed again,
 * in any format, with the deltas it was saved with.
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

int cmd_report(int argc, char **argv)
{
	enum kscen_format fmt = KSCEN_FMT_TEXT;
	const struct kscen_option opts[] = { OPT_FORMAT(&fmt), OPT_END() };
	struct kscen_refs refs;
	struct kscen_run *run;

	optind = kscen_parse_options("report", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	if (argc - optind != 1)
		return cmd_usage_error("report", "needs one result file or directory");
	if (cmd_load_result(argv[optind], &run))
		return EXIT_USAGE;
	kscen_refs_stored(&refs, run);
	kscen_report(stdout, run, &refs, fmt);
	kscen_refs_free(&refs);
	kscen_run_free(run);
	return 0;
}
