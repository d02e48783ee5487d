#!/bin/bash
# scenario.sh [KSCEN] - end-to-end tests: the command line, validate and plan
# on the fixtures (every tests/fixtures/bad file says its exact error on its
# first line).
. "$(dirname "$0")/lib.sh"

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
# a value every job inherits is checked for each, and said once
run "$kscen" validate $fx/bad/defaults-param-value.yaml
[ "$(wc -l <"$tmp/err")" = 1 ] && pass defaults_problem_said_once || fail defaults_problem_said_once "$(cat "$tmp/err")"
# defaults: every job inherits the params it has not got, after its own
run "$kscen" plan $fx/good/defaults.yaml
[ $rc = 0 ] && [ "$(tr '\n' ' ' <"$tmp/out")" = "getppid/loops=1000 getpgid/loops=10 getpgid/loops=20 true/command=true 4 jobs " ] &&
	pass defaults_params_inherited || fail defaults_params_inherited "rc=$rc $(cat "$tmp/out" "$tmp/err")"
run "$kscen" run -q --no-save --compare none --format json $fx/good/defaults.yaml
if [ $rc = 0 ] && /usr/bin/python3 - "$tmp/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["repeat"] == 3, r["repeat"]            # defaults: repeat
j = {x["id"]: x for x in r["jobs"]}
assert j["getppid/loops=1000"]["params"] == {"loops": 1000}, j["getppid/loops=1000"]["params"]
assert all(len(x["metrics"][0]["samples"]) == 3 for x in r["jobs"])
PY
then pass defaults_repeat_inherited; else fail defaults_repeat_inherited "rc=$rc $(head -c 300 "$tmp/err")"; fi
run "$kscen" run -q --no-save --compare none $fx/e2e/defaults-timeout.yaml
[ $rc = 3 ] && grep -q 'FAILED: sample timed out after 0.3 s' "$tmp/out" &&
	pass defaults_timeout_inherited || fail defaults_timeout_inherited "rc=$rc $(cat "$tmp/out")"
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
run "$kscen" validate --max-jobs 5 $fx/good/matrix.yaml
[ $rc = 2 ] && grep -q 'more than 5 jobs (raise --max-jobs)' "$tmp/err" &&
	pass validate_max_jobs_refuses || fail validate_max_jobs_refuses "rc=$rc $(cat "$tmp/err")"

# ---- options: GNU habits ------------------------------------------------------
# after the arguments, --opt=value, -- ending them, unambiguous abbreviations
run "$kscen" plan $fx/good/matrix.yaml --filter='enable/*'
[ $rc = 0 ] && [ "$(tail -n1 "$tmp/out")" = "4 jobs" ] && pass options_after_arguments ||
	fail options_after_arguments "rc=$rc $(cat "$tmp/out" "$tmp/err")"
run "$kscen" run $fx/e2e/tiny.yaml -r 2 --no-save -q --compare none
[ $rc = 0 ] && grep -q '^# 3 ok, 0 skipped, 0 failed' "$tmp/out" && pass run_options_after_scenario ||
	fail run_options_after_scenario "rc=$rc $(cat "$tmp/err")"
run "$kscen" validate -- $fx/good/matrix.yaml
[ $rc = 0 ] && pass double_dash_ends_options || fail double_dash_ends_options "rc=$rc $(cat "$tmp/err")"
run "$kscen" validate -- --max-jobs=5
[ $rc = 2 ] && grep -q -- '--max-jobs=5:1:1: cannot open' "$tmp/err" &&
	pass after_double_dash_an_argument || fail after_double_dash_an_argument "rc=$rc $(cat "$tmp/err")"
run "$kscen" plan --filt 'enable/*' $fx/good/matrix.yaml
[ $rc = 0 ] && [ "$(tail -n1 "$tmp/out")" = "4 jobs" ] && pass long_option_abbreviation ||
	fail long_option_abbreviation "rc=$rc $(cat "$tmp/err")"
run "$kscen" run --repeat $fx/e2e/tiny.yaml
[ $rc = 2 ] && grep -q "is not a whole number" "$tmp/err" && pass option_value_checked ||
	fail option_value_checked "rc=$rc $(cat "$tmp/err")"
run "$kscen" plan --bogus $fx/good/matrix.yaml
[ $rc = 2 ] && grep -q -- "--bogus is not an option" "$tmp/err" && grep -q "Try 'kscen plan --help'" "$tmp/err" &&
	pass unknown_option_exit_2 || fail unknown_option_exit_2 "rc=$rc $(cat "$tmp/err")"
# a misspelt option gets the closest name, a prefix of several the list
run "$kscen" run --repet 3 --no-save $fx/e2e/tiny.yaml
[ $rc = 2 ] && [ "$(head -n1 "$tmp/err")" = "kscen run: --repet is not an option; did you mean '--repeat'?" ] &&
	pass unknown_option_did_you_mean || fail unknown_option_did_you_mean "rc=$rc $(cat "$tmp/err")"
run "$kscen" run --re=3 --no-save $fx/e2e/tiny.yaml
[ $rc = 2 ] && [ "$(head -n1 "$tmp/err")" = "kscen run: --re is ambiguous: --repeat, --results, --resume" ] &&
	pass ambiguous_option_lists_candidates || fail ambiguous_option_lists_candidates "rc=$rc $(cat "$tmp/err")"
run "$kscen" run --quiet=yes --no-save $fx/e2e/tiny.yaml
[ $rc = 2 ] && [ "$(head -n1 "$tmp/err")" = "kscen run: --quiet takes no value" ] &&
	pass flag_with_value_refused || fail flag_with_value_refused "rc=$rc $(cat "$tmp/err")"
# help points to what is installed (the man pages), never to README or docs/
bad=""
for c in $("$kscen" --help | awk '/^commands:/ { f = 1; next } f && NF == 0 { exit } f { print $1 }'); do
	"$kscen" "$c" --help 2>&1 | grep -q 'README\|docs/' && bad="$bad $c"
done
"$kscen" --help | grep -q 'kscen(1) and kscen-scenario(5)' && "$kscen" run --help | grep -q 'kscen-scenario(5)' &&
	[ -z "$bad" ] && pass help_points_to_man_pages || fail help_points_to_man_pages "README in:$bad"
# --help comes from the option table: every option a line
run "$kscen" help run
[ $rc = 0 ] && grep -q '^  -r, --repeat N ' "$tmp/out" && grep -q '^      --until-ci PCT ' "$tmp/out" &&
	grep -q '^  -h, --help ' "$tmp/out" && pass help_from_option_table || fail help_from_option_table "rc=$rc"
finish scenario
