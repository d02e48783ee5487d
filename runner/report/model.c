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
#include "lib/util.h"

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
 * @j's primary metric against job @ref of the same run: rounds pair them,
 * unless a noise policy dropped a sample of either;
 * where the history of @refs holds the same pair, its run-to-run drift
 * widens the interval (drift.c).
 * unless a noise policy dropped a sample of either. A metric of another unit
 * there is no baseline of this one (833 us is not +66300% over 1.25 ms): no
 * delta.
 */
static bool ref_change(const struct kscen_run *run, const struct kscen_refs *refs,
		       const struct kscen_job_result *j, const char *ref,
		       struct kscen_change *c)
{
	const struct kscen_metric *m = kscen_primary(j), *om;
	const struct kscen_job_result *b;
	struct kscen_drift d;

	if (!m || !ref || !j->id || !strcmp(ref, j->id))
		return false;
	b = kscen_run_find(run, ref);
	om = kscen_find_metric(b, m->name);
	if (om && strcmp(kscen_str(om->unit), kscen_str(m->unit)))
		return false;
	if (!kscen_change_compute(om, m,
				  kscen_rounds_whole(j) && (!b || kscen_rounds_whole(b)), c))
		return false;
	if (refs && refs->hist.nr) {
		kscen_pair_drift(&refs->hist, run, j, b, &d);
		kscen_change_widen(c, &d, m->better);
	}
	return true;
}

/* Each family's q-values, and what its footer says. */
static void families(struct kscen_report_model *m)
{
	unsigned nr = m->run->nr_jobs * KSCEN_NR_DELTAS;
	struct kscen_report_delta **dp = kscen_xcalloc(nr + 1, sizeof(*dp));
	double *p = kscen_xcalloc(nr + 1, sizeof(*p)), *q = kscen_xcalloc(nr + 1, sizeof(*q));

	for (unsigned f = 0; f < KSCEN_NR_FAMS; f++) {
		struct kscen_report_family *fam = &m->fam[f];
		unsigned n = 0;

		fam->p_min = INFINITY;
		for (unsigned i = 0; i < m->run->nr_jobs; i++) {
			const struct kscen_job_result *j = &m->run->jobs[i];

			for (unsigned k = 0; k < KSCEN_NR_DELTAS; k++) {
				struct kscen_report_delta *d = &m->job[i].delta[k];

				if ((k == KSCEN_DELTA_REF) != (f == KSCEN_FAM_BETWEEN))
					continue;
				d->q = NAN;
				if (!d->present)
					continue;
				/* a job pair is one comparison, however named */
				if (k == KSCEN_DELTA_PREVIOUS && j->baseline &&
				    !strcmp(j->previous, j->baseline) &&
				    m->job[i].delta[KSCEN_DELTA_BASELINE].present)
					continue;
				if (d->c.verdict == KSCEN_CANNOT_TELL) {
					fam->cannot_tell++;
					continue;
				}
				if (!isfinite(d->c.p))
					continue;
				dp[n] = d;
				p[n++] = d->c.p;
				fam->changed += d->c.verdict == KSCEN_WORSE ||
						d->c.verdict == KSCEN_BETTER;
				if (isfinite(d->c.size))
					fam->expected += d->c.size;
				fam->widened += f == KSCEN_FAM_WITHIN && d->c.drift;
				if (isfinite(d->c.p_min))
					fam->p_min = fmin(fam->p_min, d->c.p_min);
			}
		}
		fam->m = kscen_bh_qvalues(p, n, q);
		for (unsigned i = 0; i < n; i++) {
			dp[i]->q = q[i];
			fam->found += (dp[i]->c.verdict == KSCEN_WORSE ||
				       dp[i]->c.verdict == KSCEN_BETTER) && q[i] <= KSCEN_FDR;
		}
	}
	/* "to previous" that is "to baseline" shares its q */
	for (unsigned i = 0; i < m->run->nr_jobs; i++) {
		struct kscen_report_delta *d = m->job[i].delta;

		if (d[KSCEN_DELTA_PREVIOUS].present && isnan(d[KSCEN_DELTA_PREVIOUS].q) &&
		    d[KSCEN_DELTA_BASELINE].present)
			d[KSCEN_DELTA_PREVIOUS].q = d[KSCEN_DELTA_BASELINE].q;
	}
	free(dp);
	free(p);
	free(q);
}

