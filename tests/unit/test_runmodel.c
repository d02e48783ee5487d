// SPDX-License-Identifier: GPL-2.0
/*
 * test_runmodel.c - the run model's tables (runmodel.c): sane, and every
 * field they list written and read back by the result file, in their order.
 *
 * A cmocka group, kscen_runmodel_tests(), which tests/unit/main.c runs.
 */
#define _GNU_SOURCE	/* mkdtemp */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/profile.h"
#include "store/runmodel.h"
#include "store/store.h"
#include "lib/util.h"


static const size_t rec_size[KREC_NR] = {
	[KREC_RUN] = sizeof(struct kscen_run),
	[KREC_SYSTEM] = sizeof(struct kscen_system),
	[KREC_SHARD] = sizeof(struct kscen_shard_rec),
	[KREC_JOB] = sizeof(struct kscen_job_result),
	[KREC_METRIC] = sizeof(struct kscen_metric),
	[KREC_PROFILE] = sizeof(struct kscen_profile),
	[KREC_PSYM] = sizeof(struct kscen_profile_sym),
	[KREC_NOISE] = sizeof(struct kscen_noise_rec),
	[KREC_SAMPLE] = sizeof(struct kscen_sample_rec),
};

/* Positions at @posoff (json, csv, env) over @recs: each once; 1..N. */
static void check_positions(size_t posoff, const enum kscen_rec *recs,
			    unsigned nr, bool gaps)
{
	unsigned char seen[256] = { 0 };
	unsigned max = 0, pos;

	for (unsigned r = 0; r < nr; r++) {
		const struct kscen_record *rec = &kscen_records[recs[r]];

		for (unsigned i = 0; i < rec->nr; i++) {
			pos = *((const unsigned char *)&rec->fields[i] + posoff);
			if (!pos)
				continue;
			assert_int_equal(seen[pos], 0);
			seen[pos] = 1;
			max = pos > max ? pos : max;
		}
	}
	for (pos = 1; !gaps && pos <= max; pos++)
		assert_int_equal(seen[pos], 1);
}

static void tables_are_sane(void **state)
{
	(void)state;
	for (unsigned r = 0; r < KREC_NR; r++) {
		const struct kscen_record *rec = &kscen_records[r];

		assert_non_null(rec->name);
		assert_true(rec->nr > 0 && rec->nr <= 32);	/* load_map's bits */
		for (unsigned i = 0; i < rec->nr; i++) {
			const struct kscen_field *f = &rec->fields[i];

			assert_true(f->off < rec_size[r]);
			assert_true((f->type == KF_HOOK) == (f->hook != KH_NONE));
			for (unsigned k = 0; k < i; k++)
				assert_string_not_equal(f->key, rec->fields[k].key);
		}
		check_positions(offsetof(struct kscen_field, json),
				(enum kscen_rec[]){ r }, 1, true);
	}
	/* A CSV row is a job's, its metric's and its noise's columns. */
	check_positions(offsetof(struct kscen_field, csv),
			(enum kscen_rec[]){ KREC_JOB, KREC_METRIC, KREC_NOISE }, 3, false);
	check_positions(offsetof(struct kscen_field, env),
			(enum kscen_rec[]){ KREC_SYSTEM, KREC_RUN }, 2, false);
}

/* A value of @f's type that differs from field to field: @i. */
static const char *sample_text(const struct kscen_field *f, unsigned i,
			       char *buf, size_t len)
{
	switch (f->type) {
	case KF_STR:
		snprintf(buf, len, "v-%s", f->key);
		return buf;
	case KF_BOOL:
	case KF_TRI:
		return "true";
	case KF_UINT:
	case KF_PARANOID:
		snprintf(buf, len, "%u", i + 1);
		return buf;
	case KF_LONG:
		/* optional: written when known (>= 0) */
		snprintf(buf, len, "%ld", f->flags & KF_OPTIONAL ? (long)i + 1 :
			 -(long)i - 1);
		return buf;
	case KF_DOUBLE:
		snprintf(buf, len, "%u.25", i + 1);
		return buf;
	case KF_STATUS:
		return "skipped";
	case KF_BETTER:
		return "higher";
	case KF_HOOK:
		break;
	}
	return NULL;
}

static void fill(enum kscen_rec r, void *base)
{
	const struct kscen_record *rec = &kscen_records[r];
	char buf[64];

	for (unsigned i = 0; i < rec->nr; i++) {
		const struct kscen_field *f = &rec->fields[i];

		if (f->type != KF_HOOK)
			assert_null(kscen_field_parse(f, base,
					sample_text(f, i, buf, sizeof(buf)), false));
	}
}

