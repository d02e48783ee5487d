// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_map.c - the open mappings of a job that libcyaml cannot load:
 * params (a workload's parameter names as keys, a value, a list (an axis)
 * or a mapping of label: value (an axis whose ids show the labels) as
 * values), include, exclude and baseline, walked on the libyaml tree
 * with the position of every node, each value checked against its
 * parameter's type.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/util.h"
#include "scenario_load.h"
#include "yaml_tree.h"
#include "scenario_walk.h"

#define MAX_KEYS 256		/* in any one mapping: keys are names, not data */
#define MAX_SELECTORS 1000	/* include or exclude entries of one job */

static yaml_node_t *node(struct kscen_loader *ld, int id)
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
unsigned kscen_lcheck_keys(struct kscen_loader *ld, yaml_node_t *map, const char *where)
{
	unsigned before = ld->errors;

	if (map->data.mapping.pairs.top - map->data.mapping.pairs.start > MAX_KEYS) {
		kscen_lerr(ld, map, "%s: more than %d keys", where, MAX_KEYS);
		return ld->errors - before;
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(ld, p->key);

		if (k->type != YAML_SCALAR_NODE) {
			kscen_lerr(ld, k, "%s: keys must be plain names", where);
			continue;
		}
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *qk = node(ld, q->key);

			if (qk->type == YAML_SCALAR_NODE &&
			    strcmp(scalar(qk), scalar(k)) == 0) {
				kscen_lerr(ld, k, "%s: duplicate key '%s'", where, scalar(k));
				break;
			}
		}
	}
	return ld->errors - before;
}

static void kv_add_value(struct kscen_kv *kv, yaml_node_t *n, const char *label)
{
	unsigned nr = kv->nr_values;

	/*
	 * Room for 1, 2, 4, ... values, grown when full (nr a power of two):
	 * an axis of 10^5 values is 17 reallocs of each array, not 10^5.
	 */
	if (!(nr & (nr - 1))) {
		size_t room = nr ? 2 * (size_t)nr : 1;

		kv->values = kscen_xrealloc(kv->values, room * sizeof(char *));
		kv->marks = kscen_xrealloc(kv->marks, room * sizeof(*kv->marks));
		if (label)
			kv->labels = kscen_xrealloc(kv->labels, room * sizeof(char *));
	}
	if (label)
		kv->labels[kv->nr_values] = kscen_xstrdup(label);
	kv->values[kv->nr_values] = kscen_xstrdup(scalar(n));
	kv->marks[kv->nr_values++] = kscen_ynode_mark(n);
}

/* A label stands for a long value in ids: short, and plain. */
#define LABEL_MAX 32

static bool label_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > LABEL_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.+-", *s))
			return false;
	return true;
}

/* A selector's value may be a label of @decl's axis: the value it stands for. */
static const char *unlabel(const struct kscen_kv *decl, const char *text)
{
	if (decl && decl->labels)
		for (unsigned i = 0; i < decl->nr_values; i++)
			if (strcmp(decl->labels[i], text) == 0)
				return decl->values[i];
	return text;
}

/* An axis's values, parsed: sorted by value, then position (@ord). */
struct axis_sort {
	struct kscen_value *v;
	bool string;
};

static int value_cmp(const struct axis_sort *as, unsigned i, unsigned j)
{
	const struct kscen_value *x = &as->v[i], *y = &as->v[j];

	return as->string ? strcmp(x->s, y->s) : (x->i > y->i) - (x->i < y->i);
}

static int axis_value_cmp(const void *a, const void *b, void *arg)
{
	unsigned i = *(const unsigned *)a, j = *(const unsigned *)b;
	int c = value_cmp(arg, i, j);

	return c ? c : (i > j) - (i < j);
}

/*
 * The values of list @v, parameter @p's axis, into @kv: from the tree, or,
 * an empty list where the prescan took a long one, from its events (the
 * same checks, at the same positions). No value twice: sorted, duplicates
 * are neighbours, and the later one is reported.
 */
static void read_axis(struct kscen_loader *ld, yaml_node_t *v,
		      const struct kscen_param *p, const char *where,
		      struct kscen_kv *kv)
{
	size_t nr = v->data.sequence.items.top - v->data.sequence.items.start;
	struct kscen_stream_axis *sa = NULL;
	struct axis_sort as = { .string = p->type == KSCEN_P_STRING };
	unsigned nv = 0, *ord, *at = NULL;	/* at: a kept value's item */
	bool give, sort = false;

