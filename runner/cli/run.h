/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - the path of `kscen run` (run.c), which `kscen exec` and `kscen
 * rerun` take too: each builds a scenario from its arguments and hands it
 * here, to be loaded, expanded, run, stored and reported exactly as a
 * scenario file is, with run's options.
 */
#ifndef KSCEN_CLI_RUN_H
#define KSCEN_CLI_RUN_H

#include "store/run.h"
#include "expand/jobs.h"
#include "options.h"

struct cmd_run_source {
	const char *cmd;		/* "exec", "rerun": messages and --help */
	const struct kscen_option *opts;	/* its own, before run's; END-ended */
	/*
	 * After the options, from the arguments @argv[0..@argc): set @text
	 * (malloc'ed, the scenario as YAML), @name (what its messages and the
	 * stored run call it) and @dir (where its modules: are relative to);
	 * 0, or EXIT_USAGE with the problem said.
	 */
	int (*build)(struct cmd_run_source *src, int argc, char **argv);
	/* Optional: the expanded jobs may run (0), or EXIT_USAGE said. */
	int (*check)(struct cmd_run_source *src, const struct kscen_jobs *jobs);
	char *text, *name, *dir;
	char *command;	/* the command line to store (malloc'ed), or NULL: argv */
	char *file;	/* the scenario_file to store (malloc'ed), or NULL: @name */
	/*
	 * kscen rerun: the stored run whose repeat, warmup, repeat: auto and
	 * --filter are taken unless the options say otherwise, and which is
	 * the reference unless --compare says otherwise.
	 */
	const struct kscen_run *like;
	void *priv;
};

/*
 * Run what @src builds with run's options from @argv (argv[0] is the
 * command's name): the exit code of kscen run.
 */
int cmd_run_from(struct cmd_run_source *src, int argc, char **argv);

#endif
