// SPDX-License-Identifier: GPL-2.0
/*
 * result.c - stored runs: one YAML file per run in
 * <results>/<scenario>/<YYYYmmddTHHMMSSZ>-<hostname>.yaml.
 *
 * Files are written with libyaml's emitter, so quoting is never hand-rolled,
 * and atomically: a temp file in the same directory is fsynced, then link()ed
 * to its final name, which (unlike rename) refuses to replace an earlier run.
 * Reading them back is result_load.c.
 */
#define _GNU_SOURCE	/* mkostemp, renameat2, strptime, timegm */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "util.h"
#include "profile.h"

#define MAX_FILE	(64 << 20)
#define MAX_TRIES	100	/* names tried, one second apart */
#define STAMP_LEN	16	/* 20261202T101503Z */
#define HOST_LEN	64

const char *const kscen_status_names[] = { "ok", "skipped", "failed" };
const char *const kscen_better_names[] = { "lower", "higher" };

/* ---- Writing ------------------------------------------------------------ */

struct writer {
	yaml_emitter_t e;
	bool failed;
};

/* @ok is what the event's initializer returned; errors are sticky. */
static void emit(struct writer *w, yaml_event_t *ev, int ok)
{
	if (!ok) {
		w->failed = true;
	} else if (w->failed) {
		yaml_event_delete(ev);
	} else if (!yaml_emitter_emit(&w->e, ev)) {
		w->failed = true;	/* the emitter freed the event */
	}
}

static void map_start(struct writer *w)
{
	yaml_event_t ev;

	emit(w, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
						YAML_BLOCK_MAPPING_STYLE));
}

static void map_end(struct writer *w)
{
	yaml_event_t ev;

	emit(w, &ev, yaml_mapping_end_event_initialize(&ev));
}

static void seq_start(struct writer *w, bool flow)
{
	yaml_event_t ev;

	emit(w, &ev, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_SEQUENCE_STYLE :
			       YAML_BLOCK_SEQUENCE_STYLE));
}

static void seq_end(struct writer *w)
{
	yaml_event_t ev;

	emit(w, &ev, yaml_sequence_end_event_initialize(&ev));
}

static void scalar(struct writer *w, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	emit(w, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL,
			(yaml_char_t *)s, strlen(s), 1, 1, style));
}

/*
 * libyaml only checks that a plain scalar parses; whether a reader then
 * types it is the resolver's business. Quote what a YAML 1.1 or 1.2 reader
 * (PyYAML, yq) would not read back as a string: "", "null", "yes", "off",
 * "6.1", "2026-12-02T10:15:03Z" (a 1.1 timestamp), "0x10", ".inf".
 */
static bool looks_typed(const char *s)
{
	static const char *const words[] = {
		"~", "null", "Null", "NULL", "true", "True", "TRUE", "false",
		"False", "FALSE", "y", "Y", "yes", "Yes", "YES", "n", "N", "no",
		"No", "NO", "on", "On", "ON", "off", "Off", "OFF", "=", "<<",
	};
	unsigned i;

	if (!*s)
		return true;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(s, words[i]))
			return true;
	if (*s == '+' || *s == '-')
		s++;
	return (*s >= '0' && *s <= '9') || *s == '.';
}

/* A copy of @s with malformed UTF-8 replaced by U+FFFD; NULL if @s is fine. */
static char *utf8_fix(const char *s)
{
	size_t i, o = 0, bad = 0;
	unsigned n;
	char *d;

	for (i = 0; s[i]; i += n ? n : 1)
		bad += !(n = kscen_utf8_len(s + i));
	if (!bad)
		return NULL;
	d = kscen_xmalloc(i + 2 * bad + 1);
	for (i = 0; s[i]; i += n ? n : 1) {
		n = kscen_utf8_len(s + i);
		if (n) {
			memcpy(d + o, s + i, n);
			o += n;
		} else {
			memcpy(d + o, "\xef\xbf\xbd", 3);
			o += 3;
		}
	}
	d[o] = '\0';
	return d;
}

