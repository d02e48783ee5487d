// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe.c - what a BPF uprobe costs the probed process, as perf bench
 * uprobe measures it, and the bare cost of one hit.
 *
 * uprobe.usleep is perf bench uprobe's shape (tools/perf/bench/uprobe.c):
 * `calls` usleep(`usecs`) calls, timed, with no probe (the baseline), an
 * empty BPF program or one calling bpf_trace_printk() on usleep's entry or
 * return. uprobe.nop puts the same probes on an empty function inside
 * kscen, so the time per call is the hit itself: the int3 trap, the uprobe
 * dispatch and the program (plus, on return, the trampoline).
 *
 * The probe goes on the file and offset the process really maps (read from
 * /proc/self/maps), for every process (pid -1) like perf bench; the BPF side
 * counts hits per process and a sample whose own count is not `calls` fails.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "bpf.h"
#include "uprobe.h"
#include "uprobe.skel.h"


enum { PROBE_NONE, PROBE_EMPTY, PROBE_PRINTK };
enum { AT_ENTRY, AT_RETURN };

struct up_params {
	long long calls;
	long long usecs;	/* uprobe.usleep only */
	int probe;
	int attach;
};

struct up_state {
	const struct up_params *p;
	struct uprobe_bpf *skel;
	struct bpf_link *link;
};

/*
 * uprobe.nop's target. noinline and used keep one real call per loop turn;
 * the asm barrier tells the compiler the call has an effect, so the loop
 * cannot be dropped either.
 */
static __attribute__((noinline, used)) void uprobe_nop_target(void)
{
	asm volatile("" ::: "memory");
}

/*
 * The file mapping @addr and @addr's offset in it, from /proc/self/maps:
 * what the kernel itself sees, whatever the dynamic loader's search path,
 * symlinks or this build (PIE or not) are.
 */
static int find_mapping(struct kscen_ctx *ctx, const void *addr, const char *what,
			char *path, size_t len, unsigned long *offset)
{
	unsigned long a = (unsigned long)addr, start, end, pgoff;
	char line[4096], perms[8];
	int ret = -ENOENT, pos;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return kscen_reason(ctx, -errno, "/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		pos = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %n", &start, &end, perms,
			   &pgoff, &pos) < 4 || !pos || a < start || a >= end)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (perms[2] != 'x' || line[pos] != '/') {
			ret = kscen_reason(ctx, -ENOENT,
					   "%s at %p is not in an executable file mapping",
					   what, addr);
			break;
		}
		/*
		 * map_files names the very inode mapped, even when the file was
		 * replaced since (a rebuild while kscen runs); the plain path is
		 * for when /proc hides it (it needs CAP_SYS_ADMIN).
		 */
		snprintf(path, len, "/proc/self/map_files/%lx-%lx", start, end);
		if (access(path, R_OK))
			snprintf(path, len, "%s", line + pos);
		*offset = a - start + pgoff;
		ret = 0;
		break;
	}
	fclose(f);
	if (ret == -ENOENT && !ctx->reason[0])
		kscen_reason(ctx, ret, "%s at %p: no mapping in /proc/self/maps",
			     what, addr);
	return ret;
}

static void up_free(struct up_state *s)
{
	if (!s)
		return;
	bpf_link__destroy(s->link);
	uprobe_bpf__destroy(s->skel);
	free(s);
}

