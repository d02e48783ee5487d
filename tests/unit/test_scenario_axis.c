// SPDX-License-Identifier: GPL-2.0
/*
 * test_scenario_axis.c - long axes taken from the prescan's events
 * (runner/scenario/scenario_axis.c) against the same texts read through
 * libyaml's tree (kscen_stream_axis_min out of reach): the same messages
 * at the same lines and columns, the same jobs with the same baselines and
 * previous jobs; and which lists are taken that way at all.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand/jobs.h"
#include "lib/util.h"
#include "scenario/scenario_load.h"
#include "tests.h"

#define N 600	/* values: more than KSCEN_STREAM_AXIS_MIN */

/* "@pre[@from, @from + 1, ...]" of @n values, @per a line (0: one line). */
static char *range(unsigned from, unsigned n, unsigned per, const char *indent)
{
	size_t cap = 16 * (size_t)n + 64, len = 0;
	char *s = kscen_xmalloc(cap);

	len += sprintf(s + len, "[");
	for (unsigned i = 0; i < n; i++) {
		len += sprintf(s + len, "%u%s", from + i, i + 1 < n ? ", " : "");
		if (per && (i + 1) % per == 0 && i + 1 < n)
			len += sprintf(s + len, "\n%s", indent);
	}
	sprintf(s + len, "]");
	return s;
}

/* The three ways a long list is read: lexed first, from pass 1's events, the tree. */
enum way { LEXED, EVENTS, TREE };

/*
 * Load @text the @way; what was said, and with no error, every job as
 * "id baseline previous" lines.
 */
static int load(const char *text, enum way way, struct kscen_diag_log *log,
		char **jobs_out)
{
	unsigned min = way == TREE ? UINT_MAX : KSCEN_STREAM_AXIS_MIN;
	struct kscen_scenario *s = NULL;
	struct kscen_jobs jobs;
	size_t cap = 64, len = 0;
	char *o = kscen_xmalloc(cap);
	int ret;

	*o = '\0';
	memset(log, 0, sizeof(*log));
	kscen_stream_axis_min = min;
	kscen_axis_prelex_on = way == LEXED;
	kscen_diag_set_sink(kscen_diag_capture, log);
	ret = kscen_scenario_load_text("axis.yaml", ".", text, strlen(text), &s);
	if (!ret)
		ret = kscen_expand(s, 1000000, &jobs);
	kscen_diag_set_sink(NULL, NULL);
	kscen_stream_axis_min = KSCEN_STREAM_AXIS_MIN;
	kscen_axis_prelex_on = true;
	if (!ret) {
		for (unsigned i = 0; i < jobs.nr; i++) {
			const struct kscen_job *j = &jobs.job[i];
			size_t need = strlen(j->id) + 32;

			if (len + need >= cap) {
				cap = 2 * (cap + need);
				o = kscen_xrealloc(o, cap);
			}
			len += sprintf(o + len, "%s %d %d\n", j->id, j->baseline, j->previous);
		}
		kscen_jobs_free(&jobs);
	}
	/* and what the text says besides its lists */
	if (!ret && s->description) {
		o = kscen_xrealloc(o, len + strlen(s->description) + 16);
		sprintf(o + len, "description: %s", s->description);
	}
	kscen_scenario_free(s);
	*jobs_out = o;
	return ret;
}

/* How many lists of @text the prescan takes; how many of those it lexed. */
static unsigned streamed(const char *text, unsigned *lexed)
{
	struct kscen_diag_log log = { 0 };
	struct kscen_streamed st;
	unsigned nr;
	int ret;

	*lexed = 0;
	kscen_diag_set_sink(kscen_diag_capture, &log);	/* pass 1 may refuse it */
	ret = kscen_scenario_prescan("axis.yaml", text, strlen(text), &st);
	kscen_diag_set_sink(NULL, NULL);
	if (ret)
		return 0;
	nr = st.nr;
	*lexed = st.lexed;
	kscen_streamed_fini(&st);
	return nr;
}

/*
 * @text read the three ways: @want_streamed lists taken (@want_lexed of
 * them lexed), the same return, the same messages (@want among them, if
 * given), the same jobs (@want_jobs of them without an error).
 */
