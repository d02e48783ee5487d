// SPDX-License-Identifier: GPL-2.0
/*
 * flame.c - `kscen plot --flame JOB RESULT -o FILE.svg`: a flame graph of a
 * job's profile, drawn from its folded stacks as an SVG written here (no
 * gnuplot, no perl), in the layout of Brendan Gregg's flamegraph.pl: one
 * box per frame, its width the frame's share of the samples, callers
 * below callees, siblings in name order, a tooltip (<title>) on each box.
 * User frames get flamegraph.pl's warm colours, kernel frames ("_[k]")
 * orange ones, each hue seeded by the name so that one function keeps its
 * colour across graphs.
 *
 * --diff draws the differential one against the job's baseline, as
 * difffolded.pl and flamegraph.pl do: the shape is the job's, and each
 * box is red where the job spends a larger share of its samples in that
 * call path than the baseline does, blue where smaller, the deeper the
 * colour the larger the move (scaled to the largest one); white is no
 * change. Paths only the baseline has are not drawn (they have no width
 * in the job); the caption says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "lib/util.h"
#include "plot.h"

#define WIDTH 1200.0
#define PAD 10.0
#define FRAME_H 16.0
#define FONT 12.0
#define TOP 56.0		/* title and caption */
#define BOTTOM 24.0
#define MIN_W 0.1		/* narrower boxes are not drawn */

struct node {
	char *name;		/* as folded, with "_[k]" */
	unsigned long long count;
	struct node **kids;
	unsigned nr_kids;
};

static struct node *child(struct node *n, const char *name, size_t len, bool add)
{
	struct node *c;

	for (unsigned i = 0; i < n->nr_kids; i++)
		if (strlen(n->kids[i]->name) == len && !memcmp(n->kids[i]->name, name, len))
			return n->kids[i];
	if (!add)
		return NULL;
	c = kscen_xcalloc(1, sizeof(*c));
	c->name = kscen_xmalloc(len + 1);
	memcpy(c->name, name, len);
	c->name[len] = '\0';
	n->kids = kscen_xrealloc(n->kids, (n->nr_kids + 1) * sizeof(*n->kids));
	n->kids[n->nr_kids++] = c;
	return c;
}

static int node_cmp(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name, (*(struct node *const *)b)->name);
}

static void sort_tree(struct node *n, unsigned depth, unsigned *max_depth)
{
	if (depth > *max_depth)
		*max_depth = depth;
	if (n->nr_kids > 1)
		qsort(n->kids, n->nr_kids, sizeof(*n->kids), node_cmp);
	for (unsigned i = 0; i < n->nr_kids; i++)
		sort_tree(n->kids[i], depth + 1, max_depth);
}

static struct node *build(const struct kscen_folded *f, unsigned nr)
{
	struct node *root = kscen_xcalloc(1, sizeof(*root));

	root->name = kscen_xstrdup("all");
	for (unsigned i = 0; i < nr; i++) {
		const char *s = f[i].stack;
		struct node *n = root;

		root->count += f[i].count;
		while (*s) {
			size_t len = strcspn(s, ";");

			n = child(n, s, len, true);
			n->count += f[i].count;
			s += len;
			s += *s == ';';
		}
	}
	return root;
}

static void free_tree(struct node *n)
{
	if (!n)
		return;
	for (unsigned i = 0; i < n->nr_kids; i++)
		free_tree(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
}

static void xml(FILE *out, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			/* Control bytes are not XML; names should not have any. */
			fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], out);
		}
	}
}

static unsigned name_hash(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static bool is_kernel(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, "_[k]");
}

