#!/bin/bash
# run.sh BUILD SECONDS TARGET... - replay each target's regression inputs
# (tests/fuzz/regress/TARGET/, every crasher found so far), then fuzz it for
# SECONDS from a corpus seeded by tests/fixtures and tests/fuzz/seeds/TARGET
# (hostile result files and journals: injections, .inf, damaged records;
# kept in BUILD/corpus/, never in the repository). Fails on the first crash, leak or sanitizer
# report; a new crasher is left as BUILD/crash-* to be fixed and kept.
set -euo pipefail
build=$1 secs=$2
shift 2
here=$(dirname "$0")
fx=$here/../fixtures

seeds() {
	case $1 in
	scenario) ls "$fx"/good/*.yaml "$fx"/bad/*.yaml "$fx"/e2e/*.yaml \
		"$fx"/golden/*.yaml "$here"/../../scenarios/*.yaml 2>/dev/null ;;
	result) ls "$fx"/results/*.yaml "$fx"/golden/results/*/*.yaml "$here"/seeds/result/* 2>/dev/null ;;
	value) ls "$here"/seeds/value/* 2>/dev/null ;;
	journal) ls "$here"/seeds/journal/* 2>/dev/null ;;
	esac
}

for t in "$@"; do
	bin=$build/fuzz_$t corpus=$build/corpus/$t
	mkdir -p "$corpus"
	seeds "$t" | while read -r f; do cp -f "$f" "$corpus/"; done
	if ls "$here"/regress/"$t"/* >/dev/null 2>&1; then
		echo "fuzz $t: replaying $(ls "$here"/regress/"$t" | wc -l) regression inputs"
		"$bin" -close_fd_mask=3 "$here"/regress/"$t"/*
	fi
	echo "fuzz $t: ${secs}s from $(ls "$corpus" | wc -l) inputs"
	"$bin" -close_fd_mask=3 -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$build/" \
		"$corpus" 2>&1 | grep -E '^(#[0-9]+.*(DONE|INITED)|stat::|INFO: seed|==[0-9]+==|SUMMARY|artifact_prefix|Test unit written)' || true
	[ "${PIPESTATUS[0]}" = 0 ] || { echo "fuzz $t: FAILED"; exit 1; }
done
