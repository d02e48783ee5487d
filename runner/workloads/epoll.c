// SPDX-License-Identifier: GPL-2.0
/*
 * epoll.c - perf bench's epoll collection (tools/perf/bench/epoll-wait.c and
 * epoll-ctl.c, by Davidlohr Bueso) as two kscen workloads.
 *
 *   epoll.wait  worker threads take events one epoll_wait(2) call at a time
 *               from eventfds that a writer thread keeps writing to: the
 *               wake-up and ready-list path. One epoll instance for all
 *               (default) or one per worker (multiq).
 *   epoll.ctl   each worker EPOLL_CTL_ADD/MOD/DELs its own eventfds on the
 *               one shared instance, in order or at random, napping 250 ns
 *               after each round: the rb-tree and the instance's mutex.
 *
 * Parameters carry perf's long option names, and both report perf's
 * per-thread mean (epoll wait: operations/sec; epoll ctl counts per op
 * kind, here per second). perf's `nested` chain of epoll instances is
 * supported. Unlike perf, a sample does not sleep one more second after the
 * run for the workers to drain: the writer keeps writing until they are
 * joined, which ends the run as soon as they see it is over.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>

#include "workload.h"
#include "lib/util.h"


#define EPOLL_MAX_THREADS 1024
#define EPOLL_MAX_CPUS 1024
#define EPOLL_MAX_NESTS 4	/* the kernel's EP_MAX_NESTS */

enum { OP_ADD, OP_MOD, OP_DEL, NR_OPS };

struct epoll_params {
	long long threads, nfds, runtime, nested;
	bool multiq, nonblocking, noaffinity, randomize, oneshot, edge;
};

struct ep_worker {
	struct ep_run *r;
	pthread_t thread;
	int epollfd;		/* wait with multiq: its own; else the shared one */
	int *fdmap;
	unsigned long long ops[NR_OPS];
	int err;
};

struct ep_run {
	const struct epoll_params *p;
	unsigned nthreads;
	struct ep_worker *w;
	struct bench_gate gate;
	volatile bool done, wdone;
	int nest[EPOLL_MAX_NESTS];
	int nr_nest;
	int cpus[EPOLL_MAX_CPUS], nr_cpus;
};

/* perf's -N: @efd watches a chain of `nested` epoll instances. */
static int nest_epoll(struct ep_run *r, int efd)
{
	struct epoll_event ev = { .events = EPOLLHUP };
	int i, n = r->p->nested;

	for (i = 0; i < n; i++)
		if ((r->nest[r->nr_nest++] = epoll_create1(EPOLL_CLOEXEC)) < 0)
			return -errno;
	for (i = n - 1; i > 0; i--)
		if (epoll_ctl(r->nest[r->nr_nest - n + i - 1], EPOLL_CTL_ADD,
			      r->nest[r->nr_nest - n + i], &ev))
			return -errno;
	if (n && epoll_ctl(efd, EPOLL_CTL_ADD, r->nest[r->nr_nest - n], &ev))
		return -errno;
	return 0;
}

/* Raise RLIMIT_NOFILE as perf does: two fds a watched fd, and some. */
static int epoll_setup(struct kscen_ctx *ctx)
{
	const struct epoll_params *p = ctx->params;
	int cpus[EPOLL_MAX_CPUS], n = bench_cpus(cpus, EPOLL_MAX_CPUS);
	long long threads = p->threads ? p->threads : n;
	rlim_t need = p->nfds * threads * 2 + 50 + (EPOLL_MAX_NESTS + 1) * threads;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = need;
	if (rl.rlim_max < need)
		rl.rlim_max = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return kscen_reason(ctx, -errno,
				    "setrlimit(RLIMIT_NOFILE, %llu): %s",
				    (unsigned long long)need, strerror(errno));
	return 0;
}

/* ---- epoll.wait ------------------------------------------------------- */

static void *wait_worker(void *arg)
{
	struct ep_worker *w = arg;
	struct ep_run *r = w->r;
	const struct epoll_params *p = r->p;
	int to = p->nonblocking ? 0 : -1, ret, fd;
	unsigned long long ops = 0;
	struct epoll_event ev;
	uint64_t val;
	ssize_t n;

	bench_gate_wait(&r->gate);
	do {
		/* One event per call: the call itself is what is measured. */
		do {
			ret = epoll_wait(w->epollfd, &ev, 1, to);
		} while (ret < 0 && errno == EINTR);
		if (ret < 0) {
			w->err = errno;
			break;
		}
		if (ret == 0) {
			ops++;
			continue;
		}
		fd = ev.data.fd;
		do {
			n = read(fd, &val, sizeof(val));
		} while (!r->done && n < 0 && errno == EAGAIN);
		if (p->edge) {
			ev.events = EPOLLIN | EPOLLET;
			epoll_ctl(w->epollfd, EPOLL_CTL_ADD, fd, &ev);
		}
		if (p->oneshot) {
			ev.events |= EPOLLIN | EPOLLONESHOT;
			epoll_ctl(w->epollfd, EPOLL_CTL_MOD, fd, &ev);
		}
		ops++;
	} while (!r->done);
	w->ops[0] = ops;
	return NULL;
}

