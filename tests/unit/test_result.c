// SPDX-License-Identifier: GPL-2.0
/*
 * test_result.c - stored runs and what is printed from them: a saved run
 * loads back field for field with bit-exact samples, names never collide,
 * the last run is found by exact host, broken files are refused with
 * file:line:column, and the reports keep their promises (deltas, escaping).
 * Also the small pure helpers: summaries and "did you mean".
 */
#define _GNU_SOURCE	/* open_memstream, mkdtemp */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/diag.h"
#include "store/history.h"
#include "store/store.h"
#include "report/report.h"
#include "lib/util.h"
#include "tests.h"

static bool streq(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* Bit for bit, but any NaN is a NaN: text keeps no NaN payload. */
static bool same(double a, double b)
{
	return isnan(a) ? isnan(b) : !memcmp(&a, &b, sizeof(a));
}

static char *dup0(const char *s)
{
	return s ? kscen_xstrdup(s) : NULL;
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static char *tmpdir(void)
{
	char *d = kscen_xstrdup("/tmp/kscen-test-XXXXXX");

	if (!mkdtemp(d)) {
		free(d);
		return NULL;
	}
	return d;
}

static void rmtree(char *d)
{
	if (d)
		nftw(d, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
}

static void add_job(struct kscen_run *r, const char *id, enum kscen_status st,
		    const char *reason, const double *x, unsigned n,
		    const char *baseline, const char *previous)
{
	struct kscen_job_result *j;

	r->jobs = kscen_xrealloc(r->jobs, (r->nr_jobs + 1) * sizeof(*j));
	j = &r->jobs[r->nr_jobs++];
	memset(j, 0, sizeof(*j));
	j->id = dup0(id);
	j->name = kscen_xasprintf("%.*s", (int)strcspn(id, "/"), id);
	j->workload = dup0("exec");
	j->status = st;
	j->converged = -1;	/* a fixed repeat */
	j->reason = dup0(reason);
	j->baseline = dup0(baseline);
	j->previous = dup0(previous);
	if (!x)
		return;
	j->metrics = kscen_xcalloc(1, sizeof(*j->metrics));
	j->nr_metrics = 1;
	j->metrics->name = dup0("usecs/op");
	j->metrics->unit = dup0("usecs");
	j->metrics->samples = kscen_xmalloc(n * sizeof(double));
	memcpy(j->metrics->samples, x, n * sizeof(double));
	j->metrics->nr_samples = n;
	kscen_summarize(x, n, &j->metrics->sum);
}

/* A run whose strings are all quoting hazards for YAML, JSON and CSV. */
static struct kscen_run *new_run(const char *started)
{
	struct kscen_run *r = kscen_xcalloc(1, sizeof(*r));
	static const double a[] = { 10, 11, 9 }, b[] = { 11, 12, 10 };

	r->version = dup0("1.0");
	r->scenario = dup0("s");
	r->scenario_file = dup0("yes");
	r->scenario_sha256 = dup0("0123abcd");
	r->command = dup0("kscen run --filter 'a: b' \"#x\"");
	r->started = dup0(started);
	r->finished = dup0("2026-12-01T10:03:00Z");
	r->repeat = 3;
	r->system.hostname = dup0("my-host");
	r->system.kernel = dup0("6.1.0-18-amd64");
	r->system.kernel_build = dup0("#1 SMP PREEMPT_DYNAMIC");
	r->system.arch = dup0("null");
	r->system.cpu_model = dup0("");
	r->system.nr_cpus = 2;
	r->system.cmdline = dup0("ro quiet\tx=\"a,b\" \x01 caf\xc3\xa9");
	r->system.perf_event_paranoid = -1;
	add_job(r, "b/x=0", KSCEN_OK, NULL, a, 3, "b/x=0", NULL);
	add_job(r, "b/x=1", KSCEN_OK, NULL, b, 3, "b/x=0", "b/x=0");
	add_job(r, "b/x=2", KSCEN_SKIPPED, "why", NULL, 0, "b/x=0", "b/x=1");
	add_job(r, "c/y=\"a,b\"", KSCEN_FAILED, "boom: \"quoted\"\n2nd line",
		NULL, 0, NULL, NULL);
	r->jobs[1].keys = kscen_xcalloc(3, sizeof(char *));
	r->jobs[1].values = kscen_xcalloc(3, sizeof(char *));
	r->jobs[1].nr_kv = 3;
	r->jobs[1].keys[0] = dup0("x");
	r->jobs[1].values[0] = dup0("1");
	r->jobs[1].keys[1] = dup0("size");
	r->jobs[1].values[1] = dup0("4k");
	r->jobs[1].keys[2] = dup0("mode");
	r->jobs[1].values[2] = dup0("off");
	r->jobs[1].describe = dup0("Created/joined 1,120 threads");
	return r;
}

static void check_same_run(const struct kscen_run *a, const struct kscen_run *b)
{
	unsigned i, k, s;

	assert_true(streq(a->version, b->version));
	assert_true(streq(a->scenario, b->scenario));
	assert_true(streq(a->scenario_file, b->scenario_file));
	assert_true(streq(a->command, b->command));
	assert_true(streq(a->started, b->started));
	assert_true(a->partial == b->partial && a->repeat == b->repeat);
	assert_true(streq(a->system.hostname, b->system.hostname));
	assert_true(streq(a->system.kernel, b->system.kernel));
	assert_true(streq(a->system.kernel_build, b->system.kernel_build));
	assert_true(streq(a->system.arch, b->system.arch));
	assert_true(streq(a->system.cpu_model, b->system.cpu_model));
	assert_true(streq(a->system.cmdline, b->system.cmdline));
	assert_true(a->system.nr_cpus == b->system.nr_cpus);
	assert_true(a->system.perf_event_paranoid == b->system.perf_event_paranoid);
	assert_true(streq(a->system.governor, b->system.governor));
	assert_true(streq(a->system.smt, b->system.smt));
	assert_true(streq(a->system.mitigations, b->system.mitigations));
	assert_true(streq(a->system.thp, b->system.thp));
	assert_true(streq(a->system.config_sha256, b->system.config_sha256));
	assert_true(streq(a->system.isolcpus, b->system.isolcpus));
	assert_true(streq(a->system.nohz_full, b->system.nohz_full));
	assert_true(streq(a->system.loadavg, b->system.loadavg));
	assert_true(a->until_ci == b->until_ci && a->max_repeat == b->max_repeat);
	assert_true(a->nr_jobs == b->nr_jobs);
	for (i = 0; i < a->nr_jobs && i < b->nr_jobs; i++) {
		const struct kscen_job_result *x = &a->jobs[i], *y = &b->jobs[i];

		assert_true(streq(x->id, y->id) && streq(x->name, y->name));
		assert_true(x->status == y->status && streq(x->reason, y->reason));
		assert_true(streq(x->describe, y->describe));
		assert_true(streq(x->baseline, y->baseline));
		assert_true(streq(x->previous, y->previous));
		assert_true(x->converged == y->converged);
		assert_true(x->nr_kv == y->nr_kv);
		for (k = 0; k < x->nr_kv && k < y->nr_kv; k++)
			assert_true(streq(x->keys[k], y->keys[k]) &&
				streq(x->values[k], y->values[k]));
		assert_true(x->nr_metrics == y->nr_metrics);
		for (k = 0; k < x->nr_metrics && k < y->nr_metrics; k++) {
			const struct kscen_metric *m = &x->metrics[k];
			const struct kscen_metric *n = &y->metrics[k];

			assert_true(streq(m->name, n->name) && m->better == n->better);
			assert_true(m->nr_samples == n->nr_samples);
			for (s = 0; s < m->nr_samples && s < n->nr_samples; s++)
				assert_true(same(m->samples[s], n->samples[s]));
			assert_true(same(m->sum.median, n->sum.median));
			assert_true(same(m->sum.stddev, n->sum.stddev));
			assert_true(same(m->sum.cv, n->sum.cv));
			assert_true(same(m->sum.ci_lo, n->sum.ci_lo));
			assert_true(same(m->sum.ci_hi, n->sum.ci_hi));
			assert_true(m->sum.outliers == n->sum.outliers);
			assert_true(m->sum.bimodal == n->sum.bimodal);
		}
	}
}

void test_summary_median_mean_stddev(void **state)
{
	double x[] = { 5, 1, 3, 2, 4 }, y[] = { 4, 1, 3, 2 };
	double big[] = { DBL_MAX, DBL_MAX };
	struct kscen_summary s;

	kscen_summarize(x, 5, &s);
	assert_true(s.median == 3 && s.mean == 3 && s.min == 1 && s.max == 5);
	assert_true(fabs(s.stddev - sqrt(2.5)) < 1e-15);	/* n - 1 */
	assert_true(x[0] == 5 && x[1] == 1 && x[4] == 4);	/* input untouched */
	assert_true(kscen_median(y, 4) == 2.5 && y[0] == 4);
	assert_true(kscen_median(big, 2) == DBL_MAX);	/* no overflow */
	kscen_summarize(y, 1, &s);
	assert_true(s.median == 4 && s.stddev == 0);
	kscen_summarize(y, 0, &s);
	assert_true(isnan(s.median) && isnan(s.mean) && isnan(s.stddev) &&
		isnan(s.min) && isnan(s.max));
	assert_true(isnan(kscen_median(y, 0)));
}

void test_closest_suggests_only_near_names(void **state)
{
	const char *c[] = { "threads", "loops", "breakpoints", "parallelism" };

	assert_true(streq(kscen_closest("thraeds", c, 4), "threads"));
	assert_true(streq(kscen_closest("loop", c, 4), "loops"));
	assert_true(streq(kscen_closest("parallelsim", c, 4), "parallelism"));
	assert_true(!kscen_closest("xyz", c, 4));
	assert_true(!kscen_closest("", c, 4));
	assert_true(!kscen_closest("a", (const char *[]){ "b" }, 1));
	assert_true(streq(kscen_closest("ab", (const char *[]){ "abc", "abd" }, 2),
		      "abc"));	/* ties: the first */
}

void test_result_roundtrip_is_bit_exact(void **state)
{
	static const double edge[] = {
		0.1, 1.0 / 3, 5e-324, DBL_MAX, -DBL_MAX, -0.0, 1e20, 1e-300,
		2.2250738585072014e-308, 123456789.123456789,
	};	/* no INFINITY: a sample is a finite number (test_reliability.c) */
	struct kscen_run *r = new_run("2026-12-01T10:02:33Z"), *l = NULL;
	struct kscen_metric *m = r->jobs[0].metrics;
	char *dir = tmpdir();
	uint64_t seed = 88172645463325252ull, bits;
	unsigned i, n = 2000;

	assert_true(dir);
	if (!dir)
		goto out;
	/* Random bit patterns cover every exponent; NaN has no exact text. */
	m->samples = kscen_xrealloc(m->samples, n * sizeof(double));
	for (i = 0; i < n; i++) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		bits = seed;
		memcpy(&m->samples[i], &bits, sizeof(bits));
		if (!isfinite(m->samples[i]))
			m->samples[i] = 42;
		if (i < sizeof(edge) / sizeof(edge[0]))
			m->samples[i] = edge[i];
	}
	m->nr_samples = n;
	kscen_summarize(m->samples, n, &m->sum);
	/* Recomputed from the samples on load (test_reliability.c). */
	r->jobs[1].converged = 1;
	r->jobs[0].converged = 0;
	r->until_ci = 2.5;
	r->max_repeat = 40;
	r->system.governor = dup0("performance");
	r->system.smt = dup0("on");
	r->system.mitigations = dup0("meltdown=mitigation,mds=vulnerable");
	r->system.thp = dup0("never");
	r->system.config_sha256 = dup0("00ff");
	r->system.isolcpus = dup0("1-3");
	r->system.nohz_full = dup0("none");
	r->system.loadavg = dup0("0.10 0.20 0.30");

	assert_true(kscen_result_save(r, dir) == 0);
	assert_true(r->path && strstr(r->path, "/s/20261201T100233Z-my-host.yaml"));
	assert_true(r->path && kscen_result_load(r->path, &l) == 0);
	if (l) {
		check_same_run(r, l);
		assert_true(streq(l->path, r->path));
	}
out:
	kscen_run_free(l);
	kscen_run_free(r);
	rmtree(dir);
}

/* A run keeps its scenario's text byte for byte, whatever its lines hold. */
void test_result_scenario_text_roundtrips(void **state)
{
	static const char *const texts[] = {
		"scenario: s\njobs:\n  - {name: a, workload: exec}\n",
		"# no newline at the end\nscenario: s",
		"\n\n  indented first line\nscenario: s\n\n\n",
		"trailing blanks   \n\ttab\t\nscenario: s  \n",
		"crlf: x\r\nscenario: s\r\n",
		"caf\xc3\xa9: '\xe2\x82\xac'\n- \"quoted\" | > & *x !y %z\n",
		"",
	};
	char *dir = tmpdir();

	assert_true(dir);
	for (unsigned i = 0; dir && i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct kscen_run *r = new_run("2026-12-01T10:02:33Z"), *l = NULL;
		char started[32];

		snprintf(started, sizeof(started), "2026-12-01T10:02:%02uZ", i);
		free(r->started);
		r->started = dup0(started);
		r->scenario_text = dup0(texts[i]);
		assert_int_equal(kscen_result_save(r, dir), 0);
		assert_true(r->path && kscen_result_load(r->path, &l) == 0);
		if (l) {
			if (!streq(l->scenario_text, texts[i]))
				print_message("text %u came back as [%s]\n", i,
					      l->scenario_text ? l->scenario_text : "(null)");
			assert_true(streq(l->scenario_text, texts[i]));
		}
		kscen_run_free(l);
		kscen_run_free(r);
	}
	rmtree(dir);
}

void test_result_save_never_overwrites(void **state)
{
	struct kscen_run *a = new_run("2026-12-01T10:02:33Z");
	struct kscen_run *b = new_run("2026-12-01T10:02:33Z");
	char *dir = tmpdir(), *latest = NULL, *sub;

	assert_true(dir && kscen_result_save(a, dir) == 0);
	assert_true(dir && kscen_result_save(b, dir) == 0);
	assert_true(a->path && strstr(a->path, "20261201T100233Z-my-host.yaml"));
	assert_true(b->path && strstr(b->path, "20261201T100234Z-my-host.yaml"));
	assert_true(access(a->path ? a->path : "", F_OK) == 0);
	if (dir) {
		sub = kscen_xasprintf("%s/s", dir);
		assert_true(kscen_result_latest(sub, "my-host", &latest) == 0);
		assert_true(streq(latest, b->path));	/* newest wins */
		free(latest);
		free(sub);
	}
	kscen_run_free(a);
	kscen_run_free(b);
	rmtree(dir);
}

static void touch(const char *dir, const char *name)
{
	char *p = kscen_xasprintf("%s/%s", dir, name);
	int fd = open(p, O_CREAT | O_WRONLY, 0644);

	if (fd >= 0)
		close(fd);
	free(p);
}

void test_result_latest_matches_host_exactly(void **state)
{
	char *dir = tmpdir(), *p = NULL, *want;

	assert_true(dir);
	if (!dir)
		return;
	touch(dir, "20261201T100000Z-host.yaml");
	touch(dir, "20261202T100000Z-my-host.yaml");	/* not "host" */
	touch(dir, "baseline.yaml");			/* not ours */
	touch(dir, "zzzz.yaml");
	touch(dir, ".kscen-abcdef");			/* a temp file */
	assert_true(kscen_result_latest(dir, "host", &p) == 0);
	want = kscen_xasprintf("%s/20261201T100000Z-host.yaml", dir);
	assert_true(streq(p, want));
	free(p);
	free(want);
	assert_true(kscen_result_latest(dir, NULL, &p) == 0);
	want = kscen_xasprintf("%s/20261202T100000Z-my-host.yaml", dir);
	assert_true(streq(p, want));
	free(p);
	free(want);
	assert_true(kscen_result_latest(dir, "other", &p) == 0 && !p);
	assert_true(kscen_result_latest("/nonexistent/kscen", "h", &p) == 0 && !p);
	rmtree(dir);
}

int tests_load_result(const char *path, struct kscen_run **out, char *err, size_t len)
{
	struct kscen_diag_log log = { 0 };
	size_t n;
	int ret;

	kscen_diag_set_sink(kscen_diag_capture, &log);
	ret = kscen_result_load(path, out);
	kscen_diag_set_sink(NULL, NULL);
	n = log.len < len ? log.len : len - 1;
	memcpy(err, log.text, n);
	err[n] = '\0';
	return ret;
}

/* Load @text from a file, what it says to the diagnostics sink into @err. */
static int load_text(const char *dir, const char *text, char *err,
		     size_t len, struct kscen_run **out)
{
	char *path = kscen_xasprintf("%s/r.yaml", dir);
	FILE *f;
	int ret;

	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	ret = tests_load_result(path, out, err, len);
	free(path);
	return ret;
}

void test_result_load_rejects_bad_files(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "", "empty file" },
		{ "kscen: 1\njobs: [\n", "" },			/* torn */
		{ "- a\n", "expected a mapping" },
		{ "jobs: []\n", "missing 'scenario'" },
		{ "scenario: x\njobs: 5\n", "expected a list" },
		{ "scenario: x\nscenario: y\njobs: []\n", "duplicate key" },
		{ "scenario: [x]\njobs: []\n", "expected a scalar" },
		{ "scenario: x\njobs: []\nrepeat: -1\n", "expected a count" },
		{ "scenario: x\njobs: []\npartial: maybe\n", "true or false" },
		{ "scenario: x\njobs: [{id: a, status: done}]\n", "ok, skipped" },
		{ "scenario: x\njobs: [{status: ok}]\n", "missing 'id'" },
		{ "scenario: x\njobs: [{id: a, status: ok, metrics: [{name: m, "
		  "samples: [1, two]}]}]\n", "expected a finite number" },
		{ "scenario: x\njobs: [{id: a, status: ok, metrics: [{name: m, "
		  "samples: [1, .inf]}]}]\n", "expected a finite number" },
		{ "scenario: x\njobs: [{id: a, status: ok, params: {a: [1]}}]\n",
		  "expected a scalar" },
		{ "scenario: \"a\\0b\"\njobs: []\n", "NUL" },
		{ "scenario: x\njobs: &a [*a]\n", "expected a mapping" },
		{ "scenario: x\njobs: []\n\xff\n", "UTF-8" },
		/* a job's noise and its samples' records */
		{ "scenario: x\njobs: [{id: a, status: ok, noise: 5}]\n",
		  "noise: expected a mapping" },
		{ "scenario: x\njobs: [{id: a, status: ok, noise: {samples: [3]}}]\n",
		  "sample: expected a mapping" },
		{ "scenario: x\njobs: [{id: a, status: ok, noise: {samples: [{value: 1}]}}]\n",
		  "missing 'round'" },
		{ "scenario: x\njobs: [{id: a, status: ok, noise: {samples: "
		  "[{round: 1, ivcsw: many}]}}]\n", "expected an integer" },
	};
	char *dir = tmpdir(), err[512], *bomb;
	struct kscen_run *r;
	unsigned i;
	size_t o;

	assert_true(dir);
	if (!dir)
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = (struct kscen_run *)1;
		assert_true(load_text(dir, cases[i].text, err, sizeof(err), &r) ==
			-EINVAL);
		assert_true(!r);
		assert_true(strstr(err, "/r.yaml:") && strstr(err, cases[i].msg));
		if (!strstr(err, cases[i].msg))
			fprintf(stderr, "    case %u: %s", i, err);
	}

	/* A list named by 300 jobs: 300 x 300 samples from 600 nodes. */
	bomb = kscen_xmalloc(64 * 1024);
	o = sprintf(bomb, "scenario: x\njobs:\n- id: a\n  status: ok\n"
		    "  metrics: [{name: m, samples: &s [1");
	for (i = 0; i < 299; i++)
		o += sprintf(bomb + o, ",1");
	o += sprintf(bomb + o, "]}]\n");
	for (i = 0; i < 300; i++)
		o += sprintf(bomb + o, "- {id: b%u, status: ok, metrics: "
			     "[{name: m, samples: *s}]}\n", i);
	assert_true(load_text(dir, bomb, err, sizeof(err), &r) == -EINVAL);
	assert_true(strstr(err, "too many aliases"));
	free(bomb);
	rmtree(dir);
}

