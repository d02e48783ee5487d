// SPDX-License-Identifier: GPL-2.0
/*
 * test_shard.c - shard assignment (every job in exactly one shard, linked
 * jobs together, balanced, the same every time), a shard's jobs kept by the
 * walk as the whole plan cut would keep them, the job-array environment,
 * and what kscen merge refuses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "scenario/scenario_load.h"
#include "store/store.h"
#include "lib/util.h"
#include "expand/shard.h"
#include "tests.h"

/* @nr jobs; a pseudo-random forest of baseline/previous links from @seed. */
static void make_jobs(struct kscen_jobs *jobs, unsigned nr, unsigned seed)
{
	jobs->job = kscen_xcalloc(nr + 1, sizeof(*jobs->job));
	jobs->nr = nr;
	for (unsigned i = 0; i < nr; i++) {
		struct kscen_job *j = &jobs->job[i];

		seed = seed * 1103515245u + 12345u;
		j->baseline = i && (seed >> 16) % 3 == 0 ? (int)((seed >> 8) % i) : -1;
		seed = seed * 1103515245u + 12345u;
		j->previous = i && (seed >> 16) % 4 == 0 ? (int)((seed >> 8) % i) : -1;
	}
}

/* Component labels by propagation, independent of shard.c's union-find. */
static void components(const struct kscen_jobs *jobs, unsigned *label)
{
	bool changed = true;

	for (unsigned i = 0; i < jobs->nr; i++)
		label[i] = i;
	while (changed) {
		changed = false;
		for (unsigned i = 0; i < jobs->nr; i++) {
			int links[2] = { jobs->job[i].baseline, jobs->job[i].previous };

			for (unsigned e = 0; e < 2; e++) {
				unsigned *a = &label[i], *b;
				unsigned lo;

				if (links[e] < 0)
					continue;
				b = &label[links[e]];
				lo = *a < *b ? *a : *b;
				if (*a != lo || *b != lo)
					changed = true;
				*a = *b = lo;
			}
		}
	}
}

void test_shard_assignment_is_deterministic_connected_balanced(void **state)
{
	for (unsigned seed = 1; seed < 40; seed++) {
		unsigned nr = 1 + seed * 7 % 60;
		struct kscen_jobs jobs;

		unsigned *label = kscen_xcalloc(nr, sizeof(*label));

		make_jobs(&jobs, nr, seed);
		components(&jobs, label);
		for (unsigned n = 1; n <= 9; n++) {
			unsigned *owner = kscen_xcalloc(nr, sizeof(*owner));
			unsigned *load = kscen_xcalloc(n, sizeof(*load));
			bool *sel = kscen_xcalloc(nr, sizeof(*sel));
			bool *again = kscen_xcalloc(nr, sizeof(*again));
			unsigned largest = 0, lo = ~0u, hi = 0;

			for (unsigned i = 0; i < nr; i++)
				owner[i] = ~0u;
			for (unsigned k = 1; k <= n; k++) {
				kscen_shard_select(&jobs, k, n, NULL, sel);
				kscen_shard_select(&jobs, k, n, NULL, again);
				assert_true(!memcmp(sel, again, nr * sizeof(*sel)));
				for (unsigned i = 0; i < nr; i++) {
					if (!sel[i])
						continue;
					assert_true(owner[i] == ~0u);	/* one shard only */
					owner[i] = k;
					load[k - 1]++;
				}
			}
			for (unsigned i = 0; i < nr; i++) {
				const struct kscen_job *j = &jobs.job[i];

				assert_true(owner[i] != ~0u);	/* in some shard */
				if (j->baseline >= 0)
					assert_true(owner[j->baseline] == owner[i]);
				if (j->previous >= 0)
					assert_true(owner[j->previous] == owner[i]);
			}
			/* Balance: shards differ by at most the largest component. */
			for (unsigned i = 0; i < nr; i++) {
				unsigned size = 0;

				for (unsigned x = 0; x < nr; x++)
					size += label[x] == label[i];
				if (size > largest)
					largest = size;
			}
			for (unsigned k = 0; k < n; k++) {
				lo = load[k] < lo ? load[k] : lo;
				hi = load[k] > hi ? load[k] : hi;
			}
			assert_true(hi - lo <= largest);
			free(owner);
			free(load);
			free(sel);
			free(again);
		}
		free(label);
		free(jobs.job);
	}
}

