/* SPDX-License-Identifier: GPL-2.0 */
/*
 * expand_priv.h - the one walk over a scenario's matrix, as its files share
 * it: the walk (expand.c) over entries made ready (expand_entry.c), their
 * combinations and a job found by its values (expand_matrix.c), ids
 * (expand_id.c), two jobs with one id (expand_unique.c), the jobs a run
 * keeps with their baselines and previous jobs (expand_jobs.c). Private
 * to expand/.
 */
#ifndef KSCEN_EXPAND_PRIV_H
#define KSCEN_EXPAND_PRIV_H

#include <stdint.h>

#include "jobs.h"
#include "scenario/scenario_load.h"

/* One key of an entry's params (a scalar is an axis of one value). */
struct axis {
	const struct kscen_kv *kv;
	const struct kscen_param *p;	/* NULL: not one of the workload's */
	unsigned nr;
	struct kscen_value *val;	/* per value */
	char **err;			/* NULL, or per value: why it does not
					 * parse, or NULL */
	/*
	 * Per value, the value as ids show it ("key=" and it make the piece of
	 * an id): the list's own texts where they need no escaping and none
	 * is too long, else a block of this axis's (@pieces).
	 */
	char **piece;
	char *pieces;
	size_t max_piece;		/* of "key=value" */
	bool shortened;			/* a value's piece shows its short form */
	/*
	 * Values alike (a labeled axis may give 1k and 1024): per value, the
	 * first value equal to it and the next one after it (-1: none).
	 */
	int *same_first, *same_next;
	int base;			/* the baseline's value, -1: not a baseline axis */
	int *str;			/* per value: its short form in the kept jobs' strs + 1 */
};

/* An exclude, as the values it matches on each axis. */
struct xsel {
	bool never;			/* it names a value no job of the matrix has */
	bool **ok;			/* per axis: NULL (any value) or per value */
};

/* An include: what it gives each declared key, and its values. */
struct xinclude {
	const char **text;		/* per declared key, NULL: not given */
	const char **label;		/* per declared key: its label, or NULL */
	struct kscen_value *val;	/* per workload param */
	char *id;
};

struct xentry {
	const struct kscen_job_spec *j;
	struct axis *axis;		/* per key of params, in order */
	unsigned nr_axes;
	int *axis_of;			/* per workload param: its axis or -1 */
	bool *in_base;			/* per workload param: named by the baseline */
	struct kscen_value *fixed;	/* per workload param of no axis: default */
	char **fixed_err;
	struct xsel *ex;
	unsigned long total;		/* combinations of the axes */
	const char **keys;		/* declared keys: params, then include-only */
	unsigned nr_keys;
	struct xinclude *inc;
	unsigned nr_inc;		/* includes ready */
	/*
	 * Once they are: per include, the hash of its values, sorted with
	 * its index (a job's baseline looked up among a thousand includes).
	 */
	struct inc_hash {
		uint64_t h;
		unsigned i;
	} *inc_hash;
	size_t max_id;			/* bytes of the longest id of the matrix */
	unsigned long long slot0;	/* the slot of its first combination */
};

struct kscen_expander {
	const struct kscen_scenario *s;
	struct xentry *e;
	unsigned nr_e;			/* entries prepared */
	unsigned long nr_jobs;		/* jobs before excludes: at most this many */
	unsigned long walked;		/* jobs given so far */
	/* Where the walk is: entry, combination, include. */
	unsigned cur;
	unsigned long n;
	unsigned *idx;			/* the combination's value per axis */
	unsigned inc;
	bool moved;			/* the job returned last is behind us */
	int at_inc;			/* the job returned last: its include, -1: matrix */
	unsigned dirty;			/* id[] is right up to this axis's piece */
	char *id;
	size_t *pos;			/* per axis: where its piece starts in id[] */
	uint64_t *hpos;			/* per axis: hash of id[] before that */
	uint64_t hash;			/* of the whole id */
	void *params;			/* borrows the values: free() it alone */
	/*
	 * Two jobs with one id (expand_unique.c): known when the walk begins
	 * (twice_id), or, where an axis shows two values alike, the hashes
	 * of the ids so far and those seen twice.
	 */
	char *twice_id;
	const struct kscen_job_spec *twice_spec;
	uint64_t *seen;
	unsigned bits;
	uint64_t *dup;
	size_t nr_dup, cap_dup;
	bool done;
};

