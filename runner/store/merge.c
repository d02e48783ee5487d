// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - shard runs (run --shard K/N) joined back into one run.
 *
 * The shards of one plan may run on different machines at different times;
 * the merged run is only as good as the claim that they measured the same
 * thing. So it refuses what would make the claim false (another scenario
 * file, another kscen, another version of a workload) unless told --force,
 * records where each shard ran, refuses a job measured twice (which one
 * would be the truth?), and says which shards are missing instead of
 * passing off a part as the whole (partial: true).
 *
 * OUT is a new file, as a run's save is: an existing one is replaced only
 * when asked (--force), and never when it is not a regular file (as root,
 * /dev/null became one) or when it is one of the runs merged.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store.h"
#include "lib/diag.h"
#include "lib/util.h"
#include "expand/shard.h"

struct shard_in {
	struct kscen_run *run;
	unsigned k, n;
};

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static const char *str(const char *s)
{
	return s ? s : "(none)";
}

/* Append the runs in @dir (and in its subdirectories: <scenario>/). */
static int collect_dir(const char *dir, char ***paths, unsigned *nr)
{
	char **v;
	unsigned n, i;
	struct dirent *de;
	DIR *d;

	if (kscen_result_list(dir, NULL, &v, &n))
		return -errno;
	for (i = 0; i < n; i++) {
		*paths = kscen_xrealloc(*paths, (*nr + 1) * sizeof(**paths));
		(*paths)[(*nr)++] = v[i];
	}
	free(v);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;
		char *sub;

		if (de->d_name[0] == '.')
			continue;
		sub = kscen_xasprintf("%s/%s", dir, de->d_name);
		if (!stat(sub, &st) && S_ISDIR(st.st_mode) &&
		    !kscen_result_list(sub, NULL, &v, &n)) {
			for (i = 0; i < n; i++) {
				*paths = kscen_xrealloc(*paths, (*nr + 1) * sizeof(**paths));
				(*paths)[(*nr)++] = v[i];
			}
			free(v);
		}
		free(sub);
	}
	closedir(d);
	return 0;
}

/* Can @out be written? 0, or -EINVAL said why. */
static int out_ok(const char *out, bool replace)
{
	struct stat st;

	if (lstat(out, &st))
		return errno == ENOENT ? 0 :
		       ((void)kscen_error("merge",
			    "%s: %s", out, strerror(errno)), -EINVAL);
	if (!S_ISREG(st.st_mode))
		kscen_error("merge", "%s: not a regular file; OUT is a new "
			"run file", out);
	else if (!replace)
		kscen_error("merge", "%s exists; --force replaces it", out);
	return S_ISREG(st.st_mode) && replace ? 0 : -EINVAL;
}

/* Is @out (which may not exist) the file of one of @paths? */
static const char *out_is_input(const char *out, char **paths, unsigned nr)
{
	struct stat o, st;

	if (stat(out, &o))
		return NULL;
	for (unsigned i = 0; i < nr; i++)
		if (!stat(paths[i], &st) && st.st_dev == o.st_dev && st.st_ino == o.st_ino)
			return paths[i];
	return NULL;
}

static int by_shard(const void *a, const void *b)
{
	const struct shard_in *x = a, *y = b;

	return x->k < y->k ? -1 : x->k > y->k;
}

/*
 * Move a shard's job result into the merged run: the shard keeps an empty
 * one, which frees nothing. A copy field by field missed the fields added
 * since (reference, profile) and freed them twice.
 */
static void job_move(struct kscen_job_result *d, struct kscen_job_result *s)
{
	*d = *s;
	memset(s, 0, sizeof(*s));
}

/* The string fields of struct kscen_system, for "same on every shard?". */
static const size_t sys_strs[] = {
	offsetof(struct kscen_system, hostname),
	offsetof(struct kscen_system, kernel),
	offsetof(struct kscen_system, kernel_build),
	offsetof(struct kscen_system, arch),
	offsetof(struct kscen_system, cpu_model),
	offsetof(struct kscen_system, cmdline),
	offsetof(struct kscen_system, governor),
	offsetof(struct kscen_system, smt),
	offsetof(struct kscen_system, mitigations),
	offsetof(struct kscen_system, thp),
	offsetof(struct kscen_system, config_sha256),
	offsetof(struct kscen_system, isolcpus),
	offsetof(struct kscen_system, nohz_full),
	offsetof(struct kscen_system, loadavg),
	offsetof(struct kscen_system, microcode),
	offsetof(struct kscen_system, scaling_driver),
	offsetof(struct kscen_system, boost),
};

