// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe.bpf.c - the programs of the uprobe.* workloads, the shape of perf
 * bench uprobe's: an empty program and one calling bpf_trace_printk(). Each
 * also counts its hits, which the workload checks against the number of
 * calls it made, so a probe that silently did not fire fails the job instead
 * of reporting a fast, meaningless number. The same programs serve entry
 * and return probes: attach decides, not the section name.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "uprobe.h"

/* Set by the workload between open and load. */
const volatile __u32 target_tgid;

struct uprobe_hits hits;

static __always_inline void count_hit(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (tgid == target_tgid)
		__sync_fetch_and_add(&hits.self, 1);
	else
		__sync_fetch_and_add(&hits.other, 1);
}

SEC("uprobe")
int empty(void *ctx)
{
	count_hit();
	return 0;
}

SEC("uprobe")
int trace_printk(void *ctx)
{
	count_hit();
	bpf_printk("kscen uprobe hit");
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
