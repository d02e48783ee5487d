/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile.h - a profile per job: one extra sample, after the recorded
 * ones, taken under a sampling profiler (profile.c: kscen's own BPF one,
 * or perf record), its stacks folded and its top symbols kept in the
 * result file (profile_store.c), shown in the reports against the job's
 * baseline (profile_report.c) and drawn as flame graphs (flame.c).
 */
#ifndef KSCEN_PROFILE_H
#define KSCEN_PROFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "expand/jobs.h"
#include "run.h"

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
 * profile_perf.c: the same sample under perf record (profiler: perf),
 * filling @p like kscen_profile_job(); 0 or -EINTR.
 */
int kscen_profile_perf(const struct kscen_job *job, long long timeout_ns,
		       const struct kscen_profile_spec *spec,
		       struct kscen_profile *p);

/* profile.c: the spec's defaults; "profile: true". */
void kscen_profile_spec_default(struct kscen_profile_spec *s);

/*
 * Take one sample of @job under the profiler @spec asks for and return
 * its profile in *@out (always set; out->reason says why there is none).
 * Returns 0, or -errno when no sample could be started at all.
 */
int kscen_profile_job(const struct kscen_job *job, long long timeout_ns,
		      const struct kscen_profile_spec *spec,
		      struct kscen_profile **out);

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

/*
 * profile_spec.c: read a `profile:` node of a scenario, starting from
 * @inherit (the scenario's, for a job) when that is on. *@out is always
 * set (malloc'ed); returns the number of errors printed.
 */
struct yaml_document_s;
struct yaml_node_s;
int kscen_profile_spec_read(const char *file, struct yaml_document_s *doc,
			    struct yaml_node_s *n,
			    const struct kscen_profile_spec *inherit,
			    struct kscen_profile_spec **out);

/*
 * flame.c: a flame graph of @f as SVG; with @old, the differential one
 * (red: a larger share in @f than in @old). 0 or -EIO.
 */
int kscen_flame_svg(FILE *out, const struct kscen_folded *f, unsigned nr,
		    const struct kscen_folded *old, unsigned nr_old,
		    const char *title, const char *caption);
/*
 * `kscen plot --flame JOB [--diff] RESULT -o FILE.svg`: @load reads RESULT.
 * Returns the exit code.
 */
int kscen_plot_flame(const char *result, const char *job, bool diff,
		     const char *output,
		     int (*load)(const char *arg, struct kscen_run **out));

#endif
