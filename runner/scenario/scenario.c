// SPDX-License-Identifier: GPL-2.0
/*
 * scenario.c - load a scenario file and check everything that can be checked
 * before a job runs, each problem reported as "file:line:column: message".
 *
 * Three passes over one small in-memory buffer (scenario_load.h):
 *  1. libyaml events: syntax errors, and the cheap refusals of hostile input
 *     (aliases, nesting depth, node count); the file size is capped before
 *     (scenario_file.c). A long axis's values are kept from these events
 *     (scenario_axis.c): the next passes read the text without them.
 *  2. libcyaml with the schema in schemas/: the fixed shape, one problem at
 *     a time, placed on the libyaml tree (scenario_shape.c).
 *  3. this file: the fixed values libcyaml loaded, parsed strictly, and the
 *     open mappings libcyaml cannot load (params, include, exclude, baseline,
 *     with a workload's parameter names as keys and a value or a list as
 *     values), walked on libyaml's tree with the position of every node.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/util.h"
#include "scenario_load.h"
#include "profile_spec.h"
#include "yaml_tree.h"
#include "scenario_walk.h"
#include "schemas/scenario.h"

static const char *scalar(const yaml_node_t *n)
{
	return kscen_yscalar(n);
}

static yaml_node_t *get(struct kscen_loader *ld, yaml_node_t *map, const char *key)
{
	return kscen_yget(&ld->doc, map, key);
}

const char *kscen_scenario_name_why(const char *s, char *why, size_t len)
{
	size_t n = strlen(s), ok;

	if (!n)
		snprintf(why, len, "the name is empty");
	else if (n > KSCEN_NAME_MAX)
		snprintf(why, len, "the name is %zu characters, at most %d", n, KSCEN_NAME_MAX);
	else if (s[0] == '.')
		snprintf(why, len, "'%s' starts with '.': the directory of its runs would "
			 "be hidden, or '.' or '..'", s);
	else if ((ok = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "0123456789_.-")) == n)
		return NULL;
	else if ((unsigned char)s[ok] > ' ' && (unsigned char)s[ok] < 0x7f)
		snprintf(why, len, "'%s': '%c' (character %zu) is not a letter, a digit, "
			 "'_', '.' or '-'", s, s[ok], ok + 1);
	else	/* a blank, a control character, a byte of UTF-8: by its value */
		snprintf(why, len, "the byte 0x%02x (character %zu) is not a letter, a "
			 "digit, '_', '.' or '-'", (unsigned char)s[ok], ok + 1);
	return why;
}

/* Job @j from its fixed fields in @dj (libcyaml's) and its node @n. */
static void read_job(struct kscen_loader *ld, yaml_node_t *n,
		     const struct kscen_doc_job *dj, struct kscen_job_spec *j)
{
	yaml_node_t *v;
	char where[128];

	j->mark = kscen_ynode_mark(n);
	if (!kscen_name_ok(dj->name)) {
		kscen_lerr(ld, get(ld, n, "name"), "job: needs a name of letters, "
		     "digits, '_', '.' or '-', at most %d", KSCEN_NAME_MAX);
		return;
	}
	j->name = kscen_xstrdup(dj->name);
	j->workload = kscen_workload_find(dj->workload);
	if (!j->workload && ld->module_failed)
		return;
	if (!j->workload) {
		const char *hint = kscen_workload_closest(dj->workload);
		char hb[160];

		kscen_lerr(ld, get(ld, n, "workload"), "job %s: unknown workload '%s'%s",
		     j->name, dj->workload,
		     kscen_did_you_mean(hb, sizeof(hb), hint, " (see kscen list)"));
		return;
	}
	snprintf(where, sizeof(where), "job %s: params", j->name);
	v = get(ld, n, "params");
	if (v)
		kscen_read_map(ld, v, j->workload, NULL, where, &j->params);
	if (ld->defaults_params)	/* fio's [global]: after the job's own */
		kscen_inherit_defaults(ld, ld->defaults_params, j->workload,
				       "defaults: params", &j->params);
	for (unsigned i = 0; i < j->workload->nr_params; i++) {
		const struct kscen_param *p = &j->workload->params[i];

		if (!p->def && !kscen_map_find(&j->params, p->name))
			kscen_lerr(ld, v ? v : n, "job %s: parameter '%s' is required",
			     j->name, p->name);
	}
	kscen_read_selectors(ld, j, get(ld, n, "include"), "include", &j->include, &j->nr_include);
	kscen_read_selectors(ld, j, get(ld, n, "exclude"), "exclude", &j->exclude, &j->nr_exclude);
	for (unsigned i = 0; i < j->nr_exclude; i++)
		kscen_check_selector(ld, j, &j->exclude[i], "exclude");
	v = get(ld, n, "baseline");
	if (v) {
		snprintf(where, sizeof(where), "job %s: baseline", j->name);
		kscen_read_map(ld, v, j->workload, &j->params, where, &j->baseline);
		kscen_check_selector(ld, j, &j->baseline, "baseline");
	}
	for (unsigned i = 0; i < j->nr_include; i++) {
		for (unsigned k = 0; k < j->params.nr; k++) {
			if (j->params.kv[k].is_list &&
			    !kscen_map_find(&j->include[i], j->params.kv[k].key)) {
				kscen_lerr_at(ld, j->include[i].mark,
						 "job %s: include: must give a value for the axis '%s'",
						 j->name, j->params.kv[k].key);
			}
		}
	}
}

