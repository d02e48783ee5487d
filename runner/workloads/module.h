/* SPDX-License-Identifier: GPL-2.0 */
/*
 * module.h - what the three files of workload modules share: module.c
 * (the registry of loaded workloads and their checks), module_bounds.c
 * (where what a module hands over must lie) and module_load.c (loading).
 * Private to those three files.
 */
#ifndef KSCEN_MODULE_H
#define KSCEN_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "workload.h"

/* A module's loaded segments: where what it hands over must lie. */
struct mod_map {
	uintptr_t lo[16], hi[16];
	bool x[16];		/* executable */
	unsigned n;
};

struct loaded {
	const struct kscen_workload *w;
	const char *path;	/* the module's real path; NULL: built-in */
	const struct mod_map *map;
};

/* Every module loaded, and their workloads (module.c). */
struct kscen_mods {
	char **paths;		/* every module loaded, by real path */
	char **shas;		/* and the sha256 of its file when loaded */
	struct mod_map **maps;	/* and where it lies */
	unsigned nr_paths;
	struct loaded *w;	/* their workloads */
	unsigned nr;
};
extern struct kscen_mods kscen_mods;

/* module_bounds.c */
int module_map_of(void *h, struct mod_map *map);
bool module_in_map(const struct mod_map *m, const void *p, size_t size, bool exec);
int module_check_bounds(const struct mod_map *m, const struct kscen_workload *w,
			unsigned i, char *err, size_t len);

#endif
