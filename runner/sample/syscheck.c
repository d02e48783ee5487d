// SPDX-License-Identifier: GPL-2.0
/*
 * syscheck.c - the settings of a machine that move what it measures, each
 * read from /proc or /sys, said with what it does to results and how to
 * change it. pyperf's `system show` is the model (its list: CPU frequency
 * governor and boost, SMT, ASLR, the NMI watchdog, perf_event_paranoid,
 * load, isolated CPUs); steal and the load actually used are watched over
 * a moment, as the sentinels (noise.c) watch each sample, and with the
 * same thresholds.
 */
#define _GNU_SOURCE	/* sched_getaffinity, CPU_* */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <time.h>
#include <unistd.h>

#include "lib/child.h"
#include "lib/util.h"
#include "noise.h"
#include "syscheck.h"

/* The first line of @root@rel, trimmed, into @buf; false if unreadable. */
static bool line_of(const char *root, const char *rel, char *buf, size_t len)
{
	char path[4096];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	for (size_t n = strlen(buf); n && isspace((unsigned char)buf[n - 1]);)
		buf[--n] = '\0';
	return true;
}

/* What every check reads from: the tree, and the counters watched. */
struct ctx {
	const char *root;
	unsigned ms;			/* watched for; 0: not */
	bool watched;			/* a and b read, ms apart */
	struct kscen_noise_read a, b;
};

/* The governors of every CPU, each once: "powersave", "ondemand/performance". */
static void governor(const struct ctx *x, struct kscen_check *k)
{
	const char *root = x->root;

	char dir[4096], gov[4][32];
	unsigned nr = 0, seen = 0;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu", root);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		char rel[320], g[32];
		unsigned i;

		if (strncmp(e->d_name, "cpu", 3) || !isdigit((unsigned char)e->d_name[3]))
			continue;
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/%s/cpufreq/"
			 "scaling_governor", e->d_name);
		if (!line_of(root, rel, g, sizeof(g)))
			continue;
		seen++;
		k->off |= strcmp(g, "performance") != 0;
		for (i = 0; i < nr && strcmp(gov[i], g); i++)
			;
		if (i == nr && nr < ARRAY_SIZE(gov))
			memcpy(gov[nr++], g, sizeof(g));
	}
	if (d)
		closedir(d);
	qsort(gov, nr, sizeof(gov[0]), (int (*)(const void *, const void *))strcmp);
	k->value[0] = '\0';
	for (unsigned i = 0; i < nr; i++)
		snprintf(k->value + strlen(k->value), sizeof(k->value) - strlen(k->value),
			 "%s%s", i ? "/" : "", gov[i]);
	if (!seen) {
		k->known = false;
		snprintf(k->value, sizeof(k->value), "none (no cpufreq: a VM, or "
			 "a clock the firmware sets)");
	}
}

static void boost(const struct ctx *x, struct kscen_check *k)
{
	const char *root = x->root;

	char v[16];

	if (line_of(root, "/sys/devices/system/cpu/cpufreq/boost", v, sizeof(v))) {
		k->off = !strcmp(v, "1");
		snprintf(k->value, sizeof(k->value), "%s", k->off ? "on" : "off");
	} else if (line_of(root, "/sys/devices/system/cpu/intel_pstate/no_turbo",
			   v, sizeof(v))) {
		k->off = !strcmp(v, "0");
		snprintf(k->value, sizeof(k->value), "%s (intel_pstate)",
			 k->off ? "on" : "off");
	} else {
		k->known = false;
		snprintf(k->value, sizeof(k->value), "no control of it here");
	}
}

static void smt(const struct ctx *x, struct kscen_check *k)
{
	const char *root = x->root;

	char active[16], control[32];

	if (line_of(root, "/sys/devices/system/cpu/smt/control", control, sizeof(control)) &&
	    (!strcmp(control, "notsupported") || !strcmp(control, "notimplemented"))) {
		snprintf(k->value, sizeof(k->value), "not supported");
	} else if (line_of(root, "/sys/devices/system/cpu/smt/active", active,
			   sizeof(active))) {
		k->off = !strcmp(active, "1");
		snprintf(k->value, sizeof(k->value), "%s", k->off ? "on" : "off");
	} else {
		k->known = false;
		snprintf(k->value, sizeof(k->value), "unknown");
	}
}

