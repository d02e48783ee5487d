/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plot_int.h - the gnuplot plumbing of plot.c that the plots (plot_sweep.c,
 * plot_compare.c) draw through: a plot's script and data in a temporary
 * directory of its own, text from a result quoted as data, the picture
 * placed at -o. Private to report/plot*.c.
 */
#ifndef KSCEN_PLOT_INT_H
#define KSCEN_PLOT_INT_H

#include <stdbool.h>
#include <stdio.h>

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

/* @s as a gnuplot string: quoted, control characters as spaces. */
void kscen_gp_quote(FILE *f, const char *s);
/* The same for a tic label, % doubled. */
void kscen_gp_label(FILE *f, const char *s);
/* Start the script of a picture at @out: @rows panels, @height pixels. */
int kscen_plot_open(struct plot *p, const char *out, unsigned rows, unsigned height);
/* A new panel, @caption at its foot, @bmargin text lines under it. */
void kscen_plot_panel(struct plot *p, const char *title, const char *caption,
		      unsigned bmargin);
/* The y range that holds [@lo, @hi], with room above and below. */
void kscen_plot_yrange(struct plot *p, double lo, double hi);
/* What the error bars are, for @lo..@hi samples a median. */
void kscen_plot_bars_caption(char *buf, size_t len, const char *what,
			     unsigned lo, unsigned hi);
/* Widen [@lo, @hi] to @m's number of samples. */
void kscen_plot_count_n(const struct kscen_metric *m, unsigned *lo, unsigned *hi);
/* A new data file of the plot, its path in @path; NULL if it cannot. */
FILE *kscen_plot_data(struct plot *p, char *path, size_t len);
/* Run gnuplot on the script and place the picture; 0 or -errno, said. */
int kscen_plot_run(struct plot *p, bool multi);
/* Remove what the plot wrote in its directory, and the directory. */
void kscen_plot_cleanup(struct plot *p);

#endif
