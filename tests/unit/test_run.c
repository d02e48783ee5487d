// SPDX-License-Identifier: GPL-2.0
/*
 * test_run.c - what `kscen run` decides around its samples (run.c): the
 * samples per job from the command line over the scenario, and the exit
 * code from the jobs, the gate, the save and signals.
 */
#define _GNU_SOURCE	/* vasprintf, in journal_int.h's put() */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expand/jobs.h"
#include "store/history.h"
#include "sample/runner.h"
#include "sample/journal_int.h"	/* a journal's sticky error, set */
#include "lib/diag.h"
#include "lib/util.h"
#include "scenario/scenario_load.h"

static void test_opts_from_scenario(void **state)
{
	struct kscen_scenario s = { .repeat = 7, .warmup = 2 };
	struct kscen_run_opts o = { 0 };

	(void)state;
	kscen_run_opts_resolve(&o, &s, 0, ULONG_MAX, 0, 0);
	assert_int_equal(o.repeat, 7);
	assert_int_equal(o.warmup, 2);
	assert_true(o.until_ci == 0);
	/* the command line wins; -w 0 is a value, not "not given" */
	kscen_run_opts_resolve(&o, &s, 3, 0, 0, 0);
	assert_int_equal(o.repeat, 3);
	assert_int_equal(o.warmup, 0);
}

static void test_opts_auto(void **state)
{
	struct kscen_scenario s = { .repeat = KSCEN_AUTO_MIN_REPEAT, .max_repeat = 20,
				    .until_ci = 5, .warmup = 1 };
	struct kscen_scenario fixed = { .repeat = 5, .warmup = 1 };
	struct kscen_run_opts o = { 0 };

	(void)state;
	kscen_run_opts_resolve(&o, &s, 0, ULONG_MAX, 0, 0);
	assert_true(o.until_ci == 5);
	assert_int_equal(o.max_repeat, 20);
	/* -r N asks for exactly N: repeat: auto off */
	kscen_run_opts_resolve(&o, &s, 9, ULONG_MAX, 0, 0);
	assert_true(o.until_ci == 0);
	assert_int_equal(o.repeat, 9);
	/* --until-ci on a fixed scenario: auto from the least samples */
	kscen_run_opts_resolve(&o, &fixed, 0, ULONG_MAX, 2.5, 0);
	assert_true(o.until_ci == 2.5);
	assert_int_equal(o.repeat, KSCEN_AUTO_MIN_REPEAT);
	assert_int_equal(o.max_repeat, KSCEN_AUTO_MAX_REPEAT);
	/* at most never below at least */
	kscen_run_opts_resolve(&o, &fixed, 40, ULONG_MAX, 2.5, 10);
	assert_int_equal(o.max_repeat, 40);
}

static void test_exit_code(void **state)
{
	struct kscen_job_result jobs[2] = { { .status = KSCEN_OK }, { .status = KSCEN_SKIPPED } };
	struct kscen_run run = { .jobs = jobs, .nr_jobs = 2 };

	(void)state;
	assert_int_equal(kscen_run_exit_code(&run, 0, 0, true), KSCEN_EXIT_OK);
	assert_int_equal(kscen_run_exit_code(&run, 0, 1, true), KSCEN_EXIT_GATE);
	assert_int_equal(kscen_run_exit_code(&run, 0, -1, true), KSCEN_EXIT_USAGE);
	assert_int_equal(kscen_run_exit_code(&run, -EIO, 0, true), KSCEN_EXIT_FAILED_JOBS);
	jobs[1].status = KSCEN_FAILED;
	/* failed jobs win over the gate, a failed save over both */
	assert_int_equal(kscen_run_exit_code(&run, 0, 1, true), KSCEN_EXIT_FAILED_JOBS);
	assert_int_equal(kscen_run_exit_code(&run, 0, 1, false), KSCEN_EXIT_NOT_SAVED);
	kscen_interrupted = SIGTERM;
	assert_int_equal(kscen_run_exit_code(&run, -EINTR, 0, true), 128 + SIGTERM);
	kscen_interrupted = 0;
	assert_int_equal(kscen_run_exit_code(&run, -EINTR, 0, true), 128 + SIGINT);
}

