// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - `kscen compare OLD NEW`: the delta table between two stored
 * runs (files, directories, label:NAME), the gate, --fleet across hosts.
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
		OPT__VERBOSE(&kscen_verbose, "name the test behind each p-value"),
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