	kv->is_list = true;
	if (!nr && (sa = kscen_streamed_at(ld->streamed, kscen_ynode_mark(v))))
		nr = sa->nr;
	if (!nr)
		kscen_lerr(ld, v, "%s: %s: an axis needs at least one value",
			   where, p->name);
	/* The texts' block is given once: defaults: params is read for each job. */
	give = sa && sa->arena;
	if (give) {
		kv->arena = sa->arena;
		sa->arena = NULL;
	}
	as.v = kscen_xcalloc(nr + 1, sizeof(*as.v));
	kv->values = kscen_xcalloc(nr + 1, sizeof(*kv->values));
	/* A long axis's marks stay in its items: @at, once one is refused */
	if (!sa)
		kv->marks = kscen_xcalloc(nr + 1, sizeof(*kv->marks));
	for (size_t i = 0; i < nr; i++) {
		const char *text;

		if (sa) {
			text = sa->texts + sa->item[i].text;
			if (kscen_lcheck_item(ld, &sa->item[i], text, p, &as.v[nv])) {
				if (!at) {
					at = kscen_xcalloc(nr + 1, sizeof(*at));
					for (unsigned k = 0; k < nv; k++)
						at[k] = k;
				}
				continue;
			}
			if (at)
				at[nv] = i;
		} else {
			yaml_node_t *e = node(ld, v->data.sequence.items.start[i]);

			if (kscen_lcheck_scalar(ld, e, p, &as.v[nv]))
				continue;
			text = scalar(e);
			kv->marks[nv] = kscen_ynode_mark(e);
		}
		kv->values[nv] = give ? (char *)text : kscen_xstrdup(text);
		kv->nr_values = ++nv;
	}
	/* A range written out ("[1000, 1001, ...]") is in order already. */
	for (unsigned j = 1; j < nv && !sort; j++)
		sort = value_cmp(&as, j - 1, j) >= 0;
	if (sort) {
		ord = kscen_xcalloc(nv + 1, sizeof(*ord));
		for (unsigned j = 0; j < nv; j++)
			ord[j] = j;
		qsort_r(ord, nv, sizeof(*ord), axis_value_cmp, &as);
		for (unsigned j = 1; j < nv; j++)
			if (kscen_value_equal(p, &as.v[ord[j - 1]], &as.v[ord[j]]))
				kscen_lerr_at(ld, !sa ? kv->marks[ord[j]] :
					      sa->item[at ? at[ord[j]] : ord[j]].mark,
					      "%s: %s: duplicate value '%s' on the axis",
					      where, p->name, kv->values[ord[j]]);
		free(ord);
	}
	free(at);
	kv->parsed = as.v;	/* the expander's, not parsed twice */
}

/*
 * "command: {b0: perf bench ... -b 0, b4: ...}": an axis whose ids show the
 * labels. Labels are plain names, unique (kscen_lcheck_keys), and the values
 * are checked like a list's.
 */
static void read_labeled_axis(struct kscen_loader *ld, yaml_node_t *v,
			      const struct kscen_param *p, const char *where,
			      struct kscen_kv *kv)
{
	char what[160];

	kv->is_list = true;
	snprintf(what, sizeof(what), "%s: %s", where, p->name);
	if (v->data.mapping.pairs.top == v->data.mapping.pairs.start)
		kscen_lerr(ld, v, "%s: an axis needs at least one value", what);
	if (kscen_lcheck_keys(ld, v, what))
		return;
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start;
	     pr < v->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(ld, pr->key), *e = node(ld, pr->value);
		struct kscen_value val;

		if (!label_ok(scalar(k))) {
			kscen_lerr(ld, k, "%s: label '%s' must be 1 to %d letters, digits or _.+-",
				   what, scalar(k), LABEL_MAX);
			continue;
		}
		if (kscen_lcheck_scalar(ld, e, p, &val))
			continue;
		kscen_value_fini(&val);
		for (unsigned i = 0; i < kv->nr_values; i++)
			if (strcmp(kv->values[i], scalar(e)) == 0)
				kscen_lerr(ld, e, "%s: labels %s and %s have the same value",
					   what, kv->labels[i], scalar(k));
		kv_add_value(kv, e, scalar(k));
	}
}

/*
 * Read a params-like mapping of @w's parameters: the params themselves
 * (@decl NULL: axes allowed), or a selector of them (include, exclude,
 * baseline: single values, which may be labels of @decl's axes). Each value
 * is checked against its parameter's type, and an axis must not repeat a
 * value or a label.
 */
static void read_map(struct kscen_loader *ld, yaml_node_t *n,
		     const struct kscen_workload *w, const struct kscen_map *decl,
		     const char *where, struct kscen_map *out, bool inherit);

void kscen_read_map(struct kscen_loader *ld, yaml_node_t *n,
		    const struct kscen_workload *w, const struct kscen_map *decl,
		    const char *where, struct kscen_map *out)
{
	memset(out, 0, sizeof(*out));
	out->mark = kscen_ynode_mark(n);
	read_map(ld, n, w, decl, where, out, false);
}

void kscen_inherit_defaults(struct kscen_loader *ld, yaml_node_t *n,
			    const struct kscen_workload *w, const char *where,
			    struct kscen_map *params)
{
	read_map(ld, n, w, NULL, where, params, true);
}

