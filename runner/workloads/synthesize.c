// SPDX-License-Identifier: GPL-2.0
/*
 * synthesize.c - what `perf record -a` does before it records anything:
 * read /proc for every process (or only this one) and turn each thread's
 * status into a COMM record and each of its mappings into an MMAP2 record,
 * as perf's synthetic-events.c does and `perf bench internals synthesize`
 * times. The records are built for real, in perf's layout, each in one
 * event buffer that is then dropped, as perf bench's tool drops them: the
 * cost is the /proc reading and the parsing. A map's name is read straight
 * into the record's filename, as perf reads it.
 *
 * `reader` is the before and after of the perf commit "perf synthetic
 * events: Remove use of sscanf from /proc reading" (LKML, April 2020):
 * fgets+sscanf over stdio, or a small
 * buffered reader doing read(2) into 4 KiB and parsing numbers by hand, in
 * the manner of tools/lib/api/io.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "workload.h"
#include "lib/util.h"


enum { SCOPE_SELF, SCOPE_ALL, SCOPE_PERF };
enum { READER_STDIO, READER_BUFFERED };

struct syn_params {
	long long loops;
	int scope;
	int reader;
	bool data_mmap;
};

/* perf's PERF_RECORD_COMM and PERF_RECORD_MMAP2 layouts, sample_id-less. */
struct syn_comm {
	struct perf_event_header header;
	__u32 pid, tid;
	char comm[16];
};

struct syn_mmap2 {
	struct perf_event_header header;
	__u32 pid, tid;
	__u64 start, len, pgoff;
	__u32 maj, min;
	__u64 ino, ino_generation;
	__u32 prot, flags;
	char filename[PATH_MAX];
};

/* What one /proc/PID/maps line says, whichever reader parsed it. */
struct syn_map {
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char prot[8];
	char *name;	/* the MMAP2 record's filename, PATH_MAX bytes */
};

struct syn_state {
	const struct syn_params *p;
	unsigned long long records;
	struct syn_comm comm;	/* each record built here, then dropped */
	struct syn_mmap2 mmap2;
	pid_t target;		/* scope perf: the idle perf process */
};

/* ---- The buffered reader ------------------------------------------------ */

struct lr {
	int fd;
	char *p, *end;
	bool eof;
	char buf[4096];
};

static int lr_open(struct lr *r, const char *path)
{
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	r->p = r->end = r->buf;
	r->eof = false;
	return r->fd < 0 ? -errno : 0;
}

/* The buffer refilled: its first byte, or -1 at the end (or a /proc race). */
static int __attribute__((noinline)) lr_fill(struct lr *r)
{
	ssize_t n;

	if (r->eof)
		return -1;
	n = read(r->fd, r->buf, sizeof(r->buf));
	if (n <= 0) {
		r->eof = true;
		return -1;
	}
	r->p = r->buf;
	r->end = r->buf + n;
	return (unsigned char)*r->p++;
}

/* The next byte, or -1 at the end: a compare and a load, inlined. */
static inline int lr_getc(struct lr *r)
{
	if (__builtin_expect(r->p == r->end, 0))
		return lr_fill(r);
	return (unsigned char)*r->p++;
}

/* Parse digits in @base into *v; returns the first byte after them. */
static int lr_num(struct lr *r, unsigned base, unsigned long long *v)
{
	int c = lr_getc(r);
	unsigned d;

	*v = 0;
	for (;; c = lr_getc(r)) {
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return c;
		*v = *v * base + d;
	}
}

/* Copy up to the end of the line (excluded) into @s; returns that byte. */
static int lr_rest(struct lr *r, char *s, size_t len)
{
	size_t n = 0;
	int c;

	while ((c = lr_getc(r)) != -1 && c != '\n')
		if (n + 1 < len)
			s[n++] = c;
	s[n] = '\0';
	return c;
}

/* One maps line: "start-end prot pgoff maj:min ino    name". 1, 0 at EOF. */
static int lr_map(struct lr *r, struct syn_map *m)
{
	unsigned long long v;
	int c, i = 0;

	if (lr_num(r, 16, &m->start) != '-')
		return 0;
	lr_num(r, 16, &m->end);
	while ((c = lr_getc(r)) != ' ' && c != -1)
		if (i < 7)
			m->prot[i++] = c;
	m->prot[i] = '\0';
	lr_num(r, 16, &m->pgoff);
	lr_num(r, 16, &v);
	m->maj = v;
	lr_num(r, 16, &v);
	m->min = v;
	c = lr_num(r, 10, &m->ino);
	while (c == ' ')
		c = lr_getc(r);
	if (c == '\n' || c == -1) {
		m->name[0] = '\0';
		return 1;
	}
	m->name[0] = c;
	lr_rest(r, m->name + 1, PATH_MAX - 1);
	return 1;
}

