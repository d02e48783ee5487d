/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario.h - the fixed shape of a scenario file, as libcyaml loads it.
 *
 * The open parts (params, include, exclude, baseline: mappings whose keys are
 * a workload's parameter names and whose values are a scalar or a list) are
 * beyond libcyaml; runner/scenario.c reads those with libyaml itself and
 * libcyaml skips them here.
 */
#ifndef KSCEN_SCHEMA_SCENARIO_H
#define KSCEN_SCHEMA_SCENARIO_H

#include <cyaml/cyaml.h>

struct kscen_doc_job {
	char *name;
	char *workload;
	char *timeout;		/* text: parsed as a time by the runner */
};

struct kscen_doc {
	char *scenario;
	char *description;
	char *repeat;		/* a count or "auto" */
	unsigned max_repeat;
	char *until_ci;		/* "5%" */
	unsigned warmup;
	char *timeout;
	struct kscen_doc_job *jobs;
	unsigned jobs_count;
};

#define KSCEN_DOC_REPEAT_DEFAULT 5
#define KSCEN_DOC_WARMUP_DEFAULT 1
#define KSCEN_DOC_MAX_JOBS 1024	/* job entries in a file, not expanded jobs */

extern const cyaml_schema_value_t kscen_doc_schema;

#endif
