// SPDX-License-Identifier: GPL-2.0
/*
 * runmodel_write.c - a run as the YAML of a result file, by walking the run
 * model's tables (runmodel.c) in their order, which is the file's order.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/diag.h"
#include "lib/util.h"
#include "profile.h"
#include "runmodel.h"

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

/*
 * Text of several lines as a literal block, which libyaml turns into a
 * quoted scalar where a block cannot say it exactly (trailing blanks,
 * control characters).
 */
static void put_block(struct writer *w, const char *s)
{
	char *fixed = s ? utf8_fix(s) : NULL;

	if (!s)
		return scalar(w, "null", YAML_PLAIN_SCALAR_STYLE);
	scalar(w, fixed ? fixed : s, YAML_LITERAL_SCALAR_STYLE);
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

/* A job's sample records, one a line: flow mappings of what is set. */
static void write_samples(struct writer *w, const struct kscen_noise_rec *n)
{
	yaml_event_t ev;

	seq_start(w, false);
	for (unsigned i = 0; i < n->nr_samples; i++) {
		emit(w, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
						YAML_FLOW_MAPPING_STYLE));
		write_fields(w, KREC_SAMPLE, &n->samples[i],
			     kscen_records[KREC_SAMPLE].nr);
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
	case KH_NOISE:
		write_rec(w, KREC_NOISE, j->noise);
		return;
	case KH_NSAMPLES:
		write_samples(w, base);
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

/* The first @nr fields of record @rec at @base, as key: value pairs. */
static void write_fields(struct writer *w, enum kscen_rec rec, const void *base,
			 unsigned nr)
{
	const struct kscen_field *f = kscen_records[rec].fields;

	for (; nr--; f++) {
		const void *p = kscen_field_cptr(f, base);

		if ((f->flags & KF_NOFILE) ||
		    ((f->flags & KF_OPTIONAL) && !kscen_field_is_set(f, base)) ||
		    ((f->flags & KF_AUTO) &&
		     !(((const struct kscen_run *)base)->until_ci > 0)))
			continue;
		put_str(w, f->key);
		switch (f->type) {
		case KF_STR:
			if (f->flags & KF_BLOCK)
				put_block(w, *(char *const *)p);
			else
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
		kscen_error(NULL, "cannot write result: %s",
			    w.e.problem ? w.e.problem : "bad event");
	}
	yaml_emitter_delete(&w.e);
	return ret;
}
