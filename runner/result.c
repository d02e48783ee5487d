// SPDX-License-Identifier: GPL-2.0
/*
 * result.c - stored runs: one YAML file per run in
 * <results>/<scenario>/<YYYYmmddTHHMMSSZ>-<hostname>.yaml.
 *
 * Files are written with libyaml's emitter, so quoting is never hand-rolled,
 * and atomically: a temp file in the same directory is fsynced, then link()ed
 * to its final name, which (unlike rename) refuses to replace an earlier run.
 * They are read back with libyaml's document API against field tables, so a
 * hand-edited or truncated file gives a file:line:column error, not a crash.
 * Keys this version does not know are ignored: newer files stay readable.
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

#include "kscen.h"

/* util.c; to move into kscen.h. */
bool kscen_is_number(const char *s);
unsigned kscen_utf8_len(const char *s);

#ifndef KSCEN_PARANOID_UNKNOWN
#define KSCEN_PARANOID_UNKNOWN (-100)
#endif

#define MAX_FILE	(64 << 20)
#define MAX_TRIES	100	/* names tried, one second apart */
#define STAMP_LEN	16	/* 20261202T101503Z */
#define HOST_LEN	64

static const char *const status_names[] = { "ok", "skipped", "failed" };
static const char *const better_names[] = { "lower", "higher" };

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
			flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
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
	map_end(w);
}

static void write_metric(struct writer *w, const struct kscen_metric *m)
{
	unsigned i;

	map_start(w);
	kv_str(w, "name", m->name);
	kv_str(w, "unit", m->unit);
	kv_str(w, "better", better_names[m->better == KSCEN_HIGHER]);
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
	map_end(w);
}

static void write_job(struct writer *w, const struct kscen_job_result *j)
{
	unsigned i, st = j->status <= KSCEN_FAILED ? j->status : KSCEN_FAILED;

	map_start(w);
	kv_str(w, "id", j->id);
	kv_str(w, "name", j->name);
	kv_str(w, "workload", j->workload);
	put_str(w, "params");
	map_start(w);
	for (i = 0; i < j->nr_kv; i++) {
		put_str(w, j->keys[i]);
		put_param(w, j->values[i]);
	}
	map_end(w);
	kv_str(w, "status", status_names[st]);
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

	emit(&w, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	emit(&w, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL,
							    NULL, 1));
	map_start(&w);
	kv_str(&w, "kscen", run->version);
	kv_str(&w, "scenario", run->scenario);
	kv_str(&w, "scenario_file", run->scenario_file);
	kv_str(&w, "scenario_sha256", run->scenario_sha256);
	kv_str(&w, "command", run->command);
	kv_str(&w, "started", run->started);
	kv_str(&w, "finished", run->finished);
	put_str(&w, "partial");
	scalar(&w, run->partial ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
	kv_long(&w, "repeat", run->repeat);
	kv_long(&w, "warmup", run->warmup);
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
		ret = w.e.error == YAML_WRITER_ERROR ? -EIO : -EINVAL;
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

int kscen_result_save(struct kscen_run *run, const char *dir)
{
	char *sdir = NULL, *tmp = NULL, *final = NULL;
	char host[HOST_LEN + 1], stamp[STAMP_LEN + 1];
	int fd, dfd, i, ret;
	mode_t mask;
	struct tm tm;
	time_t t;
	FILE *f;

	if (!run->scenario || !*run->scenario || strchr(run->scenario, '/') ||
	    run->scenario[0] == '.')
		return -EINVAL;
	sdir = join(dir, run->scenario);
	ret = mkdir_p(sdir);
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
		final = kscen_xasprintf("%s/%s-%s.yaml", sdir, stamp, host);
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
 * Only names kscen_result_save() makes count, so a result copied in by hand
 * as "baseline.yaml" is never taken for the last run. The timestamp leads the
 * name, so the greatest name is the newest run.
 */
int kscen_result_latest(const char *dir, const char *hostname, char **out)
{
	char host[HOST_LEN + 1], *best = NULL;
	struct dirent *de;
	size_t len, hlen;
	DIR *d;

	*out = NULL;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	if (hostname)
		host_part(hostname, host, sizeof(host));
	while ((de = readdir(d))) {
		const char *name = de->d_name;

		len = strlen(name);
		if (len < STAMP_LEN + 7 || !stamp_ok(name) ||
		    name[STAMP_LEN] != '-' || strcmp(name + len - 5, ".yaml"))
			continue;
		hlen = len - STAMP_LEN - 6;
		if (hostname && (hlen != strlen(host) ||
				 strncmp(name + STAMP_LEN + 1, host, hlen)))
			continue;
		if (!best || strcmp(name, best) > 0) {
			free(best);
			best = kscen_xstrdup(name);
		}
	}
	closedir(d);
	if (best)
		*out = join(dir, best);
	free(best);
	return 0;
}

/* ---- Reading ------------------------------------------------------------ */

struct loader {
	const char *path;
	yaml_document_t doc;
	size_t budget;		/* values left to read; see spend() */
};

static int __attribute__((format(printf, 3, 4)))
bad(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%zu:%zu: ", l->path, n->start_mark.line + 1,
		n->start_mark.column + 1);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

/*
 * Aliases let a small file name one node many times ("samples: *big" in a
 * million jobs). Without them every node is read at most once, so reading
 * more values than the document has nodes means an alias bomb.
 */
static int spend(struct loader *l, const yaml_node_t *n)
{
	if (!l->budget)
		return bad(l, n, "too many aliases");
	l->budget--;
	return 0;
}

static yaml_node_t *node(struct loader *l, int i)
{
	return yaml_document_get_node(&l->doc, i);
}

static bool is_null(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;

	return n->type == YAML_SCALAR_NODE &&
	       n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") ||
		!strcmp(s, "Null") || !strcmp(s, "NULL"));
}

/* The text of scalar @n, or an error naming @what. */
static int text(struct loader *l, const yaml_node_t *n, const char *what,
		const char **s)
{
	if (n->type != YAML_SCALAR_NODE)
		return bad(l, n, "%s: expected a scalar", what);
	*s = (const char *)n->data.scalar.value;
	if (strlen(*s) != n->data.scalar.length)
		return bad(l, n, "%s: contains a NUL byte", what);
	return 0;
}

static int parse_ll(const char *s, long long min, long long max, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	if (errno || end == s || *end || *s == ' ' || *v < min || *v > max)
		return -EINVAL;
	return 0;
}

static int parse_double(const char *s, double *v)
{
	char *end;
	const char *p = s + (*s == '-' || *s == '+');

	if (!strcmp(p, ".nan") || !strcmp(p, ".NaN") || !strcmp(p, ".NAN")) {
		*v = NAN;
		return 0;
	}
	if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) {
		*v = *s == '-' ? -INFINITY : INFINITY;
		return 0;
	}
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end || *s == ' ' || (errno && !isfinite(*v)))
		return -EINVAL;
	return 0;
}

