/* SPDX-License-Identifier: GPL-2.0 */
/*
 * journal_int.h - what the journal's writer (journal.c) and its reader
 * (journal_read.c) share: the open journal, the first line of its format,
 * the fields of a sample's noise record, and a record's strings
 * percent-encoded and decoded, each record one write(2). Private to those
 * two files; static inline, so that neither calls into the other for them.
 * Include it after _GNU_SOURCE (vasprintf).
 */
#ifndef KSCEN_JOURNAL_INT_H
#define KSCEN_JOURNAL_INT_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "lib/util.h"
#include "journal.h"

#define MAGIC "kscen-journal 1"

struct kscen_journal {
	char *path;
	int fd;			/* O_APPEND, flock()ed */
	FILE *replay;		/* the records still to replay; NULL when none */
	unsigned lineno;	/* the line of the next record to replay */
	off_t off;		/* and where it starts */
	unsigned long replayed;
	char *partial;		/* a partial result of this run, to replace */
	char *started;		/* the run's start, which that result must have */
	int err;		/* the first write error, sticky */
	long long synced_ns;	/* the last fdatasync, kscen_now_ns() */
};

/*
 * What the sentinels saw, after the seconds: "n" and the numbers of
 * struct kscen_noise_raw; missing before noise.c, then the sample was not
 * judged.
 */
#define NOISE_FMT "n %u %u %lld %lld %lld %lld %lld %lld %ld %ld %ld %ld %ld %lld %d"
#define NOISE_ARGS(d) (d)->nr_cpus, (d)->clk_tck, (d)->ns, (d)->busy, (d)->steal, \
	(d)->own_us, (d)->intr, (d)->softirq, (d)->vcsw, (d)->ivcsw, \
	(d)->migrations, (d)->throttle, (d)->khz, (d)->total

/* Bytes that would break a line or a field are written as %XX. */
static inline char *enc(const char *s)
{
	char *out = kscen_xmalloc(3 * strlen(s) + 2), *p = out;

	if (!*s)
		return strcpy(out, "%");	/* the empty string */
	for (; *s; s++) {
		unsigned char c = *s;

		if (c <= ' ' || c == '%' || c >= 0x7f)
			p += sprintf(p, "%%%02X", c);
		else
			*p++ = c;
	}
	*p = '\0';
	return out;
}

static inline int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode @s in place; -EINVAL on a bad escape or an embedded NUL. */
static inline int dec(char *s)
{
	char *w = s;

	if (!strcmp(s, "%")) {
		*s = '\0';
		return 0;
	}
	for (; *s; s++) {
		if (*s != '%') {
			*w++ = *s;
			continue;
		}
		int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);

		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			return -EINVAL;
		*w++ = hi << 4 | lo;
		s += 2;
	}
	*w = '\0';
	return 0;
}

/* One write(2) a record: a crash leaves whole lines and at most one torn. */
static inline void put(struct kscen_journal *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void put(struct kscen_journal *j, const char *fmt, ...)
{
	va_list ap;
	char *line;
	size_t len, off = 0;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) {
		j->err = j->err ? j->err : -ENOMEM;
		return;
	}
	len = n;
	while (off < len && !j->err) {
		ssize_t w = write(j->fd, line + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			j->err = -errno;
		else
			off += w;
	}
	free(line);
}

static inline void put_str(struct kscen_journal *j, const char *key, const char *v)
{
	char *e = enc(v);

	put(j, "%s %s\n", key, e);
	free(e);
}

#endif
