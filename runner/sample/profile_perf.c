// SPDX-License-Identifier: GPL-2.0
/*
 * profile_perf.c - `profiler: perf`: the same profiled sample under
 * `perf record`, for comparison with kscen's own BPF profiler.
 *
 * perf record runs system-wide (-a) with its events disabled (-D -1) and
 * a control pipe (--control fd:CTL,ACK, perf 5.10 and later), so that it
 * counts from the moment kscen writes "enable" and has its "ack", to the
 * moment the sample is gone. `perf script` then gives every sample with its
 * call chain, and the fork events from which scope: job keeps only the
 * runner's descendants, as the BPF profiler does in the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/util.h"
#include "profile_take.h"
#include "sampler.h"
#include "runner.h"
#include "lib/child.h"

/* Send @cmd on the control pipe and wait up to 10 s for perf's "ack". */
static int control(int ctl, int ack, const char *cmd)
{
	struct pollfd pf = { .fd = ack, .events = POLLIN };
	void (*old)(int);
	char buf[32];
	ssize_t n;

	/* perf may be gone already: an error, never a SIGPIPE of kscen. */
	old = signal(SIGPIPE, SIG_IGN);
	n = write(ctl, cmd, strlen(cmd));
	signal(SIGPIPE, old);
	if (n != (ssize_t)strlen(cmd))
		return -EIO;
	if (poll(&pf, 1, 10000) <= 0)
		return -ETIMEDOUT;
	return read(ack, buf, sizeof(buf)) > 0 ? 0 : -EIO;
}

struct pidmap {
	int *pid, *ppid;
	unsigned n;
};

static int parent_of(const struct pidmap *m, int pid)
{
	for (unsigned i = m->n; i-- > 0;)
		if (m->pid[i] == pid)
			return m->ppid[i];
	return -1;
}

static bool descends(const struct pidmap *m, int pid, int root)
{
	for (int depth = 0; depth < 64 && pid > 1; depth++) {
		pid = parent_of(m, pid);
		if (pid == root)
			return true;
	}
	return false;
}

struct raw {
	int pid;
	char *stack;
};

