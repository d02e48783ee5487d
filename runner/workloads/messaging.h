/* SPDX-License-Identifier: GPL-2.0 */
/*
 * messaging.h - perf bench sched messaging (hackbench) as an engine that
 * more than one workload drives: sched.messaging times it alone,
 * lock.contention uses it as the load under a lock tracer.
 */
#ifndef KSCEN_MESSAGING_H
#define KSCEN_MESSAGING_H

#include <stdbool.h>

#include "workload.h"

/* perf's fixed shape: 20 senders spraying 100-byte messages at 20 receivers. */
#define KSCEN_MSG_FDS 20
#define KSCEN_MSG_DATASIZE 100

enum kscen_msg_ipc { KSCEN_MSG_SOCKET, KSCEN_MSG_PIPE };
enum kscen_msg_mode { KSCEN_MSG_PROCESS, KSCEN_MSG_THREAD };

#define KSCEN_MSG_IPC_CHOICES "socket|pipe"
#define KSCEN_MSG_MODE_CHOICES "process|thread"

struct kscen_msg_opts {
	long long groups;
	long long loops;	/* messages each sender sends each receiver */
	int ipc;		/* enum kscen_msg_ipc */
	int mode;		/* enum kscen_msg_mode */
	bool exit_libc;		/* worker processes leave with exit(), not _exit() */
};

struct kscen_msg;

/*
 * Create every group's receivers and senders and wait until all of them are
 * ready, as perf does before its clock starts. 0 with *out to free with
 * kscen_msg_free(), or -errno with ctx->reason naming the limit that was hit.
 */
int kscen_msg_start(struct kscen_ctx *ctx, const struct kscen_msg_opts *o,
		    struct kscen_msg **out);

/*
 * The timed region: wake everybody, then reap everybody. *secs is its wall
 * time. 0, or -errno with ctx->reason set when a worker failed.
 */
int kscen_msg_run(struct kscen_ctx *ctx, struct kscen_msg *m, double *secs);

/* Stop and reap whatever kscen_msg_run() did not; NULL is fine. */
void kscen_msg_free(struct kscen_msg *m);

/* "10 groups == 400 processes (20 senders x 20 receivers each), socketpair" */
void kscen_msg_describe(const struct kscen_msg_opts *o, char *buf, size_t len);

#endif
