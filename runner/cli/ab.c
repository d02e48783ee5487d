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

#include "lib/util.h"
#include "stats/stats.h"
#include "vm/vm.h"
#include "vm/ab.h"
#include "cmd.h"
#include "options.h"
#include "run_cmd.h"


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
			fprintf(stderr, "kscen ab: the module %s (workload %s) is under "
				"/run, which the guests mount a tmpfs of their own over; "
				"move it elsewhere\n", real, jobs->job[i].workload->name);
		free(real);
		if (bad)
			return false;
	}
	return true;
}

/* Boot both guests (or start both agents here): false when neither runs. */
static bool ab_boot(struct ab *ab, const struct kscen_vm_config *c, const char **kernel,
		    const char **module, char *const *local)
{
	for (unsigned k = 0; k < 2; k++) {
		struct guest *g = &ab->g[k];

		g->c = *c;
		g->c.label = ab_labels[k];
		g->c.kernel = kernel[k];
		g->c.modules = module[k];
		if (local ? ab_local_spawn(g, local) : kscen_vm_spawn(&g->c, &g->vm))
			g->dead = kscen_xasprintf("it did not start");
	}
	for (unsigned k = 0; k < 2; k++) {
		struct guest *g = &ab->g[k];

		if (g->dead)
			continue;
		if (!local && kscen_vm_wait_booted(&g->c, &g->vm))
			g->dead = g->vm.panic ? kscen_xasprintf("it did not boot (%s)",
					strstr(g->vm.panic, "] ") ? strstr(g->vm.panic, "] ") + 2 :
					g->vm.panic) : kscen_xasprintf("it did not boot");
		else
			ab_agent_hello(ab, g);
	}
	if (ab->g[0].dead && ab->g[1].dead) {
		fprintf(stderr, "kscen ab: neither kernel booted; nothing run\n");
		return false;
	}
	/* one under KVM, the other fallen back to TCG: no comparison */
	if (!ab->g[0].dead && !ab->g[1].dead && ab->g[0].vm.kvm != ab->g[1].vm.kvm) {
		fprintf(stderr, "kscen ab: kernel %s runs under KVM and kernel %s under "
			"TCG (%s): their numbers cannot be compared (--accel tcg runs "
			"both under TCG); nothing run\n", ab->g[0].vm.kvm ? "A" : "B",
			ab->g[0].vm.kvm ? "B" : "A",
			ab->g[0].vm.kvm ? ab->g[1].vm.accel_why : ab->g[0].vm.accel_why);
		return false;
	}
	fprintf(stderr, "kscen ab: A = %s, B = %s, under %s%s%s%s\n",
		ab->g[0].vm.release ? ab->g[0].vm.release : kernel[0],
		ab->g[1].vm.release ? ab->g[1].vm.release : kernel[1],
		ab->g[0].vm.kvm ? "KVM" : "TCG", ab->g[0].vm.kvm ? "" : " (",
		ab->g[0].vm.kvm ? "" : ab->g[0].vm.accel_why,
		ab->g[0].vm.kvm ? "" : "): emulated CPUs, so the numbers say "
		"nothing about the kernels' speed");
	return true;
}

/* The agents' goodbye: each runs its jobs' cleanup: and powers its guest off. */
static void ab_quit(struct ab *ab)
{
	for (unsigned k = 0; k < 2; k++) {
		struct guest *g = &ab->g[k];
		char *bye = NULL;

		if (g->dead || ab_agent_send(g, "quit\n") || ab_agent_line(g, 10, &bye))
			continue;
		free(bye);
	}
	overheads(ab);
}

/*
 * The phases of `kscen run` (run_cmd.c) around the guests: the scenario
 * loaded whole (a guest's agent numbers the jobs as we do), each job made
 * two, one a kernel; the guests booted once the run can be stored.
 */
