/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profiler.h - what bpf/profile.bpf.c and runner/profile.c share: the key of
 * the per-stack counts and the loss counters. __u32-style types only, so
 * both sides can include it (the BPF side gets them from vmlinux.h).
 */
#ifndef KSCEN_BPF_PROFILER_H
#define KSCEN_BPF_PROFILER_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define PROFILE_COMM_LEN 16
#define PROFILE_MAX_STACK 127	/* PERF_MAX_STACK_DEPTH */

/* One distinct (process, kernel stack, user stack); -1: no such stack. */
struct profile_key {
	__u32 tgid;
	__s32 kstack;
	__s32 ustack;
	char comm[PROFILE_COMM_LEN];
};

/*
 * Each process seen, by command too (exec keeps the pid): user space names
 * its frames from /proc/PID/maps while it lives, and polls this small map
 * for new ones rather than the counts, which can hold thousands of keys.
 */
struct profile_proc {
	__u32 tgid;
	char comm[PROFILE_COMM_LEN];
};

/*
 * Counted, never dropped silently: ticks that fell outside the scope,
 * ticks whose count could not be stored (the hash map was full), and
 * stacks the kernel could not give (-EFAULT for a user stack without
 * frame pointers is not counted: it means "kernel only", not a loss).
 */
struct profile_stats {
	__u64 ticks;		/* every tick the program saw */
	__u64 in_scope;		/* ticks that were counted */
	__u64 map_full;		/* counts lost: the hash map was full */
	__u64 kstack_lost;	/* kernel stacks the stack map could not take */
	__u64 ustack_lost;	/* user stacks the stack map could not take */
};

#endif
