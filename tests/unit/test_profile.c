// SPDX-License-Identifier: GPL-2.0
/*
 * test_profile.c - the profiler's logic away from the kernel: folding and
 * the self/children arithmetic, the differential table's order, file names
 * of folded stacks, the result file round trip of a profile, and the
 * symbol resolvers on known input (a kallsyms file written here, and this
 * very binary's ELF symbol table for one of its own functions).
 */
#define _GNU_SOURCE	/* open_memstream, mkdtemp */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "lib/util.h"
#include "store/profile.h"
#include "sample/profile_take.h"
#include "scenario/scenario.h"
#include "report/profile_report.h"
#include "report/report.h"
#include "store/history.h"
#include "lib/symbols.h"
#include "tests.h"

static void add(struct kscen_profile *p, const char *stack, unsigned long long c)
{
	p->folded = kscen_xrealloc(p->folded, (p->nr_folded + 1) * sizeof(*p->folded));
	p->folded[p->nr_folded].stack = kscen_xstrdup(stack);
	p->folded[p->nr_folded++].count = c;
}

static const struct kscen_profile_sym *find(const struct kscen_profile *p,
					    const char *name)
{
	for (unsigned i = 0; i < p->nr_sym; i++)
		if (!strcmp(p->sym[i].name, name))
			return &p->sym[i];
	return NULL;
}

static struct kscen_profile *sample_profile(void)
{
	struct kscen_profile *p = kscen_xcalloc(1, sizeof(*p));

	p->source = kscen_xstrdup("bpf");
	p->event = kscen_xstrdup("cpu-clock");
	p->scope = kscen_xstrdup("job");
	p->stacks = kscen_xstrdup("both");
	p->frequency = 999;
	p->top = 3;
	p->value = 1.5;
	/* 100 ticks: main -> work -> syscall -> kernel, and a recursive f. */
	add(p, "prog;main;work;entry_SYSCALL_64_[k];__x64_sys_getppid_[k]", 50);
	add(p, "prog;main;work", 20);
	add(p, "other;main;work;entry_SYSCALL_64_[k];__x64_sys_getppid_[k]", 10);
	add(p, "prog;main;f;f;f", 20);
	kscen_profile_summarize(p);
	return p;
}

void test_profile_self_children_and_folding(void **state)
{
	struct kscen_profile *p = sample_profile();
	const struct kscen_profile_sym *s;

	/* Two processes, one path: merged only when the command matches too. */
	assert_true(p->nr_folded == 4);
	assert_true(p->samples == 100);
	assert_true(p->children);
	/* By self time; then main and the entry, with children time only. */
	assert_true(p->nr_sym == 5);
	s = find(p, "main");
	assert_true(s && s == &p->sym[3] && s->self == 0 && fabs(s->children - 100) < 1e-9);
	s = find(p, "entry_SYSCALL_64");
	assert_true(s && s == &p->sym[4] && s->kernel && fabs(s->children - 60) < 1e-9);
	assert_true(!strcmp(p->sym[0].name, "__x64_sys_getppid") && p->sym[0].kernel);
	assert_true(fabs(p->sym[0].self - 60) < 1e-9 && fabs(p->sym[0].children - 60) < 1e-9);
	s = find(p, "work");
	assert_true(s && !s->kernel && fabs(s->self - 20) < 1e-9 && fabs(s->children - 80) < 1e-9);
	/* Recursion counts once per stack in children. */
	s = find(p, "f");
	assert_true(s && fabs(s->self - 20) < 1e-9 && fabs(s->children - 20) < 1e-9);
	kscen_profile_free(p);

	/* One-frame stacks: children would only repeat self. */
	p = kscen_xcalloc(1, sizeof(*p));
	add(p, "a;x", 3);
	add(p, "a;y", 1);
	add(p, "a;x", 1);
	kscen_profile_summarize(p);
	assert_true(p->nr_folded == 2 && p->folded[0].count == 4);
	assert_true(!p->children && isnan(p->sym[0].children));
	assert_true(fabs(p->sym[0].self - 80) < 1e-9);
	kscen_profile_free(p);
}

