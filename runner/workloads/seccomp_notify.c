// SPDX-License-Identifier: GPL-2.0
/*
 * seccomp_notify.c - sched.seccomp_notify: upstream perf bench sched
 * seccomp-notify (tools/perf/bench/sched-seccomp-notify.c, after 6.1). A
 * seccomp filter sends every gettid() to a user-space supervisor, a forked
 * process that answers each SECCOMP_IOCTL_NOTIF_RECV with
 * SECCOMP_IOCTL_NOTIF_SEND; usecs/op is one such round trip, two context
 * switches and the notifier's wake-ups. `sync` asks for
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6), which hands the CPU
 * straight to the other side.
 *
 * The filter cannot be removed, so it is installed in setup() of the sample
 * process (which exits after the sample) and traps only gettid, which the
 * runner does not call. Setup, fork and reaping are timed, as upstream.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "workload.h"
#include "lib/child.h"


#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#define NOTIF_MAGIC INT_MAX

struct notify_params {
	long long loops;
	bool sync;
};

static int install_filter(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(filter), .filter = filter };

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		       SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

/* The supervisor, in the forked child: answer @loops notifications. */
static int supervise(int listener, long long loops)
{
	struct seccomp_notif_resp resp;
	struct seccomp_notif req;

	for (long long i = 0; i < loops; i++) {
		memset(&req, 0, sizeof(req));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req))
			return errno;
		if (req.data.nr != SYS_gettid)
			return EPROTO;
		resp = (struct seccomp_notif_resp){ .id = req.id,
						    .val = NOTIF_MAGIC };
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp))
			return errno;
	}
	return 0;
}

static int notify_sample(struct kscen_ctx *ctx, double *values)
{
	char how[96];
	const struct notify_params *p = ctx->params;
	struct timespec start, stop;
	pid_t parent = getpid(), pid;
	int listener, status, ret = 0;
	double ns;

	clock_gettime(CLOCK_MONOTONIC, &start);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return kscen_reason(ctx, -errno, "PR_SET_NO_NEW_PRIVS: %s",
				    strerror(errno));
	listener = install_filter();
	if (listener < 0)
		return kscen_reason(ctx, -errno,
				    "seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER): %s",
				    strerror(errno));
	if (p->sync && ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			     SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0)) {
		ret = errno;
		close(listener);
		/* The filter stays, but nothing in this process calls gettid. */
		return kscen_reason(ctx, -ret,
				    "SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: %s (needs Linux 6.6)",
				    strerror(ret));
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(listener);
		return kscen_reason(ctx, ret, "fork: %s", strerror(-ret));
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(ECHILD);
		_exit(supervise(listener, p->loops));
	}
	for (long long i = 0; i < p->loops; i++) {
		long r = syscall(SYS_gettid);

		if (r != NOTIF_MAGIC) {
			ret = kscen_reason(ctx, -EPROTO,
					   "gettid() returned %ld, not the supervisor's answer",
					   r);
			kill(pid, SIGKILL);
			break;
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &stop);
	/* From here on, a gettid() fails with ENOSYS instead of hanging. */
	close(listener);
	if (ret)
		return ret;
	if (WIFEXITED(status) && WEXITSTATUS(status))
		return kscen_reason(ctx, -EIO, "the supervisor failed with errno %d",
				    WEXITSTATUS(status));
	if (!WIFEXITED(status))
		return kscen_reason(ctx, -EIO, "the supervisor %s",
				    kscen_wait_status_text(status, how, sizeof(how)));
	ns = (stop.tv_sec - start.tv_sec) * 1e9 + (stop.tv_nsec - start.tv_nsec);
	values[0] = ns / 1e3 / p->loops;
	values[1] = p->loops / (ns / 1e9);
	return 0;
}

/* Probe in a throwaway child: a filter, once installed, stays. */
static int notify_supported(struct kscen_ctx *ctx)
{
	char how[96];
	const struct notify_params *p = ctx->params;
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return kscen_reason(ctx, -errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(1);
		fd = install_filter();
		if (fd < 0)
			_exit(2);
		if (p->sync && ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
				     SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0))
			_exit(3);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return kscen_reason(ctx, -errno, "waitpid: %s",
					    strerror(errno));
	if (!WIFEXITED(status))
		return kscen_reason(ctx, -EIO, "seccomp probe %s",
				    kscen_wait_status_text(status, how, sizeof(how)));
	switch (WEXITSTATUS(status)) {
	case 0:
		return 0;
	case 1:
		return kscen_reason(ctx, KSCEN_SKIP, "PR_SET_NO_NEW_PRIVS refused");
	case 2:
		return kscen_reason(ctx, KSCEN_SKIP,
				    "kernel lacks seccomp user notification (CONFIG_SECCOMP_FILTER, Linux 5.0)");
	default:
		return kscen_reason(ctx, KSCEN_SKIP,
				    "kernel lacks SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6)");
	}
}

static void notify_describe(const void *params, char *buf, size_t len)
{
	const struct notify_params *p = params;

	snprintf(buf, len, "Executed %lld gettid() calls answered by a seccomp supervisor%s",
		 p->loops, p->sync ? " (sync wake-up)" : "");
}

static const struct kscen_param notify_table[] = {
	{ .name = "loops", .type = KSCEN_P_INT, .def = "1000000",
	  .offset = offsetof(struct notify_params, loops),
	  .min = 1, .max = 10000000000LL, .help = "notified gettid() calls (perf's -l)" },
	{ .name = "sync", .type = KSCEN_P_BOOL, .def = "false",
	  .offset = offsetof(struct notify_params, sync),
	  .help = "SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (perf's -s, --sync-mode)" },
};

static const struct kscen_metric_desc notify_metrics[] = {
	{ .name = "usecs/op", .unit = "usecs/op", .better = KSCEN_LOWER },
	{ .name = "ops/sec", .unit = "ops/sec", .better = KSCEN_HIGHER },
};

const struct kscen_workload kscen_wl_sched_seccomp_notify = {
	.name = "sched.seccomp_notify",
	.summary = "syscalls answered by a seccomp user-notification supervisor (perf bench sched seccomp-notify)",
	.version = 1,
	.params = notify_table,
	.nr_params = ARRAY_SIZE(notify_table),
	.params_size = sizeof(struct notify_params),
	.metrics = notify_metrics,
	.nr_metrics = ARRAY_SIZE(notify_metrics),
	.supported = notify_supported,
	.sample = notify_sample,
	.describe = notify_describe,
};
