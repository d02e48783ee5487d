// SPDX-License-Identifier: GPL-2.0
/*
 * stress_ng.c - the stress_ng adapter: run one stress-ng stressor
 * (`stress-ng --<stressor> <workers> --timeout <t> --metrics --yaml FILE
 * <options>`) once per sample and take its bogo ops/s, against wall-clock
 * time and against usr+sys CPU time, and its bogo ops, from the metrics
 * section of the YAML report (read with libyaml). A stressor this kernel or
 * build cannot run leaves no metrics: that is a skip, with stress-ng's
 * reason when it gave one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "lib/util.h"
#include "tool.h"


struct sng_params {
	char *stressor;
	long long workers;
	long long timeout;	/* ns */
	char *options, *stress_ng;
};

static int sng_check(const void *params, char *err, size_t len)
{
	const struct sng_params *p = params;

	if (!*p->stressor || strspn(p->stressor, "abcdefghijklmnopqrstuvwxyz0123456789-_") !=
	    strlen(p->stressor)) {
		snprintf(err, len, "stressor: a stress-ng stressor name such as cpu, vm, switch");
		return -EINVAL;
	}
	if (p->timeout % 1000000000LL) {
		snprintf(err, len, "timeout: whole seconds, as stress-ng takes them");
		return -EINVAL;
	}
	return 0;
}

static int sng_supported(struct kscen_ctx *ctx)
{
	const struct sng_params *p = ctx->params;

	return kscen_tool_supported(ctx, p->stress_ng, "stress-ng");
}

static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map,
			    const char *key)
{
	yaml_node_pair_t *pair;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(doc, pair->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    !strcmp((char *)k->data.scalar.value, key))
			return yaml_document_get_node(doc, pair->value);
	}
	return NULL;
}

static bool scalar_num(yaml_node_t *n, double *v)
{
	char *end;

	if (!n || n->type != YAML_SCALAR_NODE)
		return false;
	*v = strtod((char *)n->data.scalar.value, &end);
	return end != (char *)n->data.scalar.value && !*end;
}