/*
 * The reference: the jobs of @in that @sel picks, their links renumbered
 * (-1 where the linked job is not picked), each with its place in the plan
 * (what a sharded run kept when it expanded the whole plan).
 */
static void subset(const struct kscen_jobs *in, const bool *sel, struct kscen_jobs *out)
{
	int *map = kscen_xcalloc(in->nr + 1, sizeof(*map));
	unsigned nr = 0;

	for (unsigned i = 0; i < in->nr; i++)
		map[i] = sel[i] ? (int)nr++ : -1;
	out->job = kscen_xcalloc(nr + 1, sizeof(*out->job));
	out->nr = nr;
	for (unsigned i = 0; i < in->nr; i++) {
		struct kscen_job *j = &out->job[map[i] < 0 ? 0 : map[i]];

		if (!sel[i])
			continue;
		*j = in->job[i];
		j->plan_pos = i + 1;
		j->baseline = j->baseline >= 0 ? map[j->baseline] : -1;
		j->previous = j->previous >= 0 ? map[j->previous] : -1;
	}
	free(map);
}

static const char *link_id(const struct kscen_jobs *jobs, int i)
{
	return i < 0 ? "(none)" : jobs->job[i].id;
}

/*
 * cmd_load_shard() walks the plan for its links, then keeps the shard's
 * jobs alone: the same jobs, links and places in the plan as cutting the
 * whole expanded plan; and a resumed shard (the journal's ids) the same.
 */
static void shard_as_whole_plan(const char *path)
{
	struct kscen_scenario *s, *t;
	struct kscen_jobs all, want, got;
	unsigned long total;
	char *balance;

	assert_int_equal(kscen_scenario_load(path, &s), 0);
	assert_int_equal(kscen_expand(s, 100000, &all), 0);
	for (unsigned n = 1; n <= 3; n++) {
		for (unsigned k = 1; k <= n; k++) {
			bool *sel = kscen_xcalloc(all.nr + 1, sizeof(*sel));
			struct cmd_shard sh = { .k = k, .n = n, .max_jobs = 100000,
						.results = "/nonexistent" };
			char **ids;

			kscen_shard_select(&all, k, n, NULL, sel);
			subset(&all, sel, &want);
			for (unsigned pass = 0; pass < 2; pass++) {
				ids = kscen_xcalloc(want.nr + 1, sizeof(*ids));
				for (unsigned i = 0; i < want.nr; i++)
					ids[want.nr - 1 - i] = want.job[i].id;	/* any order */
				sh.ids = pass ? ids : NULL;
				sh.nr_ids = want.nr;
				assert_int_equal(cmd_load_shard(path, &sh, &t, &got, &total,
								&balance), 0);
				assert_int_equal(total, all.nr);
				assert_null(balance);
				assert_int_equal(got.nr, want.nr);
				for (unsigned i = 0; i < got.nr; i++) {
					assert_string_equal(got.job[i].id, want.job[i].id);
					assert_int_equal(got.job[i].plan_pos, want.job[i].plan_pos);
					assert_string_equal(link_id(&got, got.job[i].baseline),
							    link_id(&want, want.job[i].baseline));
					assert_string_equal(link_id(&got, got.job[i].previous),
							    link_id(&want, want.job[i].previous));
				}
				kscen_jobs_free(&got);
				kscen_scenario_free(t);
				free(ids);
			}
			free(want.job);
			free(sel);
		}
	}
	kscen_jobs_free(&all);
	kscen_scenario_free(s);
}

void test_shard_walked_as_whole_plan_cut(void **state)
{
	(void)state;
	tests_each_scenario(shard_as_whole_plan);
}

static void env_clear(void)
{
	unsetenv("SLURM_ARRAY_TASK_ID");
	unsetenv("SLURM_ARRAY_TASK_MIN");
	unsetenv("SLURM_ARRAY_TASK_STEP");
	unsetenv("SLURM_ARRAY_TASK_COUNT");
	unsetenv("JOB_COMPLETION_INDEX");
}

