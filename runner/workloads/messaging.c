// SPDX-License-Identifier: GPL-2.0
/*
 * messaging.c - the engine of perf bench sched messaging (hackbench),
 * messaging.h's: sched_messaging.c times it as sched.messaging,
 * lock_contention.c runs it as a load under a lock tracer.
 *
 * Each group is 20 receivers, each on its own socketpair or pipe, and 20
 * senders that each write `loops` 100-byte messages to every receiver of
 * their group, as processes or as threads. Everybody is created and reports
 * ready before the clock starts; the timed region is one wake-up byte and
 * reaping every worker, as in tools/perf/bench/sched-messaging.c, so the
 * time includes the exits.
 *
 * Worker processes are in the sample's process group, which the runner
 * kills after every sample, and have PR_SET_PDEATHSIG, so none outlives the
 * sample even if the runner itself is killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "lib/util.h"
#include "messaging.h"
#include "lib/child.h"


/* perf asks for the smallest stack; ASan's redzones need more than that. */
#if defined(__SANITIZE_ADDRESS__)
#define MSG_STACK (256 * 1024)
#else
#define MSG_STACK PTHREAD_STACK_MIN
#endif

struct msg_receiver {
	struct kscen_msg *m;
	int in[2];		/* owned here; -1 once closed */
	long long packets;
};

/* One per group, shared by its 20 senders as in perf. */
struct msg_sender {
	struct kscen_msg *m;
	int out[KSCEN_MSG_FDS];	/* copies of the receivers' in[1] */
};

struct kscen_msg {
	struct kscen_msg_opts o;
	int ready[2], wake[2];
	long long nr, nr_max;	/* workers created, planned */
	pid_t *pids;		/* process mode */
	pthread_t *tids;	/* thread mode */
	struct msg_receiver *rcv;
	struct msg_sender *snd;
	bool woken, reaped;
	int abort;		/* thread mode: woken to return, not to work */
	int err;		/* thread mode: the first worker's errno */
};

static int fdpair(const struct kscen_msg *m, int fds[2])
{
	if (m->o.ipc == KSCEN_MSG_PIPE)
		return pipe(fds) ? -errno : 0;
	return socketpair(AF_UNIX, SOCK_STREAM, 0, fds) ? -errno : 0;
}

static const char *fdpair_name(const struct kscen_msg *m)
{
	return m->o.ipc == KSCEN_MSG_PIPE ? "pipe" : "socketpair";
}

/* Say ready, then block until the one wake-up byte arrives. */
static int ready(struct kscen_msg *m)
{
	struct pollfd p = { .fd = m->wake[0], .events = POLLIN };
	char dummy = 0;

	if (write(m->ready[1], &dummy, 1) != 1)
		return errno ? errno : EIO;
	while (poll(&p, 1, -1) != 1)
		if (errno != EINTR)
			return errno;
	return __atomic_load_n(&m->abort, __ATOMIC_RELAXED) ? ECANCELED : 0;
}

static int sender(struct msg_sender *s)
{
	const struct kscen_msg *m = s->m;
	char data[KSCEN_MSG_DATASIZE];
	long long i;
	int j, ret;

	memset(data, 0, sizeof(data));
	ret = ready(s->m);
	if (ret)
		return ret;
	for (i = 0; i < m->o.loops; i++) {
		for (j = 0; j < KSCEN_MSG_FDS; j++) {
			size_t done = 0;

			while (done < sizeof(data)) {
				ssize_t n = write(s->out[j], data + done,
						  sizeof(data) - done);

				if (n < 0)
					return errno;
				done += n;
			}
		}
	}
	return 0;
}

static int receiver(struct msg_receiver *r)
{
	char data[KSCEN_MSG_DATASIZE];
	long long i;
	int ret;

	/* A process holds its own copy; a thread shares the sender's fd. */
	if (r->m->o.mode == KSCEN_MSG_PROCESS)
		close(r->in[1]);
	ret = ready(r->m);
	if (ret)
		return ret;
	for (i = 0; i < r->packets; i++) {
		size_t done = 0;

		while (done < sizeof(data)) {
			ssize_t n = read(r->in[0], data + done,
					 sizeof(data) - done);

			if (n < 0)
				return errno;
			if (n == 0)	/* every sender gone early */
				return EPIPE;
			done += n;
		}
	}
	return 0;
}

static void thread_failed(struct kscen_msg *m, int err)
{
	int none = 0;

	if (err && err != ECANCELED)
		__atomic_compare_exchange_n(&m->err, &none, err, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static void *sender_thread(void *arg)
{
	struct msg_sender *s = arg;

	thread_failed(s->m, sender(s));
	return NULL;
}

static void *receiver_thread(void *arg)
{
	struct msg_receiver *r = arg;

	thread_failed(r->m, receiver(r));
	return NULL;
}

static void limit_text(int resource, char *buf, size_t len)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl))
		snprintf(buf, len, "?");
	else if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu", (unsigned long long)rl.rlim_cur);
}

