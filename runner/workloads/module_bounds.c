// SPDX-License-Identifier: GPL-2.0
/*
 * module_bounds.c - where what a workload module hands over must lie: its
 * loaded segments (dl_iterate_phdr), and every pointer of its workloads
 * checked against them before anything reads through one; the strings a
 * module's job_metrics() returns. module.c says why.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#include "module.h"
#include "registry.h"
#include "lib/diag.h"
#include "lib/util.h"

#define MAX_PARAMS 1024		/* of a workload's table */

struct find_map {
	uintptr_t base;
	const char *name;
	struct mod_map *map;
};

static int find_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find_map *f = arg;

	(void)size;
	if (info->dlpi_addr != f->base || !info->dlpi_name ||
	    strcmp(info->dlpi_name, f->name))
		return 0;
	for (unsigned i = 0; i < info->dlpi_phnum && f->map->n < 16; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
			continue;
		f->map->lo[f->map->n] = info->dlpi_addr + ph->p_vaddr;
		f->map->hi[f->map->n] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		f->map->x[f->map->n++] = ph->p_flags & PF_X;
	}
	return 1;
}

/* The readable segments of the loaded object @h; 0 or -ENOENT. */
int module_map_of(void *h, struct mod_map *map)
{
	struct link_map *lm;
	struct find_map f = { .map = map };

	memset(map, 0, sizeof(*map));
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm)
		return -ENOENT;
	f.base = lm->l_addr;
	f.name = lm->l_name;
	dl_iterate_phdr(find_segments, &f);
	return map->n ? 0 : -ENOENT;
}

/* Do @size bytes at @p lie within one segment of @m (an executable one)? */
bool module_in_map(const struct mod_map *m, const void *p, size_t size, bool exec)
{
	uintptr_t a = (uintptr_t)p;

	for (unsigned i = 0; i < m->n; i++)
		if (a >= m->lo[i] && a < m->hi[i] && size <= m->hi[i] - a &&
		    (!exec || m->x[i]))
			return true;
	return false;
}

/* Does the string at @s end within the segment it starts in? */
static bool str_in_map(const struct mod_map *m, const char *s)
{
	uintptr_t a = (uintptr_t)s;

	for (unsigned i = 0; i < m->n; i++)
		if (a >= m->lo[i] && a < m->hi[i])
			return memchr(s, 0, m->hi[i] - a) != NULL;
	return false;
}

/* Every pointer of workload @w, before anything reads through one. */
int module_check_bounds(const struct mod_map *m, const struct kscen_workload *w,
			unsigned i, char *err, size_t len)
{
	const void *hooks[] = {
		(const void *)w->job_metrics, (const void *)w->check,
		(const void *)w->check_captures, (const void *)w->supported,
		(const void *)w->setup, (const void *)w->sample, (const void *)w->teardown,
		(const void *)w->describe,
	};
#define STR_OK(s) (!(s) || str_in_map(m, (s)))

	if (!module_in_map(m, w, sizeof(*w), false))
		return kscen_errf(err, len, -EINVAL, "workload %u lies outside the module", i);
	if (!STR_OK(w->name) || !STR_OK(w->summary))
		return kscen_errf(err, len, -EINVAL, "workload %u: its name or summary is not a "
			    "string within the module", i);
	if (w->nr_metrics > KSCEN_MAX_METRICS || w->nr_params > MAX_PARAMS)
		return kscen_errf(err, len, -EINVAL, "workload %u: %u metrics and %u parameters, "
			    "at most %d and %d", i, w->nr_metrics, w->nr_params,
			    KSCEN_MAX_METRICS, MAX_PARAMS);
	if (w->metrics && !module_in_map(m, w->metrics, w->nr_metrics * sizeof(*w->metrics), false))
		return kscen_errf(err, len, -EINVAL, "workload %u: its metrics table lies "
			    "outside the module", i);
	for (unsigned k = 0; w->metrics && k < w->nr_metrics; k++)
		if (!STR_OK(w->metrics[k].name) || !STR_OK(w->metrics[k].unit))
			return kscen_errf(err, len, -EINVAL, "workload %u: metric %u: its name or "
				    "unit is not a string within the module", i, k);
	if (w->params && !module_in_map(m, w->params, w->nr_params * sizeof(*w->params), false))
		return kscen_errf(err, len, -EINVAL, "workload %u: its parameter table lies "
			    "outside the module", i);
	for (unsigned k = 0; w->params && k < w->nr_params; k++) {
		const struct kscen_param *p = &w->params[k];

		if (!STR_OK(p->name) || !STR_OK(p->def) || !STR_OK(p->choices) ||
		    !STR_OK(p->help))
			return kscen_errf(err, len, -EINVAL, "workload %u: parameter %u: a name, "
				    "default, choices or help that is not a string within "
				    "the module", i, k);
	}
	for (unsigned k = 0; k < ARRAY_SIZE(hooks); k++)
		if (hooks[k] && !module_in_map(m, hooks[k], 1, true))
			return kscen_errf(err, len, -EINVAL, "workload %u: hook %u is not code of "
				    "the module", i, k);
#undef STR_OK
	return 0;
}

static const struct mod_map *map_of_workload(const struct kscen_workload *w)
{
	for (unsigned i = 0; i < kscen_mods.nr; i++)
		if (kscen_mods.w[i].w == w)
			return kscen_mods.w[i].map;
	return NULL;
}

/* A string of job_metrics(): the module's own, or a string of @params. */
static bool metric_str_ok(const struct kscen_workload *w, const struct mod_map *m,
			  const void *params, const char *s)
{
	if (!s)
		return false;
	if (!m || str_in_map(m, s))
		return true;
	for (unsigned i = 0; i < w->nr_params; i++) {
		const char *v;

		if (w->params[i].type != KSCEN_P_STRING)
			continue;
		v = *(char *const *)((const char *)params + w->params[i].offset);
		if (v && s >= v && s <= v + strlen(v))
			return true;
	}
	return false;
}

int kscen_job_metrics_check(const struct kscen_workload *w, const void *params,
			    const struct kscen_metric_desc *m, unsigned n,
			    char *err, size_t len)
{
	const struct mod_map *map = map_of_workload(w);

	if (n < 1 || n > KSCEN_MAX_METRICS)
		return kscen_errf(err, len, -EINVAL, "workload %s: job_metrics() gave %u metrics, "
			    "not 1 to %d", w->name, n, KSCEN_MAX_METRICS);
	for (unsigned i = 0; i < n; i++)
		if (!metric_str_ok(w, map, params, m[i].name) || !*m[i].name ||
		    !metric_str_ok(w, map, params, m[i].unit) ||
		    (m[i].better != KSCEN_LOWER && m[i].better != KSCEN_HIGHER))
			return kscen_errf(err, len, -EINVAL, "workload %s: job_metrics(): metric "
				    "%u needs a name, a unit (strings of the module or of the "
				    "job's parameters) and lower or higher", w->name, i);
	return 0;
}