static int lookup(const char *s, const char *const *names, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

enum ftype {
	F_STR, F_BOOL, F_UINT, F_LONG, F_PARANOID, F_DOUBLE, F_STATUS,
	F_BETTER, F_FUNC,
};

struct field {
	const char *key;
	enum ftype type;
	size_t off;
	bool required;
	int (*load)(struct loader *l, yaml_node_t *n, void *base);
};

static int load_scalar(struct loader *l, const struct field *f,
		       yaml_node_t *n, void *p)
{
	const char *s;
	long long v;
	double d;
	int i;

	if (text(l, n, f->key, &s))
		return -EINVAL;
	if (is_null(n) && !f->required) {
		switch (f->type) {
		case F_STR:
			return 0;
		case F_PARANOID:
			*(int *)p = KSCEN_PARANOID_UNKNOWN;
			return 0;
		case F_DOUBLE:
			*(double *)p = NAN;	/* the summary of no samples */
			return 0;
		default:
			break;
		}
	}
	switch (f->type) {
	case F_STR:
		if (is_null(n))
			break;
		*(char **)p = kscen_xstrdup(s);
		return 0;
	case F_BOOL:
		if ((i = lookup(s, (const char *[]){ "false", "true" }, 2)) < 0)
			return bad(l, n, "%s: expected true or false", f->key);
		*(bool *)p = i;
		return 0;
	case F_UINT:
		if (parse_ll(s, 0, UINT_MAX, &v))
			return bad(l, n, "%s: expected a count", f->key);
		*(unsigned *)p = v;
		return 0;
	case F_LONG:
	case F_PARANOID:
		if (parse_ll(s, f->type == F_LONG ? LONG_MIN : INT_MIN,
			     f->type == F_LONG ? LONG_MAX : INT_MAX, &v))
			return bad(l, n, "%s: expected an integer", f->key);
		if (f->type == F_LONG)
			*(long *)p = v;
		else
			*(int *)p = v;
		return 0;
	case F_DOUBLE:
		if (parse_double(s, &d))
			return bad(l, n, "%s: expected a number", f->key);
		*(double *)p = d;
		return 0;
	case F_STATUS:
		if ((i = lookup(s, status_names, 3)) < 0)
			return bad(l, n, "status: expected ok, skipped or failed");
		*(enum kscen_status *)p = i;
		return 0;
	case F_BETTER:
		if ((i = lookup(s, better_names, 2)) < 0)
			return bad(l, n, "better: expected lower or higher");
		*(enum kscen_better *)p = i;
		return 0;
	case F_FUNC:
		break;
	}
	return bad(l, n, "%s: must not be null", f->key);
}

/* Fill @base from mapping @n by @fields; *@seen gets a bit per field read. */
static int load_map(struct loader *l, yaml_node_t *n, const char *what,
		    const struct field *fields, unsigned nr, void *base,
		    uint32_t *seen)
{
	yaml_node_pair_t *pair;
	const char *key;
	uint32_t got = 0;
	unsigned i;
	int ret;

	if (n->type != YAML_MAPPING_NODE)
		return bad(l, n, "%s: expected a mapping", what);
	for (pair = n->data.mapping.pairs.start;
	     pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(l, pair->key), *v = node(l, pair->value);

		if (k->type != YAML_SCALAR_NODE)
			return bad(l, k, "%s: a key must be a scalar", what);
		if (text(l, k, what, &key))
			return -EINVAL;
		for (i = 0; i < nr && strcmp(key, fields[i].key); i++)
			;
		if (i == nr)
			continue;
		if (got & 1u << i)
			return bad(l, k, "%s: duplicate key '%s'", what, key);
		got |= 1u << i;
		ret = spend(l, v);
		if (!ret && fields[i].type == F_FUNC)
			ret = fields[i].load(l, v, base);
		else if (!ret)
			ret = load_scalar(l, &fields[i], v,
					  (char *)base + fields[i].off);
		if (ret)
			return ret;
	}
	for (i = 0; i < nr; i++)
		if (fields[i].required && !(got & 1u << i))
			return bad(l, n, "%s: missing '%s'", what,
				   fields[i].key);
	if (seen)
		*seen = got;
	return 0;
}

/* Check that @n is a sequence; its length goes to *@nr. */
static int sequence(struct loader *l, yaml_node_t *n, const char *what,
		    unsigned *nr)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return bad(l, n, "%s: expected a list", what);
	*nr = n->data.sequence.items.top - n->data.sequence.items.start;
	return 0;
}

