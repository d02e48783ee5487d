// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the command line: one table of subcommands, each with its
 * function and one-line summary, from which `kscen --help` is generated.
 *
 * Exit codes (PRODUCT.md): 0 success, skips included; 1 a regression gate
 * tripped; 2 invalid usage or input, nothing run; 3 some job failed; 4 the
 * results could not be saved (the journal keeps them); 128 + N killed by
 * signal N (SIGINT 130, SIGTERM 143), what was taken kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "history.h"
#include "store.h"
#include "util.h"
#include "report.h"
#include "journal.h"
#include "runner.h"
#include "scenario_load.h"
#include "profile.h"
#include "vm.h"
#include "shard.h"

#define EXIT_GATE 1
#define EXIT_USAGE 2
#define EXIT_FAILED_JOBS 3
#define EXIT_NOT_SAVED 4
#define EXIT_BISECT_SKIP 125	/* git bisect run: cannot tell */
#define DEFAULT_MAX_JOBS 100000UL


struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;
	const char *summary;
	const char *options;	/* the help text of its options */
};

static const struct cmd *find_cmd(const char *name);
int kscen_cmd_history(int argc, char **argv);	/* cmd_history.c */

static int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kscen %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'kscen %s --help'.\n", cmd);
	return EXIT_USAGE;
}

static void cmd_help(const struct cmd *c, FILE *out)
{
	fprintf(out, "usage: kscen %s %s\n\n%s\n", c->name, c->args, c->summary);
	if (c->options && *c->options)
		fprintf(out, "\noptions:\n%s", c->options);
}

/* Strict non-negative integer for an option. */
static int opt_uint(const char *cmd, const char *opt, const char *arg,
		    unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	if (!*arg || *arg == '-' || *arg == '+')
		goto bad;
	*out = strtoul(arg, &end, 10);
	if (errno || *end || *out > max)
		goto bad;
	return 0;
bad:
	usage_error(cmd, "%s: '%s' is not a whole number up to %lu", opt, arg, max);
	return -EINVAL;
}

static int parse_format(const char *cmd, const char *arg, enum kscen_format *f)
{
	static const char *const names[] = { "text", "markdown", "json", "csv" };

	for (unsigned i = 0; i < 4; i++)
		if (strcmp(arg, names[i]) == 0) {
			*f = (enum kscen_format)i;
			return 0;
		}
	usage_error(cmd, "--format: '%s' is not text, markdown, json or csv", arg);
	return -EINVAL;
}

/* --gate PCT, --until-ci PCT: "5", "5%", "2.5%". */
static int opt_pct(const char *cmd, const char *opt, const char *arg,
		   double *out)
{
	if (!kscen_parse_pct(arg, out))
		return 0;
	usage_error(cmd, "%s: '%s' is not a percentage above 0 and up to 100",
		    opt, arg);
	return -EINVAL;
}

/* ---- validate, plan ---------------------------------------------------- */

static int load_and_expand(const char *path, unsigned long max_jobs,
			   struct kscen_scenario **s, struct kscen_jobs *jobs)
{
	if (kscen_scenario_load(path, s))
		return -EINVAL;
	if (kscen_expand(*s, max_jobs, jobs)) {
		kscen_scenario_free(*s);
		*s = NULL;
		return -EINVAL;
	}
	return 0;
}

#define HELP_OPT { "help", no_argument, NULL, 'h' }

/*
 * --shard K/N, or the job array's index (--shards N gives the count where
 * the environment has none): 1 and *k, *n set; 0 not sharded; -1 usage.
 */
static int shard_opts(const char *cmd, const char *shard, unsigned long shards,
		      unsigned *k, unsigned *n)
{
	char err[256] = "";
	int r;

	if (shard) {
		if (kscen_shard_parse(shard, k, n) == 0)
			return 1;
		usage_error(cmd, "--shard: '%s' is not K/N with 1 <= K <= N <= %u",
			    shard, KSCEN_MAX_SHARDS);
		return -1;
	}
	r = kscen_shard_env(shards, k, n, err, sizeof(err));
	if (r < 0)
		usage_error(cmd, "%s", err);
	else if (!r && shards)
		usage_error(cmd, "--shards N needs a task index: JOB_COMPLETION_INDEX "
			    "or SLURM_ARRAY_TASK_ID (or use --shard K/N)");
	return r < 0 || (!r && shards) ? -1 : r;
}

/* Keep shard @k of @n of *@jobs; the whole plan moves to *@all. */
static void shard_jobs(struct kscen_jobs *jobs, struct kscen_jobs *all,
		       unsigned k, unsigned n)
{
	bool *sel = kscen_xcalloc(jobs->nr + 1, sizeof(*sel));

	*all = *jobs;
	kscen_shard_select(all, k, n, sel);
	kscen_jobs_subset(all, sel, jobs);
	free(sel);
}

/* kscen_jobs_free() for a plan that shard_jobs() may have sliced. */
static void jobs_release(struct kscen_jobs *jobs, struct kscen_jobs *all)
{
	if (all->job) {
		free(jobs->job);
		kscen_jobs_free(all);
	} else {
		kscen_jobs_free(jobs);
	}
}

static int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = { HELP_OPT, { 0 } };
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h')
			return cmd_help(find_cmd("validate"), stdout), 0;
		return usage_error("validate", "unknown option");
	}
	if (optind == argc)
		return usage_error("validate", "needs at least one scenario file");
	for (int i = optind; i < argc; i++) {
		struct kscen_scenario *s;
		struct kscen_jobs jobs;

		if (load_and_expand(argv[i], DEFAULT_MAX_JOBS, &s, &jobs)) {
			bad++;
			continue;
		}
		printf("%s: ok, %u jobs\n", argv[i], jobs.nr);
		kscen_jobs_free(&jobs);
		kscen_scenario_free(s);
	}
	return bad ? EXIT_USAGE : 0;
}

