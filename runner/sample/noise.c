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
 * (/proc/self/sched); and where the host has them the frequency
 * and thermal throttle counts of the CPU it started on. Nothing is armed
 * that would run while the sample does (a perf event would cost each of
 * its context switches).
 *
 * A sample process is a fresh fork, and on a VM its page faults cost more
 * than its system calls: every page of code or data it touches for the
 * first time is a fault (fork copies no page table entries of the
 * program's text). So what the sentinels can decide once, they decide in
 * the runner before the fork server forks (kscen_noise_init(): /proc/stat
 * opened, which files the host has, USER_HZ), and the reading itself
 * parses with a few loops of its own into a buffer on the stack, without
 * stdio, malloc or libc's string functions, its system calls through
 * syscall() (one page of libc, not one a wrapper), its code marked hot
 * so that the linker keeps it together: 26 faults a sample became 3
 * (docs/noise.md).
 *
 * Other processes' CPU is the machine's busy time less the sample's own:
 * /proc/stat counts in USER_HZ ticks, sampled at the scheduler tick, so
 * the difference is known to about a tick of each reading, and a
 * threshold is only crossed by more than that (kscen_noise_judge()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/util.h"
#include "noise.h"
#include "runner.h"

/* ---- Reading ---- */

/* The functions a sample process runs, kept together by the linker. */
#define HOT __attribute__((hot))

#define CPUDIR			"/sys/devices/system/cpu/cpu"
#define FREQ_FILE		"/cpufreq/scaling_cur_freq"
#define CORE_THROTTLE		"/thermal_throttle/core_throttle_count"
#define PACKAGE_THROTTLE	"/thermal_throttle/package_throttle_count"

/*
 * What this host has, found once by kscen_noise_init(), before the fork
 * server forks when `kscen run` calls it (every sample process inherits
 * it), else on a process's first sample.
 */
static struct {
	bool ready;
	bool off;		/* KSCEN_TEST_NO_SENTINELS: nothing read */
	bool freq, throttle;	/* CPUs have cpufreq, thermal_throttle */
	int stat;		/* /proc/stat, open */
	unsigned clk_tck;	/* USER_HZ */
	/*
	 * The names a reading opens, copied here from .rodata: a sample
	 * process reads them from a page it has from its parent, where each
	 * string constant would be a fault on a page of .rodata of its own.
	 */
	char sched[sizeof("/proc/self/sched")];
	char intr[sizeof("intr")], softirq[sizeof("softirq")];
	char migrations[sizeof("se.nr_migrations")];
	char cpudir[sizeof(CPUDIR)];
	char freq_file[sizeof(FREQ_FILE)];
	char throttle_file[2][sizeof(PACKAGE_THROTTLE)];
} host = { .stat = -1 };

void kscen_noise_init(void)
{
	const char *off = getenv("KSCEN_TEST_NO_SENTINELS");
	long tck = sysconf(_SC_CLK_TCK);
	struct stat st;

	if (host.ready)
		return;
	host.ready = true;
	host.off = off && *off;
	host.stat = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	host.freq = !stat("/sys/devices/system/cpu/cpu0/cpufreq", &st);
	host.throttle = !stat("/sys/devices/system/cpu/cpu0/thermal_throttle", &st);
	host.clk_tck = tck > 0 ? tck : 100;
	memcpy(host.sched, "/proc/self/sched", sizeof(host.sched));
	memcpy(host.intr, "intr", sizeof(host.intr));
	memcpy(host.softirq, "softirq", sizeof(host.softirq));
	memcpy(host.migrations, "se.nr_migrations", sizeof(host.migrations));
	memcpy(host.cpudir, CPUDIR, sizeof(host.cpudir));
	memcpy(host.freq_file, FREQ_FILE, sizeof(host.freq_file));
	memcpy(host.throttle_file[0], CORE_THROTTLE, sizeof(CORE_THROTTLE));
	memcpy(host.throttle_file[1], PACKAGE_THROTTLE, sizeof(PACKAGE_THROTTLE));
}

#define PATH_MAX_NOISE 512

/*
 * @a @b, @cpu in decimal when >= 0, then @c (NULL: none of @a or @c), into @out
 * (PATH_MAX_NOISE), cut short if too long (then it opens nothing): no stdio.
 */
static HOT const char *path(char *out, const char *a, const char *b, int cpu,
			const char *c)
{
	char digits[12];
	size_t n = 0, k = 0;

	for (; a && *a && n < PATH_MAX_NOISE - 100; a++)
		out[n++] = *a;
	for (; *b && n < PATH_MAX_NOISE - 100; b++)
		out[n++] = *b;
	if (cpu >= 0) {
		do
			digits[k++] = '0' + cpu % 10;
		while ((cpu /= 10) && k < sizeof(digits));
		while (k)
			out[n++] = digits[--k];
	}
	for (; c && *c && n < PATH_MAX_NOISE - 1; c++)
		out[n++] = *c;
	out[n] = '\0';
	return out;
}

/*
 * The system calls of a reading, through syscall(): its one page of libc
 * instead of a page a wrapper (open64, pread64, close and getrusage are on
 * three). struct rusage is the kernel's where longs are 64 bits.
 */
#if defined(__LP64__) && defined(SYS_getrusage)
#define sys_open(p)		syscall(SYS_openat, AT_FDCWD, (p), O_RDONLY | O_CLOEXEC)
#define sys_pread(f, b, n, o)	syscall(SYS_pread64, (f), (b), (n), (o))
#define sys_close(f)		syscall(SYS_close, (f))
#define sys_getrusage(w, r)	syscall(SYS_getrusage, (w), (r))
#else
#define sys_open(p)		open((p), O_RDONLY | O_CLOEXEC)
#define sys_pread(f, b, n, o)	pread((f), (b), (n), (o))
#define sys_close(f)		close(f)
#define sys_getrusage(w, r)	getrusage((w), (r))
#endif

static HOT int open_ro(const char *p)
{
	return sys_open(p);
}

static HOT void close_fd(int *fd)
{
	if (*fd >= 0)
		sys_close(*fd);
	*fd = -1;
}

/* kscen_noise_open(); @pinned_switches: see migrations() */
static HOT void open_src(struct kscen_noise_src *s, const char *root, int cpu,
			 long pinned_switches)
{
	bool here = !root || !*root;
	char p[PATH_MAX_NOISE];

	if (!host.ready)
		kscen_noise_init();
	if (here)
		root = NULL;
	/*
	 * The CPU only names its cpufreq and throttle files; where there are
	 * none, no system call (a first one in a fresh sample process costs
	 * it 10-20 us: docs/performance.md).
	 */
	if (cpu < 0 && (!here || host.freq || host.throttle)) {
		unsigned c;	/* sched_getcpu()'s is a page of libc of its own */

		cpu = syscall(SYS_getcpu, &c, NULL, NULL) ? -1 : (int)c;
	}
	s->own_stat = !here || host.stat < 0;
	s->stat = s->own_stat ? open_ro(path(p, root, "/proc/stat", -1, "")) : host.stat;
	/* the main thread's, which calls sample(): one lookup less than thread-self */
	s->pinned_switches = here ? pinned_switches : -1;
	s->sched = s->pinned_switches >= 0 ? -1 :
		   open_ro(here ? host.sched : path(p, root, host.sched, -1, NULL));
	s->freq = s->throttle[0] = s->throttle[1] = -1;
	if (cpu < 0)
		return;
	if (!here || host.freq)
		s->freq = open_ro(path(p, root, host.cpudir, cpu, host.freq_file));
	for (int i = 0; i < 2 && (!here || host.throttle); i++)
		s->throttle[i] = open_ro(path(p, root, host.cpudir, cpu, host.throttle_file[i]));
}

HOT void kscen_noise_open(struct kscen_noise_src *s, const char *root, int cpu)
{
	open_src(s, root, cpu, -1);
}

HOT void kscen_noise_close(struct kscen_noise_src *s)
{
	if (s->own_stat)
		close_fd(&s->stat);
	close_fd(&s->sched);
	close_fd(&s->freq);
	close_fd(&s->throttle[0]);
	close_fd(&s->throttle[1]);
}

/*
 * /proc/stat, parsed a byte at a time as it is read: the cpu line's
 * columns, the cpuN lines counted, the first number of intr and softirq
 * (the rest of the intr line, a count an interrupt, is long on a large
 * machine and skipped).
 */
struct stat_parse {
	enum { HEAD, CPU, FIRST, SKIP } state;
	char head[8];
	unsigned hn, col;
	bool digits;
	unsigned long long v, cols[8];
	struct kscen_noise_read *r;
	long long *first;	/* FIRST: where the number goes */
	bool cpu_line;
};

/* memcmp() == 0, without a page of libc the sample has not touched */
static HOT bool same(const char *a, const char *b, size_t n)
{
	while (n && *a == *b)
		a++, b++, n--;
	return !n;
}

static HOT void stat_byte(struct stat_parse *p, char c)
{
	bool digit = c >= '0' && c <= '9';

	if (p->state == HEAD) {
		if (c != ' ' && c != '\n') {
			if (p->hn < sizeof(p->head))
				p->head[p->hn++] = c;
			else
				p->state = SKIP;
			return;
		}
		/* "cpu", "cpu17", "intr", "softirq", or a line we skip */
		p->state = SKIP;
		if (p->hn == 3 && p->head[0] == 'c' && p->head[1] == 'p' && p->head[2] == 'u') {
			p->state = CPU;
			p->cpu_line = true;
		} else if (p->hn > 3 && p->head[0] == 'c' && p->head[1] == 'p' &&
			   p->head[2] == 'u' && p->head[3] >= '0' && p->head[3] <= '9') {
			p->r->nr_cpus++;
		} else if (p->hn == 4 && same(p->head, host.intr, 4)) {
			p->state = FIRST, p->first = &p->r->intr;
		} else if (p->hn == 7 && same(p->head, host.softirq, 7)) {
			p->state = FIRST, p->first = &p->r->softirq;
		}
		p->v = 0;
		p->digits = false;
		if (c != '\n')
			return;
	}
	if (p->state == CPU || p->state == FIRST) {
		if (digit) {
			p->v = p->v * 10 + (c - '0');
			p->digits = true;
			return;
		}
		if (p->digits && p->state == FIRST) {
			*p->first = p->v;
			p->state = SKIP;
		} else if (p->digits && p->col < 8) {
			p->cols[p->col++] = p->v;
		}
		p->v = 0;
		p->digits = false;
	}
	if (c == '\n') {
		p->state = HEAD;
		p->hn = 0;
	}
}

static HOT void stat_start(struct stat_parse *p, struct kscen_noise_read *r)
{
	memset(p, 0, sizeof(*p));
	p->r = r;
	r->busy = r->steal = r->total = r->intr = r->softirq = -1;
	r->nr_cpus = 0;
}

/* The sums of the cpu line: 0, or -EINVAL when there was none. */
static HOT int stat_end(struct stat_parse *p)
{
	struct kscen_noise_read *r = p->r;

	stat_byte(p, '\n');
	/* user nice system idle iowait irq softirq steal [guest guest_nice] */
	if (!p->cpu_line || p->col < 7) {
		r->busy = r->steal = r->total = r->intr = r->softirq = -1;
		return -EINVAL;
	}
	/* guest time is in user already, guest_nice in nice */
	r->busy = p->cols[0] + p->cols[1] + p->cols[2] + p->cols[5] + p->cols[6];
	r->steal = p->col >= 8 ? (long long)p->cols[7] : -1;
	r->total = 0;
	for (unsigned i = 0; i < p->col; i++)
		r->total += p->cols[i];
	return 0;
}

int kscen_noise_parse_stat(const char *buf, struct kscen_noise_read *r)
{
	struct stat_parse p;

	if (!host.ready)
		kscen_noise_init();

	stat_start(&p, r);
	for (; *buf; buf++)
		stat_byte(&p, *buf);
	return stat_end(&p);
}

/* Read /proc/stat from @fd into @r, through @buf (@len bytes) at a time. */
static HOT void read_stat(int fd, char *buf, size_t len, struct kscen_noise_read *r)
{
	struct stat_parse p;
	off_t at = 0;
	ssize_t n;

	stat_start(&p, r);
	if (fd < 0)
		return;
	/*
	 * One read from offset 0 makes the text, the next ones continue it;
	 * a short one is its end.
	 */
	do {
		n = sys_pread(fd, buf, len, at);
		for (ssize_t i = 0; i < n; i++)
			stat_byte(&p, buf[i]);
		at += n > 0 ? n : 0;
	} while (n == (ssize_t)len);
	if (n < 0 || stat_end(&p)) {
		r->busy = r->steal = r->total = r->intr = r->softirq = -1;
		r->nr_cpus = 0;
	}
}

/*
 * The number after @key (@k bytes) and ':' on a line of @buf, or -1 (no
 * strstr, no strlen: gcc makes a loop that counts @key's bytes a call).
 */
static HOT long after_key(const char *buf, const char *key, size_t k)
{
	long v = -1;

	for (const char *l = buf; *l; ) {
		size_t i = 0;

		while (i < k && l[i] == key[i])
			i++;
		if (i == k && (l[k] == ' ' || l[k] == '\t' || l[k] == ':')) {
			for (l += k; *l == ' ' || *l == '\t'; l++)
				;
			if (*l++ != ':')
				return -1;
			while (*l == ' ' || *l == '\t')
				l++;
			for (v = *l >= '0' && *l <= '9' ? 0 : -1; *l >= '0' && *l <= '9'; l++)
				v = v * 10 + (*l - '0');
			return v;
		}
		while (*l && *l != '\n')
			l++;
		if (*l)
			l++;
	}
	return v;
}

HOT long kscen_noise_parse_migrations(const char *buf)
{
	if (!host.ready)
		kscen_noise_init();
	return after_key(buf, host.migrations, sizeof(host.migrations) - 1);
}

/* A small file from @fd into @buf, NUL-terminated; false if unread. */
static HOT bool read_small(int fd, char *buf, size_t len)
{
	ssize_t n = fd >= 0 ? sys_pread(fd, buf, len - 1, 0) : -1;

	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* A sysfs number (kHz, a count), or -1. */
static HOT long read_number(int fd)
{
	char buf[32], *p = buf;
	long v;

	if (!read_small(fd, buf, sizeof(buf)) || *p < '0' || *p > '9')
		return -1;
	for (v = 0; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (*p - '0');
	return v;
}

static HOT long long tv_us(const struct timeval *tv)
{
	return tv->tv_sec * 1000000LL + tv->tv_usec;
}

/*
 * The main thread's se.nr_migrations, from /proc/self/sched (1.8 KiB; more
 * is cut, the key comes early). A sample process born on the harness's
 * CPU had none counted at its birth (wake_up_new_task() places a new task
 * without counting it) nor while it stayed on that one CPU; once it has
 * its CPUs back, a thread changes CPU only while it is not running, which
 * takes a context switch, voluntary or not. So while getrusage() of the
 * thread has no more switches than when it left the one CPU
 * (s->pinned_switches), the count is 0, and the file, whose open is most
 * of what the sentinels cost a sample (docs/noise.md), is opened only
 * once it has.
 */
static HOT long migrations(struct kscen_noise_src *s, char *buf, size_t len)
{
	struct rusage th;

	if (s->pinned_switches >= 0) {
		if (!sys_getrusage(RUSAGE_THREAD, &th) &&
		    th.ru_nvcsw + th.ru_nivcsw == s->pinned_switches)
			return 0;
		if (s->sched < 0)
			s->sched = open_ro(host.sched);
	}
	return read_small(s->sched, buf, len) ? kscen_noise_parse_migrations(buf) : -1;
}

HOT void kscen_noise_take(struct kscen_noise_src *s, struct kscen_noise_read *r)
{
	/* on the stack: the sample's own pages, no fault of a heap or .bss */
	char buf[2048];
	struct rusage self, kids;
	long a, b;

	/* first: the other readings' windows hold what an open costs */
	r->migrations = migrations(s, buf, sizeof(buf));
	read_stat(s->stat, buf, sizeof(buf), r);
	a = read_number(s->throttle[0]);
	b = read_number(s->throttle[1]);
	r->throttle = a < 0 && b < 0 ? -1 : (a > 0 ? a : 0) + (b > 0 ? b : 0);
	r->khz = read_number(s->freq);
	sys_getrusage(RUSAGE_SELF, &self);
	sys_getrusage(RUSAGE_CHILDREN, &kids);
	r->own_us = tv_us(&self.ru_utime) + tv_us(&self.ru_stime) +
		    tv_us(&kids.ru_utime) + tv_us(&kids.ru_stime);
	r->vcsw = self.ru_nvcsw + kids.ru_nvcsw;
	r->ivcsw = self.ru_nivcsw + kids.ru_nivcsw;
	r->ns = kscen_now_ns();
}

/* b - a where both are known, else -1; called, not inlined ten times */
static __attribute__((noinline)) HOT long long delta(long long a, long long b)
{
	return a < 0 || b < 0 || b < a ? -1 : b - a;
}

HOT void kscen_noise_diff(const struct kscen_noise_read *a,
		      const struct kscen_noise_read *b, struct kscen_noise_raw *d)
{
	if (!host.ready)
		kscen_noise_init();
	memset(d, 0, sizeof(*d));
	d->valid = true;
	d->nr_cpus = b->nr_cpus;
	d->clk_tck = host.clk_tck;
	d->ns = b->ns - a->ns;
	d->busy = delta(a->busy, b->busy);
	d->steal = delta(a->steal, b->steal);
	d->total = delta(a->total, b->total);
	d->own_us = delta(a->own_us, b->own_us);
	d->intr = delta(a->intr, b->intr);
	d->softirq = delta(a->softirq, b->softirq);
	d->vcsw = delta(a->vcsw, b->vcsw);
	d->ivcsw = delta(a->ivcsw, b->ivcsw);
	d->migrations = delta(a->migrations, b->migrations);
	d->throttle = delta(a->throttle, b->throttle);
	d->khz = b->khz;
}

HOT void kscen_noise_begin(struct kscen_noise_span *sp, long pinned_switches)
{
	if (!host.ready)
		kscen_noise_init();
	sp->on = !host.off;
	if (!sp->on)
		return;
	open_src(&sp->src, NULL, -1, pinned_switches);
	kscen_noise_take(&sp->src, &sp->before);
}

HOT void kscen_noise_end(struct kscen_noise_span *sp, struct kscen_noise_raw *out)
{
	struct kscen_noise_read after;

	if (!sp->on)
		return;
	kscen_noise_take(&sp->src, &after);
	kscen_noise_close(&sp->src);
	kscen_noise_diff(&sp->before, &after, out);
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
	double secs, tick_us, cpus, busy_us, slack, cap_us;
	char cause[128] = "";

	rec->seconds = rec->steal = rec->lost = rec->other = rec->mhz = NAN;
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
	cap_us = secs * 1e6 * cpus;
	if (d->steal >= 0) {
		rec->steal = round(1e4 * d->steal * tick_us / cap_us) / 100;
		if (100 * (d->steal * tick_us - slack) / cap_us >= KSCEN_NOISE_STEAL_PCT)
			add_cause(cause, sizeof(cause), "steal %.0f%%", rec->steal);
	}
	/*
	 * Time accounted to nothing: the CPUs' time less every column's.
	 * Each column is floored on its own, so four moving ones make the
	 * slack; ticks that catch up count as none lost.
	 */
	if (d->total >= 0) {
		double lost_us = cap_us - d->total * tick_us;

		rec->lost = round(1e4 * fmax(0, lost_us) / cap_us) / 100;
		if (100 * (lost_us - 2 * slack) / cap_us >= KSCEN_NOISE_LOST_PCT)
			add_cause(cause, sizeof(cause), "unaccounted %.0f%%", rec->lost);
	}
	if (d->busy >= 0 && d->own_us >= 0) {
		busy_us = d->busy * tick_us;
		/* ticks can outrun the wall a little: never more than the CPUs */
		rec->other = round(fmin(cpus, fmax(0, (busy_us - d->own_us) /
						  (secs * 1e6))) * 1000) / 1000;
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
