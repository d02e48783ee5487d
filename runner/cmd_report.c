// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_report.c - the commands on stored runs: `kscen report`, `kscen
 * compare`, `kscen plot` and `kscen merge`.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "history.h"
#include "store.h"
#include "report.h"
#include "profile.h"
#include "shard.h"
#include "util.h"
#include "cmd.h"
#include "plot.h"
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

/* label:NAME in @dir: the newest complete run labelled NAME. */
static int load_label(const char *arg, const char *dir, struct kscen_run **out)
{
	struct kscen_history h;

	*out = NULL;
	kscen_history_load_label(dir, NULL, arg + 6, NULL, NULL, NULL, &h);
	for (unsigned i = 0; i < h.nr && !*out; i++) {
		if (!h.run[i]->label || strcmp(h.run[i]->label, arg + 6))
			continue;
		*out = h.run[i];
		h.run[i] = NULL;
		for (unsigned k = i + 1; k < h.nr; k++)	/* keep the array dense */
			h.run[k - 1] = h.run[k];
		h.nr--;
	}
	kscen_history_free(&h);
	if (!*out)
		fprintf(stderr, "kscen compare: %s: no complete run with that label "
			"in %s\n", arg, dir);
	return *out ? 0 : -EINVAL;
}

int cmd_compare(int argc, char **argv)
{
	bool fleet = false;
	struct kscen_run *old = NULL, *new_ = NULL;
	struct kscen_refs refs;
	int code = 0, nargs;
	bool labels;
	double gate = 0;
	enum kscen_format fmt = KSCEN_FMT_TEXT;
	const struct kscen_option opts[] = {
		OPT_FORMAT(&fmt),
		OPT_PCT(0, "gate", &gate,
			"exit 1 if a job got worse by more than PCT%, with its\n"
			"whole 95% CI beyond PCT (inconclusive never trips it)"),
		OPT_BOOL(0, "fleet", &fleet,
			 "OLD and NEW hold runs from several hosts: compare each\n"
			 "host's newest runs, then the geomean across hosts,\n"
			 "hosts grouped by shared environment"),
		OPT_COUNT('v', "verbose", &kscen_verbose, "name the test behind each p-value"),
		OPT_END(),
	};

	optind = kscen_parse_options("compare", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	nargs = argc - optind;
	if (fleet) {
		if (nargs != 2 || gate > 0)
			return cmd_usage_error("compare", "--fleet needs OLD and NEW (runs or "
					   "directories of runs), and no --gate");
		return kscen_fleet_compare(stdout, argv[optind], argv[optind + 1]) ?
		       EXIT_USAGE : 0;
	}
	labels = nargs == 3 && !strncmp(argv[optind], "label:", 6) &&
		 !strncmp(argv[optind + 1], "label:", 6);
	if (nargs != 2 && !labels)
		return cmd_usage_error("compare", "needs OLD and NEW, or label:A label:B DIR");
	if (labels ? load_label(argv[optind], argv[optind + 2], &old) ||
		     load_label(argv[optind + 1], argv[optind + 2], &new_) :
		     cmd_load_result(argv[optind], &old) ||
		     cmd_load_result(argv[optind + 1], &new_)) {
		kscen_run_free(old);
		kscen_run_free(new_);
		return EXIT_USAGE;
	}
	kscen_refs_single(&refs, new_, old);	/* takes old */
	/*
	 * text: benchstat's table; any other format: NEW's report with OLD
	 * as the reference of every job (its "vs ref" deltas).
	 */
	if (fmt == KSCEN_FMT_TEXT)
		kscen_compare_print(stdout, new_, &refs);
	else
		kscen_report(stdout, new_, &refs, fmt);
	if (gate > 0) {
		bool data = fmt == KSCEN_FMT_JSON || fmt == KSCEN_FMT_CSV;
		int bad;

		if (!data)
			fputc('\n', stdout);
		bad = kscen_gate(data ? stderr : stdout, new_, &refs, gate);
		code = bad > 0 ? EXIT_GATE : bad < 0 ? EXIT_USAGE : 0;
	}
	kscen_refs_free(&refs);
	kscen_run_free(new_);
	return code;
}

/*
 * plot: a flame graph (flame.c), or through gnuplot (plot.c) a sweep of
 * one run, two runs compared, or one job over a scenario's stored runs.
 */
int cmd_plot(int argc, char **argv)
{
	const char *job = NULL, *output = NULL, *history = NULL, *results = "results";
	struct kscen_run *a = NULL, *b = NULL;
	bool diff = false;
	int nargs, ret;
	const struct kscen_option opts[] = {
		OPT_STRING('o', "output", &output, "FILE", "the .svg (or .png but for --flame) to write"),
		OPT_STRING(0, "history", &history, "GLOB",
			   "one job (glob on ids) over the stored runs of\n"
			   "SCENARIO.yaml or DIR"),
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
	/* ^C: gnuplot killed, the temporary files removed, nothing written */
	cmd_catch_signals(false);
	if (job) {
		if (!output || nargs != 1)
			return cmd_usage_error("plot", "needs --flame JOB, one RESULT and -o FILE.svg");
		return kscen_plot_flame(argv[optind], job, diff, output, cmd_load_result);
	}
	if (!output || nargs < 1 || nargs > 2 || (history && nargs != 1))
		return cmd_usage_error("plot", "needs RESULT, OLD NEW or --history GLOB DIR, "
				       "and -o FILE.svg|.png");
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
		ret = kscen_plot_history(runs, ok, history, output);
		ret = ret == -EINTR ? cmd_signal_exit() : ret ? EXIT_USAGE : 0;
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

/* ---- merge ---------------------------------------------------------------- */

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
		OPT_BOOL('q', "quiet", &mo.quiet, "no report, only the path"),
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
	fprintf(fmt == KSCEN_FMT_JSON || fmt == KSCEN_FMT_CSV ? stderr : stdout,
		"%sresults: %s\n", mo.quiet ? "" : "\n", run->path);
	kscen_run_free(run);
	return 0;
}

