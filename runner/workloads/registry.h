/* SPDX-License-Identifier: GPL-2.0 */
/*
 * registry.h - the workloads kscen knows, as the rest of kscen sees them:
 * the built-in list (builtin.c) and the modules loaded beside it
 * (module.c), found by name (workload.c); the values of their parameters
 * (param.c); what a sample of kscen's own exec workload is handed when it
 * is taken without a sample process (abi.c). A module author reads only
 * workload.h.
 */
#ifndef KSCEN_REGISTRY_H
#define KSCEN_REGISTRY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "workload.h"

/* builtin.c: the one list of kscen's own workloads; workload.c: lookups. */
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

/* ---- Samples taken inline --------------------------------------------- */

/*
 * A sample taken without a sample process (sample/isolate.c). For kscen's own
 * workloads whose sample is one program they start and wait for, with
 * nothing else in it that could crash, hang or leak (exec): the runner calls
 * their hooks itself, and the program is the sample's process. It joins the
 * sample's cgroup and a process group of its own, and is killed at the
 * deadline or on ^C, as a sample process would be. A module's code always
 * runs in a sample process.
 */
struct kscen_inline_sample {
	int procs_fd;		/* the sample's cgroup.procs, or -1 */
	long long deadline_ns;	/* on kscen_now_ns()'s clock */
	const volatile sig_atomic_t *stop;	/* ^C: give up the wait */
};
bool kscen_workload_inline(const struct kscen_workload *w);
/*
 * abi.c: the sample being taken inline, or NULL (in a sample process); the
 * sampling stage sets it around the workload's hooks.
 */
const struct kscen_inline_sample *kscen_sample_inline(void);
void kscen_sample_inline_set(const struct kscen_inline_sample *in);

#endif
