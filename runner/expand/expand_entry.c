// SPDX-License-Identifier: GPL-2.0
/*
 * expand_entry.c - one entry of a scenario made ready for the walk
 * (expand.c): each axis value parsed and its piece of an id built once,
 * values alike on an axis found, each exclude made a set of values per
 * axis, the baseline's value on each axis it names, the includes built
 * whole; and the errors found before a single job is looked at.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand_priv.h"
#include "lib/util.h"

void expand_entry_fini(struct xentry *e)
{
	const struct kscen_job_spec *j = e->j;
	const struct kscen_workload *w = j->workload;

	for (unsigned a = 0; a < e->nr_axes; a++) {
		struct axis *ax = &e->axis[a];

		for (unsigned v = 0; v < ax->nr; v++) {
			if (ax->val != ax->kv->parsed)
				kscen_value_fini(&ax->val[v]);
			if (ax->err)
				free(ax->err[v]);
		}
		if (ax->val != ax->kv->parsed)
			free(ax->val);
		free(ax->pieces);
		free(ax->err);
		if (ax->piece != ax->kv->values)
			free(ax->piece);
		free(ax->same_first);
		free(ax->same_next);
		free(ax->str);
	}
	for (unsigned x = 0; e->ex && x < j->nr_exclude; x++) {
		for (unsigned a = 0; a < e->nr_axes; a++)
			free(e->ex[x].ok[a]);
		free(e->ex[x].ok);
	}
	for (unsigned i = 0; i < w->nr_params; i++) {
		kscen_value_fini(&e->fixed[i]);
		free(e->fixed_err[i]);
	}
	for (unsigned i = 0; i < e->nr_inc; i++) {
		for (unsigned k = 0; k < w->nr_params; k++)
			kscen_value_fini(&e->inc[i].val[k]);
		free(e->inc[i].val);
		free(e->inc[i].text);
		free(e->inc[i].label);
		free(e->inc[i].id);
	}
	free(e->inc);
	free(e->inc_hash);
	free(e->keys);
	free(e->ex);
	free(e->axis);
	free(e->axis_of);
	free(e->in_base);
	free(e->fixed);
	free(e->fixed_err);
}

/* Two values of one axis by value, then by position. */
static int cmp_value(const void *x, const void *y, void *arg)
{
	const struct axis *ax = arg;
	const struct kscen_value *a = &ax->val[*(const unsigned *)x];
	const struct kscen_value *b = &ax->val[*(const unsigned *)y];
	int c;

	if (ax->p->type == KSCEN_P_STRING)
		c = strcmp(a->s ? a->s : "", b->s ? b->s : "");
	else
		c = (a->i > b->i) - (a->i < b->i);
	if (!c)
		c = (*(const unsigned *)x > *(const unsigned *)y) -
		    (*(const unsigned *)x < *(const unsigned *)y);
	return c;
}

/*
 * Values alike on one axis: a labeled axis is checked by its texts only,
 * so it may give one value twice (1k and 1024). Where it does, each
 * value's class: the first of the values equal to it, and the next one
 * (-1: none). Sorted, values alike are neighbours. A list's values were
 * checked by value (scenario_map.c refuses one given twice): none alike.
 */
static void prepare_alike(struct axis *ax)
{
	unsigned *v;

	if (!ax->p || ax->nr < 2 || !ax->kv->labels)
		return;
	v = kscen_xcalloc(ax->nr, sizeof(*v));
	for (unsigned i = 0; i < ax->nr; i++)
		v[i] = i;
	qsort_r(v, ax->nr, sizeof(*v), cmp_value, ax);
	for (unsigned i = 1; i < ax->nr; i++) {
		if (!kscen_value_equal(ax->p, &ax->val[v[i - 1]], &ax->val[v[i]]))
			continue;
		if (!ax->same_first) {
			ax->same_first = kscen_xcalloc(ax->nr, sizeof(int));
			ax->same_next = kscen_xcalloc(ax->nr, sizeof(int));
			for (unsigned k = 0; k < ax->nr; k++) {
				ax->same_first[k] = k;
				ax->same_next[k] = -1;
			}
		}
		ax->same_first[v[i]] = ax->same_first[v[i - 1]];
		ax->same_next[v[i - 1]] = v[i];
	}
	free(v);
}

/*
 * Each value of @ax as ids show it: a label, the text, or a long text's
 * short form, escaped. A list's texts themselves where that is what
 * they are; else one block of them all, each made once.
 */
