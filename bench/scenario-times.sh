#!/bin/bash
# scenario-times.sh [SCENARIO...] - how long `kscen run` takes on each
# scenario (default: every scenarios/*.yaml), the figures README.md gives
# ("about 5 s"). Each is run RUNS times (default 3, -n N), not saved,
# without a reference; printed: its wall time per run, the median, and the
# load average before each run (other work on the machine stretches it).
# Not part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
kscen=$(realpath "${KSCEN:-./kscen}")
runs=3
if [ "${1:-}" = -n ]; then
	runs=$2
	shift 2
fi
[ $# -gt 0 ] || set -- scenarios/*.yaml
printf '%s, %s, %d CPUs, %d runs each\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$(uname -r)" "$(nproc)" "$runs"
printf '%-32s %8s  %-24s %s\n' scenario median "runs (s)" "load average before each"
for sc in "$@"; do
	times=() loads=()
	for _ in $(seq "$runs"); do
		loads+=("$(cut -d' ' -f1 /proc/loadavg)")
		t0=$(date +%s.%N)
		"$kscen" run -q --no-save --compare none "$sc" >/dev/null 2>&1 || true
		times+=("$(echo "$(date +%s.%N) - $t0" | bc)")
	done
	med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END {
		print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
	printf '%-32s %8.1f  %-24s %s\n' "$(basename "$sc")" "$med" \
		"$(printf '%.1f ' "${times[@]}")" "${loads[*]}"
done
