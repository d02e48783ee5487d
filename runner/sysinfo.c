// SPDX-License-Identifier: GPL-2.0
/*
 * sysinfo.c - what a stored run records about the machine it ran on, so that
 * "kscen compare" can tell a regression from a different kernel, command line
 * or perf_event_paranoid setting.
 *
 * perf_event_paranoid is KSCEN_PARANOID_UNKNOWN (-100, below every value the
 * kernel accepts) when the sysctl cannot be read; result files store it as
 * null.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kscen.h"

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

static int paranoid(void)
{
	char *s = read_line("/proc/sys/kernel/perf_event_paranoid"), *end;
	long v;

	if (!s)
		return KSCEN_PARANOID_UNKNOWN;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < INT_MIN || v > INT_MAX)
		v = KSCEN_PARANOID_UNKNOWN;
	free(s);
	return v;
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
	sys->perf_event_paranoid = paranoid();
	return 0;
}

void kscen_system_fini(struct kscen_system *sys)
{
	free(sys->hostname);
	free(sys->kernel);
	free(sys->kernel_build);
	free(sys->arch);
	free(sys->cpu_model);
	free(sys->cmdline);
	memset(sys, 0, sizeof(*sys));
	sys->perf_event_paranoid = KSCEN_PARANOID_UNKNOWN;
}
