// SPDX-License-Identifier: GPL-2.0
/*
 * test_diag.c - the diagnostics sink, and the scenario loader's passes seen
 * through it: every problem at its file:line:column, nothing on stderr.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/diag.h"
#include "scenario/scenario.h"

struct fixture {
	char path[64];
	struct kscen_diag_log log;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int fd;

	if (!f)
		return -1;
	snprintf(f->path, sizeof(f->path), "/tmp/kscen-diag-XXXXXX");
	fd = mkstemp(f->path);
	if (fd < 0)
		return -1;
	close(fd);
	kscen_diag_set_sink(kscen_diag_capture, &f->log);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kscen_diag_set_sink(NULL, NULL);
	unlink(f->path);
	free(f);
	return 0;
}

/* Load @text as a scenario; the loader's return code. */
static int load(struct fixture *f, const char *text)
{
	struct kscen_scenario *s = NULL;
	FILE *fp = fopen(f->path, "w");
	int ret;

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	ret = kscen_scenario_load(f->path, &s);
	kscen_scenario_free(s);
	return ret;
}

/* The captured messages with the temporary path cut off each line. */
static const char *said(struct fixture *f)
{
	static char out[sizeof(f->log.text)];
	const char *p = f->log.text;
	size_t plen = strlen(f->path), n = 0;

	while (*p) {
		if (!strncmp(p, f->path, plen))
			p += plen;
		while (*p && *p != '\n' && n < sizeof(out) - 2)
			out[n++] = *p++;
		if (*p == '\n')
			out[n++] = *p++;
	}
	out[n] = '\0';
	return out;
}

static void test_format(void **state)
{
	struct kscen_diag d = { .file = "x.yaml", .mark = { 3, 9 }, .msg = "bad" };
	char buf[128];

	(void)state;
	kscen_diag_format(&d, buf, sizeof(buf));
	assert_string_equal(buf, "x.yaml:3:9: bad");
	d.severity = KSCEN_DIAG_WARNING;
	kscen_diag_format(&d, buf, sizeof(buf));
	assert_string_equal(buf, "x.yaml:3:9: warning: bad");
	d.mark.line = 0;
	kscen_diag_format(&d, buf, sizeof(buf));
	assert_string_equal(buf, "x.yaml: warning: bad");
	d.file = NULL;
	d.severity = KSCEN_DIAG_ERROR;
	kscen_diag_format(&d, buf, sizeof(buf));
	assert_string_equal(buf, "kscen: bad");
	d.cmd = "plot";
	kscen_diag_format(&d, buf, sizeof(buf));
	assert_string_equal(buf, "kscen plot: bad");
	d.cmd = "";
	kscen_diag_format(&d, buf, sizeof(buf));
	assert_string_equal(buf, "bad");
}

/*
 * Without a file: "kscen: ", "kscen CMD: " or nothing before the message,
 * one line each; INFO as it is, its newlines and all, however long.
 */
static void test_messages_of_no_file(void **state)
{
	struct fixture *f = *state;
	char *big = calloc(3001, 1);

	kscen_error(NULL, "out of %s", "memory");
	kscen_warning("compare --fleet", "no host\nsecond line dropped");
	kscen_diag_info("\rkscen: round 1/3\033[K");
	kscen_diag_info("\r\033[K");
	kscen_note("", "as it is");
	assert_int_equal(f->log.nr, 5);
	assert_string_equal(f->log.text, "kscen: out of memory\nkscen compare --fleet: "
			    "no host\n\rkscen: round 1/3\033[K\r\033[Kas it is\n");
	memset(big, 'x', 3000);
	f->log.len = 0;
	f->log.text[0] = '\0';
	kscen_diag_info("%s|", big);
	assert_int_equal(strlen(f->log.text), 1535);	/* the capture's line, not the message */
	/* the printer: the whole of it (a qemu command line, a tool's output) */
	{
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);

		kscen_diag_set_sink(kscen_diag_print, mem);
		kscen_diag_info("%s|", big);
		kscen_error("plot", "%s", big);
		fclose(mem);
		assert_int_equal(len, 3001 + 12 + 3000 + 1);
		assert_true(!strncmp(text + 3001, "kscen plot: xxx", 15));
		free(text);
		kscen_diag_set_sink(kscen_diag_capture, &f->log);
	}
	free(big);
}

