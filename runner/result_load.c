// SPDX-License-Identifier: GPL-2.0
/*
 * result_load.c - read a stored run back (result.c writes them).
 *
 * libyaml's document API against field tables, so a hand-edited or truncated
 * file gives a file:line:column error, not a crash. Keys this version does
 * not know are ignored: newer files stay readable.
 */
#define _GNU_SOURCE	/* strptime, timegm */
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

#include "store.h"
#include "util.h"
#include "profile.h"

#define MAX_FILE	(64 << 20)
/*
 * The caps scenario files have, sized for results: a run of 100,000 jobs
 * of 30 samples is about 7 million nodes. Checked on the event stream,
 * before libyaml builds a tree (whose cost grows with the nesting).
 */
#define MAX_DEPTH	16
#define MAX_KEYS	256
#define MAX_NODES	8000000

struct loader {
	const char *path;
	yaml_document_t doc;
	size_t budget;		/* values left to read; see spend() */
	char *err;		/* NULL: messages go to stderr */
	size_t errlen;
};

/* One message, "file:line:col: what", to stderr or to the caller's buffer. */
static void __attribute__((format(printf, 2, 3)))
say(struct loader *l, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!l->err)
		fprintf(stderr, "%s\n", msg);
	else if (!*l->err)
		snprintf(l->err, l->errlen, "%s", msg);
}

static int __attribute__((format(printf, 3, 4)))
bad(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	say(l, "%s:%zu:%zu: %s", l->path, n->start_mark.line + 1,
	    n->start_mark.column + 1, msg);
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
		if ((i = lookup(s, kscen_status_names, 3)) < 0)
			return bad(l, n, "status: expected ok, skipped or failed");
		*(enum kscen_status *)p = i;
		return 0;
	case F_BETTER:
		if ((i = lookup(s, kscen_better_names, 2)) < 0)
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
	{ "cv", F_DOUBLE, M(sum.cv), false, NULL },
	{ "ci_low", F_DOUBLE, M(sum.ci_lo), false, NULL },
	{ "ci_high", F_DOUBLE, M(sum.ci_hi), false, NULL },
	{ "outliers", F_UINT, M(sum.outliers), false, NULL },
	{ "bimodal", F_BOOL, M(sum.bimodal), false, NULL },
};
#undef M
#define NR(a) (sizeof(a) / sizeof((a)[0]))

static int load_metrics(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_job_result *j = base;
	uint32_t seen, sum_bits = 0;
	unsigned i, nr = 0;
	yaml_node_t *v;

	/* Every summary field: files older than one of them get all anew. */
	for (i = 0; i < NR(metric_fields); i++)
		if (metric_fields[i].off && metric_fields[i].type != F_STR &&
		    metric_fields[i].type != F_BETTER)
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
		/*
		 * And they rule always: a summary is recomputed from the
		 * samples, never trusted, so a hand-edited median cannot make a
		 * delta the samples do not show. A disagreement is said.
		 */
		if (m->nr_samples) {
			struct kscen_summary sum;
			double old = m->sum.median;

			kscen_summarize(m->samples, m->nr_samples, &sum);
			if (!(old == sum.median || (isnan(old) && isnan(sum.median)) ||
			      fabs(old - sum.median) <= 1e-9 * fabs(sum.median)))
				bad(l, v, "%s %s: the stored median %g is not the "
				    "median of its samples, %g; using the samples",
				    j->id ? j->id : "job", m->name ? m->name : "metric",
				    old, sum.median);
			m->sum = sum;
		}
	}
	return 0;
}

/* A mapping of scalars into @keys/@values: params and effective. */
static int load_kv(struct loader *l, yaml_node_t *n, const char *what,
		   char ***keys, char ***values, unsigned *nr_out)
{
	yaml_node_pair_t *pair;
	const char *k, *v;
	unsigned nr;

	if (n->type != YAML_MAPPING_NODE)
		return bad(l, n, "%s: expected a mapping", what);
	nr = n->data.mapping.pairs.top - n->data.mapping.pairs.start;
	*keys = kscen_xcalloc(nr, sizeof(**keys));
	*values = kscen_xcalloc(nr, sizeof(**values));
	*nr_out = nr;
	for (pair = n->data.mapping.pairs.start, nr = 0;
	     pair < n->data.mapping.pairs.top; pair++, nr++) {
		yaml_node_t *kn = node(l, pair->key);
		yaml_node_t *vn = node(l, pair->value);

		if (spend(l, vn) || text(l, kn, what, &k) ||
		    text(l, vn, k, &v))
			return -EINVAL;
		(*keys)[nr] = kscen_xstrdup(k);
		(*values)[nr] = kscen_xstrdup(v);
	}
	return 0;
}

