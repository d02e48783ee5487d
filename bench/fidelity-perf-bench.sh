#!/bin/bash
# fidelity-perf-bench.sh [--quick] [--force] [--filter GLOB] [--short N]
# [REPEAT] - every
# kscen twin of a perf bench benchmark beside perf bench itself, with the
# same parameters, in one kscen run whose rounds alternate the jobs (so load
# hits both sides alike), and one table: the median of each side, their
# ratio kscen/perf with its 95% interval (kscen's own to-baseline change:
# from the rounds' pairs when the two sides correlate over the rounds, else
# the Hodges-Lehmann estimate and the Moses interval), the CV of each, and
# the load on the machine. A point is within 10% when its whole interval is in
# 0.90-1.10, outside when all of it is out, and "cannot tell" otherwise.
# The points are in bench/fidelity-points.py; the numbers and what they
# mean are in docs/fidelity.md.
#
#   REPEAT     samples a side after one warmup (default 15; --quick: 5, and
#              no warmup). The futex latency rounds, whose samples vary by
#              60-180%, get three times as many, in a second run (about a
#              second each), and so does sched messaging in thread mode.
#              41 took 28 minutes on 2026-12-06, 17 of them the futex
#              rounds'. The single-threaded memory benchmarks
#              (mem memcpy, memset, find_bit) run in a third run, all of
#              it on one CPU (taskset -c, the last CPU allowed): kscen's
#              in-process twin runs on its harness's CPU and an executed
#              perf where the scheduler puts it, and a VM's vCPUs may
#              differ in speed (docs/fidelity.md). For the same reason
#              perf's futex requeue rounds run with their main thread on
#              the CPU of kscen's harness, where kscen's twin starts its
#              own (bench/perf-on-harness-cpu); futex wake's waker is
#              pinned on both sides to the first CPU, the first worker's
#              (waker_cpu, bench/perf-on-first-cpu): where it runs decides
#              whether the worker it wakes preempts it. Not wake-parallel,
#              whose wakers are threads of their own.
#   --force    report even when the machine is not quiet (load average over
#              0.5 before the run, or other work using more than half a CPU
#              during it); the table then says so. KSCEN_FIDELITY_FORCE=1 too.
#   --filter   run only the jobs matching GLOB (kscen run --filter), e.g.
#              '*futex*'; the other points show as not run.
#   --short N  N times REPEAT samples for the points of the second run
#              (default 3): --filter '?-futex-wake*' --short 12 41 narrows
#              the futex wake intervals in about 35 minutes.
#   PERF       the perf binary (default /usr/bin/perf). Benchmarks after
#              6.1 (syscall getpgid/fork/execve, sched seccomp-notify,
#              uprobe) get a perf side when this perf has them.
#   KSCEN      the kscen binary (default ./kscen)
#   KSCEN_FIDELITY_KEEP  a directory to keep the three stored runs in
#              (kscen's result files, for `kscen report` or another look
#              at the samples); by default they go with the run.
#
# Exit status: 0 with the table, 3 when the machine was not quiet and
# --force was not given (the figures are then not printed), 1 on an error.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=15 warmup=1 force=${KSCEN_FIDELITY_FORCE:-0} filter=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) repeat=5 warmup=0 ;;
	--force) force=1 ;;
	--filter) filter=(--filter "$2"); shift ;;
	--short) [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "--short takes a count" >&2; exit 1; }
		export KSCEN_FIDELITY_SHORT=$2; shift ;;
	[0-9]*) repeat=$1 ;;
	*) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 1 ;;
	esac
	shift
