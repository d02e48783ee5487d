// SPDX-License-Identifier: GPL-2.0
/*
 * test_fleet.c - kscen compare --fleet (fleet.c) on stored runs written
 * here: each host's change, the geometric mean across hosts and per
 * configuration, and hosts grouped by what their environments share.
 */
#define _GNU_SOURCE	/* open_memstream, mkdtemp */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "expand/shard.h"
#include "report/report.h"
#include "store/store.h"
#include "lib/util.h"
#include "tests.h"

static const double around[6] = { 100, 101, 99, 100, 102, 98 };

/*
 * A run of scenario "fleet" on @host: job "a" at @fa times around[], "b" at
 * @fb times.
 */
static void write_run(const char *dir, const char *host, const char *governor,
		      const char *started, double fa, double fb)
{
	struct kscen_run *r = kscen_xcalloc(1, sizeof(*r));
	char *path;

	r->scenario = kscen_xstrdup("fleet");
	r->started = kscen_xstrdup(started);
	r->finished = kscen_xstrdup(started);
	r->repeat = 6;
	r->system.hostname = kscen_xstrdup(host);
	r->system.kernel = kscen_xstrdup("6.1.0");
	r->system.governor = kscen_xstrdup(governor);
	r->system.perf_event_paranoid = 2;
	r->nr_jobs = 2;
	r->jobs = kscen_xcalloc(2, sizeof(*r->jobs));
	for (unsigned k = 0; k < 2; k++) {
		struct kscen_job_result *j = &r->jobs[k];
		struct kscen_metric *m;

		j->id = kscen_xstrdup(k ? "b/x=1" : "a/x=1");
		j->name = kscen_xstrdup(k ? "b" : "a");
		j->workload = kscen_xstrdup("exec");
		j->status = KSCEN_OK;
		j->converged = -1;
		j->nr_metrics = 1;
		j->metrics = m = kscen_xcalloc(1, sizeof(*m));
		m->name = kscen_xstrdup("lat");
		m->unit = kscen_xstrdup("us");
		m->nr_samples = ARRAY_SIZE(around);
		m->samples = kscen_xcalloc(m->nr_samples, sizeof(double));
		for (unsigned i = 0; i < m->nr_samples; i++)
			m->samples[i] = (k ? fb : fa) * around[i];
		kscen_summarize(m->samples, m->nr_samples, &m->sum);
	}
	path = kscen_xasprintf("%s/%.4s%.2s%.2sT%.2s0000Z-%s.yaml", dir, started,
			       started + 5, started + 8, started + 11, host);
	assert_int_equal(kscen_result_write(r, path, true), 0);
	free(path);
	kscen_run_free(r);
}

void test_fleet_geomean_per_host_and_configuration(void **state)
{
	char base[] = "/tmp/kscen-fleet.XXXXXX", *old, *new_, *text = NULL;
	const char *hosts[] = { "h1", "h2", "h3" };
	const char *gov[] = { "performance", "performance", "powersave" };
	const double f[] = { 2.0, 1.5, 2.0 };	/* new / old of job a */
	size_t len = 0;
	FILE *out;
	char cmd[96], want[128], g1, g3;
	const char *p;

	(void)state;
	assert_non_null(mkdtemp(base));
	old = kscen_xasprintf("%s/old", base);
	new_ = kscen_xasprintf("%s/new", base);
	assert_int_equal(mkdir(old, 0700), 0);
	assert_int_equal(mkdir(new_, 0700), 0);
	/*
	 * Four old runs a host, moving by about 1% from run to run: each
	 * host's own run-to-run drift, from its own history in OLD.
	 */
	for (unsigned h = 0; h < 3; h++) {
		static const char *when[] = { "2026-12-01T01:00:00Z", "2026-12-01T02:00:00Z",
					      "2026-12-01T03:00:00Z", "2026-12-01T04:00:00Z" };
		static const double jit[] = { 1, 1.01, 0.99, 1.005 };

		for (unsigned r = 0; r < 4; r++)
			write_run(old, hosts[h], gov[h], when[r], jit[r], jit[r]);
		write_run(new_, hosts[h], gov[h], "2026-12-02T00:00:00Z", f[h], 1);
	}
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(kscen_fleet_compare(out, old, new_), 0);
	fclose(out);

	assert_non_null(strstr(text, "scenario fleet, 3 hosts, 2 configurations\n"));
	/* h3 alone runs powersave: its configuration's letter, and the other */
	assert_non_null(p = strstr(text, "## h3 (configuration "));
	g3 = p[strlen("## h3 (configuration ")];
	g1 = g3 == 'A' ? 'B' : 'A';
	snprintf(want, sizeof(want), "## h1 (configuration %c)", g1);
	assert_non_null(strstr(text, want));
	/* each host against its own history: 4 runs, its own drift */
	assert_non_null(strstr(text, "(p<0.001; run-to-run ±"));
	assert_non_null(strstr(text, ", 4 runs)  a/x=1\n"));
	/*
	 * Against the level of the 4 old runs (their geometric mean, 1.0012):
	 * (2 x 1.5 x 2)^(1/3) / 1.0012 = 1.815, with an interval from the
	 * hosts' own; the performance hosts (2 x 1.5)^(1/2) / 1.0012.
	 */
	assert_non_null(p = strstr(text, "    +81.5% [+"));
	assert_non_null(strstr(p, "] worse  a/x=1  (3 hosts: 3 worse, 0 better, 0 ~, 0 "
			       "cannot tell; range +49.8% .. +99.8%; lower is better)"));
	snprintf(want, sizeof(want), "A: %s B: %s\n", g3 == 'A' ? "+99.8%" : "+73.0%",
		 g3 == 'A' ? "+73.0%" : "+99.8%");
	assert_ptr_equal(strstr(p, want), strchr(p, '\n') - strlen(want) + 1);
	assert_non_null(p = strstr(text, "     -0.1% [-"));
	assert_non_null(strstr(p, "] ~  b/x=1  (3 hosts: 0 worse, 0 better, 3 ~, "));
	/* every job of every host */
	assert_non_null(strstr(text, "    +34.6%  all jobs, all hosts (6 ratios, no "
			       "interval: the jobs differ)\n"));
	snprintf(want, sizeof(want), "     governor: %s (A: %s)\n",
		 g3 == 'A' ? "performance" : "powersave",
		 g3 == 'A' ? "powersave" : "performance");
	assert_non_null(strstr(text, want));
	free(text);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	assert_int_equal(system(cmd), 0);
	free(old);
	free(new_);
}
