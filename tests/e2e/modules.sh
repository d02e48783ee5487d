#!/bin/bash
# modules.sh [KSCEN] - end-to-end tests: workload modules built outside the
# tree. The example module (make examples, and built here against the header
# as installed) loaded from a scenario's modules: and KSCEN_MODULE_PATH, run
# through the fork server, shown by kscen list; the refusals: a
# world-writable file or directory, another ABI, a missing module, a
# workload name taken, a file that is not a module.
. "$(dirname "$0")/lib.sh"

cc=${CC:-cc}
# module OUT SRC: a module built as its author would, against <kscen/workload.h>
mkdir -p "$tmp/inc/kscen"
cp runner/workloads/workload.h "$tmp/inc/kscen/workload.h"
module() { "$cc" -std=gnu11 -O2 -Wall -Werror -fPIC -shared -I"$tmp/inc" -o "$1" "$2"; }

# ---- the example: make examples, then a run through kscen run -------------
make -s examples >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ -s examples/example.so ] && pass make_examples ||
	fail make_examples "rc=$rc $(head -c 300 "$tmp/err")"

run "$kscen" validate examples/example.yaml
[ $rc = 0 ] && grep -q 'ok, 2 jobs' "$tmp/out" && pass example_validates ||
	fail example_validates "rc=$rc $(cat "$tmp/err")"

