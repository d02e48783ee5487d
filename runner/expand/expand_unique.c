// SPDX-License-Identifier: GPL-2.0
/*
 * expand_unique.c - no two jobs with one id. Ids are how runs are matched:
 * two jobs sharing one would have one's samples compared with the other's.
 * Escaping makes that impossible but in two ways, checked here as the walk
 * (expand.c) goes.
 *
 * Names differ and have no '/', so jobs of different entries never share
 * an id. Within an entry, an id of the matrix is its name, '/' and a piece
 * per axis, none with a ',' in it: two combinations share an id only if an
 * axis has two values with the same piece ("a" given once as the label of
 * another value, a short value that reads like a long one shortened).
 * Without such an axis only an include can share an id, and the few
 * includes are checked when the walk begins: the memory is that of the
 * scenario. With one, each id is kept as a 64-bit hash (16 bytes a job,
 * the table half full), and hashes seen twice are confirmed by a second
 * walk (expand.c) that compares the ids. Either way the id reported is the
 * first in sorting order that two jobs share.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "expand_priv.h"
#include "lib/util.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Does an axis have two values with one piece? Not a list whose values are
 * all shown whole: the loader refuses a value given twice, and escaping
 * keeps distinct texts distinct.
 */
static bool twin_pieces(const struct kscen_expander *x)
{
	bool twin = false;

	for (unsigned i = 0; i < x->nr_e && !twin; i++) {
		for (unsigned a = 0; a < x->e[i].nr_axes && !twin; a++) {
			const struct axis *ax = &x->e[i].axis[a];
			char **v;

			if (!ax->kv->labels && !ax->shortened)
				continue;
			v = kscen_xcalloc(ax->nr + 1, sizeof(*v));

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
		size_t key = strlen(ax->kv->key), len = strcspn(++p, ",");

		has = p[len] == (a + 1 < e->nr_axes ? ',' : '\0') && len > key &&
		      !memcmp(p, ax->kv->key, key) && p[key] == '=';
		if (has) {
			p += key + 1;
			len -= key + 1;
		}
		for (idx[a] = 0; has && idx[a] < ax->nr; idx[a]++)
			if (strlen(ax->piece[idx[a]]) == len &&
			    !memcmp(ax->piece[idx[a]], p, len))
				break;
		has = has && idx[a] < ax->nr;
		p += len;
	}
	has = has && !expand_excluded(e, idx);
	free(idx);
	return has;
}

/* Without twin pieces: the first id in sorting order two jobs share, if any. */
static void include_twins(struct kscen_expander *x)
{
	for (unsigned i = 0; i < x->nr_e; i++) {
		const struct xentry *e = &x->e[i];

		for (unsigned k = 0; k < e->nr_inc; k++) {
			const char *id = e->inc[k].id;
			bool twin = matrix_has(e, id);

			for (unsigned l = 0; l < k && !twin; l++)
				twin = strcmp(e->inc[l].id, id) == 0;
			if (!twin || (x->twice_id && strcmp(x->twice_id, id) <= 0))
				continue;
			free(x->twice_id);
			x->twice_id = kscen_xstrdup(id);
			x->twice_spec = e->j;
		}
	}
}

/* When the walk begins: the includes checked, or the table of hashes made. */
void expand_unique_begin(struct kscen_expander *x, unsigned long total)
{
	if (!twin_pieces(x)) {
		include_twins(x);
		return;
	}
	/* Twice as many slots as jobs at most: short probes. */
	for (x->bits = 4; (1UL << x->bits) < 2 * total; x->bits++)
		;
	x->seen = kscen_xcalloc(1UL << x->bits, sizeof(*x->seen));
}

/* Remember the hash of the current id; one seen before is kept in x->dup. */
void expand_unique_note(struct kscen_expander *x)
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

static int report_twice(const struct kscen_expander *x, const char *id,
			const struct kscen_job_spec *spec)
{
	kscen_file_error(x->s->file, spec->mark, "job %s: two jobs have the id %s",
			 spec->name, id);
	return -EINVAL;
}

/* Was the hash of the id @h seen twice? */
bool expand_unique_suspect(const struct kscen_expander *x, uint64_t h)
{
	return bsearch(&h, x->dup, x->nr_dup, sizeof(h), cmp_u64) != NULL;
}

static int cmp_twice(const void *a, const void *b)
{
	return strcmp(((const struct expand_twice *)a)->id,
		      ((const struct expand_twice *)b)->id);
}

/* The first id in sorting order that two of @t share: its error, or 0. */
int expand_unique_twins(const struct kscen_expander *x, struct expand_twice *t,
			size_t nr)
{
	int ret = 0;

	qsort(t, nr, sizeof(*t), cmp_twice);
	for (size_t i = 1; i < nr && !ret; i++)
		if (!strcmp(t[i].id, t[i - 1].id))
			ret = report_twice(x, t[i].id, t[i].spec);
	return ret;
}

/*
 * At the end of the walk: 0, the error of two jobs with one id, or 1:
 * some hashes were seen twice (sorted now), the walk must look again.
 */
int expand_unique_end(struct kscen_expander *x)
{
	if (x->twice_id)
		return report_twice(x, x->twice_id, x->twice_spec);
	if (!x->nr_dup)
		return 0;
	qsort(x->dup, x->nr_dup, sizeof(*x->dup), cmp_u64);
	return 1;
}
