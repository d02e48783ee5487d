// SPDX-License-Identifier: GPL-2.0
/*
 * refspec.c - what a run is compared with (`--compare REF`), checked before
 * anything runs and resolved into each job's reference after the run
 * (history.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/diag.h"
#include "history.h"
#include "scenario/scenario.h"
#include "store.h"
#include "lib/util.h"

int kscen_ref_spec_check(const char *cmd, const char *ref, const char *results,
			 const struct kscen_scenario *s, const struct kscen_idset *want,
			 struct kscen_ref_spec *rs)
{
	const struct kscen_idset none = { 0 };	/* a label is in the header */
	struct kscen_history h;
	struct stat st;
	char *dir;
	int found = 0;

	memset(rs, 0, sizeof(*rs));
	if (!strcmp(ref, "last") || !strcmp(ref, "none")) {
		rs->kind = !strcmp(ref, "last") ? KSCEN_REF_LAST : KSCEN_REF_NONE;
		return 0;
	}
	if (!strncmp(ref, "label:", 6)) {
		rs->kind = KSCEN_REF_LABEL;
		rs->arg = ref + 6;
		dir = kscen_xasprintf("%s/%s", results, s->name);
		kscen_history_load_label(dir, s->name, rs->arg, NULL, NULL, &none, &h);
		for (unsigned i = 0; i < h.nr; i++)
			found += h.run[i]->label && !strcmp(h.run[i]->label, rs->arg);
		kscen_history_free(&h);
		if (!found)
			kscen_error(cmd, "--compare %s: no complete "
				    "run labelled '%s' in %s", ref, rs->arg, dir);
		free(dir);
		return found ? 0 : -EINVAL;
	}
	rs->arg = ref;
	if (stat(ref, &st)) {
		kscen_error(cmd, "--compare %s: %s", ref, strerror(errno));
		return -EINVAL;
	}
	if (S_ISDIR(st.st_mode)) {
		rs->kind = KSCEN_REF_DIR;
		return 0;
	}
	rs->kind = KSCEN_REF_FILE;
	if (kscen_result_load_some(ref, want, &rs->file, NULL, 0)) {
		kscen_error(cmd, "--compare %s: not a kscen result", ref);
		return -EINVAL;
	}
	if (strcmp(rs->file->scenario, s->name)) {
		kscen_error(cmd, "--compare %s: a run of scenario "
			    "'%s', not '%s'", ref, rs->file->scenario, s->name);
		kscen_run_free(rs->file);
		rs->file = NULL;
		return -EINVAL;
	}
	return 0;
}

/* After the run: each job's reference and drift (history.c). */
void kscen_ref_spec_resolve(struct kscen_ref_spec *rs, const char *results,
			    const struct kscen_run *run, struct kscen_refs *refs)
{
	char *dir;

	memset(refs, 0, sizeof(*refs));
	switch (rs->kind) {
	case KSCEN_REF_NONE:
		return;
	case KSCEN_REF_FILE:
		kscen_refs_single(refs, run, rs->file);
		rs->file = NULL;
		return;
	case KSCEN_REF_DIR:
		kscen_refs_history(refs, run, rs->arg, NULL, NULL);
		return;
	case KSCEN_REF_LAST:
	case KSCEN_REF_LABEL:
		dir = kscen_xasprintf("%s/%s", results, run->scenario);
		kscen_refs_history(refs, run, dir, rs->kind == KSCEN_REF_LAST ?
				   run->system.hostname : NULL,
				   rs->kind == KSCEN_REF_LABEL ? rs->arg : NULL);
		free(dir);
		return;
	}
}
