/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd.h - the command line's layer: the list of commands (below), one file
 * a command (cli/NAME.c), what they share (cmd.c) and their options
 * (options.h). Only this layer prints; the work itself is in the stages
 * under it (sample/run.c, report/, ...), which unit tests call.
 */
#ifndef KSCEN_CMD_H
#define KSCEN_CMD_H

#include <getopt.h>
#include <stdio.h>

#include "expand/jobs.h"
#include "report/report.h"
#include "sample/runner.h"

/* Exit codes (runner.h) */
#define EXIT_GATE KSCEN_EXIT_GATE
#define EXIT_USAGE KSCEN_EXIT_USAGE
#define EXIT_FAILED_JOBS KSCEN_EXIT_FAILED_JOBS
#define EXIT_NOT_SAVED KSCEN_EXIT_NOT_SAVED
#define EXIT_BISECT_SKIP KSCEN_EXIT_BISECT_SKIP
#define DEFAULT_MAX_JOBS 100000UL

/*
 * Every command, written once: its name, function, arguments, one-line
 * summary and the help text of its options (NULL: it parses them with
 * options.h and its --help comes from its option table; "": internal, not
 * listed). One file a command under cli/, as git's builtin/NAME.c; main.c
 * dispatches from this list, cmd.c makes `kscen --help` from it.
 */
#define KSCEN_COMMANDS(X)							\
	X(run, "SCENARIO.yaml|- [options]",					\
	  "Expand the scenario, run every job, save the samples, print the report.", \
	  NULL)									\
	X(exec, "[options] -- CMD [-- CMD ...]",					\
	  "Run commands as one interleaved A/B scenario, the first the baseline.", NULL) \
	X(rerun, "RESULT [options]",						\
	  "Run again the scenario a stored run kept, as it ran, compared with it.", NULL) \
	X(plan, "SCENARIO.yaml [--filter GLOB] [--shard K/N] [--max-jobs N]",	\
	  "Print the expanded job ids, one a line, and their count; run nothing.", NULL) \
	X(validate, "SCENARIO.yaml... [--max-jobs N]",				\
	  "Check scenario files; exit 0 if all are valid, 2 otherwise.", NULL)	\
	X(list, "[WORKLOAD]",							\
	  "List the workloads, or one workload's metrics and parameters.", NULL) \
	X(compare, "OLD NEW [MORE...] [--gate PCT] [--format F] | label:A label:B... DIR", \
	  "Stored runs side by side, each against the first (old | new | change).", \
	  NULL)									\
	X(calibrate, "SCENARIO.yaml [-n N] [-r N] [-o DIR]",			\
	  "Run the scenario N times to measure each job's run-to-run drift.", NULL) \
	X(history, "SCENARIO.yaml|DIR [--job GLOB] [-o DIR]",			\
	  "The stored runs of a scenario; with --job, one job's median over time.", NULL) \
	X(merge, "OUT SHARD-RUN|DIR... [--force]",				\
	  "Join the shard runs of one plan (run --shard K/N) into one run file OUT.", NULL) \
	X(report, "RESULT [--format F]",					\
	  "Re-render a stored run (a file, or the newest in a directory).", NULL) \
	X(plot, "RESULT | OLD NEW | --history GLOB [--all] DIR | --flame JOB RESULT, -o FILE", \
	  "Draw a run's sweep, two runs, one job over time (gnuplot), or a flame graph.", \
	  NULL)									\
	X(vm, "--kernel BZIMAGE [options] -- run SCENARIO [ARGS]",		\
	  "Boot a kernel under QEMU on this machine's root, run kscen in it, keep the run here.", \
	  NULL)									\
	X(ab, "--kernel A --kernel B [options] SCENARIO.yaml",			\
	  "Boot two kernels under QEMU and run the scenario on both in alternating rounds.", \
	  NULL)									\
	X(system, "check [--watch MS]",						\
	  "The machine's settings that move results, what each does, how to change it.", \
	  NULL)									\
	X(agent, "[--stdio] [--max-jobs N] SCENARIO.yaml", "", "")	/* internal: ab's guest side */

#define CMD_DECLARE(name, args, summary, options) int cmd_##name(int argc, char **argv);
KSCEN_COMMANDS(CMD_DECLARE)
#undef CMD_DECLARE

/* A command's usage, as --help prints it (cmd.c). */
struct cmd {
	const char *name, *args, *summary, *options;
};
extern const struct cmd cmd_table[];
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
struct kscen_option;
int cmd_opt_fdr(const char *cmd, const struct kscen_option *o, const char *arg);
/* An options.h callback: a name safe as a directory (--label, --name). */
struct kscen_option;
int cmd_opt_name(const char *cmd, const struct kscen_option *o, const char *arg);

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
/* The scenario file @path, or "-": stdin (named <stdin>); 0 or -EINVAL said. */
int cmd_scenario_load(const char *path, struct kscen_scenario **s);
/*
 * The jobs of @s that @filter (a glob, or NULL: all) matches, in memory
 * that grows with those; *@total: the matrix's jobs. On an error @s is
 * freed.
 */
