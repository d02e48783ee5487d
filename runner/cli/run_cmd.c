// SPDX-License-Identifier: GPL-2.0
/*
 * run_cmd.c - one run, as `kscen run` and `kscen ab` make it, in phases:
 * load and expand, check, a new run, its samples, store, report and the
 * exit code; one cleanup frees what any of them made. The work is the
 * stages': sample/run.c (options resolved, the run made, its samples,
 * the exit code), store/ (references, saving), report/ (the report, the
 * gate), sample/resume.c (the journal).
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "expand/shard.h"
#include "lib/util.h"
#include "store/profile.h"
#include "store/store.h"
#include "scenario/scenario_load.h"
#include "cmd.h"
#include "run.h"
#include "run_cmd.h"

void run_cmd_init(struct run_cmd *rc, const char *cmd)
{
	memset(rc, 0, sizeof(*rc));
	rc->cmd = cmd;
	rc->results = "results";
	rc->compare = "last";
	rc->warmup = ULONG_MAX;
	rc->max_jobs = DEFAULT_MAX_JOBS;
	rc->fmt = KSCEN_FMT_TEXT;
}

/*
 * A --compare path must be a result file or a directory of them: anything
 * else (a FIFO, a device, a typo) is refused before the run, not after it.
 */
static int compare_path_ok(const struct run_cmd *rc)
{
	const char *ref = rc->compare;
	struct stat st;

	if (!strcmp(ref, "last") || !strcmp(ref, "none") || !strncmp(ref, "label:", 6))
		return 0;
	if (stat(ref, &st))
		return cmd_usage_error(rc->cmd, "--compare: %s: %s", ref, strerror(errno));
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return cmd_usage_error(rc->cmd, "--compare: %s: not a regular file or "
				       "a directory", ref);
	return 0;
}

/* --resume: everything that decides the jobs and rounds is the journal's. */
static int resume_open(struct run_cmd *rc)
{
	struct kscen_journal_hdr *jh = &rc->jh;

	if (kscen_resume_open(rc->resume, jh, &rc->journal, &rc->resume_dir))
		return EXIT_USAGE;
	rc->results = rc->resume_dir;
	rc->compare = jh->compare;
	rc->label = jh->label ? jh->label : rc->label;	/* an older journal has none */
	rc->ro.profile = rc->ro.profile || jh->profile;
	rc->ro.noise = jh->noise;
	rc->ro.filter = jh->filter;
	rc->max_jobs = jh->max_jobs;
	/* A resumed shard is the journal's: its jobs are those it lists. */
	rc->sharded = jh->shard && !kscen_shard_parse(jh->shard, &rc->sk, &rc->sn);
	return 0;
}

/* The scenario: rc->src's text, stdin for "-", or the file @path. */
static int load_scenario(struct run_cmd *rc, const char *path)
{
	struct cmd_run_source *src = rc->src;

	if (src)
		return kscen_scenario_load_text(src->name, src->dir, src->text,
						strlen(src->text), &rc->s) ? -EINVAL : 0;
	return cmd_scenario_load(path, &rc->s);
}

int run_cmd_load(struct run_cmd *rc, const char *path)
{
	int ret;

	if (rc->resume && path)
		return cmd_usage_error(rc->cmd, "--resume takes a journal, not a scenario");
	if (!rc->resume && !path && !rc->src)
		return cmd_usage_error(rc->cmd, "needs one scenario file (- reads it from stdin)");
	if (rc->resume) {
		if (resume_open(rc))
			return EXIT_USAGE;
		/* a scenario from no file (stdin, exec, rerun): the kept text */
		path = rc->jh.scenario_copy ? rc->jh.scenario_copy : rc->jh.scenario_file;
	} else if (compare_path_ok(rc)) {
		return EXIT_USAGE;
	} else if ((rc->sharded = cmd_shard_opts(rc->cmd, rc->shard, rc->shards,
						 &rc->sk, &rc->sn)) < 0) {
		return EXIT_USAGE;
	}
	if (load_scenario(rc, path))
		return EXIT_USAGE;
	/*
	 * A run holds only the jobs it runs: those --filter matches, or a
	 * shard's, cut from the whole plan (cmd_shard_expand() balances it) and
	 * filtered as it runs; a resumed shard's are those its journal lists.
	 */
	if (rc->sharded) {
		struct cmd_shard sh = {
			.k = rc->sk, .n = rc->sn, .max_jobs = rc->max_jobs,
			.results = rc->results,
			.ids = rc->resume ? rc->jh.ids : NULL, .nr_ids = rc->jh.nr_ids,
		};

		ret = cmd_shard_expand(&rc->s, &sh, &rc->jobs, &rc->total, &rc->balance);
	} else {
		ret = cmd_expand_some(rc->s, rc->max_jobs,
				      rc->whole_plan ? NULL : rc->ro.filter,
				      &rc->jobs, &rc->total);
		if (ret)
			rc->s = NULL;	/* freed */
	}
	if (ret)
		return EXIT_USAGE;
	if (rc->src && rc->src->check && rc->src->check(rc->src, &rc->jobs))
		return EXIT_USAGE;
	if (rc->resume && kscen_resume_check(rc->resume, &rc->jh, rc->s, &rc->jobs))
		return EXIT_USAGE;
	kscen_run_opts_resolve(&rc->ro, rc->s, rc->repeat, rc->warmup, rc->until_ci,
			       rc->max_repeat);
	if (rc->resume) {
		rc->ro.repeat = rc->jh.repeat;
		rc->ro.warmup = rc->jh.warmup;
		rc->ro.until_ci = rc->jh.until_ci;
		rc->ro.max_repeat = rc->jh.max_repeat;
	}
	return 0;
}

