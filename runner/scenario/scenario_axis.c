// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_axis.c - long axes read from pass 1's events (scenario_load.h).
 *
 * A matrix of 10^5 jobs written as one axis is a file of 10^5 values. Built
 * into libyaml's tree, parsed again by libcyaml and walked, each value costs
 * a node, a tag, two copies and three parses: 0.18 s and 29 MiB for the
 * file where a one-job scenario loads in 0.01 s (docs/performance.md). The
 * prescan parses every event anyway; here it keeps the values of such an
 * axis as it goes, and the later passes read a copy of the text without
 * the list's items (compact()).
 *
 * Which lists: the value of a key of "params" in a job (an item of the root's
 * "jobs") or in the root's "defaults", in flow style, with at least
 * KSCEN_STREAM_AXIS_MIN items, each a scalar without a tag or an anchor,
 * and nothing but ASCII between its brackets (so that each byte is a
 * column, and no line break of another kind is lost). Anything else is
 * left to the tree, which reads every form; the walk (scenario_map.c)
 * checks a streamed value as it checks a node, at the same position.
 */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/util.h"
#include "scenario_load.h"
#include "scenario_axis.h"
#include "yaml_tree.h"

unsigned kscen_stream_axis_min = KSCEN_STREAM_AXIS_MIN;

static struct kscen_mark mark_of(yaml_mark_t m)
{
	return (struct kscen_mark){ m.line + 1, m.column + 1 };
}

/* What the value of @key is, in a mapping that is @parent. */
static enum axis_role child_role(enum axis_role parent, const char *key)
{
	switch (parent) {
	case ROLE_ROOT:
		return !strcmp(key, "jobs") ? ROLE_JOBS :
		       !strcmp(key, "defaults") ? ROLE_OWNER : ROLE_NONE;
	case ROLE_OWNER:
		return !strcmp(key, "params") ? ROLE_PARAMS : ROLE_NONE;
	case ROLE_PARAMS:
		return ROLE_AXIS;
	default:
		return ROLE_NONE;
	}
}

static void drop_open(struct kscen_axis_scan *sc)
{
	free(sc->open.item);
	free(sc->open.arena);
	memset(&sc->open, 0, sizeof(sc->open));
	sc->used = sc->room = sc->items_room = 0;
	sc->collecting = false;
}

/*
 * The byte offset of the character libyaml's marks count as @index: it
 * counts characters, not bytes, and not a byte order mark. Asked in the
 * order of the text (the cursor only goes forward); the prescan's parser
 * has checked the UTF-8.
 */
static size_t byte_at(struct kscen_axis_scan *sc, size_t index)
{
	if (!sc->byte && !sc->chr && sc->len >= 3 && !memcmp(sc->buf, "\xef\xbb\xbf", 3))
		sc->byte = 3;
	for (; sc->chr < index && sc->byte < sc->len; sc->chr++) {
		unsigned char c = sc->buf[sc->byte];

		sc->byte += c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	}
	return sc->chr == index ? sc->byte : (size_t)-1;
}

/* The list at @at..@end qualifies when nothing but ASCII is between them. */
static bool ascii_between(const char *buf, size_t at, size_t end)
{
	for (size_t i = at + 1; i < end; i++)
		if ((unsigned char)buf[i] >= 0x80 || buf[i] == '\r' || !buf[i])
			return false;
	return true;
}

static void close_axis(struct kscen_axis_scan *sc, const yaml_event_t *ev)
{
	size_t end = byte_at(sc, ev->start_mark.index), at = sc->open.at;
	struct kscen_streamed *st = sc->out;

	if (sc->open.nr < kscen_stream_axis_min || end >= sc->len ||
	    sc->buf[end] != ']' || !ascii_between(sc->buf, at, end)) {
		drop_open(sc);
		return;
	}
	sc->open.end = end;
	/* Given the rest of the text at first: no more than its own kept */
	sc->open.arena = kscen_xrealloc(sc->open.arena, sc->used);
	sc->open.item = kscen_xrealloc(sc->open.item, (sc->open.nr + 1) * sizeof(*sc->open.item));
	sc->open.texts = sc->open.arena;	/* where it stays */
	st->axis = kscen_xrealloc(st->axis, (st->nr + 1) * sizeof(*st->axis));
	st->axis[st->nr++] = sc->open;
	memset(&sc->open, 0, sizeof(sc->open));
	drop_open(sc);
}

