/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store.h - runs stored as YAML files under results/<scenario>/
 * (result.c writes, result_load.c reads).
 */
#ifndef KSCEN_STORE_H
#define KSCEN_STORE_H

#include "run.h"

/*
 * result.c: write @run to @dir/<scenario>/<started>-<hostname>.yaml
 * atomically (temp file, fsync, rename); sets run->path.
 */
int kscen_result_save(struct kscen_run *run, const char *dir);
/* Write @run to the file @path atomically; sets run->path. */
int kscen_result_write(struct kscen_run *run, const char *path);
/*
 * Can runs of @scenario be stored under @dir? Creates the directory; 0 or
 * -errno. Checked before a run, so that no run is lost at the end.
 */
int kscen_result_dir_ready(const char *dir, const char *scenario);
/* Load a stored run; the caller frees it with kscen_run_free(). */
int kscen_result_load(const char *path, struct kscen_run **out);
/* The same; the first problem goes to @err instead of stderr. */
int kscen_result_load_err(const char *path, struct kscen_run **out,
			  char *err, size_t errlen);
/*
 * The newest stored run in @dir/<scenario>/ from host @hostname, or in @path
 * when that is a directory of runs; NULL path in *out when there is none.
 */
int kscen_result_latest(const char *dir, const char *hostname, char **out);
/*
 * Every stored run in @dir (from @hostname, NULL: any), newest first, as
 * malloc'ed paths in a malloc'ed array of *@nr.
 */
int kscen_result_list(const char *dir, const char *hostname, char ***out,
		      unsigned *nr);

#endif
