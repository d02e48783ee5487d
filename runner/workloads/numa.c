// SPDX-License-Identifier: GPL-2.0
/*
 * numa.c - numa.mem: the core of perf bench numa mem (tools/perf/bench/
 * numa.c, Ingo Molnar's NUMA convergence benchmark): nr_proc processes of
 * nr_threads threads walk global (shared by all), per-process and
 * per-thread memory for nr_secs or nr_loops, reading and/or writing every
 * 8-byte word, and the metric is the bandwidth they get. Where perf places
 * tasks and memory with -C/-M node lists, `bind` does it here: none leaves
 * both to the kernel (first touch and NUMA balancing, perf's default),
 * local pins thread i to node i % nodes and binds its memory there, remote
 * binds it to the next node instead. perf's convergence reports are not
 * reproduced: this measures what placement costs, not how fast the kernel
 * fixes it. On one node there is nothing to measure: the job is skipped.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "workload.h"


#define NUMA_MAX_NODES 64
#define NUMA_MAX_TASKS 1024
#define MPOL_BIND_MODE 2	/* <numaif.h>'s MPOL_BIND, without libnuma */

enum { BIND_NONE, BIND_LOCAL, BIND_REMOTE };

struct numa_params {
	long long nr_proc, nr_threads;
	long long mb_global, mb_proc, mb_thread;
	long long nr_loops, nr_secs;
	bool data_reads, data_writes, data_backwards;
	int bind;
};

/* Per thread, in memory shared with the parent. */
struct numa_result {
	double bytes, secs;
	int err;
};

struct numa_node {
	int id;
	cpu_set_t cpus;
};

/* The online nodes and their CPUs, from sysfs. Returns how many. */
static int read_nodes(struct numa_node *nodes, int max)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		char path[300], list[4096];
		unsigned a, b;
		char *s;
		FILE *f;

		if (strncmp(e->d_name, "node", 4) ||
		    e->d_name[4] < '0' || e->d_name[4] > '9')
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/%s/cpulist",
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		s = fgets(list, sizeof(list), f);
		fclose(f);
		nodes[n].id = atoi(e->d_name + 4);
		CPU_ZERO(&nodes[n].cpus);
		for (s = list; s && *s && *s != '\n'; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL) {
			if (sscanf(s, "%u-%u", &a, &b) != 2) {
				if (sscanf(s, "%u", &a) != 1)
					break;
				b = a;
			}
			for (; a <= b && a < CPU_SETSIZE; a++)
				CPU_SET(a, &nodes[n].cpus);
		}
		if (CPU_COUNT(&nodes[n].cpus))	/* memory-only nodes run nothing */
			n++;
	}
	closedir(d);
	return n;
}

static int numa_supported(struct kscen_ctx *ctx)
{
	struct numa_node nodes[NUMA_MAX_NODES];
	int n = read_nodes(nodes, NUMA_MAX_NODES);

	if (n < 2)
		return kscen_reason(ctx, KSCEN_SKIP,
				    "one NUMA node with CPUs here (%d): nothing to place",
				    n);
	return 0;
}

static int bind_memory(void *addr, size_t len, int node)
{
	unsigned long mask[NUMA_MAX_NODES / (8 * sizeof(long)) + 1] = { 0 };

	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
	return syscall(SYS_mbind, addr, len, MPOL_BIND_MODE, mask,
		       NUMA_MAX_NODES + 1, 0) ? -errno : 0;
}

static void *map(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct numa_task {
	const struct numa_params *p;
	struct numa_node *nodes;
	int nr_nodes, index;	/* global thread index */
	unsigned char *global, *proc;
	size_t global_len, proc_len;
	struct numa_result *res;
};

/* Walk @len bytes at @buf, 8 bytes a step; returns a value to keep. */
static unsigned long walk(const struct numa_params *p, unsigned char *buf,
			  size_t len)
{
	unsigned long *w = (unsigned long *)buf, sum = 0;
	size_t n = len / sizeof(*w), i, j;

	for (i = 0; i < n; i++) {
		j = p->data_backwards ? n - 1 - i : i;
		if (p->data_reads)
			sum += w[j];
		if (p->data_writes)
			w[j] = sum + i;
	}
	return sum;
}

static void *numa_thread(void *arg)
{
	struct numa_task *t = arg;
	const struct numa_params *p = t->p;
	size_t tlen = p->mb_thread << 20;
	unsigned char *mine = tlen ? malloc(tlen) : NULL;
	int node = t->index % t->nr_nodes, mem = node;
	struct timespec a, b;
	volatile unsigned long keep = 0;
	double secs = 0, bytes = 0;

	if (tlen && !mine) {
		t->res->err = ENOMEM;
		return NULL;
	}
	if (p->bind != BIND_NONE) {
		if (p->bind == BIND_REMOTE)
			mem = (node + 1) % t->nr_nodes;
		if (sched_setaffinity(0, sizeof(cpu_set_t), &t->nodes[node].cpus) ||
		    (tlen && bind_memory(mine, tlen, t->nodes[mem].id))) {
			t->res->err = errno;
			free(mine);
			return NULL;
		}
	}
	if (tlen)
		memset(mine, 0, tlen);	/* first touch, after the placement */
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long long l = 0; !p->nr_loops || l < p->nr_loops; l++) {
		keep += walk(p, t->global, t->global_len);
		keep += walk(p, t->proc, t->proc_len);
		keep += walk(p, mine, tlen);
		bytes += t->global_len + t->proc_len + tlen;
		clock_gettime(CLOCK_MONOTONIC, &b);
		secs = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
		if (secs * 1e9 >= p->nr_secs)
			break;
	}
	t->res->bytes = bytes;
	t->res->secs = secs;
	(void)keep;	/* read back: the walks cannot be optimised away */
	free(mine);
	return NULL;
}

