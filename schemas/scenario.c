// SPDX-License-Identifier: GPL-2.0
/*
 * scenario.c - libcyaml schema of a scenario file's fixed shape, declared
 * from the innermost value outwards. See scenario.h for what it leaves out.
 */
#include "scenario.h"

#define STR(key, flags, type, member) \
	CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_POINTER | (flags), type, \
			       member, 0, CYAML_UNLIMITED)
#define OPT CYAML_FLAG_OPTIONAL

const cyaml_schema_field_t kscen_doc_metric_fields[] = {
	STR("name", 0, struct kscen_doc_metric, name),
	STR("regex", 0, struct kscen_doc_metric, regex),
	STR("unit", OPT, struct kscen_doc_metric, unit),
	STR("better", OPT, struct kscen_doc_metric, better),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t metric_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct kscen_doc_metric,
			    kscen_doc_metric_fields),
};

const cyaml_schema_field_t kscen_doc_job_fields[] = {
	STR("name", 0, struct kscen_doc_job, name),
	STR("workload", 0, struct kscen_doc_job, workload),
	CYAML_FIELD_IGNORE("params", OPT),
	CYAML_FIELD_IGNORE("include", OPT),
	CYAML_FIELD_IGNORE("exclude", OPT),
	CYAML_FIELD_IGNORE("baseline", OPT),
	STR("timeout", OPT, struct kscen_doc_job, timeout),
	STR("prepare", OPT, struct kscen_doc_job, prepare),
	STR("cleanup", OPT, struct kscen_doc_job, cleanup),
	STR("noise", OPT, struct kscen_doc_job, noise),
	CYAML_FIELD_SEQUENCE("metrics", CYAML_FLAG_POINTER | OPT, struct kscen_doc_job,
			     metrics, &metric_schema, 1, KSCEN_DOC_MAX_METRICS),
	CYAML_FIELD_IGNORE("profile", OPT),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t job_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct kscen_doc_job,
			    kscen_doc_job_fields),
};

static const cyaml_schema_value_t module_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, CYAML_UNLIMITED),
};

const cyaml_schema_field_t kscen_doc_defaults_fields[] = {
	CYAML_FIELD_IGNORE("params", OPT),
	STR("repeat", OPT, struct kscen_doc_defaults, repeat),
	STR("warmup", OPT, struct kscen_doc_defaults, warmup),
	STR("timeout", OPT, struct kscen_doc_defaults, timeout),
	CYAML_FIELD_END
};

const cyaml_schema_field_t kscen_doc_fields[] = {
	STR("scenario", 0, struct kscen_doc, scenario),
	STR("description", OPT, struct kscen_doc, description),
	STR("repeat", OPT, struct kscen_doc, repeat),
	STR("warmup", OPT, struct kscen_doc, warmup),
	STR("timeout", OPT, struct kscen_doc, timeout),
	CYAML_FIELD_SEQUENCE("jobs", CYAML_FLAG_POINTER, struct kscen_doc,
			     jobs, &job_schema, 1, KSCEN_DOC_MAX_JOBS),
	STR("max_repeat", OPT, struct kscen_doc, max_repeat),
	STR("until_ci", OPT, struct kscen_doc, until_ci),
	STR("noise", OPT, struct kscen_doc, noise),
	CYAML_FIELD_IGNORE("profile", OPT),
	CYAML_FIELD_SEQUENCE("modules", CYAML_FLAG_POINTER | OPT, struct kscen_doc,
			     modules, &module_schema, 1, KSCEN_DOC_MAX_MODULES),
	CYAML_FIELD_MAPPING_PTR("defaults", CYAML_FLAG_POINTER | OPT, struct kscen_doc,
				defaults, kscen_doc_defaults_fields),
	CYAML_FIELD_END
};

const cyaml_schema_value_t kscen_doc_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct kscen_doc, kscen_doc_fields),
};
