// SPDX-License-Identifier: GPL-2.0
/*
 * sysinfo.c - what a stored run records about the machine it ran on, so that
 * "kscen compare" can tell a regression from a different kernel, command line
 * or perf_event_paranoid setting.
 *
 * perf_event_paranoid is KSCEN_PARANOID_UNKNOWN (-100, below every value the
 * kernel accepts) when the sysctl cannot be read; result files store it as
 * null.
 *
 * The environment manifest beside it (governor, SMT, mitigations, THP,
 * kernel config hash, isolated and nohz_full CPUs, load average) is what
 * most often explains two runs of the same kernel that disagree.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <stdio.h>
#include "run.h"
#include "lib/util.h"
#include "runmodel.h"
#include "scenario/scenario_load.h"

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* The first line of a small /proc or /sys file, trimmed; NULL if unreadable. */
static char *read_line(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	if (getline(&line, &cap, f) < 0) {
		free(line);
		line = NULL;
	} else {
		trim(line);
	}
	fclose(f);
	return line;
}

static char *cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char *line = NULL, *p, *model = NULL;
	size_t cap = 0;

	if (!f)
		return kscen_xstrdup("unknown");
	while (!model && getline(&line, &cap, f) >= 0) {
		if (strncmp(line, "model name", 10))
			continue;
		p = strchr(line, ':');
		if (!p)
			continue;
		for (p++; *p == ' ' || *p == '\t'; p++)
			;
		trim(p);
		if (*p)
			model = kscen_xstrdup(p);
	}
	free(line);
	fclose(f);
	/* arm64 and others have no "model name": say so rather than guess. */
	return model ? model : kscen_xstrdup("unknown");
}

/* "microcode : 0xf0" of the first CPU in /proc/cpuinfo; NULL in a VM without. */
static char *microcode(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char *line = NULL, *p, *v = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	while (!v && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "microcode", 9) || !(p = strchr(line, ':')))
			continue;
		p += 1 + strspn(p + 1, " \t");
		trim(p);
		v = kscen_xstrdup(p);
	}
	free(line);
	fclose(f);
	return v;
}

/*
 * Frequency boost (turbo): acpi-cpufreq's cpufreq/boost, or intel_pstate's
 * no_turbo inverted; "none" when neither exists (most VMs).
 */
static char *boost(void)
{
	char *s = read_line("/sys/devices/system/cpu/cpufreq/boost");

	if (s)
		return s;
	s = read_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
	if (s) {
		char *r = kscen_xstrdup(!strcmp(s, "1") ? "0" : "1");

		free(s);
		return r;
	}
	return kscen_xstrdup("none");
}

/* "hyper" / "power" / ...: the governor of CPU 0, "none" without cpufreq. */
static char *governor(void)
{
	char *g = read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");

	return g ? g : kscen_xstrdup("none");
}

/* "always [madvise] never" -> "madvise" */
static char *thp(void)
{
	char *s = read_line("/sys/kernel/mm/transparent_hugepage/enabled");
	char *a, *b, *r;

	if (!s)
		return NULL;
	a = strchr(s, '[');
	b = a ? strchr(a, ']') : NULL;
	r = b ? kscen_xasprintf("%.*s", (int)(b - a - 1), a + 1) : kscen_xstrdup(s);
	free(s);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The vulnerabilities, compact and sorted: "meltdown=mitigation,
 * spec_store_bypass=vulnerable,...". "Not affected" ones are left out: they
 * cannot change, and the line stays short enough to diff.
 */
static char *mitigations(void)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	char *names[128], *out = NULL, *path, *v, *t;
	unsigned nr = 0, i;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	while ((de = readdir(d)) && nr < 128)
		if (de->d_name[0] != '.')
			names[nr++] = kscen_xstrdup(de->d_name);
	closedir(d);
	qsort(names, nr, sizeof(*names), cmp_str);
	for (i = 0; i < nr; i++) {
		path = kscen_xasprintf("%s/%s", dir, names[i]);
		v = read_line(path);
		free(path);
		if (v && strncmp(v, "Not affected", 12)) {
			const char *w = !strncmp(v, "Mitigation", 10) ? "mitigation" :
					!strncmp(v, "Vulnerable", 10) ? "vulnerable" :
					"other";

			t = kscen_xasprintf("%s%s%s=%s", out ? out : "",
					    out ? "," : "", names[i], w);
			free(out);
			out = t;
		}
		free(v);
		free(names[i]);
	}
	return out ? out : kscen_xstrdup("none");
}

/* sha256 of /proc/config.gz (compressed bytes), NULL when there is none. */
static char *config_sha256(void)
{
	FILE *f = fopen("/proc/config.gz", "re");
	size_t n = 0, cap = 0, got;
	char *buf = NULL, *hex;

	if (!f)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? 2 * cap : 65536;
			buf = kscen_xrealloc(buf, cap);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got && n < (64 << 20));
	fclose(f);
	hex = n ? kscen_sha256_hex(buf, n) : NULL;
	free(buf);
	return hex;
}

/* The value of "@key=" in the command line, else the sysfs file's line. */
static char *cpu_list(const char *cmdline, const char *key, const char *sysfs)
{
	size_t len = strlen(key);
	const char *p;
	char *s;

	for (p = cmdline; p && (p = strstr(p, key)); p += len)
		if ((p == cmdline || p[-1] == ' ') && p[len] == '=')
			return kscen_xasprintf("%.*s", (int)strcspn(p + len + 1, " "),
					       p + len + 1);
	s = read_line(sysfs);
	if (s && !*s) {
		free(s);
		s = NULL;
	}
	return s ? s : kscen_xstrdup("none");
}

int kscen_system_read(struct kscen_system *sys)
{
	char host[HOST_NAME_MAX + 1];
	struct utsname u;

	memset(sys, 0, sizeof(*sys));
	if (gethostname(host, sizeof(host)) < 0 || uname(&u) < 0)
		return -errno;
	host[sizeof(host) - 1] = '\0';

	sys->hostname = kscen_xstrdup(host);
	sys->kernel = kscen_xstrdup(u.release);
	sys->kernel_build = kscen_xstrdup(u.version);
	sys->arch = kscen_xstrdup(u.machine);
	sys->cpu_model = cpu_model();
	sys->nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	/* An empty command line, not a missing one: compare stays simple. */
	sys->cmdline = read_line("/proc/cmdline");
	if (!sys->cmdline)
		sys->cmdline = kscen_xstrdup("");
	sys->perf_event_paranoid = kscen_perf_paranoid();
	sys->governor = governor();
	sys->scaling_driver = read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver");
	if (!sys->scaling_driver)
		sys->scaling_driver = kscen_xstrdup("none");
	sys->boost = boost();
	sys->microcode = microcode();
	sys->smt = read_line("/sys/devices/system/cpu/smt/control");
	sys->mitigations = mitigations();
	sys->thp = thp();
	sys->config_sha256 = config_sha256();
	sys->isolcpus = cpu_list(sys->cmdline, "isolcpus",
				 "/sys/devices/system/cpu/isolated");
	sys->nohz_full = cpu_list(sys->cmdline, "nohz_full",
				  "/sys/devices/system/cpu/nohz_full");
	/* "0.52 0.61 0.40": a busy machine explains a noisy run. */
	sys->loadavg = read_line("/proc/loadavg");
	if (sys->loadavg) {
		char *p = sys->loadavg;

		for (int f = 0; f < 3 && *p; f++)	/* drop "1/84 8643" */
			p += strcspn(p, " ") + (f < 2 && p[strcspn(p, " ")]);
		*p = '\0';
	}
	return 0;
}
