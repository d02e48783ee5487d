// SPDX-License-Identifier: GPL-2.0
/*
 * calib.c - what `kscen calibrate` records for a host: the run-to-run drift
 * of its jobs pooled over the jobs, per kernel release and build, in
 * RESULTS/.calibration/HOST.yaml. A comparison between runs of a job with
 * too short a history of its own allows for that pool (drift.c), and says
 * so. The machine is named by a hash of its kernel release and build, so
 * that any bytes uname gives match exactly; the release is beside it for
 * people. The file is read like every file kscen did not just write: size
 * capped, every field checked, a bad one is ignored with a warning.
 */
#define _GNU_SOURCE	/* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "lib/diag.h"
#include "history.h"
#include "scenario/scenario_load.h"
#include "lib/util.h"
#include "scenario/yaml_tree.h"

#define CALIB_MAX_BYTES (1u << 20)
#define CALIB_MAX_POOLS 256

struct pool {
	char key[65];		/* sha256 of "kernel\nkernel_build" */
	char scenario[64], when[32], kernel[64];
	double s;
	unsigned long df, jobs;
};

/* Printable ASCII of @s, at most @len - 1 bytes: for the people's fields. */
static void printable(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	for (s = s ? s : ""; *s && o + 1 < len; s++)
		buf[o++] = *s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\' ? *s : '?';
	buf[o] = '\0';
}

static void sys_key(const struct kscen_system *sys, char key[65])
{
	char *in = kscen_xasprintf("%s\n%s", sys->kernel ? sys->kernel : "",
				   sys->kernel_build ? sys->kernel_build : "");
	char *h = kscen_sha256_hex(in, strlen(in));

	snprintf(key, 65, "%s", h);
	free(h);
	free(in);
}

static char *calib_path(const char *results, const struct kscen_system *sys)
{
	char host[128];

	/* a host name is a file name here: nothing but [A-Za-z0-9._-] */
	printable(host, sizeof(host), sys->hostname);
	for (char *p = host; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && *p != '-' && *p != '_')
			*p = '_';
	return kscen_xasprintf("%s/.calibration/%s.yaml", results, *host ? host : "_");
}

static bool scalar(yaml_document_t *doc, yaml_node_t *map, const char *key,
		   const char **out)
{
	yaml_node_t *n = kscen_yget(doc, map, key);

	if (!n || n->type != YAML_SCALAR_NODE)
		return false;
	*out = kscen_yscalar(n);
	return true;
}

static bool number(yaml_document_t *doc, yaml_node_t *map, const char *key,
		   double *out)
{
	const char *s;
	char *end;

	if (!scalar(doc, map, key, &s) || !*s)
		return false;
	*out = strtod(s, &end);
	return !*end && isfinite(*out) && *out >= 0;
}

/* One pool of the file; false when any field is missing or wrong. */
static bool read_pool(yaml_document_t *doc, yaml_node_t *map, struct pool *p)
{
	const char *key, *sc, *when, *kernel;
	double s, df, jobs;

	if (!scalar(doc, map, "system", &key) || strlen(key) != 64 ||
	    strspn(key, "0123456789abcdef") != 64 ||
	    !scalar(doc, map, "scenario", &sc) || !scalar(doc, map, "calibrated", &when) ||
	    !scalar(doc, map, "kernel", &kernel) ||
	    !number(doc, map, "log_sd", &s) || !number(doc, map, "df", &df) ||
	    !number(doc, map, "jobs", &jobs) || df < 1 || df > 1e7 || jobs > 1e7 ||
	    s > 10 || df != floor(df) || jobs != floor(jobs))
		return false;
	snprintf(p->key, sizeof(p->key), "%s", key);
	printable(p->scenario, sizeof(p->scenario), sc);
	printable(p->when, sizeof(p->when), when);
	printable(p->kernel, sizeof(p->kernel), kernel);
	p->s = s;
	p->df = df;
	p->jobs = jobs;
	return true;
}

