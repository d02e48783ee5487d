// SPDX-License-Identifier: GPL-2.0
/*
 * expand_stream.c - a scenario's jobs one at a time (kscen_expand_begin(),
 * _next(), _end()), for `plan` and `validate`: the same jobs in the same
 * order and with the same errors as kscen_expand() (expand.c), in memory
 * that does not grow with the matrix.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand_priv.h"
#include "util.h"

/* ---- One job at a time (plan, validate) -------------------------------- */

/*
 * The same jobs in the same order as kscen_expand(), in memory that does
 * not grow with the matrix. Each value of an axis is parsed, and its part
 * of the id built, once; an exclude is a set of values per axis; a job's id
 * is rebuilt from the first axis that changed. The includes, being few, are
 * built whole beforehand. Two jobs with one id: see twin_pieces().
 */

/* One key of an entry's params (a scalar is an axis of one value). */
struct axis {
	const struct kscen_param *p;	/* NULL: not one of the workload's */
	unsigned nr;
	struct kscen_value *val;	/* per value */
	char **err;			/* per value: why it does not parse, or NULL */
	char **piece;			/* per value: "key=value" as ids show it */
	size_t max_piece;
};

/* An exclude, as the values it matches on each axis. */
struct xsel {
	bool never;			/* it names a value no job of the matrix has */
	bool **ok;			/* per axis: NULL (any value) or per value */
};

struct xentry {
	const struct kscen_job_spec *j;
	struct axis *axis;		/* per key of params, in order */
	unsigned nr_axes;
	int *axis_of;			/* per workload param: its axis or -1 */
	struct kscen_value *fixed;	/* per workload param of no axis: default */
	char **fixed_err;
	struct xsel *ex;
	unsigned long total;		/* combinations of the axes */
	struct kscen_value **inc_val;	/* per include: its values */
	char **inc_id;
	unsigned nr_inc;		/* includes ready */
	size_t max_id;			/* bytes of the longest id of the matrix */
};

struct kscen_expander {
	const struct kscen_scenario *s;
	struct xentry *e;
	unsigned nr_e;			/* entries prepared */
	/* Where the walk is: entry, combination, include. */
	unsigned cur;
	unsigned long n;
	unsigned *idx;			/* the combination's value per axis */
	unsigned inc;
	unsigned dirty;			/* id[] is right up to this axis's piece */
	char *id;
	size_t *pos;			/* per axis: where its piece starts in id[] */
	uint64_t *hpos;			/* per axis: hash of id[] before that */
	uint64_t hash;			/* of the whole id */
	void *params;			/* borrows the values: free() it alone */
	/*
	 * Two jobs with one id: known when the walk begins (twice_id), or, where
	 * an axis shows two values alike, the hashes of the ids so far and
	 * those seen twice.
	 */
	char *twice_id;
	const struct kscen_job_spec *twice_spec;
	uint64_t *seen;
	unsigned bits;
	uint64_t *dup;
	size_t nr_dup, cap_dup;
	bool rescan;			/* just looking up the twice-seen ids */
	bool done;
};

/* FNV-1a, 64 bits, continued from @h. */
static uint64_t hash_bytes(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}
#define HASH_INIT	0xcbf29ce484222325ULL

/* Next combination: returns the first axis that changed. */
static unsigned next_combo(const struct xentry *e, unsigned *idx)
{
	for (int a = (int)e->nr_axes - 1; a >= 0; a--) {
		if (++idx[a] < e->axis[a].nr)
			return a;
		idx[a] = 0;
	}
	return 0;
}

static bool excluded(const struct xentry *e, const unsigned *idx)
{
	for (unsigned x = 0; x < e->j->nr_exclude; x++) {
		const struct xsel *xs = &e->ex[x];
		bool all = !xs->never;

		for (unsigned a = 0; all && a < e->nr_axes; a++)
			all = !xs->ok[a] || xs->ok[a][idx[a]];
		if (all)
			return true;
	}
	return false;
}

/* The value of workload param @i in combination @idx. */
static const struct kscen_value *value_at(const struct xentry *e, unsigned i,
					  const unsigned *idx)
{
	int a = e->axis_of[i];

	return a >= 0 ? &e->axis[a].val[idx[a]] : &e->fixed[i];
}

