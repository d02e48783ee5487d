// SPDX-License-Identifier: GPL-2.0
/*
 * runmodel.c - the run model described once: a table of fields for each
 * kind of record a stored run holds (the run, its system, its shards, its
 * jobs, their metrics, a job's profile); the YAML writer that walks them is
 * runmodel_write.c. The reader (result_load.c), the JSON and CSV reports
 * (report/json.c, report/csv.c), the environment diff (envdiff.c) and
 * kscen_run_free() walk them too.
 *
 * To add a field: add it to the struct in run.h and one line to its table
 * below, where it goes in the file (the tables' order is the files' order).
 * Its type says how it is written, read, printed and freed; its flags when
 * (KF_OPTIONAL: only when set); its json/csv/env numbers where it appears in
 * those outputs, 0 for not at all. Only what no type fits (lists, nested
 * records) is a KF_HOOK, with a case in each walker.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/util.h"
#include "profile.h"
#include "runmodel.h"

const char *const kscen_status_names[] = { "ok", "skipped", "failed" };
const char *const kscen_better_names[] = { "lower", "higher" };

/* ---- The tables --------------------------------------------------------- */

/* key, type, member, flags, json, csv, env position */
#define F(s, k, t, m, fl, j, c, e) \
	{ k, KF_##t, offsetof(struct s, m), fl, j, c, e, KH_NONE }
#define HOOK(k, h, fl, j, c) { k, KF_HOOK, 0, fl, j, c, 0, h }

#define R(...) F(kscen_run, __VA_ARGS__)
static const struct kscen_field run_fields[] = {
	R("kscen", STR, version, 0, 1, 0, 19),
	R("kscen_describe", STR, describe, 0, 16, 0, 20),
	R("scenario", STR, scenario, KF_REQUIRED, 2, 0, 0),
	R("label", STR, label, 0, 15, 0, 0),
	R("scenario_file", STR, scenario_file, 0, 3, 0, 0),
	R("scenario_sha256", STR, scenario_sha256, 0, 4, 0, 21),
	R("command", STR, command, 0, 5, 0, 0),
	R("started", STR, started, 0, 6, 0, 0),
	R("finished", STR, finished, 0, 7, 0, 0),
	R("filter", STR, filter, 0, 17, 0, 0),
	R("compare", STR, compare, 0, 0, 0, 0),
	R("partial", BOOL, partial, 0, 8, 0, 0),
	R("shard", STR, shard, KF_OPTIONAL, 0, 0, 0),
	R("shard_balance", STR, shard_balance, KF_OPTIONAL, 0, 0, 0),
	HOOK("shards", KH_SHARDS, KF_OPTIONAL, 0, 0),
	R("missing_shards", STR, missing_shards, KF_OPTIONAL, 0, 0, 0),
	R("repeat", UINT, repeat, 0, 10, 0, 0),
	R("warmup", UINT, warmup, 0, 11, 0, 0),
	R("max_repeat", UINT, max_repeat, KF_AUTO, 12, 0, 0),
	R("until_ci", DOUBLE, until_ci, KF_AUTO | KF_JSON_ZERO, 13, 0, 0),
	R("test_hooks", STR, test_hooks, KF_OPTIONAL | KF_JSON_OPT, 9, 0, 0),
	R("scenario_text", STR, scenario_text, KF_OPTIONAL | KF_BLOCK, 0, 0, 0),
	R("system_check", STR, system_check, KF_OPTIONAL | KF_JSON_OPT, 18, 0, 0),
	HOOK("system", KH_SYSTEM, 0, 0, 0),
	HOOK("jobs", KH_JOBS, KF_REQUIRED, 0, 0),
	R("path", STR, path, KF_NOFILE, 14, 0, 0),
};

#define S(...) F(kscen_system, __VA_ARGS__)
static const struct kscen_field system_fields[] = {
	S("hostname", STR, hostname, 0, 1, 0, 1),
	S("kernel", STR, kernel, 0, 2, 0, 2),
	S("kernel_build", STR, kernel_build, 0, 3, 0, 3),
	S("arch", STR, arch, 0, 4, 0, 6),
	S("cpu_model", STR, cpu_model, 0, 5, 0, 7),
	S("nr_cpus", LONG, nr_cpus, 0, 6, 0, 9),
	S("cmdline", STR, cmdline, KF_TOKENS, 7, 0, 5),
	S("perf_event_paranoid", PARANOID, perf_event_paranoid, 0, 8, 0, 18),
	S("governor", STR, governor, 0, 9, 0, 10),
	S("smt", STR, smt, 0, 10, 0, 13),
	S("mitigations", STR, mitigations, KF_TOKENS, 11, 0, 14),
	S("thp", STR, thp, 0, 12, 0, 15),
	S("config_sha256", STR, config_sha256, 0, 13, 0, 4),
	S("isolcpus", STR, isolcpus, 0, 14, 0, 16),
	S("nohz_full", STR, nohz_full, 0, 15, 0, 17),
	S("loadavg", STR, loadavg, 0, 16, 0, 0),
	S("microcode", STR, microcode, 0, 17, 0, 8),
	S("scaling_driver", STR, scaling_driver, 0, 18, 0, 11),
	S("boost", STR, boost, 0, 19, 0, 12),
};

/* One shard of a merged run (merge.c). */
#define H(...) F(kscen_shard_rec, __VA_ARGS__)
static const struct kscen_field shard_fields[] = {
	H("shard", STR, shard, KF_REQUIRED, 0, 0, 0),
	H("path", STR, path, 0, 0, 0, 0),
	H("hostname", STR, hostname, 0, 0, 0, 0),
	H("kernel", STR, kernel, 0, 0, 0, 0),
	H("started", STR, started, 0, 0, 0, 0),
};

/* JSON puts its "deltas" at position 9, between metrics and converged. */
#define J(...) F(kscen_job_result, __VA_ARGS__)
static const struct kscen_field job_fields[] = {
	J("id", STR, id, KF_REQUIRED, 1, 1, 0),
	J("name", STR, name, 0, 2, 2, 0),
	J("workload", STR, workload, 0, 3, 3, 0),
	J("workload_version", UINT, workload_version, KF_OPTIONAL, 0, 0, 0),
	J("module", STR, module, KF_OPTIONAL, 0, 0, 0),
	J("module_sha256", STR, module_sha256, KF_OPTIONAL, 0, 0, 0),
	HOOK("params", KH_PARAMS, 0, 4, 0),
	HOOK("effective", KH_EFFECTIVE, KF_OPTIONAL, 0, 0),
	J("status", STATUS, status, KF_REQUIRED, 5, 4, 0),
	J("reason", STR, reason, 0, 6, 0, 0),
	J("describe", STR, describe, KF_OPTIONAL, 7, 0, 0),
	HOOK("metrics", KH_METRICS, 0, 8, 0),
	J("baseline", STR, baseline, 0, 11, 14, 0),
	J("previous", STR, previous, 0, 12, 15, 0),
	J("reference", STR, reference, KF_OPTIONAL, 0, 0, 0),
	J("seconds", DOUBLE, seconds, KF_OPTIONAL, 0, 0, 0),
	J("plan_pos", UINT, plan_pos, KF_OPTIONAL, 0, 0, 0),
	J("converged", TRI, converged, KF_OPTIONAL, 10, 0, 0),
	HOOK("profile", KH_PROFILE, KF_OPTIONAL, 0, 0),
	HOOK("noise", KH_NOISE, KF_OPTIONAL, 13, 0),
};

/* CSV: a row a metric, its job's columns around its own. */
#define M(...) F(kscen_metric, __VA_ARGS__)
static const struct kscen_field metric_fields[] = {
	M("name", STR, name, KF_REQUIRED, 1, 5, 0),
	M("unit", STR, unit, 0, 2, 6, 0),
	M("better", BETTER, better, 0, 3, 7, 0),
	HOOK("samples", KH_SAMPLES, 0, 4, 8),
	M("median", DOUBLE, sum.median, 0, 5, 9, 0),
	M("mean", DOUBLE, sum.mean, 0, 6, 10, 0),
	M("stddev", DOUBLE, sum.stddev, 0, 7, 11, 0),
	M("min", DOUBLE, sum.min, 0, 8, 12, 0),
	M("max", DOUBLE, sum.max, 0, 9, 13, 0),
	M("cv", DOUBLE, sum.cv, 0, 10, 16, 0),
	M("ci_low", DOUBLE, sum.ci_lo, 0, 11, 17, 0),
	M("ci_high", DOUBLE, sum.ci_hi, 0, 12, 18, 0),
	M("outliers", UINT, sum.outliers, 0, 13, 19, 0),
	M("bimodal", BOOL, sum.bimodal, 0, 14, 20, 0),
};

/*
 * A job's profile (profile.h): where it came from, what was lost, and its
 * top symbols; the folded stacks themselves go beside the run
 * (<run>.profiles/), not in it. One with a reason ends there.
 */
#define P(...) F(kscen_profile, __VA_ARGS__)
static const struct kscen_field profile_fields[] = {
	P("source", STR, source, 0, 0, 0, 0),
	P("reason", STR, reason, KF_OPTIONAL, 0, 0, 0),
	P("event", STR, event, 0, 0, 0, 0),
	P("frequency", UINT, frequency, 0, 0, 0, 0),
	P("scope", STR, scope, 0, 0, 0, 0),
	P("stacks", STR, stacks, 0, 0, 0, 0),
	P("top", UINT, top, 0, 0, 0, 0),
	P("samples", LONG, samples, 0, 0, 0, 0),
	P("map_full", LONG, map_full, 0, 0, 0, 0),
	P("kernel_stacks_lost", LONG, kstack_lost, 0, 0, 0, 0),
	P("user_stacks_lost", LONG, ustack_lost, 0, 0, 0, 0),
	P("value", DOUBLE, value, 0, 0, 0, 0),
	P("note", STR, note, KF_OPTIONAL, 0, 0, 0),
	HOOK("objects", KH_OBJECTS, 0, 0, 0),
	HOOK("symbols", KH_SYMBOLS, 0, 0, 0),
};

/* Read by this table; written by write_symbols() (flow style, rounded). */
#define Y(...) F(kscen_profile_sym, __VA_ARGS__)
static const struct kscen_field psym_fields[] = {
	Y("symbol", STR, name, KF_REQUIRED, 0, 0, 0),
	Y("kernel", BOOL, kernel, 0, 0, 0, 0),
	Y("self", DOUBLE, self, KF_REQUIRED, 0, 0, 0),
	Y("children", DOUBLE, children, 0, 0, 0, 0),
};

/*
 * A job's noise (sample/noise.c): its policy, what it did, and a record a
 * sample taken, one line each in flow style. CSV has the counts, after the
 * metric's columns.
 */
#define N(...) F(kscen_noise_rec, __VA_ARGS__)
static const struct kscen_field noise_fields[] = {
	N("policy", STR, policy, 0, 1, 21, 0),
	N("disturbed", UINT, disturbed, 0, 2, 22, 0),
	N("dropped", UINT, dropped, 0, 3, 23, 0),
	HOOK("samples", KH_NSAMPLES, 0, 4, 0),
};

/* Written in flow style, only what is known and set. */
#define Z(...) F(kscen_sample_rec, __VA_ARGS__)
static const struct kscen_field sample_fields[] = {
	Z("round", UINT, round, KF_REQUIRED, 1, 0, 0),
	Z("value", DOUBLE, value, 0, 2, 0, 0),
	Z("dropped", BOOL, dropped, KF_OPTIONAL, 3, 0, 0),
	Z("disturbed", BOOL, disturbed, KF_OPTIONAL, 4, 0, 0),
	Z("cause", STR, cause, KF_OPTIONAL, 5, 0, 0),
	Z("seconds", DOUBLE, seconds, KF_OPTIONAL, 6, 0, 0),
	Z("steal", DOUBLE, steal, KF_OPTIONAL, 7, 0, 0),
	Z("lost", DOUBLE, lost, KF_OPTIONAL, 8, 0, 0),
	Z("other", DOUBLE, other, KF_OPTIONAL, 9, 0, 0),
	Z("vcsw", LONG, vcsw, KF_OPTIONAL, 10, 0, 0),
	Z("ivcsw", LONG, ivcsw, KF_OPTIONAL, 11, 0, 0),
	Z("migrations", LONG, migrations, KF_OPTIONAL, 12, 0, 0),
	Z("irq", LONG, irq, KF_OPTIONAL, 13, 0, 0),
	Z("softirq", LONG, softirq, KF_OPTIONAL, 14, 0, 0),
	Z("mhz", DOUBLE, mhz, KF_OPTIONAL, 15, 0, 0),
	Z("throttled", LONG, throttled, KF_OPTIONAL, 16, 0, 0),
	Z("planted", BOOL, planted, KF_OPTIONAL, 17, 0, 0),
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))
const struct kscen_record kscen_records[KREC_NR] = {
	[KREC_RUN] = { "result", run_fields, NR(run_fields) },
	[KREC_SYSTEM] = { "system", system_fields, NR(system_fields) },
	[KREC_SHARD] = { "shard", shard_fields, NR(shard_fields) },
	[KREC_JOB] = { "job", job_fields, NR(job_fields) },
	[KREC_METRIC] = { "metric", metric_fields, NR(metric_fields) },
	[KREC_PROFILE] = { "profile", profile_fields, NR(profile_fields) },
	[KREC_PSYM] = { "symbol", psym_fields, NR(psym_fields) },
	[KREC_NOISE] = { "noise", noise_fields, NR(noise_fields) },
	[KREC_SAMPLE] = { "sample", sample_fields, NR(sample_fields) },
};

