// SPDX-License-Identifier: GPL-2.0
/*
 * expand.c - a scenario's job entries -> the list of jobs to run.
 *
 * Per entry: the product of its axes (the first declared axis outermost),
 * minus the excluded combinations, plus the included ones. Each job gets a
 * stable id, "<name>/<param>=<value>,...", over the declared parameters in
 * declaration order (a long value shortened, see expand_id_value()), and its
 * baseline and "previous" (README.md, "A scenario"): the baseline is the job
 * equal in every other parameter with the baseline's values for the named
 * ones; "previous" is the job just before it among those that differ from it
 * only in the baseline's parameters.
 *
 * kscen_expand() builds them all at once, for run. kscen_expand_begin() and
 * kscen_expand_next() walk the same jobs one at a time for plan and
 * validate, ids and errors only, in memory that does not grow with the
 * matrix (expand_stream.c; docs/architecture.md, "Expanding a
 * scenario").
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand_priv.h"
#include "util.h"
#include "scenario_load.h"


void expand_collect_keys(const struct kscen_job_spec *j, struct entry_keys *k)
{
	unsigned max = j->params.nr;

	for (unsigned i = 0; i < j->nr_include; i++)
		max += j->include[i].nr;
	k->names = kscen_xcalloc(max + 1, sizeof(*k->names));
	k->nr = 0;
	for (unsigned i = 0; i < j->params.nr; i++)
		k->names[k->nr++] = j->params.kv[i].key;
	for (unsigned i = 0; i < j->nr_include; i++) {
		for (unsigned v = 0; v < j->include[i].nr; v++) {
			const char *key = j->include[i].kv[v].key;
			bool seen = false;

			for (unsigned x = 0; x < k->nr && !seen; x++)
				seen = strcmp(k->names[x], key) == 0;
			if (!seen)
				k->names[k->nr++] = key;
		}
	}
}

int expand_key_index(const struct entry_keys *k, const char *key)
{
	for (unsigned i = 0; i < k->nr; i++)
		if (strcmp(k->names[i], key) == 0)
			return i;
	return -1;
}

/* Does @c match every key: value of selector @sel? */
static bool matches(const struct kscen_job_spec *j, const struct combo *c,
		    const struct kscen_map *sel)
{
	char err[256];

	for (unsigned i = 0; i < sel->nr; i++) {
		const struct kscen_param *p = kscen_param_find(j->workload, sel->kv[i].key);
		struct kscen_value v;
		bool eq;

		if (kscen_value_parse(p, sel->kv[i].values[0], &v, err, sizeof(err)))
			return false;
		eq = kscen_value_equal(p, &v, &c->val[p - j->workload->params]);
		kscen_value_fini(&v);
		if (!eq)
			return false;
	}
	return true;
}

/*
 * Canonical text of the effective values, skipping params in @skip (may be
 * NULL): equal text <=> equal values.
 */
static char *canon(const struct kscen_workload *w, const struct kscen_value *val,
		   const struct kscen_map *skip, const struct kscen_map *subst)
{
	size_t cap = 64, len = 0;
	char *s = kscen_xmalloc(cap), err[256];

	s[0] = '\0';
	for (unsigned i = 0; i < w->nr_params; i++) {
		const struct kscen_param *p = &w->params[i];
		struct kscen_value v = val[i], sv = { 0 };
		char *piece;

		for (unsigned k = 0; skip && k < skip->nr; k++)
			if (strcmp(skip->kv[k].key, p->name) == 0)
				goto next;
		for (unsigned k = 0; subst && k < subst->nr; k++)
			if (strcmp(subst->kv[k].key, p->name) == 0 &&
			    !kscen_value_parse(p, subst->kv[k].values[0], &sv, err, sizeof(err)))
				v = sv;
		if (p->type == KSCEN_P_STRING)
			piece = kscen_xasprintf("%zu:%s;", strlen(v.s ? v.s : ""),
						v.s ? v.s : "");
		else
			piece = kscen_xasprintf("%lld;", v.i);
		kscen_value_fini(&sv);
		if (len + strlen(piece) + 1 > cap) {
			cap = 2 * (len + strlen(piece) + 1);
			s = kscen_xrealloc(s, cap);
		}
		strcpy(s + len, piece);
		len += strlen(piece);
		free(piece);
next:;
	}
	return s;
}

