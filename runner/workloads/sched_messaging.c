// SPDX-License-Identifier: GPL-2.0
/*
 * sched_messaging.c - sched.messaging: perf bench sched messaging
 * (hackbench) timed alone, on messaging.c's engine: its parameters, and
 * image: perf, which loads perf's shared libraries before the workers are
 * forked.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "messaging.h"
#include "tool.h"

enum { IMAGE_OWN, IMAGE_PERF };

struct messaging_params {
	long long groups;
	long long loops;
	int ipc;
	int mode;
	int image;
};

static void params_opts(const struct messaging_params *p,
			struct kscen_msg_opts *o)
{
	o->groups = p->groups;
	o->loops = p->loops;
	o->ipc = p->ipc;
	o->mode = p->mode;
	o->exit_libc = p->image == IMAGE_PERF && p->mode == KSCEN_MSG_PROCESS;
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
 * take 10 (docs/fidelity.md). Loading the libraries perf's binary names
 * (DT_NEEDED, the rest follow) lazily into the sample process, before its
 * workers are forked, gives them that image and that exit.
 */
static int load_perf_libraries(struct kscen_ctx *ctx)
{
	char path[4096];
	Elf_Scn *scn = NULL;
	int fd, n = 0, ret = 0;
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
			if (!lib || !dlopen(lib, RTLD_LAZY | RTLD_GLOBAL)) {
				ret = kscen_reason(ctx, -ENOENT, "%s: dlopen(%s): %s",
						   path, lib ? lib : "?", dlerror());
				break;
			}
			n++;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	if (!ret && !n)
		ret = kscen_reason(ctx, -ENOEXEC, "%s: no DT_NEEDED libraries", path);
	/* nothing buffered for each worker's exit() to write again */
	fflush(NULL);
	return ret;
}

static int messaging_setup(struct kscen_ctx *ctx)
{
	const struct messaging_params *p = ctx->params;
	struct kscen_msg_opts o;
	struct kscen_msg *m;
	int ret;

	params_opts(p, &o);
	if (o.exit_libc && (ret = load_perf_libraries(ctx)))
		return ret;
	ret = kscen_msg_start(ctx, &o, &m);
	if (!ret)
		ctx->priv = m;
	return ret;
}

static int messaging_sample(struct kscen_ctx *ctx, double *values)
{
	return kscen_msg_run(ctx, ctx->priv, &values[0]);
}

static void messaging_teardown(struct kscen_ctx *ctx)
{
	kscen_msg_free(ctx->priv);
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
		.help = "perf: worker processes are forked from perf's image (its shared libraries loaded) and leave with exit(), as perf bench's do",
	},
};

static const struct kscen_metric_desc messaging_metrics[] = {
	{ .name = "seconds", .unit = "s", .better = KSCEN_LOWER },
};

const struct kscen_workload kscen_wl_sched_messaging = {
	.name = "sched.messaging",
	.summary = "groups of 20 senders x 20 receivers over sockets or pipes (perf bench, hackbench)",
	.version = 1,
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
