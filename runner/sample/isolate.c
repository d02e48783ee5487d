// SPDX-License-Identifier: GPL-2.0
/*
 * isolate.c - take one sample in a child process of its own.
 *
 * The child is a fresh process group running setup -> sample -> teardown and
 * writing one fixed-size record back through a pipe. It is forked from the
 * fork server (sampler.c) when `kscen run` started one, otherwise from the
 * runner itself; either way the runner waits for it, times it out and
 * kills it here. An exec sample has no such process: its command is the
 * sample's process (sample_inline()). Whatever the workload
 * does (segfaults, aborts, hangs, leaks threads, fds or perf events, forks
 * helpers) the runner survives it: a crash becomes a failed job with the
 * signal named, a hang is killed at the sample's timeout, and the whole
 * group is killed when the sample ends, so nothing a job opens outlives it.
 */
#define _GNU_SOURCE	/* pipe2 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdio.h>
#include "lib/util.h"
#include "runner.h"
#include "lib/child.h"
#include "sampler.h"


/* Without the fork server: the sample process forked from the runner. */
static int sample_child(void *arg)
{
	return kscen_sample_body(arg);
}

static void describe_status(int status, struct kscen_sample_out *out)
{
	char how[96];

	out->ret = -EIO;
	kscen_wait_status_text(status, how, sizeof(how));
	if (WIFSIGNALED(status))
		snprintf(out->reason, sizeof(out->reason), "sample %s", how);
	else
		snprintf(out->reason, sizeof(out->reason), "sample %s without a result",
			 how);
}

/* A sample that ran out of time (-ETIMEDOUT) or was interrupted (-EINTR). */
static void stopped(struct kscen_sample_out *out, int ret, long long timeout_ns)
{
	if (ret == -EINTR)
		snprintf(out->reason, sizeof(out->reason), "interrupted");
	else if (ret == -ETIMEDOUT)
		snprintf(out->reason, sizeof(out->reason),
			 "sample timed out after %.3g s", timeout_ns / 1e9);
	else
		return;
	out->ret = ret;
}

/* The cgroup's figures follow the workload's own metrics of a whole sample. */
static void add_cgroup_figures(const struct kscen_job *job,
			       struct kscen_sample_out *out, double cpu, double mem)
{
	const struct kscen_metric_desc *d;
	unsigned extra = kscen_contain_extra(&d);

	if (out->ret || out->nr != job->nr_metrics || !extra ||
	    out->nr + extra > KSCEN_MAX_METRICS)
		return;
	out->v[out->nr++] = cpu;
	if (extra > 1)
		out->v[out->nr++] = mem;
}

/* What the pipe @o->fd holds now, up to @o->max: its writer has ended. */
static void read_ready(struct kscen_child_output *o)
{
	int fl = fcntl(o->fd, F_GETFL);

	if (fl < 0 || fcntl(o->fd, F_SETFL, fl | O_NONBLOCK))
		return;
	while (o->len < o->max) {
		ssize_t n = read(o->fd, o->data + o->len, o->max - o->len);

		if (n > 0)
			o->len += n;
		else if (n == 0 || errno != EINTR)
			break;
	}
}

/*
 * A sample process of the fork server: its end, on the server's word
 * alone, then its record, which it wrote last before it ended. Its record
 * and its exit would each wake us while it still runs (a pipe, a pidfd),
 * so that it would end with the runner ready on its CPU; the server's reap
 * comes after, and one wake-up does. Within @left_ms or until ^C, as the
 * record is waited for otherwise; a record whole by then is a sample whose
 * exit is slow (the kernel taking its memory down), waited for without a
 * limit, as after a record before: for its end, that is; a server silent
 * 5 s after that end is stopped (kscen_sampler_wait()).
 */
static int wait_served(struct kscen_child *c, struct kscen_child_output *res,
		       long long left_ms)
{
	int ret = kscen_sampler_wait(c, left_ms, &kscen_interrupted);

	read_ready(res);
	if (ret && res->len == res->max)
		ret = kscen_sampler_wait(c, -1, NULL);
	return ret;
}

static int sample_isolated(const struct kscen_job *job, long long timeout_ns,
			   struct kscen_sample_out *out)
{
	long long deadline = kscen_now_ns() + timeout_ns;
	struct kscen_sample_req sc = {
		.w = job->workload, .params = job->params,
		.captures = job->spec->captures, .nr_captures = job->spec->nr_captures,
		.nr_metrics = job->nr_metrics, .verbose = kscen_verbose,
		.pinned_switches = -1,
	};
	struct kscen_child c = {
		.fn = sample_child, .arg = &sc,
		.flags = KSCEN_CHILD_PGROUP | KSCEN_CHILD_PDEATHSIG | KSCEN_CHILD_PIDFD,
	};
	char rec[sizeof(*out) + 1];
	struct kscen_child_output res = { .data = rec, .max = sizeof(*out),
					  .until_full = true };
	long long left, left_ms;
	size_t got;
	int pfd[2], ret;
	double cpu, mem;

