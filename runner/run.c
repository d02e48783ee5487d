// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - jobs -> samples -> the run's job results.
 *
 * Samples are taken in interleaved rounds: round r takes sample r of every
 * job, warmup rounds first, in the jobs' order and back again on the next
 * round. On a loaded VM single runs of perf bench move by up to 30%
 * (docs/fidelity.md), so jobs that are compared are sampled alternately,
 * never one after the other in blocks.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "scenario_load.h"
#include "util.h"
#include "journal.h"
#include "runner.h"
#include "progress.h"

static void result_init(struct kscen_job_result *r, const struct kscen_job *job)
{
	const struct kscen_workload *w = job->workload;
	char buf[256];

	memset(r, 0, sizeof(*r));
	r->converged = -1;
	r->plan_pos = job->plan_pos;
	r->id = kscen_xstrdup(job->id);
	r->name = kscen_xstrdup(job->spec->name);
	r->workload = kscen_xstrdup(w->name);
	r->nr_kv = job->nr_kv;
	r->keys = kscen_xcalloc(job->nr_kv + 1, sizeof(char *));
	r->values = kscen_xcalloc(job->nr_kv + 1, sizeof(char *));
	for (unsigned i = 0; i < job->nr_kv; i++) {
		r->keys[i] = kscen_xstrdup(job->keys[i]);
		r->values[i] = kscen_xstrdup(job->values[i]);
	}
	r->workload_version = w->version;
	if (kscen_workload_origin(w)) {
		r->module = kscen_xstrdup(kscen_workload_origin(w));
		r->module_sha256 = kscen_xstrdup(kscen_workload_module_sha256(w));
	}
	r->nr_eff = w->nr_params;
	r->eff_keys = kscen_xcalloc(w->nr_params + 1, sizeof(char *));
	r->eff_values = kscen_xcalloc(w->nr_params + 1, sizeof(char *));
	for (unsigned i = 0; i < w->nr_params; i++) {
		r->eff_keys[i] = kscen_xstrdup(w->params[i].name);
		r->eff_values[i] = kscen_value_text(&w->params[i], job->params);
	}
	if (w->describe) {
		buf[0] = '\0';
		w->describe(job->params, buf, sizeof(buf));
		buf[sizeof(buf) - 1] = '\0';
		r->describe = buf[0] ? kscen_xstrdup(buf) : NULL;
	}
	r->nr_metrics = job->nr_metrics;
	r->metrics = kscen_xcalloc(job->nr_metrics + 1, sizeof(*r->metrics));
	for (unsigned m = 0; m < job->nr_metrics; m++) {
		r->metrics[m].name = kscen_xstrdup(job->metrics[m].name);
		r->metrics[m].unit = kscen_xstrdup(job->metrics[m].unit);
		r->metrics[m].better = job->metrics[m].better;
	}
	/* The sample's cgroup figures, where each sample has a cgroup. */
	const struct kscen_metric_desc *d;
	unsigned extra = kscen_contain_extra(&d);

	if (job->nr_metrics + extra > KSCEN_MAX_METRICS)
		return;
	r->metrics = kscen_xrealloc(r->metrics, (job->nr_metrics + extra + 1) *
				    sizeof(*r->metrics));
	for (unsigned m = job->nr_metrics; m < job->nr_metrics + extra; m++) {
		memset(&r->metrics[m], 0, sizeof(r->metrics[m]));
		r->metrics[m].name = kscen_xstrdup(d[m - job->nr_metrics].name);
		r->metrics[m].unit = kscen_xstrdup(d[m - job->nr_metrics].unit);
		r->metrics[m].better = d[m - job->nr_metrics].better;
	}
	r->nr_metrics += extra;
}

/*
 * Samples are stored as they are taken, in arrays that double: memory
 * follows the samples taken, never the repeat asked for (-r 1000000 on a
 * large matrix would otherwise allocate gigabytes before the first sample).
 */
static void add_sample(struct kscen_metric *m, double v)
{
	unsigned n = m->nr_samples;

	if (!(n & (n - 1)))	/* 0, 1, 2, 4, ...: full */
		m->samples = kscen_xrealloc(m->samples, (n ? 2 * n : 1) * sizeof(double));
	m->samples[m->nr_samples++] = v;
}

