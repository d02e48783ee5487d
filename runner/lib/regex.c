// SPDX-License-Identifier: GPL-2.0
/*
 * regex.c - a metric's regex (kscen_metric_regex(), declared in util.h):
 * what matching it can cost, bounded before regcomp() sees it, then
 * compiled as POSIX extended with exactly one capture group.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

#define RE_MAX_COUNT 255	/* {m,n}: POSIX's least RE_DUP_MAX */
#define RE_MAX_SIZE 1000	/* atoms, once every {m,n} is expanded */
#define RE_MAX_DEPTH 32		/* of groups */

/* The end of the bracket expression at @p ('['), past its ']'. */
static const char *bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')		/* a ']' first is itself */
		p++;
	while (*p && *p != ']') {
		char end = p[1];

		/* [:class:], [.coll.], [=equiv=] hold a ']' of their own */
		if (*p == '[' && (end == ':' || end == '.' || end == '=')) {
			const char *q = p + 2;

			while (*q && !(q[0] == end && q[1] == ']'))
				q++;
			p = *q ? q + 2 : q;
		} else {
			p++;
		}
	}
	return *p ? p + 1 : p;
}

/*
 * "{m}", "{m,}", "{m,n}" at @p, and glibc's "{,n}" (0 to n): its length and
 * its largest count, or 0.
 */
static size_t interval(const char *p, unsigned long *count)
{
	const char *q = p + 1;
	unsigned long m = 0, n;
	char *end;

	if (*q != ',' && (*q < '0' || *q > '9'))
		return 0;
	if (*q != ',') {
		m = strtoul(q, &end, 10);
		q = end;
	}
	n = m;
	if (*q == ',') {
		q++;
		if (*q >= '0' && *q <= '9') {
			n = strtoul(q, &end, 10);
			q = end;
		}
	}
	if (*q != '}')
		return 0;
	*count = m > n ? m : n;
	return q + 1 - p;
}

/*
 * What matching the ERE @p can cost, before regcomp() sees it: a
 * back-reference (\1 to \9) outside a bracket expression (glibc matches
 * those by backtracking: (a*)*\1x takes 0.1 s on 80 bytes of "a", 1.6 s on
 * 160, over 30 s on 320), a repetition count past RE_MAX_COUNT, or more
 * than RE_MAX_SIZE atoms once the counts are expanded (regcomp() expands
 * them: (a{0,30000}) took more than 6 GB; ((a{0,20}){0,20}){0,20} 2.3 s
 * and 200 MB, 1000 atoms at most 0.4 s and 21 MB, 2026-12-04). Why it is
 * refused in @why, or NULL.
 */
static const char *regex_cost(const char *p, char *why, size_t len)
{
	/* per open group: the size of its branches so far and of this one */
	unsigned long total[RE_MAX_DEPTH + 1] = { 0 }, branch[RE_MAX_DEPTH + 1] = { 0 };
	unsigned long last = 0, count;	/* the size of the last atom */
	unsigned depth = 0;
	size_t n;

	while (*p) {
		switch (*p) {
		case '\\':
			if (p[1] >= '1' && p[1] <= '9') {
				snprintf(why, len, "back-references (\\1 to \\9) are not "
					 "supported: matching them takes time that explodes with "
					 "the length of the output");
				return why;
			}
			last = 1;
			p += p[1] ? 2 : 1;
			break;
		case '[':
			last = 1;
			p = bracket_end(p);
			break;
		case '(':
			if (depth == RE_MAX_DEPTH) {
				snprintf(why, len, "groups nested more than %d deep", RE_MAX_DEPTH);
				return why;
			}
			depth++;
			total[depth] = branch[depth] = 0;
			last = 0;
			p++;
			continue;	/* nothing added to the enclosing branch yet */
		case ')':
			if (!depth) {
				last = 1;
				p++;
				break;
			}
			last = total[depth] + branch[depth];
			depth--;
			p++;
			break;
		case '|':
			total[depth] += branch[depth];
			branch[depth] = last = 0;
			p++;
			continue;
		case '*':
		case '?':
			p++;
			continue;
		case '+':	/* a+ is aa* to glibc */
			branch[depth] += last;
			last *= 2;
			p++;
			/* a++++...: each doubles, said before the count wraps */
			if (branch[depth] + total[depth] > RE_MAX_SIZE)
				goto big;
			continue;
		case '{':
			n = interval(p, &count);
			if (n) {
				if (count > RE_MAX_COUNT) {
					snprintf(why, len, "the repetition count %lu is above %d",
						 count, RE_MAX_COUNT);
					return why;
				}
				branch[depth] += last * (count ? count - 1 : 0);
				last *= count;
				p += n;
				if (branch[depth] + total[depth] > RE_MAX_SIZE)
					goto big;
				continue;
			}
			/* a '{' of its own */
			__attribute__((fallthrough));
		default:
			last = 1;
			p++;
			break;
		}
		branch[depth] += last;
		if (branch[depth] + total[depth] > RE_MAX_SIZE)
			goto big;
	}
	return NULL;
big:
	snprintf(why, len, "more than %d characters once its repetition counts are "
		 "expanded, more than a metric's regex needs and costly to compile",
		 RE_MAX_SIZE);
	return why;
}

int kscen_metric_regex(regex_t *re, const char *pattern, const char *what,
		       char *err, size_t len)
{
	char msg[192];
	size_t nsub;
	int ret;

	if (regex_cost(pattern, msg, sizeof(msg))) {
		snprintf(err, len, "%s: %s", what, msg);
		return -EINVAL;
	}
	ret = regcomp(re, pattern, REG_EXTENDED | REG_NEWLINE);
	if (ret) {
		regerror(ret, re, msg, sizeof(msg));
		snprintf(err, len, "%s: %s", what, msg);
		return -EINVAL;
	}
	nsub = re->re_nsub;
	if (nsub != 1) {
		regfree(re);
		snprintf(err, len, "%s: needs exactly one capture group, has %zu",
			 what, nsub);
		return -EINVAL;
	}
	return 0;
}