static void alike_lexed(const char *text, unsigned want_streamed, unsigned want_lexed,
			const char *want, unsigned want_jobs)
{
	struct kscen_diag_log a, b, c;
	char *ja, *jb, *jc;
	int ra = load(text, LEXED, &a, &ja);
	int rb = load(text, TREE, &b, &jb);
	int rc = load(text, EVENTS, &c, &jc);
	unsigned nr = 0, lexed = 0;

	nr = streamed(text, &lexed);
	if (nr != want_streamed || (want_lexed != UINT_MAX && lexed != want_lexed))
		fail_msg("%u lists streamed, %u lexed, of:\n%.300s", nr, lexed, text);
	nr = 0;
	assert_int_equal(ra, rb);
	assert_int_equal(rc, rb);
	assert_string_equal(a.text, b.text);
	assert_string_equal(c.text, b.text);
	assert_string_equal(ja, jb);
	assert_string_equal(jc, jb);
	free(jc);
	if (want) {
		assert_int_not_equal(ra, 0);
		if (!strstr(a.text, want))
			fail_msg("wanted \"%s\" in:\n%s", want, a.text);
	} else {
		if (ra)
			fail_msg("wanted no error, got:\n%s", a.text);
		const char *d = strstr(ja, "description: ");

		for (const char *c = ja; *c && c != d; c++)
			nr += *c == '\n';
		assert_int_equal(nr, want_jobs);
	}
	free(ja);
	free(jb);
}

/* The same, whichever way pass 1 took the lists. */
static void alike(const char *text, unsigned want_streamed, const char *want,
		  unsigned want_jobs)
{
	alike_lexed(text, want_streamed, UINT_MAX, want, want_jobs);
}

