// SPDX-License-Identifier: GPL-2.0
/*
 * noise.c - the sentinels: was a sample disturbed, and by what?
 *
 * Around the workload's sample() (body.c), in the process that calls it,
 * a few counters are read before and after: from /proc/stat the CPU time
 * the whole machine spent busy and stolen by the hypervisor, and its
 * interrupts and softirqs; getrusage() of the sample's processes (itself
 * and the children it reaped) for their own CPU time and their voluntary
 * and involuntary context switches; the reading thread's se.nr_migrations
 * (/proc/thread-self/sched); and where the host has them the frequency
 * and thermal throttle counts of the CPU it started on. The files are
 * opened once and re-read with pread() from offset 0, so a reading costs
 * a few system calls (docs/noise.md has the figures); nothing is armed
 * that would run while the sample does (a perf event would cost each of
 * its context switches).
 *
 * Other processes' CPU is the machine's busy time less the sample's own:
 * /proc/stat counts in USER_HZ ticks, sampled at the scheduler tick, so
 * the difference is known to about a tick of each reading, and a
 * threshold is only crossed by more than that (kscen_noise_judge()).
 */
#define _GNU_SOURCE	/* sched_getcpu */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/child.h"
#include "lib/diag.h"
#include "lib/util.h"
#include "noise.h"
#include "runner.h"

/* ---- Reading ---- */

static int open_at(const char *root, const char *fmt, int cpu)
{
	char rel[128], path[4096];

	snprintf(rel, sizeof(rel), fmt, cpu);
	snprintf(path, sizeof(path), "%s%s", root, rel);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * What this host has, found once by kscen_noise_init() before the fork
 * server forks (every sample process inherits it): /proc/stat open, and
 * whether CPUs have cpufreq and thermal_throttle files, so that a sample
 * process does not look for what is not there. Unknown (-1): look.
 */
static struct {
	int stat;
	int freq, throttle;	/* 1 there, 0 not, -1 unknown */
} host = { -1, -1, -1 };

void kscen_noise_init(void)
{
	struct stat st;

	if (host.stat < 0)
		host.stat = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	host.freq = !stat("/sys/devices/system/cpu/cpu0/cpufreq", &st);
	host.throttle = !stat("/sys/devices/system/cpu/cpu0/thermal_throttle", &st);
}

void kscen_noise_open(struct kscen_noise_src *s, const char *root, int cpu)
{
	bool here = !*root;

	if (cpu < 0)
		cpu = sched_getcpu();
	s->stat = here && host.stat >= 0 ? dup(host.stat) : open_at(root, "/proc/stat", 0);
	s->sched = open_at(root, "/proc/thread-self/sched", 0);
	s->freq = s->throttle[0] = s->throttle[1] = -1;
	if (cpu < 0)
		return;
	if (!here || host.freq)
		s->freq = open_at(root, "/sys/devices/system/cpu/cpu%d/cpufreq/"
				  "scaling_cur_freq", cpu);
	if (!here || host.throttle) {
		s->throttle[0] = open_at(root, "/sys/devices/system/cpu/cpu%d/"
					 "thermal_throttle/core_throttle_count", cpu);
		s->throttle[1] = open_at(root, "/sys/devices/system/cpu/cpu%d/"
					 "thermal_throttle/package_throttle_count", cpu);
	}
}

void kscen_noise_close(struct kscen_noise_src *s)
{
	kscen_close_fd(&s->stat);
	kscen_close_fd(&s->sched);
	kscen_close_fd(&s->freq);
	kscen_close_fd(&s->throttle[0]);
	kscen_close_fd(&s->throttle[1]);
}

/*
 * All of @fd from its start into *@buf (grown as needed), NUL-terminated;
 * the length, or -1. One pread() when it fits: a seq_file makes its text
 * once per read from offset 0.
 */
static ssize_t reread(int fd, char **buf, size_t *cap)
{
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, *buf, *cap - 1, 0);
	if (n < 0)
		return -1;
	len = n;
	if (len == *cap - 1) {
		/* Larger than the buffer: from the start again, all of it. */
		if (lseek(fd, 0, SEEK_SET) < 0)
			return -1;
		len = 0;
		for (;;) {
			if (len + 1 >= *cap) {
				*cap *= 2;
				*buf = kscen_xrealloc(*buf, *cap);
			}
			n = read(fd, *buf + len, *cap - 1 - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			len += n;
		}
		if (n < 0)
			return -1;
	}
	(*buf)[len] = '\0';
	return len;
}

/* The first number of the line starting with @key, or -1. */
static long long line_value(const char *buf, const char *key, const char **line)
{
	size_t k = strlen(key);
	const char *p;
	char *end;
	long long v;

	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, k) || p[k] != ' ')
			continue;
		if (line)
			*line = p + k;
		v = strtoll(p + k, &end, 10);
		return end == p + k ? -1 : v;
	}
	return -1;
}