/* ---- Records ------------------------------------------------------------- */

/*
 * Each record is built in its one buffer and handed on, and perf bench's
 * tool drops it (its process callback returns 0): counted, not copied.
 */
static void emit_comm(struct syn_state *s, int pid, int tid, const char *comm)
{
	struct syn_comm *e = &s->comm;

	memset(e, 0, sizeof(*e));
	e->header.type = PERF_RECORD_COMM;
	e->header.size = sizeof(*e);
	e->pid = pid;
	e->tid = tid;
	memcpy(e->comm, comm, strnlen(comm, sizeof(e->comm) - 1));
	s->records++;
}

/* @m's name is already in the record's filename. */
static void emit_mmap2(struct syn_state *s, int pid, const struct syn_map *m)
{
	struct syn_mmap2 *e = &s->mmap2;
	size_t name_len, size;

	/* perf skips data mappings unless asked (perf record -d) */
	if (m->prot[2] != 'x' && !s->p->data_mmap)
		return;
	e->header.type = PERF_RECORD_MMAP2;
	e->header.misc = 0;
	e->pid = e->tid = pid;
	e->start = m->start;
	e->len = m->end - m->start;
	e->pgoff = m->pgoff;
	e->maj = m->maj;
	e->min = m->min;
	e->ino = m->ino;
	e->ino_generation = 0;
	e->prot = (m->prot[0] == 'r' ? PROT_READ : 0) |
		  (m->prot[1] == 'w' ? PROT_WRITE : 0) |
		  (m->prot[2] == 'x' ? PROT_EXEC : 0);
	e->flags = m->prot[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	if (!e->filename[0])
		memcpy(e->filename, "//anon", sizeof("//anon"));
	name_len = strlen(e->filename) + 1;
	size = (name_len + 7) & ~7UL;
	memset(e->filename + name_len, 0, size - name_len);	/* u64 padding */
	e->header.size = offsetof(struct syn_mmap2, filename) + size;
	s->records++;
}

/* ---- /proc/PID/task/TID/status and /proc/PID/maps ----------------------- */

/* COMM for one thread: its Name (perf also takes Tgid and PPid here). */
static int synth_thread(struct syn_state *s, int pid, int tid)
{
	char path[64], comm[64] = "", line[256];
	unsigned long long tgid = 0, ppid = 0;
	struct lr r;
	int c;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	if (s->p->reader == READER_STDIO) {
		FILE *f = fopen(path, "re");

		if (!f)
			return -errno;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "Name:\t%63[^\n]", comm) == 1 ||
			    sscanf(line, "Tgid:\t%llu", &tgid) == 1)
				continue;
			if (sscanf(line, "PPid:\t%llu", &ppid) == 1)
				break;
		}
		fclose(f);
	} else {
		if (lr_open(&r, path))
			return -errno;
		/* key up to ':', then the value: no line copied, no sscanf */
		for (;;) {
			char key[8];
			int n = 0;

			while ((c = lr_getc(&r)) != ':' && c != -1)
				if (n < 7)
					key[n++] = c;
			if (c == -1)
				break;
			key[n] = '\0';
			while ((c = lr_getc(&r)) == '\t' || c == ' ')
				;
			if (c == -1)
				break;
			if (!strcmp(key, "Name")) {
				comm[0] = c;
				lr_rest(&r, comm + 1, sizeof(comm) - 1);
				continue;
			}
			r.p--;	/* c is the value's first byte: give it back */
			if (!strcmp(key, "Tgid"))
				c = lr_num(&r, 10, &tgid);
			else if (!strcmp(key, "PPid")) {
				lr_num(&r, 10, &ppid);
				break;
			}
			while (c != '\n' && c != -1)
				c = lr_getc(&r);
		}
		close(r.fd);
	}
	if (!tgid)
		return -ESRCH;	/* gone while we read */
	emit_comm(s, (int)tgid, tid, comm);
	return 0;
}

