/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sampler.h - the fork server every sample process is started from
 * (sampler.c), and the sample process's body (body.c).
 */
#ifndef KSCEN_SAMPLER_H
#define KSCEN_SAMPLER_H

#include "lib/child.h"
#include "expand/jobs.h"

/*
 * The signals a sample process must find at their default action: those
 * the runner handles (cmd_catch_signals(), cli/cmd.c) and SIGPIPE, which
 * kscen may have been started with ignored. The fork server catches each,
 * so that a clone3() with CLONE_CLEAR_SIGHAND gives its sample processes
 * the default (sampler.c); a sample process forked otherwise sets each
 * itself (body.c). A list the compiler expands into immediates, not an
 * array: a fresh sample process would fault in the page an array is on.
 */
#define KSCEN_SAMPLE_SIGNALS(X) X(SIGINT) X(SIGTERM) X(SIGHUP) X(SIGPIPE)

/* What a sample process runs: one setup -> sample -> teardown. */
struct kscen_sample_req {
	const struct kscen_workload *w;
	const void *params;
	const struct kscen_capture *captures;
	unsigned nr_captures;
	unsigned nr_metrics;	/* the job's, captures included */
	int verbose;
	int fd;			/* the record's pipe */
	int procs_fd;		/* the sample's cgroup, or -1 */
	/*
	 * Born on the harness's CPU: its thread's context switches when it
	 * got its CPUs back (kscen_harness_unpin()), else -1. The sentinels
	 * read its migrations only once it has had more (noise.c).
	 */
	long pinned_switches;
	/* born with every handled signal at SIG_DFL (CLONE_CLEAR_SIGHAND) */
	bool signals_default;
};

/* body.c: the sample process; writes the record, returns its exit status. */
int kscen_sample_body(const struct kscen_sample_req *r);
/* body.c: setup -> sample -> teardown of @r's workload, in this process. */
struct kscen_sample_out;
void kscen_take_sample(const struct kscen_sample_req *r, struct kscen_sample_out *out);

/*
 * Fork the server now, while the runner is small: before the scenario is
 * expanded and any reference run loaded. 0, or -errno (samples are then
 * forked from the runner itself, as they were before).
 */
int kscen_sampler_start(void);
void kscen_sampler_stop(void);
/* The server's pid, or -1 (tests). */
pid_t kscen_sampler_pid(void);
/*
 * Start @job's sample process through the server, with @fd and @procs_fd:
 * in its own process group, dying with us, born in the cgroup of @cg_fd
 * (its directory; -1: none) where the kernel can, else joining it through
 * @procs_fd (@cg_fd is only sent with @procs_fd); @c gets its pid, pgid, pidfd and
 * a reap hook (the server reaps it), so kscen_child_capture(), _finish()
 * and _kill() treat it as one of ours. -ENOTCONN when there is no server;
 * -errno otherwise.
 */
int kscen_sampler_spawn(const struct kscen_job *job, int fd, int procs_fd, int cg_fd,
			struct kscen_child *c);
/*
 * Wait for the end of @c, a sample process of the server, on the server's
 * word alone: 0 once it is reaped (c->status, c->ru), -ETIMEDOUT after
 * @timeout_ms (-1: none) or -EINTR once *@stop is set, while it still
 * runs. Nothing of the sample wakes us before its end: neither its record
 * nor its exit, only the server's reap.
 */
int kscen_sampler_wait(struct kscen_child *c, long long timeout_ms,
		       const volatile sig_atomic_t *stop);
/* Is @c a sample process of the server? */
bool kscen_sampler_child(const struct kscen_child *c);

/*
 * The request's encoding, for tests: @job into @p (0: it does not fit in
 * @cap), and back into @r (params allocated, strings pointing into @p).
 */
size_t kscen_sampler_encode(const struct kscen_job *job, char *p, size_t cap);
int kscen_sampler_decode(char *p, size_t len, struct kscen_sample_req *r);

#endif
