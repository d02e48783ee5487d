// SPDX-License-Identifier: GPL-2.0
/*
 * expand_jobs.c - the jobs a run keeps, as the walk (expand.c) passes
 * them: each with its params struct, metrics, shown values, and its
 * baseline and "previous" (README.md, "A scenario"): the baseline is the
 * first job equal in every other parameter with the baseline's values for
 * the named ones; "previous" is the job just before it among those that
 * differ from it only in the baseline's parameters. Both are found in the
 * whole matrix from the job's own values, so a run that keeps some jobs
 * (--filter, a shard) links them as a run of all would, to a job it keeps
 * (-1 where it does not), in memory that grows with the jobs kept.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "expand_priv.h"
#include "lib/util.h"

struct keeper {
	struct kscen_jobs *out;
	unsigned cap, cap_strs;
	/* per kept job: its slot, and its baseline's (-1: none) */
	unsigned long long *slot;
	long long *base;
	struct kscen_value *val;	/* scratch: a job's values */
	int *cls;			/* scratch: per axis, what a search wants */
	unsigned nr_val, nr_cls;
};

/* The kept job in slot @slot: its index, or -1. */
static int kept_at(const struct keeper *k, long long slot)
{
	unsigned lo = 0, hi = k->out->nr;

	if (slot < 0)
		return -1;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (k->slot[mid] < (unsigned long long)slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->out->nr && k->slot[lo] == (unsigned long long)slot ? (int)lo : -1;
}

/* A long value's short form, one string in the jobs' strs. */
static char *add_str(struct keeper *k, const char *text)
{
	struct kscen_jobs *out = k->out;

	if (out->nr_strs == k->cap_strs) {
		k->cap_strs = k->cap_strs ? 2 * k->cap_strs : 16;
		out->strs = kscen_xrealloc(out->strs, k->cap_strs * sizeof(*out->strs));
	}
	return out->strs[out->nr_strs++] = expand_id_value(text);
}

/*
 * What a job shows of a value: its label or its text, the scenario's own
 * strings, which outlive the jobs; only a value too long for an id gets a
 * string of its own, its short form, one an axis value.
 */
static char *shown_value(struct keeper *k, struct axis *ax, unsigned v,
			 const char *label, const char *text)
{
	if (label)
		return (char *)label;
	if (strlen(text) <= ID_VALUE_MAX)
		return (char *)text;
	if (!ax)
		return add_str(k, text);
	if (!ax->str)
		ax->str = kscen_xcalloc(ax->nr + 1, sizeof(*ax->str));
	if (!ax->str[v]) {
		add_str(k, text);
		ax->str[v] = k->out->nr_strs;
	}
	return k->out->strs[ax->str[v] - 1];
}

/* The declared params of the job returned last, as text: job->keys, values. */
static void shown(struct keeper *k, struct xentry *e, int inc, const unsigned *idx,
		  struct kscen_job *job)
{
	unsigned n = inc < 0 ? e->nr_axes : 0;

	for (unsigned i = 0; inc >= 0 && i < e->nr_keys; i++)
		n += e->inc[inc].text[i] != NULL;
	job->keys = kscen_xcalloc(2 * n + 1, sizeof(char *));
	job->values = job->keys + n;
	for (unsigned i = 0; i < (inc < 0 ? e->nr_axes : e->nr_keys); i++) {
		const char *text, *label;
		struct axis *ax = NULL;

		if (inc >= 0) {
			text = e->inc[inc].text[i];
			label = e->inc[inc].label[i];
		} else {
			ax = &e->axis[i];
			text = ax->kv->values[idx[i]];
			label = ax->kv->labels ? ax->kv->labels[idx[i]] : NULL;
		}
		if (!text)
			continue;
		job->keys[job->nr_kv] = (char *)e->keys[i];
		job->values[job->nr_kv++] = shown_value(k, ax, idx ? idx[i] : 0, label, text);
	}
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
 * The slots of the baseline and the previous job of the job returned last
 * (@self its slot in the entry), -1 for none.
 */
static void find_links(struct keeper *k, const struct kscen_expander *x,
		       unsigned long long self, long long *base, long long *prev)
{
	const struct xentry *e = expand_at(x);
	const struct kscen_workload *w = e->j->workload;
	const struct xinclude *inc = x->at_inc >= 0 ? &e->inc[x->at_inc] : NULL;

	if (w->nr_params > k->nr_val) {
		k->nr_val = w->nr_params;
		k->val = kscen_xrealloc(k->val, k->nr_val * sizeof(*k->val));
	}
	if (e->nr_axes > k->nr_cls) {
		k->nr_cls = e->nr_axes;
		k->cls = kscen_xrealloc(k->cls, k->nr_cls * sizeof(*k->cls));
	}
	for (unsigned i = 0; i < w->nr_params; i++)
		k->val[i] = inc ? inc->val[i] : *expand_value_at(e, i, x->idx);
	if (inc)
		expand_classes(e, k->val, e->in_base, k->cls);
	for (unsigned a = 0; !inc && a < e->nr_axes; a++)
		k->cls[a] = e->axis[a].p && e->in_base[e->axis[a].p - w->params] ? -1
			    : expand_class(&e->axis[a], x->idx[a]);
	*prev = expand_find(e, k->val, k->cls, e->in_base, true, self);
	/* the baseline's values on its axes, the job's own elsewhere */
	for (unsigned a = 0; a < e->nr_axes; a++) {
		const struct axis *ax = &e->axis[a];

		if (!ax->p || !e->in_base[ax->p - w->params])
			continue;
		if (ax->base < 0) {
			*base = -1;
			return;
		}
		k->val[ax->p - w->params] = ax->val[ax->base];
		k->cls[a] = expand_class(ax, ax->base);
	}
	*base = expand_find(e, k->val, k->cls, NULL, false, ~0ULL);
}

/* Keep the job the walk returned last, @id; with @light its id and links alone. */
static void keep_job(struct keeper *k, struct kscen_expander *x, const char *id,
		     bool light)
{
	struct xentry *e = &x->e[x->cur];
	const struct kscen_job_spec *j = e->j;
	const struct kscen_workload *w = j->workload;
	struct kscen_jobs *out = k->out;
	unsigned long long self = x->at_inc >= 0 ? e->total + x->at_inc
						 : expand_slot_of(e, x->idx);
	long long base = -1, prev = -1;
	struct kscen_job *job;

	if (out->nr == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 16;
		out->job = kscen_xrealloc(out->job, k->cap * sizeof(*out->job));
		k->slot = kscen_xrealloc(k->slot, k->cap * sizeof(*k->slot));
		k->base = kscen_xrealloc(k->base, k->cap * sizeof(*k->base));
	}
	if (j->baseline.nr)
		find_links(k, x, self, &base, &prev);
	job = &out->job[out->nr];
	memset(job, 0, sizeof(*job));
	job->spec = j;
	job->workload = w;
	job->id = kscen_xstrdup(id);
	job->baseline = -1;
	k->slot[out->nr] = e->slot0 + self;
	k->base[out->nr] = base < 0 ? -1 : (long long)(e->slot0 + base);
	job->previous = kept_at(k, prev < 0 ? -1 : (long long)(e->slot0 + prev));
	out->nr++;
	if (light)
		return;
	job->params = kscen_xcalloc(1, w->params_size ? w->params_size : 1);
	expand_fill_params(x, job->params);
	shown(k, e, x->at_inc, x->at_inc >= 0 ? NULL : x->idx, job);
	job->metrics = w->metrics;
	job->nr_metrics = w->nr_metrics;
	if (w->job_metrics || j->nr_captures) {
		job->own_metrics = kscen_xcalloc(KSCEN_MAX_METRICS, sizeof(*job->own_metrics));
		job->nr_metrics = expand_metrics(j, job->params, job->own_metrics);
		job->metrics = job->own_metrics;
		if (j->nr_captures)
			add_captures(job);
	}
}

static int expand_keep(const struct kscen_scenario *s, unsigned long max_jobs,
		       bool (*keep)(const struct kscen_job_ref *job, void *arg),
		       void *arg, bool light, struct kscen_jobs *out, unsigned long *total)
{
	struct keeper k = { .out = out };
	struct kscen_expander *x;
	struct kscen_job_ref ref;
	int ret;

	memset(out, 0, sizeof(*out));
	*total = 0;
	ret = kscen_expand_begin(s, max_jobs, &x);
	if (ret)
		return ret;
	/* all of them: sized once (what doubling would leave unused is a third) */
	if (!keep && x->nr_jobs) {
		k.cap = x->nr_jobs;
		out->job = kscen_xcalloc(k.cap, sizeof(*out->job));
		k.slot = kscen_xcalloc(k.cap, sizeof(*k.slot));
		k.base = kscen_xcalloc(k.cap, sizeof(*k.base));
	}
	while ((ret = kscen_expand_next(x, &ref)) > 0) {
		++*total;
		if (!keep || keep(&ref, arg))
			keep_job(&k, x, ref.id, light);
	}
	for (unsigned i = 0; i < out->nr; i++)
		out->job[i].baseline = kept_at(&k, k.base[i]);
	if (out->nr < k.cap)	/* excludes took some: give their room back */
		out->job = kscen_xrealloc(out->job, (out->nr + 1) * sizeof(*out->job));
	kscen_expand_end(x);
	free(k.slot);
	free(k.base);
	free(k.val);
	free(k.cls);
	if (ret)
		kscen_jobs_free(out);
	return ret;
}

int kscen_expand_keep(const struct kscen_scenario *s, unsigned long max_jobs,
		      bool (*keep)(const struct kscen_job_ref *job, void *arg),
		      void *arg, struct kscen_jobs *out, unsigned long *total)
{
	return expand_keep(s, max_jobs, keep, arg, false, out, total);
}

int kscen_expand_ids(const struct kscen_scenario *s, unsigned long max_jobs,
		     struct kscen_jobs *out)
{
	unsigned long total;

	return expand_keep(s, max_jobs, NULL, NULL, true, out, &total);
}

int kscen_expand(const struct kscen_scenario *s, unsigned long max_jobs,
		 struct kscen_jobs *out)
{
	unsigned long total;

	return kscen_expand_keep(s, max_jobs, NULL, NULL, out, &total);
}

static bool glob_keeps(const struct kscen_job_ref *job, void *filter)
{
	return fnmatch(filter, job->id, 0) == 0;
}

int kscen_expand_some(const struct kscen_scenario *s, unsigned long max_jobs,
		      const char *filter, struct kscen_jobs *out,
		      unsigned long *total)
{
	return kscen_expand_keep(s, max_jobs, glob_keeps, (void *)filter, out, total);
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