void test_shard_parse_and_job_array_env(void **state)
{
	unsigned k = 0, n = 0;
	char err[256];

	assert_true(kscen_shard_parse("1/4", &k, &n) == 0 && k == 1 && n == 4);
	assert_true(kscen_shard_parse("4/4", &k, &n) == 0 && k == 4);
	assert_true(kscen_shard_parse("0/4", &k, &n) == -EINVAL);
	assert_true(kscen_shard_parse("5/4", &k, &n) == -EINVAL);
	assert_true(kscen_shard_parse("1/", &k, &n) == -EINVAL);
	assert_true(kscen_shard_parse("1/4x", &k, &n) == -EINVAL);
	assert_true(kscen_shard_parse("-1/4", &k, &n) == -EINVAL);
	assert_true(kscen_shard_parse("1/999999999999", &k, &n) == -EINVAL);

	env_clear();
	assert_true(kscen_shard_env(0, &k, &n, err, sizeof(err)) == 0);
	setenv("SLURM_ARRAY_TASK_ID", "7", 1);
	setenv("SLURM_ARRAY_TASK_MIN", "5", 1);
	setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
	assert_true(kscen_shard_env(0, &k, &n, err, sizeof(err)) == 1 && k == 3 && n == 4);
	setenv("SLURM_ARRAY_TASK_STEP", "2", 1);	/* --array=5-11:2 */
	assert_true(kscen_shard_env(0, &k, &n, err, sizeof(err)) == 1 && k == 2 && n == 4);
	setenv("SLURM_ARRAY_TASK_ID", "13", 1);
	assert_true(kscen_shard_env(0, &k, &n, err, sizeof(err)) == -EINVAL);
	setenv("SLURM_ARRAY_TASK_ID", "x", 1);
	assert_true(kscen_shard_env(0, &k, &n, err, sizeof(err)) == -EINVAL);
	env_clear();
	setenv("JOB_COMPLETION_INDEX", "0", 1);
	assert_true(kscen_shard_env(0, &k, &n, err, sizeof(err)) == -EINVAL);
	assert_true(strstr(err, "--shards") != NULL);
	assert_true(kscen_shard_env(3, &k, &n, err, sizeof(err)) == 1 && k == 1 && n == 3);
	setenv("JOB_COMPLETION_INDEX", "3", 1);
	assert_true(kscen_shard_env(3, &k, &n, err, sizeof(err)) == -EINVAL);
	env_clear();
}

/* A stored shard run with the jobs @ids, written into @dir. */
static char *shard_file(const char *dir, const char *shard, const char *sha,
			unsigned wl_version, const char *ids)
{
	struct kscen_run *r = kscen_xcalloc(1, sizeof(*r));
	char *list = kscen_xstrdup(ids), *save = NULL, *path;
	unsigned nr = 0;

	r->version = kscen_xstrdup(KSCEN_VERSION);
	r->scenario = kscen_xstrdup("unit-merge");
	r->scenario_sha256 = kscen_xstrdup(sha);
	r->started = kscen_xstrdup("2026-12-02T10:00:00Z");
	r->shard = kscen_xstrdup(shard);
	r->system.hostname = kscen_xasprintf("host%c", shard[0]);
	r->system.kernel = kscen_xstrdup("6.18");
	r->repeat = 1;
	r->jobs = kscen_xcalloc(8, sizeof(*r->jobs));
	for (char *t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		struct kscen_job_result *j = &r->jobs[nr++];

		j->id = kscen_xstrdup(t);
		j->workload = kscen_xstrdup("exec");
		j->workload_version = wl_version;
		j->converged = -1;
		j->metrics = kscen_xcalloc(1, sizeof(*j->metrics));
		j->nr_metrics = 1;
		j->metrics->name = kscen_xstrdup("wall_time");
		j->metrics->unit = kscen_xstrdup("s");
		j->metrics->samples = kscen_xcalloc(1, sizeof(double));
		j->metrics->samples[0] = 1.5;
		j->metrics->nr_samples = 1;
		kscen_summarize(j->metrics->samples, 1, &j->metrics->sum);
	}
	r->nr_jobs = nr;
	path = kscen_xasprintf("%s/%c.yaml", dir, shard[0]);
	assert_true(kscen_result_write(r, path, true) == 0);
	kscen_run_free(r);
	free(list);
	return path;
}