static int load_samples(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_metric *m = base;
	unsigned i, nr = 0;
	const char *s;
	yaml_node_t *v;

	if (sequence(l, n, "samples", &nr))
		return -EINVAL;
	m->samples = kscen_xcalloc(nr, sizeof(*m->samples));
	for (i = 0; i < nr; i++) {
		v = node(l, n->data.sequence.items.start[i]);
		if (spend(l, v) || text(l, v, "samples", &s))
			return -EINVAL;
		if (parse_double(s, &m->samples[i]))
			return bad(l, v, "samples: expected a number");
		m->nr_samples++;
	}
	return 0;
}

#define M(f) offsetof(struct kscen_metric, f)
static const struct field metric_fields[] = {
	{ "name", F_STR, M(name), true, NULL },
	{ "unit", F_STR, M(unit), false, NULL },
	{ "better", F_BETTER, M(better), false, NULL },
	{ "samples", F_FUNC, 0, false, load_samples },
	{ "median", F_DOUBLE, M(sum.median), false, NULL },
	{ "mean", F_DOUBLE, M(sum.mean), false, NULL },
	{ "stddev", F_DOUBLE, M(sum.stddev), false, NULL },
	{ "min", F_DOUBLE, M(sum.min), false, NULL },
	{ "max", F_DOUBLE, M(sum.max), false, NULL },
};
#undef M
#define NR(a) (sizeof(a) / sizeof((a)[0]))