static void put_str(struct writer *w, const char *s)
{
	char *fixed;

	if (!s)
		return scalar(w, "null", YAML_PLAIN_SCALAR_STYLE);
	fixed = utf8_fix(s);
	if (fixed)
		s = fixed;
	/* Single quotes become double quotes where escapes are needed. */
	scalar(w, s, looks_typed(s) ? YAML_SINGLE_QUOTED_SCALAR_STYLE :
		     YAML_ANY_SCALAR_STYLE);
	free(fixed);
}

/* Parameter values are text, but "4" should read as 4 to other tools too. */
static void put_param(struct writer *w, const char *v)
{
	if (v && (kscen_is_number(v) || !strcmp(v, "true") ||
		  !strcmp(v, "false")))
		scalar(w, v, YAML_PLAIN_SCALAR_STYLE);
	else
		put_str(w, v ? v : "");
}

/* The shortest text that strtod() turns back into exactly @v. */
static void fmt_double(char *buf, size_t len, double v)
{
	char *e;
	int p;

	if (isnan(v)) {
		snprintf(buf, len, ".nan");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v < 0 ? "-.inf" : ".inf");
		return;
	}
	for (p = 1; p <= 17; p++) {
		snprintf(buf, len, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* YAML 1.1 floats need a dot: PyYAML reads "1e+20" as a string. */
	e = strchr(buf, 'e');
	if (e && !strchr(buf, '.') && strlen(buf) + 2 < len) {
		memmove(e + 2, e, strlen(e) + 1);
		memcpy(e, ".0", 2);
	}
}

static void put_double(struct writer *w, double v)
{
	char buf[48];

	fmt_double(buf, sizeof(buf), v);
	scalar(w, buf, YAML_PLAIN_SCALAR_STYLE);
}

static void put_long(struct writer *w, long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%ld", v);
	scalar(w, buf, YAML_PLAIN_SCALAR_STYLE);
}

static void kv_str(struct writer *w, const char *k, const char *v)
{
	put_str(w, k);
	put_str(w, v);
}

static void kv_long(struct writer *w, const char *k, long v)
{
	put_str(w, k);
	put_long(w, v);
}

static void kv_double(struct writer *w, const char *k, double v)
{
	put_str(w, k);
	put_double(w, v);
}

static void write_system(struct writer *w, const struct kscen_system *sys)
{
	map_start(w);
	kv_str(w, "hostname", sys->hostname);
	kv_str(w, "kernel", sys->kernel);
	kv_str(w, "kernel_build", sys->kernel_build);
	kv_str(w, "arch", sys->arch);
	kv_str(w, "cpu_model", sys->cpu_model);
	kv_long(w, "nr_cpus", sys->nr_cpus);
	kv_str(w, "cmdline", sys->cmdline);
	if (sys->perf_event_paranoid == KSCEN_PARANOID_UNKNOWN)
		kv_str(w, "perf_event_paranoid", NULL);
	else
		kv_long(w, "perf_event_paranoid", sys->perf_event_paranoid);
	kv_str(w, "governor", sys->governor);
	kv_str(w, "smt", sys->smt);
	kv_str(w, "mitigations", sys->mitigations);
	kv_str(w, "thp", sys->thp);
	kv_str(w, "config_sha256", sys->config_sha256);
	kv_str(w, "isolcpus", sys->isolcpus);
	kv_str(w, "nohz_full", sys->nohz_full);
	kv_str(w, "loadavg", sys->loadavg);
	kv_str(w, "microcode", sys->microcode);
	kv_str(w, "scaling_driver", sys->scaling_driver);
	kv_str(w, "boost", sys->boost);
	map_end(w);
}

static void write_metric(struct writer *w, const struct kscen_metric *m)
{
	unsigned i;

	map_start(w);
	kv_str(w, "name", m->name);
	kv_str(w, "unit", m->unit);
	kv_str(w, "better", kscen_better_names[m->better == KSCEN_HIGHER]);
	put_str(w, "samples");
	seq_start(w, true);
	for (i = 0; i < m->nr_samples; i++)
		put_double(w, m->samples[i]);
	seq_end(w);
	kv_double(w, "median", m->sum.median);
	kv_double(w, "mean", m->sum.mean);
	kv_double(w, "stddev", m->sum.stddev);
	kv_double(w, "min", m->sum.min);
	kv_double(w, "max", m->sum.max);
	kv_double(w, "cv", m->sum.cv);
	kv_double(w, "ci_low", m->sum.ci_lo);
	kv_double(w, "ci_high", m->sum.ci_hi);
	kv_long(w, "outliers", m->sum.outliers);
	put_str(w, "bimodal");
	scalar(w, m->sum.bimodal ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
	map_end(w);
}

/*
 * A job's profile (profile.h): where it came from, what was lost, and its
 * top symbols by self %, rounded to 0.01%; the folded stacks themselves go
 * beside the run (<run>.profiles/), not in it.
 */
static void write_profile(struct writer *w, const struct kscen_profile *p)
{
	yaml_event_t ev;

	map_start(w);
	kv_str(w, "source", p->source);
	if (p->reason) {
		kv_str(w, "reason", p->reason);
		map_end(w);
		return;
	}
	kv_str(w, "event", p->event);
	kv_long(w, "frequency", p->frequency);
	kv_str(w, "scope", p->scope);
	kv_str(w, "stacks", p->stacks);
	kv_long(w, "top", p->top);
	kv_long(w, "samples", p->samples);
	kv_long(w, "map_full", p->map_full);
	kv_long(w, "kernel_stacks_lost", p->kstack_lost);
	kv_long(w, "user_stacks_lost", p->ustack_lost);
	kv_double(w, "value", p->value);
	if (p->note)
		kv_str(w, "note", p->note);
	put_str(w, "objects");
	seq_start(w, false);
	for (unsigned i = 0; i < p->nr_objects; i++)
		put_str(w, p->objects[i]);
	seq_end(w);
	put_str(w, "symbols");
	seq_start(w, false);
	for (unsigned i = 0; i < p->nr_sym; i++) {
		const struct kscen_profile_sym *s = &p->sym[i];

		emit(w, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
						YAML_FLOW_MAPPING_STYLE));
		kv_double(w, "self", round(s->self * 100) / 100);
		if (p->children)
			kv_double(w, "children", round(s->children * 100) / 100);
		put_str(w, "kernel");
		scalar(w, s->kernel ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
		kv_str(w, "symbol", s->name);
		map_end(w);
	}
	seq_end(w);
	map_end(w);
}

static void write_job(struct writer *w, const struct kscen_job_result *j)
{
	unsigned i, st = j->status <= KSCEN_FAILED ? j->status : KSCEN_FAILED;

	map_start(w);
	kv_str(w, "id", j->id);
	kv_str(w, "name", j->name);
	kv_str(w, "workload", j->workload);
	if (j->workload_version)
		kv_long(w, "workload_version", j->workload_version);
	put_str(w, "params");
	map_start(w);
	for (i = 0; i < j->nr_kv; i++) {
		put_str(w, j->keys[i]);
		put_param(w, j->values[i]);
	}
	map_end(w);
	if (j->nr_eff) {
		put_str(w, "effective");
		map_start(w);
		for (i = 0; i < j->nr_eff; i++) {
			put_str(w, j->eff_keys[i]);
			put_param(w, j->eff_values[i]);
		}
		map_end(w);
	}
	kv_str(w, "status", kscen_status_names[st]);
	kv_str(w, "reason", j->reason);
	if (j->describe)
		kv_str(w, "describe", j->describe);
	put_str(w, "metrics");
	seq_start(w, false);
	for (i = 0; i < j->nr_metrics; i++)
		write_metric(w, &j->metrics[i]);
	seq_end(w);
	kv_str(w, "baseline", j->baseline);
	kv_str(w, "previous", j->previous);
	if (j->reference)
		kv_str(w, "reference", j->reference);
	if (j->converged >= 0) {
		put_str(w, "converged");
		scalar(w, j->converged ? "true" : "false",
		       YAML_PLAIN_SCALAR_STYLE);
	}
	if (j->profile) {
		put_str(w, "profile");
		write_profile(w, j->profile);
	}
	map_end(w);
}

static int write_run(FILE *f, const struct kscen_run *run)
{
	struct writer w = { .failed = false };
	yaml_event_t ev;
	unsigned i;
	int ret = 0;

	if (!yaml_emitter_initialize(&w.e))
		return -ENOMEM;
	yaml_emitter_set_output_file(&w.e, f);
	yaml_emitter_set_unicode(&w.e, 1);
	yaml_emitter_set_width(&w.e, -1);	/* keep cmdline on one line */

	emit(&w, &ev, yaml_stream_start_event_initialize(&ev,
							  YAML_UTF8_ENCODING));
	emit(&w, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL,
							    NULL, 1));
	map_start(&w);
	kv_str(&w, "kscen", run->version);
	kv_str(&w, "kscen_describe", run->describe);
	kv_str(&w, "scenario", run->scenario);
	kv_str(&w, "label", run->label);
	kv_str(&w, "scenario_file", run->scenario_file);
	kv_str(&w, "scenario_sha256", run->scenario_sha256);
	kv_str(&w, "command", run->command);
	kv_str(&w, "started", run->started);
	kv_str(&w, "finished", run->finished);
	kv_str(&w, "filter", run->filter);
	kv_str(&w, "compare", run->compare);
	put_str(&w, "partial");
	scalar(&w, run->partial ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
	if (run->shard)
		kv_str(&w, "shard", run->shard);
	if (run->nr_shards) {	/* a merged run: where each shard ran */
		put_str(&w, "shards");
		seq_start(&w, false);
		for (i = 0; i < run->nr_shards; i++) {
			const struct kscen_shard_rec *sh = &run->shards[i];

			map_start(&w);
			kv_str(&w, "shard", sh->shard);
			kv_str(&w, "path", sh->path);
			kv_str(&w, "hostname", sh->hostname);
			kv_str(&w, "kernel", sh->kernel);
			kv_str(&w, "started", sh->started);
			map_end(&w);
		}
		seq_end(&w);
	}
	if (run->missing_shards)
		kv_str(&w, "missing_shards", run->missing_shards);
	kv_long(&w, "repeat", run->repeat);
	kv_long(&w, "warmup", run->warmup);
	if (run->until_ci > 0) {
		kv_long(&w, "max_repeat", run->max_repeat);
		kv_double(&w, "until_ci", run->until_ci);
	}
	if (run->test_hooks)
		kv_str(&w, "test_hooks", run->test_hooks);
	put_str(&w, "system");
	write_system(&w, &run->system);
	put_str(&w, "jobs");
	seq_start(&w, false);
	for (i = 0; i < run->nr_jobs; i++)
		write_job(&w, &run->jobs[i]);
	seq_end(&w);
	map_end(&w);
	emit(&w, &ev, yaml_document_end_event_initialize(&ev, 1));
	emit(&w, &ev, yaml_stream_end_event_initialize(&ev));

	if (w.failed) {
		/* ENOSPC or EIO from the write under the emitter, when known */
		ret = w.e.error == YAML_WRITER_ERROR ? (ferror(f) && errno ?
						       -errno : -EIO) : -EINVAL;
		fprintf(stderr, "kscen: cannot write result: %s\n",
			w.e.problem ? w.e.problem : "bad event");
	}
	yaml_emitter_delete(&w.e);
	return ret;
}

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
	char *sdir;
	int ret;

	if (!scenario || !*scenario || strchr(scenario, '/') || scenario[0] == '.')
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

/* @run to the file @path: a temp file beside it, fsync, rename. */
int kscen_result_write(struct kscen_run *run, const char *path)
{
	char *tmp = kscen_xasprintf("%s.tmp-XXXXXX", path);
	int fd, ret;
	FILE *f;

	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		unlink(tmp);
		goto out;
	}
	ret = write_run(f, run);
	if (!ret && (fflush(f) || fsync(fileno(f)) < 0))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret) {
		unlink(tmp);
		goto out;
	}
	free(run->path);
	run->path = kscen_xstrdup(path);
out:
	free(tmp);
	return ret;
}