/* Fill @c's effective values from its texts (defaults where not given). */
int expand_combo_values(const struct kscen_job_spec *j, const struct entry_keys *k,
			struct combo *c)
{
	const struct kscen_workload *w = j->workload;
	char err[256];

	c->val = kscen_xcalloc(w->nr_params, sizeof(*c->val));
	for (unsigned i = 0; i < w->nr_params; i++) {
		const struct kscen_param *p = &w->params[i];
		int ki = expand_key_index(k, p->name);
		const char *text = ki >= 0 && c->text[ki] ? c->text[ki] : p->def;

		if (!text)
			text = "";
		if (kscen_value_parse(p, text, &c->val[i], err, sizeof(err))) {
			kscen_diag(KSCEN_DIAG_ERROR, NULL, NOWHERE,
				   "job %s: %s", j->name, err);
			return -EINVAL;
		}
	}
	return 0;
}

void expand_combo_fini(const struct kscen_workload *w, struct combo *c)
{
	for (unsigned i = 0; c->val && i < w->nr_params; i++)
		kscen_value_fini(&c->val[i]);
	free(c->val);
	free(c->text);
	free(c->label);
	free(c->key);
}

/*
 * A filtered walk's note on a job --filter keeps, in an entry with a
 * baseline: its group (the jobs that differ from it only in the baseline's
 * params) and the job last seen in it, or its baseline's values and the
 * first job seen with them; a job by its index in the list, -1 if it is not
 * kept, -2 if none is seen yet.
 */
struct mark {
	char *key;
	int at;
};

struct marks {
	struct mark *m;
	unsigned nr, cap;
};

struct builder {
	struct kscen_job *job;
	struct combo *combo;
	unsigned nr, cap;
	char **strs;		/* short forms of long values, kscen_jobs.strs */
	unsigned nr_strs, cap_strs;
	/*
	 * kscen_expand_some(): only the jobs whose id @filter matches are
	 * kept. For an entry with a baseline the walk is done twice: the
	 * first notes the kept jobs' groups and baselines (@collect), the
	 * second follows those job by job, so that a kept job's previous
	 * and baseline are the jobs kscen_expand() finds in the whole list,
	 * or none when those are not kept.
	 */
	const char *filter;
	bool collect;
	struct marks group, base;
};

/*
 * What a job shows of a value: its label or its text, the scenario's own
 * strings, which outlive the jobs; only a value too long for an id gets a
 * string of its own, its short form (expand_id_value()), kept in @b.
 */
static char *shown_value(struct builder *b, const char *label, const char *text)
{
	if (label)
		return (char *)label;
	if (strlen(text) <= ID_VALUE_MAX)
		return (char *)text;
	if (b->nr_strs == b->cap_strs) {
		b->cap_strs = b->cap_strs ? 2 * b->cap_strs : 16;
		b->strs = kscen_xrealloc(b->strs, b->cap_strs * sizeof(*b->strs));
	}
	return b->strs[b->nr_strs++] = expand_id_value(text);
}

static int cmp_mark(const void *a, const void *b)
{
	return strcmp(((const struct mark *)a)->key, ((const struct mark *)b)->key);
}

static void mark_add(struct marks *ms, char *key, int at)
{
	if (ms->nr == ms->cap) {
		ms->cap = ms->cap ? 2 * ms->cap : 16;
		ms->m = kscen_xrealloc(ms->m, ms->cap * sizeof(*ms->m));
	}
	ms->m[ms->nr++] = (struct mark){ key, at };
}