static int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		HELP_OPT,
		{ "max-jobs", required_argument, NULL, 'M' },
		{ "filter", required_argument, NULL, 'f' },
		{ "shard", required_argument, NULL, 'S' },
		{ "shards", required_argument, NULL, 'N' },
		{ 0 },
	};
	unsigned long max_jobs = DEFAULT_MAX_JOBS, shards = 0;
	const char *filter = NULL, *shard = NULL;
	struct kscen_scenario *s;
	struct kscen_jobs jobs, all = { 0 };
	unsigned shown = 0, sk = 0, sn = 0;
	int c, sharded;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return cmd_help(find_cmd("plan"), stdout), 0;
		case 'M':
			if (opt_uint("plan", "--max-jobs", optarg, ULONG_MAX / 2, &max_jobs))
				return EXIT_USAGE;
			break;
		case 'f':
			filter = optarg;
			break;
		case 'S':
			shard = optarg;
			break;
		case 'N':
			if (opt_uint("plan", "--shards", optarg, KSCEN_MAX_SHARDS, &shards) ||
			    !shards)
				return shards ? EXIT_USAGE : usage_error("plan", "--shards: at least 1");
			break;
		default:
			return usage_error("plan", "unknown option");
		}
	}
	if (argc - optind != 1)
		return usage_error("plan", "needs one scenario file");
	if ((sharded = shard_opts("plan", shard, shards, &sk, &sn)) < 0)
		return EXIT_USAGE;
	if (load_and_expand(argv[optind], max_jobs, &s, &jobs))
		return EXIT_USAGE;
	if (sharded)
		shard_jobs(&jobs, &all, sk, sn);
	for (unsigned i = 0; i < jobs.nr; i++) {
		if (filter && fnmatch(filter, jobs.job[i].id, 0))
			continue;
		printf("%s\n", jobs.job[i].id);
		shown++;
	}
	if (sharded)
		printf("%u jobs (shard %u/%u of %u jobs)\n", shown, sk, sn, all.nr);
	else
		printf("%u jobs\n", shown);
	jobs_release(&jobs, &all);
	kscen_scenario_free(s);
	return 0;
}

/* ---- run --------------------------------------------------------------- */

/* The first SIGINT/SIGTERM stops the run and keeps it; a second kills. */
static void on_signal(int sig)
{
	if (kscen_interrupted) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	kscen_interrupted = sig;
}

