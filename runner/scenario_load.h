/* SPDX-License-Identifier: GPL-2.0 */
/* scenario_load.h - helpers the loader shares with the expander and main. */
#ifndef KSCEN_SCENARIO_LOAD_H
#define KSCEN_SCENARIO_LOAD_H

#include "scenario.h"

/* Print "file:line:column: message" to stderr. */
void kscen_file_error(const char *file, struct kscen_mark m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * scenario_file.c: the passes before and after the tree walk. Each prints
 * its errors as file:line:column and returns 0 or -EINVAL.
 */
struct yaml_parser_s;
int kscen_scenario_read(const char *path, char **out, size_t *len);
int kscen_scenario_prescan(const char *file, const char *buf, size_t len);
int kscen_scenario_load_fixed(const char *file, const char *buf, size_t len,
			      struct kscen_scenario *s);
/* A libyaml parser's problem, at its position. */
void kscen_yaml_error(const char *file, struct yaml_parser_s *p);
/*
 * [A-Za-z0-9_.-]+, at most KSCEN_NAME_MAX bytes, and not "." or "..": safe
 * as a directory name.
 */
#define KSCEN_NAME_MAX 128
bool kscen_name_ok(const char *s);
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
