// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - aligned columns of text for the tables people read (the mail,
 * compare, history): cells are kept until the table is printed, so every
 * column is as wide as its widest cell, numbers right-aligned, counted in
 * columns on a terminal ("±" is two bytes and one column). A cell never
 * carries a control character from a stored run into the output.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "lib/util.h"

void kscen_table_init(struct kscen_table *t, unsigned cols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->col = kscen_xcalloc(cols + 1, sizeof(*t->col));
	for (unsigned c = 0; c < cols; c++)
		t->col[c].gap = c ? 2 : 0;
}

void kscen_table_free(struct kscen_table *t)
{
	for (size_t i = 0; i < (size_t)t->rows * t->cols; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t->col);
	memset(t, 0, sizeof(*t));
}

unsigned kscen_table_row(struct kscen_table *t)
{
	t->cell = kscen_xrealloc(t->cell, (size_t)(t->rows + 1) * t->cols *
				 sizeof(*t->cell));
	memset(t->cell + (size_t)t->rows * t->cols, 0, t->cols * sizeof(*t->cell));
	return t->rows++;
}

unsigned kscen_text_cols(const char *s)
{
	unsigned n = 0;

	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

void kscen_table_set(struct kscen_table *t, unsigned row, unsigned col,
		     const char *fmt, ...)
{
	char **cell = &t->cell[(size_t)row * t->cols + col];
	va_list ap;

	if (row >= t->rows || col >= t->cols)
		return;
	free(*cell);
	va_start(ap, fmt);
	if (vasprintf(cell, fmt, ap) < 0)
		abort();	/* out of memory, as kscen_xmalloc() */
	va_end(ap);
	for (char *p = *cell; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

const char *kscen_table_get(const struct kscen_table *t, unsigned row,
			    unsigned col)
{
	const char *s = row < t->rows && col < t->cols ?
			t->cell[(size_t)row * t->cols + col] : NULL;

	return s ? s : "";
}

/*
 * Does cell (@r, @c) take the next column, joined to it, too? Where that
 * one is empty, a heading does ("old" over a value and its CI) and so does
 * a word where a value would be ("FAILED", "-"): right-aligned over both.
 */
static bool spans(const struct kscen_table *t, unsigned r, unsigned c)
{
	const char *s = kscen_table_get(t, r, c);

	if (c + 1 >= t->cols || !t->col[c + 1].joined)
		return false;
	if (*kscen_table_get(t, r, c + 1) || !*s)
		return false;
	return !r || (!strchr("0123456789.+", *s) &&
		      !(*s == '-' && s[1] >= '0' && s[1] <= '9'));
}

/* The widest cell of column @c that does not span; @all: those that do too. */
static unsigned own_width(const struct kscen_table *t, unsigned c, bool all)
{
	unsigned w = 0;

	for (unsigned r = 0; r < t->rows; r++) {
		unsigned n = kscen_text_cols(kscen_table_get(t, r, c));

		if (all || !spans(t, r, c))
			w = n > w ? n : w;
	}
	return w;
}

/* Column @c's width: its cells, and room for those spanning it and the next. */
static unsigned col_width(const struct kscen_table *t, unsigned c)
{
	unsigned w = own_width(t, c, false), next, gap;

	if (c + 1 >= t->cols || !t->col[c + 1].joined)
		return w;
	next = own_width(t, c + 1, true);
	gap = t->col[c + 1].gap;
	for (unsigned r = 0; r < t->rows; r++) {
		unsigned n = kscen_text_cols(kscen_table_get(t, r, c));

		if (spans(t, r, c) && n > w + gap + next)
			w = n - gap - next;
	}
	return w;
}

unsigned kscen_table_width(const struct kscen_table *t, const bool *shown)
{
	unsigned w = 0, any = 0;

	for (unsigned c = 0; c < t->cols; c++) {
		if (shown && !shown[c])
			continue;
		w += (any++ ? t->col[c].gap : 0) + col_width(t, c);
	}
	return w;
}

void kscen_table_print_row(FILE *out, const struct kscen_table *t, unsigned r,
			   const bool *shown, const char *indent)
{
	unsigned any = 0, pad = 0;

	fputs(indent, out);
	for (unsigned c = 0; c < t->cols; c++) {
		const char *s = kscen_table_get(t, r, c);
		unsigned w = col_width(t, c), n = kscen_text_cols(s);
		bool right = t->col[c].right;

		if (shown && !shown[c])
			continue;
		pad += any++ ? t->col[c].gap : 0;
		/* a heading or a word over this column and the next, joined */
		if (spans(t, r, c) && (!shown || shown[c + 1])) {
			w += t->col[c + 1].gap + col_width(t, c + 1);
			right = true;
			c++;
		}
		if (right && w > n)
			pad += w - n;
		/* trailing blanks are never printed */
		if (*s) {
			fprintf(out, "%*s%s", (int)pad, "", s);
			pad = 0;
		}
		if (!right && w > n)
			pad += w - n;
	}
	fputc('\n', out);
}

void kscen_table_print(FILE *out, const struct kscen_table *t,
		       const bool *shown, const char *indent)
{
	for (unsigned r = 0; r < t->rows; r++)
		kscen_table_print_row(out, t, r, shown, indent);
}