/* The command line as one string, quoted where a shell would need it. */
static char *join_argv(int argc, char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	s = p = kscen_xmalloc(len);
	for (int i = 0; i < argc; i++) {
		bool plain = *argv[i] && strspn(argv[i],
			"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			"_-./=:,+@%") == strlen(argv[i]);

		if (i)
			*p++ = ' ';
		if (plain) {
			p = stpcpy(p, argv[i]);
			continue;
		}
		*p++ = '\'';
		for (const char *a = argv[i]; *a; a++)
			p = *a == '\'' ? stpcpy(p, "'\\''") : (*p = *a, p + 1);
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}

/*
 * --compare REF: "last" (default: per job, the newest complete run from
 * this host that measured the same thing), "none", "label:NAME" (the same
 * among the runs labelled NAME, from any host), a directory of runs (the
 * same, from any host) or a result file. Checked before anything runs: a
 * reference that cannot be had is exit 2, never a run compared with nothing.
 */
struct ref_spec {
	enum { REF_LAST, REF_NONE, REF_LABEL, REF_DIR, REF_FILE } kind;
	const char *arg;	/* the label, directory or file */
	struct kscen_run *file;	/* REF_FILE, loaded */
};

static int ref_check(const char *cmd, const char *ref, const char *results,
		     const struct kscen_scenario *s, struct ref_spec *rs)
{
	struct kscen_history h;
	struct stat st;
	char *dir;
	int found = 0;

	memset(rs, 0, sizeof(*rs));
	if (!strcmp(ref, "last") || !strcmp(ref, "none")) {
		rs->kind = !strcmp(ref, "last") ? REF_LAST : REF_NONE;
		return 0;
	}
	if (!strncmp(ref, "label:", 6)) {
		rs->kind = REF_LABEL;
		rs->arg = ref + 6;
		dir = kscen_xasprintf("%s/%s", results, s->name);
		kscen_history_load(dir, s->name, NULL, NULL, &h);
		for (unsigned i = 0; i < h.nr; i++)
			found += h.run[i]->label && !strcmp(h.run[i]->label, rs->arg);
		kscen_history_free(&h);
		if (!found)
			fprintf(stderr, "kscen %s: --compare %s: no complete run "
				"labelled '%s' in %s\n", cmd, ref, rs->arg, dir);
		free(dir);
		return found ? 0 : -EINVAL;
	}
	rs->arg = ref;
	if (stat(ref, &st)) {
		fprintf(stderr, "kscen %s: --compare %s: %s\n", cmd, ref,
			strerror(errno));
		return -EINVAL;
	}
	if (S_ISDIR(st.st_mode)) {
		rs->kind = REF_DIR;
		return 0;
	}
	rs->kind = REF_FILE;
	if (kscen_result_load(ref, &rs->file)) {
		fprintf(stderr, "kscen %s: --compare %s: not a kscen result\n",
			cmd, ref);
		return -EINVAL;
	}
	if (strcmp(rs->file->scenario, s->name)) {
		fprintf(stderr, "kscen %s: --compare %s: a run of scenario '%s', "
			"not '%s'\n", cmd, ref, rs->file->scenario, s->name);
		kscen_run_free(rs->file);
		rs->file = NULL;
		return -EINVAL;
	}
	return 0;
}

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
		return usage_error("run", "--compare: %s: %s", ref, strerror(errno));
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return usage_error("run", "--compare: %s: not a regular file or "
				   "a directory", ref);
	return 0;
}

/* After the run: each job's reference and drift (history.c). */
static void ref_resolve(struct ref_spec *rs, const char *results,
			const struct kscen_run *run, struct kscen_refs *refs)
{
	char *dir;

	memset(refs, 0, sizeof(*refs));
	switch (rs->kind) {
	case REF_NONE:
		return;
	case REF_FILE:
		kscen_refs_single(refs, run, rs->file);
		rs->file = NULL;
		return;
	case REF_DIR:
		kscen_refs_history(refs, run, rs->arg, NULL, NULL);
		return;
	case REF_LAST:
	case REF_LABEL:
		dir = kscen_xasprintf("%s/%s", results, run->scenario);
		kscen_refs_history(refs, run, dir, rs->kind == REF_LAST ?
				   run->system.hostname : NULL,
				   rs->kind == REF_LABEL ? rs->arg : NULL);
		free(dir);
		return;
	}
}

/*
 * --bisect: what `git bisect run` reads: 0 good, 1 bad (the gate tripped),
 * 125 cannot tell (failed or skipped jobs, no reference, too few samples,
 * invalid input); 128 and above only for a signal, which aborts a bisect.
 */
static int bisect_code(int code, const struct kscen_run *run,
		       const struct kscen_refs *refs, int gate)
{
	if (code == 128 + SIGINT || code == 128 + SIGTERM)
		return code;
	if (code && code != EXIT_GATE)
		return EXIT_BISECT_SKIP;
	for (unsigned i = 0; i < run->nr_jobs; i++) {
		struct kscen_change c;

		if (run->jobs[i].status != KSCEN_OK)
			return EXIT_BISECT_SKIP;
		if (!kscen_ref_change(refs, run, i, &c) || !c.ci_valid)
			return EXIT_BISECT_SKIP;
	}
	return gate > 0 ? EXIT_GATE : gate < 0 ? EXIT_BISECT_SKIP : 0;
}

static int run_main(int argc, char **argv, bool *bisect);

/* Under --bisect every exit code is one `git bisect run` understands. */
static int cmd_run(int argc, char **argv)
{
	bool bisect = false;
	int code = run_main(argc, argv, &bisect);

	return bisect && code == EXIT_USAGE ? EXIT_BISECT_SKIP : code;
}

static int run_main(int argc, char **argv, bool *bisect)
{
	static const struct option opts[] = {
		HELP_OPT,
		{ "label", required_argument, NULL, 'L' },
		{ "bisect", no_argument, NULL, 'B' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "results", required_argument, NULL, 'o' },
		{ "filter", required_argument, NULL, 'f' },
		{ "compare", required_argument, NULL, 'c' },
		{ "no-save", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "max-jobs", required_argument, NULL, 'M' },
		{ "format", required_argument, NULL, 'F' },
		{ "gate", required_argument, NULL, 'g' },
		{ "until-ci", required_argument, NULL, 'u' },
		{ "max-repeat", required_argument, NULL, 'm' },
		{ "profile", no_argument, NULL, 'P' },
		{ "resume", required_argument, NULL, 'R' },
		{ "shard", required_argument, NULL, 'S' },
		{ "shards", required_argument, NULL, 'N' },
		{ 0 },
	};
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
	struct ref_spec rs;
	struct kscen_run *run;
	struct kscen_scenario *s = NULL;
	struct kscen_jobs jobs;
	const char *label = NULL;
	bool save = true;
	unsigned matched = 0;
	int c, ret, code = 0, tripped = 0, save_err = 0;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		*bisect |= !strcmp(argv[i], "--bisect");
	while ((c = getopt_long(argc, argv, "+hr:w:o:qv", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return cmd_help(find_cmd("run"), stdout), 0;
		case 'L':
			if (!kscen_name_ok(optarg))
				return usage_error("run", "--label: '%s' is not a name "
						   "of letters, digits, '_', '.' and '-'",
						   optarg);
			label = optarg;
			break;
		case 'B':
			*bisect = true;
			break;
		case 'r':
			if (opt_uint("run", "--repeat", optarg, 1000000, &repeat) || !repeat)
				return repeat ? EXIT_USAGE :
				       usage_error("run", "--repeat: must be at least 1");
			break;
		case 'w':
			if (opt_uint("run", "--warmup", optarg, 1000000, &warmup))
				return EXIT_USAGE;
			break;
		case 'o':
			results = optarg;
			break;
		case 'f':
			ro.filter = optarg;
			break;
		case 'c':
			compare = optarg;
			break;
		case 'n':
			save = false;
			break;
		case 'q':
			ro.quiet = true;
			break;
		case 'v':
			kscen_verbose++;
			break;
		case 'M':
			if (opt_uint("run", "--max-jobs", optarg, ULONG_MAX / 2, &max_jobs))
				return EXIT_USAGE;
			break;
		case 'F':
			if (parse_format("run", optarg, &fmt))
				return EXIT_USAGE;
			break;
		case 'g':
			if (opt_pct("run", "--gate", optarg, &gate))
				return EXIT_USAGE;
			break;
		case 'u':
			if (opt_pct("run", "--until-ci", optarg, &until_ci))
				return EXIT_USAGE;
			break;
		case 'm':
			if (opt_uint("run", "--max-repeat", optarg, 1000000, &max_repeat) ||
			    max_repeat < KSCEN_AUTO_MIN_REPEAT)
				return max_repeat ? usage_error("run", "--max-repeat: "
					"must be at least %d", KSCEN_AUTO_MIN_REPEAT) : EXIT_USAGE;
			break;
		case 'P':
			ro.profile = true;
			break;
		case 'R':
			resume = optarg;
			break;
		case 'S':
			shard = optarg;
			break;
		case 'N':
			if (opt_uint("run", "--shards", optarg, KSCEN_MAX_SHARDS, &shards) ||
			    !shards)
				return shards ? EXIT_USAGE : usage_error("run", "--shards: at least 1");
			break;
		default:
			return usage_error("run", "unknown option");
		}
	}
	if (resume) {
		/* Everything that decides the jobs and rounds is the journal's. */
		if (argc - optind != 0)
			return usage_error("run", "--resume takes a journal, not a scenario");
		if (kscen_resume_open(resume, &jh, &journal, &resume_dir))
			return EXIT_USAGE;
		results = resume_dir;
		compare = jh.compare;
		ro.filter = jh.filter;
		max_jobs = jh.max_jobs;
	} else if (argc - optind != 1) {
		return usage_error("run", "needs one scenario file");
	} else if (compare_path_ok(compare)) {
		return EXIT_USAGE;
	}
	if ((sharded = shard_opts("run", shard, shards, &sk, &sn)) < 0)
		return EXIT_USAGE;
	if (load_and_expand(resume ? jh.scenario_file : argv[optind], max_jobs, &s, &jobs) ||
	    (resume && kscen_resume_check(resume, &jh, s, &jobs))) {
		if (s) {
			kscen_jobs_free(&jobs);
			kscen_scenario_free(s);
		}
		kscen_journal_close(journal, false);
		kscen_journal_hdr_fini(&jh);
		free(resume_dir);
		return EXIT_USAGE;
	}
	if (sharded)
		shard_jobs(&jobs, &all, sk, sn);
	ro.repeat = repeat ? repeat : s->repeat;
	ro.warmup = warmup != ULONG_MAX ? warmup : s->warmup;
	/* -r N asks for exactly N; --until-ci turns repeat: auto on. */
	ro.until_ci = until_ci ? until_ci : repeat ? 0 : s->until_ci;
	ro.max_repeat = max_repeat ? max_repeat : s->max_repeat ? s->max_repeat :
			KSCEN_AUTO_MAX_REPEAT;
	if (ro.until_ci > 0 && !repeat && !s->until_ci)
		ro.repeat = KSCEN_AUTO_MIN_REPEAT;
	if (ro.until_ci > 0 && ro.max_repeat < ro.repeat)
		ro.max_repeat = ro.repeat;
	if (resume) {
		ro.repeat = jh.repeat;
		ro.warmup = jh.warmup;
		ro.until_ci = jh.until_ci;
		ro.max_repeat = jh.max_repeat;
	}

	/* --bisect judges by the gate: 5% unless told otherwise. */
	if (*bisect && !gate)
		gate = 5;
	for (unsigned i = 0; i < jobs.nr; i++)
		matched += !ro.filter || !fnmatch(ro.filter, jobs.job[i].id, 0);
	if (!matched && ro.filter) {
		fprintf(stderr, "kscen run: --filter '%s' matches none of the %u "
			"jobs (kscen plan lists them)\n", ro.filter, jobs.nr);
		code = EXIT_USAGE;
	} else if (ref_check("run", compare, results, s, &rs)) {
		code = EXIT_USAGE;
	} else if (gate > 0 && rs.kind == REF_NONE) {
		usage_error("run", "--gate needs a reference: not --compare none");
		code = EXIT_USAGE;
	} else if (save && (ret = kscen_result_dir_ready(results, s->name))) {
		fprintf(stderr, "kscen run: cannot store runs in %s/%s: %s\n",
			results, s->name, strerror(-ret));
		kscen_run_free(rs.file);
		code = EXIT_USAGE;
	}
	if (code) {
		jobs_release(&jobs, &all);
		kscen_scenario_free(s);
		return code;
	}
	run = kscen_xcalloc(1, sizeof(*run));
	run->shard = sharded ? kscen_xasprintf("%u/%u", sk, sn) : NULL;
	run->version = kscen_xstrdup(KSCEN_VERSION);
	run->describe = kscen_xstrdup(kscen_describe);
	run->filter = ro.filter ? kscen_xstrdup(ro.filter) : NULL;
	run->label = label ? kscen_xstrdup(label) : NULL;
	run->scenario = kscen_xstrdup(s->name);
	run->scenario_file = kscen_xstrdup(s->file);
	run->scenario_sha256 = kscen_xstrdup(s->sha256);
	run->command = join_argv(argc + 1, argv - 1);
	run->test_hooks = kscen_test_hooks();
	run->repeat = ro.repeat;
	run->warmup = ro.warmup;
	run->until_ci = ro.until_ci;
	run->max_repeat = ro.until_ci > 0 ? ro.max_repeat : 0;
	kscen_system_read(&run->system);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
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
	ref_resolve(&rs, results, run, &refs);
	run->compare = kscen_xstrdup(compare);
	for (unsigned i = 0; i < run->nr_jobs && i < refs.nr; i++)
		if (refs.ref[i].run && refs.ref[i].run->path)
			run->jobs[i].reference = kscen_xstrdup(refs.ref[i].run->path);
	if (save && (save_err = kscen_result_save(run, results)))
		kscen_save_failed(results, save_err, journal);
	else if (save) {
		kscen_journal_finish(journal, run, ret == 0);
		kscen_profile_save_folded(run);	/* profile.h */
	}
	journal = NULL;
	kscen_report(stdout, run, &refs, fmt);
	if (gate > 0 && fmt == KSCEN_FMT_TEXT)
		fputc('\n', stdout);
	if (gate > 0) {
		tripped = kscen_gate(fmt == KSCEN_FMT_JSON || fmt == KSCEN_FMT_CSV ?
				     stderr : stdout, run, &refs, gate);
		code = tripped > 0 ? EXIT_GATE : tripped < 0 ? EXIT_USAGE : 0;
	}
	/* JSON and CSV stay parseable: the path goes beside them. */
	if (save && run->path)
		fprintf(fmt == KSCEN_FMT_JSON || fmt == KSCEN_FMT_CSV ? stderr :
			stdout, "\nresults: %s\n", run->path);

	/* Failed jobs win over the gate: their numbers are not all there. */
	for (unsigned i = 0; i < run->nr_jobs; i++)
		if (run->jobs[i].status == KSCEN_FAILED)
			code = EXIT_FAILED_JOBS;
	if (ret == -EINTR)
		code = 128 + (kscen_interrupted > 0 ? kscen_interrupted : SIGINT);
	else if (ret)
		code = EXIT_FAILED_JOBS;
	/* Never 0 without the results: whatever else happened, say this. */
	if (save_err)
		code = EXIT_NOT_SAVED;
	if (*bisect) {
		code = bisect_code(code, run, &refs, tripped);
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
	jobs_release(&jobs, &all);
	kscen_scenario_free(s);
	return code;
}

/* ---- calibrate ----------------------------------------------------------- */

/* Run this kscen with @args, stdout to /dev/null; its exit code or -errno. */
static int self_run(char **args)
{
	posix_spawn_file_actions_t fa;
	extern char **environ;
	int status, ret;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	ret = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		return -ret;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Seed the history: N ordinary stored runs, then per job the run-to-run
 * drift and the smallest change a comparison between runs can find, beside
 * the one an interleaved comparison within a run can.
 */
static int cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		HELP_OPT,
		{ "runs", required_argument, NULL, 'n' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "results", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ 0 },
	};
	const char *results = "results", *repeat = NULL;
	unsigned long n = 5, r = 0;
	struct kscen_scenario *s;
	struct kscen_system sys;
	struct kscen_history h;
	struct kscen_jobs jobs;
	bool quiet = false;
	char *dir, *args[16];
	int c, code = 0;

	while ((c = getopt_long(argc, argv, "+hn:r:o:q", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return cmd_help(find_cmd("calibrate"), stdout), 0;
		case 'n':
			if (opt_uint("calibrate", "-n", optarg, 1000, &n) || n < 1)
				return n ? EXIT_USAGE : usage_error("calibrate", "-n: at least 1");
			break;
		case 'r':
			if (opt_uint("calibrate", "--repeat", optarg, 1000000, &r) || !r)
				return r ? EXIT_USAGE : usage_error("calibrate", "--repeat: at least 1");
			repeat = optarg;
			break;
		case 'o':
			results = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return usage_error("calibrate", "unknown option");
		}
	}
	if (argc - optind != 1)
		return usage_error("calibrate", "needs one scenario file");
	if (load_and_expand(argv[optind], DEFAULT_MAX_JOBS, &s, &jobs))
		return EXIT_USAGE;
	for (unsigned long i = 0; i < n && !code; i++) {
		unsigned k = 0;

		args[k++] = "kscen";
		args[k++] = "run";
		args[k++] = "-q";
		args[k++] = "--compare";
		args[k++] = "none";
		args[k++] = "-o";
		args[k++] = (char *)results;
		if (repeat) {
			args[k++] = "-r";
			args[k++] = (char *)repeat;
		}
		args[k++] = "--";
		args[k++] = argv[optind];
		args[k] = NULL;
		if (!quiet)
			fprintf(stderr, "kscen calibrate: run %lu/%lu\n", i + 1, n);
		code = self_run(args);
		if (code == 128 + SIGINT || code == 128 + SIGTERM || code < 0 ||
		    code == EXIT_USAGE)
			break;
		code = 0;	/* failed jobs are in the table as such */
	}
	if (code) {
		fprintf(stderr, "kscen calibrate: stopped: run exited %d\n", code);
		goto out;
	}
	kscen_system_read(&sys);
	dir = kscen_xasprintf("%s/%s", results, s->name);
	kscen_history_load(dir, s->name, NULL, NULL, &h);
	printf("# kscen calibrate: scenario %s, %s, kernel %s\n", s->name,
	       sys.hostname, sys.kernel);
	printf("# run-to-run: two runs' medians differ by up to this, 95%%, "
	       "with nothing changed\n# detectable: the smallest change found "
	       "80%% of the time at 95%% confidence\n");
	printf("%4s %11s %9s %9s  %s\n", "runs", "run-to-run", "between",
	       "within", "job (detectable change: between runs, within a run)");
	for (unsigned i = 0; i < h.nr; i++) {
		const struct kscen_run *ref = h.run[i];

		if (strcmp(ref->system.hostname, sys.hostname) ||
		    strcmp(ref->system.kernel_build, sys.kernel_build) ||
		    strcmp(ref->system.kernel, sys.kernel))
			continue;
		for (unsigned k = 0; k < ref->nr_jobs; k++) {
			const struct kscen_job_result *j = &ref->jobs[k];
			struct kscen_drift d;
			char a[32], b[32], w[32];

			if (!kscen_primary(j))
				continue;
			kscen_history_drift(&h, ref, j, kscen_primary(j)->name, &d);
			if (d.runs < KSCEN_DRIFT_MIN_RUNS) {
				printf("%4u %11s %9s %9s  %s\n", d.runs, "too few",
				       "-", "-", j->id);
				continue;
			}
			snprintf(a, sizeof(a), "±%.1f%%", 100 * expm1(d.spread));
			snprintf(b, sizeof(b), "%.1f%%", 100 * expm1(d.mde_between));
			snprintf(w, sizeof(w), "%.1f%%", 100 * expm1(d.mde_within));
			printf("%4u %12s %9s %9s  %s\n", d.runs, a, b, w, j->id);
		}
		break;	/* the newest run of this machine lists the jobs */
	}
	printf("# history: %s (%u usable runs)\n", dir, h.nr);
	kscen_history_free(&h);
	kscen_system_fini(&sys);
	free(dir);
out:
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
	return code ? (code < 0 ? EXIT_USAGE : code) : 0;
}

/* ---- list, report, compare --------------------------------------------- */

static void param_range(const struct kscen_param *p, char *buf, size_t len)
{
	switch (p->type) {
	case KSCEN_P_INT:
	case KSCEN_P_SIZE:
	case KSCEN_P_TIME:
		snprintf(buf, len, "%lld..%lld%s", p->min, p->max,
			 p->type == KSCEN_P_SIZE ? " B" :
			 p->type == KSCEN_P_TIME ? " ns" : "");
		break;
	case KSCEN_P_ENUM:
		snprintf(buf, len, "%s", p->choices);
		break;
	case KSCEN_P_BOOL:
		snprintf(buf, len, "true|false");
		break;
	default:
		snprintf(buf, len, "-");
	}
}

static void list_one(const struct kscen_workload *w)
{
	printf("%s (version %u): %s\n\nmetrics:\n", w->name, w->version, w->summary);
	for (unsigned i = 0; i < w->nr_metrics; i++)
		printf("  %-16s %-14s %s is better%s\n", w->metrics[i].name,
		       w->metrics[i].unit,
		       w->metrics[i].better == KSCEN_LOWER ? "lower" : "higher",
		       i == 0 ? " (primary)" : "");
	printf("\nparameters:\n  %-14s %-7s %-10s %-22s %s\n",
	       "name", "type", "default", "range", "help");
	for (unsigned i = 0; i < w->nr_params; i++) {
		const struct kscen_param *p = &w->params[i];
		char range[96];

		param_range(p, range, sizeof(range));
		printf("  %-14s %-7s %-10s %-22s %s\n", p->name,
		       kscen_ptype_name(p->type), p->def ? (*p->def ? p->def : "\"\"")
							 : "(required)",
		       range, p->help);
	}
}

static int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = { HELP_OPT, { 0 } };
	int c;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h')
			return cmd_help(find_cmd("list"), stdout), 0;
		return usage_error("list", "unknown option");
	}
	if (argc - optind > 1)
		return usage_error("list", "takes at most one workload name");
	if (argc - optind == 1) {
		const struct kscen_workload *w = kscen_workload_find(argv[optind]);

		if (!w) {
			const char *hint = kscen_workload_closest(argv[optind]);

			fprintf(stderr, "kscen list: unknown workload '%s'%s%s%s\n",
				argv[optind], hint ? "; did you mean '" : "",
				hint ? hint : "", hint ? "'?" : "");
			return EXIT_USAGE;
		}
		list_one(w);
		return 0;
	}
	for (unsigned i = 0; i < kscen_nr_workloads; i++)
		printf("%-20s %s\n", kscen_workloads[i]->name, kscen_workloads[i]->summary);
	return 0;
}

/* A result file, or the newest run in a directory of them. */
static int load_result_arg(const char *arg, struct kscen_run **out)
{
	struct stat st;
	char *path = NULL;
	int ret;

	if (stat(arg, &st)) {
		fprintf(stderr, "%s: %s\n", arg, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode))
		return kscen_result_load(arg, out);
	kscen_result_latest(arg, NULL, &path);
	if (!path) {
		fprintf(stderr, "%s: no stored runs there\n", arg);
		return -EINVAL;
	}
	ret = kscen_result_load(path, out);
	free(path);
	return ret;
}

static int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		HELP_OPT, { "format", required_argument, NULL, 'F' }, { 0 },
	};
	enum kscen_format fmt = KSCEN_FMT_TEXT;
	struct kscen_refs refs;
	struct kscen_run *run;
	int c;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h')
			return cmd_help(find_cmd("report"), stdout), 0;
		if (c != 'F' || parse_format("report", optarg, &fmt))
			return c == 'F' ? EXIT_USAGE : usage_error("report", "unknown option");
	}
	if (argc - optind != 1)
		return usage_error("report", "needs one result file or directory");
	if (load_result_arg(argv[optind], &run))
		return EXIT_USAGE;
	kscen_refs_stored(&refs, run);
	kscen_report(stdout, run, &refs, fmt);
	kscen_refs_free(&refs);
	kscen_run_free(run);
	return 0;
}

