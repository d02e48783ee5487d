/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario_load.h - the scenario/ stage's passes (file, shape, values) and
 * what the loader shares with the stages above it: a percentage parsed,
 * the defaults of repeat: auto, a libyaml error said at its place.
 */
#ifndef KSCEN_SCENARIO_LOAD_H
#define KSCEN_SCENARIO_LOAD_H

#include "lib/diag.h"
#include "scenario.h"

/*
 * The passes of loading a scenario (scenario.c runs them in this order).
 * Each reports its problems through diag.h as file:line:column and returns
 * 0 or -EINVAL.
 *  1. scenario_file.c: read the file (size capped), then libyaml's events:
 *     syntax, aliases, depth, node count; and the long axes (below), so
 *     that passes 2 and 3 read the text without their items.
 *  2. scenario_shape.c: libcyaml with schemas/scenario.h: the fixed keys,
 *     required ones, scalar or list, the number of jobs; @tree (the libyaml
 *     document of the same text) gives the positions.
 *  3. scenario.c: values, parameters and the open mappings, from the tree.
 */
struct yaml_parser_s;
struct yaml_document_s;
struct kscen_doc;
int kscen_scenario_read(const char *path, char **out, size_t *len);
/* The same from an open @fd (kscen run - reads stdin), @name for messages. */
int kscen_scenario_read_fd(const char *name, int fd, char **out, size_t *len);
/* Any scenario's text: at most 1 MiB, no NUL byte. */
int kscen_scenario_check_text(const char *file, const char *buf, size_t len);
/*
 * An axis of many values taken from pass 1's events, not from the tree
 * (scenario_axis.c): a flow list ("loops: [1000, 1001, ...]") of at least
 * KSCEN_STREAM_AXIS_MIN scalars, no tag or anchor, all ASCII, the value of
 * a parameter in a job's or the defaults' params. Passes 2 and 3 read a
 * copy of the text with the list's items taken out (every line and every
 * column outside the list kept), so the tree holds an empty list at @mark
 * and the walk takes the values from here: 10^5 values are not 10^5 tree
 * nodes, nor three parses of them.
 */
#define KSCEN_STREAM_AXIS_MIN 512
extern unsigned kscen_stream_axis_min;	/* that, but for tests of the tree's way */
struct kscen_axis_item {	/* 12 bytes: 10^5 of them are 1.2 MB */
	struct kscen_mark mark;
	unsigned text : 31;	/* its offset in the texts (a file is < 2 GiB) */
	unsigned null : 1;	/* YAML's null ("~", "null"; plain) */
};
struct kscen_stream_axis {
	struct kscen_mark mark;	/* of its '[' */
	size_t at, end;		/* the byte offsets of its '[' and ']' */
	size_t copy_at;		/* of its '[' in the copy without it */
	unsigned nr;
	struct kscen_axis_item *item;
	const char *texts;	/* the items' texts, one block, each ending in NUL */
	char *arena;		/* the same while this owns it: NULL once the
				 * walk has it (scenario_map.c) */
};
struct kscen_streamed {
	struct kscen_stream_axis *axis;
	unsigned nr;
	char *text;		/* the copy without them, or NULL: none taken */
	size_t len;		/* its length */
	unsigned lexed;		/* of them, taken from the text before pass 1 */
};
/* Pass 1; into @out, the long axes taken from its events (free with fini). */
int kscen_scenario_prescan(const char *file, const char *buf, size_t len,
			   struct kscen_streamed *out);
/*
 * Before pass 1, the long lists of plain words taken from the text itself
 * (scenario_axis.c), @out->text the text without them: how many. Pass 1
 * then reads that text and must find each where an axis is (else it reads
 * the whole text again). Off: every list from pass 1's events (tests).
 */
unsigned kscen_axis_prelex(const char *buf, size_t len, struct kscen_streamed *out);
extern bool kscen_axis_prelex_on;
void kscen_streamed_fini(struct kscen_streamed *st);
/* The axis whose '[' is at @m, or NULL. */
struct kscen_stream_axis *kscen_streamed_at(const struct kscen_streamed *st,
					    struct kscen_mark m);
int kscen_scenario_shape(const char *file, const char *buf, size_t len,
			 struct yaml_document_s *tree, struct kscen_doc **doc);
void kscen_scenario_shape_free(struct kscen_doc *doc);
/* A libyaml parser's problem, at its position. */
void kscen_yaml_error(const char *file, struct yaml_parser_s *p);
/* "5%" or "5" -> 5: above 0, at most 100 (until_ci:, --until-ci). */
int kscen_parse_pct(const char *text, double *out);
/* repeat: auto defaults; see scenario.c. */
#define KSCEN_AUTO_MIN_REPEAT 6
#define KSCEN_AUTO_MAX_REPEAT 30
#define KSCEN_AUTO_UNTIL_CI 5.0
/* The time parameter that "timeout:" is parsed as. */
extern const struct kscen_param kscen_timeout_param;

/*
 * A scenario's name, the directory of its runs under results/: a name as
 * kscen_name_ok() takes it that does not start with '.' either (a hidden
 * directory). NULL, or why not, naming the character, in @why: one rule for
 * validate and run.
 */
const char *kscen_scenario_name_why(const char *s, char *why, size_t len);

#endif