static int load_params(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_job_result *j = base;

	return load_kv(l, n, "params", &j->keys, &j->values, &j->nr_kv);
}

static int load_effective(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_job_result *j = base;

	return load_kv(l, n, "effective", &j->eff_keys, &j->eff_values,
		       &j->nr_eff);
}

static int load_converged(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_job_result *j = base;
	const char *s;

	if (text(l, n, "converged", &s))
		return -EINVAL;
	if (strcmp(s, "true") && strcmp(s, "false"))
		return bad(l, n, "converged: expected true or false");
	j->converged = !strcmp(s, "true");
	return 0;
}

/* A job's profile (profile.h, written by result.c's write_profile()). */
#define P(f) offsetof(struct kscen_profile_sym, f)
static const struct field psym_fields[] = {
	{ "symbol", F_STR, P(name), true, NULL },
	{ "kernel", F_BOOL, P(kernel), false, NULL },
	{ "self", F_DOUBLE, P(self), true, NULL },
	{ "children", F_DOUBLE, P(children), false, NULL },
};
#undef P

static int load_psyms(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_profile *p = base;
	uint32_t seen;
	unsigned i, nr = 0;

	if (sequence(l, n, "symbols", &nr))
		return -EINVAL;
	p->sym = kscen_xcalloc(nr + 1, sizeof(*p->sym));
	for (i = 0; i < nr; i++, p->nr_sym++) {
		yaml_node_t *v = node(l, n->data.sequence.items.start[i]);

		p->sym[i].children = NAN;
		if (spend(l, v) || load_map(l, v, "symbol", psym_fields,
					    NR(psym_fields), &p->sym[i], &seen)) {
			p->nr_sym++;
			return -EINVAL;
		}
		if (seen & 8)
			p->children = true;
	}
	return 0;
}

static int load_pobjects(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_profile *p = base;
	unsigned i, nr = 0;
	const char *s;

	if (sequence(l, n, "objects", &nr))
		return -EINVAL;
	p->objects = kscen_xcalloc(nr + 1, sizeof(*p->objects));
	for (i = 0; i < nr; i++) {
		yaml_node_t *v = node(l, n->data.sequence.items.start[i]);

		if (spend(l, v) || text(l, v, "objects", &s))
			return -EINVAL;
		p->objects[p->nr_objects++] = kscen_xstrdup(s);
	}
	return 0;
}

#define P(f) offsetof(struct kscen_profile, f)
static const struct field profile_fields[] = {
	{ "source", F_STR, P(source), false, NULL },
	{ "reason", F_STR, P(reason), false, NULL },
	{ "event", F_STR, P(event), false, NULL },
	{ "frequency", F_UINT, P(frequency), false, NULL },
	{ "scope", F_STR, P(scope), false, NULL },
	{ "stacks", F_STR, P(stacks), false, NULL },
	{ "top", F_UINT, P(top), false, NULL },
	{ "samples", F_LONG, P(samples), false, NULL },
	{ "map_full", F_LONG, P(map_full), false, NULL },
	{ "kernel_stacks_lost", F_LONG, P(kstack_lost), false, NULL },
	{ "user_stacks_lost", F_LONG, P(ustack_lost), false, NULL },
	{ "value", F_DOUBLE, P(value), false, NULL },
	{ "note", F_STR, P(note), false, NULL },
	{ "objects", F_FUNC, 0, false, load_pobjects },
	{ "symbols", F_FUNC, 0, false, load_psyms },
};
#undef P

static int load_profile(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_job_result *j = base;

	j->profile = kscen_xcalloc(1, sizeof(*j->profile));
	j->profile->value = NAN;
	j->profile->top = KSCEN_PROFILE_TOP;
	return load_map(l, n, "profile", profile_fields, NR(profile_fields),
			j->profile, NULL);
}

