// SPDX-License-Identifier: GPL-2.0
/*
 * module.c - workloads built outside the tree: shared objects that export a
 * struct kscen_module (workload.h), loaded from a scenario's "modules:" or
 * from KSCEN_MODULE_PATH, and added to the list workload.c searches.
 *
 * A module runs with the runner's privileges, often root's, so it is
 * opened only through a path nobody but root and the caller can change
 * (trust.c: the file and every directory and symlink up to /), and a
 * KSCEN_MODULE_PATH directory anyone else may add a file to is refused.
 * The bytes read are hashed (what a stored run names) and loaded from a
 * copy in memory, so what runs is what was hashed. A module is first
 * loaded in a child process, killed after LOAD_TIMEOUT_MS: a constructor
 * that exits, crashes or hangs is an error there, never validate or run
 * ending with exit 0 and no output, or hanging. Each workload is checked
 * as the compiler and the unit tests check a built-in one: its hooks,
 * metrics and parameter table (offsets within the params struct, defaults
 * that parse), and every pointer it hands over lies within the module's
 * own loaded segments, every string ends there (a 1-byte kscen_module
 * symbol, or a name that runs off the end, is refused, not read past). A
 * path is loaded once; the fork server loads a job's module the same way
 * and refuses it if its bytes no longer hash to what the run loaded
 * (sampler.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "registry.h"
#include "lib/child.h"
#include "lib/diag.h"
#include "lib/util.h"

#define MAX_PARAMS_SIZE (1 << 20)
#define MAX_PARAMS 1024		/* of a workload's table */
#define MAX_WORKLOADS 1024	/* of a module */
#define LOAD_TIMEOUT_MS 10000	/* for a module's constructors, in the probe */

/* A module's loaded segments: where what it hands over must lie. */
struct mod_map {
	uintptr_t lo[16], hi[16];
	bool x[16];		/* executable */
	unsigned n;
};

struct loaded {
	const struct kscen_workload *w;
	const char *path;	/* the module's real path; NULL: built-in */
	const struct mod_map *map;
};

#define MODULE_MAX (256 << 20)	/* bytes of a module file read to hash it */

static struct {
	char **paths;		/* every module loaded, by real path */
	char **shas;		/* and the sha256 of its file when loaded */
	struct mod_map **maps;	/* and where it lies */
	unsigned nr_paths;
	struct loaded *w;	/* their workloads */
	unsigned nr;
} mods;


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
		return kscen_errf(err, len, -EINVAL, "parameter %u: needs a name of letters, "
			    "digits, '_', '.' or '-'", i);
	if ((unsigned)p->type > KSCEN_P_ENUM)
		return kscen_errf(err, len, -EINVAL, "parameter %s: unknown type %d",
			    p->name, (int)p->type);
	size = ptype_size(p->type, &align);
	if (p->offset > w->params_size || w->params_size - p->offset < size ||
	    p->offset % align)
		return kscen_errf(err, len, -EINVAL, "parameter %s: offset %zu is not a "
			    "%s within params_size %zu", p->name, p->offset,
			    kscen_ptype_name(p->type), w->params_size);
	if (p->type == KSCEN_P_ENUM && (!p->choices || !*p->choices))
		return kscen_errf(err, len, -EINVAL, "parameter %s: an enum needs choices",
			    p->name);
	if ((p->type == KSCEN_P_INT || p->type == KSCEN_P_SIZE ||
	     p->type == KSCEN_P_TIME) && p->min > p->max)
		return kscen_errf(err, len, -EINVAL, "parameter %s: min %lld is above max %lld",
			    p->name, p->min, p->max);
	if (p->def) {
		if (kscen_value_parse(p, p->def, &v, perr, sizeof(perr)))
			return kscen_errf(err, len, -EINVAL, "parameter %s: default '%s': %s",
				    p->name, p->def, perr);
		kscen_value_fini(&v);
	}
	for (unsigned k = 0; k < i; k++)
		if (!strcmp(w->params[k].name, p->name))
			return kscen_errf(err, len, -EINVAL, "parameter %s: given twice", p->name);
	return 0;
}