/* flamegraph.pl's "hot" palette for user frames, orange for the kernel. */
static void frame_color(const char *name, char *buf, size_t len)
{
	unsigned h = name_hash(name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0;

	if (is_kernel(name))
		snprintf(buf, len, "rgb(%d,%d,%d)", 220 + (int)(35 * v1),
			 120 + (int)(60 * v2), 20 + (int)(30 * v1));
	else
		snprintf(buf, len, "rgb(%d,%d,%d)", 205 + (int)(50 * v1),
			 (int)(230 * v2), (int)(55 * v1));
}

/* Red for more, blue for less, white for the same (difffolded's scheme). */
static void diff_color(double delta, double max, char *buf, size_t len)
{
	int c = max > 0 ? (int)(200 * fabs(delta) / max) : 0;

	if (c > 200)
		c = 200;
	if (delta > 0)
		snprintf(buf, len, "rgb(255,%d,%d)", 255 - c, 255 - c);
	else
		snprintf(buf, len, "rgb(%d,%d,255)", 255 - c, 255 - c);
}

struct ctx {
	FILE *out;
	unsigned long long total, old_total;
	double scale;		/* px per sample */
	double height;
	double max_delta;	/* percent points, diff only */
	bool diff;
};

static double share(unsigned long long c, unsigned long long total)
{
	return total ? 100.0 * c / total : 0;
}

/* The largest |delta| of any box that will be drawn, to scale the colours. */
static void max_delta(struct ctx *c, const struct node *n, const struct node *o)
{
	double d = share(n->count, c->total) - share(o ? o->count : 0, c->old_total);

	if (n->count * c->scale < MIN_W)
		return;
	if (fabs(d) > c->max_delta)
		c->max_delta = fabs(d);
	for (unsigned i = 0; i < n->nr_kids; i++)
		max_delta(c, n->kids[i], o ? child((struct node *)o, n->kids[i]->name,
						   strlen(n->kids[i]->name), false) : NULL);
}

static void draw(struct ctx *c, const struct node *n, const struct node *o,
		 double x, unsigned depth)
{
	double w = n->count * c->scale, y = c->height - BOTTOM - (depth + 1) * FRAME_H;
	size_t len = strlen(n->name), chars;
	bool k = is_kernel(n->name);
	char color[48];
	double now = share(n->count, c->total), then = 0;

	if (w < MIN_W)
		return;
	if (c->diff) {
		then = share(o ? o->count : 0, c->old_total);
		diff_color(now - then, c->max_delta, color, sizeof(color));
	} else if (depth == 0) {
		snprintf(color, sizeof(color), "rgb(230,230,230)");
	} else {
		frame_color(n->name, color, sizeof(color));
	}
	if (k)
		len -= 4;
	fprintf(c->out, "<g><title>");
	xml(c->out, n->name, len);
	if (k)
		fputs(" [kernel]", c->out);
	if (c->diff)
		fprintf(c->out, " (%llu samples, job %.2f%%, baseline %.2f%%, %+.2f%%)",
			n->count, now, then, now - then);
	else
		fprintf(c->out, " (%llu samples, %.2f%%)", n->count, now);
	/* A white box (no change) on a white page needs an edge. */
	fprintf(c->out, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"%s\" rx=\"2\" ry=\"2\"%s/>", x, y, w,
		FRAME_H - 1, color,
		c->diff ? " stroke=\"rgb(190,190,190)\" stroke-width=\"0.5\"" : "");
	/* Whole characters that fit, "..": flamegraph.pl's 0.59 em guess. */
	chars = (size_t)((w - 6) / (FONT * 0.59));
	if (chars >= 3) {
		fprintf(c->out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4.5);
		if (chars >= len) {
			xml(c->out, n->name, len);
		} else {
			xml(c->out, n->name, chars - 2);
			fputs("..", c->out);
		}
		fputs("</text>", c->out);
	}
	fputs("</g>\n", c->out);
	for (unsigned i = 0; i < n->nr_kids; i++) {
		const struct node *kid = n->kids[i];

		draw(c, kid, o ? child((struct node *)o, kid->name, strlen(kid->name),
				      false) : NULL, x, depth + 1);
		x += kid->count * c->scale;
	}
}

int kscen_flame_svg(FILE *out, const struct kscen_folded *f, unsigned nr,
		    const struct kscen_folded *old, unsigned nr_old,
		    const char *title, const char *caption)
{
	struct node *root = build(f, nr), *oroot = old ? build(old, nr_old) : NULL;
	struct ctx c = { .out = out, .diff = old != NULL };
	unsigned depth = 0;

	sort_tree(root, 0, &depth);
	c.total = root->count;
	c.old_total = oroot ? oroot->count : 0;
	c.scale = c.total ? (WIDTH - 2 * PAD) / c.total : 0;
	c.height = TOP + (depth + 1) * FRAME_H + BOTTOM;
	if (c.diff)
		max_delta(&c, root, oroot);

	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: %.0fpx; "
		"fill: rgb(0,0,0); } .title { font-size: 17px; } "
		".caption { font-size: 12px; fill: rgb(80,80,80); }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"%s\"/>\n",
		WIDTH, c.height, WIDTH, c.height, FONT,
		c.diff ? "rgb(250,250,250)" : "rgb(253,248,235)");
	/* A long job id must not run off the page. */
	fprintf(out, "<text class=\"title\" x=\"%.0f\" y=\"24\" text-anchor=\"middle\" "
		"style=\"font-size: %.1fpx\">", WIDTH / 2,
		fmin(17, (WIDTH - 2 * PAD) / (0.6 * (strlen(title) + 1))));
	xml(out, title, strlen(title));
	fprintf(out, "</text>\n<text class=\"caption\" x=\"%.0f\" y=\"44\" "
		"text-anchor=\"middle\">", WIDTH / 2);
	xml(out, caption, strlen(caption));
	fputs("</text>\n", out);
	if (c.total)
		draw(&c, root, oroot, PAD, 0);
	fputs("</svg>\n", out);
	free_tree(root);
	free_tree(oroot);
	return ferror(out) ? -EIO : 0;
}