/* ---- Noise ---- */

/* The causes of disturbed samples, each with its largest value. */
struct causes {
	struct {
		char kind[24], unit[12], max_text[16];	/* "0.9": as it was said */
		double max;
		unsigned n;
	} c[6];
	unsigned nr;
};

/* "steal 12%, other load 0.9 CPU": each part's kind, number and unit. */
static void causes_add(struct causes *cs, const char *cause)
{
	const char *p = cause;

	while (p && *p) {
		const char *end = strstr(p, ", "), *num = p;
		size_t len = end ? (size_t)(end - p) : strlen(p), k;
		char unit[12];
		double v;
		char *after;
		unsigned i;

		while (num < p + len && !(*num >= '0' && *num <= '9'))
			num++;
		k = num - p;
		while (k && p[k - 1] == ' ')
			k--;
		v = strtod(num, &after);
		if (after == num || !k || k >= sizeof(cs->c[0].kind))
			goto next;
		snprintf(unit, sizeof(unit), "%.*s", (int)(p + len - after), after);
		for (i = 0; i < cs->nr && (strncmp(cs->c[i].kind, p, k) ||
					   cs->c[i].kind[k]); i++)
			;
		if (i == cs->nr) {
			if (cs->nr == ARRAY_SIZE(cs->c))
				goto next;
			snprintf(cs->c[i].kind, sizeof(cs->c[i].kind), "%.*s", (int)k, p);
			snprintf(cs->c[i].unit, sizeof(cs->c[i].unit), "%s", unit);
			cs->c[i].max = -INFINITY;
			cs->nr++;
		}
		if (v > cs->c[i].max) {
			cs->c[i].max = v;
			snprintf(cs->c[i].max_text, sizeof(cs->c[i].max_text), "%.*s",
				 (int)(after - num), num);
		}
		cs->c[i].n++;
next:
		p = end ? end + 2 : NULL;
	}
}

/*
 * " (steal 12%, other load up to 0.9 CPU)": the causes that fit whole in
 * @len with the closing parenthesis, never one cut short.
 */
static void causes_text(const struct causes *cs, char *buf, size_t len)
{
	size_t n = 0;

	*buf = '\0';
	for (unsigned i = 0; i < cs->nr; i++) {
		char one[sizeof(cs->c[i].kind) + sizeof(cs->c[i].unit) +
			 sizeof(cs->c[i].max_text) + 16];
		size_t w = snprintf(one, sizeof(one), "%s%s %s%s%s", i ? ", " : " (",
				    cs->c[i].kind, cs->c[i].n > 1 ? "up to " : "",
				    cs->c[i].max_text, cs->c[i].unit);

		if (n + w + 2 > len)	/* then ")" and NUL */
			break;
		memcpy(buf + n, one, w);
		n += w;
	}
	if (n)
		memcpy(buf + n, ")", 2);
}

/*
 * What @n says of a job: how many samples were disturbed, by what, and
 * what its policy then kept; @m_n is how many its metrics hold.
 */
static void noise_job(const struct kscen_noise_rec *n, unsigned m_n, char *buf,
		      size_t len)
{
	struct causes cs = { .nr = 0 };
	unsigned bad_kept = 0;
	char why[160];

	*buf = '\0';
	if (!n || !n->disturbed)
		return;
	for (unsigned i = 0; i < n->nr_samples; i++) {
		if (!n->samples[i].disturbed)
			continue;
		causes_add(&cs, n->samples[i].cause ? n->samples[i].cause : "");
		bad_kept += !n->samples[i].dropped;
	}
	causes_text(&cs, why, sizeof(why));
	if (!n->dropped)
		snprintf(buf, len, "%u of %u samples disturbed%s, kept (noise: %s)",
			 n->disturbed, n->nr_samples, why, str(n->policy));
	else if (!strcmp(str(n->policy), "retake"))
		snprintf(buf, len, "%u of %u samples disturbed%s, %u retaken: "
			 "%u kept, %u of them disturbed (noise: retake)", n->disturbed,
			 n->nr_samples, why, n->dropped, m_n, bad_kept);
	else
		snprintf(buf, len, "%u of %u samples disturbed%s, %u set aside: "
			 "%u kept (noise: %s)", n->disturbed, n->nr_samples, why,
			 n->dropped, m_n, str(n->policy));
}