void test_result_load_recomputes_missing_summary(void **state)
{
	char *dir = tmpdir(), err[256];
	struct kscen_run *r = NULL;
	const struct kscen_metric *m;

	assert_true(dir);
	if (!dir)
		return;
	assert_true(load_text(dir, "scenario: x\nfuture_key: {a: [1]}\njobs:\n"
			  "- id: a\n  status: ok\n  metrics:\n"
			  "  - {name: m, samples: [3, 1, 2, 1e308]}\n",
			  err, sizeof(err), &r) == 0);
	assert_true(r && r->nr_jobs == 1 && r->jobs[0].nr_metrics == 1);
	if (r && r->nr_jobs == 1 && r->jobs[0].nr_metrics == 1) {
		m = r->jobs[0].metrics;
		assert_true(m->nr_samples == 4 && m->samples[3] == 1e308);
		assert_true(m->sum.median == 2.5 && m->sum.min == 1);
		assert_true(m->better == KSCEN_LOWER && !m->unit);
		assert_true(r->system.perf_event_paranoid == -100);
		assert_true(streq(kscen_run_find(r, "a")->id, "a"));
		assert_true(!kscen_run_find(r, "b"));
	}
	kscen_run_free(r);
	rmtree(dir);
}

static char *render(const struct kscen_run *r, const struct kscen_refs *refs,
		    enum kscen_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return kscen_xstrdup("");
	kscen_report(f, r, refs, fmt);
	fclose(f);
	return buf;
}

