#!/bin/bash
# profile.sh [KSCEN] - end-to-end tests: profiles (profile:, run --profile, the folded files, reports and flame graphs).
. "$(dirname "$0")/lib.sh"

# ---- profiles -------------------------------------------------------------
run "$kscen" plot --help
[ $rc = 0 ] && grep -q 'usage: kscen plot .*--flame JOB' "$tmp/out" && pass help_plot || fail help_plot "rc=$rc"
run "$kscen" plot --flame x $fx/e2e/tiny.yaml
[ $rc = 2 ] && grep -q 'needs --flame JOB, one RESULT and -o FILE.svg' "$tmp/err" &&
	pass plot_without_output_exit_2 || fail plot_without_output_exit_2 "rc=$rc $(cat "$tmp/err")"
if ! why=$(need_bpf); then
	skip profile_syscall_kernel_path "$why (the skip path is tested below)"
else
	pres=$tmp/profile-res
	run "$kscen" run -q -o "$pres" --compare none $fx/e2e/profile.yaml
	pfile=$(ls "$pres"/e2e-profile/*.yaml 2>/dev/null | head -1)
	pdir=${pfile%.yaml}.profiles
	folded="$pdir/syscall%2Floops=150000.folded"
	# The kernel's system call path, outermost first, under getppid's user frame.
	if [ $rc = 0 ] && [ -s "$folded" ] &&
	   grep -q 'entry_SYSCALL_64[a-z_]*_\[k\];do_syscall_64_\[k\];.*__x64_sys_getppid_\[k\]' "$folded"; then
		pass profile_syscall_kernel_path
	else
		fail profile_syscall_kernel_path "rc=$rc $(head -c 600 "$folded" "$tmp/err" 2>&1)"
	fi
	# Every line: frames, a space, a count (flamegraph.pl's input).
	if [ -s "$folded" ] && ! grep -Evq '^[^ ].* [0-9]+$' "$folded"; then
		pass profile_folded_format; else fail profile_folded_format "$(head -3 "$folded")"; fi
	if grep -q '^# Profile: kscen bpf, \(cycles\|cpu-clock\) at 999 Hz, scope job' "$tmp/out" &&
	   grep -Eq '^ +[0-9.]+% +[0-9.]+% +\[k\] ' "$tmp/out" &&
	   grep -q '^# Profile against baseline (syscall/loops=50000)' "$tmp/out" &&
	   grep -Eq '^ +[<0-9.]+% +[<0-9.]+% +[-+][0-9.]+% +\[[k.]\] ' "$tmp/out"; then
		pass profile_text_report_top_and_diff
	else
		fail profile_text_report_top_and_diff "$(cat "$tmp/out")"
	fi
	if grep -q '^  profile:' "$pfile" && grep -q 'symbol: do_syscall_64' "$pfile" &&
	   grep -q 'kernel_stacks_lost: ' "$pfile"; then
		pass profile_stored_in_result; else fail profile_stored_in_result "$(grep -A12 'profile:' "$pfile" | head -30)"; fi
	run "$kscen" report --format markdown "$pfile"
	[ $rc = 0 ] && grep -q '^### Profiles' "$tmp/out" &&
		grep -q '^| baseline | job | delta | symbol |' "$tmp/out" &&
		grep -Eq '^\| [0-9.]+% \| [0-9.]+% \| `\[k\] [^`]+` \|$' "$tmp/out" &&
		pass profile_markdown_report || fail profile_markdown_report "rc=$rc $(cat "$tmp/out")"
	# Flame graphs: well-formed SVG, the kernel path in the tooltips, the
	# bottom box as wide as the graph; the differential one coloured.
	run "$kscen" plot --flame syscall/loops=150000 "$pfile" -o "$tmp/flame.svg"
	if [ $rc = 0 ] && /usr/bin/python3 - "$tmp/flame.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
titles = [g.find("s:title", ns).text for g in root.iter("{http://www.w3.org/2000/svg}g")]
rects = [g.find("s:rect", ns) for g in root.iter("{http://www.w3.org/2000/svg}g")]
assert titles[0].startswith("all (") and abs(float(rects[0].get("width")) - 1180) < 0.5, titles[0]
assert any(t.startswith("do_syscall_64 [kernel] (") for t in titles), titles
assert any(t.startswith("entry_SYSCALL_64") for t in titles), titles
PY
	then pass profile_flame_graph_svg; else fail profile_flame_graph_svg "rc=$rc $(cat "$tmp/err")"; fi
	run "$kscen" plot --flame syscall/loops=150000 --diff "$pfile" -o "$tmp/diff.svg"
	[ $rc = 0 ] && grep -q 'Differential flame graph: syscall/loops=150000 against syscall/loops=50000' "$tmp/diff.svg" &&
		grep -q 'baseline [0-9.]*%, [-+][0-9.]*%)</title>' "$tmp/diff.svg" &&
		grep -Eq 'fill="rgb\((255,[0-9]+,[0-9]+|[0-9]+,[0-9]+,255)\)"' "$tmp/diff.svg" &&
		pass profile_flame_graph_diff || fail profile_flame_graph_diff "rc=$rc $(cat "$tmp/err")"
	run "$kscen" plot --flame nosuch/job "$pfile" -o "$tmp/x.svg"
	[ $rc = 2 ] && grep -q "no job 'nosuch/job'" "$tmp/err" && [ ! -e "$tmp/x.svg" ] &&
		pass profile_flame_unknown_job || fail profile_flame_unknown_job "rc=$rc $(cat "$tmp/err")"
	run "$kscen" plot --flame syscall/loops=50000 --diff "$pfile" -o "$tmp/diff2.svg"
	[ $rc = 2 ] && grep -q 'has no baseline' "$tmp/err" && pass profile_flame_diff_needs_baseline ||
		fail profile_flame_diff_needs_baseline "rc=$rc $(cat "$tmp/err")"

	run "$kscen" compare "$pfile" "$pfile"
	[ $rc = 0 ] && grep -q '^# Profile against old run' "$tmp/out" &&
		grep -Eq '^ +[0-9.]+% +[0-9.]+% +\+0\.00% +\[[k.]\] ' "$tmp/out" &&
		! grep -Eq '[-+]0*[1-9][0-9]*\.[0-9]+% +\[' "$tmp/out" &&
		pass profile_compare_runs || fail profile_compare_runs "rc=$rc $(cat "$tmp/out")"

	# kptr_restrict hides kernel addresses: said, and nothing misnamed.
	sed 's/^[0-9a-f]*/0000000000000000/' /proc/kallsyms >"$tmp/kallsyms0"
	KSCEN_KALLSYMS=$tmp/kallsyms0 run "$kscen" run -q --no-save --compare none --filter '*150000' $fx/e2e/profile.yaml
	[ $rc = 0 ] && grep -q '^# kernel symbols hidden from this user (kptr_restrict=[0-9]): kernel frames unnamed' "$tmp/out" &&
		! grep -Eq '\[k\] [a-z_]' "$tmp/out" && pass profile_kptr_restrict_said ||
		fail profile_kptr_restrict_said "rc=$rc $(cat "$tmp/out")"

	# A known user function of a test program, named from its ELF symbols.
	if command -v cc >/dev/null && cc -O1 -o "$tmp/hot" $fx/e2e/hot.c 2>"$tmp/err"; then
		printf 'scenario: e2e-hot\nrepeat: 1\nwarmup: 0\njobs:\n  - name: hot\n    workload: exec\n    params: {command: "%s 200"}\n    profile: {stacks: user}\n' \
			"$tmp/hot" >"$tmp/hot.yaml"
		run "$kscen" run -q -o "$pres" --compare none "$tmp/hot.yaml"
		hfile=$(ls "$pres"/e2e-hot/*.yaml 2>/dev/null | head -1)
		if [ $rc = 0 ] && grep -A2 '^#     Self' "$tmp/out" | grep -q '\[\.\] kscen_hot_spin$' &&
		   grep -q '^hot;.*kscen_hot_spin [0-9]*$' "${hfile%.yaml}.profiles/hot%2Fcommand=${tmp//\//%2F}%2Fhot%20200.folded" &&
		   grep -Eq "^ *- .*/hot [0-9a-f]{40}\$" "$hfile" &&
		   "$kscen" plot --flame "hot/command=$tmp/hot 200" "$hfile" -o "$tmp/hot.svg" &&
		   grep -q '<title>kscen_hot_spin (' "$tmp/hot.svg"; then
			pass profile_user_function_of_test_program
		else
			fail profile_user_function_of_test_program "rc=$rc $(cat "$tmp/out") $(ls "${hfile%.yaml}.profiles")"
		fi
	else
		skip profile_user_function_of_test_program "no C compiler"
	fi

	if command -v perf >/dev/null; then
		sed 's/profile: {top: 8}/profile: {top: 8, profiler: perf}/' $fx/e2e/profile.yaml >"$tmp/perf.yaml"
		run "$kscen" run -q -o "$pres" --compare none --filter '*150000' "$tmp/perf.yaml"
		pf=$(ls -t "$pres"/e2e-profile/*.profiles/syscall%2Floops=150000.folded | head -1)
		[ $rc = 0 ] && grep -q '^# Profile: perf record' "$tmp/out" &&
			grep -q '__x64_sys_getppid_\[k\]' "$pf" && pass profile_perf_record ||
			fail profile_perf_record "rc=$rc $(cat "$tmp/out" "$tmp/err")"
	else
		skip profile_perf_record "perf is not installed"
	fi
fi
if why=$(need_setpriv); then
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$kscen" run -q --no-save --compare none --profile $fx/e2e/tiny.yaml
	[ $rc = 0 ] && grep -q '^# Profile: none, profile skipped: needs root or CAP_BPF' "$tmp/out" &&
		grep -q '# 3 ok, 0 skipped, 0 failed' "$tmp/out" && pass profile_unprivileged_is_skipped ||
		fail profile_unprivileged_is_skipped "rc=$rc $(cat "$tmp/out" "$tmp/err")"
else
	skip profile_unprivileged_is_skipped "$why"
fi
# A run --profile cut short resumes with its profiles: the journal keeps
# --profile, and the profiles are taken after the rounds, replayed ones
# included. It used to resume without them.
if ! why=$(need_bpf); then
	skip resume_keeps_profile "$why"
else
	cat >"$tmp/ps.yaml" <<'YAML'
scenario: e2e-resume-profile
repeat: 8
jobs:
  - {name: s, workload: exec, params: {command: "sleep 0.05"}}
  - {name: t, workload: exec, params: {command: "sleep 0.04"}}
YAML
	# held in its fourth sample by the gate (lib.sh) until it is killed
	gate "$tmp/gate" 3
	PATH=$tmp/gate:$PATH "$kscen" run -q -o "$tmp/rp" --profile --compare none "$tmp/ps.yaml" \
		>/dev/null 2>&1 &
	pid=$!
	wait_for 60 eval '[ "$(cat "$tmp"/rp/e2e-resume-profile/*.journal 2>/dev/null |
		grep -c "^s ")" -ge 3 ]'
	{ kill -9 $pid; wait $pid; } 2>/dev/null
	touch "$tmp/gate/open"
	journal=$(ls "$tmp"/rp/e2e-resume-profile/*.journal 2>/dev/null)
	run "$kscen" run -q --resume "$journal"
	rfile=$(ls "$tmp"/rp/e2e-resume-profile/*.yaml 2>/dev/null)
	[ $rc = 0 ] && [ -n "$journal" ] && [ ! -e "$journal" ] &&
		[ "$(grep -c '^  profile:' "$rfile" 2>/dev/null)" = 2 ] &&
		pass resume_keeps_profile ||
		fail resume_keeps_profile "rc=$rc journal=$journal $(ls "$tmp/rp/e2e-resume-profile") $(cat "$tmp/err")"
fi
finish profile
