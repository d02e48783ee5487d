// SPDX-License-Identifier: GPL-2.0
/*
 * bpf.c - the libbpf glue the BPF workloads share (see bpf.h). libbpf's
 * print callback is process-wide libbpf state, set the same way by every
 * caller, which is why it lives here once and reads kscen_verbose rather
 * than a ctx.
 */
#define _GNU_SOURCE	/* vasprintf */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/diag.h"
#include "lib/util.h"
#include "bpf.h"

#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT 39
#define CAP_SYS_ADMIN_BIT 21

/* libbpf's own words, as it says them (its warnings; all of them with -v). */
static int print_cb(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *msg;
	int n;

	if (level != LIBBPF_WARN && !kscen_verbose)
		return 0;
	n = vasprintf(&msg, fmt, ap);
	if (n < 0)
		return n;
	kscen_diag_info("%s", msg);
	free(msg);
	return n;
}

void kscen_bpf_init(void)
{
	libbpf_set_print(print_cb);
}

const char *kscen_bpf_btf_path(void)
{
	const char *p = getenv("KSCEN_BTF_PATH");

	return p && *p ? p : "/sys/kernel/btf/vmlinux";
}

/* The effective capability set, from /proc: no libcap for one number. */
static unsigned long long cap_effective(void)
{
	unsigned long long caps = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

int kscen_bpf_supported(struct kscen_ctx *ctx)
{
	unsigned long long caps = cap_effective();
	bool admin = caps & (1ULL << CAP_SYS_ADMIN_BIT);
	bool bpf = caps & (1ULL << CAP_BPF_BIT);
	bool perfmon = caps & (1ULL << CAP_PERFMON_BIT);
	const char *btf = kscen_bpf_btf_path();

	if (!admin && !(bpf && perfmon))
		return kscen_reason(ctx, KSCEN_SKIP,
				    "needs root or CAP_BPF and CAP_PERFMON (euid %u, missing %s%s%s)",
				    (unsigned)geteuid(), bpf ? "" : "CAP_BPF",
				    !bpf && !perfmon ? " and " : "",
				    perfmon ? "" : "CAP_PERFMON");
	if (access(btf, R_OK))
		return kscen_reason(ctx, KSCEN_SKIP,
				    "no kernel BTF at %s: %s (CONFIG_DEBUG_INFO_BTF)",
				    btf, strerror(errno));
	return 0;
}

int kscen_bpf_need_pmu(struct kscen_ctx *ctx, const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s", name);
	if (access(path, F_OK))
		return kscen_reason(ctx, KSCEN_SKIP, "no %s PMU (%s missing)",
				    name, path);
	return 0;
}

int kscen_bpf_load(struct kscen_ctx *ctx, struct bpf_object_skeleton *s,
		   const char *what)
{
	int err = bpf_object__load_skeleton(s);

	if (!err)
		return 0;
	if (err == -EPERM || err == -EACCES)
		return kscen_reason(ctx, KSCEN_SKIP,
				    "bpf() refused loading %s: %s (BPF disabled or not permitted)",
				    what, strerror(-err));
	return kscen_reason(ctx, err < 0 ? err : -EINVAL,
			    "loading %s failed: %s (-v shows libbpf's log)",
			    what, strerror(err < 0 ? -err : EINVAL));
}

void kscen_bpf_trace_clear(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/trace",
		"/sys/kernel/debug/tracing/trace",
	};

	for (unsigned i = 0; i < 2; i++) {
		/* Opening "trace" for writing with O_TRUNC empties the buffer. */
		int fd = open(paths[i], O_WRONLY | O_TRUNC | O_CLOEXEC);

		if (fd >= 0) {
			close(fd);
			return;
		}
	}
}
