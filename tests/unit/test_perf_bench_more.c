// SPDX-License-Identifier: GPL-2.0
/*
 * test_perf_bench_more.c - the perf bench twins of issue 13 keep perf's
 * defaults, perf.bench finds each benchmark's unit and direction at load
 * time, and the JSON paths of exec's json option and fio name exactly one
 * value or fail with a reason.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <jansson.h>

#include "scenario/scenario.h"
#include "tests.h"
#include "workloads/json_path.h"
#include "workloads/bench.h"
#include "workloads/futex.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static const char *def_of(const char *workload, const char *param)
{
	const struct kscen_workload *w = kscen_workload_find(workload);
	const struct kscen_param *p = w ? kscen_param_find(w, param) : NULL;

	return p && p->def ? p->def : "";
}

void test_perf_bench_more_defaults_are_perfs(void **state)
{
	assert_true(!strcmp(def_of("futex.hash", "futexes"), "1024"));
	assert_true(!strcmp(def_of("futex.hash", "runtime"), "10s"));
	assert_true(!strcmp(def_of("futex.hash", "threads"), "0"));
	assert_true(!strcmp(def_of("futex.wake", "nwakes"), "1"));
	assert_true(!strcmp(def_of("futex.wake", "repeat"), "10"));
	assert_true(!strcmp(def_of("futex.wake", "settle"), "100ms"));
	assert_true(!strcmp(def_of("futex.requeue", "nrequeue"), "1"));
	assert_true(!strcmp(def_of("futex.lock_pi", "multi"), "false"));
	assert_true(!strcmp(def_of("epoll.wait", "nfds"), "64"));
	assert_true(!strcmp(def_of("epoll.wait", "runtime"), "8s"));
	assert_true(!strcmp(def_of("epoll.ctl", "nfds"), "64"));
	assert_true(!strcmp(def_of("mem.memcpy", "size"), "1M"));
	assert_true(!strcmp(def_of("mem.memcpy", "nr_loops"), "1"));
	assert_true(!strcmp(def_of("mem.memset", "function"), "default"));
	assert_true(!strcmp(def_of("mem.find_bit", "outer_iterations"), "5"));
	assert_true(!strcmp(def_of("mem.find_bit", "inner_iterations"), "100000"));
	assert_true(!strcmp(def_of("syscall.getpgid", "loops"), "10000000"));
	assert_true(!strcmp(def_of("syscall.fork", "loops"), "10000"));
	assert_true(!strcmp(def_of("syscall.execve", "loops"), "10000"));
	assert_true(!strcmp(def_of("sched.seccomp_notify", "loops"), "1000000"));
}

/* The metrics a job of @workload gets with @n params set as text. */
static unsigned metrics_of(const char *workload, const char *const *kv,
			   unsigned n, struct kscen_metric_desc *m)
{
	const struct kscen_workload *w = kscen_workload_find(workload);
	struct kscen_value v;
	char err[256];
	unsigned nr = 0;
	void *params;

	if (!w)
		return 0;
	params = kscen_params_new(w);
	for (unsigned i = 0; params && i < n; i++) {
		const struct kscen_param *p = kscen_param_find(w, kv[2 * i]);

		if (!p || kscen_value_parse(p, kv[2 * i + 1], &v, err, sizeof(err)))
			goto out;
		kscen_value_store(p, params, &v);
	}
	memcpy(m, w->metrics, w->nr_metrics * sizeof(*m));
	nr = w->job_metrics ? w->job_metrics(params, m) : w->nr_metrics;
out:
	kscen_params_free(w, params);
	return nr;
}

void test_perf_bench_units_detected(void **state)
{
	struct kscen_metric_desc m[KSCEN_MAX_METRICS];
	const char *pipe[] = { "collection", "sched", "benchmark", "pipe" };
	const char *hash[] = { "collection", "futex", "benchmark", "hash" };
	const char *ctl[] = { "collection", "epoll", "benchmark", "ctl" };
	const char *wake[] = { "collection", "futex", "benchmark", "wake" };
	const char *cyc[] = { "collection", "mem", "benchmark", "memcpy",
			      "args", "-f default -c" };
	const char *odd[] = { "collection", "new", "benchmark", "thing" };
	const char *cycles[] = { "cycles", "true" };

	assert_true(metrics_of("perf.bench", pipe, 2, m) == 1 &&
		!strcmp(m[0].name, "seconds") && m[0].better == KSCEN_LOWER);
	assert_true(metrics_of("perf.bench", hash, 2, m) == 1 &&
		!strcmp(m[0].name, "ops/sec") && m[0].better == KSCEN_HIGHER);
	assert_true(metrics_of("perf.bench", ctl, 2, m) == 3 &&
		!strcmp(m[2].name, "DEL operations"));
	assert_true(metrics_of("perf.bench", wake, 2, m) == 1 &&
		!strcmp(m[0].unit, "ms") && m[0].better == KSCEN_LOWER);
	assert_true(metrics_of("perf.bench", cyc, 3, m) == 1 &&
		!strcmp(m[0].name, "cycles/Byte") && m[0].better == KSCEN_LOWER);
	assert_true(metrics_of("perf.bench", odd, 2, m) == 1 &&
		!strcmp(m[0].name, "value"));
	assert_true(metrics_of("mem.memset", cycles, 1, m) == 1 &&
		!strcmp(m[0].name, "cycles/Byte") && m[0].better == KSCEN_LOWER);
	assert_true(metrics_of("mem.memset", NULL, 0, m) == 1 &&
		!strcmp(m[0].name, "GB/sec") && m[0].better == KSCEN_HIGHER);
}

