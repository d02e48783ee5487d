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
/*
 * Write @run to the file @path atomically (a temp file beside it, fsync,
 * then link(), or with @replace rename()); sets run->path. -EEXIST if
 * @path exists and not @replace; -ENODEV if it is not a regular file,
 * @replace or not; -EINTR (the temp file removed) if a signal came
 * (kscen_interrupted).
 */
int kscen_result_write(struct kscen_run *run, const char *path, bool replace);
/*
 * Can runs of @scenario be stored under @dir? Creates the directory; 0 or
 * -errno. Checked before a run, so that no run is lost at the end.
 */
int kscen_result_dir_ready(const char *dir, const char *scenario);
/*
 * The result kscen_result_save() already wrote under @dir for @run, or NULL
 * (else a malloc'ed path): a file of @run's name, or a later second's, that
 * holds the same run: start, command, label, shard, host, scenario and
 * every sample. A run resumed from a journal that outlived its saved
 * result (the runner died in between) is not saved twice.
 */
char *kscen_result_saved_as(const struct kscen_run *run, const char *dir);
/* Load a stored run; the caller frees it with kscen_run_free(). */
int kscen_result_load(const char *path, struct kscen_run **out);
/* The same; the first problem goes to @err instead of stderr. */
int kscen_result_load_err(const char *path, struct kscen_run **out,
			  char *err, size_t errlen);
/*
 * The job ids a reader wants of a stored run (the jobs of the run at hand):
 * sorted, so that a lookup is a binary search. Built with kscen_idset_*().
 */
struct kscen_idset {
	const char **id;	/* borrowed from the caller's jobs */
	unsigned nr;
};
void kscen_idset_from_run(struct kscen_idset *set, const struct kscen_run *run);
void kscen_idset_add(struct kscen_idset *set, const char *id);	/* then sort */
void kscen_idset_sort(struct kscen_idset *set);
bool kscen_idset_has(const struct kscen_idset *set, const char *id);
void kscen_idset_free(struct kscen_idset *set);
/*
 * Load a stored run with only the jobs in @want (NULL: all): where the file
 * is laid out as kscen writes it, the other jobs are skipped unparsed, so
 * a reference of 2,000 jobs costs what the few a run needs cost. The
 * run's other fields are all there. Errors as kscen_result_load_err().
 */
int kscen_result_load_some(const char *path, const struct kscen_idset *want,
			   struct kscen_run **out, char *err, size_t errlen);
/*
 * The newest stored run in @dir/<scenario>/ from host @hostname, or in @path
 * when that is a directory of runs; NULL path in *out when there is none.
 */
int kscen_result_latest(const char *dir, const char *hostname, char **out);
/* Is @name one kscen_result_save() makes: <stamp>-<host>[+<label>].yaml? */
bool kscen_result_name_ok(const char *name);
/*
 * Every stored run in @dir (from @hostname, NULL: any), newest first, as
 * malloc'ed paths in a malloc'ed array of *@nr.
 */
int kscen_result_list(const char *dir, const char *hostname, char ***out,
		      unsigned *nr);

#endif
