// SPDX-License-Identifier: GPL-2.0
/*
 * test_noise.c - the sentinels (sample/noise.c) on recorded readings
 * (tests/fixtures/noise/), their verdicts at and around each threshold,
 * the noise policies of a run (sample/run.c) with a sampler that plants
 * disturbed samples, their records through a result file, the report's
 * lines, and the system check (sample/syscheck.c) on fixture trees.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/util.h"
#include "report/model.h"
#include "lib/child.h"
#include "sample/noise.h"
#include "sample/runner.h"
#include "sample/syscheck.h"
#include "scenario/scenario.h"
#include "store/runmodel.h"
#include "store/store.h"

#define FX "tests/fixtures/noise"

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len;

	assert_int_equal(kscen_read_regular(path, 1 << 20, &buf, &len), 0);
	return buf;
}

/* /proc/stat as recorded: the cpu line's sums, the CPUs, the interrupts. */
static void test_noise_parses_recorded_proc_stat(void **state)
{
	struct kscen_noise_read r;
	char *buf = slurp(FX "/before/proc/stat");

	(void)state;
	assert_int_equal(kscen_noise_parse_stat(buf, &r), 0);
	/* user 281937 + nice 0 + system 216720 + irq 0 + softirq 1050 */
	assert_int_equal(r.busy, 281937 + 216720 + 1050);
	assert_int_equal(r.steal, 0);
	/* every column, idle and iowait included */
	assert_int_equal(r.total, 281937 + 216720 + 183294 + 1247 + 1050);
	assert_int_equal(r.nr_cpus, 2);
	assert_int_equal(r.intr, 4792050);
	assert_int_equal(r.softirq, 2569805);
	free(buf);
	/* not /proc/stat: refused, nothing half-read */
	assert_int_equal(kscen_noise_parse_stat("cpu0 1 2 3\nintr 5\n", &r), -EINVAL);
	assert_int_equal(r.busy, -1);
	assert_int_equal(kscen_noise_parse_stat("cpu  1 2\n", &r), -EINVAL);
	/* an old kernel without steal: the rest is read, steal unknown */
	assert_int_equal(kscen_noise_parse_stat("cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n", &r), 0);
	assert_int_equal(r.busy, 1 + 2 + 3 + 6 + 7);
	assert_int_equal(r.steal, -1);
	assert_int_equal(r.intr, -1);
	assert_int_equal(r.nr_cpus, 1);
}

static void test_noise_parses_migrations(void **state)
{
	char *buf = slurp(FX "/after/proc/self/sched");

	(void)state;
	assert_int_equal(kscen_noise_parse_migrations(buf), 5);
	free(buf);
	assert_int_equal(kscen_noise_parse_migrations("x (1, #threads: 1)\n---\n"
						      "se.nr_migrations :  42\n"), 42);
	assert_int_equal(kscen_noise_parse_migrations("se.nr_migrations_cold : 42\n"), -1);
	assert_int_equal(kscen_noise_parse_migrations("nothing here\n"), -1);
}

/*
 * What a sample process born on the harness's CPU says of its migrations:
 * with no switch since it got its CPUs back, 0 and /proc/self/sched never
 * opened; made to move to another CPU inside the region, the kernel's
 * count of it (at least 1). In a child forked from the pinned test, as the
 * fork server's are; its answers come back through a pipe.
 */
struct migrated {
	long quiet, moved;	/* the region's count, without and with a move */
	int quiet_opened;	/* 1: opened though no switch, 2: not though one */
	long after_move;	/* /proc/self/sched's own count at the end */
};

static long thread_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw + ru.ru_nivcsw;
}

