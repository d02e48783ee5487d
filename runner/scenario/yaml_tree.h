/* SPDX-License-Identifier: GPL-2.0 */
/*
 * yaml_tree.h - small readers of a libyaml document tree, shared by the
 * scenario loader's passes (scenario.c, scenario_shape.c, profile_spec.c).
 */
#ifndef KSCEN_YAML_TREE_H
#define KSCEN_YAML_TREE_H

#include <stdbool.h>
#include <string.h>
#include <yaml.h>

#include "lib/diag.h"

/* libyaml counts from 0, messages from 1. */
static inline struct kscen_mark kscen_ymark(yaml_mark_t m)
{
	return (struct kscen_mark){ m.line + 1, m.column + 1 };
}

static inline struct kscen_mark kscen_ynode_mark(const yaml_node_t *n)
{
	return kscen_ymark(n->start_mark);
}

static inline const char *kscen_yscalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/*
 * YAML's null ("", "~", "null", "Null", "NULL"), which only a plain scalar
 * of @style can be: refused wherever a value is required.
 */
static inline bool kscen_ynull(const char *s, yaml_scalar_style_t style)
{
	return style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") ||
		!strcmp(s, "Null") || !strcmp(s, "NULL"));
}

/* The value of @key in mapping @map, or NULL. */
static inline yaml_node_t *kscen_yget(yaml_document_t *doc, yaml_node_t *map,
				      const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (k && k->type == YAML_SCALAR_NODE && !strcmp(kscen_yscalar(k), key))
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

/* Item @i (from 0) of sequence @seq, or NULL. */
static inline yaml_node_t *kscen_yitem(yaml_document_t *doc, yaml_node_t *seq,
				       unsigned i)
{
	if (!seq || seq->type != YAML_SEQUENCE_NODE ||
	    i >= (unsigned)(seq->data.sequence.items.top - seq->data.sequence.items.start))
		return NULL;
	return yaml_document_get_node(doc, seq->data.sequence.items.start[i]);
}

#endif