static const struct kscen_param repeat_p = {
	.name = "repeat", .type = KSCEN_P_INT, .min = 1, .max = 1000000,
};
static const struct kscen_param warmup_p = {
	.name = "warmup", .type = KSCEN_P_INT, .min = 0, .max = 1000000,
};
const struct kscen_param kscen_timeout_param = {
	.name = "timeout", .type = KSCEN_P_TIME, .min = 1000000,
	.max = 7 * 24 * 3600 * 1000000000LL,
};

const char *const kscen_noise_names[] = { "flag", "flag", "retake", "drop" };

static const struct kscen_param noise_p = {
	.name = "noise", .type = KSCEN_P_ENUM, .choices = "flag|retake|drop",
};

enum kscen_noise_policy kscen_noise_parse(const char *s)
{
	for (int i = KSCEN_NOISE_FLAG; i <= KSCEN_NOISE_DROP; i++)
		if (!strcmp(s, kscen_noise_names[i]))
			return i;
	return KSCEN_NOISE_UNSET;
}

static const struct kscen_param max_repeat_p = {
	.name = "max_repeat", .type = KSCEN_P_INT, .min = KSCEN_AUTO_MIN_REPEAT,
	.max = 1000000,
};

/* "5%" or "5": a half-width in percent, above 0 and at most 100. */
int kscen_parse_pct(const char *text, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || errno || (*end && strcmp(end, "%")) ||
	    !(v > 0 && v <= 100) || isspace((unsigned char)*text))
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * repeat: auto - at least KSCEN_AUTO_MIN_REPEAT samples (the fewest with a
 * distribution-free 95% CI of the median), then until that CI is within
 * +-until_ci % (default 5%) or max_repeat (default 30) samples.
 */
static void read_auto(struct kscen_loader *ld, yaml_node_t *root,
		      struct kscen_scenario *s)
{
	struct kscen_value v;
	yaml_node_t *n;

	s->repeat = KSCEN_AUTO_MIN_REPEAT;
	s->max_repeat = KSCEN_AUTO_MAX_REPEAT;
	s->until_ci = KSCEN_AUTO_UNTIL_CI;
	if ((n = get(ld, root, "max_repeat")) &&
	    !kscen_lcheck_scalar(ld, n, &max_repeat_p, &v))
		s->max_repeat = v.i;
	n = get(ld, root, "until_ci");
	if (n && (n->type != YAML_SCALAR_NODE ||
		  kscen_parse_pct(scalar(n), &s->until_ci)))
		kscen_lerr(ld, n, "until_ci: expected a percentage above 0 and up to "
		     "100, like 5%%");
}