/* The same for the text printf() makes of @fmt. */
static void alike_f(unsigned want_streamed, const char *want, unsigned want_jobs,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void alike_f(unsigned want_streamed, const char *want, unsigned want_jobs,
		   const char *fmt, ...)
{
	va_list ap;
	char *t;

	va_start(ap, fmt);
	assert_true(vasprintf(&t, fmt, ap) > 0);
	va_end(ap);
	alike(t, want_streamed, want, want_jobs);
	free(t);
}

static void alike_lexed_f(unsigned want_streamed, unsigned want_lexed, const char *want,
			  unsigned want_jobs, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void alike_lexed_f(unsigned want_streamed, unsigned want_lexed, const char *want,
			  unsigned want_jobs, const char *fmt, ...)
{
	va_list ap;
	char *t;

	va_start(ap, fmt);
	assert_true(vasprintf(&t, fmt, ap) > 0);
	va_end(ap);
	alike_lexed(t, want_streamed, want_lexed, want, want_jobs);
	free(t);
}

#define HEAD "scenario: axis\nrepeat: 1\njobs:\n  - name: j\n    workload: syscall.basic\n"

void test_scenario_axis_streams_as_the_tree_reads(void **state)
{
	char *r = range(1000, N, 0, ""), *ml = range(1000, N, 7, "        ");
	char *rev = kscen_xmalloc(16 * N + 64);
	size_t len = 0;

	(void)state;
	/* one line, in order; baseline and exclude on the streamed axis */
	alike_f(1, NULL, N - 1,
		HEAD "    params:\n      loops: %s\n"
		"    baseline: {loops: 1000}\n    exclude: [{loops: 1001}]\n", r);
	/* an exclude of a value not on it: the exclude's place, not the list's */
	alike_f(1, "axis.yaml:8:23: exclude: loops=7 is not one of the values of loops", 0,
		HEAD "    params:\n      loops: %s\n    exclude: [{loops: 7}]\n", r);
	/* out of order, one value twice: the later one said, where it is */
	len += sprintf(rev + len, "[");
	for (unsigned i = N; i-- > 0;)
		len += sprintf(rev + len, "%u, ", 1000 + i);
	sprintf(rev + len, "1300]");
	alike_f(1, "duplicate value '1300' on the axis", 0,
		HEAD "    params:\n      loops: %s\n", rev);
	/* in order but for one value given twice in a row */
	alike_f(1, "axis.yaml:7:20: job j: params: loops: duplicate value '999'", 0,
		HEAD "    params:\n      loops: [999, 999, %s\n", r + 1);
	/* a value refused, then one given twice out of order: where it is */
	alike_f(1, "axis.yaml:7:24: job j: params: loops: duplicate value '5'", 0,
		HEAD "    params:\n      loops: [x, 5, 3, 5, %s\n", r + 1);
	/* null, a word, a quoted number, a comment, on several lines */
	alike_f(1, "axis.yaml:7:15: loops: needs a value, not null", 0,
		HEAD "    params:\n      loops: [~, 3, \"4\", x, # c\n"
		"        null,\n        %s\n", ml + 1);
	/* many lines, comments between, an error on a line after the list */
	alike_f(1, "has no parameter 'nope'", 0,
		HEAD "    params:\n      # before\n      loops: %s\n"
		"      # after\n      nope: 1\n", ml);
	/* the ']' not last on its line: what follows keeps its column */
	alike_f(1, "has no parameter 'nope'", 0,
		HEAD "    params: {loops: %s, nope: 2}\n", r);
	alike_f(1, "bogus", 0,
		HEAD "    params: {loops: %s}\n    bogus: 1\n", r);
	/* two jobs, each a list, an error in the second: its line and column */
	alike_f(2, NULL, 2 * N,
		HEAD "    params:\n      loops: %s\n"
		"  - name: k\n    workload: syscall.basic\n"
		"    params:\n      loops: %s\n", r, ml);
	alike_f(2, "axis.yaml:11:15:", 0,
		HEAD "    params:\n      loops: %s\n"
		"  - name: k\n    workload: syscall.basic\n"
		"    params:\n      loops: [-5, %s\n", r, ml + 1);
	/* defaults: params, one list that every job inherits */
	alike_f(1, NULL, 2 * N,
		"scenario: axis\nrepeat: 1\ndefaults:\n  params:\n"
		"    loops: %s\njobs:\n  - name: j\n    workload: syscall.basic\n"
		"  - name: k\n    workload: syscall.basic\n", r);
	alike_f(1, "axis.yaml:5:13:", 0,
		"scenario: axis\nrepeat: 1\ndefaults:\n  params:\n"
		"    loops: [0, %s\njobs:\n  - name: j\n    workload: syscall.basic\n"
		"  - name: k\n    workload: syscall.basic\n", r + 1);
	/* a list of a parameter no workload has, of a workload that is none */
	alike_f(1, "has no parameter 'nope'", 0,
		HEAD "    params:\n      nope: %s\n", r);
	alike_f(1, "unknown workload 'no.such'", 0,
		"scenario: axis\njobs:\n  - name: j\n    workload: no.such\n"
		"    params:\n      loops: %s\n", r);
	free(rev);
	free(r);
	free(ml);
}

void test_scenario_axis_strings_and_what_stays_in_the_tree(void **state)
{
	char *cmds = kscen_xmalloc(24 * N + 64), *r = range(1000, N, 0, "");
	char *short_r = range(1000, KSCEN_STREAM_AXIS_MIN - 1, 0, "");
	size_t len = 0;

	(void)state;
	/* a string axis, one value twice, and one too long for an id */
	len += sprintf(cmds + len, "[");
	for (unsigned i = 0; i < N; i++)
		len += sprintf(cmds + len, "\"true %u\", ", i);
	len += sprintf(cmds + len, "true %0100d]", 7);
	alike_f(1, NULL, N + 1,
		"scenario: axis\nrepeat: 1\njobs:\n  - name: e\n    workload: exec\n"
		"    params:\n      command: %s\n", cmds);
	memcpy(strstr(cmds, "\"true 9\""), "\"true 8\"", 8);
	alike_f(1, "duplicate value 'true 8' on the axis", 0,
		"scenario: axis\nrepeat: 1\njobs:\n  - name: e\n    workload: exec\n"
		"    params:\n      command: %s\n", cmds);
	/* fewer than the least, a block list, a tag, a byte of UTF-8, a CR */
	alike_f(0, NULL, KSCEN_STREAM_AXIS_MIN - 1,
		HEAD "    params:\n      loops: %s\n", short_r);
	alike_f(0, NULL, N + 1,
		HEAD "    params:\n      loops: [!!int 1, %s\n", r + 1);
	alike_f(0, "axis.yaml:7:15:", 0,
		HEAD "    params:\n      loops: [\"\xc3\xa9\", %s\n", r + 1);
	alike_f(0, NULL, N + 1,
		HEAD "    params:\n      loops: [1,\r\n        %s\n", r + 1);
	len = 0;
	cmds[len++] = '\n';
	for (unsigned i = 0; i < N; i++)
		len += sprintf(cmds + len, "        - %u\n", 1000 + i);
	cmds[len] = '\0';
	alike_f(0, NULL, N,
		HEAD "    params:\n      loops:%s", cmds);
	/* UTF-8 and a byte order mark before the list: libyaml counts characters */
	alike_f(1, "axis.yaml:10:7:", 0,
		"\xef\xbb\xbf# \xc3\xa9t\xc3\xa9\nscenario: axis\n"
		"description: \"\xe2\x82\xac \xc3\xa9\"\nrepeat: 1\njobs:\n"
		"  - name: j\n    workload: syscall.basic\n"
		"    params:\n      loops: %s\n      nope: 1\n", r);
	/* a list elsewhere (include's values, metrics) stays in the tree */
	alike_f(0, "must be a single value", 0,
		HEAD "    params:\n      loops: [1, 2]\n"
		"    include: [{loops: %s}]\n", r);
	free(cmds);
	free(r);
	free(short_r);
}

/* The text passes 2 and 3 read: the items out, every other place kept. */
void test_scenario_axis_text_keeps_places(void **state)
{
	const char *text =
		"scenario: c\njobs:\n  - name: j\n    workload: syscall.basic\n"
		"    params:\n      loops: [1, 2, 3]  # c\n      x: [4,\n        5, 6]\n"
		"  - name: k\n    workload: syscall.basic\n"
		"    params: {a: [7, \"8\", 9], b: [1, 2]}\n";
	const char *want =
		"scenario: c\njobs:\n  - name: j\n    workload: syscall.basic\n"
		"    params:\n      loops: []  # c\n      x: [\n            ]\n"
		"  - name: k\n    workload: syscall.basic\n"
		"    params: {a: [         ], b: [1, 2]}\n";
	struct kscen_streamed st;

	(void)state;
	kscen_stream_axis_min = 3;
	assert_int_equal(kscen_scenario_prescan("c.yaml", text, strlen(text), &st), 0);
	kscen_stream_axis_min = KSCEN_STREAM_AXIS_MIN;
	assert_int_equal(st.nr, 3);
	assert_string_equal(st.text, want);
	assert_int_equal(st.len, strlen(want));
	/* each list's '[' where the tree will find it, its texts in order */
	assert_int_equal(st.axis[0].mark.line, 6);
	assert_int_equal(st.axis[0].mark.col, 14);
	assert_int_equal(st.axis[1].mark.line, 7);
	assert_int_equal(st.axis[1].mark.col, 10);
	assert_int_equal(st.axis[2].mark.line, 11);
	assert_int_equal(st.axis[2].mark.col, 17);
	assert_string_equal(st.axis[1].texts + st.axis[1].item[2].text, "6");
	assert_int_equal(st.axis[1].item[2].mark.line, 8);
	assert_int_equal(st.axis[1].item[2].mark.col, 12);
	assert_string_equal(st.axis[2].texts + st.axis[2].item[1].text, "8");
	assert_true(kscen_streamed_at(&st, (struct kscen_mark){ 7, 10 }) == &st.axis[1]);
	assert_null(kscen_streamed_at(&st, (struct kscen_mark){ 7, 11 }));
	kscen_streamed_fini(&st);
}

/*
 * Lists of plain words are lexed from the text before pass 1, which must
 * then find each where an axis is; any other '[' the lexer takes (in a
 * comment, a string, a list that is not an axis) sends pass 1 back to the
 * whole text. Either way the same messages at the same places and the
 * same jobs as the tree's.
 */
void test_scenario_axis_lexed_before_pass_1(void **state)
{
	char *r = range(1000, N, 0, ""), *ml = range(1000, N, 7, "        ");
	char *col = range(1000, N, 50, ""), *bad = kscen_xstrdup(ml), *trail, *p;

	(void)state;
	/* one line, many lines, in a flow mapping, in defaults */
	alike_lexed_f(1, 1, NULL, N, HEAD "    params:\n      loops: %s\n", r);
	alike_lexed_f(1, 1, NULL, N, HEAD "    params:\n      loops: %s\n", ml);
	alike_lexed_f(1, 1, "has no parameter 'nope'", 0,
		      HEAD "    params: {loops: %s, nope: 2}\n", r);
	alike_lexed_f(1, 1, NULL, 2 * N,
		      "scenario: axis\nrepeat: 1\ndefaults:\n  params:\n"
		      "    loops: %s\njobs:\n  - name: j\n    workload: syscall.basic\n"
		      "  - name: k\n    workload: syscall.basic\n", r);
	/* words it takes: signs, a null, a word, blanks before a ',' */
	alike_lexed_f(1, 1, "axis.yaml:7:15: loops: needs a value, not null", 0,
		      HEAD "    params:\n      loops: [null, %s\n", r + 1);
	alike_lexed_f(1, 1, "axis.yaml:7:24: job j: params: loops: duplicate value '5'", 0,
		      HEAD "    params:\n      loops: [x, 5, 3, 5, %s\n", r + 1);
	alike_lexed_f(1, 1, "axis.yaml:7:15:", 0,
		      HEAD "    params:\n      loops: [-5, +6 , -.5 ,%s\n", r + 1);
	/* a word refused on a later line of the list: its line and column */
	p = strstr(bad, "1300");
	memcpy(p, "zzzz", 4);
	alike_lexed_f(1, 1, "axis.yaml:", 0, HEAD "    params:\n      loops: %s\n", bad);
	/* a '[' the lexer takes that is no axis: pass 1 reads the whole text */
	alike_lexed_f(1, 0, NULL, N,
		      HEAD "    # loops: %s\n    params:\n      loops: %s\n", r, r);
	alike_lexed_f(1, 0, NULL, N,
		      "description: |\n  %s\n" HEAD "    params:\n      loops: %s\n", ml, r);
	alike_lexed_f(0, 0, NULL, 1,
		      "description: \"%s\"\n" HEAD "    params:\n      loops: 3\n", r);
	alike_lexed_f(0, 0, "must be a single value", 0,
		      HEAD "    params:\n      loops: [1, 2]\n    include: [{loops: %s}]\n", r);
	alike_lexed_f(0, 0, "bogus", 0, HEAD "    params:\n      loops: 1\n    bogus: %s\n", r);
	/* lists it leaves to pass 1: two words, a ',' last, a tab, a '-' alone */
	alike_lexed_f(1, 0, "axis.yaml:7:15:", 0,
		      HEAD "    params:\n      loops: [1 2, %s\n", r + 1);
	trail = kscen_xmalloc(strlen(r) + 2);
	sprintf(trail, "%.*s,]", (int)strlen(r) - 1, r);
	alike_lexed_f(1, 0, NULL, N, HEAD "    params:\n      loops: %s\n", trail);
	alike_lexed_f(1, 0, NULL, N, HEAD "    params:\n      loops: [1000,\t%s\n", r + 6);
	alike_lexed_f(1, 0, "axis.yaml:7:15: loops: '-' is not an integer", 0,
		      HEAD "    params:\n      loops: [-, %s\n", r + 1);
	/* a line of the list starting at its first column; "---" there */
	alike_lexed_f(1, 0, NULL, N, HEAD "    params:\n      loops: %s\n", col);
	alike_lexed_f(1, 0, "axis.yaml:8:1: loops: '---' is not an integer", 0,
		      HEAD "    params:\n      loops: [1,\n---, %s\n", r + 1);
	alike_lexed_f(0, 0, "axis.yaml:8:1:", 0,
		      HEAD "    params:\n      loops: [1,\n--- 2, %s\n", r + 1);
	/* two lists, one lexed, one with a quoted word; an error in the second */
	alike_lexed_f(2, 1, "axis.yaml:11:15:", 0,
		      HEAD "    params:\n      loops: %s\n"
		      "  - name: k\n    workload: syscall.basic\n"
		      "    params:\n      loops: [\"-5\", %s\n", r, ml + 1);
	free(trail);
	free(bad);
	free(col);
	free(r);
	free(ml);
}
