#!/bin/bash
# e2e.sh KSCEN - end-to-end tests of the real binary on real scenarios with
# tiny loops. Each test prints PASS/FAIL/SKIP with its name; the last line is
# "e2e: N passed, N failed". Run from the repository root.
set -u
kscen=$(realpath "${1:-./kscen}")
fx=tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 skipped=0

pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1: $2"; }

# run NAME: run "$@" with stdout in $tmp/out, stderr in $tmp/err, code in $rc
run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

# expect_rc NAME CODE: pass when the last run exited with CODE
expect_rc() {
	if [ "$rc" = "$2" ]; then pass "$1"; else
		fail "$1" "exit $rc, expected $2; stderr: $(head -c 400 "$tmp/err")"; fi
}

# ---- command line -------------------------------------------------------
run "$kscen" --version
[ $rc = 0 ] && grep -q '^kscen [0-9]' "$tmp/out" && pass version || fail version "rc=$rc"
run "$kscen" --help
[ $rc = 0 ] && grep -q 'validate' "$tmp/out" && pass help || fail help "rc=$rc"
for c in run plan validate list compare report; do
	run "$kscen" $c --help
	[ $rc = 0 ] && grep -q "usage: kscen $c" "$tmp/out" && pass "help_$c" || fail "help_$c" "rc=$rc"
done
run "$kscen" rnu x.yaml
[ $rc = 2 ] && grep -q "did you mean 'run'" "$tmp/err" && pass unknown_command_exit_2 ||
	fail unknown_command_exit_2 "rc=$rc $(cat "$tmp/err")"
run "$kscen" run
expect_rc run_without_file_exit_2 2
run "$kscen" run -r 3x $fx/e2e/tiny.yaml
expect_rc run_bad_repeat_exit_2 2

run "$kscen" list
[ $rc = 0 ] && grep -q '^breakpoint.thread' "$tmp/out" && grep -q '^exec' "$tmp/out" &&
	pass list_workloads || fail list_workloads "rc=$rc"
run "$kscen" list breakpoint.thread
[ $rc = 0 ] && grep -Eq '^  breakpoints +int +1 +0\.\.64' "$tmp/out" && grep -q 'usecs/op' "$tmp/out" &&
	pass list_one_workload_table || fail list_one_workload_table "$(cat "$tmp/out")"
run "$kscen" list breakpoint.thred
[ $rc = 2 ] && grep -q "did you mean 'breakpoint.thread'" "$tmp/err" &&
	pass list_unknown_suggests || fail list_unknown_suggests "rc=$rc"

