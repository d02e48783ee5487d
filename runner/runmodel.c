// SPDX-License-Identifier: GPL-2.0
/*
 * runmodel.c - the run model described once: a table of fields for each
 * kind of record a stored run holds (the run, its system, its shards, its
 * jobs, their metrics, a job's profile), and the YAML writer that walks
 * them. The reader (result_load.c), the JSON and CSV reports (report.c),
 * the environment diff (envdiff.c) and kscen_run_free() walk them too.
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

#include "util.h"
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
	HOOK("shards", KH_SHARDS, KF_OPTIONAL, 0, 0),
	R("missing_shards", STR, missing_shards, KF_OPTIONAL, 0, 0, 0),
	R("repeat", UINT, repeat, 0, 10, 0, 0),
	R("warmup", UINT, warmup, 0, 11, 0, 0),
	R("max_repeat", UINT, max_repeat, KF_AUTO, 12, 0, 0),
	R("until_ci", DOUBLE, until_ci, KF_AUTO | KF_JSON_ZERO, 13, 0, 0),
	R("test_hooks", STR, test_hooks, KF_OPTIONAL | KF_JSON_OPT, 9, 0, 0),
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
	HOOK("params", KH_PARAMS, 0, 4, 0),
	HOOK("effective", KH_EFFECTIVE, KF_OPTIONAL, 0, 0),
	J("status", STATUS, status, KF_REQUIRED, 5, 4, 0),
	J("reason", STR, reason, 0, 6, 0, 0),
	J("describe", STR, describe, KF_OPTIONAL, 7, 0, 0),
	HOOK("metrics", KH_METRICS, 0, 8, 0),
	J("baseline", STR, baseline, 0, 11, 14, 0),
	J("previous", STR, previous, 0, 12, 15, 0),
	J("reference", STR, reference, KF_OPTIONAL, 0, 0, 0),
	J("converged", TRI, converged, KF_OPTIONAL, 10, 0, 0),
	HOOK("profile", KH_PROFILE, KF_OPTIONAL, 0, 0),
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

#define NR(a) (sizeof(a) / sizeof((a)[0]))
const struct kscen_record kscen_records[KREC_NR] = {
	[KREC_RUN] = { "result", run_fields, NR(run_fields) },
	[KREC_SYSTEM] = { "system", system_fields, NR(system_fields) },
	[KREC_SHARD] = { "shard", shard_fields, NR(shard_fields) },
	[KREC_JOB] = { "job", job_fields, NR(job_fields) },
	[KREC_METRIC] = { "metric", metric_fields, NR(metric_fields) },
	[KREC_PROFILE] = { "profile", profile_fields, NR(profile_fields) },
	[KREC_PSYM] = { "symbol", psym_fields, NR(psym_fields) },
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
	unsigned i;

	switch (h) {
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

/* ---- Writing YAML ------------------------------------------------------- */
struct writer {
	yaml_emitter_t e;
	bool failed;
};

/* @ok is what the event's initializer returned; errors are sticky. */
static void emit(struct writer *w, yaml_event_t *ev, int ok)
{
	if (!ok) {
		w->failed = true;
	} else if (w->failed) {
		yaml_event_delete(ev);
	} else if (!yaml_emitter_emit(&w->e, ev)) {
		w->failed = true;	/* the emitter freed the event */
	}
}

static void map_start(struct writer *w)
{
	yaml_event_t ev;

	emit(w, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
						YAML_BLOCK_MAPPING_STYLE));
}

static void map_end(struct writer *w)
{
	yaml_event_t ev;

	emit(w, &ev, yaml_mapping_end_event_initialize(&ev));
}

static void seq_start(struct writer *w, bool flow)
{
	yaml_event_t ev;

	emit(w, &ev, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_SEQUENCE_STYLE :
			       YAML_BLOCK_SEQUENCE_STYLE));
}

static void seq_end(struct writer *w)
{
	yaml_event_t ev;

	emit(w, &ev, yaml_sequence_end_event_initialize(&ev));
}

static void scalar(struct writer *w, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	emit(w, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL,
			(yaml_char_t *)s, strlen(s), 1, 1, style));
}

/*
 * libyaml only checks that a plain scalar parses; whether a reader then
 * types it is the resolver's business. Quote what a YAML 1.1 or 1.2 reader
 * (PyYAML, yq) would not read back as a string: "", "null", "yes", "off",
 * "6.1", "2026-12-02T10:15:03Z" (a 1.1 timestamp), "0x10", ".inf".
 */
static bool looks_typed(const char *s)
{
	static const char *const words[] = {
		"~", "null", "Null", "NULL", "true", "True", "TRUE", "false",
		"False", "FALSE", "y", "Y", "yes", "Yes", "YES", "n", "N", "no",
		"No", "NO", "on", "On", "ON", "off", "Off", "OFF", "=", "<<",
	};
	unsigned i;

	if (!*s)
		return true;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(s, words[i]))
			return true;
	if (*s == '+' || *s == '-')
		s++;
	return (*s >= '0' && *s <= '9') || *s == '.';
}

