// SPDX-License-Identifier: GPL-2.0
/*
 * pipe-thread-alone.c - the timed region of `perf bench sched pipe -T`
 * (tools/perf/bench/sched-pipe.c, perf 6.1) and nothing else: two pipes
 * made, the clock started, two threads that ping-pong an int `loops` times
 * created and joined, the clock stopped. Run by kscen's exec workload beside
 * sched.pipe and perf bench, it tells whether a gap between them is in the
 * loop or in what runs around it (docs/fidelity.md, sched pipe in thread
 * mode):
 *
 *   cc -O2 -pthread -o pipe-thread-alone bench/pipe-thread-alone.c
 *   ./pipe-thread-alone [LOOPS [SPIN_US]]
 *
 * SPIN_US keeps the CPU busy that long before the clock, as perf's start-up
 * does. Prints "N usecs/op", as perf bench does.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

struct td {
	int nr, rd, wr;
	long loops;
	pthread_t t;
};

static void *worker(void *arg)
{
	struct td *t = arg;
	int m = 0;

	for (long i = 0; i < t->loops; i++) {
		if (!t->nr) {
			if (read(t->rd, &m, sizeof(m)) != sizeof(m) ||
			    write(t->wr, &m, sizeof(m)) != sizeof(m))
				abort();
		} else {
			if (write(t->wr, &m, sizeof(m)) != sizeof(m) ||
			    read(t->rd, &m, sizeof(m)) != sizeof(m))
				abort();
		}
	}
	return NULL;
}

static long us_since(const struct timeval *a)
{
	struct timeval b;

	gettimeofday(&b, NULL);
	return (b.tv_sec - a->tv_sec) * 1000000L + (b.tv_usec - a->tv_usec);
}

int main(int argc, char **argv)
{
	long loops = argc > 1 ? atol(argv[1]) : 10000;
	long spin = argc > 2 ? atol(argv[2]) : 0;
	int p1[2], p2[2];
	struct timeval start;
	struct td td[2];

	if (loops < 1 || pipe(p1) || pipe(p2))
		return 1;
	gettimeofday(&start, NULL);
	while (us_since(&start) < spin)
		;
	td[0] = (struct td){ .nr = 0, .rd = p1[0], .wr = p2[1], .loops = loops };
	td[1] = (struct td){ .nr = 1, .rd = p2[0], .wr = p1[1], .loops = loops };
	gettimeofday(&start, NULL);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&td[i].t, NULL, worker, &td[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(td[i].t, NULL);
	printf("%f usecs/op\n", (double)us_since(&start) / loops);
	return 0;
}
