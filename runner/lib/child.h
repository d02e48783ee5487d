/* SPDX-License-Identifier: GPL-2.0 */
/*
 * child.h - the one way kscen starts a process (spawn.c; like git's
 * run-command.h; not spawn.h, libc's posix_spawn header, which -Irunner
 * would shadow):
 * a struct kscen_child says what to run (a program or a function), where
 * its standard fds go, and how it is tied to us; kscen_child_start() forks
 * it, kscen_child_capture() reads its pipes into capped buffers,
 * kscen_child_finish() waits for it with a timeout, kscen_child_reap() waits
 * for it, kscen_child_kill() makes sure it is gone, and
 * kscen_wait_status_text() says how it ended.
 *
 * Everything between fork() and exec (or the function) is async-signal-safe:
 * the runner has threads and signal handlers. A function child costs what a
 * hand-written one does: fork() (and only what its flags ask), one waitpid()
 * to reap; signals are blocked around the fork, and start and end taken,
 * only for a program. So workloads that time their own fork and reap
 * (sched.pipe) measure what perf bench does.
 */
#ifndef KSCEN_CHILD_H
#define KSCEN_CHILD_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

/* Where a standard fd of the child goes (kscen_child.in/out/err). */
#define KSCEN_CHILD_INHERIT	(-1)	/* ours (the default: 0) is not this */
#define KSCEN_CHILD_NULL	(-2)	/* /dev/null */
#define KSCEN_CHILD_PIPE	(-3)	/* a pipe; its read end in out_fd/err_fd */

/* kscen_child.flags */
#define KSCEN_CHILD_PGROUP	0x1	/* its own process group: kill takes all */
#define KSCEN_CHILD_PDEATHSIG	0x2	/* SIGKILL when we die, even before exec */
#define KSCEN_CHILD_CLEAN	0x4	/* exec: default signals, empty mask, no fds >2 */
#define KSCEN_CHILD_PIDFD	0x8	/* open a pidfd for poll() (-1 before 5.3) */
#define KSCEN_CHILD_PATH	0x10	/* argv[0] is looked up in PATH (execvp) */
#define KSCEN_CHILD_CGROUP	0x20	/* join cgroup_procs' cgroup before anything */

struct kscen_child {
	/* What to run: argv[0] (a path, execv'd) with argv, or fn(arg). */
	char *const *argv;
	int (*fn)(void *arg);	/* its return value is the exit status */
	void *arg;
	int in, out, err;	/* KSCEN_CHILD_* or an fd of ours; 0: inherit */
	unsigned flags;
	int cgroup_procs;	/* KSCEN_CHILD_CGROUP: a cgroup.procs open for writing */

	/*
	 * Optional: how to reap a process that is not our child (a sample
	 * process of the fork server, sampler.c): set status and ru, pid -1.
	 */
	int (*reap)(struct kscen_child *c);
	/* Filled in by kscen_child_start() and kscen_child_reap(). */
	pid_t pid;		/* -1 when there is none to wait for */
	pid_t pgid;		/* KSCEN_CHILD_PGROUP: its group, until killed */
	int pidfd;		/* KSCEN_CHILD_PIDFD, or -1 */
	int out_fd, err_fd;	/* read ends of KSCEN_CHILD_PIPE, or -1 */
	int status;		/* waitpid()'s */
	struct rusage ru;	/* its user and system CPU time, once reaped */
	/*
	 * A program's: CLOCK_MONOTONIC, fork() and reap; start moved on by
	 * what joining the cgroup (KSCEN_CHILD_CGROUP: about 0.16 ms in a
	 * VM) and getting its CPUs back (kscen_harness_unpin()) took, which
	 * is kscen's, not the program's.
	 */
	struct timespec start, end;
	long long joined_ns;	/* those, written by the child before its exec */
	const char *failed;	/* the step of a capture's or finish's -errno: "poll" */
};

