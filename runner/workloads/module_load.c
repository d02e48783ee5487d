// SPDX-License-Identifier: GPL-2.0
/*
 * module_load.c - loading workload modules (module.c says how and why):
 * a module's file read and hashed, loaded from that copy in a probe
 * child first, then in the runner; what it exports checked and its
 * workloads added; KSCEN_MODULE_PATH's directories loaded in name order.
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

#include "module.h"
#include "registry.h"
#include "lib/child.h"
#include "lib/diag.h"
#include "lib/util.h"


#define MAX_WORKLOADS 1024	/* of a module */
#define LOAD_TIMEOUT_MS 10000	/* for a module's constructors, in the probe */
#define MODULE_MAX (256 << 20)	/* bytes of a module file read to hash it */

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
	    sym->st_size < sizeof(*m) || module_map_of(h, map) || !module_in_map(map, m, sizeof(*m), false)) {
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
	    !module_in_map(map, m->workloads, m->nr_workloads * sizeof(*m->workloads), false)) {
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
		if (module_check_bounds(map, w, i, werr, sizeof(werr)) ||
		    kscen_workload_check(w, werr, sizeof(werr))) {
			kscen_errf(err, len, -EINVAL, "%s: %s", real, werr);
			goto out;
		}
		for (unsigned k = 0; k < kscen_nr_workloads && !other; k++)
			if (!strcmp(kscen_workloads[k]->name, w->name))
				other = "a built-in workload";
		for (unsigned k = 0; k < kscen_mods.nr && !other; k++)
			if (!strcmp(kscen_mods.w[k].w->name, w->name))
				other = kscen_mods.w[k].path;
		for (unsigned k = 0; k < i && !other; k++)
			if (!strcmp(m->workloads[k]->name, w->name))
				other = "another of its workloads";
		if (other) {
			ret = kscen_errf(err, len, -EEXIST, "%s: workload '%s' is already %s%s",
				   real, w->name, other[0] == '/' ? "loaded from " : "", other);
			goto out;
		}
	}
	kscen_mods.paths = kscen_xrealloc(kscen_mods.paths, (kscen_mods.nr_paths + 1) * sizeof(*kscen_mods.paths));
	kscen_mods.shas = kscen_xrealloc(kscen_mods.shas, (kscen_mods.nr_paths + 1) * sizeof(*kscen_mods.shas));
	kscen_mods.maps = kscen_xrealloc(kscen_mods.maps, (kscen_mods.nr_paths + 1) * sizeof(*kscen_mods.maps));
	kscen_mods.shas[kscen_mods.nr_paths] = kscen_xstrdup(sha);
	kscen_mods.maps[kscen_mods.nr_paths] = map;
	kscen_mods.paths[kscen_mods.nr_paths++] = kscen_xstrdup(real);
	kscen_mods.w = kscen_xrealloc(kscen_mods.w, (kscen_mods.nr + m->nr_workloads) * sizeof(*kscen_mods.w));
	for (unsigned i = 0; i < m->nr_workloads; i++)
		kscen_mods.w[kscen_mods.nr++] = (struct loaded){
			.w = m->workloads[i], .path = kscen_mods.paths[kscen_mods.nr_paths - 1],
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
	for (unsigned i = 0; i < kscen_mods.nr_paths; i++) {
		if (strcmp(kscen_mods.paths[i], real))
			continue;
		if (expect_sha && strcmp(expect_sha, kscen_mods.shas[i]))
			return kscen_errf(err, len, -ESTALE, "module %s: the run loaded sha256 %s, "
				    "this process %s", real, expect_sha, kscen_mods.shas[i]);
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
	return kscen_mods.nr_paths;
}

const char *kscen_module_file(unsigned i, const char **sha)
{
	if (i >= kscen_mods.nr_paths)
		return NULL;
	if (sha)
		*sha = kscen_mods.shas[i];
	return kscen_mods.paths[i];
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