/* A scalar field @key of @map, parsed as @p; 0 if absent or bad. */
static int fixed_value(struct kscen_loader *ld, yaml_node_t *map, const char *key,
		       const struct kscen_param *p, long long *out)
{
	yaml_node_t *n = get(ld, map, key);
	struct kscen_value v;

	if (!n || kscen_lcheck_scalar(ld, n, p, &v))
		return -EINVAL;
	*out = v.i;
	return 0;
}

/*
 * modules: shared objects with more workloads (module.c), each path
 * relative to the scenario file's directory; loaded before the jobs that
 * name their workloads are read.
 */
static void read_modules(struct kscen_loader *ld, const struct kscen_doc *doc,
			 yaml_node_t *list)
{
	const char *dir = ld->dir;

	for (unsigned i = 0; i < doc->modules_count; i++) {
		yaml_node_t *n = kscen_yitem(&ld->doc, list, i);
		const char *m = doc->modules[i];
		char err[1024], *path;

		if (!n)
			continue;
		if (!*m || kscen_lis_null(n)) {
			kscen_lerr(ld, n, "modules: each entry is the path of a "
				   "workload module (.so)");
			continue;
		}
		path = m[0] == '/' ? kscen_xstrdup(m) : kscen_xasprintf("%s/%s", dir, m);
		if (kscen_module_load(path, err, sizeof(err))) {
			kscen_lerr(ld, n, "modules: %s", err);
			ld->module_failed = true;
		}
		free(path);
	}
}

/*
 * Where the scenario's @key is given: at the top of @root, or in its
 * defaults: @dn (every job's repeat, warmup and timeout), not both.
 */
static yaml_node_t *fixed_map(struct kscen_loader *ld, yaml_node_t *root,
			      yaml_node_t *dn, const char *key)
{
	yaml_node_t *top = get(ld, root, key), *in = dn ? get(ld, dn, key) : NULL;

	if (!in)
		return root;
	if (top)
		kscen_lerr(ld, in, "defaults: %s: given at the top too (line %u); "
			   "give it once", key, kscen_ynode_mark(top).line);
	return dn;
}

/* defaults: params: each key must be a parameter of some job's workload. */
static void check_defaults_used(struct kscen_loader *ld, const struct kscen_scenario *s)
{
	yaml_node_t *dp = ld->defaults_params;

	if (!dp || dp->type != YAML_MAPPING_NODE)
		return;
	for (unsigned i = 0; i < s->nr_jobs; i++)
		if (!s->jobs[i].workload)
			return;	/* said already: cannot tell */
	for (yaml_node_pair_t *pr = dp->data.mapping.pairs.start;
	     pr < dp->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(&ld->doc, pr->key);
		const char *names[64], *hint;
		unsigned nr = 0;
		bool used = false;
		char hb[160];

		if (k->type != YAML_SCALAR_NODE)
			continue;	/* said by the jobs' read */
		for (unsigned i = 0; i < s->nr_jobs && !used; i++) {
			const struct kscen_workload *w = s->jobs[i].workload;

			used = kscen_param_find(w, scalar(k)) != NULL;
			for (unsigned p = 0; p < w->nr_params && nr < ARRAY_SIZE(names); p++)
				names[nr++] = w->params[p].name;
		}
		if (used)
			continue;
		hint = kscen_closest(scalar(k), names, nr);
		kscen_lerr(ld, k, "defaults: params: no job's workload has a parameter "
			   "'%s'%s", scalar(k), kscen_did_you_mean(hb, sizeof(hb), hint, ""));
	}
}

/* Pass 3: the values of the fixed shape @doc, and the open mappings. */
static int walk(struct kscen_loader *ld, const struct kscen_doc *doc,
		struct kscen_scenario *s)
{
	yaml_node_t *root = yaml_document_get_root_node(&ld->doc), *n, *jobs;
	yaml_node_t *dn = doc->defaults ? get(ld, root, "defaults") : NULL, *map;
	const char *repeat;
	char why[KSCEN_NAME_MAX + 128];
	long long v;

