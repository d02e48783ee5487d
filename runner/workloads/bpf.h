/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf.h - what every BPF workload needs around its skeleton: one libbpf
 * print callback, the cheap "can BPF run here" checks for supported(), and
 * loading a skeleton with a reason a user can act on (a missing privilege
 * is a skip, a verifier rejection is a failure).
 */
#ifndef KSCEN_BPF_H
#define KSCEN_BPF_H

#include <bpf/libbpf.h>

#include "workload.h"

/*
 * Route libbpf's messages to stderr: warnings always, info and debug ones
 * only with -v. Call before the first skeleton is opened.
 */
void kscen_bpf_init(void);

/*
 * The kernel BTF to use: $KSCEN_BTF_PATH when set (tests point it at a
 * missing file to force the skip), else /sys/kernel/btf/vmlinux.
 */
const char *kscen_bpf_btf_path(void);

/*
 * Cheap checks for a workload's supported(): privilege (root, or CAP_BPF
 * and CAP_PERFMON) and kernel BTF. 0, or KSCEN_SKIP with ctx->reason set.
 */
int kscen_bpf_supported(struct kscen_ctx *ctx);

/*
 * Does the kernel have the PMU @name (/sys/bus/event_source/devices/@name)?
 * 0, or KSCEN_SKIP with ctx->reason set.
 */
int kscen_bpf_need_pmu(struct kscen_ctx *ctx, const char *name);

/*
 * Load an opened skeleton (X_bpf__open(), settings written) into the
 * kernel: 0; KSCEN_SKIP when the kernel refuses bpf() itself (EPERM); or
 * -errno with a reason naming @what.
 */
int kscen_bpf_load(struct kscen_ctx *ctx, struct bpf_object_skeleton *s,
		   const char *what);

/*
 * Clear the global ftrace buffer (where bpf_printk() writes), so that a
 * trace_printk job leaves no trace of its hits behind. Best effort: no
 * tracefs is not an error.
 */
void kscen_bpf_trace_clear(void);

#endif