void test_report_formats_deltas_and_escaping(void **state)
{
	struct kscen_run *r = new_run("2026-12-02T10:15:03Z");
	struct kscen_run *last = new_run("2026-12-01T10:02:33Z");
	struct kscen_refs refs;
	const char *csv_head = "id,name,workload,status,metric,unit,better,n,"
			       "median,mean,stddev,min,max,baseline,previous,"
			       "cv,ci_low,ci_high,outliers,bimodal,noise_policy,"
			       "noise_disturbed,noise_dropped,param.x,"
			       "param.size,param.mode,to_baseline_ratio,";
	char *t;

	/* Changes come from the samples: 10 then, 11 now, +10%. */
	memcpy(last->jobs[1].metrics->samples, (double[]){ 10, 11, 9 },
	       3 * sizeof(double));
	kscen_refs_single(&refs, r, last);	/* takes last */
	t = render(r, &refs, KSCEN_FMT_TEXT);
	assert_true(strstr(t, "# kscen 1.0: scenario s, 4 jobs, repeat 3"));
	assert_true(strstr(t, "# Running s/b/x=1\n# Created/joined 1,120 threads\n"));
	/* 3 samples: [min, max] covers the median only 75% of the time. */
	/* Digits from the CI: ±1 usecs/op, so units and no decimals. */
	assert_true(strstr(t, "\n                 11 usecs/op +1 to baseline "
			  "+1 to previous   (median of 3, 75% CI ±9.1%, "
			  "CV 9.1%)\n"));
	/* Baseline and previous are one job: one line says both. */
	assert_true(strstr(t, "     to baseline: +10.0% ~ (too few samples for a "
			  "95% CI, n=3+3)\n"));
	assert_true(!strstr(t, "to previous:"));
	/* The baseline itself gets no "+0 to baseline". */
	assert_true(strstr(t, "\n                 10 usecs/op   (median of 3"));
	/* The reference is named once; no history: it cannot tell, and says so. */
	assert_true(strstr(t, "# reference: 2026-12-01T10:02Z, kernel "));
	assert_true(strstr(t, "     vs last run: +10.0% cannot tell (no run-to-run "
			  "estimate, 1 run)\n"));
	assert_true(strstr(t, "# against the reference: cannot tell for 2 jobs, no "
			  "run-to-run estimate; to\n#   get one, run `kscen calibrate`"));
	assert_true(strstr(t, "     skipped: why\n"));
	assert_true(strstr(t, "     FAILED: boom"));
	assert_true(strstr(t, "# 2 ok, 1 skipped, 1 failed\n"));
	free(t);

	t = render(r, NULL, KSCEN_FMT_JSON);
	assert_true(strstr(t, "\"cmdline\": \"ro quiet\\tx=\\\"a,b\\\" \\u0001 "
			  "caf\xc3\xa9\""));
	assert_true(strstr(t, "\"reason\": \"boom: \\\"quoted\\\"\\n2nd line\""));
	assert_true(strstr(t, "\"params\": {\"x\": 1, \"size\": \"4k\", "
			  "\"mode\": \"off\"}"));
	assert_true(strstr(t, "\"perf_event_paranoid\": -1"));
	free(t);

	t = render(r, NULL, KSCEN_FMT_CSV);
	assert_true(!strncmp(t, csv_head, strlen(csv_head)));
	/* the summary, every parameter, the deltas as ratios with CI and p */
	assert_true(strstr(t, "\nb/x=1,b,exec,ok,usecs/op,usecs,lower,3,11,11,1,"
			  "10,12,b/x=0,b/x=0,0.090909090909090912,10,12,0,"
			  "false,,,,1,"));	/* no sentinels: no noise */
	assert_true(strstr(t, ",false,,,,1,"));
	assert_true(strstr(t, ",1.1,"));	/* 11 against 10 */
	assert_true(strstr(t, "\nb/x=2,b,exec,skipped,,,,,,,,,,b/x=0,b/x=1,,,,,,,,,"));
	assert_true(strstr(t, "\n\"c/y=\"\"a,b\"\"\",c,exec,failed,"));
	free(t);

	t = render(r, &refs, KSCEN_FMT_MARKDOWN);
	/* A table an entry, the varying parameter as a column, [lo, hi]. */
	assert_true(strstr(t, "\n### b (`exec`): usecs/op, lower is better, n=3, 75% CI\n"));
	assert_true(strstr(t, "| metric | median | unit | 75% CI | CV |"));
	assert_true(strstr(t, "\n| usecs/op | 11 | usecs | [10, 12] | "
			  "9.1% | +10.0% ~ (too few samples for a 95% CI, "
			  "n=3+3) | +10.0% ~ (too few"));
	free(t);

	kscen_refs_free(&refs);
	kscen_run_free(r);
}

