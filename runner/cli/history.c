// SPDX-License-Identifier: GPL-2.0
/*
 * history.c - `kscen history [SCENARIO|DIR] [--job GLOB]`: the stored
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

#include "store/history.h"
#include "store/store.h"
#include "lib/util.h"
#include "report/report.h"
#include "report/table.h"
#include "scenario/scenario_load.h"
#include "cmd.h"
#include "options.h"

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
		       kscen_str(r->started), r->label ? r->label : "-",
		       kscen_str(r->system.hostname), kscen_str(r->system.kernel), n[0], n[1],
		       n[2], r->partial ? "partial " : "",
		       r->filter ? "filtered" : "");
		kscen_run_free(r);
	}
}

/* Job @j of run @r as a row of @t: its median scaled, CI, n and change. */
static void job_row(struct kscen_table *t, const struct kscen_history *h,
		    unsigned k, const struct kscen_job_result *j)
{
	const struct kscen_run *r = h->run[k];
	const struct kscen_metric *m = kscen_primary(j);
	const struct kscen_job_result *pj = NULL;
	unsigned row = kscen_table_row(t), p;
	struct kscen_change c;
	struct kscen_drift d;
	struct kscen_num st;
	char chg[192] = "", num[64], ci[32];

	memset(&c, 0, sizeof(c));
	kscen_table_set(t, row, 0, "%s", kscen_str(r->started));
	kscen_table_set(t, row, 1, "%s", r->label ? r->label : "-");
	if (!m) {
		kscen_table_set(t, row, 2, "%s", kscen_status_names[j->status <= KSCEN_FAILED ?
								  j->status : KSCEN_FAILED]);
		kscen_table_set(t, row, 6, "%s", kscen_str(j->id));
		return;
	}
	/* The previous run of this job: the next older usable one. */
	for (p = k + 1; p < h->nr; p++) {
		pj = kscen_run_find(h->run[p], j->id);
		if (pj && kscen_primary(pj) && kscen_job_same(j, pj, false))
			break;
		pj = NULL;
	}
	if (pj && kscen_change_compute(kscen_find_metric(pj, m->name), m, false, &c)) {
		/*
		 * The drift of the runs before this one only, on the earlier
		 * run's host and kernel, as compare takes it: a new kernel has
		 * no history of its own.
		 */
		struct kscen_history before = {
			.run = h->run + k + 1, .nr = h->nr - k - 1,
		};

		kscen_history_drift(&before, h->run[p], j, m->name, &d);
		kscen_change_widen(&c, &d, m->better);
		kscen_format_change(&c, chg, sizeof(chg));
	}
	kscen_num_style_in(m, kscen_job_time_style(j), &st);
	kscen_format_num(&st, m->sum.median, false, num, sizeof(num));
	kscen_report_ci_pct(m, ci, sizeof(ci));
	kscen_table_set(t, row, 2, "%s", num);
	kscen_table_set(t, row, 3, "%s", st.unit);
	kscen_table_set(t, row, 4, "%s", ci);
	kscen_table_set(t, row, 5, "%u", m->nr_samples);
	kscen_table_set(t, row, 6, "%s%s%s%s", c.verdict != KSCEN_SAME && *chg ? "<- " : "",
			kscen_str(j->id), *chg ? ": " : "", chg);
}

/* One job over the usable runs, oldest first, with its verdict changes. */
static int job_over_time(const char *dir, const char *glob)
{
	static const char *const heads[] = {
		"started", "label", "median", "", "CI", "n",
		"job: change against the run before",
	};
	struct kscen_history h;
	struct kscen_table t;
	unsigned lo = ~0u, hi = 0, shown;
	char note[64];

	kscen_history_load(dir, NULL, NULL, NULL, &h);
	kscen_table_init(&t, ARRAY_SIZE(heads));
	t.col[2].right = t.col[4].right = t.col[5].right = true;
	t.col[3].gap = 1;
	kscen_table_row(&t);
	for (unsigned c = 0; c < ARRAY_SIZE(heads); c++)
		kscen_table_set(&t, 0, c, "%s", heads[c]);
	for (unsigned k = h.nr; k-- > 0;) {
		const struct kscen_run *r = h.run[k];

		for (unsigned i = 0; i < r->nr_jobs; i++) {
			const struct kscen_metric *m = kscen_primary(&r->jobs[i]);

			if (fnmatch(glob, kscen_str(r->jobs[i].id), 0))
				continue;
			job_row(&t, &h, k, &r->jobs[i]);
			if (m && m->nr_samples < lo)
				lo = m->nr_samples;
			if (m && m->nr_samples > hi)
				hi = m->nr_samples;
		}
	}
	if (t.rows > 1) {
		kscen_report_n_note(lo, hi, note, sizeof(note));
		printf("# medians with the CI of each (%s)\n", note);
		kscen_table_print(stdout, &t, NULL, "");
	}
	shown = t.rows > 1;
	kscen_table_free(&t);
	kscen_history_free(&h);
	if (!shown) {
		char *where = kscen_xasprintf("the runs in %s", dir);

		cmd_no_match("history", "--job", glob, where);
		free(where);
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_history(int argc, char **argv)
{
	const char *glob = NULL, *results = "results";
	char *dir, **paths;
	unsigned nr;
	int ret = 0;
	const struct kscen_option opts[] = {
		OPT_STRING(0, "job", &glob, "GLOB",
			   "one job (glob on job ids) over time, '<-' where\n"
			   "its change against the run before is a verdict"),
		OPT__RESULTS(&results, "where runs are stored (default: results/)"),
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
		ret = job_over_time(dir, glob);
	else
		list_runs(paths, nr);
	for (unsigned i = 0; i < nr; i++)
		free(paths[i]);
	free(paths);
	free(dir);
	return ret;
}
