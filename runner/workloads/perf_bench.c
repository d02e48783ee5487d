// SPDX-License-Identifier: GPL-2.0
/*
 * perf_bench.c - the perf.bench adapter: any `perf bench` benchmark, run as
 * `perf bench -f simple <collection> <benchmark> <args>` once per sample,
 * its result read from its own output. No regex to write: the metric, its
 * unit and which way is better come from a table of what each benchmark
 * prints (the sources under tools/perf/bench/), so they are known when the scenario is
 * loaded. With -f simple the sched, syscall and breakpoint benchmarks print
 * their total time in seconds and mem memcpy/memset bytes/sec (cycles/Byte
 * with -c); the futex and epoll ones print their summary line, whose number
 * is taken. A benchmark missing from the table gives its last bare number
 * as "value".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "tool.h"


struct pb_params {
	char *collection, *benchmark, *args, *perf;
	long long repeat;
};

/* Where a metric is in the output: see pb_find(). */
struct pb_metric {
	struct kscen_metric_desc d;
	const char *prefix;	/* the last line starting with this; NULL: bare number */
	const char *contains;	/* ... and containing this */
	const char *marker;	/* the number follows this in the line */
};

struct pb_rule {
	const char *collection, *benchmark;	/* NULL benchmark: any */
	struct pb_metric m[3];
	unsigned nr;
};

#define LOWER KSCEN_LOWER
#define HIGHER KSCEN_HIGHER
#define BARE(n, u, b) { { n, u, b }, NULL, NULL, NULL }
#define LINE(n, u, b, pre, has, mark) { { n, u, b }, pre, has, mark }

static const struct pb_rule pb_rules[] = {
	{ "sched", "messaging", { BARE("seconds", "s", LOWER) }, 1 },
	{ "sched", "pipe", { BARE("seconds", "s", LOWER) }, 1 },
	{ "sched", "seccomp-notify", { BARE("seconds", "s", LOWER) }, 1 },
	{ "syscall", NULL, { BARE("seconds", "s", LOWER) }, 1 },
	{ "breakpoint", NULL, { BARE("seconds", "s", LOWER) }, 1 },
	{ "mem", "memcpy", { BARE("bytes/sec", "B/s", HIGHER) }, 1 },
	{ "mem", "memset", { BARE("bytes/sec", "B/s", HIGHER) }, 1 },
	{ "mem", "find_bit", {
		LINE("for_each_set_bit usec", "usec", LOWER,
		     "Average for_each_set_bit took:", "", ":"),
		LINE("test_bit loop usec", "usec", LOWER,
		     "Average test_bit loop took:", "", ":") }, 2 },
	{ "futex", "hash", { LINE("ops/sec", "ops/sec", HIGHER,
				  "Averaged", "", "Averaged") }, 1 },
	{ "futex", "lock-pi", { LINE("ops/sec", "ops/sec", HIGHER,
				     "Averaged", "", "Averaged") }, 1 },
	{ "futex", "wake", { LINE("msecs", "ms", LOWER,
				  "Wokeup", "", " in ") }, 1 },
	{ "futex", "wake-parallel", { LINE("msecs per waker", "ms", LOWER,
					   "Avg per-thread latency", "", " in ") }, 1 },
	{ "futex", "requeue", { LINE("msecs", "ms", LOWER,
				     "Requeued", "", " in ") }, 1 },
	{ "epoll", "wait", { LINE("ops/sec", "ops/sec", HIGHER,
				  "Averaged", "", "Averaged") }, 1 },
	{ "epoll", "ctl", {
		LINE("ADD operations", "ops", HIGHER, "Averaged", " ADD ", "Averaged"),
		LINE("MOD operations", "ops", HIGHER, "Averaged", " MOD ", "Averaged"),
		LINE("DEL operations", "ops", HIGHER, "Averaged", " DEL ", "Averaged") }, 3 },
	{ "internals", "synthesize", {
		LINE("synthesis usec", "usec", LOWER,
		     "Average synthesis took:", "", ":"),
		LINE("data synthesis usec", "usec", LOWER,
		     "Average data synthesis took:", "", ":") }, 2 },
};