/* label:NAME in @dir: the newest complete run labelled NAME. */
static int load_label(const char *arg, const char *dir, struct kscen_run **out)
{
	struct kscen_history h;

	*out = NULL;
	kscen_history_load(dir, NULL, NULL, NULL, &h);
	for (unsigned i = 0; i < h.nr && !*out; i++) {
		if (!h.run[i]->label || strcmp(h.run[i]->label, arg + 6))
			continue;
		*out = h.run[i];
		h.run[i] = NULL;
		for (unsigned k = i + 1; k < h.nr; k++)	/* keep the array dense */
			h.run[k - 1] = h.run[k];
		h.nr--;
	}
	kscen_history_free(&h);
	if (!*out)
		fprintf(stderr, "kscen compare: %s: no complete run with that label "
			"in %s\n", arg, dir);
	return *out ? 0 : -EINVAL;
}

static int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		HELP_OPT,
		{ "gate", required_argument, NULL, 'g' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "fleet", no_argument, NULL, 'H' },
		{ 0 },
	};
	bool fleet = false;
	struct kscen_run *old = NULL, *new_ = NULL;
	struct kscen_refs refs;
	int c, code = 0, nargs;
	bool labels;
	double gate = 0;

	while ((c = getopt_long(argc, argv, "+hv", opts, NULL)) != -1) {
		if (c == 'h')
			return cmd_help(find_cmd("compare"), stdout), 0;
		if (c == 'v') {
			kscen_verbose++;
			continue;
		}
		if (c == 'H') {
			fleet = true;
			continue;
		}
		if (c != 'g')
			return usage_error("compare", "unknown option");
		if (opt_pct("compare", "--gate", optarg, &gate))
			return EXIT_USAGE;
	}
	nargs = argc - optind;
	if (fleet) {
		if (nargs != 2 || gate > 0)
			return usage_error("compare", "--fleet needs OLD and NEW (runs or "
					   "directories of runs), and no --gate");
		return kscen_fleet_compare(stdout, argv[optind], argv[optind + 1]) ?
		       EXIT_USAGE : 0;
	}
	labels = nargs == 3 && !strncmp(argv[optind], "label:", 6) &&
		 !strncmp(argv[optind + 1], "label:", 6);
	if (nargs != 2 && !labels)
		return usage_error("compare", "needs OLD and NEW, or label:A label:B DIR");
	if (labels ? load_label(argv[optind], argv[optind + 2], &old) ||
		     load_label(argv[optind + 1], argv[optind + 2], &new_) :
		     load_result_arg(argv[optind], &old) ||
		     load_result_arg(argv[optind + 1], &new_)) {
		kscen_run_free(old);
		kscen_run_free(new_);
		return EXIT_USAGE;
	}
	kscen_refs_single(&refs, new_, old);	/* takes old */
	kscen_compare_print(stdout, new_, &refs);
	if (gate > 0) {
		int bad;

		fputc('\n', stdout);
		bad = kscen_gate(stdout, new_, &refs, gate);
		code = bad > 0 ? EXIT_GATE : bad < 0 ? EXIT_USAGE : 0;
	}
	kscen_refs_free(&refs);
	kscen_run_free(new_);
	return code;
}

