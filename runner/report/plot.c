// SPDX-License-Identifier: GPL-2.0
/*
 * plot.c - pictures of runs through gnuplot: a sweep (each job entry's
 * primary metric against the axis that varies last, a line per combination
 * of the other varying parameters, CI error bars, the baseline marked), a
 * comparison of two runs (each job's median relative to the old run's,
 * both with their CIs) and a history (one job's median and CI over the
 * stored runs). kscen writes the data and the script into a temporary
 * directory and runs gnuplot on them; SVG or PNG by the output's name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/diag.h"
#include "lib/child.h"
#include "plot.h"
#include "report.h"
#include "lib/util.h"

#define ROW_HEIGHT 360

struct plot {
	char dir[64];		/* the temporary directory */
	FILE *gp;		/* its script */
	unsigned files;
};

/* gnuplot's single-quoted strings: '' is a quote; no enhanced text. */
static void gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		fputs(*s == '\'' ? "''" : (char[]){ *s, 0 }, f);
	fputc('\'', f);
}

/* A tic label: quoted, and % doubled (gnuplot formats tic labels). */
static void gp_label(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		fputs(*s == '\'' ? "''" : *s == '%' ? "%%" : (char[]){ *s, 0 }, f);
	fputc('\'', f);
}

static int plot_open(struct plot *p, const char *out, unsigned rows, unsigned height)
{
	const char *ext = strrchr(out, '.');
	char path[128];

	if (!ext || (strcmp(ext, ".svg") && strcmp(ext, ".png"))) {
		kscen_error("plot", "%s: the output is a .svg or a .png", out);
		return -EINVAL;
	}
	snprintf(p->dir, sizeof(p->dir), "/tmp/kscen-plot-XXXXXX");
	if (!mkdtemp(p->dir))
		return -errno;
	snprintf(path, sizeof(path), "%s/plot.gp", p->dir);
	p->gp = fopen(path, "w");
	if (!p->gp)
		return -errno;
	if (!strcmp(ext, ".svg"))
		fprintf(p->gp, "set terminal svg size 900,%u dynamic font 'sans,11' "
			"background rgb 'white'\n", height);
	else
		fprintf(p->gp, "set terminal pngcairo size 900,%u font 'sans,10'\n",
			height);
	fputs("set output ", p->gp);
	gp_quote(p->gp, out);
	fputs("\nset encoding utf8\nset termoption noenhanced\nset grid ytics\n"
	      "set key outside right top\nset bars small\n", p->gp);
	if (rows > 1)
		fprintf(p->gp, "set multiplot layout %u,1\n", rows);
	return 0;
}

/* A new data file of the plot; its path in @path. */
static FILE *plot_data(struct plot *p, char *path, size_t len)
{
	snprintf(path, len, "%s/d%u.dat", p->dir, p->files++);
	return fopen(path, "w");
}

static void plot_cleanup(struct plot *p)
{
	char path[160];

	for (unsigned i = 0; i < p->files; i++) {
		snprintf(path, sizeof(path), "%s/d%u.dat", p->dir, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/plot.gp", p->dir);
	unlink(path);
	rmdir(p->dir);
}

/* Run gnuplot on the script; 0, or its complaint on stderr and -EIO. */
static int plot_run(struct plot *p, bool multi)
{
	char script[128], err[4096] = "", how[96];
	char *argv[] = { "gnuplot", script, NULL };
	struct kscen_child c = {
		.argv = argv, .in = KSCEN_CHILD_NULL, .out = KSCEN_CHILD_NULL,
		.err = KSCEN_CHILD_PIPE, .flags = KSCEN_CHILD_PATH | KSCEN_CHILD_CLEAN,
	};
	ssize_t n, got = 0;
	int ret;

	if (multi)
		fputs("unset multiplot\n", p->gp);
	fclose(p->gp);
	p->gp = NULL;
	snprintf(script, sizeof(script), "%s/plot.gp", p->dir);
	ret = kscen_child_start(&c);
	if (ret)
		return ret;
	while ((n = read(c.err_fd, err + got, sizeof(err) - 1 - got)) > 0 ||
	       (n < 0 && errno == EINTR))
		got += n > 0 ? n : 0;
	ret = kscen_child_reap(&c);
	kscen_child_kill(&c);
	if (ret)
		return ret;
	if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 127) {
		kscen_error("plot", "needs gnuplot (apt-get install gnuplot-nox)");
		return -ENOENT;
	}
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status)) {
		kscen_error("plot", "gnuplot %s:",
			    kscen_wait_status_text(c.status, how, sizeof(how)));
		kscen_diag_info("%s", err);	/* gnuplot's own words */
		return -EIO;
	}
	return 0;
}

