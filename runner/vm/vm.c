// SPDX-License-Identifier: GPL-2.0
/*
 * vm.c - boot a kernel under qemu-system-x86_64 the way virtme-style tools
 * do: no disk image, the host's root filesystem shared read-only over virtio
 * 9p, an initramfs of kscen's own (vm_initramfs.c) whose init runs one shell
 * script in that root. The console (serial, plus qemu's own messages) comes
 * back through a pipe: its last lines are kept for error messages and, once
 * the init says it booted, the guest script's output can be forwarded.
 *
 * Hardware virtualisation is used only when it works: /dev/kvm can exist in
 * a VM whose hypervisor does not nest, where creating a VM succeeds and
 * running a vCPU fails, so kscen_kvm_usable() runs a one-instruction guest
 * before trusting it. Even then QEMU may fail to start a guest under KVM
 * where the probe's vCPU ran (with -cpu host: "failed to set MSR 0x10a",
 * an assertion in kvm_buf_set_msrs): with --accel auto, a QEMU that stops
 * under KVM before the guest's init booted, with no panic of the guest's,
 * is started again under TCG, and the reason is said. Without KVM the
 * guest runs under TCG (emulation): correct, but its timings say nothing
 * about the kernel.
 *
 * No qemu outlives kscen: the child asks for SIGKILL when its parent dies
 * (PR_SET_PDEATHSIG), and every path out of here kills and reaps it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/diag.h"
#include "lib/util.h"
#include "vm.h"

/* ---- the console ------------------------------------------------------------- */

static void console_line(struct kscen_vm *vm, char *line)
{
	static const char booted[] = "kscen-init: booted", ex[] = "kscen-init: exit ";
	bool init = strncmp(line, "kscen-init: ", 12) == 0;

	if (!strncmp(line, booted, sizeof(booted) - 1) && !vm->booted) {
		const char *up = strstr(line, ", up ");

		vm->booted = true;
		vm->boot_s = kscen_now_ns() / 1e9 - vm->spawned;
		vm->guest_up = up ? atof(up + 5) : 0;
	}
	if (!strncmp(line, ex, sizeof(ex) - 1))
		vm->exit_code = atoi(line + sizeof(ex) - 1);
	/* between the init's "booted" and "exit" lines: the script's output */
	if (vm->forward >= 0 && vm->booted && vm->exit_code < 0 && !init) {
		size_t n = strlen(line);

		line[n] = '\n';
		if (write(vm->forward, line, n + 1) < 0)
			vm->forward = -1;
		line[n] = '\0';
	}
	/* a panic's stack trace pushes its first line out of the tail */
	if (!vm->panic && (strstr(line, "Kernel panic - ") || strstr(line, "BUG: ") ||
			   strstr(line, "Oops: ")))
		vm->panic = kscen_xstrdup(line);
	free(vm->tail[vm->tail_next]);
	vm->tail[vm->tail_next] = kscen_xstrdup(line);
	vm->tail_next = (vm->tail_next + 1) % KSCEN_VM_TAIL_LINES;
}

