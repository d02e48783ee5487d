#!/bin/bash
# fuzz.sh [KSCEN] - the fuzz targets (tests/fuzz/) replayed without
# libFuzzer by build/fuzz-replay-X, built beside KSCEN: every regression
# input (tests/fuzz/regress/X/, a test each) and the seeds make fuzz starts
# from (the fixtures, scenarios/, tests/fuzz/seeds/). What a target checks
# aborts on a difference; make asan runs them under the sanitizers.
. "$(dirname "$0")/lib.sh"
bin=$(dirname "$kscen")

# replay NAME TARGET FILE...: one process for the files; on a failure the
# input it was at is the last one named.
replay() {
	local name=$1 target=$2
	shift 2
	if [ ! -x "$bin/fuzz-replay-$target" ]; then
		fail "$name" "$bin/fuzz-replay-$target not built (make test builds it)"
		return
	fi
	run "$bin/fuzz-replay-$target" "$@"
	[ "$rc" = 0 ] && pass "$name" ||
		fail "$name" "exit $rc at $(grep '^replay ' "$tmp/err" | tail -n1 | cut -c8-): $(grep -v '^replay ' "$tmp/err" | tail -n 5)"
}

for t in scenario result value; do
	for f in tests/fuzz/regress/$t/*; do
		[ -e "$f" ] || continue
		replay "fuzz_regress_${t}_$(basename "$f" | tr -c 'a-zA-Z0-9\n' _)" "$t" "$f"
	done
done
replay fuzz_seeds_scenario scenario $fx/good/*.yaml $fx/bad/*.yaml $fx/e2e/*.yaml \
	$fx/golden/*.yaml scenarios/*.yaml
replay fuzz_seeds_result result $fx/results/*.yaml $fx/golden/results/*/*.yaml
replay fuzz_seeds_value value tests/fuzz/seeds/value/*
finish fuzz
