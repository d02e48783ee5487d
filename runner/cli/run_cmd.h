/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run_cmd.h - one run as the commands that take samples make it: `kscen
 * run` (run.c, also in a `kscen vm` guest) and `kscen ab` (ab.c), which
 * differ only in where the samples are taken (ro.sample). The options
 * they share resolve the same way, a run is made, stored, reported and
 * exits the same way, in phases that leave what to free to one cleanup
 * (run_cmd.c).
 */
#ifndef KSCEN_RUN_CMD_H
#define KSCEN_RUN_CMD_H

#include <stdbool.h>

#include "expand/jobs.h"
#include "report/report.h"
#include "sample/journal.h"
#include "sample/runner.h"
#include "store/history.h"
#include "store/store.h"

struct cmd_run_source;

struct run_cmd {
	const char *cmd;		/* "run", "ab", "exec", "rerun": its messages */
	struct cmd_run_source *src;	/* exec, rerun: the scenario's text (run.h) */
	/* the options; what is not given is 0, NULL, or noted */
	const char *results, *compare, *label, *shard, *resume;
	unsigned long shards, repeat, warmup, max_jobs, max_repeat;
	double gate, fdr, until_ci;
	enum kscen_format fmt;
	bool no_save, bisect;
	bool dry_run;			/* list the jobs, take nothing */
	bool whole_plan;		/* keep every job; --filter picks as it runs */
	struct kscen_run_opts ro;	/* ro.sample: samples taken elsewhere */
	/* what the phases make, all freed by run_cmd_fini() */
	struct kscen_scenario *s;
	struct kscen_jobs jobs;		/* those the run runs */
	unsigned long total;		/* the plan's jobs */
	unsigned sk, sn;
	int sharded;
	char *balance;
	struct kscen_journal_hdr jh;
	struct kscen_journal *journal;
	char *resume_dir;
	struct kscen_idset want;	/* the jobs run, read from a reference */
	struct kscen_ref_spec rs;
	struct kscen_refs refs;
	struct kscen_run *run;
	int ret;			/* kscen_run_jobs()'s */
	int save_err, tripped;
};

/* @rc for command @cmd with the defaults of `kscen run`. */
void run_cmd_init(struct run_cmd *rc, const char *cmd);
/*
 * The phases, in order; each but the last returns 0 or the exit code to
 * stop with (the problem said). run_cmd_load(): the scenario @path ("-":
 * stdin; NULL: rc->src's text, or the journal of --resume) loaded and expanded, the jobs kept that the run
 * runs, the options resolved. run_cmd_check(): what must hold before a
 * sample is taken (--filter matches, the reference, the results
 * directory). run_cmd_new(): the run, before its samples. run_cmd_take():
 * the samples (journaled where they are taken here). run_cmd_store(): the
 * references read, the run saved. run_cmd_report(): the report, the gate,
 * and the exit code.
 */
int run_cmd_load(struct run_cmd *rc, const char *path);
int run_cmd_check(struct run_cmd *rc);
void run_cmd_new(struct run_cmd *rc, int argc, char **argv);
void run_cmd_take(struct run_cmd *rc);
void run_cmd_store(struct run_cmd *rc);
int run_cmd_report(struct run_cmd *rc);
/* Everything the phases made, whichever ran. */
void run_cmd_fini(struct run_cmd *rc);

#endif