static long long read_number(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* A failed fork or pthread_create: name the limits that stop task creation. */
static int task_limit(struct kscen_ctx *ctx, struct kscen_msg *m,
		      const char *op, int err)
{
	char nproc[32];

	limit_text(RLIMIT_NPROC, nproc, sizeof(nproc));
	return kscen_reason(ctx, -err,
			    "%s: %s after %lld of %lld tasks (RLIMIT_NPROC %s, kernel.threads-max %lld, kernel.pid_max %lld)",
			    op, strerror(err), m->nr, m->nr_max, nproc,
			    read_number("/proc/sys/kernel/threads-max"),
			    read_number("/proc/sys/kernel/pid_max"));
}

static int fd_limit(struct kscen_ctx *ctx, struct kscen_msg *m, long long group,
		    int err)
{
	char nofile[32];

	limit_text(RLIMIT_NOFILE, nofile, sizeof(nofile));
	if (err == EMFILE)
		return kscen_reason(ctx, -err,
				    "%s in group %lld of %lld: %s (RLIMIT_NOFILE %s; %s mode keeps %d fds a group open)",
				    fdpair_name(m), group + 1, m->o.groups,
				    strerror(err), nofile,
				    m->o.mode == KSCEN_MSG_THREAD ? "thread" : "process",
				    m->o.mode == KSCEN_MSG_THREAD ? 2 * KSCEN_MSG_FDS : 2);
	if (err == ENFILE)
		return kscen_reason(ctx, -err, "%s: %s (fs.file-max %lld)",
				    fdpair_name(m), strerror(err),
				    read_number("/proc/sys/fs/file-max"));
	return kscen_reason(ctx, -err, "%s: %s", fdpair_name(m), strerror(err));
}

/*
 * A worker process: what the thread would run, its result the exit status.
 * With exit_libc it leaves as perf's do, through exit(): the destructors of
 * every library loaded run, binding their symbols on first use.
 */
static int worker_exit(const struct kscen_msg *m, int ret)
{
	if (m->o.exit_libc)
		exit(ret);
	return ret;
}

static int sender_fn(void *arg)
{
	struct msg_sender *s = arg;

	return worker_exit(s->m, sender(s));
}

static int receiver_fn(void *arg)
{
	struct msg_receiver *r = arg;

	return worker_exit(r->m, receiver(r));
}

static int create_worker(struct kscen_ctx *ctx, struct kscen_msg *m,
			 bool is_sender, void *arg)
{
	pthread_attr_t attr;
	int err;

	if (m->o.mode == KSCEN_MSG_PROCESS) {
		struct kscen_child c = {
			.fn = is_sender ? sender_fn : receiver_fn, .arg = arg,
			.flags = KSCEN_CHILD_PDEATHSIG,
		};

		err = kscen_child_start(&c);
		if (err)
			return task_limit(ctx, m, "fork", -err);
		m->pids[m->nr++] = c.pid;
		return 0;
	}

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, MSG_STACK);
	err = pthread_create(&m->tids[m->nr], &attr,
			     is_sender ? sender_thread : receiver_thread, arg);
	pthread_attr_destroy(&attr);
	if (err)
		return task_limit(ctx, m, "pthread_create", err);
	m->nr++;
	return 0;
}

/* perf's group(): receivers first, each on a fresh pair, then the senders. */
static int create_group(struct kscen_ctx *ctx, struct kscen_msg *m, long long g)
{
	struct msg_receiver *rcv = &m->rcv[g * KSCEN_MSG_FDS];
	struct msg_sender *snd = &m->snd[g];
	bool proc = m->o.mode == KSCEN_MSG_PROCESS;
	int i, ret;

	snd->m = m;
	for (i = 0; i < KSCEN_MSG_FDS; i++) {
		struct msg_receiver *r = &rcv[i];

		ret = fdpair(m, r->in);
		if (ret) {
			r->in[0] = r->in[1] = -1;
			return fd_limit(ctx, m, g, -ret);
		}
		r->m = m;
		r->packets = (long long)KSCEN_MSG_FDS * m->o.loops;
		ret = create_worker(ctx, m, false, r);
		if (ret)
			return ret;
		snd->out[i] = r->in[1];
		if (proc) {
			close(r->in[0]);
			r->in[0] = -1;
		}
	}
	for (i = 0; i < KSCEN_MSG_FDS; i++) {
		ret = create_worker(ctx, m, true, snd);
		if (ret)
			return ret;
	}
	if (proc) {
		for (i = 0; i < KSCEN_MSG_FDS; i++) {
			close(rcv[i].in[1]);
			rcv[i].in[1] = -1;
		}
	}
	return 0;
}

int kscen_msg_start(struct kscen_ctx *ctx, const struct kscen_msg_opts *o,
		    struct kscen_msg **out)
{
	struct kscen_msg *m;
	long long i, nr_rcv = o->groups * KSCEN_MSG_FDS;
	char dummy;
	int ret;

