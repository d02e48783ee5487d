/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd.h - the command line's layer: the table of commands (main.c), the
 * commands (cmd_*.c) and what they share (cmd.c). The work itself is in the
 * library under them (run.c, report/, ...), which unit tests call.
 */
#ifndef KSCEN_CMD_H
#define KSCEN_CMD_H

#include <getopt.h>
#include <stdio.h>

#include "jobs.h"
#include "report.h"
#include "runner.h"

/* Exit codes (runner.h) */
#define EXIT_GATE KSCEN_EXIT_GATE
#define EXIT_USAGE KSCEN_EXIT_USAGE
#define EXIT_FAILED_JOBS KSCEN_EXIT_FAILED_JOBS
#define EXIT_NOT_SAVED KSCEN_EXIT_NOT_SAVED
#define EXIT_BISECT_SKIP KSCEN_EXIT_BISECT_SKIP
#define DEFAULT_MAX_JOBS 100000UL

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;
	const char *summary;
	/* the help text of its options; NULL: it parses them with options.h */
	const char *options;
};

extern const struct cmd cmd_table[];	/* cmd_table.c */
extern const unsigned cmd_table_nr;
const struct cmd *cmd_find(const char *name);
/* `kscen --help`: every command's summary, the exit codes. */
void cmd_main_help(FILE *out);
void cmd_help(const struct cmd *c, FILE *out);
#define HELP_OPT { "help", no_argument, NULL, 'h' }

/* "kscen CMD: message" and a pointer to --help on stderr; EXIT_USAGE. */
int cmd_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Option values, strictly; a usage error said and -EINVAL otherwise. */
int cmd_opt_uint(const char *cmd, const char *opt, const char *arg,
		 unsigned long max, unsigned long *out);
int cmd_opt_format(const char *cmd, const char *arg, enum kscen_format *f);
int cmd_opt_pct(const char *cmd, const char *opt, const char *arg, double *out);

/*
 * SIGINT, SIGTERM and SIGHUP set kscen_interrupted (the first; a second
 * ends the process): @restart, system calls go on (SA_RESTART), else they
 * fail with EINTR, for a command that waits on a child. The exit code of
 * the noted signal: 128 + its number.
 */
void cmd_catch_signals(bool restart);
int cmd_signal_exit(void);

/*
 * Run @fn(@argc, @argv) in a child process and give back its exit code;
 * if it ends before @fn returns (a module calling exit(), a crash), say so
 * and return EXIT_USAGE.
 */
int cmd_in_child(const char *cmd, int (*fn)(int argc, char **argv), int argc, char **argv);

/* Load @path and expand it: 0, or -EINVAL with the problems said. */
int cmd_load_and_expand(const char *path, unsigned long max_jobs,
			struct kscen_scenario **s, struct kscen_jobs *jobs);
/*
 * The same, keeping only the jobs @filter (a glob, or NULL: all) matches,
 * in memory that grows with those (kscen_expand_some()); *@total: the
 * matrix's jobs.
 */
int cmd_load_and_expand_some(const char *path, unsigned long max_jobs,
			     const char *filter, struct kscen_scenario **s,
			     struct kscen_jobs *jobs, unsigned long *total);
/*
 * --shard K/N, or the job array's index (--shards N gives the count where
 * the environment has none): 1 and *k, *n set; 0 not sharded; -1 usage.
 */
int cmd_shard_opts(const char *cmd, const char *shard, unsigned long shards,
		   unsigned *k, unsigned *n);
void cmd_shard_jobs(struct kscen_jobs *jobs, struct kscen_jobs *all,
		    unsigned k, unsigned n, const char *results,
		    const char *scenario, char **balance);
void cmd_jobs_release(struct kscen_jobs *jobs, struct kscen_jobs *all);
struct kscen_run;
/* A result file, or the newest run in a directory of them. */
int cmd_load_result(const char *arg, struct kscen_run **out);
/* SCENARIO.yaml -> RESULTS/<scenario> (malloc'ed); a directory as it is. */
char *cmd_runs_dir(const char *arg, const char *results);

int cmd_run(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int kscen_cmd_history(int argc, char **argv);	/* cmd_history.c */

#endif
