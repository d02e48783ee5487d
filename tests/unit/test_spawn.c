// SPDX-License-Identifier: GPL-2.0
/*
 * test_spawn.c - spawn.c: a program with its output captured, a function
 * in a child, a process group killed whole, how a wait status reads, and
 * the harness's CPU given back to every child.
 */
#define _GNU_SOURCE	/* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/child.h"

static void test_spawn_program_output(void **state)
{
	char *const argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	struct kscen_child c = {
		.argv = argv, .in = KSCEN_CHILD_NULL, .out = KSCEN_CHILD_PIPE,
		.err = KSCEN_CHILD_PIPE, .flags = KSCEN_CHILD_CLEAN | KSCEN_CHILD_PIDFD,
	};
	char out[64] = "", err[64] = "";
	ssize_t n;

	assert_int_equal(kscen_child_start(&c), 0);
	assert_true(c.pid > 0 && c.out_fd > 2 && c.err_fd > 2);
	n = read(c.out_fd, out, sizeof(out) - 1);
	assert_true(n > 0);
	n = read(c.err_fd, err, sizeof(err) - 1);
	assert_true(n > 0);
	assert_int_equal(kscen_child_reap(&c), 0);
	kscen_child_kill(&c);
	assert_string_equal(out, "out\n");
	assert_string_equal(err, "err\n");
	assert_true(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 3);
	assert_int_equal(c.out_fd, -1);
	assert_int_equal(c.pidfd, -1);
}

static void test_spawn_missing_program_is_127(void **state)
{
	char *const argv[] = { "/nonexistent/kscen-test", NULL };
	struct kscen_child c = { .argv = argv, .err = KSCEN_CHILD_PIPE };
	char err[128] = "";

	assert_int_equal(kscen_child_start(&c), 0);
	assert_true(read(c.err_fd, err, sizeof(err) - 1) > 0);
	assert_int_equal(kscen_child_reap(&c), 0);
	kscen_child_kill(&c);
	assert_true(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 127);
	assert_string_equal(err, "kscen: cannot exec /nonexistent/kscen-test\n");
}

static int exit_with(void *arg)
{
	return *(int *)arg;
}

/*
 * Both hold the pipe's write end: EOF on it means both are gone. The
 * grandchild says it is there with a byte on it.
 */
static int sleeps_with_a_grandchild(void *arg)
{
	int *p = arg;

	close(p[0]);
	if (fork() == 0) {
		if (write(p[1], "g", 1) != 1)
			_exit(1);
		pause();
	}
	pause();
	return 0;
}

static void test_spawn_function_and_group_kill(void **state)
{
	int code = 42, p[2];
	struct kscen_child c = { .fn = exit_with, .arg = &code };
	struct kscen_child g = { .fn = sleeps_with_a_grandchild, .arg = p,
				 .flags = KSCEN_CHILD_PGROUP | KSCEN_CHILD_PDEATHSIG };
	struct pollfd pfd;
	char byte;

	assert_int_equal(kscen_child_start(&c), 0);
	assert_int_equal(kscen_child_reap(&c), 0);
	assert_true(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 42);

	assert_int_equal(pipe(p), 0);
	assert_int_equal(kscen_child_start(&g), 0);
	close(p[1]);
	assert_int_equal(g.pgid, g.pid);
	/* the grandchild is there (its byte) before the group is killed */
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 60000), 1);
	assert_int_equal(read(p[0], &byte, 1), 1);
	assert_int_equal(byte, 'g');
	kscen_child_kill(&g);
	assert_true(WIFSIGNALED(g.status) && WTERMSIG(g.status) == SIGKILL);
	/* the grandchild went with its group: the pipe's last writer is gone */
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 60000), 1);
	assert_int_equal(read(p[0], &byte, 1), 0);
	close(p[0]);
}

static void test_wait_status_text(void **state)
{
	char buf[96];

	assert_string_equal(kscen_wait_status_text(7 << 8, buf, sizeof(buf)),
			    "exited with status 7");
	assert_string_equal(kscen_wait_status_text(SIGSEGV, buf, sizeof(buf)),
			    "killed by signal SIGSEGV (11)");
	assert_string_equal(kscen_wait_status_text(SIGABRT | 0x80, buf, sizeof(buf)),
			    "killed by signal SIGABRT (6), core dumped");
}

