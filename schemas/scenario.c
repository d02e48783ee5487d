// SPDX-License-Identifier: GPL-2.0
/*
 * scenario.c - libcyaml schema of a scenario file's fixed shape, declared
 * from the innermost value outwards. See scenario.h for what it leaves out.
 */
#include "scenario.h"

#define STR(key, flags, type, member) \
	CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_POINTER | (flags), type, \
			       member, 0, CYAML_UNLIMITED)

static const cyaml_schema_field_t job_fields[] = {
	STR("name", 0, struct kscen_doc_job, name),
	STR("workload", 0, struct kscen_doc_job, workload),
	STR("timeout", CYAML_FLAG_OPTIONAL, struct kscen_doc_job, timeout),
	CYAML_FIELD_IGNORE("params", CYAML_FLAG_OPTIONAL),
	CYAML_FIELD_IGNORE("include", CYAML_FLAG_OPTIONAL),
	CYAML_FIELD_IGNORE("exclude", CYAML_FLAG_OPTIONAL),
	CYAML_FIELD_IGNORE("baseline", CYAML_FLAG_OPTIONAL),
	CYAML_FIELD_IGNORE("profile", CYAML_FLAG_OPTIONAL),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t job_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct kscen_doc_job,
			    job_fields),
};

static const cyaml_schema_field_t doc_fields[] = {
	STR("scenario", 0, struct kscen_doc, scenario),
	STR("description", CYAML_FLAG_OPTIONAL, struct kscen_doc, description),
	/* A count or "auto": runner/scenario.c checks it. */
	STR("repeat", CYAML_FLAG_OPTIONAL, struct kscen_doc, repeat),
	CYAML_FIELD_UINT("max_repeat", CYAML_FLAG_OPTIONAL, struct kscen_doc,
			 max_repeat),
	STR("until_ci", CYAML_FLAG_OPTIONAL, struct kscen_doc, until_ci),
	CYAML_FIELD_UINT("warmup", CYAML_FLAG_OPTIONAL, struct kscen_doc,
			 warmup),
	STR("timeout", CYAML_FLAG_OPTIONAL, struct kscen_doc, timeout),
	CYAML_FIELD_SEQUENCE("jobs", CYAML_FLAG_POINTER, struct kscen_doc,
			     jobs, &job_schema, 1, KSCEN_DOC_MAX_JOBS),
	CYAML_FIELD_IGNORE("profile", CYAML_FLAG_OPTIONAL),
	CYAML_FIELD_END
};

const cyaml_schema_value_t kscen_doc_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct kscen_doc, doc_fields),
};
