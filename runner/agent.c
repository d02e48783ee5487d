// SPDX-License-Identifier: GPL-2.0
/*
 * agent.c - `kscen agent SCENARIO`, the guest side of `kscen ab` (not meant
 * to be run by hand). It loads and expands the same scenario file (the same
 * path, through the shared root), then answers requests on the virtio-serial
 * port "kscen.agent" (or stdin/stdout with --stdio, for tests), one line
 * each way:
 *
 *   agent: hello <scenario sha256> <jobs> <release>\t<uname -v>
 *   host:  sample <job index> <timeout ns>
 *   agent: out <ret> <nr> <ns in the guest> <v0> ... <v7>\t<reason>
 *   host:  quit
 *
 * A sample is taken exactly as `kscen run` takes it (the workload's
 * supported(), then kscen_sample_isolated()), so a job means the same in a
 * guest as on the host. "ns in the guest" is the
 * time the sample took as the guest's clock saw it; the host subtracts it
 * from the round trip to measure what the agent costs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <stdio.h>
#include "util.h"
#include "runner.h"
#include "vm.h"

/* /dev/vportNpM whose /sys/class/virtio-ports/vportNpM/name is ours. */
static int open_port(void)
{
	DIR *d = opendir("/sys/class/virtio-ports");
	struct dirent *e;
	int fd = -ENOENT;

	if (!d)
		return -errno;
	while (fd < 0 && (e = readdir(d))) {
		char *p = kscen_xasprintf("/sys/class/virtio-ports/%s/name", e->d_name);
		char name[64] = "";
		FILE *f = fopen(p, "re");

		free(p);
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) &&
		    !strncmp(name, KSCEN_VM_AGENT_PORT, strlen(KSCEN_VM_AGENT_PORT))) {
			p = kscen_xasprintf("/dev/%s", e->d_name);
			fd = open(p, O_RDWR | O_CLOEXEC);
			if (fd < 0)
				fd = -errno;
			free(p);
		}
		fclose(f);
	}
	closedir(d);
	return fd;
}

/* Tabs and newlines would break the line protocol. */
static void flatten(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\t' || *s == '\r')
			*s = ' ';
}

static int reply(int fd, const char *s)
{
	size_t n = strlen(s), done = 0;

	while (done < n) {
		ssize_t w = write(fd, s + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		done += w;
	}
	return 0;
}

/*
 * The cleanup: of every job sampled here, once, when kscen ab quits: where
 * its prepare: ran, in this guest. A failure is said, not fatal.
 */
static void cleanups(const struct kscen_scenario *s, const struct kscen_jobs *jobs,
		     const bool *sampled)
{
	char reason[KSCEN_REASON_MAX];

	for (unsigned i = 0; i < jobs->nr; i++)
		if (sampled[i] && jobs->job[i].spec->cleanup &&
		    kscen_job_command("cleanup", jobs->job[i].spec->cleanup,
				      kscen_job_timeout(s, &jobs->job[i]), reason,
				      sizeof(reason)))
			fprintf(stderr, "kscen agent: %s: %s\n", jobs->job[i].id, reason);
}

int kscen_cmd_agent(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stdio", no_argument, NULL, 's' },
		{ 0 },
	};
	struct kscen_scenario *s = NULL;
	struct kscen_jobs jobs = { 0 };
	struct utsname u;
	bool stdio = false, *sampled = NULL, quit = false;
	char *line = NULL, *msg;
	size_t cap = 0;
	int opt, in, out, ret = 0;
	FILE *f;

	while ((opt = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (opt != 's')
			return 2;
		stdio = true;
	}
	if (argc - optind != 1) {
		fprintf(stderr, "kscen agent: needs one scenario file (it serves kscen ab)\n");
		return 2;
	}
	if (stdio) {
		/* the protocol keeps stdout; what a workload prints goes to stderr */
		in = 0;
		out = fcntl(1, F_DUPFD_CLOEXEC, 3);
		dup2(2, 1);
	} else {
		in = out = open_port();
		if (in < 0) {
			fprintf(stderr, "kscen agent: no virtio-serial port %s: %s\n",
				KSCEN_VM_AGENT_PORT, strerror(-in));
			return 3;
		}
	}
	f = fdopen(in, "r");
	if (!f)
		return 3;
	uname(&u);
	if (kscen_scenario_load(argv[optind], &s) || kscen_expand(s, 100000, &jobs)) {
		reply(out, "error the scenario does not load in the guest\n");
		ret = 2;
		goto out;
	}
	sampled = kscen_xcalloc(jobs.nr + 1, sizeof(*sampled));
	flatten(u.version);
	msg = kscen_xasprintf("hello %s %u %s\t%s\n", s->sha256, jobs.nr, u.release,
			      u.version);
	ret = reply(out, msg);
	free(msg);
	while (!ret && getline(&line, &cap, f) > 0) {
		struct kscen_sample_out so = { 0 };
		unsigned long idx;
		long long timeout, t0;
		char buf[64 + 26 * KSCEN_MAX_METRICS + KSCEN_REASON_MAX], *p;

		if (!strncmp(line, "quit", 4)) {
			cleanups(s, &jobs, sampled);
			quit = true;
			reply(out, "bye\n");
			break;
		}
		if (sscanf(line, "sample %lu %lld", &idx, &timeout) != 2 || idx >= jobs.nr ||
		    timeout <= 0) {
			ret = reply(out, "out -22 0 0\tbad request\n");
			continue;
		}
		t0 = kscen_now_ns();
		if (jobs.job[idx].workload->supported) {
			/* what kscen run asks on the host, asked of this kernel */
			struct kscen_ctx ctx = { .params = jobs.job[idx].params,
						 .verbose = kscen_verbose };

			memset(&so, 0, sizeof(so));
			so.ret = jobs.job[idx].workload->supported(&ctx);
			memcpy(so.reason, ctx.reason, sizeof(so.reason));
			so.reason[sizeof(so.reason) - 1] = '\0';
		}
		if (so.ret) {
			so.nr = 0;
			if (!so.reason[0])
				snprintf(so.reason, sizeof(so.reason), "not supported here");
		} else {
			sampled[idx] = true;	/* its cleanup: runs here, at quit */
			if (kscen_sample_isolated(&jobs.job[idx], timeout, &so)) {
				so.ret = -EIO;
				so.nr = 0;
				snprintf(so.reason, sizeof(so.reason), "the agent cannot fork");
			}
		}
		p = buf + sprintf(buf, "out %d %u %lld", so.ret, so.nr, kscen_now_ns() - t0);
		for (unsigned i = 0; i < KSCEN_MAX_METRICS; i++)
			p += sprintf(p, " %.17g", i < so.nr ? so.v[i] : 0.0);
		flatten(so.reason);
		sprintf(p, "\t%s\n", so.reason);
		ret = reply(out, buf);
	}
	if (!quit)	/* kscen ab went away without a quit */
		cleanups(s, &jobs, sampled);
out:
	free(sampled);
	free(line);
	fclose(f);
	kscen_jobs_free(&jobs);
	if (s)
		kscen_scenario_free(s);
	return ret ? 3 : 0;
}