/* The folded stacks of job @id of @run, from beside the run. */
static int load_job(const struct kscen_run *run, const char *id,
		    struct kscen_folded **f, unsigned *nr)
{
	char *dir = kscen_profile_dir(run), *name = kscen_profile_folded_name(id);
	char *path = kscen_xasprintf("%s/%s", dir ? dir : ".", name);
	int ret = dir ? kscen_folded_load(path, f, nr) : -ENOENT;

	if (ret)
		kscen_error("plot", "%s: %s (was the run profiled? "
			    "profile: true or run --profile)", path, strerror(-ret));
	free(dir);
	free(name);
	free(path);
	return ret;
}

int kscen_plot_flame(const char *result, const char *job, bool diff,
		     const char *output,
		     int (*load)(const char *arg, struct kscen_run **out))
{
	struct kscen_folded *f = NULL, *of = NULL;
	unsigned nr = 0, nr_of = 0;
	const struct kscen_job_result *j;
	struct kscen_run *run = NULL;
	char *title = NULL, *caption = NULL;
	FILE *out = NULL;
	int ret = 2;

	if (load(result, &run))
		return 2;
	j = kscen_run_find(run, job);
	if (!j) {
		kscen_error("plot", "no job '%s' in %s", job, run->path);
		goto out;
	}
	if (!j->profile || j->profile->reason) {
		kscen_error("plot", "job '%s' has no profile%s%s", job,
			    j->profile ? ": " : " (profile: true or run --profile)",
			    j->profile ? j->profile->reason : "");
		goto out;
	}
	if (diff && (!j->baseline || !strcmp(j->baseline, j->id))) {
		kscen_error("plot", "--diff: job '%s' has no baseline "
			    "(it is its own)", job);
		goto out;
	}
	if (load_job(run, job, &f, &nr) || (diff && load_job(run, j->baseline, &of, &nr_of)))
		goto out;
	if (diff) {
		title = kscen_xasprintf("Differential flame graph: %s against %s", job,
					j->baseline);
		caption = kscen_xasprintf("widths: the job's samples; red: a larger share "
					  "than in the baseline, blue: a smaller one; "
					  "paths only the baseline has are not drawn");
	} else {
		title = kscen_xasprintf("Flame graph: %s", job);
		caption = kscen_xasprintf("%s %s at %u Hz, scope %s, %ld samples, run %s",
					  strcmp(j->profile->source, "perf") ? "kscen bpf" :
					  "perf record", j->profile->event, j->profile->frequency,
					  j->profile->scope, j->profile->samples,
					  run->started ? run->started : "?");
	}
	out = fopen(output, "w");
	if (!out) {
		kscen_error("plot", "%s: %s", output, strerror(errno));
		goto out;
	}
	ret = kscen_flame_svg(out, f, nr, diff ? of : NULL, nr_of, title, caption);
	if (fclose(out) && !ret)
		ret = -errno;
	if (ret)
		kscen_error("plot", "%s: %s", output, strerror(-ret));
	ret = ret ? 1 : 0;
out:
	kscen_folded_free(f, nr);
	kscen_folded_free(of, nr_of);
	free(title);
	free(caption);
	kscen_run_free(run);
	return ret;
}
