// SPDX-License-Identifier: GPL-2.0
/*
 * contain.c - nothing a sample starts outlives it.
 *
 * The sample's process group is killed when it ends (isolate.c), but a
 * workload can leave that group: setsid, a double-forked daemon, a process
 * that ignores SIGTERM. Two nets catch those:
 *
 *  - The runner is a child subreaper (PR_SET_CHILD_SUBREAPER): whatever a
 *    sample orphans is re-parented to the runner, not to init, so after each
 *    sample the runner SIGKILLs and reaps its children until none is left.
 *  - Where a cgroup v2 hierarchy is mounted at /sys/fs/cgroup, or can be
 *    mounted (a cgroup v1 machine: at /run/kscen/cgroup2), each sample runs
 *    in <root>/kscen-<pid>/sample, which cgroup.kill empties at the end
 *    however the processes were started; its cpu.stat usage and memory.peak
 *    (when the memory controller is there) become two extra metrics of the
 *    sample. memory.peak only rises, so where it is read each sample has a
 *    fresh cgroup; otherwise the one cgroup, emptied, serves every sample,
 *    and a sample's CPU is what its usage grew by (a mkdir and an rmdir of a
 *    cgroup less a sample: 0.1 ms of an `exec true` sample here,
 *    docs/performance.md).
 *
 * If the runner is SIGKILLed, the sample process dies with it
 * (PR_SET_PDEATHSIG, isolate.c), and a guard process forked at the start,
 * which only waits for the runner's end, kills the run's cgroup: escaped
 * processes die too wherever cgroup v2 is available. Without cgroup v2 they
 * do not (docs/reliability.md).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <stdio.h>
#include "lib/util.h"
#include "runner.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define OWN_MOUNT "/run/kscen/cgroup2"

static struct {
	bool ready;
	char *run_dir;		/* <root>/kscen-<pid>; NULL: no cgroup v2 */
	char *sample_dir;	/* run_dir/sample */
	char reason[160];	/* why there is no cgroup */
	bool memory;		/* memory.peak in the sample cgroup */
	int procs_fd;		/* its cgroup.procs while kept, or -1 */
	int dir_fd;		/* its directory, for a fork into it, or -1 */
	int events_fd, stat_fd;	/* its cgroup.events and cpu.stat while kept */
	bool killed;		/* its cgroup.kill written: nothing born in it */
	double cpu_seen;	/* its usage_usec when it was last emptied */
	pid_t guard;
} ct = { .procs_fd = -1, .dir_fd = -1, .events_fd = -1, .stat_fd = -1 };

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The first number after @key in the file open at @fd (read from its start), or -1. */
static double read_key_fd(int fd, const char *key)
{
	char buf[4096], *p;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!*key)
		return strtod(buf, NULL);
	for (p = buf; (p = strstr(p, key)); p++)
		if ((p == buf || p[-1] == '\n') && p[strlen(key)] == ' ')
			return strtod(p + strlen(key) + 1, NULL);
	return -1;
}

/* read_key_fd() of the file @path. */
static double read_key(const char *path, const char *key)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	double v;

	if (fd < 0)
		return -1;
	v = read_key_fd(fd, key);
	close(fd);
	return v;
}

static bool is_cgroup2(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* A cgroup v2 root: /sys/fs/cgroup, or one we mount; NULL with ct.reason. */
static const char *cgroup2_root(void)
{
	if (is_cgroup2("/sys/fs/cgroup"))
		return "/sys/fs/cgroup";
	if (is_cgroup2(OWN_MOUNT))
		return OWN_MOUNT;
	mkdir("/run/kscen", 0755);
	mkdir(OWN_MOUNT, 0755);
	if (mount("cgroup2", OWN_MOUNT, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		snprintf(ct.reason, sizeof(ct.reason), "no cgroup v2 at /sys/fs/cgroup, "
			 "and mounting one at %s: %s", OWN_MOUNT, strerror(errno));
		return NULL;
	}
	return OWN_MOUNT;
}

/* Wait up to 1 s for a cgroup's processes to be gone (cgroup.events). */
static void wait_empty(const char *dir)
{
	char *ev = kscen_xasprintf("%s/cgroup.events", dir);

	for (int i = 0; i < 200 && read_key(ev, "populated") > 0; i++)
		usleep(5000);
	free(ev);
}

/*
 * The guard: forked once, it only waits for its parent, the runner, to end
 * (PR_SET_PDEATHSIG, however the runner ended: SIGKILL included); then the
 * run's cgroup, sample cgroup included (cgroup.kill is recursive), is
 * killed and removed. It keeps no fd of the runner's past 2: not a
 * sample's, and not the journal, whose flock() a resume right after a
 * SIGKILL of the runner would otherwise find held while the guard cleans up.
 */
static void start_guard(void)
{
	pid_t runner = getpid(), pid;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		close_range(3, ~0U, 0);
		sigprocmask(SIG_BLOCK, &set, NULL);
		setsid();	/* out of the runner's group: a ^C is for the runner */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		prctl(PR_SET_PDEATHSIG, SIGUSR1);
		if (getppid() == runner)	/* else it died before prctl */
			sigwait(&set, &sig);
		char *kill_file = kscen_xasprintf("%s/cgroup.kill", ct.run_dir);

		write_str(kill_file, "1");
		wait_empty(ct.run_dir);
		rmdir(ct.sample_dir);
		rmdir(ct.run_dir);
		_exit(0);
	}
	ct.guard = pid;
}

/* Remove the cgroups of runs whose runner and guard are both gone. */
static void clean_stale(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		int pid;
		char *dir, *kf, *sd;

		if (sscanf(e->d_name, "kscen-%d", &pid) != 1 || (kill(pid, 0) == 0 || errno != ESRCH))
			continue;
		dir = kscen_xasprintf("%s/%s", root, e->d_name);
		kf = kscen_xasprintf("%s/cgroup.kill", dir);
		sd = kscen_xasprintf("%s/sample", dir);
		write_str(kf, "1");
		wait_empty(dir);
		rmdir(sd);
		rmdir(dir);
		free(dir);
		free(kf);
		free(sd);
	}
	closedir(d);
}

