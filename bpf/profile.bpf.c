// SPDX-License-Identifier: GPL-2.0
/*
 * profile.bpf.c - the sampling profiler behind `profile:`, in the shape of
 * libbpf-tools' profile.bpf.c: one perf event per CPU (cycles or
 * cpu-clock, chosen by user space) runs this program on every tick; it
 * puts the kernel and user stacks in a stack map and counts each
 * (process, kernel stack, user stack) in a hash map.
 *
 * scope: job counts only the runner's descendants: each sample runs in a
 * child of the runner in its own process group (runner/isolate.c), so
 * during the profiled sample these are exactly the sample's process group
 * and whatever it started, even a helper that left the group. The runner
 * itself is not counted: it only waits.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "profiler.h"

#define EEXIST 17
#define EFAULT 14

/* Set by user space between open and load. */
const volatile __u32 runner_tgid;	/* 0: scope system, count every task */
const volatile bool want_kernel = true;
const volatile bool want_user = true;
const volatile __u32 max_ancestors = 16;

struct profile_stats stats;

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROFILE_MAX_STACK * sizeof(__u64));
	__uint(max_entries, 16384);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct profile_key);
	__type(value, __u64);
	__uint(max_entries, 16384);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct profile_proc);
	__type(value, __u8);
	__uint(max_entries, 4096);
} procs SEC(".maps");

/* Is the current task a descendant (not the runner itself)? */
static __always_inline bool in_scope(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!runner_tgid)
		return true;
	if (tgid == runner_tgid || tgid == 0)
		return false;
	for (__u32 i = 0; i < 16 && i < max_ancestors; i++) {
		t = BPF_CORE_READ(t, real_parent);
		if (!t)
			return false;
		tgid = BPF_CORE_READ(t, tgid);
		if (tgid == runner_tgid)
			return true;
		if (tgid <= 1)
			return false;
	}
	return false;
}

SEC("perf_event")
int do_sample(struct bpf_perf_event_data *ctx)
{
	struct profile_key key = {};
	__u64 one = 1, *val;

	__sync_fetch_and_add(&stats.ticks, 1);
	if (!in_scope())
		return 0;
	__sync_fetch_and_add(&stats.in_scope, 1);

	key.tgid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(&key.comm, sizeof(key.comm));
	key.kstack = -1;
	key.ustack = -1;
	if (want_kernel) {
		key.kstack = bpf_get_stackid(ctx, &stacks, 0);
		/* -EFAULT: the tick hit user mode, there is no kernel stack. */
		if (key.kstack < 0 && key.kstack != -EFAULT)
			__sync_fetch_and_add(&stats.kstack_lost, 1);
	}
	if (want_user && key.tgid) {
		struct profile_proc proc = { .tgid = key.tgid };
		__u8 seen = 1;

		key.ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		if (key.ustack < 0 && key.ustack != -EFAULT)
			__sync_fetch_and_add(&stats.ustack_lost, 1);
		__builtin_memcpy(proc.comm, key.comm, sizeof(proc.comm));
		if (!bpf_map_lookup_elem(&procs, &proc))
			bpf_map_update_elem(&procs, &proc, &seen, BPF_NOEXIST);
	}

	val = bpf_map_lookup_elem(&counts, &key);
	if (val) {
		__sync_fetch_and_add(val, 1);
		return 0;
	}
	if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST)) {
		/* A racing CPU may have inserted it: try once more. */
		val = bpf_map_lookup_elem(&counts, &key);
		if (val)
			__sync_fetch_and_add(val, 1);
		else
			__sync_fetch_and_add(&stats.map_full, 1);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