/*
 * Does job @r want another sample? Fixed repeat: until it has @o->repeat.
 * repeat: auto: at least that many, then until its primary metric's median
 * is known to +-until_ci % (95% CI) or it has max_repeat.
 */
static bool wants_more(const struct kscen_run_opts *o, struct kscen_job_result *r)
{
	struct kscen_metric *m = r->nr_metrics ? &r->metrics[0] : NULL;
	struct kscen_summary sum;

	if (r->status != KSCEN_OK || !m)
		return false;
	if (m->nr_samples < o->repeat)
		return true;
	if (o->until_ci <= 0)
		return false;
	kscen_summarize(m->samples, m->nr_samples, &sum);
	r->converged = kscen_median_ci_rank(m->nr_samples) &&
		       kscen_ci_halfwidth(&sum) <= o->until_ci;
	return !r->converged && m->nr_samples < o->max_repeat;
}

static void job_stop(struct kscen_job_result *r, enum kscen_status st,
		     const char *reason)
{
	r->status = st;
	free(r->reason);
	r->reason = kscen_xstrdup(reason && *reason ? reason : "unknown");
}

/* Is the job still supported here? Checked once, before any sample. */
static void check_supported(const struct kscen_job *job, struct kscen_job_result *r)
{
	struct kscen_ctx ctx = {
		.params = job->params, .verbose = kscen_verbose,
		.captures = job->spec->captures, .nr_captures = job->spec->nr_captures,
	};

	if (job->workload->supported && job->workload->supported(&ctx)) {
		ctx.reason[sizeof(ctx.reason) - 1] = '\0';	/* a module's: bounded */
		job_stop(r, KSCEN_SKIPPED, ctx.reason);
	}
}

static void sample_line(const struct kscen_run_opts *o, unsigned round,
			unsigned warmup, unsigned total, const struct kscen_job *job,
			const struct kscen_sample_out *out,
			struct kscen_progress *pr)
{
	kscen_progress_sample(pr);
	if (o->quiet)
		return;
	if (kscen_verbose || out->ret)
		kscen_progress_clear(pr);
	if (kscen_verbose) {
		fprintf(stderr, "kscen: %s %u/%u %s: ", round < warmup ? "warmup" : "round",
			round + 1, total, job->id);
		if (out->ret == 0)
			fprintf(stderr, "%g %s\n", out->v[0], job->metrics[0].unit);
		else
			fprintf(stderr, "%s: %s\n", out->ret == KSCEN_SKIP ?
				"skipped" : "failed", out->reason);
	} else if (out->ret) {
		fprintf(stderr, "kscen: %s: %s: %s\n", job->id,
			out->ret == KSCEN_SKIP ? "skipped" : "failed", out->reason);
	}
}

/* A job's cleanup: after its last sample; a failure is said, not fatal. */
static void job_cleanup(const struct kscen_scenario *s, const struct kscen_job *job)
{
	char reason[KSCEN_REASON_MAX];

	if (job->spec->cleanup &&
	    kscen_job_command("cleanup", job->spec->cleanup, kscen_job_timeout(s, job),
			      reason, sizeof(reason)))
		fprintf(stderr, "kscen: %s: %s\n", job->id, reason);
}

