/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload.h - the workload module ABI: all a module author reads.
 *
 * A module (runner/workloads/<name>.c) fills one struct kscen_workload:
 * its parameters (a table the runner parses scenario values into), its
 * metrics, and hooks that run in an isolated child process per sample.
 * Functions return 0 or a negative errno unless their comment says
 * otherwise.
 *
 * Installed as <kscen/workload.h> for modules built outside the tree: a
 * shared object that defines its workloads and names them once with
 * KSCEN_MODULE() (the end of this file), built with
 *
 *   cc -O2 -fPIC -shared -o mine.so mine.c
 *
 * and loaded by a scenario's "modules:" or KSCEN_MODULE_PATH.
 */
#ifndef KSCEN_WORKLOAD_H
#define KSCEN_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#define KSCEN_MAX_METRICS 12
#define KSCEN_REASON_MAX 256

/* ---- Workload modules ------------------------------------------------- */

/*
 * Parameter types, and how each is stored at @offset in the module's params
 * struct (the runner allocates, fills and frees that struct):
 *   INT     long long
 *   SIZE    long long, bytes ("4k", "1M", "2G": powers of 1024)
 *   TIME    long long, nanoseconds ("500us", "2s"; a bare number is ns)
 *   BOOL    bool (true/false)
 *   STRING  char *, owned by the runner
 *   ENUM    int, index into the '|'-separated @choices
 */
enum kscen_ptype {
	KSCEN_P_INT,
	KSCEN_P_SIZE,
	KSCEN_P_TIME,
	KSCEN_P_BOOL,
	KSCEN_P_STRING,
	KSCEN_P_ENUM,
};

struct kscen_param {
	const char *name;
	enum kscen_ptype type;
	size_t offset;
	const char *def;	/* default as text; NULL: the scenario must set it */
	long long min, max;	/* INT, SIZE, TIME: inclusive range */
	const char *choices;	/* ENUM: "a|b|c" */
	const char *help;
};

enum kscen_better {
	KSCEN_LOWER,
	KSCEN_HIGHER,
};

struct kscen_metric_desc {
	const char *name;	/* "usecs/op" */
	const char *unit;	/* printed after the value: "usecs/op" */
	enum kscen_better better;
};

/*
 * A number a job captures from what a sample prints: one entry of the
 * scenario's "metrics:" list, for a workload that takes them (exec).
 */
struct kscen_capture {
	const char *name;
	const char *regex;	/* POSIX extended, exactly one capture group */
	const char *unit;
	enum kscen_better better;
};

/*
 * What a workload's hooks see. One ctx lives in the isolated child process
 * that takes a sample: setup -> sample -> teardown, then the child exits, so
 * nothing a workload opens outlives its sample.
 */
struct kscen_ctx {
	const void *params;	/* the module's params struct, filled */
	const struct kscen_capture *captures;	/* the job's metrics: list */
	unsigned nr_captures;
	void *priv;		/* the module's own state, set by setup() */
	int verbose;
	char reason[KSCEN_REASON_MAX];	/* why a hook failed or skipped */
};

/* What setup() and supported() return besides 0 and -errno. */
#define KSCEN_SKIP 1

/* Set ctx->reason and return @ret: return kscen_reason(ctx, -errno, "..."). */
int kscen_reason(struct kscen_ctx *ctx, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct kscen_workload {
	const char *name;	/* "breakpoint.thread" */
	const char *summary;	/* one line, for kscen list */
	unsigned version;	/* bump when what a sample measures changes */

	const struct kscen_param *params;
	unsigned nr_params;
	size_t params_size;

	/* The first is the primary metric. */
	const struct kscen_metric_desc *metrics;
	unsigned nr_metrics;

	/*
	 * Optional: let a job's params rewrite its metric descriptions (exec
	 * takes its unit from the scenario). @m holds a copy of @metrics and
	 * has room for KSCEN_MAX_METRICS; return how many the job has. The
	 * strings must outlive the job: static, or pointing into @params.
	 */
	unsigned (*job_metrics)(const void *params, struct kscen_metric_desc *m);

	/*
	 * Optional: check a job's params together, at load time, before
	 * anything runs. Return 0, or -EINVAL with @err filled.
	 */
	int (*check)(const void *params, char *err, size_t len);

	/*
	 * Optional: the module takes a job's "metrics:" list (ctx->captures):
	 * say whether @params allow @nr of them, 0 or -EINVAL with @err
	 * filled. The captures are the job's first metrics and sample() fills
	 * values[0..nr-1] from them; the module's own follow. Without this
	 * hook a job of the module cannot have a metrics: list.
	 */
	int (*check_captures)(const void *params, unsigned nr, char *err, size_t len);

	/*
	 * Optional: can this job run here at all? Called in the runner before
	 * any sample. Return 0, or KSCEN_SKIP with ctx->reason filled
	 * ("needs CAP_PERFMON or root").
	 */
	int (*supported)(struct kscen_ctx *ctx);

	/*
	 * Optional. 0, KSCEN_SKIP (reason filled) or -errno (reason filled).
	 * On failure setup() undoes itself: teardown() runs only after a
	 * setup() that returned 0.
	 */
	int (*setup)(struct kscen_ctx *ctx);
	/*
	 * Take one sample: fill values[0..nr_metrics-1]. 0, or -errno with
	 * ctx->reason filled. Never calls exit().
	 */
	int (*sample)(struct kscen_ctx *ctx, double *values);
	/* Optional; must undo setup() whatever sample() returned. */
	void (*teardown)(struct kscen_ctx *ctx);

	/*
	 * Optional: one line describing a job like perf bench's header
	 * ("Created/joined 1,120 threads with 4 breakpoints ..."), without
	 * the leading "# " and the newline.
	 */
	void (*describe)(const void *params, char *buf, size_t len);
};

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* ---- Modules built outside the tree ------------------------------------ */

/*
 * The version of this file's structs as a module sees them. A kscen loads
 * only a module built for its own version; bump it with any change to the
 * layout or the meaning of what a module fills in or calls.
 */
#define KSCEN_ABI_VERSION 1

/* What a module exports, under the name KSCEN_MODULE_SYMBOL. */
struct kscen_module {
	unsigned abi;		/* KSCEN_ABI_VERSION; first in every version */
	const struct kscen_workload *const *workloads;
	unsigned nr_workloads;
};

#define KSCEN_MODULE_SYMBOL "kscen_module"

/* The module's workloads: KSCEN_MODULE(&mine_a, &mine_b); once, at file scope. */
#define KSCEN_MODULE(...)						\
	static const struct kscen_workload *const kscen_module_workloads_[] = \
		{ __VA_ARGS__ };					\
	extern const struct kscen_module kscen_module;			\
	const struct kscen_module kscen_module = {			\
		.abi = KSCEN_ABI_VERSION,				\
		.workloads = kscen_module_workloads_,			\
		.nr_workloads = ARRAY_SIZE(kscen_module_workloads_),	\
	}

#endif
