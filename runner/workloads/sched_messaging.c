// SPDX-License-Identifier: GPL-2.0
/*
 * sched_messaging.c - sched.messaging: perf bench sched messaging
 * (hackbench) timed alone, on messaging.c's engine: its parameters, and
 * image: perf, whose workers are forks of kscen-messaging with perf's
 * shared libraries loaded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "lib/child.h"
#include "lib/util.h"
#include "messaging.h"
#include "perf_image.h"
#include "tool.h"

enum { IMAGE_OWN, IMAGE_PERF };

struct messaging_params {
	long long groups;
	long long loops;
	int ipc;
	int mode;
	int image;
};

/* image: perf applies to worker processes (threads have no exit of their own) */
static bool perf_image_used(const struct messaging_params *p)
{
	return p->image == IMAGE_PERF && p->mode == KSCEN_MSG_PROCESS;
}

static void params_opts(const struct messaging_params *p,
			struct kscen_msg_opts *o)
{
	o->groups = p->groups;
	o->loops = p->loops;
	o->ipc = p->ipc;
	o->mode = p->mode;
	o->exit_libc = perf_image_used(p);
}

static int messaging_supported(struct kscen_ctx *ctx)
{
	const struct messaging_params *p = ctx->params;
	char path[4096];

	if (p->image == IMAGE_PERF && !kscen_tool_find("perf", path, sizeof(path)))
		return kscen_reason(ctx, KSCEN_SKIP,
				    "image: perf loads perf's libraries, and there is no perf here; install it: apt-get install -y linux-perf");
	return 0;
}

/*
 * image: perf. perf bench's worker processes are forks of perf: 28 shared
 * libraries (python, perl, libstdc++, babeltrace, ...), lazily bound, and
 * each worker leaves with exit(), which runs every library's destructors
 * and binds what they call: about 150 page faults a worker where kscen's
 * own take 10 (docs/fidelity.md). Forks of kscen with those libraries
 * loaded would still carry kscen's (libcyaml, libbpf, ...): the workers
 * are forked by kscen-messaging (helper/perf_image.c, libc alone), run
 * from a memfd with the libraries perf's binary names (DT_NEEDED; the rest
 * follow) to load. Its protocol: "ready" or "error: WHY" on its stdout,
 * then a byte on its stdin for the timed region, then the seconds.
 */
struct perf_image {
	struct kscen_child c;
	int go;			/* the helper's stdin */
};

