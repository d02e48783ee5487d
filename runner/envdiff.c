// SPDX-License-Identifier: GPL-2.0
/*
 * envdiff.c - what differs between the machines of two runs. A changed
 * kernel command line, governor or mitigation explains more regressions
 * than patches do, so every comparison (run against its reference, compare)
 * prints this before its numbers. Lists (the command line, the
 * mitigations) are diffed as tokens: a 1,000-character command line that
 * gained one option reads "+nosmt", not as two whole lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "envdiff.h"

static const char *str(const char *s)
{
	return s ? s : "";
}

/* Tokens of @a (split at any of @sep) that @b lacks, as "<mark>tok ...". */
static void missing(const char *a, const char *b, const char *sep, char mark,
		    char **out)
{
	char *ac = kscen_xstrdup(str(a)), *save = NULL, *tok, *t;

	for (tok = strtok_r(ac, sep, &save); tok; tok = strtok_r(NULL, sep, &save)) {
		char *bc = kscen_xstrdup(str(b)), *s2 = NULL, *u;
		bool found = false;

		for (u = strtok_r(bc, sep, &s2); u && !found; u = strtok_r(NULL, sep, &s2))
			found = !strcmp(u, tok);
		free(bc);
		if (found)
			continue;
		t = kscen_xasprintf("%s%s%c%s", *out ? *out : "", *out ? " " : "",
				    mark, tok);
		free(*out);
		*out = t;
	}
	free(ac);
}

static void add(struct kscen_envdiff **v, unsigned *nr, const char *name,
		const char *o, const char *n, bool tokens)
{
	struct kscen_envdiff *d;

	if (!strcmp(str(o), str(n)))
		return;
	*v = kscen_xrealloc(*v, (*nr + 1) * sizeof(**v));
	d = &(*v)[(*nr)++];
	d->name = name;
	d->tokens = NULL;
	d->old = kscen_xstrdup(o ? o : "(unknown)");
	d->new_ = kscen_xstrdup(n ? n : "(unknown)");
	if (tokens && o && n) {
		const char *sep = !strcmp(name, "cmdline") ? " " : ",";

		missing(o, n, sep, '-', &d->tokens);
		missing(n, o, sep, '+', &d->tokens);
		if (!d->tokens)	/* the same tokens in another order */
			d->tokens = kscen_xstrdup("(reordered)");
	}
}

unsigned kscen_env_diff(const struct kscen_run *old, const struct kscen_run *new_,
			struct kscen_envdiff **out)
{
	const struct kscen_system *o = &old->system, *n = &new_->system;
	char oc[24], nc[24], op[24], np[24];
	struct kscen_envdiff *v = NULL;
	unsigned nr = 0;

	snprintf(oc, sizeof(oc), "%ld", o->nr_cpus);
	snprintf(nc, sizeof(nc), "%ld", n->nr_cpus);
	snprintf(op, sizeof(op), "%d", o->perf_event_paranoid);
	snprintf(np, sizeof(np), "%d", n->perf_event_paranoid);
	if (o->perf_event_paranoid == KSCEN_PARANOID_UNKNOWN)
		snprintf(op, sizeof(op), "unknown");
	if (n->perf_event_paranoid == KSCEN_PARANOID_UNKNOWN)
		snprintf(np, sizeof(np), "unknown");

	add(&v, &nr, "hostname", o->hostname, n->hostname, false);
	add(&v, &nr, "kernel", o->kernel, n->kernel, false);
	add(&v, &nr, "kernel_build", o->kernel_build, n->kernel_build, false);
	add(&v, &nr, "config_sha256", o->config_sha256, n->config_sha256, false);
	add(&v, &nr, "cmdline", o->cmdline, n->cmdline, true);
	add(&v, &nr, "arch", o->arch, n->arch, false);
	add(&v, &nr, "cpu_model", o->cpu_model, n->cpu_model, false);
	add(&v, &nr, "microcode", o->microcode, n->microcode, false);
	add(&v, &nr, "nr_cpus", oc, nc, false);
	add(&v, &nr, "governor", o->governor, n->governor, false);
	add(&v, &nr, "scaling_driver", o->scaling_driver, n->scaling_driver, false);
	add(&v, &nr, "boost", o->boost, n->boost, false);
	add(&v, &nr, "smt", o->smt, n->smt, false);
	add(&v, &nr, "mitigations", o->mitigations, n->mitigations, true);
	add(&v, &nr, "thp", o->thp, n->thp, false);
	add(&v, &nr, "isolcpus", o->isolcpus, n->isolcpus, false);
	add(&v, &nr, "nohz_full", o->nohz_full, n->nohz_full, false);
	add(&v, &nr, "perf_event_paranoid", op, np, false);
	add(&v, &nr, "kscen", old->version, new_->version, false);
	add(&v, &nr, "kscen_describe", old->describe, new_->describe, false);
	add(&v, &nr, "scenario_sha256", old->scenario_sha256,
	    new_->scenario_sha256, false);
	*out = v;
	return nr;
}

void kscen_env_diff_free(struct kscen_envdiff *v, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++) {
		free(v[i].old);
		free(v[i].new_);
		free(v[i].tokens);
	}
	free(v);
}

void kscen_env_diff_print(FILE *out, const struct kscen_run *old,
			  const struct kscen_run *new_, const char *prefix)
{
	struct kscen_envdiff *v;
	unsigned nr = kscen_env_diff(old, new_, &v);

	if (!nr)
		fprintf(out, "%senvironment: the same as the reference's\n", prefix);
	else
		fprintf(out, "%senvironment differs from the reference's:\n", prefix);
	for (unsigned i = 0; i < nr; i++) {
		if (v[i].tokens)
			fprintf(out, "%s  %s: %s\n", prefix, v[i].name, v[i].tokens);
		else
			fprintf(out, "%s  %s: %s -> %s\n", prefix, v[i].name,
				v[i].old, v[i].new_);
	}
	kscen_env_diff_free(v, nr);
}
