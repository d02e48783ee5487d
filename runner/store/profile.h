/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile.h - a job's profile as a run holds it: one extra sample, taken
 * under a sampling profiler after the recorded ones (sample/profile.c),
 * its stacks folded and its top symbols summarized (profile_summary.c) and
 * kept in the result file, the folded stacks beside it (profile_store.c).
 * What a scenario asks for is scenario/profile_spec.h; the reports show it
 * with report/profile_report.c and draw it with report/flame.c.
 */
#ifndef KSCEN_PROFILE_H
#define KSCEN_PROFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "run.h"
#include "scenario/profile_spec.h"

/* One folded stack: "comm;outer;...;leaf", kernel frames end in "_[k]". */
struct kscen_folded {
	char *stack;
	unsigned long long count;
};

struct kscen_profile_sym {
	char *name;		/* without the "_[k]" */
	bool kernel;
	double self, children;	/* percent of the profile's samples */
};

/* A job's profile, as stored in the result file (NULL: none asked). */
struct kscen_profile {
	char *reason;		/* set: no profile, and why (skipped/failed) */
	char *source;		/* "bpf" or "perf" */
	char *event;		/* "cycles" or "cpu-clock" */
	unsigned frequency;
	char *scope, *stacks;
	unsigned top;
	long samples;		/* ticks counted in scope */
	long map_full, kstack_lost, ustack_lost;	/* never dropped silently */
	bool children;		/* children % are meaningful (stacks deep enough) */
	char *note;		/* "kernel symbols hidden (kptr_restrict=2)", ... */
	double value;		/* the profiled sample's primary metric */
	struct kscen_profile_sym *sym;	/* by self %, descending */
	unsigned nr_sym;
	char **objects;		/* "path build-id" of the user objects named */
	unsigned nr_objects;
	/* In memory only, until the run is saved: */
	struct kscen_folded *folded;
	unsigned nr_folded;
};

void kscen_profile_free(struct kscen_profile *p);

/*
 * Fold raw samples: merge equal stacks, sort them, compute the symbols'
 * self and children percentages into @p (exposed for the unit tests).
 */
void kscen_profile_summarize(struct kscen_profile *p);

/* "<dir>/<escaped id>.folded": '/' and anything unsafe become %XX. */
char *kscen_profile_folded_name(const char *id);
/* "<run path without .yaml>.profiles"; NULL when @run has no path. */
char *kscen_profile_dir(const struct kscen_run *run);
/* Write every job's folded stacks beside the saved @run. 0 or -errno. */
int kscen_profile_save_folded(const struct kscen_run *run);
/* Read a folded file back (for plot): 0 or -errno. */
int kscen_folded_load(const char *path, struct kscen_folded **out,
		      unsigned *nr);
void kscen_folded_free(struct kscen_folded *f, unsigned nr);


#endif
