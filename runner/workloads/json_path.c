// SPDX-License-Identifier: GPL-2.0
/*
 * json_path.c - walk a JSON document by a small subset of jq's paths:
 * ".key", ".key.sub", "[3]" (an array index), '["any key"]' (a key with
 * dots, blanks or brackets). Nothing else: no wildcards, no filters, so a
 * path names exactly one value and a typo is an error, never a silent 0.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_path.h"


/*
 * One step of @path from *pos: a key (into @key, @klen bytes) or an index.
 * Returns 1 for a key, 2 for an index, 0 at the end, -1 on bad syntax.
 */
static int step(const char *path, size_t *pos, char *key, size_t klen,
		long *index)
{
	const char *s = path + *pos, *e;
	size_t n;

	if (!*s)
		return 0;
	if (s[0] == '.' && s[1] == '[')	/* jq's .["key"] and .[0] */
		s++;
	else if (*s == '.') {
		s++;
		n = strcspn(s, ".[");
		if (!n || n >= klen)
			return -1;
		memcpy(key, s, n);
		key[n] = '\0';
		*pos = s + n - path;
		return 1;
	}
	if (*s != '[')
		return -1;
	s++;
	if (*s == '"') {
		e = strchr(s + 1, '"');
		if (!e || e[1] != ']' || (size_t)(e - s - 1) >= klen)
			return -1;
		n = e - s - 1;
		memcpy(key, s + 1, n);
		key[n] = '\0';
		*pos = e + 2 - path;
		return 1;
	}
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*index = strtol(s, (char **)&e, 10);
	if (errno || *e != ']')
		return -1;
	*pos = e + 1 - path;
	return 2;
}

int kscen_json_path_check(const char *path, char *err, size_t len)
{
	char key[256];
	size_t pos = 0;
	long idx;
	int r;

	if (!path || (*path != '.' && *path != '[')) {
		snprintf(err, len, "a path starts with '.' or '[': \".results[0].mean\"");
		return -EINVAL;
	}
	if (!strcmp(path, "."))
		return 0;
	while ((r = step(path, &pos, key, sizeof(key), &idx)) > 0)
		;
	if (r < 0) {
		snprintf(err, len, "bad path at \"%s\": use .key, [N] or [\"key\"]",
			 path + pos);
		return -EINVAL;
	}
	return 0;
}

json_t *kscen_json_path_get(json_t *root, const char *path, char *err,
			    size_t len)
{
	json_t *v = root;
	char key[256];
	size_t pos = 0, before;
	long idx;
	int r;

	if (kscen_json_path_check(path, err, len))
		return NULL;
	if (!strcmp(path, "."))
		return root;
	for (before = pos; (r = step(path, &pos, key, sizeof(key), &idx)) > 0;
	     before = pos) {
		if (r == 1) {
			if (!json_is_object(v)) {
				snprintf(err, len, "%.*s is not an object",
					 (int)before, path);
				return NULL;
			}
			v = json_object_get(v, key);
			if (!v) {
				snprintf(err, len, "no member \"%s\" at %.*s",
					 key, (int)before ? (int)before : 1,
					 before ? path : ".");
				return NULL;
			}
		} else {
			if (!json_is_array(v)) {
				snprintf(err, len, "%.*s is not an array",
					 (int)before ? (int)before : 1,
					 before ? path : ".");
				return NULL;
			}
			if ((size_t)idx >= json_array_size(v)) {
				snprintf(err, len, "%.*s has %zu elements, no [%ld]",
					 (int)before ? (int)before : 1,
					 before ? path : ".", json_array_size(v), idx);
				return NULL;
			}
			v = json_array_get(v, idx);
		}
	}
	return v;
}

int kscen_json_path_number(json_t *root, const char *path, double *v,
			   char *err, size_t len)
{
	json_t *x = kscen_json_path_get(root, path, err, len);

	if (!x)
		return -ENOENT;
	if (!json_is_number(x)) {
		snprintf(err, len, "%s is %s, not a number", path,
			 json_is_string(x) ? "a string" : json_is_null(x) ? "null" :
			 json_is_object(x) ? "an object" : json_is_array(x) ?
			 "an array" : "a boolean");
		return -EINVAL;
	}
	*v = json_number_value(x);
	return 0;
}
