// SPDX-License-Identifier: GPL-2.0
/*
 * find_bit.c - perf bench mem find_bit (tools/perf/bench/find-bit-bench.c)
 * as a kscen workload.
 *
 *   mem.find_bit  for_each_set_bit over a `bits`-bit bitmap with `set_bits`
 *       evenly spaced bits set, against a test_bit loop over every bit,
 *       `inner_iterations` times; usec per batch, mean of
 *       `outer_iterations` batches. perf sweeps every power of two of both;
 *       here each point is a job, so a scenario makes the sweep an axis.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"
#include "lib/util.h"

#define LONG_BITS (8 * sizeof(unsigned long))

struct fb_params {
	long long bits, set_bits, outer, inner;
};

/*
 * The loops are built the way perf's are (Debian's perf 6.1 binary,
 * disassembled): the body perf calls for each bit found adds to two
 * global unsigned ints out of line; find_first_bit() and find_next_bit()
 * are calls into the generic tools/lib code, whose __ffs() halves the word
 * five times rather than using bsf/tzcnt. perf builds with frame pointers
 * and -fstack-protector-all (every function stores the thread's stack
 * canary on entry and checks it on the way out), and the Makefile builds
 * this file so too. With tzcnt and a leaner body this measured 0.71 of
 * perf's for_each_set_bit time and 1.32 of its test_bit loop; with the
 * canary checks written out by hand, 0.90-0.93 (docs/fidelity.md).
 */
#define FB_FRAME __attribute__((noinline))

static unsigned int fb_accumulator, fb_use_of_val;

static FB_FRAME void fb_work(int val)
{
	fb_use_of_val += val;
	fb_accumulator++;
}

/* The lowest set bit of @w (not 0), by halving, as the generic __ffs(). */
static inline unsigned long fb_ffs(unsigned long w)
{
	int n = 0;	/* an int, as tools/include/asm-generic/bitops/__ffs.h's */

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
	for (unsigned long i = 0; i * LONG_BITS < n; i++)
		if (map[i]) {
			b = i * LONG_BITS + fb_ffs(map[i]);
			b = b < n ? b : n;
			break;
		}
	return b;
}

static FB_FRAME unsigned long next_bit(const unsigned long *map,
				       unsigned long n, unsigned long from)
{
	unsigned long w, i = from / LONG_BITS;
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
	return from;
out:
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
	.version = 3,	/* 2: perf's loop shapes; 3: built with -fstack-protector-all */
	.params = fb_table, .nr_params = ARRAY_SIZE(fb_table),
	.params_size = sizeof(struct fb_params),
	.metrics = fb_metrics, .nr_metrics = ARRAY_SIZE(fb_metrics),
	.check = fb_check, .sample = fb_sample, .describe = fb_describe,
};
