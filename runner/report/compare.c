// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - two stored runs side by side ("kscen compare OLD NEW") and the
 * regression gate (--gate PCT on run and compare).
 *
 * The table is benchstat's: per job group (the scenario's job name), old
 * and new median with their 95% CI, the change with its CI, and "~" when
 * it is not significant; a geometric-mean row; jobs on one side only are
 * listed as such. The environment difference comes first, because a changed
 * kernel command line or governor explains more regressions than patches.
 * Runs are different rounds, so nothing is paired here, and every change
 * allows for the jobs' run-to-run drift where the history has it
 * (history.c). The changes are those of NEW's report model (report/model.c):
 * each job against its reference run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envdiff.h"
#include "store/history.h"
#include "lib/util.h"
#include "report.h"
#include "model.h"
#include "profile_report.h"

static const char *str(const char *s)
{
	return s ? s : "";
}

/* "0.0123 ±2.1%" (@j's primary metric @m and its CI), or why no median. */
static void cell(const struct kscen_job_result *j, const struct kscen_metric *m,
		 const char *ci, char *buf, size_t len)
{
	if (!m) {
		snprintf(buf, len, "%s", j->status == KSCEN_OK ? "-" :
			 kscen_status_names[j->status <= KSCEN_FAILED ?
					    j->status : KSCEN_FAILED]);
		return;
	}
	snprintf(buf, len, "%.6g %s", m->sum.median, ci);
}

/* The old and the new cell of job @i: its reference's, and the model's. */
static void cells(const struct kscen_report_model *rm, unsigned i, char *oc,
		  char *nc, size_t len)
{
	const struct kscen_report_job *rj = &rm->job[i];
	const struct kscen_metric *om = kscen_primary(rj->ref_job);
	char oci[32] = "";

	if (om)
		kscen_format_ci(om, oci, sizeof(oci));
	cell(rj->ref_job, om, oci, oc, len);
	cell(rj->job, rj->primary, rj->ci, nc, len);
}

/* Columns on a terminal: UTF-8 continuation bytes ("±") take none. */
static int cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* One row: name, old, new padded to their columns, then the change. */
static void row(FILE *out, int w, int wc, const char *name, const char *oc,
		const char *nc, const char *chg)
{
	fprintf(out, "%s%*s %s%*s %s%*s %s\n", name, w - cols(name), "",
		oc, wc - cols(oc), "", nc, wc - cols(nc), "", chg);
}

/* Rows carry whole ids: they are what a reader greps for. */
static const char *row_name(const struct kscen_job_result *j)
{
	return str(j->id);
}

static bool same_group(const struct kscen_job_result *a,
		       const struct kscen_job_result *b)
{
	return !strcmp(str(a->name), str(b->name));
}

/* One job group's table; marks its jobs in @done. */
static void group(FILE *out, const struct kscen_report_model *rm,
		  unsigned first, bool *done, int w, int wc)
{
	const struct kscen_run *new_ = rm->run;
	const struct kscen_job_result *g = &new_->jobs[first], *n;
	double lo = 0, ln = 0;
	char oc[64], nc[64], chg[192], lbl[128] = "";
	unsigned i, geo = 0;

	for (i = first; i < new_->nr_jobs; i++)
		if (same_group(g, &new_->jobs[i]) && rm->job[i].primary) {
			kscen_metric_label(rm->job[i].primary, lbl, sizeof(lbl));
			break;
		}
	fprintf(out, "\n## %s%s%s\n", str(g->name), *lbl ? ": " : "", lbl);
	row(out, w, wc, "job", "old", "new", "change");
	for (i = first; i < new_->nr_jobs; i++) {
		const struct kscen_report_delta *d = &rm->job[i].delta[KSCEN_DELTA_REF];

		n = &new_->jobs[i];
		if (done[i] || !same_group(g, n) || !rm->job[i].ref)
			continue;
		done[i] = true;
		cells(rm, i, oc, nc, sizeof(oc));
		chg[0] = '\0';
		if (d->present) {
			kscen_format_change(&d->c, chg, sizeof(chg));
			if (d->c.old > 0 && d->c.new_ > 0) {
				lo += log(d->c.old);
				ln += log(d->c.new_);
				geo++;
			}
		}
		row(out, w, wc, row_name(n), oc, nc, chg);
	}
	/* benchstat's summary row: the ratio of geometric means, no CI. */
	if (geo >= 2) {
		snprintf(oc, sizeof(oc), "%.6g", exp(lo / geo));
		snprintf(nc, sizeof(nc), "%.6g", exp(ln / geo));
		snprintf(chg, sizeof(chg), "%+.1f%%", 100 * expm1((ln - lo) / geo));
		row(out, w, wc, "geomean", oc, nc, chg);
	}
}

