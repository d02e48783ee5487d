// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_job.c - the parts of a job beside its matrix: the numbers it
 * captures from a sample's output (metrics:, for a workload that takes
 * them) and the commands run around its samples (prepare:, cleanup:).
 * libcyaml has checked their shape (schemas/scenario.c); here the values.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/util.h"
#include "scenario_load.h"
#include "yaml_tree.h"
#include "scenario_walk.h"
#include "schemas/scenario.h"

#define CAPTURE_NAME_MAX 64

static yaml_node_t *field(struct kscen_loader *ld, yaml_node_t *map, const char *key)
{
	return kscen_yget(&ld->doc, map, key);
}

/* Entry @i of @dm, at node @n, into @c. */
static void read_capture(struct kscen_loader *ld, const struct kscen_job_spec *j,
			 const struct kscen_doc_metric *dm, yaml_node_t *n,
			 struct kscen_capture *c)
{
	const struct kscen_workload *w = j->workload;
	char err[256];
	regex_t re;

	c->name = kscen_xstrdup(dm->name);
	c->regex = kscen_xstrdup(dm->regex);
	c->unit = kscen_xstrdup(dm->unit ? dm->unit : "");
	c->better = KSCEN_LOWER;
	if (kscen_blank(dm->name) || strlen(dm->name) > CAPTURE_NAME_MAX)
		kscen_lerr(ld, field(ld, n, "name"), "job %s: metrics: a name is 1 to %d "
			   "characters", j->name, CAPTURE_NAME_MAX);
	for (unsigned m = 0; m < w->nr_metrics; m++)
		if (!strcmp(dm->name, w->metrics[m].name))
			kscen_lerr(ld, field(ld, n, "name"), "job %s: metrics: '%s' is "
				   "one of %s's own metrics", j->name, dm->name, w->name);
	if (kscen_metric_regex(&re, dm->regex, "regex", err, sizeof(err)))
		kscen_lerr(ld, field(ld, n, "regex"), "job %s: metrics: %s", j->name, err);
	else
		regfree(&re);
	if (dm->better && !strcmp(dm->better, "higher"))
		c->better = KSCEN_HIGHER;
	else if (dm->better && strcmp(dm->better, "lower"))
		kscen_lerr(ld, field(ld, n, "better"), "job %s: metrics: better: "
			   "'%s' is not lower or higher", j->name, dm->better);
}

static char *read_command(struct kscen_loader *ld, const struct kscen_job_spec *j,
			  yaml_node_t *jn, const char *key, const char *text)
{
	if (!text)
		return NULL;
	if (kscen_blank(text))
		kscen_lerr(ld, field(ld, jn, key), "job %s: %s: must be a command",
			   j->name, key);
	return kscen_xstrdup(text);
}

void kscen_read_job_extras(struct kscen_loader *ld, yaml_node_t *jn,
			   const struct kscen_doc_job *dj, struct kscen_job_spec *j)
{
	yaml_node_t *list = field(ld, jn, "metrics");

	j->prepare = read_command(ld, j, jn, "prepare", dj->prepare);
	j->cleanup = read_command(ld, j, jn, "cleanup", dj->cleanup);
	if (!dj->metrics_count)
		return;
	if (!j->workload->check_captures) {
		kscen_lerr(ld, list, "job %s: metrics: %s takes no metrics list "
			   "(exec does: numbers captured from its output)",
			   j->name, j->workload->name);
		return;
	}
	j->captures = kscen_xcalloc(dj->metrics_count, sizeof(*j->captures));
	for (unsigned i = 0; i < dj->metrics_count; i++) {
		yaml_node_t *n = kscen_yitem(&ld->doc, list, i);

		read_capture(ld, j, &dj->metrics[i], n, &j->captures[i]);
		j->nr_captures++;
		for (unsigned k = 0; k < i; k++)
			if (!strcmp(j->captures[k].name, dj->metrics[i].name))
				kscen_lerr(ld, field(ld, n, "name"), "job %s: metrics: "
					   "'%s' twice", j->name, dj->metrics[i].name);
	}
}

void kscen_job_extras_fini(struct kscen_job_spec *j)
{
	for (unsigned i = 0; i < j->nr_captures; i++) {
		free((char *)j->captures[i].name);
		free((char *)j->captures[i].regex);
		free((char *)j->captures[i].unit);
	}
	free(j->captures);
	free(j->prepare);
	free(j->cleanup);
}