#define SYS_STR(sys, off) (*(char **)((char *)(sys) + (off)))

/*
 * The merged run's system: what every shard shares; where they differ,
 * hostname and kernel list every value ("a,b"), the rest is unknown (the
 * shards: list keeps each shard's own host and kernel).
 */
static void merge_system(struct kscen_system *d, const struct shard_in *in,
			 unsigned nr)
{
	memset(d, 0, sizeof(*d));
	d->nr_cpus = in[0].run->system.nr_cpus;
	d->perf_event_paranoid = in[0].run->system.perf_event_paranoid;
	for (unsigned i = 1; i < nr; i++) {
		if (in[i].run->system.nr_cpus != d->nr_cpus)
			d->nr_cpus = 0;
		if (in[i].run->system.perf_event_paranoid != d->perf_event_paranoid)
			d->perf_event_paranoid = KSCEN_PARANOID_UNKNOWN;
	}
	for (unsigned f = 0; f < ARRAY_SIZE(sys_strs); f++) {
		size_t off = sys_strs[f];
		const char *first = SYS_STR(&in[0].run->system, off);
		bool all = true;
		char *list;

		for (unsigned i = 1; i < nr; i++)
			all &= same(first, SYS_STR(&in[i].run->system, off));
		if (all) {
			SYS_STR(d, off) = first ? kscen_xstrdup(first) : NULL;
			continue;
		}
		if (off != offsetof(struct kscen_system, hostname) &&
		    off != offsetof(struct kscen_system, kernel))
			continue;
		list = kscen_xstrdup(str(first));
		for (unsigned i = 1; i < nr; i++) {
			const char *v = str(SYS_STR(&in[i].run->system, off));
			bool seen = false;

			for (unsigned k = 0; k < i; k++)
				seen |= !strcmp(v, str(SYS_STR(&in[k].run->system, off)));
			if (!seen) {
				char *t = kscen_xasprintf("%s,%s", list, v);

				free(list);
				list = t;
			}
		}
		SYS_STR(d, off) = list;
	}
}

static int by_plan_pos(const void *a, const void *b)
{
	unsigned x = ((const struct kscen_job_result *)a)->plan_pos;
	unsigned y = ((const struct kscen_job_result *)b)->plan_pos;

	return (x > y) - (x < y);
}

/*
 * The merged jobs in the order of the plan, as one run would have them (a
 * job entry's jobs next to each other, which the reports rely on), where
 * every shard recorded its jobs' places; else shard by shard.
 */
static void plan_order(struct kscen_run *m)
{
	for (unsigned i = 0; i < m->nr_jobs; i++)
		if (!m->jobs[i].plan_pos)
			return;
	qsort(m->jobs, m->nr_jobs, sizeof(*m->jobs), by_plan_pos);
	for (unsigned i = 0; i < m->nr_jobs; i++)
		m->jobs[i].plan_pos = 0;	/* the whole plan: its own order */
}

/* Why shards @a and @b cannot be merged without --force, or NULL. */
static const char *mismatch(const struct kscen_run *a, const struct kscen_run *b)
{
	if (!same(a->scenario_sha256, b->scenario_sha256))
		return "scenario_sha256 (the scenario file differs)";
	if (!same(a->version, b->version) || !same(a->describe, b->describe))
		return "kscen version";
	if (!same(a->filter, b->filter))
		return "filter";
	if (!same(a->shard_balance, b->shard_balance))
		return "shard_balance (cut by other job durations: the slices may "
		       "overlap or leave jobs out)";
	for (unsigned i = 0; i < a->nr_jobs; i++)
		for (unsigned k = 0; k < b->nr_jobs; k++)
			if (same(a->jobs[i].workload, b->jobs[k].workload) &&
			    a->jobs[i].workload_version != b->jobs[k].workload_version)
				return "workload_version";
	return NULL;
}

static void merged_free_inputs(struct shard_in *in, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		kscen_run_free(in[i].run);
	free(in);
}

