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

#include "lib/util.h"
#include "envdiff.h"
#include "store/runmodel.h"

/* Tokens of @a (split at any of @sep) that @b lacks, as "<mark>tok ...". */
static void missing(const char *a, const char *b, const char *sep, char mark,
		    char **out)
{
	char *ac = kscen_xstrdup(kscen_str(a)), *save = NULL, *tok, *t;

	for (tok = strtok_r(ac, sep, &save); tok; tok = strtok_r(NULL, sep, &save)) {
		char *bc = kscen_xstrdup(kscen_str(b)), *s2 = NULL, *u;
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

	if (!strcmp(kscen_str(o), kscen_str(n)))
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

/* The fields with an env position (runmodel.c), the system's then the run's. */
unsigned kscen_env_diff(const struct kscen_run *old, const struct kscen_run *new_,
			struct kscen_envdiff **out)
{
	struct kscen_envdiff *v = NULL;
	const struct kscen_field *f;
	char ob[32], nb[32];
	unsigned pos, nr = 0;

	for (pos = 1; ; pos++) {
		const void *o = &old->system, *n = &new_->system;

		f = KSCEN_FIELD_AT(KREC_SYSTEM, env, pos);
		if (!f) {
			f = KSCEN_FIELD_AT(KREC_RUN, env, pos);
			o = old;
			n = new_;
		}
		if (!f)
			break;
		add(&v, &nr, f->key, kscen_field_text(f, o, ob, sizeof(ob)),
		    kscen_field_text(f, n, nb, sizeof(nb)), f->flags & KF_TOKENS);
	}
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