int kscen_vm_pump(struct kscen_vm *vm, int timeout_ms)
{
	struct pollfd p = { .fd = vm->console, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	if (vm->console < 0)
		return 1;
	if (poll(&p, 1, timeout_ms) <= 0)
		return 0;
	n = read(vm->console, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {	/* EOF: qemu exited (or the pipe broke) */
		if (vm->line_len) {
			vm->line[vm->line_len] = '\0';
			console_line(vm, vm->line);
			vm->line_len = 0;
		}
		close(vm->console);
		vm->console = -1;
		return 1;
	}
	for (ssize_t i = 0; i < n; i++) {
		char c = buf[i];

		if (c == '\r')
			continue;
		if (c == '\n' || vm->line_len == sizeof(vm->line) - 2) {
			vm->line[vm->line_len] = '\0';
			console_line(vm, vm->line);
			vm->line_len = 0;
			if (c == '\n')
				continue;
		}
		vm->line[vm->line_len++] = c;
	}
	return 0;
}

void kscen_vm_print_tail(struct kscen_vm *vm)
{
	bool any = false;

	if (vm->line_len) {
		vm->line[vm->line_len] = '\0';
		console_line(vm, vm->line);
		vm->line_len = 0;
	}
	for (unsigned i = 0; i < KSCEN_VM_TAIL_LINES; i++) {
		const char *l = vm->tail[(vm->tail_next + i) % KSCEN_VM_TAIL_LINES];

		if (!l)
			continue;
		if (!any)
			kscen_note(NULL, "the console of kernel %s "
				   "ended with:", vm->label);
		any = true;
		kscen_diag_info("  | %s\n", l);	/* the guest's own words */
	}
	if (vm->panic)
		kscen_note(NULL, "kernel %s: %s", vm->label, vm->panic);
	if (!any)
		kscen_note(NULL, "the console of kernel %s is empty "
			   "(no console=ttyS0 support, or stuck before the console)",
			   vm->label);
}

const char *kscen_vm_accel_name(const struct kscen_vm *vm)
{
	return vm->kvm ? "kvm" : "tcg";
}

/* ---- start, stop --------------------------------------------------------------- */

static char *find_qemu(void)
{
	const char *env = getenv("KSCEN_QEMU"), *path = getenv("PATH");
	char *copy, *save = NULL, *out = NULL;

	if (env && *env)
		return kscen_xstrdup(env);
	copy = kscen_xstrdup(path && *path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(copy, ":", &save); d && !out; d = strtok_r(NULL, ":", &save)) {
		char *p = kscen_xasprintf("%s/qemu-system-x86_64", d);

		if (access(p, X_OK) == 0)
			out = p;
		else
			free(p);
	}
	free(copy);
	return out;
}

struct argv {
	char **v;
	unsigned nr;
};

static void arg(struct argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void arg(struct argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	a->v = kscen_xrealloc(a->v, (a->nr + 2) * sizeof(char *));
	a->v[a->nr++] = s;
	a->v[a->nr] = NULL;
}

static void argv_free(struct argv *a)
{
	for (unsigned i = 0; i < a->nr; i++)
		free(a->v[i]);
	free(a->v);
}

/* The modules directory: --modules as given, or its lib/modules/RELEASE. */
static char *pick_modules(const struct kscen_vm_config *c, const char *release)
{
	char *p;
	struct stat st;

	if (!c->modules)
		return kscen_vm_modules_dir(c->kernel, release);
	p = kscen_xasprintf("%s/lib/modules/%s", c->modules, release);
	if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
		return p;
	free(p);
	return kscen_xstrdup(c->modules);
}

static void spawn(struct kscen_vm *vm, char **argv, int out)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	vm->pid = fork();
	if (vm->pid != 0) {
		if (null >= 0)
			close(null);
		return;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	dup2(null, 0);
	dup2(out, 1);
	dup2(out, 2);
	signal(SIGINT, SIG_IGN);	/* kscen stops it: ^C reaches the group */
	execv(argv[0], argv);
	dprintf(2, "kscen: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int kscen_vm_spawn(const struct kscen_vm_config *c, struct kscen_vm *vm)
{
	const char *tmp = getenv("TMPDIR");
	char *qemu = find_qemu(), *modules = NULL, *sock = NULL, *hostname;
	char host[64] = "kscen";
	struct argv a = { 0 };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int pfd[2] = { -1, -1 }, ret = 0;

	memset(vm, 0, sizeof(*vm));
	vm->label = c->label;
	vm->console = vm->agent = vm->listen = vm->forward = -1;
	vm->exit_code = -1;
	vm->forward = c->forward;
	if (!qemu) {
		kscen_error(NULL, "qemu-system-x86_64 is not installed "
			    "(Debian: apt-get install qemu-system-x86)");
		ret = -ENOENT;
		goto out;
	}
	if (access(c->kernel, R_OK)) {
		ret = -errno;
		kscen_error(NULL, "kernel %s: %s: %s", c->label, c->kernel,
			    strerror(errno));
		goto out;
	}
	vm->release = kscen_bzimage_release(c->kernel);
	if (!vm->release) {
		kscen_error(NULL, "kernel %s: %s is not a bzImage (no boot "
			    "protocol header)", c->label, c->kernel);
		ret = -ENOEXEC;
		goto out;
	}
	if (c->accel != KSCEN_ACCEL_TCG) {
		ret = kscen_kvm_usable(vm->accel_why, sizeof(vm->accel_why));
		if (ret && c->accel == KSCEN_ACCEL_KVM) {
			kscen_error(NULL, "--accel kvm: %s", vm->accel_why);
			goto out;
		}
		vm->kvm = ret == 0;
		ret = 0;
	} else {
		snprintf(vm->accel_why, sizeof(vm->accel_why), "--accel tcg");
	}
	vm->dir = kscen_xasprintf("%s/kscen-vm.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(vm->dir)) {
		ret = -errno;
		kscen_error(NULL, "%s: %s", vm->dir, strerror(errno));
		free(vm->dir);
		vm->dir = NULL;
		goto out;
	}
	modules = pick_modules(c, vm->release);
	if (!modules)
		kscen_warning(NULL, "kernel %s (%s): no modules directory found "
			      "(--modules DIR); assuming 9p and virtio are built in",
			      c->label, vm->release);
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	hostname = kscen_xasprintf("%s-vm-%s", host, vm->kvm ? "kvm" : "tcg");
	ret = kscen_vm_initramfs(c, modules, vm->dir, hostname);
	free(hostname);
	if (ret) {
		kscen_error(NULL, "kernel %s: no initramfs, not booted", c->label);
		goto out;
	}

	arg(&a, "%s", qemu);
	arg(&a, "-nodefaults");
	arg(&a, "-no-user-config");
	arg(&a, "-no-reboot");
	arg(&a, "-display");
	arg(&a, "none");
	arg(&a, "-monitor");
	arg(&a, "none");
	arg(&a, "-serial");
	arg(&a, "stdio");
	arg(&a, "-machine");
	arg(&a, "q35,accel=%s", vm->kvm ? "kvm" : "tcg");
	arg(&a, "-cpu");
	arg(&a, vm->kvm ? "host" : "max");
	arg(&a, "-smp");
	arg(&a, "%u", c->cpus);
	arg(&a, "-m");
	arg(&a, "%lluM", c->memory >> 20);
	arg(&a, "-kernel");
	arg(&a, "%s", c->kernel);
	arg(&a, "-initrd");
	arg(&a, "%s/initramfs.cpio", vm->dir);
	arg(&a, "-append");
	arg(&a, "console=ttyS0 rdinit=/init panic=-1%s%s",
	    c->append ? " " : "", c->append ? c->append : "");
	arg(&a, "-fsdev");
	arg(&a, "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap");
	arg(&a, "-device");
	arg(&a, "virtio-9p-pci,fsdev=root,mount_tag=kscenroot");
	if (c->rw_dir) {
		if (strchr(c->rw_dir, ',')) {
			kscen_error(NULL, "the results directory %s has a ',' "
				    "that qemu's -fsdev cannot take", c->rw_dir);
			ret = -EINVAL;
			goto out;
		}
		arg(&a, "-fsdev");
		arg(&a, "local,id=rw,path=%s,security_model=none,multidevs=remap", c->rw_dir);
		arg(&a, "-device");
		arg(&a, "virtio-9p-pci,fsdev=rw,mount_tag=kscenrw");
	}
	if (c->agent) {
		/* kscen listens, qemu connects at its start: nothing is lost */
		sock = kscen_xasprintf("%s/agent.sock", vm->dir);
		if (strlen(sock) >= sizeof(sun.sun_path)) {
			ret = -ENAMETOOLONG;
			kscen_error(NULL, "%s: %s", sock, strerror(-ret));
			goto out;
		}
		strcpy(sun.sun_path, sock);
		vm->listen = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (vm->listen < 0 || bind(vm->listen, (void *)&sun, sizeof(sun)) ||
		    listen(vm->listen, 1)) {
			ret = -errno;
			kscen_error(NULL, "%s: %s", sock, strerror(errno));
			goto out;
		}
		arg(&a, "-chardev");
		arg(&a, "socket,id=agent,path=%s", sock);
		arg(&a, "-device");
		arg(&a, "virtio-serial-pci");
		arg(&a, "-device");
		arg(&a, "virtserialport,chardev=agent,name=%s", KSCEN_VM_AGENT_PORT);
	}
	if (kscen_verbose) {	/* -v: the qemu command line */
		size_t len = 1;
		char *line, *p;

		for (unsigned i = 0; i < a.nr; i++)
			len += strlen(a.v[i]) + 1;
		p = line = kscen_xmalloc(len);
		for (unsigned i = 0; i < a.nr; i++)
			p += sprintf(p, " %s", a.v[i]);
		*p = '\0';
		kscen_diag_info("kscen: kernel %s:%s\n", c->label, line);
		free(line);
	}

	if (pipe2(pfd, O_CLOEXEC)) {
		ret = -errno;
		goto out;
	}
	vm->spawned = kscen_now_ns() / 1e9;
	spawn(vm, a.v, pfd[1]);
	close(pfd[1]);
	if (vm->pid < 0) {
		ret = -errno;
		vm->pid = 0;
		close(pfd[0]);
		goto out;
	}
	vm->console = pfd[0];
out:
	if (ret && vm->console >= 0)
		kscen_vm_print_tail(vm);
	if (ret)
		kscen_vm_stop(vm, 0);
	argv_free(&a);
	free(qemu);
	free(modules);
	free(sock);
	return ret;
}

int kscen_vm_wait_booted(const struct kscen_vm_config *c, struct kscen_vm *vm);

/*
 * QEMU stopped under KVM before the guest booted, and not by a panic of
 * the guest's (--accel auto): say why, start it again under TCG, wait.
 */
static int tcg_again(const struct kscen_vm_config *c, struct kscen_vm *vm)
{
	struct kscen_vm_config tcg = *c;
	char why[sizeof(vm->accel_why)];
	const char *l;
	int ret;

	kscen_vm_stop(vm, 0);
	l = vm->tail[(vm->tail_next + KSCEN_VM_TAIL_LINES - 1) % KSCEN_VM_TAIL_LINES];
	snprintf(why, sizeof(why), "QEMU under KVM failed: %s", l ? l : "it stopped");
	kscen_warning(NULL, "kernel %s: QEMU under KVM stopped before the guest "
		      "booted (%s); falling back to TCG", c->label, l ? l : "no message");
	kscen_vm_free(vm);
	tcg.accel = KSCEN_ACCEL_TCG;
	ret = kscen_vm_spawn(&tcg, vm);
	snprintf(vm->accel_why, sizeof(vm->accel_why), "%s", why);
	return ret ? ret : kscen_vm_wait_booted(&tcg, vm);
}

int kscen_vm_wait_booted(const struct kscen_vm_config *c, struct kscen_vm *vm)
{
	double deadline = vm->spawned + c->boot_timeout;
	bool fallback = vm->kvm && c->accel == KSCEN_ACCEL_AUTO;
	int ret = 0;

	/* until the init's "booted" line (and qemu's connection to the agent) */
	while (!vm->booted || (c->agent && vm->agent < 0)) {
		struct pollfd p = { .fd = vm->listen, .events = POLLIN };
		double left = deadline - kscen_now_ns() / 1e9;

		if (left <= 0) {
			kscen_error(NULL, "kernel %s (%s) did not boot within %u s "
				    "(--boot-timeout)", c->label, vm->release, c->boot_timeout);
			ret = -ETIMEDOUT;
			break;
		}
		if (c->agent && vm->agent < 0 && poll(&p, 1, 0) == 1)
			vm->agent = accept4(vm->listen, NULL, NULL, SOCK_CLOEXEC);
		if (kscen_vm_pump(vm, left > 0.2 ? 200 : (int)(left * 1000) + 1)) {
			if (fallback && !vm->panic && vm->exit_code < 0)
				return tcg_again(c, vm);
			kscen_error(NULL, "kernel %s (%s) stopped before its init "
				    "booted%s", c->label, vm->release,
				    vm->exit_code == 125 ? " (the init failed)" : "");
			ret = -EIO;
			break;
		}
		if (vm->exit_code >= 0 && !vm->booted) {
			kscen_error(NULL, "kernel %s (%s): the init failed",
				    c->label, vm->release);
			ret = -EIO;
			break;
		}
	}
	if (ret) {
		kscen_vm_print_tail(vm);
		kscen_vm_stop(vm, 0);
	}
	return ret;
}

int kscen_vm_start(const struct kscen_vm_config *c, struct kscen_vm *vm)
{
	int ret = kscen_vm_spawn(c, vm);

	return ret ? ret : kscen_vm_wait_booted(c, vm);
}

void kscen_vm_stop(struct kscen_vm *vm, int timeout_ms)
{
	double until = kscen_now_ns() / 1e9 + timeout_ms / 1000.0;
	int status;

	if (vm->agent >= 0)
		close(vm->agent);
	vm->agent = -1;
	while (vm->pid > 0 && kscen_now_ns() / 1e9 < until) {
		if (waitpid(vm->pid, &status, WNOHANG) == vm->pid) {
			vm->pid = 0;
			break;
		}
		if (vm->console >= 0)
			kscen_vm_pump(vm, 50);
		else
			usleep(20000);
	}
	if (vm->pid > 0) {
		kill(vm->pid, SIGKILL);
		while (waitpid(vm->pid, &status, 0) < 0 && errno == EINTR)
			;
		vm->pid = 0;
	}
	while (vm->console >= 0 && !kscen_vm_pump(vm, 0))
		;
	if (vm->listen >= 0)
		close(vm->listen);
	vm->listen = -1;
	if (vm->dir) {
		char *p = kscen_xasprintf("%s/initramfs.cpio", vm->dir);

		unlink(p);
		free(p);
		p = kscen_xasprintf("%s/agent.sock", vm->dir);
		unlink(p);
		free(p);
		rmdir(vm->dir);
		free(vm->dir);
		vm->dir = NULL;
	}
}

/* Free what kscen_vm_stop() keeps for messages: the tail, the release. */
void kscen_vm_free(struct kscen_vm *vm)
{
	for (unsigned i = 0; i < KSCEN_VM_TAIL_LINES; i++) {
		free(vm->tail[i]);
		vm->tail[i] = NULL;
	}
	free(vm->release);
	free(vm->panic);
	vm->release = vm->panic = NULL;
}