/* expand.c: the walk */
int expand_begin(const struct kscen_scenario *s, unsigned long max_jobs,
		 bool rescan, struct kscen_expander **out);
/* The entry of the job returned last; its values into a params struct. */
const struct xentry *expand_at(const struct kscen_expander *x);
void expand_fill_params(const struct kscen_expander *x, void *params);
unsigned expand_metrics(const struct kscen_job_spec *j, const void *params,
			struct kscen_metric_desc *m);

/* expand_entry.c: an entry made ready, its errors said */
int expand_entry_prepare(struct xentry *e, const struct kscen_job_spec *j);
void expand_entry_fini(struct xentry *e);

/* expand_matrix.c: combinations */
char *expand_matrix_id(const struct xentry *e, const unsigned *idx);

/*
 * A job's slot: a combination's number in the matrix's order, or the
 * matrix's size plus an include's; an entry's jobs follow in the order of
 * their slots, and the slot of a job a walk keeps says where its baseline
 * and previous job are.
 */
unsigned long long expand_slot_of(const struct xentry *e, const unsigned *idx);
void expand_idx_of_slot(const struct xentry *e, unsigned long long n, unsigned *idx);
/*
 * A search for a job by its values: per axis the class of the value
 * wanted (the first of the values alike to it: most axes have none), -1:
 * any, -2: none on the axis.
 */
int expand_class(const struct axis *ax, unsigned v);
void expand_classes(const struct xentry *e, const struct kscen_value *val,
		    const bool *skip, int *cls);
/*
 * The slot of the first job of entry @e (or the last, @last) below slot
 * @before whose values are @val, but for the params in @skip (per param,
 * may be NULL): a combination of the matrix that no exclude removes (its
 * axes' values of the classes @cls), or an include; -1: none.
 */
long long expand_find(const struct xentry *e, const struct kscen_value *val,
		      const int *cls, const bool *skip, bool last,
		      unsigned long long before);
/* The hash of a job's values (equal values, equal hashes): inc_hash. */
uint64_t expand_values_hash(const struct kscen_workload *w, const struct kscen_value *val);
int expand_cmp_inc_hash(const void *a, const void *b);

/*
 * expand_id.c. A value longer than ID_VALUE_MAX bytes (a command, a regex)
 * would drown the id: it appears as its first ID_PREFIX bytes, '~' and
 * the first 8 hex digits of its SHA-256. The hash keeps ids of different
 * values different and the id of a value the same from run to run; the
 * stored run keeps the whole value beside the id (params:).
 */
#define ID_VALUE_MAX	40
#define ID_PREFIX	24
char *expand_id_value(const char *v);
size_t expand_id_len(const char *v);
char *expand_id_put(char *p, const char *v);
const char *expand_label_of(const struct kscen_map *pm, const char *key,
	const char *text);
char *expand_include_id(const struct xentry *e, const struct xinclude *inc);

/* expand_unique.c */
#define HASH_INIT	0xcbf29ce484222325ULL
void expand_unique_begin(struct kscen_expander *x, unsigned long total);
void expand_unique_note(struct kscen_expander *x);
int expand_unique_end(struct kscen_expander *x);
bool expand_unique_suspect(const struct kscen_expander *x, uint64_t h);
struct expand_twice {
	char *id;
	const struct kscen_job_spec *spec;
};
int expand_unique_twins(const struct kscen_expander *x, struct expand_twice *t,
			size_t nr);

/* ---- What the walk does for every job, inline -------------------------- */

/* The next combination: returns the first axis that changed. */
static inline unsigned expand_next_combo(const struct xentry *e, unsigned *idx)
{
	for (int a = (int)e->nr_axes - 1; a >= 0; a--) {
		if (++idx[a] < e->axis[a].nr)
			return a;
		idx[a] = 0;
	}
	return 0;
}

/* Does an exclude remove combination @idx? */
static inline bool expand_excluded(const struct xentry *e, const unsigned *idx)
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
static inline const struct kscen_value *expand_value_at(const struct xentry *e,
							unsigned i, const unsigned *idx)
{
	int a = e->axis_of[i];

	return a >= 0 ? &e->axis[a].val[idx[a]] : &e->fixed[i];
}

/* FNV-1a, 64 bits, continued from @h. */
static inline uint64_t expand_hash(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#endif