static int up_setup(struct kscen_ctx *ctx, const void *addr, const char *what)
{
	const struct up_params *p = ctx->params;
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = p->attach == AT_RETURN);
	struct bpf_program *prog;
	struct up_state *s;
	unsigned long offset = 0;
	char path[4096];
	int ret;

	s = kscen_xcalloc(1, sizeof(*s));
	s->p = p;
	ctx->priv = s;
	if (p->probe == PROBE_NONE)
		return 0;

	ret = find_mapping(ctx, addr, what, path, sizeof(path), &offset);
	if (ret)
		goto err;
	kscen_bpf_init();
	s->skel = uprobe_bpf__open();
	if (!s->skel) {
		ret = kscen_reason(ctx, -errno, "opening the uprobe BPF skeleton: %s",
				   strerror(errno));
		goto err;
	}
	s->skel->rodata->target_tgid = getpid();
	prog = p->probe == PROBE_EMPTY ? s->skel->progs.empty
				       : s->skel->progs.trace_printk;
	/* Load only the program this job attaches. */
	bpf_program__set_autoload(p->probe == PROBE_EMPTY ?
				  s->skel->progs.trace_printk : s->skel->progs.empty,
				  false);
	ret = kscen_bpf_load(ctx, s->skel->skeleton, "bpf/uprobe.bpf.c");
	if (ret)
		goto err;

	if (p->probe == PROBE_PRINTK)
		kscen_bpf_trace_clear();
	s->link = bpf_program__attach_uprobe_opts(prog, -1, path, offset, &opts);
	if (!s->link) {
		ret = -errno;
		/*
		 * A refusal is about privilege, not a bug: here (6.18,
		 * perf_event_paranoid 2) a non-root process with CAP_BPF and
		 * CAP_PERFMON loads the program but gets EACCES from
		 * perf_event_open() on the uprobe PMU.
		 */
		kscen_reason(ctx, ret, "attaching a %s to %s+%#lx (%s): %s%s",
			     p->attach == AT_RETURN ? "uretprobe" : "uprobe",
			     path, offset, what, strerror(-ret),
			     ret == -EACCES || ret == -EPERM ?
			     " (perf_event_open on the uprobe PMU; run as root)" : "");
		if (ret == -EACCES || ret == -EPERM)
			ret = KSCEN_SKIP;
		goto err;
	}
	return 0;
err:
	up_free(s);
	ctx->priv = NULL;
	return ret;
}

static void up_teardown(struct kscen_ctx *ctx)
{
	struct up_state *s = ctx->priv;

	if (s && s->p->probe == PROBE_PRINTK)
		kscen_bpf_trace_clear();
	up_free(s);
	ctx->priv = NULL;
}

static int up_supported(struct kscen_ctx *ctx)
{
	const struct up_params *p = ctx->params;
	int ret;

	if (p->probe == PROBE_NONE)
		return 0;
	ret = kscen_bpf_supported(ctx);
	return ret ? ret : kscen_bpf_need_pmu(ctx, "uprobe");
}

/* After a timed loop: did the probe fire once per call, in this process? */
static int up_check_hits(struct kscen_ctx *ctx, const struct up_state *s)
{
	unsigned long long self, other;

	if (!s->skel)
		return 0;
	self = __atomic_load_n(&s->skel->bss->hits.self, __ATOMIC_RELAXED);
	other = __atomic_load_n(&s->skel->bss->hits.other, __ATOMIC_RELAXED);
	if (self == (unsigned long long)s->p->calls)
		return 0;
	return kscen_reason(ctx, -EIO,
			    "probe hit %llu times for %lld calls (%llu hits in other processes)",
			    self, s->p->calls, other);
}

static void up_reset_hits(struct up_state *s)
{
	if (s->skel)
		memset(&s->skel->bss->hits, 0, sizeof(s->skel->bss->hits));
}

static const char *const probe_names[] = { "no", "an empty", "a trace_printk" };

/* ---- uprobe.usleep ---------------------------------------------------- */

static int up_usleep_setup(struct kscen_ctx *ctx)
{
	return up_setup(ctx, (const void *)usleep, "usleep");
}

static int up_usleep_sample(struct kscen_ctx *ctx, double *values)
{
	struct up_state *s = ctx->priv;
	long long t0, t1, i;
	int ret;

	up_reset_hits(s);
	t0 = kscen_now_ns();
	for (i = 0; i < s->p->calls; i++)
		usleep(s->p->usecs);
	t1 = kscen_now_ns();
	ret = up_check_hits(ctx, s);
	if (ret)
		return ret;
	values[0] = (t1 - t0) / 1e3 / s->p->calls;
	values[1] = (t1 - t0) / 1e3;
	return 0;
}

static void up_usleep_describe(const void *params, char *buf, size_t len)
{
	const struct up_params *p = params;

	snprintf(buf, len, "Executed %lld usleep(%lld) calls with %s uprobe%s",
		 p->calls, p->usecs, probe_names[p->probe],
		 p->probe == PROBE_NONE ? "" :
		 p->attach == AT_RETURN ? " on return" : " on entry");
}

