// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_shape.c - the fixed shape of a scenario through libcyaml and the
 * schema in schemas/: the keys of a scenario and of a job, which of them are
 * required, which are a single value and which a list, and how many jobs.
 *
 * libcyaml stops at the first problem and says it in its own words, with
 * positions only in the backtrace it logs. The log callback collects that
 * backtrace (field names, sequence entries, line and column), and the
 * problem is then said in kscen's words at the exact node of the libyaml
 * tree the other passes read (libcyaml's mark for an unknown key is the end
 * of its mapping, not the key).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "scenario_load.h"
#include "yaml_tree.h"
#include "schemas/scenario.h"

#define MAX_FRAMES 8

/* One line of libcyaml's backtrace, innermost first. */
struct frame {
	char kind;		/* 'f' mapping field, 'e' sequence entry, 'm' mapping */
	char name[64];		/* the field's name; the entry's number (from 1) */
	struct kscen_mark mark;
};

struct cyaml_log {
	char first[256];	/* the problem, without libcyaml's "Load: " */
	struct frame frame[MAX_FRAMES];
	unsigned nr;
};

static void cyaml_log_cb(cyaml_log_t level, void *ctx, const char *fmt, va_list ap)
{
	struct cyaml_log *log = ctx;
	struct frame *f = &log->frame[log->nr];
	char line[256];
	const char *at;

	if (level < CYAML_LOG_ERROR)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	if (!log->first[0] && !strncmp(line, "Load: ", 6) && !strstr(line, "Backtrace")) {
		snprintf(log->first, sizeof(log->first), "%s", line + 6);
		return;
	}
	at = strstr(line, " (line: ");
	if (!at || log->nr == MAX_FRAMES ||
	    sscanf(at, " (line: %u, column: %u)", &f->mark.line, &f->mark.col) != 2)
		return;
	if (sscanf(line, " in mapping field '%63[^']'", f->name) == 1)
		f->kind = 'f';
	else if (sscanf(line, " in sequence entry '%63[^']'", f->name) == 1)
		f->kind = 'e';
	else
		f->kind = 'm';
	log->nr++;
}

/* The first key named @key in @map after @skip of them, or NULL. */
static yaml_node_t *key_node(yaml_document_t *doc, yaml_node_t *map,
			     const char *key, unsigned skip)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (k->type == YAML_SCALAR_NODE && !strcmp(kscen_yscalar(k), key) &&
		    !skip--)
			return k;
	}
	return NULL;
}

/* @map's first key that is not one of @fields, or NULL. */
static yaml_node_t *unknown_key(yaml_document_t *doc, yaml_node_t *map,
				const cyaml_schema_field_t *fields)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		bool known = false;

		if (k->type != YAML_SCALAR_NODE)
			return k;
		for (const cyaml_schema_field_t *f = fields; f->key; f++)
			known |= !strcmp(f->key, kscen_yscalar(k));
		if (!known)
			return k;
	}
	return NULL;
}

static const char *closest_field(const char *key, const cyaml_schema_field_t *fields)
{
	const char *names[32];
	unsigned nr = 0;

	for (; fields[nr].key && nr < ARRAY_SIZE(names); nr++)
		names[nr] = fields[nr].key;
	return kscen_closest(key, names, nr);
}

/*
 * The scenario's modules: when it is not a list of 1 to KSCEN_DOC_MAX_MODULES
 * single values (libcyaml's problem is then about it), or NULL.
 */
static yaml_node_t *bad_modules(yaml_document_t *tree, yaml_node_t *root,
				const struct cyaml_log *log)
{
	yaml_node_t *n = kscen_yget(tree, root, "modules");
	bool in = false;
	unsigned nr;

	if (!n)
		return NULL;
	for (unsigned i = 0; i < log->nr; i++)
		in |= log->frame[i].kind == 'f' && !strcmp(log->frame[i].name, "modules");
	if (n->type != YAML_SEQUENCE_NODE)
		return in ? n : NULL;
	nr = n->data.sequence.items.top - n->data.sequence.items.start;
	if (nr < 1 || nr > KSCEN_DOC_MAX_MODULES)
		return !strncmp(log->first, "Insufficient entries", 20) ||
		       !strncmp(log->first, "Excessive entries", 17) || in ? n : NULL;
	for (unsigned i = 0; in && i < nr; i++) {
		yaml_node_t *e = kscen_yitem(tree, n, i);

		if (e && e->type != YAML_SCALAR_NODE)
			return e;
	}
	return NULL;
}