static void test_bisect_code(void **state)
{
	struct kscen_job_result jobs[1] = { { .status = KSCEN_OK } };
	struct kscen_run run = { .jobs = jobs, .nr_jobs = 1 };
	struct kscen_refs refs;

	(void)state;
	memset(&refs, 0, sizeof(refs));
	/* signals pass through; anything but good or bad cannot tell */
	assert_int_equal(kscen_run_bisect_code(130, &run, &refs, 0), 130);
	assert_int_equal(kscen_run_bisect_code(KSCEN_EXIT_FAILED_JOBS, &run, &refs, 0),
			 KSCEN_EXIT_BISECT_SKIP);
	/* a job without a reference cannot be judged */
	assert_int_equal(kscen_run_bisect_code(0, &run, &refs, 0), KSCEN_EXIT_BISECT_SKIP);
	jobs[0].status = KSCEN_SKIPPED;
	assert_int_equal(kscen_run_bisect_code(KSCEN_EXIT_GATE, &run, &refs, 1),
			 KSCEN_EXIT_BISECT_SKIP);
}

/* Which job each sample was of, in the order they were taken. */
struct taken {
	unsigned job[64], nr, per_round;
};

/* A sample: its value says the round it was taken in and the job. */
static int take(void *arg, unsigned index, const struct kscen_job *job,
		long long timeout_ns, struct kscen_sample_out *out)
{
	struct taken *t = arg;

	(void)job;
	(void)timeout_ns;
	memset(out, 0, sizeof(*out));
	out->nr = 1;
	out->v[0] = 10.0 * (t->nr / t->per_round) + index;
	if (t->nr < ARRAY_SIZE(t->job))
		t->job[t->nr] = index;
	t->nr++;
	return 0;
}

/*
 * Rounds go A B C, then C B A: a job that always ran right after another
 * would carry an order effect into every pair of rounds. Sample i of every
 * job is from round warmup + i, so the rounds pair the jobs.
 */
static void test_run_rounds_alternate_job_order(void **state)
{
	static const char text[] = "scenario: t\nrepeat: 3\nwarmup: 1\njobs:\n"
		"  - name: a\n    workload: exec\n"
		"    params: {command: [\"true\", \"false\", \"echo\"]}\n";
	static const unsigned order[] = { 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0 };
	char path[] = "/tmp/kscen-rounds-XXXXXX";
	int fd = mkstemp(path);
	struct taken t = { .per_round = 3 };
	struct kscen_run_opts o = { .repeat = 3, .warmup = 1, .quiet = true,
				    .sample = take, .sample_arg = &t };
	struct kscen_run *run = kscen_xcalloc(1, sizeof(*run));
	struct kscen_scenario *s;
	struct kscen_jobs jobs;

	(void)state;
	assert_true(fd >= 0 && write(fd, text, sizeof(text) - 1) == sizeof(text) - 1);
	close(fd);
	assert_int_equal(kscen_scenario_load(path, &s), 0);
	unlink(path);
	assert_int_equal(kscen_expand(s, 100, &jobs), 0);
	assert_int_equal(jobs.nr, 3);
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), 0);
	assert_int_equal(t.nr, ARRAY_SIZE(order));
	for (unsigned i = 0; i < ARRAY_SIZE(order); i++)
		assert_int_equal(t.job[i], order[i]);
	assert_int_equal(run->nr_jobs, 3);
	for (unsigned k = 0; k < 3; k++) {
		const struct kscen_metric *m = &run->jobs[k].metrics[0];

		assert_int_equal(m->nr_samples, 3);
		for (unsigned i = 0; i < 3; i++)	/* the warmup round is not kept */
			assert_true(m->samples[i] == 10.0 * (i + 1) + k);
	}
	kscen_run_free(run);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/* The jobs of scenario @text (a temporary file, gone when loaded). */
static void load_jobs(const char *text, struct kscen_scenario **s, struct kscen_jobs *jobs)
{
	char path[] = "/tmp/kscen-rounds-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(kscen_scenario_load(path, s), 0);
	unlink(path);
	assert_int_equal(kscen_expand(*s, 100, jobs), 0);
}

/*
 * What each job's samples do, by the job's own count of calls (0: its
 * warmup): job 0 always 100; job 1 skips at once; job 2 swings between 150
 * and 100 and never converges; job 3 fails at its call 3. @err/@intr: at
 * that call of job 1 the runner gets an error, or the sample is
 * interrupted.
 */
