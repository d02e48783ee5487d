// SPDX-License-Identifier: GPL-2.0
/*
 * mem.c - perf bench's mem functions (tools/perf/bench/mem-functions.c)
 * as two kscen workloads; mem.find_bit is find_bit.c's.
 *
 *   mem.memcpy, mem.memset  copy or set `size` bytes `nr_loops` times with
 *       one `function`: the libc default or, on x86-64, the instruction
 *       sequences perf borrows from arch/x86/lib/mem{cpy,set}_64.S (an
 *       unrolled 8-byte-register loop, rep movsq/stosq, rep movsb/stosb;
 *       written here, not copied). The buffers are allocated and faulted in
 *       before the clock starts, as perf does, so GB/sec is the copy alone.
 *       With `cycles`, the CPU-cycles event counts instead of the clock
 *       (cycles/Byte, perf's -c); where no such counter exists (most VMs)
 *       the job is skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "workload.h"
#include "lib/util.h"


#define GB (1024.0 * 1024 * 1024)	/* perf's print_bps() units */

enum { FN_DEFAULT, FN_UNROLLED, FN_REP8, FN_REP1 };

struct mem_params {
	int function;
	long long size;
	long long nr_loops;
	bool cycles;
};

struct mem_state {
	unsigned char *src, *dst;
	int cycles_fd;
};

/* ---- The functions ---------------------------------------------------- */

#if defined(__x86_64__)
/* 32 bytes a round through four registers, then what is left a byte a time. */
static void *copy_unrolled(void *dst, const void *src, size_t n)
{
	void *ret = dst;
	size_t blocks = n / 32;

	if (blocks)
		asm volatile("1:\n\t"
			     "movq 0(%[s]), %%r8\n\t"
			     "movq 8(%[s]), %%r9\n\t"
			     "movq 16(%[s]), %%r10\n\t"
			     "movq 24(%[s]), %%r11\n\t"
			     "movq %%r8, 0(%[d])\n\t"
			     "movq %%r9, 8(%[d])\n\t"
			     "movq %%r10, 16(%[d])\n\t"
			     "movq %%r11, 24(%[d])\n\t"
			     "leaq 32(%[s]), %[s]\n\t"
			     "leaq 32(%[d]), %[d]\n\t"
			     "decq %[n]\n\t"
			     "jnz 1b"
			     : [s] "+r"(src), [d] "+r"(dst), [n] "+r"(blocks)
			     : : "r8", "r9", "r10", "r11", "memory", "cc");
	n %= 32;
	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	return ret;
}

static void *copy_rep8(void *dst, const void *src, size_t n)
{
	void *ret = dst;
	size_t q = n / 8, r = n % 8;

	asm volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(q) : : "memory");
	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(r) : : "memory");
	return ret;
}

static void *copy_rep1(void *dst, const void *src, size_t n)
{
	void *ret = dst;

	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	return ret;
}

static void *set_unrolled(void *dst, int c, size_t n)
{
	void *ret = dst;
	uint64_t v = 0x0101010101010101ULL * (unsigned char)c;
	size_t blocks = n / 64;

	if (blocks)
		asm volatile("1:\n\t"
			     "movq %[v], 0(%[d])\n\t"
			     "movq %[v], 8(%[d])\n\t"
			     "movq %[v], 16(%[d])\n\t"
			     "movq %[v], 24(%[d])\n\t"
			     "movq %[v], 32(%[d])\n\t"
			     "movq %[v], 40(%[d])\n\t"
			     "movq %[v], 48(%[d])\n\t"
			     "movq %[v], 56(%[d])\n\t"
			     "leaq 64(%[d]), %[d]\n\t"
			     "decq %[n]\n\t"
			     "jnz 1b"
			     : [d] "+r"(dst), [n] "+r"(blocks)
			     : [v] "r"(v) : "memory", "cc");
	n %= 64;
	asm volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(c) : "memory");
	return ret;
}

static void *set_rep8(void *dst, int c, size_t n)
{
	void *ret = dst;
	uint64_t v = 0x0101010101010101ULL * (unsigned char)c;
	size_t q = n / 8, r = n % 8;

	asm volatile("rep stosq" : "+D"(dst), "+c"(q) : "a"(v) : "memory");
	asm volatile("rep stosb" : "+D"(dst), "+c"(r) : "a"(c) : "memory");
	return ret;
}

