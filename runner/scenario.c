// SPDX-License-Identifier: GPL-2.0
/*
 * scenario.c - load a scenario file and check everything that can be checked
 * before a job runs, each problem reported as "file:line:column: message".
 *
 * Three passes over one small in-memory buffer (scenario_load.h):
 *  1. libyaml events: syntax errors, and the cheap refusals of hostile input
 *     (aliases, nesting depth, node count); the file size is capped before
 *     (scenario_file.c).
 *  2. libcyaml with the schema in schemas/: the fixed shape, one problem at
 *     a time, placed on the libyaml tree (scenario_shape.c).
 *  3. this file: the fixed values libcyaml loaded, parsed strictly, and the
 *     open mappings libcyaml cannot load (params, include, exclude, baseline,
 *     with a workload's parameter names as keys and a value or a list as
 *     values), walked on libyaml's tree with the position of every node.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util.h"
#include "scenario_load.h"
#include "profile.h"
#include "yaml_tree.h"
#include "../schemas/scenario.h"

#define MAX_KEYS 256		/* in any one mapping: keys are names, not data */
#define MAX_ERRORS 20		/* printed; the rest are counted */
#define MAX_SELECTORS 1000	/* include or exclude entries of one job */

struct loader {
	const char *file;
	yaml_document_t doc;
	unsigned errors;
};