static void migrating_child(int fd)
{
	struct migrated m = { 0 };
	struct kscen_noise_span span;
	struct kscen_noise_raw d;
	long pinned = kscen_harness_unpin(), before, after;
	cpu_set_t other;
	char buf[4096];
	ssize_t n;
	int f;

	/* decided only when no switch came around the reading's own check */
	before = thread_switches();
	kscen_noise_begin(&span, pinned);
	after = thread_switches();
	if (after == before && before == pinned)
		m.quiet_opened = span.src.sched >= 0;
	else if (after == before)
		m.quiet_opened = span.src.sched < 0 ? 2 : 0;
	kscen_noise_end(&span, &d);
	m.quiet = d.migrations;

	kscen_noise_begin(&span, pinned);
	CPU_ZERO(&other);
	CPU_SET(!sched_getcpu(), &other);	/* CPU 1 from 0, else CPU 0 */
	if (sched_setaffinity(0, sizeof(other), &other))
		_exit(1);
	kscen_noise_end(&span, &d);
	m.moved = d.migrations;
	f = open("/proc/self/sched", O_RDONLY);
	n = f >= 0 ? read(f, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	m.after_move = kscen_noise_parse_migrations(buf);
	_exit(write(fd, &m, sizeof(m)) == sizeof(m) ? 0 : 1);
}

static void test_noise_migrations_counted_once_switched(void **state)
{
	struct migrated m;
	cpu_set_t all;
	int p[2], status;
	pid_t pid;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	if (!CPU_ISSET(0, &all) || !CPU_ISSET(1, &all))
		skip();	/* needs CPUs 0 and 1 to move between */
	setenv("KSCEN_TEST_HARNESS_CPU", "0", 1);
	assert_int_equal(kscen_harness_pin(), 0);
	unsetenv("KSCEN_TEST_HARNESS_CPU");
	kscen_noise_init();
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		migrating_child(p[1]);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &m, sizeof(m)), sizeof(m));
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	kscen_harness_release();
	assert_int_equal(m.quiet_opened, 0);
	assert_int_equal(m.quiet, 0);
	/* from CPU 0 to CPU 1: one migration at least, all of them counted */
	assert_true(m.moved >= 1);
	assert_int_equal(m.moved, m.after_move);
}

/* The readings of @dir through the files, as the sample process takes them. */
static void take_dir(const char *dir, struct kscen_noise_read *r)
{
	struct kscen_noise_src s;

	kscen_noise_open(&s, dir, 0);
	kscen_noise_take(&s, r);
	kscen_noise_close(&s);
}

/*
 * The recorded region: 0.52 s of a loop that got 64 ms of CPU while the
 * machine's two CPUs were busy with other work: other load 1.9 CPU; with
 * the hand-made host files, its CPU slowed and throttled 3 times.
 */
static void test_noise_judges_recorded_region(void **state)
{
	struct kscen_noise_read a, b;
	struct kscen_noise_raw d;
	struct kscen_sample_rec rec;
	long long ns, own;
	char *meta = slurp(FX "/meta");

	(void)state;
	assert_int_equal(sscanf(meta, "ns %lld\nown_us %lld", &ns, &own), 2);
	free(meta);
	take_dir(FX "/before", &a);
	take_dir(FX "/after", &b);
	assert_int_equal(a.migrations, 5);
	assert_int_equal(a.throttle, 3);
	assert_int_equal(b.throttle, 6);
	assert_int_equal(b.khz, 1800000);
	kscen_noise_diff(&a, &b, &d);
	/* the recorded wall and CPU time in place of the test's own */
	d.ns = ns;
	d.own_us = own;
	d.clk_tck = 100;
	assert_int_equal(d.busy, 69 + 34);
	assert_int_equal(d.intr, 4792440 - 4792050);
	assert_int_equal(d.softirq, 2570109 - 2569805);
	assert_int_equal(d.migrations, 0);
	assert_int_equal(d.throttle, 3);
	kscen_sample_rec_init(&rec);
	kscen_noise_judge(&d, &rec);
	assert_true(rec.disturbed);
	/* (1.03 s - 63.9 ms) / 0.519 s */
	assert_true(fabs(rec.other - (1.03 - own / 1e6) / (ns / 1e9)) < 0.001);
	assert_true(fabs(rec.other - 1.8615) < 0.001);
	assert_true(rec.steal == 0);
	/* 1.03 s accounted of the two CPUs' 1.038 s: none lost to speak of */
	assert_true(fabs(rec.lost - 100 * (2 * ns / 1e9 - 1.03) / (2 * ns / 1e9)) < 0.01);
	assert_true(rec.mhz == 1800);
	assert_int_equal(rec.throttled, 3);
	assert_string_equal(rec.cause, "other load 1.9 CPU, thermal throttling 3");
	free(rec.cause);

	/* the same with 30 ticks stolen: 0.3 s of 2 x 0.519 s */
	take_dir(FX "/stolen", &b);
	kscen_noise_diff(&a, &b, &d);
	d.ns = ns;
	d.own_us = own;
	d.clk_tck = 100;
	kscen_sample_rec_init(&rec);
	kscen_noise_judge(&d, &rec);
	assert_true(fabs(rec.steal - 28.9) < 0.05);
	assert_string_equal(rec.cause, "steal 29%, other load 1.9 CPU");
	free(rec.cause);
}

