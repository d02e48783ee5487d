/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kscen.h - the types every stage of the pipe shares.
 *
 *   scenario file -> struct kscen_scenario   (scenario.c)
 *                 -> struct kscen_jobs       (expand.c)
 *                 -> samples, in rounds      (run.c, isolate.c, workloads/)
 *                 -> struct kscen_run        (run.c; stored by result.c)
 *                 -> report                  (report.c, stats.c)
 *
 * Functions return 0 or a negative errno unless their comment says otherwise.
 * Whoever allocates a struct documents who frees it; every stage has a
 * *_free().
 */
#ifndef KSCEN_H
#define KSCEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KSCEN_VERSION "0.1.0"
/* git describe of the tree kscen was built from (version.c). */
extern const char kscen_describe[];

#define KSCEN_MAX_METRICS 8
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
 * What a workload's hooks see. One ctx lives in the isolated child process
 * that takes a sample: setup -> sample -> teardown, then the child exits, so
 * nothing a workload opens outlives its sample.
 */
struct kscen_ctx {
	const void *params;	/* the module's params struct, filled */
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

/* workload.c: the one list of all modules. */
extern const struct kscen_workload *const kscen_workloads[];
extern const unsigned kscen_nr_workloads;
const struct kscen_workload *kscen_workload_find(const char *name);
/* The registered workload name closest to @name, for "did you mean"; or NULL. */
const char *kscen_workload_closest(const char *name);

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* ---- Parameter values (param.c) -------------------------------------- */

/*
 * Parse @text as a value of @p's type, strictly: "4x", "2.5" for an INT,
 * overflow and out-of-range values are errors. On error returns -EINVAL and
 * writes a message to @err. @out->s is malloc'ed for STRING (free with
 * kscen_value_fini()).
 */
struct kscen_value {
	long long i;		/* INT, SIZE, TIME, BOOL, ENUM */
	char *s;		/* STRING */
};
int kscen_value_parse(const struct kscen_param *p, const char *text,
		      struct kscen_value *out, char *err, size_t len);
void kscen_value_fini(struct kscen_value *v);
bool kscen_value_equal(const struct kscen_param *p, const struct kscen_value *a,
		       const struct kscen_value *b);
/* Store @v at p->offset in @params; takes ownership of v->s. */
void kscen_value_store(const struct kscen_param *p, void *params,
		       struct kscen_value *v);

const struct kscen_param *kscen_param_find(const struct kscen_workload *w,
					   const char *name);
/* Allocate a params struct with every default applied; NULL on error. */
void *kscen_params_new(const struct kscen_workload *w);
void kscen_params_free(const struct kscen_workload *w, void *params);
/* @p's value in a filled @params as canonical text (malloc'ed). */
char *kscen_value_text(const struct kscen_param *p, const void *params);
/* "int", "size", "time", "bool", "string", "enum" */
const char *kscen_ptype_name(enum kscen_ptype t);

/* ---- Scenario (scenario.c) --------------------------------------------- */

/* Where a value came from, for file:line:column messages (1-based). */
struct kscen_mark {
	unsigned line, col;
};

/* One "key: value" of a params/include/exclude/baseline mapping. */
struct kscen_kv {
	char *key;
	struct kscen_mark key_mark;
	char **values;		/* one for a scalar, n for a list (an axis) */
	struct kscen_mark *marks;
	unsigned nr_values;
	bool is_list;
};

/* A mapping of kvs, in file order: params, one include, one exclude, ... */
struct kscen_map {
	struct kscen_kv *kv;
	unsigned nr;
	struct kscen_mark mark;
};

struct kscen_profile_spec;

struct kscen_job_spec {
	const char *spec_file;	/* the scenario's file, for messages */
	char *name;
	struct kscen_mark mark;
	const struct kscen_workload *workload;
	struct kscen_map params;
	struct kscen_map *include, *exclude;
	unsigned nr_include, nr_exclude;
	struct kscen_map baseline;	/* nr == 0: none */
	long long timeout_ns;		/* per sample; the scenario's if unset */
	struct kscen_profile_spec *profile;	/* profile.h; NULL: the scenario's */
};

struct kscen_scenario {
	char *file;		/* path as given */
	char *sha256;		/* hex digest of the file's bytes */
	char *name;
	char *description;
	unsigned repeat;	/* recorded samples per job (auto: at least) */
	unsigned max_repeat;	/* repeat: auto: at most this many */
	double until_ci;	/* repeat: auto: CI half-width target, %; 0 off */
	unsigned warmup;	/* discarded samples per job */
	long long timeout_ns;	/* per sample */
	struct kscen_profile_spec *profile;	/* profile.h; NULL: none */
	struct kscen_job_spec *jobs;
	unsigned nr_jobs;
};

/*
 * Load and check @path. Every problem is printed to stderr as
 * "file:line:column: message". Returns 0 and a scenario the caller frees with
 * kscen_scenario_free(), or -EINVAL (bad input) / -errno.
 */
int kscen_scenario_load(const char *path, struct kscen_scenario **out);
void kscen_scenario_free(struct kscen_scenario *s);

/* ---- Jobs (expand.c) --------------------------------------------------- */

struct kscen_job {
	char *id;		/* "thread/breakpoints=4,parallelism=2" */
	const struct kscen_job_spec *spec;
	const struct kscen_workload *workload;
	void *params;		/* filled params struct */
	/* The declared params, in declaration order, as text. */
	char **keys, **values;
	unsigned nr_kv;
	struct kscen_metric_desc metrics[KSCEN_MAX_METRICS];
	unsigned nr_metrics;
	int baseline;		/* index into jobs, -1: none */
	int previous;		/* index into jobs, -1: none */
};

struct kscen_jobs {
	struct kscen_job *job;
	unsigned nr;
};

/*
 * Expand @s into jobs. A matrix of more than @max_jobs jobs is refused before
 * it is allocated. Errors are printed as for kscen_scenario_load().
 * The jobs point into @s: free them first with kscen_jobs_free().
 */
int kscen_expand(const struct kscen_scenario *s, unsigned long max_jobs,
		 struct kscen_jobs *out);
void kscen_jobs_free(struct kscen_jobs *jobs);

/* ---- Runs (run.c; stored by result.c) ---------------------------------- */

enum kscen_status {
	KSCEN_OK,
	KSCEN_SKIPPED,
	KSCEN_FAILED,
};

struct kscen_summary {
	double median, mean, stddev, min, max;
	double cv;		/* stddev / |mean|; NaN when the mean is 0 */
	double ci_lo, ci_hi;	/* 95% CI of the median (order statistics) */
	unsigned outliers;	/* beyond Tukey's fences; never dropped */
	bool bimodal;		/* gap test: two clusters far apart */
};

struct kscen_metric {
	char *name, *unit;
	enum kscen_better better;
	double *samples;
	unsigned nr_samples;
	struct kscen_summary sum;
};

struct kscen_profile;

struct kscen_job_result {
	char *id, *name, *workload;
	char **keys, **values;	/* params */
	unsigned nr_kv;
	enum kscen_status status;
	char *reason;		/* NULL when ok */
	char *describe;		/* header line, may be NULL */
	struct kscen_metric *metrics;
	unsigned nr_metrics;
	char *baseline, *previous;	/* job ids or NULL */
	int converged;		/* repeat: auto: 1 yes, 0 no; -1 not asked */
	/*
	 * What the job measured, for matching it across runs: the workload's
	 * version (0: not recorded) and every parameter, defaults included,
	 * as kscen_value_text() gives them.
	 */
	unsigned workload_version;
	char **eff_keys, **eff_values;
	unsigned nr_eff;
	char *reference;	/* the stored run it was compared with, or NULL */
	struct kscen_profile *profile;	/* profile.h; NULL: none asked */
};

#define KSCEN_PARANOID_UNKNOWN (-100)	/* perf_event_paranoid unreadable */

struct kscen_system {
	char *hostname, *kernel, *kernel_build, *arch, *cpu_model, *cmdline;
	long nr_cpus;
	int perf_event_paranoid;
	/* The environment manifest; NULL where unknown. */
	char *governor, *smt, *mitigations, *thp, *config_sha256;
	char *isolcpus, *nohz_full, *loadavg;
	char *microcode, *scaling_driver, *boost;
};

/* One shard of a merged run (merge.c): where it came from. */
struct kscen_shard_rec {
	char *shard;		/* "K/N" */
	char *path, *hostname, *kernel, *started;
};

struct kscen_run {
	char *version, *scenario, *scenario_file, *scenario_sha256, *command;
	char *started, *finished;	/* UTC ISO 8601 */
	char *label;		/* run --label, or NULL */
	char *describe;		/* git describe of the kscen build */
	char *filter;		/* run --filter, or NULL: every job */
	char *compare;		/* run --compare, as given */
	bool partial;
	char *shard;		/* run --shard K/N: one slice of the jobs; or NULL */
	/* A merged run (kscen merge): its shards, and those it lacks ("2/4"). */
	struct kscen_shard_rec *shards;
	unsigned nr_shards;
	char *missing_shards;	/* "2/4 3/4", or NULL */
	unsigned repeat, warmup;
	unsigned max_repeat;	/* repeat: auto: the most samples a job takes */
	double until_ci;	/* repeat: auto: target CI half-width %; 0 off */
	struct kscen_system system;
	struct kscen_job_result *jobs;
	unsigned nr_jobs;
	char *path;		/* where it was loaded from or saved to */
	/*
	 * The KSCEN_* test hooks set in the runner's environment, which
	 * change what is measured ("KSCEN_BTF_PATH=/x ..."); NULL: none.
	 */
	char *test_hooks;
};

/* Frees @run itself too; NULL is fine. */
void kscen_run_free(struct kscen_run *run);
/* "ok", "skipped", "failed" and "lower", "higher", as stored. */
extern const char *const kscen_status_names[];
extern const char *const kscen_better_names[];
const struct kscen_job_result *kscen_run_find(const struct kscen_run *run,
					       const char *id);

/* sysinfo.c: fill @sys for this machine. */
int kscen_system_read(struct kscen_system *sys);
void kscen_system_fini(struct kscen_system *sys);

/* stats.c */
void kscen_summarize(const double *x, unsigned n, struct kscen_summary *out);
double kscen_median(const double *x, unsigned n);
void kscen_sort(double *x, unsigned n);
/* Lower rank of the 95% CI of a median of @n samples; 0 when n < 6. */
unsigned kscen_median_ci_rank(unsigned n);
/* The CI's half-width relative to the median, in percent. */
double kscen_ci_halfwidth(const struct kscen_summary *s);

/* signif.c: how two sets of samples of one metric differ. */
enum kscen_verdict {
	KSCEN_SAME,		/* not significant: printed "~" */
	KSCEN_BETTER,
	KSCEN_WORSE,
};

struct kscen_change {
	double old, new_;	/* medians */
	double rel;		/* new / old - 1; NaN when old is 0 */
	double lo, hi;		/* 95% CI of rel */
	double p;		/* two-sided p-value of the named test */
	unsigned n_old, n_new;	/* samples; pairs when paired */
	bool paired;		/* from the rounds' pairs (signed-rank) */
	bool ci_valid;		/* false: too few samples for a 95% CI */
	enum kscen_verdict verdict;
	/* Between runs (kscen_change_widen(), history.c): */
	bool between;		/* the samples come from two runs */
	unsigned hist_runs;	/* earlier runs the drift was estimated from */
	bool drift;		/* lo, hi include the run-to-run drift */
	double spread;		/* relative: two runs may differ by +-spread */
};

/*
 * Compare @new_ against @old. @paired_ok: sample i of both was taken in the
 * same round, so the pairs may be used where they give a narrower interval.
 * Returns false when either has no samples.
 */
bool kscen_change_compute(const struct kscen_metric *old,
			  const struct kscen_metric *new_, bool paired_ok,
			  struct kscen_change *c);
/* "Mann-Whitney U" or "Wilcoxon signed-rank", the test behind @c. */
const char *kscen_change_test(const struct kscen_change *c);
/* Worse by more than @pct percent, with the whole CI beyond @pct? */
bool kscen_change_beyond(const struct kscen_change *c, enum kscen_better b,
			 double pct);
/* Exact or normal-approximation p-values, exposed for the unit tests. */
double kscen_mann_whitney_p(const double *x, unsigned nx, const double *y,
			    unsigned ny);
double kscen_signed_rank_p(const double *d, unsigned n);

/*
 * result.c: write @run to @dir/<scenario>/<started>-<hostname>.yaml
 * atomically (temp file, fsync, rename); sets run->path.
 */
int kscen_result_save(struct kscen_run *run, const char *dir);
/* Write @run to the file @path atomically; sets run->path. */
int kscen_result_write(struct kscen_run *run, const char *path);
/*
 * Can runs of @scenario be stored under @dir? Creates the directory; 0 or
 * -errno. Checked before a run, so that no run is lost at the end.
 */
int kscen_result_dir_ready(const char *dir, const char *scenario);
/* Load a stored run; the caller frees it with kscen_run_free(). */
int kscen_result_load(const char *path, struct kscen_run **out);
/* The same; the first problem goes to @err instead of stderr. */
int kscen_result_load_err(const char *path, struct kscen_run **out,
			  char *err, size_t errlen);
/*
 * The newest stored run in @dir/<scenario>/ from host @hostname, or in @path
 * when that is a directory of runs; NULL path in *out when there is none.
 */
int kscen_result_latest(const char *dir, const char *hostname, char **out);
/*
 * Every stored run in @dir (from @hostname, NULL: any), newest first, as
 * malloc'ed paths in a malloc'ed array of *@nr.
 */
int kscen_result_list(const char *dir, const char *hostname, char ***out,
		      unsigned *nr);

/* report.c */
enum kscen_format {
	KSCEN_FMT_TEXT,
	KSCEN_FMT_MARKDOWN,
	KSCEN_FMT_JSON,
	KSCEN_FMT_CSV,
};
struct kscen_refs;
/* @refs may be NULL: no "vs" lines (history.h builds them). */
void kscen_report(FILE *out, const struct kscen_run *run,
		  const struct kscen_refs *refs, enum kscen_format fmt);
/* The delta table of @new_ against its references (compare.c). */
void kscen_compare_print(FILE *out, const struct kscen_run *new_,
			 const struct kscen_refs *refs);
/*
 * The regression gate: name the jobs of @new_ worse than their reference by
 * more than @pct percent with the whole 95% CI beyond it; return their
 * number, or -1 when no job could be compared (a gate that compared nothing
 * fails closed: exit 2).
 */
int kscen_gate(FILE *out, const struct kscen_run *new_,
	       const struct kscen_refs *refs, double pct);

/* hooks.c: the KSCEN_* variables of the environment, or NULL (malloc'ed). */
char *kscen_test_hooks(void);

/* util.c */
void *kscen_xmalloc(size_t n);	/* aborts on OOM, like git's xmalloc */
void *kscen_xcalloc(size_t n, size_t size);
void *kscen_xrealloc(void *p, size_t n);
char *kscen_xstrdup(const char *s);
/* Now, UTC, ISO 8601 to the second, malloc'ed (run start and finish). */
char *kscen_utc_now(void);
char *kscen_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The closest of @cands to @s within a small edit distance, or NULL. */
const char *kscen_closest(const char *s, const char *const *cands, unsigned n);
/* Does @s read as a JSON number (and so as a number to any YAML reader)? */
bool kscen_is_number(const char *s);
/* Length of the valid UTF-8 sequence at @s, 0 if it is not one. */
unsigned kscen_utf8_len(const char *s);
/*
 * Read all of @path, which must be a regular file of at most @max bytes,
 * NUL-terminated into malloc'ed *@out. Never blocks on a FIFO or device.
 * -ENODEV not a regular file, -EISDIR a directory, -EFBIG over @max,
 * -EAGAIN it grew while read, or open/read's -errno.
 */
int kscen_read_regular(const char *path, size_t max, char **out, size_t *len);
/* The message for kscen_read_regular()'s error @err. */
const char *kscen_read_strerror(int err);
extern int kscen_verbose;

#endif