static void check(enum kscen_rec r, const void *base)
{
	const struct kscen_record *rec = &kscen_records[r];
	char wbuf[64], got[64];
	const char *g, *want;

	for (unsigned i = 0; i < rec->nr; i++) {
		const struct kscen_field *f = &rec->fields[i];

		if (f->type == KF_HOOK || (f->flags & KF_NOFILE))
			continue;
		want = sample_text(f, i, wbuf, sizeof(wbuf));
		g = kscen_field_text(f, base, got, sizeof(got));
		assert_non_null(g);
		if (f->type == KF_DOUBLE)
			assert_true(strtod(g, NULL) == strtod(want, NULL));
		else
			assert_string_equal(g, want);
	}
}

/*
 * The keys of @r in the file after the line @after (NULL: from the start)
 * at @indent, in the table's order, none left out.
 */
static void check_order(const char *path, enum kscen_rec r, const char *after,
			const char *indent)
{
	const struct kscen_record *rec = &kscen_records[r];
	char *buf, *start, key[128];
	size_t len, n = strlen(indent);
	unsigned i = 0;

	assert_int_equal(kscen_read_regular(path, 1 << 20, &buf, &len), 0);
	start = after ? strstr(buf, after) : buf;
	assert_non_null(start);
	for (char *line = start; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL) {
		if (strncmp(line, indent, n) || line[n] == ' ' ||
		    sscanf(line + n, "%127[a-z_0-9]:", key) != 1)
			continue;
		while (i < rec->nr && (rec->fields[i].flags & KF_NOFILE))
			i++;
		assert_true(i < rec->nr);
		assert_string_equal(key, rec->fields[i].key);
		if (++i == rec->nr)
			break;
	}
	while (i < rec->nr && (rec->fields[i].flags & KF_NOFILE))
		i++;
	assert_int_equal(i, rec->nr);
	free(buf);
}

static void every_field_round_trips(void **state)
{
	char dir[] = "/tmp/kscen-runmodel-XXXXXX", *path;
	struct kscen_run *run = kscen_xcalloc(1, sizeof(*run)), *back = NULL;
	struct kscen_job_result *j;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = kscen_xasprintf("%s/run.yaml", dir);
	fill(KREC_RUN, run);	/* until_ci > 0: max_repeat is written */
	fill(KREC_SYSTEM, &run->system);
	run->shards = kscen_xcalloc(1, sizeof(*run->shards));
	run->nr_shards = 1;
	fill(KREC_SHARD, run->shards);
	run->jobs = j = kscen_xcalloc(1, sizeof(*run->jobs));
	run->nr_jobs = 1;
	fill(KREC_JOB, j);
	j->metrics = kscen_xcalloc(1, sizeof(*j->metrics));
	j->nr_metrics = 1;	/* no samples: the stored summary stands */
	fill(KREC_METRIC, j->metrics);
	j->profile = kscen_xcalloc(1, sizeof(*j->profile));
	fill(KREC_PROFILE, j->profile);
	free(j->profile->reason);	/* one with a reason stops there */
	j->profile->reason = NULL;
	j->noise = kscen_xcalloc(1, sizeof(*j->noise));
	fill(KREC_NOISE, j->noise);
	j->noise->samples = kscen_xcalloc(1, sizeof(*j->noise->samples));
	j->noise->nr_samples = 1;
	fill(KREC_SAMPLE, j->noise->samples);
	/* the counts are those of the samples, whatever was written */
	j->noise->disturbed = j->noise->dropped = 1;

	assert_int_equal(kscen_result_write(run, path, true), 0);
	check_order(path, KREC_RUN, NULL, "");
	check_order(path, KREC_SYSTEM, "\nsystem:\n", "  ");
	assert_int_equal(kscen_result_load(path, &back), 0);
	check(KREC_RUN, back);
	check(KREC_SYSTEM, &back->system);
	assert_int_equal(back->nr_shards, 1);
	check(KREC_SHARD, back->shards);
	assert_int_equal(back->nr_jobs, 1);
	j = back->jobs;
	assert_null(j->profile->reason);
	j->profile->reason = kscen_xstrdup("v-reason");	/* not stored, see above */
	check(KREC_JOB, j);
	assert_int_equal(j->nr_metrics, 1);
	check(KREC_METRIC, j->metrics);
	check(KREC_PROFILE, j->profile);
	assert_non_null(j->noise);
	assert_int_equal(j->noise->nr_samples, 1);
	check(KREC_SAMPLE, j->noise->samples);
	/* recounted from the one sample, disturbed and dropped */
	assert_int_equal(j->noise->disturbed, 1);
	assert_int_equal(j->noise->dropped, 1);
	j->noise->disturbed = 2;	/* as fill() gave them */
	j->noise->dropped = 3;
	check(KREC_NOISE, j->noise);

	unlink(path);
	rmdir(dir);
	free(path);
	kscen_run_free(run);
	kscen_run_free(back);
}

int kscen_runmodel_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_are_sane),
		cmocka_unit_test(every_field_round_trips),
	};

	return cmocka_run_group_tests_name("runmodel", tests, NULL, NULL);
}