/* Fisher-Yates with rand(), as perf's shuffle(). */
static void shuffle(void *array, size_t n, size_t size)
{
	char *a = array, tmp[sizeof(struct ep_worker)];

	for (size_t i = 1; i < n; i++) {
		size_t j = i + rand() / (RAND_MAX / (n - i) + 1);

		memcpy(tmp, a + j * size, size);
		memcpy(a + j * size, a + i * size, size);
		memcpy(a + i * size, tmp, size);
	}
}

static void *writer(void *arg)
{
	struct ep_run *r = arg;
	const struct epoll_params *p = r->p;
	struct ep_worker **order = kscen_xcalloc(r->nthreads, sizeof(*order));
	const uint64_t val = 1;
	unsigned i;
	ssize_t n;

	for (i = 0; i < r->nthreads; i++)
		order[i] = &r->w[i];
	while (!r->wdone) {
		if (p->randomize)
			shuffle(order, r->nthreads, sizeof(*order));
		for (i = 0; i < r->nthreads; i++) {
			if (p->randomize)
				shuffle(order[i]->fdmap, p->nfds, sizeof(int));
			for (long long j = 0; j < p->nfds; j++)
				do {
					n = write(order[i]->fdmap[j], &val, sizeof(val));
				} while (!r->wdone && n < 0 && errno == EAGAIN);
		}
		bench_sleep_ns(500);
	}
	free(order);
	return NULL;
}

/* ---- epoll.ctl -------------------------------------------------------- */

static void ctl_op(struct ep_worker *w, int op, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = fd };
	int ret;

	switch (op) {
	case OP_ADD:
		ret = epoll_ctl(w->epollfd, EPOLL_CTL_ADD, fd, &ev);
		break;
	case OP_MOD:
		ev.events = EPOLLOUT;
		ret = epoll_ctl(w->epollfd, EPOLL_CTL_MOD, fd, &ev);
		break;
	default:
		ret = epoll_ctl(w->epollfd, EPOLL_CTL_DEL, fd, NULL);
		break;
	}
	/* As perf: only the calls that succeed count. */
	if (!ret)
		w->ops[op]++;
}

static void *ctl_worker(void *arg)
{
	struct ep_worker *w = arg;
	struct ep_run *r = w->r;
	long long i, nfds = r->p->nfds;

	bench_gate_wait(&r->gate);
	do {
		if (r->p->randomize) {
			long r1 = random(), r2 = random();

			ctl_op(w, r2 % NR_OPS, w->fdmap[r1 % nfds]);
		} else {
			for (i = 0; i < nfds; i++) {
				ctl_op(w, OP_ADD, w->fdmap[i]);
				ctl_op(w, OP_MOD, w->fdmap[i]);
				ctl_op(w, OP_DEL, w->fdmap[i]);
			}
		}
		/* perf's 250 ns nap after each round: part of what it measures. */
		bench_sleep_ns(250);
	} while (!r->done);
	return NULL;
}

/* ---- Both ------------------------------------------------------------- */

static void run_free(struct ep_run *r, int shared_efd)
{
	for (unsigned i = 0; i < r->nthreads; i++) {
		struct ep_worker *w = &r->w[i];

		if (w->fdmap)
			for (long long j = 0; j < r->p->nfds; j++)
				kscen_close_fd(&w->fdmap[j]);
		free(w->fdmap);
		if (w->epollfd != shared_efd)
			kscen_close_fd(&w->epollfd);
	}
	for (int i = 0; i < r->nr_nest; i++)
		kscen_close_fd(&r->nest[i]);
	free(r->w);
	free(r);
}

