#!/bin/bash
# memory.sh - kscen's own memory and its response to SIGINT at scale: the
# figures in docs/reliability.md. Not part of `make test` (about a minute).
#
#  1. peak RSS of a 10,000-job run (syscall.basic, 1,000 getppid() a sample,
#     repeat 1, warmup 0, saved), and its wall time;
#  2. peak RSS and time of `kscen plan` of a 10^6-job matrix (1000 x 1000);
#  3. 100,000 jobs with -r 1000000: peak RSS after 3 s of sampling (memory
#     follows the samples taken, not the repeat asked for), and the time from
#     SIGINT to exit.
# Peak RSS is GNU time's "Maximum resident set size"; KSCEN (./kscen).
set -euo pipefail
cd "$(dirname "$0")/.."
kscen=$(realpath "${KSCEN:-./kscen}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

matrix() {	# matrix NAME A B: a syscall.basic job on an A x B matrix
	{
		echo "scenario: $1"
		echo "repeat: 1"
		echo "warmup: 0"
		echo "jobs:"
		echo "  - name: m"
		echo "    workload: syscall.basic"
		echo "    params:"
		echo "      loops: [$(seq -s, 1000 $((999 + $2)))]"
	} >"$tmp/$1.yaml"
}
rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
wall() { sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$1"; }

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  load: $(cut -d' ' -f1-3 /proc/loadavg)"

matrix run10k 10000 1
/usr/bin/time -v "$kscen" run -q -o "$tmp/res" --compare none "$tmp/run10k.yaml" \
	>/dev/null 2>"$tmp/t1" || true
echo "10,000-job run:       peak RSS $(rss "$tmp/t1") KiB, wall $(wall "$tmp/t1")," \
	"result file $(du -k "$tmp"/res/run10k/*.yaml | cut -f1) KiB"

# 10^6 jobs: two axes of 1000 (exec's command and metric_name).
{
	echo "scenario: plan1m"
	echo "jobs:"
	echo "  - name: m"
	echo "    workload: exec"
	echo "    params:"
	echo "      command: [$(seq -f '"true %g"' -s, 1 1000)]"
	echo "      metric_name: [$(seq -f 'm%g' -s, 1 1000)]"
} >"$tmp/plan1m.yaml"
/usr/bin/time -v "$kscen" plan --max-jobs 1000000 "$tmp/plan1m.yaml" \
	>"$tmp/plan.out" 2>"$tmp/t2"
echo "10^6-job plan:        peak RSS $(rss "$tmp/t2") KiB, wall $(wall "$tmp/t2")," \
	"$(tail -1 "$tmp/plan.out")"

# 10^5 jobs, -r 1000000: 100 x 1000.
{
	echo "scenario: big"
	echo "jobs:"
	echo "  - name: m"
	echo "    workload: exec"
	echo "    params:"
	echo "      command: [$(seq -f '"true %g"' -s, 1 100)]"
	echo "      metric_name: [$(seq -f 'm%g' -s, 1 1000)]"
} >"$tmp/big.yaml"
/usr/bin/time -v "$kscen" run -q -r 1000000 -w 0 --no-save --compare none \
	"$tmp/big.yaml" >/dev/null 2>"$tmp/t3" &
pid=$!
sleep 3
kid=$(pgrep -P $pid -x kscen || true)	# time's child: kscen itself
t0=$(date +%s.%N)
kill -INT "${kid:-$pid}"
wait $pid || true
t1=$(date +%s.%N)
echo "10^5 jobs x -r 10^6:  peak RSS $(rss "$tmp/t3") KiB after 3 s;" \
	"SIGINT to exit $(echo "$t1 - $t0" | bc) s"
