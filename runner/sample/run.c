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
#include <math.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/history.h"
#include "scenario/scenario_load.h"
#include "lib/util.h"
#include "journal.h"
#include "runner.h"
#include "lib/diag.h"
#include "progress.h"
#include "syscheck.h"

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

/* Sample @out's values into @r's metrics. */
static void add_values(struct kscen_job_result *r, const struct kscen_sample_out *out)
{
	for (unsigned m = 0; m < r->nr_metrics && m < out->nr; m++)
		add_sample(&r->metrics[m], out->v[m]);
}

/* @job's noise policy: --noise's, the job's, the scenario's, or flag. */
static enum kscen_noise_policy job_noise(const struct kscen_scenario *s,
					 const struct kscen_job *job,
					 const struct kscen_run_opts *o)
{
	return o->noise ? o->noise : job->spec->noise ? job->spec->noise :
	       s->noise ? s->noise : KSCEN_NOISE_FLAG;
}

/*
 * A sample of round @round (1-based, warmup not counted) and what the
 * sentinels saw of it: its record, judged (noise.c), and its values added
 * to the metrics unless @pol sets a disturbed one aside. A disturbed
 * sample is taken again under retake up to KSCEN_NOISE_RETAKES times
 * (@attempt counts them), and a job retakes at most as many samples as it
 * was asked for, so a machine loaded throughout costs at most twice the
 * time; the last retake is kept whatever it is. true: take it again.
 */