static const struct pb_metric pb_generic = BARE("value", "", LOWER);
static const struct pb_metric pb_cycles = BARE("cycles/Byte", "cycles/Byte", LOWER);

static bool has_word(const char *args, const char *w1, const char *w2)
{
	char *copy = kscen_xstrdup(args ? args : ""), *save, *t;
	bool found = false;

	for (t = strtok_r(copy, " \t", &save); t && !found;
	     t = strtok_r(NULL, " \t", &save))
		found = !strcmp(t, w1) || !strcmp(t, w2);
	free(copy);
	return found;
}

/* The metrics of @p's benchmark; *nr of them. */
static const struct pb_metric *pb_metrics_of(const struct pb_params *p,
					     unsigned *nr)
{
	*nr = 1;
	if (!strcmp(p->collection, "mem") && has_word(p->args, "-c", "--cycles"))
		return &pb_cycles;
	for (unsigned i = 0; i < ARRAY_SIZE(pb_rules); i++) {
		const struct pb_rule *r = &pb_rules[i];

		if (strcmp(r->collection, p->collection) ||
		    (r->benchmark && strcmp(r->benchmark, p->benchmark)))
			continue;
		*nr = r->nr;
		return r->m;
	}
	return &pb_generic;
}

static unsigned pb_job_metrics(const void *params, struct kscen_metric_desc *m)
{
	const struct pb_metric *pm;
	unsigned nr;

	pm = pb_metrics_of(params, &nr);
	for (unsigned i = 0; i < nr; i++)
		m[i] = pm[i].d;
	return nr;
}

static int pb_check(const void *params, char *err, size_t len)
{
	const struct pb_params *p = params;

	if (!*p->collection || strpbrk(p->collection, " \t")) {
		snprintf(err, len, "collection: one word, as in `perf bench sched`");
		return -EINVAL;
	}
	if (!*p->benchmark || strpbrk(p->benchmark, " \t")) {
		snprintf(err, len, "benchmark: one word, as in `perf bench sched pipe`");
		return -EINVAL;
	}
	if (!strcmp(p->benchmark, "all")) {
		snprintf(err, len, "benchmark: 'all' prints several results; name one benchmark a job");
		return -EINVAL;
	}
	return 0;
}

static int pb_supported(struct kscen_ctx *ctx)
{
	const struct pb_params *p = ctx->params;

	return kscen_tool_supported(ctx, p->perf, "linux-perf");
}

/* A number, and nothing but blanks around it? */
static bool bare_number(const char *s, size_t n, double *v)
{
	char buf[64], *end;

	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtod(buf, &end);
	return end == buf + n && isfinite(*v);
}

static int pb_find(struct kscen_ctx *ctx, const char *out,
		   const struct pb_metric *m, double *v)
{
	const char *line = out, *found = NULL, *num, *end;
	char *stop;

	for (; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *eol = strchrnul(line, '\n'), *p = line;
		double x;

		if (!m->prefix) {
			/* The first bare number: mem's first function. */
			if (bare_number(line, eol - line, &x)) {
				*v = x;
				return 0;
			}
			continue;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, m->prefix, strlen(m->prefix)))
			continue;
		if (*m->contains && !memmem(p, eol - p, m->contains,
					    strlen(m->contains)))
			continue;
		found = p;
	}
	if (!m->prefix)
		return kscen_reason(ctx, -ENOMSG,
				    "perf bench printed no bare number for %s", m->d.name);
	if (!found)
		return kscen_reason(ctx, -ENOMSG,
				    "perf bench printed no line starting \"%s\"", m->prefix);
	end = strchrnul(found, '\n');
	num = memmem(found, end - found, m->marker, strlen(m->marker));
	if (num) {
		*v = strtod(num + strlen(m->marker), &stop);
		if (stop != num + strlen(m->marker) && isfinite(*v))
			return 0;
	}
	return kscen_reason(ctx, -EBADMSG, "no number after \"%s\" in \"%.*s\"",
			    m->marker, (int)(end - found > 100 ? 100 : end - found),
			    found);
}

