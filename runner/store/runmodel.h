/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runmodel.h - the fields of a stored run, described once (runmodel.c):
 * one table a record kind, which the YAML writer (runmodel.c), the reader
 * (result_load.c), the JSON and CSV reports (report/json.c, report/csv.c),
 * the environment diff (envdiff.c) and kscen_run_free() all walk.
 */
#ifndef KSCEN_RUNMODEL_H
#define KSCEN_RUNMODEL_H

#include <stddef.h>
#include <stdio.h>

#include "run.h"

enum kscen_ftype {
	KF_STR,		/* char *, NULL: null */
	KF_BOOL,	/* bool */
	KF_UINT,	/* unsigned */
	KF_LONG,	/* long */
	KF_PARANOID,	/* int, KSCEN_PARANOID_UNKNOWN: null */
	KF_DOUBLE,	/* double, null reads as NAN */
	KF_STATUS,	/* enum kscen_status, by kscen_status_names */
	KF_BETTER,	/* enum kscen_better, by kscen_better_names */
	KF_TRI,		/* int: 1 true, 0 false, -1 not asked */
	KF_HOOK,	/* nested or odd: see enum kscen_hook */
};

/* Fields a table cannot say: each reader and writer has one per hook. */
enum kscen_hook {
	KH_NONE,
	KH_SHARDS,	/* run: struct kscen_shard_rec[nr_shards] */
	KH_SYSTEM,	/* run: struct kscen_system */
	KH_JOBS,	/* run: struct kscen_job_result[nr_jobs] */
	KH_PARAMS,	/* job: keys/values */
	KH_EFFECTIVE,	/* job: eff_keys/eff_values */
	KH_METRICS,	/* job: struct kscen_metric[nr_metrics] */
	KH_PROFILE,	/* job: struct kscen_profile * */
	KH_SAMPLES,	/* metric: samples[nr_samples] */
	KH_OBJECTS,	/* profile: objects[nr_objects] */
	KH_SYMBOLS,	/* profile: struct kscen_profile_sym[nr_sym] */
	KH_NOISE,	/* job: struct kscen_noise_rec * */
	KH_NSAMPLES,	/* noise: struct kscen_sample_rec[nr_samples] */
	KH_NR,
};

#define KF_REQUIRED	0x01	/* the reader refuses a record without it */
#define KF_OPTIONAL	0x02	/* written only when set: non-NULL, non-0, true,
				 * >= 0 (a tri, a long), finite (a double) */
#define KF_AUTO		0x04	/* run: written only with repeat: auto */
#define KF_NOFILE	0x08	/* in memory only, never stored (run->path) */
#define KF_TOKENS	0x10	/* envdiff: a list, diffed token by token */
#define KF_JSON_OPT	0x20	/* JSON: left out when NULL */
#define KF_JSON_ZERO	0x40	/* JSON: 0 is null */
#define KF_BLOCK	0x80	/* YAML: a literal block (|), lines as they are */

struct kscen_field {
	const char *key;
	enum kscen_ftype type;
	size_t off;		/* offsetof() in the record; 0 for hooks */
	unsigned flags;
	/* Positions in the outputs that have their own order; 0: not there. */
	unsigned char json, csv, env;
	enum kscen_hook hook;
};

enum kscen_rec {
	KREC_RUN, KREC_SYSTEM, KREC_SHARD, KREC_JOB, KREC_METRIC,
	KREC_PROFILE, KREC_PSYM, KREC_NOISE, KREC_SAMPLE, KREC_NR,
};

struct kscen_record {
	const char *name;	/* "job": for messages */
	const struct kscen_field *fields;
	unsigned nr;
};

extern const struct kscen_record kscen_records[KREC_NR];

/* The field of @rec at output position @pos (json/csv/env), or NULL. */
const struct kscen_field *kscen_field_at(enum kscen_rec rec, size_t posoff,
					 unsigned pos);
#define KSCEN_FIELD_AT(rec, out, pos) \
	kscen_field_at(rec, offsetof(struct kscen_field, out), pos)

static inline void *kscen_field_ptr(const struct kscen_field *f, void *base)
{
	return (char *)base + f->off;
}

static inline const void *kscen_field_cptr(const struct kscen_field *f,
					   const void *base)
{
	return (const char *)base + f->off;
}

/*
 * The value of a scalar field as text, into @buf (NULL for a NULL string or
 * an unknown paranoid level); what envdiff compares and CSV prints.
 */
const char *kscen_field_text(const struct kscen_field *f, const void *base,
			     char *buf, size_t len);

/*
 * Set field @f of @base from its text @s, @null when YAML says null (a
 * string stays NULL, a double NAN); NULL, or what is wrong with @s
 * ("expected a count"). kscen_parse_double() reads .nan and .inf too.
 */
const char *kscen_field_parse(const struct kscen_field *f, void *base,
			      const char *s, bool null);
int kscen_parse_double(const char *s, double *v);

/* Is optional field @f of @base set (KF_OPTIONAL), that is, worth writing? */
bool kscen_field_is_set(const struct kscen_field *f, const void *base);

/* Free what the fields of @base own (not @base itself). */
void kscen_rec_free(enum kscen_rec rec, void *base);

/* runmodel.c: @run as YAML to @f; 0 or -errno. */
int kscen_run_write_yaml(FILE *f, const struct kscen_run *run);

#endif
