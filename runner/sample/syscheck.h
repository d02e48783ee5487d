/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscheck.h - the machine's settings that move results (syscheck.c), as
 * pyperf's `system show` lists them: each with its value, whether it is
 * off for benchmarking, what it does to results and how to change it.
 * `kscen system check` prints them; `kscen run` stores what is off.
 */
#ifndef KSCEN_SYSCHECK_H
#define KSCEN_SYSCHECK_H

#include <stdbool.h>
#include <stddef.h>

struct kscen_check {
	const char *name;	/* "governor" */
	char value[128];	/* "powersave (cpu0-1)" */
	bool off;		/* it moves results: change it if you can */
	bool known;		/* false: this machine does not have it */
	const char *effect;	/* what it does to results */
	const char *fix;	/* how to change it */
};

#define KSCEN_CHECKS_MAX 12

/*
 * Check this machine (@root "": its /proc and /sys; a directory laid out
 * like them for tests). @measure: also watch it for @measure_ms (steal,
 * other processes' load), as `system check` does. Returns the number of
 * checks filled in @c.
 */
unsigned kscen_system_check(const char *root, unsigned measure_ms,
			    struct kscen_check *c);
/*
 * What is off, one line: "governor powersave, SMT on, load 3.1"; "nothing
 * off" when nothing is. Returns @buf.
 */
const char *kscen_system_check_summary(const struct kscen_check *c, unsigned n,
				       char *buf, size_t len);

#endif
