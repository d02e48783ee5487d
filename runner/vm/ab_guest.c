// SPDX-License-Identifier: GPL-2.0
/*
 * ab_guest.c - kscen ab's side of the conversation with the agent in each
 * guest (agent.c): one line a request and a reply, a sample on request, and
 * a guest that panics, hangs or loses its qemu declared dead with the
 * console's last lines as the reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>

#include "lib/diag.h"
#include "lib/child.h"
#include "lib/util.h"
#include "ab.h"

const char *const ab_labels[2] = { "A", "B" };

static void guest_dies(struct guest *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void guest_dies(struct guest *g, const char *fmt, ...)
{
	va_list ap;
	char *why;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		abort();
	va_end(ap);
	kscen_error("ab", "kernel %s (%s): %s", g->c.label,
		    g->vm.release ? g->vm.release : "?", why);
	kscen_vm_stop(&g->vm, 0);
	kscen_vm_print_tail(&g->vm);
	if (g->vm.panic) {	/* the reason its jobs failed, in the report */
		char *p;
		const char *l = strstr(g->vm.panic, "] ") ? strstr(g->vm.panic, "] ") + 2
							   : g->vm.panic;

		p = kscen_xasprintf("%s (%s)", why, l);
		free(why);
		why = p;
	}
	g->dead = why;
}

/*
 * The agent's next line (without the newline) in *line, within @timeout_s.
 * 0; -EPIPE when the guest is gone, -ETIMEDOUT, -EINTR (^C).
 */
int ab_agent_line(struct guest *g, double timeout_s, char **line)
{
	double deadline = kscen_now_ns() / 1e9 + timeout_s;

	for (;;) {
		char *nl = memchr(g->buf, '\n', g->len);
		struct pollfd p[2] = {
			{ .fd = g->vm.agent, .events = POLLIN },
			{ .fd = g->vm.console, .events = POLLIN },
		};
		double left = deadline - kscen_now_ns() / 1e9;
		ssize_t r;

		if (nl) {
			*nl = '\0';
			*line = kscen_xstrdup(g->buf);
			g->len -= nl + 1 - g->buf;
			memmove(g->buf, nl + 1, g->len);
			return 0;
		}
		if (g->len == sizeof(g->buf))
			return -EPROTO;
		if (kscen_interrupted)
			return -EINTR;
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(p, g->vm.console >= 0 ? 2 : 1, left > 0.5 ? 500 : left * 1000 + 1) <= 0)
			continue;
		if (p[1].revents && kscen_vm_pump(&g->vm, 0))
			return -EPIPE;	/* qemu exited */
		if (!p[0].revents)
			continue;
		r = read(g->vm.agent, g->buf + g->len, sizeof(g->buf) - g->len);
		if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			return -EPIPE;
		if (r > 0)
			g->len += r;
	}
}

int ab_local_spawn(struct guest *g, char *const *argv)
{
	struct kscen_child c = { .argv = argv, .flags = KSCEN_CHILD_PDEATHSIG };
	int sv[2], ret;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	c.in = c.out = sv[1];
	ret = kscen_child_start(&c);
	close(sv[1]);
	if (ret) {
		close(sv[0]);
		return ret;
	}
	memset(&g->vm, 0, sizeof(g->vm));
	g->vm.label = g->c.label;
	g->vm.pid = c.pid;
	g->vm.agent = sv[0];
	g->vm.console = g->vm.listen = g->vm.forward = -1;
	g->vm.exit_code = -1;
	g->vm.spawned = kscen_now_ns() / 1e9;
	g->vm.booted = true;
	snprintf(g->vm.accel_why, sizeof(g->vm.accel_why),
		 "KSCEN_AB_LOCAL_AGENTS: no guest, an agent on this machine");
	return 0;
}

int ab_agent_send(struct guest *g, const char *msg)
{
	size_t n = strlen(msg);

	return write(g->vm.agent, msg, n) == (ssize_t)n ? 0 : -EPIPE;
}

static const char *agent_error(int err)
{
	return err == -ETIMEDOUT ? "no answer in time: the guest hangs" :
	       err == -EPIPE ? "the guest died" : strerror(-err);
}

/* Wait for the hello: the agent is up and sees the scenario we see. */
void ab_agent_hello(struct ab *ab, struct guest *g)
{
	char *line = NULL, sha[80], rel[128];
	unsigned nr;
	int ret = ab_agent_line(g, g->c.boot_timeout, &line);

	if (ret) {
		guest_dies(g, "its agent did not start: %s", agent_error(ret));
		return;
	}
	if (sscanf(line, "hello %79s %u %127[^\t]", sha, &nr, rel) != 3) {
		guest_dies(g, "its agent said '%s'", line);
	} else if (strcmp(sha, ab->sha256) || nr != ab->n) {
		guest_dies(g, "the guest sees another scenario file (%u jobs)", nr);
	} else {
		g->release = kscen_xstrdup(rel);
		g->version = kscen_xstrdup(strchr(line, '\t') ? strchr(line, '\t') + 1 : "");
		g->ready_s = kscen_now_ns() / 1e9 - g->vm.spawned;
	}
	free(line);
}

