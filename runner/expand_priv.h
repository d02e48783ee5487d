/* SPDX-License-Identifier: GPL-2.0 */
/*
 * expand_priv.h - what the two expanders share: the list builder
 * (expand.c, kscen_expand()) and the one-job-at-a-time walk
 * (expand_stream.c, kscen_expand_begin()). Private to them.
 */
#ifndef KSCEN_EXPAND_PRIV_H
#define KSCEN_EXPAND_PRIV_H

#include "jobs.h"
#include "scenario_load.h"

/* Scratch for one job while the list is built. */
struct combo {
	const char **text;	/* per declared key (ids), NULL: not given */
	const char **label;	/* per declared key: its label, NULL: none */
	struct kscen_value *val; /* per workload param: effective values */
	char *key;		/* canonical text of val, for lookups */
};

struct entry_keys {
	const char **names;	/* declared keys: params, then include-only */
	unsigned nr;
};

void expand_collect_keys(const struct kscen_job_spec *j, struct entry_keys *k);
int expand_key_index(const struct entry_keys *k, const char *key);
int expand_combo_values(const struct kscen_job_spec *j,
	const struct entry_keys *k, struct combo *c);
void expand_combo_fini(const struct kscen_workload *w, struct combo *c);
/*
 * A value longer than ID_VALUE_MAX bytes (a command, a regex) would drown
 * the id: it appears as its first ID_PREFIX bytes, '~' and the first 8 hex
 * digits of its SHA-256. The hash keeps ids of different values different
 * and the id of a value the same from run to run; the stored run keeps the
 * whole value beside the id (params:).
 */
#define ID_VALUE_MAX	40
#define ID_PREFIX	24
char *expand_id_value(const char *v);
size_t expand_id_len(const char *v);
char *expand_id_put(char *p, const char *v);
const char *expand_label_of(const struct kscen_map *pm, const char *key,
	const char *text);
char **expand_shown_values(const struct entry_keys *k, const struct combo *c);
char *expand_make_id(const struct kscen_job_spec *j, const struct entry_keys *k,
	char **v);
/*
 * @j's metrics for @params (a copy of its workload's, or what job_metrics()
 * gives, checked) into @m (room for KSCEN_MAX_METRICS); -EINVAL said.
 */
int expand_job_metrics(const struct kscen_job_spec *j, const char *id,
		       const void *params, struct kscen_metric_desc *m, unsigned *nr);
int expand_check_params(const struct kscen_job_spec *j, const char *id,
	const void *params, unsigned nr_metrics);
int expand_count_jobs(const struct kscen_scenario *s, unsigned long max_jobs,
	unsigned long *total);

#endif
