// SPDX-License-Identifier: GPL-2.0
/*
 * diag.c - the diagnostics sink of diag.h: one place where what library
 * code has to say is formatted, and where it goes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

static void say(enum kscen_severity sev, const char *file, struct kscen_mark m,
		const char *cmd, const char *fmt, va_list ap)
{
	struct kscen_diag d = { .file = file, .mark = m, .severity = sev, .cmd = cmd };
	char buf[1024], *msg = buf;
	va_list again;
	int n;

	if (sev == KSCEN_DIAG_ERROR)
		nr_errors++;
	if (!sink)
		return;
	va_copy(again, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	/* a long one whole (a qemu command line, a tool's output) */
	if (n >= (int)sizeof(buf) && (msg = malloc(n + 1)))
		vsnprintf(msg, n + 1, fmt, again);
	va_end(again);
	if (!msg)
		msg = buf;
	if (sev != KSCEN_DIAG_INFO)
		msg[strcspn(msg, "\n")] = '\0';
	d.msg = msg;
	sink(&d, sink_ctx);
	if (msg != buf)
		free(msg);
}

void kscen_diag(enum kscen_severity sev, const char *file, struct kscen_mark m,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(sev, file, m, NULL, fmt, ap);
	va_end(ap);
}

void kscen_diag_cmd(enum kscen_severity sev, const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(sev, NULL, NOWHERE, cmd, fmt, ap);
	va_end(ap);
}

/* What goes before the message; "" for INFO and a message alone. */
static void prefix(const struct kscen_diag *d, char *buf, size_t len)
{
	static const char *const label[] = {
		[KSCEN_DIAG_ERROR] = "",
		[KSCEN_DIAG_WARNING] = "warning: ",
		[KSCEN_DIAG_NOTE] = "note: ",
		[KSCEN_DIAG_INFO] = "",
	};
	const char *l = label[d->severity];

	if (d->severity == KSCEN_DIAG_INFO || (!d->file && d->cmd && !*d->cmd))
		snprintf(buf, len, "%s", "");
	else if (!d->file)
		snprintf(buf, len, "kscen%s%s: ", d->cmd ? " " : "", d->cmd ? d->cmd : "");
	else if (!d->mark.line)
		snprintf(buf, len, "%s: %s", d->file, l);
	else
		snprintf(buf, len, "%s:%u:%u: %s", d->file, d->mark.line, d->mark.col, l);
}

void kscen_diag_format(const struct kscen_diag *d, char *buf, size_t len)
{
	size_t n;

	prefix(d, buf, len);
	n = strlen(buf);
	snprintf(buf + n, len - n, "%s", d->msg);
}

void kscen_diag_print(const struct kscen_diag *d, void *ctx)
{
	char pre[4608];	/* a path, its position, a label */

	prefix(d, pre, sizeof(pre));
	fprintf(ctx, "%s%s%s", pre, d->msg, d->severity == KSCEN_DIAG_INFO ? "" : "\n");
}

void kscen_diag_capture(const struct kscen_diag *d, void *ctx)
{
	struct kscen_diag_log *log = ctx;
	char line[1536];
	int n;

	kscen_diag_format(d, line, sizeof(line));
	n = snprintf(log->text + log->len, sizeof(log->text) - log->len, "%s%s", line,
		     d->severity == KSCEN_DIAG_INFO ? "" : "\n");
	if (n > 0)
		log->len += (size_t)n < sizeof(log->text) - log->len ?
			    (size_t)n : sizeof(log->text) - log->len - 1;
	log->nr++;
}
