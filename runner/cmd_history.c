// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_history.c - `kscen history [SCENARIO|DIR] [--job GLOB]`: the stored
 * runs of a scenario, newest first (date, label, host, kernel, jobs ok /
 * skipped / failed, partial or filtered), and with --job one job's median
 * over time, oldest first, marking the runs whose change against the run
 * before it is a verdict (worse or better, drift allowed for), which is
 * where a bisect would start.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "history.h"
#include "store.h"
#include "util.h"
#include "report.h"
#include "scenario_load.h"
#include "cmd.h"
#include "options.h"

static const char *str(const char *s)
{
	return s ? s : "";
}

static void list_runs(char **paths, unsigned nr)
{
	printf("%-20s %-14s %-10s %-24s %5s %5s %5s  %s\n", "started", "label",
	       "host", "kernel", "ok", "skip", "fail", "note");
	for (unsigned i = 0; i < nr; i++) {
		struct kscen_run *r;
		unsigned n[3] = { 0 };
		char err[256];

		if (kscen_result_load_err(paths[i], &r, err, sizeof(err))) {
			printf("%-20s %s\n", "?", err);
			continue;
		}
		for (unsigned k = 0; k < r->nr_jobs; k++)
			n[r->jobs[k].status <= KSCEN_FAILED ? r->jobs[k].status :
			  KSCEN_FAILED]++;
		printf("%-20s %-14s %-10s %-24s %5u %5u %5u  %s%s\n",
		       str(r->started), r->label ? r->label : "-",
		       str(r->system.hostname), str(r->system.kernel), n[0], n[1],
		       n[2], r->partial ? "partial " : "",
		       r->filter ? "filtered" : "");
		kscen_run_free(r);
	}
}

/* One job over the usable runs, oldest first, with its verdict changes. */
static int job_over_time(const char *dir, const char *glob)
{
	struct kscen_history h;
	unsigned shown = 0;

	kscen_history_load(dir, NULL, NULL, NULL, &h);
	for (unsigned k = h.nr; k-- > 0;) {
		const struct kscen_run *r = h.run[k];

		for (unsigned i = 0; i < r->nr_jobs; i++) {
			const struct kscen_job_result *j = &r->jobs[i];
			const struct kscen_metric *m = kscen_primary(j);
			const struct kscen_job_result *pj = NULL;
			struct kscen_change c;
			struct kscen_drift d;
			char chg[192] = "", ci[32], lbl[96];
			unsigned p;

			memset(&c, 0, sizeof(c));

			if (fnmatch(glob, str(j->id), 0))
				continue;
			if (!shown++)
				printf("%-20s %-14s %14s %-10s  %s\n", "started", "label",
				       "median", "CI", "job: change against the run before");
			/* The previous run of this job: the next older usable one. */
			for (p = k + 1; p < h.nr; p++) {
				pj = kscen_run_find(h.run[p], j->id);
				if (pj && kscen_primary(pj) && kscen_job_same(j, pj, false))
					break;
				pj = NULL;
			}
			if (!m) {
				printf("%-20s %-14s %14s %-10s  %s\n", str(r->started),
				       r->label ? r->label : "-",
				       kscen_status_names[j->status <= KSCEN_FAILED ?
							  j->status : KSCEN_FAILED],
				       "", str(j->id));
				continue;
			}
			kscen_format_ci(m, ci, sizeof(ci));
			if (pj && kscen_change_compute(kscen_find_metric(pj, m->name),
						       m, false, &c)) {
				/*
				 * The drift of the runs before this one only, on
				 * the earlier run's host and kernel, as compare
				 * takes it: a new kernel has no history of its own.
				 */
				struct kscen_history before = {
					.run = h.run + k + 1, .nr = h.nr - k - 1,
				};

				kscen_history_drift(&before, h.run[p], j, m->name, &d);
				kscen_change_widen(&c, &d, m->better);
				kscen_format_change(&c, chg, sizeof(chg));
			}
			kscen_metric_label(m, lbl, sizeof(lbl));
			printf("%-20s %-14s %14.6g %-10s  %s%s%s%s\n", str(r->started),
			       r->label ? r->label : "-", m->sum.median, ci,
			       c.verdict != KSCEN_SAME && *chg ? "<- " : "", str(j->id),
			       *chg ? ": " : "", chg);
		}
	}
	if (!shown)
		printf("no stored run of %s holds a job matching '%s'\n", dir, glob);
	kscen_history_free(&h);
	return 0;
}

int kscen_cmd_history(int argc, char **argv)
{
	const char *glob = NULL, *results = "results";
	char *dir, **paths;
	unsigned nr;
	const struct kscen_option opts[] = {
		OPT_STRING(0, "job", &glob, "GLOB",
			   "one job (glob on job ids) over time, '<-' where\n"
			   "its change against the run before is a verdict"),
		OPT_STRING('o', "results", &results, "DIR",
			   "where runs are stored (default: results/)"),
		OPT_END(),
	};

	optind = kscen_parse_options("history", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	if (argc - optind != 1)
		return cmd_usage_error("history", "needs one scenario file or directory of runs");
	dir = cmd_runs_dir(argv[optind], results);
	if (!dir)
		return 2;
	if (kscen_result_list(dir, NULL, &paths, &nr) || !nr) {
		fprintf(stderr, "kscen history: %s: no stored runs\n", dir);
		free(dir);
		return 2;
	}
	if (glob)
		job_over_time(dir, glob);
	else
		list_runs(paths, nr);
	for (unsigned i = 0; i < nr; i++)
		free(paths[i]);
	free(paths);
	free(dir);
	return 0;
}
