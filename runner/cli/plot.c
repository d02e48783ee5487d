// SPDX-License-Identifier: GPL-2.0
/*
 * plot.c - `kscen plot`: a flame graph (report/flame.c), or through gnuplot
 * (report/plot.c) a sweep of one run, two runs compared, or one job over a
 * scenario's stored runs.
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

int cmd_plot(int argc, char **argv)
{
	const char *job = NULL, *output = NULL, *history = NULL, *results = "results";
	struct kscen_run *a = NULL, *b = NULL;
	bool diff = false, all = false;
	int nargs, ret;
	const struct kscen_option opts[] = {
		OPT_STRING('o', "output", &output, "FILE",
			   "the .svg, .png or .pdf to write, by its name\n"
			   "(--flame: .svg)"),
		OPT_STRING(0, "history", &history, "GLOB",
			   "one job (glob on ids) over the stored runs of\n"
			   "SCENARIO.yaml or DIR"),
		OPT_BOOL(0, "all", &all, "with --history: every job the glob matches,\n"
			 "a panel each"),
		OPT_STRING(0, "results", &results, "DIR",
			   "with --history and a scenario: where runs are stored"),
		OPT_STRING(0, "flame", &job, "JOB", "the job id whose profile to draw"),
		OPT_BOOL(0, "diff", &diff,
			 "differential: red where the job spends a larger share\n"
			 "than its baseline, blue a smaller one"),
		OPT_END(),
	};

	optind = kscen_parse_options("plot", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	nargs = argc - optind;
	if (job) {
		if (!output || nargs != 1)
			return cmd_usage_error("plot", "needs --flame JOB, one RESULT and -o FILE.svg");
		/* drawn by kscen itself, as SVG: never SVG under another name */
		if (kscen_plot_format(output) != KSCEN_PLOT_SVG)
			return cmd_usage_error("plot", "a flame graph is SVG: -o FILE.svg");
		return kscen_plot_flame(argv[optind], job, diff, output, cmd_load_result);
	}
	if (!output || nargs < 1 || nargs > 2 || (history && nargs != 1))
		return cmd_usage_error("plot", "needs RESULT, OLD NEW or --history GLOB DIR, "
				       "and -o FILE.svg|.png|.pdf");
	if (kscen_plot_format(output) == KSCEN_PLOT_NONE)
		return cmd_usage_error("plot", "-o: the output is a .svg, a .png or a .pdf");
	if (all && !history)
		return cmd_usage_error("plot", "--all goes with --history");
	/* ^C: gnuplot killed, the temporary files removed, nothing written */
	cmd_catch_signals(false);
	if (history) {
		char **paths, *dir = cmd_runs_dir(argv[optind], results);
		struct kscen_run **runs;
		unsigned nr = 0, ok = 0;

		if (!dir)
			return EXIT_USAGE;
		if (kscen_result_list(dir, NULL, &paths, &nr))
			nr = 0, paths = NULL;
		runs = kscen_xcalloc(nr + 1, sizeof(*runs));
		for (unsigned i = nr; i-- > 0;)	/* newest first: oldest first here */
			if (!kscen_result_load(paths[i], &runs[ok]))
				ok++;
		ret = -1;
		for (unsigned i = 0; i < ok && ret; i++)
			for (unsigned k = 0; k < runs[i]->nr_jobs && ret; k++)
				ret = fnmatch(history, runs[i]->jobs[k].id, 0) ? -1 : 0;
		if (ret) {
			char *where = kscen_xasprintf("the runs in %s", dir);

			cmd_no_match("plot", "--history", history, where);
			free(where);
			ret = EXIT_USAGE;
		} else {
			ret = kscen_plot_history(runs, ok, history, all, output);
			ret = ret == -EINTR ? cmd_signal_exit() : ret ? EXIT_USAGE : 0;
		}
		for (unsigned i = 0; i < ok; i++)
			kscen_run_free(runs[i]);
		for (unsigned i = 0; i < nr; i++)
			free(paths[i]);
		free(paths);
		free(runs);
		free(dir);
		return ret;
	}
	if (cmd_load_result(argv[optind], &a) ||
	    (nargs == 2 && cmd_load_result(argv[optind + 1], &b))) {
		kscen_run_free(a);
		return EXIT_USAGE;
	}
	ret = b ? kscen_plot_compare(a, b, output) : kscen_plot_sweep(a, output);
	kscen_run_free(a);
	kscen_run_free(b);
	return ret == -EINTR ? cmd_signal_exit() : ret ? EXIT_USAGE : 0;
}
