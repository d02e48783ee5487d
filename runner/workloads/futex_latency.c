// SPDX-License-Identifier: GPL-2.0
/*
 * futex_latency.c - the three latency benchmarks of perf bench futex
 * (futex-wake.c, futex-wake-parallel.c, futex-requeue.c): futex.wake,
 * futex.wake_parallel and futex.requeue, as futex.c describes them.
 */
#include "futex.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/util.h"

/*
 * What a thread's pthread_exit() needs loaded: glibc unwinds the stack
 * through libgcc_s, which it dlopen()s the first time. perf links it (through
 * libstdc++), so its workers never pay that load; here it is loaded before
 * the clock, not inside the first timed round.
 */
static int load_unwinder(struct kscen_ctx *ctx)
{
	if (!dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_GLOBAL))
		return kscen_reason(ctx, -ENOENT, "dlopen(libgcc_s.so.1): %s",
				    dlerror());
	return 0;
}

/* wake and wake_parallel: their threads leave through pthread_exit(). */
static int exiting_setup(struct kscen_ctx *ctx)
{
	return load_unwinder(ctx) ?: futex_setup(ctx);
}

/*
 * wake's waker_cpu: a CPU this run may use, or the job is skipped (asked
 * in the runner, which holds the CPUs kscen was given).
 */
static int wake_supported(struct kscen_ctx *ctx)
{
	const struct futex_params *p = ctx->params;
	cpu_set_t set;

	if (p->waker_cpu < 0)
		return 0;
	if (kscen_harness_allowed(&set) || !CPU_ISSET(p->waker_cpu, &set))
		return kscen_reason(ctx, KSCEN_SKIP,
				    "waker_cpu %lld is not one of the CPUs this run may use",
				    p->waker_cpu);
	return 0;
}

/*
 * wake: with waker_cpu, the thread that wakes and times (this one, which
 * then runs the sample) is pinned there before the sentinels start, as
 * `taskset -c N perf bench futex wake` pins perf's. Whether a woken
 * worker preempts its waker, and so exits inside the timed call, depends
 * on where the waker runs (docs/fidelity.md, futex wake).
 */
