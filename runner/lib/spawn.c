// SPDX-License-Identifier: GPL-2.0
/*
 * spawn.c - start, wait for and kill child processes (child.h).
 */
#define _GNU_SOURCE	/* pipe2, close_range, sigabbrev_np */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "util.h"

#define READ_CHUNK 65536	/* read and dropped at a time past an output's max */

/*
 * Keep our fds off 0-2: dup2() onto a standard fd must always make a new,
 * inheritable fd in the child, which dup2(fd, fd) would not.
 */
static int fd_above_stdio(int fd)
{
	int nfd, err;

	if (fd < 0 || fd > 2)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	err = errno;
	close(fd);
	errno = err;
	return nfd;
}

/* The child's end of one standard fd, and our read end of a pipe. */
static int stdio_fd(int how, int std, int *ours)
{
	int p[2];

	*ours = -1;
	switch (how) {
	case 0:
	case KSCEN_CHILD_INHERIT:
		return fd_above_stdio(fcntl(std, F_DUPFD_CLOEXEC, 3));
	case KSCEN_CHILD_NULL:
		return fd_above_stdio(open("/dev/null", (std ? O_WRONLY : O_RDONLY) |
					   O_CLOEXEC));
	case KSCEN_CHILD_PIPE:
		if (pipe2(p, O_CLOEXEC))
			return -1;
		*ours = fd_above_stdio(p[0]);
		return fd_above_stdio(p[1]);
	default:
		return fd_above_stdio(fcntl(how, F_DUPFD_CLOEXEC, 3));
	}
}

/*
 * The CPUs kscen was allowed, which its children get back, the harness's
 * CPU and the runner's pid: a child of the runner, or a sample process
 * (kscen_harness_unpin()), gets them back; a child of anything else, a
 * workload's own (sched.pipe's), keeps what its parent has, and nothing
 * in its parent's timed region pays a system call. A fresh fork faults on
 * each page it first touches (docs/noise.md): the give-back only reads,
 * through syscall() (the sentinels' page of libc), from the hot text.
 */
static cpu_set_t allowed;
static int harness_cpu = -1;
static pid_t harness_pid;
static bool harness_batch;	/* SCHED_OTHER made SCHED_BATCH */

int kscen_harness_pin(void)
{
	const char *want;
	cpu_set_t one;
	int cpu;

	if (harness_cpu >= 0)
		return 0;
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return -errno;
	if (CPU_COUNT(&allowed) < 2)
		return 0;
	cpu = sched_getcpu();
	/* a test hook: that CPU, if allowed (bench/overhead.sh pairs by CPU) */
	if ((want = getenv("KSCEN_TEST_HARNESS_CPU")) && *want) {
		char *end;
		long c = strtol(want, &end, 10);

		if (!*end && c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &allowed))
			cpu = c;
	}
	for (int i = 0; i < CPU_SETSIZE && (cpu < 0 || !CPU_ISSET(cpu, &allowed)); i++)
		if (CPU_ISSET(i, &allowed))
			cpu = i;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -errno;
	harness_pid = getpid();
	harness_cpu = cpu;
	if (sched_getscheduler(0) == SCHED_OTHER) {
		struct sched_param none = { 0 };

		harness_batch = !sched_setscheduler(0, SCHED_BATCH, &none);
	}
	return 0;
}

/* getrusage() of this thread: its libc wrapper is a page of its own */
#if defined(__LP64__) && defined(SYS_getrusage)
#define thread_rusage(ru)	syscall(SYS_getrusage, RUSAGE_THREAD, (ru))
#else
#define thread_rusage(ru)	getrusage(RUSAGE_THREAD, (ru))
#endif

__attribute__((hot)) long kscen_harness_unpin(void)
{
	struct sched_param none = { 0 };
	struct rusage th;
	long switches;

	if (harness_cpu < 0)
		return -1;
	if (harness_batch)
		syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &none);
	/*
	 * What the harness has to do, it does now, on this CPU: the runner
	 * woken by the word of this fork would otherwise preempt us once our
	 * CPUs are back (a wider mask reschedules), when we could move.
	 */
	syscall(SYS_sched_yield);
	switches = thread_rusage(&th) ? -1 : th.ru_nvcsw + th.ru_nivcsw;
	syscall(SYS_sched_setaffinity, 0, sizeof(allowed), &allowed);
	return switches;
}

void kscen_harness_release(void)
{
	kscen_harness_unpin();
	harness_cpu = -1;
	harness_batch = false;
}

int kscen_harness_cpu(void)
{
	return harness_cpu;
}

int kscen_harness_allowed(cpu_set_t *out)
{
	if (harness_cpu >= 0) {
		*out = allowed;
		return 0;
	}
	return sched_getaffinity(0, sizeof(*out), out) ? -errno : 0;
}

