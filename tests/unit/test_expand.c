// SPDX-License-Identifier: GPL-2.0
/*
 * test_expand.c - the loader and the expander on the fixtures in
 * tests/fixtures/good: counts, ids, include/exclude, baseline and previous;
 * the walk's errors and where they point; the jobs a run keeps (all of
 * them, or those --filter picks) against the walk's.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expand/jobs.h"
#include "sample/sampler.h"
#include "scenario/scenario_load.h"
#include "tests.h"

static int load(const char *path, struct kscen_scenario **s, struct kscen_jobs *jobs,
		unsigned long max)
{
	int ret = kscen_scenario_load(path, s);

	if (ret)
		return ret;
	ret = kscen_expand(*s, max, jobs);
	if (ret)
		kscen_scenario_free(*s);
	return ret;
}

static int find(const struct kscen_jobs *jobs, const char *id)
{
	for (unsigned i = 0; i < jobs->nr; i++)
		if (strcmp(jobs->job[i].id, id) == 0)
			return i;
	return -1;
}

static const char *id_of(const struct kscen_jobs *jobs, int i)
{
	return i < 0 ? "(none)" : jobs->job[i].id;
}

/* Expected jobs of matrix.yaml, in order, with baseline and previous. */
static const struct {
	const char *id, *baseline, *previous;
} matrix_jobs[] = {
#define T "thread/threads=20,loops=56,"
	{ T "breakpoints=0,parallelism=1", T "breakpoints=0,parallelism=1", NULL },
	{ T "breakpoints=0,parallelism=2", T "breakpoints=0,parallelism=2", NULL },
	{ T "breakpoints=1,parallelism=1", T "breakpoints=0,parallelism=1",
	  T "breakpoints=0,parallelism=1" },
	/* breakpoints=1,parallelism=2 is excluded */
	{ T "breakpoints=4,parallelism=1", T "breakpoints=0,parallelism=1",
	  T "breakpoints=1,parallelism=1" },
	{ T "breakpoints=4,parallelism=2", T "breakpoints=0,parallelism=2",
	  T "breakpoints=0,parallelism=2" },
#undef T
	/* The include's threads=64 has no breakpoints=0 partner. */
	{ "thread/threads=64,loops=56,breakpoints=4,parallelism=2", NULL, NULL },
#define E "enable/loops=20000,"
	{ E "passive=0,active=0", E "passive=0,active=0", NULL },
	{ E "passive=0,active=2", E "passive=0,active=0", E "passive=0,active=0" },
	{ E "passive=16,active=0", E "passive=0,active=0", E "passive=0,active=2" },
	{ E "passive=16,active=2", E "passive=0,active=0", E "passive=16,active=0" },
#undef E
};

