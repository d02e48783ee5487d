/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table.h - aligned columns of text (table.c) for the mail, compare and
 * history tables; private to runner/report/ and the commands that print
 * tables of runs.
 */
#ifndef KSCEN_TABLE_H
#define KSCEN_TABLE_H

#include <stdbool.h>
#include <stdio.h>

struct kscen_table_col {
	unsigned gap;		/* blanks before it (0 for the first shown) */
	bool right;		/* right-aligned: numbers */
	/*
	 * Its heading is the previous column's, right-aligned over both:
	 * "old" over "230 ±10%", a value and its CI.
	 */
	bool joined;
};

struct kscen_table {
	unsigned cols, rows;
	struct kscen_table_col *col;	/* cols of them: set after init */
	char **cell;			/* rows * cols, malloc'ed or NULL */
};

void kscen_table_init(struct kscen_table *t, unsigned cols);
void kscen_table_free(struct kscen_table *t);
/* A new row, empty; its index. */
unsigned kscen_table_row(struct kscen_table *t);
/* Cell @row, @col as printf says; control characters become '?'. */
void kscen_table_set(struct kscen_table *t, unsigned row, unsigned col,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
const char *kscen_table_get(const struct kscen_table *t, unsigned row,
			    unsigned col);
/* Columns @s takes on a terminal (UTF-8). */
unsigned kscen_text_cols(const char *s);
/* The width of the columns @shown (NULL: all), gaps included. */
unsigned kscen_table_width(const struct kscen_table *t, const bool *shown);
/* Row @r (or all rows) after @indent, without trailing blanks. */
void kscen_table_print_row(FILE *out, const struct kscen_table *t, unsigned r,
			   const bool *shown, const char *indent);
void kscen_table_print(FILE *out, const struct kscen_table *t,
		       const bool *shown, const char *indent);

#endif
