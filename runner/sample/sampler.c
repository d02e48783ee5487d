// SPDX-License-Identifier: GPL-2.0
/*
 * sampler.c - the fork server.
 *
 * A sample process forked from the runner costs what the runner's address
 * space costs to copy: with a 10^5-job matrix or a 2,000-job reference run
 * in memory, more than the sample it takes. So `kscen run` forks this
 * server first thing, while it is small; for every sample the runner sends
 * it the job (its workload's name, every parameter's value, the captures)
 * and up to three fds (the record's pipe, the sample cgroup's cgroup.procs
 * and its directory), and the server forks the sample process, a copy of
 * its small address space, into that cgroup (fork_into()), and says its
 * pid. The server reaps it and sends its wait status and rusage back; the
 * runner waits for that word alone (kscen_sampler_wait(): neither the
 * record nor the exit wakes it while the sample process still runs), then
 * reads the record, and times it out and kills its group exactly as it
 * would its own fork (isolate.c). (Not CLONE_PARENT, which would
 * make it the runner's child: a raw clone leaves glibc's cached thread id
 * stale, and raise() or abort() in the sample would miss.) exec's
 * samples do not come here at all: their command is the sample's process
 * (sampler.h).
 *
 * The request is one SOCK_SEQPACKET message of NUL-terminated fields:
 * workload, its module's path ("" for a built-in one: a module the runner
 * loaded after the fork, from the scenario's modules:, is loaded by the
 * server too, once, before it forks the sample), the sha256 of the module
 * the runner loaded (the server refuses a file that no longer hashes to
 * it: a module rebuilt during the run), nr_metrics, verbose, one
 * value a parameter in the table's order (numbers as decimal text; a
 * string '=' + text, NULL as '-'), the number of captures and name, regex,
 * unit, better of each. The replies are a struct msg each. The server ends
 * when the runner closes its end or dies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>	/* struct clone_args, CLONE_INTO_CGROUP */
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/child.h"
#include "lib/diag.h"
#include "sampler.h"
#include "scenario/scenario.h"
#include "runner.h"
#include "lib/util.h"

/* A larger job is forked from the runner; below the socket's default buffer. */
#define REQ_MAX (64 * 1024)

static struct {
	int sock;		/* ours; -1: no server */
	pid_t pid;
} srv = { .sock = -1, .pid = -1 };

/* ---- The request ---- */

struct buf {
	char *p;
	size_t len, cap;
	bool full;
};

