// SPDX-License-Identifier: GPL-2.0
/*
 * ab.c - `kscen ab --kernel A --kernel B SCENARIO`: two kernels, one run.
 *
 * Comparing kernels by two runs with a reboot between is a between-run
 * comparison, the kind run-to-run drift spoils (docs/statistics.md). Here
 * both kernels boot once, side by side under QEMU (vm.c), each with an agent
 * (agent.c) that takes samples on request, and the run loop (run.c) takes
 * the samples through its sampler hook: every job of the scenario becomes
 * two jobs, "kernel=A" (the baseline) and "kernel=B", laid out A's jobs then
 * B's, so that round r samples every job on A and then on B, and the next
 * round goes back the other way (run.c's alternation). Sample i of a job on
 * A and on B share a round, so A -> B deltas are paired comparisons within
 * one run, reported like any kscen report.
 *
 * When a guest fails (panics, hangs, its qemu dies) its remaining samples
 * fail with the console's last lines as the reason and the other kernel's
 * samples go on and are kept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "report.h"
#include "util.h"
#include "runner.h"
#include "scenario.h"
#include "scenario_load.h"
#include "vm.h"
#include "ab.h"
#include "cmd.h"
#include "options.h"


static void on_signal(int sig)
{
	(void)sig;
	kscen_interrupted = 1;
}

/* ---- the jobs: every job twice, kernel=A then kernel=B ------------------ */

void kscen_ab_jobs(const struct kscen_jobs *in, struct kscen_jobs *out)
{
	unsigned n = in->nr;

	out->nr = 2 * n;
	out->job = kscen_xcalloc(2 * n + 1, sizeof(*out->job));
	for (unsigned k = 0; k < 2; k++)
		for (unsigned j = 0; j < n; j++) {
			const struct kscen_job *src = &in->job[j];
			struct kscen_job *d = &out->job[k * n + j];
			const char *slash = strchr(src->id, '/');

			*d = *src;
			d->id = slash ? kscen_xasprintf("%.*s/kernel=%s,%s",
							(int)(slash - src->id), src->id,
							ab_labels[k], slash + 1)
				      : kscen_xasprintf("%s/kernel=%s", src->id, ab_labels[k]);
			d->nr_kv = src->nr_kv + 1;
			d->keys = kscen_xcalloc(d->nr_kv + 1, sizeof(char *));
			d->values = kscen_xcalloc(d->nr_kv + 1, sizeof(char *));
			d->keys[0] = kscen_xstrdup("kernel");
			d->values[0] = kscen_xstrdup(ab_labels[k]);
			for (unsigned i = 0; i < src->nr_kv; i++) {
				d->keys[i + 1] = kscen_xstrdup(src->keys[i]);
				d->values[i + 1] = kscen_xstrdup(src->values[i]);
			}
			/* B's baseline is the same job on A: the A -> B delta */
			d->baseline = k ? (int)j : src->baseline;
			d->previous = src->previous < 0 ? -1 : src->previous + (int)(k * n);
		}
}

void kscen_ab_jobs_free(struct kscen_jobs *jobs)
{
	for (unsigned i = 0; i < jobs->nr; i++) {
		struct kscen_job *d = &jobs->job[i];

		for (unsigned k = 0; k < d->nr_kv; k++) {
			free(d->keys[k]);
			free(d->values[k]);
		}
		free(d->keys);
		free(d->values);
		free(d->id);
	}
	free(jobs->job);
}

/* ---- the command ------------------------------------------------------------ */

