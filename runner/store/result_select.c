// SPDX-License-Identifier: GPL-2.0
/*
 * result_select.c - a stored run's jobs picked by id before it is parsed
 * (kscen_result_load_some(), result_load.c): a line scan keeps the run's
 * header and the jobs asked for, and skips the others without copying
 * them; and the sets of job ids that ask.
 */
#define _GNU_SOURCE	/* memmem */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "store.h"

/* ---- Only some jobs ---- */

/*
 * A stored run's lines, read through one buffer: the jobs skipped are
 * never copied or mapped. (A 2,000-job run is 2.3 MB. Reading it whole
 * faulted in fresh memory for all of it, and mapping it took a page-table
 * entry a page: 2.2-2.6 ms of a 13 ms run in a VM where page-table changes
 * are costly, docs/performance.md figure 4. read(2) in 64 KiB pieces takes
 * 0.2 ms.)
 */
struct lines {
	int fd;
	bool eof, err;		/* err: a read failed or a line is too long */
	size_t pos, end;	/* the bytes of buf not yet given */
	char buf[64 * 1024];
};

/* The first newline in [@p, @end), a word at a time, or @end. */
static const char *find_nl(const char *p, const char *end)
{
	const uint64_t ones = 0x0101010101010101ULL, nls = ones * '\n';

	while (end - p >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		w ^= nls;	/* a zero byte where a newline was */
		if ((w - ones) & ~w & (ones << 7))
			break;
		p += 8;
	}
	while (p < end && *p != '\n')
		p++;
	return p;
}

/* The next line, its newline included (the last one may have none). */
static bool next_line(struct lines *l, const char **line, size_t *n)
{
	for (;;) {
		const char *p = l->buf + l->pos, *e = l->buf + l->end;
		const char *nl = find_nl(p, e);
		size_t tail = e - p;
		ssize_t got;

		if (nl < e || (l->eof && tail)) {
			*line = p;
			*n = nl < e ? (size_t)(nl + 1 - p) : tail;
			l->pos += *n;
			return true;
		}
		if (l->eof)
			return false;
		if (tail == sizeof(l->buf)) {
			l->err = true;
			return false;
		}
		memmove(l->buf, p, tail);
		l->pos = 0;
		l->end = tail;
		got = read(l->fd, l->buf + tail, sizeof(l->buf) - tail);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			l->err = true;
			return false;
		}
		l->eof = !got;
		l->end += got;
	}
}

/*
 * The id of the job whose "- id: " line starts at @p, as kscen writes it:
 * a plain scalar to the end of the line. Anything else (quoted, a comment,
 * blanks at the end) is left to the full parse: false.
 */
static bool plain_id(const char *p, const char *end, char *id, size_t len)
{
	const char *v = p + 6, *e = memchr(v, '\n', end - v);
	size_t n;

	e = e ? e : end;
	n = e - v;
	if (!n || n >= len || strchr("'\"&*!|>%@`{[#", *v) || memmem(v, n, " #", 2) ||
	    v[n - 1] == ' ' || v[n - 1] == '\r')
		return false;
	memcpy(id, v, n);
	id[n] = '\0';
	return true;
}

static void append(char **out, size_t *len, size_t *cap, const char *p, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = 2 * (*len + n + 1);
		*out = kscen_xrealloc(*out, *cap);
	}
	memcpy(*out + *len, p, n);
	*len += n;
	(*out)[*len] = '\0';
}

/*
 * The text of @l with only the jobs in @want, if it is laid out as result.c
 * writes it: every other key before "jobs:", and each job a "- id: ID" line
 * with its lines indented below. NULL otherwise.
 */
static char *select_jobs(struct lines *l, const struct kscen_idset *want, size_t *out_len)
{
	char *out = NULL, id[4096];
	size_t olen = 0, cap = 0, head = 0, n;
	bool in_jobs = false, keep = false;
	unsigned kept = 0;
	const char *p;

	while (next_line(l, &p, &n)) {
		if (!in_jobs) {
			append(&out, &olen, &cap, p, n);
			if (n == 6 && !memcmp(p, "jobs:\n", 6)) {
				in_jobs = true;
				head = olen - 6;
			}
			continue;
		}
		if (*p == ' ' || *p == '\n') {		/* a line of the job */
			if (keep)
				append(&out, &olen, &cap, p, n);
			continue;
		}
		/* something else at the top than a job: not ours */
		if (n < 6 || memcmp(p, "- id: ", 6) || !plain_id(p, p + n, id, sizeof(id)))
			goto fail;
		keep = kscen_idset_has(want, id);
		if (keep) {
			append(&out, &olen, &cap, p, n);
			kept++;
		}
	}
	if (l->err || !in_jobs)
		goto fail;
	if (!kept) {
		olen = head;
		append(&out, &olen, &cap, "jobs: []\n", 9);
	}
	*out_len = olen;
	return out;
fail:
	free(out);
	return NULL;
}

char *kscen_result_select(const char *path, const struct kscen_idset *want,
			  size_t *some_len)
{
	struct lines *l;
	char *some;
	size_t size;
	int fd = kscen_open_regular(path, KSCEN_RESULT_MAX_FILE, &size);

	if (fd < 0)
		return NULL;
	l = kscen_xcalloc(1, sizeof(*l));
	l->fd = fd;
	some = select_jobs(l, want, some_len);
	free(l);
	close(fd);
	return some;
}

/* ---- Sets of job ids ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void kscen_idset_add(struct kscen_idset *set, const char *id)
{
	if (!(set->nr & (set->nr + 1)) || !set->id)	/* 0, 1, 3, 7, ...: grow */
		set->id = kscen_xrealloc(set->id, 2 * (set->nr + 1) * sizeof(*set->id));
	set->id[set->nr++] = id;
}

void kscen_idset_sort(struct kscen_idset *set)
{
	if (set->nr)
		qsort(set->id, set->nr, sizeof(*set->id), cmp_str);
}

void kscen_idset_from_run(struct kscen_idset *set, const struct kscen_run *run)
{
	memset(set, 0, sizeof(*set));
	for (unsigned i = 0; i < run->nr_jobs; i++)
		if (run->jobs[i].id)
			kscen_idset_add(set, run->jobs[i].id);
	kscen_idset_sort(set);
}

bool kscen_idset_has(const struct kscen_idset *set, const char *id)
{
	return set->nr && bsearch(&id, set->id, set->nr, sizeof(*set->id), cmp_str);
}

void kscen_idset_free(struct kscen_idset *set)
{
	free(set->id);
	memset(set, 0, sizeof(*set));
}
