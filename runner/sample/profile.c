// SPDX-License-Identifier: GPL-2.0
/*
 * profile.c - one sample of a job under kscen's own BPF profiler
 * (bpf/profile.bpf.c), or perf record (profile_perf.c), turned into folded
 * stacks and a job's top symbols.
 *
 * The profiler is a perf event per CPU, like libbpf-tools' profile: the
 * hardware cycles counter where the PMU has one, the cpu-clock software
 * event otherwise (most VMs), at a fixed frequency; the BPF program
 * counts (process, kernel stack, user stack) in a hash map. It is started
 * before the sample's child exists and stopped after it is gone, so the
 * whole sample (setup, sample, teardown) is covered.
 *
 * User addresses can only be named while the process lives (its
 * /proc/PID/maps goes with it), so a thread snapshots the mappings of every
 * new process that shows up in the counts every few milliseconds. A
 * process that ran too briefly to be seen and did not exec shares the
 * runner's mappings (it is a fork of it); otherwise its frames are named
 * after their object, or "[unknown]".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/util.h"
#include "workloads/bpf.h"
#include "profile_take.h"
#include "runner.h"
#include "lib/symbols.h"
#include "profiler.h"
#include "profile.skel.h"

#define POLL_MS 10

/* ---- The BPF profiler ------------------------------------------------------- */

struct bpf_prof {
	struct profile_bpf *skel;
	struct bpf_link **links;
	int nr_links;
	struct kscen_usyms *usyms;
	pthread_t poller;
	bool poller_on;
	volatile int stop;
};

