#!/bin/bash
# quick.sh [KSCEN] - end-to-end tests: quick work and reproducing a run.
# kscen exec (commands as an interleaved A/B scenario), kscen run - (a
# scenario from stdin), the scenario's text kept with every run, kscen
# rerun (that text run again and compared) and the mail's reproduce line.
. "$(dirname "$0")/lib.sh"

# ---- kscen exec -------------------------------------------------------------
# Each command appends its letter to a log: the rounds' order shows there.
log=$tmp/order
run "$kscen" exec -r 6 -q -o "$res" --prepare "echo p >>$log" -- "echo a >>$log" -- "echo b >>$log"
file=$(ls "$res"/exec/*.yaml 2>/dev/null | head -n1)
# warmup round a b, then b a, a b, ... (reversed every other round), a
# prepare before every sample
order=$(tr -d '\n' <"$log" 2>/dev/null)
[ $rc = 0 ] && [ -n "$file" ] && [ "$order" = papbpbpapapbpbpapapbpbpapapb ] &&
	pass exec_interleaves_with_prepare || fail exec_interleaves_with_prepare "rc=$rc order=$order $(head -c 300 "$tmp/err")"
"$kscen" report --format json "$file" >"$tmp/json" 2>"$tmp/err"
if /usr/bin/python3 - "$tmp/json" "$log" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
log = sys.argv[2]
assert r["scenario"] == "exec" and r["scenario_file"] == "<exec>" and r["repeat"] == 6, r
a, b = r["jobs"]
assert a["params"]["command"] == "echo a >>" + log, a["params"]
assert b["params"]["command"] == "echo b >>" + log, b["params"]
assert b["baseline"] == a["id"] and a["baseline"] == a["id"], (a, b)
assert b["deltas"]["baseline"]["against"] == a["id"]
assert all(len(j["metrics"][0]["samples"]) == 6 for j in (a, b))
PY
then pass exec_first_command_is_baseline; else fail exec_first_command_is_baseline "$(head -c 300 "$tmp/err")"; fi
grep -q '^scenario_text: |' "$file" && grep -q '^  # kscen exec' "$file" &&
	pass exec_keeps_its_scenario || fail exec_keeps_its_scenario "$(head -c 600 "$file")"

# every byte of a command says itself through the YAML it becomes
cmd='printf "%s|%s\n" "q\"uote" '"'"'back\slash'"'"' # x: [y]'
run "$kscen" exec -r 1 -w 0 -q --no-save --compare none --format json -- "$cmd"
if [ $rc = 0 ] && /usr/bin/python3 - "$tmp/out" "$cmd" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
j = r["jobs"][0]
assert j["describe"] == "exec: %s (sh -c)" % sys.argv[2], j["describe"]
assert j["status"] == "ok" and j["baseline"] is None, j
PY
then pass exec_command_quoted_exactly; else fail exec_command_quoted_exactly "rc=$rc $(head -c 300 "$tmp/err")"; fi

# several words are one command, each word an argument as the shell gave it
run "$kscen" exec -r 1 -w 0 -q --no-save --compare none --format json -- printf '%s|' 'a b' c
if [ $rc = 0 ] && /usr/bin/python3 - "$tmp/out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
assert j["params"]["command"] == "printf '%s|' 'a b' c", j["params"]
PY
then pass exec_words_joined_quoted; else fail exec_words_joined_quoted "rc=$rc $(head -c 300 "$tmp/out")"; fi
run "$kscen" exec -r 2 -w 0 -q -o "$res" --name mine -- true
[ $rc = 0 ] && [ "$(ls "$res"/mine/*.yaml | wc -l)" = 1 ] && pass exec_name_is_results_dir ||
	fail exec_name_is_results_dir "rc=$rc $(ls "$res")"
run "$kscen" exec -r 2 true
[ $rc = 2 ] && grep -q '^kscen exec: the commands follow --' "$tmp/err" && pass exec_needs_dashdash ||
	fail exec_needs_dashdash "rc=$rc $(cat "$tmp/err")"
run "$kscen" exec -- true -- true
[ $rc = 2 ] && grep -q "^kscen exec: command 2 is command 1 again: 'true'" "$tmp/err" &&
	pass exec_same_command_twice_refused || fail exec_same_command_twice_refused "rc=$rc $(cat "$tmp/err")"
run "$kscen" exec -- true --
[ $rc = 2 ] && grep -q '^kscen exec: an empty command after the last --' "$tmp/err" &&
	pass exec_empty_command_refused || fail exec_empty_command_refused "rc=$rc $(cat "$tmp/err")"
run "$kscen" exec --name a/b -- true
[ $rc = 2 ] && grep -q "^kscen exec: --name: 'a/b' is not a name" "$tmp/err" &&
	pass exec_bad_name_refused || fail exec_bad_name_refused "rc=$rc $(cat "$tmp/err")"

# a run cut short that came from no file resumes from the text kept beside
# its journal, which goes with it
"$kscen" exec -r 4 -q -o "$tmp/cut" --compare none -- 'sleep 0.05' -- 'sleep 0.06' >/dev/null 2>&1 &
pid=$!
wait_journal 3 "$tmp/cut/exec/*.journal"
{ kill -9 $pid; wait $pid; } 2>/dev/null
journal=$(ls "$tmp"/cut/exec/*.journal 2>/dev/null)
kept=$([ -s "$journal.scenario" ] && echo yes)
run "$kscen" run -q --resume "$journal"
[ $rc = 0 ] && [ "$kept" = yes ] && [ ! -e "$journal" ] && [ ! -e "$journal.scenario" ] &&
	[ "$(ls "$tmp"/cut/exec/)" = "$(basename "${journal%.journal}").yaml" ] &&
	grep -q '^scenario_file: <exec>$' "$tmp"/cut/exec/*.yaml && grep -q '# 2 ok, 0 skipped, 0 failed' "$tmp/out" &&
	pass exec_cut_short_resumes || fail exec_cut_short_resumes "rc=$rc kept=$kept $(ls "$tmp/cut/exec") $(head -c 300 "$tmp/err")"

# ---- kscen run -: a scenario from stdin, kept with the run ------------------
run "$kscen" run -q -o "$res" - <$fx/e2e/tiny.yaml
stdin_run=$(ls "$res"/e2e-tiny/*.yaml 2>/dev/null | head -n1)
[ $rc = 0 ] && grep -q '^scenario_file: <stdin>$' "$stdin_run" && pass run_reads_stdin ||
	fail run_reads_stdin "rc=$rc $(head -c 300 "$tmp/err")"
if /usr/bin/python3 - "$stdin_run" $fx/e2e/tiny.yaml <<'PY'
import sys, yaml
r = yaml.safe_load(open(sys.argv[1]))
assert r["scenario_text"] == open(sys.argv[2]).read()
PY
then pass run_keeps_scenario_text; else fail run_keeps_scenario_text "$(head -c 300 "$stdin_run")"; fi
run "$kscen" validate - <$fx/bad/alias.yaml
[ $rc = 2 ] && grep -q '^<stdin>:8:15: YAML aliases are not allowed' "$tmp/err" &&
	pass validate_stdin_positions || fail validate_stdin_positions "rc=$rc $(cat "$tmp/err")"

# ---- kscen rerun: the kept text, not the file on disk -----------------------
sed 's/^repeat: 3/repeat: 4/' $fx/e2e/tiny.yaml >"$tmp/tiny.yaml"
run "$kscen" run -q -o "$tmp/rr" --filter 'sleep*' "$tmp/tiny.yaml"
first=$(ls "$tmp"/rr/e2e-tiny/*.yaml 2>/dev/null | head -n1)
sed -i 's/sleep 0.02/sleep 0.03/' "$tmp/tiny.yaml"	# the file changes after the run
new_second	# result files are named by the second their run started
run "$kscen" rerun -o "$tmp/rr" "$first"
second=$(ls "$tmp"/rr/e2e-tiny/*.yaml 2>/dev/null | tail -n1)
[ $rc = 0 ] && [ "$first" != "$second" ] && grep -qF "# reference: " "$tmp/out" &&
	grep -qF "$first" "$tmp/out" && grep -q '^# Running e2e-tiny/sleep/command=sleep 0.02$' "$tmp/out" &&
	! grep -q 'command=sleep 0.03\|value/' "$tmp/out" && grep -q 'vs last run' "$tmp/out" &&
	grep -q '^# kscen .*, 2 jobs, repeat 4 ' "$tmp/out" &&
	pass rerun_runs_the_kept_text_against_it || fail rerun_runs_the_kept_text_against_it "rc=$rc $(cat "$tmp/out" "$tmp/err" | head -c 900)"
grep -q '^filter: sleep\*$' "$second" && grep -q "^command: .* rerun -o " "$second" &&
	grep -q "^scenario_file: $tmp/tiny.yaml$" "$second" &&
	pass rerun_stored_as_what_it_is || fail rerun_stored_as_what_it_is "$(head -c 600 "$second")"
run "$kscen" rerun -r 2 -w 0 --no-save --compare none "$first"
[ $rc = 0 ] && grep -q '^# kscen .*, repeat 2 (warmup 0)$' "$tmp/out" && ! grep -q 'vs last run' "$tmp/out" &&
	pass rerun_options_win || fail rerun_options_win "rc=$rc $(head -c 400 "$tmp/out")"

# the mail ends with the command that reproduces it, and that command runs
run "$kscen" report --format mail "$first"
repro=$(tail -n1 "$tmp/out")
[ "$(tail -n2 "$tmp/out" | head -n1)" = "reproduce:" ] && [ "$repro" = "  kscen rerun $first" ] &&
	pass mail_ends_with_reproduce || fail mail_ends_with_reproduce "$(tail -n3 "$tmp/out")"
mkdir -p "$tmp/bin" && ln -sf "$kscen" "$tmp/bin/kscen"
run env PATH="$tmp/bin:$PATH" bash -c "$repro -q --no-save"
[ $rc = 0 ] && grep -q '# 2 ok, 0 skipped, 0 failed' "$tmp/out" && pass mail_reproduce_command_runs ||
	fail mail_reproduce_command_runs "rc=$rc $(head -c 300 "$tmp/err")"

# a stored text is hostile input like a file: the same checks, at its lines
# (the result rewritten by a YAML writer other than kscen's: PyYAML)
edit() {
	/usr/bin/python3 - "$first" "$1" "$2" <<'PY'
import sys, yaml
r = yaml.safe_load(open(sys.argv[1]))
how = sys.argv[3]
if how == "typo":
    r["scenario_text"] = r["scenario_text"].replace("workload: exec", "workload: exce", 1)
elif how == "alias":
    r["scenario_text"] = "x: &a 1\ny: *a\n" + r["scenario_text"]
else:
    del r["scenario_text"]
yaml.safe_dump(r, open(sys.argv[2], "w"), sort_keys=False)
PY
}
edit "$tmp/bad-text.yaml" typo
run "$kscen" rerun -o "$tmp/rr" "$tmp/bad-text.yaml"
[ $rc = 2 ] && grep -q "^$tmp/bad-text.yaml:scenario_text:7:15: job sleep: unknown workload 'exce'; did you mean 'exec'" "$tmp/err" &&
	[ "$(ls "$tmp"/rr/e2e-tiny/*.yaml | wc -l)" = 2 ] &&
	pass rerun_checks_text_as_a_file || fail rerun_checks_text_as_a_file "rc=$rc $(cat "$tmp/err")"
edit "$tmp/alias.yaml" alias
run "$kscen" rerun --no-save "$tmp/alias.yaml"
[ $rc = 2 ] && grep -q "^$tmp/alias.yaml:scenario_text:2:4: YAML aliases are not allowed" "$tmp/err" &&
	pass rerun_refuses_alias_in_text || fail rerun_refuses_alias_in_text "rc=$rc $(cat "$tmp/err")"
edit "$tmp/old.yaml" none
run "$kscen" rerun --no-save "$tmp/old.yaml"
[ $rc = 2 ] && grep -q "^kscen rerun: $tmp/old.yaml holds no scenario text" "$tmp/err" &&
	pass rerun_without_text_exit_2 || fail rerun_without_text_exit_2 "rc=$rc $(cat "$tmp/err")"
finish quick
