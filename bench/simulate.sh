#!/bin/sh
# simulate.sh [ROUND_CV...] - build bench/simulate.c against kscen's objects
# and run it (default: no shared round noise, then 10%). Not in make test.
set -e
cd "$(dirname "$0")/.."
make --no-print-directory kscen >/dev/null
objs=$(ls build/runner/*/*.o build/schemas/*.o | grep -v 'runner/cli/main\.o$')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
gcc -O2 -std=gnu11 -Wall -Wextra -Irunner -Ischemas -Ibuild/bpf bench/simulate.c $objs \
	-lcyaml -lyaml -lbpf -lelf -lz -lpthread -lm -o "$out"
[ $# -gt 0 ] || set -- 0 0.1
for r in "$@"; do "$out" "$r"; done