int kscen_run_jobs(const struct kscen_scenario *s, const struct kscen_jobs *jobs,
		   const struct kscen_run_opts *o, struct kscen_run *run)
{
	unsigned most = o->until_ci > 0 && o->max_repeat > o->repeat ?
			o->max_repeat : o->repeat;
	unsigned total = o->warmup + most, nr = 0;
	int *map = kscen_xcalloc(jobs->nr + 1, sizeof(int));
	unsigned *index = kscen_xcalloc(jobs->nr + 1, sizeof(unsigned));
	bool *tried = kscen_xcalloc(jobs->nr + 1, sizeof(bool));	/* cleanup: */
	bool journal_warned = false;
	struct kscen_progress pr;
	int ret = 0;

	kscen_contain_init(true);
	kscen_progress_init(&pr, o->quiet || kscen_verbose, -1);
	/* map[job] = its index among the results, -1 when filtered out. */
	for (unsigned i = 0; i < jobs->nr; i++) {
		map[i] = -1;
		if (o->filter && fnmatch(o->filter, jobs->job[i].id, 0))
			continue;
		index[nr] = i;
		map[i] = nr++;
	}
	run->jobs = kscen_xcalloc(nr + 1, sizeof(*run->jobs));
	run->nr_jobs = nr;
	for (unsigned k = 0; k < nr; k++) {
		const struct kscen_job *job = &jobs->job[index[k]];
		struct kscen_job_result *r = &run->jobs[k];

		if (kscen_interrupted) {	/* a large matrix takes a while */
			run->nr_jobs = nr = k;
			ret = -EINTR;
			break;
		}
		result_init(r, job);
		if (job->baseline >= 0 && map[job->baseline] >= 0)
			r->baseline = kscen_xstrdup(jobs->job[job->baseline].id);
		if (job->previous >= 0 && map[job->previous] >= 0)
			r->previous = kscen_xstrdup(jobs->job[job->previous].id);
		if (!o->sample)
			check_supported(job, r);
	}

	/*
	 * Round r takes sample r of every job that still wants one; with
	 * repeat: auto the converged jobs drop out and the rest go on, still
	 * interleaved, so sample i of any two jobs shares a round.
	 */
	for (unsigned round = 0; round < total && !ret; round++) {
		unsigned active = 0, planned = o->warmup + o->repeat;

		for (unsigned k = 0; k < nr; k++)
			if (round < o->warmup ? run->jobs[k].status == KSCEN_OK :
			    wants_more(o, &run->jobs[k]))
				active++;
		if (!active)
			break;
		kscen_progress_round(&pr, round < o->warmup,
				     round < o->warmup ? round + 1 : round - o->warmup + 1,
				     round < o->warmup ? o->warmup : most, active,
				     round + 1 < planned ?
				     (unsigned long long)active * (planned - round - 1) : 0);
		/*
		 * Odd rounds go backwards (A B, B A, ...): a job that always
		 * ran right after another would carry an order effect into
		 * every pair of rounds, and an A/A pair would not be one.
		 */
		for (unsigned i = 0; i < nr && !ret; i++) {
			unsigned k = round % 2 ? nr - 1 - i : i;
			const struct kscen_job *job = &jobs->job[index[k]];
			struct kscen_job_result *r = &run->jobs[k];
			long long timeout = kscen_job_timeout(s, job);
			struct kscen_sample_out out;
			double secs;
			long long t0;

			if (r->status != KSCEN_OK ||
			    (round >= o->warmup && !wants_more(o, r)))
				continue;
			if (kscen_interrupted) {	/* also while replaying */
				ret = -EINTR;
				break;
			}
			tried[k] = true;
			t0 = kscen_now_ns();
			if (o->sample) {
				ret = o->sample(o->sample_arg, index[k], job, timeout, &out);
				secs = (kscen_now_ns() - t0) / 1e9;
			} else {
				/* replayed: the time it took when it was taken */
				ret = kscen_journal_sample(o->journal, round, k, job,
							   timeout, &out, &secs);
			}
			/* what the job costs a machine: shards balance by it */
			r->seconds += secs;
			if (ret) {
				job_stop(r, KSCEN_FAILED, strerror(-ret));
				break;
			}
			if (out.ret == -EINTR) {
				ret = -EINTR;
				break;
			}
			sample_line(o, round, o->warmup, total, job, &out, &pr);
			if (out.ret) {
				job_stop(r, out.ret == KSCEN_SKIP ? KSCEN_SKIPPED
								  : KSCEN_FAILED, out.reason);
				continue;
			}
			if (round < o->warmup)
				continue;
			for (unsigned m = 0; m < r->nr_metrics && m < out.nr; m++)
				add_sample(&r->metrics[m], out.v[m]);
		}
		if (kscen_journal_round_end(o->journal) && !journal_warned) {
			kscen_progress_clear(&pr);
			fprintf(stderr, "kscen: journal %s: %s; the run goes on, but "
				"could not be resumed if cut short\n",
				kscen_journal_path(o->journal),
				strerror(-kscen_journal_error(o->journal)));
			journal_warned = true;
		}
	}
	kscen_progress_clear(&pr);
	/* A profile per job: one more sample each, never recorded. */
	for (unsigned k = 0; k < nr && !ret; k++)
		ret = kscen_profile_run(s, &jobs->job[index[k]], &run->jobs[k], o);
	/* Where the samples were taken elsewhere (kscen ab), so are the cleanups. */
	for (unsigned k = 0; k < nr && !o->sample; k++)
		if (tried[k])
			job_cleanup(s, &jobs->job[index[k]]);
	if (ret)
		run->partial = true;
	for (unsigned k = 0; k < nr; k++) {
		if (o->until_ci > 0)
			wants_more(o, &run->jobs[k]);	/* the final verdict */
		if (run->jobs[k].status != KSCEN_OK)
			run->jobs[k].converged = -1;
		for (unsigned m = 0; m < run->jobs[k].nr_metrics; m++) {
			struct kscen_metric *mt = &run->jobs[k].metrics[m];

			kscen_summarize(mt->samples, mt->nr_samples, &mt->sum);
		}
	}
	free(map);
	free(index);
	free(tried);
	kscen_contain_fini();
	return ret;
}