static void test_errors_counted(void **state)
{
	struct fixture *f = *state;
	unsigned before = kscen_diag_errors();

	kscen_diag(KSCEN_DIAG_NOTE, "a", (struct kscen_mark){ 1, 1 }, "note");
	kscen_file_error("a", ((struct kscen_mark){ 1, 2 }), "e%d", 1);
	assert_int_equal(kscen_diag_errors(), before + 1);
	assert_int_equal(f->log.nr, 2);
	assert_string_equal(f->log.text, "a:1:1: note: note\na:1:2: e1\n");
}

static void test_good_scenario_is_silent(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "scenario: t\nrepeat: 3\n"
			      "jobs: [{name: a, workload: exec, params: {command: \"true\"}}]\n"), 0);
	assert_int_equal(f->log.nr, 0);
}

/* The shape pass (libcyaml): keys from the schema, positions from the tree. */
static void test_shape_unknown_key(void **state)
{
	struct fixture *f = *state;

	assert_int_not_equal(load(f, "scenario: t\nwarmpu: 1\njobs: [{name: a, workload: exec}]\n"), 0);
	assert_string_equal(said(f), ":2:1: scenario: unknown key 'warmpu'; did you mean 'warmup'?\n");
}

static void test_shape_job_key(void **state)
{
	struct fixture *f = *state;

	assert_int_not_equal(load(f, "scenario: t\njobs:\n  - name: a\n    workload: exec\n"
				  "    parmas: {}\n"), 0);
	assert_string_equal(said(f), ":5:5: job: unknown key 'parmas'; did you mean 'params'?\n");
}

static void test_shape_list_for_scalar(void **state)
{
	struct fixture *f = *state;

	assert_int_not_equal(load(f, "scenario: t\nwarmup: [1, 2]\n"
				  "jobs: [{name: a, workload: exec}]\n"), 0);
	assert_string_equal(said(f), ":2:9: warmup: must be a single value, not a list\n");
}

static void test_shape_duplicate_and_missing(void **state)
{
	struct fixture *f = *state;

	assert_int_not_equal(load(f, "scenario: t\njobs: [{name: a, workload: exec}]\nscenario: u\n"), 0);
	assert_string_equal(said(f), ":3:1: scenario: duplicate key 'scenario'\n");
	f->log.len = 0;
	f->log.text[0] = '\0';
	assert_int_not_equal(load(f, "scenario: t\njobs:\n  - name: a\n"), 0);
	assert_string_equal(said(f), ":3:5: job a: needs a workload (see kscen list)\n");
}

/* libcyaml would read "4x" as 4: values are text, parsed strictly. */
static void test_values_strict(void **state)
{
	struct fixture *f = *state;

	assert_int_not_equal(load(f, "scenario: t\nwarmup: 4x\n"
				  "jobs: [{name: a, workload: exec, params: {command: \"true\"}}]\n"), 0);
	assert_string_equal(said(f), ":2:9: warmup: '4x' is not an integer\n");
}

/* Value problems are all reported, up to a cap, then one note. */
static void test_many_errors_capped(void **state)
{
	struct fixture *f = *state;
	char text[4096] = "scenario: t\njobs:\n";

	for (int i = 0; i < 25; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "  - {name: j%d, workload: nope}\n", i);
	assert_int_not_equal(load(f, text), 0);
	assert_int_equal(f->log.nr, 21);
	assert_non_null(strstr(said(f), ": note: more errors not shown\n"));
}

int kscen_diag_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_good_scenario_is_silent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_messages_of_no_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shape_unknown_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shape_job_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shape_list_for_scalar, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shape_duplicate_and_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_values_strict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_errors_capped, setup, teardown),
	};

	return cmocka_run_group_tests_name("diag", tests, NULL, NULL);
}
