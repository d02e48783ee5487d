// SPDX-License-Identifier: GPL-2.0
/*
 * test_sched_lock.c - the scheduler and locking workloads: their defaults
 * are perf bench's, lock.contention's metrics follow its tracer, and the
 * messaging engine runs, and stops when never woken, without leaking (run
 * here in thread mode, where the leak checker sees it; samples _exit()).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "scenario/scenario.h"
#include "tests.h"
#include "workloads/messaging.h"

static const char *def_of(const char *workload, const char *param)
{
	const struct kscen_workload *w = kscen_workload_find(workload);
	const struct kscen_param *p = w ? kscen_param_find(w, param) : NULL;

	return p && p->def ? p->def : "";
}

void test_sched_defaults_are_perf_benchs(void **state)
{
	assert_true(strcmp(def_of("sched.messaging", "groups"), "10") == 0);
	assert_true(strcmp(def_of("sched.messaging", "loops"), "100") == 0);
	assert_true(strcmp(def_of("sched.messaging", "ipc"), "socket") == 0);
	assert_true(strcmp(def_of("sched.messaging", "mode"), "process") == 0);
	assert_true(strcmp(def_of("sched.pipe", "loops"), "1000000") == 0);
	assert_true(strcmp(def_of("syscall.basic", "loops"), "10000000") == 0);
	/* perf lock contention's default map size since its map-full series (LKML, 2023) */
	assert_true(strcmp(def_of("lock.contention", "map_entries"), "16384") == 0);
}

static unsigned metrics_with_tracer(const char *tracer)
{
	const struct kscen_workload *w = kscen_workload_find("lock.contention");
	struct kscen_metric_desc m[KSCEN_MAX_METRICS];
	const struct kscen_param *p;
	struct kscen_value v;
	char err[256];
	unsigned n = 0;
	void *params;

	if (!w || !w->job_metrics)
		return 0;
	params = kscen_params_new(w);
	p = kscen_param_find(w, "tracer");
	if (params && p && kscen_value_parse(p, tracer, &v, err, sizeof(err)) == 0) {
		kscen_value_store(p, params, &v);
		memcpy(m, w->metrics, w->nr_metrics * sizeof(*m));
		n = w->job_metrics(params, m);
	}
	kscen_params_free(w, params);
	return n;
}

void test_lock_contention_metrics_follow_tracer(void **state)
{
	const struct kscen_workload *w = kscen_workload_find("lock.contention");

	assert_true(w != NULL);
	if (!w)
		return;
	assert_true(strcmp(w->metrics[0].name, "seconds") == 0);
	assert_true(metrics_with_tracer("none") == 1);
	assert_true(metrics_with_tracer("bpf") == w->nr_metrics);
	assert_true(w->nr_metrics >= 5 && strcmp(w->metrics[4].name, "failed") == 0);
}

void test_messaging_engine_runs_and_stops(void **state)
{
	struct kscen_msg_opts o = {
		.groups = 2, .loops = 3, .ipc = KSCEN_MSG_PIPE,
		.mode = KSCEN_MSG_THREAD,
	};
	struct kscen_ctx ctx = { 0 };
	struct kscen_msg *m = NULL;
	double secs = -1;

	assert_true(kscen_msg_start(&ctx, &o, &m) == 0);
	if (m) {
		assert_true(kscen_msg_run(&ctx, m, &secs) == 0);
		assert_true(secs > 0 && secs < 60);
		kscen_msg_free(m);
	}
	/* Created and ready but never woken: free() must still end them. */
	m = NULL;
	o.ipc = KSCEN_MSG_SOCKET;
	assert_true(kscen_msg_start(&ctx, &o, &m) == 0);
	kscen_msg_free(m);
	assert_true(ctx.reason[0] == '\0');
}
