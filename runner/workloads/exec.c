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
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "workload.h"
#include "json_path.h"
#include "lib/child.h"
#include "registry.h"
#include "lib/util.h"


#define EXEC_OUTPUT_MAX		(1 << 20)	/* bytes kept of stdout, read for metrics */
#define EXEC_UNREAD_MAX		4096		/* of stdout when no metric is read from it */
#define EXEC_STDERR_MAX		(64 << 10)	/* of stderr: its last line explains a failure */
#define EXEC_LINE_MAX		120	/* of stderr, in a failure reason */
#define EXEC_EXCERPT_MAX	80	/* of stdout, when metric_regex fails */
#define EXEC_DESCRIBE_MAX	60	/* of the command, in describe() */
#define EXEC_MATCH_MEM		(512LL << 20)	/* address space a match may add */
#define EXEC_MATCH_CPU_S	3600	/* CPU seconds without an inline deadline */

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

static bool has_regex(const struct exec_params *p)
{
	return p->metric_regex && *p->metric_regex;
}

static bool has_json(const struct exec_params *p)
{
	return p->json && *p->json;
}

/* A captured metric, by regex or by JSON path. */
static bool has_capture(const struct exec_params *p)
{
	return has_regex(p) || has_json(p);
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/*
 * Copy @n bytes of command output into @buf for a reason. Reasons end up in
 * YAML results, which must be valid UTF-8, and must stay on one line: a
 * newline becomes "\n", other control characters and invalid bytes '?'.
 * What does not fit is cut at a character boundary and marked "...".
 */
static void clean_copy(char *buf, size_t len, const char *src, size_t n)
{
	size_t i = 0, o = 0, cut = 0, w, step;
	const char *rep;

	if (len < 4) {
		if (len)
			buf[0] = '\0';
		return;
	}
	while (i < n) {
		unsigned char ch = src[i];

		step = w = 1;
		rep = src + i;
		if (ch == '\n') {
			rep = "\\n";
			w = 2;
		} else if (ch == '\t') {
			rep = " ";
		} else if (ch < 0x20 || ch == 0x7f) {
			rep = "?";
		} else if (ch >= 0x80) {
			step = w = kscen_utf8_len_n(src + i, n - i);
			if (!w) {
				rep = "?";
				step = w = 1;
			}
		}
		if (o + w + 1 > len) {
			memcpy(buf + cut, "...", 4);
			return;
		}
		memcpy(buf + o, rep, w);
		o += w;
		i += step;
		if (o + 4 <= len)
			cut = o;
	}
	buf[o] = '\0';
}

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

	clean_copy(shown, sizeof(shown), cmd, strlen(cmd));
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

/* ---- Running the command ---- */

/* The command under /bin/sh, its stdout and stderr into pipes of ours. */
static int exec_spawn(struct kscen_ctx *ctx, const char *command,
		      const struct exec_state *st, struct kscen_child *c,
		      const struct kscen_inline_sample *in)
{
	static const char *const sh[] = { "/bin/sh", "-c", NULL, NULL };
	char *argv[4];
	int ret;

	memcpy(argv, sh, sizeof(argv));
	argv[2] = (char *)command;
	/*
	 * In a sample process the command stays in its process group, so the
	 * runner's kill of the group on a timeout takes it and everything it
	 * started along. Taken inline (sampler.h), the command is the sample's
	 * process: its own group, in the sample's cgroup. The runner's stdin
	 * is not the command's to read.
	 */
	*c = (struct kscen_child){
		.argv = st->words ? st->words : argv, .in = KSCEN_CHILD_NULL,
		.out = KSCEN_CHILD_PIPE, .err = KSCEN_CHILD_PIPE,
		.flags = KSCEN_CHILD_PDEATHSIG | KSCEN_CHILD_CLEAN | KSCEN_CHILD_PIDFD |
			 (st->words ? KSCEN_CHILD_PATH : 0),
		.cgroup_procs = -1,
	};
	if (in) {
		c->flags |= KSCEN_CHILD_PGROUP;
		if (in->procs_fd >= 0) {
			c->flags |= KSCEN_CHILD_CGROUP;
			c->cgroup_procs = in->procs_fd;
		}
	}
	ret = kscen_child_start(c);
	if (ret)
		return kscen_reason(ctx, ret, "exec: starting %s: %s", c->argv[0],
				    strerror(-ret));
	return 0;
}

/*
 * Collect the command's output until it has exited: with a pidfd, until the
 * shell is reaped (then what the pipes hold: a background job may keep them
 * open); without one, until EOF on both pipes. Capped (kscen_child_capture).
 * Taken inline, until the sample's deadline or ^C: -ETIMEDOUT or -EINTR,
 * which the runner words as it does for a sample process.
 */
static int exec_wait(struct kscen_ctx *ctx, struct exec_state *st,
		     struct kscen_child *c, const struct kscen_inline_sample *in)
{
	struct kscen_child_output o[2] = { st->out, st->err };
	long long ms = -1;
	int ret;

	if (in) {
		ms = (in->deadline_ns - kscen_now_ns()) / 1000000;
		ms = ms > 0 ? ms : 0;
	}
	o[0].fd = c->out_fd;
	o[1].fd = c->err_fd;
	ret = kscen_child_capture(c, o, 2, ms, in ? in->stop : NULL);
	st->out = o[0];
	st->err = o[1];
	if (!ret)
		ret = kscen_child_finish(c, -1);
	if (ret == -ETIMEDOUT || ret == -EINTR)
		return ret;
	if (ret)
		return kscen_reason(ctx, ret, "exec: %s: %s", c->failed,
				    strerror(-ret));
	return 0;
}

/* ---- Results ---- */

/* The last non-blank line of @o, trimmed and cleaned; false if none. */
static bool last_line(const struct kscen_child_output *o, char *buf, size_t len)
{
	const char *s = o->data, *end = s + o->len, *start;

	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	start = end;
	while (start > s && start[-1] != '\n' && start[-1] != '\r')
		start--;
	while (start < end && isspace((unsigned char)*start))
		start++;
	if (start == end)
		return false;
	clean_copy(buf, len, start, end - start);
	return true;
}

static int exec_failed(struct kscen_ctx *ctx, const struct exec_state *st,
		       int status)
{
	char line[EXEC_LINE_MAX + 1], how[96];

	kscen_wait_status_text(status, how, sizeof(how));
	if (WIFEXITED(status) && last_line(&st->err, line, sizeof(line)))
		return kscen_reason(ctx, -EIO, "command %s: %s", how, line);
	return kscen_reason(ctx, -EIO, "command %s", how);
}

/* The capture must be a number and nothing else: not "12ms", not "1,234". */
static int parse_capture(struct kscen_ctx *ctx, const char *what, const char *s,
			 size_t len, double *value)
{
	char num[64], shown[64], *end;
	double v;

	if (len && len < sizeof(num) && !isspace((unsigned char)*s)) {
		memcpy(num, s, len);
		num[len] = '\0';
		v = strtod(num, &end);
		if (end == num + len && isfinite(v)) {
			*value = v;
			return 0;
		}
	}
	clean_copy(shown, sizeof(shown), s, len);
	return kscen_reason(ctx, -EBADMSG,
			    "%s captured \"%s\", which is not a number",
			    what, shown);
}

/* One regex's outcome, from the matching child. */
struct match {
	int rc;
	regmatch_t m[2];
};

struct match_job {
	const struct exec_state *st;
	int fd;			/* the results' pipe */
	long long cpu_s;
};

/* The address space this process has now, in bytes; 0 if unknown. */
static long long vm_size(void)
{
	char buf[64] = "";
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? atoll(buf) * sysconf(_SC_PAGESIZE) : 0;
}

/* In the matching child: every regex on stdout, the results to the pipe. */
static int match_fn(void *arg)
{
	const struct match_job *mj = arg;
	const struct kscen_child_output *o = &mj->st->out;
	struct match r[KSCEN_MAX_METRICS];
	struct rlimit cpu = { mj->cpu_s, mj->cpu_s + 1 };
	long long vm = vm_size();
	size_t len = mj->st->nr_re * sizeof(*r);

	setrlimit(RLIMIT_CPU, &cpu);
	if (vm) {
		struct rlimit as = { vm + EXEC_MATCH_MEM, vm + EXEC_MATCH_MEM };

		setrlimit(RLIMIT_AS, &as);
	}
	for (unsigned i = 0; i < mj->st->nr_re; i++) {
		/* REG_STARTEND: a NUL in the output must not end the search. */
		r[i].m[0].rm_so = 0;
		r[i].m[0].rm_eo = o->len;
		r[i].rc = regexec(&mj->st->re[i], o->data, ARRAY_SIZE(r[i].m), r[i].m,
				  REG_STARTEND);
	}
	return write(mj->fd, r, len) == (ssize_t)len ? 0 : 1;
}

/*
 * Match every regex of @st on stdout into @r, in a child: -ETIMEDOUT past
 * the inline sample's deadline, -EINTR on ^C (the child killed), or a
 * reason said when the child ends otherwise (its CPU or memory limit).
 */
static int exec_match_all(struct kscen_ctx *ctx, const struct exec_state *st,
			  const struct kscen_inline_sample *in, struct match *r)
{
	struct match_job mj = { .st = st, .cpu_s = EXEC_MATCH_CPU_S };
	struct kscen_child c = {
		.fn = match_fn, .arg = &mj, .in = KSCEN_CHILD_NULL,
		.out = KSCEN_CHILD_NULL, .err = KSCEN_CHILD_NULL,
		.flags = KSCEN_CHILD_PDEATHSIG | KSCEN_CHILD_PIDFD | KSCEN_CHILD_PGROUP,
	};
	struct match got[KSCEN_MAX_METRICS + 1];	/* max + 1 bytes, as capture keeps them */
	struct kscen_child_output o = { .max = st->nr_re * sizeof(*r), .data = (char *)got };
	long long ms = -1;
	char how[96];
	int pfd[2], ret;

	if (in) {
		ms = (in->deadline_ns - kscen_now_ns()) / 1000000;
		ms = ms > 0 ? ms : 0;
		mj.cpu_s = ms / 1000 + 1;
	}
	if (pipe2(pfd, O_CLOEXEC))
		return kscen_reason(ctx, -errno, "exec: pipe: %s", strerror(errno));
	mj.fd = pfd[1];
	ret = kscen_child_start(&c);
	close(pfd[1]);
	if (ret) {
		close(pfd[0]);
		return kscen_reason(ctx, ret, "exec: matching: %s", strerror(-ret));
	}
	o.fd = pfd[0];
	ret = kscen_child_capture(&c, &o, 1, ms, in ? in->stop : NULL);
	if (!ret)
		ret = kscen_child_finish(&c, -1);
	kscen_child_kill(&c);	/* at the deadline or on ^C: at once */
	if (o.fd >= 0)
		close(o.fd);
	if (ret == -ETIMEDOUT || ret == -EINTR)
		return ret;
	if (ret)
		return kscen_reason(ctx, ret, "exec: matching: %s: %s", c.failed,
				    strerror(-ret));
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) ||
	    o.len != st->nr_re * sizeof(*r))
		return kscen_reason(ctx, -EIO, "matching the regex on the command's "
				    "output %s: a regex too costly for %zu bytes (its "
				    "limits: the sample's timeout, %lld MiB more memory)",
				    kscen_wait_status_text(c.status, how, sizeof(how)),
				    st->out.len, EXEC_MATCH_MEM >> 20);
	memcpy(r, got, o.len);
	return 0;
}