/* Say libcyaml's problem in @log at the right node of @tree. */
static void shape_error(const char *file, yaml_document_t *tree,
			const struct cyaml_log *log)
{
	yaml_node_t *root = yaml_document_get_root_node(tree);
	yaml_node_t *jobs = kscen_yget(tree, root, "jobs"), *map = root, *n;
	const cyaml_schema_field_t *fields = kscen_doc_fields;
	const struct frame *in = log->nr ? &log->frame[0] : NULL;
	struct kscen_mark m = in ? in->mark : (struct kscen_mark){ 1, 1 };
	const char *where = "scenario", *p = log->first, *jname = NULL;
	char key[128] = "", got[32] = "", hb[160], mwhere[160];
	yaml_node_t *metric = NULL;
	const struct frame *in_metrics = NULL, *in_defaults = NULL;
	unsigned job = 0;

	/* "in sequence entry 'N'" of "in mapping field 'jobs'": job N. */
	for (unsigned i = 0; i + 1 < log->nr; i++)
		if (log->frame[i].kind == 'e' && log->frame[i + 1].kind == 'f' &&
		    !strcmp(log->frame[i + 1].name, "jobs"))
			sscanf(log->frame[i].name, "%u", &job);
	if (job && (map = kscen_yitem(tree, jobs, job - 1))) {
		where = "job";
		fields = kscen_doc_job_fields;
		n = kscen_yget(tree, map, "name");
		jname = n && n->type == YAML_SCALAR_NODE ? kscen_yscalar(n) : NULL;
	}
	/* In "mapping field 'metrics'" of a job; "sequence entry 'N'": its entry N. */
	for (unsigned i = 0; job && map && i < log->nr; i++) {
		unsigned e = 0;

		if (log->frame[i].kind != 'f' || strcmp(log->frame[i].name, "metrics"))
			continue;
		snprintf(mwhere, sizeof(mwhere), "job %s: metrics", jname ? jname : "");
		where = mwhere;
		in_metrics = &log->frame[i];
		if (i && log->frame[i - 1].kind == 'e' &&
		    sscanf(log->frame[i - 1].name, "%u", &e) == 1 &&
		    (metric = kscen_yitem(tree, kscen_yget(tree, map, "metrics"), e - 1))) {
			map = metric;
			fields = kscen_doc_metric_fields;
		}
		break;
	}

	/* In "mapping field 'defaults'" of the scenario. */
	for (unsigned i = 0; !job && i < log->nr; i++) {
		if (log->frame[i].kind != 'f' || strcmp(log->frame[i].name, "defaults"))
			continue;
		in_defaults = &log->frame[i];
		n = kscen_yget(tree, root, "defaults");
		if (n && n->type == YAML_MAPPING_NODE) {
			map = n;
			fields = kscen_doc_defaults_fields;
			where = "defaults";
		}
	}

	if (!job && (n = bad_modules(tree, root, log))) {
		kscen_file_error(file, kscen_ynode_mark(n), "modules: must be a list of "
				 "1 to %d paths of workload modules (.so)",
				 KSCEN_DOC_MAX_MODULES);
	} else if (sscanf(p, "Unexpected key: %127[^\n]", key) == 1) {
		const char *hint;

		n = unknown_key(tree, map, fields);
		if (n && n->type != YAML_SCALAR_NODE) {
			kscen_file_error(file, kscen_ynode_mark(n),
					 "%s: keys must be plain names", where);
			return;
		}
		if (n)
			snprintf(key, sizeof(key), "%s", kscen_yscalar(n));
		hint = closest_field(key, fields);
		kscen_file_error(file, n ? kscen_ynode_mark(n) : m,
				 "%s: unknown key '%s'%s", where, key,
				 kscen_did_you_mean(hb, sizeof(hb), hint, ""));
	} else if (sscanf(p, "Mapping field already seen: %127[^\n]", key) == 1) {
		n = key_node(tree, map, key, 1);
		kscen_file_error(file, n ? kscen_ynode_mark(n) : m,
				 "%s: duplicate key '%s'", where, key);
	} else if (sscanf(p, "Missing required mapping field: %127[^\n]", key) == 1) {
		m = map ? kscen_ynode_mark(map) : m;
		if (metric)
			kscen_file_error(file, m, "%s: each needs a %s", where, key);
		else if (!job && !strcmp(key, "scenario"))
			kscen_file_error(file, m, "missing 'scenario:' (the scenario's name)");
		else if (!job)
			kscen_file_error(file, m, "jobs: needs a list of at least one job");
		else if (!strcmp(key, "name"))
			kscen_file_error(file, m, "job: needs a name of letters, digits, "
					 "'_', '.' or '-', at most %d", KSCEN_NAME_MAX);
		else
			kscen_file_error(file, m, "job %s: needs a workload (see kscen list)",
					 jname ? jname : "");
	} else if (in_metrics && (!strncmp(p, "Excessive entries", 17) ||
				  !strncmp(p, "Insufficient entries", 20) ||
				  (!strncmp(p, "Expecting", 9) &&
				   (!metric || (in && in->kind == 'e'))))) {
		kscen_file_error(file, in_metrics->mark, "%s: must be a list of 1 to %d "
				 "mappings of name, regex, unit and better", where,
				 KSCEN_DOC_MAX_METRICS);
	} else if (sscanf(p, "Expecting %31s", got) == 1 && metric) {
		kscen_file_error(file, m, "%s: %s must be a single value", where,
				 in && in->kind == 'f' ? in->name : "each entry");
	} else if (in_defaults && (!strncmp(p, "Expecting", 9) || in == in_defaults) &&
		   (!in || in == in_defaults || strcmp(in->name, "defaults") == 0) &&
		   strstr(p, "MAPPING")) {
		kscen_file_error(file, in_defaults->mark, "defaults: must be a mapping of "
				 "params, repeat, warmup and timeout");
	} else if (sscanf(p, "Expecting %31s", got) == 1) {
		const char *what = strstr(p, "MAPPING_START") ? "mapping" :
				   strstr(p, "SEQUENCE_START") ? "list" : "single value";

		if (!strcmp(got, "MAPPING,") && job && map)
			kscen_file_error(file, kscen_ynode_mark(map), "a job must be a "
					 "mapping (name:, workload:, params:)");
		else if (!strcmp(got, "MAPPING,"))
			kscen_file_error(file, m, "a scenario is a mapping with "
					 "scenario: and jobs:");
		else if (!strcmp(got, "SEQUENCE,"))
			kscen_file_error(file, m, "jobs: needs a list of at least one job");
		else
			kscen_file_error(file, m, "%s: must be a single value, not a %s",
					 in && in->kind == 'f' ? in->name : where, what);
	} else if (!strncmp(p, "Insufficient entries", 20)) {
		kscen_file_error(file, jobs ? kscen_ynode_mark(jobs) : m,
				 "jobs: needs a list of at least one job");
	} else if (!strncmp(p, "Excessive entries", 17)) {
		kscen_file_error(file, jobs ? kscen_ynode_mark(jobs) : m,
				 "jobs: more than %d entries", KSCEN_DOC_MAX_JOBS);
	} else if ((n = unknown_key(tree, map, fields)) && n->type != YAML_SCALAR_NODE) {
		/* libcyaml says nothing but its backtrace for a key like [x]. */
		kscen_file_error(file, kscen_ynode_mark(n), "%s: keys must be plain names",
				 where);
	} else {
		kscen_file_error(file, m, "%s", *p ? p : "not a scenario");
	}
}

static const cyaml_config_t base_cfg = {
	.log_fn = cyaml_log_cb,
	.mem_fn = cyaml_mem,
	.log_level = CYAML_LOG_ERROR,
	.flags = CYAML_CFG_NO_ALIAS,
};

int kscen_scenario_shape(const char *file, const char *buf, size_t len,
			 yaml_document_t *tree, struct kscen_doc **out)
{
	struct cyaml_log log = { .nr = 0 };
	cyaml_config_t cfg = base_cfg;
	struct kscen_doc *doc = NULL;
	cyaml_err_t err;

	cfg.log_ctx = &log;
	err = cyaml_load_data((const uint8_t *)buf, len, &cfg, &kscen_doc_schema,
			      (cyaml_data_t **)&doc, NULL);
	if (err != CYAML_OK || !doc) {
		shape_error(file, tree, &log);
		if (doc)
			kscen_scenario_shape_free(doc);
		return -EINVAL;
	}
	*out = doc;
	return 0;
}

void kscen_scenario_shape_free(struct kscen_doc *doc)
{
	cyaml_free(&base_cfg, &kscen_doc_schema, doc, 0);
}
