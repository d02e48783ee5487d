// SPDX-License-Identifier: GPL-2.0
/*
 * module.c - workloads built outside the tree: shared objects that export a
 * struct kscen_module (workload.h), loaded from a scenario's "modules:" or
 * from KSCEN_MODULE_PATH, and added to the list workload.c searches.
 *
 * A module runs with the runner's privileges, often root's, so it is
 * opened only through a path nobody but root and the caller can change
 * (trust.c: the file and every directory and symlink up to /), and a
 * KSCEN_MODULE_PATH directory anyone else may add a file to is refused.
 * The bytes read are hashed (what a stored run names) and loaded from a
 * copy in memory, so what runs is what was hashed. A module is first
 * loaded in a child process, killed after LOAD_TIMEOUT_MS: a constructor
 * that exits, crashes or hangs is an error there, never validate or run
 * ending with exit 0 and no output, or hanging. Each workload is checked
 * as the compiler and the unit tests check a built-in one: its hooks,
 * metrics and parameter table (offsets within the params struct, defaults
 * that parse), and every pointer it hands over lies within the module's
 * own loaded segments, every string ends there (a 1-byte kscen_module
 * symbol, or a name that runs off the end, is refused, not read past). A
 * path is loaded once; the fork server loads a job's module the same way
 * and refuses it if its bytes no longer hash to what the run loaded
 * (sampler.c).
 *
 * Here: the workloads loaded, found by name, and the checks every workload
 * passes; module_bounds.c checks where what a module hands over lies,
 * module_load.c loads it, and module.h holds what the three share.
 */
#include <errno.h>
#include <stdalign.h>
#include <string.h>

#include "module.h"
#include "registry.h"
#include "lib/diag.h"
#include "lib/util.h"

#define MAX_PARAMS_SIZE (1 << 20)

struct kscen_mods kscen_mods;

static bool name_ok(const char *s)
{
	return s && kscen_name_ok(s);
}

static size_t ptype_size(enum kscen_ptype t, size_t *align)
{
	switch (t) {
	case KSCEN_P_BOOL:
		*align = alignof(bool);
		return sizeof(bool);
	case KSCEN_P_STRING:
		*align = alignof(char *);
		return sizeof(char *);
	case KSCEN_P_ENUM:
		*align = alignof(int);
		return sizeof(int);
	default:
		*align = alignof(long long);
		return sizeof(long long);
	}
}

static int check_param(const struct kscen_workload *w, unsigned i, char *err, size_t len)
{
	const struct kscen_param *p = &w->params[i];
	struct kscen_value v;
	size_t size, align;
	char perr[256];

	if (!name_ok(p->name))
		return kscen_errf(err, len, -EINVAL, "parameter %u: needs a name of letters, "
			    "digits, '_', '.' or '-'", i);
	if ((unsigned)p->type > KSCEN_P_ENUM)
		return kscen_errf(err, len, -EINVAL, "parameter %s: unknown type %d",
			    p->name, (int)p->type);
	size = ptype_size(p->type, &align);
	if (p->offset > w->params_size || w->params_size - p->offset < size ||
	    p->offset % align)
		return kscen_errf(err, len, -EINVAL, "parameter %s: offset %zu is not a "
			    "%s within params_size %zu", p->name, p->offset,
			    kscen_ptype_name(p->type), w->params_size);
	if (p->type == KSCEN_P_ENUM && (!p->choices || !*p->choices))
		return kscen_errf(err, len, -EINVAL, "parameter %s: an enum needs choices",
			    p->name);
	if ((p->type == KSCEN_P_INT || p->type == KSCEN_P_SIZE ||
	     p->type == KSCEN_P_TIME) && p->min > p->max)
		return kscen_errf(err, len, -EINVAL, "parameter %s: min %lld is above max %lld",
			    p->name, p->min, p->max);
	if (p->def) {
		if (kscen_value_parse(p, p->def, &v, perr, sizeof(perr)))
			return kscen_errf(err, len, -EINVAL, "parameter %s: default '%s': %s",
				    p->name, p->def, perr);
		kscen_value_fini(&v);
	}
	for (unsigned k = 0; k < i; k++)
		if (!strcmp(w->params[k].name, p->name))
			return kscen_errf(err, len, -EINVAL, "parameter %s: given twice", p->name);
	return 0;
}

int kscen_workload_check(const struct kscen_workload *w, char *err, size_t len)
{
	if (!name_ok(w->name))
		return kscen_errf(err, len, -EINVAL, "a workload needs a name of letters, "
			    "digits, '_', '.' or '-'");
	if (!w->summary)
		return kscen_errf(err, len, -EINVAL, "workload %s: no summary", w->name);
	if (!w->sample)
		return kscen_errf(err, len, -EINVAL, "workload %s: no sample()", w->name);
	if (!w->metrics || w->nr_metrics < 1 || w->nr_metrics > KSCEN_MAX_METRICS)
		return kscen_errf(err, len, -EINVAL, "workload %s: needs 1 to %d metrics",
			    w->name, KSCEN_MAX_METRICS);
	for (unsigned i = 0; i < w->nr_metrics; i++) {
		const struct kscen_metric_desc *m = &w->metrics[i];

		if (!m->name || !*m->name || !m->unit ||
		    (m->better != KSCEN_LOWER && m->better != KSCEN_HIGHER))
			return kscen_errf(err, len, -EINVAL, "workload %s: metric %u needs "
				    "a name, a unit and lower or higher", w->name, i);
	}
	if (w->nr_params && !w->params)
		return kscen_errf(err, len, -EINVAL, "workload %s: %u parameters but no table",
			    w->name, w->nr_params);
	if (w->params_size > MAX_PARAMS_SIZE)
		return kscen_errf(err, len, -EINVAL, "workload %s: params_size %zu is above %d",
			    w->name, w->params_size, MAX_PARAMS_SIZE);
	for (unsigned i = 0; i < w->nr_params; i++) {
		char perr[384];

		if (check_param(w, i, perr, sizeof(perr)))
			return kscen_errf(err, len, -EINVAL, "workload %s: %s", w->name, perr);
		if (!w->params[i].help)
			return kscen_errf(err, len, -EINVAL, "workload %s: parameter %s: no help",
				    w->name, w->params[i].name);
	}
	return 0;
}

const struct kscen_workload *kscen_module_find(const char *name)
{
	for (unsigned i = 0; i < kscen_mods.nr; i++)
		if (!strcmp(kscen_mods.w[i].w->name, name))
			return kscen_mods.w[i].w;
	return NULL;
}

unsigned kscen_module_nr_workloads(void)
{
	return kscen_mods.nr;
}

const struct kscen_workload *kscen_module_workload(unsigned i, const char **path)
{
	if (i >= kscen_mods.nr)
		return NULL;
	if (path)
		*path = kscen_mods.w[i].path;
	return kscen_mods.w[i].w;
}

const char *kscen_workload_origin(const struct kscen_workload *w)
{
	for (unsigned i = 0; i < kscen_mods.nr; i++)
		if (kscen_mods.w[i].w == w)
			return kscen_mods.w[i].path;
	return NULL;
}

const char *kscen_workload_module_sha256(const struct kscen_workload *w)
{
	const char *path = kscen_workload_origin(w);

	for (unsigned i = 0; path && i < kscen_mods.nr_paths; i++)
		if (kscen_mods.paths[i] == path)
			return kscen_mods.shas[i];
	return NULL;
}