int cmd_expand_some(struct kscen_scenario *s, unsigned long max_jobs,
		    const char *filter, struct kscen_jobs *jobs, unsigned long *total);
/*
 * --shard K/N, or the job array's index (--shards N gives the count where
 * the environment has none): 1 and *k, *n set; 0 not sharded; -1 usage.
 */
int cmd_shard_opts(const char *cmd, const char *shard, unsigned long shards,
		   unsigned *k, unsigned *n);
/*
 * Load @path and keep the jobs of one shard of its plan, in memory that
 * grows with those (the plan is walked for its ids and links alone, then
 * again for the shard's jobs, each with its place in the plan): shard k of
 * n, balanced by the job durations of the newest stored run of the
 * scenario in @results that has them (*@balance: its path, malloc'ed),
 * else by job count; or, resuming, the jobs @ids names. *@total: the
 * plan's jobs. 0, or -EINVAL with the problems said.
 */
struct cmd_shard {
	unsigned k, n;
	unsigned long max_jobs;
	const char *results;
	char **ids;		/* NULL: cut the shard */
	unsigned nr_ids;
};
int cmd_load_shard(const char *path, const struct cmd_shard *sh,
		   struct kscen_scenario **s, struct kscen_jobs *jobs,
		   unsigned long *total, char **balance);
/* The same for the scenario *@s loaded already; on failure *@s is freed, NULL. */
int cmd_shard_expand(struct kscen_scenario **s, const struct cmd_shard *sh,
		     struct kscen_jobs *jobs, unsigned long *total, char **balance);
/* vm.c: --memory and --accel of vm and ab, as options.h callbacks. */
struct kscen_option;
int kscen_vm_opt_memory(const char *cmd, const struct kscen_option *o, const char *arg);
int kscen_vm_opt_accel(const char *cmd, const struct kscen_option *o, const char *arg);
/*
 * The guest options of vm and ab, for an options.h table: @c a struct
 * kscen_vm_config *, @cpus and @boot unsigned long * (checked, then copied).
 */
#define KSCEN_VM_OPTIONS(c, cpus, boot)						\
	OPT_UINT(0, "cpus", (cpus), "N", 1, 64, "guest vCPUs (default 2)"),		\
	OPT_CALLBACK(0, "memory", &(c)->memory, "SIZE", "guest memory (default 1G)",	\
		     kscen_vm_opt_memory),						\
	OPT_CALLBACK(0, "accel", &(c)->accel, "A",					\
		     "auto (default: KVM if it runs guests and QEMU starts\n"	\
		     "under it, else TCG),\n"		\
		     "kvm or tcg", kscen_vm_opt_accel),				\
	OPT_STRING(0, "append", &(c)->append, "ARGS", "more kernel command line"),	\
	OPT_UINT(0, "boot-timeout", (boot), "S", 1, 86400,				\
		 "give up on a boot after S seconds (default 300)")
struct kscen_run;
/*
 * Walk the jobs of @path one at a time, printing the ids that match @filter
 * if @print: the matrix is never held whole. *@shown: the jobs printed
 * (all of them without @print). On an error the ids before it were printed.
 */
int cmd_stream_jobs(const char *path, unsigned long max_jobs, bool print,
		    const char *filter, unsigned long *shown);
/*
 * An empty selection, said the same way by every command (stderr): "kscen
 * CMD: OPT 'GLOB' matches no job id of WHERE (a glob matches whole ids:
 * try '*GLOB*')". Returns EXIT_USAGE.
 */
int cmd_no_match(const char *cmd, const char *opt, const char *glob, const char *where);
/* A result file, or the newest run in a directory of them. */
int cmd_load_result(const char *arg, struct kscen_run **out);
/* SCENARIO.yaml -> RESULTS/<scenario> (malloc'ed); a directory as it is. */
char *cmd_runs_dir(const char *arg, const char *results);


/*
 * The jobs as `kscen plan` lists them: the ids @filter keeps (NULL: all),
 * one a line, then their number, and with @n the shard @k/@n of @all jobs
 * they are and the run that balanced it (@balance, or NULL). Returns that
 * number.
 */
unsigned cmd_print_jobs(const struct kscen_jobs *jobs, const char *filter,
			unsigned k, unsigned n, unsigned long all, const char *balance);

#endif
