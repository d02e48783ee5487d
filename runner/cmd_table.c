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
	  NULL },
	{ "plan", cmd_plan, "SCENARIO.yaml [--filter GLOB] [--shard K/N] [--max-jobs N]",
	  "Print the expanded job ids, one a line, and their count; run nothing.", NULL },
	{ "validate", cmd_validate, "SCENARIO.yaml... [--max-jobs N]",
	  "Check scenario files; exit 0 if all are valid, 2 otherwise.", NULL },
	{ "list", cmd_list, "[WORKLOAD]",
	  "List the workloads, or one workload's metrics and parameters.", NULL },
	{ "compare", cmd_compare, "OLD NEW [--gate PCT] [--format F] | label:A label:B DIR",
	  "Delta table between two stored runs, drift from the runs beside OLD allowed for.",
	  NULL },
	{ "calibrate", cmd_calibrate, "SCENARIO.yaml [-n N] [-r N] [-o DIR]",
	  "Run the scenario N times to measure each job's run-to-run drift.", NULL },
	{ "history", kscen_cmd_history, "SCENARIO.yaml|DIR [--job GLOB] [-o DIR]",
	  "The stored runs of a scenario; with --job, one job's median over time.", NULL },
	{ "merge", cmd_merge, "OUT SHARD-RUN|DIR... [--force]",
	  "Join the shard runs of one plan (run --shard K/N) into one run file OUT.", NULL },
	{ "report", cmd_report, "RESULT [--format F]",
	  "Re-render a stored run (a file, or the newest in a directory).", NULL },
	{ "plot", cmd_plot, "RESULT | OLD NEW | --history GLOB DIR | --flame JOB RESULT, -o FILE",
	  "Draw a run's sweep, two runs, one job over time (gnuplot), or a flame graph.",
	  NULL },
	{ "vm", kscen_cmd_vm, "--kernel BZIMAGE [options] -- run SCENARIO [ARGS]",
	  "Boot a kernel under QEMU on this machine's root, run kscen in it, keep the run here.",
	  NULL },
	{ "ab", kscen_cmd_ab, "--kernel A --kernel B [options] SCENARIO.yaml",
	  "Boot two kernels under QEMU and run the scenario on both in alternating rounds.",
	  NULL },
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
		"125 run --bisect cannot tell, 129 SIGHUP, 130 SIGINT, 143 SIGTERM\n");
}

const unsigned cmd_table_nr = ARRAY_SIZE(cmd_table);