static void prepare_pieces(struct axis *ax)
{
	const struct kscen_kv *kv = ax->kv;
	size_t key = strlen(kv->key) + 1, at = 0, room = 0, *off;
	bool own = kv->labels != NULL;

	for (unsigned v = 0; v < ax->nr && !own; v++) {
		size_t n = strlen(kv->values[v]);

		own = n > ID_VALUE_MAX || expand_id_len(kv->values[v]) != n;
		if (key + n > ax->max_piece)
			ax->max_piece = key + n;
	}
	if (!own) {
		ax->piece = kv->values;
		return;
	}
	ax->max_piece = 0;
	off = kscen_xcalloc(ax->nr + 1, sizeof(*off));
	for (unsigned v = 0; v < ax->nr; v++) {
		const char *text = kv->labels ? kv->labels[v] : kv->values[v];
		bool shorten = !kv->labels && strlen(text) > ID_VALUE_MAX;
		char *shown = shorten ? expand_id_value(text) : (char *)text;
		size_t len = expand_id_len(shown);

		while (at + len + 1 > room) {	/* offsets, while it moves */
			room = room ? 2 * room : 4096;
			ax->pieces = kscen_xrealloc(ax->pieces, room);
		}
		off[v] = at;
		at = expand_id_put(ax->pieces + at, shown) + 1 - ax->pieces;
		ax->shortened |= shorten;
		if (key + len > ax->max_piece)
			ax->max_piece = key + len;
		if (shorten)
			free(shown);
	}
	ax->piece = kscen_xcalloc(ax->nr + 1, sizeof(*ax->piece));
	for (unsigned v = 0; v < ax->nr; v++)
		ax->piece[v] = ax->pieces + off[v];
	free(off);
}

/* Each axis value and each default parsed, each axis value's id piece. */
static void prepare_axes(struct xentry *e)
{
	const struct kscen_job_spec *j = e->j;
	const struct kscen_workload *w = j->workload;
	char err[256];

	e->nr_axes = j->params.nr;
	e->axis = kscen_xcalloc(e->nr_axes + 1, sizeof(*e->axis));
	e->axis_of = kscen_xcalloc(w->nr_params + 1, sizeof(*e->axis_of));
	e->in_base = kscen_xcalloc(w->nr_params + 1, sizeof(*e->in_base));
	e->fixed = kscen_xcalloc(w->nr_params + 1, sizeof(*e->fixed));
	e->fixed_err = kscen_xcalloc(w->nr_params + 1, sizeof(*e->fixed_err));
	e->total = 1;
	e->max_id = strlen(j->name);
	for (unsigned i = 0; i < w->nr_params; i++)
		e->axis_of[i] = -1;
	for (unsigned a = 0; a < e->nr_axes; a++) {
		const struct kscen_kv *kv = &j->params.kv[a];
		struct axis *ax = &e->axis[a];

		ax->kv = kv;
		ax->p = kscen_param_find(w, kv->key);
		ax->nr = kv->nr_values;
		ax->base = -1;
		/* A list's values are parsed by the loader; others here. */
		ax->val = kv->parsed ? kv->parsed : kscen_xcalloc(ax->nr + 1, sizeof(*ax->val));
		e->total *= ax->nr;	/* bounded by the caller */
		if (ax->p && e->axis_of[ax->p - w->params] < 0)
			e->axis_of[ax->p - w->params] = a;
		prepare_pieces(ax);
		for (unsigned v = 0; v < ax->nr && !kv->parsed; v++)
			if (ax->p && kscen_value_parse(ax->p, kv->values[v], &ax->val[v],
						       err, sizeof(err))) {
				if (!ax->err)
					ax->err = kscen_xcalloc(ax->nr + 1, sizeof(*ax->err));
				ax->err[v] = kscen_xstrdup(err);
			}
		e->max_id += 1 + ax->max_piece;
	}
	for (unsigned i = 0; i < w->nr_params; i++) {
		const struct kscen_param *p = &w->params[i];

		if (e->axis_of[i] < 0 &&
		    kscen_value_parse(p, p->def ? p->def : "", &e->fixed[i], err, sizeof(err)))
			e->fixed_err[i] = kscen_xstrdup(err);
	}
}

/* The first error of a value in the matrix's order, if any. */
static int matrix_error(const struct xentry *e)
{
	const struct kscen_workload *w = e->j->workload;
	unsigned *idx = kscen_xcalloc(e->nr_axes + 1, sizeof(*idx));
	bool bad = false;
	int ret = 0;

	for (unsigned i = 0; i < w->nr_params; i++)
		bad |= e->fixed_err[i] != NULL;
	for (unsigned a = 0; a < e->nr_axes; a++)
		bad |= e->axis[a].err != NULL;
	for (unsigned long n = 0; bad && !ret && n < e->total; n++) {
		for (unsigned i = 0; i < w->nr_params && !ret; i++) {
			int a = e->axis_of[i];
			const char *why = a < 0 ? e->fixed_err[i] :
					  e->axis[a].err ? e->axis[a].err[idx[a]] : NULL;

			if (why) {
				kscen_diag(KSCEN_DIAG_ERROR, NULL, NOWHERE, "job %s: %s",
					   e->j->name, why);
				ret = -EINVAL;
			}
		}
		expand_next_combo(e, idx);
	}
	free(idx);
	return ret;
}

