// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - `kscen run`: its options, then the phases of a run (run_cmd.c,
 * which `kscen ab` goes through too): load and expand the scenario, check,
 * take the samples, store the run, report it against its references, and
 * the exit code; one cleanup. `kscen exec` and `kscen rerun` come here too
 * (cmd_run_from(), run.h) with a scenario built from their arguments.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand/shard.h"
#include "lib/child.h"
#include "lib/util.h"
#include "sample/noise.h"
#include "sample/sampler.h"
#include "scenario/scenario_load.h"
#include "cmd.h"
#include "options.h"
#include "run.h"
#include "run_cmd.h"

/* Under --bisect every exit code is one `git bisect run` understands. */
static int bisect_code(bool bisect, int code)
{
	if (!bisect || code != EXIT_USAGE)
		return code;
	/* Refused before running: said on stderr, and the verdict last. */
	printf("bisect: cannot tell (skip)\n");
	return EXIT_BISECT_SKIP;
}

/*
 * @argv's options by run's table @opts, and before them @src's own;
 * run's --shard, --shards and --resume are a scenario file's only.
 */
static int parse_options(struct cmd_run_source *src, int argc, char **argv,
			 const struct kscen_option *opts)
{
	struct kscen_option all[64];
	unsigned n = 0;

	if (!src)
		return kscen_parse_options("run", argc, argv, opts, 0);
	for (const struct kscen_option *o = src->opts; o && o->type != KSCEN_OPT_END; o++)
		all[n++] = *o;
	for (const struct kscen_option *o = opts; o->type != KSCEN_OPT_END; o++)
		if (n + 1 < ARRAY_SIZE(all) && (!o->long_name ||
		    (strcmp(o->long_name, "shard") && strcmp(o->long_name, "shards") &&
		     strcmp(o->long_name, "resume"))))
			all[n++] = *o;
	all[n] = (struct kscen_option)OPT_END();
	return kscen_parse_options(src->cmd, argc, argv, all, 0);
}

/*
 * kscen rerun: the stored run's own samples per job, repeat: auto and
 * --filter, where the command line gives none, and the run itself as the
 * reference unless --compare names another.
 */
static void like_stored(struct run_cmd *rc, const struct kscen_run *like,
			const char *compare_default)
{
	if (!rc->repeat && !rc->until_ci) {
		rc->until_ci = like->until_ci;
		rc->max_repeat = rc->max_repeat ? rc->max_repeat : like->max_repeat;
		rc->repeat = like->until_ci > 0 ? 0 : like->repeat;
	}
	if (rc->warmup == ULONG_MAX)
		rc->warmup = like->warmup;
	if (!rc->ro.filter)
		rc->ro.filter = like->filter;
	if (rc->compare == compare_default)
		rc->compare = like->path;
}

static int opt_noise(const char *cmd, const struct kscen_option *o, const char *arg)
{
	enum kscen_noise_policy pol = kscen_noise_parse(arg);

	if (!pol)
		return cmd_usage_error(cmd, "--noise: '%s' is not flag, retake or drop", arg);
	*(enum kscen_noise_policy *)o->value = pol;
	return 0;
}

/* The phases of the run (run_cmd.c), @first the first argument; its exit code. */
static int run_phases(struct run_cmd *rc, int argc, char **argv, int first)
{
	int code;

	if (!rc->resume && !rc->src && argc - first != 1)
		return cmd_usage_error(rc->cmd, "needs one scenario file (- reads it from stdin)");
	if (rc->dry_run && rc->resume)
		return cmd_usage_error(rc->cmd, "--dry-run lists a scenario's jobs, not a "
				       "journal's");
	if ((code = run_cmd_load(rc, !rc->src && first < argc ? argv[first] : NULL)) ||
	    (code = run_cmd_check(rc)))
		return code;
	if (rc->dry_run) {	/* the jobs the rounds would take, nothing made */
		cmd_print_jobs(&rc->jobs, rc->ro.filter, rc->sk, rc->sn, rc->total,
			       rc->balance);
		return 0;
	}
	run_cmd_new(rc, argc, argv);
	run_cmd_take(rc);
	run_cmd_store(rc);
	return run_cmd_report(rc);
}