/* Between fork() and exec: async-signal-safe calls only. */
static void __attribute__((noreturn))
in_child(struct kscen_child *c, const int fds[3], pid_t parent, long max_fd,
	 const char *exec_msg, size_t exec_len)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	ssize_t n;

	/*
	 * First, as the sample process does: nothing escapes the cgroup; then
	 * the CPUs kscen was given. Both are kscen's time, not a program's.
	 */
	bool unpin = harness_cpu >= 0 && parent == harness_pid;

	if ((c->flags & KSCEN_CHILD_CGROUP) || unpin) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		if ((c->flags & KSCEN_CHILD_CGROUP) && write(c->cgroup_procs, "0", 1) < 0)
			_exit(126);
		if (unpin)
			kscen_harness_unpin();
		clock_gettime(CLOCK_MONOTONIC, &b);
		/* a program shares our memory until its exec (CLONE_VM) */
		c->joined_ns = (b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec;
	}
	if (c->flags & KSCEN_CHILD_PGROUP)
		setpgid(0, 0);
	/* and die with us, even if we died before prctl() */
	if ((c->flags & KSCEN_CHILD_PDEATHSIG) &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent))
		_exit(ECHILD);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0 && dup2(fds[i], i) < 0)
			_exit(127);
	if (c->flags & KSCEN_CHILD_CLEAN) {
		if (close_range(3, ~0U, 0))
			for (int fd = 3; fd < max_fd; fd++)
				close(fd);
		/*
		 * Ignored signals stay ignored across exec: give the program
		 * the defaults a shell would have (SIGPIPE above all).
		 */
		for (int sig = 1; sig < NSIG; sig++)
			sigaction(sig, &dfl, NULL);
	} else if (!c->fn) {
		/*
		 * A program shares our memory until its exec (CLONE_VM): none
		 * of our handlers may run here once signals are unblocked.
		 * What exec would keep, SIG_IGN, stays.
		 */
		for (int sig = 1; sig < NSIG; sig++) {
			struct sigaction old;

			if (!sigaction(sig, NULL, &old) && old.sa_handler != SIG_IGN &&
			    old.sa_handler != SIG_DFL)
				sigaction(sig, &dfl, NULL);
		}
	}
	if (c->fn)
		_exit(c->fn(c->arg));
	sigemptyset(&none);	/* what kscen_child_start() blocked */
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (c->flags & KSCEN_CHILD_PATH)
		execvp(c->argv[0], c->argv);
	else
		execv(c->argv[0], c->argv);
	n = write(2, exec_msg, exec_len);
	(void)n;
	_exit(127);
}

/* What a program's child gets on its own stack (clone()). */
struct program_args {
	struct kscen_child *c;
	const int *fds;
	pid_t parent;
	long max_fd;
	const char *exec_msg;
	size_t exec_len;
};

static int __attribute__((no_sanitize("address", "undefined")))
program_child(void *arg)
{
	struct program_args *a = arg;

	in_child(a->c, a->fds, a->parent, a->max_fd, a->exec_msg, a->exec_len);
}

/*
 * Without this a kscen started with SIGCHLD ignored (a parent may leave it
 * so: ignored signals survive exec) would have its children reaped by the
 * kernel, and nothing left for its own waits to find: a module's load
 * failed ("waitpid: No child processes") and its samples found SIGCHLD
 * ignored. main() calls it first; here again for a program, in case a
 * module's constructor ignored it since.
 */
void kscen_child_allow_reaping(void)
{
	struct sigaction sa;

	if (sigaction(SIGCHLD, NULL, &sa))
		return;
	if (sa.sa_handler == SIG_IGN || (sa.sa_flags & SA_NOCLDWAIT)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &sa, NULL);
	}
}

