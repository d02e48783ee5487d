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
 * Runs are different rounds, so nothing is paired here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kscen.h"
#include "report.h"
#include "profile_report.h"

static const char *str(const char *s)
{
	return s ? s : "";
}

static void env_diff(FILE *out, const struct kscen_run *old,
		     const struct kscen_run *new_)
{
	const struct kscen_system *o = &old->system, *n = &new_->system;
	char oc[24], nc[24], op[24], np[24];
	struct {
		const char *name, *o, *n;
	} f[] = {
		{ "kscen", old->version, new_->version },
		{ "scenario", old->scenario, new_->scenario },
		{ "scenario_sha256", old->scenario_sha256,
		  new_->scenario_sha256 },
		{ "hostname", o->hostname, n->hostname },
		{ "kernel", o->kernel, n->kernel },
		{ "kernel_build", o->kernel_build, n->kernel_build },
		{ "config_sha256", o->config_sha256, n->config_sha256 },
		{ "cmdline", o->cmdline, n->cmdline },
		{ "arch", o->arch, n->arch },
		{ "cpu_model", o->cpu_model, n->cpu_model },
		{ "nr_cpus", oc, nc },
		{ "governor", o->governor, n->governor },
		{ "smt", o->smt, n->smt },
		{ "mitigations", o->mitigations, n->mitigations },
		{ "thp", o->thp, n->thp },
		{ "isolcpus", o->isolcpus, n->isolcpus },
		{ "nohz_full", o->nohz_full, n->nohz_full },
		{ "perf_event_paranoid", op, np },
	};
	unsigned i, nr = sizeof(f) / sizeof(f[0]), diffs = 0;

	snprintf(oc, sizeof(oc), "%ld", o->nr_cpus);
	snprintf(nc, sizeof(nc), "%ld", n->nr_cpus);
	snprintf(op, sizeof(op), "%d", o->perf_event_paranoid);
	snprintf(np, sizeof(np), "%d", n->perf_event_paranoid);
	if (o->perf_event_paranoid == KSCEN_PARANOID_UNKNOWN)
		snprintf(op, sizeof(op), "unknown");
	if (n->perf_event_paranoid == KSCEN_PARANOID_UNKNOWN)
		snprintf(np, sizeof(np), "unknown");

	for (i = 0; i < nr; i++) {
		if (!strcmp(str(f[i].o), str(f[i].n)))
			continue;
		fprintf(out, "%s%s", diffs++ ? ", " : "# environment differs: ",
			f[i].name);
	}
	if (!diffs)
		return;
	fputc('\n', out);
	for (i = 0; i < nr; i++)
		if (strcmp(str(f[i].o), str(f[i].n)))
			fprintf(out, "#   %s: %s -> %s\n", f[i].name,
				f[i].o ? f[i].o : "(unknown)",
				f[i].n ? f[i].n : "(unknown)");
}

