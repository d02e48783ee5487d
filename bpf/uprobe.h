/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobe.h - what bpf/uprobe.bpf.c and runner/workloads/uprobe.c share: the
 * hit counters the kernel side bumps and the workload checks after each
 * sample. Types are __u64-style only, so both sides can include it (the
 * BPF side gets them from vmlinux.h, user space from <linux/types.h>).
 */
#ifndef KSCEN_BPF_UPROBE_H
#define KSCEN_BPF_UPROBE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * The probes are attached to every process (pid -1), like perf bench
 * uprobe, so that the cost measured is the one perf bench measures; hits
 * from other processes calling the same function are counted apart, so
 * the check "hits == calls" stays exact.
 */
struct uprobe_hits {
	__u64 self;	/* hits in target_tgid */
	__u64 other;	/* hits in any other process */
};

#endif
