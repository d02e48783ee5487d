/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm.h - booting a kernel under QEMU with the host's root filesystem shared
 * read-only (vm.c, vm_initramfs.c), the agent a guest runs for `kscen ab`
 * (agent.c) and the commands built on them (vm_cmd.c, ab.c).
 */
#ifndef KSCEN_VM_H
#define KSCEN_VM_H

#include <stdbool.h>
#include <sys/types.h>

#include "jobs.h"

#define KSCEN_VM_TAIL_LINES 30		/* console lines kept for messages */
#define KSCEN_VM_AGENT_PORT "kscen.agent"	/* virtio-serial port name */

enum kscen_vm_accel {
	KSCEN_ACCEL_AUTO,
	KSCEN_ACCEL_KVM,
	KSCEN_ACCEL_TCG,
};

struct kscen_vm_config {
	const char *kernel;		/* bzImage */
	const char *modules;		/* NULL: found from the kernel's path */
	const char *label;		/* "A", "B"; messages and the hostname */
	unsigned cpus;
	unsigned long long memory;	/* bytes */
	const char *append;		/* more kernel command line, or NULL */
	enum kscen_vm_accel accel;
	unsigned boot_timeout;		/* seconds until the init says it booted */
	const char *rw_dir;		/* host directory shared read-write at the
					   same path, or NULL */
	const char *script;		/* shell script the guest runs in the
					   shared root, by /bin/sh */
	bool agent;			/* add the virtio-serial agent port */
	int forward;			/* fd for the script's output; -1: none */
};

/* A running guest. Owned by the caller; kscen_vm_stop() frees it all. */
struct kscen_vm {
	const char *label;
	pid_t pid;			/* qemu, 0 once reaped */
	int console;			/* qemu's stdout+stderr, -1 at EOF */
	int agent;			/* connected agent socket, -1: none */
	int listen;			/* agent listening socket */
	char *dir;			/* temporary: initramfs, socket */
	char *release;			/* from the bzImage header */
	bool kvm;
	char accel_why[160];		/* why not KVM, when TCG */
	double spawned;			/* CLOCK_MONOTONIC, s */
	double boot_s;			/* spawn -> init's "booted" line */
	double guest_up;		/* the guest's uptime then (its clock) */
	bool booted;
	int exit_code;			/* the guest script's, -1 unknown */
	int forward;			/* fd the guest's output goes to, -1 */
	/* console: the line being read, and a ring of the last lines */
	char line[1024];
	size_t line_len;
	char *tail[KSCEN_VM_TAIL_LINES];
	char *panic;			/* the first panic/Oops/BUG line, or NULL */
	unsigned tail_next;
};

/*
 * Can KVM run a guest here? Creates a VM and runs a one-instruction guest in
 * a child process. 0, or -errno with @why filled.
 */
int kscen_kvm_usable(char *why, size_t len);

/*
 * Build the initramfs for @c in @dir/initramfs.cpio: busybox, the modules
 * the shared root needs (with their dependencies, from @modules or
 * modules.builtin; @modules NULL: all built in), and the init, which names
 * the guest @hostname. Errors are printed; 0 or -errno.
 */
int kscen_vm_initramfs(const struct kscen_vm_config *c, const char *modules,
		       const char *dir, const char *hostname);
/* The kernel release in a bzImage's header; NULL when it has none. */
char *kscen_bzimage_release(const char *path);
/* Where the modules of @release are, for a kernel at @kernel; NULL: none. */
char *kscen_vm_modules_dir(const char *kernel, const char *release);

/*
 * Start a guest and wait until its init says it booted (and, with c->agent,
 * until the agent connected). On error prints why, with the console's last
 * lines, stops the guest and returns -errno; @vm is then already stopped.
 */
int kscen_vm_start(const struct kscen_vm_config *c, struct kscen_vm *vm);
/* kscen_vm_start() in two halves, to boot two guests at once. */
int kscen_vm_spawn(const struct kscen_vm_config *c, struct kscen_vm *vm);
int kscen_vm_wait_booted(const struct kscen_vm_config *c, struct kscen_vm *vm);
/*
 * Read the console for up to @timeout_ms (-1: until something happens).
 * Returns 1 when the guest is gone (console EOF), 0 otherwise.
 */
int kscen_vm_pump(struct kscen_vm *vm, int timeout_ms);
/*
 * Wait up to @timeout_ms for qemu to exit by itself, then kill and reap it,
 * remove the temporary directory. The console's tail stays for messages
 * until kscen_vm_free().
 */
void kscen_vm_stop(struct kscen_vm *vm, int timeout_ms);
void kscen_vm_free(struct kscen_vm *vm);
/* Print the console's last lines, indented, to stderr. */
void kscen_vm_print_tail(struct kscen_vm *vm);
/* "kvm" or "tcg" */
const char *kscen_vm_accel_name(const struct kscen_vm *vm);

/* The commands (main.c's table). */
int kscen_cmd_vm(int argc, char **argv);
int kscen_cmd_ab(int argc, char **argv);
int kscen_cmd_agent(int argc, char **argv);
/*
 * ab's jobs: every job of @in as "kernel=A" (indices 0..n-1) and "kernel=B"
 * (n..2n-1), A the baseline of B. The jobs share @in's params and spec: free
 * them with kscen_ab_jobs_free() before @in.
 */
void kscen_ab_jobs(const struct kscen_jobs *in, struct kscen_jobs *out);
void kscen_ab_jobs_free(struct kscen_jobs *jobs);

/*
 * The guest script that runs "kscen @argv" in the current directory; @rw is
 * the directory shared read-write, or NULL. NULL (printed) when the guest
 * could not see the directory or a file named in @argv.
 */
char *kscen_vm_script(int argc, char **argv, const char *rw);
/* Is @path (real) under the guest's own /tmp or /run, and not under @rw? */
bool kscen_vm_hidden(const char *path, const char *rw);

/* Shared option parsing of vm and ab: --memory, --accel. */
int kscen_vm_parse_memory(const char *arg, unsigned long long *out);
int kscen_vm_parse_accel(const char *arg, enum kscen_vm_accel *out);
/* The same as options.h callbacks: a usage error of @cmd when bad. */
struct kscen_option;
int kscen_vm_opt_memory(const char *cmd, const struct kscen_option *o, const char *arg);
int kscen_vm_opt_accel(const char *cmd, const struct kscen_option *o, const char *arg);
/*
 * The guest options of vm and ab, for an options.h table: @c a struct
 * kscen_vm_config *, @cpus and @boot unsigned long * (checked, then copied).
 */
#define KSCEN_VM_OPTIONS(c, cpus, boot)						\
	OPT_UINT(0, "cpus", (cpus), "N", 1, 64, "guest vCPUs (default 2)"),		\
	OPT_CALLBACK(0, "memory", &(c)->memory, "SIZE", "guest memory (default 1G)",	\
		     kscen_vm_opt_memory),						\
	OPT_CALLBACK(0, "accel", &(c)->accel, "A",					\
		     "auto (default: KVM if it runs guests and QEMU starts\n"	\
		     "under it, else TCG), kvm or tcg", kscen_vm_opt_accel),	\
	OPT_STRING(0, "append", &(c)->append, "ARGS", "more kernel command line"),	\
	OPT_UINT(0, "boot-timeout", (boot), "S", 1, 86400,				\
		 "give up on a boot after S seconds (default 300)")

#endif
