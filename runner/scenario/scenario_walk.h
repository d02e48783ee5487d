/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario_walk.h - what the walk of a scenario's libyaml tree shares
 * between scenario.c (the fixed values, the jobs), scenario_job.c (a job's
 * metrics and commands) and scenario_map.c (the open mappings): the loader
 * and its error reporting through diag.h (scenario_walk.c). Private to the
 * scenario stage.
 */
#ifndef KSCEN_SCENARIO_WALK_H
#define KSCEN_SCENARIO_WALK_H

#include <stdarg.h>
#include <yaml.h>

#include "scenario.h"
#include "scenario_load.h"

#define KSCEN_LOADER_MAX_ERRORS 20	/* said; the others counted */

struct kscen_loader {
	const char *file;
	const char *dir;	/* where modules: paths are relative to */
	yaml_node_t *defaults_params;	/* defaults: params, or NULL */
	yaml_document_t doc;
	struct kscen_streamed *streamed;	/* long axes, not in doc */
	unsigned errors;
	unsigned long said[KSCEN_LOADER_MAX_ERRORS];	/* hashes of those said */
	bool module_failed;	/* an unknown workload may be a module's: not said */
};

/* A problem at @m or at node @n; only the first 20 are said. */
void kscen_vlerr(struct kscen_loader *ld, struct kscen_mark m, const char *fmt,
		 va_list ap);
void kscen_lerr_at(struct kscen_loader *ld, struct kscen_mark m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void kscen_lerr(struct kscen_loader *ld, yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* YAML's null ("", "~", "null"), refused where a value is required. */
bool kscen_lis_null(yaml_node_t *n);
/* A scalar node, checked as a value of @p's type into @v. */
int kscen_lcheck_scalar(struct kscen_loader *ld, yaml_node_t *n,
			const struct kscen_param *p, struct kscen_value *v);
/* The same for @text (a label's value) at scalar node @n's position. */
int kscen_lcheck_text(struct kscen_loader *ld, yaml_node_t *n,
		      const struct kscen_param *p, const char *text,
		      struct kscen_value *v);
/* The same for a streamed axis's item @it, its @text (scenario_load.h). */
int kscen_lcheck_item(struct kscen_loader *ld, const struct kscen_axis_item *it,
		      const char *text, const struct kscen_param *p,
		      struct kscen_value *v);

/* scenario_job.c: metrics:, prepare: and cleanup: of job @j (node @jn). */
struct kscen_doc_job;
void kscen_read_job_extras(struct kscen_loader *ld, yaml_node_t *jn,
			   const struct kscen_doc_job *dj, struct kscen_job_spec *j);
void kscen_job_extras_fini(struct kscen_job_spec *j);

/* scenario_map.c */
unsigned kscen_lcheck_keys(struct kscen_loader *ld, yaml_node_t *map, const char *where);
void kscen_read_map(struct kscen_loader *ld, yaml_node_t *n,
		    const struct kscen_workload *w, const struct kscen_map *decl,
		    const char *where, struct kscen_map *out);
/*
 * defaults: params (mapping @n): the parameters of @w that @params has not
 * got, appended, checked as a job's own are (at their place in defaults:).
 */
void kscen_inherit_defaults(struct kscen_loader *ld, yaml_node_t *n,
			    const struct kscen_workload *w, const char *where,
			    struct kscen_map *params);
const struct kscen_kv *kscen_map_find(const struct kscen_map *m, const char *key);
void kscen_check_selector(struct kscen_loader *ld, const struct kscen_job_spec *j,
			  const struct kscen_map *sel, const char *where);
void kscen_read_selectors(struct kscen_loader *ld, struct kscen_job_spec *j,
			  yaml_node_t *n, const char *what,
			  struct kscen_map **out, unsigned *nr);
void kscen_map_fini(struct kscen_map *m);

#endif