static bool is_number(const char *s)
{
	char *end;

	if (!*s)
		return false;
	strtod(s, &end);
	return !*end;
}

/* ---- sweep ------------------------------------------------------------------ */

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

static void sweep_entry(struct plot *p, const struct kscen_run *run,
			unsigned first, unsigned last)
{
	const struct kscen_job_result *j0 = &run->jobs[first];
	const struct kscen_metric *m0 = kscen_primary(j0);
	unsigned keys[16], nk = varying(run, first, last, keys, 16), xk;
	bool numeric = true, any_base = false;
	char names[64][160], path[160], base[160];
	unsigned nl = 0;
	FILE *f[64], *bf;

	xk = nk ? nk - 1 : 0;	/* the axis that varies last: the innermost */
	numeric = nk > 0;	/* one job: one point, named */
	for (unsigned i = first; i <= last && nk; i++)
		numeric &= keys[xk] < run->jobs[i].nr_kv &&
			   is_number(kscen_str(run->jobs[i].values[keys[xk]]));
	fprintf(p->gp, "set title ");
	gp_quote(p->gp, kscen_str(j0->name));
	fprintf(p->gp, "\nset xlabel ");
	gp_quote(p->gp, nk ? kscen_str(j0->keys[keys[xk]]) : "");
	fprintf(p->gp, "\nset ylabel ");
	gp_quote(p->gp, m0 ? kscen_str(m0->unit) : "");
	fputs("\nset autoscale\nset offsets graph 0.05, graph 0.05, graph 0.05, 0\n", p->gp);
	if (!numeric)
		fputs("set xtics (", p->gp);
	bf = plot_data(p, base, sizeof(base));
	for (unsigned i = first; i <= last; i++) {
		const struct kscen_job_result *j = &run->jobs[i];
		const struct kscen_metric *m = kscen_primary(j);
		char name[160], xv[64];
		unsigned l;

		if (!numeric) {
			fputs(i > first ? ", " : "", p->gp);
			gp_label(p->gp, nk && keys[xk] < j->nr_kv ? kscen_str(j->values[keys[xk]]) :
				 kscen_str(j->name));
			fprintf(p->gp, " %u", i - first);
		}
		if (j->status != KSCEN_OK || !m || !m->nr_samples)
			continue;
		line_name(j, keys, nk, xk, name, sizeof(name));
		for (l = 0; l < nl && strcmp(names[l], name); l++)
			;
		if (l == nl) {
			if (nl == 64)
				continue;
			snprintf(names[nl], sizeof(names[nl]), "%s", name);
			f[nl++] = plot_data(p, path, sizeof(path));
		}
		if (!f[l])
			continue;
		/* categorical values: their position on the axis */
		if (numeric)
			snprintf(xv, sizeof(xv), "%s", kscen_str(j->values[keys[xk]]));
		else
			snprintf(xv, sizeof(xv), "%u", i - first);
		fprintf(f[l], "%s %.17g %.17g %.17g\n", xv, m->sum.median,
			isfinite(m->sum.ci_lo) ? m->sum.ci_lo : m->sum.median,
			isfinite(m->sum.ci_hi) ? m->sum.ci_hi : m->sum.median);
		if (bf && is_baseline(run, j->id)) {
			fprintf(bf, "%s %.17g\n", xv, m->sum.median);
			any_base = true;
		}
	}
	if (!numeric)
		fputs(")\n", p->gp);
	if (bf)
		fclose(bf);
	fputs("plot ", p->gp);
	for (unsigned l = 0; l < nl; l++) {
		if (f[l])
			fclose(f[l]);
		fprintf(p->gp, "%s'%s/d%u.dat' using 1:2:3:4 with yerrorlines lw 1.5 title ",
			l ? ", " : "", p->dir, p->files - nl + l);
		gp_quote(p->gp, names[l]);
	}
	if (any_base)
		fprintf(p->gp, ", '%s' using 1:2 with points pt 6 ps 2.5 lc rgb 'black' "
			"title 'baseline'", base);
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
	ret = plot_open(&p, out, entries, ROW_HEIGHT * entries);
	if (ret)
		return ret;
	for (unsigned first = 0; first < run->nr_jobs; first = last + 1) {
		last = kscen_entry_last(run, first);
		sweep_entry(&p, run, first, last);
	}
	ret = plot_run(&p, entries > 1);
	plot_cleanup(&p);
	return ret;
}

