// SPDX-License-Identifier: GPL-2.0
/*
 * test_bpf_workloads.c - the uprobe.* and internals.synthesize modules
 * driven through their hooks in this process: the two /proc readers must
 * build the same records, a missing BTF must be a skip with the reason, and
 * (as root) a uprobe must fire exactly once per call.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario/scenario.h"
#include "tests.h"

static void set(const struct kscen_workload *w, void *params, const char *name,
		const char *text)
{
	const struct kscen_param *p = kscen_param_find(w, name);
	struct kscen_value v;
	char err[256];

	assert_true(p != NULL);
	if (!p)
		return;
	assert_true(kscen_value_parse(p, text, &v, err, sizeof(err)) == 0);
	kscen_value_store(p, params, &v);
}

/* records/synthesis of one synthesis of this process with @reader. */
static void *synth_job(const char *reader, const char *data)
{
	const struct kscen_workload *w = kscen_workload_find("internals.synthesize");
	void *params = kscen_params_new(w);

	set(w, params, "loops", "1");
	set(w, params, "scope", "self");
	set(w, params, "reader", reader);
	set(w, params, "data_mmap", data);
	return params;
}

void test_synthesize_readers_agree(void **state)
{
	const struct kscen_workload *w = kscen_workload_find("internals.synthesize");
	static const char *const data[] = { "false", "true" };
	double records[2] = { 0, 0 };

	assert_true(w != NULL);
	if (!w)
		return;
	for (int d = 0; d < 2; d++) {
		struct kscen_ctx a = { .params = synth_job("stdio", data[d]) };
		struct kscen_ctx b = { .params = synth_job("buffered", data[d]) };
		double va[KSCEN_MAX_METRICS] = { 0 }, vb[KSCEN_MAX_METRICS] = { 0 };

		/* Both set up first: the two samples see the same mappings. */
		assert_true(w->setup(&a) == 0 && w->setup(&b) == 0);
		assert_true(w->sample(&a, va) == 0);
		assert_true(w->sample(&b, vb) == 0);
		assert_true(va[1] == vb[1]);	/* records/synthesis */
		assert_true(va[1] >= 2);		/* a COMM and our own text at least */
		assert_true(va[0] > 0 && va[2] > 0);
		records[d] = vb[1];
		w->teardown(&a);
		w->teardown(&b);
		kscen_params_free(w, (void *)a.params);
		kscen_params_free(w, (void *)b.params);
	}
	assert_true(records[1] > records[0]);	/* data mappings add records */
}

void test_bpf_missing_btf_is_a_skip(void **state)
{
	const struct kscen_workload *w = kscen_workload_find("uprobe.nop");
	void *params = kscen_params_new(w);
	struct kscen_ctx ctx = { .params = params };
	const char *old = getenv("KSCEN_BTF_PATH");
	char *saved = old ? strdup(old) : NULL;

	setenv("KSCEN_BTF_PATH", "/nonexistent/vmlinux", 1);
	set(w, params, "probe", "empty");
	assert_true(w->supported(&ctx) == KSCEN_SKIP);
	assert_true(strstr(ctx.reason, geteuid() ? "needs root" :
			"no kernel BTF at /nonexistent/vmlinux") != NULL);
	/* The baseline needs no BPF: it runs anywhere. */
	memset(ctx.reason, 0, sizeof(ctx.reason));
	set(w, params, "probe", "none");
	assert_true(w->supported(&ctx) == 0 && !ctx.reason[0]);
	if (saved)
		setenv("KSCEN_BTF_PATH", saved, 1);
	else
		unsetenv("KSCEN_BTF_PATH");
	free(saved);
	kscen_params_free(w, params);
}

void test_uprobe_nop_counts_every_hit(void **state)
{
	const struct kscen_workload *w = kscen_workload_find("uprobe.nop");
	void *params = kscen_params_new(w);
	struct kscen_ctx ctx = { .params = params };
	double v[KSCEN_MAX_METRICS] = { 0 };
	int ret;

	set(w, params, "calls", "200");
	set(w, params, "probe", "empty");
	set(w, params, "attach", "return");
	if (w->supported(&ctx)) {
		/* Not root here: the e2e tests prove the skip; nothing to count. */
		print_message("skipped: %s\n", ctx.reason);
		kscen_params_free(w, params);
		skip();
	}
	ret = w->setup(&ctx);
	assert_true(ret == 0);
	if (ret) {
		fprintf(stderr, "    setup: %s\n", ctx.reason);
	} else {
		ret = w->sample(&ctx, v);
		if (ret)
			fprintf(stderr, "    sample: %s\n", ctx.reason);
		assert_true(ret == 0);
		assert_true(v[0] > 0 && v[1] > 0);
		w->teardown(&ctx);
	}
	kscen_params_free(w, params);
}
