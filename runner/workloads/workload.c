// SPDX-License-Identifier: GPL-2.0
/*
 * workload.c - a workload found by its name: kscen's own (builtin.c) first,
 * then those of the modules loaded (module.c).
 */
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "lib/util.h"

extern const struct kscen_workload kscen_wl_exec;

/*
 * kscen's own workloads whose sample is one program they start and
 * wait for, and nothing else: their samples are taken without a sample
 * process around the program (sampler.h).
 */
bool kscen_workload_inline(const struct kscen_workload *w)
{
	return w == &kscen_wl_exec;
}

const struct kscen_workload *kscen_workload_find(const char *name)
{
	for (unsigned i = 0; i < kscen_nr_workloads; i++)
		if (strcmp(kscen_workloads[i]->name, name) == 0)
			return kscen_workloads[i];
	return kscen_module_find(name);
}

const char *kscen_workload_closest(const char *name)
{
	unsigned nr = kscen_nr_workloads + kscen_module_nr_workloads();
	const char **names = kscen_xcalloc(nr, sizeof(*names)), *hint;

	for (unsigned i = 0; i < nr; i++)
		names[i] = i < kscen_nr_workloads ? kscen_workloads[i]->name :
			   kscen_module_workload(i - kscen_nr_workloads, NULL)->name;
	hint = kscen_closest(name, names, nr);
	free(names);
	return hint;
}
