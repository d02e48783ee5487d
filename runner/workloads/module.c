// SPDX-License-Identifier: GPL-2.0
/*
 * module.c - workloads built outside the tree: shared objects that export a
 * struct kscen_module (workload.h), loaded from a scenario's "modules:" or
 * from KSCEN_MODULE_PATH, and added to the list workload.c searches.
 *
 * A module runs with the runner's privileges, often root's, so a file that
 * anyone may write, or one in a directory where anyone may replace it, is
 * refused; so is a KSCEN_MODULE_PATH directory anyone may add a file to.
 * Each workload is checked as the compiler and the unit tests check a
 * built-in one: its hooks, metrics and parameter table (offsets within the
 * params struct, defaults that parse). A path is loaded once (the fork
 * server loads a job's module the same way: sampler.c).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "registry.h"
#include "lib/diag.h"
#include "lib/util.h"

#define MAX_PARAMS_SIZE (1 << 20)

struct loaded {
	const struct kscen_workload *w;
	const char *path;	/* the module's real path; NULL: built-in */
};

#define MODULE_MAX (256 << 20)	/* bytes of a module file read to hash it */

static struct {
	char **paths;		/* every module loaded, by real path */
	char **shas;		/* and the sha256 of its file when loaded */
	unsigned nr_paths;
	struct loaded *w;	/* their workloads */
	unsigned nr;
} mods;

static int fail(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return ret;
}

static bool name_ok(const char *s)
{
	return s && kscen_name_ok(s);
}

static size_t ptype_size(enum kscen_ptype t, size_t *align)
{
	switch (t) {
	case KSCEN_P_BOOL:
		*align = alignof(bool);
		return sizeof(bool);
	case KSCEN_P_STRING:
		*align = alignof(char *);
		return sizeof(char *);
	case KSCEN_P_ENUM:
		*align = alignof(int);
		return sizeof(int);
	default:
		*align = alignof(long long);
		return sizeof(long long);
	}
}

static int check_param(const struct kscen_workload *w, unsigned i, char *err, size_t len)
{
	const struct kscen_param *p = &w->params[i];
	struct kscen_value v;
	size_t size, align;
	char perr[256];

	if (!name_ok(p->name))
		return fail(err, len, -EINVAL, "parameter %u: needs a name of letters, "
			    "digits, '_', '.' or '-'", i);
	if ((unsigned)p->type > KSCEN_P_ENUM)
		return fail(err, len, -EINVAL, "parameter %s: unknown type %d",
			    p->name, (int)p->type);
	size = ptype_size(p->type, &align);
	if (p->offset > w->params_size || w->params_size - p->offset < size ||
	    p->offset % align)
		return fail(err, len, -EINVAL, "parameter %s: offset %zu is not a "
			    "%s within params_size %zu", p->name, p->offset,
			    kscen_ptype_name(p->type), w->params_size);
	if (p->type == KSCEN_P_ENUM && (!p->choices || !*p->choices))
		return fail(err, len, -EINVAL, "parameter %s: an enum needs choices",
			    p->name);
	if ((p->type == KSCEN_P_INT || p->type == KSCEN_P_SIZE ||
	     p->type == KSCEN_P_TIME) && p->min > p->max)
		return fail(err, len, -EINVAL, "parameter %s: min %lld is above max %lld",
			    p->name, p->min, p->max);
	if (p->def) {
		if (kscen_value_parse(p, p->def, &v, perr, sizeof(perr)))
			return fail(err, len, -EINVAL, "parameter %s: default '%s': %s",
				    p->name, p->def, perr);
		kscen_value_fini(&v);
	}
	for (unsigned k = 0; k < i; k++)
		if (!strcmp(w->params[k].name, p->name))
			return fail(err, len, -EINVAL, "parameter %s: given twice", p->name);
	return 0;
}

