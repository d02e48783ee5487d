/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store.h - the store/ stage's files: runs stored as YAML files under
 * results/<scenario>/ (result.c writes, result_load.c reads, with
 * result_select.c picking the jobs asked for), and shards merged
 * (merge.c). The run model is run.h's, history and references history.h's.
 */
#ifndef KSCEN_STORE_H
#define KSCEN_STORE_H

#include <stdbool.h>
#include <stdio.h>

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
/* The same; the first problem goes to @err instead of the diagnostics sink. */
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
/* A stored run is a regular file of at most this many bytes. */
#define KSCEN_RESULT_MAX_FILE	(64 << 20)
/*
 * result_select.c: the run in @path with only the jobs in @want, as text
 * (malloc'ed, *@len bytes), for kscen_result_load_some() to parse; NULL
 * where the file is not a regular file of at most KSCEN_RESULT_MAX_FILE
 * bytes laid out as kscen writes it (then the whole file is parsed).
 */
char *kscen_result_select(const char *path, const struct kscen_idset *want,
			  size_t *len);
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

/* merge.c */
struct kscen_merge_opts {
	bool force;		/* join mixed versions and scenario hashes */
	bool replace;		/* replace an existing regular file @out_path */
	bool quiet;
};
/*
 * Join the shard runs in @paths (files, or directories of runs) into one
 * run, saved at @out_path. Returns 0, or -EINVAL with the reason on stderr:
 * not shard runs, mixed scenarios, hashes or versions (without @force), a
 * job or a shard present twice. Missing shards make the run partial.
 */
int kscen_merge(const char *out_path, char **paths, unsigned nr,
		const struct kscen_merge_opts *o, struct kscen_run **out);
/* "# shards: ..." lines of a merged run's report header. */
void kscen_shards_print(FILE *out, const struct kscen_run *run);

#endif
