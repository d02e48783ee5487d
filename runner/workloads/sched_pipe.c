// SPDX-License-Identifier: GPL-2.0
/*
 * sched_pipe.c - sched.pipe: perf bench sched pipe (Ingo Molnar's
 * pipe-test-1m). Two tasks ping-pong an int over two pipes `loops` times;
 * each round trip is two context switches, so usecs/op is mostly the cost of
 * a wake-up and a switch. As in tools/perf/bench/sched-pipe.c the pipes are
 * made before the clock starts and creating the second task (fork or
 * pthread_create) and reaping it are inside the timed region.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "workload.h"
#include "lib/util.h"
#include "lib/child.h"


enum { PIPE_PROCESS, PIPE_THREAD };

struct pipe_params {
	long long loops;
	int mode;
};

struct pipe_task {
	int nr;			/* 0 reads first, 1 writes first */
	int rd, wr;
	long long loops;
	int err;
	pthread_t tid;
};

struct pipe_state {
	const struct pipe_params *p;
	int p1[2], p2[2];	/* -1 once closed */
	struct pipe_task task[2];
};

static int pipe_worker(struct pipe_task *t)
{
	int m = 0;
	long long i;

	for (i = 0; i < t->loops; i++) {
		if (t->nr == 0) {
			if (read(t->rd, &m, sizeof(m)) != sizeof(m))
				return errno ? errno : EPIPE;
			if (write(t->wr, &m, sizeof(m)) != sizeof(m))
				return errno ? errno : EPIPE;
		} else {
			if (write(t->wr, &m, sizeof(m)) != sizeof(m))
				return errno ? errno : EPIPE;
			if (read(t->rd, &m, sizeof(m)) != sizeof(m))
				return errno ? errno : EPIPE;
		}
	}
	return 0;
}

static void *pipe_thread(void *arg)
{
	struct pipe_task *t = arg;

	errno = 0;
	t->err = pipe_worker(t);
	return NULL;
}

static void pipe_free(struct pipe_state *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < 2; i++) {
		kscen_close_fd(&s->p1[i]);
		kscen_close_fd(&s->p2[i]);
	}
	free(s);
}

static int pipe_setup(struct kscen_ctx *ctx)
{
	const struct pipe_params *p = ctx->params;
	struct pipe_state *s;
	int err;

	s = kscen_xcalloc(1, sizeof(*s));
	s->p = p;
	s->p1[0] = s->p1[1] = s->p2[0] = s->p2[1] = -1;
	if (pipe(s->p1) || pipe(s->p2)) {
		err = errno;
		pipe_free(s);
		return kscen_reason(ctx, -err, "pipe: %s", strerror(err));
	}
	s->task[0] = (struct pipe_task){ .nr = 0, .rd = s->p1[0],
					 .wr = s->p2[1], .loops = p->loops };
	s->task[1] = (struct pipe_task){ .nr = 1, .rd = s->p2[0],
					 .wr = s->p1[1], .loops = p->loops };
	ctx->priv = s;
	return 0;
}

/*
 * Each process closes the ends it does not use, so that if one side dies
 * the other reads end-of-file instead of waiting for the timeout.
 */
/* The forked side: the ends it does not use closed, then the ping-pong. */
static int pipe_child(void *arg)
{
	struct pipe_state *s = arg;

	close(s->p1[1]);
	close(s->p2[0]);
	errno = 0;
	return pipe_worker(&s->task[0]);
}

static int pipe_processes(struct kscen_ctx *ctx, struct pipe_state *s)
{
	struct kscen_child c = { .fn = pipe_child, .arg = s,
				 .flags = KSCEN_CHILD_PDEATHSIG };
	char how[96];
	int err;

	err = kscen_child_start(&c);
	if (err)
		return kscen_reason(ctx, err, "fork: %s", strerror(-err));
	kscen_close_fd(&s->p1[0]);
	kscen_close_fd(&s->p2[1]);
	errno = 0;
	err = pipe_worker(&s->task[1]);
	kscen_child_reap(&c);
	if (err)
		return kscen_reason(ctx, -err, "ping-pong: %s", strerror(err));
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status))
		return kscen_reason(ctx, -EIO, "the other process %s",
				    kscen_wait_status_text(c.status, how, sizeof(how)));
	return 0;
}

static int pipe_threads(struct kscen_ctx *ctx, struct pipe_state *s)
{
	int i, n, err = 0;

	for (n = 0; n < 2; n++) {
		err = pthread_create(&s->task[n].tid, NULL, pipe_thread,
				     &s->task[n]);
		if (err)
			break;
	}
	if (err && n == 1) {
		/* Unblock the one that started: it reads end-of-file. */
		kscen_close_fd(&s->p1[1]);
	}
	for (i = 0; i < n; i++)
		pthread_join(s->task[i].tid, NULL);
	if (err)
		return kscen_reason(ctx, -err, "pthread_create: %s",
				    strerror(err));
	for (i = 0; i < 2; i++)
		if (s->task[i].err)
			return kscen_reason(ctx, -s->task[i].err,
					    "ping-pong: %s",
					    strerror(s->task[i].err));
	return 0;
}

static int pipe_sample(struct kscen_ctx *ctx, double *values)
{
	struct pipe_state *s = ctx->priv;
	struct timespec start, stop;
	double ns;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &start);
	if (s->p->mode == PIPE_THREAD)
		ret = pipe_threads(ctx, s);
	else
		ret = pipe_processes(ctx, s);
	clock_gettime(CLOCK_MONOTONIC, &stop);
	if (ret)
		return ret;

	ns = (stop.tv_sec - start.tv_sec) * 1e9 + (stop.tv_nsec - start.tv_nsec);
	values[0] = ns / 1e3 / s->p->loops;
	values[1] = s->p->loops / (ns / 1e9);
	return 0;
}

static void pipe_teardown(struct kscen_ctx *ctx)
{
	pipe_free(ctx->priv);
	ctx->priv = NULL;
}

static void pipe_describe(const void *params, char *buf, size_t len)
{
	const struct pipe_params *p = params;

	snprintf(buf, len, "Executed %lld pipe operations between two %s",
		 p->loops, p->mode == PIPE_THREAD ? "threads" : "processes");
}

static const struct kscen_param pipe_param_table[] = {
	{
		.name = "loops", .type = KSCEN_P_INT, .def = "1000000",
		.offset = offsetof(struct pipe_params, loops),
		.min = 1, .max = 1000000000,
		.help = "round trips between the two tasks (perf's -l)",
	},
	{
		.name = "mode", .type = KSCEN_P_ENUM, .def = "process",
		.offset = offsetof(struct pipe_params, mode),
		.choices = "process|thread",
		.help = "two processes, or two threads of one process (perf's -T)",
	},
};

static const struct kscen_metric_desc pipe_metrics[] = {
	{ .name = "usecs/op", .unit = "usecs/op", .better = KSCEN_LOWER },
	{ .name = "ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
};

const struct kscen_workload kscen_wl_sched_pipe = {
	.name = "sched.pipe",
	.summary = "two tasks ping-pong over two pipes (perf bench sched pipe)",
	.version = 1,
	.params = pipe_param_table,
	.nr_params = ARRAY_SIZE(pipe_param_table),
	.params_size = sizeof(struct pipe_params),
	.metrics = pipe_metrics,
	.nr_metrics = ARRAY_SIZE(pipe_metrics),
	.setup = pipe_setup,
	.sample = pipe_sample,
	.teardown = pipe_teardown,
	.describe = pipe_describe,
};
