/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - small helpers the perf-bench twins share (futex.c, epoll.c,
 * mem.c, ...): a monotonic clock, the CPUs a thread may be pinned to (perf
 * bench pins worker i to CPU i % nr_cpus of the online map), a start gate so
 * that every worker is created before the clock starts, and one futex call.
 * Static inline: each module keeps its own copy, no state is shared.
 */
#ifndef KSCEN_WL_BENCH_H
#define KSCEN_WL_BENCH_H

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "lib/child.h"

/*
 * The CPUs a sample may run on, in order; returns how many (>= 1). Not
 * this process's own: the runner, where a describe line or a setup is
 * made, is pinned to the harness's one CPU (lib/child.h), and "one worker a
 * CPU" counts the CPUs kscen was given, as a sample process has them.
 */
static inline int bench_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (kscen_harness_allowed(&set) == 0)
		for (int c = 0; c < CPU_SETSIZE && n < max; c++)
			if (CPU_ISSET(c, &set))
				cpus[n++] = c;
	if (!n)
		cpus[n++] = 0;
	return n;
}

/* Attributes that pin a new thread to @cpu, as perf bench's workers are. */
static inline int bench_attr_pin(pthread_attr_t *attr, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_attr_setaffinity_np(attr, sizeof(set), &set);
}

/*
 * The start gate: workers check in, then wait until the parent opens the
 * gate, so no worker runs before all exist (perf's thread_parent and
 * thread_worker condition variables).
 */
struct bench_gate {
	pthread_mutex_t lock;
	pthread_cond_t parent, worker;
	unsigned starting;
	bool open;
};

static inline void bench_gate_init(struct bench_gate *g, unsigned n)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->parent, NULL);
	pthread_cond_init(&g->worker, NULL);
	g->starting = n;
	g->open = false;
}

static inline void bench_gate_destroy(struct bench_gate *g)
{
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->parent);
	pthread_cond_destroy(&g->worker);
}

static inline void bench_gate_wait(struct bench_gate *g)
{
	pthread_mutex_lock(&g->lock);
	if (--g->starting == 0)
		pthread_cond_signal(&g->parent);
	while (!g->open)
		pthread_cond_wait(&g->worker, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

/* Wait until @n workers (n <= the count given to init) checked in; open. */
static inline void bench_gate_open(struct bench_gate *g, unsigned created,
				   unsigned total)
{
	pthread_mutex_lock(&g->lock);
	g->starting -= total - created;	/* those never created */
	while (g->starting)
		pthread_cond_wait(&g->parent, &g->lock);
	g->open = true;
	pthread_cond_broadcast(&g->worker);
	pthread_mutex_unlock(&g->lock);
}

/*
 * A one-use barrier for @n threads, as perf's pthread_barrier_wait(): each
 * arrival counts down, the last one wakes all the others with one
 * FUTEX_WAKE, and they leave at once, none waiting for a lock after it
 * (a condition variable's waiters would take its mutex one at a time).
 * bench_barrier_wait_n() arrives for several, so that a thread that could
 * not be created does not leave the others waiting.
 */
struct bench_barrier {
	unsigned left, open;
};

static inline void bench_barrier_init(struct bench_barrier *b, unsigned n)
{
	b->left = n;
	b->open = 0;
}

static inline void bench_barrier_wait_n(struct bench_barrier *b, unsigned n)
{
	if (__atomic_sub_fetch(&b->left, n, __ATOMIC_ACQ_REL) == 0) {
		__atomic_store_n(&b->open, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &b->open, FUTEX_WAKE_PRIVATE, 0x7fffffff,
			NULL, NULL, 0);
		return;
	}
	while (!__atomic_load_n(&b->open, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &b->open, FUTEX_WAIT_PRIVATE, 0, NULL,
			NULL, 0);
}

static inline void bench_barrier_wait(struct bench_barrier *b)
{
	bench_barrier_wait_n(b, 1);
}

/* A futex op with perf bench's futex.h argument order; -errno on error. */
static inline long bench_futex(unsigned *uaddr, int op, unsigned val,
			       const struct timespec *ts, unsigned *uaddr2,
			       unsigned val3, int flags)
{
	long r = syscall(SYS_futex, uaddr, op | flags, val, ts, uaddr2, val3);

	return r < 0 ? -errno : r;
}

/* Sleep @ns, resuming after signals. */
static inline void bench_sleep_ns(long long ns)
{
	struct timespec t = { ns / 1000000000LL, ns % 1000000000LL };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

#endif
