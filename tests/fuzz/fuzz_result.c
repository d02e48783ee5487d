// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_result.c - libFuzzer target: any bytes as a stored result file,
 * through the result loader and, when it loads, every report format and a
 * comparison of the run with itself: what `kscen report` and `kscen compare`
 * do with a hand-edited or corrupted file. The selective loader of a
 * reference (`--compare`) reads the same bytes for one job: where the whole
 * file loads, it loads too (a file not laid out as kscen writes it is read
 * whole).
 */
#define _GNU_SOURCE	/* memfd_create, in fuzz_io.h */
#include <stddef.h>
#include <stdint.h>

#include "store/history.h"
#include "store/store.h"
#include "report/report.h"
#include "fuzz_io.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kscen_run *run, *old, *some = NULL;
	struct kscen_idset want = { 0 };
	struct kscen_refs refs;
	const char *path;
	int ret;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	path = fuzz_file(data, size);
	kscen_idset_add(&want, "j/n=1");
	ret = kscen_result_load_some(path, &want, &some, NULL, 0);
	kscen_run_free(some);
	kscen_idset_free(&want);
	if (kscen_result_load(path, &run))
		return 0;
	if (ret)	/* the whole file loads: so must the selection */
		abort();
	if (kscen_result_load(path, &old)) {	/* the same bytes: cannot fail */
		kscen_run_free(run);
		abort();
	}
	kscen_refs_single(&refs, run, old);	/* takes old */
	for (int f = KSCEN_FMT_TEXT; f <= KSCEN_FMT_CSV; f++)
		kscen_report(devnull, run, f == KSCEN_FMT_TEXT ? &refs : NULL,
			     (enum kscen_format)f);
	{	/* old | new, in every format; refs[0] is unused */
		const struct kscen_run *runs[2] = { old, run };
		struct kscen_refs both[2] = { refs, refs };

		for (int f = KSCEN_FMT_TEXT; f <= KSCEN_FMT_MAIL; f++)
			kscen_compare_print(devnull, runs, both, 2, (enum kscen_format)f);
	}
	kscen_gate(devnull, run, &refs, 5);
	kscen_refs_free(&refs);
	kscen_run_free(run);
	return 0;
}