#define UP_COMMON_PARAMS						\
	{								\
		.name = "probe", .type = KSCEN_P_ENUM, .def = "empty",	\
		.offset = offsetof(struct up_params, probe),		\
		.choices = "none|empty|trace_printk",			\
		.help = "BPF program on the probe: none (baseline), empty, or bpf_trace_printk()", \
	},								\
	{								\
		.name = "attach", .type = KSCEN_P_ENUM, .def = "entry",	\
		.offset = offsetof(struct up_params, attach),		\
		.choices = "entry|return",				\
		.help = "uprobe on the function's entry, or uretprobe on its return", \
	}

static const struct kscen_param up_usleep_param_table[] = {
	{
		.name = "calls", .type = KSCEN_P_INT, .def = "1000",
		.offset = offsetof(struct up_params, calls),
		.min = 1, .max = 100000000,
		.help = "usleep() calls per sample (perf bench's --loop)",
	},
	{
		.name = "usecs", .type = KSCEN_P_INT, .def = "1000",
		.offset = offsetof(struct up_params, usecs),
		.min = 0, .max = 1000000,
		.help = "argument of each usleep() call",
	},
	UP_COMMON_PARAMS,
};

static const struct kscen_metric_desc up_usleep_metrics[] = {
	{ .name = "usecs/op", .unit = "usecs/op", .better = KSCEN_LOWER },
	{ .name = "total", .unit = "usecs", .better = KSCEN_LOWER },
};

const struct kscen_workload kscen_wl_uprobe_usleep = {
	.name = "uprobe.usleep",
	.summary = "usleep() calls under a BPF uprobe/uretprobe (perf bench uprobe)",
	.version = 1,
	.params = up_usleep_param_table,
	.nr_params = ARRAY_SIZE(up_usleep_param_table),
	.params_size = sizeof(struct up_params),
	.metrics = up_usleep_metrics,
	.nr_metrics = ARRAY_SIZE(up_usleep_metrics),
	.supported = up_supported,
	.setup = up_usleep_setup,
	.sample = up_usleep_sample,
	.teardown = up_teardown,
	.describe = up_usleep_describe,
};

/* ---- uprobe.nop -------------------------------------------------------- */

static int up_nop_setup(struct kscen_ctx *ctx)
{
	return up_setup(ctx, (const void *)uprobe_nop_target, "uprobe_nop_target");
}

static int up_nop_sample(struct kscen_ctx *ctx, double *values)
{
	struct up_state *s = ctx->priv;
	long long t0, t1, i;
	int ret;

	up_reset_hits(s);
	t0 = kscen_now_ns();
	for (i = 0; i < s->p->calls; i++)
		uprobe_nop_target();
	t1 = kscen_now_ns();
	ret = up_check_hits(ctx, s);
	if (ret)
		return ret;
	values[0] = (double)(t1 - t0) / s->p->calls;
	values[1] = (t1 - t0) / 1e3;
	return 0;
}

static void up_nop_describe(const void *params, char *buf, size_t len)
{
	const struct up_params *p = params;

	snprintf(buf, len, "Executed %lld calls of an empty function with %s uprobe%s",
		 p->calls, probe_names[p->probe],
		 p->probe == PROBE_NONE ? "" :
		 p->attach == AT_RETURN ? " on return" : " on entry");
}

static const struct kscen_param up_nop_param_table[] = {
	{
		.name = "calls", .type = KSCEN_P_INT, .def = "100000",
		.offset = offsetof(struct up_params, calls),
		.min = 1, .max = 1000000000,
		.help = "calls of the probed empty function per sample",
	},
	UP_COMMON_PARAMS,
};

static const struct kscen_metric_desc up_nop_metrics[] = {
	{ .name = "nsecs/op", .unit = "nsecs/op", .better = KSCEN_LOWER },
	{ .name = "total", .unit = "usecs", .better = KSCEN_LOWER },
};

const struct kscen_workload kscen_wl_uprobe_nop = {
	.name = "uprobe.nop",
	.summary = "calls of an empty function under a BPF uprobe/uretprobe: one hit's cost",
	.version = 1,
	.params = up_nop_param_table,
	.nr_params = ARRAY_SIZE(up_nop_param_table),
	.params_size = sizeof(struct up_params),
	.metrics = up_nop_metrics,
	.nr_metrics = ARRAY_SIZE(up_nop_metrics),
	.supported = up_supported,
	.setup = up_nop_setup,
	.sample = up_nop_sample,
	.teardown = up_teardown,
	.describe = up_nop_describe,
};