int kscen_workload_check(const struct kscen_workload *w, char *err, size_t len)
{
	if (!name_ok(w->name))
		return kscen_errf(err, len, -EINVAL, "a workload needs a name of letters, "
			    "digits, '_', '.' or '-'");
	if (!w->summary)
		return kscen_errf(err, len, -EINVAL, "workload %s: no summary", w->name);
	if (!w->sample)
		return kscen_errf(err, len, -EINVAL, "workload %s: no sample()", w->name);
	if (!w->metrics || w->nr_metrics < 1 || w->nr_metrics > KSCEN_MAX_METRICS)
		return kscen_errf(err, len, -EINVAL, "workload %s: needs 1 to %d metrics",
			    w->name, KSCEN_MAX_METRICS);
	for (unsigned i = 0; i < w->nr_metrics; i++) {
		const struct kscen_metric_desc *m = &w->metrics[i];

		if (!m->name || !*m->name || !m->unit ||
		    (m->better != KSCEN_LOWER && m->better != KSCEN_HIGHER))
			return kscen_errf(err, len, -EINVAL, "workload %s: metric %u needs "
				    "a name, a unit and lower or higher", w->name, i);
	}
	if (w->nr_params && !w->params)
		return kscen_errf(err, len, -EINVAL, "workload %s: %u parameters but no table",
			    w->name, w->nr_params);
	if (w->params_size > MAX_PARAMS_SIZE)
		return kscen_errf(err, len, -EINVAL, "workload %s: params_size %zu is above %d",
			    w->name, w->params_size, MAX_PARAMS_SIZE);
	for (unsigned i = 0; i < w->nr_params; i++) {
		char perr[384];

		if (check_param(w, i, perr, sizeof(perr)))
			return kscen_errf(err, len, -EINVAL, "workload %s: %s", w->name, perr);
		if (!w->params[i].help)
			return kscen_errf(err, len, -EINVAL, "workload %s: parameter %s: no help",
				    w->name, w->params[i].name);
	}
	return 0;
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

/* ---- Bounds of what a module hands over --------------------------------- */

struct find_map {
	uintptr_t base;
	const char *name;
	struct mod_map *map;
};

static int find_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find_map *f = arg;

	(void)size;
	if (info->dlpi_addr != f->base || !info->dlpi_name ||
	    strcmp(info->dlpi_name, f->name))
		return 0;
	for (unsigned i = 0; i < info->dlpi_phnum && f->map->n < 16; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
			continue;
		f->map->lo[f->map->n] = info->dlpi_addr + ph->p_vaddr;
		f->map->hi[f->map->n] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		f->map->x[f->map->n++] = ph->p_flags & PF_X;
	}
	return 1;
}

/* The readable segments of the loaded object @h; 0 or -ENOENT. */
static int map_of(void *h, struct mod_map *map)
{
	struct link_map *lm;
	struct find_map f = { .map = map };

	memset(map, 0, sizeof(*map));
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm)
		return -ENOENT;
	f.base = lm->l_addr;
	f.name = lm->l_name;
	dl_iterate_phdr(find_segments, &f);
	return map->n ? 0 : -ENOENT;
}

/* Do @size bytes at @p lie within one segment of @m (an executable one)? */
static bool in_map(const struct mod_map *m, const void *p, size_t size, bool exec)
{
	uintptr_t a = (uintptr_t)p;

	for (unsigned i = 0; i < m->n; i++)
		if (a >= m->lo[i] && a < m->hi[i] && size <= m->hi[i] - a &&
		    (!exec || m->x[i]))
			return true;
	return false;
}

/* Does the string at @s end within the segment it starts in? */
static bool str_in_map(const struct mod_map *m, const char *s)
{
	uintptr_t a = (uintptr_t)s;

	for (unsigned i = 0; i < m->n; i++)
		if (a >= m->lo[i] && a < m->hi[i])
			return memchr(s, 0, m->hi[i] - a) != NULL;
	return false;
}

