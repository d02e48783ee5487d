// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_walk.c - what every part of the third pass over a scenario's
 * libyaml tree shares (scenario_walk.h): a problem said at its node
 * through diag.h, at most MAX_ERRORS of them, and a scalar checked as a
 * value of a parameter's type. scenario.c, scenario_job.c and
 * scenario_map.c use it; it uses none of them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "scenario_walk.h"
#include "yaml_tree.h"

#define MAX_ERRORS KSCEN_LOADER_MAX_ERRORS

void kscen_vlerr(struct kscen_loader *ld, struct kscen_mark m, const char *fmt, va_list ap)
{
	char msg[1024];
	unsigned long h = 5381;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* Said once: a defaults: value every job inherits is checked for each. */
	for (const char *c = msg; *c; c++)
		h = h * 33 + (unsigned char)*c;
	h = h * 33 + m.line * 1000003ul + m.col;
	for (unsigned i = 0; i < ld->errors && i < MAX_ERRORS; i++)
		if (ld->said[i] == h)
			return;
	if (ld->errors < MAX_ERRORS)
		ld->said[ld->errors] = h;
	if (++ld->errors > MAX_ERRORS) {
		if (ld->errors == MAX_ERRORS + 1)
			kscen_diag(KSCEN_DIAG_NOTE, ld->file, NOWHERE,
				   "more errors not shown");
		return;
	}
	kscen_file_error(ld->file, m, "%s", msg);
}

/* Report a problem at @m; only the first MAX_ERRORS are printed. */
void kscen_lerr_at(struct kscen_loader *ld, struct kscen_mark m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kscen_vlerr(ld, m, fmt, ap);
	va_end(ap);
}

/* Report a problem at node @n. */
void kscen_lerr(struct kscen_loader *ld, yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kscen_vlerr(ld, kscen_ynode_mark(n), fmt, ap);
	va_end(ap);
}

/*
 * "key:", "key: ~" and "key: null" are YAML's null, not a value: refused
 * wherever a value is required, rather than read as the text "~" or "".
 */
bool kscen_lis_null(yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE &&
	       kscen_ynull(kscen_yscalar(n), n->data.scalar.style);
}

/* A scalar field, checked as a value of @p's type. */
int kscen_lcheck_scalar(struct kscen_loader *ld, yaml_node_t *n,
			const struct kscen_param *p, struct kscen_value *v)
{
	return kscen_lcheck_text(ld, n, p, n->type == YAML_SCALAR_NODE ? kscen_yscalar(n) : NULL, v);
}

/*
 * A scalar at @m, whose own text is @scalar, null or not, parsed as @text
 * (the scalar, or the value a label stands for).
 */
static int check_value(struct kscen_loader *ld, struct kscen_mark m, bool null,
		       const char *scalar, const char *text,
		       const struct kscen_param *p, struct kscen_value *v)
{
	char err[256];

	if (null) {
		kscen_lerr_at(ld, m, "%s: needs a value, not null (quote it to mean "
			      "the text: '%s')", p->name, scalar);
		return -EINVAL;
	}
	if (kscen_value_parse(p, text, v, err, sizeof(err))) {
		kscen_lerr_at(ld, m, "%s", err);
		return -EINVAL;
	}
	return 0;
}

int kscen_lcheck_text(struct kscen_loader *ld, yaml_node_t *n,
		      const struct kscen_param *p, const char *text,
		      struct kscen_value *v)
{
	if (n->type != YAML_SCALAR_NODE) {
		kscen_lerr(ld, n, "%s: must be a single value, not a %s", p->name,
		     n->type == YAML_MAPPING_NODE ? "mapping" : "list");
		return -EINVAL;
	}
	return check_value(ld, kscen_ynode_mark(n), kscen_lis_null(n), kscen_yscalar(n),
			   text, p, v);
}

/* As kscen_lcheck_scalar() says it of a node (the tests hold them alike). */
int kscen_lcheck_item(struct kscen_loader *ld, const struct kscen_axis_item *it,
		      const char *text, const struct kscen_param *p,
		      struct kscen_value *v)
{
	return check_value(ld, it->mark, it->null, text, text, p, v);
}

