// SPDX-License-Identifier: GPL-2.0
/*
 * mem.c - perf bench's mem collection (tools/perf/bench/mem-functions.c,
 * find-bit-bench.c) as three kscen workloads.
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
 *   mem.find_bit  for_each_set_bit over a `bits`-bit bitmap with `set_bits`
 *       evenly spaced bits set, against a test_bit loop over every bit,
 *       `inner_iterations` times; usec per batch, mean of
 *       `outer_iterations` batches. perf sweeps every power of two of both;
 *       here each point is a job, so a scenario makes the sweep an axis.
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

/* ---- mem.find_bit ----------------------------------------------------- */

#define LONG_BITS (8 * sizeof(unsigned long))

struct fb_params {
	long long bits, set_bits, outer, inner;
};

/*
 * The loops are built the way perf's are (Debian's perf 6.1 binary,
 * disassembled): the body perf calls for each bit found adds to two
 * global unsigned ints out of line; find_first_bit() and find_next_bit()
 * are calls into the generic tools/lib code, whose __ffs() halves the word
 * five times rather than using bsf/tzcnt; perf builds with frame pointers.
 * With tzcnt and a leaner body this measured 0.71 of perf's for_each_set_bit
 * time and 1.32 of its test_bit loop (docs/fidelity.md).
 */
#if defined(__clang__)
/* clang has no per-function optimize(); only the fuzz build uses it */
#define FB_FRAME __attribute__((noinline))
#else
#define FB_FRAME __attribute__((noinline, optimize("no-omit-frame-pointer")))
#endif

/*
 * perf is built with -fstack-protector-all: each of these functions stores
 * the thread's stack canary (%fs:0x28) in its frame on entry and compares
 * it on the way out. FB_GUARD and FB_CHECK do the same work by hand.
 */
#if defined(__x86_64__)
#define FB_GUARD							\
	unsigned long fb_g_;						\
	asm volatile("mov %%fs:0x28, %0" : "=r"(fb_g_));		\
	volatile unsigned long fb_slot_ = fb_g_
#define FB_CHECK							\
	do {								\
		asm volatile("mov %%fs:0x28, %0" : "=r"(fb_g_));	\
		if (fb_slot_ != fb_g_)					\
			__builtin_trap();				\
	} while (0)
#else
#define FB_GUARD do { } while (0)
#define FB_CHECK do { } while (0)
#endif

static unsigned int fb_accumulator, fb_use_of_val;

static FB_FRAME void fb_work(int val)
{
	FB_GUARD;

	fb_use_of_val += val;
	fb_accumulator++;
	FB_CHECK;
}

/* The lowest set bit of @w (not 0), by halving, as the generic __ffs(). */
static inline unsigned long fb_ffs(unsigned long w)
{
	unsigned long n = 0;

	if (!(w & 0xffffffffUL)) {
		n += 32;
		w >>= 32;
	}
	if (!(w & 0xffff)) {
		n += 16;
		w >>= 16;
	}
	if (!(w & 0xff)) {
		n += 8;
		w >>= 8;
	}
	if (!(w & 0xf)) {
		n += 4;
		w >>= 4;
	}
	if (!(w & 0x3)) {
		n += 2;
		w >>= 2;
	}
	if (!(w & 0x1))
		n += 1;
	return n;
}

static FB_FRAME unsigned long first_bit(const unsigned long *map,
					unsigned long n)
{
	unsigned long b = n;
	FB_GUARD;

	for (unsigned long i = 0; i * LONG_BITS < n; i++)
		if (map[i]) {
			b = i * LONG_BITS + fb_ffs(map[i]);
			b = b < n ? b : n;
			break;
		}
	FB_CHECK;
	return b;
}

static FB_FRAME unsigned long next_bit(const unsigned long *map,
				       unsigned long n, unsigned long from)
{
	unsigned long w, i = from / LONG_BITS;
	FB_GUARD;

	if (from >= n)
		goto out;
	w = map[i] & (~0UL << (from % LONG_BITS));
	while (!w) {
		if (++i * LONG_BITS >= n) {
			from = n;
			goto out;
		}
		w = map[i];
	}
	from = i * LONG_BITS + fb_ffs(w);
	from = from < n ? from : n;
	FB_CHECK;
	return from;
out:
	FB_CHECK;
	return n;
}

/*
 * perf tests each bit with x86's bt on the bitmap in memory (a bit-string
 * access, slower than a load and a shift: `bt %r14,0x0(%r13)` in Debian's
 * perf 6.1 binary), and so does this where it can.
 */