/* plot --flame: flame.c (profile.h). */
static int cmd_plot(int argc, char **argv)
{
	int ret = kscen_plot_main(argc, argv, load_result_arg);

	if (ret < 0)
		cmd_help(find_cmd("plot"), stdout);
	return ret < 0 ? 0 : ret;
}

/* ---- merge ---------------------------------------------------------------- */

static int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		HELP_OPT,
		{ "force", no_argument, NULL, 'f' },
		{ "format", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ 0 },
	};
	struct kscen_merge_opts mo = { 0 };
	enum kscen_format fmt = KSCEN_FMT_TEXT;
	struct kscen_run *run;
	int c;

	while ((c = getopt_long(argc, argv, "+hfq", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return cmd_help(find_cmd("merge"), stdout), 0;
		case 'f':
			mo.force = true;
			break;
		case 'q':
			mo.quiet = true;
			break;
		case 'F':
			if (parse_format("merge", optarg, &fmt))
				return EXIT_USAGE;
			break;
		default:
			return usage_error("merge", "unknown option");
		}
	}
	if (argc - optind < 2)
		return usage_error("merge", "needs OUT and at least one shard run "
				   "or directory of them");
	if (kscen_merge(argv[optind], argv + optind + 1, argc - optind - 1, &mo, &run))
		return EXIT_USAGE;
	if (!mo.quiet)
		kscen_report(stdout, run, NULL, fmt);
	fprintf(fmt == KSCEN_FMT_JSON || fmt == KSCEN_FMT_CSV ? stderr : stdout,
		"%sresults: %s\n", mo.quiet ? "" : "\n", run->path);
	kscen_run_free(run);
	return 0;
}