const struct kscen_field *kscen_field_at(enum kscen_rec rec, size_t posoff,
					 unsigned pos)
{
	const struct kscen_record *r = &kscen_records[rec];

	for (unsigned i = 0; pos && i < r->nr; i++)
		if (*((const unsigned char *)&r->fields[i] + posoff) == pos)
			return &r->fields[i];
	return NULL;
}

bool kscen_field_is_set(const struct kscen_field *f, const void *base)
{
	const void *p = kscen_field_cptr(f, base);
	const struct kscen_run *run = base;
	const struct kscen_job_result *j = base;

	switch (f->type) {
	case KF_STR:
		return *(char *const *)p;
	case KF_UINT:
		return *(const unsigned *)p;
	case KF_BOOL:
		return *(const bool *)p;
	case KF_LONG:
		return *(const long *)p >= 0;
	case KF_DOUBLE:
		return isfinite(*(const double *)p);
	case KF_TRI:
		return *(const int *)p >= 0;
	case KF_HOOK:
		return f->hook == KH_SHARDS ? run->nr_shards :
		       f->hook == KH_EFFECTIVE ? j->nr_eff :
		       f->hook == KH_PROFILE ? j->profile != NULL :
		       f->hook == KH_NOISE ? j->noise != NULL : true;
	default:
		return true;
	}
}

