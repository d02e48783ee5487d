// SPDX-License-Identifier: GPL-2.0
/*
 * result_load.c - read a stored run back (result.c writes them).
 *
 * libyaml's document API against the run model's field tables
 * (runmodel.c), so a hand-edited or truncated file gives a file:line:column
 * error, not a crash. Keys this version does not know are ignored: newer
 * files stay readable.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "lib/diag.h"
#include "store.h"
#include "lib/util.h"
#include "profile.h"
#include "runmodel.h"

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
	char *err;		/* NULL: messages go to the diagnostics sink */
	size_t errlen;
};

/*
 * One message, "file:line:col: what", to the diagnostics sink (as it is:
 * the position is in it) or to the caller's buffer.
 */
static void __attribute__((format(printf, 2, 3)))
say(struct loader *l, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!l->err)
		kscen_error("", "%s", msg);
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

static int load_scalar(struct loader *l, const struct kscen_field *f,
		       yaml_node_t *n, void *base)
{
	const char *s, *why;

	if (text(l, n, f->key, &s))
		return -EINVAL;
	why = kscen_field_parse(f, base, s, is_null(n));
	return why ? bad(l, n, "%s: %s", f->key, why) : 0;
}

static int load_hook(struct loader *l, const struct kscen_field *f,
		     yaml_node_t *n, void *base);

/*
 * Fill @base from mapping @n by the fields of @rec (those stored in files);
 * *@seen gets a bit per field read.
 */
