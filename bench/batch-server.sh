#!/bin/bash
# batch-server.sh KSCEN [ROUNDS] [N] - what a fork server that takes a
# job's samples one after the other, the runner out of each sample's path,
# would cost a sample, against the harness as it is and the fork floor, in
# one run of alternating rounds (docs/performance.md, "The runner out of
# the path: an experiment"). KSCEN is a build with bench/batch-server.patch
# applied, which adds the switch KSCEN_EXP_BATCH=N to its server: it then
# forks N-1 sample processes of each request back to back before the one
# the runner hears of, and reaps each itself; with KSCEN_EXP_BATCH_WORK
# it also does for each what the runner does around a sample now (reads
# the sample cgroup's cpu.stat, kills the sample's group, sends a message).
# Each round, with the harness on CPU (round mod 2) (KSCEN_TEST_HARNESS_CPU)
# and syscall.basic at one loop:
#   plain      (a run of N*10+1 samples less a run of 1) / (N*10)
#   batch      (11 requests less 1, each N samples) / (N*10), KSCEN_EXP_BATCH=N
#   batchwork  the same with KSCEN_EXP_BATCH_WORK=1
#   floor      bench/fork-floor.c 400 pin, on the same CPU
# and prints each round in us a sample, then the median of each mode's
# ratio to the round's floor, its range, and how many rounds were under
# 1.5. Not part of `make test` (about a minute at the defaults).
#
#   git worktree add /tmp/batch HEAD && cd /tmp/batch &&
#       git apply bench/batch-server.patch && make && cd - &&
#       bench/batch-server.sh /tmp/batch/build/kscen 12 100
set -euo pipefail
k=$(realpath "$1") rounds=${2:-12} n=${3:-100}
if [ "$n" -lt 2 ] || [ "$n" -gt 120 ]; then
	echo "batch-server.sh: N from 2 to 120 (a pipe holds 138 records)" >&2
	exit 1
fi
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -Wl,-z,now -o "$tmp/fork-floor" bench/fork-floor.c
scen() {	# scen REPEAT
	printf 'scenario: batch\nrepeat: %d\nwarmup: 0\njobs:\n  - name: j\n    workload: syscall.basic\n    params: {loops: 1}\n' \
		"$1" >"$tmp/$1.yaml"
}
scen 1; scen 11; scen $((n * 10 + 1))
ns() {	# ns CPU REPEAT ENV...: wall nanoseconds of the run
	local cpu=$1 rep=$2 t0
	shift 2
	t0=$(date +%s%N)
	env "$@" KSCEN_TEST_HARNESS_CPU="$cpu" "$k" run -q --no-save --compare none "$tmp/$rep.yaml" \
		>/dev/null 2>&1 || { echo "batch-server.sh: $k failed" >&2; exit 1; }
	echo $(($(date +%s%N) - t0))
}
per() {	# per CPU BIG ENV...: us a sample, BIG less a 1-sample run over N*10
	local a b
	a=$(ns "$@")
	b=$(ns "$1" 1 "${@:3}")
	echo $(((a - b) / (n * 10) / 1000))
}
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  load: $(cut -d' ' -f1-3 /proc/loadavg)  rounds: $rounds  N: $n"
for r in $(seq "$rounds"); do
	cpu=$((r % 2))
	plain=$(per $cpu $((n * 10 + 1)) X=)
	batch=$(per $cpu 11 KSCEN_EXP_BATCH="$n")
	work=$(per $cpu 11 KSCEN_EXP_BATCH="$n" KSCEN_EXP_BATCH_WORK=1)
	floor=$(taskset -c $cpu "$tmp/fork-floor" 400 pin)
	echo "round $r cpu $cpu: plain $plain batch $batch batchwork $work floor $floor"
done | tee "$tmp/rounds"
awk '{ for (i = 6; i <= 10; i += 2) r[$(i - 1)] = r[$(i - 1)] " " $i / $12 }
     END { for (m in r) print m, r[m] }' "$tmp/rounds" | sort | while read -r m vals; do
	tr ' ' '\n' <<<"$vals" | sort -g | awk -v m="$m" '{ a[NR] = $1; u += $1 < 1.5 }
		END { med = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      printf "%-10s over the floor: median %.2f, %.2f-%.2f, %d of %d rounds under 1.5\n",
			     m, med, a[1], a[NR], u, NR }'
done
