#!/bin/bash
# expand.sh [KSCEN] - end-to-end tests: one expander's behaviour. On every
# scenario of the repository (the fixtures, the fuzzer's regression inputs,
# scenarios/): validate, plan and run --dry-run exit alike, list the same
# ids in the same order and count (plan and validate walk the jobs one at a
# time, run expands the matrix whole), or say the same errors; on the
# matrices of good/ and golden/ also with --filter (run keeps the filtered
# jobs and their baselines) and --shard.
. "$(dirname "$0")/lib.sh"

agree() {	# NAME ARGS...: plan ARGS and run --dry-run ARGS print the same
	local name=$1
	shift
	"$kscen" plan "$@" >"$tmp/plan" 2>"$tmp/plan.err"
	prc=$?
	"$kscen" run --dry-run --compare none -o "$tmp/none" "$@" >"$tmp/dry" 2>"$tmp/dry.err"
	drc=$?
	if [ "$prc" = 0 ] && [ "$(tail -n1 "$tmp/plan")" = "0 jobs" ]; then
		# run refuses a filter that keeps nothing
		[ "$drc" = 2 ] && grep -q 'matches none' "$tmp/dry.err" && pass "$name" ||
			fail "$name" "plan: 0 jobs; run --dry-run: exit $drc $(head -c 300 "$tmp/dry.err")"
	elif [ "$prc" != "$drc" ]; then
		fail "$name" "plan exit $prc, run --dry-run exit $drc: $(head -c 300 "$tmp/plan.err" "$tmp/dry.err")"
	elif ! cmp -s "$tmp/plan" "$tmp/dry" || ! cmp -s "$tmp/plan.err" "$tmp/dry.err"; then
		fail "$name" "$(diff "$tmp/plan" "$tmp/dry" | head -n 6; diff "$tmp/plan.err" "$tmp/dry.err" | head -n 6)"
	else
		pass "$name"
	fi
}
for f in $(find $fx -name '*.yaml' -not -path '*/results/*' | sort) tests/fuzz/regress/scenario/* \
	 scenarios/*.yaml; do
	name=agree_$(echo "${f#tests/}" | tr -c 'a-zA-Z0-9\n' _)
	name=${name%_yaml}
	"$kscen" validate "$f" >"$tmp/val" 2>"$tmp/val.err"
	vrc=$?
	agree "$name" "$f"
	[ "$prc" = "$vrc" ] && { [ "$vrc" != 0 ] || [ "$(cat "$tmp/val")" = "$f: ok, $(tail -n1 "$tmp/plan")" ]; } &&
		{ [ "$vrc" = 0 ] || cmp -s "$tmp/val.err" "$tmp/plan.err"; } &&
		pass "${name}_validate" ||
		fail "${name}_validate" "validate exit $vrc: $(head -c 300 "$tmp/val" "$tmp/val.err")"
	[ "$prc" = 0 ] && case $f in $fx/good/* | $fx/golden/*) true ;; *) false ;; esac || continue
	first=$(head -n1 "$tmp/plan") last=$(tail -n2 "$tmp/plan" | head -n1)
	agree "${name}_filter_one" --filter "$last" "$f"
	agree "${name}_filter_entry" --filter "${first%%/*}/*" "$f"
	agree "${name}_shard" --shard 2/3 "$f"
done

# A dry run takes nothing and makes nothing: no results directory, no journal.
run "$kscen" run -n -o "$tmp/made" $fx/e2e/tiny.yaml
[ $rc = 0 ] && [ ! -e "$tmp/made" ] && [ "$(tail -n1 "$tmp/out")" = "3 jobs" ] &&
	pass dry_run_creates_nothing || fail dry_run_creates_nothing "rc=$rc $(ls "$tmp/made" 2>&1)"
run "$kscen" run -n --resume "$tmp/x.journal"
[ $rc = 2 ] && grep -q 'dry-run' "$tmp/err" && pass dry_run_refuses_resume ||
	fail dry_run_refuses_resume "rc=$rc $(cat "$tmp/err")"
finish expand
