// SPDX-License-Identifier: GPL-2.0
/*
 * futex.c - perf bench's futex collection (tools/perf/bench/futex-*.c, by
 * Davidlohr Bueso) as five kscen workloads:
 *
 *   futex.hash           threads FUTEX_WAIT on their own futexes with a value
 *                        that never matches: the call fails at once, after
 *                        hashing the address and taking the bucket lock.
 *   futex.lock_pi        threads FUTEX_LOCK_PI/UNLOCK_PI one futex (or one
 *                        each with multi) with a 1 us sleep inside.
 *   futex.wake           threads block on one futex; time waking them all,
 *                        nwakes per FUTEX_WAKE.
 *   futex.wake_parallel  the same, woken by nwakers threads at once.
 *   futex.requeue        time FUTEX_CMP_REQUEUE of the blocked threads to a
 *                        second futex, nrequeue at a time, waking none; with
 *                        pi, FUTEX_CMP_REQUEUE_PI of FUTEX_WAIT_REQUEUE_PI
 *                        waiters to a PI futex, waking one (perf's -p).
 *
 * Parameters carry perf's long option names; threads 0 means one per CPU,
 * as in perf. Workers are pinned to CPU i % nr_cpus like perf's. The two
 * throughput benchmarks report the mean per-thread ops/sec (perf's
 * "Averaged N operations/sec"); the three latency ones take `repeat` rounds
 * (perf bench's -r, 10) in one sample and report their mean in msecs, each
 * round once every thread is counted waiting on the futex and after a `settle`
 * sleep (perf's 100 ms, which alone only hopes the threads have blocked).
 *
 * Here: mlockall and starting the pinned workers, then futex.hash and
 * futex.lock_pi; the three latency benchmarks are futex_latency.c's, and
 * futex.h holds what the two files share.
 */
#include "futex.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "lib/util.h"

int futex_setup(struct kscen_ctx *ctx)
{
	const struct futex_params *p = ctx->params;

	/* perf's -m: no page faults in the measured loops. */
	if (p->mlockall && mlockall(MCL_CURRENT | MCL_FUTURE))
		return kscen_reason(ctx, -errno, "mlockall: %s", strerror(errno));
	return 0;
}

/*
 * Create r->nthreads workers running @fn, pinned; on failure stop the ones
 * created with @stop (which must make them return) and join them.
 */
int futex_start_workers(struct kscen_ctx *ctx, struct futex_run *r,
			struct futex_worker *w, void *(*fn)(void *),
			void (*stop)(struct futex_run *))
{
	pthread_attr_t attr;
	unsigned i;
	int err = 0;

	bench_gate_init(&r->gate, r->nthreads);
	for (i = 0; i < r->nthreads; i++) {
		w[i].r = r;
		pthread_attr_init(&attr);
		err = bench_attr_pin(&attr, r->cpus[i % r->nr_cpus]);
		if (!err)
			err = pthread_create(&w[i].thread, &attr, fn, &w[i]);
		pthread_attr_destroy(&attr);
		if (err)
			break;
	}
	if (!err)
		return 0;
	r->done = true;
	bench_gate_open(&r->gate, i, r->nthreads);
	stop(r);
	while (i--)
		pthread_join(w[i].thread, NULL);
	bench_gate_destroy(&r->gate);
	return kscen_reason(ctx, -err, "pthread_create (thread %u of %u): %s",
			    i + 1, r->nthreads, strerror(err));
}

static void stop_none(struct futex_run *r)
{
	(void)r;
}

/* ---- futex.hash and futex.lock_pi: throughput for `runtime` ---------- */

static void *hash_worker(void *arg)
{
	struct futex_worker *w = arg;
	struct futex_run *r = w->r;
	unsigned long long ops = 0;
	long long i, n = r->p->futexes;

	bench_gate_wait(&r->gate);
	do {
		for (i = 0; i < n; i++, ops++)
			bench_futex(&w->futex[i], FUTEX_WAIT, 1234, NULL, NULL,
				    0, r->flag);
	} while (!r->done);
	w->ops = ops;
	return NULL;
}

static void *lock_pi_worker(void *arg)
{
	struct futex_worker *w = arg;
	struct futex_run *r = w->r;
	unsigned long long ops = 0;
	long ret;

	bench_gate_wait(&r->gate);
	do {
		ret = bench_futex(w->futex, FUTEX_LOCK_PI, 0, NULL, NULL, 0,
				  r->flag);
		if (ret) {
			if (!w->err && ret != -EINTR)
				w->err = -ret;
			continue;
		}
		usleep(1);
		bench_futex(w->futex, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0,
			    r->flag);
		ops++;
	} while (!r->done);
	w->ops = ops;
	return NULL;
}

