// SPDX-License-Identifier: GPL-2.0
/*
 * hooks.c - the test hooks: KSCEN_* environment variables that tests use to
 * reach paths a machine does not offer (KSCEN_BTF_PATH: no kernel BTF;
 * KSCEN_LOCK_TP_BEGIN/END: another tracepoint; KSCEN_AB_LOCAL_AGENTS:
 * kscen ab's guests are agents on this machine) or fit in a test's time
 * (KSCEN_TEST_REPEAT: fewer samples, sample/run.c). They change what is
 * measured, so a run records every KSCEN_* variable it saw in its result
 * (test_hooks:) and the report shows them: a number taken with a hook set
 * can never pass for an ordinary one.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

extern char **environ;

char *kscen_test_hooks(void)
{
	char *out = NULL;
	size_t len = 0;

	for (char **e = environ; e && *e; e++) {
		size_t n = strlen(*e);

		if (strncmp(*e, "KSCEN_", 6))
			continue;
		out = kscen_xrealloc(out, len + n + 2);
		if (len)
			out[len++] = ' ';
		memcpy(out + len, *e, n + 1);
		len += n;
	}
	return out;
}