static int load_map(struct loader *l, yaml_node_t *n, enum kscen_rec rec,
		    void *base, uint32_t *seen)
{
	const struct kscen_record *r = &kscen_records[rec];
	const struct kscen_field *f;
	yaml_node_pair_t *pair;
	const char *key;
	uint32_t got = 0;
	unsigned i;
	int ret;

	if (n->type != YAML_MAPPING_NODE)
		return bad(l, n, "%s: expected a mapping", r->name);
	for (pair = n->data.mapping.pairs.start;
	     pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(l, pair->key), *v = node(l, pair->value);

		if (k->type != YAML_SCALAR_NODE)
			return bad(l, k, "%s: a key must be a scalar", r->name);
		if (text(l, k, r->name, &key))
			return -EINVAL;
		for (i = 0; i < r->nr && (strcmp(key, r->fields[i].key) ||
					  (r->fields[i].flags & KF_NOFILE)); i++)
			;
		if (i == r->nr)
			continue;
		if (got & 1u << i)
			return bad(l, k, "%s: duplicate key '%s'", r->name, key);
		got |= 1u << i;
		f = &r->fields[i];
		ret = spend(l, v);
		if (!ret && f->type == KF_HOOK)
			ret = load_hook(l, f, v, base);
		else if (!ret)
			ret = load_scalar(l, f, v, base);
		if (ret)
			return ret;
	}
	for (i = 0; i < r->nr; i++)
		if ((r->fields[i].flags & KF_REQUIRED) && !(got & 1u << i))
			return bad(l, n, "%s: missing '%s'", r->name,
				   r->fields[i].key);
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

/* Samples, and a profile's objects: lists of scalars. */
static int load_scalars(struct loader *l, yaml_node_t *n, const char *what,
			void *base)
{
	struct kscen_metric *m = base;
	struct kscen_profile *p = base;
	bool samples = !strcmp(what, "samples");
	unsigned i, nr = 0;
	const char *s;
	yaml_node_t *v;

	if (sequence(l, n, what, &nr))
		return -EINVAL;
	if (samples)
		m->samples = kscen_xcalloc(nr, sizeof(*m->samples));
	else
		p->objects = kscen_xcalloc(nr + 1, sizeof(*p->objects));
	for (i = 0; i < nr; i++) {
		v = node(l, n->data.sequence.items.start[i]);
		if (spend(l, v) || text(l, v, what, &s))
			return -EINVAL;
		if (!samples)
			p->objects[p->nr_objects++] = kscen_xstrdup(s);
		else if (kscen_parse_double(s, &m->samples[m->nr_samples]) ||
			 !isfinite(m->samples[m->nr_samples++]))
			/* .inf and .nan are no measurement, and poison a summary */
			return bad(l, v, "samples: expected a finite number");
	}
	return 0;
}

/*
 * The samples rule: a file older than one of the summary fields gets them
 * all anew, and a summary is recomputed from the samples, never trusted,
 * so a hand-edited median cannot make a delta the samples do not show. A
 * disagreement is said.
 */
static void metric_loaded(struct loader *l, yaml_node_t *v,
			  const struct kscen_job_result *j,
			  struct kscen_metric *m, uint32_t seen)
{
	const struct kscen_record *r = &kscen_records[KREC_METRIC];
	uint32_t sum_bits = 0;
	struct kscen_summary sum;
	double old;

	for (unsigned i = 0; i < r->nr; i++)
		if (r->fields[i].off >= offsetof(struct kscen_metric, sum))
			sum_bits |= 1u << i;
	if ((seen & sum_bits) != sum_bits)
		kscen_summarize(m->samples, m->nr_samples, &m->sum);
	if (!m->nr_samples)
		return;
	old = m->sum.median;
	kscen_summarize(m->samples, m->nr_samples, &sum);
	if (!(old == sum.median || (isnan(old) && isnan(sum.median)) ||
	      fabs(old - sum.median) <= 1e-9 * fabs(sum.median)))
		bad(l, v, "%s %s: the stored median %g is not the "
		    "median of its samples, %g; using the samples",
		    j->id ? j->id : "job", m->name ? m->name : "metric",
		    old, sum.median);
	m->sum = sum;
}

/* The bit of field @key of @rec in load_map()'s *seen. */
static uint32_t field_bit(enum kscen_rec rec, const char *key)
{
	const struct kscen_record *r = &kscen_records[rec];

	for (unsigned i = 0; i < r->nr; i++)
		if (!strcmp(r->fields[i].key, key))
			return 1u << i;
	return 0;
}

/*
 * A list of records: a run's shards and jobs, a job's metrics, a profile's
 * symbols, a job's sample records. Counted in before they are read, so that
 * the free sees all.
 */
static int load_list(struct loader *l, const struct kscen_field *f,
		     yaml_node_t *n, void *base)
{
	struct kscen_run *run = base;
	struct kscen_job_result *j = base;
	struct kscen_profile *p = base;
	struct kscen_noise_rec *ns = base;
	enum kscen_rec rec;
	unsigned i, nr = 0;
	uint32_t seen;
	size_t size;
	char *v;

	switch (f->hook) {
	case KH_SHARDS:
		rec = KREC_SHARD, size = sizeof(*run->shards);
		break;
	case KH_JOBS:
		rec = KREC_JOB, size = sizeof(*run->jobs);
		break;
	case KH_METRICS:
		rec = KREC_METRIC, size = sizeof(*j->metrics);
		break;
	case KH_NSAMPLES:
		rec = KREC_SAMPLE, size = sizeof(*ns->samples);
		break;
	default:
		rec = KREC_PSYM, size = sizeof(*p->sym);
		break;
	}
	if (sequence(l, n, f->key, &nr))
		return -EINVAL;
	v = kscen_xcalloc(nr + 1, size);
	switch (f->hook) {
	case KH_SHARDS:
		run->shards = (void *)v, run->nr_shards = nr;
		break;
	case KH_JOBS:
		run->jobs = (void *)v, run->nr_jobs = nr;
		break;
	case KH_METRICS:
		j->metrics = (void *)v, j->nr_metrics = nr;
		break;
	case KH_NSAMPLES:
		ns->samples = (void *)v, ns->nr_samples = nr;
		break;
	default:
		p->sym = (void *)v, p->nr_sym = nr;
		break;
	}
	for (i = 0; i < nr; i++, v += size) {
		yaml_node_t *item = node(l, n->data.sequence.items.start[i]);

		if (rec == KREC_JOB)
			((struct kscen_job_result *)v)->converged = -1;
		if (rec == KREC_PSYM)
			((struct kscen_profile_sym *)v)->children = NAN;
		if (rec == KREC_SAMPLE)
			kscen_sample_rec_init((void *)v);
		if (spend(l, item) || load_map(l, item, rec, v, &seen))
			return -EINVAL;
		if (rec == KREC_METRIC)
			metric_loaded(l, item, j, (void *)v, seen);
		/* "children" in any symbol: they were measured */
		if (rec == KREC_PSYM && (seen & field_bit(rec, "children")))
			p->children = true;
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

/* A job's noise; its counts are those of its sample records, as written. */
static int load_noise(struct loader *l, yaml_node_t *n, struct kscen_job_result *j)
{
	struct kscen_noise_rec *ns = j->noise = kscen_xcalloc(1, sizeof(*j->noise));

	if (load_map(l, n, KREC_NOISE, ns, NULL))
		return -EINVAL;
	ns->disturbed = ns->dropped = 0;
	for (unsigned i = 0; i < ns->nr_samples; i++) {
		ns->disturbed += ns->samples[i].disturbed;
		ns->dropped += ns->samples[i].dropped;
	}
	return 0;
}

static int load_hook(struct loader *l, const struct kscen_field *f,
		     yaml_node_t *n, void *base)
{
	struct kscen_run *run = base;
	struct kscen_job_result *j = base;

	switch (f->hook) {
	case KH_SYSTEM:
		return load_map(l, n, KREC_SYSTEM, &run->system, NULL);
	case KH_PARAMS:
		return load_kv(l, n, f->key, &j->keys, &j->values, &j->nr_kv);
	case KH_EFFECTIVE:
		return load_kv(l, n, f->key, &j->eff_keys, &j->eff_values,
			       &j->nr_eff);
	case KH_PROFILE:
		j->profile = kscen_xcalloc(1, sizeof(*j->profile));
		j->profile->value = NAN;
		j->profile->top = KSCEN_PROFILE_TOP;
		return load_map(l, n, KREC_PROFILE, j->profile, NULL);
	case KH_NOISE:
		return load_noise(l, n, j);
	case KH_SAMPLES:
	case KH_OBJECTS:
		return load_scalars(l, n, f->key, base);
	default:
		return load_list(l, f, n, base);
	}
}

/* The whole file, NUL-terminated: a regular file of at most KSCEN_RESULT_MAX_FILE. */
static int read_all(const char *path, char **buf, size_t *len)
{
	return kscen_read_regular(path, KSCEN_RESULT_MAX_FILE, buf, len);
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

/* Parse @buf (of file @l->path) into a run. */
static int load_buf(struct loader *l, char *buf, size_t len, struct kscen_run **out)
{
	struct kscen_run *run = NULL;
	yaml_parser_t parser;
	yaml_node_t *root;
	bool have_doc = false;
	int ret;

	ret = caps(l, buf, len);
	if (ret)
		return ret;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &l->doc)) {
		parser_error(l, &parser, buf);
		ret = parser.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
		goto out;
	}
	have_doc = true;
	root = yaml_document_get_root_node(&l->doc);
	if (!root) {
		say(l, "%s:1:1: empty file, not a kscen result", l->path);
		ret = -EINVAL;
		goto out;
	}
	l->budget = l->doc.nodes.top - l->doc.nodes.start;

	run = kscen_xcalloc(1, sizeof(*run));
	run->system.perf_event_paranoid = KSCEN_PARANOID_UNKNOWN;
	ret = load_map(l, root, KREC_RUN, run, NULL);
	if (ret)
		goto out;
	run->path = kscen_xstrdup(l->path);
	*out = run;
	run = NULL;
out:
	kscen_run_free(run);
	if (have_doc)
		yaml_document_delete(&l->doc);
	yaml_parser_delete(&parser);
	return ret;
}

int kscen_result_load_some(const char *path, const struct kscen_idset *want,
			   struct kscen_run **out, char *err, size_t errlen)
{
	struct loader l = { .path = path, .err = err, .errlen = errlen };
	char *buf = NULL, *some;
	size_t len = 0, some_len;
	int ret;

	*out = NULL;
	if (want && (some = kscen_result_select(path, want, &some_len))) {
		/* Quietly: a problem is said by the full parse, at its place. */
		char quiet[256];
		struct loader q = { .path = path, .err = quiet, .errlen = sizeof(quiet) };

		ret = load_buf(&q, some, some_len, out);
		free(some);
		if (!ret)
			return 0;
	}
	ret = read_all(path, &buf, &len);
	if (err && errlen)
		err[0] = '\0';
	if (ret == -EFBIG)
		say(&l, "%s: larger than %d MiB, not a kscen result", path,
		    KSCEN_RESULT_MAX_FILE >> 20);
	else if (ret)
		say(&l, "%s: %s", path, kscen_read_strerror(ret));
	if (ret)
		return ret;
	ret = load_buf(&l, buf, len, out);
	free(buf);
	return ret;
}

int kscen_result_load_err(const char *path, struct kscen_run **out,
			  char *err, size_t errlen)
{
	return kscen_result_load_some(path, NULL, out, err, errlen);
}