void test_json_path_names_one_value(void **state)
{
	json_t *doc = json_loads("{\"results\": [{\"mean\": 0.5, \"s\": \"x\"},"
				 " {\"mean\": 2}], \"a.b\": {\"c\": -3e2}, \"n\": null}",
				 0, NULL);
	char err[160];
	double v = 0;

	assert_true(doc != NULL);
	assert_true(!kscen_json_path_number(doc, ".results[0].mean", &v, err, sizeof(err)) && v == 0.5);
	assert_true(!kscen_json_path_number(doc, ".results[1].mean", &v, err, sizeof(err)) && v == 2);
	assert_true(!kscen_json_path_number(doc, ".[\"a.b\"].c", &v, err, sizeof(err)) && v == -300);
	assert_true(!kscen_json_path_number(doc, "[\"a.b\"][\"c\"]", &v, err, sizeof(err)) && v == -300);
	assert_true(kscen_json_path_number(doc, ".results[2].mean", &v, err, sizeof(err)) == -ENOENT &&
		strstr(err, "2 elements"));
	assert_true(kscen_json_path_number(doc, ".results[0].s", &v, err, sizeof(err)) == -EINVAL &&
		strstr(err, "a string"));
	assert_true(kscen_json_path_number(doc, ".n", &v, err, sizeof(err)) == -EINVAL &&
		strstr(err, "null"));
	assert_true(kscen_json_path_number(doc, ".nope", &v, err, sizeof(err)) == -ENOENT &&
		strstr(err, "nope"));
	assert_true(kscen_json_path_number(doc, ".results.mean", &v, err, sizeof(err)) == -ENOENT &&
		strstr(err, "not an object"));
	assert_true(kscen_json_path_check("results", err, sizeof(err)) == -EINVAL);
	assert_true(kscen_json_path_check(".a[x]", err, sizeof(err)) == -EINVAL);
	assert_true(kscen_json_path_check(".a..b", err, sizeof(err)) == -EINVAL);
	assert_true(kscen_json_path_check(".a[\"b]", err, sizeof(err)) == -EINVAL);
	assert_true(kscen_json_path_check(".a[99999999999999999999]", err, sizeof(err)) == -EINVAL);
	assert_true(kscen_json_path_check(".", err, sizeof(err)) == 0);
	json_decref(doc);
}

/* ---- bench_barrier: perf's pthread_barrier_wait(), one wake-up for all - */

struct barrier_arg {
	struct bench_barrier *b;
	int passed;
	unsigned n;	/* arrivals the filler makes */
};