static void vlerr(struct loader *ld, struct kscen_mark m, const char *fmt, va_list ap)
{
	char msg[1024];

	if (++ld->errors > MAX_ERRORS) {
		if (ld->errors == MAX_ERRORS + 1)
			kscen_diag(KSCEN_DIAG_NOTE, ld->file, (struct kscen_mark){ 0, 0 },
				   "more errors not shown");
		return;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	kscen_file_error(ld->file, m, "%s", msg);
}

/* Report a problem at @m; only the first MAX_ERRORS are printed. */
static void lerr_at(struct loader *ld, struct kscen_mark m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void lerr_at(struct loader *ld, struct kscen_mark m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlerr(ld, m, fmt, ap);
	va_end(ap);
}

/* Report a problem at node @n. */
static void lerr(struct loader *ld, yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void lerr(struct loader *ld, yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlerr(ld, kscen_ynode_mark(n), fmt, ap);
	va_end(ap);
}

static yaml_node_t *node(struct loader *ld, int id)
{
	return yaml_document_get_node(&ld->doc, id);
}

static const char *scalar(const yaml_node_t *n)
{
	return kscen_yscalar(n);
}

/*
 * Check the keys of an open mapping @map (its keys are checked by the
 * caller): plain names, no duplicates, not too many. Returns the number of
 * errors.
 */
static unsigned check_keys(struct loader *ld, yaml_node_t *map, const char *where)
{
	unsigned before = ld->errors;

	if (map->data.mapping.pairs.top - map->data.mapping.pairs.start > MAX_KEYS) {
		lerr(ld, map, "%s: more than %d keys", where, MAX_KEYS);
		return ld->errors - before;
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(ld, p->key);

		if (k->type != YAML_SCALAR_NODE) {
			lerr(ld, k, "%s: keys must be plain names", where);
			continue;
		}
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *qk = node(ld, q->key);

			if (qk->type == YAML_SCALAR_NODE &&
			    strcmp(scalar(qk), scalar(k)) == 0) {
				lerr(ld, k, "%s: duplicate key '%s'", where, scalar(k));
				break;
			}
		}
	}
	return ld->errors - before;
}

static yaml_node_t *get(struct loader *ld, yaml_node_t *map, const char *key)
{
	return kscen_yget(&ld->doc, map, key);
}

bool kscen_name_ok(const char *s)
{
	/* The scenario's name is a directory under results/: NAME_MAX bounds it. */
	if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 ||
	    strlen(s) > KSCEN_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_.-") == strlen(s);
}

/*
 * "key:", "key: ~" and "key: null" are YAML's null, not a value: refused
 * wherever a value is required, rather than read as the text "~" or "".
 */
static bool is_null(yaml_node_t *n)
{
	const char *s = scalar(n);

	return n->type == YAML_SCALAR_NODE &&
	       n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") ||
		!strcmp(s, "Null") || !strcmp(s, "NULL"));
}

/* A scalar field, checked as a value of @p's type. */
static int check_scalar(struct loader *ld, yaml_node_t *n,
			const struct kscen_param *p, struct kscen_value *v)
{
	char err[256];

	if (n->type != YAML_SCALAR_NODE) {
		lerr(ld, n, "%s: must be a single value, not a %s", p->name,
		     n->type == YAML_MAPPING_NODE ? "mapping" : "list");
		return -EINVAL;
	}
	if (is_null(n)) {
		lerr(ld, n, "%s: needs a value, not null (quote it to mean the "
		     "text: '%s')", p->name, scalar(n));
		return -EINVAL;
	}
	if (kscen_value_parse(p, scalar(n), v, err, sizeof(err))) {
		lerr(ld, n, "%s", err);
		return -EINVAL;
	}
	return 0;
}

static void kv_add_value(struct kscen_kv *kv, yaml_node_t *n)
{
	kv->values = kscen_xrealloc(kv->values, (kv->nr_values + 1) * sizeof(char *));
	kv->marks = kscen_xrealloc(kv->marks, (kv->nr_values + 1) * sizeof(*kv->marks));
	kv->values[kv->nr_values] = kscen_xstrdup(scalar(n));
	kv->marks[kv->nr_values++] = kscen_ynode_mark(n);
}

struct axis_value {
	struct kscen_value v;
	yaml_node_t *node;
	bool string;
};

static int value_cmp(const struct axis_value *x, const struct axis_value *y)
{
	return x->string ? strcmp(x->v.s, y->v.s) : (x->v.i > y->v.i) - (x->v.i < y->v.i);
}

/* By value, then by position (nodes are an array), so the later is reported. */
static int axis_value_cmp(const void *a, const void *b)
{
	const struct axis_value *x = a, *y = b;
	int c = value_cmp(x, y);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/*
 * Read a params-like mapping of @w's parameters. Lists (axes) are allowed
 * only when @axes; each value is checked against its parameter's type, and
 * an axis must not repeat a value.
 */
static void read_map(struct loader *ld, yaml_node_t *n,
		     const struct kscen_workload *w, bool axes,
		     const char *where, struct kscen_map *out)
{
	memset(out, 0, sizeof(*out));
	out->mark = kscen_ynode_mark(n);
	if (n->type != YAML_MAPPING_NODE) {
		lerr(ld, n, "%s: must be a mapping of parameter: value", where);
		return;
	}
	if (check_keys(ld, n, where))
		return;
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
	     pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(ld, pr->key), *v = node(ld, pr->value);
		const struct kscen_param *p = kscen_param_find(w, scalar(k));
		struct kscen_kv *kv;

		if (!p) {
			const char *names[64];
			unsigned nr = 0;

			for (; nr < w->nr_params && nr < 64; nr++)
				names[nr] = w->params[nr].name;
			const char *hint = kscen_closest(scalar(k), names, nr);
			char hb[160];

			lerr(ld, k, "%s: workload %s has no parameter '%s'%s", where,
			     w->name, scalar(k), kscen_did_you_mean(hb, sizeof(hb), hint, ""));
			continue;
		}
		out->kv = kscen_xrealloc(out->kv, (out->nr + 1) * sizeof(*out->kv));
		kv = &out->kv[out->nr++];
		memset(kv, 0, sizeof(*kv));
		kv->key = kscen_xstrdup(p->name);
		kv->key_mark = kscen_ynode_mark(k);
		if (v->type == YAML_SCALAR_NODE) {
			struct kscen_value val;

			if (check_scalar(ld, v, p, &val) == 0)
				kscen_value_fini(&val);
			kv_add_value(kv, v);
			continue;
		}
		if (v->type != YAML_SEQUENCE_NODE || !axes) {
			lerr(ld, v, "%s: %s must be a single value%s", where,
			     p->name, axes ? " or a list of values" : "");
			/* Not kept: a kv without a value must not reach the checks. */
			free(kv->key);
			out->nr--;
			continue;
		}
		kv->is_list = true;
		if (v->data.sequence.items.top == v->data.sequence.items.start)
			lerr(ld, v, "%s: %s: an axis needs at least one value",
			     where, p->name);
		struct axis_value *vals = kscen_xcalloc(
			v->data.sequence.items.top - v->data.sequence.items.start + 1,
			sizeof(*vals));
		unsigned nv = 0;

		for (yaml_node_item_t *it = v->data.sequence.items.start;
		     it < v->data.sequence.items.top; it++) {
			yaml_node_t *e = node(ld, *it);

			if (check_scalar(ld, e, p, &vals[nv].v))
				continue;
			vals[nv].node = e;
			vals[nv].string = p->type == KSCEN_P_STRING;
			kv_add_value(kv, e);
			nv++;
		}
		/* Sorted, duplicates are neighbours: an axis of 100k values is cheap. */
		qsort(vals, nv, sizeof(*vals), axis_value_cmp);
		for (unsigned j = 1; j < nv; j++)
			if (value_cmp(&vals[j - 1], &vals[j]) == 0)
				lerr(ld, vals[j].node, "%s: %s: duplicate value '%s' on the axis",
				     where, p->name, scalar(vals[j].node));
		for (unsigned j = 0; j < nv; j++)
			kscen_value_fini(&vals[j].v);
		free(vals);
	}
}

static const struct kscen_kv *map_find(const struct kscen_map *m, const char *key)
{
	for (unsigned i = 0; i < m->nr; i++)
		if (strcmp(m->kv[i].key, key) == 0)
			return &m->kv[i];
	return NULL;
}

/*
 * Each key of @sel (an exclude or the baseline) must be a declared parameter
 * and its value one of that parameter's values.
 */
static void check_selector(struct loader *ld, const struct kscen_job_spec *j,
			   const struct kscen_map *sel, const char *where)
{
	char err[256];

	for (unsigned i = 0; i < sel->nr; i++) {
		const struct kscen_kv *kv = &sel->kv[i];
		const struct kscen_kv *decl = map_find(&j->params, kv->key);
		const struct kscen_param *p = kscen_param_find(j->workload, kv->key);
		struct kscen_value a, b;
		bool on_axis = false;

		if (!decl) {
			lerr_at(ld, kv->key_mark,
					 "%s: '%s' is not a parameter of job %s's matrix",
					 where, kv->key, j->name);
			continue;
		}
		if (kscen_value_parse(p, kv->values[0], &a, err, sizeof(err)))
			continue;	/* already reported */
		for (unsigned v = 0; v < decl->nr_values && !on_axis; v++) {
			if (kscen_value_parse(p, decl->values[v], &b, err, sizeof(err)))
				continue;
			on_axis = kscen_value_equal(p, &a, &b);
			kscen_value_fini(&b);
		}
		kscen_value_fini(&a);
		if (!on_axis) {
			lerr_at(ld, kv->marks[0],
					 "%s: %s=%s is not one of the values of %s",
					 where, kv->key, kv->values[0], kv->key);
		}
	}
}

static void read_selectors(struct loader *ld, struct kscen_job_spec *j,
			   yaml_node_t *n, const char *what,
			   struct kscen_map **out, unsigned *nr)
{
	if (!n)
		return;
	if (n->type != YAML_SEQUENCE_NODE) {
		lerr(ld, n, "job %s: %s must be a list of mappings", j->name, what);
		return;
	}
	if (n->data.sequence.items.top - n->data.sequence.items.start > MAX_SELECTORS) {
		lerr(ld, n, "job %s: %s: more than %d entries", j->name, what, MAX_SELECTORS);
		return;
	}
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		char where[128];

		snprintf(where, sizeof(where), "job %s: %s", j->name, what);
		*out = kscen_xrealloc(*out, (*nr + 1) * sizeof(**out));
		read_map(ld, node(ld, *it), j->workload, false, where, &(*out)[(*nr)++]);
	}
}

