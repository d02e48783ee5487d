/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lock_contention.h - the types lock_contention.bpf.c and the
 * lock.contention workload share. __u64-style types only: the BPF side gets
 * them from vmlinux.h, the user side from <linux/types.h>.
 */
#ifndef KSCEN_LOCK_CONTENTION_H
#define KSCEN_LOCK_CONTENTION_H

/* What a lock_stat entry is keyed by: perf lock contention's -t, -l, default. */
enum lc_aggregate {
	LC_AGG_TASK,	/* thread id */
	LC_AGG_ADDR,	/* lock address */
	LC_AGG_STACK,	/* stack id of the contending call chain */
};

/* The global counters the program keeps beside the map (bss counters[]). */
enum lc_counter {
	LC_CONTENTIONS,	/* contention_end events matched to a begin */
	LC_WAIT_NS,	/* total time between them */
	LC_STORED,	/* entries inserted into lock_stat */
	LC_FAILED,	/* contentions not recorded: no entry, none inserted (perf's "bad") */
	LC_UPDATE_ERRORS, /* bpf_map_update_elem() calls that failed: what the fix saves */
	LC_NR_COUNTERS,
};

/* Frames kept per stack, as perf's CONTENTION_STACK_DEPTH. */
#define LC_STACK_DEPTH 8
/* Per-task begin timestamps in flight; a task waits on one lock at a time. */
#define LC_MAX_TASKS 16384

struct lc_key {
	__u64 id;	/* tid, lock address or stack id */
};

struct lc_stat {
	__u64 count;
	__u64 total_ns;
	__u64 max_ns;
};

struct lc_tstamp {
	__u64 ts;
	__u64 lock;
	__s64 stack_id;
};

#endif