static bool noise_keep(enum kscen_noise_policy pol, const struct kscen_run_opts *o,
		       struct kscen_job_result *r, unsigned round,
		       const struct kscen_sample_out *out, unsigned attempt)
{
	struct kscen_noise_rec *n = r->noise;
	struct kscen_sample_rec *rec;
	bool again;

	/* Read nowhere (a guest of kscen ab, the test hook): kept, no record. */
	if (!out->noise.valid && !n) {
		add_values(r, out);
		return false;
	}
	if (!n) {
		n = r->noise = kscen_xcalloc(1, sizeof(*n));
		n->policy = kscen_xstrdup(kscen_noise_names[pol]);
	}
	if (!(n->nr_samples & (n->nr_samples - 1)))	/* 0, 1, 2, 4, ...: full */
		n->samples = kscen_xrealloc(n->samples, (n->nr_samples ?
					    2 * n->nr_samples : 1) * sizeof(*n->samples));
	rec = &n->samples[n->nr_samples++];
	kscen_sample_rec_init(rec);
	kscen_noise_judge(&out->noise, rec);
	rec->round = round;
	rec->value = out->nr ? out->v[0] : NAN;
	rec->planted = out->noise.planted;
	n->disturbed += rec->disturbed;
	again = pol == KSCEN_NOISE_RETAKE && rec->disturbed &&
		attempt < KSCEN_NOISE_RETAKES && n->dropped < o->repeat;
	rec->dropped = rec->disturbed && (again || pol == KSCEN_NOISE_DROP);
	n->dropped += rec->dropped;
	if (!rec->dropped)
		add_values(r, out);
	return again;
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

int kscen_job_supported(const struct kscen_job *job, char *reason, size_t len)
{
	struct kscen_ctx ctx = {
		.params = job->params, .verbose = kscen_verbose,
		.captures = job->spec->captures, .nr_captures = job->spec->nr_captures,
	};
	int ret = job->workload->supported ? job->workload->supported(&ctx) : 0;

	ctx.reason[sizeof(ctx.reason) - 1] = '\0';	/* a module's: bounded */
	snprintf(reason, len, "%s", ret ? ctx.reason : "");
	return ret;
}

/* Is the job still supported here? Checked once, before any sample. */
static void check_supported(const struct kscen_job *job, struct kscen_job_result *r)
{
	char reason[KSCEN_REASON_MAX];

	if (kscen_job_supported(job, reason, sizeof(reason)))
		job_stop(r, KSCEN_SKIPPED, reason);
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
	if (kscen_verbose && out->ret == 0)
		kscen_diag_info("kscen: %s %u/%u %s: %g %s\n", round < warmup ? "warmup" :
				"round", round + 1, total, job->id, out->v[0],
				job->metrics[0].unit);
	else if (kscen_verbose)
		kscen_diag_info("kscen: %s %u/%u %s: %s: %s\n", round < warmup ? "warmup" :
				"round", round + 1, total, job->id, out->ret == KSCEN_SKIP ?
				"skipped" : "failed", out->reason);
	else if (out->ret)
		kscen_diag_cmd(out->ret == KSCEN_SKIP ? KSCEN_DIAG_NOTE : KSCEN_DIAG_ERROR,
			       NULL, "%s: %s: %s", job->id,
			       out->ret == KSCEN_SKIP ? "skipped" : "failed", out->reason);
}

/* A job's cleanup: after its last sample; a failure is said, not fatal. */
static void job_cleanup(const struct kscen_scenario *s, const struct kscen_job *job)
{
	char reason[KSCEN_REASON_MAX];

	if (job->spec->cleanup &&
	    kscen_job_command("cleanup", job->spec->cleanup, kscen_job_timeout(s, job),
			      reason, sizeof(reason)))
		kscen_warning(NULL, "%s: %s", job->id, reason);
}

int kscen_run_jobs(const struct kscen_scenario *s, const struct kscen_jobs *jobs,
		   const struct kscen_run_opts *o, struct kscen_run *run)
{
	unsigned most = o->until_ci > 0 && o->max_repeat > o->repeat ?
			o->max_repeat : o->repeat;
	unsigned total = o->warmup + most, nr = 0;
	int *map = kscen_xcalloc(jobs->nr, sizeof(int));
	unsigned *index = kscen_xcalloc(jobs->nr, sizeof(unsigned));
	bool *tried = kscen_xcalloc(jobs->nr, sizeof(bool));	/* cleanup: */
	bool journal_warned = false;
	const struct kscen_metric_desc *no_cgroup;
	struct kscen_progress pr;
	int ret = 0;

	kscen_contain_init(true);
	/* taken here without a cgroup: what the run cannot say, and why */
	if (!o->sample && !o->quiet && !kscen_contain_extra(&no_cgroup))
		kscen_note(NULL, "samples run without a cgroup (%s): no cgroup_cpu "
			   "or cgroup_memory_peak, and what a sample leaves running "
			   "outlives a runner that is killed", kscen_contain_reason());
	kscen_progress_init(&pr, o->quiet || kscen_verbose, o->progress_clock ? 1 : -1,
			    o->progress_clock);
	/* map[job] = its index among the results, -1 when filtered out. */
	for (unsigned i = 0; i < jobs->nr; i++) {
		map[i] = -1;
		if (o->filter && fnmatch(o->filter, jobs->job[i].id, 0))
			continue;
		index[nr] = i;
		map[i] = nr++;
	}
	run->jobs = kscen_xcalloc(nr, sizeof(*run->jobs));
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
			unsigned attempt = 0;
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
retake:
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
			/*
			 * The runner could not take it. (A record the journal
			 * cannot replay is cut there and taken anew, never an
			 * error: journal_read.c.)
			 */
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
			if (noise_keep(job_noise(s, job, o), o, r, round - o->warmup + 1,
				       &out, attempt++))
				goto retake;
		}
		if (kscen_journal_round_end(o->journal) && !journal_warned) {
			kscen_progress_clear(&pr);
			kscen_warning(NULL, "journal %s: %s; the run "
				      "goes on, but could not be resumed if cut short",
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
	const char *cap;
	unsigned long n;

	o->repeat = repeat ? repeat : s->repeat;
	o->warmup = warmup != ULONG_MAX ? warmup : s->warmup;
	o->until_ci = until_ci ? until_ci : repeat ? 0 : s->until_ci;
	o->max_repeat = max_repeat ? max_repeat : s->max_repeat ? s->max_repeat :
			KSCEN_AUTO_MAX_REPEAT;
	if (o->until_ci > 0 && !repeat && !s->until_ci)
		o->repeat = KSCEN_AUTO_MIN_REPEAT;
	if (o->until_ci > 0 && o->max_repeat < o->repeat)
		o->max_repeat = o->repeat;
	/*
	 * KSCEN_TEST_REPEAT=N, a test hook (hooks.c: recorded with the run and
	 * shown by its report): at most N samples a job and no warmup, for a
	 * test that runs the documented commands as written in little time.
	 */
	if ((cap = getenv("KSCEN_TEST_REPEAT")) && (n = strtoul(cap, NULL, 10)) > 0) {
		o->repeat = o->repeat > n ? n : o->repeat;
		o->warmup = 0;
		o->until_ci = 0;
	}
}

struct kscen_run *kscen_run_new(struct kscen_scenario *s,
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
	run->scenario_text = s->text;
	s->text = NULL;
	run->command = command;
	run->test_hooks = kscen_test_hooks();
	run->repeat = o->repeat;
	run->warmup = o->warmup;
	run->until_ci = o->until_ci;
	run->max_repeat = o->until_ci > 0 ? o->max_repeat : 0;
	kscen_system_read(&run->system);
	/* what `kscen system check` would call off, without its wait */
	struct kscen_check c[KSCEN_CHECKS_MAX];
	char off[512];

	run->system_check = kscen_xstrdup(kscen_system_check_summary(c,
		kscen_system_check("", 0, c), off, sizeof(off)));
	return run;
}

int kscen_run_exit_code(const struct kscen_run *run, int ret, int tripped, bool saved)
{
	int code = tripped > 0 ? KSCEN_EXIT_GATE :
		   tripped == KSCEN_GATE_CANNOT_TELL ? KSCEN_EXIT_BISECT_SKIP :
		   tripped < 0 ? KSCEN_EXIT_USAGE : 0;

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
	for (unsigned i = 0; i < run->nr_jobs; i++)
		if (run->jobs[i].status != KSCEN_OK)
			return KSCEN_EXIT_BISECT_SKIP;
	/* a regression found stays one, whatever the other jobs say */
	if (tripped > 0)
		return KSCEN_EXIT_GATE;
	for (unsigned i = 0; i < run->nr_jobs; i++) {
		struct kscen_change c;

		/* no interval, or no run-to-run estimate: cannot tell */
		if (!kscen_ref_change(refs, run, i, &c) || !c.ci_valid ||
		    c.verdict == KSCEN_CANNOT_TELL)
			return KSCEN_EXIT_BISECT_SKIP;
	}
	return tripped > 0 ? KSCEN_EXIT_GATE : tripped < 0 ? KSCEN_EXIT_BISECT_SKIP : 0;
}
