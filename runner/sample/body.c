// SPDX-License-Identifier: GPL-2.0
/*
 * body.c - what runs in a sample process: the sample joins its cgroup
 * before anything can fork, takes back the default signal actions, runs
 * the workload's setup -> sample -> teardown, with the sentinels read
 * around sample(), and writes one fixed-size record to the runner. The fork server (sampler.c) and, without a server,
 * isolate.c fork such a process; an inline sample (isolate.c) runs the
 * same hooks in the runner.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "noise.h"
#include "runner.h"
#include "sampler.h"

/*
 * setup -> sample -> teardown of @r's workload, in whichever process.
 * Hot, as the sentinels' code is (noise.c): the linker puts them on the
 * same pages, which a fresh sample process then faults in once.
 */
__attribute__((hot)) void kscen_take_sample(const struct kscen_sample_req *r, struct kscen_sample_out *out)
{
	const struct kscen_workload *w = r->w;
	struct kscen_ctx ctx = {
		.params = r->params, .verbose = r->verbose,
		.captures = r->captures, .nr_captures = r->nr_captures,
	};

	struct kscen_noise_span span;

	memset(out, 0, sizeof(*out));
	out->ret = w->setup ? w->setup(&ctx) : 0;
	if (out->ret == 0) {
		/* the sentinels around what the sample times (noise.c) */
		kscen_noise_begin(&span, r->pinned_switches);
		out->ret = w->sample(&ctx, out->v);
		kscen_noise_end(&span, &out->noise);
		out->nr = r->nr_metrics;
		if (w->teardown)
			w->teardown(&ctx);
	}
	memcpy(out->reason, ctx.reason, sizeof(out->reason));
	out->reason[sizeof(out->reason) - 1] = '\0';
	/* inf or nan is no sample: it would poison every summary after it */
	for (unsigned i = 0; out->ret == 0 && i < out->nr && i < KSCEN_MAX_METRICS; i++)
		if (!isfinite(out->v[i])) {
			out->ret = -ERANGE;
			snprintf(out->reason, sizeof(out->reason), "sample() gave metric %u "
				 "the value %g, not a finite number", i + 1, out->v[i]);
		}
	if (out->ret && !out->reason[0])
		snprintf(out->reason, sizeof(out->reason), "%s", strerror(-out->ret));
}

/*
 * A signal's default action back, through syscall() (signal()'s is a page
 * of libc of its own, which each sample process would fault in): the
 * kernel's struct sigaction, where that is the generic one.
 */
#if defined(__x86_64__) || defined(__aarch64__)
static __attribute__((hot)) void default_action(int sig)
{
	struct { void *handler; unsigned long flags; void *restorer; unsigned long mask; }
		sa = { .handler = SIG_DFL };

	syscall(SYS_rt_sigaction, sig, &sa, NULL, sizeof(sa.mask));
}
#else
static void default_action(int sig)
{
	signal(sig, SIG_DFL);
}
#endif

/* The sample process: setup -> sample -> teardown, one record back. */
__attribute__((hot)) int kscen_sample_body(const struct kscen_sample_req *r)
{
	struct kscen_sample_out out;
	ssize_t n;

	kscen_contain_enter(r->procs_fd);	/* before anything can fork */
	if (!r->signals_default) {	/* the server's, or the runner's */
#define DEFAULT_ACTION(sig) default_action(sig);
		KSCEN_SAMPLE_SIGNALS(DEFAULT_ACTION)
#undef DEFAULT_ACTION
	}
	kscen_take_sample(r, &out);
	n = syscall(SYS_write, r->fd, &out, sizeof(out));
	return n == sizeof(out) ? 0 : 1;
}
