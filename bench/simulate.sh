#!/bin/sh
# simulate.sh [history | ROUND_CV...] - build a simulation against kscen's
# objects and run it. Not in make test.
#   simulate.sh [ROUND_CV...]   bench/simulate.c: the test within a run (default:
#                               no shared round noise, then 10%)
#   simulate.sh history         bench/simulate-history.c: verdicts between runs
#                               on synthetic histories, and the FDR of 100 jobs
#                               (SIM_TRIALS=N trials a line, default 2000)
set -e
cd "$(dirname "$0")/.."
make --no-print-directory kscen >/dev/null
# the objects of today's sources (a build directory may hold stale ones)
objs=$(ls runner/*/*.c schemas/*.c | grep -v '^runner/cli/main\.c$' | sed 's,^,build/,; s,\.c$,.o,')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
prog=bench/simulate.c
[ "${1:-}" = history ] && prog=bench/simulate-history.c
gcc -O2 -std=gnu11 -Wall -Wextra -Irunner -Ischemas -Ibuild/bpf "$prog" $objs \
	-lcyaml -lyaml -lbpf -lelf -lz -lpthread -lm -ldl -ljansson -o "$out"
if [ "${1:-}" = history ]; then
	"$out"
	exit
fi
[ $# -gt 0 ] || set -- 0 0.1
for r in "$@"; do "$out" "$r"; done
