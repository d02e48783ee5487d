// SPDX-License-Identifier: GPL-2.0
/*
 * lock_contention.c - lock.contention: what tracing lock contention with
 * BPF costs a workload, as a matrix: the experiment of the LKML thread
 * "[PATCHSET 0/7] perf lock contention: Improve performance if map is full"
 * (Namhyung Kim, April 2023).
 *
 * A load (perf bench sched messaging, or threads of one process churning
 * mmap/munmap, which contend on the mm's lock) runs with no tracer or with
 * bpf/lock_contention.bpf.c attached to lock:contention_begin/end, which
 * does what `perf lock contention -b` does: time each contention per task
 * and aggregate it into a preallocated hash map of `map_entries`, keyed by
 * task, lock address or stack. The primary metric is the load's wall time;
 * the tracer's counters follow it, as that thread's "bad: N, total: M" did.
 * A map smaller than the tasks (or locks, or stacks) fills up, and with
 * skip_when_full=false every later insert pays for a failed allocation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "lib/util.h"
#include "bpf.h"
#include "messaging.h"
#include "lock_contention.h"
#include "lock_contention.skel.h"


/* Four pages: a small VMA whose map and unmap take mmap_lock for writing. */
#define LC_MMAP_BYTES (16 * 1024)

enum { LC_LOAD_MESSAGING, LC_LOAD_MMAP };
enum { LC_TRACER_NONE, LC_TRACER_BPF };

struct lc_params {
	int load;
	long long groups;
	long long loops;
	int ipc;
	int mode;
	long long threads;
	int tracer;
	int aggregate;
	long long map_entries;
	bool skip_when_full;
};

/* load=mmap: threads parked on a pipe until the timed region closes it. */
struct mm_load {
	long long loops;
	pthread_t *tids;
	long long nr;
	int gate[2];
	int abort;
	int err;
};

struct lc_state {
	const struct lc_params *p;
	struct lock_contention_bpf *skel;
	struct bpf_program *progs[2];	/* the attached begin and end */
	int stats_fd;			/* keeps kernel.bpf_stats_enabled on */
	struct kscen_msg *msg;
	struct mm_load *mm;
};

/* ---- load=mmap ---------------------------------------------------------- */

static void *mm_thread(void *arg)
{
	struct mm_load *mm = arg;
	char dummy;
	long long i;
	int none = 0;

	while (read(mm->gate[0], &dummy, 1) < 0 && errno == EINTR)
		;
	if (__atomic_load_n(&mm->abort, __ATOMIC_RELAXED))
		return NULL;
	for (i = 0; i < mm->loops; i++) {
		char *p = mmap(NULL, LC_MMAP_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			__atomic_compare_exchange_n(&mm->err, &none, errno,
						    false, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			return NULL;
		}
		p[0] = 1;	/* a fault, so the unmap has a page to free */
		munmap(p, LC_MMAP_BYTES);
	}
	return NULL;
}

/* Open the gate (or abort) and join whatever was started. */
static void mm_release(struct mm_load *mm, bool abort)
{
	long long i;

	if (abort)
		__atomic_store_n(&mm->abort, 1, __ATOMIC_RELAXED);
	if (mm->gate[1] >= 0) {
		close(mm->gate[1]);	/* every read() returns end-of-file */
		mm->gate[1] = -1;
	}
	for (i = 0; i < mm->nr; i++)
		pthread_join(mm->tids[i], NULL);
	mm->nr = 0;
}

static void mm_free(struct mm_load *mm)
{
	if (!mm)
		return;
	mm_release(mm, true);
	if (mm->gate[0] >= 0)
		close(mm->gate[0]);
	free(mm->tids);
	free(mm);
}

static int mm_start(struct kscen_ctx *ctx, const struct lc_params *p,
		    struct mm_load **out)
{
	struct mm_load *mm;
	int err;

	mm = kscen_xcalloc(1, sizeof(*mm));
	mm->loops = p->loops;
	mm->tids = kscen_xcalloc(p->threads, sizeof(*mm->tids));
	if (pipe(mm->gate)) {
		err = errno;
		mm->gate[0] = mm->gate[1] = -1;
		mm_free(mm);
		return kscen_reason(ctx, -err, "pipe: %s", strerror(err));
	}
	while (mm->nr < p->threads) {
		err = pthread_create(&mm->tids[mm->nr], NULL, mm_thread, mm);
		if (err) {
			kscen_reason(ctx, -err,
				     "pthread_create thread %lld of %lld: %s",
				     mm->nr + 1, p->threads, strerror(err));
			mm_free(mm);
			return -err;
		}
		mm->nr++;
	}
	*out = mm;
	return 0;
}

/* ---- the tracer ---------------------------------------------------------- */

/* Tests rename a tracepoint to one that does not exist to force the skip. */
static const char *tp_name(bool begin)
{
	const char *env = getenv(begin ? "KSCEN_LOCK_TP_BEGIN" : "KSCEN_LOCK_TP_END");

	if (env && *env)
		return env;
	return begin ? "contention_begin" : "contention_end";
}

static bool have_btf(void)
{
	return access(kscen_bpf_btf_path(), R_OK) == 0;
}

/* With kernel BTF, both tracepoints must be in it (Linux 5.19 and later). */
static int tracepoints_supported(struct kscen_ctx *ctx)
{
	struct btf *btf;
	char name[128];
	int i, id;

	kscen_bpf_init();
	btf = btf__parse(kscen_bpf_btf_path(), NULL);
	if (!btf)
		return kscen_reason(ctx, KSCEN_SKIP, "cannot read kernel BTF %s: %s",
				    kscen_bpf_btf_path(), strerror(errno));
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", tp_name(i == 0));
		id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
		if (id < 0) {
			btf__free(btf);
			return kscen_reason(ctx, KSCEN_SKIP,
					    "no tracepoint lock:%s in this kernel (needs Linux 5.19+)",
					    tp_name(i == 0));
		}
	}
	btf__free(btf);
	return 0;
}