struct script {
	unsigned calls[4], order[64], nr;
	int err_at, intr_at;
	unsigned sig_after;	/* SIGINT comes as job 0's call sig_after - 1 ends (0: none) */
};

static int play(void *arg, unsigned index, const struct kscen_job *job,
		long long timeout_ns, struct kscen_sample_out *out)
{
	struct script *sc = arg;
	unsigned c = sc->calls[index]++;

	(void)job;
	(void)timeout_ns;
	memset(out, 0, sizeof(*out));
	if (sc->nr < ARRAY_SIZE(sc->order))
		sc->order[sc->nr] = index;
	sc->nr++;
	if (index == 0 && c + 1 == sc->sig_after)
		kscen_interrupted = SIGINT;
	if (index == 1 && (int)c == sc->err_at) {
		out->nr = 1;	/* what the runner got before it failed: not kept */
		out->v[0] = 999;
		return -EIO;
	}
	if (index == 1 && (int)c == sc->intr_at) {
		out->ret = -EINTR;
		return 0;
	}
	if (index == 1 && sc->err_at < 0 && sc->intr_at < 0) {
		out->ret = KSCEN_SKIP;
		snprintf(out->reason, sizeof(out->reason), "no slot");
		return 0;
	}
	if (index == 3 && c == 3) {
		out->ret = -EIO;
		out->nr = 1;	/* what it printed before it failed: not kept */
		out->v[0] = 999;
		snprintf(out->reason, sizeof(out->reason), "boom");
		return 0;
	}
	out->nr = 1;
	out->v[0] = index == 2 ? 100 + 50 * (c % 2) : 100;
	return 0;
}

static const char four_jobs[] = "scenario: t\njobs:\n"
	"  - name: a\n    workload: exec\n"
	"    params: {command: [\"true\", \"false\", \"echo\", \"yes\"]}\n"
	"    baseline: {command: \"true\"}\n";

/*
 * repeat: auto: a job leaves the rounds when it converges or reaches its
 * maximum, the others go on, still alternating; a skipped job and a
 * failed one stop with their reasons, the rest is untouched.
 */
static void test_run_rounds_auto_skip_and_fail(void **state)
{
	static const unsigned order[] = {
		0, 1, 2, 3, /* warmup */ 3, 2, 0, 0, 2, 3, 3, 2, 0, 0, 2, 2, 0, 0, 2, 2, 2,
	};
	struct script sc = { .err_at = -1, .intr_at = -1 };
	struct kscen_run_opts o = { .repeat = 6, .warmup = 1, .quiet = true, .until_ci = 5,
				    .max_repeat = 8, .sample = play, .sample_arg = &sc };
	struct kscen_run *run = kscen_xcalloc(1, sizeof(*run));
	const struct kscen_job_result *r;
	struct kscen_scenario *s;
	struct kscen_jobs jobs;

	(void)state;
	load_jobs(four_jobs, &s, &jobs);
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), 0);
	assert_false(run->partial);
	assert_int_equal(sc.nr, ARRAY_SIZE(order));
	for (unsigned i = 0; i < ARRAY_SIZE(order); i++)
		assert_int_equal(sc.order[i], order[i]);
	r = run->jobs;
	assert_int_equal(r[0].status, KSCEN_OK);
	assert_int_equal(r[0].metrics[0].nr_samples, 6);
	assert_int_equal(r[0].converged, 1);
	assert_true(r[0].metrics[0].sum.median == 100);
	assert_int_equal(r[1].status, KSCEN_SKIPPED);
	assert_string_equal(r[1].reason, "no slot");
	assert_int_equal(r[1].metrics[0].nr_samples, 0);
	assert_int_equal(r[1].converged, -1);
	assert_int_equal(r[2].status, KSCEN_OK);
	assert_int_equal(r[2].metrics[0].nr_samples, 8);
	assert_int_equal(r[2].converged, 0);
	assert_true(r[2].metrics[0].samples[0] == 150 && r[2].metrics[0].samples[7] == 100);
	assert_int_equal(r[3].status, KSCEN_FAILED);
	assert_string_equal(r[3].reason, "boom");
	assert_int_equal(r[3].metrics[0].nr_samples, 2);
	assert_int_equal(r[3].converged, -1);
	assert_string_equal(r[2].baseline, "a/command=true");
	kscen_run_free(run);

	/* --filter: the jobs it keeps, and a baseline only when that runs too */
	sc = (struct script){ .err_at = -1, .intr_at = -1 };
	o = (struct kscen_run_opts){ .repeat = 2, .warmup = 0, .quiet = true,
				     .filter = "a/command=[ey]*", .sample = play,
				     .sample_arg = &sc };
	run = kscen_xcalloc(1, sizeof(*run));
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), 0);
	assert_int_equal(run->nr_jobs, 2);
	assert_string_equal(run->jobs[0].id, "a/command=echo");
	assert_null(run->jobs[0].baseline);
	assert_int_equal(sc.calls[0] + sc.calls[1], 0);
	assert_int_equal(sc.calls[2], 2);
	kscen_run_free(run);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/*
 * The runner itself fails (the sample could not be taken), or a sample is
 * interrupted, or the signal comes before any: the run stops there, keeps
 * what was taken and says it is partial.
 */