/* The metrics entry of @stressor in the YAML report at @path. */
static int sng_parse(struct kscen_ctx *ctx, const char *path,
		     const char *stressor, double *values)
{
	static const char *const keys[] = {
		"bogo-ops-per-second-real-time",
		"bogo-ops-per-second-usr-sys-time",
		"bogo-ops",
	};
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *metrics, *item;
	yaml_node_item_t *it;
	FILE *f = fopen(path, "r");
	int ret = -ENODATA;

	if (!f)
		return -ENODATA;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_parser_delete(&parser);
		fclose(f);
		return kscen_reason(ctx, -EBADMSG, "stress-ng's YAML report: %s",
				    parser.problem ? parser.problem : "unreadable");
	}
	metrics = map_get(&doc, yaml_document_get_root_node(&doc), "metrics");
	if (metrics && metrics->type == YAML_SEQUENCE_NODE) {
		for (it = metrics->data.sequence.items.start;
		     it < metrics->data.sequence.items.top; it++) {
			yaml_node_t *name;

			item = yaml_document_get_node(&doc, *it);
			name = map_get(&doc, item, "stressor");
			if (!name || name->type != YAML_SCALAR_NODE ||
			    strcmp((char *)name->data.scalar.value, stressor))
				continue;
			ret = 0;
			for (unsigned k = 0; k < ARRAY_SIZE(keys) && !ret; k++)
				if (!scalar_num(map_get(&doc, item, keys[k]), &values[k]))
					ret = kscen_reason(ctx, -EBADMSG,
							   "stress-ng's YAML report has no number for %s",
							   keys[k]);
			break;
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
	return ret;
}

static int sng_sample(struct kscen_ctx *ctx, double *values)
{
	const struct sng_params *p = ctx->params;
	char report[] = "/tmp/kscen-stress-ng-XXXXXX";
	struct kscen_tool_out o = { 0 };
	char **argv = NULL, *arg;
	const char *why;
	unsigned n = 0;
	int fd, ret;

	fd = mkstemp(report);
	if (fd < 0)
		return kscen_reason(ctx, -errno, "mkstemp: %s", strerror(errno));
	close(fd);
	arg = kscen_xasprintf("%s --%s %lld --timeout %llds --metrics --yaml %s",
			      p->stress_ng, p->stressor, p->workers,
			      p->timeout / 1000000000LL, report);
	n = kscen_tool_split(&argv, n, arg);
	n = kscen_tool_split(&argv, n, p->options);
	free(arg);
	ret = kscen_tool_run(ctx, argv, &o);
	/* A stressor that could not run exits non-zero or reports nothing. */
	if (!ret || ret == -EIO) {
		int pret = sng_parse(ctx, report, p->stressor, values);

		if (pret != -ENODATA)
			ret = pret;
		else if (!ret || kscen_tool_last_line(o.err, "stress-ng: info:") ||
			 strstr(o.out, "skipped") || strstr(o.err, "skipped")) {
			why = kscen_tool_last_line(o.out, "stress-ng: info:");
			if (!why)
				why = kscen_tool_last_line(o.err, "stress-ng: info:");
			ret = kscen_reason(ctx, KSCEN_SKIP,
					   "stress-ng reported no metrics for %s%s%.*s",
					   p->stressor, why ? ": " : "",
					   why ? (int)strcspn(why, "\n") : 0,
					   why ? why : "");
		}
	}
	unlink(report);
	kscen_tool_out_fini(&o);
	for (unsigned i = 0; i < n; i++)
		free(argv[i]);
	free(argv);
	return ret;
}

static void sng_describe(const void *params, char *buf, size_t len)
{
	const struct sng_params *p = params;

	snprintf(buf, len, "stress-ng --%s %lld --timeout %llds%s%s", p->stressor,
		 p->workers, p->timeout / 1000000000LL, *p->options ? " " : "",
		 p->options);
}

static const struct kscen_param sng_table[] = {
	{ .name = "stressor", .type = KSCEN_P_STRING, .def = NULL,
	  .offset = offsetof(struct sng_params, stressor),
	  .help = "stress-ng stressor: cpu, vm, switch, futex, ..." },
	{ .name = "workers", .type = KSCEN_P_INT, .def = "1", .min = 0, .max = 4096,
	  .offset = offsetof(struct sng_params, workers),
	  .help = "instances of the stressor; 0: one per CPU (stress-ng's N)" },
	{ .name = "timeout", .type = KSCEN_P_TIME, .def = "5s",
	  .min = 1000000000LL, .max = 86400000000000LL,
	  .offset = offsetof(struct sng_params, timeout),
	  .help = "how long it runs, whole seconds (--timeout)" },
	{ .name = "options", .type = KSCEN_P_STRING, .def = "",
	  .offset = offsetof(struct sng_params, options),
	  .help = "more stress-ng options, split on blanks: \"--cpu-method fft\"" },
	{ .name = "stress_ng", .type = KSCEN_P_STRING, .def = "stress-ng",
	  .offset = offsetof(struct sng_params, stress_ng),
	  .help = "the stress-ng binary (PATH searched)" },
};

static const struct kscen_metric_desc sng_metrics[] = {
	{ .name = "bogo ops/s", .unit = "bogo ops/s", .better = KSCEN_HIGHER },
	{ .name = "bogo ops/s usr+sys", .unit = "bogo ops/s", .better = KSCEN_HIGHER },
	{ .name = "bogo ops", .unit = "bogo ops", .better = KSCEN_HIGHER },
};

const struct kscen_workload kscen_wl_stress_ng = {
	.name = "stress_ng",
	.summary = "a stress-ng stressor: bogo ops/s, real and usr+sys time (--metrics --yaml)",
	.version = 1,
	.params = sng_table,
	.nr_params = ARRAY_SIZE(sng_table),
	.params_size = sizeof(struct sng_params),
	.metrics = sng_metrics,
	.nr_metrics = ARRAY_SIZE(sng_metrics),
	.check = sng_check,
	.supported = sng_supported,
	.sample = sng_sample,
	.describe = sng_describe,
};