/* The mark of @key (freed), or NULL. */
static struct mark *mark_find(const struct marks *ms, char *key)
{
	struct mark k = { .key = key }, *m;

	m = ms->nr ? bsearch(&k, ms->m, ms->nr, sizeof(*m), cmp_mark) : NULL;
	free(key);
	return m;
}

/* After the first walk: sorted, each key once. */
static void marks_ready(struct marks *ms)
{
	unsigned n = 0;

	if (!ms->nr)
		return;
	qsort(ms->m, ms->nr, sizeof(*ms->m), cmp_mark);
	for (unsigned i = 0; i < ms->nr; i++) {
		if (n && !strcmp(ms->m[n - 1].key, ms->m[i].key))
			free(ms->m[i].key);
		else
			ms->m[n++] = ms->m[i];
	}
	ms->nr = n;
}

static void marks_free(struct marks *ms)
{
	for (unsigned i = 0; i < ms->nr; i++)
		free(ms->m[i].key);
	free(ms->m);
	memset(ms, 0, sizeof(*ms));
}

/* Does @filter keep the job of @c? Its id built and dropped: nothing stays. */
static bool kept(const struct builder *b, const struct kscen_job_spec *j,
		 const struct entry_keys *k, const struct combo *c)
{
	char **v = expand_shown_values(k, c), *id = expand_make_id(j, k, v);
	bool keep = fnmatch(b->filter, id, 0) == 0;

	for (unsigned i = 0; i < k->nr; i++)
		free(v[i]);
	free(v);
	free(id);
	return keep;
}

/*
 * A filtered walk of an entry with a baseline, at a job: on the first walk
 * note a kept job's group and baseline; on the second, the job before it
 * in its group (its index, -1: none or not kept), and this job as the last
 * of its group and the first with its values.
 */
static int follow(struct builder *b, const struct kscen_job_spec *j,
		  const struct combo *c, bool keep)
{
	const struct kscen_workload *w = j->workload;
	int at = keep ? (int)b->nr : -1, prev = -1;
	struct mark *m;

	if (b->collect) {
		if (keep) {
			mark_add(&b->group, canon(w, c->val, &j->baseline, NULL), -1);
			mark_add(&b->base, canon(w, c->val, NULL, &j->baseline), -2);
		}
		return -1;
	}
	if ((m = mark_find(&b->group, canon(w, c->val, &j->baseline, NULL)))) {
		prev = m->at;
		m->at = at;
	}
	if ((m = mark_find(&b->base, canon(w, c->val, NULL, NULL))) && m->at == -2)
		m->at = at;
	return prev;
}

/* A filtered walk's kept jobs b->job[from..]: their baselines, as noted. */
static void follow_base(struct builder *b, const struct kscen_job_spec *j,
			unsigned from)
{
	for (unsigned i = from; i < b->nr; i++) {
		struct mark *m = mark_find(&b->base, canon(j->workload, b->combo[i].val,
							   NULL, &j->baseline));

		b->job[i].baseline = m && m->at >= 0 ? m->at : -1;
	}
}