/* ---- the table ---------------------------------------------------------- */

static const struct cmd cmds[] = {
	{ "run", cmd_run, "SCENARIO.yaml [options]",
	  "Expand the scenario, run every job, save the samples, print the report.",
	  "  -r, --repeat N      recorded samples per job (default: the scenario's)\n"
	  "  -w, --warmup N      discarded samples per job (default: the scenario's)\n"
	  "  -o, --results DIR   where runs are stored (default: results/)\n"
	  "      --filter GLOB   run only the jobs whose id matches GLOB\n"
	  "      --compare REF   last (default: per job, the newest complete run on\n"
	  "                      this host that measured the same), label:NAME, a\n"
	  "                      directory of runs, a result file, or none\n"
	  "      --label NAME    store the run under a name (--compare label:NAME)\n"
	  "      --shard K/N     run only shard K of N (kscen merge joins them); in a\n"
	  "                      Slurm array or Kubernetes Indexed Job K/N come from\n"
	  "                      the task index without it\n"
	  "      --shards N      the shard count where the environment has only an\n"
	  "                      index (JOB_COMPLETION_INDEX)\n"
	  "      --no-save       do not store the run\n"
	  "      --format F      text (default), markdown, json or csv\n"
	  "      --max-jobs N    refuse a larger matrix (default 100000)\n"
	  "      --gate PCT      exit 1 if a job got worse than its reference by more\n"
	  "                      than PCT%, with its whole 95% CI beyond PCT; exit 2\n"
	  "                      if no job could be compared\n"
	  "      --bisect        exit as `git bisect run` reads it: 0 good, 1 the gate\n"
	  "                      (default 5%) tripped, 125 cannot tell\n"
	  "      --until-ci PCT  repeat: auto: sample until the median's 95% CI is\n"
	  "                      within +-PCT% (at least 6, at most --max-repeat)\n"
	  "      --max-repeat N  repeat: auto: at most N samples a job (default 30)\n"
	  "      --profile       one more sample per job under a sampling profiler:\n"
	  "                      top symbols, folded stacks (see profile: in README)\n"
	  "      --resume JOURNAL  finish a run cut short (SIGKILL, power loss, a\n"
	  "                      failed save) from its journal, beside its result\n"
	  "  -q, --quiet         no progress on stderr\n"
	  "  -v, --verbose       every sample on stderr\n" },
	{ "plan", cmd_plan, "SCENARIO.yaml [--filter GLOB] [--shard K/N] [--max-jobs N]",
	  "Print the expanded job ids, one a line, and their count; run nothing.",
	  "      --filter GLOB   only the jobs whose id matches GLOB\n"
	  "      --shard K/N     only the jobs of shard K of N (as run --shard)\n"
	  "      --shards N      the shard count beside JOB_COMPLETION_INDEX\n"
	  "      --max-jobs N    refuse a larger matrix (default 100000)\n" },
	{ "validate", cmd_validate, "SCENARIO.yaml...",
	  "Check scenario files; exit 0 if all are valid, 2 otherwise.", "" },
	{ "list", cmd_list, "[WORKLOAD]",
	  "List the workloads, or one workload's metrics and parameters.", "" },
	{ "compare", cmd_compare, "OLD NEW [--gate PCT] | label:A label:B DIR",
	  "Delta table between two stored runs, drift from the runs beside OLD allowed for.",
	  "      --gate PCT      exit 1 if a job got worse by more than PCT%, with its\n"
	  "                      whole 95% CI beyond PCT (inconclusive never trips it)\n"
	  "      --fleet         OLD and NEW hold runs from several hosts: compare each\n"
	  "                      host's newest runs, then the geomean across hosts,\n"
	  "                      hosts grouped by shared environment\n"
	  "  -v, --verbose       name the test behind each p-value\n" },
	{ "calibrate", cmd_calibrate, "SCENARIO.yaml [-n N] [-r N] [-o DIR]",
	  "Run the scenario N times to measure each job's run-to-run drift.",
	  "  -n, --runs N        stored runs to make (default 5)\n"
	  "  -r, --repeat N      recorded samples per job (default: the scenario's)\n"
	  "  -o, --results DIR   where runs are stored (default: results/)\n"
	  "  -q, --quiet         no progress on stderr\n" },
	{ "history", kscen_cmd_history, "SCENARIO.yaml|DIR [--job GLOB] [-o DIR]",
	  "The stored runs of a scenario; with --job, one job's median over time.",
	  "      --job GLOB      one job (glob on job ids) over time, '<-' where\n"
	  "                      its change against the run before is a verdict\n"
	  "  -o, --results DIR   where runs are stored (default: results/)\n" },
	{ "merge", cmd_merge, "OUT SHARD-RUN|DIR... [--force]",
	  "Join the shard runs of one plan (run --shard K/N) into one run file OUT.",
	  "  -f, --force         merge shards of other scenario files, kscen or\n"
	  "                      workload versions (a job measured twice never)\n"
	  "      --format F      report: text (default), markdown, json or csv\n"
	  "  -q, --quiet         no report, only the path\n" },
	{ "report", cmd_report, "RESULT [--format F]",
	  "Re-render a stored run (a file, or the newest in a directory).",
	  "      --format F      text (default), markdown, json or csv\n" },
	{ "plot", cmd_plot, "--flame JOB [--diff] RESULT -o FILE.svg",
	  "Draw a profiled job's flame graph as SVG (a file, or the newest run in a directory).",
	  "      --flame JOB     the job id whose profile to draw\n"
	  "      --diff          differential: red where the job spends a larger share\n"
	  "                      than its baseline, blue a smaller one\n"
	  "  -o, --output FILE   the SVG to write\n" },
	{ "vm", kscen_cmd_vm, "--kernel BZIMAGE [options] -- run SCENARIO [ARGS]",
	  "Boot a kernel under QEMU on this machine's root, run kscen in it, keep the run here.",
	  kscen_vm_options_help },
	{ "ab", kscen_cmd_ab, "--kernel A --kernel B [options] SCENARIO.yaml",
	  "Boot two kernels under QEMU and run the scenario on both in alternating rounds.",
	  kscen_ab_options_help },
	{ "agent", kscen_cmd_agent, "[--stdio] SCENARIO.yaml", "", "" },	/* internal: ab's guest side */
};

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	return NULL;
}