# ---- validate -------------------------------------------------------------
run "$kscen" validate scenarios/*.yaml $fx/good/*.yaml
expect_rc validate_good_files 0

for f in $fx/bad/*.yaml; do
	name=validate_bad_$(basename "$f" .yaml)
	run "$kscen" validate "$f"
	want=$(sed -n '1s/^# expect: //p' "$f" | tr -d '\0')
	if [ "$rc" != 2 ]; then
		fail "$name" "exit $rc, expected 2"
	elif ! grep -q "^$f:[0-9]*:[0-9]*: " "$tmp/err"; then
		fail "$name" "no file:line:column: in: $(head -c 300 "$tmp/err")"
	elif [ -n "$want" ] && ! grep -qF "$(dirname "$f")/$want" "$tmp/err"; then
		fail "$name" "expected '$want', got: $(head -c 300 "$tmp/err")"
	else
		pass "$name"
	fi
	[ -s "$tmp/out" ] && fail "${name}_stdout" "printed on stdout"
done
run "$kscen" validate $fx/bad/no-such-file.yaml
[ $rc = 2 ] && grep -q 'no-such-file.yaml:1:1: cannot open' "$tmp/err" &&
	pass validate_missing_file || fail validate_missing_file "rc=$rc"
run "$kscen" validate $fx/bad
[ $rc = 2 ] && grep -q 'directory' "$tmp/err" && pass validate_directory || fail validate_directory "rc=$rc"
run "$kscen" validate scenarios/breakpoints.yaml $fx/bad/alias.yaml
expect_rc validate_one_bad_of_two_exit_2 2

# ---- plan -----------------------------------------------------------------
run "$kscen" plan $fx/good/matrix.yaml
if [ $rc = 0 ] && [ "$(tail -n1 "$tmp/out")" = "10 jobs" ] && [ "$(wc -l <"$tmp/out")" = 11 ] &&
   grep -qx 'thread/threads=64,loops=56,breakpoints=4,parallelism=2' "$tmp/out" &&
   ! grep -q 'breakpoints=1,parallelism=2' "$tmp/out"; then
	pass plan_lists_ids_and_count
else
	fail plan_lists_ids_and_count "$(cat "$tmp/out" "$tmp/err")"
fi
run "$kscen" plan --filter 'enable/*' $fx/good/matrix.yaml
[ $rc = 0 ] && [ "$(tail -n1 "$tmp/out")" = "4 jobs" ] && pass plan_filter || fail plan_filter "$(cat "$tmp/out")"
run "$kscen" plan --max-jobs 5 $fx/good/matrix.yaml
expect_rc plan_max_jobs_refuses 2

# ---- a tiny run, its result file, a second run against the first ----------
res=$tmp/results
run "$kscen" run -q -o "$res" $fx/e2e/tiny.yaml
expect_rc run_tiny_exit_0 0
file=$(ls "$res"/e2e-tiny/*.yaml 2>/dev/null | head -n1)
if [ -n "$file" ] && grep -qF "results: $file" "$tmp/out"; then pass run_prints_result_path; else
	fail run_prints_result_path "no results: line for '$file'"; fi
[ -z "$(ls -A "$res/e2e-tiny" | grep -v '\.yaml$')" ] && pass run_leaves_no_temp_files ||
	fail run_leaves_no_temp_files "$(ls -A "$res/e2e-tiny")"
case "$(basename "$file")" in
[0-9]*T[0-9]*Z-"$(hostname)".yaml) pass result_file_name ;;
*) fail result_file_name "$file" ;;
esac
for key in kscen scenario scenario_file scenario_sha256 command started finished partial \
	   system hostname kernel kernel_build arch cpu_model nr_cpus cmdline \
	   perf_event_paranoid jobs id name workload params status metrics unit better \
	   samples median mean stddev baseline previous; do
	grep -Eq "^ *(- )?$key:" "$file" || { fail "result_has_$key" "missing in $file"; continue; }
	pass "result_has_$key"
done
"$kscen" report --format json "$file" >"$tmp/json" 2>"$tmp/err"
if /usr/bin/python3 - "$tmp/json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
jobs = {j["id"]: j for j in r["jobs"]}
a = jobs["sleep/command=sleep 0.01"]; b = jobs["sleep/command=sleep 0.02"]
assert a["status"] == "ok" and len(a["metrics"][0]["samples"]) == 3, a
assert b["baseline"] == a["id"] and b["previous"] == a["id"], b
m = b["metrics"][0]["median"]
assert 0.015 < m < 0.5, m                      # sleep 0.02 measured in s
v = jobs["value/command=echo 'result: 12.5 usecs/op',metric_regex=result: ([0-9.]+),metric_name=latency,metric_unit=usecs/op"]
assert v["metrics"][0]["samples"] == [12.5] * 3, v
assert v["metrics"][0]["unit"] == "usecs/op"
assert r["system"]["nr_cpus"] >= 1 and r["partial"] is False
PY
then pass result_content_via_json; else fail result_content_via_json "$(cat "$tmp/err")"; fi
grep -q 'to baseline' "$tmp/out" && pass report_has_baseline_delta || fail report_has_baseline_delta "$(cat "$tmp/out")"

touch "$tmp/not-a-dir"
run "$kscen" run -o "$tmp/not-a-dir" $fx/e2e/tiny.yaml
[ $rc = 2 ] && grep -q 'cannot store runs in' "$tmp/err" && ! grep -q 'round' "$tmp/err" &&
	pass run_unwritable_results_exit_2_before_running ||
	fail run_unwritable_results_exit_2_before_running "rc=$rc $(cat "$tmp/err")"
sleep 1	# distinct file names are by the second
run "$kscen" run -q -o "$res" $fx/e2e/tiny.yaml
[ $rc = 0 ] && grep -q 'vs last run' "$tmp/out" && pass second_run_reports_vs_last ||
	fail second_run_reports_vs_last "$(cat "$tmp/out")"
[ "$(ls "$res"/e2e-tiny/*.yaml | wc -l)" = 2 ] && pass second_run_new_file || fail second_run_new_file "$(ls "$res"/e2e-tiny)"
run "$kscen" run -q -o "$res" --compare none --no-save $fx/e2e/tiny.yaml
[ $rc = 0 ] && ! grep -q 'vs last run' "$tmp/out" && [ "$(ls "$res"/e2e-tiny/*.yaml | wc -l)" = 2 ] &&
	pass no_save_compare_none || fail no_save_compare_none "$(cat "$tmp/out")"
run "$kscen" compare "$res/e2e-tiny" "$file"
[ $rc = 0 ] && grep -q 'sleep/command=sleep 0.02' "$tmp/out" && pass compare_two_runs ||
	fail compare_two_runs "$(cat "$tmp/out" "$tmp/err")"
for f in markdown csv text; do
	run "$kscen" report --format $f "$file"
	[ $rc = 0 ] && grep -q 'sleep 0.02' "$tmp/out" && pass "report_format_$f" || fail "report_format_$f" "rc=$rc"
done
printf 'kscen: 1\njobs: [\n' >"$tmp/torn.yaml"
run "$kscen" report "$tmp/torn.yaml"
[ $rc = 2 ] && grep -q "torn.yaml:[0-9]*:[0-9]*:" "$tmp/err" && pass report_torn_file_exit_2 ||
	fail report_torn_file_exit_2 "rc=$rc $(cat "$tmp/err")"

# ---- failures are isolated -----------------------------------------------------
run "$kscen" run -q -o "$res" $fx/e2e/crash.yaml
expect_rc run_crash_exit_3 3
file=$(ls "$res"/e2e-crash/*.yaml 2>/dev/null | head -n1)
"$kscen" report --format json "$file" >"$tmp/json" 2>/dev/null
if /usr/bin/python3 - "$tmp/json" <<'PY'
import json, sys
jobs = {j["name"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
g = jobs["good"]
assert g["status"] == "ok" and len(g["metrics"][0]["samples"]) == 2, g
assert jobs["segv"]["status"] == "failed" and "SIGSEGV" in jobs["segv"]["reason"], jobs["segv"]
assert jobs["hang"]["status"] == "failed" and "timed out" in jobs["hang"]["reason"], jobs["hang"]
assert jobs["abort"]["status"] == "failed" and "status 7" in jobs["abort"]["reason"], jobs["abort"]
PY
then pass crash_and_hang_beside_good_job; else fail crash_and_hang_beside_good_job "$(cat "$tmp/json")"; fi
pgrep -f 'sleep 600' >/dev/null && fail hang_killed "sleep 600 still running" || pass hang_killed

# ---- statistics: the gate, compare's table, repeat: auto ---------------------
# The planted jobs print $E2E_COST plus noise (fixtures/e2e/gate.yaml): 100,
# then 200. Printed, not timed, so a busy machine cannot flip these checks;
# the gate at 50% is far from both +100% and the A/A noise (under 10%).
E2E_COST=100 run "$kscen" run -q -o "$res" $fx/e2e/gate.yaml
expect_rc gate_first_run_exit_0 0
g1=$(ls "$res"/e2e-gate/*.yaml 2>/dev/null | head -n1)
for key in cv ci_low ci_high outliers bimodal governor smt mitigations thp isolcpus \
	   nohz_full loadavg; do
	grep -Eq "^ *(- )?$key:" "$g1" && pass "result_has_$key" || fail "result_has_$key" "missing in $g1"
done
sleep 1
E2E_COST=200 run "$kscen" run -q -o "$res" --gate 50 $fx/e2e/gate.yaml
if [ $rc = 1 ] && grep -q '^# gate 50%: FAILED' "$tmp/out" &&
   grep -q '^#   planted/command=echo v: .*: +[0-9.]*% \[' "$tmp/out" &&
   ! grep -q '^#   steady' "$tmp/out"; then pass gate_trips_on_planted_slowdown; else
	fail gate_trips_on_planted_slowdown "rc=$rc $(tail -n 8 "$tmp/out")"; fi
g2=$(ls "$res"/e2e-gate/*.yaml | tail -n1)
run "$kscen" compare --gate 50 "$g1" "$g2"
if [ $rc = 1 ] && grep -q '^## planted: usecs (value)' "$tmp/out" &&
   grep -q '^planted/command=echo v: .* worse (p=0.0[0-9]* n=5+5; in-run noise only (1 earlier run))' "$tmp/out" &&
   grep -q '^geomean ' "$tmp/out" && grep -q '^## steady' "$tmp/out"; then
	pass compare_table_and_gate; else fail compare_table_and_gate "rc=$rc $(cat "$tmp/out")"; fi
run "$kscen" compare --gate 50 "$g1" "$g1"
[ $rc = 0 ] && [ "$(grep -c ' ~ (p=1.000 n=5+5; in-run noise only (0 earlier runs))$' "$tmp/out")" = 3 ] &&
	grep -q '^# gate 50%: passed (3 jobs checked' "$tmp/out" && pass compare_same_run_is_all_tilde ||
	fail compare_same_run_is_all_tilde "rc=$rc $(cat "$tmp/out")"
sleep 1
E2E_COST=100 run "$kscen" run -q -o "$res" --compare "$g1" --gate 50 $fx/e2e/gate.yaml
[ $rc = 0 ] && grep -q '^# gate 50%: passed' "$tmp/out" && pass gate_aa_does_not_trip ||
	fail gate_aa_does_not_trip "rc=$rc $(tail -n 8 "$tmp/out")"
E2E_COST=100 run "$kscen" run -q -o "$res" $fx/e2e/gate-fail.yaml
sleep 1
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
[ $rc = 2 ] && grep -q "matches none of the" "$tmp/err" && [ ! -d "$cr/e2e-gate" ] &&
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
sleep 1
E2E_COST=300 run "$kscen" run -q -o "$cr" --filter 'steady*' $fx/e2e/gate.yaml
sed 's/^partial: false/partial: true/' "$first" >"$cr/e2e-gate/20991231T235959Z-vm.yaml"
sleep 1
E2E_COST=100 run "$kscen" run -q -o "$cr" $fx/e2e/gate.yaml
if [ $rc = 0 ] && grep -q 'skipping stored run .*: filtered' "$tmp/err" &&
   grep -q 'skipping stored run .*20991231T235959Z-vm.yaml: partial' "$tmp/err" &&
   grep -q "^# reference: .*$(basename "$first")" "$tmp/out" &&
   grep -q '^# environment: the same as the reference' "$tmp/out" &&
   grep -q 'vs last run: .*in-run noise only (1 earlier run)' "$tmp/out"; then
	pass reference_skips_filtered_and_partial_runs
else fail reference_skips_filtered_and_partial_runs "$(cat "$tmp/err" "$tmp/out")"; fi
rm -f "$cr/e2e-gate/20991231T235959Z-vm.yaml"
# With 3 earlier runs the verdict includes the run-to-run drift.
for i in 1 2; do
	sleep 1
	E2E_COST=100 run "$kscen" run -q -o "$cr" $fx/e2e/gate.yaml
done
grep -Eq 'vs last run: .* (~|worse|better) \(run-to-run ±[0-9.]+%, 3 runs\)' "$tmp/out" &&
	pass history_widens_between_run_verdict || fail history_widens_between_run_verdict "$(cat "$tmp/out")"
last_file=$(ls "$cr"/e2e-gate/*.yaml | tail -n1)
grep -v '^results: ' "$tmp/out" | sed '$d' >"$tmp/run.txt"
"$kscen" report "$last_file" >"$tmp/rep.txt" 2>/dev/null
cmp -s "$tmp/run.txt" "$tmp/rep.txt" && grep -q 'run-to-run' "$tmp/rep.txt" &&
	pass report_shows_what_run_showed ||
	fail report_shows_what_run_showed "$(diff "$tmp/run.txt" "$tmp/rep.txt" | head -20)"
sleep 1
E2E_COST=100 run "$kscen" run -q -o "$cr" --label v1 $fx/e2e/gate.yaml
ls "$cr"/e2e-gate/*+v1.yaml >/dev/null 2>&1 && grep -q '^# label: v1' "$tmp/out" &&
	pass label_in_file_name || fail label_in_file_name "$(ls "$cr"/e2e-gate)"
# --bisect: 0 good, 1 bad, 125 cannot tell; never 2.
E2E_COST=100 run "$kscen" run -q --no-save -o "$cr" --bisect --gate 50 --compare label:v1 $fx/e2e/gate.yaml
[ $rc = 0 ] && grep -q '^bisect: good' "$tmp/out" && pass bisect_good_exit_0 || fail bisect_good_exit_0 "rc=$rc"
E2E_COST=200 run "$kscen" run -q --no-save -o "$cr" --bisect --gate 50 --compare label:v1 $fx/e2e/gate.yaml
[ $rc = 1 ] && grep -q '^bisect: bad' "$tmp/out" && pass bisect_bad_exit_1 || fail bisect_bad_exit_1 "rc=$rc"
run "$kscen" run -q --no-save -o "$tmp/empty-results" --bisect $fx/e2e/gate.yaml
[ $rc = 125 ] && pass bisect_no_reference_exit_125 || fail bisect_no_reference_exit_125 "rc=$rc"
run "$kscen" run -q --no-save --bisect -r 3x $fx/e2e/gate.yaml
expect_rc bisect_bad_usage_exit_125 125
run "$kscen" run -q --no-save -o "$res" --bisect $fx/e2e/crash.yaml
[ $rc = 125 ] && pass bisect_failed_job_exit_125 || fail bisect_failed_job_exit_125 "rc=$rc"
sleep 1
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
run "$kscen" history "$tmp/nothing-here"
expect_rc history_no_runs_exit_2 2
run "$kscen" calibrate -q -n 2 -r 6 -o "$tmp/cal" $fx/e2e/gate.yaml
if [ $rc = 0 ] && [ "$(ls "$tmp/cal/e2e-gate" | wc -l)" = 2 ] &&
   grep -q '^   2     too few' "$tmp/out"; then pass calibrate_seeds_history_too_few
else fail calibrate_seeds_history_too_few "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
sleep 1
run "$kscen" calibrate -q -n 1 -r 6 -o "$tmp/cal" $fx/e2e/gate.yaml
grep -Eq '^   3 +±[0-9.]+% +[0-9.]+% +[0-9.]+%  steady/' "$tmp/out" && pass calibrate_prints_drift ||
	fail calibrate_prints_drift "rc=$rc $(cat "$tmp/out" "$tmp/err")"

# ---- the breakpoint workloads, for real --------------------------------------
if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	skip breakpoint_tiny_run "needs root or perf_event_paranoid <= 1"
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

# ---- BPF uprobes and event synthesis -------------------------------------------
# job_statuses FILE: "id status" lines of the newest run in a results dir
job_statuses() {
	"$kscen" report --format json "$1" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
for j in json.load(sys.stdin)["jobs"]:
    print(j["id"], j["status"], j["reason"] or "")'
}
if [ "$(id -u)" != 0 ]; then
	skip uprobe_tiny_run "needs root (the skip path is tested below)"
elif [ ! -e /sys/bus/event_source/devices/uprobe ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip uprobe_tiny_run "no uprobe PMU or no kernel BTF here"
else
	run "$kscen" run -q -o "$res" $fx/e2e/uprobe.yaml
	expect_rc uprobe_tiny_run 0
	# ok for a probe job means its hits were counted: one per call
	job_statuses "$res/e2e-uprobe" >"$tmp/st"
	if [ "$(grep -c ' ok' "$tmp/st")" = 8 ]; then pass uprobe_every_hit_counted; else
		fail uprobe_every_hit_counted "$(cat "$tmp/st")"; fi
	grep -q 'nop/calls=1000,attach=return,probe=trace_printk' "$tmp/out" &&
	grep -q 'nsecs/op +[0-9.]* to baseline +*-*[0-9.]* to previous' "$tmp/out" &&
		pass uprobe_report_deltas || fail uprobe_report_deltas "$(cat "$tmp/out")"
	# trace_printk jobs empty the trace buffer they wrote to; mount
	# tracefs for this check when it is not, and put things back
	trace=/sys/kernel/tracing/trace mounted=
	if [ ! -e $trace ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
		mounted=1
	fi
	if [ -r $trace ]; then
		run "$kscen" run -q --no-save --compare none --filter '*trace_printk*' $fx/e2e/uprobe.yaml
		[ $rc = 0 ] && ! grep -q 'kscen uprobe hit' $trace && pass uprobe_trace_buffer_cleared ||
			fail uprobe_trace_buffer_cleared "rc=$rc; $(grep -c 'kscen uprobe hit' $trace) hits left in $trace"
	else
		skip uprobe_trace_buffer_cleared "no tracefs"
	fi
	[ -n "$mounted" ] && umount /sys/kernel/tracing
fi
# Forced skips: the reason is printed, the baseline still runs, exit code 0.
KSCEN_BTF_PATH=/nonexistent/vmlinux run "$kscen" run -q --no-save --compare none $fx/e2e/uprobe.yaml
if [ $rc = 0 ] && grep -q 'skipped: .*no kernel BTF at /nonexistent/vmlinux' "$tmp/out" &&
   grep -q '# 3 ok, 5 skipped, 0 failed' "$tmp/out"; then pass uprobe_no_btf_is_a_skip; else
	fail uprobe_no_btf_is_a_skip "rc=$rc $(cat "$tmp/out")"; fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$kscen" run -q --no-save --compare none $fx/e2e/uprobe.yaml
	if [ $rc = 0 ] && grep -q 'skipped: needs root or CAP_BPF and CAP_PERFMON' "$tmp/out"; then
		pass uprobe_unprivileged_is_a_skip; else
		fail uprobe_unprivileged_is_a_skip "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
	# with the capabilities but not root: whatever the kernel refuses is
	# a skip, never a failure
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps +bpf,+perfmon --ambient-caps +bpf,+perfmon \
		"$kscen" run -q --no-save --compare none $fx/e2e/uprobe.yaml
	[ $rc = 0 ] && grep -q ', 0 failed' "$tmp/out" && pass uprobe_caps_without_root_never_fails ||
		fail uprobe_caps_without_root_never_fails "rc=$rc $(cat "$tmp/out")"
else
	skip uprobe_unprivileged_is_a_skip "needs root and setpriv to drop privilege"
fi

run "$kscen" run -q -o "$res" $fx/e2e/synthesize.yaml
expect_rc synthesize_tiny_run 0
"$kscen" report --format json "$res/e2e-synthesize" >"$tmp/json" 2>/dev/null
if /usr/bin/python3 - "$tmp/json" <<'PY'
import json, sys
jobs = {j["id"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
assert len(jobs) == 6 and all(j["status"] == "ok" for j in jobs.values()), jobs
rec = lambda i: jobs[i]["metrics"][1]["median"]
for d in ("false", "true"):
    a, b = (rec("self/loops=20,data_mmap=%s,reader=%s" % (d, r)) for r in ("stdio", "buffered"))
    assert a == b and a >= 2, (d, a, b)
assert rec("self/loops=20,data_mmap=true,reader=stdio") > rec("self/loops=20,data_mmap=false,reader=stdio")
assert rec("all/loops=1,scope=all,reader=stdio") > rec("self/loops=20,data_mmap=false,reader=stdio")
PY
then pass synthesize_readers_agree; else fail synthesize_readers_agree "$(head -c 600 "$tmp/json")"; fi

# ---- scheduler and locking workloads ---------------------------------------------
run "$kscen" run -q -o "$res" $fx/e2e/sched.yaml
expect_rc sched_tiny_run 0
"$kscen" report --format json "$res/e2e-sched" >"$tmp/json" 2>/dev/null
if /usr/bin/python3 - "$tmp/json" <<'PY'
import json, sys
jobs = {j["id"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
assert len(jobs) == 7 and all(j["status"] == "ok" for j in jobs.values()), jobs
for i, j in jobs.items():
    m = j["metrics"]
    assert m[0]["median"] > 0, (i, m)
    if i.startswith(("pipe/", "syscall/")):
        assert m[0]["name"] == "usecs/op" and m[1]["name"] == "ops/sec", m
        # ops/sec is the inverse of usecs/op
        assert abs(m[0]["median"] * m[1]["median"] / 1e6 - 1) < 1e-6, m
PY
then pass sched_workloads_measure; else fail sched_workloads_measure "$(head -c 600 "$tmp/json")"; fi

(ulimit -n 40 && exec "$kscen" run -q --no-save --compare none $fx/e2e/emfile.yaml) >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 3 ] && grep -q 'Too many open files (RLIMIT_NOFILE 40;' "$tmp/out" &&
	pass messaging_emfile_names_the_limit || fail messaging_emfile_names_the_limit "rc=$rc $(cat "$tmp/out")"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	(ulimit -u 20 && exec setpriv --reuid=65534 --regid=65534 --clear-groups "$kscen" run -q \
		--no-save --compare none --filter 'messaging/*' $fx/e2e/sched.yaml) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 3 ] && grep -q 'fork: Resource temporarily unavailable after .*(RLIMIT_NPROC 20,' "$tmp/out" &&
		grep -q 'pthread_create: .*(RLIMIT_NPROC 20, kernel.threads-max' "$tmp/out" &&
		pass messaging_nproc_names_the_limit || fail messaging_nproc_names_the_limit "rc=$rc $(cat "$tmp/out")"
else
	skip messaging_nproc_names_the_limit "needs root and setpriv to drop privilege"
fi

# Kill the runner mid-sample: the workers (PR_SET_PDEATHSIG) must go too.
cp $fx/e2e/orphans.yaml "$tmp/orphans.yaml"
"$kscen" run -q --no-save --compare none "$tmp/orphans.yaml" >/dev/null 2>&1 &
runner=$!
for i in $(seq 50); do
	[ "$(pgrep -f -- "$tmp/orphans.yaml" | wc -l)" -ge 42 ] && break
	sleep 0.1
done
n=$(pgrep -f -- "$tmp/orphans.yaml" | wc -l)
kill -9 $runner
wait $runner 2>/dev/null
for i in $(seq 30); do
	[ "$(pgrep -f -- "$tmp/orphans.yaml" | wc -l)" = 0 ] && break
	sleep 0.1
done
left=$(pgrep -f -- "$tmp/orphans.yaml" | wc -l)
[ "$n" -ge 42 ] && [ "$left" = 0 ] && pass messaging_workers_die_with_runner ||
	fail messaging_workers_die_with_runner "$n tasks before the kill, $left after"
pkill -9 -f -- "$tmp/orphans.yaml" 2>/dev/null

if [ "$(id -u)" != 0 ]; then
	skip lock_contention_counts "needs root (the unprivileged skip is tested below)"
else
	run "$kscen" run -q -o "$res" $fx/e2e/lock.yaml
	expect_rc lock_contention_tiny_run 0
	"$kscen" report --format json "$res/e2e-lock" >"$tmp/json" 2>/dev/null
	if /usr/bin/python3 - "$tmp/json" <<'PY'
import json, sys
jobs = {j["id"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
base = "mmap/load=mmap,threads=16,loops=300,map_entries=2,tracer=%s"
assert all(j["status"] == "ok" for j in jobs.values()), jobs
assert [m["name"] for m in jobs[base % "none,skip_when_full=false"]["metrics"]
        if not m["name"].startswith("cgroup_")] == ["seconds"]
for skip in ("false", "true"):
    m = {m["name"]: m["median"] for m in jobs[base % "bpf,skip_when_full=" + skip]["metrics"]}
    assert m["contentions"] > 0 and m["wait"] > 0, m
    assert 0 < m["stored"] <= 2 and m["failed"] > 0, m
    assert m["stored"] + m["failed"] <= m["contentions"], m
    # the fix: after the first -E2BIG no more updates are tried (one per
    # CPU may race past the flag); without it every miss tries again
    if skip == "true":
        assert 1 <= m["update_errors"] <= 2 * 2, m
    else:
        assert m["update_errors"] == m["failed"], m
PY
	then pass lock_contention_counts_and_failed_inserts; else
		fail lock_contention_counts_and_failed_inserts "$(head -c 900 "$tmp/json")"; fi
	# without kernel BTF the raw_tp programs stand in for tp_btf
	KSCEN_BTF_PATH=/nonexistent/vmlinux run "$kscen" run -q --no-save --compare none \
		--filter 'mmap/*tracer=bpf,skip_when_full=false' $fx/e2e/lock.yaml
	[ $rc = 0 ] && grep -q '# 1 ok, 0 skipped, 0 failed' "$tmp/out" &&
		grep -Eq '^ +[1-9][0-9.]* contentions' "$tmp/out" && pass lock_contention_raw_tp_fallback ||
		fail lock_contention_raw_tp_fallback "rc=$rc $(cat "$tmp/out")"
	KSCEN_LOCK_TP_BEGIN=no_such_tracepoint run "$kscen" run -q --no-save --compare none $fx/e2e/lock.yaml
	[ $rc = 0 ] && grep -q 'no tracepoint lock:no_such_tracepoint' "$tmp/out" &&
		grep -q '# 1 ok, 4 skipped, 0 failed' "$tmp/out" && pass lock_contention_no_tracepoint_is_a_skip ||
		fail lock_contention_no_tracepoint_is_a_skip "rc=$rc $(cat "$tmp/out")"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$kscen" run -q --no-save --compare none $fx/e2e/lock.yaml
	[ $rc = 0 ] && grep -q 'needs root or CAP_BPF' "$tmp/out" &&
		grep -q '# 1 ok, 4 skipped, 0 failed' "$tmp/out" && pass lock_contention_unprivileged_is_a_skip ||
		fail lock_contention_unprivileged_is_a_skip "rc=$rc $(cat "$tmp/out" "$tmp/err")"
else
	skip lock_contention_unprivileged_is_a_skip "needs root and setpriv to drop privilege"
fi

# ---- issue 13: the rest of perf bench, tool adapters, exec json -----------
run "$kscen" run -q -o "$res" $fx/e2e/perf-bench-more.yaml
expect_rc perf_bench_more_tiny_run 0
"$kscen" report --format json "$res/e2e-perf-bench-more" >"$tmp/json" 2>/dev/null
if /usr/bin/python3 - "$tmp/json" <<'PY'
import json, sys
jobs = {j["id"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
def m(i):
    return {x["name"]: x["median"] for x in jobs[i]["metrics"]}
assert len(jobs) == 30, len(jobs)
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
        assert abs(r - round(r)) < 1e-6 and r >= 1, (i, r)
    if i.startswith("epoll-ctl/") and "randomize=false" in i:
        v = m(i)
        assert v["ADD ops/sec"] == v["MOD ops/sec"] == v["DEL ops/sec"], v
    if i.startswith(("getpgid/", "fork/", "execve/", "seccomp/")):
        v = m(i)
        assert abs(v["usecs/op"] * v["ops/sec"] / 1e6 - 1) < 1e-6, v
assert m("wake/threads=4,nwakes=2,repeat=2,settle=5ms")["woken"] == 4
assert m("wake-parallel/threads=4,nwakers=2,repeat=2,settle=5ms")["woken per waker"] == 2
for b in ("false", "true"):
    assert m(f"requeue/threads=4,broadcast={b},repeat=2,settle=5ms")["requeued"] == 4
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
	run "$kscen" run --no-save --compare none --format json "$tmp/synperf.yaml"
	if [ $rc = 0 ] && python3 - "$tmp/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rec = {j["id"].split("scope=")[1]: j["metrics"][1]["median"] for j in r["jobs"]}
# perf maps about three times the libraries kscen does
assert rec["perf"] > 1.5 * rec["self"], rec
PY
	   ! pgrep -f 'sleep 3600' >/dev/null; then pass synthesize_scope_perf
	else fail synthesize_scope_perf "rc=$rc $(head -c 600 "$tmp/out") $(pgrep -af 'sleep 3600')"; fi
fi

. "$(dirname "$0")/e2e_profile.sh"
# ---- kscen vm, kscen ab: host-side tests and one boot (all: make test-vm) --
. tests/vm.sh
. "$(dirname "$0")/e2e_reliability.sh"
# shards and merged runs
. tests/e2e-fleet.sh

echo "e2e: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
