// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - the report of a run, computed once: each job's status, primary
 * metric, number style and CI, its deltas to the baseline and the previous
 * job (inside the run, the rounds may pair them) and against its reference
 * run (never paired, drift allowed for: history.c), and the job entries
 * with the parameters that vary in them. kscen_report() builds it and hands
 * it to the emitter of the format asked for; none of them computes a delta.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "model.h"
#include "util.h"

unsigned kscen_entry_last(const struct kscen_run *run, unsigned first)
{
	unsigned last = first;

	while (last + 1 < run->nr_jobs &&
	       !strcmp(str(run->jobs[last + 1].name), str(run->jobs[first].name)))
		last++;
	return last;
}

bool kscen_entry_param_fixed(const struct kscen_run *run, unsigned first,
			     unsigned last, unsigned k)
{
	const struct kscen_job_result *a = &run->jobs[first];

	for (unsigned i = first + 1; i <= last; i++)
		if (run->jobs[i].nr_kv != a->nr_kv ||
		    strcmp(str(run->jobs[i].keys[k]), str(a->keys[k])) ||
		    strcmp(str(run->jobs[i].values[k]), str(a->values[k])))
			return false;
	return true;
}

/*
 * @j's primary metric against job @ref of the same run: rounds pair them.
 * A metric of another unit there is no baseline of this one (833 us is not
 * +66300% over 1.25 ms): no delta.
 */
static bool ref_change(const struct kscen_run *run, const struct kscen_job_result *j,
		       const char *ref, struct kscen_change *c)
{
	const struct kscen_metric *m = kscen_primary(j), *o;

	if (!m || !ref || !j->id || !strcmp(ref, j->id))
		return false;
	o = kscen_find_metric(kscen_run_find(run, ref), m->name);
	if (o && strcmp(str(o->unit), str(m->unit)))
		return false;
	return kscen_change_compute(o, m, true, c);
}

static void build_job(struct kscen_report_model *m, unsigned i)
{
	const struct kscen_run *run = m->run;
	const struct kscen_refs *refs = m->refs;
	const struct kscen_job_result *j = &run->jobs[i];
	struct kscen_report_job *rj = &m->job[i];
	struct kscen_report_delta *d = rj->delta;

	rj->job = j;
	rj->status = j->status <= KSCEN_FAILED ? j->status : KSCEN_FAILED;
	rj->primary = kscen_primary(j);
	if (j->status == KSCEN_OK && j->nr_metrics) {
		rj->num = kscen_xcalloc(j->nr_metrics, sizeof(*rj->num));
		for (unsigned k = 0; k < j->nr_metrics; k++) {
			rj->num[k] = (struct kscen_num){ .unit = "", .scale = 1 };
			if (j->metrics[k].nr_samples)
				kscen_num_style(&j->metrics[k], &rj->num[k]);
		}
	}
	if (rj->primary)
		kscen_format_ci(rj->primary, rj->ci, sizeof(rj->ci));
	d[KSCEN_DELTA_BASELINE].present =
		ref_change(run, j, j->baseline, &d[KSCEN_DELTA_BASELINE].c);
	d[KSCEN_DELTA_PREVIOUS].present =
		ref_change(run, j, j->previous, &d[KSCEN_DELTA_PREVIOUS].c);
	d[KSCEN_DELTA_REF].present = kscen_ref_change(refs, run, i,
						      &d[KSCEN_DELTA_REF].c);
	if (refs && i < refs->nr) {
		rj->ref = refs->ref[i].run;
		rj->ref_job = refs->ref[i].job;
		/* What drift between runs can hide, where there is history. */
		if (rj->ref && refs->ref[i].drift.runs >= KSCEN_DRIFT_MIN_RUNS)
			m->drift_hides = fmax(m->drift_hides,
					      expm1(refs->ref[i].drift.mde_between));
	}
	m->nr_status[rj->status]++;
}

void kscen_report_model_build(const struct kscen_run *run,
			      const struct kscen_refs *refs,
			      struct kscen_report_model *m)
{
	unsigned i, last;

	memset(m, 0, sizeof(*m));
	m->run = run;
	m->refs = refs;
	m->job = kscen_xcalloc(run->nr_jobs + 1, sizeof(*m->job));
	m->entry = kscen_xcalloc(run->nr_jobs + 1, sizeof(*m->entry));
	for (i = 0; i < run->nr_jobs; i++)
		build_job(m, i);
	for (i = 0; i < run->nr_jobs; i = last + 1) {
		struct kscen_report_entry *e = &m->entry[m->nr_entries];

		last = kscen_entry_last(run, i);
		e->first = i;
		e->last = last;
		e->nr_params = run->jobs[i].nr_kv;
		e->varies = kscen_xcalloc(e->nr_params + 1, sizeof(*e->varies));
		for (unsigned k = 0; k < e->nr_params; k++)
			e->varies[k] = !kscen_entry_param_fixed(run, i, last, k);
		for (unsigned ji = i; ji <= last; ji++)
			m->job[ji].entry = m->nr_entries;
		m->nr_entries++;
	}
}

void kscen_report_model_free(struct kscen_report_model *m)
{
	for (unsigned i = 0; m->job && i < m->run->nr_jobs; i++)
		free(m->job[i].num);
	for (unsigned i = 0; i < m->nr_entries; i++)
		free(m->entry[i].varies);
	free(m->job);
	free(m->entry);
	memset(m, 0, sizeof(*m));
}

void kscen_report(FILE *out, const struct kscen_run *run,
		  const struct kscen_refs *refs, enum kscen_format fmt)
{
	static void (*const emit[])(FILE *, const struct kscen_report_model *) = {
		[KSCEN_FMT_TEXT] = report_text,
		[KSCEN_FMT_MARKDOWN] = report_markdown,
		[KSCEN_FMT_JSON] = report_json,
		[KSCEN_FMT_CSV] = report_csv,
		[KSCEN_FMT_MAIL] = report_mail,
	};
	struct kscen_report_model m;

	kscen_report_model_build(run, refs, &m);
	emit[(unsigned)fmt < ARRAY_SIZE(emit) ? fmt : KSCEN_FMT_TEXT](out, &m);
	kscen_report_model_free(&m);
}