#define J(f) offsetof(struct kscen_job_result, f)
static const struct field job_fields[] = {
	{ "id", F_STR, J(id), true, NULL },
	{ "name", F_STR, J(name), false, NULL },
	{ "workload", F_STR, J(workload), false, NULL },
	{ "workload_version", F_UINT, J(workload_version), false, NULL },
	{ "params", F_FUNC, 0, false, load_params },
	{ "effective", F_FUNC, 0, false, load_effective },
	{ "status", F_STATUS, J(status), true, NULL },
	{ "reason", F_STR, J(reason), false, NULL },
	{ "describe", F_STR, J(describe), false, NULL },
	{ "metrics", F_FUNC, 0, false, load_metrics },
	{ "baseline", F_STR, J(baseline), false, NULL },
	{ "previous", F_STR, J(previous), false, NULL },
	{ "reference", F_STR, J(reference), false, NULL },
	{ "converged", F_FUNC, 0, false, load_converged },
	{ "profile", F_FUNC, 0, false, load_profile },
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
		run->jobs[i].converged = -1;
		if (spend(l, v) ||
		    load_map(l, v, "job", job_fields, NR(job_fields),
			     &run->jobs[i], NULL))
			return -EINVAL;
	}
	return 0;
}

#define H(f) offsetof(struct kscen_shard_rec, f)
static const struct field shard_fields[] = {
	{ "shard", F_STR, H(shard), true, NULL },
	{ "path", F_STR, H(path), false, NULL },
	{ "hostname", F_STR, H(hostname), false, NULL },
	{ "kernel", F_STR, H(kernel), false, NULL },
	{ "started", F_STR, H(started), false, NULL },
};
#undef H

/* A merged run's shards (merge.c). */
static int load_shards(struct loader *l, yaml_node_t *n, void *base)
{
	struct kscen_run *run = base;
	unsigned i, nr = 0;
	yaml_node_t *v;

	if (sequence(l, n, "shards", &nr))
		return -EINVAL;
	run->shards = kscen_xcalloc(nr + 1, sizeof(*run->shards));
	run->nr_shards = nr;
	for (i = 0; i < nr; i++) {
		v = node(l, n->data.sequence.items.start[i]);
		if (spend(l, v) ||
		    load_map(l, v, "shard", shard_fields, NR(shard_fields),
			     &run->shards[i], NULL))
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
	{ "governor", F_STR, S(governor), false, NULL },
	{ "smt", F_STR, S(smt), false, NULL },
	{ "mitigations", F_STR, S(mitigations), false, NULL },
	{ "thp", F_STR, S(thp), false, NULL },
	{ "config_sha256", F_STR, S(config_sha256), false, NULL },
	{ "isolcpus", F_STR, S(isolcpus), false, NULL },
	{ "nohz_full", F_STR, S(nohz_full), false, NULL },
	{ "loadavg", F_STR, S(loadavg), false, NULL },
	{ "microcode", F_STR, S(microcode), false, NULL },
	{ "scaling_driver", F_STR, S(scaling_driver), false, NULL },
	{ "boost", F_STR, S(boost), false, NULL },
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
	{ "kscen_describe", F_STR, R(describe), false, NULL },
	{ "scenario", F_STR, R(scenario), true, NULL },
	{ "label", F_STR, R(label), false, NULL },
	{ "filter", F_STR, R(filter), false, NULL },
	{ "compare", F_STR, R(compare), false, NULL },
	{ "scenario_file", F_STR, R(scenario_file), false, NULL },
	{ "scenario_sha256", F_STR, R(scenario_sha256), false, NULL },
	{ "command", F_STR, R(command), false, NULL },
	{ "started", F_STR, R(started), false, NULL },
	{ "finished", F_STR, R(finished), false, NULL },
	{ "partial", F_BOOL, R(partial), false, NULL },
	{ "shard", F_STR, R(shard), false, NULL },
	{ "shards", F_FUNC, 0, false, load_shards },
	{ "missing_shards", F_STR, R(missing_shards), false, NULL },
	{ "repeat", F_UINT, R(repeat), false, NULL },
	{ "warmup", F_UINT, R(warmup), false, NULL },
	{ "max_repeat", F_UINT, R(max_repeat), false, NULL },
	{ "until_ci", F_DOUBLE, R(until_ci), false, NULL },
	{ "test_hooks", F_STR, R(test_hooks), false, NULL },
	{ "system", F_FUNC, 0, false, load_system },
	{ "jobs", F_FUNC, 0, true, load_jobs },
};
#undef R

/* The whole file, NUL-terminated: a regular file of at most MAX_FILE. */
static int read_all(const char *path, char **buf, size_t *len)
{
	return kscen_read_regular(path, MAX_FILE, buf, len);
}

static void parser_error(struct loader *l, const yaml_parser_t *p,
			 const char *buf);

/*
 * Refuse what is too deep, too wide or too large before a tree is built,
 * on libyaml's event stream: cheap, and linear whatever the nesting.
 */
static int caps(struct loader *l, const char *buf, size_t len)
{
	unsigned depth = 0, keys[MAX_DEPTH + 2] = { 0 };
	bool is_map[MAX_DEPTH + 2] = { false };
	unsigned long nodes = 0;
	yaml_parser_t p;
	yaml_event_t ev;
	int ret = 0;

	if (!yaml_parser_initialize(&p))
		return -ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!ret) {
		if (!yaml_parser_parse(&p, &ev)) {
			parser_error(l, &p, buf);
			ret = -EINVAL;
			break;
		}
		yaml_event_type_t t = ev.type;
		size_t line = ev.start_mark.line + 1, col = ev.start_mark.column + 1;

		yaml_event_delete(&ev);
		if (t == YAML_STREAM_END_EVENT)
			break;
		if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
			depth--;
			continue;
		}
		if (t != YAML_SCALAR_EVENT && t != YAML_ALIAS_EVENT &&
		    t != YAML_MAPPING_START_EVENT && t != YAML_SEQUENCE_START_EVENT)
			continue;
		if (++nodes > MAX_NODES) {
			say(l, "%s:%zu:%zu: too many YAML nodes (limit %d)", l->path, line, col, MAX_NODES);
			ret = -EINVAL;
		} else if (depth && is_map[depth] && ++keys[depth] > 2 * MAX_KEYS) {
			say(l, "%s:%zu:%zu: more than %d keys in a mapping", l->path, line, col, MAX_KEYS);
			ret = -EINVAL;
		} else if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) {
			if (++depth > MAX_DEPTH) {
				say(l, "%s:%zu:%zu: nested too deeply (limit %d)", l->path, line, col, MAX_DEPTH);
				ret = -EINVAL;
			} else {
				is_map[depth] = t == YAML_MAPPING_START_EVENT;
				keys[depth] = 0;
			}
		}
	}
	yaml_parser_delete(&p);
	return ret;
}