/* Every pointer of workload @w, before anything reads through one. */
static int check_bounds(const struct mod_map *m, const struct kscen_workload *w,
			unsigned i, char *err, size_t len)
{
	const void *hooks[] = {
		(const void *)w->job_metrics, (const void *)w->check,
		(const void *)w->check_captures, (const void *)w->supported,
		(const void *)w->setup, (const void *)w->sample, (const void *)w->teardown,
		(const void *)w->describe,
	};
#define STR_OK(s) (!(s) || str_in_map(m, (s)))

	if (!in_map(m, w, sizeof(*w), false))
		return kscen_errf(err, len, -EINVAL, "workload %u lies outside the module", i);
	if (!STR_OK(w->name) || !STR_OK(w->summary))
		return kscen_errf(err, len, -EINVAL, "workload %u: its name or summary is not a "
			    "string within the module", i);
	if (w->nr_metrics > KSCEN_MAX_METRICS || w->nr_params > MAX_PARAMS)
		return kscen_errf(err, len, -EINVAL, "workload %u: %u metrics and %u parameters, "
			    "at most %d and %d", i, w->nr_metrics, w->nr_params,
			    KSCEN_MAX_METRICS, MAX_PARAMS);
	if (w->metrics && !in_map(m, w->metrics, w->nr_metrics * sizeof(*w->metrics), false))
		return kscen_errf(err, len, -EINVAL, "workload %u: its metrics table lies "
			    "outside the module", i);
	for (unsigned k = 0; w->metrics && k < w->nr_metrics; k++)
		if (!STR_OK(w->metrics[k].name) || !STR_OK(w->metrics[k].unit))
			return kscen_errf(err, len, -EINVAL, "workload %u: metric %u: its name or "
				    "unit is not a string within the module", i, k);
	if (w->params && !in_map(m, w->params, w->nr_params * sizeof(*w->params), false))
		return kscen_errf(err, len, -EINVAL, "workload %u: its parameter table lies "
			    "outside the module", i);
	for (unsigned k = 0; w->params && k < w->nr_params; k++) {
		const struct kscen_param *p = &w->params[k];

		if (!STR_OK(p->name) || !STR_OK(p->def) || !STR_OK(p->choices) ||
		    !STR_OK(p->help))
			return kscen_errf(err, len, -EINVAL, "workload %u: parameter %u: a name, "
				    "default, choices or help that is not a string within "
				    "the module", i, k);
	}
	for (unsigned k = 0; k < ARRAY_SIZE(hooks); k++)
		if (hooks[k] && !in_map(m, hooks[k], 1, true))
			return kscen_errf(err, len, -EINVAL, "workload %u: hook %u is not code of "
				    "the module", i, k);
#undef STR_OK
	return 0;
}

static const struct mod_map *map_of_workload(const struct kscen_workload *w)
{
	for (unsigned i = 0; i < mods.nr; i++)
		if (mods.w[i].w == w)
			return mods.w[i].map;
	return NULL;
}

/* A string of job_metrics(): the module's own, or a string of @params. */
static bool metric_str_ok(const struct kscen_workload *w, const struct mod_map *m,
			  const void *params, const char *s)
{
	if (!s)
		return false;
	if (!m || str_in_map(m, s))
		return true;
	for (unsigned i = 0; i < w->nr_params; i++) {
		const char *v;

		if (w->params[i].type != KSCEN_P_STRING)
			continue;
		v = *(char *const *)((const char *)params + w->params[i].offset);
		if (v && s >= v && s <= v + strlen(v))
			return true;
	}
	return false;
}

int kscen_job_metrics_check(const struct kscen_workload *w, const void *params,
			    const struct kscen_metric_desc *m, unsigned n,
			    char *err, size_t len)
{
	const struct mod_map *map = map_of_workload(w);

	if (n < 1 || n > KSCEN_MAX_METRICS)
		return kscen_errf(err, len, -EINVAL, "workload %s: job_metrics() gave %u metrics, "
			    "not 1 to %d", w->name, n, KSCEN_MAX_METRICS);
	for (unsigned i = 0; i < n; i++)
		if (!metric_str_ok(w, map, params, m[i].name) || !*m[i].name ||
		    !metric_str_ok(w, map, params, m[i].unit) ||
		    (m[i].better != KSCEN_LOWER && m[i].better != KSCEN_HIGHER))
			return kscen_errf(err, len, -EINVAL, "workload %s: job_metrics(): metric "
				    "%u needs a name, a unit (strings of the module or of the "
				    "job's parameters) and lower or higher", w->name, i);
	return 0;
}

/* ---- Loading ------------------------------------------------------------- */

