// SPDX-License-Identifier: GPL-2.0
/*
 * diag.c - the diagnostics sink of diag.h: one place where what library
 * code has to say about its input is formatted, and where it goes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"

static kscen_diag_fn sink;
static void *sink_ctx;
static unsigned nr_errors;

unsigned kscen_diag_set_sink(kscen_diag_fn fn, void *ctx)
{
	sink = fn;
	sink_ctx = ctx;
	return nr_errors;
}

unsigned kscen_diag_errors(void)
{
	return nr_errors;
}

void kscen_diag(enum kscen_severity sev, const char *file, struct kscen_mark m,
		const char *fmt, ...)
{
	struct kscen_diag d = { .file = file, .mark = m, .severity = sev };
	char msg[1024];
	va_list ap;

	if (sev == KSCEN_DIAG_ERROR)
		nr_errors++;
	if (!sink)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	msg[strcspn(msg, "\n")] = '\0';
	d.msg = msg;
	sink(&d, sink_ctx);
}

void kscen_diag_format(const struct kscen_diag *d, char *buf, size_t len)
{
	static const char *const label[] = {
		[KSCEN_DIAG_ERROR] = "",
		[KSCEN_DIAG_WARNING] = "warning: ",
		[KSCEN_DIAG_NOTE] = "note: ",
	};
	const char *l = label[d->severity];

	if (!d->file)
		snprintf(buf, len, "kscen: %s", d->msg);
	else if (!d->mark.line)
		snprintf(buf, len, "%s: %s%s", d->file, l, d->msg);
	else
		snprintf(buf, len, "%s:%u:%u: %s%s", d->file, d->mark.line,
			 d->mark.col, l, d->msg);
}

void kscen_diag_print(const struct kscen_diag *d, void *ctx)
{
	char line[1536];

	kscen_diag_format(d, line, sizeof(line));
	fprintf(ctx, "%s\n", line);
}

void kscen_diag_capture(const struct kscen_diag *d, void *ctx)
{
	struct kscen_diag_log *log = ctx;
	char line[1536];
	int n;

	kscen_diag_format(d, line, sizeof(line));
	n = snprintf(log->text + log->len, sizeof(log->text) - log->len, "%s\n", line);
	if (n > 0)
		log->len += (size_t)n < sizeof(log->text) - log->len ?
			    (size_t)n : sizeof(log->text) - log->len - 1;
	log->nr++;
}
