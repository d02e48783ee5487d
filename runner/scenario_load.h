/* SPDX-License-Identifier: GPL-2.0 */
/* scenario_load.h - helpers the loader shares with the expander and main. */
#ifndef KSCEN_SCENARIO_LOAD_H
#define KSCEN_SCENARIO_LOAD_H

#include "diag.h"
#include "scenario.h"

/*
 * The passes of loading a scenario (scenario.c runs them in this order).
 * Each reports its problems through diag.h as file:line:column and returns
 * 0 or -EINVAL.
 *  1. scenario_file.c: read the file (size capped), then libyaml's events:
 *     syntax, aliases, depth, node count.
 *  2. scenario_shape.c: libcyaml with schemas/scenario.h: the fixed keys,
 *     required ones, scalar or list, the number of jobs; @tree (the libyaml
 *     document of the same text) gives the positions.
 *  3. scenario.c: values, parameters and the open mappings, from the tree.
 */
struct yaml_parser_s;
struct yaml_document_s;
struct kscen_doc;
int kscen_scenario_read(const char *path, char **out, size_t *len);
int kscen_scenario_prescan(const char *file, const char *buf, size_t len);
int kscen_scenario_shape(const char *file, const char *buf, size_t len,
			 struct yaml_document_s *tree, struct kscen_doc **doc);
void kscen_scenario_shape_free(struct kscen_doc *doc);
/* A libyaml parser's problem, at its position. */
void kscen_yaml_error(const char *file, struct yaml_parser_s *p);
/*
 * [A-Za-z0-9_.-]+, at most KSCEN_NAME_MAX bytes, and not "." or "..": safe
 * as a directory name.
 */
#define KSCEN_NAME_MAX 128
bool kscen_name_ok(const char *s);
/*
 * A scenario's name, the directory of its runs under results/: a name as
 * above that does not start with '.' either (a hidden directory). NULL, or
 * why not, naming the character, in @why: one rule for validate and run.
 */
const char *kscen_scenario_name_why(const char *s, char *why, size_t len);
/* The malloc'ed lowercase hex SHA-256 of @len bytes at @buf (sha256.c). */
char *kscen_sha256_hex(const void *buf, size_t len);
/* "5%" or "5" -> 5: above 0, at most 100 (until_ci:, --until-ci). */
int kscen_parse_pct(const char *text, double *out);
/* repeat: auto defaults; see scenario.c. */
#define KSCEN_AUTO_MIN_REPEAT 6
#define KSCEN_AUTO_MAX_REPEAT 30
#define KSCEN_AUTO_UNTIL_CI 5.0
/* The time parameter that "timeout:" is parsed as. */
extern const struct kscen_param kscen_timeout_param;

#endif
