/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diag.h - the one way library code reports a problem with its input.
 *
 * Loaders and the expander never print: they hand each problem (file, line,
 * column, severity, message) to the sink the program installed, as libbpf
 * hands its messages to the function given to libbpf_set_print(). The
 * command line installs kscen_diag_print (stderr, "file:line:col: message");
 * tests install kscen_diag_capture and read what was said. Without a sink,
 * problems are counted and dropped (the fuzzers run that way).
 */
#ifndef KSCEN_DIAG_H
#define KSCEN_DIAG_H

#include <stddef.h>

/* Where a value came from, for file:line:column messages (1-based). */
struct kscen_mark {
	unsigned line, col;
};

enum kscen_severity {
	KSCEN_DIAG_ERROR,
	KSCEN_DIAG_WARNING,
	KSCEN_DIAG_NOTE,
};

struct kscen_diag {
	const char *file;	/* NULL: not about a file */
	struct kscen_mark mark;	/* line 0: the whole file */
	enum kscen_severity severity;
	const char *msg;	/* one line, no trailing newline */
};

/* No position: a message about a whole file, or about no file. */
#define NOWHERE ((struct kscen_mark){ 0, 0 })

typedef void (*kscen_diag_fn)(const struct kscen_diag *d, void *ctx);

/* Install @fn (NULL: drop); returns the errors reported so far. */
unsigned kscen_diag_set_sink(kscen_diag_fn fn, void *ctx);
/* Errors reported since the program started. */
unsigned kscen_diag_errors(void);

void kscen_diag(enum kscen_severity sev, const char *file, struct kscen_mark m,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* An error at @m of @file: "file:line:column: message". */
#define kscen_file_error(file, m, ...) \
	kscen_diag(KSCEN_DIAG_ERROR, (file), (m), __VA_ARGS__)

/*
 * The command line's sink: @ctx is a FILE *. Errors print as
 * "file:line:col: msg", warnings and notes with "warning: "/"note: " after
 * the position; without a file, "kscen: msg" whatever the severity.
 */
void kscen_diag_print(const struct kscen_diag *d, void *ctx);
/* Format @d as kscen_diag_print does, into @buf. */
void kscen_diag_format(const struct kscen_diag *d, char *buf, size_t len);

/* A sink for tests: every message, formatted, one a line. */
struct kscen_diag_log {
	char text[8192];
	size_t len;
	unsigned nr;
};
void kscen_diag_capture(const struct kscen_diag *d, void *ctx);

#endif
