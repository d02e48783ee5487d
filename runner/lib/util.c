// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - the small helpers every stage uses: allocation that aborts on
 * OOM (a benchmark runner has nothing sensible to do without memory, and
 * checking every strdup hides the real logic), "did you mean" suggestions,
 * two text predicates shared by the
 * writers of result files and reports, and the one way input files are read.
 */
#define _GNU_SOURCE	/* vasprintf */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "util.h"


int kscen_verbose;
volatile sig_atomic_t kscen_interrupted;
const char *volatile kscen_signal_unlink;

static void __attribute__((noreturn)) oom(void)
{
	kscen_error(NULL, "out of memory");
	abort();
}

FILE *kscen_xmemstream(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	if (!f)
		oom();
	return f;
}

void *kscen_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *kscen_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *kscen_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *kscen_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

char *kscen_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0)
		oom();
	return s;
}

/*
 * Edit distance counting a swap of two neighbours as one edit (optimal
 * string alignment), since "rnu" for "run" is the commonest typo. Three rows;
 * names are short, so O(n*m) is fine.
 */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d;
	size_t *row[3];

	for (i = 0; i < 3; i++)
		row[i] = kscen_xcalloc(lb + 1, sizeof(size_t));
	for (j = 0; j <= lb; j++)
		row[1][j] = j;
	for (i = 1; i <= la; i++) {
		size_t *pp = row[0], *prev = row[1], *cur = row[2];

		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			d = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < d)
				d = pp[j - 2] + 1;
			cur[j] = d;
		}
		row[0] = prev;
		row[1] = cur;
		row[2] = pp;
	}
	d = row[1][lb];
	for (i = 0; i < 3; i++)
		free(row[i]);
	return d;
}

/*
 * A suggestion is only worth printing when it is close: at most a third of
 * the name wrong (at least one edit allowed), and never a full rewrite, which
 * would suggest "ab" for "xy".
 */
const char *kscen_closest(const char *s, const char *const *cands, unsigned n)
{
	size_t len = strlen(s), limit = len / 3, best_d = (size_t)-1, d;
	const char *best = NULL;
	unsigned i;

	if (limit < 1)
		limit = 1;
	for (i = 0; i < n; i++) {
		if (!cands[i])
			continue;
		d = edit_distance(s, cands[i]);
		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	if (best && best_d <= limit && best_d < len)
		return best;
	return NULL;
}

/*
 * Does @s read as a number in JSON's grammar (which is also a number to every
 * YAML resolver)? "4k", "010", "+1", ".5" and "inf" do not.
 */
bool kscen_is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return false;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

/*
 * The length of the well-formed UTF-8 sequence at @s (1 to 4), or 0 when the
 * bytes there are not one: stray continuation bytes, overlong forms,
 * surrogates, code points past U+10FFFF, truncated sequences. Kernel command
 * lines and hostnames are bytes, not text; YAML and JSON writers need text.
 */
unsigned kscen_utf8_len_n(const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned n, i, cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n > max)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;	/* also stops at the NUL */
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

unsigned kscen_utf8_len(const char *s)
{
	return kscen_utf8_len_n(s, 4);	/* a NUL ends a sequence early */
}

/*
 * Opened with O_NONBLOCK so that a FIFO without a writer, a tty or a device
 * does not block open() itself; fstat() then refuses anything that is not a
 * regular file before a byte is read, so /dev/zero cannot flood us either.
 */
int kscen_open_regular(const char *path, size_t max, size_t *size)
{
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -ENODEV;
	else if ((unsigned long long)st.st_size > max)
		ret = -EFBIG;
	else {
		*size = st.st_size;
		return fd;
	}
	close(fd);
	return ret;
}

/* The buffer is sized from the file's size, not from @max: a small file costs little. */
int kscen_read_regular(const char *path, size_t max, char **out, size_t *len)
{
	size_t got = 0, cap, size;
	char *buf = NULL;
	ssize_t n;
	int fd, ret = 0;

	fd = kscen_open_regular(path, max, &size);
	if (fd < 0)
		return fd;
	/* One byte more than the size: a file that grows is noticed. */
	cap = size + 1;
	buf = kscen_xmalloc(cap + 1);
	while ((n = read(fd, buf + got, cap - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		got += n;
		if (got == cap) {
			ret = got > max ? -EFBIG : -EAGAIN;
			goto out;
		}
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return ret;
}

const char *kscen_read_strerror(int err)
{
	switch (err) {
	case -ENODEV:
		return "not a regular file (a FIFO, socket or device)";
	case -EISDIR:
		return "not a regular file (a directory)";
	case -EAGAIN:
		return "the file changed while it was read";
	default:
		return strerror(-err);
	}
}

/* Now, UTC, ISO 8601 to the second ("2026-12-02T10:15:03Z"). */
void kscen_utc_now_buf(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

char *kscen_utc_now(void)
{
	char buf[32];

	kscen_utc_now_buf(buf, sizeof(buf));
	return kscen_xstrdup(buf);
}

/* Hot: the sentinels call it in every sample process (noise.c). */
__attribute__((hot)) long long kscen_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void kscen_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The command line as one string, quoted where a shell would need it. */
char *kscen_join_argv(int argc, char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	s = p = kscen_xmalloc(len);
	for (int i = 0; i < argc; i++) {
		bool plain = *argv[i] && strspn(argv[i],
			"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			"_-./=:,+@%") == strlen(argv[i]);

		if (i)
			*p++ = ' ';
		if (plain) {
			p = stpcpy(p, argv[i]);
			continue;
		}
		*p++ = '\'';
		for (const char *a = argv[i]; *a; a++)
			p = *a == '\'' ? stpcpy(p, "'\\''") : (*p = *a, p + 1);
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}

const char *kscen_did_you_mean(char *buf, size_t len, const char *hint,
			       const char *none)
{
	if (!hint)
		return none;
	snprintf(buf, len, "; did you mean '%s'?", hint);
	return buf;
}

void kscen_sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

bool kscen_same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

bool kscen_blank(const char *s)
{
	if (!s)
		return true;
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

bool kscen_name_ok(const char *s)
{
	/* The scenario's name is a directory under results/: NAME_MAX bounds it. */
	if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 ||
	    strlen(s) > KSCEN_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_.-") == strlen(s);
}

int kscen_perf_paranoid(void)
{
	char buf[32], *s = buf, *end;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	long v;

	if (!f)
		return KSCEN_PARANOID_UNKNOWN;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < INT_MIN || v > INT_MAX)
		v = KSCEN_PARANOID_UNKNOWN;
	return v;
}
