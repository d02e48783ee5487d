/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - the lib/ folder's small helpers, which every stage uses:
 * allocation that cannot fail, strings, time, whole-file reading, names,
 * the interrupt flag (util.c, version.c), a metric's regex (regex.c).
 * lib/ also holds the diagnostics sink (diag.h), starting processes
 * (child.h) and symbols (symbols.h).
 */
#ifndef KSCEN_UTIL_H
#define KSCEN_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <regex.h>
#include <signal.h>

#define KSCEN_VERSION "0.1.0"
/* git describe of the tree kscen was built from (version.c). */
extern const char kscen_describe[];

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* util.c */
void *kscen_xmalloc(size_t n);	/* aborts on OOM, like git's xmalloc */
void *kscen_xcalloc(size_t n, size_t size);
void *kscen_xrealloc(void *p, size_t n);
char *kscen_xstrdup(const char *s);
/* open_memstream(), aborting on OOM: a string of no known bound. */
FILE *kscen_xmemstream(char **buf, size_t *len);
/* Now, UTC, ISO 8601 to the second, malloc'ed (run start and finish). */
char *kscen_utc_now(void);
/* The same into @buf (32 bytes are enough). */
void kscen_utc_now_buf(char *buf, size_t len);
/* @s, or @none where it is NULL: a field a run may lack, printed. */
static inline const char *kscen_str_or(const char *s, const char *none)
{
	return s ? s : none;
}
#define kscen_str(s) kscen_str_or((s), "")
/* CLOCK_MONOTONIC in nanoseconds. */
long long kscen_now_ns(void);
/* close(*fd) if it is open, and mark it closed (-1). */
void kscen_close_fd(int *fd);
char *kscen_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The closest of @cands to @s within a small edit distance, or NULL. */
const char *kscen_closest(const char *s, const char *const *cands, unsigned n);
/* @argv as one malloc'ed string, quoted where a shell would need it. */
char *kscen_join_argv(int argc, char **argv);
/* @s single-quoted for sh, onto @f. */
void kscen_sh_quote(FILE *f, const char *s);
/* "; did you mean 'HINT'?", or @none without a hint (""), in @buf. */
const char *kscen_did_you_mean(char *buf, size_t len, const char *hint,
			       const char *none);
/* Does @s read as a JSON number (and so as a number to any YAML reader)? */
bool kscen_is_number(const char *s);
/* Length of the valid UTF-8 sequence at @s, 0 if it is not one. */
unsigned kscen_utf8_len(const char *s);
/* The same within @max bytes (a buffer that is not a C string). */
unsigned kscen_utf8_len_n(const char *s, size_t max);
/* NULL, empty or only white space (isspace). */
bool kscen_blank(const char *s);
/* The same text, NULL read as "". */
bool kscen_same_str(const char *a, const char *b);
/*
 * regex.c: compile @pattern as a metric's regex: POSIX extended, ^ and $
 * at lines (REG_NEWLINE, as grep users expect), exactly one capture group.
 * A pattern whose matching could cost too much (back-references, counts
 * past 255, over 1000 atoms expanded) is refused before regcomp(). On error
 * writes "@what: ..." to @err and returns -EINVAL; else 0, regfree() later.
 */
int kscen_metric_regex(regex_t *re, const char *pattern,
		       const char *what, char *err, size_t len);
/*
 * Read all of @path, which must be a regular file of at most @max bytes,
 * NUL-terminated into malloc'ed *@out. Never blocks on a FIFO or device.
 * -ENODEV not a regular file, -EISDIR a directory, -EFBIG over @max,
 * -EAGAIN it grew while read, or open/read's -errno.
 */
int kscen_read_regular(const char *path, size_t max, char **out, size_t *len);
/*
 * @path opened for reading if it is a regular file of at most @max bytes:
 * the fd, its size in *@size; or kscen_read_regular()'s -errno.
 */
int kscen_open_regular(const char *path, size_t max, size_t *size);
/*
 * trust.c: open @path (a regular file; @dir: a directory) if nobody but
 * root and the caller could have changed it or any directory or symlink on
 * the way from / (owned by root or the caller; not writable by its group,
 * unless that is root's, or the world, unless sticky): the fd, and in
 * @real (PATH_MAX bytes) the path it resolves to. -errno with why in @err
 * ("PATH: refused: the directory D is world-writable").
 */
/* @fmt into @err (at most @len bytes), and @ret: "return kscen_errf(...)". */
int kscen_errf(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int kscen_open_trusted(const char *path, bool dir, char *real, char *err, size_t len);
/* The message for kscen_read_regular()'s error @err. */
const char *kscen_read_strerror(int err);
/*
 * [A-Za-z0-9_.-]+, at most KSCEN_NAME_MAX bytes, and not "." or "..": safe
 * as a directory name.
 */
#define KSCEN_NAME_MAX 128
bool kscen_name_ok(const char *s);
/* The malloc'ed lowercase hex SHA-256 of @len bytes at @buf (lib/sha256.c). */
char *kscen_sha256_hex(const void *buf, size_t len);
#define KSCEN_PARANOID_UNKNOWN (-100)	/* perf_event_paranoid unreadable */
/* kernel.perf_event_paranoid, or KSCEN_PARANOID_UNKNOWN. */
int kscen_perf_paranoid(void);
extern int kscen_verbose;
/*
 * The signal that asked kscen to stop (SIGINT, SIGTERM, SIGHUP), or 0: set
 * by the commands' handlers, read by every wait, which then gives up.
 */
extern volatile sig_atomic_t kscen_interrupted;
/*
 * A temporary file of ours, or NULL: the handler of a second signal, which
 * ends the process at once, removes it first (cli's cmd_catch_signals()).
 */
extern const char *volatile kscen_signal_unlink;

#endif
