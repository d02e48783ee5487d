// SPDX-License-Identifier: GPL-2.0
/*
 * lock_contention.bpf.c - the BPF side of lock.contention: what
 * `perf lock contention -b` does in the kernel, reduced to the part whose
 * cost the perf lock contention map-full series (LKML, April 2023) is
 * about.
 *
 * contention_begin stores a timestamp for the task; contention_end takes it
 * and adds the wait to a preallocated hash map, keyed by task, lock address
 * or stack. Once that map is full every insert fails with -E2BIG, and a
 * preallocated map only finds that out after scanning every CPU's freelist;
 * with skip_when_full the program remembers the first -E2BIG and stops
 * trying, which is Namhyung Kim's fix ("perf lock contention: Do not try to
 * update if hash map is full").
 *
 * Both tracepoints come in two flavours: tp_btf where the kernel has BTF,
 * raw_tp otherwise; the workload loads one pair.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "lock_contention.h"

#define E2BIG 7
#define EEXIST 17

/* Set between open and load. */
const volatile int aggregate = LC_AGG_TASK;
const volatile bool skip_when_full = false;

/* Set by the workload around its timed region; mmap'ed .bss. */
int enabled;
int data_map_full;
__u64 counters[LC_NR_COUNTERS];

/* max_entries is the job's map_entries, set between open and load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct lc_key);
	__type(value, struct lc_stat);
} lock_stat SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LC_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct lc_tstamp);
} tstamp SEC(".maps");

/* Only sized for real with aggregate=stack. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, LC_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

static __always_inline void count(int idx, __u64 v)
{
	if (idx >= 0 && idx < LC_NR_COUNTERS)
		__sync_fetch_and_add(&counters[idx], v);
}

static __always_inline int on_begin(void *ctx, __u64 lock)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lc_tstamp *t, n = {};

	if (!enabled)
		return 0;
	/* Nested (a spinlock while waiting for a mutex): keep the outer one. */
	t = bpf_map_lookup_elem(&tstamp, &tid);
	if (t && t->lock)
		return 0;
	n.ts = bpf_ktime_get_ns();
	n.lock = lock;
	n.stack_id = -1;
	if (aggregate == LC_AGG_STACK)
		n.stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_FAST_STACK_CMP);
	bpf_map_update_elem(&tstamp, &tid, &n, BPF_ANY);
	return 0;
}

static __always_inline int on_end(__u64 lock)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lc_stat *data, first;
	struct lc_tstamp *t;
	struct lc_key key;
	__u64 delta;
	long err;

	t = bpf_map_lookup_elem(&tstamp, &tid);
	if (!t || t->lock != lock)
		return 0;
	delta = bpf_ktime_get_ns() - t->ts;
	switch (aggregate) {
	case LC_AGG_ADDR:
		key.id = lock;
		break;
	case LC_AGG_STACK:
		key.id = t->stack_id;
		break;
	default:
		key.id = tid;
		break;
	}
	bpf_map_delete_elem(&tstamp, &tid);

	count(LC_CONTENTIONS, 1);
	count(LC_WAIT_NS, delta);
	if (aggregate == LC_AGG_STACK && (__s64)key.id < 0) {
		count(LC_FAILED, 1);
		return 0;
	}

	data = bpf_map_lookup_elem(&lock_stat, &key);
	if (data) {
		__sync_fetch_and_add(&data->count, 1);
		__sync_fetch_and_add(&data->total_ns, delta);
		if (data->max_ns < delta)
			data->max_ns = delta;
		return 0;
	}
	if (skip_when_full && data_map_full) {
		count(LC_FAILED, 1);
		return 0;
	}
	first.count = 1;
	first.total_ns = delta;
	first.max_ns = delta;
	err = bpf_map_update_elem(&lock_stat, &key, &first, BPF_NOEXIST);
	if (!err) {
		count(LC_STORED, 1);
	} else if (err != -EEXIST) {	/* another CPU was first: fine */
		if (err == -E2BIG)
			data_map_full = 1;
		count(LC_FAILED, 1);
		count(LC_UPDATE_ERRORS, 1);
	}
	return 0;
}

SEC("tp_btf/contention_begin")
int BPF_PROG(begin_btf, void *lock, unsigned int flags)
{
	return on_begin(ctx, (__u64)lock);
}

SEC("tp_btf/contention_end")
int BPF_PROG(end_btf, void *lock, int ret)
{
	return on_end((__u64)lock);
}

SEC("raw_tp/contention_begin")
int BPF_PROG(begin_raw, void *lock, unsigned int flags)
{
	return on_begin(ctx, (__u64)lock);
}

SEC("raw_tp/contention_end")
int BPF_PROG(end_raw, void *lock, int ret)
{
	return on_end((__u64)lock);
}

char LICENSE[] SEC("license") = "GPL";
