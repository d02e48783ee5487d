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
#include <fcntl.h>
#include <strings.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emit.h"
#include "lib/child.h"
#include "lib/diag.h"
#include "plot.h"
#include "report.h"
#include "lib/util.h"
#include "stats/stats.h"

#define ROW_HEIGHT 360

struct plot {
	char dir[64];		/* the temporary directory */
	FILE *gp;		/* its script */
	const char *out;	/* the picture's path (-o) */
	const char *ext;	/* ".svg", ".png" or ".pdf" */
	bool made;		/* dir exists */
	unsigned files;
	unsigned rows, row;	/* panels, one a row; the one being drawn */
	unsigned height;	/* pixels, all rows */
};

/*
 * gnuplot's single-quoted strings: '' is a quote, nothing else is special;
 * a line break would end the command, so no control character goes in.
 */
static void gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		fputs(*s == '\'' ? "''" : (unsigned char)*s < 0x20 || *s == 0x7f ? " " :
		      (char[]){ *s, 0 }, f);
	fputc('\'', f);
}

/* A tic label: quoted, and % doubled (gnuplot formats tic labels). */
static void gp_label(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		fputs(*s == '\'' ? "''" : *s == '%' ? "%%" :
		      (unsigned char)*s < 0x20 || *s == 0x7f ? " " : (char[]){ *s, 0 }, f);
	fputc('\'', f);
}

enum kscen_plot_fmt kscen_plot_format(const char *out)
{
	static const char *const ext[] = {
		[KSCEN_PLOT_SVG] = ".svg", [KSCEN_PLOT_PNG] = ".png",
		[KSCEN_PLOT_PDF] = ".pdf",
	};
	const char *dot = strrchr(out, '.');

	for (unsigned i = 0; dot && i < ARRAY_SIZE(ext); i++)
		if (!strcasecmp(dot, ext[i]))
			return i;
	return KSCEN_PLOT_NONE;
}

static int plot_open(struct plot *p, const char *out, unsigned rows, unsigned height)
{
	enum kscen_plot_fmt fmt = kscen_plot_format(out);
	struct stat st;
	char path[128];

	if (fmt == KSCEN_PLOT_NONE) {
		kscen_error("plot", "%s: the output is a .svg, a .png or a .pdf", out);
		return -EINVAL;
	}
	/* never a device, a FIFO or a directory */
	if (!stat(out, &st) && !S_ISREG(st.st_mode)) {
		kscen_error("plot", "%s: exists and is not a regular file", out);
		return -EINVAL;
	}
	p->out = out;
	p->ext = strrchr(out, '.');
	snprintf(p->dir, sizeof(p->dir), "/tmp/kscen-plot-XXXXXX");
	if (!mkdtemp(p->dir))
		return -errno;
	p->made = true;
	snprintf(path, sizeof(path), "%s/plot.gp", p->dir);
	p->gp = fopen(path, "w");
	if (!p->gp)
		return -errno;
	p->rows = rows;
	p->height = height;
	if (fmt == KSCEN_PLOT_SVG)
		fprintf(p->gp, "set terminal svg size 900,%u dynamic font 'sans,11' "
			"background rgb 'white'\n", height);
	else if (fmt == KSCEN_PLOT_PNG)
		fprintf(p->gp, "set terminal pngcairo size 900,%u font 'sans,10'\n",
			height);
	else	/* pdfcairo counts in inches: 96 pixels an inch */
		fprintf(p->gp, "set terminal pdfcairo size %.3fin,%.3fin font 'sans,8'\n",
			900 / 96.0, height / 96.0);
	/* gnuplot draws into our directory; plot_place() copies it to -o */
	fprintf(p->gp, "set output '%s/plot%s'\n", p->dir, p->ext);
	/* error bars with caps, drawn over the lines */
	fputs("set encoding utf8\nset termoption noenhanced\nset grid ytics\n"
	      "set key outside right top\nset bars large front\n", p->gp);
	if (rows > 1)
		fprintf(p->gp, "set multiplot layout %u,1\n", rows);
	return 0;
}

/*
 * A new panel: nothing of the one before carries over (tics, ranges,
 * labels), the title, and at its foot the caption saying what its error
 * bars are; @bmargin: text lines under the plot, the caption's included.
 */
static void panel(struct plot *p, const char *title, const char *caption,
		  unsigned bmargin)
{
	fputs("unset label\nunset xtics\nset xtics nomirror\nset ytics autofreq\n"
	      "unset logscale\nset autoscale\nset offsets 0, 0, 0, 0\n"
	      "set xlabel ''\n", p->gp);
	fprintf(p->gp, "set bmargin %u\nset title ", bmargin);
	gp_quote(p->gp, title);
	fputc('\n', p->gp);
	if (caption) {
		fputs("set label ", p->gp);
		gp_quote(p->gp, caption);
		fprintf(p->gp, " at screen 0.5, screen %.4f center font ',9'\n",
			(double)(p->rows - 1 - p->row) / p->rows + 12.0 / p->height);
	}
	p->row++;
}

