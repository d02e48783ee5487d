// SPDX-License-Identifier: GPL-2.0
/*
 * plot_compare.c - `kscen plot OLD NEW`: each job's median relative to the
 * old run's, both with their CIs; and `kscen plot --history`: one job's
 * median and CI over the stored runs, its change points marked. Drawn
 * through plot.c's plumbing (plot_int.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "lib/diag.h"
#include "lib/util.h"
#include "plot.h"
#include "plot_int.h"
#include "report.h"
#include "stats/stats.h"

/*
 * The short name of job @i on an axis: its entry's name and the parameters
 * in which it differs from the entry's first job.
 */
static void short_name(const struct kscen_run *run, unsigned i, char *buf, size_t len)
{
	const struct kscen_job_result *j = &run->jobs[i], *f = j;
	size_t o;

	while (f > run->jobs && !strcmp(kscen_str(f[-1].name), kscen_str(j->name)))
		f--;
	o = snprintf(buf, len, "%s", kscen_str(j->name));
	for (unsigned k = 0; k < j->nr_kv && o < len; k++)
		if (k >= f->nr_kv || strcmp(kscen_str(j->values[k]), kscen_str(f->values[k])))
			o += snprintf(buf + o, len - o, " %s=%s", kscen_str(j->keys[k]),
				      kscen_str(j->values[k]));
}

int kscen_plot_compare(const struct kscen_run *old, const struct kscen_run *new_,
		       const char *out)
{
	struct plot p = { 0 };
	char po[160], pn[160], label[256], cap[160];
	double ylo = INFINITY, yhi = -INFINITY;
	unsigned x = 0, lo = ~0u, hi = 0;
	FILE *fo, *fn;
	int ret;

	ret = kscen_plot_open(&p, out, 1, ROW_HEIGHT * 3 / 2);
	if (ret)
		return ret;
	fo = kscen_plot_data(&p, po, sizeof(po));
	fn = kscen_plot_data(&p, pn, sizeof(pn));
	if (!fo || !fn) {
		ret = -errno;
		goto out;
	}
	for (unsigned pass = 0; pass < 2; pass++) {
		/* the tics, then (the caption known) the panel and its data */
		if (pass) {
			kscen_plot_bars_caption(cap, sizeof(cap), "each median relative "
						"to the old run's median", lo, hi);
			kscen_plot_panel(&p, "median relative to the old run's", cap, 12);
			fputs("set ylabel 'new / old'\nset xtics rotate by -35 left (", p.gp);
		}
		x = 0;
		for (unsigned i = 0; i < new_->nr_jobs; i++) {
			const struct kscen_job_result *jn = &new_->jobs[i];
			const struct kscen_job_result *jo = kscen_run_find(old, jn->id);
			const struct kscen_metric *mn = kscen_primary(jn);
			const struct kscen_metric *mo = jo ? kscen_find_metric(jo, kscen_str(mn ?
							     mn->name : "")) : NULL;
			double b, v[6];

			if (!mn || !mo || !mn->nr_samples || !mo->nr_samples ||
			    !(mo->sum.median != 0))
				continue;
			if (!pass) {
				kscen_plot_count_n(mn, &lo, &hi);
				kscen_plot_count_n(mo, &lo, &hi);
				x++;
				continue;
			}
			b = mo->sum.median;
			short_name(new_, i, label, sizeof(label));
			fprintf(p.gp, "%s", x ? ", " : "");
			kscen_gp_label(p.gp, label);
			fprintf(p.gp, " %u", x);
			v[0] = 1;
			v[1] = (isfinite(mo->sum.ci_lo) ? mo->sum.ci_lo : b) / b;
			v[2] = (isfinite(mo->sum.ci_hi) ? mo->sum.ci_hi : b) / b;
			v[3] = mn->sum.median / b;
			v[4] = (isfinite(mn->sum.ci_lo) ? mn->sum.ci_lo : mn->sum.median) / b;
			v[5] = (isfinite(mn->sum.ci_hi) ? mn->sum.ci_hi : mn->sum.median) / b;
			for (unsigned k = 0; k < 6; k++) {
				ylo = fmin(ylo, v[k]);
				yhi = fmax(yhi, v[k]);
			}
			fprintf(fo, "%g %.17g %.17g %.17g\n", x - 0.12, v[0], v[1], v[2]);
			fprintf(fn, "%g %.17g %.17g %.17g\n", x + 0.12, v[3], v[4], v[5]);
			x++;
		}
		if (!x)
			break;
	}
	fclose(fo);
	fclose(fn);
	fo = fn = NULL;
	if (!x) {
		kscen_error("plot", "no job of %s is in %s with samples",
			    kscen_str(new_->path), kscen_str(old->path));
		ret = -EINVAL;
		goto out;
	}
	fprintf(p.gp, ")\nset xrange [-0.5:%u.5]\n", x - 1);
	kscen_plot_yrange(&p, ylo, yhi);
	fprintf(p.gp, "plot '%s' using 1:2:3:4 with yerrorbars pt 7 title ", po);
	report_short_time(old->started, label, sizeof(label));
	kscen_gp_quote(p.gp, old->label ? old->label : label);
	fprintf(p.gp, ", '%s' using 1:2:3:4 with yerrorbars pt 5 title ", pn);
	report_short_time(new_->started, label, sizeof(label));
	kscen_gp_quote(p.gp, new_->label ? new_->label : label);
	fputs(", 1 with lines lc rgb 'gray' notitle\n", p.gp);
	ret = kscen_plot_run(&p, false);
out:
	if (p.gp)
		fclose(p.gp);
	kscen_plot_cleanup(&p);
	return ret;
}

