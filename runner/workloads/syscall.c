// SPDX-License-Identifier: GPL-2.0
/*
 * syscall.c - syscall.basic: perf bench syscall basic. `loops` getppid()
 * calls, the cheapest system call there is, so usecs/op is the entry and
 * exit cost: what mitigations, audit or seccomp add to every call. Called
 * through syscall() so no libc can answer it from a cache.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "workload.h"


struct syscall_params {
	long long loops;
};

static int syscall_sample(struct kscen_ctx *ctx, double *values)
{
	const struct syscall_params *p = ctx->params;
	struct timespec start, stop;
	long long i;
	double ns;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < p->loops; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &stop);

	ns = (stop.tv_sec - start.tv_sec) * 1e9 + (stop.tv_nsec - start.tv_nsec);
	values[0] = ns / 1e3 / p->loops;
	values[1] = p->loops / (ns / 1e9);
	return 0;
}

static void syscall_describe(const void *params, char *buf, size_t len)
{
	const struct syscall_params *p = params;

	snprintf(buf, len, "Executed %lld getppid() calls", p->loops);
}

static const struct kscen_param syscall_param_table[] = {
	{
		.name = "loops", .type = KSCEN_P_INT, .def = "10000000",
		.offset = offsetof(struct syscall_params, loops),
		.min = 1, .max = 10000000000LL,
		.help = "getppid() calls (perf's -l)",
	},
};

static const struct kscen_metric_desc syscall_metrics[] = {
	{ .name = "usecs/op", .unit = "usecs/op", .better = KSCEN_LOWER },
	{ .name = "ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
};

const struct kscen_workload kscen_wl_syscall_basic = {
	.name = "syscall.basic",
	.summary = "getppid() in a loop: system call entry/exit (perf bench syscall basic)",
	.version = 1,
	.params = syscall_param_table,
	.nr_params = ARRAY_SIZE(syscall_param_table),
	.params_size = sizeof(struct syscall_params),
	.metrics = syscall_metrics,
	.nr_metrics = ARRAY_SIZE(syscall_metrics),
	.sample = syscall_sample,
	.describe = syscall_describe,
};
