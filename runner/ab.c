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
#include <getopt.h>
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
#include "scenario_load.h"
#include "vm.h"

#define EXIT_USAGE 2
#define EXIT_FAILED 3
#define HANG_TIMEOUT 60	/* s past a sample's timeout: a silent guest hangs */

static const char *const labels[2] = { "A", "B" };

struct guest {
	struct kscen_vm vm;
	struct kscen_vm_config c;
	char *dead;		/* why it takes no more samples; NULL: alive */
	char *release, *version;
	double ready_s;		/* spawn -> the agent's hello */
	char buf[4096];		/* the agent's replies, not yet a line */
	size_t len;
	double *over;		/* per-sample overhead: round trip - guest time, s */
	unsigned nr_over;
};

struct ab {
	struct guest g[2];
	unsigned n;		/* jobs per kernel */
	const char *sha256;
	unsigned hang_timeout;	/* s; the agent enforces the sample's own */
};

const char kscen_ab_options_help[] =
	"      --kernel BZIMAGE  twice: kernel A (the baseline), then kernel B\n"
	"      --modules DIR     once per --kernel, in the same order\n"
	"      --cpus N, --memory SIZE, --accel A, --append ARGS, --boot-timeout S\n"
	"                        as for kscen vm (defaults 2, 1G, auto, -, 300)\n"
	"      --hang-timeout S  a guest silent for S seconds past a sample's\n"
	"                        timeout is taken for hung and stopped (default 60)\n"
	"  -r, --repeat N        recorded samples per job and kernel\n"
	"  -w, --warmup N        discarded samples per job and kernel\n"
	"  -o, --results DIR     where the run is stored (default: results/)\n"
	"      --filter GLOB     only the jobs whose id (with kernel=) matches\n"
	"      --no-save         do not store the run\n"
	"      --format F        text (default), markdown, json or csv\n"
	"  -q, --quiet           no progress on stderr\n"
	"  -v, --verbose         every sample, and the qemu command lines\n";

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
							labels[k], slash + 1)
				      : kscen_xasprintf("%s/kernel=%s", src->id, labels[k]);
			d->nr_kv = src->nr_kv + 1;
			d->keys = kscen_xcalloc(d->nr_kv + 1, sizeof(char *));
			d->values = kscen_xcalloc(d->nr_kv + 1, sizeof(char *));
			d->keys[0] = kscen_xstrdup("kernel");
			d->values[0] = kscen_xstrdup(labels[k]);
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

/* ---- talking to an agent -------------------------------------------------- */

static void guest_dies(struct guest *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void guest_dies(struct guest *g, const char *fmt, ...)
{
	va_list ap;
	char *why;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		abort();
	va_end(ap);
	fprintf(stderr, "kscen ab: kernel %s (%s): %s\n", g->c.label,
		g->vm.release ? g->vm.release : "?", why);
	kscen_vm_stop(&g->vm, 0);
	kscen_vm_print_tail(&g->vm);
	if (g->vm.panic) {	/* the reason its jobs failed, in the report */
		char *p;
		const char *l = strstr(g->vm.panic, "] ") ? strstr(g->vm.panic, "] ") + 2
							   : g->vm.panic;

		p = kscen_xasprintf("%s (%s)", why, l);
		free(why);
		why = p;
	}
	g->dead = why;
}

/*
 * The agent's next line (without the newline) in *line, within @timeout_s.
 * 0; -EPIPE when the guest is gone, -ETIMEDOUT, -EINTR (^C).
 */
static int agent_line(struct guest *g, double timeout_s, char **line)
{
	double deadline = kscen_now_ns() / 1e9 + timeout_s;

	for (;;) {
		char *nl = memchr(g->buf, '\n', g->len);
		struct pollfd p[2] = {
			{ .fd = g->vm.agent, .events = POLLIN },
			{ .fd = g->vm.console, .events = POLLIN },
		};
		double left = deadline - kscen_now_ns() / 1e9;
		ssize_t r;

		if (nl) {
			*nl = '\0';
			*line = kscen_xstrdup(g->buf);
			g->len -= nl + 1 - g->buf;
			memmove(g->buf, nl + 1, g->len);
			return 0;
		}
		if (g->len == sizeof(g->buf))
			return -EPROTO;
		if (kscen_interrupted)
			return -EINTR;
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(p, g->vm.console >= 0 ? 2 : 1, left > 0.5 ? 500 : left * 1000 + 1) <= 0)
			continue;
		if (p[1].revents && kscen_vm_pump(&g->vm, 0))
			return -EPIPE;	/* qemu exited */
		if (!p[0].revents)
			continue;
		r = read(g->vm.agent, g->buf + g->len, sizeof(g->buf) - g->len);
		if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			return -EPIPE;
		if (r > 0)
			g->len += r;
	}
}

