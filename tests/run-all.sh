#!/bin/bash
# run-all.sh UNIT_TESTS KSCEN - the unit tests (cmocka), then every area of
# the end-to-end tests (tests/e2e/*.sh); the last line adds them all up:
# "N passed, N failed, N skipped". Exit 1 if a test failed or a suite did
# not finish (no summary line).
set -u
unit=$1 kscen=$2
here=$(dirname "$0")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
suites=0

# cmocka prints one summary per group: "[  PASSED  ] N test(s)." and,
# when there are, "[  FAILED  ] N test(s), ..." and "[  SKIPPED ] N test(s)".
"$unit" 2>&1 | tee -a "$out"
suites=$((suites + 1))
for t in "$here"/e2e/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	"$t" "$kscen" 2>&1 | tee -a "$out"
	suites=$((suites + 1))
done
awk -v suites="$suites" '
	/^\[==========\] [0-9]+ test\(s\) run\./ { groups++ }
	/^\[  PASSED  \] [0-9]+ test/ { p += $4 }
	/^\[  FAILED  \] [0-9]+ test/ { f += $4 }
	/^\[  SKIPPED \] [0-9]+ test/ { s += $4 }
	/^e2e-[a-z]+: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ {
		p += $2; f += $4; s += $6; done++ }
	END {
		if (groups < 1 || done != suites - 1) { print "a suite did not finish"; f++ }
		printf "%d passed, %d failed, %d skipped\n", p, f, s
		exit f != 0
	}' "$out"
