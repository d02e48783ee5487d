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
 * Nothing read from a result (names, labels, units) or given on the command
 * line (-o) becomes gnuplot commands: numbers go to gnuplot as data files,
 * every text is one single-quoted gnuplot string (gnuplot expands nothing
 * in one: no backquotes, no macros, no escapes; '' is a quote) with its
 * control characters made blanks, since gnuplot ends a command at a
 * newline even inside quotes and runs the next line as one. gnuplot writes
 * the picture into the temporary directory (whose name is kscen's own) and
 * kscen copies it to -o: the output's path is never script text either.
 * ^C, SIGTERM or SIGHUP kill gnuplot and remove the directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "plot.h"
#include "report.h"
#include "runner.h"
#include "util.h"

#define ROW_HEIGHT 360

struct plot {
	char dir[64];		/* the temporary directory */
	FILE *gp;		/* its script */
	const char *out;	/* the picture's path (-o) */
	const char *ext;	/* ".svg" or ".png" */
	bool made;		/* dir exists */
	unsigned files;
};

static const char *str(const char *s)
{
	return s ? s : "";
}

/*
 * @s as one gnuplot single-quoted string: '' for a quote, %% in a tic
 * label (@tic: gnuplot formats those), a blank for a control character,
 * '?' for a byte that is not UTF-8.
 */
static void gp_string(FILE *f, const char *s, bool tic)
{
	fputc('\'', f);
	while (*s) {
		unsigned char c = *s;
		unsigned n = c >= 0x80 ? kscen_utf8_len(s) : 1;

		if (c == '\'')
			fputs("''", f);
		else if (c == '%' && tic)
			fputs("%%", f);
		else if (c < 0x20 || c == 0x7f)
			fputc(' ', f);
		else if (!n)
			fputc('?', f);
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
	}
	fputc('\'', f);
}

static void gp_quote(FILE *f, const char *s)
{
	gp_string(f, s, false);
}

static void gp_label(FILE *f, const char *s)
{
	gp_string(f, s, true);
}

static int plot_open(struct plot *p, const char *out, unsigned rows, unsigned height)
{
	const char *ext = strrchr(out, '.');
	struct stat st;
	char path[128];

	if (!ext || (strcmp(ext, ".svg") && strcmp(ext, ".png"))) {
		fprintf(stderr, "kscen plot: %s: the output is a .svg or a .png\n", out);
		return -EINVAL;
	}
	if (!stat(out, &st) && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "kscen plot: %s: exists and is not a regular file\n", out);
		return -EINVAL;
	}
	p->out = out;
	p->ext = ext;
	snprintf(p->dir, sizeof(p->dir), "/tmp/kscen-plot-XXXXXX");
	if (!mkdtemp(p->dir))
		return -errno;
	p->made = true;
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
	fprintf(p->gp, "set output '%s/plot%s'\n", p->dir, ext);
	fputs("set encoding utf8\nset termoption noenhanced\nset grid ytics\n"
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
		fprintf(stderr, "kscen plot: %s: %s\n", p->out, strerror(-ret));
	free(tmp);
	return ret;
}

/*
 * Run gnuplot on the script, then place the picture; 0, -EINTR on a
 * signal (gnuplot killed), or its complaint on stderr and -EIO.
 */
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
	ret = kscen_child_capture(&c, &err, 1, -1, &kscen_interrupted);
	if (!ret)
		ret = kscen_child_finish(&c, -1);
	kscen_child_kill(&c);	/* on ^C, before it writes more */
	if (ret) {
		free(err.data);
		return ret == -EINTR ? ret : -EIO;
	}
	if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 127) {
		fprintf(stderr, "kscen plot: needs gnuplot (apt-get install gnuplot-nox)\n");
		ret = -ENOENT;
	} else if (!WIFEXITED(c.status) || WEXITSTATUS(c.status)) {
		fprintf(stderr, "kscen plot: gnuplot %s:\n%s",
			kscen_wait_status_text(c.status, how, sizeof(how)), err.data);
		ret = -EIO;
	}
	free(err.data);
	return ret ? ret : plot_place(p);
}