static void test_run_stops_on_error_and_interrupt(void **state)
{
	struct script sc = { .err_at = 2, .intr_at = -1 };
	struct kscen_run_opts o = { .repeat = 3, .warmup = 0, .quiet = true,
				    .sample = play, .sample_arg = &sc };
	struct kscen_run *run = kscen_xcalloc(1, sizeof(*run));
	struct kscen_scenario *s;
	struct kscen_jobs jobs;

	(void)state;
	load_jobs(four_jobs, &s, &jobs);
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), -EIO);
	assert_true(run->partial);
	assert_int_equal(run->jobs[1].status, KSCEN_FAILED);
	assert_string_equal(run->jobs[1].reason, strerror(EIO));
	assert_int_equal(run->jobs[1].metrics[0].nr_samples, 2);	/* calls 0, 1 */
	/* round 2 went 0, 1 and stopped: 3 and 2 had 2 samples, 0 has 3 */
	assert_int_equal(run->jobs[0].metrics[0].nr_samples, 3);
	assert_int_equal(run->jobs[2].metrics[0].nr_samples, 2);
	assert_int_equal(sc.nr, 10);
	kscen_run_free(run);

	sc = (struct script){ .err_at = -1, .intr_at = 1 };
	run = kscen_xcalloc(1, sizeof(*run));
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), -EINTR);
	assert_true(run->partial);
	assert_int_equal(run->jobs[1].status, KSCEN_OK);
	assert_int_equal(run->jobs[1].metrics[0].nr_samples, 1);
	assert_int_equal(sc.nr, 7);	/* round 1 went 3, 2, 1 */
	kscen_run_free(run);

	/* SIGINT as a sample ends: the next job is not taken, the run stops */
	sc = (struct script){ .err_at = -1, .intr_at = -1, .sig_after = 1 };
	run = kscen_xcalloc(1, sizeof(*run));
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), -EINTR);
	kscen_interrupted = 0;
	assert_true(run->partial);
	assert_int_equal(sc.nr, 1);
	assert_int_equal(run->jobs[0].metrics[0].nr_samples, 1);
	assert_int_equal(run->jobs[1].status, KSCEN_OK);
	kscen_run_free(run);

	/* SIGINT before the first sample: nothing taken, no job set up */
	sc = (struct script){ .err_at = -1, .intr_at = -1 };
	run = kscen_xcalloc(1, sizeof(*run));
	kscen_interrupted = SIGINT;
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), -EINTR);
	kscen_interrupted = 0;
	assert_int_equal(run->nr_jobs, 0);
	assert_int_equal(sc.nr, 0);
	assert_true(run->partial);
	kscen_run_free(run);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/*
 * What `kscen run` says on stderr while it runs, exactly as the command
 * line prints it: TERM=dumb, so the plain line a round of a log, never the
 * terminal's redrawn one (whose estimate depends on the clock).
 */
static char *said_text;
static size_t said_len;
static FILE *said;

static void say_begin(void)
{
	setenv("TERM", "dumb", 1);
	said = open_memstream(&said_text, &said_len);
	assert_non_null(said);
	kscen_diag_set_sink(kscen_diag_print, said);
}

