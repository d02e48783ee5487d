// SPDX-License-Identifier: GPL-2.0
/*
 * expand_matrix.c - an entry's matrix as the walk (expand.c) and the
 * jobs it keeps (expand_jobs.c) read it: combinations in order, the
 * excluded ones, a combination's values, id and slot, and a job found by
 * its values (a baseline, a previous job, an include the matrix has
 * already).
 */
#include <stdlib.h>
#include <string.h>

#include "expand_priv.h"
#include "lib/util.h"

/* The id of combination @idx, whole (malloc'ed). */
char *expand_matrix_id(const struct xentry *e, const unsigned *idx)
{
	char *id = kscen_xmalloc(e->max_id + 1), *p;

	p = stpcpy(id, e->j->name);
	for (unsigned a = 0; a < e->nr_axes; a++) {
		*p++ = a ? ',' : '/';
		p = stpcpy(stpcpy(stpcpy(p, e->axis[a].kv->key), "="),
			   e->axis[a].piece[idx[a]]);
	}
	return id;
}

/* ---- Finding a job by its values ---------------------------------------- */

/*
 * The values an axis may take in a search: @cls the first of a class of
 * values alike (a single value on most axes), or -1: any.
 */
static int cand_first(const struct axis *ax, int cls)
{
	(void)ax;
	return cls < 0 ? 0 : cls;
}

static int cand_next(const struct axis *ax, int cls, int v)
{
	if (cls < 0)
		return v + 1 < (int)ax->nr ? v + 1 : -1;
	return ax->same_next ? ax->same_next[v] : -1;
}

static int cand_last(const struct axis *ax, int cls)
{
	int v = cand_first(ax, cls), n;

	if (cls < 0)
		return (int)ax->nr - 1;
	while ((n = cand_next(ax, cls, v)) >= 0)
		v = n;
	return v;
}

/* The last candidate below @t, or -1. */
static int cand_below(const struct axis *ax, int cls, int t)
{
	int best = -1;

	if (cls < 0)
		return t - 1;
	for (int v = cls; v >= 0 && v < t; v = cand_next(ax, cls, v))
		best = v;
	return best;
}

static bool cand_has(const struct axis *ax, int cls, int v)
{
	return cls < 0 || (ax->same_first ? ax->same_first[v] : v) == cls;
}

int expand_class(const struct axis *ax, unsigned v)
{
	return ax->same_first ? ax->same_first[v] : (int)v;
}

/* The class of the value @val on @ax: -2 if the axis has none equal. */
static int class_of(const struct axis *ax, const struct kscen_value *val)
{
	if (!ax->p)
		return -1;
	for (unsigned v = 0; v < ax->nr; v++)
		if (kscen_value_equal(ax->p, &ax->val[v], val))
			return expand_class(ax, v);
	return -2;
}

/* Combination @idx as its number in the matrix's order. */
unsigned long long expand_slot_of(const struct xentry *e, const unsigned *idx)
{
	unsigned long long n = 0;

	for (unsigned a = 0; a < e->nr_axes; a++)
		n = n * e->axis[a].nr + idx[a];
	return n;
}

void expand_idx_of_slot(const struct xentry *e, unsigned long long n, unsigned *idx)
{
	for (int a = (int)e->nr_axes - 1; a >= 0; a--) {
		idx[a] = n % e->axis[a].nr;
		n /= e->axis[a].nr;
	}
}

/*
 * The combination before @idx (@back) or after it among the candidates
 * @cls, as an odometer over each axis's candidates: false past the end.
 */
static bool cand_step(const struct xentry *e, const int *cls, unsigned *idx, bool back)
{
	for (int a = (int)e->nr_axes - 1; a >= 0; a--) {
		const struct axis *ax = &e->axis[a];
		int v = back ? (cls[a] < 0 ? (int)idx[a] - 1 : cand_below(ax, cls[a], idx[a]))
			     : cand_next(ax, cls[a], idx[a]);

		if (v >= 0) {
			idx[a] = v;
			return true;
		}
		idx[a] = back ? cand_last(ax, cls[a]) : cand_first(ax, cls[a]);
	}
	return false;
}

/* The last candidate combination below the one numbered @before. */
static bool cand_before(const struct xentry *e, const int *cls,
			unsigned long long before, unsigned *idx)
{
	unsigned *t = kscen_xcalloc(e->nr_axes + 1, sizeof(*t));
	unsigned p = 0;
	bool found = false;

	expand_idx_of_slot(e, before, t);
	while (p < e->nr_axes && cand_has(&e->axis[p], cls[p], t[p]))
		p++;
	for (int k = (int)(p < e->nr_axes ? p : e->nr_axes - 1); k >= 0 && !found; k--) {
		int v = cand_below(&e->axis[k], cls[k], t[k]);

		if (v < 0)
			continue;
		memcpy(idx, t, k * sizeof(*idx));
		idx[k] = v;
		for (unsigned a = k + 1; a < e->nr_axes; a++)
			idx[a] = cand_last(&e->axis[a], cls[a]);
		found = true;
	}
	free(t);
	return found;
}

