// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - what a run says to people and to scripts: the text report that
 * reads like perf bench (a block a job, "to baseline" and "to previous" deltas
 * as perf bench uprobe prints them, the change against the last run), a
 * markdown table for patch mails, JSON and CSV for scripts, and the delta
 * table of "kscen compare" (kscen_compare_print(), declared in kscen.h).
 *
 * Every comparison of two runs goes through struct change. Today it carries
 * the relative change of the medians; the significance test (confidence
 * interval, p-value, verdict) belongs in compute_change() and
 * format_change(), and every printer picks it up from there.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kscen.h"

/* Stored runs may lack any optional field; print them as empty. */
static const char *str(const char *s)
{
	return s ? s : "";
}

static const char *status_name(enum kscen_status s)
{
	return s == KSCEN_OK ? "ok" : s == KSCEN_SKIPPED ? "skipped" : "failed";
}

/* The primary metric of an ok job with samples, else NULL. */
static const struct kscen_metric *primary(const struct kscen_job_result *j)
{
	if (!j || j->status != KSCEN_OK || !j->nr_metrics ||
	    !j->metrics[0].nr_samples)
		return NULL;
	return &j->metrics[0];
}

/* @j's metric called @name, if @j is ok and it has samples. */
static const struct kscen_metric *find_metric(const struct kscen_job_result *j,
					      const char *name)
{
	unsigned i;

	if (!j || j->status != KSCEN_OK || !name)
		return NULL;
	for (i = 0; i < j->nr_metrics; i++)
		if (j->metrics[i].name && !strcmp(j->metrics[i].name, name) &&
		    j->metrics[i].nr_samples)
			return &j->metrics[i];
	return NULL;
}

/*
 * Median of @j's primary metric minus that of job @ref, perf bench uprobe's
 * "+N to baseline". Only for a different job that ran fine.
 */
static bool ref_delta(const struct kscen_run *run,
		      const struct kscen_job_result *j, const char *ref,
		      double *d)
{
	const struct kscen_metric *m = primary(j), *rm;

	if (!m || !ref || !j->id || !strcmp(ref, j->id))
		return false;
	rm = primary(kscen_run_find(run, ref));
	if (!rm)
		return false;
	*d = m->sum.median - rm->sum.median;
	return true;
}

/* "usecs/op" says more than its unit "usecs"; otherwise show both. */
static void label(const struct kscen_metric *m, char *buf, size_t len)
{
	const char *name = str(m->name), *unit = str(m->unit);

	if (!*unit || !strncmp(name, unit, strlen(unit)))
		snprintf(buf, len, "%s", name);
	else if (!*name)
		snprintf(buf, len, "%s", unit);
	else
		snprintf(buf, len, "%s (%s)", unit, name);
}

/* Relative spread in percent, NaN where it means nothing. */
static double spread(const struct kscen_metric *m)
{
	if (m->sum.mean == 0 || !isfinite(m->sum.mean))
		return NAN;
	return 100 * m->sum.stddev / fabs(m->sum.mean);
}

/* "2026-12-01T10:02:33Z" -> "2026-12-01T10:02Z" */
static void short_time(const char *iso, char *buf, size_t len)
{
	if (iso && strlen(iso) >= 17 && iso[13] == ':' && iso[16] == ':')
		snprintf(buf, len, "%.16sZ", iso);
	else
		snprintf(buf, len, "%s", iso ? iso : "unknown time");
}

/* ---- Changes between runs ---------------------------------------------- */

struct change {
	double old, new_;	/* medians */
	double rel;		/* (new - old) / old; NaN when old is 0 */
	/* To come: CI of the difference, p-value, verdict. */
};

/* Both metrics must have samples: the test will need them, not just sums. */
static bool compute_change(const struct kscen_metric *old,
			   const struct kscen_metric *new_, struct change *c)
{
	if (!old || !new_ || !old->nr_samples || !new_->nr_samples)
		return false;
	c->old = old->sum.median;
	c->new_ = new_->sum.median;
	c->rel = c->old != 0 ? (c->new_ - c->old) / c->old : NAN;
	return true;
}

/* "+1.2%"; the verdict (" ~", " faster", " slower") will follow it here. */
static void format_change(const struct change *c, char *buf, size_t len)
{
	if (isfinite(c->rel))
		snprintf(buf, len, "%+.1f%%", 100 * c->rel);
	else
		snprintf(buf, len, "n/a");
}