/* The outcome @r of regex @i of @st on stdout; @what names it in reasons. */
static int exec_match(struct kscen_ctx *ctx, const struct exec_state *st,
		      const struct match *r, const char *what, double *value)
{
	const struct kscen_child_output *o = &st->out;
	char excerpt[EXEC_LINE_MAX + 1];
	const regmatch_t *m = r->m;

	if (r->rc) {
		if (!o->len)
			return kscen_reason(ctx, -ENOMSG,
					    "%s did not match the command's output: stdout was empty",
					    what);
		clean_copy(excerpt, sizeof(excerpt), o->data,
			   min_size(o->len, EXEC_EXCERPT_MAX));
		return kscen_reason(ctx, -ENOMSG,
				    "%s did not match the command's output: \"%s%s\"%s",
				    what, excerpt,
				    o->len > EXEC_EXCERPT_MAX ? "..." : "",
				    o->truncated ? " (only its first MiB is searched)" : "");
	}
	if (m[1].rm_so < 0 || m[1].rm_eo < m[1].rm_so || (size_t)m[1].rm_eo > o->len)
		return kscen_reason(ctx, -EBADMSG,
				    "%s matched, but its group captured nothing", what);
	return parse_capture(ctx, what, o->data + m[1].rm_so,
			     m[1].rm_eo - m[1].rm_so, value);
}

