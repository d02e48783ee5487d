// SPDX-License-Identifier: GPL-2.0
/*
 * fork-floor.c - what one process costs on this machine: fork, _exit and
 * waitpid of a minimal process, N times; prints microseconds per process.
 * kscen takes every sample in a process of its own (isolation), so this is
 * the floor of its harness cost per sample (bench/overhead.sh, figure 0).
 * "fork-floor N vfork" does the same with vfork(): a child that shares its
 * parent's memory, what a harness without that isolation would pay.
 * "fork-floor N pin" forks from a parent pinned to the CPU it is on, so
 * that parent and child share one CPU as kscen's harness and its sample
 * processes do (runner/lib/child.h): no wake-up crosses CPUs.
 *
 * Build it with -Wl,-z,now, as kscen is linked (Makefile): with lazy
 * binding each child resolves _exit() itself, in a page of the GOT and
 * ld.so's lookup that it first touches, 17 page faults a child instead of
 * 8 (`perf record -d -e minor-faults`, 2026-12-07), and the floor is then
 * that much higher than what a process costs.
 *
 *   cc -O2 -Wl,-z,now -o fork-floor bench/fork-floor.c
 */
#define _GNU_SOURCE	/* sched_setaffinity, sched_getcpu */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A child that exits at once (with vfork, the parent waits for that). */
static __attribute__((noinline)) pid_t start(int shared)
{
	pid_t p = shared ? vfork() : fork();

	if (p == 0)
		_exit(0);
	return p;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	int shared = argc > 2 && !strcmp(argv[2], "vfork");
	struct timespec a, b;

	if (n < 1)
		return 2;
	if (argc > 2 && !strcmp(argv[2], "pin")) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(sched_getcpu(), &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		pid_t p = start(shared);

		if (p < 0 || waitpid(p, NULL, 0) != p)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / n);
	return 0;
}