static int ab_phases(struct run_cmd *rc, struct ab *ab, const struct kscen_vm_config *c,
		     const char **kernel, const char **module, int argc, char **argv,
		     int first, struct kscen_jobs *plain)
{
	char max_jobs[32], *sargv[6], *script = NULL;
	/* KSCEN_AB_LOCAL_AGENTS (lib/hooks.c): the same agent, on this machine */
	char *local[] = { "/proc/self/exe", "agent", "--stdio", "--max-jobs",
			  max_jobs, argv[first < argc ? first : 0], NULL };
	bool here = getenv("KSCEN_AB_LOCAL_AGENTS") != NULL;
	struct kscen_vm_config vc = *c;
	int code;

	if (argc - first != 1)
		return cmd_usage_error("ab", "needs --kernel A --kernel B and one scenario file");
	if ((code = run_cmd_load(rc, argv[first])))
		return code;
	if (!modules_seen(&rc->jobs))
		return EXIT_USAGE;
	rc->ro.until_ci = 0;		/* repeat: auto is not for two guests */
	rc->ro.max_repeat = rc->ro.repeat;
	ab->n = rc->jobs.nr;
	ab->sha256 = rc->s->sha256;
	*plain = rc->jobs;
	kscen_ab_jobs(plain, &rc->jobs);
	rc->total = rc->jobs.nr;
	if ((code = run_cmd_check(rc)))
		return code;
	/* the agent: this kscen, on the same scenario path, from here */
	snprintf(max_jobs, sizeof(max_jobs), "%lu", rc->max_jobs);
	sargv[0] = "agent";
	sargv[1] = "--max-jobs";
	sargv[2] = max_jobs;
	sargv[3] = argv[first];
	sargv[4] = NULL;
	if (!here && !(vc.script = script = kscen_vm_script(4, sargv, NULL)))
		return EXIT_USAGE;
	code = ab_boot(ab, &vc, kernel, module, here ? local : NULL) ? 0 : EXIT_FAILED_JOBS;
	if (!code) {
		run_cmd_new(rc, argc, argv);
		ab_system(ab, &rc->run->system);
		run_cmd_take(rc);
		if (ab->g[0].dead || ab->g[1].dead)
			rc->run->partial = true;
		ab_quit(ab);
		run_cmd_store(rc);
		code = run_cmd_report(rc);
	}
	free(script);
	return code;
}

int cmd_ab(int argc, char **argv)
{
	struct ab ab = { .hang_timeout = HANG_TIMEOUT };
	struct kscen_vm_config c = {
		.cpus = 2, .memory = 1ULL << 30, .boot_timeout = 300, .agent = true,
		.forward = -1,
	};
	struct two kernels = { .what = "--kernel" }, modules = { .what = "--modules" };
	unsigned long cpus = 2, boot = 300, hang = HANG_TIMEOUT;
	struct kscen_jobs plain = { 0 };
	struct run_cmd rc;
	const struct kscen_option opts[] = {
		OPT_CALLBACK(0, "kernel", &kernels, "BZIMAGE",
			     "twice: kernel A (the baseline), then kernel B", opt_two),
		OPT_CALLBACK(0, "modules", &modules, "DIR",
			     "once per --kernel, in the same order", opt_two),
		KSCEN_VM_OPTIONS(&c, &cpus, &boot),
		OPT_UINT(0, "hang-timeout", &hang, "S", 1, 86400,
			 "a guest silent for S seconds past a sample's\n"
			 "timeout is taken for hung and stopped (default 60)"),
		OPT__REPEAT(&rc.repeat, "recorded samples per job and kernel"),
		OPT__WARMUP(&rc.warmup, "discarded samples per job and kernel"),
		OPT__RESULTS(&rc.results, "where the run is stored (default: results/)"),
		OPT__FILTER(&rc.ro.filter, "only the jobs whose id (with kernel=) matches"),
		OPT__NO_SAVE(&rc.no_save),
		OPT_FORMAT(&rc.fmt),
		OPT__MAX_JOBS(&rc.max_jobs),
		OPT__QUIET(&rc.ro.quiet, "no progress on stderr"),
		OPT__VERBOSE(&kscen_verbose, "every sample, and the qemu command lines"),
		OPT_END(),
	};
	int first, code;

	for (unsigned k = 0; k < 2; k++)	/* nothing to stop yet */
		ab.g[k].vm.agent = ab.g[k].vm.listen = ab.g[k].vm.console = -1;
	run_cmd_init(&rc, "ab");
	rc.compare = "none";		/* A is B's reference */
	rc.whole_plan = true;
	rc.ro.sample = ab_sample;
	rc.ro.sample_arg = &ab;
	first = kscen_parse_options("ab", argc, argv, opts, 0);
	if (first < 0) {
		code = first == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	} else if (kernels.nr != 2) {
		code = cmd_usage_error("ab", "needs --kernel A --kernel B and one scenario file");
	} else {
		c.cpus = cpus;
		c.boot_timeout = boot;
		ab.hang_timeout = hang;
		code = ab_phases(&rc, &ab, &c, kernels.v, modules.v, argc, argv, first,
				 &plain);
	}
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
	if (plain.job) {	/* the jobs two kernels made of them */
		kscen_ab_jobs_free(&rc.jobs);
		rc.jobs = plain;
	}
	run_cmd_fini(&rc);
	return code;
}