void test_profile_diff_orders_by_delta(void **state)
{
	struct kscen_profile *a = sample_profile(), *b = kscen_xcalloc(1, sizeof(*b));
	struct kscen_profile_diff rows[8];
	unsigned n;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	b->top = 3;
	add(b, "prog;main;work;entry_SYSCALL_64_[k];__x64_sys_getppid_[k]", 10);
	add(b, "prog;main;work", 70);
	add(b, "prog;main;g", 20);
	kscen_profile_summarize(b);
	n = kscen_profile_diff_rows(a, b, rows, 8);
	/* getppid 60 -> 10, work 20 -> 70, g new 20, f gone 20. */
	assert_true(n == 4);
	assert_true(!strcmp(rows[0].name, "__x64_sys_getppid") || !strcmp(rows[0].name, "work"));
	assert_true(fabs(fabs(rows[0].new_ - rows[0].old) - 50) < 1e-9);
	assert_true(!strcmp(rows[2].name, "f") && isnan(rows[2].new_) &&
		fabs(rows[2].new_below - 10) < 1e-9);
	assert_true(!strcmp(rows[3].name, "g") && isnan(rows[3].old));

	f = open_memstream(&text, &len);
	kscen_profile_diff(f, a, b, "baseline", "j/x=1", false);
	fclose(f);
	assert_true(strstr(text, "# Profile against baseline (j/x=1)"));
	assert_true(strstr(text, "     60.00%     10.00%    -50.00%  [k] __x64_sys_getppid\n"));
	assert_true(strstr(text, "     20.00%    <10.00%    -20.00%  [.] f\n"));
	free(text);
	kscen_profile_free(a);
	kscen_profile_free(b);
}

void test_profile_folded_names_are_safe(void **state)
{
	char *n = kscen_profile_folded_name("thread/breakpoints=4,parallelism=2");

	assert_true(!strcmp(n, "thread%2Fbreakpoints=4,parallelism=2.folded"));
	free(n);
	n = kscen_profile_folded_name("../a b/%");
	assert_true(!strcmp(n, "%2E.%2Fa%20b%2F%25.folded"));
	assert_true(!strchr(n, '/'));
	free(n);
}

static int rm_rf(const char *dir)
{
	char *cmd = kscen_xasprintf("rm -rf '%s'", dir);
	int ret = system(cmd);

	free(cmd);
	return ret;
}

void test_profile_result_roundtrip(void **state)
{
	char dir[] = "/tmp/kscen-test-profile.XXXXXX";
	struct kscen_run *run = kscen_xcalloc(1, sizeof(*run)), *back = NULL;
	struct kscen_job_result *j;
	struct kscen_folded *f = NULL;
	char *pdir, *path;
	unsigned nr = 0;

	assert_true(mkdtemp(dir));
	run->version = kscen_xstrdup("1.0");
	run->scenario = kscen_xstrdup("s");
	run->started = kscen_xstrdup("2026-12-02T10:15:03Z");
	run->finished = kscen_xstrdup("2026-12-02T10:15:04Z");
	run->system.hostname = kscen_xstrdup("h");
	run->repeat = 1;
	run->nr_jobs = 2;
	run->jobs = kscen_xcalloc(2, sizeof(*run->jobs));
	for (unsigned i = 0; i < 2; i++) {
		j = &run->jobs[i];
		j->id = kscen_xstrdup(i ? "j/x=2" : "j/x=1");
		j->converged = -1;
		j->status = KSCEN_OK;
	}
	run->jobs[0].profile = sample_profile();
	j = &run->jobs[1];
	j->profile = kscen_xcalloc(1, sizeof(*j->profile));
	j->profile->source = kscen_xstrdup("bpf");
	j->profile->reason = kscen_xstrdup("profile skipped: needs root");

	assert_true(kscen_result_save(run, dir) == 0);
	assert_true(kscen_profile_save_folded(run) == 0);
	assert_true(run->path && kscen_result_load(run->path, &back) == 0);
	if (back) {
		const struct kscen_profile *p = back->jobs[0].profile, *q = run->jobs[0].profile;

		assert_true(p && !p->reason && p->samples == 100 && p->frequency == 999 &&
			p->top == 3 && p->children && p->value == 1.5 &&
			!strcmp(p->event, "cpu-clock") && p->nr_sym == q->nr_sym);
		for (unsigned i = 0; p && i < p->nr_sym && i < q->nr_sym; i++)
			assert_true(!strcmp(p->sym[i].name, q->sym[i].name) &&
				p->sym[i].kernel == q->sym[i].kernel &&
				fabs(p->sym[i].self - q->sym[i].self) < 0.006 &&
				fabs(p->sym[i].children - q->sym[i].children) < 0.006);
		p = back->jobs[1].profile;
		assert_true(p && p->reason && strstr(p->reason, "needs root") && !p->nr_sym);
	}
	pdir = kscen_profile_dir(run);
	path = kscen_xasprintf("%s/j%%2Fx=1.folded", pdir);
	assert_true(kscen_folded_load(path, &f, &nr) == 0);
	assert_true(nr == 4);
	for (unsigned i = 0; i < nr && nr == 4; i++)
		assert_true(!strcmp(f[i].stack, run->jobs[0].profile->folded[i].stack) &&
			f[i].count == run->jobs[0].profile->folded[i].count);
	kscen_folded_free(f, nr);
	free(path);
	free(pdir);
	kscen_run_free(run);
	kscen_run_free(back);
	rm_rf(dir);
}