static const char *str_or(const char *s)
{
	return s ? s : "";
}

/* A stored run read with only some of its jobs: the same as the whole. */
void test_result_load_some_jobs(void **state)
{
	const char *path = "tests/fixtures/results/crash.yaml";
	struct kscen_run *all, *some, *none, *odd;
	struct kscen_idset want = { 0 }, empty = { 0 };
	const struct kscen_job_result *a, *b;
	char tmp[] = "/tmp/kscen-some.XXXXXX", *text;
	size_t len;
	FILE *f;
	int fd;

	(void)state;
	assert_int_equal(kscen_result_load(path, &all), 0);
	assert_true(all->nr_jobs >= 3);
	kscen_idset_add(&want, all->jobs[2].id);
	kscen_idset_add(&want, "no/such=job");
	kscen_idset_add(&want, all->jobs[0].id);
	kscen_idset_sort(&want);
	assert_int_equal(kscen_result_load_some(path, &want, &some, NULL, 0), 0);
	assert_int_equal(some->nr_jobs, 2);
	assert_string_equal(some->scenario, all->scenario);
	assert_string_equal(some->started, all->started);
	assert_string_equal(str_or(some->system.kernel), str_or(all->system.kernel));
	for (unsigned i = 0; i < 2; i++) {
		a = kscen_run_find(all, some->jobs[i].id);
		b = &some->jobs[i];
		assert_non_null(a);
		assert_int_equal(a->status, b->status);
		assert_int_equal(a->nr_metrics, b->nr_metrics);
		for (unsigned m = 0; m < a->nr_metrics; m++)
			assert_true(a->metrics[m].sum.median == b->metrics[m].sum.median ||
				    (isnan(a->metrics[m].sum.median) &&
				     isnan(b->metrics[m].sum.median)));
	}
	assert_null(kscen_run_find(some, all->jobs[1].id));
	/* The header alone. */
	assert_int_equal(kscen_result_load_some(path, &empty, &none, NULL, 0), 0);
	assert_int_equal(none->nr_jobs, 0);
	assert_string_equal(none->scenario, all->scenario);

	/* Not laid out as kscen writes it: read whole, nothing lost. */
	assert_int_equal(kscen_read_regular(path, 1 << 20, &text, &len), 0);
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fputs("# a comment at the top\n", f);
	fclose(f);
	assert_int_equal(kscen_result_load_some(tmp, &want, &odd, NULL, 0), 0);
	assert_int_equal(odd->nr_jobs, all->nr_jobs);
	unlink(tmp);
	free(text);
	kscen_idset_free(&want);
	kscen_run_free(all);
	kscen_run_free(some);
	kscen_run_free(none);
	kscen_run_free(odd);
}

