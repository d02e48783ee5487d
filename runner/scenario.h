/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario.h - a scenario file loaded and checked (scenario.c,
 * scenario_file.c), the parameter values it sets (param.c) and the list of
 * workloads it may name (workload.c).
 */
#ifndef KSCEN_SCENARIO_H
#define KSCEN_SCENARIO_H

#include "diag.h"
#include "workload.h"

/* workload.c: the one list of all modules. */
extern const struct kscen_workload *const kscen_workloads[];
extern const unsigned kscen_nr_workloads;
const struct kscen_workload *kscen_workload_find(const char *name);
/* The registered workload name closest to @name, for "did you mean"; or NULL. */
const char *kscen_workload_closest(const char *name);

/*
 * module.c: workloads built outside the tree, found by the two above once
 * loaded. Load the module at @path (0, or -errno with @err filled: a
 * refused file, an ABI mismatch, a bad or clashing workload); a path
 * loaded before is not loaded again.
 */
int kscen_module_load(const char *path, char *err, size_t len);
/*
 * The same where the run loaded it before (the fork server): not probed
 * again, and its bytes must hash to @sha (-ESTALE otherwise: rebuilt).
 */
int kscen_module_load_as(const char *path, const char *sha, char *err, size_t len);
/* Module file @i loaded (its real path), and its sha256; NULL past the end. */
unsigned kscen_module_nr_files(void);
const char *kscen_module_file(unsigned i, const char **sha);
/*
 * Did @w's job_metrics() for @params give @n metrics @m a job can have:
 * 1 to KSCEN_MAX_METRICS, each with a name and a unit (for a module, strings
 * within it or within @params's strings) and lower or higher? 0 or -EINVAL
 * with @err filled.
 */
int kscen_job_metrics_check(const struct kscen_workload *w, const void *params,
			    const struct kscen_metric_desc *m, unsigned n,
			    char *err, size_t len);
/* The modules KSCEN_MODULE_PATH names, once; its error said each call. */
int kscen_module_env_load(void);
const struct kscen_workload *kscen_module_find(const char *name);
unsigned kscen_module_nr_workloads(void);
/* Loaded module workload @i, and in @path the module's real path. */
const struct kscen_workload *kscen_module_workload(unsigned i, const char **path);
/* The real path of @w's module; NULL for a built-in workload. */
const char *kscen_workload_origin(const struct kscen_workload *w);
/* The sha256 (hex) of that module's file when it was loaded, or NULL. */
const char *kscen_workload_module_sha256(const struct kscen_workload *w);
/* Is @w well formed (what a module's workloads are checked for)? */
int kscen_workload_check(const struct kscen_workload *w, char *err, size_t len);

/* ---- Parameter values (param.c) -------------------------------------- */

/*
 * Parse @text as a value of @p's type, strictly: "4x", "2.5" for an INT,
 * overflow and out-of-range values are errors. On error returns -EINVAL and
 * writes a message to @err. @out->s is malloc'ed for STRING (free with
 * kscen_value_fini()).
 */
struct kscen_value {
	long long i;		/* INT, SIZE, TIME, BOOL, ENUM */
	char *s;		/* STRING */
};
int kscen_value_parse(const struct kscen_param *p, const char *text,
		      struct kscen_value *out, char *err, size_t len);
void kscen_value_fini(struct kscen_value *v);
bool kscen_value_equal(const struct kscen_param *p, const struct kscen_value *a,
		       const struct kscen_value *b);
/* Store @v at p->offset in @params; takes ownership of v->s. */
void kscen_value_store(const struct kscen_param *p, void *params,
		       struct kscen_value *v);

const struct kscen_param *kscen_param_find(const struct kscen_workload *w,
					   const char *name);
/* Allocate a params struct with every default applied; NULL on error. */
void *kscen_params_new(const struct kscen_workload *w);
void kscen_params_free(const struct kscen_workload *w, void *params);
/* @p's value in a filled @params as canonical text (malloc'ed). */
char *kscen_value_text(const struct kscen_param *p, const void *params);
/* "int", "size", "time", "bool", "string", "enum" */
const char *kscen_ptype_name(enum kscen_ptype t);

/* ---- Scenario (scenario.c) --------------------------------------------- */

/* One "key: value" of a params/include/exclude/baseline mapping. */
struct kscen_kv {
	char *key;
	struct kscen_mark key_mark;
	char **values;		/* one for a scalar, n for a list (an axis) */
	char **labels;		/* NULL, or a label each value (an axis given
				 * as label: value): ids show the label */
	struct kscen_mark *marks;
	unsigned nr_values;
	bool is_list;
};

/* A mapping of kvs, in file order: params, one include, one exclude, ... */
struct kscen_map {
	struct kscen_kv *kv;
	unsigned nr;
	struct kscen_mark mark;
};

struct kscen_profile_spec;

struct kscen_job_spec {
	const char *spec_file;	/* the scenario's file, for messages */
	char *name;
	struct kscen_mark mark;
	const struct kscen_workload *workload;
	struct kscen_map params;
	struct kscen_map *include, *exclude;
	unsigned nr_include, nr_exclude;
	struct kscen_map baseline;	/* nr == 0: none */
	long long timeout_ns;		/* per sample; the scenario's if unset */
	struct kscen_profile_spec *profile;	/* profile.h; NULL: the scenario's */
	struct kscen_capture *captures;	/* metrics: numbers from the output */
	unsigned nr_captures;
	/* sh -c commands, NULL: none: before each sample, after the last */
	char *prepare, *cleanup;
};

struct kscen_scenario {
	char *file;		/* path as given */
	char *sha256;		/* hex digest of the file's bytes */
	char *name;
	char *description;
	unsigned repeat;	/* recorded samples per job (auto: at least) */
	unsigned max_repeat;	/* repeat: auto: at most this many */
	double until_ci;	/* repeat: auto: CI half-width target, %; 0 off */
	unsigned warmup;	/* discarded samples per job */
	long long timeout_ns;	/* per sample */
	struct kscen_profile_spec *profile;	/* profile.h; NULL: none */
	struct kscen_job_spec *jobs;
	unsigned nr_jobs;
};

/*
 * Load and check @path. Every problem is printed to stderr as
 * "file:line:column: message". Returns 0 and a scenario the caller frees with
 * kscen_scenario_free(), or -EINVAL (bad input) / -errno.
 */
int kscen_scenario_load(const char *path, struct kscen_scenario **out);
void kscen_scenario_free(struct kscen_scenario *s);

#endif