/* Parse `perf script` output into @p's folded stacks. */
static int parse_script(FILE *f, struct kscen_profile *p, int root)
{
	struct pidmap m = { 0 };
	pid_t server = kscen_sampler_pid();

	/* The fork server started before perf record: say whose child it is. */
	if (root > 0 && server > 0) {
		m.pid = kscen_xmalloc(sizeof(int));
		m.ppid = kscen_xmalloc(sizeof(int));
		m.pid[0] = server;
		m.ppid[0] = root;
		m.n = 1;
	}
	struct raw *raw = NULL;
	unsigned nr_raw = 0;
	char line[4096];
	char **frames = NULL;
	unsigned nr_frames = 0, cap_frames = 0;
	char *comm = NULL;
	int pid = -1;
	bool in_sample = false;

	for (;;) {
		bool eof = !fgets(line, sizeof(line), f);
		char *s;

		if (!eof)
			line[strcspn(line, "\n")] = '\0';
		if (in_sample && (eof || !line[0] || line[0] != '\t')) {
			size_t len = strlen(comm) + 1;
			char *st;

			for (unsigned i = 0; i < nr_frames; i++)
				len += strlen(frames[i]) + 1;
			st = kscen_xmalloc(len + 16);
			strcpy(st, comm);
			for (unsigned i = nr_frames; i-- > 0;) {
				strcat(st, ";");
				strcat(st, frames[i]);
			}
			if (!nr_frames)
				strcat(st, ";[unknown]");
			raw = kscen_xrealloc(raw, (nr_raw + 1) * sizeof(*raw));
			raw[nr_raw++] = (struct raw){ pid, st };
			for (unsigned i = 0; i < nr_frames; i++)
				free(frames[i]);
			nr_frames = 0;
			free(comm);
			comm = NULL;
			in_sample = false;
		}
		if (eof)
			break;
		if ((s = strstr(line, "PERF_RECORD_FORK("))) {
			int cp, ct, pp, pt;

			if (sscanf(s, "PERF_RECORD_FORK(%d:%d):(%d:%d)", &cp, &ct, &pp, &pt) == 4 &&
			    cp == ct && cp != pp) {
				m.pid = kscen_xrealloc(m.pid, (m.n + 1) * sizeof(int));
				m.ppid = kscen_xrealloc(m.ppid, (m.n + 1) * sizeof(int));
				m.pid[m.n] = cp;
				m.ppid[m.n++] = pp;
			}
			continue;
		}
		if (strstr(line, "PERF_RECORD_"))
			continue;
		if (line[0] == '\t' && in_sample) {
			/* "\t<ip> <sym> (<dso>)" */
			char *sym = line + strspn(line, "\t ");
			char *dso = strrchr(sym, '(');
			bool kernel;
			char *fr;

			sym += strcspn(sym, " ");
			sym += strspn(sym, " ");
			if (dso && dso > sym) {
				dso[-1] = '\0';
				dso++;
				dso[strcspn(dso, ")")] = '\0';
			}
			kernel = dso && (!strncmp(dso, "[kernel", 7) || strstr(dso, ".ko"));
			for (char *c = sym; *c; c++)
				if (*c == ';')
					*c = '_';
			if (!strcmp(sym, "[unknown]") && dso && !kernel &&
			    strcmp(dso, "[unknown]")) {
				const char *b = strrchr(dso, '/');

				fr = kscen_xasprintf("[%s]", b ? b + 1 : dso);
			} else {
				fr = kscen_xasprintf("%s%s", sym, kernel ? "_[k]" : "");
			}
			if (nr_frames == cap_frames) {
				cap_frames = cap_frames ? 2 * cap_frames : 64;
				frames = kscen_xrealloc(frames, cap_frames * sizeof(*frames));
			}
			frames[nr_frames++] = fr;
			continue;
		}
		if (line[0] && line[0] != '\t') {
			/* "<comm> <pid> <event>:": comm may hold spaces. */
			char *tok[2];
			size_t n = strlen(line);

			for (int t = 0; t < 2; t++) {
				while (n && line[n - 1] == ' ')
					line[--n] = '\0';
				while (n && line[n - 1] != ' ')
					n--;
				tok[t] = line + n;
			}
			if (!n)
				continue;
			pid = atoi(tok[1]);
			line[n] = '\0';
			tok[0][strcspn(tok[0], ":")] = '\0';
			if (!p->event)
				p->event = kscen_xstrdup(tok[0]);
			while (n && line[n - 1] == ' ')
				line[--n] = '\0';
			free(comm);
			comm = kscen_xstrdup(line + strspn(line, " "));
			for (char *c = comm; *c; c++)
				if (*c == ';')
					*c = '_';
			in_sample = true;
		}
	}
	free(frames);
	free(comm);
	for (unsigned i = 0; i < nr_raw; i++) {
		struct kscen_folded *fo;

		if (root > 0 && !descends(&m, raw[i].pid, root)) {
			free(raw[i].stack);
			continue;
		}
		p->folded = kscen_xrealloc(p->folded, (p->nr_folded + 1) * sizeof(*p->folded));
		fo = &p->folded[p->nr_folded++];
		fo->stack = raw[i].stack;
		fo->count = 1;
	}
	free(raw);
	free(m.pid);
	free(m.ppid);
	return 0;
}