/* ---- compare and history ------------------------------------------------------ */

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
	char po[160], pn[160], label[256];
	FILE *fo, *fn;
	unsigned x = 0;
	int ret;

	ret = plot_open(&p, out, 1, ROW_HEIGHT * 3 / 2);
	if (ret)
		return ret;
	fo = plot_data(&p, po, sizeof(po));
	fn = plot_data(&p, pn, sizeof(pn));
	if (!fo || !fn) {
		ret = -errno;
		goto out;
	}
	fputs("set title 'median relative to the old run, 95% CI'\n"
	      "set ylabel 'new / old'\nset xtics rotate by -35 left (", p.gp);
	for (unsigned i = 0; i < new_->nr_jobs; i++) {
		const struct kscen_job_result *jn = &new_->jobs[i];
		const struct kscen_job_result *jo = kscen_run_find(old, jn->id);
		const struct kscen_metric *mn = kscen_primary(jn);
		const struct kscen_metric *mo = jo ? kscen_find_metric(jo, kscen_str(mn ? mn->name : "")) : NULL;
		double b;

		if (!mn || !mo || !mn->nr_samples || !mo->nr_samples || !(mo->sum.median != 0))
			continue;
		b = mo->sum.median;
		short_name(new_, i, label, sizeof(label));
		fprintf(p.gp, "%s", x ? ", " : "");
		gp_label(p.gp, label);
		fprintf(p.gp, " %u", x);
		fprintf(fo, "%g %.17g %.17g %.17g\n", x - 0.12, 1.0, mo->sum.ci_lo / b,
			mo->sum.ci_hi / b);
		fprintf(fn, "%g %.17g %.17g %.17g\n", x + 0.12, mn->sum.median / b,
			mn->sum.ci_lo / b, mn->sum.ci_hi / b);
		x++;
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
	fprintf(p.gp, ")\nset xrange [-0.5:%u.5]\nset bmargin 12\n"
		"plot '%s' using 1:2:3:4 with yerrorbars pt 7 title ", x - 1, po);
	gp_quote(p.gp, kscen_str(old->label ? old->label : old->started));
	fprintf(p.gp, ", '%s' using 1:2:3:4 with yerrorbars pt 5 title ", pn);
	gp_quote(p.gp, kscen_str(new_->label ? new_->label : new_->started));
	fputs(", 1 with lines lc rgb 'gray' notitle\n", p.gp);
	ret = plot_run(&p, false);
out:
	if (p.gp)
		fclose(p.gp);
	plot_cleanup(&p);
	return ret;
}

int kscen_plot_history(struct kscen_run *const *runs, unsigned nr, const char *glob,
		       const char *out)
{
	const struct kscen_job_result *job = NULL;
	struct plot p = { 0 };
	char path[160];
	unsigned x = 0;
	FILE *f;
	int ret;

	ret = plot_open(&p, out, 1, ROW_HEIGHT);
	if (ret)
		return ret;
	f = plot_data(&p, path, sizeof(path));
	if (!f) {
		ret = -errno;
		goto out;
	}
	fputs("set xtics rotate by -35 left (", p.gp);
	for (unsigned r = 0; r < nr; r++) {
		const struct kscen_job_result *j = NULL;
		const struct kscen_metric *m;

		for (unsigned i = 0; i < runs[r]->nr_jobs && !j; i++)
			if (!fnmatch(glob, kscen_str(runs[r]->jobs[i].id), 0))
				j = &runs[r]->jobs[i];
		if (j && !job)
			job = j;	/* the first job matching: the same one after */
		if (!j || strcmp(kscen_str(job->id), kscen_str(j->id)) || !(m = kscen_primary(j)) ||
		    !m->nr_samples)
			continue;
		fprintf(p.gp, "%s", x ? ", " : "");
		gp_label(p.gp, kscen_str(runs[r]->label ? runs[r]->label : runs[r]->started));
		fprintf(p.gp, " %u", x);
		fprintf(f, "%u %.17g %.17g %.17g\n", x++, m->sum.median, m->sum.ci_lo,
			m->sum.ci_hi);
	}
	fclose(f);
	if (!x) {
		kscen_error("plot", "no stored run has a job matching '%s'", glob);
		ret = -EINVAL;
		goto out;
	}
	fprintf(p.gp, ")\nset xrange [-0.5:%u.5]\nset bmargin 8\nset title ", x - 1);
	gp_quote(p.gp, kscen_str(job->id));
	fprintf(p.gp, "\nset ylabel ");
	gp_quote(p.gp, kscen_str(kscen_primary(job) ? kscen_primary(job)->unit : ""));
	fprintf(p.gp, "\nplot '%s' using 1:2:3:4 with yerrorlines pt 7 lw 1.5 "
		"title 'median, 95%% CI'\n", path);
	ret = plot_run(&p, false);
out:
	if (p.gp)
		fclose(p.gp);
	plot_cleanup(&p);
	return ret;
}