/* A function of this binary the ELF resolver must name. */
__attribute__((noinline, used)) int kscen_test_profile_target(int x)
{
	asm volatile("" ::: "memory");
	return x * 3 + 1;
}

void test_symbols_kallsyms_and_elf(void **state)
{
	char path[] = "/tmp/kscen-test-kallsyms.XXXXXX";
	struct kscen_ksyms *k = NULL;
	struct kscen_usyms *u;
	const char *dso = NULL, *name, *obj, *id;
	char comm[32];
	bool hidden = true, found = false;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81001000 T entry_SYSCALL_64\n"
	      "ffffffff81001100 t do_syscall_64\n"
	      "ffffffff81001200 t __do_sys_getppid\n"
	      "ffffffff81001200 T __ia32_sys_getppid\n"
	      "ffffffff81001200 T __x64_sys_getppid\n"
	      "ffffffff81001300 t after\n"
	      "ffffffff81002000 D some_data\n"
	      "ffffffff81003000 T _etext\n", f);
	fclose(f);
	assert_true(kscen_ksyms_load(path, &k, &hidden) == 0 && !hidden);
	assert_true(k && !strcmp(kscen_ksyms_find(k, 0xffffffff81001050ull), "entry_SYSCALL_64"));
	assert_true(k && !strcmp(kscen_ksyms_find(k, 0xffffffff81001150ull), "do_syscall_64"));
	/* Aliases: the global one listed last, as perf names it. */
	assert_true(k && !strcmp(kscen_ksyms_find(k, 0xffffffff81001210ull), "__x64_sys_getppid"));
	assert_true(k && !strcmp(kscen_ksyms_find(k, 0xffffffff81002100ull), "after"));
	assert_true(k && !kscen_ksyms_find(k, 0xffffffff81004000ull));
	kscen_ksyms_free(k);
	/* kptr_restrict: every address reads 0. */
	f = fopen(path, "w");
	fputs("0000000000000000 T _stext\n0000000000000000 T entry_SYSCALL_64\n", f);
	fclose(f);
	assert_true(kscen_ksyms_load(path, &k, &hidden) == 0 && hidden);
	assert_true(k && !kscen_ksyms_find(k, 0xffffffff81001050ull));
	kscen_ksyms_free(k);
	unlink(path);

	/* The command as the kernel has it: the maps are filed under it. */
	f = fopen("/proc/self/comm", "r");
	if (!f || !fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	if (f)
		fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	u = kscen_usyms_new();
	assert_true(kscen_usyms_add_pid(u, getpid(), "not-this-one") == -ESRCH);
	assert_true(kscen_usyms_add_pid(u, getpid(), NULL) == 0);
	name = kscen_usyms_find(u, getpid(), comm,
				(uint64_t)(uintptr_t)kscen_test_profile_target + 2, &dso);
	assert_true(name && !strcmp(name, "kscen_test_profile_target"));
	assert_true(dso && !strcmp(dso, "unit-tests"));
	name = kscen_usyms_find(u, getpid(), comm, (uint64_t)(uintptr_t)getpid, &dso);
	assert_true(dso && strstr(dso, "libc"));
	for (unsigned i = 0; kscen_usyms_object(u, i, &obj, &id); i++)
		if (strstr(obj, "unit-tests"))
			found = strlen(id) == 40;	/* gcc links a GNU build id */
	assert_true(found);
	assert_true(!kscen_usyms_find(u, getpid(), comm, 16, &dso) && !dso);
	kscen_usyms_free(u);
	assert_true(kscen_test_profile_target(1) == 4);
}