static int throughput_sample(struct kscen_ctx *ctx, double *values, bool pi)
{
	const struct futex_params *p = ctx->params;
	struct futex_run *r = kscen_xcalloc(1, sizeof(*r));
	struct futex_worker *w;
	long long start, ns;
	double sum = 0;
	unsigned i;
	int ret;

	run_init(r, p);
	w = kscen_xcalloc(r->nthreads, sizeof(*w));
	for (i = 0; i < r->nthreads; i++) {
		if (!pi)
			w[i].futex = kscen_xcalloc(p->futexes, sizeof(unsigned));
		else
			w[i].futex = p->multi ? kscen_xcalloc(1, sizeof(unsigned))
					      : &r->futex1;
	}
	ret = futex_start_workers(ctx, r, w, pi ? lock_pi_worker : hash_worker,
				  stop_none);
	if (ret)
		goto out;
	bench_gate_open(&r->gate, r->nthreads, r->nthreads);
	start = kscen_now_ns();
	bench_sleep_ns(p->runtime);
	r->done = true;
	ns = kscen_now_ns() - start;
	join_workers(r, w);

	for (i = 0; i < r->nthreads; i++) {
		if (w[i].err) {
			ret = kscen_reason(ctx, -w[i].err,
					   "FUTEX_LOCK_PI: %s", strerror(w[i].err));
			goto out;
		}
		sum += w[i].ops / (ns / 1e9);
	}
	values[0] = sum / r->nthreads;
	values[1] = sum;
out:
	for (i = 0; i < r->nthreads; i++)
		if (!pi || p->multi)
			free(w[i].futex);
	free(w);
	free(r);
	return ret;
}

static int hash_sample(struct kscen_ctx *ctx, double *values)
{
	return throughput_sample(ctx, values, false);
}

static int lock_pi_sample(struct kscen_ctx *ctx, double *values)
{
	return throughput_sample(ctx, values, true);
}

/* ---- Describe lines, in the words of perf's run summaries ------------ */

unsigned futex_described_threads(const struct futex_params *p)
{
	int cpus[FUTEX_MAX_CPUS];

	return nr_threads(p, bench_cpus(cpus, FUTEX_MAX_CPUS));
}

static void hash_describe(const void *params, char *buf, size_t len)
{
	const struct futex_params *p = params;

	snprintf(buf, len, "%u threads, each operating on %lld [%s] futexes for %.3g secs",
		 futex_described_threads(p), p->futexes, kind(p), p->runtime / 1e9);
}

static void lock_pi_describe(const void *params, char *buf, size_t len)
{
	const struct futex_params *p = params;

	snprintf(buf, len, "%u threads doing pi lock/unlock pairing on %s [%s] futex%s for %.3g secs",
		 futex_described_threads(p), p->multi ? "their own" : "one",
		 kind(p), p->multi ? "es" : "", p->runtime / 1e9);
}

/* ---- Tables ---------------------------------------------------------- */

static const struct kscen_param hash_table[] = {
	PARAM_THREADS,
	{ .name = "futexes", .type = KSCEN_P_INT, .offset = P(futexes),
	  .def = "1024", .min = 1, .max = 1 << 24,
	  .help = "futexes per thread (perf's -f)" },
	PARAM_RUNTIME, PARAM_SHARED, PARAM_MLOCKALL,
};

static const struct kscen_param lock_pi_table[] = {
	PARAM_THREADS, PARAM_RUNTIME,
	{ .name = "multi", .type = KSCEN_P_BOOL, .offset = P(multi),
	  .def = "false", .help = "one futex per thread: no contention (perf's -M)" },
	PARAM_SHARED, PARAM_MLOCKALL,
};

static const struct kscen_metric_desc throughput_metrics[] = {
	{ .name = "ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
	{ .name = "total ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
};

FUTEX_WORKLOAD(kscen_wl_futex_hash, "futex.hash", 1,
	       "FUTEX_WAIT that fails at once: futex hash table (perf bench futex hash)",
	       hash_table, throughput_metrics, hash_sample, hash_describe, NULL,
	       futex_setup, NULL);
FUTEX_WORKLOAD(kscen_wl_futex_lock_pi, "futex.lock_pi", 1,
	       "FUTEX_LOCK_PI/UNLOCK_PI pairs (perf bench futex lock-pi)",
	       lock_pi_table, throughput_metrics, lock_pi_sample, lock_pi_describe,
	       NULL, futex_setup, NULL);
