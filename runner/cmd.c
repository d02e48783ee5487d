// SPDX-License-Identifier: GPL-2.0
/*
 * cmd.c - what the commands share: usage errors, strict option values,
 * loading and expanding a scenario, shards of a plan, a result argument.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "history.h"
#include "store.h"
#include "shard.h"
#include "scenario_load.h"
#include "util.h"
#include "cmd.h"

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

void cmd_help(const struct cmd *c, FILE *out)
{
	fprintf(out, "usage: kscen %s %s\n\n%s\n", c->name, c->args, c->summary);
	if (c->options && *c->options)
		fprintf(out, "\noptions:\n%s", c->options);
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

int cmd_load_and_expand(const char *path, unsigned long max_jobs,
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

int cmd_load_and_expand_some(const char *path, unsigned long max_jobs,
			     const char *filter, struct kscen_scenario **s,
			     struct kscen_jobs *jobs, unsigned long *total)
{
	if (!filter) {
		if (cmd_load_and_expand(path, max_jobs, s, jobs))
			return -EINVAL;
		*total = jobs->nr;
		return 0;
	}
	if (kscen_scenario_load(path, s))
		return -EINVAL;
	if (kscen_expand_some(*s, max_jobs, filter, jobs, total)) {
		kscen_scenario_free(*s);
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

/*
 * Keep shard @k of @n of *@jobs; the whole plan moves to *@all. Balanced
 * by the job durations of the newest stored run of @scenario in @results
 * that has them (*@balance: its path, malloc'ed), else by job count.
 */
void cmd_shard_jobs(struct kscen_jobs *jobs, struct kscen_jobs *all,
		    unsigned k, unsigned n, const char *results,
		    const char *scenario, char **balance)
{
	bool *sel = kscen_xcalloc(jobs->nr + 1, sizeof(*sel));
	double *w = kscen_shard_weights(jobs, results, scenario, balance);

	*all = *jobs;
	kscen_shard_select(all, k, n, w, sel);
	kscen_jobs_subset(all, sel, jobs);
	free(sel);
	free(w);
}

/* kscen_jobs_free() for a plan that cmd_shard_jobs() may have sliced. */
void cmd_jobs_release(struct kscen_jobs *jobs, struct kscen_jobs *all)
{
	if (all->job) {
		free(jobs->job);
		kscen_jobs_free(all);
	} else {
		kscen_jobs_free(jobs);
	}
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
	if (kscen_scenario_load(arg, &s))
		return NULL;
	dir = kscen_xasprintf("%s/%s", results, s->name);
	kscen_scenario_free(s);
	return dir;
}