static void *set_rep1(void *dst, int c, size_t n)
{
	void *ret = dst;

	asm volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(c) : "memory");
	return ret;
}
#define HAVE_X86_FUNCTIONS 1
#else
#define HAVE_X86_FUNCTIONS 0
#endif

typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void *(*set_fn)(void *, int, size_t);

/* Through a volatile pointer, so the compiler cannot inline or drop it. */
static copy_fn copy_of(int f)
{
#if HAVE_X86_FUNCTIONS
	static copy_fn const fns[] = { NULL, copy_unrolled, copy_rep8, copy_rep1 };

	if (f != FN_DEFAULT)
		return fns[f];
#endif
	(void)f;
	return memcpy;
}

static set_fn set_of(int f)
{
#if HAVE_X86_FUNCTIONS
	static set_fn const fns[] = { NULL, set_unrolled, set_rep8, set_rep1 };

	if (f != FN_DEFAULT)
		return fns[f];
#endif
	(void)f;
	return memset;
}

static const char *const copy_names[] = {
	"default", "x86-64-unrolled", "x86-64-movsq", "x86-64-movsb",
};
static const char *const set_names[] = {
	"default", "x86-64-unrolled", "x86-64-stosq", "x86-64-stosb",
};

/* ---- Hooks ------------------------------------------------------------ */

