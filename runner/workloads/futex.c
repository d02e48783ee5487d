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
 * round after a `settle` sleep (perf's 100 ms) that lets the threads block.
 */
#include "bench.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/futex.h>

#include "workload.h"
#include "lib/util.h"


#define FUTEX_MAX_THREADS 4096
#define FUTEX_MAX_CPUS 1024

struct futex_params {
	long long threads;
	long long futexes;	/* hash */
	long long runtime;	/* hash, lock_pi: ns */
	long long nwakes;	/* wake; nwakers for wake_parallel */
	long long nrequeue;	/* requeue */
	long long repeat;	/* wake, wake_parallel, requeue */
	long long settle;	/* ns */
	bool shared, mlockall, multi, broadcast, pi;
};

/* One sample's state: a worker array and what the workers share. */
struct futex_run {
	const struct futex_params *p;
	unsigned nthreads;
	int flag;		/* FUTEX_PRIVATE_FLAG unless shared */
	int cpus[FUTEX_MAX_CPUS], nr_cpus;
	struct bench_gate gate;
	volatile bool done;
	unsigned futex1, futex2;	/* wake, requeue, lock_pi (shared) */
	unsigned nwake_each;		/* wake_parallel: per waker */
};

struct futex_worker {
	struct futex_run *r;
	pthread_t thread;
	unsigned *futex;	/* hash: an array; lock_pi: one */
	unsigned long long ops;
	long long ns;		/* wake_parallel: this waker's time */
	long woken;
	int err;
	struct bench_barrier *barrier;	/* wake_parallel's wakers */
};

static unsigned nr_threads(const struct futex_params *p, int nr_cpus)
{
	return p->threads ? (unsigned)p->threads : (unsigned)nr_cpus;
}

static void run_init(struct futex_run *r, const struct futex_params *p)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->nr_cpus = bench_cpus(r->cpus, FUTEX_MAX_CPUS);
	r->nthreads = nr_threads(p, r->nr_cpus);
	r->flag = p->shared ? 0 : FUTEX_PRIVATE_FLAG;
}

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

static int futex_setup(struct kscen_ctx *ctx)
{
	const struct futex_params *p = ctx->params;

	/* perf's -m: no page faults in the measured loops. */
	if (p->mlockall && mlockall(MCL_CURRENT | MCL_FUTURE))
		return kscen_reason(ctx, -errno, "mlockall: %s", strerror(errno));
	return 0;
}

/* wake and wake_parallel: their threads leave through pthread_exit(). */
static int exiting_setup(struct kscen_ctx *ctx)
{
	return load_unwinder(ctx) ?: futex_setup(ctx);
}

/*
 * Create r->nthreads workers running @fn, pinned; on failure stop the ones
 * created with @stop (which must make them return) and join them.
 */
