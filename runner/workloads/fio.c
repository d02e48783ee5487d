// SPDX-License-Identifier: GPL-2.0
/*
 * fio.c - the fio adapter: run fio once per sample with a job file and/or
 * inline options and --output-format=json, and take one fio job's results:
 * IOPS and bandwidth (read + write + trim) and the completion-latency
 * percentiles p50, p99 and p99.9 of the direction that moved the most bytes.
 * `job` names the fio job (default the first one; with group_reporting fio
 * folds the group into one). A fio job file of several jobs becomes one
 * kscen job per fio job with `job` as an axis; each runs the whole file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "lib/util.h"
#include "json_path.h"
#include "tool.h"


struct fio_params {
	char *job_file, *options, *job, *fio;
};

static int fio_check(const void *params, char *err, size_t len)
{
	const struct fio_params *p = params;

	if (!*p->job_file && !*p->options) {
		snprintf(err, len, "job_file or options: give a fio job file, inline options, or both");
		return -EINVAL;
	}
	if (strstr(p->options, "--output-format") || strstr(p->options, "--output=")) {
		snprintf(err, len, "options: kscen sets --output-format=json and reads stdout");
		return -EINVAL;
	}
	return 0;
}

static int fio_supported(struct kscen_ctx *ctx)
{
	const struct fio_params *p = ctx->params;

	if (*p->job_file && access(p->job_file, R_OK))
		return kscen_reason(ctx, -errno, "job_file %s: %s", p->job_file,
				    strerror(errno));
	return kscen_tool_supported(ctx, p->fio, "fio");
}

static json_t *find_job(json_t *root, const char *name)
{
	json_t *jobs = json_object_get(root, "jobs"), *j;
	size_t i;

	json_array_foreach(jobs, i, j) {
		const char *n = json_string_value(json_object_get(j, "jobname"));

		if (!*name || (n && !strcmp(n, name)))
			return j;
	}
	return NULL;
}

static double num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static int fio_parse(struct kscen_ctx *ctx, const struct fio_params *p,
		     const char *out, double *values)
{
	static const char *const dirs[] = { "read", "write", "trim" };
	static const char *const pct[] = { "50.000000", "99.000000", "99.900000" };
	const char *start = strstr(out, "{\n");
	json_t *root, *job, *best = NULL, *clat;
	double iops = 0, bw = 0, most = -1;
	json_error_t jerr;
	int ret = 0;

	/* fio may print a warning line or two before the document. */
	root = start ? json_loads(start, JSON_DISABLE_EOF_CHECK, &jerr) : NULL;
	if (!root)
		return kscen_reason(ctx, -EBADMSG, "fio printed no JSON document%s%s",
				    start ? ": " : "", start ? jerr.text : "");
	job = find_job(root, p->job);
	if (!job) {
		ret = kscen_reason(ctx, -ENOENT, "fio printed no job named \"%s\"",
				   p->job);
		goto out;
	}
	if (num(job, "error")) {
		ret = kscen_reason(ctx, -EIO, "fio job %s: error %g",
				   json_string_value(json_object_get(job, "jobname")),
				   num(job, "error"));
		goto out;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(dirs); i++) {
		json_t *d = json_object_get(job, dirs[i]);

		if (!d)
			continue;
		iops += num(d, "iops");
		bw += num(d, "bw_bytes");
		if (num(d, "io_bytes") > most) {
			most = num(d, "io_bytes");
			best = d;
		}
	}
	if (most <= 0) {
		ret = kscen_reason(ctx, -ENODATA, "fio job %s moved no bytes", p->job);
		goto out;
	}
	values[0] = iops;
	values[1] = bw / (1024.0 * 1024.0);
	clat = json_object_get(json_object_get(best, "clat_ns"), "percentile");
	for (unsigned i = 0; i < ARRAY_SIZE(pct); i++) {
		json_t *v = json_object_get(clat, pct[i]);

		if (!json_is_number(v)) {
			ret = kscen_reason(ctx, -ENODATA,
					   "fio reported no clat percentile %s (set percentile_list?)",
					   pct[i]);
			goto out;
		}
		values[2 + i] = json_number_value(v) / 1e3;
	}
out:
	json_decref(root);
	return ret;
}

static int fio_sample(struct kscen_ctx *ctx, double *values)
{
	const struct fio_params *p = ctx->params;
	struct kscen_tool_out o;
	char **argv = NULL;
	unsigned n = 0;
	int ret;

	n = kscen_tool_split(&argv, n, p->fio);
	n = kscen_tool_split(&argv, n, "--output-format=json");
	n = kscen_tool_split(&argv, n, p->options);
	if (*p->job_file) {
		argv = kscen_xrealloc(argv, (n + 2) * sizeof(*argv));
		argv[n++] = kscen_xstrdup(p->job_file);
		argv[n] = NULL;
	}
	ret = kscen_tool_run(ctx, argv, &o);
	if (!ret)
		ret = fio_parse(ctx, p, o.out, values);
	kscen_tool_out_fini(&o);
	for (unsigned i = 0; i < n; i++)
		free(argv[i]);
	free(argv);
	return ret;
}

static void fio_describe(const void *params, char *buf, size_t len)
{
	const struct fio_params *p = params;

	snprintf(buf, len, "fio%s%s%s%s, job %s", *p->options ? " " : "",
		 p->options, *p->job_file ? " " : "", p->job_file,
		 *p->job ? p->job : "(the first)");
}

static const struct kscen_param fio_table[] = {
	{ .name = "job_file", .type = KSCEN_P_STRING, .def = "",
	  .offset = offsetof(struct fio_params, job_file),
	  .help = "fio job file (path)" },
	{ .name = "options", .type = KSCEN_P_STRING, .def = "",
	  .offset = offsetof(struct fio_params, options),
	  .help = "fio command-line options, split on blanks: \"--name=r --rw=randread --size=64M\"" },
	{ .name = "job", .type = KSCEN_P_STRING, .def = "",
	  .offset = offsetof(struct fio_params, job),
	  .help = "the fio job whose results are taken; \"\": the first" },
	{ .name = "fio", .type = KSCEN_P_STRING, .def = "fio",
	  .offset = offsetof(struct fio_params, fio),
	  .help = "the fio binary (PATH searched)" },
};

static const struct kscen_metric_desc fio_metrics[] = {
	{ .name = "iops", .unit = "IOPS", .better = KSCEN_HIGHER },
	{ .name = "bandwidth", .unit = "MiB/s", .better = KSCEN_HIGHER },
	{ .name = "clat p50", .unit = "usec", .better = KSCEN_LOWER },
	{ .name = "clat p99", .unit = "usec", .better = KSCEN_LOWER },
	{ .name = "clat p99.9", .unit = "usec", .better = KSCEN_LOWER },
};

const struct kscen_workload kscen_wl_fio = {
	.name = "fio",
	.summary = "a fio job: IOPS, bandwidth, clat p50/p99/p99.9 (fio --output-format=json)",
	.version = 1,
	.params = fio_table,
	.nr_params = ARRAY_SIZE(fio_table),
	.params_size = sizeof(struct fio_params),
	.metrics = fio_metrics,
	.nr_metrics = ARRAY_SIZE(fio_metrics),
	.check = fio_check,
	.supported = fio_supported,
	.sample = fio_sample,
	.describe = fio_describe,
};
