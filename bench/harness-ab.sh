#!/bin/bash
# harness-ab.sh OLD NEW [ROUNDS] [N] - what two kscen builds cost a sample,
# in one run of alternating rounds: each round runs an N+1- and a 1-sample
# run of syscall.basic at 1,000 loops with each build (the order swapped
# every round), with the harness on CPU (round mod 2) for both builds
# (KSCEN_TEST_HARNESS_CPU: this VM's two vCPUs differ in speed), and takes
# the wall time difference over N as the build's time a sample. Prints each
# round, the median of each build and the median of the rounds' NEW/OLD.
# The workload is the same on both sides, so the difference is the harness.
# Not part of `make test` (about 2 minutes at the defaults). Used in
# docs/performance.md ("The harness as a batch task").
#
#   cp build/kscen /tmp/kscen-old   # before a change; rebuild; then
#   bench/harness-ab.sh /tmp/kscen-old ./build/kscen 16 200
set -euo pipefail
old=$(realpath "$1") new=$(realpath "$2") rounds=${3:-16} n=${4:-200}
[ "$old" != "$new" ] || { echo "harness-ab.sh: OLD and NEW are one file; copy one" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scen() {	# scen FILE REPEAT
	printf 'scenario: ab\nrepeat: %d\nwarmup: 0\njobs:\n  - name: j\n    workload: syscall.basic\n    params: {loops: 1000}\n' \
		"$2" >"$1"
}
scen "$tmp/n.yaml" $((n + 1))
scen "$tmp/1.yaml" 1
ns() {	# ns CPU KSCEN SCENARIO: wall nanoseconds of the run
	local t0
	t0=$(date +%s%N)
	KSCEN_TEST_HARNESS_CPU=$1 "$2" run -q --no-save --compare none "$3" >/dev/null 2>&1 ||
		{ echo "harness-ab.sh: $2 failed" >&2; exit 1; }
	echo $(($(date +%s%N) - t0))
}
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  load: $(cut -d' ' -f1-3 /proc/loadavg)  rounds: $rounds  N: $n"
for r in $(seq "$rounds"); do
	cpu=$((r % 2))
	if ((r % 2)); then order="old new"; else order="new old"; fi
	for side in $order; do
		b=$old
		[ $side = new ] && b=$new
		tn=$(ns $cpu "$b" "$tmp/n.yaml")
		t1=$(ns $cpu "$b" "$tmp/1.yaml")
		echo "$r $cpu $side $(((tn - t1) / n / 1000))"
	done
done | tee "$tmp/rounds"
awk '
	$3 == "old" { o[$1] = $4 } $3 == "new" { w[$1] = $4 }
	END {
		for (r in o) { n++; a[n] = o[r]; b[n] = w[r]; q[n] = w[r] / o[r]; f += w[r] < o[r] }
		printf "old %d us a sample, new %d us (medians); new/old by round: median %.3f, new faster in %d of %d\n",
			med(a, n), med(b, n), med(q, n), f, n
	}
	function med(x, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
	}' "$tmp/rounds"
