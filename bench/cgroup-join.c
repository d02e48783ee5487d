// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup-join.c - what putting a new process in a cgroup costs: N times a
 * fork whose child writes "0" to the cgroup's cgroup.procs and exits
 * ("write"), or a clone3(CLONE_INTO_CGROUP) whose child is born there and
 * exits ("clone3"), or a plain fork ("fork"), each waited for; prints
 * microseconds per process. The parent is pinned to the CPU it is on, as
 * kscen's harness is; with "unpin" each child first allows itself every
 * CPU, as a sample process does (runner/sample/sampler.c).
 *
 *   cc -O2 -o cgroup-join bench/cgroup-join.c
 *   mkdir /sys/fs/cgroup/cj     # a cgroup v2 directory; as root
 *   for r in 1 2 3 4 5 6; do for m in write clone3; do
 *           ./cgroup-join /sys/fs/cgroup/cj $m 500 unpin; done; done
 *   rmdir /sys/fs/cgroup/cj
 *
 * The figures are in docs/performance.md ("Born in its cgroup").
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	char path[4096];
	cpu_set_t all, one;
	int procs, dir, n, mode, unpin;
	double t0;

	if (argc < 4 || (strcmp(argv[2], "write") && strcmp(argv[2], "clone3") &&
			 strcmp(argv[2], "fork"))) {
		fprintf(stderr, "usage: cgroup-join CGROUP-DIR write|clone3|fork N [unpin]\n");
		return 2;
	}
	mode = argv[2][0];
	n = atoi(argv[3]);
	unpin = argc > 4 && !strcmp(argv[4], "unpin");
	snprintf(path, sizeof(path), "%s/cgroup.procs", argv[1]);
	procs = open(path, O_WRONLY | O_CLOEXEC);
	dir = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (procs < 0 || dir < 0) {
		perror(argv[1]);
		return 1;
	}
	sched_getaffinity(0, sizeof(all), &all);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	t0 = now_us();
	for (int i = 0; i < n; i++) {
		struct clone_args a = {
			.flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD, .cgroup = dir,
		};
		int status;
		pid_t pid = mode == 'c' ? syscall(SYS_clone3, &a, sizeof(a)) : fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			if (unpin)
				sched_setaffinity(0, sizeof(all), &all);
			if (mode == 'w' && write(procs, "0", 1) != 1)
				_exit(1);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || status) {
			fprintf(stderr, "child failed\n");
			return 1;
		}
	}
	printf("%.1f\n", (now_us() - t0) / n);
	return 0;
}
