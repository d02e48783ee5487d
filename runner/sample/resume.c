// SPDX-License-Identifier: GPL-2.0
/*
 * resume.c - what `kscen run` does with its journal (journal.c): start one
 * beside the result, remove it once the complete result is saved, keep it
 * (and say how to finish) when the run is cut short or cannot be saved, and
 * check on --resume that the scenario still expands to the same jobs.
 */
#define _GNU_SOURCE	/* strdupa */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include "lib/diag.h"
#include "lib/util.h"
#include "journal.h"
#include "runner.h"
#include "expand/shard.h"
#include "workloads/registry.h"

/* "2026-12-02T16:51:06Z" -> "20261202T165106Z", keeping only digits and T/Z. */
static void stamp_of(const char *iso, char *buf, size_t len)
{
	size_t n = 0;

	for (; iso && *iso && n + 1 < len; iso++)
		if ((*iso >= '0' && *iso <= '9') || *iso == 'T' || *iso == 'Z')
			buf[n++] = *iso;
	buf[n] = '\0';
}

static void host_of(const char *host, char *buf, size_t len)
{
	size_t n = 0;

	for (host = host && *host ? host : "unknown"; *host && n + 1 < len; host++)
		buf[n++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789-._", *host) ? *host : '_';
	buf[n] = '\0';
}

/*
 * Was @run's scenario read from its scenario_file, as it is now? If not
 * (stdin, kscen exec, kscen rerun), --resume needs the text kept.
 */
static bool from_file(const struct kscen_run *run)
{
	char *buf, *sum;
	size_t len;
	bool same;

	if (!run->scenario_text)
		return true;	/* nothing to keep */
	if (kscen_read_regular(run->scenario_file, 1 << 20, &buf, &len))
		return false;
	sum = kscen_sha256_hex(buf, len);
	same = !strcmp(sum, run->scenario_sha256 ? run->scenario_sha256 : "");
	free(sum);
	free(buf);
	return same;
}

struct kscen_journal *kscen_journal_start(const char *results,
					  const struct kscen_run *run,
					  const struct kscen_run_opts *ro,
					  unsigned long max_jobs,
					  const char *compare,
					  const struct kscen_jobs *jobs)
{
	struct kscen_journal_hdr h = {
		.scenario_file = run->scenario_file,
		.scenario_sha256 = run->scenario_sha256,
		.started = run->started,
		.command = run->command,
		.repeat = ro->repeat, .warmup = ro->warmup,
		.max_repeat = ro->max_repeat, .until_ci = ro->until_ci,
		.max_jobs = max_jobs,
		.filter = (char *)ro->filter,
		.shard = run->shard,
		.compare = (char *)compare,
		.label = run->label,
		.profile = ro->profile,
		.noise = ro->noise,
	};
	struct kscen_journal *j = NULL;
	char stamp[32], host[65], *real = realpath(run->scenario_file, NULL);
	int ret = -EEXIST;

	if (!from_file(run))
		h.scenario_text = run->scenario_text;
	/* absolute: a resume may start in another directory */
	if (real)
		h.scenario_file = real;
	/* a resume must load the very same builds */
	h.nr_modules = kscen_module_nr_files();
	h.modules = kscen_xcalloc(h.nr_modules + 1, sizeof(char *));
	h.module_shas = kscen_xcalloc(h.nr_modules + 1, sizeof(char *));
	for (unsigned i = 0; i < h.nr_modules; i++)
		h.modules[i] = (char *)kscen_module_file(i, (const char **)&h.module_shas[i]);
	stamp_of(run->started, stamp, sizeof(stamp));
	host_of(run->system.hostname, host, sizeof(host));
	/* Two runs started in the same second get -2, -3, ... */
	for (int i = 1; i < 100 && ret == -EEXIST; i++) {
		char *path = i == 1 ?
			kscen_xasprintf("%s/%s/%s-%s.journal", results, run->scenario, stamp, host) :
			kscen_xasprintf("%s/%s/%s-%s-%d.journal", results, run->scenario, stamp, host, i);

		ret = kscen_journal_create(path, &h, jobs, &j);
		if (ret && ret != -EEXIST)
			kscen_error(NULL, "cannot keep a journal at %s: %s; a run "
				"cut short cannot be resumed", path, strerror(-ret));
		free(path);
	}
	free(h.modules);
	free(h.module_shas);
	free(real);
	return j;
}

static bool same_file(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

void kscen_journal_finish(struct kscen_journal *j, const struct kscen_run *run,
			  bool complete)
{
	const char *prev = kscen_journal_partial(j);

	if (!j)
		return;
	/*
	 * The new result holds every sample of the earlier partial one,
	 * which is removed if it still is that: a partial result of this
	 * run beside the journal.
	 */
	if (prev && run->path && !same_file(prev, run->path) &&
	    kscen_journal_partial_ok(j, prev))
		unlink(prev);
	if (complete) {
		kscen_journal_close(j, true);
		return;
	}
	kscen_journal_note_result(j, run->path);
	kscen_error(NULL,
		    "run cut short; finish it with: kscen run --resume %s", kscen_journal_path(j));
	kscen_journal_close(j, false);
}

void kscen_save_failed(const char *results, int err, struct kscen_journal *j)
{
	kscen_error(NULL,
		    "could not save the results under %s: %s (errno %d)", results, strerror(-err), -err);
	if (j && !kscen_journal_error(j))
		kscen_error(NULL, "every sample taken is in %s; once there is room, "
			"save them with: kscen run --resume %s", kscen_journal_path(j), kscen_journal_path(j));
	kscen_journal_close(j, false);
}

int kscen_resume_open(const char *path, struct kscen_journal_hdr *h,
		      struct kscen_journal **j, char **results)
{
	char *copy, real[PATH_MAX], err[PATH_MAX + 128];
	int ret, fd;

	ret = kscen_journal_resume(path, h, j);
	if (ret) {
		if (ret != -EINVAL)
			kscen_file_error(path, ((struct kscen_mark){ 0, 0 }),
				    "%s", kscen_read_strerror(ret));
		return ret;
	}
	/*
	 * The journal names the scenario to run (or keeps its text beside it,
	 * for one from no file): one whose file nobody but root and the
	 * caller could have written, as a module's (lib/trust.c).
	 */
	fd = kscen_open_trusted(h->scenario_copy ? h->scenario_copy : h->scenario_file,
				false, real, err, sizeof(err));
	if (fd < 0) {
		kscen_file_error(path, ((struct kscen_mark){ 0, 0 }),
			    "the scenario it names: %s; not resumed", err);
		kscen_journal_close(*j, false);
		*j = NULL;
		kscen_journal_hdr_fini(h);
		return -EINVAL;
	}
	close(fd);
	/* <results>/<scenario>/<name>.journal */
	copy = kscen_xstrdup(path);
	*results = kscen_xstrdup(dirname(dirname(copy)));
	free(copy);
	return 0;
}

int kscen_resume_check(const char *path, const struct kscen_journal_hdr *h,
		       const struct kscen_scenario *s, const struct kscen_jobs *jobs)
{
	if (strcmp(s->sha256, h->scenario_sha256)) {
		kscen_file_error(path, ((struct kscen_mark){ 0, 0 }),
			    "the scenario %s changed since the run started; "
			"it cannot be resumed", s->file);
		return -EINVAL;
	}
	for (unsigned i = 0; i < h->nr_modules; i++) {
		const char *sha = NULL, *file = NULL;

		for (unsigned k = 0; !file && kscen_module_file(k, &sha); k++)
			if (!strcmp(kscen_module_file(k, NULL), h->modules[i]))
				file = h->modules[i];
		if (!file) {
			kscen_file_error(path, ((struct kscen_mark){ 0, 0 }),
				    "the run loaded the module %s, which this one "
				"does not; it cannot be resumed", h->modules[i]);
			return -EINVAL;
		}
		if (strcmp(sha, h->module_shas[i])) {
			kscen_file_error(path, ((struct kscen_mark){ 0, 0 }),
				    "the module %s was rebuilt since the run started "
				"(sha256 %s, now %s): samples of two builds are not one run; "
				"it cannot be resumed", file, h->module_shas[i], sha);
			return -EINVAL;
		}
	}
	if (jobs->nr != h->nr_jobs) {
		kscen_file_error(path, ((struct kscen_mark){ 0, 0 }),
			    "%s now expands to %u jobs, not %u", s->file, jobs->nr, h->nr_jobs);
		return -EINVAL;
	}
	for (unsigned i = 0; i < jobs->nr; i++) {
		if (strcmp(jobs->job[i].id, h->ids[i])) {
			kscen_file_error(path, ((struct kscen_mark){ 0, 0 }),
				    "job %u is now %s, not %s", i + 1, jobs->job[i].id, h->ids[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void kscen_resume_shard(const struct kscen_journal_hdr *h, struct kscen_jobs *jobs,
			struct kscen_jobs *all)
{
	char **ids = kscen_xcalloc(h->nr_ids + 1, sizeof(*ids));
	bool *sel = kscen_xcalloc(jobs->nr + 1, sizeof(*sel));

	memcpy(ids, h->ids, h->nr_ids * sizeof(*ids));
	qsort(ids, h->nr_ids, sizeof(*ids), cmp_id);
	for (unsigned i = 0; i < jobs->nr; i++)
		sel[i] = h->nr_ids && bsearch(&jobs->job[i].id, ids, h->nr_ids,
					      sizeof(*ids), cmp_id);
	*all = *jobs;
	kscen_jobs_subset(all, sel, jobs);
	free(sel);
	free(ids);
}