static void *barrier_thread(void *p)
{
	struct barrier_arg *a = p;

	bench_barrier_wait(a->b);
	__atomic_add_fetch(&a->passed, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* The thread that arrives for itself and those never made, as futex.c's. */
static void *barrier_filler(void *p)
{
	struct barrier_arg *a = p;

	bench_barrier_wait_n(a->b, a->n);
	return NULL;
}

/* Join @t within 10 s: a barrier that never opens fails, never hangs. */
static bool joined(pthread_t t)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 10;
	return pthread_timedjoin_np(t, NULL, &dl) == 0;
}

void test_bench_barrier_releases_all(void **state)
{
	struct bench_barrier b;
	struct barrier_arg a = { .b = &b };
	pthread_t t[4], f;

	(void)state;
	/* four threads and the filler; then two of four made, the filler for three */
	for (unsigned made = 4; made >= 2; made -= 2) {
		bench_barrier_init(&b, 4 + 1);
		a.passed = 0;
		a.n = 1 + 4 - made;
		for (unsigned i = 0; i < made; i++)
			assert_int_equal(pthread_create(&t[i], NULL, barrier_thread, &a), 0);
		assert_int_equal(pthread_create(&f, NULL, barrier_filler, &a), 0);
		assert_true(joined(f));
		for (unsigned i = 0; i < made; i++)
			assert_true(joined(t[i]));
		assert_int_equal(a.passed, made);
		assert_int_equal(b.left, 0);
	}
}

struct late_waiter {
	struct futex_run *r;
	struct futex_worker *w;
	unsigned delay_ms;
};

/* Waits on futex1 only after @delay_ms; with pi, says so first. */
static void *late_waiter(void *arg)
{
	struct late_waiter *l = arg;

	usleep(l->delay_ms * 1000);
	if (l->r->p->pi) {
		__atomic_store_n(&l->w->calling, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	bench_futex(&l->r->futex1, FUTEX_WAIT, 0, NULL, NULL, 0, l->r->flag);
	return NULL;
}

/*
 * futex.wake, wake_parallel and requeue start the clock only once every
 * worker waits on futex1 (counted by a requeue of futex1 to itself, not
 * through /proc: docs/fidelity.md): futex_wait_queued() must not return
 * before the last one of three, queued 60 ms late, so that the FUTEX_WAKE
 * after it finds all three. With pi it waits for the workers' `calling`.
 */
void test_futex_wait_queued_waits_for_the_late(void **state)
{
	for (int pi = 0; pi < 2; pi++) {
		struct futex_params p = { .pi = pi };
		struct futex_run *r = calloc(1, sizeof(*r));
		struct futex_worker w[3] = {{ 0 }};
		struct late_waiter l[3];
		pthread_t t[3];
		long woken;

		assert_non_null(r);
		r->p = &p;
		r->nthreads = 3;
		r->flag = FUTEX_PRIVATE_FLAG;
		for (unsigned i = 0; i < 3; i++) {
			l[i] = (struct late_waiter){ r, &w[i], 30 * i };
			assert_int_equal(pthread_create(&t[i], NULL, late_waiter, &l[i]), 0);
		}
		futex_wait_queued(r, w);
		for (unsigned i = 0; i < 3 && pi; i++)
			assert_int_equal(__atomic_load_n(&w[i].calling, __ATOMIC_ACQUIRE), 1);
		r->futex1 = 1;
		woken = bench_futex(&r->futex1, FUTEX_WAKE, INT_MAX, NULL, NULL, 0,
				    r->flag);
		for (unsigned i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
		assert_int_equal(woken, pi ? 0 : 3);
		free(r);
	}
	(void)state;
}

/* futex.wake's params with waker_cpu @cpu, the rest defaults. */
static void *wake_params(long long cpu)
{
	const struct kscen_workload *w = kscen_workload_find("futex.wake");
	const struct kscen_param *p = kscen_param_find(w, "waker_cpu");
	void *params = kscen_params_new(w);
	char text[32], err[256];
	struct kscen_value v;

	snprintf(text, sizeof(text), "%lld", cpu);
	assert_true(kscen_value_parse(p, text, &v, err, sizeof(err)) == 0);
	kscen_value_store(p, params, &v);
	return params;
}

/*
 * futex.wake's waker_cpu: setup() pins the thread that goes on to take
 * the sample (its waker) to exactly that CPU, the last this test may
 * use; a CPU it may not use is a skip with the CPU named, in the runner;
 * unset (-1) pins nothing, and the describe line says where the waker is.
 */
void test_futex_wake_waker_cpu_pins_the_waker(void **state)
{
	const struct kscen_workload *w = kscen_workload_find("futex.wake");
	cpu_set_t before, after;
	int last = -1;
	char line[256];

	(void)state;
	assert_true(w && w->supported && w->setup && w->describe);
	assert_true(sched_getaffinity(0, sizeof(before), &before) == 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &before))
			last = c;

	struct kscen_ctx pin = { .params = wake_params(last) };
	assert_int_equal(w->supported(&pin), 0);
	assert_int_equal(w->setup(&pin), 0);
	assert_true(sched_getaffinity(0, sizeof(after), &after) == 0);
	assert_int_equal(CPU_COUNT(&after), 1);
	assert_true(CPU_ISSET(last, &after));
	w->describe(pin.params, line, sizeof(line));
	char want[64];
	snprintf(want, sizeof(want), ", 10 rounds, waker on CPU %d", last);
	assert_non_null(strstr(line, want));
	assert_true(sched_setaffinity(0, sizeof(before), &before) == 0);

	struct kscen_ctx none = { .params = wake_params(-1) };
	assert_int_equal(w->supported(&none), 0);
	assert_int_equal(w->setup(&none), 0);
	assert_true(sched_getaffinity(0, sizeof(after), &after) == 0);
	assert_true(CPU_EQUAL(&after, &before));
	w->describe(none.params, line, sizeof(line));
	assert_null(strstr(line, "waker on"));

	struct kscen_ctx away = { .params = wake_params(CPU_SETSIZE - 1) };
	if (!CPU_ISSET(CPU_SETSIZE - 1, &before)) {
		assert_int_equal(w->supported(&away), KSCEN_SKIP);
		assert_non_null(strstr(away.reason, "waker_cpu 1023 is not one of"));
	}
	kscen_params_free(w, (void *)pin.params);
	kscen_params_free(w, (void *)none.params);
	kscen_params_free(w, (void *)away.params);
}