/* Make the epoll instances and the eventfds; nothing runs yet. */
static int prepare(struct kscen_ctx *ctx, struct ep_run *r, bool wait,
		   int *shared_efd)
{
	const struct epoll_params *p = r->p;
	unsigned events = EPOLLIN | (p->oneshot ? EPOLLONESHOT : 0) |
			  (p->edge ? EPOLLET : 0);
	struct epoll_event ev;
	bool own = wait && p->multiq;	/* ctl: one instance, as perf */
	int ret;

	if (!own) {
		*shared_efd = epoll_create1(EPOLL_CLOEXEC);
		if (*shared_efd < 0 || (ret = nest_epoll(r, *shared_efd)))
			goto fail;
	}
	for (unsigned i = 0; i < r->nthreads; i++) {
		struct ep_worker *w = &r->w[i];

		w->r = r;
		w->epollfd = own ? epoll_create1(EPOLL_CLOEXEC) : *shared_efd;
		if (w->epollfd < 0)
			goto fail;
		if (own && nest_epoll(r, w->epollfd))
			goto fail;
		w->fdmap = kscen_xcalloc(p->nfds, sizeof(int));
		for (long long j = 0; j < p->nfds; j++)
			w->fdmap[j] = -1;
		for (long long j = 0; j < p->nfds; j++) {
			w->fdmap[j] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
			if (w->fdmap[j] < 0)
				goto fail;
			ev.data.fd = w->fdmap[j];
			ev.events = events;
			/* ctl with randomize starts with half of them added. */
			if ((wait || (p->randomize && j % 2 == 0)) &&
			    epoll_ctl(w->epollfd, EPOLL_CTL_ADD, w->fdmap[j], &ev))
				goto fail;
		}
	}
	return 0;
fail:
	ret = errno;
	return kscen_reason(ctx, -ret, "epoll setup: %s", strerror(ret));
}

static int epoll_run(struct kscen_ctx *ctx, double *values, bool wait)
{
	const struct epoll_params *p = ctx->params;
	struct ep_run *r = kscen_xcalloc(1, sizeof(*r));
	int shared_efd = -1, ret, err = 0;
	pthread_t wthread;
	pthread_attr_t attr;
	unsigned i, created = 0;
	long long start, ns;
	double sum[NR_OPS] = { 0 };

	r->p = p;
	r->nr_cpus = bench_cpus(r->cpus, EPOLL_MAX_CPUS);
	/* perf leaves one CPU to the writer for wait. */
	r->nthreads = p->threads ? p->threads :
		      wait && r->nr_cpus > 1 ? r->nr_cpus - 1 : r->nr_cpus;
	r->w = kscen_xcalloc(r->nthreads, sizeof(*r->w));
	for (i = 0; i < r->nthreads; i++)
		r->w[i].epollfd = -1;
	ret = prepare(ctx, r, wait, &shared_efd);
	if (ret)
		goto out;

	bench_gate_init(&r->gate, r->nthreads);
	for (created = 0; created < r->nthreads && !err; created++) {
		pthread_attr_init(&attr);
		if (!p->noaffinity)
			err = bench_attr_pin(&attr, r->cpus[created % r->nr_cpus]);
		if (!err)
			err = pthread_create(&r->w[created].thread, &attr,
					     wait ? wait_worker : ctl_worker,
					     &r->w[created]);
		pthread_attr_destroy(&attr);
		if (err)
			break;
	}
	if (err)
		r->done = true;
	bench_gate_open(&r->gate, created, r->nthreads);
	/* The writer runs until every worker is joined, so none stays blocked. */
	if (wait && (ret = pthread_create(&wthread, NULL, writer, r))) {
		r->done = true;
		err = err ? err : ret;
		wait = false;
		/* Blocked workers: a write to each of their fds wakes them. */
		for (i = 0; i < created; i++)
			for (long long j = 0; j < p->nfds; j++)
				if (write(r->w[i].fdmap[j], &(uint64_t){ 1 }, 8) < 0)
					break;
	}
	start = kscen_now_ns();
	if (!err)
		bench_sleep_ns(p->runtime);
	r->done = true;
	ns = kscen_now_ns() - start;
	for (i = 0; i < created; i++)
		pthread_join(r->w[i].thread, NULL);
	if (wait) {
		r->wdone = true;
		pthread_join(wthread, NULL);
	}
	bench_gate_destroy(&r->gate);
	if (err) {
		ret = kscen_reason(ctx, -err, "pthread_create: %s", strerror(err));
		goto out;
	}
	for (i = 0; i < r->nthreads; i++) {
		if (r->w[i].err) {
			ret = kscen_reason(ctx, -r->w[i].err, "epoll_wait: %s",
					   strerror(r->w[i].err));
			goto out;
		}
		for (int k = 0; k < NR_OPS; k++)
			sum[k] += r->w[i].ops[k] / (ns / 1e9);
	}
	for (int k = 0; k < (wait ? 1 : NR_OPS); k++)
		values[k] = sum[k] / r->nthreads;
out:
	run_free(r, shared_efd);
	kscen_close_fd(&shared_efd);
	return ret;
}

static int wait_sample(struct kscen_ctx *ctx, double *values)
{
	return epoll_run(ctx, values, true);
}

