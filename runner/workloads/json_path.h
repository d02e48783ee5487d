/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json_path.h - a number in a JSON document (jansson) by a jq-like path:
 * ".results[0].mean", ".jobs[0].read.iops", '.a["key.with.dots"]'. Used by
 * exec's json option and the fio adapter.
 */
#ifndef KSCEN_WL_JSON_PATH_H
#define KSCEN_WL_JSON_PATH_H

#include <stddef.h>
#include <jansson.h>

/* Is @path well formed? 0, or -EINVAL with a message in @err. */
int kscen_json_path_check(const char *path, char *err, size_t len);

/*
 * The value at @path in @root (NULL if absent); on a bad path or a missing
 * member, NULL with a message in @err naming the part that failed.
 */
json_t *kscen_json_path_get(json_t *root, const char *path, char *err,
			    size_t len);

/* The number at @path: 0, or -EINVAL/-ENOENT with @err filled. */
int kscen_json_path_number(json_t *root, const char *path, double *v,
			   char *err, size_t len);

#endif
