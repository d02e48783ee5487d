#!/bin/bash
# fdr-aa.sh [RUNS] - chance flags counted: a 100-job A/A scenario (each
# sample prints a random number from 1000 to 1099, so nothing ever changes
# and every verdict is by chance), HISTORY (default 3) runs to seed the
# history, then RUNS (default 100) runs with `--gate-fdr 0.05`, each stored.
# Per run it reads the footer: how many of the comparisons against the
# reference (and within the run: 99 jobs against the first) changed, and
# how many the footer says to expect by chance; and whether the FDR gate
# tripped. Not part of `make test`: it takes minutes.
#
# Environment: KSCEN (default ./kscen), HISTORY (3).
set -u
runs=${1:-100}
history=${HISTORY:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$(realpath "${KSCEN:-./kscen}")" "$tmp/kscen" || exit 2
kscen=$tmp/kscen

{
	echo "scenario: fdr-aa"
	echo "repeat: 5"
	echo "jobs:"
	echo "  - name: v"
	echo "    workload: exec"
	echo "    params:"
	echo "      metric_regex: 'v: ([0-9]+)'"
	echo "      command:"
	for j in $(seq 100); do
		echo "        - 'echo v: \$((1000 + \$(od -An -N2 -tu2 /dev/urandom) % 100)) # $j'"
	done
	echo "    baseline: {command: 'echo v: \$((1000 + \$(od -An -N2 -tu2 /dev/urandom) % 100)) # 1'}"
} >"$tmp/s.yaml"

echo "# fdr-aa: 100 jobs, $history history runs, then $runs runs with --gate-fdr 0.05, $(date -u +%FT%TZ)"
for i in $(seq "$history"); do
	"$kscen" run -q -o "$tmp/res" "$tmp/s.yaml" >/dev/null 2>&1 || { echo "history run failed" >&2; exit 2; }
	sleep 1
done
trips=0
: >"$tmp/counts"
for i in $(seq "$runs"); do
	load=$(cut -d' ' -f1 /proc/loadavg)
	"$kscen" run -q -o "$tmp/res" --gate-fdr 0.05 "$tmp/s.yaml" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] && trips=$((trips + 1))
	# "# against the reference: 4 of 100 changed; about 5.0 expected by chance"
	# ("at most 6.3" where the family's expected count is a bound)
	fam='changed; \(about\|at most\) \([0-9.]*\) expected.*'
	b=$(sed -n "s/^# against the reference: \([0-9]*\) of \([0-9]*\) $fam/\1 \2 \4/p" "$tmp/out")
	w=$(sed -n "s/^# within the run: \([0-9]*\) of \([0-9]*\) $fam/\1 \2 \4/p" "$tmp/out")
	echo "$b $w" >>"$tmp/counts"
	echo "run $i: against the reference ${b:-?} (changed, of, expected); within ${w:-?}; gate exit $rc; load $load"
	sleep 1
done
python3 - "$tmp/counts" "$runs" "$trips" <<'PY'
import math, sys
lines = open(sys.argv[1]).read().splitlines()
rows = [list(map(float, l.split())) for l in lines if len(l.split()) == 6]
runs, trips = int(sys.argv[2]), int(sys.argv[3])
if len(rows) != len(lines) or not rows:
    sys.exit(f"# {len(lines) - len(rows)} of {len(lines)} runs' footers not read: no summary")
for name, k in (("against the reference", 0), ("within the run", 3)):
    ch = [r[k] for r in rows]
    ex = [r[k + 2] for r in rows]
    m = sum(ch) / len(ch)
    e = sum(ex) / len(ex)
    sd = math.sqrt(sum((c - m) ** 2 for c in ch) / max(len(ch) - 1, 1))
    inside = sum(abs(c - x) <= 2 * math.sqrt(x) for c, x in zip(ch, ex))
    print(f"# {name}: changed {m:.2f} a run (SD {sd:.2f}, at most {max(ch):.0f}), "
          f"expected by chance {e:.2f}; within 2 sqrt(expected) of it in {inside} of {len(ch)} runs")
print(f"# --gate-fdr 0.05 tripped in {trips} of {runs} runs")
PY
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