static int wake_setup(struct kscen_ctx *ctx)
{
	const struct futex_params *p = ctx->params;
	int ret = exiting_setup(ctx);

	if (!ret && p->waker_cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(p->waker_cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			ret = kscen_reason(ctx, -errno, "waker_cpu %lld: sched_setaffinity: %s",
					   p->waker_cpu, strerror(errno));
	}
	return ret;
}

/* ---- futex.wake, futex.wake_parallel, futex.requeue: latency --------- */

/*
 * Blocked on futex1 until woken (retrying after signals, as perf does),
 * then gone through pthread_exit(), as perf's wake and wake-parallel
 * workers go: glibc unwinds the thread's stack for it (loading libgcc_s
 * the first time), and a woken worker that shares the waker's CPU does
 * that inside the waker's timed loop. Returning instead took 0.6 of
 * perf's time (docs/fidelity.md).
 */
static void *blocked_worker(void *arg)
{
	struct futex_worker *w = arg;
	struct futex_run *r = w->r;

	bench_gate_wait(&r->gate);
	while (!r->done &&
	       bench_futex(&r->futex1, FUTEX_WAIT, 0, NULL, NULL, 0,
			   r->flag) == -EINTR)
		;
	pthread_exit(NULL);
}

/*
 * A requeued worker returns once woken on futex2, so no retry loop here.
 * With pi it waits to be requeued to the PI futex2, and once it owns
 * futex2 (woken by the requeue, or handed it by the owner before it)
 * unlocks it for the next; EAGAIN (futex1 changed) is retried, as perf does.
 */
static void *requeue_worker(void *arg)
{
	struct futex_worker *w = arg;
	struct futex_run *r = w->r;
	long ret;

	bench_gate_wait(&r->gate);
	if (!r->p->pi) {
		if (!r->done)
			bench_futex(&r->futex1, FUTEX_WAIT, 0, NULL, NULL, 0, r->flag);
		return NULL;
	}
	if (r->done)
		return NULL;
	__atomic_store_n(&w->calling, 1, __ATOMIC_RELEASE);
	do
		ret = bench_futex(&r->futex1, FUTEX_WAIT_REQUEUE_PI, 0, NULL,
				  &r->futex2, 0, r->flag);
	while ((ret == -EAGAIN || ret == -EINTR) && !r->done);
	if (!ret)
		bench_futex(&r->futex2, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0, r->flag);
	else
		w->err = -ret;
	return NULL;
}

/*
 * pi: move every waiter still on futex1 to futex2; each then owns futex2 in
 * turn and unlocks it. A PI futex's word is its owner's tid: never written
 * here, never FUTEX_WAKEd. futex1 becomes 1 so that a late worker gets
 * EAGAIN instead of blocking; those that blocked before are moved too.
 */
static void stop_requeue_pi(struct futex_run *r)
{
	for (unsigned v = 0; v < 2; v++) {
		if (v)
			r->futex1 = 1;
		while (bench_futex(&r->futex1, FUTEX_CMP_REQUEUE_PI, 1,
				   (const struct timespec *)(long)INT_MAX,
				   &r->futex2, v, r->flag) > 0)
			;
	}
}

/* Unblock whoever waits on either futex, however many rounds it takes. */
static void stop_blocked(struct futex_run *r)
{
	r->futex1 = r->futex2 = 1;
	bench_futex(&r->futex1, FUTEX_WAKE, INT_MAX, NULL, NULL, 0, r->flag);
	bench_futex(&r->futex2, FUTEX_WAKE, INT_MAX, NULL, NULL, 0, r->flag);
}

static void *waker(void *arg)
{
	struct futex_worker *w = arg;
	struct futex_run *r = w->r;
	long long start;
	long ret;

	bench_barrier_wait(w->barrier);
	start = kscen_now_ns();
	ret = bench_futex(&r->futex1, FUTEX_WAKE, r->nwake_each, NULL, NULL, 0,
			  r->flag);
	w->ns = kscen_now_ns() - start;
	w->woken = ret < 0 ? 0 : ret;
	pthread_exit(NULL);
}

/*
 * wake_parallel: nwakers threads wake their share at once; their mean
 * time. As in perf, a barrier of the wakers and this thread releases them
 * all with one wake-up; after a failed pthread_create this thread arrives
 * for the wakers that were not made, releasing the others.
 */
static int wake_parallel(struct kscen_ctx *ctx, struct futex_run *r,
			 unsigned nwakers, double *ms, long *woken)
{
	struct futex_worker *w = kscen_xcalloc(nwakers, sizeof(*w));
	struct bench_barrier barrier;
	unsigned i, n;
	int err = 0;

	bench_barrier_init(&barrier, nwakers + 1);
	for (n = 0; n < nwakers; n++) {
		w[n].r = r;
		w[n].barrier = &barrier;
		err = pthread_create(&w[n].thread, NULL, waker, &w[n]);
		if (err)
			break;
	}
	bench_barrier_wait_n(&barrier, 1 + nwakers - n);
	*ms = 0;
	*woken = 0;
	for (i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		*ms += w[i].ns / 1e6;
		*woken += w[i].woken;
	}
	free(w);
	if (err)
		return kscen_reason(ctx, -err, "pthread_create (waker): %s",
				    strerror(err));
	*ms /= nwakers;
	return 0;
}

enum latency_kind { LAT_WAKE, LAT_WAKE_PARALLEL, LAT_REQUEUE };

/*
 * How many threads wait on futex1 in FUTEX_WAIT: a FUTEX_CMP_REQUEUE of
 * futex1 to itself counts them and moves none (the kernel refuses a
 * requeue to the same futex only for PI).
 */
static long waiting_on_futex1(struct futex_run *r)
{
	return bench_futex(&r->futex1, FUTEX_CMP_REQUEUE, 0,
			   (const struct timespec *)(long)INT_MAX, &r->futex1,
			   0, r->flag);
}

/*
 * Wait until every worker waits on futex1, or 10 s. perf only sleeps
 * (100 ms) and hopes: a waiter not queued yet when the clock starts is not
 * woken by the timed calls, which then do less. The settle sleep still
 * follows, as perf's.
 *
 * Not by reading each worker's /proc/self/task/TID/syscall, as wake and
 * wake_parallel 3 and requeue 2 did: a thread whose /proc entries were looked
 * up leaves through proc_flush_pid(), which invalidates them, and a woken
 * worker that shares the waker's CPU leaves inside the timed call;
 * wake-parallel took 2.3-2.8x perf's time so (docs/fidelity.md).
 *
 * PI requeue waiters (FUTEX_WAIT_REQUEUE_PI) cannot be counted without
 * changing them (a plain requeue refuses them, a PI one gives futex2 to
 * one): those are waited for until each is about to make its call, and
 * the settle does the rest, as in perf.
 */
void futex_wait_queued(struct futex_run *r, struct futex_worker *w)
{
	long long deadline = kscen_now_ns() + 10 * 1000000000LL;
	unsigned i = 0;
	long n;

	if (r->p->pi) {
		while (i < r->nthreads && kscen_now_ns() < deadline) {
			if (__atomic_load_n(&w[i].calling, __ATOMIC_ACQUIRE))
				i++;
			else
				usleep(50);
		}
		return;
	}
	while ((n = waiting_on_futex1(r)) >= 0 && n < (long)r->nthreads &&
	       kscen_now_ns() < deadline)
		usleep(50);
}

static int latency_round(struct kscen_ctx *ctx, struct futex_run *r,
			 struct futex_worker *w, enum latency_kind kind,
			 double *ms, long *done_nr)
{
	const struct futex_params *p = r->p;
	unsigned nwakers = 0, batch;
	long long start;
	long n = 0, ret = 0;
	int err;

	r->futex1 = r->futex2 = 0;
	r->done = false;
	for (unsigned i = 0; i < r->nthreads; i++)
		w[i].calling = 0;
	err = futex_start_workers(ctx, r, w, kind == LAT_REQUEUE ? requeue_worker :
				  blocked_worker, p->pi ? stop_requeue_pi : stop_blocked);
	if (err)
		return err;
	bench_gate_open(&r->gate, r->nthreads, r->nthreads);
	futex_wait_queued(r, w);
	bench_sleep_ns(p->settle);

	switch (kind) {
	case LAT_WAKE:
		start = kscen_now_ns();
		while (n < (long)r->nthreads) {
			ret = bench_futex(&r->futex1, FUTEX_WAKE, p->nwakes,
					  NULL, NULL, 0, r->flag);
			if (ret < 0)
				break;
			n += ret;
		}
		*ms = (kscen_now_ns() - start) / 1e6;
		break;
	case LAT_WAKE_PARALLEL:
		nwakers = p->nwakes && p->nwakes <= r->nthreads ?
			  (unsigned)p->nwakes : r->nthreads;
		r->nwake_each = r->nthreads / nwakers;
		err = wake_parallel(ctx, r, nwakers, ms, &n);
		n /= nwakers;
		break;
	case LAT_REQUEUE:
		batch = p->broadcast || p->nrequeue > r->nthreads ?
			r->nthreads : (unsigned)p->nrequeue;
		start = kscen_now_ns();
		while (n < (long)r->nthreads) {
			/*
			 * nr_wake 0: requeue only, wake nobody; the PI variant
			 * must wake one, the one that takes futex2 (perf counts
			 * it among the requeued).
			 */
			ret = bench_futex(&r->futex1, p->pi ? FUTEX_CMP_REQUEUE_PI :
					  FUTEX_CMP_REQUEUE, p->pi ? 1 : 0,
					  (const struct timespec *)(long)batch,
					  &r->futex2, 0, r->flag);
			if (ret < 0)
				break;
			n += ret;
		}
		*ms = (kscen_now_ns() - start) / 1e6;
		break;
	}
	if (ret < 0 && !err)
		err = kscen_reason(ctx, ret, "%s: %s", kind == LAT_WAKE ?
				   "FUTEX_WAKE" : p->pi ? "FUTEX_CMP_REQUEUE_PI" :
				   "FUTEX_CMP_REQUEUE", strerror(-ret));
	*done_nr = n;
	/* Everybody not woken yet (requeued ones, or after an error) goes. */
	if (kind == LAT_REQUEUE && p->pi)
		stop_requeue_pi(r);
	else
		stop_blocked(r);
	r->done = true;
	join_workers(r, w);
	return err;
}

static int latency_sample(struct kscen_ctx *ctx, double *values,
			  enum latency_kind kind)
{
	const struct futex_params *p = ctx->params;
	struct futex_run *r = kscen_xcalloc(1, sizeof(*r));
	struct futex_worker *w;
	double ms, sum = 0, nr = 0;
	long n;
	int ret = 0;

	run_init(r, p);
	if (kind == LAT_WAKE_PARALLEL && p->nwakes &&
	    p->nwakes <= r->nthreads && r->nthreads % p->nwakes) {
		ret = kscen_reason(ctx, -EINVAL,
				   "threads (%u) must be a multiple of nwakers (%lld), as in perf",
				   r->nthreads, p->nwakes);
		free(r);
		return ret;
	}
	w = kscen_xcalloc(r->nthreads, sizeof(*w));
	for (long long j = 0; j < p->repeat && !ret; j++) {
		ret = latency_round(ctx, r, w, kind, &ms, &n);
		sum += ms;
		nr += n;
	}
	if (!ret) {
		values[0] = sum / p->repeat;
		values[1] = nr / p->repeat;
	}
	free(w);
	free(r);
	return ret;
}

static int wake_sample(struct kscen_ctx *ctx, double *values)
{
	return latency_sample(ctx, values, LAT_WAKE);
}

static int wake_parallel_sample(struct kscen_ctx *ctx, double *values)
{
	return latency_sample(ctx, values, LAT_WAKE_PARALLEL);
}

static int requeue_sample(struct kscen_ctx *ctx, double *values)
{
	return latency_sample(ctx, values, LAT_REQUEUE);
}

/* ---- Describe lines, in the words of perf's run summaries ------------ */

static void wake_describe(const void *params, char *buf, size_t len)
{
	const struct futex_params *p = params;

	int n = snprintf(buf, len, "Blocking on %u threads (at [%s] futex), waking up %lld at a time, %lld rounds",
			 futex_described_threads(p), kind(p), p->nwakes, p->repeat);

	if (p->waker_cpu >= 0 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, ", waker on CPU %lld", p->waker_cpu);
}

static void wake_parallel_describe(const void *params, char *buf, size_t len)
{
	const struct futex_params *p = params;
	unsigned n = futex_described_threads(p);
	unsigned wakers = p->nwakes && p->nwakes <= n ? (unsigned)p->nwakes : n;

	snprintf(buf, len, "Blocking on %u threads (at [%s] futex), %u threads waking up %u at a time, %lld rounds",
		 n, kind(p), wakers, n / wakers, p->repeat);
}

static void requeue_describe(const void *params, char *buf, size_t len)
{
	const struct futex_params *p = params;
	unsigned n = futex_described_threads(p);

	snprintf(buf, len, "Requeuing %u threads (from [%s] futex1 to %sfutex2), %lld at a time, %lld rounds",
		 n, kind(p), p->pi ? "PI " : "", p->broadcast ? (long long)n :
		 p->nrequeue < n ? p->nrequeue : (long long)n, p->repeat);
}

/* ---- Tables ---------------------------------------------------------- */

static const struct kscen_param wake_table[] = {
	PARAM_THREADS,
	{ .name = "nwakes", .type = KSCEN_P_INT, .offset = P(nwakes),
	  .def = "1", .min = 1, .max = INT_MAX,
	  .help = "threads woken per FUTEX_WAKE (perf's -w)" },
	{ .name = "waker_cpu", .type = KSCEN_P_INT, .offset = P(waker_cpu),
	  .def = "-1", .min = -1, .max = CPU_SETSIZE - 1,
	  .help = "pin the waking, timed thread to this CPU (as taskset -c N perf bench futex wake); -1: unpinned" },
	PARAM_SHARED, PARAM_MLOCKALL, PARAM_REPEAT, PARAM_SETTLE,
};

static const struct kscen_param wake_parallel_table[] = {
	PARAM_THREADS,
	{ .name = "nwakers", .type = KSCEN_P_INT, .offset = P(nwakes),
	  .def = "0", .min = 0, .max = FUTEX_MAX_THREADS,
	  .help = "waking threads, each waking threads/nwakers; 0: threads (perf's -w)" },
	PARAM_SHARED, PARAM_MLOCKALL, PARAM_REPEAT, PARAM_SETTLE,
};

static const struct kscen_param requeue_table[] = {
	PARAM_THREADS,
	{ .name = "nrequeue", .type = KSCEN_P_INT, .offset = P(nrequeue),
	  .def = "1", .min = 1, .max = INT_MAX,
	  .help = "threads requeued per FUTEX_CMP_REQUEUE (perf's -q)" },
	{ .name = "broadcast", .type = KSCEN_P_BOOL, .offset = P(broadcast),
	  .def = "false", .help = "requeue all threads at once (perf's -B)" },
	{ .name = "pi", .type = KSCEN_P_BOOL, .offset = P(pi), .def = "false",
	  .help = "FUTEX_CMP_REQUEUE_PI to a PI futex, waking one (perf's -p)" },
	PARAM_SHARED, PARAM_MLOCKALL, PARAM_REPEAT, PARAM_SETTLE,
};

static const struct kscen_metric_desc wake_metrics[] = {
	{ .name = "msecs", .unit = "ms", .better = KSCEN_LOWER },
	{ .name = "woken", .unit = "threads", .better = KSCEN_HIGHER },
};

static const struct kscen_metric_desc wake_parallel_metrics[] = {
	{ .name = "msecs per waker", .unit = "ms", .better = KSCEN_LOWER },
	{ .name = "woken per waker", .unit = "threads", .better = KSCEN_HIGHER },
};

static const struct kscen_metric_desc requeue_metrics[] = {
	{ .name = "msecs", .unit = "ms", .better = KSCEN_LOWER },
	{ .name = "requeued", .unit = "threads", .better = KSCEN_HIGHER },
};

/* perf refuses a thread count its wakers cannot share out evenly. */
static int wake_parallel_check(const void *params, char *err, size_t len)
{
	const struct futex_params *p = params;

	if (p->threads && p->nwakes && p->nwakes <= p->threads &&
	    p->threads % p->nwakes) {
		snprintf(err, len, "nwakers: %lld does not divide threads (%lld)",
			 p->nwakes, p->threads);
		return -EINVAL;
	}
	return 0;
}

/*
 * 2: the workers leave through pthread_exit(), as perf's; 3: the clock
 * starts only once every worker sleeps in FUTEX_WAIT, seen in /proc; 4:
 * once every worker is counted on futex1 (futex_wait_queued), not /proc
 */
FUTEX_WORKLOAD(kscen_wl_futex_wake, "futex.wake", 4,
	       "wake threads blocked on one futex, N a call (perf bench futex wake)",
	       wake_table, wake_metrics, wake_sample, wake_describe, NULL,
	       wake_setup, wake_supported);
/*
 * 2: pthread_exit(), and the wakers released by a barrier, as perf's; 3
 * and 4: as wake's
 */
FUTEX_WORKLOAD(kscen_wl_futex_wake_parallel, "futex.wake_parallel", 4,
	       "wake blocked threads from parallel wakers (perf bench futex wake-parallel)",
	       wake_parallel_table, wake_parallel_metrics, wake_parallel_sample,
	       wake_parallel_describe, wake_parallel_check, exiting_setup,
	       NULL);
/* 2 and 3: as wake's 3 and 4 */
FUTEX_WORKLOAD(kscen_wl_futex_requeue, "futex.requeue", 3,
	       "FUTEX_CMP_REQUEUE blocked threads to a second futex (perf bench futex requeue)",
	       requeue_table, requeue_metrics, requeue_sample, requeue_describe,
	       NULL, futex_setup, NULL);
