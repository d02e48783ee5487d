// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - `kscen compare OLD NEW [MORE ...]`: the table of stored runs
 * (files, directories, label:NAME) side by side, each against the first;
 * the gate; --fleet across hosts.
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
	/* by file name: however many runs are newer than the labelled ones */
	kscen_history_load_label(dir, NULL, arg + 6, NULL, NULL, NULL, &h);
	if (!h.nr) {	/* files named otherwise (copied, or written elsewhere) */
		kscen_history_free(&h);
		kscen_history_load(dir, NULL, NULL, NULL, &h);
	}
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

/*
 * The runs named by @args: files, directories (their newest run) or, all
 * of them, label:NAME in the directory @args[nr] names.
 */
static int load_runs(char **args, unsigned nr, bool labels,
		     struct kscen_run **runs)
{
	for (unsigned k = 0; k < nr; k++)
		if (labels ? load_label(args[k], args[nr], &runs[k]) :
		    cmd_load_result(args[k], &runs[k]))
			return -EINVAL;
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	bool fleet = false, labels;
	struct kscen_run **runs;
	struct kscen_refs *refs;
	int code = 0, nargs;
	unsigned nr;
	double gate = 0, fdr = 0;
	enum kscen_format fmt = KSCEN_FMT_TEXT;
	const struct kscen_option opts[] = {
		OPT_FORMAT(&fmt),
		OPT_PCT(0, "gate", &gate,
			"exit 1 if a job got worse by more than PCT%, with its\n"
			"whole 95% interval beyond PCT (inconclusive never trips\n"
			"it); 125 if a job cannot be told (no run-to-run estimate)"),
		OPT_CALLBACK(0, "gate-fdr", &fdr, "Q",
			     "the same gate on q-values: a job worse with q <= Q\n"
			     "(Benjamini-Hochberg over the jobs compared)", cmd_opt_fdr),
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
		if (nargs != 2 || gate > 0 || fdr > 0)
			return cmd_usage_error("compare", "--fleet needs OLD and NEW (runs or "
					   "directories of runs), and no --gate");
		return kscen_fleet_compare(stdout, argv[optind], argv[optind + 1]) ?
		       EXIT_USAGE : 0;
	}
	/* label:A label:B [label:C ...] DIR, or runs and directories */
	labels = nargs >= 3 && !strncmp(argv[optind], "label:", 6);
	for (int k = 0; labels && k < nargs - 1; k++)
		labels = !strncmp(argv[optind + k], "label:", 6);
	nr = labels ? (unsigned)nargs - 1 : (unsigned)nargs;
	if (nargs < 2 || nr < 2)
		return cmd_usage_error("compare", "needs OLD and NEW (or more runs, each "
				       "against the first), or label:A label:B ... DIR");
	runs = kscen_xcalloc(nr, sizeof(*runs));
	refs = kscen_xcalloc(nr, sizeof(*refs));
	if (load_runs(argv + optind, nr, labels, runs)) {
		for (unsigned k = 0; k < nr; k++)
			kscen_run_free(runs[k]);
		free(runs);
		free(refs);
		return EXIT_USAGE;
	}
	/*
	 * Every later run against the first; each refs[k] holds the first
	 * run, and only the last one frees it.
	 */
	for (unsigned k = 1; k < nr; k++)
		kscen_refs_single(&refs[k], runs[k], runs[0]);
	kscen_compare_print(stdout, (const struct kscen_run *const *)runs, refs, nr, fmt);
	if (gate > 0 || fdr > 0) {
		bool data = fmt == KSCEN_FMT_JSON || fmt == KSCEN_FMT_CSV;

		for (unsigned k = 1; k < nr; k++) {
			int bad;

			if (!data)
				fputc('\n', stdout);
			if (nr > 2)
				fprintf(data ? stderr : stdout, "# %s against %s:\n",
					runs[k]->path ? runs[k]->path : "?",
					runs[0]->path ? runs[0]->path : "?");
			bad = kscen_gate(data ? stderr : stdout, runs[k], &refs[k], gate, fdr);
			if (bad > 0)
				code = EXIT_GATE;
			else if (bad == KSCEN_GATE_CANNOT_TELL && code != EXIT_GATE)
				code = EXIT_BISECT_SKIP;
			else if (bad < 0 && !code)
				code = EXIT_USAGE;
		}
	}
	for (unsigned k = 1; k < nr; k++) {
		if (k + 1 < nr)
			refs[k].own = NULL;	/* runs[0], freed with the last */
		kscen_refs_free(&refs[k]);
		kscen_run_free(runs[k]);
	}
	free(runs);
	free(refs);
	return code;
}