void test_expand_product_exclude_include(void **state)
{
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	const unsigned n = sizeof(matrix_jobs) / sizeof(matrix_jobs[0]);

	assert_true(load("tests/fixtures/good/matrix.yaml", &s, &jobs, 100000) == 0);
	assert_true(s->repeat == 3 && s->warmup == 1);
	assert_true(jobs.nr == n);
	for (unsigned i = 0; i < n && i < jobs.nr; i++) {
		const struct kscen_job *j = &jobs.job[i];
		int b = matrix_jobs[i].baseline ? find(&jobs, matrix_jobs[i].baseline) : -1;
		int p = matrix_jobs[i].previous ? find(&jobs, matrix_jobs[i].previous) : -1;

		if (strcmp(j->id, matrix_jobs[i].id) || j->baseline != b || j->previous != p) {
			fprintf(stderr, "    job %u: %s\n      baseline %s\n      previous %s\n",
				i, j->id, id_of(&jobs, j->baseline), id_of(&jobs, j->previous));
			assert_true(!"job, baseline and previous as expected");
		}
	}
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/*
 * links.yaml: baselines and previous jobs where the matrix is not a plain
 * product (values alike on a labeled axis, excludes inside a group, an
 * include standing for an excluded baseline, includes after their group).
 * The table was made by the list builder kscen had before the walk kept
 * jobs itself (6438a7a), which found them by sorting canonical values.
 */
static const struct {
	const char *id;
	int baseline, previous;
} links_jobs[] = {
	{ "m/size=k1,nr_loops=1,function=default", 0, -1 },
	{ "m/size=k1,nr_loops=3,function=default", 0, 0 },
	{ "m/size=k1,nr_loops=3,function=x86-64-movsb", 11, -1 },
	{ "m/size=k1b,nr_loops=1,function=default", 0, 1 },	/* k1b is k1: 1024 */
	{ "m/size=k1b,nr_loops=3,function=default", 0, 3 },
	{ "m/size=k1b,nr_loops=3,function=x86-64-movsb", 11, 2 },
	{ "m/size=k2,nr_loops=1,function=default", 6, -1 },
	{ "m/size=k2,nr_loops=2,function=default", 6, 6 },
	{ "m/size=k2,nr_loops=2,function=x86-64-movsb", -1, -1 },
	{ "m/size=k2,nr_loops=3,function=default", 6, 7 },
	{ "m/size=k2,nr_loops=3,function=x86-64-movsb", -1, 8 },
	{ "m/size=k1,nr_loops=1,function=x86-64-movsb", 11, 5 },	/* include */
	{ "m/size=4k,nr_loops=3,function=default", 13, -1 },
	{ "m/size=4k,nr_loops=1,function=default", 13, 12 },
	{ "t/breakpoints=0,parallelism=1,threads=8", 23, -1 },
	{ "t/breakpoints=0,parallelism=1,threads=16", -1, -1 },
	{ "t/breakpoints=1,parallelism=1,threads=8", 23, 14 },
	{ "t/breakpoints=1,parallelism=2,threads=8", 23, 16 },
	{ "t/breakpoints=4,parallelism=1,threads=8", 23, 17 },
	{ "t/breakpoints=4,parallelism=1,threads=16", -1, 15 },
	{ "t/breakpoints=4,parallelism=2,threads=8", 23, 18 },
	{ "t/breakpoints=4,parallelism=2,threads=16", -1, 19 },
	{ "t/breakpoints=0,parallelism=2,threads=16,loops=100", 22, -1 },
	{ "t/breakpoints=0,parallelism=2,threads=8", 23, 20 },
};

void test_expand_links_beyond_a_product(void **state)
{
	struct kscen_scenario *s;
	struct kscen_jobs jobs;

	(void)state;
	assert_int_equal(load("tests/fixtures/good/links.yaml", &s, &jobs, 1000), 0);
	assert_int_equal(jobs.nr, ARRAY_SIZE(links_jobs));
	for (unsigned i = 0; i < jobs.nr; i++) {
		const struct kscen_job *j = &jobs.job[i];

		if (strcmp(j->id, links_jobs[i].id) || j->baseline != links_jobs[i].baseline ||
		    j->previous != links_jobs[i].previous)
			fprintf(stderr, "    job %u: %s baseline %d previous %d\n",
				i, j->id, j->baseline, j->previous);
		assert_string_equal(j->id, links_jobs[i].id);
		assert_int_equal(j->baseline, links_jobs[i].baseline);
		assert_int_equal(j->previous, links_jobs[i].previous);
	}
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

void test_expand_fills_params_and_metrics(void **state)
{
	struct kscen_scenario *s;
	struct kscen_jobs jobs;

	assert_true(load("tests/fixtures/good/matrix.yaml", &s, &jobs, 100000) == 0);
	/* breakpoint.thread stores its params as long long, in table order. */
	const struct kscen_workload *w = jobs.job[5].workload;
	const struct kscen_param *p = kscen_param_find(w, "threads");

	assert_true(p && *(long long *)((char *)jobs.job[5].params + p->offset) == 64);
	p = kscen_param_find(jobs.job[6].workload, "loops");
	assert_true(p && *(long long *)((char *)jobs.job[6].params + p->offset) == 20000);
	assert_true(jobs.job[0].nr_metrics == 2);
	assert_true(strcmp(jobs.job[0].metrics[0].name, "usecs/op") == 0);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

void test_expand_ids_are_stable(void **state)
{
	struct kscen_scenario *s1, *s2;
	struct kscen_jobs a, b;

	assert_true(load("tests/fixtures/good/matrix.yaml", &s1, &a, 100000) == 0);
	assert_true(load("tests/fixtures/good/matrix.yaml", &s2, &b, 100000) == 0);
	assert_true(a.nr == b.nr);
	for (unsigned i = 0; i < a.nr && i < b.nr; i++)
		assert_true(strcmp(a.job[i].id, b.job[i].id) == 0);
	assert_true(strcmp(s1->sha256, s2->sha256) == 0 && strlen(s1->sha256) == 64);
	kscen_jobs_free(&a);
	kscen_jobs_free(&b);
	kscen_scenario_free(s1);
	kscen_scenario_free(s2);
}

/* @text as a scenario file, refused by kscen_expand(@max) with -E2BIG and @want. */
static void refused_too_big(const char *text, unsigned long max, const char *want)
{
	char path[] = "/tmp/kscen-expand-XXXXXX";
	struct kscen_diag_log log = { 0 };
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	int fd = mkstemp(path);

	assert_true(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(kscen_scenario_load(path, &s), 0);
	kscen_diag_set_sink(kscen_diag_capture, &log);
	assert_int_equal(kscen_expand(s, max, &jobs), -E2BIG);
	kscen_diag_set_sink(NULL, NULL);
	assert_int_equal(log.nr, 1);
	assert_true(!strncmp(log.text, path, strlen(path)) && log.text[strlen(path)] == ':');
	assert_string_equal(log.text + strlen(path) + 1, want);
	kscen_scenario_free(s);
	unlink(path);
}

void test_expand_refuses_matrix_over_limit(void **state)
{
	static const char *const keys[] = {
		"nr_threads", "mb_global", "mb_proc", "mb_thread", "nr_loops",
	};
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	size_t len;
	char *text;
	FILE *f;

	(void)state;
	/*
	 * The limit applies before excludes, so that nothing is allocated for
	 * a huge product: 6 + 1 include + 4 = 11 (10 after the exclude).
	 */
	assert_int_equal(load("tests/fixtures/good/matrix.yaml", &s, &jobs, 10), -E2BIG);
	assert_true(load("tests/fixtures/good/matrix.yaml", &s, &jobs, 11) == 0);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
	refused_too_big("scenario: t\njobs:\n"
			"  - name: a\n    workload: exec\n    params: {command: \"true\"}\n"
			"  - name: b\n    workload: exec\n"
			"    params: {command: [\"true\", \"false\"], metric_name: [x, y, z]}\n"
			"    include:\n      - {command: echo, metric_name: x}\n",
			7, "6:5: the matrix has more than 7 jobs (raise --max-jobs)\n");
	/*
	 * 256 x 512^6 x 2^3 = 2^65 combinations: a product past 64 bits is
	 * too many, never the 0 it wraps to.
	 */
	f = open_memstream(&text, &len);
	fprintf(f, "scenario: t\njobs:\n  - name: n\n    workload: numa.mem\n    params:\n"
		"      data_reads: [true, false]\n      data_writes: [true, false]\n"
		"      data_backwards: [true, false]\n      nr_proc: [1");
	for (unsigned v = 2; v <= 256; v++)
		fprintf(f, ", %u", v);
	for (unsigned k = 0; k <= ARRAY_SIZE(keys); k++) {
		fprintf(f, "]\n      %s: [1%s", k < ARRAY_SIZE(keys) ? keys[k] : "nr_secs",
			k < ARRAY_SIZE(keys) ? "" : "ms");
		for (unsigned v = 2; v <= 512; v++)
			fprintf(f, ", %u%s", v, k < ARRAY_SIZE(keys) ? "" : "ms");
	}
	fprintf(f, "]\n");
	fclose(f);
	refused_too_big(text, 1000, "3:5: the matrix has more than 1000 jobs (raise --max-jobs)\n");
	free(text);
}

void test_load_units_and_strings(void **state)
{
	struct kscen_scenario *s;
	struct kscen_jobs jobs;

	assert_true(load("tests/fixtures/good/units.yaml", &s, &jobs, 100) == 0);
	assert_true(strcmp(s->name, "units-1.0") == 0);
	assert_true(s->timeout_ns == 1500000000LL);
	assert_true(s->jobs[0].timeout_ns == 250000000LL);
	assert_true(s->repeat == 5);	/* the default */
	assert_true(jobs.nr == 2);
	assert_true(jobs.nr == 2 && strcmp(jobs.job[1].id, "sh/command=sleep 0.01,metric_better=higher") == 0);
	assert_true(jobs.nr == 2 && jobs.job[0].metrics[0].better == KSCEN_LOWER);	/* wall time */
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/* SHA-256 against the FIPS 180-4 examples. */
void test_sha256_known_answers(void **state)
{
	char *h = kscen_sha256_hex("abc", 3);

	assert_true(strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
	free(h);
	h = kscen_sha256_hex("", 0);
	assert_true(strcmp(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
	free(h);
	h = kscen_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
	assert_true(strcmp(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
	free(h);
}

/*
 * Lengths on each side of the padding's boundaries (55/56, 63/64/65,
 * 119/120) and many blocks: byte i is (7i + 3) mod 256; the digests are
 * coreutils sha256sum's of the same bytes, and FIPS 180-4's million 'a'.
 */
void test_sha256_lengths(void **state)
{
	static const struct { size_t len; const char *hex; } want[] = {
		{ 55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b" },
		{ 56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27" },
		{ 63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055" },
		{ 64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241" },
		{ 65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e" },
		{ 119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e" },
		{ 120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5" },
		{ 1000, "1e9bc38cbf860b9ec31918b065f9b52476c549a782e0e7990bed8ce3868d2371" },
		{ 100000, "d96bab6a55ee326ba206dd4a85a6e95e14360d7fabbf448f03e689c24382b7d0" },
	};
	unsigned char *b = malloc(1000000);
	char *h;

	(void)state;
	assert_non_null(b);
	for (size_t i = 0; i < 100000; i++)
		b[i] = (7 * i + 3) % 256;
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		h = kscen_sha256_hex(b, want[k].len);
		assert_string_equal(h, want[k].hex);
		free(h);
	}
	memset(b, 'a', 1000000);
	h = kscen_sha256_hex(b, 1000000);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(h);
	free(b);
}

/* The first 24 bytes of @v, '~' and 8 hex digits of its SHA-256. */
static char *short_form(const char *v)
{
	char *hash = kscen_sha256_hex(v, strlen(v));
	char *out;

	assert_true(asprintf(&out, "%.24s~%.8s", v, hash) > 0);
	free(hash);
	return out;
}

void test_expand_long_values_labels(void **state)
{
	const char *one = "echo a command longer than forty bytes, number one";
	const char *two = "echo a command longer than forty bytes, number two";
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	char *a = short_form(one), *b = short_form(two), *id;

	(void)state;
	assert_true(load("tests/fixtures/good/id-labels.yaml", &s, &jobs, 100) == 0);
	assert_int_equal(jobs.nr, 4);
	assert_string_equal(jobs.job[0].id,
			    "labeled/command=b0,metric_regex=([0-9.]+) usecs/op,metric_name=usecs/op");
	assert_string_equal(jobs.job[1].id,
			    "labeled/command=b4,metric_regex=([0-9.]+) usecs/op,metric_name=usecs/op");
	/* The baseline given by its label; the stored value is the label... */
	assert_int_equal(jobs.job[1].baseline, 0);
	assert_string_equal(jobs.job[1].values[0], "b4");
	/* ...and the workload gets the whole command. */
	id = kscen_value_text(&jobs.job[1].workload->params[0], jobs.job[1].params);
	assert_string_equal(id, "perf bench --repeat=56 breakpoint thread -b 4 -p 2 -t 20");
	free(id);
	/* Same prefix, different values: different, stable ids. */
	assert_true(asprintf(&id, "long/command=%s", a) > 0);
	assert_string_equal(jobs.job[2].id, id);
	free(id);
	assert_true(asprintf(&id, "long/command=%s", b) > 0);
	assert_string_equal(jobs.job[3].id, id);
	free(id);
	assert_string_not_equal(a, b);
	free(a);
	free(b);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/*
 * Parameter texts are the scenario's own, shared by every job that shows
 * them: a key, a value, a label are one string however many jobs there
 * are; only a long value's short form is a string of the jobs' (strs).
 */
void test_expand_shares_parameter_texts(void **state)
{
	char path[] = "/tmp/kscen-expand.XXXXXX";
	const char *text = "scenario: share\njobs:\n  - name: j\n    workload: syscall.basic\n"
			   "    params: {loops: [10, 20, 30]}\n"
			   "  - name: k\n    workload: exec\n"
			   "    params: {command: [\"true\", \"false\"], metric_name: [a, b]}\n";
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_true(load(path, &s, &jobs, 100) == 0);
	unlink(path);
	assert_int_equal(jobs.nr, 7);
	assert_int_equal(jobs.nr_strs, 0);
	for (unsigned i = 0; i < jobs.nr; i++)
		assert_true(jobs.job[i].values == jobs.job[i].keys + jobs.job[i].nr_kv);
	/* one "loops" for j's three jobs; k's axes: each value one string */
	assert_ptr_equal(jobs.job[0].keys[0], jobs.job[2].keys[0]);
	assert_string_equal(jobs.job[3].id, "k/command=true,metric_name=a");
	assert_string_equal(jobs.job[4].id, "k/command=true,metric_name=b");
	assert_ptr_equal(jobs.job[3].values[0], jobs.job[4].values[0]);
	assert_ptr_equal(jobs.job[3].values[1], jobs.job[5].values[1]);
	assert_ptr_equal(jobs.job[3].keys[1], jobs.job[6].keys[1]);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
	/* id-labels.yaml: two labels, two long commands, one short form each */
	assert_true(load("tests/fixtures/good/id-labels.yaml", &s, &jobs, 100) == 0);
	assert_int_equal(jobs.nr_strs, 2);
	assert_ptr_equal(jobs.job[2].values[0], jobs.strs[0]);
	assert_ptr_equal(jobs.job[3].values[0], jobs.strs[1]);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/* An exec job's metrics: list: its captures first, exec's times after. */
void test_expand_metrics_list(void **state)
{
	static const char *const names[] = { "tput", "lat", "wall_time",
					      "user_time", "sys_time" };
	struct kscen_scenario *s;
	struct kscen_jobs jobs;

	(void)state;
	assert_true(load("tests/fixtures/e2e/exec-metrics.yaml", &s, &jobs, 100) == 0);
	assert_int_equal(jobs.job[0].nr_metrics, 5);
	for (unsigned i = 0; i < 5; i++)
		assert_string_equal(jobs.job[0].metrics[i].name, names[i]);
	assert_int_equal(jobs.job[0].metrics[0].better, KSCEN_HIGHER);
	assert_string_equal(jobs.job[0].metrics[0].unit, "MB/s");
	assert_int_equal(jobs.job[0].metrics[1].better, KSCEN_LOWER);
	assert_null(jobs.job[0].spec->prepare);
	assert_non_null(jobs.job[1].spec->prepare);
	assert_non_null(jobs.job[1].spec->cleanup);
	assert_int_equal(jobs.job[1].spec->nr_captures, 1);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/* ---- The walk (plan, validate) and the jobs a run keeps ---- */

/* Walk @s's jobs one at a time: their ids (malloc'ed) and the end's code. */
static int stream(const struct kscen_scenario *s, unsigned long max, char ***ids,
		  unsigned *nr)
{
	struct kscen_expander *x;
	struct kscen_job_ref job;
	int ret = kscen_expand_begin(s, max, &x);

	*ids = NULL;
	*nr = 0;
	while (!ret && (ret = kscen_expand_next(x, &job)) > 0) {
		*ids = realloc(*ids, (*nr + 1) * sizeof(**ids));
		assert_non_null(*ids);
		assert_int_equal(job.pos, *nr);	/* its place in the walk */
		(*ids)[(*nr)++] = strdup(job.id);
		assert_non_null(job.spec);
		ret = 0;
	}
	kscen_expand_end(x);
	return ret;
}

static void free_ids(char **ids, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		free(ids[i]);
	free(ids);
}

/* kscen_expand() keeps every job the walk gives, in its order. */
static void same_as_expand(const char *path)
{
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	char **ids;
	unsigned nr;

	assert_int_equal(load(path, &s, &jobs, 100000), 0);
	assert_int_equal(stream(s, 100000, &ids, &nr), 0);
	if (nr != jobs.nr)
		fprintf(stderr, "    %s: %u jobs, kscen_expand() %u\n", path, nr, jobs.nr);
	assert_int_equal(nr, jobs.nr);
	for (unsigned i = 0; i < nr; i++)
		assert_string_equal(ids[i], jobs.job[i].id);
	free_ids(ids, nr);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

void test_expand_keeps_every_job_walked(void **state)
{
	(void)state;
	tests_each_scenario(same_as_expand);
}

/*
 * @text as a scenario file: the walk refuses it with one message, "FILE:"
 * and @want, and so does kscen_expand(), which keeps nothing.
 */
static void refused_with(const char *text, const struct kscen_workload *w,
			 const char *want)
{
	char path[] = "/tmp/kscen-expand-XXXXXX";
	struct kscen_diag_log a = { 0 }, b = { 0 };
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	int fd = mkstemp(path);
	char **ids;
	unsigned nr;

	assert_true(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(kscen_scenario_load(path, &s), 0);
	for (unsigned i = 0; w && i < s->nr_jobs; i++)
		s->jobs[i].workload = w;
	kscen_diag_set_sink(kscen_diag_capture, &a);
	assert_int_equal(kscen_expand(s, 1000, &jobs), -EINVAL);
	kscen_diag_set_sink(kscen_diag_capture, &b);
	assert_int_equal(stream(s, 1000, &ids, &nr), -EINVAL);
	kscen_diag_set_sink(NULL, NULL);
	assert_int_equal(a.nr, 1);
	assert_string_equal(a.text, b.text);
	assert_true(!strncmp(a.text, path, strlen(path)) && a.text[strlen(path)] == ':');
	assert_string_equal(a.text + strlen(path) + 1, want);
	free_ids(ids, nr);
	kscen_scenario_free(s);
	unlink(path);
}

static void refused_alike(const char *text, const char *want)
{
	refused_with(text, NULL, want);
}

/* @text as a scenario file: @nr jobs, those the walk gives. */
static void accepted_alike(const char *text, unsigned nr)
{
	char path[] = "/tmp/kscen-expand-XXXXXX";
	int fd = mkstemp(path);
	struct kscen_scenario *s;
	struct kscen_jobs jobs;

	assert_true(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	same_as_expand(path);
	assert_int_equal(load(path, &s, &jobs, 1000), 0);
	assert_int_equal(jobs.nr, nr);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
	unlink(path);
}

/*
 * Nine pairs of twins (each metric_name with the long command and with
 * its short form): 18 ids seen twice, more than the first 16 the check
 * makes room for; the first pair in sorting order is named.
 */
void test_expand_refuses_many_twins(void **state)
{
	const char *one = "a very long command that is over forty bytes long, yes";
	char *shrt = short_form(one), *text, *want;

	(void)state;
	assert_true(asprintf(&text, "scenario: t\njobs:\n"
			     "  - name: a\n    workload: exec\n    params:\n"
			     "      command: [\"true\", \"%s\", \"%s\"]\n"
			     "      metric_name: [m1, m2, m3, m4, m5, m6, m7, m8, m9]\n",
			     one, shrt) > 0);
	assert_true(asprintf(&want, "3:5: job a: two jobs have the id "
			     "a/command=%s,metric_name=m1\n", shrt) > 0);
	refused_alike(text, want);
	free(text);
	free(want);
	free(shrt);
}

void test_expand_refuses_at_the_entry(void **state)
{
	const char *one = "a very long command that is over forty bytes long, yes";
	char *shrt = short_form(one), *text, *want;

	(void)state;
	/* A short value that reads like the shortened long one: same id. */
	assert_true(asprintf(&text, "scenario: t\njobs:\n"
			     "  - name: z\n    workload: exec\n    params:\n"
			     "      command: [\"true\", \"%s\", \"false\", \"%s\"]\n"
			     "      metric_name: [x, y]\n"
			     "  - name: b\n    workload: exec\n    params:\n"
			     "      command: [\"true\", \"%s\", \"false\", \"%s\"]\n",
			     one, shrt, shrt, one) > 0);
	/* The first in sorting order, as kscen_expand() reports it. */
	assert_true(asprintf(&want, "8:5: job b: two jobs have the id b/command=%s\n", shrt) > 0);
	refused_alike(text, want);
	free(text);
	free(want);
	/* An include's id the same as one of the matrix's. */
	assert_true(asprintf(&text, "scenario: t\njobs:\n"
			     "  - name: a\n    workload: exec\n    params:\n"
			     "      command: [\"true\", \"%s\"]\n      metric_name: [x, y]\n"
			     "    include:\n      - {command: \"%s\", metric_name: y}\n",
			     one, shrt) > 0);
	assert_true(asprintf(&want, "3:5: job a: two jobs have the id a/command=%s,metric_name=y\n",
			     shrt) > 0);
	refused_alike(text, want);
	free(text);
	free(want);
	/* Two includes alike in their ids only. */
	assert_true(asprintf(&text, "scenario: t\njobs:\n"
			     "  - name: a\n    workload: exec\n    params:\n"
			     "      command: [\"true\", \"false\"]\n"
			     "    include:\n      - {command: \"%s\"}\n"
			     "      - {command: \"%s\"}\n",
			     shrt, one) > 0);
	assert_true(asprintf(&want, "3:5: job a: two jobs have the id a/command=%s\n", shrt) > 0);
	refused_alike(text, want);
	free(text);
	free(want);
	/* Alike in its id to a combination that is excluded: no twin. */
	assert_true(asprintf(&text, "scenario: t\njobs:\n"
			     "  - name: a\n    workload: exec\n    params:\n"
			     "      command: [\"true\", \"%s\"]\n      metric_name: [x, y]\n"
			     "    exclude:\n      - {command: \"%s\", metric_name: y}\n"
			     "    include:\n      - {command: \"%s\", metric_name: y}\n",
			     one, one, shrt) > 0);
	accepted_alike(text, 4);
	free(text);
	/*
	 * The same where the axis has both (the id of one, the other
	 * excluded): ids are told apart by their hashes, and the include's,
	 * hashed whole, must be that of the job built axis by axis.
	 */
	assert_true(asprintf(&text, "scenario: t\njobs:\n"
			     "  - name: a\n    workload: exec\n    params:\n"
			     "      command: [\"true\", \"%s\", \"%s\"]\n      metric_name: [y, x]\n"
			     "    exclude:\n      - {command: \"%s\"}\n"
			     "    include:\n      - {command: \"%s\", metric_name: y}\n",
			     one, shrt, shrt, shrt) > 0);
	assert_true(asprintf(&want, "3:5: job a: two jobs have the id a/command=%s,metric_name=y\n",
			     shrt) > 0);
	refused_alike(text, want);
	free(text);
	free(want);
	free(shrt);
	/* An include of a job the matrix has (04 is 4); one it excludes is fine. */
	refused_alike("scenario: t\njobs:\n"
		      "  - name: a\n    workload: breakpoint.thread\n"
		      "    params: {breakpoints: [0, 4], parallelism: [1, 2], threads: 8}\n"
		      "    exclude:\n      - {breakpoints: 4, parallelism: 1}\n"
		      "    include:\n      - {breakpoints: 4, parallelism: 1, threads: 8}\n"
		      "      - {breakpoints: 04, parallelism: 2}\n",
		      "10:9: job a: include adds a/breakpoints=4,parallelism=2,threads=8, "
		      "which the matrix has already\n");
	/* Two includes alike. */
	refused_alike("scenario: t\njobs:\n"
		      "  - name: a\n    workload: breakpoint.thread\n"
		      "    params: {breakpoints: [0, 4], parallelism: [1, 2]}\n"
		      "    include:\n      - {breakpoints: 4, parallelism: 3}\n"
		      "      - {breakpoints: 4, parallelism: 3, threads: 7}\n"
		      "      - {parallelism: 3, breakpoints: 04}\n",
		      "9:9: job a: include adds a/breakpoints=4,parallelism=3, "
		      "which the matrix has already\n");
	/* The workload's check() of one job in the middle. */
	refused_alike("scenario: t\njobs:\n"
		      "  - name: a\n    workload: exec\n    params:\n"
		      "      command: [\"true\", \" \", \"false\"]\n      metric_name: [x, y]\n",
		      "3:5: job a/command= ,metric_name=x: command: must not be empty\n");
	/* ... of the first include, checked with its own values */
	refused_alike("scenario: t\njobs:\n"
		      "  - name: a\n    workload: exec\n    params: {command: [\"true\", \"false\"]}\n"
		      "    include:\n      - {command: \" \"}\n",
		      "3:5: job a/command= : command: must not be empty\n");
	/* ... of a workload that has a check() and no job_metrics() */
	refused_alike("scenario: t\njobs:\n"
		      "  - name: n\n    workload: numa.mem\n"
		      "    params: {data_reads: [true, false], data_writes: false}\n",
		      "3:5: job n/data_reads=false,data_writes=false: data_reads, data_writes: "
		      "one must be true\n");
}

/* A module's job_metrics() that gives one metric more than a job may have. */
static unsigned too_many_metrics(const void *params, struct kscen_metric_desc *m)
{
	(void)params;
	(void)m;
	return KSCEN_MAX_METRICS + 1;
}

static const struct kscen_metric_desc eight_metrics[] = {
	{ "m1", "s", KSCEN_LOWER }, { "m2", "s", KSCEN_LOWER }, { "m3", "s", KSCEN_LOWER },
	{ "m4", "s", KSCEN_LOWER }, { "m5", "s", KSCEN_LOWER }, { "m6", "s", KSCEN_LOWER },
	{ "m7", "s", KSCEN_LOWER }, { "m8", "s", KSCEN_LOWER },
};

/*
 * A module's workload (exec's parameters, no check()) whose metrics a job
 * cannot take: job_metrics() of 13, or 8 of its own beside a metrics: list
 * of 5 (7 and 5 make the 12 allowed). Refused at the job, with the
 * module's name.
 */
void test_expand_refuses_module_metrics_past_the_limit(void **state)
{
	static const char five[] = "    metrics:\n"
		"      - {name: c1, regex: \"a([0-9]+)\"}\n      - {name: c2, regex: \"b([0-9]+)\"}\n"
		"      - {name: c3, regex: \"c([0-9]+)\"}\n      - {name: c4, regex: \"d([0-9]+)\"}\n"
		"      - {name: c5, regex: \"e([0-9]+)\"}\n";
	struct kscen_workload w = *kscen_workload_find("exec");
	char text[1024], path[] = "/tmp/kscen-expand-XXXXXX";
	struct kscen_scenario *s;
	struct kscen_jobs jobs;
	int fd;

	(void)state;
	w.name = "mod.wide";
	w.check = NULL;
	w.job_metrics = too_many_metrics;
	refused_with("scenario: t\njobs:\n"
		     "  - name: a\n    workload: exec\n    params: {command: [\"true\", \"false\"]}\n",
		     &w, "3:5: job a/command=true: workload mod.wide: job_metrics() gave 13 "
		     "metrics, not 1 to 12\n");
	w.job_metrics = NULL;
	w.metrics = eight_metrics;
	w.nr_metrics = 8;
	snprintf(text, sizeof(text), "scenario: t\njobs:\n"
		 "  - name: a\n    workload: exec\n    params: {command: [\"true\", \"false\"]}\n%s",
		 five);
	refused_with(text, &w, "3:5: job a/command=true: metrics: more than 12 metrics in all\n");
	/* 7 and 5: the 12 a job may have */
	w.nr_metrics = 7;
	fd = mkstemp(path);
	assert_true(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(kscen_scenario_load(path, &s), 0);
	unlink(path);
	s->jobs[0].workload = &w;
	assert_int_equal(kscen_expand(s, 100, &jobs), 0);
	assert_int_equal(jobs.nr, 2);
	assert_int_equal(jobs.job[1].nr_metrics, 12);
	assert_string_equal(jobs.job[1].metrics[0].name, "c1");	/* the list's first */
	assert_string_equal(jobs.job[1].metrics[5].name, "m1");
	assert_string_equal(jobs.job[1].metrics[11].name, "m7");
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/* A module's check() that fills the buffer and leaves out the NUL. */
static int fills_err(const void *params, char *err, size_t len)
{
	(void)params;
	memset(err, 'x', len);
	return -EINVAL;
}

static int captures_fill_err(const void *params, unsigned nr, char *err, size_t len)
{
	(void)nr;
	return fills_err(params, err, len);
}

/* A module's message without its NUL: cut to the 255 bytes it may have. */
void test_expand_bounds_a_modules_message(void **state)
{
	struct kscen_workload w = *kscen_workload_find("exec");
	char want[512], x[256];

	(void)state;
	memset(x, 'x', 255);
	x[255] = '\0';
	w.check = fills_err;
	snprintf(want, sizeof(want), "3:5: job a/command=true: %s\n", x);
	refused_with("scenario: t\njobs:\n"
		     "  - name: a\n    workload: exec\n    params: {command: \"true\"}\n",
		     &w, want);
	w.check = NULL;
	w.check_captures = captures_fill_err;
	snprintf(want, sizeof(want), "3:5: job a/command=true: metrics: %s\n", x);
	refused_with("scenario: t\njobs:\n"
		     "  - name: a\n    workload: exec\n    params: {command: \"true\"}\n"
		     "    metrics:\n      - {name: c, regex: \"c([0-9]+)\"}\n",
		     &w, want);
}

/*
 * An include that adds the first job of its entry's matrix, as written or
 * spelled otherwise (00 is 0): refused by run's expander as by plan's, never
 * run twice under two ids.
 */
void test_expand_include_duplicating_first_job_refused(void **state)
{
	(void)state;
	refused_alike("scenario: t\njobs:\n"
		      "  - name: a\n    workload: breakpoint.thread\n"
		      "    params: {breakpoints: [0, 4], parallelism: [1, 2]}\n"
		      "    include:\n      - {breakpoints: 0, parallelism: 1}\n",
		      "7:9: job a: include adds a/breakpoints=0,parallelism=1, "
		      "which the matrix has already\n");
	refused_alike("scenario: t\njobs:\n"
		      "  - name: b\n    workload: exec\n    params: {command: \"true\"}\n"
		      "  - name: a\n    workload: breakpoint.thread\n"
		      "    params: {breakpoints: [0, 4], parallelism: [1, 2]}\n"
		      "    include:\n      - {breakpoints: 00, parallelism: 01}\n",
		      "10:9: job a: include adds a/breakpoints=0,parallelism=1, "
		      "which the matrix has already\n");
}

/* The id of job @i of @jobs if @filter keeps it (NULL: keep all), else NULL. */
static const char *kept_id(const struct kscen_jobs *jobs, int i, const char *filter)
{
	if (i < 0 || (filter && fnmatch(filter, jobs->job[i].id, 0)))
		return NULL;
	return jobs->job[i].id;
}

static void assert_same_ref(const char *want, const char *got)
{
	if (!want || !got)
		assert_ptr_equal(want, got);
	else
		assert_string_equal(want, got);
}

/*
 * kscen_expand_some(@filter) is kscen_expand() less what @filter drops:
 * the same jobs in order, params, shown values, metrics, and a baseline
 * and previous where those are kept too.
 */
static void same_as_filtered(const struct kscen_scenario *s, const struct kscen_jobs *all,
			     const char *filter)
{
	static char x[65536], y[65536];
	struct kscen_jobs some;
	unsigned long total;
	unsigned k = 0;

	assert_int_equal(kscen_expand_some(s, 100000, filter, &some, &total), 0);
	assert_int_equal(total, all->nr);
	for (unsigned i = 0; i < all->nr; i++) {
		const struct kscen_job *a = &all->job[i], *b;
		size_t n;

		if (fnmatch(filter, a->id, 0))
			continue;
		assert_true(k < some.nr);
		b = &some.job[k++];
		assert_string_equal(a->id, b->id);
		assert_same_ref(kept_id(all, a->baseline, filter), kept_id(&some, b->baseline, NULL));
		assert_same_ref(kept_id(all, a->previous, filter), kept_id(&some, b->previous, NULL));
		assert_int_equal(a->nr_kv, b->nr_kv);
		for (unsigned v = 0; v < a->nr_kv; v++) {
			assert_string_equal(a->keys[v], b->keys[v]);
			assert_string_equal(a->values[v], b->values[v]);
		}
		assert_int_equal(a->nr_metrics, b->nr_metrics);
		for (unsigned m = 0; m < a->nr_metrics; m++)
			assert_string_equal(a->metrics[m].name, b->metrics[m].name);
		/* every param's value, as the fork server is sent them */
		n = kscen_sampler_encode(a, x, sizeof(x));
		assert_true(n > 0);
		assert_int_equal(kscen_sampler_encode(b, y, sizeof(y)), n);
		assert_memory_equal(x, y, n);
	}
	assert_int_equal(k, some.nr);
	kscen_jobs_free(&some);
}

/* @id as a glob that matches it alone. */
static void glob_of(const char *id, char *out, size_t len)
{
	size_t n = 0;

	for (; *id && n + 2 < len; id++) {
		if (strchr("*?[\\", *id))
			out[n++] = '\\';
		out[n++] = *id;
	}
	out[n] = '\0';
}

static void filtered_as_expand(const char *path)
{
	static const char *const globs[] = {
		"*", "*=0*", "*=1*", "*=[04]*", "*=[14],*", "*1", "*2", "*=a", "e/*",
		"*true*", "*k,*", "nothing",
	};
	struct kscen_scenario *s;
	struct kscen_jobs all;
	char one[1024];

	assert_int_equal(load(path, &s, &all, 100000), 0);
	for (unsigned g = 0; g < ARRAY_SIZE(globs); g++)
		same_as_filtered(s, &all, globs[g]);
	/* each job alone: the first and last 20 of a large scenario */
	for (unsigned i = 0; i < all.nr; i++) {
		if (i == 20 && all.nr > 40)
			i = all.nr - 20;
		glob_of(all.job[i].id, one, sizeof(one));
		same_as_filtered(s, &all, one);
	}
	kscen_jobs_free(&all);
	kscen_scenario_free(s);
}

void test_expand_some_is_expand_filtered(void **state)
{
	char path[] = "/tmp/kscen-expand.XXXXXX";
	/* a baseline over an axis with an exclude and an include, labels-free long values */
	const char *text =
		"scenario: some\njobs:\n  - name: m\n    workload: mem.memcpy\n"
		"    params: {size: [2k, 1k, 3k, 4k], nr_loops: [1, 2, 3]}\n"
		"    exclude:\n      - {size: 3k, nr_loops: 2}\n"
		"    include:\n      - {size: 8k, nr_loops: 2}\n"
		"    baseline: {size: 1k}\n"
		"  - name: e\n    workload: exec\n"
		"    params: {command: [\"true\", \"false\", \"echo a command line that is longer "
		"than forty bytes\"], metric_name: [a, b]}\n"
		"    baseline: {command: \"true\"}\n";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	filtered_as_expand(path);
	unlink(path);
	tests_each_scenario(filtered_as_expand);
}