static bool same_values(const struct kscen_workload *w, const struct kscen_value *a,
			const struct kscen_value *b, const bool *skip)
{
	for (unsigned i = 0; i < w->nr_params; i++)
		if (!(skip && skip[i]) && !kscen_value_equal(&w->params[i], &a[i], &b[i]))
			return false;
	return true;
}

/* A matrix job among the candidates @cls, first or @last, below @before. */
static long long find_matrix(const struct xentry *e, const int *cls, bool last,
			     unsigned long long before)
{
	unsigned *idx = kscen_xcalloc(e->nr_axes + 1, sizeof(*idx));
	long long slot = -1;
	bool more = e->total > 0;

	for (unsigned a = 0; a < e->nr_axes && more; a++) {
		more = cls[a] != -2;
		idx[a] = more ? (last ? cand_last(&e->axis[a], cls[a])
				      : cand_first(&e->axis[a], cls[a])) : 0;
	}
	if (more && last && before < e->total)
		more = cand_before(e, cls, before, idx);
	while (more && slot < 0) {
		if (!expand_excluded(e, idx) && expand_slot_of(e, idx) < before)
			slot = expand_slot_of(e, idx);
		more = slot < 0 && cand_step(e, cls, idx, last);
	}
	free(idx);
	return slot;
}

uint64_t expand_values_hash(const struct kscen_workload *w, const struct kscen_value *val)
{
	uint64_t h = HASH_INIT;

	for (unsigned i = 0; i < w->nr_params; i++) {
		const char *s = val[i].s ? val[i].s : "";

		if (w->params[i].type == KSCEN_P_STRING)
			h = expand_hash(h, s, strlen(s) + 1);
		else
			h = expand_hash(h, (const char *)&val[i].i, sizeof(val[i].i));
	}
	return h;
}

int expand_cmp_inc_hash(const void *a, const void *b)
{
	const struct inc_hash *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The first of the includes before @nr with the values @val: its slot, or -1. */
static long long find_include(const struct xentry *e, const struct kscen_value *val,
			      unsigned nr)
{
	const struct kscen_workload *w = e->j->workload;
	struct inc_hash key = { expand_values_hash(w, val), 0 };
	unsigned lo = 0, hi = e->nr_inc;

	while (lo < hi) {	/* the first of the hash, the lowest index first */
		unsigned mid = lo + (hi - lo) / 2;

		if (expand_cmp_inc_hash(&e->inc_hash[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < e->nr_inc && e->inc_hash[lo].h == key.h && e->inc_hash[lo].i < nr; lo++)
		if (same_values(w, e->inc[e->inc_hash[lo].i].val, val, NULL))
			return e->total + e->inc_hash[lo].i;
	return -1;
}

long long expand_find(const struct xentry *e, const struct kscen_value *val,
		      const int *cls, const bool *skip, bool last,
		      unsigned long long before)
{
	const struct kscen_workload *w = e->j->workload;
	unsigned nr = e->nr_inc;
	long long slot = -1;
	bool fixed = true;

	if (before < e->total + nr)
		nr = before > e->total ? before - e->total : 0;
	for (unsigned i = 0; i < w->nr_params && fixed; i++)
		if (e->axis_of[i] < 0 && !(skip && skip[i]))
			fixed = kscen_value_equal(&w->params[i], &e->fixed[i], &val[i]);
	for (unsigned k = 0; last && slot < 0 && k < nr; k++)
		if (same_values(w, e->inc[nr - 1 - k].val, val, skip))
			slot = e->total + nr - 1 - k;
	if (slot < 0 && fixed)
		slot = find_matrix(e, cls, last, before);
	if (!last && slot < 0 && !skip && e->inc_hash)
		return find_include(e, val, nr);
	for (unsigned k = 0; !last && slot < 0 && k < nr; k++)
		if (same_values(w, e->inc[k].val, val, skip))
			slot = e->total + k;
	return slot;
}

void expand_classes(const struct xentry *e, const struct kscen_value *val,
		    const bool *skip, int *cls)
{
	const struct kscen_workload *w = e->j->workload;

	for (unsigned a = 0; a < e->nr_axes; a++) {
		const struct axis *ax = &e->axis[a];

		cls[a] = !ax->p || (skip && skip[ax->p - w->params]) ? -1
			 : class_of(ax, &val[ax->p - w->params]);
	}
}