/* Snapshot the mappings of every process the counts name, while it lives. */
static void *poll_pids(void *arg)
{
	struct bpf_prof *b = arg;
	int fd = bpf_map__fd(b->skel->maps.procs);
	struct timespec ts = { 0, POLL_MS * 1000000L };

	while (!b->stop) {
		struct profile_proc key, next, *prev = NULL;

		while (!bpf_map_get_next_key(fd, prev, &next)) {
			char comm[PROFILE_COMM_LEN + 1];

			memcpy(comm, next.comm, PROFILE_COMM_LEN);
			comm[PROFILE_COMM_LEN] = '\0';
			if (next.tgid && !kscen_usyms_has_pid(b->usyms, next.tgid, comm))
				kscen_usyms_add_pid(b->usyms, next.tgid, comm);
			key = next;
			prev = &key;
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int open_event(int cpu, unsigned freq, bool hw)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = hw ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = freq,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static void bpf_prof_close(struct bpf_prof *b)
{
	if (b->poller_on) {
		b->stop = 1;
		pthread_join(b->poller, NULL);
		b->poller_on = false;
	}
	for (int i = 0; i < b->nr_links; i++)
		bpf_link__destroy(b->links[i]);	/* closes its perf event too */
	free(b->links);
	b->links = NULL;
	b->nr_links = 0;
}

static int bpf_prof_start(struct bpf_prof *b, const struct kscen_profile_spec *spec,
			  struct kscen_profile *p, struct kscen_ctx *ctx)
{
	int nr_cpus = libbpf_num_possible_cpus(), ret;
	bool hw = true;

	if (nr_cpus < 0)
		return kscen_reason(ctx, nr_cpus, "cannot count CPUs: %s",
				    strerror(-nr_cpus));
	b->skel = profile_bpf__open();
	if (!b->skel)
		return kscen_reason(ctx, -errno, "opening the profiler: %s",
				    strerror(errno));
	b->skel->rodata->runner_tgid = spec->system ? 0 : getpid();
	b->skel->rodata->want_kernel = spec->stacks & KSCEN_STACKS_KERNEL;
	b->skel->rodata->want_user = spec->stacks & KSCEN_STACKS_USER;
	ret = kscen_bpf_load(ctx, b->skel->skeleton, "the profiler (bpf/profile.bpf.c)");
	if (ret)
		return ret;
	b->links = kscen_xcalloc(nr_cpus, sizeof(*b->links));
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		int fd = open_event(cpu, spec->frequency, hw);

		/* No PMU cycles (a VM, most often): the cpu-clock timer. */
		if (fd < 0 && hw && (fd == -ENOENT || fd == -EOPNOTSUPP ||
				     fd == -ENODEV || fd == -EINVAL) && cpu == 0) {
			hw = false;
			fd = open_event(cpu, spec->frequency, hw);
		}
		if (fd == -ENODEV)
			continue;	/* an offline CPU */
		if (fd < 0)
			return kscen_reason(ctx, fd == -EACCES || fd == -EPERM ?
					    KSCEN_SKIP : fd,
					    "perf_event_open(%s, cpu %d): %s",
					    hw ? "cycles" : "cpu-clock", cpu,
					    strerror(-fd));
		b->links[b->nr_links] = bpf_program__attach_perf_event(b->skel->progs.do_sample, fd);
		if (!b->links[b->nr_links]) {
			ret = -errno;
			close(fd);
			return kscen_reason(ctx, ret, "attaching the profiler to cpu %d: %s",
					    cpu, strerror(-ret));
		}
		b->nr_links++;
	}
	p->event = kscen_xstrdup(hw ? "cycles" : "cpu-clock");
	b->usyms = kscen_usyms_new();
	kscen_usyms_add_pid(b->usyms, getpid(), NULL);
	if (!pthread_create(&b->poller, NULL, poll_pids, b))
		b->poller_on = true;
	return 0;
}

static void add_frame(char **buf, size_t *len, size_t *cap, const char *name,
		      const char *suffix)
{
	size_t n = strlen(name) + strlen(suffix) + 2;

	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = kscen_xrealloc(*buf, *cap);
	}
	*len += snprintf(*buf + *len, *cap - *len, ";%s%s", name, suffix);
}

/* A frame's name: ';' and newlines would break the folded format. */
static void frame_name(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s", name);
	for (char *c = out; *c; c++)
		if (*c == ';' || *c == '\n' || *c == '\r')
			*c = '_';
}

static int bpf_prof_collect(struct bpf_prof *b, const struct kscen_profile_spec *spec,
			    struct kscen_profile *p)
{
	int counts = bpf_map__fd(b->skel->maps.counts);
	int stacks = bpf_map__fd(b->skel->maps.stacks);
	struct profile_key key, next, *prev = NULL;
	struct kscen_ksyms *ksyms = NULL;
	__u64 ips[PROFILE_MAX_STACK];
	char self_comm[PROFILE_COMM_LEN + 1] = "", comm[PROFILE_COMM_LEN + 1];
	char name[512], dso_name[300];
	bool hidden = false;
	unsigned cap = 0;
	FILE *f;

	if ((f = fopen("/proc/self/comm", "r"))) {
		if (fgets(self_comm, sizeof(self_comm), f))
			self_comm[strcspn(self_comm, "\n")] = '\0';
		fclose(f);
	}
	if (spec->stacks & KSCEN_STACKS_KERNEL) {
		int kr = -1;

		if ((f = fopen("/proc/sys/kernel/kptr_restrict", "r"))) {
			if (fscanf(f, "%d", &kr) != 1)
				kr = -1;
			fclose(f);
		}
		/* $KSCEN_KALLSYMS: tests stand in a kptr_restrict'ed copy. */
		if (kscen_ksyms_load(getenv("KSCEN_KALLSYMS"), &ksyms, &hidden))
			p->note = kscen_xstrdup("no /proc/kallsyms: kernel frames unnamed");
		else if (hidden)
			p->note = kscen_xasprintf("kernel symbols hidden from this user "
						  "(kptr_restrict=%d): kernel frames unnamed", kr);
	}

	/* The losses, read after the events are gone: nothing moves now. */
	p->map_full = b->skel->bss->stats.map_full;
	p->kstack_lost = b->skel->bss->stats.kstack_lost;
	p->ustack_lost = b->skel->bss->stats.ustack_lost;
	while (!bpf_map_get_next_key(counts, prev, &next)) {
		struct kscen_folded *fo;
		__u64 count = 0;
		char *buf = NULL;
		size_t len = 0, bcap = 0;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(counts, &key, &count) || !count)
			continue;
		memcpy(comm, key.comm, PROFILE_COMM_LEN);
		comm[PROFILE_COMM_LEN] = '\0';
		if (key.tgid && !kscen_usyms_has_pid(b->usyms, key.tgid, comm) &&
		    !strcmp(comm, self_comm))
			kscen_usyms_alias_pid(b->usyms, key.tgid, comm, getpid(), self_comm);
		frame_name(name, sizeof(name), comm[0] ? comm : "[unknown]");
		bcap = 256;
		buf = kscen_xmalloc(bcap);
		len = snprintf(buf, bcap, "%s", name);
		if (key.ustack >= 0 && !bpf_map_lookup_elem(stacks, &key.ustack, ips)) {
			int n = 0;

			/*
			 * Code built without frame pointers sends the kernel's
			 * walk through whatever the stack holds: past the
			 * leaf, the first address no object maps ends the
			 * real chain. What lay beyond is one "[unknown]".
			 */
			while (n < PROFILE_MAX_STACK && ips[n]) {
				const char *dso = NULL;

				if (n && !kscen_usyms_find(b->usyms, key.tgid, comm,
							   ips[n] - 1, &dso) && !dso) {
					add_frame(&buf, &len, &bcap, "[unknown]", "");
					break;
				}
				n++;
			}
			for (int i = n - 1; i >= 0; i--) {
				/* A return address points after its call. */
				__u64 ip = i ? ips[i] - 1 : ips[i];
				const char *dso, *s = kscen_usyms_find(b->usyms, key.tgid,
								      comm, ip, &dso);

				if (s) {
					frame_name(name, sizeof(name), s);
				} else if (dso) {
					frame_name(dso_name, sizeof(dso_name), dso);
					snprintf(name, sizeof(name), "[%s]", dso_name);
				} else {
					snprintf(name, sizeof(name), "[unknown]");
				}
				add_frame(&buf, &len, &bcap, name, "");
			}
		}
		if (key.kstack >= 0 && !bpf_map_lookup_elem(stacks, &key.kstack, ips)) {
			int n = 0;

			while (n < PROFILE_MAX_STACK && ips[n])
				n++;
			for (int i = n - 1; i >= 0; i--) {
				const char *s = kscen_ksyms_find(ksyms, i ? ips[i] - 1 : ips[i]);

				frame_name(name, sizeof(name), s ? s : "[unknown]");
				add_frame(&buf, &len, &bcap, name, "_[k]");
			}
		}
		if (!strchr(buf, ';'))	/* no stack at all: still a tick */
			add_frame(&buf, &len, &bcap, "[unknown]", "");
		if (p->nr_folded == cap) {
			cap = cap ? cap * 2 : 256;
			p->folded = kscen_xrealloc(p->folded, cap * sizeof(*p->folded));
		}
		fo = &p->folded[p->nr_folded++];
		fo->stack = buf;
		fo->count = count;
	}
	for (unsigned i = 0; ; i++) {
		const char *path, *id;

		if (!kscen_usyms_object(b->usyms, i, &path, &id))
			break;
		p->objects = kscen_xrealloc(p->objects, (p->nr_objects + 1) * sizeof(char *));
		p->objects[p->nr_objects++] = kscen_xasprintf("%s %s", path, *id ? id : "-");
	}
	kscen_ksyms_free(ksyms);
	return 0;
}

