// SPDX-License-Identifier: GPL-2.0
/*
 * abi.c - what a workload calls in kscen: kscen_reason(), the one symbol a
 * module built outside the tree may call (runner/workloads/exports.list),
 * and, for kscen's own exec, the inline sample it is taken in
 * (registry.h). Nothing here knows any workload, so every workload may
 * use it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "registry.h"

int kscen_reason(struct kscen_ctx *ctx, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!ctx)
		return ret;
	va_start(ap, fmt);
	vsnprintf(ctx->reason, sizeof(ctx->reason), fmt, ap);
	va_end(ap);
	return ret;
}

static const struct kscen_inline_sample *inline_now;

const struct kscen_inline_sample *kscen_sample_inline(void)
{
	return inline_now;
}

void kscen_sample_inline_set(const struct kscen_inline_sample *in)
{
	inline_now = in;
}
