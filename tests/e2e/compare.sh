#!/bin/bash
# compare.sh [KSCEN] - end-to-end tests: statistics (the gate, compare's table, repeat: auto) and comparisons between runs (references, history, labels, bisect, calibrate).
. "$(dirname "$0")/lib.sh"

# A run of another scenario, for compare_other_scenario_gate_exit_2.
"$kscen" run -q -o "$res" $fx/e2e/tiny.yaml >/dev/null 2>&1
file=$(ls "$res"/e2e-tiny/*.yaml 2>/dev/null | head -n1)

# ---- statistics: the gate, compare's table, repeat: auto ---------------------
# The planted jobs print $E2E_COST plus noise (fixtures/e2e/gate.yaml): 100,
# then 200. Printed, not timed, so a busy machine cannot flip these checks;
# the gate at 50% is far from both +100% and the A/A noise (under 10%).
# Three runs at 100 first: the history each job's run-to-run drift comes from.
E2E_COST=100 run "$kscen" run -q -o "$res" $fx/e2e/gate.yaml
expect_rc gate_first_run_exit_0 0
for i in 2 3; do sleep 1; E2E_COST=100 "$kscen" run -q -o "$res" $fx/e2e/gate.yaml >"$tmp/out" 2>&1; done
grep -q '±0\.0%' "$tmp/out" && fail history_never_prints_zero_drift "$(grep '±0.0%' "$tmp/out")" ||
	pass history_never_prints_zero_drift
g1=$(ls "$res"/e2e-gate/*.yaml 2>/dev/null | tail -n1)
for key in cv ci_low ci_high outliers bimodal governor smt mitigations thp isolcpus \
	   nohz_full loadavg; do
	grep -Eq "^ *(- )?$key:" "$g1" && pass "result_has_$key" || fail "result_has_$key" "missing in $g1"
done
new_second
E2E_COST=200 run "$kscen" run -q -o "$res" --gate 50 $fx/e2e/gate.yaml
if [ $rc = 1 ] && grep -q '^# gate 50%: FAILED' "$tmp/out" &&
   grep -q '^#   planted/command=echo v: .*: +[0-9.]*% \[' "$tmp/out" &&
   ! grep -q '^#   steady' "$tmp/out"; then pass gate_trips_on_planted_slowdown; else
	fail gate_trips_on_planted_slowdown "rc=$rc $(tail -n 8 "$tmp/out")"; fi
g2=$(ls "$res"/e2e-gate/*.yaml | tail -n1)
run "$kscen" compare --gate 50 "$g1" "$g2"
if [ $rc = 1 ] && grep -q '^## planted: usecs (value)' "$tmp/out" &&
   grep -Eq '^planted/command=echo v: .* 1[01][0-9]\.?[0-9]* \(3 runs\) .* worse \(p[<=]0.0[0-9]* q[<=]0.0[0-9]*; run-to-run ±[0-9.]+%, 3 runs\)' "$tmp/out" &&
   grep -q '^geomean ' "$tmp/out" && grep -q '^## steady' "$tmp/out"; then
	pass compare_table_and_gate; else fail compare_table_and_gate "rc=$rc $(cat "$tmp/out")"; fi
run "$kscen" compare "$g1" "$g2" --gate 50
[ $rc = 1 ] && grep -q '^# gate 50%: FAILED' "$tmp/out" && pass compare_gate_after_arguments ||
	fail compare_gate_after_arguments "rc=$rc $(cat "$tmp/err")"
# every format through a real parser: compare NEW against OLD
for f in json csv markdown mail; do "$kscen" compare --format $f "$g1" "$g2" >"$tmp/cmp.$f" 2>"$tmp/err"; done
if /usr/bin/python3 - "$tmp" <<'PY'
import csv, json, re, sys
d = sys.argv[1]
j = json.load(open(d + "/cmp.json"))
planted = [x for x in j["jobs"] if x["name"] == "planted"]
assert planted and all(x["deltas"]["last"]["verdict"] == "worse" for x in planted), planted
# every comparison carries its q-value and where its allowance came from
assert all(0 <= x["deltas"]["last"]["q"] <= 0.05 and x["deltas"]["last"]["drift"] == "own"
           and x["deltas"]["last"]["history_runs"] == 3 for x in planted), planted
rows = list(csv.DictReader(open(d + "/cmp.csv", newline="")))
prim = [r for r in rows if r["name"] == "planted" and r["metric"] == "value"]
assert prim and all(r["vs_ref_verdict"] == "worse" and float(r["vs_ref_ratio"]) > 1.5 for r in prim), prim
assert all(0 <= float(r["vs_ref_q"]) <= 0.05 for r in prim), prim
assert "param.command" in rows[0] and all(r["param.command"] for r in rows), rows[0]
# markdown: every table row has as many cells as its header
lines = open(d + "/cmp.markdown").read().split("\n")
tables = 0
for i, l in enumerate(lines):
    if l.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
        n = l.count(" | ") + 1
        k = i + 2
        while k < len(lines) and lines[k].startswith("|"):
            assert lines[k].count(" | ") + 1 == n, (l, lines[k])
            k += 1
        tables += 1
assert tables == 2, tables
mail = open(d + "/cmp.mail", encoding="utf-8").read().split("\n")
# every line within 72 columns but the reproduce command, never cut
assert all((len(l) <= 72 or l.startswith("  kscen rerun ")) and not l.endswith(" ")
           for l in mail), mail
# old | new | change: each median with its CI, the change theirs
i = mail.index("planted (exec): usecs (value), lower is better, n=5, 93.8% CI")
assert mail[i + 2].split()[-3:] == ["old", "new", "change"], mail[i + 2]
import re
for l in mail[i + 3:i + 5]:
    # old: the level of the old run's history, "(3 runs)" in place of a CI
    # (digits to where each CI is: a narrow one adds a decimal, "105.0")
    m = re.search(r"  (\d+(?:\.\d+)?) \(3 runs\)  (\d+(?:\.\d+)?) ±\d+%  +\+(\d+(\.\d)?)%$", l)
    assert m, l
    o, n, c = float(m[1]), float(m[2]), float(m[3])
    # +95.2%; from +100% whole percents; the printed level is rounded
    assert 200 <= n <= 210 and 100 <= o <= 110 and \
        abs(100 * (n / o - 1) - c) < 100 * (0.5 / o + 0.5 / n) * n / o + 0.51, l
assert mail[i + 5].split()[0] == "geomean", mail[i + 5]
assert "3 jobs compared, 0 only in old, 0 not compared" in mail
PY
then pass compare_formats_parse; else fail compare_formats_parse "$(cat "$tmp/err")"; fi
run "$kscen" compare --gate 50 "$g1" "$g1"
[ $rc = 0 ] && [ "$(grep -Ec ' ~ \(p=[0-9.]+ q=[0-9.]+; run-to-run ±[0-9.]+%, 3 runs\)$' "$tmp/out")" = 3 ] &&
	grep -q '^# gate 50%: passed (3 jobs checked' "$tmp/out" && pass compare_same_run_is_all_tilde ||
	fail compare_same_run_is_all_tilde "rc=$rc $(cat "$tmp/out")"
new_second
E2E_COST=100 run "$kscen" run -q -o "$res" --compare "$g1" --gate 50 $fx/e2e/gate.yaml
[ $rc = 0 ] && grep -q '^# gate 50%: passed' "$tmp/out" && pass gate_aa_does_not_trip ||
	fail gate_aa_does_not_trip "rc=$rc $(tail -n 8 "$tmp/out")"
for i in 1 2 3; do
	E2E_COST=100 run "$kscen" run -q -o "$res" $fx/e2e/gate-fail.yaml
	new_second
done
E2E_COST=200 run "$kscen" run -q -o "$res" --gate 50 $fx/e2e/gate-fail.yaml
[ $rc = 3 ] && grep -q '^# gate 50%: FAILED' "$tmp/out" && pass failed_job_wins_over_gate ||
	fail failed_job_wins_over_gate "rc=$rc $(tail -n 5 "$tmp/out")"
run "$kscen" run -q --no-save --gate 5x $fx/e2e/gate.yaml
expect_rc gate_bad_value_exit_2 2
run "$kscen" run -q --no-save --until-ci 0 $fx/e2e/gate.yaml
expect_rc until_ci_bad_value_exit_2 2

run "$kscen" run -q -o "$res" $fx/e2e/auto.yaml
if [ $rc = 0 ] && grep -q 'converged after 6)' "$tmp/out" &&
   grep -Eq 'did not converge: ±[0-9.]+% after max 8\)' "$tmp/out"; then
	pass repeat_auto_reports_convergence; else fail repeat_auto_reports_convergence "$(cat "$tmp/out")"; fi
"$kscen" report --format json "$res/e2e-auto" >"$tmp/json" 2>"$tmp/err"
if /usr/bin/python3 - "$tmp/json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
jobs = {j["name"]: j for j in r["jobs"]}
assert r["until_ci"] == 10 and r["max_repeat"] == 8, r
s, n = jobs["steady"], jobs["noisy"]
assert s["converged"] is True and len(s["metrics"][0]["samples"]) == 6, s
assert n["converged"] is False and len(n["metrics"][0]["samples"]) == 8, n
PY
then pass repeat_auto_stored; else fail repeat_auto_stored "$(cat "$tmp/err")"; fi
run "$kscen" run -q --no-save --until-ci 50% -r 3 --max-repeat 7 $fx/e2e/tiny.yaml
[ $rc = 0 ] && grep -q 'auto: until ±50% or 7' "$tmp/out" && pass until_ci_option ||
	fail until_ci_option "rc=$rc $(head -n 3 "$tmp/out")"

# ---- comparisons between runs: references, history, labels, bisect -------------
# Printed values (gate.yaml), so the verdicts do not depend on the machine.
cr=$tmp/cmp
run "$kscen" plan $fx/good/id-escape.yaml
[ $rc = 0 ] && grep -qx 'a/command=true%2Cmetric_name=x' "$tmp/out" &&
	grep -qx 'a/command=true,metric_name=x' "$tmp/out" && grep -qx 'a/command=100%25' "$tmp/out" &&
	[ "$(grep -c '^a/' "$tmp/out")" = "$(grep '^a/' "$tmp/out" | sort -u | wc -l)" ] &&
	pass ids_escape_separators || fail ids_escape_separators "$(cat "$tmp/out")"
run "$kscen" run -q -o "$cr" --filter 'nothing*' $fx/e2e/gate.yaml
[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "kscen run: --filter 'nothing*' matches no job id of $fx/e2e/gate.yaml (a glob matches whole ids: try --filter '*nothing*')" ] &&
	[ ! -d "$cr/e2e-gate" ] &&
	pass filter_matching_nothing_exit_2 || fail filter_matching_nothing_exit_2 "rc=$rc $(cat "$tmp/err")"
run "$kscen" run -q -o "$cr" --compare "$tmp/no-such.yaml" $fx/e2e/gate.yaml
[ $rc = 2 ] && [ ! -d "$cr/e2e-gate" ] && pass compare_missing_path_exit_2_before_running ||
	fail compare_missing_path_exit_2_before_running "rc=$rc"
echo 'not: [a kscen result' >"$tmp/garbage.yaml"
run "$kscen" run -q -o "$cr" --compare "$tmp/garbage.yaml" $fx/e2e/gate.yaml
[ $rc = 2 ] && [ ! -d "$cr/e2e-gate" ] && pass compare_unparseable_path_exit_2_before_running ||
	fail compare_unparseable_path_exit_2_before_running "rc=$rc"
run "$kscen" run -q -o "$cr" --compare label:nope $fx/e2e/gate.yaml
[ $rc = 2 ] && grep -q "no complete run labelled 'nope'" "$tmp/err" &&
	pass compare_unknown_label_exit_2 || fail compare_unknown_label_exit_2 "rc=$rc $(cat "$tmp/err")"
E2E_COST=100 run "$kscen" run -q -o "$cr" --gate 5 $fx/e2e/gate.yaml
[ $rc = 2 ] && grep -q '^gate: nothing compared' "$tmp/out" && [ "$(ls "$cr"/e2e-gate | wc -l)" = 1 ] &&
	pass gate_with_nothing_to_compare_exit_2 || fail gate_with_nothing_to_compare_exit_2 "rc=$rc $(tail -n 3 "$tmp/out")"
run "$kscen" run -q --no-save -o "$cr" --gate 5 --compare none $fx/e2e/gate.yaml
expect_rc gate_with_compare_none_exit_2 2
first=$(ls "$cr"/e2e-gate/*.yaml | head -n1)
run "$kscen" compare --gate 5 "$first" "$file"
[ $rc = 2 ] && grep -q '^# different scenarios' "$tmp/out" && grep -q '^gate: nothing compared' "$tmp/out" &&
	pass compare_other_scenario_gate_exit_2 || fail compare_other_scenario_gate_exit_2 "rc=$rc $(cat "$tmp/out")"
# A filtered run and a partial one are never references: skipped, named.
new_second
E2E_COST=300 run "$kscen" run -q -o "$cr" --filter 'steady*' $fx/e2e/gate.yaml
sed 's/^partial: false/partial: true/' "$first" >"$cr/e2e-gate/20991231T235959Z-vm.yaml"
new_second
E2E_COST=100 run "$kscen" run -q -o "$cr" $fx/e2e/gate.yaml
if [ $rc = 0 ] && grep -q 'skipping stored run .*: filtered' "$tmp/err" &&
   grep -q 'skipping stored run .*20991231T235959Z-vm.yaml: partial' "$tmp/err" &&
   grep -q "^# reference: .*$(basename "$first")" "$tmp/out" &&
   grep -q '^# environment: the same as the reference' "$tmp/out" &&
   grep -q 'vs last run: .* cannot tell (no run-to-run estimate, 1 run)$' "$tmp/out"; then
	pass reference_skips_filtered_and_partial_runs
else fail reference_skips_filtered_and_partial_runs "$(cat "$tmp/err" "$tmp/out")"; fi
rm -f "$cr/e2e-gate/20991231T235959Z-vm.yaml"
# With 3 earlier runs the verdict includes the run-to-run drift.
for i in 1 2; do
	new_second
	E2E_COST=100 run "$kscen" run -q -o "$cr" $fx/e2e/gate.yaml
done
grep -Eq 'vs last run: .* (~|worse|better) \(p[=<][0-9.]+ q[=<][0-9.]+; run-to-run ±[0-9.]+%, 3 runs\)' "$tmp/out" &&
	pass history_widens_between_run_verdict || fail history_widens_between_run_verdict "$(cat "$tmp/out")"
last_file=$(ls "$cr"/e2e-gate/*.yaml | tail -n1)
cp "$tmp/out" "$tmp/run.txt"
"$kscen" report "$last_file" >"$tmp/rep.txt" 2>/dev/null
cmp -s "$tmp/run.txt" "$tmp/rep.txt" && grep -q 'run-to-run' "$tmp/rep.txt" &&
	pass report_shows_what_run_showed ||
	fail report_shows_what_run_showed "$(diff "$tmp/run.txt" "$tmp/rep.txt" | head -20)"
# A run stored with a relative -o, re-rendered from another directory: the
# same references, the same history, the same report.
gate_yaml=$(realpath $fx/e2e/gate.yaml)
(cd "$tmp" && for i in 1 2 3 4; do
	E2E_COST=100 "$kscen" run -q -o relres "$gate_yaml" >"$tmp/rel.out" 2>/dev/null; new_second
done)
cp "$tmp/rel.out" "$tmp/rel.txt"
"$kscen" report "$tmp/relres/e2e-gate" >"$tmp/relrep.txt" 2>"$tmp/err"
cmp -s "$tmp/rel.txt" "$tmp/relrep.txt" && grep -q 'run-to-run' "$tmp/relrep.txt" && [ ! -s "$tmp/err" ] &&
	pass report_from_another_directory_shows_what_run_showed ||
	fail report_from_another_directory_shows_what_run_showed \
		"$(cat "$tmp/err"; diff "$tmp/rel.txt" "$tmp/relrep.txt" | head -20)"
new_second
E2E_COST=100 run "$kscen" run -q -o "$cr" --label v1 $fx/e2e/gate.yaml
ls "$cr"/e2e-gate/*+v1.yaml >/dev/null 2>&1 && grep -q '^# label: v1' "$tmp/out" &&
	pass label_in_file_name || fail label_in_file_name "$(ls "$cr"/e2e-gate)"
# --bisect: 0 good, 1 bad, 125 cannot tell; never 2.
E2E_COST=100 run "$kscen" run -q --no-save -o "$cr" --bisect --gate 50 --compare label:v1 $fx/e2e/gate.yaml
[ $rc = 0 ] && grep -q '^bisect: good' "$tmp/out" && pass bisect_good_exit_0 || fail bisect_good_exit_0 "rc=$rc"
E2E_COST=200 run "$kscen" run -q --no-save -o "$cr" --bisect --gate 50 --compare label:v1 $fx/e2e/gate.yaml
[ $rc = 1 ] && grep -q '^bisect: bad' "$tmp/out" && pass bisect_bad_exit_1 || fail bisect_bad_exit_1 "rc=$rc"
# ... and every exit says its verdict last (docs/ab-and-bisect.md)
run "$kscen" run -q --no-save -o "$tmp/empty-results" --bisect $fx/e2e/gate.yaml
[ $rc = 125 ] && [ "$(tail -n1 "$tmp/out")" = "bisect: cannot tell (skip)" ] &&
	pass bisect_no_reference_exit_125 || fail bisect_no_reference_exit_125 "rc=$rc $(tail -n1 "$tmp/out")"
run "$kscen" run -q --no-save -o "$tmp/empty-results" --bisect --compare label:good $fx/e2e/gate.yaml
[ $rc = 125 ] && [ "$(cat "$tmp/out")" = "bisect: cannot tell (skip)" ] &&
	pass bisect_no_label_says_skip || fail bisect_no_label_says_skip "rc=$rc [$(cat "$tmp/out")]"
run "$kscen" run -q --no-save --bisect -r 3x $fx/e2e/gate.yaml
[ $rc = 125 ] && [ "$(cat "$tmp/out")" = "bisect: cannot tell (skip)" ] &&
	pass bisect_bad_usage_exit_125 || fail bisect_bad_usage_exit_125 "rc=$rc [$(cat "$tmp/out")]"
run "$kscen" run -q --no-save -o "$res" --bisect $fx/e2e/crash.yaml
[ $rc = 125 ] && [ "$(tail -n1 "$tmp/out")" = "bisect: cannot tell (skip)" ] &&
	pass bisect_failed_job_exit_125 || fail bisect_failed_job_exit_125 "rc=$rc"
new_second
E2E_COST=200 run "$kscen" run -q -o "$cr" --label v2 --compare label:v1 $fx/e2e/gate.yaml
grep -q '^     vs v1: ' "$tmp/out" && pass report_names_label || fail report_names_label "$(cat "$tmp/out")"
run "$kscen" compare --gate 50 label:v1 label:v2 "$cr/e2e-gate"
[ $rc = 1 ] && grep -q '^# old: .*label v1' "$tmp/out" && grep -q '^# new: .*label v2' "$tmp/out" &&
	pass compare_by_labels || fail compare_by_labels "rc=$rc $(cat "$tmp/out" "$tmp/err")"
run "$kscen" history -o "$cr" $fx/e2e/gate.yaml
[ $rc = 0 ] && grep -Eq '^[0-9T:-]+Z +v2 +' "$tmp/out" && grep -q ' filtered$' "$tmp/out" &&
	pass history_lists_runs || fail history_lists_runs "rc=$rc $(cat "$tmp/out" "$tmp/err")"
run "$kscen" history --job 'planted/*' "$cr/e2e-gate"
[ $rc = 0 ] && grep -q '^[0-9T:-]*Z *v2 .*<- planted/.* worse' "$tmp/out" &&
	pass history_job_marks_verdict_changes || fail history_job_marks_verdict_changes "rc=$rc $(cat "$tmp/out")"
# medians scaled with their unit in aligned columns: 2xx usecs, ±CI, n
grep -q '^# medians with the CI of each (n=5, 93.8% CI)$' "$tmp/out" &&
grep -Eq '^[0-9T:-]+Z  v2 +2[01][0-9](\.[0-9]+)? usecs +±[0-9]+%  5  <- planted/' "$tmp/out" &&
[ "$(awk '/^[0-9]/ { print index($0, " usecs ") }' "$tmp/out" | sort -u | wc -l)" = 1 ] &&
	pass history_job_scaled_aligned || fail history_job_scaled_aligned "$(cat "$tmp/out")"
# three runs side by side, each against the first (mmtests' compare-kernels)
run "$kscen" compare --format mail "$g1" "$g2" "$g1"
if [ $rc = 0 ] && grep -Eq '^A: .*$' "$tmp/out" && grep -Eq '^C: .*$' "$tmp/out" &&
   /usr/bin/python3 - "$tmp/out" <<'PY'
import re, sys
mail = open(sys.argv[1], encoding="utf-8").read().split("\n")
assert all(len(l) <= 72 and not l.endswith(" ") for l in mail), mail
i = mail.index("planted (exec): usecs (value), lower is better, n=5, 93.8% CI")
assert mail[i + 2].split()[-5:] == ["A", "B", "change", "C", "change"], mail[i + 2]
# B doubled, C is A again: ~ (the parameters on lines of their own)
rows = [l for l in mail[i:i + 9] if re.match(
    r"^  (1\d\d(\.\d+)?) \(3 runs\)  +2\d\d(\.\d+)? ±\d+%  +\+\d+(\.\d)?%  +(1\d\d(\.\d+)?) ±\d+%  +~$", l)]
assert len(rows) == 2, mail[i:i + 9]
assert "6 changes against A, 0 jobs missing, 0 not compared" in mail, mail[-3:]
PY
then pass compare_three_runs_mail; else fail compare_three_runs_mail "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
run "$kscen" history "$tmp/nothing-here"
expect_rc history_no_runs_exit_2 2
# an empty selection: exit 2 and one message, from history, plot and plan alike
run "$kscen" history --job 'nomatch*' "$cr/e2e-gate"
[ $rc = 2 ] && [ ! -s "$tmp/out" ] &&
	[ "$(tail -n1 "$tmp/err")" = "kscen history: --job 'nomatch*' matches no job id of the runs in $cr/e2e-gate (a glob matches whole ids: try --job '*nomatch*')" ] &&
	pass history_job_matching_nothing_exit_2 || fail history_job_matching_nothing_exit_2 "rc=$rc $(cat "$tmp/out" "$tmp/err")"
run "$kscen" plot --history 'planted' "$cr/e2e-gate" -o "$tmp/none.svg"
[ $rc = 2 ] && [ ! -e "$tmp/none.svg" ] &&
	[ "$(tail -n1 "$tmp/err")" = "kscen plot: --history 'planted' matches no job id of the runs in $cr/e2e-gate (a glob matches whole ids: try --history '*planted*')" ] &&
	pass plot_history_matching_nothing_exit_2 || fail plot_history_matching_nothing_exit_2 "rc=$rc $(cat "$tmp/err")"
run "$kscen" plan --filter '*nothing*' $fx/e2e/gate.yaml
[ $rc = 2 ] && [ ! -s "$tmp/out" ] &&
	[ "$(cat "$tmp/err")" = "kscen plan: --filter '*nothing*' matches no job id of $fx/e2e/gate.yaml (a glob matches whole ids)" ] &&
	pass plan_filter_matching_nothing_exit_2 || fail plan_filter_matching_nothing_exit_2 "rc=$rc $(cat "$tmp/out" "$tmp/err")"
run "$kscen" plan --shard 1/2 --filter 'planted' $fx/e2e/gate.yaml
[ $rc = 2 ] && grep -q "^kscen plan: --filter 'planted' matches no job id" "$tmp/err" &&
	pass plan_shard_filter_matching_nothing_exit_2 || fail plan_shard_filter_matching_nothing_exit_2 "rc=$rc $(cat "$tmp/out" "$tmp/err")"
run "$kscen" calibrate -q -n 2 -r 6 -o "$tmp/cal" $fx/e2e/gate.yaml
if [ $rc = 0 ] && [ "$(ls "$tmp/cal/e2e-gate" | wc -l)" = 2 ] &&
   grep -q '^   2     too few' "$tmp/out"; then pass calibrate_seeds_history_too_few
else fail calibrate_seeds_history_too_few "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
new_second
run "$kscen" calibrate -q -n 1 -r 6 -o "$tmp/cal" $fx/e2e/gate.yaml
grep -Eq '^   3 +±[0-9.]+% +[0-9.]+% +[0-9.]+%  steady/' "$tmp/out" && pass calibrate_prints_drift ||
	fail calibrate_prints_drift "rc=$rc $(cat "$tmp/out" "$tmp/err")"
# ---- verdicts between runs that hold: the gate stays awake, cannot tell, q-values --
# A CI that saves every run and compares with label:good: four runs at 100,
# the last one "good", then regressed runs at 200, each saved. They are
# after the reference, so never its drift: each one trips (before: from the
# second on, +100% read as run-to-run noise and the gate passed).
aw=$tmp/awake
for i in 1 2 3 4; do
	lbl=(); [ $i = 4 ] && lbl=(--label good)
	E2E_COST=100 "$kscen" run -q -o "$aw" "${lbl[@]}" $fx/e2e/gate.yaml >/dev/null 2>&1
	sleep 1
done
codes=""
for i in 1 2 3 4; do
	E2E_COST=200 run "$kscen" run -q -o "$aw" --bisect --compare label:good $fx/e2e/gate.yaml
	codes="$codes$rc"
	sleep 1
done
[ "$codes" = 1111 ] && grep -q '^bisect: bad' "$tmp/out" &&
	grep -Eq 'vs good: \+(8[3-9]|9[0-9]|10[0-9])\.[0-9]% \[.*\] worse \(p[<=]0.0[0-9]* q[<=]0.0[0-9]*; run-to-run ±[0-9.]+%, 4 runs\)' "$tmp/out" &&
	pass gate_stays_awake_after_saved_regressions ||
	fail gate_stays_awake_after_saved_regressions "exit codes $codes $(grep 'vs good' "$tmp/out")"
# The level shift is a change point of the history, at the first run at 200.
# Samples are 100..109 before and 200..209 after, so any median or level
# moves by 200/109-1 = +83.5% to 209/100-1 = +109.0% (a band of +90% or
# more failed once in CI at +89.3%).
first_bad=$(ls "$aw"/e2e-gate/*.yaml | sed -n 5p)
first_bad_at=$(sed -n "s/^started: '\(.\{16\}\).*/\1/p" "$first_bad")
run "$kscen" history --changes --job 'planted/*' "$aw/e2e-gate"
[ $rc = 0 ] && [ "$(grep -Ec "^${first_bad_at}Z  -  .* \+(8[3-9]|9[0-9]|10[0-9])\.[0-9]% +0\.0[0-4][0-9]  planted/" "$tmp/out")" = 2 ] &&
	grep -q '^# 2 change points in 2 jobs$' "$tmp/out" && pass history_changes_finds_the_regression ||
	fail history_changes_finds_the_regression "rc=$rc first bad $first_bad_at $(cat "$tmp/out")"
# On q-values: the regression trips --gate-fdr, an A/A run does not.
E2E_COST=200 run "$kscen" run -q --no-save -o "$aw" --gate-fdr 0.05 --compare label:good $fx/e2e/gate.yaml
[ $rc = 1 ] && grep -q '^# gate q<=0.05: FAILED: worse with a q-value of at most 0.05:' "$tmp/out" &&
	pass gate_fdr_trips_on_regression || fail gate_fdr_trips_on_regression "rc=$rc $(tail -n 5 "$tmp/out")"
E2E_COST=100 run "$kscen" run -q --no-save -o "$aw" --gate-fdr 0.05 --compare label:good $fx/e2e/gate.yaml
[ $rc = 0 ] && grep -q '^# gate q<=0.05: passed' "$tmp/out" && pass gate_fdr_aa_passes ||
	fail gate_fdr_aa_passes "rc=$rc $(tail -n 5 "$tmp/out")"
run "$kscen" run -q --no-save -o "$aw" --gate-fdr 1.5 $fx/e2e/gate.yaml
[ $rc = 2 ] && grep -q "gate-fdr: '1.5' is not a q-value" "$tmp/err" && pass gate_fdr_bad_value_exit_2 ||
	fail gate_fdr_bad_value_exit_2 "rc=$rc $(cat "$tmp/err")"
# One earlier run and no pool: cannot tell, with how to get an estimate;
# the gate and --bisect say so with 125, never a guess.
ct=$tmp/cannot
E2E_COST=100 "$kscen" run -q -o "$ct" $fx/e2e/gate.yaml >/dev/null 2>&1
sleep 1
E2E_COST=200 run "$kscen" run -q --no-save -o "$ct" --gate 50 $fx/e2e/gate.yaml
[ $rc = 125 ] && grep -Eq 'vs last run: \+([89][0-9]|1[0-2][0-9])\.[0-9]% cannot tell \(no run-to-run estimate, 1 run\)$' "$tmp/out" &&
	grep -q '^#   get one, run `kscen calibrate`' "$tmp/out" &&
	grep -q '^# gate 50%: cannot tell: 3 of 3 jobs have no run-to-run estimate' "$tmp/out" &&
	pass gate_without_estimate_exit_125 || fail gate_without_estimate_exit_125 "rc=$rc $(tail -n 8 "$tmp/out")"
E2E_COST=200 run "$kscen" run -q --no-save -o "$ct" --bisect $fx/e2e/gate.yaml
[ $rc = 125 ] && grep -q '^bisect: cannot tell' "$tmp/out" && pass bisect_without_estimate_exit_125 ||
	fail bisect_without_estimate_exit_125 "rc=$rc"
E2E_COST=200 run "$kscen" run -q --no-save -o "$ct" --format mail $fx/e2e/gate.yaml
[ "$(grep -c '^  echo v: .* ?$' "$tmp/out")" = 2 ] && pass mail_marks_cannot_tell ||
	fail mail_marks_cannot_tell "$(cat "$tmp/out")"
# Three samples a job: no interval, no verdict; the mail says so in one line.
run "$kscen" run -q --no-save --compare none --format mail $fx/e2e/tiny.yaml
[ $rc = 0 ] && grep -qx 'Every change is ~: 3 samples a side are too few for a 95% CI of a change' "$tmp/out" &&
	grep -q 'n=3, 75% CI$' "$tmp/out" &&
	pass mail_too_few_samples_one_line || fail mail_too_few_samples_one_line "$(tail -n 12 "$tmp/out")"
# What calibrate records is the pool of a job with too short a history:
# another scenario, one earlier run, the same machine.
run "$kscen" calibrate -q -n 3 -r 6 -o "$ct" $fx/e2e/gate.yaml
if [ $rc = 0 ] && ls "$ct"/.calibration/*.yaml >/dev/null 2>&1 &&
   grep -Eq '^# pool: a run-to-run SD of [0-9.]+% over 3 jobs \([0-9]+ degrees of freedom\)' "$tmp/out"; then
	pass calibrate_records_pool
else fail calibrate_records_pool "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
"$kscen" run -q -o "$ct" $fx/e2e/tiny.yaml >/dev/null 2>&1
sleep 1
run "$kscen" run -q --no-save -o "$ct" $fx/e2e/tiny.yaml
[ $rc = 0 ] && [ "$(grep -Ec 'vs last run: .*run-to-run ±[0-9.]+% pooled over calibrated [0-9-]+; 1 run\)$' "$tmp/out")" = 3 ] &&
	pass pool_from_calibration_used || fail pool_from_calibration_used "$(grep 'vs last' "$tmp/out")"

# ---- plots through gnuplot: a sweep, two runs, one job over time -----------------
if ! why=$(need_tool gnuplot gnuplot-nox); then
	skip plots_sweep_compare_history "$why"
else
	"$kscen" plot "$g2" -o "$tmp/sweep.svg" 2>"$tmp/err" &&
	"$kscen" plot "$g1" "$g2" -o "$tmp/cmp.svg" 2>>"$tmp/err" &&
	"$kscen" plot --history 'planted/*' --all "$cr/e2e-gate" -o "$tmp/hist.png" 2>>"$tmp/err" &&
	"$kscen" plot --history 'planted/command=echo v: $((${E2E_COST:-1~aaa*' "$aw/e2e-gate" \
		-o "$tmp/changes.svg" 2>>"$tmp/err"
	rc=$?
	if [ $rc = 0 ] && /usr/bin/python3 - "$tmp" <<'PY'
import re, struct, sys
import xml.etree.ElementTree as E
d = sys.argv[1]
ns = "{http://www.w3.org/2000/svg}"
def texts(f):
    return ["".join(t.itertext()).strip() for t in E.parse(f).iter(ns + "text")]
sweep = texts(d + "/sweep.svg")
assert "planted" in sweep and "steady" in sweep and "usecs (value)" in sweep, sweep
# two series: the old run and the new one, each job on the axis
cmp = texts(d + "/cmp.svg")
assert any("median relative to the old run" in t for t in cmp), cmp
assert sum(1 for t in cmp if t.startswith("planted")) == 2 and "steady" in cmp, cmp
# the change point of the history, marked where it is, and the true coverage
ch = texts(d + "/changes.svg")
assert any(re.match(r"\+(8[3-9]|9[0-9]|10[0-9])\.[0-9]% p=0\.0", t) for t in ch), ch
assert any("93.8% CI" in t for t in ch), ch
png = open(d + "/hist.png", "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", png[:8]
w, h = struct.unpack(">II", png[16:24])
assert w == 900 and h > 0, (w, h)
PY
	then pass plots_sweep_compare_history; else fail plots_sweep_compare_history "rc=$rc $(cat "$tmp/err")"; fi
	run "$kscen" plot "$g2" -o "$tmp/x.gif"
	[ $rc = 2 ] && grep -q 'a .svg, a .png or a .pdf' "$tmp/err" && pass plot_output_type_checked ||
		fail plot_output_type_checked "rc=$rc $(cat "$tmp/err")"
fi
finish compare