static int ctl_sample(struct kscen_ctx *ctx, double *values)
{
	return epoll_run(ctx, values, false);
}

static unsigned described_threads(const struct epoll_params *p, bool wait)
{
	int cpus[EPOLL_MAX_CPUS], n = bench_cpus(cpus, EPOLL_MAX_CPUS);

	return p->threads ? p->threads : wait && n > 1 ? n - 1 : n;
}

static void wait_describe(const void *params, char *buf, size_t len)
{
	const struct epoll_params *p = params;

	snprintf(buf, len, "%u threads monitoring%s on %lld file-descriptors for %.3g secs (%s queue%s%s)",
		 described_threads(p, true),
		 p->oneshot ? " (EPOLLONESHOT semantics)" : "", p->nfds,
		 p->runtime / 1e9, p->multiq ? "multi" : "single",
		 p->edge ? ", edge-triggered" : "",
		 p->nonblocking ? ", nonblocking" : "");
}

static void ctl_describe(const void *params, char *buf, size_t len)
{
	const struct epoll_params *p = params;

	snprintf(buf, len, "%u threads doing epoll_ctl ops %lld file-descriptors for %.3g secs%s",
		 described_threads(p, false), p->nfds, p->runtime / 1e9,
		 p->randomize ? " (random ops on random fds)" : "");
}

#define P(f) offsetof(struct epoll_params, f)
#define BOOLP(n, h) { .name = #n, .type = KSCEN_P_BOOL, .offset = P(n), \
		      .def = "false", .help = h }
#define COMMON_PARAMS(nthr)						\
	{ .name = "threads", .type = KSCEN_P_INT, .offset = P(threads),	\
	  .def = "0", .min = 0, .max = EPOLL_MAX_THREADS, .help = nthr },	\
	{ .name = "nfds", .type = KSCEN_P_INT, .offset = P(nfds),	\
	  .def = "64", .min = 1, .max = 65536,				\
	  .help = "file descriptors per thread (perf's -f)" },		\
	{ .name = "runtime", .type = KSCEN_P_TIME, .offset = P(runtime),	\
	  .def = "8s", .min = 1000000, .max = 3600000000000LL,		\
	  .help = "how long the threads run (perf's -r, in seconds there)" }, \
	{ .name = "nested", .type = KSCEN_P_INT, .offset = P(nested),	\
	  .def = "0", .min = 0, .max = EPOLL_MAX_NESTS,			\
	  .help = "nesting level of the epoll hierarchy (perf's -N)" },	\
	BOOLP(noaffinity, "do not pin the threads to CPUs (perf's -n)"),	\
	BOOLP(randomize, "random order (perf's -R)")

static const struct kscen_param wait_table[] = {
	COMMON_PARAMS("worker threads; 0: one per CPU but one, left to the writer (perf's -t)"),
	BOOLP(multiq, "one epoll instance per thread (perf's -m)"),
	BOOLP(nonblocking, "epoll_wait with timeout 0 (perf's -B)"),
	BOOLP(oneshot, "EPOLLONESHOT, rearmed after each event (perf's -S)"),
	BOOLP(edge, "edge-triggered, EPOLLET (perf's -E)"),
};

static const struct kscen_param ctl_table[] = {
	COMMON_PARAMS("threads; 0: one per CPU (perf's -t)"),
};

static const struct kscen_metric_desc wait_metrics[] = {
	{ .name = "ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
};

static const struct kscen_metric_desc ctl_metrics[] = {
	{ .name = "ADD ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
	{ .name = "MOD ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
	{ .name = "DEL ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
};

const struct kscen_workload kscen_wl_epoll_wait = {
	.name = "epoll.wait",
	.summary = "threads take eventfd events one epoll_wait at a time (perf bench epoll wait)",
	.version = 1,
	.params = wait_table, .nr_params = ARRAY_SIZE(wait_table),
	.params_size = sizeof(struct epoll_params),
	.metrics = wait_metrics, .nr_metrics = ARRAY_SIZE(wait_metrics),
	.setup = epoll_setup, .sample = wait_sample, .describe = wait_describe,
};

const struct kscen_workload kscen_wl_epoll_ctl = {
	.name = "epoll.ctl",
	.summary = "EPOLL_CTL_ADD/MOD/DEL on eventfds (perf bench epoll ctl)",
	.version = 1,
	.params = ctl_table, .nr_params = ARRAY_SIZE(ctl_table),
	.params_size = sizeof(struct epoll_params),
	.metrics = ctl_metrics, .nr_metrics = ARRAY_SIZE(ctl_metrics),
	.setup = epoll_setup, .sample = ctl_sample, .describe = ctl_describe,
};