/* The number at p->json in the JSON document the command printed. */
static int exec_json(struct kscen_ctx *ctx, const struct exec_params *p,
		     const struct exec_state *st, double *value)
{
	char msg[160], excerpt[EXEC_EXCERPT_MAX + 1];
	json_error_t jerr;
	json_t *root;
	int ret;

	if (st->out.truncated)
		return kscen_reason(ctx, -E2BIG,
				    "json: stdout is over 1 MiB, more than is kept");
	root = json_loadb(st->out.data, st->out.len, JSON_DECODE_ANY, &jerr);
	if (!root) {
		clean_copy(excerpt, sizeof(excerpt), st->out.data,
			   min_size(st->out.len, EXEC_EXCERPT_MAX));
		return kscen_reason(ctx, -EBADMSG,
				    "json: stdout is not JSON (line %d: %s): \"%s\"",
				    jerr.line, jerr.text, excerpt);
	}
	ret = kscen_json_path_number(root, p->json, value, msg, sizeof(msg));
	json_decref(root);
	if (ret)
		return kscen_reason(ctx, ret, "json: %s", msg);
	return 0;
}

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

static void output_reset(struct kscen_child_output *o)
{
	o->len = 0;
	o->truncated = false;
	o->data[0] = '\0';
}

static int exec_sample(struct kscen_ctx *ctx, double *values)
{
	const struct exec_params *p = ctx->params;
	struct exec_state *st = ctx->priv;
	const struct kscen_inline_sample *in = kscen_sample_inline();
	struct match match[KSCEN_MAX_METRICS];
	struct kscen_child c;
	double wall;
	int ret;

	if (!st)
		return kscen_reason(ctx, -EINVAL, "exec: sample() without setup()");
	output_reset(&st->out);
	output_reset(&st->err);

	ret = exec_spawn(ctx, p->command, st, &c, in);
	if (ret)
		return ret;
	ret = exec_wait(ctx, st, &c, in);
	kscen_child_kill(&c);	/* on an error before the reap, the shell too */
	if (ret)
		return ret;

	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status))
		return exec_failed(ctx, st, c.status);
	wall = elapsed(&c.start, &c.end);
	/* wall, user, system: after the captured metrics */
	{
		double *t = values + (has_capture(p) ? 1 : ctx->nr_captures);

		t[0] = wall;
		t[1] = c.ru.ru_utime.tv_sec + c.ru.ru_utime.tv_usec / 1e6;
		t[2] = c.ru.ru_stime.tv_sec + c.ru.ru_stime.tv_usec / 1e6;
	}
	if (has_json(p))
		return exec_json(ctx, p, st, &values[0]);
	if (!st->nr_re)
		return 0;
	ret = exec_match_all(ctx, st, in, match);
	if (ret)
		return ret;
	if (has_regex(p))
		return exec_match(ctx, st, &match[0], "metric_regex", &values[0]);
	for (unsigned i = 0; i < st->nr_re; i++) {
		char what[96];

		snprintf(what, sizeof(what), "metrics: %s: regex", ctx->captures[i].name);
		ret = exec_match(ctx, st, &match[i], what, &values[i]);
		if (ret)
			return ret;
	}
	return 0;
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