/* The run's line: every judged sample, every cause, every policy. */
static void noise_run(struct kscen_report_model *m)
{
	const struct kscen_run *run = m->run;
	unsigned judged = 0, taken = 0, bad = 0, dropped = 0, jobs_bad = 0;
	struct causes cs = { .nr = 0 };
	const char *pol = NULL;
	bool mixed = false;
	char why[160];

	for (unsigned i = 0; i < run->nr_jobs; i++) {
		const struct kscen_noise_rec *n = run->jobs[i].noise;

		if (!n)
			continue;
		judged++;
		taken += n->nr_samples;
		bad += n->disturbed;
		dropped += n->dropped;
		jobs_bad += n->disturbed > 0;
		mixed |= pol && strcmp(pol, str(n->policy));
		pol = str(n->policy);
		for (unsigned k = 0; k < n->nr_samples; k++)
			if (n->samples[k].disturbed)
				causes_add(&cs, str(n->samples[k].cause));
	}
	if (!judged)
		return;
	if (!bad) {
		snprintf(m->noise, sizeof(m->noise), "no sample of %u disturbed", taken);
		return;
	}
	causes_text(&cs, why, sizeof(why));
	snprintf(m->noise, sizeof(m->noise), "%u of %u samples disturbed%s in %u "
		 "of %u jobs, %u set aside (noise: %s)", bad, taken, why, jobs_bad,
		 judged, dropped, mixed ? "per job" : pol);
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
		int style = kscen_job_time_style(j);	/* one for its times */

		rj->num = kscen_xcalloc(j->nr_metrics, sizeof(*rj->num));
		for (unsigned k = 0; k < j->nr_metrics; k++) {
			rj->num[k] = (struct kscen_num){ .unit = "", .scale = 1 };
			if (j->metrics[k].nr_samples)
				kscen_num_style_in(&j->metrics[k], style, &rj->num[k]);
		}
	}
	if (rj->primary)
		kscen_format_ci(rj->primary, rj->ci, sizeof(rj->ci));
	d[KSCEN_DELTA_BASELINE].present =
		ref_change(run, refs, j, j->baseline, &d[KSCEN_DELTA_BASELINE].c);
	/* the second of a two-value axis: the same pair, computed once */
	if (j->previous && j->baseline && !strcmp(j->previous, j->baseline))
		d[KSCEN_DELTA_PREVIOUS] = d[KSCEN_DELTA_BASELINE];
	else
		d[KSCEN_DELTA_PREVIOUS].present =
			ref_change(run, refs, j, j->previous, &d[KSCEN_DELTA_PREVIOUS].c);
	d[KSCEN_DELTA_REF].present = kscen_ref_change(refs, run, i,
						      &d[KSCEN_DELTA_REF].c);
	if (refs && i < refs->nr) {
		rj->ref = refs->ref[i].run;
		rj->ref_job = refs->ref[i].job;
		/* What drift between runs can hide, where there is an estimate. */
		if (rj->ref && refs->ref[i].drift.src != KSCEN_DRIFT_NONE)
			m->drift_hides = fmax(m->drift_hides,
					      expm1(refs->ref[i].drift.mde_between));
	}
	noise_job(j->noise, rj->primary ? rj->primary->nr_samples : 0, rj->noise,
		  sizeof(rj->noise));
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
	families(m);
	for (i = 0; i < run->nr_jobs; i = last + 1) {
		struct kscen_report_entry *e = &m->entry[m->nr_entries];

		last = kscen_entry_last(run, i);
		e->first = i;
		e->last = last;
		e->nr_params = run->jobs[i].nr_kv;
		e->varies = kscen_xcalloc(e->nr_params, sizeof(*e->varies));
		for (unsigned k = 0; k < e->nr_params; k++)
			e->varies[k] = !kscen_entry_param_fixed(run, i, last, k);
		for (unsigned ji = i; ji <= last; ji++)
			m->job[ji].entry = m->nr_entries;
		m->nr_entries++;
	}
	noise_run(m);
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