/* A copy of @s with malformed UTF-8 replaced by U+FFFD; NULL if @s is fine. */
static char *utf8_fix(const char *s)
{
	size_t i, o = 0, bad = 0;
	unsigned n;
	char *d;

	for (i = 0; s[i]; i += n ? n : 1)
		bad += !(n = kscen_utf8_len(s + i));
	if (!bad)
		return NULL;
	d = kscen_xmalloc(i + 2 * bad + 1);
	for (i = 0; s[i]; i += n ? n : 1) {
		n = kscen_utf8_len(s + i);
		if (n) {
			memcpy(d + o, s + i, n);
			o += n;
		} else {
			memcpy(d + o, "\xef\xbf\xbd", 3);
			o += 3;
		}
	}
	d[o] = '\0';
	return d;
}

static void put_str(struct writer *w, const char *s)
{
	char *fixed;

	if (!s)
		return scalar(w, "null", YAML_PLAIN_SCALAR_STYLE);
	fixed = utf8_fix(s);
	if (fixed)
		s = fixed;
	/* Single quotes become double quotes where escapes are needed. */
	scalar(w, s, looks_typed(s) ? YAML_SINGLE_QUOTED_SCALAR_STYLE :
		     YAML_ANY_SCALAR_STYLE);
	free(fixed);
}

/* Parameter values are text, but "4" should read as 4 to other tools too. */
static void put_param(struct writer *w, const char *v)
{
	if (v && (kscen_is_number(v) || !strcmp(v, "true") ||
		  !strcmp(v, "false")))
		scalar(w, v, YAML_PLAIN_SCALAR_STYLE);
	else
		put_str(w, v ? v : "");
}