static int pb_sample(struct kscen_ctx *ctx, double *values)
{
	const struct pb_params *p = ctx->params;
	const struct pb_metric *m;
	struct kscen_tool_out o;
	const char *err;
	char **argv = NULL;
	unsigned n = 0, nr;
	int ret;

	n = kscen_tool_split(&argv, n, p->perf);
	n = kscen_tool_split(&argv, n, "bench -f simple");
	if (p->repeat) {
		char r[32];

		snprintf(r, sizeof(r), "-r %lld", p->repeat);
		n = kscen_tool_split(&argv, n, r);
	}
	n = kscen_tool_split(&argv, n, p->collection);
	n = kscen_tool_split(&argv, n, p->benchmark);
	n = kscen_tool_split(&argv, n, p->args);
	ret = kscen_tool_run(ctx, argv, &o);
	m = pb_metrics_of(p, &nr);
	for (unsigned i = 0; i < nr && !ret; i++)
		ret = pb_find(ctx, o.out, &m[i], &values[i]);
	/* perf bench names a bad option on stderr above its usage. */
	if (ret == -EIO && (err = kscen_tool_last_line(o.err, "Error:")))
		ret = kscen_reason(ctx, -EINVAL, "perf bench %s %s: %.*s",
				   p->collection, p->benchmark,
				   (int)strcspn(err, "\n"), err);
	if (ret == -ENOMSG && strstr(o.out, "Usage: perf bench"))
		ret = kscen_reason(ctx, -EINVAL, "perf bench %s %s: bad args \"%s\"",
				   p->collection, p->benchmark, p->args);
	kscen_tool_out_fini(&o);
	for (unsigned i = 0; i < n; i++)
		free(argv[i]);
	free(argv);
	return ret;
}

static void pb_describe(const void *params, char *buf, size_t len)
{
	const struct pb_params *p = params;

	char r[32] = "";

	if (p->repeat)
		snprintf(r, sizeof(r), " -r %lld", p->repeat);
	snprintf(buf, len, "perf bench -f simple%s %s %s%s%s", r, p->collection,
		 p->benchmark, *p->args ? " " : "", p->args);
}

static const struct kscen_param pb_table[] = {
	{ .name = "collection", .type = KSCEN_P_STRING, .def = NULL,
	  .offset = offsetof(struct pb_params, collection),
	  .help = "perf bench collection: sched, syscall, mem, futex, epoll, ..." },
	{ .name = "benchmark", .type = KSCEN_P_STRING, .def = NULL,
	  .offset = offsetof(struct pb_params, benchmark),
	  .help = "benchmark in the collection: pipe, basic, memcpy, hash, ..." },
	{ .name = "args", .type = KSCEN_P_STRING, .def = "",
	  .offset = offsetof(struct pb_params, args),
	  .help = "its options, split on blanks: \"-l 100000 -T\"" },
	{ .name = "repeat", .type = KSCEN_P_INT, .def = "0",
	  .offset = offsetof(struct pb_params, repeat), .min = 0, .max = 1000000,
	  .help = "perf bench's own -r (futex wake/requeue rounds); 0: perf's default" },
	{ .name = "perf", .type = KSCEN_P_STRING, .def = "perf",
	  .offset = offsetof(struct pb_params, perf),
	  .help = "the perf binary (PATH searched)" },
};

static const struct kscen_metric_desc pb_default_metrics[] = {
	{ .name = "value", .unit = "", .better = KSCEN_LOWER },
};

const struct kscen_workload kscen_wl_perf_bench = {
	.name = "perf.bench",
	.summary = "any perf bench benchmark through perf bench -f simple, unit detected",
	.version = 1,
	.params = pb_table,
	.nr_params = ARRAY_SIZE(pb_table),
	.params_size = sizeof(struct pb_params),
	.metrics = pb_default_metrics,
	.nr_metrics = ARRAY_SIZE(pb_default_metrics),
	.job_metrics = pb_job_metrics,
	.check = pb_check,
	.supported = pb_supported,
	.sample = pb_sample,
	.describe = pb_describe,
};