int kscen_merge(const char *out_path, char **args, unsigned nargs,
		const struct kscen_merge_opts *o, struct kscen_run **out)
{
	struct shard_in *in = NULL;
	struct kscen_run *m = NULL;
	char **paths = NULL, *missing = NULL;
	unsigned nr_paths = 0, nr = 0, total = 0, i, k;
	const char *why;
	int ret = 0;

	*out = NULL;
	if (out_ok(out_path, o->replace))
		return -EINVAL;
	for (i = 0; i < nargs; i++) {
		struct stat st;

		if (stat(args[i], &st)) {
			kscen_error("merge", "%s: %s", args[i], strerror(errno));
			ret = -EINVAL;
			goto out;
		}
		if (S_ISDIR(st.st_mode)) {
			unsigned before = nr_paths;

			collect_dir(args[i], &paths, &nr_paths);
			if (before == nr_paths)
				kscen_error("merge", "%s: no stored runs there",
					args[i]);
			continue;
		}
		paths = kscen_xrealloc(paths, (nr_paths + 1) * sizeof(*paths));
		paths[nr_paths++] = kscen_xstrdup(args[i]);
	}
	if ((why = out_is_input(out_path, paths, nr_paths))) {
		kscen_error("merge", "%s is one of the runs to merge (%s)",
			out_path, why);
		ret = -EINVAL;
		goto out;
	}
	in = kscen_xcalloc(nr_paths + 1, sizeof(*in));
	for (i = 0; i < nr_paths; i++) {
		struct kscen_run *r;

		if (kscen_result_load(paths[i], &r)) {
			ret = -EINVAL;
			goto out;
		}
		if (!r->shard || kscen_shard_parse(r->shard, &in[nr].k, &in[nr].n)) {
			/* A directory may hold other runs; a named file may not. */
			kscen_error("merge", "%s: not a shard run (run "
				"--shard K/N)%s", paths[i],
				r->nr_shards ? ": already merged" : "");
			kscen_run_free(r);
			ret = -EINVAL;
			goto out;
		}
		in[nr++].run = r;
	}
	if (!nr) {
		kscen_error("merge", "no shard runs to merge");
		ret = -EINVAL;
		goto out;
	}
	qsort(in, nr, sizeof(*in), by_shard);
	total = in[0].n;
	for (i = 0; i < nr; i++) {
		if (in[i].n != total) {
			kscen_error("merge", "%s is shard %u/%u, %s is "
				"shard %u/%u: not one plan", in[0].run->path,
				in[0].k, in[0].n, in[i].run->path, in[i].k, in[i].n);
			ret = -EINVAL;
			goto out;
		}
		if (strcmp(in[i].run->scenario, in[0].run->scenario)) {
			kscen_error("merge", "%s is scenario '%s', %s is "
				"'%s'", in[0].run->path, in[0].run->scenario,
				in[i].run->path, in[i].run->scenario);
			ret = -EINVAL;
			goto out;
		}
		if (i && in[i].k == in[i - 1].k) {
			kscen_error("merge", "shard %u/%u twice: %s and %s",
				in[i].k, total, in[i - 1].run->path, in[i].run->path);
			ret = -EINVAL;
			goto out;
		}
		for (k = 0; k < i; k++) {
			why = mismatch(in[k].run, in[i].run);
			if (!why)
				continue;
			kscen_error("merge", "%s and %s differ in %s%s",
				in[k].run->path, in[i].run->path, why,
				o->force ? "; merged anyway (--force)" :
				" (--force merges them anyway)");
			if (!o->force) {
				ret = -EINVAL;
				goto out;
			}
			break;
		}
	}
	/* A job measured twice: which one would be the truth? */
	for (i = 0; i < nr; i++)
		for (unsigned a = 0; a < in[i].run->nr_jobs; a++)
			for (k = 0; k <= i; k++)
				for (unsigned b = 0; b < (k == i ? a : in[k].run->nr_jobs); b++)
					if (!strcmp(in[i].run->jobs[a].id,
						    in[k].run->jobs[b].id)) {
						kscen_error("merge", "job %s is in %s "
							"and in %s", in[i].run->jobs[a].id,
							in[k].run->path, in[i].run->path);
						ret = -EINVAL;
						goto out;
					}

	m = kscen_xcalloc(1, sizeof(*m));
	{
		const struct kscen_run *f = in[0].run;
		unsigned nj = 0, next = 1;

		m->version = f->version ? kscen_xstrdup(f->version) : NULL;
		m->describe = f->describe ? kscen_xstrdup(f->describe) : NULL;
		m->scenario = kscen_xstrdup(f->scenario);
		m->scenario_file = f->scenario_file ? kscen_xstrdup(f->scenario_file) : NULL;
		m->scenario_sha256 = f->scenario_sha256 ? kscen_xstrdup(f->scenario_sha256) : NULL;
		m->filter = f->filter ? kscen_xstrdup(f->filter) : NULL;
		m->label = f->label ? kscen_xstrdup(f->label) : NULL;
		m->repeat = f->repeat;
		m->warmup = f->warmup;
		m->max_repeat = f->max_repeat;
		m->until_ci = f->until_ci;
		m->command = kscen_xasprintf("kscen merge %s (%u shards)", out_path, nr);
		for (i = 0; i < nr; i++) {
			const struct kscen_run *r = in[i].run;

			if (!same(r->label, m->label)) {
				free(m->label);
				m->label = NULL;
			}
			if (r->started && (!m->started || strcmp(r->started, m->started) < 0)) {
				free(m->started);
				m->started = kscen_xstrdup(r->started);
			}
			if (r->finished && (!m->finished || strcmp(r->finished, m->finished) > 0)) {
				free(m->finished);
				m->finished = kscen_xstrdup(r->finished);
			}
			m->partial |= r->partial;
			nj += r->nr_jobs;
		}
		merge_system(&m->system, in, nr);
		m->shards = kscen_xcalloc(nr, sizeof(*m->shards));
		m->nr_shards = nr;
		m->jobs = kscen_xcalloc(nj, sizeof(*m->jobs));
		for (i = 0; i < nr; i++) {
			struct kscen_run *r = in[i].run;
			struct kscen_shard_rec *sh = &m->shards[i];

			sh->shard = kscen_xstrdup(r->shard);
			sh->path = kscen_xstrdup(r->path);
			sh->hostname = r->system.hostname ? kscen_xstrdup(r->system.hostname) : NULL;
			sh->kernel = r->system.kernel ? kscen_xstrdup(r->system.kernel) : NULL;
			sh->started = r->started ? kscen_xstrdup(r->started) : NULL;
			for (k = 0; k < r->nr_jobs; k++)
				job_move(&m->jobs[m->nr_jobs++], &r->jobs[k]);
			/* The shards that are not here, in order. */
			for (; next < in[i].k; next++) {
				char *t = kscen_xasprintf("%s%s%u/%u", missing ? missing : "",
							  missing ? " " : "", next, total);

				free(missing);
				missing = t;
			}
			next = in[i].k + 1;
		}
		for (; next <= total; next++) {
			char *t = kscen_xasprintf("%s%s%u/%u", missing ? missing : "",
						  missing ? " " : "", next, total);

			free(missing);
			missing = t;
		}
		plan_order(m);
	}
	if (missing) {
		m->partial = true;
		m->missing_shards = missing;
		missing = NULL;
		kscen_error("merge", "missing shards: %s; the merged run "
			"is partial", m->missing_shards);
	}
	ret = kscen_result_write(m, out_path, o->replace);
	if (ret == -EEXIST || ret == -ENODEV)
		out_ok(out_path, o->replace);	/* made since the check: said */
	else if (ret && ret != -EINTR)
		kscen_error("merge", "cannot write %s: %s", out_path,
			strerror(-ret));
	if (ret) {
		ret = ret == -EINTR ? ret : -EINVAL;
		goto out;
	}
	*out = m;
	m = NULL;
out:
	kscen_run_free(m);
	free(missing);
	merged_free_inputs(in, nr);
	for (i = 0; i < nr_paths; i++)
		free(paths[i]);
	free(paths);
	return ret;
}

void kscen_shards_print(FILE *out, const struct kscen_run *run)
{
	fprintf(out, "# merged from %u shard%s:\n", run->nr_shards,
		run->nr_shards == 1 ? "" : "s");
	for (unsigned i = 0; i < run->nr_shards; i++) {
		const struct kscen_shard_rec *sh = &run->shards[i];

		fprintf(out, "#   shard %s on %s, kernel %s, started %s\n",
			str(sh->shard), str(sh->hostname), str(sh->kernel),
			str(sh->started));
	}
	if (run->missing_shards)
		fprintf(out, "# missing shards: %s\n", run->missing_shards);
}