int kscen_workload_check(const struct kscen_workload *w, char *err, size_t len)
{
	if (!name_ok(w->name))
		return fail(err, len, -EINVAL, "a workload needs a name of letters, "
			    "digits, '_', '.' or '-'");
	if (!w->summary)
		return fail(err, len, -EINVAL, "workload %s: no summary", w->name);
	if (!w->sample)
		return fail(err, len, -EINVAL, "workload %s: no sample()", w->name);
	if (!w->metrics || w->nr_metrics < 1 || w->nr_metrics > KSCEN_MAX_METRICS)
		return fail(err, len, -EINVAL, "workload %s: needs 1 to %d metrics",
			    w->name, KSCEN_MAX_METRICS);
	for (unsigned i = 0; i < w->nr_metrics; i++) {
		const struct kscen_metric_desc *m = &w->metrics[i];

		if (!m->name || !*m->name || !m->unit ||
		    (m->better != KSCEN_LOWER && m->better != KSCEN_HIGHER))
			return fail(err, len, -EINVAL, "workload %s: metric %u needs "
				    "a name, a unit and lower or higher", w->name, i);
	}
	if (w->nr_params && !w->params)
		return fail(err, len, -EINVAL, "workload %s: %u parameters but no table",
			    w->name, w->nr_params);
	if (w->params_size > MAX_PARAMS_SIZE)
		return fail(err, len, -EINVAL, "workload %s: params_size %zu is above %d",
			    w->name, w->params_size, MAX_PARAMS_SIZE);
	for (unsigned i = 0; i < w->nr_params; i++) {
		char perr[384];

		if (check_param(w, i, perr, sizeof(perr)))
			return fail(err, len, -EINVAL, "workload %s: %s", w->name, perr);
		if (!w->params[i].help)
			return fail(err, len, -EINVAL, "workload %s: parameter %s: no help",
				    w->name, w->params[i].name);
	}
	return 0;
}

/* Is @path, or a directory above it, one anyone may change? */
static int check_perms(const char *path, bool dir_of_modules, char *err, size_t len)
{
	char *p = kscen_xstrdup(path), *slash;
	struct stat st;
	int ret = 0;

	if (stat(p, &st)) {
		ret = fail(err, len, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!dir_of_modules && !S_ISREG(st.st_mode)) {
		ret = fail(err, len, -EINVAL, "%s: not a regular file", path);
		goto out;
	}
	if (st.st_mode & S_IWOTH) {
		ret = fail(err, len, -EPERM, "%s: refused: %s is world-writable",
			   path, dir_of_modules ? "the directory" : "the file");
		goto out;
	}
	/* Each directory above: one anyone may rename or replace entries in. */
	while ((slash = strrchr(p, '/'))) {
		slash[slash == p] = '\0';
		if (stat(p, &st)) {
			ret = fail(err, len, -errno, "%s: %s", p, strerror(errno));
			goto out;
		}
		if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
			ret = fail(err, len, -EPERM, "%s: refused: the directory %s "
				   "is world-writable", path, p);
			goto out;
		}
		if (slash == p)
			break;
	}
out:
	free(p);
	return ret;
}

const struct kscen_workload *kscen_module_find(const char *name)
{
	for (unsigned i = 0; i < mods.nr; i++)
		if (!strcmp(mods.w[i].w->name, name))
			return mods.w[i].w;
	return NULL;
}

unsigned kscen_module_nr_workloads(void)
{
	return mods.nr;
}

const struct kscen_workload *kscen_module_workload(unsigned i, const char **path)
{
	if (i >= mods.nr)
		return NULL;
	if (path)
		*path = mods.w[i].path;
	return mods.w[i].w;
}

const char *kscen_workload_origin(const struct kscen_workload *w)
{
	for (unsigned i = 0; i < mods.nr; i++)
		if (mods.w[i].w == w)
			return mods.w[i].path;
	return NULL;
}

const char *kscen_workload_module_sha256(const struct kscen_workload *w)
{
	const char *path = kscen_workload_origin(w);

	for (unsigned i = 0; path && i < mods.nr_paths; i++)
		if (mods.paths[i] == path)
			return mods.shas[i];
	return NULL;
}

/*
 * The loaded module @h at @real, whose file hashed to @sha: check what it
 * exports, add its workloads.
 */