static int open_cycles(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static int mem_supported(struct kscen_ctx *ctx)
{
	const struct mem_params *p = ctx->params;
	int fd;

	if (p->function != FN_DEFAULT && !HAVE_X86_FUNCTIONS)
		return kscen_reason(ctx, KSCEN_SKIP,
				    "the x86-64 functions need an x86-64 CPU");
	if (!p->cycles)
		return 0;
	fd = open_cycles();
	if (fd < 0)
		return kscen_reason(ctx, KSCEN_SKIP,
				    "no CPU cycles counter here (perf_event_open: %s)",
				    strerror(errno));
	close(fd);
	return 0;
}

static void mem_teardown(struct kscen_ctx *ctx)
{
	struct mem_state *s = ctx->priv;

	if (!s)
		return;
	if (s->cycles_fd >= 0)
		close(s->cycles_fd);
	free(s->src);
	free(s->dst);
	free(s);
	ctx->priv = NULL;
}

static int mem_setup(struct kscen_ctx *ctx)
{
	const struct mem_params *p = ctx->params;
	struct mem_state *s = kscen_xcalloc(1, sizeof(*s));

	ctx->priv = s;
	s->cycles_fd = -1;
	s->src = calloc(1, p->size);
	s->dst = calloc(1, p->size);
	if (!s->src || !s->dst) {
		mem_teardown(ctx);
		return kscen_reason(ctx, -ENOMEM, "cannot allocate 2 x %lld bytes",
				    p->size);
	}
	if (p->cycles && (s->cycles_fd = open_cycles()) < 0) {
		int err = errno;

		mem_teardown(ctx);
		return kscen_reason(ctx, -err, "perf_event_open(cycles): %s",
				    strerror(err));
	}
	return 0;
}

static long long cycles_read(int fd)
{
	long long v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return v;
}

/* Time nr_loops calls of @body after one untimed call that faults pages in. */
static int mem_sample(struct kscen_ctx *ctx, double *values, bool copy)
{
	const struct mem_params *p = ctx->params;
	struct mem_state *s = ctx->priv;
	copy_fn volatile cf = copy_of(p->function);
	set_fn volatile sf = set_of(p->function);
	long long c0 = 0, c1 = 0, i;
	struct timespec a, b;
	double ns, bytes = (double)p->size * p->nr_loops;

	memset(s->src, 0, p->size);
	if (copy)
		cf(s->dst, s->src, p->size);
	else
		sf(s->dst, -1, p->size);
	if (s->cycles_fd >= 0) {
		ioctl(s->cycles_fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(s->cycles_fd, PERF_EVENT_IOC_ENABLE, 0);
		c0 = cycles_read(s->cycles_fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < p->nr_loops; i++) {
		if (copy)
			cf(s->dst, s->src, p->size);
		else
			sf(s->dst, (int)i, p->size);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (s->cycles_fd >= 0) {
		c1 = cycles_read(s->cycles_fd);
		if (c0 < 0 || c1 < 0)
			return kscen_reason(ctx, -EIO, "reading the cycles counter failed");
		values[0] = (c1 - c0) / bytes;
		return 0;
	}
	ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	if (ns <= 0)
		ns = 1;
	values[0] = bytes / (ns / 1e9) / GB;
	return 0;
}

static int memcpy_sample(struct kscen_ctx *ctx, double *values)
{
	return mem_sample(ctx, values, true);
}

static int memset_sample(struct kscen_ctx *ctx, double *values)
{
	return mem_sample(ctx, values, false);
}

static const struct kscen_metric_desc mem_metrics[] = {
	{ .name = "GB/sec", .unit = "GB/sec", .better = KSCEN_HIGHER },
};

static const struct kscen_metric_desc cycles_metric = {
	.name = "cycles/Byte", .unit = "cycles/Byte", .better = KSCEN_LOWER,
};

static unsigned mem_job_metrics(const void *params, struct kscen_metric_desc *m)
{
	if (((const struct mem_params *)params)->cycles)
		m[0] = cycles_metric;
	return 1;
}

static void describe(const struct mem_params *p, const char *const *names,
		     const char *what, char *buf, size_t len)
{
	snprintf(buf, len, "function '%s' (%s %s), %lld bytes x %lld loops",
		 names[p->function], p->function == FN_DEFAULT ?
		 "Default" : "x86-64", what, p->size, p->nr_loops);
}

static void memcpy_describe(const void *params, char *buf, size_t len)
{
	describe(params, copy_names, "memcpy()", buf, len);
}

static void memset_describe(const void *params, char *buf, size_t len)
{
	describe(params, set_names, "memset()", buf, len);
}

#define P(f) offsetof(struct mem_params, f)
#define MEM_TABLE(nm, fns, fhelp)					\
static const struct kscen_param nm[] = {				\
	{ .name = "function", .type = KSCEN_P_ENUM, .offset = P(function), \
	  .def = "default", .choices = fns, .help = fhelp },		\
	{ .name = "size", .type = KSCEN_P_SIZE, .offset = P(size),	\
	  .def = "1M", .min = 1, .max = 1LL << 34,			\
	  .help = "bytes in each buffer (perf's -s)" },			\
	{ .name = "nr_loops", .type = KSCEN_P_INT, .offset = P(nr_loops), \
	  .def = "1", .min = 1, .max = 1LL << 40,			\
	  .help = "calls timed in a sample (perf's -l)" },		\
	{ .name = "cycles", .type = KSCEN_P_BOOL, .offset = P(cycles),	\
	  .def = "false",						\
	  .help = "count CPU cycles instead of time: cycles/Byte (perf's -c)" }, \
}

MEM_TABLE(memcpy_table,
	  "default|x86-64-unrolled|x86-64-movsq|x86-64-movsb",
	  "libc memcpy(), or an x86-64 variant (perf's -f)");
MEM_TABLE(memset_table,
	  "default|x86-64-unrolled|x86-64-stosq|x86-64-stosb",
	  "libc memset(), or an x86-64 variant (perf's -f)");

const struct kscen_workload kscen_wl_mem_memcpy = {
	.name = "mem.memcpy",
	.summary = "memcpy() bandwidth, libc or x86-64 variants (perf bench mem memcpy)",
	.version = 1,
	.params = memcpy_table, .nr_params = ARRAY_SIZE(memcpy_table),
	.params_size = sizeof(struct mem_params),
	.metrics = mem_metrics, .nr_metrics = ARRAY_SIZE(mem_metrics),
	.job_metrics = mem_job_metrics,
	.supported = mem_supported, .setup = mem_setup,
	.sample = memcpy_sample, .teardown = mem_teardown,
	.describe = memcpy_describe,
};

const struct kscen_workload kscen_wl_mem_memset = {
	.name = "mem.memset",
	.summary = "memset() bandwidth, libc or x86-64 variants (perf bench mem memset)",
	.version = 1,
	.params = memset_table, .nr_params = ARRAY_SIZE(memset_table),
	.params_size = sizeof(struct mem_params),
	.metrics = mem_metrics, .nr_metrics = ARRAY_SIZE(mem_metrics),
	.job_metrics = mem_job_metrics,
	.supported = mem_supported, .setup = mem_setup,
	.sample = memset_sample, .teardown = mem_teardown,
	.describe = memset_describe,
};
