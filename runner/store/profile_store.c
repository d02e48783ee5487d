// SPDX-License-Identifier: GPL-2.0
/*
 * profile_store.c - folded stacks beside a saved run:
 * <run>.profiles/<job id>.folded, one "frame;frame;... count" a line, the
 * format flamegraph.pl, inferno and speedscope read. A job id holds '/'
 * and may hold anything a parameter value does, so it is escaped to a
 * safe file name: bytes outside [A-Za-z0-9,=+_.-] (and a leading '.')
 * become %XX, which is reversible and never collides.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/diag.h"
#include "lib/util.h"
#include "profile.h"

char *kscen_profile_folded_name(const char *id)
{
	size_t n = strlen(id);
	char *out = kscen_xmalloc(3 * n + sizeof(".folded")), *o = out;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = id[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || (c && strchr(",=+_-", c)) ||
		    (c == '.' && i))
			*o++ = c;
		else
			o += sprintf(o, "%%%02X", c);
	}
	strcpy(o, ".folded");
	return out;
}

char *kscen_profile_dir(const struct kscen_run *run)
{
	size_t n;

	if (!run->path)
		return NULL;
	n = strlen(run->path);
	if (n > 5 && !strcmp(run->path + n - 5, ".yaml"))
		n -= 5;
	return kscen_xasprintf("%.*s.profiles", (int)n, run->path);
}

static int write_folded(const char *path, const struct kscen_profile *p)
{
	char *tmp = kscen_xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int ret = 0;

	if (!f) {
		ret = -errno;
		goto out;
	}
	for (unsigned i = 0; i < p->nr_folded; i++)
		fprintf(f, "%s %llu\n", p->folded[i].stack, p->folded[i].count);
	if (fflush(f) || ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	return ret;
}

int kscen_profile_save_folded(const struct kscen_run *run)
{
	char *dir = NULL;
	int ret = 0;

	for (unsigned i = 0; i < run->nr_jobs; i++) {
		const struct kscen_profile *p = run->jobs[i].profile;
		char *name, *path;
		int err;

		if (!p || !p->nr_folded)
			continue;
		if (!dir) {
			dir = kscen_profile_dir(run);
			if (!dir)
				return -EINVAL;
			if (mkdir(dir, 0777) && errno != EEXIST) {
				ret = -errno;
				kscen_error(NULL, "%s: %s", dir,
					    strerror(errno));
				break;
			}
		}
		name = kscen_profile_folded_name(run->jobs[i].id);
		path = kscen_xasprintf("%s/%s", dir, name);
		err = write_folded(path, p);
		if (err) {
			kscen_error(NULL, "%s: %s", path, strerror(-err));
			ret = err;
		}
		free(name);
		free(path);
	}
	free(dir);
	return ret;
}

int kscen_folded_load(const char *path, struct kscen_folded **out, unsigned *nr)
{
	struct kscen_folded *f = NULL;
	unsigned n = 0, cap = 0;
	char *line = NULL;
	size_t len = 0;
	ssize_t got;
	FILE *fp = fopen(path, "r");

	*out = NULL;
	*nr = 0;
	if (!fp)
		return -errno;
	while ((got = getline(&line, &len, fp)) > 0) {
		char *sp, *end;
		unsigned long long c;

		line[strcspn(line, "\n")] = '\0';
		sp = strrchr(line, ' ');
		if (!sp || sp == line)
			continue;
		c = strtoull(sp + 1, &end, 10);
		if (*end || end == sp + 1)
			continue;
		*sp = '\0';
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			f = kscen_xrealloc(f, cap * sizeof(*f));
		}
		f[n].stack = kscen_xstrdup(line);
		f[n++].count = c;
	}
	free(line);
	fclose(fp);
	*out = f;
	*nr = n;
	return 0;
}
