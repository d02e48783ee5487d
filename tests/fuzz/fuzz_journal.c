// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_journal.c - libFuzzer target: any bytes as a run's journal, through
 * `kscen run --resume`'s reading of it: the header, the check of every "p"
 * record (a path kscen would remove: only a result of this run beside the
 * journal), the cut of a torn last line, and the replay of the sample
 * records, round by round over the jobs the header lists, until the
 * journal ends or is cut at a damaged record. The journal is a memfd, so
 * its truncation and appends touch nothing else.
 */
#define _GNU_SOURCE	/* memfd_create, in fuzz_io.h */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sample/journal.h"
#include "fuzz_io.h"

#define MAX_ROUNDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kscen_journal_hdr h;
	struct kscen_journal *j;
	struct kscen_sample_out out;
	double secs;
	int ret = 0;

	if (kscen_journal_resume(fuzz_file(data, size), &h, &j))
		return 0;
	for (unsigned r = 0; r < MAX_ROUNDS && !ret; r++)
		for (unsigned k = 0; k < h.nr_ids && !ret; k++) {
			ret = kscen_journal_replay_next(j, r, k, &out, &secs);
			/* what is replayed is a sample kscen could have taken */
			if (!ret && (out.nr > KSCEN_MAX_METRICS || !(secs >= 0) ||
				     !isfinite(secs) || out.ret > KSCEN_SKIP))
				abort();
			for (unsigned i = 0; !ret && i < out.nr; i++)
				if (!isfinite(out.v[i]))
					abort();
			if (!ret && memchr(out.reason, 0, sizeof(out.reason)) == NULL)
				abort();
		}
	kscen_journal_close(j, false);
	kscen_journal_hdr_fini(&h);
	return 0;
}