int kscen_profile_perf(const struct kscen_job *job, long long timeout_ns,
		       const struct kscen_profile_spec *spec,
		       struct kscen_profile *p)
{
	char dir[] = "/tmp/kscen-perf.XXXXXX", data[64], log[64], cmd[256];
	char freq[16], ctlarg[64], err[256] = "";
	int ctl[2] = { -1, -1 }, ack[2] = { -1, -1 }, logfd, ret = 0;
	const char *stacks = spec->stacks == KSCEN_STACKS_KERNEL ? "--all-kernel" :
			     spec->stacks == KSCEN_STACKS_USER ? "--all-user" : NULL;
	char *const argv[] = { "perf", "record", "-q", "-a", "-g", "-F", freq,
			       "-D", "-1", "--control", ctlarg, "-o", data,
			       (char *)stacks, NULL };
	/* perf keeps our other fds: ctl[0] and ack[1] are its --control */
	struct kscen_child perf = { .argv = argv, .pid = -1, .pidfd = -1,
				    .out_fd = -1, .err_fd = -1,
				    .flags = KSCEN_CHILD_PATH | KSCEN_CHILD_PDEATHSIG };
	struct kscen_sample_out so;
	FILE *f;

	if (access("/usr/bin/perf", X_OK) && system("command -v perf >/dev/null 2>&1")) {
		p->reason = kscen_xstrdup("profile skipped: profiler: perf, but perf is not installed");
		return 0;
	}
	if (!mkdtemp(dir))
		return -errno;
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(log, sizeof(log), "%s/log", dir);
	if (pipe(ctl) || pipe(ack)) {
		ret = -errno;
		goto out;
	}
	snprintf(freq, sizeof(freq), "%u", spec->frequency);
	snprintf(ctlarg, sizeof(ctlarg), "fd:%d,%d", ctl[0], ack[1]);
	/* Its ends of the pipes are perf's; ours must not stay open in perf. */
	fcntl(ctl[1], F_SETFD, FD_CLOEXEC);
	fcntl(ack[0], F_SETFD, FD_CLOEXEC);
	logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (logfd >= 0)
		perf.out = perf.err = logfd;
	ret = kscen_child_start(&perf);
	kscen_close_fd(&logfd);
	if (ret)
		goto out;
	/* the sample's clean-up must not kill the profiler */
	kscen_contain_keep(perf.pid, true);
	close(ctl[0]);
	close(ack[1]);
	ctl[0] = ack[1] = -1;
	if (control(ctl[1], ack[0], "enable\n")) {
		if ((f = fopen(log, "r"))) {
			if (!fgets(err, sizeof(err), f))
				err[0] = '\0';
			err[strcspn(err, "\n")] = '\0';
			fclose(f);
		}
		p->reason = kscen_xasprintf("profile skipped: perf record did not start%s%s",
					    err[0] ? ": " : "", err);
		goto out;
	}
	ret = kscen_sample_isolated(job, timeout_ns, &so);
	control(ctl[1], ack[0], "disable\n");
	kill(perf.pid, SIGINT);
	kscen_contain_keep(perf.pid, false);
	kscen_child_reap(&perf);
	if (ret) {
		p->reason = kscen_xasprintf("profiled sample: %s", strerror(-ret));
		goto out;
	}
	if (so.ret) {
		p->reason = kscen_xasprintf("profiled sample %s: %s",
					    so.ret == KSCEN_SKIP ? "skipped" : "failed", so.reason);
		ret = so.ret == -EINTR ? -EINTR : 0;
		goto out;
	}
	if (so.nr)
		p->value = so.v[0];
	snprintf(cmd, sizeof(cmd), "perf script -i %s --show-task-events "
		 "-F comm,pid,event,ip,sym,dso 2>/dev/null", data);
	f = popen(cmd, "r");
	if (!f) {
		p->reason = kscen_xasprintf("perf script: %s", strerror(errno));
		goto out;
	}
	parse_script(f, p, spec->system ? 0 : getpid());
	pclose(f);
	kscen_profile_summarize(p);
	if (!p->samples)
		p->reason = kscen_xstrdup("perf record counted no samples in scope");
out:
	if (perf.pid > 0)
		kscen_contain_keep(perf.pid, false);
	kscen_child_kill(&perf);
	for (int i = 0; i < 2; i++) {
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (ack[i] >= 0)
			close(ack[i]);
	}
	unlink(data);
	unlink(log);
	rmdir(dir);
	return ret;
}
