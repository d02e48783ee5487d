/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ab.h - kscen ab's two guests, shared by the command (ab.c) and the
 * conversation with each guest's agent (ab_guest.c). Private to those two.
 */
#ifndef KSCEN_AB_H
#define KSCEN_AB_H

#include <stddef.h>

#include "sample/runner.h"
#include "vm.h"

#define HANG_TIMEOUT 60	/* s past a sample's timeout: a silent guest hangs */

extern const char *const ab_labels[2];	/* "A", "B" */

struct guest {
	struct kscen_vm vm;
	struct kscen_vm_config c;
	char *dead;		/* why it takes no more samples; NULL: alive */
	char *release, *version;
	double ready_s;		/* spawn -> the agent's hello */
	char buf[4096];		/* the agent's replies, not yet a line */
	size_t len;
	double *over;		/* per-sample overhead: round trip - guest time, s */
	unsigned nr_over;
};

struct ab {
	struct guest g[2];
	unsigned n;		/* jobs per kernel */
	const char *sha256;
	unsigned hang_timeout;	/* s; the agent enforces the sample's own */
};

/*
 * KSCEN_AB_LOCAL_AGENTS (a test hook, lib/hooks.c): the guest is @argv, an
 * agent on this machine (`kscen agent --stdio`) on one end of a socket
 * pair, so that kscen ab's own paths run without QEMU. 0 or -errno.
 */
int ab_local_spawn(struct guest *g, char *const *argv);
/* Wait up to @timeout_s for the agent's next line (malloc'ed); 0 or -errno. */
int ab_agent_line(struct guest *g, double timeout_s, char **line);
int ab_agent_send(struct guest *g, const char *msg);
/* The agent's hello: its kernel release and version, or the guest is dead. */
void ab_agent_hello(struct ab *ab, struct guest *g);
/* run.c's sampler hook: job @index's sample in its kernel's guest. */
int ab_sample(void *arg, unsigned index, const struct kscen_job *job,
	      long long timeout_ns, struct kscen_sample_out *out);

#endif