void test_profile_spec_from_scenario(void **state)
{
	char path[] = "/tmp/kscen-test-profile-spec.XXXXXX";
	struct kscen_scenario *s = NULL;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs("scenario: t\n"
	      "profile: {frequency: 99, stacks: kernel, top: 5}\n"
	      "jobs:\n"
	      "  - {name: a, workload: exec, params: {command: \"true\"}}\n"
	      "  - {name: b, workload: exec, params: {command: \"true\"},\n"
	      "     profile: {scope: system, profiler: perf}}\n"
	      "  - {name: c, workload: exec, params: {command: \"true\"}, profile: false}\n", f);
	fclose(f);
	assert_true(kscen_scenario_load(path, &s) == 0);
	if (s) {
		const struct kscen_profile_spec *p = s->profile, *b = s->jobs[1].profile;

		assert_true(p && p->on && p->frequency == 99 && p->stacks == KSCEN_STACKS_KERNEL &&
			p->top == 5 && !p->system && !p->perf);
		assert_true(!s->jobs[0].profile);
		/* A job's mapping starts from the scenario's. */
		assert_true(b && b->on && b->frequency == 99 && b->stacks == KSCEN_STACKS_KERNEL &&
			b->top == 5 && b->system && b->perf);
		assert_true(s->jobs[2].profile && !s->jobs[2].profile->on);
	}
	kscen_scenario_free(s);
	unlink(path);
}

/*
 * The text report prints a job's profile under the job, and only there:
 * its hottest symbols, after its deltas, before the next job.
 */
void test_report_text_shows_each_job_profile(void **state)
{
	struct kscen_run *r = kscen_test_sample_run(1.1);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	r->jobs[1].profile = sample_profile();
	kscen_report(f, r, NULL, KSCEN_FMT_TEXT);
	fclose(f);
	assert_non_null(strstr(buf, " pairs)\n# Profile: kscen bpf, cpu-clock at 999 Hz, "
			       "scope job, both stacks, 100 samples; lost: 0 map full, "
			       "0 kernel and 0 user stacks\n"
			       "#     Self  Children  Symbol\n"
			       "    60.00%    60.00%  [k] __x64_sys_getppid\n"
			       "    20.00%    80.00%  [.] work\n"
			       "    20.00%    20.00%  [.] f\n"
			       "\n# Running m/a/x=2\n"));
	assert_null(strstr(strstr(buf, "# Profile:") + 1, "# Profile:"));	/* once */
	free(buf);
	kscen_run_free(r);
}

/*
 * A text compare of runs that both profiled a job: the job's profile of
 * the new run against the old's, after the tables (the profile of job
 * a/x=1, its getppid 60% of the old run's samples, 10% of the new's).
 */
void test_compare_text_diffs_each_job_profile(void **state)
{
	struct kscen_run *runs[2] = {
		kscen_test_sample_run(1.1), kscen_test_sample_run(1.2),
	};
	struct kscen_profile *b = kscen_xcalloc(1, sizeof(*b));
	struct kscen_refs refs[2] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	b->top = 3;
	add(b, "prog;main;work;entry_SYSCALL_64_[k];__x64_sys_getppid_[k]", 10);
	add(b, "prog;main;work", 90);
	kscen_profile_summarize(b);
	runs[0]->jobs[1].profile = sample_profile();
	runs[1]->jobs[1].profile = b;
	runs[0]->started[3] = '5';	/* 2025: the old run's date, said */
	kscen_refs_single(&refs[1], runs[1], runs[0]);
	kscen_compare_print(f, (const struct kscen_run *const *)runs, refs, 2,
			    KSCEN_FMT_TEXT);
	fclose(f);
	assert_non_null(strstr(buf, "\n\n# a/x=1\n# Profile against old run "
			       "(2025-12-03T08:00:00Z)"));
	assert_non_null(strstr(buf, "     60.00%     10.00%    -50.00%  [k] __x64_sys_getppid\n"));
	free(buf);
	refs[1].own = NULL;	/* the runs are this test's */
	kscen_refs_free(&refs[1]);
	kscen_run_free(runs[0]);
	kscen_run_free(runs[1]);
}