	if (kscen_scenario_name_why(doc->scenario, why, sizeof(why)))
		kscen_lerr(ld, get(ld, root, "scenario"), "scenario: %s", why);
	if ((n = get(ld, root, "description")) && kscen_lis_null(n))
		kscen_lerr(ld, n, "description: must be text");
	s->name = kscen_xstrdup(doc->scenario);
	s->description = kscen_xstrdup(doc->description ? doc->description : "");
	ld->defaults_params = dn ? get(ld, dn, "params") : NULL;
	s->repeat = 5;
	map = fixed_map(ld, root, dn, "repeat");
	repeat = map == root ? doc->repeat : doc->defaults->repeat;
	if (repeat && !strcmp(repeat, "auto"))
		read_auto(ld, root, s);
	else if (!fixed_value(ld, map, "repeat", &repeat_p, &v))
		s->repeat = v;
	if (!s->until_ci)
		for (unsigned i = 0; i < 2; i++)
			if ((n = get(ld, root, i ? "until_ci" : "max_repeat")))
				kscen_lerr(ld, n, "%s: only with 'repeat: auto'",
				     i ? "until_ci" : "max_repeat");
	s->warmup = 1;
	if (!fixed_value(ld, fixed_map(ld, root, dn, "warmup"), "warmup", &warmup_p, &v))
		s->warmup = v;
	s->timeout_ns = 60 * 1000000000LL;
	if (!fixed_value(ld, fixed_map(ld, root, dn, "timeout"), "timeout",
			 &kscen_timeout_param, &v))
		s->timeout_ns = v;
	if (!fixed_value(ld, root, "noise", &noise_p, &v))
		s->noise = KSCEN_NOISE_FLAG + v;
	if ((n = get(ld, root, "profile")))	/* profile.h */
		ld->errors += kscen_profile_spec_read(ld->file, &ld->doc, n, NULL,
						      &s->profile);
	if ((n = get(ld, root, "modules")))
		read_modules(ld, doc, n);

	jobs = get(ld, root, "jobs");
	s->nr_jobs = doc->jobs_count;
	s->jobs = kscen_xcalloc(s->nr_jobs, sizeof(*s->jobs));
	for (unsigned i = 0; i < s->nr_jobs; i++) {
		struct kscen_job_spec *j = &s->jobs[i];
		yaml_node_t *jn = kscen_yitem(&ld->doc, jobs, i);

		j->spec_file = s->file;
		read_job(ld, jn, &doc->jobs[i], j);
		if (j->workload)
			kscen_read_job_extras(ld, jn, &doc->jobs[i], j);
		if (!fixed_value(ld, jn, "timeout", &kscen_timeout_param, &v))
			j->timeout_ns = v;
		if (!fixed_value(ld, jn, "noise", &noise_p, &v))
			j->noise = KSCEN_NOISE_FLAG + v;
		if ((n = get(ld, jn, "profile")))
			ld->errors += kscen_profile_spec_read(ld->file, &ld->doc, n,
							      s->profile, &j->profile);
		for (unsigned k = 0; k < i && j->name; k++)
			if (s->jobs[k].name && strcmp(s->jobs[k].name, j->name) == 0)
				kscen_lerr_at(ld, j->mark,
					"duplicate job name '%s' (first at line %u)",
					j->name, s->jobs[k].mark.line);
	}
	check_defaults_used(ld, s);
	return ld->errors ? -EINVAL : 0;
}

static int load_text(const char *file, const char *dir, char *buf, size_t len,
		     struct kscen_scenario **out);

int kscen_scenario_load(const char *path, struct kscen_scenario **out)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? kscen_xasprintf("%.*s", (int)(slash - path) + (slash == path),
					    path) : kscen_xstrdup(".");
	char *buf = NULL;
	size_t len = 0;
	int ret;

	*out = NULL;
	ret = kscen_scenario_read(path, &buf, &len);
	if (!ret)
		ret = load_text(path, dir, buf, len, out);
	free(dir);
	return ret;
}

