/* SPDX-License-Identifier: GPL-2.0 */
/* envdiff.h - what differs between the machines of two runs (envdiff.c). */
#ifndef KSCEN_ENVDIFF_H
#define KSCEN_ENVDIFF_H

#include <stdio.h>

#include "store/run.h"

struct kscen_envdiff {
	const char *name;	/* "kernel", "cmdline", ... */
	char *old, *new_;	/* whole values; "(unknown)" where not recorded */
	char *tokens;		/* lists: "-quiet +nosmt"; NULL for scalars */
};

/* The fields that differ, in a fixed order; free with kscen_env_diff_free(). */
unsigned kscen_env_diff(const struct kscen_run *old, const struct kscen_run *new_,
			struct kscen_envdiff **out);
void kscen_env_diff_free(struct kscen_envdiff *v, unsigned nr);
/* "<prefix>environment differs ...", one line a field, lists as tokens. */
void kscen_env_diff_print(FILE *out, const struct kscen_run *old,
			  const struct kscen_run *new_, const char *prefix);

#endif
