// SPDX-License-Identifier: GPL-2.0
/*
 * plot_sweep.c - `kscen plot RESULT`: each job entry's primary metric
 * against the axis that varies last, a line per combination of the other
 * varying parameters, CI error bars, the baseline marked; one panel an
 * entry. Drawn through plot.c's plumbing (plot_int.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "lib/util.h"
#include "plot.h"
#include "plot_int.h"
#include "report.h"
#include "stats/stats.h"

/* Which of the parameters of jobs @first..@last take more than one value. */
static unsigned varying(const struct kscen_run *run, unsigned first, unsigned last,
			unsigned *keys, unsigned max)
{
	unsigned n = 0;

	for (unsigned k = 0; k < run->jobs[first].nr_kv && n < max; k++)
		if (!kscen_entry_param_fixed(run, first, last, k))
			keys[n++] = k;
	return n;
}

/* The values of the parameters @keys but @skip of job @j: "p=1 q=a". */
static void line_name(const struct kscen_job_result *j, const unsigned *keys,
		      unsigned nk, unsigned skip, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < nk; i++)
		if (i != skip && keys[i] < j->nr_kv)
			o += snprintf(buf + o, o < len ? len - o : 0, "%s%s=%s", o ? " " : "",
				      kscen_str(j->keys[keys[i]]), kscen_str(j->values[keys[i]]));
	if (!buf[0])
		snprintf(buf, len, "median");
}

static bool is_baseline(const struct kscen_run *run, const char *id)
{
	for (unsigned i = 0; i < run->nr_jobs; i++)
		if (run->jobs[i].baseline && !strcmp(run->jobs[i].baseline, id) &&
		    strcmp(run->jobs[i].id, id))
			return true;
	return false;
}

#define MAX_X 64

/*
 * The x axis of a sweep: the distinct values of the parameter, in the
 * order they first appear. A text axis is categories, one tic each at
 * 0, 1, ...; a numeric one has its tics at the values themselves (so an
 * integer axis never gets 0.5), or, with many values, integer steps.
 */
struct xaxis {
	const char *val[MAX_X];
	double at[MAX_X];
	unsigned n;
	bool numeric, integer;
};

static double x_of(const struct xaxis *ax, const char *v)
{
	for (unsigned i = 0; i < ax->n; i++)
		if (!strcmp(ax->val[i], v))
			return ax->at[i];
	return NAN;
}

static void x_axis(struct plot *p, struct xaxis *ax)
{
	double lo = INFINITY, hi = -INFINITY, span;

	if (!ax->numeric) {
		fputs("set xtics (", p->gp);
		for (unsigned i = 0; i < ax->n; i++) {
			fputs(i ? ", " : "", p->gp);
			kscen_gp_label(p->gp, ax->val[i]);
			fprintf(p->gp, " %u", i);
		}
		fprintf(p->gp, ")\nset xrange [-0.5:%u.5]\n", ax->n ? ax->n - 1 : 0);
		return;
	}
	for (unsigned i = 0; i < ax->n; i++) {
		lo = fmin(lo, ax->at[i]);
		hi = fmax(hi, ax->at[i]);
	}
	span = hi > lo ? hi - lo : 1;
	fprintf(p->gp, "set xrange [%.17g:%.17g]\n", lo - span * 0.05, hi + span * 0.05);
	if (ax->n <= 12) {
		fputs("set xtics (", p->gp);
		for (unsigned i = 0; i < ax->n; i++) {
			fputs(i ? ", " : "", p->gp);
			kscen_gp_label(p->gp, ax->val[i]);
			fprintf(p->gp, " %.17g", ax->at[i]);
		}
		fputs(")\n", p->gp);
	} else if (ax->integer) {
		fprintf(p->gp, "set xtics %.0f\n", fmax(1, ceil(span / 10)));
	} else {
		fputs("set xtics autofreq\n", p->gp);
	}
}

