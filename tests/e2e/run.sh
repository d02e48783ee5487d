#!/bin/bash
# run.sh [KSCEN] - end-to-end tests: the workloads for real with tiny loops: breakpoints, the rest of perf bench, the tool adapters, exec json.
. "$(dirname "$0")/lib.sh"

# ---- the breakpoint workloads, for real --------------------------------------
if ! why=$(need_perf_events); then
	skip breakpoint_tiny_run "$why"
else
	run "$kscen" run -q -o "$res" $fx/e2e/bp.yaml
	expect_rc breakpoint_tiny_run 0
	if grep -q 'thread/loops=2,threads=2,parallelism=2,breakpoints=4' "$tmp/out" &&
	   grep -q 'usecs/op' "$tmp/out"; then pass breakpoint_report; else
		fail breakpoint_report "$(cat "$tmp/out")"; fi
	case "$(uname -m)" in
	x86_64|i?86)
		grep -A3 'breakpoints=5' "$tmp/out" | grep -q 'skipped: .*No space left' &&
			pass breakpoint_fifth_is_skipped || fail breakpoint_fifth_is_skipped "$(cat "$tmp/out")" ;;
	*) skip breakpoint_fifth_is_skipped "x86 only" ;;
	esac
fi


# ---- issue 13: the rest of perf bench, tool adapters, exec json -----------
run "$kscen" run -q -o "$res" $fx/e2e/perf-bench-more.yaml
expect_rc perf_bench_more_tiny_run 0
"$kscen" report --format json "$res/e2e-perf-bench-more" >"$tmp/json" 2>/dev/null
if /usr/bin/python3 - "$tmp/json" "$(nproc)" <<'PY'
import json, sys
jobs = {j["id"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
ncpus = int(sys.argv[2])
def m(i):
    return {x["name"]: x["median"] for x in jobs[i]["metrics"]}
assert len(jobs) == 32, len(jobs)
for i, j in jobs.items():
    if i.startswith("memcpy-cycles/"):
        # a VM has no cycles counter: a skip with its reason, never a number
        assert j["status"] == "ok" or "cycles counter" in j["reason"], j
        continue
    assert j["status"] == "ok", (i, j.get("reason"))
    assert all(x["median"] > 0 for x in j["metrics"]), (i, j["metrics"])
for i in jobs:
    if i.startswith(("hash/", "lock-pi/")):
        # total over the threads (one per CPU) is the per-thread mean x threads
        r = m(i)["total ops/sec"] / m(i)["ops/sec"]
        assert abs(r - ncpus) < 1e-6, (i, r, ncpus)
        # and the describe line counts the CPUs kscen was given, not the
        # one its pinned runner has (it said "1 threads" on two CPUs)
        assert jobs[i]["describe"].startswith(f"{ncpus} threads"), jobs[i]["describe"]
    if i.startswith("epoll-ctl/"):
        assert jobs[i]["describe"].startswith(f"{ncpus} threads"), jobs[i]["describe"]
    if i.startswith("epoll-wait/"):
        waiters = ncpus - 1 if ncpus > 1 else 1
        assert jobs[i]["describe"].startswith(f"{waiters} threads"), jobs[i]["describe"]
    if i.startswith("epoll-ctl/") and "randomize=false" in i:
        v = m(i)
        assert v["ADD ops/sec"] == v["MOD ops/sec"] == v["DEL ops/sec"], v
    if i.startswith("requeue/"):
        # with pi, the describe line says so (the requeued count is below)
        assert ("to PI futex2" in jobs[i]["describe"]) == ("pi=true" in i), jobs[i]
    if i.startswith(("getpgid/", "fork/", "execve/", "seccomp/")):
        v = m(i)
        assert abs(v["usecs/op"] * v["ops/sec"] / 1e6 - 1) < 1e-6, v
assert m("wake/threads=4,nwakes=2,repeat=2,settle=5ms")["woken"] == 4
# each waker makes one FUTEX_WAKE of 2, as perf's do, and wakes 2 in each
# of the 20 rounds only if every waiter is queued before the clock starts:
# with no settle that is futex_wait_queued() (without any wait, 1 in some
# round at load 0, 2026-12-05; the unit test
# test_futex_wait_queued_waits_for_the_late fails without it on any load)
assert m("wake-parallel/threads=4,nwakers=2,repeat=20,settle=0ms")["woken per waker"] == 2
for b in ("false", "true"):
    for pi in ("false", "true"):
        assert m(f"requeue/threads=4,broadcast={b},pi={pi},repeat=2,settle=5ms")["requeued"] == 4
PY
then pass perf_bench_more_workloads_measure; else
	fail perf_bench_more_workloads_measure "$(head -c 900 "$tmp/json")"; fi

# numa.mem needs two nodes; on one it must say so
if [ "$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)" -lt 2 ]; then
	printf 'scenario: e2e-numa\nrepeat: 1\nwarmup: 0\njobs:\n  - name: numa\n    workload: numa.mem\n    params: {nr_secs: 1s}\n' >"$tmp/numa.yaml"
	run "$kscen" run -q --no-save --compare none "$tmp/numa.yaml"
	[ $rc = 0 ] && grep -q 'skipped: one NUMA node' "$tmp/out" && pass numa_mem_skips_on_one_node ||
		fail numa_mem_skips_on_one_node "rc=$rc $(cat "$tmp/out" "$tmp/err")"
else
	skip numa_mem_skips_on_one_node "this machine has several NUMA nodes"
fi

# Load-time errors of the adapters: file:line:column, exit 2, nothing run.
n=0 bad=""
for case in 'perf.bench|{collection: sched, benchmark: all}|name one benchmark' \
	'exec|{command: "true", json: results}|starts with' \
	'exec|{command: "true", json: ".a", metric_regex: "(x)"}|not both' \
	'fio|{}|job_file or options' 'stress_ng|{stressor: "cpu --all"}|stressor:' \
	'futex.wake_parallel|{threads: 5, nwakers: 2}|does not divide'; do
	IFS='|' read -r wl params want <<<"$case"
	printf 'scenario: e2e-bad\njobs:\n  - name: a\n    workload: %s\n    params: %s\n' "$wl" "$params" >"$tmp/bad-adapter.yaml"
	run "$kscen" validate "$tmp/bad-adapter.yaml"
	if [ $rc = 2 ] && grep -q "^$tmp/bad-adapter.yaml:[0-9]*:[0-9]*: .*$want" "$tmp/err"; then
		n=$((n + 1))
	else
		bad="$bad [$wl: rc=$rc $(cat "$tmp/err")]"
	fi
done
[ $n = 6 ] && pass adapters_bad_params_exit_2 || fail adapters_bad_params_exit_2 "$bad"

# A missing tool is a skip that names the apt-get line.
printf 'scenario: e2e-missing\nrepeat: 1\nwarmup: 0\njobs:\n  - name: p\n    workload: perf.bench\n    params: {collection: sched, benchmark: pipe, perf: no-such-perf}\n  - name: f\n    workload: fio\n    params: {options: "--name=x", fio: no-such-fio}\n  - name: s\n    workload: stress_ng\n    params: {stressor: cpu, stress_ng: no-such-stress-ng}\n' >"$tmp/missing.yaml"
run "$kscen" run -q --no-save --compare none "$tmp/missing.yaml"
[ $rc = 0 ] && grep -q '# 0 ok, 3 skipped, 0 failed' "$tmp/out" &&
	grep -q 'apt-get install -y linux-perf' "$tmp/out" && grep -q 'apt-get install -y fio' "$tmp/out" &&
	grep -q 'apt-get install -y stress-ng' "$tmp/out" && pass adapters_missing_tool_is_a_skip ||
	fail adapters_missing_tool_is_a_skip "rc=$rc $(cat "$tmp/out")"

if ! command -v perf >/dev/null || ! command -v fio >/dev/null || ! command -v stress-ng >/dev/null; then
	skip adapters_against_real_tools "needs perf, fio and stress-ng (make deps; Debian: linux-perf)"
else
	mkdir -p "$tmp/fio"
	sed "s|FIO_DIR|$tmp/fio|" $fx/e2e/adapters.yaml >"$tmp/adapters.yaml"
	run "$kscen" run -q -o "$res" "$tmp/adapters.yaml"
	expect_rc adapters_tiny_run 0
	"$kscen" report --format json "$res/e2e-adapters" >"$tmp/json" 2>/dev/null
	if /usr/bin/python3 - "$tmp/json" <<'PY'
import json, sys
jobs = {j["name"] + "/" + str(j["params"].get("job", j["params"].get("json", ""))): j
        for j in json.load(open(sys.argv[1]))["jobs"]}
assert all(j["status"] == "ok" for j in jobs.values()), [(i, j.get("reason")) for i, j in jobs.items()]
def m(i):
    return {x["name"]: (x["median"], x["better"]) for x in jobs[i]["metrics"] if not x["name"].startswith("cgroup_")}
assert m("pb-pipe/")["seconds"][0] > 0 and m("pb-pipe/")["seconds"][1] == "lower"
assert m("pb-hash/")["ops/sec"][0] > 0 and m("pb-hash/")["ops/sec"][1] == "higher"
assert list(m("pb-ctl/")) == ["ADD operations", "MOD operations", "DEL operations"]
for d in ("r", "w"):
    v = m("fio/" + d)
    assert list(v) == ["iops", "bandwidth", "clat p50", "clat p99", "clat p99.9"], v
    assert v["iops"][1] == v["bandwidth"][1] == "higher" and v["clat p99"][1] == "lower"
    assert v["iops"][0] > 0 and v["bandwidth"][0] > 0, v
    # 256 KiB in 4 KiB blocks: bandwidth is iops x 4 KiB
    assert abs(v["bandwidth"][0] * 1024 * 1024 / (v["iops"][0] * 4096) - 1) < 0.01, v
    assert 0 < v["clat p50"][0] <= v["clat p99"][0] <= v["clat p99.9"][0], v
v = m("stress/")
assert v["bogo ops/s"][0] > 0 and v["bogo ops/s usr+sys"][0] > 0 and v["bogo ops"][0] > 0, v
assert m("json/.results[0].mean")["mean"][0] == 0.125
assert m('json/.["a.b"].n')["mean"][0] == 7
PY
	then pass adapters_against_real_tools; else
		fail adapters_against_real_tools "$(head -c 1200 "$tmp/json")"; fi
fi
# exec json: a document that is not JSON, a path that is not there
printf 'scenario: e2e-json-bad\nrepeat: 1\nwarmup: 0\njobs:\n  - name: j\n    workload: exec\n    params: {command: "echo hello", json: .x}\n  - name: k\n    workload: exec\n    params: {command: "echo {\\\\\\"a\\\\\\": [1]}", json: ".a[3]"}\n' >"$tmp/json-bad.yaml"
run "$kscen" run -q --no-save --compare none "$tmp/json-bad.yaml"
[ $rc = 3 ] && grep -q 'json: stdout is not JSON' "$tmp/out" && grep -q 'has 1 elements, no \[3\]' "$tmp/out" &&
	pass exec_json_errors_are_failures || fail exec_json_errors_are_failures "rc=$rc $(cat "$tmp/out")"

# internals.synthesize scope perf: an idle perf process of perf bench's shape
if ! command -v perf >/dev/null; then skip synthesize_scope_perf "perf not installed"
else
	printf 'scenario: e2e-synperf\nrepeat: 1\nwarmup: 0\njobs:\n  - name: s\n    workload: internals.synthesize\n    params: {loops: 2, scope: [self, perf]}\n' >"$tmp/synperf.yaml"
	E2E_MARK=$tmp/synperf run "$kscen" run --no-save --compare none --format json \
		"$tmp/synperf.yaml"
	if [ $rc = 0 ] && python3 - "$tmp/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rec = {j["id"].split("scope=")[1]: j["metrics"][1]["median"] for j in r["jobs"]}
# perf maps about three times the libraries kscen does
assert rec["perf"] > 1.5 * rec["self"], rec
PY
	   wait_for 10 gone "$tmp/synperf"; then pass synthesize_scope_perf	# perf's sleep too
	else fail synthesize_scope_perf "rc=$rc $(head -c 600 "$tmp/out") $(marked "$tmp/synperf")"; fi
	reap "$tmp/synperf"
fi
# ---- exec without a shell where none is needed --------------------------------
run "$kscen" run -q --no-save --compare none --format json $fx/e2e/exec-shell.yaml
if [ $rc = 3 ] && /usr/bin/python3 - "$tmp/out" <<'PY'
import json, sys
jobs = {j["name"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
assert jobs["plain"]["describe"].endswith("(no shell)"), jobs["plain"]
assert jobs["quoted"]["describe"].endswith("(sh -c)"), jobs["quoted"]
assert jobs["forced"]["describe"] == "exec: true (sh -c)", jobs["forced"]
# shell: false: "$X" reaches echo as it is, no shell expanded it
lit = jobs["literal"]
assert lit["status"] == "ok" and lit["metrics"][0]["median"] == 7, lit
# no such program: sh runs it and says so; a builtin goes to sh too
m = jobs["missing"]
assert m["describe"].endswith("(sh -c)") and m["status"] == "failed", m
assert "kscen-no-such-command: not found" in m["reason"], m
b = jobs["builtin"]
assert b["describe"].endswith("(sh -c)") and "status 3" in b["reason"], b
assert all(jobs[n]["status"] == "ok" for n in ("plain", "quoted", "forced"))
# a program sh has a builtin of runs as sh -c would run it: dash's echo
e = jobs["echo"]
assert e["describe"].endswith("(sh -c)") and e["status"] == "ok", e
assert e["metrics"][0]["median"] == 5, e
PY
then pass exec_shell_auto_true_false; else fail exec_shell_auto_true_false "rc=$rc $(head -c 600 "$tmp/out")"; fi
# ---- exec's metrics: list, prepare: and cleanup: ------------------------------
sed "s|@DIR@|$tmp|g" $fx/e2e/exec-metrics.yaml >"$tmp/exec-metrics.yaml"
rm -f "$tmp/prepared" "$tmp/cleaned" "$tmp/two-cleaned"
run "$kscen" run -q --no-save --compare none --format json "$tmp/exec-metrics.yaml"
if [ $rc = 3 ] && [ ! -e "$tmp/prepared" ] && [ "$(wc -l <"$tmp/cleaned")" = 4 ] &&
   [ -e "$tmp/two-cleaned" ] &&
   /usr/bin/python3 - "$tmp/out" <<'PY'
import json, sys
jobs = {j["name"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
m = {x["name"]: x for x in jobs["two"]["metrics"]}
assert [x["name"] for x in jobs["two"]["metrics"]][:3] == ["tput", "lat", "wall_time"], m
assert m["tput"]["median"] == 12.5 and m["tput"]["unit"] == "MB/s", m["tput"]
assert m["tput"]["better"] == "higher" and m["lat"]["better"] == "lower", m
assert m["lat"]["median"] == 3, m["lat"]
# prepare ran before each of the 4 samples (1 warmup + 3): the recorded 2, 3, 4
c = jobs["counted"]["metrics"][0]
assert c["samples"] == [2, 3, 4], c
nm = jobs["nomatch"]
assert nm["status"] == "failed" and "metrics: x: regex did not match" in nm["reason"], nm
bp = jobs["badprep"]
assert bp["status"] == "failed", bp
assert bp["reason"] == "prepare: command exited with status 3: no disk", bp
PY
then pass exec_metrics_prepare_cleanup
else fail exec_metrics_prepare_cleanup "rc=$rc $(head -c 600 "$tmp/out"); $(ls "$tmp")"; fi
# ---- exec: the command is the sample's process ------------------------------
# No sample process around it (isolate.c, sample_inline()): the command is the
# runner's child, in a process group of its own, and a timeout still kills it.
cat >"$tmp/probe.sh" <<'SH'
read -r _ _ _ ppid pgrp _ </proc/$$/stat
read -r _ _ _ gp _ </proc/$ppid/stat
echo "own_group=$([ "$pgrp" = $$ ] && echo 1 || echo 0)"
echo "runner_child=$([ "$gp" = "$KSCEN_TEST_PID" ] && echo 1 || echo 0)"
SH
cat >"$tmp/inline.yaml" <<YAML
scenario: e2e-inline
repeat: 2
warmup: 0
jobs:
  - name: probe
    workload: exec
    params: {command: "sh $tmp/probe.sh"}
    metrics:
      - {name: own_group, regex: "own_group=([01])"}
      - {name: runner_child, regex: "runner_child=([01])"}
  - name: hang
    workload: exec
    timeout: 300ms
    params: {command: "sleep 61"}
YAML
KSCEN_TEST_PID=$$ E2E_MARK=$tmp/inline run "$kscen" run -q --no-save --compare none --format json \
	"$tmp/inline.yaml"
if [ $rc = 3 ] && wait_for 10 gone "$tmp/inline" && /usr/bin/python3 - "$tmp/out" <<'PY'
import json, sys
jobs = {j["name"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
m = {x["name"]: x["samples"] for x in jobs["probe"]["metrics"]}
assert m["own_group"] == [1, 1] and m["runner_child"] == [1, 1], m
h = jobs["hang"]
assert h["status"] == "failed" and h["reason"] == "sample timed out after 0.3 s", h
PY
then pass exec_command_is_the_sample_process
else fail exec_command_is_the_sample_process "rc=$rc $(head -c 600 "$tmp/out") $(head -c 300 "$tmp/err")"; fi
reap "$tmp/inline"
# --filter: the run holds only the jobs it runs (kscen_expand_some()), with
# the baseline and previous the whole matrix gives them, shown where those
# run too: c's baseline a runs, its previous b does not.
cat >"$tmp/filtered.yaml" <<YAML
scenario: e2e-filtered
repeat: 1
warmup: 0
jobs:
  - name: f
    workload: exec
    params: {command: ["echo a", "echo b", "echo c"], metric_name: [x, y]}
    exclude:
      - {command: "echo a", metric_name: y}
    baseline: {command: "echo a"}
YAML
run "$kscen" run -q --no-save --compare none --format json --filter '*echo [ac]*' "$tmp/filtered.yaml"
if [ $rc = 0 ] && /usr/bin/python3 - "$tmp/out" <<'PY'
import json, sys
jobs = {j["id"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
a, c = "f/command=echo a,metric_name=", "f/command=echo c,metric_name="
assert sorted(jobs) == [a + "x", c + "x", c + "y"], sorted(jobs)
assert jobs[c + "x"]["baseline"] == a + "x" and jobs[c + "x"]["previous"] is None, jobs[c + "x"]
# a/y is excluded: c/y has no baseline; its previous b/y did not run
assert jobs[c + "y"]["baseline"] is None and jobs[c + "y"]["previous"] is None, jobs[c + "y"]
assert jobs[a + "x"]["baseline"] == a + "x", jobs[a + "x"]
PY
then pass filtered_run_keeps_matrix_baselines
else fail filtered_run_keeps_matrix_baselines "rc=$rc $(head -c 600 "$tmp/out") $(head -c 300 "$tmp/err")"; fi
finish run
