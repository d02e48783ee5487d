// SPDX-License-Identifier: GPL-2.0
/*
 * spawn.c - start, wait for and kill child processes (child.h).
 */
#define _GNU_SOURCE	/* pipe2, close_range, sigabbrev_np */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "util.h"

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

/* Between fork() and exec: async-signal-safe calls only. */
static void __attribute__((noreturn))
in_child(struct kscen_child *c, const int fds[3], pid_t parent, long max_fd,
	 const char *exec_msg, size_t exec_len)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	ssize_t n;

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
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (c->fn)
		_exit(c->fn(c->arg));
	if (c->flags & KSCEN_CHILD_PATH)
		execvp(c->argv[0], c->argv);
	else
		execv(c->argv[0], c->argv);
	n = write(2, exec_msg, exec_len);
	(void)n;
	_exit(127);
}

/* Without this a runner that ignores SIGCHLD would leave nothing to reap. */
static void allow_reaping(void)
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
	long max_fd = sysconf(_SC_OPEN_MAX);
	pid_t parent = getpid();
	char exec_msg[256];
	sigset_t all, old;
	int len = 0;

	c->pid = -1;
	c->pgid = 0;
	c->pidfd = c->out_fd = c->err_fd = -1;
	if (max_fd < 0)
		max_fd = 1024;
	if (!c->fn)
		len = snprintf(exec_msg, sizeof(exec_msg), "kscen: cannot exec %s\n",
			       c->argv[0]);
	allow_reaping();
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
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	clock_gettime(CLOCK_MONOTONIC, &c->start);
	c->pid = fork();
	if (c->pid == 0)
		in_child(c, fds, parent, max_fd, exec_msg, len > 0 ? (size_t)len : 0);
	ret = c->pid < 0 ? -errno : 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
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
	while (waitpid(c->pid, &c->status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	clock_gettime(CLOCK_MONOTONIC, &c->end);
	c->pid = -1;
	return 0;
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
		while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
			;
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