static void add_job(struct builder *b, const struct kscen_job_spec *j,
		    const struct entry_keys *k, struct combo *c)
{
	struct kscen_job *job;
	char **shown;
	unsigned n = 0;
	int prev = -1;

	if (b->filter) {
		bool keep = kept(b, j, k, c);

		if (j->baseline.nr)
			prev = follow(b, j, c, keep);
		if (!keep || b->collect) {
			expand_combo_fini(j->workload, c);
			return;
		}
	}
	shown = kscen_xcalloc(k->nr + 1, sizeof(*shown));
	for (unsigned i = 0; i < k->nr; i++)
		if (c->text[i]) {
			shown[i] = shown_value(b, c->label[i], c->text[i]);
			n++;
		}
	if (b->nr == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->job = kscen_xrealloc(b->job, b->cap * sizeof(*b->job));
		b->combo = kscen_xrealloc(b->combo, b->cap * sizeof(*b->combo));
	}
	job = &b->job[b->nr];
	memset(job, 0, sizeof(*job));
	job->spec = j;
	job->workload = j->workload;
	job->id = expand_make_id(j, k, shown);
	job->baseline = -1;
	job->previous = prev;	/* a filtered walk's; else resolve() finds it */
	job->keys = kscen_xcalloc(2 * n + 1, sizeof(char *));
	job->values = job->keys + n;
	for (unsigned i = 0; i < k->nr; i++) {
		if (!c->text[i])
			continue;
		job->keys[job->nr_kv] = (char *)k->names[i];
		job->values[job->nr_kv++] = shown[i];
	}
	free(shown);
	c->key = canon(j->workload, c->val, NULL, NULL);
	b->combo[b->nr++] = *c;
}

/* The product of one entry's axes, less excludes, plus includes. */
static int expand_entry(const struct kscen_job_spec *j, struct builder *b)
{
	const struct kscen_map *pm = &j->params;
	struct entry_keys k;
	unsigned long total = 1, first = b->nr;
	unsigned *idx = kscen_xcalloc(pm->nr + 1, sizeof(*idx));
	int ret = 0;

	expand_collect_keys(j, &k);
	for (unsigned i = 0; i < pm->nr; i++)
		total *= pm->kv[i].nr_values;	/* bounded by the caller */
	for (unsigned long n = 0; n < total; n++) {
		struct combo c = { .text = kscen_xcalloc(k.nr + 1, sizeof(char *)),
				   .label = kscen_xcalloc(k.nr + 1, sizeof(char *)) };
		bool excluded = false;

		for (unsigned i = 0; i < pm->nr; i++) {
			c.text[i] = pm->kv[i].values[idx[i]];
			if (pm->kv[i].labels)
				c.label[i] = pm->kv[i].labels[idx[i]];
		}
		for (int i = pm->nr - 1; i >= 0; i--) {	/* last axis fastest */
			if (++idx[i] < pm->kv[i].nr_values)
				break;
			idx[i] = 0;
		}
		ret = expand_combo_values(j, &k, &c);
		for (unsigned e = 0; !ret && e < j->nr_exclude && !excluded; e++)
			excluded = matches(j, &c, &j->exclude[e]);
		if (ret || excluded) {
			expand_combo_fini(j->workload, &c);
			if (ret)
				goto out;
			continue;
		}
		add_job(b, j, &k, &c);
	}
	if (b->nr == first && j->nr_include == 0 && !b->filter) {
		kscen_file_error(j->spec_file, j->mark,
				 "job %s: exclude removes every combination", j->name);
		ret = -EINVAL;
		goto out;
	}
	for (unsigned i = 0; i < j->nr_include; i++) {
		const struct kscen_map *inc = &j->include[i];
		struct combo c = { .text = kscen_xcalloc(k.nr + 1, sizeof(char *)),
				   .label = kscen_xcalloc(k.nr + 1, sizeof(char *)) };

		for (unsigned p = 0; p < pm->nr; p++)
			c.text[p] = pm->kv[p].values[0];	/* scalars; axes are overridden */
		for (unsigned v = 0; v < inc->nr; v++) {
			int x = expand_key_index(&k, inc->kv[v].key);

			c.text[x] = inc->kv[v].values[0];
			c.label[x] = expand_label_of(pm, inc->kv[v].key, c.text[x]);
		}
		ret = expand_combo_values(j, &k, &c);
		if (!ret)
			c.key = canon(j->workload, c.val, NULL, NULL);
		for (unsigned x = first; !ret && !b->filter && x < b->nr; x++) {
			if (strcmp(b->combo[x].key, c.key) == 0) {
				kscen_file_error(j->spec_file, inc->mark,
						 "job %s: include adds %s, which the matrix has already",
						 j->name, b->job[x].id);
				ret = -EINVAL;
			}
		}
		free(c.key);
		c.key = NULL;
		if (ret) {
			expand_combo_fini(j->workload, &c);
			goto out;
		}
		add_job(b, j, &k, &c);
	}
out:
	free(idx);
	free(k.names);
	return ret;
}