/* What was said since say_begin(); the caller frees it. */
static char *say_end(void)
{
	kscen_diag_set_sink(NULL, NULL);
	fclose(said);
	return said_text;
}

/* kscen_run_jobs() of @jobs with @o, and what it said */
static char *run_said(const struct kscen_scenario *s, const struct kscen_jobs *jobs,
		      const struct kscen_run_opts *o, int want)
{
	struct kscen_run *run = kscen_xcalloc(1, sizeof(*run));

	say_begin();
	assert_int_equal(kscen_run_jobs(s, jobs, o, run), want);
	kscen_run_free(run);
	return say_end();
}

/*
 * The progress lines by value: warmup rounds counted on their own, then
 * the rounds of the repeat (a max_repeat without --until-ci is not one);
 * a skipped and a failed job said where they stop; with repeat: auto the
 * rounds count to max_repeat and stop when no job wants more; after a
 * runner error no further round; nothing at all with -q.
 */
static void test_run_progress_lines_by_value(void **state)
{
	struct script sc = { .err_at = -1, .intr_at = -1 };
	struct kscen_run_opts o = { .repeat = 3, .warmup = 2, .max_repeat = 5,
				    .sample = play, .sample_arg = &sc };
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	char *text;

	(void)state;
	load_jobs(four_jobs, &s, &jobs);
	text = run_said(s, &jobs, &o, 0);
	assert_string_equal(text,
		"kscen: warmup round 1/2\n"
		"kscen: a/command=false: skipped: no slot\n"
		"kscen: warmup round 2/2\n"
		"kscen: round 1/3\n"
		"kscen: round 2/3\n"
		"kscen: a/command=yes: failed: boom\n"
		"kscen: round 3/3\n");
	free(text);

	/* repeat: auto: counted to max_repeat; job 0 alone converges at 6 */
	sc = (struct script){ .err_at = -1, .intr_at = -1 };
	o = (struct kscen_run_opts){ .repeat = 6, .until_ci = 5, .max_repeat = 8,
				     .filter = "a/command=true", .sample = play,
				     .sample_arg = &sc };
	text = run_said(s, &jobs, &o, 0);
	assert_string_equal(text,
		"kscen: round 1/8\nkscen: round 2/8\nkscen: round 3/8\n"
		"kscen: round 4/8\nkscen: round 5/8\nkscen: round 6/8\n");
	free(text);
	assert_int_equal(sc.calls[0], 6);

	/* the only job skips at once: no round after its first */
	sc = (struct script){ .err_at = -1, .intr_at = -1 };
	o = (struct kscen_run_opts){ .repeat = 3, .filter = "a/command=false",
				     .sample = play, .sample_arg = &sc };
	text = run_said(s, &jobs, &o, 0);
	assert_string_equal(text, "kscen: round 1/3\n"
			    "kscen: a/command=false: skipped: no slot\n");
	free(text);

	/* the runner fails in round 3: no round after it */
	sc = (struct script){ .err_at = 2, .intr_at = -1 };
	o = (struct kscen_run_opts){ .repeat = 4, .sample = play, .sample_arg = &sc };
	text = run_said(s, &jobs, &o, -EIO);
	assert_string_equal(text,
		"kscen: round 1/4\nkscen: round 2/4\nkscen: round 3/4\n");
	free(text);

	/* -q: nothing, not even the failed job */
	sc = (struct script){ .err_at = -1, .intr_at = -1 };
	o = (struct kscen_run_opts){ .repeat = 5, .warmup = 1, .quiet = true,
				     .sample = play, .sample_arg = &sc };
	text = run_said(s, &jobs, &o, 0);
	assert_string_equal(text, "");
	free(text);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/* A clock that moves one second a reading. */
static long long fake_ns;
static long long one_second_a_reading(void)
{
	return fake_ns += 1000000000LL;
}

/*
 * The line a terminal shows, by value, on a clock that moves a second at
 * each reading: the jobs of a round counted as they go, the estimate the
 * mean time a sample so far times the samples still planned (the warmup
 * round's, then the repeat's: its first round plans the second), the line
 * cleared before a job's failure is said and at the end.
 */
static void test_run_progress_line_on_a_terminal(void **state)
{
	struct script sc = { .err_at = -1, .intr_at = -1 };
	struct kscen_run_opts o = { .repeat = 2, .warmup = 1, .sample = play,
				    .sample_arg = &sc, .progress_clock = one_second_a_reading };
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	char *text;

	(void)state;
	load_jobs(four_jobs, &s, &jobs);
	fake_ns = 0;
	text = run_said(s, &jobs, &o, 0);
	/*
	 * Readings: 1 at the start, then one a draw and one a sample before it.
	 * Warmup: 4 jobs now and 4 x 2 rounds later, 12; after the first
	 * sample 3 s for 1 sample and 11 left: 0:33. Round 1: 3 jobs (one
	 * skipped) and 3 in round 2, 6; at its start 10 s for 4: 0:15.
	 */
	assert_string_equal(text,
		"\rkscen: warmup round 1/1, job 0/4, 0:01 elapsed\033[K"
		"\rkscen: warmup round 1/1, job 1/4, 0:03 elapsed, about 0:33 left\033[K"
		"\rkscen: warmup round 1/1, job 2/4, 0:05 elapsed, about 0:25 left\033[K"
		"\r\033[Kkscen: a/command=false: skipped: no slot\n"
		"\rkscen: warmup round 1/1, job 3/4, 0:07 elapsed, about 0:21 left\033[K"
		"\rkscen: warmup round 1/1, job 4/4, 0:09 elapsed, about 0:18 left\033[K"
		"\rkscen: round 1/2, job 0/3, 0:10 elapsed, about 0:15 left\033[K"
		"\rkscen: round 1/2, job 1/3, 0:12 elapsed, about 0:12 left\033[K"
		"\rkscen: round 1/2, job 2/3, 0:14 elapsed, about 0:09 left\033[K"
		"\rkscen: round 1/2, job 3/3, 0:16 elapsed, about 0:07 left\033[K"
		"\rkscen: round 2/2, job 0/3, 0:17 elapsed, about 0:07 left\033[K"
		"\rkscen: round 2/2, job 1/3, 0:19 elapsed, about 0:05 left\033[K"
		"\rkscen: round 2/2, job 2/3, 0:21 elapsed, about 0:02 left\033[K"
		"\rkscen: round 2/2, job 3/3, 0:23 elapsed, about 0:00 left\033[K"
		"\r\033[K");
	free(text);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/*
 * A journal that cannot be written: on a terminal the line is cleared
 * before the warning, which is said once for the whole run.
 */
static void test_run_journal_warning_once_on_a_clear_line(void **state)
{
	char tmpl[] = "/tmp/kscen-jw-XXXXXX", *dir = mkdtemp(tmpl), *path, *want;
	struct script sc = { .err_at = -1, .intr_at = -1 };
	struct kscen_run_opts o = { .repeat = 2, .filter = "a/command=true", .sample = play,
				    .sample_arg = &sc, .progress_clock = one_second_a_reading };
	struct kscen_journal_hdr h = {
		.scenario_file = "t.yaml", .scenario_sha256 = "0", .started = "2026-12-05T18:00:00Z",
		.command = "kscen run t.yaml",
	};
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	char *text;

	(void)state;
	assert_non_null(dir);
	path = kscen_xasprintf("%s/j", dir);
	load_jobs(four_jobs, &s, &jobs);
	assert_int_equal(kscen_journal_create(path, &h, &jobs, &o.journal), 0);
	o.journal->err = -ENOSPC;
	fake_ns = 0;
	text = run_said(s, &jobs, &o, 0);
	want = kscen_xasprintf(
		"\rkscen: round 1/2, job 0/1, 0:01 elapsed\033[K"
		"\rkscen: round 1/2, job 1/1, 0:03 elapsed, about 0:03 left\033[K"
		"\r\033[Kkscen: journal %s: %s; the run goes on, but could "
		"not be resumed if cut short\n"
		"\rkscen: round 2/2, job 0/1, 0:04 elapsed, about 0:04 left\033[K"
		"\rkscen: round 2/2, job 1/1, 0:06 elapsed, about 0:00 left\033[K"
		"\r\033[K", path, strerror(ENOSPC));
	assert_string_equal(text, want);
	free(want);
	free(text);
	kscen_journal_close(o.journal, true);
	rmdir(dir);
	free(path);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/*
 * -v: no progress lines, a line a sample instead, numbered among all the
 * rounds the run may take (warmup ones included).
 */
static void test_run_verbose_lines_by_value(void **state)
{
	struct script sc = { .err_at = -1, .intr_at = -1 };
	struct kscen_run_opts o = { .repeat = 2, .warmup = 1, .filter = "a/command=[te]*",
				    .sample = play, .sample_arg = &sc };
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	char *text;

	(void)state;
	load_jobs(four_jobs, &s, &jobs);
	kscen_verbose = 1;
	text = run_said(s, &jobs, &o, 0);
	kscen_verbose = 0;
	assert_string_equal(text,
		"kscen: warmup 1/3 a/command=true: 100 s\n"
		"kscen: warmup 1/3 a/command=echo: 100 s\n"
		"kscen: round 2/3 a/command=echo: 150 s\n"
		"kscen: round 2/3 a/command=true: 100 s\n"
		"kscen: round 3/3 a/command=true: 100 s\n"
		"kscen: round 3/3 a/command=echo: 100 s\n");
	free(text);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/* Samples of job 0 by call: @v[call], disturbed (a throttled CPU) where @bad. */
struct noisy {
	double v[16];
	bool bad[16];
	unsigned calls;
	long long spin_ns;	/* each sample takes at least this long */
};

static int noisy(void *arg, unsigned index, const struct kscen_job *job,
		 long long timeout_ns, struct kscen_sample_out *out)
{
	struct noisy *n = arg;
	unsigned c = n->calls++;
	long long t0 = kscen_now_ns();

	(void)index;
	(void)job;
	(void)timeout_ns;
	while (kscen_now_ns() - t0 < n->spin_ns)
		;
	memset(out, 0, sizeof(*out));
	out->nr = 1;
	out->v[0] = n->v[c % ARRAY_SIZE(n->v)];
	out->noise = (struct kscen_noise_raw){
		.valid = true, .nr_cpus = 1, .clk_tck = 100, .ns = 1000000,
		.busy = -1, .steal = -1, .total = -1, .own_us = -1, .intr = -1,
		.softirq = -1, .vcsw = -1, .ivcsw = -1, .migrations = -1,
		.throttle = n->bad[c % ARRAY_SIZE(n->bad)], .khz = -1,
	};
	return 0;
}

/*
 * repeat: auto stops a job when its median's interval is within until_ci,
 * that bound included: 50, 100 x 4, 150 has the interval 50..150 (rank 1
 * of 6), +-50% of 100. A fixed repeat never says whether it converged
 * (-1). A job alone, first in the run, still takes every sample it wants.
 */
static void test_run_auto_stops_at_its_bound(void **state)
{
	struct noisy n = { .v = { 50, 100, 100, 100, 100, 150, 100, 100 } };
	struct script sc = { .err_at = -1, .intr_at = -1 };
	struct kscen_run_opts o = { .repeat = 6, .until_ci = 50, .max_repeat = 8,
				    .quiet = true, .filter = "a/command=true",
				    .sample = noisy, .sample_arg = &n };
	struct kscen_run *run = kscen_xcalloc(1, sizeof(*run));
	struct kscen_scenario *s;
	struct kscen_jobs jobs;

	(void)state;
	load_jobs(four_jobs, &s, &jobs);
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), 0);
	assert_int_equal(run->jobs[0].metrics[0].nr_samples, 6);
	assert_int_equal(run->jobs[0].converged, 1);
	assert_true(run->jobs[0].metrics[0].sum.ci_lo == 50 &&
		    run->jobs[0].metrics[0].sum.ci_hi == 150);
	kscen_run_free(run);

	/* just over the bound: on to max_repeat */
	n.calls = 0;
	o.until_ci = 49.9;
	run = kscen_xcalloc(1, sizeof(*run));
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), 0);
	assert_int_equal(run->jobs[0].metrics[0].nr_samples, 8);
	kscen_run_free(run);

	/* a fixed repeat of constant samples: converged is not asked */
	o = (struct kscen_run_opts){ .repeat = 6, .max_repeat = 8, .quiet = true,
				     .filter = "a/command=true", .sample = play,
				     .sample_arg = &sc };
	run = kscen_xcalloc(1, sizeof(*run));
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), 0);
	assert_int_equal(run->jobs[0].metrics[0].nr_samples, 6);
	assert_int_equal(run->jobs[0].converged, -1);
	kscen_run_free(run);

	/* the swinging job alone (first and only): all 8 of max_repeat */
	sc = (struct script){ .err_at = -1, .intr_at = -1 };
	o = (struct kscen_run_opts){ .repeat = 6, .until_ci = 5, .max_repeat = 8,
				     .quiet = true, .filter = "a/command=echo",
				     .sample = play, .sample_arg = &sc };
	run = kscen_xcalloc(1, sizeof(*run));
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), 0);
	assert_int_equal(run->jobs[0].metrics[0].nr_samples, 8);
	assert_int_equal(run->jobs[0].converged, 0);
	kscen_run_free(run);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/*
 * noise: retake: a disturbed sample is taken again in its round, at most
 * three times (the fourth take is kept, disturbed or not); each take is
 * recorded with its round (1-based, warmup not counted) and whether it
 * was set aside. The job's seconds are the time its samples took.
 */
