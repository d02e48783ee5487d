#!/bin/bash
# results.sh [KSCEN] - end-to-end tests: a tiny run, its result file, a second run against the first, the report formats.
. "$(dirname "$0")/lib.sh"

# ---- a tiny run, its result file, a second run against the first ----------
res=$tmp/results
run "$kscen" run -q -o "$res" $fx/e2e/tiny.yaml
expect_rc run_tiny_exit_0 0
file=$(ls "$res"/e2e-tiny/*.yaml 2>/dev/null | head -n1)
# the path is said on stderr, never part of the report (`> mail.txt`)
if [ -n "$file" ] && grep -qxF "results: $file" "$tmp/err" && ! grep -q '^results:' "$tmp/out"
then pass run_prints_result_path; else
	fail run_prints_result_path "no results: line for '$file' on stderr alone"; fi
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
assert 0.015 < m < 5, m    # sleep 0.02 in s, not ms (5 s: a loaded machine)
v = jobs["value/command=echo 'result: 12.5 usecs/op',metric_regex=result: ([0-9.]+),metric_name=latency,metric_unit=usecs/op"]
assert v["metrics"][0]["samples"] == [12.5] * 3, v
assert v["metrics"][0]["unit"] == "usecs/op"
assert r["system"]["nr_cpus"] >= 1 and r["partial"] is False
# exec's CPU times (wait4's rusage) beside the wall time
names = [m["name"] for m in a["metrics"]]
assert names[:3] == ["wall_time", "user_time", "sys_time"], names
assert [m["name"] for m in v["metrics"]][:4] == ["latency", "wall_time", "user_time", "sys_time"]
assert all(x >= 0 for x in a["metrics"][2]["samples"]) and a["metrics"][1]["unit"] == "s"
PY
then pass result_content_via_json; else fail result_content_via_json "$(cat "$tmp/err")"; fi
grep -q 'to baseline' "$tmp/out" && pass report_has_baseline_delta || fail report_has_baseline_delta "$(cat "$tmp/out")"

touch "$tmp/not-a-dir"
run "$kscen" run -o "$tmp/not-a-dir" $fx/e2e/tiny.yaml
[ $rc = 2 ] && grep -q 'cannot store runs in' "$tmp/err" && ! grep -q 'round' "$tmp/err" &&
	pass run_unwritable_results_exit_2_before_running ||
	fail run_unwritable_results_exit_2_before_running "rc=$rc $(cat "$tmp/err")"
new_second	# distinct file names are by the second
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
# JSON (format 2) and CSV say what a test found: no significant change
# (a constant value, 6 samples each, against the level of 3 runs: a history
# to estimate the drift from) is not "same", 3 pairs are too few; with one
# earlier run and no pool it is "cannot_tell"
for i in 1 2 3 4; do
	"$kscen" run -q -r 6 -o "$tmp/same" $fx/e2e/tiny.yaml >/dev/null 2>&1
	[ $i != 4 ] && sleep 1
done
"$kscen" compare --format json $(ls "$tmp"/same/e2e-tiny/*.yaml | tail -n2) >"$tmp/f.json" 2>/dev/null
"$kscen" compare --format csv $(ls "$tmp"/same/e2e-tiny/*.yaml | tail -n2) >"$tmp/f.csv" 2>/dev/null
"$kscen" compare --format json $(ls "$tmp"/same/e2e-tiny/*.yaml | head -n2) >"$tmp/f1.json" 2>/dev/null
"$kscen" report --format json "$file" >"$tmp/tiny.json" 2>/dev/null
if /usr/bin/python3 - "$tmp" <<'PY'
import csv, json, sys
d = sys.argv[1]
j = json.load(open(d + "/f.json"))
assert j["format"] == 2 and list(j)[0] == "format", list(j)[:3]
v = [x for x in j["jobs"] if x["id"].startswith("value/")]
assert [x["deltas"]["last"]["verdict"] for x in v] == ["no_significant_change"], v
assert [x["deltas"]["last"]["drift"] for x in v] == ["own"], v
j1 = json.load(open(d + "/f1.json"))
v = [x for x in j1["jobs"] if x["id"].startswith("value/")]
assert [x["deltas"]["last"]["verdict"] for x in v] == ["cannot_tell"], v
rows = [r for r in csv.DictReader(open(d + "/f.csv", newline="")) if r["metric"] == "latency"]
assert [r["vs_ref_verdict"] for r in rows] == ["no_significant_change"], rows
t = json.load(open(d + "/tiny.json"))
b = [x for x in t["jobs"] if x["id"] == "sleep/command=sleep 0.02"][0]
assert b["deltas"]["baseline"]["verdict"] == "too_few_samples", b["deltas"]
PY
then pass json_csv_verdict_says_what_was_found; else fail json_csv_verdict_says_what_was_found "$(head -c 300 "$tmp/f.json")"; fi
# mail: what goes into a patch mail, no line over 72 columns
run "$kscen" report --format mail "$file"
# columns, not bytes: "±" is two bytes and one column
mail_fits() {
	/usr/bin/python3 -c 'import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
sys.exit(any((len(l) > 72 and not l.startswith("  kscen rerun ")) or l.endswith(" ") for l in lines))' "$1"
}
if [ $rc = 0 ] && mail_fits "$tmp/out" &&
   grep -q '^kscen .*, scenario e2e-tiny$' "$tmp/out" &&
   grep -q '^file: .*tiny.yaml sha256:[0-9a-f]\{16\}$' "$tmp/out" &&
   grep -q '^command: ' "$tmp/out" && grep -q '^kernel: ' "$tmp/out" &&
   grep -Eqx 'sleep \(exec\): m?s \(wall_time\), lower is better, n=3, 75% CI' "$tmp/out" &&
   grep -Eq '^ +command +m?s +CI +to base$' "$tmp/out" &&
   grep -Eq '^ +sleep 0.02 +[0-9.]+ +±[0-9]+% +~$' "$tmp/out" &&
   grep -qx 'Every change is ~: 3 samples a side are too few for a 95% CI of a change' "$tmp/out" &&
   grep -q '^3 ok, 0 skipped, 0 failed$' "$tmp/out"; then pass report_format_mail
else fail report_format_mail "$(cat "$tmp/out")"; fi
for f in markdown csv text; do
	run "$kscen" report --format $f "$file"
	[ $rc = 0 ] && grep -q 'sleep 0.02' "$tmp/out" && pass "report_format_$f" || fail "report_format_$f" "rc=$rc"
done
printf 'kscen: 1\njobs: [\n' >"$tmp/torn.yaml"
run "$kscen" report "$tmp/torn.yaml"
[ $rc = 2 ] && grep -q "torn.yaml:[0-9]*:[0-9]*:" "$tmp/err" && pass report_torn_file_exit_2 ||
	fail report_torn_file_exit_2 "rc=$rc $(cat "$tmp/err")"
finish results