/* "0.0123 ±2.1%", or why there is no median. */
static void cell(const struct kscen_job_result *j, char *buf, size_t len)
{
	const struct kscen_metric *m = kscen_primary(j);
	char ci[32];

	if (!m) {
		snprintf(buf, len, "%s", j->status == KSCEN_OK ? "-" :
			 kscen_status_names[j->status <= KSCEN_FAILED ?
					    j->status : KSCEN_FAILED]);
		return;
	}
	kscen_format_ci(m, ci, sizeof(ci));
	snprintf(buf, len, "%.6g %s", m->sum.median, ci);
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
static void group(FILE *out, const struct kscen_run *old,
		  const struct kscen_run *new_, unsigned first, bool *done,
		  int w, int wc)
{
	const struct kscen_job_result *g = &new_->jobs[first], *n, *o;
	double lo = 0, ln = 0;
	char oc[64], nc[64], chg[192], lbl[128] = "";
	unsigned i, geo = 0;
	struct kscen_change c;

	for (i = first; i < new_->nr_jobs; i++)
		if (same_group(g, &new_->jobs[i]) && kscen_primary(&new_->jobs[i])) {
			kscen_metric_label(kscen_primary(&new_->jobs[i]), lbl,
					   sizeof(lbl));
			break;
		}
	fprintf(out, "\n## %s%s%s\n", str(g->name), *lbl ? ": " : "", lbl);
	row(out, w, wc, "job", "old", "new", "change");
	for (i = first; i < new_->nr_jobs; i++) {
		n = &new_->jobs[i];
		if (done[i] || !same_group(g, n))
			continue;
		done[i] = true;
		o = kscen_run_find(old, n->id);
		if (!o)
			continue;
		cell(o, oc, sizeof(oc));
		cell(n, nc, sizeof(nc));
		chg[0] = '\0';
		if (kscen_primary(n) &&
		    kscen_change_compute(kscen_find_metric(o, kscen_primary(n)->name),
					 kscen_primary(n), false, &c)) {
			kscen_format_change(&c, chg, sizeof(chg));
			if (c.old > 0 && c.new_ > 0) {
				lo += log(c.old);
				ln += log(c.new_);
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

void kscen_compare_print(FILE *out, const struct kscen_run *old,
			 const struct kscen_run *new_)
{
	unsigned i, both = 0, only_old = 0, only_new = 0;
	bool *done = kscen_xcalloc(new_->nr_jobs + 1, sizeof(bool));
	const struct kscen_job_result *o;
	int w = 8, wc = 12;
	char buf[64];

	/* Column widths from every row, so long cells keep the table. */
	for (i = 0; i < new_->nr_jobs; i++) {
		if (cols(row_name(&new_->jobs[i])) > w)
			w = cols(row_name(&new_->jobs[i]));
		o = kscen_run_find(old, new_->jobs[i].id);
		if (!o)
			continue;
		cell(o, buf, sizeof(buf));
		if (cols(buf) > wc)
			wc = cols(buf);
		cell(&new_->jobs[i], buf, sizeof(buf));
		if (cols(buf) > wc)
			wc = cols(buf);
	}
	fprintf(out, "# old: %s (%s, load %s)\n", str(old->path),
		str(old->started), old->system.loadavg ? old->system.loadavg : "?");
	fprintf(out, "# new: %s (%s, load %s)\n", str(new_->path),
		str(new_->started), new_->system.loadavg ? new_->system.loadavg : "?");
	env_diff(out, old, new_);
	fprintf(out, "# change: ratio of medians [95%% CI], ~ when not "
		"significant (Mann-Whitney U, p < 0.05)\n");
	for (i = 0; i < new_->nr_jobs; i++)
		if (!done[i] && kscen_run_find(old, new_->jobs[i].id))
			group(out, old, new_, i, done, w, wc);

	fputc('\n', out);
	for (i = 0; i < new_->nr_jobs; i++)
		both += !!kscen_run_find(old, new_->jobs[i].id);
	for (i = 0; i < old->nr_jobs; i++)
		if (!kscen_run_find(new_, old->jobs[i].id)) {
			fprintf(out, "only in old: %s\n", str(old->jobs[i].id));
			only_old++;
		}
	for (i = 0; i < new_->nr_jobs; i++)
		if (!kscen_run_find(old, new_->jobs[i].id)) {
			fprintf(out, "only in new: %s\n", str(new_->jobs[i].id));
			only_new++;
		}
	fprintf(out, "# %u jobs in both, %u only in old, %u only in new\n",
		both, only_old, only_new);
	kscen_profile_compare(out, old, new_);	/* profile_report.h */
	free(done);
}

unsigned kscen_gate(FILE *out, const struct kscen_run *old,
		    const struct kscen_run *new_, double pct)
{
	const struct kscen_job_result *n;
	const struct kscen_metric *m;
	unsigned i, bad = 0, checked = 0;
	struct kscen_change c;
	char chg[192];

	if (!old) {
		fprintf(out, "# gate %g%%: no earlier run to compare against, "
			"nothing checked\n", pct);
		return 0;
	}
	for (i = 0; i < new_->nr_jobs; i++) {
		n = &new_->jobs[i];
		m = kscen_primary(n);
		if (!m || !kscen_change_compute(kscen_find_metric(
				kscen_run_find(old, n->id), m->name), m, false, &c))
			continue;
		checked++;
		if (!kscen_change_beyond(&c, m->better, pct))
			continue;
		if (!bad++)
			fprintf(out, "# gate %g%%: FAILED: worse by more than %g%% "
				"with the 95%% CI beyond it:\n", pct, pct);
		kscen_format_change(&c, chg, sizeof(chg));
		fprintf(out, "#   %s: %s\n", str(n->id), chg);
	}
	if (!bad)
		fprintf(out, "# gate %g%%: passed (%u jobs checked against %s)\n",
			pct, checked, str(old->path));
	return bad;
}
