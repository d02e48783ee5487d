// SPDX-License-Identifier: GPL-2.0
/*
 * exec.c - the "exec" workload: run a shell command once per sample.
 * Its samples are taken inline (sampler.h): the command is the sample's
 * process, started by the runner, with no kscen process around it.
 *
 * The command runs under /bin/sh -c with kscen's environment. By default a
 * sample is the command's wall time. With metric_regex set, the number that
 * the regex captures from the command's stdout becomes the primary metric
 * (for tools that print their own result, such as "perf bench -f simple"),
 * and the wall time becomes the second metric. With json set instead, the
 * metric is the number at that path (".results[0].mean") in the JSON
 * document the command prints on stdout (hyperfine --export-json
 * /dev/stdout, Google Benchmark --benchmark_format=json, ...), read with
 * jansson. A job's metrics: list captures several numbers, each by its
 * own regex, as the first metrics (ctx->captures). The command's stdout and
 * stderr are read into capped buffers, so a chatty command never blocks on a
 * full pipe. The last line of stderr explains a failure.
 *
 * The regexes are matched in a child process with a CPU and a memory
 * limit, within the sample's deadline and stopped at once by ^C: glibc's
 * regexec() is superlinear for some patterns ((a*)x took 20 s on 64 KiB of
 * output, and ignored the timeout and ^C for more than 30 s on 256 KiB),
 * and no call stops it in the runner.
 *
 * Here: the parameters and their checks, whether the command needs sh and
 * its words, setup; exec_run.c runs the command and reads its metrics, and
 * exec.h holds what the two share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "json_path.h"
#include "registry.h"
#include "lib/util.h"

#define EXEC_OUTPUT_MAX		(1 << 20)	/* bytes kept of stdout, read for metrics */
#define EXEC_UNREAD_MAX		4096		/* of stdout when no metric is read from it */
#define EXEC_STDERR_MAX		(64 << 10)	/* of stderr: its last line explains a failure */
#define EXEC_DESCRIBE_MAX	60	/* of the command, in describe() */

#define P(field) offsetof(struct exec_params, field)

static const struct kscen_param exec_param_table[] = {
	{ .name = "command", .type = KSCEN_P_STRING, .offset = P(command),
	  .def = NULL,
	  .help = "command run once per sample: split into words and run directly, or by /bin/sh -c (see shell)" },
	{ .name = "metric_regex", .type = KSCEN_P_STRING,
	  .offset = P(metric_regex), .def = "",
	  .help = "POSIX ERE with one group; its first match in stdout is the metric (^ and $ match at lines)" },
	{ .name = "metric_name", .type = KSCEN_P_STRING,
	  .offset = P(metric_name), .def = "value",
	  .help = "name of the metric that metric_regex captures" },
	{ .name = "metric_unit", .type = KSCEN_P_STRING,
	  .offset = P(metric_unit), .def = "",
	  .help = "unit of the metric that metric_regex captures" },
	{ .name = "metric_better", .type = KSCEN_P_ENUM,
	  .offset = P(metric_better), .def = "lower", .choices = "lower|higher",
	  .help = "whether a lower or a higher captured value is better" },
	{ .name = "json", .type = KSCEN_P_STRING, .offset = P(json), .def = "",
	  .help = "path of the metric in the JSON document on stdout: .results[0].mean" },
	{ .name = "shell", .type = KSCEN_P_ENUM, .offset = P(shell), .def = "auto",
	  .choices = "auto|true|false",
	  .help = "run command by /bin/sh -c: auto (only when it has shell syntax), true, false (split at blanks)" },
};

static const struct kscen_metric_desc exec_metrics[] = {
	{ .name = "wall_time", .unit = "s", .better = KSCEN_LOWER },
	/* getrusage() of the command and what it waited for (wait4()) */
	{ .name = "user_time", .unit = "s", .better = KSCEN_LOWER },
	{ .name = "sys_time", .unit = "s", .better = KSCEN_LOWER },
};

/* ---- Params ---- */

