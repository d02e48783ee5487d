#!/bin/bash
# sample-cost.sh - where the harness time of a sample goes (figure 2 of
# docs/performance.md): page faults and context switches per sample of
# syscall.basic at 1,000 loops (perf stat of a 201- and a 1-sample run), and
# what one fault, one wake-up round trip, one process and one cgroup join
# cost here (sample-cost.c). Needs perf for the first part, root and
# cgroup v2 for the join. About 10 s.
# KSCEN (./kscen).
set -euo pipefail
cd "$(dirname "$0")/.."
kscen=$(realpath "${KSCEN:-./kscen}")
tmp=$(mktemp -d)
cg=
cleanup() { [ -n "$cg" ] && rmdir "$cg" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'scenario: sys\nrepeat: 1\nwarmup: 0\njobs:\n  - name: j\n    workload: syscall.basic\n    params: {loops: 1000}\n' >"$tmp/sys.yaml"
if command -v perf >/dev/null; then
	for r in 1 201; do
		perf stat -x, -e page-faults,context-switches -o "$tmp/stat$r" \
			"$kscen" run -q --no-save --compare none -r $r "$tmp/sys.yaml" >/dev/null 2>&1
	done
	for e in page-faults context-switches; do
		a=$(grep ",$e" "$tmp/stat1" | cut -d, -f1)
		b=$(grep ",$e" "$tmp/stat201" | cut -d, -f1)
		printf '%s per sample: %.1f\n' "$e" "$(echo "($b - $a) / 200" | bc -l)"
	done
else
	echo "faults and switches per sample: skipped, no perf (apt-get install linux-perf)"
fi
cc -O2 -o "$tmp/sample-cost" bench/sample-cost.c
for root in /sys/fs/cgroup /run/kscen/cgroup2; do
	if [ "$(stat -f -c %T "$root" 2>/dev/null)" = cgroup2fs ] &&
	   mkdir "$root/kscen-sample-cost-$$" 2>/dev/null; then
		cg=$root/kscen-sample-cost-$$
		break
	fi
done
[ -n "$cg" ] || echo "cgroup join: skipped, no writable cgroup v2 (kscen run mounts one as root)"
"$tmp/sample-cost" $cg