static void main_help(FILE *out)
{
	fprintf(out, "usage: kscen [--version] [--help] COMMAND [ARGS]\n\n"
		"kscen runs kernel benchmark scenarios described in YAML.\n\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (*cmds[i].summary)	/* "": internal */
			fprintf(out, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(out, "\n'kscen COMMAND --help' shows a command's options.\n"
		"exit codes: 0 ok, 1 regression gate, 2 invalid input or nothing to\n"
		"compare, 3 a job failed, 4 results not saved (kept in the journal),\n"
		"125 run --bisect cannot tell, 130 SIGINT, 143 SIGTERM\n");
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	/* Library code reports problems with its input here (diag.h). */
	kscen_diag_set_sink(kscen_diag_print, stderr);
	if (argc < 2) {
		main_help(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && (c = find_cmd(argv[2])))
			cmd_help(c, stdout);
		else
			main_help(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("kscen %s (%s)\n", KSCEN_VERSION, kscen_describe);
		return 0;
	}
	c = find_cmd(argv[1]);
	if (!c) {
		const char *names[ARRAY_SIZE(cmds)];
		unsigned nr = 0;

		for (; nr < sizeof(cmds) / sizeof(cmds[0]); nr++)
			names[nr] = cmds[nr].name;
		const char *hint = kscen_closest(argv[1], names, nr);

		fprintf(stderr, "kscen: '%s' is not a command%s%s%s. See 'kscen --help'.\n",
			argv[1], hint ? "; did you mean '" : "", hint ? hint : "",
			hint ? "'?" : "");
		return EXIT_USAGE;
	}
	optind = 1;
	return c->fn(argc - 1, argv + 1);
}