/*
 * The loaded module @h at @real, whose file hashed to @sha: check what it
 * exports, add its workloads.
 */
static int add(void *h, const char *real, const char *sha, char *err, size_t len)
{
	const struct kscen_module *m = dlsym(h, KSCEN_MODULE_SYMBOL);
	struct mod_map *map = kscen_xcalloc(1, sizeof(*map));
	const ElfW(Sym) *sym = NULL;
	Dl_info info;
	char werr[512];
	int ret = -EINVAL;

	if (!m) {
		kscen_errf(err, len, -EINVAL, "%s: no '%s' symbol: not a kscen module "
		     "(see KSCEN_MODULE() in kscen/workload.h)", real, KSCEN_MODULE_SYMBOL);
		goto out;
	}
	if (!dladdr1(m, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
	    sym->st_size < sizeof(*m) || map_of(h, map) || !in_map(map, m, sizeof(*m), false)) {
		kscen_errf(err, len, -EINVAL, "%s: its '%s' symbol is %zu bytes, not a struct "
		     "kscen_module (%zu) of the module", real, KSCEN_MODULE_SYMBOL,
		     sym ? (size_t)sym->st_size : 0, sizeof(*m));
		goto out;
	}
	if (m->abi != KSCEN_ABI_VERSION) {
		kscen_errf(err, len, -EINVAL, "module %s was built for kscen module ABI %u, this "
		     "kscen has %u: rebuild it against this kscen's workload.h", real,
		     m->abi, KSCEN_ABI_VERSION);
		goto out;
	}
	if (!m->nr_workloads || !m->workloads) {
		kscen_errf(err, len, -EINVAL, "%s: a module without workloads", real);
		goto out;
	}
	if (m->nr_workloads > MAX_WORKLOADS ||
	    !in_map(map, m->workloads, m->nr_workloads * sizeof(*m->workloads), false)) {
		kscen_errf(err, len, -EINVAL, "%s: its table of %u workloads lies outside the "
		     "module", real, m->nr_workloads);
		goto out;
	}
	for (unsigned i = 0; i < m->nr_workloads; i++) {
		const struct kscen_workload *w = m->workloads[i];
		const char *other = NULL;

		if (!w) {
			kscen_errf(err, len, -EINVAL, "%s: workload %u is NULL", real, i);
			goto out;
		}
		if (check_bounds(map, w, i, werr, sizeof(werr)) ||
		    kscen_workload_check(w, werr, sizeof(werr))) {
			kscen_errf(err, len, -EINVAL, "%s: %s", real, werr);
			goto out;
		}
		for (unsigned k = 0; k < kscen_nr_workloads && !other; k++)
			if (!strcmp(kscen_workloads[k]->name, w->name))
				other = "a built-in workload";
		for (unsigned k = 0; k < mods.nr && !other; k++)
			if (!strcmp(mods.w[k].w->name, w->name))
				other = mods.w[k].path;
		for (unsigned k = 0; k < i && !other; k++)
			if (!strcmp(m->workloads[k]->name, w->name))
				other = "another of its workloads";
		if (other) {
			ret = kscen_errf(err, len, -EEXIST, "%s: workload '%s' is already %s%s",
				   real, w->name, other[0] == '/' ? "loaded from " : "", other);
			goto out;
		}
	}
	mods.paths = kscen_xrealloc(mods.paths, (mods.nr_paths + 1) * sizeof(*mods.paths));
	mods.shas = kscen_xrealloc(mods.shas, (mods.nr_paths + 1) * sizeof(*mods.shas));
	mods.maps = kscen_xrealloc(mods.maps, (mods.nr_paths + 1) * sizeof(*mods.maps));
	mods.shas[mods.nr_paths] = kscen_xstrdup(sha);
	mods.maps[mods.nr_paths] = map;
	mods.paths[mods.nr_paths++] = kscen_xstrdup(real);
	mods.w = kscen_xrealloc(mods.w, (mods.nr + m->nr_workloads) * sizeof(*mods.w));
	for (unsigned i = 0; i < m->nr_workloads; i++)
		mods.w[mods.nr++] = (struct loaded){
			.w = m->workloads[i], .path = mods.paths[mods.nr_paths - 1],
			.map = map,
		};
	return 0;
out:
	free(map);
	return ret;
}

/* All of @fd, at most MODULE_MAX bytes; 0 or -errno. */
static int read_all(int fd, char **out, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = kscen_xmalloc(cap);
	ssize_t got;

	while ((got = read(fd, buf + n, cap - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			return -errno;
		}
		n += got;
		if (n == cap) {
			if (cap >= MODULE_MAX) {
				free(buf);
				return -EFBIG;
			}
			cap *= 2;
			buf = kscen_xrealloc(buf, cap);
		}
	}
	*out = buf;
	*len = n;
	return 0;
}

struct probe {
	const char *self, *real, *sha;
	int fd;			/* the verdict's pipe */
};

/* In the probe child: load, check, say "0" or "1" and why; never return. */
static int probe_fn(void *arg)
{
	const struct probe *p = arg;
	char msg[1024] = "0";
	void *h = dlopen(p->self, RTLD_NOW | RTLD_LOCAL);
	ssize_t n;

	if (!h)
		snprintf(msg, sizeof(msg), "1%s", dlerror() ? dlerror() : p->real);
	else if (add(h, p->real, p->sha, msg + 1, sizeof(msg) - 1))
		msg[0] = '1';
	n = write(p->fd, msg, strlen(msg));
	_exit(n > 0 ? 0 : 1);	/* no destructor, no atexit: only what loading did */
}

/*
 * Load the module copy @self in a child first, killed past LOAD_TIMEOUT_MS:
 * 0, or -EINVAL with why in @err (its own error, or how loading it ended).
 */
static int probe(const char *self, const char *real, const char *sha, char *err,
		 size_t len)
{
	struct probe p = { .self = self, .real = real, .sha = sha };
	struct kscen_child c = {
		.fn = probe_fn, .arg = &p, .in = KSCEN_CHILD_NULL,
		.out = KSCEN_CHILD_NULL, .err = KSCEN_CHILD_NULL,
		.flags = KSCEN_CHILD_PDEATHSIG | KSCEN_CHILD_PIDFD | KSCEN_CHILD_PGROUP,
	};
	struct kscen_child_output o = { .max = 1023 };
	char how[96];
	int pfd[2], ret;

	if (pipe2(pfd, O_CLOEXEC))
		return kscen_errf(err, len, -errno, "%s: pipe: %s", real, strerror(errno));
	p.fd = pfd[1];
	ret = kscen_child_start(&c);
	close(pfd[1]);
	if (ret) {
		close(pfd[0]);
		return kscen_errf(err, len, ret, "%s: fork: %s", real, strerror(-ret));
	}
	o.data = kscen_xmalloc(o.max + 1);
	o.data[0] = '\0';
	o.fd = pfd[0];
	ret = kscen_child_capture(&c, &o, 1, LOAD_TIMEOUT_MS, NULL);
	if (!ret)
		ret = kscen_child_finish(&c, LOAD_TIMEOUT_MS);
	kscen_child_kill(&c);
	if (o.fd >= 0)
		close(o.fd);
	if (ret == -ETIMEDOUT)
		ret = kscen_errf(err, len, -EINVAL, "%s: loading it did not finish in %d s "
			   "(a constructor that hangs?)", real, LOAD_TIMEOUT_MS / 1000);
	else if (ret)
		ret = kscen_errf(err, len, ret, "%s: %s: %s", real, c.failed ? c.failed : "wait",
			   strerror(-ret));
	else if (o.len && o.data[0] == '0')
		ret = 0;
	else if (o.len && o.data[0] == '1')
		ret = kscen_errf(err, len, -EINVAL, "%s", o.data + 1);
	else
		ret = kscen_errf(err, len, -EINVAL, "%s: loading it ended the process (%s) before "
			   "kscen could check it: a constructor that exits or crashes?",
			   real, kscen_wait_status_text(c.status, how, sizeof(how)));
	free(o.data);
	return ret;
}

/* Is the module at @real loaded (1), and as @expect_sha (-ESTALE if not)? */
static int loaded(const char *real, const char *expect_sha, char *err, size_t len)
{
	for (unsigned i = 0; i < mods.nr_paths; i++) {
		if (strcmp(mods.paths[i], real))
			continue;
		if (expect_sha && strcmp(expect_sha, mods.shas[i]))
			return kscen_errf(err, len, -ESTALE, "module %s: the run loaded sha256 %s, "
				    "this process %s", real, expect_sha, mods.shas[i]);
		return 1;
	}
	return 0;
}

/*
 * Load @path: through a trusted path, hashed, from a copy in memory;
 * probed in a child first unless @expect_sha (the fork server: the runner
 * probed those very bytes), which the bytes must then hash to.
 */
static int load(const char *path, const char *expect_sha, char *err, size_t len)
{
	char real[PATH_MAX], self[64], *buf = NULL, *sha = NULL;
	int fd, mfd = -1, ret;
	size_t n = 0;
	void *h;

	/* loaded: by its real path, as each sample's request names it */
	ret = loaded(path, expect_sha, err, len);
	if (ret)
		return ret < 0 ? ret : 0;
	fd = kscen_open_trusted(path, false, real, err, len);
	if (fd < 0)
		return fd;
	ret = loaded(real, expect_sha, err, len);
	if (ret) {
		close(fd);
		return ret < 0 ? ret : 0;
	}
	/* What a stored run names, so that two builds are not compared as one. */
	ret = read_all(fd, &buf, &n);
	if (ret) {
		ret = kscen_errf(err, len, ret, "%s: %s", real, strerror(-ret));
		goto out;
	}
	sha = kscen_sha256_hex(buf, n);
	if (expect_sha && strcmp(expect_sha, sha)) {
		ret = kscen_errf(err, len, -ESTALE, "module %s changed since the run loaded it: "
			   "its sha256 was %s, it is now %s; samples of two builds are "
			   "not one job's", real, expect_sha, sha);
		goto out;
	}
	/* the bytes hashed are the bytes loaded; the file's own fd otherwise */
	mfd = memfd_create("kscen-module", MFD_CLOEXEC);
	if (mfd >= 0 && (write(mfd, buf, n) != (ssize_t)n || lseek(mfd, 0, SEEK_SET))) {
		close(mfd);
		mfd = -1;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", mfd >= 0 ? mfd : fd);
	if (!expect_sha) {
		ret = probe(self, real, sha, err, len);
		if (ret)
			goto out;
	}
	h = dlopen(self, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();

		ret = kscen_errf(err, len, -EINVAL, "%s: %s", real, e ? e : "cannot be loaded");
		goto out;
	}
	ret = add(h, real, sha, err, len);
	if (ret)
		dlclose(h);
out:
	if (mfd >= 0)
		close(mfd);
	close(fd);
	free(buf);
	free(sha);
	return ret;
}

int kscen_module_load(const char *path, char *err, size_t len)
{
	return load(path, NULL, err, len);
}

int kscen_module_load_as(const char *path, const char *sha, char *err, size_t len)
{
	return load(path, sha && *sha ? sha : NULL, err, len);
}

unsigned kscen_module_nr_files(void)
{
	return mods.nr_paths;
}

const char *kscen_module_file(unsigned i, const char **sha)
{
	if (i >= mods.nr_paths)
		return NULL;
	if (sha)
		*sha = mods.shas[i];
	return mods.paths[i];
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
	struct stat st;
	int fd, ret = 0;
	DIR *d;

	fd = kscen_open_trusted(dir, true, real, err, len);
	if (fd < 0)
		return fd;
	/* sticky or not: anyone else may add a module to it */
	if (!fstat(fd, &st) && (st.st_mode & (S_IWOTH | S_IWGRP)) &&
	    ((st.st_mode & S_IWOTH) || st.st_gid != 0)) {
		close(fd);
		return kscen_errf(err, len, -EPERM, "%s: refused: the directory is %s-writable",
			    real, st.st_mode & S_IWOTH ? "world" : "group");
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return kscen_errf(err, len, -errno, "%s: %s", real, strerror(errno));
	}
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
			ret = load(names[i], NULL, err, len);
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
			ret = kscen_errf(err, sizeof(err), -errno, "%s: %s", dir, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			ret = load_dir(dir, err, sizeof(err));
		else
			ret = load(dir, NULL, err, sizeof(err));
	}
	free(list);
	if (ret)
		kscen_diag(KSCEN_DIAG_ERROR, NULL, NOWHERE, "KSCEN_MODULE_PATH: %s", err);
	return ret;
}
