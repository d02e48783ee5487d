/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diag.h - the one way library code says something: a problem with its
 * input, or with what it was asked to do, and where a run is.
 *
 * Library code (everything but runner/cli/) never prints: it hands each
 * message (file, line, column, severity, the command it is of, the text)
 * to the sink the program installed, as libbpf hands its messages to the
 * function given to libbpf_set_print(). The command line installs
 * kscen_diag_print (stderr, "file:line:col: message"); tests install
 * kscen_diag_capture and read what was said. Without a sink, messages are
 * counted and dropped (the fuzzers run that way).
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
	/*
	 * Not a problem: where a run is (progress), what -v shows, a tool's
	 * own words quoted after a problem. Said as it is: no prefix, its
	 * newlines its own (a terminal's progress line redraws with "\r").
	 */
	KSCEN_DIAG_INFO,
};

struct kscen_diag {
	const char *file;	/* NULL: not about a file */
	struct kscen_mark mark;	/* line 0: the whole file */
	enum kscen_severity severity;
	/*
	 * Without a file, the command the message is of: "plot" says
	 * "kscen plot: msg", NULL "kscen: msg", "" the message alone.
	 */
	const char *cmd;
	const char *msg;	/* one line, no trailing newline (INFO: as is) */
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
/* A message about no file, of command @cmd (struct kscen_diag's cmd). */
void kscen_diag_cmd(enum kscen_severity sev, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The usual ones: "kscen: msg" (@cmd NULL) or "kscen CMD: msg". */
#define kscen_error(cmd, ...)	kscen_diag_cmd(KSCEN_DIAG_ERROR, (cmd), __VA_ARGS__)
#define kscen_warning(cmd, ...)	kscen_diag_cmd(KSCEN_DIAG_WARNING, (cmd), __VA_ARGS__)
#define kscen_note(cmd, ...)	kscen_diag_cmd(KSCEN_DIAG_NOTE, (cmd), __VA_ARGS__)
/* Text said as it is (KSCEN_DIAG_INFO). */
#define kscen_diag_info(...) kscen_diag_cmd(KSCEN_DIAG_INFO, "", __VA_ARGS__)

/*
 * The command line's sink: @ctx is a FILE *. Errors print as
 * "file:line:col: msg", warnings and notes with "warning: "/"note: " after
 * the position; without a file, "kscen: msg" (or "kscen CMD: msg", or the
 * message alone) whatever the severity; INFO as it is.
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
