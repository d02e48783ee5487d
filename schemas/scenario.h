/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario.h - the fixed shape of a scenario file, as libcyaml loads it:
 * which keys exist at the top and in a job, which are required, and which
 * are a single value (a scalar) or a list.
 *
 * Values are loaded as text and parsed strictly by the runner (libcyaml
 * 1.3.1 reads "4x" as the integer 4). The open parts (params, include,
 * exclude, baseline: mappings whose keys are a workload's parameter names and
 * whose values are a scalar or a list) and profile are beyond libcyaml;
 * runner/scenario.c reads those with libyaml itself and libcyaml skips them.
 */
#ifndef KSCEN_SCHEMA_SCENARIO_H
#define KSCEN_SCHEMA_SCENARIO_H

#include <cyaml/cyaml.h>

/* One entry of a job's metrics: a number the workload captures (exec). */
struct kscen_doc_metric {
	char *name;
	char *regex;		/* one capture group */
	char *unit;
	char *better;		/* "lower" (default) or "higher" */
};

#define KSCEN_DOC_MAX_METRICS 5	/* with exec's three times: KSCEN_MAX_METRICS */

struct kscen_doc_job {
	char *name;
	char *workload;
	char *timeout;		/* a time: "10s" */
	char *prepare, *cleanup;	/* shell commands around the job's samples */
	char *noise;		/* flag, retake or drop */
	struct kscen_doc_metric *metrics;
	unsigned metrics_count;
};

/* defaults: what every job inherits (params: walked by scenario.c). */
struct kscen_doc_defaults {
	char *repeat, *warmup, *timeout;
};

struct kscen_doc {
	char *scenario;
	char *description;
	char *repeat;		/* a count or "auto" */
	char *max_repeat;	/* a count */
	char *until_ci;		/* "5%" */
	char *warmup;		/* a count */
	char *timeout;		/* a time */
	char *noise;		/* flag, retake or drop */
	struct kscen_doc_job *jobs;
	unsigned jobs_count;
	char **modules;		/* workload modules: paths of shared objects */
	unsigned modules_count;
	struct kscen_doc_defaults *defaults;	/* NULL: none */
};

#define KSCEN_DOC_MAX_JOBS 1024	/* job entries in a file, not expanded jobs */
#define KSCEN_DOC_MAX_MODULES 64

extern const cyaml_schema_value_t kscen_doc_schema;
/* The keys of a scenario and of a job, for "did you mean". */
extern const cyaml_schema_field_t kscen_doc_fields[], kscen_doc_job_fields[],
	kscen_doc_metric_fields[], kscen_doc_defaults_fields[];

#endif
