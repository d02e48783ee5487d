// SPDX-License-Identifier: GPL-2.0
/* calibrate.c - `kscen calibrate`: N stored runs, then each job's drift. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/history.h"
#include "store/store.h"
#include "report/report.h"
#include "scenario/scenario_load.h"
#include "lib/util.h"
#include "cmd.h"
#include "options.h"

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
int cmd_calibrate(int argc, char **argv)
{
	const char *results = "results";
	unsigned long n = 5, r = 0;
	struct kscen_scenario *s;
	struct kscen_system sys;
	struct kscen_history h;
	struct kscen_jobs jobs;
	bool quiet = false;
	char *dir, *args[16], repeat[24];
	int code = 0;
	const struct kscen_option opts[] = {
		OPT_UINT('n', "runs", &n, "N", 1, 1000, "stored runs to make (default 5)"),
		OPT__REPEAT(&r, "recorded samples per job (default: the scenario's)"),
		OPT__RESULTS(&results, "where runs are stored (default: results/)"),
		OPT__QUIET(&quiet, "no progress on stderr"),
		OPT_END(),
	};

	optind = kscen_parse_options("calibrate", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	snprintf(repeat, sizeof(repeat), "%lu", r);
	if (argc - optind != 1)
		return cmd_usage_error("calibrate", "needs one scenario file");
	if (cmd_load_and_expand(argv[optind], DEFAULT_MAX_JOBS, &s, &jobs))
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
		if (r) {
			args[k++] = "-r";
			args[k++] = repeat;
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