static int lc_supported(struct kscen_ctx *ctx)
{
	const struct lc_params *p = ctx->params;
	int ret;

	if (p->tracer == LC_TRACER_NONE)
		return 0;
	/* Without BTF the raw_tp programs are used; loading says if allowed. */
	if (!have_btf())
		return 0;
	ret = kscen_bpf_supported(ctx);
	if (ret)
		return ret;
	return tracepoints_supported(ctx);
}

static int tracer_attach(struct kscen_ctx *ctx, struct lock_contention_bpf *skel,
			 bool btf)
{
	struct bpf_program *progs[2];
	struct bpf_link **links[2];
	int i, err;

	if (btf) {
		progs[0] = skel->progs.begin_btf;
		progs[1] = skel->progs.end_btf;
		links[0] = &skel->links.begin_btf;
		links[1] = &skel->links.end_btf;
	} else {
		progs[0] = skel->progs.begin_raw;
		progs[1] = skel->progs.end_raw;
		links[0] = &skel->links.begin_raw;
		links[1] = &skel->links.end_raw;
	}
	for (i = 0; i < 2; i++) {
		if (btf)
			*links[i] = bpf_program__attach(progs[i]);
		else
			*links[i] = bpf_program__attach_raw_tracepoint(progs[i],
								       tp_name(i == 0));
		if (*links[i])
			continue;
		err = errno;
		if (err == ENOENT || err == ESRCH)
			return kscen_reason(ctx, KSCEN_SKIP,
					    "no tracepoint lock:%s in this kernel",
					    tp_name(i == 0));
		return kscen_reason(ctx, -err, "attaching to lock:%s: %s",
				    tp_name(i == 0), strerror(err));
	}
	return 0;
}

static int tracer_open(struct kscen_ctx *ctx, struct lc_state *s)
{
	const struct lc_params *p = s->p;
	struct lock_contention_bpf *skel;
	bool btf = have_btf();
	int ret;

	kscen_bpf_init();
	skel = lock_contention_bpf__open();
	if (!skel)
		return kscen_reason(ctx, -errno, "opening lock_contention.bpf.o: %s",
				    strerror(errno));
	skel->rodata->aggregate = p->aggregate;
	skel->rodata->skip_when_full = p->skip_when_full;
	bpf_map__set_max_entries(skel->maps.lock_stat, p->map_entries);
	if (p->aggregate == LC_AGG_STACK)
		bpf_map__set_max_entries(skel->maps.stacks, p->map_entries);
	bpf_program__set_autoload(skel->progs.begin_btf, btf);
	bpf_program__set_autoload(skel->progs.end_btf, btf);
	bpf_program__set_autoload(skel->progs.begin_raw, !btf);
	bpf_program__set_autoload(skel->progs.end_raw, !btf);
	if (btf) {
		bpf_program__set_attach_target(skel->progs.begin_btf, 0, tp_name(true));
		bpf_program__set_attach_target(skel->progs.end_btf, 0, tp_name(false));
	}
	ret = kscen_bpf_load(ctx, skel->skeleton, "lock_contention.bpf.o");
	if (!ret)
		ret = tracer_attach(ctx, skel, btf);
	if (ret) {
		lock_contention_bpf__destroy(skel);
		return ret;
	}
	s->skel = skel;
	s->progs[0] = btf ? skel->progs.begin_btf : skel->progs.begin_raw;
	s->progs[1] = btf ? skel->progs.end_btf : skel->progs.end_raw;
	/* Best effort: without run-time stats the cost metric reads 0. */
	s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	return 0;
}