static void put(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;

	if (b->len + n > b->cap) {
		b->full = true;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void putf(struct buf *b, const char *fmt, long long v)
{
	char t[32];

	snprintf(t, sizeof(t), fmt, v);
	put(b, t);
}

static void encode(const struct kscen_job *job, struct buf *b)
{
	const struct kscen_workload *w = job->workload;
	const struct kscen_job_spec *j = job->spec;

	put(b, w->name);
	put(b, kscen_workload_origin(w) ? kscen_workload_origin(w) : "");
	put(b, kscen_workload_module_sha256(w) ? kscen_workload_module_sha256(w) : "");
	putf(b, "%lld", job->nr_metrics);
	putf(b, "%lld", kscen_verbose);
	for (unsigned i = 0; i < w->nr_params; i++) {
		const struct kscen_param *p = &w->params[i];
		const char *at = (const char *)job->params + p->offset;
		const char *s;

		switch (p->type) {
		case KSCEN_P_INT:
		case KSCEN_P_SIZE:
		case KSCEN_P_TIME:
			putf(b, "%lld", *(const long long *)at);
			break;
		case KSCEN_P_BOOL:
			putf(b, "%lld", *(const bool *)at);
			break;
		case KSCEN_P_ENUM:
			putf(b, "%lld", *(const int *)at);
			break;
		case KSCEN_P_STRING:
			s = *(char *const *)at;
			if (!s) {
				put(b, "-");
				break;
			}
			if (b->len + 1 < b->cap)
				b->p[b->len++] = '=';
			put(b, s);
			break;
		}
	}
	putf(b, "%lld", j->nr_captures);
	for (unsigned i = 0; i < j->nr_captures; i++) {
		put(b, j->captures[i].name);
		put(b, j->captures[i].regex);
		put(b, j->captures[i].unit);
		putf(b, "%lld", j->captures[i].better);
	}
}

/* The next field of @b, or NULL past its end. */
static const char *next(struct buf *b)
{
	const char *s;
	size_t n;

	if (b->len >= b->cap)
		return NULL;
	s = b->p + b->len;
	n = strnlen(s, b->cap - b->len);
	if (n == b->cap - b->len)
		return NULL;
	b->len += n + 1;
	return s;
}

static bool next_num(struct buf *b, long long *v)
{
	const char *s = next(b);
	char *end;

	if (!s)
		return false;
	*v = strtoll(s, &end, 10);
	return end != s && !*end;
}

/*
 * The workload the request names, loading its module if need be (the
 * server did, unless that failed: then @err says why).
 */
static const struct kscen_workload *workload(struct buf *b, char *err, size_t len)
{
	const char *name = next(b), *module = next(b), *sha = next(b);
	const struct kscen_workload *w;

	if (!name || !module || !sha)
		return NULL;
	w = kscen_workload_find(name);
	if (*module && kscen_module_load_as(module, sha, err, len))
		return NULL;
	if (!w && !(w = kscen_workload_find(name)))
		snprintf(err, len, "sampler: no workload %s%s%s", name,
			 *module ? " in " : "", module);
	return w;
}

/*
 * In the sample process: @b back into @r. Strings point into @b, which
 * lives as long as the process does; @r->params is @store when the
 * workload's parameters fit in @store_len bytes, else allocated (freed
 * here when the request is bad).
 */
static int decode(struct buf *b, struct kscen_sample_req *r, char *err, size_t len,
		  void *store, size_t store_len)
{
	static struct kscen_capture caps[KSCEN_MAX_METRICS];
	long long v, nr;
	char *params;

	if (!(r->w = workload(b, err, len)) || !next_num(b, &v))
		return -EBADMSG;
	r->nr_metrics = v;
	if (!next_num(b, &v))
		return -EBADMSG;
	r->verbose = v;
	if (store && r->w->params_size <= store_len)
		params = memset(store, 0, r->w->params_size);
	else if (!(params = calloc(1, r->w->params_size ? r->w->params_size : 1)))
		return -ENOMEM;
	for (unsigned i = 0; i < r->w->nr_params; i++) {
		const struct kscen_param *p = &r->w->params[i];
		char *at = params + p->offset;
		const char *s;

		if (p->type == KSCEN_P_STRING) {
			if (!(s = next(b)) || (*s != '-' && *s != '='))
				goto bad;
			*(const char **)at = *s == '=' ? s + 1 : NULL;
			continue;
		}
		if (!next_num(b, &v))
			goto bad;
		if (p->type == KSCEN_P_BOOL)
			*(bool *)at = v;
		else if (p->type == KSCEN_P_ENUM)
			*(int *)at = v;
		else
			*(long long *)at = v;
	}
	if (!next_num(b, &nr) || nr < 0 || nr > KSCEN_MAX_METRICS)
		goto bad;
	for (unsigned i = 0; i < nr; i++) {
		caps[i].name = next(b);
		caps[i].regex = next(b);
		caps[i].unit = next(b);
		if (!caps[i].unit || !next_num(b, &v))
			goto bad;
		caps[i].better = v;
	}
	r->params = params;
	r->captures = caps;
	r->nr_captures = nr;
	return 0;
bad:
	if (params != store)
		free(params);
	return -EBADMSG;
}

size_t kscen_sampler_encode(const struct kscen_job *job, char *p, size_t cap)
{
	struct buf b = { .p = p, .cap = cap };

	encode(job, &b);
	return b.full ? 0 : b.len;
}

int kscen_sampler_decode(char *p, size_t len, struct kscen_sample_req *r)
{
	struct buf b = { .p = p, .cap = len };
	char err[8];

	return decode(&b, r, err, sizeof(err), NULL, 0);
}

/* ---- The server ---- */

static ssize_t recv_req(int sock, char *p, size_t len, int fds[3])
{
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov = { .iov_base = p, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	ssize_t n;

	fds[0] = fds[1] = fds[2] = -1;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			size_t nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			memcpy(fds, CMSG_DATA(cm), (nfd < 3 ? nfd : 3) * sizeof(int));
		}
	}
	return n;
}

/*
 * What the server says: a sample process started (pid, or -errno in err),
 * or one of them ended (its wait status and rusage, from the server's reap).
 */
struct msg {
	int type;		/* MSG_START, MSG_EXIT */
	int pid, err, status;
	struct rusage ru;
};
enum { MSG_START = 1, MSG_EXIT };

#define MAX_LIVE 16		/* sample processes not yet reaped */
/* their pids, in the order of their pidfds in serve()'s poll set */
static pid_t live_pid[MAX_LIVE];

/*
 * The sample process, forked by the server with the request decoded
 * already (@ret its result): every page the decoding touches is one the
 * server keeps mapped, where each sample process would fault it in anew.
 * For the same reason it is hot, as the fork that returns into it and the
 * sample body are (body.c), and makes its system calls through syscall()
 * (the sentinels' page of libc, noise.c), and writes no global it need not.
 */
static __attribute__((noreturn, noinline, hot)) void
sample_process(struct kscen_sample_req *r, int ret, const char *why,
	       pid_t server, int sock)
{
	/* the harness's CPU is where it starts; r is its own copy */
	r->pinned_switches = kscen_harness_unpin();
	syscall(SYS_setpgid, 0, 0);
	if (syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) ||
	    syscall(SYS_getppid) != server)
		_exit(ECHILD);
	syscall(SYS_close, sock);
	if (ret) {
		/* A request this binary cannot read: say so in the record. */
		struct kscen_sample_out out = { .ret = ret };
		ssize_t n;

		if (*why)
			snprintf(out.reason, sizeof(out.reason), "%s", why);
		else
			snprintf(out.reason, sizeof(out.reason), "sampler: bad request: %s",
				 strerror(-ret));
		n = write(r->fd, &out, sizeof(out));
		_exit(n == sizeof(out) ? 0 : 1);
	}
	if (kscen_verbose != r->verbose)
		kscen_verbose = r->verbose;
	/* _exit() is a page of libc of its own; exit_group is what it calls */
	syscall(SYS_exit_group, kscen_sample_body(r));
	__builtin_unreachable();
}

