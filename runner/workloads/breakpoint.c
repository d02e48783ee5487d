// SPDX-License-Identifier: GPL-2.0
/*
 * breakpoint.c - perf bench's breakpoint collection as two kscen workloads.
 *
 * Both measure what inheritable hardware breakpoints cost a threaded process.
 * breakpoint.thread opens N breakpoints and times thread create/exit/join,
 * where every new thread inherits (reserves and releases) a debug slot per
 * breakpoint. breakpoint.enable times disabling and enabling one breakpoint
 * whose child events live in blocked ("passive") or spinning ("active")
 * threads. The event attributes, thread shapes and timed regions follow
 * tools/perf/bench/breakpoint.c, so results compare with perf bench's.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "workload.h"
#include "lib/util.h"


/* More than any architecture has slots; the kernel refuses the rest. */
#define BP_MAX 64

/* ---- Shared by both modules ------------------------------------------- */

/*
 * Shared, not FUTEX_PRIVATE_FLAG, futex ops: perf bench's futex.h uses
 * these, and the private ones skip a lookup that perf's numbers include.
 */
static void futex_wait(unsigned int *word, unsigned int val)
{
	syscall(SYS_futex, word, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake(unsigned int *word, int nr)
{
	syscall(SYS_futex, word, FUTEX_WAKE, nr, NULL, NULL, 0);
}

/* A thread that only carries inherited events: it sleeps until *done. */
static void *passive_thread(void *arg)
{
	unsigned int *done = arg;

	while (!__atomic_load_n(done, __ATOMIC_RELAXED))
		futex_wait(done, 0);
	return NULL;
}

/* Keeps its inherited events scheduled in on a CPU until *done. */
static void *active_thread(void *arg)
{
	unsigned int *done = arg;

	while (!__atomic_load_n(done, __ATOMIC_RELAXED))
		;
	return NULL;
}

static long long elapsed_ns(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

/* "1120" -> "1,120", as perf's headers read best with large counts. */
static void group_digits(long long v, char *buf, size_t len)
{
	char raw[32], out[48];
	int n, i, j = 0;

	n = snprintf(raw, sizeof(raw), "%lld", v);
	for (i = 0; i < n; i++) {
		if (i && raw[i - 1] != '-' && (n - i) % 3 == 0)
			out[j++] = ',';
		out[j++] = raw[i];
	}
	out[j] = '\0';
	snprintf(buf, len, "%s", out);
}

static const char *open_hint(int err)
{
	switch (err) {
	case ENOSPC:
#if defined(__x86_64__) || defined(__i386__)
		return "x86 has 4 debug address registers";
#else
		return "no free hardware breakpoint slot";
#endif
	case ENODEV:
		return "no hardware breakpoint support";
	case ENOENT:
		return "no breakpoint PMU";
	default:
		return "breakpoints not supported here";
	}
}

/*
 * Open a read/write breakpoint on @addr, counted for this process and
 * inherited by every thread it creates later. Missing hardware, slots or
 * privilege is a skip, not a failure: the job cannot run on this machine.
 */
static int bp_open(struct kscen_ctx *ctx, char *addr, long long nth,
		   long long nr, int *fd)
{
	struct perf_event_attr attr;
	char paranoid[16];
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.size = sizeof(attr);
	attr.inherit = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.bp_addr = (unsigned long)addr;
	attr.bp_type = HW_BREAKPOINT_RW;
	attr.bp_len = HW_BREAKPOINT_LEN_1;

	*fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (*fd >= 0)
		return 0;

	err = errno;
	switch (err) {
	case ENOSPC:
	case ENODEV:
	case ENOENT:
	case EOPNOTSUPP:
		return kscen_reason(ctx, KSCEN_SKIP,
				    "perf_event_open breakpoint %lld of %lld: %s (%s)",
				    nth, nr, strerror(err), open_hint(err));
	case EACCES:
	case EPERM:
		if (kscen_perf_paranoid() == KSCEN_PARANOID_UNKNOWN)
			snprintf(paranoid, sizeof(paranoid), "?");
		else
			snprintf(paranoid, sizeof(paranoid), "%d",
				 kscen_perf_paranoid());
		return kscen_reason(ctx, KSCEN_SKIP,
				    "needs root or CAP_PERFMON (perf_event_paranoid=%s)",
				    paranoid);
	default:
		return kscen_reason(ctx, -err,
				    "perf_event_open breakpoint %lld of %lld: %s",
				    nth, nr, strerror(err));
	}
}

/* ---- breakpoint.thread -------------------------------------------------- */

struct bp_thread_params {
	long long breakpoints;
	long long parallelism;
	long long threads;
	long long loops;
};

struct bp_thread {
	const struct bp_thread_params *p;
	int fds[BP_MAX];
	int nr_fds;
	/* One byte per breakpoint, in its own block so no access strays on it. */
	char *watched;
	long long batches;	/* left to run, shared by the parallel threads */
	int err;		/* first failure in a parallel thread, errno */
	const char *err_op;
};

/* The first failure wins; the others stop taking batches. */
static void bp_thread_fail(struct bp_thread *bt, int err, const char *op)
{
	int none = 0;

	if (__atomic_compare_exchange_n(&bt->err, &none, err, false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		bt->err_op = op;
	__atomic_store_n(&bt->batches, 0, __ATOMIC_RELAXED);
}

/*
 * One batch, perf's op times @threads: create the threads, wake them and
 * join them. Whatever was created is joined even if a create fails.
 */
static int bp_thread_batch(struct bp_thread *bt, pthread_t *threads)
{
	unsigned int done = 0;
	long long i, n;
	int err = 0;

	for (n = 0; n < bt->p->threads; n++) {
		err = pthread_create(&threads[n], NULL, passive_thread, &done);
		if (err)
			break;
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELAXED);
	futex_wake(&done, (int)n);
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	if (err)
		bp_thread_fail(bt, err, "pthread_create");
	return err;
}

/* Takes batches off the shared count until it runs out. */
static void *bp_thread_parallel(void *arg)
{
	struct bp_thread *bt = arg;
	pthread_t *threads;

	/* Inside the timed region, where perf allocates it too. */
	threads = kscen_xcalloc(bt->p->threads, sizeof(*threads));
	while (__atomic_fetch_sub(&bt->batches, 1, __ATOMIC_RELAXED) > 0) {
		if (bp_thread_batch(bt, threads))
			break;
	}
	free(threads);
	return NULL;
}

static void bp_thread_free(struct bp_thread *bt)
{
	int i;

	if (!bt)
		return;
	/* Close before freeing the watched bytes: free() writes into them. */
	for (i = 0; i < bt->nr_fds; i++)
		close(bt->fds[i]);
	free(bt->watched);
	free(bt);
}

static int bp_thread_setup(struct kscen_ctx *ctx)
{
	const struct bp_thread_params *p = ctx->params;
	struct bp_thread *bt;
	long long i;
	int ret;

	bt = kscen_xcalloc(1, sizeof(*bt));
	bt->p = p;
	bt->watched = kscen_xcalloc(BP_MAX, 1);
	for (i = 0; i < p->breakpoints; i++) {
		ret = bp_open(ctx, &bt->watched[i], i + 1, p->breakpoints,
			      &bt->fds[i]);
		if (ret) {
			bp_thread_free(bt);
			return ret;
		}
		bt->nr_fds++;
	}
	ctx->priv = bt;
	return 0;
}

/* Timed as perf times it: from creating the parallel threads to joining them. */
static int bp_thread_sample(struct kscen_ctx *ctx, double *values)
{
	struct bp_thread *bt = ctx->priv;
	const struct bp_thread_params *p = bt->p;
	struct timespec start, stop;
	pthread_t *parallel;
	long long i, n;
	int err = 0;

	parallel = kscen_xcalloc(p->parallelism, sizeof(*parallel));
	bt->batches = p->loops;
	bt->err = 0;
	bt->err_op = NULL;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (n = 0; n < p->parallelism; n++) {
		err = pthread_create(&parallel[n], NULL, bp_thread_parallel, bt);
		if (err) {
			__atomic_store_n(&bt->batches, 0, __ATOMIC_RELAXED);
			break;
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(parallel[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &stop);
	free(parallel);

	if (err)
		return kscen_reason(ctx, -err,
				    "pthread_create parallel thread %lld of %lld: %s",
				    n + 1, p->parallelism, strerror(err));
	if (bt->err)
		return kscen_reason(ctx, -bt->err,
				    "%s in a batch of %lld threads: %s",
				    bt->err_op, p->threads, strerror(bt->err));

	values[0] = elapsed_ns(&start, &stop) / 1e3 / p->loops / p->threads;
	values[1] = values[0] * p->parallelism;
	return 0;
}

static void bp_thread_teardown(struct kscen_ctx *ctx)
{
	bp_thread_free(ctx->priv);
	ctx->priv = NULL;
}

/*
 * perf prints its --repeat here as the thread count; this is the number of
 * threads actually created.
 */
static void bp_thread_describe(const void *params, char *buf, size_t len)
{
	const struct bp_thread_params *p = params;
	char nr[48];

	group_digits(p->loops * p->threads, nr, sizeof(nr));
	snprintf(buf, len,
		 "Created/joined %s thread%s with %lld breakpoint%s and %lld parallelism",
		 nr, p->loops * p->threads == 1 ? "" : "s", p->breakpoints,
		 p->breakpoints == 1 ? "" : "s", p->parallelism);
}

static const struct kscen_param bp_thread_param_table[] = {
	{
		.name = "breakpoints", .type = KSCEN_P_INT, .def = "1",
		.offset = offsetof(struct bp_thread_params, breakpoints),
		.min = 0, .max = BP_MAX,
		.help = "inherited breakpoints to open; more than the CPU's slots is a skip",
	},
	{
		.name = "parallelism", .type = KSCEN_P_INT, .def = "1",
		.offset = offsetof(struct bp_thread_params, parallelism),
		.min = 1, .max = 4096,
		.help = "threads running batches at once",
	},
	{
		.name = "threads", .type = KSCEN_P_INT, .def = "1",
		.offset = offsetof(struct bp_thread_params, threads),
		.min = 1, .max = 65536,
		.help = "threads each batch creates, wakes and joins",
	},
	{
		.name = "loops", .type = KSCEN_P_INT, .def = "10",
		.offset = offsetof(struct bp_thread_params, loops),
		.min = 1, .max = 100000000,
		.help = "batches in all, shared by the parallel threads (perf's --repeat)",
	},
};

static const struct kscen_metric_desc bp_thread_metrics[] = {
	{ .name = "usecs/op", .unit = "usecs/op", .better = KSCEN_LOWER },
	{ .name = "usecs/op/cpu", .unit = "usecs/op/cpu", .better = KSCEN_LOWER },
};

const struct kscen_workload kscen_wl_breakpoint_thread = {
	.name = "breakpoint.thread",
	.summary = "thread create/exit/join with inherited breakpoints (perf bench)",
	.version = 1,
	.params = bp_thread_param_table,
	.nr_params = ARRAY_SIZE(bp_thread_param_table),
	.params_size = sizeof(struct bp_thread_params),
	.metrics = bp_thread_metrics,
	.nr_metrics = ARRAY_SIZE(bp_thread_metrics),
	.setup = bp_thread_setup,
	.sample = bp_thread_sample,
	.teardown = bp_thread_teardown,
	.describe = bp_thread_describe,
};

/* ---- breakpoint.enable -------------------------------------------------- */

struct bp_enable_params {
	long long passive;
	long long active;
	long long loops;
};

struct bp_enable {
	const struct bp_enable_params *p;
	int fd;
	char *watched;
	unsigned int done;	/* futex word: set to stop the threads */
	pthread_t *threads;
	long long nr_threads;	/* started so far; teardown joins them */
};

static void bp_enable_free(struct bp_enable *be)
{
	long long i;

	if (!be)
		return;
	__atomic_store_n(&be->done, 1, __ATOMIC_RELAXED);
	futex_wake(&be->done, INT_MAX);
	for (i = 0; i < be->nr_threads; i++)
		pthread_join(be->threads[i], NULL);
	if (be->fd >= 0)
		close(be->fd);
	free(be->threads);
	free(be->watched);
	free(be);
}

/* After the open, so that each thread inherits a child event. */
static int bp_enable_start_threads(struct kscen_ctx *ctx, struct bp_enable *be)
{
	const struct bp_enable_params *p = be->p;
	long long nr = p->passive + p->active;
	void *(*fn)(void *);
	int err;

	be->threads = kscen_xcalloc(nr ? nr : 1, sizeof(*be->threads));
	while (be->nr_threads < nr) {
		fn = be->nr_threads < p->passive ? passive_thread : active_thread;
		err = pthread_create(&be->threads[be->nr_threads], NULL, fn,
				     &be->done);
		if (err)
			return kscen_reason(ctx, -err,
					    "pthread_create thread %lld of %lld: %s",
					    be->nr_threads + 1, nr, strerror(err));
		be->nr_threads++;
	}
	return 0;
}

static int bp_enable_setup(struct kscen_ctx *ctx)
{
	struct bp_enable *be;
	int ret;

	be = kscen_xcalloc(1, sizeof(*be));
	be->p = ctx->params;
	be->watched = kscen_xcalloc(1, 1);
	ret = bp_open(ctx, be->watched, 1, 1, &be->fd);
	if (!ret)
		ret = bp_enable_start_threads(ctx, be);
	if (ret) {
		bp_enable_free(be);
		return ret;
	}
	/* As perf does: let passive threads block and active ones get going. */
	usleep(10000);
	ctx->priv = be;
	return 0;
}

/* op = one PERF_EVENT_IOC_DISABLE + PERF_EVENT_IOC_ENABLE pair. */
static int bp_enable_sample(struct kscen_ctx *ctx, double *values)
{
	struct bp_enable *be = ctx->priv;
	struct timespec start, stop;
	long long i;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < be->p->loops; i++) {
		if (ioctl(be->fd, PERF_EVENT_IOC_DISABLE, 0))
			return kscen_reason(ctx, -errno,
					    "ioctl(PERF_EVENT_IOC_DISABLE): %s",
					    strerror(errno));
		if (ioctl(be->fd, PERF_EVENT_IOC_ENABLE, 0))
			return kscen_reason(ctx, -errno,
					    "ioctl(PERF_EVENT_IOC_ENABLE): %s",
					    strerror(errno));
	}
	clock_gettime(CLOCK_MONOTONIC, &stop);

	values[0] = elapsed_ns(&start, &stop) / 1e3 / be->p->loops;
	return 0;
}

static void bp_enable_teardown(struct kscen_ctx *ctx)
{
	bp_enable_free(ctx->priv);
	ctx->priv = NULL;
}

static void bp_enable_describe(const void *params, char *buf, size_t len)
{
	const struct bp_enable_params *p = params;
	char nr[48];

	group_digits(p->loops, nr, sizeof(nr));
	snprintf(buf, len,
		 "Disabled/enabled breakpoint %s time%s with %lld passive and %lld active thread%s",
		 nr, p->loops == 1 ? "" : "s", p->passive, p->active,
		 p->active == 1 ? "" : "s");
}

static const struct kscen_param bp_enable_param_table[] = {
	{
		.name = "passive", .type = KSCEN_P_INT, .def = "0",
		.offset = offsetof(struct bp_enable_params, passive),
		.min = 0, .max = 65536,
		.help = "threads blocked in futex_wait, each with an inherited event",
	},
	{
		.name = "active", .type = KSCEN_P_INT, .def = "0",
		.offset = offsetof(struct bp_enable_params, active),
		.min = 0, .max = 65536,
		.help = "threads spinning on a CPU, each with an inherited event",
	},
	{
		.name = "loops", .type = KSCEN_P_INT, .def = "10",
		.offset = offsetof(struct bp_enable_params, loops),
		.min = 1, .max = 100000000,
		.help = "disable+enable pairs to time (perf's --repeat)",
	},
};

static const struct kscen_metric_desc bp_enable_metrics[] = {
	{ .name = "usecs/op", .unit = "usecs/op", .better = KSCEN_LOWER },
};

const struct kscen_workload kscen_wl_breakpoint_enable = {
	.name = "breakpoint.enable",
	.summary = "disable+enable an inherited breakpoint under threads (perf bench)",
	.version = 1,
	.params = bp_enable_param_table,
	.nr_params = ARRAY_SIZE(bp_enable_param_table),
	.params_size = sizeof(struct bp_enable_params),
	.metrics = bp_enable_metrics,
	.nr_metrics = ARRAY_SIZE(bp_enable_metrics),
	.setup = bp_enable_setup,
	.sample = bp_enable_sample,
	.teardown = bp_enable_teardown,
	.describe = bp_enable_describe,
};
