// SPDX-License-Identifier: GPL-2.0
/*
 * test_param.c - strict parameter values, and every registered workload's
 * parameter table (so a new module is checked without new tests).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <regex.h>

#include "scenario/scenario.h"
#include "lib/util.h"
#include "tests.h"

static const struct kscen_param p_int = {
	.name = "n", .type = KSCEN_P_INT, .min = 0, .max = 1000,
};
static const struct kscen_param p_sint = {
	.name = "n", .type = KSCEN_P_INT, .min = LLONG_MIN, .max = LLONG_MAX,
};
static const struct kscen_param p_size = {
	.name = "sz", .type = KSCEN_P_SIZE, .min = 0, .max = LLONG_MAX,
};
static const struct kscen_param p_time = {
	.name = "t", .type = KSCEN_P_TIME, .min = 0, .max = LLONG_MAX,
};
static const struct kscen_param p_bool = { .name = "b", .type = KSCEN_P_BOOL };
static const struct kscen_param p_enum = {
	.name = "e", .type = KSCEN_P_ENUM, .choices = "none|empty|trace_printk",
};

static const struct {
	const struct kscen_param *p;
	const char *text;
	int ok;
	long long want;
} cases[] = {
	{ &p_int, "0", 1, 0 },
	{ &p_int, "56", 1, 56 },
	{ &p_int, "1000", 1, 1000 },
	{ &p_int, "1001", 0, 0 },		/* above max */
	{ &p_int, "-1", 0, 0 },			/* below min */
	{ &p_int, "4x", 0, 0 },			/* libcyaml would say 4 */
	{ &p_int, "5x", 0, 0 },
	{ &p_int, "2.5", 0, 0 },		/* not an integer */
	{ &p_int, "", 0, 0 },
	{ &p_int, "+3", 0, 0 },
	{ &p_int, " 3", 0, 0 },
	{ &p_int, "0x10", 0, 0 },
	{ &p_int, "4k", 0, 0 },			/* suffixes only on sizes */
	{ &p_sint, "9223372036854775807", 1, LLONG_MAX },
	{ &p_sint, "9223372036854775808", 0, 0 },	/* overflow */
	{ &p_sint, "-42", 1, -42 },
	{ &p_size, "4096", 1, 4096 },
	{ &p_size, "4k", 1, 4096 },
	{ &p_size, "4K", 1, 4096 },
	{ &p_size, "1M", 1, 1 << 20 },
	{ &p_size, "2G", 1, 2LL << 30 },
	{ &p_size, "1.5k", 1, 1536 },
	{ &p_size, "1.3", 0, 0 },		/* not a whole byte */
	{ &p_size, "4kk", 0, 0 },
	{ &p_size, "4 k", 0, 0 },
	{ &p_size, "-1k", 0, 0 },
	{ &p_size, "9000000000G", 0, 0 },	/* overflow */
	{ &p_time, "60s", 1, 60000000000LL },
	{ &p_time, "5ms", 1, 5000000 },
	{ &p_time, "250us", 1, 250000 },
	{ &p_time, "7ns", 1, 7 },
	{ &p_time, "1.5s", 1, 1500000000 },
	{ &p_time, "60", 0, 0 },		/* a time needs its unit */
	{ &p_time, "5m", 0, 0 },
	{ &p_time, "1.5ns", 0, 0 },
	{ &p_bool, "true", 1, 1 },
	{ &p_bool, "false", 1, 0 },
	{ &p_bool, "yes", 0, 0 },
	{ &p_bool, "1", 0, 0 },
	{ &p_enum, "none", 1, 0 },
	{ &p_enum, "trace_printk", 1, 2 },
	{ &p_enum, "trace", 0, 0 },
	{ &p_enum, "empty|none", 0, 0 },
	{ &p_enum, "", 0, 0 },
};

void test_value_parse_is_strict(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kscen_value v;
		char err[256] = "";
		int ret = kscen_value_parse(cases[i].p, cases[i].text, &v, err, sizeof(err));

		if ((ret == 0) != cases[i].ok || (ret == 0 && v.i != cases[i].want)) {
			fprintf(stderr, "    case '%s' (%s): ret %d value %lld err '%s'\n",
				cases[i].text, kscen_ptype_name(cases[i].p->type),
				ret, ret ? 0 : v.i, err);
			assert_true(!"value parsed as expected");
		}
		if (!ret)
			kscen_value_fini(&v);
		else
			assert_true(err[0] != '\0');	/* every refusal says why */
	}
}