static int exec_check(const void *params, char *err, size_t len)
{
	const struct exec_params *p = params;
	regex_t re;
	int ret;

	if (kscen_blank(p->command)) {
		snprintf(err, len, "command: must not be empty");
		return -EINVAL;
	}
	if (has_regex(p) && has_json(p)) {
		snprintf(err, len, "json: give metric_regex or json, not both");
		return -EINVAL;
	}
	if (has_json(p)) {
		char msg[160];

		if (kscen_json_path_check(p->json, msg, sizeof(msg))) {
			snprintf(err, len, "json: %s", msg);
			return -EINVAL;
		}
	}
	if (!has_capture(p))
		return 0;
	if (kscen_blank(p->metric_name)) {
		snprintf(err, len, "metric_name: must not be empty");
		return -EINVAL;
	}
	if (!strcmp(p->metric_name, exec_metrics[0].name)) {
		snprintf(err, len,
			 "metric_name: \"%s\" names the second metric, the command's wall time",
			 exec_metrics[0].name);
		return -EINVAL;
	}
	if (!has_regex(p))
		return 0;
	ret = kscen_metric_regex(&re, p->metric_regex, "metric_regex", err, len);
	if (!ret)
		regfree(&re);
	return ret;
}

/* With a regex or json, its capture comes first and the wall time second. */
static unsigned exec_job_metrics(const void *params,
				 struct kscen_metric_desc *m)
{
	const struct exec_params *p = params;

	if (!has_capture(p)) {
		memcpy(m, exec_metrics, sizeof(exec_metrics));
		return ARRAY_SIZE(exec_metrics);
	}
	memcpy(m + 1, exec_metrics, sizeof(exec_metrics));
	m[0].name = p->metric_name;
	m[0].unit = p->metric_unit ? p->metric_unit : "";
	m[0].better = p->metric_better == 1 ? KSCEN_HIGHER : KSCEN_LOWER;
	return 1 + ARRAY_SIZE(exec_metrics);
}

/* Is the first word, @len bytes at @w, a program execvp() would find? */
static bool on_path(const char *w, size_t len)
{
	const char *path = getenv("PATH"), *d;
	char buf[4096];
	bool found = false;

	if (memchr(w, '/', len))
		return true;	/* a path: execvp() runs it as it is */
	for (d = path && *path ? path : "/usr/bin:/bin"; d && !found;
	     d = strchr(d, ':') ? strchr(d, ':') + 1 : NULL) {
		size_t dl = strcspn(d, ":");

		if ((size_t)snprintf(buf, sizeof(buf), "%.*s/%.*s", (int)dl, dl ? d : ".",
				     (int)len, w) < sizeof(buf))
			found = !access(buf, X_OK);
	}
	return found;
}

/*
 * Does @cmd need /bin/sh? Any character the shell gives a meaning to
 * (quotes, expansions, redirections, globs, separators, comments), a
 * variable assignment, a reserved word or a builtin first (also one a
 * program of the same name exists for: dash's echo prints "-e", coreutils'
 * reads it), or a first word that is no program on PATH: then sh runs it.
 * What is left is words between blanks, which execvp() runs as sh would.
 */
static bool needs_shell(const char *cmd)
{
	/* reserved words, and the builtins of dash and bash */
	static const char *const reserved[] = {
		"!", "{", "}", "[[", "case", "do", "done", "elif", "else", "esac", "fi",
		"for", "function", "if", "in", "select", "then", "time", "until", "while",
		".", ":", "[", "alias", "bg", "break", "builtin", "cd", "chdir", "command",
		"continue", "declare", "echo", "eval", "exec", "exit", "export", "false",
		"fc", "fg", "getopts", "hash", "jobs", "kill", "let", "local", "printf",
		"pwd", "read", "readonly", "return", "set", "shift", "source", "test",
		"times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias",
		"unset", "wait",
	};
	size_t first = strcspn(cmd + strspn(cmd, " \t"), " \t");
	const char *w = cmd + strspn(cmd, " \t");

	if (strpbrk(cmd, "|&;<>()$`\\\"'*?[#~\n") || !first)
		return true;
	if (memchr(w, '=', first))
		return true;
	for (unsigned i = 0; i < ARRAY_SIZE(reserved); i++)
		if (strlen(reserved[i]) == first && !strncmp(w, reserved[i], first))
			return true;
	/* not a program sh would find: let sh say so, or run its builtin */
	return !on_path(w, first);
}

static bool use_shell(const struct exec_params *p)
{
	return p->shell == SHELL_TRUE || (p->shell == SHELL_AUTO && needs_shell(p->command));
}

