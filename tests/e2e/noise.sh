#!/bin/bash
# noise.sh [KSCEN] - end-to-end tests of the sentinels and the noise
# policies (docs/noise.md), with disturbances planted by the test hook
# KSCEN_TEST_DISTURB=P,CPUS (spinners outside the sample's cgroup while it
# runs), and of `kscen system check`. A planted sample is disturbed
# whatever else the machine does; an unplanted one may be too on a busy
# machine, so nothing here asserts that a sample was quiet.
. "$(dirname "$0")/lib.sh"

nz=$tmp/noise
mkdir -p "$nz"

# json FILE PYTHON: run PYTHON with r = the JSON report of result FILE
json() {
	"$kscen" report --format json "$1" >"$nz/json" 2>"$nz/jerr" &&
		/usr/bin/python3 - "$nz/json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
jobs = {j["id"]: j for j in r["jobs"]}
exec(sys.argv[2])
PY
}

# ---- every sample read and judged; planted ones flagged, with the cause --
run env KSCEN_TEST_DISTURB=1,2 "$kscen" run -q -o "$res" --noise flag \
	--filter 'cpu/*' $fx/e2e/noise.yaml
expect_rc noise_planted_run 0
f=$(ls "$res"/e2e-noise/*.yaml 2>/dev/null | head -1)
if [ -n "$f" ] && json "$f" '
assert r["test_hooks"] == "KSCEN_TEST_DISTURB=1,2", r["test_hooks"]
n = jobs["cpu/threads=1,futexes=16,runtime=100ms"]["noise"]
assert n["policy"] == "flag" and n["dropped"] == 0, n
assert len(n["samples"]) == 3 and n["disturbed"] == 3, n
for s in n["samples"]:
    assert s["planted"] and s["disturbed"] and not s["dropped"], s
    assert "other load" in s["cause"] and s["other"] >= 0.25, s
    assert s["seconds"] > 0 and s["vcsw"] >= 0 and s["ivcsw"] >= 0, s
    assert s["irq"] >= 0 and s["softirq"] >= 0 and s["steal"] >= 0, s
    assert s["lost"] is not None and 0 <= s["lost"] <= 100, s
assert [s["round"] for s in n["samples"]] == [1, 2, 3], n
assert [s["value"] for s in n["samples"]] == jobs["cpu/threads=1,futexes=16,runtime=100ms"]["metrics"][0]["samples"]
'; then pass noise_planted_samples_flagged_with_cause
else fail noise_planted_samples_flagged_with_cause "$(cat "$nz/jerr" "$tmp/err"; head -c 600 "$nz/json")"; fi
grep -q '^     3 of 3 samples disturbed (.*other load .* CPU.*), kept (noise: flag)$' "$tmp/out" &&
	grep -q '^# noise: 3 of 3 samples disturbed (.*other load up to .* CPU.*) in 1 of 1 jobs, 0 set aside (noise: flag)$' "$tmp/out" &&
	pass noise_report_says_how_many_and_why || fail noise_report_says_how_many_and_why "$(cat "$tmp/out")"
run "$kscen" report --format mail "$f"
grep -q '^noise: 3 of 3 samples disturbed (.*other load up to' "$tmp/out" &&
	! awk 'length > 72 && !/^  kscen rerun /' "$tmp/out" | grep -q . &&
	pass noise_mail_one_line_per_run || fail noise_mail_one_line_per_run "$(cat "$tmp/out")"
run "$kscen" report --format csv "$f"
head -1 "$tmp/out" | grep -q ',noise_policy,noise_disturbed,noise_dropped,' &&
	grep -q ',flag,3,0,' "$tmp/out" &&
	pass noise_csv_counts || fail noise_csv_counts "$(cat "$tmp/out")"

# a stored run's lines, exactly (tests/fixtures/results/noise.yaml)
run "$kscen" report $fx/results/noise.yaml
grep -qx '     6 of 6 samples disturbed (other load up to 2.0 CPU), 3 retaken: 3 kept, 3 of them disturbed (noise: retake)' "$tmp/out" &&
	grep -qx '# noise: 6 of 6 samples disturbed (other load up to 2.0 CPU) in 1 of 1 jobs, 3 set aside (noise: retake)' "$tmp/out" &&
	grep -qx '# system check: load 28.34' "$tmp/out" &&
	pass noise_stored_run_report_lines || fail noise_stored_run_report_lines "$(cat "$tmp/out" "$tmp/err")"
run "$kscen" report --format markdown $fx/results/noise.yaml
grep -qx 'Noise: 6 of 6 samples disturbed (other load up to 2.0 CPU) in 1 of 1 jobs, 3 set aside (noise: retake).' "$tmp/out" &&
	pass noise_markdown_one_line_per_run || fail noise_markdown_one_line_per_run "$(cat "$tmp/out" "$tmp/err")"

# ---- the scenario's policy, a job's own, and --noise over both -----------
rm -rf "$res"
run env KSCEN_TEST_DISTURB=1,2 "$kscen" run -q -o "$res" $fx/e2e/noise.yaml
expect_rc noise_policies_run 0
f=$(ls "$res"/e2e-noise/*.yaml 2>/dev/null | head -1)
# retake: every sample is disturbed, so each is taken again while the
# job's retakes last (as many as its samples, 3 a sample at most): round
# 1 three times, then kept; rounds 2 and 3 kept, still disturbed
if [ -n "$f" ] && json "$f" '
n = jobs["cpu/threads=1,futexes=16,runtime=100ms"]["noise"]
assert n["policy"] == "retake", n
assert [(s["round"], s["dropped"]) for s in n["samples"]] == \
    [(1, True), (1, True), (1, True), (1, False), (2, False), (3, False)], n
kept = [s["value"] for s in n["samples"] if not s["dropped"]]
assert kept == jobs["cpu/threads=1,futexes=16,runtime=100ms"]["metrics"][0]["samples"], kept
d = jobs["dropped/threads=1,futexes=16,runtime=100ms"]
assert d["noise"]["policy"] == "drop" and d["noise"]["dropped"] == 3, d["noise"]
assert d["metrics"][0]["samples"] == [], d["metrics"][0]
'; then pass noise_retake_and_drop_keep_what_they_say
else fail noise_retake_and_drop_keep_what_they_say "$(cat "$nz/jerr" "$tmp/err"; head -c 900 "$nz/json")"; fi
grep -q '3 retaken: 3 kept, 3 of them disturbed (noise: retake)$' "$tmp/out" &&
	grep -q '3 set aside: 0 kept (noise: drop)$' "$tmp/out" &&
	pass noise_report_says_what_policy_kept || fail noise_report_says_what_policy_kept "$(cat "$tmp/out")"
rm -rf "$res"
run env KSCEN_TEST_DISTURB=1,2 "$kscen" run -q --no-save --format json -r 1 \
	--noise flag $fx/e2e/noise.yaml
[ $rc = 0 ] && /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert [j["noise"]["policy"] for j in r["jobs"]] == ["flag", "flag"], r["jobs"]
assert all(len(j["metrics"][0]["samples"]) == 1 for j in r["jobs"])
' "$tmp/out" && pass noise_option_overrides_scenario_and_job ||
	fail noise_option_overrides_scenario_and_job "rc=$rc $(cat "$tmp/err")"
run "$kscen" run -q --no-save --noise sometimes $fx/e2e/noise.yaml
[ $rc = 2 ] && grep -q "noise: 'sometimes' is not flag, retake or drop" "$tmp/err" &&
	pass noise_option_bad_value_exit_2 || fail noise_option_bad_value_exit_2 "rc=$rc $(cat "$tmp/err")"
run env KSCEN_TEST_DISTURB=2 "$kscen" run -q --no-save -r 1 --filter 'cpu/*' $fx/e2e/noise.yaml
[ $rc = 0 ] && grep -q 'KSCEN_TEST_DISTURB=2: expected P\[,CPUS\[,SEED\]\]' "$tmp/err" &&
	pass noise_hook_bad_value_plants_nothing || fail noise_hook_bad_value_plants_nothing "rc=$rc $(cat "$tmp/err")"

# ---- a resumed run judges the samples it replays as they were judged ------
rm -rf "$res"
cat >"$nz/slow.yaml" <<'YAML'
scenario: noise-slow
repeat: 3
warmup: 0
jobs:
  - name: s
    workload: exec
    params: {command: "sleep 0.05"}
YAML
KSCEN_TEST_DISTURB=1,1 "$kscen" run -q -o "$res" --compare none --noise retake \
	"$nz/slow.yaml" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do
	[ "$(cat "$res"/noise-slow/*.journal 2>/dev/null | grep -c '^s ')" -ge 2 ] && break
	sleep 0.05
done
{ kill -9 $pid; wait $pid; } 2>/dev/null
journal=$(ls "$res"/noise-slow/*.journal 2>/dev/null)
first=$(grep '^s 0 0 ' "$journal" 2>/dev/null | head -1 | cut -d' ' -f6)
run env KSCEN_TEST_DISTURB=1,1 "$kscen" run -q --resume "$journal"
f=$(ls "$res"/noise-slow/*.yaml 2>/dev/null | head -1)
if [ $rc = 0 ] && [ -n "$first" ] && [ -n "$f" ] && json "$f" "
n = jobs['s/command=sleep 0.05']['noise']
assert n['policy'] == 'retake', n
assert [(s['round'], s['dropped'], s['planted']) for s in n['samples']] == \
    [(1, True, True), (1, True, True), (1, True, True), (1, False, True),
     (2, False, True), (3, False, True)], n
assert n['samples'][0]['value'] == float.fromhex('$first'), n['samples'][0]
"; then pass noise_resume_replays_verdicts
else fail noise_resume_replays_verdicts "rc=$rc first=$first $(cat "$tmp/err" "$nz/jerr"; head -c 600 "$nz/json")"; fi

# ---- kscen system check, and what run stores of it -----------------------
run "$kscen" system check --watch 100
if [ $rc = 0 ] && [ "$(grep -cE '^(OFF|ok|--) ' "$tmp/out")" = 10 ] &&
   [ "$(grep -c '^     to change: ' "$tmp/out")" = 10 ] &&
   grep -qE '^(OFF|ok|--) +steal: ' "$tmp/out" && grep -q '^off: ' "$tmp/out"; then
	pass system_check_lists_each_with_its_fix
else fail system_check_lists_each_with_its_fix "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
# what is off but the load, which is of its own moment: "" for nothing
but_load() { sed 's/^nothing off$//; s/\(, \)\{0,1\}load [0-9.]*//; s/^, //'; }
off=$(sed -n 's/^off: //p' "$tmp/out" | but_load)
run "$kscen" system frobnicate
[ $rc = 2 ] && pass system_unknown_subcommand_exit_2 || fail system_unknown_subcommand_exit_2 "rc=$rc"
rm -rf "$res"
run "$kscen" run -o "$res" -r 1 --filter 'cpu/*' $fx/e2e/noise.yaml
f=$(ls "$res"/e2e-noise/*.yaml 2>/dev/null | head -1)
stored=$(sed -n 's/^system_check: //p' "$f" 2>/dev/null)
# the settings agree with system check's
if [ $rc = 0 ] && [ -n "$stored" ] && grep -q "^# system check: $stored\$" "$tmp/out" &&
   { [ "$stored" = "nothing off" ] || grep -q "^kscen: system check: $stored (" "$tmp/err"; } &&
   [ "$(echo "$stored" | but_load)" = "$off" ]; then
	pass run_stores_and_prints_what_is_off
else fail run_stores_and_prints_what_is_off "stored '$stored', check '$off': $(head -3 "$tmp/err")"; fi

finish noise