static bool say(int sock, const struct msg *m)
{
	return send(sock, m, sizeof(*m), MSG_NOSIGNAL) == sizeof(*m);
}

/*
 * The module of the request's workload, loaded here once so that every
 * sample process forked after has it; what fails is said by the sample.
 */
static void preload(char *req, size_t len)
{
	struct buf b = { .p = req, .cap = len };
	const char *module = next(&b) ? next(&b) : NULL, *sha = module ? next(&b) : NULL;
	char err[8];

	if (module && *module && sha)
		kscen_module_load_as(module, sha, err, sizeof(err));
}

/*
 * The sample process born in its cgroup: clone3(CLONE_INTO_CGROUP), Linux
 * 5.7, rather than a fork whose child then moves itself by a write to
 * cgroup.procs. A move takes the cgroup threadgroup lock for writing: 5 to
 * 280 us more than a 0.7-1.2 ms fork on a 2-vCPU VM, 2026-12-06
 * (bench/cgroup-join.c, docs/performance.md).
 * glibc (2.36) has no clone3 for a fork, so fork_into() does around the
 * system call what its _Fork() does: the kernel writes the child's thread
 * id where glibc keeps it (CLONE_CHILD_SETTID at the address glibc gave
 * the kernel for this thread, set_tid_address(), read back with
 * PR_GET_TID_ADDRESS), and the child registers its robust-futex list
 * again (get_robust_list() of this thread: a fork resets it). Without
 * those addresses (no CONFIG_CHECKPOINT_RESTORE) or without clone3 (an
 * older kernel, a seccomp filter), and for any sample clone3 refuses, it
 * is _Fork() and the write (body.c), as before.
 */