static void parser_error(struct loader *l, const yaml_parser_t *p,
			 const char *buf)
{
	char ctx[96] = "";
	size_t line = p->problem_mark.line + 1;
	size_t col = p->problem_mark.column + 1;
	size_t i;

	/* Reader errors (bad UTF-8) only know the byte offset. */
	if (p->error == YAML_READER_ERROR) {
		line = col = 1;
		for (i = 0; i < p->problem_offset && buf[i]; i++)
			if (buf[i] == '\n')
				line++, col = 1;
			else
				col++;
	}
	if (p->context)
		snprintf(ctx, sizeof(ctx), " (%s at line %zu)", p->context,
			 p->context_mark.line + 1);
	say(l, "%s:%zu:%zu: %s%s", l->path, line, col,
	    p->problem ? p->problem : "invalid YAML", ctx);
}

int kscen_result_load(const char *path, struct kscen_run **out)
{
	return kscen_result_load_err(path, out, NULL, 0);
}

int kscen_result_load_err(const char *path, struct kscen_run **out,
			  char *err, size_t errlen)
{
	struct loader l = { .path = path, .err = err, .errlen = errlen };
	struct kscen_run *run = NULL;
	yaml_parser_t parser;
	yaml_node_t *root;
	bool have_doc = false;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	*out = NULL;
	ret = read_all(path, &buf, &len);
	if (err && errlen)
		err[0] = '\0';
	if (ret == -EFBIG)
		say(&l, "%s: larger than %d MiB, not a kscen result", path,
		    MAX_FILE >> 20);
	else if (ret)
		say(&l, "%s: %s", path, kscen_read_strerror(ret));
	if (ret)
		return ret;

	ret = caps(&l, buf, len);
	if (ret) {
		free(buf);
		return ret;
	}
	if (!yaml_parser_initialize(&parser)) {
		free(buf);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &l.doc)) {
		parser_error(&l, &parser, buf);
		ret = parser.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
		goto out;
	}
	have_doc = true;
	root = yaml_document_get_root_node(&l.doc);
	if (!root) {
		say(&l, "%s:1:1: empty file, not a kscen result", path);
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