static void add_item(struct kscen_axis_scan *sc, yaml_event_t *ev)
{
	struct kscen_stream_axis *a = &sc->open;

	if (ev->type != YAML_SCALAR_EVENT || ev->data.scalar.tag ||
	    ev->data.scalar.anchor) {
		drop_open(sc);	/* left to the tree */
		return;
	}
	if (sc->used + ev->data.scalar.length + 1 >= 1u << 31) {
		drop_open(sc);	/* beyond an item's offset: left to the tree */
		return;
	}
	/*
	 * Room for as many items as the rest of the text can hold (each is a
	 * character and a ',' at least): pages not written are not faulted
	 * in, and a list of 10^5 is not copied as it grows. Doubled past
	 * that, should it ever be reached.
	 */
	if (a->nr == sc->items_room) {
		sc->items_room = a->nr ? 2 * (size_t)a->nr : (sc->len - a->at) / 2 + 2;
		a->item = kscen_xrealloc(a->item, sc->items_room * sizeof(*a->item));
	}
	/* The texts one after the other in one block: not 10^5 of them. */
	while (sc->used + ev->data.scalar.length + 1 > sc->room) {
		/* First the rest of the text: "1000," is 4 bytes and a NUL */
		sc->room = sc->room ? 2 * sc->room : sc->len - a->at + 64;
		a->arena = kscen_xrealloc(a->arena, sc->room);
	}
	memcpy(a->arena + sc->used, ev->data.scalar.value, ev->data.scalar.length + 1);
	a->item[a->nr].text = sc->used;
	sc->used += ev->data.scalar.length + 1;
	a->item[a->nr].null = kscen_ynull((const char *)ev->data.scalar.value,
					  ev->data.scalar.style);
	a->item[a->nr].mark = mark_of(ev->start_mark);
	a->nr++;
}

/*
 * An axis's list at @at of pass 1's text that was lexed before it: found
 * where the lexer took it out, it is an axis. Its items' places, kept
 * relative to its '[', become the file's.
 */
static bool adopt(struct kscen_axis_scan *sc, size_t at, const yaml_event_t *ev)
{
	struct kscen_streamed *pre = sc->pre;
	struct kscen_stream_axis *a;

	if (!pre)
		return false;
	while (sc->next_pre < pre->nr && pre->axis[sc->next_pre].copy_at < at)
		sc->next_pre++;
	if (sc->next_pre == pre->nr || pre->axis[sc->next_pre].copy_at != at)
		return false;
	a = &pre->axis[sc->next_pre++];
	a->mark = mark_of(ev->start_mark);
	for (unsigned i = 0; i < a->nr; i++) {
		struct kscen_mark *m = &a->item[i].mark;

		if (!m->line)	/* on the line of the '[': a column from it */
			m->col += a->mark.col;
		m->line += a->mark.line;
	}
	sc->adopted++;
	return true;
}

void kscen_axis_scan_event(struct kscen_axis_scan *sc, yaml_event_t *ev)
{
	struct axis_frame *f = sc->depth ? &sc->frame[sc->depth - 1] : NULL;
	enum axis_role role = ROLE_NONE;
	size_t at;
	bool node = ev->type == YAML_SCALAR_EVENT || ev->type == YAML_ALIAS_EVENT ||
		    ev->type == YAML_MAPPING_START_EVENT ||
		    ev->type == YAML_SEQUENCE_START_EVENT;

	if (sc->stopped)
		return;
	if (ev->type == YAML_MAPPING_END_EVENT || ev->type == YAML_SEQUENCE_END_EVENT) {
		if (sc->collecting && sc->depth == sc->open_depth)
			close_axis(sc, ev);
		sc->depth--;
		return;
	}
	if (!node)
		return;
	if (sc->collecting && sc->depth == sc->open_depth) {
		add_item(sc, ev);
		if (ev->type == YAML_SCALAR_EVENT || ev->type == YAML_ALIAS_EVENT)
			return;
	}
	/* This node's role, from where it is in its parent. */
	if (!f) {
		role = ev->type == YAML_MAPPING_START_EVENT ? ROLE_ROOT : ROLE_NONE;
	} else if (f->map && f->at_key) {
		f->next = ev->type == YAML_SCALAR_EVENT ?
			  child_role(f->role, (const char *)ev->data.scalar.value) :
			  ROLE_NONE;
		f->at_key = false;
	} else if (f->map) {
		role = f->next;
		f->at_key = true;
	} else {
		role = f->role == ROLE_JOBS ? ROLE_OWNER : ROLE_NONE;
	}
	if (ev->type != YAML_MAPPING_START_EVENT && ev->type != YAML_SEQUENCE_START_EVENT)
		return;
	if (sc->depth == KSCEN_AXIS_SCAN_DEPTH) {	/* refused by the prescan */
		sc->stopped = true;
		return;
	}
	if (ev->type == YAML_MAPPING_START_EVENT && role != ROLE_ROOT &&
	    role != ROLE_OWNER && role != ROLE_PARAMS)
		role = ROLE_NONE;
	if (ev->type == YAML_SEQUENCE_START_EVENT && role != ROLE_JOBS &&
	    role != ROLE_AXIS)
		role = ROLE_NONE;
	sc->frame[sc->depth++] = (struct axis_frame){
		.role = role, .map = ev->type == YAML_MAPPING_START_EVENT, .at_key = true,
	};
	if (role == ROLE_AXIS && !sc->collecting &&
	    ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE &&
	    (at = byte_at(sc, ev->start_mark.index)) < sc->len && sc->buf[at] == '[' &&
	    !adopt(sc, at, ev)) {
		sc->collecting = true;
		sc->open_depth = sc->depth;
		sc->open.at = at;
		sc->open.mark = mark_of(ev->start_mark);
	}
}