/* Job @j from its fixed fields in @dj (libcyaml's) and its node @n. */
static void read_job(struct loader *ld, yaml_node_t *n,
		     const struct kscen_doc_job *dj, struct kscen_job_spec *j)
{
	yaml_node_t *v;
	char where[128];

	j->mark = kscen_ynode_mark(n);
	if (!kscen_name_ok(dj->name)) {
		lerr(ld, get(ld, n, "name"), "job: needs a name of letters, "
		     "digits, '_', '.' or '-', at most %d", KSCEN_NAME_MAX);
		return;
	}
	j->name = kscen_xstrdup(dj->name);
	j->workload = kscen_workload_find(dj->workload);
	if (!j->workload) {
		const char *hint = kscen_workload_closest(dj->workload);
		char hb[160];

		lerr(ld, get(ld, n, "workload"), "job %s: unknown workload '%s'%s",
		     j->name, dj->workload,
		     kscen_did_you_mean(hb, sizeof(hb), hint, " (see kscen list)"));
		return;
	}
	snprintf(where, sizeof(where), "job %s: params", j->name);
	v = get(ld, n, "params");
	if (v)
		read_map(ld, v, j->workload, true, where, &j->params);
	for (unsigned i = 0; i < j->workload->nr_params; i++) {
		const struct kscen_param *p = &j->workload->params[i];

		if (!p->def && !map_find(&j->params, p->name))
			lerr(ld, v ? v : n, "job %s: parameter '%s' is required",
			     j->name, p->name);
	}
	read_selectors(ld, j, get(ld, n, "include"), "include", &j->include, &j->nr_include);
	read_selectors(ld, j, get(ld, n, "exclude"), "exclude", &j->exclude, &j->nr_exclude);
	for (unsigned i = 0; i < j->nr_exclude; i++)
		check_selector(ld, j, &j->exclude[i], "exclude");
	v = get(ld, n, "baseline");
	if (v) {
		snprintf(where, sizeof(where), "job %s: baseline", j->name);
		read_map(ld, v, j->workload, false, where, &j->baseline);
		check_selector(ld, j, &j->baseline, "baseline");
	}
	for (unsigned i = 0; i < j->nr_include; i++) {
		for (unsigned k = 0; k < j->params.nr; k++) {
			if (j->params.kv[k].is_list &&
			    !map_find(&j->include[i], j->params.kv[k].key)) {
				lerr_at(ld, j->include[i].mark,
						 "job %s: include: must give a value for the axis '%s'",
						 j->name, j->params.kv[k].key);
			}
		}
	}
}