static struct {
	int *tid;		/* glibc's thread id of this thread; NULL: no clone3 */
	void *robust;		/* its robust-futex list */
	size_t robust_len;
} raw;

static void fork_into_init(void)
{
	int *tid = NULL;

	if (prctl(PR_GET_TID_ADDRESS, &tid) == 0 && tid && *tid == syscall(SYS_gettid) &&
	    syscall(SYS_get_robust_list, 0, &raw.robust, &raw.robust_len) == 0)
		raw.tid = tid;
}

/*
 * A fork into the cgroup @cg (a directory's fd): the pid, 0 in the child,
 * or -1. *@pidfd: the child's pidfd, from the same system call (a pidfd
 * opened after it could find the child ended and reaped already).
 */
static __attribute__((hot)) pid_t fork_into(int cg, int *pidfd)
{
	struct clone_args a = {
		.flags = CLONE_INTO_CGROUP | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID |
			 CLONE_CLEAR_SIGHAND | CLONE_PIDFD,
		.pidfd = (uintptr_t)pidfd,
		.child_tid = (uintptr_t)raw.tid,
		.exit_signal = SIGCHLD,
		.cgroup = cg,
	};
	pid_t pid;

	if (cg < 0 || !raw.tid)
		return -1;
	pid = syscall(SYS_clone3, &a, sizeof(a));
	if (pid == 0)
		syscall(SYS_set_robust_list, raw.robust, raw.robust_len);
	else if (pid < 0 && (errno == ENOSYS || errno == EPERM))
		raw.tid = NULL;	/* not here: the fork and the write from now on */
	return pid;
}

static bool mute_ends;	/* KSCEN_TEST_SERVER_MUTE: a server that says none */

/*
 * Sample process @pid has ended: reap it, say how. @pid is the one its
 * fork gave, never one read back from the kernel: were it reaped already
 * (SIGCHLD ignored here, which main() undoes, or by a module's
 * constructor), the runner still hears of its end, with status 0 and no
 * rusage, and its record says the rest.
 */
static bool say_end(int sock, pid_t pid)
{
	struct msg m = { .type = MSG_EXIT, .pid = pid };

	while (wait4(m.pid, &m.status, 0, &m.ru) < 0 && errno == EINTR)
		;
	return mute_ends || say(sock, &m);
}

/* Sample process @i of @live has ended: out of the poll set, its end said. */
static bool ended(int sock, struct pollfd *live, unsigned *nr_live, unsigned i)
{
	pid_t pid = live_pid[i];

	close(live[i].fd);
	live[i] = live[--(*nr_live)];
	live_pid[i] = live_pid[*nr_live];
	return say_end(sock, pid);
}

/*
 * A request: fork its sample process, say its pid. The server has one
 * thread, so _Fork() (fork without the atfork handlers: no malloc arena
 * locked and unlocked on both sides, pages the parent and the child would
 * each fault in again) leaves the child a consistent libc; so does
 * fork_into(), the same with the child born in its cgroup.
 */