	m = kscen_xcalloc(1, sizeof(*m));
	m->o = *o;
	m->nr_max = 2 * nr_rcv;
	m->ready[0] = m->ready[1] = m->wake[0] = m->wake[1] = -1;
	if (o->mode == KSCEN_MSG_PROCESS)
		m->pids = kscen_xcalloc(m->nr_max, sizeof(*m->pids));
	else
		m->tids = kscen_xcalloc(m->nr_max, sizeof(*m->tids));
	m->rcv = kscen_xcalloc(nr_rcv, sizeof(*m->rcv));
	for (i = 0; i < nr_rcv; i++)
		m->rcv[i].in[0] = m->rcv[i].in[1] = -1;
	m->snd = kscen_xcalloc(o->groups, sizeof(*m->snd));

	ret = fdpair(m, m->ready);
	if (!ret)
		ret = fdpair(m, m->wake);
	if (ret) {
		ret = fd_limit(ctx, m, 0, -ret);
		goto fail;
	}
	for (i = 0; i < o->groups; i++) {
		ret = create_group(ctx, m, i);
		if (ret)
			goto fail;
	}
	for (i = 0; i < m->nr; i++) {
		if (read(m->ready[0], &dummy, 1) != 1) {
			ret = kscen_reason(ctx, -EIO,
					   "waiting for workers to be ready: %s",
					   strerror(errno ? errno : EIO));
			goto fail;
		}
	}
	*out = m;
	return 0;
fail:
	kscen_msg_free(m);
	return ret;
}

static int reap_processes(struct kscen_ctx *ctx, struct kscen_msg *m)
{
	int status, bad = 0;
	long long i;
	pid_t pid;

	for (i = 0; i < m->nr; i++) {
		while ((pid = wait(&status)) < 0 && errno == EINTR)
			;
		if (pid < 0)
			break;
		if (!bad && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			bad = status ? status : -1;
	}
	m->reaped = true;
	if (!bad)
		return 0;
	if (WIFSIGNALED(bad)) {
		char how[96];

		return kscen_reason(ctx, -EIO, "a worker process was %s",
				    kscen_wait_status_text(bad, how, sizeof(how)));
	}
	return kscen_reason(ctx, -EIO, "a worker process failed: %s",
			    strerror(WEXITSTATUS(bad)));
}

int kscen_msg_run(struct kscen_ctx *ctx, struct kscen_msg *m, double *secs)
{
	struct timespec start, stop;
	char dummy = 0;
	long long i;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	if (write(m->wake[1], &dummy, 1) != 1)
		return kscen_reason(ctx, -errno, "waking the workers: %s",
				    strerror(errno));
	m->woken = true;
	if (m->o.mode == KSCEN_MSG_PROCESS) {
		ret = reap_processes(ctx, m);
	} else {
		for (i = 0; i < m->nr; i++)
			pthread_join(m->tids[i], NULL);
		m->reaped = true;
	}
	clock_gettime(CLOCK_MONOTONIC, &stop);

	if (!ret && m->err)
		ret = kscen_reason(ctx, -m->err, "a worker thread failed: %s",
				   strerror(m->err));
	*secs = (stop.tv_sec - start.tv_sec) + (stop.tv_nsec - start.tv_nsec) / 1e9;
	return ret;
}

void kscen_msg_free(struct kscen_msg *m)
{
	long long i;
	char dummy = 0;

	if (!m)
		return;
	if (!m->reaped && m->o.mode == KSCEN_MSG_PROCESS) {
		/* Never woken, so none has been reaped: no pid was reused. */
		for (i = 0; i < m->nr; i++)
			kill(m->pids[i], SIGKILL);
		for (i = 0; i < m->nr; i++)
			while (waitpid(m->pids[i], NULL, 0) < 0 && errno == EINTR)
				;
	} else if (!m->reaped && m->nr) {
		__atomic_store_n(&m->abort, 1, __ATOMIC_RELAXED);
		if (!m->woken && write(m->wake[1], &dummy, 1) != 1)
			return;	/* cannot stop them: leave it to the exit */
		for (i = 0; i < m->nr; i++)
			pthread_join(m->tids[i], NULL);
	}
	for (i = 0; i < m->o.groups * KSCEN_MSG_FDS; i++) {
		if (m->rcv[i].in[0] >= 0)
			close(m->rcv[i].in[0]);
		if (m->rcv[i].in[1] >= 0)
			close(m->rcv[i].in[1]);
	}
	for (i = 0; i < 2; i++) {
		if (m->ready[i] >= 0)
			close(m->ready[i]);
		if (m->wake[i] >= 0)
			close(m->wake[i]);
	}
	free(m->pids);
	free(m->tids);
	free(m->rcv);
	free(m->snd);
	free(m);
}

void kscen_msg_describe(const struct kscen_msg_opts *o, char *buf, size_t len)
{
	const char *what = o->mode == KSCEN_MSG_THREAD ? "threads" : "processes";

	snprintf(buf, len,
		 "%d sender and receiver %s per group, %lld groups == %lld %s, %s, %lld loops",
		 KSCEN_MSG_FDS, what, o->groups,
		 o->groups * 2 * KSCEN_MSG_FDS, what,
		 o->ipc == KSCEN_MSG_PIPE ? "pipe" : "socketpair", o->loops);
}