void test_value_error_names_param_and_range(void **state)
{
	struct kscen_value v;
	char err[256];

	assert_true(kscen_value_parse(&p_int, "1001", &v, err, sizeof(err)) < 0);
	assert_true(strstr(err, "n:") == err);
	assert_true(strstr(err, "0..1000") != NULL);
}

/* One walk over every registered workload's tables. */
void test_every_workload_table_is_sane(void **state)
{
	assert_true(kscen_nr_workloads >= 3);
	for (unsigned w = 0; w < kscen_nr_workloads; w++) {
		const struct kscen_workload *wl = kscen_workloads[w];
		void *params;

		assert_true(wl->name && *wl->name && wl->summary && *wl->summary);
		assert_true(kscen_workload_find(wl->name) == wl);
		assert_true(wl->sample != NULL);
		assert_true(wl->nr_metrics >= 1 && wl->nr_metrics <= KSCEN_MAX_METRICS);
		for (unsigned m = 0; m < wl->nr_metrics; m++)
			assert_true(wl->metrics[m].name && wl->metrics[m].unit);
		for (unsigned k = 0; k < w; k++)
			assert_true(strcmp(kscen_workloads[k]->name, wl->name) != 0);
		for (unsigned i = 0; i < wl->nr_params; i++) {
			const struct kscen_param *p = &wl->params[i];
			struct kscen_value v;
			char err[256];

			assert_true(p->name && *p->name && p->help && *p->help);
			assert_true(p->offset < wl->params_size);
			assert_true(kscen_param_find(wl, p->name) == p);
			if (p->type == KSCEN_P_INT || p->type == KSCEN_P_SIZE ||
			    p->type == KSCEN_P_TIME)
				assert_true(p->min <= p->max);
			if (p->type == KSCEN_P_ENUM)
				assert_true(p->choices && *p->choices);
			if (p->def) {
				int ret = kscen_value_parse(p, p->def, &v, err, sizeof(err));

				if (ret)
					fprintf(stderr, "    %s: default: %s\n", wl->name, err);
				assert_true(ret == 0);
				if (!ret)
					kscen_value_fini(&v);
			}
		}
		params = kscen_params_new(wl);
		assert_true(params != NULL);
		kscen_params_free(wl, params);
	}
}

/* A metric regex: one group, and no back-reference outside a bracket. */
void test_metric_regex_refuses_backrefs(void **state)
{
	static const char *const ok[] = {
		"([0-9]+)", "([[:digit:]\\1]+)", "([]\\2]+)", "[^]\\1](x)",
		"([[.-.]\\3]+) us", "a\\.(b)",
	};
	static const char *const bad[] = {
		"(a)\\1", "x(a*)*\\1x", "[a](b)\\2", "[[:alpha:]](b)\\1",
	};
	char err[160];
	regex_t re;

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(ok); i++) {
		assert_int_equal(kscen_metric_regex(&re, ok[i], "regex", err, sizeof(err)), 0);
		regfree(&re);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(kscen_metric_regex(&re, bad[i], "regex", err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "regex: back-references"));
	}
	/*
	 * Each '+' doubles what it repeats (glibc makes a+ aa*): nine on one
	 * atom are 512, ten are 1,024, refused; a hundred refused at once,
	 * not let through by a count wrapped past 2^64 (a fuzzed scenario's
	 * regex took 24 GB and 154 s to compile, 2026-12-06).
	 */
	for (unsigned k = 1; k <= 100; k++) {
		char pat[128] = "(a";
		int ret;

		memset(pat + 2, '+', k);
		strcpy(pat + 2 + k, ")");
		ret = kscen_metric_regex(&re, pat, "regex", err, sizeof(err));
		if (k <= 9) {
			assert_int_equal(ret, 0);
			regfree(&re);
		} else {
			assert_int_equal(ret, -EINVAL);
			assert_non_null(strstr(err, "regex: more than 1000 characters"));
		}
	}
	/* glibc reads "{,n}" as "{0,n}": counted as such (fuzzed, 2026-12-06) */
	assert_int_equal(kscen_metric_regex(&re, "(a{,30000})", "regex", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "regex: the repetition count 30000 is above 255"));
	assert_int_equal(kscen_metric_regex(&re, "(a{,255})", "regex", err, sizeof(err)), 0);
	regfree(&re);
	/* two groups: the older refusal still holds */
	assert_int_equal(kscen_metric_regex(&re, "(a)(b)", "regex", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "exactly one capture group"));
}