/*
 * One region judged: @busy and @steal in ticks (USER_HZ 100) over @ms on
 * 2 CPUs; every tick accounted (total), unless judge_total says otherwise.
 */
static long long judge_total = -1;

static struct kscen_sample_rec judge(double ms, long long busy, long long steal,
				     long long own_us, long long intr, long throttle)
{
	struct kscen_noise_raw d = {
		.valid = true, .nr_cpus = 2, .clk_tck = 100, .ns = ms * 1e6,
		.busy = busy, .steal = steal, .own_us = own_us, .intr = intr,
		.total = judge_total >= 0 ? judge_total : (long long)(2 * ms / 10),
		.softirq = 7, .vcsw = 1, .ivcsw = 2, .migrations = 3,
		.throttle = throttle, .khz = -1,
	};
	struct kscen_sample_rec rec;

	kscen_sample_rec_init(&rec);
	kscen_noise_judge(&d, &rec);
	return rec;
}

#define VERDICT(cause_want, ...) do {					\
	struct kscen_sample_rec r_ = judge(__VA_ARGS__);		\
	if (cause_want) {						\
		assert_true(r_.disturbed);				\
		assert_string_equal(r_.cause, (const char *)cause_want);	\
	} else {							\
		assert_false(r_.disturbed);				\
		assert_null(r_.cause);					\
	}								\
	free(r_.cause);							\
} while (0)

/*
 * Each threshold from both sides, with the slack of two ticks that the
 * counts' rounding costs: what a region of a few ticks cannot tell.
 */
static void test_noise_thresholds_and_slack(void **state)
{
	(void)state;
	/* a quiet second: 1.02 s busy, 1 s of it the sample's */
	VERDICT(NULL, 1000, 102, 0, 1000000, 500, 0);
	/* other load: 1.5 - 1 = 0.5 CPU over 1 s (0.48 past the slack) */
	VERDICT("other load 0.5 CPU", 1000, 150, 0, 1000000, 500, 0);
	/* 100 ms: 45 ms of others less 20 ms slack is 0.25 CPU, 44 ms is not */
	VERDICT(NULL, 100, 14, 0, 96000, 50, 0);
	VERDICT("other load 0.5 CPU", 100, 15, 0, 100000, 50, 0);
	VERDICT(NULL, 100, 14, 0, 100000, 50, 0);
	/* 30 ms: one tick of others is rounding, not load */
	VERDICT(NULL, 30, 4, 0, 30000, 10, 0);
	/* steal: 12 ticks of 2 CPUs x 1 s less 2 ticks = 5%; 11 are not */
	VERDICT("steal 6%", 1000, 100, 12, 1000000, 500, 0);
	VERDICT(NULL, 1000, 100, 11, 1000000, 500, 0);
	/* interrupts: 5,000 a second per CPU */
	VERDICT("interrupts 10000/s", 1000, 100, 0, 1000000, 10000, 0);
	VERDICT(NULL, 1000, 100, 0, 1000000, 9999, 0);
	/* throttling, and every cause at once, in their order */
	VERDICT("thermal throttling 1", 1000, 100, 0, 1000000, 500, 1);
	VERDICT("steal 15%, other load 1.0 CPU, interrupts 30000/s, thermal throttling 2",
		1000, 200, 30, 1000000, 30000, 2);
	/*
	 * Unaccounted: of 2 x 1 s, 186 ticks accounted leave 7% lost, 5% past
	 * the slack of four ticks; 187 leave 6.5%, 4.5% past it. Ticks that
	 * catch up (more than the wall) lose nothing.
	 */
	judge_total = 186;
	VERDICT("unaccounted 7%", 1000, 100, 0, 1000000, 500, 0);
	judge_total = 187;
	VERDICT(NULL, 1000, 100, 0, 1000000, 500, 0);
	judge_total = 230;
	VERDICT(NULL, 1000, 100, 0, 1000000, 500, 0);
	judge_total = 150;
	VERDICT("steal 15%, unaccounted 25%, other load 0.5 CPU", 1000, 150, 30,
		1000000, 500, 0);
	judge_total = -1;
}