/*
 * A stored run larger than the selective reader's 64 KiB buffer: jobs and
 * lines cut by its refills are read whole, and a line longer than the
 * buffer sends the file to the full parse.
 */
void test_result_load_some_large(void **state)
{
	const char *path = "tests/fixtures/results/crash.yaml";
	char tmp[] = "/tmp/kscen-large.XXXXXX", *text, *jobs;
	struct kscen_run *all, *some;
	struct kscen_idset want = { 0 };
	size_t len;
	FILE *f;
	int fd;

	(void)state;
	assert_int_equal(kscen_read_regular(path, 1 << 20, &text, &len), 0);
	jobs = strstr(text, "\njobs:\n");
	assert_non_null(jobs);
	for (int long_line = 0; long_line < 2; long_line++) {
		strcpy(tmp, "/tmp/kscen-large.XXXXXX");
		fd = mkstemp(tmp);
		assert_true(fd >= 0);
		f = fdopen(fd, "w");
		assert_non_null(f);
		fwrite(text, 1, jobs + 1 - text, f);
		if (long_line) {
			fputs("# ", f);
			for (int i = 0; i < 70000; i++)
				fputc('x', f);
			fputc('\n', f);
		}
		fputs("jobs:\n", f);
		for (unsigned i = 0; i < 1000; i++)
			fprintf(f, "- id: j/n=%u\n  name: j\n  workload: exec\n  params:\n"
				"    command: true %u\n  status: ok\n  reason: null\n"
				"  metrics:\n  - name: wall_time\n    unit: s\n"
				"    better: lower\n    samples: [%u, %u]\n"
				"  baseline: null\n  previous: null\n", i, i, i, i + 1);
		fclose(f);
		assert_int_equal(kscen_result_load(tmp, &all), 0);
		assert_int_equal(all->nr_jobs, 1000);
		for (unsigned i = 0; i < 999; i++)	/* all but the last */
			kscen_idset_add(&want, all->jobs[i].id);
		kscen_idset_sort(&want);
		assert_int_equal(kscen_result_load_some(tmp, &want, &some, NULL, 0), 0);
		if (long_line) {	/* not selected: read whole */
			assert_int_equal(some->nr_jobs, 1000);
		} else {
			assert_int_equal(some->nr_jobs, 999);
			for (unsigned i = 0; i < 999; i++) {
				const struct kscen_job_result *b = &some->jobs[i];

				assert_string_equal(b->id, all->jobs[i].id);
				assert_int_equal(b->metrics[0].nr_samples, 2);
				assert_true(b->metrics[0].samples[0] == i);
				assert_true(b->metrics[0].samples[1] == i + 1);
			}
		}
		unlink(tmp);
		kscen_idset_free(&want);
		kscen_run_free(all);
		kscen_run_free(some);
	}
	free(text);
}