void kscen_compare_print(FILE *out, const struct kscen_run *new_,
			 const struct kscen_refs *refs)
{
	const struct kscen_run *old = refs->own ? refs->own : refs->main;
	bool *done = kscen_xcalloc(new_->nr_jobs + 1, sizeof(bool));
	unsigned i, only_old = 0, other = 0;
	struct kscen_report_model rm;
	int w = 8, wc = 12;
	char oc[64], nc[64];

	kscen_report_model_build(new_, refs, &rm);
	/* Column widths from every row, so long cells keep the table. */
	for (i = 0; i < new_->nr_jobs; i++) {
		if (!rm.job[i].ref)
			continue;
		if (cols(row_name(&new_->jobs[i])) > w)
			w = cols(row_name(&new_->jobs[i]));
		cells(&rm, i, oc, nc, sizeof(oc));
		if (cols(oc) > wc)
			wc = cols(oc);
		if (cols(nc) > wc)
			wc = cols(nc);
	}
	if (old)
		fprintf(out, "# old: %s (%s%s%s, load %s)\n", str(old->path),
			str(old->started), old->label ? ", label " : "",
			str(old->label), old->system.loadavg ? old->system.loadavg : "?");
	fprintf(out, "# new: %s (%s%s%s, load %s)\n", str(new_->path),
		str(new_->started), new_->label ? ", label " : "",
		str(new_->label), new_->system.loadavg ? new_->system.loadavg : "?");
	if (old && strcmp(str(old->scenario), str(new_->scenario)))
		fprintf(out, "# different scenarios: %s and %s: no job compared\n",
			str(old->scenario), str(new_->scenario));
	if (old)
		kscen_env_diff_print(out, old, new_, "# ");
	fprintf(out, "# change: ratio of medians [95%% CI], ~ when not "
		"significant; with 3 or more earlier runs\n# the interval "
		"includes the run-to-run drift (history in the old run's "
		"directory)\n");
	for (i = 0; i < new_->nr_jobs; i++)
		if (!done[i] && rm.job[i].ref)
			group(out, &rm, i, done, w, wc);

	fputc('\n', out);
	for (i = 0; old && i < old->nr_jobs; i++)
		if (!kscen_run_find(new_, old->jobs[i].id)) {
			fprintf(out, "only in old: %s\n", str(old->jobs[i].id));
			only_old++;
		}
	for (i = 0; i < new_->nr_jobs; i++) {
		if (rm.job[i].ref)
			continue;
		fprintf(out, "not compared: %s: %s\n", str(new_->jobs[i].id),
			refs->ref[i].why ? refs->ref[i].why : "no reference");
		other++;
	}
	fprintf(out, "# %u job%s compared, %u only in old, %u not compared\n",
		refs->compared, refs->compared == 1 ? "" : "s", only_old, other);
	if (old)
		kscen_profile_compare(out, old, new_);	/* profile_report.h */
	kscen_report_model_free(&rm);
	free(done);
}

int kscen_gate(FILE *out, const struct kscen_run *new_,
	       const struct kscen_refs *refs, double pct)
{
	struct kscen_report_model rm;
	unsigned i, bad = 0, checked = 0;
	char chg[192];

	kscen_report_model_build(new_, refs, &rm);
	for (i = 0; refs && i < new_->nr_jobs; i++) {
		const struct kscen_report_delta *d = &rm.job[i].delta[KSCEN_DELTA_REF];

		if (!d->present)
			continue;
		checked++;
		if (!kscen_change_beyond(&d->c, rm.job[i].primary->better, pct))
			continue;
		if (!bad++)
			fprintf(out, "# gate %g%%: FAILED: worse by more than %g%% "
				"with the 95%% CI beyond it:\n", pct, pct);
		kscen_format_change(&d->c, chg, sizeof(chg));
		fprintf(out, "#   %s: %s\n", str(new_->jobs[i].id), chg);
	}
	kscen_report_model_free(&rm);
	if (!checked) {
		fprintf(out, "gate: nothing compared: %s\n",
			!refs || !refs->asked ? "no reference run (--compare none)" :
			!refs->main && !refs->own ? "no earlier run holds these jobs" :
			"no job of this run matches one of the reference");
		return -1;
	}
	if (!bad)
		fprintf(out, "# gate %g%%: passed (%u job%s checked against %s)\n",
			pct, checked, checked == 1 ? "" : "s", refs->main ? str(refs->main->path) :
			refs->own ? str(refs->own->path) : "?");
	return bad;
}