static bool test_bit(unsigned long nr, const unsigned long *map)
{
#if (defined(__i386__) || defined(__x86_64__)) && defined(__GCC_ASM_FLAG_OUTPUTS__)
	bool bit;

	asm volatile("bt %2, %1" : "=@ccc"(bit)
		     : "m"(*(const unsigned long *)map), "Ir"(nr) : "memory");
	return bit;
#else
	return map[nr / LONG_BITS] >> (nr % LONG_BITS) & 1;
#endif
}

static int fb_sample(struct kscen_ctx *ctx, double *values)
{
	const struct fb_params *p = ctx->params;
	unsigned int n = p->bits, set = p->set_bits ? (unsigned int)p->set_bits : n;
	unsigned long *map;
	unsigned int skip, bit, i, expect;
	struct timespec a, b;
	double fb = 0, tb = 0;

	if (set > n)
		return kscen_reason(ctx, -EINVAL, "set_bits (%u) > bits (%u)",
				    set, n);
	map = kscen_xcalloc((n + LONG_BITS - 1) / LONG_BITS, sizeof(*map));
	skip = n / set;
	for (i = 0; i < n; i += skip)
		map[i / LONG_BITS] |= 1UL << (i % LONG_BITS);
	fb_accumulator = fb_use_of_val = 0;
	for (long long o = 0; o < p->outer; o++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long long j = 0; j < p->inner; j++)
			for (bit = first_bit(map, n); bit < n;
			     bit = next_bit(map, n, bit + 1))
				fb_work(bit);
		clock_gettime(CLOCK_MONOTONIC, &b);
		fb += (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long long j = 0; j < p->inner; j++)
			for (bit = 0; bit < n; bit++)
				if (test_bit(bit, map))
					fb_work(bit);
		clock_gettime(CLOCK_MONOTONIC, &b);
		tb += (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;
	}
	free(map);
	/* as perf's assert(), in its unsigned int (modulo 2^32) */
	expect = 2ULL * p->outer * p->inner * ((n + skip - 1) / skip);
	if (fb_accumulator != expect)
		return kscen_reason(ctx, -EPROTO, "found %u bits, expected %u",
				    fb_accumulator, expect);
	values[0] = fb / p->outer;
	values[1] = tb / p->outer;
	return 0;
}

static int fb_check(const void *params, char *err, size_t len)
{
	const struct fb_params *p = params;

	if (p->set_bits > p->bits) {
		snprintf(err, len, "set_bits: %lld is more than bits (%lld)",
			 p->set_bits, p->bits);
		return -EINVAL;
	}
	return 0;
}

static void fb_describe(const void *params, char *buf, size_t len)
{
	const struct fb_params *p = params;

	snprintf(buf, len, "%lld operations %lld bits set of %lld bits, %lld times",
		 p->inner, p->set_bits ? p->set_bits : p->bits, p->bits, p->outer);
}

static const struct kscen_param fb_table[] = {
	{ .name = "bits", .type = KSCEN_P_INT, .offset = offsetof(struct fb_params, bits),
	  .def = "2048", .min = 1, .max = 1 << 24,
	  .help = "bitmap size (perf sweeps 1..2048 by powers of two)" },
	{ .name = "set_bits", .type = KSCEN_P_INT, .offset = offsetof(struct fb_params, set_bits),
	  .def = "0", .min = 0, .max = 1 << 24,
	  .help = "bits set, evenly spaced; 0: all (perf sweeps 1..bits)" },
	{ .name = "outer_iterations", .type = KSCEN_P_INT,
	  .offset = offsetof(struct fb_params, outer), .def = "5", .min = 1, .max = 1000000,
	  .help = "timed batches averaged (perf's -i)" },
	{ .name = "inner_iterations", .type = KSCEN_P_INT,
	  .offset = offsetof(struct fb_params, inner), .def = "100000", .min = 1,
	  .max = 1000000000, .help = "walks of the bitmap a batch (perf's -j)" },
};

static const struct kscen_metric_desc fb_metrics[] = {
	{ .name = "for_each_set_bit usec", .unit = "usec", .better = KSCEN_LOWER },
	{ .name = "test_bit loop usec", .unit = "usec", .better = KSCEN_LOWER },
};

const struct kscen_workload kscen_wl_mem_find_bit = {
	.name = "mem.find_bit",
	.summary = "for_each_set_bit against a test_bit loop (perf bench mem find_bit)",
	.version = 2,	/* 2: perf's loop shapes: generic __ffs, calls, globals */
	.params = fb_table, .nr_params = ARRAY_SIZE(fb_table),
	.params_size = sizeof(struct fb_params),
	.metrics = fb_metrics, .nr_metrics = ARRAY_SIZE(fb_metrics),
	.check = fb_check, .sample = fb_sample, .describe = fb_describe,
};