void kscen_contain_init(bool cgroups)
{
	const char *root;

	if (ct.ready)
		return;
	ct.ready = true;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (!cgroups) {
		snprintf(ct.reason, sizeof(ct.reason), "not asked for");
		return;
	}
	root = cgroup2_root();
	if (!root)
		return;
	clean_stale(root);
	ct.run_dir = kscen_xasprintf("%s/kscen-%d", root, (int)getpid());
	ct.sample_dir = kscen_xasprintf("%s/sample", ct.run_dir);
	if (mkdir(ct.run_dir, 0755) && errno != EEXIST) {
		snprintf(ct.reason, sizeof(ct.reason), "cannot create a cgroup in %s: %s",
			 root, strerror(errno));
		free(ct.run_dir);
		free(ct.sample_dir);
		ct.run_dir = ct.sample_dir = NULL;
		return;
	}
	/* memory.peak needs the memory controller below the run's cgroup. */
	char *sc = kscen_xasprintf("%s/cgroup.subtree_control", ct.run_dir);

	ct.memory = write_str(sc, "+memory") == 0;
	free(sc);
	start_guard();
}

static const struct kscen_metric_desc extra[] = {
	{ "cgroup_cpu", "usecs", KSCEN_LOWER },
	{ "cgroup_memory_peak", "bytes", KSCEN_LOWER },
};

unsigned kscen_contain_extra(const struct kscen_metric_desc **descs)
{
	*descs = extra;
	return !ct.run_dir ? 0 : ct.memory ? 2 : 1;
}

const char *kscen_contain_reason(void)
{
	return ct.reason;
}

/* read_key() of a file of the sample cgroup: of @fd, where kept open. */
static double sample_key(int fd, const char *file, const char *key)
{
	if (fd >= 0)
		return read_key_fd(fd, key);

	char *f = kscen_xasprintf("%s/%s", ct.sample_dir, file);
	double v = read_key(f, key);

	free(f);
	return v;
}

/* @file of the sample cgroup, open for reading, or -1. */
static int sample_open(const char *file)
{
	char *f = kscen_xasprintf("%s/%s", ct.sample_dir, file);
	int fd = open(f, O_RDONLY | O_CLOEXEC);

	free(f);
	return fd;
}

int kscen_contain_sample_begin(void)
{
	if (!ct.run_dir)
		return -1;
	if (ct.procs_fd >= 0)
		return ct.procs_fd;
	if (mkdir(ct.sample_dir, 0755) == 0)
		ct.killed = false;
	else if (errno != EEXIST)
		return -1;
	char *procs = kscen_xasprintf("%s/cgroup.procs", ct.sample_dir);
	int fd = open(procs, O_WRONLY | O_CLOEXEC);

	free(procs);
	if (fd >= 0)
		ct.dir_fd = open(ct.sample_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && !ct.memory) {
		/* one cgroup for every sample: its files stay open (pread) */
		ct.events_fd = sample_open("cgroup.events");
		ct.stat_fd = sample_open("cpu.stat");
		ct.cpu_seen = sample_key(ct.stat_fd, "cpu.stat", "usage_usec");
		ct.procs_fd = fd;
	}
	return fd;
}

/*
 * Not a cgroup whose cgroup.kill was written: on Linux 6.18 every process
 * later forked into such a cgroup with CLONE_INTO_CGROUP is killed at once
 * (seen, bench/cgroup-join.c; why was not read in the kernel's source); a
 * write to cgroup.procs is not affected. tests/e2e/modules.sh,
 * sample_leaves_a_process_next_born_well.
 */