/*
 * The harness on one CPU. A sample process's fork, its record and its reap
 * wake the runner, the fork server and the sample in turn; on different
 * CPUs each wake-up is an inter-processor interrupt, in a VM the wake of a
 * halted vCPU (docs/performance.md: about 0.5 ms of a sample, and the
 * sample's first millisecond slower and noisier on the vCPU just woken).
 * kscen_harness_pin() puts the calling process (the runner, before it forks
 * its server) on the CPU it runs on, out of the CPUs it may use; every child
 * of the runner (spawn.c) and every sample process of the fork server
 * (kscen_harness_unpin()) gets all of those back first thing, a workload's
 * own children keep what the workload gave them, so a sample starts on
 * the harness's CPU, where nothing else of kscen runs while it does, and its
 * threads go where the scheduler puts them. Nothing when only one CPU is
 * allowed. And the harness under SCHED_BATCH, where it was SCHED_OTHER:
 * a batch task's wake-up does not preempt the task running, so the runner
 * woken by the server's word that a sample started, or by the sample's
 * record, waits for the sample process to sleep or end, which gets
 * SCHED_OTHER back with its CPUs (docs/performance.md: two context switches
 * of a sample less). 0 or -errno (nothing changed).
 */
int kscen_harness_pin(void);
/*
 * In a sample process, async-signal-safe: its policy and its CPUs back, if
 * kscen pinned them (spawn.c does it for the runner's children). The
 * thread's context switches before its CPUs came back (noise.c: none of
 * them can have moved it), or -1 (nothing pinned).
 */
long kscen_harness_unpin(void);
/* The runner: its CPUs back, and the pin forgotten (a test's cleanup). */
void kscen_harness_release(void);
/* The CPU the harness is on, or -1 (not pinned). */
int kscen_harness_cpu(void);
/* The CPUs kscen's samples may use (the pinned runner's own are one): 0 or -errno. */
int kscen_harness_allowed(cpu_set_t *out);

/* SIGCHLD at its default action if it was ignored: our children are ours to reap. */
void kscen_child_allow_reaping(void);
/* Start @c; 0, or -errno with nothing left running or open. */
int kscen_child_start(struct kscen_child *c);
/* Wait for @c (through EINTR), record its status and end time; 0 or -errno. */
int kscen_child_reap(struct kscen_child *c);
/*
 * Make sure @c is gone: SIGKILL it (its group with KSCEN_CHILD_PGROUP), reap
 * it if it was not, kill the group again (what it left behind), close what
 * start opened. Safe to call twice and after kscen_child_reap().
 */
void kscen_child_kill(struct kscen_child *c);
/* A capped capture of one of the child's pipes (kscen_child_capture()). */
struct kscen_child_output {
	int fd;			/* our read end; -1 once at EOF */
	char *data;		/* max + 1 bytes, kept NUL-terminated */
	size_t max, len;
	bool truncated;		/* more came than max */
	bool keep_tail;		/* past max, drop the older half (stderr) */
	bool until_full;	/* the capture may end once this one is full */
};

/*
 * One turn of a wait of @timeout_ms (< 0: none) that ends at @deadline
 * (CLOCK_MONOTONIC ns) or once *@stop is set (@stop may be NULL): 0 and
 * *@wait the poll() timeout to use (-1: none), -EINTR or -ETIMEDOUT.
 */
int kscen_wait_left(long long deadline, long long timeout_ms,
		    const volatile sig_atomic_t *stop, int *wait);
/*
 * Read @o[0..@n) (n <= 3) until the child exits (with KSCEN_CHILD_PIDFD: it
 * is reaped, then what the pipes hold is read, so a background grandchild
 * holding a pipe cannot hold us up), every fd is at EOF, or each until_full
 * output is full. Past max the bytes are still read and dropped, so the
 * child never blocks on a full pipe. @timeout_ms < 0: none. @stop: give up
 * once it is set (a signal handler's flag). 0, -ETIMEDOUT, -EINTR (@stop),
 * or -errno with c->failed. Nothing is killed here.
 */
int kscen_child_capture(struct kscen_child *c, struct kscen_child_output *o,
			unsigned n, long long timeout_ms,
			const volatile sig_atomic_t *stop);
/*
 * Wait up to @timeout_ms (< 0: for ever; the pidfd's poll, or waitid()
 * without one) for the child's exit and reap it: 0, c->status set. Past the
 * timeout SIGKILL it (its group with KSCEN_CHILD_PGROUP) and reap it:
 * -ETIMEDOUT. -errno with c->failed ("waitpid") if the wait failed.
 */
int kscen_child_finish(struct kscen_child *c, long long timeout_ms);
/* Close the pipes and the pidfd only. */
void kscen_child_close(struct kscen_child *c);

/*
 * How a process ended, from its wait status: "exited with status 7",
 * "killed by signal SIGSEGV (11), core dumped". Returns @buf.
 */
const char *kscen_wait_status_text(int status, char *buf, size_t len);

#endif
