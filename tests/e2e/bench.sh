#!/bin/bash
# bench.sh [KSCEN] - end-to-end tests of the bench/ scripts' own arithmetic.
. "$(dirname "$0")/lib.sh"

# bench/fidelity-points.py's kscen/perf ratio and 95% interval are kscen's
# to-baseline change, unpaired or from the rounds' pairs: the same samples
# must give the same numbers.
mkdir -p "$tmp/ratio"
E2E_RATIO=$tmp/ratio run "$kscen" run -q -o "$res" $fx/e2e/ratio.yaml
"$kscen" report --format json "$res/e2e-ratio" >"$tmp/json" 2>/dev/null
if [ $rc = 0 ] && /usr/bin/python3 - "$tmp/json" <<'PY'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("fp", "bench/fidelity-points.py")
fp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fp)
jobs = json.load(open(sys.argv[1]))["jobs"]
a, b, c = (j["metrics"][0]["samples"] for j in jobs)
# the samples are the counters' numbers, in round order
assert a == [1000 + i * 37 % 101 for i in range(15)], a
assert b == [1050 + i * 53 % 97 for i in range(15)], b
assert c == [1040 + i * 37 % 101 + i * 11 % 7 for i in range(15)], c

def same(mine, d, paired):
    r, lo, hi, level, rho = mine
    assert d["paired"] is paired and d["n_old"] == d["n_new"] == 15, d
    assert (rho is not None) is paired, (rho, d)
    for x, y in ((r - 1, d["rel"]), (lo - 1, d["ci_low"]), (hi - 1, d["ci_high"]),
                 (level, d["level"])):
        assert abs(x - y) < 1e-9, (mine, d)

# b against a: uncorrelated rounds, Hodges-Lehmann and Moses
same(fp.ratio_interval(a, b), jobs[1]["deltas"]["baseline"], False)
# c against a: the rounds' pairs, Walsh averages and the signed-rank
# interval (exact at 15 pairs: the 26th of 120 Walsh averages, 95.2%)
same(fp.ratio_interval(a, c), jobs[2]["deltas"]["baseline"], True)
r, lo, hi, level, rho = fp.ratio_interval(a, c)
assert rho > 0.9 and abs(level - 95.2) < 0.05, (rho, level)
# which the pairs narrow: unpaired, the same samples' interval is wider
_, ulo, uhi, _, _ = fp.ratio_interval(a, c, pairs=False)
assert uhi / ulo > 3 * (hi / lo - 1) + 1, (ulo, uhi, lo, hi)
# and the sides swapped: the reciprocal interval
for x in (b, c):
    r, lo, hi, _, _ = fp.ratio_interval(a, x)
    r2, lo2, hi2, _, _ = fp.ratio_interval(x, a)
    assert abs(r2 * r - 1) < 1e-9 and abs(lo2 * hi - 1) < 1e-9 and abs(hi2 * lo - 1) < 1e-9
# too few samples for a 95% interval (3 + 3, or 3 pairs): none
assert fp.ratio_interval(a[:3], b[:3])[1] is None
assert fp.ratio_interval(a[:3], c[:3])[1] is None
PY
then pass fidelity_interval_is_kscens; else fail fidelity_interval_is_kscens "rc=$rc $(cat "$tmp/err")"; fi
# the fidelity script's three scenarios: every job in exactly one; the
# futex latency rounds and sched messaging's thread mode (and only they) in
# the second, at three times the samples; the single-threaded memory
# benchmarks (and only they) in the third
if /usr/bin/python3 - <<'PY'
import importlib.util, re
spec = importlib.util.spec_from_file_location("fp", "bench/fidelity-points.py")
fp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fp)
ups = ",".join(u for *_, u in fp.POINTS if u)
main, short, pinned = (fp.scenario("/usr/bin/perf", 7, 1, ups, s)
                       for s in ("scenario", "short", "pinned"))
names = lambda t: re.findall(r"^  - name: (\S+)$", t, re.M)
a, b, c = names(main), names(short), names(pinned)
assert sorted(a + b + c) == sorted(n for n, _ in fp.JOBS), (a, b, c)
assert not set(a) & set(b) and not set(a) & set(c) and not set(b) & set(c), (a, b, c)
assert sorted(b) == sorted([f"{s}-futex-{n}" for s in "kp" for n in
                            ("wake", "wake-parallel", "requeue", "requeue-pi")] +
                           [f"{s}-msg-{i}-thread" for s in "kp" for i in ("socket", "pipe")]), b
assert sorted(c) == sorted([f"{s}-{b}-{f}" for s in "kp" for b, fs in
                            (("memcpy", ("default", "x86-64-unrolled", "x86-64-movsq", "x86-64-movsb")),
                             ("memset", ("default", "x86-64-unrolled", "x86-64-stosq", "x86-64-stosb")))
                            for f in fs] + ["k-find-bit", "p-find-bit-for_each_set_bit",
                                            "p-find-bit-test_bit"]), c
