/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario.h - a scenario file loaded and checked (scenario.c,
 * scenario_file.c, scenario_shape.c, scenario_job.c, scenario_map.c); the
 * workloads it may name and their values are workloads/registry.h's.
 */
#ifndef KSCEN_SCENARIO_H
#define KSCEN_SCENARIO_H

#include "lib/diag.h"
#include "workloads/registry.h"

/* ---- Scenario (scenario.c) --------------------------------------------- */

/* One "key: value" of a params/include/exclude/baseline mapping. */
struct kscen_kv {
	char *key;
	struct kscen_mark key_mark;
	char **values;		/* one for a scalar, n for a list (an axis) */
	char **labels;		/* NULL, or a label each value (an axis given
				 * as label: value): ids show the label */
	struct kscen_mark *marks;
	unsigned nr_values;
	bool is_list;
	char *arena;		/* NULL, or the block the values are in (a long
				 * axis, scenario_load.h), freed as one */
	struct kscen_value *parsed;	/* a list's values as its parameter
					 * reads them (the loader checked each),
					 * or NULL */
};

/* A mapping of kvs, in file order: params, one include, one exclude, ... */
struct kscen_map {
	struct kscen_kv *kv;
	unsigned nr;
	struct kscen_mark mark;
};

struct kscen_profile_spec;

/* What a run does with a sample its sentinels call disturbed (noise:). */
enum kscen_noise_policy {
	KSCEN_NOISE_UNSET,	/* the job's, the scenario's, or flag */
	KSCEN_NOISE_FLAG,	/* keep it and say so */
	KSCEN_NOISE_RETAKE,	/* take it again in the same round; keep the retake */
	KSCEN_NOISE_DROP,	/* set it aside */
};
/* "flag", "retake", "drop" by policy; [KSCEN_NOISE_UNSET] is "flag". */
extern const char *const kscen_noise_names[];
/* The policy @s names, or KSCEN_NOISE_UNSET. */
enum kscen_noise_policy kscen_noise_parse(const char *s);

struct kscen_job_spec {
	const char *spec_file;	/* the scenario's file, for messages */
	char *name;
	struct kscen_mark mark;
	const struct kscen_workload *workload;
	struct kscen_map params;
	struct kscen_map *include, *exclude;
	unsigned nr_include, nr_exclude;
	struct kscen_map baseline;	/* nr == 0: none */
	long long timeout_ns;		/* per sample; the scenario's if unset */
	struct kscen_profile_spec *profile;	/* profile.h; NULL: the scenario's */
	struct kscen_capture *captures;	/* metrics: numbers from the output */
	unsigned nr_captures;
	/* sh -c commands, NULL: none: before each sample, after the last */
	char *prepare, *cleanup;
	enum kscen_noise_policy noise;	/* UNSET: the scenario's */
};

struct kscen_scenario {
	char *file;		/* path as given */
	char *sha256;		/* hex digest of the file's bytes */
	char *text;		/* those bytes, NUL-terminated: stored with a run
				 * (kscen_run_new() takes them: NULL after) */
	char *name;
	char *description;
	unsigned repeat;	/* recorded samples per job (auto: at least) */
	unsigned max_repeat;	/* repeat: auto: at most this many */
	double until_ci;	/* repeat: auto: CI half-width target, %; 0 off */
	unsigned warmup;	/* discarded samples per job */
	long long timeout_ns;	/* per sample */
	enum kscen_noise_policy noise;	/* UNSET: flag */
	struct kscen_profile_spec *profile;	/* profile.h; NULL: none */
	struct kscen_job_spec *jobs;
	unsigned nr_jobs;
};

/*
 * Load and check @path. Every problem is printed to stderr as
 * "file:line:column: message". Returns 0 and a scenario the caller frees with
 * kscen_scenario_free(), or -EINVAL (bad input) / -errno.
 */
int kscen_scenario_load(const char *path, struct kscen_scenario **out);
/*
 * The same for a scenario's @len bytes at @buf (read from stdin, built by
 * kscen exec, kept by a stored run), through the same checks as a file's:
 * @file names it in messages, @dir is where its modules: are relative to.
 */
int kscen_scenario_load_text(const char *file, const char *dir, const char *buf,
			     size_t len, struct kscen_scenario **out);
void kscen_scenario_free(struct kscen_scenario *s);

#endif
