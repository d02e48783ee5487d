// SPDX-License-Identifier: GPL-2.0
/*
 * expand.c - a scenario's job entries -> its jobs, one at a time.
 *
 * Per entry: the product of its axes (the first declared axis outermost,
 * the last fastest), minus the excluded combinations, plus the included
 * ones. Each job gets a stable id, "<name>/<param>=<value>,...", over the
 * declared parameters in declaration order (a long value shortened, see
 * expand_id_value()).
 *
 * This walk is the only expander: plan and validate read the ids it
 * gives, run keeps the jobs it runs as the walk passes them
 * (expand_jobs.c), with their baseline and previous job. Each value of an
 * axis is parsed, and its part of the id built, once; an exclude is a set
 * of values per axis; a job's id is rebuilt from the first axis that
 * changed; the includes, being few, are built whole beforehand. The
 * memory is that of the scenario, however large the matrix
 * (docs/architecture.md, "Expanding a scenario").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand_priv.h"
#include "lib/util.h"

/*
 * The jobs of @s before excludes, counted first: a matrix of more than
 * @max_jobs is refused before anything is allocated for it.
 */
static int count_jobs(const struct kscen_scenario *s, unsigned long max_jobs,
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

int expand_begin(const struct kscen_scenario *s, unsigned long max_jobs,
		 bool rescan, struct kscen_expander **out)
{
	struct kscen_expander *x;
	unsigned long total;
	size_t max_id = 0, params_size = 1;
	unsigned max_axes = 0;
	unsigned long long slot = 0;
	int ret = 0;

	*out = NULL;
	if ((ret = count_jobs(s, max_jobs, &total)))
		return ret;
	x = kscen_xcalloc(1, sizeof(*x));
	x->s = s;
	x->at_inc = -1;
	x->moved = true;
	x->nr_jobs = total;
	x->e = kscen_xcalloc(s->nr_jobs, sizeof(*x->e));
	for (unsigned i = 0; i < s->nr_jobs && !ret; i++) {
		struct xentry *e = &x->e[i];

		ret = expand_entry_prepare(e, &s->jobs[i]);
		x->nr_e++;
		e->slot0 = slot;
		slot += e->total + e->j->nr_include;
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
	if (!rescan)
		expand_unique_begin(x, total);
	*out = x;
	return 0;
}

int kscen_expand_begin(const struct kscen_scenario *s, unsigned long max_jobs,
		       struct kscen_expander **out)
{
	return expand_begin(s, max_jobs, false, out);
}

/* Build the id of the current combination from axis x->dirty on. */
static void build_id(struct kscen_expander *x, const struct xentry *e)
{
	char *p;
	uint64_t h;

	if (!x->dirty) {
		p = stpcpy(x->id, e->j->name);
		x->pos[0] = p - x->id;
		x->hpos[0] = expand_hash(HASH_INIT, x->id, x->pos[0]);
		if (!e->nr_axes) {
			x->hash = x->hpos[0];
			return;
		}
	}
	for (unsigned a = x->dirty; a < e->nr_axes; a++) {
		p = x->id + x->pos[a];
		*p++ = a ? ',' : '/';
		p = stpcpy(stpcpy(stpcpy(p, e->axis[a].kv->key), "="),
			   e->axis[a].piece[x->idx[a]]);
		h = expand_hash(x->hpos[a], x->id + x->pos[a], p - x->id - x->pos[a]);
		if (a + 1 < e->nr_axes) {
			x->pos[a + 1] = p - x->id;
			x->hpos[a + 1] = h;
		} else {
			x->hash = h;
		}
	}
	x->dirty = e->nr_axes;
}

const struct xentry *expand_at(const struct kscen_expander *x)
{
	return &x->e[x->cur];
}

/* The job returned last: its values into @params, its own copies. */
void expand_fill_params(const struct kscen_expander *x, void *params)
{
	const struct xentry *e = &x->e[x->cur];
	const struct kscen_workload *w = e->j->workload;
	const struct kscen_value *inc = x->at_inc >= 0 ? e->inc[x->at_inc].val : NULL;

	for (unsigned i = 0; i < w->nr_params; i++) {
		struct kscen_value v = inc ? inc[i] : *expand_value_at(e, i, x->idx);

		if (w->params[i].type == KSCEN_P_STRING)
			v.s = v.s ? kscen_xstrdup(v.s) : NULL;
		kscen_value_store(&w->params[i], params, &v);
	}
}

/*
 * The metrics of a job of @j with @params into @m (KSCEN_MAX_METRICS): its
 * workload's, or those job_metrics() gives; their number.
 */
unsigned expand_metrics(const struct kscen_job_spec *j, const void *params,
			struct kscen_metric_desc *m)
{
	const struct kscen_workload *w = j->workload;

	memcpy(m, w->metrics, w->nr_metrics * sizeof(*w->metrics));
	return w->job_metrics ? w->job_metrics(params, m) : w->nr_metrics;
}

/*
 * What the workload says of the job returned last: its check(), then
 * whether it takes the job's metrics: list beside its own metrics.
 */
static int check_job(struct kscen_expander *x, const char *id)
{
	const struct xentry *e = &x->e[x->cur];
	const struct kscen_job_spec *j = e->j;
	const struct kscen_value *inc = x->at_inc >= 0 ? e->inc[x->at_inc].val : NULL;
	const struct kscen_workload *w = j->workload;
	struct kscen_metric_desc m[KSCEN_MAX_METRICS];
	unsigned nr_metrics = w->nr_metrics;
	char err[256] = "";

	if (!w->check && !j->nr_captures && !w->job_metrics)
		return 0;
	/* the values borrowed from the walk: nothing to free (every job: hot) */
	for (unsigned i = 0; i < w->nr_params; i++) {
		const struct kscen_param *p = &w->params[i];
		struct kscen_value v = inc ? inc[i] : *expand_value_at(e, i, x->idx);

		if (p->type == KSCEN_P_STRING)
			*(char **)((char *)x->params + p->offset) = NULL;
		kscen_value_store(p, x->params, &v);
	}
	if (w->check && w->check(x->params, err, sizeof(err))) {
		/* a module's message may fill the buffer without its NUL */
		err[sizeof(err) - 1] = '\0';
		kscen_file_error(j->spec_file, j->mark, "job %s: %s", id, err);
		return -EINVAL;
	}
	/* a module's job_metrics(): checked before any job takes them */
	if (w->job_metrics) {
		nr_metrics = expand_metrics(j, x->params, m);
		/* kscen's own message, vsnprintf()'d: terminated */
		if (kscen_job_metrics_check(w, x->params, m, nr_metrics, err, sizeof(err))) {
			kscen_file_error(j->spec_file, j->mark, "job %s: %s", id, err);
			return -EINVAL;
		}
	}
	if (!j->nr_captures)
		return 0;
	if (w->check_captures(x->params, j->nr_captures, err, sizeof(err))) {
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

/* Past the job returned last. */
static void move_on(struct kscen_expander *x)
{
	const struct xentry *e = &x->e[x->cur];
	unsigned changed;

	x->moved = true;
	if (x->at_inc >= 0) {
		x->inc++;
		return;
	}
	changed = expand_next_combo(e, x->idx);
	if (changed < x->dirty)
		x->dirty = changed;
	x->n++;
}

/*
 * Some hashes were seen twice: walk the jobs again for their ids, and
 * report the first id two jobs share, if they do.
 */
static int check_twice(struct kscen_expander *x)
{
	struct kscen_expander *y;
	struct kscen_job_ref job;
	struct expand_twice *t = NULL;
	size_t nr = 0, cap = 0;
	int ret, r;

	ret = expand_begin(x->s, ~0UL, true, &y);
	while (!ret && (r = kscen_expand_next(y, &job)) > 0) {
		if (!expand_unique_suspect(x, y->hash ? y->hash : 1))
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 16;
			t = kscen_xrealloc(t, cap * sizeof(*t));
		}
		t[nr++] = (struct expand_twice){ kscen_xstrdup(job.id), job.spec };
	}
	kscen_expand_end(y);
	if (!ret)
		ret = expand_unique_twins(x, t, nr);
	for (size_t i = 0; i < nr; i++)
		free(t[i].id);
	free(t);
	return ret;
}

int kscen_expand_next(struct kscen_expander *x, struct kscen_job_ref *job)
{
	int ret;

	if (!x->moved && !x->done)
		move_on(x);
	while (!x->done && x->cur < x->nr_e) {
		const struct xentry *e = &x->e[x->cur];
		const char *id;

		if (x->n < e->total) {
			x->at_inc = -1;
			if (expand_excluded(e, x->idx)) {
				move_on(x);
				continue;
			}
			build_id(x, e);
			id = x->id;
		} else if (x->inc < e->nr_inc) {
			x->at_inc = x->inc;
			id = e->inc[x->inc].id;
			x->hash = expand_hash(HASH_INIT, id, strlen(id));
		} else {
			x->cur++;
			x->n = x->inc = x->dirty = 0;
			continue;
		}
		x->moved = false;
		if ((ret = check_job(x, id))) {
			x->done = true;
			return ret;
		}
		expand_unique_note(x);
		job->id = id;
		job->spec = e->j;
		job->pos = x->walked++;
		return 1;
	}
	if (x->done)
		return 0;
	x->done = true;
	ret = expand_unique_end(x);
	return ret > 0 ? check_twice(x) : ret;
}

void kscen_expand_end(struct kscen_expander *x)
{
	if (!x)
		return;
	for (unsigned i = 0; i < x->nr_e; i++)
		expand_entry_fini(&x->e[i]);
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
