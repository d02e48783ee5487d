// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_more.c - the rest of upstream perf bench's syscall collection
 * (tools/perf/bench/syscall.c, after 6.1): syscall.getpgid, syscall.fork and
 * syscall.execve. getpgid(0) is a second cheap call beside basic's getppid(),
 * one that looks up a pid; fork times fork() + the child's _exit() +
 * waitpid(); execve the same with the child exec'ing /bin/true, so it adds
 * an exec and a new mm. As upstream, fork and execve default to 10,000 loops
 * where the cheap calls do 10,000,000.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "workload.h"
#include "lib/child.h"


#define TRUE_PATH "/bin/true"

struct sysb_params {
	long long loops;
};

static double since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1e9 + (b.tv_nsec - a->tv_nsec);
}

static void fill(const struct sysb_params *p, double ns, double *values)
{
	values[0] = ns / 1e3 / p->loops;
	values[1] = p->loops / (ns / 1e9);
}

static int getpgid_sample(struct kscen_ctx *ctx, double *values)
{
	const struct sysb_params *p = ctx->params;
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long long i = 0; i < p->loops; i++)
		syscall(SYS_getpgid, 0);
	fill(p, since(&start), values);
	return 0;
}

/* One child: _exit at once (fork) or exec /bin/true (execve); reaped. */
static int one_child(struct kscen_ctx *ctx, bool exec)
{
	char how[96];
	static char *const argv[] = { TRUE_PATH, NULL };
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return kscen_reason(ctx, -errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (exec)
			execve(TRUE_PATH, argv, NULL);
		_exit(exec ? 127 : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return kscen_reason(ctx, -errno, "waitpid: %s",
					    strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return kscen_reason(ctx, -EIO, "%s child %s",
				    exec ? "the " TRUE_PATH : "the forked",
				    kscen_wait_status_text(status, how, sizeof(how)));
	return 0;
}

static int children_sample(struct kscen_ctx *ctx, double *values, bool exec)
{
	const struct sysb_params *p = ctx->params;
	struct timespec start;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long long i = 0; i < p->loops; i++)
		if ((ret = one_child(ctx, exec)))
			return ret;
	fill(p, since(&start), values);
	return 0;
}

static int fork_sample(struct kscen_ctx *ctx, double *values)
{
	return children_sample(ctx, values, false);
}

static int execve_sample(struct kscen_ctx *ctx, double *values)
{
	return children_sample(ctx, values, true);
}

static int execve_supported(struct kscen_ctx *ctx)
{
	if (access(TRUE_PATH, X_OK))
		return kscen_reason(ctx, KSCEN_SKIP, "no executable %s",
				    TRUE_PATH);
	return 0;
}

static void getpgid_describe(const void *params, char *buf, size_t len)
{
	snprintf(buf, len, "Executed %lld getpgid() calls",
		 ((const struct sysb_params *)params)->loops);
}

static void fork_describe(const void *params, char *buf, size_t len)
{
	snprintf(buf, len, "Executed %lld fork() calls",
		 ((const struct sysb_params *)params)->loops);
}

static void execve_describe(const void *params, char *buf, size_t len)
{
	snprintf(buf, len, "Executed %lld execve() calls",
		 ((const struct sysb_params *)params)->loops);
}

static const struct kscen_param getpgid_table[] = {
	{ .name = "loops", .type = KSCEN_P_INT, .def = "10000000",
	  .offset = offsetof(struct sysb_params, loops),
	  .min = 1, .max = 10000000000LL, .help = "getpgid(0) calls (perf's -l)" },
};

static const struct kscen_param children_table[] = {
	{ .name = "loops", .type = KSCEN_P_INT, .def = "10000",
	  .offset = offsetof(struct sysb_params, loops),
	  .min = 1, .max = 100000000, .help = "children forked and reaped (perf's -l)" },
};

static const struct kscen_metric_desc sysb_metrics[] = {
	{ .name = "usecs/op", .unit = "usecs/op", .better = KSCEN_LOWER },
	{ .name = "ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
};

#define SYSB(sym, nm, sum, tab, fn, sup, desc)				\
const struct kscen_workload sym = {					\
	.name = nm, .summary = sum, .version = 1,			\
	.params = tab, .nr_params = ARRAY_SIZE(tab),			\
	.params_size = sizeof(struct sysb_params),			\
	.metrics = sysb_metrics, .nr_metrics = ARRAY_SIZE(sysb_metrics),	\
	.supported = sup, .sample = fn, .describe = desc,		\
}

SYSB(kscen_wl_syscall_getpgid, "syscall.getpgid",
     "getpgid(0) in a loop (perf bench syscall getpgid)",
     getpgid_table, getpgid_sample, NULL, getpgid_describe);
SYSB(kscen_wl_syscall_fork, "syscall.fork",
     "fork, _exit, waitpid in a loop (perf bench syscall fork)",
     children_table, fork_sample, NULL, fork_describe);
SYSB(kscen_wl_syscall_execve, "syscall.execve",
     "fork, execve /bin/true, waitpid in a loop (perf bench syscall execve)",
     children_table, execve_sample, execve_supported, execve_describe);