/* The change of @j's primary metric since @last, into @buf; false if none. */
static bool vs_last(const struct kscen_run *last,
		    const struct kscen_job_result *j, char *buf, size_t len)
{
	const struct kscen_metric *m = primary(j);
	struct change c;

	if (!m || !last || !compute_change(find_metric(kscen_run_find(last,
						j->id), m->name), m, &c))
		return false;
	format_change(&c, buf, len);
	return true;
}

/* ---- Text -------------------------------------------------------------- */

static void text_job(FILE *out, const struct kscen_run *run,
		     const struct kscen_run *last,
		     const struct kscen_job_result *j)
{
	const struct kscen_metric *m = primary(j);
	char lbl[128], chg[64], when[64];
	const char *d0, *nl;
	unsigned i;
	double d;

	fprintf(out, "# Running %s/%s\n", str(run->scenario), str(j->id));
	for (d0 = j->describe; d0; d0 = nl ? nl + 1 : NULL) {
		nl = strchr(d0, '\n');
		fprintf(out, "# %.*s\n", nl ? (int)(nl - d0) : (int)strlen(d0),
			d0);
	}
	if (j->status != KSCEN_OK) {
		fprintf(out, "     %s: %s\n",
			j->status == KSCEN_SKIPPED ? "skipped" : "FAILED",
			j->reason ? j->reason : "no reason given");
		return;
	}
	if (!m) {
		fprintf(out, "     no samples\n");
		return;
	}
	label(m, lbl, sizeof(lbl));
	fprintf(out, "     %14.6f %s", m->sum.median, lbl);
	if (ref_delta(run, j, j->baseline, &d))
		fprintf(out, " %+.3f to baseline", d);
	if (ref_delta(run, j, j->previous, &d))
		fprintf(out, " %+.3f to previous", d);
	fprintf(out, "   (median of %u", m->nr_samples);
	if (isfinite(spread(m)))
		fprintf(out, ", ±%.1f%% stddev", spread(m));
	fprintf(out, ")\n");

	for (i = 1; i < j->nr_metrics; i++) {
		if (!j->metrics[i].nr_samples)
			continue;
		label(&j->metrics[i], lbl, sizeof(lbl));
		fprintf(out, "     %14.6f %s\n", j->metrics[i].sum.median, lbl);
	}
	if (vs_last(last, j, chg, sizeof(chg))) {
		short_time(last->started, when, sizeof(when));
		fprintf(out, "     vs last run (%s): %s\n", when, chg);
	}
}

static void text(FILE *out, const struct kscen_run *run,
		 const struct kscen_run *last)
{
	const struct kscen_system *sys = &run->system;
	unsigned i, n[3] = { 0 };

	fprintf(out, "# kscen %s: scenario %s, %u jobs, repeat %u (warmup %u)\n",
		run->version ? run->version : KSCEN_VERSION,
		str(run->scenario), run->nr_jobs, run->repeat, run->warmup);
	fprintf(out, "# %s %s, %s, %ld CPUs\n", str(sys->kernel),
		str(sys->arch), sys->cpu_model ? sys->cpu_model : "unknown CPU",
		sys->nr_cpus);
	if (run->partial)
		fprintf(out, "# partial: the run was cut short\n");
	for (i = 0; i < run->nr_jobs; i++) {
		fputc('\n', out);
		text_job(out, run, last, &run->jobs[i]);
		n[run->jobs[i].status <= KSCEN_FAILED ? run->jobs[i].status :
						       KSCEN_FAILED]++;
	}
	fprintf(out, "\n# %u ok, %u skipped, %u failed\n", n[KSCEN_OK],
		n[KSCEN_SKIPPED], n[KSCEN_FAILED]);
}

/* ---- Markdown ---------------------------------------------------------- */

