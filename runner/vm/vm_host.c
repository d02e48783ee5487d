// SPDX-License-Identifier: GPL-2.0
/*
 * vm_host.c - what kscen vm and kscen ab ask of this host before a guest
 * boots: whether KVM really runs a vCPU here (vm.c explains why /dev/kvm is
 * not enough), and the values of the options both commands take.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workloads/registry.h"
#include "vm.h"

/* ---- is KVM usable? ---------------------------------------------------------- */

/* In the child: 0 when a real-mode "hlt" ran to KVM_EXIT_HLT, else 1..6. */
static int kvm_try(void)
{
	struct kvm_userspace_memory_region region = { 0 };
	struct kvm_sregs sregs;
	struct kvm_regs regs = { 0 };
	struct kvm_run *run;
	int kvm, vm, vcpu, size;
	unsigned char *mem;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		return 1;
	if (ioctl(kvm, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
		return 2;
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		return 3;
	mem = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 4;
	mem[0] = 0xf4;	/* hlt */
	region.guest_phys_addr = 0x1000;
	region.memory_size = 0x1000;
	region.userspace_addr = (unsigned long)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return 4;
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vcpu < 0 || size <= 0)
		return 5;
	run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED || ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0)
		return 5;
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	regs.rip = 0x1000;
	regs.rflags = 2;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0 || ioctl(vcpu, KVM_SET_REGS, &regs) < 0)
		return 5;
	if (ioctl(vcpu, KVM_RUN, 0) < 0 || run->exit_reason != KVM_EXIT_HLT)
		return 6;
	return 0;
}

int kscen_kvm_usable(char *why, size_t len)
{
	static const char *const reasons[] = {
		"", "/dev/kvm cannot be opened", "/dev/kvm has another API version",
		"KVM_CREATE_VM fails", "KVM cannot map guest memory",
		"KVM cannot create a vCPU",
		"/dev/kvm exists but a vCPU does not run (no nested virtualisation)",
	};
	int status = 0, code;
	pid_t pid;

	/*
	 * A test hook (recorded as all KSCEN_* are): take the probe as passed,
	 * to test the fallback when QEMU then fails under KVM on a host
	 * without /dev/kvm (tests/vm.sh, with a stand-in QEMU: KSCEN_QEMU).
	 */
	if (getenv("KSCEN_TEST_KVM_USABLE") && !strcmp(getenv("KSCEN_TEST_KVM_USABLE"), "1"))
		return 0;
	if (access("/dev/kvm", F_OK)) {
		snprintf(why, len, "no /dev/kvm");
		return -ENODEV;
	}
	pid = fork();
	if (pid < 0)
		return snprintf(why, len, "fork: %s", strerror(errno)), -errno;
	if (pid == 0) {
		alarm(10);	/* a vCPU that never exits must not hang kscen */
		_exit(kvm_try());
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (code == 0)
		return 0;
	snprintf(why, len, "%s", code > 0 && code < (int)ARRAY_SIZE(reasons) ?
		 reasons[code] : "a KVM test guest did not exit");
	return -ENODEV;
}

int kscen_vm_parse_memory(const char *arg, unsigned long long *out)
{
	static const struct kscen_param p = {
		.name = "memory", .type = KSCEN_P_SIZE,
		.min = 64LL << 20, .max = 1LL << 40,
	};
	struct kscen_value v = { 0 };
	char err[160];

	if (kscen_value_parse(&p, arg, &v, err, sizeof(err)))
		return -EINVAL;
	*out = v.i;
	return 0;
}

int kscen_vm_parse_accel(const char *arg, enum kscen_vm_accel *out)
{
	if (!strcmp(arg, "auto"))
		*out = KSCEN_ACCEL_AUTO;
	else if (!strcmp(arg, "kvm"))
		*out = KSCEN_ACCEL_KVM;
	else if (!strcmp(arg, "tcg"))
		*out = KSCEN_ACCEL_TCG;
	else
		return -EINVAL;
	return 0;
}