/*
 * Not off either way: on, the layout of a run's samples is its fork
 * server's, and changes between runs; off, it is the same in every run.
 * Said, so that a shift between runs can be checked against it.
 */
static void aslr(const struct ctx *x, struct kscen_check *k)
{
	const char *root = x->root;

	char v[16];

	if (!*root && personality(0xffffffff) != -1 &&
	    (personality(0xffffffff) & ADDR_NO_RANDOMIZE)) {
		snprintf(k->value, sizeof(k->value), "off for kscen (setarch -R)");
	} else if (line_of(root, "/proc/sys/kernel/randomize_va_space", v, sizeof(v))) {
		snprintf(k->value, sizeof(k->value), "%s", !strcmp(v, "0") ? "off" :
			 !strcmp(v, "1") ? "on (stack, mmap, vDSO)" : "on");
	} else {
		k->known = false;
		snprintf(k->value, sizeof(k->value), "unknown");
	}
}

static void nmi_watchdog(const struct ctx *x, struct kscen_check *k)
{
	char v[16];

	if (!line_of(x->root, "/proc/sys/kernel/nmi_watchdog", v, sizeof(v))) {
		k->known = false;
		snprintf(k->value, sizeof(k->value), "not there");
		return;
	}
	k->off = strcmp(v, "0") != 0;
	snprintf(k->value, sizeof(k->value), "%s", k->off ? "on" : "off");
}

static void paranoid(const struct ctx *x, struct kscen_check *k)
{
	const char *root = x->root;

	char v[16];
	int level;

	if (!line_of(root, "/proc/sys/kernel/perf_event_paranoid", v, sizeof(v)) ||
	    sscanf(v, "%d", &level) != 1) {
		k->known = false;
		snprintf(k->value, sizeof(k->value), "unknown (no perf events?)");
		return;
	}
	k->off = level > 1 && geteuid() != 0;
	snprintf(k->value, sizeof(k->value), "%d%s", level,
		 level > 1 && !k->off ? " (kscen runs as root: not limited)" : "");
}

/* /proc/stat's counters now; false when it cannot be read. */
static bool stat_now(const char *root, struct kscen_noise_read *r)
{
	struct kscen_noise_src src;

	kscen_noise_open(&src, root, 0);
	kscen_noise_take(&src, r);
	kscen_noise_close(&src);
	return r->busy >= 0 && r->nr_cpus;
}

/* Watch the machine for x->ms, kscen itself asleep meanwhile. */
static void watch(struct ctx *x)
{
	struct timespec ts = { x->ms / 1000, (x->ms % 1000) * 1000000L };

	if (!x->ms || !stat_now(x->root, &x->a))
		return;
	nanosleep(&ts, NULL);
	x->watched = stat_now(x->root, &x->b) && x->b.busy >= x->a.busy;
}

static double tick(void)
{
	long tck = sysconf(_SC_CLK_TCK);

	return 1.0 / (tck > 0 ? tck : 100);
}

/* The 1-minute load average, and the CPUs busy while watched. */
static void load(const struct ctx *x, struct kscen_check *k)
{
	double avg = NAN, secs = x->ms / 1000.0, busy;
	char v[64];

	if (line_of(x->root, "/proc/loadavg", v, sizeof(v)))
		avg = strtod(v, NULL);
	if (isfinite(avg)) {
		k->off = avg >= 0.5;
		snprintf(k->value, sizeof(k->value), "%.2f (1-minute average)", avg);
	} else {
		k->known = false;
		snprintf(k->value, sizeof(k->value), "unknown");
	}
	if (!x->watched)
		return;
	busy = (x->b.busy - x->a.busy) * tick() / secs;
	if (!k->known)
		k->value[0] = '\0';
	snprintf(k->value + strlen(k->value), sizeof(k->value) - strlen(k->value),
		 "%s%.2f CPUs busy over %.3g s", *k->value ? ", " : "", busy, secs);
	k->off |= busy >= KSCEN_NOISE_OTHER_CPUS;
	k->known = true;
}