static int load_metrics(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_job_result *j = base;
	uint32_t seen, sum_bits = 0;
	unsigned i, nr = 0;
	yaml_node_t *v;

	for (i = 0; i < NR(metric_fields); i++)
		if (metric_fields[i].type == F_DOUBLE)
			sum_bits |= 1u << i;
	if (sequence(l, n, "metrics", &nr))
		return -EINVAL;
	j->metrics = kscen_xcalloc(nr, sizeof(*j->metrics));
	for (i = 0; i < nr; i++, j->nr_metrics++) {
		struct kscen_metric *m = &j->metrics[i];

		v = node(l, n->data.sequence.items.start[i]);
		if (spend(l, v) || load_map(l, v, "metric", metric_fields,
					    NR(metric_fields), m, &seen)) {
			j->nr_metrics++;	/* free what was read */
			return -EINVAL;
		}
		/* A hand-trimmed file may keep only samples: they rule. */
		if ((seen & sum_bits) != sum_bits)
			kscen_summarize(m->samples, m->nr_samples, &m->sum);
	}
	return 0;
}

static int load_params(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_job_result *j = base;
	yaml_node_pair_t *pair;
	const char *k, *v;
	unsigned nr;

	if (n->type != YAML_MAPPING_NODE)
		return bad(l, n, "params: expected a mapping");
	nr = n->data.mapping.pairs.top - n->data.mapping.pairs.start;
	j->keys = kscen_xcalloc(nr, sizeof(*j->keys));
	j->values = kscen_xcalloc(nr, sizeof(*j->values));
	j->nr_kv = nr;
	for (pair = n->data.mapping.pairs.start, nr = 0;
	     pair < n->data.mapping.pairs.top; pair++, nr++) {
		yaml_node_t *kn = node(l, pair->key), *vn = node(l, pair->value);

		if (spend(l, vn) || text(l, kn, "params", &k) ||
		    text(l, vn, k, &v))
			return -EINVAL;
		j->keys[nr] = kscen_xstrdup(k);
		j->values[nr] = kscen_xstrdup(v);
	}
	return 0;
}

#define J(f) offsetof(struct kscen_job_result, f)
static const struct field job_fields[] = {
	{ "id", F_STR, J(id), true, NULL },
	{ "name", F_STR, J(name), false, NULL },
	{ "workload", F_STR, J(workload), false, NULL },
	{ "params", F_FUNC, 0, false, load_params },
	{ "status", F_STATUS, J(status), true, NULL },
	{ "reason", F_STR, J(reason), false, NULL },
	{ "describe", F_STR, J(describe), false, NULL },
	{ "metrics", F_FUNC, 0, false, load_metrics },
	{ "baseline", F_STR, J(baseline), false, NULL },
	{ "previous", F_STR, J(previous), false, NULL },
};
#undef J

static int load_jobs(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_run *run = base;
	unsigned i, nr = 0;
	yaml_node_t *v;

	if (sequence(l, n, "jobs", &nr))
		return -EINVAL;
	/* Counted in before they are read, so kscen_run_free() sees all. */
	run->jobs = kscen_xcalloc(nr, sizeof(*run->jobs));
	run->nr_jobs = nr;
	for (i = 0; i < nr; i++) {
		v = node(l, n->data.sequence.items.start[i]);
		if (spend(l, v) || load_map(l, v, "job", job_fields,
					    NR(job_fields), &run->jobs[i], NULL))
			return -EINVAL;
	}
	return 0;
}

#define S(f) offsetof(struct kscen_system, f)
static const struct field system_fields[] = {
	{ "hostname", F_STR, S(hostname), false, NULL },
	{ "kernel", F_STR, S(kernel), false, NULL },
	{ "kernel_build", F_STR, S(kernel_build), false, NULL },
	{ "arch", F_STR, S(arch), false, NULL },
	{ "cpu_model", F_STR, S(cpu_model), false, NULL },
	{ "nr_cpus", F_LONG, S(nr_cpus), false, NULL },
	{ "cmdline", F_STR, S(cmdline), false, NULL },
	{ "perf_event_paranoid", F_PARANOID, S(perf_event_paranoid), false,
	  NULL },
};
#undef S

static int load_system(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_run *run = base;

	return load_map(l, n, "system", system_fields, NR(system_fields),
			&run->system, NULL);
}