/* The system section: the host's, with the guests' kernels and vCPUs. */
static void ab_system(struct ab *ab, struct kscen_system *sys)
{
	char *host = sys->hostname;
	struct guest *a = &ab->g[0], *b = &ab->g[1];

	sys->hostname = kscen_xasprintf("%s-vm-%s", host, kscen_vm_accel_name(&a->vm));
	free(host);
	free(sys->kernel);
	sys->kernel = kscen_xasprintf("A=%s B=%s", a->release ? a->release :
				      a->vm.release ? a->vm.release : "?",
				      b->release ? b->release :
				      b->vm.release ? b->vm.release : "?");
	free(sys->kernel_build);
	sys->kernel_build = kscen_xasprintf("A: %s; B: %s", a->version ? a->version : "?",
					    b->version ? b->version : "?");
	free(sys->cmdline);
	sys->cmdline = kscen_xasprintf("console=ttyS0 rdinit=/init panic=-1%s%s",
				       a->c.append ? " " : "",
				       a->c.append ? a->c.append : "");
	sys->nr_cpus = a->c.cpus;
	host = sys->cpu_model;
	sys->cpu_model = kscen_xasprintf("QEMU %s guest on %s", a->vm.kvm ? "KVM" : "TCG",
					 host ? host : "?");
	free(host);
}

static void overheads(struct ab *ab)
{
	for (unsigned k = 0; k < 2; k++) {
		struct guest *g = &ab->g[k];

		if (!g->ready_s)
			continue;
		fprintf(stderr, "kscen ab: kernel %s (%s): booted in %.1f s (guest uptime "
			"%.1f s), agent ready at %.1f s; per-sample overhead (round trip - "
			"time in the guest) median %.2f ms over %u samples\n", g->c.label,
			g->release, g->vm.boot_s, g->vm.guest_up, g->ready_s,
			g->nr_over ? kscen_median(g->over, g->nr_over) * 1e3 : 0.0,
			g->nr_over);
	}
}

/* --kernel, --modules: at most twice, A then B. */
struct two {
	const char *what;
	const char *v[2];
	unsigned nr;
};

static int opt_two(const char *cmd, const struct kscen_option *o, const char *arg)
{
	struct two *t = o->value;

	if (t->nr == 2)
		return cmd_usage_error(cmd, "%s: at most two, A then B", t->what);
	t->v[t->nr++] = arg;
	return 0;
}

/*
 * The guests load the modules of the scenario's workloads from the same
 * paths: false (printed) if one is where they would not see it.
 */
static bool modules_seen(const struct kscen_jobs *jobs)
{
	for (unsigned i = 0; i < jobs->nr; i++) {
		const char *origin = kscen_workload_origin(jobs->job[i].workload);
		char *real = origin ? realpath(origin, NULL) : NULL;
		bool bad = real && kscen_vm_hidden(real, NULL);

		if (bad)
			fprintf(stderr, "kscen ab: the module %s (workload %s) is under /tmp "
				"or /run, which the guests mount a tmpfs of their own over; "
				"move it elsewhere\n", real, jobs->job[i].workload->name);
		free(real);
		if (bad)
			return false;
	}
	return true;
}