static void test_noise_unknown_is_not_disturbed(void **state)
{
	struct kscen_noise_raw d = { .valid = false };
	struct kscen_sample_rec rec;

	(void)state;
	kscen_sample_rec_init(&rec);
	kscen_noise_judge(&d, &rec);
	assert_false(rec.disturbed);
	assert_true(isnan(rec.seconds) && isnan(rec.other) && isnan(rec.steal));
	assert_int_equal(rec.ivcsw, -1);
	/* counters a host lacks stay unknown, the rest is judged */
	d = (struct kscen_noise_raw){ .valid = true, .nr_cpus = 2, .clk_tck = 100,
				      .ns = 1000000000, .busy = -1, .steal = -1,
				      .total = -1, .own_us = 5, .intr = -1, .softirq = -1, .vcsw = 0,
				      .ivcsw = 4, .migrations = -1, .throttle = -1,
				      .khz = -1 };
	kscen_noise_judge(&d, &rec);
	assert_false(rec.disturbed);
	assert_true(isnan(rec.other) && isnan(rec.steal) && isnan(rec.mhz));
	assert_int_equal(rec.ivcsw, 4);
	assert_int_equal(rec.migrations, -1);
	assert_true(rec.seconds == 1);
}

/* ---- Policies ---- */

/*
 * A sampler for kscen_run_jobs(): sample number k (over the run, from 0)
 * has value 10 + k, and is disturbed (other load) when bit k of @bad is set.
 */
struct fake {
	unsigned long long bad;
	unsigned taken;
};

static int fake_sample(void *arg, unsigned index, const struct kscen_job *job,
		       long long timeout_ns, struct kscen_sample_out *out)
{
	struct fake *f = arg;
	bool bad = f->bad >> f->taken & 1;

	(void)index;
	(void)job;
	(void)timeout_ns;
	memset(out, 0, sizeof(*out));
	out->nr = 1;
	out->v[0] = 10 + f->taken++;
	out->noise = (struct kscen_noise_raw){
		.valid = true, .nr_cpus = 2, .clk_tck = 100, .ns = 100000000,
		.busy = bad ? 20 : 10, .steal = 0, .total = 20, .own_us = 100000, .intr = 10,
		.softirq = 1, .vcsw = 0, .ivcsw = bad ? 30 : 0, .migrations = 0,
		.throttle = -1, .khz = -1, .planted = bad,
	};
	return 0;
}

static const struct kscen_metric_desc fake_metric = { "value", "x", KSCEN_LOWER };

/* One job, @repeat samples, no warmup, taken by @f under @pol. */
static struct kscen_run *policy_run(enum kscen_noise_policy pol, unsigned repeat,
				    struct fake *f)
{
	static const struct kscen_workload w = { .name = "fake" };
	static struct kscen_job_spec spec = { .name = "j" };
	struct kscen_scenario s = { .name = "t", .repeat = repeat };
	struct kscen_job job = {
		.id = "j", .spec = &spec, .workload = &w, .baseline = -1,
		.previous = -1, .metrics = &fake_metric, .nr_metrics = 1,
	};
	struct kscen_jobs jobs = { .job = &job, .nr = 1 };
	struct kscen_run_opts o = {
		.repeat = repeat, .warmup = 0, .quiet = true, .noise = pol,
		.sample = fake_sample, .sample_arg = f,
	};
	struct kscen_run *run = kscen_xcalloc(1, sizeof(*run));

	assert_int_equal(kscen_run_jobs(&s, &jobs, &o, run), 0);
	return run;
}

/* The metric's samples, as text: "10 11 13". */
static void samples_text(const struct kscen_job_result *j, char *buf, size_t len)
{
	size_t n = 0;

	*buf = '\0';
	for (unsigned i = 0; i < j->metrics[0].nr_samples; i++)
		n += snprintf(buf + n, len - n, "%s%g", i ? " " : "",
			      j->metrics[0].samples[i]);
}