/* Steal while watched, with the sentinels' threshold. */
static void steal(const struct ctx *x, struct kscen_check *k)
{
	double secs = x->ms / 1000.0, pct;

	if (!x->watched || x->a.steal < 0 || x->b.steal < x->a.steal) {
		k->known = false;
		snprintf(k->value, sizeof(k->value), "unknown (no steal in /proc/stat)");
		return;
	}
	pct = 100 * (x->b.steal - x->a.steal) * tick() / (secs * x->b.nr_cpus);
	k->off = pct >= KSCEN_NOISE_STEAL_PCT;
	snprintf(k->value, sizeof(k->value), "%.1f%% of %u CPUs over %.3g s", pct,
		 x->b.nr_cpus, secs);
}

/* "0-3,8" into @set; false when it is not a CPU list. */
static bool cpu_list(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a >= CPU_SETSIZE)
			return false;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= CPU_SETSIZE)
				return false;
			s = end;
		}
		for (long c = a; c <= b; c++)
			CPU_SET(c, set);
		if (*s == ',')
			s++;
		else if (*s)
			return false;
	}
	return true;
}

static void isolated(const struct ctx *x, struct kscen_check *k)
{
	const char *root = x->root;

	cpu_set_t iso, mine, both;
	char v[sizeof(k->value) - 40];

	if (!line_of(root, "/sys/devices/system/cpu/isolated", v, sizeof(v))) {
		k->known = false;
		snprintf(k->value, sizeof(k->value), "unknown");
		return;
	}
	if (!*v) {
		snprintf(k->value, sizeof(k->value), "none");
		return;
	}
	/* the samples' CPUs: the runner itself is pinned to one (child.h) */
	if (!cpu_list(v, &iso) || kscen_harness_allowed(&mine)) {
		snprintf(k->value, sizeof(k->value), "%s", v);
		return;
	}
	CPU_AND(&both, &iso, &mine);
	k->off = !CPU_EQUAL(&both, &mine);
	snprintf(k->value, sizeof(k->value), "%s, %s", v, k->off ?
		 "unused: kscen may run elsewhere" : "kscen runs on them");
}

/* What contain.c will use: /sys/fs/cgroup, or its own mount as root. */
static void cgroup2(const struct ctx *x, struct kscen_check *k)
{
	const char *root = x->root;

	char path[4096], line[4096];
	bool sys = false, own = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/mounts", root);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char dev[256], mnt[256], type[64];

		if (sscanf(line, "%255s %255s %63s", dev, mnt, type) != 3 ||
		    strcmp(type, "cgroup2"))
			continue;
		sys |= !strcmp(mnt, "/sys/fs/cgroup");
		own |= !strcmp(mnt, "/run/kscen/cgroup2");
	}
	if (f)
		fclose(f);
	if (sys)
		snprintf(k->value, sizeof(k->value), "at /sys/fs/cgroup");
	else if (own)
		snprintf(k->value, sizeof(k->value), "kscen's own, at /run/kscen/cgroup2");
	else if (geteuid() == 0)
		snprintf(k->value, sizeof(k->value), "not at /sys/fs/cgroup: kscen "
			 "mounts its own at /run/kscen/cgroup2");
	else {
		k->off = true;
		snprintf(k->value, sizeof(k->value), "not at /sys/fs/cgroup, and kscen "
			 "cannot mount one unprivileged");
	}
}

