// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_run.c - `kscen run`: options, then the pipe of run.c: load and expand
 * the scenario, take the samples, store the run, report it against its
 * references, and the exit code.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "history.h"
#include "store.h"
#include "report.h"
#include "journal.h"
#include "runner.h"
#include "scenario_load.h"
#include "profile.h"
#include "shard.h"
#include "util.h"
#include "cmd.h"
#include "options.h"
#include "sampler.h"

/*
 * A --compare path must be a result file or a directory of them: anything
 * else (a FIFO, a device, a typo) is refused before the run, not after it.
 */
static int compare_path_ok(const char *ref)
{
	struct stat st;

	if (!strcmp(ref, "last") || !strcmp(ref, "none") || !strncmp(ref, "label:", 6))
		return 0;
	if (stat(ref, &st))
		return cmd_usage_error("run", "--compare: %s: %s", ref, strerror(errno));
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return cmd_usage_error("run", "--compare: %s: not a regular file or "
				   "a directory", ref);
	return 0;
}

static int run_main(int argc, char **argv, bool *bisect);

static int opt_label(const char *cmd, const struct kscen_option *o, const char *arg)
{
	if (!kscen_name_ok(arg))
		return cmd_usage_error(cmd, "--label: '%s' is not a name of letters, "
				       "digits, '_', '.' and '-'", arg);
	*(const char **)o->value = arg;
	return 0;
}

/* Under --bisect every exit code is one `git bisect run` understands. */
int cmd_run(int argc, char **argv)
{
	bool bisect = false;
	int code = run_main(argc, argv, &bisect);

	return bisect && code == EXIT_USAGE ? EXIT_BISECT_SKIP : code;
}

