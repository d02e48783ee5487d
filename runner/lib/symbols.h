/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbols.h - addresses to names without perf: the kernel's from
 * /proc/kallsyms, user space's from the ELF symbol tables of the objects a
 * process maps (libelf), "[unknown]" for anything else.
 */
#ifndef KSCEN_SYMBOLS_H
#define KSCEN_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct kscen_ksyms;
struct kscen_usyms;

/*
 * Load @path (NULL: /proc/kallsyms). *@hidden is set when every address
 * reads 0: kptr_restrict hides them from this user. 0 or -errno.
 */
int kscen_ksyms_load(const char *path, struct kscen_ksyms **out, bool *hidden);
/* The function containing @addr, or NULL. */
const char *kscen_ksyms_find(const struct kscen_ksyms *k, uint64_t addr);
void kscen_ksyms_free(struct kscen_ksyms *k);

/*
 * A cache of the user-space mappings of processes, filled while they are
 * alive (their /proc/PID/maps is gone once they exit), and of the ELF
 * symbol tables of the objects they map, each loaded once.
 */
struct kscen_usyms *kscen_usyms_new(void);
void kscen_usyms_free(struct kscen_usyms *u);
/*
 * A process is known by its pid and its command (@comm, as in
 * /proc/PID/comm; NULL: whatever it is now), because exec keeps the pid and
 * replaces the mappings: "sh" then "hot" are two address spaces.
 *
 * Snapshot @pid's executable file mappings, when its command is still
 * @comm; 0, -ESRCH (it is not, any more), or -errno (-ENOENT: gone).
 */
int kscen_usyms_add_pid(struct kscen_usyms *u, pid_t pid, const char *comm);
bool kscen_usyms_has_pid(const struct kscen_usyms *u, pid_t pid, const char *comm);
/* Use (@from, @from_comm)'s mappings for (@pid, @comm): a fork, no exec. */
void kscen_usyms_alias_pid(struct kscen_usyms *u, pid_t pid, const char *comm,
			   pid_t from, const char *from_comm);
/*
 * The function containing @addr in (@pid, @comm), or NULL; *@dso gets the
 * object's base name when @dso is not NULL (NULL when no mapping holds it).
 */
const char *kscen_usyms_find(struct kscen_usyms *u, pid_t pid, const char *comm,
			     uint64_t addr, const char **dso);
/*
 * Every object whose symbols were looked at, with its build id (hex, ""
 * when it has none): for i in 0.. until it returns false.
 */
bool kscen_usyms_object(const struct kscen_usyms *u, unsigned i,
			const char **path, const char **build_id);

#endif