/* The ids of the jobs matching @glob in @runs, each once, in order met. */
static unsigned matching(struct kscen_run *const *runs, unsigned nr, const char *glob,
			 const char ***out)
{
	const char **ids = NULL;
	unsigned n = 0;

	for (unsigned r = 0; r < nr; r++)
		for (unsigned i = 0; i < runs[r]->nr_jobs; i++) {
			const char *id = kscen_str(runs[r]->jobs[i].id);
			unsigned k;

			if (fnmatch(glob, id, 0))
				continue;
			for (k = 0; k < n && strcmp(ids[k], id); k++)
				;
			if (k < n)
				continue;
			ids = kscen_xrealloc(ids, (n + 1) * sizeof(*ids));
			ids[n++] = id;
		}
	*out = ids;
	return n;
}

/*
 * The change points of @x points' log medians @l (stats/changepoint.c): a
 * dashed line before the first run at each new level, labelled with the
 * change and its p-value.
 */
static void mark_changes(struct plot *p, const double *l, unsigned x)
{
	struct kscen_cpoint cp[16];
	unsigned nc = kscen_changepoints(l, x, cp, ARRAY_SIZE(cp));

	for (unsigned c = 0; c < nc; c++) {
		unsigned a = c ? cp[c - 1].at : 0, b = c + 1 < nc ? cp[c + 1].at : x;
		double before = 0, after = 0;

		for (unsigned i = a; i < cp[c].at; i++)
			before += l[i] / (cp[c].at - a);
		for (unsigned i = cp[c].at; i < b; i++)
			after += l[i] / (b - cp[c].at);
		fprintf(p->gp, "set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 "
			"lw 1.5 lc rgb 'red'\nset label '%+.1f%% p=%.3f' at %g, graph "
			"0.95 left offset 0.5,0 tc rgb 'red'\n", cp[c].at - 0.5,
			cp[c].at - 0.5, 100 * expm1(after - before), cp[c].p, cp[c].at - 0.5);
	}
}