assert "\nrepeat: 7\n" in main and "\nrepeat: 21\n" in short and "\nrepeat: 7\n" in pinned
assert "scenario: perf-bench-fidelity\n" in main and "scenario: perf-bench-fidelity-short\n" in short
assert "scenario: perf-bench-fidelity-pinned\n" in pinned
PY
then pass fidelity_points_split; else fail fidelity_points_split "see above"; fi
# --short N: the second scenario's samples are N times REPEAT
out=$(KSCEN_FIDELITY_SHORT=5 /usr/bin/python3 bench/fidelity-points.py short /usr/bin/perf 7 1 "" |
	grep '^repeat:')
bench/fidelity-perf-bench.sh --short 0 >/dev/null 2>"$tmp/err"; rc=$?
if [ "$out" = "repeat: 35" ] && [ $rc = 1 ] && grep -q "takes a count" "$tmp/err"; then
	pass fidelity_short_factor
else
	fail fidelity_short_factor "got '$out', --short 0 rc=$rc $(cat "$tmp/err")"
fi
# perf's futex requeue rounds run with their waker (the main thread) on
# the CPU of kscen's harness: the generated jobs go through
# bench/perf-on-harness-cpu, and under `kscen run` it pins what it runs to
# one CPU (the regex takes only a single CPU; unpinned it reads "0-1").
# futex wake's waker is pinned on both sides to the lowest CPU allowed,
# the first worker's: kscen's job has waker_cpu that CPU, perf's goes
# through bench/perf-on-first-cpu, which pins what it runs there.
/usr/bin/python3 bench/fidelity-points.py short /usr/bin/perf 1 0 "" >"$tmp/short.yaml"
# (requeue, requeue -p: not wake-parallel, whose wakers are threads
# that would inherit the pin)
wrapped=$(grep -A2 'name: p-futex-' "$tmp/short.yaml" | grep '"perf": "[^"]*/bench/perf-on-harness-cpu"' |
	grep -o '"benchmark": "[a-z-]*"' | tr '\n' ' ')
first=$(/usr/bin/python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
wake_k=$(grep -A2 'name: k-futex-wake$' "$tmp/short.yaml" | grep -c "\"waker_cpu\": $first}")
wake_p=$(grep -A2 'name: p-futex-wake$' "$tmp/short.yaml" | grep -c '"perf": "[^"]*/bench/perf-on-first-cpu"')
if [ "$(nproc)" -lt 2 ]; then
	skip fidelity_futex_waker_on_harness "one CPU: kscen pins no harness"
	skip fidelity_futex_wake_waker_on_first_cpu "one CPU: nothing to pin"
else
	cat >"$tmp/pin.yaml" <<EOF
scenario: e2e-pin
repeat: 3
warmup: 0
jobs:
  - name: cpus
    workload: exec
    params:
      command: "$PWD/bench/perf-on-harness-cpu Cpus_allowed_list /proc/self/status"
      metric_regex: "Cpus_allowed_list:[[:space:]]+([0-9]+)\$"
  - name: first
    workload: exec
    params:
      command: "$PWD/bench/perf-on-first-cpu Cpus_allowed_list /proc/self/status"
      metric_regex: "Cpus_allowed_list:[[:space:]]+([0-9]+)\$"
EOF
	PERF=/bin/grep run "$kscen" run -q -o "$res" --compare none "$tmp/pin.yaml"
	if [ $rc = 0 ] && [ "$wrapped" = '"benchmark": "requeue" "benchmark": "requeue" ' ] &&
		grep -q 'samples: \[[0-9]*, [0-9]*, [0-9]*\]' "$res"/e2e-pin/*.yaml; then
		pass fidelity_futex_waker_on_harness
	else
		fail fidelity_futex_waker_on_harness "rc=$rc, wrapped: $wrapped $(cat "$tmp/err")"
	fi
	got=$(awk '/^  name: first$/ { f = 1 } f && /samples:/ { print $2, $3, $4; exit }' "$res"/e2e-pin/*.yaml)
	if [ $rc = 0 ] && [ "$wake_k" = 1 ] && [ "$wake_p" = 1 ] &&
		[ "$got" = "[$first, $first, $first]" ]; then
		pass fidelity_futex_wake_waker_on_first_cpu
	else
		fail fidelity_futex_wake_waker_on_first_cpu "rc=$rc, first CPU $first, k $wake_k, p $wake_p, samples $got"
	fi
fi
# mem.find_bit's fidelity rests on its loop being built as perf builds its
# own (-fstack-protector-all, the Makefile): the callee of each bit found,
# which no array makes -fstack-protector-strong protect, checks the canary.
build=$(dirname "$(readlink -f "$kscen")")
if ! command -v objdump >/dev/null; then
	skip find_bit_built_as_perf "needs objdump (binutils)"
elif objdump -d --no-show-raw-insn "$build/runner/workloads/find_bit.o" |
	awk '/<fb_work>:/,/^$/' | grep -q '%fs:0x28'; then
	pass find_bit_built_as_perf
else
	fail find_bit_built_as_perf "fb_work in $build/runner/workloads/find_bit.o has no stack canary check"
fi
finish bench