static int agent_send(struct guest *g, const char *msg)
{
	size_t n = strlen(msg);

	return write(g->vm.agent, msg, n) == (ssize_t)n ? 0 : -EPIPE;
}

static const char *agent_error(int err)
{
	return err == -ETIMEDOUT ? "no answer in time: the guest hangs" :
	       err == -EPIPE ? "the guest died" : strerror(-err);
}

/* Wait for the hello: the agent is up and sees the scenario we see. */
static void agent_hello(struct ab *ab, struct guest *g)
{
	char *line = NULL, sha[80], rel[128];
	unsigned nr;
	int ret = agent_line(g, g->c.boot_timeout, &line);

	if (ret) {
		guest_dies(g, "its agent did not start: %s", agent_error(ret));
		return;
	}
	if (sscanf(line, "hello %79s %u %127[^\t]", sha, &nr, rel) != 3) {
		guest_dies(g, "its agent said '%s'", line);
	} else if (strcmp(sha, ab->sha256) || nr != ab->n) {
		guest_dies(g, "the guest sees another scenario file (%u jobs)", nr);
	} else {
		g->release = kscen_xstrdup(rel);
		g->version = kscen_xstrdup(strchr(line, '\t') ? strchr(line, '\t') + 1 : "");
		g->ready_s = kscen_now_ns() / 1e9 - g->vm.spawned;
	}
	free(line);
}

