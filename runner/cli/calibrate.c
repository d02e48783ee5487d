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

/* One line of the table: @d of job @id (@what: a delta of it). */
static void print_drift(const struct kscen_drift *d, const char *id, const char *what)
{
	char a[32], b[32], w[32];

	if (d->src != KSCEN_DRIFT_OWN) {
		printf("%4u %11s %9s %9s  %s%s\n", d->runs, "too few", "-", "-", id, what);
		return;
	}
	kscen_format_spread(expm1(d->spread), a, sizeof(a));
	snprintf(b, sizeof(b), "%.1f%%", 100 * expm1(d->mde_between));
	snprintf(w, sizeof(w), "%.1f%%", 100 * expm1(d->mde_within));
	printf("%4u %12s %9s %9s  %s%s\n", d->runs, a, b, w, id, what);
}

/*
 * Seed the history: N ordinary stored runs, then per job the run-to-run
 * drift and the smallest change a comparison between runs can find, beside
 * the one an interleaved comparison within a run can; the same for each
 * delta within a run; and the drift pooled over the jobs, recorded for the
 * host (calib.c) for the comparisons of jobs with too short a history.
 */
int cmd_calibrate(int argc, char **argv)
{
	const char *results = "results";
	unsigned long n = 5, r = 0;
	struct kscen_scenario *s;
	struct kscen_system sys;
	struct kscen_history h;
	struct kscen_jobs jobs;
	struct kscen_calib cal = { 0 };
	double v = 0;
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
	printf("# run-to-run: how far one more run's median may fall from the level "
	       "of the runs\n# since the last change point, 95%%, with nothing "
	       "changed; detectable: the smallest\n# change found 80%% of the "
	       "time at 95%% confidence, between runs and within one\n");
	printf("%4s %11s %9s %9s  %s\n", "runs", "run-to-run", "between",
	       "within", "job (to baseline, to previous: the delta within a run)");
	for (unsigned i = 0; i < h.nr; i++) {
		const struct kscen_run *ref = h.run[i];

		if (strcmp(ref->system.hostname, sys.hostname) ||
		    strcmp(ref->system.kernel_build, sys.kernel_build) ||
		    strcmp(ref->system.kernel, sys.kernel))
			continue;
		for (unsigned k = 0; k < ref->nr_jobs; k++) {
			const struct kscen_job_result *j = &ref->jobs[k];
			struct kscen_drift d;

			if (!kscen_primary(j))
				continue;
			kscen_history_drift(&h, ref, j, kscen_primary(j)->name, &d);
			print_drift(&d, j->id, "");
			if (d.src == KSCEN_DRIFT_OWN) {
				v += d.df * d.s * d.s;
				cal.df += d.df;
				cal.jobs++;
			}
			/* the deltas within a run, where the job has them */
			for (unsigned b = 0; b < 2; b++) {
				const char *other = b ? j->previous : j->baseline;
				const struct kscen_job_result *o = kscen_run_find(ref, other);

				if (!o || !kscen_primary(o) || !strcmp(other, j->id) ||
				    (b && j->baseline && !strcmp(j->baseline, other)))
					continue;
				/* a copy of ref: its own delta is in the history too */
				kscen_pair_drift(&h, &(struct kscen_run){ .system = ref->system },
						 j, o, &d);
				print_drift(&d, j->id, b ? "  to previous" : "  to baseline");
			}
		}
		break;	/* the newest run of this machine lists the jobs */
	}
	printf("# history: %s (%u usable runs)\n", dir, h.nr);
	if (cal.df) {
		char *now = kscen_utc_now(), sp[32];
		int err;

		cal.s = sqrt(v / cal.df);
		snprintf(cal.when, sizeof(cal.when), "%s", now);
		free(now);
		err = kscen_calib_save(results, &sys, s->name, &cal);
		kscen_format_spread(expm1(1.959963984540054 * cal.s), sp, sizeof(sp));
		printf("# pool: a run-to-run SD of %.2f%% over %u jobs (%u degrees of "
		       "freedom), %s at 95%%;\n#   %s %s/.calibration/ for the jobs "
		       "of this host with too short a history\n", 100 * expm1(cal.s),
		       cal.jobs, cal.df, sp, err ? "could not be saved in" : "saved in",
		       results);
		if (err)
			fprintf(stderr, "kscen calibrate: %s/.calibration: %s\n", results,
				strerror(-err));
	} else {
		printf("# pool: none, no job has 3 runs since its last change point\n");
	}
	kscen_history_free(&h);
	kscen_system_fini(&sys);
	free(dir);
out:
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
	return code ? (code < 0 ? EXIT_USAGE : code) : 0;
}

/* ---- list, report, compare --------------------------------------------- */

