// SPDX-License-Identifier: GPL-2.0
/*
 * cmd.c - what the commands share: their usage and `kscen --help` (from
 * KSCEN_COMMANDS in cmd.h), usage errors, strict option values, loading and
 * expanding a scenario, shards of a plan, a result argument.
 */
#define _GNU_SOURCE	/* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/history.h"
#include "store/store.h"
#include "expand/jobs.h"
#include "expand/shard.h"
#include "scenario/scenario_load.h"
#include "lib/child.h"
#include "lib/util.h"
#include "cmd.h"
#include "options.h"

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kscen %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'kscen %s --help'.\n", cmd);
	return EXIT_USAGE;
}

#define CMD_USAGE(name, args, summary, options) { #name, args, summary, options },
const struct cmd cmd_table[] = {
	KSCEN_COMMANDS(CMD_USAGE)
};
#undef CMD_USAGE
const unsigned cmd_table_nr = ARRAY_SIZE(cmd_table);

const struct cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cmd_table); i++)
		if (strcmp(cmd_table[i].name, name) == 0)
			return &cmd_table[i];
	return NULL;
}

void cmd_main_help(FILE *out)
{
	fprintf(out, "usage: kscen [--version] [--help] COMMAND [ARGS]\n\n"
		"kscen runs kernel benchmark scenarios described in YAML.\n\n"
		"commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(cmd_table); i++)
		if (*cmd_table[i].summary)	/* "": internal */
			fprintf(out, "  %-10s %s\n", cmd_table[i].name, cmd_table[i].summary);
	fprintf(out, "\n'kscen COMMAND --help' shows a command's options; the manuals are\n"
		"kscen(1) and kscen-scenario(5) ('man kscen').\n"
		"exit codes: 0 ok, 1 regression gate, 2 invalid input or nothing to\n"
		"compare, 3 a job failed, 4 results not saved (kept in the journal),\n"
		"125 run --bisect cannot tell, 129 SIGHUP, 130 SIGINT, 143 SIGTERM\n");
}

void cmd_help(const struct cmd *c, FILE *out)
{
	fprintf(out, "usage: kscen %s %s\n\n%s\n", c->name, c->args, c->summary);
	if (c->options && *c->options)
		fprintf(out, "\noptions:\n%s", c->options);
}

/* Strict non-negative integer for an option. */
int cmd_opt_uint(const char *cmd, const char *opt, const char *arg,
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
	cmd_usage_error(cmd, "%s: '%s' is not a whole number up to %lu", opt, arg, max);
	return -EINVAL;
}

int cmd_opt_format(const char *cmd, const char *arg, enum kscen_format *f)
{
	static const char *const names[] = { "text", "markdown", "json", "csv", "mail" };

	for (unsigned i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(arg, names[i]) == 0) {
			*f = (enum kscen_format)i;
			return 0;
		}
	cmd_usage_error(cmd, "--format: '%s' is not text, markdown, json, csv or mail", arg);
	return -EINVAL;
}

/* The first SIGINT/SIGTERM/SIGHUP is noted; a second ends us at once. */
static void on_signal(int sig)
{
	if (kscen_interrupted) {
		if (kscen_signal_unlink)
			unlink(kscen_signal_unlink);
		signal(sig, SIG_DFL);
		raise(sig);
	}
	kscen_interrupted = sig;
}

void cmd_catch_signals(bool restart)
{
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = restart ? SA_RESTART : 0 };

	/* each also in KSCEN_SAMPLE_SIGNALS (sample/sampler.h): not a sample's */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int cmd_signal_exit(void)
{
	return 128 + (kscen_interrupted > 0 ? kscen_interrupted : SIGINT);
}

int cmd_in_child(const char *cmd, int (*fn)(int argc, char **argv), int argc, char **argv)
{
	int pfd[2], status, code;
	char done = 0, how[96];
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (pipe2(pfd, O_CLOEXEC) || (pid = fork()) < 0) {
		fprintf(stderr, "kscen %s: %s\n", cmd, strerror(errno));
		return EXIT_USAGE;
	}
	if (!pid) {
		close(pfd[0]);
		code = fn(argc, argv);
		fflush(stdout);
		fflush(stderr);
		if (write(pfd[1], "1", 1) != 1)
			_exit(EXIT_USAGE);
		exit(code);	/* atexit: LeakSanitizer's check, in an ASan build */
	}
	close(pfd[1]);
	while (read(pfd[0], &done, 1) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (done && WIFEXITED(status))
		return WEXITSTATUS(status);
	fprintf(stderr, "kscen %s: ended before it finished (%s): a workload module's "
		"code that exits or crashes?\n", cmd,
		kscen_wait_status_text(status, how, sizeof(how)));
	return EXIT_USAGE;
}

/* --gate PCT, --until-ci PCT: "5", "5%", "2.5%". */
int cmd_opt_pct(const char *cmd, const char *opt, const char *arg,
		   double *out)
{
	if (!kscen_parse_pct(arg, out))
		return 0;
	cmd_usage_error(cmd, "%s: '%s' is not a percentage above 0 and up to 100",
		    opt, arg);
	return -EINVAL;
}

/* --gate-fdr Q: a false discovery rate, above 0 and below 1 ("0.05"). */
int cmd_opt_fdr(const char *cmd, const struct kscen_option *o, const char *arg)
{
	char *end;
	double q;

	errno = 0;
	q = strtod(arg, &end);
	if (!*arg || *end || errno || !(q > 0) || !(q < 1))
		return cmd_usage_error(cmd, "--gate-fdr: '%s' is not a q-value above 0 "
				       "and below 1", arg);
	*(double *)o->value = q;
	return 0;
}

int cmd_scenario_load(const char *path, struct kscen_scenario **s)
{
	char *buf;
	size_t len;
	int ret;

	if (strcmp(path, "-"))
		return kscen_scenario_load(path, s) ? -EINVAL : 0;
	*s = NULL;
	if (kscen_scenario_read_fd("<stdin>", STDIN_FILENO, &buf, &len))
		return -EINVAL;
	ret = kscen_scenario_load_text("<stdin>", ".", buf, len, s);
	free(buf);
	return ret ? -EINVAL : 0;
}

int cmd_expand_some(struct kscen_scenario *s, unsigned long max_jobs,
		    const char *filter, struct kscen_jobs *jobs, unsigned long *total)
{
	int ret = filter ? kscen_expand_some(s, max_jobs, filter, jobs, total) :
			   kscen_expand(s, max_jobs, jobs);

	if (ret) {
		kscen_scenario_free(s);
		return -EINVAL;
	}
	if (!filter)
		*total = jobs->nr;
	return 0;
}

int cmd_opt_name(const char *cmd, const struct kscen_option *o, const char *arg)
{
	if (!kscen_name_ok(arg))
		return cmd_usage_error(cmd, "--%s: '%s' is not a name of letters, "
				       "digits, '_', '.' and '-'", o->long_name, arg);
	*(const char **)o->value = arg;
	return 0;
}

int cmd_load_and_expand(const char *path, unsigned long max_jobs,
			   struct kscen_scenario **s, struct kscen_jobs *jobs)
{
	unsigned long total;

	if (cmd_scenario_load(path, s))
		return -EINVAL;
	if (cmd_expand_some(*s, max_jobs, NULL, jobs, &total)) {
		*s = NULL;
		return -EINVAL;
	}
	return 0;
}

/*
 * --shard K/N, or the job array's index (--shards N gives the count where
 * the environment has none): 1 and *k, *n set; 0 not sharded; -1 usage.
 */
int cmd_shard_opts(const char *cmd, const char *shard, unsigned long shards,
		      unsigned *k, unsigned *n)
{
	char err[256] = "";
	int r;

	if (shard) {
		if (kscen_shard_parse(shard, k, n) == 0)
			return 1;
		cmd_usage_error(cmd, "--shard: '%s' is not K/N with 1 <= K <= N <= %u",
			    shard, KSCEN_MAX_SHARDS);
		return -1;
	}
	r = kscen_shard_env(shards, k, n, err, sizeof(err));
	if (r < 0)
		cmd_usage_error(cmd, "%s", err);
	else if (!r && shards)
		cmd_usage_error(cmd, "--shards N needs a task index: JOB_COMPLETION_INDEX "
			    "or SLURM_ARRAY_TASK_ID (or use --shard K/N)");
	return r < 0 || (!r && shards) ? -1 : r;
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What a shard keeps of the walk: the jobs @sel picks, or those @ids name. */
struct shard_keep {
	const bool *sel;	/* by place in the plan */
	char **ids;		/* sorted */
	unsigned nr_ids;
	unsigned *pos;		/* the places of those kept */
	unsigned nr, cap;
};

static bool shard_keeps(const struct kscen_job_ref *job, void *arg)
{
	struct shard_keep *k = arg;
	bool keep = k->sel ? k->sel[job->pos] :
		    k->nr_ids && bsearch(&job->id, k->ids, k->nr_ids, sizeof(*k->ids), cmp_id);

	if (!keep)
		return false;
	if (k->nr == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->pos = kscen_xrealloc(k->pos, k->cap * sizeof(*k->pos));
	}
	k->pos[k->nr++] = job->pos;
	return true;
}

int cmd_load_shard(const char *path, const struct cmd_shard *sh,
		   struct kscen_scenario **s, struct kscen_jobs *jobs,
		   unsigned long *total, char **balance)
{
	*balance = NULL;
	if (cmd_scenario_load(path, s))
		return -EINVAL;
	return cmd_shard_expand(s, sh, jobs, total, balance);
}

int cmd_shard_expand(struct kscen_scenario **s, const struct cmd_shard *sh,
		     struct kscen_jobs *jobs, unsigned long *total, char **balance)
{
	struct shard_keep k = { 0 };
	struct kscen_jobs plan;
	bool *sel = NULL;
	double *w;
	int ret;

	*balance = NULL;
	if (sh->ids) {		/* a resumed shard: the jobs its journal lists */
		k.ids = kscen_xcalloc(sh->nr_ids + 1, sizeof(*k.ids));
		memcpy(k.ids, sh->ids, sh->nr_ids * sizeof(*k.ids));
		qsort(k.ids, sh->nr_ids, sizeof(*k.ids), cmp_id);
		k.nr_ids = sh->nr_ids;
	} else if (!(ret = kscen_expand_ids(*s, sh->max_jobs, &plan))) {
		/* the plan's ids and links alone, the shards cut from them */
		sel = kscen_xcalloc(plan.nr + 1, sizeof(*sel));
		w = kscen_shard_weights(&plan, sh->results, (*s)->name, balance);
		kscen_shard_select(&plan, sh->k, sh->n, w, sel);
		free(w);
		kscen_jobs_free(&plan);
		k.sel = sel;
	} else {
		goto fail;
	}
	ret = kscen_expand_keep(*s, sh->max_jobs, shard_keeps, &k, jobs, total);
	for (unsigned i = 0; !ret && i < jobs->nr; i++)
		jobs->job[i].plan_pos = k.pos[i] + 1;
	free(k.pos);
	free(k.ids);
	free(sel);
	if (!ret)
		return 0;
fail:
	kscen_scenario_free(*s);
	*s = NULL;
	free(*balance);
	*balance = NULL;
	return -EINVAL;
}

int cmd_no_match(const char *cmd, const char *opt, const char *glob, const char *where)
{
	size_t len = strlen(glob);
	bool lead = glob[0] == '*', trail = len && glob[len - 1] == '*';

	fprintf(stderr, "kscen %s: %s '%s' matches no job id of %s (a glob matches "
		"whole ids", cmd, opt, glob, where);
	if (!lead || !trail)
		fprintf(stderr, ": try %s '%s%s%s'", opt, lead ? "" : "*", glob,
			trail ? "" : "*");
	fprintf(stderr, ")\n");
	return EXIT_USAGE;
}

int cmd_load_result(const char *arg, struct kscen_run **out)
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

/* SCENARIO.yaml -> results/<scenario>; a directory is taken as it is. */
char *cmd_runs_dir(const char *arg, const char *results)
{
	struct kscen_scenario *s;
	struct stat st;
	char *dir;

	if (!stat(arg, &st) && S_ISDIR(st.st_mode))
		return kscen_xstrdup(arg);
	if (cmd_scenario_load(arg, &s))
		return NULL;
	dir = kscen_xasprintf("%s/%s", results, s->name);
	kscen_scenario_free(s);
	return dir;
}

/*
 * Walk the jobs of @path one at a time, printing the ids that match @filter
 * if @print: the matrix is never held whole. *@shown: the jobs printed
 * (all of them without @print). On an error the ids before it were printed.
 */
int cmd_stream_jobs(const char *path, unsigned long max_jobs, bool print,
		       const char *filter, unsigned long *shown)
{
	struct kscen_scenario *s;
	struct kscen_expander *x;
	struct kscen_job_ref job;
	int ret;

	*shown = 0;
	if (cmd_scenario_load(path, &s))
		return -EINVAL;
	ret = kscen_expand_begin(s, max_jobs, &x);
	while (!ret && (ret = kscen_expand_next(x, &job)) > 0) {
		ret = 0;
		if (filter && fnmatch(filter, job.id, 0))
			continue;
		if (print)
			puts(job.id);
		++*shown;
	}
	kscen_expand_end(x);
	kscen_scenario_free(s);
	return ret;
}

unsigned cmd_print_jobs(const struct kscen_jobs *jobs, const char *filter,
			unsigned k, unsigned n, unsigned long all, const char *balance)
{
	unsigned shown = 0;

	for (unsigned i = 0; i < jobs->nr; i++) {
		if (filter && fnmatch(filter, jobs->job[i].id, 0))
			continue;
		printf("%s\n", jobs->job[i].id);
		shown++;
	}
	if (!n)
		printf("%u job%s\n", shown, shown == 1 ? "" : "s");
	else if (balance)
		printf("%u job%s (shard %u/%u of %lu jobs, balanced by the job durations "
		       "of %s)\n", shown, shown == 1 ? "" : "s", k, n, all, balance);
	else
		printf("%u job%s (shard %u/%u of %lu jobs)\n", shown, shown == 1 ? "" : "s",
		       k, n, all);
	return shown;
}