int run_cmd_check(struct run_cmd *rc)
{
	unsigned matched = 0;
	int ret;

	/* --bisect judges by the gate: 5% unless told otherwise. */
	if (rc->bisect && !rc->gate && !rc->fdr)
		rc->gate = 5;
	for (unsigned i = 0; i < rc->jobs.nr; i++) {
		if (rc->ro.filter && fnmatch(rc->ro.filter, rc->jobs.job[i].id, 0))
			continue;
		kscen_idset_add(&rc->want, rc->jobs.job[i].id);
		matched++;
	}
	kscen_idset_sort(&rc->want);
	if (!matched && rc->ro.filter)
		return cmd_no_match(rc->cmd, "--filter", rc->ro.filter, rc->s->file);
	if (kscen_ref_spec_check(rc->cmd, rc->compare, rc->results, rc->s, &rc->want,
				 &rc->rs))
		return EXIT_USAGE;
	if ((rc->gate > 0 || rc->fdr > 0) && rc->rs.kind == KSCEN_REF_NONE)
		return cmd_usage_error(rc->cmd, "--gate needs a reference: not --compare none");
	if (!rc->no_save && !rc->dry_run && (ret = kscen_result_dir_ready(rc->results, rc->s->name))) {
		fprintf(stderr, "kscen %s: cannot store runs in %s/%s: %s\n",
			rc->cmd, rc->results, rc->s->name, strerror(-ret));
		return EXIT_USAGE;
	}
	return 0;
}

void run_cmd_new(struct run_cmd *rc, int argc, char **argv)
{
	char shard[32];

	if (rc->sharded)
		snprintf(shard, sizeof(shard), "%u/%u", rc->sk, rc->sn);
	rc->run = kscen_run_new(rc->s, &rc->ro, rc->label, rc->sharded ? shard : NULL,
				rc->src && rc->src->command ? rc->src->command :
				kscen_join_argv(argc + 1, argv - 1));
	if (rc->src)
		rc->src->command = NULL;	/* the run's now */
	if (rc->src && rc->src->file)
		rc->run->scenario_file = (free(rc->run->scenario_file),
					  kscen_xstrdup(rc->src->file));
	rc->run->shard_balance = rc->balance;	/* the run owns it now */
	rc->balance = NULL;
	if (!rc->ro.quiet && rc->run->system_check &&
	    strcmp(rc->run->system_check, "nothing off"))
		fprintf(stderr, "kscen: system check: %s (kscen system check says "
			"what each does)\n", rc->run->system_check);
}

