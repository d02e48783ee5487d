// SPDX-License-Identifier: GPL-2.0
/*
 * test_module.c - what a workload module is checked for before its
 * workloads are used: the tables (every built-in passes; one defect each
 * is refused, named), and the files that are refused before dlopen().
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenario/scenario.h"
#include "tests.h"

void test_module_check_passes_every_builtin(void **state)
{
	char err[512] = "";

	for (unsigned i = 0; i < kscen_nr_workloads; i++) {
		if (kscen_workload_check(kscen_workloads[i], err, sizeof(err)))
			print_message("%s\n", err);
		assert_int_equal(kscen_workload_check(kscen_workloads[i], err, sizeof(err)), 0);
		assert_null(kscen_workload_origin(kscen_workloads[i]));
	}
}

struct tp {
	long long n;
	int e;
	char *s;
};

static int tsample(struct kscen_ctx *ctx, double *v)
{
	(void)ctx;
	v[0] = 1;
	return 0;
}

static const struct kscen_metric_desc tm[] = {
	{ .name = "x", .unit = "x", .better = KSCEN_LOWER },
};

/* One defect each, and a word of what the error must say. */
void test_module_check_refuses_bad_tables(void **state)
{
	struct kscen_param p[3] = {
		{ .name = "n", .type = KSCEN_P_INT, .offset = offsetof(struct tp, n),
		  .def = "1", .min = 0, .max = 9, .help = "h" },
		{ .name = "e", .type = KSCEN_P_ENUM, .offset = offsetof(struct tp, e),
		  .def = "a", .choices = "a|b", .help = "h" },
		{ .name = "s", .type = KSCEN_P_STRING, .offset = offsetof(struct tp, s),
		  .def = "", .help = "h" },
	};
	const struct kscen_workload good = {
		.name = "t.good", .summary = "s", .params = p, .nr_params = 3,
		.params_size = sizeof(struct tp), .metrics = tm, .nr_metrics = 1,
		.sample = tsample,
	};
	struct kscen_workload w;
	char err[512];

#define REFUSED(what)							\
	do {								\
		assert_int_equal(kscen_workload_check(&w, err, sizeof(err)), -EINVAL); \
		if (!strstr(err, what))					\
			fail_msg("'%s' does not say '%s'", err, what);	\
		w = good;						\
		p[0].offset = offsetof(struct tp, n);			\
		p[0].def = "1";						\
		p[0].min = 0;						\
		p[1].choices = "a|b";					\
		p[1].name = "e";					\
		p[2].offset = offsetof(struct tp, s);			\
	} while (0)

	w = good;
	assert_int_equal(kscen_workload_check(&w, err, sizeof(err)), 0);
	w.name = NULL;
	REFUSED("needs a name");
	w.name = "a b";
	REFUSED("needs a name");
	w.sample = NULL;
	REFUSED("no sample()");
	w.nr_metrics = 0;
	REFUSED("needs 1 to 12 metrics");
	w.nr_metrics = KSCEN_MAX_METRICS + 1;
	REFUSED("needs 1 to 12 metrics");
	w.params = NULL;
	REFUSED("3 parameters but no table");
	w.params_size = sizeof(struct tp) - sizeof(char *);
	REFUSED("parameter s: offset");
	p[2].offset = 1;
	REFUSED("parameter s: offset 1");
	p[0].def = "10";
	REFUSED("parameter n: default '10'");
	p[0].min = 10;
	REFUSED("min 10 is above max 9");
	p[1].choices = NULL;
	REFUSED("an enum needs choices");
	p[1].name = "n";
	REFUSED("parameter n: given twice");
#undef REFUSED
}

/* Refused before dlopen(): missing, world-writable, in a world-writable directory. */
void test_module_load_refuses_unsafe_files(void **state)
{
	char dir[] = "/tmp/kscen-module-XXXXXX", path[64], sub[64], err[1024];
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.so", dir);
	assert_int_equal(kscen_module_load(path, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "No such file"));

	fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not ELF\n", 8), 8);
	close(fd);
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(kscen_module_load(path, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "refused: the file is world-writable"));

	/* a directory above it anyone may write to, without the sticky bit */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(kscen_module_load(path, err, sizeof(err)), -EPERM);
	snprintf(sub, sizeof(sub), "the directory %s is world-writable", dir);
	assert_non_null(strstr(err, sub));
	/* ... with it, as /tmp: the file is its owner's */
	assert_int_equal(chmod(dir, 01777), 0);
	assert_int_equal(kscen_module_load(path, err, sizeof(err)), -EINVAL);	/* dlopen's */
	assert_null(strstr(err, "refused"));

	assert_int_equal(chmod(dir, 0700), 0);
	assert_int_equal(kscen_module_load(dir, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(kscen_module_nr_workloads(), 0);
	unlink(path);
	rmdir(dir);
}