/*
 * Run time and run count of the two programs, from the kernel's BPF stats:
 * the tracer's own cost, which a full map raises even where the load's wall
 * time cannot show it.
 */
static void tracer_stats(const struct lc_state *s, __u64 *run_ns, __u64 *ends)
{
	struct bpf_prog_info info;
	__u32 len;
	int i;

	*run_ns = *ends = 0;
	for (i = 0; i < 2; i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(bpf_program__fd(s->progs[i]), &info, &len))
			continue;
		*run_ns += info.run_time_ns;
		if (i == 1)
			*ends = info.run_cnt;
	}
}

/* ---- the workload ---------------------------------------------------------- */

static void msg_opts(const struct lc_params *p, struct kscen_msg_opts *o)
{
	o->groups = p->groups;
	o->loops = p->loops;
	o->ipc = p->ipc;
	o->mode = p->mode;
	o->exit_libc = false;
}

static void lc_free(struct lc_state *s)
{
	if (!s)
		return;
	kscen_msg_free(s->msg);
	mm_free(s->mm);
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	lock_contention_bpf__destroy(s->skel);
	free(s);
}

/* The tracer first: it is attached, but counts nothing until enabled. */
static int lc_setup(struct kscen_ctx *ctx)
{
	const struct lc_params *p = ctx->params;
	struct kscen_msg_opts o;
	struct lc_state *s;
	int ret = 0;

	s = kscen_xcalloc(1, sizeof(*s));
	s->p = p;
	s->stats_fd = -1;
	if (p->tracer == LC_TRACER_BPF)
		ret = tracer_open(ctx, s);
	if (!ret && p->load == LC_LOAD_MESSAGING) {
		msg_opts(p, &o);
		ret = kscen_msg_start(ctx, &o, &s->msg);
	} else if (!ret) {
		ret = mm_start(ctx, p, &s->mm);
	}
	if (ret) {
		lc_free(s);
		return ret;
	}
	ctx->priv = s;
	return 0;
}

static int lc_sample(struct kscen_ctx *ctx, double *values)
{
	struct lc_state *s = ctx->priv;
	struct timespec start, stop;
	__u64 ns0 = 0, ends0 = 0, ns1, ends1;
	int ret = 0;

	if (s->skel) {
		tracer_stats(s, &ns0, &ends0);
		__atomic_store_n(&s->skel->bss->enabled, 1, __ATOMIC_SEQ_CST);
	}
	if (s->msg) {
		ret = kscen_msg_run(ctx, s->msg, &values[0]);
	} else {
		clock_gettime(CLOCK_MONOTONIC, &start);
		mm_release(s->mm, false);
		clock_gettime(CLOCK_MONOTONIC, &stop);
		values[0] = (stop.tv_sec - start.tv_sec) +
			    (stop.tv_nsec - start.tv_nsec) / 1e9;
		if (s->mm->err)
			ret = kscen_reason(ctx, -s->mm->err, "mmap: %s",
					   strerror(s->mm->err));
	}
	if (!s->skel)
		return ret;
	__atomic_store_n(&s->skel->bss->enabled, 0, __ATOMIC_SEQ_CST);
	values[1] = s->skel->bss->counters[LC_CONTENTIONS];
	values[2] = s->skel->bss->counters[LC_WAIT_NS] / 1e6;
	values[3] = s->skel->bss->counters[LC_STORED];
	values[4] = s->skel->bss->counters[LC_FAILED];
	tracer_stats(s, &ns1, &ends1);
	values[5] = ends1 > ends0 ? (double)(ns1 - ns0) / (ends1 - ends0) : 0;
	values[6] = s->skel->bss->counters[LC_UPDATE_ERRORS];
	return ret;
}

static void lc_teardown(struct kscen_ctx *ctx)
{
	lc_free(ctx->priv);
	ctx->priv = NULL;
}

static const char *const aggregate_names[] = { "task", "addr", "stack" };

