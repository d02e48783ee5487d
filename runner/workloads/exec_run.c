// SPDX-License-Identifier: GPL-2.0
/*
 * exec_run.c - the exec workload's sample (exec.c): the command started
 * directly or under /bin/sh -c, its stdout and stderr read into capped
 * buffers, then its metrics: the wall and CPU times, the numbers its
 * regexes capture (matched in a child with limits), or the number at a
 * JSON path.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "exec.h"
#include "json_path.h"
#include "registry.h"
#include "lib/util.h"

#define EXEC_LINE_MAX		120	/* of stderr, in a failure reason */
#define EXEC_EXCERPT_MAX	80	/* of stdout, when metric_regex fails */
#define EXEC_MATCH_MEM		(512LL << 20)	/* address space a match may add */
#define EXEC_MATCH_CPU_S	3600	/* CPU seconds without an inline deadline */

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
void exec_clean_copy(char *buf, size_t len, const char *src, size_t n)
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
	exec_clean_copy(buf, len, start, end - start);
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
	exec_clean_copy(shown, sizeof(shown), s, len);
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
		exec_clean_copy(excerpt, sizeof(excerpt), o->data,
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
		exec_clean_copy(excerpt, sizeof(excerpt), st->out.data,
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

int exec_sample(struct kscen_ctx *ctx, double *values)
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