static const struct kscen_param repeat_p = {
	.name = "repeat", .type = KSCEN_P_INT, .min = 1, .max = 1000000,
};
static const struct kscen_param warmup_p = {
	.name = "warmup", .type = KSCEN_P_INT, .min = 0, .max = 1000000,
};
const struct kscen_param kscen_timeout_param = {
	.name = "timeout", .type = KSCEN_P_TIME, .min = 1000000,
	.max = 7 * 24 * 3600 * 1000000000LL,
};

static const struct kscen_param max_repeat_p = {
	.name = "max_repeat", .type = KSCEN_P_INT, .min = KSCEN_AUTO_MIN_REPEAT,
	.max = 1000000,
};

/* "5%" or "5": a half-width in percent, above 0 and at most 100. */
int kscen_parse_pct(const char *text, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || errno || (*end && strcmp(end, "%")) ||
	    !(v > 0 && v <= 100) || isspace((unsigned char)*text))
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * repeat: auto - at least KSCEN_AUTO_MIN_REPEAT samples (the fewest with a
 * distribution-free 95% CI of the median), then until that CI is within
 * +-until_ci % (default 5%) or max_repeat (default 30) samples.
 */
static void read_auto(struct loader *ld, yaml_node_t *root,
		      struct kscen_scenario *s)
{
	struct kscen_value v;
	yaml_node_t *n;

	s->repeat = KSCEN_AUTO_MIN_REPEAT;
	s->max_repeat = KSCEN_AUTO_MAX_REPEAT;
	s->until_ci = KSCEN_AUTO_UNTIL_CI;
	if ((n = get(ld, root, "max_repeat")) &&
	    !check_scalar(ld, n, &max_repeat_p, &v))
		s->max_repeat = v.i;
	n = get(ld, root, "until_ci");
	if (n && (n->type != YAML_SCALAR_NODE ||
		  kscen_parse_pct(scalar(n), &s->until_ci)))
		lerr(ld, n, "until_ci: expected a percentage above 0 and up to "
		     "100, like 5%%");
}

/* A scalar field @key of @map, parsed as @p; 0 if absent or bad. */
static int fixed_value(struct loader *ld, yaml_node_t *map, const char *key,
		       const struct kscen_param *p, long long *out)
{
	yaml_node_t *n = get(ld, map, key);
	struct kscen_value v;

	if (!n || check_scalar(ld, n, p, &v))
		return -EINVAL;
	*out = v.i;
	return 0;
}

/* Pass 3: the values of the fixed shape @doc, and the open mappings. */
static int walk(struct loader *ld, const struct kscen_doc *doc,
		struct kscen_scenario *s)
{
	yaml_node_t *root = yaml_document_get_root_node(&ld->doc), *n, *jobs;
	long long v;

	if (!kscen_name_ok(doc->scenario))
		lerr(ld, get(ld, root, "scenario"), "scenario: the name must be "
		     "letters, digits, '_', '.' or '-', at most %d", KSCEN_NAME_MAX);
	if ((n = get(ld, root, "description")) && is_null(n))
		lerr(ld, n, "description: must be text");
	s->name = kscen_xstrdup(doc->scenario);
	s->description = kscen_xstrdup(doc->description ? doc->description : "");
	s->repeat = 5;
	if (doc->repeat && !strcmp(doc->repeat, "auto"))
		read_auto(ld, root, s);
	else if (!fixed_value(ld, root, "repeat", &repeat_p, &v))
		s->repeat = v;
	if (!s->until_ci)
		for (unsigned i = 0; i < 2; i++)
			if ((n = get(ld, root, i ? "until_ci" : "max_repeat")))
				lerr(ld, n, "%s: only with 'repeat: auto'",
				     i ? "until_ci" : "max_repeat");
	s->warmup = 1;
	if (!fixed_value(ld, root, "warmup", &warmup_p, &v))
		s->warmup = v;
	s->timeout_ns = 60 * 1000000000LL;
	if (!fixed_value(ld, root, "timeout", &kscen_timeout_param, &v))
		s->timeout_ns = v;
	if ((n = get(ld, root, "profile")))	/* profile.h */
		ld->errors += kscen_profile_spec_read(ld->file, &ld->doc, n, NULL,
						      &s->profile);