/* A child's CPUs in its exit status. */
static int count_cpus(void *arg)
{
	cpu_set_t s;

	(void)arg;
	if (sched_getaffinity(0, sizeof(s), &s))
		return 255;
	return CPU_COUNT(&s);
}

static int policy_of(void *arg)
{
	(void)arg;
	return sched_getscheduler(0);
}

static int child_status(struct kscen_child *c)
{
	assert_int_equal(kscen_child_start(c), 0);
	assert_int_equal(kscen_child_reap(c), 0);
	kscen_child_kill(c);
	assert_true(WIFEXITED(c->status));
	return WEXITSTATUS(c->status);
}

/*
 * A workload that pins itself to one CPU and forks: its child keeps that
 * one (its CPUs count + 100 with all of ours back, as a runner's child).
 */
static int pinned_workload(void *arg)
{
	struct kscen_child grandchild = { .fn = count_cpus };
	cpu_set_t one;
	int all = count_cpus(arg);

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return 255;
	return child_status(&grandchild) + (all > 1 ? 100 : 0);
}

static int nr_cpus(void)
{
	cpu_set_t s;

	assert_int_equal(sched_getaffinity(0, sizeof(s), &s), 0);
	return CPU_COUNT(&s);
}

static void test_harness_pin_children_not(void **state)
{
	char *const argv[] = { "/bin/sh", "-c", "exit $(nproc)", NULL };
	struct kscen_child fn = { .fn = count_cpus };
	struct kscen_child workload = { .fn = pinned_workload };
	struct kscen_child prog = { .argv = argv, .flags = KSCEN_CHILD_CLEAN };
	struct kscen_child policy = { .fn = policy_of };
	int n = nr_cpus();

	(void)state;
	assert_int_equal(sched_getscheduler(0), SCHED_OTHER);
	assert_int_equal(kscen_harness_pin(), 0);
	if (n < 2) {	/* nothing to pin */
		assert_int_equal(kscen_harness_cpu(), -1);
		assert_int_equal(child_status(&fn), 1);
		return;
	}
	assert_int_equal(nr_cpus(), 1);
	assert_true(kscen_harness_cpu() >= 0);
	/* every child gets them all back; not what a workload pinned */
	assert_int_equal(child_status(&fn), n);
	assert_int_equal(child_status(&prog), n);
	assert_int_equal(child_status(&workload), 101);
	assert_int_equal(nr_cpus(), 1);	/* we stay */
	/* the harness is a batch task; what it starts is not */
	assert_int_equal(sched_getscheduler(0), SCHED_BATCH);
	assert_int_equal(child_status(&policy), SCHED_OTHER);
	/* as a sample process does; its context switches so far said */
	assert_true(kscen_harness_unpin() >= 0);
	assert_int_equal(nr_cpus(), n);
	assert_int_equal(sched_getscheduler(0), SCHED_OTHER);
	kscen_harness_release();
	assert_int_equal(kscen_harness_cpu(), -1);
	assert_int_equal(kscen_harness_unpin(), -1);
	/* the test hook's CPU, each of them; one not allowed: where we are */
	cpu_set_t all;

	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		char v[16];

		if (!CPU_ISSET(c, &all))
			continue;
		snprintf(v, sizeof(v), "%d", c);
		setenv("KSCEN_TEST_HARNESS_CPU", v, 1);
		assert_int_equal(kscen_harness_pin(), 0);
		assert_int_equal(kscen_harness_cpu(), c);
		assert_int_equal(sched_getcpu(), c);
		kscen_harness_release();
	}
	setenv("KSCEN_TEST_HARNESS_CPU", "4096", 1);
	assert_int_equal(kscen_harness_pin(), 0);
	assert_true(kscen_harness_cpu() >= 0 && kscen_harness_cpu() < 4096);
	kscen_harness_release();
	unsetenv("KSCEN_TEST_HARNESS_CPU");
}

int kscen_spawn_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spawn_program_output),
		cmocka_unit_test(test_spawn_missing_program_is_127),
		cmocka_unit_test(test_spawn_function_and_group_kill),
		cmocka_unit_test(test_wait_status_text),
		cmocka_unit_test(test_harness_pin_children_not),
	};

	return cmocka_run_group_tests_name("spawn", tests, NULL, NULL);
}
