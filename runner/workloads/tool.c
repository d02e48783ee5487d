// SPDX-License-Identifier: GPL-2.0
/*
 * tool.c - the part every tool adapter shares: find the tool, run it as a
 * child of the sample process (in its process group, so the runner's
 * timeout kill takes it along; PR_SET_PDEATHSIG for a runner killed outright)
 * and read its stdout and stderr to the end, both at once so that neither
 * pipe fills.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lib/util.h"
#include "tool.h"
#include "lib/child.h"


#define TOOL_OUT_MAX (16 << 20)

static int executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

int kscen_tool_find(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/')) {
		snprintf(buf, len, "%s", prog);
		return executable(prog);
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, len, "%.*s/%s", (int)n, path, prog);
		if (n && executable(buf))
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}

int kscen_tool_supported(struct kscen_ctx *ctx, const char *prog,
			 const char *pkg)
{
	char buf[4096];

	if (kscen_tool_find(prog, buf, sizeof(buf)))
		return 0;
	return kscen_reason(ctx, KSCEN_SKIP,
			    "%s not found; install it: apt-get install -y %s",
			    prog, pkg);
}

unsigned kscen_tool_split(char ***argv, unsigned n, const char *args)
{
	while (args && *args) {
		size_t len;

		while (isspace((unsigned char)*args))
			args++;
		len = strcspn(args, " \t\n");
		if (!len)
			break;
		*argv = kscen_xrealloc(*argv, (n + 2) * sizeof(**argv));
		(*argv)[n++] = strndup(args, len);
		(*argv)[n] = NULL;
		args += len;
	}
	return n;
}

void kscen_tool_out_fini(struct kscen_tool_out *o)
{
	free(o->out);
	free(o->err);
	memset(o, 0, sizeof(*o));
}

/* Read once into @buf (grown); at the cap, read and drop. 0 at EOF. */
static ssize_t collect(int fd, char **buf, size_t *len, size_t *cap)
{
	char drop[4096];
	ssize_t n;

	if (*len >= TOOL_OUT_MAX)
		return read(fd, drop, sizeof(drop));
	if (*cap - *len < 4096 + 1) {
		*cap = *cap < 65536 ? 65536 : *cap * 2;
		*buf = kscen_xrealloc(*buf, *cap);
	}
	n = read(fd, *buf + *len, *cap - *len - 1);
	if (n > 0) {
		*len += n;
		(*buf)[*len] = '\0';
	}
	return n;
}

/* The last non-blank line of @s, for a failure reason. */
static void last_line(const char *s, char *buf, size_t len)
{
	const char *end = s + strlen(s), *start;

	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	start = end;
	while (start > s && start[-1] != '\n')
		start--;
	snprintf(buf, len, "%.*s", (int)(end - start), start);
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
}

int kscen_tool_run(struct kscen_ctx *ctx, char *const argv[],
		   struct kscen_tool_out *o)
{
	struct kscen_child c = {
		.argv = argv, .in = KSCEN_CHILD_NULL,
		.out = KSCEN_CHILD_PIPE, .err = KSCEN_CHILD_PIPE,
		.flags = KSCEN_CHILD_PDEATHSIG | KSCEN_CHILD_CLEAN | KSCEN_CHILD_PATH,
	};
	size_t cap[2] = { 1, 1 };
	struct pollfd pfd[2];
	char line[160], how[96];
	int ret;

	memset(o, 0, sizeof(*o));
	o->out = kscen_xstrdup("");
	o->err = kscen_xstrdup("");
	ret = kscen_child_start(&c);
	if (ret)
		return kscen_reason(ctx, ret, "starting %s: %s", argv[0], strerror(-ret));
	pfd[0] = (struct pollfd){ .fd = c.out_fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = c.err_fd, .events = POLLIN };
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			n = i ? collect(pfd[i].fd, &o->err, &o->err_len, &cap[1])
			      : collect(pfd[i].fd, &o->out, &o->out_len, &cap[0]);
			if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				pfd[i].fd = -1;
		}
	}
	ret = kscen_child_reap(&c);
	kscen_child_kill(&c);
	if (ret)
		return kscen_reason(ctx, ret, "waitpid: %s", strerror(-ret));
	if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0)
		return 0;
	last_line(o->err_len ? o->err : o->out, line, sizeof(line));
	kscen_wait_status_text(c.status, how, sizeof(how));
	return kscen_reason(ctx, -EIO, "%s %s%s%s", argv[0], how,
			    WIFEXITED(c.status) && *line ? ": " : "",
			    WIFEXITED(c.status) ? line : "");
}

const char *kscen_tool_last_line(const char *s, const char *prefix)
{
	const char *found = NULL, *line = s;
	size_t n = strlen(prefix);

	while (line && *line) {
		const char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, prefix, n))
			found = p;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return found;
}
