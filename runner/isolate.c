// SPDX-License-Identifier: GPL-2.0
/*
 * isolate.c - take one sample in a child process of its own.
 *
 * The child is a fresh process group running setup -> sample -> teardown and
 * writing one fixed-size record back through a pipe. Whatever the workload
 * does (segfaults, aborts, hangs, leaks threads, fds or perf events, forks
 * helpers) the runner survives it: a crash becomes a failed job with the
 * signal named, a hang is killed at the sample's timeout, and the whole
 * group is killed when the sample ends, so nothing a job opens outlives it.
 */
#define _GNU_SOURCE	/* pipe2, sigabbrev_np */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <stdio.h>
#include "util.h"
#include "runner.h"

volatile sig_atomic_t kscen_interrupted;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void child(const struct kscen_job *job, int fd, pid_t parent,
		  int procs_fd)
{
	const struct kscen_workload *w = job->workload;
	struct kscen_sample_out out = { 0 };
	struct kscen_ctx ctx = { .params = job->params, .verbose = kscen_verbose };
	ssize_t n;

	setpgid(0, 0);
	kscen_contain_enter(procs_fd);	/* before anything can fork */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* the runner died before prctl */
		_exit(1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);

	out.ret = w->setup ? w->setup(&ctx) : 0;
	if (out.ret == 0) {
		out.ret = w->sample(&ctx, out.v);
		out.nr = job->nr_metrics;
		if (w->teardown)
			w->teardown(&ctx);
	}
	memcpy(out.reason, ctx.reason, sizeof(out.reason));
	out.reason[sizeof(out.reason) - 1] = '\0';
	if (out.ret && !out.reason[0])
		snprintf(out.reason, sizeof(out.reason), "%s", strerror(-out.ret));
	n = write(fd, &out, sizeof(out));
	_exit(n == sizeof(out) ? 0 : 1);
}

static void describe_status(int status, struct kscen_sample_out *out)
{
	out->ret = -EIO;
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const char *abbrev = sigabbrev_np(sig);

		snprintf(out->reason, sizeof(out->reason),
			 "sample killed by signal SIG%s (%d)%s",
			 abbrev ? abbrev : "?", sig,
			 WCOREDUMP(status) ? ", core dumped" : "");
	} else {
		snprintf(out->reason, sizeof(out->reason),
			 "sample exited with status %d without a result",
			 WEXITSTATUS(status));
	}
}

int kscen_sample_isolated(const struct kscen_job *job, long long timeout_ns,
			  struct kscen_sample_out *out)
{
	long long deadline = now_ns() + timeout_ns;
	size_t got = 0;
	int pfd[2], pidfd, status = 0, procs_fd;
	pid_t pid, parent = getpid();
	double cpu, mem;

	memset(out, 0, sizeof(*out));
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	procs_fd = kscen_contain_sample_begin();
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(pfd[0]);
		close(pfd[1]);
		kscen_contain_sample_end(procs_fd, &cpu, &mem);
		return err;
	}
	if (pid == 0) {
		close(pfd[0]);
		child(job, pfd[1], parent, procs_fd);
	}
	setpgid(pid, pid);	/* also here: no window where kill(-pid) misses */
	close(pfd[1]);
	/*
	 * Wait for the record or for the child's exit, whichever comes: a
	 * crashed child whose own children still hold the pipe must not look
	 * like a hang. Without pidfd (before 5.3) EOF alone ends the wait.
	 */
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);

	while (got < sizeof(*out)) {
		struct pollfd p[2] = {
			{ .fd = pfd[0], .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN },
		};
		long long left = deadline - now_ns();
		ssize_t n;
		int r;

		if (kscen_interrupted) {
			snprintf(out->reason, sizeof(out->reason), "interrupted");
			out->ret = -EINTR;
			break;
		}
		if (left <= 0) {
			snprintf(out->reason, sizeof(out->reason),
				 "sample timed out after %.3g s", timeout_ns / 1e9);
			out->ret = -ETIMEDOUT;
			break;
		}
		r = poll(p, pidfd >= 0 ? 2 : 1, left / 1000000 + 1);
		if (r <= 0)
			continue;	/* EINTR or the deadline: checked above */
		n = read(pfd[0], (char *)out + got, sizeof(*out) - got);
		if (n > 0) {
			got += n;
			continue;
		}
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			break;
		if (p[1].revents)	/* exited, and nothing more in the pipe */
			break;
	}
	if (pidfd >= 0)
		close(pidfd);
	close(pfd[0]);
	if (got < sizeof(*out) && !out->ret)
		kill(-pid, SIGKILL);	/* EOF: may still be alive without its pipe */
	if (out->ret == -ETIMEDOUT || out->ret == -EINTR)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	kill(-pid, SIGKILL);	/* whatever the sample left behind */
	/* and whatever left its group: its cgroup, then every orphan */
	kscen_contain_sample_end(procs_fd, &cpu, &mem);
	if (out->ret == -ETIMEDOUT || out->ret == -EINTR)
		return 0;
	if (got < sizeof(*out))
		describe_status(status, out);
	else if (out->nr > KSCEN_MAX_METRICS)
		out->nr = KSCEN_MAX_METRICS;
	/* The cgroup's figures follow the workload's own metrics. */
	if (got == sizeof(*out) && out->ret == 0 && out->nr == job->nr_metrics) {
		const struct kscen_metric_desc *d;
		unsigned extra = kscen_contain_extra(&d);

		if (out->nr + extra <= KSCEN_MAX_METRICS && extra) {
			out->v[out->nr++] = cpu;
			if (extra > 1)
				out->v[out->nr++] = mem;
		}
	}
	out->reason[sizeof(out->reason) - 1] = '\0';
	return 0;
}