/* The id of combination @idx, whole (malloc'ed). */
static char *matrix_id(const struct xentry *e, const unsigned *idx)
{
	char *id = kscen_xmalloc(e->max_id + 1), *p;

	p = stpcpy(id, e->j->name);
	for (unsigned a = 0; a < e->nr_axes; a++) {
		*p++ = a ? ',' : '/';
		p = stpcpy(p, e->axis[a].piece[idx[a]]);
	}
	return id;
}

static void xentry_fini(struct xentry *e)
{
	const struct kscen_job_spec *j = e->j;
	const struct kscen_workload *w = j->workload;

	for (unsigned a = 0; a < e->nr_axes; a++) {
		struct axis *ax = &e->axis[a];

		for (unsigned v = 0; v < ax->nr; v++) {
			kscen_value_fini(&ax->val[v]);
			free(ax->err[v]);
			free(ax->piece[v]);
		}
		free(ax->val);
		free(ax->err);
		free(ax->piece);
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
			kscen_value_fini(&e->inc_val[i][k]);
		free(e->inc_val[i]);
		free(e->inc_id[i]);
	}
	free(e->inc_val);
	free(e->inc_id);
	free(e->ex);
	free(e->axis);
	free(e->axis_of);
	free(e->fixed);
	free(e->fixed_err);
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
	e->fixed = kscen_xcalloc(w->nr_params + 1, sizeof(*e->fixed));
	e->fixed_err = kscen_xcalloc(w->nr_params + 1, sizeof(*e->fixed_err));
	e->total = 1;
	e->max_id = strlen(j->name);
	for (unsigned i = 0; i < w->nr_params; i++)
		e->axis_of[i] = -1;
	for (unsigned a = 0; a < e->nr_axes; a++) {
		const struct kscen_kv *kv = &j->params.kv[a];
		struct axis *ax = &e->axis[a];

		ax->p = kscen_param_find(w, kv->key);
		ax->nr = kv->nr_values;
		ax->val = kscen_xcalloc(ax->nr + 1, sizeof(*ax->val));
		ax->err = kscen_xcalloc(ax->nr + 1, sizeof(*ax->err));
		ax->piece = kscen_xcalloc(ax->nr + 1, sizeof(*ax->piece));
		e->total *= ax->nr;	/* bounded by the caller */
		if (ax->p && e->axis_of[ax->p - w->params] < 0)
			e->axis_of[ax->p - w->params] = a;
		for (unsigned v = 0; v < ax->nr; v++) {
			char *shown = kv->labels ? kscen_xstrdup(kv->labels[v])
						 : expand_id_value(kv->values[v]);
			size_t len = strlen(kv->key) + 1 + expand_id_len(shown);

			if (ax->p && kscen_value_parse(ax->p, kv->values[v], &ax->val[v],
						       err, sizeof(err)))
				ax->err[v] = kscen_xstrdup(err);
			ax->piece[v] = kscen_xmalloc(len + 1);
			expand_id_put(stpcpy(stpcpy(ax->piece[v], kv->key), "="), shown);
			if (len > ax->max_piece)
				ax->max_piece = len;
			free(shown);
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

/* The error kscen_expand() meets first in the matrix, if any: as it does. */
static int matrix_error(const struct xentry *e)
{
	const struct kscen_workload *w = e->j->workload;
	unsigned *idx = kscen_xcalloc(e->nr_axes + 1, sizeof(*idx));
	bool bad = false;
	int ret = 0;

	for (unsigned i = 0; i < w->nr_params; i++)
		bad |= e->fixed_err[i] != NULL;
	for (unsigned a = 0; a < e->nr_axes; a++)
		for (unsigned v = 0; v < e->axis[a].nr; v++)
			bad |= e->axis[a].err[v] != NULL;
	for (unsigned long n = 0; bad && !ret && n < e->total; n++) {
		for (unsigned i = 0; i < w->nr_params && !ret; i++) {
			int a = e->axis_of[i];
			const char *why = a >= 0 ? e->axis[a].err[idx[a]] : e->fixed_err[i];

			if (why) {
				kscen_diag(KSCEN_DIAG_ERROR, NULL, NOWHERE, "job %s: %s",
					   e->j->name, why);
				ret = -EINVAL;
			}
		}
		next_combo(e, idx);
	}
	free(idx);
	return ret;
}

static void prepare_excludes(struct xentry *e)
{
	const struct kscen_job_spec *j = e->j;
	const struct kscen_workload *w = j->workload;
	char err[256];

	e->ex = kscen_xcalloc(j->nr_exclude + 1, sizeof(*e->ex));
	for (unsigned x = 0; x < j->nr_exclude; x++) {
		const struct kscen_map *sel = &j->exclude[x];
		struct xsel *xs = &e->ex[x];

		xs->ok = kscen_xcalloc(e->nr_axes + 1, sizeof(*xs->ok));
		for (unsigned k = 0; k < sel->nr; k++) {
			const struct kscen_param *p = kscen_param_find(w, sel->kv[k].key);
			struct kscen_value v;
			struct axis *ax;
			int a;

			if (!p || kscen_value_parse(p, sel->kv[k].values[0], &v,
						    err, sizeof(err))) {
				xs->never = true;	/* as matches() */
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
		left = !excluded(e, idx);
		next_combo(e, idx);
	}
	free(idx);
	return left;
}

static bool same_values(const struct kscen_workload *w, const struct kscen_value *a,
			const struct kscen_value *b)
{
	for (unsigned i = 0; i < w->nr_params; i++)
		if (!kscen_value_equal(&w->params[i], &a[i], &b[i]))
			return false;
	return true;
}

/*
 * The id of the first job before include @upto with the values @val: a
 * combination of the matrix that no exclude removes, or an earlier include;
 * NULL: none.
 */
static char *same_job(const struct xentry *e, const struct kscen_value *val,
		      unsigned upto)
{
	const struct kscen_workload *w = e->j->workload;
	unsigned nr = e->nr_axes;
	unsigned **m = kscen_xcalloc(nr + 1, sizeof(*m));
	unsigned *nr_m = kscen_xcalloc(nr + 1, sizeof(*nr_m));
	unsigned *c = kscen_xcalloc(nr + 1, sizeof(*c));
	unsigned *idx = kscen_xcalloc(nr + 1, sizeof(*idx));
	bool maybe = e->total > 0;
	char *id = NULL;

	for (unsigned i = 0; i < w->nr_params && maybe; i++)
		if (e->axis_of[i] < 0)
			maybe = kscen_value_equal(&w->params[i], &e->fixed[i], &val[i]);
	/* The values of each axis equal to the include's. */
	for (unsigned a = 0; a < nr && maybe; a++) {
		const struct axis *ax = &e->axis[a];

		m[a] = kscen_xcalloc(ax->nr + 1, sizeof(**m));
		for (unsigned v = 0; v < ax->nr; v++)
			if (!ax->p || kscen_value_equal(ax->p, &ax->val[v],
							&val[ax->p - w->params]))
				m[a][nr_m[a]++] = v;
		maybe = nr_m[a] > 0;
	}
	while (maybe && !id) {
		for (unsigned a = 0; a < nr; a++)
			idx[a] = m[a][c[a]];
		if (!excluded(e, idx))
			id = matrix_id(e, idx);
		maybe = false;
		for (int a = (int)nr - 1; a >= 0 && !maybe; a--) {
			maybe = ++c[a] < nr_m[a];
			if (!maybe)
				c[a] = 0;
		}
	}
	for (unsigned i = 0; i < upto && !id; i++)
		if (same_values(w, e->inc_val[i], val))
			id = kscen_xstrdup(e->inc_id[i]);
	for (unsigned a = 0; a < nr; a++)
		free(m[a]);
	free(m);
	free(nr_m);
	free(c);
	free(idx);
	return id;
}

/* The includes, as expand_entry() builds and checks them. */
static int prepare_includes(struct xentry *e)
{
	const struct kscen_job_spec *j = e->j;
	const struct kscen_map *pm = &j->params;
	struct entry_keys k;
	int ret = 0;

	expand_collect_keys(j, &k);
	e->inc_val = kscen_xcalloc(j->nr_include + 1, sizeof(*e->inc_val));
	e->inc_id = kscen_xcalloc(j->nr_include + 1, sizeof(*e->inc_id));
	for (unsigned i = 0; i < j->nr_include && !ret; i++) {
		const struct kscen_map *inc = &j->include[i];
		struct combo c = { .text = kscen_xcalloc(k.nr + 1, sizeof(char *)),
				   .label = kscen_xcalloc(k.nr + 1, sizeof(char *)) };
		char *same, **shown;

		for (unsigned p = 0; p < pm->nr; p++)
			c.text[p] = pm->kv[p].values[0];
		for (unsigned v = 0; v < inc->nr; v++) {
			int x = expand_key_index(&k, inc->kv[v].key);

			c.text[x] = inc->kv[v].values[0];
			c.label[x] = expand_label_of(pm, inc->kv[v].key, c.text[x]);
		}
		ret = expand_combo_values(j, &k, &c);
		same = ret ? NULL : same_job(e, c.val, i);
		if (same) {
			kscen_file_error(j->spec_file, inc->mark,
					 "job %s: include adds %s, which the matrix has already",
					 j->name, same);
			free(same);
			ret = -EINVAL;
		}
		if (!ret) {
			shown = expand_shown_values(&k, &c);
			e->inc_id[i] = expand_make_id(j, &k, shown);
			for (unsigned x = 0; x < k.nr; x++)
				free(shown[x]);
			free(shown);
			e->inc_val[i] = c.val;
			c.val = NULL;
			e->nr_inc++;
		}
		expand_combo_fini(j->workload, &c);
	}
	free(k.names);
	return ret;
}

/* An entry ready to walk, and the errors kscen_expand() finds before finish_job(). */
static int prepare_entry(struct xentry *e, const struct kscen_job_spec *j)
{
	int ret;

	e->j = j;
	prepare_axes(e);
	ret = matrix_error(e);
	if (ret)
		return ret;
	prepare_excludes(e);
	if (!j->nr_include && !any_left(e)) {
		kscen_file_error(j->spec_file, j->mark,
				 "job %s: exclude removes every combination", j->name);
		return -EINVAL;
	}
	return prepare_includes(e);
}

/*
 * Where two jobs can share an id. Names differ and have no '/', so jobs of
 * different entries never do. Within an entry, an id of the matrix is its
 * name, '/' and a piece per axis, none with a ',' in it: two combinations
 * share an id only if an axis has two values with the same piece ("a"
 * given once as the label of another value, a short value that reads like
 * a long one shortened). Without such an axis only an include can share
 * an id, and the few includes are checked when the walk begins.
 */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool twin_pieces(const struct kscen_expander *x)
{
	bool twin = false;

	for (unsigned i = 0; i < x->nr_e && !twin; i++) {
		for (unsigned a = 0; a < x->e[i].nr_axes && !twin; a++) {
			const struct axis *ax = &x->e[i].axis[a];
			char **v = kscen_xcalloc(ax->nr + 1, sizeof(*v));

			memcpy(v, ax->piece, ax->nr * sizeof(*v));
			qsort(v, ax->nr, sizeof(*v), cmp_str);
			for (unsigned k = 1; k < ax->nr && !twin; k++)
				twin = strcmp(v[k], v[k - 1]) == 0;
			free(v);
		}
	}
	return twin;
}

/* Is @id the id of a combination of @e's matrix that no exclude removes? */
static bool matrix_has(const struct xentry *e, const char *id)
{
	const char *p = id + strlen(e->j->name);
	unsigned *idx = kscen_xcalloc(e->nr_axes + 1, sizeof(*idx));
	bool has = e->total > 0 && strncmp(id, e->j->name, p - id) == 0 &&
		   *p == (e->nr_axes ? '/' : '\0');

	for (unsigned a = 0; a < e->nr_axes && has; a++) {
		const struct axis *ax = &e->axis[a];
		size_t len = strcspn(++p, ",");

		has = p[len] == (a + 1 < e->nr_axes ? ',' : '\0');
		for (idx[a] = 0; has && idx[a] < ax->nr; idx[a]++)
			if (strlen(ax->piece[idx[a]]) == len &&
			    !memcmp(ax->piece[idx[a]], p, len))
				break;
		has = has && idx[a] < ax->nr;
		p += len;
	}
	has = has && !excluded(e, idx);
	free(idx);
	return has;
}

/* Without twin pieces: the first id in sorting order two jobs share, if any. */
static void include_twins(struct kscen_expander *x)
{
	for (unsigned i = 0; i < x->nr_e; i++) {
		const struct xentry *e = &x->e[i];

		for (unsigned k = 0; k < e->nr_inc; k++) {
			const char *id = e->inc_id[k];
			bool twin = matrix_has(e, id);

			for (unsigned l = 0; l < k && !twin; l++)
				twin = strcmp(e->inc_id[l], id) == 0;
			if (!twin || (x->twice_id && strcmp(x->twice_id, id) <= 0))
				continue;
			free(x->twice_id);
			x->twice_id = kscen_xstrdup(id);
			x->twice_spec = e->j;
		}
	}
}

static int expander_begin(const struct kscen_scenario *s, unsigned long max_jobs,
			  bool rescan, struct kscen_expander **out)
{
	struct kscen_expander *x;
	unsigned long total;
	size_t max_id = 0, params_size = 1;
	unsigned max_axes = 0;
	int ret = 0;

	*out = NULL;
	if (expand_count_jobs(s, max_jobs, &total))
		return -E2BIG;
	x = kscen_xcalloc(1, sizeof(*x));
	x->s = s;
	x->rescan = rescan;
	x->e = kscen_xcalloc(s->nr_jobs + 1, sizeof(*x->e));
	for (unsigned i = 0; i < s->nr_jobs && !ret; i++) {
		const struct xentry *e = &x->e[i];

		ret = prepare_entry(&x->e[i], &s->jobs[i]);
		x->nr_e++;
		if (e->max_id > max_id)
			max_id = e->max_id;
		if (e->nr_axes > max_axes)
			max_axes = e->nr_axes;
		if (e->j->workload->params_size > params_size)
			params_size = e->j->workload->params_size;
	}
	if (ret) {
		kscen_expand_end(x);
		return ret;
	}
	x->id = kscen_xmalloc(max_id + 1);
	x->idx = kscen_xcalloc(max_axes + 1, sizeof(*x->idx));
	x->pos = kscen_xcalloc(max_axes + 1, sizeof(*x->pos));
	x->hpos = kscen_xcalloc(max_axes + 1, sizeof(*x->hpos));
	x->params = kscen_xcalloc(1, params_size);
	if (!rescan && !twin_pieces(x)) {
		include_twins(x);
	} else if (!rescan) {
		/* Twice as many slots as jobs at most: short probes. */
		for (x->bits = 4; (1UL << x->bits) < 2 * total; x->bits++)
			;
		x->seen = kscen_xcalloc(1UL << x->bits, sizeof(*x->seen));
	}
	*out = x;
	return 0;
}

int kscen_expand_begin(const struct kscen_scenario *s, unsigned long max_jobs,
		       struct kscen_expander **out)
{
	return expander_begin(s, max_jobs, false, out);
}

/* Build the id of the current combination from axis x->dirty on. */
static void build_id(struct kscen_expander *x, const struct xentry *e)
{
	char *p;
	uint64_t h;

	if (!x->dirty) {
		p = stpcpy(x->id, e->j->name);
		x->pos[0] = p - x->id;
		x->hpos[0] = hash_bytes(HASH_INIT, x->id, x->pos[0]);
		if (!e->nr_axes) {
			x->hash = x->hpos[0];
			return;
		}
	}
	for (unsigned a = x->dirty; a < e->nr_axes; a++) {
		p = x->id + x->pos[a];
		*p++ = a ? ',' : '/';
		p = stpcpy(p, e->axis[a].piece[x->idx[a]]);
		h = hash_bytes(x->hpos[a], x->id + x->pos[a], p - x->id - x->pos[a]);
		if (a + 1 < e->nr_axes) {
			x->pos[a + 1] = p - x->id;
			x->hpos[a + 1] = h;
		} else {
			x->hash = h;
		}
	}
	x->dirty = e->nr_axes;
}

/* check() and the metrics: list, as finish_job() does them. */
static int check_job(struct kscen_expander *x, const struct xentry *e,
		     const struct kscen_value *inc, const char *id)
{
	const struct kscen_job_spec *j = e->j;
	const struct kscen_workload *w = j->workload;
	struct kscen_metric_desc m[KSCEN_MAX_METRICS];
	unsigned nr_metrics = w->nr_metrics;

	if (!w->check && !j->nr_captures && !w->job_metrics)
		return 0;
	for (unsigned i = 0; i < w->nr_params; i++) {
		const struct kscen_param *p = &w->params[i];
		struct kscen_value v = inc ? inc[i] : *value_at(e, i, x->idx);

		if (p->type == KSCEN_P_STRING)	/* borrowed: nothing to free */
			*(char **)((char *)x->params + p->offset) = NULL;
		kscen_value_store(p, x->params, &v);
	}
	if (expand_job_metrics(j, id, x->params, m, &nr_metrics))
		return -EINVAL;
	return expand_check_params(j, id, x->params, nr_metrics);
}

/* Remember the hash of the current id; one seen before is kept in x->dup. */
static void note_id(struct kscen_expander *x)
{
	uint64_t h = x->hash ? x->hash : 1;
	size_t mask = (1UL << x->bits) - 1, i;

	if (!x->seen)
		return;
	i = (h * 0x9e3779b97f4a7c15ULL) >> (64 - x->bits);
	for (; x->seen[i]; i = (i + 1) & mask) {
		if (x->seen[i] != h)
			continue;
		if (x->nr_dup == x->cap_dup) {
			x->cap_dup = x->cap_dup ? 2 * x->cap_dup : 16;
			x->dup = kscen_xrealloc(x->dup, x->cap_dup * sizeof(*x->dup));
		}
		x->dup[x->nr_dup++] = h;
		return;
	}
	x->seen[i] = h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

struct twice {
	char *id;
	const struct kscen_job_spec *spec;
};

static int cmp_twice(const void *a, const void *b)
{
	return strcmp(((const struct twice *)a)->id, ((const struct twice *)b)->id);
}

/*
 * Some hashes were seen twice: walk the jobs again for their ids, and
 * report the first id two jobs share, in the order check_unique() does.
 */
static int check_twice(struct kscen_expander *x)
{
	struct kscen_expander *y;
	struct kscen_job_ref job;
	struct twice *t = NULL;
	size_t nr = 0, cap = 0;
	int ret, r;

	qsort(x->dup, x->nr_dup, sizeof(*x->dup), cmp_u64);
	ret = expander_begin(x->s, ~0UL, true, &y);
	while (!ret && (r = kscen_expand_next(y, &job)) > 0) {
		uint64_t h = y->hash ? y->hash : 1;

		if (!bsearch(&h, x->dup, x->nr_dup, sizeof(h), cmp_u64))
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 16;
			t = kscen_xrealloc(t, cap * sizeof(*t));
		}
		t[nr++] = (struct twice){ kscen_xstrdup(job.id), job.spec };
	}
	kscen_expand_end(y);
	qsort(t, nr, sizeof(*t), cmp_twice);
	for (size_t i = 1; i < nr && !ret; i++) {
		if (strcmp(t[i].id, t[i - 1].id))
			continue;
		kscen_file_error(x->s->file, t[i].spec->mark,
				 "job %s: two jobs have the id %s", t[i].spec->name, t[i].id);
		ret = -EINVAL;
	}
	for (size_t i = 0; i < nr; i++)
		free(t[i].id);
	free(t);
	return ret;
}

int kscen_expand_next(struct kscen_expander *x, struct kscen_job_ref *job)
{
	while (!x->done && x->cur < x->nr_e) {
		const struct xentry *e = &x->e[x->cur];
		const struct kscen_value *inc = NULL;
		const char *id;
		int ret;

		if (x->n < e->total) {
			bool out = excluded(e, x->idx);
			unsigned changed;

			if (!out)
				build_id(x, e);
			if (!out && (ret = check_job(x, e, NULL, x->id)))
				goto fail;
			changed = next_combo(e, x->idx);
			if (changed < x->dirty)
				x->dirty = changed;
			x->n++;
			if (out)
				continue;
			id = x->id;
		} else if (x->inc < e->nr_inc) {
			inc = e->inc_val[x->inc];
			id = e->inc_id[x->inc++];
			if ((ret = check_job(x, e, inc, id)))
				goto fail;
			x->hash = hash_bytes(HASH_INIT, id, strlen(id));
		} else {
			x->cur++;
			x->n = x->inc = x->dirty = 0;
			continue;
		}
		note_id(x);
		job->id = id;
		job->spec = e->j;
		return 1;
fail:
		x->done = true;
		return ret;
	}
	if (x->done)
		return 0;
	x->done = true;
	if (x->twice_id) {
		kscen_file_error(x->s->file, x->twice_spec->mark,
				 "job %s: two jobs have the id %s", x->twice_spec->name,
				 x->twice_id);
		return -EINVAL;
	}
	return x->nr_dup ? check_twice(x) : 0;
}

void kscen_expand_end(struct kscen_expander *x)
{
	if (!x)
		return;
	for (unsigned i = 0; i < x->nr_e; i++)
		xentry_fini(&x->e[i]);
	free(x->e);
	free(x->idx);
	free(x->pos);
	free(x->hpos);
	free(x->id);
	free(x->params);
	free(x->twice_id);
	free(x->seen);
	free(x->dup);
	free(x);
}
