// SPDX-License-Identifier: GPL-2.0
/*
 * jobcmd.c - a job's prepare: and cleanup: commands, run by the runner
 * around its samples and never timed: prepare before every sample (warmup
 * and profile samples too, like hyperfine's --prepare: drop caches, reset a
 * file), cleanup once after the job's last sample.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "lib/child.h"
#include "runner.h"
#include "lib/util.h"

#define STDERR_KEPT 4096	/* its tail explains a failure */

int kscen_job_command(const char *what, const char *command, long long timeout_ns,
		      char *reason, size_t len)
{
	char *argv[] = { "/bin/sh", "-c", (char *)command, NULL };
	char err[STDERR_KEPT + 1], how[96], *line;
	struct kscen_child_output o = { .data = err, .max = STDERR_KEPT,
					.keep_tail = true };
	struct kscen_child c = {
		.argv = argv, .in = KSCEN_CHILD_NULL, .out = KSCEN_CHILD_NULL,
		.err = KSCEN_CHILD_PIPE,
		.flags = KSCEN_CHILD_PGROUP | KSCEN_CHILD_PDEATHSIG |
			 KSCEN_CHILD_CLEAN | KSCEN_CHILD_PIDFD,
	};
	long long ms = (timeout_ns + 999999) / 1000000;
	int ret;

	err[0] = '\0';
	ret = kscen_child_start(&c);
	if (ret) {
		snprintf(reason, len, "%s: starting /bin/sh: %s", what, strerror(-ret));
		return ret;
	}
	o.fd = c.err_fd;
	ret = kscen_child_capture(&c, &o, 1, ms, &kscen_interrupted);
	if (!ret)
		ret = kscen_child_finish(&c, ms);
	kscen_child_kill(&c);
	if (ret == -ETIMEDOUT) {
		snprintf(reason, len, "%s: timed out after %.3g s", what, timeout_ns / 1e9);
		return ret;
	}
	if (ret) {
		snprintf(reason, len, "%s: %s", what, strerror(-ret));
		return ret;
	}
	if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0)
		return 0;
	/* The last line of its stderr, if it said anything. */
	while (o.len && (err[o.len - 1] == '\n' || err[o.len - 1] == '\r'))
		err[--o.len] = '\0';
	line = strrchr(err, '\n');
	line = line ? line + 1 : err;
	kscen_wait_status_text(c.status, how, sizeof(how));
	snprintf(reason, len, "%s: command %s%s%.160s", what, how, *line ? ": " : "",
		 line);
	return -EIO;
}
