/* SPDX-License-Identifier: GPL-2.0 */
/* journal.h - the append-only journal of a run, for --resume (journal.c). */
#ifndef KSCEN_JOURNAL_H
#define KSCEN_JOURNAL_H

#include "runner.h"

/* What decides a run's jobs, rounds and reference: enough to finish it. */
struct kscen_journal_hdr {
	char *scenario_file, *scenario_sha256, *started, *command;
	unsigned repeat, warmup, max_repeat;
	double until_ci;
	unsigned long max_jobs;
	char *filter;		/* NULL: all jobs */
	char *shard;		/* "K/N" of a sharded run, or NULL */
	char *compare;		/* run --compare as given: last, none, label:NAME or a path */
	char *label;		/* run --label, or NULL */
	bool profile;		/* run --profile */
	/*
	 * create: the scenario's text when it was not read from a file (stdin,
	 * kscen exec, kscen rerun), kept beside the journal as <journal>.scenario
	 * for --resume; resume: that copy's path, or NULL.
	 */
	const char *scenario_text;
	char *scenario_copy;
	enum kscen_noise_policy noise;	/* run --noise; UNSET: the scenario's */
	/* the module files loaded, and the sha256 of each: a resume needs the same */
	char **modules, **module_shas;
	unsigned nr_modules;
	/* resume only: the job ids the run had, to check the expansion */
	char **ids;
	unsigned nr_ids, nr_jobs;
};

struct kscen_journal;

/* Create @path (never replacing one) and write @h and the job ids, synced. */
int kscen_journal_create(const char *path, const struct kscen_journal_hdr *h,
			 const struct kscen_jobs *jobs, struct kscen_journal **out);
/*
 * Open @path to finish its run: fills @h (free with kscen_journal_hdr_fini),
 * drops a torn last record, and replays the recorded samples through
 * kscen_journal_sample() before any new one is taken. -EBUSY (said) while
 * another kscen holds it; -EINVAL (said, with the line) for a damaged
 * header or a "p" record that is not a partial result of this run beside
 * the journal.
 */
int kscen_journal_resume(const char *path, struct kscen_journal_hdr *h,
			 struct kscen_journal **out);
void kscen_journal_hdr_fini(struct kscen_journal_hdr *h);
/*
 * Sample @k of round @round: the recorded outcome while replaying (a
 * damaged record there, or another sample's, cuts the journal: said with
 * its line), otherwise a new sample, appended. @seconds: the runner's time on it, recorded or measured (the
 * job's `seconds`, which shards are balanced by). @j may be NULL: just
 * kscen_sample_isolated().
 */
int kscen_journal_sample(struct kscen_journal *j, unsigned round, unsigned k,
			 const struct kscen_job *job, long long timeout_ns,
			 struct kscen_sample_out *out, double *seconds);
/*
 * The replay of that sample alone: 0 and @out, @seconds filled from the
 * journal, or 1 when there is none to replay (the journal at its end, or
 * cut at a damaged record). What kscen_journal_sample() starts with.
 */
int kscen_journal_replay_next(struct kscen_journal *j, unsigned round, unsigned k,
			      struct kscen_sample_out *out, double *seconds);
/* End of a round: fdatasync. Returns the first write error, sticky. */
int kscen_journal_round_end(struct kscen_journal *j);
int kscen_journal_error(const struct kscen_journal *j);
/* Record that a partial result of this run was saved at @path. */
void kscen_journal_note_result(struct kscen_journal *j, const char *path);
/* The partial result recorded by an earlier, interrupted part of the run. */
const char *kscen_journal_partial(const struct kscen_journal *j);
/* Is @path, still, a partial result of this run beside the journal? */
bool kscen_journal_partial_ok(const struct kscen_journal *j, const char *path);
const char *kscen_journal_path(const struct kscen_journal *j);
unsigned long kscen_journal_replayed(const struct kscen_journal *j);
/* Close; @remove: unlink it too (the complete result is saved). */
void kscen_journal_close(struct kscen_journal *j, bool remove);

/* resume.c: what `kscen run` does with its journal. */
/* Start the journal of a run about to be saved under @results; NULL: none. */
struct kscen_journal *kscen_journal_start(const char *results,
					  const struct kscen_run *run,
					  const struct kscen_run_opts *ro,
					  unsigned long max_jobs,
					  const char *compare,	/* run --compare, as given */
					  const struct kscen_jobs *jobs);
/* The result is saved: remove the journal if @complete, else keep it. */
void kscen_journal_finish(struct kscen_journal *j, const struct kscen_run *run,
			  bool complete);
/* The save failed with @err: say so with the errno; the journal stays. */
void kscen_save_failed(const char *results, int err, struct kscen_journal *j);
/* --resume: open the journal; *@results is where its run is stored. */
int kscen_resume_open(const char *path, struct kscen_journal_hdr *h,
		      struct kscen_journal **j, char **results);
/*
 * A sharded run's jobs on resume: those of the whole plan *@jobs that the
 * journal lists (the shard it was given when it started, whatever the
 * stored runs that balanced it say now); the plan moves to *@all, as
 * cmd_shard_jobs() leaves it.
 */
void kscen_resume_shard(const struct kscen_journal_hdr *h, struct kscen_jobs *jobs,
			struct kscen_jobs *all);
/* Does @s still expand to the journal's jobs? 0 or -EINVAL, said why. */
int kscen_resume_check(const char *path, const struct kscen_journal_hdr *h,
		       const struct kscen_scenario *s, const struct kscen_jobs *jobs);

#endif