	jobs = get(ld, root, "jobs");
	s->nr_jobs = doc->jobs_count;
	s->jobs = kscen_xcalloc(s->nr_jobs, sizeof(*s->jobs));
	for (unsigned i = 0; i < s->nr_jobs; i++) {
		struct kscen_job_spec *j = &s->jobs[i];
		yaml_node_t *jn = kscen_yitem(&ld->doc, jobs, i);

		j->spec_file = s->file;
		read_job(ld, jn, &doc->jobs[i], j);
		if (!fixed_value(ld, jn, "timeout", &kscen_timeout_param, &v))
			j->timeout_ns = v;
		if ((n = get(ld, jn, "profile")))
			ld->errors += kscen_profile_spec_read(ld->file, &ld->doc, n,
							      s->profile, &j->profile);
		for (unsigned k = 0; k < i && j->name; k++)
			if (s->jobs[k].name && strcmp(s->jobs[k].name, j->name) == 0)
				lerr_at(ld, j->mark,
					"duplicate job name '%s' (first at line %u)",
					j->name, s->jobs[k].mark.line);
	}
	return ld->errors ? -EINVAL : 0;
}

int kscen_scenario_load(const char *path, struct kscen_scenario **out)
{
	struct kscen_scenario *s = kscen_xcalloc(1, sizeof(*s));
	struct loader ld = { .file = path };
	struct kscen_doc *doc = NULL;
	yaml_parser_t parser;
	yaml_node_t *root;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	*out = NULL;
	s->file = kscen_xstrdup(path);
	ret = kscen_scenario_read(path, &buf, &len);
	if (ret)
		goto out;
	ret = kscen_scenario_prescan(path, buf, len);
	if (ret)
		goto out;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &ld.doc)) {
		kscen_yaml_error(path, &parser);
		yaml_parser_delete(&parser);
		ret = -EINVAL;
		goto out;
	}
	yaml_parser_delete(&parser);
	root = yaml_document_get_root_node(&ld.doc);
	ret = -EINVAL;
	if (!root || (root->type == YAML_SCALAR_NODE && !*scalar(root)))
		kscen_file_error(path, ((struct kscen_mark){ 1, 1 }),
				 "empty scenario file: it needs scenario: and jobs:");
	else if (root->type != YAML_MAPPING_NODE)
		lerr(&ld, root, "a scenario is a mapping with scenario: and jobs:");
	else if (!(ret = kscen_scenario_shape(path, buf, len, &ld.doc, &doc)))
		ret = walk(&ld, doc, s);
	if (doc)
		kscen_scenario_shape_free(doc);
	yaml_document_delete(&ld.doc);
	if (ret)
		goto out;
	s->sha256 = kscen_sha256_hex(buf, len);
out:
	free(buf);
	if (ret) {
		kscen_scenario_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

static void map_fini(struct kscen_map *m)
{
	for (unsigned i = 0; i < m->nr; i++) {
		for (unsigned v = 0; v < m->kv[i].nr_values; v++)
			free(m->kv[i].values[v]);
		free(m->kv[i].values);
		free(m->kv[i].marks);
		free(m->kv[i].key);
	}
	free(m->kv);
}

void kscen_scenario_free(struct kscen_scenario *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nr_jobs; i++) {
		struct kscen_job_spec *j = &s->jobs[i];

		free(j->name);
		map_fini(&j->params);
		map_fini(&j->baseline);
		for (unsigned k = 0; k < j->nr_include; k++)
			map_fini(&j->include[k]);
		for (unsigned k = 0; k < j->nr_exclude; k++)
			map_fini(&j->exclude[k]);
		free(j->include);
		free(j->exclude);
		free(j->profile);
	}
	free(s->profile);
	free(s->jobs);
	free(s->file);
	free(s->sha256);
	free(s->name);
	free(s->description);
	free(s);
}