/* The value of @kv, a key of a selector: its param, NULL if it has none. */
static const struct kscen_param *selector_value(const struct kscen_workload *w,
						const struct kscen_kv *kv,
						struct kscen_value *v)
{
	const struct kscen_param *p = kscen_param_find(w, kv->key);
	char err[256];

	return p && !kscen_value_parse(p, kv->values[0], v, err, sizeof(err)) ? p : NULL;
}

/* An exclude: per axis, the values it names; or never, for one no job has. */
static void prepare_excludes(struct xentry *e)
{
	const struct kscen_job_spec *j = e->j;
	const struct kscen_workload *w = j->workload;

	e->ex = kscen_xcalloc(j->nr_exclude + 1, sizeof(*e->ex));
	for (unsigned x = 0; x < j->nr_exclude; x++) {
		const struct kscen_map *sel = &j->exclude[x];
		struct xsel *xs = &e->ex[x];

		xs->ok = kscen_xcalloc(e->nr_axes + 1, sizeof(*xs->ok));
		for (unsigned k = 0; k < sel->nr; k++) {
			struct kscen_value v;
			const struct kscen_param *p = selector_value(w, &sel->kv[k], &v);
			struct axis *ax;
			int a;

			if (!p) {
				xs->never = true;
				continue;
			}
			a = e->axis_of[p - w->params];
			if (a < 0) {
				xs->never |= !kscen_value_equal(p, &v, &e->fixed[p - w->params]);
				kscen_value_fini(&v);
				continue;
			}
			ax = &e->axis[a];
			if (!xs->ok[a]) {
				xs->ok[a] = kscen_xmalloc(ax->nr * sizeof(bool) + 1);
				memset(xs->ok[a], 1, ax->nr * sizeof(bool));
			}
			for (unsigned i = 0; i < ax->nr; i++)
				xs->ok[a][i] &= kscen_value_equal(p, &v, &ax->val[i]);
			kscen_value_fini(&v);
		}
	}
}

/* Is there a combination that no exclude removes? */
static bool any_left(const struct xentry *e)
{
	unsigned *idx = kscen_xcalloc(e->nr_axes + 1, sizeof(*idx));
	bool left = false;

	for (unsigned long n = 0; !left && n < e->total; n++) {
		left = !expand_excluded(e, idx);
		expand_next_combo(e, idx);
	}
	free(idx);
	return left;
}

/* The baseline's value on each axis it names, and the params it names. */
static void prepare_baseline(struct xentry *e)
{
	const struct kscen_workload *w = e->j->workload;

	for (unsigned k = 0; k < e->j->baseline.nr; k++) {
		const struct kscen_kv *kv = &e->j->baseline.kv[k];
		const struct kscen_param *p = kscen_param_find(w, kv->key);
		struct kscen_value v;
		struct axis *ax;

		if (p)
			e->in_base[p - w->params] = true;
		if (!p || e->axis_of[p - w->params] < 0 || !selector_value(w, kv, &v))
			continue;
		ax = &e->axis[e->axis_of[p - w->params]];
		for (unsigned i = 0; i < ax->nr && ax->base < 0; i++)
			if (kscen_value_equal(p, &v, &ax->val[i]))
				ax->base = i;
		kscen_value_fini(&v);
	}
}

/* ---- Includes ---------------------------------------------------------- */

/* The declared keys: the params', then those only includes give. */
static void collect_keys(struct xentry *e)
{
	const struct kscen_job_spec *j = e->j;
	unsigned max = j->params.nr;

	for (unsigned i = 0; i < j->nr_include; i++)
		max += j->include[i].nr;
	e->keys = kscen_xcalloc(max + 1, sizeof(*e->keys));
	for (unsigned i = 0; i < j->params.nr; i++)
		e->keys[e->nr_keys++] = j->params.kv[i].key;
	for (unsigned i = 0; i < j->nr_include; i++) {
		for (unsigned v = 0; v < j->include[i].nr; v++) {
			const char *key = j->include[i].kv[v].key;
			bool seen = false;

			for (unsigned x = 0; x < e->nr_keys && !seen; x++)
				seen = strcmp(e->keys[x], key) == 0;
			if (!seen)
				e->keys[e->nr_keys++] = key;
		}
	}
}