static __attribute__((noinline, hot)) bool
start(int sock, char *req, ssize_t n, int fds[3], struct pollfd *live, unsigned *nr_live)
{
	/*
	 * The parameters in a buffer of the server's own: a free() after the
	 * fork would write to the heap the sample process shares, a copy.
	 */
	static max_align_t store[256];
	struct msg m = { .type = MSG_START };
	struct buf b = { .p = req, .cap = n };
	struct kscen_sample_req r = {
		.fd = fds[0], .procs_fd = fds[1],
		.pinned_switches = -1,
	};
	char why[KSCEN_REASON_MAX];
	pid_t self = getpid();
	int ret, pidfd = -1;

	why[0] = '\0';
	preload(req, n);
	ret = decode(&b, &r, why, sizeof(why), store, sizeof(store));
	if (fds[0] < 0 || *nr_live == MAX_LIVE) {
		m.err = fds[0] < 0 ? -EBADMSG : -EAGAIN;
	} else if ((m.pid = fork_into(fds[2], &pidfd)) == 0) {
		r.procs_fd = -1;	/* in its cgroup from birth */
		r.signals_default = true;	/* and with the default actions */
		sample_process(&r, ret, why, self, sock);
	} else if (m.pid < 0 && (m.pid = _Fork()) == 0) {
		sample_process(&r, ret, why, self, sock);
	} else if (m.pid < 0) {
		m.err = -errno;
	} else {
		if (pidfd < 0)	/* _Fork(): ended and reaped by now, if SIGCHLD is ignored */
			pidfd = syscall(SYS_pidfd_open, m.pid, 0);
		if (pidfd >= 0) {
			live[*nr_live] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
			live_pid[(*nr_live)++] = m.pid;
		}
	}
	if (r.params != (void *)store)
		free((void *)r.params);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (!say(sock, &m))
		return false;
	if (m.pid > 0 && pidfd < 0)	/* nothing to poll: its end, now */
		return say_end(sock, m.pid);
	return true;
}

/* The server's SIGINT, SIGTERM, SIGHUP, SIGPIPE: nothing; poll() says EINTR. */
static void noted(int sig)
{
	(void)sig;
}

