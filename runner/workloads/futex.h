/* SPDX-License-Identifier: GPL-2.0 */
/*
 * futex.h - what futex.c (the throughput benchmarks, hash and lock_pi) and
 * futex_latency.c (wake, wake_parallel, requeue) share: the parameters,
 * one sample's run and its workers, starting and joining them, and the
 * rows of the parameter tables. Private to those two files (and their
 * unit tests).
 */
#ifndef KSCEN_FUTEX_H
#define KSCEN_FUTEX_H

#include "bench.h"

#include <string.h>
#include <linux/futex.h>

#include "workload.h"

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
	long long waker_cpu;	/* wake: -1, or the CPU its waker is pinned to */
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
	int calling;		/* requeue pi: about to wait */
	struct bench_barrier *barrier;	/* wake_parallel's wakers */
};

static inline unsigned nr_threads(const struct futex_params *p, int nr_cpus)
{
	return p->threads ? (unsigned)p->threads : (unsigned)nr_cpus;
}

static inline void run_init(struct futex_run *r, const struct futex_params *p)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->nr_cpus = bench_cpus(r->cpus, FUTEX_MAX_CPUS);
	r->nthreads = nr_threads(p, r->nr_cpus);
	r->flag = p->shared ? 0 : FUTEX_PRIVATE_FLAG;
}

static inline void join_workers(struct futex_run *r, struct futex_worker *w)
{
	for (unsigned i = 0; i < r->nthreads; i++)
		pthread_join(w[i].thread, NULL);
	bench_gate_destroy(&r->gate);
}

static inline const char *kind(const struct futex_params *p)
{
	return p->shared ? "shared" : "private";
}

/* perf's -m (mlockall): every workload's setup. */
int futex_setup(struct kscen_ctx *ctx);
/* Start r->nthreads pinned workers running @fn (futex.c says more). */
int futex_start_workers(struct kscen_ctx *ctx, struct futex_run *r,
			struct futex_worker *w, void *(*fn)(void *),
			void (*stop)(struct futex_run *));
/*
 * futex_latency.c: wait until every worker waits on futex1 (with pi, until
 * each has set its `calling`), or 10 s.
 */
void futex_wait_queued(struct futex_run *r, struct futex_worker *w);
/* The threads a job will start, for its describe line. */
unsigned futex_described_threads(const struct futex_params *p);

/* Rows the five parameter tables share, and one workload's definition. */
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

#define FUTEX_WORKLOAD(sym, nm, ver, sum, tab, met, fn, desc, chk, set, sup) \
const struct kscen_workload sym = {					\
	.name = nm, .summary = sum, .version = ver,			\
	.params = tab, .nr_params = ARRAY_SIZE(tab),			\
	.params_size = sizeof(struct futex_params),			\
	.metrics = met, .nr_metrics = ARRAY_SIZE(met),			\
	.check = chk, .supported = sup, .setup = set, .sample = fn,	\
	.describe = desc,						\
}

#endif
