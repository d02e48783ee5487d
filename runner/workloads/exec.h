/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exec.h - what exec.c (the parameters, their checks, the command's words,
 * setup) and exec_run.c (running the command, reading its metrics) share.
 * Private to those two files.
 */
#ifndef KSCEN_EXEC_H
#define KSCEN_EXEC_H

#include <regex.h>
#include <stdbool.h>

#include "workload.h"
#include "lib/child.h"

struct exec_params {
	char *command;
	char *metric_regex;	/* "": the wall time is the primary metric */
	char *metric_name;
	char *metric_unit;
	int metric_better;	/* index into "lower|higher" */
	char *json;		/* "": no JSON; else the metric's path */
	int shell;		/* index into "auto|true|false" */
};

enum { SHELL_AUTO, SHELL_TRUE, SHELL_FALSE };

struct exec_state {
	/* metric_regex, or the job's metrics: list, in the order of the metrics */
	regex_t re[KSCEN_MAX_METRICS];
	unsigned nr_re;
	/* the command's words when it runs without a shell (NULL: by sh -c) */
	char **words;
	char *words_buf;
	/* stdout and stderr, max + 1 bytes each, NUL-terminated */
	struct kscen_child_output out, err;
};

static inline bool has_regex(const struct exec_params *p)
{
	return p->metric_regex && *p->metric_regex;
}

static inline bool has_json(const struct exec_params *p)
{
	return p->json && *p->json;
}

/* A captured metric, by regex or by JSON path. */
static inline bool has_capture(const struct exec_params *p)
{
	return has_regex(p) || has_json(p);
}

/* exec_run.c: @n bytes of command output, cleaned into @buf for a reason. */
void exec_clean_copy(char *buf, size_t len, const char *src, size_t n);
int exec_sample(struct kscen_ctx *ctx, double *values);

#endif