/* One process: its memory and its threads. Returns an errno. */
static int numa_process(const struct numa_params *p, struct numa_node *nodes,
			int nr_nodes, int proc, unsigned char *global,
			struct numa_result *res)
{
	size_t plen = p->mb_proc << 20;
	unsigned char *mem = plen ? map(plen) : NULL;
	struct numa_task *t;
	pthread_t *th;
	int i, n, err = 0;

	if (plen && !mem)
		return ENOMEM;
	if (plen && p->bind != BIND_NONE)
		bind_memory(mem, plen, nodes[(proc + (p->bind == BIND_REMOTE)) % nr_nodes].id);
	if (plen)
		memset(mem, 0, plen);
	t = calloc(p->nr_threads, sizeof(*t));
	th = calloc(p->nr_threads, sizeof(*th));
	if (!t || !th) {
		free(t);
		free(th);
		return ENOMEM;
	}
	for (n = 0; n < p->nr_threads; n++) {
		i = proc * p->nr_threads + n;
		t[n] = (struct numa_task){ .p = p, .nodes = nodes,
					   .nr_nodes = nr_nodes, .index = i,
					   .global = global,
					   .global_len = p->mb_global << 20,
					   .proc = mem, .proc_len = plen,
					   .res = &res[i] };
		err = pthread_create(&th[n], NULL, numa_thread, &t[n]);
		if (err)
			break;
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(t);
	free(th);
	if (mem)
		munmap(mem, plen);
	return err;
}

static int numa_sample(struct kscen_ctx *ctx, double *values)
{
	const struct numa_params *p = ctx->params;
	struct numa_node nodes[NUMA_MAX_NODES];
	int nr_nodes = read_nodes(nodes, NUMA_MAX_NODES), status, ret = 0;
	long long tasks = p->nr_proc * p->nr_threads;
	size_t glen = p->mb_global << 20;
	unsigned char *global = NULL;
	struct numa_result *res;
	pid_t parent = getpid(), pids[NUMA_MAX_TASKS];
	double bytes = 0, secs = 0;
	int i, started;

	if (nr_nodes < 2)
		return kscen_reason(ctx, KSCEN_SKIP, "one NUMA node here");
	res = map(tasks * sizeof(*res));
	if (!res || (glen && !(global = map(glen)))) {
		ret = kscen_reason(ctx, -ENOMEM, "cannot map %lld MB of global memory",
				   p->mb_global);
		goto out;
	}
	if (glen)
		memset(global, 0, glen);
	for (started = 0; started < p->nr_proc; started++) {
		pids[started] = fork();
		if (pids[started] < 0) {
			ret = kscen_reason(ctx, -errno, "fork: %s", strerror(errno));
			break;
		}
		if (pids[started] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(ECHILD);
			_exit(numa_process(p, nodes, nr_nodes, started, global, res));
		}
	}
	for (i = 0; i < started; i++) {
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
		if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status)))
			ret = kscen_reason(ctx, -EIO, "process %d failed: %s", i,
					   WIFEXITED(status) ? strerror(WEXITSTATUS(status)) :
					   "killed by a signal");
	}
	for (i = 0; i < tasks && !ret; i++) {
		if (res[i].err)
			ret = kscen_reason(ctx, -res[i].err, "thread %d: %s", i,
					   strerror(res[i].err));
		bytes += res[i].bytes;
		if (res[i].secs > secs)
			secs = res[i].secs;
	}
	if (!ret) {
		values[0] = bytes / secs / 1e9;
		values[1] = values[0] / tasks;
		values[2] = secs;
	}