static int synth_maps(struct syn_state *s, int pid)
{
	char path[64], line[PATH_MAX + 128];
	struct syn_map m = { .name = s->mmap2.filename };
	struct lr r;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", pid, pid);
	if (s->p->reader == READER_STDIO) {
		FILE *f = fopen(path, "re");

		if (!f)
			return -errno;
		while (fgets(line, sizeof(line), f)) {
			m.name[0] = '\0';
			if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]",
				   &m.start, &m.end, m.prot, &m.pgoff, &m.maj,
				   &m.min, &m.ino, m.name) < 7)
				continue;
			emit_mmap2(s, pid, &m);
		}
		fclose(f);
		return 0;
	}
	if (lr_open(&r, path))
		return -errno;
	while (lr_map(&r, &m))
		emit_mmap2(s, pid, &m);
	close(r.fd);
	return 0;
}

static bool is_pid(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (*name < '0' || *name > '9')
			return false;
	return true;
}

/* All threads' COMMs, then the process's MMAP2s, as perf orders them. */
static int synth_process(struct syn_state *s, int pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)))
		if (is_pid(d->d_name))
			synth_thread(s, pid, atoi(d->d_name));
	closedir(dir);
	ret = synth_maps(s, pid);
	return ret == -ENOENT || ret == -ESRCH ? 0 : ret;
}

static int synthesize(struct kscen_ctx *ctx, struct syn_state *s)
{
	struct dirent *d;
	DIR *dir;
	int ret;

	if (s->p->scope != SCOPE_ALL) {
		pid_t pid = s->p->scope == SCOPE_PERF ? s->target : getpid();

		ret = synth_process(s, pid);
		return ret ? kscen_reason(ctx, ret, "/proc/%d: %s", pid,
					  strerror(-ret)) : 0;
	}
	dir = opendir("/proc");
	if (!dir)
		return kscen_reason(ctx, -errno, "/proc: %s", strerror(errno));
	/* Processes that exit while we read are not an error: perf skips them. */
	while ((d = readdir(dir)))
		if (is_pid(d->d_name))
			synth_process(s, atoi(d->d_name));
	closedir(dir);
	return 0;
}

/* ---- The workload --------------------------------------------------------- */

/*
 * scope perf: `perf bench internals synthesize` synthesizes the perf process
 * itself, whose mappings (perf and its libraries) are about three times
 * kscen's. An idle `perf stat -- sleep` has the same ones: 30 executable
 * mappings and one thread, 31 records, 175 with data mappings, as perf
 * bench 6.1 counts for itself. Ready once perf has started its workload.
 */
static bool perf_ready(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *f;
	int child = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fscanf(f, "%d", &child) != 1)
		child = 0;
	fclose(f);
	if (!child)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", child);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strcmp(comm, "sleep\n");
}

static void stop_perf(struct syn_state *s)
{
	if (s->target <= 0)
		return;
	kill(-s->target, SIGKILL);
	waitpid(s->target, NULL, 0);
	s->target = 0;
}

static int start_perf(struct kscen_ctx *ctx, struct syn_state *s)
{
	static char *const argv[] = {
		"perf", "stat", "-e", "cpu-clock", "-o", "/dev/null",
		"--", "sleep", "3600", NULL,
	};
	extern char **environ;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t a;
	long long deadline;
	int ret, st;

	posix_spawn_file_actions_init(&fa);
	for (int fd = 0; fd <= 2; fd++)
		posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", O_RDWR, 0);
	posix_spawnattr_init(&a);
	posix_spawnattr_setflags(&a, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&a, 0);
	ret = posix_spawnp(&s->target, "perf", &fa, &a, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&a);
	if (ret) {
		s->target = 0;
		if (ret == ENOENT)
			return kscen_reason(ctx, KSCEN_SKIP, "scope perf needs perf "
					    "(apt-get install linux-perf)");
		return kscen_reason(ctx, -ret, "perf: %s", strerror(ret));
	}
	deadline = kscen_now_ns() + 10 * 1000000000LL;
	while (!perf_ready(s->target)) {
		if (waitpid(s->target, &st, WNOHANG) == s->target) {
			s->target = 0;
			return kscen_reason(ctx, -ECHILD, "perf stat -- sleep exited "
					    "(status %d) before it was idle", st);
		}
		if (kscen_now_ns() > deadline) {
			stop_perf(s);
			return kscen_reason(ctx, -ETIMEDOUT, "perf stat -- sleep "
					    "not idle after 10 s");
		}
		usleep(1000);
	}
	return 0;
}