void kscen_sample_rec_init(struct kscen_sample_rec *s)
{
	memset(s, 0, sizeof(*s));
	s->value = s->seconds = s->steal = s->lost = s->other = s->mhz = NAN;
	s->vcsw = s->ivcsw = s->migrations = s->irq = s->softirq = -1;
	s->throttled = -1;
}

bool kscen_rounds_whole(const struct kscen_job_result *j)
{
	unsigned kept = 0;

	for (unsigned i = 0; j->noise && i < j->noise->nr_samples; i++)
		if (!j->noise->samples[i].dropped && j->noise->samples[i].round != ++kept)
			return false;
	return true;
}

static unsigned status_index(enum kscen_status s)
{
	return s <= KSCEN_FAILED ? s : KSCEN_FAILED;
}

const char *kscen_field_text(const struct kscen_field *f, const void *base,
			     char *buf, size_t len)
{
	const void *p = kscen_field_cptr(f, base);

	switch (f->type) {
	case KF_STR:
		return *(char *const *)p;
	case KF_BOOL:
		return *(const bool *)p ? "true" : "false";
	case KF_UINT:
		snprintf(buf, len, "%u", *(const unsigned *)p);
		return buf;
	case KF_LONG:
		snprintf(buf, len, "%ld", *(const long *)p);
		return buf;
	case KF_PARANOID:
		if (*(const int *)p == KSCEN_PARANOID_UNKNOWN)
			return "unknown";
		snprintf(buf, len, "%d", *(const int *)p);
		return buf;
	case KF_DOUBLE:
		if (!isfinite(*(const double *)p))
			return NULL;
		snprintf(buf, len, "%.17g", *(const double *)p);
		return buf;
	case KF_STATUS:
		return kscen_status_names[status_index(*(const enum kscen_status *)p)];
	case KF_BETTER:
		return kscen_better_names[*(const enum kscen_better *)p == KSCEN_HIGHER];
	case KF_TRI:
		return *(const int *)p < 0 ? NULL : *(const int *)p ? "true" : "false";
	case KF_HOOK:
		break;
	}
	return NULL;
}