int kscen_result_dir_ready(const char *dir, const char *scenario)
{
	return scenario_dir(dir, scenario, NULL);
}

int kscen_result_save(struct kscen_run *run, const char *dir)
{
	char *sdir = NULL, *tmp = NULL, *final = NULL;
	char host[HOST_LEN + 1], stamp[STAMP_LEN + 1];
	int fd, dfd, i, ret;
	mode_t mask;
	struct tm tm;
	time_t t;
	FILE *f;

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
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto out;
	}
	ret = write_run(f, run);
	if (!ret && (fflush(f) || fsync(fileno(f)) < 0))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		goto out;

	host_part(run->system.hostname, host, sizeof(host));
	t = started_time(run->started);
	for (i = 0, ret = -EEXIST; i < MAX_TRIES && ret == -EEXIST; i++) {
		time_t ti = t + i;

		free(final);
		gmtime_r(&ti, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
		final = kscen_xasprintf("%s/%s-%s%s%s.yaml", sdir, stamp, host,
					run->label ? "+" : "",
					run->label ? run->label : "");
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

static int cmp_name_desc(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

/*
 * Only names kscen_result_save() makes count, so a result copied in by hand
 * as "baseline.yaml" is never taken for a stored run. The timestamp leads
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

		if (!run_name(name, &hlen))
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

/* ---- Lifetime ----------------------------------------------------------- */

void kscen_run_free(struct kscen_run *run)
{
	unsigned i, k;

	if (!run)
		return;
	for (i = 0; i < run->nr_jobs; i++) {
		struct kscen_job_result *j = &run->jobs[i];

		for (k = 0; k < j->nr_kv; k++) {
			free(j->keys[k]);
			free(j->values[k]);
		}
		free(j->keys);
		free(j->values);
		for (k = 0; k < j->nr_eff; k++) {
			free(j->eff_keys[k]);
			free(j->eff_values[k]);
		}
		free(j->eff_keys);
		free(j->eff_values);
		for (k = 0; k < j->nr_metrics; k++) {
			free(j->metrics[k].name);
			free(j->metrics[k].unit);
			free(j->metrics[k].samples);
		}
		free(j->metrics);
		free(j->id);
		free(j->name);
		free(j->workload);
		free(j->reason);
		free(j->describe);
		free(j->baseline);
		free(j->previous);
		free(j->reference);
		kscen_profile_free(j->profile);
	}
	free(run->jobs);
	kscen_system_fini(&run->system);
	free(run->version);
	free(run->describe);
	free(run->label);
	free(run->filter);
	free(run->compare);
	free(run->shard);
	for (i = 0; i < run->nr_shards; i++) {
		free(run->shards[i].shard);
		free(run->shards[i].path);
		free(run->shards[i].hostname);
		free(run->shards[i].kernel);
		free(run->shards[i].started);
	}
	free(run->shards);
	free(run->missing_shards);
	free(run->scenario);
	free(run->scenario_file);
	free(run->scenario_sha256);
	free(run->command);
	free(run->test_hooks);
	free(run->started);
	free(run->finished);
	free(run->path);
	free(run);
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
