/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tool.h - running an external benchmark tool for an adapter workload
 * (perf.bench, fio, stress_ng): find it, run it without a shell, and keep
 * its output for the adapter to parse.
 */
#ifndef KSCEN_WL_TOOL_H
#define KSCEN_WL_TOOL_H

#include <stddef.h>

#include "workload.h"

/* What a run printed; data is NUL-terminated. Free with kscen_tool_out_fini(). */
struct kscen_tool_out {
	char *out, *err;
	size_t out_len, err_len;
};

/* 1 with @prog's path in @buf if it is an executable (PATH searched), or 0. */
int kscen_tool_find(const char *prog, char *buf, size_t len);

/*
 * Is @prog ("fio", or a path) an executable here? 0, or KSCEN_SKIP with
 * ctx->reason "fio not found; install it: apt-get install -y @pkg".
 */
int kscen_tool_supported(struct kscen_ctx *ctx, const char *prog,
			 const char *pkg);

/*
 * Split @args on blanks (no quoting: a shell would be another thing to
 * escape) and append the words to @argv (NULL-terminated, grown with
 * kscen_xrealloc). Returns the new count.
 */
unsigned kscen_tool_split(char ***argv, unsigned n, const char *args);

/*
 * Run @argv[0] with @argv (PATH searched), stdin /dev/null, and collect its
 * stdout and stderr (each capped at 16 MiB). 0 when it exited 0; otherwise
 * -errno/-EIO with ctx->reason naming the status and the last line of stderr.
 */
int kscen_tool_run(struct kscen_ctx *ctx, char *const argv[],
		   struct kscen_tool_out *o);
void kscen_tool_out_fini(struct kscen_tool_out *o);

/* The last line of @s that starts (after blanks) with @prefix, or NULL. */
const char *kscen_tool_last_line(const char *s, const char *prefix);

#endif