int kscen_child_start(struct kscen_child *c)
{
	int fds[3] = { -1, -1, -1 }, ours[3] = { -1, -1, -1 }, ret = 0;
	const int how[3] = { c->in, c->out, c->err };
	long max_fd = 0;
	pid_t parent = getpid();
	char exec_msg[256];
	/* a program's child's stack until its exec (16-byte aligned) */
	char stack[64 * 1024] __attribute__((aligned(16)));
	sigset_t all, old;
	int len = 0;

	c->pid = -1;
	c->pgid = 0;
	c->joined_ns = 0;
	c->pidfd = c->out_fd = c->err_fd = -1;
	c->failed = NULL;
	if (c->flags & KSCEN_CHILD_CLEAN)
		max_fd = sysconf(_SC_OPEN_MAX);
	if (max_fd < 0)
		max_fd = 1024;
	if (!c->fn) {
		len = snprintf(exec_msg, sizeof(exec_msg), "kscen: cannot exec %s\n",
			       c->argv[0]);
		kscen_child_allow_reaping();
	}
	for (int i = 0; i < 3; i++) {
		/* inherit with no redirection: nothing to do in the child */
		if (how[i] == 0 || how[i] == KSCEN_CHILD_INHERIT)
			continue;
		fds[i] = stdio_fd(how[i], i, &ours[i]);
		if (fds[i] < 0 || (how[i] == KSCEN_CHILD_PIPE && ours[i] < 0)) {
			ret = -errno;
			goto out;
		}
	}
	fflush(stdout);
	fflush(stderr);
	/* Our signal handlers must not run in the child before its exec. */
	if (!c->fn) {
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, &old);
		clock_gettime(CLOCK_MONOTONIC, &c->start);
	}
	if (c->fn) {
		c->pid = fork();
		if (c->pid == 0)
			in_child(c, fds, parent, max_fd, exec_msg, len > 0 ? (size_t)len : 0);
	} else {
		/*
		 * A program: vfork semantics, as posix_spawn() has: the child
		 * borrows our memory until its exec, so no page table is copied
		 * (a fork of a big process costs milliseconds in a VM) and only
		 * the program's own start is in the time exec measures. Its
		 * stack is this array: we are suspended until it execs.
		 */
		struct program_args a = { c, fds, parent, max_fd, exec_msg,
					  len > 0 ? (size_t)len : 0 };

		c->pid = clone(program_child, stack + sizeof(stack),
			       CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	}
	ret = c->pid < 0 ? -errno : 0;
	if (!c->fn) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		/* the child's cgroup join is not the program's time */
		c->start.tv_nsec += c->joined_ns % 1000000000;
		c->start.tv_sec += c->joined_ns / 1000000000 + c->start.tv_nsec / 1000000000;
		c->start.tv_nsec %= 1000000000;
	}
	if (ret)
		goto out;
	if (c->flags & KSCEN_CHILD_PGROUP) {
		setpgid(c->pid, c->pid);	/* here too: kill(-pid) never misses */
		c->pgid = c->pid;
	}
	if (c->flags & KSCEN_CHILD_PIDFD)
		c->pidfd = syscall(SYS_pidfd_open, c->pid, 0);
	c->out_fd = ours[1];
	c->err_fd = ours[2];
	ours[1] = ours[2] = -1;
out:
	for (int i = 0; i < 3; i++) {
		kscen_close_fd(&fds[i]);
		kscen_close_fd(&ours[i]);
	}
	return ret;
}

int kscen_child_reap(struct kscen_child *c)
{
	if (c->pid <= 0)
		return 0;
	if (c->reap)
		return c->reap(c);
	/* wait4(): waitpid() with the child's CPU time beside its status */
	while (wait4(c->pid, &c->status, 0, &c->ru) < 0)
		if (errno != EINTR)
			return -errno;
	if (!c->fn)
		clock_gettime(CLOCK_MONOTONIC, &c->end);
	c->pid = -1;
	return 0;
}

/*
 * Read once from @o->fd. Past the cap the bytes are still read, so that the
 * child never blocks on a full pipe: dropped, or with keep_tail, the older
 * half of what was kept is. Returns the bytes read, 0 at EOF, or -errno.
 */
static ssize_t output_read(struct kscen_child_output *o, char *discard)
{
	const size_t half = o->max / 2;
	ssize_t n;

	if (o->len < o->max) {
		n = read(o->fd, o->data + o->len, o->max - o->len);
		if (n < 0)
			return -errno;
		o->len += n;
		o->data[o->len] = '\0';
		return n;
	}
	/* A tail kept is the newer half of max: read no more than that. */
	n = read(o->fd, discard, o->keep_tail && half && half < READ_CHUNK ?
		 half : READ_CHUNK);
	if (n <= 0)
		return n < 0 ? -errno : 0;
	o->truncated = true;
	if (o->keep_tail && half) {
		memmove(o->data, o->data + half, o->max - half);
		o->len = o->max - half;
		memcpy(o->data + o->len, discard, n);
		o->len += n;
		o->data[o->len] = '\0';
	}
	return n;
}

/*
 * Once the child is reaped, everything it wrote is in the pipe. A background
 * job may still hold the pipe open: read what the pipe holds now and stop.
 */
static int drain(struct kscen_child *c, struct kscen_child_output *o,
		 char *discard)
{
	ssize_t n;
	int avail;

	if (ioctl(o->fd, FIONREAD, &avail) < 0) {
		c->failed = "FIONREAD";
		return -errno;
	}
	while (avail > 0) {
		n = output_read(o, discard);
		if (n == -EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				c->failed = "read";
			return n;
		}
		avail -= n;
	}
	return 0;
}

/* Every until_full output full (and there is one). */
static bool all_full(const struct kscen_child_output *o, unsigned n)
{
	unsigned want = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!o[i].until_full)
			continue;
		if (o[i].len < o[i].max)
			return false;
		want++;
	}
	return want > 0;
}