/* The shortest text that strtod() turns back into exactly @v. */
static void fmt_double(char *buf, size_t len, double v)
{
	char *e;
	int p;

	if (isnan(v)) {
		snprintf(buf, len, ".nan");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v < 0 ? "-.inf" : ".inf");
		return;
	}
	for (p = 1; p <= 17; p++) {
		snprintf(buf, len, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* YAML 1.1 floats need a dot: PyYAML reads "1e+20" as a string. */
	e = strchr(buf, 'e');
	if (e && !strchr(buf, '.') && strlen(buf) + 2 < len) {
		memmove(e + 2, e, strlen(e) + 1);
		memcpy(e, ".0", 2);
	}
}

static void put_double(struct writer *w, double v)
{
	char buf[48];

	fmt_double(buf, sizeof(buf), v);
	scalar(w, buf, YAML_PLAIN_SCALAR_STYLE);
}

static void put_long(struct writer *w, long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%ld", v);
	scalar(w, buf, YAML_PLAIN_SCALAR_STYLE);
}

static void kv_str(struct writer *w, const char *k, const char *v)
{
	put_str(w, k);
	put_str(w, v);
}

static void kv_double(struct writer *w, const char *k, double v)
{
	put_str(w, k);
	put_double(w, v);
}


static void put_bool(struct writer *w, bool v)
{
	scalar(w, v ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
}

static void write_fields(struct writer *w, enum kscen_rec rec, const void *base,
			 unsigned nr);

static void write_rec(struct writer *w, enum kscen_rec rec, const void *base)
{
	map_start(w);
	write_fields(w, rec, base, kscen_records[rec].nr);
	map_end(w);
}

/* params and effective: a mapping of parameters. */
static void write_kv(struct writer *w, char *const *keys, char *const *values,
		     unsigned nr)
{
	map_start(w);
	for (unsigned i = 0; i < nr; i++) {
		put_str(w, keys[i]);
		put_param(w, values[i]);
	}
	map_end(w);
}

/* Top symbols by self %, rounded to 0.01%, in flow style. */
static void write_symbols(struct writer *w, const struct kscen_profile *p)
{
	yaml_event_t ev;

	seq_start(w, false);
	for (unsigned i = 0; i < p->nr_sym; i++) {
		const struct kscen_profile_sym *s = &p->sym[i];

		emit(w, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
						YAML_FLOW_MAPPING_STYLE));
		kv_double(w, "self", round(s->self * 100) / 100);
		if (p->children)
			kv_double(w, "children", round(s->children * 100) / 100);
		put_str(w, "kernel");
		put_bool(w, s->kernel);
		kv_str(w, "symbol", s->name);
		map_end(w);
	}
	seq_end(w);
}

static void write_hook(struct writer *w, enum kscen_hook h, const void *base)
{
	const struct kscen_run *run = base;
	const struct kscen_job_result *j = base;
	const struct kscen_metric *m = base;
	const struct kscen_profile *p = base;
	unsigned i;

	switch (h) {
	case KH_SYSTEM:
		write_rec(w, KREC_SYSTEM, &run->system);
		return;
	case KH_PARAMS:
		write_kv(w, j->keys, j->values, j->nr_kv);
		return;
	case KH_EFFECTIVE:
		write_kv(w, j->eff_keys, j->eff_values, j->nr_eff);
		return;
	case KH_PROFILE:
		/* One that says why there is none ends there: source, reason. */
		map_start(w);
		write_fields(w, KREC_PROFILE, j->profile, j->profile->reason ?
			     2 : kscen_records[KREC_PROFILE].nr);
		map_end(w);
		return;
	case KH_SYMBOLS:
		write_symbols(w, p);
		return;
	default:
		break;
	}
	seq_start(w, h == KH_SAMPLES);
	if (h == KH_SHARDS)
		for (i = 0; i < run->nr_shards; i++)
			write_rec(w, KREC_SHARD, &run->shards[i]);
	else if (h == KH_JOBS)
		for (i = 0; i < run->nr_jobs; i++)
			write_rec(w, KREC_JOB, &run->jobs[i]);
	else if (h == KH_METRICS)
		for (i = 0; i < j->nr_metrics; i++)
			write_rec(w, KREC_METRIC, &j->metrics[i]);
	else if (h == KH_SAMPLES)
		for (i = 0; i < m->nr_samples; i++)
			put_double(w, m->samples[i]);
	else if (h == KH_OBJECTS)
		for (i = 0; i < p->nr_objects; i++)
			put_str(w, p->objects[i]);
	seq_end(w);
}

/* Is optional field @f set, that is, worth writing? */
static bool is_set(const struct kscen_field *f, const void *base)
{
	const void *p = kscen_field_cptr(f, base);
	const struct kscen_run *run = base;
	const struct kscen_job_result *j = base;

	switch (f->type) {
	case KF_STR:
		return *(char *const *)p;
	case KF_UINT:
		return *(const unsigned *)p;
	case KF_TRI:
		return *(const int *)p >= 0;
	case KF_HOOK:
		return f->hook == KH_SHARDS ? run->nr_shards :
		       f->hook == KH_EFFECTIVE ? j->nr_eff :
		       f->hook == KH_PROFILE ? j->profile != NULL : true;
	default:
		return true;
	}
}

/* The first @nr fields of record @rec at @base, as key: value pairs. */
static void write_fields(struct writer *w, enum kscen_rec rec, const void *base,
			 unsigned nr)
{
	const struct kscen_field *f = kscen_records[rec].fields;

	for (; nr--; f++) {
		const void *p = kscen_field_cptr(f, base);

		if ((f->flags & KF_NOFILE) ||
		    ((f->flags & KF_OPTIONAL) && !is_set(f, base)) ||
		    ((f->flags & KF_AUTO) &&
		     !(((const struct kscen_run *)base)->until_ci > 0)))
			continue;
		put_str(w, f->key);
		switch (f->type) {
		case KF_STR:
			put_str(w, *(char *const *)p);
			break;
		case KF_UINT:
			put_long(w, *(const unsigned *)p);
			break;
		case KF_LONG:
			put_long(w, *(const long *)p);
			break;
		case KF_PARANOID:
			if (*(const int *)p == KSCEN_PARANOID_UNKNOWN)
				put_str(w, NULL);
			else
				put_long(w, *(const int *)p);
			break;
		case KF_DOUBLE:
			put_double(w, *(const double *)p);
			break;
		case KF_BOOL:
		case KF_TRI:
			put_bool(w, !strcmp(kscen_field_text(f, base, NULL, 0),
					    "true"));
			break;
		case KF_STATUS:
		case KF_BETTER:
			put_str(w, kscen_field_text(f, base, NULL, 0));
			break;
		case KF_HOOK:
			write_hook(w, f->hook, base);
			break;
		}
	}
}

int kscen_run_write_yaml(FILE *f, const struct kscen_run *run)
{
	struct writer w = { .failed = false };
	yaml_event_t ev;
	int ret = 0;

	if (!yaml_emitter_initialize(&w.e))
		return -ENOMEM;
	yaml_emitter_set_output_file(&w.e, f);
	yaml_emitter_set_unicode(&w.e, 1);
	yaml_emitter_set_width(&w.e, -1);	/* keep cmdline on one line */

	emit(&w, &ev, yaml_stream_start_event_initialize(&ev,
							  YAML_UTF8_ENCODING));
	emit(&w, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL,
							    NULL, 1));
	write_rec(&w, KREC_RUN, run);
	emit(&w, &ev, yaml_document_end_event_initialize(&ev, 1));
	emit(&w, &ev, yaml_stream_end_event_initialize(&ev));

	if (w.failed) {
		/* ENOSPC or EIO from the write under the emitter, when known */
		ret = w.e.error == YAML_WRITER_ERROR ? (ferror(f) && errno ?
						       -errno : -EIO) : -EINVAL;
		fprintf(stderr, "kscen: cannot write result: %s\n",
			w.e.problem ? w.e.problem : "bad event");
	}
	yaml_emitter_delete(&w.e);
	return ret;
}
