#!/bin/sh
# run-all.sh UNIT_TESTS KSCEN - run the unit tests, then the end-to-end
# tests, and add their "N passed, N failed" lines up into the last line.
unit=$1 kscen=$2
here=$(dirname "$0")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$unit" | tee "$out"
"$here/e2e.sh" "$kscen" | tee -a "$out"
awk '/^(unit|e2e): [0-9]+ passed, [0-9]+ failed/ { p += $2; f += $4; n++ }
     END { if (n != 2) { print "a suite did not finish"; f++ }
           printf "%d passed, %d failed\n", p, f; exit f != 0 }' "$out"