static int run_main(int argc, char **argv, bool *bisect)
{
	unsigned long shards = 0;
	const char *shard = NULL;
	struct kscen_jobs all = { 0 };
	unsigned sk = 0, sn = 0;
	int sharded;
	const char *results = "results", *compare = "last";
	struct kscen_journal_hdr jh = { 0 };
	struct kscen_journal *journal = NULL;
	const char *resume = NULL;
	char *resume_dir = NULL;
	unsigned long max_repeat = 0;
	double gate = 0, until_ci = 0;
	unsigned long repeat = 0, warmup = ULONG_MAX, max_jobs = DEFAULT_MAX_JOBS;
	enum kscen_format fmt = KSCEN_FMT_TEXT;
	struct kscen_run_opts ro = { 0 };
	struct kscen_refs refs;
	struct kscen_ref_spec rs;
	struct kscen_idset want = { 0 };	/* of a stored reference, these jobs */
	char shard_text[32], *balance = NULL;
	struct kscen_run *run;
	struct kscen_scenario *s = NULL;
	struct kscen_jobs jobs;
	const char *label = NULL;
	bool save = true, no_save = false;
	unsigned matched = 0;
	unsigned long total;
	int ret, code = 0, tripped = 0, save_err = 0;
	char *saved_as;

	const struct kscen_option opts[] = {
		OPT_UINT('r', "repeat", &repeat, "N", 1, 1000000,
			 "recorded samples per job (default: the scenario's)"),
		OPT_UINT('w', "warmup", &warmup, "N", 0, 1000000,
			 "discarded samples per job (default: the scenario's)"),
		OPT_STRING('o', "results", &results, "DIR",
			   "where runs are stored (default: results/)"),
		OPT_STRING(0, "filter", &ro.filter, "GLOB",
			   "run only the jobs whose id matches GLOB"),
		OPT_STRING(0, "compare", &compare, "REF",
			   "last (default: per job, the newest complete run on\n"
			   "this host that measured the same), label:NAME, a\n"
			   "directory of runs, a result file, or none"),
		OPT_CALLBACK(0, "label", &label, "NAME",
			     "store the run under a name (--compare label:NAME)", opt_label),
		OPT_STRING(0, "shard", &shard, "K/N",
			   "run only shard K of N (kscen merge joins them); in a\n"
			   "Slurm array or Kubernetes Indexed Job K/N come from\n"
			   "the task index without it"),
		OPT_UINT(0, "shards", &shards, "N", 1, KSCEN_MAX_SHARDS,
			 "the shard count where the environment has only an\n"
			 "index (JOB_COMPLETION_INDEX)"),
		OPT_BOOL(0, "no-save", &no_save, "do not store the run"),
		OPT_FORMAT(&fmt),
		OPT_UINT(0, "max-jobs", &max_jobs, "N", 0, ULONG_MAX / 2,
			 "refuse a larger matrix (default 100000)"),
		OPT_PCT(0, "gate", &gate,
			"exit 1 if a job got worse than its reference by more\n"
			"than PCT%, with its whole 95% CI beyond PCT; exit 2\n"
			"if no job could be compared"),
		OPT_BOOL(0, "bisect", bisect,
			 "exit as `git bisect run` reads it: 0 good, 1 the gate\n"
			 "(default 5%) tripped, 125 cannot tell"),
		OPT_PCT(0, "until-ci", &until_ci,
			"repeat: auto: sample until the median's 95% CI is\n"
			"within +-PCT% (at least 6, at most --max-repeat)"),
		OPT_UINT(0, "max-repeat", &max_repeat, "N", KSCEN_AUTO_MIN_REPEAT, 1000000,
			 "repeat: auto: at most N samples a job (default 30)"),
		OPT_BOOL(0, "profile", &ro.profile,
			 "one more sample per job under a sampling profiler:\n"
			 "top symbols, folded stacks (see profile: in README)"),
		OPT_STRING(0, "resume", &resume, "JOURNAL",
			   "finish a run cut short (SIGKILL, power loss, a\n"
			   "failed save) from its journal, beside its result"),
		OPT_BOOL('q', "quiet", &ro.quiet, "no progress on stderr"),
		OPT_COUNT('v', "verbose", &kscen_verbose, "every sample on stderr"),
		OPT_END(),
	};

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		*bisect |= !strcmp(argv[i], "--bisect");
	optind = kscen_parse_options("run", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	/*
	 * The fork server first, while we are small: a sample's fork then
	 * costs the same whatever the matrix or the reference run holds.
	 */
	kscen_sampler_start();
	save = !no_save;
	if (resume) {
		/* Everything that decides the jobs and rounds is the journal's. */
		if (argc - optind != 0)
			return cmd_usage_error("run", "--resume takes a journal, not a scenario");
		if (kscen_resume_open(resume, &jh, &journal, &resume_dir))
			return EXIT_USAGE;
		results = resume_dir;
		compare = jh.compare;
		label = jh.label ? jh.label : label;	/* an older journal has none */
		ro.profile = ro.profile || jh.profile;
		ro.filter = jh.filter;
		max_jobs = jh.max_jobs;
	} else if (argc - optind != 1) {
		return cmd_usage_error("run", "needs one scenario file");
	} else if (compare_path_ok(compare)) {
		return EXIT_USAGE;
	}
	/* A resumed shard is the journal's: its jobs are those it lists. */
	if (resume)
		sharded = jh.shard && !kscen_shard_parse(jh.shard, &sk, &sn);
	else if ((sharded = cmd_shard_opts("run", shard, shards, &sk, &sn)) < 0)
		return EXIT_USAGE;
	/*
	 * A --filter'ed run holds only the jobs it runs; a shard is cut from
	 * the whole plan first (cmd_shard_jobs() balances it), and filtered
	 * as it runs.
	 */
	if (cmd_load_and_expand_some(resume ? jh.scenario_file : argv[optind], max_jobs,
				     sharded ? NULL : ro.filter, &s, &jobs, &total)) {
		kscen_journal_close(journal, false);
		kscen_journal_hdr_fini(&jh);
		free(resume_dir);
		return EXIT_USAGE;
	}
	if (sharded && resume)
		kscen_resume_shard(&jh, &jobs, &all);
	else if (sharded)
		cmd_shard_jobs(&jobs, &all, sk, sn, results, s->name, &balance);
	if (resume && kscen_resume_check(resume, &jh, s, &jobs)) {
		cmd_jobs_release(&jobs, &all);
		kscen_scenario_free(s);
		kscen_journal_close(journal, false);
		kscen_journal_hdr_fini(&jh);
		free(resume_dir);
		return EXIT_USAGE;
	}
	kscen_run_opts_resolve(&ro, s, repeat, warmup, until_ci, max_repeat);
	if (resume) {
		ro.repeat = jh.repeat;
		ro.warmup = jh.warmup;
		ro.until_ci = jh.until_ci;
		ro.max_repeat = jh.max_repeat;
	}

	/* --bisect judges by the gate: 5% unless told otherwise. */
	if (*bisect && !gate)
		gate = 5;
	for (unsigned i = 0; i < jobs.nr; i++) {
		if (ro.filter && fnmatch(ro.filter, jobs.job[i].id, 0))
			continue;
		kscen_idset_add(&want, jobs.job[i].id);
		matched++;
	}
	kscen_idset_sort(&want);
	if (!matched && ro.filter) {
		fprintf(stderr, "kscen run: --filter '%s' matches none of the %lu "
			"jobs (kscen plan lists them)\n", ro.filter, total);
		code = EXIT_USAGE;
	} else if (kscen_ref_spec_check("run", compare, results, s, &want, &rs)) {
		code = EXIT_USAGE;
	} else if (gate > 0 && rs.kind == KSCEN_REF_NONE) {
		cmd_usage_error("run", "--gate needs a reference: not --compare none");
		code = EXIT_USAGE;
	} else if (save && (ret = kscen_result_dir_ready(results, s->name))) {
		fprintf(stderr, "kscen run: cannot store runs in %s/%s: %s\n",
			results, s->name, strerror(-ret));
		kscen_run_free(rs.file);
		code = EXIT_USAGE;
	}
	if (code) {
		cmd_jobs_release(&jobs, &all);
		kscen_scenario_free(s);
		kscen_idset_free(&want);
		free(balance);
		return code;
	}
	if (sharded)
		snprintf(shard_text, sizeof(shard_text), "%u/%u", sk, sn);
	run = kscen_run_new(s, &ro, label, sharded ? shard_text : NULL,
			    kscen_join_argv(argc + 1, argv - 1));
	run->shard_balance = balance;	/* the run owns it now */
	balance = NULL;

	/*
	 * The first SIGINT, SIGTERM or SIGHUP (a closed terminal, an ssh
	 * session gone) stops the run and keeps it; a second kills.
	 */
	cmd_catch_signals(true);
	run->started = resume ? kscen_xstrdup(jh.started) : kscen_utc_now();
	if (resume)
		run->command = (free(run->command), kscen_xstrdup(jh.command ? jh.command : ""));
	else if (save)
		journal = kscen_journal_start(results, run, &ro, max_jobs, compare, &jobs);
	ro.journal = journal;
	ret = kscen_run_jobs(s, &jobs, &ro, run);
	run->finished = kscen_utc_now();
	if (ret && ret != -EINTR)
		fprintf(stderr, "kscen: run cut short: %s\n", strerror(-ret));

	/*
	 * The references are read now, not during the run, and stored with
	 * it, so that `kscen report` shows what this report shows.
	 */
	kscen_ref_spec_resolve(&rs, results, run, &refs);
	run->compare = kscen_xstrdup(compare);
	for (unsigned i = 0; i < run->nr_jobs && i < refs.nr; i++)
		if (refs.ref[i].run && refs.ref[i].run->path)
			run->jobs[i].reference = kscen_xstrdup(refs.ref[i].run->path);
	/* A journal that outlived its saved result: the runner died between. */
	if (resume && save && !ret && (saved_as = kscen_result_saved_as(run, results))) {
		fprintf(stderr, "kscen: %s: this run was saved as %s, and its runner "
			"ended before it removed the journal; not saved again\n", resume, saved_as);
		free(run->path);
		run->path = saved_as;
	} else if (save && (save_err = kscen_result_save(run, results))) {
		kscen_save_failed(results, save_err, journal);
	}
	if (save && !save_err) {
		kscen_journal_finish(journal, run, ret == 0);
		kscen_profile_save_folded(run);	/* profile.h */
	}
	journal = NULL;
	kscen_report(stdout, run, &refs, fmt);
	if (gate > 0 && fmt == KSCEN_FMT_TEXT)
		fputc('\n', stdout);
	if (gate > 0)
		tripped = kscen_gate(fmt == KSCEN_FMT_JSON || fmt == KSCEN_FMT_CSV ?
				     stderr : stdout, run, &refs, gate);
	/* JSON and CSV stay parseable: the path goes beside them. */
	if (save && run->path)
		fprintf(fmt == KSCEN_FMT_JSON || fmt == KSCEN_FMT_CSV ? stderr :
			stdout, "\nresults: %s\n", run->path);

	code = kscen_run_exit_code(run, ret, tripped, !save_err);
	if (*bisect) {
		code = kscen_run_bisect_code(code, run, &refs, tripped);
		printf("bisect: %s\n", code == 0 ? "good" : code == EXIT_GATE ? "bad" :
		       code == EXIT_BISECT_SKIP ? "cannot tell (skip)" : "interrupted");
	}
	kscen_refs_free(&refs);
	kscen_journal_close(journal, false);
	kscen_journal_hdr_fini(&jh);
	free(resume_dir);
	/*
	 * Interrupted: everything is saved and reported; freeing a large
	 * matrix job by job would take seconds, and the process ends anyway.
	 */
	if (ret == -EINTR) {
		fflush(stdout);
		exit(code);
	}
	kscen_run_free(run);
	cmd_jobs_release(&jobs, &all);
	kscen_scenario_free(s);
	kscen_idset_free(&want);
	kscen_sampler_stop();
	return code;
}