out:
	if (global)
		munmap(global, glen);
	if (res)
		munmap(res, tasks * sizeof(*res));
	return ret;
}

static int numa_check(const void *params, char *err, size_t len)
{
	const struct numa_params *p = params;

	if (p->nr_proc * p->nr_threads > NUMA_MAX_TASKS) {
		snprintf(err, len, "nr_proc x nr_threads: at most %d threads",
			 NUMA_MAX_TASKS);
		return -EINVAL;
	}
	if (!p->mb_global && !p->mb_proc && !p->mb_thread) {
		snprintf(err, len, "mb_global, mb_proc, mb_thread: give some memory to walk");
		return -EINVAL;
	}
	if (!p->data_reads && !p->data_writes) {
		snprintf(err, len, "data_reads, data_writes: one must be true");
		return -EINVAL;
	}
	return 0;
}

static void numa_describe(const void *params, char *buf, size_t len)
{
	static const char *const binds[] = { "kernel-placed", "node-local", "next-node" };
	const struct numa_params *p = params;

	snprintf(buf, len, "%lld x %lld threads, %lld MB global, %lld MB/process, %lld MB/thread (%s), %s%s for %.3g secs",
		 p->nr_proc, p->nr_threads, p->mb_global, p->mb_proc,
		 p->mb_thread, binds[p->bind],
		 p->data_reads ? (p->data_writes ? "reads+writes" : "reads") : "writes",
		 p->data_backwards ? " backwards" : "", p->nr_secs / 1e9);
}

#define P(f) offsetof(struct numa_params, f)

static const struct kscen_param numa_table[] = {
	{ .name = "nr_proc", .type = KSCEN_P_INT, .offset = P(nr_proc), .def = "1",
	  .min = 1, .max = 256, .help = "processes (perf's -p)" },
	{ .name = "nr_threads", .type = KSCEN_P_INT, .offset = P(nr_threads), .def = "2",
	  .min = 1, .max = 1024, .help = "threads per process (perf's -t)" },
	{ .name = "mb_global", .type = KSCEN_P_INT, .offset = P(mb_global), .def = "0",
	  .min = 0, .max = 1 << 20, .help = "MB shared by all (perf's -G)" },
	{ .name = "mb_proc", .type = KSCEN_P_INT, .offset = P(mb_proc), .def = "0",
	  .min = 0, .max = 1 << 20, .help = "MB per process (perf's -P)" },
	{ .name = "mb_thread", .type = KSCEN_P_INT, .offset = P(mb_thread), .def = "64",
	  .min = 0, .max = 1 << 20, .help = "MB per thread (perf's -T)" },
	{ .name = "nr_loops", .type = KSCEN_P_INT, .offset = P(nr_loops), .def = "0",
	  .min = 0, .max = 1LL << 40, .help = "walks at most; 0: until nr_secs (perf's -l)" },
	{ .name = "nr_secs", .type = KSCEN_P_TIME, .offset = P(nr_secs), .def = "5s",
	  .min = 1000000, .max = 3600000000000LL, .help = "how long at most (perf's -s)" },
	{ .name = "data_reads", .type = KSCEN_P_BOOL, .offset = P(data_reads), .def = "true",
	  .help = "read the data (perf's -R)" },
	{ .name = "data_writes", .type = KSCEN_P_BOOL, .offset = P(data_writes), .def = "false",
	  .help = "write the data (perf's -W)" },
	{ .name = "data_backwards", .type = KSCEN_P_BOOL, .offset = P(data_backwards),
	  .def = "false", .help = "walk backwards (perf's -B)" },
	{ .name = "bind", .type = KSCEN_P_ENUM, .offset = P(bind), .def = "none",
	  .choices = "none|local|remote",
	  .help = "placement: the kernel's, thread and memory on one node, or memory on the next node (perf's -C/-M)" },
};

static const struct kscen_metric_desc numa_metrics[] = {
	{ .name = "GB/sec", .unit = "GB/sec", .better = KSCEN_HIGHER },
	{ .name = "GB/sec/thread", .unit = "GB/sec", .better = KSCEN_HIGHER },
	{ .name = "runtime-max/thread", .unit = "secs", .better = KSCEN_LOWER },
};

const struct kscen_workload kscen_wl_numa_mem = {
	.name = "numa.mem",
	.summary = "threads walk global/process/thread memory, placed by node (perf bench numa mem)",
	.version = 1,
	.params = numa_table,
	.nr_params = ARRAY_SIZE(numa_table),
	.params_size = sizeof(struct numa_params),
	.metrics = numa_metrics,
	.nr_metrics = ARRAY_SIZE(numa_metrics),
	.check = numa_check,
	.supported = numa_supported,
	.sample = numa_sample,
	.describe = numa_describe,
};