/* run.c's sampler hook: sample jobs->job[index] in its kernel's guest. */
int ab_sample(void *arg, unsigned index, const struct kscen_job *job,
		     long long timeout_ns, struct kscen_sample_out *out)
{
	struct ab *ab = arg;
	struct guest *g = &ab->g[index >= ab->n];
	char req[64], *line = NULL, *tab;
	long long guest_ns = 0;
	double t0;
	int ret, n = 0;

	(void)job;
	memset(out, 0, sizeof(*out));
	out->ret = -EIO;
	if (g->dead) {
		snprintf(out->reason, sizeof(out->reason), "kernel %s: %s",
			 g->c.label, g->dead);
		return 0;
	}
	snprintf(req, sizeof(req), "sample %u %lld\n", index % ab->n, timeout_ns);
	t0 = kscen_now_ns() / 1e9;
	ret = ab_agent_send(g, req);
	if (!ret)
		ret = ab_agent_line(g, timeout_ns / 1e9 + ab->hang_timeout, &line);
	if (ret == -EINTR) {
		out->ret = -EINTR;
		snprintf(out->reason, sizeof(out->reason), "interrupted");
		return 0;
	}
	if (ret) {
		kscen_error("ab", "kernel %s: during a sample of %s",
			    g->c.label, job->id);
		guest_dies(g, "%s", agent_error(ret));
		snprintf(out->reason, sizeof(out->reason), "kernel %s: %s",
			 g->c.label, g->dead);
		return 0;
	}
	if (sscanf(line, "out %d %u %lld %n", &out->ret, &out->nr, &guest_ns, &n) < 3 || !n) {
		guest_dies(g, "its agent said '%s'", line);
		snprintf(out->reason, sizeof(out->reason), "kernel %s: %s",
			 g->c.label, g->dead);
		free(line);
		return 0;
	}
	if (out->nr > KSCEN_MAX_METRICS)
		out->nr = KSCEN_MAX_METRICS;
	tab = strchr(line, '\t');
	if (tab)
		*tab++ = '\0';
	for (unsigned i = 0; i < KSCEN_MAX_METRICS; i++) {
		char *end;

		out->v[i] = strtod(line + n, &end);
		n = end - line;
	}
	snprintf(out->reason, sizeof(out->reason), "%s", tab ? tab : "");
	g->over = kscen_xrealloc(g->over, (g->nr_over + 1) * sizeof(double));
	g->over[g->nr_over++] = kscen_now_ns() / 1e9 - t0 - guest_ns / 1e9;
	free(line);
	return 0;
}

void kscen_ab_jobs(const struct kscen_jobs *in, struct kscen_jobs *out)
{
	unsigned n = in->nr;

	out->nr = 2 * n;
	out->job = kscen_xcalloc(2 * n + 1, sizeof(*out->job));
	for (unsigned k = 0; k < 2; k++)
		for (unsigned j = 0; j < n; j++) {
			const struct kscen_job *src = &in->job[j];
			struct kscen_job *d = &out->job[k * n + j];
			const char *slash = strchr(src->id, '/');

			*d = *src;
			d->id = slash ? kscen_xasprintf("%.*s/kernel=%s,%s",
							(int)(slash - src->id), src->id,
							ab_labels[k], slash + 1)
				      : kscen_xasprintf("%s/kernel=%s", src->id, ab_labels[k]);
			d->nr_kv = src->nr_kv + 1;
			d->keys = kscen_xcalloc(d->nr_kv + 1, sizeof(char *));
			d->values = kscen_xcalloc(d->nr_kv + 1, sizeof(char *));
			d->keys[0] = kscen_xstrdup("kernel");
			d->values[0] = kscen_xstrdup(ab_labels[k]);
			for (unsigned i = 0; i < src->nr_kv; i++) {
				d->keys[i + 1] = kscen_xstrdup(src->keys[i]);
				d->values[i + 1] = kscen_xstrdup(src->values[i]);
			}
			/* B's baseline is the same job on A: the A -> B delta */
			d->baseline = k ? (int)j : src->baseline;
			d->previous = src->previous < 0 ? -1 : src->previous + (int)(k * n);
		}
}

void kscen_ab_jobs_free(struct kscen_jobs *jobs)
{
	for (unsigned i = 0; i < jobs->nr; i++) {
		struct kscen_job *d = &jobs->job[i];

		for (unsigned k = 0; k < d->nr_kv; k++) {
			free(d->keys[k]);
			free(d->values[k]);
		}
		free(d->keys);
		free(d->values);
		free(d->id);
	}
	free(jobs->job);
}