int kscen_contain_sample_dir(void)
{
	return ct.killed ? -1 : ct.dir_fd;
}

/* Hot, with its "0" on the stack: no page of a sample process's own (body.c). */
__attribute__((hot)) void kscen_contain_enter(int procs_fd)
{
	char zero = '0';

	if (procs_fd >= 0 && syscall(SYS_write, procs_fd, &zero, 1) < 0)
		_exit(126);	/* an uncontained sample is not taken */
}

/*
 * Kill and reap every process the runner has as a child: the sample's
 * orphans land here (subreaper). Killing one re-parents its own children to
 * us, so go on until a pass finds none; bounded, in case of a fork bomb.
 */
/* Children the runner started on purpose (perf record): not orphans. */
static pid_t kept[8];

void kscen_contain_keep(pid_t pid, bool keep)
{
	for (unsigned i = 0; i < ARRAY_SIZE(kept); i++) {
		if (keep && !kept[i]) {
			kept[i] = pid;
			return;
		}
		if (!keep && kept[i] == pid)
			kept[i] = 0;
	}
}

static bool is_kept(long pid)
{
	for (unsigned i = 0; i < ARRAY_SIZE(kept); i++)
		if (kept[i] && kept[i] == pid)
			return true;
	return false;
}

static struct {
	int fd;			/* /proc/self/task/<pid>/children, kept open */
	pid_t pid;		/* whose */
} kids = { .fd = -1 };

static void reap_all(void)
{
	char buf[4096];

	if (kids.pid != getpid()) {
		char path[64];

		kscen_close_fd(&kids.fd);
		kids.pid = getpid();
		snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)kids.pid);
		kids.fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	for (int pass = 0; pass < 1000; pass++) {
		int found = 0;
		ssize_t n = kids.fd >= 0 ? pread(kids.fd, buf, sizeof(buf) - 1, 0) : -1;
		char *p, *end;

		if (n > 0) {
			buf[n] = '\0';
			for (p = buf; ; p = end) {
				long pid = strtol(p, &end, 10);

				if (end == p)
					break;
				if (pid != ct.guard && pid > 0 && !is_kept(pid)) {
					kill(pid, SIGKILL);
					found++;
				}
			}
		}
		/* Without /proc/.../children, waitpid still reaps what exited. */
		while (true) {
			pid_t w = waitpid(-1, NULL, WNOHANG);

			if (w <= 0)
				break;
			if (w == ct.guard)
				ct.guard = 0;
			found++;
		}
		if (!found)
			break;
		if (n > 0)
			usleep(1000);	/* let the SIGKILLed exit and re-parent */
	}
}

/* The kept cgroup's fds closed: the next sample_begin() makes it again. */
static void close_kept(void)
{
	kscen_close_fd(&ct.procs_fd);
	kscen_close_fd(&ct.dir_fd);
	kscen_close_fd(&ct.events_fd);
	kscen_close_fd(&ct.stat_fd);
}

void kscen_contain_sample_end(int procs_fd, double *cpu_usec, double *mem_peak)
{
	*cpu_usec = *mem_peak = -1;
	if (!ct.ready)
		return;
	if (procs_fd >= 0) {
		if (procs_fd != ct.procs_fd) {
			close(procs_fd);
			kscen_close_fd(&ct.dir_fd);
		}
		if (sample_key(ct.events_fd, "cgroup.events", "populated") != 0) {
			char *f = kscen_xasprintf("%s/cgroup.kill", ct.sample_dir);

			write_str(f, "1");
			free(f);
			ct.killed = true;
			wait_empty(ct.sample_dir);
		}
		*cpu_usec = sample_key(ct.stat_fd, "cpu.stat", "usage_usec");
		if (procs_fd == ct.procs_fd) {
			double usage = *cpu_usec;

			if (usage >= 0 && ct.cpu_seen >= 0)
				*cpu_usec = usage - ct.cpu_seen;
			else
				*cpu_usec = -1;
			ct.cpu_seen = usage;
			if (ct.killed) {	/* a new cgroup for the next sample */
				close_kept();
				rmdir(ct.sample_dir);
			}
		} else {
			if (ct.memory)
				*mem_peak = sample_key(-1, "memory.peak", "");
			rmdir(ct.sample_dir);	/* fresh counters each sample */
		}
	}
	reap_all();
}

void kscen_contain_fini(void)
{
	if (ct.run_dir) {
		close_kept();
		rmdir(ct.sample_dir);
		rmdir(ct.run_dir);
	}
	kscen_close_fd(&kids.fd);
	kids.pid = 0;
	/* The run ended normally: the guard has nothing to do; reap it here. */
	if (ct.guard > 0) {
		kill(ct.guard, SIGKILL);
		waitpid(ct.guard, NULL, 0);
		ct.guard = 0;
	}
}