/* A table cell: a '|' would end it early, a newline the whole table. */
static void md_cell(FILE *out, const char *s)
{
	fputs("| ", out);
	for (s = str(s); *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else
			fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
	fputc(' ', out);
}

static void md_num(FILE *out, const char *fmt, double v, bool have)
{
	char buf[64] = "";

	if (have && isfinite(v))
		snprintf(buf, sizeof(buf), fmt, v);
	md_cell(out, buf);
}

static void md_job(FILE *out, const struct kscen_run *run,
		   const struct kscen_run *last,
		   const struct kscen_job_result *j)
{
	char chg[64], status[KSCEN_REASON_MAX + 16];
	const struct kscen_metric *m;
	unsigned i, rows;
	double d = 0;
	bool have;

	snprintf(status, sizeof(status), "%s%s%s", status_name(j->status),
		 j->reason ? ": " : "", str(j->reason));
	rows = j->status == KSCEN_OK && j->nr_metrics ? j->nr_metrics : 1;
	for (i = 0; i < rows; i++) {
		m = j->status == KSCEN_OK && j->nr_metrics ? &j->metrics[i] :
							     NULL;
		md_cell(out, j->id);
		md_cell(out, m ? m->name : NULL);
		md_num(out, "%.6g", m ? m->sum.median : 0, m && m->nr_samples);
		md_cell(out, m ? m->unit : NULL);
		md_num(out, "±%.1f%%", m ? spread(m) : 0, m);
		/* Deltas are for the primary metric, as in the text report. */
		have = !i && ref_delta(run, j, j->baseline, &d);
		md_num(out, "%+.3f", d, have);
		have = !i && ref_delta(run, j, j->previous, &d);
		md_num(out, "%+.3f", d, have);
		have = !i && vs_last(last, j, chg, sizeof(chg));
		md_cell(out, have ? chg : NULL);
		md_cell(out, status);
		fputs("|\n", out);
	}
}

static void markdown(FILE *out, const struct kscen_run *run,
		     const struct kscen_run *last)
{
	const struct kscen_system *sys = &run->system;
	char when[64];
	unsigned i;

	fprintf(out, "**kscen %s**: scenario `%s`, %u jobs, repeat %u (warmup %u)%s  \n",
		run->version ? run->version : KSCEN_VERSION,
		str(run->scenario), run->nr_jobs, run->repeat, run->warmup,
		run->partial ? ", cut short" : "");
	fprintf(out, "%s %s, %s, %ld CPUs", str(sys->kernel), str(sys->arch),
		str(sys->cpu_model), sys->nr_cpus);
	if (last) {
		short_time(last->started, when, sizeof(when));
		fprintf(out, "; \"vs last\" is against the run of %s", when);
	}
	fprintf(out, "\n\n| job | metric | median | unit | ±%% | to baseline "
		"| to previous | vs last | status |\n"
		"|---|---|---:|---|---:|---:|---:|---:|---|\n");
	for (i = 0; i < run->nr_jobs; i++)
		md_job(out, run, last, &run->jobs[i]);
}

/* ---- JSON -------------------------------------------------------------- */

static void json_str(FILE *out, const char *s)
{
	unsigned n;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (; *s; s += n) {
		unsigned char c = *s;

		n = 1;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c == '\r')
			fputs("\\r", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, out);
		else if ((n = kscen_utf8_len(s)))
			fwrite(s, 1, n, out);
		else	/* not UTF-8: JSON must be */
			fputs("\\ufffd", out), n = 1;
	}
	fputc('"', out);
}

static void json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.17g", v);
	else
		fputs("null", out);
}

/* "key": at @depth, the value is the caller's. */
static void jkey(FILE *out, int depth, const char *key)
{
	fprintf(out, "%*s\"%s\": ", 2 * depth, "", key);
}

static void jstr(FILE *out, int depth, const char *key, const char *v,
		 bool more)
{
	jkey(out, depth, key);
	json_str(out, v);
	fputs(more ? ",\n" : "\n", out);
}

static void jlong(FILE *out, int depth, const char *key, long v, bool more)
{
	jkey(out, depth, key);
	fprintf(out, "%ld%s", v, more ? ",\n" : "\n");
}