/* @cmd's words between blanks, NULL-terminated, in one allocation each. */
static char **split_words(const char *cmd, char **buf)
{
	size_t n = 0, max = strlen(cmd) / 2 + 2;
	char **words = calloc(max, sizeof(*words)), *save = NULL, *w;

	*buf = strdup(cmd);
	if (!words || !*buf) {
		free(words);
		free(*buf);
		*buf = NULL;
		return NULL;
	}
	for (w = strtok_r(*buf, " \t", &save); w && n + 1 < max;
	     w = strtok_r(NULL, " \t", &save))
		words[n++] = w;
	return words;
}

static void exec_describe(const void *params, char *buf, size_t len)
{
	const struct exec_params *p = params;
	const char *cmd = p->command ? p->command : "";
	char shown[EXEC_DESCRIBE_MAX + 1];

	exec_clean_copy(shown, sizeof(shown), cmd, strlen(cmd));
	snprintf(buf, len, "exec: %s (%s)", shown, use_shell(p) ? "sh -c" : "no shell");
}

/* ---- Setup and teardown ---- */

static void exec_state_free(struct exec_state *st)
{
	if (!st)
		return;
	for (unsigned i = 0; i < st->nr_re; i++)
		regfree(&st->re[i]);
	free(st->out.data);
	free(st->err.data);
	free(st->words);
	free(st->words_buf);
	free(st);
}

static int exec_setup(struct kscen_ctx *ctx)
{
	const struct exec_params *p = ctx->params;
	char err[KSCEN_REASON_MAX];
	struct exec_state *st;

	/*
	 * What is kept of stdout only matters when a metric is read from it:
	 * small buffers otherwise, which the heap has again for the next
	 * sample, where a MiB each would be mapped and faulted in anew.
	 */
	st = calloc(1, sizeof(*st));
	if (st) {
		st->out.max = has_capture(p) || ctx->nr_captures ? EXEC_OUTPUT_MAX :
			      EXEC_UNREAD_MAX;
		st->err.max = EXEC_STDERR_MAX;
		st->out.data = malloc(st->out.max + 1);
		st->err.data = malloc(st->err.max + 1);
	}
	if (!st || !st->out.data || !st->err.data) {
		exec_state_free(st);
		return kscen_reason(ctx, -ENOMEM, "exec: out of memory");
	}
	/* Split now: only the command's own run is timed. */
	if (!use_shell(p) && !(st->words = split_words(p->command, &st->words_buf))) {
		exec_state_free(st);
		return kscen_reason(ctx, -ENOMEM, "exec: out of memory");
	}
	st->err.keep_tail = true;
	for (unsigned i = 0; i < (has_regex(p) ? 1 : ctx->nr_captures); i++) {
		const char *re = has_regex(p) ? p->metric_regex : ctx->captures[i].regex;

		if (kscen_metric_regex(&st->re[i], re, "regex", err, sizeof(err))) {
			exec_state_free(st);
			return kscen_reason(ctx, -EINVAL, "%s", err);
		}
		st->nr_re++;
	}
	ctx->priv = st;
	return 0;
}

static void exec_teardown(struct kscen_ctx *ctx)
{
	exec_state_free(ctx->priv);
	ctx->priv = NULL;
}

static int exec_check_captures(const void *params, unsigned nr, char *err,
			       size_t len)
{
	const struct exec_params *p = params;

	(void)nr;
	if (has_capture(p)) {
		snprintf(err, len, "give metric_regex or json, or a metrics: list, not both");
		return -EINVAL;
	}
	return 0;
}

const struct kscen_workload kscen_wl_exec = {
	.name = "exec",
	.summary = "run a shell command: its wall time, or numbers it prints",
	.version = 3,	/* 3: the command is the sample's process (2: without sh) */
	.params = exec_param_table,
	.nr_params = ARRAY_SIZE(exec_param_table),
	.params_size = sizeof(struct exec_params),
	.metrics = exec_metrics,
	.nr_metrics = ARRAY_SIZE(exec_metrics),
	.job_metrics = exec_job_metrics,
	.check = exec_check,
	.check_captures = exec_check_captures,
	.setup = exec_setup,
	.sample = exec_sample,
	.teardown = exec_teardown,
	.describe = exec_describe,
};
