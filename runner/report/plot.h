/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plot.h - pictures of runs through gnuplot (plot.c); the flame graphs are
 * flame.c's. Each writes @out, an .svg, a .png or a .pdf by its name, and
 * returns 0 or -errno with the reason on stderr.
 */
#ifndef KSCEN_PLOT_H
#define KSCEN_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "store/profile.h"

/* Each job entry's primary metric against the axis that varies last. */
int kscen_plot_sweep(const struct kscen_run *run, const char *out);
/* Each job of @new_ and @old, medians relative to @old's, with CIs. */
int kscen_plot_compare(const struct kscen_run *old, const struct kscen_run *new_,
		       const char *out);
/*
 * The job matching @glob over @runs (oldest first); more than one: each
 * with @all, else they are listed and it is -EINVAL.
 */
int kscen_plot_history(struct kscen_run *const *runs, unsigned nr, const char *glob,
		       bool all, const char *out);

enum kscen_plot_fmt { KSCEN_PLOT_SVG, KSCEN_PLOT_PNG, KSCEN_PLOT_PDF,
		      KSCEN_PLOT_NONE = -1 };
/* What -o @out asks for, by its extension (any case). */
enum kscen_plot_fmt kscen_plot_format(const char *out);

/*
 * flame.c: a flame graph of @f as SVG; with @old, the differential one
 * (red: a larger share in @f than in @old). 0 or -EIO.
 */
int kscen_flame_svg(FILE *out, const struct kscen_folded *f, unsigned nr,
		    const struct kscen_folded *old, unsigned nr_old,
		    const char *title, const char *caption);
/*
 * `kscen plot --flame JOB [--diff] RESULT -o FILE.svg`: @load reads RESULT.
 * Returns the exit code.
 */
int kscen_plot_flame(const char *result, const char *job, bool diff,
		     const char *output,
		     int (*load)(const char *arg, struct kscen_run **out));

#endif