/*
 * The y range that holds every value and interval in [@lo, @hi], with
 * room above and below: nothing is drawn outside the plot; from 0 when
 * the values are not negative and 0 is near.
 */
static void yrange(struct plot *p, double lo, double hi)
{
	double pad = hi > lo ? (hi - lo) * 0.1 : fabs(hi) > 0 ? fabs(hi) * 0.05 : 1;
	double bottom = lo - pad;

	if (lo >= 0 && bottom < 0)
		bottom = 0;
	fprintf(p->gp, "set yrange [%.17g:%.17g]\n", bottom, hi + pad);
}

/* "error bars: the CI of each median (n=5, 93.8% CI)" for @lo..@hi samples. */
static void bars_caption(char *buf, size_t len, const char *what, unsigned lo,
			 unsigned hi)
{
	char n[64];

	kscen_report_n_note(lo, hi, n, sizeof(n));
	snprintf(buf, len, "error bars: the CI of %s (%s)", what, n);
}

static void count_n(const struct kscen_metric *m, unsigned *lo, unsigned *hi)
{
	*lo = m->nr_samples < *lo ? m->nr_samples : *lo;
	*hi = m->nr_samples > *hi ? m->nr_samples : *hi;
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

	if (p->gp)
		fclose(p->gp);
	p->gp = NULL;
	if (!p->made)
		return;
	for (unsigned i = 0; i < p->files; i++) {
		snprintf(path, sizeof(path), "%s/d%u.dat", p->dir, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/plot.gp", p->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/plot%s", p->dir, p->ext);
	unlink(path);
	rmdir(p->dir);
	p->made = false;
}

/* The picture gnuplot drew, to -o: a temp file beside it, renamed. */
static int plot_place(const struct plot *p)
{
	char from[160], *tmp = kscen_xasprintf("%s.tmp-XXXXXX", p->out), buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	snprintf(from, sizeof(from), "%s/plot%s", p->dir, p->ext);
	in = open(from, O_RDONLY | O_CLOEXEC);
	out = in < 0 ? -1 : mkostemp(tmp, O_CLOEXEC);
	if (in < 0 || out < 0) {
		ret = -errno;
		goto out;
	}
	fchmod(out, 0644);
	errno = 0;
	while ((n = read(in, buf, sizeof(buf))) > 0 && !kscen_interrupted) {
		ssize_t w = 0;

		for (ssize_t o = 0; o < n && w >= 0; o += w)
			w = write(out, buf + o, n - o);
		if (w < 0)
			break;
	}
	if (n != 0 || kscen_interrupted || fsync(out) < 0 || rename(tmp, p->out) < 0)
		ret = kscen_interrupted ? -EINTR : errno ? -errno : -EIO;
out:
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	if (ret && out >= 0)
		unlink(tmp);
	if (ret && ret != -EINTR)
		kscen_error("plot", "%s: %s", p->out, strerror(-ret));
	free(tmp);
	return ret;
}

/* Run gnuplot on the script; 0, or its complaint on stderr and -EIO. */
static int plot_run(struct plot *p, bool multi)
{
	char script[128], how[96];
	char *argv[] = { "gnuplot", script, NULL };
	struct kscen_child c = {
		.argv = argv, .in = KSCEN_CHILD_NULL, .out = KSCEN_CHILD_NULL,
		.err = KSCEN_CHILD_PIPE,
		.flags = KSCEN_CHILD_PATH | KSCEN_CHILD_CLEAN | KSCEN_CHILD_PIDFD |
			 KSCEN_CHILD_PDEATHSIG | KSCEN_CHILD_PGROUP,
	};
	struct kscen_child_output err = { .max = 4095, .keep_tail = true };
	int ret;

	if (multi)
		fputs("unset multiplot\n", p->gp);
	fclose(p->gp);
	p->gp = NULL;
	snprintf(script, sizeof(script), "%s/plot.gp", p->dir);
	ret = kscen_child_start(&c);
	if (ret)
		return ret;
	err.data = kscen_xmalloc(err.max + 1);
	err.data[0] = '\0';
	err.fd = c.err_fd;
	/* ^C, SIGTERM, SIGHUP: gnuplot killed, nothing placed */
	ret = kscen_child_capture(&c, &err, 1, -1, &kscen_interrupted);
	if (!ret)
		ret = kscen_child_finish(&c, -1);
	kscen_child_kill(&c);	/* on ^C, before it writes more */
	if (ret) {
		free(err.data);
		return ret == -EINTR ? ret : -EIO;
	}
	if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 127) {
		kscen_error("plot", "needs gnuplot (apt-get install gnuplot-nox)");
		ret = -ENOENT;
	} else if (!WIFEXITED(c.status) || WEXITSTATUS(c.status)) {
		kscen_error("plot", "gnuplot %s:",
			    kscen_wait_status_text(c.status, how, sizeof(how)));
		kscen_diag_info("%s", err.data);	/* gnuplot's own words */
		ret = -EIO;
	}
	free(err.data);
	return ret ? ret : plot_place(p);
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
			gp_label(p->gp, ax->val[i]);
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
			gp_label(p->gp, ax->val[i]);
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
			count_n(m, &lo, &hi);
	}
	bars_caption(cap, sizeof(cap), "each median", lo, hi);
	panel(p, kscen_str(j0->name), cap, 5);
	fprintf(p->gp, "set xlabel ");
	gp_quote(p->gp, nk ? kscen_str(j0->keys[keys[xk]]) : "");
	fprintf(p->gp, "\nset ylabel ");
	if (jm)
		kscen_metric_label(kscen_primary(jm), &st, lbl, sizeof(lbl));
	gp_quote(p->gp, jm ? lbl : "");
	fputc('\n', p->gp);
	x_axis(p, &ax);
	bf = plot_data(p, base, sizeof(base));
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
			f[nl++] = plot_data(p, path, sizeof(path));
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
		yrange(p, ylo, yhi);
	fputs("plot ", p->gp);
	for (unsigned l = 0; l < nl; l++) {
		if (f[l])
			fclose(f[l]);
		fprintf(p->gp, "%s'%s/d%u.dat' using 1:2:3:4 with yerrorlines lw 1.5 title ",
			l ? ", " : "", p->dir, p->files - nl + l);
		gp_quote(p->gp, names[l]);
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
	char po[160], pn[160], label[256], cap[160];
	double ylo = INFINITY, yhi = -INFINITY;
	unsigned x = 0, lo = ~0u, hi = 0;
	FILE *fo, *fn;
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
	for (unsigned pass = 0; pass < 2; pass++) {
		/* the tics, then (the caption known) the panel and its data */
		if (pass) {
			bars_caption(cap, sizeof(cap), "each median relative to the old "
				     "run's median", lo, hi);
			panel(&p, "median relative to the old run's", cap, 12);
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
				count_n(mn, &lo, &hi);
				count_n(mo, &lo, &hi);
				x++;
				continue;
			}
			b = mo->sum.median;
			short_name(new_, i, label, sizeof(label));
			fprintf(p.gp, "%s", x ? ", " : "");
			gp_label(p.gp, label);
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
	yrange(&p, ylo, yhi);
	fprintf(p.gp, "plot '%s' using 1:2:3:4 with yerrorbars pt 7 title ", po);
	report_short_time(old->started, label, sizeof(label));
	gp_quote(p.gp, old->label ? old->label : label);
	fprintf(p.gp, ", '%s' using 1:2:3:4 with yerrorbars pt 5 title ", pn);
	report_short_time(new_->started, label, sizeof(label));
	gp_quote(p.gp, new_->label ? new_->label : label);
	fputs(", 1 with lines lc rgb 'gray' notitle\n", p.gp);
	ret = plot_run(&p, false);
out:
	if (p.gp)
		fclose(p.gp);
	plot_cleanup(&p);
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

/* Job @id over @runs: a panel of its median and CI, in the report's unit. */
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

static int history_panel(struct plot *p, struct kscen_run *const *runs, unsigned nr,
			 const char *id)
{
	const struct kscen_job_result *jm = NULL;
	struct kscen_num st = { .unit = "", .scale = 1 };
	double ylo = INFINITY, yhi = -INFINITY;
	char path[160], when[64], lbl[192], cap[128];
	unsigned x = 0, lo = ~0u, hi = 0;
	FILE *f = plot_data(p, path, sizeof(path));
	double *l;
	bool logs = true;

	if (!f)
		return -errno;
	l = kscen_xcalloc(nr + 1, sizeof(*l));
	for (unsigned r = 0; r < nr; r++) {
		const struct kscen_job_result *j = kscen_run_find(runs[r], id);

		if (j && kscen_primary(j) && kscen_primary(j)->nr_samples) {
			jm = jm ? jm : j;
			count_n(kscen_primary(j), &lo, &hi);
		}
	}
	if (jm)
		kscen_num_style_in(kscen_primary(jm), kscen_job_time_style(jm), &st);
	bars_caption(cap, sizeof(cap), "each median", lo, hi);
	panel(p, id, cap, 8);
	fputs("set ylabel ", p->gp);
	if (jm)
		kscen_metric_label(kscen_primary(jm), &st, lbl, sizeof(lbl));
	gp_quote(p->gp, jm ? lbl : "");
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
		gp_label(p->gp, runs[r]->label ? runs[r]->label : when);
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
		yrange(p, ylo, yhi);
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
	ret = plot_open(&p, out, n, ROW_HEIGHT * n);
	for (unsigned i = 0; !ret && i < n; i++)
		ret = history_panel(&p, runs, nr, ids[i]);
	if (!ret)
		ret = plot_run(&p, n > 1);
	if (p.gp)
		fclose(p.gp);
	plot_cleanup(&p);
	free(ids);
	return ret;
}
