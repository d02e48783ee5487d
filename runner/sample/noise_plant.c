// SPDX-License-Identifier: GPL-2.0
/*
 * noise_plant.c - a disturbance planted on purpose (the test hook
 * KSCEN_TEST_DISTURB, noise.h): around a sample, with probability P,
 * CPUS processes spin outside its cgroup, so that the tests and the bench
 * see the sentinels (noise.c) catch a disturbance that is known to be there.
 */
#define _GNU_SOURCE	/* pipe2 */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/child.h"
#include "lib/diag.h"
#include "lib/util.h"
#include "noise.h"
#include "runner.h"

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
	unsigned long cpus = 2;
	char *end;
	double p;
	bool ok;

	plant.parsed = true;
	if (!e || !*e)
		return;
	p = strtod(e, &end);
	ok = end != e && p >= 0 && p <= 1;
	if (ok && *end == ',') {
		e = end + 1;
		cpus = strtoul(e, &end, 10);
		ok = end != e && *e != '-' && cpus >= 1 && cpus <= PLANT_MAX;
	}
	if (ok && *end == ',') {
		e = end + 1;
		seed = strtoull(e, &end, 10);
		ok = end != e && *e != '-';
	}
	if (!ok || *end) {
		kscen_diag(KSCEN_DIAG_WARNING, NULL, NOWHERE, "KSCEN_TEST_DISTURB=%s: "
			   "expected P[,CPUS[,SEED]], P from 0 to 1, CPUS from 1 to %d; "
			   "nothing planted", getenv("KSCEN_TEST_DISTURB"), PLANT_MAX);
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