/* The pools of @path; 0 and none when it does not exist. */
static unsigned read_pools(const char *path, struct pool **out)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *seq;
	struct pool *p = NULL;
	unsigned nr = 0, bad = 0;
	size_t len;
	char *buf;
	int ret;

	*out = NULL;
	ret = kscen_read_regular(path, CALIB_MAX_BYTES, &buf, &len);
	if (ret) {
		if (ret != -ENOENT)
			kscen_diag(KSCEN_DIAG_WARNING, NULL, NOWHERE, "%s: %s: ignored",
				   path, kscen_read_strerror(ret));
		return 0;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		kscen_diag(KSCEN_DIAG_WARNING, NULL, NOWHERE, "%s:%zu:%zu: %s: ignored",
			   path, parser.problem_mark.line + 1,
			   parser.problem_mark.column + 1,
			   parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		free(buf);
		return 0;
	}
	root = yaml_document_get_root_node(&doc);
	seq = kscen_yget(&doc, root, "pools");
	for (unsigned i = 0; nr < CALIB_MAX_POOLS; i++) {
		yaml_node_t *item = kscen_yitem(&doc, seq, i);

		if (!item)
			break;
		p = kscen_xrealloc(p, (nr + 1) * sizeof(*p));
		if (read_pool(&doc, item, &p[nr]))
			nr++;
		else
			bad++;
	}
	if (bad || (root && !seq))
		kscen_diag(KSCEN_DIAG_WARNING, NULL, NOWHERE,
			   "%s: %u pool%s not understood: ignored", path, bad + !seq,
			   bad + !seq == 1 ? "" : "s");
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	free(buf);
	*out = p;
	return nr;
}

bool kscen_calib_load(const char *results, const struct kscen_system *sys,
		      const char *before, struct kscen_calib *c)
{
	char *path, key[65];
	struct pool *p;
	unsigned nr;
	double v = 0;

	memset(c, 0, sizeof(*c));
	if (!results || !sys->hostname)
		return false;
	path = calib_path(results, sys);
	nr = read_pools(path, &p);
	sys_key(sys, key);
	for (unsigned i = 0; i < nr; i++) {
		if (strcmp(p[i].key, key) || (before && strcmp(p[i].when, before) > 0))
			continue;
		v += p[i].df * p[i].s * p[i].s;
		c->df += p[i].df;
		c->jobs += p[i].jobs;
		if (strcmp(p[i].when, c->when) > 0)
			snprintf(c->when, sizeof(c->when), "%s", p[i].when);
	}
	if (c->df)
		c->s = sqrt(v / c->df);
	free(p);
	free(path);
	return c->df > 0;
}

int kscen_calib_save(const char *results, const struct kscen_system *sys,
		     const char *scenario, const struct kscen_calib *c)
{
	char *path = calib_path(results, sys), *dir, *tmp, key[65];
	struct pool *p, mine = { 0 };
	unsigned nr, i;
	int fd, ret = 0;
	FILE *f;

	dir = kscen_xasprintf("%s/.calibration", results);
	if (mkdir(dir, 0755) && errno != EEXIST)
		ret = -errno;
	free(dir);
	if (ret) {
		free(path);
		return ret;
	}
	sys_key(sys, key);
	snprintf(mine.key, sizeof(mine.key), "%s", key);
	printable(mine.scenario, sizeof(mine.scenario), scenario);
	printable(mine.when, sizeof(mine.when), c->when);
	printable(mine.kernel, sizeof(mine.kernel), sys->kernel);
	mine.s = c->s;
	mine.df = c->df;
	mine.jobs = c->jobs;
	nr = read_pools(path, &p);
	/* one pool a scenario and kernel build: this one replaces its own */
	for (i = 0; i < nr; i++)
		if (!strcmp(p[i].key, mine.key) && !strcmp(p[i].scenario, mine.scenario))
			break;
	if (i == nr) {
		if (nr == CALIB_MAX_POOLS)
			memmove(p, p + 1, --nr * sizeof(*p));	/* the oldest goes */
		p = kscen_xrealloc(p, (nr + 1) * sizeof(*p));
		nr++;
	}
	p[i] = mine;
	tmp = kscen_xasprintf("%s.tmp-XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		goto out;
	}
	fchmod(fd, 0644);
	fprintf(f, "# kscen calibrate: the run-to-run drift of this host's jobs,\n"
		"# pooled, per kernel release and build (docs/statistics.md)\n"
		"pools:\n");
	for (i = 0; i < nr; i++)
		fprintf(f, "  - system: \"%s\"\n    kernel: \"%s\"\n    scenario: \"%s\"\n"
			"    calibrated: \"%s\"\n    jobs: %lu\n    df: %lu\n"
			"    log_sd: %.9g\n", p[i].key, p[i].kernel, p[i].scenario,
			p[i].when, p[i].jobs, p[i].df, p[i].s);
	if (fflush(f) || fsync(fd) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	free(p);
	free(path);
	return ret;
}