static void lc_describe(const void *params, char *buf, size_t len)
{
	const struct lc_params *p = params;
	struct kscen_msg_opts o;
	char load[160];
	int n;

	if (p->load == LC_LOAD_MESSAGING) {
		msg_opts(p, &o);
		kscen_msg_describe(&o, load, sizeof(load));
	} else {
		snprintf(load, sizeof(load),
			 "%lld threads x %lld mmap+munmap of %d KiB", p->threads,
			 p->loops, LC_MMAP_BYTES / 1024);
	}
	n = snprintf(buf, len, "%s", load);
	if (n < 0 || (size_t)n >= len)
		return;
	if (p->tracer == LC_TRACER_NONE)
		snprintf(buf + n, len - n, "; no tracer");
	else
		snprintf(buf + n, len - n,
			 "; BPF lock tracer by %s into %lld entries%s",
			 aggregate_names[p->aggregate], p->map_entries,
			 p->skip_when_full ? ", stops inserting when full" : "");
}

static const struct kscen_metric_desc lc_metric_table[] = {
	{ .name = "seconds", .unit = "s", .better = KSCEN_LOWER },
	{ .name = "contentions", .unit = "contentions", .better = KSCEN_LOWER },
	{ .name = "wait", .unit = "ms total wait", .better = KSCEN_LOWER },
	{ .name = "stored", .unit = "entries stored", .better = KSCEN_HIGHER },
	{ .name = "failed", .unit = "failed inserts (not stored)", .better = KSCEN_LOWER },
	{ .name = "tracer_ns", .unit = "ns BPF/contention (begin+end)", .better = KSCEN_LOWER },
	{ .name = "update_errors", .unit = "map updates that failed", .better = KSCEN_LOWER },
};

/* No tracer, no counters: only the wall time. */
static unsigned lc_job_metrics(const void *params, struct kscen_metric_desc *m)
{
	const struct lc_params *p = params;

	(void)m;
	return p->tracer == LC_TRACER_NONE ? 1 : ARRAY_SIZE(lc_metric_table);
}

#define P(f) offsetof(struct lc_params, f)
static const struct kscen_param lc_param_table[] = {
	{ .name = "load", .type = KSCEN_P_ENUM, .offset = P(load),
	  .def = "messaging", .choices = "messaging|mmap",
	  .help = "perf bench sched messaging, or threads churning mmap/munmap (mm lock)" },
	{ .name = "groups", .type = KSCEN_P_INT, .offset = P(groups),
	  .def = "10", .min = 1, .max = 100000,
	  .help = "load=messaging: groups of 20 senders and 20 receivers" },
	{ .name = "loops", .type = KSCEN_P_INT, .offset = P(loops),
	  .def = "100", .min = 1, .max = 100000000,
	  .help = "messaging: messages per sender per receiver; mmap: mmap+munmap per thread" },
	{ .name = "ipc", .type = KSCEN_P_ENUM, .offset = P(ipc),
	  .def = "socket", .choices = KSCEN_MSG_IPC_CHOICES,
	  .help = "load=messaging: socketpairs or pipes" },
	{ .name = "mode", .type = KSCEN_P_ENUM, .offset = P(mode),
	  .def = "process", .choices = KSCEN_MSG_MODE_CHOICES,
	  .help = "load=messaging: processes or threads" },
	{ .name = "threads", .type = KSCEN_P_INT, .offset = P(threads),
	  .def = "16", .min = 1, .max = 65536,
	  .help = "load=mmap: threads of one process" },
	{ .name = "tracer", .type = KSCEN_P_ENUM, .offset = P(tracer),
	  .def = "bpf", .choices = "none|bpf",
	  .help = "none, or BPF on lock:contention_begin/end" },
	{ .name = "aggregate", .type = KSCEN_P_ENUM, .offset = P(aggregate),
	  .def = "task", .choices = "task|addr|stack",
	  .help = "what the map is keyed by (perf lock contention -t, -l, default)" },
	{ .name = "map_entries", .type = KSCEN_P_INT, .offset = P(map_entries),
	  .def = "16384", .min = 1, .max = 1 << 24,
	  .help = "entries of the preallocated map (perf lock contention -M)" },
	{ .name = "skip_when_full", .type = KSCEN_P_BOOL,
	  .offset = P(skip_when_full), .def = "false",
	  .help = "stop inserting after the first -E2BIG (perf's \"Do not try to update if hash map is full\")" },
};
#undef P

const struct kscen_workload kscen_wl_lock_contention = {
	.name = "lock.contention",
	.summary = "a load under a BPF lock-contention tracer (perf lock contention -b)",
	.version = 1,
	.params = lc_param_table,
	.nr_params = ARRAY_SIZE(lc_param_table),
	.params_size = sizeof(struct lc_params),
	.metrics = lc_metric_table,
	.nr_metrics = ARRAY_SIZE(lc_metric_table),
	.job_metrics = lc_job_metrics,
	.supported = lc_supported,
	.setup = lc_setup,
	.sample = lc_sample,
	.teardown = lc_teardown,
	.describe = lc_describe,
};