static const char *const stacks_names[] = { "", "kernel", "user", "both" };

int kscen_profile_job(const struct kscen_job *job, long long timeout_ns,
		      const struct kscen_profile_spec *spec,
		      struct kscen_profile **out)
{
	struct kscen_profile *p = kscen_xcalloc(1, sizeof(*p));
	struct kscen_ctx ctx = { .verbose = kscen_verbose };
	struct kscen_sample_out so;
	struct bpf_prof b = { 0 };
	int ret = 0;

	*out = p;
	p->source = kscen_xstrdup(spec->perf ? "perf" : "bpf");
	p->frequency = spec->frequency;
	p->scope = kscen_xstrdup(spec->system ? "system" : "job");
	p->stacks = kscen_xstrdup(stacks_names[spec->stacks & 3]);
	p->top = spec->top;
	p->value = NAN;
	if (spec->perf) {
		ret = kscen_profile_perf(job, timeout_ns, spec, p);
		goto out;
	}
	if (kscen_bpf_supported(&ctx)) {
		p->reason = kscen_xasprintf("profile skipped: %s", ctx.reason);
		goto out;
	}
	kscen_bpf_init();
	ret = bpf_prof_start(&b, spec, p, &ctx);
	if (ret) {
		p->reason = kscen_xasprintf("profile %s: %s",
					    ret == KSCEN_SKIP ? "skipped" : "failed",
					    ctx.reason[0] ? ctx.reason : strerror(-ret));
		ret = 0;
		goto out;
	}
	ret = kscen_sample_isolated(job, timeout_ns, &so);
	/* Stop the ticks before reading: the maps then hold one sample. */
	bpf_prof_close(&b);
	if (ret) {
		p->reason = kscen_xasprintf("profiled sample: %s", strerror(-ret));
		goto out;
	}
	if (so.ret) {
		p->reason = kscen_xasprintf("profiled sample %s: %s",
					    so.ret == KSCEN_SKIP ? "skipped" : "failed",
					    so.reason);
		if (so.ret == -EINTR)
			ret = -EINTR;
		goto out;
	}
	if (so.nr)
		p->value = so.v[0];
	bpf_prof_collect(&b, spec, p);
	kscen_profile_summarize(p);
	if (!p->samples && !p->reason)
		p->reason = kscen_xstrdup("the profiler counted no samples in scope");
out:
	bpf_prof_close(&b);
	kscen_usyms_free(b.usyms);
	if (b.skel)
		profile_bpf__destroy(b.skel);
	return ret;
}