static void json_metric(FILE *out, const struct kscen_metric *m, bool more)
{
	const struct kscen_summary *s = &m->sum;
	unsigned i;

	fprintf(out, "        {\n");
	jstr(out, 5, "name", m->name, true);
	jstr(out, 5, "unit", m->unit, true);
	jstr(out, 5, "better", m->better == KSCEN_HIGHER ? "higher" : "lower",
	     true);
	jkey(out, 5, "samples");
	fputc('[', out);
	for (i = 0; i < m->nr_samples; i++) {
		fputs(i ? ", " : "", out);
		json_num(out, m->samples[i]);
	}
	fputs("],\n", out);
	fprintf(out, "%*s\"median\": ", 10, "");
	json_num(out, s->median);
	fputs(", \"mean\": ", out);
	json_num(out, s->mean);
	fputs(", \"stddev\": ", out);
	json_num(out, s->stddev);
	fputs(", \"min\": ", out);
	json_num(out, s->min);
	fputs(", \"max\": ", out);
	json_num(out, s->max);
	fprintf(out, "\n        }%s\n", more ? "," : "");
}

static void json_job(FILE *out, const struct kscen_job_result *j, bool more)
{
	unsigned i;

	fprintf(out, "    {\n");
	jstr(out, 3, "id", j->id, true);
	jstr(out, 3, "name", j->name, true);
	jstr(out, 3, "workload", j->workload, true);
	jkey(out, 3, "params");
	fputc('{', out);
	for (i = 0; i < j->nr_kv; i++) {
		fputs(i ? ", " : "", out);
		json_str(out, j->keys[i]);
		fputs(": ", out);
		/* Numbers as numbers, like the result file's YAML. */
		if (j->values[i] && kscen_is_number(j->values[i]))
			fputs(j->values[i], out);
		else
			json_str(out, str(j->values[i]));
	}
	fputs("},\n", out);
	jstr(out, 3, "status", status_name(j->status), true);
	jstr(out, 3, "reason", j->reason, true);
	jstr(out, 3, "describe", j->describe, true);
	jkey(out, 3, "metrics");
	fputs(j->nr_metrics ? "[\n" : "[],\n", out);
	for (i = 0; i < j->nr_metrics; i++)
		json_metric(out, &j->metrics[i], i + 1 < j->nr_metrics);
	if (j->nr_metrics)
		fprintf(out, "      ],\n");
	jstr(out, 3, "baseline", j->baseline, true);
	jstr(out, 3, "previous", j->previous, false);
	fprintf(out, "    }%s\n", more ? "," : "");
}

static void json(FILE *out, const struct kscen_run *run)
{
	const struct kscen_system *sys = &run->system;
	unsigned i;

	fputs("{\n", out);
	jstr(out, 1, "kscen", run->version, true);
	jstr(out, 1, "scenario", run->scenario, true);
	jstr(out, 1, "scenario_file", run->scenario_file, true);
	jstr(out, 1, "scenario_sha256", run->scenario_sha256, true);
	jstr(out, 1, "command", run->command, true);
	jstr(out, 1, "started", run->started, true);
	jstr(out, 1, "finished", run->finished, true);
	jkey(out, 1, "partial");
	fputs(run->partial ? "true,\n" : "false,\n", out);
	jlong(out, 1, "repeat", run->repeat, true);
	jlong(out, 1, "warmup", run->warmup, true);
	jstr(out, 1, "path", run->path, true);
	fputs("  \"system\": {\n", out);
	jstr(out, 2, "hostname", sys->hostname, true);
	jstr(out, 2, "kernel", sys->kernel, true);
	jstr(out, 2, "kernel_build", sys->kernel_build, true);
	jstr(out, 2, "arch", sys->arch, true);
	jstr(out, 2, "cpu_model", sys->cpu_model, true);
	jlong(out, 2, "nr_cpus", sys->nr_cpus, true);
	jstr(out, 2, "cmdline", sys->cmdline, true);
	jkey(out, 2, "perf_event_paranoid");
	if (sys->perf_event_paranoid == KSCEN_PARANOID_UNKNOWN)
		fputs("null\n", out);
	else
		fprintf(out, "%d\n", sys->perf_event_paranoid);
	fputs("  },\n", out);
	fputs(run->nr_jobs ? "  \"jobs\": [\n" : "  \"jobs\": []\n", out);
	for (i = 0; i < run->nr_jobs; i++)
		json_job(out, &run->jobs[i], i + 1 < run->nr_jobs);
	if (run->nr_jobs)
		fputs("  ]\n", out);
	fputs("}\n", out);
}

/* ---- CSV --------------------------------------------------------------- */

/* RFC 4180: quote a field with a comma, quote or line break; double quotes. */
static void csv_field(FILE *out, const char *s, bool more)
{
	s = str(s);
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputc(more ? ',' : '\n', out);
}