int kscen_noise_parse_stat(const char *buf, struct kscen_noise_read *r)
{
	unsigned long long f[8] = { 0 };
	const char *p, *line;
	unsigned nr = 0;
	int got;

	r->busy = r->steal = r->intr = r->softirq = -1;
	r->nr_cpus = 0;
	if (line_value(buf, "cpu", &line) < 0)
		return -EINVAL;
	/* user nice system idle iowait irq softirq steal [guest guest_nice] */
	got = sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1],
		     &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]);
	if (got < 7)
		return -EINVAL;
	/* guest time is in user already, guest_nice in nice */
	r->busy = f[0] + f[1] + f[2] + f[5] + f[6];
	r->steal = got == 8 ? (long long)f[7] : -1;
	for (p = buf; (p = strstr(p, "\ncpu")); p++)
		if (p[4] >= '0' && p[4] <= '9')
			nr++;
	r->nr_cpus = nr;
	r->intr = line_value(buf, "intr", NULL);
	r->softirq = line_value(buf, "softirq", NULL);
	return 0;
}

long kscen_noise_parse_migrations(const char *buf)
{
	const char *p = strstr(buf, "\nse.nr_migrations");
	char *end;
	long v;

	if (!p)
		return -1;
	p += strlen("\nse.nr_migrations");
	p += strspn(p, " \t");
	if (*p++ != ':')
		return -1;
	v = strtol(p, &end, 10);
	return end == p || v < 0 ? -1 : v;
}

