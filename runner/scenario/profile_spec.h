/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile_spec.h - what a scenario's `profile:` (or `run --profile`) asks
 * for, read from the scenario (profile_spec.c).
 */
#ifndef KSCEN_PROFILE_SPEC_H
#define KSCEN_PROFILE_SPEC_H

#include <stdbool.h>

enum {
	KSCEN_STACKS_KERNEL = 1,
	KSCEN_STACKS_USER = 2,
	KSCEN_STACKS_BOTH = 3,
};

#define KSCEN_PROFILE_FREQ 999		/* Hz; see docs/profiles.md */
#define KSCEN_PROFILE_TOP 10
#define KSCEN_PROFILE_KEEP 50	/* stored per job: the top by self %, and as
				   many more by children % among the rest */

/* What the scenario (profile: ...) or `run --profile` asks for. */
struct kscen_profile_spec {
	bool on;
	unsigned frequency;	/* Hz */
	unsigned stacks;	/* KSCEN_STACKS_* */
	bool system;		/* scope: system; else scope: job */
	unsigned top;		/* symbols a report shows */
	bool perf;		/* profiler: perf */
};

/* The spec's defaults; "profile: true". */
void kscen_profile_spec_default(struct kscen_profile_spec *s);

/*
 * Read a `profile:` node of a scenario, starting from
 * @inherit (the scenario's, for a job) when that is on. *@out is always
 * set (malloc'ed); returns the number of errors printed.
 */
struct yaml_document_s;
struct yaml_node_s;
int kscen_profile_spec_read(const char *file, struct yaml_document_s *doc,
			    struct yaml_node_s *n,
			    const struct kscen_profile_spec *inherit,
			    struct kscen_profile_spec **out);

#endif