static void csv_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.17g", v);
	fputc(',', out);
}

static void csv_row(FILE *out, const struct kscen_job_result *j,
		    const struct kscen_metric *m)
{
	csv_field(out, j->id, true);
	csv_field(out, j->name, true);
	csv_field(out, j->workload, true);
	csv_field(out, status_name(j->status), true);
	if (m) {
		csv_field(out, m->name, true);
		csv_field(out, m->unit, true);
		csv_field(out, m->better == KSCEN_HIGHER ? "higher" : "lower",
			  true);
		fprintf(out, "%u,", m->nr_samples);
		csv_num(out, m->sum.median);
		csv_num(out, m->sum.mean);
		csv_num(out, m->sum.stddev);
		csv_num(out, m->sum.min);
		csv_num(out, m->sum.max);
	} else {
		fputs(",,,,,,,,,", out);
	}
	csv_field(out, j->baseline, true);
	csv_field(out, j->previous, false);
}

static void csv(FILE *out, const struct kscen_run *run)
{
	const struct kscen_job_result *j;
	unsigned i, k;

	fputs("id,name,workload,status,metric,unit,better,n,median,mean,"
	      "stddev,min,max,baseline,previous\n", out);
	for (i = 0; i < run->nr_jobs; i++) {
		j = &run->jobs[i];
		if (j->status != KSCEN_OK || !j->nr_metrics)
			csv_row(out, j, NULL);
		else
			for (k = 0; k < j->nr_metrics; k++)
				csv_row(out, j, &j->metrics[k]);
	}
}

void kscen_report(FILE *out, const struct kscen_run *run,
		  const struct kscen_run *last, enum kscen_format fmt)
{
	switch (fmt) {
	case KSCEN_FMT_MARKDOWN:
		markdown(out, run, last);
		break;
	case KSCEN_FMT_JSON:
		json(out, run);
		break;
	case KSCEN_FMT_CSV:
		csv(out, run);
		break;
	case KSCEN_FMT_TEXT:
	default:
		text(out, run, last);
		break;
	}
}

/* ---- Compare ----------------------------------------------------------- */

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
		{ "cmdline", o->cmdline, n->cmdline },
		{ "arch", o->arch, n->arch },
		{ "cpu_model", o->cpu_model, n->cpu_model },
		{ "nr_cpus", oc, nc },
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
				str(f[i].o), str(f[i].n));
}

/* A median, or why there is none. */
static void cell(const struct kscen_job_result *j, char *buf, size_t len)
{
	const struct kscen_metric *m = primary(j);

	if (m)
		snprintf(buf, len, "%.6f", m->sum.median);
	else
		snprintf(buf, len, "%s", j->status == KSCEN_OK ? "-" :
					 status_name(j->status));
}

void kscen_compare_print(FILE *out, const struct kscen_run *old,
			 const struct kscen_run *new_)
{
	const struct kscen_job_result *o, *n;
	char ocell[64], ncell[64], chg[64], lbl[128];
	unsigned i, w = 5, both = 0, only_old = 0, only_new = 0;
	struct change c;

	for (i = 0; i < new_->nr_jobs; i++)
		if (strlen(str(new_->jobs[i].id)) > w)
			w = strlen(str(new_->jobs[i].id));
	fprintf(out, "# old: %s (%s)\n", str(old->path), str(old->started));
	fprintf(out, "# new: %s (%s)\n", str(new_->path), str(new_->started));
	env_diff(out, old, new_);
	fprintf(out, "%-*s %14s %14s %9s  %s\n", (int)w, "# job", "old",
		"new", "change", "metric");

	for (i = 0; i < new_->nr_jobs; i++) {
		n = &new_->jobs[i];
		o = kscen_run_find(old, n->id);
		if (!o)
			continue;
		both++;
		cell(o, ocell, sizeof(ocell));
		cell(n, ncell, sizeof(ncell));
		chg[0] = lbl[0] = '\0';
		if (primary(n)) {
			label(primary(n), lbl, sizeof(lbl));
			if (compute_change(find_metric(o, primary(n)->name),
					   primary(n), &c))
				format_change(&c, chg, sizeof(chg));
		}
		fprintf(out, "%-*s %14s %14s %9s  %s\n", (int)w, str(n->id),
			ocell, ncell, chg, lbl);
	}
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
}