static int syn_setup(struct kscen_ctx *ctx)
{
	struct syn_state *s = kscen_xcalloc(1, sizeof(*s));
	int ret;

	s->p = ctx->params;
	ctx->priv = s;
	if (s->p->scope == SCOPE_PERF) {
		ret = start_perf(ctx, s);
		if (ret) {
			free(s);
			ctx->priv = NULL;
			return ret;
		}
	}
	return 0;
}

static void syn_teardown(struct kscen_ctx *ctx)
{
	struct syn_state *s = ctx->priv;

	if (s)
		stop_perf(s);
	free(s);
	ctx->priv = NULL;
}

static int syn_sample(struct kscen_ctx *ctx, double *values)
{
	struct syn_state *s = ctx->priv;
	long long t0, t1, i;
	int ret;

	s->records = 0;
	t0 = kscen_now_ns();
	for (i = 0; i < s->p->loops; i++) {
		ret = synthesize(ctx, s);
		if (ret)
			return ret;
	}
	t1 = kscen_now_ns();
	if (!s->records)
		return kscen_reason(ctx, -ENODATA, "no records synthesized from /proc");
	values[0] = (t1 - t0) / 1e3 / s->p->loops;
	values[1] = (double)s->records / s->p->loops;
	values[2] = (t1 - t0) / 1e3 / s->records;
	return 0;
}

static void syn_describe(const void *params, char *buf, size_t len)
{
	const struct syn_params *p = params;

	snprintf(buf, len, "%lld syntheses of %s, %s mappings, %s reader",
		 p->loops, p->scope == SCOPE_SELF ? "this process" :
		 p->scope == SCOPE_PERF ? "an idle perf process" : "every process",
		 p->data_mmap ? "all" : "executable",
		 p->reader == READER_STDIO ? "stdio+sscanf" : "buffered");
}

static const struct kscen_param syn_param_table[] = {
	{
		.name = "loops", .type = KSCEN_P_INT, .def = "1000",
		.offset = offsetof(struct syn_params, loops),
		.min = 1, .max = 100000000,
		.help = "syntheses per sample (perf bench's --single-iterations)",
	},
	{
		.name = "scope", .type = KSCEN_P_ENUM, .def = "self",
		.offset = offsetof(struct syn_params, scope),
		.choices = "self|all|perf",
		.help = "this process, every process (perf record -a), or an idle perf process (perf bench's own shape)",
	},
	{
		.name = "reader", .type = KSCEN_P_ENUM, .def = "buffered",
		.offset = offsetof(struct syn_params, reader),
		.choices = "stdio|buffered",
		.help = "/proc parsing: fgets+sscanf (before perf's \"Remove use of sscanf\" fix) or a buffered reader (after)",
	},
	{
		.name = "data_mmap", .type = KSCEN_P_BOOL, .def = "false",
		.offset = offsetof(struct syn_params, data_mmap),
		.help = "also synthesize non-executable mappings (perf record -d)",
	},
};

static const struct kscen_metric_desc syn_metrics[] = {
	{ .name = "usecs/synthesis", .unit = "usecs/synthesis", .better = KSCEN_LOWER },
	{ .name = "records/synthesis", .unit = "records/synthesis", .better = KSCEN_LOWER },
	{ .name = "usecs/record", .unit = "usecs/record", .better = KSCEN_LOWER },
};

const struct kscen_workload kscen_wl_internals_synthesize = {
	.name = "internals.synthesize",
	.summary = "perf event synthesis from /proc: COMM and MMAP2 records (perf bench internals)",
	/*
	 * 2: the reader's byte fetch inlined, 8% faster; 3: records built in
	 * place and not copied, as perf does: 144 data mappings of an idle
	 * perf added 8 us to a synthesis, now under 1 (perf's: 2)
	 */
	.version = 3,
	.params = syn_param_table,
	.nr_params = ARRAY_SIZE(syn_param_table),
	.params_size = sizeof(struct syn_params),
	.metrics = syn_metrics,
	.nr_metrics = ARRAY_SIZE(syn_metrics),
	.setup = syn_setup,
	.sample = syn_sample,
	.teardown = syn_teardown,
	.describe = syn_describe,
};
