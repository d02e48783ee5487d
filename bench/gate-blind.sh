#!/bin/bash
# gate-blind.sh [RUNS] - does the gate stay awake after a regression is saved?
# As a CI would use it: HISTORY (default 4) runs of "sleep $(cat COST)" at
# BASE (0.010 s), the last one --label good; then COST grows and each of RUNS
# (default 10) CI runs is `kscen run --bisect --compare label:good`, stored,
# so that every regressed run is in the history of the next. Once for a 2x
# regression and once for a 1.1x one, of what kscen measures: COST = BASE +
# (FACTOR - 1) x good's measured median, shell start-up and fork included
# (on a loaded VM a 10 ms sleep measures 80 ms; doubling the sleep alone
# would be +12%). Counts the runs flagged "worse" and the exit
# codes of --bisect (1: bad, at the default 5% gate). Each run's load average
# is printed beside it. Not part of `make test`: it takes minutes.
#
# Environment: KSCEN (default ./kscen), BASE (0.010), HISTORY (4), REPEAT
# (the scenario's 5), NICE (unset; -20 as root shields the samples).
set -u
runs=${1:-10}
base=${BASE:-0.010}
history=${HISTORY:-4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$(realpath "${KSCEN:-./kscen}")" "$tmp/kscen" || exit 2
kscen=$tmp/kscen
nice=()
[ -n "${NICE:-}" ] && nice=(nice -n "$NICE")
repeat=()
[ -n "${REPEAT:-}" ] && repeat=(-r "$REPEAT")

cat >"$tmp/s.yaml" <<EOS
scenario: gate-blind
jobs:
  - name: cost
    workload: exec
    params:
      command: "sleep \$(cat $tmp/cost)"
EOS

# verdict JSON: "VERDICT REL LO HI RUNS" of the only job against its reference
verdict() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["jobs"][0]["deltas"]["last"] or {}
f = lambda v: "nan" if v is None else "%+.1f%%" % (100 * v)
print(d.get("verdict", "none").replace(" ", "_"), f(d.get("rel")), f(d.get("ci_low")),
      f(d.get("ci_high")), d.get("history_runs", 0))' "$1"
}

echo "# gate-blind: $history good runs at ${base}s, then $runs saved regressed runs each," \
	"repeat ${REPEAT:-5}, nice ${NICE:-none}, $(date -u +%FT%TZ)"
for factor in 2 1.1; do
	res=$tmp/res-$factor
	echo "$base" >"$tmp/cost"
	for i in $(seq "$history"); do
		lbl=()
		[ "$i" = "$history" ] && lbl=(--label good)
		"${nice[@]}" "$kscen" run -q -o "$res" "${repeat[@]}" "${lbl[@]}" --format json \
			"$tmp/s.yaml" >"$tmp/good.json" 2>/dev/null || { echo "good run failed" >&2; exit 2; }
		sleep 1
	done
	m=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["metrics"][0]["median"])' \
		"$tmp/good.json")
	python3 -c "print(f'{$base + ($factor - 1) * $m:.6f}')" >"$tmp/cost"
	worse=0 bad=0 codes=""
	for i in $(seq "$runs"); do
		load=$(cut -d' ' -f1 /proc/loadavg)
		"${nice[@]}" "$kscen" run -q -o "$res" "${repeat[@]}" --bisect --compare label:good \
			--format json "$tmp/s.yaml" >"$tmp/r.json" 2>"$tmp/r.err"
		rc=$?
		read -r v rel lo hi k < <(verdict "$tmp/r.json")
		[ "$v" = worse ] && worse=$((worse + 1))
		[ $rc = 1 ] && bad=$((bad + 1))
		codes="$codes $rc"
		echo "  ${factor}x run $i: $rel [$lo .. $hi] $v (good's segment: $k runs), bisect exit $rc, load $load"
		sleep 1
	done
	echo "# ${factor}x (cost $(cat "$tmp/cost") s against ${base} s, good's median $m s):" \
		"worse in $worse of $runs, bisect exit 1 in $bad of $runs (exit codes:$codes)"
done
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
