// SPDX-License-Identifier: GPL-2.0
/*
 * sample-cost.c - what the pieces of a sample process cost on this machine,
 * the parts of figure 2 of docs/performance.md:
 *
 *   sample-cost [CGROUP_DIR]
 *
 * - a fault on a fresh anonymous page (4,096 pages touched once each);
 * - a round trip between two processes over a pair of pipes (two wake-ups);
 * - fork + _exit + waitpid, and the same with the child joining a cgroup
 *   by writing to its cgroup.procs first, as a sample process does (only
 *   with CGROUP_DIR: an empty cgroup v2 directory made for the purpose);
 * - with CGROUP_DIR, a mkdir + rmdir of a cgroup below it: what a cgroup
 *   made for each sample costs beside one that serves them all.
 *
 * Each is the median of 5 runs, in microseconds, one per line.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS 5

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), cmp);
	return v[RUNS / 2];
}

static double fault(void)
{
	const size_t n = 4096;
	char *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t0;

	if (p == MAP_FAILED)
		return -1;
	t0 = now_us();
	for (size_t i = 0; i < n; i++)
		p[i * 4096] = 1;
	t0 = (now_us() - t0) / n;
	munmap(p, n * 4096);
	return t0;
}

static double round_trip(void)
{
	const int n = 2000;
	int a[2], b[2];
	char c = 0;
	double t0;
	pid_t pid;

	if (pipe(a) || pipe(b))
		return -1;
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < n; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	t0 = now_us();
	for (int i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			break;
	t0 = (now_us() - t0) / n;
	waitpid(pid, NULL, 0);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	return t0;
}

/* fork + _exit + waitpid, the child first joining @procs when >= 0 */
static double process(int procs)
{
	const int n = 200;
	double t0 = now_us();

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(procs >= 0 && write(procs, "0", 1) != 1);
		waitpid(pid, NULL, 0);
	}
	return (now_us() - t0) / n;
}

static double cgroup_made(const char *dir)
{
	const int n = 200;
	char path[4096];
	double t0;

	snprintf(path, sizeof(path), "%s/child", dir);
	t0 = now_us();
	for (int i = 0; i < n; i++)
		if (mkdir(path, 0755) || rmdir(path))
			return -1;
	return (now_us() - t0) / n;
}

int main(int argc, char **argv)
{
	double v[RUNS];
	int procs = -1;

	if (argc > 1) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/cgroup.procs", argv[1]);
		procs = open(path, O_WRONLY | O_CLOEXEC);
		if (procs < 0) {
			perror(path);
			return 1;
		}
	}
	for (int i = 0; i < RUNS; i++)
		v[i] = fault();
	printf("anonymous page fault: %.1f us\n", median(v));
	for (int i = 0; i < RUNS; i++)
		v[i] = round_trip();
	printf("pipe round trip between two processes: %.1f us\n", median(v));
	for (int i = 0; i < RUNS; i++)
		v[i] = process(-1);
	printf("fork + exit + wait: %.1f us\n", median(v));
	if (procs >= 0) {
		for (int i = 0; i < RUNS; i++)
			v[i] = process(procs);
		printf("fork + join the cgroup + exit + wait: %.1f us\n", median(v));
		for (int i = 0; i < RUNS; i++)
			v[i] = cgroup_made(argv[1]);
		printf("mkdir + rmdir of a cgroup: %.1f us\n", median(v));
	}
	return 0;
}