/* Each check: its name, what it does to results, how to change it. */
static const struct {
	const char *name, *effect, *fix;
	void (*read)(const struct ctx *x, struct kscen_check *k);
	bool watched;		/* only when the machine was watched */
} checks[] = {
	{ "governor",
	  "below performance the clock follows the load: a short sample may run "
	  "before it rises, and its time with it",
	  "cpupower frequency-set -g performance", governor, false },
	{ "boost",
	  "turbo clocks depend on temperature and on how many cores are busy: the "
	  "same code runs at different speeds from sample to sample",
	  "echo 0 > /sys/devices/system/cpu/cpufreq/boost (intel_pstate: echo 1 > "
	  "/sys/devices/system/cpu/intel_pstate/no_turbo)", boost, false },
	{ "SMT",
	  "a sibling hardware thread shares the core's caches and units: whatever "
	  "runs there slows the sample",
	  "echo off > /sys/devices/system/cpu/smt/control, or nosmt on the kernel "
	  "command line", smt, false },
	{ "ASLR",
	  "samples are forked from one process and share its layout; the next run "
	  "gets another, so code that is sensitive to alignment moves between "
	  "runs, never within one",
	  "setarch -R kscen run ... (kscen and its samples only): the same layout "
	  "in every run", aslr, false },
	{ "NMI watchdog",
	  "a periodic NMI on every CPU, and one hardware counter taken from perf",
	  "sysctl kernel.nmi_watchdog=0", nmi_watchdog, false },
	{ "perf_event_paranoid",
	  "above 1, an unprivileged kscen cannot profile the kernel, and workloads "
	  "that need perf events are skipped",
	  "sysctl kernel.perf_event_paranoid=1, or run kscen as root", paranoid, false },
	{ "load",
	  "other processes take CPUs, caches and memory bandwidth from the "
	  "samples; the sentinels then call samples disturbed",
	  "wait for the machine to settle; stop what runs (top shows it)", load, false },
	{ "steal",
	  "the hypervisor gives this VM's CPUs to others: the samples' time grows "
	  "by what is stolen",
	  "ask for dedicated CPUs (pinned vCPUs), or run on bare metal", steal, true },
	{ "isolated CPUs",
	  "without them every CPU is shared with the rest of the machine; with "
	  "them, only what runs on them is sheltered",
	  "isolcpus= and nohz_full= on the kernel command line, then taskset -c "
	  "LIST kscen run ...", isolated, false },
	{ "cgroup v2",
	  "without it a sample's processes cannot be contained, nor its CPU time "
	  "measured (cgroup_cpu)",
	  "run kscen as root (it mounts its own), or boot with "
	  "systemd.unified_cgroup_hierarchy=1", cgroup2, false },
};

unsigned kscen_system_check(const char *root, unsigned measure_ms,
			    struct kscen_check *c)
{
	struct ctx x = { .root = root, .ms = measure_ms };
	unsigned n = 0;

	_Static_assert(ARRAY_SIZE(checks) <= KSCEN_CHECKS_MAX, "KSCEN_CHECKS_MAX");
	watch(&x);
	for (unsigned i = 0; i < ARRAY_SIZE(checks); i++) {
		struct kscen_check *k = &c[n];

		if (checks[i].watched && !measure_ms)
			continue;
		memset(k, 0, sizeof(*k));
		k->name = checks[i].name;
		k->effect = checks[i].effect;
		k->fix = checks[i].fix;
		k->known = true;
		checks[i].read(&x, k);
		n++;
	}
	return n;
}

const char *kscen_system_check_summary(const struct kscen_check *c, unsigned n,
				       char *buf, size_t len)
{
	size_t at = 0;

	*buf = '\0';
	for (unsigned i = 0; i < n && at < len; i++) {
		char v[sizeof(c[i].value)];

		if (!c[i].off)
			continue;
		/* the value up to its first " (": "0.52 (1-minute average)" */
		snprintf(v, sizeof(v), "%s", c[i].value);
		if (strstr(v, " ("))
			*strstr(v, " (") = '\0';
		at += snprintf(buf + at, len - at, "%s%s %s", at ? ", " : "",
			       c[i].name, v);
	}
	if (!*buf)
		snprintf(buf, len, "nothing off");
	return buf;
}
