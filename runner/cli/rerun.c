// SPDX-License-Identifier: GPL-2.0
/*
 * rerun.c - `kscen rerun RESULT [options]`: the scenario a stored run kept
 * (its scenario_text, not the file on disk, which may have changed or not
 * be here), run again on this machine through kscen run's path (run.h)
 * with the stored run's samples per job and --filter, and compared with
 * it. The text is a file's contents from a file that may be hostile: it
 * is loaded through the same checks as a scenario file, and a module whose
 * build differs from the one the run recorded is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/run.h"
#include "workloads/registry.h"
#include "lib/util.h"
#include "cmd.h"
#include "run.h"

struct rerun_args {
	struct kscen_run *run;
};

static int rerun_build(struct cmd_run_source *src, int argc, char **argv)
{
	struct rerun_args *a = src->priv;
	const char *file;
	char *slash;

	if (argc != 1)
		return cmd_usage_error("rerun", "needs one stored run (a result file, "
				       "or a directory: its newest run)");
	if (cmd_load_result(argv[0], &a->run))
		return EXIT_USAGE;
	if (!a->run->scenario_text) {
		fprintf(stderr, "kscen rerun: %s holds no scenario text (kscen before "
			"0.1.0 of 2026-12-04 did not keep it): run its scenario file "
			"with --compare %s\n", a->run->path, a->run->path);
		return EXIT_USAGE;
	}
	src->text = kscen_xstrdup(a->run->scenario_text);
	/* Problems point into the result: "RESULT:scenario_text:LINE:COL". */
	src->name = kscen_xasprintf("%s:scenario_text", a->run->path);
	/* modules: as the run found them, beside the file it was read from */
	file = a->run->scenario_file ? a->run->scenario_file : "";
	slash = strrchr(file, '/');
	src->dir = slash ? kscen_xasprintf("%.*s", (int)(slash - file) + (slash == file),
					   file) : kscen_xstrdup(".");
	src->like = a->run;
	/* Stored as the file it came from: a rerun of a rerun finds its modules. */
	if (a->run->scenario_file)
		src->file = kscen_xstrdup(a->run->scenario_file);
	return 0;
}

/* A module is the one the stored run measured, or this is another run. */
static int rerun_check(struct cmd_run_source *src, const struct kscen_jobs *jobs)
{
	const struct kscen_run *like = src->like;
	int bad = 0;

	for (unsigned i = 0; i < jobs->nr; i++) {
		const struct kscen_job *job = &jobs->job[i];
		const struct kscen_job_result *was = kscen_run_find(like, job->id);
		const char *now = kscen_workload_module_sha256(job->workload);

		if (!was || kscen_same_str(was->module_sha256, now))
			continue;
		fprintf(stderr, "kscen rerun: job %s: module %s is not the build %s "
			"ran (sha256 %.16s, now %.16s)\n", job->id,
			kscen_workload_origin(job->workload) ?
			kscen_workload_origin(job->workload) : job->workload->name,
			like->path, was->module_sha256 ? was->module_sha256 : "none",
			now ? now : "none (built in)");
		bad = 1;
	}
	return bad ? EXIT_USAGE : 0;
}

int cmd_rerun(int argc, char **argv)
{
	struct rerun_args a = { 0 };
	struct cmd_run_source src = {
		.cmd = "rerun", .build = rerun_build, .check = rerun_check, .priv = &a,
	};
	int code = cmd_run_from(&src, argc, argv);

	kscen_run_free(a.run);
	return code;
}
