// SPDX-License-Identifier: GPL-2.0
/*
 * first-call.c - what each system call a sample process makes costs the
 * first time in a fresh process, and the second time:
 *
 *   cc -O2 -Wl,-z,now -o first-call bench/first-call.c && ./first-call [N]
 *
 * For each call, N children (default 60) are forked from a parent pinned
 * to one CPU; each reads the clock, writes its stack, runs the code that
 * makes the calls and makes two getppid() first (the pages every call
 * shares: the clock's, the stack, the system call entry path), then times
 * the call once and once again, and sends both times back. Prints
 * the median of each, in microseconds. "nothing" is the timing alone: the
 * first call's cost is its line less that one. On a guest whose kernel
 * pages are mapped anew in each process (a PVM guest), the first call of
 * each kind pays for every kernel page its path touches; what a sample
 * process does before and after its sample is priced by this, not by the
 * second column (docs/performance.md, "A sample process's first calls").
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int stat_fd, rec[2];
static cpu_set_t all;		/* the CPUs we were given */
static char sink[1 << 16];

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static const char *const name[] = {
	"nothing", "getppid", "getrusage", "pread /proc/stat", "open+pread sched",
	"setpgid", "prctl PDEATHSIG", "rt_sigaction", "getcpu", "sched_setaffinity",
	"sched_setscheduler", "sched_yield", "write 472 B to a pipe", "close",
};
#define NR_OPS (sizeof(name) / sizeof(name[0]))

/* Call @k, as a sample process makes it (through syscall()). */
static void call(unsigned k)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	struct sched_param none = { 0 };
	char buf[2048];
	struct rusage ru;
	unsigned cpu;
	int fd;

	switch (k) {
	case 1: syscall(SYS_getppid); break;
	case 2: syscall(SYS_getrusage, RUSAGE_THREAD, &ru); break;
	case 3: syscall(SYS_pread64, stat_fd, buf, sizeof(buf), 0); break;
	case 4:
		fd = open("/proc/self/sched", O_RDONLY);
		syscall(SYS_pread64, fd, buf, sizeof(buf) - 1, 0);
		close(fd);
		break;
	case 5: syscall(SYS_setpgid, 0, 0); break;
	case 6: syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0); break;
	case 7: syscall(SYS_rt_sigaction, SIGINT, &sa, NULL, 8); break;
	case 8: syscall(SYS_getcpu, &cpu, NULL, NULL); break;
	case 9: syscall(SYS_sched_setaffinity, 0, sizeof(all), &all); break;
	case 10: syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &none); break;
	case 11: syscall(SYS_sched_yield); break;
	case 12: syscall(SYS_write, rec[1], buf, 472); break;
	case 13: syscall(SYS_close, 1000); break;
	}
}

/* The child's stack, 8 KiB below here, its own before the timing. */
static __attribute__((noinline)) void own_stack(void)
{
	volatile char deep[8192];

	for (size_t i = 0; i < sizeof(deep); i += 512)
		deep[i] = 0;
}

static int cmp(const void *a, const void *b)
{
	return *(const long long *)a < *(const long long *)b ? -1 :
	       *(const long long *)a > *(const long long *)b;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 60;
	long long *a[2];	/* each child's first and second time */
	cpu_set_t one;

	if (n < 1)
		return 2;
	a[0] = calloc(n, sizeof(**a));
	a[1] = calloc(n, sizeof(**a));
	if (!a[0] || !a[1] || (stat_fd = open("/proc/stat", O_RDONLY)) < 0 ||
	    pipe(rec) || sched_getaffinity(0, sizeof(all), &all))
		return 2;
	fcntl(rec[0], F_SETFL, O_NONBLOCK);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (unsigned k = 0; k < NR_OPS; k++) {
		for (int i = 0; i < n; i++) {
			long long v[2];
			int q[2];
			pid_t p;

			if (pipe(q) || (p = fork()) < 0)
				return 1;
			if (p == 0) {
				long long t0;

				now_ns();
				own_stack();
				call(0);	/* its text */
				syscall(SYS_getppid);
				syscall(SYS_getppid);
				t0 = now_ns();
				call(k);
				v[0] = now_ns() - t0;
				t0 = now_ns();
				call(k);
				v[1] = now_ns() - t0;
				_exit(write(q[1], v, sizeof(v)) != sizeof(v));
			}
			if (read(q[0], v, sizeof(v)) != sizeof(v) || waitpid(p, NULL, 0) != p)
				return 1;
			close(q[0]);
			close(q[1]);
			while (read(rec[0], sink, sizeof(sink)) > 0)
				;
			a[0][i] = v[0];
			a[1][i] = v[1];
		}
		qsort(a[0], n, sizeof(a[0][0]), cmp);
		qsort(a[1], n, sizeof(a[1][0]), cmp);
		printf("%-22s first %6.1f us  second %5.1f us\n", name[k],
		       a[0][n / 2] / 1e3, a[1][n / 2] / 1e3);
	}
	return 0;
}
