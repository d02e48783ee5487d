// SPDX-License-Identifier: GPL-2.0
/*
 * example.c - a workload module built outside kscen's tree: example.getpid,
 * `loops` calls of getpid() (or getppid()) through syscall(), in usecs/op.
 * Build it against the installed header and load it from a scenario:
 *
 *   cc -O2 -Wall -fPIC -shared -o example.so example.c
 *
 *   modules: [example.so]        # relative to the scenario's directory
 *   jobs:
 *     - name: getpid
 *       workload: example.getpid
 *       params: {loops: 100000}
 *
 * (`make examples` builds it against runner/workload.h, the same file.)
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <kscen/workload.h>

struct example_params {
	long long loops;
	int call;		/* index into "getpid|getppid" */
};

static int example_sample(struct kscen_ctx *ctx, double *values)
{
	const struct example_params *p = ctx->params;
	long nr = p->call ? SYS_getppid : SYS_getpid;
	struct timespec start, stop;
	double ns;

	if (clock_gettime(CLOCK_MONOTONIC, &start))
		return kscen_reason(ctx, -errno, "clock_gettime: %m");
	for (long long i = 0; i < p->loops; i++)
		syscall(nr);
	clock_gettime(CLOCK_MONOTONIC, &stop);
	ns = (stop.tv_sec - start.tv_sec) * 1e9 + (stop.tv_nsec - start.tv_nsec);
	values[0] = ns / 1e3 / p->loops;
	return 0;
}

static void example_describe(const void *params, char *buf, size_t len)
{
	const struct example_params *p = params;

	snprintf(buf, len, "Executed %lld %s() calls", p->loops,
		 p->call ? "getppid" : "getpid");
}

static const struct kscen_param example_params_table[] = {
	{
		.name = "loops", .type = KSCEN_P_INT, .def = "1000000",
		.offset = offsetof(struct example_params, loops),
		.min = 1, .max = 10000000000LL,
		.help = "system calls a sample makes",
	},
	{
		.name = "call", .type = KSCEN_P_ENUM, .def = "getpid",
		.offset = offsetof(struct example_params, call),
		.choices = "getpid|getppid",
		.help = "which system call",
	},
};

static const struct kscen_metric_desc example_metrics[] = {
	{ .name = "usecs/op", .unit = "usecs/op", .better = KSCEN_LOWER },
};

static const struct kscen_workload example_getpid = {
	.name = "example.getpid",
	.summary = "getpid() in a loop: an example module built outside the tree",
	.version = 1,
	.params = example_params_table,
	.nr_params = ARRAY_SIZE(example_params_table),
	.params_size = sizeof(struct example_params),
	.metrics = example_metrics,
	.nr_metrics = ARRAY_SIZE(example_metrics),
	.sample = example_sample,
	.describe = example_describe,
};

KSCEN_MODULE(&example_getpid);