void test_merge_refuses_mixed_duplicate_and_lists_missing(void **state)
{
	char dir[] = "/tmp/kscen-merge-XXXXXX", *out, *p[3];
	struct kscen_merge_opts o = { 0 };
	struct kscen_run *m, *back;

	assert_true(mkdtemp(dir) != NULL);
	out = kscen_xasprintf("%s/merged.out", dir);

	/* Shards 1/3 and 3/3: merged, partial, 2/3 listed. */
	p[0] = shard_file(dir, "1/3", "aa", 2, "a b");
	p[1] = shard_file(dir, "3/3", "aa", 2, "c");
	assert_true(kscen_merge(out, p, 2, &o, &m) == 0);
	if (m) {
		assert_true(m->nr_jobs == 3 && m->nr_shards == 2 && m->partial);
		assert_true(m->missing_shards && !strcmp(m->missing_shards, "2/3"));
		assert_true(!m->shard);
		assert_true(!strcmp(m->system.hostname, "host1,host3"));
		kscen_run_free(m);
	}
	/* What merge wrote reads back with its shards. */
	assert_true(kscen_result_load(out, &back) == 0);
	if (back) {
		assert_true(back->nr_shards == 2 && back->partial);
		assert_true(!strcmp(back->shards[1].shard, "3/3"));
		assert_true(!strcmp(back->shards[1].hostname, "host3"));
		assert_true(!strcmp(back->missing_shards, "2/3"));
		assert_true(back->nr_jobs == 3 && !strcmp(back->jobs[2].id, "c"));
		/* A merged run is not a shard: merging it again is refused. */
		assert_true(kscen_merge(out, &out, 1, &o, &m) == -EINVAL);
		kscen_run_free(back);
	}
	/* OUT exists: refused, unless asked to replace it; never an input. */
	p[2] = shard_file(dir, "2/3", "aa", 2, "d");
	assert_true(kscen_merge(out, p, 3, &o, &m) == -EINVAL && !m);
	o.replace = true;
	assert_true(kscen_merge(p[0], p, 3, &o, &m) == -EINVAL && !m);
	/* Complete: not partial. */
	assert_true(kscen_merge(out, p, 3, &o, &m) == 0);
	if (m) {
		assert_true(!m->partial && !m->missing_shards && m->nr_jobs == 4);
		kscen_run_free(m);
	}
	free(p[2]);
	/* Another scenario file: refused, unless --force. */
	p[2] = shard_file(dir, "2/3", "bb", 2, "d");
	assert_true(kscen_merge(out, p, 3, &o, &m) == -EINVAL && !m);
	o.force = true;
	assert_true(kscen_merge(out, p, 3, &o, &m) == 0);
	kscen_run_free(m);
	o.force = false;
	free(p[2]);
	/* Another workload version: refused. */
	p[2] = shard_file(dir, "2/3", "aa", 3, "d");
	assert_true(kscen_merge(out, p, 3, &o, &m) == -EINVAL);
	free(p[2]);
	/* A job in two shards: refused, even with --force. */
	p[2] = shard_file(dir, "2/3", "aa", 2, "d b");
	o.force = true;
	assert_true(kscen_merge(out, p, 3, &o, &m) == -EINVAL && !m);
	/* A shard given twice: refused. */
	free(p[2]);
	p[2] = p[1];
	assert_true(kscen_merge(out, p, 3, &o, &m) == -EINVAL);
	for (unsigned i = 0; i < 2; i++) {
		unlink(p[i]);
		free(p[i]);
	}
	unlink(out);
	free(out);
	out = kscen_xasprintf("%s/2.yaml", dir);
	unlink(out);
	free(out);
	rmdir(dir);
}

/* Weighted: one 8-second job against seven of 1 s: it is a shard alone. */
void test_shard_balances_by_weight(void **state)
{
	const double w[8] = { 1, 1, 8, 1, 1, 1, 1, 1 };
	struct kscen_jobs jobs;
	bool sel[8];

	(void)state;
	make_jobs(&jobs, 8, 1);
	for (unsigned i = 0; i < 8; i++)
		jobs.job[i].baseline = jobs.job[i].previous = -1;
	kscen_shard_select(&jobs, 1, 2, w, sel);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(sel[i], i == 2);
	/* by count instead: four and four */
	kscen_shard_select(&jobs, 1, 2, NULL, sel);
	unsigned in = 0;

	for (unsigned i = 0; i < 8; i++)
		in += sel[i];
	assert_int_equal(in, 4);
	/* linked jobs weigh together and still share a shard */
	jobs.job[3].baseline = 2;
	kscen_shard_select(&jobs, 1, 2, w, sel);
	assert_true(sel[2] && sel[3]);
	for (unsigned i = 0; i < 8; i++)
		if (i != 2 && i != 3)
			assert_false(sel[i]);
	free(jobs.job);
}