static void __attribute__((noreturn)) serve(int sock)
{
	struct sigaction caught = { .sa_handler = noted, .sa_flags = SA_RESTART };
	struct pollfd p[1 + MAX_LIVE];
	char *req = malloc(REQ_MAX);
	unsigned nr_live = 0;
	int fds[3];

	fork_into_init();
	mute_ends = getenv("KSCEN_TEST_SERVER_MUTE");
	/*
	 * The runner decides (its end ends us): KSCEN_SAMPLE_SIGNALS (^C,
	 * SIGTERM, SIGHUP, SIGPIPE) are caught here, not ignored, so that a
	 * clone3 with CLONE_CLEAR_SIGHAND gives the sample process the
	 * default action of each (an ignored one would stay ignored), where
	 * it made a sigaction() call for each, a first system call in a
	 * fresh process (12-14 us, docs/performance.md). SIGPIPE too: the
	 * sample gets the default a shell gives, whatever kscen was started
	 * with.
	 */
#define CATCH(sig) sigaction(sig, &caught, NULL);
	KSCEN_SAMPLE_SIGNALS(CATCH)
#undef CATCH
	/*
	 * The vDSO's data pages mapped here, where fork copies them (a
	 * VM_PFNMAP mapping): the first clock reading of each sample process
	 * then faults two pages fewer.
	 */
	kscen_now_ns();
	if (!req)
		_exit(1);
	for (;;) {
		p[0] = (struct pollfd){ .fd = sock, .events = POLLIN };
		if (poll(p, 1 + nr_live, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (unsigned i = nr_live; i > 0; i--)
			if (p[i].revents && !ended(sock, p + 1, &nr_live, i - 1))
				_exit(0);
		if (!p[0].revents)
			continue;
		ssize_t n = recv_req(sock, req, REQ_MAX, fds);

		if (n <= 0 || !start(sock, req, n, fds, p + 1, &nr_live))
			_exit(0);
	}
}

int kscen_sampler_start(void)
{
	pid_t runner = getpid();
	int sv[2], pfd;

	if (srv.sock >= 0)
		return 0;
	/* The runner waits on a pidfd of a process it is not the parent of. */
	pfd = syscall(SYS_pidfd_open, runner, 0);
	if (pfd < 0)
		return -errno;
	close(pfd);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	srv.pid = fork();
	if (srv.pid == 0) {
		close(sv[0]);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != runner)
			_exit(0);
		serve(sv[1]);
	}
	close(sv[1]);
	if (srv.pid < 0) {
		close(sv[0]);
		return -errno;
	}
	srv.sock = sv[0];
	kscen_contain_keep(srv.pid, true);	/* not a sample's orphan */
	return 0;
}

pid_t kscen_sampler_pid(void)
{
	return srv.sock >= 0 ? srv.pid : -1;
}

void kscen_sampler_stop(void)
{
	if (srv.sock < 0)
		return;
	close(srv.sock);
	srv.sock = -1;
	kscen_contain_keep(srv.pid, false);
	while (waitpid(srv.pid, NULL, 0) < 0 && errno == EINTR)
		;
	srv.pid = -1;
}

/* Ends the server said before we asked: one sample at a time needs few. */
static struct msg pending[MAX_LIVE];
static unsigned nr_pending;

static void gone(void)
{
	kscen_diag(KSCEN_DIAG_WARNING, NULL, NOWHERE, "the sampler process is gone; "
		   "samples fork from the runner from now on");
	kscen_sampler_stop();
}

/* The server's word of a start; false: it is gone. Ends heard meanwhile are kept. */
static bool hear_start(struct msg *m)
{
	for (;;) {
		ssize_t n;

		do
			n = recv(srv.sock, m, sizeof(*m), 0);
		while (n < 0 && errno == EINTR);
		if (n != sizeof(*m))
			return false;
		if (m->type == MSG_START)
			return true;
		if (m->type == MSG_EXIT && nr_pending < MAX_LIVE)
			pending[nr_pending++] = *m;
	}
}

/*
 * Has the sample process of @pidfd ended? Without waiting. A pidfd is
 * readable once its process has exited, reaped or not; without one
 * (kscen_sampler_spawn() found it gone, or killed its group) it has.
 */
static bool ended_by_pidfd(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return pidfd < 0 || poll(&p, 1, 0) == 1;
}

/*
 * A server that has not said a sample's end 5 s after it (the server's
 * bug: it once lost ends it could not reap, and the run hung,
 * docs/reliability.md) is stopped, and the run goes on without it. While
 * no word comes the sample's pidfd is looked at each second; the end
 * itself wakes only the server.
 */
#define SILENT_LOOK_MS	1000
#define SILENT_NS	(5 * 1000000000LL)

static void mute(void)
{
	kscen_diag(KSCEN_DIAG_WARNING, NULL, NOWHERE, "the sampler process said "
		   "nothing of a sample's end 5 s after it; stopped: samples fork "
		   "from the runner from now on");
	kill(srv.pid, SIGKILL);	/* it may not be listening either */
	kscen_sampler_stop();
}

/*
 * The server's word of @c's end, within @timeout_ms (-1: no limit) or
 * until *@stop: 0 with it in *@m, -ETIMEDOUT, -EINTR, or -EPIPE when the
 * server is gone or was stopped for its silence (its samples die with it,
 * PDEATHSIG).
 */
static int hear_end(const struct kscen_child *c, long long timeout_ms,
		    const volatile sig_atomic_t *stop, struct msg *m)
{
	long long deadline = kscen_now_ns() + timeout_ms * 1000000, silent = 0;

	for (;;) {
		struct pollfd p = { .fd = srv.sock, .events = POLLIN };
		int wait, ret;
		ssize_t n;

		for (unsigned i = 0; i < nr_pending; i++) {
			if (pending[i].pid == c->pid) {
				*m = pending[i];
				pending[i] = pending[--nr_pending];
				return 0;
			}
		}
		if (srv.sock < 0)
			return -EPIPE;
		ret = kscen_wait_left(deadline, timeout_ms, stop, &wait);
		if (ret)
			return ret;
		ret = poll(&p, 1, wait < 0 || wait > SILENT_LOOK_MS ? SILENT_LOOK_MS : wait);
		if (ret == 0 && ended_by_pidfd(c->pidfd)) {
			if (!silent) {
				silent = kscen_now_ns();
			} else if (kscen_now_ns() - silent >= SILENT_NS) {
				mute();
				return -EPIPE;
			}
		}
		if (ret <= 0)
			continue;	/* EINTR: *stop, or the deadline, above */
		/* one word of the server, without waiting: ours, or kept */
		n = recv(srv.sock, m, sizeof(*m), MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n != sizeof(*m)) {
			gone();
			return -EPIPE;
		}
		if (m->type == MSG_EXIT && nr_pending < MAX_LIVE)
			pending[nr_pending++] = *m;
	}
}

/* @c has ended, as the server said, or it died with the server. */
static void ended_as(struct kscen_child *c, const struct msg *m)
{
	if (m) {
		c->status = m->status;
		c->ru = m->ru;
	} else {
		c->status = W_EXITCODE(0, SIGKILL);
	}
	c->pid = -1;
}

/* kscen_child's reap for a sample process: the server's word on its end. */
static int reap(struct kscen_child *c)
{
	struct msg m;

	ended_as(c, hear_end(c, -1, NULL, &m) ? NULL : &m);
	return 0;
}

bool kscen_sampler_child(const struct kscen_child *c)
{
	return c->reap == reap;
}

int kscen_sampler_wait(struct kscen_child *c, long long timeout_ms,
		       const volatile sig_atomic_t *stop)
{
	struct msg m;
	int ret;

	if (c->pid <= 0)
		return 0;
	ret = hear_end(c, timeout_ms, stop, &m);
	if (ret == -ETIMEDOUT || ret == -EINTR)
		return ret;
	ended_as(c, ret ? NULL : &m);
	return 0;
}

int kscen_sampler_spawn(const struct kscen_job *job, int fd, int procs_fd, int cg_fd,
			struct kscen_child *c)
{
	static char req[REQ_MAX];
	struct buf b = { .p = req, .cap = sizeof(req) };
	int fds[3] = { fd, procs_fd, cg_fd };
	int nfd = procs_fd < 0 ? 1 : cg_fd < 0 ? 2 : 3;
	char cbuf[CMSG_SPACE(3 * sizeof(int))] = { 0 };
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = CMSG_SPACE(nfd * sizeof(int)) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	struct msg m;
	ssize_t n;

	if (srv.sock < 0)
		return -ENOTCONN;
	encode(job, &b);
	if (b.full)
		return -ENOTCONN;	/* too large a job: fork it ourselves */
	iov = (struct iovec){ .iov_base = req, .iov_len = b.len };
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(nfd * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, nfd * sizeof(int));
	do
		n = sendmsg(srv.sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EMSGSIZE || errno == ENOBUFS))
		return -ENOTCONN;	/* this one job: fork it ourselves */
	if (n != (ssize_t)b.len || !hear_start(&m)) {
		gone();
		return -ENOTCONN;
	}
	if (m.err)
		return m.err;
	c->pid = m.pid;
	c->pgid = m.pid;	/* it made its group before anything else */
	c->pidfd = syscall(SYS_pidfd_open, c->pid, 0);
	c->out_fd = c->err_fd = -1;
	c->failed = NULL;
	c->reap = reap;
	if (c->pidfd < 0)	/* ended and reaped, or not to be watched: done with */
		kill(-c->pgid, SIGKILL);
	return 0;
}