/* Nothing but blanks or a comment after @i on its line. */
static bool rest_blank(const char *buf, size_t len, size_t i)
{
	for (; i < len && buf[i] != '\n'; i++) {
		if (buf[i] == '#')
			return true;
		if (buf[i] != ' ' && buf[i] != '\t')
			return false;
	}
	return true;
}

/*
 * The text for passes 2 and 3 (or, of lists lexed before pass 1, for pass
 * 1): each list's items out of @buf, its line breaks in, and the blanks
 * that keep its ']' in its column; on a list of one line, those only when
 * something follows it there.
 */
static void compact(const char *buf, size_t len, struct kscen_streamed *st)
{
	size_t from = 0;
	char *o;

	if (!st->nr)
		return;
	o = st->text = kscen_xmalloc(len + 1);
	for (unsigned k = 0; k < st->nr; k++) {
		struct kscen_stream_axis *a = &st->axis[k];
		const char *nl = NULL;

		memcpy(o, buf + from, a->at + 1 - from);
		o += a->at + 1 - from;
		a->copy_at = o - 1 - st->text;
		for (size_t i = a->at + 1; i < a->end; i++)
			if (buf[i] == '\n') {
				*o++ = '\n';
				nl = buf + i;
			}
		if (nl || !rest_blank(buf, len, a->end + 1)) {
			size_t n = buf + a->end - (nl ? nl + 1 : buf + a->at + 1);

			memset(o, ' ', n);
			o += n;
		}
		from = a->end;
	}
	memcpy(o, buf + from, len - from);
	o += len - from;
	*o = '\0';
	st->len = o - st->text;
}

/* @pre's lists into @st, in the order of the text; @pre keeps none. */
static void merge(struct kscen_streamed *st, struct kscen_streamed *pre)
{
	struct kscen_stream_axis *all = kscen_xcalloc(st->nr + pre->nr, sizeof(*all));
	unsigned i = 0, j = 0, n = 0;

	while (i < st->nr || j < pre->nr) {
		bool mine = j == pre->nr ||
			    (i < st->nr && (st->axis[i].mark.line < pre->axis[j].mark.line ||
					    (st->axis[i].mark.line == pre->axis[j].mark.line &&
					     st->axis[i].mark.col < pre->axis[j].mark.col)));

		all[n++] = mine ? st->axis[i++] : pre->axis[j++];
	}
	free(st->axis);
	free(pre->axis);
	st->axis = all;
	st->nr = n;
	pre->axis = NULL;
	pre->nr = 0;
	if (!st->text) {	/* nothing more taken by pass 1: its text it is */
		st->text = pre->text;
		st->len = pre->len;
		pre->text = NULL;
	}
}

bool kscen_axis_scan_end(struct kscen_axis_scan *sc, bool failed)
{
	bool found = !sc->pre || sc->adopted == sc->pre->nr;

	drop_open(sc);
	if (failed || !found) {
		kscen_streamed_fini(sc->out);
		return found;
	}
	compact(sc->buf, sc->len, sc->out);
	if (sc->pre)
		merge(sc->out, sc->pre);
	return true;
}

void kscen_streamed_fini(struct kscen_streamed *st)
{
	for (unsigned i = 0; i < st->nr; i++) {
		free(st->axis[i].arena);
		free(st->axis[i].item);
	}
	free(st->axis);
	free(st->text);
	memset(st, 0, sizeof(*st));
}

struct kscen_stream_axis *kscen_streamed_at(const struct kscen_streamed *st,
					    struct kscen_mark m)
{
	for (unsigned i = 0; st && i < st->nr; i++)
		if (st->axis[i].mark.line == m.line && st->axis[i].mark.col == m.col)
			return &st->axis[i];
	return NULL;
}