# kscen run forks its sample server before it reads the scenario: the
# server loads the module from the job's request.
run "$kscen" run -q -o "$tmp/res" examples/example.yaml
file=$(ls "$tmp/res"/example-module/*.yaml 2>/dev/null | head -n1)
[ $rc = 0 ] && grep -q '# 2 ok, 0 skipped, 0 failed' "$tmp/out" &&
	grep -q 'Executed 100000 getppid() calls' "$tmp/out" && [ -n "$file" ] &&
	pass example_runs_through_server ||
	fail example_runs_through_server "rc=$rc $(head -c 600 "$tmp/out") $(head -c 300 "$tmp/err")"
if [ -n "$file" ] && grep -q 'workload: example.getpid' "$file" &&
   [ "$(grep -c 'status: ok' "$file")" = 2 ] &&
   "$kscen" report "$file" 2>/dev/null | grep -q 'getpid/loops=100000,call=getppid'; then
	pass example_result_and_report
else
	fail example_result_and_report "$(head -c 400 "$file" 2>/dev/null)"
fi

# ---- built as its author would, from another directory ---------------------
mkdir -p "$tmp/mods" "$tmp/sc"
chmod 755 "$tmp" "$tmp/mods" "$tmp/sc"
module "$tmp/mods/example.so" examples/example.c 2>"$tmp/err" && pass example_builds_against_header ||
	fail example_builds_against_header "$(head -c 300 "$tmp/err")"
cat >"$tmp/sc/rel.yaml" <<YAML
scenario: rel
repeat: 2
warmup: 0
modules:
  - ../mods/example.so
jobs:
  - name: one
    workload: example.getpid
    params: {loops: 1000}
YAML
run "$kscen" run -q --no-save "$tmp/sc/rel.yaml"
[ $rc = 0 ] && grep -q '# 1 ok, 0 skipped, 0 failed' "$tmp/out" && pass modules_relative_to_scenario ||
	fail modules_relative_to_scenario "rc=$rc $(head -c 300 "$tmp/err")"
# kscen rerun runs a module's job again only with the build the run measured
run "$kscen" run -q -o "$tmp/rr" "$tmp/sc/rel.yaml"
rel=$(ls "$tmp"/rr/rel/*.yaml 2>/dev/null | head -n1)
run "$kscen" rerun -q -o "$tmp/rr" "$rel"
again=$(ls "$tmp"/rr/rel/*.yaml 2>/dev/null | grep -vxF "$rel" | head -n1)
run "$kscen" rerun -q --no-save "$again"	# a rerun's rerun finds the module too
rc1=$rc
"$cc" -std=gnu11 -O1 -Wall -Werror -fPIC -shared -I"$tmp/inc" -o "$tmp/mods/example.so" examples/example.c
run "$kscen" rerun -q --no-save "$rel"
[ $rc1 = 0 ] && [ $rc = 2 ] &&
	grep -q "^kscen rerun: job one/loops=1000: module .*example.so is not the build $rel ran (sha256 [0-9a-f]\{16\}, now [0-9a-f]\{16\})" "$tmp/err" &&
	pass rerun_refuses_another_module_build || fail rerun_refuses_another_module_build "rc=$rc1,$rc $(cat "$tmp/err")"
module "$tmp/mods/example.so" examples/example.c	# the build it was

# ---- a stored run names the module's file and digest; a rebuild is not compared
"$kscen" run -q -o "$tmp/mres" "$tmp/sc/rel.yaml" >/dev/null 2>&1
new_second	# result files are named by the second they started
"$kscen" run -q -o "$tmp/mres" "$tmp/sc/rel.yaml" >/dev/null 2>&1
sha=$(sha256sum "$tmp/mods/example.so" | cut -d' ' -f1)
cp "$tmp/mods/example.so" "$tmp/old.so"
"$cc" -std=gnu11 -O0 -Wall -Werror -fPIC -shared -I"$tmp/inc" -o "$tmp/mods/example.so" examples/example.c
new_second
"$kscen" run -q -o "$tmp/mres" "$tmp/sc/rel.yaml" >/dev/null 2>&1
set -- $(ls "$tmp"/mres/rel/*.yaml 2>/dev/null)
if [ $# = 3 ] && grep -q "^  module: $tmp/mods/example.so\$" "$1" &&
   grep -Eq "^  module_sha256: '?$sha'?\$" "$1" && grep -q '^  reference: ' "$2" &&
   ! grep -q '^  reference: ' "$3" && ! grep -q "$sha" "$3" &&
   ! cmp -s "$tmp/old.so" "$tmp/mods/example.so"; then
	pass result_names_module_build
else
	fail result_names_module_build "$# runs; $(grep -hE '^  (module|reference)' "$@" 2>/dev/null | head -8)"
fi

# ---- KSCEN_MODULE_PATH and kscen list ---------------------------------------
KSCEN_MODULE_PATH="$tmp/mods" run "$kscen" list
[ $rc = 0 ] && grep -q '^breakpoint.thread' "$tmp/out" &&
	grep -Eq "^example.getpid +.*\(module $tmp/mods/example.so\)$" "$tmp/out" &&
	pass list_shows_module_origin || fail list_shows_module_origin "rc=$rc $(tail -2 "$tmp/out")"
KSCEN_MODULE_PATH="$tmp/mods/example.so" run "$kscen" list example.getpid
[ $rc = 0 ] && grep -q "^origin: $tmp/mods/example.so$" "$tmp/out" &&
	grep -Eq '^  call +enum +getpid +getpid\|getppid' "$tmp/out" && pass list_one_module_workload ||
	fail list_one_module_workload "rc=$rc $(cat "$tmp/out" "$tmp/err")"
run "$kscen" list example.getpid
[ $rc = 2 ] && pass list_without_module_path_exit_2 || fail list_without_module_path_exit_2 "rc=$rc"
run "$kscen" list syscall.basic
[ $rc = 0 ] && grep -q '^origin: built-in$' "$tmp/out" && pass list_builtin_origin ||
	fail list_builtin_origin "rc=$rc"
# a scenario without modules: names a workload of KSCEN_MODULE_PATH
sed '/^modules:/,/example.so$/d' "$tmp/sc/rel.yaml" >"$tmp/sc/env.yaml"
KSCEN_MODULE_PATH="$tmp/mods" run "$kscen" run -q --no-save "$tmp/sc/env.yaml"
[ $rc = 0 ] && grep -q '# 1 ok, 0 skipped, 0 failed' "$tmp/out" && pass module_path_run ||
	fail module_path_run "rc=$rc $(head -c 300 "$tmp/err")"
# the same module from both: one module, loaded once
KSCEN_MODULE_PATH="$tmp/mods" run "$kscen" validate "$tmp/sc/rel.yaml"
expect_rc module_path_and_scenario_same_file 0

# ---- refusals ---------------------------------------------------------------
# file:line:col of the modules: entry, exit 2, the reason
refused() {	# NAME SCENARIO LINE:COL REGEX
	run "$kscen" validate "$2"
	if [ $rc = 2 ] && grep -q "^$2:$3: modules: .*$4" "$tmp/err"; then pass "$1"; else
		fail "$1" "rc=$rc $(head -c 400 "$tmp/err")"; fi
}
env_refused() {	# NAME KSCEN_MODULE_PATH REGEX: kscen list refuses it, exit 2
	KSCEN_MODULE_PATH="$2" run "$kscen" list
	if [ $rc = 2 ] && grep -q "^kscen: KSCEN_MODULE_PATH: $3" "$tmp/err"; then pass "$1"; else
		fail "$1" "rc=$rc $(head -c 400 "$tmp/err")"; fi
}
scenario() {	# FILE MODULE
	printf 'scenario: bad\nmodules: [%s]\njobs:\n  - name: one\n    workload: exec\n    params: {command: "true"}\n' \
		"$2" >"$1"
}

scenario "$tmp/sc/missing.yaml" no-such.so
refused module_missing_exit_2 "$tmp/sc/missing.yaml" 2:11 'no-such.so: No such file or directory'

# a job of the missing module's workload: the module is the one error
sed -e 's/mods\/example.so/mods\/no-such.so/' "$tmp/sc/rel.yaml" >"$tmp/sc/missing2.yaml"
run "$kscen" validate "$tmp/sc/missing2.yaml"
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q ':5:5: modules: .*no-such.so: No such file' "$tmp/err" &&
	pass module_missing_is_the_one_error || fail module_missing_is_the_one_error "rc=$rc $(cat "$tmp/err")"

cp "$tmp/mods/example.so" "$tmp/mods/ww.so"
chmod 666 "$tmp/mods/ww.so"
scenario "$tmp/sc/ww.yaml" ../mods/ww.so
refused module_world_writable_file_exit_2 "$tmp/sc/ww.yaml" 2:11 'refused: the file is world-writable'
env_refused module_path_world_writable_file_exit_2 "$tmp/mods" \
	"$tmp/mods/ww.so: refused: the file is world-writable"
rm -f "$tmp/mods/ww.so"
env_refused module_path_missing_dir_exit_2 "/nonexistent-dir:$tmp/mods/example.so" \
	"/nonexistent-dir: No such file or directory"

mkdir -p "$tmp/open"
cp "$tmp/mods/example.so" "$tmp/open/example.so"
chmod 777 "$tmp/open"
scenario "$tmp/sc/wwdir.yaml" ../open/example.so
refused module_world_writable_dir_exit_2 "$tmp/sc/wwdir.yaml" 2:11 "the directory $tmp/open is world-writable"
env_refused module_path_world_writable_dir_exit_2 "$tmp/open" \
	"$tmp/open: refused: the directory $tmp/open is world-writable"
chmod 755 "$tmp/open"

# a module built for another ABI
cat >"$tmp/abi2.c" <<'C'
#include <kscen/workload.h>
#undef KSCEN_ABI_VERSION
#define KSCEN_ABI_VERSION 2
static const struct kscen_metric_desc m[] = { { "x", "x", KSCEN_LOWER } };
static int s(struct kscen_ctx *ctx, double *v) { (void)ctx; v[0] = 1; return 0; }
static const struct kscen_workload w = {
	.name = "future.one", .summary = "s", .metrics = m, .nr_metrics = 1, .sample = s,
};
KSCEN_MODULE(&w);
C
module "$tmp/mods/abi2.so" "$tmp/abi2.c" || fail module_abi_build "cannot build"
scenario "$tmp/sc/abi.yaml" ../mods/abi2.so
refused module_abi_mismatch_exit_2 "$tmp/sc/abi.yaml" 2:11 \
	"module $tmp/mods/abi2.so was built for kscen module ABI 2, this kscen has 1"

# a workload whose name is taken, a bad parameter table, not a module
sed -e 's/ABI_VERSION 2/ABI_VERSION 1/' -e 's/future.one/exec/' "$tmp/abi2.c" >"$tmp/clash.c"
module "$tmp/mods/clash.so" "$tmp/clash.c" || fail module_clash_build "cannot build"
scenario "$tmp/sc/clash.yaml" ../mods/clash.so
refused module_name_clash_exit_2 "$tmp/sc/clash.yaml" 2:11 "workload 'exec' is already a built-in workload"

sed -e 's/ABI_VERSION 2/ABI_VERSION 1/' -e 's/\.nr_metrics = 1/.nr_metrics = 0/' "$tmp/abi2.c" >"$tmp/nometric.c"
module "$tmp/mods/nometric.so" "$tmp/nometric.c" || fail module_nometric_build "cannot build"
scenario "$tmp/sc/nometric.yaml" ../mods/nometric.so
refused module_bad_workload_exit_2 "$tmp/sc/nometric.yaml" 2:11 "workload future.one: needs 1 to 12 metrics"

printf 'int x;\n' >"$tmp/plain.c"
"$cc" -fPIC -shared -o "$tmp/mods/plain.so" "$tmp/plain.c"
scenario "$tmp/sc/plain.yaml" ../mods/plain.so
refused module_not_a_module_exit_2 "$tmp/sc/plain.yaml" 2:11 "no 'kscen_module' symbol"

# ---- the harness on one CPU, every sample on all of them (child.h) ---------
# A module's sample says how many CPUs it may use and how many its parent,
# the fork server, may; exec's command (a program child) says its own.
cat >"$tmp/cpus.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <unistd.h>
#include <kscen/workload.h>

static int cpus_sample(struct kscen_ctx *ctx, double *values)
{
	cpu_set_t s;

	if (sched_getaffinity(0, sizeof(s), &s))
		return kscen_reason(ctx, -errno, "sched_getaffinity: %m");
	values[0] = CPU_COUNT(&s);
	if (sched_getaffinity(getppid(), sizeof(s), &s))
		return kscen_reason(ctx, -errno, "sched_getaffinity: %m");
	values[1] = CPU_COUNT(&s);
	return 0;
}

static const struct kscen_metric_desc cpus_metrics[] = {
	{ .name = "mine", .unit = "cpus", .better = KSCEN_HIGHER },
	{ .name = "server", .unit = "cpus", .better = KSCEN_HIGHER },
};

static const struct kscen_workload cpus = {
	.name = "t.cpus", .summary = "the CPUs a sample and its server may use",
	.version = 1, .metrics = cpus_metrics, .nr_metrics = 2, .sample = cpus_sample,
};

KSCEN_MODULE(&cpus);
C
n=$(nproc)
if [ "$n" -lt 2 ]; then
	skip harness_pinned_samples_not "one CPU allowed: nothing to pin"
elif module "$tmp/mods/cpus.so" "$tmp/cpus.c" 2>"$tmp/err"; then
	cat >"$tmp/sc/cpus.yaml" <<YAML
scenario: cpus
repeat: 2
warmup: 0
modules: [../mods/cpus.so]
jobs:
  - {name: server, workload: t.cpus}
  - name: program
    workload: exec
    params: {command: nproc}
    metrics: [{name: cpus, regex: '^([0-9]+)'}]
YAML
	run "$kscen" run -q -o "$tmp/cres" "$tmp/sc/cpus.yaml"
	"$kscen" report --format json "$tmp"/cres/cpus/*.yaml >"$tmp/json" 2>/dev/null
	if [ $rc = 0 ] && /usr/bin/python3 - "$tmp/json" "$n" <<'PY'
import json, sys
n = int(sys.argv[2])
jobs = {j["name"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
m = {x["name"]: x["samples"] for x in jobs["server"]["metrics"]}
assert m["mine"] == [n, n] and m["server"] == [1, 1], m
assert jobs["program"]["metrics"][0]["samples"] == [n, n], jobs["program"]
PY
	then pass harness_pinned_samples_not
	else fail harness_pinned_samples_not "rc=$rc $(head -c 600 "$tmp/json") $(head -c 300 "$tmp/err")"; fi
else
	fail harness_pinned_samples_not "cannot build: $(head -c 300 "$tmp/err")"
fi

# ---- a sample process as the fork server makes it (sampler.c) --------------
# In the sample's cgroup (born in it, or it writes to cgroup.procs first
# thing), and a whole process to glibc (as _Fork() leaves it): its thread
# descriptor holds its own thread id (what PI mutexes and mutex owners
# use), not the server's; -1 where the kernel cannot say
# (PR_GET_TID_ADDRESS needs CONFIG_CHECKPOINT_RESTORE).
cat >"$tmp/self.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <kscen/workload.h>

#ifndef PR_GET_TID_ADDRESS
#define PR_GET_TID_ADDRESS 40
#endif

static int self_sample(struct kscen_ctx *ctx, double *values)
{
	char line[512] = "";
	FILE *f = fopen("/proc/self/cgroup", "r");
	int *tid = NULL;
	void *robust = NULL;
	size_t robust_len;

	if (!f)
		return kscen_reason(ctx, -errno, "/proc/self/cgroup: %m");
	values[0] = 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::/", 4) && strstr(line, "/sample\n"))
			values[0] = 1;
	fclose(f);
	/*
	 * glibc's thread id of this thread is where the kernel keeps its
	 * address, and its robust-futex list is registered: a fork into the
	 * cgroup (clone3) keeps libc's thread as its _Fork() would
	 */
	values[1] = prctl(PR_GET_TID_ADDRESS, &tid, 0, 0, 0) ? -1 :
		    tid && *tid == gettid() &&
		    syscall(SYS_get_robust_list, 0, &robust, &robust_len) == 0 && robust;
	return 0;
}

