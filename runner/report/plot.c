// SPDX-License-Identifier: GPL-2.0
/*
 * plot.c - pictures of runs through gnuplot: a sweep (each job entry's
 * primary metric against the axis that varies last, a line per combination
 * of the other varying parameters, CI error bars, the baseline marked), a
 * comparison of two runs (each job's median relative to the old run's,
 * both with their CIs) and a history (one job's median and CI over the
 * stored runs). kscen writes the data and the script into a temporary
 * directory and runs gnuplot on them; SVG or PNG by the output's name.
 *
 * This file is the gnuplot plumbing every plot goes through (plot_int.h),
 * and the one place of its rules for hostile input: text from a result
 * reaches the script only quoted as data (kscen_gp_quote, kscen_gp_label),
 * gnuplot draws into a temporary directory of kscen's own, and the picture
 * is placed at -o by a rename (plot_place). The plots themselves:
 * plot_sweep.c, plot_compare.c (compare and history).
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

#include "lib/child.h"
#include "lib/diag.h"
#include "plot.h"
#include "plot_int.h"
#include "report.h"
#include "lib/util.h"
#include "stats/stats.h"

/*
 * gnuplot's single-quoted strings: '' is a quote, nothing else is special;
 * a line break would end the command, so no control character goes in.
 */
void kscen_gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		fputs(*s == '\'' ? "''" : (unsigned char)*s < 0x20 || *s == 0x7f ? " " :
		      (char[]){ *s, 0 }, f);
	fputc('\'', f);
}

/* A tic label: quoted, and % doubled (gnuplot formats tic labels). */
void kscen_gp_label(FILE *f, const char *s)
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

int kscen_plot_open(struct plot *p, const char *out, unsigned rows, unsigned height)
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
void kscen_plot_panel(struct plot *p, const char *title, const char *caption,
		      unsigned bmargin)
{
	fputs("unset label\nunset xtics\nset xtics nomirror\nset ytics autofreq\n"
	      "unset logscale\nset autoscale\nset offsets 0, 0, 0, 0\n"
	      "set xlabel ''\n", p->gp);
	fprintf(p->gp, "set bmargin %u\nset title ", bmargin);
	kscen_gp_quote(p->gp, title);
	fputc('\n', p->gp);
	if (caption) {
		fputs("set label ", p->gp);
		kscen_gp_quote(p->gp, caption);
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
void kscen_plot_yrange(struct plot *p, double lo, double hi)
{
	double pad = hi > lo ? (hi - lo) * 0.1 : fabs(hi) > 0 ? fabs(hi) * 0.05 : 1;
	double bottom = lo - pad;

	if (lo >= 0 && bottom < 0)
		bottom = 0;
	fprintf(p->gp, "set yrange [%.17g:%.17g]\n", bottom, hi + pad);
}

/* "error bars: the CI of each median (n=5, 93.8% CI)" for @lo..@hi samples. */
void kscen_plot_bars_caption(char *buf, size_t len, const char *what,
			     unsigned lo, unsigned hi)
{
	char n[64];

	kscen_report_n_note(lo, hi, n, sizeof(n));
	snprintf(buf, len, "error bars: the CI of %s (%s)", what, n);
}

void kscen_plot_count_n(const struct kscen_metric *m, unsigned *lo, unsigned *hi)
{
	*lo = m->nr_samples < *lo ? m->nr_samples : *lo;
	*hi = m->nr_samples > *hi ? m->nr_samples : *hi;
}

/* A new data file of the plot; its path in @path. */
FILE *kscen_plot_data(struct plot *p, char *path, size_t len)
{
	snprintf(path, len, "%s/d%u.dat", p->dir, p->files++);
	return fopen(path, "w");
}

void kscen_plot_cleanup(struct plot *p)
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
int kscen_plot_run(struct plot *p, bool multi)
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
