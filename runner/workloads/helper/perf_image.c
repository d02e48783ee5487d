// SPDX-License-Identifier: GPL-2.0
/*
 * perf_image.c - kscen-messaging: the process sched.messaging's image: perf
 * forks its workers from. It is built on its own, links libc alone, and is
 * embedded in kscen (perf_image_blob.c), which runs it from a memfd.
 *
 * perf bench's worker processes are forks of perf: perf's libraries loaded
 * and nothing else, and each leaves with exit(), inside the timed region. A
 * fork of kscen would carry kscen's own libraries as well (libcyaml, libbpf,
 * libelf, ...), whose destructors and wider symbol scope each worker's exit
 * pays for: 146 page faults a worker from exit() on, against perf's 122,
 * and 1.1-1.2 times perf's time (docs/fidelity.md). So this program loads
 * the libraries it is given, lazily, and runs messaging.c's engine:
 *
 *   kscen-messaging GROUPS LOOPS pipe|socket [LIBRARY...]
 *
 * On stdout it says "ready" once every worker is ready, or "error: WHY";
 * then, for one byte on stdin, it runs the timed region (wake-up to the
 * last reap, as perf's), says the seconds it took or "error: WHY", and
 * exits. Nothing goes through stdio: no worker has a buffer to flush.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "workloads/messaging.h"

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	char buf[KSCEN_REASON_MAX + 16];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) != n)
		_exit(1);
}

static bool number(const char *s, long long max, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && end != s && !*end && *v >= 1 && *v <= max;
}

int main(int argc, char **argv)
{
	struct kscen_msg_opts o = { .mode = KSCEN_MSG_PROCESS, .exit_libc = true };
	struct kscen_ctx ctx = { 0 };
	struct kscen_msg *m;
	double secs;
	char go;
	int ret;

	prctl(PR_SET_NAME, "kscen-messaging");
	/* nothing of the sample process's but stdin, stdout and stderr */
	close_range(3, ~0U, 0);
	if (argc < 4 || !number(argv[1], 100000, &o.groups) ||
	    !number(argv[2], 100000000, &o.loops) ||
	    (strcmp(argv[3], "pipe") && strcmp(argv[3], "socket"))) {
		say("error: usage: kscen-messaging GROUPS LOOPS pipe|socket [LIBRARY...]");
		return 2;
	}
	o.ipc = strcmp(argv[3], "pipe") ? KSCEN_MSG_SOCKET : KSCEN_MSG_PIPE;
	for (int i = 4; i < argc; i++) {
		if (!dlopen(argv[i], RTLD_LAZY | RTLD_GLOBAL)) {
			say("error: dlopen(%s): %s", argv[i], dlerror());
			return 1;
		}
	}
	/* what a library's constructor printed is not every worker's to print */
	fflush(NULL);
	ret = kscen_msg_start(&ctx, &o, &m);
	if (ret) {
		say("error: %s", ctx.reason);
		return 1;
	}
	say("ready");
	if (read(0, &go, 1) != 1) {
		kscen_msg_free(m);
		return 1;
	}
	ret = kscen_msg_run(&ctx, m, &secs);
	if (ret)
		say("error: %s", ctx.reason);
	else
		say("%.9f", secs);
	kscen_msg_free(m);
	return ret ? 1 : 0;
}
