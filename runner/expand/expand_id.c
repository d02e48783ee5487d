// SPDX-License-Identifier: GPL-2.0
/*
 * expand_id.c - job ids: "<name>/<key>=<value>,..." over the declared
 * params in declaration order, each value as a label, its text, or a long
 * text's short form, escaped so that two value lists never share an id.
 * The walk (expand.c) builds a matrix job's id from pieces made here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand_priv.h"
#include "lib/util.h"

/*
 * A value as it appears in an id: ',', '=' and '/' separate an id's parts,
 * so they, '%' itself and control bytes are written %XX (RFC 3986 style).
 * Ordinary values are unchanged, so ids stay stable, and two different value
 * lists can never give the same id.
 */
static bool id_special(unsigned char c)
{
	return c == ',' || c == '%' || c < 0x20 || c == 0x7f;
}

char *expand_id_value(const char *v)
{
	size_t n = strlen(v), cut = ID_PREFIX;
	char *hash, *out;

	if (n <= ID_VALUE_MAX)
		return kscen_xstrdup(v);
	while (cut && ((unsigned char)v[cut] & 0xc0) == 0x80)
		cut--;			/* not inside a UTF-8 sequence */
	hash = kscen_sha256_hex(v, n);
	out = kscen_xmalloc(cut + 10);
	memcpy(out, v, cut);
	out[cut] = '~';
	memcpy(out + cut + 1, hash, 8);
	out[cut + 9] = '\0';
	free(hash);
	return out;
}

size_t expand_id_len(const char *v)
{
	size_t n = 0;

	for (; *v; v++)
		n += id_special(*v) ? 3 : 1;
	return n;
}

char *expand_id_put(char *p, const char *v)
{
	for (; *v; v++) {
		if (id_special(*v))
			p += sprintf(p, "%%%02X", (unsigned char)*v);
		else
			*p++ = *v;
	}
	*p = '\0';
	return p;
}

/* An include's value, if it is one of a labeled axis's values: its label. */
const char *expand_label_of(const struct kscen_map *pm, const char *key,
			    const char *text)
{
	for (unsigned k = 0; k < pm->nr; k++) {
		const struct kscen_kv *kv = &pm->kv[k];

		if (strcmp(kv->key, key) || !kv->labels)
			continue;
		for (unsigned i = 0; i < kv->nr_values; i++)
			if (strcmp(kv->values[i], text) == 0)
				return kv->labels[i];
	}
	return NULL;
}

/* An include's id: its declared keys with a value, in order. */
char *expand_include_id(const struct xentry *e, const struct xinclude *inc)
{
	size_t len = strlen(e->j->name) + 2;
	char **v = kscen_xcalloc(e->nr_keys + 1, sizeof(*v));
	char *id, *p;

	for (unsigned i = 0; i < e->nr_keys; i++) {
		if (!inc->text[i])
			continue;
		v[i] = inc->label[i] ? kscen_xstrdup(inc->label[i]) : expand_id_value(inc->text[i]);
		len += strlen(e->keys[i]) + expand_id_len(v[i]) + 2;
	}
	id = kscen_xmalloc(len);
	p = stpcpy(id, e->j->name);
	for (unsigned i = 0, n = 0; i < e->nr_keys; i++) {
		if (!v[i])
			continue;
		*p++ = n++ ? ',' : '/';
		p = stpcpy(p, e->keys[i]);
		*p++ = '=';
		p = expand_id_put(p, v[i]);
		free(v[i]);
	}
	free(v);
	return id;
}
