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
	    (at = byte_at(sc, ev->start_mark.index)) < sc->len && sc->buf[at] == '[') {
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
 * The text for passes 2 and 3: each list's items out, its line breaks in,
 * and the blanks that keep its ']' in its column; on a list of one line,
 * those only when something follows it there.
 */
static void compact(struct kscen_axis_scan *sc)
{
	struct kscen_streamed *st = sc->out;
	size_t from = 0;
	char *o;

	if (!st->nr)
		return;
	o = st->text = kscen_xmalloc(sc->len + 1);
	for (unsigned k = 0; k < st->nr; k++) {
		const struct kscen_stream_axis *a = &st->axis[k];
		const char *nl = NULL;

		memcpy(o, sc->buf + from, a->at + 1 - from);
		o += a->at + 1 - from;
		for (size_t i = a->at + 1; i < a->end; i++)
			if (sc->buf[i] == '\n') {
				*o++ = '\n';
				nl = sc->buf + i;
			}
		if (nl || !rest_blank(sc->buf, sc->len, a->end + 1)) {
			size_t n = sc->buf + a->end - (nl ? nl + 1 : sc->buf + a->at + 1);

			memset(o, ' ', n);
			o += n;
		}
		from = a->end;
	}
	memcpy(o, sc->buf + from, sc->len - from);
	o += sc->len - from;
	*o = '\0';
	st->len = o - st->text;
}

void kscen_axis_scan_end(struct kscen_axis_scan *sc, bool failed)
{
	drop_open(sc);
	if (failed)
		kscen_streamed_fini(sc->out);
	else
		compact(sc);
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