static int add(void *h, const char *real, const char *sha, char *err, size_t len)
{
	const struct kscen_module *m = dlsym(h, KSCEN_MODULE_SYMBOL);
	char werr[512];

	if (!m)
		return fail(err, len, -EINVAL, "%s: no '%s' symbol: not a kscen module "
			    "(see KSCEN_MODULE() in kscen/workload.h)", real,
			    KSCEN_MODULE_SYMBOL);
	if (m->abi != KSCEN_ABI_VERSION)
		return fail(err, len, -EINVAL, "module %s was built for kscen module "
			    "ABI %u, this kscen has %u: rebuild it against this kscen's "
			    "workload.h", real, m->abi, KSCEN_ABI_VERSION);
	if (!m->nr_workloads || !m->workloads)
		return fail(err, len, -EINVAL, "%s: a module without workloads", real);
	for (unsigned i = 0; i < m->nr_workloads; i++) {
		const struct kscen_workload *w = m->workloads[i];
		const char *other = NULL;

		if (!w)
			return fail(err, len, -EINVAL, "%s: workload %u is NULL", real, i);
		if (kscen_workload_check(w, werr, sizeof(werr)))
			return fail(err, len, -EINVAL, "%s: %s", real, werr);
		for (unsigned k = 0; k < kscen_nr_workloads && !other; k++)
			if (!strcmp(kscen_workloads[k]->name, w->name))
				other = "a built-in workload";
		for (unsigned k = 0; k < mods.nr && !other; k++)
			if (!strcmp(mods.w[k].w->name, w->name))
				other = mods.w[k].path;
		for (unsigned k = 0; k < i && !other; k++)
			if (!strcmp(m->workloads[k]->name, w->name))
				other = "another of its workloads";
		if (other)
			return fail(err, len, -EEXIST, "%s: workload '%s' is already %s%s",
				    real, w->name, other[0] == '/' ? "loaded from " : "",
				    other);
	}
	mods.paths = kscen_xrealloc(mods.paths, (mods.nr_paths + 1) * sizeof(*mods.paths));
	mods.shas = kscen_xrealloc(mods.shas, (mods.nr_paths + 1) * sizeof(*mods.shas));
	mods.shas[mods.nr_paths] = kscen_xstrdup(sha);
	mods.paths[mods.nr_paths++] = kscen_xstrdup(real);
	mods.w = kscen_xrealloc(mods.w, (mods.nr + m->nr_workloads) * sizeof(*mods.w));
	for (unsigned i = 0; i < m->nr_workloads; i++)
		mods.w[mods.nr++] = (struct loaded){
			.w = m->workloads[i], .path = mods.paths[mods.nr_paths - 1],
		};
	return 0;
}

static int load(const char *path, char *err, size_t len)
{
	char real[PATH_MAX], *buf, *sha;
	size_t n;
	void *h;
	int ret;

	if (!realpath(path, real))
		return fail(err, len, -errno, "%s: %s", path, strerror(errno));
	for (unsigned i = 0; i < mods.nr_paths; i++)
		if (!strcmp(mods.paths[i], real))
			return 0;
	ret = check_perms(real, false, err, len);
	if (ret)
		return ret;
	/* What a stored run names, so that two builds are not compared as one. */
	ret = kscen_read_regular(real, MODULE_MAX, &buf, &n);
	if (ret)
		return fail(err, len, ret, "%s: %s", real, kscen_read_strerror(ret));
	sha = kscen_sha256_hex(buf, n);
	free(buf);
	h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();

		free(sha);
		return fail(err, len, -EINVAL, "%s", e ? e : real);
	}
	ret = add(h, real, sha, err, len);
	free(sha);
	if (ret)
		dlclose(h);
	return ret;
}

int kscen_module_load(const char *path, char *err, size_t len)
{
	return load(path, err, len);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.so of @dir, in name order. */
static int load_dir(const char *dir, char *err, size_t len)
{
	char real[PATH_MAX], **names = NULL;
	unsigned nr = 0;
	struct dirent *e;
	int ret;
	DIR *d;

	if (!realpath(dir, real))
		return fail(err, len, -errno, "%s: %s", dir, strerror(errno));
	ret = check_perms(real, true, err, len);
	if (ret)
		return ret;
	d = opendir(real);
	if (!d)
		return fail(err, len, -errno, "%s: %s", real, strerror(errno));
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 3 && !strcmp(e->d_name + n - 3, ".so")) {
			names = kscen_xrealloc(names, (nr + 1) * sizeof(*names));
			names[nr++] = kscen_xasprintf("%s/%s", real, e->d_name);
		}
	}
	closedir(d);
	qsort(names, nr, sizeof(*names), by_name);
	for (unsigned i = 0; i < nr; i++) {
		if (!ret)
			ret = load(names[i], err, len);
		free(names[i]);
	}
	free(names);
	return ret;
}

int kscen_module_env_load(void)
{
	static int done, ret;
	static char err[1024];
	const char *env = getenv("KSCEN_MODULE_PATH");
	char *list, *dir, *save;
	struct stat st;

	if (done) {
		if (ret)
			kscen_diag(KSCEN_DIAG_ERROR, NULL, NOWHERE, "KSCEN_MODULE_PATH: %s", err);
		return ret;
	}
	done = 1;
	if (!env || !*env)
		return 0;
	list = kscen_xstrdup(env);
	for (dir = strtok_r(list, ":", &save); dir && !ret;
	     dir = strtok_r(NULL, ":", &save)) {
		if (stat(dir, &st))
			ret = fail(err, sizeof(err), -errno, "%s: %s", dir, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			ret = load_dir(dir, err, sizeof(err));
		else
			ret = load(dir, err, sizeof(err));
	}
	free(list);
	if (ret)
		kscen_diag(KSCEN_DIAG_ERROR, NULL, NOWHERE, "KSCEN_MODULE_PATH: %s", err);
	return ret;
}