static int start_workers(struct kscen_ctx *ctx, struct futex_run *r,
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

static void join_workers(struct futex_run *r, struct futex_worker *w)
{
	for (unsigned i = 0; i < r->nthreads; i++)
		pthread_join(w[i].thread, NULL);
	bench_gate_destroy(&r->gate);
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
	ret = start_workers(ctx, r, w, pi ? lock_pi_worker : hash_worker,
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
	err = start_workers(ctx, r, w, kind == LAT_REQUEUE ? requeue_worker :
			    blocked_worker, p->pi ? stop_requeue_pi : stop_blocked);
	if (err)
		return err;
	bench_gate_open(&r->gate, r->nthreads, r->nthreads);
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

static unsigned described_threads(const struct futex_params *p)
{
	int cpus[FUTEX_MAX_CPUS];

	return nr_threads(p, bench_cpus(cpus, FUTEX_MAX_CPUS));
}

static const char *kind(const struct futex_params *p)
{
	return p->shared ? "shared" : "private";
}

static void hash_describe(const void *params, char *buf, size_t len)
{
	const struct futex_params *p = params;

	snprintf(buf, len, "%u threads, each operating on %lld [%s] futexes for %.3g secs",
		 described_threads(p), p->futexes, kind(p), p->runtime / 1e9);
}

static void lock_pi_describe(const void *params, char *buf, size_t len)
{
	const struct futex_params *p = params;

	snprintf(buf, len, "%u threads doing pi lock/unlock pairing on %s [%s] futex%s for %.3g secs",
		 described_threads(p), p->multi ? "their own" : "one",
		 kind(p), p->multi ? "es" : "", p->runtime / 1e9);
}

static void wake_describe(const void *params, char *buf, size_t len)
{
	const struct futex_params *p = params;

	snprintf(buf, len, "Blocking on %u threads (at [%s] futex), waking up %lld at a time, %lld rounds",
		 described_threads(p), kind(p), p->nwakes, p->repeat);
}

static void wake_parallel_describe(const void *params, char *buf, size_t len)
{
	const struct futex_params *p = params;
	unsigned n = described_threads(p);
	unsigned wakers = p->nwakes && p->nwakes <= n ? (unsigned)p->nwakes : n;

	snprintf(buf, len, "Blocking on %u threads (at [%s] futex), %u threads waking up %u at a time, %lld rounds",
		 n, kind(p), wakers, n / wakers, p->repeat);
}

static void requeue_describe(const void *params, char *buf, size_t len)
{
	const struct futex_params *p = params;
	unsigned n = described_threads(p);

	snprintf(buf, len, "Requeuing %u threads (from [%s] futex1 to %sfutex2), %lld at a time, %lld rounds",
		 n, kind(p), p->pi ? "PI " : "", p->broadcast ? (long long)n :
		 p->nrequeue < n ? p->nrequeue : (long long)n, p->repeat);
}

/* ---- Tables ---------------------------------------------------------- */

#define P(f) offsetof(struct futex_params, f)

#define PARAM_THREADS \
	{ .name = "threads", .type = KSCEN_P_INT, .offset = P(threads), \
	  .def = "0", .min = 0, .max = FUTEX_MAX_THREADS, \
	  .help = "threads; 0: one per CPU (perf's -t)" }
#define PARAM_SHARED \
	{ .name = "shared", .type = KSCEN_P_BOOL, .offset = P(shared), \
	  .def = "false", \
	  .help = "shared futexes instead of FUTEX_PRIVATE_FLAG ones (perf's -S)" }
#define PARAM_MLOCKALL \
	{ .name = "mlockall", .type = KSCEN_P_BOOL, .offset = P(mlockall), \
	  .def = "false", .help = "lock all current and future memory (perf's -m)" }
#define PARAM_RUNTIME \
	{ .name = "runtime", .type = KSCEN_P_TIME, .offset = P(runtime), \
	  .def = "10s", .min = 1000000, .max = 3600000000000LL, \
	  .help = "how long the threads run (perf's -r, in seconds there)" }
#define PARAM_REPEAT \
	{ .name = "repeat", .type = KSCEN_P_INT, .offset = P(repeat), \
	  .def = "10", .min = 1, .max = 100000, \
	  .help = "rounds averaged in one sample (perf bench's -r)" }
#define PARAM_SETTLE \
	{ .name = "settle", .type = KSCEN_P_TIME, .offset = P(settle), \
	  .def = "100ms", .min = 0, .max = 10000000000LL, \
	  .help = "sleep before each timed round, so the threads block (perf: 100ms)" }

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

static const struct kscen_param wake_table[] = {
	PARAM_THREADS,
	{ .name = "nwakes", .type = KSCEN_P_INT, .offset = P(nwakes),
	  .def = "1", .min = 1, .max = INT_MAX,
	  .help = "threads woken per FUTEX_WAKE (perf's -w)" },
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

static const struct kscen_metric_desc throughput_metrics[] = {
	{ .name = "ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
	{ .name = "total ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
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

#define FUTEX_WORKLOAD(sym, nm, ver, sum, tab, met, fn, desc, chk, set)	\
const struct kscen_workload sym = {					\
	.name = nm, .summary = sum, .version = ver,			\
	.params = tab, .nr_params = ARRAY_SIZE(tab),			\
	.params_size = sizeof(struct futex_params),			\
	.metrics = met, .nr_metrics = ARRAY_SIZE(met),			\
	.check = chk, .setup = set, .sample = fn,			\
	.describe = desc,						\
}

FUTEX_WORKLOAD(kscen_wl_futex_hash, "futex.hash", 1,
	       "FUTEX_WAIT that fails at once: futex hash table (perf bench futex hash)",
	       hash_table, throughput_metrics, hash_sample, hash_describe, NULL,
	       futex_setup);
FUTEX_WORKLOAD(kscen_wl_futex_lock_pi, "futex.lock_pi", 1,
	       "FUTEX_LOCK_PI/UNLOCK_PI pairs (perf bench futex lock-pi)",
	       lock_pi_table, throughput_metrics, lock_pi_sample, lock_pi_describe,
	       NULL, futex_setup);
/* 2: the workers leave through pthread_exit(), as perf's */
FUTEX_WORKLOAD(kscen_wl_futex_wake, "futex.wake", 2,
	       "wake threads blocked on one futex, N a call (perf bench futex wake)",
	       wake_table, wake_metrics, wake_sample, wake_describe, NULL,
	       exiting_setup);
/* 2: pthread_exit(), and the wakers released by a barrier, as perf's */
FUTEX_WORKLOAD(kscen_wl_futex_wake_parallel, "futex.wake_parallel", 2,
	       "wake blocked threads from parallel wakers (perf bench futex wake-parallel)",
	       wake_parallel_table, wake_parallel_metrics, wake_parallel_sample,
	       wake_parallel_describe, wake_parallel_check, exiting_setup);
FUTEX_WORKLOAD(kscen_wl_futex_requeue, "futex.requeue", 1,
	       "FUTEX_CMP_REQUEUE blocked threads to a second futex (perf bench futex requeue)",
	       requeue_table, requeue_metrics, requeue_sample, requeue_describe,
	       NULL, futex_setup);