done
perf=${PERF:-/usr/bin/perf}
export PERF=$perf	# for bench/perf-on-harness-cpu
kscen=${KSCEN:-./kscen}
[ -x "$perf" ] || { echo "no perf at $perf (apt-get install linux-perf, or PERF=...)" >&2; exit 1; }
[ -x "$kscen" ] || { echo "no kscen at $kscen (make, or KSCEN=...)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

limit=0.5
quiet() { awk -v a="$1" -v l="$limit" 'BEGIN { exit !(a <= l) }'; }
load1() { cut -d' ' -f1 /proc/loadavg; }
before=$(load1)
if ! quiet "$before" && [ "$force" != 1 ]; then
	echo "load average $before > $limit: not a quiet machine, nothing measured." >&2
	echo "Rerun when it is quiet, or with --force (the table then says it was loaded)." >&2
	exit 3
fi

# the benchmarks after perf 6.1 that this perf has
upstream=
while read -r coll bench; do
	if "$perf" bench "$coll" 2>&1 | grep -qw -- "$bench"; then
		upstream+="$coll $bench,"
	fi
done < <(python3 bench/fidelity-points.py upstream)

for s in scenario short pinned; do
	python3 bench/fidelity-points.py $s "$perf" "$repeat" "$warmup" "$upstream" \
		>"$out/$s.yaml"
done

# CPU time of the whole machine (/proc/stat, in USER_HZ ticks) and of our
# run (its children's rusage) over the run: the difference is what other
# work took.
cpu() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $9 }' /proc/stat; }
read -r busy0 steal0 < <(cpu)
t0=$(date +%s.%N)
start=$(date -u +%Y-%m-%dT%H:%MZ)
# a failed job is reported in the table with its reason; a --filter may
# leave one of the three scenarios with nothing to run
pin=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
for s in scenario short pinned; do
	on=()
	[ $s = pinned ] && on=(taskset -c "$pin")
	/usr/bin/time -f '%U %S' -o "$out/rusage.$s" "${on[@]}" "$kscen" run -q -o "$out" --compare none \
		"${filter[@]}" "$out/$s.yaml" >>"$out/run.log" 2>&1 || true
done
cat "$out"/rusage.* | awk '{ u += $1; s += $2 } END { print u, s }' >"$out/rusage"
t1=$(date +%s.%N)
read -r busy1 steal1 < <(cpu)
after=$(load1)
read -r us sy <"$out/rusage"
hz=$(getconf CLK_TCK)
others=$(awk -v b="$((busy1 - busy0))" -v hz="$hz" -v u="$us" -v s="$sy" \
	-v t="$(echo "$t1 - $t0" | bc)" 'BEGIN { o = (b / hz - u - s) / t; printf "%.2f", o < 0 ? 0 : o }')
steal=$(awk -v s="$((steal1 - steal0))" -v hz="$hz" -v t="$(echo "$t1 - $t0" | bc)" \
	'BEGIN { printf "%.1f", 100 * s / hz / t / '"$(nproc)"' }')
wall=$(echo "($t1 - $t0) / 1" | bc)
info="$start, ${wall} s; load average (1 min) $before before, $after after; other work during the run $others CPUs, steal $steal%; $(nproc) CPUs, $(uname -r), $("$perf" version); the memory benchmarks on CPU $pin"

marked=
if ! quiet "$before" || ! quiet "$others"; then
	if [ "$force" != 1 ]; then
		echo "other work took $others CPUs during the run (more than $limit): not a quiet machine." >&2
		echo "Rerun when it is quiet, or with --force (the table then says it was loaded)." >&2
		exit 3
	fi
	marked=marked
fi
json=()
for d in perf-bench-fidelity perf-bench-fidelity-short perf-bench-fidelity-pinned; do
	run=$(ls -d "$out/$d"/*.yaml 2>/dev/null | head -1 || true)
	if [ -n "$run" ]; then
		"$kscen" report --format json "$run" >"$out/$d.json"
		json+=("$out/$d.json")
	else
		json+=(-)
	fi
done
[ "${json[*]}" != "- - -" ] || { cat "$out/run.log" >&2; echo "kscen run saved nothing" >&2; exit 1; }
if [ -n "${KSCEN_FIDELITY_KEEP:-}" ]; then
	mkdir -p "$KSCEN_FIDELITY_KEEP" &&
		cp -r "$out"/perf-bench-fidelity* "$KSCEN_FIDELITY_KEEP"/ || exit 1
fi
python3 bench/fidelity-points.py table "${json[@]}" "$info" $marked
