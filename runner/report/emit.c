// SPDX-License-Identifier: GPL-2.0
/*
 * emit.c - a run's report in the format asked for: the report model
 * (model.c) handed to the emitter of that format (text.c, markdown.c,
 * json.c, csv.c, mail.c), or several runs' in one document.
 */
#include <stdio.h>
#include <stdlib.h>

#include "emit.h"
#include "model.h"
#include "lib/util.h"

void kscen_report(FILE *out, const struct kscen_run *run,
		  const struct kscen_refs *refs, enum kscen_format fmt)
{
	static void (*const emit[])(FILE *, const struct kscen_report_model *) = {
		[KSCEN_FMT_TEXT] = report_text,
		[KSCEN_FMT_MARKDOWN] = report_markdown,
		[KSCEN_FMT_JSON] = report_json,
		[KSCEN_FMT_CSV] = report_csv,
		[KSCEN_FMT_MAIL] = report_mail,
	};
	struct kscen_report_model m;

	kscen_report_model_build(run, refs, &m);
	emit[(unsigned)fmt < ARRAY_SIZE(emit) ? fmt : KSCEN_FMT_TEXT](out, &m);
	kscen_report_model_free(&m);
}

void kscen_report_runs(FILE *out, const struct kscen_run *const *runs,
		       const struct kscen_refs *refs, unsigned nr,
		       enum kscen_format fmt)
{
	struct kscen_report_model *m;
	const struct kscen_report_model **mp;

	if (nr == 1 || (fmt != KSCEN_FMT_JSON && fmt != KSCEN_FMT_CSV)) {
		for (unsigned k = 0; k < nr; k++)
			kscen_report(out, runs[k], refs ? &refs[k] : NULL, fmt);
		return;
	}
	m = kscen_xcalloc(nr, sizeof(*m));
	mp = kscen_xcalloc(nr, sizeof(*mp));
	for (unsigned k = 0; k < nr; k++) {
		kscen_report_model_build(runs[k], refs ? &refs[k] : NULL, &m[k]);
		mp[k] = &m[k];
	}
	if (fmt == KSCEN_FMT_CSV) {
		report_csv_runs(out, mp, nr);
	} else {
		fputs("[\n", out);
		for (unsigned k = 0; k < nr; k++) {
			report_json(out, mp[k]);
			if (k + 1 < nr)
				fputs(",\n", out);
		}
		fputs("]\n", out);
	}
	for (unsigned k = 0; k < nr; k++)
		kscen_report_model_free(&m[k]);
	free(m);
	free(mp);
}