struct keyidx {
	const char *key;
	unsigned idx;
};

static int keyidx_cmp(const void *a, const void *b)
{
	const struct keyidx *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int lookup(const struct keyidx *sorted, unsigned nr, const char *key)
{
	unsigned lo = 0, hi = nr;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (strcmp(sorted[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nr && strcmp(sorted[lo].key, key) == 0 ? (int)sorted[lo].idx : -1;
}

/* Baseline and previous of every job of entry @j, in b->job[from..to). */
static void resolve(const struct kscen_job_spec *j, struct builder *b,
		    unsigned from, unsigned to)
{
	unsigned n = to - from;
	struct keyidx *full, *group;

	if (!j->baseline.nr || !n)
		return;
	full = kscen_xcalloc(n, sizeof(*full));
	group = kscen_xcalloc(n, sizeof(*group));
	for (unsigned i = 0; i < n; i++) {
		full[i] = (struct keyidx){ b->combo[from + i].key, from + i };
		group[i].key = canon(j->workload, b->combo[from + i].val, &j->baseline, NULL);
		group[i].idx = from + i;
	}
	qsort(full, n, sizeof(*full), keyidx_cmp);
	for (unsigned i = 0; i < n; i++) {
		char *want = canon(j->workload, b->combo[from + i].val, NULL, &j->baseline);

		b->job[from + i].baseline = lookup(full, n, want);
		free(want);
	}
	/* Sorted by (group, list order): "previous" is the neighbour before. */
	qsort(group, n, sizeof(*group), keyidx_cmp);
	for (unsigned i = 1; i < n; i++)
		if (strcmp(group[i].key, group[i - 1].key) == 0)
			b->job[group[i].idx].previous = group[i - 1].idx;
	for (unsigned i = 0; i < n; i++)
		free((char *)group[i].key);
	free(group);
	free(full);
}

/*
 * What the workload says of a job's params: its check(), then whether it
 * takes the job's metrics: list beside its @nr_metrics own metrics.
 */
int expand_check_params(const struct kscen_job_spec *j, const char *id,
			const void *params, unsigned nr_metrics)
{
	const struct kscen_workload *w = j->workload;
	char err[256] = "";

	/* a module's message may fill the buffer without its NUL */
	if (w->check && w->check(params, err, sizeof(err))) {
		err[sizeof(err) - 1] = '\0';
		kscen_file_error(j->spec_file, j->mark, "job %s: %s", id, err);
		return -EINVAL;
	}
	if (!j->nr_captures)
		return 0;
	if (w->check_captures(params, j->nr_captures, err, sizeof(err))) {
		err[sizeof(err) - 1] = '\0';
		kscen_file_error(j->spec_file, j->mark, "job %s: metrics: %s", id, err);
		return -EINVAL;
	}
	if (j->nr_captures + nr_metrics > KSCEN_MAX_METRICS) {
		kscen_file_error(j->spec_file, j->mark, "job %s: metrics: more than %d "
				 "metrics in all", id, KSCEN_MAX_METRICS);
		return -EINVAL;
	}
	return 0;
}

int expand_job_metrics(const struct kscen_job_spec *j, const char *id,
		       const void *params, struct kscen_metric_desc *m, unsigned *nr)
{
	const struct kscen_workload *w = j->workload;
	char err[256];

	memcpy(m, w->metrics, w->nr_metrics * sizeof(*w->metrics));
	*nr = w->nr_metrics;
	if (!w->job_metrics)
		return 0;
	*nr = w->job_metrics(params, m);
	if (kscen_job_metrics_check(w, params, m, *nr, err, sizeof(err))) {
		kscen_file_error(j->spec_file, j->mark, "job %s: %s", id, err);
		return -EINVAL;
	}
	return 0;
}

/* The job's metrics: list first, then the workload's metrics. */
static void add_captures(struct kscen_job *job)
{
	const struct kscen_job_spec *j = job->spec;
	struct kscen_metric_desc *m = job->own_metrics;

	memmove(m + j->nr_captures, m, job->nr_metrics * sizeof(*m));
	for (unsigned i = 0; i < j->nr_captures; i++)
		m[i] = (struct kscen_metric_desc){
			.name = j->captures[i].name, .unit = j->captures[i].unit,
			.better = j->captures[i].better,
		};
	job->nr_metrics += j->nr_captures;
}

/*
 * The job's params struct and metrics. A job shares its workload's metric
 * table unless job_metrics() or a metrics: list makes it its own.
 */
static int finish_job(struct kscen_job *job, struct combo *c)
{
	const struct kscen_workload *w = job->workload;
	struct kscen_metric_desc *m;
	int ret;

	job->params = kscen_xcalloc(1, w->params_size ? w->params_size : 1);
	for (unsigned i = 0; i < w->nr_params; i++)
		kscen_value_store(&w->params[i], job->params, &c->val[i]);
	job->metrics = w->metrics;
	job->nr_metrics = w->nr_metrics;
	if (w->job_metrics || job->spec->nr_captures) {
		m = kscen_xcalloc(KSCEN_MAX_METRICS, sizeof(*m));
		job->metrics = job->own_metrics = m;
		ret = expand_job_metrics(job->spec, job->id, job->params, m, &job->nr_metrics);
		if (ret) {
			job->nr_metrics = 0;
			return ret;
		}
	}
	ret = expand_check_params(job->spec, job->id, job->params, job->nr_metrics);
	if (!ret && job->spec->nr_captures)
		add_captures(job);
	return ret;
}

static int cmp_job_id(const void *a, const void *b)
{
	return strcmp((*(const struct kscen_job *const *)a)->id,
		      (*(const struct kscen_job *const *)b)->id);
}

/*
 * Ids are how runs are matched: two jobs sharing one would have one's
 * samples compared with the other's. Escaping makes that impossible; this
 * check keeps it so.
 */
static int check_unique(const struct kscen_scenario *s, struct builder *b)
{
	const struct kscen_job **v = kscen_xcalloc(b->nr + 1, sizeof(*v));
	int ret = 0;

	for (unsigned i = 0; i < b->nr; i++)
		v[i] = &b->job[i];
	qsort(v, b->nr, sizeof(*v), cmp_job_id);
	for (unsigned i = 1; i < b->nr && !ret; i++) {
		if (strcmp(v[i]->id, v[i - 1]->id))
			continue;
		kscen_file_error(s->file, v[i]->spec->mark,
				 "job %s: two jobs have the id %s", v[i]->spec->name,
				 v[i]->id);
		ret = -EINVAL;
	}
	free(v);
	return ret;
}

/*
 * The jobs of @s before excludes, counted first: a matrix of more than
 * @max_jobs is refused before anything is allocated for it.
 */
int expand_count_jobs(const struct kscen_scenario *s, unsigned long max_jobs,
		      unsigned long *total)
{
	*total = 0;
	for (unsigned i = 0; i < s->nr_jobs; i++) {
		const struct kscen_job_spec *j = &s->jobs[i];
		unsigned long n = 1;

		for (unsigned k = 0; k < j->params.nr; k++)
			if (__builtin_mul_overflow(n, j->params.kv[k].nr_values, &n))
				n = ~0UL;
		if (__builtin_add_overflow(*total, n, total) ||
		    __builtin_add_overflow(*total, j->nr_include, total) ||
		    *total > max_jobs) {
			kscen_file_error(s->file, j->mark,
					 "the matrix has more than %lu jobs (raise --max-jobs)",
					 max_jobs);
			return -E2BIG;
		}
	}
	return 0;
}

/* The entries of @s into @b's jobs, then into @out (freed on an error). */
static int build(const struct kscen_scenario *s, struct builder *b,
		 struct kscen_jobs *out)
{
	int ret = 0;

	b->job = kscen_xcalloc(b->cap, sizeof(*b->job));
	b->combo = kscen_xcalloc(b->cap, sizeof(*b->combo));
	for (unsigned i = 0; i < s->nr_jobs && !ret; i++) {
		unsigned from = b->nr;

		if (b->filter && s->jobs[i].baseline.nr) {
			b->collect = true;
			ret = expand_entry(&s->jobs[i], b);
			b->collect = false;
			marks_ready(&b->group);
			marks_ready(&b->base);
			if (!ret)
				ret = expand_entry(&s->jobs[i], b);
			if (!ret)
				follow_base(b, &s->jobs[i], from);
			marks_free(&b->group);
			marks_free(&b->base);
			continue;
		}
		ret = expand_entry(&s->jobs[i], b);
		if (!ret)
			resolve(&s->jobs[i], b, from, b->nr);
	}
	for (unsigned i = 0; i < b->nr; i++) {
		if (!ret)
			ret = finish_job(&b->job[i], &b->combo[i]);
		expand_combo_fini(b->job[i].workload, &b->combo[i]);
	}
	free(b->combo);
	if (!ret)
		ret = check_unique(s, b);
	if (b->nr < b->cap)	/* excludes took some: give their room back */
		b->job = kscen_xrealloc(b->job, (b->nr + 1) * sizeof(*b->job));
	out->job = b->job;
	out->nr = b->nr;
	out->strs = b->strs;
	out->nr_strs = b->nr_strs;
	if (ret)
		kscen_jobs_free(out);
	return ret;
}

int kscen_expand(const struct kscen_scenario *s, unsigned long max_jobs,
		 struct kscen_jobs *out)
{
	struct builder b = { 0 };
	unsigned long total;

	memset(out, 0, sizeof(*out));
	if (expand_count_jobs(s, max_jobs, &total))
		return -E2BIG;
	/* sized once (what doubling would leave unused is a third on average) */
	b.cap = total ? total : 1;
	return build(s, &b, out);
}

int kscen_expand_some(const struct kscen_scenario *s, unsigned long max_jobs,
		      const char *filter, struct kscen_jobs *out,
		      unsigned long *total)
{
	struct builder b = { .filter = filter };
	struct kscen_expander *x;
	struct kscen_job_ref ref;
	unsigned long keep = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	*total = 0;
	/* The whole matrix checked first, as kscen_expand() checks it. */
	ret = kscen_expand_begin(s, max_jobs, &x);
	while (!ret && (ret = kscen_expand_next(x, &ref)) > 0) {
		(*total)++;
		keep += fnmatch(filter, ref.id, 0) == 0;
		ret = 0;
	}
	kscen_expand_end(x);
	if (ret || !keep)
		return ret;
	if (keep == *total)
		return kscen_expand(s, max_jobs, out);
	b.cap = keep;
	return build(s, &b, out);
}

void kscen_jobs_free(struct kscen_jobs *jobs)
{
	for (unsigned i = 0; i < jobs->nr; i++) {
		struct kscen_job *job = &jobs->job[i];

		free(job->keys);	/* and values, its second half */
		free(job->id);
		free(job->own_metrics);
		if (job->params)
			kscen_params_free(job->workload, job->params);
	}
	for (unsigned i = 0; i < jobs->nr_strs; i++)
		free(jobs->strs[i]);
	free(jobs->strs);
	free(jobs->job);
	memset(jobs, 0, sizeof(*jobs));
}