void kscen_run_opts_resolve(struct kscen_run_opts *o, const struct kscen_scenario *s,
			    unsigned long repeat, unsigned long warmup,
			    double until_ci, unsigned long max_repeat)
{
	o->repeat = repeat ? repeat : s->repeat;
	o->warmup = warmup != ULONG_MAX ? warmup : s->warmup;
	o->until_ci = until_ci ? until_ci : repeat ? 0 : s->until_ci;
	o->max_repeat = max_repeat ? max_repeat : s->max_repeat ? s->max_repeat :
			KSCEN_AUTO_MAX_REPEAT;
	if (o->until_ci > 0 && !repeat && !s->until_ci)
		o->repeat = KSCEN_AUTO_MIN_REPEAT;
	if (o->until_ci > 0 && o->max_repeat < o->repeat)
		o->max_repeat = o->repeat;
}

struct kscen_run *kscen_run_new(const struct kscen_scenario *s,
				const struct kscen_run_opts *o, const char *label,
				const char *shard, char *command)
{
	struct kscen_run *run = kscen_xcalloc(1, sizeof(*run));

	run->shard = shard ? kscen_xstrdup(shard) : NULL;
	run->version = kscen_xstrdup(KSCEN_VERSION);
	run->describe = kscen_xstrdup(kscen_describe);
	run->filter = o->filter ? kscen_xstrdup(o->filter) : NULL;
	run->label = label ? kscen_xstrdup(label) : NULL;
	run->scenario = kscen_xstrdup(s->name);
	run->scenario_file = kscen_xstrdup(s->file);
	run->scenario_sha256 = kscen_xstrdup(s->sha256);
	run->command = command;
	run->test_hooks = kscen_test_hooks();
	run->repeat = o->repeat;
	run->warmup = o->warmup;
	run->until_ci = o->until_ci;
	run->max_repeat = o->until_ci > 0 ? o->max_repeat : 0;
	kscen_system_read(&run->system);
	return run;
}

int kscen_run_exit_code(const struct kscen_run *run, int ret, int tripped, bool saved)
{
	int code = tripped > 0 ? KSCEN_EXIT_GATE : tripped < 0 ? KSCEN_EXIT_USAGE : 0;

	/* Failed jobs win over the gate: their numbers are not all there. */
	for (unsigned i = 0; i < run->nr_jobs; i++)
		if (run->jobs[i].status == KSCEN_FAILED)
			code = KSCEN_EXIT_FAILED_JOBS;
	if (ret == -EINTR)
		code = 128 + (kscen_interrupted > 0 ? kscen_interrupted : SIGINT);
	else if (ret)
		code = KSCEN_EXIT_FAILED_JOBS;
	/* Never 0 without the results: whatever else happened, say this. */
	if (!saved)
		code = KSCEN_EXIT_NOT_SAVED;
	return code;
}

int kscen_run_bisect_code(int code, const struct kscen_run *run,
			  const struct kscen_refs *refs, int tripped)
{
	if (code == 128 + SIGINT || code == 128 + SIGTERM || code == 128 + SIGHUP)
		return code;
	if (code && code != KSCEN_EXIT_GATE)
		return KSCEN_EXIT_BISECT_SKIP;
	for (unsigned i = 0; i < run->nr_jobs; i++) {
		struct kscen_change c;

		if (run->jobs[i].status != KSCEN_OK)
			return KSCEN_EXIT_BISECT_SKIP;
		if (!kscen_ref_change(refs, run, i, &c) || !c.ci_valid)
			return KSCEN_EXIT_BISECT_SKIP;
	}
	return tripped > 0 ? KSCEN_EXIT_GATE : tripped < 0 ? KSCEN_EXIT_BISECT_SKIP : 0;
}