static int reap_named(struct kscen_child *c)
{
	int ret = kscen_child_reap(c);

	if (ret)
		c->failed = "waitpid";
	return ret;
}

int kscen_wait_left(long long deadline, long long timeout_ms,
		    const volatile sig_atomic_t *stop, int *wait)
{
	*wait = -1;
	if (stop && *stop)
		return -EINTR;
	if (timeout_ms >= 0) {
		long long left = deadline - kscen_now_ns();

		if (left <= 0)
			return -ETIMEDOUT;
		*wait = left / 1000000 + 1;
	}
	return 0;
}

int kscen_child_capture(struct kscen_child *c, struct kscen_child_output *o,
			unsigned n, long long timeout_ms,
			const volatile sig_atomic_t *stop)
{
	long long deadline = kscen_now_ns() + timeout_ms * 1000000;
	struct pollfd p[4];
	char discard[READ_CHUNK];
	unsigned i, open;
	ssize_t got;
	int ret, wait = -1;

	if (n > 3)
		return -EINVAL;
	for (;;) {
		if (all_full(o, n))
			return 0;
		for (i = open = 0; i < n; i++) {
			p[i] = (struct pollfd){ .fd = o[i].fd, .events = POLLIN };
			open += o[i].fd >= 0;
		}
		p[n] = (struct pollfd){ .fd = c->pid > 0 ? c->pidfd : -1,
					.events = POLLIN };
		if (!open)
			return 0;
		ret = kscen_wait_left(deadline, timeout_ms, stop, &wait);
		if (ret)
			return ret;
		if (poll(p, n + 1, wait) < 0) {
			if (errno == EINTR)
				continue;	/* @stop or the deadline: above */
			c->failed = "poll";
			return -errno;
		}
		for (i = 0; i < n; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			got = output_read(&o[i], discard);
			if (got == -EINTR || got == -EAGAIN)
				continue;
			if (got < 0) {
				c->failed = "read";
				return got;
			}
			if (!got)
				o[i].fd = -1;
		}
		if (p[n].fd < 0 || !p[n].revents)
			continue;
		ret = reap_named(c);
		for (i = 0; i < n && !ret; i++)
			if (o[i].fd >= 0)
				ret = drain(c, &o[i], discard);
		return ret;
	}
}

/* Has the child exited (not yet reaped) within @ms? */
static bool exits_within(const struct kscen_child *c, long long ms)
{
	long long deadline = kscen_now_ns() + ms * 1000000, left;

	for (;;) {
		left = deadline - kscen_now_ns();
		if (c->pidfd >= 0) {
			struct pollfd p = { .fd = c->pidfd, .events = POLLIN };

			if (poll(&p, 1, left > 0 ? left / 1000000 + 1 : 0) > 0)
				return true;
		} else {
			siginfo_t si = { 0 };

			if (waitid(P_PID, c->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
				if (errno != EINTR)
					return true;	/* the reap says why */
			} else if (si.si_pid == c->pid) {
				return true;
			} else if (left > 0) {
				usleep(1000);
			}
		}
		if (left <= 0)
			return false;
	}
}

int kscen_child_finish(struct kscen_child *c, long long timeout_ms)
{
	int ret = 0, err;

	if (c->pid <= 0)
		return 0;
	if (timeout_ms >= 0 && !exits_within(c, timeout_ms)) {
		kill(c->pgid ? -c->pgid : c->pid, SIGKILL);
		ret = -ETIMEDOUT;
	}
	err = reap_named(c);
	return err ? err : ret;
}

void kscen_child_close(struct kscen_child *c)
{
	kscen_close_fd(&c->out_fd);
	kscen_close_fd(&c->err_fd);
	kscen_close_fd(&c->pidfd);
}

void kscen_child_kill(struct kscen_child *c)
{
	if (c->pid > 0) {
		kill(c->pgid ? -c->pgid : c->pid, SIGKILL);
		kscen_child_reap(c);
		c->pid = -1;
	}
	if (c->pgid > 0)
		kill(-c->pgid, SIGKILL);	/* whatever the group left behind */
	c->pgid = 0;
	kscen_child_close(c);
}

const char *kscen_wait_status_text(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const char *abbrev = sigabbrev_np(sig);

		/* Not strsignal(): it allocates for real-time signals. */
		if (abbrev)
			snprintf(buf, len, "killed by signal SIG%s (%d)%s", abbrev, sig,
				 WCOREDUMP(status) ? ", core dumped" : "");
		else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
			snprintf(buf, len, "killed by signal SIGRTMIN+%d (%d)",
				 sig - SIGRTMIN, sig);
		else
			snprintf(buf, len, "killed by signal %d", sig);
	} else if (WIFEXITED(status)) {
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	} else {
		snprintf(buf, len, "stopped (status 0x%x)", status);
	}
	return buf;
}