void run_cmd_take(struct run_cmd *rc)
{
	struct kscen_run *run = rc->run;

	/*
	 * The first SIGINT, SIGTERM or SIGHUP (a closed terminal, an ssh
	 * session gone) stops the run and keeps it; a second kills.
	 */
	cmd_catch_signals(true);
	run->started = rc->resume ? kscen_xstrdup(rc->jh.started) : kscen_utc_now();
	if (rc->resume && rc->jh.scenario_copy)	/* what it was, not where it is kept */
		run->scenario_file = (free(run->scenario_file),
				      kscen_xstrdup(rc->jh.scenario_file));
	if (rc->resume)
		run->command = (free(run->command),
				kscen_xstrdup(rc->jh.command ? rc->jh.command : ""));
	else if (!rc->no_save && !rc->ro.sample)	/* what it keeps is taken here */
		rc->journal = kscen_journal_start(rc->results, run, &rc->ro, rc->max_jobs,
						  rc->compare, &rc->jobs);
	rc->ro.journal = rc->journal;
	rc->ret = kscen_run_jobs(rc->s, &rc->jobs, &rc->ro, run);
	run->finished = kscen_utc_now();
	if (rc->ret && rc->ret != -EINTR)
		fprintf(stderr, "kscen: run cut short: %s\n", strerror(-rc->ret));
}

void run_cmd_store(struct run_cmd *rc)
{
	struct kscen_run *run = rc->run;
	bool save = !rc->no_save;
	char *saved_as;

	/*
	 * The references are read now, not during the run, and stored with
	 * it, so that `kscen report` shows what this report shows.
	 */
	kscen_ref_spec_resolve(&rc->rs, rc->results, run, &rc->refs);
	run->compare = kscen_xstrdup(rc->compare);
	for (unsigned i = 0; i < run->nr_jobs && i < rc->refs.nr; i++)
		if (rc->refs.ref[i].run && rc->refs.ref[i].run->path)
			run->jobs[i].reference = kscen_xstrdup(rc->refs.ref[i].run->path);
	/* A journal that outlived its saved result: the runner died between. */
	if (rc->resume && save && !rc->ret &&
	    (saved_as = kscen_result_saved_as(run, rc->results))) {
		fprintf(stderr, "kscen: %s: this run was saved as %s, and its runner "
			"ended before it removed the journal; not saved again\n",
			rc->resume, saved_as);
		free(run->path);
		run->path = saved_as;
	} else if (save && (rc->save_err = kscen_result_save(run, rc->results))) {
		kscen_save_failed(rc->results, rc->save_err, rc->journal);
		rc->journal = NULL;	/* closed, kept */
	}
	if (save && !rc->save_err) {
		kscen_journal_finish(rc->journal, run, rc->ret == 0);
		rc->journal = NULL;	/* closed, removed or kept */
		kscen_profile_save_folded(run);	/* profile.h */
	}
}

int run_cmd_report(struct run_cmd *rc)
{
	struct kscen_run *run = rc->run;
	bool parseable = rc->fmt == KSCEN_FMT_JSON || rc->fmt == KSCEN_FMT_CSV;
	int code;

	kscen_report(stdout, run, &rc->refs, rc->fmt);
	if ((rc->gate > 0 || rc->fdr > 0) && rc->fmt == KSCEN_FMT_TEXT)
		fputc('\n', stdout);
	if (rc->gate > 0 || rc->fdr > 0)
		rc->tripped = kscen_gate(parseable ? stderr : stdout, run, &rc->refs,
					 rc->gate, rc->fdr);
	/*
	 * Where the run went is for the person at the terminal, never part of
	 * the report: `> mail.txt` takes the report alone, in every format.
	 */
	if (!rc->no_save && run->path) {
		fflush(stdout);
		fprintf(stderr, "\nresults: %s\n", run->path);
	}
	code = kscen_run_exit_code(run, rc->ret, rc->tripped, !rc->save_err);
	if (rc->bisect) {
		code = kscen_run_bisect_code(code, run, &rc->refs, rc->tripped);
		/* JSON and CSV stay parseable: the verdict goes beside them. */
		fflush(stdout);
		fprintf(parseable ? stderr : stdout,
			"bisect: %s\n", code == 0 ? "good" : code == EXIT_GATE ? "bad" :
			code == EXIT_BISECT_SKIP ? "cannot tell (skip)" : "interrupted");
	}
	return code;
}

void run_cmd_fini(struct run_cmd *rc)
{
	kscen_refs_free(&rc->refs);
	kscen_run_free(rc->rs.file);
	kscen_journal_close(rc->journal, false);
	kscen_journal_hdr_fini(&rc->jh);
	free(rc->resume_dir);
	if (rc->run)
		kscen_run_free(rc->run);
	kscen_jobs_free(&rc->jobs);
	if (rc->s)
		kscen_scenario_free(rc->s);
	kscen_idset_free(&rc->want);
	free(rc->balance);
	memset(rc, 0, sizeof(*rc));
}
