// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_table.c - the table of commands: each with its function, arguments,
 * one-line summary and options' help, from which `kscen --help` and
 * `kscen CMD --help` are generated.
 */
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "vm.h"
#include "cmd.h"

const struct cmd cmd_table[] = {
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
	fprintf(out, "\n'kscen COMMAND --help' shows a command's options.\n"
		"exit codes: 0 ok, 1 regression gate, 2 invalid input or nothing to\n"
		"compare, 3 a job failed, 4 results not saved (kept in the journal),\n"
		"125 run --bisect cannot tell, 130 SIGINT, 143 SIGTERM\n");
}

const unsigned cmd_table_nr = ARRAY_SIZE(cmd_table);
