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

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		HELP_OPT, { "format", required_argument, NULL, 'F' }, { 0 },
	};
	enum kscen_format fmt = KSCEN_FMT_TEXT;
	struct kscen_refs refs;
	struct kscen_run *run;
	int c;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h')
			return cmd_help(cmd_find("report"), stdout), 0;
		if (c != 'F' || cmd_opt_format("report", optarg, &fmt))
			return c == 'F' ? EXIT_USAGE : cmd_usage_error("report", "unknown option");
	}
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
	kscen_history_load(dir, NULL, NULL, NULL, &h);
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
	static const struct option opts[] = {
		HELP_OPT,
		{ "gate", required_argument, NULL, 'g' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "fleet", no_argument, NULL, 'H' },
		{ 0 },
	};
	bool fleet = false;
	struct kscen_run *old = NULL, *new_ = NULL;
	struct kscen_refs refs;
	int c, code = 0, nargs;
	bool labels;
	double gate = 0;

	while ((c = getopt_long(argc, argv, "+hv", opts, NULL)) != -1) {
		if (c == 'h')
			return cmd_help(cmd_find("compare"), stdout), 0;
		if (c == 'v') {
			kscen_verbose++;
			continue;
		}
		if (c == 'H') {
			fleet = true;
			continue;
		}
		if (c != 'g')
			return cmd_usage_error("compare", "unknown option");
		if (cmd_opt_pct("compare", "--gate", optarg, &gate))
			return EXIT_USAGE;
	}
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
	kscen_compare_print(stdout, new_, &refs);
	if (gate > 0) {
		int bad;

		fputc('\n', stdout);
		bad = kscen_gate(stdout, new_, &refs, gate);
		code = bad > 0 ? EXIT_GATE : bad < 0 ? EXIT_USAGE : 0;
	}
	kscen_refs_free(&refs);
	kscen_run_free(new_);
	return code;
}

/* plot --flame: flame.c (profile.h). */
int cmd_plot(int argc, char **argv)
{
	int ret = kscen_plot_main(argc, argv, cmd_load_result);

	if (ret < 0)
		cmd_help(cmd_find("plot"), stdout);
	return ret < 0 ? 0 : ret;
}

/* ---- merge ---------------------------------------------------------------- */

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		HELP_OPT,
		{ "force", no_argument, NULL, 'f' },
		{ "format", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ 0 },
	};
	struct kscen_merge_opts mo = { 0 };
	enum kscen_format fmt = KSCEN_FMT_TEXT;
	struct kscen_run *run;
	int c;

	while ((c = getopt_long(argc, argv, "+hfq", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return cmd_help(cmd_find("merge"), stdout), 0;
		case 'f':
			mo.force = true;
			break;
		case 'q':
			mo.quiet = true;
			break;
		case 'F':
			if (cmd_opt_format("merge", optarg, &fmt))
				return EXIT_USAGE;
			break;
		default:
			return cmd_usage_error("merge", "unknown option");
		}
	}
	if (argc - optind < 2)
		return cmd_usage_error("merge", "needs OUT and at least one shard run "
				   "or directory of them");
	if (kscen_merge(argv[optind], argv + optind + 1, argc - optind - 1, &mo, &run))
		return EXIT_USAGE;
	if (!mo.quiet)
		kscen_report(stdout, run, NULL, fmt);
	fprintf(fmt == KSCEN_FMT_JSON || fmt == KSCEN_FMT_CSV ? stderr : stdout,
		"%sresults: %s\n", mo.quiet ? "" : "\n", run->path);
	kscen_run_free(run);
	return 0;
}