#define R(f) offsetof(struct kscen_run, f)
static const struct field run_fields[] = {
	{ "kscen", F_STR, R(version), false, NULL },
	{ "scenario", F_STR, R(scenario), true, NULL },
	{ "scenario_file", F_STR, R(scenario_file), false, NULL },
	{ "scenario_sha256", F_STR, R(scenario_sha256), false, NULL },
	{ "command", F_STR, R(command), false, NULL },
	{ "started", F_STR, R(started), false, NULL },
	{ "finished", F_STR, R(finished), false, NULL },
	{ "partial", F_BOOL, R(partial), false, NULL },
	{ "repeat", F_UINT, R(repeat), false, NULL },
	{ "warmup", F_UINT, R(warmup), false, NULL },
	{ "system", F_FUNC, 0, false, load_system },
	{ "jobs", F_FUNC, 0, true, load_jobs },
};
#undef R

/* The whole file, NUL-terminated, refusing anything over MAX_FILE. */
static int read_all(const char *path, char **buf, size_t *len)
{
	size_t n = 0, cap = 0;
	struct stat st;
	char *b = NULL;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		goto out;
	}
	/* Pipes have no size: the read loop enforces the limit too. */
	if (S_ISREG(st.st_mode) && st.st_size > MAX_FILE) {
		ret = -EFBIG;
		goto out;
	}
	while (!feof(f)) {
		if (cap - n < 4096) {
			cap = cap ? 2 * cap : 65536;
			b = kscen_xrealloc(b, cap + 1);
		}
		n += fread(b + n, 1, cap - n, f);
		if (ferror(f)) {
			ret = errno ? -errno : -EIO;
			goto out;
		}
		if (n > MAX_FILE) {
			ret = -EFBIG;
			goto out;
		}
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	b = NULL;
out:
	free(b);
	fclose(f);
	return ret;
}

static void parser_error(const char *path, const yaml_parser_t *p,
			 const char *buf)
{
	size_t line = p->problem_mark.line + 1, col = p->problem_mark.column + 1;
	size_t i;

	/* Reader errors (bad UTF-8) only know the byte offset. */
	if (p->error == YAML_READER_ERROR) {
		for (i = 0, line = col = 1; i < p->problem_offset && buf[i]; i++)
			if (buf[i] == '\n')
				line++, col = 1;
			else
				col++;
	}
	fprintf(stderr, "%s:%zu:%zu: %s", path, line, col,
		p->problem ? p->problem : "invalid YAML");
	if (p->context)
		fprintf(stderr, " (%s at line %zu)", p->context,
			p->context_mark.line + 1);
	fputc('\n', stderr);
}

int kscen_result_load(const char *path, struct kscen_run **out)
{
	struct loader l = { .path = path };
	struct kscen_run *run = NULL;
	yaml_parser_t parser;
	yaml_node_t *root;
	bool have_doc = false;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	*out = NULL;
	ret = read_all(path, &buf, &len);
	if (ret == -EFBIG)
		fprintf(stderr, "%s: larger than %d MiB, not a kscen result\n",
			path, MAX_FILE >> 20);
	else if (ret)
		fprintf(stderr, "%s: %s\n", path, strerror(-ret));
	if (ret)
		return ret;

	if (!yaml_parser_initialize(&parser)) {
		free(buf);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &l.doc)) {
		parser_error(path, &parser, buf);
		ret = parser.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
		goto out;
	}
	have_doc = true;
	root = yaml_document_get_root_node(&l.doc);
	if (!root) {
		fprintf(stderr, "%s:1:1: empty file, not a kscen result\n", path);
		ret = -EINVAL;
		goto out;
	}
	l.budget = l.doc.nodes.top - l.doc.nodes.start;

	run = kscen_xcalloc(1, sizeof(*run));
	run->system.perf_event_paranoid = KSCEN_PARANOID_UNKNOWN;
	ret = load_map(&l, root, "result", run_fields, NR(run_fields), run,
		       NULL);
	if (ret)
		goto out;
	run->path = kscen_xstrdup(path);
	*out = run;
	run = NULL;
out:
	kscen_run_free(run);
	if (have_doc)
		yaml_document_delete(&l.doc);
	yaml_parser_delete(&parser);
	free(buf);
	return ret;
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
	}
	free(run->jobs);
	kscen_system_fini(&run->system);
	free(run->version);
	free(run->scenario);
	free(run->scenario_file);
	free(run->scenario_sha256);
	free(run->command);
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