/*
 * The entries of mapping @n into @out; with @inherit (defaults: params),
 * only those of @w's parameters that @out has not got, after its own.
 */
static void read_map(struct kscen_loader *ld, yaml_node_t *n,
		     const struct kscen_workload *w, const struct kscen_map *decl,
		     const char *where, struct kscen_map *out, bool inherit)
{
	bool axes = !decl;

	if (n->type != YAML_MAPPING_NODE) {
		kscen_lerr(ld, n, "%s: must be a mapping of parameter: value", where);
		return;
	}
	if (kscen_lcheck_keys(ld, n, where))
		return;
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
	     pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(ld, pr->key), *v = node(ld, pr->value);
		const struct kscen_param *p = kscen_param_find(w, scalar(k));
		struct kscen_kv *kv;

		if (inherit && (!p || kscen_map_find(out, p->name)))
			continue;	/* not this workload's, or the job's own */
		if (!p) {
			const char *names[64];
			unsigned nr = 0;

			for (; nr < w->nr_params && nr < 64; nr++)
				names[nr] = w->params[nr].name;
			const char *hint = kscen_closest(scalar(k), names, nr);
			char hb[160];

			kscen_lerr(ld, k, "%s: workload %s has no parameter '%s'%s", where,
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
			const char *text = decl ? unlabel(kscen_map_find(decl, p->name),
							  scalar(v)) : scalar(v);

			if (kscen_lcheck_text(ld, v, p, text, &val) == 0)
				kscen_value_fini(&val);
			kv_add_value(kv, v, NULL);
			if (text != scalar(v)) {
				free(kv->values[0]);
				kv->values[0] = kscen_xstrdup(text);
			}
			continue;
		}
		if (v->type == YAML_MAPPING_NODE && axes) {
			read_labeled_axis(ld, v, p, where, kv);
			continue;
		}
		if (v->type != YAML_SEQUENCE_NODE || !axes) {
			kscen_lerr(ld, v, "%s: %s must be a single value%s", where,
			     p->name, axes ? ", a list of values or a mapping of label: value" : "");
			/* Not kept: a kv without a value must not reach the checks. */
			free(kv->key);
			out->nr--;
			continue;
		}
		read_axis(ld, v, p, where, kv);
	}
}

const struct kscen_kv *kscen_map_find(const struct kscen_map *m, const char *key)
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
void kscen_check_selector(struct kscen_loader *ld, const struct kscen_job_spec *j,
			   const struct kscen_map *sel, const char *where)
{
	char err[256];

	for (unsigned i = 0; i < sel->nr; i++) {
		const struct kscen_kv *kv = &sel->kv[i];
		const struct kscen_kv *decl = kscen_map_find(&j->params, kv->key);
		const struct kscen_param *p = kscen_param_find(j->workload, kv->key);
		struct kscen_value a, b;
		bool on_axis = false;

		if (!decl) {
			kscen_lerr_at(ld, kv->key_mark,
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
			kscen_lerr_at(ld, kv->marks[0],
					 "%s: %s=%s is not one of the values of %s",
					 where, kv->key, kv->values[0], kv->key);
		}
	}
}

void kscen_read_selectors(struct kscen_loader *ld, struct kscen_job_spec *j,
			   yaml_node_t *n, const char *what,
			   struct kscen_map **out, unsigned *nr)
{
	if (!n)
		return;
	if (n->type != YAML_SEQUENCE_NODE) {
		kscen_lerr(ld, n, "job %s: %s must be a list of mappings", j->name, what);
		return;
	}
	if (n->data.sequence.items.top - n->data.sequence.items.start > MAX_SELECTORS) {
		kscen_lerr(ld, n, "job %s: %s: more than %d entries", j->name, what, MAX_SELECTORS);
		return;
	}
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		char where[128];

		snprintf(where, sizeof(where), "job %s: %s", j->name, what);
		*out = kscen_xrealloc(*out, (*nr + 1) * sizeof(**out));
		kscen_read_map(ld, node(ld, *it), j->workload, &j->params, where,
			       &(*out)[(*nr)++]);
	}
}

void kscen_map_fini(struct kscen_map *m)
{
	for (unsigned i = 0; i < m->nr; i++) {
		for (unsigned v = 0; v < m->kv[i].nr_values; v++) {
			if (!m->kv[i].arena)
				free(m->kv[i].values[v]);
			if (m->kv[i].labels)
				free(m->kv[i].labels[v]);
		}
		free(m->kv[i].arena);
		/* Read, not written: its pages may be shared with a child still */
		for (unsigned v = 0; m->kv[i].parsed && v < m->kv[i].nr_values; v++)
			free(m->kv[i].parsed[v].s);
		free(m->kv[i].parsed);
		free(m->kv[i].values);
		free(m->kv[i].labels);
		free(m->kv[i].marks);
		free(m->kv[i].key);
	}
	free(m->kv);
}