/* A finite number, all of @s: it is written to the data as the number. */
static bool is_number(const char *s)
{
	char *end;
	double v;

	if (!*s || *s == ' ' || (*s >= '\t' && *s <= '\r'))
		return false;
	v = strtod(s, &end);
	return !*end && isfinite(v);
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
	for (unsigned i = 0; i < nk && o < len; i++)
		if (i != skip && keys[i] < j->nr_kv)
			o += snprintf(buf + o, o < len ? len - o : 0, "%s%s=%s", o ? " " : "",
				      str(j->keys[keys[i]]), str(j->values[keys[i]]));
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
			   is_number(str(run->jobs[i].values[keys[xk]]));
	fprintf(p->gp, "set title ");
	gp_quote(p->gp, str(j0->name));
	fprintf(p->gp, "\nset xlabel ");
	gp_quote(p->gp, nk ? str(j0->keys[keys[xk]]) : "");
	fprintf(p->gp, "\nset ylabel ");
	gp_quote(p->gp, m0 ? str(m0->unit) : "");
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
			gp_label(p->gp, nk && keys[xk] < j->nr_kv ? str(j->values[keys[xk]]) :
				 str(j->name));
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
			snprintf(xv, sizeof(xv), "%.17g", strtod(j->values[keys[xk]], NULL));
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
		fprintf(stderr, "kscen plot: %s has no jobs\n", str(run->path));
		return -EINVAL;
	}
	ret = plot_open(&p, out, entries, ROW_HEIGHT * entries);
	if (ret) {
		plot_cleanup(&p);
		return ret;
	}
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

	while (f > run->jobs && !strcmp(str(f[-1].name), str(j->name)))
		f--;
	o = snprintf(buf, len, "%s", str(j->name));
	for (unsigned k = 0; k < j->nr_kv && o < len; k++)
		if (k >= f->nr_kv || strcmp(str(j->values[k]), str(f->values[k])))
			o += snprintf(buf + o, len - o, " %s=%s", str(j->keys[k]),
				      str(j->values[k]));
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
		goto out;
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
		const struct kscen_metric *mo = jo ? kscen_find_metric(jo, str(mn ? mn->name : "")) : NULL;
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
		fprintf(stderr, "kscen plot: no job of %s is in %s with samples\n",
			str(new_->path), str(old->path));
		ret = -EINVAL;
		goto out;
	}
	fprintf(p.gp, ")\nset xrange [-0.5:%u.5]\nset bmargin 12\n"
		"plot '%s' using 1:2:3:4 with yerrorbars pt 7 title ", x - 1, po);
	gp_quote(p.gp, str(old->label ? old->label : old->started));
	fprintf(p.gp, ", '%s' using 1:2:3:4 with yerrorbars pt 5 title ", pn);
	gp_quote(p.gp, str(new_->label ? new_->label : new_->started));
	fputs(", 1 with lines lc rgb 'gray' notitle\n", p.gp);
	ret = plot_run(&p, false);
out:
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
		goto out;
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
			if (!fnmatch(glob, str(runs[r]->jobs[i].id), 0))
				j = &runs[r]->jobs[i];
		if (j && !job)
			job = j;	/* the first job matching: the same one after */
		if (!j || strcmp(str(job->id), str(j->id)) || !(m = kscen_primary(j)) ||
		    !m->nr_samples)
			continue;
		fprintf(p.gp, "%s", x ? ", " : "");
		gp_label(p.gp, str(runs[r]->label ? runs[r]->label : runs[r]->started));
		fprintf(p.gp, " %u", x);
		fprintf(f, "%u %.17g %.17g %.17g\n", x++, m->sum.median, m->sum.ci_lo,
			m->sum.ci_hi);
	}
	fclose(f);
	if (!x) {
		fprintf(stderr, "kscen plot: no stored run has a job matching '%s'\n", glob);
		ret = -EINVAL;
		goto out;
	}
	fprintf(p.gp, ")\nset xrange [-0.5:%u.5]\nset bmargin 8\nset title ", x - 1);
	gp_quote(p.gp, str(job->id));
	fprintf(p.gp, "\nset ylabel ");
	gp_quote(p.gp, str(kscen_primary(job) ? kscen_primary(job)->unit : ""));
	fprintf(p.gp, "\nplot '%s' using 1:2:3:4 with yerrorlines pt 7 lw 1.5 "
		"title 'median, 95%% CI'\n", path);
	ret = plot_run(&p, false);
out:
	plot_cleanup(&p);
	return ret;
}
