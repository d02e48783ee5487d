// SPDX-License-Identifier: GPL-2.0
/*
 * futex-wake-alone.c - the rounds of `perf bench futex wake`
 * (tools/perf/bench/futex-wake.c, perf 6.1) and nothing else: one worker
 * pinned to each of the first two CPUs, started under a mutex and a
 * condition variable, blocked in FUTEX_WAIT and left through
 * pthread_exit(); a 100 ms sleep; the clock around the FUTEX_WAKE loop,
 * one thread a call. Prints the mean of the rounds and of all but the
 * first, in microseconds, so the first round's one-time costs (glibc
 * opening its unwinder, a new thread's first malloc making an arena) show
 * apart from the rest, then each round (a round is either the waker alone,
 * 20-40 us, or the waker preempted by the worker it woke on its own CPU
 * until that worker has exited, 100-600 us; docs/fidelity.md, futex wake):
 *
 *   cc -O2 -pthread -o futex-wake-alone bench/futex-wake-alone.c
 *   taskset -c 0 ./futex-wake-alone [ROUNDS [MB [fork]]]
 *
 * MB touches that much anonymous memory first (a process the size of
 * perf's); "fork" runs the rounds in a forked child, as kscen's sample
 * process is a fork. Needs two CPUs.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned futex1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t parent = PTHREAD_COND_INITIALIZER;
static pthread_cond_t workers = PTHREAD_COND_INITIALIZER;
static int starting;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	if (!--starting)
		pthread_cond_signal(&parent);
	pthread_cond_wait(&workers, &lock);
	pthread_mutex_unlock(&lock);
	syscall(SYS_futex, &futex1, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	pthread_exit(NULL);
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	long mb = argc > 2 ? atol(argv[2]) : 0;
	double sum = 0, later = 0, each[64];

	if (rounds < 2 || rounds > 64) {
		fprintf(stderr, "usage: %s [ROUNDS (2-64) [MB [fork]]]\n", argv[0]);
		return 1;
	}
	if (mb > 0) {
		char *p = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		memset(p, 1, mb << 20);
	}
	if (argc > 3 && !strcmp(argv[3], "fork")) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid > 0)
			return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
			       WEXITSTATUS(status) : 1;
	}
	for (int r = 0; r < rounds; r++) {
		pthread_t t[2];
		long woken = 0;
		double start, us;

		starting = 2;
		for (int i = 0; i < 2; i++) {
			pthread_attr_t attr;
			cpu_set_t cpu;

			CPU_ZERO(&cpu);
			CPU_SET(i, &cpu);
			pthread_attr_init(&attr);
			pthread_attr_setaffinity_np(&attr, sizeof(cpu), &cpu);
			if (pthread_create(&t[i], &attr, worker, NULL)) {
				perror("pthread_create");
				return 1;
			}
			pthread_attr_destroy(&attr);
		}
		pthread_mutex_lock(&lock);
		while (starting)
			pthread_cond_wait(&parent, &lock);
		pthread_cond_broadcast(&workers);
		pthread_mutex_unlock(&lock);
		usleep(100000);

		start = now_us();
		while (woken < 2) {
			long n = syscall(SYS_futex, &futex1, FUTEX_WAKE_PRIVATE,
					 1, NULL, NULL, 0);

			if (n < 0) {
				perror("futex");
				return 1;
			}
			woken += n;
		}
		us = now_us() - start;
		sum += us;
		each[r] = us;
		if (r)
			later += us;
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
	}
	printf("%d rounds: mean %.1f us, rounds 2-%d %.1f us\n", rounds,
	       sum / rounds, rounds, later / (rounds - 1));
	printf("each round:");
	for (int r = 0; r < rounds; r++)
		printf(" %.1f", each[r]);
	printf(" us\n");
	return 0;
}
