// SPDX-License-Identifier: GPL-2.0
/*
 * builtin.c - the one list of kscen's own workloads. Adding a workload is a
 * new file under runner/workloads/ and one line in KSCEN_WORKLOADS below;
 * the Makefile builds every file in this directory, and `kscen list`,
 * scenario validation and the parameter-table tests all read this list
 * (through workload.c). Workloads built outside the tree are module.c's.
 */
#include "registry.h"

#define KSCEN_WORKLOADS(X)		\
	X(kscen_wl_breakpoint_thread)	\
	X(kscen_wl_breakpoint_enable)	\
	X(kscen_wl_exec)		\
	X(kscen_wl_uprobe_usleep)	\
	X(kscen_wl_uprobe_nop)		\
	X(kscen_wl_internals_synthesize) \
	X(kscen_wl_sched_messaging)	\
	X(kscen_wl_sched_pipe)		\
	X(kscen_wl_syscall_basic)	\
	X(kscen_wl_lock_contention)	\
	X(kscen_wl_futex_hash)		\
	X(kscen_wl_futex_wake)		\
	X(kscen_wl_futex_wake_parallel)	\
	X(kscen_wl_futex_requeue)	\
	X(kscen_wl_futex_lock_pi)	\
	X(kscen_wl_epoll_wait)		\
	X(kscen_wl_epoll_ctl)		\
	X(kscen_wl_syscall_getpgid)	\
	X(kscen_wl_syscall_fork)	\
	X(kscen_wl_syscall_execve)	\
	X(kscen_wl_sched_seccomp_notify)	\
	X(kscen_wl_mem_memcpy)		\
	X(kscen_wl_mem_memset)		\
	X(kscen_wl_mem_find_bit)		\
	X(kscen_wl_perf_bench)		\
	X(kscen_wl_fio)			\
	X(kscen_wl_stress_ng)		\
	X(kscen_wl_numa_mem)

#define DECLARE(sym) extern const struct kscen_workload sym;
KSCEN_WORKLOADS(DECLARE)
#undef DECLARE

#define ENTRY(sym) &sym,
const struct kscen_workload *const kscen_workloads[] = {
	KSCEN_WORKLOADS(ENTRY)
};
#undef ENTRY

const unsigned kscen_nr_workloads =
	sizeof(kscen_workloads) / sizeof(kscen_workloads[0]);