/* ---- Before pass 1: long lists of plain words, from the text ---- */

bool kscen_axis_prelex_on = true;

/* A byte of a word the lexer takes: YAML reads such a word as it is. */
static bool word_byte(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_' || c == '.' || c == '+' || c == '-' || c == '/';
}

/* Blanks and line breaks from @i, each break followed by a blank or a break. */
static bool skip_space(const char *buf, size_t len, size_t *i)
{
	for (; *i < len && (buf[*i] == ' ' || buf[*i] == '\n'); (*i)++)
		if (buf[*i] == '\n' && *i + 1 < len && buf[*i + 1] != ' ' && buf[*i + 1] != '\n')
			return false;
	return *i < len;
}

/*
 * The list whose '[' is at @at, if every item is a word that YAML reads as
 * a plain scalar of exactly its bytes: words of [A-Za-z0-9_.+/-] (a '-'
 * first only before a digit or a '.'), each followed by a ',' or the ']'
 * with blanks or line breaks between, and no line within it starting
 * with anything but a blank (so no "---" or "..." there). Anything else
 * (a quote, a comment, a tab, a CR, two words without a ',', a ',' last)
 * is left to pass 1's events. Calls @item(@arg, offset, length) for each
 * word when given; the number of words, 0 if it is not such a list, its
 * ']' in *@end.
 */
static unsigned lex_list(const char *buf, size_t len, size_t at, size_t *end,
			 void (*item)(void *, size_t, size_t), void *arg)
{
	size_t i = at + 1, w;
	unsigned nr = 0;

	for (;;) {
		if (!skip_space(buf, len, &i) || !word_byte(buf[i]))
			return 0;
		if (buf[i] == '-' && (i + 1 == len || ((buf[i + 1] < '0' || buf[i + 1] > '9') &&
						       buf[i + 1] != '.')))
			return 0;
		for (w = i; i < len && word_byte(buf[i]); i++)
			;
		if (item)
			item(arg, w, i - w);
		nr++;
		if (!skip_space(buf, len, &i))
			return 0;
		if (buf[i] == ']') {
			*end = i;
			return nr;
		}
		if (buf[i++] != ',')
			return 0;
	}
}

struct lexed {
	const char *buf;
	struct kscen_stream_axis *a;
	size_t used;		/* of a->arena */
	size_t seen, line_at;	/* read up to; where that line starts */
	unsigned line;		/* lines after the '[' */
};

/* A word of the list being kept: its text, its place from the '['. */
static void keep_word(void *arg, size_t at, size_t n)
{
	struct lexed *x = arg;
	struct kscen_axis_item *it = &x->a->item[x->a->nr++];

	for (; x->seen < at; x->seen++)
		if (x->buf[x->seen] == '\n')
			x->line++, x->line_at = x->seen + 1;
	/* line 0: a column from the '[' (adopt() adds its own) */
	it->mark = (struct kscen_mark){ x->line, x->line ? at - x->line_at + 1 : at - x->a->at };
	memcpy(x->a->arena + x->used, x->buf + at, n);
	x->a->arena[x->used + n] = '\0';
	it->text = x->used;
	it->null = kscen_ynull(x->a->arena + x->used, YAML_PLAIN_SCALAR_STYLE);
	x->used += n + 1;
}

unsigned kscen_axis_prelex(const char *buf, size_t len, struct kscen_streamed *out)
{
	size_t end;

	memset(out, 0, sizeof(*out));
	for (const char *p = buf; (p = memchr(p, '[', buf + len - p)); p++) {
		size_t at = p - buf;
		unsigned nr = lex_list(buf, len, at, &end, NULL, NULL);
		struct kscen_stream_axis *a;
		struct lexed x = { .buf = buf, .seen = at + 1, .line_at = at + 1 };

		/* a word a line, "1,": the texts take no more than the list */
		if (nr < kscen_stream_axis_min || end - at >= 1u << 31)
			continue;
		out->axis = kscen_xrealloc(out->axis, (out->nr + 1) * sizeof(*out->axis));
		a = x.a = &out->axis[out->nr++];
		*a = (struct kscen_stream_axis){ .at = at, .end = end };
		a->item = kscen_xmalloc((nr + 1) * sizeof(*a->item));
		a->arena = kscen_xmalloc(end - at + 1);
		a->texts = a->arena;
		lex_list(buf, len, at, &end, keep_word, &x);
		p = buf + end;
	}
	compact(buf, len, out);
	return out->nr;
}