	memset(out, 0, sizeof(*out));
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	sc.fd = pfd[1];
	sc.procs_fd = kscen_contain_sample_begin();
	ret = kscen_sampler_spawn(job, sc.fd, sc.procs_fd, kscen_contain_sample_dir(), &c);
	if (ret == -ENOTCONN)	/* no fork server: fork from here */
		ret = kscen_child_start(&c);
	close(pfd[1]);
	left = deadline - kscen_now_ns();
	if (ret) {
		close(pfd[0]);
		kscen_contain_sample_end(sc.procs_fd, &cpu, &mem);
		return ret;
	}
	res.fd = pfd[0];
	left_ms = left > 0 ? (left + 999999) / 1000000 : 0;
	if (kscen_sampler_child(&c)) {
		ret = wait_served(&c, &res, left_ms);
	} else {
		/*
		 * Wait for the record or for the child's exit, whichever
		 * comes: a crashed child whose own children still hold the
		 * pipe must not look like a hang. Without pidfd (before 5.3)
		 * EOF alone ends the wait.
		 */
		ret = kscen_child_capture(&c, &res, 1, left_ms, &kscen_interrupted);
	}
	close(pfd[0]);
	stopped(out, ret, timeout_ns);
	got = res.len;
	if (got == sizeof(*out))
		memcpy(out, rec, sizeof(*out));
	/*
	 * Reap, then kill the group: whatever the sample left behind. Without
	 * its whole record it may still be alive without its pipe (EOF), and
	 * a timeout or an interrupt kills it first.
	 */
	kscen_child_finish(&c, got == sizeof(*out) && !out->ret ? -1 : 0);
	kscen_child_kill(&c);
	/* and whatever left its group: its cgroup, then every orphan */
	kscen_contain_sample_end(sc.procs_fd, &cpu, &mem);
	if (out->ret == -ETIMEDOUT || out->ret == -EINTR)
		return 0;
	if (got < sizeof(*out))
		describe_status(c.status, out);
	else if (out->nr > KSCEN_MAX_METRICS)
		out->nr = KSCEN_MAX_METRICS;
	if (got == sizeof(*out))
		add_cgroup_figures(job, out, cpu, mem);
	out->reason[sizeof(out->reason) - 1] = '\0';
	return 0;
}

/*
 * The same sample without a sample process: the workload's program is the
 * sample's process (sampler.h). Its cgroup, deadline and ^C are handed to
 * the workload, which starts the program in them.
 */
static int sample_inline(const struct kscen_job *job, long long timeout_ns,
			 struct kscen_sample_out *out)
{
	struct kscen_sample_req r = {
		.w = job->workload, .params = job->params,
		.captures = job->spec->captures, .nr_captures = job->spec->nr_captures,
		.nr_metrics = job->nr_metrics, .verbose = kscen_verbose, .fd = -1,
	};
	struct kscen_inline_sample in = {
		.deadline_ns = kscen_now_ns() + timeout_ns, .stop = &kscen_interrupted,
	};
	double cpu, mem;

	in.procs_fd = r.procs_fd = kscen_contain_sample_begin();
	kscen_sample_inline_set(&in);
	kscen_take_sample(&r, out);
	kscen_sample_inline_set(NULL);
	kscen_contain_sample_end(in.procs_fd, &cpu, &mem);
	if (out->ret == -ETIMEDOUT || out->ret == -EINTR)
		stopped(out, out->ret, timeout_ns);
	else
		add_cgroup_figures(job, out, cpu, mem);
	return 0;
}

/* The job's prepare: command first, then the sample, each with the timeout. */
int kscen_sample_isolated(const struct kscen_job *job, long long timeout_ns,
			  struct kscen_sample_out *out)
{
	bool planted;
	int ret;

	memset(out, 0, sizeof(*out));
	if (job->spec->prepare &&
	    kscen_job_command("prepare", job->spec->prepare, timeout_ns,
			      out->reason, sizeof(out->reason))) {
		out->ret = kscen_interrupted ? -EINTR : -EIO;
		return 0;
	}
	/* KSCEN_TEST_DISTURB: the planted load runs over the whole sample */
	planted = kscen_noise_plant_begin();
	if (kscen_workload_inline(job->workload))
		ret = sample_inline(job, timeout_ns, out);
	else
		ret = sample_isolated(job, timeout_ns, out);
	if (planted)
		kscen_noise_plant_end();
	out->noise.planted = planted;
	return ret;
}