static int key_index(const struct xentry *e, const char *key)
{
	for (unsigned i = 0; i < e->nr_keys; i++)
		if (strcmp(e->keys[i], key) == 0)
			return i;
	return -1;
}

/*
 * Include @inc's texts (an axis it does not name: the axis's first value)
 * and its values, defaults where not given.
 */
static int include_values(const struct xentry *e, const struct kscen_map *inc,
			  struct xinclude *xi)
{
	const struct kscen_job_spec *j = e->j;
	const struct kscen_map *pm = &j->params;
	const struct kscen_workload *w = j->workload;
	char err[256];

	xi->text = kscen_xcalloc(e->nr_keys + 1, sizeof(*xi->text));
	xi->label = kscen_xcalloc(e->nr_keys + 1, sizeof(*xi->label));
	xi->val = kscen_xcalloc(w->nr_params + 1, sizeof(*xi->val));
	for (unsigned p = 0; p < pm->nr; p++)
		xi->text[p] = pm->kv[p].values[0];
	for (unsigned v = 0; v < inc->nr; v++) {
		int x = key_index(e, inc->kv[v].key);

		xi->text[x] = inc->kv[v].values[0];
		xi->label[x] = expand_label_of(pm, inc->kv[v].key, xi->text[x]);
	}
	for (unsigned i = 0; i < w->nr_params; i++) {
		const struct kscen_param *p = &w->params[i];
		int k = key_index(e, p->name);
		const char *text = k >= 0 && xi->text[k] ? xi->text[k] : p->def;

		if (kscen_value_parse(p, text ? text : "", &xi->val[i], err, sizeof(err))) {
			kscen_diag(KSCEN_DIAG_ERROR, NULL, NOWHERE, "job %s: %s", j->name, err);
			return -EINVAL;
		}
	}
	return 0;
}

static void include_fini(const struct kscen_workload *w, struct xinclude *xi)
{
	for (unsigned k = 0; xi->val && k < w->nr_params; k++)
		kscen_value_fini(&xi->val[k]);
	free(xi->val);
	free(xi->text);
	free(xi->label);
	memset(xi, 0, sizeof(*xi));
}

/* The includes, each refused if a job before it has its values. */
static int prepare_includes(struct xentry *e)
{
	const struct kscen_job_spec *j = e->j;
	int *cls = kscen_xcalloc(e->nr_axes + 1, sizeof(*cls));
	int ret = 0;

	collect_keys(e);
	e->inc = kscen_xcalloc(j->nr_include + 1, sizeof(*e->inc));
	for (unsigned i = 0; i < j->nr_include && !ret; i++) {
		struct xinclude *xi = &e->inc[i];
		long long same;
		char *id;

		ret = include_values(e, &j->include[i], xi);
		if (ret) {
			include_fini(j->workload, xi);
			break;
		}
		expand_classes(e, xi->val, NULL, cls);
		same = expand_find(e, xi->val, cls, NULL, false, e->total + i);
		if (same >= 0) {
			unsigned *idx = kscen_xcalloc(e->nr_axes + 1, sizeof(*idx));

			expand_idx_of_slot(e, same, idx);
			id = (unsigned long long)same < e->total ? expand_matrix_id(e, idx)
				: kscen_xstrdup(e->inc[same - e->total].id);
			kscen_file_error(j->spec_file, j->include[i].mark,
					 "job %s: include adds %s, which the matrix has already",
					 j->name, id);
			free(id);
			free(idx);
			include_fini(j->workload, xi);
			ret = -EINVAL;
			break;
		}
		xi->id = expand_include_id(e, xi);
		e->nr_inc++;
	}
	free(cls);
	if (ret)
		return ret;
	e->inc_hash = kscen_xcalloc(e->nr_inc + 1, sizeof(*e->inc_hash));
	for (unsigned i = 0; i < e->nr_inc; i++)
		e->inc_hash[i] = (struct inc_hash){ expand_values_hash(j->workload, e->inc[i].val), i };
	qsort(e->inc_hash, e->nr_inc, sizeof(*e->inc_hash), expand_cmp_inc_hash);
	return 0;
}

/* An entry ready to walk, and the errors found before its jobs are checked. */
int expand_entry_prepare(struct xentry *e, const struct kscen_job_spec *j)
{
	int ret;

	e->j = j;
	prepare_axes(e);
	ret = matrix_error(e);
	if (ret)
		return ret;
	for (unsigned a = 0; a < e->nr_axes; a++)
		prepare_alike(&e->axis[a]);
	prepare_excludes(e);
	prepare_baseline(e);
	if (!j->nr_include && !any_left(e)) {
		kscen_file_error(j->spec_file, j->mark,
				 "job %s: exclude removes every combination", j->name);
		return -EINVAL;
	}
	return prepare_includes(e);
}