/* perf's DT_NEEDED libraries, appended to @argv from @n; the new count. */
static int perf_libraries(struct kscen_ctx *ctx, char **argv, int n, int max)
{
	char path[4096];
	Elf_Scn *scn = NULL;
	int fd, first = n, ret = 0;
	Elf *e;

	if (!kscen_tool_find("perf", path, sizeof(path)))
		return kscen_reason(ctx, -ENOENT, "no perf in PATH");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kscen_reason(ctx, -errno, "%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !ret && (scn = elf_nextscn(e, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Shdr sh;
		GElf_Dyn dyn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !d)
			continue;
		for (size_t i = 0; gelf_getdyn(d, (int)i, &dyn); i++) {
			const char *lib;

			if (dyn.d_tag != DT_NEEDED)
				continue;
			lib = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			if (!lib || !*lib || strchr(lib, '/') || n == max) {
				ret = kscen_reason(ctx, -ENOEXEC, "%s: %s", path,
						   n == max ? "too many DT_NEEDED libraries" :
						   "a DT_NEEDED entry that is not a library name");
				break;
			}
			argv[n++] = kscen_xstrdup(lib);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	if (!ret && n == first)
		ret = kscen_reason(ctx, -ENOEXEC, "%s: no DT_NEEDED libraries", path);
	return ret ? ret : n;
}

/* One line of the helper's, without its newline; false at EOF or error. */
static bool helper_line(struct perf_image *pi, char *buf, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		ssize_t r = read(pi->c.out_fd, buf + n, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r != 1)
			return false;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return true;
}

/* What the helper said when it was not what we asked for. */
static int helper_failed(struct kscen_ctx *ctx, struct perf_image *pi,
			 bool got, const char *line)
{
	char how[96];

	if (got && !strncmp(line, "error: ", 7))
		return kscen_reason(ctx, -EIO, "%s", line + 7);
	if (got)
		return kscen_reason(ctx, -EIO, "kscen-messaging said '%.200s'", line);
	kscen_child_reap(&pi->c);
	return kscen_reason(ctx, -EIO, "kscen-messaging %s before it answered",
			    kscen_wait_status_text(pi->c.status, how, sizeof(how)));
}

static int perf_image_start(struct kscen_ctx *ctx, const struct messaging_params *p,
			    struct perf_image *pi)
{
	enum { MAX_ARGS = 256 };
	const size_t size = kscen_perf_image_end - kscen_perf_image;
	char *argv[MAX_ARGS + 1] = { NULL }, line[KSCEN_REASON_MAX];
	int n, fd, go[2] = { -1, -1 }, ret;
	bool got;

	pi->go = -1;
	/* nothing to kill or close yet, whatever fails first */
	pi->c = (struct kscen_child){ .pid = -1, .pidfd = -1, .out_fd = -1, .err_fd = -1 };
	argv[1] = kscen_xasprintf("%lld", p->groups);
	argv[2] = kscen_xasprintf("%lld", p->loops);
	argv[3] = kscen_xstrdup(p->ipc == KSCEN_MSG_PIPE ? "pipe" : "socket");
	n = perf_libraries(ctx, argv, 4, MAX_ARGS);
	if (n < 0) {
		ret = n;
		goto out;
	}
	/* MFD_EXEC (6.3): said, so that vm.memfd_noexec=1 lets it run */
	fd = memfd_create("kscen-messaging", MFD_CLOEXEC | 0x0010U);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("kscen-messaging", MFD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		ret = kscen_reason(ctx, KSCEN_SKIP,
				   "image: perf runs kscen-messaging from a memfd, and this system allows no executable memfd (vm.memfd_noexec is 2)");
		goto out;
	}
	if (fd < 0) {
		ret = -errno;
	} else {
		ssize_t w = write(fd, kscen_perf_image, size);

		/* a short write of a memfd: none is expected */
		ret = w == (ssize_t)size ? 0 : w < 0 ? -errno : -EIO;
		if (!ret && pipe2(go, O_CLOEXEC))
			ret = -errno;
	}
	if (ret) {
		ret = kscen_reason(ctx, ret, "kscen-messaging: %s", strerror(-ret));
		goto out_fd;
	}
	/* the path exec opens: the memfd, open in the child until its exec */
	argv[0] = kscen_xasprintf("/proc/self/fd/%d", fd);
	pi->c = (struct kscen_child){
		.argv = argv, .in = go[0], .out = KSCEN_CHILD_PIPE,
		.flags = KSCEN_CHILD_PDEATHSIG,
	};
	ret = kscen_child_start(&pi->c);
	if (ret) {
		ret = kscen_reason(ctx, ret, "kscen-messaging: %s", strerror(-ret));
		goto out_fd;
	}
	pi->go = go[1];
	go[1] = -1;
	got = helper_line(pi, line, sizeof(line));
	if (!got || strcmp(line, "ready"))
		ret = helper_failed(ctx, pi, got, line);
out_fd:
	kscen_close_fd(&go[0]);
	kscen_close_fd(&go[1]);
	if (fd >= 0)
		close(fd);
out:
	for (int i = 0; i < MAX_ARGS && argv[i]; i++)
		free(argv[i]);
	return ret;
}

static int perf_image_run(struct kscen_ctx *ctx, struct perf_image *pi,
			  double *secs)
{
	char line[KSCEN_REASON_MAX], *end, how[96];
	bool got;

	if (write(pi->go, "g", 1) != 1)
		return kscen_reason(ctx, -errno, "waking kscen-messaging: %s",
				    strerror(errno));
	got = helper_line(pi, line, sizeof(line));
	errno = 0;
	*secs = got ? strtod(line, &end) : 0;
	if (!got || errno || end == line || *end || !(*secs >= 0))
		return helper_failed(ctx, pi, got, line);
	kscen_child_reap(&pi->c);
	if (!WIFEXITED(pi->c.status) || WEXITSTATUS(pi->c.status))
		return kscen_reason(ctx, -EIO, "kscen-messaging %s",
				    kscen_wait_status_text(pi->c.status, how, sizeof(how)));
	return 0;
}

static void perf_image_stop(struct perf_image *pi)
{
	kscen_close_fd(&pi->go);
	/* its workers die with it (PR_SET_PDEATHSIG) */
	kscen_child_kill(&pi->c);
}

static int messaging_setup(struct kscen_ctx *ctx)
{
	const struct messaging_params *p = ctx->params;
	struct kscen_msg_opts o;
	struct perf_image *pi;
	struct kscen_msg *m;
	int ret;

	params_opts(p, &o);
	if (perf_image_used(p)) {
		pi = kscen_xcalloc(1, sizeof(*pi));
		ret = perf_image_start(ctx, p, pi);
		if (ret) {
			perf_image_stop(pi);
			free(pi);
		} else {
			ctx->priv = pi;
		}
		return ret;
	}
	ret = kscen_msg_start(ctx, &o, &m);
	if (!ret)
		ctx->priv = m;
	return ret;
}

static int messaging_sample(struct kscen_ctx *ctx, double *values)
{
	const struct messaging_params *p = ctx->params;

	if (perf_image_used(p))
		return perf_image_run(ctx, ctx->priv, &values[0]);
	return kscen_msg_run(ctx, ctx->priv, &values[0]);
}

static void messaging_teardown(struct kscen_ctx *ctx)
{
	const struct messaging_params *p = ctx->params;

	if (perf_image_used(p)) {
		if (ctx->priv)
			perf_image_stop(ctx->priv);
		free(ctx->priv);
	} else {
		kscen_msg_free(ctx->priv);
	}
	ctx->priv = NULL;
}

static void messaging_describe(const void *params, char *buf, size_t len)
{
	struct kscen_msg_opts o;
	size_t n;

	params_opts(params, &o);
	kscen_msg_describe(&o, buf, len);
	n = strlen(buf);
	if (o.exit_libc)
		snprintf(buf + n, len - n, ", in perf's image, leaving with exit()");
}

static const struct kscen_param messaging_param_table[] = {
	{
		.name = "groups", .type = KSCEN_P_INT, .def = "10",
		.offset = offsetof(struct messaging_params, groups),
		.min = 1, .max = 100000,
		.help = "groups of 20 senders and 20 receivers (perf's -g)",
	},
	{
		.name = "loops", .type = KSCEN_P_INT, .def = "100",
		.offset = offsetof(struct messaging_params, loops),
		.min = 1, .max = 100000000,
		.help = "messages each sender sends each receiver of its group (perf's -l)",
	},
	{
		.name = "ipc", .type = KSCEN_P_ENUM, .def = "socket",
		.offset = offsetof(struct messaging_params, ipc),
		.choices = KSCEN_MSG_IPC_CHOICES,
		.help = "AF_UNIX socketpairs, or pipes (perf's -p)",
	},
	{
		.name = "mode", .type = KSCEN_P_ENUM, .def = "process",
		.offset = offsetof(struct messaging_params, mode),
		.choices = KSCEN_MSG_MODE_CHOICES,
		.help = "workers are processes, or threads of one process (perf's -t)",
	},
	{
		.name = "image", .type = KSCEN_P_ENUM, .def = "own",
		.offset = offsetof(struct messaging_params, image),
		.choices = "own|perf",
		.help = "perf: worker processes are forks of a program with perf's shared libraries loaded (and none of kscen's) and leave with exit(), as perf bench's do",
	},
};

static const struct kscen_metric_desc messaging_metrics[] = {
	{ .name = "seconds", .unit = "s", .better = KSCEN_LOWER },
};

const struct kscen_workload kscen_wl_sched_messaging = {
	.name = "sched.messaging",
	.summary = "groups of 20 senders x 20 receivers over sockets or pipes (perf bench, hackbench)",
	.version = 2,	/* 2: image: perf forks from kscen-messaging */
	.params = messaging_param_table,
	.nr_params = ARRAY_SIZE(messaging_param_table),
	.params_size = sizeof(struct messaging_params),
	.metrics = messaging_metrics,
	.nr_metrics = ARRAY_SIZE(messaging_metrics),
	.supported = messaging_supported,
	.setup = messaging_setup,
	.sample = messaging_sample,
	.teardown = messaging_teardown,
	.describe = messaging_describe,
};