int kscen_cmd_ab(int argc, char **argv)
{
	struct ab ab = { .hang_timeout = HANG_TIMEOUT };
	struct kscen_vm_config c = {
		.cpus = 2, .memory = 1ULL << 30, .boot_timeout = 300, .agent = true,
		.forward = -1,
	};
	struct two kernels = { .what = "--kernel" }, modules = { .what = "--modules" };
	unsigned long cpus = 2, boot = 300, hang = HANG_TIMEOUT;
	const char *results = "results";
	unsigned long repeat = 0, warmup = ULONG_MAX;
	enum kscen_format fmt = KSCEN_FMT_TEXT;
	struct kscen_run_opts ro = { 0 };
	struct kscen_scenario *s = NULL;
	struct kscen_jobs jobs = { 0 }, both = { 0 };
	struct kscen_run *run = NULL;
	char *script = NULL, *sargv[2];
	bool save = true, no_save = false;
	int ret, code = 0;
	const struct kscen_option opts[] = {
		OPT_CALLBACK(0, "kernel", &kernels, "BZIMAGE",
			     "twice: kernel A (the baseline), then kernel B", opt_two),
		OPT_CALLBACK(0, "modules", &modules, "DIR",
			     "once per --kernel, in the same order", opt_two),
		KSCEN_VM_OPTIONS(&c, &cpus, &boot),
		OPT_UINT(0, "hang-timeout", &hang, "S", 1, 86400,
			 "a guest silent for S seconds past a sample's\n"
			 "timeout is taken for hung and stopped (default 60)"),
		OPT_UINT('r', "repeat", &repeat, "N", 1, 1000000,
			 "recorded samples per job and kernel"),
		OPT_UINT('w', "warmup", &warmup, "N", 0, 1000000,
			 "discarded samples per job and kernel"),
		OPT_STRING('o', "results", &results, "DIR",
			   "where the run is stored (default: results/)"),
		OPT_STRING(0, "filter", &ro.filter, "GLOB",
			   "only the jobs whose id (with kernel=) matches"),
		OPT_BOOL(0, "no-save", &no_save, "do not store the run"),
		OPT_FORMAT(&fmt),
		OPT_BOOL('q', "quiet", &ro.quiet, "no progress on stderr"),
		OPT_COUNT('v', "verbose", &kscen_verbose,
			  "every sample, and the qemu command lines"),
		OPT_END(),
	};
	const char **kernel = kernels.v, **module = modules.v;
	unsigned nr_kernels;

	optind = kscen_parse_options("ab", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	nr_kernels = kernels.nr;
	c.cpus = cpus;
	c.boot_timeout = boot;
	ab.hang_timeout = hang;
	save = !no_save;
	if (nr_kernels != 2 || argc - optind != 1)
		return cmd_usage_error("ab", "needs --kernel A --kernel B and one scenario file");
	if (kscen_scenario_load(argv[optind], &s))
		return EXIT_USAGE;
	if (kscen_expand(s, 100000, &jobs)) {
		kscen_scenario_free(s);
		return EXIT_USAGE;
	}
	if (!modules_seen(&jobs)) {
		kscen_jobs_free(&jobs);
		kscen_scenario_free(s);
		return EXIT_USAGE;
	}
	ab.n = jobs.nr;
	ab.sha256 = s->sha256;
	kscen_ab_jobs(&jobs, &both);
	ro.repeat = repeat ? repeat : s->repeat;
	ro.warmup = warmup != ULONG_MAX ? warmup : s->warmup;
	ro.max_repeat = ro.repeat;	/* repeat: auto is not for two guests */
	ro.sample = ab_sample;
	ro.sample_arg = &ab;
	if (save && (ret = kscen_result_dir_ready(results, s->name))) {
		fprintf(stderr, "kscen ab: cannot store runs in %s/%s: %s\n",
			results, s->name, strerror(-ret));
		code = EXIT_USAGE;
		goto out;
	}

	/* the agent: this kscen, on the same scenario path, from here */
	sargv[0] = "agent";
	sargv[1] = argv[optind];
	script = kscen_vm_script(2, sargv, NULL);
	if (!script) {
		code = EXIT_USAGE;
		goto out;
	}
	c.script = script;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (unsigned k = 0; k < 2; k++) {
		struct guest *g = &ab.g[k];

		g->c = c;
		g->c.label = ab_labels[k];
		g->c.kernel = kernel[k];
		g->c.modules = module[k];
		if (kscen_vm_spawn(&g->c, &g->vm))
			g->dead = kscen_xasprintf("it did not start");
	}
	for (unsigned k = 0; k < 2; k++) {
		struct guest *g = &ab.g[k];

		if (g->dead)
			continue;
		if (kscen_vm_wait_booted(&g->c, &g->vm))
			g->dead = g->vm.panic ? kscen_xasprintf("it did not boot (%s)",
					strstr(g->vm.panic, "] ") ? strstr(g->vm.panic, "] ") + 2 :
					g->vm.panic) : kscen_xasprintf("it did not boot");
		else
			ab_agent_hello(&ab, g);
	}
	if (ab.g[0].dead && ab.g[1].dead) {
		fprintf(stderr, "kscen ab: neither kernel booted; nothing run\n");
		code = EXIT_FAILED_JOBS;
		goto out;
	}
	/* one under KVM, the other fallen back to TCG: no comparison */
	if (!ab.g[0].dead && !ab.g[1].dead && ab.g[0].vm.kvm != ab.g[1].vm.kvm) {
		fprintf(stderr, "kscen ab: kernel %s runs under KVM and kernel %s under "
			"TCG (%s): their numbers cannot be compared (--accel tcg runs "
			"both under TCG); nothing run\n", ab.g[0].vm.kvm ? "A" : "B",
			ab.g[0].vm.kvm ? "B" : "A",
			ab.g[0].vm.kvm ? ab.g[1].vm.accel_why : ab.g[0].vm.accel_why);
		code = EXIT_FAILED_JOBS;
		goto out;
	}
	fprintf(stderr, "kscen ab: A = %s, B = %s, under %s%s%s%s\n",
		ab.g[0].vm.release ? ab.g[0].vm.release : kernel[0],
		ab.g[1].vm.release ? ab.g[1].vm.release : kernel[1],
		ab.g[0].vm.kvm ? "KVM" : "TCG", ab.g[0].vm.kvm ? "" : " (",
		ab.g[0].vm.kvm ? "" : ab.g[0].vm.accel_why,
		ab.g[0].vm.kvm ? "" : "): emulated CPUs, so the numbers say "
		"nothing about the kernels' speed");

	run = kscen_xcalloc(1, sizeof(*run));
	run->version = kscen_xstrdup(KSCEN_VERSION);
	run->scenario = kscen_xstrdup(s->name);
	run->scenario_file = kscen_xstrdup(s->file);
	run->scenario_sha256 = kscen_xstrdup(s->sha256);
	run->command = kscen_join_argv(argc + 1, argv - 1);
	run->repeat = ro.repeat;
	run->warmup = ro.warmup;
	kscen_system_read(&run->system);
	ab_system(&ab, &run->system);
	run->started = kscen_utc_now();
	ret = kscen_run_jobs(s, &both, &ro, run);
	run->finished = kscen_utc_now();
	if (ret && ret != -EINTR)
		fprintf(stderr, "kscen ab: run cut short: %s\n", strerror(-ret));
	if (ab.g[0].dead || ab.g[1].dead)
		run->partial = true;
	for (unsigned k = 0; k < 2; k++) {
		struct guest *g = &ab.g[k];
		char *bye = NULL;

		if (g->dead || ab_agent_send(g, "quit\n") || ab_agent_line(g, 10, &bye))
			continue;
		free(bye);
	}
	overheads(&ab);
	if (save && kscen_result_save(run, results))
		fprintf(stderr, "kscen ab: could not save the results under %s\n", results);
	kscen_report(stdout, run, NULL, fmt);
	if (save && run->path)
		fprintf(fmt == KSCEN_FMT_JSON || fmt == KSCEN_FMT_CSV ? stderr : stdout,
			"\nresults: %s\n", run->path);
	for (unsigned i = 0; i < run->nr_jobs; i++)
		if (run->jobs[i].status == KSCEN_FAILED)
			code = EXIT_FAILED_JOBS;
	if (ret == -EINTR)
		code = 128 + SIGINT;
	else if (ret)
		code = EXIT_FAILED_JOBS;
out:
	for (unsigned k = 0; k < 2; k++) {
		struct guest *g = &ab.g[k];

		/* the init powers off once its agent quit */
		kscen_vm_stop(&g->vm, g->dead ? 0 : 10000);
		kscen_vm_free(&g->vm);
		free(g->dead);
		free(g->release);
		free(g->version);
		free(g->over);
	}
	if (run)
		kscen_run_free(run);
	free(script);
	kscen_ab_jobs_free(&both);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
	return code;
}