static void test_noise_policies_keep_what_they_say(void **state)
{
	struct fake f = { .bad = 0x6 };	/* samples 1 and 2 */
	struct kscen_run *run;
	struct kscen_job_result *j;
	struct kscen_noise_rec *n;
	char got[128];

	(void)state;
	/* flag: everything kept, two said */
	run = policy_run(KSCEN_NOISE_FLAG, 4, &f);
	j = &run->jobs[0];
	n = j->noise;
	samples_text(j, got, sizeof(got));
	assert_string_equal(got, "10 11 12 13");
	assert_string_equal(n->policy, "flag");
	assert_int_equal(n->nr_samples, 4);
	assert_int_equal(n->disturbed, 2);
	assert_int_equal(n->dropped, 0);
	assert_true(n->samples[1].disturbed && n->samples[1].planted);
	assert_string_equal(n->samples[1].cause, "other load 1.0 CPU");
	assert_false(n->samples[0].disturbed);
	assert_true(kscen_rounds_whole(j));
	kscen_run_free(run);

	/* drop: the two set aside, the rounds no longer pair */
	f = (struct fake){ .bad = 0x6 };
	run = policy_run(KSCEN_NOISE_DROP, 4, &f);
	j = &run->jobs[0];
	samples_text(j, got, sizeof(got));
	assert_string_equal(got, "10 13");
	assert_int_equal(j->noise->dropped, 2);
	assert_true(j->noise->samples[1].dropped && j->noise->samples[2].dropped);
	assert_false(kscen_rounds_whole(j));
	kscen_run_free(run);

	/*
	 * retake: round 2's sample (11) is disturbed, retaken (12, also
	 * disturbed), retaken again (13): kept; both records stay, in round 2.
	 */
	f = (struct fake){ .bad = 0x6 };
	run = policy_run(KSCEN_NOISE_RETAKE, 4, &f);
	j = &run->jobs[0];
	n = j->noise;
	samples_text(j, got, sizeof(got));
	assert_string_equal(got, "10 13 14 15");
	assert_int_equal(n->nr_samples, 6);
	assert_int_equal(n->dropped, 2);
	assert_int_equal(n->samples[1].round, 2);
	assert_int_equal(n->samples[2].round, 2);
	assert_int_equal(n->samples[3].round, 2);
	assert_true(n->samples[1].dropped && n->samples[2].dropped);
	assert_false(n->samples[3].dropped);
	assert_int_equal(n->samples[4].round, 3);
	assert_true(kscen_rounds_whole(j));
	kscen_run_free(run);
}

/* retake: KSCEN_NOISE_RETAKES a sample, then the last is kept, disturbed. */
static void test_noise_retake_limits(void **state)
{
	struct fake f = { .bad = ~0ULL };	/* a machine loaded throughout */
	struct kscen_run *run;
	struct kscen_noise_rec *n;
	char got[128];

	(void)state;
	run = policy_run(KSCEN_NOISE_RETAKE, 1, &f);
	n = run->jobs[0].noise;
	/* repeat 1: one retake in all, then the second is kept */
	assert_int_equal(n->nr_samples, 2);
	samples_text(&run->jobs[0], got, sizeof(got));
	assert_string_equal(got, "11");
	kscen_run_free(run);

	/* repeat 4: 4 retakes in all, 3 of them for the first sample */
	f = (struct fake){ .bad = ~0ULL };
	run = policy_run(KSCEN_NOISE_RETAKE, 4, &f);
	n = run->jobs[0].noise;
	assert_int_equal(n->dropped, 4);
	assert_int_equal(n->nr_samples, 8);
	assert_int_equal(n->samples[3].round, 1);
	assert_false(n->samples[3].dropped);
	assert_int_equal(n->samples[4].round, 2);
	assert_true(n->samples[4].dropped);
	assert_int_equal(n->samples[5].round, 2);
	assert_false(n->samples[5].dropped);
	samples_text(&run->jobs[0], got, sizeof(got));
	assert_string_equal(got, "13 15 16 17");
	kscen_run_free(run);
}