/* A small sysfs number (kHz, a count), or -1. */
static long read_number(int fd)
{
	char buf[32], *end;
	ssize_t n;
	long v;

	if (fd < 0 || (n = pread(fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return -1;
	buf[n] = '\0';
	v = strtol(buf, &end, 10);
	return end == buf || v < 0 ? -1 : v;
}

static long long tv_us(const struct timeval *tv)
{
	return tv->tv_sec * 1000000LL + tv->tv_usec;
}

void kscen_noise_take(const struct kscen_noise_src *s, struct kscen_noise_read *r)
{
	static char *buf;
	static size_t cap;
	struct rusage self, kids;
	long a, b;

	if (!buf) {
		cap = 16384;
		buf = kscen_xmalloc(cap);
	}
	memset(r, 0, sizeof(*r));
	if (reread(s->stat, &buf, &cap) < 0 || kscen_noise_parse_stat(buf, r)) {
		r->busy = r->steal = r->intr = r->softirq = -1;
		r->nr_cpus = 0;
	}
	r->migrations = reread(s->sched, &buf, &cap) < 0 ? -1 :
			kscen_noise_parse_migrations(buf);
	a = read_number(s->throttle[0]);
	b = read_number(s->throttle[1]);
	r->throttle = a < 0 && b < 0 ? -1 : (a > 0 ? a : 0) + (b > 0 ? b : 0);
	r->khz = read_number(s->freq);
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	r->own_us = tv_us(&self.ru_utime) + tv_us(&self.ru_stime) +
		    tv_us(&kids.ru_utime) + tv_us(&kids.ru_stime);
	r->vcsw = self.ru_nvcsw + kids.ru_nvcsw;
	r->ivcsw = self.ru_nivcsw + kids.ru_nivcsw;
	r->ns = kscen_now_ns();
}

/* b - a where both are known, else -1. */
static long long delta(long long a, long long b)
{
	return a < 0 || b < 0 || b < a ? -1 : b - a;
}

void kscen_noise_diff(const struct kscen_noise_read *a,
		      const struct kscen_noise_read *b, struct kscen_noise_raw *d)
{
	long tck = sysconf(_SC_CLK_TCK);

	memset(d, 0, sizeof(*d));
	d->valid = true;
	d->nr_cpus = b->nr_cpus;
	d->clk_tck = tck > 0 ? tck : 100;
	d->ns = b->ns - a->ns;
	d->busy = delta(a->busy, b->busy);
	d->steal = delta(a->steal, b->steal);
	d->own_us = delta(a->own_us, b->own_us);
	d->intr = delta(a->intr, b->intr);
	d->softirq = delta(a->softirq, b->softirq);
	d->vcsw = delta(a->vcsw, b->vcsw);
	d->ivcsw = delta(a->ivcsw, b->ivcsw);
	d->migrations = delta(a->migrations, b->migrations);
	d->throttle = delta(a->throttle, b->throttle);
	d->khz = b->khz;
}

/* The sample process's sources: opened on first use, kept. */
static struct kscen_noise_src own = { -1, -1, -1, { -1, -1 } };
static bool own_open;

void kscen_noise_begin(struct kscen_noise_read *before)
{
	/* the test hook that measures what the sentinels cost (bench/noise.sh) */
	const char *off = getenv("KSCEN_TEST_NO_SENTINELS");

	if (off && *off) {
		before->ns = -1;
		return;
	}
	if (!own_open) {
		kscen_noise_open(&own, "", -1);
		own_open = true;
	}
	kscen_noise_take(&own, before);
}

void kscen_noise_end(const struct kscen_noise_read *before, struct kscen_noise_raw *out)
{
	struct kscen_noise_read after;

	if (before->ns < 0)
		return;
	kscen_noise_take(&own, &after);
	kscen_noise_diff(before, &after, out);
}

/* ---- The verdict ---- */

static void add_cause(char *buf, size_t len, const char *fmt, double v)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s", n ? ", " : "");
	n = strlen(buf);
	snprintf(buf + n, len - n, fmt, v);
}

void kscen_noise_judge(const struct kscen_noise_raw *d, struct kscen_sample_rec *rec)
{
	double secs, tick_us, cpus, busy_us, slack;
	char cause[128] = "";

	rec->seconds = rec->steal = rec->other = rec->mhz = NAN;
	rec->vcsw = rec->ivcsw = rec->migrations = rec->irq = rec->softirq = -1;
	rec->throttled = -1;
	rec->disturbed = false;
	free(rec->cause);
	rec->cause = NULL;
	if (!d->valid || d->ns <= 0)
		return;
	secs = d->ns / 1e9;
	tick_us = 1e6 / (d->clk_tck ? d->clk_tck : 100);
	cpus = d->nr_cpus ? d->nr_cpus : 1;
	rec->seconds = secs;
	rec->vcsw = d->vcsw;
	rec->ivcsw = d->ivcsw;
	rec->migrations = d->migrations;
	rec->irq = d->intr;
	rec->softirq = d->softirq;
	rec->throttled = d->throttle;
	rec->mhz = d->khz >= 0 ? d->khz / 1000.0 : NAN;
	/*
	 * /proc/stat's total is floored to a tick at each reading, and
	 * ticks are handed out whole: a count is known to about one tick of
	 * each end. What the thresholds judge is the count less that slack,
	 * so a region of a few ticks is not called disturbed by rounding.
	 */
	slack = 2 * tick_us;
	if (d->steal >= 0) {
		rec->steal = round(1e4 * d->steal * tick_us / (secs * 1e6 * cpus)) / 100;
		if (100 * (d->steal * tick_us - slack) / (secs * 1e6 * cpus) >=
		    KSCEN_NOISE_STEAL_PCT)
			add_cause(cause, sizeof(cause), "steal %.0f%%", rec->steal);
	}
	if (d->busy >= 0 && d->own_us >= 0) {
		busy_us = d->busy * tick_us;
		rec->other = round(fmax(0, (busy_us - d->own_us) / (secs * 1e6)) * 1000) / 1000;
		if ((busy_us - d->own_us - slack) / (secs * 1e6) >= KSCEN_NOISE_OTHER_CPUS)
			add_cause(cause, sizeof(cause), "other load %.1f CPU", rec->other);
	}
	if (d->intr >= 0 && d->intr / secs / cpus >= KSCEN_NOISE_IRQ_RATE)
		add_cause(cause, sizeof(cause), "interrupts %.0f/s", d->intr / secs);
	if (d->throttle > 0)
		add_cause(cause, sizeof(cause), "thermal throttling %.0f", d->throttle);
	if (*cause) {
		rec->disturbed = true;
		rec->cause = kscen_xstrdup(cause);
	}
}

/* ---- A planted disturbance (the test hook KSCEN_TEST_DISTURB) ---- */

#define PLANT_MAX 4

static struct {
	bool parsed;
	double p;		/* 0: no hook */
	unsigned cpus;
	unsigned long long rng;
	struct kscen_child spin[PLANT_MAX];
	unsigned nr;
} plant;

/* P[,CPUS[,SEED]]; a value it cannot read plants nothing, and says so. */
static void plant_parse(void)
{
	const char *e = getenv("KSCEN_TEST_DISTURB");
	unsigned long long seed = 1;
	unsigned cpus = 2;
	double p;
	char tail;
	int n;

	plant.parsed = true;
	if (!e || !*e)
		return;
	n = sscanf(e, "%lf,%u,%llu%c", &p, &cpus, &seed, &tail);
	if (n < 1 || n > 3 || !(p >= 0 && p <= 1) || cpus < 1 || cpus > PLANT_MAX) {
		kscen_diag(KSCEN_DIAG_WARNING, NULL, NOWHERE, "KSCEN_TEST_DISTURB=%s: "
			   "expected P[,CPUS[,SEED]], P from 0 to 1, CPUS from 1 to %d; "
			   "nothing planted", e, PLANT_MAX);
		return;
	}
	plant.p = p;
	plant.cpus = cpus;
	plant.rng = seed * 0x9e3779b97f4a7c15ULL + 1;
}

/* xorshift64*: the same draws for the same seed, here and in the bench. */
static double plant_draw(void)
{
	plant.rng ^= plant.rng >> 12;
	plant.rng ^= plant.rng << 25;
	plant.rng ^= plant.rng >> 27;
	return (plant.rng * 0x2545f4914f6cdd1dULL >> 11) * 0x1.0p-53;
}

/* A spinner: says it runs, then spins until it is killed. */
static int spin(void *arg)
{
	int fd = *(int *)arg;
	volatile unsigned long x = 0;

	if (write(fd, "", 1) != 1)
		return 1;
	for (;;)
		x++;
	return 0;
}

bool kscen_noise_plant_begin(void)
{
	long long deadline;
	int pfd[2];
	unsigned got = 0;

	if (!plant.parsed)
		plant_parse();
	if (!(plant.p > 0) || plant_draw() >= plant.p)
		return false;
	if (pipe2(pfd, O_CLOEXEC))
		return false;
	for (plant.nr = 0; plant.nr < plant.cpus; plant.nr++) {
		struct kscen_child *c = &plant.spin[plant.nr];

		*c = (struct kscen_child){
			.fn = spin, .arg = &pfd[1], .in = KSCEN_CHILD_NULL,
			.out = KSCEN_CHILD_NULL, .err = KSCEN_CHILD_NULL,
			.flags = KSCEN_CHILD_PGROUP | KSCEN_CHILD_PDEATHSIG,
		};
		if (kscen_child_start(c))
			break;
		kscen_contain_keep(c->pid, true);	/* not a sample's orphan */
	}
	close(pfd[1]);
	/* Each one has run before the sample starts: no timing luck. */
	deadline = kscen_now_ns() + 10 * 1000000000LL;
	while (got < plant.nr && kscen_now_ns() < deadline) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		char b[PLANT_MAX];
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(pfd[0], b, sizeof(b));
		if (n <= 0)
			break;
		got += n;
	}
	close(pfd[0]);
	if (got < plant.cpus) {
		kscen_noise_plant_end();
		return false;
	}
	return true;
}

void kscen_noise_plant_end(void)
{
	for (unsigned i = 0; i < plant.nr; i++) {
		kscen_contain_keep(plant.spin[i].pid, false);
		kscen_child_kill(&plant.spin[i]);
	}
	plant.nr = 0;
}