/* ---- Parsing ------------------------------------------------------------ */

static int parse_ll(const char *s, long long min, long long max, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	if (errno || end == s || *end || *s == ' ' || *v < min || *v > max)
		return -EINVAL;
	return 0;
}

int kscen_parse_double(const char *s, double *v)
{
	char *end;
	const char *p = s + (*s == '-' || *s == '+');

	if (!strcmp(p, ".nan") || !strcmp(p, ".NaN") || !strcmp(p, ".NAN")) {
		*v = NAN;
		return 0;
	}
	if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) {
		*v = *s == '-' ? -INFINITY : INFINITY;
		return 0;
	}
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end || *s == ' ' || (errno && !isfinite(*v)))
		return -EINVAL;
	return 0;
}

static int lookup(const char *s, const char *const *names, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

const char *kscen_field_parse(const struct kscen_field *f, void *base,
			      const char *s, bool null)
{
	void *p = kscen_field_ptr(f, base);
	long long v;
	double d;
	int i;

	if (null && !(f->flags & KF_REQUIRED)) {
		switch (f->type) {
		case KF_STR:
			return NULL;
		case KF_PARANOID:
			*(int *)p = KSCEN_PARANOID_UNKNOWN;
			return NULL;
		case KF_DOUBLE:
			*(double *)p = NAN;	/* the summary of no samples */
			return NULL;
		default:
			break;
		}
	}
	switch (f->type) {
	case KF_STR:
		if (null)
			break;
		*(char **)p = kscen_xstrdup(s);
		return NULL;
	case KF_BOOL:
	case KF_TRI:
		if ((i = lookup(s, (const char *[]){ "false", "true" }, 2)) < 0)
			return "expected true or false";
		if (f->type == KF_BOOL)
			*(bool *)p = i;
		else
			*(int *)p = i;
		return NULL;
	case KF_UINT:
		if (parse_ll(s, 0, UINT_MAX, &v))
			return "expected a count";
		*(unsigned *)p = v;
		return NULL;
	case KF_LONG:
	case KF_PARANOID:
		if (parse_ll(s, f->type == KF_LONG ? LONG_MIN : INT_MIN,
			     f->type == KF_LONG ? LONG_MAX : INT_MAX, &v))
			return "expected an integer";
		if (f->type == KF_LONG)
			*(long *)p = v;
		else
			*(int *)p = v;
		return NULL;
	case KF_DOUBLE:
		if (kscen_parse_double(s, &d))
			return "expected a number";
		*(double *)p = d;
		return NULL;
	case KF_STATUS:
		if ((i = lookup(s, kscen_status_names, 3)) < 0)
			return "expected ok, skipped or failed";
		*(enum kscen_status *)p = i;
		return NULL;
	case KF_BETTER:
		if ((i = lookup(s, kscen_better_names, 2)) < 0)
			return "expected lower or higher";
		*(enum kscen_better *)p = i;
		return NULL;
	case KF_HOOK:
		break;
	}
	return "must not be null";
}

/* ---- Freeing ------------------------------------------------------------ */

static void free_kv(char **keys, char **values, unsigned nr)
{
	for (unsigned k = 0; k < nr; k++) {
		free(keys[k]);
		free(values[k]);
	}
	free(keys);
	free(values);
}

static void free_hook(enum kscen_hook h, void *base)
{
	struct kscen_run *run = base;
	struct kscen_job_result *j = base;
	struct kscen_metric *m = base;
	struct kscen_noise_rec *n = base;
	unsigned i;

	switch (h) {
	case KH_NOISE:
		if (j->noise)
			kscen_rec_free(KREC_NOISE, j->noise);
		free(j->noise);
		break;
	case KH_NSAMPLES:
		for (i = 0; i < n->nr_samples; i++)
			kscen_rec_free(KREC_SAMPLE, &n->samples[i]);
		free(n->samples);
		break;
	case KH_SHARDS:
		for (i = 0; i < run->nr_shards; i++)
			kscen_rec_free(KREC_SHARD, &run->shards[i]);
		free(run->shards);
		break;
	case KH_SYSTEM:
		kscen_system_fini(&run->system);
		break;
	case KH_JOBS:
		for (i = 0; i < run->nr_jobs; i++)
			kscen_rec_free(KREC_JOB, &run->jobs[i]);
		free(run->jobs);
		break;
	case KH_PARAMS:
		free_kv(j->keys, j->values, j->nr_kv);
		break;
	case KH_EFFECTIVE:
		free_kv(j->eff_keys, j->eff_values, j->nr_eff);
		break;
	case KH_METRICS:
		for (i = 0; i < j->nr_metrics; i++)
			kscen_rec_free(KREC_METRIC, &j->metrics[i]);
		free(j->metrics);
		break;
	case KH_PROFILE:
		kscen_profile_free(j->profile);
		break;
	case KH_SAMPLES:
		free(m->samples);
		break;
	default:	/* the profile's own: kscen_profile_free() */
		break;
	}
}

void kscen_rec_free(enum kscen_rec rec, void *base)
{
	const struct kscen_record *r = &kscen_records[rec];

	for (unsigned i = 0; i < r->nr; i++) {
		const struct kscen_field *f = &r->fields[i];

		if (f->type == KF_STR)
			free(*(char **)kscen_field_ptr(f, base));
		else if (f->type == KF_HOOK)
			free_hook(f->hook, base);
	}
}

void kscen_run_free(struct kscen_run *run)
{
	if (!run)
		return;
	kscen_rec_free(KREC_RUN, run);
	free(run);
}

void kscen_system_fini(struct kscen_system *sys)
{
	kscen_rec_free(KREC_SYSTEM, sys);
	memset(sys, 0, sizeof(*sys));
	sys->perf_event_paranoid = KSCEN_PARANOID_UNKNOWN;
}

const struct kscen_metric *kscen_primary(const struct kscen_job_result *j)
{
	if (!j || j->status != KSCEN_OK || !j->nr_metrics ||
	    !j->metrics[0].nr_samples)
		return NULL;
	return &j->metrics[0];
}

const struct kscen_metric *kscen_find_metric(const struct kscen_job_result *j,
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