/* Job @id over @runs: a panel of its median and CI, in the report's unit. */
static int history_panel(struct plot *p, struct kscen_run *const *runs, unsigned nr,
			 const char *id)
{
	const struct kscen_job_result *jm = NULL;
	struct kscen_num st = { .unit = "", .scale = 1 };
	double ylo = INFINITY, yhi = -INFINITY;
	char path[160], when[64], lbl[192], cap[128];
	unsigned x = 0, lo = ~0u, hi = 0;
	FILE *f = kscen_plot_data(p, path, sizeof(path));
	double *l;
	bool logs = true;

	if (!f)
		return -errno;
	l = kscen_xcalloc(nr + 1, sizeof(*l));
	for (unsigned r = 0; r < nr; r++) {
		const struct kscen_job_result *j = kscen_run_find(runs[r], id);

		if (j && kscen_primary(j) && kscen_primary(j)->nr_samples) {
			jm = jm ? jm : j;
			kscen_plot_count_n(kscen_primary(j), &lo, &hi);
		}
	}
	if (jm)
		kscen_num_style_in(kscen_primary(jm), kscen_job_time_style(jm), &st);
	kscen_plot_bars_caption(cap, sizeof(cap), "each median", lo, hi);
	kscen_plot_panel(p, id, cap, 8);
	fputs("set ylabel ", p->gp);
	if (jm)
		kscen_metric_label(kscen_primary(jm), &st, lbl, sizeof(lbl));
	kscen_gp_quote(p->gp, jm ? lbl : "");
	fputs("\nset xtics rotate by -35 left (", p->gp);
	for (unsigned r = 0; r < nr; r++) {
		const struct kscen_job_result *j = kscen_run_find(runs[r], id);
		const struct kscen_metric *m = j ? kscen_primary(j) : NULL;
		/* another metric than the first run's: not on one axis */
		const struct kscen_metric *m0 = jm ? kscen_primary(jm) : NULL;
		double v[3];

		if (!m || !m->nr_samples || strcmp(kscen_str(m->unit), kscen_str(m0->unit)))
			continue;
		report_short_time(runs[r]->started, when, sizeof(when));
		fprintf(p->gp, "%s", x ? ", " : "");
		kscen_gp_label(p->gp, runs[r]->label ? runs[r]->label : when);
		fprintf(p->gp, " %u", x);
		v[0] = m->sum.median * st.scale;
		v[1] = (isfinite(m->sum.ci_lo) ? m->sum.ci_lo : m->sum.median) * st.scale;
		v[2] = (isfinite(m->sum.ci_hi) ? m->sum.ci_hi : m->sum.median) * st.scale;
		logs &= m->sum.median > 0;
		l[x] = m->sum.median > 0 ? log(m->sum.median) : 0;
		ylo = fmin(ylo, fmin(v[0], v[1]));
		yhi = fmax(yhi, fmax(v[0], v[2]));
		fprintf(f, "%u %.17g %.17g %.17g\n", x++, v[0], v[1], v[2]);
	}
	fclose(f);
	fprintf(p->gp, ")\nset xrange [-0.5:%u.5]\n", x ? x - 1 : 0);
	if (x)
		kscen_plot_yrange(p, ylo, yhi);
	if (logs)
		mark_changes(p, l, x);
	free(l);
	fprintf(p->gp, "plot '%s' using 1:2:3:4 with yerrorlines pt 7 lw 1.5 "
		"title 'median'\nunset arrow\nunset label\n", path);
	return 0;
}

int kscen_plot_history(struct kscen_run *const *runs, unsigned nr, const char *glob,
		       bool all, const char *out)
{
	struct plot p = { 0 };
	const char **ids;
	unsigned n = matching(runs, nr, glob, &ids);
	int ret = 0;

	if (!n) {
		kscen_error("plot", "no stored run has a job matching '%s'", glob);
		free(ids);
		return -EINVAL;
	}
	if (n > 1 && !all) {
		kscen_error("plot", "--history '%s' matches %u jobs; name one, "
			    "or --all draws each:", glob, n);
		for (unsigned i = 0; i < n; i++)
			kscen_diag_info("  %s\n", ids[i]);
		free(ids);
		return -EINVAL;
	}
	ret = kscen_plot_open(&p, out, n, ROW_HEIGHT * n);
	for (unsigned i = 0; !ret && i < n; i++)
		ret = history_panel(&p, runs, nr, ids[i]);
	if (!ret)
		ret = kscen_plot_run(&p, n > 1);
	if (p.gp)
		fclose(p.gp);
	kscen_plot_cleanup(&p);
	free(ids);
	return ret;
}