static void test_run_noise_retakes_by_value(void **state)
{
	/*
	 * call 0 is the warmup; round 1: calls 1-4, round 2: 5-6, round 3:
	 * 7, kept disturbed (4 retaken, as many as the repeat), round 4: 8
	 */
	struct noisy n = {
		.v = { 1, 11, 12, 13, 14, 21, 22, 31, 41 },
		.bad = { true, true, true, true, true, true, false, true, false },
		.spin_ns = 1000000,
	};
	static const unsigned rounds[] = { 1, 1, 1, 1, 2, 2, 3, 4 };
	static const bool dropped[] = { true, true, true, false, true, false, false, false };
	struct kscen_run_opts o = { .repeat = 4, .warmup = 1, .quiet = true,
				    .noise = KSCEN_NOISE_RETAKE, .filter = "a/command=true",
				    .sample = noisy, .sample_arg = &n };
	struct kscen_run *run = kscen_xcalloc(1, sizeof(*run));
	const struct kscen_noise_rec *rec;
	const struct kscen_metric *m;
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	long long t0, wall;

	(void)state;
	load_jobs(four_jobs, &s, &jobs);
	t0 = kscen_now_ns();
	assert_int_equal(kscen_run_jobs(s, &jobs, &o, run), 0);
	wall = kscen_now_ns() - t0;
	assert_int_equal(n.calls, 9);
	m = &run->jobs[0].metrics[0];
	assert_int_equal(m->nr_samples, 4);
	assert_true(m->samples[0] == 14 && m->samples[1] == 22 && m->samples[2] == 31 &&
		    m->samples[3] == 41);
	rec = run->jobs[0].noise;
	assert_non_null(rec);
	assert_string_equal(rec->policy, "retake");
	assert_int_equal(rec->nr_samples, ARRAY_SIZE(rounds));
	assert_int_equal(rec->disturbed, 6);
	assert_int_equal(rec->dropped, 4);
	for (unsigned i = 0; i < ARRAY_SIZE(rounds); i++) {
		assert_int_equal(rec->samples[i].round, rounds[i]);
		assert_int_equal(rec->samples[i].dropped, dropped[i]);
		assert_true(rec->samples[i].value == n.v[i + 1]);
	}
	/* nine takes of at least 1 ms each, within the run's own time */
	assert_true(run->jobs[0].seconds >= 9e-3 && run->jobs[0].seconds <= wall / 1e9);
	kscen_run_free(run);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

int kscen_run_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts_from_scenario),
		cmocka_unit_test(test_opts_auto),
		cmocka_unit_test(test_exit_code),
		cmocka_unit_test(test_bisect_code),
		cmocka_unit_test(test_run_rounds_alternate_job_order),
		cmocka_unit_test(test_run_rounds_auto_skip_and_fail),
		cmocka_unit_test(test_run_stops_on_error_and_interrupt),
		cmocka_unit_test(test_run_progress_lines_by_value),
		cmocka_unit_test(test_run_progress_line_on_a_terminal),
		cmocka_unit_test(test_run_journal_warning_once_on_a_clear_line),
		cmocka_unit_test(test_run_verbose_lines_by_value),
		cmocka_unit_test(test_run_auto_stops_at_its_bound),
		cmocka_unit_test(test_run_noise_retakes_by_value),
	};

	return cmocka_run_group_tests_name("run", tests, NULL, NULL);
}
