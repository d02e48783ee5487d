// SPDX-License-Identifier: GPL-2.0
/*
 * test_spawn_capture.c - spawn.c's kscen_child_capture() and
 * kscen_child_finish(): capped output (stdout keeps its head, stderr its
 * tail), a capture that ends at a full record, at a stop flag, and a
 * finish whose timeout kills the child's whole group. No test measures
 * time: the one timeout is of a child that would sleep for ten minutes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/child.h"

int kscen_spawn_capture_tests(void);

static void output_init(struct kscen_child_output *o, char *buf, size_t max,
			int fd)
{
	memset(o, 0, sizeof(*o));
	o->data = buf;
	o->max = max;
	o->fd = fd;
}

/* Past the cap stdout keeps its head, stderr its newest bytes. */
static void test_capture_is_capped(void **state)
{
	char *const argv[] = { "/bin/sh", "-c",
			       "echo out; head -c 100000 /dev/zero >&2; echo >&2; "
			       "echo last >&2; head -c 100000 /dev/zero", NULL };
	struct kscen_child c = {
		.argv = argv, .in = KSCEN_CHILD_NULL, .out = KSCEN_CHILD_PIPE,
		.err = KSCEN_CHILD_PIPE, .flags = KSCEN_CHILD_CLEAN | KSCEN_CHILD_PIDFD,
	};
	static char out[4097], err[4097];
	struct kscen_child_output o[2];

	(void)state;
	assert_int_equal(kscen_child_start(&c), 0);
	output_init(&o[0], out, 4096, c.out_fd);
	output_init(&o[1], err, 4096, c.err_fd);
	o[1].keep_tail = true;
	assert_int_equal(kscen_child_capture(&c, o, 2, -1, NULL), 0);
	assert_int_equal(kscen_child_finish(&c, -1), 0);
	kscen_child_kill(&c);
	assert_true(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0);
	assert_true(o[0].truncated && o[1].truncated);
	assert_int_equal(o[0].len, 4096);
	assert_memory_equal(out, "out\n", 4);
	assert_true(o[1].len >= 5 && o[1].len <= 4096);
	assert_string_equal(err + o[1].len - 5, "last\n");
}

/* An until_full output ends the capture once full, the child still alive. */
static void test_capture_until_full(void **state)
{
	char *const argv[] = { "/bin/sh", "-c", "printf 12345678; exec sleep 600", NULL };
	struct kscen_child c = {
		.argv = argv, .out = KSCEN_CHILD_PIPE,
		.flags = KSCEN_CHILD_CLEAN | KSCEN_CHILD_PIDFD | KSCEN_CHILD_PGROUP,
	};
	struct kscen_child_output o;
	char rec[9];

	(void)state;
	assert_int_equal(kscen_child_start(&c), 0);
	output_init(&o, rec, 8, c.out_fd);
	o.until_full = true;
	assert_int_equal(kscen_child_capture(&c, &o, 1, -1, NULL), 0);
	assert_string_equal(rec, "12345678");
	assert_true(c.pid > 0);		/* not reaped: it sleeps on */
	kscen_child_kill(&c);
	assert_true(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGKILL);
}

/* A stop flag already set ends the capture at once with -EINTR. */
static void test_capture_stop_flag(void **state)
{
	char *const argv[] = { "/bin/sh", "-c", "exec sleep 600", NULL };
	struct kscen_child c = {
		.argv = argv, .out = KSCEN_CHILD_PIPE,
		.flags = KSCEN_CHILD_CLEAN | KSCEN_CHILD_PIDFD,
	};
	static volatile sig_atomic_t stop = 1;
	struct kscen_child_output o;
	char buf[16];

	(void)state;
	assert_int_equal(kscen_child_start(&c), 0);
	output_init(&o, buf, sizeof(buf) - 1, c.out_fd);
	assert_int_equal(kscen_child_capture(&c, &o, 1, -1, &stop), -EINTR);
	assert_int_equal(o.len, 0);
	kscen_child_kill(&c);
	assert_true(WIFSIGNALED(c.status));
}

/*
 * Past its timeout a child is SIGKILLed with its whole group and reaped:
 * the grandchild it started in the background is gone too.
 */
static void test_finish_timeout_kills_group(void **state)
{
	char *const argv[] = { "/bin/sh", "-c", "sleep 600 & echo $!; wait", NULL };
	struct kscen_child c = {
		.argv = argv, .out = KSCEN_CHILD_PIPE,
		.flags = KSCEN_CHILD_CLEAN | KSCEN_CHILD_PIDFD | KSCEN_CHILD_PGROUP,
	};
	char out[32] = "", path[64], st;
	long grandchild;
	ssize_t n;
	FILE *f;
	int i;

	(void)state;
	assert_int_equal(kscen_child_start(&c), 0);
	n = read(c.out_fd, out, sizeof(out) - 1);	/* one echo, one write */
	assert_true(n > 1);
	grandchild = strtol(out, NULL, 10);
	assert_true(grandchild > 0);
	/* The shell waits for sleep 600: it has not exited 10 ms later. */
	assert_int_equal(kscen_child_finish(&c, 10), -ETIMEDOUT);
	assert_true(c.pid < 0);	/* reaped */
	assert_true(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGKILL);
	kscen_child_close(&c);
	/* Not our child: the group's SIGKILL took it; wait until it is gone. */
	snprintf(path, sizeof(path), "/proc/%ld/stat", grandchild);
	for (i = 0; i < 10000; i++) {
		f = fopen(path, "r");
		if (!f)
			break;	/* reaped */
		st = 0;
		n = fscanf(f, "%*d %*s %c", &st);
		fclose(f);
		if (n == 1 && st == 'Z')
			break;	/* dead, its reaper not there yet */
		usleep(1000);
	}
	assert_true(i < 10000);
}

/* A child that is done by then is reaped, not killed. */
static int exit_five(void *arg)
{
	(void)arg;
	return 5;
}

static void test_finish_reaps_exited(void **state)
{
	struct kscen_child c = { .fn = exit_five, .flags = KSCEN_CHILD_PIDFD };

	(void)state;
	assert_int_equal(kscen_child_start(&c), 0);
	assert_int_equal(kscen_child_finish(&c, -1), 0);
	assert_true(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 5);
	assert_int_equal(kscen_child_finish(&c, 0), 0);	/* nothing left */
	kscen_child_kill(&c);
}

int kscen_spawn_capture_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_is_capped),
		cmocka_unit_test(test_capture_until_full),
		cmocka_unit_test(test_capture_stop_flag),
		cmocka_unit_test(test_finish_timeout_kills_group),
		cmocka_unit_test(test_finish_reaps_exited),
	};

	return cmocka_run_group_tests_name("spawn_capture", tests, NULL, NULL);
}