/* The records through a result file, and what each report says of them. */
static void test_noise_records_stored_and_reported(void **state)
{
	struct fake f = { .bad = 0x6 };
	struct kscen_run *run = policy_run(KSCEN_NOISE_RETAKE, 4, &f), *back = NULL;
	struct kscen_report_model m;
	char path[] = "/tmp/kscen-noise-XXXXXX", *text = NULL;
	size_t len;
	FILE *out;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	run->scenario = kscen_xstrdup("t");
	run->jobs[0].noise->samples[0].mhz = 2400.5;
	run->jobs[0].noise->samples[0].throttled = 0;
	out = fdopen(fd, "w");
	assert_int_equal(kscen_run_write_yaml(out, run), 0);
	fclose(out);
	assert_int_equal(kscen_result_load_err(path, &back, NULL, 0), 0);
	{
		const struct kscen_noise_rec *a = run->jobs[0].noise, *b = back->jobs[0].noise;

		assert_non_null(b);
		assert_string_equal(b->policy, "retake");
		assert_int_equal(b->nr_samples, a->nr_samples);
		assert_int_equal(b->disturbed, 2);
		assert_int_equal(b->dropped, 2);
		for (unsigned i = 0; i < a->nr_samples; i++) {
			assert_int_equal(b->samples[i].round, a->samples[i].round);
			assert_true(b->samples[i].value == a->samples[i].value);
			assert_true(b->samples[i].other == a->samples[i].other);
			assert_int_equal(b->samples[i].ivcsw, a->samples[i].ivcsw);
			assert_int_equal(b->samples[i].dropped, a->samples[i].dropped);
			assert_int_equal(b->samples[i].planted, a->samples[i].planted);
			assert_true(b->samples[i].mhz == a->samples[i].mhz ||
				    (isnan(b->samples[i].mhz) && isnan(a->samples[i].mhz)));
		}
		assert_int_equal(b->samples[0].throttled, 0);
		assert_int_equal(b->samples[1].throttled, -1);
		assert_string_equal(b->samples[1].cause, "other load 1.0 CPU");
	}
	/* the file: a sample a line, only what is known */
	assert_int_equal(kscen_read_regular(path, 1 << 20, &text, &len), 0);
	assert_non_null(strstr(text, "  noise:\n    policy: retake\n    disturbed: 2\n"
			       "    dropped: 2\n    samples:\n    - {round: 1, value: 1.0e+01,"));
	assert_non_null(strstr(text, "{round: 2, value: 11, dropped: true, disturbed: "
			       "true, cause: other load 1.0 CPU, seconds: 0.1, steal: 0, "
			       "lost: 0, other: 1, vcsw: 0, ivcsw: 30, migrations: 0, irq: 10, "
			       "softirq: 1, planted: true}\n"));
	free(text);
	unlink(path);

	kscen_report_model_build(back, NULL, &m);
	assert_string_equal(m.job[0].noise, "2 of 6 samples disturbed (other load up to "
			    "1.0 CPU), 2 retaken: 4 kept, 0 of them disturbed (noise: retake)");
	assert_string_equal(m.noise, "2 of 6 samples disturbed (other load up to 1.0 CPU) "
			    "in 1 of 1 jobs, 2 set aside (noise: retake)");
	kscen_report_model_free(&m);

	/* JSON: every sample with every field, null where unknown */
	out = open_memstream(&text, &len);
	kscen_report(out, back, NULL, KSCEN_FMT_JSON);
	fclose(out);
	assert_non_null(strstr(text, "\"noise\": {\n        \"policy\": \"retake\",\n"
			       "        \"disturbed\": 2,\n        \"dropped\": 2,\n"
			       "        \"samples\": [\n"));
	assert_non_null(strstr(text, "{\"round\": 2, \"value\": 11, \"dropped\": true, "
			       "\"disturbed\": true, \"cause\": \"other load 1.0 CPU\", "
			       "\"seconds\": 0.10000000000000001, \"steal\": 0, \"lost\": 0, \"other\": 1, "
			       "\"vcsw\": 0, \"ivcsw\": 30, \"migrations\": 0, \"irq\": 10, "
			       "\"softirq\": 1, \"mhz\": null, \"throttled\": null, "
			       "\"planted\": true}"));
	free(text);
	/* CSV: the counts */
	out = open_memstream(&text, &len);
	kscen_report(out, back, NULL, KSCEN_FMT_CSV);
	fclose(out);
	assert_non_null(strstr(text, ",noise_policy,noise_disturbed,noise_dropped,"));
	assert_non_null(strstr(text, ",retake,2,2,"));
	free(text);
	kscen_run_free(back);
	kscen_run_free(run);
}

/* ---- The system check ---- */