static int run_main(struct cmd_run_source *src, int argc, char **argv)
{
	struct run_cmd rc;
	const struct kscen_option opts[] = {
		OPT__REPEAT(&rc.repeat, "recorded samples per job (default: the scenario's)"),
		OPT__WARMUP(&rc.warmup, "discarded samples per job (default: the scenario's)"),
		OPT__RESULTS(&rc.results, "where runs are stored (default: results/)"),
		OPT__FILTER(&rc.ro.filter, "run only the jobs whose id matches GLOB"),
		OPT_STRING(0, "compare", &rc.compare, "REF",
			   "last (default: per job, the newest complete run on\n"
			   "this host that measured the same), label:NAME, a\n"
			   "directory of runs, a result file, or none"),
		OPT_CALLBACK(0, "label", &rc.label, "NAME",
			     "store the run under a name (--compare label:NAME)", cmd_opt_name),
		OPT_STRING(0, "shard", &rc.shard, "K/N",
			   "run only shard K of N (kscen merge joins them); in a\n"
			   "Slurm array or Kubernetes Indexed Job K/N come from\n"
			   "the task index without it"),
		OPT__SHARDS(&rc.shards, "the shard count where the environment has only an\n"
			    "index (JOB_COMPLETION_INDEX)"),
		OPT__NO_SAVE(&rc.no_save),
		OPT_FORMAT(&rc.fmt),
		OPT__MAX_JOBS(&rc.max_jobs),
		OPT_PCT(0, "gate", &rc.gate,
			"exit 1 if a job got worse than its reference by more\n"
			"than PCT%, with its whole 95% interval beyond PCT; 125\n"
			"if a job has no run-to-run estimate; 2 if none compared"),
		OPT_CALLBACK(0, "gate-fdr", &rc.fdr, "Q",
			     "the same gate on q-values: a job worse with q <= Q\n"
			     "(Benjamini-Hochberg over the jobs compared)", cmd_opt_fdr),
		OPT_BOOL(0, "bisect", &rc.bisect,
			 "exit as `git bisect run` reads it: 0 good, 1 the gate\n"
			 "(default 5%) tripped, 125 cannot tell"),
		OPT_PCT(0, "until-ci", &rc.until_ci,
			"repeat: auto: sample until the median's 95% CI is\n"
			"within +-PCT% (at least 6, at most --max-repeat)"),
		OPT_UINT(0, "max-repeat", &rc.max_repeat, "N", KSCEN_AUTO_MIN_REPEAT, 1000000,
			 "repeat: auto: at most N samples a job (default 30)"),
		OPT_CALLBACK(0, "noise", &rc.ro.noise, "POLICY",
			     "what a sample the sentinels call disturbed does,\n"
			     "for every job: flag (keep it, say so), retake (take\n"
			     "it again, up to 3 times) or drop (default: the\n"
			     "scenario's noise:, else flag)", opt_noise),
		OPT_BOOL(0, "profile", &rc.ro.profile,
			 "one more sample per job under a sampling profiler:\n"
			 "top symbols, folded stacks (profile: in\n"
			 "kscen-scenario(5))"),
		OPT_STRING(0, "resume", &rc.resume, "JOURNAL",
			   "finish a run cut short (SIGKILL, power loss, a\n"
			   "failed save) from its journal, beside its result"),
		OPT_BOOL('n', "dry-run", &rc.dry_run,
			 "take nothing: list the jobs the run would take, in\n"
			 "order, as kscen plan does, and their number"),
		OPT__QUIET(&rc.ro.quiet, "no progress on stderr"),
		OPT__VERBOSE(&kscen_verbose, "every sample on stderr"),
		OPT_END(),
	};
	bool bisect = false;
	const char *compare_default;
	int first, code;

	run_cmd_init(&rc, src ? src->cmd : "run");
	rc.src = src;
	compare_default = rc.compare;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		bisect |= !strcmp(argv[i], "--bisect");
	first = parse_options(src, argc, argv, opts);
	if (first < 0) {
		code = first == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	} else if (src && src->build(src, argc - first, argv + first)) {
		code = EXIT_USAGE;
	} else {
		if (src && src->like)
			like_stored(&rc, src->like, compare_default);
		/*
		 * The fork server first, while we are small: a sample's fork then
		 * costs the same whatever the matrix or the reference run holds.
		 */
		kscen_noise_init();	/* inherited by the server's samples */
		if (!rc.dry_run) {
			kscen_harness_pin();	/* child.h: why */
			kscen_sampler_start();
		}
		code = run_phases(&rc, argc, argv, first);
	}
	/*
	 * Interrupted: everything is saved and reported; freeing a large
	 * matrix job by job would take seconds, and the process ends anyway.
	 */
	if (rc.ret == -EINTR) {
		fflush(stdout);
		exit(code);
	}
	run_cmd_fini(&rc);
	kscen_sampler_stop();
	return bisect_code(bisect, code);
}

int cmd_run(int argc, char **argv)
{
	return run_main(NULL, argc, argv);
}

int cmd_run_from(struct cmd_run_source *src, int argc, char **argv)
{
	int code = run_main(src, argc, argv);

	free(src->text);
	free(src->name);
	free(src->dir);
	free(src->command);
	free(src->file);
	return code;
}