static void sweep_entry(struct plot *p, const struct kscen_run *run,
			unsigned first, unsigned last)
{
	const struct kscen_job_result *j0 = &run->jobs[first], *jm = NULL;
	unsigned keys[16], nk = varying(run, first, last, keys, 16), xk, lo = ~0u, hi = 0;
	bool any_base = false;
	char names[64][160], path[160], base[160], lbl[192], cap[128];
	double ylo = INFINITY, yhi = -INFINITY;
	struct xaxis ax = { .numeric = nk > 0, .integer = true };
	struct kscen_num st = { .unit = "", .scale = 1 };
	unsigned nl = 0;
	FILE *f[64], *bf;

	xk = nk ? nk - 1 : 0;	/* the axis that varies last: the innermost */
	for (unsigned i = first; i <= last; i++) {
		const struct kscen_job_result *j = &run->jobs[i];
		const char *v = nk && keys[xk] < j->nr_kv ? kscen_str(j->values[keys[xk]]) :
				kscen_str(j->name);
		char *end;
		double d = strtod(v, &end);

		if (!jm && kscen_primary(j))
			jm = j;
		if (!isnan(x_of(&ax, v)) || ax.n == MAX_X)
			continue;
		ax.val[ax.n] = v;
		ax.at[ax.n++] = d;
		ax.numeric &= *v && !*end && isfinite(d);
		ax.integer &= d == floor(d);
	}
	for (unsigned i = 0; !ax.numeric && i < ax.n; i++)
		ax.at[i] = i;	/* categories */
	/* the report's unit: its first measured job's, every time alike */
	if (jm)
		kscen_num_style_in(kscen_primary(jm), kscen_job_time_style(jm), &st);
	for (unsigned i = first; i <= last; i++) {
		const struct kscen_metric *m = kscen_primary(&run->jobs[i]);

		if (m && m->nr_samples)
			kscen_plot_count_n(m, &lo, &hi);
	}
	kscen_plot_bars_caption(cap, sizeof(cap), "each median", lo, hi);
	kscen_plot_panel(p, kscen_str(j0->name), cap, 5);
	fprintf(p->gp, "set xlabel ");
	kscen_gp_quote(p->gp, nk ? kscen_str(j0->keys[keys[xk]]) : "");
	fprintf(p->gp, "\nset ylabel ");
	if (jm)
		kscen_metric_label(kscen_primary(jm), &st, lbl, sizeof(lbl));
	kscen_gp_quote(p->gp, jm ? lbl : "");
	fputc('\n', p->gp);
	x_axis(p, &ax);
	bf = kscen_plot_data(p, base, sizeof(base));
	for (unsigned i = first; i <= last; i++) {
		const struct kscen_job_result *j = &run->jobs[i];
		const struct kscen_metric *m = kscen_primary(j);
		double x = x_of(&ax, nk && keys[xk] < j->nr_kv ? kscen_str(j->values[keys[xk]]) :
				kscen_str(j->name));
		double v[3];
		char name[160];
		unsigned l;

		if (j->status != KSCEN_OK || !m || !m->nr_samples || isnan(x))
			continue;
		line_name(j, keys, nk, xk, name, sizeof(name));
		for (l = 0; l < nl && strcmp(names[l], name); l++)
			;
		if (l == nl) {
			if (nl == 64)
				continue;
			snprintf(names[nl], sizeof(names[nl]), "%s", name);
			f[nl++] = kscen_plot_data(p, path, sizeof(path));
		}
		if (!f[l])
			continue;
		/* in the unit the report prints; the CI [min, max] below 6 */
		v[0] = m->sum.median * st.scale;
		v[1] = (isfinite(m->sum.ci_lo) ? m->sum.ci_lo : m->sum.median) * st.scale;
		v[2] = (isfinite(m->sum.ci_hi) ? m->sum.ci_hi : m->sum.median) * st.scale;
		ylo = fmin(ylo, fmin(v[0], v[1]));
		yhi = fmax(yhi, fmax(v[0], v[2]));
		fprintf(f[l], "%.17g %.17g %.17g %.17g\n", x, v[0], v[1], v[2]);
		if (bf && is_baseline(run, j->id)) {
			fprintf(bf, "%.17g %.17g\n", x, v[0]);
			any_base = true;
		}
	}
	if (bf)
		fclose(bf);
	if (isfinite(ylo))
		kscen_plot_yrange(p, ylo, yhi);
	fputs("plot ", p->gp);
	for (unsigned l = 0; l < nl; l++) {
		if (f[l])
			fclose(f[l]);
		fprintf(p->gp, "%s'%s/d%u.dat' using 1:2:3:4 with yerrorlines lw 1.5 title ",
			l ? ", " : "", p->dir, p->files - nl + l);
		kscen_gp_quote(p->gp, names[l]);
	}
	if (any_base)
		fprintf(p->gp, "%s'%s' using 1:2 with points pt 6 ps 2.5 lc rgb 'black' "
			"title 'baseline'", nl ? ", " : "", base);
	if (!nl && !any_base)	/* nothing measured: an empty frame */
		fputs("NaN notitle", p->gp);
	fputc('\n', p->gp);
}

int kscen_plot_sweep(const struct kscen_run *run, const char *out)
{
	struct plot p = { 0 };
	unsigned entries = 0, last;
	int ret;

	for (unsigned first = 0; first < run->nr_jobs; first = last + 1, entries++)
		last = kscen_entry_last(run, first);
	if (!entries) {
		kscen_error("plot", "%s has no jobs", kscen_str(run->path));
		return -EINVAL;
	}
	ret = kscen_plot_open(&p, out, entries, ROW_HEIGHT * entries);
	if (ret)
		return ret;
	for (unsigned first = 0; first < run->nr_jobs; first = last + 1) {
		last = kscen_entry_last(run, first);
		sweep_entry(&p, run, first, last);
	}
	ret = kscen_plot_run(&p, entries > 1);
	kscen_plot_cleanup(&p);
	return ret;
}