static const struct kscen_metric_desc self_metrics[] = {
	{ .name = "in_sample_cgroup", .unit = "", .better = KSCEN_HIGHER },
	{ .name = "own_tid", .unit = "", .better = KSCEN_HIGHER },
};

static const struct kscen_workload self = {
	.name = "t.self", .summary = "a sample process's cgroup and thread id",
	.version = 1, .metrics = self_metrics, .nr_metrics = 2, .sample = self_sample,
};

KSCEN_MODULE(&self);
C
if module "$tmp/mods/self.so" "$tmp/self.c" 2>"$tmp/err"; then
	cat >"$tmp/sc/self.yaml" <<YAML
scenario: self
repeat: 3
warmup: 0
modules: [../mods/self.so]
jobs:
  - {name: self, workload: t.self}
YAML
	run "$kscen" run -q -o "$tmp/sres" "$tmp/sc/self.yaml"
	"$kscen" report --format json "$tmp"/sres/self/*.yaml >"$tmp/json" 2>/dev/null
	# contained (a cgroup_cpu metric) only where cgroup v2 is
	if [ $rc = 0 ] && /usr/bin/python3 - "$tmp/json" <<'PY'
import json, sys
m = {x["name"]: x["samples"] for x in json.load(open(sys.argv[1]))["jobs"][0]["metrics"]}
assert m["own_tid"] in ([1, 1, 1], [-1, -1, -1]), m
assert m["in_sample_cgroup"] == ([1, 1, 1] if "cgroup_cpu" in m else [0, 0, 0]), m
PY
	then pass sample_process_in_cgroup_own_tid
	else fail sample_process_in_cgroup_own_tid "rc=$rc $(head -c 600 "$tmp/json") $(head -c 300 "$tmp/err")"; fi
else
	fail sample_process_in_cgroup_own_tid "cannot build: $(head -c 300 "$tmp/err")"
fi

# ---- a sample that leaves a process behind, and the samples after it -------
# Its cgroup is killed at its end (cgroup.kill); Linux 6.18 kills what is
# later forked into a cgroup so killed (CLONE_INTO_CGROUP), so the next
# sample gets a new cgroup (contain.c). Three samples, each leaving a
# process that left its group: all three taken.
cat >"$tmp/leave.c" <<'C'
#include <unistd.h>
#include <kscen/workload.h>

static int leave_sample(struct kscen_ctx *ctx, double *values)
{
	pid_t pid = fork();

	(void)ctx;
	if (pid == 0) {
		setsid();
		sleep(30);
		_exit(0);
	}
	values[0] = pid > 0;
	return 0;
}

static const struct kscen_metric_desc leave_metrics[] = {
	{ .name = "left", .unit = "", .better = KSCEN_HIGHER },
};

static const struct kscen_workload leave = {
	.name = "t.leave", .summary = "a sample that leaves a process behind",
	.version = 1, .metrics = leave_metrics, .nr_metrics = 1, .sample = leave_sample,
};

KSCEN_MODULE(&leave);
C
if module "$tmp/mods/leave.so" "$tmp/leave.c" 2>"$tmp/err"; then
	cat >"$tmp/sc/leave.yaml" <<YAML
scenario: leave
repeat: 3
warmup: 0
modules: [../mods/leave.so]
jobs:
  - {name: leave, workload: t.leave}
YAML
	run "$kscen" run -q --no-save --compare none "$tmp/sc/leave.yaml"
	[ $rc = 0 ] && grep -q '1 ok, 0 skipped, 0 failed' "$tmp/out" &&
		pass sample_leaves_a_process_next_born_well ||
		fail sample_leaves_a_process_next_born_well "rc=$rc $(tail -c 400 "$tmp/err")"
else
	fail sample_leaves_a_process_next_born_well "cannot build: $(head -c 300 "$tmp/err")"
fi

finish modules
