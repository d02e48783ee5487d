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
assert b["metrics"][0]["median"] > a["metrics"][0]["median"]
v = jobs["value/command=echo 'result: 12.5 usecs/op',metric_regex=result: ([0-9.]+),metric_name=latency,metric_unit=usecs/op"]
assert v["metrics"][0]["samples"] == [12.5] * 3, v
assert v["metrics"][0]["unit"] == "usecs/op"
assert r["system"]["nr_cpus"] >= 1 and r["partial"] is False
PY
then pass result_content_via_json; else fail result_content_via_json "$(cat "$tmp/err")"; fi
grep -q 'to baseline' "$tmp/out" && pass report_has_baseline_delta || fail report_has_baseline_delta "$(cat "$tmp/out")"

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

echo "e2e: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
