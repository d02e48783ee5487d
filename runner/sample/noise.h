/* SPDX-License-Identifier: GPL-2.0 */
/*
 * noise.h - the sentinels (noise.c): what else the machine did while a
 * sample's timed region ran, read just before and just after it, and the
 * verdict drawn from that: disturbed or not, and by what. docs/noise.md
 * says what each one costs and how the thresholds were chosen.
 */
#ifndef KSCEN_NOISE_H
#define KSCEN_NOISE_H

#include <stdbool.h>

#include "store/run.h"

/* The counters at one instant. */
struct kscen_noise_read {
	long long ns;			/* CLOCK_MONOTONIC */
	/* /proc/stat, all CPUs, in USER_HZ ticks: -1 when unread */
	long long busy;			/* user nice system irq softirq */
	long long steal;
	long long total;		/* every column, idle and steal included */
	long long intr, softirq;	/* interrupts, softirqs since boot */
	unsigned nr_cpus;		/* its cpuN lines: the CPUs online */
	long long own_us;		/* the sample's processes' CPU (rusage) */
	long vcsw, ivcsw;		/* their context switches (rusage) */
	long migrations;		/* the reading thread's; -1 unknown */
	long throttle;			/* its CPU's thermal throttle events; -1 */
	long khz;			/* its CPU's frequency; -1 unknown */
};

/*
 * What the sentinels saw over one timed region: the counters' differences,
 * as the sample process sends them to the runner (struct kscen_sample_out).
 * -1 where a counter is unknown.
 */
struct kscen_noise_raw {
	bool valid;		/* false: not read (a guest's sample) */
	bool planted;		/* KSCEN_TEST_DISTURB disturbed it (isolate.c) */
	unsigned nr_cpus;
	unsigned clk_tck;	/* USER_HZ, the unit of busy and steal */
	long long ns;		/* the region's wall time */
	long long busy, steal;	/* ticks of all CPUs */
	long long total;	/* ticks accounted to anything, idle included */
	long long own_us;
	long long intr, softirq;
	long vcsw, ivcsw, migrations, throttle;
	long khz;		/* at the region's end */
};

/*
 * Where the counters are read: files kept open while they are read again
 * (pread from offset 0 makes a /proc or /sys file's text anew). @root is
 * "" for this machine, or a directory laid out like it (proc/stat,
 * proc/self/sched, sys/devices/system/cpu/cpuN/...) for tests;
 * @cpu the CPU whose frequency and throttle counts are read (-1: the one
 * this thread is on).
 */
struct kscen_noise_src {
	int stat, sched, freq, throttle[2];
	bool own_stat;		/* stat is ours to close, not kscen_noise_init()'s */
	/*
	 * This process was born on the harness's CPU and its main thread had
	 * this many context switches when it left it, or -1: no more, no
	 * migration, and /proc/self/sched is opened only once it has more.
	 */
	long pinned_switches;
};
void kscen_noise_open(struct kscen_noise_src *s, const char *root, int cpu);
void kscen_noise_close(struct kscen_noise_src *s);
/*
 * Once, before the fork server starts: /proc/stat opened, what the host's
 * CPUs have, USER_HZ, and the test hook KSCEN_TEST_NO_SENTINELS, for every
 * sample process to inherit (without it, each process finds them itself).
 */
void kscen_noise_init(void);
/* Read every counter of @s, and this process's rusage, into @r. */
void kscen_noise_take(struct kscen_noise_src *s, struct kscen_noise_read *r);
/* @b - @a into @d, valid. */
void kscen_noise_diff(const struct kscen_noise_read *a,
		      const struct kscen_noise_read *b, struct kscen_noise_raw *d);

/*
 * Around the workload's sample(), in the process that calls it (body.c):
 * this machine's counters before, then after, into @out. The test hook
 * KSCEN_TEST_NO_SENTINELS=1 leaves them unread (@out untouched): what they
 * cost is measured against it. @pinned_switches: what
 * kscen_harness_unpin() said in this process, a sample process born on the
 * harness's CPU (child.h), or -1.
 */
struct kscen_noise_span {
	bool on;
	struct kscen_noise_src src;
	struct kscen_noise_read before;
};
void kscen_noise_begin(struct kscen_noise_span *sp, long pinned_switches);
void kscen_noise_end(struct kscen_noise_span *sp, struct kscen_noise_raw *out);

/* The parsers, for tests: 0, or -EINVAL when the text is not that file's. */
int kscen_noise_parse_stat(const char *buf, struct kscen_noise_read *r);
long kscen_noise_parse_migrations(const char *buf);

/*
 * The thresholds of the verdict (docs/noise.md: how they were measured):
 * the machine's steal over the region, in % of its CPUs' time, and its
 * time accounted to nothing at all (a host that takes the vCPUs without
 * saying so: steal nobody reports), in % too; the CPU
 * time of other processes, in CPUs; interrupts, a second per CPU; and any
 * thermal throttling.
 */
#define KSCEN_NOISE_STEAL_PCT	5.0
#define KSCEN_NOISE_LOST_PCT	5.0
#define KSCEN_NOISE_OTHER_CPUS	0.25
#define KSCEN_NOISE_IRQ_RATE	5000.0

/*
 * The record of a sample from what the sentinels saw (@d may be invalid:
 * then nothing is known and the sample is not disturbed), with its verdict
 * and cause. @rec's round, value and planted are the caller's; its cause
 * is allocated.
 */
void kscen_noise_judge(const struct kscen_noise_raw *d, struct kscen_sample_rec *rec);

/* ---- noise policies (run.c) ---- */

/* The number of times a disturbed sample is taken again under retake. */
#define KSCEN_NOISE_RETAKES	3

/*
 * The test hook KSCEN_TEST_DISTURB=P[,CPUS[,SEED]]: each sample is taken,
 * with probability P, while CPUS processes (default 2) spin outside its
 * cgroup, as `stress-ng --cpu CPUS` would: a disturbance planted on
 * purpose, which the sample's record marks (planted). begin() starts them
 * and waits until each one runs; returns whether it did. end() stops them.
 */
bool kscen_noise_plant_begin(void);
void kscen_noise_plant_end(void);

#endif