/*
 * Pass 2's tree, of the text with the long axes of @st taken out. Should that
 * copy not parse (the prescan found every list's end, so it does), the
 * text itself, with nothing streamed.
 */
static int load_tree(struct kscen_loader *ld, struct kscen_streamed *st,
		     const char *buf, size_t len)
{
	yaml_parser_t parser;
	bool ok;

	for (;;) {
		const char *text = st->text ? st->text : buf;

		yaml_parser_initialize(&parser);
		yaml_parser_set_input_string(&parser, (const unsigned char *)text,
					     st->text ? st->len : len);
		ok = yaml_parser_load(&parser, &ld->doc);
		if (ok || !st->text)
			break;
		yaml_parser_delete(&parser);
		kscen_streamed_fini(st);
	}
	if (!ok)
		kscen_yaml_error(ld->file, &parser);
	yaml_parser_delete(&parser);
	ld->streamed = st;
	return ok ? 0 : -EINVAL;
}

/* The text @buf (malloc'ed, NUL-terminated) is kept as s->text, or freed. */
static int load_text(const char *file, const char *dir, char *buf, size_t len,
		     struct kscen_scenario **out)
{
	struct kscen_scenario *s = kscen_xcalloc(1, sizeof(*s));
	struct kscen_loader ld = { .file = file, .dir = dir };
	struct kscen_streamed st;
	struct kscen_doc *doc = NULL;
	yaml_node_t *root;
	int ret;

	*out = NULL;
	s->file = kscen_xstrdup(file);
	ret = kscen_module_env_load();	/* KSCEN_MODULE_PATH: said once, each time */
	if (ret)
		goto out;
	ret = kscen_scenario_check_text(file, buf, len);
	if (ret)
		goto out;
	ret = kscen_scenario_prescan(file, buf, len, &st);
	if (ret)
		goto out;
	ret = load_tree(&ld, &st, buf, len);
	if (ret)
		goto out;
	root = yaml_document_get_root_node(&ld.doc);
	ret = -EINVAL;
	if (!root || (root->type == YAML_SCALAR_NODE && !*scalar(root)))
		kscen_file_error(file, ((struct kscen_mark){ 1, 1 }),
				 "empty scenario file: it needs scenario: and jobs:");
	else if (root->type != YAML_MAPPING_NODE)
		kscen_lerr(&ld, root, "a scenario is a mapping with scenario: and jobs:");
	else if (!(ret = kscen_scenario_shape(file, st.text ? st.text : buf,
					      st.text ? st.len : len, &ld.doc, &doc)))
		ret = walk(&ld, doc, s);
	if (doc)
		kscen_scenario_shape_free(doc);
	yaml_document_delete(&ld.doc);
	kscen_streamed_fini(&st);
	if (ret)
		goto out;
	s->sha256 = kscen_sha256_hex(buf, len);
	s->text = buf;
	buf = NULL;
out:
	free(buf);
	if (ret) {
		kscen_scenario_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int kscen_scenario_load_text(const char *file, const char *dir, const char *buf,
			     size_t len, struct kscen_scenario **out)
{
	char *copy = kscen_xmalloc(len + 1);

	memcpy(copy, buf, len);
	copy[len] = '\0';
	return load_text(file, dir, copy, len, out);
}

void kscen_scenario_free(struct kscen_scenario *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nr_jobs; i++) {
		struct kscen_job_spec *j = &s->jobs[i];

		free(j->name);
		kscen_map_fini(&j->params);
		kscen_map_fini(&j->baseline);
		for (unsigned k = 0; k < j->nr_include; k++)
			kscen_map_fini(&j->include[k]);
		for (unsigned k = 0; k < j->nr_exclude; k++)
			kscen_map_fini(&j->exclude[k]);
		free(j->include);
		free(j->exclude);
		free(j->profile);
		kscen_job_extras_fini(j);
	}
	free(s->profile);
	free(s->jobs);
	free(s->file);
	free(s->sha256);
	free(s->text);
	free(s->name);
	free(s->description);
	free(s);
}
