// SPDX-License-Identifier: GPL-2.0
/*
 * test_reliability.c - the result loader's caps and its distrust of stored
 * summaries, and the one reader of input files (docs/reliability.md).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stats/stats.h"
#include "report/report.h"
#include "store/store.h"
#include "lib/util.h"
#include "tests.h"

/* Write @text to a temp file, load it as a result; what it says into @err. */
static int load(const char *text, size_t len, struct kscen_run **r, char *err,
		size_t errlen)
{
	char path[] = "/tmp/kscen-rel-XXXXXX";
	int fd = mkstemp(path), ret;

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
	ret = tests_load_result(path, r, err, errlen);
	unlink(path);
	return ret;
}

void test_result_summary_comes_from_samples(void **state)
{
	static const char text[] = "scenario: x\njobs:\n- id: a\n  status: ok\n  metrics:\n"
		"  - {name: m, samples: [1, 2, 3], median: 100, mean: 100, stddev: 0,\n"
		"     min: 100, max: 100, cv: 0, ci_low: 100, ci_high: 100,\n"
		"     outliers: 0, bimodal: false}\n";
	struct kscen_run *r = NULL;
	char err[512];

	assert_true(load(text, strlen(text), &r, err, sizeof(err)) == 0);
	assert_true(r && r->nr_jobs == 1 && r->jobs[0].nr_metrics == 1);
	if (r && r->nr_jobs == 1 && r->jobs[0].nr_metrics == 1) {
		assert_true(r->jobs[0].metrics[0].sum.median == 2);
		assert_true(r->jobs[0].metrics[0].sum.max == 3);
	}
	assert_true(strstr(err, ":6:5: a m: the stored median 100 is not the median of its samples, 2"));
	kscen_run_free(r);
}

/*
 * 80,000 levels took 16 s to refuse; the caps refuse them at once. The
 * bound is on this process's CPU time, which a loaded machine does not
 * stretch as it does the wall clock's.
 */
void test_result_caps_depth_keys_nodes(void **state)
{
	size_t n = 80000, len = 2 * n + 64;
	char *text = kscen_xmalloc(len), err[512];
	struct kscen_run *r = NULL;
	struct timespec t0, t1;
	int pos;

	pos = sprintf(text, "scenario: x\njobs: ");
	memset(text + pos, '[', n);
	memset(text + pos + n, ']', n);
	text[pos + 2 * n] = '\n';
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	assert_true(load(text, pos + 2 * n + 1, &r, err, sizeof(err)) == -EINVAL);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	assert_true(strstr(err, "nested too deeply (limit 16)"));
	assert_true(t1.tv_sec - t0.tv_sec < 2);
	free(text);

	/* a mapping of 300 keys */
	text = kscen_xmalloc(300 * 16 + 64);
	pos = sprintf(text, "scenario: x\nsystem:\n");
	for (int i = 0; i < 300; i++)
		pos += sprintf(text + pos, "  k%d: 1\n", i);
	pos += sprintf(text + pos, "jobs: []\n");
	assert_true(load(text, pos, &r, err, sizeof(err)) == -EINVAL);
	assert_true(strstr(err, ":259:3: more than 256 keys in a mapping"));
	free(text);
	assert_true(!r);
}

void test_read_regular_refuses_fifo_and_devices(void **state)
{
	char dir[] = "/tmp/kscen-rel-dir-XXXXXX", *fifo, *buf;
	size_t len;

	assert_true(mkdtemp(dir));
	fifo = kscen_xasprintf("%s/fifo", dir);
	assert_true(mkfifo(fifo, 0600) == 0);
	assert_true(kscen_read_regular(fifo, 100, &buf, &len) == -ENODEV);
	assert_true(kscen_read_regular("/dev/zero", 100, &buf, &len) == -ENODEV);
	assert_true(kscen_read_regular(dir, 100, &buf, &len) == -EISDIR);
	/* procfs says size 0 and then has more: refused, not read unbounded */
	assert_true(kscen_read_regular("/proc/self/stat", 1 << 20, &buf, &len) == -EAGAIN);
	unlink(fifo);
	rmdir(dir);
	free(fifo);
}

/*
 * A sample that is not a finite number (.inf, .nan) is refused where it
 * is read: report hit signed overflow formatting an .inf median (UBSan).
 */
void test_result_refuses_non_finite_samples(void **state)
{
	static const char *const bad[] = { ".inf", "-.inf", ".nan", "1e999" };
	struct kscen_run *r = NULL;
	char text[512], err[512];

	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text), "scenario: x\njobs:\n- id: a\n  status: ok\n"
			 "  metrics:\n  - {name: m, samples: [1, %s, 3]}\n", bad[i]);
		r = NULL;
		assert_int_equal(load(text, strlen(text), &r, err, sizeof(err)), -EINVAL);
		assert_null(r);
		assert_non_null(strstr(err, ":6:"));
		assert_non_null(strstr(err, "samples: expected a finite number"));
	}
}

/* Two samples of 1e308: their mean is 1e308, not an overflowed .inf. */
void test_summary_of_huge_samples_is_finite(void **state)
{
	const double x[] = { 1e308, 1e308 }, y[] = { -1.5e308, 1.5e308, 1e308 };
	struct kscen_summary s;

	kscen_summarize(x, 2, &s);
	assert_true(s.mean == 1e308 && s.stddev == 0 && s.median == 1e308);
	kscen_summarize(y, 3, &s);
	assert_true(isfinite(s.mean) && fabs(s.mean - 1e308 / 3) < 1e293);
	assert_true(isfinite(s.stddev) && fabs(s.stddev / 1e308 - 1.6072751268321592) < 1e-12);
}
