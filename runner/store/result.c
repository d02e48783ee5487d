// SPDX-License-Identifier: GPL-2.0
/*
 * result.c - stored runs: one YAML file per run in
 * <results>/<scenario>/<YYYYmmddTHHMMSSZ>-<hostname>.yaml.
 *
 * Files are written by runmodel.c, from the run model's tables, with
 * libyaml's emitter, so quoting is never hand-rolled; and atomically: a temp
 * file in the same directory is fsynced, then link()ed to its final name,
 * which (unlike rename) refuses to replace an earlier run.
 * Reading them back is result_load.c.
 */
#define _GNU_SOURCE	/* mkostemp, renameat2, strptime, timegm */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "scenario/scenario_load.h"
#include "runmodel.h"
#include "store.h"

#define MAX_TRIES	100	/* names tried, one second apart */
#define STAMP_LEN	16	/* 20261202T101503Z */
#define HOST_LEN	64

/* ---- Files and names ---------------------------------------------------- */

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (!n)
		return kscen_xasprintf("./%s", name);
	return kscen_xasprintf("%.*s/%s", (int)n, dir, name);
}

static int mkdir_p(const char *path)
{
	char *p = kscen_xstrdup(path), *s;
	struct stat st;
	int ret = 0;

	for (s = p + 1; ; s++) {
		if (*s && *s != '/')
			continue;
		if (s[-1] != '/') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0777) < 0 && errno != EEXIST) {
				ret = -errno;
				goto out;
			}
			*s = c;
		}
		if (!*s)
			break;
	}
	if (stat(path, &st) < 0)
		ret = -errno;
	else if (!S_ISDIR(st.st_mode))
		ret = -ENOTDIR;
out:
	free(p);
	return ret;
}

/* Hostnames are not guaranteed to be safe in a file name; make them so. */
static void host_part(const char *host, char *buf, size_t len)
{
	size_t i;

	if (!host || !*host)
		host = "unknown";
	for (i = 0; host[i] && i < len - 1; i++) {
		char c = host[i];

		buf[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '-' || c == '.' ||
			 c == '_' ? c : '_';
	}
	buf[i] = '\0';
}

static time_t started_time(const char *started)
{
	struct tm tm = { 0 };
	const char *end;

	end = started ? strptime(started, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	/* A run without a usable start time is still worth keeping. */
	return end ? timegm(&tm) : time(NULL);
}

/* The name @run gets in @sdir when started at @t: <stamp>-<host>[+<label>]. */
static char *result_name(const char *sdir, const struct kscen_run *run, time_t t)
{
	char host[HOST_LEN + 1], stamp[STAMP_LEN + 1];
	struct tm tm;

	host_part(run->system.hostname, host, sizeof(host));
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	return kscen_xasprintf("%s/%s-%s%s%s.yaml", sdir, stamp, host,
			       run->label ? "+" : "", run->label ? run->label : "");
}

/* link() fails with EEXIST instead of replacing; rename as a fallback. */
static int place(const char *tmp, const char *final)
{
	if (!link(tmp, final))
		return 0;
	if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS)
		return -errno;
	/* Filesystems without hard links (vfat, some FUSE). */
	if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE))
		return 0;
	return -errno;
}

/* Make <dir>/<scenario>/, or say why not; @out gets its path when asked. */
static int scenario_dir(const char *dir, const char *scenario, char **out)
{
	char *sdir, why[KSCEN_NAME_MAX + 128];
	int ret;

	/* validate's rule, so that what validates can be stored */
	if (!scenario || kscen_scenario_name_why(scenario, why, sizeof(why)))
		return -EINVAL;
	sdir = join(dir, scenario);
	ret = mkdir_p(sdir);
	if (!ret && access(sdir, W_OK | X_OK) < 0)
		ret = -errno;
	if (ret || !out)
		free(sdir);
	else
		*out = sdir;
	return ret;
}