/* run.c's sampler hook: sample jobs->job[index] in its kernel's guest. */
static int ab_sample(void *arg, unsigned index, const struct kscen_job *job,
		     long long timeout_ns, struct kscen_sample_out *out)
{
	struct ab *ab = arg;
	struct guest *g = &ab->g[index >= ab->n];
	char req[64], *line = NULL, *tab;
	long long guest_ns = 0;
	double t0;
	int ret, n = 0;

	(void)job;
	memset(out, 0, sizeof(*out));
	out->ret = -EIO;
	if (g->dead) {
		snprintf(out->reason, sizeof(out->reason), "kernel %s: %s",
			 g->c.label, g->dead);
		return 0;
	}
	snprintf(req, sizeof(req), "sample %u %lld\n", index % ab->n, timeout_ns);
	t0 = kscen_now_ns() / 1e9;
	ret = agent_send(g, req);
	if (!ret)
		ret = agent_line(g, timeout_ns / 1e9 + ab->hang_timeout, &line);
	if (ret == -EINTR) {
		out->ret = -EINTR;
		snprintf(out->reason, sizeof(out->reason), "interrupted");
		return 0;
	}
	if (ret) {
		fprintf(stderr, "kscen ab: kernel %s: during a sample of %s\n",
			g->c.label, job->id);
		guest_dies(g, "%s", agent_error(ret));
		snprintf(out->reason, sizeof(out->reason), "kernel %s: %s",
			 g->c.label, g->dead);
		return 0;
	}
	if (sscanf(line, "out %d %u %lld %n", &out->ret, &out->nr, &guest_ns, &n) < 3 || !n) {
		guest_dies(g, "its agent said '%s'", line);
		snprintf(out->reason, sizeof(out->reason), "kernel %s: %s",
			 g->c.label, g->dead);
		free(line);
		return 0;
	}
	if (out->nr > KSCEN_MAX_METRICS)
		out->nr = KSCEN_MAX_METRICS;
	tab = strchr(line, '\t');
	if (tab)
		*tab++ = '\0';
	for (unsigned i = 0; i < KSCEN_MAX_METRICS; i++) {
		char *end;

		out->v[i] = strtod(line + n, &end);
		n = end - line;
	}
	snprintf(out->reason, sizeof(out->reason), "%s", tab ? tab : "");
	g->over = kscen_xrealloc(g->over, (g->nr_over + 1) * sizeof(double));
	g->over[g->nr_over++] = kscen_now_ns() / 1e9 - t0 - guest_ns / 1e9;
	free(line);
	return 0;
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

int kscen_cmd_ab(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "modules", required_argument, NULL, 'm' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "memory", required_argument, NULL, 'M' },
		{ "accel", required_argument, NULL, 'a' },
		{ "append", required_argument, NULL, 'A' },
		{ "boot-timeout", required_argument, NULL, 't' },
		{ "hang-timeout", required_argument, NULL, 'H' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "results", required_argument, NULL, 'o' },
		{ "filter", required_argument, NULL, 'f' },
		{ "no-save", no_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ 0 },
	};
	struct ab ab = { .hang_timeout = HANG_TIMEOUT };
	struct kscen_vm_config c = {
		.cpus = 2, .memory = 1ULL << 30, .boot_timeout = 300, .agent = true,
		.forward = -1,
	};
	const char *kernels[2] = { 0 }, *modules[2] = { 0 }, *results = "results";
	unsigned nr_kernels = 0, nr_modules = 0;
	unsigned long repeat = 0, warmup = ULONG_MAX;
	enum kscen_format fmt = KSCEN_FMT_TEXT;
	struct kscen_run_opts ro = { 0 };
	struct kscen_scenario *s = NULL;
	struct kscen_jobs jobs = { 0 }, both = { 0 };
	struct kscen_run *run = NULL;
	char *script = NULL, *end, *sargv[2];
	bool save = true;
	int opt, ret, code = 0;

	while ((opt = getopt_long(argc, argv, "hr:w:o:qv", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			printf("usage: kscen ab --kernel A --kernel B [options] SCENARIO.yaml\n\n"
			       "Boot both kernels under QEMU with this machine's root shared\n"
			       "read-only and run the scenario's jobs on both in alternating\n"
			       "rounds: one run, kernel=A the baseline of kernel=B.\n\n"
			       "options:\n%s", kscen_ab_options_help);
			return 0;
		case 'k':
			if (nr_kernels == 2)
				goto usage_two;
			kernels[nr_kernels++] = optarg;
			break;
		case 'm':
			if (nr_modules == 2)
				goto usage_two;
			modules[nr_modules++] = optarg;
			break;
		case 'c':
			c.cpus = strtoul(optarg, &end, 10);
			if (*end || !*optarg || c.cpus < 1 || c.cpus > 64)
				goto bad;
			break;
		case 'M':
			if (kscen_vm_parse_memory(optarg, &c.memory))
				goto bad;
			break;
		case 'a':
			if (kscen_vm_parse_accel(optarg, &c.accel))
				goto bad;
			break;
		case 'A':
			c.append = optarg;
			break;
		case 't':
			c.boot_timeout = strtoul(optarg, &end, 10);
			if (*end || !*optarg || !c.boot_timeout || c.boot_timeout > 86400)
				goto bad;
			break;
		case 'H':
			ab.hang_timeout = strtoul(optarg, &end, 10);
			if (*end || !*optarg || !ab.hang_timeout || ab.hang_timeout > 86400)
				goto bad;
			break;
		case 'r':
			repeat = strtoul(optarg, &end, 10);
			if (*end || !*optarg || !repeat || repeat > 1000000)
				goto bad;
			break;
		case 'w':
			warmup = strtoul(optarg, &end, 10);
			if (*end || !*optarg || warmup > 1000000)
				goto bad;
			break;
		case 'o':
			results = optarg;
			break;
		case 'f':
			ro.filter = optarg;
			break;
		case 'n':
			save = false;
			break;
		case 'F':
			if (!strcmp(optarg, "text"))
				fmt = KSCEN_FMT_TEXT;
			else if (!strcmp(optarg, "markdown"))
				fmt = KSCEN_FMT_MARKDOWN;
			else if (!strcmp(optarg, "json"))
				fmt = KSCEN_FMT_JSON;
			else if (!strcmp(optarg, "csv"))
				fmt = KSCEN_FMT_CSV;
			else
				goto bad;
			break;
		case 'q':
			ro.quiet = true;
			break;
		case 'v':
			kscen_verbose++;
			break;
		default:
			goto usage;
		}
	}
	if (nr_kernels != 2 || argc - optind != 1) {
		fprintf(stderr, "kscen ab: needs --kernel A --kernel B and one scenario file\n");
		goto usage;
	}
	if (kscen_scenario_load(argv[optind], &s))
		return EXIT_USAGE;
	if (kscen_expand(s, 100000, &jobs)) {
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
		g->c.label = labels[k];
		g->c.kernel = kernels[k];
		g->c.modules = modules[k];
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
			agent_hello(&ab, g);
	}
	if (ab.g[0].dead && ab.g[1].dead) {
		fprintf(stderr, "kscen ab: neither kernel booted; nothing run\n");
		code = EXIT_FAILED;
		goto out;
	}
	fprintf(stderr, "kscen ab: A = %s, B = %s, under %s%s%s%s\n",
		ab.g[0].vm.release ? ab.g[0].vm.release : kernels[0],
		ab.g[1].vm.release ? ab.g[1].vm.release : kernels[1],
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

		if (g->dead || agent_send(g, "quit\n") || agent_line(g, 10, &bye))
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
			code = EXIT_FAILED;
	if (ret == -EINTR)
		code = 128 + SIGINT;
	else if (ret)
		code = EXIT_FAILED;
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
usage_two:
	fprintf(stderr, "kscen ab: --kernel and --modules are given at most twice\n");
	goto usage;
bad:
	fprintf(stderr, "kscen ab: %s: invalid value '%s'\n", argv[optind - 1], optarg);
usage:
	fprintf(stderr, "Try 'kscen ab --help'.\n");
	return EXIT_USAGE;
}