static void put(const char *root, const char *rel, const char *text)
{
	char path[4096], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (p = strchr(path + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const struct kscen_check *find(const struct kscen_check *c, unsigned n,
				      const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return &c[i];
	fail_msg("no check %s", name);
	return NULL;
}

static void test_system_check_on_fixture_trees(void **state)
{
	char root[] = "/tmp/kscen-syscheck-XXXXXX", line[512];
	struct kscen_check c[KSCEN_CHECKS_MAX];
	unsigned n;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* a machine tuned for benchmarks */
	put(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	put(root, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
	put(root, "/sys/devices/system/cpu/cpufreq/boost", "0\n");
	put(root, "/sys/devices/system/cpu/smt/control", "off\n");
	put(root, "/sys/devices/system/cpu/smt/active", "0\n");
	put(root, "/sys/devices/system/cpu/isolated", "\n");
	put(root, "/proc/sys/kernel/randomize_va_space", "2\n");
	put(root, "/proc/sys/kernel/nmi_watchdog", "0\n");
	put(root, "/proc/sys/kernel/perf_event_paranoid", "1\n");
	put(root, "/proc/loadavg", "0.03 0.10 0.20 1/300 4242\n");
	put(root, "/proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n");
	n = kscen_system_check(root, 0, c);
	assert_int_equal(n, 9);	/* no steal without watching */
	assert_string_equal(kscen_system_check_summary(c, n, line, sizeof(line)),
			    "nothing off");
	assert_string_equal(find(c, n, "governor")->value, "performance");
	assert_string_equal(find(c, n, "cgroup v2")->value, "at /sys/fs/cgroup");
	assert_string_equal(find(c, n, "load")->value, "0.03 (1-minute average)");

	/* and one that is not: each setting said, in the checks' order */
	put(root, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
	put(root, "/sys/devices/system/cpu/cpufreq/boost", "1\n");
	put(root, "/sys/devices/system/cpu/smt/active", "1\n");
	put(root, "/proc/sys/kernel/nmi_watchdog", "1\n");
	put(root, "/proc/loadavg", "1.50 0.10 0.20 3/300 4242\n");
	n = kscen_system_check(root, 0, c);
	assert_string_equal(kscen_system_check_summary(c, n, line, sizeof(line)),
			    "governor performance/powersave, boost on, SMT on, "
			    "NMI watchdog on, load 1.50");
	assert_true(find(c, n, "governor")->off);
	assert_false(find(c, n, "ASLR")->off);
	assert_non_null(find(c, n, "NMI watchdog")->fix);

	/*
	 * The isolated CPUs against the samples' CPUs, not the runner's: with
	 * the harness pinned to a CPU that is the only one isolated, the
	 * samples may still run elsewhere.
	 */
	assert_int_equal(kscen_harness_pin(), 0);
	if (kscen_harness_cpu() >= 0) {
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "%d\n", kscen_harness_cpu());
		put(root, "/sys/devices/system/cpu/isolated", cpu);
		n = kscen_system_check(root, 0, c);
		cpu[strlen(cpu) - 1] = '\0';
		snprintf(line, sizeof(line), "%s, unused: kscen may run elsewhere", cpu);
		assert_string_equal(find(c, n, "isolated CPUs")->value, line);
		put(root, "/sys/devices/system/cpu/isolated", "\n");
	}
	kscen_harness_release();

	/* watched: steal and the CPUs busy over the moment, from /proc/stat */
	put(root, "/proc/stat", "cpu  10 0 10 100 0 0 0 0 0 0\ncpu0 5 0 5 50 0 0 0 0 0 0\n"
	    "cpu1 5 0 5 50 0 0 0 0 0 0\n");
	n = kscen_system_check(root, 10, c);
	assert_int_equal(n, 10);
	assert_string_equal(find(c, n, "steal")->value, "0.0% of 2 CPUs over 0.01 s");
	assert_false(find(c, n, "steal")->off);
	assert_string_equal(find(c, n, "load")->value,
			    "1.50 (1-minute average), 0.00 CPUs busy over 0.01 s");
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		assert_int_equal(system(cmd), 0);
	}
}

int kscen_noise_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noise_parses_recorded_proc_stat),
		cmocka_unit_test(test_noise_parses_migrations),
		cmocka_unit_test(test_noise_migrations_counted_once_switched),
		cmocka_unit_test(test_noise_judges_recorded_region),
		cmocka_unit_test(test_noise_thresholds_and_slack),
		cmocka_unit_test(test_noise_unknown_is_not_disturbed),
		cmocka_unit_test(test_noise_policies_keep_what_they_say),
		cmocka_unit_test(test_noise_retake_limits),
		cmocka_unit_test(test_noise_records_stored_and_reported),
		cmocka_unit_test(test_system_check_on_fixture_trees),
	};

	return cmocka_run_group_tests_name("noise", tests, NULL, NULL);
}