/* @run as YAML into @fd, on the disk when this returns 0; closes @fd. */
static int write_fd(int fd, const struct kscen_run *run)
{
	FILE *f = fdopen(fd, "w");
	int ret;

	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = kscen_run_write_yaml(f, run);
	if (!ret && (fflush(f) || fsync(fileno(f)) < 0))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* @run to the file @path: a temp file beside it, fsync, link or rename. */
int kscen_result_write(struct kscen_run *run, const char *path, bool replace)
{
	char *tmp = kscen_xasprintf("%s.tmp-XXXXXX", path);
	struct stat st;
	int fd, ret;

	/* never a device, a FIFO, a directory or a symlink's target */
	if (!lstat(path, &st) && (!S_ISREG(st.st_mode) || !replace)) {
		ret = S_ISREG(st.st_mode) ? -EEXIST : -ENODEV;
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	kscen_signal_unlink = tmp;
	fchmod(fd, 0644);
	ret = write_fd(fd, run);
	if (!ret && kscen_interrupted)
		ret = -EINTR;
	if (!ret && replace && !lstat(path, &st) && !S_ISREG(st.st_mode))
		ret = -ENODEV;	/* made since */
	if (!ret)
		ret = replace ? (rename(tmp, path) < 0 ? -errno : 0) : place(tmp, path);
	if (ret || !replace)
		unlink(tmp);
	kscen_signal_unlink = NULL;
	if (ret)
		goto out;
	free(run->path);
	run->path = kscen_xstrdup(path);
out:
	free(tmp);
	return ret;
}

/* @a and @b are one run: the same start, command and samples. */
static bool same_run(const struct kscen_run *a, const struct kscen_run *b)
{
	if (a->partial || b->partial || a->nr_jobs != b->nr_jobs ||
	    !kscen_same_str(a->started, b->started) ||
	    !kscen_same_str(a->command, b->command) ||
	    !kscen_same_str(a->label, b->label) ||
	    !kscen_same_str(a->shard, b->shard) ||
	    !kscen_same_str(a->system.hostname, b->system.hostname) ||
	    !kscen_same_str(a->scenario_sha256, b->scenario_sha256))
		return false;
	for (unsigned i = 0; i < a->nr_jobs; i++) {
		const struct kscen_job_result *x = &a->jobs[i], *y = &b->jobs[i];

		if (!kscen_same_str(x->id, y->id) || x->status != y->status ||
		    x->nr_metrics != y->nr_metrics)
			return false;
		for (unsigned m = 0; m < x->nr_metrics; m++) {
			const struct kscen_metric *p = &x->metrics[m], *q = &y->metrics[m];

			if (p->nr_samples != q->nr_samples || (p->nr_samples &&
			    memcmp(p->samples, q->samples, p->nr_samples * sizeof(double))))
				return false;
		}
	}
	return true;
}

char *kscen_result_saved_as(const struct kscen_run *run, const char *dir)
{
	char *sdir, *found = NULL;
	time_t t = started_time(run->started);

	if (!run->scenario || !*run->scenario || strchr(run->scenario, '/'))
		return NULL;
	sdir = join(dir, run->scenario);
	for (int i = 0; i < MAX_TRIES && !found; i++) {
		char *path = result_name(sdir, run, t + i), err[8];
		struct kscen_run *r = NULL;

		if (!access(path, F_OK) && !kscen_result_load_err(path, &r, err, sizeof(err)) &&
		    same_run(run, r))
			found = path;
		else
			free(path);
		kscen_run_free(r);
	}
	free(sdir);
	return found;
}

int kscen_result_dir_ready(const char *dir, const char *scenario)
{
	return scenario_dir(dir, scenario, NULL);
}

int kscen_result_save(struct kscen_run *run, const char *dir)
{
	char *sdir = NULL, *tmp = NULL, *final = NULL;
	int fd, dfd, i, ret;
	mode_t mask;
	time_t t;

	ret = scenario_dir(dir, run->scenario, &sdir);
	if (ret)
		goto out;

	tmp = kscen_xasprintf("%s/.kscen-XXXXXX", sdir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(tmp);
		tmp = NULL;
		goto out;
	}
	mask = umask(0);	/* mkstemp() makes 0600; results are shared */
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	ret = write_fd(fd, run);
	if (ret)
		goto out;

	t = started_time(run->started);
	for (i = 0, ret = -EEXIST; i < MAX_TRIES && ret == -EEXIST; i++) {
		free(final);
		final = result_name(sdir, run, t + i);
		ret = place(tmp, final);
	}
	if (ret)
		goto out;
	unlink(tmp);
	free(run->path);
	run->path = final;
	final = NULL;

	/* Make the new name durable, not just the data. */
	dfd = open(sdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd) < 0)
		ret = -errno;
	if (dfd >= 0)
		close(dfd);
out:
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(final);
	free(sdir);
	return ret;
}

static bool stamp_ok(const char *s)
{
	int i;

	for (i = 0; i < STAMP_LEN; i++) {
		char want = i == 8 ? 'T' : i == 15 ? 'Z' : 0;

		if (want ? s[i] != want : (s[i] < '0' || s[i] > '9'))
			return false;
	}
	return true;
}

/*
 * A name kscen_result_save() makes: <stamp>-<host>[+<label>].yaml. Sets
 * *@host_len to the length of <host>.
 */
static bool run_name(const char *name, size_t *host_len)
{
	size_t len = strlen(name);
	const char *host = name + STAMP_LEN + 1, *plus;

	if (len < STAMP_LEN + 7 || !stamp_ok(name) || name[STAMP_LEN] != '-' ||
	    strcmp(name + len - 5, ".yaml"))
		return false;
	plus = memchr(host, '+', name + len - 5 - host);
	*host_len = (plus ? plus : name + len - 5) - host;
	return *host_len > 0;
}

bool kscen_result_name_ok(const char *name)
{
	size_t hlen;

	return !strchr(name, '/') && run_name(name, &hlen);
}

static int cmp_name_desc(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

/*
 * Only names kscen_result_save() makes count, so a result copied in by hand
 * as "baseline.yaml" is never taken for a stored run, and only regular
 * files (a symlink to one too). The timestamp leads
 * the name, so sorting the names sorts the runs, newest first.
 */
int kscen_result_list(const char *dir, const char *hostname, char ***out,
		      unsigned *nr)
{
	char host[HOST_LEN + 1], **v = NULL;
	unsigned n = 0, cap = 0;
	struct dirent *de;
	size_t hlen;
	DIR *d;

	*out = NULL;
	*nr = 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	if (hostname)
		host_part(hostname, host, sizeof(host));
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		struct stat st;

		if (!run_name(name, &hlen))
			continue;
		/* a FIFO or a device named as a run is none (it would be newest) */
		if (de->d_type != DT_REG &&
		    (fstatat(dirfd(d), name, &st, 0) || !S_ISREG(st.st_mode)))
			continue;
		if (hostname && (hlen != strlen(host) ||
				 strncmp(name + STAMP_LEN + 1, host, hlen)))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			v = kscen_xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = kscen_xstrdup(name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_name_desc);
	for (unsigned i = 0; i < n; i++) {
		char *full = join(dir, v[i]);

		free(v[i]);
		v[i] = full;
	}
	*out = v;
	*nr = n;
	return 0;
}

int kscen_result_latest(const char *dir, const char *hostname, char **out)
{
	char **names;
	unsigned nr;
	int ret = kscen_result_list(dir, hostname, &names, &nr);

	*out = NULL;
	if (ret)
		return ret;
	for (unsigned i = 0; i < nr; i++) {
		if (!i)
			*out = names[i];
		else
			free(names[i]);
	}
	free(names);
	return 0;
}

const struct kscen_job_result *kscen_run_find(const struct kscen_run *run,
					       const char *id)
{
	unsigned i;

	if (!run || !id)
		return NULL;
	for (i = 0; i < run->nr_jobs; i++)
		if (run->jobs[i].id && !strcmp(run->jobs[i].id, id))
			return &run->jobs[i];
	return NULL;
}
